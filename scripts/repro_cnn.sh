#!/usr/bin/env bash
# Reproduction: CNN classification, DEO*-mSGD x 4 against DEO-mSGD x 4 and
# the mSGD x 4 ensemble on MNIST and Fashion-MNIST classes 0-4 (classes
# 5-9 out of distribution), 5 seeds each (docs/reproduction.md, "CNN
# classification: DEO* vs DEO vs ensembles").  Prints the table (mean +-
# standard error over seeds) and saves it as runs/cls/table.md.
#
# Usage: bash scripts/repro_cnn.sh [STEP ...]      (from anywhere)
#   steps: mnist fashion table        (default: all three)
#   REPLEX=path   binary (default build/replex)
#   SEEDS="S ..." seeds (default "1 2 3 4 5"; the 3-seed subset: "1 2 3")
#   THREADS=N     --threads of every run (default 1; results do not depend
#                 on it)
#
# The runs (30 with the defaults), each with --no-plots --quiet:
#   replex run yaml/cls_D.yaml -o runs/cls/D/deo_star-sS --set seed=S
#   replex run yaml/cls_D.yaml -o runs/cls/D/deo-sS      --set seed=S --set tempering.scheme=deo
#   replex run yaml/cls_D.yaml -o runs/cls/D/ensemble-sS --set seed=S --set tempering.scheme=none --set ladder.eta=5e-6
# for D in mnist fashion and S in SEEDS.  A run directory that already
# holds summary.json is not run again, so the script can be restarted
# after an interruption.  Every figure is a function of (config, seed);
# only the wall times are not.
#
# Scores: DEO* and DEO by the model average of position 1 (summary.json
# `metrics`), the ensemble by its four final particles
# (`metrics_final_ensemble`), as the papers compare them.  The other
# predictive of each run is listed below the table.  Aggregated with
# Debian's /usr/bin/python3 and numpy (a helper of this script only).
set -euo pipefail

cd "$(dirname "$0")/.."
REPLEX=${REPLEX:-build/replex}
SEEDS=${SEEDS:-1 2 3 4 5}
THREADS=${THREADS:-1}
PY=/usr/bin/python3
OUT=runs/cls
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(mnist fashion table)

run_one() {  # data method seed
    local d=$1 m=$2 s=$3 dir=$OUT/$1/$2-s$3
    local extra=()
    case $m in
        deo_star) ;;
        deo) extra=(--set tempering.scheme=deo) ;;
        ensemble) extra=(--set tempering.scheme=none --set ladder.eta=5e-6) ;;
    esac
    if [ -f "$dir/summary.json" ]; then return; fi
    echo "run $dir" >&2
    "$REPLEX" run "yaml/cls_$d.yaml" -o "$dir" --force --no-plots --quiet \
        --threads "$THREADS" --set seed="$s" "${extra[@]}"
}

for step in "${steps[@]}"; do
    case $step in
        mnist|fashion)
            mkdir -p "$OUT/$step"
            for s in $SEEDS; do
                for m in deo_star deo ensemble; do run_one "$step" "$m" "$s"; done
            done ;;
        table)
            "$PY" - "$OUT" <<'PYEOF' | tee "$OUT/table.md" ;;
import glob, json, os, sys
import numpy as np

out = sys.argv[1]
methods = [("deo_star", "DEO*-mSGD x 4", "metrics", "metrics_final_ensemble"),
           ("deo", "DEO-mSGD x 4", "metrics", "metrics_final_ensemble"),
           ("ensemble", "mSGD x 4 ensemble", "metrics_final_ensemble", "metrics")]
keys = [("accuracy", "accuracy", 4), ("nll", "NLL", 4), ("ece", "ECE", 4),
        ("entropy_test", "entropy test", 3), ("entropy_ood", "entropy OOD", 3)]
names = {"mnist": "MNIST", "fashion": "Fashion-MNIST"}


def runs(d, m):
    res = []
    for f in sorted(glob.glob(os.path.join(out, d, m + "-s*", "summary.json"))):
        with open(f) as fh:
            res.append(json.load(fh))
    return res


def ms(v, nd):
    v = np.asarray(v, float)
    if len(v) < 2:
        return f"{v.mean():.{nd}f}" if len(v) else "-"
    return f"{v.mean():.{nd}f} ± {v.std(ddof=1) / np.sqrt(len(v)):.{nd}f}"


for d in ("mnist", "fashion"):
    if not os.path.isdir(os.path.join(out, d)):
        continue
    print(f"#### {names[d]}\n")
    print("| method | predictive | seeds | " + " | ".join(k[1] for k in keys) + " |")
    print("|---|---|---|" + "---|" * len(keys))
    rows2 = []
    for m, label, main, other in methods:
        rs = runs(d, m)
        if not rs:
            continue
        for which, lab2, sink in ((main, "", None), (other, " (other)", rows2)):
            pred = "model average" if which == "metrics" else "final ensemble"
            cells = [ms([r[which][k] for r in rs], nd) for k, _, nd in keys]
            line = f"| {label} | {pred} | {len(rs)} | " + " | ".join(cells) + " |"
            if sink is None:
                print(line)
            else:
                sink.append(line)
    print("\nThe other predictive of each run (not the papers' comparison):\n")
    print("| method | predictive | seeds | " + " | ".join(k[1] for k in keys) + " |")
    print("|---|---|---|" + "---|" * len(keys))
    for line in rows2:
        print(line)
    print("\n| method | seeds | swaps | A.5 round trips | 1->P->1 | condition rate | final C | wall s (each) |")
    print("|---|---|---|---|---|---|---|---|")
    for m, label, _, _ in methods:
        rs = runs(d, m)
        if not rs:
            continue
        walls = ", ".join(f"{r['timing']['wall_s']:.0f}" for r in rs)
        c = [r["correction"] for r in rs] if m != "ensemble" else []
        print(f"| {label} | {len(rs)} | {ms([r['swaps']['total'] for r in rs], 1)} | "
              f"{ms([r['round_trips']['a5'] for r in rs], 1)} | "
              f"{ms([r['round_trips']['l1'] for r in rs], 1)} | "
              f"{ms([r['swaps']['condition_rate_mean'] for r in rs], 3)} | "
              f"{ms(c, 2) if c else '-'} | {walls} |")
    print()
print("Mean ± standard error over seeds (sd / sqrt(n)); NLL per test example;"
      " ECE with 15 bins; entropies in nats (log 5 = 1.609).")
PYEOF
        *) echo "unknown step: $step (mnist fashion table)" >&2; exit 2 ;;
    esac
done

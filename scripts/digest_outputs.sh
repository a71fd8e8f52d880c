#!/usr/bin/env bash
# Checksums of what every experiment file in yaml/ writes (samples.npy,
# index.npy, weights.npy, trace.csv, inference.nc (no date in it: the same
# bytes for the same run), and summary.json less its timing block),
# each run shortened to ITERS iterations (default 3000; network files
# NET_ITERS, default 200; convolutional ones CNN_ITERS, default 6) on THREADS
# threads (default 2). Used to show that a change which should not move results
# leaves every output bit for bit as it was:
#   bash scripts/digest_outputs.sh > before.txt   # on the old tree
#   bash scripts/digest_outputs.sh > after.txt    # on the new tree
#   diff before.txt after.txt
# A file whose run fails is listed with its exit status.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${REPLEX:-build/replex}
iters=${ITERS:-3000}
threads=${THREADS:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in yaml/*.yaml; do
    name=$(basename "$f" .yaml)
    out="$tmp/$name"
    n=$iters
    case "$name" in
    *cnn*) n=${CNN_ITERS:-6} ;;
    uci_* | mlp_* | vr_boston*) n=${NET_ITERS:-200} ;;
    esac
    # burn_in may exceed the shortened length: it is reset to 0.
    "$bin" run "$f" -o "$out" --threads "$threads" --set iterations="$n" \
        --set record.burn_in=0 >"$tmp/$name.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "$name exit $rc $(tail -n 1 "$tmp/$name.log")"
        continue
    fi
    find "$out" -type f \( -name '*.npy' -o -name trace.csv -o -name summary.json \
        -o -name inference.nc \) |
        LC_ALL=C sort | while read -r g; do
        rel=${g#"$tmp"/}
        case "$g" in
        *summary.json)
            h=$(python3 -c 'import json,sys,hashlib
d=json.load(open(sys.argv[1]))
d.pop("timing",None); d.pop("replex_version",None)
print(hashlib.sha256(json.dumps(d,sort_keys=True).encode()).hexdigest()[:16])' "$g") ;;
        *) h=$(sha256sum "$g" | cut -c1-16) ;;
        esac
        echo "$rel $h"
    done
done

#!/usr/bin/env bash
# Deng 2021, Sec. 6.4.1 at a small budget: yaml/b4_mnist_icsgld.yaml for
# 200 iterations (seed 1), ICSGLD x 4 against one SGD chain, measured by
# scripts/b4_mnist.py --check: the training energy of ICSGLD's chain 1
# (means over 16 iterations) climbs back up by >= 5 du at least once,
# while SGD's never rises more than 1 du above its lowest value so far
# (at this seed ICSGLD climbs twice, by up to 32 du; SGD by 0). With
# bias.zeta = 0 (plain SGLD chains) ICSGLD does not climb and the check
# fails. Skipped without data/mnist or Debian's Python.
set -u
cd "$RX_SRCDIR"
[ -f data/mnist/0.json ] || { echo "data/mnist missing: skipped"; exit 77; }
[ -x /usr/bin/python3 ] || { echo "/usr/bin/python3 missing: skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 scripts/b4_mnist.py --replex "$RX_REPLEX" --out "$tmp" \
  --only icsgld,sgd --iterations 200 --svg none --check "$@"

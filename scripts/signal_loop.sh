#!/usr/bin/env bash
# SIGINT and SIGTERM at random moments of checkpointing runs on 1 to 3
# threads: every run must stop within a few seconds (exit 1, resumable),
# never hang. The hang it guards against (a stop request taken between
# a periodic checkpoint's barrier and a slower thread's reading of it)
# showed in about 1 try in 5 on 2 threads.
#
#   scripts/signal_loop.sh [REPLEX [TRIES]]   (default build/replex, 200)
#
# Prints one line per hang and a summary; exit 1 on any hang or wrong
# exit status.
set -u
R=${1:-build/replex}
N=${2:-200}
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
hang=0; wrong=0
for i in $(seq 1 "$N"); do
  th=$(( i % 3 + 1 )); sig=INT; [ $(( i % 2 )) -eq 0 ] && sig=TERM
  every=$(( (i % 4) * 7 + 3 ))
  d="$tmp/r$i"
  "$R" run "$src/yaml/default.yaml" -o "$d" --no-plots -q --threads "$th" \
    --set iterations=400000 --set checkpoint.every=$every 2>/dev/null & p=$!
  # from the moment the run has started (DIR.partial: its handlers are
  # about to be installed), not from the process's start: a loaded
  # machine can take longer than the delay to load the libraries, and a
  # signal then kills a process that has no handler yet (exit 143)
  for _ in $(seq 1 300); do [ -e "$d.partial" ] && break; sleep 0.01; done
  sleep "0.$(( RANDOM % 40 + 10 ))"
  kill -$sig $p 2>/dev/null
  for _ in $(seq 1 100); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
  if kill -0 $p 2>/dev/null; then
    echo "try $i: hang ($th threads, SIG$sig, checkpoint.every $every)"
    hang=$((hang+1)); kill -9 $p; wait $p 2>/dev/null
  else
    wait $p; rc=$?
    # 1: stopped with a checkpoint; 0: finished before the signal
    if [ $rc -ne 1 ] && [ $rc -ne 0 ]; then
      echo "try $i: exit $rc ($th threads, SIG$sig)"; wrong=$((wrong+1))
    fi
  fi
  rm -rf "$d" "$d.partial"
done
echo "signal loop: $N tries, $hang hangs, $wrong wrong exits"
[ $hang -eq 0 ] && [ $wrong -eq 0 ]

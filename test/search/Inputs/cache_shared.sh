#!/usr/bin/env bash
# The steps of test/search/cache-shared.mlir against the server at
# $REDIS_URL: each run's output in DIR/<step>.out, its stderr in
# DIR/<step>.err. Usage: cache_shared.sh INPUT DIR PYTHON REDIS_ENTRIES_PY
set -euo pipefail
in=$1 dir=$2 python=$3 entries=$4
run() { # run STEP CACHE-DIR [OPTIONS...]
  local step=$1 cache=$2
  shift 2
  mirage-opt --mirage-search="time-budget-s=0 cache-dir=$dir/$cache cache-url=$REDIS_URL $*" \
    --mirage-remarks "$in" -o "$dir/$step.out" 2>"$dir/$step.err"
}
run a a
run b b
run b2 b
for mode in truncate random op shape huge; do
  "$python" "$entries" "$mode" >/dev/null
  run "$mode" "$mode"
done
redis-cli -p "$REDIS_PORT" FLUSHALL >/dev/null
redis-cli -p "$REDIS_PORT" CONFIG SET maxmemory-policy noeviction >/dev/null
redis-cli -p "$REDIS_PORT" CONFIG SET maxmemory 1 >/dev/null
run full full

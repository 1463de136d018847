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
# One search across the fleet. The entries a search leaves, kept aside.
cli() { redis-cli -p "$REDIS_PORT" "$@"; }
cli FLUSHALL >/dev/null
run fill fill
keys=$(cli --scan --pattern 'mirage:*')
mkdir -p "$dir/values"
for k in $keys; do cli --raw GET "$k" | head -c -1 >"$dir/values/${k#mirage:}"; done
# Another process holds both locks and never finishes: this one waits
# cache-wait-s (0.5 s) for each, searches it itself, and leaves the
# other's locks alone.
cli FLUSHALL >/dev/null
for k in $keys; do cli SET "mirage-lock:${k#mirage:}" other >/dev/null; done
run stale stale cache-wait-s=0.5
for k in $keys; do cli GET "mirage-lock:${k#mirage:}"; done >"$dir/stale.locks"
# Returns once this process polls a lock (EXISTS), after 60 s at most.
await_poll() {
  for i in $(seq 600); do
    cli CLIENT LIST | grep -q 'cmd=exists' && return
    sleep 0.1
  done
}
# It finishes while this one waits: once this process polls the lock, the
# other writes its results and releases its locks; this one takes the
# first result from the shared cache (the second right after it: found
# there or briefly waited for, as the two processes meet).
cli FLUSHALL >/dev/null
for k in $keys; do cli SET "mirage-lock:${k#mirage:}" other >/dev/null; done
(await_poll
 for k in $keys; do
   cli -x SET "$k" <"$dir/values/${k#mirage:}" >/dev/null
   cli DEL "mirage-lock:${k#mirage:}" >/dev/null
 done) &
run waited waited
wait
cli FLUSHALL >/dev/null
cli CONFIG SET maxmemory-policy noeviction >/dev/null
cli CONFIG SET maxmemory 1 >/dev/null
run full full
# The server stopped in the middle of a run: another process holds both
# locks; once this one polls the first, the server is shut down (last
# step: nothing runs against it after). The wait bound (600 s) is not
# what ends the wait: the failed poll is.
cli CONFIG SET maxmemory 0 >/dev/null
cli FLUSHALL >/dev/null
for k in $keys; do cli SET "mirage-lock:${k#mirage:}" other >/dev/null; done
(await_poll
 cli SHUTDOWN NOSAVE >/dev/null 2>&1 || true) &
run stopped stopped cache-wait-s=600
wait

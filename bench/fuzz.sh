#!/usr/bin/env bash
# The by-hand fuzz run (docs/benchmarks.md, "Fuzzing"):
# mirage-fuzz from the sanitized build (build-asan/, or
# $MIRAGE_ASAN_BUILD_DIR; built first when missing) over the lit inputs and
# examples, one child per core. Prints the machine line and mirage-fuzz's
# table; the first input of each crash/hang/memory signature and its stderr
# go to <build>/fuzz-<seed>/. Asserts nothing (the CI slice is
# test/fuzz/slice.mlir); the exit status is mirage-fuzz's.
# Usage: bench/fuzz.sh [--seed=N] [--inputs=N] [other mirage-fuzz options]
#        (defaults: --seed=1 --inputs=100000 --jobs=$(nproc))
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MIRAGE_ASAN_BUILD_DIR:-$root/build-asan}"
if [ ! -x "$build/bin/mirage-fuzz" ]; then
  MIRAGE_BUILD_DIR="$build" bash "$root/scripts/build.sh" \
    -DMIRAGE_SANITIZE=address,undefined >&2 || exit 2
fi
seed=1
for a in "$@"; do
  case "$a" in --seed=*) seed=${a#--seed=} ;; esac
done
# The same sanitizer options as the suite (scripts/test.sh); mirage-fuzz
# adds handle_abort=1 and allocator_may_return_null=1 under them.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_string_checks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="abort_on_error=1:halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export XDG_CACHE_HOME="$build/fuzz-cache" # cache=false: nothing is written
echo "# $(date -u +%Y-%m-%dT%H:%MZ); $(git -C "$root" rev-parse --short HEAD 2>/dev/null); $(uname -m); $(nproc) cores; $(cc --version | head -1)"
exec "$build/bin/mirage-fuzz" --seed="$seed" --inputs=100000 --jobs="$(nproc)" \
  --save="$build/fuzz-$seed" "$@" "$root/test" "$root/examples"

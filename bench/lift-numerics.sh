#!/usr/bin/env bash
# "Numbers agree" at every shape: lifts each benchmark file of test/lift (the
# six paper programs in TOSA and linalg, small and paper shapes) and runs
# mirage-run on every lifted subprogram: the original ops JIT-compiled on the
# CPU against the μGraph float interpreter, same random inputs. The paper
# shapes take up to half a minute each, so they are here, not in the suite.
# Not a test: it prints mirage-run's lines and their wall time.
# Usage: bench/lift-numerics.sh [build-dir] (default: build)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
echo "# mirage-run --lift --range=0.25; $(nproc) cores"
for f in "$root"/test/lift/{rmsnorm,gqa,qknorm,lora,gated-mlp,ntrans}-{tosa,linalg}.mlir; do
  start=$(date +%s.%N)
  lines=$("$build/bin/mirage-run" --lift --range=0.25 "$f" 2>&1)
  status=$?
  end=$(date +%s.%N)
  printf '%s (%.1f s, exit %d)\n%s\n' "$(basename "$f")" "$(echo "$end - $start" | awk '{print $1 - $3}')" "$status" "$lines"
done

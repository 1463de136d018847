#!/usr/bin/env bash
# Lifting at scale (issue 14): writes modules of N small TOSA functions and
# times the passes that visit every function, to show that they stay
# linear in the number of functions: lift, lift then unlift, the search
# with its cache warm (lower=false), and the search then the lowering to
# the GPU dialect (ptx=false: no CUDA toolkit needed). The functions cycle
# through add + exp and an RMSNorm-like reduction at two row counts: four
# distinct μGraphs, searched once (when the cache is warmed, untimed) and
# deduplicated afterwards. Every 50th function is followed by a user
# function named like a generated one (@f<i>_lax0 or @f<i>_lax0_ref), so
# name collisions are met on the way.
# Not a test: it prints a table of wall times (seconds; "> T" when the run
# was stopped at the time limit T).
# Usage: bench/lift-scale.sh [build-dir] [N ...]   (default: build, 1000 4000 10000 40000)
# MIRAGE_SCALE_LIMIT_S: time limit per run (default 600).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 4000 10000 40000)
limit="${MIRAGE_SCALE_LIMIT_S:-600}"
opt="$build/bin/mirage-opt"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# generate N FILE: the module described above.
generate() {
  awk -v n="$1" 'BEGIN {
    for (i = 0; i < n; ++i) {
      rows = (int(i / 2) % 2) ? 8 : 4
      t = "tensor<" rows "x64xf32>"; r = "tensor<" rows "x1xf32>"
      if (i % 2 == 0) {
        printf "func.func @f%d(%%x: %s, %%y: %s) -> %s {\n", i, t, t, t
        printf "  %%a = tosa.add %%x, %%y : (%s, %s) -> %s\n", t, t, t
        printf "  %%b = tosa.exp %%a : (%s) -> %s\n", t, t
        printf "  return %%b : %s\n}\n", t
      } else {
        printf "func.func @f%d(%%x: %s) -> %s {\n", i, t, t
        printf "  %%s = \"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>\n"
        printf "  %%n = \"tosa.const\"() <{values = dense<0.015625> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>\n"
        printf "  %%q = tosa.mul %%x, %%x, %%s : (%s, %s, tensor<1xi8>) -> %s\n", t, t, t
        printf "  %%m = tosa.reduce_sum %%q {axis = 1 : i32} : (%s) -> %s\n", t, r
        printf "  %%v = tosa.mul %%m, %%n, %%s : (%s, tensor<1x1xf32>, tensor<1xi8>) -> %s\n", r, r
        printf "  %%w = tosa.rsqrt %%v : (%s) -> %s\n", r, r
        printf "  %%y = tosa.mul %%x, %%w, %%s : (%s, %s, tensor<1xi8>) -> %s\n", t, r, t
        printf "  return %%y : %s\n}\n", t
      }
      if (i % 50 == 0)
        printf "func.func private @f%d_lax0%s(%%x: tensor<4x8xf32>) -> tensor<4x8xf32> {\n  return %%x : tensor<4x8xf32>\n}\n", i, (i / 50) % 2 ? "_ref" : ""
    }
  }' > "$2"
}

# timed LABEL CMD...: the wall time of CMD (output discarded), or "> limit".
timed() {
  local start end
  start=$(date +%s.%N)
  if ! nice timeout "$limit" "$@" > /dev/null 2> "$work/err"; then
    if [ "$(date +%s.%N | awk -v s="$start" '{print int($1 - s)}')" -ge "$limit" ]; then
      echo "> $limit"
    else
      echo "failed ($(head -c 200 "$work/err"))"
    fi
    return
  fi
  end=$(date +%s.%N)
  echo "$start $end" | awk '{printf "%.2f", $2 - $1}'
}

echo "# bench/lift-scale.sh; $(date -u +%Y-%m-%d); $(nproc) cores; limit $limit s per run"
echo "| functions | input MB | lift s | lift + unlift s | superopt lower=false s | superopt ptx=false s |"
echo "|---:|---:|---:|---:|---:|---:|"
cache="$work/cache"
# Warm the cache: the four distinct μGraphs are searched here, not timed.
generate 8 "$work/warm.mlir"
nice "$opt" "--mirage-superopt=lower=false cache-dir=$cache" "$work/warm.mlir" > /dev/null 2>&1
for n in "${sizes[@]}"; do
  f="$work/m$n.mlir"
  generate "$n" "$f"
  mb=$(du -m "$f" | cut -f1)
  lift=$(timed "$opt" --mirage-lift "$f")
  unlift=$(timed "$opt" --mirage-lift --mirage-unlift "$f")
  superopt=$(timed "$opt" "--mirage-superopt=lower=false cache-dir=$cache" "$f")
  lowered=$(timed "$opt" "--mirage-superopt=ptx=false cache-dir=$cache" "$f")
  echo "| $n | $mb | $lift | $unlift | $superopt | $lowered |"
done

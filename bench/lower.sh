#!/usr/bin/env bash
# The lowering on the six paper benchmarks (test/lift/*-tosa.mlir, small and
# paper shapes): mirage-superopt (lift, search, lower, PTX), then per GPU
# module the PTX through ptxas -v (registers, shared memory, spills), and
# the CPU form of the chosen μGraphs against the interpreter (mirage-run
# --lower). Prints a table; asserts nothing.
# Usage: bench/lower.sh [--target sm_90]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${MIRAGE_BUILD_DIR:-$root/build}/bin"
target=sm_90
if [[ "${1:-}" == "--target" && -n "${2:-}" ]]; then target="$2"; fi
ptxas=/usr/local/cuda/bin/ptxas
bash "$root/scripts/build.sh" >/dev/null
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
echo "# $(nproc) cores; target $target; $("$ptxas" --version 2>/dev/null | tail -1 || echo 'no ptxas')"
echo "| benchmark | superopt s | GPU module | kernels | estimated us (input -> chosen) | tile bytes per block (max) | registers (max) | static smem (ptxas) | spills | CPU form vs interpreter |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for name in rmsnorm gqa qknorm lora gated-mlp ntrans; do
  src="$root/test/lift/$name-tosa.mlir"
  start=$(date +%s.%N)
  "$bin/mirage-opt" --mirage-superopt="cache=false target=$target" --mirage-remarks "$src" -o "$out/$name.mlir" 2>"$out/$name.remarks"
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')
  "$bin/mirage-opt" --mirage-superopt="lower=false target=$target" "$src" -o "$out/$name.ug.mlir"
  cpu=$("$bin/mirage-run" --lower --range=0.25 "$out/$name.ug.mlir" 2>&1 | sed 's/.*max abs error/err/' | tr '\n' ';' | sed 's/;$//')
  python3 "$root/test/lower/Inputs/extract_ptx.py" "$out/$name.mlir" "$out/$name.ptx" >/dev/null
  first=1
  for ptx in "$out/$name.ptx"/*.ptx; do
    info=$("$ptxas" -arch="$target" -v "$ptx" -o /dev/null 2>&1 | grep -E "Used|spill" || true)
    kernels=$(grep -c "^\.visible \.entry" "$ptx")
    regs=$(echo "$info" | grep -o "Used [0-9]* registers" | awk '{print $2}' | sort -n | tail -1)
    smem=$(echo "$info" | grep -o "[0-9]* bytes smem" | awk '{print $1}' | sort -n | tail -1)
    spills=$(echo "$info" | grep -o "[0-9]* bytes spill stores" | awk '{s+=$1} END {print s+0}')
    module=$(basename "$ptx" .ptx)
    tiles=$(grep -o "gpu.module @$module, at most [0-9]* bytes" "$out/$name.remarks" | grep -o "[0-9]* bytes" | awk '{print $1}')
    fn=${module%_gpu}
    est=$(grep -o "'@$fn' replaced by a verified μGraph: .*estimated [0-9.]* us -> [0-9.]* us" "$out/$name.remarks" | sed 's/.*estimated \([0-9.]*\) us -> \([0-9.]*\) us/\1 -> \2/')
    if [[ $first == 1 ]]; then
      printf "| %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %s |\n" "$name" "$secs" "$module" "$kernels" "${est:-kept}" "${tiles:-?}" "$regs" "${smem:-0}" "$spills" "$cpu"
      first=0
    else
      printf "| | | %s | %s | %s | %s | %s | %s | %s | |\n" "$module" "$kernels" "${est:-kept}" "${tiles:-?}" "$regs" "${smem:-0}" "$spills"
    fi
  done
done

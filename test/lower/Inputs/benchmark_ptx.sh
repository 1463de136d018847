#!/usr/bin/env bash
# Compiles the six paper benchmarks (test/lift/<name>-tosa.mlir, paper
# shapes) with mirage-superopt for target $1 into $2, and prints, per
# benchmark, a "== name" line, the PTX of its paper-shape GPU module and
# what `ptxas -v` says of it, for FileCheck. The search and the lowering
# run as two steps (what --mirage-superopt does in one), so the searched
# kernel graphs stay in $2/<name>.searched.mlir for the test's other RUN
# lines: the searches are most of the time.
# Usage: benchmark_ptx.sh TARGET OUTDIR SRC_ROOT PTXAS PYTHON
set -euo pipefail
target=$1 out=$2 src=$3 ptxas=$4 python=$5
mkdir -p "$out"
for name in rmsnorm gqa qknorm lora gated-mlp ntrans; do
  mirage-opt --mirage-superopt="cache=false lower=false time-budget-s=0 target=$target" \
    "$src/test/lift/$name-tosa.mlir" -o "$out/$name.searched.mlir"
  mirage-opt --mirage-lower="target=$target" "$out/$name.searched.mlir" \
    -o "$out/$name.mlir"
  "$python" "$src/test/lower/Inputs/extract_ptx.py" "$out/$name.mlir" \
    "$out/$name" >/dev/null
  ptx=$(ls "$out/$name"/*paper*_gpu.ptx)
  echo "== $name"
  cat "$ptx"
  "$ptxas" -arch="$target" -v "$ptx" -o /dev/null 2>&1
done

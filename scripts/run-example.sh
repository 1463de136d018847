#!/usr/bin/env bash
# Builds, then runs `mirage-opt --mirage-superopt` on a shipped example:
# lift, search, verify, rank by cost, lower to GPU kernels and PTX.
# Usage: scripts/run-example.sh [example.mlir] [extra mirage-opt flags]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh" >/dev/null
example="${1:-$root/examples/rmsnorm_matmul.mlir}"
shift || true
# With the CUDA toolkit there, ptxas checks the PTX too (a remark per
# kernel module); without it the pipeline stops at the GPU dialect.
flags=""
if [[ -x /usr/local/cuda/bin/ptxas && -r /usr/local/cuda/nvvm/libdevice/libdevice.10.bc ]]; then
  flags="ptxas=true"
fi
exec "$build/bin/mirage-opt" --mirage-superopt="$flags" --mirage-remarks "$example" "$@"

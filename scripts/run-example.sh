#!/usr/bin/env bash
# Builds, then runs `mirage-opt --mirage-superopt` on a shipped example.
# Usage: scripts/run-example.sh [example.mlir] [extra mirage-opt flags]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh" >/dev/null
example="${1:-$root/examples/rmsnorm_matmul.mlir}"
shift || true
exec "$build/bin/mirage-opt" --mirage-superopt --mirage-remarks "$example" "$@"

#!/usr/bin/env bash
# The ptxas sweep: every test/lift file and every example through
# `mirage-superopt ptxas=true --split-input-file` for each target, so that
# ptxas checks every GPU module the pipeline emits. Prints one line per
# target (files, GPU modules accepted, files with a rejected module) and
# the rejected files' first error; exits 1 if any module was rejected.
# Does not build (the caller does).
# Usage: bench/ptxas-sweep.sh [--target sm_80 ...]   (default: sm_80 sm_90)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${MIRAGE_BUILD_DIR:-$root/build}/bin"
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) targets+=("$2"); shift 2 ;;
    *) echo "usage: $0 [--target sm_XX ...]" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(sm_80 sm_90)
if [ ! -x /usr/local/cuda/bin/ptxas ]; then
  echo "ptxas-sweep: no ptxas at /usr/local/cuda/bin/ptxas" >&2
  exit 2
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
echo "# $(/usr/local/cuda/bin/ptxas --version | tail -1)"
for t in "${targets[@]}"; do
  files=0 accepted=0 bad=()
  for f in "$root"/test/lift/*.mlir "$root"/examples/*.mlir; do
    files=$((files + 1))
    log="$out/$(basename "$f").log"
    # A file may hold inputs the pipeline rejects on purpose (error tests):
    # only ptxas' verdicts count here.
    "$bin/mirage-opt" --mirage-superopt="ptxas=true target=$t" \
      --split-input-file --mirage-remarks "$f" -o /dev/null >"$log" 2>&1
    n=$(grep -o "ptxas accepts [0-9]* kernel" "$log" | wc -l)
    accepted=$((accepted + n))
    if grep -q "ptxas rejects\|ptxas failed" "$log"; then
      bad+=("$(basename "$f"): $(grep -m1 "ptxas rejects\|ptxas failed" "$log")")
    fi
  done
  echo "$t: $files files, $accepted GPU modules accepted, ${#bad[@]} files with a rejected module"
  for b in "${bad[@]}"; do echo "  $b"; status=1; done
done
exit $status

#!/usr/bin/env bash
# The MPI search (docs/scale-out.md): a Llama-style decoder
# (bench/models/llama_tosa.py) through `mirage-opt --mirage-superopt`,
# once in one process and once under `mpirun -np N`, each search bounded
# by work (max-states, one thread per rank) so both find the same μGraphs.
# Prints one markdown row per run: ranks, wall seconds, what each rank
# did (rank 0's remark) and whether the output is byte-identical to the
# one-process run. Does not build (the caller does) and asserts nothing.
# Also the split of the work itself, which the machine's load does not
# change: the one-process run's search seconds (--mirage-stats) summed
# per rank as the MPI run assigns them (distinct subprogram j to rank
# (j + 1) mod N), and the bound that gives (one / busiest rank).
# On a machine of C cores the gain of N > C ranks is bounded by C, and by
# what other work leaves of them.
# Usage: bench/scale-out.sh [--ranks N] [--layers N] [--hidden H] [--heads A]
#                           [--ffn F] [--seq S] [--options "k=v ..."]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${MIRAGE_BUILD_DIR:-$root/build}/bin"
ranks=2 layers=4 hidden=512 heads=8 ffn=1408 seq=16
options="lower=false cache=false time-budget-s=0 max-states=300000 threads=1"
while (($#)); do
  case "$1" in
    --ranks) ranks="$2"; shift 2 ;;
    --layers) layers="$2"; shift 2 ;;
    --hidden) hidden="$2"; shift 2 ;;
    --heads) heads="$2"; shift 2 ;;
    --ffn) ffn="$2"; shift 2 ;;
    --seq) seq="$2"; shift 2 ;;
    --options) options="$2"; shift 2 ;;
    *) sed -n '/^# Usage/,/^set/p' "$0" | sed '$d' >&2; exit 2 ;;
  esac
done
command -v mpirun >/dev/null || { echo "scale-out.sh: no mpirun (scripts/install-deps.sh installs Open MPI)" >&2; exit 1; }
# Open MPI refuses root without these, and more ranks than cores without
# --oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
python3 "$root/bench/models/llama_tosa.py" --layers "$layers" --seq "$seq" \
  --hidden "$hidden" --heads "$heads" --ffn "$ffn" > "$out/model.mlir"
echo "model: $layers layers, hidden $hidden, $heads heads, ffn $ffn, seq $seq: $(grep -c ' = tosa\.' "$out/model.mlir") TOSA ops"
echo "options: $options"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(mpirun --version | head -1)"
echo
echo "| ranks | wall s | speedup | what the ranks did | output |"
echo "|---|---|---|---|---|"
/usr/bin/time -f "%e" -o "$out/time.1" "$bin/mirage-opt" --mirage-superopt="$options" \
  --mirage-stats "$out/model.mlir" -o "$out/one.mlir" 2> "$out/err.1"
one=$(cat "$out/time.1")
echo "| 1 (no mpirun) | $one | 1.00 | - | - |"
/usr/bin/time -f "%e" -o "$out/time.n" mpirun -np "$ranks" --oversubscribe --bind-to none \
  "$bin/mirage-opt" --mirage-superopt="$options" --mirage-remarks \
  "$out/model.mlir" -o "$out/n.mlir" 2> "$out/err.n"
wall=$(tail -1 "$out/time.n")
did=$(grep -o 'MPI: .*' "$out/err.n" | sed 's/^MPI: //')
same=$(cmp -s "$out/one.mlir" "$out/n.mlir" && echo identical || echo DIFFERS)
echo "| $ranks | $wall | $(python3 -c "print('%.2f' % ($one / $wall))") | $did | $same |"
echo
grep -E '^mirage-search @[^:]+: [0-9.]+ s \(enumerate' "$out/err.1" |
  sed -E 's/^mirage-search @[^:]+: ([0-9.]+) s.*/\1/' |
  python3 -c "
import sys
n = $ranks
t = [float(x) for x in sys.stdin]
per = [sum(x for j, x in enumerate(t) if (j + 1) % n == r) for r in range(n)]
print('work split: %d searches, %.2f s in one process; per rank %s s; bound %.2fx' %
      (len(t), sum(t), ', '.join('%.2f' % x for x in per), sum(t) / max(per)))"

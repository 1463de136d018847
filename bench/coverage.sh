#!/usr/bin/env bash
# How much of frontend-style programs `mirage-opt --mirage-lift` lifts: the
# module summary of --mirage-remarks for each program of a corpus we wrote
# ourselves in the forms torch-mlir (TOSA and linalg), ONNX importers (TOSA)
# and JAX (StableHLO -> linalg) emit (transformers, an MLP, two convolution
# nets), then the cuts of the whole corpus by
# reason. Corpus: bench/models/*.py (generated at the shapes below) and the
# torch-style programs of test/lift. With --compile, also each file through
# `mirage-opt --mirage-superopt` with a cold cache (lowering and PTX
# included, the default options): wall seconds and peak RSS per file, and
# how many subprograms the search left as they were because its time
# budget ran out (the result then depends on the machine's speed). Does not
# build (the caller does) and asserts nothing.
# Usage: bench/coverage.sh [--compile]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${MIRAGE_BUILD_DIR:-$root/build}/bin"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
m="$root/bench/models"
compile=0
if [[ "${1:-}" == --compile ]]; then compile=1; elif (($#)); then
  echo "usage: bench/coverage.sh [--compile]" >&2; exit 2
fi
python3 "$m/llama_tosa.py" --layers 2 > "$out/llama2-7b-torch-tosa.mlir"
python3 "$m/bert_tosa.py" > "$out/bert-base-onnx-tosa.mlir"
python3 "$m/jax_linalg.py" > "$out/mlp-block-jax-linalg.mlir"
python3 "$m/cnn.py" --form torch-linalg > "$out/resnet-torch-linalg.mlir"
python3 "$m/cnn.py" --form onnx-tosa > "$out/mobilenet-onnx-tosa.mlir"
for f in torch-tosa-rmsnorm torch-tosa-gated-mlp torch-linalg-gated-mlp torch-linalg-attention; do
  grep -v '^// \(RUN\|CHECK\|REM\|NUM\)' "$root/test/lift/$f.mlir" > "$out/$f.mlir"
done

if ((compile)); then
  echo "| program | frontend form | tensor ops | lifted | subprograms | μGraph ops per subprogram | superopt wall s (cold) | peak RSS MiB | kept at the time budget |"
  echo "|---|---|---|---|---|---|---|---|---|"
else
  echo "| program | frontend form | tensor ops | lifted | subprograms | μGraph ops per subprogram |"
  echo "|---|---|---|---|---|---|"
fi
: > "$out/reasons"
tops=0 tlifted=0 tsub=0 tug=0
for f in "$out"/*.mlir; do
  name=$(basename "$f" .mlir)
  case "$name" in
    *onnx-tosa) form="ONNX importer, TOSA" ;;
    *jax-linalg) form="JAX, linalg" ;;
    *tosa*) form="torch-mlir, TOSA" ;;
    *) form="torch-mlir, linalg" ;;
  esac
  "$bin/mirage-opt" --mirage-lift --mirage-remarks "$f" 2>&1 >/dev/null | grep 'mirage-lift: module:' > "$out/summary" || true
  line=$(head -1 "$out/summary")
  lifted=$(sed -E 's/.*module: ([0-9]+) of ([0-9]+) tensor ops.*/\1/' <<<"$line")
  ops=$(sed -E 's/.*module: ([0-9]+) of ([0-9]+) tensor ops.*/\2/' <<<"$line")
  sub=$(sed -E 's/.* into ([0-9]+) subprograms?.*/\1/' <<<"$line")
  mean=$(sed -E 's/.*, ([0-9.]+) μGraph ops each.*/\1/' <<<"$line")
  ug=$(awk -v s="$sub" -v m="$mean" 'BEGIN { printf "%d", s * m + 0.5 }')
  tail -n +2 "$out/summary" | sed -E 's/.*module: +([0-9]+) x (.*)/\1\t\2/' >> "$out/reasons"
  extra=""
  if ((compile)); then
    /usr/bin/time -f "%e %M" -o "$out/time" "$bin/mirage-opt" \
      --mirage-superopt="cache=false remarks=true" "$f" -o /dev/null 2> "$out/err" || true
    read -r wall rss < <(tail -1 "$out/time")
    budget=$(grep -c 'kept: .*stopped by the time budget' "$out/err" || true)
    extra=$(printf " %s | %.0f | %s |" "$wall" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$budget")
  fi
  printf "| %s | %s | %s | %s (%.0f %%) | %s | %s |%s\n" "$name" "$form" "$ops" "$lifted" \
    "$(awk -v a="$lifted" -v b="$ops" 'BEGIN { print b ? 100 * a / b : 0 }')" "$sub" "$mean" "$extra"
  tops=$((tops + ops)) tlifted=$((tlifted + lifted)) tsub=$((tsub + sub)) tug=$((tug + ug))
done
printf "| **corpus** | | %d | %d (%.1f %%) | %d | %.1f |\n" "$tops" "$tlifted" \
  "$(awk -v a="$tlifted" -v b="$tops" 'BEGIN { print 100 * a / b }')" "$tsub" \
  "$(awk -v a="$tug" -v b="$tsub" 'BEGIN { print b ? a / b : 0 }')"
echo
echo "| ops left in place | op: reason (numbers read N) |"
echo "|---|---|"
awk -F'\t' '{ n[$2] += $1 } END { for (r in n) printf "%d\t%s\n", n[r], r }' "$out/reasons" |
  sort -t$'\t' -k1,1nr -k2 | awk -F'\t' '{ printf "| %d | %s |\n", $1, $2 }'

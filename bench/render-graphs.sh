#!/usr/bin/env bash
# Pictures of the six paper benchmarks (test/lift/*-tosa.mlir, the _paper
# functions): the μGraph mirage-superopt chooses for each, drawn with
# --mirage-dump-dot and rendered by Graphviz (`dot -Tpng`), and a gnuplot
# chart of the speedup the cost model estimates for it over the input.
# Writes DIR/ugraph-<benchmark>.png and DIR/speedup.png (DIR: docs/img) and
# prints the chart's numbers as a markdown table. Does not build (the caller
# does) and asserts nothing.
# Usage: bench/render-graphs.sh [--target sm_80|sm_86|sm_89|sm_90] [--out DIR]
#
# Where the numbers come from: the remark mirage-search prints for each
# replaced subprogram (--mirage-remarks), "estimated A us -> B us ...,
# roofline C us -> D us": A and B are the cost model of the emitted code for
# the input and the chosen μGraph (what the search ranks by), C and D the
# idealised roofline (docs/cost.md). Speedup = A/B and C/D. These are
# estimates: no GPU ran anything. A subprogram the search keeps has no
# cheaper μGraph and counts as 1.0x. The search runs with cache=false and
# lower=false (the μGraph it chooses is the same; lowering adds only time).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${MIRAGE_BUILD_DIR:-$root/build}/bin"
target=sm_90 out="$root/docs/img"
while (($#)); do
  case "$1" in
    --target) target="${2:?--target needs sm_80, sm_86, sm_89 or sm_90}"; shift 2 ;;
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    *) echo "usage: bench/render-graphs.sh [--target sm_80|sm_86|sm_89|sm_90] [--out DIR]" >&2; exit 2 ;;
  esac
done
for tool in dot gnuplot; do
  command -v "$tool" >/dev/null || { echo "bench/render-graphs.sh: '$tool' not found (bash scripts/install-deps.sh installs it)" >&2; exit 1; }
done
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A remark line -> "A B C D" (estimate before, after; roofline before,
# after); "kept" when the search kept the subprogram.
parse_awk='
/mirage-search: .* kept: / { print "kept"; exit }
/mirage-search: .* replaced by a verified/ {
  est = $0; sub(/.*estimated /, "", est); split(est, e, " ")
  roof = $0; sub(/.*roofline /, "", roof); split(roof, r, " ")
  # "A us -> B us" in both; the roofline may omit the unit.
  a = e[1]; b = e[4]; c = r[1]; d = (r[2] == "us" ? r[4] : r[3])
  print a, b, c, d; exit }'

data="$work/speedup.dat"
: >"$data"
echo "# target $target, $("$bin/mirage-opt" --version), $(dot -V 2>&1), $(gnuplot --version), $(date '+%F %T %Z')"
echo "| benchmark | kernels (input -> chosen) | estimated us (input -> chosen) | speedup | roofline us (input -> chosen) | roofline speedup | picture |"
echo "|---|---|---|---|---|---|---|"
for name in rmsnorm gqa qknorm lora gated-mlp ntrans; do
  func="${name//-/_}_paper_lax0"
  if ! "$bin/mirage-opt" --mirage-superopt="cache=false lower=false target=$target" \
      --mirage-remarks --mirage-dump-dot="$work/dot" "$root/test/lift/$name-tosa.mlir" \
      -o /dev/null 2>"$work/$name.remarks"; then
    echo "| $name | mirage-opt failed: $(grep -m1 error "$work/$name.remarks") |"; continue
  fi
  dot -Tpng "$work/dot/$func.dot" -o "$out/ugraph-$name.png"
  line=$(grep -F "'@$func'" "$work/$name.remarks" | grep 'mirage-search' || true)
  nums=$(awk "$parse_awk" <<<"$line")
  kernels=$(sed -n 's/.*: \([0-9]*\) kernel(s) -> \([0-9]*\),.*/\1 -> \2/p' <<<"$line")
  if [[ -z $nums || $nums == kept ]]; then
    echo "| $name | kept | - | 1.0x | - | 1.0x | ugraph-$name.png |"
    echo "$name 1 1 \"kept\"" >>"$data"; continue
  fi
  read -r a b c d <<<"$nums"
  s1=$(awk -v x="$a" -v y="$b" 'BEGIN { printf "%.1f", x / y }')
  s2=$(awk -v x="$c" -v y="$d" 'BEGIN { printf "%.1f", x / y }')
  echo "| $name | $kernels | $a -> $b | ${s1}x | $c -> $d | ${s2}x | ugraph-$name.png |"
  echo "$name $s1 $s2 \"$kernels kernels\"" >>"$data"
done

# Two bars per benchmark, each labelled with its value.
gnuplot <<EOF
set terminal pngcairo size 900,480 font "DejaVu Sans,10" noenhanced
set output "$out/speedup.png"
set title "Estimated speedup of the chosen μGraph over the input ($target)\nmirage-superopt's cost-model estimates (emitted code, roofline): no GPU measurements"
set ylabel "speedup (input estimate / chosen estimate)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:*]
set grid ytics
set key top right
set xtics nomirror
set xrange [-0.6:5.6]
set bmargin 4
plot "$data" using 2:xtic(sprintf("%s\\n%s", strcol(1), strcol(4))) title "emitted-code estimate (what the search ranks by)" lc rgb "#6c8ebf", \
     "" using 3 title "roofline" lc rgb "#d6b656", \
     "" using (\$0 - 1.0/6):2:(sprintf("%.1fx", \$2)) with labels offset 0,0.7 notitle, \
     "" using (\$0 + 1.0/6):3:(sprintf("%.1fx", \$3)) with labels offset 0,0.7 notitle
EOF
echo
echo "# wrote $out/ugraph-{rmsnorm,gqa,qknorm,lora,gated-mlp,ntrans}.png and $out/speedup.png"

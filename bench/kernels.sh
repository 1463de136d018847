#!/usr/bin/env bash
# Per-kernel view of the PTX that mirage-superopt emits for the six paper
# benchmarks (test/lift/*-tosa.mlir, both the _small and the _paper function;
# --paper-only keeps the _paper ones): launch shape, ptxas resources, an
# occupancy estimate and static counts of the memory / sync / FMA
# instructions, one markdown table per target. Does not build (the caller
# does) and asserts nothing.
# Usage: bench/kernels.sh [--target sm_80|sm_90 ...] [--paper-only] [--only PROGRAM]
#        (default: sm_80 and sm_90, all six programs)
#
# Where the numbers come from:
#  - grid x threads and dynamic shared memory: a second compile with ptx=false,
#    whose gpu.func carries known_grid_size/known_block_size and whose host
#    gpu.launch_func names a `dynamic_shared_memory_size %c` constant.
#  - registers, spills (stores+loads), static smem: ptxas -v on each module.
#  - bar.sync per iteration: gpu.barrier ops the block graph's for-loop body
#    runs per iteration (bench/loop_barriers.py on the ptx=false module),
#    with F, the loop's range; a "+n" are barriers nested in cooperative
#    reductions; "-" when the kernel has no for-loop (predefined ops).
#  - DRAM roofline: the bytes of the kernel's memref arguments (each read or
#    written once: the compulsory traffic) and that over the data-sheet
#    bandwidth the cost model uses (A100 2.039 TB/s, H100 3.35 TB/s): no
#    kernel can run faster; a kernel that reads a tile several times moves
#    more.
#  - instruction counts: static (not executed) counts in the entry's PTX body,
#    from its `.visible .entry NAME(` line to the next `}` at column 0.
#    "ld 128b" = global loads 16 bytes wide (ld.global[.nc].v4.b32/f32/u32,
#    also v2.b64), "ld narrow" = every other ld.global (b16, v4.b16, ...).
#  - blocks/SM = min(2048/threads, 65536/(regs rounded up to 8 x threads),
#    smem/SM / (static + dynamic + 1 KiB the driver reserves per block since
#    sm_80), 32); smem/SM is 164 KiB on sm_80 and 228 KiB on sm_90. The letter
#    says which limit binds (t threads, r registers, s smem, b block count).
#    It is the occupancy limit, not residency: a grid smaller than the SM
#    count (132 on H100, 108 on A100) leaves SMs empty.
#  - estimate and roofline: the cost model's two estimates of the kernel
#    (docs/cost.md): "estimate" models the code lib/lower emits (its plan:
#    FMA loops, copies, serial chains, barriers, occupancy, Little's law),
#    with the resource that bounds it; "roofline" is the idealised model the
#    search ranks by. From --mirage-cost on a third compile (lower=false),
#    matched to the kernels in order. Neither is a measurement.
#  - per program (second table): the estimate beside the roofline (the
#    chosen kernels' own bound) and the program bound + one launch (its
#    inputs and outputs once through DRAM, docs/cost.md).
#  - shared loads and SFU results per wait (bench/shared_waits.py on the same cubins): the
#    evidence for the model's element-loop rule (elements 4 at a time).
#  - the SASS reader (../shared/tools/sass/inflight.py, or
#    $MIRAGE_SASS_DIR): per loop that loads global memory, the loads, the
#    serialized waits and the KiB in flight per SM of the machine code
#    ptxas made; left out when the reader is not there.
#  - one row per launch: the compiles use dedup-kernels=false, so a kernel
#    launched twice (gated MLP's gate and up GEMVs) has a row per launch,
#    as the estimates do; the default compile keeps one copy of it.
#  - load bytes/SM (1 in flight per thread) = blocks/SM x threads x width of
#    the kernel's widest global load (ld.global or cp.async; 16 for v4.b32,
#    2 for b16, ...): the bytes an SM has outstanding if every resident thread
#    has one load in flight. Hiding DRAM latency needs roughly bandwidth/SM x
#    latency, on the order of 10-20 KB per SM on A100/H100; far below that,
#    a memory-bound kernel cannot reach peak bandwidth.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${MIRAGE_BUILD_DIR:-$root/build}/bin"
ptxas=/usr/local/cuda/bin/ptxas
targets=() paper_only=0 programs=(rmsnorm gqa qknorm lora gated-mlp ntrans)
while (($#)); do
  case "$1" in
    --only) programs=("${2:?--only needs a program name}"); shift 2 ;;
    --target) targets+=("${2:?--target needs sm_80 or sm_90}"); shift 2 ;;
    --paper-only) paper_only=1; shift ;;
    *) echo "usage: bench/kernels.sh [--target sm_80|sm_90 ...] [--paper-only] [--only rmsnorm|gqa|qknorm|lora|gated-mlp|ntrans]" >&2; exit 2 ;;
  esac
done
((${#targets[@]})) || targets=(sm_80 sm_90)
if [[ ! -x "$ptxas" ]]; then echo "# bench/kernels.sh: no $ptxas, nothing to measure"; exit 0; fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
version=$("$ptxas" --version | grep -o 'release.*' || echo '?')

# Host side of the ptx=false MLIR -> "kernel grid threads dyn_smem" per kernel.
host_awk='
/= arith\.constant -?[0-9]+ : i32/ { c[$1] = $4 }
/gpu\.func @/ && /known_block_size/ {
  match($0, /gpu\.func @("[^"]*"|[^( ]+)/); k = substr($0, RSTART + 10, RLENGTH - 10); gsub(/"/, "", k)
  match($0, /known_block_size = array<i32: [0-9, ]*>/); split(substr($0, RSTART + 30, RLENGTH - 31), b, ", ")
  match($0, /known_grid_size = array<i32: [0-9, ]*>/); split(substr($0, RSTART + 29, RLENGTH - 30), g, ", ")
  grid[k] = g[1] "x" g[2] "x" g[3]; thr[k] = b[1] * b[2] * b[3]
  m = k; sub(/_k[0-9]+$/, "", m); ord[k] = ++count[m]
  # DRAM arguments: the memref<...> types before the workgroup attributions.
  args = $0; sub(/\) (workgroup|kernel).*/, "", args); bytes[k] = 0
  while (match(args, /memref<[0-9x]+(f16|bf16|f32)>/)) {
    ty = substr(args, RSTART + 7, RLENGTH - 8); args = substr(args, RSTART + RLENGTH)
    n = split(ty, d, "x"); e = d[n] == "f32" ? 4 : 2; v = 1
    for (i = 1; i < n; i++) v *= d[i]
    bytes[k] += v * e
  }
}
/gpu\.launch_func/ && /dynamic_shared_memory_size/ {
  match($0, /::@("[^"]*"|[^ ]+)/); k = substr($0, RSTART + 3, RLENGTH - 3); gsub(/"/, "", k)
  match($0, /dynamic_shared_memory_size %[A-Za-z0-9_]+/); v = c[substr($0, RSTART + 27, RLENGTH - 27)] + 0
  if (v > dyn[k]) dyn[k] = v
}
END { for (k in grid) { m = k; sub(/_k[0-9]+$/, "", m); print k, grid[k], thr[k], dyn[k] + 0, bytes[k] + 0, m "#" ord[k] } }'

# ptxas -v -> "kernel regs spill_bytes static_smem" per entry function.
ptxas_awk='
/Compiling entry function/ { f = $0; sub(/.*function \047/, "", f); sub(/\047.*/, "", f); regs[f] = 0; smem[f] = 0 }
/spill stores/ { match($0, /[0-9]+ bytes spill stores/); s = substr($0, RSTART, RLENGTH) + 0
                 match($0, /[0-9]+ bytes spill loads/); spill[f] = s + substr($0, RSTART, RLENGTH) }
/Used [0-9]+ registers/ { match($0, /Used [0-9]+/); regs[f] = substr($0, RSTART + 5, RLENGTH - 5) + 0
                          if (match($0, /[0-9]+ bytes smem/)) smem[f] = substr($0, RSTART, RLENGTH) + 0 }
END { for (f in regs) print f, regs[f], spill[f] + 0, smem[f] }'

# PTX -> "module kernel ld128 ldnarrow cpasync stv4 shfl bar fma widest" per entry.
ptx_awk='
function bytes(op,   n, t, i, w, v) { n = split(op, t, "."); w = 0; v = 1
  for (i = 1; i <= n; i++) { if (t[i] ~ /^v[248]$/) v = substr(t[i], 2) + 0
                             if (t[i] ~ /^[bfsu](8|16|32|64)$/) w = substr(t[i], 2) / 8 }
  return w * v }
/^\.visible \.entry / { k = $3; sub(/\(.*/, "", k); body = 1; l16 = ln = cp = st = sh = ba = fm = wide = 0; next }
body && /^}/ { print mod, k, l16, ln, cp, st, sh, ba, fm, wide; body = 0 }
body { op = $1; if (op ~ /^@/) op = $2
  if (op ~ /^ld\.global/) { w = bytes(op); if (w >= 16) l16++; else ln++; if (w > wide) wide = w }
  else if (op ~ /^cp\.async\.c[ag]/) { cp++; if (match($0, /, *(4|8|16) *[,;]/)) { w = substr($0, RSTART + 1) + 0; if (w > wide) wide = w } }
  else if (op ~ /^st\.global/ && op ~ /\.v4\./) st++
  else if (op ~ /^shfl\.sync/) sh++
  else if (op ~ /^(bar|barrier)\.sync/) ba++
  else if (op ~ /^fma\.rn/) fm++ }'

# --mirage-cost remarks -> "module#n estimate bound roofline" per kernel, n its
# place among the function's kernels (the GPU module's gpu.func order).
cost_awk='
/remark: mirage-cost: \047@/ { match($0, /\047@[^\047]*\047/); mod = substr($0, RSTART + 2, RLENGTH - 3) "_gpu"; n = 0; next }
/remark: mirage-cost: \047ug\./ { n++; est = "?"; bnd = "?"; roof = "?"
  if (match($0, /estimated [0-9.]+ us \([a-z0-9]+-bound\)/)) { split(substr($0, RSTART, RLENGTH), w, " "); est = w[2]; bnd = w[4]; gsub(/[()]|-bound/, "", bnd) }
  if (match($0, /roofline [0-9.]+ us/)) { split(substr($0, RSTART, RLENGTH), w, " "); roof = w[2] }
  else if (match($0, /: [0-9.]+ us \(/)) { split(substr($0, RSTART, RLENGTH), w, " "); roof = w[2] }
  print mod "#" n, est, bnd, roof }'

# Joins the four on the kernel name and prints the rows.
row_awk='
FILENAME ~ /host.txt$/ { grid[$1] = $2; thr[$1] = $3; dyn[$1] = $4; dram[$1] = $5; place[$1] = $6; next }
FILENAME ~ /cost.txt$/ { est[$1] = $2; bnd[$1] = $3; roof[$1] = $4; next }
FILENAME ~ /loops.txt$/ { loopbar[$1] = ($2 == "-" ? "-" : $3 ($4 > 0 ? "+" $4 : "") " (F=" $2 ")"); next }
FILENAME ~ /ptxas.txt$/ { regs[$1] = $2; spill[$1] = $3; smem[$1] = $4; next }
{ k = $2; short = k; sub("^" $1 "_", "", short); t = thr[k]
  if (t == "" || !(k in regs)) { printf "| %s | %s | %s | ? | %s | %s | %s | ? |", bench, $1, short, regs[k], spill[k], smem[k] }
  else {
    r8 = int((regs[k] + 7) / 8) * 8; per = smem[k] + dyn[k] + 1024
    n = int(2048 / t); why = "t"
    if (r8 > 0 && int(65536 / (r8 * t)) < n) { n = int(65536 / (r8 * t)); why = "r" }
    if (int(smsm / per) < n) { n = int(smsm / per); why = "s" }
    if (n > 32) { n = 32; why = "b" }
    printf "| %s | %s | %s | %s x %d | %d | %d | %d+%d | %d (%s) |", bench, $1, short, grid[k], t, regs[k], spill[k], smem[k], dyn[k], n, why }
  p = place[k]
  printf " %d | %d | %d | %d | %d | %d | %s | %d | %s | %.2f MB / %.2f us | %s (%s) | %s |\n", $3, $4, $5, $6, $7, $8, (k in loopbar ? loopbar[k] : "?"), $9, (t == "" ? "?" : n * t * $10), dram[k] / 1e6, dram[k] / bw * 1e6, (p in est ? est[p] : "?"), (p in bnd ? bnd[p] : "?"), (p in roof ? roof[p] : "?") }'

# --mirage-cost program lines -> one row: kernels, estimate, roofline,
# program bound + launch and the estimate's ratio to it.
bound_awk='
/remark: mirage-cost: \047@/ && /program bound/ {
  match($0, /\047@[^\047]*\047/); f = substr($0, RSTART + 2, RLENGTH - 3)
  if (paper == 1 && f !~ /_paper/) next
  match($0, /[0-9]+ kernel\(s\)/); k = substr($0, RSTART, RLENGTH) + 0
  match($0, /estimated [0-9.]+/); est = substr($0, RSTART + 10, RLENGTH - 10) + 0
  match($0, /roofline [0-9.]+/); roof = substr($0, RSTART + 9, RLENGTH - 9) + 0
  match($0, /program bound [0-9.]+/); b = substr($0, RSTART + 14, RLENGTH - 14) + 0
  match($0, /one launch [0-9.]+/); l = substr($0, RSTART + 11, RLENGTH - 11) + 0
  printf "| %s | %s | %d | %.2f | %.2f | %.2f + %.2f | %.2fx |\n", bench, f, k, est, roof, b, l, est / (b + l) }'
sass="${MIRAGE_SASS_DIR:-$root/../shared/tools/sass}"

for target in "${targets[@]}"; do
  case "$target" in
    sm_80) smem_per_sm=$((164 * 1024)); bw=2.039e12 ;;
    sm_90) smem_per_sm=$((228 * 1024)); bw=3.35e12 ;;
    *) echo "# bench/kernels.sh: unknown target $target (sm_80 or sm_90)"; continue ;;
  esac
  echo
  echo "# target $target, ptxas $version, $(date '+%F %T %Z')"
  echo "| benchmark | GPU module | kernel | grid x threads | regs | spill B | smem B (static+dyn) | blocks/SM (limit) | ld 128b | ld narrow | cp.async | st.global.v4 | shfl.sync | bar.sync | bar.sync per iteration | fma.rn | load bytes/SM (1 in flight per thread) | DRAM roofline (arguments once, peak BW) | estimate us (bound) | roofline us |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for name in "${programs[@]}"; do
    src="$root/test/lift/$name-tosa.mlir" dir="$out/$target/$name"
    mkdir -p "$dir"
    if ! "$bin/mirage-opt" --mirage-superopt="cache=false target=$target dedup-kernels=false" "$src" -o "$dir/opt.mlir" 2>"$dir/err" ||
       ! "$bin/mirage-opt" --mirage-superopt="cache=false target=$target ptx=false dedup-kernels=false" "$src" -o "$dir/host.mlir" 2>>"$dir/err" ||
       ! "$bin/mirage-opt" --mirage-superopt="cache=false target=$target lower=false" "$src" -o "$dir/ugraph.mlir" 2>>"$dir/err" ||
       ! "$bin/mirage-opt" --mirage-cost="target=$target" "$dir/ugraph.mlir" -o /dev/null 2>"$dir/cost.err"; then
      echo "| $name | mirage-opt failed: $(head -1 "$dir/err") |"; continue
    fi
    python3 "$root/test/lower/Inputs/extract_ptx.py" "$dir/opt.mlir" "$dir/ptx" >/dev/null
    awk "$host_awk" "$dir/host.mlir" >"$dir/host.txt"
    awk "$cost_awk" "$dir/cost.err" >"$dir/cost.txt"
    python3 "$root/bench/loop_barriers.py" "$dir/host.mlir" >"$dir/loops.txt"
    : >"$dir/ptxas.txt"; : >"$dir/ptx.txt"
    for ptx in "$dir/ptx"/*.ptx; do
      module=$(basename "$ptx" .ptx)
      [[ $paper_only == 1 && $module != *_paper* ]] && continue
      { "$ptxas" -arch="$target" -v "$ptx" -o /dev/null 2>&1 || true; } | awk "$ptxas_awk" >>"$dir/ptxas.txt"
      awk -v mod="$module" "$ptx_awk" "$ptx" >>"$dir/ptx.txt"
    done
    awk -v bench="$name" -v smsm="$smem_per_sm" -v bw="$bw" "$row_awk" "$dir/host.txt" "$dir/cost.txt" "$dir/loops.txt" "$dir/ptxas.txt" "$dir/ptx.txt"
  done
  # Per program: the estimate beside both bounds (docs/cost.md "The
  # program bound"), from the --mirage-cost program lines.
  echo
  echo "| benchmark | function | kernels | estimate us | roofline us (the kernels' own) | program bound us + one launch | estimate / (bound + launch) |"
  echo "|---|---|---|---|---|---|---|"
  for name in "${programs[@]}"; do
    [[ -f "$out/$target/$name/cost.err" ]] || continue
    awk -v bench="$name" -v paper="$paper_only" "$bound_awk" "$out/$target/$name/cost.err"
  done
  # The machine code: what ptxas made of each loop that loads global
  # memory (the SASS reader; evidence, not proof).
  if [[ -f "$sass/inflight.py" ]]; then
    echo
    echo "SASS reader (inflight.py), per loop that loads global memory:"
    echo '```'
    for name in "${programs[@]}"; do
      dir="$out/$target/$name"
      [[ -d "$dir/ptx" ]] || continue
      if [[ $paper_only == 1 ]]; then find "$dir/ptx" -name '*.ptx' ! -name '*_paper*' -delete; fi
      python3 "$sass/inflight.py" "$dir/opt.mlir" "$dir/ptx" "$target" 2>&1 | sed "s/^SUMMARY/SUMMARY $name/"
    done
    echo '```'
    # The element-loop rule's evidence: shared loads issued per wait
    # (cubins inflight.py wrote beside the PTX).
    echo
    echo "Shared loads (LDS) and SFU results (MUFU) per wait, whole kernel (bench/shared_waits.py):"
    echo '```'
    for name in "${programs[@]}"; do
      dir="$out/$target/$name"
      compgen -G "$dir/ptx/*.cubin" >/dev/null || continue
      python3 "$root/bench/shared_waits.py" "$sass" "$dir"/ptx/*.cubin
    done
    echo '```'
  else
    echo "# no SASS reader at $sass (set MIRAGE_SASS_DIR): machine-code figures left out"
  fi
done

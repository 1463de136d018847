//===- mma.c - Block matmuls on tensor cores (ldmatrix + mma.sync) --------===//
//
// A block matmul whose operands are f16 (or bf16) tiles in shared memory,
// with m a multiple of 16, n of 8 and k of 16, runs on sm_80+ as
// m16n8k16 mma tiles: the result (per batch) is cut into warp tiles of
// tm x tn mma tiles (16·tm rows, 8·tn columns), dealt to the block's warps
// round-robin. Per warp tile, a loop over k in steps of 16 loads the A
// fragments (ldmatrix .x4, one per 16 rows) and the B fragments (ldmatrix
// .x4 .trans per 16 columns, .x2 .trans for a last 8) and runs one
// mma.sync per mma tile, the tm·tn f32 accumulators in registers; then
// every lane hands its accumulator elements to the matmul's finish (store
// to the result tile, add into the f32 sum accumulator, or an
// element-wise chain), each once: no partial is rounded to f16.
//
// The fragment mapping is split in two:
//  - ours (shared by the GPU and the CPU form): the address each lane
//    gives ldmatrix (lane_address), how an .x4 .trans load of B splits
//    into n-blocks (b_matrix), where accumulator element i of a lane goes
//    in the result (acc_position), and which warp tile a loop step takes
//    (warp_tile_origin);
//  - the hardware's (the CPU form only, from the PTX ISA): which elements
//    ldmatrix gives each lane, and the m16n8k16 .row.col fragment layouts
//    of A, B and the f32 C/D (hw_* below).
// The CPU form emulates the warp's 32 lanes: it builds each lane's
// fragments from the tile through our addresses and the hardware's
// ldmatrix distribution, runs each mma through the hardware's layouts,
// and scatters each lane's accumulators through acc_position, as the GPU
// does. A wrong address, split or position gives wrong results on the
// CPU too, so `mirage-run --lower` catches it.
//
//===----------------------------------------------------------------------===//
#include "write/write.h"

#include <stdio.h>
#include <string.h>


static const MgTensor *tensor(Emit *e, MgTensorId id) {
  return &e->g->tensors[id];
}

//===--- The plan ---------------------------------------------------------===//

//===--- Our fragment mapping (GPU and CPU) -------------------------------===//

static void op2(Emit *e, const char *op, const char *a, int64_t c, Name out) {
  Name k;
  mg_lower_index(e, c, k);
  mg_lower_index_op(e, op, a, k, out);
}

// The row and column (relative to the fragment's 16 x 16 block) of the
// 16 bytes lane `lane` points ldmatrix at: lanes 0-7 give the rows of
// matrix 0, 8-15 of matrix 1, 16-23 of matrix 2, 24-31 of matrix 3. For
// A (.x4) the matrices are rows 0-7 / 8-15 at columns 0-7, then the same
// at columns 8-15: row lane mod 16, column 8·(lane div 16). For B (.x4
// .trans) the rows are k and the columns n: k 0-7 / 8-15 of columns 0-7,
// then of columns 8-15 (two n-blocks), the same formula; .x2 .trans (one
// n-block) reads only lanes 0-15's addresses, column 0.
static void lane_address(Emit *e, const char *lane, int64_t tiles, Name row,
                         Name col) {
  op2(e, "arith.remui", lane, 16, row);
  if (tiles == 2) {
    mg_lower_index(e, 0, col);
    return;
  }
  Name half;
  op2(e, "arith.divui", lane, 16, half);
  op2(e, "arith.muli", half, 8, col);
}

// The matrix of an .x4 .trans load of B (two n-blocks) that holds
// register `reg` (0, 1: k 0-7, 8-15) of n-block `q` (0, 1): the GPU
// slices rows 2q, 2q+1 of ldmatrix's vector<4x2x..>.
static int64_t b_matrix(int64_t q, int64_t reg) { return 2 * q + reg; }

// Where accumulator element `i` (0-3; vector<2x2xf32> [i/2][i%2]) of lane
// `lane` lies in the 16 x 8 mma tile: row lane/4 + 8·(i/2), column
// 2·(lane mod 4) + i mod 2.
static void acc_position(Emit *e, const char *lane, const char *i, Name row,
                         Name col) {
  Name g, hi, hi8, t, t2, lo;
  op2(e, "arith.divui", lane, 4, g);
  op2(e, "arith.divui", i, 2, hi);
  op2(e, "arith.muli", hi, 8, hi8);
  mg_lower_index_op(e, "arith.addi", g, hi8, row);
  op2(e, "arith.remui", lane, 4, t);
  op2(e, "arith.muli", t, 2, t2);
  op2(e, "arith.remui", i, 2, lo);
  mg_lower_index_op(e, "arith.addi", t2, lo, col);
}

// A warp tile's place in the result (of rank `rank`): its batch indices
// (the row and column slots stay empty: operand_index overwrites them
// after mg_lower_broadcast copies them), its first row m0 and column n0.
typedef struct WarpTile {
  Index idx;
  Name m0, n0;
  uint32_t rank;
} WarpTile;

// A (row, column) pair of index names.
typedef struct RowCol {
  const char *row, *col;
} RowCol;

// Warp tile `wt` (0 .. batch·mt·nt) of result `out`. Batches outermost,
// then rows of warp tiles, then columns.
static void warp_tile_origin(Emit *e, const MgMmaPlan *p, const MgTensor *out,
                             const char *wt, WarpTile *w) {
  memset(w, 0, sizeof *w);
  w->rank = out->rank;
  Name bl, r, tmi, tni;
  op2(e, "arith.divui", wt, p->mt * p->nt, bl);
  op2(e, "arith.remui", wt, p->mt * p->nt, r);
  op2(e, "arith.divui", r, p->nt, tmi);
  op2(e, "arith.remui", r, p->nt, tni);
  op2(e, "arith.muli", tmi, MMA_M * p->tm, w->m0);
  op2(e, "arith.muli", tni, MMA_N * p->tn, w->n0);
  mg_lower_delinearize(e, out, out->rank - 2, bl, w->idx);
}

// x + c·i + y (i, x, y index names, y may be empty; c a constant).
static void offset3(Emit *e, const char *x, const char *i, int64_t c,
                    const char *y, Name out) {
  Name s, t;
  op2(e, "arith.muli", i, c, s);
  if (!y[0]) {
    mg_lower_index_op(e, "arith.addi", x, s, out);
    return;
  }
  mg_lower_index_op(e, "arith.addi", x, s, t);
  mg_lower_index_op(e, "arith.addi", t, y, out);
}

// The result index `at` of position `rc` of mma tile (mi, nj) of warp
// tile `w`; mi and nj constants.
static void tile_element(Emit *e, const WarpTile *w, int64_t mi, int64_t nj,
                         RowCol rc, Index at) {
  Name cm, cn;
  mg_lower_index(e, mi, cm);
  mg_lower_index(e, nj, cn);
  offset3(e, w->m0, cm, MMA_M, rc.row, at[w->rank - 2]);
  offset3(e, w->n0, cn, MMA_N, rc.col, at[w->rank - 1]);
}

// Operand `id`'s index at warp tile `w`'s batch and `rc`.
static void operand_index(Emit *e, MgTensorId id, WarpTile *w, RowCol rc,
                          Index at) {
  const MgTensor *t = tensor(e, id);
  mg_lower_broadcast(e, t, w->idx, w->rank, at);
  snprintf(at[t->rank - 2], NAME_LEN, "%s", rc.row);
  snprintf(at[t->rank - 1], NAME_LEN, "%s", rc.col);
}

static void operand_at(Emit *e, MgTensorId id, WarpTile *w, RowCol rc,
                       char *list, size_t size) {
  Index at;
  operand_index(e, id, w, rc, at);
  mg_lower_index_list(at, tensor(e, id)->rank, list, size);
}

// The ldmatrix calls of B per k step: an .x4 .trans per two n-blocks, an
// .x2 .trans for a last single one. Call c covers n-blocks first..first+
// count-1.
static int64_t b_calls(const MgMmaPlan *p) { return (p->tn + 1) / 2; }
static int64_t b_call_first(int64_t c) { return 2 * c; }
static int64_t b_call_count(const MgMmaPlan *p, int64_t c) {
  return b_call_first(c) + 1 < p->tn ? 2 : 1;
}

static void open_for(Emit *e, const char *lo, const char *hi, int64_t step,
                     Name iv) {
  Name s;
  mg_lower_index(e, step, s);
  mg_lower_fresh(e, iv);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", iv, lo, hi, s);
  e->indent++;
}

static void open_range(Emit *e, int64_t lo, int64_t hi, int64_t step,
                       Name iv) {
  Name l, h;
  mg_lower_index(e, lo, l);
  mg_lower_index(e, hi, h);
  open_for(e, l, h, step, iv);
}

static void close_for(Emit *e) {
  e->indent--;
  mg_lower_line(e, "}");
}

//===--- GPU: ldmatrix and mma.sync ---------------------------------------===//

// One mma.sync: d = a·b + c (vector<2x2xf32>). f16 through nvgpu.mma.sync;
// bf16 through nvvm.mma.sync (nvgpu's conversion deduces no PTX type for
// bf16), its registers as i32 pairs.
static void gpu_mma_sync(Emit *e, MgDType dt, const char *a, const char *b,
                         const char *c, Name d) {
  const char *el = mg_lower_elt(dt);
  if (dt == MG_DTYPE_F16) {
    mg_lower_fresh(e, d);
    mg_lower_line(e, "%s = nvgpu.mma.sync (%s, %s, %s) {mmaShape = [16, 8, "
                     "16]} : (vector<4x2x%s>, vector<2x2x%s>, "
                     "vector<2x2xf32>) -> vector<2x2xf32>", d, a, b, c, el,
                  el);
    return;
  }
  Name ai, bi, ar[4], br[2], cr[4], s, dr[4];
  mg_lower_fresh(e, ai);
  mg_lower_line(e, "%s = vector.bitcast %s : vector<4x2x%s> to "
                   "vector<4x1xi32>", ai, a, el);
  mg_lower_fresh(e, bi);
  mg_lower_line(e, "%s = vector.bitcast %s : vector<2x2x%s> to "
                   "vector<2x1xi32>", bi, b, el);
  for (int r = 0; r < 4; r++) {
    mg_lower_fresh(e, ar[r]);
    mg_lower_line(e, "%s = vector.extract %s[%d, 0] : i32 from "
                     "vector<4x1xi32>", ar[r], ai, r);
    mg_lower_fresh(e, cr[r]);
    mg_lower_line(e, "%s = vector.extract %s[%d, %d] : f32 from "
                     "vector<2x2xf32>", cr[r], c, r / 2, r % 2);
  }
  for (int r = 0; r < 2; r++) {
    mg_lower_fresh(e, br[r]);
    mg_lower_line(e, "%s = vector.extract %s[%d, 0] : i32 from "
                     "vector<2x1xi32>", br[r], bi, r);
  }
  mg_lower_fresh(e, s);
  mg_lower_line(e, "%s = nvvm.mma.sync A[%s, %s, %s, %s] B[%s, %s] "
                   "C[%s, %s, %s, %s] {layoutA = #nvvm.mma_layout<row>, "
                   "layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = "
                   "#nvvm.mma_type<bf16>, multiplicandBPtxType = "
                   "#nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, "
                   "k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, "
                   "f32, f32)>", s, ar[0], ar[1], ar[2], ar[3], br[0], br[1],
                cr[0], cr[1], cr[2], cr[3]);
  for (int r = 0; r < 4; r++) { // struct element i is C/D element i
    mg_lower_fresh(e, dr[r]);
    mg_lower_line(e, "%s = llvm.extractvalue %s[%d] : !llvm.struct<(f32, "
                     "f32, f32, f32)>", dr[r], s, r);
  }
  mg_lower_fresh(e, d);
  mg_lower_line(e, "%s = vector.from_elements %s, %s, %s, %s : "
                   "vector<2x2xf32>", d, dr[0], dr[1], dr[2], dr[3]);
}

static void gpu_matmul(Emit *e, const MgOp *op, const MgMmaPlan *p,
                       const void *dest, FinishFn finish) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  MgTensorId ida = op->inputs[0], idb = op->inputs[1];
  const char *el = mg_lower_elt(p->dtype);
  int64_t tiles = p->tm * p->tn;
  Name lane, warp;
  op2(e, "arith.remui", e->tid, WARP, lane);
  op2(e, "arith.divui", e->tid, WARP, warp);
  // The lane's ldmatrix addresses: .x4 (A, and B's pairs of n-blocks)
  // and .x2 (B's last single n-block).
  Name row4, col4, row2, col2;
  lane_address(e, lane, 4, row4, col4);
  lane_address(e, lane, 2, row2, col2);
  Name nwt, wt;
  mg_lower_index(e, p->batch * p->mt * p->nt, nwt);
  open_for(e, warp, nwt, p->warps, wt); // warp-uniform: mma.sync converges
  WarpTile w;
  warp_tile_origin(e, p, out, wt, &w);
  Name zero;
  mg_lower_fresh(e, zero);
  mg_lower_line(e, "%s = arith.constant dense<0.000000e+00> : "
                   "vector<2x2xf32>", zero);
  // scf.for over k with the warp tile's accumulators as iter_args.
  Name res, k0, lo, hi, step, acc[8];
  mg_lower_index(e, 0, lo);
  mg_lower_index(e, p->k, hi);
  mg_lower_index(e, MMA_K, step);
  mg_lower_fresh(e, res);
  mg_lower_fresh(e, k0);
  MgText args = {0}, types = {0};
  for (int64_t t = 0; t < tiles; t++) {
    mg_lower_fresh(e, acc[t]);
    mg_text_printf(&args, "%s%s = %s", t ? ", " : "", acc[t], zero);
    mg_text_printf(&types, "%svector<2x2xf32>", t ? ", " : "");
  }
  char count[24] = "";
  if (tiles > 1)
    snprintf(count, sizeof count, ":%d", (int)tiles);
  mg_lower_line(e, "%s%s = scf.for %s = %s to %s step %s iter_args(%s) -> "
                   "(%s) {", res, count, k0, lo, hi, step,
                args.data ? args.data : "", types.data ? types.data : "");
  mg_text_free(&args);
  e->indent++;
  char list[MG_MAX_DIMS * (NAME_LEN + 2)];
  Name fa[2], fb[4];
  for (int64_t mi = 0; mi < p->tm; mi++) {
    Name row, col, cm;
    mg_lower_index(e, mi, cm);
    offset3(e, w.m0, cm, MMA_M, row4, row);
    mg_lower_index_op(e, "arith.addi", k0, col4, col);
    operand_at(e, ida, &w, (RowCol){row, col}, list, sizeof list);
    mg_lower_fresh(e, fa[mi]);
    mg_lower_line(e, "%s = nvgpu.ldmatrix %s[%s] {numTiles = 4 : i32, "
                     "transpose = false} : %s -> vector<4x2x%s>", fa[mi],
                  e->val[ida], list, e->type[ida], el);
  }
  for (int64_t c = 0; c < b_calls(p); c++) {
    int64_t first = b_call_first(c), cnt = b_call_count(p, c);
    Name row, col, cn;
    mg_lower_index(e, first, cn);
    mg_lower_index_op(e, "arith.addi", k0, cnt == 2 ? row4 : row2, row);
    offset3(e, w.n0, cn, MMA_N, cnt == 2 ? col4 : col2, col);
    operand_at(e, idb, &w, (RowCol){row, col}, list, sizeof list);
    Name ld;
    mg_lower_fresh(e, ld);
    mg_lower_line(e, "%s = nvgpu.ldmatrix %s[%s] {numTiles = %lld : i32, "
                     "transpose = true} : %s -> vector<%lldx2x%s>", ld,
                  e->val[idb], list, (long long)(2 * cnt), e->type[idb],
                  (long long)(2 * cnt), el);
    for (int64_t q = 0; q < cnt; q++) {
      if (cnt == 1) {
        snprintf(fb[first], NAME_LEN, "%s", ld);
        continue;
      }
      mg_lower_fresh(e, fb[first + q]);
      mg_lower_line(e, "%s = vector.extract_strided_slice %s {offsets = "
                       "[%lld, 0], sizes = [2, 2], strides = [1, 1]} : "
                       "vector<4x2x%s> to vector<2x2x%s>", fb[first + q], ld,
                    (long long)b_matrix(q, 0), el, el);
    }
  }
  Name next[8];
  for (int64_t mi = 0; mi < p->tm; mi++)
    for (int64_t nj = 0; nj < p->tn; nj++)
      gpu_mma_sync(e, p->dtype, fa[mi], fb[nj], acc[mi * p->tn + nj],
                   next[mi * p->tn + nj]);
  MgText yield = {0};
  for (int64_t t = 0; t < tiles; t++)
    mg_text_printf(&yield, "%s%s", t ? ", " : "", next[t]);
  mg_lower_line(e, "scf.yield %s : %s", yield.data, types.data);
  mg_text_free(&yield);
  mg_text_free(&types);
  close_for(e);
  // Each lane's accumulator elements, where acc_position puts them.
  for (int64_t mi = 0; mi < p->tm; mi++)
    for (int64_t nj = 0; nj < p->tn; nj++) {
      Name d;
      if (tiles > 1)
        snprintf(d, NAME_LEN, "%.15s#%d", res, (int)(mi * p->tn + nj));
      else
        snprintf(d, NAME_LEN, "%s", res);
      for (int i = 0; i < 4; i++) {
        Name ci, r, c, v;
        mg_lower_index(e, i, ci);
        acc_position(e, lane, ci, r, c);
        Index at;
        memcpy(at, w.idx, sizeof at);
        tile_element(e, &w, mi, nj, (RowCol){r, c}, at);
        mg_lower_fresh(e, v);
        mg_lower_line(e, "%s = vector.extract %s[%d, %d] : f32 from "
                         "vector<2x2xf32>", v, d, i / 2, i % 2);
        finish(e, dest, at, v);
      }
    }
  close_for(e);
}

//===--- The hardware's fragments (CPU form only; PTX ISA) ----------------===//
//
// groupID g = lane / 4, threadID_in_group t = lane mod 4.
//  - ldmatrix .m8n8 .b16: row r of matrix j is read at the address lane
//    8j + r gives; lane l receives two 16-bit elements of each matrix:
//    row l/4, elements 2(l mod 4) and +1; with .trans the matrix is
//    transposed first: rows 2(l mod 4) and +1 of element (column) l/4.
//    Register j of the result holds matrix j.
//  - mma.m16n8k16 .row.col, .f16/.bf16 multiplicands: register j, half h
//    of lane l holds A[g + 8(j mod 2)][2t + h + 8(j/2)] and
//    B[2t + h + 8j][g] (j < 2); f32 C/D element i is
//    D[g + 8(i/2)][2t + i mod 2].
// Written apart from our mapping above on purpose: the emulation must not
// inherit its mistakes.

// Element `h` of lane `l`'s register `j` of a fragment (index names).
typedef struct Frag {
  const char *lane, *reg, *half;
} Frag;

// The lane whose address gives matrix `f.reg`'s row read for `f`, and the
// element's offset along that row.
static void hw_ldmatrix(Emit *e, bool trans, Frag f, Name src, Name off) {
  Name j8, g, t, t2;
  op2(e, "arith.muli", f.reg, 8, j8);
  op2(e, "arith.divui", f.lane, 4, g);
  op2(e, "arith.remui", f.lane, 4, t);
  op2(e, "arith.muli", t, 2, t2);
  if (!trans) {
    mg_lower_index_op(e, "arith.addi", j8, g, src);
    mg_lower_index_op(e, "arith.addi", t2, f.half, off);
    return;
  }
  Name s1;
  mg_lower_index_op(e, "arith.addi", j8, t2, s1);
  mg_lower_index_op(e, "arith.addi", s1, f.half, src);
  snprintf(off, NAME_LEN, "%s", g);
}

// The lane, register and half that hold A[r][k] (hw A layout).
static void hw_a_holder(Emit *e, const char *r, const char *k, Name lane,
                        Name reg, Name half) {
  Name r8, k8, kh, rh, kq, kq2;
  op2(e, "arith.remui", r, 8, r8);
  op2(e, "arith.remui", k, 8, k8);
  op2(e, "arith.divui", k8, 2, kh);
  offset3(e, kh, r8, 4, "", lane);
  op2(e, "arith.divui", r, 8, rh);
  op2(e, "arith.divui", k, 8, kq);
  op2(e, "arith.muli", kq, 2, kq2);
  mg_lower_index_op(e, "arith.addi", rh, kq2, reg);
  op2(e, "arith.remui", k, 2, half);
}

// The lane, register and half that hold B[k][c] (hw B layout).
static void hw_b_holder(Emit *e, const char *k, const char *c, Name lane,
                        Name reg, Name half) {
  Name k8, kh, c4;
  op2(e, "arith.remui", k, 8, k8);
  op2(e, "arith.divui", k8, 2, kh);
  op2(e, "arith.muli", c, 4, c4);
  mg_lower_index_op(e, "arith.addi", c4, kh, lane);
  op2(e, "arith.divui", k, 8, reg);
  op2(e, "arith.remui", k, 2, half);
}

// The D element (row, column) lane l's accumulator element i is.
static void hw_d_element(Emit *e, const char *l, const char *i, Name row,
                         Name col) {
  Name g, t, ih, il, t2;
  op2(e, "arith.divui", l, 4, g);
  op2(e, "arith.divui", i, 2, ih);
  offset3(e, g, ih, 8, "", row);
  op2(e, "arith.remui", l, 4, t);
  op2(e, "arith.muli", t, 2, t2);
  op2(e, "arith.remui", i, 2, il);
  mg_lower_index_op(e, "arith.addi", t2, il, col);
}

//===--- CPU: the warp's lanes emulated -----------------------------------===//

typedef struct Buf { // an f32 buffer of the emulation
  Name val;
  char type[64];
} Buf;

static void buf_alloc(Emit *e, Buf *b, const int64_t *dims, int n) {
  size_t k = (size_t)snprintf(b->type, sizeof b->type, "memref<");
  for (int d = 0; d < n; d++)
    k += (size_t)snprintf(b->type + k, sizeof b->type - k, "%lldx",
                          (long long)dims[d]);
  snprintf(b->type + k, sizeof b->type - k, "f32>");
  mg_lower_fresh(e, b->val);
  mg_lower_line(e, "%s = memref.alloc() : %s", b->val, b->type);
}

// b[i[0], i[1], i[2], i[3]] = v.
static void buf_store(Emit *e, const Buf *b, const char *v,
                      const char *const i[4]) {
  mg_lower_line(e, "memref.store %s, %s[%s, %s, %s, %s] : %s", v, b->val,
                i[0], i[1], i[2], i[3], b->type);
}

static void buf_load(Emit *e, const Buf *b, const char *const i[4],
                     Name out) {
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.load %s[%s, %s, %s, %s] : %s", out, b->val,
                i[0], i[1], i[2], i[3], b->type);
}

// One ldmatrix: `tiles` 8x8 matrices (transposed when `trans`) of operand
// `id`, from the block at `origin`.
typedef struct LdMatrix {
  MgTensorId id;
  int64_t tiles;
  bool trans;
  RowCol origin;
} LdMatrix;

// `ld` emulated into dst[slot, lane, matrix, half]: lane l, matrix j,
// half h takes the element the hardware gives it (hw_ldmatrix) from the
// address our lane gives (lane_address) plus the block's origin.
static void cpu_ldmatrix(Emit *e, WarpTile *w, LdMatrix ld, const Buf *dst,
                         const char *slot) {
  Name l, j, h, src, off, ar, ac, row, c1, col;
  open_range(e, 0, WARP, 1, l);
  open_range(e, 0, ld.tiles, 1, j);
  open_range(e, 0, 2, 1, h);
  hw_ldmatrix(e, ld.trans, (Frag){l, j, h}, src, off);
  lane_address(e, src, ld.tiles, ar, ac);
  mg_lower_index_op(e, "arith.addi", ld.origin.row, ar, row);
  mg_lower_index_op(e, "arith.addi", ld.origin.col, ac, c1);
  mg_lower_index_op(e, "arith.addi", c1, off, col);
  Index at;
  operand_index(e, ld.id, w, (RowCol){row, col}, at);
  Name v;
  mg_lower_load_at(e, ld.id, at, v);
  buf_store(e, dst, v, (const char *[]){slot, l, j, h});
  close_for(e);
  close_for(e);
  close_for(e);
}

static void cpu_matmul(Emit *e, const MgOp *op, const MgMmaPlan *p,
                       const void *dest, FinishFn finish) {
  const MgTensor *out = tensor(e, op->outputs[0]);
  MgTensorId ida = op->inputs[0], idb = op->inputs[1];
  uint32_t rank = out->rank;
  // Per warp tile: the lanes' A and B fragments (as f32: f16 and bf16
  // extend exactly), one ldmatrix result, the accumulators.
  Buf fa, fb, ld, acc;
  buf_alloc(e, &fa, (const int64_t[]){p->tm, WARP, 4, 2}, 4);
  buf_alloc(e, &fb, (const int64_t[]){p->tn, WARP, 2, 2}, 4);
  buf_alloc(e, &ld, (const int64_t[]){1, WARP, 4, 2}, 4);
  buf_alloc(e, &acc, (const int64_t[]){p->tm, p->tn, WARP, 4}, 4);
  Name w, nwt, wt, c0;
  mg_lower_index(e, 0, c0);
  open_range(e, 0, p->warps, 1, w);
  mg_lower_index(e, p->batch * p->mt * p->nt, nwt);
  open_for(e, w, nwt, p->warps, wt); // warp w's tiles, as on the GPU
  WarpTile tile;
  warp_tile_origin(e, p, out, wt, &tile);
  Name mi, nj, l, i, zero;
  mg_lower_fresh(e, zero);
  mg_lower_line(e, "%s = arith.constant 0.000000e+00 : f32", zero);
  open_range(e, 0, p->tm, 1, mi);
  open_range(e, 0, p->tn, 1, nj);
  open_range(e, 0, WARP, 1, l);
  open_range(e, 0, 4, 1, i);
  buf_store(e, &acc, zero, (const char *[]){mi, nj, l, i});
  for (int d = 0; d < 4; d++)
    close_for(e);
  Name k0, hi;
  mg_lower_index(e, p->k, hi);
  open_for(e, c0, hi, MMA_K, k0);
  // A: one .x4 per 16 rows.
  open_range(e, 0, p->tm, 1, mi);
  Name row0;
  offset3(e, tile.m0, mi, MMA_M, "", row0);
  cpu_ldmatrix(e, &tile, (LdMatrix){ida, 4, false, {row0, k0}}, &fa, mi);
  close_for(e);
  // B: the GPU's calls, each split into n-blocks by b_matrix.
  for (int64_t c = 0; c < b_calls(p); c++) {
    int64_t first = b_call_first(c), cnt = b_call_count(p, c);
    Name cf, col0;
    mg_lower_index(e, first, cf);
    offset3(e, tile.n0, cf, MMA_N, "", col0);
    cpu_ldmatrix(e, &tile, (LdMatrix){idb, 2 * cnt, true, {k0, col0}}, &ld,
                 c0);
    for (int64_t q = 0; q < cnt; q++)
      for (int64_t reg = 0; reg < 2; reg++) {
        Name blk, rg, mat, h, v;
        mg_lower_index(e, first + q, blk);
        mg_lower_index(e, reg, rg);
        mg_lower_index(e, b_matrix(q, reg), mat);
        open_range(e, 0, WARP, 1, l);
        open_range(e, 0, 2, 1, h);
        buf_load(e, &ld, (const char *[]){c0, l, mat, h}, v);
        buf_store(e, &fb, v, (const char *[]){blk, l, rg, h});
        close_for(e);
        close_for(e);
      }
  }
  // mma.sync per mma tile: each lane's D elements from the fragments the
  // hardware's layouts say hold A's row and B's column.
  open_range(e, 0, p->tm, 1, mi);
  open_range(e, 0, p->tn, 1, nj);
  open_range(e, 0, WARP, 1, l);
  open_range(e, 0, 4, 1, i);
  Name r, c, kk, s, sum, la, ra, ha, lb, rb, hb, x, y, xy, s1;
  hw_d_element(e, l, i, r, c);
  Name k16, one;
  mg_lower_index(e, MMA_K, k16);
  mg_lower_index(e, 1, one);
  mg_lower_fresh(e, sum);
  mg_lower_fresh(e, kk);
  mg_lower_fresh(e, s);
  mg_lower_line(e, "%s = scf.for %s = %s to %s step %s iter_args(%s = %s) -> "
                   "(f32) {", sum, kk, c0, k16, one, s, zero);
  e->indent++;
  hw_a_holder(e, r, kk, la, ra, ha);
  hw_b_holder(e, kk, c, lb, rb, hb);
  buf_load(e, &fa, (const char *[]){mi, la, ra, ha}, x);
  buf_load(e, &fb, (const char *[]){nj, lb, rb, hb}, y);
  mg_lower_binary(e, "arith.mulf", x, y, xy);
  mg_lower_binary(e, "arith.addf", s, xy, s1);
  mg_lower_line(e, "scf.yield %s : f32", s1);
  e->indent--;
  mg_lower_line(e, "}");
  Name old, nw;
  buf_load(e, &acc, (const char *[]){mi, nj, l, i}, old);
  mg_lower_binary(e, "arith.addf", old, sum, nw);
  buf_store(e, &acc, nw, (const char *[]){mi, nj, l, i});
  for (int d = 0; d < 4; d++)
    close_for(e);
  close_for(e); // k
  // Each lane's accumulator elements, where acc_position puts them.
  open_range(e, 0, p->tm, 1, mi);
  open_range(e, 0, p->tn, 1, nj);
  open_range(e, 0, WARP, 1, l);
  open_range(e, 0, 4, 1, i);
  Name pr, pc, v;
  acc_position(e, l, i, pr, pc);
  Index at;
  memcpy(at, tile.idx, sizeof at);
  offset3(e, tile.m0, mi, MMA_M, pr, at[rank - 2]);
  offset3(e, tile.n0, nj, MMA_N, pc, at[rank - 1]);
  buf_load(e, &acc, (const char *[]){mi, nj, l, i}, v);
  finish(e, dest, at, v);
  for (int d = 0; d < 4; d++)
    close_for(e);
  close_for(e); // warp tiles
  close_for(e); // warps
  const Buf *bufs[4] = {&fa, &fb, &ld, &acc};
  for (int k = 0; k < 4; k++)
    mg_lower_line(e, "memref.dealloc %s : %s", bufs[k]->val, bufs[k]->type);
}

//===--- Entry ------------------------------------------------------------===//

bool mg_lower_matmul_mma(Emit *e, const MgOp *op, const void *dest,
                         FinishFn finish) {
  MgMmaPlan p;
  if (!mg_lower_mma_plan(e->g, op, mg_lower_emits_mma(e), &p))
    return false;
  if (e->mode == MG_LOWER_CPU)
    cpu_matmul(e, op, &p, dest, finish);
  else
    gpu_matmul(e, op, &p, dest, finish);
  return true;
}

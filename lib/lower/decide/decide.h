//===- decide.h - The lowering's decisions: tiles, stages, schedule -------===//
//
// What the writers and the plan (plan.c) must agree on, decided once from
// the graph alone: tile shapes and bytes (tiles.c), the per-tensor tables
// (tables.c), vector widths of copies (widths.c), the for-loop pipeline
// (tiles.c), when each op runs and what stays in registers (schedule.c),
// cooperative reductions (reductions.c), tensor cores (mma_plan.c), online
// state (aux.c), launches (launch.c) and the GEMV's shape (gemv_plan.c,
// fused_plan.c). Decisions may write type strings but never MLIR ops; they
// call only text/ (docs/lower.md, "Layers").
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_LOWER_DECIDE_H
#define MIRAGE_LIB_LOWER_DECIDE_H

#include "text/text.h"

/// Bytes one vector access of a tile copy moves (ld.global.v4 / st.v4).
#define MG_LOWER_VECTOR_BYTES 16

//===--- Tiles (tiles.c) and the per-tensor tables (tables.c) -------------===//

/// A block-graph tensor kept in shared memory (not a kernel tensor).
bool mg_lower_is_tile(const MgGraph *b, MgTensorId t);
/// The element type a tensor is kept in: accumulators in f32.
MgDType mg_lower_kept_dtype(const MgGraph *g, MgTensorId t);
/// Bytes of a tile rounded up to the shared-memory alignment.
int64_t mg_lower_tile_bytes_of(const MgGraph *b, MgTensorId t);
/// True when `t` is an input stored in another layout (a transposed view).
bool mg_lower_has_layout(const MgGraph *g, MgTensorId t);
/// The identity memref type of `t`'s stored shape (its layout undone).
void mg_lower_stored_type(const MgGraph *g, MgTensorId t, char out[TYPE_LEN]);
/// Elements tile `t`'s rows are padded by in shared memory: 8 (16 bytes)
/// for an operand of a matmul on tensor cores whose rows would put
/// ldmatrix's 8 rows on the same banks, when the graph's padded tiles stay
/// static (tiles.c); else 0.
int64_t mg_lower_row_pad(const MgGraph *b, MgTensorId t);
/// Tile `t`'s buffer shape: its dims, the last one padded.
void mg_lower_tile_shape(const MgGraph *b, MgTensorId t, MgTensor *out);
/// The memref type of tile `t` (every stage when staged), in `space`.
void mg_lower_tile_type(const MgGraph *b, MgTensorId t, const char *space,
                        char out[TYPE_LEN]);
/// An iterator the for-loop reloads every iteration (it has an fmap).
bool mg_lower_is_loop_tile_load(const MgOp *op);
/// Per-tensor name, type and dtype tables for graph `g` (false: no memory).
bool mg_lower_alloc_tables(Emit *e, const MgGraph *g);
void mg_lower_free_tables(Emit *e);

//===--- Copies (widths.c) and the pipeline (stages.c) --------------------===//

/// Elements per 16-byte vector when the copy between `tile` and `dram` can
/// move whole vectors (same element type; the innermost dims of both are
/// multiples of the vector, so every tile row starts 16-byte aligned in
/// both), else 1.
int64_t mg_lower_vector_width(const MgGraph *b, MgTensorId tile,
                              MgTensorId dram);
/// Strides (elements, per logical dim) and offset of the view through
/// which block graph `b` (one of p's graphs) reads input `t` with a layout:
/// the transpose of its stored array, or the caller's folded view. False
/// when the caller's view cannot be found.
bool mg_lower_view_strides(const MgProgram *p, const MgGraph *b, MgTensorId t,
                           int64_t *stride, int64_t *offset);
/// For an iterator copying input `dram` with a layout into `tile` where
/// mg_lower_vector_width is 1: elements per 16-byte vector read along the
/// dim contiguous in memory (stride 1: `*dim`) when the tile's and the
/// tensor's extents along it are multiples of the vector and every vector
/// starts 16-byte aligned (the other strides and the view's offset
/// multiples of it), else 1 (element by element in stored order). `*whole`:
/// the tile's dims after `*dim` are all 1, so a vector's elements are
/// contiguous in the tile too (one vector store). Either pointer may be
/// NULL; both are set only when the result is above 1.
int64_t mg_lower_stored_vector_width(const MgProgram *p, const MgGraph *b,
                                     MgTensorId tile, MgTensorId dram,
                                     uint32_t *dim, bool *whole);
/// Dims of the copy between `tile` and `dram` once their common trailing
/// unit dims are dropped (vector copies run on such collapsed views).
uint32_t mg_lower_copy_rank(const MgGraph *b, MgTensorId tile,
                            MgTensorId dram);
/// Elements per thread and access of view op `op`'s copy kernel: one
/// 16-byte vector where every vector is contiguous and 16-byte aligned in
/// both the operands and the result, else 1.
int64_t mg_lower_view_vector_width(const MgGraph *g, const MgOp *op);
/// Stages of the block graph's for-loop pipeline (tiles.c; write/block.c runs it), 0 when it
/// is none: F > 1, every reloaded tile moves as 16-byte vectors, at least
/// two stages of them stay static (tiles.c says how many).
int64_t mg_lower_stages(const MgGraph *b);
/// mg_lower_stages(b) >= 2.
bool mg_lower_pipelined(const MgGraph *b);
/// For a block graph whose for-loop runs over a symbol: into bits[t], the
/// dims of tensor t that hold an iteration's rows of it (from the
/// iterators' fmap dims, through element-wise ops and a matmul's kept
/// dims; a reduction over one clears it). The search admits only loops
/// whose rows reach element-wise ops and reductions (lib/search/symbolic.c).
void mg_lower_loop_dims(const MgGraph *b, uint8_t *bits);
/// Iterator `op` moves by cp.async: staged, or (outside a pipeline) whole
/// 16-byte vectors from a dense buffer, every copy of a batch in flight at
/// once (write/block.c).
bool mg_lower_is_async_load(const MgGraph *b, const MgOp *op);
/// Tile `t` is staged (memref<Sx...>, S = mg_lower_stages).
bool mg_lower_is_staged(const MgGraph *b, MgTensorId t);

//===--- The block graph's schedule (schedule.c, reductions.c) ------------===//

/// Element-wise ops fused into one loop at most, and a group at most: a
/// chain and the accumulators it feeds.
#define CHAIN_MAX 32
#define GROUP_MAX (2 * CHAIN_MAX)
/// Receives one group of ops (mg_lower_for_each_group).
typedef void (*GroupFn)(void *ctx, const MgOp *const *ops, uint32_t n);
/// Calls `fn` on the ops of phase `want` in order, grouped: each chain of
/// fusable ops (n >= 1) with the sum accumulators it alone feeds, a matmul
/// or sum with its accumulator (n = 2), or one other op (n = 1). Emission
/// and the tile plan both walk this, so they agree on what stays in
/// registers. With `skip_loads`, the loop's tile loads are left out (the
/// pipeline issues them, or mg_lower_block_body where they are read).
void mg_lower_for_each_group(const MgGraph *b, const uint8_t *phase,
                             uint8_t want, bool skip_loads, GroupFn fn,
                             void *ctx);
/// Whether chain member `c` must be stored: an op outside the chain (or
/// the graph's outputs) reads its result.
bool mg_lower_chain_keeps(const MgGraph *b, const MgOp *const *ops,
                          uint32_t n, uint32_t c);
/// A group of a reduction (matmul or sum) and the accumulator it feeds.
bool mg_lower_is_reduction_accum(const MgGraph *b, const MgOp *const *ops,
                                 uint32_t n);
/// Whether group `ops` reads tensor `t` (every group does when ops is
/// NULL: the loads no group read, issued at the end).
bool mg_lower_group_reads(const MgOp *const *ops, uint32_t n, MgTensorId t);
/// When each op of block graph `b` runs (MgLowerPhase, num_ops entries):
/// before the loop the iterators without an fmap and every non-accumulator
/// op that reads only what runs before it (its value is the same in every
/// iteration, so it is computed once); the loop the other ops of
/// mg_graph_ops_in_loop; after it the rest. False: no memory.
bool mg_lower_op_phases(const MgGraph *b, uint8_t *phase);
/// reg[t] (num_tensors entries): tensor t is made by a fused element-wise
/// chain and read only inside it, so it needs no tile. False: no memory.
bool mg_lower_register_values(const MgGraph *b, bool *reg);
/// Batches of cp.async tile copies one iteration of a loop that is not
/// pipelined waits for (batches.c).
uint32_t mg_lower_async_batches(const MgGraph *b);
/// Threads per block that allow cooperative reductions (whole warps), else 0.
int64_t mg_lower_coop_threads(const MgGraph *b);
/// Warps per result element op `op` reduces with (ops.c: > 1 uses the
/// shared scratch), 0 when it is not reduced cooperatively.
int64_t mg_lower_reduction_warps(Emit *e, const MgOp *op);
/// Warps per result element for a reduction of `n` terms over `numel`
/// elements; 0: sequential per element.
int64_t mg_lower_coop_warps(Emit *e, int64_t numel, int64_t n);
/// The element dim consecutive threads step along: the last one before
/// `dim` of extent > 1 (-1: none).
int mg_lower_stagger_dim(const MgTensor *t, uint32_t dim);
/// Index ops per term by which a sequential reduction of `in` along `dim`
/// staggers each row's first term (ops.c reduce: rows of contiguous terms
/// summed by consecutive threads would share a shared-memory bank): 1 (an
/// xor), 4 (add, subtract, compare, select), 0 (not staggered).
int mg_lower_stagger_ops(const MgTensor *in, uint32_t dim);

//===--- Tensor cores (mma_plan.c) and online state (aux.c) --------------===//

/// The mma.sync shape (m16n8k16) and a warp's lanes.
#define MMA_M 16
#define MMA_N 8
#define MMA_K 16
#define WARP 32

/// How a block matmul runs on tensor cores: m16n8k16 mma tiles, grouped
/// into warp tiles of tm x tn mma tiles (16·tm rows, 8·tn columns), the
/// warp tiles of every batch dealt to the warps round-robin.
typedef struct MgMmaPlan {
  int64_t m, n, k;   // the matmul's rows, columns, reduction length
  int64_t tm, tn;    // mma tiles per warp tile along m and n
  int64_t mt, nt;    // warp tiles along m and n
  int64_t batch;     // product of the result's batch dims
  int64_t warps;     // of the block
  MgDType dtype;     // of both operands: f16 or bf16
} MgMmaPlan;
/// Target `target` has the tensor cores mma.c writes for (sm_80+).
bool mg_lower_target_has_mma(const MgTarget *target);
/// The kernels `e` writes put block matmuls on tensor cores where
/// mg_lower_mma_plan allows: the target has them and e->fma_matmuls is off.
bool mg_lower_emits_mma(const Emit *e);
/// True (with the plan) when matmul `op` of block graph `b` runs on tensor
/// cores given `tensor_cores` (mg_lower_emits_mma, or true for "any target
/// with tensor cores"): whole warps, both operands f16 or both
/// bf16 tiles in shared memory, m a multiple of 16, n of 8, k of 16.
bool mg_lower_mma_plan(const MgGraph *b, const MgOp *op, bool tensor_cores,
                       MgMmaPlan *plan);
/// Bytes (16-byte aligned) of the state an online accumulator whose result
/// is `t` keeps beside its tile (0 for any other tensor).
int64_t mg_lower_aux_bytes(const MgGraph *b, MgTensorId t);
/// The online accumulator `op`'s state slots per result element.
int64_t mg_lower_aux_slots(const MgGraph *b, const MgOp *op);
/// Its memref type (memref<4 x m's dims x f32>) in `space`.
void mg_lower_aux_type(const MgGraph *b, MgTensorId t, const char *space,
                       char out[TYPE_LEN]);

//===--- The split-K GEMV (gemv_plan.c; its shape: gemv_plan.h) ----------===//

/// A kernel-level matmul with at most 32 rows lowered as a split-K GEMV
/// (gemv.c), or a ug.custom of that shape with row statistics and an
/// element-wise epilogue (fused.c): true with its launch.
bool mg_lower_is_gemv(const MgProgram *p, MgOpId op, int64_t *blocks,
                      int64_t *threads);
/// The GEMV's rows of B loaded ahead per thread (0: not a GEMV).
int64_t mg_lower_gemv_unroll(const MgProgram *p, MgOpId op);
/// The GEMV's rows of A per block (a row group; 0: not a GEMV).
int64_t mg_lower_gemv_rows(const MgProgram *p, MgOpId op);
/// Columns per warp of a GEMV whose B is stored transposed (dot products
/// along K, A staged in shared memory a chunk at a time), 0 otherwise;
/// `chunks` gets the stagings (chunks of K), `acc_lanes` the width of a
/// sum's partial accumulator.
int64_t mg_lower_gemv_dot_cols(const MgProgram *p, MgOpId op,
                               int64_t *chunks, int64_t *acc_lanes);
/// The plan's GEMV operand, column-group, statistics and epilogue fields.
void mg_lower_gemv_fill_plan(const MgProgram *p, MgOpId op,
                             MgLowerKernelPlan *plan);
/// Bytes and type of the fused form's statistics buffer (0: none).
int64_t mg_lower_gemv_stats(const MgProgram *p, MgOpId op, char *type,
                            size_t size);
/// Bytes and type of the GEMV's shared partial sums (0: not a GEMV).
int64_t mg_lower_gemv_smem(const MgProgram *p, MgOpId op, char *type,
                           size_t size);
/// Bytes, stages and type of the GEMV's ring of B's vectors in shared
/// memory (0: no ring, B's vectors are loaded into registers).
int64_t mg_lower_gemv_ring(const MgProgram *p, MgOpId op, int64_t *stages,
                           char *type, size_t size);

#endif // MIRAGE_LIB_LOWER_DECIDE_H

//===- lower_internal.h - The MLIR text emitter's shared state ------------===//
//
// One Emit per graph being written. Every tensor of the graph has a memref
// value name and type (`val`, `type`); ops are written as element loops
// over their result (ops.c), structure around them by emit.c and
// schedule.c.
//
// Invariants: SSA names are "%v<N>" from one counter per function, so they
// never clash; a loop's index names are valid only inside it; in GPU block
// graphs a barrier separates every two groups of ops with a shared-memory
// dependence (schedule.c), so an op sees its operands complete.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_LOWER_INTERNAL_H
#define MIRAGE_LIB_LOWER_INTERNAL_H

#include "mirage/lower.h"

#define NAME_LEN 24
// Room for the longest memref type: rank MG_MAX_DIMS (6), a strided
// layout, dims and strides below 2^48 (MG_MAX_NUMEL), an address space.
#define TYPE_LEN 192

typedef char Name[NAME_LEN];
/// One index name per dim of a tensor.
typedef Name Index[MG_MAX_DIMS];
/// A memref value and its type.
typedef struct Memref {
  Name val;
  char type[TYPE_LEN];
} Memref;

typedef struct Emit {
  MgText *t;
  MgLowerMode mode;
  const MgProgram *p;
  const MgGraph *g;
  Name *val;             // per tensor: its memref
  char (*type)[TYPE_LEN]; // per tensor: its memref type
  uint8_t *dtype;        // per tensor: its element type in memory (tiles
                         // of accumulators are f32, as registers would be)
  uint32_t *counter;     // SSA numbering of the enclosing function
  int indent;
  // Element loops: first index and step (GPU: thread id, threads; CPU: 0,
  // 1). Predefined kernels on the GPU stride over the whole grid.
  Name lo, step;
  int64_t step_value;    // the step when a known constant, else 0
  int elem_loops;        // scf.for ops the open element loop has (ops.c)
  bool elem_guard;       // its body is inside a bounds check (ops.c)
  // An element loop carrying its (outer, inner) position (ops.c): the
  // names, the inner extent (0: none open) and the step.
  Name carry_o, carry_j;
  int64_t carry_inner, carry_step;
  // Staged tiles (schedule.c): per tensor the two-stage buffer and type.
  Name *stage_buf;
  char (*stage_type)[TYPE_LEN];
  // Per online accumulator's result: its running-max state (online.c).
  Name *aux_buf;
  char (*aux_type)[TYPE_LEN];
  bool barrier;          // GPU: a barrier after each element loop
  // Block graphs: block index per grid axis and the for-loop iteration.
  Name block[3], iter;
  // Cooperative reductions (ops.c): the block's threads when they are whole
  // warps (0: every reduction is sequential per element), the thread id and
  // (GPU) the shared f32 scratch of one value per warp. The CPU form makes
  // the same choices and emulates the lanes in the same order.
  int64_t coop_threads;
  Name tid, scratch;
  bool in_loop;          // emitting the body of a block graph's for-loop
  int sm;                // target compute capability x 10 (tensor cores: 80+)
  const char *error;     // first unsupported construct met
} Emit;

/// A fresh SSA name.
void mg_lower_fresh(Emit *e, Name out);
/// One indented line.
void mg_lower_line(Emit *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/// `out = op a, b : index` ("arith.addi", "arith.cmpi ult," ...).
void mg_lower_index_op(Emit *e, const char *op, const char *a, const char *b,
                       Name out);
/// An index constant.
void mg_lower_index(Emit *e, int64_t v, Name out);
/// "f16", "bf16", "f32".
const char *mg_lower_elt(MgDType dtype);
/// "memref<2x16xf16>" (element type `dtype`) plus an address space when
/// `space` is not NULL.
void mg_lower_memref_type(const MgTensor *t, MgDType dtype, const char *space,
                          char out[TYPE_LEN]);

//===--- Shared by the writers (emit.c, schedule.c) ----------------------===//

#define MG_LOWER_WORKGROUP "#gpu.address_space<workgroup>"

/// A block-graph tensor kept in shared memory (not a kernel tensor).
bool mg_lower_is_tile(const MgGraph *b, MgTensorId t);
/// The element type a tensor is kept in: accumulators in f32.
MgDType mg_lower_kept_dtype(const MgGraph *g, MgTensorId t);
/// Bytes of a tile rounded up to the shared-memory alignment.
int64_t mg_lower_tile_bytes_of(const MgGraph *b, MgTensorId t);
/// Per-tensor name, type and dtype tables for graph `g` (false: no memory).
bool mg_lower_alloc_tables(Emit *e, const MgGraph *g);
void mg_lower_free_tables(Emit *e);
/// The block graph's body: accumulator zero fill, the for-loop, the rest;
/// `reg` is mg_lower_register_values' plan (the caller allocated tiles by
/// it).
void mg_lower_block_body(Emit *e, const bool *reg);
/// Names the block graph's kernel tensors after op's operands and results.
void mg_lower_bind_dram(Emit *e, const MgOp *op, Name *kval,
                        char (*ktype)[TYPE_LEN]);
/// When each op of block graph `b` runs (MgLowerPhase, num_ops entries):
/// before the loop the iterators without an fmap and every non-accumulator
/// op that reads only what runs before it (its value is the same in every
/// iteration, so it is computed once); the loop the other ops of
/// mg_graph_ops_in_loop; after it the rest. False: no memory.
bool mg_lower_op_phases(const MgGraph *b, uint8_t *phase);
/// reg[t] (num_tensors entries): tensor t is made by a fused element-wise
/// chain and read only inside it, so it needs no tile. False: no memory.
bool mg_lower_register_values(const MgGraph *b, bool *reg);

/// Bytes one vector access of a tile copy moves (ld.global.v4 / st.v4).
#define MG_LOWER_VECTOR_BYTES 16
/// True when `t` is an input stored in another layout (a transposed view).
bool mg_lower_has_layout(const MgGraph *g, MgTensorId t);
/// The identity memref type of `t`'s stored shape (its layout undone).
void mg_lower_stored_type(const MgGraph *g, MgTensorId t, char out[TYPE_LEN]);
/// For an input with a layout: `val` of its stored type becomes a
/// memref.transpose view of the logical shape (strided); else unchanged.
void mg_lower_layout_view(Emit *e, const MgGraph *g, MgTensorId t, Name val,
                          char type[TYPE_LEN]);
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
/// An iterator the for-loop reloads every iteration (it has an fmap).
bool mg_lower_is_loop_tile_load(const MgOp *op);
/// Stages of the block graph's for-loop pipeline (schedule.c), 0 when it
/// is none: F > 1, every reloaded tile moves as 16-byte vectors, at least
/// two stages of them stay static (emit.c says how many).
int64_t mg_lower_stages(const MgGraph *b);
/// mg_lower_stages(b) >= 2.
bool mg_lower_pipelined(const MgGraph *b);
/// Iterator `op` moves by cp.async: staged, or (outside a pipeline) whole
/// 16-byte vectors from a dense buffer, every copy of a batch in flight at
/// once (schedule.c).
bool mg_lower_is_async_load(const MgGraph *b, const MgOp *op);
/// Batches of cp.async tile copies one iteration of a loop that is not
/// pipelined waits for (schedule.c).
uint32_t mg_lower_async_batches(const MgGraph *b);
/// Tile `t` is staged (memref<Sx...>, S = mg_lower_stages).
bool mg_lower_is_staged(const MgGraph *b, MgTensorId t);
/// Elements tile `t`'s rows are padded by in shared memory: 8 (16 bytes)
/// for an operand of a matmul on tensor cores whose rows would put
/// ldmatrix's 8 rows on the same banks, when the graph's padded tiles stay
/// static (emit.c); else 0.
int64_t mg_lower_row_pad(const MgGraph *b, MgTensorId t);
/// Tile `t`'s buffer shape: its dims, the last one padded.
void mg_lower_tile_shape(const MgGraph *b, MgTensorId t, MgTensor *out);
/// The memref type of tile `t` (every stage when staged), in `space`.
void mg_lower_tile_type(const MgGraph *b, MgTensorId t, const char *space,
                        char out[TYPE_LEN]);
/// Copies iteration `iter`'s tile of iterator `op` into stage `stage` of its
/// staged buffer, or (`stage` NULL) into its tile (GPU: cp.async of 16
/// bytes per thread, not waited for; CPU: vectors).
void mg_lower_prefetch(Emit *e, const MgOp *op, const char *iter,
                       const char *stage);

/// Index ops per term by which a sequential reduction of `in` along `dim`
/// staggers each row's first term (ops.c reduce: rows of contiguous terms
/// summed by consecutive threads would share a shared-memory bank): 1 (an
/// xor), 4 (add, subtract, compare, select), 0 (not staggered).
int mg_lower_stagger_ops(const MgTensor *in, uint32_t dim);
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
/// Writes the GEMV kernel's body (GPU) or its CPU form; `part`, `ring`
/// and `stat` name the partial-sum buffer, B's cp.async ring and the fused
/// form's statistics (GPU: workgroup attributions of mg_lower_gemv_smem's,
/// mg_lower_gemv_ring's and mg_lower_gemv_stats' types; CPU: NULL,
/// allocated here). `op` is a kernel-level matmul or a ug.custom that is
/// a GEMV with row statistics and an epilogue (fused.c).
void mg_lower_gemv(Emit *e, const MgOp *op, const char *part,
                   const char *ring, const char *stat);
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

/// Threads per block that allow cooperative reductions (whole warps), else 0.
int64_t mg_lower_coop_threads(const MgGraph *b);

/// The writers: one gpu.func, the CPU function, the host function.
void mg_lower_gpu_kernel(Emit *e, const char *name, MgOpId op);
void mg_lower_cpu_program(Emit *e, const MgLowerOptions *o);
void mg_lower_host_program(Emit *e, const MgLowerOptions *o);

//===--- host=device's argument checks (device_args.c) --------------------===//

/// The messages of one host function's failed checks: llvm.mlir.global
/// strings @"<func>.arg_error<n>" emitted after it.
typedef struct MgLowerArgErrors {
  const char *func;
  MgText globals;
  uint32_t count;
} MgLowerArgErrors;

/// `dense` (an identity memref type of rank `rank`) with a fully dynamic
/// strided layout: the type host=device's @F takes for it.
void mg_lower_caller_type(const char *dense, uint32_t rank,
                          char out[TYPE_LEN]);
/// At @F's entry: argument `given` (signature position `position`, the
/// caller's type of x's identity memref type) is checked to be what the
/// kernels read (offset 0, dense strides, 16-byte aligned) or @F writes a
/// message to stderr and aborts; `val` names it cast to the identity type.
void mg_lower_check_arg(Emit *e, MgLowerArgErrors *errs, uint32_t position,
                        const char *given, const MgTensor *x, Name val);
/// After @F: the messages and the declarations of write and abort.
void mg_lower_arg_errors_finish(Emit *e, MgLowerArgErrors *errs);

//===--- Element loops (ops.c) --------------------------------------------===//

/// Opens the element loop over `t` (threads stride over its elements,
/// e->lo / e->step / e->step_value; the CPU form runs the threads in
/// turn); idx gets one index per dim. Closed by mg_lower_elems_end.
void mg_lower_elems_begin(Emit *e, const MgTensor *t, Index idx);
void mg_lower_elems_end(Emit *e);
/// The same over the 16-byte vectors of `tile`'s first `rank` dims (the
/// last one divided by `vw`); idx[rank - 1] is the vector's first element.
void mg_lower_vector_elems_begin(Emit *e, const MgTensor *tile,
                                 uint32_t rank, int64_t vw, Index idx);
/// Delinearizes `lin` over dims [0, end) of `t` (row-major) into idx.
void mg_lower_delinearize(Emit *e, const MgTensor *t, uint32_t end,
                          const char *lin, Index idx);
/// "%a, %b, %c": the index list of a load or store.
void mg_lower_index_list(Name *idx, uint32_t rank, char *out, size_t size);
/// Loads element `at` of tensor `id` of e->g as f32 into `out`.
void mg_lower_load_at(Emit *e, MgTensorId id, Name *at, Name out);
/// Loads operand `id` at element `idx` of a result of rank `rank`,
/// broadcasting its size-1 dims (right-aligned).
void mg_lower_load(Emit *e, MgTensorId id, Index idx, uint32_t rank,
                   Name out);
/// `out = op a, b : f32` (adds, subtracts, multiplies may contract).
void mg_lower_binary(Emit *e, const char *op, const char *a, const char *b,
                     Name out);
/// `out = op a : f32`.
void mg_lower_unary(Emit *e, const char *op, const char *a, Name out);
/// One element of element-wise op `kind` (scalar `s`) on f32 values `a`
/// (and `b`), as the element loops write it; false for another kind.
bool mg_lower_scalar(Emit *e, MgOpKind kind, double s, const char *a,
                     const char *b, Name out);
/// Stores the f32 `v` at `idx` of tensor `id`, truncated to its type.
void mg_lower_store(Emit *e, MgTensorId id, Index idx, const char *v);

//===--- Kernel-level view ops (views.c) ----------------------------------===//

/// `m`, a contiguous buffer of `from`'s shape, viewed as `to`'s shape
/// (same element count) in its place: memref.collapse_shape to one dim,
/// then memref.expand_shape.
void mg_lower_reshape_view(Emit *e, const MgTensor *from, const MgTensor *to,
                           Memref *m);
/// Tensor `t`'s memref (e->val[t], e->type[t]): read, and bound to `m`.
Memref mg_lower_tensor_memref(const Emit *e, MgTensorId t);
void mg_lower_bind_memref(Emit *e, MgTensorId t, const Memref *m);
/// Elements per thread and access of view op `op`'s copy kernel: one
/// 16-byte vector where every vector is contiguous and 16-byte aligned in
/// both the operands and the result, else 1.
int64_t mg_lower_view_vector_width(const MgGraph *g, const MgOp *op);
/// The index maps of the view ops, result element -> operand element:
/// pure index arithmetic, shared by the copy kernels and anything that
/// reads through a view. TRANSPOSE, SLICE, RESHAPE: operand 0's index of
/// result element `idx`.
void mg_lower_view_source(Emit *e, const MgOp *op, Index idx, Index at);
/// CONCAT (any level): operand `k`'s index of result element `idx`, which
/// lies in operand k's part.
void mg_lower_concat_source(Emit *e, const MgOp *op, uint32_t k, Index idx,
                            Index at);
/// A kernel-level view op as its copy kernel's body (one element loop per
/// operand part; threads stride over the result in row-major order).
void mg_lower_view(Emit *e, const MgOp *op);

//===--- Op bodies (ops.c) ------------------------------------------------===//

/// Writes op `op` of e->g (not INPUT) as element loops. For ACCUM this is
/// the per-iteration update; mg_lower_accum_init writes the zero fill.
void mg_lower_op(Emit *e, const MgOp *op);
/// Element-wise ops `ops[0..n)` (results of one shape, in order) as one
/// element loop: an operand another op of the chain made is read from
/// its register; result c is stored only when keep[c].
void mg_lower_chain(Emit *e, const MgOp *const *ops, uint32_t n,
                    const bool *keep);
void mg_lower_accum_init(Emit *e, const MgOp *op);
/// A matmul (ops[0]) whose result only the element-wise chain ops[1..n)
/// reads: each dot product feeds the chain in registers; result c is
/// stored only when keep[c].
void mg_lower_matmul_chain(Emit *e, const MgOp *const *ops, uint32_t n,
                           const bool *keep);
//===--- The max and online accumulators (online.c) -----------------------===//

/// Bytes (16-byte aligned) of the state an online accumulator whose result
/// is `t` keeps beside its tile (0 for any other tensor).
int64_t mg_lower_aux_bytes(const MgGraph *b, MgTensorId t);
/// Its memref type (memref<4 x m's dims x f32>) in `space`.
void mg_lower_aux_type(const MgGraph *b, MgTensorId t, const char *space,
                       char out[TYPE_LEN]);
/// One iteration's update of a MAX or ONLINE accumulator.
void mg_lower_accum_online(Emit *e, const MgOp *op);

/// Operand indices of a result element: `a`'s index for result element
/// `idx` of rank `rank`, its size-1 dims reading 0 (right-aligned).
void mg_lower_broadcast(Emit *e, const MgTensor *a, Index idx, uint32_t rank,
                        Index out);
/// What a matmul does with each result element (`v`, f32, at `idx`): store
/// it, add it into an accumulator, run an element-wise chain on it.
typedef void (*FinishFn)(Emit *e, const void *ctx, Index idx, const char *v);

//===--- Block matmuls on tensor cores (mma.c) ----------------------------===//

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
/// True (with the plan) when matmul `op` of block graph `b` runs on tensor
/// cores for target `sm`: sm >= 80, whole warps, both operands f16 or both
/// bf16 tiles in shared memory, m a multiple of 16, n of 8, k of 16.
bool mg_lower_mma_plan(const MgGraph *b, const MgOp *op, int sm,
                       MgMmaPlan *plan);
/// Writes matmul `op` on tensor cores (GPU: ldmatrix + mma.sync; CPU: the
/// warp's lanes emulated with the same fragment mapping) when
/// mg_lower_mma_plan holds, calling `finish` on each result element;
/// false (nothing written) otherwise.
bool mg_lower_matmul_mma(Emit *e, const MgOp *op, const void *dest,
                         FinishFn finish);

/// Warps per result element op `op` reduces with (ops.c: > 1 uses the
/// shared scratch), 0 when it is not reduced cooperatively.
int64_t mg_lower_reduction_warps(Emit *e, const MgOp *op);
/// A matmul whose result only the sum accumulator `acc` reads: the dot
/// products are added to the accumulator directly, in f32.
void mg_lower_matmul_accum(Emit *e, const MgOp *mm, const MgOp *acc);
/// The same for a sum over a dim (ug.sum): each result, once reduced, is
/// added to `acc` by the thread that finishes it.
void mg_lower_reduce_accum(Emit *e, const MgOp *red, const MgOp *acc);

#endif // MIRAGE_LIB_LOWER_INTERNAL_H

//===- graph.h - The μGraph model: kernel, block and thread graphs -*- C -*-===//
//
// A program is a list of graphs; graph 0 is the root kernel graph. A
// graph-defined kernel (MG_OP_CUSTOM) names a block graph by index, and a
// thread op (MG_OP_THREAD) inside a block graph names a thread graph. Every
// graph is an SSA DAG stored as index arrays: ops and tensors are referred to
// by 32-bit ids, never pointers, so a copy is a memcpy and hashing runs over
// integers.
//
// Invariants (checked by mg_program_validate, kept by the builders):
//  - ops are in topological order: an op reads only tensors made earlier;
//  - every tensor has exactly one producer op;
//  - graph inputs are the MG_OP_INPUT ops, numbered 0..num_inputs-1 by `attr`;
//    graph outputs are listed in `outputs` in order;
//  - in a block graph, an INPUT is a whole kernel tensor (in DRAM); only
//    ITERATOR reads it, producing one tile per block and for-loop iteration;
//    SAVER writes a post-loop tile back to a whole kernel tensor, and saver
//    results are the graph's outputs.
//
// The data structs are public on purpose: every stage (verifier, search,
// lowering, dialect bridge) reads them; builders keep them consistent.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_GRAPH_H
#define MIRAGE_GRAPH_H

#include "mirage/support.h"
#include "mirage/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Most dims of a μGraph tensor. 8 covers what frontends write: GQA with
/// head groups ([batch, kv_heads, group, seq, dim], rank 5) and the rank-7
/// views exporters put around it (issue 30). It sizes MgTensor.dims and
/// MgOp.perm/shape (MgTensor 72 bytes, MgOp 152 at 8; 56 and 128 at 6),
/// which the search copies with every state; grep MG_MAX_DIMS for the
/// arrays it bounds.
#define MG_MAX_DIMS 8
#define MG_MAX_OP_INPUTS 8
#define MG_MAX_OP_OUTPUTS 4
#define MG_NO_ID UINT32_MAX
/// imap/fmap/omap entry meaning "replica" (φ): not partitioned.
#define MG_MAP_NONE (-1)

typedef uint32_t MgOpId;
typedef uint32_t MgTensorId;
typedef uint32_t MgGraphId;

typedef enum MgLevel {
  MG_LEVEL_KERNEL,
  MG_LEVEL_BLOCK,
  MG_LEVEL_THREAD,
  MG_LEVEL_COUNT
} MgLevel;

typedef enum MgDType {
  MG_DTYPE_F16,
  MG_DTYPE_BF16,
  MG_DTYPE_F32,
  MG_DTYPE_COUNT
} MgDType;

/// ORDER MG_OP: grep "ORDER MG_OP" if you change this enum (name table in
/// lib/graph/op_info.c, dialects/ugraph.irdl.mlir, the dialect bridge, the
/// interpreters).
typedef enum MgOpKind {
  MG_OP_INPUT,      // graph input; attr = position
  MG_OP_MATMUL,     // (...,m,k) x (...,k,n) -> (...,m,n)
  MG_OP_ADD,        // element-wise, broadcasting size-1 dims
  MG_OP_SUB,
  MG_OP_MUL,
  MG_OP_DIV,
  MG_OP_EXP,
  MG_OP_SQUARE,
  MG_OP_SQRT,       // non-LAX from here to ERF
  MG_OP_RSQRT,
  MG_OP_SILU,
  MG_OP_GELU,
  MG_OP_RELU,
  MG_OP_LOG,        // natural logarithm
  MG_OP_TANH,
  MG_OP_ERF,
  MG_OP_MUL_SCALAR, // x * scalar
  MG_OP_DIV_SCALAR, // x / scalar
  MG_OP_SUM,        // sum over dim `attr`, kept with size 1
  MG_OP_CUSTOM,     // kernel level: graph-defined kernel, attr = block graph
  MG_OP_ITERATOR,   // block level: input iterator (imap, fmap)
  MG_OP_ACCUM,      // block level: for-loop accumulator (acc)
  MG_OP_SAVER,      // block level: output saver (omap)
  MG_OP_CONCAT,     // concat along dim `attr` (block level; kernel level: a view op)
  MG_OP_THREAD,     // block level: fused element-wise chain, attr = thread graph
  // Kernel-level view ops: they move elements, never compute on them. The
  // search does not create them; it searches the parts between them
  // (lib/search/views.c).
  MG_OP_TRANSPOSE,  // result dim d is operand dim perm[d] (tosa.transpose)
  MG_OP_RESHAPE,    // row-major reshape to `shape` (rank `attr`)
  MG_OP_SLICE,      // along dim `attr`: shape[1] elements from index shape[0]
  // Max (issue 12): outside LAX; the verifier models it as the maximum under
  // a random total order of the field (docs/verification.md).
  MG_OP_MAX,        // element-wise maximum, broadcasting like ADD
  MG_OP_REDUCE_MAX, // max over dim `attr`, kept with size 1
  // Bounds by a constant (issue 30: ReLU6, clamp, hardswish): max / min of
  // x and `scalar`, in the same random order of the field as MAX.
  MG_OP_MAX_SCALAR, // max(x, scalar)
  MG_OP_MIN_SCALAR, // min(x, scalar)
  MG_OP_ADD_SCALAR, // x + scalar (a norm's eps, GELU's 1 in linalg bodies)
  // Convolution's data movement (issue 30), a kernel-level view op like
  // SLICE: the patches of an NHWC input as rows, [G, N·Ho·Wo, KH·KW·Cg],
  // zero outside the input (padding). A convolution is a (batched) matmul
  // of these rows with the filter; parameters in MgIm2col.
  MG_OP_IM2COL,
  MG_OP_COUNT
} MgOpKind;

/// What a for-loop accumulator sums over the iterations.
typedef enum MgAccumKind {
  MG_ACCUM_SUM,        // Σ_i tile_i
  MG_ACCUM_SUM_LAST,   // Σ_i Σ_last tile_i  (last dim becomes 1)
  MG_ACCUM_SUM_SQ_LAST,// Σ_i Σ_last tile_i²  (for rms; last dim becomes 1)
  MG_ACCUM_MAX,        // max_i tile_i (element-wise running max)
  // Online softmax (FlashAttention-2): operands (x_i, m_i), m_i broadcasting
  // to x_i; yields Σ_i x_i·exp(m_i − M) with M = max_i m_i, kept as a
  // running sum rescaled by exp(M_old − M_new) whenever the max grows.
  MG_ACCUM_ONLINE,
  MG_ACCUM_COUNT
} MgAccumKind;

/// Symbols (issue 29): a kernel-graph dim may be a size known only at run
/// time, named by a symbol 1..MG_MAX_SYMS. The tensor's dims[] hold its
/// size in the program's current instantiation (mg_program_instantiate
/// changes it everywhere at once); a symbolic dim is always exactly one
/// symbol, never a product or a sum of them.
#define MG_MAX_SYMS 3

typedef struct MgTensor {
  uint8_t dtype; // MgDType
  uint8_t rank;
  uint16_t sym;  // 2 bits per dim: 0 static, else the symbol (mg_tensor_sym)
  MgOpId producer;
  int64_t dims[MG_MAX_DIMS];
} MgTensor;

typedef struct MgOp {
  uint8_t kind; // MgOpKind
  uint8_t num_inputs;
  uint8_t num_outputs;
  uint8_t acc;     // MgAccumKind, for ACCUM
  int8_t imap[3];  // ITERATOR: grid axis x,y,z -> tensor dim or MG_MAP_NONE
  int8_t fmap;     // ITERATOR: for-loop -> tensor dim or MG_MAP_NONE
  int8_t omap[3];  // SAVER: grid axis -> output dim or MG_MAP_NONE
  int8_t perm[MG_MAX_DIMS]; // INPUT: stored layout, see mg_graph_set_input_perm;
                            // TRANSPOSE: the permutation
  uint8_t folded;  // block-graph INPUT / SAVER: its kernel tensor is a
                   // strided view of another's buffer, 2 when its innermost
                   // dim stays contiguous, MG_FOLDED_IM2COL when it gathers
                   // a folded im2col's patches (fold.c; derived by
                   // mg_program_fold_layouts, never printed)
  int32_t attr;    // INPUT: position; SUM/CONCAT: dim; CUSTOM/THREAD: graph
  double scalar;   // MUL_SCALAR / DIV_SCALAR
  int64_t shape[MG_MAX_DIMS]; // RESHAPE: result dims (-s: symbol s);
                              // SLICE: first, count
  MgTensorId inputs[MG_MAX_OP_INPUTS];
  MgTensorId outputs[MG_MAX_OP_OUTPUTS];
} MgOp;

typedef struct MgGraph {
  uint8_t level;       // MgLevel
  int32_t grid[3];     // block level: grid dims (x,y,z), each >= 1
  uint8_t grid_sym[3]; // block level: the symbol grid axis a runs over, 0
                       // when static
  int32_t grid_rows[3]; // ... and how many of its indices one block takes
                        // (>= 1): grid[a] = ceil(size / grid_rows[a]), the
                        // last block's tile running past the size (rows
                        // past it read as the last row, never written)
  int32_t block_threads; // block level: threads per block
  int32_t forloop;     // block level: for-loop range F >= 1
  uint8_t forloop_sym; // block level: the symbol the for-loop runs over, 0
                       // when static
  int32_t forloop_rows; // ... and how many of its indices an iteration
                        // takes (>= 1): F = ceil(size / forloop_rows), the
                        // last iteration's tile holding only the indices
                        // inside the size (a reduction over them skips the
                        // rest: docs/verification.md §4c)
  uint32_t num_inputs; // number of INPUT ops
  uint32_t num_ops, cap_ops;
  uint32_t num_tensors, cap_tensors;
  uint32_t num_outputs, cap_outputs;
  MgOp *ops;
  MgTensor *tensors;
  MgTensorId *outputs;
} MgGraph;

typedef struct MgProgram {
  MgArena *arena;      // owns every array below
  uint32_t num_graphs, cap_graphs;
  MgGraph *graphs;     // graphs[0] is the root kernel graph
} MgProgram;

//===--- Checked id lookups -----------------------------------------------===//
// For ids the caller knows to be in range (made by a builder, or checked by
// mg_program_validate): MG_ASSERT says so in the asserting builds. Ids from
// outside (parsed IR, another program) are checked with a diagnostic first.
// The result is mutable through a const argument, as strchr's; a caller
// that was given a const program keeps its pointers const.

/// Graph `g` of `p`.
static inline MgGraph *mg_program_graph(const MgProgram *p, MgGraphId g) {
  MG_ASSERT(g < p->num_graphs);
  return &p->graphs[g];
}
/// Op `op` of `gr`.
static inline MgOp *mg_graph_op(const MgGraph *gr, MgOpId op) {
  MG_ASSERT(op < gr->num_ops);
  return &gr->ops[op];
}
/// Tensor `t` of `gr`.
static inline MgTensor *mg_graph_tensor(const MgGraph *gr, MgTensorId t) {
  MG_ASSERT(t < gr->num_tensors);
  return &gr->tensors[t];
}
/// The op that produces tensor `t` of `gr`.
static inline MgOp *mg_graph_producer(const MgGraph *gr, MgTensorId t) {
  return mg_graph_op(gr, mg_graph_tensor(gr, t)->producer);
}

/// The symbol of dim `d` of `t`, 0 when the dim is static.
static inline unsigned mg_tensor_sym(const MgTensor *t, uint32_t d) {
  return (t->sym >> (2 * d)) & 3u;
}
/// Makes dim `d` of `t` symbol `s` (0: static).
static inline void mg_tensor_set_sym(MgTensor *t, uint32_t d, unsigned s) {
  t->sym = (uint16_t)((t->sym & ~(3u << (2 * d))) | ((s & 3u) << (2 * d)));
}

//===--- Op metadata ------------------------------------------------------===//

/// Stable lower-case name of an op kind ("matmul", "div_scalar", ...); the
/// dialect op is "ug.<name>". NULL for out-of-range kinds.
MG_API const char *mg_op_kind_name(MgOpKind kind);
/// Inverse of mg_op_kind_name; MG_OP_COUNT when unknown.
MG_API MgOpKind mg_op_kind_from_name(const char *name, size_t len);
/// True for element-wise unary/binary/scalar ops.
MG_API bool mg_op_kind_is_elementwise(MgOpKind kind);
/// True for ops inside the LAX fragment (multilinear, division, exp).
MG_API bool mg_op_kind_is_lax(MgOpKind kind);
/// True for the element-wise ops of one tensor operand: exp, square, the
/// opaque functions and the scalar ops.
MG_API bool mg_op_kind_is_unary(MgOpKind kind);
/// True for the element-wise functions outside LAX (sqrt, rsqrt, silu,
/// gelu, relu, log, tanh, erf): the verifiers treat them as uninterpreted
/// functions of their argument.
MG_API bool mg_op_kind_is_opaque(MgOpKind kind);
/// True for the ops of one operand and a constant `MgOp.scalar`
/// (mul/div/add_scalar, max/min_scalar).
MG_API bool mg_op_kind_has_scalar(MgOpKind kind);
/// True for the order-based ops outside LAX: maximum, reduce_max,
/// max_scalar, min_scalar.
MG_API bool mg_op_kind_is_order(MgOpKind kind);
/// True when the op is allowed at `level`.
MG_API bool mg_op_kind_allowed_at(MgOpKind kind, MgLevel level);
MG_API const char *mg_accum_kind_name(MgAccumKind kind);
MG_API MgAccumKind mg_accum_kind_from_name(const char *name, size_t len);
MG_API const char *mg_dtype_name(MgDType dtype);
MG_API MgDType mg_dtype_from_name(const char *name, size_t len);
MG_API size_t mg_dtype_bytes(MgDType dtype);
/// `x` rounded once to the nearest `dtype` value (ties to even, lib/support's
/// soft-float encodings for f16/bf16), as a store of `x` would make it.
MG_API double mg_dtype_round(MgDType dtype, double x);
/// The largest finite `dtype` value (65504 for f16).
MG_API double mg_dtype_max_finite(MgDType dtype);
MG_API const char *mg_level_name(MgLevel level);
MG_API MgLevel mg_level_from_name(const char *name, size_t len);

//===--- Programs ---------------------------------------------------------===//

/// Creates an empty program; the caller must mg_program_destroy it.
MG_API MgProgram *mg_program_create(void);
/// Frees the program and its arena. Accepts NULL.
MG_API void mg_program_destroy(MgProgram *program);
/// Deep copy owned by the caller, packed into one new arena; NULL on no memory.
MG_API MgProgram *mg_program_clone(const MgProgram *program);
/// Appends an empty graph; returns its id or MG_NO_ID on no memory. Block
/// graphs start with grid (1,1,1), 128 threads and for-loop range 1.
MG_API MgGraphId mg_program_add_graph(MgProgram *program, MgLevel level);
/// Canonical structural hash: equal programs hash equal, independent of
/// memory layout.
MG_API uint64_t mg_program_hash(const MgProgram *program);
/// The tensor of graph input `pos` (its INPUT op's result), NULL if none.
MG_API const MgTensor *mg_graph_input_tensor(const MgGraph *g, uint32_t pos);
/// True when the root graphs of `a` and `b` have the same inputs (by
/// position) and outputs (in order): element types and shapes.
MG_API bool mg_program_same_signature(const MgProgram *a, const MgProgram *b);
/// True when both programs are structurally identical.
MG_API bool mg_program_equal(const MgProgram *a, const MgProgram *b);

/// Sets a block graph's launch shape. Must precede adding iterators.
MG_API MgStatus mg_graph_set_launch(MgProgram *program, MgGraphId graph,
                                    const int32_t grid[3],
                                    int32_t block_threads, int32_t forloop,
                                    MgDiag *diag);

//===--- Building (shape inference and local checks on every call) ---------===//
//
// Each builder returns the new tensor id, or MG_NO_ID when the op is invalid
// (shapes, maps, level); `diag` then says why. Rejection is not an error for
// the search: it just skips the candidate.

/// An op of `kind` with no operands or results (MG_NO_ID) and every map
/// φ (MG_MAP_NONE): the starting point for mg_graph_add_op.
MG_API MgOp mg_op_blank(MgOpKind kind);
/// Adds graph input number `num_inputs` with the given type.
MG_API MgTensorId mg_graph_add_input(MgProgram *program, MgGraphId graph,
                                     MgDType dtype, uint32_t rank,
                                     const int64_t *dims, MgDiag *diag);
/// Declares that input tensor `t` arrives in memory as a transposed view:
/// logical dim d is dim perm[d] of the stored array (tosa.transpose's
/// convention: logical = transpose(stored, perm)). Only the layout changes,
/// not the value: interpreters and verifiers read inputs in their logical
/// shape; the call boundary, the lowering and the cost model read the
/// stored one. Kernel graphs and the block graphs they call (whose input
/// must then have the layout of the kernel tensor it receives). The
/// identity is stored as all zeros, so equal layouts hash equal.
MG_API MgStatus mg_graph_set_input_perm(MgProgram *p, MgGraphId g,
                                        MgTensorId t, const int8_t *perm,
                                        MgDiag *diag);
/// Makes dim `d` of input tensor `t` of the root kernel graph symbol `s`
/// (1..MG_MAX_SYMS): a size known only at run time, whose current value
/// stays dims[d]. Must precede the ops that read `t`.
MG_API MgStatus mg_graph_set_input_sym(MgProgram *p, MgGraphId g,
                                       MgTensorId t, uint32_t d, unsigned s,
                                       MgDiag *diag);
/// A new input of `g` of `like`'s type and symbols, with the layout of
/// INPUT op `layout` (NULL: none): how a graph is rebuilt with an input as
/// another program has it.
MG_API MgTensorId mg_graph_add_input_as(MgProgram *p, MgGraphId g,
                                        const MgTensor *like,
                                        const MgOp *layout, MgDiag *diag);
/// The symbols some tensor of the program has, bit s-1 for symbol s.
MG_API unsigned mg_program_syms(const MgProgram *p);
/// The current size of symbol `s` (the dims that are it), 0 when unused.
MG_API int64_t mg_program_sym_size(const MgProgram *p, unsigned s);
/// Gives every dim and grid axis that is symbol s the size sizes[s-1]
/// (>= 1), in every graph. Shapes stay consistent because a symbolic dim
/// is exactly its symbol; the target's limits are the caller's to check
/// (mg_program_validate).
MG_API void mg_program_instantiate(MgProgram *p,
                                   const int64_t sizes[MG_MAX_SYMS]);
/// A copy of `p` with every symbol at `size` (NULL on no memory): what
/// the search, the verifier and mirage-run check a program at.
MG_API MgProgram *mg_program_clone_at(const MgProgram *p, int64_t size);
/// Forgets every symbol: the program at its current sizes, all static.
MG_API void mg_program_clear_syms(MgProgram *p);
/// The layout of INPUT op `op` with result rank `rank` into perm[0..rank):
/// the identity when none was set. True when it is not the identity.
MG_API bool mg_op_input_perm(const MgOp *op, uint32_t rank, int8_t *perm);
/// mg_op_input_perm of the op producing `t` (a tensor of `g`).
MG_API bool mg_graph_tensor_perm(const MgGraph *g, const MgTensor *t,
                                 int8_t *perm);
/// True when `a` (of `ga`) and `b` (of `gb`) are stored in the same layout
/// (a computed tensor is stored as it is).
MG_API bool mg_graph_same_layout(const MgGraph *ga, const MgTensor *a,
                                 const MgGraph *gb, const MgTensor *b);
/// The stored shape of a tensor: its dims permuted by its producer's
/// layout when that is a permuted INPUT, else its own dims.
MG_API void mg_graph_stored_dims(const MgGraph *g, MgTensorId t,
                                 int64_t *dims);
/// Tensor `t` as stored: mg_graph_stored_dims's dims, with the symbols
/// moved along.
MG_API MgTensor mg_graph_stored_tensor(const MgGraph *g, MgTensorId t);
/// True when some input of the program has a layout.
MG_API bool mg_program_has_layouts(const MgProgram *p);
/// Forgets every input layout (the logical program stays).
MG_API void mg_program_clear_layouts(MgProgram *p);
/// Gives the root inputs of `dst` the layouts of `src`'s inputs at the
/// same positions, and each block graph's inputs the layouts of the kernel
/// tensors its custom op passes. Fails when a block graph is called with
/// two different layouts.
MG_API MgStatus mg_program_copy_layouts(MgProgram *dst, const MgProgram *src,
                                        MgDiag *diag);
/// Generic builder: `op` gives kind, inputs and attributes; outputs are
/// created with inferred shapes and written back to `out_ids` (may be NULL).
/// Returns the op id or MG_NO_ID.
MG_API MgOpId mg_graph_add_op(MgProgram *program, MgGraphId graph,
                              const MgOp *op, MgTensorId *out_ids,
                              MgDiag *diag);
/// Undoes the newest mg_graph_add_op on `graph`: drops the op and its
/// results, which nothing may read or list as an output yet. The arrays
/// keep their capacity.
MG_API void mg_graph_pop_op(MgProgram *program, MgGraphId graph);
/// Drops the graphs from `num_graphs` on, and the root kernel graph's ops
/// and tensors from the given counts on and its outputs; the arrays keep
/// their capacity (a search that backtracks reuses them).
MG_API void mg_program_truncate(MgProgram *p, uint32_t num_graphs,
                                uint32_t kernel_ops, uint32_t kernel_tensors);
MG_API MgTensorId mg_graph_matmul(MgProgram *p, MgGraphId g, MgTensorId a,
                                  MgTensorId b, MgDiag *diag);
/// ADD, SUB, MUL, DIV, MAX.
MG_API MgTensorId mg_graph_binary(MgProgram *p, MgGraphId g, MgOpKind kind,
                                  MgTensorId a, MgTensorId b, MgDiag *diag);
/// EXP, SQUARE, SQRT, RSQRT, SILU, GELU, RELU.
MG_API MgTensorId mg_graph_unary(MgProgram *p, MgGraphId g, MgOpKind kind,
                                 MgTensorId a, MgDiag *diag);
/// MUL_SCALAR, DIV_SCALAR.
MG_API MgTensorId mg_graph_scalar(MgProgram *p, MgGraphId g, MgOpKind kind,
                                  MgTensorId a, double scalar, MgDiag *diag);
MG_API MgTensorId mg_graph_sum(MgProgram *p, MgGraphId g, MgTensorId a,
                               int32_t dim, MgDiag *diag);
/// SUM or REDUCE_MAX over `dim`, kept with size 1.
MG_API MgTensorId mg_graph_reduce(MgProgram *p, MgGraphId g, MgOpKind kind,
                                  MgTensorId a, int32_t dim, MgDiag *diag);
MG_API MgTensorId mg_graph_concat(MgProgram *p, MgGraphId g, MgTensorId a,
                                  MgTensorId b, int32_t dim, MgDiag *diag);
/// A slice: `count` elements of dim `dim` from index `first`.
typedef struct MgSlice {
  int32_t dim;
  int64_t first, count;
} MgSlice;
/// A call of graph `sub` on its `num_inputs` operands `inputs`: a custom
/// or thread op.
typedef struct MgCall {
  MgGraphId sub;
  uint32_t num_inputs;
  const MgTensorId *inputs;
} MgCall;
/// Kernel-level views (see MgOpKind). Transpose: result dim d is dim
/// perm[d] of `a`. Reshape: the row-major reinterpretation of `a` as
/// `dims` (same element count). Slice: an MgSlice of `a`.
MG_API MgTensorId mg_graph_transpose(MgProgram *p, MgGraphId g, MgTensorId a,
                                     const int8_t *perm, MgDiag *diag);
MG_API MgTensorId mg_graph_reshape(MgProgram *p, MgGraphId g, MgTensorId a,
                                   uint32_t rank, const int64_t *dims,
                                   MgDiag *diag);
MG_API MgTensorId mg_graph_slice(MgProgram *p, MgGraphId g, MgTensorId a,
                                 MgSlice slice, MgDiag *diag);
/// A 2-D convolution's patches (MG_OP_IM2COL) of an NHWC input x
/// [N, H, W, C]: result [groups, N·Ho·Wo, kh·kw·(C / groups)], row
/// m = (n, ho, wo) and column k = (i, j, c) holding
/// x[n, ho·sh + i·dh − pad_top, wo·sw + j·dw − pad_left, g·C/groups + c]
/// in group g, 0 where that is outside x. Ho = (H + pad_top + pad_bottom
/// − dh·(kh − 1) − 1) / sh + 1, Wo alike.
typedef struct MgIm2col {
  int32_t groups;
  int64_t kh, kw, sh, sw, dh, dw;
  int64_t pad_top, pad_bottom, pad_left, pad_right;
} MgIm2col;
MG_API MgTensorId mg_graph_im2col(MgProgram *p, MgGraphId g, MgTensorId x,
                                  const MgIm2col *c, MgDiag *diag);
/// The parameters of im2col op `op` (stored in its attr and shape), and
/// the other way.
MG_API MgIm2col mg_op_im2col(const MgOp *op);
MG_API void mg_op_set_im2col(MgOp *op, const MgIm2col *c);
/// Output height and width of `c` over an input of `h` x `w` (<= 0 when
/// the window does not fit).
MG_API void mg_im2col_out_hw(const MgIm2col *c, int64_t h, int64_t w,
                             int64_t *ho, int64_t *wo);
/// The index map: for result element `idx` (g, m, k) of `c` over input
/// `x`, the input element into `at` (rank 4); false when it is padding.
MG_API bool mg_im2col_source(const MgIm2col *c, const MgTensor *x,
                             const int64_t *idx, int64_t *at);
/// True for the kernel-level view ops (TRANSPOSE, RESHAPE, SLICE, IM2COL,
/// and CONCAT at kernel level).
MG_API bool mg_op_is_view(const MgOp *op, MgLevel level);
/// True for a view op whose result lists its operand's elements in their
/// row-major order (a reshape; a transpose moving only unit dims; a slice
/// of a whole dim) of the same element type, read from a tensor stored as
/// it is (no input layout): a reinterpretation of the same buffer, which
/// the lowering emits without a kernel and the cost model charges nothing.
MG_API bool mg_graph_view_is_free(const MgGraph *g, const MgOp *op);

/// A strided view of a contiguous buffer (fold.c): logical element idx of
/// the viewed tensor is element offset + Σ idx[d]·stride[d] of `base`'s
/// buffer. `stored` and `perm` say the same in tosa.transpose's terms
/// (logical dim d walks dim perm[d] of the buffer seen as `stored`), which
/// gives the order that reads memory contiguously.
typedef struct MgStridedView {
  MgTensorId base;
  uint32_t rank;
  int64_t stored[MG_MAX_DIMS];
  int8_t perm[MG_MAX_DIMS];
  int64_t stride[MG_MAX_DIMS];
  int64_t offset;
} MgStridedView;
/// True for a kernel-level transpose or slice that gets no kernel (a
/// folded view). Either its readers address its operand's buffer through
/// strides: it is neither free nor a graph output, keeps the element
/// type, reads no input with a layout, is read by no free view (those
/// need a buffer) and by no custom op whose block graph another custom op
/// calls. Or (a transpose only) its operand is made by a custom op with
/// a block graph of its own and read by nothing else: that kernel writes
/// the transpose's buffer through strides.
MG_API bool mg_graph_view_folds(const MgGraph *g, const MgOp *op);
/// True for a kernel-level im2col whose patches are never stored
/// (implicit GEMM): every reader is a graph-defined kernel with a block
/// graph of its own, which gathers its tiles from the dense input through
/// the index map; the result is no graph output.
MG_API bool mg_graph_im2col_folds(const MgGraph *g, const MgOp *op);
/// The folding im2col that makes `t`, or NULL.
MG_API const MgOp *mg_graph_folded_im2col(const MgGraph *g, MgTensorId t);
/// MgOp.folded of a block-graph input that reads a folded im2col; _VEC
/// when each group's channels are whole 16-byte vectors (a run of them
/// can be gathered with one load).
#define MG_FOLDED_IM2COL 3
#define MG_FOLDED_IM2COL_VEC 4
/// For tensor `t` of kernel graph `g` with no buffer of its own because
/// of a folded view (made by one that is read through, or the operand of
/// one written through): the buffer and strides it is accessed with;
/// false for any other tensor.
MG_API bool mg_graph_folded_view(const MgGraph *g, MgTensorId t,
                                 MgStridedView *view);
/// True when `t` is not accessed as a dense row-major buffer of its own:
/// an input with a layout, a tensor mg_graph_folded_view describes, or a
/// block-graph input or saver result receiving one.
MG_API bool mg_graph_is_strided(const MgGraph *g, MgTensorId t);
/// Gives each block graph's inputs the layout of the kernel tensor its
/// custom op passes: an input's layout, or a folded view's permutation
/// with `folded` set. Fails when a block graph is called with two
/// different layouts.
MG_API MgStatus mg_program_fold_layouts(MgProgram *p, MgDiag *diag);
/// Declares f32 the reductions a 16-bit program leaves in 16 bits by
/// default (precision.c): block-level sums and accumulators, kernel-level
/// sums, and the kernel tensors custom kernels save them (or matmul
/// partials a later kernel adds up) into, with the block graphs reading
/// those. Graph outputs and types the program narrowed itself are kept.
/// NOMEM only.
MG_API MgStatus mg_program_widen_partials(MgProgram *p, MgDiag *diag);
/// imap[3] and fmap use tensor dims or MG_MAP_NONE.
MG_API MgTensorId mg_graph_iterator(MgProgram *p, MgGraphId g, MgTensorId a,
                                    const int8_t imap[3], int8_t fmap,
                                    MgDiag *diag);
MG_API MgTensorId mg_graph_accum(MgProgram *p, MgGraphId g, MgTensorId a,
                                 MgAccumKind acc, MgDiag *diag);
/// The online softmax accumulator (MG_ACCUM_ONLINE) of tile `x` and its max.
MG_API MgTensorId mg_graph_accum_online(MgProgram *p, MgGraphId g,
                                        MgTensorId x, MgTensorId max,
                                        MgDiag *diag);
MG_API MgTensorId mg_graph_saver(MgProgram *p, MgGraphId g, MgTensorId a,
                                 const int8_t omap[3], MgDiag *diag);
/// Graph-defined kernel running block graph `call.sub` on its inputs; its
/// outputs (one per block-graph output) are written to `outs`. Returns the
/// op id.
MG_API MgOpId mg_graph_custom(MgProgram *p, MgGraphId g, MgCall call,
                              MgTensorId *outs, MgDiag *diag);
/// Thread graph `call.sub` (element-wise only) applied inside a block graph.
MG_API MgOpId mg_graph_thread(MgProgram *p, MgGraphId g, MgCall call,
                              MgTensorId *outs, MgDiag *diag);
/// Sets the storage dtype of an op result (mixed precision as written in the
/// source, e.g. f16 operands with an f32 matmul result). Inputs keep theirs.
MG_API MgStatus mg_graph_set_dtype(MgProgram *p, MgGraphId g, MgTensorId t,
                                   MgDType dtype, MgDiag *diag);
/// Appends the ops of graph `sg` of `src` to graph `dg` of `dst` through
/// the builders, copying the graphs its custom and thread ops name. `map`
/// has one entry per tensor of the source graph: an input whose entry is
/// not MG_NO_ID is bound to that tensor of `dg` instead of becoming a new
/// input; on success every entry names the copy's tensor. Outputs are not
/// marked.
MG_API MgStatus mg_graph_append(MgProgram *dst, MgGraphId dg,
                                const MgProgram *src, MgGraphId sg,
                                MgTensorId *map, MgDiag *diag);
/// Adds a copy of `op`, an op of source graph `g` (its attr as the copy's:
/// a copied custom or thread op names its graph's copy), to graph `dg` of
/// `dst` through the builders, with its inputs read through `map`. Its
/// outputs go to `map` and keep the source's storage dtypes. The status of
/// the failing builder otherwise (see `diag`).
MG_API MgStatus mg_graph_copy_op(MgProgram *dst, MgGraphId dg,
                                 const MgGraph *g, const MgOp *op,
                                 MgTensorId *map, MgDiag *diag);
/// Copies graph `g` of `src` with its launch, outputs and the graphs it
/// names into `dst` as a new graph; its id, or MG_NO_ID (see `diag`).
MG_API MgGraphId mg_program_copy_graph(MgProgram *dst, const MgProgram *src,
                                       MgGraphId g, MgDiag *diag);
/// Appends `t` to the graph's outputs.
MG_API MgStatus mg_graph_mark_output(MgProgram *p, MgGraphId g, MgTensorId t,
                                     MgDiag *diag);

//===--- Whole-program rules ----------------------------------------------===//

/// Checks every invariant and limit: topological order, shapes, map
/// divisibility, in-loop/post-loop placement (every output is post-loop or
/// F = 1), shared-memory footprint, thread and grid limits for `target`
/// (NULL = default). The first violation is reported in `diag`.
MG_API MgStatus mg_program_validate(const MgProgram *program,
                                    const MgTarget *target, MgDiag *diag);
/// Shared memory a block graph needs: the bytes of all tiles it keeps
/// (iterators, block ops, accumulators; not DRAM inputs and saver results).
MG_API int64_t mg_graph_smem_bytes(const MgProgram *program, MgGraphId graph);
/// Number of elements of a tensor.
MG_API int64_t mg_tensor_numel(const MgTensor *t);
/// Same rank and dims (dtype ignored).
MG_API bool mg_graph_same_shape(const MgTensor *a, const MgTensor *b);
/// Same dtype, rank and dims.
MG_API bool mg_graph_same_type(const MgTensor *a, const MgTensor *b);
/// Bytes of a tensor in its own element type.
MG_API int64_t mg_tensor_bytes(const MgTensor *t);
/// True when the op in a block graph runs once per for-loop iteration
/// (reads an iterator, directly or not, and no accumulator).
MG_API bool mg_graph_op_in_loop(const MgProgram *p, MgGraphId g, MgOpId op);
/// mg_graph_op_in_loop for every op of block graph `gr` in one pass:
/// in_loop[i] for op i (num_ops entries). False on no memory.
MG_API bool mg_graph_ops_in_loop(const MgGraph *gr, bool *in_loop);
/// mg_graph_ops_in_loop into `small` (`n` entries) when the graph has no
/// more ops, else into a new malloc'd array; NULL on no memory. The caller
/// frees a result that is not `small`.
MG_API bool *mg_graph_loop_flags(const MgGraph *gr, bool *small, size_t n);

//===--- Pictures ---------------------------------------------------------===//

/// Appends `program` to `out` as a Graphviz digraph titled "@name" over
/// `caption` (both may be NULL; any bytes, escaped): the kernel graph, each
/// block graph as a cluster (grid, threads, for-loop range; iterators'
/// imap/fmap, savers' omap, accumulators; the loop body in a nested
/// cluster), thread graphs as clusters inside them, and every tensor's type
/// on its edges. Deterministic. Non-OK (INVALID for ids out of range, NOMEM)
/// with `diag` set; `out` then holds a partial picture.
MG_API MgStatus mg_program_write_dot(const MgProgram *program,
                                     const char *name, const char *caption,
                                     MgText *out, MgDiag *diag);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_GRAPH_H

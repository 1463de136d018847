//===- write.h - The op writers: element loops, ops, block bodies ---------===//
//
// What turns ops into MLIR text, from the bottom up: element loops and
// scalar helpers (elements.c), a layout undone by a view (layout.c), the
// view ops (views.c), online accumulators (online.c), tensor-core
// matmuls (mma.c), the GEMV forms (gemv*.c, fused.c; write/gemv.h), the
// op dispatcher with the reductions and tile copies (ops.c) and the block
// graph's body (block.c). Within this layer calls go block.c -> ops.c ->
// mma.c, online.c, views.c -> elements.c (gemv.c -> ... -> elements.c),
// never back; below it only decide/ and text/ (docs/lower.md, "Layers").
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_LOWER_WRITE_H
#define MIRAGE_LIB_LOWER_WRITE_H

#include "decide/decide.h"

//===--- Element loops (elements.c) and layouts (layout.c) ----------------===//

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
/// Operand indices of a result element: `a`'s index for result element
/// `idx` of rank `rank`, its size-1 dims reading 0 (right-aligned).
void mg_lower_broadcast(Emit *e, const MgTensor *a, Index idx, uint32_t rank,
                        Index out);
/// The input element of im2col `c` (over input shape `x`) for patch
/// element gmk = (g, m, k): `at` its position clamped into x, `inside`
/// (i1) whether it was inside (views.c).
void mg_lower_im2col_source(Emit *e, const MgIm2col *c, const MgTensor *x,
                            Name *gmk, Index at, Name inside);
/// out = inside ? element `at` of the NHWC memref `x` (elements `dt`) as
/// f32 : 0.
void mg_lower_im2col_value(Emit *e, const Memref *x, MgDType dt, Index at,
                           const char *inside, Name out);
/// A constant f32 `v`.
void mg_lower_f32_const(Emit *e, double v, Name out);
/// For an input with a layout: `val` of its stored type becomes a
/// memref.transpose view of the logical shape (strided); else unchanged.
void mg_lower_layout_view(Emit *e, const MgGraph *g, MgTensorId t, Name val,
                          char type[TYPE_LEN]);

//===--- Kernel-level view ops (views.c) ----------------------------------===//

/// `m`, a contiguous buffer of `from`'s shape, viewed as `to`'s shape
/// (same element count) in its place: memref.collapse_shape to one dim,
/// then memref.expand_shape.
void mg_lower_reshape_view(Emit *e, const MgTensor *from, const MgTensor *to,
                           Memref *m);
/// Tensor `t`'s memref (e->val[t], e->type[t]): read, and bound to `m`.
Memref mg_lower_tensor_memref(const Emit *e, MgTensorId t);
void mg_lower_bind_memref(Emit *e, MgTensorId t, const Memref *m);
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

//===--- Accumulators (online.c) and tensor cores (mma.c) -----------------===//

/// One iteration's update of a MAX or ONLINE accumulator.
void mg_lower_accum_online(Emit *e, const MgOp *op);
/// What a matmul does with each result element (`v`, f32, at `idx`): store
/// it, add it into an accumulator, run an element-wise chain on it.
typedef void (*FinishFn)(Emit *e, const void *ctx, Index idx, const char *v);
/// Writes matmul `op` on tensor cores (GPU: ldmatrix + mma.sync; CPU: the
/// warp's lanes emulated with the same fragment mapping) when
/// mg_lower_mma_plan holds, calling `finish` on each result element;
/// false (nothing written) otherwise.
bool mg_lower_matmul_mma(Emit *e, const MgOp *op, const void *dest,
                         FinishFn finish);

//===--- Op bodies (ops.c) and the GEMV (gemv.c) --------------------------===//

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
/// A matmul whose result only the sum accumulator `acc` reads: the dot
/// products are added to the accumulator directly, in f32.
void mg_lower_matmul_accum(Emit *e, const MgOp *mm, const MgOp *acc);
/// The same for a sum over a dim (ug.sum): each result, once reduced, is
/// added to `acc` by the thread that finishes it.
void mg_lower_reduce_accum(Emit *e, const MgOp *red, const MgOp *acc);
/// Copies iteration `iter`'s tile of iterator `op` into stage `stage` of its
/// staged buffer, or (`stage` NULL) into its tile (GPU: cp.async of 16
/// bytes per thread, not waited for; CPU: vectors).
void mg_lower_prefetch(Emit *e, const MgOp *op, const char *iter,
                       const char *stage);
/// Writes the GEMV kernel's body (GPU) or its CPU form; `part`, `ring`
/// and `stat` name the partial-sum buffer, B's cp.async ring and the fused
/// form's statistics (GPU: workgroup attributions of mg_lower_gemv_smem's,
/// mg_lower_gemv_ring's and mg_lower_gemv_stats' types; CPU: NULL,
/// allocated here). `op` is a kernel-level matmul or a ug.custom that is
/// a GEMV with row statistics and an epilogue (fused.c).
void mg_lower_gemv(Emit *e, const MgOp *op, const char *part,
                   const char *ring, const char *stat);

//===--- The block graph's body (block.c) --------------------------------===//

/// The block graph's body: accumulator zero fill, the for-loop, the rest;
/// `reg` is mg_lower_register_values' plan (the caller allocated tiles by
/// it).
void mg_lower_block_body(Emit *e, const bool *reg);
/// Names the block graph's kernel tensors after op's operands and results.
void mg_lower_bind_dram(Emit *e, const MgOp *op, Name *kval,
                        char (*ktype)[TYPE_LEN]);

#endif // MIRAGE_LIB_LOWER_WRITE_H

//===- lift_internal.h - Shared pieces of lib/lift (not exported) --------===//
//
// Lifting has four layers, one file group each:
//  - ir.c, classify.c, ptrmap.c: reading upstream IR (types, constants,
//    purity, what lifts) and a pointer-keyed hash map;
//  - val.c, alg.c: MgLiftVal, the image of an IR value in the kernel graph
//    being built (a μGraph tensor seen through a view, a splat scalar, or a
//    symbolic value such as sigmoid(x) that only a consumer can express),
//    and the algebra that emits μGraph ops for them;
//  - tosa.c, linalg.c, conv.c, translate.c: one translation per upstream
//    op (conv.c: convolutions and pooling as ug.im2col and a matmul);
//  - partition.c, chunk.c, sink.c, rewrite.c, unlift.c, mask.c,
//    mask_linalg.c, module.c: which ops form which subprogram, and the IR
//    surgery (mask.c, mask_linalg.c: a select on an i1 mask lifted as an
//    addition; sink.c: a convolution's epilogue moved before its views).
//
// Views. A μGraph has no reshape or transpose, so an IR value maps to a
// μGraph tensor `t` plus, for each dim of a "frame" (the IR value's own dims
// or a linalg iteration space), the dim of `t` it walks (`map`), or -1 when
// the frame dim has size 1. Invariant (kept by every constructor): a frame
// dim of size n > 1 maps to a dim of `t` of size n; each dim of `t` larger
// than 1 is mapped by exactly one frame dim. Reshapes that only insert or
// drop unit dims, and transposes, are then free: they change the map, not
// the tensor. A value is "exact" when its map is the identity on equal
// shapes: only exact values may enter or leave a kernel graph.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIFT_INTERNAL_H
#define MIRAGE_LIFT_INTERNAL_H

#include "mirage/bridge.h"
#include "mirage/lift.h"
#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>

/// Largest IR rank handled inside a subprogram (kernel graph inputs and
/// outputs are further limited to MG_MAX_DIMS).
#define MG_LIFT_MAX_RANK 8
#define MG_LIFT_WHY_SIZE 200

//===--- ir.c: reading upstream IR ----------------------------------------===//

/// A static, ranked tensor of f16/bf16/f32 with dims >= 1.
typedef struct MgLiftType {
  uint8_t dtype; // MgDType
  uint8_t rank;
  int64_t dims[MG_LIFT_MAX_RANK];
} MgLiftType;

bool mg_lift_op_has_prefix(MlirOperation op, const char *prefix);
/// True when `x` is `op` or nested inside it.
bool mg_lift_is_within(MlirOperation x, MlirOperation op);
MlirAttribute mg_lift_attr(MlirOperation op, const char *name);
/// Creates the op of `s` marked ug.boundary (a helper unlift drops).
MlirOperation mg_lift_boundary_op(MlirOperationState *s);
/// Reads a tensor type; on false `why` says what is unsupported.
bool mg_lift_read_type(MlirType type, MgLiftType *out, const char **why);
/// The size a `?` dim is lifted at (symbols.c): a prime no frontend uses as
/// a static dim, so the dims of that size are the dynamic ones.
#define MG_LIFT_SYM_SIZE 1009
#define MG_LIFT_SYM_SIZE_STR "1009"
/// `?` dims mg_lift_read_type has read on this thread: a builder that saw
/// its count move read one (symbols.c).
extern _Thread_local uint64_t mg_lift_dynamic_reads;
/// True for a ranked tensor type with a `?` dim.
bool mg_lift_type_is_dynamic(MlirType type);

/// True for f16/bf16/f32 scalar types; writes the dtype.
bool mg_lift_float_dtype(MlirType type, uint8_t *dtype);
/// `v` rounded to the precision of `dtype` (nearest even).
double mg_lift_round(double v, uint8_t dtype);
/// The largest finite value of `dtype` (65504 for f16).
double mg_lift_max_finite(uint8_t dtype);
/// Defining op of `v`, or a null op for block arguments.
MlirOperation mg_lift_def_op(MlirValue v);
/// Side-effect free ops of tosa/tensor/arith/math/linalg on tensors.
bool mg_lift_is_pure(MlirOperation op);
/// Pure, region-free (linalg.fill aside) ops computed from constants only:
/// constants, tensor.empty, fills, and pure ops of those. They are never
/// lifted: subprograms copy them into references and leave them in place.
bool mg_lift_is_floating(MlirOperation op);
/// True when `v` is a splat float constant (through floating ops); writes
/// its value rounded to its element type.
bool mg_lift_get_scalar(MlirValue v, double *out);
/// constant.c: the values of constant `v` in a new array the caller frees,
/// row-major: one for a splat (mg_lift_get_scalar), all elements of a dense
/// f16/bf16/f32 tosa.const or arith.constant, seen through reshapes and
/// casts. False otherwise, or on no memory (then *values is NULL).
bool mg_lift_read_constant(MlirValue v, double **values, int64_t *count);
/// True when `v` is (a cast/reshape of) tensor.empty.
bool mg_lift_is_empty(MlirValue v);
/// The ancestor of `op` (or `op` itself) whose block is `block`, or null.
MlirOperation mg_lift_ancestor_in(MlirOperation op, MlirBlock block);
/// Calls `fn` on every value used inside `op`'s regions but defined outside
/// `op` (captures). Stops and returns false when `fn` does.
bool mg_lift_for_each_capture(MlirOperation op,
                              bool (*fn)(MlirValue v, void *ud), void *ud);
/// True when the function name can be printed without quotes.
bool mg_lift_is_bare_identifier(const char *name);

//===--- Classification ---------------------------------------------------===//

typedef enum MgLiftClass {
  MG_LIFT_CLASS_COMPUTE,  // translated to μGraph ops
  MG_LIFT_CLASS_VIEW,     // reshape/transpose/cast: free (they change maps)
  MG_LIFT_CLASS_FLOATING, // constants and fills: copied, never lifted
  MG_LIFT_CLASS_PURE,     // other pure op: may sit inside a subprogram's span
  MG_LIFT_CLASS_OTHER,    // anything else: cuts
} MgLiftClass;

/// Classifies `op`; for PURE/OTHER (and for COMPUTE/VIEW rejected on types)
/// writes why it is not lifted into `why`.
MgLiftClass mg_lift_classify(MlirOperation op, const MgLiftOptions *opts,
                             char *why, size_t why_size);
/// The data operand of a VIEW op.
MlirValue mg_lift_view_source(MlirOperation op);

//===--- val.c / alg.c: values and the kernel graph under construction ----===//

typedef enum MgLiftKind {
  MG_LIFT_NONE,
  MG_LIFT_TENSOR,          // t seen through map
  MG_LIFT_SCALAR,          // a splat `scalar` (t = MG_NO_ID until needed)
  MG_LIFT_NEG,             // -t
  MG_LIFT_EXPNEG,          // exp(-t)
  MG_LIFT_ONE_PLUS_EXPNEG, // 1 + exp(-t)
  MG_LIFT_SIGMOID,         // 1 / (1 + exp(-t))
  MG_LIFT_RECIP,           // 1 / t
  MG_LIFT_PAD,             // a zero tensor.pad (`ir`) only a convolution
                           // reading it expresses, as im2col padding
} MgLiftKind;

typedef struct MgLiftVal {
  uint8_t kind;  // MgLiftKind
  uint8_t dtype; // element type of the IR value
  uint8_t rank;  // frame rank
  bool viewed;   // the IR value is a reshaped/transposed view of `t`
  int8_t map[MG_LIFT_MAX_RANK];
  int64_t dims[MG_LIFT_MAX_RANK];
  MgTensorId t;
  double scalar;
  MlirValue ir;         // SCALAR: IR value to pass in when a tensor is needed
  MlirOperation origin; // whom to blame if this value's layout is wrong
} MgLiftVal;

typedef enum MgLiftAlg {
  MG_LIFT_ALG_ADD,
  MG_LIFT_ALG_SUB,
  MG_LIFT_ALG_MUL,
  MG_LIFT_ALG_DIV,
  MG_LIFT_ALG_MAX,
  MG_LIFT_ALG_MIN, // -max(-x, -y): exact in floats, NaN wins as in max
  MG_LIFT_ALG_POW,
  MG_LIFT_ALG_EXP,
  MG_LIFT_ALG_SQRT,
  MG_LIFT_ALG_RSQRT,
  MG_LIFT_ALG_NEG,
  MG_LIFT_ALG_RECIP,
  MG_LIFT_ALG_SIGMOID,
  MG_LIFT_ALG_RELU,
  MG_LIFT_ALG_LOG,
  MG_LIFT_ALG_TANH,
  MG_LIFT_ALG_ERF,
  MG_LIFT_ALG_CAST, // same value, another element type
} MgLiftAlg;

/// Roles of iteration dims in a contraction.
typedef enum MgLiftDimRole {
  MG_LIFT_DIM_BATCH,
  MG_LIFT_DIM_M,
  MG_LIFT_DIM_N,
  MG_LIFT_DIM_K,
} MgLiftDimRole;

typedef struct MgLiftBuilder {
  const MgLiftOptions *opts;
  MgProgram *prog;
  MgPtrMap index; // MlirValue -> vals[]
  MgLiftVal *vals;
  uint32_t num_vals, cap_vals;
  MlirValue *inputs; // in input order; a value may appear twice (below)
  MgTensorId *input_ids;
  bool *input_reshaped; // the input's μGraph shape differs from its IR type
                        // by unit dims (the call reshapes, see rewrite.c)
  uint32_t num_inputs, cap_inputs;
  uint8_t *taint; // per tensor: derives from an exp result
  uint32_t cap_taint;
  uint32_t num_compute; // non-input ops emitted
  bool lax_break;       // an exp read an exp-derived value
  bool failed;
  MlirOperation current; // op being translated (default blame)
  MlirOperation blame;
  char why[MG_LIFT_WHY_SIZE];
  uint64_t dynamic_mark; // mg_lift_dynamic_reads when it was made
  MgTensorId *sink; // convolution outputs behind views (sink.c)
  uint32_t num_sink, cap_sink;
} MgLiftBuilder;

/// When the subprogram's inputs or `outputs` have `?` dims: rebuilds
/// b->prog with its stand-in-sized dims as symbol 1 (false + failure when
/// they are not one symbol throughout). Nothing to do for a static one.
bool mg_lift_symbolize(MgLiftBuilder *b, const MlirValue *outputs,
                       uint32_t num_outputs);
/// Fresh builder with an empty kernel graph; false on no memory.
bool mg_lift_builder_init(MgLiftBuilder *b, const MgLiftOptions *opts);
void mg_lift_builder_free(MgLiftBuilder *b);
/// Records a failure blamed on `op` (null: the current op); returns false.
bool mg_lift_fail(MgLiftBuilder *b, MlirOperation op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/// The image of `v`: a value computed earlier in this graph, a splat
/// constant, or (created on first use) a graph input.
bool mg_lift_get(MgLiftBuilder *b, MlirValue v, MgLiftVal *out);
/// Records the image of `v`.
bool mg_lift_set(MgLiftBuilder *b, MlirValue v, const MgLiftVal *val);
/// True when `v` already has an image computed in this graph.
bool mg_lift_has(const MgLiftBuilder *b, MlirValue v);
/// Graph input for IR value `v` (created once); MG_NO_ID + failure.
MgTensorId mg_lift_input(MgLiftBuilder *b, MlirValue v);
/// The input for `v` with μGraph shape `dims`, created on first use: its
/// IR shape with unit dims added or dropped (non-unit dims in order), then
/// read through layout `perm` (NULL: none; see mg_graph_set_input_perm).
MgTensorId mg_lift_input_shaped(MgLiftBuilder *b, MlirValue v, uint32_t rank,
                                const int64_t *dims, const int8_t *perm);
/// Turns `v` into a MG_LIFT_TENSOR, emitting what a symbolic value needs.
bool mg_lift_materialize(MgLiftBuilder *b, MgLiftVal *v);
/// A MG_LIFT_TENSOR for the whole of μGraph tensor `t` (exact view).
void mg_lift_val_exact(const MgLiftBuilder *b, MgTensorId t, uint8_t dtype,
                       MlirOperation origin, MgLiftVal *out);
/// True when `v` is a tensor whose map is the identity on equal shapes.
bool mg_lift_val_is_exact(const MgLiftBuilder *b, const MgLiftVal *v);
const MgTensor *mg_lift_tensor(const MgLiftBuilder *b, MgTensorId t);
/// Drops ops whose results reach no output. Inputs all stay, in order, but
/// an unused twin of a reshaped input. Needs inputs in position order.
bool mg_lift_prune(MgLiftBuilder *b);

/// twins.c: makes every IR value enter once (see the file comment): a value
/// read through several inputs enters at its IR type and each read is
/// rebuilt by view ops. Needs inputs in position order; false + failure on
/// an internal error.
bool mg_lift_merge_twins(MgLiftBuilder *b);
/// True when no two inputs are the same IR value (the kernel graph is a
/// function of distinct arguments, as its reference is).
bool mg_lift_inputs_distinct(const MgLiftBuilder *b);

/// True when an op of `kind` may store its result in another element type
/// than its operands' (binary ops, maxima, matmul, sum, reduce_max); unary
/// and scalar ops keep their operand's type (the dialect), views too.
bool mg_lift_kind_retypes(MgOpKind kind);
/// True when `t` may take another storage type now: its producer retypes
/// (mg_lift_kind_retypes), or is a chain of reshape and transpose views of
/// such a producer each read by the next alone and no graph output, and no
/// op of the graph reads `t` yet.
bool mg_lift_can_retype(const MgLiftBuilder *b, MgTensorId t);
/// Stores `t` (and the views on its chain, mg_lift_can_retype) in `dtype`;
/// false when it cannot.
bool mg_lift_retype(MgLiftBuilder *b, MgTensorId t, uint8_t dtype);

/// Emitters: add the op, set the result dtype (binary, matmul and sum only:
/// unary and scalar results keep their operand's, as the dialect requires),
/// track taint and counts.
MgTensorId mg_lift_emit_unary(MgLiftBuilder *b, MgOpKind kind, MgTensorId a,
                              uint8_t dtype);
MgTensorId mg_lift_emit_binary(MgLiftBuilder *b, MgOpKind kind, MgTensorId a,
                               MgTensorId c, uint8_t dtype);
MgTensorId mg_lift_emit_scalar(MgLiftBuilder *b, MgOpKind kind, MgTensorId a,
                               double s, uint8_t dtype);
MgTensorId mg_lift_emit_sum(MgLiftBuilder *b, MgTensorId a, int32_t dim,
                            uint8_t dtype);
/// SUM or REDUCE_MAX over `dim` (kept with size 1).
MgTensorId mg_lift_emit_reduce(MgLiftBuilder *b, MgOpKind kind, MgTensorId a,
                               int32_t dim, uint8_t dtype);
MgTensorId mg_lift_emit_matmul(MgLiftBuilder *b, MgTensorId a, MgTensorId c,
                               uint8_t dtype);
/// sink.c: records `t`, a convolution's result behind reshape / transpose
/// views of its matmul or reduction, for mg_lift_sink_views.
bool mg_lift_record_sink(MgLiftBuilder *b, MgTensorId t);
/// Moves the recorded views after the element-wise ops that read them
/// (then the search sees the matmul and its epilogue as one part). Needs
/// inputs in position order; false + failure on an internal error.
bool mg_lift_sink_views(MgLiftBuilder *b);
/// An im2col view op of `x` (not counted as compute).
MgTensorId mg_lift_emit_im2col(MgLiftBuilder *b, MgTensorId x,
                               const MgIm2col *c);

/// Re-expresses `v` (in its own frame) in a frame of `rank` dims `fdims`:
/// v's dim j walks frame dim phi[j] (-1: a constant index, only on size-1
/// dims). Dims of size 1 broadcast.
bool mg_lift_frame_in(MgLiftBuilder *b, const MgLiftVal *v, uint32_t rank,
                      const int64_t *fdims, const int8_t *phi, MgLiftVal *out);
/// Reads `v` (in a frame) as a value of `rank` dims `odims`, where output
/// dim k is frame dim psi[k] (-1: constant, size-1 only). Every varying
/// frame dim must be read.
bool mg_lift_frame_out(MgLiftBuilder *b, const MgLiftVal *v, uint32_t rank,
                       const int64_t *odims, const int8_t *psi, MgLiftVal *out);
/// A transpose view op (not counted as compute).
MgTensorId mg_lift_emit_transpose(MgLiftBuilder *b, MgTensorId a,
                                  const int8_t *perm);
/// Makes `v` an exact tensor of its frame (mg_lift_val_is_exact): a
/// transpose and/or reshape view op when its tensor is laid out otherwise.
/// Frame dims along which `v` is broadcast (map -1, size > 1) become unit
/// dims of the tensor and stay broadcast (then `v` is not exact).
bool mg_lift_realize(MgLiftBuilder *b, MgLiftVal *v);
/// `count` elements of frame dim `dim` from `first` (a slice view op).
bool mg_lift_view_slice(MgLiftBuilder *b, const MgLiftVal *v, uint32_t dim,
                        int64_t first, int64_t count, MgLiftVal *out);
/// `x` and `y` (same frame but along `dim`) concatenated along `dim`.
bool mg_lift_view_concat(MgLiftBuilder *b, const MgLiftVal *x,
                         const MgLiftVal *y, uint32_t dim, MgLiftVal *out);
/// Reshape to `dims`: free when only unit dims appear or disappear, else
/// the value realised in its frame and a reshape view op.
bool mg_lift_view_reshape(MgLiftBuilder *b, const MgLiftVal *v, uint32_t rank,
                          const int64_t *dims, MgLiftVal *out);
/// out dim i = v dim perm[i].
bool mg_lift_view_transpose(MgLiftBuilder *b, const MgLiftVal *v,
                            const int64_t *perm, MgLiftVal *out);
/// mg_lift_view_transpose by the permutation attribute `attr` of `op`, a
/// dense i64 array when `i64` (linalg.transpose's `permutation`), else i32
/// (tosa.transpose's `perms`); "missing" when it is not one of v's rank.
bool mg_lift_view_permute(MgLiftBuilder *b, MlirOperation op, const char *attr,
                          bool i64, const MgLiftVal *v, MgLiftVal *out);

/// Algebra in one frame (operands already in it); `dtype` is the IR result
/// element type.
/// translate.c: op's operands concatenated along `dim` in order (ug.concat
/// views), as op's result of element type `dtype` (tosa.concat,
/// tensor.concat).
bool mg_lift_concat_operands(MgLiftBuilder *b, MlirOperation op,
                             uint32_t dim, uint8_t dtype);
/// The constant `s` (rounded to `dtype`) in the frame of `shape`.
void mg_lift_alg_scalar(const MgLiftVal *shape, double s, uint8_t dtype,
                        MgLiftVal *out);
bool mg_lift_alg_binary(MgLiftBuilder *b, MgLiftAlg op, const MgLiftVal *x,
                        const MgLiftVal *y, uint8_t dtype, MgLiftVal *out);
bool mg_lift_alg_unary(MgLiftBuilder *b, MgLiftAlg op, const MgLiftVal *x,
                       uint8_t dtype, MgLiftVal *out);
/// Sums `x` over the frame dims flagged in `reduce`.
bool mg_lift_alg_reduce(MgLiftBuilder *b, const MgLiftVal *x,
                        const bool *reduce, uint8_t dtype, MgLiftVal *out);
/// The maximum of `x` over the frame dims flagged in `reduce`.
bool mg_lift_alg_reduce_max(MgLiftBuilder *b, const MgLiftVal *x,
                            const bool *reduce, uint8_t dtype, MgLiftVal *out);
/// Matmul of `x` and `y` over a frame whose dims have roles `roles`.
bool mg_lift_alg_contract(MgLiftBuilder *b, const MgLiftVal *x,
                          const MgLiftVal *y, const uint8_t *roles,
                          uint8_t dtype, MgLiftVal *out);

//===--- tosa.c / linalg.c / translate.c ----------------------------------===//

/// Translates one op (classified COMPUTE or VIEW) into the builder.
bool mg_lift_translate(MgLiftBuilder *b, MlirOperation op);
bool mg_lift_translate_tosa(MgLiftBuilder *b, MlirOperation op);
bool mg_lift_translate_linalg(MgLiftBuilder *b, MlirOperation op);
/// conv.c: convolutions, pooling (linalg named ops, TOSA) and tensor.pad,
/// which folds into a convolution's padding.
bool mg_lift_is_conv(MlirOperation op);
/// For mg_lift_is_conv ops: the number of leading operands that carry
/// tensor data (TOSA zero points and tensor.pad's sizes are not).
intptr_t mg_lift_conv_data_operands(MlirOperation op);
/// The operand of a linalg pooling op that only gives the window's shape
/// (its element type is not read), or -1.
int mg_lift_conv_window_operand(MlirOperation op);
bool mg_lift_translate_conv(MgLiftBuilder *b, MlirOperation op);
/// A linalg.generic broadcasting a bias into the init of linalg
/// convolutions (torch-mlir): 1 translated, 0 failed (recorded), -1 when
/// `op` is not one.
int mg_lift_translate_conv_init(MgLiftBuilder *b, MlirOperation op);
/// arith.c: 1 for an element-wise arith/math op on tensors that lifts
/// (compute), 2 for arith.extf/truncf on tensors (a cast view), else 0.
int mg_lift_arith_kind(MlirOperation op);
bool mg_lift_translate_arith(MgLiftBuilder *b, MlirOperation op);
/// tosa.c: a narrowing cast (tosa.cast, arith.truncf) that alone reads a
/// retypable op's wider result makes that op store the narrow type.
void mg_lift_narrow_result(MgLiftBuilder *b, MlirOperation cast, MgLiftVal *r,
                           uint8_t dtype);
/// Element type of result `i` of `op` (f16/bf16/f32), false otherwise.
bool mg_lift_result_type(MlirOperation op, intptr_t i, MgLiftType *out);
/// Stores the image of result 0 and sets its origin.
bool mg_lift_set_result(MgLiftBuilder *b, MlirOperation op, MgLiftVal *val);

//===--- partition.c / rewrite.c / module.c -------------------------------===//

/// One subprogram found in a block.
typedef struct MgLiftChunk {
  MlirBlock block;
  MlirOperation *members; // in block order
  uint32_t num_members;
  MlirOperation *stayed; // in-span ops left in place, in block order
  uint32_t num_stayed;
  MlirOperation *ref_ops; // what the reference copies (floating ops and
  int64_t *slots;         // members) in order, and where unlift puts each
  uint32_t num_ref_ops;   // (see rewrite.c)
  uint32_t num_clones;    // floating ops among ref_ops
  MlirValue *inputs;
  uint32_t num_inputs;
  MlirValue *outputs;
  uint32_t num_outputs;
  MgProgram *prog;  // the kernel graph (validated)
  uint32_t order;   // pre-order index of its first member in the function
  uint32_t compute; // μGraph ops
  char note[MG_LIFT_WHY_SIZE]; // why it starts where it starts ("" if natural)
  uint32_t index;              // k in @F_lax<k>
} MgLiftChunk;

/// A remark waiting to be emitted in op order.
typedef struct MgLiftNote {
  uint32_t order;
  MlirLocation loc;
  char text[MG_LIFT_WHY_SIZE + 96];
} MgLiftNote;

/// Per function: chunks and notes collected over all its blocks.
typedef struct MgLiftPlan {
  const MgLiftOptions *opts;
  MgPtrMap order; // op -> pre-order index in the function
  MgLiftChunk *chunks;
  uint32_t num_chunks, cap_chunks;
  MgLiftNote *notes;
  uint32_t num_notes, cap_notes;
  uint32_t ops_left;
  MgLiftStats *stats; // may be NULL
  MgStatus status; // NOMEM stops the function
} MgLiftPlan;

/// Finds the subprograms of `block` (not its nested blocks) and appends them
/// and the remarks to `plan`.
void mg_lift_plan_block(MgLiftPlan *plan, MlirBlock block);
void mg_lift_chunk_free(MgLiftChunk *c);
void mg_lift_plan_note(MgLiftPlan *plan, MlirOperation op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/// Rewrites the function for `chunk` (reference, kernel graph, call) in
/// `module` (the two new functions enter its symbol table). `name` is the
/// kernel graph's symbol, `after` the module-level op after which the new
/// functions go (updated). `call` receives the new func.call.
MgStatus mg_lift_rewrite_chunk(MgBridgeModule module, MlirOperation *after,
                               const char *name, MgLiftChunk *chunk,
                               MlirOperation *call, MgDiag *diag);

//===--- mask.c, mask_linalg.c: selects on i1 masks as additions ---------===//

/// A finite select fill at or below this is a mask's "large negative"
/// (-1e4, -65504, -1e9, finfo.min): x + fill stands for fill.
#define MG_LIFT_MASK_FILL (-1.0e4)

/// Inserts `first` then `second` before `at` in `block` (at its end when
/// `at` is null): where a mask's stand-in and its operand go.
void mg_lift_place_before(MlirBlock block, MlirOperation at,
                          MlirOperation first, MlirOperation second);

/// True when `op` is not null and carries ug.boundary (rewrite.c).
bool mg_lift_is_boundary(MlirOperation op);
/// Why `mask` cannot select as an additive mask, or NULL when it can: an
/// i1 tensor computed from integer values only (a constant, an argument,
/// comparisons of position ids), so its ops stay outside the kernel graph.
const char *mg_lift_mask_why(MlirValue mask);
/// Operand index of the i1 mask `op` selects on, read from `op` alone: 0
/// for tosa.select, for a linalg.generic the input whose body argument's
/// one use is an arith.select's condition; -1 otherwise. Its type is not
/// a float tensor's, and classification skips it.
int mg_lift_mask_operand(MlirOperation op);
/// Operand index (1 or 2) of the fill of a masked select that lifts as an
/// addition: tosa.select's splat operand, or the constant side of a
/// linalg.generic's body select (not ug.boundary ops, masks that pass
/// mg_lift_mask_why); -1 otherwise.
int mg_lift_select_fill(MlirOperation sel);
/// The masked op (tosa.select, linalg.generic) whose additive mask is
/// input `i` of `c`, or null.
MlirOperation mg_lift_select_input(const MgLiftChunk *c, uint32_t i);
/// The type the caller computes the additive mask of `sel` in, for the
/// kernel input type `input`: `input` for a tosa.select, the mask's shape
/// with input's element type for a generic (boundary reshapes between).
MlirType mg_lift_mask_type(MlirOperation sel, MlirType input);
/// Inserts before `at` (appends when null) the ops computing the additive
/// mask of `sel` as a value of `type` (mg_lift_mask_type); null on
/// failure.
MlirValue mg_lift_mask_make(MlirBlock block, MlirOperation at,
                            MlirOperation sel, MlirType type,
                            MlirLocation loc);
/// The reference's stand-in for `sel` (not inserted): `tosa.add x, a`
/// marked ug.boundary for a tosa.select, a copy of a generic reading `a`
/// (mask_linalg.c). `operands` are sel's operands mapped into the
/// reference (null where unmapped; the mask's slot is ignored). Null on
/// failure.
MlirOperation mg_lift_mask_stand_in(MlirOperation sel,
                                    const MlirValue *operands, MlirValue a);
/// Unlift: what `copy` (of a reference op, operands mapped into the
/// caller) stands for: a new select (the caller destroys `copy`), `copy`
/// itself restored in place (a generic), or null when it is no stand-in.
MlirOperation mg_lift_mask_restore(MlirOperation copy);

/// mask_linalg.c: the arith.select of generic `op` whose condition is
/// input *k's body argument (mg_lift_mask_operand), or null.
MlirOperation mg_lift_generic_select(MlirOperation op, int *k);
/// mg_lift_select_fill for a linalg.generic.
int mg_lift_generic_fill(MlirOperation op);
MlirValue mg_lift_generic_mask_make(MlirBlock block, MlirOperation at,
                                    MlirOperation gen, MlirType type,
                                    MlirLocation loc);
MlirOperation mg_lift_generic_stand_in(MlirOperation gen,
                                       const MlirValue *operands,
                                       MlirValue a);
MlirOperation mg_lift_generic_restore(MlirOperation copy);

/// Walks the ops nested in `op`'s regions and sets operands found in `map`
/// (keys: MlirValue.ptr, vals: index into `to`) to the mapped value. False
/// when a nested op still reads a value defined outside `op`.
bool mg_lift_remap_nested(MlirOperation op, const MgPtrMap *map,
                          const MlirValue *to);

/// Two ops compute the same value: name, attributes, result types, operands
/// (after mapping `op_a`'s operands through map/to).
bool mg_lift_ops_identical(MlirOperation a, MlirOperation b,
                           const MgPtrMap *map, const MlirValue *to);

#endif // MIRAGE_LIFT_INTERNAL_H

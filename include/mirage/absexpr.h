//===- absexpr.h - Abstract expressions and subexpression pruning -*- C -*-===//
//
// Every tensor of a μGraph has an abstract expression: a term over the
// program's input symbols that forgets shapes and indices (matmul with
// contraction k -> sum(k, mul(a, b)); element-wise ops -> their symbol;
// sum over a dim of size n -> sum(n, a); accumulators -> sum(F, ...)).
// The search keeps a candidate op only if its expression is a subexpression
// of a target output's expression modulo the axioms of docs/absexpr.md
// (commutativity/associativity of + and ·, distributivity, division rules,
// sums over sums/products/quotients, sum(j·k, x) = sum(j, sum(k, x)),
// and the same two for max(n, x)). Expressions are taken modulo which max
// is subtracted (the "shift erasure": x - max(...) is shift(x) for every
// max, and rescale factors exp(m - M) are 1), so a numerically stable
// softmax, its FlashAttention and its split-KV forms share their terms;
// docs/absexpr.md says why this is a sound pruning abstraction.
//
// The target's output expressions are put into an e-graph that is saturated
// once (bounded by MgAbsOptions); afterwards a candidate check is a hash
// lookup of (op, param, child classes) plus a membership test in the set of
// classes reachable from the outputs. Lookups never insert, so a saturated
// MgAbsGraph is read-only and can be shared by search threads.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ABSEXPR_H
#define MIRAGE_ABSEXPR_H

#include "mirage/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/// An e-class id of a saturated e-graph; MG_ABS_NONE when a term is absent.
typedef uint32_t MgAbsId;
#define MG_ABS_NONE UINT32_MAX

/// Term constructors. ORDER MG_ABS.
typedef enum MgAbsOp {
  MG_ABS_INPUT, // param: input position
  MG_ABS_CONST, // param: bits of a double (scalars, -1 for subtraction)
  MG_ABS_ADD,   // a + b
  MG_ABS_MUL,   // a · b (square x is mul(x, x); sub a-b is add(a, mul(-1, b)))
  MG_ABS_DIV,   // a / b (div_scalar s is div(a, const s))
  MG_ABS_EXP,
  MG_ABS_SQRT,  // non-LAX functions are plain uninterpreted symbols
  MG_ABS_RSQRT,
  MG_ABS_SILU,
  MG_ABS_GELU,
  MG_ABS_RELU,
  MG_ABS_LOG,
  MG_ABS_TANH,
  MG_ABS_ERF,
  MG_ABS_SUM,   // param: number of summed terms n >= 1; child a
  MG_ABS_CONCAT,// concat of two different expressions: an uninterpreted
                // symbol (the concat of x with x is x itself)
  MG_ABS_MAX,   // param: number of maxed terms n >= 1; child a (max(1, a) = a)
  MG_ABS_MAXIMUM,// element-wise max of two different expressions a, b
                 // (commutative; maximum(x, x) is x)
  MG_ABS_SHIFT, // a minus some max of it: what x - max(x) erases to (which
                // max is forgotten; softmax does not depend on it)
  MG_ABS_COUNT
} MgAbsOp;

typedef struct MgAbsOptions {
  uint32_t max_nodes;      // stop saturating beyond this many e-nodes
                           // (created ones; the target's own always fit)
  uint32_t max_iterations; // ... or after this many rule passes
} MgAbsOptions;

/// max_nodes 200000, max_iterations 32.
MG_API MgAbsOptions mg_absexpr_options_default(void);

typedef struct MgAbsGraph MgAbsGraph;

typedef struct MgAbsStats {
  uint32_t nodes, classes, iterations; // distinct e-nodes, e-classes, rounds
  bool saturated; // false when a bound stopped it (pruning may then reject
                  // a candidate that a full saturation would keep)
} MgAbsStats;

/// Builds and saturates the e-graph of the outputs of `target`'s root graph
/// (any level of nesting: custom kernels are expanded). The caller must
/// mg_absexpr_destroy it. NULL with `diag` on failure.
MG_API MgAbsGraph *mg_absexpr_create(const MgProgram *target,
                                     const MgAbsOptions *options,
                                     MgDiag *diag);
MG_API void mg_absexpr_destroy(MgAbsGraph *graph);
MG_API MgAbsStats mg_absexpr_stats(const MgAbsGraph *graph);

/// The class of the term op(param; a, b) if the e-graph has it, else
/// MG_ABS_NONE (also when a child is MG_ABS_NONE). Unused children are
/// MG_ABS_NONE. sum(1, a) and max(1, a) are a, maximum(a, a) is a.
/// Read-only, thread-safe, no allocation.
MG_API MgAbsId mg_absexpr_lookup(const MgAbsGraph *graph, MgAbsOp op,
                                 int64_t param, MgAbsId a, MgAbsId b);
/// True when `id` is a subexpression of some target output.
MG_API bool mg_absexpr_is_subexpr(const MgAbsGraph *graph, MgAbsId id);
/// True when class `id` holds a max (a reduce_max, running max or
/// element-wise maximum): what `sub` treats as "some max" (shift erasure).
MG_API bool mg_absexpr_is_max(const MgAbsGraph *graph, MgAbsId id);
/// The class of target output `index` (for final checks).
MG_API MgAbsId mg_absexpr_output(const MgAbsGraph *graph, uint32_t index);

/// The class an op would get before it is built (lookup only): for
/// single-output ops without a body (matmul, element-wise, scalar, sum,
/// reduce_max, accum). `in0` is the type of its first operand, `a`/`b` its
/// operands' classes (the online accumulator's max is `b`), `forloop` the
/// block graph's F. MG_ABS_NONE for other kinds.
MG_API MgAbsId mg_absexpr_of_proto(const MgAbsGraph *graph, const MgOp *op,
                                   const MgTensor *in0, MgAbsId a, MgAbsId b,
                                   int32_t forloop);
/// Expression classes of op `op`'s outputs in graph `g` of `program`, given
/// the classes of every tensor of that graph read so far (`tensor_ids`,
/// indexed by tensor id). For MG_OP_CUSTOM the block graph is expanded with
/// its inputs bound to the op's inputs (MG_OP_THREAD likewise). In a block
/// or thread graph the INPUT tensors must carry the classes they are bound
/// to (an INPUT op there just returns its own entry). Writes MG_ABS_NONE for
/// outputs whose term is not in the e-graph. Returns the number of outputs
/// written (0 when `g` or `op` is out of range). Read-only and thread-safe;
/// allocates only to expand a body of more than 256 tensors.
MG_API uint32_t mg_absexpr_of_op(const MgAbsGraph *graph,
                                 const MgProgram *program, MgGraphId g,
                                 MgOpId op, const MgAbsId *tensor_ids,
                                 MgAbsId *out_ids);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_ABSEXPR_H

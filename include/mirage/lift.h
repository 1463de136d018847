//===- lift.h - TOSA / linalg-on-tensors -> μGraph kernel graphs -*- C -*-===//
//
// Lifting turns the tensor ops of each func.func into kernel graphs without
// ever breaking the module. For subprogram k of function @F it adds
//   func.func private @F_lax<k>(...) attributes {ug.level = "kernel",
//                                               ug.reference = @F_lax<k>_ref}
//   func.func private @F_lax<k>_ref(...)   // the original ops, copied
// with the same function type, and replaces the original ops in @F by
//   %r = func.call @F_lax<k>(%inputs...)
// Unlifting inlines the reference at every such call and removes the pair,
// so lift followed by unlift prints the input again. See docs/lift.md.
//
// lib/lift is the only reader of upstream (TOSA, linalg, tensor, arith,
// math) IR. It never prints: remarks go through a callback.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIFT_H
#define MIRAGE_LIFT_H

#include "mirage/graph.h"
#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Default bound on the μGraph ops of one lifted kernel graph: the largest of
/// the paper's six benchmarks (QKNorm attention) lifts to 15 ops and the
/// paper optimises each benchmark as one program, so 16 keeps all of them
/// whole while bounding the search.
#define MG_LIFT_DEFAULT_MAX_OPS 16

/// Receives one remark: where, and a NUL-terminated message.
typedef void (*MgLiftRemarkFn)(void *user_data, MlirLocation loc,
                               const char *message);

typedef struct MgLiftOptions {
  uint32_t max_ops;      // most μGraph ops per kernel graph (>= 1)
  bool lift_relu;        // lift relu-shaped clamp/maximum as ug.relu
  MgLiftRemarkFn remark; // NULL: no remarks
  void *remark_data;
} MgLiftOptions;

/// max_ops MG_LIFT_DEFAULT_MAX_OPS, lift_relu true, no remarks.
MG_API MgLiftOptions mg_lift_options_default(void);

#define MG_LIFT_MAX_REASONS 48

/// Why ops were left in place: the op name and the reason with numbers
/// replaced by N (not those glued to a word: f32 stays), so that cuts of
/// one kind count together.
typedef struct MgLiftReason {
  char text[224];
  uint32_t count;
} MgLiftReason;

typedef struct MgLiftStats {
  uint32_t functions;   // functions looked at
  uint32_t subprograms; // kernel graphs created
  uint32_t ops_lifted;  // original ops moved into references
  uint32_t ops_left;    // tensor ops left in place (cut)
  uint32_t ugraph_ops;  // μGraph ops in the kernel graphs created
  uint32_t num_reasons; // distinct entries of `reasons`, most frequent first
  MgLiftReason reasons[MG_LIFT_MAX_REASONS];
  uint32_t other_reasons; // ops left whose reason did not fit the table
} MgLiftStats;

/// Adds one op left in place to `stats` ("'tosa.slice': why...").
MG_API void mg_lift_stats_count(MgLiftStats *stats, const char *op_name,
                                const char *why);

/// Lifts every func.func of `module` (a builtin.module) that is neither a
/// μGraph function nor a reference. Unsupported input is left unchanged
/// (remarks say why). Returns OK, or a failure with `diag` when the module
/// could not be rewritten consistently (an internal error; the module is then
/// left as it was for the function concerned). `stats` may be NULL.
MG_API MgStatus mg_lift_module(MlirOperation module,
                               const MgLiftOptions *options, MgLiftStats *stats,
                               MgDiag *diag);

/// A constant that a function lifted whole reads as a tensor (a splat a
/// binary op needs as an operand, a dense weight or mask).
typedef struct MgLiftConstant {
  MlirOperation op; // the op that defines it (for diagnostics)
  double *values;   // row-major over its IR shape, or one value for a splat
  int64_t count;    // entries of `values`: 1 or the element count
} MgLiftConstant;

/// One function lifted whole, as a single kernel graph, for comparisons
/// (mirage-check-equiv), not for rewriting: the IR is left as it is.
typedef struct MgLiftFunction {
  MgProgram *program; // inputs: every argument at its IR type, in order,
                      // then one per constant of `constants`, in order
  uint32_t num_args;
  MgLiftConstant *constants;
  uint32_t num_constants;
  MlirOperation blame; // on failure: the op that prevents it (or the func)
} MgLiftFunction;

/// Lifts the body of `func` (a func.func on tensors, one block) into one
/// kernel graph whose outputs are the operands of its func.return, without
/// partitioning it. INVALID when some op cannot be lifted in context:
/// `out->blame` is the first such op in op order and `diag` says why (a
/// sentence completing "'<op>' is not liftable: "). Ops whose results are
/// never used are ignored. On success the caller frees `out` with
/// mg_lift_function_free; on failure there is nothing to free.
MG_API MgStatus mg_lift_function(MlirOperation func,
                                 const MgLiftOptions *options,
                                 MgLiftFunction *out, MgDiag *diag);
/// Frees the program and the constants of `f` (a zeroed `f` is fine).
MG_API void mg_lift_function_free(MgLiftFunction *f);

/// Which kernel graphs (the callee funcs) mg_lift_unlift_module restores.
typedef bool (*MgUnliftFilter)(MlirOperation kernel, void *user_data);

/// Inlines the reference of every call to a kernel graph that carries
/// `ug.reference` and that `filter` accepts (NULL: every one), then erases
/// kernel graphs and references left unused. `inlined` (may be NULL)
/// receives the number of calls replaced.
MG_API MgStatus mg_lift_unlift_module(MlirOperation module,
                                      MgUnliftFilter filter, void *user_data,
                                      uint32_t *inlined, MgDiag *diag);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_LIFT_H

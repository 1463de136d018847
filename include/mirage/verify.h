//===- verify.h - Probabilistic equivalence over finite fields -*- C -*-===//
//
// Two programs are compared on random inputs drawn from Z_p × Z_q (p = 2q+1,
// both prime, p near 2^31 and drawn per test from a set of about 400,000
// such fields so that constants cannot collide by design; exp(x) =
// g^(x mod q) in Z_p with g of order q).
// Non-LAX element-wise ops are uninterpreted functions: per test a fresh
// random function, the same in both programs. See docs/verification.md for
// the bound and what it guarantees.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_VERIFY_H
#define MIRAGE_VERIFY_H

#include "mirage/interp.h"

#ifdef __cplusplus
extern "C" {
#endif

/// An input that both programs read as a known constant instead of a
/// random draw (a function's weights, a softmax's shift): without it, a
/// constant read as a tensor would be a free variable, and programs equal
/// only at its value would be told apart.
typedef struct MgVerifyConstant {
  uint32_t input;       // position in both programs
  const double *values; // finite; row-major over the input's shape
  int64_t count;        // the input's element count, or 1 for a splat
} MgVerifyConstant;

typedef struct MgVerifyOptions {
  double target_error; // stop once the false-acceptance bound is below this
  uint64_t seed;       // all randomness derives from it
  uint32_t max_tests;  // give up (verdict UNKNOWN) after this many tests
  uint32_t threads;    // tests run at once (0, 1: one after the other);
                       // the result does not depend on it
  uint64_t memory_limit; // bytes: fewer threads when one test's values
                         // (every root tensor of both programs) times the
                         // threads would exceed it; 0: no bound
  const MgVerifyConstant *constants; // fixed inputs (borrowed; NULL: none)
  uint32_t num_constants;
} MgVerifyOptions;

/// target_error 2^-40, seed 1, max_tests 64, threads 1, no memory limit,
/// no constants.
MG_API MgVerifyOptions mg_verify_options_default(void);

/// A seed from the OS's random generator: the bound is a probability over
/// the seed, so programs someone could have crafted against known fields
/// (a cache entry, a file to compare) are checked with a fresh one.
MG_API uint64_t mg_verify_fresh_seed(void);

typedef enum MgVerdict {
  MG_VERDICT_EQUIVALENT,    // all tests agreed and the bound is met
  MG_VERDICT_NOT_EQUIVALENT,// a test found a differing output element
  MG_VERDICT_UNKNOWN,       // bound not reached within max_tests
  MG_VERDICT_COUNT
} MgVerdict;

typedef struct MgVerifyResult {
  MgVerdict verdict;
  double error_bound;     // probability of false acceptance achieved
  double log2_bound;      // log2(error_bound), finite even when tiny
  uint32_t tests;         // tests run
  uint32_t redraws;       // tests voided by a zero divisor residue
  uint32_t output;        // NOT_EQUIVALENT: first differing output
  int64_t index;          // ... and its first differing element (row-major)
  uint64_t value_a, value_b; // ... the residues there (p component)
  uint64_t seed;          // the seed the tests were drawn from
  double constants_bound; // per test: the part of the bound from the
                          // constants (a prime dividing an integer they
                          // make); 0 when they make none above 29 bits
} MgVerifyResult;

/// Compares the root graphs of `a` and `b` (same input and output shapes).
/// Deterministic for a given seed. INVALID when shapes do not match, a
/// program leaves the supported fragment (e.g. exp of exp), or a constant
/// is out of range, of the wrong size or not finite.
MG_API MgStatus mg_verify_equivalent(const MgProgram *a, const MgProgram *b,
                                     const MgVerifyOptions *options,
                                     MgVerifyResult *result, MgDiag *diag);

/// Per-test false-acceptance bound for comparing `a` with `b` (from the
/// degrees of both programs; see docs/verification.md).
MG_API double mg_verify_test_bound(const MgProgram *a, const MgProgram *b);

/// A cheap hash of the program's outputs on one fixed finite-field input
/// (fixed seed): equivalent programs have equal fingerprints.
MG_API MgStatus mg_verify_fingerprint(const MgProgram *program,
                                      uint64_t *fingerprint, MgDiag *diag);

/// Numerical stability of exp (docs/verification.md, Stability). The field
/// test cannot see it: exp(x)/Σexp(x) and exp(x − m)/Σexp(x − m) are equal
/// polynomials. An exp is *guarded* when its argument is proven ≤ 0 by an
/// abstract domain of upper bounds: x − m where m is a max of x over the
/// dims m is broadcast along (reduce_max, element-wise maximum with such a
/// max), scaled by non-negative constants or added to other such values;
/// the online accumulator's own rescales are guarded by construction.
typedef struct MgStability {
  uint32_t exps;      // exp ops in all graphs
  uint32_t unguarded; // ... whose argument is not proven <= 0
  int32_t graph, op;  // the first unguarded exp, -1 when none
} MgStability;

MG_API MgStatus mg_verify_stability(const MgProgram *program,
                                    MgStability *out, MgDiag *diag);
/// True when `candidate` keeps `original`'s guards: if every exp of the
/// original is guarded, every exp of the candidate must be. An original
/// with an unguarded exp is unstable already and constrains nothing.
MG_API bool mg_verify_keeps_stability(const MgStability *original,
                                      const MgStability *candidate);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_VERIFY_H

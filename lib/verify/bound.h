//===- bound.h - Degree analysis behind the per-test error bound -*- C -*-===//
//
// A forward pass over a program that gives, for every tensor, a conservative
// description of one element as a rational function of the random inputs
// (see docs/verification.md for the rules and the argument):
//  - numerator and denominator degree of the p component, where every exp
//    result and every uninterpreted-function result counts as a fresh
//    degree-1 variable (an "atom");
//  - whether the q component is live (else ⊥: the value went through exp);
//    when live, its degrees equal the p component's, since the two
//    components then follow the same operations;
//  - how many distinct atoms the element depends on, and how many of them
//    change along each dim (so that a sum over a dim multiplies only those);
//  - heights: bounds on the integers the constants make (the L1 norm and
//    the power of two of the numerator's and denominator's coefficients),
//    which bound how many of the verifier's primes can divide them.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_VERIFY_BOUND_H
#define MIRAGE_LIB_VERIFY_BOUND_H

#include "mirage/graph.h"
#include "mirage/verify.h"

/// A polynomial's coefficients lie in 2^lo·Z and their absolute values sum
/// to at most 2^h, so each is 2^lo times an integer of at most h - lo bits.
typedef struct MgHeight {
  double h, lo;
} MgHeight;

/// What the bound needs from one program.
typedef struct MgVerifyDegrees {
  uint64_t degree;     // max over output elements: numerator + denominator
  uint64_t atoms;      // max over output elements: atoms in its cone
  uint64_t arg_degree; // max over atoms: numerator + denominator of the arg
  uint64_t arg_atoms;  // max over atoms: atoms in the argument's cone
  uint8_t pos, neg;    // atom kinds with positive / negative exponents at
                       // the outputs and in atom arguments (Laurent mode)
  double zero_mass;    // Σ over divisions: bound on P(divisor residue = 0)
  MgHeight num, den;   // at the outputs (max h, min lo over them)
  MgHeight arg_num, arg_den; // over atom and max arguments
  double div_kills;    // Σ over division elements and runs: how many of the
                       // set's primes can make the divisor vanish identically
} MgVerifyDegrees;

/// What the per-test bound is made of (mg_verify_bound_parts).
typedef struct MgVerifyBound {
  double eps;       // the per-test bound, in (0, 1]
  double constants; // its part from the constants: the chance that the
                    // test's prime divides an integer they make
} MgVerifyBound;

/// Runs the analysis; INVALID (with the op) when an exp reads a value whose
/// q component is ⊥ (two exps on one path: outside LAX). With `laurent`,
/// divisions by pure atoms count as negative exponents, not denominators.
/// Fixed inputs (`consts`, may be NULL) get the heights of their values.
MgStatus mg_verify_degrees(const MgProgram *program, bool laurent,
                           const MgVerifyConstant *consts, uint32_t num_consts,
                           MgVerifyDegrees *out, MgDiag *diag);

/// The per-test false-acceptance bound for two analysed programs.
MgVerifyBound mg_verify_bound_from(const MgVerifyDegrees *a,
                                   const MgVerifyDegrees *b);

/// The per-test bound for comparing `a` with `b` (fixed inputs `consts`):
/// Laurent mode when no atom kind appears with both signs, all
/// denominators cleared otherwise.
MgStatus mg_verify_pair_bound(const MgProgram *a, const MgProgram *b,
                              const MgVerifyConstant *consts,
                              uint32_t num_consts, MgVerifyBound *bound,
                              MgDiag *diag);

#endif // MIRAGE_LIB_VERIFY_BOUND_H

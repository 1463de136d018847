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
//    change along each dim (so that a sum over a dim multiplies only those).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_VERIFY_BOUND_H
#define MIRAGE_LIB_VERIFY_BOUND_H

#include "mirage/graph.h"

/// What the bound needs from one program.
typedef struct MgVerifyDegrees {
  uint64_t degree;     // max over output elements: numerator + denominator
  uint64_t atoms;      // max over output elements: atoms in its cone
  uint64_t arg_degree; // max over atoms: numerator + denominator of the arg
  uint64_t arg_atoms;  // max over atoms: atoms in the argument's cone
  uint8_t pos, neg;    // atom kinds with positive / negative exponents at
                       // the outputs and in atom arguments (Laurent mode)
  double zero_mass;    // Σ over divisions: bound on P(divisor residue = 0)
} MgVerifyDegrees;

/// Runs the analysis; INVALID (with the op) when an exp reads a value whose
/// q component is ⊥ (two exps on one path: outside LAX). With `laurent`,
/// divisions by pure atoms count as negative exponents, not denominators.
MgStatus mg_verify_degrees(const MgProgram *program, bool laurent,
                           MgVerifyDegrees *out, MgDiag *diag);

/// The per-test false-acceptance bound for two analysed programs, in (0, 1].
double mg_verify_bound_from(const MgVerifyDegrees *a,
                            const MgVerifyDegrees *b);

/// The per-test bound for comparing `a` with `b`: Laurent mode when no atom
/// kind appears with both signs, all denominators cleared otherwise.
MgStatus mg_verify_pair_bound(const MgProgram *a, const MgProgram *b,
                              double *eps, MgDiag *diag);

#endif // MIRAGE_LIB_VERIFY_BOUND_H

//===- equiv_inputs.h - One input list for two compared programs ---------===//
//
// The verifier pairs inputs by position. Two functions lifted whole share
// their arguments but each reads its own constants, so both programs are
// copied onto one list: the arguments, then every distinct constant of
// either side, each program ignoring the other's. A μGraph function
// compared with a lifted one may read an argument through a layout
// (ug.transpose): its argument is the stored array, which is what the
// lifted function's argument is, so the copy takes the stored array and
// transposes it inside instead.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_PASSES_EQUIV_INPUTS_H
#define MIRAGE_PASSES_EQUIV_INPUTS_H

#include "mirage/lift.h"
#include "mirage/verify.h"

/// One side of a comparison: `program`'s first `num_args` inputs are the
/// function's arguments, input num_args + i holds constants[i].
typedef struct MgEquivSide {
  const MgProgram *program;
  uint32_t num_args;
  bool undo_layouts; // arguments enter as stored (see above)
  const MgLiftConstant *constants;
  uint32_t num_constants;
} MgEquivSide;

/// The merged pair. `fixed` lists the constants the verifier fixes (values
/// borrowed from the sides); a constant with a non-finite element has no
/// image in the field and stays a random input, one per distinct value, so
/// equal masks in both functions are the same unknown (`symbols` of them).
typedef struct MgEquivInputs {
  MgProgram *a, *b;
  MgVerifyConstant *fixed;
  uint32_t num_fixed;
  uint32_t symbols;
} MgEquivInputs;

/// Builds `out` from the two sides (same argument count); equal constants
/// (element type, shape and values) share one input. NOMEM, or INVALID with
/// `diag` when a copy fails (a bug).
MgStatus mg_pass_equiv_merge(const MgEquivSide *a, const MgEquivSide *b,
                             MgEquivInputs *out, MgDiag *diag);
/// Frees what mg_pass_equiv_merge made (a zeroed `in` is fine).
void mg_pass_equiv_free(MgEquivInputs *in);

#endif // MIRAGE_PASSES_EQUIV_INPUTS_H

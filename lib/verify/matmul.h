//===- matmul.h - The finite-field domain's matmul -------------*- C -*-===//
//
// Internal to lib/verify: domain.c's matmul entry, and the two helpers of
// domain.c it shares. mg_ff_matmul_on takes a given path, so that the unit
// test can hold each vector path to the portable one.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_VERIFY_MATMUL_H
#define MIRAGE_LIB_VERIFY_MATMUL_H

#include "mirage/ff_domain.h"

/// c = a·b over both fields (⊥ rows of a and columns of b make ⊥ q
/// components), on the fastest path this CPU has.
MgStatus mg_ff_matmul(MgFfContext *ctx, const MgCell *a, const MgCell *b,
                      MgCell *c, MgMatmulShape shape);
/// The lanes of the widest vector path this CPU has: 8 (AVX-512), 4 (AVX2)
/// or 0 (the portable path only).
int mg_ff_matmul_widest(void);
/// The same as mg_ff_matmul on the path of `width` lanes (0: portable);
/// UNSUPPORTED (fault recorded) for a path this CPU or build lacks.
MgStatus mg_ff_matmul_on(MgFfContext *ctx, const MgCell *a, const MgCell *b,
                         MgCell *c, MgMatmulShape shape, int width);

/// Records `fault` in ctx and returns the status it maps to (domain.c).
MgStatus mg_ff_fail(MgFfContext *ctx, MgFfFault fault);
/// Adds `work` cells to ctx's count; true once its deadline has passed.
bool mg_ff_past_deadline(MgFfContext *ctx, uint64_t work);

#endif

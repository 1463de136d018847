//===- roles.c - Dimension roles: which dims may meet which ---------------===//
//
// A role names what a dim indexes (rows of X, the contraction k, the KV
// length, ...). The target's roles come from unifying dims through its ops
// (goal.c); a candidate op keeps the roles of its operands and must not
// combine different ones: matmul contracts equal roles, element-wise ops
// align equal roles (or broadcast a size-1 dim, role ROLE_ONE), a sum turns
// its dim into ROLE_ONE. Shapes alone cannot say this: a tile of 128 rows of
// k and one of 128 columns of n have the same size.
//
// For-loop rule: an accumulator adds tiles of different iterations
// element-wise. If a dim of the loop role survived into the sum, chunk i of
// that dim would be added to chunk j: a meaningless mix, rejected. The one
// exception is a split role split(a, b) (per-block partials of role b laid
// side by side by a previous kernel's grid role a): looping over it and
// accumulating folds the partials, leaving role b.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <string.h>

#define SPLIT_SHIFT 12u
#define SPLIT_MASK 0xFFFu

MgRole mg_role_split(MgRole axis, MgRole tile) {
  if (axis == ROLE_NONE || tile == ROLE_NONE || role_is_split(axis) ||
      role_is_split(tile) || axis > ROLE_MAX_TARGET || tile > ROLE_MAX_TARGET)
    return ROLE_NONE;
  return ROLE_SPLIT_BIT | (axis << SPLIT_SHIFT) | tile;
}

MgRole mg_role_split_tile(MgRole r) { return r & SPLIT_MASK; }

MgRole mg_role_split_axis(MgRole r) {
  return (r & ~ROLE_SPLIT_BIT) >> SPLIT_SHIFT;
}

// Role of a dim after it is summed over the for-loop (accumulated):
// ROLE_NONE when that mixes chunks.
static MgRole fold(MgRole r, MgRole loop) {
  if (loop == ROLE_NONE || r != loop)
    return r;
  return role_is_split(r) ? mg_role_split_tile(r) : ROLE_NONE;
}

// Element-wise alignment of two roles.
static MgRole align(MgRole a, MgRole b) {
  if (a == ROLE_ONE)
    return b;
  if (b == ROLE_ONE || a == b)
    return a;
  return ROLE_NONE;
}

bool mg_role_summable(const uint8_t *reduced, MgRole r) {
  if (!reduced)
    return true;
  if (r == ROLE_NONE || r == ROLE_ONE)
    return false;
  if (role_is_split(r)) // summing partials of size-1 tiles sums the axis
    return mg_role_split_tile(r) == ROLE_ONE &&
           reduced[mg_role_split_axis(r)];
  return r <= ROLE_MAX_TARGET && reduced[r];
}

// The loop role may fold (accumulate) over: a reduced role, or partials
// laid out by a previous kernel along a reduced grid role.
bool mg_role_foldable(const uint8_t *reduced, MgRole r) {
  if (!reduced || r == ROLE_NONE)
    return true;
  if (role_is_split(r))
    return reduced[mg_role_split_axis(r)];
  return r <= ROLE_MAX_TARGET && reduced[r];
}

bool mg_roles_of_op(const uint8_t *reduced, const MgOp *op, const Operands *x,
                    MgRole loop, bool check, MgRole *out) {
  const MgTensor *a = x->a.t, *b = x->b.t;
  const MgRole *ra = x->a.role, *rb = x->b.role;
  uint32_t rank = a->rank;
  for (uint32_t d = 0; d < MG_MAX_DIMS; d++)
    out[d] = d < rank ? ra[d] : ROLE_ONE;
  switch ((MgOpKind)op->kind) {
  case MG_OP_ADD: case MG_OP_SUB: case MG_OP_MUL: case MG_OP_DIV:
  case MG_OP_MAX:
    if (!b || b->rank != rank)
      return !check;
    for (uint32_t d = 0; d < rank; d++) {
      MgRole r = align(ra[d], rb[d]);
      if (r == ROLE_NONE) {
        if (check)
          return false;
        r = ra[d];
      }
      out[d] = r;
    }
    return true;
  case MG_OP_MATMUL: {
    if (!b || b->rank != rank || rank < 2)
      return !check;
    bool ok = true;
    for (uint32_t d = 0; d + 2 < rank; d++) {
      MgRole r = align(ra[d], rb[d]);
      ok &= r != ROLE_NONE;
      out[d] = r == ROLE_NONE ? ra[d] : r;
    }
    ok &= ra[rank - 1] == rb[rank - 2];
    ok &= ra[rank - 1] == ROLE_ONE || mg_role_summable(reduced,
                                                       ra[rank - 1]);
    out[rank - 2] = ra[rank - 2];
    out[rank - 1] = rb[rank - 1];
    return ok || !check;
  }
  case MG_OP_SUM: case MG_OP_REDUCE_MAX: {
    int32_t d = op->attr;
    if (d < 0 || (uint32_t)d >= rank)
      return !check;
    bool ok = mg_role_summable(reduced, ra[d]); // (not a size-1 dim)
    out[d] = ROLE_ONE;
    return ok || !check;
  }
  case MG_OP_ACCUM: {
    bool ok = true;
    bool last_sum = op->acc == MG_ACCUM_SUM_LAST ||
                    op->acc == MG_ACCUM_SUM_SQ_LAST;
    if (loop == ROLE_NONE && !last_sum)
      ok = false; // F = 1: a plain accumulator copies its input
    ok &= mg_role_foldable(reduced, loop);
    for (uint32_t d = 0; d < rank; d++) {
      if (last_sum && d + 1 == rank) {
        ok &= mg_role_summable(reduced, ra[d]);
        out[d] = ROLE_ONE;
        continue;
      }
      MgRole r = fold(ra[d], loop);
      ok &= r != ROLE_NONE;
      out[d] = r == ROLE_NONE ? ra[d] : r;
    }
    return ok || !check;
  }
  case MG_OP_TRANSPOSE: // result dim d is operand dim perm[d]
    for (uint32_t d = 0; d < rank; d++)
      out[d] = op->perm[d] >= 0 && (uint32_t)op->perm[d] < rank
                   ? ra[op->perm[d]] : ROLE_NONE;
    return true;
  case MG_OP_RESHAPE: case MG_OP_SLICE:
    // The search builds no views (views.c splits targets at them), so no
    // candidate should hold one: its changed dims get no role.
    for (int32_t d = 0; d < MG_MAX_DIMS; d++)
      if (op->kind == MG_OP_RESHAPE)
        out[d] = d < op->attr ? ROLE_NONE : ROLE_ONE;
      else if (d == op->attr)
        out[d] = ROLE_NONE;
    return !check;
  case MG_OP_IM2COL: // never in a candidate either (views.c)
    for (int32_t d = 0; d < MG_MAX_DIMS; d++)
      out[d] = d < 3 ? ROLE_NONE : ROLE_ONE;
    return !check;
  default: // unary, scalar, iterator, concat: roles pass through
    return true;
  }
}

//===- monomials.c - Monomial supports: which sums are meaningful ---------===//
//
// Abstract expressions forget indices, so their axioms let any factor out
// of a sum: Σk(X·W) = (Σk X)·W. That makes Σk X (a row sum of X) a
// "subexpression" of X·W, and Σl E·r (r a row rms of V) "equal" to r·Σl E.
// This file adds the missing index sense, cheaply.
//
// The support of a value is the set of monomials of it seen as a
// polynomial in variables ("slots"): the program inputs, the atoms (an exp
// or non-LAX function of a given argument class: the target's) and the
// inverses of the target's divisors (a division by a class the target
// divides by multiplies by that slot). Each slot varies along known roles
// (the dims of the target tensor it stands for). Atoms and divisors the
// target does not have count as constants.
//
// Reduction rule: a sum over role R (sum op, matmul contraction,
// accumulator) of a summand with support S is kept only if the target sums
// over R a summand with the same support, after dropping from both the
// slots that do not vary along R (a factor independent of R may sit inside
// or outside the sum). Σk X ({X}) is dropped for RMSNorm, whose sums over k
// are {X·X} and {X·W} (the rms divisor does not vary along k), while
// Σk X·X, Σk X·W and their tiled, accumulated forms are kept; QKNorm's
// Σl E·r_V is dropped (r_V varies along l), Σl E·(V/r_V) kept. Rewrites
// that keep the polynomial (distributing, moving R-independent factors,
// splitting sums into partials) keep the projected supports, so the known
// fused forms pass. A support larger than SUP_MAX monomials or with a
// degree above 15 becomes `top`, which every rule accepts.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <string.h>

#define DEG_BITS 4u
#define DEG_MAX 15u

// The slot of (kind, cls), or -1.
static int32_t slot_of(const Search *s, uint8_t kind, MgAbsId cls) {
  for (uint32_t i = 0; i < s->facts.num_slots; i++)
    if (s->facts.slots[i].kind == kind && s->facts.slots[i].cls == cls)
      return (int32_t)i;
  return -1;
}

static void single(Support *out, int32_t slot) {
  memset(out, 0, sizeof *out);
  out->n = 1;
  out->m[0] = slot < 0 ? 0 : (uint64_t)1 << (DEG_BITS * (uint32_t)slot);
}

void mg_sup_input(const Search *s, uint32_t position, Support *out) {
  single(out, slot_of(s, MG_OP_INPUT, position));
}

void mg_sup_one(Support *s) {
  memset(s, 0, sizeof *s);
  s->n = 1;
  s->m[0] = 0;
}

static void insert(Support *s, uint64_t mono) {
  if (s->top)
    return;
  uint32_t i = 0;
  while (i < s->n && s->m[i] < mono)
    i++;
  if (i < s->n && s->m[i] == mono)
    return;
  if (s->n == SUP_MAX) {
    s->top = true;
    return;
  }
  memmove(&s->m[i + 1], &s->m[i], (s->n - i) * sizeof s->m[0]);
  s->m[i] = mono;
  s->n++;
}

void mg_sup_union(const Support *a, const Support *b, Support *out) {
  Support r = *a;
  if (b->top)
    r.top = true;
  for (uint32_t i = 0; i < b->n && !r.top; i++)
    insert(&r, b->m[i]);
  if (r.top)
    r.n = 0;
  *out = r;
}

// Degree-wise sum of two monomials; false on overflow.
static bool mono_mul(uint64_t x, uint64_t y, uint64_t *out) {
  uint64_t r = 0;
  for (uint32_t k = 0; k < 64 / DEG_BITS; k++) {
    uint64_t dx = (x >> (DEG_BITS * k)) & DEG_MAX;
    uint64_t dy = (y >> (DEG_BITS * k)) & DEG_MAX;
    if (dx + dy > DEG_MAX)
      return false;
    r |= (dx + dy) << (DEG_BITS * k);
  }
  *out = r;
  return true;
}

void mg_sup_product(const Support *a, const Support *b, Support *out) {
  Support r;
  memset(&r, 0, sizeof r);
  r.top = a->top || b->top;
  for (uint32_t i = 0; i < a->n && !r.top; i++)
    for (uint32_t j = 0; j < b->n && !r.top; j++) {
      uint64_t m;
      if (!mono_mul(a->m[i], b->m[j], &m))
        r.top = true;
      else
        insert(&r, m);
    }
  if (r.top)
    r.n = 0;
  *out = r;
}

bool mg_sup_equal(const Support *a, const Support *b) {
  if (a->top || b->top)
    return a->top == b->top;
  return a->n == b->n && memcmp(a->m, b->m, a->n * sizeof a->m[0]) == 0;
}

void mg_sup_of_op(const Search *s, const MgOp *op, const Operands *ops,
                  Support *out) {
  const MgAbsId ca = ops->a.cls, cb = ops->b.cls;
  const Support *a = ops->a.sup, *b = ops->b.sup;
  Support x;
  if (mg_search_budgeted((MgOpKind)op->kind)) { // exp and the opaque ones
    single(out, ca == MG_ABS_NONE ? -1 : slot_of(s, op->kind, ca));
    return;
  }
  switch ((MgOpKind)op->kind) {
  case MG_OP_MATMUL: case MG_OP_MUL:
    mg_sup_product(a, b, out);
    return;
  case MG_OP_ADD: case MG_OP_SUB: case MG_OP_MAX:
    mg_sup_union(a, b, out);
    return;
  case MG_OP_SQUARE:
    mg_sup_product(a, a, out);
    return;
  case MG_OP_MAX_SCALAR: case MG_OP_MIN_SCALAR: // x or the constant
  case MG_OP_ADD_SCALAR: // x plus the constant
    mg_sup_one(&x);
    mg_sup_union(a, &x, out);
    return;
  case MG_OP_ACCUM:
    if (op->acc == MG_ACCUM_SUM_SQ_LAST)
      mg_sup_product(a, a, out);
    else
      *out = *a;
    return;
  case MG_OP_DIV:
    single(&x, cb == MG_ABS_NONE ? -1 : slot_of(s, MG_OP_DIV, cb));
    mg_sup_product(a, &x, out);
    return;
  default: // scalars, sum, iterator, saver, concat
    *out = *a;
    return;
  }
}

// Keeps only the slots that vary along `role` (an axis role for a split).
static void project(const Search *s, MgRole role, const Support *in,
                    Support *out) {
  if (role_is_split(role))
    role = mg_role_split_axis(role);
  uint64_t mask = 0;
  for (uint32_t i = 0; i < s->facts.num_slots; i++)
    for (uint32_t d = 0; d < s->facts.slots[i].rank; d++)
      if (s->facts.slots[i].role[d] == role)
        mask |= (uint64_t)DEG_MAX << (DEG_BITS * i);
  memset(out, 0, sizeof *out);
  out->top = in->top;
  for (uint32_t i = 0; i < in->n && !out->top; i++)
    insert(out, in->m[i] & mask);
}

// Does the target sum over `role` a summand of projected support `p`?
static bool has_reduction(const Search *s, MgRole role, const Support *p) {
  for (uint32_t i = 0; i < s->facts.num_reductions; i++)
    if (s->facts.reductions[i].role == role &&
        (s->facts.reductions[i].sup.top ||
         mg_sup_equal(&s->facts.reductions[i].sup, p)))
      return true;
  return false;
}

void mg_search_add_reduction(Search *s, MgRole role, const Support *summand) {
  Support p;
  project(s, role, summand, &p);
  if (has_reduction(s, role, &p))
    return;
  uint32_t cap = sizeof s->facts.reductions / sizeof s->facts.reductions[0];
  if (s->facts.num_reductions == cap) { // full: accept any summand over `role`
    memset(&p, 0, sizeof p);
    p.top = true;
    s->facts.num_reductions--;
  }
  s->facts.reductions[s->facts.num_reductions].role = role;
  s->facts.reductions[s->facts.num_reductions++].sup = p;
}

bool mg_search_reduction_ok(const Search *s, MgRole role,
                            const Support *summand) {
  if (summand->top || !s->opt.use_dims)
    return true;
  if (role_is_split(role))
    role = mg_role_split_axis(role);
  Support p;
  project(s, role, summand, &p);
  return has_reduction(s, role, &p);
}

bool mg_search_op_reductions_ok(const Search *s, const MgOp *op,
                                const Operands *x, MgRole loop) {
  const MgTensor *a = x->a.t;
  const MgRole *ra = x->a.role;
  const Support *sa = x->a.sup, *sb = x->b.sup;
  // (sum, matmul and accumulators need no operand classes)
  Support sum;
  switch ((MgOpKind)op->kind) {
  case MG_OP_SUM:
    if (op->attr < 0 || op->attr >= a->rank)
      return true;
    return mg_search_reduction_ok(s, ra[op->attr], sa);
  case MG_OP_MATMUL:
    if (a->rank < 2 || ra[a->rank - 1] == ROLE_ONE)
      return true;
    mg_sup_product(sa, sb, &sum);
    return mg_search_reduction_ok(s, ra[a->rank - 1], &sum);
  case MG_OP_ACCUM: {
    mg_sup_of_op(s, op,
                 &(Operands){{NULL, NULL, MG_ABS_NONE, sa},
                             {NULL, NULL, MG_ABS_NONE, sb}},
                 &sum);
    if (op->acc == MG_ACCUM_MAX)
      return true; // not a sum
    bool last = op->acc == MG_ACCUM_SUM_LAST ||
                op->acc == MG_ACCUM_SUM_SQ_LAST;
    if (last && a->rank && ra[a->rank - 1] != ROLE_ONE &&
        !mg_search_reduction_ok(s, ra[a->rank - 1], &sum))
      return false;
    // Accumulating over the iterations sums over the loop's role; when
    // the last-dim sum already ran over that role, it is the same sum.
    if (loop != ROLE_NONE && !(last && a->rank && ra[a->rank - 1] == loop))
      return mg_search_reduction_ok(s, loop, &sum);
    return true;
  }
  default:
    return true;
  }
}

uint32_t mg_sup_slots(const Support *sup) {
  uint32_t bits = 0;
  for (uint32_t i = 0; i < sup->n; i++)
    for (uint32_t k = 0; k < SUP_SLOTS; k++)
      if ((sup->m[i] >> (DEG_BITS * k)) & DEG_MAX)
        bits |= 1u << k;
  return bits;
}

bool mg_search_goal_reachable(const Search *s, const BlockSig *sig,
                              const Goal *goal) {
  if (!goal->exact)
    return true;
  uint32_t have = 0, want = 0;
  for (uint32_t i = 0; i < sig->n; i++) {
    if (sig->info[i].sup.top)
      return true;
    have |= mg_sup_slots(&sig->info[i].sup);
  }
  for (uint32_t k = 0; k < goal->n; k++) {
    if (goal->sup[k].top)
      return true;
    want |= mg_sup_slots(&goal->sup[k]);
  }
  // Atoms and divisors can be made from what their arguments need.
  for (bool grew = true; grew;) {
    grew = false;
    for (uint32_t j = 0; j < s->facts.num_slots; j++)
      if (!(have & (1u << j)) && s->facts.slots[j].kind != MG_OP_INPUT &&
          (s->facts.slots[j].needs & ~have) == 0) {
        have |= 1u << j;
        grew = true;
      }
  }
  return (want & ~have) == 0;
}

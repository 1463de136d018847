//===- alg.c - The algebra that turns tensor expressions into μGraph ops
//---===//
//
// Operands arrive in one frame (see mg_lift_internal.h). Constants fold (in the
// IR element type), splat operands become mul_scalar/div_scalar, and the
// forms the μGraph lacks are kept symbolic until a consumer can express
// them: -x, exp(-x), 1 + exp(-x), sigmoid(x) and 1/x. So
//   x * sigmoid(x), x / (1 + exp(-x))  -> silu(x)
//   a * reciprocal(b)                  -> a / b
//   pow(x, 2), x * x                   -> square(x)
//   pow(x, 0.5), pow(x, -0.5)          -> sqrt(x), rsqrt(x)
//   max(x, 0)                          -> relu(x)
//   max(x, y), max over a dim          -> ug.maximum, ug.reduce_max
//   max(x, c), min(x, c), c a constant -> ug.max_scalar, ug.min_scalar
//   min(x, y)                          -> -ug.maximum(-x, -y), via max
// and a symbolic value nobody consumes that way is reported (and cut).
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <math.h>
#include <string.h>

// Whom to blame when operands do not line up: an operand that is a view
// (cutting the view op makes it an exact graph input), else the op itself.
static bool is_transposed(const MgLiftVal *v) {
  int last = -1;
  for (uint32_t i = 0; i < v->rank; ++i)
    if (v->map[i] >= 0) {
      if (v->map[i] < last)
        return true;
      last = v->map[i];
    }
  return false;
}

static MlirOperation blame_of(const MgLiftBuilder *b, const MgLiftVal *v) {
  return v->viewed && !mlirOperationIsNull(v->origin) ? v->origin : b->current;
}

static MlirOperation layout_blame(const MgLiftBuilder *b, const MgLiftVal *x,
                                  const MgLiftVal *y) {
  if (x->viewed && is_transposed(x))
    return blame_of(b, x);
  if (y->viewed && is_transposed(y))
    return blame_of(b, y);
  return x->viewed ? blame_of(b, x) : blame_of(b, y);
}

static bool is_tensorish(const MgLiftVal *v) {
  return v->kind != MG_LIFT_SCALAR && v->kind != MG_LIFT_NONE;
}

// Same tensor walked the same way: the two operands are one value.
static bool same_value(const MgLiftVal *a, const MgLiftVal *b) {
  if (a->t == MG_NO_ID || a->t != b->t || a->rank != b->rank)
    return false;
  return !memcmp(a->map, b->map, a->rank);
}

static bool is_const(const MgLiftVal *v, double value) {
  return v->kind == MG_LIFT_SCALAR && v->scalar == value;
}

static void make_scalar(const MgLiftVal *shape, double s, uint8_t dtype,
                        MgLiftVal *out) {
  *out = *shape;
  out->kind = MG_LIFT_SCALAR;
  out->scalar = mg_lift_round(s, dtype);
  out->dtype = dtype;
  out->t = MG_NO_ID;
  out->ir = (MlirValue){NULL};
  for (uint32_t d = 0; d < MG_LIFT_MAX_RANK; ++d)
    out->map[d] = -1;
}

void mg_lift_alg_scalar(const MgLiftVal *shape, double s, uint8_t dtype,
                        MgLiftVal *out) {
  make_scalar(shape, s, dtype, out);
}

// A value of kind `kind` over the tensor of `base`.
static void make_kind(const MgLiftVal *base, MgLiftKind kind, uint8_t dtype,
                      MlirOperation origin, MgLiftVal *out) {
  *out = *base;
  out->kind = (uint8_t)kind;
  out->dtype = dtype;
  out->origin = origin;
}

// A pending value of `kind` over `x` materialized as a tensor first.
static bool wrap_kind(MgLiftBuilder *b, const MgLiftVal *x, MgLiftKind kind,
                      uint8_t dtype, MlirOperation origin, MgLiftVal *out) {
  MgLiftVal a = *x;
  if (!mg_lift_materialize(b, &a))
    return false;
  make_kind(&a, kind, dtype, origin, out);
  return true;
}

static bool tensor_result(MgLiftBuilder *b, const MgLiftVal *shape,
                          MgTensorId t, uint8_t dtype, MgLiftVal *out) {
  if (t == MG_NO_ID)
    return false;
  *out = *shape;
  out->kind = MG_LIFT_TENSOR;
  out->t = t;
  out->dtype = dtype;
  out->ir = (MlirValue){NULL};
  out->origin = b->current;
  return true;
}

// Unary and scalar ops store their result in their operand's type, so
// they must see the type the IR computes in. A cast view in front of one
// (statistics of f16 data in f32, or an exp after a narrowing cast) would
// change the precision written: the cast is blamed, and once cut its
// result is a graph input of the right type. (x * x, the usual reason to
// widen, is a binary op and may change types: see MG_LIFT_ALG_MUL.)
static bool keeps_precision(MgLiftBuilder *b, const MgLiftVal *a,
                            uint8_t dtype) {
  uint8_t have = mg_lift_tensor(b, a->t)->dtype;
  if (have == dtype)
    return true;
  return mg_lift_fail(
      b, mlirOperationIsNull(a->origin) ? b->current : a->origin,
      "an element-wise op would compute in %s what is written "
      "in %s (the μGraph's unary ops keep their operand's type)",
      mg_dtype_name((MgDType)have), mg_dtype_name((MgDType)dtype));
}

// x * x: ug.square, or ug.mul when the square is written in another type.
static bool square_of(MgLiftBuilder *b, const MgLiftVal *x, uint8_t dtype,
                      MgLiftVal *out) {
  MgLiftVal a = *x;
  if (!mg_lift_materialize(b, &a))
    return false;
  if (mg_lift_tensor(b, a.t)->dtype == dtype)
    return tensor_result(b, &a, mg_lift_emit_unary(b, MG_OP_SQUARE, a.t, dtype),
                         dtype, out);
  return tensor_result(
      b, &a, mg_lift_emit_binary(b, MG_OP_MUL, a.t, a.t, dtype), dtype, out);
}

static bool unary_tensor(MgLiftBuilder *b, MgOpKind kind, const MgLiftVal *x,
                         uint8_t dtype, MgLiftVal *out) {
  MgLiftVal a = *x;
  if (!mg_lift_materialize(b, &a) || !keeps_precision(b, &a, dtype))
    return false;
  return tensor_result(b, &a, mg_lift_emit_unary(b, kind, a.t, dtype), dtype,
                       out);
}

static bool scalar_tensor(MgLiftBuilder *b, MgOpKind kind, const MgLiftVal *x,
                          double s, uint8_t dtype, MgLiftVal *out) {
  MgLiftVal a = *x;
  if (!mg_lift_materialize(b, &a) || !keeps_precision(b, &a, dtype))
    return false;
  if (kind == MG_OP_DIV_SCALAR && s == 0.0)
    return mg_lift_fail(b, (MlirOperation){NULL},
                        "division by a zero constant");
  return tensor_result(b, &a, mg_lift_emit_scalar(b, kind, a.t, s, dtype),
                       dtype, out);
}

// A scalar operand must not widen the result: every dim of the frame that
// the splat has but the tensor does not vary along would be a broadcast.
static bool scalar_fits(MgLiftBuilder *b, const MgLiftVal *tensor,
                        const MgLiftVal *scalar) {
  if (mlirValueIsNull(scalar->ir))
    return true;
  for (uint32_t i = 0; i < tensor->rank; ++i)
    if (scalar->map[i] >= 0 && tensor->map[i] < 0)
      return mg_lift_fail(b, (MlirOperation){NULL},
                          "a splat constant widens the result along dim %u", i);
  return true;
}

// Re-roots `v`, a value read from a kernel input, on another input for the
// same IR value whose μGraph tensor has rank `rank`, frame dim i landing on
// dim want[i] (< 0: none): the IR shape with unit dims added or dropped,
// non-unit dims in their order, so the call only reshapes (rewrite.c).
// This is how a rank-1 bias meets a rank-3 activation, or a 2-D weight a
// rank-3 matmul. False (no failure recorded) when `v` does not fit.
static bool reroot_input(MgLiftBuilder *b, MgLiftVal *v, uint32_t rank,
                         const int *want) {
  uint32_t k = 0; // which input `v` reads (none: a computed value)
  while (k < b->num_inputs && b->input_ids[k] != v->t)
    ++k;
  if (rank > MG_MAX_DIMS || k == b->num_inputs)
    return false;
  const MgTensor *t = mg_lift_tensor(b, v->t);
  int64_t dims[MG_MAX_DIMS];
  int src_of[MG_MAX_DIMS];
  for (uint32_t p = 0; p < rank; ++p)
    dims[p] = 1, src_of[p] = -1;
  bool covered[MG_MAX_DIMS] = {false};
  for (uint32_t i = 0; i < v->rank; ++i) {
    int q = v->map[i];
    if (q < 0)
      continue;
    int p = want[i];
    if (p < 0 && t->dims[q] == 1)
      continue; // a unit dim the other rank has no place for: dropped
    if (p < 0 || (uint32_t)p >= rank || src_of[p] >= 0)
      return false;
    dims[p] = t->dims[q];
    src_of[p] = q;
    covered[q] = true;
  }
  // All non-unit dims are read. In another order than stored (x·Wᵀ reads
  // nn.Linear's W), the input gets a layout: the positions of the non-unit
  // dims, taken in order, hold them in stored order.
  for (uint32_t q = 0; q < t->rank; ++q)
    if (t->dims[q] > 1 && !covered[q])
      return false;
  int8_t perm[MG_MAX_DIMS];
  uint32_t pos[MG_MAX_DIMS], n_pos = 0;
  for (uint32_t p = 0; p < rank; ++p) {
    perm[p] = (int8_t)p;
    if (src_of[p] >= 0 && dims[p] > 1)
      pos[n_pos++] = p;
  }
  // order[j]: the position of the j-th non-unit dim in stored order.
  uint32_t order[MG_MAX_DIMS];
  memcpy(order, pos, n_pos * sizeof *pos);
  for (uint32_t j = 1; j < n_pos; ++j)
    for (uint32_t i = j; i > 0 && src_of[order[i - 1]] > src_of[order[i]]; --i) {
      uint32_t x = order[i];
      order[i] = order[i - 1];
      order[i - 1] = x;
    }
  bool moved = false;
  for (uint32_t j = 0; j < n_pos; ++j) {
    perm[order[j]] = (int8_t)pos[j];
    moved |= order[j] != pos[j];
  }
  MgTensorId n = mg_lift_input_shaped(b, b->inputs[k], rank, dims,
                                      moved ? perm : NULL);
  if (n == MG_NO_ID)
    return false;
  v->t = n;
  for (uint32_t i = 0; i < v->rank; ++i)
    v->map[i] = (int8_t)(v->map[i] >= 0 ? want[i] : -1);
  return true;
}

// Why `a` and `c` cannot meet position by position (NULL: they can); the
// result's map goes to `r`.
static const char *misaligned(MgLiftBuilder *b, const MgLiftVal *a,
                              const MgLiftVal *c, MgLiftVal *r) {
  const MgTensor *ta = mg_lift_tensor(b, a->t), *tc = mg_lift_tensor(b, c->t);
  if (ta->rank != tc->rank)
    return "operands have different μGraph ranks (the μGraph broadcasts "
           "only between equal ranks)";
  *r = *a;
  bool taken[MG_MAX_DIMS] = {false};
  for (uint32_t i = 0; i < a->rank; ++i) {
    int pa = a->map[i], pc = c->map[i];
    if (pa >= 0 && pc >= 0 && pa != pc)
      return "operands are laid out differently (a transposed or reshaped "
             "view meets another layout)";
    int p = pa >= 0 ? pa : pc;
    r->map[i] = (int8_t)p;
    if (p < 0)
      continue;
    if ((pa < 0 && ta->dims[p] != 1) || (pc < 0 && tc->dims[p] != 1) ||
        taken[p])
      return "the broadcast does not line up with the μGraph tensors' dims";
    taken[p] = true;
  }
  return NULL;
}

static bool is_input(MgLiftBuilder *b, MgTensorId t) {
  const MgGraph *g = &b->prog->graphs[0];
  return g->ops[g->tensors[t].producer].kind == MG_OP_INPUT;
}

// A lower-rank input takes the other operand's layout.
static void reroot_lower(MgLiftBuilder *b, MgLiftVal *a, MgLiftVal *c) {
  const MgTensor *ta = mg_lift_tensor(b, a->t), *tc = mg_lift_tensor(b, c->t);
  if (ta->rank == tc->rank)
    return;
  MgLiftVal *lo = ta->rank < tc->rank ? a : c;
  const MgLiftVal *hi = lo == a ? c : a;
  int want[MG_LIFT_MAX_RANK];
  for (uint32_t i = 0; i < lo->rank; ++i)
    want[i] = hi->map[i];
  reroot_input(b, lo, mg_lift_tensor(b, hi->t)->rank, want);
}

// Both operands as tensors, aligned position by position. Where their
// layouts differ, computed operands are realised in their frame (view ops,
// see mg_lift_realize), then inputs.
static bool binary_tensor(MgLiftBuilder *b, MgOpKind kind, const MgLiftVal *x,
                          const MgLiftVal *y, uint8_t dtype, MgLiftVal *out) {
  MgLiftVal a = *x, c = *y, r;
  if (!mg_lift_materialize(b, &a) || !mg_lift_materialize(b, &c))
    return false;
  reroot_lower(b, &a, &c);
  const char *why = misaligned(b, &a, &c, &r);
  for (int pass = 0; why && pass < 2; ++pass) {
    MgLiftVal a2 = a, c2 = c;
    bool inputs = pass == 1;
    if (is_input(b, a2.t) == inputs && !mg_lift_val_is_exact(b, &a2) &&
        !mg_lift_realize(b, &a2))
      return false;
    if (is_input(b, c2.t) == inputs && !mg_lift_val_is_exact(b, &c2) &&
        !mg_lift_realize(b, &c2))
      return false;
    reroot_lower(b, &a2, &c2);
    if (!misaligned(b, &a2, &c2, &r)) {
      a = a2, c = c2, why = NULL;
    }
  }
  if (why)
    return mg_lift_fail(b, layout_blame(b, &a, &c), "%s", why);
  return tensor_result(b, &r, mg_lift_emit_binary(b, kind, a.t, c.t, dtype),
                       dtype, out);
}

// x * c or x / c, c a splat: mul_scalar / div_scalar, which store in x's
// type. Behind a cast view that changes the type (`x.float() * scale`,
// torch's scaled scores in f32 from f16 data) a scalar op would compute in
// the narrow type, so a splat that is a tensor in the IR enters as a
// kernel input instead (as for x + c) and the product is a binary op that
// stores the written type: the cast stays a view, as in front of a sum or
// a max. Without such a tensor (a constant in a linalg body) the cast is
// blamed as before. `binary_kind` is MG_OP_MUL or MG_OP_DIV.
static bool scale_by(MgLiftBuilder *b, MgOpKind binary_kind,
                     const MgLiftVal *x, const MgLiftVal *c, uint8_t dtype,
                     MgLiftVal *out) {
  MgOpKind scalar_kind =
      binary_kind == MG_OP_DIV ? MG_OP_DIV_SCALAR : MG_OP_MUL_SCALAR;
  MgLiftVal a = *x;
  if (!scalar_fits(b, x, c) || !mg_lift_materialize(b, &a))
    return false;
  if (mg_lift_tensor(b, a.t)->dtype != dtype && !mlirValueIsNull(c->ir))
    return binary_tensor(b, binary_kind, &a, c, dtype, out);
  return scalar_tensor(b, scalar_kind, &a, c->scalar, dtype, out);
}

// max(x, c) or min(x, c), c a splat: max_scalar / min_scalar (ReLU6,
// clamp, hardswish), which store in x's type; exact, so only a cast view
// that changes the type stands in the way (the bound would round to the
// narrow type). Then a splat that is a tensor in the IR takes the tensor
// path (as scale_by does); without one the cast is blamed. 1 done, 0
// failed (recorded), -1 the tensor path.
static int bound_by(MgLiftBuilder *b, MgOpKind kind, const MgLiftVal *x,
                    const MgLiftVal *c, uint8_t dtype, MgLiftVal *out) {
  MgLiftVal a = *x;
  if (!scalar_fits(b, x, c) || !mg_lift_materialize(b, &a))
    return 0;
  if (mg_lift_tensor(b, a.t)->dtype != dtype && !mlirValueIsNull(c->ir))
    return -1;
  return scalar_tensor(b, kind, &a, c->scalar, dtype, out);
}

// A constant with no tensor in the IR behind it (a scalar in a linalg
// body: a norm's eps, GELU's 1): x + c cannot pass it in as x + c does a
// splat tensor (binary_tensor), so it is ug.add_scalar.
static bool bare_constant(const MgLiftVal *v) {
  return v->kind == MG_LIFT_SCALAR && mlirValueIsNull(v->ir);
}

// x + c as ug.add_scalar (x + 0 is x).
static bool shift_by(MgLiftBuilder *b, const MgLiftVal *x, double c,
                     uint8_t dtype, MgLiftVal *out) {
  return scalar_tensor(b, MG_OP_ADD_SCALAR, x, c, dtype, out);
}

// bound_by on whichever operand is the splat: 1 done, 0 failed (recorded),
// -1 when neither is one or the tensor path should be taken.
static int bound_either(MgLiftBuilder *b, MgOpKind kind, const MgLiftVal *x,
                        const MgLiftVal *y, uint8_t dtype, MgLiftVal *out) {
  const MgLiftVal *t = x, *c = y;
  if (x->kind == MG_LIFT_SCALAR)
    t = y, c = x;
  if (c->kind != MG_LIFT_SCALAR || !is_tensorish(t))
    return -1;
  return bound_by(b, kind, t, c, dtype, out);
}

static bool relu(MgLiftBuilder *b, const MgLiftVal *x, uint8_t dtype,
                 MgLiftVal *out) {
  if (!b->opts->lift_relu)
    return mg_lift_fail(b, (MlirOperation){NULL},
                        "relu is not lifted with lift-relu=false");
  return unary_tensor(b, MG_OP_RELU, x, dtype, out);
}

// min(x, y) = -max(-x, -y): negation is exact, so this is the minimum bit
// for bit, NaN winning as in max (arith.minimumf, tosa.minimum; minnumf is
// taken as minimumf, as maxnumf is as maximumf). The μGraph needs no min
// op, so the verifier's and the search's treatment of max covers it.
// min(x, +inf) is x.
static bool min_of(MgLiftBuilder *b, const MgLiftVal *x, const MgLiftVal *y,
                   uint8_t dtype, MgLiftVal *out) {
  if (is_const(y, INFINITY) && x->kind == MG_LIFT_TENSOR) {
    *out = *x;
    out->dtype = dtype;
    return true;
  }
  if (is_const(x, INFINITY) && y->kind == MG_LIFT_TENSOR) {
    *out = *y;
    out->dtype = dtype;
    return true;
  }
  int bounded = bound_either(b, MG_OP_MIN_SCALAR, x, y, dtype, out);
  if (bounded >= 0)
    return bounded;
  MgLiftVal nx, ny, m;
  return mg_lift_alg_unary(b, MG_LIFT_ALG_NEG, x, dtype, &nx) &&
         mg_lift_alg_unary(b, MG_LIFT_ALG_NEG, y, dtype, &ny) &&
         mg_lift_alg_binary(b, MG_LIFT_ALG_MAX, &nx, &ny, dtype, &m) &&
         mg_lift_alg_unary(b, MG_LIFT_ALG_NEG, &m, dtype, out);
}

static bool pow_of(MgLiftBuilder *b, const MgLiftVal *x, const MgLiftVal *e,
                   uint8_t dtype, MgLiftVal *out) {
  if (e->kind != MG_LIFT_SCALAR)
    return mg_lift_fail(b, (MlirOperation){NULL},
                        "pow lifts only with a constant exponent");
  if (x->kind == MG_LIFT_SCALAR) {
    make_scalar(x, pow(x->scalar, e->scalar), dtype, out);
    return true;
  }
  if (e->scalar == 2.0)
    return square_of(b, x, dtype, out);
  if (e->scalar == 0.5)
    return unary_tensor(b, MG_OP_SQRT, x, dtype, out);
  if (e->scalar == -0.5)
    return unary_tensor(b, MG_OP_RSQRT, x, dtype, out);
  return mg_lift_fail(b, (MlirOperation){NULL},
                      "pow lifts only with exponent 2, 0.5 or -0.5 (got %g)",
                      e->scalar);
}

static bool fold(MgLiftAlg op, double x, double y, double *r) {
  switch (op) {
  case MG_LIFT_ALG_ADD:
    *r = x + y;
    return true;
  case MG_LIFT_ALG_SUB:
    *r = x - y;
    return true;
  case MG_LIFT_ALG_MUL:
    *r = x * y;
    return true;
  case MG_LIFT_ALG_DIV:
    *r = x / y;
    return true;
  case MG_LIFT_ALG_MAX:
    *r = x > y ? x : y;
    return true;
  case MG_LIFT_ALG_MIN:
    *r = x < y ? x : y;
    return true;
  case MG_LIFT_ALG_POW:
    *r = pow(x, y);
    return true;
  default:
    return false;
  }
}

bool mg_lift_alg_binary(MgLiftBuilder *b, MgLiftAlg op, const MgLiftVal *x,
                        const MgLiftVal *y, uint8_t dtype, MgLiftVal *out) {
  double r;
  if (x->kind == MG_LIFT_SCALAR && y->kind == MG_LIFT_SCALAR &&
      fold(op, x->scalar, y->scalar, &r)) {
    make_scalar(x, r, dtype, out);
    return true;
  }
  MlirOperation cur = b->current;
  switch (op) {
  case MG_LIFT_ALG_ADD:
    if ((x->kind == MG_LIFT_EXPNEG && is_const(y, 1.0)) ||
        (y->kind == MG_LIFT_EXPNEG && is_const(x, 1.0))) {
      make_kind(x->kind == MG_LIFT_EXPNEG ? x : y, MG_LIFT_ONE_PLUS_EXPNEG,
                dtype, cur, out);
      return true;
    }
    if (y->kind == MG_LIFT_NEG && x->kind != MG_LIFT_NEG) {
      MgLiftVal u = *y;
      u.kind = MG_LIFT_TENSOR;
      return binary_tensor(b, MG_OP_SUB, x, &u, dtype, out);
    }
    if (x->kind == MG_LIFT_NEG && y->kind != MG_LIFT_NEG) {
      MgLiftVal u = *x;
      u.kind = MG_LIFT_TENSOR;
      return binary_tensor(b, MG_OP_SUB, y, &u, dtype, out);
    }
    if (bare_constant(y) && is_tensorish(x))
      return shift_by(b, x, y->scalar, dtype, out);
    if (bare_constant(x) && is_tensorish(y))
      return shift_by(b, y, x->scalar, dtype, out);
    return binary_tensor(b, MG_OP_ADD, x, y, dtype, out);
  case MG_LIFT_ALG_SUB:
    if (is_const(x, 0.0) && is_tensorish(y))
      return mg_lift_alg_unary(b, MG_LIFT_ALG_NEG, y, dtype, out);
    if (y->kind == MG_LIFT_NEG) {
      MgLiftVal u = *y;
      u.kind = MG_LIFT_TENSOR;
      return binary_tensor(b, MG_OP_ADD, x, &u, dtype, out);
    }
    if (bare_constant(y) && is_tensorish(x))
      return shift_by(b, x, -y->scalar, dtype, out);
    if (bare_constant(x) && is_tensorish(y)) { // c - y = -y + c
      MgLiftVal n;
      return mg_lift_alg_unary(b, MG_LIFT_ALG_NEG, y, dtype, &n) &&
             shift_by(b, &n, x->scalar, dtype, out);
    }
    return binary_tensor(b, MG_OP_SUB, x, y, dtype, out);
  case MG_LIFT_ALG_MUL:
    if (x->kind == MG_LIFT_SIGMOID || y->kind == MG_LIFT_SIGMOID) {
      const MgLiftVal *s = x->kind == MG_LIFT_SIGMOID ? x : y;
      const MgLiftVal *o = s == x ? y : x;
      if (o->kind == MG_LIFT_TENSOR && same_value(o, s))
        return unary_tensor(b, MG_OP_SILU, o, dtype, out);
    }
    if (x->kind == MG_LIFT_RECIP || y->kind == MG_LIFT_RECIP) {
      const MgLiftVal *rc = x->kind == MG_LIFT_RECIP ? x : y;
      const MgLiftVal *o = rc == x ? y : x;
      MgLiftVal u = *rc;
      u.kind = MG_LIFT_TENSOR;
      if (is_const(o, 1.0)) {
        *out = *rc;
        return true;
      }
      if (o->kind == MG_LIFT_SCALAR && mlirValueIsNull(o->ir)) {
        // c / u needs c as a tensor (the μGraph has no scalar-by-tensor
        // division), and a constant written in a body has no tensor form.
        return mg_lift_fail(b, (MlirOperation){NULL},
                            "a constant divided by a tensor does not lift");
      }
      return binary_tensor(b, MG_OP_DIV, o, &u, dtype, out);
    }
    if (y->kind == MG_LIFT_SCALAR && is_tensorish(x))
      return scale_by(b, MG_OP_MUL, x, y, dtype, out);
    if (x->kind == MG_LIFT_SCALAR && is_tensorish(y))
      return scale_by(b, MG_OP_MUL, y, x, dtype, out);
    if (x->kind == MG_LIFT_TENSOR && same_value(x, y) &&
        y->kind == MG_LIFT_TENSOR)
      return square_of(b, x, dtype, out);
    return binary_tensor(b, MG_OP_MUL, x, y, dtype, out);
  case MG_LIFT_ALG_DIV:
    if (y->kind == MG_LIFT_ONE_PLUS_EXPNEG) {
      if (is_const(x, 1.0)) {
        make_kind(y, MG_LIFT_SIGMOID, dtype, cur, out);
        return true;
      }
      if (x->kind == MG_LIFT_TENSOR && same_value(x, y))
        return unary_tensor(b, MG_OP_SILU, x, dtype, out);
    }
    if (y->kind == MG_LIFT_RECIP) {
      MgLiftVal u = *y;
      u.kind = MG_LIFT_TENSOR;
      return mg_lift_alg_binary(b, MG_LIFT_ALG_MUL, x, &u, dtype, out);
    }
    if (y->kind == MG_LIFT_SCALAR && is_tensorish(x))
      return scale_by(b, MG_OP_DIV, x, y, dtype, out);
    if (is_const(x, 1.0) && is_tensorish(y))
      return mg_lift_alg_unary(b, MG_LIFT_ALG_RECIP, y, dtype, out);
    return binary_tensor(b, MG_OP_DIV, x, y, dtype, out);
  case MG_LIFT_ALG_MAX:
    // max(x, 0) is relu (behind lift-relu); max(x, -inf) is x, NaN
    // included; anything else is ug.maximum.
    if (is_const(y, 0.0) && is_tensorish(x))
      return relu(b, x, dtype, out);
    if (is_const(x, 0.0) && is_tensorish(y))
      return relu(b, y, dtype, out);
    if (is_const(y, -INFINITY) && x->kind == MG_LIFT_TENSOR) {
      *out = *x;
      out->dtype = dtype;
      return true;
    }
    if (is_const(x, -INFINITY) && y->kind == MG_LIFT_TENSOR) {
      *out = *y;
      out->dtype = dtype;
      return true;
    }
    {
      int bounded = bound_either(b, MG_OP_MAX_SCALAR, x, y, dtype, out);
      if (bounded >= 0)
        return bounded;
    }
    return binary_tensor(b, MG_OP_MAX, x, y, dtype, out);
  case MG_LIFT_ALG_MIN:
    return min_of(b, x, y, dtype, out);
  case MG_LIFT_ALG_POW:
    return pow_of(b, x, y, dtype, out);
  default:
    return mg_lift_fail(b, (MlirOperation){NULL}, "not a binary operation");
  }
}

bool mg_lift_alg_unary(MgLiftBuilder *b, MgLiftAlg op, const MgLiftVal *x,
                       uint8_t dtype, MgLiftVal *out) {
  if (x->kind == MG_LIFT_SCALAR) {
    double s = x->scalar, r;
    switch (op) {
    case MG_LIFT_ALG_EXP:
      r = exp(s);
      break;
    case MG_LIFT_ALG_SQRT:
      r = sqrt(s);
      break;
    case MG_LIFT_ALG_RSQRT:
      r = 1.0 / sqrt(s);
      break;
    case MG_LIFT_ALG_NEG:
      r = -s;
      break;
    case MG_LIFT_ALG_RECIP:
      r = 1.0 / s;
      break;
    case MG_LIFT_ALG_SIGMOID:
      r = 1.0 / (1.0 + exp(-s));
      break;
    case MG_LIFT_ALG_RELU:
      r = s > 0 ? s : 0;
      break;
    case MG_LIFT_ALG_LOG:
      r = log(s);
      break;
    case MG_LIFT_ALG_TANH:
      r = tanh(s);
      break;
    case MG_LIFT_ALG_ERF:
      r = erf(s);
      break;
    default:
      return mg_lift_fail(b, (MlirOperation){NULL}, "not a unary op");
    }
    make_scalar(x, r, dtype, out);
    return true;
  }
  MlirOperation cur = b->current;
  switch (op) {
  case MG_LIFT_ALG_EXP:
    if (x->kind == MG_LIFT_NEG) {
      make_kind(x, MG_LIFT_EXPNEG, dtype, cur, out);
      return true;
    }
    return unary_tensor(b, MG_OP_EXP, x, dtype, out);
  case MG_LIFT_ALG_SQRT:
    return unary_tensor(b, MG_OP_SQRT, x, dtype, out);
  case MG_LIFT_ALG_RSQRT:
    return unary_tensor(b, MG_OP_RSQRT, x, dtype, out);
  case MG_LIFT_ALG_NEG:
    if (x->kind == MG_LIFT_NEG) {
      make_kind(x, MG_LIFT_TENSOR, dtype, cur, out);
      return true;
    }
    return wrap_kind(b, x, MG_LIFT_NEG, dtype, cur, out);
  case MG_LIFT_ALG_RECIP:
    if (x->kind == MG_LIFT_RECIP) {
      make_kind(x, MG_LIFT_TENSOR, dtype, cur, out);
      return true;
    }
    if (x->kind == MG_LIFT_ONE_PLUS_EXPNEG) {
      make_kind(x, MG_LIFT_SIGMOID, dtype, cur, out);
      return true;
    }
    if (x->kind == MG_LIFT_SIGMOID) {
      make_kind(x, MG_LIFT_ONE_PLUS_EXPNEG, dtype, cur, out);
      return true;
    }
    return wrap_kind(b, x, MG_LIFT_RECIP, dtype, cur, out);
  case MG_LIFT_ALG_SIGMOID:
    return wrap_kind(b, x, MG_LIFT_SIGMOID, dtype, cur, out);
  case MG_LIFT_ALG_RELU:
    return relu(b, x, dtype, out);
  case MG_LIFT_ALG_LOG:
    return unary_tensor(b, MG_OP_LOG, x, dtype, out);
  case MG_LIFT_ALG_TANH:
    return unary_tensor(b, MG_OP_TANH, x, dtype, out);
  case MG_LIFT_ALG_ERF:
    return unary_tensor(b, MG_OP_ERF, x, dtype, out);
  default:
    return mg_lift_fail(b, (MlirOperation){NULL}, "not a unary operation");
  }
}

// Sum (SUM) or maximum (REDUCE_MAX) of `x` over the flagged frame dims.
static bool reduce_dims(MgLiftBuilder *b, MgOpKind kind, const MgLiftVal *x,
                        const bool *reduce, uint8_t dtype, MgLiftVal *out) {
  MgLiftVal a = *x;
  bool sum = kind == MG_OP_SUM;
  if (a.kind == MG_LIFT_SCALAR) { // Σ over n copies of c is n·c; max is c
    double n = 1;
    for (uint32_t i = 0; i < a.rank; ++i)
      if (reduce[i] && sum)
        n *= (double)a.dims[i];
    make_scalar(&a, a.scalar * n, dtype, out);
    return true;
  }
  if (!mg_lift_materialize(b, &a))
    return false;
  double factor = 1;
  bool emitted = false;
  for (uint32_t i = 0; i < a.rank; ++i) {
    if (!reduce[i] || a.dims[i] == 1)
      continue;
    if (a.map[i] < 0) { // constant along i: Σ = n · value, max = value
      if (sum)
        factor *= (double)a.dims[i];
      continue;
    }
    MgTensorId t = mg_lift_emit_reduce(b, kind, a.t, a.map[i], dtype);
    if (t == MG_NO_ID)
      return false;
    a.t = t;
    a.map[i] = -1;
    emitted = true;
  }
  if (factor != 1) {
    MgTensorId t = mg_lift_emit_scalar(b, MG_OP_MUL_SCALAR, a.t, factor, dtype);
    if (t == MG_NO_ID)
      return false;
    a.t = t;
    emitted = true;
  }
  a.dtype = dtype;
  if (emitted)
    a.origin = b->current;
  *out = a;
  return true;
}

bool mg_lift_alg_reduce(MgLiftBuilder *b, const MgLiftVal *x,
                        const bool *reduce, uint8_t dtype, MgLiftVal *out) {
  return reduce_dims(b, MG_OP_SUM, x, reduce, dtype, out);
}

bool mg_lift_alg_reduce_max(MgLiftBuilder *b, const MgLiftVal *x,
                            const bool *reduce, uint8_t dtype,
                            MgLiftVal *out) {
  return reduce_dims(b, MG_OP_REDUCE_MAX, x, reduce, dtype, out);
}

// A computed matmul operand in another order than (m,k) x (k,n) (Kᵀ of a
// computed K): a transpose view op puts frame dim i at tensor dim want[i].
static bool transpose_to(MgLiftBuilder *b, MgLiftVal *v, uint32_t s,
                         const int *want) {
  const MgTensor *x = mg_lift_tensor(b, v->t);
  if (x->rank != s || s > MG_MAX_DIMS)
    return false;
  int8_t perm[MG_MAX_DIMS], inv[MG_MAX_DIMS];
  bool used[MG_MAX_DIMS] = {false}, set[MG_MAX_DIMS] = {false};
  for (uint32_t i = 0; i < v->rank; ++i) {
    if (v->dims[i] <= 1 || v->map[i] < 0)
      continue;
    if (want[i] < 0 || (uint32_t)want[i] >= s || set[want[i]])
      return false;
    perm[want[i]] = v->map[i];
    set[want[i]] = used[v->map[i]] = true;
  }
  for (uint32_t p = 0, d = 0; p < s; ++p) {
    if (set[p])
      continue;
    while (d < s && used[d])
      ++d;
    if (d == s)
      return false;
    perm[p] = (int8_t)d;
    used[d] = true;
  }
  MgTensorId t = mg_lift_emit_transpose(b, v->t, perm);
  if (t == MG_NO_ID)
    return false;
  for (uint32_t p = 0; p < s; ++p)
    inv[perm[p]] = (int8_t)p;
  for (uint32_t i = 0; i < v->rank; ++i)
    if (v->map[i] >= 0)
      v->map[i] = inv[v->map[i]];
  v->t = t;
  return true;
}

// A matmul operand read from an input in another order than (m,k) x (k,n)
// (x·Wᵀ, linalg.matmul with a transposed map) is re-rooted on an input with
// a layout; a computed one gets a transpose view op. True when `v`
// changed; batch dims must already be in place.
static bool read_in_layout(MgLiftBuilder *b, MgLiftVal *v,
                           const uint8_t *roles, uint32_t s, bool lhs,
                           const int8_t *canon_batch) {
  int want[MG_LIFT_MAX_RANK];
  bool wrong = false;
  for (uint32_t i = 0; i < v->rank; ++i) {
    switch ((MgLiftDimRole)roles[i]) {
    case MG_LIFT_DIM_M: want[i] = lhs ? (int)s - 2 : -1; break;
    case MG_LIFT_DIM_N: want[i] = lhs ? -1 : (int)s - 1; break;
    case MG_LIFT_DIM_K: want[i] = lhs ? (int)s - 1 : (int)s - 2; break;
    default:
      // Batch dims stay where they are, or (the operands disagree) go
      // where `canon_batch` says.
      if (canon_batch) {
        want[i] = v->dims[i] > 1 ? canon_batch[i] : -1;
        break;
      }
      if (v->map[i] >= (int)s - 2)
        return false;
      want[i] = v->map[i];
      break;
    }
    wrong |= v->map[i] >= 0 && v->dims[i] > 1 && v->map[i] != want[i];
  }
  return wrong && (reroot_input(b, v, s, want) || transpose_to(b, v, s, want));
}

// Matmul operands of different μGraph ranks: an input operand is re-rooted
// at the other's rank, unit batch dims added (a 2-D weight in a rank-3
// matmul) or dropped (a rank-4 K or V reshaped to the rank-3 view a
// realised Q has, as GQA's head groups are written). The lower-rank
// operand is tried first, so a padded weight is unchanged.
static void match_ranks(MgLiftBuilder *b, MgLiftVal *a, MgLiftVal *c,
                        const uint8_t *roles) {
  uint32_t ra = mg_lift_tensor(b, a->t)->rank;
  uint32_t rc = mg_lift_tensor(b, c->t)->rank;
  if (ra == rc || ra < 2 || rc < 2)
    return;
  for (int pass = 0; pass < 2; ++pass) {
    bool move_a = (ra < rc) == (pass == 0); // which operand changes rank
    MgLiftVal *v = move_a ? a : c;
    const MgLiftVal *o = move_a ? c : a;
    uint32_t s = move_a ? rc : ra;
    int want[MG_LIFT_MAX_RANK];
    for (uint32_t i = 0; i < v->rank; ++i) {
      switch ((MgLiftDimRole)roles[i]) {
      case MG_LIFT_DIM_M: want[i] = move_a ? (int)s - 2 : -1; break;
      case MG_LIFT_DIM_N: want[i] = move_a ? -1 : (int)s - 1; break;
      case MG_LIFT_DIM_K: want[i] = move_a ? (int)s - 1 : (int)s - 2; break;
      default: want[i] = o->map[i]; break;
      }
    }
    if (reroot_input(b, v, s, want))
      return;
  }
}

bool mg_lift_alg_contract(MgLiftBuilder *b, const MgLiftVal *x,
                          const MgLiftVal *y, const uint8_t *roles,
                          uint8_t dtype, MgLiftVal *out) {
  MgLiftVal a = *x, c = *y;
  if (!mg_lift_materialize(b, &a) || !mg_lift_materialize(b, &c))
    return false;
  match_ranks(b, &a, &c, roles);
  const MgTensor *ta = mg_lift_tensor(b, a.t), *tc = mg_lift_tensor(b, c.t);
  uint32_t s = ta->rank;
  if (s < 2 || tc->rank != s)
    return mg_lift_fail(b, layout_blame(b, &a, &c),
                        "matmul operands have μGraph ranks %u and %u (equal "
                        "ranks >= 2 needed)",
                        ta->rank, tc->rank);
  // Both operands, even when the first one changed. Batch dims the
  // operands lay out differently go first, in frame order, in both.
  // They take the batch layout of an operand that has its batch dims
  // before (m,k) / (k,n) (fewest copies), else frame order.
  bool canon = false, a_ok = true, c_ok = true;
  int8_t batch_pos[MG_LIFT_MAX_RANK];
  int nb = 0;
  for (uint32_t i = 0; i < a.rank; ++i) {
    batch_pos[i] = -1;
    if (roles[i] != MG_LIFT_DIM_BATCH || a.dims[i] <= 1)
      continue;
    canon |= a.map[i] != c.map[i];
    a_ok &= a.map[i] >= 0 && a.map[i] < (int)s - 2;
    c_ok &= c.map[i] >= 0 && c.map[i] < (int)s - 2;
    batch_pos[i] = (int8_t)(a_ok ? a.map[i] : c_ok ? c.map[i] : nb);
    nb++;
  }
  canon |= !a_ok || !c_ok;
  if (canon && !a_ok)
    for (uint32_t i = 0, k = 0; i < a.rank; ++i)
      if (batch_pos[i] >= 0)
        batch_pos[i] = (int8_t)(c_ok ? c.map[i] : (int)k++);
  bool moved_a = read_in_layout(b, &a, roles, s, true,
                                canon ? batch_pos : NULL);
  bool moved_c = read_in_layout(b, &c, roles, s, false,
                                canon ? batch_pos : NULL);
  if (moved_a || moved_c) {
    ta = mg_lift_tensor(b, a.t);
    tc = mg_lift_tensor(b, c.t);
  }
  MgLiftVal r = a;
  for (uint32_t i = 0; i < a.rank; ++i) {
    int want_a = -2, want_c = -2; // -2: operand does not index this dim
    switch ((MgLiftDimRole)roles[i]) {
    case MG_LIFT_DIM_M:
      want_a = (int)s - 2;
      break;
    case MG_LIFT_DIM_N:
      want_c = (int)s - 1;
      break;
    case MG_LIFT_DIM_K:
      want_a = (int)s - 1;
      want_c = (int)s - 2;
      break;
    case MG_LIFT_DIM_BATCH:
      if (a.map[i] != c.map[i] || (a.map[i] >= (int)s - 2))
        return mg_lift_fail(b, layout_blame(b, &a, &c),
                            "batch dims of the matmul operands are laid out "
                            "differently");
      break;
    }
    if (a.dims[i] > 1) {
      bool bad_a = want_a != -2 && a.map[i] != want_a;
      if (bad_a || (want_c != -2 && c.map[i] != want_c))
        return mg_lift_fail(b, bad_a ? blame_of(b, &a) : blame_of(b, &c),
                            "a matmul operand is transposed relative to the "
                            "μGraph's (m,k) x (k,n) layout, and the μGraph has "
                            "no transpose");
    } else if ((want_a >= 0 && ta->dims[want_a] != 1) ||
               (want_c >= 0 && tc->dims[want_c] != 1)) {
      return mg_lift_fail(b, layout_blame(b, &a, &c),
                          "a unit matmul dim does not line up with the μGraph "
                          "layout");
    }
    r.map[i] =
        roles[i] == MG_LIFT_DIM_M   ? (a.dims[i] > 1 ? (int8_t)(s - 2) : -1)
        : roles[i] == MG_LIFT_DIM_N ? (a.dims[i] > 1 ? (int8_t)(s - 1) : -1)
        : roles[i] == MG_LIFT_DIM_K ? -1
                                    : a.map[i];
  }
  for (uint32_t j = 0; j + 2 < s; ++j)
    if (ta->dims[j] != tc->dims[j])
      return mg_lift_fail(b, layout_blame(b, &a, &c),
                          "matmul batch dims differ (%lld vs %lld); the μGraph "
                          "does not broadcast matmul batches",
                          (long long)ta->dims[j], (long long)tc->dims[j]);
  return tensor_result(b, &r, mg_lift_emit_matmul(b, a.t, c.t, dtype), dtype,
                       out);
}

//===- bound.c - Degree analysis and the per-test error bound -------------===//
//
// Invariant of the pass: the Deg of a tensor bounds every element of it,
// under every block and for-loop iteration that computes it. Counts
// saturate at MG_DEG_CAP instead of wrapping, so the bound only grows.
//
// The per-dim facts, exactly: with A(x) the atoms of element x, vary[d]
// bounds |A(x') \ A(x)| and den_vary bit d clear says x and x' have the same
// denominator, for any two elements x, x' whose indices differ in dim d
// only. Every rule keeps this reading (a sum over d of n elements then has
// at most atoms + (n-1)·vary[d] atoms), and view ops re-index it
// (view_facts).
//
// Sums are where the rules must be careful (docs/verification.md):
// Σ_j a_j / d_j over an index j along which the denominators change has a
// denominator of degree n·d in general, but when the denominator does not
// depend on j (softmax: E / S with S broadcast along the summed dim) the sum
// keeps denominator d. `den_vary` records the dims along which the
// denominator can change; atoms are tracked the same way (`vary`).
//
// In Laurent mode a division by a pure atom (an exp or uninterpreted result,
// possibly scaled, cut or copied) does not create a denominator: x / r is the
// Laurent monomial x·r^-1 and `num` counts absolute exponents. That is what
// keeps Σ_j v_j / rms(v_j) (QKNorm) at degree 2 instead of l + 1. It is only
// sound when no atom kind appears with both signs (`pos`/`neg`, collected at
// the outputs and at atom arguments); otherwise the caller redoes the pass
// with every division cleared.
//
// Heights follow the degrees rule for rule (docs/verification.md,
// "Constants"): a product multiplies norms and adds the powers of two, a sum
// adds norms and keeps the lower power of two, a sum of n equal-shaped terms
// adds log2 n. Constants enter through MUL/DIV/ADD_SCALAR, MAX/MIN_SCALAR
// and fixed inputs; inputs and atoms are variables with coefficient 1.
//
//===----------------------------------------------------------------------===//
#include "bound.h"
#include "mirage/field.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MG_DEG_CAP ((uint64_t)1 << 60)
#define MG_DEG_MAX_DEPTH 8

typedef struct Deg {
  uint64_t num, den;      // p component degrees
  bool qbot;              // q component is ⊥
  uint64_t atoms;         // distinct atoms in an element's cone
  uint64_t vary[MG_MAX_DIMS]; // ... of which change along dim d
  uint8_t den_vary;       // bit d: the denominator changes along dim d
  uint8_t pos, neg;       // atom kinds with positive / negative exponents
  bool pure;              // each element is a constant times one atom
  MgHeight hn, hd;        // heights of the numerator and the denominator
} Deg;

typedef struct Walk {
  const MgProgram *p;
  MgVerifyDegrees *out;
  MgDiag *diag;
  bool laurent; // divisions by pure atoms become negative exponents
} Walk;

// One bit per atom kind (EXP .. RELU are contiguous in MgOpKind).
static uint8_t kind_bit(MgOpKind kind) {
  return (uint8_t)(1u << (kind - MG_OP_EXP));
}

static uint64_t sat_add(uint64_t a, uint64_t b) {
  return a + b > MG_DEG_CAP ? MG_DEG_CAP : a + b;
}
static uint64_t sat_mul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0)
    return 0;
  return a > MG_DEG_CAP / b ? MG_DEG_CAP : a * b;
}
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

//===--- Heights ----------------------------------------------------------===//

static const MgHeight unit_height = {0, 0}; // the polynomial 1 or a variable

static MgHeight h_mul(MgHeight a, MgHeight b) {
  return (MgHeight){a.h + b.h, a.lo + b.lo};
}
static MgHeight h_add(MgHeight a, MgHeight b) {
  double hi = fmax(a.h, b.h), lo = fmin(a.h, b.h);
  return (MgHeight){hi + log2(1.0 + exp2(lo - hi)), fmin(a.lo, b.lo)};
}
static MgHeight h_join(MgHeight a, MgHeight b) { // either one of them
  return (MgHeight){fmax(a.h, b.h), fmin(a.lo, b.lo)};
}
static MgHeight h_pow(MgHeight a, double n) {
  return (MgHeight){a.h * n, a.lo * n};
}
// A sum of n values of one shape.
static MgHeight h_times(MgHeight a, double n) {
  return (MgHeight){a.h + log2(n), a.lo};
}
// A finite non-zero v = m·2^e with m odd.
static void split_dyadic(double v, double *log2_m, int *e) {
  int ex = 0;
  double f = frexp(fabs(v), &ex); // |v| = f·2^ex, f in [0.5, 1)
  double m = ldexp(f, 53);        // an integer below 2^53
  ex -= 53;
  while (fmod(m, 2.0) == 0.0) {
    m /= 2.0;
    ++ex;
  }
  *log2_m = log2(m);
  *e = ex;
}
// The height of the constant v (its own coefficient).
static MgHeight h_const(double v) {
  if (v == 0.0 || !isfinite(v))
    return unit_height; // x·0 is 0: any bound holds
  double lm;
  int e;
  split_dyadic(v, &lm, &e);
  return (MgHeight){lm + e, e};
}
// How many of the set's primes can divide a non-zero integer of height x.
static double prime_divisors(MgHeight x) {
  double bits = x.h - x.lo;
  return bits < MG_FF_LOG2_Q_LO ? 0.0 : floor(bits / MG_FF_LOG2_Q_LO);
}

static uint8_t nonunit_bits(const MgTensor *t) {
  uint8_t bits = 0;
  for (uint32_t d = 0; d < t->rank && d < MG_MAX_DIMS; ++d)
    if (t->dims[d] > 1)
      bits |= (uint8_t)(1u << d);
  return bits;
}

// Keeps only the per-dim facts about dims of size > 1 (a size-1 dim cannot
// change along itself).
static void clamp_to(Deg *x, const MgTensor *t) {
  uint8_t bits = nonunit_bits(t);
  x->den_vary &= bits;
  for (uint32_t d = 0; d < MG_MAX_DIMS; ++d)
    if (!(bits & (1u << d)))
      x->vary[d] = 0;
    else
      x->vary[d] = min_u64(x->vary[d], x->atoms);
}

// Per-dim facts of `x` (shape `t`) re-indexed to a result of rank `rank`,
// right-aligned as broadcasting does.
static void align(const Deg *x, const MgTensor *t, uint32_t rank,
                  uint64_t *vary, uint8_t *den_vary) {
  memset(vary, 0, sizeof(uint64_t) * MG_MAX_DIMS);
  *den_vary = 0;
  for (uint32_t d = 0; d < t->rank; ++d) {
    uint32_t o = d + rank - t->rank;
    if (t->dims[d] <= 1 || o >= MG_MAX_DIMS)
      continue;
    vary[o] = x->vary[d];
    if (x->den_vary & (1u << d))
      *den_vary |= (uint8_t)(1u << o);
  }
}

// Suffix products of a shape: stride[d] = Π dims[d..rank) (stride[rank] =
// 1, stride[0] the element count), so dim d's digit of a row-major flat
// index lies in [stride[d+1], stride[d]).
static void suffix_products(const MgTensor *t, uint64_t *stride) {
  stride[t->rank] = 1;
  for (uint32_t d = t->rank; d-- > 0;)
    stride[d] = stride[d + 1] * (uint64_t)t->dims[d];
}

// Per-dim facts of a view's result `t` of operand `ta` (Deg `a`) into `r`.
// Transpose: a step along result dim d is a step along operand dim perm[d].
// Slice: two elements of the result are two elements of the operand that
// differ in the same dims. Reshape: a step along result dim d (digits in
// [S[d+1], S[d]) of the flat index) leaves operand dim e's index alone when
// T[e] divides S[d+1] (e's digits are below d's, and the flat index mod
// S[d+1] is kept) or S[d] divides T[e+1] (above, and the flat index / S[d]
// is kept); every other operand dim may change, so by the triangle
// inequality for set differences the step changes at most the sum of their
// vary (not the max: merging dims (i, j), (i, n-1) -> (i+1, 0) steps along
// both) and the denominator only if one of theirs may change.
static void view_facts(const MgOp *op, const Deg *a, const MgTensor *ta,
                       const MgTensor *t, Deg *r) {
  uint64_t vary[MG_MAX_DIMS] = {0};
  uint8_t den_vary = 0;
  switch ((MgOpKind)op->kind) {
  case MG_OP_TRANSPOSE:
    for (uint32_t d = 0; d < t->rank && d < MG_MAX_DIMS; ++d) {
      uint32_t from = (uint32_t)op->perm[d];
      vary[d] = a->vary[from];
      den_vary |= (uint8_t)(((a->den_vary >> from) & 1u) << d);
    }
    break;
  case MG_OP_RESHAPE: {
    uint64_t S[MG_MAX_DIMS + 1], T[MG_MAX_DIMS + 1];
    suffix_products(t, S);
    suffix_products(ta, T);
    for (uint32_t d = 0; d < t->rank; ++d)
      for (uint32_t e = 0; e < ta->rank; ++e) {
        bool kept = ta->dims[e] <= 1 || S[d + 1] % T[e] == 0 ||
                    T[e + 1] % S[d] == 0;
        if (kept)
          continue;
        vary[d] = sat_add(vary[d], a->vary[e]);
        den_vary |= (uint8_t)(((a->den_vary >> e) & 1u) << d);
      }
    break;
  }
  case MG_OP_IM2COL: // a step along any dim may move to any element
    for (uint32_t d = 0; d < t->rank && d < MG_MAX_DIMS; ++d) {
      vary[d] = a->atoms;
      if (a->den_vary)
        den_vary |= (uint8_t)(1u << d);
    }
    break;
  default: // MG_OP_SLICE
    return;
  }
  memcpy(r->vary, vary, sizeof vary);
  r->den_vary = den_vary;
}

// Σ over `extent` values along a dim where `vk` atoms and (when `den_k`) the
// denominator change. Other dims' counts scale by extent when any atom
// changes along the summed dim.
static void reduce(Deg *x, uint32_t dim, uint64_t extent, uint64_t vk,
                   bool den_k) {
  if (extent <= 1)
    return;
  if (den_k && x->den > 0) {
    x->num = sat_add(x->num, sat_mul(extent - 1, x->den));
    x->den = sat_mul(extent, x->den);
    x->hn = h_times(h_mul(x->hn, h_pow(x->hd, (double)(extent - 1))),
                    (double)extent);
    x->hd = h_pow(x->hd, (double)extent);
  } else {
    x->hn = h_times(x->hn, (double)extent);
  }
  uint64_t total = sat_add(x->atoms - vk, sat_mul(extent, vk));
  for (uint32_t d = 0; d < MG_MAX_DIMS; ++d)
    x->vary[d] = min_u64(total, vk ? sat_mul(x->vary[d], extent) : x->vary[d]);
  x->atoms = total;
  if (dim < MG_MAX_DIMS) {
    x->vary[dim] = 0;
    x->den_vary &= (uint8_t)~(1u << dim);
  }
}

// Σ over F for-loop iterations: everything may change between iterations.
static void loop_sum(Deg *x, uint64_t forloop) {
  if (forloop <= 1)
    return;
  if (x->den > 0) {
    x->num = sat_add(x->num, sat_mul(forloop - 1, x->den));
    x->den = sat_mul(forloop, x->den);
    x->hn = h_times(h_mul(x->hn, h_pow(x->hd, (double)(forloop - 1))),
                    (double)forloop);
    x->hd = h_pow(x->hd, (double)forloop);
  } else {
    x->hn = h_times(x->hn, (double)forloop);
  }
  x->atoms = sat_mul(x->atoms, forloop);
  for (uint32_t d = 0; d < MG_MAX_DIMS; ++d)
    x->vary[d] = sat_mul(x->vary[d], forloop);
}

static void square(Deg *x) {
  x->num = sat_mul(x->num, 2);
  x->den = sat_mul(x->den, 2);
  x->hn = h_pow(x->hn, 2);
  x->hd = h_pow(x->hd, 2);
}

// A fresh atom per element: exp or an uninterpreted function of `a`.
static Deg atom_of(const Deg *a, const MgTensor *t, MgOpKind kind) {
  Deg r;
  memset(&r, 0, sizeof r);
  r.num = 1;
  r.qbot = kind == MG_OP_EXP;
  r.pos = kind_bit(kind);
  r.pure = true;
  r.atoms = sat_add(a->atoms, 1);
  for (uint32_t d = 0; d < MG_MAX_DIMS; ++d)
    r.vary[d] = sat_add(a->vary[d], 1);
  clamp_to(&r, t);
  return r;
}

// An operand of an element-wise op: its degree facts and its tensor type.
typedef struct Operand {
  const Deg *deg;
  const MgTensor *t;
} Operand;

static Deg binary(MgOpKind kind, Operand x, Operand y, const MgTensor *out,
                  bool laurent) {
  const Deg *a = x.deg, *b = y.deg;
  const MgTensor *ta = x.t, *tb = y.t;
  Deg r;
  memset(&r, 0, sizeof r);
  uint64_t va[MG_MAX_DIMS], vb[MG_MAX_DIMS];
  uint8_t da, db;
  align(a, ta, out->rank, va, &da);
  align(b, tb, out->rank, vb, &db);
  r.qbot = a->qbot || b->qbot;
  r.atoms = sat_add(a->atoms, b->atoms);
  for (uint32_t d = 0; d < MG_MAX_DIMS; ++d)
    r.vary[d] = sat_add(va[d], vb[d]);
  r.den_vary = da | db;
  r.pos = a->pos | b->pos;
  r.neg = a->neg | b->neg;
  // Heights: a/b = (a_n·b_d)/(a_d·b_n), also when b's atom moves into the
  // numerator (Laurent mode: b_n is then b's constant factor).
  r.hn = h_mul(a->hn, kind == MG_OP_DIV ? b->hd : b->hn);
  r.hd = h_mul(a->hd, kind == MG_OP_DIV ? b->hn : b->hd);
  if (kind == MG_OP_DIV && laurent && b->pure) {
    // x / r = x·r^-1: no denominator, one more (negative) exponent.
    r.num = sat_add(a->num, b->num);
    r.den = a->den;
    r.den_vary = da;
    r.pos = a->pos;
    r.neg = a->neg | b->pos;
    clamp_to(&r, out);
    return r;
  }
  switch (kind) {
  case MG_OP_ADD:
  case MG_OP_SUB:
    r.num = max_u64(sat_add(a->num, b->den), sat_add(b->num, a->den));
    r.den = sat_add(a->den, b->den);
    r.hn = h_add(h_mul(a->hn, b->hd), h_mul(b->hn, a->hd));
    break;
  case MG_OP_MUL:
    r.num = sat_add(a->num, b->num);
    r.den = sat_add(a->den, b->den);
    break;
  default: // MG_OP_DIV: b's numerator joins the denominator
    r.num = sat_add(a->num, b->den);
    r.den = sat_add(a->den, b->num);
    // Clearing b may move its atoms either way.
    r.pos = a->pos | b->pos | b->neg;
    r.neg = a->neg | b->neg;
    // The new denominator factor can change along every dim where b is
    // not broadcast.
    for (uint32_t d = 0; d < tb->rank; ++d) {
      uint32_t o = d + out->rank - tb->rank;
      if (tb->dims[d] > 1 && o < MG_MAX_DIMS)
        r.den_vary |= (uint8_t)(1u << o);
    }
    break;
  }
  clamp_to(&r, out);
  return r;
}

static Deg matmul(const Deg *a, const MgTensor *ta, const Deg *b,
                  const MgTensor *tb, const MgTensor *out) {
  Deg r;
  memset(&r, 0, sizeof r);
  uint32_t rank = out->rank;
  uint32_t ka = ta->rank - 1, kb = tb->rank - 2;
  uint64_t k = (uint64_t)ta->dims[ka];
  r.num = sat_add(a->num, b->num);
  r.den = sat_add(a->den, b->den);
  r.hn = h_mul(a->hn, b->hn);
  r.hd = h_mul(a->hd, b->hd);
  r.qbot = a->qbot || b->qbot;
  r.pos = a->pos | b->pos;
  r.neg = a->neg | b->neg;
  r.atoms = sat_add(a->atoms, b->atoms);
  uint64_t vk = sat_add(ta->dims[ka] > 1 ? a->vary[ka] : 0,
                        tb->dims[kb] > 1 ? b->vary[kb] : 0);
  bool den_k = ((a->den_vary >> ka) & 1) || ((b->den_vary >> kb) & 1);
  // Per output dim: a feeds batch and m, b feeds batch and n.
  for (uint32_t o = 0; o < rank && o < MG_MAX_DIMS; ++o) {
    uint64_t v = 0;
    uint8_t bit = 0;
    if (o + 1 < rank) { // batch or m: a's dim o - (rank - ta->rank)
      int64_t d = (int64_t)o - (int64_t)(rank - ta->rank);
      if (d >= 0 && ta->dims[d] > 1) {
        v = sat_add(v, a->vary[d]);
        bit |= (a->den_vary >> d) & 1;
      }
    }
    if (o + 2 != rank) { // batch or n: b's dim o - (rank - tb->rank)
      int64_t d = (int64_t)o - (int64_t)(rank - tb->rank);
      if (d >= 0 && tb->dims[d] > 1) {
        v = sat_add(v, b->vary[d]);
        bit |= (b->den_vary >> d) & 1;
      }
    }
    r.vary[o] = v;
    r.den_vary |= (uint8_t)(bit << o);
  }
  if (den_k && k > 1 && r.den > 0)
    r.den_vary = nonunit_bits(out);
  reduce(&r, MG_MAX_DIMS, k, vk, den_k);
  clamp_to(&r, out);
  return r;
}

static void note_division(Walk *w, const Deg *divisor, const MgTensor *out,
                          bool q_live, double runs) {
  // The divisor's residue is 0 only where its numerator vanishes:
  // Schwartz–Zippel, per element and per component that is checked.
  double per = (double)divisor->num / (double)MG_FF_Q_LO * (q_live ? 2.0 : 1.0);
  w->out->zero_mass += per * (double)mg_tensor_numel(out) * runs;
  // ... and everywhere when the test's prime divides its coefficients.
  w->out->div_kills +=
      prime_divisors(divisor->hn) * (double)mg_tensor_numel(out) * runs;
}

// A max picks one of its arguments, so under a fixed order of the values
// (one argmax pattern) it has the degrees of its arguments; which one it
// picks changes from element to element, so every per-dim fact is lost.
static void selection(Deg *x) {
  for (uint32_t d = 0; d < MG_MAX_DIMS; ++d)
    x->vary[d] = x->atoms;
  x->den_vary = x->den > 0 ? 0xFF : 0;
  x->pure = false;
}

// Max over `n` values (a dim or the for-loop): any of their atoms.
static void max_over(Deg *x, uint64_t n, uint64_t vk) {
  if (n > 1)
    x->atoms = sat_add(x->atoms - vk, sat_mul(n, vk));
  selection(x);
}

static void note_atom(Walk *w, const Deg *arg);

// MG_ACCUM_ONLINE over F steps, as the field runs it: step i adds
// x_i·exp(m_i − M_i) and rescales the sum so far by exp(M_{i−1} − M_i),
// so each term carries at most F + 1 exp atoms of arguments m − m', then
// the F terms are summed.
static Deg online(Walk *w, const Deg *x, const Deg *m, uint64_t forloop) {
  Deg arg = *m;
  selection(&arg);
  arg.num = sat_add(m->num, m->den);
  arg.den = sat_mul(m->den, 2);
  arg.hn = h_times(h_mul(m->hn, m->hd), 2); // m·m'_d − m'·m_d
  arg.hd = h_pow(m->hd, 2);
  arg.atoms = sat_mul(m->atoms, sat_mul(forloop, 2));
  note_atom(w, &arg);
  Deg r = *x;
  uint64_t factors = sat_add(forloop, 1);
  r.num = sat_add(r.num, factors);
  r.atoms = sat_add(r.atoms, sat_mul(factors, sat_add(arg.atoms, 1)));
  r.pos |= kind_bit(MG_OP_EXP);
  r.qbot = true;
  selection(&r);
  loop_sum(&r, forloop);
  return r;
}

static void note_atom(Walk *w, const Deg *arg) {
  w->out->arg_num = h_join(w->out->arg_num, arg->hn);
  w->out->arg_den = h_join(w->out->arg_den, arg->hd);
  w->out->arg_degree = max_u64(w->out->arg_degree, sat_add(arg->num, arg->den));
  w->out->arg_atoms = max_u64(w->out->arg_atoms, arg->atoms);
  w->out->pos |= arg->pos;
  w->out->neg |= arg->neg;
}

// One graph the walk is in: its id, the facts of its inputs (its caller's
// operands), how often it runs per program run, and how deeply nested.
typedef struct Frame {
  MgGraphId gid;
  const Deg *inputs;
  uint32_t num_inputs;
  double runs;
  int depth;
} Frame;

static MgStatus walk_graph(Walk *w, const Frame *f, Deg *outs);

// x·c puts c = m·2^e in the numerator; x/c puts 2^-e there and m in the
// denominator, and vanishes in the fields whose p divides m.
static void scale_heights(Walk *w, Deg *x, MgOpKind kind, double c) {
  if (kind == MG_OP_MUL_SCALAR) {
    x->hn = h_mul(x->hn, h_const(c));
    return;
  }
  if (c == 0.0 || !isfinite(c))
    return; // every field voids it: the test is redrawn, never accepted
  double lm;
  int e;
  split_dyadic(c, &lm, &e);
  x->hn = h_mul(x->hn, (MgHeight){-e, -e});
  x->hd = h_mul(x->hd, (MgHeight){lm, 0});
  w->out->div_kills += prime_divisors((MgHeight){lm, 0});
}

static MgStatus walk_sub(Walk *w, const MgGraph *gr, const MgOp *op,
                         Deg *deg, double runs, int depth) {
  Deg in[MG_MAX_OP_INPUTS], out[MG_MAX_OP_OUTPUTS];
  for (uint32_t i = 0; i < op->num_inputs; ++i)
    in[i] = deg[op->inputs[i]];
  MgGraphId sub = (MgGraphId)op->attr;
  if (sub >= w->p->num_graphs ||
      w->p->graphs[sub].num_outputs != op->num_outputs)
    return mg_diag_set(w->diag, MG_STATUS_INVALID, -1, -1,
                       "graph-defined op names a bad graph %d", op->attr);
  Frame f = {sub, in, op->num_inputs, runs, depth + 1};
  MgStatus st = walk_graph(w, &f, out);
  if (st != MG_STATUS_OK)
    return st;
  for (uint32_t k = 0; k < op->num_outputs; ++k) {
    deg[op->outputs[k]] = out[k];
    clamp_to(&deg[op->outputs[k]], &gr->tensors[op->outputs[k]]);
  }
  return MG_STATUS_OK;
}

// A concatenation: the worst of its operands' facts, varying fully along
// the concatenated dimension.
static Deg concat_degree(const MgOp *op, const Deg *deg) {
  Deg r = deg[op->inputs[0]];
  for (uint32_t k = 1; k < op->num_inputs; ++k) {
    const Deg *x = &deg[op->inputs[k]];
    r.num = max_u64(r.num, x->num);
    r.den = max_u64(r.den, x->den);
    r.hn = h_join(r.hn, x->hn);
    r.hd = h_join(r.hd, x->hd);
    r.qbot = r.qbot || x->qbot;
    r.pos |= x->pos;
    r.neg |= x->neg;
    r.pure = r.pure && x->pure;
    r.atoms = max_u64(r.atoms, x->atoms);
    r.den_vary |= x->den_vary;
    for (uint32_t d = 0; d < MG_MAX_DIMS; ++d)
      r.vary[d] = max_u64(r.vary[d], x->vary[d]);
  }
  if (op->attr >= 0 && op->attr < MG_MAX_DIMS) {
    r.vary[op->attr] = r.atoms;
    if (r.den > 0)
      r.den_vary |= (uint8_t)(1u << op->attr);
  }
  return r;
}

// A sum over dimension op->attr (a unit dimension changes nothing but
// purity).
static Deg sum_degree(const MgOp *op, const Deg *a, const MgTensor *ta) {
  Deg r = *a;
  r.pure = false;
  uint32_t d = (uint32_t)op->attr;
  bool nonunit = d < ta->rank && ta->dims[d] > 1;
  if (nonunit)
    reduce(&r, d, (uint64_t)ta->dims[d], r.vary[d], (r.den_vary >> d) & 1);
  return r;
}

// An accumulator over the block graph's forloop iterations.
static Deg accum_degree(Walk *w, const MgGraph *gr, const MgOp *op,
                        const Deg *a, const Deg *b, const MgTensor *ta) {
  Deg r;
  if (op->acc == MG_ACCUM_MAX) {
    r = *a;
    r.atoms = sat_mul(r.atoms, (uint64_t)gr->forloop);
    selection(&r);
    return r;
  }
  if (op->acc == MG_ACCUM_ONLINE)
    return online(w, a, b, (uint64_t)gr->forloop);
  r = *a;
  r.pure = false;
  if (op->acc == MG_ACCUM_SUM_SQ_LAST)
    square(&r);
  if (op->acc != MG_ACCUM_SUM) {
    uint32_t last = ta->rank - 1;
    reduce(&r, last, (uint64_t)ta->dims[last], r.vary[last],
           (r.den_vary >> last) & 1);
  }
  loop_sum(&r, (uint64_t)gr->forloop);
  return r;
}

// The facts of op i's (single) result from its operands' (deg) and the
// graph's inputs; op_runs is how often the op runs per program run.
static MgStatus op_degree(Walk *w, const Frame *f, uint32_t i, const Deg *deg,
                          double op_runs, Deg *out) {
  MgGraphId gid = f->gid;
  const Deg *inputs = f->inputs;
  uint32_t num_inputs = f->num_inputs;
  const MgGraph *gr = &w->p->graphs[gid];
  const MgOp *op = &gr->ops[i];
  MgOpKind kind = (MgOpKind)op->kind;
  const MgTensor *t = &gr->tensors[op->outputs[0]];
  const Deg *a = op->num_inputs > 0 ? &deg[op->inputs[0]] : NULL;
  const MgTensor *ta = op->num_inputs > 0 ? &gr->tensors[op->inputs[0]] : NULL;
  const Deg *b = op->num_inputs > 1 ? &deg[op->inputs[1]] : NULL;
  const MgTensor *tb = op->num_inputs > 1 ? &gr->tensors[op->inputs[1]] : NULL;
  Deg r;
  memset(&r, 0, sizeof r);
  switch (kind) {
  case MG_OP_INPUT:
    if (op->attr < 0 || (uint32_t)op->attr >= num_inputs)
      return mg_diag_set(w->diag, MG_STATUS_INVALID, (int32_t)gid, (int32_t)i,
                         "input position %d out of range", op->attr);
    r = inputs[op->attr];
    break;
  case MG_OP_MATMUL:
    r = matmul(a, ta, b, tb, t);
    break;
  case MG_OP_MAX:
    // The element-wise facts of a + b over-approximate either operand's.
    r = binary(MG_OP_ADD, (Operand){a, ta}, (Operand){b, tb}, t, w->laurent);
    // Two compared values that are equal in the field tie: their
    // difference counts with the atoms' arguments (docs: Max).
    w->out->arg_num = h_join(w->out->arg_num, r.hn);
    w->out->arg_den = h_join(w->out->arg_den, r.hd);
    r.num = max_u64(a->num, b->num);
    r.den = max_u64(a->den, b->den);
    r.hn = h_join(a->hn, b->hn);
    r.hd = h_join(a->hd, b->hd);
    selection(&r);
    break;
  case MG_OP_MAX_SCALAR: case MG_OP_MIN_SCALAR: {
    // x or the constant c; x and c tie where x - c vanishes, so that
    // difference counts with the atoms' arguments, as for MAX.
    r = *a;
    MgHeight c = h_const(op->scalar);
    w->out->arg_num =
        h_join(w->out->arg_num, h_add(a->hn, h_mul(c, a->hd)));
    w->out->arg_den = h_join(w->out->arg_den, a->hd);
    r.hn = h_join(a->hn, c);
    selection(&r);
    break;
  }
  case MG_OP_REDUCE_MAX: {
    r = *a;
    uint32_t d = (uint32_t)op->attr;
    if (d < ta->rank)
      max_over(&r, (uint64_t)ta->dims[d], r.vary[d]);
    break;
  }
  case MG_OP_ADD: case MG_OP_SUB: case MG_OP_MUL: case MG_OP_DIV:
    r = binary(kind, (Operand){a, ta}, (Operand){b, tb}, t, w->laurent);
    if (kind == MG_OP_DIV)
      note_division(w, b, t, !r.qbot, op_runs);
    break;
  case MG_OP_EXP:
    if (a->qbot)
      return mg_diag_set(w->diag, MG_STATUS_INVALID, (int32_t)gid, (int32_t)i,
                         "exp applied to an exp result (outside LAX)");
    note_atom(w, a);
    r = atom_of(a, t, kind);
    break;
  case MG_OP_SQRT: case MG_OP_RSQRT: case MG_OP_SILU: case MG_OP_GELU:
  case MG_OP_RELU: case MG_OP_LOG: case MG_OP_TANH: case MG_OP_ERF:
    note_atom(w, a);
    r = atom_of(a, t, kind);
    break;
  case MG_OP_SQUARE:
    r = *a;
    square(&r);
    r.pure = false;
    break;
  case MG_OP_MUL_SCALAR: case MG_OP_DIV_SCALAR:
    r = *a; // a constant factor changes no degree (and keeps `pure`)
    scale_heights(w, &r, kind, op->scalar);
    break;
  case MG_OP_ADD_SCALAR: // n/d + c = (n + c·d)/d
    r = *a;
    r.num = max_u64(a->num, a->den);
    r.hn = h_add(a->hn, h_mul(h_const(op->scalar), a->hd));
    r.pure = false;
    break;
  case MG_OP_SUM:
    r = sum_degree(op, a, ta);
    break;
  case MG_OP_CONCAT:
    r = concat_degree(op, deg);
    break;
  case MG_OP_TRANSPOSE: case MG_OP_RESHAPE: case MG_OP_SLICE:
  case MG_OP_IM2COL: // ... and padding zeros, of degree 0
    r = *a; // the same elements, re-indexed
    view_facts(op, a, ta, t, &r);
    break;
  case MG_OP_ITERATOR:
    r = *a; // a tile of the tensor: same dims, cut
    break;
  case MG_OP_ACCUM:
    r = accum_degree(w, gr, op, a, b, ta);
    break;
  case MG_OP_SAVER:
    // Blocks write different tiles: assume everything changes everywhere.
    r = *a;
    for (uint32_t d = 0; d < MG_MAX_DIMS; ++d)
      r.vary[d] = r.atoms;
    r.den_vary = r.den > 0 ? 0xFF : 0;
    break;
  default:
    return mg_diag_set(w->diag, MG_STATUS_UNSUPPORTED, (int32_t)gid,
                       (int32_t)i, "op '%s' is not supported by the verifier",
                       mg_op_kind_name(kind));
  }
  clamp_to(&r, t);
  *out = r;
  return MG_STATUS_OK;
}

static MgStatus walk_graph(Walk *w, const Frame *f, Deg *outs) {
  MgGraphId gid = f->gid;
  double runs = f->runs;
  int depth = f->depth;
  if (depth > MG_DEG_MAX_DEPTH)
    return mg_diag_set(w->diag, MG_STATUS_INVALID, (int32_t)gid, -1,
                       "graphs nest too deeply");
  const MgGraph *gr = &w->p->graphs[gid];
  Deg *deg = calloc(gr->num_tensors ? gr->num_tensors : 1, sizeof *deg);
  if (!deg)
    return mg_diag_set(w->diag, MG_STATUS_NOMEM, (int32_t)gid, -1,
                       "out of memory");
  double blocks = 1;
  if (gr->level == MG_LEVEL_BLOCK)
    blocks = (double)gr->grid[0] * gr->grid[1] * gr->grid[2];
  MgStatus st = MG_STATUS_OK;
  for (uint32_t i = 0; i < gr->num_ops && st == MG_STATUS_OK; ++i) {
    const MgOp *op = &gr->ops[i];
    double op_runs = runs * blocks;
    if (gr->level == MG_LEVEL_BLOCK && gr->forloop > 1 &&
        mg_graph_op_in_loop(w->p, gid, i))
      op_runs *= gr->forloop;
    if (op->kind == MG_OP_CUSTOM || op->kind == MG_OP_THREAD)
      // A kernel op runs its block graph once per program run (each block
      // graph op then multiplies by its grid); a thread op runs per block
      // and iteration.
      st = walk_sub(w, gr, op, deg, op_runs, depth);
    else
      st = op_degree(w, f, i, deg, op_runs, &deg[op->outputs[0]]);
  }
  if (st == MG_STATUS_OK)
    for (uint32_t k = 0; k < gr->num_outputs; ++k)
      outs[k] = deg[gr->outputs[k]];
  free(deg);
  return st;
}

// A fixed input's values are constants, not variables: their heights.
static MgHeight constant_height(const MgVerifyConstant *k) {
  MgHeight r = {-INFINITY, INFINITY};
  for (int64_t e = 0; e < k->count; ++e)
    if (k->values[e] != 0.0)
      r = h_join(r, h_const(k->values[e]));
  return isfinite(r.h) ? r : unit_height;
}

MgStatus mg_verify_degrees(const MgProgram *program, bool laurent,
                           const MgVerifyConstant *consts, uint32_t num_consts,
                           MgVerifyDegrees *out, MgDiag *diag) {
  memset(out, 0, sizeof *out);
  if (!program || program->num_graphs == 0)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "empty program");
  const MgGraph *root = &program->graphs[0];
  Deg *in = calloc(root->num_inputs ? root->num_inputs : 1, sizeof *in);
  Deg *outs = calloc(root->num_outputs ? root->num_outputs : 1, sizeof *outs);
  MgStatus st = MG_STATUS_OK;
  if (!in || !outs) {
    st = mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
    goto done;
  }
  for (uint32_t i = 0; i < root->num_inputs; ++i)
    in[i].num = 1; // a uniform random residue: a degree-1 variable
  // A fixed input stays a degree-1 variable (fixing it only lowers
  // degrees) but takes its values' heights.
  for (uint32_t c = 0; c < num_consts; ++c)
    if (consts[c].input < root->num_inputs)
      in[consts[c].input].hn = constant_height(&consts[c]);
  Walk w = {program, out, diag, laurent};
  Frame root_frame = {0, in, root->num_inputs, 1.0, 0};
  st = walk_graph(&w, &root_frame, outs);
  if (st != MG_STATUS_OK)
    goto done;
  out->num = out->den = unit_height;
  for (uint32_t k = 0; k < root->num_outputs; ++k) {
    out->num = h_join(out->num, outs[k].hn);
    out->den = h_join(out->den, outs[k].hd);
    out->degree = max_u64(out->degree, sat_add(outs[k].num, outs[k].den));
    out->atoms = max_u64(out->atoms, outs[k].atoms);
    out->pos |= outs[k].pos;
    out->neg |= outs[k].neg;
  }
done:
  free(in);
  free(outs);
  return st;
}

MgVerifyBound mg_verify_bound_from(const MgVerifyDegrees *a,
                                   const MgVerifyDegrees *b) {
  // Every field of the set has p >= MG_FF_P_LO and q >= MG_FF_Q_LO.
  const double p = (double)MG_FF_P_LO, q = (double)MG_FF_Q_LO;
  const double fields = (double)MG_FF_FIELDS;
  MgVerifyBound r = {1.0, 0.0};
  // D: degree of the cleared difference; c: atoms it can involve; the
  // witness monomial has at most min(c, D) atoms, each bringing at most
  // arg_atoms nested ones (docs/verification.md, "The bound").
  double degree = (double)a->degree + (double)b->degree;
  double atoms = (double)a->atoms + (double)b->atoms;
  double arg = (double)max_u64(a->arg_degree, b->arg_degree);
  double nested = (double)max_u64(a->arg_atoms, b->arg_atoms);
  double witness = degree * (1.0 + nested);
  if (witness > atoms)
    witness = atoms;
  // Constants ("Constants"): the test's prime may divide the integer
  // coefficient of the witness (N = N_a·D_b − N_b·D_a), or the difference
  // of two atoms' arguments (u_i·d_j − u_j·d_i), or a divisor.
  MgHeight diff = h_add(h_mul(a->num, b->den), h_mul(b->num, a->den));
  MgHeight args = h_times(h_mul(h_join(a->arg_num, b->arg_num),
                                h_join(a->arg_den, b->arg_den)), 2);
  double kill_witness = prime_divisors(diff) / fields;
  double kill_arg = prime_divisors(args) / fields;
  double kill_div = (a->div_kills + b->div_kills) / fields;
  double miss = degree / p + degree / q +
                witness * atoms * (2.0 * arg / q + kill_arg) + kill_witness;
  double zero = a->zero_mass + b->zero_mass + kill_div;
  r.constants = witness * atoms * kill_arg + kill_witness + kill_div;
  if (!(zero < 1.0))
    return r;
  // A test that hits a zero divisor is redrawn: condition on its absence.
  double eps = miss / (1.0 - zero);
  if (!(eps < 1.0))
    return r;
  r.eps = eps > 1.0 / p ? eps : 1.0 / p;
  return r;
}

MgStatus mg_verify_pair_bound(const MgProgram *a, const MgProgram *b,
                              const MgVerifyConstant *consts,
                              uint32_t num_consts, MgVerifyBound *bound,
                              MgDiag *diag) {
  MgVerifyDegrees da, db;
  *bound = (MgVerifyBound){1.0, 0.0};
  MgStatus st = mg_verify_degrees(a, true, consts, num_consts, &da, diag);
  if (st == MG_STATUS_OK)
    st = mg_verify_degrees(b, true, consts, num_consts, &db, diag);
  // An atom kind with both signs (e.g. x / r in one program, x·r in the
  // other) breaks the Laurent argument: clear every denominator instead.
  if (st == MG_STATUS_OK && ((da.pos | db.pos) & (da.neg | db.neg))) {
    st = mg_verify_degrees(a, false, consts, num_consts, &da, diag);
    if (st == MG_STATUS_OK)
      st = mg_verify_degrees(b, false, consts, num_consts, &db, diag);
  }
  if (st == MG_STATUS_OK)
    *bound = mg_verify_bound_from(&da, &db);
  return st;
}

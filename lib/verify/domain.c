//===- domain.c - Residue-pair arithmetic for the executor ----------------===//
//
// Both components follow + - * / and sums; ⊥ in the q component absorbs
// (anything combined with an exp result can no longer feed an exp). exp maps
// (x_p, x_q) to (g^x_q mod p, ⊥). Non-LAX ops are uninterpreted functions:
// a keyed 64-bit mix of (test key, op kind, x_p) reduced into Z_p and Z_q,
// so equal arguments give equal results in both programs of a test. The
// function reads only x_p: an argument's q component may be ⊥ in one program
// and live in an equivalent one (y versus y + 0 * exp(z)), and keying on it
// would then reject equivalent programs.
// Matmul, the hot path at the paper's shapes, is in matmul.c.
//
//===----------------------------------------------------------------------===//
#include "matmul.h"

#include <stdlib.h>
#include <string.h>

void mg_ff_context_init(MgFfContext *ctx, uint64_t key) {
  memset(ctx, 0, sizeof *ctx);
  ctx->key = key;
  ctx->field = (MgFfField){MG_FF_P, MG_FF_Q};
}

void mg_ff_context_set_field(MgFfContext *ctx, MgFfField field) {
  ctx->field = field;
}

void mg_ff_context_rekey(MgFfContext *ctx, uint64_t key) {
  ctx->key = key;
  ctx->fault = MG_FF_FAULT_NONE;
  ctx->uf_calls = 0;
}

void mg_ff_context_dispose(MgFfContext *ctx) {
  if (!ctx)
    return;
  free(ctx->exp_tables);
  free(ctx->scratch);
  free(ctx->bound_ranks);
  memset(ctx, 0, sizeof *ctx);
}

const char *mg_ff_fault_message(MgFfFault fault) {
  switch (fault) {
  case MG_FF_FAULT_NONE: return "no fault";
  case MG_FF_FAULT_ZERO_DIVISOR: return "zero divisor residue";
  case MG_FF_FAULT_EXP_OF_EXP: return "exp applied to an exp result (outside LAX)";
  case MG_FF_FAULT_BAD_SCALAR: return "scalar is NaN or infinite";
  case MG_FF_FAULT_UNSUPPORTED: return "op kind not supported by the finite-field domain";
  case MG_FF_FAULT_NOMEM: return "out of memory";
  case MG_FF_FAULT_DEADLINE: return "time budget exhausted";
  default: return "unknown fault";
  }
}

MgStatus mg_ff_fail(MgFfContext *ctx, MgFfFault fault) {
  ctx->fault = fault;
  return fault == MG_FF_FAULT_NOMEM         ? MG_STATUS_NOMEM
         : fault == MG_FF_FAULT_UNSUPPORTED ? MG_STATUS_UNSUPPORTED
         : fault == MG_FF_FAULT_DEADLINE    ? MG_STATUS_BUDGET
                                            : MG_STATUS_INVALID;
}

// A run at large shapes can take minutes; a caller with a time budget sets
// a deadline. The clock is read once per ~4M cells of work, so small calls
// cost nothing.
bool mg_ff_past_deadline(MgFfContext *ctx, uint64_t work) {
  if (ctx->deadline <= 0)
    return false;
  ctx->work += work;
  if (ctx->work < (1u << 22))
    return false;
  ctx->work = 0;
  return mg_clock_now() > ctx->deadline;
}

// Each slot holds powers of g for one p; a field not among the slots
// refills the oldest (about 80k multiplications, small beside a test).
#define EXP_SLOT_WORDS ((1u << 16) + (1u << 14))

static bool select_exp_tables(MgFfContext *ctx) {
  const uint32_t P = ctx->field.p;
  if (ctx->exp_lo && ctx->exp_cur == P)
    return true;
  if (!ctx->exp_tables) {
    ctx->exp_tables = malloc(sizeof(uint32_t) * EXP_SLOT_WORDS * MG_FF_EXP_SLOTS);
    if (!ctx->exp_tables)
      return false;
  }
  uint32_t slot = 0;
  while (slot < MG_FF_EXP_SLOTS && ctx->exp_p[slot] != P)
    ++slot;
  if (slot == MG_FF_EXP_SLOTS) {
    slot = ctx->exp_next;
    ctx->exp_next = (slot + 1) % MG_FF_EXP_SLOTS;
    uint32_t *lo = ctx->exp_tables + (size_t)slot * EXP_SLOT_WORDS;
    uint32_t *hi = lo + (1u << 16);
    uint32_t step = mg_ff_pow(MG_FF_G, 1u << 16, P);
    lo[0] = hi[0] = 1;
    for (uint32_t i = 1; i < (1u << 16); ++i)
      lo[i] = mg_ff_mul(lo[i - 1], MG_FF_G, P);
    for (uint32_t i = 1; i < (1u << 14); ++i)
      hi[i] = mg_ff_mul(hi[i - 1], step, P);
    ctx->exp_p[slot] = P;
  }
  ctx->exp_lo = ctx->exp_tables + (size_t)slot * EXP_SLOT_WORDS;
  ctx->exp_hi = ctx->exp_lo + (1u << 16);
  ctx->exp_cur = P;
  return true;
}

uint32_t mg_ff_exp(MgFfContext *ctx, uint32_t x) {
  if (!select_exp_tables(ctx))
    return mg_ff_pow(MG_FF_G, x, ctx->field.p);
  return mg_ff_mul(ctx->exp_lo[x & 0xFFFFu], ctx->exp_hi[x >> 16],
                   ctx->field.p);
}

//===--- Element-wise -----------------------------------------------------===//

// Element-wise division with Montgomery's batch inversion: per chunk, one
// modular inverse of the product of the divisors and three multiplications
// per distinct divisor, instead of one exponentiation per element. A divisor
// repeated along a broadcast row (x / rms, e / Σe) counts once. The q
// component takes part only where both operands' q is live (else it is ⊥).
#define DIV_CHUNK 256
static MgStatus ff_divide(MgFfContext *ctx, const MgCell *a, const MgCell *b,
                          MgCell *out, size_t n) {
  const uint32_t P = ctx->field.p, Q = ctx->field.q;
  // Per distinct divisor of the chunk: the prefix products, then inverses.
  uint32_t inv_p[DIV_CHUNK], inv_q[DIV_CHUNK];
  MgCell divisor[DIV_CHUNK];
  for (size_t base = 0; base < n; base += DIV_CHUNK) {
    size_t m = n - base < DIV_CHUNK ? n - base : DIV_CHUNK, u = 0;
    const MgCell *ac = a + base, *bc = b + base;
    uint32_t acc_p = 1, acc_q = 1;
    for (size_t i = 0; i < m; ++i) {
      uint32_t bp = mg_ff_cell_p(bc[i]), bq = mg_ff_cell_q(bc[i]);
      bool live = mg_ff_cell_q_live(ac[i]) && bq != MG_FF_BOTTOM;
      if (bp == 0 || (live && bq == 0))
        return mg_ff_fail(ctx, MG_FF_FAULT_ZERO_DIVISOR);
      if (u > 0 && bc[i] == divisor[u - 1])
        continue;
      divisor[u] = bc[i];
      inv_p[u] = acc_p;
      inv_q[u] = acc_q;
      acc_p = mg_ff_mul(acc_p, bp, P);
      // A live q divisor joins the product (it is non-zero: checked above
      // for live operands; a zero q with a ⊥ dividend is never used).
      if (bq != MG_FF_BOTTOM && bq != 0)
        acc_q = mg_ff_mul(acc_q, bq, Q);
      ++u;
    }
    uint32_t run_p = mg_ff_inv(acc_p, P), run_q = mg_ff_inv(acc_q, Q);
    for (size_t k = u; k-- > 0;) {
      uint32_t bp = mg_ff_cell_p(divisor[k]), bq = mg_ff_cell_q(divisor[k]);
      inv_p[k] = mg_ff_mul(run_p, inv_p[k], P);
      run_p = mg_ff_mul(run_p, bp, P);
      if (bq != MG_FF_BOTTOM && bq != 0) {
        inv_q[k] = mg_ff_mul(run_q, inv_q[k], Q);
        run_q = mg_ff_mul(run_q, bq, Q);
      }
    }
    for (size_t i = 0, k = 0; i < m; ++i) {
      if (i > 0 && bc[i] != bc[i - 1])
        ++k;
      bool live = mg_ff_cell_q_live(ac[i]) && mg_ff_cell_q_live(bc[i]);
      uint32_t rp = mg_ff_mul(mg_ff_cell_p(ac[i]), inv_p[k], P);
      uint32_t rq = live ? mg_ff_mul(mg_ff_cell_q(ac[i]), inv_q[k], Q)
                         : MG_FF_BOTTOM;
      out[base + i] = mg_ff_cell(rp, rq);
    }
  }
  return MG_STATUS_OK;
}

static uint64_t ff_order_key(const MgFfContext *ctx) {
  return mg_ff_mix(ctx->key ^ 0x4d41584f52444552ull); // "MAXORDER"
}

void mg_ff_context_set_bounds(MgFfContext *ctx, const double *values,
                              uint32_t n) {
  free(ctx->bound_ranks);
  ctx->bound_ranks = NULL;
  ctx->bounds = values;
  ctx->num_bounds = values ? n : 0;
  ctx->bound_p = 0; // recomputed on the next comparison
  ctx->bound_live = 0;
}

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

// By image, then rank: two reals with one image keep the lower rank.
static int cmp_bound(const void *x, const void *y) {
  const MgFfBoundRank *a = x, *b = y;
  if (a->img != b->img)
    return a->img < b->img ? -1 : 1;
  return a->rank < b->rank ? -1 : a->rank > b->rank;
}

// This test's ranks of the constants' images: n keyed draws, sorted, the
// lowest to the lowest constant; then the pairs sorted by image.
static bool bound_ranks(MgFfContext *ctx, uint64_t k) {
  uint32_t n = ctx->num_bounds;
  if (ctx->bound_p == ctx->field.p && ctx->bound_key == k)
    return true;
  if (!ctx->bound_ranks) {
    ctx->bound_ranks = malloc(n * sizeof *ctx->bound_ranks);
    if (!ctx->bound_ranks)
      return false;
  }
  uint64_t *draw = malloc(n * sizeof *draw);
  if (!draw)
    return false;
  for (uint32_t i = 0; i < n; i++)
    draw[i] = mg_ff_mix(k ^ (0x424f554e44530000ull + i)); // "BOUNDS"
  qsort(draw, n, sizeof *draw, cmp_u64);
  MgFfBoundRank *r = ctx->bound_ranks;
  uint32_t live = 0;
  for (uint32_t i = 0; i < n; i++)
    if (mg_ff_scalar(ctx->bounds[i], ctx->field.p, &r[live].img))
      r[live++].rank = draw[i]; // else refused where it is used
  free(draw);
  qsort(r, live, sizeof *r, cmp_bound);
  uint32_t m = 0;
  for (uint32_t i = 0; i < live; i++)
    if (!m || r[i].img != r[m - 1].img)
      r[m++] = r[i];
  ctx->bound_live = m;
  ctx->bound_p = ctx->field.p;
  ctx->bound_key = k;
  return true;
}

// The rank of x_p in this test's order: a constant's drawn rank, else a
// keyed mix of x_p (a function of the element, so the order is total).
static uint64_t ff_rank(const MgFfContext *ctx, uint64_t k, uint32_t xp) {
  uint32_t lo = 0, hi = ctx->bound_live;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (ctx->bound_ranks[mid].img < xp)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < ctx->bound_live && ctx->bound_ranks[lo].img == xp)
    return ctx->bound_ranks[lo].rank;
  return mg_ff_mix(k ^ xp);
}

// max (min: the other one) of a and b in this test's order; a tie on
// equal x_p goes to the live q component, for max and min alike.
static MgCell ff_pick(const MgFfContext *ctx, uint64_t k, MgCell a, MgCell b,
                      bool max) {
  uint32_t ap = mg_ff_cell_p(a), bp = mg_ff_cell_p(b);
  if (ap == bp)
    return mg_ff_cell_q_live(a) ? a : b;
  uint64_t ra = ff_rank(ctx, k, ap), rb = ff_rank(ctx, k, bp);
  bool above = ra > rb || (ra == rb && ap > bp);
  return above == max ? a : b;
}

// Prepares the constants' ranks for this test (false: out of memory).
static bool ff_order_ready(MgFfContext *ctx, uint64_t k) {
  return !ctx->num_bounds || bound_ranks(ctx, k);
}

// Max is the maximum under a random total order of Z_p, drawn per test:
// the rank of x is a keyed mix of x_p (ties, only between equal ranks,
// broken by x_p). It is associative, commutative and idempotent and picks
// one of its arguments, like the real max, and knows nothing else about
// the reals (docs/verification.md, Max). Like the uninterpreted functions it
// reads only x_p; on equal x_p the live q component wins, so y and
// y + 0·exp(z) give the same result.
static MgStatus ff_max(MgFfContext *ctx, const MgCell *a, const MgCell *b,
                       MgCell *out, size_t n) {
  uint64_t k = ff_order_key(ctx);
  if (!ff_order_ready(ctx, k))
    return mg_ff_fail(ctx, MG_FF_FAULT_NOMEM);
  for (size_t i = 0; i < n; ++i)
    out[i] = ff_pick(ctx, k, a[i], b[i], true);
  return MG_STATUS_OK;
}

// max / min of x and the constant c in the same order: min is max's dual
// (the lower of the two), so clamps keep the lattice laws max has.
static MgStatus ff_bound(MgFfContext *ctx, MgOpKind kind, MgCell c,
                         const MgCell *a, MgCell *out, size_t n) {
  uint64_t k = ff_order_key(ctx);
  if (!ff_order_ready(ctx, k))
    return mg_ff_fail(ctx, MG_FF_FAULT_NOMEM);
  bool max = kind == MG_OP_MAX_SCALAR;
  for (size_t i = 0; i < n; ++i)
    out[i] = ff_pick(ctx, k, a[i], c, max);
  return MG_STATUS_OK;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

uint32_t mg_ff_collect_bounds(const MgProgram *a, const MgProgram *b,
                              double **out) {
  *out = NULL;
  uint32_t n = 0, cap = 0;
  double *v = NULL;
  for (int w = 0; w < 2; w++) {
    const MgProgram *p = w ? b : a;
    for (uint32_t g = 0; p && g < p->num_graphs; g++)
      for (uint32_t i = 0; i < p->graphs[g].num_ops; i++) {
        const MgOp *op = &p->graphs[g].ops[i];
        if (op->kind != MG_OP_MAX_SCALAR && op->kind != MG_OP_MIN_SCALAR)
          continue;
        if (n == cap) {
          cap = cap ? 2 * cap : 8;
          double *nv = realloc(v, cap * sizeof *v);
          if (!nv) {
            free(v);
            return UINT32_MAX;
          }
          v = nv;
        }
        v[n++] = op->scalar;
      }
  }
  if (!n)
    return 0;
  qsort(v, n, sizeof *v, cmp_double);
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!m || v[i] != v[m - 1])
      v[m++] = v[i];
  *out = v;
  return m;
}

static MgStatus ff_binary(void *vctx, MgOpKind kind, const MgCell *a,
                          const MgCell *b, MgCell *out, size_t n) {
  MgFfContext *ctx = vctx;
  const uint32_t P = ctx->field.p, Q = ctx->field.q;
  if (mg_ff_past_deadline(ctx, n))
    return mg_ff_fail(ctx, MG_FF_FAULT_DEADLINE);
  if (kind == MG_OP_DIV)
    return ff_divide(ctx, a, b, out, n);
  if (kind == MG_OP_MAX)
    return ff_max(ctx, a, b, out, n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t ap = mg_ff_cell_p(a[i]), aq = mg_ff_cell_q(a[i]);
    uint32_t bp = mg_ff_cell_p(b[i]), bq = mg_ff_cell_q(b[i]);
    bool live = aq != MG_FF_BOTTOM && bq != MG_FF_BOTTOM;
    uint32_t rp, rq = MG_FF_BOTTOM;
    switch (kind) {
    case MG_OP_ADD:
      rp = mg_ff_add(ap, bp, P);
      if (live)
        rq = mg_ff_add(aq, bq, Q);
      break;
    case MG_OP_SUB:
      rp = mg_ff_sub(ap, bp, P);
      if (live)
        rq = mg_ff_sub(aq, bq, Q);
      break;
    case MG_OP_MUL:
      rp = mg_ff_mul(ap, bp, P);
      if (live)
        rq = mg_ff_mul(aq, bq, Q);
      break;
    default:
      return mg_ff_fail(ctx, MG_FF_FAULT_UNSUPPORTED);
    }
    out[i] = mg_ff_cell(rp, rq);
  }
  return MG_STATUS_OK;
}

// The uninterpreted function `kind` of this test at x_p.
static MgCell uninterpreted(const MgFfContext *ctx, MgOpKind kind,
                            uint32_t xp) {
  uint64_t h = mg_ff_mix(mg_ff_mix(ctx->key ^ ((uint64_t)kind << 56)) ^ xp);
  uint64_t h2 = mg_ff_mix(h ^ 0x6a09e667f3bcc909ull);
  return mg_ff_cell((uint32_t)(h % ctx->field.p), (uint32_t)(h2 % ctx->field.q));
}

static MgStatus ff_unary(void *vctx, MgOpKind kind, double scalar,
                         const MgCell *a, MgCell *out, size_t n) {
  MgFfContext *ctx = vctx;
  const uint32_t P = ctx->field.p, Q = ctx->field.q;
  if (mg_ff_past_deadline(ctx, n))
    return mg_ff_fail(ctx, MG_FF_FAULT_DEADLINE);
  // The constant's exact images, for every op that has one.
  uint32_t sp = 0, sq = 0;
  if (mg_op_kind_has_scalar(kind) &&
      (!mg_ff_scalar(scalar, P, &sp) || !mg_ff_scalar(scalar, Q, &sq)))
    return mg_ff_fail(ctx, MG_FF_FAULT_BAD_SCALAR);
  switch (kind) {
  case MG_OP_EXP:
    for (size_t i = 0; i < n; ++i) {
      uint32_t xq = mg_ff_cell_q(a[i]);
      if (xq == MG_FF_BOTTOM)
        return mg_ff_fail(ctx, MG_FF_FAULT_EXP_OF_EXP);
      out[i] = mg_ff_cell(mg_ff_exp(ctx, xq), MG_FF_BOTTOM);
    }
    return MG_STATUS_OK;
  case MG_OP_SQUARE:
    for (size_t i = 0; i < n; ++i) {
      uint32_t xp = mg_ff_cell_p(a[i]), xq = mg_ff_cell_q(a[i]);
      out[i] = mg_ff_cell(mg_ff_mul(xp, xp, P),
                          xq == MG_FF_BOTTOM ? xq : mg_ff_mul(xq, xq, Q));
    }
    return MG_STATUS_OK;
  case MG_OP_MUL_SCALAR:
  case MG_OP_DIV_SCALAR:
  case MG_OP_ADD_SCALAR: {
    if (kind == MG_OP_DIV_SCALAR) {
      if (sp == 0 || sq == 0)
        return mg_ff_fail(ctx, MG_FF_FAULT_ZERO_DIVISOR);
      sp = mg_ff_inv(sp, P);
      sq = mg_ff_inv(sq, Q);
    }
    bool add = kind == MG_OP_ADD_SCALAR;
    for (size_t i = 0; i < n; ++i) {
      uint32_t xp = mg_ff_cell_p(a[i]), xq = mg_ff_cell_q(a[i]);
      uint32_t rp = add ? mg_ff_add(xp, sp, P) : mg_ff_mul(xp, sp, P);
      uint32_t rq = xq == MG_FF_BOTTOM ? xq
                    : add              ? mg_ff_add(xq, sq, Q)
                                       : mg_ff_mul(xq, sq, Q);
      out[i] = mg_ff_cell(rp, rq);
    }
    return MG_STATUS_OK;
  }
  case MG_OP_MAX_SCALAR:
  case MG_OP_MIN_SCALAR:
    return ff_bound(ctx, kind, mg_ff_cell(sp, sq), a, out, n);
  default:
    if (!mg_op_kind_is_opaque(kind))
      return mg_ff_fail(ctx, MG_FF_FAULT_UNSUPPORTED);
    for (size_t i = 0; i < n; ++i)
      out[i] = uninterpreted(ctx, kind, mg_ff_cell_p(a[i]));
    ctx->uf_calls += n;
    return MG_STATUS_OK;
  }
}

static MgStatus ff_add_into(void *vctx, MgCell *acc, const MgCell *x,
                            size_t n) {
  MgFfContext *ctx = vctx;
  if (mg_ff_past_deadline(ctx, n))
    return mg_ff_fail(ctx, MG_FF_FAULT_DEADLINE);
  for (size_t i = 0; i < n; ++i) {
    uint32_t aq = mg_ff_cell_q(acc[i]), xq = mg_ff_cell_q(x[i]);
    uint32_t rq = aq == MG_FF_BOTTOM || xq == MG_FF_BOTTOM
                      ? MG_FF_BOTTOM
                      : mg_ff_add(aq, xq, ctx->field.q);
    acc[i] = mg_ff_cell(
        mg_ff_add(mg_ff_cell_p(acc[i]), mg_ff_cell_p(x[i]), ctx->field.p), rq);
  }
  return MG_STATUS_OK;
}

static MgStatus ff_matmul(void *ctx, const MgCell *a, const MgCell *b,
                          MgCell *c, MgMatmulShape shape) {
  return mg_ff_matmul(ctx, a, b, c, shape);
}

static const MgDomain ff_domain = {
    .binary = ff_binary,
    .unary = ff_unary,
    .add_into = ff_add_into,
    .matmul = ff_matmul,
    .zero = 0, // (0, 0): both components zero and live
};

const MgDomain *mg_ff_domain(void) { return &ff_domain; }

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
//
// Matmul is the hot path at the paper's shapes: groups of up to 8 rows of
// a accumulate 62-bit products in uint64 with a single compare-subtract per
// term (i-k-j order: the inner loop runs over a contiguous row of b, read
// once per group for both components), reducing mod m once per element.
//
//===----------------------------------------------------------------------===//
#include "mirage/ff_domain.h"

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

static MgStatus fail(MgFfContext *ctx, MgFfFault fault) {
  ctx->fault = fault;
  return fault == MG_FF_FAULT_NOMEM         ? MG_STATUS_NOMEM
         : fault == MG_FF_FAULT_UNSUPPORTED ? MG_STATUS_UNSUPPORTED
         : fault == MG_FF_FAULT_DEADLINE    ? MG_STATUS_BUDGET
                                            : MG_STATUS_INVALID;
}

// A run at large shapes can take minutes; a caller with a time budget sets
// a deadline. The clock is read once per ~4M cells of work, so small calls
// cost nothing.
static bool past_deadline(MgFfContext *ctx, uint64_t work) {
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
        return fail(ctx, MG_FF_FAULT_ZERO_DIVISOR);
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

// Max is the maximum under a random total order of Z_p, drawn per test:
// the rank of x is a keyed mix of x_p (ties, only between equal ranks,
// broken by x_p). It is associative, commutative and idempotent and picks
// one of its arguments, like the real max, and knows nothing else about
// the reals (docs/verification.md, Max). Like the uninterpreted functions it
// reads only x_p; on equal x_p the live q component wins, so y and
// y + 0·exp(z) give the same result.
static MgStatus ff_max(const MgFfContext *ctx, const MgCell *a,
                       const MgCell *b, MgCell *out, size_t n) {
  uint64_t k = mg_ff_mix(ctx->key ^ 0x4d41584f52444552ull); // "MAXORDER"
  for (size_t i = 0; i < n; ++i) {
    uint32_t ap = mg_ff_cell_p(a[i]), bp = mg_ff_cell_p(b[i]);
    if (ap == bp) {
      out[i] = mg_ff_cell_q_live(a[i]) ? a[i] : b[i];
      continue;
    }
    uint64_t ra = mg_ff_mix(k ^ ap), rb = mg_ff_mix(k ^ bp);
    out[i] = ra > rb || (ra == rb && ap > bp) ? a[i] : b[i];
  }
  return MG_STATUS_OK;
}

static MgStatus ff_binary(void *vctx, MgOpKind kind, const MgCell *a,
                          const MgCell *b, MgCell *out, size_t n) {
  MgFfContext *ctx = vctx;
  const uint32_t P = ctx->field.p, Q = ctx->field.q;
  if (past_deadline(ctx, n))
    return fail(ctx, MG_FF_FAULT_DEADLINE);
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
      return fail(ctx, MG_FF_FAULT_UNSUPPORTED);
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
  if (past_deadline(ctx, n))
    return fail(ctx, MG_FF_FAULT_DEADLINE);
  switch (kind) {
  case MG_OP_EXP:
    for (size_t i = 0; i < n; ++i) {
      uint32_t xq = mg_ff_cell_q(a[i]);
      if (xq == MG_FF_BOTTOM)
        return fail(ctx, MG_FF_FAULT_EXP_OF_EXP);
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
  case MG_OP_DIV_SCALAR: {
    uint32_t sp, sq;
    if (!mg_ff_scalar(scalar, P, &sp) || !mg_ff_scalar(scalar, Q, &sq))
      return fail(ctx, MG_FF_FAULT_BAD_SCALAR);
    if (kind == MG_OP_DIV_SCALAR) {
      if (sp == 0 || sq == 0)
        return fail(ctx, MG_FF_FAULT_ZERO_DIVISOR);
      sp = mg_ff_inv(sp, P);
      sq = mg_ff_inv(sq, Q);
    }
    for (size_t i = 0; i < n; ++i) {
      uint32_t xq = mg_ff_cell_q(a[i]);
      out[i] = mg_ff_cell(mg_ff_mul(mg_ff_cell_p(a[i]), sp, P),
                          xq == MG_FF_BOTTOM ? xq : mg_ff_mul(xq, sq, Q));
    }
    return MG_STATUS_OK;
  }
  default:
    if (!mg_op_kind_is_opaque(kind))
      return fail(ctx, MG_FF_FAULT_UNSUPPORTED);
    for (size_t i = 0; i < n; ++i)
      out[i] = uninterpreted(ctx, kind, mg_ff_cell_p(a[i]));
    ctx->uf_calls += n;
    return MG_STATUS_OK;
  }
}

static MgStatus ff_add_into(void *vctx, MgCell *acc, const MgCell *x,
                            size_t n) {
  MgFfContext *ctx = vctx;
  if (past_deadline(ctx, n))
    return fail(ctx, MG_FF_FAULT_DEADLINE);
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

//===--- Matmul -----------------------------------------------------------===//

/// Rows of a processed together, so that each row of b is read once per
/// group instead of once per row (b dominates the traffic when m is small).
#define MG_FF_ROW_GROUP 8

// For r < rows: acc_p[r][j] += ap[r]·b_p[j] and (with_q) acc_q[r][j] +=
// aq[r]·b_q[j], reading b's cells once. Each accumulator stays below its
// `limit`, the largest multiple of m² with limit + m² <= 2^64: adding one
// product (< m²) cannot overflow, and one conditional subtraction of limit
// (≡ 0 mod m) restores the bound. A ⊥ q component of b counts as 0 (the
// caller marks the affected outputs). `rows` and `with_q` are literals at
// every call, so the loops unroll and the q work disappears when unused.
// The accumulators' limits in the test's field (see rows_step).
typedef struct Limits {
  uint64_t p, q;
} Limits;

static Limits limits_of(MgFfField f) {
  const uint64_t sp = (uint64_t)f.p * f.p, sq = (uint64_t)f.q * f.q;
  return (Limits){(UINT64_MAX / sp - 1) * sp, (UINT64_MAX / sq - 1) * sq};
}

// One k step of a group of rows of a: the group's accumulators (n columns
// of `rows` cells each, p and q apart) and the residues of a's column k in
// those rows. Passed by value and unpacked into locals, so the inlined
// rows_step keeps everything in registers.
typedef struct RowGroup {
  uint64_t *acc_p, *acc_q;
  int64_t n;
  const uint64_t *ap, *aq;
} RowGroup;

static inline void rows_step(RowGroup g, int rows, bool with_q,
                             const MgCell *bk, Limits lim) {
  uint64_t *const acc_p = g.acc_p, *const acc_q = g.acc_q;
  const uint64_t *const ap = g.ap, *const aq = g.aq;
  const int64_t n = g.n;
  const uint64_t lim_p = lim.p, lim_q = lim.q;
  for (int64_t j = 0; j < n; ++j) {
    uint64_t bp = mg_ff_cell_p(bk[j]), bq = mg_ff_cell_q(bk[j]);
    bq &= (uint64_t)0 - (uint64_t)(bq != MG_FF_BOTTOM);
    uint64_t *xp = acc_p + j * rows, *xq = acc_q + j * rows;
    for (int r = 0; r < rows; ++r) {
      uint64_t x = xp[r] + ap[r] * bp;
      xp[r] = x >= lim_p ? x - lim_p : x;
      if (with_q) {
        uint64_t y = xq[r] + aq[r] * bq;
        xq[r] = y >= lim_q ? y - lim_q : y;
      }
    }
  }
}

// Dispatches one k step of a row group to an unrolled rows_step.
static void group_step(RowGroup g, int rows, bool with_q, const MgCell *bk,
                       Limits lim) {
#define MG_FF_STEP(R)                                                          \
  (with_q ? rows_step(g, R, true, bk, lim) : rows_step(g, R, false, bk, lim))
  switch (rows) {
  case 8: MG_FF_STEP(8); break;
  case 4: MG_FF_STEP(4); break;
  case 2: MG_FF_STEP(2); break;
  default: MG_FF_STEP(1); break;
  }
#undef MG_FF_STEP
}

// Flags the ⊥ rows of a and columns of b; false when there are none.
static bool find_bottoms(const MgCell *a, const MgCell *b, MgMatmulShape shape,
                         uint8_t *row_bot, uint8_t *col_bot) {
  const int64_t m = shape.m, k = shape.k, n = shape.n;
  bool any = false;
  memset(row_bot, 0, (size_t)m);
  memset(col_bot, 0, (size_t)n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk)
      if (!mg_ff_cell_q_live(a[i * k + kk]))
        row_bot[i] = 1, any = true;
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j)
      if (!mg_ff_cell_q_live(b[kk * n + j]))
        col_bot[j] = 1, any = true;
  return any;
}

static MgStatus ff_matmul(void *vctx, const MgCell *a, const MgCell *b,
                          MgCell *c, MgMatmulShape shape) {
  MgFfContext *ctx = vctx;
  const int64_t m = shape.m, k = shape.k, n = shape.n;
  if (m <= 0 || n <= 0 || k < 0)
    return MG_STATUS_OK;
  // Scratch: 2·G·n accumulators, then one flag byte per row of a and per
  // column of b.
  size_t acc_words = 2 * (size_t)MG_FF_ROW_GROUP * (size_t)n;
  size_t words = acc_words + ((size_t)m + (size_t)n + 7) / 8;
  if (words > ctx->scratch_cap) {
    uint64_t *s = realloc(ctx->scratch, words * sizeof *s);
    if (!s)
      return fail(ctx, MG_FF_FAULT_NOMEM);
    ctx->scratch = s;
    ctx->scratch_cap = words;
  }
  uint64_t *acc_p = ctx->scratch;
  uint64_t *acc_q = acc_p + (size_t)MG_FF_ROW_GROUP * (size_t)n;
  uint8_t *row_bot = (uint8_t *)(ctx->scratch + acc_words);
  uint8_t *col_bot = row_bot + m;
  bool any_bot = find_bottoms(a, b, shape, row_bot, col_bot);
  // When every row of a or every column of b holds a ⊥ (e.g. softmax·V),
  // every q component of c is ⊥: skip the q products.
  bool all_rows = any_bot, all_cols = any_bot;
  for (int64_t i = 0; all_rows && i < m; ++i)
    all_rows = row_bot[i];
  for (int64_t j = 0; all_cols && j < n; ++j)
    all_cols = col_bot[j];
  bool with_q = !all_rows && !all_cols;
  const Limits lim = limits_of(ctx->field);
  for (int64_t i0 = 0; i0 < m;) {
    int rows = m - i0 >= 8 ? 8 : m - i0 >= 4 ? 4 : m - i0 >= 2 ? 2 : 1;
    if (past_deadline(ctx, (uint64_t)rows * (uint64_t)k * (uint64_t)n))
      return fail(ctx, MG_FF_FAULT_DEADLINE);
    memset(acc_p, 0, (size_t)rows * (size_t)n * sizeof *acc_p);
    memset(acc_q, 0, (size_t)rows * (size_t)n * sizeof *acc_q);
    for (int64_t kk = 0; kk < k; ++kk) {
      uint64_t ap[MG_FF_ROW_GROUP], aq[MG_FF_ROW_GROUP];
      uint64_t any = 0;
      for (int r = 0; r < rows; ++r) {
        MgCell x = a[(i0 + r) * k + kk];
        uint32_t xq = mg_ff_cell_q(x);
        ap[r] = mg_ff_cell_p(x);
        aq[r] = xq == MG_FF_BOTTOM ? 0 : xq;
        any |= ap[r] | aq[r];
      }
      if (any)
        group_step((RowGroup){acc_p, acc_q, n, ap, aq}, rows, with_q,
                   b + kk * n, lim);
    }
    for (int r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j) {
        bool bot = !with_q || (any_bot && (row_bot[i0 + r] || col_bot[j]));
        uint64_t vp = acc_p[j * rows + r] % ctx->field.p;
        uint64_t vq = bot ? MG_FF_BOTTOM : acc_q[j * rows + r] % ctx->field.q;
        c[(i0 + r) * n + j] = mg_ff_cell((uint32_t)vp, (uint32_t)vq);
      }
    i0 += rows;
  }
  return MG_STATUS_OK;
}

static const MgDomain ff_domain = {
    .binary = ff_binary,
    .unary = ff_unary,
    .add_into = ff_add_into,
    .matmul = ff_matmul,
    .zero = 0, // (0, 0): both components zero and live
};

const MgDomain *mg_ff_domain(void) { return &ff_domain; }

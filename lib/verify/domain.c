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
// Matmul is the hot path at the paper's shapes: operands are unpacked into
// two residue planes, and each output row accumulates 62-bit products in
// uint64 with a single compare-subtract per term (i-k-j order, the inner
// loop runs over contiguous rows of b and c), reducing mod m once per
// element at the end.
//
//===----------------------------------------------------------------------===//
#include "domain.h"

#include <stdlib.h>
#include <string.h>

void mg_ff_context_init(MgFfContext *ctx, uint64_t key) {
  memset(ctx, 0, sizeof *ctx);
  ctx->key = key;
}

void mg_ff_context_rekey(MgFfContext *ctx, uint64_t key) {
  ctx->key = key;
  ctx->fault = MG_FF_FAULT_NONE;
  ctx->uf_calls = 0;
}

void mg_ff_context_dispose(MgFfContext *ctx) {
  if (!ctx)
    return;
  free(ctx->exp_lo);
  free(ctx->exp_hi);
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
  default: return "unknown fault";
  }
}

static MgStatus fail(MgFfContext *ctx, MgFfFault fault) {
  ctx->fault = fault;
  return fault == MG_FF_FAULT_NOMEM ? MG_STATUS_NOMEM
         : fault == MG_FF_FAULT_UNSUPPORTED ? MG_STATUS_UNSUPPORTED
                                            : MG_STATUS_INVALID;
}

static bool build_exp_tables(MgFfContext *ctx) {
  if (ctx->exp_lo)
    return true;
  uint32_t *lo = malloc(sizeof(uint32_t) << 16);
  uint32_t *hi = malloc(sizeof(uint32_t) << 14);
  if (!lo || !hi) {
    free(lo);
    free(hi);
    return false;
  }
  uint32_t step = mg_ff_pow(MG_FF_G, 1u << 16, MG_FF_P);
  lo[0] = hi[0] = 1;
  for (uint32_t i = 1; i < (1u << 16); ++i)
    lo[i] = mg_ff_mul(lo[i - 1], MG_FF_G, MG_FF_P);
  for (uint32_t i = 1; i < (1u << 14); ++i)
    hi[i] = mg_ff_mul(hi[i - 1], step, MG_FF_P);
  ctx->exp_lo = lo;
  ctx->exp_hi = hi;
  return true;
}

uint32_t mg_ff_exp(MgFfContext *ctx, uint32_t x) {
  if (!ctx->exp_lo && !build_exp_tables(ctx))
    return mg_ff_pow(MG_FF_G, x, MG_FF_P);
  return mg_ff_mul(ctx->exp_lo[x & 0xFFFFu], ctx->exp_hi[x >> 16], MG_FF_P);
}

//===--- Element-wise -----------------------------------------------------===//

static MgStatus ff_binary(void *vctx, MgOpKind kind, const MgCell *a,
                          const MgCell *b, MgCell *out, size_t n) {
  MgFfContext *ctx = vctx;
  const uint32_t P = MG_FF_P, Q = MG_FF_Q;
  // A divisor repeated along a broadcast row is inverted once.
  MgCell last_div = 0;
  uint32_t inv_p = 0, inv_q = 0;
  bool have_inv = false;
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
    case MG_OP_DIV:
      if (bp == 0 || (live && bq == 0))
        return fail(ctx, MG_FF_FAULT_ZERO_DIVISOR);
      if (!have_inv || b[i] != last_div) {
        inv_p = mg_ff_inv(bp, P);
        inv_q = bq != MG_FF_BOTTOM && bq != 0 ? mg_ff_inv(bq, Q) : 0;
        last_div = b[i];
        have_inv = true;
      }
      rp = mg_ff_mul(ap, inv_p, P);
      if (live)
        rq = mg_ff_mul(aq, inv_q, Q);
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
  return mg_ff_cell((uint32_t)(h % MG_FF_P), (uint32_t)(h2 % MG_FF_Q));
}

static MgStatus ff_unary(void *vctx, MgOpKind kind, double scalar,
                         const MgCell *a, MgCell *out, size_t n) {
  MgFfContext *ctx = vctx;
  const uint32_t P = MG_FF_P, Q = MG_FF_Q;
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
  case MG_OP_SQRT:
  case MG_OP_RSQRT:
  case MG_OP_SILU:
  case MG_OP_GELU:
  case MG_OP_RELU:
    for (size_t i = 0; i < n; ++i)
      out[i] = uninterpreted(ctx, kind, mg_ff_cell_p(a[i]));
    ctx->uf_calls += n;
    return MG_STATUS_OK;
  default:
    return fail(ctx, MG_FF_FAULT_UNSUPPORTED);
  }
}

static MgStatus ff_add_into(void *vctx, MgCell *acc, const MgCell *x,
                            size_t n) {
  (void)vctx;
  for (size_t i = 0; i < n; ++i) {
    uint32_t aq = mg_ff_cell_q(acc[i]), xq = mg_ff_cell_q(x[i]);
    uint32_t rq = aq == MG_FF_BOTTOM || xq == MG_FF_BOTTOM
                      ? MG_FF_BOTTOM
                      : mg_ff_add(aq, xq, MG_FF_Q);
    acc[i] = mg_ff_cell(
        mg_ff_add(mg_ff_cell_p(acc[i]), mg_ff_cell_p(x[i]), MG_FF_P), rq);
  }
  return MG_STATUS_OK;
}

//===--- Matmul -----------------------------------------------------------===//

// c[i*n + j] = Σ_k a[i*k + kk] * b[kk*n + j] mod m, with `row` as n uint64
// accumulators. `limit` is the largest multiple of m^2 with limit + m^2 <=
// 2^64, so `row[j] < limit` before a term keeps the sum below 2^64 and a
// single conditional subtraction of `limit` (≡ 0 mod m) restores the bound.
static void plane_matmul(const uint32_t *a, const uint32_t *b, uint32_t *c,
                         uint64_t *row, int64_t m, int64_t k, int64_t n,
                         uint32_t mod) {
  uint64_t sq = (uint64_t)mod * mod;
  uint64_t limit = (UINT64_MAX / sq - 1) * sq;
  for (int64_t i = 0; i < m; ++i) {
    memset(row, 0, (size_t)n * sizeof *row);
    const uint32_t *ai = a + i * k;
    for (int64_t kk = 0; kk < k; ++kk) {
      uint64_t av = ai[kk];
      if (av == 0)
        continue;
      const uint32_t *bk = b + kk * n;
      for (int64_t j = 0; j < n; ++j) {
        uint64_t s = row[j] + av * bk[j];
        row[j] = s >= limit ? s - limit : s;
      }
    }
    uint32_t *ci = c + i * n;
    for (int64_t j = 0; j < n; ++j)
      ci[j] = (uint32_t)(row[j] % mod);
  }
}

static MgStatus ff_matmul(void *vctx, const MgCell *a, const MgCell *b,
                          MgCell *c, int64_t m, int64_t k, int64_t n) {
  MgFfContext *ctx = vctx;
  if (m <= 0 || n <= 0 || k < 0)
    return MG_STATUS_OK;
  size_t mk = (size_t)m * (size_t)k, kn = (size_t)k * (size_t)n;
  size_t mn = (size_t)m * (size_t)n;
  // u32 planes: a_p a_q b_p b_q c_p c_q; then n u64 accumulators; then
  // one flag byte per row of a and per column of b (counted as u64s).
  size_t u32s = 2 * mk + 2 * kn + 2 * mn;
  size_t words = (u32s + 1) / 2 + (size_t)n + ((size_t)m + (size_t)n + 7) / 8;
  if (words > ctx->scratch_cap) {
    uint64_t *s = realloc(ctx->scratch, words * sizeof *s);
    if (!s)
      return fail(ctx, MG_FF_FAULT_NOMEM);
    ctx->scratch = s;
    ctx->scratch_cap = words;
  }
  uint32_t *ap = (uint32_t *)ctx->scratch, *aq = ap + mk;
  uint32_t *bp = aq + mk, *bq = bp + kn, *cp = bq + kn, *cq = cp + mn;
  uint64_t *row = ctx->scratch + (u32s + 1) / 2;
  uint8_t *row_bot = (uint8_t *)(row + n), *col_bot = row_bot + m;
  memset(row_bot, 0, (size_t)m + (size_t)n);
  bool any_bot = false;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk) {
      MgCell x = a[i * k + kk];
      ap[i * k + kk] = mg_ff_cell_p(x);
      uint32_t xq = mg_ff_cell_q(x);
      if (xq == MG_FF_BOTTOM) {
        row_bot[i] = 1;
        any_bot = true;
        xq = 0;
      }
      aq[i * k + kk] = xq;
    }
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) {
      MgCell x = b[kk * n + j];
      bp[kk * n + j] = mg_ff_cell_p(x);
      uint32_t xq = mg_ff_cell_q(x);
      if (xq == MG_FF_BOTTOM) {
        col_bot[j] = 1;
        any_bot = true;
        xq = 0;
      }
      bq[kk * n + j] = xq;
    }
  plane_matmul(ap, bp, cp, row, m, k, n, MG_FF_P);
  plane_matmul(aq, bq, cq, row, m, k, n, MG_FF_Q);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      size_t at = (size_t)(i * n + j);
      bool bot = any_bot && (row_bot[i] || col_bot[j]);
      c[at] = mg_ff_cell(cp[at], bot ? MG_FF_BOTTOM : cq[at]);
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

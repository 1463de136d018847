//===- matmul.c - Residue-pair matmul, the verifier's hot path ------------===//
//
// At the paper's shapes a test is mostly matmuls (3/4 of its time), so c =
// a·b has two paths with identical results (exact sums, reduced mod m once
// per element): a portable one, and on x86-64 CPUs with AVX2 (checked at
// run time: the binaries stay portable) one that multiplies four 31-bit
// residues per vpmuludq. Both take rows of a in groups of up to 8, so each
// row of b is read once per group for both components, and keep each
// accumulator below a limit that is a multiple of m² (≡ 0 mod m): adding
// one product (< m²) cannot overflow, and one conditional subtraction of
// the limit restores the bound.
//
//===----------------------------------------------------------------------===//
#include "matmul.h"

#include <stdlib.h>
#include <string.h>

/// Rows of a processed together, so that each row of b is read once per
/// group instead of once per row (b dominates the traffic when m is small).
#define MG_FF_ROW_GROUP 8
/// Accumulator words per component in one pass of the vector path: a row
/// group's accumulators (32 KiB in all) stay in L1 through the k loop, so
/// a pass covers 2048 / rows columns.
#define CHUNK_WORDS 2048

// One matmul's operands and what both paths share: the ⊥ rows of a and
// columns of b, whether any q component of c is live, the accumulators.
typedef struct Plan {
  const MgCell *a, *b;
  MgCell *c;
  int64_t m, k, n;
  const uint8_t *row_bot, *col_bot;
  bool any_bot, with_q;
  uint64_t *acc_p, *acc_q;
} Plan;

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

// Scratch for `acc_words` accumulator words and the flags; false (fault
// recorded) when out of memory.
static bool plan_init(MgFfContext *ctx, Plan *pl, size_t acc_words) {
  size_t words = acc_words + ((size_t)pl->m + (size_t)pl->n + 7) / 8;
  if (words > ctx->scratch_cap) {
    uint64_t *s = realloc(ctx->scratch, words * sizeof *s);
    if (!s)
      return mg_ff_fail(ctx, MG_FF_FAULT_NOMEM), false;
    ctx->scratch = s;
    ctx->scratch_cap = words;
  }
  pl->acc_p = ctx->scratch;
  pl->acc_q = pl->acc_p + acc_words / 2;
  uint8_t *row_bot = (uint8_t *)(ctx->scratch + acc_words);
  uint8_t *col_bot = row_bot + pl->m;
  pl->any_bot = find_bottoms(pl->a, pl->b, (MgMatmulShape){pl->m, pl->k, pl->n},
                             row_bot, col_bot);
  pl->row_bot = row_bot, pl->col_bot = col_bot;
  // When every row of a or every column of b holds a ⊥ (e.g. softmax·V),
  // every q component of c is ⊥: skip the q products.
  bool all_rows = pl->any_bot, all_cols = pl->any_bot;
  for (int64_t i = 0; all_rows && i < pl->m; ++i)
    all_rows = row_bot[i];
  for (int64_t j = 0; all_cols && j < pl->n; ++j)
    all_cols = col_bot[j];
  pl->with_q = !all_rows && !all_cols;
  return true;
}

// Writes rows i0.. and columns j0.. of c from accumulators laid out with
// the given strides (the scalar path's are column-major, the vector
// path's row-major).
typedef struct Block {
  int64_t i0, rows, j0, cols;
  int64_t row_stride, col_stride;
} Block;

static void store_block(const MgFfContext *ctx, const Plan *pl, Block bl) {
  for (int64_t r = 0; r < bl.rows; ++r)
    for (int64_t j = 0; j < bl.cols; ++j) {
      int64_t i = bl.i0 + r, jj = bl.j0 + j;
      size_t at = (size_t)(r * bl.row_stride + j * bl.col_stride);
      bool bot = !pl->with_q || (pl->any_bot && (pl->row_bot[i] || pl->col_bot[jj]));
      uint64_t vp = pl->acc_p[at] % ctx->field.p;
      uint64_t vq = bot ? MG_FF_BOTTOM : pl->acc_q[at] % ctx->field.q;
      pl->c[i * pl->n + jj] = mg_ff_cell((uint32_t)vp, (uint32_t)vq);
    }
}

static int group_rows(int64_t left) {
  return left >= 8 ? 8 : left >= 4 ? 4 : left >= 2 ? 2 : 1;
}

// a's column kk in rows i0.. of a group (⊥ q components as 0); false when
// all of them are zero, so the step adds nothing.
static bool column_of_a(const Plan *pl, int64_t i0, int rows, int64_t kk,
                        uint64_t *ap, uint64_t *aq) {
  uint64_t any = 0;
  for (int r = 0; r < rows; ++r) {
    MgCell x = pl->a[(i0 + r) * pl->k + kk];
    uint32_t xq = mg_ff_cell_q(x);
    ap[r] = mg_ff_cell_p(x);
    aq[r] = xq == MG_FF_BOTTOM ? 0 : xq;
    any |= ap[r] | aq[r];
  }
  return any != 0;
}

//===--- The portable path ------------------------------------------------===//

// Each accumulator stays below its `limit`, the largest multiple of m² with
// limit + m² <= 2^64.
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

// For r < rows: acc_p[r][j] += ap[r]·b_p[j] and (with_q) acc_q[r][j] +=
// aq[r]·b_q[j], reading b's cells once. A ⊥ q component of b counts as 0
// (the caller marks the affected outputs). `rows` and `with_q` are
// literals at every call, so the loops unroll and the q work disappears
// when unused.
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

static MgStatus scalar_groups(MgFfContext *ctx, const Plan *pl) {
  const Limits lim = limits_of(ctx->field);
  const int64_t m = pl->m, k = pl->k, n = pl->n;
  for (int64_t i0 = 0; i0 < m;) {
    int rows = group_rows(m - i0);
    if (mg_ff_past_deadline(ctx, (uint64_t)rows * (uint64_t)k * (uint64_t)n))
      return mg_ff_fail(ctx, MG_FF_FAULT_DEADLINE);
    memset(pl->acc_p, 0, (size_t)rows * (size_t)n * sizeof *pl->acc_p);
    memset(pl->acc_q, 0, (size_t)rows * (size_t)n * sizeof *pl->acc_q);
    for (int64_t kk = 0; kk < k; ++kk) {
      uint64_t ap[MG_FF_ROW_GROUP], aq[MG_FF_ROW_GROUP];
      if (column_of_a(pl, i0, rows, kk, ap, aq))
        group_step((RowGroup){pl->acc_p, pl->acc_q, n, ap, aq}, rows,
                   pl->with_q, pl->b + kk * n, lim);
    }
    store_block(ctx, pl, (Block){i0, rows, 0, n, 1, rows});
    i0 += rows;
  }
  return MG_STATUS_OK;
}

//===--- The AVX2 path ----------------------------------------------------===//

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MG_FF_VECTOR 1
#define AVX2_FN __attribute__((target("avx2")))

// AVX2 compares 64-bit lanes as signed, so this path's limits are the
// largest multiples of m² with limit + m² <= 2^63 (>= m² since m < 2^31).
static Limits signed_limits_of(MgFfField f) {
  const uint64_t top = (uint64_t)1 << 63;
  const uint64_t sp = (uint64_t)f.p * f.p, sq = (uint64_t)f.q * f.q;
  return (Limits){(top / sp - 1) * sp, (top / sq - 1) * sq};
}

typedef struct VecLimit {
  __m256i lim, lim_minus_1;
} VecLimit;

// acc + a·b (the low 32 bits of each lane), reduced below the limit.
AVX2_FN static inline __m256i vec_step(__m256i acc, __m256i a, __m256i b,
                                       VecLimit l) {
  __m256i x = _mm256_add_epi64(acc, _mm256_mul_epu32(a, b));
  __m256i over = _mm256_cmpgt_epi64(x, l.lim_minus_1);
  return _mm256_sub_epi64(x, _mm256_and_si256(over, l.lim));
}

static inline uint64_t scalar_step(uint64_t acc, uint64_t a, uint64_t b,
                                   uint64_t lim) {
  uint64_t x = acc + a * b;
  return x >= lim ? x - lim : x;
}

// The columns from `from` on of one k step, one at a time (the vector
// paths' last cols % lanes).
typedef struct TailStep {
  const MgCell *bk;
  const uint64_t *ap, *aq;
  int64_t from;
} TailStep;

static inline void tail_columns(const Plan *pl, Block bl, TailStep t,
                                bool with_q, Limits lim) {
  for (int64_t j = t.from; j < bl.cols; ++j) {
    uint64_t bp = mg_ff_cell_p(t.bk[j]), bq = mg_ff_cell_q(t.bk[j]);
    bq = bq == MG_FF_BOTTOM ? 0 : bq;
    for (int r = 0; r < bl.rows; ++r) {
      uint64_t *xp = pl->acc_p + r * bl.row_stride + j;
      uint64_t *xq = pl->acc_q + r * bl.row_stride + j;
      *xp = scalar_step(*xp, t.ap[r], bp, lim.p);
      if (with_q)
        *xq = scalar_step(*xq, t.aq[r], bq, lim.q);
    }
  }
}

// Columns j0 .. j0 + cols of a group's rows over all of k: accumulators
// row-major (row r at r·row_stride), four columns per vector, the last
// cols % 4 one at a time. `rows` and `with_q` are literals at every call.
AVX2_FN static inline void vec_chunk(const Plan *pl, Block bl, int rows,
                                     bool with_q, Limits lim) {
  const VecLimit lp = {_mm256_set1_epi64x((long long)lim.p),
                       _mm256_set1_epi64x((long long)(lim.p - 1))};
  const VecLimit lq = {_mm256_set1_epi64x((long long)lim.q),
                       _mm256_set1_epi64x((long long)(lim.q - 1))};
  const __m256i bottom = _mm256_set1_epi64x(MG_FF_BOTTOM);
  uint64_t *const acc_p = pl->acc_p, *const acc_q = pl->acc_q;
  const int64_t cols = bl.cols, vcols = cols & ~(int64_t)3;
  for (int64_t kk = 0; kk < pl->k; ++kk) {
    uint64_t ap[MG_FF_ROW_GROUP], aq[MG_FF_ROW_GROUP];
    if (!column_of_a(pl, bl.i0, rows, kk, ap, aq))
      continue;
    __m256i vap[MG_FF_ROW_GROUP], vaq[MG_FF_ROW_GROUP];
    for (int r = 0; r < rows; ++r) {
      vap[r] = _mm256_set1_epi64x((long long)ap[r]);
      vaq[r] = _mm256_set1_epi64x((long long)aq[r]);
    }
    const MgCell *bk = pl->b + kk * pl->n + bl.j0;
    for (int64_t j = 0; j < vcols; j += 4) {
      __m256i cells = _mm256_loadu_si256((const __m256i *)(bk + j));
      for (int r = 0; r < rows; ++r) {
        __m256i *x = (__m256i *)(acc_p + r * bl.row_stride + j);
        _mm256_storeu_si256(x, vec_step(_mm256_loadu_si256(x), vap[r], cells, lp));
      }
      if (with_q) {
        __m256i bq = _mm256_srli_epi64(cells, 32);
        bq = _mm256_andnot_si256(_mm256_cmpeq_epi64(bq, bottom), bq);
        for (int r = 0; r < rows; ++r) {
          __m256i *x = (__m256i *)(acc_q + r * bl.row_stride + j);
          _mm256_storeu_si256(x, vec_step(_mm256_loadu_si256(x), vaq[r], bq, lq));
        }
      }
    }
    tail_columns(pl, bl, (TailStep){bk, ap, aq, vcols}, with_q, lim);
  }
}

AVX2_FN static void vec_chunk_any(const Plan *pl, Block bl, Limits lim) {
#define MG_FF_CHUNK(R)                                                         \
  (pl->with_q ? vec_chunk(pl, bl, R, true, lim) : vec_chunk(pl, bl, R, false, lim))
  switch (bl.rows) {
  case 8: MG_FF_CHUNK(8); break;
  case 4: MG_FF_CHUNK(4); break;
  case 2: MG_FF_CHUNK(2); break;
  default: MG_FF_CHUNK(1); break;
  }
#undef MG_FF_CHUNK
}


// The same with AVX-512's eight lanes; its unsigned minimum reduces in one
// step: min(x, x - limit) is x - limit when x >= limit and x otherwise
// (x - limit then wraps above x), so the portable path's limits serve.
#define AVX512_FN __attribute__((target("avx512f")))

AVX512_FN static inline __m512i vec512_step(__m512i acc, __m512i a, __m512i b,
                                            __m512i lim) {
  __m512i x = _mm512_add_epi64(acc, _mm512_mul_epu32(a, b));
  return _mm512_min_epu64(x, _mm512_sub_epi64(x, lim));
}

AVX512_FN static inline void vec512_chunk(const Plan *pl, Block bl, int rows,
                                          bool with_q, Limits lim) {
  const __m512i lp = _mm512_set1_epi64((long long)lim.p);
  const __m512i lq = _mm512_set1_epi64((long long)lim.q);
  const __m512i bottom = _mm512_set1_epi64(MG_FF_BOTTOM);
  uint64_t *const acc_p = pl->acc_p, *const acc_q = pl->acc_q;
  const int64_t cols = bl.cols, vcols = cols & ~(int64_t)7;
  for (int64_t kk = 0; kk < pl->k; ++kk) {
    uint64_t ap[MG_FF_ROW_GROUP], aq[MG_FF_ROW_GROUP];
    if (!column_of_a(pl, bl.i0, rows, kk, ap, aq))
      continue;
    __m512i vap[MG_FF_ROW_GROUP], vaq[MG_FF_ROW_GROUP];
    for (int r = 0; r < rows; ++r) {
      vap[r] = _mm512_set1_epi64((long long)ap[r]);
      vaq[r] = _mm512_set1_epi64((long long)aq[r]);
    }
    const MgCell *bk = pl->b + kk * pl->n + bl.j0;
    for (int64_t j = 0; j < vcols; j += 8) {
      __m512i cells = _mm512_loadu_si512((const void *)(bk + j));
      for (int r = 0; r < rows; ++r) {
        uint64_t *x = acc_p + r * bl.row_stride + j;
        _mm512_storeu_si512(x, vec512_step(_mm512_loadu_si512(x), vap[r], cells, lp));
      }
      if (with_q) {
        __m512i bq = _mm512_srli_epi64(cells, 32);
        bq = _mm512_mask_blend_epi64(_mm512_cmpeq_epi64_mask(bq, bottom), bq,
                                     _mm512_setzero_si512());
        for (int r = 0; r < rows; ++r) {
          uint64_t *x = acc_q + r * bl.row_stride + j;
          _mm512_storeu_si512(x, vec512_step(_mm512_loadu_si512(x), vaq[r], bq, lq));
        }
      }
    }
    tail_columns(pl, bl, (TailStep){bk, ap, aq, vcols}, with_q, lim);
  }
}

AVX512_FN static void vec512_chunk_any(const Plan *pl, Block bl, Limits lim) {
#define MG_FF_CHUNK(R)                                                         \
  (pl->with_q ? vec512_chunk(pl, bl, R, true, lim)                             \
              : vec512_chunk(pl, bl, R, false, lim))
  switch (bl.rows) {
  case 8: MG_FF_CHUNK(8); break;
  case 4: MG_FF_CHUNK(4); break;
  case 2: MG_FF_CHUNK(2); break;
  default: MG_FF_CHUNK(1); break;
  }
#undef MG_FF_CHUNK
}

static MgStatus vector_groups(MgFfContext *ctx, const Plan *pl, int width) {
  const Limits lim = width == 8 ? limits_of(ctx->field) : signed_limits_of(ctx->field);
  const int64_t m = pl->m, k = pl->k, n = pl->n;
  for (int64_t i0 = 0; i0 < m;) {
    int rows = group_rows(m - i0);
    if (mg_ff_past_deadline(ctx, (uint64_t)rows * (uint64_t)k * (uint64_t)n))
      return mg_ff_fail(ctx, MG_FF_FAULT_DEADLINE);
    const int64_t chunk = CHUNK_WORDS / rows;
    for (int64_t j0 = 0; j0 < n; j0 += chunk) {
      Block bl = {i0, rows, j0, n - j0 < chunk ? n - j0 : chunk, chunk, 1};
      memset(pl->acc_p, 0, CHUNK_WORDS * sizeof *pl->acc_p);
      memset(pl->acc_q, 0, CHUNK_WORDS * sizeof *pl->acc_q);
      if (width == 8)
        vec512_chunk_any(pl, bl, lim);
      else
        vec_chunk_any(pl, bl, lim);
      store_block(ctx, pl, bl);
    }
    i0 += rows;
  }
  return MG_STATUS_OK;
}
#endif

//===--- Entry points -----------------------------------------------------===//

int mg_ff_matmul_widest(void) {
#ifdef MG_FF_VECTOR
  return __builtin_cpu_supports("avx512f") ? 8
         : __builtin_cpu_supports("avx2")  ? 4
                                           : 0;
#else
  return 0;
#endif
}

static MgStatus matmul_on(MgFfContext *ctx, const MgCell *a, const MgCell *b,
                          MgCell *c, MgMatmulShape shape, int width) {
  if (shape.m <= 0 || shape.n <= 0 || shape.k < 0)
    return MG_STATUS_OK;
  Plan pl = {.a = a, .b = b, .c = c, .m = shape.m, .k = shape.k, .n = shape.n};
  size_t words = width ? CHUNK_WORDS : (size_t)MG_FF_ROW_GROUP * (size_t)shape.n;
  if (!plan_init(ctx, &pl, 2 * words))
    return MG_STATUS_NOMEM;
#ifdef MG_FF_VECTOR
  if (width)
    return vector_groups(ctx, &pl, width);
#endif
  return scalar_groups(ctx, &pl);
}

MgStatus mg_ff_matmul_on(MgFfContext *ctx, const MgCell *a, const MgCell *b,
                         MgCell *c, MgMatmulShape shape, int width) {
  bool known = width == 0 || width == 4 || width == 8;
  if (!known || width > mg_ff_matmul_widest())
    return mg_ff_fail(ctx, MG_FF_FAULT_UNSUPPORTED);
  return matmul_on(ctx, a, b, c, shape, width);
}

MgStatus mg_ff_matmul(MgFfContext *ctx, const MgCell *a, const MgCell *b,
                      MgCell *c, MgMatmulShape shape) {
  return matmul_on(ctx, a, b, c, shape, mg_ff_matmul_widest());
}

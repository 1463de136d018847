//===- test_search_api.c - Options, errors, the proxy cost ----------------===//
#include "mirage/samples.h"
#include "mirage/search.h"
#include "test.h"

// The search's internal pre-check of abstract classes must stay in lockstep
// with lib/absexpr's term mapping; reach it through the internal header.
#include "../../lib/search/search_internal.h"

#include <string.h>

static void test_search_options_defaults(void) {
  MgSearchOptions o = mg_search_options_default();
  CHECK_EQ_INT(o.max_block_ops, 9);
  CHECK_EQ_INT(o.max_kernel_ops, 4);
  CHECK_EQ_INT(o.threads, 0);
  CHECK(o.use_absexpr && o.use_dims && o.use_kind_budget);
  CHECK_EQ_INT(o.memory_limit, (uint64_t)2 << 30);
  CHECK_NEAR(o.verify_error, 9.094947017729282e-13, 1e-25); // 2^-40
  CHECK(o.progress == NULL && o.on_candidate == NULL);
  for (int r = 0; r < MG_SEARCH_RULE_COUNT; r++)
    CHECK(mg_search_rule_name((MgSearchRule)r) != NULL);
  CHECK(strcmp(mg_search_rule_name(MG_SEARCH_RULE_ABSEXPR), "absexpr") == 0);
  CHECK(mg_search_rule_name(MG_SEARCH_RULE_COUNT) == NULL);
}

static void test_search_rejects_bad_input(void) {
  MgProgram *t = mg_sample_sum_last(4, 8);
  MgSearchResult r;
  MgDiag diag;
  MgSearchOptions o = mg_search_options_default();
  o.max_block_ops = 0;
  CHECK_EQ_INT(mg_search_run(t, &o, &r, &diag), MG_STATUS_INVALID);
  CHECK(strstr(diag.message, "max_block_ops") != NULL);
  CHECK(mg_search_result_best(&r) == NULL);
  o = mg_search_options_default();
  o.verify_error = 1.5;
  CHECK_EQ_INT(mg_search_run(t, &o, &r, &diag), MG_STATUS_INVALID);
  CHECK(strstr(diag.message, "verify_error") != NULL);
  o = mg_search_options_default();
  o.memory_limit = 1024;
  CHECK_EQ_INT(mg_search_run(t, &o, &r, &diag), MG_STATUS_INVALID);
  CHECK(strstr(diag.message, "memory_limit") != NULL);
  CHECK_EQ_INT(mg_search_run(NULL, NULL, &r, &diag), MG_STATUS_INVALID);
  CHECK(strstr(diag.message, "root kernel graph") != NULL);
  CHECK_EQ_INT(mg_search_run(t, NULL, NULL, &diag), MG_STATUS_INVALID);
  // A malformed target (an op reading a tensor made later).
  MgProgram *bad = mg_program_clone(t);
  bad->graphs[0].ops[1].inputs[0] = 1;
  CHECK_EQ_INT(mg_search_run(bad, NULL, &r, &diag), MG_STATUS_INVALID);
  mg_program_destroy(bad);
  // A target that already holds a graph-defined kernel is not searched.
  MgProgram *fused = mg_sample_sum_last_fused(4, 8, 2, 2);
  CHECK_EQ_INT(mg_search_run(fused, NULL, &r, &diag), MG_STATUS_UNSUPPORTED);
  CHECK(strstr(diag.message, "graph-defined kernel") != NULL);
  CHECK_EQ_INT(diag.op, 1);
  mg_program_destroy(fused);
  mg_search_result_free(&r);
  mg_search_result_free(NULL);
  mg_program_destroy(t);
}

// DRAM bytes and shared memory of a fused RMSNorm, by hand.
static void test_search_proxy_cost(void) {
  // X(2,8), W(8,8), grid 2 over n, F 2 over k; f16 (2 bytes).
  MgProgram *fused = mg_sample_rmsnorm_matmul_fused(2, 8, 8, 2, 2);
  MgSearchCost c = mg_search_proxy_cost(fused);
  CHECK_EQ_INT(c.kernels, 1);
  // X tile (2,4): 16 B, read each of 2 iterations by each of 2 blocks: 64.
  // W tile (4,4): 32 B, 2 iterations x 2 blocks: 128. Y written: 32.
  CHECK_EQ_INT(c.dram_bytes, 64 + 128 + 32);
  CHECK_EQ_INT(c.smem_bytes, (uint64_t)mg_graph_smem_bytes(fused, 1));
  CHECK(c.smem_bytes > 0);
  // Unfused: square (32+32), sum (32+4), div_scalar (4+4), sqrt (4+4),
  // div (32+4+32), matmul (32+128+32).
  MgProgram *ref = mg_sample_rmsnorm_matmul(2, 8, 8);
  MgSearchCost d = mg_search_proxy_cost(ref);
  CHECK_EQ_INT(d.kernels, 6);
  CHECK_EQ_INT(d.dram_bytes, 64 + 36 + 8 + 8 + 68 + 192);
  CHECK_EQ_INT(d.smem_bytes, 0);
  CHECK(mg_search_cost_compare(&c, &d) < 0);
  CHECK(mg_search_cost_compare(&d, &c) > 0);
  CHECK_EQ_INT(mg_search_cost_compare(&c, &c), 0);
  MgSearchCost e = c;
  e.smem_bytes++;
  CHECK(mg_search_cost_compare(&c, &e) < 0);
  mg_program_destroy(fused);
  mg_program_destroy(ref);
}

// With no custom kernels allowed, only predefined ops are searched: the
// row sum's best is the predefined sum itself. Ranked by the proxy, which
// keeps a program as cheap as the target; the cost model keeps only
// strictly cheaper ones, so it reports nothing.
static void test_search_without_custom_kernels(void) {
  MgProgram *t = mg_sample_sum_last(4, 8);
  MgSearchOptions o = mg_search_options_default();
  o.max_custom_kernels = 0;
  o.threads = 1;
  MgSearchResult r;
  MgDiag diag;
  CHECK_EQ_INT(mg_search_run(t, &o, &r, &diag), MG_STATUS_OK);
  CHECK_EQ_INT(r.num_found, 0);
  CHECK(r.stats.cost_skips > 0);
  mg_search_result_free(&r);
  o.rank = MG_SEARCH_RANK_PROXY;
  CHECK_EQ_INT(mg_search_run(t, &o, &r, &diag), MG_STATUS_OK);
  CHECK_EQ_INT(r.num_found, 1);
  if (r.num_found) {
    CHECK(mg_program_equal(r.found[0].program, t));
    CHECK_EQ_INT(r.found[0].cost.kernels, 1);
  }
  CHECK_EQ_INT(r.stats.skeletons, 0);
  mg_search_result_free(&r);
  mg_program_destroy(t);
}

// A target that nothing shorter can match within the op limits: the
// result is empty and says so in the statistics, not an error.
static void test_search_reports_nothing_found(void) {
  MgProgram *t = mg_sample_rmsnorm_matmul(2, 8, 8);
  MgSearchOptions o = mg_search_options_default();
  o.max_kernel_ops = 1;
  o.max_block_ops = 2; // the fused form needs 4 counted ops
  o.threads = 2;
  o.cut_prologues = false; // normalizing X alone needs only 2
  MgSearchResult r;
  MgDiag diag;
  CHECK_EQ_INT(mg_search_run(t, &o, &r, &diag), MG_STATUS_OK);
  CHECK_EQ_INT(r.num_found, 0);
  CHECK_EQ_INT(r.best, -1);
  CHECK(mg_search_result_best(&r) == NULL);
  CHECK(r.stats.states > 0);
  CHECK(!r.stats.timed_out);
  CHECK(r.stats.pruned[MG_SEARCH_RULE_BUDGET] > 0);
  mg_search_result_free(&r);
  mg_program_destroy(t);
}

// mg_search_term (the class an op would get, computed before the op is
// built) agrees with mg_absexpr_of_op on every op of the fused samples.
static void test_search_term_matches_absexpr(void) {
  MgProgram *pairs[][2] = {
      {mg_sample_rmsnorm_matmul(2, 16, 32),
       mg_sample_rmsnorm_matmul_fused(2, 16, 32, 4, 2)},
      {mg_sample_lora(4, 16, 32, 4), mg_sample_lora_fused(4, 16, 32, 4, 4)},
      {mg_sample_gated_mlp(4, 16, 32),
       mg_sample_gated_mlp_fused(4, 16, 32, 4, 2)},
      {mg_sample_ntrans(4, 16), mg_sample_ntrans_fused(4, 16, 2)},
      {mg_sample_attention(2, 8, 4, 32),
       mg_sample_attention_split_kv(2, 8, 4, 32, 2, 2)},
      {mg_sample_sum_last(4, 16), mg_sample_sum_last_fused(4, 16, 2, 2)},
  };
  uint32_t compared = 0;
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
    Search *s = calloc(1, sizeof *s);
    s->abs = mg_absexpr_create(pairs[k][0], NULL, NULL);
    CHECK(s->abs != NULL);
    const MgProgram *p = pairs[k][1];
    MgAbsId kernel_cls[64];
    for (uint32_t i = 0; s->abs && i < p->graphs[0].num_ops; i++) {
      const MgOp *op = &p->graphs[0].ops[i];
      MgAbsId out[MG_MAX_OP_OUTPUTS];
      mg_absexpr_of_op(s->abs, p, 0, i, kernel_cls, out);
      for (uint32_t o = 0; o < op->num_outputs; o++)
        kernel_cls[op->outputs[o]] = out[o];
      if (op->kind != MG_OP_CUSTOM)
        continue;
      const MgGraph *b = &p->graphs[op->attr];
      MgAbsId cls[64];
      for (uint32_t j = 0; j < b->num_ops; j++) {
        const MgOp *bop = &b->ops[j];
        if (bop->kind == MG_OP_INPUT) {
          cls[bop->outputs[0]] = kernel_cls[op->inputs[bop->attr]];
          continue;
        }
        MgAbsId want[MG_MAX_OP_OUTPUTS];
        mg_absexpr_of_op(s->abs, p, (MgGraphId)op->attr, j, cls, want);
        cls[bop->outputs[0]] = want[0];
        MgOpKind kind = (MgOpKind)bop->kind;
        if (kind == MG_OP_ITERATOR || kind == MG_OP_SAVER)
          continue;
        MgAbsId a = cls[bop->inputs[0]];
        MgAbsId c = bop->num_inputs > 1 ? cls[bop->inputs[1]] : MG_ABS_NONE;
        MgAbsId got = mg_search_term(s, bop, &b->tensors[bop->inputs[0]], a,
                                     c, b->forloop);
        CHECK_EQ_INT(got, want[0]);
        CHECK(want[0] != MG_ABS_NONE);
        compared++;
      }
    }
    mg_absexpr_destroy(s->abs);
    free(s);
    mg_program_destroy(pairs[k][0]);
    mg_program_destroy(pairs[k][1]);
  }
  CHECK(compared >= 38); // every compute op of the six fused forms
}

//===--- Dimension roles through views ------------------------------------===//

// Roles of input `pos`'s dims after analysing `t` (no abstract classes).
static void input_roles(MgProgram *t, MgRole roles[][MG_MAX_DIMS],
                        uint32_t n) {
  CHECK_EQ_INT(mg_program_validate(t, NULL, NULL), MG_STATUS_OK);
  Search *s = calloc(1, sizeof *s);
  CHECK(s != NULL);
  s->target = t;
  s->opt = mg_search_options_default();
  MgDiag diag;
  CHECK_EQ_INT(mg_search_analyze(s, &diag), MG_STATUS_OK);
  for (uint32_t i = 0; i < n; i++)
    memcpy(roles[i], s->facts.in_info[i].role, sizeof roles[i]);
  free(s);
  mg_program_destroy(t);
}

static MgProgram *kernel_with(uint32_t n, const int64_t (*dims)[3],
                              const uint32_t *rank, MgTensorId *in) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  for (uint32_t i = 0; i < n; i++)
    in[i] = mg_graph_add_input(p, 0, MG_DTYPE_F16, rank[i], dims[i], NULL);
  return p;
}

static void finish(MgProgram *p, MgTensorId t) {
  CHECK(t != MG_NO_ID);
  mg_graph_mark_output(p, 0, t, NULL);
}

// Roles (into r) of the two inputs of reshape(x, dims) + y, x and y of the
// shapes `shapes` and ranks `ranks`.
static void reshape_add_roles(const int64_t (*shapes)[3],
                              const uint32_t *ranks, uint32_t rank,
                              const int64_t *dims, MgRole r[][MG_MAX_DIMS]) {
  MgTensorId in[2];
  MgProgram *p = kernel_with(2, shapes, ranks, in);
  finish(p, mg_graph_binary(p, 0, MG_OP_ADD,
                            mg_graph_reshape(p, 0, in[0], rank, dims, NULL),
                            in[1], NULL));
  input_roles(p, r, 2);
}

static void test_search_roles_through_views(void) {
  MgRole r[3][MG_MAX_DIMS];
  MgTensorId in[3];
  const uint32_t two[3] = {2, 2, 2}, three_two[2] = {3, 3};
  // x + yᵀ on square shapes: x's rows are y's columns, and not y's rows
  // (same extent, another index).
  const int64_t sq[2][3] = {{4, 4}, {4, 4}};
  MgProgram *p = kernel_with(2, sq, two, in);
  finish(p, mg_graph_binary(p, 0, MG_OP_ADD, in[0],
                            mg_graph_transpose(p, 0, in[1],
                                               (const int8_t[]){1, 0}, NULL),
                            NULL));
  input_roles(p, r, 2);
  CHECK_EQ_INT(r[0][0], r[1][1]);
  CHECK_EQ_INT(r[0][1], r[1][0]);
  CHECK(r[0][0] != r[0][1]);
  // (4,2,2) read as (2,2,4): dim 1 has extent 2 on both sides but another
  // stride, so it is not the same index.
  const int64_t rsh[2][3] = {{4, 2, 2}, {2, 2, 4}};
  reshape_add_roles(rsh, three_two, 3, (const int64_t[]){2, 2, 4}, r);
  for (int d = 0; d < 3; d++)
    for (int e = 0; e < 3; e++)
      CHECK(r[0][d] != r[1][e]);
  // A head split (6,4) -> (2,3,4) keeps the last dim.
  const int64_t split[2][3] = {{6, 4}, {2, 3, 4}};
  const uint32_t ranks[2] = {2, 3};
  reshape_add_roles(split, ranks, 3, (const int64_t[]){2, 3, 4}, r);
  CHECK_EQ_INT(r[0][1], r[1][2]);
  CHECK(r[0][0] != r[1][0] && r[0][0] != r[1][1]);
  // concat(x, y) along dim 1 plus w, and a slice of w's columns plus z:
  // rows are shared, the joined and cut dims are not.
  const int64_t cat[3][3] = {{4, 3}, {4, 3}, {4, 6}};
  p = kernel_with(3, cat, two, in);
  MgTensorId xy = mg_graph_concat(p, 0, in[0], in[1], 1, NULL);
  MgTensorId sum = mg_graph_binary(p, 0, MG_OP_ADD, xy, in[2], NULL);
  MgTensorId part = mg_graph_slice(p, 0, sum, (MgSlice){1, 3, 3}, NULL);
  finish(p, mg_graph_binary(p, 0, MG_OP_MUL, part, in[0], NULL));
  input_roles(p, r, 3);
  CHECK_EQ_INT(r[0][0], r[1][0]);
  CHECK_EQ_INT(r[0][0], r[2][0]);
  CHECK(r[0][1] != r[2][1] && r[1][1] != r[2][1]);
  // The slice's columns met x's in the product: only that is claimed.
  CHECK(r[0][1] != r[1][1]);
}

// options.explain_top: the best candidates in the search's own order, each
// with what became of it. It changes nothing the search chooses, the
// chosen program is listed as verified, and the list is the same for one
// and two threads (it is filled on the caller's thread from the merged,
// deterministic collectors).
static void test_search_explain_top(void) {
  MgProgram *targets[2] = {mg_sample_attention(2, 8, 4, 64),
                           mg_sample_rmsnorm_matmul(2, 16, 32)};
  for (int t = 0; t < 2; t++) {
    MgSearchOptions o = mg_search_options_default();
    o.threads = 1;
    MgSearchResult plain, one, two;
    MgDiag diag;
    CHECK_EQ_INT(mg_search_run(targets[t], &o, &plain, &diag), MG_STATUS_OK);
    CHECK_EQ_INT(plain.num_top, 0);
    CHECK(plain.top == NULL);
    o.explain_top = 4;
    CHECK_EQ_INT(mg_search_run(targets[t], &o, &one, &diag), MG_STATUS_OK);
    o.threads = 2;
    CHECK_EQ_INT(mg_search_run(targets[t], &o, &two, &diag), MG_STATUS_OK);
    const MgProgram *chosen = mg_search_result_best(&plain);
    CHECK(chosen != NULL);
    CHECK(mg_search_result_best(&one) != NULL && chosen &&
          mg_program_equal(mg_search_result_best(&one), chosen));
    CHECK(one.num_top > 0 && one.num_top <= 4);
    CHECK_EQ_INT(one.num_top, two.num_top);
    bool listed = false;
    for (uint32_t i = 0; i < one.num_top && i < two.num_top; i++) {
      const MgSearchCandidate *a = &one.top[i], *b = &two.top[i];
      CHECK(mg_program_equal(a->program, b->program));
      CHECK_EQ_INT(a->fate, b->fate);
      CHECK_EQ_INT(a->check.tests, b->check.tests);
      CHECK(mg_search_fate_name(a->fate) != NULL);
      if (i > 0)
        CHECK(mg_search_cost_compare(&one.top[i - 1].cost, &a->cost) <= 0);
      if (chosen && mg_program_equal(a->program, chosen)) {
        listed = true;
        CHECK_EQ_INT(a->fate, MG_SEARCH_FATE_VERIFIED);
        CHECK(a->check.tests > 0 || a->parts > 0);
        CHECK(a->check.log2_bound <= -40);
      }
    }
    CHECK(listed);
    mg_search_result_free(&plain);
    mg_search_result_free(&one);
    CHECK(one.top == NULL && one.num_top == 0);
    mg_search_result_free(&two);
    mg_program_destroy(targets[t]);
  }
  CHECK(strcmp(mg_search_fate_name(MG_SEARCH_FATE_NOT_CHEAPER),
               "not-cheaper") == 0);
  CHECK(mg_search_fate_name(MG_SEARCH_FATE_COUNT) == NULL);
}

int main(void) {
  RUN_TEST(test_search_options_defaults);
  RUN_TEST(test_search_rejects_bad_input);
  RUN_TEST(test_search_proxy_cost);
  RUN_TEST(test_search_without_custom_kernels);
  RUN_TEST(test_search_reports_nothing_found);
  RUN_TEST(test_search_term_matches_absexpr);
  RUN_TEST(test_search_roles_through_views);
  RUN_TEST(test_search_explain_top);
  return TEST_SUMMARY();
}

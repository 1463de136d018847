//===- test_search_stable.c - The search on numerically stable targets ----===//
//
// - The rescale check (lib/search/rescale.c) passes every correct stable
//   form (FlashAttention-2, split-KV with max/sum merge, fused softmax,
//   stable QKNorm) and rejects the forms that sum values shifted by
//   different maxes: online accumulators turned into plain sums (in the
//   for-loop, in the merge kernel), and the merge summing chunks with no
//   max at all. Each rejected form is also checked NOT equivalent by the
//   finite-field verifier, so the check only drops wrong programs.
// - The search on stable targets: the shift rule and the rescale check
//   prune (their counts are non-zero), the best program is verified,
//   keeps every exp guarded, and at a small attention shape is at most two
//   kernels. On an unstable target neither rule fires.
//
//===----------------------------------------------------------------------===//
#include "mirage/samples.h"
#include "mirage/search.h"
#include "mirage/verify.h"
#include "test.h"

// Search-internal (lib/search/rescale.c); the static library exports it.
bool mg_search_mixes_maxes(const MgProgram *p);

// Turns the online accumulators of block graph `g` (all graphs: g < 0)
// into plain sums of their value operand.
static void drop_online(MgProgram *p, int g) {
  for (uint32_t i = 0; i < p->num_graphs; i++) {
    if (g >= 0 && (uint32_t)g != i)
      continue;
    MgGraph *gr = &p->graphs[i];
    for (uint32_t k = 0; k < gr->num_ops; k++)
      if (gr->ops[k].kind == MG_OP_ACCUM &&
          gr->ops[k].acc == MG_ACCUM_ONLINE) {
        gr->ops[k].acc = MG_ACCUM_SUM;
        gr->ops[k].num_inputs = 1;
      }
  }
}

static bool verified_equal(const MgProgram *a, const MgProgram *b) {
  MgVerifyOptions o = mg_verify_options_default();
  MgVerifyResult r;
  MgDiag d;
  MgStatus st = mg_verify_equivalent(a, b, &o, &r, &d);
  return st == MG_STATUS_OK && r.verdict == MG_VERDICT_EQUIVALENT;
}

static void test_rescale_check(void) {
  MgProgram *target = mg_sample_stable_attention(2, 16, 16, 256);
  MgProgram *flash = mg_sample_stable_attention_flash(2, 16, 16, 256, 2, 4);
  MgProgram *split = mg_sample_stable_attention_split_kv(2, 16, 16, 256, 4, 2);
  MgProgram *fused = mg_sample_stable_softmax_fused(64, 128, 4);
  MgProgram *qknorm = mg_sample_stable_qknorm(2, 16, 16, 256);
  CHECK(target && flash && split && fused && qknorm);
  if (!target || !flash || !split || !fused || !qknorm)
    return;
  CHECK(!mg_search_mixes_maxes(target));
  CHECK(!mg_search_mixes_maxes(flash));
  CHECK(!mg_search_mixes_maxes(split));
  CHECK(!mg_search_mixes_maxes(fused));
  CHECK(!mg_search_mixes_maxes(qknorm));
  CHECK(verified_equal(target, flash));
  CHECK(verified_equal(target, split));

  // FlashAttention with plain sums: each iteration's tile max differs.
  MgProgram *flash_sum = mg_sample_stable_attention_flash(2, 16, 16, 256, 2, 4);
  drop_online(flash_sum, -1);
  CHECK(mg_search_mixes_maxes(flash_sum));
  CHECK(!verified_equal(target, flash_sum));
  // Split-KV whose merge kernel (graph 2) adds the chunks without their
  // maxes: the chunks' partials are scaled by different exp(-M_c).
  MgProgram *merge_sum = mg_sample_stable_attention_split_kv(2, 16, 16, 256, 4, 2);
  drop_online(merge_sum, 2);
  CHECK(mg_search_mixes_maxes(merge_sum));
  CHECK(!verified_equal(target, merge_sum));
  // ... and with plain sums in both kernels.
  MgProgram *all_sum = mg_sample_stable_attention_split_kv(2, 16, 16, 256, 4, 2);
  drop_online(all_sum, -1);
  CHECK(mg_search_mixes_maxes(all_sum));
  CHECK(!verified_equal(target, all_sum));
  // With a for-loop of 1 the chunk kernel's online accumulators are the
  // identity; the merge kernel still needs them.
  MgProgram *f1 = mg_sample_stable_attention_split_kv(2, 16, 16, 256, 4, 1);
  CHECK(!mg_search_mixes_maxes(f1));
  drop_online(f1, 1);
  CHECK(!mg_search_mixes_maxes(f1));
  CHECK(verified_equal(target, f1));
  drop_online(f1, 2);
  CHECK(mg_search_mixes_maxes(f1));
  CHECK(!verified_equal(target, f1));

  // Decoding (one query row) with one-element tiles: reduce_max over a
  // dim of extent 1 is the element itself, still a max the online
  // accumulators rescale by.
  MgProgram *decode = mg_sample_stable_attention(2, 1, 16, 256);
  MgProgram *tiny = mg_sample_stable_attention_split_kv(2, 1, 16, 256, 4, 64);
  CHECK(decode && tiny);
  if (decode && tiny) {
    CHECK(!mg_search_mixes_maxes(tiny));
    CHECK(verified_equal(decode, tiny));
    drop_online(tiny, 2);
    CHECK(mg_search_mixes_maxes(tiny));
    CHECK(!verified_equal(decode, tiny));
  }
  mg_program_destroy(decode);
  mg_program_destroy(tiny);

  mg_program_destroy(target);
  mg_program_destroy(flash);
  mg_program_destroy(split);
  mg_program_destroy(fused);
  mg_program_destroy(qknorm);
  mg_program_destroy(flash_sum);
  mg_program_destroy(merge_sum);
  mg_program_destroy(all_sum);
  mg_program_destroy(f1);
}

static uint32_t kernels(const MgProgram *p) {
  const MgGraph *g = &p->graphs[0];
  return g->num_ops - g->num_inputs;
}

// Searches `target`; returns the best program's kernel count (0: none).
static uint32_t search(const MgProgram *target, bool stable,
                       uint64_t *shift_pruned) {
  MgSearchOptions o = mg_search_options_default();
  o.threads = 2;
  o.time_budget_s = 0; // no time budget: the same result at any load
  MgSearchResult r;
  MgDiag d;
  MgStatus st = mg_search_run(target, &o, &r, &d);
  CHECK_EQ_INT(st, MG_STATUS_OK);
  *shift_pruned = r.stats.pruned[MG_SEARCH_RULE_SHIFT];
  const MgProgram *best = mg_search_result_best(&r);
  uint32_t n = best ? kernels(best) : 0;
  if (best) {
    MgStability s;
    CHECK_EQ_INT(mg_verify_stability(best, &s, NULL), MG_STATUS_OK);
    if (stable)
      CHECK_EQ_INT(s.unguarded, 0);
    CHECK(verified_equal(target, best));
  }
  CHECK(!r.stats.timed_out);
  mg_search_result_free(&r);
  return n;
}

static void test_search(void) {
  uint64_t pruned;
  MgProgram *softmax = mg_sample_stable_softmax(64, 128);
  CHECK_EQ_INT(search(softmax, true, &pruned), 1);
  mg_program_destroy(softmax);

  MgProgram *attention = mg_sample_stable_attention(2, 16, 16, 256);
  uint32_t n = search(attention, true, &pruned);
  CHECK(n >= 1 && n <= 2);
  CHECK(pruned > 0);
  mg_program_destroy(attention);

  // Unstable attention: nothing to keep, neither rule applies.
  MgProgram *unstable = mg_sample_attention(2, 16, 16, 256);
  n = search(unstable, false, &pruned);
  CHECK(n >= 1 && n <= 2);
  CHECK_EQ_INT(pruned, 0);
  mg_program_destroy(unstable);
}

int main(void) {
  RUN_TEST(test_rescale_check);
  RUN_TEST(test_search);
  return TEST_SUMMARY();
}

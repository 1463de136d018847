//===- search_bench.c - The search on the six paper benchmarks ------------===//
//
// Runs mg_search_run on the kernel-level forms of the Mirage paper's six
// benchmarks at the paper's shapes (b = 1, ugraph-semantics notes §5) and
// prints one markdown table row per benchmark: kernels in the best verified
// graph, search time, states, pruning per rule, verified candidates. With
// --ablation it prints the RMSNorm table instead: max-block-ops 5..11 ×
// abstract expressions on/off × 1/2 threads. Nothing here asserts; the
// numbers are for docs/benchmarks.md.
//
//===----------------------------------------------------------------------===//
#include "mirage/samples.h"
#include "mirage/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Bench {
  const char *name;
  const char *paper; // structure of Mirage's published best
  MgProgram *(*make)(void);
  uint32_t variant;    // 0: default options; 1: rank=proxy (the ranking
                       // before the cost model); 2: no prologue cuts
} Bench;

static MgProgram *rmsnorm(void) { return mg_sample_rmsnorm_matmul(2, 4096, 6144); }
static MgProgram *gqa(void) { return mg_sample_attention(2, 256, 64, 4096); }
static MgProgram *qknorm(void) { return mg_sample_qknorm(2, 256, 64, 4096); }
static MgProgram *lora(void) { return mg_sample_lora(16, 256, 4096, 16); }
static MgProgram *gated_mlp(void) { return mg_sample_gated_mlp(8, 4096, 4096); }
static MgProgram *ntrans(void) { return mg_sample_ntrans(8, 4096); }
static MgProgram *stable_gqa(void) {
  return mg_sample_stable_attention(2, 256, 64, 4096);
}
static MgProgram *stable_decode(void) {
  return mg_sample_stable_attention(2, 1, 64, 4096);
}
static MgProgram *stable_qknorm(void) {
  return mg_sample_stable_qknorm(2, 256, 64, 4096);
}

static const Bench benches[] = {
    {"rmsnorm", "1 kernel", rmsnorm, 0},
    {"gqa", "2 kernels (split-KV)", gqa, 0},
    {"gqa-proxy", "2 kernels (split-KV)", gqa, 1},
    {"qknorm", "3-4 kernels", qknorm, 0},
    {"qknorm-nocut", "3-4 kernels", qknorm, 2},
    {"lora", "1 kernel", lora, 0},
    {"gated_mlp", "1 kernel (or 1 + mul)", gated_mlp, 0},
    {"ntrans", "1 kernel", ntrans, 0},
    {"stable-gqa", "<= 2 kernels (flash or split-KV)", stable_gqa, 0},
    {"stable-decode", "<= 2 kernels (split-KV)", stable_decode, 0},
    {"stable-qknorm", "<= 4 kernels", stable_qknorm, 0},
};
#define NUM_BENCHES (sizeof benches / sizeof benches[0])

typedef struct Args {
  uint32_t threads, max_block_ops, max_kernel_ops, launch_variants;
  double budget;
  bool no_absexpr, exhaustive, ablation, verbose;
  const char *only;
} Args;

static void usage(void) {
  fprintf(stderr,
          "usage: search_bench [--threads N] [--max-block-ops N] "
          "[--max-kernel-ops N] [--launch-variants N]\n"
          "                    [--budget S] [--no-absexpr] [--exhaustive] "
          "[--only NAME]\n"
          "                    [--ablation] [--verbose]\n");
}

static bool parse(int argc, char **argv, Args *a) {
  memset(a, 0, sizeof *a);
  a->threads = 2;
  a->max_block_ops = 9;
  a->max_kernel_ops = 4;
  a->launch_variants = 1;
  a->budget = 60;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    bool more = i + 1 < argc;
    if (!strcmp(s, "--threads") && more)
      a->threads = (uint32_t)atoi(argv[++i]);
    else if (!strcmp(s, "--max-block-ops") && more)
      a->max_block_ops = (uint32_t)atoi(argv[++i]);
    else if (!strcmp(s, "--max-kernel-ops") && more)
      a->max_kernel_ops = (uint32_t)atoi(argv[++i]);
    else if (!strcmp(s, "--launch-variants") && more)
      a->launch_variants = (uint32_t)atoi(argv[++i]);
    else if (!strcmp(s, "--budget") && more)
      a->budget = atof(argv[++i]);
    else if (!strcmp(s, "--only") && more)
      a->only = argv[++i];
    else if (!strcmp(s, "--no-absexpr"))
      a->no_absexpr = true;
    else if (!strcmp(s, "--exhaustive"))
      a->exhaustive = true;
    else if (!strcmp(s, "--ablation"))
      a->ablation = true;
    else if (!strcmp(s, "--verbose"))
      a->verbose = true;
    else
      return false;
  }
  return true;
}

static MgSearchOptions options_of(const Args *a) {
  MgSearchOptions o = mg_search_options_default();
  o.threads = a->threads;
  o.max_block_ops = a->max_block_ops;
  o.max_kernel_ops = a->max_kernel_ops;
  o.launch_variants = a->launch_variants;
  o.time_budget_s = a->budget;
  o.use_absexpr = !a->no_absexpr;
  o.exhaustive = a->exhaustive;
  return o;
}

static uint64_t pruned_total(const MgSearchStats *st) {
  uint64_t n = 0;
  for (int r = 0; r < MG_SEARCH_RULE_COUNT; r++)
    n += st->pruned[r];
  return n;
}

// One kernel per line (grid, loop, ops, estimate), for --verbose.
static void print_program(const MgProgram *p, const MgGpu *gpu) {
  const MgGraph *k = &p->graphs[0];
  for (uint32_t i = 0; i < k->num_ops; i++) {
    const MgOp *op = &k->ops[i];
    MgKernelCost c;
    if (!mg_cost_kernel(p, i, gpu, &c))
      continue;
    if (op->kind == MG_OP_CUSTOM) {
      const MgGraph *b = &p->graphs[op->attr];
      printf("    custom: grid (%d,%d,%d) F %d:", b->grid[0], b->grid[1],
             b->grid[2], b->forloop);
      for (uint32_t j = 0; j < b->num_ops; j++)
        if (b->ops[j].kind != MG_OP_INPUT)
          printf(" %s", mg_op_kind_name((MgOpKind)b->ops[j].kind));
    } else {
      printf("    %s", mg_op_kind_name((MgOpKind)op->kind));
    }
    printf("  [%.1f us, %s-bound, DRAM %.1f MB, L2 %.1f MB, util %.2f]\n",
           1e6 * c.time_s, mg_cost_bound_name(c.bound), c.dram_bytes / 1e6,
           c.l2_bytes / 1e6, c.utilization);
  }
}

static int run_table(const Args *a) {
  printf("| benchmark | paper's best | kernels | est. us input | est. us best "
         "| roofline us best | program bound us + launch "
         "| search s | enumerate s | verify s | states | pruned |");
  for (int r = 0; r < MG_SEARCH_RULE_COUNT; r++)
    printf(" %s |", mg_search_rule_name((MgSearchRule)r));
  printf(" candidates | tested | fingerprint fails | weak bound | verified | "
         "tests | notes |\n|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (int r = 0; r < MG_SEARCH_RULE_COUNT; r++)
    printf("---|");
  printf("---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < NUM_BENCHES; i++) {
    const Bench *b = &benches[i];
    if (a->only && strcmp(a->only, b->name))
      continue;
    if (!a->only && b->variant && (a->exhaustive || a->no_absexpr))
      continue; // the extra rows only make sense for the default search
    MgProgram *target = b->make();
    MgSearchOptions o = options_of(a);
    if (b->variant == 1)
      o.rank = MG_SEARCH_RANK_PROXY;
    if (b->variant == 2)
      o.cut_prologues = false;
    MgSearchResult r;
    MgDiag diag;
    MgStatus st = mg_search_run(target, &o, &r, &diag);
    const MgSearchStats *s = &r.stats;
    int32_t pick = r.best;
    const MgProgram *best = pick >= 0 ? r.found[pick].program : NULL;
    char kernels[64];
    if (st != MG_STATUS_OK)
      snprintf(kernels, sizeof kernels, "error");
    else if (best)
      snprintf(kernels, sizeof kernels, "%u", r.found[pick].cost.kernels);
    else
      snprintf(kernels, sizeof kernels, "none");
    const MgGpu *gpu = mg_cost_gpu(o.target);
    MgProgramBound bound;
    mg_cost_program_bound(target, gpu, &bound);
    // The estimates are the model of the emitted code (what ranks); the
    // roofline is the chosen kernels' own bound, the program bound what
    // any kernels computing the program take at least.
    printf("| %s | %s | %s | %.1f | %.1f | %.1f | %.1f + %.1f | %.2f | %.2f "
           "| %.2f | %llu | %llu |",
           b->name, b->paper, kernels,
           1e6 * mg_cost_emitted_program(target, gpu),
           best ? 1e6 * mg_cost_emitted_program(best, gpu) : 0.0,
           best ? 1e6 * mg_cost_program(best, gpu) : 0.0,
           1e6 * bound.time_s, 1e6 * gpu->launch_s, s->elapsed_s,
           s->enumerate_s, s->verify_s,
           (unsigned long long)s->states,
           (unsigned long long)pruned_total(s));
    for (int k = 0; k < MG_SEARCH_RULE_COUNT; k++)
      printf(" %llu |", (unsigned long long)s->pruned[k]);
    printf(" %llu | %llu | %llu | %llu | %llu | %llu | %s%s%s |\n",
           (unsigned long long)s->candidates,
           (unsigned long long)s->evaluated,
           (unsigned long long)s->fingerprint_mismatches,
           (unsigned long long)s->weak_bound,
           (unsigned long long)s->verified,
           (unsigned long long)s->tests_run,
           s->timed_out ? "time budget hit; " : "",
           s->memory_limited ? "memory bound hit; " : "",
           st != MG_STATUS_OK ? diag.message : "");
    if (a->verbose && best)
      print_program(best, gpu);
    fflush(stdout);
    mg_search_result_free(&r);
    mg_program_destroy(target);
  }
  return 0;
}

// RMSNorm search time for max-block-ops 5..11, abstract expressions on and
// off, 1 and 2 threads. Combinations that already timed out with fewer
// block ops are skipped (a larger limit only adds states) and reported so.
static int run_ablation(const Args *a) {
  printf("| max-block-ops | absexpr, 1 thread | absexpr, 2 threads | "
         "no absexpr, 1 thread | no absexpr, 2 threads |\n"
         "|---|---|---|---|---|\n");
  bool timed_out[4] = {false, false, false, false};
  for (uint32_t ops = 5; ops <= 11; ops++) {
    printf("| %u |", ops);
    for (int c = 0; c < 4; c++) {
      bool abs = c < 2;
      uint32_t threads = c % 2 ? 2 : 1;
      if (timed_out[c]) {
        printf(" timeout (skipped) |");
        continue;
      }
      Args x = *a;
      x.max_block_ops = ops;
      x.threads = threads;
      x.no_absexpr = !abs;
      MgSearchOptions o = options_of(&x);
      MgProgram *target = rmsnorm();
      MgSearchResult r;
      MgDiag diag;
      MgStatus st = mg_search_run(target, &o, &r, &diag);
      const MgSearchStats *s = &r.stats;
      const MgProgram *best = mg_search_result_best(&r);
      if (st != MG_STATUS_OK)
        printf(" error: %s |", diag.message);
      else if (s->timed_out) {
        printf(" timeout (> %.0f s, %llu states%s) |", a->budget,
               (unsigned long long)s->states,
               best ? ", best so far kept" : ", nothing verified");
        timed_out[c] = true;
      } else
        printf(" %.2f s (enumerate %.3f s), %s, %llu states |", s->elapsed_s,
               s->enumerate_s,
               best ? (r.found[r.best].cost.kernels == 1 ? "1 kernel"
                                                         : "more kernels")
                    : "none",
               (unsigned long long)s->states);
      fflush(stdout);
      mg_search_result_free(&r);
      mg_program_destroy(target);
    }
    printf("\n");
  }
  return 0;
}

int main(int argc, char **argv) {
  Args a;
  if (!parse(argc, argv, &a)) {
    usage();
    return 2;
  }
  return a.ablation ? run_ablation(&a) : run_table(&a);
}

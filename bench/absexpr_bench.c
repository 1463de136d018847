//===- absexpr_bench.c - E-graph saturation and lookup speed --------------===//
//
// For each of the six benchmark programs at the paper's shapes (b = 1):
// build and saturate the e-graph of the kernel-level form (time, e-nodes,
// e-classes, rounds, saturated or not), then time mg_absexpr_of_op over
// every op of the known fused form (or of the target itself where there is
// none), as the search calls it, and count the ops kept. Prints a table;
// asserts nothing. Usage: absexpr_bench [filter], where filter selects rows
// whose name contains it.
//
//===----------------------------------------------------------------------===//
#include "mirage/absexpr.h"
#include "mirage/samples.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Evaluates every op of graph `gid` (bodies of custom and thread ops
// first, with their inputs bound); counts evaluated and kept ops.
static void walk(const MgAbsGraph *g, const MgProgram *p, MgGraphId gid,
                 MgAbsId *ids, long *ops, long *kept) {
  const MgGraph *gr = &p->graphs[gid];
  for (uint32_t i = 0; i < gr->num_ops; ++i) {
    const MgOp *op = &gr->ops[i];
    if (op->kind == MG_OP_INPUT && gr->level != MG_LEVEL_KERNEL)
      continue;
    if (op->kind == MG_OP_CUSTOM || op->kind == MG_OP_THREAD) {
      const MgGraph *body = &p->graphs[op->attr];
      MgAbsId inner[256];
      if (body->num_tensors > 256)
        continue;
      for (uint32_t k = 0; k < body->num_ops && k < 256; ++k)
        if (body->ops[k].kind == MG_OP_INPUT)
          inner[body->ops[k].outputs[0]] = ids[op->inputs[body->ops[k].attr]];
      walk(g, p, (MgGraphId)op->attr, inner, ops, kept);
    }
    MgAbsId out[MG_MAX_OP_OUTPUTS];
    uint32_t n = mg_absexpr_of_op(g, p, gid, i, ids, out);
    for (uint32_t j = 0; j < n; ++j) {
      ids[op->outputs[j]] = out[j];
      *kept += mg_absexpr_is_subexpr(g, out[j]);
      ++*ops;
    }
  }
}

static void row(const char *name, const char *filter, MgProgram *target,
                MgProgram *cand) {
  if ((filter && !strstr(name, filter)) || !target || !cand) {
    mg_program_destroy(target);
    mg_program_destroy(cand);
    return;
  }
  double t0 = now();
  MgAbsGraph *g = mg_absexpr_create(target, NULL, NULL);
  double t1 = now();
  if (!g) {
    printf("| %-22s | create failed |\n", name);
    return;
  }
  MgAbsStats s = mg_absexpr_stats(g);
  MgAbsId ids[256];
  if (cand->graphs[0].num_tensors > 256)
    return;
  long ops = 0, kept = 0, reps = 0;
  double t2 = now(), t3 = t2;
  while (t3 - t2 < 0.2) {
    for (int r = 0; r < 100; ++r)
      walk(g, cand, 0, ids, &ops, &kept);
    reps += 100;
    t3 = now();
  }
  printf("| %-22s | %8.1f | %7u | %7u | %6u | %-5s | %5ld/%-3ld | %8.0f |\n",
         name, 1e3 * (t1 - t0), s.nodes, s.classes, s.iterations,
         s.saturated ? "yes" : "no", kept / reps, ops / reps,
         1e9 * (t3 - t2) / (double)ops);
  mg_absexpr_destroy(g);
  mg_program_destroy(target);
  mg_program_destroy(cand);
}

int main(int argc, char **argv) {
  const char *f = argc > 1 ? argv[1] : NULL;
  printf("| program (candidate)    | sat. ms  | e-nodes | classes | rounds | sat.  | kept/ops  | ns/op    |\n");
  printf("|------------------------|----------|---------|---------|--------|-------|-----------|----------|\n");
  row("rmsnorm (fused)", f, mg_sample_rmsnorm_matmul(2, 4096, 6144),
      mg_sample_rmsnorm_matmul_fused(2, 4096, 6144, 256, 32));
  row("gqa (split-kv)", f, mg_sample_attention(2, 256, 64, 4096),
      mg_sample_attention_split_kv(2, 256, 64, 4096, 16, 4));
  row("qknorm (itself)", f, mg_sample_qknorm(2, 256, 64, 4096),
      mg_sample_qknorm(2, 256, 64, 4096));
  row("lora (fused)", f, mg_sample_lora(16, 256, 4096, 16),
      mg_sample_lora_fused(16, 256, 4096, 16, 64));
  row("gated-mlp (fused)", f, mg_sample_gated_mlp(8, 4096, 4096),
      mg_sample_gated_mlp_fused(8, 4096, 4096, 64, 64));
  row("ntrans (fused)", f, mg_sample_ntrans(8, 4096),
      mg_sample_ntrans_fused(8, 4096, 8));
  return 0;
}

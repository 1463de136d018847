//===- verify_bench.c - Finite-field verifier and float interpreter speed --===//
//
// For each of the six benchmark programs at the paper's shapes (b = 1):
// verify the kernel-level form against the fused form (or against itself
// where there is none) and time it, then time one float-interpreter run of
// each form. Prints a table; asserts nothing. Usage: verify_bench [filter],
// where filter selects rows whose name contains it.
//
//===----------------------------------------------------------------------===//
#include "mirage/interp.h"
#include "mirage/samples.h"
#include "mirage/verify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Seconds for one float-interpreter run of `p` on inputs in [-1, 1].
static double time_float(const MgProgram *p) {
  const MgGraph *g = &p->graphs[0];
  double *in[16] = {0}, *out[16] = {0};
  double t = -1;
  MgRng rng = {7};
  bool ok = g->num_inputs <= 16 && g->num_outputs <= 16;
  for (uint32_t i = 0; ok && i < g->num_ops; ++i) {
    const MgOp *op = &g->ops[i];
    if (op->kind != MG_OP_INPUT)
      continue;
    int64_t n = mg_tensor_numel(&g->tensors[op->outputs[0]]);
    double *x = malloc(sizeof(double) * (size_t)n);
    ok = x != NULL;
    for (int64_t e = 0; ok && e < n; ++e)
      x[e] = (double)(mg_rng_next(&rng) >> 11) * 0x1p-52 - 1.0;
    in[op->attr] = x;
  }
  for (uint32_t k = 0; ok && k < g->num_outputs; ++k) {
    out[k] = malloc(sizeof(double) *
                    (size_t)mg_tensor_numel(&g->tensors[g->outputs[k]]));
    ok = out[k] != NULL;
  }
  if (ok) {
    double t0 = now();
    if (mg_interp_run_f64(p, (const double *const *)in, (double *const *)out,
                          NULL) == MG_STATUS_OK)
      t = now() - t0;
  }
  for (int i = 0; i < 16; ++i) {
    free(in[i]);
    free(out[i]);
  }
  return t;
}

static const char *verdict_name(MgStatus st, MgVerdict v) {
  if (st != MG_STATUS_OK)
    return mg_status_name(st);
  return v == MG_VERDICT_EQUIVALENT       ? "equivalent"
         : v == MG_VERDICT_NOT_EQUIVALENT ? "NOT-equivalent"
                                          : "unknown";
}

static void row(const char *name, MgProgram *ref, MgProgram *alt) {
  if (!ref || !alt) {
    printf("%-10s | could not build\n", name);
    mg_program_destroy(ref);
    mg_program_destroy(alt);
    return;
  }
  MgVerifyOptions opt = mg_verify_options_default();
  MgVerifyResult r;
  MgDiag diag;
  memset(&diag, 0, sizeof diag);
  double t0 = now();
  MgStatus st = mg_verify_equivalent(ref, alt, &opt, &r, &diag);
  double dt = now() - t0;
  uint32_t runs = r.tests + r.redraws;
  double per_test = runs ? dt / runs : 0;
  double eps = mg_verify_test_bound(ref, alt);
  double f_ref = time_float(ref), f_alt = time_float(alt);
  printf("%-10s | %-14s | %5u | %7u | %8.1f | %8.1f | %9.1f | %8.2f | "
         "%9.1f | %9.1f\n",
         name, verdict_name(st, r.verdict), r.tests, r.redraws, log2(eps),
         r.log2_bound, per_test * 1e3, per_test > 0 ? 1.0 / per_test : 0,
         f_ref * 1e3, f_alt * 1e3);
  if (st != MG_STATUS_OK)
    printf("           ! %s\n", diag.message);
  fflush(stdout);
  mg_program_destroy(ref);
  mg_program_destroy(alt);
}

int main(int argc, char **argv) {
  const char *filter = argc > 1 ? argv[1] : "";
  printf("Finite-field verification (kernel-level form vs fused form, "
         "target 2^-40) and float interpreter, paper shapes, b = 1\n");
  printf("%-10s | %-14s | %5s | %7s | %8s | %8s | %9s | %8s | %9s | %9s\n",
         "program", "verdict", "tests", "redraws", "log2 eps", "log2 bnd",
         "ms/test", "tests/s", "float ref", "float alt");
  printf("%-10s | %-14s | %5s | %7s | %8s | %8s | %9s | %8s | %9s | %9s\n",
         "", "", "", "", "per test", "reached", "(both)", "", "ms", "ms");
#define ROW(name, ref, alt)                                                    \
  do {                                                                         \
    if (strstr(name, filter))                                                  \
      row(name, ref, alt);                                                     \
  } while (0)
  ROW("rmsnorm", mg_sample_rmsnorm_matmul(2, 4096, 6144),
      mg_sample_rmsnorm_matmul_fused(2, 4096, 6144, 256, 32));
  ROW("gqa", mg_sample_attention(2, 256, 64, 4096),
      mg_sample_attention_split_kv(2, 256, 64, 4096, 16, 4));
  ROW("qknorm", mg_sample_qknorm(2, 256, 64, 4096),
      mg_sample_qknorm(2, 256, 64, 4096));
  ROW("lora", mg_sample_lora(16, 256, 4096, 16),
      mg_sample_lora_fused(16, 256, 4096, 16, 64));
  ROW("gated_mlp", mg_sample_gated_mlp(8, 4096, 4096),
      mg_sample_gated_mlp_fused(8, 4096, 4096, 64, 16));
  ROW("ntrans", mg_sample_ntrans(8, 4096), mg_sample_ntrans_fused(8, 4096, 8));
  printf("alt = fused form (qknorm: kernel-level form again). ms/test runs "
         "both programs once on one draw.\n");
  return 0;
}

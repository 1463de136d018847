//===- ptx_rank.c - Ranking verified candidates by what ptxas made -------===//
//
// Each candidate's GPU kernels are lowered on their own (one gpu.module,
// kernels "<module>_k<op>" as lib/lower names them), taken to PTX in a
// module of their own by the same upstream passes --mirage-lower appends,
// and assembled by ptxas_run.c; mg_cost_facts_parse maps its report back
// to the root ops. Diagnostics of that side trip are collected, never
// shown as the user's errors: a failure is a warning, and the candidate
// keeps the model's estimate.
//
//===----------------------------------------------------------------------===//
#include "ptx_rank.h"
#include "lower_pass.h"
#include "ptxas_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mirage/lower.h"
#include "mirage/tool.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Pass.h"

#define RANK_MODULE "mirage_rank_gpu"

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

// `dir` of `path` with its last `levels` components removed.
static void parent_dir(const char *path, int levels, char *out, size_t size) {
  snprintf(out, size, "%s", path);
  for (int i = 0; i < levels; i++) {
    char *slash = strrchr(out, '/');
    if (!slash || slash == out) {
      snprintf(out, size, "/");
      return;
    }
    *slash = 0;
  }
}

bool mg_ptx_rank_setup(MgPtxRank *r, const char *spec, uint32_t top,
                       char *why, size_t size) {
  memset(r, 0, sizeof *r);
  why[0] = 0;
  if (!strcmp(spec, "none"))
    return false;
  if (!mg_ptxas_find(spec, r->ptxas, sizeof r->ptxas)) {
    if (strcmp(spec, "auto") != 0)
      snprintf(why, size, "no executable ptxas at '%s'", spec);
    return false;
  }
  // The toolkit the ptxas belongs to links the PTX (its libdevice).
  parent_dir(r->ptxas, 2, r->toolkit, sizeof r->toolkit);
  if (!mg_lower_has_libdevice(r->toolkit))
    snprintf(r->toolkit, sizeof r->toolkit, "/usr/local/cuda");
  if (!mg_lower_has_libdevice(r->toolkit)) {
    snprintf(why, size, "ptxas '%s' has no libdevice beside it (nor "
             "/usr/local/cuda): the candidates cannot be compiled to PTX",
             r->ptxas);
    return false;
  }
  if (!mg_ptxas_version(r->ptxas, r->version, sizeof r->version)) {
    snprintf(why, size, "'%s --version' fails", r->ptxas);
    return false;
  }
  r->top = top;
  r->on = true;
  return true;
}

// Diagnostics of the side trip: the first one's text, the rest dropped.
static MlirLogicalResult collect(MlirDiagnostic d, void *ud) {
  MgToolText *t = ud;
  if (t->len == 0)
    mlirDiagnosticPrint(d, mg_tool_collect, t);
  return mlirLogicalResultSuccess();
}

// The PTX of the (only) gpu.binary of `module`, NUL-terminated (caller
// frees), or NULL.
static char *binary_ptx(MlirOperation module) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!mg_bridge_op_is(op, "gpu.binary"))
      continue;
    MlirAttribute objects = mlirOperationGetAttributeByName(op, str("objects"));
    if (mlirAttributeIsNull(objects) ||
        mlirArrayAttrGetNumElements(objects) < 1)
      return NULL;
    MlirAttribute obj = mlirArrayAttrGetElement(objects, 0);
    if (!mlirAttributeIsAGPUObjectAttr(obj) ||
        mlirGPUObjectAttrGetFormat(obj) != 2 /* isa: PTX text */)
      return NULL;
    MlirStringRef ptx = mlirGPUObjectAttrGetObject(obj);
    char *out = malloc(ptx.length + 1);
    if (out) {
      memcpy(out, ptx.data, ptx.length);
      out[ptx.length] = 0;
    }
    return out;
  }
  return NULL;
}

// `p`'s kernels as PTX for `target` (caller frees), or NULL with `why`.
static char *lower_to_ptx(const MgPtxRank *r, MlirContext ctx,
                          const MgTarget *target, const MgProgram *p,
                          char *why, size_t size) {
  MgText text = {NULL, 0, 0, false};
  MgLowerOptions o = {MG_LOWER_GPU, RANK_MODULE, NULL, false,
                      MG_LOWER_HOST_COPY, NULL};
  MgDiag d = MG_DIAG_INIT;
  mg_text_printf(&text, "module attributes {gpu.container_module} {\n");
  MgStatus st = mg_lower_emit_for(p, &o, target, &text, &d);
  mg_text_printf(&text, "}\n");
  if (st != MG_STATUS_OK || text.failed) {
    snprintf(why, size, "the lowering fails: %s", d.message);
    mg_text_free(&text);
    return NULL;
  }
  MgToolText err = {"", 0};
  MlirDiagnosticHandlerID quiet =
      mlirContextAttachDiagnosticHandler(ctx, collect, &err, NULL);
  MlirModule m = mlirModuleCreateParse(ctx, str(text.data));
  mg_text_free(&text);
  char *ptx = NULL;
  if (!mlirModuleIsNull(m)) {
    char pipeline[8400];
    mg_lower_ptx_pipeline(target->name, r->toolkit, pipeline, sizeof pipeline);
    MlirPassManager pm = mlirPassManagerCreate(ctx);
    MgToolText perr = {"", 0};
    bool built = mlirLogicalResultIsSuccess(mlirOpPassManagerAddPipeline(
        mlirPassManagerGetAsOpPassManager(pm), str(pipeline), mg_tool_collect,
        &perr));
    if (built && mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(
                     pm, mlirModuleGetOperation(m))))
      ptx = binary_ptx(mlirModuleGetOperation(m));
    mlirPassManagerDestroy(pm);
    mlirModuleDestroy(m);
    if (!built)
      snprintf(err.text, sizeof err.text, "%s", perr.text);
  }
  mlirContextDetachDiagnosticHandler(ctx, quiet);
  if (!ptx)
    snprintf(why, size, "no PTX: %s", err.len || err.text[0]
                                          ? err.text : "the pipeline failed");
  return ptx;
}

// The facts of `row`'s program, and its estimate with them.
static void assemble_row(const MgPtxRank *r, MlirContext ctx,
                         const MgTarget *target, const MgProgram *p,
                         MgPtxRankRow *row) {
  const MgGpu *gpu = mg_cost_gpu(target);
  row->model_s = row->facts_s = mg_cost_emitted_program(p, gpu);
  row->num_ops = p->graphs[0].num_ops;
  row->facts = calloc(row->num_ops + 1, sizeof *row->facts);
  if (!row->facts) {
    snprintf(row->why, sizeof row->why, "out of memory");
    return;
  }
  char *ptx = lower_to_ptx(r, ctx, target, p, row->why, sizeof row->why);
  if (!ptx)
    return;
  MgText log = {NULL, 0, 0, false};
  MgPtxasJob job = {r->ptxas, target->name, 60};
  if (mg_ptxas_assemble(&job, ptx, strlen(ptx), &log, row->why,
                        sizeof row->why)) {
    uint32_t filled = mg_cost_facts_parse(log.data ? log.data : "", ptx,
                                          RANK_MODULE, row->facts,
                                          row->num_ops);
    row->ok = filled > 0;
    if (!row->ok)
      snprintf(row->why, sizeof row->why, "ptxas reported no kernel");
  }
  mg_text_free(&log);
  free(ptx);
  if (row->ok)
    row->facts_s = mg_cost_emitted_program_facts(p, gpu, row->facts);
}

void mg_ptx_rank_apply(const MgPtxRank *r, MlirContext ctx,
                       const MgTarget *target, MgSearchResult *result,
                       MgPtxRanking *out) {
  memset(out, 0, sizeof *out);
  if (!r->on || result->num_found == 0)
    return;
  uint32_t n = result->num_found < r->top ? result->num_found : r->top;
  if (n > MG_PTX_RANK_MAX)
    n = MG_PTX_RANK_MAX;
  for (uint32_t i = 0; i < n; i++) {
    out->rows[i].found = i;
    assemble_row(r, ctx, target, result->found[i].program, &out->rows[i]);
  }
  out->n = n;
  // The cheapest by the facts; ties keep the search's order.
  for (uint32_t i = 1; i < n; i++)
    if (out->rows[i].facts_s < out->rows[out->chosen].facts_s)
      out->chosen = i;
  out->reordered = out->chosen != 0;
  result->best = (int32_t)out->rows[out->chosen].found;
}

void mg_ptx_rank_warn(const MgPtxRanking *k, MlirLocation loc,
                      const char *name) {
  for (uint32_t i = 0; i < k->n; i++)
    if (!k->rows[i].ok)
      mg_pass_warning(loc, "mirage-search: '@%s': no ptxas facts for verified "
                           "candidate %u (%s); it is ranked by the model's "
                           "estimate", name, i + 1, k->rows[i].why);
}

// One kernel's facts and residency beside the model's guess.
static int kernel_text(const MgProgram *p, MgOpId op, const MgGpu *gpu,
                       const MgKernelFacts *f, char *buf, size_t size) {
  MgEmittedCost guess, with;
  if (!mg_cost_emitted_kernel(p, op, gpu, &guess) ||
      !mg_cost_emitted_kernel_facts(p, op, gpu, f, &with))
    return 0;
  char depth[48] = "";
  if (with.stages)
    snprintf(depth, sizeof depth, ", %u stage(s)", with.stages);
  return snprintf(buf, size, " k%u: %d regs, %lld B smem, spills %lld/%lld B"
                  "%s, %u block(s)/SM (%c) [model %u (%c)] %.2f us;", op,
                  f->registers, (long long)f->smem_static,
                  (long long)f->spill_stores, (long long)f->spill_loads,
                  depth, with.resident, with.limit, guess.resident,
                  guess.limit, 1e6 * with.time_s);
}

void mg_ptx_rank_explain(const MgPtxRanking *k, const MgSearchResult *result,
                         const MgTarget *target, MlirLocation loc,
                         const char *name) {
  const MgGpu *gpu = mg_cost_gpu(target);
  for (uint32_t i = 0; i < k->n; i++) {
    const MgPtxRankRow *row = &k->rows[i];
    const MgProgram *p = result->found[row->found].program;
    char kernels[1536] = "";
    size_t n = 0;
    for (uint32_t op = 0; row->ok && op < row->num_ops; op++)
      if (row->facts[op].known && n < sizeof kernels) {
        int w = kernel_text(p, op, gpu, &row->facts[op], kernels + n,
                            sizeof kernels - n);
        n += w > 0 ? (size_t)w : 0;
      }
    if (row->ok)
      mg_pass_remark(loc, "mirage-explain: '@%s' ptxas, verified candidate "
                     "%u%s: model %.2f us; ptxas facts:%s re-estimate %.2f us",
                     name, i + 1, i == k->chosen ? " (chosen)" : "",
                     1e6 * row->model_s, kernels, 1e6 * row->facts_s);
    else
      mg_pass_remark(loc, "mirage-explain: '@%s' ptxas, verified candidate "
                     "%u%s: model %.2f us; no facts (%s): the model's "
                     "estimate stands", name, i + 1,
                     i == k->chosen ? " (chosen)" : "", 1e6 * row->model_s,
                     row->why);
  }
  if (k->n)
    mg_pass_remark(loc, "mirage-explain: '@%s' ptxas re-ranking of %u "
                   "verified candidate(s): %s", name, k->n,
                   k->reordered ? "the facts changed the choice"
                                : "the model's first stays first");
}

void mg_ptx_ranking_free(MgPtxRanking *k) {
  for (uint32_t i = 0; i < k->n; i++)
    free(k->rows[i].facts);
  memset(k, 0, sizeof *k);
}

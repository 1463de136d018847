//===- cost_pass.c - --mirage-cost: the cost models' estimates as remarks -===//
//
// For every kernel-level μGraph function: one remark with the program's
// time on the target by the model of the emitted code ("estimated") and
// by the roofline, then per kernel one with both estimates and the
// roofline's breakdown, and for every kernel lib/lower has a plan for one
// with the emitted model's: launch and occupancy, bytes in flight, the
// for-loop, the critical path and the work counted (lib/cost,
// docs/cost.md). An analysis: the module is not changed. The remarks are
// the pass's output, so they are printed whatever --mirage-remarks says.
//
//===----------------------------------------------------------------------===//
#include "cost_pass.h"
#include "mirage/cost.h"
#include "ugraph_funcs.h"

#include <stdio.h>

enum { OPT_TARGET };

static const MgOptionSpec options[] = {
    {"target", MG_OPTION_STRING, "sm_90",
     "GPU target to estimate for (sm_80, sm_86, sm_89, sm_90)", 0, 0},
};

void mg_cost_pass_kernel_figures(const MgOp *op, const MgKernelCost *c,
                                 const MgEmittedCost *e, char *buf,
                                 size_t size) {
  char blocks[96] = "";
  if (op->kind == MG_OP_CUSTOM)
    snprintf(blocks, sizeof blocks, "%llu block(s), utilization %.2f, ",
             (unsigned long long)c->blocks, c->utilization);
  char emitted[96] = "";
  if (e->planned)
    snprintf(emitted, sizeof emitted, "estimated %.2f us (%s-bound), "
             "roofline ", 1e6 * e->time_s, mg_cost_bound_name(e->bound));
  snprintf(buf, size, "%s%s%.2f us (%s-bound), DRAM %.3f MB, L2 %.3f MB, "
           "smem %.3f MB, %.4g tensor flop, %.4g simt op, %.4g sfu op",
           blocks, emitted, 1e6 * c->time_s, mg_cost_bound_name(c->bound),
           c->dram_bytes / 1e6, c->l2_bytes / 1e6, c->smem_bytes / 1e6,
           c->tensor_flops, c->simt_ops, c->sfu_ops);
}

static void kernel_remark(const MgProgram *p, const MgBridgeMap *map,
                          MgOpId i, const MgKernelCost *c,
                          const MgEmittedCost *e) {
  const MgOp *op = &p->graphs[0].ops[i];
  char figures[512];
  mg_cost_pass_kernel_figures(op, c, e, figures, sizeof figures);
  if (op->kind == MG_OP_CUSTOM)
    mg_pass_remark(map->op_locs[0][i], "mirage-cost: 'ug.custom' @%s: %s",
                   map->graph_names[op->attr], figures);
  else
    mg_pass_remark(map->op_locs[0][i], "mirage-cost: 'ug.%s': %s",
                   mg_op_kind_name((MgOpKind)op->kind), figures);
  if (!e->planned)
    return;
  // The emitted kernel: occupancy, memory parallelism, the critical path.
  char loop[96] = "";
  if (e->forloop > 1)
    snprintf(loop, sizeof loop, ", for-loop %lld%s, %u barrier(s) per "
             "iteration", (long long)e->forloop,
             e->pipelined ? " pipelined" : "", e->barriers_per_iteration);
  mg_pass_remark(map->op_locs[0][i],
                 "mirage-cost: emitted: %lld thread(s), smem %lld B, %u "
                 "block(s)/SM (%c), %u round(s), %.1f KB in flight/SM%s; "
                 "block path %.2f us (memory %.2f, chains %.2f, barriers "
                 "%.2f); DRAM %.3f MB, L2 %.3f MB, %.4g fma, %.4g fp32 op, "
                 "%.4g sfu op, %.4g lsu cycle(s), %.4g instruction(s)",
                 (long long)e->threads, (long long)e->smem_bytes,
                 e->resident, e->limit, e->rounds, e->inflight_bytes / 1e3,
                 loop, 1e6 * e->block_s, 1e6 * e->path_memory_s,
                 1e6 * e->path_chain_s, 1e6 * e->path_barrier_s,
                 e->dram_bytes / 1e6, e->l2_bytes / 1e6, e->fma,
                 e->fp32_ops, e->sfu_ops, e->lsu_cycles, e->instructions);
}

void mg_cost_pass_program_figures(const MgProgram *p, const MgGpu *gpu,
                                  char *buf, size_t size) {
  const MgGraph *g = &p->graphs[0];
  uint32_t kernels = 0; // inputs and free views are none
  for (uint32_t i = 0; i < g->num_ops; i++) {
    MgKernelCost c;
    kernels += mg_cost_kernel(p, i, gpu, &c);
  }
  snprintf(buf, size, "%u kernel(s), estimated %.2f us, roofline %.2f us",
           kernels, 1e6 * mg_cost_emitted_program(p, gpu),
           1e6 * mg_cost_program(p, gpu));
}

void mg_cost_pass_bound_figures(const MgProgram *p, const MgGpu *gpu,
                                char *buf, size_t size) {
  MgProgramBound b;
  mg_cost_program_bound(p, gpu, &b);
  snprintf(buf, size, "program bound %.3f us (DRAM %.3f MB once at %.2f "
           "TB/s, %.4g flop at the tensor-core peak) + one launch %.2f us",
           1e6 * b.time_s, b.dram_bytes / 1e6, gpu->dram_bw / 1e12,
           b.tensor_flops, 1e6 * gpu->launch_s);
}

static bool cost_laid(MlirOperation func, const MgProgram *p,
                      const MgBridgeMap *map, const MgGpu *gpu);

static bool cost_one(MlirOperation module, MlirSymbolTable symbols,
                     MlirOperation func, const MgProgram *given,
                     const MgBridgeMap *map, void *ud) {
  (void)module;
  (void)symbols;
  const MgGpu *gpu = mg_cost_gpu(ud);
  // As lowered: block graphs with the layouts of their folded views and
  // patches derived (the lowering's driver does the same), so their
  // strided reads and gathers are costed as emitted.
  MgProgram *p = mg_program_clone(given);
  MgDiag d;
  if (!p || mg_program_fold_layouts(p, &d) != MG_STATUS_OK) {
    mg_program_destroy(p);
    p = NULL;
  }
  bool ok = cost_laid(func, p ? p : given, map, gpu);
  mg_program_destroy(p);
  return ok;
}

static bool cost_laid(MlirOperation func, const MgProgram *p,
                      const MgBridgeMap *map, const MgGpu *gpu) {
  const MgGraph *g = &p->graphs[0];
  char figures[160], bound[192];
  mg_cost_pass_program_figures(p, gpu, figures, sizeof figures);
  mg_cost_pass_bound_figures(p, gpu, bound, sizeof bound);
  mg_pass_remark(mlirOperationGetLocation(func),
                 "mirage-cost: '@%s' on %s (%s): %s; %s", map->graph_names[0],
                 gpu->target, gpu->model, figures, bound);
  for (uint32_t i = 0; i < g->num_ops; i++) {
    MgKernelCost c;
    MgEmittedCost e;
    if (mg_cost_kernel(p, i, gpu, &c) && mg_cost_emitted_kernel(p, i, gpu, &e))
      kernel_remark(p, map, i, &c, &e);
  }
  return true;
}

static void run(MlirOperation module, MlirExternalPass pass,
                const MgOptionValue *values) {
  const MgTarget *target = mg_target_lookup(values[OPT_TARGET].s);
  if (!mg_pass_for_each_kernel_program(module, target, cost_one,
                                       (void *)target))
    mlirExternalPassSignalFailure(pass);
}

const MgPassDef mg_pass_cost = {
    "mirage-cost",
    "Print the cost models' estimates (the emitted code's and the roofline) "
    "of each kernel graph and kernel (lib/cost)",
    options, sizeof options / sizeof options[0], mg_pass_check_first_target, run, NULL};

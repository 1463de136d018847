//===- program.c - Whole-program estimate and the search's lower bound ----===//
//
// Kernels of a program run one after the other (a single stream), so the
// program's time is the sum of its kernels' times.
//
// Lower bound: every kernel costs at least launch_s + dram_bytes / (DRAM
// rate), since body_s >= the DRAM time (utilization <= 1). Across the
// kernels of a program computing the target's outputs, DRAM traffic covers
// at least each input the target reads once (an iterator's tiles cover its
// whole tensor; a slice reads its part, so an input read only by slices
// counts its largest slice) and each distinct output buffer that is not an
// input once (a free view is a view of its operand's buffer: nothing
// read or written). This assumes every input the target reads matters to
// its outputs, which holds for the lifted programs.
//
//===----------------------------------------------------------------------===//
#include "mirage/cost.h"
#include "cost_internal.h"

const MgGpu *mg_cost_gpu(const MgTarget *target) {
  return target && target->gpu ? target->gpu : mg_target_default()->gpu;
}

double mg_cost_program(const MgProgram *program, const MgGpu *gpu) {
  if (!program || program->num_graphs == 0)
    return 0;
  double total = 0;
  const MgGraph *g = &program->graphs[0];
  for (uint32_t i = 0; i < g->num_ops; i++) {
    MgKernelCost c;
    if (mg_cost_kernel(program, i, gpu, &c))
      total += c.time_s;
  }
  return total;
}

// The tensor whose buffer `t` lives in: through free views (views of
// their operand's buffer, no kernel) back to the first real one.
static MgTensorId buffer_of(const MgGraph *g, MgTensorId t) {
  while (mg_graph_view_is_free(g, &g->ops[g->tensors[t].producer]))
    t = g->ops[g->tensors[t].producer].inputs[0];
  return t;
}

// The bytes any program computing `target`'s outputs moves through DRAM at
// least: each input it reads once (its largest slice where only slices
// read it) and each distinct output buffer that is not an input once.
static double compulsory_bytes(const MgProgram *target) {
  double bytes = 0;
  if (!target || target->num_graphs == 0)
    return 0;
  const MgGraph *g = &target->graphs[0];
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    if (op->kind != MG_OP_INPUT)
      continue;
    // Read by a kernel, directly or through free views (which read
    // nothing themselves): the whole input, except by slices alone,
    // which read their part.
    double whole = (double)mg_tensor_bytes(&g->tensors[op->outputs[0]]);
    double read = 0;
    for (uint32_t j = i + 1; j < g->num_ops && read < whole; j++) {
      const MgOp *r = &g->ops[j];
      for (uint32_t k = 0; k < r->num_inputs; k++) {
        if (mg_graph_view_is_free(g, r) ||
            buffer_of(g, r->inputs[k]) != op->outputs[0])
          continue;
        const MgTensor *res = &g->tensors[r->outputs[0]];
        double part =
            r->kind == MG_OP_SLICE ? (double)mg_tensor_bytes(res) : whole;
        read = part > read ? part : read;
      }
    }
    bytes += read;
  }
  // Outputs a kernel must write: each distinct buffer once, none that is
  // an input (a program may return it untouched, or a free view of it).
  for (uint32_t k = 0; k < g->num_outputs; k++) {
    MgTensorId t = buffer_of(g, g->outputs[k]);
    bool again = g->ops[g->tensors[t].producer].kind == MG_OP_INPUT;
    for (uint32_t j = 0; j < k && !again; j++)
      again = buffer_of(g, g->outputs[j]) == t;
    if (!again)
      bytes += (double)mg_tensor_bytes(&g->tensors[t]);
  }
  return bytes;
}

double mg_cost_lower_bound(const MgProgram *target, uint32_t kernels,
                           const MgGpu *gpu) {
  if (!gpu)
    gpu = mg_cost_gpu(NULL);
  return kernels * gpu->launch_s +
         compulsory_bytes(target) / (gpu->dram_bw * MG_COST_DRAM_EFF);
}

void mg_cost_program_bound(const MgProgram *program, const MgGpu *gpu,
                           MgProgramBound *out) {
  if (!gpu)
    gpu = mg_cost_gpu(NULL);
  *out = (MgProgramBound){0};
  out->dram_bytes = compulsory_bytes(program);
  if (program && program->num_graphs > 0)
    for (uint32_t i = 0; i < program->graphs[0].num_ops; i++) {
      MgKernelCost c;
      if (mg_cost_kernel(program, i, gpu, &c))
        out->tensor_flops += c.tensor_flops;
    }
  // The data-sheet rates, not the model's achievable fraction of them: a
  // bound no kernel can beat.
  out->dram_s = out->dram_bytes / gpu->dram_bw;
  out->flops_s = out->tensor_flops / gpu->tensor_flops;
  out->time_s = out->dram_s > out->flops_s ? out->dram_s : out->flops_s;
}

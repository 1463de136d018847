//===- program.c - Whole-program estimate and the search's lower bound ----===//
//
// Kernels of a program run one after the other (a single stream), so the
// program's time is the sum of its kernels' times.
//
// Lower bound: every kernel costs at least launch_s + dram_bytes / (DRAM
// rate), since body_s >= the DRAM time (utilization <= 1). Across the
// kernels of a program computing the target's outputs, DRAM traffic covers
// at least each input the target reads once (an iterator's tiles cover its
// whole tensor) and each distinct output that is not an input once. This
// assumes every input the target reads matters to its outputs, which holds
// for the lifted programs.
//
//===----------------------------------------------------------------------===//
#include "mirage/cost.h"
#include "cost_internal.h"

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

double mg_cost_lower_bound(const MgProgram *target, uint32_t kernels,
                           const MgGpu *gpu) {
  if (!gpu)
    gpu = mg_cost_gpu(NULL);
  double bytes = 0;
  if (target && target->num_graphs > 0) {
    const MgGraph *g = &target->graphs[0];
    for (uint32_t i = 0; i < g->num_ops; i++) {
      const MgOp *op = &g->ops[i];
      if (op->kind != MG_OP_INPUT)
        continue;
      bool read = false;
      for (uint32_t j = i + 1; j < g->num_ops && !read; j++)
        for (uint32_t k = 0; k < g->ops[j].num_inputs && !read; k++)
          read = g->ops[j].inputs[k] == op->outputs[0];
      if (read)
        bytes += (double)mg_tensor_bytes(&g->tensors[op->outputs[0]]);
    }
    // Outputs a kernel must write: each distinct one once, none that is
    // an input (a program may return it untouched).
    for (uint32_t k = 0; k < g->num_outputs; k++) {
      MgTensorId t = g->outputs[k];
      bool again = g->ops[g->tensors[t].producer].kind == MG_OP_INPUT;
      for (uint32_t j = 0; j < k && !again; j++)
        again = g->outputs[j] == t;
      if (!again)
        bytes += (double)mg_tensor_bytes(&g->tensors[t]);
    }
  }
  return kernels * gpu->launch_s + bytes / (gpu->dram_bw * MG_COST_DRAM_EFF);
}

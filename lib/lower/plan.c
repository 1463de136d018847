//===- plan.c - What the lowering emits for a kernel op ------------------===//
//
// mg_lower_kernel_plan states the structure of the GPU kernel that
// mg_lower_emit writes for one kernel op, for the cost model of the emitted
// code (lib/cost/emitted.c). Every fact comes from the lowering's own
// decisions, never a second derivation of them:
//  - the launch: mg_lower_launch, mg_lower_is_gemv;
//  - shared memory: mg_lower_tile_bytes (tiles, both stages where staged,
//    online state), the reduction scratch of gpu.c (one f32 per warp when
//    the block's threads are whole warps), mg_lower_gemv_smem, _ring;
//  - phases: mg_lower_op_phases (decide/schedule.c: loop-invariant tiles and
//    what only they feed run before the loop);
//  - values kept in registers: mg_lower_register_values (the plan the
//    emitter allocates tiles by);
//  - tile copies: mg_lower_vector_width (with move_tile's rule for a saver
//    storing into a narrower kernel tensor), mg_lower_is_staged,
//    mg_lower_pipelined, mg_lower_has_layout, for a tile read in stored
//    order mg_lower_stored_vector_width;
//  - reductions: mg_lower_reduction_warps with the Emit fields it reads
//    (the graph, the cooperative threads, whether the op runs inside a
//    for-loop of F > 1), tensor cores through mg_lower_uses_mma;
//  - barriers: write/block.c places them by dependence and keeps the
//    placement to itself, so they are counted in the kernel it writes
//    (mg_lower_gpu_kernel into a scratch text): gpu.barrier lines before,
//    inside and after the for-loop it marks {mirage.for_loop}.
// The plan is for the FMA form of block matmuls; the kernel counted for
// barriers is emitted with Emit.fma_matmuls set, which takes that form too.
//
//===----------------------------------------------------------------------===//
#include "form/form.h"

#include <stdlib.h>
#include <string.h>

bool mg_lower_uses_mma(const MgGraph *block, const MgOp *op,
                       const MgTarget *target) {
  // mma.c's own test (the barriers counted below are the FMA form's).
  if (!target)
    target = mg_target_default();
  return op->kind == MG_OP_MATMUL &&
         mg_lower_mma_plan(block, op, mg_lower_target_has_mma(target), NULL);
}

// Terms per result element of a reduction (0: not one): what
// mg_lower_reduction_warps reduces over.
static int64_t reduction_terms(const MgGraph *b, const MgOp *op) {
  const MgTensor *in = &b->tensors[op->inputs[0]];
  switch ((MgOpKind)op->kind) {
  case MG_OP_MATMUL:
    return in->dims[in->rank - 1];
  case MG_OP_SUM: case MG_OP_REDUCE_MAX:
    return in->dims[op->attr];
  case MG_OP_ACCUM:
    return op->acc == MG_ACCUM_SUM_LAST || op->acc == MG_ACCUM_SUM_SQ_LAST
               ? in->dims[in->rank - 1] : 0;
  default:
    return 0;
  }
}

// The vector width of a tile copy, as move_tile (ops.c) takes it: the
// kept types' width, element by element when a saver converts between two
// 16-bit types (the kernel tensor's storage type is the root's).
static int64_t copy_width(const MgProgram *p, const MgOp *kop,
                          const MgGraph *b, const MgOp *op) {
  bool saver = op->kind == MG_OP_SAVER;
  MgTensorId tile = saver ? op->inputs[0] : op->outputs[0];
  MgTensorId dram = saver ? op->outputs[0] : op->inputs[0];
  int64_t vw = mg_lower_vector_width(b, tile, dram);
  MgDType dt_tile = mg_lower_kept_dtype(b, tile);
  MgDType dt_dram = (MgDType)b->tensors[dram].dtype;
  if (saver)
    for (uint32_t k = 0; k < b->num_outputs; k++)
      if (b->outputs[k] == dram)
        dt_dram = (MgDType)p->graphs[0].tensors[kop->outputs[k]].dtype;
  if (dt_tile != dt_dram && dt_tile != MG_DTYPE_F32 && dt_dram != MG_DTYPE_F32)
    vw = 1;
  return vw;
}

// gpu.barrier lines of the kernel text `s` before, inside and after the
// for-loop (the scf.for closed by "} {mirage.for_loop}", at its indent).
static void count_barriers(const char *s, MgLowerKernelPlan *plan) {
  const char *loop_end = strstr(s, "} {mirage.for_loop}");
  const char *loop_start = NULL;
  if (loop_end) {
    const char *line = loop_end;
    while (line > s && line[-1] == ' ')
      line--;
    size_t indent = (size_t)(loop_end - line);
    // The last line before it at the same indent that opens an scf.for.
    for (const char *l = s; l < line;) {
      const char *nl = strchr(l, '\n');
      size_t n = 0;
      while (l[n] == ' ')
        n++;
      if (n == indent && strncmp(l + n, "scf.for ", 8) == 0)
        loop_start = l;
      l = nl ? nl + 1 : line;
    }
  }
  for (const char *l = s; *l;) {
    const char *nl = strchr(l, '\n');
    const char *c = l;
    while (*c == ' ')
      c++;
    if (strncmp(c, "gpu.barrier", 11) == 0 && (c[11] == '\n' || !c[11])) {
      if (!loop_start || l < loop_start)
        plan->barriers_before++;
      else if (l < loop_end)
        plan->barriers_per_iteration++;
      else
        plan->barriers_after++;
    }
    if (!nl)
      break;
    l = nl + 1;
  }
  if (!loop_start) { // no for-loop: everything is "after" it
    plan->barriers_after += plan->barriers_before;
    plan->barriers_before = 0;
  }
}

// Writes the kernel of `op` and counts its barriers; false when the
// lowering rejects it.
static bool emitted_barriers(const MgProgram *p, MgOpId op,
                             const MgTarget *target,
                             MgLowerKernelPlan *plan) {
  MgText text = {0};
  uint32_t counter = 0;
  Emit e;
  memset(&e, 0, sizeof e);
  e.t = &text;
  e.target = target;
  e.fma_matmuls = true; // the plan's form
  e.mode = MG_LOWER_GPU;
  e.p = p;
  e.counter = &counter;
  mg_lower_gpu_kernel(&e, "plan", op);
  bool ok = !e.error && !text.failed && text.data;
  if (ok)
    count_barriers(text.data, plan);
  mg_text_free(&text);
  return ok;
}

static bool block_steps(const MgProgram *p, const MgOp *kop,
                        const MgTarget *target,
                        MgLowerKernelPlan *plan) {
  const MgGraph *b = &p->graphs[kop->attr];
  for (MgTensorId t = 0; t < b->num_tensors; t++)
    if (b->tensors[t].rank == 0)
      return false; // mg_lower_emit rejects rank-0 tensors

  uint8_t *phase = malloc(b->num_ops + 1);
  bool *reg = calloc(b->num_tensors + 1, sizeof *reg);
  bool ok = reg && phase && mg_lower_op_phases(b, phase) &&
            mg_lower_register_values(b, reg);
  Emit r; // what mg_lower_reduction_warps reads
  memset(&r, 0, sizeof r);
  r.g = b;
  r.target = target;
  r.fma_matmuls = true; // the plan's form, as emitted_barriers writes it
  r.coop_threads = plan->coop_threads;
  for (uint32_t i = 0; ok && i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (op->kind == MG_OP_INPUT)
      continue;
    if (plan->num_steps == MG_LOWER_PLAN_MAX_STEPS) {
      ok = false;
      break;
    }
    MgLowerStep *s = &plan->steps[plan->num_steps++];
    memset(s, 0, sizeof *s);
    s->op = i;
    s->phase = (MgLowerPhase)phase[i];
    s->registers = op->num_outputs && op->kind != MG_OP_SAVER &&
                   reg[op->outputs[0]];
    if (op->kind == MG_OP_ITERATOR || op->kind == MG_OP_SAVER) {
      s->vector = copy_width(p, kop, b, op);
      if (op->kind == MG_OP_ITERATOR) {
        s->async = mg_lower_is_async_load(b, op);
        s->stored_order = s->vector == 1 &&
                          mg_lower_has_layout(b, op->inputs[0]);
        bool whole = false;
        if (s->stored_order)
          s->vector = mg_lower_stored_vector_width(p, b, op->outputs[0],
                                                   op->inputs[0], NULL,
                                                   &whole);
        s->scattered = s->stored_order && !whole;
      }
      continue;
    }
    s->terms = reduction_terms(b, op);
    s->mma = op->kind == MG_OP_MATMUL && mg_lower_uses_mma(b, op, target);
    if (s->terms && !s->mma) {
      r.in_loop = s->phase == MG_LOWER_PHASE_LOOP && b->forloop > 1;
      s->warps = mg_lower_reduction_warps(&r, op);
      const MgTensor *in = &b->tensors[op->inputs[0]];
      uint32_t dim = op->kind == MG_OP_ACCUM ? in->rank - 1u
                                             : (uint32_t)op->attr;
      if (!s->warps && op->kind != MG_OP_MATMUL)
        s->stagger_ops = mg_lower_stagger_ops(in, dim);
    }
  }
  free(phase);
  free(reg);
  return ok;
}

bool mg_lower_kernel_plan(const MgProgram *p, MgOpId op,
                          const MgTarget *target, MgLowerKernelPlan *plan) {
  memset(plan, 0, sizeof *plan);
  plan->forloop = 1;
  if (!target)
    target = mg_target_default();
  if (!p || p->num_graphs == 0 || op >= p->graphs[0].num_ops ||
      !mg_lower_is_kernel(p, op))
    return false;
  const MgGraph *root = &p->graphs[0];
  const MgOp *o = &root->ops[op];
  if (o->kind == MG_OP_CUSTOM &&
      (o->attr < 0 || (uint32_t)o->attr >= p->num_graphs))
    return false;
  mg_lower_launch(p, op, plan->grid, &plan->threads);
  int64_t blocks, threads;
  bool gemv = mg_lower_is_gemv(p, op, &blocks, &threads);
  if (o->kind == MG_OP_CUSTOM && !gemv) {
    const MgGraph *b = &p->graphs[o->attr];
    plan->form = MG_LOWER_FORM_BLOCKS;
    plan->forloop = b->forloop;
    plan->pipelined = mg_lower_pipelined(b);
    plan->stages = mg_lower_stages(b);
    plan->async_batches = plan->pipelined ? 0 : mg_lower_async_batches(b);
    plan->coop_threads = mg_lower_coop_threads(b);
    plan->smem_bytes = mg_lower_tile_bytes(p, op) +
                       (plan->coop_threads ? plan->coop_threads / 32 * 4 : 0);
    plan->dynamic_smem_bytes = mg_lower_smem_bytes(p, op);
    if (!block_steps(p, o, target, plan) ||
        !emitted_barriers(p, op, target, plan)) {
      memset(plan, 0, sizeof *plan);
      return false;
    }
  } else if (mg_op_is_view(o, MG_LEVEL_KERNEL)) {
    plan->form = MG_LOWER_FORM_COPY;
    plan->vector = mg_lower_view_vector_width(root, o);
  } else if (gemv) {
    plan->form = MG_LOWER_FORM_GEMV;
    char type[TYPE_LEN];
    plan->smem_bytes = mg_lower_gemv_smem(p, op, type, sizeof type) +
                       mg_lower_gemv_ring(p, op, &plan->stages, type,
                                          sizeof type) +
                       mg_lower_gemv_stats(p, op, type, sizeof type);
    mg_lower_gemv_fill_plan(p, op, plan);
    plan->vector = MG_LOWER_VECTOR_BYTES /
                   (int64_t)mg_dtype_bytes(root->tensors[plan->gemv_b].dtype);
    plan->unroll = mg_lower_gemv_unroll(p, op);
    plan->rows = mg_lower_gemv_rows(p, op);
    int64_t chunks = 0;
    plan->cols = mg_lower_gemv_dot_cols(p, op, &chunks, &plan->acc_lanes);
    if (plan->cols) { // A staged per chunk: a barrier before and after use
      plan->forloop = chunks;
      plan->barriers_per_iteration = 2;
    } else {
      plan->barriers_after = 1; // the partial sums meet after one barrier
    }
  } else {
    plan->form = MG_LOWER_FORM_GRID;
    plan->vector = 1;
  }
  return true;
}

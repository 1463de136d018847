//===- kernel.c - Time of one kernel: traffic, work, utilization ----------===//
//
// A kernel's time is launch_s + body_s, where
//   body_s = max over resources r of (amount_r / rate_r) / utilization.
// Resources and rates (peak × sustained fraction, cost_internal.h):
//   DRAM    compulsory traffic: each kernel tensor read once if it fits in
//           half the L2 (re-reads then hit L2), else every read; outputs;
//   L2      every global load and store;
//   SMEM    block ops read their operands from and write their result to
//           shared memory; iterators fill tiles, savers drain them;
//   TENSOR  matmul flops (f32 operands at half rate, as TF32);
//   SIMT    one lane op per element of element-wise ops and reductions
//           (an add for sums, a compare for maxima);
//   SFU     one special-function evaluation per element of exp, sqrt,
//           rsqrt, silu, gelu.
// The online-softmax accumulator costs what the lowering emits for it
// (online_work below).
// View ops (views.c) are copy kernels counted in the sectors they move; a
// free or folded view is no kernel (a folded one's readers pay for their
// strided reads: stored-order tile copies, see emitted.c).
// Utilization is wave quantization at SM granularity: a grid of B blocks on
// S SMs keeps B / (S * ceil(B / S)) of the SM time busy. Predefined ops
// stand for tuned library kernels: their own grid, utilization 1.
// Ops inside the for-loop count once per iteration, every block counts.
//
//===----------------------------------------------------------------------===//
#include "mirage/cost.h"
#include "cost_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const bound_names[MG_COST_BOUND_COUNT] = {
    "launch", "dram", "l2", "smem", "tensor", "simt", "sfu", "issue",
    "latency"};

const char *mg_cost_bound_name(MgCostBound bound) {
  return (unsigned)bound < MG_COST_BOUND_COUNT ? bound_names[bound] : NULL;
}

static double numel(const MgTensor *t) { return (double)mg_tensor_numel(t); }

static double bytes(const MgTensor *t) {
  return (double)mg_tensor_bytes(t);
}

static bool is_sfu(MgOpKind kind) {
  return kind == MG_OP_EXP || kind == MG_OP_SQRT || kind == MG_OP_RSQRT ||
         kind == MG_OP_SILU || kind == MG_OP_GELU || kind == MG_OP_LOG ||
         kind == MG_OP_TANH || kind == MG_OP_ERF;
}

// Work of one execution of a compute op of `g` (any level) into `c`.
static void add_work(const MgProgram *p, const MgGraph *g, const MgOp *op,
                     double times, MgKernelCost *c) {
  MgOpKind kind = (MgOpKind)op->kind;
  if (op->num_outputs == 0)
    return;
  const MgTensor *out = &g->tensors[op->outputs[0]];
  const MgTensor *in = op->num_inputs ? &g->tensors[op->inputs[0]] : out;
  switch (kind) {
  case MG_OP_MATMUL: {
    double flops = 2.0 * numel(out) * (double)in->dims[in->rank - 1];
    // f32 operands run as TF32: half the f16 rate.
    c->tensor_flops += times * flops * (in->dtype == MG_DTYPE_F32 ? 2 : 1);
    return;
  }
  case MG_OP_SUM: case MG_OP_REDUCE_MAX: case MG_OP_ACCUM:
    c->simt_ops += times * numel(in); // one add or compare per term
    return;
  case MG_OP_THREAD: {
    // A fused chain in registers: per element of the result, one
    // evaluation per op of the chain, on the unit that op needs.
    if (op->attr < 0 || (uint32_t)op->attr >= p->num_graphs)
      return;
    const MgGraph *t = &p->graphs[op->attr];
    for (uint32_t i = 0; i < t->num_ops; i++) {
      MgOpKind k = (MgOpKind)t->ops[i].kind;
      if (k == MG_OP_INPUT)
        continue;
      if (is_sfu(k))
        c->sfu_ops += times * numel(out);
      else
        c->simt_ops += times * numel(out);
    }
    return;
  }
  case MG_OP_CONCAT: case MG_OP_INPUT: case MG_OP_ITERATOR:
  case MG_OP_SAVER: case MG_OP_CUSTOM: case MG_OP_COUNT:
  case MG_OP_TRANSPOSE: case MG_OP_RESHAPE: case MG_OP_SLICE:
  case MG_OP_IM2COL:
    return; // data movement only
  default:
    if (is_sfu(kind))
      c->sfu_ops += times * numel(out);
    else
      c->simt_ops += times * numel(out);
    return;
  }
}

// The online accumulator (x, m) over a block graph's `blocks` blocks, as
// lib/lower/write/online.c emits it: the first iteration copies x and m (no
// arithmetic, the max stored); each later one computes, per element of m,
// the new max, two differences and two exps (max, 2 sub: 3 lane ops; 2
// SFU), and per element of x the rescaled sum acc·a + x·b (mul, FMA: 2
// lane ops). Shared memory: x and m read and the tile written every
// iteration, as other ops; the running max read and written per element
// of m, and when x is larger than m the two factors written per element of
// m and read per element of x.
static void online_work(const MgGraph *b, const MgOp *op, double blocks,
                        MgKernelCost *c) {
  const MgTensor *x = &b->tensors[op->inputs[0]];
  const MgTensor *m = &b->tensors[op->inputs[1]];
  double steps = blocks * (b->forloop > 1 ? b->forloop - 1 : 0);
  double nx = numel(x), nm = numel(m), f32 = sizeof(float);
  c->simt_ops += steps * (3 * nm + 2 * nx);
  c->sfu_ops += steps * 2 * nm;
  double all = blocks * (b->forloop > 1 ? b->forloop : 1);
  c->smem_bytes += all * (bytes(x) + bytes(m) +
                          bytes(&b->tensors[op->outputs[0]]));
  c->smem_bytes += (blocks + steps * 2) * f32 * nm; // the running max
  if (nx != nm)
    c->smem_bytes += steps * 2 * f32 * (nm + nx); // the factors
}

static void predefined(const MgProgram *p, const MgOp *op, MgKernelCost *c) {
  const MgGraph *g = &p->graphs[0];
  for (uint32_t i = 0; i < op->num_inputs; i++)
    c->dram_bytes += bytes(&g->tensors[op->inputs[i]]);
  for (uint32_t i = 0; i < op->num_outputs; i++)
    c->dram_bytes += bytes(&g->tensors[op->outputs[i]]);
  c->l2_bytes = c->dram_bytes;
  add_work(p, g, op, 1.0, c);
  c->utilization = 1.0;
}

// Global reads of one iterator over the whole grid and loop.
static double iterator_reads(const MgGraph *b, const MgOp *it, double blocks) {
  double loads = it->fmap == MG_MAP_NONE ? 1.0 : (double)b->forloop;
  return bytes(&b->tensors[it->outputs[0]]) * loads * blocks;
}

double mg_cost_iterator_traffic(const MgGraph *b, const MgOp *it,
                                double blocks, const MgGpu *gpu,
                                double *dram) {
  double reads = iterator_reads(b, it, blocks);
  double whole = bytes(&b->tensors[it->inputs[0]]);
  *dram = reads > whole && whole <= gpu->l2_bytes / 2 ? whole : reads;
  return reads;
}

static bool custom(const MgProgram *p, const MgGraph *b, const MgGpu *gpu,
                   MgKernelCost *c) {
  bool small[64];
  bool *in_loop = mg_graph_loop_flags(b, small, 64);
  if (!in_loop)
    return false;
  double blocks = (double)b->grid[0] * b->grid[1] * b->grid[2];
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    double times = blocks * (in_loop[i] && b->forloop > 1 ? b->forloop : 1);
    switch ((MgOpKind)op->kind) {
    case MG_OP_INPUT:
      break;
    case MG_OP_ITERATOR: {
      double dram;
      double reads = mg_cost_iterator_traffic(b, op, blocks, gpu, &dram);
      c->l2_bytes += reads;
      c->dram_bytes += dram;
      c->smem_bytes += reads;
      break;
    }
    case MG_OP_SAVER: {
      double tile = bytes(&b->tensors[op->inputs[0]]) * blocks;
      c->l2_bytes += tile;
      c->dram_bytes += tile;
      c->smem_bytes += tile;
      break;
    }
    default:
      if (op->kind == MG_OP_ACCUM && op->acc == MG_ACCUM_ONLINE &&
          op->num_inputs == 2) {
        online_work(b, op, blocks, c);
        break;
      }
      for (uint32_t k = 0; k < op->num_inputs; k++)
        c->smem_bytes += times * bytes(&b->tensors[op->inputs[k]]);
      for (uint32_t k = 0; k < op->num_outputs; k++)
        c->smem_bytes += times * bytes(&b->tensors[op->outputs[k]]);
      add_work(p, b, op, times, c);
      break;
    }
  }
  if (in_loop != small)
    free(in_loop);
  c->blocks = (uint64_t)blocks;
  double waves = ceil(blocks / gpu->sms);
  c->utilization = blocks / (gpu->sms * waves);
  return true;
}

// body_s and the bound from the amounts and utilization in `c`.
static void finish(const MgGpu *gpu, MgKernelCost *c) {
  double sm_clk = gpu->sms * gpu->clock_hz;
  double t[MG_COST_BOUND_COUNT] = {0};
  t[MG_COST_BOUND_DRAM] = c->dram_bytes / (gpu->dram_bw * MG_COST_DRAM_EFF);
  t[MG_COST_BOUND_L2] = c->l2_bytes / (gpu->l2_bw * MG_COST_L2_EFF);
  t[MG_COST_BOUND_SMEM] =
      c->smem_bytes / (sm_clk * gpu->smem_bytes_clk * MG_COST_SMEM_EFF);
  t[MG_COST_BOUND_TENSOR] =
      c->tensor_flops / (gpu->tensor_flops * MG_COST_TENSOR_EFF);
  t[MG_COST_BOUND_SIMT] =
      c->simt_ops / (sm_clk * gpu->simt_lanes * MG_COST_SIMT_EFF);
  t[MG_COST_BOUND_SFU] =
      c->sfu_ops / (sm_clk * gpu->sfu_lanes * MG_COST_SFU_EFF);
  c->bound = MG_COST_BOUND_LAUNCH;
  double worst = 0;
  for (int r = MG_COST_BOUND_DRAM; r < MG_COST_BOUND_COUNT; r++)
    if (t[r] > worst) {
      worst = t[r];
      c->bound = (MgCostBound)r;
    }
  c->body_s = worst / c->utilization;
  c->time_s = gpu->launch_s + c->body_s;
}

bool mg_cost_kernel(const MgProgram *program, MgOpId op, const MgGpu *gpu,
                    MgKernelCost *out) {
  memset(out, 0, sizeof *out);
  if (!program || program->num_graphs == 0 ||
      op >= program->graphs[0].num_ops)
    return false;
  const MgOp *o = &program->graphs[0].ops[op];
  if (o->kind == MG_OP_INPUT)
    return false;
  if (!gpu)
    gpu = mg_cost_gpu(NULL);
  if (o->kind == MG_OP_CUSTOM) {
    if (o->attr < 0 || (uint32_t)o->attr >= program->num_graphs ||
        !custom(program, &program->graphs[o->attr], gpu, out)) {
      memset(out, 0, sizeof *out);
      return false;
    }
  } else if (mg_op_is_view(o, MG_LEVEL_KERNEL)) {
    if (mg_graph_view_is_free(&program->graphs[0], o) ||
        mg_graph_view_folds(&program->graphs[0], o) ||
        mg_graph_im2col_folds(&program->graphs[0], o))
      return false; // a view of its operand's buffer: no kernel
    mg_cost_view(program, o, gpu, out);
  } else {
    predefined(program, o, out);
  }
  finish(gpu, out);
  return true;
}

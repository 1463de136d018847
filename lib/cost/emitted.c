//===- emitted.c - Cost model of the kernels lib/lower emits --------------===//
//
// The roofline (kernel.c) estimates an idealised implementation of each
// kernel. This model estimates the kernel lib/lower writes for it, from
// its plan (mg_lower_kernel_plan: launch, shared memory, vector widths,
// staged tiles, values in registers, cooperative reductions, barriers):
//
//   time = launch + max(t_dram, t_l2, t_fp32, t_sfu, t_lsu, t_issue,
//                       t_latency)
//
//  - t_dram, t_l2: the roofline's traffic at its sustained bandwidths (a
//    predefined matmul's L2 traffic is its own: every term is a global
//    load);
//  - t_fp32, t_sfu, t_lsu, t_issue: the busiest SM's instructions
//    (ceil(blocks / SMs) blocks) at the pipes' peak rates, counted from
//    the emitted loops: FP32 ops (FMAs, adds, compares, f16 conversions,
//    libdevice bodies), SFU ops, load/store-unit cycles (a warp-wide
//    access of up to 128 bytes, or a shuffle, is one cycle), issue (4 warp
//    instructions per clock);
//  - t_latency: one block's critical path (cycles) times the rounds of
//    resident blocks on the busiest SM, ceil(ceil(blocks / SMs) /
//    resident), resident = min over threads, registers, shared memory and
//    the block limit per SM. The path adds, phase by phase, the memory
//    round trips of tile copies (one load in flight per thread for a
//    synchronous copy, a whole stage for cp.async: Little's law, with the
//    latency of DRAM or L2 as the tile is streamed or re-read), the serial
//    chains of element loops (a thread's elements 4 at a time) and
//    reductions (results one after the other), and barriers. A
//    for-loop pipelined S stages deep takes max(C + B, (L + B) / (S - 1))
//    per iteration for compute C, barriers B and load latency L: the loads
//    of i + S - 1 are issued after i's barrier, S - 1 iterations ahead.
// Instruction counts per element-wise op are op_cost's; the latencies and
// peaks are the target table's (lib/target/target.c). Nothing here is
// calibrated on hardware; the assumptions are listed in docs/cost.md.
//
//===----------------------------------------------------------------------===//
#include "mirage/cost.h"
#include "mirage/lower.h"
#include "cost_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Sequential reductions read from global memory (predefined ops) are
// unrolled by LLVM, their loads issued a group at a time: 4 terms per
// group in the PTX of a predefined matmul and sum (docs/cost.md). So are
// synchronous tile copies (constant trip counts): 4 to 5 loads per wait in
// the SASS of the GQA and QKNorm tile copies.
#define GLOBAL_UNROLL 4

//===--- Instructions per element ----------------------------------------===//

// One element of an element-wise op as ops.c writes it and the NVPTX
// backend and libdevice expand it: FP32-pipe and SFU instructions, and the
// dependent FP32 and SFU steps on its critical path.
typedef struct OpCost {
  double fp32, sfu;
  double chain_fp, chain_sfu;
} OpCost;

static OpCost op_cost(MgOpKind kind) {
  OpCost c = {0, 0, 0, 0};
  switch (kind) {
  case MG_OP_ADD: case MG_OP_SUB: case MG_OP_MUL: case MG_OP_MAX:
  case MG_OP_SQUARE: case MG_OP_MUL_SCALAR: case MG_OP_MAX_SCALAR:
  case MG_OP_MIN_SCALAR: case MG_OP_ADD_SCALAR:
    c = (OpCost){1, 0, 1, 0};
    break;
  case MG_OP_RELU: // compare, select
    c = (OpCost){2, 0, 2, 0};
    break;
  case MG_OP_DIV: case MG_OP_DIV_SCALAR: // div.rn.f32: rcp, refinement
    c = (OpCost){5, 1, 4, 1};
    break;
  case MG_OP_EXP: // __nv_expf: 8 FP32 around ex2.approx.ftz (PTX)
    c = (OpCost){8, 1, 6, 1};
    break;
  case MG_OP_RSQRT: // rsqrt.approx.f32 (PTX)
    c = (OpCost){0, 1, 0, 1};
    break;
  case MG_OP_SQRT: // sqrt.rn.f32: rsqrt and a correction
    c = (OpCost){4, 1, 4, 1};
    break;
  case MG_OP_SILU: // neg, exp, add, div (ops.c)
    c = (OpCost){15, 2, 12, 2};
    break;
  case MG_OP_LOG: case MG_OP_TANH: // libdevice: lg2/ex2 and a polynomial
    c = (OpCost){10, 1, 6, 1};
    break;
  case MG_OP_ERF: // libdevice polynomial
    c = (OpCost){20, 1, 10, 1};
    break;
  case MG_OP_GELU: // mul, erf, add, mul, mul (ops.c)
    c = (OpCost){24, 1, 14, 1};
    break;
  default:
    break;
  }
  return c;
}

//===--- Per-block counts ---------------------------------------------------===//

// One block's work in one phase (for the loop: one iteration).
typedef struct Acc {
  double fp32, fma, sfu, lsu, instr; // thread-level; lsu in cycles
  double tensor;                     // tensor-core FLOPs
  double cycles;                     // critical path, SM cycles
  double mem_cycles;                 // of which memory round trips
  double inflight;                   // global bytes in flight at once
} Acc;

typedef struct Model {
  const MgGpu *gpu;
  const MgProgram *p;
  const MgGraph *b;
  const MgOp *kop;                   // the kernel op
  const MgLowerKernelPlan *plan;
  double threads, blocks;
  bool *reg;                         // per block tensor: kept in registers
  Acc ph[MG_LOWER_PHASE_COUNT];
  double regs;                       // registers per thread (ptxas's or
                                     // the target's guess)
  bool facts;                        // they are ptxas's
  double async_cycles;               // the loop's cp.async copies' latency
  double async_bytes;                // bytes one stage (iteration) brings
  double inv_async_cycles;           // loop-invariant cp.async copies: one
  double inv_async_bytes;            // batch before the body (schedule.c)
  double extra_l2, extra_dram;       // sectors copies waste (whole kernel)
} Model;

static bool is16(MgDType d) { return d != MG_DTYPE_F32; }

static double numel(const MgTensor *t) { return (double)mg_tensor_numel(t); }

// The type a block-graph tensor is kept in (lib/lower: accumulators f32).
static MgDType kept(const MgGraph *b, MgTensorId t) {
  return b->ops[b->tensors[t].producer].kind == MG_OP_ACCUM
             ? MG_DTYPE_F32 : (MgDType)b->tensors[t].dtype;
}

// Load/store-unit cycles of `n` thread-level accesses of `bytes` each: a
// warp-wide access of up to 128 bytes takes one cycle, a wider one a cycle
// per 128 bytes (bank conflicts ignored).
static double lsu(double n, double bytes) {
  return n * fmax(1.0 / 32, bytes / 128);
}

// Shared-memory accesses per element (per term for a reduction's loads):
// 16-bit ones convert to or from f32.
typedef struct Accesses {
  int ld16, ld32, st16, st32;
} Accesses;

// An element loop of `elems` elements over the block's threads: per
// element the accesses `x` and the work `c`. The loop strides by the
// block's threads with a constant trip count, unrolled: a thread's
// elements overlap GLOBAL_UNROLL at a time (an assumption; the SASS of
// GQA's exp chains overlaps 2.7 per wait on sm_90, 8 on sm_80:
// docs/cost.md).
static void elem_loop(Model *m, Acc *a, double elems, Accesses x, OpCost c) {
  const MgGpu *g = m->gpu;
  int ld16 = x.ld16, ld32 = x.ld32, st16 = x.st16, st32 = x.st32;
  double fp = c.fp32 + ld16 + st16;
  int acc = ld16 + ld32 + st16 + st32;
  a->fp32 += elems * fp;
  a->sfu += elems * c.sfu;
  a->lsu += lsu(elems * acc, 4);
  a->instr += elems * (fp + c.sfu + acc);
  double per = (ld16 + ld32 ? g->lat_smem : 0) + (ld16 ? g->lat_fp : 0) +
               c.chain_fp * g->lat_fp + c.chain_sfu * g->lat_sfu +
               (st16 ? g->lat_fp : 0);
  a->cycles += ceil(ceil(elems / m->threads) / GLOBAL_UNROLL) * per;
}

// Shared loads of op's operands per element (per term for a reduction):
// tiles, not values in registers.
static Accesses operand_loads(const Model *m, const MgOp *op) {
  Accesses x = {0, 0, 0, 0};
  for (uint32_t k = 0; k < op->num_inputs; k++) {
    MgTensorId t = op->inputs[k];
    if (m->reg[t])
      continue;
    if (is16(kept(m->b, t)))
      ++x.ld16;
    else
      ++x.ld32;
  }
  return x;
}

// What a reduction does with each result.
typedef enum Finish {
  FINISH_NONE,  // feeds an element-wise chain in registers
  FINISH_STORE, // stored into its tile
  FINISH_ACCUM, // added into an f32 accumulator: load, add, store
} Finish;

// `elems` results of `n` terms each, per term `x`'s shared loads and one
// combining FP32 op (`fma`: a multiply-add), then `fin` (`x.st16`: the
// stored result is 16-bit), in the step's phase. Sequential per thread
// (warps 0): the loop has a constant trip count and is unrolled, so a
// result costs one load latency and n dependent combines. Cooperative (w
// warps per result): each lane reduces ceil(n / 32w) terms in a loop of
// run-time trip count (a load latency each), the warp's butterfly of 5
// shuffles and adds follows, w > 1 meets in the scratch (its barrier is in
// the plan's count), and one lane finishes; a group of w warps takes its
// results in turn.
// A block matmul on tensor cores (lib/lower/write/mma.c): m16n8k16 mma.sync in
// warp tiles of up to 2 x 4 mma tiles dealt to the warps in turn. Per
// 16-deep k-step a warp tile loads its fragments with 4 ldmatrix.x4 (A: 2,
// B: 2 covering 4 n-blocks; 512 bytes each, 4 LSU cycles) and issues its 8
// independent mma.sync, whose accumulators chain into the next k-step's:
// a step costs one shared-memory load and one mma latency on the path (the
// loop is not software-pipelined). The results then take the FMA path's
// per-element finish. Warp tiles smaller than 2 x 4 are counted as if full
// (optimistic for small tiles).
#define MMA_LATENCY 32 // cycles, m16n8k16 f16 (assumed; docs/cost.md)

// A reduction's finish per result: FP32 ops, shared accesses, latency.
typedef struct FinishCost {
  double fp, acc, lat;
} FinishCost;

static void mma(Model *m, Acc *a, double elems, double n, FinishCost fin) {
  const MgGpu *g = m->gpu;
  double mmas = elems * n / (16.0 * 8 * 16);
  double steps = mmas / 8; // warp-tile k-steps in the block
  double warps = fmax(1, floor(m->threads / 32));
  a->tensor += 2 * elems * n;
  a->fp32 += elems * fin.fp;
  a->lsu += steps * 4 * 4 + lsu(elems * fin.acc, 4);
  a->instr += 32 * (mmas + steps * 4) + elems * (fin.fp + fin.acc);
  a->cycles += ceil(steps / warps) * (g->lat_smem + MMA_LATENCY) +
               ceil(elems / m->threads) * fin.lat;
}

static void reduction(Model *m, const MgLowerStep *s, double elems, Accesses x,
                      bool fma, Finish fin) {
  const MgGpu *g = m->gpu;
  Acc *a = &m->ph[s->phase];
  int ld16 = x.ld16, ld32 = x.ld32;
  bool st16 = x.st16;
  double n = (double)s->terms;
  int loads = ld16 + ld32;
  double fin_fp = fin == FINISH_ACCUM ? 1 : fin == FINISH_STORE && st16;
  double fin_acc = fin == FINISH_ACCUM ? 2 : fin == FINISH_STORE;
  double fin_lat = fin == FINISH_ACCUM ? g->lat_smem + g->lat_fp
                   : fin == FINISH_STORE && st16 ? g->lat_fp : 0;
  double term_fp = 1 + ld16;
  if (s->mma) {
    mma(m, a, elems, n, (FinishCost){fin_fp, fin_acc, fin_lat});
    return;
  }
  if (fma)
    a->fma += elems * n;
  if (s->warps == 0) {
    // Staggered rows (ops.c reduce) add index ops per term, off the chain.
    a->fp32 += elems * (n * term_fp + fin_fp);
    a->lsu += lsu(elems * (n * loads + fin_acc), 4);
    a->instr += elems * (n * (term_fp + loads + s->stagger_ops) + fin_fp +
                         fin_acc);
    double per = (loads ? g->lat_smem : 0) + (ld16 ? g->lat_fp : 0) +
                 n * g->lat_fp + fin_lat;
    a->cycles += ceil(elems / m->threads) * per;
    return;
  }
  double w = (double)s->warps, lanes = 32 * w;
  double t = ceil(n / lanes);
  double groups = floor(m->threads / 32 / w);
  if (groups < 1)
    groups = 1;
  double lane_terms = lanes * t;
  // Per result: the lanes' terms, 5 shuffles and adds per warp, w > 1: a
  // store per warp and w loads and adds by the first thread, the finish by
  // one lane (each of its accesses a warp instruction: one LSU cycle).
  a->fp32 += elems * (lane_terms * term_fp + 5 * lanes + (w > 1 ? w : 0) +
                      fin_fp);
  a->lsu += elems * (lsu(lane_terms * loads, 4) + 5 * w +
                     (w > 1 ? 2 * w : 0) + fin_acc);
  a->instr += elems * (lane_terms * (term_fp + loads) + 10 * lanes +
                       (w > 1 ? 3 * w : 0) + fin_fp + fin_acc);
  double per = t * ((loads ? g->lat_smem : 0) + (ld16 ? g->lat_fp : 0)) +
               g->lat_fp + 5 * (g->lat_shfl + g->lat_fp) +
               (w > 1 ? 2 * g->lat_smem + w * g->lat_fp : 0) + fin_lat;
  a->cycles += ceil(elems / groups) * per;
}

// L2 bytes per byte a tile copy moves: its runs of contiguous elements
// (the tile's innermost extent once the trailing unit dims both share are
// dropped, as lib/lower copies) cost whole 32-byte sectors. A run spanning
// the kernel tensor's whole dim continues into the next row: no waste.
// Copies in stored order (inputs with a layout) walk memory contiguously.
#define IM2COL_GATHER_INSTR 30

static double sector_factor(const MgGraph *b, MgTensorId tile,
                            MgTensorId dram, bool stored_order) {
  const MgTensor *x = &b->tensors[tile], *y = &b->tensors[dram];
  if (stored_order || x->rank != y->rank)
    return 1;
  uint32_t r = x->rank;
  while (r > 1 && x->dims[r - 1] == 1 && y->dims[r - 1] == 1)
    r--;
  if (x->dims[r - 1] == y->dims[r - 1])
    return 1;
  double run = (double)x->dims[r - 1] * (double)mg_dtype_bytes(x->dtype);
  return ceil(run / 32) * 32 / run;
}

// An iterator's copy from its kernel tensor into the tile: per access a
// global load of `vector` elements and its shared store; a copy in stored
// order that scatters stores each element on its own.
static void copy_in(Model *m, const MgLowerStep *s, const MgOp *op, Acc *a) {
  const MgGpu *g = m->gpu;
  const MgTensor *tile = &m->b->tensors[op->outputs[0]];
  double es = (double)mg_dtype_bytes((MgDType)tile->dtype);
  double v = (double)s->vector;
  double accesses = ceil(numel(tile) / v);
  // Shared stores per access and their width in elements.
  double stores = s->scattered ? v : 1, sv = s->scattered ? 1 : v;
  double dram;
  double reads = mg_cost_iterator_traffic(m->b, op, m->blocks, g, &dram);
  double waste = sector_factor(m->b, op->outputs[0], op->inputs[0],
                               s->stored_order) - 1;
  m->extra_l2 += reads * waste;
  if (dram == reads) // streamed: DRAM moves the sectors too
    m->extra_dram += reads * waste;
  double f = reads > 0 ? dram / reads : 1;
  double lat = f * g->lat_dram + (1 - f) * g->lat_l2;
  if (s->async) { // cp.async: one instruction, global to shared
    a->lsu += lsu(accesses, v * es);
    a->instr += accesses;
  } else {
    a->lsu += lsu(accesses, v * es) + lsu(accesses * stores, sv * es);
    a->instr += accesses * (1 + stores);
  }
  // Gathered patches (implicit GEMM, write/ops.c): per element the index
  // map's integer work, about 30 SASS instructions on sm_90 (row and
  // column split by constants, the window position, two clamps, the
  // select: counted in a conv's gather kernel with the SASS reader).
  uint8_t folded = m->b->ops[m->b->tensors[op->inputs[0]].producer].folded;
  if (folded == MG_FOLDED_IM2COL || folded == MG_FOLDED_IM2COL_VEC)
    a->instr += accesses * IM2COL_GATHER_INSTR;
  if (s->async && s->phase == MG_LOWER_PHASE_BEFORE) { // one batch
    m->inv_async_cycles = fmax(m->inv_async_cycles, lat);
    m->inv_async_bytes += accesses * v * es;
    return;
  }
  if (s->async) { // every copy of the stage (batch) in flight at once
    m->async_cycles = fmax(m->async_cycles, lat);
    m->async_bytes += accesses * v * es;
    return;
  }
  // A synchronous copy: each thread's loads, then their shared stores,
  // which wait for them. The copy loop's trip count is constant (ops.c),
  // so it is unrolled and a thread's loads issue GLOBAL_UNROLL at a time:
  // one round trip per group of trips. With ptxas's count, no more loads
  // in flight than a thread's registers hold (4 bytes each).
  double unroll = GLOBAL_UNROLL;
  if (m->facts)
    unroll = fmax(1, fmin(unroll, floor(m->regs * 4 / (v * es))));
  double trips = ceil(accesses / m->threads);
  double groups = ceil(trips / unroll);
  a->cycles += groups * lat;
  a->mem_cycles += groups * lat;
  a->inflight = fmax(a->inflight,
                     fmin(accesses, m->threads * unroll) * v * es);
}

// A saver's copy from the tile into its kernel tensor: a shared load (and
// a conversion when the tensor is stored narrower) per access; the global
// store does not wait.
static void copy_out(Model *m, const MgLowerStep *s, const MgOp *op, Acc *a) {
  const MgGpu *g = m->gpu;
  const MgTensor *tile = &m->b->tensors[op->inputs[0]];
  MgDType from = kept(m->b, op->inputs[0]);
  MgDType to = (MgDType)m->b->tensors[op->outputs[0]].dtype;
  for (uint32_t k = 0; k < m->b->num_outputs; k++)
    if (m->b->outputs[k] == op->outputs[0])
      to = (MgDType)m->p->graphs[0].tensors[m->kop->outputs[k]].dtype;
  double v = (double)s->vector, e = numel(tile);
  double accesses = ceil(e / v);
  bool conv = from != to;
  double waste = sector_factor(m->b, op->inputs[0], op->outputs[0], false) - 1;
  double bytes = e * (double)mg_dtype_bytes(to) * m->blocks;
  m->extra_l2 += bytes * waste; // partial sectors written
  m->extra_dram += bytes * waste;
  a->lsu += lsu(accesses, v * (double)mg_dtype_bytes(from)) +
            lsu(accesses, v * (double)mg_dtype_bytes(to));
  a->fp32 += conv ? e : 0;
  a->instr += 2 * accesses + (conv ? e : 0);
  a->cycles += ceil(accesses / m->threads) *
               (g->lat_smem + (conv ? g->lat_fp : 0));
}

// The online accumulator (x, m) per iteration, averaged over the F
// iterations: the first copies x and m, each later one rescales
// (online.c): per element of m the new max, two differences and two exps;
// per element of x acc·a + x·b; one loop when x has m's shape, else two
// with the factors through the state buffer.
static void online(Model *m, const MgOp *op, Acc *a) {
  const MgTensor *x = &m->b->tensors[op->inputs[0]];
  const MgTensor *mx = &m->b->tensors[op->inputs[1]];
  double nx = numel(x), nm = numel(mx), F = (double)m->b->forloop;
  int xs = is16(kept(m->b, op->inputs[0])), ms = is16(kept(m->b, op->inputs[1]));
  OpCost exp = op_cost(MG_OP_EXP), none = {0, 0, 0, 0};
  Acc copy = {0}, step = {0};
  elem_loop(m, &copy, nx, (Accesses){xs, !xs, 0, 1}, none);
  elem_loop(m, &copy, nm, (Accesses){ms, !ms, 0, 1}, none);
  if (nx == nm) { // max, 2 sub, 2 exp, mul, fma: one loop
    OpCost c = {5 + 2 * exp.fp32, 2, 4 + exp.chain_fp, exp.chain_sfu};
    elem_loop(m, &step, nx, (Accesses){xs + ms, 2 + !xs + !ms, 0, 2}, c);
    step.fma += nx;
  } else {
    OpCost c = {3 + 2 * exp.fp32, 2, 2 + exp.chain_fp, exp.chain_sfu};
    elem_loop(m, &step, nm, (Accesses){ms, 1 + !ms, 0, 3}, c);
    OpCost d = {2, 0, 2, 0};
    elem_loop(m, &step, nx, (Accesses){xs, 3 + !xs, 0, 1}, d);
    step.fma += nx;
  }
  double w1 = 1 / F, wn = (F - 1) / F;
  a->fp32 += w1 * copy.fp32 + wn * step.fp32;
  a->fma += wn * step.fma;
  a->sfu += wn * step.sfu;
  a->lsu += w1 * copy.lsu + wn * step.lsu;
  a->instr += w1 * copy.instr + wn * step.instr;
  a->cycles += w1 * copy.cycles + wn * step.cycles;
}

// The work of one block-graph op in its phase.
// Whether an accumulator reads `t` (kept in registers, it is a value the
// lowering adds into that accumulator where it is made).
static bool feeds_accum(const MgGraph *b, MgTensorId t) {
  for (uint32_t i = 0; i < b->num_ops; i++)
    if (b->ops[i].kind == MG_OP_ACCUM && b->ops[i].inputs[0] == t)
      return true;
  return false;
}

static void block_op(Model *m, const MgLowerStep *s) {
  const MgGraph *b = m->b;
  const MgOp *op = &b->ops[s->op];
  Acc *a = &m->ph[s->phase];
  MgTensorId out = op->num_outputs ? op->outputs[0] : MG_NO_ID;
  double elems = out != MG_NO_ID ? numel(&b->tensors[out]) : 0;
  bool st16 = out != MG_NO_ID && is16(kept(b, out));
  int st = s->registers ? 0 : 1;
  // The result's stores, 16-bit or f32.
  int res16 = st16 ? st : 0, res32 = st16 ? 0 : st;
  Accesses x;
  OpCost none = {0, 0, 0, 0};
  switch ((MgOpKind)op->kind) {
  case MG_OP_ITERATOR:
    copy_in(m, s, op, a);
    return;
  case MG_OP_SAVER:
    copy_out(m, s, op, a);
    return;
  case MG_OP_ACCUM:
    if (op->acc != MG_ACCUM_ONLINE) // the fill, before the loop
      elem_loop(m, &m->ph[MG_LOWER_PHASE_BEFORE], elems,
                (Accesses){0, 0, 0, 1}, none);
    if (op->acc == MG_ACCUM_ONLINE && op->num_inputs == 2) {
      online(m, op, a);
    } else if (op->acc == MG_ACCUM_SUM_LAST ||
               op->acc == MG_ACCUM_SUM_SQ_LAST) {
      x = operand_loads(m, op);
      reduction(m, s, elems, x, op->acc == MG_ACCUM_SUM_SQ_LAST,
                FINISH_ACCUM);
    } else if (!m->reg[op->inputs[0]]) { // a fused matmul adds itself
      x = operand_loads(m, op);
      elem_loop(m, a, elems, (Accesses){x.ld16, x.ld32 + 1, 0, 1},
                op_cost(MG_OP_ADD));
    }
    return;
  case MG_OP_MATMUL: {
    x = operand_loads(m, op);
    x.st16 = st16;
    Finish fin = FINISH_STORE;
    if (s->registers) // into its sum accumulator, or heading a chain
      fin = feeds_accum(b, out) ? FINISH_ACCUM : FINISH_NONE;
    reduction(m, s, elems, x, true, fin);
    return;
  }
  case MG_OP_SUM: case MG_OP_REDUCE_MAX:
    x = operand_loads(m, op);
    x.st16 = st16;
    reduction(m, s, elems, x, false,
              !s->registers ? FINISH_STORE
              : feeds_accum(b, out) ? FINISH_ACCUM : FINISH_NONE);
    return;
  case MG_OP_THREAD: {
    OpCost c = none;
    if (op->attr >= 0 && (uint32_t)op->attr < m->p->num_graphs) {
      const MgGraph *t = &m->p->graphs[op->attr];
      for (uint32_t i = 0; i < t->num_ops; i++) {
        OpCost k = op_cost((MgOpKind)t->ops[i].kind);
        c.fp32 += k.fp32;
        c.sfu += k.sfu;
        c.chain_fp += k.chain_fp;
        c.chain_sfu += k.chain_sfu;
      }
    }
    x = operand_loads(m, op);
    elem_loop(m, a, elems, (Accesses){x.ld16, x.ld32, res16, res32}, c);
    return;
  }
  case MG_OP_CONCAT: // one operand element per result element
    elem_loop(m, a, elems, (Accesses){st16, !st16, res16, res32}, none);
    return;
  default: { // element-wise
    x = operand_loads(m, op);
    OpCost c = op_cost((MgOpKind)op->kind);
    if (s->registers && feeds_accum(b, out)) {
      // Added into its sum accumulator in the same loop (schedule.c):
      // the accumulator's f32 load, add and store.
      OpCost add = op_cost(MG_OP_ADD);
      c.fp32 += add.fp32;
      c.chain_fp += add.chain_fp;
      elem_loop(m, a, elems, (Accesses){x.ld16, x.ld32 + 1, 0, 1}, c);
      return;
    }
    elem_loop(m, a, elems, (Accesses){x.ld16, x.ld32, res16, res32}, c);
    return;
  }
  }
}

//===--- Kernels -----------------------------------------------------------===//

// A graph-defined kernel: per-block counts and its critical path.
// One block of a kernel: its counts, its critical path in cycles and the
// path's memory, chain and barrier parts, its global bytes in flight.
typedef struct PerBlock {
  Acc total;
  double path, parts[3], inflight;
} PerBlock;

static void blocks_form(Model *m, PerBlock *pb) {
  const MgGpu *g = m->gpu;
  const MgLowerKernelPlan *pl = m->plan;
  for (uint32_t i = 0; i < pl->num_steps; i++)
    block_op(m, &pl->steps[i]);
  double F = (double)pl->forloop;
  const Acc *be = &m->ph[MG_LOWER_PHASE_BEFORE];
  const Acc *lo = &m->ph[MG_LOWER_PHASE_LOOP];
  const Acc *af = &m->ph[MG_LOWER_PHASE_AFTER];
  Acc *total = &pb->total;
  double *parts = pb->parts;
  total->fp32 = be->fp32 + F * lo->fp32 + af->fp32;
  total->fma = be->fma + F * lo->fma + af->fma;
  total->sfu = be->sfu + F * lo->sfu + af->sfu;
  total->lsu = be->lsu + F * lo->lsu + af->lsu;
  total->instr = be->instr + F * lo->instr + af->instr;
  total->tensor = be->tensor + F * lo->tensor + af->tensor;
  double bars = pl->barriers_per_iteration * g->lat_bar;
  double L = m->async_cycles, C = lo->cycles, iter, iter_mem;
  // S stages: iteration i waits for its group, passes the barrier, then
  // issues group i + S - 1, which iteration i + S - 1 waits for: in the
  // steady state S - 1 iterations span one barrier and one latency.
  double S = (double)pl->stages;
  if (pl->pipelined) {
    iter = fmax(C + bars, (L + bars) / (S - 1));
    iter_mem = lo->mem_cycles + (iter - C - bars);
  } else { // each batch of cp.async copies one round trip
    double batches = pl->async_batches;
    iter = C + bars + L * batches;
    iter_mem = lo->mem_cycles + L * batches;
  }
  double Li = m->inv_async_cycles;
  double before = be->cycles + pl->barriers_before * g->lat_bar +
                  (pl->pipelined ? L : 0) + Li;
  double after = af->cycles + pl->barriers_after * g->lat_bar;
  pb->path = before + F * iter + after;
  parts[0] = be->mem_cycles + (pl->pipelined ? L : 0) + Li + F * iter_mem +
             af->mem_cycles;
  parts[2] = (pl->barriers_before + F * pl->barriers_per_iteration +
              pl->barriers_after) * g->lat_bar;
  parts[1] = pb->path - parts[0] - parts[2];
  // In flight: S - 1 stages, or one batch of a loop that is not pipelined
  // (the batches' mean: each is waited for before the next is issued).
  double ahead = pl->pipelined ? S - 1
                 : pl->async_batches > 1 ? 1.0 / pl->async_batches
                                         : 1;
  double loop_bytes = ahead * m->async_bytes + lo->inflight;
  pb->inflight = loop_bytes > 0
                     ? loop_bytes
                     : fmax(fmax(be->inflight, af->inflight), m->inv_async_bytes);
}

// One form's whole-kernel counts (`a`) and a thread's critical path:
// `per_thread` work items of `per` cycles each, of which `mem` cycles in
// all are memory round trips; bytes one block has in flight.
typedef struct Form {
  Acc a;
  double per_thread, per, mem, inflight;
} Form;

// A view op's copy: one vector (or element) per thread and step, loaded
// and stored, one round trip of latency `lat` each.
static void copy_form(const Model *m, const MgTensor *out, double lat,
                      Form *f) {
  double es = (double)mg_dtype_bytes((MgDType)out->dtype);
  double v = (double)m->plan->vector, items = ceil(numel(out) / v);
  f->a.lsu = 2 * lsu(items, v * es);
  f->a.instr = 2 * items;
  f->per_thread = ceil(items / (m->blocks * m->threads));
  f->per = lat;
  f->mem = f->per_thread * lat;
  f->inflight = m->threads * v * es;
}

// The shuffle stages of gemv.c's warp meet at offsets 16 .. `last`, a
// lane starting with `held` values: halving while the count is even (two
// selects per value sent), then butterflies. Per lane: shuffles,
// selects, adds; and the number of stages.
typedef struct Stages {
  double shfl, sel, adds, count;
} Stages;

static Stages shuffle_stages(double held, double last) {
  Stages st = {0, 0, 0, 0};
  for (double off = 16; off >= last; off /= 2, st.count++) {
    bool halve = fmod(held, 2) == 0;
    double sends = halve ? held / 2 : held;
    st.shfl += sends;
    st.sel += halve ? 2 * sends : 0;
    st.adds += sends;
    held = sends;
  }
  return st;
}

// The fused form's epilogue per output (lib/lower/decide/fused_plan.c): each
// statistic's 32 slice sums loaded (one shared round trip) and added in
// order, then the element-wise ops: FP32, SFU ops and the dependent path.
static void epilogue_cost(const MgGpu *g, const MgLowerKernelPlan *pl,
                          double *fp32, double *sfu, double *loads,
                          double *path) {
  double st = (double)pl->stats;
  *fp32 = st * 31;
  *sfu = 0;
  *loads = st * 32;
  *path = st > 0 ? g->lat_smem + 31 * g->lat_fp : 0;
  for (uint32_t i = 0; i < pl->num_epilogue; i++) {
    OpCost c = op_cost((MgOpKind)pl->epilogue[i]);
    *fp32 += c.fp32;
    *sfu += c.sfu;
    *path += c.chain_fp * g->lat_fp + c.chain_sfu * g->lat_sfu;
  }
}

// The split-K GEMV (lib/lower/write/gemv.c), B through its cp.async ring; the
// counts are one row group's. A fused block graph (lib/lower/decide/fused_plan.c)
// adds its row statistics (an FP32 op per row and k beside the FMAs) and
// the epilogue per output; the lanes of column groups beyond its tile
// (col_groups of threads / 32) idle through the k loop. With several B
// streams (matmuls sharing A) each column group streams one of them, so
// the k loop's counts are those of col_groups groups whatever the stream.
static void gemv_form(Model *m, const MgOp *o, Form *f) {
  const MgGpu *g = m->gpu;
  const MgLowerKernelPlan *pl = m->plan;
  const MgTensor *ta = &m->p->graphs[0].tensors[pl->gemv_a];
  double T = m->threads, B = m->blocks;
  double rows = (double)pl->rows; // a block's row group
  // Each row group's blocks read all of B: re-reads hit L2 only when B
  // fits in half of it (the rule for iterators' re-reads, kernel.c).
  const MgTensor *tb = &m->p->graphs[0].tensors[pl->gemv_b];
  double b_bytes = numel(tb) * (double)mg_dtype_bytes((MgDType)tb->dtype);
  double rereads = (double)ta->dims[ta->rank - 2] / rows - 1;
  if (o->kind == MG_OP_CUSTOM) // a block graph's: its roofline has them
    rereads = 0;
  m->extra_l2 += rereads * b_bytes;
  if (b_bytes > g->l2_bytes / 2)
    m->extra_dram += rereads * b_bytes;
  double k = (double)ta->dims[ta->rank - 1];
  double es = (double)mg_dtype_bytes((MgDType)ta->dtype);
  double v = (double)pl->vector, conv = is16((MgDType)ta->dtype);
  double u = (double)(pl->unroll > 0 ? pl->unroll : 1);
  double S = (double)pl->stages; // the ring's, 0: no ring
  double steps = ceil(k / 32); // rows of B per thread
  // The groups of u rows (through the ring, or loaded together), then the
  // rest one at a time; each group's FMAs chain u deep per accumulator.
  double groups = floor(k / (32 * u)), singles = steps - groups * u;
  double ring_rows = S > 0 ? groups * u : 0; // B by cp.async, read back
  // Per thread and row: a 16-byte vector of B (DRAM) and A's row
  // scalars, rows x v FMAs and the conversions. Then the warp's slices
  // meet by shuffles (gemv.c: halving while a lane's count is even, two
  // selects per value sent, then a butterfly), the CG warps' partials go
  // through shared memory, and each output adds CG of them in order.
  double cg = T / 32;
  double cgv = pl->col_groups > 0 ? (double)pl->col_groups : cg;
  // Several B streams (fused.c: matmuls sharing A) are column groups side
  // by side: the warps' sums cover all of them (outs_v), each output adds
  // one per stream and warp.
  double nb = pl->streams > 0 ? (double)pl->streams : 1;
  double Ta = 32 * cgv, outs_v = rows * cgv * v; // threads that load B
  double outs = outs_v / nb;
  Stages sh = shuffle_stages(rows * v, cg);
  double shfl = sh.shfl, sel = sh.sel, adds = sh.adds, stages = sh.count;
  double e_fp, e_sfu, e_loads, e_path;
  epilogue_cost(g, pl, &e_fp, &e_sfu, &e_loads, &e_path);
  double st = (double)pl->stats;
  Acc *a = &f->a;
  a->fma = Ta * steps * rows * v;
  a->fp32 = a->fma + Ta * steps * (conv * (v + rows) + st * rows) +
            T * (sel + adds) + outs * (nb * cg + conv + e_fp);
  a->sfu = outs * e_sfu;
  // A ring row costs its cp.async and its 16-byte shared read back; an
  // iteration of the ring loop a commit and a wait. The statistics: 32
  // slices' stores, 32 loads per output.
  a->lsu = lsu(Ta * (steps + ring_rows), 16) + lsu(Ta * steps * rows, es) +
           T * shfl / 32 + lsu(outs_v * cg, 4) +
           lsu(outs * (nb * cg + 1), 4) +
           lsu(32 * st * rows, 4) + lsu(outs * e_loads, 4);
  a->instr = a->fp32 + a->sfu + Ta * (steps + ring_rows) +
             Ta * steps * rows + (S > 0 ? 2 * Ta * groups : 0) + T * shfl +
             outs_v * cg + outs * (nb * cg + 1) + 32 * st * rows +
             outs * e_loads;
  f->per_thread = 1;
  double cvt = conv ? g->lat_fp : 0, trip = g->lat_dram + cvt;
  double grouped, grouped_mem; // the whole groups' path, memory part
  if (S > 0) {
    // Iteration j waits for group j, issued S - 1 iterations earlier (the
    // first: the prologue, one DRAM latency L before), then reads it back
    // with A's scalars (one cache round trip, L2: A is re-read by every
    // block) and chains: max(C, L / (S - 1)) per iteration.
    double chain = cvt + u * g->lat_fp, c = g->lat_l2 + chain;
    double iter = fmax(c, g->lat_dram / (S - 1));
    grouped = g->lat_dram + groups * iter;
    grouped_mem = g->lat_dram + groups * (iter - chain);
  } else {
    grouped = groups * (trip + u * g->lat_fp);
    grouped_mem = groups * g->lat_dram;
  }
  f->per = grouped + singles * (trip + g->lat_fp) +
           stages * (g->lat_shfl + g->lat_fp) + g->lat_smem +
           pl->barriers_after * g->lat_bar +
           ceil(outs / T) * (g->lat_smem + cg * g->lat_fp + e_path);
  // In flight at a wait: S stages of u vectors per thread (else u loads).
  f->inflight = Ta * 16 * (groups > 0 ? (S > 0 ? S : 1) * u : 1);
  f->mem = grouped_mem + singles * g->lat_dram;
  a->fma *= B; // the counts above are one block's
  a->fp32 *= B;
  a->sfu *= B;
  a->lsu *= B;
  a->instr *= B;
}

// The GEMV whose B is stored transposed (gemv.c, dot form): per block of
// T threads (8 warps of C columns each) and per chunk of K (32 vectors of
// V): the threads copy A's M x chunk into shared memory (16-byte loads
// from L2: A is small; 16-byte shared stores), a barrier, each lane loads
// C vectors of W (DRAM) and M of A (shared), converts them, V FMAs per
// row and column into partial sums `acc_lanes` wide, a barrier. After the last chunk each partial sum is
// reduced (3 adds), then the warp's shuffle stages (halving, then a
// butterfly) and the stores. Every block reads all of A from L2 once.
static void gemv_dot_form(Model *m, const MgOp *o, Form *f) {
  const MgGpu *g = m->gpu;
  const MgLowerKernelPlan *pl = m->plan;
  (void)o;
  const MgTensor *ta = &m->p->graphs[0].tensors[pl->gemv_a];
  double rows = (double)ta->dims[ta->rank - 2];
  double es = (double)mg_dtype_bytes((MgDType)ta->dtype);
  double v = (double)pl->vector, conv = is16((MgDType)ta->dtype);
  double c = (double)pl->cols, T = m->threads, B = m->blocks;
  double chunks = (double)pl->forloop;
  double copies = ceil(rows * 32 / T); // A's vectors per thread and chunk
  double a_bytes = numel(ta) * es;
  m->extra_l2 += (B - 1) * a_bytes;
  if (a_bytes > g->l2_bytes / 2)
    m->extra_dram += (B - 1) * a_bytes;
  Stages sh = shuffle_stages(rows * c, 1);
  double shfl = sh.shfl, sel = sh.sel, adds = sh.adds, stages = sh.count;
  Acc *a = &f->a;
  double lanes = (double)(pl->acc_lanes > 0 ? pl->acc_lanes : 1);
  double fmas = rows * c * v; // per thread and chunk
  double per_chunk_fp = conv * (c + rows) * v + fmas;
  a->fma = T * chunks * fmas;
  a->fp32 = T * (chunks * per_chunk_fp + rows * c * (lanes - 1) + sel +
                 adds) +
            rows * c * (T / 32) * conv;
  a->lsu = lsu(T * chunks * copies * 2, 16) + lsu(T * chunks * (c + rows), 16) +
           T * shfl / 32 + lsu(rows * c * T / 32, es);
  a->instr = a->fp32 + T * chunks * (2 * copies + c + rows) + T * shfl;
  // One chunk's path: A's copy (an L2 round trip, then the store), a
  // barrier, W's load from DRAM, A's loads, the conversion, V / lanes
  // dependent FMAs per partial sum (M·C independent chains), a barrier.
  // Then the partial sums' reduction and the shuffle stages.
  double chain = (conv ? g->lat_fp : 0) + v / lanes * g->lat_fp;
  double chunk_path = g->lat_l2 + g->lat_smem + g->lat_dram + g->lat_smem +
                      chain + 2 * g->lat_bar;
  f->per_thread = 1;
  f->per = chunks * chunk_path + log2(lanes) * g->lat_fp +
           stages * (g->lat_shfl + g->lat_fp) + g->lat_smem;
  f->mem = chunks * (g->lat_l2 + g->lat_dram);
  f->inflight = T * c * 16;
  a->fma *= B; // the counts above are one block's
  a->fp32 *= B;
  a->lsu *= B;
  a->instr *= B;
}

// A predefined matmul, sum or reduce_max: one result per thread and step,
// its terms read from global memory a group of GLOBAL_UNROLL at a time.
// A matmul's L2 traffic is its own (`*l2_bytes`).
static void reduction_form(const Model *m, const MgOp *o,
                           const MgKernelCost *roof, double lat,
                           double *l2_bytes, Form *f) {
  const MgGpu *g = m->gpu;
  const MgGraph *r = &m->p->graphs[0];
  const MgTensor *in = &r->tensors[o->inputs[0]];
  const MgTensor *out = &r->tensors[o->outputs[0]];
  bool mm = o->kind == MG_OP_MATMUL;
  double n = (double)(mm ? in->dims[in->rank - 1] : in->dims[o->attr]);
  double es = (double)mg_dtype_bytes((MgDType)in->dtype);
  double conv = is16((MgDType)in->dtype), loads = mm ? 2 : 1;
  double results = numel(out);
  Acc *a = &f->a;
  a->fma = mm ? results * n : 0;
  a->fp32 = results * (n * (1 + loads * conv) + is16((MgDType)out->dtype));
  a->lsu = lsu(results * n * loads, es) + lsu(results, es);
  a->instr = a->fp32 + results * (n * loads + 1);
  if (mm) { // per warp and term: A's sector (a broadcast), B's row piece
    *l2_bytes = results / 32 * n * (32 + fmax(32, 32 * es));
    double hit = *l2_bytes > 0 ? fmin(roof->dram_bytes / *l2_bytes, 1) : 1;
    lat = hit * g->lat_dram + (1 - hit) * g->lat_l2;
  }
  if (!mm && o->attr == (int32_t)in->rank - 1) {
    // A thread's terms are contiguous: a group misses once per 128-byte
    // L1 line, the others hit L1 (the shared-memory SRAM: its latency).
    double per_line = fmax(1, 128 / (GLOBAL_UNROLL * es));
    lat = (lat + (per_line - 1) * g->lat_smem) / per_line;
  }
  f->per_thread = ceil(results / (m->blocks * m->threads));
  f->per = ceil(n / GLOBAL_UNROLL) * (lat + GLOBAL_UNROLL * g->lat_fp) +
           (conv ? g->lat_fp : 0);
  f->mem = f->per_thread * ceil(n / GLOBAL_UNROLL) * lat;
  f->inflight = m->threads * GLOBAL_UNROLL * loads * es;
}

// A predefined element-wise op: its operands loaded together, one round
// trip per element.
static void elementwise_form(const Model *m, const MgOp *o, double lat,
                             Form *f) {
  const MgGpu *g = m->gpu;
  const MgTensor *out = &m->p->graphs[0].tensors[o->outputs[0]];
  OpCost c = op_cost((MgOpKind)o->kind);
  double es = (double)mg_dtype_bytes((MgDType)out->dtype);
  double conv = is16((MgDType)out->dtype), n = numel(out);
  double k = o->num_inputs;
  Acc *a = &f->a;
  a->fp32 = n * (c.fp32 + conv * (k + 1));
  a->sfu = n * c.sfu;
  a->lsu = lsu(n * (k + 1), es);
  a->instr = a->fp32 + a->sfu + n * (k + 1);
  f->per_thread = ceil(n / (m->blocks * m->threads));
  f->per = lat + c.chain_fp * g->lat_fp + c.chain_sfu * g->lat_sfu +
           (conv ? 2 * g->lat_fp : 0);
  f->mem = f->per_thread * lat;
  f->inflight = m->threads * k * es;
}

// A predefined op's grid-stride kernel (GRID), the GEMV and the view
// copy: per-block counts and the critical path of one block.
static void other_form(Model *m, const MgOp *o, const MgKernelCost *roof,
                       PerBlock *pb, double *l2_bytes) {
  const MgGpu *g = m->gpu;
  const MgLowerKernelPlan *pl = m->plan;
  const MgTensor *out = &m->p->graphs[0].tensors[o->outputs[0]];
  double f = roof->l2_bytes > 0 ? roof->dram_bytes / roof->l2_bytes : 1;
  double lat = fmin(f, 1) * g->lat_dram + (1 - fmin(f, 1)) * g->lat_l2;
  Form form;
  memset(&form, 0, sizeof form);
  if (pl->form == MG_LOWER_FORM_COPY)
    copy_form(m, out, lat, &form);
  else if (pl->form == MG_LOWER_FORM_GEMV && pl->cols > 0)
    gemv_dot_form(m, o, &form);
  else if (pl->form == MG_LOWER_FORM_GEMV)
    gemv_form(m, o, &form);
  else if (o->kind == MG_OP_MATMUL || o->kind == MG_OP_SUM ||
           o->kind == MG_OP_REDUCE_MAX)
    reduction_form(m, o, roof, lat, l2_bytes, &form);
  else
    elementwise_form(m, o, lat, &form);
  // The whole kernel's counts: per block.
  double B = m->blocks;
  Acc *total = &pb->total;
  double *parts = pb->parts;
  total->fp32 = form.a.fp32 / B;
  total->fma = form.a.fma / B;
  total->sfu = form.a.sfu / B;
  total->lsu = form.a.lsu / B;
  total->instr = form.a.instr / B;
  pb->inflight = form.inflight;
  pb->path = form.per_thread * form.per;
  parts[0] = form.mem;
  parts[2] = pl->form == MG_LOWER_FORM_GEMV
                 ? (pl->barriers_after +
                    pl->forloop * pl->barriers_per_iteration) * g->lat_bar
                 : 0;
  parts[1] = pb->path - parts[0] - parts[2];
}

// Resident blocks per SM and what bounds them.
static uint32_t resident(const MgGpu *g, double threads, double regs_thread,
                         double smem, char *limit) {
  double regs = ceil(regs_thread / 8.0) * 8; // allocated per 8
  double n = floor(g->max_threads_sm / threads);
  *limit = 't';
  double r = floor(g->regs_sm / (regs * threads));
  if (r < n) {
    n = r;
    *limit = 'r';
  }
  double s = floor(g->smem_sm / (smem + g->smem_reserved));
  if (s < n) {
    n = s;
    *limit = 's';
  }
  if (g->max_blocks_sm < n) {
    n = g->max_blocks_sm;
    *limit = 'b';
  }
  return n < 1 ? 1 : (uint32_t)n; // beyond the limits: one at a time
}

// ptxas's facts in place of the model's guesses: the registers and the
// shared memory (static, ptxas's; dynamic, the launch's) that bound
// residency, and the stages the PTX's cp.async depth shows (a for-loop
// waits with S - 2 groups pending, the GEMV ring with S - 1).
static void apply_facts(const MgProgram *p, MgOpId op, const MgKernelFacts *f,
                        Model *m, MgLowerKernelPlan *plan, double *smem) {
  m->regs = m->gpu->regs_thread;
  *smem = (double)plan->smem_bytes;
  if (!f || !f->known)
    return;
  m->facts = true;
  if (f->registers > 0)
    m->regs = f->registers;
  *smem = (double)f->smem_static + (double)mg_lower_smem_bytes(p, op);
  if (f->async_wait < 0)
    return;
  if (plan->form == MG_LOWER_FORM_GEMV && plan->stages > 0)
    plan->stages = (int64_t)f->async_wait + 1;
  else if (plan->form == MG_LOWER_FORM_BLOCKS && plan->pipelined)
    plan->stages = (int64_t)f->async_wait + 2;
}

// The estimate from one block's counts and path (`pb`), the roofline's
// figures (`roof`) and the L2 bytes of the form (`l2`).
static void finish(const Model *m, const PerBlock *pb,
                   const MgKernelCost *roof, double l2, double smem,
                   MgEmittedCost *out) {
  const MgGpu *gpu = m->gpu;
  const MgLowerKernelPlan *plan = m->plan;
  double clk = gpu->clock_hz;
  double per_sm = ceil(m->blocks / gpu->sms);
  out->blocks = (uint64_t)m->blocks;
  out->threads = plan->threads;
  out->smem_bytes = (int64_t)smem;
  out->regs_thread = (int)m->regs;
  out->facts = m->facts;
  out->stages = plan->pipelined || plan->form == MG_LOWER_FORM_GEMV
                    ? (uint32_t)plan->stages : 0;
  out->resident = resident(gpu, m->threads, m->regs, smem, &out->limit);
  out->rounds = (uint32_t)ceil(per_sm / out->resident);
  out->inflight_bytes = pb->inflight * fmin(out->resident, per_sm);
  out->block_s = pb->path / clk;
  out->path_memory_s = pb->parts[0] / clk;
  out->path_chain_s = pb->parts[1] / clk;
  out->path_barrier_s = pb->parts[2] / clk;
  out->barriers_per_iteration = plan->barriers_per_iteration;
  out->forloop = plan->forloop;
  out->pipelined = plan->pipelined;
  out->planned = true;
  out->dram_bytes = roof->dram_bytes + m->extra_dram;
  out->l2_bytes = l2 + m->extra_l2;
  out->fma = pb->total.fma * m->blocks;
  out->fp32_ops = pb->total.fp32 * m->blocks;
  out->sfu_ops = pb->total.sfu * m->blocks;
  out->lsu_cycles = pb->total.lsu * m->blocks;
  out->instructions = pb->total.instr * m->blocks;
  out->tensor_flops = pb->total.tensor * m->blocks;
  double *t = out->t;
  t[MG_COST_BOUND_DRAM] = out->dram_bytes / (gpu->dram_bw * MG_COST_DRAM_EFF);
  t[MG_COST_BOUND_L2] = out->l2_bytes / (gpu->l2_bw * MG_COST_L2_EFF);
  t[MG_COST_BOUND_SIMT] = per_sm * pb->total.fp32 / (gpu->simt_lanes * clk);
  t[MG_COST_BOUND_SFU] = per_sm * pb->total.sfu / (gpu->sfu_lanes * clk);
  t[MG_COST_BOUND_SMEM] = per_sm * pb->total.lsu / clk;
  t[MG_COST_BOUND_ISSUE] =
      per_sm * pb->total.instr / (32.0 * gpu->issue_clk * clk);
  t[MG_COST_BOUND_TENSOR] = out->tensor_flops / gpu->tensor_flops;
  t[MG_COST_BOUND_LATENCY] = out->rounds * out->block_s;
  out->bound = MG_COST_BOUND_LAUNCH;
  for (int r = MG_COST_BOUND_DRAM; r < MG_COST_BOUND_COUNT; r++)
    if (t[r] > out->body_s) {
      out->body_s = t[r];
      out->bound = (MgCostBound)r;
    }
  out->time_s = gpu->launch_s + out->body_s;
}

bool mg_cost_emitted_kernel_facts(const MgProgram *p, MgOpId op,
                                  const MgGpu *gpu, const MgKernelFacts *facts,
                                  MgEmittedCost *out) {
  memset(out, 0, sizeof *out);
  if (!gpu)
    gpu = mg_cost_gpu(NULL);
  MgKernelCost roof;
  if (!mg_cost_kernel(p, op, gpu, &roof))
    return false; // no kernel
  MgLowerKernelPlan *plan = malloc(sizeof *plan);
  if (!plan || !mg_lower_kernel_plan(p, op, mg_target_lookup(gpu->target), plan)) {
    free(plan); // the roofline stands in
    out->time_s = roof.time_s;
    out->body_s = roof.body_s;
    out->bound = roof.bound;
    out->blocks = roof.blocks;
    out->dram_bytes = roof.dram_bytes;
    out->l2_bytes = roof.l2_bytes;
    return true;
  }
  const MgOp *o = &p->graphs[0].ops[op];
  Model m;
  memset(&m, 0, sizeof m);
  m.gpu = gpu;
  m.p = p;
  m.kop = o;
  m.plan = plan;
  m.threads = (double)plan->threads;
  m.blocks = (double)plan->grid[0] * plan->grid[1] * plan->grid[2];
  double smem;
  apply_facts(p, op, facts, &m, plan, &smem);
  PerBlock pb;
  memset(&pb, 0, sizeof pb);
  double l2 = roof.l2_bytes;
  bool ok = true;
  if (plan->form == MG_LOWER_FORM_BLOCKS) {
    m.b = &p->graphs[o->attr];
    m.reg = calloc(m.b->num_tensors + 1, sizeof *m.reg);
    ok = m.reg != NULL;
    for (uint32_t i = 0; ok && i < plan->num_steps; i++) {
      const MgLowerStep *s = &plan->steps[i];
      const MgOp *bo = &m.b->ops[s->op];
      if (s->registers)
        m.reg[bo->outputs[0]] = true;
    }
    if (ok)
      blocks_form(&m, &pb);
    free(m.reg);
  } else {
    other_form(&m, o, &roof, &pb, &l2);
  }
  if (ok)
    finish(&m, &pb, &roof, l2, smem, out);
  else
    memset(out, 0, sizeof *out);
  free(plan);
  return ok;
}

bool mg_cost_emitted_kernel(const MgProgram *p, MgOpId op, const MgGpu *gpu,
                            MgEmittedCost *out) {
  return mg_cost_emitted_kernel_facts(p, op, gpu, NULL, out);
}

double mg_cost_emitted_program_facts(const MgProgram *program,
                                     const MgGpu *gpu,
                                     const MgKernelFacts *facts) {
  if (!program || program->num_graphs == 0)
    return 0;
  double total = 0;
  for (uint32_t i = 0; i < program->graphs[0].num_ops; i++) {
    MgEmittedCost c;
    if (mg_cost_emitted_kernel_facts(program, i, gpu, facts ? &facts[i] : NULL,
                                     &c))
      total += c.time_s;
  }
  return total;
}

double mg_cost_emitted_program(const MgProgram *program, const MgGpu *gpu) {
  return mg_cost_emitted_program_facts(program, gpu, NULL);
}

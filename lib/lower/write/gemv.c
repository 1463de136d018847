//===- gemv.c - A kernel-level matmul with few rows as a split-K GEMV -----===//
//
// C = A·B with A M x K (M <= 32 rows, the batch of a decoding step) and B
// K x N is a bandwidth problem: B's K·N elements are read once, and one
// output per thread (the generic predefined kernel) reads B column-wise,
// 2 bytes per thread per load. Here each block owns CG groups of V
// adjacent columns (V: one 16-byte vector of B's row) and its 32·CG
// threads split K: thread t takes column group t mod CG and the rows
// k ≡ t / CG (mod SLICES). It loads UNROLL such rows' 16-byte vectors of B
// (and A's M scalars for each) before it uses any, so that many bytes are
// in flight per thread, then accumulates the M x V products in f32
// registers (FMA) in k order. While whole groups of UNROLL rows remain,
// B's vectors do not go through registers: they stream by cp.async.cg
// (16 bytes, global to shared) into the thread's own slots of a ring of
// STAGES groups in shared memory (ring[stage][u][thread]), one commit
// group per stage. Iteration j issues group j + STAGES - 1, commits, and
// waits (cp.async.wait_group STAGES - 1) for group j, which it reads back
// from its slots: STAGES - 1 groups stay in flight while it computes,
// whatever registers ptxas allocates, and no barrier is needed (a thread
// reads only what it copied). Past the last group it commits empty
// groups, so the wait count stays uniform and the tail drains. The SLICES partial sums of each output meet
// in shared memory after one barrier and are added in slice order by the
// thread that stores the output.
//
// CG is 8 (a warp reads 4 rows x 128 contiguous bytes) unless that leaves
// fewer blocks than GEMV_MIN_BLOCKS (about one per SM on A100/H100): then
// 4 or 2, so that a 6144-wide B still fills the GPU.
//
// More than 8 rows go in row groups of RG <= 8 rows (the largest divisor
// of M, at least 4), one block per column block and row group; the row
// group is the block index's fastest digit, so the blocks that read the
// same columns of B run side by side and the later ones find B in L2.
// The M x V accumulators thus stay at most 64 registers.
//
// The CPU form runs the same blocks and threads one after the other (the
// partial sums in a buffer), so the JIT checks the split and the order.
// The warps' shuffle stages are gemv_warp.c's, the dot form (B stored
// transposed) gemv_dot.c's, and a block graph of this shape with row
// statistics and an epilogue is matched by fused.c.
//
//===----------------------------------------------------------------------===//
#include "write/gemv.h"

#include <stdio.h>
#include <string.h>

// The stages, then the storing lanes' values into part[warp][row][column].
static void warp_meet(Emit *e, Warp *w, const char *part,
                      const char *part_type) {
  for (int64_t o = 16; o >= w->g->cg; o /= 2)
    mg_gemv_meet_stage(e, w, o);
  mg_gemv_lanes_open(e, w);
  Name flag, pos, c32, warp, cgs, cg, vw, base;
  mg_gemv_state_get(e, w, 1, flag);
  mg_gemv_state_get(e, w, 0, pos);
  mg_lower_index(e, 32, c32);
  mg_lower_index_op(e, "arith.divui", w->tid, c32, warp);
  mg_lower_index(e, w->g->cg, cgs);
  mg_lower_index_op(e, "arith.remui", w->tid, cgs, cg);
  mg_lower_index(e, w->g->v, vw);
  mg_lower_index_op(e, "arith.muli", cg, vw, base);
  mg_lower_line(e, "scf.if %s {", flag);
  e->indent++;
  const HeldAt at = {pos, vw, base};
  for (int64_t i = 0; i < w->n; i++) {
    Name v, rc[2];
    mg_gemv_held_value(e, w, &at, i, v, rc);
    mg_lower_line(e, "memref.store %s, %s[%s, %s, %s] : %s", v, part, warp,
                  rc[0], rc[1], part_type);
  }
  e->indent--;
  mg_lower_line(e, "}");
  mg_gemv_lanes_close(e, w);
}

// A lane's starting state from phase 1: its M·V values, position 0, and
// whether it stores (its column group exists).
static void warp_start(Emit *e, Warp *w, const Lane *l, Name *acc) {
  Name zero;
  mg_lower_index(e, 0, zero);
  mg_gemv_state_set(e, w, 0, zero);
  mg_gemv_state_set(e, w, 1, l->valid);
  if (w->cpu) {
    for (int64_t m = 0; m < w->g->m; m++) {
      Name at;
      mg_lower_index(e, m * w->g->v, at);
      mg_lower_line(e, "vector.store %s, %s[%s, %s] : %s, vector<%lldxf32>",
                    acc[m], w->regs, w->tid, at, w->regs_type,
                    (long long)w->g->v);
    }
    return;
  }
  for (int64_t i = 0; i < w->n; i++) {
    mg_lower_fresh(e, w->val[i]);
    mg_lower_line(e, "%s = vector.extract %s[%lld] : f32 from vector<%lldxf32>",
                  w->val[i], acc[i / w->g->v], (long long)(i % w->g->v),
                  (long long)w->g->v);
  }
}

// The warps' sums of stream `j`'s output `mc` (row, column), added in
// warp order (stream j's columns follow the j before it in the block).
static void warp_sums(Emit *e, const Gemv *g, const GemvBufs *bf,
                      const Name mc[2], int j, Name sum) {
  const char *m = mc[0], *c = mc[1];
  Name col;
  snprintf(col, NAME_LEN, "%s", c);
  if (j > 0) {
    Name off;
    mg_lower_index(e, j * g->cgb * g->v, off);
    mg_lower_index_op(e, "arith.addi", c, off, col);
  }
  for (int64_t w = 0; w < g->cg; w++) {
    Name wi, v;
    mg_lower_index(e, w, wi);
    mg_lower_fresh(e, v);
    mg_lower_line(e, "%s = memref.load %s[%s, %s, %s] : %s", v, bf->part, wi,
                  m, col, bf->part_type);
    if (w == 0) {
      snprintf(sum, NAME_LEN, "%s", v);
    } else {
      Name t;
      mg_lower_fresh(e, t);
      mg_lower_line(e, "%s = arith.addf %s, %s : f32", t, sum, v);
      snprintf(sum, NAME_LEN, "%s", t);
    }
  }
}

// Phase 2: the block's outputs, each the warps' sums added in warp order
// (one sum per B stream). The fused form applies its epilogue to them.
static void combine(Emit *e, const Gemv *g, const char *bid, const char *tid,
                    const GemvBufs *bf) {
  int64_t width = g->cgb * g->v, outs = g->m * width;
  Name wd, mc[2], base, col, nn, ok, c0;
  char *m = mc[0], *c = mc[1];
  mg_lower_index(e, 0, c0);
  mg_gemv_strided_items_begin(e, g, tid, outs, width, mc);
  mg_lower_index(e, width, wd);
  BlockAt blk;
  mg_gemv_block_at(e, g, bid, &blk);
  mg_lower_index_op(e, "arith.muli", blk.colblock, wd, base);
  mg_lower_index_op(e, "arith.addi", base, c, col);
  mg_lower_index(e, g->n, nn);
  mg_lower_index_op(e, "arith.cmpi ult,", col, nn, ok);
  mg_lower_line(e, "scf.if %s {", ok);
  e->indent++;
  Name sums[GEMV_MAX_B];
  for (int j = 0; j < g->nb; j++)
    warp_sums(e, g, bf, (const Name *)mc, j, sums[j]);
  Name row;
  snprintf(row, NAME_LEN, "%s", m);
  if (blk.has_row0)
    mg_lower_index_op(e, "arith.addi", blk.row0, m, row);
  if (g->fused) {
    Name y;
    mg_lower_fused_finish(e, g, m, sums, bf, y);
    mg_gemv_store_output(e, g, row, col, y);
  } else {
    mg_gemv_store_output(e, g, row, col, sums[0]);
  }
  e->indent--;
  mg_lower_line(e, "}");
  e->indent--;
  mg_lower_line(e, "}");
}


// The fused form's statistics of the thread's slice (`acc` past the M
// vectors) into stat[j][slice][row], by the slice's first column group
// (every column group holds the same sums).
static void stats_store(Emit *e, const Lane *l, Name *acc,
                        const GemvBufs *bf) {
  const Gemv *g = l->g;
  if (!g->nstats)
    return;
  Name z, first;
  mg_lower_index(e, 0, z);
  mg_lower_index_op(e, "arith.cmpi eq,", l->cg, z, first);
  mg_lower_line(e, "scf.if %s {", first);
  e->indent++;
  for (int j = 0; j < g->nstats; j++)
    for (int64_t m = 0; m < g->m; m++) {
      Name ji, mi;
      mg_lower_index(e, j, ji);
      mg_lower_index(e, m, mi);
      mg_lower_line(e, "memref.store %s, %s[%s, %s, %s] : %s",
                    acc[g->m * (1 + j) + m], bf->stat, ji, l->slice, mi,
                    bf->stat_type);
    }
  e->indent--;
  mg_lower_line(e, "}");
}

// The GPU kernel's body: phase 1 per thread, the warps' shuffles, one
// barrier, phase 2.
static void gemv_gpu(Emit *e, const Gemv *g, Ring *rg, const GemvBufs *bf) {
  Name acc[GEMV_MAX_ACCS], bid;
  Lane l;
  Warp w = {.g = g, .cpu = false, .n = g->m * g->v};
  mg_lower_fresh(e, bid);
  mg_lower_line(e, "%s = gpu.block_id x", bid);
  mg_lower_fresh(e, w.tid);
  mg_lower_line(e, "%s = gpu.thread_id x", w.tid);
  snprintf(rg->tid, NAME_LEN, "%s", w.tid);
  mg_gemv_lane_of(e, g, bid, w.tid, &l);
  mg_gemv_partials(e, &l, rg, acc);
  stats_store(e, &l, acc, bf);
  warp_start(e, &w, &l, acc);
  warp_meet(e, &w, bf->part, bf->part_type);
  mg_lower_line(e, "gpu.barrier");
  combine(e, g, bid, w.tid, bf);
}

// CPU: blocks, then each segment's threads, one after the other; the
// ring and the shared buffers are buffers indexed as on the GPU.
static void gemv_cpu(Emit *e, const Gemv *g, Ring *rg, GemvBufs *bf) {
  Name acc[GEMV_MAX_ACCS], bid;
  Lane l;
  Warp w = {.g = g, .cpu = true, .n = g->m * g->v};
  mg_gemv_cpu_buffers_alloc(e, &w, bf->part, bf->part_type);
  if (g->stages) {
    mg_lower_fresh(e, rg->buf);
    mg_lower_line(e, "%s = memref.alloc() : %s", rg->buf, rg->type);
  }
  if (g->nstats) {
    mg_lower_fresh(e, bf->stat);
    mg_lower_line(e, "%s = memref.alloc() : %s", bf->stat, bf->stat_type);
  }
  mg_gemv_cpu_blocks_begin(e, g, bid);
  mg_gemv_lanes_open(e, &w);
  snprintf(rg->tid, NAME_LEN, "%s", w.tid);
  mg_gemv_lane_of(e, g, bid, w.tid, &l);
  mg_gemv_partials(e, &l, rg, acc);
  stats_store(e, &l, acc, bf);
  warp_start(e, &w, &l, acc);
  mg_gemv_lanes_close(e, &w);
  warp_meet(e, &w, bf->part, bf->part_type);
  mg_gemv_lanes_open(e, &w);
  combine(e, g, bid, w.tid, bf);
  mg_gemv_lanes_close(e, &w);
  e->indent--;
  mg_lower_line(e, "}");
  if (g->nstats)
    mg_lower_line(e, "memref.dealloc %s : %s", bf->stat, bf->stat_type);
  if (g->stages)
    mg_lower_line(e, "memref.dealloc %s : %s", rg->buf, rg->type);
  mg_gemv_cpu_buffers_free(e, &w, bf->part, bf->part_type);
}

void mg_lower_gemv(Emit *e, const MgOp *op, const char *part,
                   const char *ring, const char *stat) {
  Gemv g;
  if (!mg_lower_gemv_shape(e->p, op, &g)) {
    e->error = "a matmul that is not a GEMV lowered as one";
    return;
  }
  if (g.dot) {
    if (e->mode == MG_LOWER_CPU)
      mg_gemv_dot_cpu(e, &g);
    else
      mg_gemv_dot_gpu(e, &g, part);
    return;
  }
  bool cpu = e->mode == MG_LOWER_CPU;
  GemvBufs bf;
  memset(&bf, 0, sizeof bf);
  mg_lower_gemv_partials_type(&g, !cpu, bf.part_type, sizeof bf.part_type);
  if (g.nstats)
    mg_lower_fused_stat_type(&g, !cpu, bf.stat_type, sizeof bf.stat_type);
  Ring rg;
  memset(&rg, 0, sizeof rg);
  mg_gemv_ring_type(&g, !cpu, rg.type, sizeof rg.type);
  if (cpu) {
    gemv_cpu(e, &g, &rg, &bf);
    return;
  }
  if ((g.stages && !ring) || (g.nstats && !stat) || !part) {
    e->error = "a GEMV's ring or statistics without its buffer";
    return;
  }
  snprintf(bf.part, NAME_LEN, "%s", part);
  if (g.nstats)
    snprintf(bf.stat, NAME_LEN, "%s", stat);
  if (g.stages)
    snprintf(rg.buf, NAME_LEN, "%s", ring);
  gemv_gpu(e, &g, &rg, &bf);
}

//===- gemv_loop.c - The split-K GEMV's k loop: a thread's partial sums ---===//
//
// Phase 1 of gemv.c's kernel: where a thread works (its block's column
// block and row group, its column group, K slice and B stream) and its
// k loop, B's 16-byte vectors through the cp.async ring (gemv.c's
// header) while whole groups of rows remain, then from global memory one
// row at a time, FMAs into M vectors of V f32 sums in k order (and the
// fused form's statistics of A's scalars beside them).
//
//===----------------------------------------------------------------------===//
#include "write/gemv.h"

#include <stdio.h>
#include <string.h>

void mg_gemv_block_at(Emit *e, const Gemv *g, const char *bid, BlockAt *b) {
  b->has_row0 = g->rgroups > 1;
  if (!b->has_row0) {
    snprintf(b->colblock, NAME_LEN, "%s", bid);
    return;
  }
  Name rgs, rg, mm;
  mg_lower_index(e, g->rgroups, rgs);
  mg_lower_index_op(e, "arith.divui", bid, rgs, b->colblock);
  mg_lower_index_op(e, "arith.remui", bid, rgs, rg);
  mg_lower_index(e, g->m, mm);
  mg_lower_index_op(e, "arith.muli", rg, mm, b->row0);
}

// Row `m` of the block's row group, as an index of A or C.
static void row_at(Emit *e, const BlockAt *b, int64_t m, Name out) {
  if (!b->has_row0) {
    mg_lower_index(e, m, out);
    return;
  }
  Name mi;
  mg_lower_index(e, m, mi);
  mg_lower_index_op(e, "arith.addi", b->row0, mi, out);
}

// The thread's B stream: B itself, or (several streams) the one of its
// column group, a select of the kernel's memrefs (no branch: the lanes of
// a warp read different streams), aligned again on the GPU.
static void stream_of(Emit *e, const Gemv *g, const char *cg, Lane *l) {
  snprintf(l->bmem, NAME_LEN, "%s", e->val[g->b]);
  if (g->nb == 1)
    return;
  Name cgb, s;
  mg_lower_index(e, g->cgb, cgb);
  mg_lower_index_op(e, "arith.divui", cg, cgb, s);
  for (int j = 1; j < g->nb; j++) {
    Name ji, is, sel;
    mg_lower_index(e, j, ji);
    mg_lower_index_op(e, "arith.cmpi eq,", s, ji, is);
    mg_lower_fresh(e, sel);
    mg_lower_line(e, "%s = arith.select %s, %s, %s : %s", sel, is,
                  e->val[g->bs[j]], l->bmem, e->type[g->b]);
    snprintf(l->bmem, NAME_LEN, "%s", sel);
  }
  if (e->mode == MG_LOWER_CPU)
    return;
  Name al;
  mg_lower_fresh(e, al);
  mg_lower_line(e, "%s = memref.assume_alignment %s, 16 : %s", al, l->bmem,
                e->type[g->b]);
  snprintf(l->bmem, NAME_LEN, "%s", al);
}

void mg_gemv_lane_of(Emit *e, const Gemv *g, const char *bid,
                     const char *tid, Lane *l) {
  Name cgs, gbase, gidx, groups;
  l->g = g;
  mg_lower_index(e, g->cg, cgs);
  mg_lower_index_op(e, "arith.remui", tid, cgs, l->cg);
  mg_lower_index_op(e, "arith.divui", tid, cgs, l->slice);
  mg_gemv_block_at(e, g, bid, &l->blk);
  stream_of(e, g, l->cg, l);
  if (g->cgv < g->cg || g->nb > 1) { // lanes past cgv groups idle
    Name cgv, cgb, within;
    mg_lower_index(e, g->cgv, cgv);
    snprintf(cgb, NAME_LEN, "%s", cgv);
    snprintf(within, NAME_LEN, "%s", l->cg);
    if (g->nb > 1) { // the group within its stream's
      mg_lower_index(e, g->cgb, cgb);
      mg_lower_index_op(e, "arith.remui", l->cg, cgb, within);
    }
    mg_lower_index_op(e, "arith.muli", l->blk.colblock, cgb, gbase);
    mg_lower_index_op(e, "arith.addi", gbase, within, gidx);
    mg_lower_index(e, g->v, l->vw);
    mg_lower_index_op(e, "arith.muli", gidx, l->vw, l->col);
    mg_lower_index_op(e, "arith.cmpi ult,", l->cg, cgv, l->valid);
    return;
  }
  mg_lower_index_op(e, "arith.muli", l->blk.colblock, cgs, gbase);
  mg_lower_index_op(e, "arith.addi", gbase, l->cg, gidx);
  mg_lower_index(e, g->v, l->vw);
  mg_lower_index_op(e, "arith.muli", gidx, l->vw, l->col);
  mg_lower_index(e, g->n / g->v, groups);
  mg_lower_index_op(e, "arith.cmpi ult,", gidx, groups, l->valid);
}

// One FMA step of thread's k loop for the rows `ks[0..n)` of B: every load
// first (B's vectors, from the ring's slot when `ring`, A's scalars), then
// the FMAs in k order. `acc` holds the accumulators' names on entry and
// their new names on exit (mg_gemv_accs: the M vectors, then the fused
// form's statistics of A's scalars, summed in the same k order).
static void fma_rows(Emit *e, const Lane *l, Name *ks, int64_t n,
                     const Ring *ring, Name *acc) {
  const Gemv *g = l->g;
  const MgGraph *r = &e->p->graphs[0];
  const MgTensor *bt = &r->tensors[g->b], *atn = &r->tensors[g->a];
  char vf[32], vn[32], at[MG_MAX_DIMS * (NAME_LEN + 2)];
  snprintf(vf, sizeof vf, "vector<%lldxf32>", (long long)g->v);
  snprintf(vn, sizeof vn, "vector<%lldx%s>", (long long)g->v,
           mg_lower_elt(g->dt));
  Name braw[GEMV_MAX_UNROLL], araw[GEMV_MAX_UNROLL][GEMV_MAX_ROWS];
  for (int64_t u = 0; u < n; u++) {
    mg_lower_fresh(e, braw[u]);
    if (ring) {
      Name ui;
      mg_lower_index(e, u, ui);
      mg_lower_line(e, "%s = vector.load %s[%s, %s, %s, %s] : %s, %s",
                    braw[u], ring->buf, ring->slot, ui, ring->tid, l->c0,
                    ring->type, vn);
    } else {
      mg_gemv_at2(bt, ks[u], l->col, l->c0, at, sizeof at);
      mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", braw[u], l->bmem,
                    at, e->type[g->b], vn);
    }
    for (int64_t m = 0; m < g->m; m++) {
      Name row;
      row_at(e, &l->blk, m, row);
      mg_gemv_at2(atn, row, ks[u], l->c0, at, sizeof at);
      mg_lower_fresh(e, araw[u][m]);
      mg_lower_line(e, "%s = memref.load %s[%s] : %s", araw[u][m],
                    e->val[g->a], at, e->type[g->a]);
    }
  }
  bool wide = g->dt == MG_DTYPE_F32;
  for (int64_t u = 0; u < n; u++) {
    Name bv;
    memcpy(bv, braw[u], sizeof bv);
    if (!wide) {
      mg_lower_fresh(e, bv);
      mg_lower_line(e, "%s = arith.extf %s : %s to %s", bv, braw[u], vn, vf);
    }
    for (int64_t m = 0; m < g->m; m++) {
      Name a32, splat, next;
      memcpy(a32, araw[u][m], sizeof a32);
      if (!wide) {
        mg_lower_fresh(e, a32);
        mg_lower_line(e, "%s = arith.extf %s : %s to f32", a32, araw[u][m],
                      mg_lower_elt(g->dt));
      }
      mg_lower_fresh(e, splat);
      mg_lower_line(e, "%s = vector.broadcast %s : f32 to %s", splat, a32, vf);
      mg_lower_fresh(e, next);
      mg_lower_line(e, "%s = vector.fma %s, %s, %s : %s", next, splat, bv,
                    acc[m], vf);
      memcpy(acc[m], next, sizeof next);
      for (int j = 0; j < g->nstats; j++) {
        Name *s = &acc[g->m * (1 + j) + m];
        mg_lower_fresh(e, next);
        if (g->stat_sq[j])
          mg_lower_line(e, "%s = math.fma %s, %s, %s : f32", next, a32, a32,
                        *s);
        else
          mg_lower_line(e, "%s = arith.addf %s, %s : f32", next, *s, a32);
        memcpy(*s, next, sizeof next);
      }
    }
  }
}

// The type of accumulator `i` (mg_gemv_accs): a vector of V sums, or f32.
static void acc_type(const Gemv *g, int64_t i, char *out, size_t size) {
  if (i < g->m)
    snprintf(out, size, "vector<%lldxf32>", (long long)g->v);
  else
    snprintf(out, size, "f32");
}

// scf.for `iv` = `lo` to `hi` step `st` (set by the caller) carrying the
// accumulators `acc` as `arg`; acc_for_close yields `arg` and points
// `acc` at the loop's results.
typedef struct AccFor {
  Name lo, hi, st, res, iv, arg[GEMV_MAX_ACCS];
  char types[GEMV_MAX_ACCS * 24];
} AccFor;

static void acc_for_open(Emit *e, const Gemv *g, Name *acc, AccFor *f) {
  char vf[32], iters[GEMV_MAX_ACCS * 40] = "";
  mg_lower_fresh(e, f->res);
  mg_lower_fresh(e, f->iv);
  size_t ni = 0, nt = 0;
  f->types[0] = '\0';
  for (int64_t m = 0; m < mg_gemv_accs(g); m++) {
    acc_type(g, m, vf, sizeof vf);
    mg_lower_fresh(e, f->arg[m]);
    ni += (size_t)snprintf(iters + ni, sizeof iters - ni, "%s%s = %s",
                           m ? ", " : "", f->arg[m], acc[m]);
    nt += (size_t)snprintf(f->types + nt, sizeof f->types - nt, "%s%s",
                           m ? ", " : "", vf);
  }
  mg_lower_line(e, "%s:%lld = scf.for %s = %s to %s step %s iter_args(%s) -> "
                   "(%s) {", f->res, (long long)mg_gemv_accs(g), f->iv, f->lo,
                f->hi, f->st, iters, f->types);
  e->indent++;
}

static void acc_for_close(Emit *e, const Gemv *g, AccFor *f, Name *acc) {
  char yields[GEMV_MAX_ACCS * 16];
  mg_gemv_join_names(f->arg, mg_gemv_accs(g), yields, sizeof yields);
  mg_lower_line(e, "scf.yield %s : %s", yields, f->types);
  e->indent--;
  mg_lower_line(e, "}");
  // "%res#m": the loop's names are short ("%v123"), far below NAME_LEN.
  for (int64_t m = 0; m < mg_gemv_accs(g); m++) {
    int n = snprintf(acc[m], NAME_LEN, "%.12s#%d", f->res, (int)m);
    if (n < 0 || n >= NAME_LEN)
      e->error = "a GEMV accumulator name too long";
  }
}

// `ks[u]` = `k` + u·SLICES for u < `unroll`: a step's rows.
static void step_rows(Emit *e, const char *k, int64_t unroll, Name *ks) {
  snprintf(ks[0], NAME_LEN, "%s", k);
  for (int64_t u = 1; u < unroll; u++) {
    Name off;
    mg_lower_index(e, u * SLICES, off);
    mg_lower_index_op(e, "arith.addi", k, off, ks[u]);
  }
}

// scf.for `k` = `from` to `to` step `unroll`·SLICES over the accumulators
// `acc` (replaced by the loop's results); `unroll` rows per iteration,
// SLICES apart, loaded from global memory.
static void k_loop(Emit *e, const Lane *l, const char *from, int64_t to,
                   int64_t unroll, Name *acc) {
  Name ks[GEMV_MAX_UNROLL];
  AccFor f;
  snprintf(f.lo, NAME_LEN, "%s", from);
  mg_lower_index(e, to, f.hi);
  mg_lower_index(e, unroll * SLICES, f.st);
  acc_for_open(e, l->g, acc, &f);
  step_rows(e, f.iv, unroll, ks);
  fma_rows(e, l, ks, unroll, NULL, f.arg);
  acc_for_close(e, l->g, &f, acc);
}

// Group `j` (an index) of the thread's rows into its slots of ring stage
// j mod STAGES: cp.async.cg of 16 bytes each on the GPU, a vector copy in
// the CPU form.
static void ring_issue(Emit *e, const Lane *l, const Ring *ring,
                       const char *j) {
  const Gemv *g = l->g;
  const MgTensor *bt = &e->p->graphs[0].tensors[g->b];
  Name grp, base, k0, ns, slot, ks[GEMV_MAX_UNROLL];
  mg_lower_index(e, SLICES * g->unroll, grp);
  mg_lower_index_op(e, "arith.muli", j, grp, base);
  mg_lower_index_op(e, "arith.addi", l->slice, base, k0);
  mg_lower_index(e, g->stages, ns);
  mg_lower_index_op(e, "arith.remui", j, ns, slot);
  step_rows(e, k0, g->unroll, ks);
  char vn[32], at[MG_MAX_DIMS * (NAME_LEN + 2)];
  snprintf(vn, sizeof vn, "vector<%lldx%s>", (long long)g->v,
           mg_lower_elt(g->dt));
  for (int64_t u = 0; u < g->unroll; u++) {
    Name ui, x;
    mg_lower_index(e, u, ui);
    mg_gemv_at2(bt, ks[u], l->col, l->c0, at, sizeof at);
    mg_lower_fresh(e, x);
    if (e->mode == MG_LOWER_CPU) {
      mg_lower_line(e, "%s = vector.load %s[%s] : %s, %s", x, l->bmem, at,
                    e->type[g->b], vn);
      mg_lower_line(e, "vector.store %s, %s[%s, %s, %s, %s] : %s, %s", x,
                    ring->buf, slot, ui, ring->tid, l->c0, ring->type, vn);
    } else {
      mg_lower_line(e, "%s = nvgpu.device_async_copy %s[%s], %s[%s, %s, %s, "
                       "%s], %lld {bypassL1} : %s to %s", x, l->bmem, at,
                    ring->buf, slot, ui, ring->tid, l->c0, (long long)g->v,
                    e->type[g->b], ring->type);
    }
  }
}

static void ring_commit(Emit *e) {
  if (e->mode != MG_LOWER_CPU)
    mg_lower_line(e, "nvvm.cp.async.commit.group");
}

// The whole groups of rows (`groups` of them) through the ring (gemv.c's
// header): the prologue issues groups 0 .. STAGES - 2, iteration j issues
// group j + STAGES - 1 if it exists, commits (an empty group past the
// last), waits until at most STAGES - 1 groups are pending (its own is
// done) and computes on stage j mod STAGES.
static void ring_loop(Emit *e, const Lane *l, Ring *ring, int64_t groups,
                      Name *acc) {
  const Gemv *g = l->g;
  for (int64_t j = 0; j + 1 < g->stages; j++) {
    if (j < groups) {
      Name ji;
      mg_lower_index(e, j, ji);
      ring_issue(e, l, ring, ji);
    }
    ring_commit(e);
  }
  Name ahead, next, more, ns, grp, base, k, ks[GEMV_MAX_UNROLL];
  AccFor f;
  mg_lower_index(e, 0, f.lo);
  mg_lower_index(e, groups, f.hi);
  mg_lower_index(e, 1, f.st);
  acc_for_open(e, g, acc, &f);
  mg_lower_index(e, g->stages - 1, ahead);
  mg_lower_index_op(e, "arith.addi", f.iv, ahead, next);
  mg_lower_index_op(e, "arith.cmpi ult,", next, f.hi, more);
  mg_lower_line(e, "scf.if %s {", more);
  e->indent++;
  ring_issue(e, l, ring, next);
  e->indent--;
  mg_lower_line(e, "}");
  ring_commit(e);
  if (e->mode != MG_LOWER_CPU)
    mg_lower_line(e, "nvvm.cp.async.wait.group %lld",
                  (long long)(g->stages - 1));
  mg_lower_index(e, g->stages, ns);
  mg_lower_index_op(e, "arith.remui", f.iv, ns, ring->slot);
  mg_lower_index(e, SLICES * g->unroll, grp);
  mg_lower_index_op(e, "arith.muli", f.iv, grp, base);
  mg_lower_index_op(e, "arith.addi", l->slice, base, k);
  step_rows(e, k, g->unroll, ks);
  fma_rows(e, l, ks, g->unroll, ring, f.arg);
  acc_for_close(e, g, &f, acc);
}

void mg_gemv_partials(Emit *e, Lane *l, Ring *ring, Name *acc) {
  const Gemv *g = l->g;
  char vf[32], types[GEMV_MAX_ACCS * 24] = "", zeros[GEMV_MAX_ACCS * 16] = "";
  snprintf(vf, sizeof vf, "vector<%lldxf32>", (long long)g->v);
  Name zero, fzero = "", res;
  mg_lower_fresh(e, zero);
  mg_lower_line(e, "%s = arith.constant dense<0.0> : %s", zero, vf);
  if (g->nstats) {
    mg_lower_fresh(e, fzero);
    mg_lower_line(e, "%s = arith.constant 0.0 : f32", fzero);
  }
  mg_lower_index(e, 0, l->c0);
  size_t nt = 0, nz = 0;
  int64_t n = mg_gemv_accs(g);
  for (int64_t m = 0; m < n; m++) {
    const char *z = m < g->m ? zero : fzero;
    acc_type(g, m, vf, sizeof vf);
    nt += (size_t)snprintf(types + nt, sizeof types - nt, "%s%s",
                           m ? ", " : "", vf);
    nz += (size_t)snprintf(zeros + nz, sizeof zeros - nz, "%s%s",
                           m ? ", " : "", z);
    snprintf(acc[m], NAME_LEN, "%s", z);
  }
  mg_lower_fresh(e, res);
  mg_lower_line(e, "%s:%lld = scf.if %s -> (%s) {", res, (long long)n,
                l->valid, types);
  e->indent++;
  int64_t group = SLICES * g->unroll, whole = g->k / group * group;
  if (whole > 0 && g->stages)
    ring_loop(e, l, ring, whole / group, acc);
  else if (whole > 0)
    k_loop(e, l, l->slice, whole, g->unroll, acc);
  if (whole < g->k) {
    Name from, w;
    mg_lower_index(e, whole, w);
    mg_lower_index_op(e, "arith.addi", l->slice, w, from);
    k_loop(e, l, from, g->k, 1, acc);
  }
  char yields[GEMV_MAX_ACCS * 16];
  mg_gemv_join_names(acc, n, yields, sizeof yields);
  mg_lower_line(e, "scf.yield %s : %s", yields, types);
  e->indent--;
  mg_lower_line(e, "} else {");
  mg_lower_line(e, "  scf.yield %s : %s", zeros, types);
  mg_lower_line(e, "}");
  for (int64_t m = 0; m < n; m++)
    snprintf(acc[m], NAME_LEN, "%.12s#%d", res, (int)m);
}

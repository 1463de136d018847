//===- gemv_warp.c - The GEMVs' warps: shuffle stages and their CPU form ---===//
//
// Shared by the split-K form (gemv.c) and the dot form (gemv_dot.c): a
// lane's values meet its partners' by shuffle stages, and the CPU form
// runs the same code with the block's threads as loops (gemv.h's Warp).
//
//===----------------------------------------------------------------------===//
#include "write/gemv.h"

#include <stdio.h>
#include <string.h>

// Phase 1's end: the warp's slices of each column group meet by shuffles,
// lane offsets 16, 8, .., CG (lanes l and l ^ o, o a multiple of CG, share
// a column group). While a lane holds an even number of values it keeps
// half, sends its partner the other half and adds the partner's half to
// its own (recursive halving: every shuffle moves a value still needed);
// then it adds all its partner's values to its own (a butterfly), and
// only the lane with the offset's bit clear stores. Either way each add
// is own + partner's, which commutes exactly, so both lanes of a pair
// agree. The storing lanes put their values in part[warp][row][column].
//
// The CPU form runs this very code with the block's threads as a loop
// (one per segment between two exchanges), the lanes' values in buffers,
// and a shuffle as a store into an exchange buffer that the partner reads
// in the next segment: `mirage-run --lower` checks the GPU's selects,
// positions and order, not a model of them.

void mg_gemv_lanes_open(Emit *e, Warp *w) {
  if (!w->cpu)
    return;
  Name c0, c1, nt;
  mg_lower_index(e, 0, c0);
  mg_lower_index(e, 1, c1);
  mg_lower_index(e, SLICES * w->g->cg, nt);
  mg_lower_fresh(e, w->tid);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", w->tid, c0, nt, c1);
  e->indent++;
}

void mg_gemv_lanes_close(Emit *e, const Warp *w) {
  if (!w->cpu)
    return;
  e->indent--;
  mg_lower_line(e, "}");
}

static void reg_get(Emit *e, Warp *w, int64_t i, Name out) {
  if (!w->cpu) {
    memcpy(out, w->val[i], sizeof w->val[i]);
    return;
  }
  Name at;
  mg_lower_index(e, i, at);
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.load %s[%s, %s] : %s", out, w->regs, w->tid,
                at, w->regs_type);
}

void mg_gemv_reg_set(Emit *e, Warp *w, int64_t i, const char *v) {
  if (!w->cpu) {
    snprintf(w->val[i], NAME_LEN, "%s", v);
    return;
  }
  Name at;
  mg_lower_index(e, i, at);
  mg_lower_line(e, "memref.store %s, %s[%s, %s] : %s", v, w->regs, w->tid,
                at, w->regs_type);
}

// The lane's position (index) or store flag (i1): `which` 0 or 1.
void mg_gemv_state_get(Emit *e, Warp *w, int which, Name out) {
  if (!w->cpu) {
    memcpy(out, which ? w->store : w->pos, NAME_LEN);
    return;
  }
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.load %s[%s] : memref<%lldx%s>", out,
                which ? w->flagb : w->posb, w->tid,
                (long long)(SLICES * w->g->cg), which ? "i1" : "index");
}

void mg_gemv_state_set(Emit *e, Warp *w, int which, const char *v) {
  if (!w->cpu) {
    snprintf(which ? w->store : w->pos, NAME_LEN, "%s", v);
    return;
  }
  mg_lower_line(e, "memref.store %s, %s[%s] : memref<%lldx%s>", v,
                which ? w->flagb : w->posb, w->tid,
                (long long)(SLICES * w->g->cg), which ? "i1" : "index");
}

// Value `s` to the partner lane tid ^ `o`; what it sent arrives through
// receive (after the segment ends, in the CPU form).
static void send(Emit *e, Warp *w, int64_t i, const char *s, int64_t o) {
  if (w->cpu) {
    Name at;
    mg_lower_index(e, i, at);
    mg_lower_line(e, "memref.store %s, %s[%s, %s] : %s", s, w->xchg, w->tid,
                  at, w->regs_type);
    return;
  }
  Name off, width, ok;
  mg_lower_fresh(e, off);
  mg_lower_line(e, "%s = arith.constant %lld : i32", off, (long long)o);
  mg_lower_fresh(e, width);
  mg_lower_line(e, "%s = arith.constant 32 : i32", width);
  mg_lower_fresh(e, w->recv[i]);
  mg_lower_fresh(e, ok);
  mg_lower_line(e, "%s, %s = gpu.shuffle xor %s, %s, %s : f32", w->recv[i],
                ok, s, off, width);
}

static void receive(Emit *e, Warp *w, int64_t i, int64_t o, Name out) {
  if (!w->cpu) {
    memcpy(out, w->recv[i], sizeof w->recv[i]);
    return;
  }
  Name off, partner, at;
  mg_lower_index(e, o, off);
  mg_lower_index_op(e, "arith.xori", w->tid, off, partner);
  mg_lower_index(e, i, at);
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.load %s[%s, %s] : %s", out, w->xchg, partner,
                at, w->regs_type);
}

// Is bit `o` of the thread's lane set?
static void lane_bit(Emit *e, const Warp *w, int64_t o, Name bit) {
  Name off, bits, zero;
  mg_lower_index(e, o, off);
  mg_lower_index_op(e, "arith.andi", w->tid, off, bits);
  mg_lower_index(e, 0, zero);
  mg_lower_index_op(e, "arith.cmpi ne,", bits, zero, bit);
}

// One stage at lane offset `o`.
void mg_gemv_meet_stage(Emit *e, Warp *w, int64_t o) {
  bool halve = w->n % 2 == 0;
  int64_t sends = halve ? w->n / 2 : w->n;
  Name bit;
  mg_gemv_lanes_open(e, w);
  lane_bit(e, w, o, bit);
  for (int64_t i = 0; i < sends; i++) {
    Name lo, hi, s, k;
    reg_get(e, w, i, lo);
    if (!halve) {
      send(e, w, i, lo, o);
      continue;
    }
    reg_get(e, w, sends + i, hi); // the partner keeps what it is sent
    mg_lower_fresh(e, s);
    mg_lower_line(e, "%s = arith.select %s, %s, %s : f32", s, bit, lo, hi);
    mg_lower_fresh(e, k);
    mg_lower_line(e, "%s = arith.select %s, %s, %s : f32", k, bit, hi, lo);
    send(e, w, i, s, o);
    mg_gemv_reg_set(e, w, i, k);
  }
  mg_gemv_lanes_close(e, w);
  mg_gemv_lanes_open(e, w);
  lane_bit(e, w, o, bit);
  for (int64_t i = 0; i < sends; i++) {
    Name k, r, sum;
    reg_get(e, w, i, k);
    receive(e, w, i, o, r);
    mg_lower_fresh(e, sum);
    mg_lower_line(e, "%s = arith.addf %s, %s : f32", sum, k, r);
    mg_gemv_reg_set(e, w, i, sum);
  }
  Name state, next;
  if (halve) { // the lane with the bit set holds positions pos + n/2 ..
    Name h, zero, shift;
    mg_lower_index(e, sends, h);
    mg_lower_index(e, 0, zero);
    mg_lower_fresh(e, shift);
    mg_lower_line(e, "%s = arith.select %s, %s, %s : index", shift, bit, h,
                  zero);
    mg_gemv_state_get(e, w, 0, state);
    mg_lower_index_op(e, "arith.addi", state, shift, next);
    mg_gemv_state_set(e, w, 0, next);
  } else { // both lanes hold the sums: the one with the bit clear stores
    Name t, clear;
    mg_lower_fresh(e, t);
    mg_lower_line(e, "%s = arith.constant true", t);
    mg_lower_fresh(e, clear);
    mg_lower_line(e, "%s = arith.xori %s, %s : i1", clear, bit, t);
    mg_gemv_state_get(e, w, 1, state);
    mg_lower_fresh(e, next);
    mg_lower_line(e, "%s = arith.andi %s, %s : i1", next, state, clear);
    mg_gemv_state_set(e, w, 1, next);
  }
  mg_gemv_lanes_close(e, w);
  w->n = sends;
}

// Value `i` of the lane (`v`), placed by `at`: row (pos + i) / width,
// column base + (pos + i) mod width.
void mg_gemv_held_value(Emit *e, Warp *w, const HeldAt *at, int64_t i,
                        Name v, Name rc[2]) {
  Name ii, item, c;
  reg_get(e, w, i, v);
  mg_lower_index(e, i, ii);
  mg_lower_index_op(e, "arith.addi", at->pos, ii, item);
  mg_lower_index_op(e, "arith.divui", item, at->width, rc[0]);
  mg_lower_index_op(e, "arith.remui", item, at->width, c);
  mg_lower_index_op(e, "arith.addi", at->base, c, rc[1]);
}

// C[row][col] = v (an f32 sum), rounded to C's element type.
void mg_gemv_store_output(Emit *e, const Gemv *g, const char *row,
                         const char *col, const char *v) {
  const MgTensor *ct = &e->p->graphs[0].tensors[g->c];
  Name x, c0;
  snprintf(x, NAME_LEN, "%s", v);
  if (ct->dtype != MG_DTYPE_F32) {
    mg_lower_fresh(e, x);
    mg_lower_line(e, "%s = arith.truncf %s : f32 to %s", x, v,
                  mg_lower_elt((MgDType)ct->dtype));
  }
  mg_lower_index(e, 0, c0);
  char at[MG_MAX_DIMS * (NAME_LEN + 2)];
  mg_gemv_at2(ct, row, col, c0, at, sizeof at);
  mg_lower_line(e, "memref.store %s, %s[%s] : %s", x, e->val[g->c], at,
                e->type[g->c]);
}

// The CPU form's loop over the blocks (`bid`), opened.
void mg_gemv_cpu_blocks_begin(Emit *e, const Gemv *g, Name bid) {
  Name zero, one, nb;
  mg_lower_index(e, 0, zero);
  mg_lower_index(e, 1, one);
  mg_lower_index(e, g->blocks, nb);
  mg_lower_fresh(e, bid);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", bid, zero, nb, one);
  e->indent++;
}

// Opens a loop of the block's threads striding over `total` items laid
// out in rows of `width`: `rc` gets the item's place (row, column).
void mg_gemv_strided_items_begin(Emit *e, const Gemv *g, const char *tid,
                                 int64_t total, int64_t width, Name rc[2]) {
  Name n, step, idx, wd;
  mg_lower_index(e, total, n);
  mg_lower_index(e, SLICES * g->cg, step);
  mg_lower_fresh(e, idx);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", idx, tid, n, step);
  e->indent++;
  mg_lower_index(e, width, wd);
  mg_lower_index_op(e, "arith.divui", idx, wd, rc[0]);
  mg_lower_index_op(e, "arith.remui", idx, wd, rc[1]);
}

// The CPU form's per-thread buffers (lane values, exchange, positions,
// store flags) and a block-sized scratch `buf` of `buf_type`, allocated
// and freed around the blocks' loop.
static const char *const lane_buf_types[] = {"f32", "f32", "index", "i1"};

void mg_gemv_cpu_buffers_alloc(Emit *e, Warp *w, Name buf,
                              const char *buf_type) {
  int64_t threads = SLICES * w->g->cg;
  Name *names[] = {&w->regs, &w->xchg, &w->posb, &w->flagb};
  snprintf(w->regs_type, sizeof w->regs_type, "memref<%lldx%lldxf32>",
           (long long)threads, (long long)w->n);
  mg_lower_fresh(e, buf);
  mg_lower_line(e, "%s = memref.alloc() : %s", buf, buf_type);
  for (int i = 0; i < 4; i++) {
    mg_lower_fresh(e, *names[i]);
    if (i < 2)
      mg_lower_line(e, "%s = memref.alloc() : %s", *names[i], w->regs_type);
    else
      mg_lower_line(e, "%s = memref.alloc() : memref<%lldx%s>", *names[i],
                    (long long)threads, lane_buf_types[i]);
  }
}

void mg_gemv_cpu_buffers_free(Emit *e, const Warp *w, const char *buf,
                             const char *buf_type) {
  int64_t threads = SLICES * w->g->cg;
  const Name *names[] = {&w->regs, &w->xchg, &w->posb, &w->flagb};
  mg_lower_line(e, "memref.dealloc %s : %s", buf, buf_type);
  for (int i = 0; i < 4; i++)
    if (i < 2)
      mg_lower_line(e, "memref.dealloc %s : %s", *names[i], w->regs_type);
    else
      mg_lower_line(e, "memref.dealloc %s : memref<%lldx%s>", *names[i],
                    (long long)threads, lane_buf_types[i]);
}


// "%r, %c" etc.: A and B may carry leading unit dims.
void mg_gemv_at2(const MgTensor *t, const char *row, const char *col,
                const char *zero, char *out, size_t size) {
  size_t n = 0;
  out[0] = '\0';
  for (uint32_t d = 0; d + 2 < t->rank; d++)
    n += (size_t)snprintf(out + n, size - n, "%s, ", zero);
  snprintf(out + n, size - n, "%s, %s", row, col);
}

// "a, b, c": the first `n` of `names` (the M accumulators' yields).
void mg_gemv_join_names(Name *names, int64_t n, char *out, size_t size) {
  size_t k = 0;
  out[0] = '\0';
  for (int64_t i = 0; i < n && k < size; i++)
    k += (size_t)snprintf(out + k, size - k, "%s%s", i ? ", " : "", names[i]);
}

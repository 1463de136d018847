//===- test_mutation.c - The verifier rejects wrong variants of the samples ===//
//
// Each benchmark sample comes as a pair (reference, equivalent form). Every
// op of each program is mutated in every way the enumerator knows (kind,
// operand order, wiring, maps, accumulator kind (the online one gaining or
// losing its max operand), reduction kind and dim, scalar,
// dropped op, launch shape, an input's layout: another transpose of the
// caller's array, or none; for view ops two entries of a permutation
// swapped, a slice moved by one, concat operands in another order, a
// reshape to another factorisation; for im2col (issue 30) the padding
// moved between top and bottom or left and right, another stride,
// dilation or group count, kh and kw swapped, each with the bottom or
// right padding set to keep the output size where one does); the mutant
// is rebuilt through the builders so its shapes are re-inferred, and
// kept only when it passes mg_program_validate and keeps the pair's
// input/output shapes. A kept
// mutant whose float outputs agree with its partner's within 1e-9 on random
// inputs is genuinely equivalent (e.g. a different for-loop split) and is
// skipped. Every remaining ("real") mutant must not be accepted by
// mg_verify_equivalent against the unmutated partner.
//
// The max ops (issue 12) are compared in the field under a random order, so
// a max over a subset of the right set agrees with probability
// |subset|/|set| per test and output row (docs/verification.md §4a). The
// samples whose max reaches an output have 64 rows: a slice moved by one
// column (7 of 8) then agrees with probability (7/8)^64 ≈ 2e-4 per test,
// and in floats (two draws) (7/8)^128; with 8 rows it escaped the verifier
// for about one seed in eight.
//
//===----------------------------------------------------------------------===//
#include "mirage/samples.h"
#include "mirage/verify.h"
#include "test.h"

#include <string.h>

typedef enum MutKind {
  MUT_KIND,    // another op kind of the same arity
  MUT_SWAP,    // operands 0 and 1 exchanged
  MUT_REWIRE,  // operand `slot` reads another earlier tensor
  MUT_IMAP,    // iterator imap[slot] = value
  MUT_FMAP,    // iterator fmap = value
  MUT_OMAP,    // saver omap[slot] = value
  MUT_ACC,     // accumulator kind = value (into or out of ONLINE: see `with`)
  MUT_ATTR,    // SUM / REDUCE_MAX / CONCAT / SLICE dim = value
  MUT_SCALAR,  // scalar = value
  MUT_DROP,    // op removed, its result replaced by operand `slot`
  MUT_GRID,    // block graph grid[slot] = value
  MUT_FORLOOP, // block graph for-loop range = value
  MUT_LAYOUT,  // root input `op` (its position) read with layout #value
  MUT_PERM,    // transpose perm[slot] and perm[value] exchanged
  MUT_SLICE,   // slice starts at index `value`
  MUT_ORDER,   // concat operands rotated by `value`
  MUT_RESHAPE, // reshape to `dims` of rank `value`
  // im2col parameters = `conv` (slot: the axis, 0 height, 1 width)
  MUT_PAD,      // the top (left) padding moved, or only the bottom (right)
  MUT_STRIDE,   // another stride, or the two strides exchanged (slot 2)
  MUT_DILATION, // another dilation
  MUT_WINDOW,   // kh and kw exchanged (a non-square window)
  MUT_GROUPS,   // another divisor of the channels as the group count
  MUT_COUNT
} MutKind;

typedef struct Mutation {
  MutKind kind;
  uint32_t g, op;
  int32_t slot;
  int64_t value;
  double scalar;
  int64_t dims[MG_MAX_DIMS]; // MUT_RESHAPE
  // MUT_ACC into ONLINE: the old operand becomes operand `slot` (0: the
  // tile, 1: its max) and earlier tensor `with` the other one; out of
  // ONLINE: operand `slot` is kept.
  MgTensorId with;
  MgIm2col conv; // MUT_PAD .. MUT_GROUPS: the mutant's parameters
} Mutation;

typedef struct MutList {
  Mutation *items;
  size_t n, cap;
} MutList;

static void push(MutList *l, Mutation m) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 256;
    l->items = realloc(l->items, l->cap * sizeof *l->items);
    if (!l->items)
      abort();
  }
  l->items[l->n++] = m;
}

static Mutation mut(MutKind kind, uint32_t g, uint32_t op, int32_t slot,
                    int64_t value) {
  Mutation m = {.kind = kind, .g = g, .op = op, .slot = slot, .value = value};
  return m;
}

// Element-wise binary kinds: any of them may replace any other.
static const MgOpKind binary_kinds[] = {MG_OP_ADD, MG_OP_SUB, MG_OP_MUL,
                                        MG_OP_DIV, MG_OP_MAX};
enum { NUM_BINARY = sizeof binary_kinds / sizeof binary_kinds[0] };

static bool is_binary(MgOpKind k) {
  for (int i = 0; i < NUM_BINARY; ++i)
    if (binary_kinds[i] == k)
      return true;
  return false;
}
static bool is_reduction(MgOpKind k) {
  return k == MG_OP_SUM || k == MG_OP_REDUCE_MAX;
}
static bool is_online(const MgOp *op) {
  return op->kind == MG_OP_ACCUM && op->acc == MG_ACCUM_ONLINE;
}
static bool is_unary(MgOpKind k) { return k >= MG_OP_EXP && k <= MG_OP_ERF; }
static bool is_scalar(MgOpKind k) { return mg_op_kind_has_scalar(k); }
// The other scalar kind of k's pair: mul <-> div, max <-> min, add ->
// mul.
static MgOpKind other_scalar(MgOpKind k) {
  switch (k) {
  case MG_OP_MUL_SCALAR: return MG_OP_DIV_SCALAR;
  case MG_OP_DIV_SCALAR: return MG_OP_MUL_SCALAR;
  case MG_OP_MAX_SCALAR: return MG_OP_MIN_SCALAR;
  case MG_OP_ADD_SCALAR: return MG_OP_MUL_SCALAR;
  default: return MG_OP_MAX_SCALAR;
  }
}

// Layouts the mutations try: the identity, the last two dims swapped, the
// first two dims swapped (rank > 2).
static const int8_t *layout(int l, uint32_t rank) {
  static int8_t perm[MG_MAX_DIMS];
  for (uint32_t d = 0; d < rank; ++d)
    perm[d] = (int8_t)d;
  uint32_t a = l == 1 ? rank - 2 : 0, b = a + 1;
  if (l > 0) {
    perm[a] = (int8_t)b;
    perm[b] = (int8_t)a;
  }
  return perm;
}

// Other shapes of rank `rank` with `rest` elements (ordered factorisations
// without unit dims; the caller keeps 8): a reshape that may still fit the
// ops after it but groups the elements otherwise.
static void other_shapes(MutList *out, Mutation *m, uint32_t d, uint32_t rank,
                         int64_t rest, const int64_t *dims) {
  if (d + 1 == rank) {
    m->dims[d] = rest;
    if (memcmp(m->dims, dims, sizeof(int64_t) * rank) != 0)
      push(out, *m);
    return;
  }
  for (int64_t x = 2; x < rest; ++x)
    if (rest % x == 0) {
      m->dims[d] = x;
      other_shapes(out, m, d + 1, rank, rest / x, dims);
    }
}

//===--- im2col: parameters that keep the output size -----------------------===//
//
// An im2col's output size depends on its parameters; the mutants keep it
// where they can, so that the ops after it still fit and only the verifier
// can tell. The bottom (right) padding is the free one: it moves no window,
// it only decides how many fit. So a mutant with another top padding,
// stride, dilation or window gets the smallest bottom padding that gives
// the op's output height again (and alike for the width), and is left out
// when none does. Another bottom padding alone that keeps the height is a
// genuine equivalent (the same patches); the float check finds those and
// the verifier must accept them. When no bottom padding is enough (a
// window or stride that needs less than the top padding already adds),
// the top padding is lowered too, except for the padding mutants, whose
// top padding is the point.

// The windows along one axis of extent `size`.
static int64_t out_axis(int64_t size, int64_t lo, int64_t hi, int64_t k,
                        int64_t s, int64_t d) {
  int64_t e = size + lo + hi - d * (k - 1) - 1;
  return e < 0 ? 0 : e / s + 1;
}

typedef struct ConvAxis {
  int64_t *k, *s, *d, *lo, *hi;
} ConvAxis;

static ConvAxis conv_axis(MgIm2col *c, int axis) {
  ConvAxis a = {&c->kh, &c->sh, &c->dh, &c->pad_top, &c->pad_bottom};
  if (axis == 1)
    a = (ConvAxis){&c->kw, &c->sw, &c->dw, &c->pad_left, &c->pad_right};
  return a;
}

// Sets `c`'s bottom / right padding (and, with `lower_top`, lowers its top
// / left one) so that both axes give the op's output size (`want`, over
// extents `size`) again: false when no padding does.
static bool keep_size(MgIm2col *c, const int64_t size[2],
                      const int64_t want[2], bool lower_top) {
  for (int axis = 0; axis < 2; ++axis) {
    ConvAxis a = conv_axis(c, axis);
    if (out_axis(size[axis], *a.lo, *a.hi, *a.k, *a.s, *a.d) == want[axis])
      continue;
    // Past this the padding alone holds want + 1 windows.
    int64_t limit = want[axis] * *a.s + *a.k * *a.d;
    bool found = false;
    for (int64_t lo = *a.lo; !found && lo >= (lower_top ? 0 : *a.lo); --lo)
      for (int64_t hi = 0; !found && hi <= limit; ++hi)
        if (out_axis(size[axis], lo, hi, *a.k, *a.s, *a.d) == want[axis]) {
          *a.lo = lo;
          *a.hi = hi;
          found = true;
        }
    if (!found)
      return false;
  }
  return true;
}

static void push_conv(MutList *out, MutKind kind, uint32_t g, uint32_t i,
                      int32_t slot, int64_t value, MgIm2col c,
                      const int64_t size[2], const int64_t want[2]) {
  if (!keep_size(&c, size, want, kind != MUT_PAD))
    return;
  Mutation m = mut(kind, g, i, slot, value);
  m.conv = c;
  push(out, m);
}

static void enumerate_im2col(const MgGraph *gr, uint32_t g, uint32_t i,
                             MutList *out) {
  const MgOp *op = &gr->ops[i];
  const MgTensor *x = &gr->tensors[op->inputs[0]];
  const MgIm2col c0 = mg_op_im2col(op);
  int64_t size[2] = {x->dims[1], x->dims[2]}, want[2];
  mg_im2col_out_hw(&c0, size[0], size[1], &want[0], &want[1]);
  for (int axis = 0; axis < 2; ++axis) {
    MgIm2col c = c0;
    ConvAxis a = conv_axis(&c, axis);
    const int64_t lo = *a.lo, hi = *a.hi, s = *a.s, d = *a.d;
    // The top padding moved by one, the bottom one taking up the
    // difference (or what keeps the size).
    for (int64_t delta = -1; delta <= 1; delta += 2) {
      if (lo + delta < 0)
        continue;
      *a.lo = lo + delta;
      *a.hi = hi - delta < 0 ? 0 : hi - delta;
      push_conv(out, MUT_PAD, g, i, axis, *a.lo, c, size, want);
    }
    // Only the bottom padding: the same windows while the size holds.
    *a.lo = lo;
    for (int64_t h = 0; h <= hi + s; ++h)
      if (h != hi &&
          out_axis(size[axis], lo, h, *a.k, s, d) == want[axis]) {
        *a.hi = h;
        push_conv(out, MUT_PAD, g, i, axis, lo, c, size, want);
      }
    *a.hi = hi;
    for (int64_t delta = -1; delta <= 1; delta += 2) {
      if (s + delta >= 1) {
        *a.s = s + delta;
        push_conv(out, MUT_STRIDE, g, i, axis, *a.s, c, size, want);
        *a.s = s;
      }
      if (d + delta >= 1) {
        *a.d = d + delta;
        push_conv(out, MUT_DILATION, g, i, axis, *a.d, c, size, want);
        *a.d = d;
      }
    }
  }
  if (c0.sh != c0.sw) {
    MgIm2col c = c0;
    c.sh = c0.sw, c.sw = c0.sh;
    push_conv(out, MUT_STRIDE, g, i, 2, c.sh, c, size, want);
  }
  if (c0.kh != c0.kw) {
    MgIm2col c = c0;
    c.kh = c0.kw, c.kw = c0.kh;
    push_conv(out, MUT_WINDOW, g, i, 0, c.kh, c, size, want);
  }
  // Groups: the patches' shape changes, (G, M, K/G); the ops after it
  // decide whether it still fits (a reshape of the patches does).
  for (int32_t gs = 1; gs <= x->dims[3]; ++gs)
    if (gs != c0.groups && x->dims[3] % gs == 0) {
      MgIm2col c = c0;
      c.groups = gs;
      push_conv(out, MUT_GROUPS, g, i, 0, gs, c, size, want);
    }
}

static void enumerate_view(const MgGraph *gr, uint32_t g, uint32_t i,
                           MutList *out) {
  const MgOp *op = &gr->ops[i];
  const MgTensor *in = &gr->tensors[op->inputs[0]];
  switch ((MgOpKind)op->kind) {
  case MG_OP_TRANSPOSE:
    for (uint32_t a = 0; a < in->rank; ++a)
      for (uint32_t b = a + 1; b < in->rank; ++b)
        push(out, mut(MUT_PERM, g, i, (int32_t)a, b));
    break;
  case MG_OP_SLICE:
    for (int64_t delta = -1; delta <= 1; delta += 2) {
      int64_t first = op->shape[0] + delta;
      if (first >= 0 && first + op->shape[1] <= in->dims[op->attr])
        push(out, mut(MUT_SLICE, g, i, 0, first));
    }
    for (int32_t d = 0; d < (int32_t)in->rank; ++d)
      if (d != op->attr)
        push(out, mut(MUT_ATTR, g, i, 0, d));
    break;
  case MG_OP_RESHAPE: {
    Mutation m = mut(MUT_RESHAPE, g, i, 0, op->attr);
    size_t before = out->n;
    other_shapes(out, &m, 0, (uint32_t)op->attr, mg_tensor_numel(in),
                 op->shape);
    if (out->n > before + 8)
      out->n = before + 8;
    break;
  }
  case MG_OP_IM2COL: // its drop below puts rank 4 for 3: never kept
    enumerate_im2col(gr, g, i, out);
    break;
  default: // kernel-level concat
    for (int64_t k = 1; k < op->num_inputs; ++k)
      push(out, mut(MUT_ORDER, g, i, 0, k));
    return;
  }
  push(out, mut(MUT_DROP, g, i, 0, 0));
}

// Every other accumulator kind. The online one takes two operands (tile,
// max): into it, the old operand is either one and any earlier tensor the
// other (shapes that do not broadcast are unbuildable); out of it, either
// operand is kept. Dropping it passes either operand through.
static void enumerate_accum(const MgOp *op, uint32_t g, uint32_t i,
                            MutList *out) {
  bool online = is_online(op);
  for (int a = 0; a < MG_ACCUM_COUNT; ++a) {
    if (a == op->acc)
      continue;
    if (online) {
      for (int32_t s = 0; s < 2; ++s)
        push(out, mut(MUT_ACC, g, i, s, a));
    } else if (a != MG_ACCUM_ONLINE) {
      push(out, mut(MUT_ACC, g, i, 0, a));
    } else {
      for (int32_t s = 0; s < 2; ++s)
        for (MgTensorId t = 0; t < op->outputs[0]; ++t)
          if (s == 0 || t != op->inputs[0]) { // online(x, x) once
            Mutation m = mut(MUT_ACC, g, i, s, a);
            m.with = t;
            push(out, m);
          }
    }
  }
  push(out, mut(MUT_DROP, g, i, 0, 0));
  if (online)
    push(out, mut(MUT_DROP, g, i, 1, 0));
}

static void enumerate(const MgProgram *p, MutList *out) {
  for (uint32_t g = 0; g < p->num_graphs; ++g) {
    const MgGraph *gr = &p->graphs[g];
    if (gr->level == MG_LEVEL_BLOCK) {
      for (int32_t a = 0; a < 3; ++a) {
        int64_t alts[3] = {1, gr->grid[a] * 2, gr->grid[a] / 2};
        for (int k = 0; k < 3; ++k)
          if (alts[k] >= 1 && alts[k] != gr->grid[a])
            push(out, mut(MUT_GRID, g, 0, a, alts[k]));
      }
      int64_t alts[3] = {1, gr->forloop * 2, gr->forloop / 2};
      for (int k = 0; k < 3; ++k)
        if (alts[k] >= 1 && alts[k] != gr->forloop)
          push(out, mut(MUT_FORLOOP, g, 0, 0, alts[k]));
    }
    for (uint32_t i = 0; i < gr->num_ops; ++i) {
      const MgOp *op = &gr->ops[i];
      MgOpKind k = (MgOpKind)op->kind;
      if (k == MG_OP_INPUT) {
        // Every other layout of a root input of rank >= 2 (a mutant that
        // changes the logical shape is dropped as reshaped).
        int8_t perm[MG_MAX_DIMS];
        uint32_t rank = gr->tensors[op->outputs[0]].rank;
        mg_op_input_perm(op, rank, perm);
        for (int l = 0; g == 0 && rank >= 2 && l < (rank > 2 ? 3 : 2); ++l)
          if (memcmp(layout(l, rank), perm, rank) != 0)
            push(out, mut(MUT_LAYOUT, g, (uint32_t)op->attr, 0, l));
        continue;
      }
      // Wrong input wired: any earlier tensor in any operand slot.
      MgTensorId first_out = op->outputs[0];
      for (int32_t s = 0; s < op->num_inputs; ++s)
        for (MgTensorId t = 0; t < first_out; ++t)
          if (t != op->inputs[s])
            push(out, mut(MUT_REWIRE, g, i, s, t));
      if (mg_op_is_view(op, (MgLevel)gr->level)) {
        enumerate_view(gr, g, i, out);
        if (k != MG_OP_CONCAT)
          continue;
      }
      // The online accumulator's (tile, max) swapped too: Σ m·exp(x − M).
      if (is_binary(k) || k == MG_OP_MATMUL || is_online(op))
        push(out, mut(MUT_SWAP, g, i, 0, 0));
      if (is_binary(k)) {
        for (int b = 0; b < NUM_BINARY; ++b)
          if (binary_kinds[b] != k)
            push(out, mut(MUT_KIND, g, i, 0, binary_kinds[b]));
        push(out, mut(MUT_DROP, g, i, 0, 0));
        push(out, mut(MUT_DROP, g, i, 1, 0));
      }
      if (is_unary(k)) {
        for (int kk = MG_OP_EXP; kk <= MG_OP_ERF; ++kk)
          if (kk != (int)k)
            push(out, mut(MUT_KIND, g, i, 0, kk));
        push(out, mut(MUT_DROP, g, i, 0, 0));
      }
      if (is_scalar(k)) {
        push(out, mut(MUT_KIND, g, i, 0, other_scalar(k)));
        double alts[3] = {op->scalar * 2, op->scalar + 1, -op->scalar};
        for (int a = 0; a < 3; ++a) {
          Mutation m = mut(MUT_SCALAR, g, i, 0, 0);
          m.scalar = alts[a];
          push(out, m);
        }
        push(out, mut(MUT_DROP, g, i, 0, 0));
      }
      if (is_reduction(k) || k == MG_OP_CONCAT) {
        for (int32_t d = 0; d < MG_MAX_DIMS; ++d)
          if (d != op->attr)
            push(out, mut(MUT_ATTR, g, i, 0, d));
      }
      if (is_reduction(k)) {
        push(out, mut(MUT_KIND, g, i, 0,
                      k == MG_OP_SUM ? MG_OP_REDUCE_MAX : MG_OP_SUM));
        push(out, mut(MUT_DROP, g, i, 0, 0));
      }
      if (k == MG_OP_ACCUM)
        enumerate_accum(op, g, i, out);
      if (k == MG_OP_ITERATOR || k == MG_OP_SAVER) {
        const int8_t *map = k == MG_OP_ITERATOR ? op->imap : op->omap;
        MutKind mk = k == MG_OP_ITERATOR ? MUT_IMAP : MUT_OMAP;
        for (int32_t a = 0; a < 3; ++a)
          for (int v = MG_MAP_NONE; v < MG_MAX_DIMS; ++v)
            if (v != map[a])
              push(out, mut(mk, g, i, a, v));
        if (k == MG_OP_ITERATOR)
          for (int v = MG_MAP_NONE; v < MG_MAX_DIMS; ++v)
            if (v != op->fmap)
              push(out, mut(MUT_FMAP, g, i, 0, v));
      }
    }
  }
}

//===--- Rebuilding a (mutated) program through the builders --------------===//

static bool rebuild_graph(MgProgram *p, const MgProgram *src, MgGraphId g,
                          const Mutation *mu) {
  const MgGraph *gr = &src->graphs[g];
  MgTensorId *map = malloc((gr->num_tensors + 1) * sizeof *map);
  if (!map)
    return false;
  for (uint32_t t = 0; t < gr->num_tensors; ++t)
    map[t] = MG_NO_ID;
  bool ok = true;
  for (uint32_t i = 0; ok && i < gr->num_ops; ++i) {
    MgOp op = gr->ops[i];
    if (mu && mu->g == g && mu->op == i) {
      switch (mu->kind) {
      case MUT_KIND: op.kind = (uint8_t)mu->value; break;
      case MUT_SWAP: {
        MgTensorId t = op.inputs[0];
        op.inputs[0] = op.inputs[1];
        op.inputs[1] = t;
        break;
      }
      case MUT_REWIRE: op.inputs[mu->slot] = (MgTensorId)mu->value; break;
      case MUT_IMAP: op.imap[mu->slot] = (int8_t)mu->value; break;
      case MUT_FMAP: op.fmap = (int8_t)mu->value; break;
      case MUT_OMAP: op.omap[mu->slot] = (int8_t)mu->value; break;
      case MUT_ACC:
        if (is_online(&op)) { // out of ONLINE: keep operand `slot`
          op.inputs[0] = op.inputs[mu->slot];
          op.num_inputs = 1;
        } else if (mu->value == MG_ACCUM_ONLINE) {
          MgTensorId t = op.inputs[0];
          op.inputs[mu->slot] = t;
          op.inputs[1 - mu->slot] = mu->with;
          op.num_inputs = 2;
        }
        op.acc = (uint8_t)mu->value;
        break;
      case MUT_ATTR: op.attr = (int32_t)mu->value; break;
      case MUT_SCALAR: op.scalar = mu->scalar; break;
      case MUT_PERM: {
        int8_t t = op.perm[mu->slot];
        op.perm[mu->slot] = op.perm[mu->value];
        op.perm[mu->value] = t;
        break;
      }
      case MUT_SLICE: op.shape[0] = mu->value; break;
      case MUT_ORDER:
        for (uint32_t j = 0; j < op.num_inputs; ++j)
          op.inputs[j] =
              gr->ops[i].inputs[(j + (uint32_t)mu->value) % op.num_inputs];
        break;
      case MUT_RESHAPE:
        op.attr = (int32_t)mu->value;
        memcpy(op.shape, mu->dims, sizeof op.shape);
        break;
      case MUT_PAD: case MUT_STRIDE: case MUT_DILATION: case MUT_WINDOW:
      case MUT_GROUPS:
        mg_op_set_im2col(&op, &mu->conv);
        break;
      case MUT_DROP:
        map[op.outputs[0]] = map[op.inputs[mu->slot]];
        continue;
      default: break;
      }
    }
    for (uint32_t j = 0; ok && j < op.num_inputs; ++j) {
      ok = op.inputs[j] < gr->num_tensors && map[op.inputs[j]] != MG_NO_ID;
      if (ok)
        op.inputs[j] = map[op.inputs[j]];
    }
    if (!ok)
      break;
    if (op.kind == MG_OP_INPUT) {
      const MgTensor *t = &gr->tensors[op.outputs[0]];
      map[op.outputs[0]] =
          mg_graph_add_input(p, g, (MgDType)t->dtype, t->rank, t->dims, NULL);
      ok = map[op.outputs[0]] != MG_NO_ID;
    } else {
      MgTensorId outs[MG_MAX_OP_OUTPUTS];
      uint32_t n = op.num_outputs;
      ok = mg_graph_add_op(p, g, &op, outs, NULL) != MG_NO_ID;
      for (uint32_t k = 0; ok && k < n; ++k)
        map[gr->ops[i].outputs[k]] = outs[k];
    }
  }
  for (uint32_t k = 0; ok && k < gr->num_outputs; ++k) {
    MgTensorId t = map[gr->outputs[k]];
    ok = t != MG_NO_ID && mg_graph_mark_output(p, g, t, NULL) == MG_STATUS_OK;
  }
  free(map);
  return ok;
}

// A copy of `src` with `mu` applied (NULL: none), or NULL when a builder
// rejects it.
static MgProgram *rebuild(const MgProgram *src, const Mutation *mu) {
  MgProgram *p = mg_program_create();
  bool ok = p != NULL;
  for (uint32_t g = 0; ok && g < src->num_graphs; ++g) {
    const MgGraph *gr = &src->graphs[g];
    ok = mg_program_add_graph(p, (MgLevel)gr->level) == g;
    if (ok && gr->level == MG_LEVEL_BLOCK) {
      int32_t grid[3] = {gr->grid[0], gr->grid[1], gr->grid[2]};
      int32_t forloop = gr->forloop;
      if (mu && mu->g == g && mu->kind == MUT_GRID)
        grid[mu->slot] = (int32_t)mu->value;
      if (mu && mu->g == g && mu->kind == MUT_FORLOOP)
        forloop = (int32_t)mu->value;
      ok = mg_graph_set_launch(p, g, grid, gr->block_threads, forloop,
                               NULL) == MG_STATUS_OK;
    }
  }
  // Callees first: thread graphs, then block graphs, then kernel graphs.
  for (int level = MG_LEVEL_THREAD; ok && level >= MG_LEVEL_KERNEL; --level)
    for (uint32_t g = 0; ok && g < src->num_graphs; ++g)
      if (src->graphs[g].level == level)
        ok = rebuild_graph(p, src, g, mu);
  // Layouts last: the root inputs' (one maybe mutated), then the block
  // graphs' from what their custom ops pass.
  const MgGraph *sr = &src->graphs[0];
  for (uint32_t i = 0; ok && i < sr->num_ops; ++i) {
    const MgOp *op = &sr->ops[i];
    if (op->kind != MG_OP_INPUT)
      continue;
    uint32_t rank = sr->tensors[op->outputs[0]].rank;
    int8_t perm[MG_MAX_DIMS];
    mg_op_input_perm(op, rank, perm);
    const int8_t *want = perm;
    if (mu && mu->kind == MUT_LAYOUT && mu->op == (uint32_t)op->attr)
      want = layout((int)mu->value, rank);
    MgGraph *r = &p->graphs[0];
    const MgTensor *t = mg_graph_input_tensor(r, (uint32_t)op->attr);
    ok = t && mg_graph_set_input_perm(p, 0, r->ops[t->producer].outputs[0],
                                      want, NULL) == MG_STATUS_OK;
  }
  ok = ok && mg_program_copy_layouts(p, p, NULL) == MG_STATUS_OK;
  if (!ok) {
    mg_program_destroy(p);
    return NULL;
  }
  return p;
}

//===--- Float reference --------------------------------------------------===//

typedef struct Signature {
  uint32_t num_inputs, num_outputs;
  int64_t in_numel[8], out_numel[8];
  int64_t in_dims[8][MG_MAX_DIMS], out_dims[8][MG_MAX_DIMS];
  uint8_t in_rank[8], out_rank[8];
} Signature;

static bool signature(const MgProgram *p, Signature *s) {
  memset(s, 0, sizeof *s);
  const MgGraph *g = &p->graphs[0];
  if (g->num_inputs > 8 || g->num_outputs > 8)
    return false;
  s->num_inputs = g->num_inputs;
  s->num_outputs = g->num_outputs;
  for (uint32_t i = 0; i < g->num_ops; ++i)
    if (g->ops[i].kind == MG_OP_INPUT) {
      const MgTensor *t = &g->tensors[g->ops[i].outputs[0]];
      uint32_t at = (uint32_t)g->ops[i].attr;
      s->in_rank[at] = t->rank;
      // The caller's array: a layout that changes it changes the signature.
      mg_graph_stored_dims(g, g->ops[i].outputs[0], s->in_dims[at]);
      s->in_numel[at] = mg_tensor_numel(t);
    }
  for (uint32_t k = 0; k < g->num_outputs; ++k) {
    const MgTensor *t = &g->tensors[g->outputs[k]];
    s->out_rank[k] = t->rank;
    memcpy(s->out_dims[k], t->dims, sizeof t->dims);
    s->out_numel[k] = mg_tensor_numel(t);
  }
  return true;
}

static bool same_signature(const Signature *a, const Signature *b) {
  if (a->num_inputs != b->num_inputs || a->num_outputs != b->num_outputs)
    return false;
  for (uint32_t i = 0; i < a->num_inputs; ++i)
    if (a->in_rank[i] != b->in_rank[i] ||
        memcmp(a->in_dims[i], b->in_dims[i],
               sizeof(int64_t) * a->in_rank[i]) != 0)
      return false;
  for (uint32_t k = 0; k < a->num_outputs; ++k)
    if (a->out_rank[k] != b->out_rank[k] ||
        memcmp(a->out_dims[k], b->out_dims[k],
               sizeof(int64_t) * a->out_rank[k]) != 0)
      return false;
  return true;
}

#define FLOAT_TRIALS 2

// Runs `p` in the float interpreter on FLOAT_TRIALS fixed random input sets
// (uniform in [-1, 1]); `out` receives the concatenated outputs.
static bool run_float(const MgProgram *p, const Signature *s, double *out) {
  MgRng rng = {2024};
  size_t at = 0;
  for (int trial = 0; trial < FLOAT_TRIALS; ++trial) {
    double *in[8] = {0};
    double *res[8] = {0};
    bool ok = true;
    for (uint32_t i = 0; i < s->num_inputs; ++i) {
      in[i] = malloc(sizeof(double) * (size_t)s->in_numel[i]);
      ok = ok && in[i];
      for (int64_t e = 0; ok && e < s->in_numel[i]; ++e)
        in[i][e] = (double)(mg_rng_next(&rng) >> 11) * 0x1p-52 - 1.0;
    }
    for (uint32_t k = 0; ok && k < s->num_outputs; ++k) {
      res[k] = out + at;
      at += (size_t)s->out_numel[k];
    }
    // The same caller arrays for every program: each reads them through
    // its own layouts.
    ok = ok && mg_interp_stored_to_logical(p, in) &&
         mg_interp_run_f64(p, (const double *const *)in,
                           (double *const *)res, NULL) == MG_STATUS_OK;
    for (uint32_t i = 0; i < s->num_inputs; ++i)
      free(in[i]);
    if (!ok)
      return false;
  }
  return true;
}

static size_t total_outputs(const Signature *s) {
  size_t n = 0;
  for (uint32_t k = 0; k < s->num_outputs; ++k)
    n += (size_t)s->out_numel[k];
  return n * FLOAT_TRIALS;
}

static bool agree(const double *a, const double *b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (isnan(a[i]) || isnan(b[i])) {
      if (!(isnan(a[i]) && isnan(b[i])))
        return false;
      continue;
    }
    if (a[i] == b[i])
      continue; // also equal infinities
    if (isinf(a[i]) || isinf(b[i]))
      return false; // the relative tolerance below would be infinite
    double scale = fabs(a[i]) > fabs(b[i]) ? fabs(a[i]) : fabs(b[i]);
    if (!(fabs(a[i] - b[i]) <= 1e-9 * (scale > 1 ? scale : 1)))
      return false;
  }
  return true;
}

//===--- The suite ---------------------------------------------------------===//

// What a mutation does to the max ops (issue 12), for the coverage counts.
typedef enum MaxMut {
  MAXMUT_NONE,
  MAXMUT_KIND,   // maximum / reduce_max into or out of an op's kind
  MAXMUT_DIM,    // reduce_max over another dim
  MAXMUT_ACC,    // a MAX or ONLINE accumulator into or out of another kind
  MAXMUT_SWAP,   // maximum's or online's operands exchanged
  MAXMUT_DROP,   // maximum, reduce_max, a max accumulator or x − max dropped
  MAXMUT_REWIRE, // maximum, reduce_max or online's max reading another tensor
  MAXMUT_BOUND,  // max_scalar's or min_scalar's constant changed
  MAXMUT_COUNT
} MaxMut;

static const char *const max_mut_names[MAXMUT_COUNT] = {
    "", "kind", "reduce dim", "accumulator", "swap", "drop", "rewire",
    "bound"};

static bool is_max(const MgOp *op) {
  return mg_op_kind_is_order((MgOpKind)op->kind) ||
         (op->kind == MG_OP_ACCUM && op->acc == MG_ACCUM_MAX);
}

static MaxMut classify(const MgProgram *p, const Mutation *mu) {
  if (mu->kind == MUT_GRID || mu->kind == MUT_FORLOOP ||
      mu->kind == MUT_LAYOUT)
    return MAXMUT_NONE;
  const MgGraph *gr = &p->graphs[mu->g];
  const MgOp *op = &gr->ops[mu->op];
  switch (mu->kind) {
  case MUT_KIND:
    return is_max(op) || mg_op_kind_is_order((MgOpKind)mu->value)
               ? MAXMUT_KIND
               : MAXMUT_NONE;
  case MUT_SCALAR:
    return is_max(op) ? MAXMUT_BOUND : MAXMUT_NONE;
  case MUT_ATTR:
    return op->kind == MG_OP_REDUCE_MAX ? MAXMUT_DIM : MAXMUT_NONE;
  case MUT_ACC:
    return is_max(op) || is_online(op) || mu->value == MG_ACCUM_MAX ||
                   mu->value == MG_ACCUM_ONLINE
               ? MAXMUT_ACC
               : MAXMUT_NONE;
  case MUT_SWAP:
    return op->kind == MG_OP_MAX || is_online(op) ? MAXMUT_SWAP : MAXMUT_NONE;
  case MUT_DROP: {
    // The sub of a guard: its subtrahend is a max.
    bool guard = op->kind == MG_OP_SUB &&
                 is_max(&gr->ops[gr->tensors[op->inputs[1]].producer]);
    return is_max(op) || is_online(op) || guard ? MAXMUT_DROP : MAXMUT_NONE;
  }
  case MUT_REWIRE:
    return is_max(op) || (is_online(op) && mu->slot == 1) ? MAXMUT_REWIRE
                                                          : MAXMUT_NONE;
  default:
    return MAXMUT_NONE;
  }
}

typedef struct Tally {
  size_t candidates, unbuildable, invalid, reshaped, float_failed;
  size_t equivalent, equivalent_accepted, real, not_equivalent, invalid_verdict, unknown, accepted;
  size_t real_of[MUT_COUNT]; // real mutants per mutation kind
  size_t equivalent_of[MUT_COUNT]; // genuine equivalents per kind
  // Mutants of the max ops: real ones, and genuine equivalents among them.
  size_t max_real[MAXMUT_COUNT], max_equivalent[MAXMUT_COUNT];
  // Genuine equivalents of a program whose exps are all guarded that lose
  // a guard: the field cannot see overflow, mg_verify_keeps_stability can.
  size_t equivalent_unstable;
} Tally;

static void tally_add(Tally *t, const Tally *s) {
  t->candidates += s->candidates;
  t->unbuildable += s->unbuildable;
  t->invalid += s->invalid;
  t->reshaped += s->reshaped;
  t->float_failed += s->float_failed;
  t->equivalent += s->equivalent;
  t->equivalent_accepted += s->equivalent_accepted;
  t->real += s->real;
  t->not_equivalent += s->not_equivalent;
  t->invalid_verdict += s->invalid_verdict;
  t->unknown += s->unknown;
  t->accepted += s->accepted;
  for (int k = 0; k < MUT_COUNT; ++k) {
    t->real_of[k] += s->real_of[k];
    t->equivalent_of[k] += s->equivalent_of[k];
  }
  for (int c = 0; c < MAXMUT_COUNT; ++c) {
    t->max_real[c] += s->max_real[c];
    t->max_equivalent[c] += s->max_equivalent[c];
  }
  t->equivalent_unstable += s->equivalent_unstable;
}

static void report(const char *name, const char *what, const Mutation *mu) {
  fprintf(stderr,
          "%s: %s: kind %d graph %u op %u slot %d value %lld scalar %g "
          "with %u\n",
          name, what, mu->kind, mu->g, mu->op, mu->slot, (long long)mu->value,
          mu->scalar, mu->with);
  if (mu->kind >= MUT_PAD && mu->kind <= MUT_GROUPS) {
    const MgIm2col *c = &mu->conv;
    fprintf(stderr,
            "  im2col groups %d window %lldx%lld stride %lldx%lld dilation "
            "%lldx%lld pads t%lld b%lld l%lld r%lld\n",
            c->groups, (long long)c->kh, (long long)c->kw, (long long)c->sh,
            (long long)c->sw, (long long)c->dh, (long long)c->dw,
            (long long)c->pad_top, (long long)c->pad_bottom,
            (long long)c->pad_left, (long long)c->pad_right);
  }
}

// Mutates every op of `subject` and compares each real mutant with
// `partner` (an unmutated program equivalent to `subject`).
static void mutate_against(const char *name, const MgProgram *subject,
                           const MgProgram *partner, Tally *t) {
  Signature sig, msig;
  CHECK(signature(partner, &sig));
  size_t n = total_outputs(&sig);
  double *want = malloc(sizeof(double) * n);
  double *got = malloc(sizeof(double) * n);
  CHECK(want && got);
  CHECK(run_float(partner, &sig, want));
  // The rebuild machinery is faithful: no mutation, same program.
  MgProgram *copy = rebuild(subject, NULL);
  CHECK(copy && mg_program_equal(copy, subject));
  MgVerifyOptions opt = mg_verify_options_default();
  MgVerifyResult base;
  CHECK_EQ_INT(mg_verify_equivalent(partner, copy, &opt, &base, NULL),
               MG_STATUS_OK);
  CHECK_EQ_INT(base.verdict, MG_VERDICT_EQUIVALENT);
  mg_program_destroy(copy);
  MgStability stab;
  CHECK_EQ_INT(mg_verify_stability(subject, &stab, NULL), MG_STATUS_OK);
  MutList list = {0};
  enumerate(subject, &list);
  for (size_t i = 0; i < list.n; ++i) {
    t->candidates++;
    MaxMut cls = classify(subject, &list.items[i]);
    MgProgram *m = rebuild(subject, &list.items[i]);
    if (!m) {
      t->unbuildable++;
      continue;
    }
    if (mg_program_validate(m, NULL, NULL) != MG_STATUS_OK) {
      t->invalid++;
    } else if (!signature(m, &msig) || !same_signature(&sig, &msig)) {
      t->reshaped++;
    } else if (!run_float(m, &sig, got)) {
      t->float_failed++;
    } else if (agree(want, got, n)) {
      // Genuinely equivalent (e.g. another for-loop split): the verifier
      // must not reject these either (no false rejections).
      t->equivalent++;
      t->equivalent_of[list.items[i].kind]++;
      t->max_equivalent[cls]++;
      MgVerifyResult r;
      if (mg_verify_equivalent(partner, m, &opt, &r, NULL) == MG_STATUS_OK &&
          r.verdict == MG_VERDICT_EQUIVALENT)
        t->equivalent_accepted++;
      else
        report(name, "equivalent mutant rejected", &list.items[i]);
      MgStability ms;
      if (mg_verify_stability(m, &ms, NULL) == MG_STATUS_OK &&
          !mg_verify_keeps_stability(&stab, &ms))
        t->equivalent_unstable++;
    } else {
      t->real++;
      t->real_of[list.items[i].kind]++;
      t->max_real[cls]++;
      MgVerifyResult r;
      MgDiag diag;
      memset(&diag, 0, sizeof diag);
      MgStatus st = mg_verify_equivalent(partner, m, &opt, &r, &diag);
      if (st != MG_STATUS_OK)
        t->invalid_verdict++;
      else if (r.verdict == MG_VERDICT_NOT_EQUIVALENT)
        t->not_equivalent++;
      else if (r.verdict == MG_VERDICT_UNKNOWN)
        t->unknown++;
      else {
        t->accepted++;
        report(name, "mutant accepted", &list.items[i]);
      }
    }
    mg_program_destroy(m);
  }
  free(list.items);
  free(want);
  free(got);
}

// Mutates both programs of a pair; prints the pair's counts and adds them
// to `t`.
static void mutate_pair(const char *name, MgProgram *ref, MgProgram *alt,
                        Tally *t) {
  Tally s;
  memset(&s, 0, sizeof s);
  CHECK(ref != NULL && alt != NULL);
  if (ref && alt) {
    mutate_against(name, alt, ref, &s);
    mutate_against(name, ref, alt, &s);
  }
  mg_program_destroy(ref);
  mg_program_destroy(alt);
  size_t max_real = 0;
  for (int c = MAXMUT_NONE + 1; c < MAXMUT_COUNT; ++c)
    max_real += s.max_real[c];
  printf("  %-16s %5zu tried, %4zu real (%zu of the max ops), %3zu "
         "equivalent in floats, %zu escapes\n",
         name, s.candidates, s.real, max_real, s.equivalent, s.accepted);
  tally_add(t, &s);
}

// `p` with root inputs `which` (a bit per position) read as transposed
// views of the caller's arrays (last two dims swapped), as nn.Linear's
// weights are; block graphs follow.
static MgProgram *with_layouts(MgProgram *p, uint32_t which) {
  MgGraph *r = &p->graphs[0];
  for (uint32_t i = 0; i < r->num_ops; ++i) {
    const MgOp *op = &r->ops[i];
    if (op->kind != MG_OP_INPUT || !(which >> op->attr & 1))
      continue;
    uint32_t rank = r->tensors[op->outputs[0]].rank;
    CHECK_EQ_INT(mg_graph_set_input_perm(p, 0, op->outputs[0],
                                         layout(1, rank), NULL),
                 MG_STATUS_OK);
  }
  CHECK_EQ_INT(mg_program_copy_layouts(p, p, NULL), MG_STATUS_OK);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

//===--- A program with views: RoPE's rotate-half ---------------------------===//
//
// x(S,H,D) = (4,4,4), cos and sin (S,1,D) broadcast over the heads:
// y = x·cos + rotate_half(x)·sin, rotate_half(x) = (-x[..., D/2:], x[..., :D/2]),
// returned as (D, S·H). Every extent is 4 so that a wrong permutation or
// slice dim keeps the shapes and only the verifier can tell. The reference
// rotates (S,H,D) and regroups through a (16,4) reshape and its transpose;
// the other form transposes x, cos and sin to (H,S,D) first, negates
// before slicing, adds in the other order and leaves through one 3-d
// transpose.

static MgTensorId v_ok(MgTensorId t) {
  CHECK(t != MG_NO_ID);
  return t;
}

static MgTensorId v_tr(MgProgram *p, MgTensorId a, int8_t p0, int8_t p1,
                       int8_t p2) {
  return v_ok(mg_graph_transpose(p, 0, a, (const int8_t[]){p0, p1, p2},
                                 NULL));
}

static MgTensorId v_rs(MgProgram *p, MgTensorId a, int64_t d0, int64_t d1) {
  return v_ok(mg_graph_reshape(p, 0, a, 2, (const int64_t[]){d0, d1}, NULL));
}

static MgTensorId v_bin(MgProgram *p, MgOpKind k, MgTensorId a,
                        MgTensorId b) {
  return v_ok(mg_graph_binary(p, 0, k, a, b, NULL));
}

static MgTensorId v_half(MgProgram *p, MgTensorId a, bool high) {
  return v_ok(mg_graph_slice(p, 0, a, (MgSlice){2, high ? 2 : 0, 2}, NULL));
}

static MgProgram *rope_inputs(MgTensorId *x, MgTensorId *c, MgTensorId *s) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  const int64_t dx[3] = {4, 4, 4}, dc[3] = {4, 1, 4};
  *x = mg_graph_add_input(p, 0, MG_DTYPE_F32, 3, dx, NULL);
  *c = mg_graph_add_input(p, 0, MG_DTYPE_F32, 3, dc, NULL);
  *s = mg_graph_add_input(p, 0, MG_DTYPE_F32, 3, dc, NULL);
  return p;
}

static MgProgram *rope_reference(void) {
  MgTensorId x, c, s;
  MgProgram *p = rope_inputs(&x, &c, &s);
  MgTensorId neg = v_ok(mg_graph_scalar(p, 0, MG_OP_MUL_SCALAR,
                                        v_half(p, x, true), -1.0, NULL));
  MgTensorId rot = v_ok(mg_graph_concat(p, 0, neg, v_half(p, x, false), 2,
                                        NULL));
  MgTensorId y = v_bin(p, MG_OP_ADD, v_bin(p, MG_OP_MUL, x, c),
                       v_bin(p, MG_OP_MUL, rot, s));
  MgTensorId ft = v_ok(mg_graph_transpose(p, 0, v_rs(p, y, 16, 4),
                                          (const int8_t[]){1, 0}, NULL));
  mg_graph_mark_output(p, 0, v_rs(p, ft, 4, 16), NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

static MgProgram *rope_heads_first(void) {
  MgTensorId x, c, s;
  MgProgram *p = rope_inputs(&x, &c, &s);
  MgTensorId xt = v_tr(p, x, 1, 0, 2), ct = v_tr(p, c, 1, 0, 2);
  MgTensorId st = v_tr(p, s, 1, 0, 2);
  MgTensorId nx = v_ok(mg_graph_scalar(p, 0, MG_OP_MUL_SCALAR, xt, -1.0,
                                       NULL));
  MgTensorId rot = v_ok(mg_graph_concat(p, 0, v_half(p, nx, true),
                                        v_half(p, xt, false), 2, NULL));
  MgTensorId yt = v_bin(p, MG_OP_ADD, v_bin(p, MG_OP_MUL, rot, st),
                        v_bin(p, MG_OP_MUL, xt, ct));
  mg_graph_mark_output(p, 0, v_rs(p, v_tr(p, yt, 2, 1, 0), 4, 16), NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

static void test_mutation_view_mutants_rejected(void) {
  Tally t;
  memset(&t, 0, sizeof t);
  mutate_pair("rope", rope_reference(), rope_heads_first(), &t);
  size_t rejected = t.not_equivalent + t.invalid_verdict + t.unknown;
  printf("view mutants: %zu generated, %zu rejected (perm %zu, slice %zu, "
         "concat order %zu, reshape %zu, other kinds %zu)\n",
         t.real, rejected, t.real_of[MUT_PERM], t.real_of[MUT_SLICE],
         t.real_of[MUT_ORDER], t.real_of[MUT_RESHAPE],
         t.real - t.real_of[MUT_PERM] - t.real_of[MUT_SLICE] -
             t.real_of[MUT_ORDER] - t.real_of[MUT_RESHAPE]);
  printf("  candidates %zu: %zu unbuildable, %zu invalid, %zu reshaped, "
         "%zu equivalent in floats (%zu of them accepted); %zu accepted\n",
         t.candidates, t.unbuildable, t.invalid, t.reshaped, t.equivalent,
         t.equivalent_accepted, t.accepted);
  CHECK_EQ_INT(t.accepted, 0);
  CHECK_EQ_INT(rejected, t.real);
  CHECK_EQ_INT(t.float_failed, 0);
  CHECK_EQ_INT(t.equivalent_accepted, t.equivalent);
  // Every kind of view mutation produced mutants that only the verifier
  // could reject (the shapes still fit).
  CHECK(t.real_of[MUT_PERM] >= 6);
  CHECK(t.real_of[MUT_SLICE] >= 4);
  CHECK(t.real_of[MUT_ORDER] >= 2);
  CHECK(t.real_of[MUT_RESHAPE] >= 2);
}

static void test_mutation_all_real_mutants_rejected(void) {
  Tally t;
  memset(&t, 0, sizeof t);
  mutate_pair("rmsnorm", mg_sample_rmsnorm_matmul(2, 8, 6),
              mg_sample_rmsnorm_matmul_fused(2, 8, 6, 2, 2), &t);
  mutate_pair("attention", mg_sample_attention(2, 4, 4, 8),
              mg_sample_attention_split_kv(2, 4, 4, 8, 2, 2), &t);
  mutate_pair("lora", mg_sample_lora(4, 8, 8, 2),
              mg_sample_lora_fused(4, 8, 8, 2, 2), &t);
  mutate_pair("gated_mlp", mg_sample_gated_mlp(4, 8, 8),
              mg_sample_gated_mlp_fused(4, 8, 8, 2, 2), &t);
  mutate_pair("math_mlp", mg_sample_math_mlp(4, 8, 8),
              mg_sample_math_mlp_fused(4, 8, 8, 2, 2), &t);
  mutate_pair("ntrans", mg_sample_ntrans(4, 8),
              mg_sample_ntrans_fused(4, 8, 2), &t);
  mutate_pair("sum", mg_sample_sum_last(4, 8),
              mg_sample_sum_last_fused(4, 8, 2, 4), &t);
  // nn.Linear's transposed weights: W1 and W2 are inputs 1 and 2.
  mutate_pair("gated_mlp_wt", with_layouts(mg_sample_gated_mlp(4, 8, 8), 6),
              with_layouts(mg_sample_gated_mlp_fused(4, 8, 8, 2, 2), 6), &t);
  mutate_pair("qknorm", mg_sample_qknorm(1, 4, 4, 8),
              mg_sample_qknorm(1, 4, 4, 8), &t);
  size_t rejected = t.not_equivalent + t.invalid_verdict + t.unknown;
  printf("mutants: %zu generated, %zu rejected\n", t.real, rejected);
  printf("  candidates %zu: %zu unbuildable, %zu invalid, %zu reshaped, "
         "%zu float-failed, %zu equivalent in floats (%zu of them accepted)\n",
         t.candidates, t.unbuildable, t.invalid, t.reshaped, t.float_failed,
         t.equivalent, t.equivalent_accepted);
  printf("  verdicts: %zu not-equivalent, %zu invalid (outside LAX), "
         "%zu unknown, %zu accepted\n",
         t.not_equivalent, t.invalid_verdict, t.unknown, t.accepted);
  CHECK_EQ_INT(t.accepted, 0);
  CHECK_EQ_INT(rejected, t.real);
  CHECK(t.real >= 200);
  CHECK_EQ_INT(t.float_failed, 0);
  CHECK_EQ_INT(t.equivalent_accepted, t.equivalent);
}

//===--- Max ops: row maxima and the stable samples ------------------------===//
//
// No sample has an element-wise maximum, and in the stable samples every
// max cancels (it only guards an exp). The row maximum of X (64, 8) does
// reach the output: as reduce_max, as the maximum of the two column
// halves' maxima, and as one kernel whose for-loop keeps a MAX
// accumulator of each tile's row maxima. The stable softmax with the
// maximum of the halves' maxima as its guard completes the set.

static MgProgram *rowmax_inputs(MgTensorId *x) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  const int64_t dims[2] = {64, 8};
  *x = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims, NULL);
  return p;
}

// maximum(reduce_max(X[:, :4]), reduce_max(X[:, 4:])) in graph 0.
static MgTensorId max_of_halves(MgProgram *p, MgTensorId x) {
  MgTensorId lo = v_ok(mg_graph_slice(p, 0, x, (MgSlice){1, 0, 4}, NULL));
  MgTensorId hi = v_ok(mg_graph_slice(p, 0, x, (MgSlice){1, 4, 4}, NULL));
  return v_bin(p, MG_OP_MAX,
               v_ok(mg_graph_reduce(p, 0, MG_OP_REDUCE_MAX, lo, 1, NULL)),
               v_ok(mg_graph_reduce(p, 0, MG_OP_REDUCE_MAX, hi, 1, NULL)));
}

static MgProgram *rowmax(void) {
  MgTensorId x;
  MgProgram *p = rowmax_inputs(&x);
  mg_graph_mark_output(
      p, 0, v_ok(mg_graph_reduce(p, 0, MG_OP_REDUCE_MAX, x, 1, NULL)), NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

static MgProgram *rowmax_halves(void) {
  MgTensorId x;
  MgProgram *p = rowmax_inputs(&x);
  mg_graph_mark_output(p, 0, max_of_halves(p, x), NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

// One graph-defined kernel over X (64, 8) of rowmax_inputs, the grid's x
// over the rows: row_kernel opens its block graph (grid x `gx`, for-loop
// `forloop` over dim `fmap` or none) and returns X's tile, end_row_kernel
// saves `t` along the rows and makes the kernel the program's output.
static const int8_t row_imap[3] = {0, MG_MAP_NONE, MG_MAP_NONE};

static MgTensorId row_kernel(MgProgram *p, int32_t gx, uint32_t forloop,
                             int8_t fmap, MgGraphId *g) {
  *g = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  const int32_t grid[3] = {gx, 1, 1};
  const int64_t dims[2] = {64, 8};
  CHECK_EQ_INT(mg_graph_set_launch(p, *g, grid, 128, forloop, NULL),
               MG_STATUS_OK);
  return v_ok(mg_graph_iterator(
      p, *g, mg_graph_add_input(p, *g, MG_DTYPE_F16, 2, dims, NULL), row_imap,
      fmap, NULL));
}

static MgProgram *end_row_kernel(MgProgram *p, MgGraphId g, MgTensorId x,
                                 MgTensorId t) {
  mg_graph_mark_output(p, g, v_ok(mg_graph_saver(p, g, t, row_imap, NULL)),
                       NULL);
  MgTensorId out;
  CHECK(mg_graph_custom(p, 0, (MgCall){g, 1, &x}, &out, NULL) != MG_NO_ID);
  mg_graph_mark_output(p, 0, out, NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

// Grid (2,1,1) over the rows, for-loop of 2 over the columns.
static MgProgram *rowmax_fused(void) {
  MgTensorId x;
  MgProgram *p = rowmax_inputs(&x);
  MgGraphId g;
  MgTensorId t = row_kernel(p, 2, 2, 1, &g);
  t = v_ok(mg_graph_reduce(p, g, MG_OP_REDUCE_MAX, t, 1, NULL));
  t = v_ok(mg_graph_accum(p, g, t, MG_ACCUM_MAX, NULL));
  return end_row_kernel(p, g, x, t);
}

// exp(X − max_of_halves(X)) / sum_last(...), X (4, 8).
static MgProgram *softmax_halves(void) {
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  const int64_t dims[2] = {4, 8};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims, NULL);
  MgTensorId e = v_ok(mg_graph_unary(
      p, 0, MG_OP_EXP, v_bin(p, MG_OP_SUB, x, max_of_halves(p, x)), NULL));
  mg_graph_mark_output(
      p, 0, v_bin(p, MG_OP_DIV, e, v_ok(mg_graph_sum(p, 0, e, 1, NULL))),
      NULL);
  CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
  return p;
}

// Clamps (issue 30): hardtanh's shape clamp(X, -1/2, 1/2) and
// x·clamp(x, -1/2, 1/2)/6 (hardswish's) over X (64, 8), at kernel level
// and fused into one kernel (grid over the rows). The bounds lie inside
// the float check's inputs ([-1, 1]), so a wrong bound, max for min or a
// dropped bound changes the floats: each must be rejected.
static MgTensorId clamp_ops(MgProgram *p, MgGraphId g, MgTensorId x,
                            bool swish) {
  double b = 0.5;
  MgTensorId c = v_ok(mg_graph_scalar(p, g, MG_OP_MAX_SCALAR, x, -b, NULL));
  c = v_ok(mg_graph_scalar(p, g, MG_OP_MIN_SCALAR, c, b, NULL));
  if (!swish)
    return c;
  c = v_ok(mg_graph_binary(p, g, MG_OP_MUL, x, c, NULL));
  return v_ok(mg_graph_scalar(p, g, MG_OP_DIV_SCALAR, c, 6, NULL));
}

static MgProgram *clamp_program(bool swish, bool fused) {
  MgTensorId x;
  MgProgram *p = rowmax_inputs(&x);
  if (!fused) {
    mg_graph_mark_output(p, 0, clamp_ops(p, 0, x, swish), NULL);
    CHECK_EQ_INT(mg_program_validate(p, NULL, NULL), MG_STATUS_OK);
    return p;
  }
  MgGraphId g;
  MgTensorId t = row_kernel(p, 4, 1, MG_MAP_NONE, &g);
  return end_row_kernel(p, g, x, clamp_ops(p, g, t, swish));
}

static void test_mutation_clamp_mutants_rejected(void) {
  Tally t;
  memset(&t, 0, sizeof t);
  mutate_pair("hardtanh", clamp_program(false, false),
              clamp_program(false, true), &t);
  mutate_pair("hardswish", clamp_program(true, false),
              clamp_program(true, true), &t);
  size_t rejected = t.not_equivalent + t.invalid_verdict + t.unknown;
  printf("clamp mutants: %zu generated, %zu rejected, of the bounds: kind "
         "%zu, drop %zu, bound %zu\n",
         t.real, rejected, t.max_real[MAXMUT_KIND], t.max_real[MAXMUT_DROP],
         t.max_real[MAXMUT_BOUND]);
  CHECK_EQ_INT(t.accepted, 0);
  CHECK(t.real > 20);
  CHECK(t.max_real[MAXMUT_KIND] > 0 && t.max_real[MAXMUT_DROP] > 0 &&
        t.max_real[MAXMUT_BOUND] > 0);
  CHECK_EQ_INT(rejected, t.real);
}

static void test_mutation_max_mutants_rejected(void) {
  Tally t;
  memset(&t, 0, sizeof t);
  mutate_pair("rowmax_halves", rowmax(), rowmax_halves(), &t);
  mutate_pair("rowmax_fused", rowmax(), rowmax_fused(), &t);
  mutate_pair("softmax_halves", mg_sample_stable_softmax(4, 8),
              softmax_halves(), &t);
  mutate_pair("stable_softmax", mg_sample_stable_softmax(4, 8),
              mg_sample_stable_softmax_fused(4, 8, 2), &t);
  mutate_pair("flash", mg_sample_stable_attention(2, 4, 4, 8),
              mg_sample_stable_attention_flash(2, 4, 4, 8, 2, 2), &t);
  mutate_pair("stable_split_kv", mg_sample_stable_attention(2, 4, 4, 8),
              mg_sample_stable_attention_split_kv(2, 4, 4, 8, 2, 2), &t);
  // For-loop range 1 (kernel 1's for split-KV): only then may an
  // accumulator be dropped (the saver would read a per-iteration value).
  mutate_pair("flash_f1", mg_sample_stable_attention(2, 4, 4, 8),
              mg_sample_stable_attention_flash(2, 4, 4, 8, 2, 1), &t);
  mutate_pair("split_kv_f1", mg_sample_stable_attention(2, 4, 4, 8),
              mg_sample_stable_attention_split_kv(2, 4, 4, 8, 2, 1), &t);
  mutate_pair("flash_split_kv",
              mg_sample_stable_attention_flash(2, 4, 4, 8, 2, 2),
              mg_sample_stable_attention_split_kv(2, 4, 4, 8, 2, 2), &t);
  // Against the unstable form: only the stability check tells them apart.
  mutate_pair("stable_unstable", mg_sample_attention(2, 4, 4, 8),
              mg_sample_stable_attention(2, 4, 4, 8), &t);
  mutate_pair("stable_qknorm", mg_sample_stable_qknorm(1, 4, 4, 8),
              mg_sample_stable_qknorm(1, 4, 4, 8), &t);
  size_t rejected = t.not_equivalent + t.invalid_verdict + t.unknown;
  printf("max mutants: %zu generated, %zu rejected\n", t.real, rejected);
  printf("  of the max ops (real / equivalent in floats):");
  for (int c = MAXMUT_NONE + 1; c < MAXMUT_COUNT; ++c)
    printf(" %s %zu/%zu%s", max_mut_names[c], t.max_real[c],
           t.max_equivalent[c], c + 1 < MAXMUT_COUNT ? "," : "\n");
  printf("  candidates %zu: %zu unbuildable, %zu invalid, %zu reshaped, "
         "%zu float-failed, %zu equivalent in floats (%zu of them accepted, "
         "%zu unstable)\n",
         t.candidates, t.unbuildable, t.invalid, t.reshaped, t.float_failed,
         t.equivalent, t.equivalent_accepted, t.equivalent_unstable);
  printf("  verdicts: %zu not-equivalent, %zu invalid (outside LAX), "
         "%zu unknown, %zu accepted\n",
         t.not_equivalent, t.invalid_verdict, t.unknown, t.accepted);
  CHECK_EQ_INT(t.accepted, 0);
  CHECK_EQ_INT(rejected, t.real);
  CHECK_EQ_INT(t.float_failed, 0);
  CHECK_EQ_INT(t.equivalent_accepted, t.equivalent);
  // Every way of mutating a max op produced mutants only the verifier
  // could reject (bounds: test_mutation_clamp_mutants_rejected).
  for (int c = MAXMUT_NONE + 1; c < MAXMUT_BOUND; ++c)
    CHECK(t.max_real[c] >= 2);
  // Dropping a guard's sub keeps the floats (at inputs in [-1, 1]) but
  // loses the guard.
  CHECK(t.equivalent_unstable >= 1);
}

//===--- Convolutions and pooling: im2col (issue 30) ------------------------===//
//
// Three pairs of lib/graph/samples.c, each at shapes where the im2col
// mutations keep the output size: a 3x3 convolution of stride 2 and
// padding 1 (X (2,8,8,4), W (3,3,4,4)) as im2col + batched matmul against
// (Wᵀ·Pᵀ)ᵀ on 2-D views (its groups can change: the patches are
// reshaped); a depthwise 3x3 of strides (1,2) and padding top 1, bottom
// 0, left 0, right 2 (X (2,6,7,4)) as a batched matmul against the
// product with the taps summed; a 3x2 max pooling of stride 2 and padding
// 1/1/0/1 (X (2,8,8,4)) against its separable form (1x2 then 3x1 pools).

static const char *const conv_mut_names[] = {"pad", "stride", "dilation",
                                             "window", "groups"};

static void test_mutation_conv_mutants_rejected(void) {
  Tally t;
  memset(&t, 0, sizeof t);
  // groups, kh, kw, sh, sw, dh, dw, pad top, bottom, left, right
  const MgIm2col conv = {1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1};
  const MgIm2col dw = {4, 3, 3, 1, 2, 1, 1, 1, 0, 0, 2};
  const MgIm2col pool = {4, 3, 2, 2, 2, 1, 1, 1, 1, 0, 1};
  mutate_pair("conv3x3", mg_sample_conv2d(2, 8, 8, 4, 4, &conv),
              mg_sample_conv2d_transposed(2, 8, 8, 4, 4, &conv), &t);
  mutate_pair("depthwise", mg_sample_depthwise_conv2d(2, 6, 7, 4, &dw),
              mg_sample_depthwise_conv2d_mul(2, 6, 7, 4, &dw), &t);
  mutate_pair("max_pool", mg_sample_max_pool2d(2, 8, 8, 4, &pool),
              mg_sample_max_pool2d_separable(2, 8, 8, 4, &pool), &t);
  size_t rejected = t.not_equivalent + t.invalid_verdict + t.unknown;
  printf("conv mutants: %zu generated, %zu rejected\n", t.real, rejected);
  printf("  of the im2col ops (real / equivalent in floats):");
  for (int k = MUT_PAD; k <= MUT_GROUPS; ++k)
    printf(" %s %zu/%zu%s", conv_mut_names[k - MUT_PAD], t.real_of[k],
           t.equivalent_of[k], k < MUT_GROUPS ? "," : "\n");
  printf("  candidates %zu: %zu unbuildable, %zu invalid, %zu reshaped, "
         "%zu float-failed, %zu equivalent in floats (%zu of them accepted)\n",
         t.candidates, t.unbuildable, t.invalid, t.reshaped, t.float_failed,
         t.equivalent, t.equivalent_accepted);
  printf("  verdicts: %zu not-equivalent, %zu invalid (outside LAX), "
         "%zu unknown, %zu accepted\n",
         t.not_equivalent, t.invalid_verdict, t.unknown, t.accepted);
  CHECK_EQ_INT(t.accepted, 0);
  CHECK_EQ_INT(rejected, t.real);
  CHECK_EQ_INT(t.float_failed, 0);
  CHECK_EQ_INT(t.equivalent_accepted, t.equivalent);
  // Every kind of im2col mutation produced mutants only the verifier
  // could reject; moving the bottom padding alone (stride 2) and a
  // dilation along a window of 1 (the separable pools) are genuine
  // equivalents.
  for (int k = MUT_PAD; k <= MUT_GROUPS; ++k)
    CHECK(t.real_of[k] >= 1);
  CHECK(t.equivalent_of[MUT_PAD] >= 1 && t.equivalent_of[MUT_DILATION] >= 1);
}

int main(void) {
  RUN_TEST(test_mutation_all_real_mutants_rejected);
  RUN_TEST(test_mutation_view_mutants_rejected);
  RUN_TEST(test_mutation_max_mutants_rejected);
  RUN_TEST(test_mutation_clamp_mutants_rejected);
  RUN_TEST(test_mutation_conv_mutants_rejected);
  return TEST_SUMMARY();
}

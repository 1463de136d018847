//===- symbolic.c - One search for every size of a symbol (issue 29) -------===//
//
// A kernel graph with symbolic dims is searched at size 1: every symbol is
// one row, and the program found is the kernel for one row. Generalizing it
// gives every block one index of each symbol: a grid axis of the symbol's
// size that each iterator maps to the input's dim of that symbol and each
// saver to its tile's. This holds for every size only when no block mixes
// rows: nothing may reduce over a symbolic dim, in the root or in a block
// (row_masks refuses it), so every output row is the same function of the
// same input rows whatever the size. The field tests at a few sizes then
// check that function (docs/verification.md §4b).
//
// A program that reduces over a symbol (a softmax over a KV length) is
// searched at a size where blocks loop over its rows instead. A kernel
// whose for-loop runs over them keeps the rows an iteration took and runs
// ceil(size / rows) iterations, the last one holding only the rows left;
// this is sound when the loop's rows reach nothing but element-wise ops
// and reductions over them, which then skip the missing rows (§4c;
// row_masks checks it).
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MgProgram *mg_search_symbolic_at(const MgProgram *p, int64_t rows) {
  MgProgram *q = mg_program_clone_at(p, rows);
  if (q)
    mg_program_clear_syms(q);
  return q;
}

bool mg_search_symbolic_same_structure(const MgProgram *symbolic,
                                       const MgProgram *target) {
  const MgGraph *a = &symbolic->graphs[0], *b = &target->graphs[0];
  if (a->num_ops != b->num_ops || a->num_tensors != b->num_tensors ||
      a->num_outputs != b->num_outputs)
    return false;
  for (uint32_t i = 0; i < a->num_ops; i++)
    if (a->ops[i].kind != b->ops[i].kind ||
        a->ops[i].num_inputs != b->ops[i].num_inputs ||
        memcmp(a->ops[i].inputs, b->ops[i].inputs,
               a->ops[i].num_inputs * sizeof a->ops[i].inputs[0]))
      return false;
  return true;
}

// Per-dim symbols as MgTensor.sym packs them.
typedef uint16_t Rows;

static unsigned row_sym(Rows r, uint32_t d) { return (r >> (2 * d)) & 3u; }

static Rows row_set(Rows r, uint32_t d, unsigned s) {
  return (Rows)((r & ~(3u << (2 * d))) | ((s & 3u) << (2 * d)));
}

// Element-wise join of two operands' rows; false when one dim is two
// symbols.
static bool join(Rows a, Rows b, uint32_t rank, Rows *out) {
  *out = a;
  for (uint32_t d = 0; d < rank; d++) {
    unsigned sa = row_sym(a, d), sb = row_sym(b, d);
    if (sa && sb && sa != sb)
      return false;
    if (sb)
      *out = row_set(*out, d, sb);
  }
  return true;
}

// The dim of a tensor with these rows that is symbol s, -1 when none;
// -2 when two are.
static int dim_of(Rows r, uint32_t rank, unsigned s) {
  int found = -1;
  for (uint32_t d = 0; d < rank; d++)
    if (row_sym(r, d) == s)
      found = found == -1 ? (int)d : -2;
  return found;
}

// Per-dim bits: the dims of a block tensor that index the for-loop's rows
// of a symbol (its iteration's tile of them).
typedef uint8_t Loops;

static bool bit(Loops l, uint32_t d) { return (l >> d) & 1u; }

// Element-wise join of loop bits: a dim holding the loop's rows meets the
// same rows or a broadcast 1 (the last iteration holds fewer rows).
static bool join_loops(const MgGraph *b, const MgOp *op, const Loops *loops,
                       Loops *out) {
  *out = 0;
  for (uint32_t k = 0; k < op->num_inputs; k++)
    *out |= loops[op->inputs[k]];
  for (uint32_t k = 0; k < op->num_inputs; k++) {
    const MgTensor *t = &b->tensors[op->inputs[k]];
    for (uint32_t d = 0; d < t->rank; d++)
      if (bit(*out, d) && !bit(loops[op->inputs[k]], d) && t->dims[d] != 1)
        return false;
  }
  return true;
}

// Which dims of each tensor of block graph `b` hold one index of a symbol
// (the block's row: `rows`) and which the for-loop's rows of symbol
// `loop` (0: the loop is static; `loops`), from its inputs' symbols `in`
// (by position). False, with `why`, when an op reduces over a row dim, a
// for-loop runs over a symbol other than `loop`, or the loop's rows reach
// anything but element-wise ops and the reductions over them (a block
// sum or max, a matmul's contraction, a SUM_LAST accumulator): those
// skip the last iteration's missing rows, nothing else could.
static bool row_masks(const MgGraph *b, const Rows *in, unsigned loop,
                      Rows *rows, Loops *loops, const char **why) {
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    const MgTensor *x = op->num_inputs ? &b->tensors[op->inputs[0]] : NULL;
    Rows a = x ? rows[op->inputs[0]] : 0, r = a;
    Loops la = x ? loops[op->inputs[0]] : 0, l = la;
    uint32_t rank = x ? x->rank : 0;
    bool ok = true, lok = true;
    switch ((MgOpKind)op->kind) {
    case MG_OP_INPUT:
      r = in[op->attr];
      break;
    case MG_OP_MATMUL: {
      Rows bm = rows[op->inputs[1]];
      Loops lb = loops[op->inputs[1]];
      ok = !row_sym(a, rank - 1) && !row_sym(bm, rank - 2);
      r = row_set(a, rank - 1, row_sym(bm, rank - 1));
      for (uint32_t d = 0; ok && d + 2 < rank; d++)
        ok = row_sym(a, d) == row_sym(bm, d);
      // A contraction over the loop's rows needs them on both sides.
      lok = bit(la, rank - 1) == bit(lb, rank - 2) && (la | lb) >> rank == 0;
      l = (Loops)(((la | lb) & ((1u << (rank - 2)) - 1)) |
                  (bit(la, rank - 2) << (rank - 2)) |
                  (bit(lb, rank - 1) << (rank - 1)));
      break;
    }
    case MG_OP_SUM:
    case MG_OP_REDUCE_MAX:
      ok = !row_sym(a, (uint32_t)op->attr);
      l = (Loops)(la & ~(1u << op->attr));
      break;
    case MG_OP_ACCUM:
      if (op->acc == MG_ACCUM_SUM_LAST || op->acc == MG_ACCUM_SUM_SQ_LAST) {
        ok = !row_sym(a, rank - 1);
        lok = (la & ~(1u << (rank - 1))) == 0;
      } else {
        lok = la == 0 && (op->num_inputs < 2 || loops[op->inputs[1]] == 0);
      }
      if (op->acc == MG_ACCUM_ONLINE)
        ok = join(a, rows[op->inputs[1]], rank, &r);
      l = 0;
      break;
    case MG_OP_CONCAT:
      ok = !row_sym(a, (uint32_t)op->attr);
      for (uint32_t k = 1; ok && k < op->num_inputs; k++)
        ok = join(r, rows[op->inputs[k]], rank, &r);
      for (uint32_t k = 0; k < op->num_inputs; k++)
        lok = lok && loops[op->inputs[k]] == 0;
      break;
    case MG_OP_ITERATOR:
      if (op->fmap != MG_MAP_NONE && b->forloop > 1 &&
          row_sym(a, (uint32_t)op->fmap) &&
          row_sym(a, (uint32_t)op->fmap) != loop) {
        *why = "a for-loop runs over a symbol's rows it does not reduce "
               "(its accumulators would mix them)";
        return false;
      }
      if (loop && op->fmap != MG_MAP_NONE &&
          row_sym(a, (uint32_t)op->fmap) == loop) {
        r = row_set(a, (uint32_t)op->fmap, 0);
        l = (Loops)(1u << op->fmap);
      }
      if (loop && dim_of(r, rank, loop) != -1) {
        *why = "an iterator reads the for-loop's symbol whole";
        return false;
      }
      break;
    case MG_OP_SAVER:
      lok = la == 0;
      break;
    default: // element-wise, binary or fused (THREAD): rows broadcast
      for (uint32_t k = 1; ok && k < op->num_inputs; k++)
        ok = join(r, rows[op->inputs[k]], rank, &r);
      for (uint32_t k = 0; ok && k < op->num_outputs; k++)
        ok = b->tensors[op->outputs[k]].rank == rank;
      lok = join_loops(b, op, loops, &l);
      break;
    }
    if (!ok) {
      *why = "a block reduces over a symbolic dim (its rows would mix)";
      return false;
    }
    if (!lok) {
      *why = "the for-loop's rows of a symbol reach an op other than a "
             "reduction over them (the last iteration holds fewer)";
      return false;
    }
    for (uint32_t k = 0; k < op->num_outputs; k++) {
      rows[op->outputs[k]] = r;
      loops[op->outputs[k]] = l;
    }
  }
  return true;
}

// Points grid axis `ax` at dim `m` in `map`; another axis mapping it had
// extent 1 (split_axis) and is dropped.
static void remap(int8_t map[3], int ax, int m) {
  for (int a = 0; a < 3; a++)
    if (map[a] == m)
      map[a] = MG_MAP_NONE;
  map[ax] = (int8_t)m;
}

// How block graph b (of the program at `rows` rows) splits symbol s's
// dim: the grid axis of extent > 1 that maps it in every iterator reading
// it, or -1 when no axis does (a block holds all the rows); -2 with `why`.
static int split_axis(const MgGraph *b, const Rows *rows, unsigned s,
                      const char **why) {
  int split = -3; // no iterator reads the symbol yet
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (op->kind != MG_OP_ITERATOR)
      continue;
    const MgTensor *x = &b->tensors[op->inputs[0]];
    int m = dim_of(rows[op->inputs[0]], x->rank, s);
    if (m < 0)
      continue;
    int ax = -1;
    for (int a = 0; a < 3; a++)
      if (op->imap[a] == m && b->grid[a] > 1)
        ax = a;
    if (split != -3 && split != ax) {
      *why = "the iterators split a symbol's rows over different axes";
      return -2;
    }
    split = ax;
  }
  return split == -3 ? -1 : split;
}

// The symbol block graph `b` (static) runs its for-loop over, from its
// inputs' symbols `in`: the one its iterators' fmap dims are, 0 when the
// loop is static or of range 1; -1 when the iterators disagree.
static int loop_symbol(const MgGraph *b, const Rows *in) {
  int loop = -2; // no iterator runs the loop yet
  for (uint32_t i = 0; b->forloop > 1 && i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (op->kind != MG_OP_ITERATOR || op->fmap == MG_MAP_NONE)
      continue;
    const MgOp *src = &b->ops[b->tensors[op->inputs[0]].producer];
    int s = src->kind == MG_OP_INPUT
                ? (int)row_sym(in[src->attr], (uint32_t)op->fmap) : 0;
    if (loop != -2 && loop != s)
      return -1;
    loop = s;
  }
  return loop < 0 ? 0 : loop;
}

// The block graph `custom` calls in `one` (the program at `at` rows), its
// operands kernel tensors of q's root, as a block graph of q where each
// symbol gets a grid axis.
static MgGraphId generalize_block(MgProgram *q, const MgProgram *one,
                                  int64_t at, const MgOp *custom,
                                  MgDiag *diag) {
  MgGraphId bg = (MgGraphId)custom->attr;
  const MgTensorId *args = custom->inputs;
  uint32_t num_args = custom->num_inputs;
  const MgGraph *b = &one->graphs[bg];
  const MgGraph *root = &q->graphs[0];
  Rows in[MG_MAX_OP_INPUTS] = {0};
  unsigned syms = 0;
  for (uint32_t k = 0; k < num_args; k++) {
    in[k] = root->tensors[args[k]].sym;
    for (uint32_t d = 0; d < root->tensors[args[k]].rank; d++)
      if (row_sym(in[k], d))
        syms |= 1u << (row_sym(in[k], d) - 1);
  }
  Rows *rows = calloc(b->num_tensors + 1, sizeof *rows);
  Loops *loops = calloc(b->num_tensors + 1, sizeof *loops);
  MgTensorId *map = malloc((b->num_tensors + 1) * sizeof *map);
  const char *why = NULL;
  if (!rows || !loops || !map) {
    free(rows), free(loops), free(map);
    mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
    return MG_NO_ID;
  }
  // A for-loop over a symbol keeps its `at` / F rows an iteration and runs
  // ceil(size / rows) times (docs/verification.md §4c).
  int loop = loop_symbol(b, in);
  if (loop < 0)
    why = "the iterators run the for-loop over different dims";
  // Each symbol gets the axis that split its `at` rows (a block then takes
  // at / extent of them) or a free one (a block takes all `at`).
  int axis_of[MG_MAX_SYMS + 1] = {-1, -1, -1, -1};
  int32_t grid[3] = {b->grid[0], b->grid[1], b->grid[2]};
  int32_t grid_rows[3] = {1, 1, 1};
  uint8_t grid_sym[3] = {0, 0, 0};
  if (!why)
    row_masks(b, in, (unsigned)loop, rows, loops, &why);
  for (unsigned s = 1; s <= MG_MAX_SYMS && !why; s++) {
    if (!(syms & (1u << (s - 1))))
      continue;
    int split = split_axis(b, rows, s, &why);
    if (split == -2)
      break;
    if ((int)s == loop) {
      if (split >= 0)
        why = "the grid splits the rows the for-loop reduces over (split-KV "
              "is not generalized yet)";
      continue;
    }
    axis_of[s] = split;
    for (int a = 0; a < 3 && axis_of[s] < 0; a++)
      if (grid[a] == 1 && !grid_sym[a])
        axis_of[s] = a;
    if (axis_of[s] < 0) {
      why = "every grid axis is in use: none is left for a symbol";
      break;
    }
    int a = axis_of[s];
    int64_t per = split >= 0 ? at / b->grid[split] : at;
    grid_sym[a] = (uint8_t)s;
    grid_rows[a] = (int32_t)per;
    grid[a] = (int32_t)((mg_program_sym_size(q, s) + per - 1) / per);
  }
  MgGraphId g = MG_NO_ID;
  if (!why) {
    g = mg_program_add_graph(q, MG_LEVEL_BLOCK);
    if (g == MG_NO_ID ||
        mg_graph_set_launch(q, g, grid, b->block_threads, b->forloop, diag) !=
            MG_STATUS_OK)
      g = MG_NO_ID, why = diag->message[0] ? diag->message : "out of memory";
    else {
      memcpy(q->graphs[g].grid_sym, grid_sym, sizeof grid_sym);
      memcpy(q->graphs[g].grid_rows, grid_rows, sizeof grid_rows);
      if (loop > 0) {
        int32_t per = (int32_t)(at / b->forloop);
        q->graphs[g].forloop_sym = (uint8_t)loop;
        q->graphs[g].forloop_rows = per;
        q->graphs[g].forloop =
            (int32_t)((mg_program_sym_size(q, (unsigned)loop) + per - 1) / per);
      }
    }
  }
  for (uint32_t i = 0; !why && i < b->num_ops; i++) {
    const MgOp *op = &b->ops[i];
    if (op->kind == MG_OP_INPUT) {
      MgTensor kt = q->graphs[0].tensors[args[op->attr]];
      MgTensorId t = mg_graph_add_input_as(q, g, &kt, op, diag);
      if (t == MG_NO_ID)
        why = diag->message;
      map[op->outputs[0]] = t;
      continue;
    }
    MgOp c = *op;
    if (c.kind == MG_OP_THREAD) {
      MgGraphId sub = mg_program_copy_graph(q, one, (MgGraphId)c.attr, diag);
      if (sub == MG_NO_ID) {
        why = diag->message;
        break;
      }
      c.attr = (int32_t)sub;
    }
    Rows r = rows[c.inputs[0]]; // an iterator's input, a saver's tile
    uint32_t rank = b->tensors[c.inputs[0]].rank;
    for (unsigned s = 1; s <= MG_MAX_SYMS; s++) {
      if (axis_of[s] < 0)
        continue;
      int m = dim_of(r, rank, s);
      if (m == -2) {
        why = "a tensor has two dims of one symbol";
        break;
      }
      if (c.kind == MG_OP_ITERATOR) {
        if (m >= 0) {
          remap(c.imap, axis_of[s], m);
          if (c.fmap == m)
            c.fmap = MG_MAP_NONE; // a range-1 loop over a size-1 dim
        }
      } else if (c.kind == MG_OP_SAVER) {
        if (m < 0) {
          why = "a kernel output holds no symbolic dim: the blocks of the "
                "symbol's grid axis would overwrite each other";
          break;
        }
        remap(c.omap, axis_of[s], m);
      }
    }
    if (why)
      break;
    if (mg_graph_copy_op(q, g, b, &c, map, diag) != MG_STATUS_OK)
      why = diag->message;
  }
  for (uint32_t k = 0; !why && k < b->num_outputs; k++)
    if (mg_graph_mark_output(q, g, map[b->outputs[k]], diag) != MG_STATUS_OK)
      why = diag->message;
  free(rows);
  free(loops);
  free(map);
  if (why) {
    if (why != diag->message)
      mg_diag_set(diag, MG_STATUS_UNSUPPORTED, (int32_t)bg, -1, "%s", why);
    return MG_NO_ID;
  }
  return g;
}

// A predefined op of the root that sums or maximizes over a symbolic dim
// (its operands in `root`): what the generalization's argument excludes.
static bool reduces_symbol(const MgGraph *root, const MgOp *op) {
  if (!op->num_inputs)
    return false;
  const MgTensor *a = &root->tensors[op->inputs[0]];
  switch ((MgOpKind)op->kind) {
  case MG_OP_SUM:
  case MG_OP_REDUCE_MAX:
    return mg_tensor_sym(a, (uint32_t)op->attr) != 0;
  case MG_OP_MATMUL:
    return mg_tensor_sym(a, a->rank - 1) != 0;
  default:
    return false;
  }
}

bool mg_search_symbolic_rowwise(const MgProgram *p, MgDiag *diag) {
  const MgGraph *root = &p->graphs[0];
  for (uint32_t i = 0; i < root->num_ops; i++) {
    const MgOp *op = &root->ops[i];
    if (reduces_symbol(root, op))
      return mg_diag_set(diag, MG_STATUS_INVALID, 0, (int32_t)i,
                         "a kernel reduces over a symbolic dim"), false;
    if (op->kind != MG_OP_CUSTOM)
      continue;
    const MgGraph *b = &p->graphs[op->attr];
    Rows in[MG_MAX_OP_INPUTS] = {0};
    for (uint32_t k = 0; k < op->num_inputs; k++)
      in[k] = root->tensors[op->inputs[k]].sym;
    Rows *rows = calloc(b->num_tensors + 1, sizeof *rows);
    Loops *loops = calloc(b->num_tensors + 1, sizeof *loops);
    const char *why = NULL;
    if (!rows || !loops) {
      free(rows), free(loops);
      return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory"), false;
    }
    row_masks(b, in, b->forloop_sym, rows, loops, &why);
    free(rows);
    free(loops);
    if (why)
      return mg_diag_set(diag, MG_STATUS_INVALID, (int32_t)op->attr, -1, "%s",
                         why), false;
  }
  return true;
}

bool mg_search_symbolic_reduces(const MgProgram *p) {
  const MgGraph *root = &p->graphs[0];
  for (uint32_t i = 0; i < root->num_ops; i++)
    if (reduces_symbol(root, &root->ops[i]))
      return true;
  return false;
}

// A reshape of the one-size program `one` (op, its operand's dims at the
// searched size) as the generalized program's reshape `c` (its operand's
// symbols in `q`): each symbolic dim must pass through whole, as one dim of
// the result with the same row-major prefix (2x4x? -> 1x2x4x1x?), so that
// the reshape moves the same elements at every size. False otherwise.
static bool generalize_reshape(const MgGraph *q, const MgGraph *one,
                               const MgOp *op, int64_t at, MgOp *c) {
  const MgTensor *x = &q->tensors[c->inputs[0]];
  const MgTensor *a = &one->tensors[op->inputs[0]];
  int32_t rank = op->attr;
  int32_t from = 0; // symbols land on the result's dims in order
  int64_t in_prefix = 1;
  for (uint32_t e = 0; e < a->rank; in_prefix *= a->dims[e], e++) {
    unsigned s = mg_tensor_sym(x, e);
    if (!s)
      continue;
    int64_t out_prefix = 1;
    int32_t d = 0;
    for (; d < rank; out_prefix *= op->shape[d], d++)
      if (d >= from && out_prefix == in_prefix && op->shape[d] == at &&
          a->dims[e] == at)
        break;
    if (d == rank)
      return false;
    c->shape[d] = -(int64_t)s;
    from = d + 1;
  }
  return true;
}

MgProgram *mg_search_symbolic_generalize(const MgProgram *full,
                                         const MgProgram *one, int64_t at,
                                         MgDiag *diag) {
  MgDiag scratch; // the block graphs' reasons are read back from it
  if (!diag)
    diag = &scratch;
  const MgGraph *fr = &full->graphs[0], *r1 = &one->graphs[0];
  MgProgram *q = mg_program_create();
  MgTensorId *map = malloc((r1->num_tensors + 1) * sizeof *map);
  bool ok = q && map && mg_program_add_graph(q, MG_LEVEL_KERNEL) != MG_NO_ID;
  if (!ok)
    mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  for (uint32_t i = 0; ok && i < r1->num_ops; i++) {
    const MgOp *op = &r1->ops[i];
    if (op->kind == MG_OP_INPUT) {
      const MgTensor *x = mg_graph_input_tensor(fr, (uint32_t)op->attr);
      MgTensorId t =
          x ? mg_graph_add_input_as(q, 0, x, op, diag) : MG_NO_ID;
      map[op->outputs[0]] = t;
      ok = t != MG_NO_ID;
      continue;
    }
    MgOp c = *op;
    for (uint32_t k = 0; k < c.num_inputs; k++)
      c.inputs[k] = map[op->inputs[k]];
    if (c.kind == MG_OP_RESHAPE &&
        !generalize_reshape(&q->graphs[0], r1, op, at, &c)) {
      mg_diag_set(diag, MG_STATUS_UNSUPPORTED, 0, (int32_t)i,
                  "a reshape between kernels splits or merges a symbolic "
                  "dim");
      ok = false;
      break;
    }
    if (reduces_symbol(&q->graphs[0], &c)) {
      mg_diag_set(diag, MG_STATUS_UNSUPPORTED, 0, (int32_t)i,
                  "a kernel reduces over a symbolic dim");
      ok = false;
      break;
    }
    if (c.kind == MG_OP_CUSTOM) {
      MgGraphId g = generalize_block(q, one, at, &c, diag);
      if (g == MG_NO_ID) {
        ok = false;
        break;
      }
      c.attr = (int32_t)g;
    }
    MgTensorId out[MG_MAX_OP_OUTPUTS];
    ok = mg_graph_add_op(q, 0, &c, out, diag) != MG_NO_ID;
    for (uint32_t k = 0; ok && k < op->num_outputs; k++) {
      map[op->outputs[k]] = out[k];
      MgDType dt = (MgDType)r1->tensors[op->outputs[k]].dtype;
      if (q->graphs[0].tensors[out[k]].dtype != dt)
        ok = mg_graph_set_dtype(q, 0, out[k], dt, diag) == MG_STATUS_OK;
    }
  }
  for (uint32_t k = 0; ok && k < r1->num_outputs; k++)
    ok = mg_graph_mark_output(q, 0, map[r1->outputs[k]], diag) ==
         MG_STATUS_OK;
  if (ok && !mg_program_same_signature(q, full)) {
    mg_diag_set(diag, MG_STATUS_UNSUPPORTED, -1, -1,
                "the generalized program's outputs are not the symbolic "
                "program's");
    ok = false;
  }
  if (ok && mg_program_validate(q, NULL, diag) != MG_STATUS_OK)
    ok = false;
  free(map);
  if (!ok) {
    mg_program_destroy(q);
    return NULL;
  }
  return q;
}

MgStatus mg_search_symbolic_verify(const MgProgram *full,
                                   const MgProgram *candidate,
                                   const MgSymbolicTest *test,
                                   MgSymbolicCheck *check, MgDiag *diag) {
  const int64_t *sizes = test->sizes;
  uint32_t num_sizes = test->num_sizes;
  const MgVerifyOptions *options = &test->verify;
  memset(check, 0, sizeof *check);
  check->verdict = MG_VERDICT_EQUIVALENT;
  check->log2_bound = -1e300;
  for (uint32_t i = 0; i < num_sizes; i++) {
    MgProgram *a = mg_program_clone_at(full, sizes[i]);
    MgProgram *b = mg_program_clone_at(candidate, sizes[i]);
    MgStatus st = a && b ? mg_program_validate(b, NULL, diag)
                         : mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1,
                                       "out of memory");
    MgVerifyResult r;
    if (st == MG_STATUS_OK)
      st = mg_verify_equivalent(a, b, options, &r, diag);
    mg_program_destroy(a);
    mg_program_destroy(b);
    if (st != MG_STATUS_OK) {
      check->size = sizes[i];
      return st;
    }
    check->tests += r.tests;
    if (r.log2_bound > check->log2_bound)
      check->log2_bound = r.log2_bound; // the weakest size's bound
    if (r.verdict != MG_VERDICT_EQUIVALENT) {
      check->verdict = r.verdict;
      check->size = sizes[i];
      return MG_STATUS_OK;
    }
  }
  return MG_STATUS_OK;
}

bool mg_search_symbolic_loops(const MgProgram *p) {
  for (uint32_t g = 1; g < p->num_graphs; g++)
    if (p->graphs[g].level == MG_LEVEL_BLOCK && p->graphs[g].forloop_sym)
      return true;
  return false;
}

static uint32_t add_size(int64_t *sizes, uint32_t n, uint32_t cap,
                         int64_t size) {
  for (uint32_t i = 0; i < n; i++)
    if (sizes[i] == size)
      return n;
  if (n < cap && size >= 1)
    sizes[n++] = size;
  return n;
}

uint32_t mg_search_symbolic_test_sizes(const MgProgram *g, int64_t *sizes,
                                       uint32_t cap) {
  uint32_t n = add_size(sizes, 0, cap, 1);
  bool tiled = false;
  for (uint32_t k = 1; k < g->num_graphs; k++) {
    const MgGraph *b = &g->graphs[k];
    if (b->level != MG_LEVEL_BLOCK)
      continue;
    for (int a = 0; a < 3; a++)
      if (b->grid_sym[a]) {
        n = add_size(sizes, n, cap, (int64_t)b->grid_rows[a] + 1);
        tiled = true;
      }
    if (b->forloop_sym) {
      int64_t r = b->forloop_rows;
      n = add_size(sizes, n, cap, r + 1);
      n = add_size(sizes, n, cap, 2 * r);
      if (r > 2)
        n = add_size(sizes, n, cap, r - 1);
      tiled = true;
    }
  }
  if (!tiled)
    n = add_size(sizes, n, cap, 2);
  return add_size(sizes, n, cap, 7);
}

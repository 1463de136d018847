//===- sample.c - Checking a random sample of output rows ----------------===//
//
// A full check runs the reference (JIT), the interpreter and two error
// estimates over every output element; at LLM shapes (a 151,936-wide LM
// head, a 4096x11008 MLP) that is billions of operations. When the full
// check's estimated work passes a budget, it is restricted to a sample of
// "rows": indices of one dim d of the output. The kernel graph is sliced
// along d: every tensor the sampled indices depend on keeps only the
// matching slice, tensors they do not depend on stay whole. The
// interpreter and the estimates run on that sliced graph with the matching
// slices of the inputs, and the JIT runs the reference tiled along d by
// upstream's tiling, for the sampled indices only (jit.c). Each sampled
// element is computed as in the full program: slicing drops only work the
// element does not depend on.
//
// Invariant of a slicing: every op of the root graph is parallel along the
// dim its result is sliced on, so element j of that dim depends only on
// element j of the operands' sliced dims (or on operands left whole):
// element-wise ops (a broadcast operand stays whole), matmul's m, n or
// batch dims, a reduction over another dim, views that keep the dim whole
// and move it (transpose, a reshape that keeps it as one dim), and
// graph-defined kernels whose grid splits the dim (sliced by whole blocks).
// The dim is cut into G groups of consecutive indices, G dividing every
// sliced extent and every sliced grid axis (G is the extent itself for a
// graph of predefined ops); a sample is S of the G groups: the first, the
// last and S - 2 chosen at random (seeded), so edges are always checked.
//
//===----------------------------------------------------------------------===//
#include "run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { WHOLE = -1, UNSEEN = -2 };

/// Labels of a slicing along one dim of output 0.
typedef struct Slicing {
  int8_t *dim;    // per root tensor: its sliced dim, WHOLE or UNSEEN
  int8_t *axis;   // per root op: the grid axis a custom op is sliced on, or -1
  int64_t groups; // G
  double fixed;   // work of the ops computing whole tensors
} Slicing;

static double numel(const MgTensor *t) {
  double n = 1;
  for (uint32_t d = 0; d < t->rank; ++d)
    n *= (double)t->dims[d];
  return n;
}

static double graph_work(const MgProgram *p, MgGraphId gid, int depth);

/// Operations `op` of graph `g` costs once (a multiply-add counts one).
static double op_work(const MgProgram *p, const MgGraph *g, const MgOp *op,
                      int depth) {
  if (op->kind == MG_OP_INPUT)
    return 0;
  const MgTensor *out = &g->tensors[op->outputs[0]];
  const MgTensor *in0 = op->num_inputs ? &g->tensors[op->inputs[0]] : out;
  switch ((MgOpKind)op->kind) {
  case MG_OP_MATMUL:
    return numel(out) * (double)in0->dims[in0->rank - 1];
  case MG_OP_SUM:
  case MG_OP_REDUCE_MAX:
  case MG_OP_ACCUM:
  case MG_OP_SAVER: // its result is the whole kernel tensor, its work a tile
    return numel(in0);
  case MG_OP_CUSTOM:
  case MG_OP_THREAD:
    return graph_work(p, (MgGraphId)op->attr, depth + 1);
  default:
    return numel(out);
  }
}

/// Operations of one run of graph `gid`: a block graph's ops run once per
/// block, those in the for-loop once per iteration.
static double graph_work(const MgProgram *p, MgGraphId gid, int depth) {
  if (gid >= p->num_graphs || depth > 3)
    return 0;
  const MgGraph *g = &p->graphs[gid];
  bool *in_loop = NULL;
  if (g->level == MG_LEVEL_BLOCK) {
    in_loop = calloc(g->num_ops ? g->num_ops : 1, sizeof *in_loop);
    if (!in_loop || !mg_graph_ops_in_loop(g, in_loop)) {
      free(in_loop);
      return INFINITY; // unknown: never chosen as cheap
    }
  }
  double w = 0;
  for (uint32_t o = 0; o < g->num_ops; ++o)
    w += op_work(p, g, &g->ops[o], depth) *
         (in_loop && in_loop[o] ? g->forloop : 1);
  if (g->level == MG_LEVEL_BLOCK)
    w *= (double)g->grid[0] * g->grid[1] * g->grid[2];
  free(in_loop);
  return w;
}

double mg_run_program_work(const MgProgram *program) {
  return graph_work(program, 0, 0);
}

/// Asks that tensor `t` be sliced on `d` (or WHOLE); false on a conflict
/// with what another reader asked.
static bool want(Slicing *s, MgTensorId t, int8_t d) {
  if (s->dim[t] == UNSEEN)
    s->dim[t] = d;
  return s->dim[t] == d;
}

/// The dim of `in` that carries row-major dim `d` of `out` (same extent,
/// same count of elements after it), or -1.
static int8_t reshape_source(const MgTensor *in, const MgTensor *out,
                             int8_t d) {
  int64_t after_out = 1;
  for (uint32_t k = (uint32_t)d + 1; k < out->rank; ++k)
    after_out *= out->dims[k];
  int64_t after_in = 1;
  for (uint32_t e = in->rank; e-- > 0;) {
    if (after_in == after_out && in->dims[e] == out->dims[d])
      return (int8_t)e;
    after_in *= in->dims[e];
  }
  return -1;
}

/// Slices a graph-defined kernel whose outputs are asked for along their
/// dims: the grid axis that splits all of them, and the dims of the
/// operands that axis splits. False when no axis does it alone.
static bool slice_custom(const MgProgram *p, const MgGraph *g, MgOpId o,
                         Slicing *s, const uint32_t *uses) {
  const MgOp *op = &g->ops[o];
  const MgGraph *bg = &p->graphs[op->attr];
  int axis = -1;
  bool whole = false;
  for (uint32_t k = 0; k < op->num_outputs; ++k) {
    int8_t d = s->dim[op->outputs[k]];
    if (d == UNSEEN)
      continue;
    if (d == WHOLE) {
      whole = true;
      continue;
    }
    const MgOp *saver = &bg->ops[bg->tensors[bg->outputs[k]].producer];
    int a = 0;
    while (a < 3 && saver->omap[a] != d)
      ++a;
    if (a == 3 || (axis >= 0 && a != axis))
      return false;
    axis = a;
  }
  if (axis < 0) { // nothing sliced: every operand whole
    for (uint32_t i = 0; i < op->num_inputs; ++i)
      if (!want(s, op->inputs[i], WHOLE))
        return false;
    return true;
  }
  // A sliced grid changes every output; one read whole cannot be, and a
  // block graph shared with another kernel would change there too.
  if (whole || uses[op->attr] > 1)
    return false;
  for (uint32_t k = 0; k < op->num_outputs; ++k) {
    const MgOp *saver = &bg->ops[bg->tensors[bg->outputs[k]].producer];
    if (!want(s, op->outputs[k], saver->omap[axis]))
      return false;
  }
  s->axis[o] = (int8_t)axis;
  // Each operand: the dim its iterators cut along the axis (all alike).
  for (uint32_t b = 0; b < bg->num_ops; ++b) {
    const MgOp *in = &bg->ops[b];
    if (in->kind != MG_OP_INPUT)
      continue;
    int8_t d = UNSEEN;
    for (uint32_t r = 0; r < bg->num_ops; ++r) {
      const MgOp *it = &bg->ops[r];
      if (it->kind != MG_OP_ITERATOR || it->inputs[0] != in->outputs[0])
        continue;
      int8_t m = it->imap[axis] == MG_MAP_NONE ? WHOLE : it->imap[axis];
      if (d != UNSEEN && d != m)
        return false;
      d = m;
    }
    if (!want(s, op->inputs[in->attr], d == UNSEEN ? WHOLE : d))
      return false;
  }
  return true;
}

/// What op `o` of the root graph asks of its operands, given what its
/// result is asked for. False when it cannot be sliced so.
static bool slice_op(const MgProgram *p, const MgGraph *g, MgOpId o,
                     Slicing *s, const uint32_t *uses) {
  const MgOp *op = &g->ops[o];
  if (op->kind == MG_OP_INPUT)
    return true;
  if (op->kind == MG_OP_CUSTOM)
    return slice_custom(p, g, o, s, uses);
  if (op->num_outputs != 1)
    return false;
  int8_t d = s->dim[op->outputs[0]];
  if (d == UNSEEN) // read by nothing that matters
    return true;
  const MgTensor *out = &g->tensors[op->outputs[0]];
  bool ok = true;
  for (uint32_t i = 0; i < op->num_inputs && ok; ++i) {
    const MgTensor *in = &g->tensors[op->inputs[i]];
    int8_t want_d = d;
    if (d != WHOLE)
      switch ((MgOpKind)op->kind) {
      case MG_OP_MATMUL: {
        uint32_t r = out->rank;
        if ((uint32_t)d == r - 1) // n: the rhs's columns
          want_d = i == 1 ? d : WHOLE;
        else if ((uint32_t)d == r - 2) // m: the lhs's rows
          want_d = i == 0 ? d : WHOLE;
        break; // batch: both
      }
      case MG_OP_SUM:
      case MG_OP_REDUCE_MAX:
      case MG_OP_SLICE:
      case MG_OP_CONCAT:
        if (op->attr == d)
          return false; // the op reads across the dim
        break;
      case MG_OP_TRANSPOSE:
        want_d = op->perm[d];
        break;
      case MG_OP_RESHAPE:
        want_d = reshape_source(in, out, d);
        if (want_d < 0)
          return false;
        break;
      default:
        if (!mg_op_kind_is_elementwise((MgOpKind)op->kind))
          return false;
        if (in->dims[d] != out->dims[d]) // broadcast along the dim
          want_d = WHOLE;
        break;
      }
    ok = want(s, op->inputs[i], want_d);
  }
  return ok;
}

/// Labels the root graph for a slicing along dim `d` of output 0, with its
/// group count and fixed work. False when it cannot be sliced so.
static bool label(const MgProgram *p, uint32_t d, Slicing *s) {
  const MgGraph *g = &p->graphs[0];
  uint32_t *uses = calloc(p->num_graphs + 1, sizeof *uses);
  bool ok = uses != NULL;
  for (uint32_t o = 0; ok && o < g->num_ops; ++o)
    if (g->ops[o].kind == MG_OP_CUSTOM)
      uses[g->ops[o].attr]++;
  memset(s->dim, UNSEEN, g->num_tensors);
  memset(s->axis, -1, g->num_ops ? g->num_ops : 1);
  ok = ok && want(s, g->outputs[0], (int8_t)d);
  for (uint32_t o = g->num_ops; ok && o-- > 0;)
    ok = slice_op(p, g, o, s, uses);
  free(uses);
  if (!ok)
    return false;
  // G divides every sliced extent and every sliced grid axis.
  int64_t groups = 0;
  s->fixed = 0;
  for (uint32_t t = 0; t < g->num_tensors; ++t)
    if (s->dim[t] >= 0)
      groups = mg_gcd_i64(groups, g->tensors[t].dims[s->dim[t]]);
  for (uint32_t o = 0; o < g->num_ops; ++o) {
    const MgOp *op = &g->ops[o];
    if (s->axis[o] >= 0)
      groups = mg_gcd_i64(groups, p->graphs[op->attr].grid[s->axis[o]]);
    if (op->kind != MG_OP_INPUT && s->dim[op->outputs[0]] < 0)
      s->fixed += op_work(p, g, op, 0); // whole (or read by nothing)
  }
  s->groups = groups;
  return groups >= 2;
}

/// A copy of `p` with every sliced extent cut to `count` of its groups.
static MgProgram *slice_program(const MgProgram *p, const Slicing *s,
                                int64_t count) {
  MgProgram *c = mg_program_clone(p);
  if (!c)
    return NULL;
  MgGraph *g = &c->graphs[0];
  for (uint32_t t = 0; t < g->num_tensors; ++t)
    if (s->dim[t] >= 0)
      g->tensors[t].dims[s->dim[t]] =
          g->tensors[t].dims[s->dim[t]] / s->groups * count;
  for (uint32_t o = 0; o < g->num_ops; ++o) {
    MgOp *op = &g->ops[o];
    int8_t d = op->kind == MG_OP_INPUT ? WHOLE : s->dim[op->outputs[0]];
    if (op->kind == MG_OP_RESHAPE && d >= 0)
      op->shape[d] = g->tensors[op->outputs[0]].dims[d];
    if (s->axis[o] < 0)
      continue;
    // The block graph sees the sliced kernel tensors, in fewer blocks.
    MgGraph *bg = &c->graphs[op->attr];
    int a = s->axis[o];
    bg->grid[a] = (int32_t)(bg->grid[a] / s->groups * count);
    for (uint32_t b = 0; b < bg->num_ops; ++b) {
      MgOp *bop = &bg->ops[b];
      if (bop->kind == MG_OP_INPUT) {
        MgTensorId kt = op->inputs[bop->attr];
        if (s->dim[kt] >= 0)
          bg->tensors[bop->outputs[0]].dims[s->dim[kt]] =
              g->tensors[kt].dims[s->dim[kt]];
      } else if (bop->kind == MG_OP_SAVER && bop->omap[a] != MG_MAP_NONE) {
        MgTensor *t = &bg->tensors[bop->outputs[0]];
        t->dims[bop->omap[a]] = t->dims[bop->omap[a]] / s->groups * count;
      }
    }
  }
  return c;
}

static int by_value(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/// Chooses `count` of `groups` groups into `out`, increasing: the first,
/// the last, the others uniformly at random (Floyd's algorithm).
static bool choose_groups(int64_t groups, int64_t count, uint64_t seed,
                          int64_t *out) {
  MgRng rng = {mg_hash_u64(0x73616d706c65ull, seed)}; // "sample"
  MgPtrMap taken; // keys: a chosen value plus one (never null)
  mg_ptrmap_init(&taken);
  int64_t n = 0;
  out[n++] = 0;
  if (count > 1)
    out[n++] = groups - 1;
  // The others: count - n distinct values of 0 .. inner - 1, shifted by 1.
  int64_t inner = groups - 2, need = count - n;
  for (int64_t j = inner - need; j < inner; ++j) {
    int64_t t = (int64_t)(mg_rng_next(&rng) % (uint64_t)(j + 1));
    int64_t pick =
        mg_ptrmap_get(&taken, (void *)(uintptr_t)(t + 1)) == UINT32_MAX ? t
                                                                        : j;
    if (!mg_ptrmap_put(&taken, (void *)(uintptr_t)(pick + 1), 1)) {
      mg_ptrmap_free(&taken);
      return false;
    }
    out[n++] = pick + 1;
  }
  mg_ptrmap_free(&taken);
  qsort(out, (size_t)n, sizeof *out, by_value);
  return true;
}

/// The stored dim of root input `i` that carries its logical dim `d`.
static int8_t stored_dim(const MgGraph *g, uint32_t i, int8_t d) {
  for (uint32_t o = 0; o < g->num_ops; ++o) {
    const MgOp *op = &g->ops[o];
    if (op->kind != MG_OP_INPUT || op->attr != (int32_t)i)
      continue;
    int8_t perm[MG_MAX_DIMS];
    mg_op_input_perm(op, g->tensors[op->outputs[0]].rank, perm);
    return perm[d]; // logical dim d walks stored dim perm[d]
  }
  return -1;
}

/// A slicing along output dim `dim` and the sample the budget allows.
typedef struct Candidate {
  uint32_t dim;
  int64_t groups, count; // G and the S that fits the budget
  double per_group, fixed, elements, cost1;
} Candidate;

static double cost(const Candidate *c, int64_t count, int64_t out_unit) {
  // The interpreter and the estimates do the fixed work once; the JIT's
  // tiled loop may redo it for every sampled index (upstream fuses
  // producers into the loop).
  return c->fixed + (double)count * c->per_group +
         (double)(count * out_unit) * c->fixed;
}

MgRunSampleKind mg_run_sample_plan(const MgProgram *p,
                                   const MgRunSignature *sig, double budget,
                                   uint64_t seed, MgRunSample *s) {
  memset(s, 0, sizeof *s);
  s->full_work = mg_run_program_work(p);
  if (!(s->full_work > budget))
    return MG_RUN_SAMPLE_FULL;
  const MgGraph *g = &p->graphs[0];
  // One output, not an input passed through: its rows are what is sampled.
  if (sig->num_outputs != 1 || g->num_outputs != 1 ||
      g->ops[g->tensors[g->outputs[0]].producer].kind == MG_OP_INPUT)
    return MG_RUN_SAMPLE_NONE;
  Slicing sl = {malloc(g->num_tensors + 1), malloc(g->num_ops + 1), 0, 0};
  if (!sl.dim || !sl.axis) {
    free(sl.dim);
    free(sl.axis);
    return MG_RUN_SAMPLE_NONE;
  }
  const MgTensor *out = &g->tensors[g->outputs[0]];
  Candidate best = {0, 0, 0, 0, 0, -1, INFINITY};
  for (uint32_t d = 0; d < out->rank; ++d) {
    if (out->dims[d] < 2 || !label(p, d, &sl))
      continue;
    Candidate c = {d, sl.groups, 1, (s->full_work - sl.fixed) / sl.groups,
                   sl.fixed, 0, 0};
    int64_t unit = out->dims[d] / sl.groups;
    c.cost1 = cost(&c, 1, unit);
    double per = c.per_group + (double)unit * c.fixed;
    double fit = per > 0 ? floor((budget - c.fixed) / per) : (double)c.groups;
    c.count = fit < 1 ? 1 : fit > (double)c.groups ? c.groups : (int64_t)fit;
    if (c.count > MG_RUN_SAMPLE_MAX)
      c.count = MG_RUN_SAMPLE_MAX;
    c.elements = (double)c.count * numel(out) / (double)c.groups;
    bool fits = c.cost1 <= budget, best_fits = best.cost1 <= budget;
    if (fits != best_fits ? fits
        : fits ? c.elements > best.elements ||
                     (c.elements == best.elements && c.count > best.count)
               : c.cost1 < best.cost1)
      best = c;
  }
  MgRunSampleKind kind = MG_RUN_SAMPLE_NONE;
  if (best.elements >= 0 && best.count < best.groups && label(p, best.dim, &sl)) {
    s->dim = best.dim;
    s->groups = best.groups;
    s->num_sampled = best.count;
    s->out_unit = out->dims[best.dim] / best.groups;
    s->work = cost(&best, best.count, s->out_unit);
    s->sampled = malloc((size_t)best.count * sizeof *s->sampled);
    s->program = slice_program(p, &sl, best.count);
    MgDiag diag = MG_DIAG_INIT;
    if (s->sampled && s->program &&
        choose_groups(best.groups, best.count, seed, s->sampled) &&
        mg_program_validate(s->program, NULL, &diag) == MG_STATUS_OK)
      kind = MG_RUN_SAMPLE_ROWS;
    // Per input: the stored dim it is sliced on, its indices per group and
    // its sliced type; the output's sliced type.
    s->sig = *sig;
    for (uint32_t i = 0; kind == MG_RUN_SAMPLE_ROWS && i < sig->num_inputs;
         ++i) {
      const MgTensor *t = mg_graph_input_tensor(g, i);
      int8_t d = t ? sl.dim[t - g->tensors] : WHOLE;
      s->in_dim[i] = d >= 0 ? stored_dim(g, i, d) : -1;
      s->in_unit[i] = d >= 0 ? t->dims[d] / best.groups : 0;
      if (s->in_dim[i] >= 0)
        s->sig.inputs[i].dims[s->in_dim[i]] = s->in_unit[i] * best.count;
    }
    s->sig.outputs[0].dims[best.dim] = s->out_unit * best.count;
  }
  if (kind != MG_RUN_SAMPLE_ROWS)
    mg_run_sample_free(s);
  free(sl.dim);
  free(sl.axis);
  return kind;
}

void mg_run_sample_free(MgRunSample *s) {
  free(s->sampled);
  mg_program_destroy(s->program);
  s->sampled = NULL;
  s->program = NULL;
}

/// Flat index into a tensor of dims `full` of flat index `i` into its slice
/// along `dim` (`unit` indices per group, the sample's groups).
static int64_t full_index(const MgRunSample *s, const MgRunTensorType *full,
                          int dim, int64_t unit, int64_t i) {
  int64_t at = 0, stride = 1, rest = i;
  for (uint32_t k = full->rank; k-- > 0;) {
    int64_t n = (int)k == dim ? unit * s->num_sampled : full->dims[k];
    int64_t j = rest % n;
    rest /= n;
    if ((int)k == dim)
      j = s->sampled[j / unit] * unit + j % unit;
    at += j * stride;
    stride *= full->dims[k];
  }
  return at;
}

int64_t mg_run_sample_output_index(const MgRunSample *s,
                                   const MgRunTensorType *full, int64_t i) {
  return full_index(s, full, (int)s->dim, s->out_unit, i);
}

void mg_run_sample_gather_input(const MgRunSample *s,
                                const MgRunSignature *full, uint32_t i,
                                const void *storage, double *out) {
  const MgRunTensorType *t = &full->inputs[i];
  int64_t n = mg_run_numel(&s->sig.inputs[i]);
  for (int64_t k = 0; k < n; ++k)
    out[k] = mg_run_load(t->dtype, storage,
                         (size_t)(s->in_dim[i] < 0
                                      ? k
                                      : full_index(s, t, s->in_dim[i],
                                                   s->in_unit[i], k)));
}

void mg_run_sample_gather_output(const MgRunSample *s,
                                 const MgRunSignature *full,
                                 const void *storage, void *out) {
  const MgRunTensorType *t = &full->outputs[0];
  int64_t n = mg_run_numel(&s->sig.outputs[0]);
  size_t bytes = mg_dtype_bytes(t->dtype);
  for (int64_t k = 0; k < n; ++k)
    memcpy((char *)out + (size_t)k * bytes,
           (const char *)storage +
               (size_t)mg_run_sample_output_index(s, t, k) * bytes,
           bytes);
}

int64_t mg_run_sample_rows(const MgRunSample *s, int64_t *rows) {
  int64_t n = 0;
  for (uint32_t k = 0; k < s->num_sampled; ++k)
    for (int64_t j = 0; j < s->out_unit; ++j)
      rows[n++] = s->sampled[k] * s->out_unit + j;
  return n;
}

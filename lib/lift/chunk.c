//===- chunk.c - Turning a stretch of run members into a subprogram -------===//
//
// After translation, a chunk is checked and recorded: its outputs (results
// used after it, each an exact view of its own tensor of the IR type), the
// floating ops its reference must copy (and graph inputs for what it reads
// but does not compute on), its inputs in definition order, dead ops pruned
// from the kernel graph, and the slots unlift will use (see rewrite.c).
// Any failure cuts one op and asks for the run to be formed again.
//
//===----------------------------------------------------------------------===//
#include "partition.h"

#include <stdlib.h>
#include <string.h>

static bool has_outside_use(const MgLiftBlock *bs, MlirValue v) {
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation anc =
        mg_lift_ancestor_in(mlirOpOperandGetOwner(u), bs->block);
    int32_t p = mlirOperationIsNull(anc) ? -1 : mg_lift_block_pos(bs, anc);
    if (p < 0 || !bs->ops[p].chunk_member)
      return true;
  }
  return false;
}

typedef struct Growable {
  void *data;
  uint32_t num, cap;
} Growable;

static bool push(Growable *g, const void *item, size_t size) {
  if (!mg_array_reserve(&g->data, &g->cap, g->num + 1, size, 8))
    return false;
  memcpy((char *)g->data + g->num * size, item, size);
  g->num++;
  return true;
}

typedef struct Resolve {
  MgLiftBlock *bs;
  MgLiftBuilder *b;
  Growable clones; // MlirOperation
  MgPtrMap cloned;
  bool nomem;
} Resolve;

static bool add_clone(Resolve *r, MlirOperation def) {
  if (mg_ptrmap_get(&r->cloned, def.ptr) != UINT32_MAX)
    return true;
  // tensor.dim's tensor (ir.c, floating): an input, not computed here.
  bool dim = mg_bridge_op_is(def, "tensor.dim");
  if (dim) {
    MlirValue src = mlirOperationGetOperand(def, 0);
    MlirOperation sd = mg_lift_def_op(src);
    int32_t p = mlirOperationIsNull(sd) ? -1 : mg_lift_block_pos(r->bs, sd);
    if ((p >= 0 && r->bs->ops[p].chunk_member) ||
        mg_lift_input(r->b, src) == MG_NO_ID)
      return false;
  }
  for (intptr_t i = dim ? 1 : 0; i < mlirOperationGetNumOperands(def); ++i) {
    MlirOperation d = mg_lift_def_op(mlirOperationGetOperand(def, i));
    if (mlirOperationIsNull(d) || !add_clone(r, d))
      return false;
  }
  if (!mg_ptrmap_put(&r->cloned, def.ptr, r->clones.num) ||
      !push(&r->clones, &def, sizeof def)) {
    r->nomem = true;
    return false;
  }
  return true;
}

// Every value a member reads must exist in the reference: computed by a
// member, passed in (a graph input), or a floating op copied in.
static bool resolve_value(MlirValue v, void *ud) {
  Resolve *r = ud;
  MlirOperation def = mg_lift_def_op(v);
  if (!mlirOperationIsNull(def)) {
    int32_t p = mg_lift_block_pos(r->bs, def);
    if (p >= 0 && r->bs->ops[p].chunk_member)
      return true;
  }
  for (uint32_t i = 0; i < r->b->num_inputs; ++i)
    if (mlirValueEqual(r->b->inputs[i], v))
      return true;
  if (!mlirOperationIsNull(def) && mg_lift_is_floating(def))
    return add_clone(r, def);
  return mg_lift_input(r->b, v) != MG_NO_ID; // read but not computed on
}

typedef struct OrderedOp {
  uint32_t order;
  MlirOperation op;
} OrderedOp;

static int by_order(const void *a, const void *b) {
  const OrderedOp *x = a, *y = b;
  return x->order < y->order ? -1 : x->order > y->order;
}

void mg_lift_chunk_free(MgLiftChunk *c) {
  free(c->members);
  free(c->stayed);
  free(c->ref_ops);
  free(c->slots);
  free(c->inputs);
  free(c->outputs);
  mg_program_destroy(c->prog);
  memset(c, 0, sizeof *c);
}

typedef struct InputKey {
  uint32_t order, kind, index; // where the value is defined
  uint32_t pos;                // its position when created
} InputKey;

static int by_key(const void *a, const void *b) {
  const InputKey *x = a, *y = b;
  if (x->order != y->order)
    return x->order < y->order ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  if (x->index != y->index)
    return x->index < y->index ? -1 : 1;
  // Values defined outside the block share the unknown order: keep the order
  // of discovery (op order), never what qsort happens to do with ties.
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

// An output must be its own tensor (not an input, not another output) of
// the IR value's element type. A copy is mul_scalar 1.0, which keeps types;
// the type itself can only change at a binary op, matmul or reduction, so
// the producer's storage type (and that of the reshapes and transposes
// between, a convolution's) is set when nothing else in the graph reads
// it.
static bool retype_output(MgLiftBuilder *b, MgTensorId *t, uint8_t dtype) {
  const MgGraph *g = &b->prog->graphs[0];
  const MgOp *producer = &g->ops[g->tensors[*t].producer];
  bool copy = producer->kind == MG_OP_INPUT;
  for (uint32_t o = 0; o < g->num_outputs; ++o)
    copy |= g->outputs[o] == *t;
  if (g->tensors[*t].dtype != dtype)
    return !copy && mg_lift_retype(b, *t, dtype);
  if (copy)
    *t = mg_lift_emit_scalar(b, MG_OP_MUL_SCALAR, *t, 1.0, dtype);
  return *t != MG_NO_ID;
}

// Kernel graph inputs in definition order (function arguments first, in
// their order), whatever order the translation met them in: the INPUT ops
// are renumbered, which changes nothing else.
static bool order_inputs(MgLiftBlock *bs, MgLiftBuilder *b) {
  uint32_t n = b->num_inputs;
  InputKey *keys = malloc((n + 1) * sizeof *keys);
  MlirValue *vals = malloc((n + 1) * sizeof *vals);
  MgTensorId *ids = malloc((n + 1) * sizeof *ids);
  bool *reshaped = malloc((n + 1) * sizeof *reshaped);
  if (!keys || !vals || !ids || !reshaped) {
    free(keys);
    free(vals);
    free(ids);
    free(reshaped);
    return false;
  }
  for (uint32_t i = 0; i < n; ++i) {
    MlirValue v = b->inputs[i];
    MlirOperation at;
    if (mlirValueIsAOpResult(v)) {
      at = mlirOpResultGetOwner(v);
      keys[i].kind = 1;
      keys[i].index = (uint32_t)mlirOpResultGetResultNumber(v);
    } else {
      at = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
      keys[i].kind = 0;
      keys[i].index = (uint32_t)mlirBlockArgumentGetArgNumber(v);
    }
    keys[i].order = mg_ptrmap_get(&bs->plan->order, at.ptr);
    keys[i].pos = i;
  }
  qsort(keys, n, sizeof *keys, by_key);
  MgGraph *g = &b->prog->graphs[0];
  for (uint32_t i = 0; i < n; ++i) {
    vals[i] = b->inputs[keys[i].pos];
    ids[i] = b->input_ids[keys[i].pos];
    reshaped[i] = b->input_reshaped[keys[i].pos];
    g->ops[g->tensors[ids[i]].producer].attr = (int32_t)i;
  }
  memcpy(b->inputs, vals, n * sizeof *vals);
  memcpy(b->input_ids, ids, n * sizeof *ids);
  memcpy(b->input_reshaped, reshaped, n * sizeof *reshaped);
  free(keys);
  free(vals);
  free(ids);
  free(reshaped);
  return true;
}

// Marks result i of member k (op) as a kernel graph output when something
// outside the chunk uses it, recording the value in outs.
static int mark_result(MgLiftBlock *bs, uint32_t k, MgLiftBuilder *b,
                       MlirOperation op, intptr_t i, Growable *outs) {
  MlirValue v = mlirOperationGetResult(op, i);
  if (!has_outside_use(bs, v))
    return MG_LIFT_RUN_OK;
  uint32_t vi = mg_ptrmap_get(&b->index, v.ptr);
  if (vi == UINT32_MAX) {
    mg_lift_block_cut(bs, op, bs->members[k],
                      "internal: a result has no image");
    return MG_LIFT_RUN_RETRY;
  }
  MgLiftVal val = b->vals[vi];
  MgLiftType ty;
  b->current = op;
  // A result that leaves as a view of a μGraph tensor is written in
  // the layout its users read (transpose/reshape view ops).
  if (!mg_lift_realize(b, &val)) {
    mg_lift_block_cut(bs, b->blame, bs->members[k], b->why);
    return MG_LIFT_RUN_RETRY;
  }
  if (!mg_lift_val_is_exact(b, &val)) { // a broadcast cannot leave
    mg_lift_block_cut(bs, op, bs->members[k],
                      "internal: a result would leave the kernel graph "
                      "broadcast");
    return MG_LIFT_RUN_RETRY;
  }
  if (!mg_lift_result_type(op, i, &ty)) {
    mg_lift_block_cut(bs, op, bs->members[k], "unsupported result type");
    return MG_LIFT_RUN_RETRY;
  }
  MgTensorId t = val.t;
  if (!retype_output(b, &t, ty.dtype)) {
    char why[MG_LIFT_WHY_SIZE + 64];
    snprintf(why, sizeof why,
             "its result would leave the kernel "
             "graph as %s, computed in %s by an op that cannot change "
             "element types",
             mg_dtype_name((MgDType)ty.dtype),
             mg_dtype_name((MgDType)mg_lift_tensor(b, t)->dtype));
    mg_lift_block_cut(bs, val.origin, bs->members[k], why);
    return MG_LIFT_RUN_RETRY;
  }
  MgDiag diag = MG_DIAG_INIT;
  if (t == MG_NO_ID ||
      mg_graph_mark_output(b->prog, 0, t, &diag) != MG_STATUS_OK ||
      !push(outs, &v, sizeof v)) {
    mg_lift_block_cut(bs, op, bs->members[k],
                      "internal: cannot mark the output");
    return MG_LIFT_RUN_RETRY;
  }
  return MG_LIFT_RUN_OK;
}

// Marks every member result used after the chunk as an output, in member
// then result order.
static int mark_outputs(MgLiftBlock *bs, uint32_t from, uint32_t to,
                        MgLiftBuilder *b, Growable *outs) {
  int rc = MG_LIFT_RUN_OK;
  for (uint32_t k = from; k < to && rc == MG_LIFT_RUN_OK; ++k) {
    MlirOperation op = bs->ops[bs->members[k]].op;
    for (intptr_t i = 0;
         i < mlirOperationGetNumResults(op) && rc == MG_LIFT_RUN_OK; ++i)
      rc = mark_result(bs, k, b, op, i, outs);
  }
  return rc;
}

// Cuts every member: the chunk as a whole is not worth lifting.
static int cut_all(MgLiftBlock *bs, uint32_t from, uint32_t to,
                   const char *why) {
  for (uint32_t k = from; k < to; ++k)
    mg_lift_block_cut(bs, bs->ops[bs->members[k]].op, bs->members[k], why);
  return MG_LIFT_RUN_RETRY;
}

// Resolves the members' operands and captures to graph inputs (or copies
// of floating ops, gathered in res).
static int resolve_operands(MgLiftBlock *bs, uint32_t from, uint32_t to,
                            MgLiftBuilder *b, Resolve *res) {
  for (uint32_t k = from; k < to; ++k) {
    MlirOperation op = bs->ops[bs->members[k]].op;
    b->current = op;
    bool ok = true;
    // A masked select's i1 mask is read by the caller only (mask.c).
    intptr_t mask = mg_lift_select_fill(op) > 0 ? mg_lift_mask_operand(op) : -1;
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(op) && ok; ++i)
      ok = i == mask || resolve_value(mlirOperationGetOperand(op, i), res);
    ok = ok && mg_lift_for_each_capture(op, resolve_value, res);
    if (!ok) {
      if (res->nomem)
        return MG_LIFT_RUN_NOMEM;
      mg_lift_block_cut(bs, b->blame, bs->members[k],
                        b->failed ? b->why : "an operand cannot be passed in");
      return MG_LIFT_RUN_RETRY;
    }
  }
  return MG_LIFT_RUN_OK;
}

// Puts the kernel graph in its final form (inputs in definition order,
// convolutions' epilogues in front of their views, dead ops pruned) and
// checks it; failures are blamed on the first member.
static int settle_graph(MgLiftBlock *bs, MgLiftBuilder *b, uint32_t first,
                        const MlirValue *outputs, uint32_t num_outputs) {
  if (!order_inputs(bs, b))
    return MG_LIFT_RUN_NOMEM;
  if (!mg_lift_sink_views(b) || !mg_lift_prune(b) ||
      !mg_lift_merge_twins(b)) {
    mg_lift_block_cut(bs, bs->ops[first].op, first, b->why);
    return MG_LIFT_RUN_RETRY;
  }
  // Self-check: the kernel graph and its reference are functions of the
  // same distinct arguments (one block argument per IR value).
  if (!mg_lift_inputs_distinct(b)) {
    mg_lift_block_cut(bs, bs->ops[first].op, first,
                      "internal: the kernel graph would take one value twice");
    return MG_LIFT_RUN_RETRY;
  }
  MgDiag diag = MG_DIAG_INIT;
  if (mg_program_validate(b->prog, NULL, &diag) != MG_STATUS_OK) {
    char why[MG_LIFT_WHY_SIZE + 64];
    snprintf(why, sizeof why, "internal: invalid kernel graph: %.150s",
             diag.message);
    mg_lift_block_cut(bs, bs->ops[first].op, first, why);
    return MG_LIFT_RUN_RETRY;
  }
  if (!mg_lift_symbolize(b, outputs, num_outputs)) {
    mg_lift_block_cut(bs, bs->ops[first].op, first, b->why);
    return MG_LIFT_RUN_RETRY;
  }
  return MG_LIFT_RUN_OK;
}

// The slot unlift puts reference op `op` in (see rewrite.c): members get
// the number of stayed ops before them, a copy of stayed op s gets -2 - s,
// a copy of a floating op from before the span -1.
static int64_t ref_slot(const MgLiftBlock *bs, const MgLiftChunk *c,
                        MlirOperation op) {
  int32_t p = mg_lift_block_pos(bs, op);
  bool member = p >= 0 && bs->ops[p].chunk_member;
  int64_t slot = -1; // a copy of a floating op from before the span
  for (uint32_t s = 0; s < c->num_stayed; ++s) {
    int32_t q = mg_lift_block_pos(bs, c->stayed[s]);
    if (member && q < p)
      slot = s + 1; // members: number of stayed ops before them
    else if (!member && q == p)
      slot = -2 - (int64_t)s; // a copy of stayed op s
  }
  if (member && slot < 0)
    slot = 0;
  return slot;
}

// The reference ops (clones, then members) in block order, with their
// slots; sorted has room for all of them.
static void order_ref_ops(const MgLiftBlock *bs, MgLiftChunk *c,
                          const Resolve *res, OrderedOp *sorted,
                          uint32_t nref) {
  for (uint32_t i = 0; i < nref; ++i) {
    sorted[i].op = i < res->clones.num
                       ? ((MlirOperation *)res->clones.data)[i]
                       : c->members[i - res->clones.num];
    sorted[i].order = mg_ptrmap_get(&bs->plan->order, sorted[i].op.ptr);
  }
  qsort(sorted, nref, sizeof *sorted, by_order);
  for (uint32_t i = 0; i < nref; ++i) {
    c->ref_ops[i] = sorted[i].op;
    c->slots[i] = ref_slot(bs, c, sorted[i].op);
  }
  c->num_ref_ops = nref;
}

// Fills chunk c from the checked chunk (run positions [from, to) of
// res->bs, built in res->b): members, the ops that stayed in between,
// inputs, reference ops and slots; takes outs' array and the builder's
// program.
static int build_chunk(const Resolve *res, uint32_t from, uint32_t to,
                       Growable *outs, const char *note, MgLiftChunk *c) {
  MgLiftBlock *bs = res->bs;
  MgLiftBuilder *b = res->b;
  uint32_t first = bs->members[from], lastm = bs->members[to - 1];
  c->block = bs->block;
  c->num_members = to - from;
  c->members = malloc(c->num_members * sizeof *c->members);
  c->stayed = malloc((lastm - first + 1) * sizeof *c->stayed);
  c->inputs = malloc((b->num_inputs + 1) * sizeof *c->inputs);
  uint32_t nref = res->clones.num + (to - from);
  c->ref_ops = malloc(nref * sizeof *c->ref_ops);
  c->slots = malloc(nref * sizeof *c->slots);
  OrderedOp *sorted = malloc(nref * sizeof *sorted);
  if (!c->members || !c->stayed || !c->inputs || !c->ref_ops || !c->slots ||
      !sorted) {
    free(sorted);
    return MG_LIFT_RUN_NOMEM;
  }
  for (uint32_t k = from; k < to; ++k)
    c->members[k - from] = bs->ops[bs->members[k]].op;
  for (uint32_t i = first + 1; i < lastm; ++i)
    if (!bs->ops[i].chunk_member)
      c->stayed[c->num_stayed++] = bs->ops[i].op;
  memcpy(c->inputs, b->inputs, b->num_inputs * sizeof *c->inputs);
  c->num_inputs = b->num_inputs;
  order_ref_ops(bs, c, res, sorted, nref);
  free(sorted);
  c->num_clones = res->clones.num;
  c->outputs = outs->data;
  c->num_outputs = outs->num;
  outs->data = NULL;
  c->prog = b->prog;
  b->prog = NULL;
  c->compute = b->num_compute;
  c->order = mg_ptrmap_get(&bs->plan->order, bs->ops[first].op.ptr);
  snprintf(c->note, sizeof c->note, "%s", note);
  return MG_LIFT_RUN_OK;
}

// Appends c to the block's chunks.
static int append_chunk(MgLiftBlock *bs, const MgLiftChunk *c) {
  MgLiftChunk *grown =
      realloc(bs->chunks, (bs->num_chunks + 1) * sizeof *bs->chunks);
  if (!grown)
    return MG_LIFT_RUN_NOMEM;
  bs->chunks = grown;
  bs->chunks[bs->num_chunks++] = *c;
  return MG_LIFT_RUN_OK;
}

// Each step runs only while the previous ones succeeded (rc stays OK).
int mg_lift_block_finalize(MgLiftBlock *bs, uint32_t from, uint32_t to,
                           MgLiftBuilder *b, const char *note) {
  uint32_t first = bs->members[from];
  for (uint32_t k = from; k < to; ++k)
    bs->ops[bs->members[k]].chunk_member = true;
  Growable outs = {0};
  Resolve res = {bs, b, {0}, {0}, false};
  mg_ptrmap_init(&res.cloned);
  uint32_t computed = b->num_compute; // before output copies
  int rc = mark_outputs(bs, from, to, b, &outs);
  if (rc == MG_LIFT_RUN_OK && outs.num == 0)
    rc = cut_all(bs, from, to,
                 "its results are never used (dead code stays as written)");
  if (rc == MG_LIFT_RUN_OK && computed == 0)
    rc = cut_all(bs, from, to,
                 "the subprogram would compute nothing (only views)");
  if (rc == MG_LIFT_RUN_OK)
    rc = resolve_operands(bs, from, to, b, &res);
  if (rc == MG_LIFT_RUN_OK)
    rc = settle_graph(bs, b, first, outs.data, outs.num);
  MgLiftChunk c;
  memset(&c, 0, sizeof c);
  if (rc == MG_LIFT_RUN_OK)
    rc = build_chunk(&res, from, to, &outs, note, &c);
  if (rc == MG_LIFT_RUN_OK)
    rc = append_chunk(bs, &c);
  if (rc != MG_LIFT_RUN_OK)
    mg_lift_chunk_free(&c);
  for (uint32_t k = from; k < to; ++k)
    bs->ops[bs->members[k]].chunk_member = false;
  free(outs.data);
  free(res.clones.data);
  mg_ptrmap_free(&res.cloned);
  return rc;
}

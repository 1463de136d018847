//===- partition.c - Which ops of a block form which subprogram -----------===//
//
// A subprogram is cut from a *run*: a maximal stretch of the block that
// starts at a liftable op (COMPUTE or VIEW) and continues through liftable
// ops, stepping over *independent* ops (pure ops that read nothing the run
// computes: constants, cut views of arguments, even an unsupported pure op
// such as a gather of arguments). The first op that depends on the run and
// cannot be lifted ends it. Runs are contiguous up to independent
// ops, so a subprogram is always convex: no path can leave it through an
// unlifted op and come back, and the call that replaces it can sit where its
// last op was.
//
// A run splits, in order:
//  1. into segments where nothing connects the two sides (no value flows
//     across and no graph input is shared): unrelated computations become
//     separate kernel graphs, while interleaved ones stay together;
//  2. greedily into chunks of at most max-ops μGraph ops, and before an exp
//     that would read an exp result (keeping each chunk LAX); a boundary
//     moves back over ops that emitted nothing (views, pending sigmoids), so
//     they stay with their consumers.
// When translation or the final checks of a chunk fail, the op to blame is
// cut (left in place, with the reason) and the run is formed again: every
// retry cuts one more op, so this terminates, and it is deterministic.
//
//===----------------------------------------------------------------------===//
#include "partition.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int32_t mg_lift_block_pos(const MgLiftBlock *bs, MlirOperation op) {
  uint32_t p = mg_ptrmap_get(&bs->pos, op.ptr);
  return p == UINT32_MAX ? -1 : (int32_t)p;
}

static bool made_by_member(const MgLiftBlock *bs, MlirValue v) {
  MlirOperation def = mg_lift_def_op(v);
  if (mlirOperationIsNull(def))
    return false;
  int32_t p = mg_lift_block_pos(bs, def);
  return p >= 0 && bs->ops[p].member;
}

static bool not_from_run(MlirValue v, void *ud) {
  return !made_by_member(ud, v);
}

// Pure and reading nothing the run computes: may sit inside its span.
static bool independent(MgLiftBlock *bs, uint32_t i) {
  MlirOperation op = bs->ops[i].op;
  if (!mg_lift_is_pure(op))
    return false;
  for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); ++k)
    if (made_by_member(bs, mlirOperationGetOperand(op, k)))
      return false;
  return mg_lift_for_each_capture(op, not_from_run, bs);
}

// Views join (and start) runs even when they read a value from outside:
// inside the kernel graph they cost nothing and keep layouts consistent (a
// weight and an activation reshaped to rank 3 for tosa.matmul next to
// element-wise ops on rank 2). If a view gets in the way it is blamed, cut,
// and its result becomes a graph input instead.
static bool joins_run(MgLiftBlock *bs, uint32_t i) {
  MgLiftOpInfo *o = &bs->ops[i];
  return !o->cut &&
         (o->cls == MG_LIFT_CLASS_COMPUTE || o->cls == MG_LIFT_CLASS_VIEW);
}

static void clear_members(MgLiftBlock *bs) {
  for (uint32_t k = 0; k < bs->num_members; ++k)
    bs->ops[bs->members[k]].member = false;
  bs->num_members = 0;
}

static void form_run(MgLiftBlock *bs, uint32_t start) {
  clear_members(bs);
  bs->members[bs->num_members++] = start;
  bs->ops[start].member = true;
  for (uint32_t j = start + 1; j < bs->n; ++j) {
    if (joins_run(bs, j)) {
      bs->members[bs->num_members++] = j;
      bs->ops[j].member = true;
    } else if (!independent(bs, j)) {
      break;
    }
  }
}

void mg_lift_block_cut(MgLiftBlock *bs, MlirOperation blame, uint32_t fallback,
                       const char *why) {
  int32_t p = mlirOperationIsNull(blame) ? -1 : mg_lift_block_pos(bs, blame);
  if (p < 0 || !bs->ops[p].member || bs->ops[p].cut)
    p = (int32_t)fallback;
  bs->ops[p].cut = true;
  snprintf(bs->ops[p].why, sizeof bs->ops[p].why, "%s", why);
}

//===--- Segments ---------------------------------------------------------===//

static uint32_t find(uint32_t *parent, uint32_t x) {
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

static void unite(uint32_t *parent, uint32_t a, uint32_t b) {
  a = find(parent, a);
  b = find(parent, b);
  if (a != b)
    parent[a > b ? a : b] = a < b ? a : b;
}

typedef struct Connect {
  MgLiftBlock *bs;
  uint32_t *parent;
  uint32_t self;           // run position of the op being scanned
  MgPtrMap *first_use; // external value -> first run position using it
  bool nomem;
} Connect;

static bool connect_value(MlirValue v, void *ud) {
  Connect *c = ud;
  MlirOperation def = mg_lift_def_op(v);
  int32_t p = mlirOperationIsNull(def) ? -1 : mg_lift_block_pos(c->bs, def);
  if (p >= 0 && c->bs->ops[p].member) {
    for (uint32_t k = 0; k < c->bs->num_members; ++k)
      if (c->bs->members[k] == (uint32_t)p) {
        unite(c->parent, k, c->self);
        break;
      }
    return true;
  }
  if (!mlirOperationIsNull(def) && mg_lift_is_floating(def))
    return true; // constants connect nothing
  uint32_t first = mg_ptrmap_get(c->first_use, v.ptr);
  if (first == UINT32_MAX) {
    if (!mg_ptrmap_put(c->first_use, v.ptr, c->self))
      c->nomem = true;
  } else {
    unite(c->parent, first, c->self);
  }
  return true;
}

// seg_end[k]: true when a segment ends after run position k.
static bool segment(MgLiftBlock *bs, bool *seg_end) {
  uint32_t m = bs->num_members;
  uint32_t *parent = malloc(m * sizeof *parent);
  uint32_t *last = malloc(m * sizeof *last);
  MgPtrMap first_use;
  mg_ptrmap_init(&first_use);
  if (!parent || !last) {
    free(parent);
    free(last);
    return false;
  }
  Connect c = {bs, parent, 0, &first_use, false};
  for (uint32_t k = 0; k < m; ++k)
    parent[k] = k;
  for (uint32_t k = 0; k < m; ++k) {
    MlirOperation op = bs->ops[bs->members[k]].op;
    c.self = k;
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
      connect_value(mlirOperationGetOperand(op, i), &c);
    mg_lift_for_each_capture(op, connect_value, &c);
  }
  for (uint32_t k = 0; k < m; ++k)
    last[find(parent, k)] = k; // increasing k: ends at the last member
  uint32_t reach = 0;
  for (uint32_t k = 0; k < m; ++k) {
    uint32_t l = last[find(parent, k)];
    reach = l > reach ? l : reach;
    seg_end[k] = reach == k;
  }
  mg_ptrmap_free(&first_use);
  free(parent);
  free(last);
  return !c.nomem;
}

static void free_chunks(MgLiftBlock *bs) {
  for (uint32_t i = 0; i < bs->num_chunks; ++i)
    mg_lift_chunk_free(&bs->chunks[i]);
  bs->num_chunks = 0;
}

// Translates run positions [from, to) into a fresh builder.
static int build(MgLiftBlock *bs, MgLiftBuilder *b, uint32_t from, uint32_t to,
                 uint32_t *stop, char note[MG_LIFT_WHY_SIZE]) {
  const MgLiftOptions *opts = bs->plan->opts;
  if (!mg_lift_builder_init(b, opts))
    return MG_LIFT_RUN_NOMEM;
  *stop = to;
  for (uint32_t k = from; k < to; ++k) {
    uint32_t before = b->num_compute;
    b->lax_break = false;
    MlirOperation op = bs->ops[bs->members[k]].op;
    if (!mg_lift_translate(b, op)) {
      mg_lift_block_cut(bs, b->blame, bs->members[k], b->why);
      return MG_LIFT_RUN_RETRY;
    }
    bs->counts[k] = b->num_compute - before;
    bool lax = b->lax_break;
    bool full = b->num_compute > opts->max_ops;
    if ((lax || full) && k == from) {
      if (lax) {
        mg_lift_block_cut(
            bs, op, bs->members[k],
            "an exp reads an exp result within this op (outside LAX)");
        return MG_LIFT_RUN_RETRY;
      }
      continue; // one op may exceed the bound on its own
    }
    if (lax || full) {
      *stop = k;
      if (lax)
        snprintf(note, MG_LIFT_WHY_SIZE,
                 "an exp here reads an exp result of the "
                 "previous subprogram (one exp per path keeps each LAX)");
      else
        snprintf(note, MG_LIFT_WHY_SIZE,
                 "the previous subprogram reached "
                 "max-ops=%u",
                 opts->max_ops);
      return MG_LIFT_RUN_OK;
    }
  }
  return MG_LIFT_RUN_OK;
}

static bool changes_type(MlirOperation op) {
  if (mlirOperationGetNumOperands(op) < 1 || mlirOperationGetNumResults(op) < 1)
    return false;
  MlirType a = mlirValueGetType(mlirOperationGetOperand(op, 0)),
           r = mlirValueGetType(mlirOperationGetResult(op, 0));
  return mlirTypeIsAShaped(a) && mlirTypeIsAShaped(r) &&
         !mlirTypeEqual(mlirShapedTypeGetElementType(a),
                        mlirShapedTypeGetElementType(r));
}

// A cast (an op that emitted nothing and changes the element type) read
// after a max-ops boundary would leave the chunk in a type its μGraph
// tensor may not be able to take (chunk.c, retype_output), and be cut:
// the boundary moves before the first such cast, which then opens the
// next chunk with its readers (an RMSNorm's f32 view of the residual).
static uint32_t before_read_cast(const MgLiftBlock *bs, uint32_t start,
                                 uint32_t stop) {
  uint32_t last = bs->members[stop - 1], before = bs->counts[start];
  for (uint32_t k = start + 1; k < stop; before += bs->counts[k++]) {
    MlirOperation op = bs->ops[bs->members[k]].op;
    if (bs->counts[k] != 0 || before == 0 || !changes_type(op))
      continue; // (the chunk before the cast must compute something)
    for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(op, 0));
         !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
      MlirOperation anc =
          mg_lift_ancestor_in(mlirOpOperandGetOwner(u), bs->block);
      int32_t p = mlirOperationIsNull(anc) ? -1 : mg_lift_block_pos(bs, anc);
      if (p < 0 || (uint32_t)p > last)
        return k;
    }
  }
  return stop;
}

static int chunk_segment(MgLiftBlock *bs, uint32_t from, uint32_t to,
                         char *carry_note) {
  uint32_t start = from;
  while (start < to) {
    MgLiftBuilder b;
    uint32_t stop;
    char note[MG_LIFT_WHY_SIZE] = "";
    int rc = build(bs, &b, start, to, &stop, note);
    if (rc == MG_LIFT_RUN_OK && stop < to) {
      // Keep ops that emitted nothing (views, pending sigmoids) with the
      // consumers that come after the boundary.
      while (stop - 1 > start && bs->counts[stop - 1] == 0)
        --stop;
      stop = before_read_cast(bs, start, stop);
      mg_lift_builder_free(&b);
      uint32_t again;
      char unused[MG_LIFT_WHY_SIZE];
      rc = build(bs, &b, start, stop, &again, unused);
    }
    if (rc == MG_LIFT_RUN_OK)
      rc = mg_lift_block_finalize(bs, start, stop, &b, carry_note);
    mg_lift_builder_free(&b);
    if (rc != MG_LIFT_RUN_OK)
      return rc;
    snprintf(carry_note, MG_LIFT_WHY_SIZE, "%s", note);
    start = stop;
  }
  return MG_LIFT_RUN_OK;
}

static int process_run(MgLiftBlock *bs) {
  bool *seg_end = malloc(bs->num_members * sizeof *seg_end);
  if (!seg_end || !segment(bs, seg_end)) {
    free(seg_end);
    return MG_LIFT_RUN_NOMEM;
  }
  int rc = MG_LIFT_RUN_OK;
  uint32_t from = 0;
  char note[MG_LIFT_WHY_SIZE] = "";
  for (uint32_t k = 0; k < bs->num_members && rc == MG_LIFT_RUN_OK; ++k)
    if (seg_end[k]) {
      note[0] = 0;
      rc = chunk_segment(bs, from, k + 1, note);
      from = k + 1;
    }
  free(seg_end);
  return rc;
}

static bool has_tensor_result(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i)
    if (mlirTypeIsAShaped(mlirValueGetType(mlirOperationGetResult(op, i))))
      return true;
  return false;
}

void mg_lift_plan_note(MgLiftPlan *plan, MlirOperation op, const char *fmt,
                       ...) {
  if (!plan->opts->remark)
    return;
  if (!mg_array_reserve(&plan->notes, &plan->cap_notes, plan->num_notes + 1,
                        sizeof *plan->notes, 16)) {
    plan->status = MG_STATUS_NOMEM;
    return;
  }
  MgLiftNote *note = &plan->notes[plan->num_notes++];
  note->order = mg_ptrmap_get(&plan->order, op.ptr);
  note->loc = mlirOperationGetLocation(op);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(note->text, sizeof note->text, fmt, ap);
  va_end(ap);
}

static bool commit(MgLiftBlock *bs) {
  MgLiftPlan *plan = bs->plan;
  if (plan->num_chunks + bs->num_chunks > plan->cap_chunks) {
    uint32_t cap = plan->cap_chunks ? plan->cap_chunks : 4;
    while (cap < plan->num_chunks + bs->num_chunks)
      cap *= 2;
    MgLiftChunk *c = realloc(plan->chunks, cap * sizeof *c);
    if (!c)
      return false;
    plan->chunks = c;
    plan->cap_chunks = cap;
  }
  for (uint32_t i = 0; i < bs->num_chunks; ++i) {
    MgLiftChunk *c = &bs->chunks[i];
    for (uint32_t k = 0; k < c->num_members; ++k)
      bs->ops[mg_lift_block_pos(bs, c->members[k])].in_chunk = true;
    plan->chunks[plan->num_chunks++] = *c;
  }
  bs->num_chunks = 0;
  return true;
}

static void notes_for_block(MgLiftBlock *bs) {
  for (uint32_t i = 0; i < bs->n; ++i) {
    MgLiftOpInfo *o = &bs->ops[i];
    if (o->in_chunk || o->cls == MG_LIFT_CLASS_FLOATING ||
        !has_tensor_result(o->op))
      continue;
    char name[96];
    mg_bridge_op_name(o->op, name, sizeof name);
    const char *why = o->why;
    if (!why[0])
      why = o->cls == MG_LIFT_CLASS_VIEW
                ? "a reshape, transpose or cast outside any subprogram "
                  "stays in place (a kernel graph reads its result as an "
                  "input)"
                : "no subprogram could take it";
    mg_lift_plan_note(bs->plan, o->op, "'%s' is not lifted: %s", name, why);
    bs->plan->ops_left++;
    if (bs->plan->stats)
      mg_lift_stats_count(bs->plan->stats, name, why);
  }
}

void mg_lift_plan_block(MgLiftPlan *plan, MlirBlock block) {
  MgLiftBlock bs;
  memset(&bs, 0, sizeof bs);
  bs.plan = plan;
  bs.block = block;
  mg_ptrmap_init(&bs.pos);
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    bs.n++;
  bs.ops = calloc(bs.n + 1, sizeof *bs.ops);
  bs.members = malloc((bs.n + 1) * sizeof *bs.members);
  bs.counts = malloc((bs.n + 1) * sizeof *bs.counts);
  if (!bs.ops || !bs.members || !bs.counts) {
    plan->status = MG_STATUS_NOMEM;
    goto done;
  }
  uint32_t i = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op), ++i) {
    bs.ops[i].op = op;
    bs.ops[i].cls = (uint8_t)mg_lift_classify(op, plan->opts, bs.ops[i].why,
                                              sizeof bs.ops[i].why);
    if (!mg_ptrmap_put(&bs.pos, op.ptr, i)) {
      plan->status = MG_STATUS_NOMEM;
      goto done;
    }
  }
  for (i = 0; i < bs.n;) {
    // Views may start a run: taking weights and activations in their own
    // layout keeps every tensor of the kernel graph at one rank.
    if (!joins_run(&bs, i)) {
      ++i;
      continue;
    }
    form_run(&bs, i);
    int rc = process_run(&bs);
    if (rc == MG_LIFT_RUN_NOMEM) {
      free_chunks(&bs);
      plan->status = MG_STATUS_NOMEM;
      goto done;
    }
    if (rc == MG_LIFT_RUN_RETRY) { // one more op is cut: form the run again
      free_chunks(&bs);
      continue;
    }
    uint32_t end = bs.members[bs.num_members - 1];
    if (!commit(&bs)) {
      free_chunks(&bs);
      plan->status = MG_STATUS_NOMEM;
      goto done;
    }
    clear_members(&bs);
    i = end + 1;
  }
  clear_members(&bs);
  notes_for_block(&bs);
done:
  free_chunks(&bs);
  free(bs.chunks);
  free(bs.ops);
  free(bs.members);
  free(bs.counts);
  mg_ptrmap_free(&bs.pos);
}

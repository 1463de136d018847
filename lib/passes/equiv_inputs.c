//===- equiv_inputs.c - One input list for two compared programs ----------===//
//
// Slots are the merged inputs: the arguments (positions 0..num_args-1 in
// both programs), then one per distinct constant, a's first. Each program
// is copied (mg_graph_append, block graphs included) with its own inputs
// bound to their slots and the other side's slots left unused: an unused
// input changes no output, so each copy computes what the original did.
//
//===----------------------------------------------------------------------===//
#include "equiv_inputs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Slot {
  const MgTensor *type;           // element type and dims
  const MgLiftConstant *constant; // NULL for an argument
} Slot;

static MgTensorId input_id(const MgGraph *g, uint32_t k) {
  return (MgTensorId)(mg_graph_input_tensor(g, k) - g->tensors);
}

static bool same_constant(const Slot *s, const MgTensor *t,
                          const MgLiftConstant *c) {
  return s->constant && s->type->dtype == t->dtype &&
         mg_graph_same_shape(s->type, t) && s->constant->count == c->count &&
         !memcmp(s->constant->values, c->values,
                 (size_t)c->count * sizeof *c->values);
}

// Slot of each input of `side` into pos[], adding its constants to slots.
static void place(const MgEquivSide *side, Slot *slots, uint32_t *num_slots,
                  uint32_t *pos) {
  const MgGraph *g = &side->program->graphs[0];
  for (uint32_t k = 0; k < side->num_args; ++k)
    pos[k] = k;
  for (uint32_t i = 0; i < side->num_constants; ++i) {
    const MgTensor *t = mg_graph_input_tensor(g, side->num_args + i);
    const MgLiftConstant *c = &side->constants[i];
    uint32_t s = side->num_args;
    while (s < *num_slots && !same_constant(&slots[s], t, c))
      ++s;
    if (s == *num_slots)
      slots[(*num_slots)++] = (Slot){t, c};
    pos[side->num_args + i] = s;
  }
}

// Input `s` of `q` for argument `s` of `g`: its own type and layout, or
// (undo) the stored array and a transpose view of it to the logical shape.
static MgTensorId add_arg(MgProgram *q, const MgGraph *g, uint32_t s,
                          bool undo, MgDiag *diag) {
  const MgTensor *t = mg_graph_input_tensor(g, s);
  int8_t perm[MG_MAX_DIMS];
  bool moved = mg_graph_tensor_perm(g, t, perm);
  int64_t dims[MG_MAX_DIMS];
  mg_graph_stored_dims(g, input_id(g, s), dims);
  MgTensorId in = mg_graph_add_input(q, 0, (MgDType)t->dtype, t->rank,
                                     undo ? dims : t->dims, diag);
  if (in == MG_NO_ID || !moved)
    return in;
  if (undo)
    return mg_graph_transpose(q, 0, in, perm, diag);
  return mg_graph_set_input_perm(q, 0, in, perm, diag) == MG_STATUS_OK
             ? in
             : MG_NO_ID;
}

static MgProgram *copy_onto(const MgEquivSide *side, const Slot *slots,
                            uint32_t num_slots, const uint32_t *pos,
                            MgDiag *diag) {
  const MgGraph *g = &side->program->graphs[0];
  // The body is copied from a clone without layouts (block graphs take
  // the logical tensors) when the arguments enter as stored.
  bool undo = side->undo_layouts && mg_program_has_layouts(side->program);
  MgProgram *plain = undo ? mg_program_clone(side->program) : NULL;
  if (plain)
    mg_program_clear_layouts(plain);
  MgProgram *q = mg_program_create();
  MgTensorId *map = malloc((g->num_tensors + 1) * sizeof *map);
  MgTensorId *ins = malloc((num_slots + 1) * sizeof *ins);
  MgStatus st = q && map && ins && (plain || !undo) &&
                        mg_program_add_graph(q, MG_LEVEL_KERNEL) == 0
                    ? MG_STATUS_OK
                    : mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1,
                                  "out of memory");
  for (uint32_t s = 0; st == MG_STATUS_OK && s < num_slots; ++s) {
    const MgTensor *t = slots[s].type;
    ins[s] = s < side->num_args
                 ? add_arg(q, g, s, undo, diag)
                 : mg_graph_add_input(q, 0, (MgDType)t->dtype, t->rank,
                                      t->dims, diag);
    if (ins[s] == MG_NO_ID)
      st = MG_STATUS_INVALID;
  }
  for (uint32_t t = 0; map && t < g->num_tensors; ++t)
    map[t] = MG_NO_ID;
  for (uint32_t k = 0; st == MG_STATUS_OK && k < g->num_inputs; ++k)
    map[input_id(g, k)] = ins[pos[k]];
  if (st == MG_STATUS_OK)
    st = mg_graph_append(q, 0, undo ? plain : side->program, 0, map, diag);
  for (uint32_t o = 0; st == MG_STATUS_OK && o < g->num_outputs; ++o)
    st = mg_graph_mark_output(q, 0, map[g->outputs[o]], diag);
  free(map);
  free(ins);
  mg_program_destroy(plain);
  if (st == MG_STATUS_OK)
    return q;
  mg_program_destroy(q);
  return NULL;
}

static bool all_finite(const MgLiftConstant *c) {
  for (int64_t e = 0; e < c->count; ++e)
    if (!isfinite(c->values[e]))
      return false;
  return true;
}

MgStatus mg_pass_equiv_merge(const MgEquivSide *a, const MgEquivSide *b,
                             MgEquivInputs *out, MgDiag *diag) {
  memset(out, 0, sizeof *out);
  if (a->num_args != b->num_args)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "argument counts differ: %u vs %u", a->num_args,
                       b->num_args);
  uint32_t na = a->program->graphs[0].num_inputs,
           nb = b->program->graphs[0].num_inputs;
  uint32_t cap = a->num_args + a->num_constants + b->num_constants + 1;
  Slot *slots = calloc(cap, sizeof *slots);
  uint32_t *pa = malloc((na + 1) * sizeof *pa),
           *pb = malloc((nb + 1) * sizeof *pb), num_slots = a->num_args;
  out->fixed = malloc(cap * sizeof *out->fixed);
  MgStatus st = slots && pa && pb && out->fixed
                    ? MG_STATUS_OK
                    : mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1,
                                  "out of memory");
  if (st == MG_STATUS_OK) {
    place(a, slots, &num_slots, pa);
    place(b, slots, &num_slots, pb);
    out->a = copy_onto(a, slots, num_slots, pa, diag);
    out->b = out->a ? copy_onto(b, slots, num_slots, pb, diag) : NULL;
    st = out->b ? MG_STATUS_OK : MG_STATUS_INVALID;
  }
  for (uint32_t s = a->num_args; st == MG_STATUS_OK && s < num_slots; ++s) {
    const MgLiftConstant *c = slots[s].constant;
    if (all_finite(c))
      out->fixed[out->num_fixed++] =
          (MgVerifyConstant){s, c->values, c->count};
    else
      out->symbols++;
  }
  free(slots);
  free(pa);
  free(pb);
  if (st != MG_STATUS_OK)
    mg_pass_equiv_free(out);
  return st;
}

void mg_pass_equiv_free(MgEquivInputs *in) {
  mg_program_destroy(in->a);
  mg_program_destroy(in->b);
  free(in->fixed);
  memset(in, 0, sizeof *in);
}

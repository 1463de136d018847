//===- canon.c - Canonical order of appended ops --------------------------===//
//
// A DAG of ops has many topological orders; the generator accepts exactly
// one of them: each appended op must have a key strictly greater than the
// previous op's key, where the key is (largest operand id, operand ids in
// order, kind, attribute). Why this picks one order per DAG:
//  - existence: take the available op (operands all made) with the
//    smallest key. An op becomes available right after its largest operand
//    is made, and that operand is the newest tensor, so the op's key is
//    larger than every key chosen so far; ops available earlier but not
//    chosen have keys >= the chosen one. So the chosen keys increase, and
//    strictly because two ops with equal keys are the same op on the same
//    operands (a duplicate, which the generator never builds).
//  - uniqueness: any other order appends, at some step, an op with a
//    larger key while a smaller-keyed op is available; that op must come
//    later with a smaller key than its predecessor, which the rule forbids.
// Commutative ops (add, mul) take their operands in increasing id order, so
// add(a, b) and add(b, a) are one candidate. The attribute separates ops of
// one kind on one operand (sum over dim 0 or 1, accumulator kinds, scalar
// values, and for a custom kernel the signature of its block graph).
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <string.h>

void mg_opkey_of(const MgOp *op, uint64_t attr, OpKey *key) {
  key->max_in = 0;
  for (uint32_t i = 0; i < MG_MAX_OP_INPUTS; i++) {
    key->in[i] = i < op->num_inputs ? op->inputs[i] : UINT32_MAX;
    if (i < op->num_inputs && op->inputs[i] > key->max_in)
      key->max_in = op->inputs[i];
  }
  key->kind = op->kind;
  key->attr = attr;
}

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

int mg_opkey_compare(const OpKey *a, const OpKey *b) {
  int c = cmp_u64(a->max_in, b->max_in);
  for (uint32_t i = 0; !c && i < MG_MAX_OP_INPUTS; i++)
    c = cmp_u64(a->in[i], b->in[i]);
  if (!c)
    c = cmp_u64(a->kind, b->kind);
  if (!c)
    c = cmp_u64(a->attr, b->attr);
  return c;
}

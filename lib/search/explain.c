//===- explain.c - The best candidates and what became of them ------------===//
//
// For --mirage-explain (options.explain_top): the best candidates the
// search ranked for testing, over every kernel-graph size, each with its
// fate (verified, failed its fingerprint, not tested because no cheaper
// than the bar, ...) and the tests it ran.
//
// Invariant: items[0..num) sorted by mg_kept_compare (the collectors'
// total order: cost, hash, program words), no two programs equal,
// num <= cap. Offers come only from the thread that called mg_search_run,
// after each round of testing (and for the prologue cut's composition),
// in an order fixed by the merged collectors, which are the same for any
// thread count; so is this list. A candidate ranked at position >= cap in
// its round's collector has cap candidates before it in that round alone,
// so only the first cap of each round can reach the list.
//
// Nothing here decides anything: the search tests and chooses exactly as
// without it (the snapshot borrows programs, the list clones them).
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <stdlib.h>
#include <string.h>

// ORDER MG_SEARCH_FATE: follows the enum.
static const char *const fate_names[MG_SEARCH_FATE_COUNT] = {
    "verified",  "fingerprint", "rejected",    "weak-bound",
    "unstable",  "sibling",     "not-cheaper", "untested",
    "stopped",
};

const char *mg_search_fate_name(MgSearchFate fate) {
  return (unsigned)fate < MG_SEARCH_FATE_COUNT ? fate_names[fate] : NULL;
}

void mg_explain_init(Explain *e, uint32_t cap) {
  memset(e, 0, sizeof *e);
  e->cap = cap;
}

static void candidate_free(MgSearchCandidate *c) {
  mg_program_destroy(c->program);
  c->program = NULL;
}

void mg_explain_dispose(Explain *e) {
  for (uint32_t i = 0; i < e->num; i++)
    candidate_free(&e->items[i]);
  free(e->items);
  e->items = NULL;
  e->num = 0;
}

static Kept kept_of(const MgSearchCandidate *c) {
  Kept k = {c->program, c->cost, c->hash, 0};
  return k;
}

bool mg_explain_offer(Explain *e, const Kept *k, MgSearchFate fate,
                      const MgVerifyResult *check, uint32_t parts) {
  if (e->cap == 0 || !k->program)
    return true;
  uint32_t at = 0;
  for (; at < e->num; at++) {
    Kept here = kept_of(&e->items[at]);
    int c = mg_kept_compare(&here, k);
    // Equal programs compare equal (same cost, hash and words); a hash
    // collision between different programs would not, so check equality
    // too: a program already listed keeps its first fate.
    if (c == 0 || (here.hash == k->hash &&
                   mg_program_equal(here.program, k->program)))
      return true;
    if (c > 0)
      break;
  }
  if (at >= e->cap)
    return true;
  if (!e->items) {
    e->items = calloc(e->cap + 1, sizeof *e->items);
    if (!e->items)
      return false;
  }
  MgSearchCandidate c;
  memset(&c, 0, sizeof c);
  c.program = mg_program_clone(k->program);
  if (!c.program)
    return false;
  c.cost = k->cost;
  c.hash = k->hash;
  c.fate = fate;
  c.parts = parts;
  if (check)
    c.check = *check;
  memmove(&e->items[at + 1], &e->items[at],
          (e->num - at) * sizeof *e->items);
  e->items[at] = c;
  if (e->num < e->cap)
    e->num++;
  else
    candidate_free(&e->items[e->cap]); // pushed past the end
  return true;
}

bool mg_explain_round_begin(ExplainRound *x, const Explain *e,
                            const Collector *c) {
  memset(x, 0, sizeof *x);
  uint32_t n = e->cap < c->num ? e->cap : c->num;
  if (n == 0)
    return true;
  x->items = malloc(n * sizeof *x->items);
  x->fate = malloc(n * sizeof *x->fate);
  x->check = calloc(n, sizeof *x->check);
  if (!x->items || !x->fate || !x->check) {
    free(x->items);
    free(x->fate);
    free(x->check);
    memset(x, 0, sizeof *x);
    return false;
  }
  x->n = n;
  memcpy(x->items, c->items, n * sizeof *x->items);
  for (uint32_t i = 0; i < n; i++) {
    x->fate[i] = MG_SEARCH_FATE_UNTESTED;
    x->check[i].verdict = MG_VERDICT_UNKNOWN;
    x->check[i].error_bound = 1.0;
    x->check[i].index = -1;
  }
  return true;
}

void mg_explain_note(ExplainRound *x, uint32_t i, MgSearchFate fate,
                     const MgVerifyResult *check) {
  if (!x || i >= x->n)
    return;
  x->fate[i] = fate;
  if (check)
    x->check[i] = *check;
}

bool mg_explain_round_end(ExplainRound *x, Explain *e) {
  bool ok = true;
  for (uint32_t i = 0; i < x->n; i++)
    ok &= mg_explain_offer(e, &x->items[i], x->fate[i], &x->check[i], 0);
  free(x->items);
  free(x->fate);
  free(x->check);
  memset(x, 0, sizeof *x);
  return ok;
}

void mg_explain_move(Explain *e, MgSearchResult *result) {
  result->top = e->num ? e->items : NULL;
  result->num_top = e->num;
  if (!e->num)
    free(e->items);
  e->items = NULL;
  e->num = 0;
}

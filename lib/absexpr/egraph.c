//===- egraph.c - Hash-consed e-nodes, union-find, congruence closure -----===//
//
// Storage: one array of e-nodes and one union-find array, both indexed by
// node index (a node's fresh class has the node's index as id). The hash
// table is open addressing with linear probing over node indices; it is
// rebuilt from scratch by mg_abs_rebuild, which is also where congruence
// closure happens: every alive node is re-keyed with canonical children, and
// two alive nodes with one key are merged (the later one dies). Passes repeat
// until no merge happens. Each pass is O(nodes); merges strictly reduce the
// class count, so the loop ends. See egraph.h for the invariants.
//
//===----------------------------------------------------------------------===//
#include "egraph.h"

#include <stdlib.h>
#include <string.h>

// ORDER MG_ABS: children per constructor (also in mg_absexpr_lookup).
static uint32_t op_arity(uint8_t op) {
  switch (op) {
  case MG_ABS_INPUT:
  case MG_ABS_CONST:
    return 0;
  case MG_ABS_ADD:
  case MG_ABS_MUL:
  case MG_ABS_DIV:
  case MG_ABS_CONCAT:
  case MG_ABS_MAXIMUM:
    return 2;
  default:
    return 1;
  }
}

static uint64_t key_hash(uint8_t op, int64_t param, MgAbsId a, MgAbsId b) {
  // SplitMix64's finalizer over a packed key: cheap and well mixed.
  uint64_t h = (uint64_t)param * 0x9e3779b97f4a7c15ull;
  h ^= (((uint64_t)a << 32) | b) + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
  h ^= (uint64_t)op * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

static bool same_key(const MgAbsNode *n, uint8_t op, int64_t param, MgAbsId a,
                     MgAbsId b) {
  return n->op == op && n->param == param && n->a == a && n->b == b;
}

MgAbsGraph *mg_abs_graph_new(const MgAbsOptions *options) {
  MgAbsGraph *g = calloc(1, sizeof *g);
  if (!g)
    return NULL;
  g->options = *options;
  g->rules = MG_ABS_RULES_ALL;
  g->zero = g->one = MG_ABS_NONE;
  g->table_mask = 1023;
  g->table = calloc(1024, sizeof *g->table);
  if (!g->table) {
    free(g);
    return NULL;
  }
  return g;
}

void mg_absexpr_destroy(MgAbsGraph *g) {
  if (!g)
    return;
  free(g->nodes);
  free(g->parent);
  free(g->table);
  free(g->class_start);
  free(g->class_nodes);
  free(g->reach);
  free(g->outputs);
  free(g->roots);
  free(g->div_sets);
  free(g->divisors);
  free(g->dirty);
  free(g->changed);
  free(g);
}

MgAbsId mg_abs_find(MgAbsGraph *g, MgAbsId id) {
  MgAbsId *p = g->parent;
  while (p[id] != id) {
    p[id] = p[p[id]]; // path halving
    id = p[id];
  }
  return id;
}

void mg_abs_touch(MgAbsGraph *g, MgAbsId c) {
  if (!g->bounded || g->changed_overflow)
    return;
  if (!mg_array_reserve(&g->changed, &g->cap_changed, g->num_changed + 1,
                        sizeof *g->changed, 1024)) {
    // Degrade to "everything changed", never to a missed match.
    g->changed_overflow = true;
    return;
  }
  g->changed[g->num_changed++] = c;
}

bool mg_abs_merge(MgAbsGraph *g, MgAbsId x, MgAbsId y) {
  if (x == MG_ABS_NONE || y == MG_ABS_NONE)
    return false;
  x = mg_abs_find(g, x);
  y = mg_abs_find(g, y);
  if (x == y)
    return false;
  // The smaller id stays root: deterministic, and a root below the round's
  // first new node means the class holds a node that existed before.
  if (x > y) {
    MgAbsId t = x;
    x = y;
    y = t;
  }
  g->parent[y] = x;
  if (y < g->round_start)
    g->old_merges++;
  mg_abs_touch(g, x);
  return true;
}

static void table_put(MgAbsGraph *g, uint32_t node) {
  const MgAbsNode *n = &g->nodes[node];
  uint32_t i = (uint32_t)key_hash(n->op, n->param, n->a, n->b) & g->table_mask;
  while (g->table[i])
    i = (i + 1) & g->table_mask;
  g->table[i] = node + 1;
  g->table_used++;
}

// Index of the node stored under this exact key, or UINT32_MAX.
static uint32_t table_get(const MgAbsGraph *g, uint8_t op, int64_t param,
                          MgAbsId a, MgAbsId b) {
  uint32_t i = (uint32_t)key_hash(op, param, a, b) & g->table_mask;
  for (uint32_t e; (e = g->table[i]) != 0; i = (i + 1) & g->table_mask)
    if (same_key(&g->nodes[e - 1], op, param, a, b))
      return e - 1;
  return UINT32_MAX;
}

// Resizes the table to hold `want` entries at load <= 1/2 and reinserts the
// alive nodes under their stored keys.
static bool table_resize(MgAbsGraph *g, uint32_t want) {
  uint32_t cap = 1024;
  while (cap / 2 < want) {
    if (cap > (UINT32_MAX >> 2))
      return false;
    cap *= 2;
  }
  if (cap != g->table_mask + 1) {
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t)
      return false;
    free(g->table);
    g->table = t;
    g->table_mask = cap - 1;
  } else {
    memset(g->table, 0, (size_t)cap * sizeof *g->table);
  }
  g->table_used = 0;
  return true;
}

static bool grow_nodes(MgAbsGraph *g) {
  if (g->num_nodes < g->cap_nodes)
    return true;
  if (g->cap_nodes > (UINT32_MAX >> 2))
    return false;
  uint32_t cap = g->cap_nodes ? 2 * g->cap_nodes : 1024;
  MgAbsNode *nodes = realloc(g->nodes, (size_t)cap * sizeof *nodes);
  if (!nodes)
    return false;
  g->nodes = nodes;
  MgAbsId *parent = realloc(g->parent, (size_t)cap * sizeof *parent);
  if (!parent)
    return false;
  g->parent = parent;
  g->cap_nodes = cap;
  return true;
}

MgAbsId mg_abs_add(MgAbsGraph *g, MgAbsOp op, int64_t param, MgAbsId a,
                   MgAbsId b) {
  if (g->nomem)
    return MG_ABS_NONE;
  uint32_t arity = op_arity((uint8_t)op);
  if ((arity >= 1 && a == MG_ABS_NONE) || (arity >= 2 && b == MG_ABS_NONE))
    return MG_ABS_NONE;
  if (op == MG_ABS_SUM || op == MG_ABS_MAX) {
    if (param < 1)
      return MG_ABS_NONE;
    if (param == 1) // sum(1, x) = max(1, x) = x, always: never blocks
      return mg_abs_find(g, a);
  }
  a = arity >= 1 ? mg_abs_find(g, a) : MG_ABS_NONE;
  b = arity >= 2 ? mg_abs_find(g, b) : MG_ABS_NONE;
  if (arity == 0)
    a = b = MG_ABS_NONE;
  uint32_t hit = table_get(g, (uint8_t)op, param, a, b);
  if (hit != UINT32_MAX)
    return mg_abs_find(g, g->nodes[hit].cls);
  if (g->bounded && g->num_nodes >= g->options.max_nodes) {
    g->full = true;
    return MG_ABS_NONE;
  }
  if (!grow_nodes(g)) {
    g->nomem = true;
    return MG_ABS_NONE;
  }
  if ((g->table_used + 1) * 2 > g->table_mask + 1) {
    if (!table_resize(g, g->table_used + 1)) {
      g->nomem = true;
      return MG_ABS_NONE;
    }
    for (uint32_t i = 0; i < g->num_nodes; ++i)
      if (g->nodes[i].alive)
        table_put(g, i);
  }
  uint32_t id = g->num_nodes++;
  MgAbsNode *n = &g->nodes[id];
  memset(n, 0, sizeof *n); // padding too: node arrays compare bytewise
  n->op = (uint8_t)op;
  n->param = param;
  n->a = a;
  n->b = b;
  n->cls = id;
  n->alive = 1;
  g->parent[id] = id;
  table_put(g, id);
  return id;
}

bool mg_abs_add_root(MgAbsGraph *g, MgAbsId c) {
  if (c == MG_ABS_NONE)
    return true;
  for (uint32_t i = 0; i < g->num_roots; ++i) // few: one per erased shift
    if (g->roots[i] == c)
      return true;
  if (!mg_array_reserve(&g->roots, &g->cap_roots, g->num_roots + 1,
                        sizeof *g->roots, 8)) {
    g->nomem = true;
    return false;
  }
  g->roots[g->num_roots++] = c;
  return true;
}

MgAbsId mg_abs_lookup_node(const MgAbsGraph *g, MgAbsOp op, int64_t param,
                           MgAbsId a, MgAbsId b) {
  uint32_t hit = table_get(g, (uint8_t)op, param, a, b);
  return hit == UINT32_MAX ? MG_ABS_NONE
                           : mg_abs_find_frozen(g, g->nodes[hit].cls);
}

// Counting sort of the alive nodes by canonical class.
static bool build_csr(MgAbsGraph *g) {
  uint32_t n = g->num_nodes;
  uint32_t *start = realloc(g->class_start, ((size_t)n + 1) * sizeof *start);
  if (!start)
    return false;
  g->class_start = start;
  uint32_t *list = realloc(g->class_nodes,
                           ((size_t)g->num_alive + 1) * sizeof *list);
  if (!list)
    return false;
  g->class_nodes = list;
  memset(start, 0, ((size_t)n + 1) * sizeof *start);
  for (uint32_t i = 0; i < n; ++i)
    if (g->nodes[i].alive)
      start[mg_abs_find(g, g->nodes[i].cls) + 1]++;
  g->num_classes = 0;
  for (uint32_t c = 0; c < n; ++c) {
    g->num_classes += start[c + 1] != 0;
    start[c + 1] += start[c];
  }
  // Fill using start[c] as a cursor, then shift back.
  for (uint32_t i = 0; i < n; ++i)
    if (g->nodes[i].alive)
      list[start[mg_abs_find(g, g->nodes[i].cls)]++] = i;
  for (uint32_t c = n; c > 0; --c)
    start[c] = start[c - 1];
  start[0] = 0;
  g->csr_nodes = n;
  return true;
}

bool mg_abs_rebuild(MgAbsGraph *g) {
  if (g->nomem)
    return false;
  uint32_t alive = 0;
  for (uint32_t i = 0; i < g->num_nodes; ++i)
    alive += g->nodes[i].alive;
  bool changed = true;
  while (changed) {
    changed = false;
    if (!table_resize(g, alive)) {
      g->nomem = true;
      return false;
    }
    alive = 0;
    for (uint32_t i = 0; i < g->num_nodes; ++i) {
      MgAbsNode *n = &g->nodes[i];
      if (!n->alive)
        continue;
      MgAbsId a = n->a, b = n->b;
      if (a != MG_ABS_NONE)
        n->a = mg_abs_find(g, a);
      if (b != MG_ABS_NONE)
        n->b = mg_abs_find(g, b);
      if (n->a != a || n->b != b)
        mg_abs_touch(g, n->cls);
      uint32_t twin = table_get(g, n->op, n->param, n->a, n->b);
      if (twin != UINT32_MAX) {
        changed |= mg_abs_merge(g, n->cls, g->nodes[twin].cls);
        n->alive = 0;
      } else {
        table_put(g, i);
        alive++;
      }
    }
  }
  g->num_alive = alive;
  if (!build_csr(g)) {
    g->nomem = true;
    return false;
  }
  return true;
}

bool mg_abs_finalize(MgAbsGraph *g) {
  if (!mg_abs_rebuild(g))
    return false;
  for (uint32_t i = 0; i < g->num_nodes; ++i)
    g->parent[i] = mg_abs_find(g, i);
  for (uint32_t i = 0; i < g->num_outputs; ++i)
    if (g->outputs[i] != MG_ABS_NONE)
      g->outputs[i] = g->parent[g->outputs[i]];
  const double zero = 0.0, one = 1.0; // constants are keyed by their bits
  int64_t bits[2];
  memcpy(&bits[0], &zero, sizeof bits[0]);
  memcpy(&bits[1], &one, sizeof bits[1]);
  g->zero = mg_abs_lookup_node(g, MG_ABS_CONST, bits[0], MG_ABS_NONE,
                               MG_ABS_NONE);
  g->one = mg_abs_lookup_node(g, MG_ABS_CONST, bits[1], MG_ABS_NONE,
                              MG_ABS_NONE);
  free(g->reach);
  g->reach = calloc((size_t)g->num_nodes + 1, 1);
  uint32_t *stack = malloc(((size_t)g->num_nodes + 1) * sizeof *stack);
  if (!g->reach || !stack) {
    free(stack);
    g->nomem = true;
    return false;
  }
  // Depth-first over classes: a class is reachable when an output or an
  // extra root is it, or some node of a reachable class has it as a child.
  uint32_t top = 0;
  for (uint32_t i = 0; i < g->num_outputs + g->num_roots; ++i) {
    MgAbsId c = i < g->num_outputs ? g->outputs[i]
                                   : g->roots[i - g->num_outputs];
    if (c == MG_ABS_NONE)
      continue;
    c = g->parent[c];
    if (!g->reach[c]) {
      g->reach[c] = 1;
      stack[top++] = c;
    }
  }
  while (top) {
    MgAbsId c = stack[--top];
    for (uint32_t k = g->class_start[c]; k < g->class_start[c + 1]; ++k) {
      const MgAbsNode *n = &g->nodes[g->class_nodes[k]];
      MgAbsId kids[2] = {n->a, n->b};
      for (int j = 0; j < 2; ++j)
        if (kids[j] != MG_ABS_NONE && !g->reach[kids[j]]) {
          g->reach[kids[j]] = 1;
          stack[top++] = kids[j];
        }
    }
  }
  free(stack);
  g->stats.nodes = g->num_alive;
  g->stats.classes = g->num_classes;
  g->frozen = true;
  return true;
}

const int64_t *mg_abs_divisors(MgAbsGraph *g, int64_t n, uint32_t *count) {
  *count = 0;
  for (uint32_t i = 0; i < g->num_div_sets; ++i)
    if (g->div_sets[i].n == n) {
      *count = g->div_sets[i].count;
      return *count ? g->divisors + g->div_sets[i].first : NULL;
    }
  if (!mg_array_reserve(&g->div_sets, &g->cap_div_sets, g->num_div_sets + 1,
                        sizeof *g->div_sets, 16)) {
    g->nomem = true;
    return NULL;
  }
  // Trial division up to sqrt(n) (n <= MG_ABS_MAX_SUM keeps this below
  // 2^20 steps), once to count and once to store: small divisors
  // ascending, then their cofactors descending.
  uint32_t total = 0;
  for (int64_t d = 2; d <= n / d; ++d)
    if (n % d == 0)
      total += d == n / d ? 1 : 2;
  if (!mg_array_reserve(&g->divisors, &g->cap_divisors,
                        g->num_divisors + total, sizeof *g->divisors, 64)) {
    g->nomem = true;
    return NULL;
  }
  MgAbsDivisors *s = &g->div_sets[g->num_div_sets++];
  s->n = n;
  s->first = g->num_divisors;
  s->count = total;
  int64_t *out = g->divisors + s->first;
  uint32_t lo = 0, hi = total;
  for (int64_t d = 2; d <= n / d; ++d)
    if (n % d == 0) {
      out[lo++] = d;
      if (d != n / d)
        out[--hi] = n / d;
    }
  g->num_divisors += total;
  *count = total;
  return total ? g->divisors + s->first : NULL;
}

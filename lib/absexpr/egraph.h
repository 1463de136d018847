//===- egraph.h - The e-graph behind abstract expressions (not exported) --===//
//
// An e-graph stores many equivalent terms at once. Each e-node is a term
// constructor applied to e-classes: (op, param, a, b). Each e-class is a set
// of e-nodes known equal under the axioms. Class ids come from a union-find
// over node indices: a new node gets a fresh class whose id is its own index,
// and merging two classes keeps the smaller root (so ids are deterministic).
//
// Invariants after mg_abs_rebuild (what rules and lookups rely on):
//  - every alive node's children are canonical class ids (find(x) == x);
//  - the hash table maps each alive node's key (op, param, a, b) to it, and
//    no two alive nodes share a key (congruence closure: equal children and
//    equal op mean equal classes);
//  - class_start/class_nodes list the alive nodes of every canonical class
//    (CSR, indexed by class id; a non-canonical id lists nothing).
// Between rebuilds (while rules run) unions may leave stored keys stale;
// mg_abs_add then canonicalizes its arguments and may create a duplicate
// that the next rebuild folds into its twin.
//
// Max and shift classes: no rule and no construction identity ever equates
// a max node (MAX, MAXIMUM) or a SHIFT node with a node of another kind, so
// every class holds only max nodes, only SHIFT nodes, or neither. Its kind
// is the kind of the node whose index is the class id, which
// mg_abs_class_op reads in O(1), on the target's e-graph while it is built
// and on the frozen graph alike (the shift erasure of terms.c relies on
// both answering the same).
//
// After mg_abs_finalize the graph is frozen: the union-find is fully
// compressed (find is one read) and `reach` marks the classes reachable
// downward from the outputs and the extra `roots`. Frozen graphs are only
// read, so any number of threads may share one.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ABSEXPR_EGRAPH_H
#define MIRAGE_ABSEXPR_EGRAPH_H

#include "mirage/absexpr.h"

/// Sum (and max) lengths above this are not created by merging nested sums
/// (their divisor lists would be costly and such sums never come from real
/// shapes).
#define MG_ABS_MAX_SUM ((int64_t)1 << 40)

/// The rewrite rules of rules.c, one bit each in MgAbsGraph.rules (tests turn
/// single rules off to show that an axiom is what finds a term).
typedef enum MgAbsRule {
  MG_ABS_RULE_ADD_COMM,
  MG_ABS_RULE_ADD_ASSOC,
  MG_ABS_RULE_MUL_COMM,
  MG_ABS_RULE_MUL_ASSOC,
  MG_ABS_RULE_DISTRIBUTE, // a·(b+c) -> a·b + a·c
  MG_ABS_RULE_FACTOR,     // a·b + a·c -> a·(b+c)
  MG_ABS_RULE_DIV_ADD,    // (a+b)/c = a/c + b/c
  MG_ABS_RULE_MUL_DIV,    // a·(b/c) = (a·b)/c
  MG_ABS_RULE_DIV_MUL,    // a/(b·c) = (a/b)/c
  MG_ABS_RULE_SUM_ADD,    // Σ(a+b) = Σa + Σb
  MG_ABS_RULE_SUM_MUL,    // Σ(a·c) = (Σa)·c
  MG_ABS_RULE_SUM_DIV,    // Σ(a/c) = (Σa)/c
  MG_ABS_RULE_SUM_SUM,    // Σm Σn a = Σn Σm a
  MG_ABS_RULE_SUM_SPLIT,  // Σ(j·k) a = Σj Σk a
  MG_ABS_RULE_CONCAT_MATMUL, // Σn(a·c) + Σm(b·d) -> Σ(n+m)(a‖b · c‖d)
  MG_ABS_RULE_MAX_MAX,       // max(m, max(n, a)) = max(n, max(m, a))
  MG_ABS_RULE_MAX_SPLIT,     // max(j·k, a) = max(j, max(k, a))
  MG_ABS_RULE_MAXIMUM_COMM,  // maximum(a, b) = maximum(b, a)
  MG_ABS_RULE_COUNT
} MgAbsRule;

#define MG_ABS_RULES_ALL ((1u << MG_ABS_RULE_COUNT) - 1)
/// Not a rule: with this bit in the mask of mg_abs_create_rules, every node
/// is matched in every round (the reference the semi-naive rounds must
/// agree with; tests only).
#define MG_ABS_NAIVE (1u << 31)

typedef struct MgAbsNode {
  int64_t param;
  MgAbsId a, b;  // child classes; MG_ABS_NONE when unused
  MgAbsId cls;   // class made with the node (resolve with find)
  uint8_t op;    // MgAbsOp
  uint8_t alive; // 0: a congruent twin holds its key
} MgAbsNode;

/// Divisors of one sum length, cached (the split rule asks for them often).
typedef struct MgAbsDivisors {
  int64_t n;
  uint32_t first, count; // into MgAbsGraph.divisors
} MgAbsDivisors;

struct MgAbsGraph {
  MgAbsNode *nodes;
  MgAbsId *parent; // union-find, indexed by class id (= node index)
  uint32_t num_nodes, cap_nodes;
  uint32_t num_alive;  // after the last rebuild
  uint32_t num_classes;

  uint32_t *table; // open addressing: node index + 1, 0 = empty
  uint32_t table_mask, table_used;

  uint32_t *class_start; // CSR over canonical classes, num_nodes + 1 entries
  uint32_t *class_nodes; // node indices, alive only
  uint32_t csr_nodes;    // num_nodes when the CSR was built

  uint8_t *reach; // frozen graphs: class id -> reachable from an output
  MgAbsId zero, one; // frozen graphs: classes of the constants 0 and 1
                     // (MG_ABS_NONE when absent), for the erasure's maps

  MgAbsId *outputs;
  uint32_t num_outputs;
  // Classes the shift erasure dropped from the target's terms (the max it
  // subtracted, the constants 0 and 1 of rescale factors): reachable like
  // the outputs, since they are subterms of the target as written.
  MgAbsId *roots;
  uint32_t num_roots, cap_roots;
  uint32_t num_target_nodes; // nodes [0, this) spell the target as written

  MgAbsDivisors *div_sets;
  uint32_t num_div_sets, cap_div_sets;
  int64_t *divisors;
  uint32_t num_divisors, cap_divisors;

  MgAbsOptions options;
  MgAbsStats stats;
  uint32_t rules; // enabled MgAbsRule bits (MG_ABS_RULES_ALL by default)
  bool naive;     // match every node every round (see MG_ABS_NAIVE)
  bool bounded; // mg_abs_add enforces max_nodes (off while the target is
                // inserted: the bound is on what saturation adds)
  bool full;    // mg_abs_add refused a node: saturation is incomplete
  bool nomem;   // an allocation failed: the graph is unusable
  bool frozen;
  // Change detection for one round of rules: nodes below round_start are
  // old; a merge of two classes whose roots are both old is a real change
  // (a merge of a new class into an old one may just fold a duplicate).
  uint32_t round_start;
  uint64_t old_merges;
  // Semi-naive matching: rules read a node and the nodes of its child
  // classes, so a node is matched again only when it is new or a child
  // class changed in the last round. A class changes when it gains a node,
  // absorbs another class, or one of its nodes gets new child ids (so a
  // test like "same first factor" can newly hold). `changed` lists classes
  // touched while saturating; `dirty` is the per-class result of a round.
  uint8_t *dirty;
  MgAbsId *changed;
  uint32_t num_changed, cap_changed;
  bool changed_overflow; // the list could not grow: every class is dirty
};

/// An empty e-graph; NULL on no memory.
MgAbsGraph *mg_abs_graph_new(const MgAbsOptions *options);

/// Canonical class of `id` (path halving; not for frozen graphs' readers,
/// who use mg_abs_find_frozen).
MgAbsId mg_abs_find(MgAbsGraph *g, MgAbsId id);

/// Canonical class of `id` in a frozen graph, without writing.
static inline MgAbsId mg_abs_find_frozen(const MgAbsGraph *g, MgAbsId id) {
  while (g->parent[id] != id)
    id = g->parent[id];
  return id;
}

/// Class of op(param; a, b), adding the node when absent. sum(1, a) and
/// max(1, a) are a. (maximum(a, a) is added as a node: returning a would
/// put a max node's class equal to a's, see "Max and shift classes".)
/// Returns MG_ABS_NONE when a child is MG_ABS_NONE, when the node limit is
/// reached (sets `full`) or on no memory (sets `nomem`).
MgAbsId mg_abs_add(MgAbsGraph *g, MgAbsOp op, int64_t param, MgAbsId a,
                   MgAbsId b);

/// The op of the node whose index is class `c`'s id (MG_ABS_COUNT for
/// none): for max and SHIFT nodes, the kind of every node of the class (see
/// "Max and shift classes" above). Does not write, so frozen graphs'
/// readers may call it.
static inline MgAbsOp mg_abs_class_op(const MgAbsGraph *g, MgAbsId c) {
  if (c == MG_ABS_NONE || c >= g->num_nodes)
    return MG_ABS_COUNT;
  return (MgAbsOp)g->nodes[mg_abs_find_frozen(g, c)].op;
}

/// True when class `c` holds max nodes (MAX, MAXIMUM).
static inline bool mg_abs_class_is_max(const MgAbsGraph *g, MgAbsId c) {
  MgAbsOp op = mg_abs_class_op(g, c);
  return op == MG_ABS_MAX || op == MG_ABS_MAXIMUM;
}

/// Adds class `c` to the extra roots of `reach`; false on no memory.
bool mg_abs_add_root(MgAbsGraph *g, MgAbsId c);

/// Records that class `c` changed (while saturating; see `dirty`).
void mg_abs_touch(MgAbsGraph *g, MgAbsId c);

/// Merges two classes; true when they were distinct. Accepts MG_ABS_NONE
/// (then does nothing).
bool mg_abs_merge(MgAbsGraph *g, MgAbsId x, MgAbsId y);

/// Restores the invariants above (congruence closure, hash table, CSR).
/// False on no memory.
bool mg_abs_rebuild(MgAbsGraph *g);

/// Lookup without insertion on a graph whose table is current (frozen or
/// just rebuilt); children must be canonical. MG_ABS_NONE when absent.
MgAbsId mg_abs_lookup_node(const MgAbsGraph *g, MgAbsOp op, int64_t param,
                           MgAbsId a, MgAbsId b);

/// Rebuilds, compresses the union-find, computes `reach` from `outputs` and
/// fills the class/node counts of `stats`. False on no memory.
bool mg_abs_finalize(MgAbsGraph *g);

/// Divisors d of n with 1 < d < n, ascending, cached in `g`; sets *count.
/// NULL with *count = 0 when there are none or on no memory.
const int64_t *mg_abs_divisors(MgAbsGraph *g, int64_t n, uint32_t *count);

/// mg_absexpr_create with only the rules in the `rules` mask enabled.
MgAbsGraph *mg_abs_create_rules(const MgProgram *target,
                                const MgAbsOptions *options, uint32_t rules,
                                MgDiag *diag);

/// Runs the rewrite rules of rules.c in rounds until nothing changes or a
/// bound of g->options is hit; sets stats.iterations and stats.saturated.
/// False on no memory.
bool mg_abs_saturate(MgAbsGraph *g);

#endif // MIRAGE_ABSEXPR_EGRAPH_H

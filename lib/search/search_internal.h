//===- search_internal.h - Shared state of the search (not exported) ------===//
//
// The search runs in levels: level d enumerates kernel graphs of exactly d
// ops (iterative deepening on the first criterion of the proxy cost) and
// stops at the first level that yields a verified program.
//
// Invariants the files below rely on:
//  - Search is read-only while workers run, except the fields marked
//    "shared" (guarded by their mutex or atomic).
//  - Every piece of work is identified by an index into a list built
//    deterministically before the work starts, and results are merged in
//    that order, so the outcome does not depend on thread count or timing.
//  - A Menu (the block graphs a custom kernel may run on given inputs) is
//    computed once per key and never changes afterwards.
//  - Dimension roles: every tensor dim carries a role (MgRole). Roles of the
//    target's inputs come from unifying dims through the target's ops; a
//    candidate op that combines dims of different roles is dropped.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_SEARCH_INTERNAL_H
#define MIRAGE_LIB_SEARCH_INTERNAL_H

#include "mirage/search.h"
#include "mirage/verify.h"

#include <pthread.h>
#include <stdatomic.h>

//===--- Dimension roles (roles.c) ----------------------------------------===//

/// Role of a tensor dim. ROLE_ONE marks a dim of size 1 by construction
/// (sums); target roles are 1..ROLE_MAX_TARGET; a split role (saver output
/// dim holding per-block partials side by side) packs the grid role and the
/// tile dim's role.
typedef uint32_t MgRole;
#define ROLE_ONE 0u
#define ROLE_NONE 0xFFFFFFFFu
#define ROLE_MAX_TARGET 2047u
#define ROLE_SPLIT_BIT 0x80000000u

static inline bool role_is_split(MgRole r) {
  return r != ROLE_NONE && (r & ROLE_SPLIT_BIT);
}
/// split(a, b), or ROLE_NONE when either is itself split (no nesting).
MgRole mg_role_split(MgRole axis, MgRole tile);
/// The tile role b of split(a, b) and its grid role a.
MgRole mg_role_split_tile(MgRole r);
MgRole mg_role_split_axis(MgRole r);

enum { PHASE_LOOP = 1, PHASE_POST = 2 };

//===--- Monomial supports (monomials.c) ----------------------------------===//

#define SUP_MAX 16
#define SUP_SLOTS 16
/// Monomials of a value as a polynomial of the inputs (4-bit degree per
/// input), sorted; `top` = unknown (too large), accepted by every rule.
typedef struct Support {
  uint8_t n;
  bool top;
  uint64_t m[SUP_MAX];
} Support;

typedef struct Search Search;
/// Support of input `position`.
void mg_sup_input(const Search *s, uint32_t position, Support *out);
void mg_sup_one(Support *s);
void mg_sup_union(const Support *a, const Support *b, Support *out);
void mg_sup_product(const Support *a, const Support *b, Support *out);
bool mg_sup_equal(const Support *a, const Support *b);

/// Per-tensor facts the generator tracks.
typedef struct TInfo {
  MgAbsId cls;              // abstract expression class (MG_ABS_NONE: off)
  MgRole role[MG_MAX_DIMS];
  uint16_t uses;            // readers so far
  uint8_t tile;             // block level: an iterator result
  uint8_t phase;            // block level: PHASE_LOOP or PHASE_POST
  Support sup;
} TInfo;

/// What the rules know of one operand of a candidate op: its type, its
/// roles, its abstract-expression class and its support. A missing operand
/// (b of a unary op) has t, role and sup NULL and class MG_ABS_NONE.
typedef struct Operand {
  const MgTensor *t;
  const MgRole *role;
  MgAbsId cls;
  const Support *sup;
} Operand;

/// The operands of a candidate op: a and, for a binary op, b.
typedef struct Operands {
  Operand a, b;
} Operands;

/// The operands of `op` in graph `g`, whose tensors have facts `ti` and
/// classes `cls`. Borrowed: valid until `g` grows.
static inline Operands mg_operands_of(const MgGraph *g, const MgOp *op,
                                      const TInfo *ti, const MgAbsId *cls) {
  MgTensorId a = op->inputs[0];
  Operands x = {{&g->tensors[a], ti[a].role, cls[a], &ti[a].sup},
                {NULL, NULL, MG_ABS_NONE, NULL}};
  if (op->num_inputs > 1) {
    MgTensorId b = op->inputs[1];
    x.b = (Operand){&g->tensors[b], ti[b].role, cls[b], &ti[b].sup};
  }
  return x;
}

/// Support of op's result from its operands' supports and classes (only
/// those are read).
void mg_sup_of_op(const Search *s, const MgOp *op, const Operands *x,
                  Support *out);

/// Roles of an op's result from its operands' roles; false when the op
/// combines different roles (checked only when `check`). `loop` is the
/// for-loop role of the block graph (ROLE_NONE when F = 1).
/// `reduced[r]` says whether the target sums over role r (sum ops, matmul
/// contractions); with it, sums and contractions over other roles are
/// rejected too (NULL: no such check).
bool mg_roles_of_op(const uint8_t *reduced, const MgOp *op, const Operands *x,
                    MgRole loop, bool check, MgRole *out);
/// May a sum run over role r? (a reduced target role, or per-block partials
/// of a size-1 tile dim laid out along a reduced grid role.)
bool mg_role_summable(const uint8_t *reduced, MgRole r);
/// May the for-loop run over role r (its accumulators fold it)?
bool mg_role_foldable(const uint8_t *reduced, MgRole r);

//===--- Target analysis (goal.c) -----------------------------------------===//

/// One (kind, scalar) of the target's scalar ops.
typedef struct ScalarOp {
  uint8_t kind;
  double value;
} ScalarOp;

#define SEARCH_MAX_SCALARS 8
#define SEARCH_MAX_OUTPUTS MG_MAX_OP_OUTPUTS

typedef struct Vocab {
  bool kind[MG_OP_COUNT];          // element-wise, matmul, sum kinds
  bool accum[MG_ACCUM_COUNT];
  uint32_t num_scalars;
  ScalarOp scalars[SEARCH_MAX_SCALARS];
  uint16_t budget[MG_OP_COUNT];    // non-LAX and exp ops in the target
} Vocab;

/// What a block graph must produce: the exact target outputs (last kernel
/// op) or anything useful (earlier ops).
typedef struct Goal {
  bool exact;
  uint32_t n;
  MgAbsId cls[SEARCH_MAX_OUTPUTS];
  MgTensor type[SEARCH_MAX_OUTPUTS];
  MgRole role[SEARCH_MAX_OUTPUTS][MG_MAX_DIMS];
  Support sup[SEARCH_MAX_OUTPUTS]; // equivalent programs have equal ones
} Goal;

//===--- Menus: block graphs per input signature (block.c, menu.c) --------===//

/// The inputs of a custom kernel as the block generator sees them.
typedef struct BlockSig {
  uint32_t n;
  MgTensor type[MG_MAX_OP_INPUTS];
  TInfo info[MG_MAX_OP_INPUTS];
} BlockSig;

/// A block graph's launch: its grid and its for-loop's trip count.
typedef struct LaunchShape {
  int32_t grid[3], forloop;
} LaunchShape;

/// Grid and loop roles of a block graph, with representative sizes.
typedef struct Skeleton {
  uint32_t num_axes;
  MgRole axis[3];
  MgRole loop;              // ROLE_NONE: F = 1
  LaunchShape launch; // representative launch used while enumerating
  int8_t imap[MG_MAX_OP_INPUTS][3];
  int8_t fmap[MG_MAX_OP_INPUTS];
} Skeleton;

/// One block graph: its skeleton and ops after the iterators (compute ops,
/// then savers), replayable on any inputs of the same signature.
typedef struct Recipe {
  Skeleton sk;
  uint32_t num_ops;
  MgOp *ops;
  uint32_t num_savers;
  uint16_t kinds[MG_OP_COUNT];            // non-LAX op counts
  uint64_t key;                           // structure, without sizes
  uint32_t par;   // min(largest grid it reaches, min_blocks): kept first
  int64_t smem;   // shared memory with the smallest tiles allowed
} Recipe;

/// Block graphs with the same outputs (classes, types, roles); recipes
/// sorted best first: more parallelism (`par`), then less shared memory
/// (`smem`), then fewer ops, then generation order.
typedef struct MenuEntry {
  uint32_t num_out;
  MgAbsId cls[SEARCH_MAX_OUTPUTS];
  MgTensor type[SEARCH_MAX_OUTPUTS];
  MgRole role[SEARCH_MAX_OUTPUTS][MG_MAX_DIMS];
  Support sup[SEARCH_MAX_OUTPUTS];
  uint64_t sig;
  uint32_t num_recipes, cap_recipes;
  Recipe *recipes;
} MenuEntry;

typedef struct Menu {
  MgArena *arena;
  uint32_t num, cap;
  MenuEntry *entries;
  uint32_t *slots;      // open addressing on `sig`: entry index + 1
  uint32_t num_slots;
  uint64_t dropped;     // recipes beyond the cap
} Menu;

Menu *mg_menu_create(void);
void mg_menu_destroy(Menu *menu);
/// Adds a recipe (copied) under its output signature; false on no memory.
bool mg_menu_add(Menu *menu, uint32_t max_recipes, const MenuEntry *sig,
                 const Recipe *recipe);
/// Appends every entry of `src` (in order) to `dst`.
bool mg_menu_merge(Menu *dst, uint32_t max_recipes, const Menu *src);
size_t mg_menu_bytes(const Menu *menu);

//===--- Workers, statistics ----------------------------------------------===//

/// Candidate kept for testing.
typedef struct Kept {
  MgProgram *program;
  MgSearchCost cost;
  uint64_t hash;
  uint64_t structure;   // same for launch variants of one structure
} Kept;

/// Best-first bounded list of candidates (a total order: cost, hash).
/// Under rank=cost, the candidates of a kernel-graph size are tested
/// together with the next size's when nothing has been found yet and the
/// cheapest is estimated more than this many times the input's roofline
/// (search.c, docs/search.md).
#define MG_SEARCH_DEFER_RATIO 1.5

typedef struct Collector {
  uint32_t num, cap;
  Kept *items;
} Collector;

void mg_collector_init(Collector *c, uint32_t cap);
void mg_collector_dispose(Collector *c);
/// Offers a candidate; the collector clones it when it ranks among the
/// best `cap`. Returns false on no memory.
bool mg_collector_offer(Collector *c, const MgProgram *p, MgSearchCost cost,
                        uint64_t hash, uint64_t structure);
/// Moves every item of `src` into `dst` (keeping the best `cap`).
bool mg_collector_merge(Collector *dst, Collector *src);
int mg_kept_compare(const Kept *a, const Kept *b);
/// Compute work of a program: multiply-adds of matmuls plus elements made
/// by other compute ops (not iterators and savers), over every block and
/// for-loop iteration, so work a kernel repeats in every block counts each
/// time (which DRAM bytes do not show).
double mg_search_work(const MgProgram *program);
/// DRAM bytes of block graph `g` run as one kernel (proxy cost rules).
uint64_t mg_search_block_dram(const MgProgram *p, MgGraphId g);

//===--- The explanation (explain.c) --------------------------------------===//

/// The best `cap` candidates ranked for testing, with their fates. Sorted
/// by mg_kept_compare, no two programs equal, num <= cap. Only the caller's
/// thread offers, between parallel phases, in a fixed order: the list is
/// the same for any thread count.
typedef struct Explain {
  uint32_t num, cap;
  MgSearchCandidate *items;
} Explain;

/// What one round of testing (a collector's candidates) did to its first
/// `n` candidates: a snapshot of them (the programs are borrowed: testing
/// moves verified ones into the found set, which keeps them alive) and a
/// fate per candidate, UNTESTED until testing says otherwise.
typedef struct ExplainRound {
  uint32_t n;
  Kept *items;
  MgSearchFate *fate;
  MgVerifyResult *check;
} ExplainRound;

void mg_explain_init(Explain *e, uint32_t cap);
void mg_explain_dispose(Explain *e);
/// Offers a candidate; cloned when it ranks among the best `cap` and no
/// equal program is there (the first offer of a program wins). False on
/// no memory.
bool mg_explain_offer(Explain *e, const Kept *k, MgSearchFate fate,
                      const MgVerifyResult *check, uint32_t parts);
/// Snapshots the first min(e->cap, c->num) candidates of `c` (nothing
/// when e->cap is 0). False on no memory.
bool mg_explain_round_begin(ExplainRound *x, const Explain *e,
                            const Collector *c);
/// Records candidate `i`'s fate (ignored beyond the snapshot, or x NULL).
void mg_explain_note(ExplainRound *x, uint32_t i, MgSearchFate fate,
                     const MgVerifyResult *check);
/// Offers the snapshot to `e` and frees it. False on no memory.
bool mg_explain_round_end(ExplainRound *x, Explain *e);
/// Moves the list into the result (result->top).
void mg_explain_move(Explain *e, MgSearchResult *result);

/// The finite-field tests shared by a search's workers and one worker's
/// scratch for them (check.c; opaque elsewhere).
typedef struct CheckCache CheckCache;
typedef struct WorkerFf WorkerFf;

typedef struct Worker {
  Search *s;
  uint32_t index;
  MgSearchStats stats;        // counts of this worker (merged at the end)
  Collector collector;
  WorkerFf *ff;               // finite-field context (check.c)
  uint32_t tick;              // clock checks
  uint64_t pub_states, pub_pruned; // already added to the live counters
} Worker;

/// Counts a rule; for SHAPE also the builder's reason.
void mg_worker_prune(Worker *w, MgSearchRule rule, const MgDiag *why);
/// Adds `n` tried ops.
void mg_worker_states(Worker *w, uint64_t n, bool kernel);
/// True when the search must stop (budget, memory, no memory); checks the
/// clock every few calls.
bool mg_worker_stopped(Worker *w);
/// Adds the counts of `src` to `dst`.
void mg_stats_add(MgSearchStats *dst, const MgSearchStats *src);
/// Appends `prog` (a part's program) to graph 0 of `dst`, binding its
/// inputs in order to `inputs`; its outputs are written to `outs` (cut.c).
MgStatus mg_search_append_part(MgProgram *dst, const MgProgram *prog,
                               const MgTensorId *inputs, MgTensorId *outs,
                               MgDiag *diag);
/// The program for a part whose search gave `status` and `r`: a copy of
/// the best one when it is cheaper than `part` under `opt` (then `part` is
/// destroyed and the best one's tests and bound are added to `check`),
/// else `part` itself (cut.c).
MgProgram *mg_search_part_choice(MgProgram *part, MgStatus status,
                                 const MgSearchResult *r,
                                 const MgSearchOptions *opt,
                                 MgVerifyResult *check);
/// Adds a part search's statistics to the whole search's (cut.c).
void mg_search_add_part_stats(MgSearchStats *st, const MgSearchStats *part);
/// True when the root graph of `target` has view ops (views.c).
bool mg_search_has_views(const MgProgram *target);
/// mg_search_run for a target with view ops: the parts between them are
/// searched separately and composed with the views (views.c).
MgStatus mg_search_views(const MgProgram *target,
                         const MgSearchOptions *options,
                         MgSearchResult *result, MgDiag *diag);
void mg_stats_add_reason(MgSearchStats *st, const char *text, uint64_t n);

//===--- Prologue cuts (cut.c) --------------------------------------------===//

/// The target cut at its prologues, each part searched on its own and the
/// results composed; NULL when the target has no prologue or a part could
/// not be built. `check` gets the summed bound and tests of the parts;
/// their statistics are added to `stats`.
/// `chosen` gets the program composed for each part (the caller owns
/// them; mg_search_cut_parts order).
MgProgram *mg_search_cut(Search *s, MgSearchStats *stats,
                         MgVerifyResult *check,
                         MgProgram *chosen[MG_SEARCH_MAX_PARTS],
                         uint32_t *num_chosen);

//===--- The search (search.c) --------------------------------------------===//

/// A cached menu (menu.c).
typedef struct MenuSlot {
  uint64_t key;
  BlockSig sig;
  Goal goal;
  Menu *menu;
  bool ready;
  struct MenuSlot *next;
} MenuSlot;

// What the search learns from the target before enumerating (goal.c,
// monomials.c); read-only once the search starts.
typedef struct Facts {
  MgStability stability;      // the target's exp guards (verify.h)
  bool shift_rule;            // candidates subtract only maxes of the
                              // operand itself (goal.c)
  Vocab vocab;
  uint8_t reduced[ROLE_MAX_TARGET + 1]; // roles the target sums over
  uint32_t num_anchors;       // (kind, scalar, operand class) of the
  struct {                    // target's unary and scalar ops, and (DIV,
    uint8_t kind;             // divisor class) of its divisions
    double scalar;
    MgAbsId operand;
  } anchors[64];
  uint32_t num_cut_classes;   // classes of the target's kernel tensors:
  MgAbsId cut_classes[256];   // what an intermediate kernel tensor may hold
  uint32_t num_slots;         // support variables: inputs, atoms (kind,
  struct {                    // argument class), divisors (DIV, class)
    uint8_t kind;
    MgAbsId cls;              // input: position
    uint8_t rank;
    MgRole role[MG_MAX_DIMS]; // the dims it varies along
    uint32_t needs;           // atoms, divisors: slots of their argument
  } slots[SUP_SLOTS];
  uint32_t num_reductions;    // (role, summand support) of target sums
  struct {
    MgRole role;
    Support sup;
  } reductions[64];
  // Target roots.
  uint32_t num_inputs;
  MgTensor in_type[MG_MAX_OP_INPUTS * 2];
  TInfo in_info[MG_MAX_OP_INPUTS * 2];
  Goal outputs;               // exact goal of the whole program
} Facts;

struct Search {
  const MgProgram *target;
  MgSearchOptions opt;
  const MgTarget *gpu;
  MgAbsGraph *abs;     // NULL: no abstract-expression pruning
  uint32_t min_blocks; // resolved
  double max_work;     // max_work_ratio x the target's work
  Facts facts;
  // Shared.
  pthread_mutex_t lock;       // menu cache, candidate callback, memory
  pthread_cond_t menu_ready;
  MenuSlot **menu_table;
  uint32_t menu_buckets;
  atomic_bool stop;           // everything stops (budget, failure)
  atomic_bool enum_stop;      // enumeration stops (its deadline, memory)
  atomic_bool timed_out, memory_limited, states_limited, failed;
  bool verifying;             // set between phases, by the caller's thread
  atomic_uint_fast64_t live_states, live_pruned, live_candidates,
      live_evaluated, live_verified;
  atomic_uint_fast64_t memory;   // bytes accounted now
  atomic_uint_fast64_t memory_high;
  double start, deadline, enum_deadline; // monotonic seconds; 0 = none
  double last_report;         // when progress was last reported
  uint32_t level;             // kernel ops being searched
  CheckCache *check;          // finite-field test cache (check.c)
  Explain explain;            // options.explain_top's list (caller's
                              // thread only)
};

/// Accounts `delta` bytes (may be negative); sets memory_limited and stop
/// when over the limit.
void mg_search_memory(Search *s, int64_t delta);

//===--- Generators -------------------------------------------------------===//

/// Skeletons (grid and loop roles) of a block graph over `sig` for `goal`,
/// in a fixed order; returns the count written (at most `cap`).
uint32_t mg_block_skeletons(const Search *s, const BlockSig *sig,
                            const Goal *goal, Skeleton *out, uint32_t cap);
/// Enumerates the block graphs of one skeleton into `menu`.
void mg_block_enumerate(Worker *w, const BlockSig *sig, const Goal *goal,
                        const Skeleton *sk, Menu *menu);
/// The menu for (sig, goal), computed once and shared (never NULL unless
/// out of memory or stopped).
const Menu *mg_menu_get(Worker *w, const BlockSig *sig, const Goal *goal);
/// Computes the menus of several keys in parallel (one task per skeleton)
/// and caches them.
void mg_menu_prefetch(Search *s, Worker *workers, uint32_t num_workers,
                      const BlockSig *sigs, const Goal *goals, uint32_t n);

/// One kernel op of a complete kernel graph.
typedef struct KOp {
  bool custom;
  MgOp op;                   // predefined: the op; custom: its operands
  const MenuEntry *entry;    // custom: the block graphs it may run
} KOp;

/// Runs level `level` (kernel graphs of exactly that many ops): fills the
/// workers' collectors.
void mg_kernel_level(Search *s, Worker *workers, uint32_t num_workers);

/// Builds the concrete programs of a complete kernel graph (recipes ×
/// launch variants) and offers them to the worker's collector.
/// `outputs[k]` is the kernel tensor holding target output k.
void mg_replay_kernel_graph(Worker *w, const KOp *ops, uint32_t num_ops,
                            const MgTensorId *outputs);
/// Replays `r` as block graph of a new custom op in graph 0 of `p` on
/// `inputs` with launch `at`; false (program unchanged up to truncation by
/// the caller) when a builder rejects it.
bool mg_replay_recipe(MgProgram *p, const Recipe *r, const MgTensorId *inputs,
                      uint32_t n, const LaunchShape *at, MgTensorId *outs);

/// Shared memory of `r` on inputs `sig` at the launch with the smallest
/// tiles the policy allows; -1 when no launch builds.
int64_t mg_recipe_min_smem(const Search *s, const BlockSig *sig,
                           const Recipe *r);

/// Runs `fn(worker, index, arg)` for index in [0, n) on the workers, in
/// parallel; calls the progress callback meanwhile.
typedef void (*TaskFn)(Worker *w, uint32_t index, void *arg);
void mg_search_parallel(Search *s, Worker *workers, uint32_t num_workers,
                        uint32_t n, TaskFn fn, void *arg);

//===--- Finite-field tests (check.c) -------------------------------------===//

MgStatus mg_check_create(Search *s, MgDiag *diag);
void mg_check_destroy(Search *s);
void mg_check_worker_dispose(Worker *w);
typedef enum TestOutcome {
  TEST_EQUAL,     // same outputs as the target
  TEST_DIFFER,    // a differing output element (written to `diff`)
  TEST_VOID,      // the candidate met a zero divisor: this test does not
                  // count for it
  TEST_VOID_ALL,  // the target met one: the test counts for nobody
  TEST_ERROR,     // could not run (no memory, outside the fragment)
} TestOutcome;
/// Runs test t of candidate `p` against the cached target outputs.
TestOutcome mg_check_test(Worker *w, const MgProgram *p, uint32_t t,
                          MgVerifyResult *diff);
uint32_t mg_check_max_tests(void);

//===--- Helpers ----------------------------------------------------------===//

/// Abstract class of a target/kernel input, or MG_ABS_NONE.
MgAbsId mg_search_input_class(const Search *s, uint32_t position);
/// Sets classes of the outputs of op `op` of graph `g` (MG_ABS_NONE when
/// pruning is off). Returns the class of output 0.
MgAbsId mg_search_classes(const Search *s, const MgProgram *p, MgGraphId g,
                          MgOpId op, const MgAbsId *tensor_cls, MgAbsId *cls);
/// Can a block graph over `sig` make the goal's outputs at all? Every
/// variable of the goal's supports must be an input's or an atom/divisor
/// whose argument's variables are (monomials.c).
bool mg_search_goal_reachable(const Search *s, const BlockSig *sig,
                              const Goal *goal);
/// Slots (bit i = slot i) with a non-zero degree in `sup`.
uint32_t mg_sup_slots(const Support *sup);
/// Records a target sum over `role` of `summand` (monomials.c).
void mg_search_add_reduction(Search *s, MgRole role, const Support *summand);
/// Reduction rule (monomials.c): does the target sum over `role` a summand
/// with this support?
bool mg_search_reduction_ok(const Search *s, MgRole role,
                            const Support *summand);
/// The reduction rule for every sum `op` makes (sum, matmul, accumulator
/// with for-loop role `loop`); reads a's type, roles and support and b's
/// support.
bool mg_search_op_reductions_ok(const Search *s, const MgOp *op,
                                const Operands *x, MgRole loop);
/// Anchor rule: a unary or scalar op applies to the class the target applies
/// that op to (true when abstract expressions are off or the op is binary).
bool mg_search_anchor_ok(const Search *s, const MgOp *op, MgAbsId ca,
                         MgAbsId cb);
/// The abstract class `op` would get from operand classes a, b (a of type
/// `ta`), in a block graph with for-loop range `forloop`; MG_ABS_NONE when
/// the e-graph lacks it (or pruning is off).
MgAbsId mg_search_term(const Search *s, const MgOp *op, const MgTensor *ta,
                       MgAbsId a, MgAbsId b, int32_t forloop);
/// Canonical order key of an op (see canon.c).
typedef struct OpKey {
  uint32_t max_in;
  uint32_t in[MG_MAX_OP_INPUTS];
  uint32_t kind;
  uint64_t attr;
} OpKey;
void mg_opkey_of(const MgOp *op, uint64_t attr, OpKey *key);
int mg_opkey_compare(const OpKey *a, const OpKey *b);

/// Called for each generated op with its canonical attribute; returning
/// false stops the generation.
typedef bool (*GenFn)(void *ctx, MgOp *op, uint64_t attr);
/// Where generated ops go: the callback and its context.
typedef struct GenSink {
  GenFn fn;
  void *ctx;
} GenSink;
/// Generates the ops whose largest operand is tensor `m` (of rank `rank_m`)
/// with other operands in [first, m] (gen.c). Returns false when the sink's
/// callback did.
bool mg_gen_ops(const Vocab *v, bool block, uint32_t m, uint32_t first,
                uint32_t rank_m, GenSink sink);
/// True for ops counted against max_block_ops.
bool mg_search_counted(MgOpKind kind);
/// The kinds tracked by the non-LAX budget.
bool mg_search_budgeted(MgOpKind kind);

/// True when `p` sums values scaled by different exp(−max) without
/// rescaling them (rescale.c): such a candidate differs from a target that
/// subtracts each row's own max, although abstract expressions agree.
bool mg_search_mixes_maxes(const MgProgram *p);
/// True when tensor `m` of `g` is a max of `a` itself: reduce_max(a) over
/// some dim, or maximum(a, x). Then a − m ≤ 0.
bool mg_search_bounds_by_max(const MgGraph *g, MgTensorId a, MgTensorId m);
/// Builds the vocabulary, input roles and exact goal of the target.
MgStatus mg_search_analyze(Search *s, MgDiag *diag);

/// Whether `target` has the ops and tensors of `symbolic` (the program with
/// symbols it is a form of), so that a part of one cut by tensor and op ids
/// is the same part of the other (views.c, cut.c).
bool mg_search_symbolic_same_structure(const MgProgram *symbolic,
                                       const MgProgram *target);

#endif // MIRAGE_LIB_SEARCH_INTERNAL_H

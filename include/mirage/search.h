//===- search.h - Superoptimization: enumerate, prune, verify, rank -*- C -*-===//
//
// mg_search_run takes a kernel-level target program (graph 0 of predefined
// ops, e.g. from lifting) and looks for equivalent μGraphs with fewer
// kernels: kernel graphs of predefined ops and graph-defined kernels whose
// block graphs (grid, for-loop, imap/fmap, block ops, accumulators, omap)
// are enumerated op by op in a canonical order. Candidates are pruned by
// shape rules, dimension roles, abstract expressions (lib/absexpr) and
// budgets; complete candidates whose output expressions match the target
// are tested in the finite field (lib/verify) and only verified programs
// are returned, ranked by the cost model's time estimate (lib/cost), or by
// a proxy (fewest kernels, then fewest DRAM bytes, then least shared
// memory) when the options ask for it.
//
// The result (verified set and chosen program) does not depend on the
// number of threads. It does depend on the options, and a search stopped by
// its time budget or memory bound returns what it had (stats say so). See
// docs/search.md for the generator, the pruning rules and their soundness.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEARCH_H
#define MIRAGE_SEARCH_H

#include "mirage/absexpr.h"
#include "mirage/cost.h"
#include "mirage/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Why a partial candidate was dropped. ORDER MG_SEARCH_RULE: the name table
/// in lib/search/options.c.
typedef enum MgSearchRule {
  MG_SEARCH_RULE_SHAPE,      // a builder of lib/graph rejected the op
  MG_SEARCH_RULE_DIMS,       // it combines dims of different roles
  MG_SEARCH_RULE_REDUCE,     // a sum the target never makes (supports)
  MG_SEARCH_RULE_ANCHOR,     // a unary/scalar op on a value the target
                             // never applies it to
  MG_SEARCH_RULE_CANONICAL,  // not the canonical order (generated elsewhere)
  MG_SEARCH_RULE_ABSEXPR,    // not a subexpression of a target output
  MG_SEARCH_RULE_DUPLICATE,  // recomputes an expression already present
  MG_SEARCH_RULE_PENDING,    // its values cannot all be used within the limits
  MG_SEARCH_RULE_BUDGET,     // op limits, vocabulary, non-LAX op counts
  MG_SEARCH_RULE_SAVER,      // no omap/goal fits the block graph's outputs
  MG_SEARCH_RULE_LAUNCH,     // no launch parameters fit (policy, grid limits)
  MG_SEARCH_RULE_SMEM,       // shared memory over the target's limit
  MG_SEARCH_RULE_WORK,       // redundant work: more than max_work_ratio
                             // times the target's
  MG_SEARCH_RULE_OUTPUT,     // complete, but output expressions differ
  MG_SEARCH_RULE_SHIFT,      // targets whose exps are all guarded: it
                             // subtracts a max not known to bound its
                             // operand, or sums values shifted by different
                             // maxes without rescaling them
  MG_SEARCH_RULE_GENERALIZE, // the target stands for a program with
                             // symbols (`symbolic`) and the candidate does
                             // not generalize to every size
  MG_SEARCH_RULE_COUNT
} MgSearchRule;

/// Name of a rule ("shape", "absexpr", ...); NULL when out of range.
MG_API const char *mg_search_rule_name(MgSearchRule rule);

/// Live progress, passed to the progress callback.
typedef struct MgSearchProgress {
  double elapsed_s;
  double states_per_s;    // over the whole run so far
  uint64_t states;        // ops tried (kernel and block level)
  uint64_t pruned;        // ... of which dropped by some rule
  uint64_t candidates;    // complete candidates materialized
  uint64_t evaluated;     // candidates tested in the finite field
  uint64_t verified;
  uint32_t kernel_ops;    // kernel-graph size being searched
  const char *phase;      // "enumerate" or "verify"
} MgSearchProgress;

/// Called from the thread that called mg_search_run (never concurrently).
typedef void (*MgSearchProgressFn)(const MgSearchProgress *progress,
                                   void *user_data);
/// Called for every complete candidate program for the target before
/// evaluation (not for the parts of a prologue cut), under a lock (for
/// tests and tools: the program is only valid during the call).
typedef void (*MgSearchCandidateFn)(const MgProgram *candidate,
                                    void *user_data);


/// How verified candidates are ranked.
typedef enum MgSearchRank {
  MG_SEARCH_RANK_COST,  // the estimated time of the code lib/lower emits
                        // (mg_cost_emitted_program)
  MG_SEARCH_RANK_PROXY, // fewest kernels, then DRAM bytes, then smem
  MG_SEARCH_RANK_COUNT
} MgSearchRank;

/// Upper bounds of the resource options (mg_search_check_options): a day
/// of wall clock, 2^40 states (days of enumeration on any machine).
#define MG_SEARCH_MAX_TIME_BUDGET_S 86400.0
#define MG_SEARCH_MAX_STATES ((uint64_t)1 << 40)

typedef struct MgSearchOptions {
  // Generator limits.
  uint32_t max_kernel_ops;     // ops in the kernel graph (default 4)
  uint32_t max_custom_kernels; // graph-defined kernels (default 4)
  uint32_t max_block_ops;      // counted block ops per block graph (default
                               // 9): all but input, iterator, saver and
                               // unary/scalar element-wise ops
  uint32_t max_unary_ops;      // unary/scalar element-wise ops per block
                               // graph (default 8)
  uint32_t max_grid_dims;      // grid axes a block graph may use (default 2)
  uint32_t min_blocks;         // grid size lower bound; 0 = the target's SM
                               // count (clamped to what the dims allow)
  uint32_t max_blocks;         // grid size upper bound (default 65536)
  uint32_t max_forloop;        // largest for-loop range (default 64)
  uint32_t loop_tile;          // preferred size of the dim the for-loop
                               // cuts, per iteration (default 128)
  uint32_t launch_variants;    // rank=cost: launches (grid, for-loop) kept
                               // per block graph, in policy order, for the
                               // cost model to choose from (default 1: the
                               // policy's; more finds cheaper launches but
                               // can cost much more verification, see
                               // docs/search.md; rank=proxy keeps 1)
  bool pow2_launch;            // grid and for-loop sizes from power-of-two
                               // divisors only (default true)
  double max_work_ratio;       // drop candidates doing more than this
                               // times the target's compute (default 4)
  uint32_t max_recipes;        // block graphs kept per output signature
                               // (default 16)
  const MgTarget *target;      // shared memory and grid limits; NULL = default
  // Pruning (ablations turn these off).
  bool use_absexpr;            // abstract-expression pruning (default true)
  bool use_dims;               // dimension roles and the reduction rule
                               // (supports) (default true)
  bool use_kind_budget;        // non-LAX op counts <= target's (default true)
  MgAbsOptions absexpr;        // saturation bounds
  // Ranking and verification.
  MgSearchRank rank;           // default MG_SEARCH_RANK_COST
  uint32_t extra_levels;       // rank=cost: kernel-graph sizes searched past
                               // the first that verified a program cheaper
                               // than the target, while the cost model's
                               // lower bound for the size is below the
                               // best found (default 0)
  bool cut_prologues;          // rank=cost: also search the target cut at
                               // its prologues, part by part (default
                               // true; docs/search.md)
  bool exhaustive;             // search every kernel-graph size up to
                               // max_kernel_ops, whatever was verified
                               // (default false)
  uint32_t max_candidates;     // candidates kept per kernel-graph size for
                               // testing, cheapest first (default 256)
  uint32_t max_verified;       // stop testing a kernel-graph size after
                               // this many verified (default 1)
  double verify_error;         // false-acceptance bound (default 2^-40)
  uint32_t max_tests;          // a candidate whose per-test bound needs
                               // more tests than this is not tested
                               // (default 16; lib/verify's own cap is 64)
  uint64_t seed;               // test inputs derive from it (default 1)
  // Resources.
  uint32_t threads;            // workers; 0 = one per core
  double time_budget_s;        // wall-clock budget; 0 = none; at most
                               // MG_SEARCH_MAX_TIME_BUDGET_S
  uint64_t max_states;         // stop enumerating once this many states
                               // (ops tried, all levels) were counted,
                               // then test what was found (0: no bound;
                               // at most MG_SEARCH_MAX_STATES): a bound on
                               // work, not time. With threads = 1 the
                               // result is the same on any machine under
                               // any load (tests, the fuzzer); with more,
                               // where each thread stands when the bound
                               // stops it varies from run to run
  uint64_t max_offered;        // stop enumerating once this many complete
                               // candidates were generated (0: no limit):
                               // for tools that want the first N whatever
                               // the machine's speed (mirage-run)
  uint64_t memory_limit;       // bytes (default 2 GiB)
  // Set by mg_search_run, not by callers: the target whose input layouts
  // the programs found will get. The search runs on the logical program;
  // candidates are ranked with those layouts applied, so a kernel whose
  // form depends on them (a GEMV reading Wᵀ) is costed as it will run.
  const MgProgram *layouts;
  // A program with symbols whose form at `symbolic_at` rows the target is
  // (mg_search_symbolic_at), or NULL: then only candidates that
  // mg_search_symbolic_generalize makes valid for every size are costed
  // and tested, so the verified programs kept can all hold for every size
  // (a split-KV kernel, which cannot yet, would take their places). The
  // parts of a cut get the same parts of it.
  const MgProgram *symbolic;
  int64_t symbolic_at;
  // Callbacks.
  MgSearchProgressFn progress;
  void *progress_user_data;
  double progress_interval_s;  // default 1.0
  MgSearchCandidateFn on_candidate;
  void *candidate_user_data;

  // Explanation (--mirage-explain).
  uint32_t explain_top;        // keep the best this many candidates the
                               // search ranked for testing, with what
                               // became of each, in the result's `top`
                               // (default 0: none; changes nothing else)
} MgSearchOptions;

/// The defaults listed above.
MG_API MgSearchOptions mg_search_options_default(void);
/// INVALID (with the option named in `diag`) when a value is outside what
/// the search can honour; mg_search_run checks the same, so a caller that
/// parses options from text can reject them before any work.
MG_API MgStatus mg_search_check_options(const MgSearchOptions *options,
                                        MgDiag *diag);

//===--- Symbolic dims (issue 29; lib/search/symbolic.c) -------------------===//

/// `p` with every symbol at size `rows`, made static: the program the
/// search runs on for a program with symbols (one row, or one tile of
/// rows). The caller destroys it.
MG_API MgProgram *mg_search_symbolic_at(const MgProgram *p, int64_t rows);
/// A program found for mg_search_symbolic_at(full, at) made valid for every
/// size of full's symbols: each graph-defined kernel's blocks take the
/// rows one of its blocks took at `at` (all `at`, or `at` / the extent of
/// the axis that split them) on a grid axis of ceil(size / rows) blocks,
/// the last block's tile running past the size (ug.grid_rows). A kernel
/// whose for-loop runs over a symbol's rows keeps the rows an iteration
/// took at `at` and runs ceil(size / rows) iterations, the last holding
/// only the rows left (ug.forloop_rows).
/// NULL, with `diag` saying why, when that is not sound: a block reduces
/// over a symbol's rows outside a for-loop over them, the loop's rows
/// reach an op other than an element-wise one or a reduction over them,
/// a grid axis splits the rows the loop reduces (split-KV), a predefined
/// kernel reduces over a symbolic dim, the iterators split the rows
/// differently, no grid axis is free, a reshape between kernels.
MG_API MgProgram *mg_search_symbolic_generalize(const MgProgram *full,
                                                const MgProgram *one,
                                                int64_t at, MgDiag *diag);
/// True when an op of `p`'s root sums or maximizes over a symbolic dim
/// (a softmax over a KV length): it is searched at a size where blocks
/// loop over the rows, MG_SEARCH_SYMBOLIC_LOOP_AT.
MG_API bool mg_search_symbolic_reduces(const MgProgram *p);
/// The size a program that reduces over a symbol is searched at: rows
/// past what a block holds at once, so the search loops over them.
#define MG_SEARCH_SYMBOLIC_LOOP_AT 16384
/// True when a block graph of `p` runs its for-loop over a symbol.
MG_API bool mg_search_symbolic_loops(const MgProgram *p);
/// True when every kernel of `p` (a program with symbols) keeps the rows
/// of a symbol apart, or reduces over them only in a for-loop over them:
/// no predefined kernel reduces over a symbolic dim; a block reduces over
/// one only in its for-loop over that symbol, through block sums and
/// maxima, matmul contractions and SUM_LAST accumulators (the conditions
/// of docs/verification.md §4b and §4c); false with `diag` otherwise.
MG_API bool mg_search_symbolic_rowwise(const MgProgram *p, MgDiag *diag);
/// The sizes to field-test generalized program `g` at (at most `cap`):
/// one row, 7, and for each block's rows r (a grid axis's or a for-loop
/// iteration's) r + 1; a for-loop also 2r (full iterations only) and, at
/// r > 2, r - 1 (one partial iteration). Returns how many.
MG_API uint32_t mg_search_symbolic_test_sizes(const MgProgram *g,
                                              int64_t *sizes, uint32_t cap);
typedef struct MgSymbolicCheck {
  MgVerdict verdict;  // EQUIVALENT when every size passed
  int64_t size;       // the size that failed (verdict or status)
  uint32_t tests;     // field tests run, all sizes
  double log2_bound;  // the largest of the per-size bounds
} MgSymbolicCheck;
/// The sizes to test at, and the field tests' options at each.
typedef struct MgSymbolicTest {
  const int64_t *sizes;
  uint32_t num_sizes;
  MgVerifyOptions verify;
} MgSymbolicTest;
/// Field tests of `candidate` against `full` with every symbol at each of
/// test->sizes in turn (each to the options' bound), stopping at the first
/// size that is not EQUIVALENT.
MG_API MgStatus mg_search_symbolic_verify(const MgProgram *full,
                                          const MgProgram *candidate,
                                          const MgSymbolicTest *test,
                                          MgSymbolicCheck *check,
                                          MgDiag *diag);

/// Ranking key of a program, compared lexicographically.
typedef struct MgSearchCost {
  double time_s;       // cost-model estimate (mg_cost_emitted_program on
                       // the search's target); 0 under MG_SEARCH_RANK_PROXY
  uint32_t kernels;    // ops in the kernel graph (one launch each)
  uint64_t dram_bytes; // bytes read and written in DRAM (see docs/search.md)
  uint64_t smem_bytes; // shared memory of all block graphs
} MgSearchCost;

/// The proxy cost of a valid program (time_s 0).
MG_API MgSearchCost mg_search_proxy_cost(const MgProgram *program);
/// The ranking key the search gives a valid program under `options`
/// (NULL: the defaults): the proxy fields plus, under MG_SEARCH_RANK_COST,
/// the estimated time on the options' target.
MG_API MgSearchCost mg_search_cost(const MgProgram *program,
                                   const MgSearchOptions *options);
/// <0, 0, >0 as `a` is cheaper than, equal to, or dearer than `b`.
MG_API int mg_search_cost_compare(const MgSearchCost *a,
                                  const MgSearchCost *b);

/// A shape rejection reason (builder message with numbers elided).
typedef struct MgSearchReason {
  char text[96];
  uint64_t count;
} MgSearchReason;
#define MG_SEARCH_MAX_REASONS 24

typedef struct MgSearchStats {
  uint64_t states;            // ops tried, all levels
  uint64_t kernel_states;     // ... of which kernel-graph ops
  uint64_t skeletons;         // block launch skeletons (grid/loop roles)
  uint64_t pruned[MG_SEARCH_RULE_COUNT];
  uint32_t num_reasons;       // shape rejections by reason, sorted by text
  MgSearchReason reasons[MG_SEARCH_MAX_REASONS];
  uint64_t block_graphs;      // complete block graphs found
  uint64_t recipes_dropped;   // ... beyond max_recipes per signature
  uint64_t kernel_graphs;     // complete kernel-graph skeletons
  uint64_t candidates;        // concrete candidate programs materialized
  uint64_t canonical_skips;   // pruned[CANONICAL], repeated for reading
  uint64_t evaluated;         // candidates tested
  uint64_t fingerprint_mismatches; // failed the first (fingerprint) test
  uint64_t sibling_skips;     // not tested: a launch variant of the same
                              // structure failed its fingerprint
  uint64_t verified;
  uint64_t cost_skips;        // not tested: no cheaper than a program
                              // already verified
  uint64_t verifier_rejected; // matched the fingerprint, then failed or
                              // stayed UNKNOWN, or weak_bound
  uint64_t weak_bound;        // ... of which not tested: the bound needs
                              // more than max_tests tests
  uint64_t tests_run;         // candidate runs in the finite field
  uint64_t unstable;          // not kept: an exp the target guards by a
                              // max subtraction is unguarded in them
  uint64_t unstable_equal;    // ... of which verified equal (only the
                              // first is tested, to say so)
  uint32_t kernel_ops_searched; // largest kernel-graph size searched
  uint32_t cut_parts;         // parts searched separately (prologue cuts;
                              // their counts are included above), 0: none
  bool cost_bound_stop;       // deepening stopped: the next size's lower
                              // bound was no better than the best found
  uint32_t threads;           // workers used
  bool absexpr_used;          // pruning was active (options and library)
  bool absexpr_saturated;     // the e-graph saturated within its bounds
  bool timed_out;             // the time budget stopped the search
  bool memory_limited;        // the memory bound stopped the search
  bool states_limited;        // max_states stopped the enumeration
  uint32_t parts_memory_limited; // cut parts the memory bound stopped or
                                 // left unsearched (kept as they were)
  uint64_t memory_high_water; // bytes accounted (caches, programs, tests)
  double elapsed_s, enumerate_s, verify_s;
} MgSearchStats;

/// Most parts a target is cut into (prologues and the rest).
#define MG_SEARCH_MAX_PARTS 5

typedef struct MgSearchFound {
  MgProgram *program;         // owned by the result
  MgSearchCost cost;
  uint64_t hash;              // mg_program_hash
  MgVerifyResult check;       // the verification that accepted it
  /// When `program` is the target's cut parts composed: one program per
  /// part, in mg_search_cut_parts order, each verified against its part
  /// (owned by the result); 0 parts otherwise.
  uint32_t num_parts;
  MgProgram *parts[MG_SEARCH_MAX_PARTS];
} MgSearchFound;

/// What became of a candidate the search ranked for testing (the order
/// of testing is the rank order; see docs/search.md).
/// ORDER MG_SEARCH_FATE: the name table in lib/search/explain.c.
typedef enum MgSearchFate {
  MG_SEARCH_FATE_VERIFIED,    // tested and verified
  MG_SEARCH_FATE_FINGERPRINT, // the first test that counts differed
  MG_SEARCH_FATE_REJECTED,    // a later test differed, or none was left
  MG_SEARCH_FATE_WEAK_BOUND,  // not tested: its bound needs more than
                              // max_tests tests
  MG_SEARCH_FATE_UNSTABLE,    // drops a max subtraction the target has
  MG_SEARCH_FATE_SIBLING,     // not tested: a launch variant of the same
                              // block graphs failed its fingerprint
  MG_SEARCH_FATE_NOT_CHEAPER, // not tested: no cheaper than the input or
                              // the best verified so far
  MG_SEARCH_FATE_UNTESTED,    // not tested: cheaper candidates of its round
                              // were verified first (max_verified)
  MG_SEARCH_FATE_STOPPED,     // not tested: the time budget or the memory
                              // bound stopped testing
  MG_SEARCH_FATE_COUNT
} MgSearchFate;

/// Name of a fate ("verified", "not-cheaper", ...); NULL when out of range.
MG_API const char *mg_search_fate_name(MgSearchFate fate);

/// One of the best candidates (options.explain_top).
typedef struct MgSearchCandidate {
  MgProgram *program;   // owned by the result
  MgSearchCost cost;    // its ranking key
  uint64_t hash;        // mg_program_hash
  MgSearchFate fate;
  MgVerifyResult check; // the tests it ran (tests 0: none)
  uint32_t parts;       // > 0: not enumerated whole but composed of this
                        // many parts searched on their own (prologue cuts,
                        // or the parts between view ops), each verified
} MgSearchCandidate;

typedef struct MgSearchResult {
  uint32_t num_found;         // verified programs, best first
  MgSearchFound *found;
  int32_t best;               // index of the chosen program (0), -1: none
  MgSearchStats stats;
  /// options.explain_top > 0: the best candidates ranked for testing over
  /// every kernel-graph size, in the search's own order (cost, then hash
  /// and program words), at most explain_top of them; the same for any
  /// thread count.
  uint32_t num_top;
  MgSearchCandidate *top;
} MgSearchResult;

/// Searches for programs equivalent to `target` (its root graph). On OK,
/// `result` holds the verified programs (possibly none) and statistics; the
/// caller must mg_search_result_free it (also after a failure). A time
/// budget or memory bound that stops the search is not a failure: stats
/// say so. INVALID when the target is malformed; UNSUPPORTED when its root
/// graph holds graph-defined kernels or more than 16 inputs / 4 outputs;
/// NOMEM on no memory.
MG_API MgStatus mg_search_run(const MgProgram *target,
                              const MgSearchOptions *options,
                              MgSearchResult *result, MgDiag *diag);

/// Frees every program of `result` and empties it (num_found 0, best -1);
/// the statistics stay readable. Accepts NULL.
MG_API void mg_search_result_free(MgSearchResult *result);

/// Workers a search with `options` uses (threads 0: one per core).
MG_API uint32_t mg_search_threads(const MgSearchOptions *options);

/// The chosen program, or NULL when none was verified (borrowed).
MG_API const MgProgram *mg_search_result_best(const MgSearchResult *result);

/// The parts the search cuts `target` into at its prologues (values computed
/// from one input through a reduction, see lib/search/cut.c): `parts[0]`
/// computes the target's outputs from its inputs and the prologues, each
/// further part one prologue from its input. Returns how many (0: no cut),
/// each a new program the caller destroys. NOMEM leaves 0 parts.
MG_API uint32_t mg_search_cut_parts(const MgProgram *target,
                                    MgProgram *parts[MG_SEARCH_MAX_PARTS],
                                    MgDiag *diag);

/// Composes `programs` (one per part of mg_search_cut_parts, same order and
/// signatures) into one program computing what `target` computes: when each
/// is equivalent to its part, the composition is equivalent to the target.
/// Parts have no input layouts; the composition gets the target's.
/// NULL (with a message) when they do not fit the parts or the result is
/// not valid for `gpu`.
MG_API MgProgram *mg_search_cut_join(const MgProgram *target,
                                     const MgProgram *const *programs,
                                     uint32_t num_programs,
                                     const MgTarget *gpu, MgDiag *diag);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_SEARCH_H

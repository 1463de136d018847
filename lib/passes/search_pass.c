//===- search_pass.c - --mirage-search: superoptimize each kernel graph ---===//
//
// For every kernel-level μGraph function made only of predefined ops (what
// lifting produces), runs the search of lib/search, and replaces the
// function by the best verified μGraph when it is cheaper. Identical
// subprograms (equal μGraphs: a model's repeated layers) are searched once
// per run. Results, "nothing cheaper" included, are cached on disk by
// (subprogram, version, target, options) and improved ones re-verified on
// every hit (cache.h); those of searches stopped by their time budget,
// memory bound or max-states under a key that adds all three. With dump-dot=DIR each
// function's resulting μGraph is also drawn as DIR/<function>.dot
// (dump_dot.c).
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // isatty, fileno

#include "search_pass.h"
#include "search_symbolic.h"
#include "mpi_ranks.h"
#include "remote_cache.h"
#include "search_mpi.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "explain.h"
#include "ptx_rank.h"
#include "dump_dot.h"
#include "mirage/cost.h"
#include "mirage/search.h"
#include "mirage/verify.h"
#include "ugraph_funcs.h"

const MgOptionSpec mg_search_pass_options[] = {MG_SEARCH_OPTION_SPECS};

static bool parse_rank(const char *name, MgSearchRank *rank) {
  if (strcmp(name, "cost") == 0)
    *rank = MG_SEARCH_RANK_COST;
  else if (strcmp(name, "proxy") == 0)
    *rank = MG_SEARCH_RANK_PROXY;
  else
    return false;
  return true;
}

// The search options the pass values stand for (rank and target checked
// by the caller).
static MgSearchOptions options_of(const MgOptionValue *values) {
  MgSearchOptions o = mg_search_options_default();
  o.max_kernel_ops = (uint32_t)values[SEARCH_OPT_MAX_KERNEL_OPS].i;
  o.max_block_ops = (uint32_t)values[SEARCH_OPT_MAX_BLOCK_OPS].i;
  o.max_custom_kernels = (uint32_t)values[SEARCH_OPT_MAX_CUSTOM_KERNELS].i;
  o.time_budget_s = values[SEARCH_OPT_TIME_BUDGET].f;
  o.max_states = (uint64_t)values[SEARCH_OPT_MAX_STATES].i;
  o.threads = (uint32_t)values[SEARCH_OPT_THREADS].i;
  o.target = mg_target_lookup(values[SEARCH_OPT_TARGET].s);
  o.use_absexpr = values[SEARCH_OPT_ABSEXPR].b;
  o.seed = (uint64_t)values[SEARCH_OPT_SEED].i;
  o.verify_error = ldexp(1.0, -(int)values[SEARCH_OPT_ERROR_BITS].i);
  parse_rank(values[SEARCH_OPT_RANK].s, &o.rank);
  o.cut_prologues = values[SEARCH_OPT_CUTS].b;
  return o;
}

bool mg_search_pass_check(const MgOptionValue *values, char *error,
                          size_t size) {
  MgSearchRank rank;
  if (!parse_rank(values[SEARCH_OPT_RANK].s, &rank)) {
    snprintf(error, size, "unknown rank '%s' (expected cost or proxy)",
             values[SEARCH_OPT_RANK].s);
    return false;
  }
  if (!mg_pass_check_target(values[SEARCH_OPT_TARGET].s, error, size) ||
      !mg_dump_dot_check(values[SEARCH_OPT_DUMP_DOT].s, error, size))
    return false;
  // The search's own limits, here, before any work: no value the pass
  // accepts is refused later. Its messages name struct fields; the pass's
  // options spell them with '-'.
  MgSearchOptions o = options_of(values);
  MgDiag diag;
  if (mg_search_check_options(&o, &diag) != MG_STATUS_OK) {
    snprintf(error, size, "%s", diag.message);
    char *name = strchr(error, '\'');
    for (char *c = name ? name + 1 : NULL; c && *c && *c != '\''; c++)
      if (*c == '_')
        *c = '-';
    return false;
  }
  const char *url = values[SEARCH_OPT_CACHE_URL].s;
  MgRedisAddress address;
  char why[256];
  if (url[0] && !mg_remote_cache_parse_url(url, &address, why, sizeof why)) {
    snprintf(error, size, "%s", why);
    return false;
  }
  double wait = values[SEARCH_OPT_CACHE_WAIT].f;
  if (!(wait >= 0 && wait <= 86400)) {
    snprintf(error, size, "cache-wait-s must be in [0, 86400] seconds");
    return false;
  }
  double timeout = values[SEARCH_OPT_CACHE_TIMEOUT].f;
  if (!(timeout > 0 && timeout <= 600)) {
    snprintf(error, size, "cache-timeout-s must be in (0, 600] seconds");
    return false;
  }
  double mpi_timeout = values[SEARCH_OPT_MPI_TIMEOUT].f;
  if (!(mpi_timeout >= 0 && mpi_timeout <= 86400)) {
    snprintf(error, size, "mpi-timeout-s must be in [0, 86400] seconds");
    return false;
  }
  // A cache directory that cannot be made or written is no error (the
  // search runs without it), but the user asked for a cache: say so.
  if (values[SEARCH_OPT_CACHE].b && values[SEARCH_OPT_CACHE_DIR].s[0] &&
      !mg_cache_usable(values[SEARCH_OPT_CACHE_DIR].s))
    fprintf(stderr,
            "mirage-search: warning: cache-dir '%s' cannot be created or "
            "written (%s); results are not cached\n",
            values[SEARCH_OPT_CACHE_DIR].s, strerror(errno));
  return true;
}

typedef struct ProgressState {
  const char *func;
  bool tty;
  bool printed;
  bool print;      // progress asked for
  MgMpiPlan *mpi;  // rank 0 of an MPI run: receives while it searches
} ProgressState;

static void on_progress(const MgSearchProgress *p, void *ud) {
  ProgressState *s = ud;
  fprintf(stderr,
          "%s[mirage-search @%s] %.1f s  %s  states %llu (%.0f/s)  pruned %llu"
          "  candidates %llu  verified %llu%s",
          s->tty ? "\r" : "", s->func, p->elapsed_s, p->phase,
          (unsigned long long)p->states, p->states_per_s,
          (unsigned long long)p->pruned, (unsigned long long)p->candidates,
          (unsigned long long)p->verified, s->tty ? "\033[K" : "\n");
  s->printed = true;
}

static void on_search_progress(const MgSearchProgress *p, void *ud) {
  ProgressState *s = ud;
  if (s->mpi)
    mg_search_mpi_drain(s->mpi);
  if (s->print)
    on_progress(p, ud);
}

static void print_stats(const char *func, const MgSearchStats *st) {
  fprintf(stderr,
          "mirage-search @%s: %.2f s (enumerate %.2f s, verify %.2f s), %u "
          "thread(s), %llu states, %llu candidates, %llu evaluated, %llu "
          "verified%s%s%s\n",
          func, st->elapsed_s, st->enumerate_s, st->verify_s, st->threads,
          (unsigned long long)st->states, (unsigned long long)st->candidates,
          (unsigned long long)st->evaluated, (unsigned long long)st->verified,
          st->timed_out ? ", stopped by the time budget" : "",
          st->memory_limited ? ", stopped by the memory bound" : "",
          st->states_limited ? ", stopped by max-states" : "");
  fprintf(stderr, "mirage-search @%s: pruned by rule:", func);
  for (int r = 0; r < MG_SEARCH_RULE_COUNT; ++r)
    fprintf(stderr, " %s %llu", mg_search_rule_name((MgSearchRule)r),
            (unsigned long long)st->pruned[r]);
  fprintf(stderr, "; fingerprint mismatches %llu, verifier rejections %llu, "
          "unstable %llu, not tested (no cheaper than the best) %llu; "
          "kernel-graph sizes searched %u%s; parts searched separately %u\n",
          (unsigned long long)st->fingerprint_mismatches,
          (unsigned long long)st->verifier_rejected,
          (unsigned long long)st->unstable,
          (unsigned long long)st->cost_skips, st->kernel_ops_searched,
          st->cost_bound_stop ? " (then the cost bound stopped it)" : "",
          st->cut_parts);
}

/// Unique symbol names for the new graphs: "<F>_k<i>".
static char **graph_names(MlirSymbolTable table, const char *root,
                          uint32_t count) {
  char **names = calloc(count, sizeof *names);
  if (!names)
    return NULL;
  for (uint32_t g = 0; g < count; ++g) {
    char buf[512];
    if (g == 0)
      snprintf(buf, sizeof buf, "%s", root);
    else
      for (int suffix = 0;; ++suffix) {
        snprintf(buf, sizeof buf, suffix ? "%s_k%u_%d" : "%s_k%u", root, g,
                 suffix);
        if (mlirOperationIsNull(mlirSymbolTableLookup(
                table, mlirStringRefCreateFromCString(buf))))
          break;
      }
    if (!(names[g] = strdup(buf))) {
      while (g-- > 0)
        free(names[g]);
      free(names);
      names = NULL;
      break;
    }
  }
  return names;
}

static bool replace_func(MlirOperation module, MlirSymbolTable symbols,
                         MlirOperation func, const char *name,
                         const MgProgram *best) {
  MlirAttribute reference = mlirOperationGetAttributeByName(
      func, mlirStringRefCreateFromCString("ug.reference"));
  MlirAttribute visibility = mlirOperationGetAttributeByName(
      func, mlirStringRefCreateFromCString("sym_visibility"));
  char **names = graph_names(symbols, name, best->num_graphs);
  MlirOperation *funcs = calloc(best->num_graphs, sizeof *funcs);
  bool ok = names && funcs &&
            mlirLogicalResultIsSuccess(mg_bridge_export(
                (MgBridgeModule){module, symbols}, best, name,
                (const char *const *)names, mlirOperationGetLocation(func),
                funcs));
  for (uint32_t g = 0; names && g < best->num_graphs; ++g) {
    MlirOperation f = funcs ? funcs[g] : (MlirOperation){NULL};
    if (!mlirOperationIsNull(f) && !mlirAttributeIsNull(visibility))
      mlirOperationSetAttributeByName(
          f, mlirStringRefCreateFromCString("sym_visibility"), visibility);
    if (g == 0 && !mlirOperationIsNull(f) && !mlirAttributeIsNull(reference))
      mlirOperationSetAttributeByName(
          f, mlirStringRefCreateFromCString("ug.reference"), reference);
    free(names[g]);
  }
  free(names);
  free(funcs);
  return ok;
}

/// A subprogram already handled in this run, and what became of it.
typedef struct Seen {
  uint64_t hash;
  MgProgram *subject;
  MgProgram *best; // NULL: nothing cheaper
  char name[256];
  bool timed_out, memory_limited, states_limited;
  uint32_t next; // the previous entry with the same hash key, or UINT32_MAX
} Seen;

typedef struct Owned Owned;

typedef struct Run {
  MgSearchOptions options;
  char cache_dir[4096];
  MgCacheStore store;         // cache_dir, and the shared server if any
  double wait_s;              // cache-wait-s
  bool remote_warned;         // its failure was reported
  bool use_cache, cache_verify, remarks, stats, progress;
  bool explaining; // --mirage-explain: the search runs (the cache is not
                   // read: a cached answer has no candidates to show)
  MgExplainPass explain;
  MgPtxRank ptx;        // rank-ptxas: re-rank by ptxas facts when on
  char salt[400];       // its settings, in the cache key
  MlirContext ctx;
  const char *dump_dir; // "" when no pictures are asked for
  Seen *seen;
  uint32_t num_seen, cap_seen;
  MgPtrMap seen_by_hash; // hash key -> its latest entry (chained by next)
  // The module-level progress line.
  uint32_t total, done, searched, cached, deduplicated;
  double start_s;
  // Under mpirun (search_mpi.h): the plan, rank 0's answers to its own
  // items, the entries a rank sent (rank 0) or sends (the others).
  MgMpiPlan *mpi; // NULL: a plain run
  Owned *own;
  MgCacheMemo inbox, outbox;
  bool worker;    // a rank other than 0: errors go to rank 0
} Run;

/// The key of `hash` in seen_by_hash: pointer-sized and never null.
static const void *hash_key(uint64_t hash) {
  return (const void *)(uintptr_t)(hash | 1);
}

static Seen *find_seen(const Run *run, const MgProgram *p, uint64_t hash) {
  for (uint32_t i = mg_ptrmap_get(&run->seen_by_hash, hash_key(hash));
       i != UINT32_MAX; i = run->seen[i].next)
    if (run->seen[i].hash == hash && mg_program_equal(run->seen[i].subject, p))
      return &run->seen[i];
  return NULL;
}

/// Remembers `subject`'s outcome (copies of both programs); best effort: a
/// failure only means a repeat is searched again.
static void remember(Run *run, const MgProgram *subject, uint64_t hash,
                     const MgProgram *best, const char *name,
                     const MgSearchStats *st) {
  if (!mg_array_reserve(&run->seen, &run->cap_seen, run->num_seen + 1,
                        sizeof *run->seen, 16))
    return;
  Seen *e = &run->seen[run->num_seen];
  memset(e, 0, sizeof *e);
  e->hash = hash;
  e->subject = mg_program_clone(subject);
  e->best = best ? mg_program_clone(best) : NULL;
  if (!e->subject || (best && !e->best)) {
    mg_program_destroy(e->subject);
    mg_program_destroy(e->best);
    return;
  }
  snprintf(e->name, sizeof e->name, "%s", name);
  e->timed_out = st->timed_out;
  e->memory_limited = st->memory_limited;
  e->states_limited = st->states_limited;
  e->next = mg_ptrmap_get(&run->seen_by_hash, hash_key(hash));
  if (!mg_ptrmap_put(&run->seen_by_hash, hash_key(hash), run->num_seen)) {
    mg_program_destroy(e->subject);
    mg_program_destroy(e->best);
    return;
  }
  ++run->num_seen;
}

static void forget_all(Run *run) {
  for (uint32_t i = 0; i < run->num_seen; ++i) {
    mg_program_destroy(run->seen[i].subject);
    mg_program_destroy(run->seen[i].best);
  }
  free(run->seen);
  mg_ptrmap_free(&run->seen_by_hash);
}

/// One line per subprogram when progress is on: how far the module is, and
/// a linear estimate of what is left (repeats later on make it pessimistic).
static void module_progress(const Run *run) {
  if (!run->progress || run->total < 2)
    return;
  double elapsed = mg_clock_now() - run->start_s;
  double left = run->done ? elapsed / run->done * (run->total - run->done) : 0;
  fprintf(stderr,
          "[mirage-search] %u/%u subprograms (%u searched, %u from the cache, "
          "%u deduplicated), %.1f s, about %.0f s left\n",
          run->done, run->total, run->searched, run->cached,
          run->deduplicated, elapsed, left);
}

/// A line of the picture's caption: kernels and the ranking's measure.
static void put_cost(MgText *t, const Run *run, const MgSearchCost *c) {
  if (run->options.rank == MG_SEARCH_RANK_COST)
    mg_text_printf(t, "%u kernel(s), estimated %.1f us", c->kernels,
                   1e6 * c->time_s);
  else
    mg_text_printf(t, "%u kernel(s), %llu DRAM bytes", c->kernels,
                   (unsigned long long)c->dram_bytes);
}

// The kernel function search_one is about: the func.func, where its
// diagnostics go, its symbol name and its μGraph (the search's target).
typedef struct Subject {
  MlirOperation func;
  MlirLocation loc;
  const char *name;
  const MgProgram *target;
} Subject;

/// dump-dot: the μGraph `subj` has after the search (`chosen`), captioned
/// with what the search decided and the cost model's estimates (not
/// measurements) of it and, when it replaced the input, of the input
/// (`input`; NULL when kept). True when no picture is asked for.
static bool dump_chosen(const Run *run, const Subject *subj,
                        const MgProgram *chosen, const char *decision,
                        const MgSearchCost *cost, const MgSearchCost *input) {
  if (!*run->dump_dir)
    return true;
  MgText caption = {NULL, 0, 0, false};
  mg_text_printf(&caption, "%s", decision);
  if (cost) {
    mg_text_printf(&caption, ": ");
    put_cost(&caption, run, cost);
    mg_text_printf(&caption, " on %s", run->options.target->name);
  }
  if (input) {
    mg_text_printf(&caption, "\ninput: ");
    put_cost(&caption, run, input);
  }
  if (cost && run->options.rank == MG_SEARCH_RANK_COST)
    mg_text_printf(&caption, " (cost model, not measured)");
  bool ok = mg_dump_dot_write(run->dump_dir, subj->name, chosen,
                              caption.failed ? decision : caption.data,
                              subj->loc);
  mg_text_free(&caption);
  return ok;
}

// One function's answer: a cheaper μGraph (best), or none (kept, or no
// answer yet), and where it came from.
typedef struct Answer {
  MgProgram *best;
  bool kept, from_cache, cached_stopped, cache_verified, cache_shared;
  double waited_s;      // waited for another process's search (fleet lock)
  bool lock_held;       // this process searches it for the fleet
  char lock_key[65], lock_token[96];
  const char *same_as; // the earlier function with the same μGraph
  int from_rank;       // > 0: another MPI rank's answer, verified here
  char error[512];     // a rank's failure, for rank 0
  MgSearchResult result;
  MgPtxRanking ranking; // rank-ptxas's facts of the best verified
} Answer;

// Rank 0's answer to an item it owns, found before the others arrive.
struct Owned {
  Answer answer;
  bool ready, ok;
};

// The same μGraph as an earlier subprogram: the same answer.
static void answer_from_seen(Run *run, const Seen *seen, Answer *a) {
  a->same_as = seen->name;
  a->kept = !seen->best;
  a->best = seen->best ? mg_program_clone(seen->best) : NULL;
  a->result.stats.timed_out = seen->timed_out;
  a->result.stats.memory_limited = seen->memory_limited;
  a->result.stats.states_limited = seen->states_limited;
  ++run->deduplicated;
}

// The shared server's first failure (down, slow, full, read-only), once:
// from then on the run uses the disk cache and the search alone.
static void warn_remote(Run *run, MlirLocation loc) {
  const char *why = mg_remote_cache_failure(run->store.remote);
  if (why && !run->remote_warned) {
    run->remote_warned = true;
    mg_pass_warning(loc, "mirage-search: the shared cache is out of use for "
                         "this run: %s", why);
  }
}

static void answer_from_cache(Run *run, MlirOperation module,
                              MlirLocation loc, const char *name,
                              const MgProgram *target, Answer *a) {
  MgDiag diag = MG_DIAG_INIT;
  MgCacheFetched got = {MG_CACHE_MISS, false, false, false, false};
  a->best = mg_cache_fetch(mlirOperationGetContext(module),
                           &(MgCacheQuery){&run->store, target,
                                           &run->options, !run->cache_verify},
                           &got, &diag);
  const MgCacheOutcome outcome = got.outcome;
  const bool stopped = got.stopped, verified = got.verified;
  const bool shared = got.shared;
  // An entry from the shared server that fails: someone else's doing,
  // said once per entry, deleted there and searched again.
  if ((outcome == MG_CACHE_DAMAGED || outcome == MG_CACHE_REJECTED) &&
      shared)
    mg_pass_warning(loc, "mirage-search: the shared cache entry for '@%s' "
                         "is deleted and searched again: %s",
                    name, diag.message);
  else if (outcome == MG_CACHE_DAMAGED && run->remarks)
    mg_pass_remark(loc, "mirage-search: ignoring a damaged cache entry: %s",
                   diag.message);
  // Not an entry of this user's (a link, a FIFO planted in a shared
  // directory): never read, searched again.
  if (outcome == MG_CACHE_REFUSED)
    mg_pass_warning(loc, "mirage-search: the cache entry for '@%s' is "
                         "ignored and searched again: %s",
                    name, diag.message);
  // Readable but not shown equivalent: stale, or written by someone else.
  if (outcome == MG_CACHE_REJECTED && !shared)
    mg_pass_warning(loc, "mirage-search: the cache entry for '@%s' is "
                         "removed and searched again: %s",
                    name, diag.message);
  a->kept = outcome == MG_CACHE_KEPT;
  a->from_cache = a->best != NULL || a->kept;
  a->cached_stopped = a->from_cache && stopped;
  a->cache_verified = a->best && verified;
  a->cache_shared = a->from_cache && shared;
  run->cached += a->from_cache;
  warn_remote(run, loc);
}

// Records a fresh search's answer in the cache (a failure to is only
// remarked on).
static void cache_result(const Run *run, MlirLocation loc,
                         const MgProgram *target, const Answer *a) {
  MgDiag diag = MG_DIAG_INIT;
  const MgSearchResult *result = &a->result;
  bool stopped = result->stats.timed_out || result->stats.memory_limited ||
                 result->stats.states_limited;
  MgStatus put = MG_STATUS_OK;
  if (run->use_cache || run->store.record) // a rank records for rank 0
    put = a->best ? mg_cache_put(&run->store, target, &run->options,
                                 &result->found[result->best], stopped, &diag)
                  : mg_cache_put_kept(&run->store, target, &run->options,
                                      stopped, &diag);
  if (put != MG_STATUS_OK && run->remarks)
    mg_pass_remark(loc, "mirage-search: result not cached: %s", diag.message);
}

// Remarks on what a search left out: unstable candidates, parts the memory
// bound stopped.
static void remark_search_limits(const Run *run, MlirLocation loc,
                                 const char *name, const MgSearchStats *st) {
  if (st->unstable && run->remarks)
    mg_pass_remark(loc, "mirage-search: '@%s': %llu candidate(s) "
                        "rejected as numerically unstable: an exp the "
                        "original guards by subtracting a max takes an "
                        "unbounded argument in them (the first one "
                        "tested %s)",
                   name, (unsigned long long)st->unstable,
                   st->unstable_equal ? "was verified equal to the original"
                                      : "was not verified equal");
  if (st->parts_memory_limited && run->remarks)
    mg_pass_remark(loc, "mirage-search: '@%s': %u of %u parts stopped "
                        "by the memory bound (raise memory-limit to "
                        "search them whole)",
                   name, st->parts_memory_limited, st->cut_parts);
}

// Searches target; false (after an error) when the search fails.
// How long a process waits for another one's search of the same kernel
// graph: cache-wait-s, else the time budget, else 600 s.
static double wait_bound(const Run *run) {
  return run->wait_s > 0                  ? run->wait_s
         : run->options.time_budget_s > 0 ? run->options.time_budget_s
                                          : 600;
}

// One search across the fleet (a miss in both caches): take the kernel
// graph's lock on the shared server and search; or, if another process
// holds it, wait for its result (polling the cache), at most wait_bound
// seconds, then search here. The lock expires after twice that bound, so
// a crashed holder delays the others at most once.
static void wait_for_fleet(Run *run, MlirOperation module, MlirLocation loc,
                           const char *name, const MgProgram *target,
                           Answer *a) {
  MgRemoteCache *r = run->store.remote;
  if (!r || !mg_cache_key_hex(&run->store, target, &run->options,
                              a->lock_key))
    return;
  snprintf(a->lock_token, sizeof a->lock_token, "%ld-%llx", (long)getpid(),
           (unsigned long long)mg_verify_fresh_seed());
  double bound = wait_bound(run), start = mg_clock_now();
  unsigned ttl_ms = (unsigned)fmin(2 * bound * 1000, 4e9);
  for (;;) {
    MgRemoteStatus st = mg_remote_cache_lock(r, a->lock_key, a->lock_token,
                                             ttl_ms);
    if (st == MG_REMOTE_OK) {
      a->lock_held = true;
      return;
    }
    if (st != MG_REMOTE_MISS)
      return; // the server is out of use: search here
    // Held elsewhere: poll until it is released (then look again) or the
    // bound passes.
    while (mg_remote_cache_locked(r, a->lock_key) == MG_REMOTE_OK &&
           mg_clock_now() - start < bound)
      nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    double waited = mg_clock_now() - start;
    answer_from_cache(run, module, loc, name, target, a);
    if (a->best || a->kept) {
      a->waited_s = waited;
      return;
    }
    if (waited >= bound) {
      if (run->remarks)
        mg_pass_remark(loc, "mirage-search: '@%s': another process has "
                            "been searching it for %.1f s; searched here "
                            "too", name, waited);
      return;
    }
  }
}

// `symbolic` (else NULL): `target` is its form at `at` rows
// (search_symbolic.c): only candidates that generalize are tested, more
// verified programs are kept, since the cheapest may hold at one row only,
// and nothing is cached (an entry would be that size's answer).
static bool answer_by_search(Run *run, MlirLocation loc, const char *name,
                             const MgProgram *target,
                             const MgProgram *symbolic, int64_t at,
                             Answer *a) {
  ++run->searched;
  MgDiag diag = MG_DIAG_INIT;
  ProgressState progress = {name, isatty(fileno(stderr)) != 0, false,
                            run->progress,
                            run->mpi && !run->worker ? run->mpi : NULL};
  MgSearchOptions o = run->options;
  if (symbolic && o.max_verified < MG_SYMBOLIC_MAX_VERIFIED)
    o.max_verified = MG_SYMBOLIC_MAX_VERIFIED;
  o.symbolic = symbolic;
  o.symbolic_at = at;
  if (progress.print || progress.mpi) {
    o.progress = on_search_progress;
    o.progress_user_data = &progress;
  }
  MgStatus s = mg_search_run(target, &o, &a->result, &diag);
  if (progress.printed && progress.tty)
    fputc('\n', stderr);
  if (s != MG_STATUS_OK && run->worker) {
    snprintf(a->error, sizeof a->error, "%s", diag.message);
    return false;
  }
  if (s != MG_STATUS_OK) {
    mg_pass_error(loc, "mirage-search failed on '@%s': %s", name,
                  diag.message);
    return false;
  }
  if (run->stats)
    print_stats(name, &a->result.stats);
  if (run->ptx.on) {
    mg_ptx_rank_apply(&run->ptx, run->ctx, run->options.target, &a->result,
                      &a->ranking);
    mg_ptx_rank_warn(&a->ranking, loc, name);
  }
  const MgProgram *chosen = mg_search_result_best(&a->result);
  if (chosen)
    a->best = mg_program_clone(chosen);
  if (!symbolic)
    cache_result(run, loc, target, a);
  warn_remote(run, loc);
  remark_search_limits(run, loc, name, &a->result.stats);
  return true;
}

// " (the same μGraph as ...)" or " (from the cache...)", or "".
static void describe_origin(const Answer *a, char *origin, size_t size) {
  origin[0] = '\0';
  if (a->same_as)
    snprintf(origin, size, " (the same μGraph as '@%s')", a->same_as);
  else if (a->from_rank)
    snprintf(origin, size, " (from MPI rank %d, verified here%s)",
             a->from_rank,
             a->cached_stopped ? ", of a search stopped by its time budget, "
                                 "memory bound or max-states"
                               : "");
  else if (a->from_cache)
    snprintf(origin, size, " (from the %scache%s%s%s)",
             a->cache_shared ? "shared " : "",
             a->waited_s > 0 ? ", after waiting for another process's search"
                             : "",
             a->cache_verified ? ", verified again" : "",
             a->cached_stopped ? ", of a search stopped by its time budget, "
                                 "memory bound or max-states"
                               : "");
}

// Remarks on the decision for one function and what decided it.
static void remark_decision(const Run *run, const Subject *subj,
                            const Answer *a, const MgSearchCost *before,
                            const MgSearchCost *after, bool better) {
  MlirLocation loc = subj->loc;
  const char *name = subj->name;
  const MgProgram *target = subj->target;
  char origin[300];
  describe_origin(a, origin, sizeof origin);
  const char *why = a->result.stats.timed_out
                        ? " (stopped by the time budget)"
                        : a->result.stats.memory_limited
                              ? " (stopped by the memory bound)"
                        : a->result.stats.states_limited
                              ? " (stopped by max-states)"
                              : "";
  // What decided: the model of the emitted code (time_s), or the
  // proxy's DRAM bytes. The roofline, the idealised bound, is shown
  // beside it (docs/cost.md).
  char reason[192];
  if (run->options.rank == MG_SEARCH_RANK_COST) {
    const MgGpu *gpu = mg_cost_gpu(run->options.target);
    // A program with symbols: the sum over the sizes the remarks after
    // this one list, and the roofline at the sizes it has now.
    snprintf(reason, sizeof reason,
             "estimated %.1f us -> %.1f us%s, roofline %.1f us -> %.1f us "
             "on %s", 1e6 * before->time_s, 1e6 * after->time_s,
             mg_program_syms(target) ? " (summed over the sizes below)" : "",
             1e6 * mg_cost_program(target, gpu),
             1e6 * mg_cost_program(a->best ? a->best : target, gpu),
             run->options.target->name);
  } else {
    snprintf(reason, sizeof reason, "DRAM bytes %llu -> %llu",
             (unsigned long long)before->dram_bytes,
             (unsigned long long)after->dram_bytes);
  }
  if (better)
    mg_pass_remark(loc,
                   "mirage-search: '@%s' replaced by a verified μGraph: %u "
                   "kernel(s) -> %u, %s%s%s",
                   name, before->kernels, after->kernels, reason, origin,
                   why);
  else
    mg_pass_remark(loc, "mirage-search: '@%s' kept: no cheaper verified "
                        "μGraph found%s%s",
                   name, origin, why);
}

// The explanation's ptxas lines for one function (rank-ptxas).
typedef struct ExplainPtx {
  const Run *run;
  const Subject *subj;
  const Answer *a;
} ExplainPtx;

static void explain_ptx(void *ud) {
  const ExplainPtx *h = ud;
  if (h->a->ranking.n)
    mg_ptx_rank_explain(&h->a->ranking, &h->a->result, h->run->options.target,
                        h->subj->loc, h->subj->name);
  else if (h->run->ptx.on && !h->a->same_as)
    mg_pass_remark(h->subj->loc, "mirage-explain: '@%s' ptxas: nothing "
                   "verified to compile", h->subj->name);
}

// Replaces func by the answer when it is cheaper, then draws, remarks on
// and explains the decision.
static bool apply_answer(Run *run, MlirOperation module,
                         MlirSymbolTable symbols, const Subject *subj,
                         const MgSearchCost *before, const Answer *a) {
  MlirLocation loc = subj->loc;
  const char *name = subj->name;
  const MgProgram *target = subj->target;
  MgSearchCost after = a->best ? mg_symbolic_cost(a->best, &run->options)
                               : *before;
  bool better = a->best && mg_search_cost_compare(&after, before) < 0;
  if (better && !replace_func(module, symbols, subj->func, name, a->best)) {
    mg_pass_error(loc, "mirage-search: could not write the μGraph for '@%s'",
                  name);
    return false;
  }
  if (!dump_chosen(run, subj, better ? a->best : target,
                   better ? "chosen (verified, cheaper)"
                          : "kept (no cheaper verified μGraph)",
                   better ? &after : before, better ? before : NULL))
    return false;
  if (run->remarks)
    remark_decision(run, subj, a, before, &after, better);
  if ((run->remarks || run->explaining) && mg_program_syms(target))
    mg_symbolic_remark_sizes(loc, name, target, a->best, &run->options);
  if (run->explaining) {
    ExplainPtx hook = {run, subj, a};
    mg_explain_pass_function(
        &run->explain, &(MgExplainFunction){loc, name, target,
                                            better ? a->best : NULL,
                                            &a->result, a->same_as,
                                            explain_ptx, &hook,
                                            a->ranking.n
                                                ? "the cheapest verified "
                                                  "candidate by its ptxas "
                                                  "facts"
                                                : NULL});
  }
  return true;
}

// A program with symbols (search_symbolic.c): searched at one row, and at
// one tile of MG_SYMBOLIC_TILE_ROWS rows unless the one-row answer already
// wins at the largest cost size; one that reduces over its symbol, once
// at MG_SEARCH_SYMBOLIC_LOOP_AT, where blocks loop over the rows. a->best
// is the generalized answer with the best aggregate (NULL: none),
// a->result the first search's.
static bool answer_symbolic(Run *run, MlirLocation loc, const char *name,
                            const MgProgram *full, Answer *a) {
  static const int64_t rows[] = {1, MG_SYMBOLIC_TILE_ROWS};
  static const int64_t lengths[] = {MG_SEARCH_SYMBOLIC_LOOP_AT};
  bool reduces = mg_search_symbolic_reduces(full);
  const int64_t *ats = reduces ? lengths : rows;
  uint32_t num_ats = reduces ? 1 : 2;
  MgProgram *best = NULL;
  MgSearchCost best_cost = {0};
  for (uint32_t i = 0; i < num_ats; i++) {
    MgProgram *target = mg_search_symbolic_at(full, ats[i]);
    Answer t;
    memset(&t, 0, sizeof t);
    if (!target ||
        !answer_by_search(run, loc, name, target, full, ats[i], &t)) {
      mg_program_destroy(target);
      mg_search_result_free(&t.result);
      mg_program_destroy(t.best);
      mg_program_destroy(best);
      return false;
    }
    // Its verified programs, best first.
    const MgProgram *found[16];
    uint32_t n = 0;
    if (t.best)
      found[n++] = t.best;
    for (uint32_t k = 0; k < t.result.num_found && n < 16; k++)
      if (t.result.found[k].program &&
          !mg_program_equal(t.result.found[k].program, t.best))
        found[n++] = t.result.found[k].program;
    char why[400];
    MgProgram *general =
        mg_symbolic_answer(full, &(MgSymbolicFound){found, n, ats[i]},
                           &run->options, why, sizeof why);
    if (!general && why[0] && run->remarks)
      mg_pass_remark(loc, "mirage-search: '@%s' at %lld row(s) a block: %s",
                     name, (long long)ats[i], why);
    MgSearchCost c = general ? mg_symbolic_cost(general, &run->options)
                             : best_cost;
    if (general && (!best || mg_search_cost_compare(&c, &best_cost) < 0)) {
      mg_program_destroy(best);
      best = general;
      best_cost = c;
    } else {
      mg_program_destroy(general);
    }
    if (i == 0)
      a->result = t.result; // the one-row search's, for the remarks
    else
      mg_search_result_free(&t.result);
    mg_program_destroy(t.best);
    mg_program_destroy(target);
    if (i == 0 && best && mg_symbolic_wins_at_largest(full, best,
                                                      &run->options))
      break;
  }
  a->best = best;
  return true;
}

// answer_symbolic behind the caches, keyed by the program with its symbols
// (the lift writes every `?` at one stand-in size, so the key is the shape
// class's: one entry serves every size); an entry is the generalized
// program, checked by cache.c for every size.
static bool answer_symbolic_cached(Run *run, MlirOperation module,
                                   MlirLocation loc, const char *name,
                                   const MgProgram *full, Answer *a) {
  if (run->use_cache && !run->explaining) {
    answer_from_cache(run, module, loc, name, full, a);
    if (a->best || a->kept)
      return true;
  }
  if (!answer_symbolic(run, loc, name, full, a))
    return false;
  const MgSearchStats *st = &a->result.stats;
  bool stopped = st->timed_out || st->memory_limited || st->states_limited;
  MgDiag diag = MG_DIAG_INIT;
  MgStatus put = MG_STATUS_OK;
  MgSearchFound found;
  memset(&found, 0, sizeof found);
  found.program = a->best;
  if (run->use_cache && !run->explaining)
    put = a->best ? mg_cache_put(&run->store, full, &run->options, &found,
                                 stopped, &diag)
                  : mg_cache_put_kept(&run->store, full, &run->options,
                                      stopped, &diag);
  if (put != MG_STATUS_OK && run->remarks)
    mg_pass_remark(loc, "mirage-search: result not cached: %s", diag.message);
  return true;
}

// The answer for a subprogram not seen before in this run, as a plain
// run finds it: the caches, then the fleet's search, then the search.
static bool answer_fresh(Run *run, MlirOperation module, const Subject *subj,
                         Answer *a) {
  if (run->use_cache && !run->explaining) {
    answer_from_cache(run, module, subj->loc, subj->name, subj->target, a);
    if (!a->best && !a->kept)
      wait_for_fleet(run, module, subj->loc, subj->name, subj->target, a);
  }
  bool ok = true;
  if (!a->best && !a->kept)
    ok = answer_by_search(run, subj->loc, subj->name, subj->target, NULL, 0,
                          a);
  if (a->lock_held) // the result is in the cache now (or nothing is)
    mg_remote_cache_unlock(run->store.remote, a->lock_key, a->lock_token);
  a->lock_held = false;
  return ok;
}

// Rank 0: item j's answer from its owner, read like a shared server's
// entries (verified whatever they claim). False, with one warning, when
// there is none to use: rank 0 then searches it itself.
static bool answer_from_rank(Run *run, MlirOperation module,
                             const Subject *subj, uint32_t j, Answer *a) {
  MgMpiPlan *plan = run->mpi;
  int owner = plan->items[j].owner;
  char why[1024];
  bool first_late = false;
  mg_cache_memo_clear(&run->inbox);
  MgMpiWait w = mg_search_mpi_wait(plan, j, &run->inbox, &first_late, why,
                                   sizeof why);
  if (w == MG_MPI_LATE) {
    if (first_late)
      mg_pass_warning(subj->loc, "mirage-search: %s; what it was given is "
                                 "searched on rank 0", why);
    return false;
  }
  if (w == MG_MPI_FAILED) {
    mg_pass_warning(subj->loc, "mirage-search: '@%s' is searched on rank "
                               "0: %s", subj->name, why);
    return false;
  }
  const MgCacheStore in = {.dir = run->use_cache ? run->cache_dir : NULL,
                           .salt = run->store.salt, .handed = &run->inbox};
  MgCacheFetched got = {MG_CACHE_MISS, false, false, false, false};
  MgDiag diag = MG_DIAG_INIT;
  a->best = mg_cache_fetch(mlirOperationGetContext(module),
                           &(MgCacheQuery){&in, subj->target, &run->options,
                                           !run->cache_verify},
                           &got, &diag);
  if (got.outcome != MG_CACHE_HIT && got.outcome != MG_CACHE_KEPT) {
    mg_pass_warning(subj->loc, "mirage-search: rank %d's answer for '@%s' "
                               "is not used, searched on rank 0: %s",
                    owner, subj->name,
                    got.outcome == MG_CACHE_MISS ? "it holds no entry for it"
                                                 : diag.message);
    return false;
  }
  a->kept = got.outcome == MG_CACHE_KEPT;
  a->from_rank = got.handed ? owner : 0;
  a->from_cache = !got.handed; // rank 0's own disk had it
  a->cached_stopped = got.stopped;
  a->cache_verified = a->best && got.verified;
  plan->used[owner]++;
  return true;
}

// The answer for a subprogram not seen before: under mpirun, rank 0's own
// (found beforehand) or its owner's; else, or when that fails, found here.
static bool answer_planned(Run *run, MlirOperation module,
                           const Subject *subj, uint64_t hash, Answer *a) {
  int j = run->mpi ? mg_search_mpi_find(run->mpi, subj->target, hash) : -1;
  if (j < 0)
    return answer_fresh(run, module, subj, a);
  int owner = run->mpi->items[j].owner;
  Owned *own = &run->own[j];
  if (owner == 0 && own->ready) {
    *a = own->answer;
    own->ready = false;
    return own->ok;
  }
  if (owner != 0 && answer_from_rank(run, module, subj, (uint32_t)j, a))
    return true;
  run->mpi->redone[owner]++;
  mg_program_destroy(a->best);
  memset(a, 0, sizeof *a);
  return answer_fresh(run, module, subj, a);
}

static Subject item_subject(const MgMpiItem *it) {
  return (Subject){{NULL}, it->loc, it->name, it->subject};
}

// A rank other than 0: answers its items, each as a plain run would, and
// sends rank 0 the cache entries of the answer. With cache=false the
// entries are made for rank 0 alone.
static void work_as_rank(Run *run, MlirOperation module) {
  const MgMpiPlan *plan = run->mpi;
  run->store.record = &run->outbox;
  if (!run->use_cache)
    run->store.dir = NULL;
  uint32_t nth = 0;
  for (uint32_t j = 0; j < plan->count; j++) {
    if (plan->items[j].owner != plan->rank)
      continue;
    mg_search_mpi_test_kill(plan, ++nth);
    mg_cache_memo_clear(&run->outbox);
    Answer a;
    memset(&a, 0, sizeof a);
    Subject subj = item_subject(&plan->items[j]);
    bool ok = answer_fresh(run, module, &subj, &a);
    mg_search_mpi_send(plan, j, &run->outbox,
                       a.from_cache ? MG_MPI_CACHED : MG_MPI_SEARCHED,
                       ok ? NULL : a.error[0] ? a.error : "its search failed");
    mg_search_result_free(&a.result);
    mg_program_destroy(a.best);
  }
  mg_search_mpi_flush();
}

// Rank 0: its own items, first, while the other ranks work on theirs.
static bool search_own(Run *run, MlirOperation module) {
  const MgMpiPlan *plan = run->mpi;
  if (!(run->own = calloc(plan->count ? plan->count : 1, sizeof *run->own)))
    return false;
  for (uint32_t j = 0; j < plan->count; j++) {
    if (plan->items[j].owner != 0)
      continue;
    Subject subj = item_subject(&plan->items[j]);
    run->own[j].ok = answer_fresh(run, module, &subj, &run->own[j].answer);
    run->own[j].ready = true;
  }
  return true;
}

static void free_own(Run *run) {
  for (uint32_t j = 0; run->own && j < run->mpi->count; j++)
    if (run->own[j].ready) {
      mg_search_result_free(&run->own[j].answer.result);
      mg_program_destroy(run->own[j].answer.best);
    }
  free(run->own);
}

// Rank 0: what each rank did.
static void remark_ranks(const Run *run, MlirLocation loc) {
  const MgMpiPlan *p = run->mpi;
  MgText t = {NULL, 0, 0, false};
  mg_text_printf(&t, "mirage-search: MPI: %d rank(s), %u distinct "
                     "subprogram(s): rank 0 answered its %u", p->size,
                 p->count, p->given[0]);
  for (int r = 1; r < p->size; r++)
    mg_text_printf(&t, "; rank %d was given %u: %u searched, %u from its "
                       "caches, %u used here after verification, %u "
                       "searched again on rank 0", r, p->given[r],
                   p->searched[r], p->cached[r], p->used[r], p->redone[r]);
  if (!t.failed)
    mg_pass_remark(loc, "%s", t.data);
  mg_text_free(&t);
}

// How long rank 0 waits for a silent rank (mpi-timeout-s).
static double mpi_timeout(const MgOptionValue *values, double budget) {
  double t = values[SEARCH_OPT_MPI_TIMEOUT].f;
  return t > 0 ? t : budget > 0 ? 2 * budget + 60 : 600;
}

// Under mpirun: starts MPI and plans who searches what. False after an
// error; `run->mpi` stays NULL when the search is not spread (a plain run, one
// rank, --mirage-explain, no MPI in the build).
static bool plan_ranks(Run *run, MlirOperation module,
                       const MgOptionValue *values, MgMpiPlan *plan) {
  int rank, size;
  char why[256];
  mg_mpi_launch(&rank, &size);
  if (size < 2)
    return true;
  MlirLocation loc = mlirOperationGetLocation(module);
  int launched = size;
  if (!mg_mpi_start(&rank, &size, why, sizeof why)) {
    mg_pass_warning(loc, "mirage-search: launched as %d MPI ranks, but %s: "
                         "rank 0 searches the whole module", launched, why);
    return true;
  }
  run->worker = rank > 0;
  if (run->explaining) // the explanation needs every search's candidates
    return true;
  if (!mg_search_mpi_plan(plan, module, rank, size,
                          mpi_timeout(values, run->options.time_budget_s)))
    return false;
  run->mpi = plan;
  return true;
}

static bool search_one(MlirOperation module, MlirSymbolTable symbols,
                       MlirOperation func, void *ud) {
  Run *run = ud;
  MlirLocation loc = mlirOperationGetLocation(func);
  MgBridgeMap map;
  MgProgram *target = mg_pass_import_checked(symbols, func, NULL, &map);
  if (!target)
    return false;
  char name[256];
  snprintf(name, sizeof name, "%s", map.graph_names[0]);
  mg_bridge_map_free(&map);
  const Subject subj = {func, loc, name, target};
  if (mg_pass_has_custom_ops(target)) {
    if (run->remarks)
      mg_pass_remark(loc, "mirage-search: '@%s' already has graph-defined "
                          "kernels; not searched", name);
    bool drawn = dump_chosen(run, &subj, target,
                             "not searched (already has graph-defined "
                             "kernels)", NULL, NULL);
    mg_program_destroy(target);
    return drawn;
  }
  // With symbols: searched at one row (and a tile of rows), the answer
  // generalized (search_symbolic.c), keyed in the caches by the program
  // itself; the run's memo holds one-row answers, so it is not used.
  bool symbolic = mg_program_syms(target) != 0;
  MgSearchCost before = mg_symbolic_cost(target, &run->options);
  Answer a;
  memset(&a, 0, sizeof a);
  bool ok = true;
  if (symbolic) {
    ok = answer_symbolic_cached(run, module, loc, name, target, &a);
  } else {
    uint64_t hash = mg_program_hash(target);
    const Seen *seen = find_seen(run, target, hash);
    if (seen)
      answer_from_seen(run, seen, &a);
    else
      ok = answer_planned(run, module, &subj, hash, &a);
    if (ok && !seen)
      remember(run, target, hash, a.best, name, &a.result.stats);
  }
  if (ok)
    ok = apply_answer(run, module, symbols, &subj, &before, &a);
  mg_search_result_free(&a.result);
  mg_ptx_ranking_free(&a.ranking);
  mg_program_destroy(a.best);
  mg_program_destroy(target);
  ++run->done;
  module_progress(run);
  return ok;
}

// mg_cache_open's warnings, at the module.
static void warn_at(void *ud, const char *message) {
  mg_pass_warning(*(const MlirLocation *)ud, "mirage-search: %s", message);
}

// The shared cache of cache-url (or $MIRAGE_CACHE_URL): a server that
// cannot be reached is a warning, and the run goes on without it.
static void open_remote(Run *run, const MgOptionValue *values,
                        MlirLocation loc) {
  const char *url = values[SEARCH_OPT_CACHE_URL].s;
  if (!url[0])
    url = getenv("MIRAGE_CACHE_URL");
  if (!url || !url[0])
    return;
  char why[512];
  run->store.ttl_s = (unsigned)values[SEARCH_OPT_CACHE_TTL].i;
  run->wait_s = values[SEARCH_OPT_CACHE_WAIT].f;
  run->store.remote = mg_remote_cache_open(
      url, values[SEARCH_OPT_CACHE_TIMEOUT].f, why, sizeof why);
  if (!run->store.remote) {
    run->remote_warned = true;
    mg_pass_warning(loc, "mirage-search: no shared cache for this run: %s",
                    why);
  }
}

// rank-ptxas: a ptxas asked for and unusable is a warning, and the run
// ranks by the model alone (as with none). When on, the search verifies up
// to rank-ptxas-top candidates per size, and the cache key says so.
static void setup_ptx_rank(Run *run, const MgOptionValue *values,
                           MlirOperation module) {
  char why[512];
  uint32_t top = (uint32_t)values[SEARCH_OPT_RANK_PTXAS_TOP].i;
  run->ctx = mlirOperationGetContext(module);
  if (!mg_ptx_rank_setup(&run->ptx, values[SEARCH_OPT_RANK_PTXAS].s, top,
                         why, sizeof why)) {
    if (why[0])
      mg_pass_warning(mlirOperationGetLocation(module),
                      "mirage-search: rank-ptxas: %s; ranked by the cost "
                      "model alone", why);
    return;
  }
  if (run->options.max_verified < top)
    run->options.max_verified = top;
  snprintf(run->salt, sizeof run->salt, "rank-ptxas top=%u ptxas=%s", top,
           run->ptx.version);
  run->store.salt = run->salt;
}

bool mg_search_pass_run_on(MlirOperation module, const MgOptionValue *values) {
  Run run;
  memset(&run, 0, sizeof run);
  run.options = options_of(values); // checked by mg_search_pass_check
  run.cache_verify = values[SEARCH_OPT_CACHE_VERIFY].b;
  // Ranks other than 0 of an mpirun launch print nothing of their own.
  bool quiet = mg_mpi_is_worker();
  run.remarks = !quiet && mg_pass_remarks_enabled(values[SEARCH_OPT_REMARKS].b);
  run.stats = !quiet &&
              mg_pass_env_flag("MIRAGE_STATS", values[SEARCH_OPT_STATS].b);
  run.progress = !quiet && mg_pass_env_flag("MIRAGE_PROGRESS",
                                            values[SEARCH_OPT_PROGRESS].b);
  run.dump_dir = quiet ? "" : mg_dump_dot_dir(values[SEARCH_OPT_DUMP_DOT].s);
  run.use_cache = values[SEARCH_OPT_CACHE].b &&
                  mg_cache_dir(values[SEARCH_OPT_CACHE_DIR].s, run.cache_dir,
                               sizeof run.cache_dir);
  MlirLocation module_loc = mlirOperationGetLocation(module);
  run.store.dir = run.cache_dir;
  if (run.use_cache) {
    mg_cache_open(run.cache_dir, warn_at, &module_loc);
    open_remote(&run, values, module_loc);
  }
  setup_ptx_rank(&run, values, module);
  run.explaining = mg_explain_pass_begin(&run.explain, values, &run.options);
  if (run.explaining)
    run.options.explain_top = (uint32_t)values[SEARCH_OPT_EXPLAIN_TOP].i;
  run.total = mg_pass_count_kernel_funcs(module);
  run.start_s = mg_clock_now();
  MgMpiPlan plan;
  memset(&plan, 0, sizeof plan);
  bool ok = plan_ranks(&run, module, values, &plan);
  if (ok && run.worker) {
    // Rank 0 alone changes its module and writes output and remarks.
    if (run.mpi)
      work_as_rank(&run, module);
  } else if (ok) {
    if (run.mpi)
      ok = search_own(&run, module);
    ok = ok && mg_pass_for_each_kernel_func(module, search_one, &run);
    if (run.mpi && run.remarks)
      remark_ranks(&run, module_loc);
  }
  if (run.mpi)
    free_own(&run);
  mg_search_mpi_free(&plan);
  mg_cache_memo_free(&run.inbox);
  mg_cache_memo_free(&run.outbox);
  forget_all(&run);
  mg_remote_cache_close(run.store.remote);
  if (run.explaining && !run.worker)
    ok &= mg_explain_pass_end(&run.explain, mlirOperationGetLocation(module));
  return ok;
}

static void run(MlirOperation module, MlirExternalPass pass,
                const MgOptionValue *values) {
  if (!mg_search_pass_run_on(module, values))
    mlirExternalPassSignalFailure(pass);
}

const MgPassDef mg_pass_search = {
    "mirage-search",
    "Search each kernel graph for a cheaper verified μGraph (lib/search)",
    mg_search_pass_options, sizeof mg_search_pass_options /
                                sizeof mg_search_pass_options[0],
    mg_search_pass_check, run, NULL};

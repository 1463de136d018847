//===- search_pass.h - The search pass, reusable by mirage-superopt ------===//
#ifndef MIRAGE_PASSES_SEARCH_PASS_H
#define MIRAGE_PASSES_SEARCH_PASS_H

#include "pass.h"

/// Options of mirage-search; mirage-superopt starts its table with the same
/// entries, so the values array can be handed to mg_search_pass_run_on.
enum {
  SEARCH_OPT_MAX_KERNEL_OPS,
  SEARCH_OPT_MAX_BLOCK_OPS,
  SEARCH_OPT_MAX_CUSTOM_KERNELS,
  SEARCH_OPT_TIME_BUDGET,
  SEARCH_OPT_MAX_STATES,
  SEARCH_OPT_THREADS,
  SEARCH_OPT_TARGET,
  SEARCH_OPT_CACHE_DIR,
  SEARCH_OPT_CACHE,
  SEARCH_OPT_CACHE_VERIFY,
  SEARCH_OPT_CACHE_URL,
  SEARCH_OPT_CACHE_TTL,
  SEARCH_OPT_CACHE_TIMEOUT,
  SEARCH_OPT_CACHE_WAIT,
  SEARCH_OPT_ABSEXPR,
  SEARCH_OPT_SEED,
  SEARCH_OPT_ERROR_BITS,
  SEARCH_OPT_RANK,
  SEARCH_OPT_CUTS,
  SEARCH_OPT_PROGRESS,
  SEARCH_OPT_STATS,
  SEARCH_OPT_REMARKS,
  SEARCH_OPT_EXPLAIN,
  SEARCH_OPT_EXPLAIN_TOP,
  SEARCH_OPT_EXPLAIN_FILE,
  SEARCH_OPT_DUMP_DOT,
  SEARCH_OPT_RANK_PTXAS,
  SEARCH_OPT_RANK_PTXAS_TOP,
  SEARCH_OPT_MPI_TIMEOUT,
  SEARCH_OPT_COUNT
};

#define MG_SEARCH_OPTION_SPECS \
    {"max-kernel-ops", MG_OPTION_INT, "4", "most ops in a candidate kernel graph", \
     1, 12}, \
    {"max-block-ops", MG_OPTION_INT, "9", "most ops in one block graph", 1, 32}, \
    {"max-custom-kernels", MG_OPTION_INT, "4", \
     "most graph-defined kernels per kernel graph", 0, 12}, \
    {"time-budget-s", MG_OPTION_FLOAT, "30", \
     "search time budget per kernel graph, seconds (0: none; at most " \
     "86400)", 0, 0}, \
    {"max-states", MG_OPTION_INT, "0", \
     "stop enumerating after this many search states per kernel graph, " \
     "then test what was found (0: no bound); a bound on work, not time: " \
     "with threads=1 the same result on any machine at any load", \
     0, (int64_t)1 << 40}, \
    {"threads", MG_OPTION_INT, "0", "search threads (0: one per core)", 0, 256}, \
    {"target", MG_OPTION_STRING, "sm_90", \
     "GPU target (sm_80, sm_86, sm_89, sm_90)", 0, 0}, \
    {"cache-dir", MG_OPTION_STRING, "", \
     "result cache (default $XDG_CACHE_HOME/mirage)", 0, 0}, \
    {"cache", MG_OPTION_BOOL, "true", "read and write the result cache", 0, 0}, \
    {"cache-verify", MG_OPTION_BOOL, "false", \
     "re-verify every cache hit, also those signed with this user's cache " \
     "key", 0, 0}, \
    {"cache-url", MG_OPTION_STRING, "", \
     "shared cache in Redis, redis://HOST[:PORT][/DB], read after cache-dir " \
     "and written with it; its entries are always verified (default " \
     "$MIRAGE_CACHE_URL; none)", 0, 0}, \
    {"cache-ttl-s", MG_OPTION_INT, "0", \
     "seconds the shared cache keeps an entry (0: no expiry)", 0, \
     (int64_t)1 << 31}, \
    {"cache-timeout-s", MG_OPTION_FLOAT, "2", \
     "bound on connecting to the shared cache and on each of its replies; " \
     "past it the run goes on without it, with a warning", 0, 0}, \
    {"cache-wait-s", MG_OPTION_FLOAT, "0", \
     "with cache-url: how long to wait for another process already " \
     "searching the same kernel graph before searching it here (0: the " \
     "time budget, or 600 s without one)", 0, 0}, \
    {"absexpr", MG_OPTION_BOOL, "true", \
     "prune by abstract expressions (false: ablation)", 0, 0}, \
    {"seed", MG_OPTION_INT, "1", "seed of the verification tests", 0, \
     INT64_MAX}, \
    {"error-bits", MG_OPTION_INT, "40", \
     "verify candidates to a false-acceptance bound of 2^-N", 1, 200}, \
    {"rank", MG_OPTION_STRING, "cost", \
     "rank verified candidates by 'cost' (the cost model's estimated time) " \
     "or 'proxy' (fewest kernels, then DRAM bytes)", 0, 0}, \
    {"cuts", MG_OPTION_BOOL, "true", \
     "also search the kernel graph cut at its prologues, part by part", 0, 0}, \
    {"progress", MG_OPTION_BOOL, "false", \
     "live progress on stderr (also MIRAGE_PROGRESS=1)", 0, 0}, \
    {"stats", MG_OPTION_BOOL, "false", \
     "final counts per pruning rule on stderr (also MIRAGE_STATS=1)", 0, 0}, \
    {"remarks", MG_OPTION_BOOL, "false", \
     "explain per function what was done (also MIRAGE_REMARKS=1)", 0, 0}, \
    {"explain", MG_OPTION_BOOL, "false", \
     "remarks per kernel graph: the best candidates with the cost model's " \
     "breakdown, the choice and why, the verifier's bound, the pruning " \
     "counts (also --mirage-explain; the cache is not read)", 0, 0}, \
    {"explain-top", MG_OPTION_INT, "5", \
     "candidates the explanation lists per kernel graph", 1, 256}, \
    {"explain-file", MG_OPTION_STRING, "", \
     "also write the explanation as JSON to this file (also " \
     "--mirage-explain=FILE)", 0, 0}, \
    {"dump-dot", MG_OPTION_STRING, "", \
     "write each function's chosen μGraph as Graphviz DIR/<function>.dot " \
     "(also --mirage-dump-dot=DIR)", 0, 0}, \
    {"rank-ptxas", MG_OPTION_STRING, "none", \
     "re-rank the best verified candidates by the facts ptxas gives of " \
     "their kernels (registers, shared memory, cp.async depth): none, auto " \
     "(the CUDA toolkit's ptxas, else PATH's) or the path of a ptxas", 0, 0}, \
    {"rank-ptxas-top", MG_OPTION_INT, "3", \
     "with rank-ptxas: verified candidates compiled and re-ranked per " \
     "kernel graph (the search verifies up to this many per size)", 1, 16}, \
    {"mpi-timeout-s", MG_OPTION_FLOAT, "0", \
     "under mpirun: how long rank 0 waits for a rank that has sent " \
     "nothing before searching its subprograms itself (0: twice the time " \
     "budget + 60 s, or 600 s without one)", 0, 0}

extern const MgOptionSpec mg_search_pass_options[];
extern const MgPassDef mg_pass_search;

/// Option check shared with mirage-superopt.
bool mg_search_pass_check(const MgOptionValue *values, char *error,
                          size_t size);
/// Runs the search on every kernel graph of `module` with parsed options
/// (`mg_search_pass_options`); false after reporting an error.
bool mg_search_pass_run_on(MlirOperation module, const MgOptionValue *values);

#endif // MIRAGE_PASSES_SEARCH_PASS_H

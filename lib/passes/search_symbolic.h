//===- search_symbolic.h - The search pass on programs with symbols -------===//
#ifndef MIRAGE_PASSES_SEARCH_SYMBOLIC_H
#define MIRAGE_PASSES_SEARCH_SYMBOLIC_H

#include "pass.h"

#include "mirage/search.h"

/// Verified programs the one-row search keeps per kernel-graph size: the
/// cheapest may hold at one row only (a row's value broadcast into a
/// weight), so a few others get their chance to generalize.
#define MG_SYMBOLIC_MAX_VERIFIED 8

/// The rows one block takes in the second search of a program with
/// symbols: a tile of tokens for tensor-core matmuls (four m16 fragments).
#define MG_SYMBOLIC_TILE_ROWS 64

/// The sizes a program with symbols is costed at, every symbol at each:
/// tokens or rows from decode to long prefill, or, for a program that
/// reduces over its symbol, KV-cache lengths.
#define MG_SYMBOLIC_NUM_COST_SIZES 4
extern const int64_t mg_symbolic_cost_sizes[MG_SYMBOLIC_NUM_COST_SIZES];
extern const int64_t mg_symbolic_cost_lengths[MG_SYMBOLIC_NUM_COST_SIZES];
/// mg_symbolic_cost_lengths for a program that reduces over a symbol (or
/// loops over one), else mg_symbolic_cost_sizes.
const int64_t *mg_symbolic_sizes_of(const MgProgram *p);

/// The ranking key of `p` under `o`: mg_search_cost for a static program;
/// with symbols, the sum over mg_symbolic_cost_sizes of the estimate (and
/// DRAM bytes) at each size, the stated aggregate (docs/search.md).
MgSearchCost mg_symbolic_cost(const MgProgram *p, const MgSearchOptions *o);

/// The programs the search verified for a program at `at` rows, best
/// first.
typedef struct MgSymbolicFound {
  const MgProgram *const *programs;
  uint32_t n;
  int64_t at;
} MgSymbolicFound;

/// The first of `found` that generalizes to every size of `full`'s symbols
/// and passes the field tests against `full` at several sizes; NULL when
/// none does, with the first one's reason in `why` (empty when there was
/// nothing to generalize).
MgProgram *mg_symbolic_answer(const MgProgram *full,
                              const MgSymbolicFound *found,
                              const MgSearchOptions *o, char *why,
                              size_t why_size);

/// True when `candidate` is estimated no slower than `full` at the largest
/// of mg_symbolic_cost_sizes.
bool mg_symbolic_wins_at_largest(const MgProgram *full,
                                 const MgProgram *candidate,
                                 const MgSearchOptions *o);

/// A remark per cost size at `loc`: the original's estimate at that size,
/// the generalized candidate's (`chosen`, when there is one, taken or
/// not), and the program's bound (its inputs and outputs once through
/// DRAM).
void mg_symbolic_remark_sizes(MlirLocation loc, const char *name,
                              const MgProgram *original,
                              const MgProgram *chosen,
                              const MgSearchOptions *o);

#endif

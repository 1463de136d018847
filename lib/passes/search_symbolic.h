//===- search_symbolic.h - The search pass on programs with symbols -------===//
#ifndef MIRAGE_PASSES_SEARCH_SYMBOLIC_H
#define MIRAGE_PASSES_SEARCH_SYMBOLIC_H

#include "pass.h"

#include "mirage/search.h"

/// The sizes a program with symbols is costed at, every symbol at each
/// (tokens, rows, cache lengths from decode to long prefill).
#define MG_SYMBOLIC_NUM_COST_SIZES 4
extern const int64_t mg_symbolic_cost_sizes[MG_SYMBOLIC_NUM_COST_SIZES];

/// The ranking key of `p` under `o`: mg_search_cost for a static program;
/// with symbols, the sum over mg_symbolic_cost_sizes of the estimate (and
/// DRAM bytes) at each size, the stated aggregate (docs/search.md).
MgSearchCost mg_symbolic_cost(const MgProgram *p, const MgSearchOptions *o);

/// What the search found for the one-row program (`one_best`, may be
/// NULL) made a program for every size of `full`'s symbols and verified
/// against `full` at several sizes; NULL when there is none, with the
/// reason in `why` (empty when nothing was found to generalize).
MgProgram *mg_symbolic_answer(const MgProgram *full, const MgProgram *one_best,
                              const MgSearchOptions *o, char *why,
                              size_t why_size);

/// A remark per cost size at `loc`: the original's estimate at that size,
/// the generalized candidate's (`chosen`, when there is one, taken or
/// not), and the program's bound (its inputs and outputs once through
/// DRAM).
void mg_symbolic_remark_sizes(MlirLocation loc, const char *name,
                              const MgProgram *original,
                              const MgProgram *chosen,
                              const MgSearchOptions *o);

#endif

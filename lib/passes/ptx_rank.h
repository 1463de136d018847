//===- ptx_rank.h - Ranking verified candidates by what ptxas made -------===//
//
// After the search, the first `top` verified programs (the model's order)
// are lowered to PTX (lib/lower, then the upstream NVVM passes), assembled
// with `ptxas -v`, and re-estimated with the facts of their kernels
// (registers, static shared memory, cp.async depth: mg_cost_emitted_
// program_facts). The cheapest by that estimate becomes the result's best;
// a candidate whose facts could not be had keeps the model's estimate.
// docs/cost.md, "Facts from ptxas".
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_PASSES_PTX_RANK_H
#define MIRAGE_PASSES_PTX_RANK_H

#include "pass.h"

#include "mirage/cost.h"
#include "mirage/search.h"

/// The ranking's settings for a run.
typedef struct MgPtxRank {
  bool on;
  char ptxas[4096];
  char toolkit[4096]; // whose libdevice the PTX links
  char version[256];  // ptxas's build: part of the cache key
  uint32_t top;       // verified programs assembled per kernel graph
} MgPtxRank;

/// Reads `spec` (rank-ptxas: none, auto or a path) and `top`. False, with
/// `why` said when ptxas was asked for by path or auto found one that
/// cannot be used ("" when `spec` is none or auto finds nothing): the run
/// ranks by the model alone.
bool mg_ptx_rank_setup(MgPtxRank *r, const char *spec, uint32_t top,
                       char *why, size_t size);

#define MG_PTX_RANK_MAX 16

/// One assembled candidate.
typedef struct MgPtxRankRow {
  uint32_t found;        // its index in the result's found list
  double model_s;        // the search's estimate
  double facts_s;        // with ptxas's facts (model_s when !ok)
  bool ok;               // the facts were read
  uint32_t num_ops;      // root ops (facts has one entry each)
  MgKernelFacts *facts;  // owned
  char why[320];         // !ok: what failed
} MgPtxRankRow;

typedef struct MgPtxRanking {
  uint32_t n;
  MgPtxRankRow rows[MG_PTX_RANK_MAX];
  uint32_t chosen;       // the row now best
  bool reordered;        // another than the model's first
} MgPtxRanking;

/// Assembles the first r->top programs of `result->found` and sets
/// `result->best` to the cheapest by the facts; `out` says how.
void mg_ptx_rank_apply(const MgPtxRank *r, MlirContext ctx,
                       const MgTarget *target, MgSearchResult *result,
                       MgPtxRanking *out);

/// Warnings for the rows that fell back to the model, at `loc`.
void mg_ptx_rank_warn(const MgPtxRanking *k, MlirLocation loc,
                      const char *name);

/// The explanation's lines: per row the model's estimate, the facts of
/// each kernel and the estimate with them; then the choice.
void mg_ptx_rank_explain(const MgPtxRanking *k, const MgSearchResult *result,
                         const MgTarget *target, MlirLocation loc,
                         const char *name);

/// Frees the rows' facts.
void mg_ptx_ranking_free(MgPtxRanking *k);

#endif // MIRAGE_PASSES_PTX_RANK_H

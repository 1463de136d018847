//===- explain.h - --mirage-explain: why the search chose what it chose --===//
//
// For each kernel graph the search pass handles: the best candidates it
// ranked (options.explain_top) with the cost model's breakdown, what
// became of each, the choice and why, the verifier's bound and the pruning
// counts; as remarks at the function's location, and as one JSON document
// for tools (docs/search.md, "Reading the explanation").
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_PASSES_EXPLAIN_H
#define MIRAGE_PASSES_EXPLAIN_H

#include "pass.h"

#include "mirage/search.h"

/// One run of the search pass's explanation.
typedef struct MgExplainPass {
  bool remarks;                    // print the remarks
  char path[MG_OPTION_STRING_MAX]; // JSON file ("": none)
  const MgSearchOptions *options;  // the search's (target, rank, bound)
  MgText json;                     // the functions' entries so far
  uint32_t functions;
} MgExplainPass;

/// Reads the options (explain, explain-file; MIRAGE_EXPLAIN and
/// MIRAGE_EXPLAIN_FILE, which mirage-opt's --mirage-explain[=FILE] sets).
/// False when nothing is asked for.
bool mg_explain_pass_begin(MgExplainPass *x, const MgOptionValue *values,
                           const MgSearchOptions *options);

/// The decision for one kernel graph: the function (its location and
/// name), `target` the input, `chosen` the program it is replaced by
/// (NULL: kept), `result` the search's (NULL when it did not run:
/// `same_as` names the function whose search answered).
typedef struct MgExplainFunction {
  MlirLocation loc;
  const char *name;
  const MgProgram *target;
  const MgProgram *chosen;
  const MgSearchResult *result;
  const char *same_as;
  void (*more)(void *ud); // NULL, or more lines after the candidates
  void *more_ud;          // (the ptxas facts of rank-ptxas)
  const char *chosen_by;  // NULL: "the cheapest verified candidate"
} MgExplainFunction;

/// Explains one kernel graph's decision.
void mg_explain_pass_function(MgExplainPass *x, const MgExplainFunction *fn);

/// Writes the JSON file when one was asked for and frees `x`; false after
/// reporting an error at `loc`.
bool mg_explain_pass_end(MgExplainPass *x, MlirLocation loc);

#endif // MIRAGE_PASSES_EXPLAIN_H

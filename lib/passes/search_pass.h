//===- search_pass.h - The search pass, reusable by mirage-superopt ------===//
#ifndef MIRAGE_PASSES_SEARCH_PASS_H
#define MIRAGE_PASSES_SEARCH_PASS_H

#include "pass.h"

extern const MgOptionSpec mg_search_pass_options[];
extern const size_t mg_search_pass_num_options;
extern const MgPassDef mg_pass_search;

/// Option check shared with mirage-superopt.
bool mg_search_pass_check(const MgOptionValue *values, char *error,
                          size_t size);
/// Runs the search on every kernel graph of `module` with parsed options
/// (`mg_search_pass_options`); false after reporting an error.
bool mg_search_pass_run_on(MlirOperation module, const MgOptionValue *values);

#endif // MIRAGE_PASSES_SEARCH_PASS_H

//===- options.h - Pass option tables and the `key=value` parser ---------===//
#ifndef MIRAGE_PASSES_OPTIONS_H
#define MIRAGE_PASSES_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MG_MAX_PASS_OPTIONS 48
#define MG_OPTION_STRING_MAX 256

typedef enum MgOptionKind {
  MG_OPTION_INT,
  MG_OPTION_FLOAT,
  MG_OPTION_BOOL,
  MG_OPTION_STRING,
} MgOptionKind;

typedef struct MgOptionSpec {
  const char *name;
  MgOptionKind kind;
  const char *default_value; // parsed like user text
  const char *help;
  int64_t min_int, max_int;  // MG_OPTION_INT range, inclusive
} MgOptionSpec;

typedef struct MgOptionValue {
  bool given; // set by the user (not the default)
  int64_t i;
  double f;
  bool b;
  char s[MG_OPTION_STRING_MAX];
} MgOptionValue;

/// The options of one pass: its name (for messages) and their specs.
typedef struct MgOptionTable {
  const char *pass_name;
  const MgOptionSpec *specs;
  size_t num_specs;
} MgOptionTable;

/// Fills `values` (one per spec of `table`) with defaults, then applies
/// `text` ("k=v k2='v 2'", `len` bytes). Returns false with a message
/// naming the option on unknown names or bad values.
bool mg_options_parse(const MgOptionTable *table, const char *text,
                      size_t len, MgOptionValue *values, char *error,
                      size_t error_size);

#endif // MIRAGE_PASSES_OPTIONS_H

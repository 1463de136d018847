//===- fuzz.h - mirage-fuzz: corpus, mutator, outcome classes --*- C -*-===//
//
// mirage-fuzz mutates the lit inputs and examples and runs each mutant
// through the Mirage passes in a forked child of one set-up process
// (main.c). This header is what its three parts share: the corpus and the
// mutator (corpus.c, mutate.c: deterministic from a seed, no MLIR) and the
// classification of a child's end (classify.c: from its exit status and
// stderr, with the crash's stack attributed to our code or upstream).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_FUZZ_H
#define MIRAGE_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// A growable, NUL-terminated byte buffer.
typedef struct MgFuzzText {
  char *data;
  size_t len, cap;
} MgFuzzText;

/// Appends `n` bytes; false when out of memory.
bool mg_fuzz_text_append(MgFuzzText *t, const char *s, size_t n);
/// Replaces bytes [at, at + n) with `s` (`s_len` bytes); false when out of
/// memory. `s` must not point into `t`.
bool mg_fuzz_text_replace(MgFuzzText *t, size_t at, size_t n, const char *s,
                          size_t s_len);
void mg_fuzz_text_free(MgFuzzText *t);

/// The seeds: every `// -----` chunk of every .mlir file under the given
/// paths, comment lines blanked, in sorted path order (so a seed and an
/// input index name the same mutant on every machine with the same files).
typedef struct MgFuzzCorpus {
  MgFuzzText *seeds;
  char **origins; // "path:line" of each seed's first line
  size_t num_seeds;
  char **op_names; // every `dialect.op` token of the seeds, sorted, unique
  size_t num_op_names;
  size_t num_files;
} MgFuzzCorpus;

/// Loads the corpus from files and folders (searched recursively for
/// *.mlir); false after a message on stderr.
bool mg_fuzz_corpus_load(MgFuzzCorpus *c, char **paths, size_t num_paths);
void mg_fuzz_corpus_free(MgFuzzCorpus *c);

/// splitmix64: the next pseudo-random number of `state`.
uint64_t mg_fuzz_rand(uint64_t *state);
/// A uniform number in [0, n), n > 0.
uint64_t mg_fuzz_below(uint64_t *state, uint64_t n);

/// Applies one random mutation to `t` (byte-level, line-level or
/// structure-aware: shapes, dtypes, integers, axes, op names, operands);
/// writes its name into `what` (size `what_size`). False when out of
/// memory.
bool mg_fuzz_mutate(MgFuzzText *t, uint64_t *rng, const MgFuzzCorpus *corpus,
                    char *what, size_t what_size);

/// How a run ended. ORDER MG_FUZZ_CLASS: mg_fuzz_class_names in classify.c.
typedef enum MgFuzzClass {
  MG_FUZZ_CLASS_CLEAN,      // exit 0
  MG_FUZZ_CLASS_DIAGNOSTIC, // exit 1 with an error diagnostic
  MG_FUZZ_CLASS_CRASH,      // signal, sanitizer report, fatal error
  MG_FUZZ_CLASS_HANG,       // killed at the wall-clock or CPU limit
  MG_FUZZ_CLASS_MEMORY,     // memory limit, allocation failure
  MG_FUZZ_CLASS_COUNT
} MgFuzzClass;

/// Whose code a crash, hang or memory event is in. ORDER MG_FUZZ_BLAME:
/// mg_fuzz_blame_names in classify.c.
typedef enum MgFuzzBlame {
  MG_FUZZ_BLAME_NONE,     // clean or diagnostic
  MG_FUZZ_BLAME_OURS,     // a frame in lib/ or tools/ of this repository
  MG_FUZZ_BLAME_PARSER,   // only upstream frames, while parsing the input
  MG_FUZZ_BLAME_UPSTREAM, // only upstream frames, while running the passes
                          // or printing their output (IR we produced)
  MG_FUZZ_BLAME_UNKNOWN,  // no stack (a build without the sanitizers)
  MG_FUZZ_BLAME_COUNT
} MgFuzzBlame;

/// What the child was doing (written into shared memory as it goes; only
/// grows, and stays PARSE when the input does not parse).
typedef enum MgFuzzPhase {
  MG_FUZZ_PHASE_START,
  MG_FUZZ_PHASE_PARSE,
  MG_FUZZ_PHASE_PASSES,
  MG_FUZZ_PHASE_PRINT,
  MG_FUZZ_PHASE_EXIT,
} MgFuzzPhase;

/// How the parent ended a child, if it did.
typedef enum MgFuzzKill {
  MG_FUZZ_KILL_NONE,
  MG_FUZZ_KILL_TIME,
  MG_FUZZ_KILL_MEMORY,
} MgFuzzKill;

typedef struct MgFuzzOutcome {
  MgFuzzClass cls;
  MgFuzzBlame blame;
  char signature[512]; // kind and top frames; equal for the same bug
} MgFuzzOutcome;

/// How a child ended: its wait status, its stderr (`err`, `len` bytes),
/// its last phase and how the parent killed it.
typedef struct MgFuzzEnd {
  int status;
  const char *err;
  size_t len;
  MgFuzzPhase phase;
  MgFuzzKill kill;
} MgFuzzEnd;

/// Classifies a child from how it ended. `source_root` is this
/// repository's path as compiled in: frames under <root>/lib/ and
/// <root>/tools/ are ours.
void mg_fuzz_classify(const MgFuzzEnd *end, const char *source_root,
                      MgFuzzOutcome *out);

extern const char *const mg_fuzz_class_names[MG_FUZZ_CLASS_COUNT];
extern const char *const mg_fuzz_blame_names[MG_FUZZ_BLAME_COUNT];

#endif // MIRAGE_FUZZ_H

//===- server.h - mirage-fuzz: the fork server -----------------*- C -*-===//
//
// The pipelines an input may run, and the fork server that runs it: set up
// once, then one forked child per input, watched for its limits, its
// stderr collected, its end classified (classify.c). See server.c.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_FUZZ_SERVER_H
#define MIRAGE_FUZZ_SERVER_H

#include <sys/types.h>

#include "fuzz.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

/// A pipeline: up to two Mirage passes with their options.
typedef struct MgFuzzPipeline {
  const char *name;
  const char *passes[2];
  const char *options[2];
  bool ugraph; // for seeds that hold μGraphs (ug.*) rather than TOSA/linalg
  unsigned weight;
} MgFuzzPipeline;

#define MG_FUZZ_NUM_PIPELINES 10
extern const MgFuzzPipeline mg_fuzz_pipelines[MG_FUZZ_NUM_PIPELINES];

/// The index of the pipeline named `name`, or -1.
int mg_fuzz_pipeline_find(const char *name);
/// The mirage-opt command line that runs pipeline `p`.
void mg_fuzz_pipeline_command(size_t p, char *buf, size_t size);

/// One input: the mutant, its seed, pipeline and mutations.
typedef struct MgFuzzInput {
  uint64_t index;
  size_t seed;
  size_t pipeline;
  MgFuzzText text;
  char mutations[256];
} MgFuzzInput;

/// What a child may use.
typedef struct MgFuzzLimits {
  double timeout_s;   // wall clock
  uint64_t memory_mb; // above the parent's resident set and address space
  int leaks; // LeakSanitizer at a child's exit: 0 never, 1 parsed inputs, 2 all
} MgFuzzLimits;

#define MG_FUZZ_MAX_JOBS 64

typedef struct MgFuzzServer {
  MlirContext ctx;
  MlirPassManager pms[MG_FUZZ_NUM_PIPELINES];
  int errors; // counted by the diagnostic handler (each child its own copy)
  volatile unsigned char
      *phases; // MgFuzzPhase per job slot, shared with children
  int devnull;
  long page_size;
  uint64_t parent_rss; // bytes
  MgFuzzLimits limits;
} MgFuzzServer;

/// A running child.
typedef struct MgFuzzJob {
  bool active;
  pid_t pid;
  int fd;      // read end of its stderr; -1 at EOF
  bool exited; // reaped; `status` is valid
  int status;
  double started, signalled, exited_at;
  MgFuzzKill kill;
  bool abandoned;     // killed on the user's second interrupt: not counted
  MgFuzzInput *input; // owned by the caller
  MgFuzzText err;
} MgFuzzJob;

/// Seconds on a monotonic clock.
double mg_fuzz_now(void);

/// Sets up the context, the dialects, the passes and the pass managers;
/// false after a message. Destroy with mg_fuzz_server_destroy, also after
/// a failure.
bool mg_fuzz_server_init(MgFuzzServer *s, const MgFuzzLimits *limits);
void mg_fuzz_server_destroy(MgFuzzServer *s);

/// Forks a child for `in` in job slot `slot` (< MG_FUZZ_MAX_JOBS); false
/// after a message.
bool mg_fuzz_job_start(MgFuzzServer *s, MgFuzzJob *j, size_t slot,
                       MgFuzzInput *in);
/// Waits up to `wait_ms` for output or an exit, then enforces the limits.
/// True when some job finished (exited and its stderr at EOF).
bool mg_fuzz_pump(MgFuzzServer *s, MgFuzzJob *jobs, size_t num_jobs,
                  int wait_ms);
/// Classifies a finished job and frees its slot; `seconds` is its run time.
void mg_fuzz_job_finish(MgFuzzServer *s, MgFuzzJob *j, size_t slot,
                        MgFuzzOutcome *out, double *seconds);
/// Runs one input to its end in slot 0; `err` (may be NULL) takes its
/// stderr. False after a message.
bool mg_fuzz_run_one(MgFuzzServer *s, MgFuzzInput *in, MgFuzzOutcome *out,
                     MgFuzzText *err);

/// --run: `path` through pipeline `p`; prints its stderr and class.
/// Returns 0 (clean or diagnostic), 1 (anything else) or 2 (an error).
int mg_fuzz_run_file(MgFuzzServer *s, const char *path, size_t p);
/// --reduce: shrinks `path` while pipeline `p` fails on it the same way
/// (delta debugging over lines, then tokens); writes it to `output`
/// (NULL: stdout). Returns 0, 1 (it does not fail) or 2 (an error).
int mg_fuzz_reduce(MgFuzzServer *s, const char *path, size_t p,
                   const char *output);

#endif // MIRAGE_FUZZ_SERVER_H

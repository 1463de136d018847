//===- main.c - mirage-run: JIT reference vs μGraph interpreter ----------===//
//
// For each pair (reference function, μGraph kernel graph) of a module --
// the pairs the lifter leaves behind (`ug.reference = @F_lax<k>_ref` on
// kernel @F_lax<k>), or one pair named with --compare -- runs the reference
// on the CPU through the MLIR ExecutionEngine and the kernel graph in the
// float interpreter on the same random inputs, and compares every output
// element. One line per pair on stdout; exit 0 when all agree, 1 on any
// mismatch or error (errors go to stderr), else 2 when a reference
// overflowed (inf/NaN on finite inputs: nothing to agree with).
// --lower checks lib/lower's CPU code against the interpreter instead, and
// --time runs the GPU code on a device (timing.c, driver.c), timed and
// checked against the interpreter.
//
//===----------------------------------------------------------------------===//
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mirage/bridge.h"
#include "mirage/cost.h"
#include "mirage/interp.h"
#include "mirage/passes.h"
#include "mirage/search.h"
#include "mirage/tool.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "run.h"

#define MAX_DYN_SIZES 16

typedef struct Options {
  const char *input;
  uint64_t seed;
  double tolerance; // < 0: derived per element
  double range;
  double sample_above; // a full check beyond this many operations samples
  uint64_t memory_limit; // bytes a check may hold (UINT64_MAX: no bound)
  bool lift;
  const char *lift_options; // "key=value ..." for mirage-lift
  char lhs[256], rhs[256];
  bool compare;
  bool lower; // check lib/lower's CPU code against the interpreter
  uint32_t candidates; // --lower-candidates: search candidates to lower too
  bool quiet;          // no "ok" line (candidates report once, in total)
  const char *jit_cpu; // "host" or "baseline"
  // --time: run the lowered kernels on a GPU (timing.c)
  bool time;
  MgRunTimeOptions timing;
  char target[16];     // lowering target; "": from the device
  const char *toolkit; // CUDA toolkit whose libdevice the PTX links
  // --dynamic-sizes: the sizes a kernel graph with `?` dims is checked at
  int64_t dyn_sizes[MAX_DYN_SIZES];
  uint32_t num_dyn_sizes;
} Options;

/// Outcome of checking one pair, from best to worst. OVERFLOW: the
/// reference itself gave inf/NaN on finite inputs, so the pair cannot agree.
typedef enum Outcome {
  OUTCOME_OK,
  OUTCOME_OVERFLOW,
  OUTCOME_MISMATCH,
  OUTCOME_ERROR
} Outcome;

/// Which side of a comparison is the original program. Default mode: the
/// JIT runs the reference, the interpreter the μGraph; --lower: the
/// interpreter is the reference, the JIT runs the lowered code.
typedef struct Sides {
  bool jit_is_reference;
  MgDType narrowest;     // the JIT reference's smallest-range type
  double roundoff;       // unit roundoff the compiled side computes with
  const char *candidate; // "the μGraph side", "the lowered code"
  const char *run;       // what produced the compiled side's values: "jit"
  char *verdict;         // when not NULL, the line (less "label: ") goes
  size_t verdict_size;   // here instead of stdout, "ok" lines too
  const MgRunSample *sample; // when not NULL, the outputs compared are its
  const MgRunSignature *full; // slices of outputs of this signature
  bool no_probe; // overflow.c's probe of every tensor passes the memory bound
} Sides;

/// The pair being checked: its name in reports ("ref,kernel" or a
/// candidate's), where its failures are reported, and the run's options.
typedef struct Pair {
  const char *label;
  MlirLocation loc;
  const Options *o;
} Pair;

/// How a pair is checked (plan_check).
typedef struct Plan {
  MgRunSampleKind kind;
  MgRunSample sample; // the rows, when kind is MG_RUN_SAMPLE_ROWS
  MgRunMemory need;   // what the chosen check needs (above the bound when
                      // none fits)
  MgRunMemory all;    // what checking every element needs
} Plan;

static void usage(FILE *out) {
  char memory[32];
  mg_run_memory_str(mg_run_memory_default(), memory, sizeof memory);
  fprintf(out,
          "OVERVIEW: checks μGraph kernel graphs against their reference on "
          "the CPU\n\n"
          "USAGE: mirage-run [options] <file.mlir>\n\n"
          "Every func.func with ug.level = \"kernel\" and ug.reference = @R "
          "runs in the\nfloat interpreter; @R (TOSA/linalg/arith/tensor) is "
          "JIT-compiled through the\nMLIR ExecutionEngine; both get the same "
          "random inputs and every output element\nis compared. Prints one "
          "line per kernel graph; exits 1 on any mismatch or error, else 2 when "
          "a\nreference overflows (inf/NaN on finite inputs), else 0.\n\n"
          "OPTIONS:\n"
          "  --seed=<N>          - seed of the random inputs (default 1)\n"
          "  --range=<X>         - inputs are uniform in [-X, X] (default 1)\n"
          "  --tolerance=<X>     - absolute tolerance per element (default: "
          "derived from the\n"
          "                        element types, reduction lengths and an "
          "error estimate\n"
          "                        per element, see docs/mirage-run.md)\n"
          "  --sample-above=<N>  - when a full check would take more than N "
          "operations\n"
          "                        (multiply-adds; default %.0e), check a "
          "random sample of\n"
          "                        output rows instead, stated in a line; "
          "'never': always\n"
          "                        check every element\n"
          "  --memory-limit=<S>  - refuse a check whose buffers would need "
          "more than S bytes\n"
          "                        (K, M, G, T: powers of 1024; at least "
          "16M) before\n"
          "                        allocating them, or check fewer rows when "
          "a sample fits;\n"
          "                        'none': no bound (default: half the "
          "physical memory,\n"
          "                        at most 64G: %s here)\n"
          "  --lift[=<options>]  - run the mirage-lift pass first (options as "
          "for\n"
          "                        mirage-opt --mirage-lift, e.g. "
          "--lift=\"max-ops=4\")\n"
          "  --dynamic-sizes=<L> - a kernel graph with dynamic dims ('?') is "
          "checked once\n                        per size of the list, every "
          "'?' at that size (default\n                        1,7,129,1024)\n"
          "  --compare=<L>,<R>   - compare function L (upstream dialects, "
          "JIT) with\n"
          "                        kernel graph R (interpreter) instead\n"
          "  --lower             - check the lowering instead: every kernel "
          "graph (lifted\n"
          "                        or not) is lowered for the CPU (lib/lower, "
          "the same\n"
          "                        code as the GPU kernels' bodies), "
          "JIT-compiled and\n"
          "                        compared with the interpreter\n"
          "  --lower-candidates=<N> - with --lower: also lower up to N "
          "candidate programs\n"
          "                        the search generates for each kernel "
          "graph of\n"
          "                        predefined ops (verified or not) and "
          "check each\n"
          "  --jit-cpu=<C>       - host: JIT for the host CPU and its "
          "features; baseline:\n"
          "                        for the architecture's baseline CPU with "
          "no optional\n"
          "                        features (e.g. no native f16/bf16 "
          "conversions), so\n"
          "                        results cannot depend on the host "
          "(default: host, or\n"
          "                        $MIRAGE_JIT_CPU)\n"
          "  --time[=<N>]        - run each kernel graph's lowered kernels "
          "(the PTX\n"
          "                        mirage-lower emits) on the GPU through "
          "the CUDA driver:\n"
          "                        median of N timed runs (default 20) "
          "against the cost\n"
          "                        model's estimate and the DRAM bound, "
          "results compared\n"
          "                        with the interpreter; without a driver "
          "or a GPU, one\n"
          "                        line and exit 0 (driver: libcuda.so.1, "
          "or\n"
          "                        $MIRAGE_CUDA_LIBRARY)\n"
          "  --warmup=<N>        - with --time: untimed runs first "
          "(default 3)\n"
          "  --warm-l2           - with --time: do not evict the L2 before "
          "each timed run\n"
          "  --target=<sm_NN>    - with --time: lower for this target "
          "(default: the\n"
          "                        device's, or the newest below it: sm_80, "
          "sm_86, sm_89,\n"
          "                        sm_90)\n"
          "  --toolkit=<path>    - with --time: CUDA toolkit whose libdevice "
          "the PTX links\n"
          "                        (default /usr/local/cuda)\n"
          "  --help              - this text\n",
          MG_RUN_SAMPLE_ABOVE, memory);
}

static bool parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (!*s || *end || errno || !isfinite(v))
    return false;
  *out = v;
  return true;
}

/// What an option parser made of one argument.
typedef enum OptParse {
  OPT_TAKEN, // the option was this parser's and is valid
  OPT_BAD,   // the option was this parser's but invalid (reported)
  OPT_OTHER, // not this parser's option
} OptParse;

static void set_defaults(Options *o) {
  o->seed = 1;
  o->tolerance = -1;
  o->range = 1;
  o->sample_above = MG_RUN_SAMPLE_ABOVE;
  o->memory_limit = mg_run_memory_default();
  o->jit_cpu = mg_run_jit_cpu_default();
  o->timing.runs = 20;
  o->timing.warmup = 3;
  o->timing.flush_l2 = true;
  o->toolkit = "/usr/local/cuda";
  // 1, a prime, a multiple of 128 plus one, a large size (docs/mirage-run.md)
  static const int64_t sizes[] = {1, 7, 129, 1024};
  memcpy(o->dyn_sizes, sizes, sizeof sizes);
  o->num_dyn_sizes = 4;
}

// "1,7,129": at most MAX_DYN_SIZES sizes from 1 to 2^20.
static bool parse_sizes(const char *v, Options *o) {
  o->num_dyn_sizes = 0;
  while (*v) {
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (end == v || errno || n < 1 || n > (1 << 20) ||
        o->num_dyn_sizes == MAX_DYN_SIZES || (*end && *end != ','))
      return false;
    o->dyn_sizes[o->num_dyn_sizes++] = n;
    v = *end ? end + 1 : end;
    if (*end && !*v)
      return false;
  }
  return o->num_dyn_sizes > 0;
}

/// The options of the check itself: inputs, tolerance, sampling, memory,
/// the lowering and the JIT.
static OptParse parse_check_option(const char *a, Options *o) {
  if (!strncmp(a, "--seed=", 7)) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(a + 7, &end, 10);
    if (!a[7] || *end || errno || a[7] == '-') {
      fprintf(stderr, "mirage-run: invalid --seed value '%s'\n", a + 7);
      return OPT_BAD;
    }
    o->seed = v;
  } else if (!strncmp(a, "--tolerance=", 12)) {
    if (!parse_double(a + 12, &o->tolerance) || o->tolerance < 0) {
      fprintf(stderr, "mirage-run: invalid --tolerance value '%s'\n",
              a + 12);
      return OPT_BAD;
    }
  } else if (!strncmp(a, "--range=", 8)) {
    if (!parse_double(a + 8, &o->range) || o->range <= 0) {
      fprintf(stderr, "mirage-run: invalid --range value '%s'\n", a + 8);
      return OPT_BAD;
    }
  } else if (!strncmp(a, "--sample-above=", 15)) {
    if (!strcmp(a + 15, "never")) {
      o->sample_above = INFINITY;
    } else if (!parse_double(a + 15, &o->sample_above) ||
               o->sample_above < 0) {
      fprintf(stderr, "mirage-run: invalid --sample-above value '%s' "
                      "(expected a number of operations or 'never')\n",
              a + 15);
      return OPT_BAD;
    }
  } else if (!strncmp(a, "--memory-limit=", 15)) {
    if (!mg_run_memory_parse(a + 15, &o->memory_limit)) {
      fprintf(stderr, "mirage-run: invalid --memory-limit value '%s' "
                      "(expected a size in bytes from 16M to 2^60, with an "
                      "optional suffix K, M, G or T, or 'none')\n", a + 15);
      return OPT_BAD;
    }
  } else if (!strncmp(a, "--dynamic-sizes=", 16)) {
    if (!parse_sizes(a + 16, o)) {
      fprintf(stderr, "mirage-run: invalid --dynamic-sizes value '%s' "
                      "(expected up to %d sizes from 1 to 1048576, "
                      "comma-separated)\n", a + 16, MAX_DYN_SIZES);
      return OPT_BAD;
    }
  } else if (!strcmp(a, "--lower")) {
    o->lower = true;
  } else if (!strncmp(a, "--jit-cpu=", 10)) {
    o->jit_cpu = a + 10;
  } else if (!strncmp(a, "--lower-candidates=", 19)) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(a + 19, &end, 10);
    if (!a[19] || *end || errno || v < 1 || v > 10000) {
      fprintf(stderr, "mirage-run: invalid --lower-candidates value '%s' "
                      "(expected 1..10000)\n", a + 19);
      return OPT_BAD;
    }
    o->candidates = (uint32_t)v;
    o->lower = true;
  } else {
    return OPT_OTHER;
  }
  return OPT_TAKEN;
}

/// The options of --time; sets *time_only for those that mean nothing
/// without it.
static OptParse parse_time_option(const char *a, Options *o, bool *time_only) {
  if (!strcmp(a, "--time")) {
    o->time = true;
  } else if (!strncmp(a, "--time=", 7)) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(a + 7, &end, 10);
    if (!a[7] || *end || errno || a[7] == '-' || v < 1 || v > 100000) {
      fprintf(stderr, "mirage-run: invalid --time value '%s' (expected "
                      "1..100000 timed runs)\n", a + 7);
      return OPT_BAD;
    }
    o->time = true;
    o->timing.runs = (uint32_t)v;
  } else if (!strncmp(a, "--warmup=", 9)) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(a + 9, &end, 10);
    if (!a[9] || *end || errno || a[9] == '-' || v > 10000) {
      fprintf(stderr, "mirage-run: invalid --warmup value '%s' (expected "
                      "0..10000)\n", a + 9);
      return OPT_BAD;
    }
    o->timing.warmup = (uint32_t)v;
    *time_only = true;
  } else if (!strcmp(a, "--warm-l2")) {
    o->timing.flush_l2 = false;
    *time_only = true;
  } else if (!strncmp(a, "--target=", 9)) {
    if (!mg_target_lookup(a + 9) || strlen(a + 9) >= sizeof o->target) {
      fprintf(stderr, "mirage-run: unknown target '%s' (expected %s)\n",
              a + 9, mg_target_names());
      return OPT_BAD;
    }
    snprintf(o->target, sizeof o->target, "%s", a + 9);
    *time_only = true;
  } else if (!strncmp(a, "--toolkit=", 10)) {
    if (!a[10]) {
      fprintf(stderr, "mirage-run: --toolkit needs a path\n");
      return OPT_BAD;
    }
    o->toolkit = a + 10;
    *time_only = true;
  } else {
    return OPT_OTHER;
  }
  return OPT_TAKEN;
}

/// --lift[=...] and --compare=L,R.
static OptParse parse_mode_option(const char *a, Options *o) {
  if (!strcmp(a, "--lift")) {
    o->lift = true;
  } else if (!strncmp(a, "--lift=", 7)) {
    o->lift = true;
    o->lift_options = a + 7;
  } else if (!strncmp(a, "--compare=", 10)) {
    const char *v = a + 10, *comma = strchr(v, ',');
    size_t ll = comma ? (size_t)(comma - v) : 0;
    size_t rl = comma ? strlen(comma + 1) : 0;
    if (!comma || !ll || !rl || ll >= sizeof o->lhs || rl >= sizeof o->rhs ||
        strchr(comma + 1, ',')) {
      fprintf(stderr, "mirage-run: --compare expects two function names, "
                      "'--compare=LHS,RHS'\n");
      return OPT_BAD;
    }
    memcpy(o->lhs, v[0] == '@' ? v + 1 : v, ll - (v[0] == '@'));
    o->lhs[ll - (v[0] == '@')] = 0;
    const char *r = comma + 1;
    snprintf(o->rhs, sizeof o->rhs, "%s", r[0] == '@' ? r + 1 : r);
    o->compare = true;
  } else {
    return OPT_OTHER;
  }
  return OPT_TAKEN;
}

/// 0 when the options go together, else 1 (reported).
static int check_combinations(const Options *o, bool time_only) {
  if (o->time && (o->compare || o->lower)) {
    fprintf(stderr, "mirage-run: --time cannot be combined with %s\n",
            o->compare ? "--compare" : "--lower");
    return 1;
  }
  if (time_only && !o->time) {
    fprintf(stderr, "mirage-run: --warmup, --warm-l2, --target and "
                    "--toolkit need --time\n");
    return 1;
  }
  if (o->compare && (o->lift || o->lower)) {
    fprintf(stderr, "mirage-run: --compare cannot be combined with --lift "
                    "or --lower\n");
    return 1;
  }
  if (strcmp(o->jit_cpu, "host") && strcmp(o->jit_cpu, "baseline")) {
    fprintf(stderr, "mirage-run: invalid JIT CPU '%s' (expected host or "
                    "baseline)\n", o->jit_cpu);
    return 1;
  }
  if (!o->input) {
    fprintf(stderr, "mirage-run: no input file (see --help)\n");
    return 1;
  }
  return 0;
}

/// 0: run; -1: --help; 1: error (already reported).
static int parse_args(int argc, char **argv, Options *o) {
  set_defaults(o);
  bool time_only = false; // an option that means nothing without --time
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return -1;
    OptParse r = parse_check_option(a, o);
    if (r == OPT_OTHER)
      r = parse_time_option(a, o, &time_only);
    if (r == OPT_OTHER)
      r = parse_mode_option(a, o);
    if (r == OPT_BAD)
      return 1;
    if (r == OPT_TAKEN)
      continue;
    if (a[0] == '-' && a[1]) {
      fprintf(stderr, "mirage-run: unknown option '%s' (see --help)\n", a);
      return 1;
    }
    if (o->input) {
      fprintf(stderr, "mirage-run: more than one input file ('%s', '%s')\n",
              o->input, a);
      return 1;
    }
    o->input = a;
  }
  return check_combinations(o, time_only);
}

//===--- Diagnostics ------------------------------------------------------===//

/// One error line, "file:line:col: error: <label>: message", on stderr.
static void report_error(MlirLocation loc, const char *label,
                         const char *message) {
  fflush(stdout); // keep the per-pair lines and errors in order
  mg_tool_print_location(loc, stderr);
  fprintf(stderr, ": error: %s: %s\n", label, message);
}

// report_error with a printf-style message; the pair's outcome.
__attribute__((format(printf, 3, 4))) static Outcome
pair_error(MlirLocation loc, const char *label, const char *fmt, ...) {
  char msg[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  report_error(loc, label, msg);
  return OUTCOME_ERROR;
}

//===--- Checking one pair ------------------------------------------------===//

typedef struct Buffers {
  double *in_values[MG_RUN_MAX_VALUES]; // inputs as doubles (interpreter)
  void *in_storage[MG_RUN_MAX_VALUES];  // inputs in their element type (JIT)
  void *jit_out[MG_RUN_MAX_VALUES];     // JIT results in their element type
  double *interp_out[MG_RUN_MAX_VALUES];
  double *sigma[MG_RUN_MAX_VALUES];     // error estimate, independent
  double *sigma_lin[MG_RUN_MAX_VALUES]; // error estimate, correlated
} Buffers;

static void buffers_free(Buffers *b) {
  for (int i = 0; i < MG_RUN_MAX_VALUES; ++i) {
    free(b->in_values[i]);
    free(b->in_storage[i]);
    free(b->jit_out[i]);
    free(b->interp_out[i]);
    free(b->sigma[i]);
    free(b->sigma_lin[i]);
  }
}

static bool buffers_alloc(Buffers *b, const MgRunSignature *sig,
                          const Options *o) {
  uint64_t state = mg_hash_u64(0x6d6972616765ull, o->seed); // "mirage"
  for (uint32_t i = 0; i < sig->num_inputs; ++i) {
    size_t n = (size_t)mg_run_numel(&sig->inputs[i]);
    size_t cap = n ? n : 1; // a zero-size tensor still gets a valid pointer
    b->in_values[i] = malloc(cap * sizeof(double));
    b->in_storage[i] = malloc(cap * mg_dtype_bytes(sig->inputs[i].dtype));
    if (!b->in_values[i] || !b->in_storage[i])
      return false;
    mg_run_random_fill(&state, sig->inputs[i].dtype, o->range,
                       b->in_values[i], b->in_storage[i], n);
  }
  for (uint32_t i = 0; i < sig->num_outputs; ++i) {
    size_t n = (size_t)mg_run_numel(&sig->outputs[i]);
    b->jit_out[i] = calloc(n ? n : 1, mg_dtype_bytes(sig->outputs[i].dtype));
    b->interp_out[i] = calloc(n ? n : 1, sizeof(double));
    b->sigma[i] = calloc(n ? n : 1, sizeof(double));
    b->sigma_lin[i] = calloc(n ? n : 1, sizeof(double));
    if (!b->jit_out[i] || !b->interp_out[i] || !b->sigma[i] ||
        !b->sigma_lin[i])
      return false;
  }
  return true;
}

/// Abs error of one element; NaN (always a mismatch) when exactly one side
/// is NaN or the infinities differ. Equal values (infinities too) give 0.
static double element_error(double jit, double ref) {
  if (isnan(jit) && isnan(ref))
    return 0;
  if (jit == ref)
    return 0;
  if (isinf(jit) || isinf(ref))
    return NAN;
  return fabs(jit - ref);
}

/// The smallest positive subnormal of `dtype`.
static double denorm_min(MgDType dtype) {
  switch (dtype) {
  case MG_DTYPE_F16: return ldexp(1.0, -24);
  case MG_DTYPE_BF16: return ldexp(1.0, -133);
  default: return ldexp(1.0, -149);
  }
}

/// Per output, elements that are inf/NaN once stored in the output type:
/// on the reference side, and on the candidate side where the reference's
/// are finite.
typedef struct NonFinite {
  int64_t reference[MG_RUN_MAX_VALUES], candidate[MG_RUN_MAX_VALUES];
} NonFinite;

/// Appends "N of M elements of output k" for each output with a count.
static void append_counts(char *buf, size_t size, const MgRunSignature *sig,
                          const int64_t *counts) {
  size_t len = strlen(buf);
  for (uint32_t k = 0; k < sig->num_outputs && len < size; ++k)
    if (counts[k])
      len += (size_t)snprintf(buf + len, size - len, "%s%ld of %ld elements "
                              "of output %u", len ? ", " : "", (long)counts[k],
                              (long)mg_run_numel(&sig->outputs[k]), k);
}

static bool inputs_finite(const MgRunSignature *sig, const Buffers *b) {
  for (uint32_t k = 0; k < sig->num_inputs; ++k)
    for (int64_t i = 0; i < mg_run_numel(&sig->inputs[k]); ++i)
      if (!isfinite(b->in_values[k][i]))
        return false;
  return true;
}

/// The outcome of a comparison: "label: text" on stdout, or the text into
/// sides->verdict when the caller prints the line itself.
static void verdict(const Sides *sides, const char *label, const char *fmt,
                    ...) __attribute__((format(printf, 3, 4)));
static void verdict(const Sides *sides, const char *label, const char *fmt,
                    ...) {
  va_list ap;
  va_start(ap, fmt);
  if (sides->verdict) {
    vsnprintf(sides->verdict, sides->verdict_size, fmt, ap);
  } else {
    printf("%s: ", label);
    vprintf(fmt, ap);
    printf("\n");
  }
  va_end(ap);
}

/// True when a copy of the inputs as 8-byte cells is small enough to make
/// casually: the interpreter may then run beside the estimates, and a
/// suggested --range is checked by runs at smaller ranges.
static bool small_inputs(const MgRunSignature *sig) {
  double cells = 0;
  for (uint32_t i = 0; i < sig->num_inputs; ++i)
    cells += (double)mg_run_numel(&sig->inputs[i]);
  return cells * sizeof(MgCell) < MG_RUN_PARALLEL_BYTES;
}

/// What comparing every element found (compare_elements).
typedef struct Tally {
  double max_err, max_err_tol; // the largest error within tolerance, its
                               // tolerance
  int64_t total, skipped;      // elements; ill-conditioned, not compared
  NonFinite nf;
  bool overflow;   // the reference is inf/NaN on finite inputs
  char first[400]; // the first mismatch, if any
  char where[200]; // ... in short
} Tally;

/// Compares every element of every output (see compare) into `t`.
static void compare_elements(const Options *o, const MgProgram *program,
                             const MgRunSignature *sig, const Buffers *b,
                             const Sides *sides, Tally *t) {
  double u = sides->roundoff;
  double lengths[MG_RUN_MAX_VALUES];
  mg_run_error_lengths(program, lengths);
  bool fixed = o->tolerance >= 0, finite_in = inputs_finite(sig, b);
  memset(t, 0, sizeof *t);
  t->max_err = -1;
  for (uint32_t k = 0; k < sig->num_outputs; ++k) {
    int64_t n = mg_run_numel(&sig->outputs[k]);
    MgDType dtype = sig->outputs[k].dtype;
    double scale = 0;
    for (int64_t i = 0; i < n; ++i)
      if (isfinite(b->interp_out[k][i]) && fabs(b->interp_out[k][i]) > scale)
        scale = fabs(b->interp_out[k][i]);
    double base = mg_run_tolerance(u, lengths[k], scale);
    for (int64_t i = 0; i < n; ++i) {
      double est = fmax(MG_RUN_SIGMAS * b->sigma[k][i],
                        MG_RUN_LINEAR_SIGMAS * b->sigma_lin[k][i]);
      // +inf: ill-conditioned (or a domain error, rsqrt of a negative).
      // NaN: beyond the estimate's range, compared so that overflows show.
      bool ill = est == INFINITY;
      if (!fixed && ill) {
        ++t->skipped;
        continue;
      }
      // Storing a value in `dtype` can be off by half its smallest
      // subnormal step, whatever the relative precision says.
      double tol = fixed ? o->tolerance
                         : fmax(fmax(base, est), denorm_min(dtype));
      double jit = mg_run_load(dtype, b->jit_out[k], (size_t)i);
      double ref = b->interp_out[k][i];
      // Rounded to the output type: the f64 interpreter's values beyond
      // its range are what a real run would store as inf.
      double r = mg_dtype_round(dtype, sides->jit_is_reference ? jit : ref);
      double c = mg_dtype_round(dtype, sides->jit_is_reference ? ref : jit);
      if (finite_in && !ill && !isfinite(r))
        t->nf.reference[k]++, t->overflow = true;
      else if (isfinite(r) && !isfinite(c))
        t->nf.candidate[k]++;
      double err = element_error(jit, ref);
      if (!(err <= tol)) {
        // Elements are named in the full output, also when sampled.
        int64_t at = sides->sample ? mg_run_sample_output_index(
                                         sides->sample,
                                         &sides->full->outputs[k], i)
                                   : i;
        if (!t->first[0]) {
          snprintf(t->first, sizeof t->first,
                   "MISMATCH at output %u element %ld: %s %.9g vs "
                   "interpreter %.9g (abs error %.3g, tolerance %.3g)",
                   k, (long)at, sides->run, jit, ref, err, tol);
          snprintf(t->where, sizeof t->where,
                   "at output %u element %ld: %s %.6g vs interpreter %.6g", k,
                   (long)at, sides->run, jit, ref);
        }
        continue;
      }
      if (err > t->max_err) {
        t->max_err = err;
        t->max_err_tol = tol;
      }
    }
    t->total += n;
  }
}

/// Compares every element. The tolerance of element i of output k is
/// --tolerance, or else the largest of the output's analytic bound and the
/// element's two error estimates times their number of deviations;
/// ill-conditioned elements (infinite estimate) are counted, not compared.
/// A reference that is inf/NaN on finite inputs makes the pair an overflow
/// rather than a mismatch: the program has no finite answer to agree with.
/// So does a mismatch where the reference's results are finite but an f16
/// or bf16 tensor of `program` (run exactly on `in`) goes past its range:
/// the reference computed that intermediate in that type (overflow.c).
/// Either way the line suggests a --range at which it does not.
static Outcome compare(const Pair *pair, const MgProgram *program,
                       const MgRunSignature *sig, const Buffers *b,
                       const Sides *sides, const MgRunOverflow *peaks) {
  const char *label = pair->label;
  const Options *o = pair->o;
  const double *const *in = (const double *const *)b->in_values;
  Tally t;
  compare_elements(o, program, sig, b, sides, &t);
  const NonFinite nf = t.nf;
  const char *first = t.first, *where = t.where;
  char counts[300] = "";
  if (t.overflow) {
    // The JIT computes in its types, any may have overflowed; the f64
    // interpreter overflows only in the type of an output.
    uint32_t k = 0;
    while (!nf.reference[k])
      ++k;
    MgDType type = sides->jit_is_reference ? sides->narrowest
                                           : sig->outputs[k].dtype;
    append_counts(counts, sizeof counts, sig, nf.reference);
    MgRunOverflow at = *peaks;
    if (at.ratio < 0 &&
        (sides->no_probe || !mg_run_overflow_probe(program, in, &at)))
      at.ratio = 0;
    verdict(sides, label, "OVERFLOW: the original program overflows %s at "
            "--range=%g (%s are inf/NaN); try --range=%g",
            mg_dtype_name(type), o->range, counts,
            mg_run_overflow_range(program, in, o->range, &at,
                                  small_inputs(sig) && !sides->no_probe));
    return OUTCOME_OVERFLOW;
  }
  MgRunOverflow at = *peaks;
  bool candidate_overflows = false;
  for (uint32_t k = 0; k < sig->num_outputs; ++k)
    candidate_overflows = candidate_overflows || nf.candidate[k];
  if (first[0] && sides->jit_is_reference && !candidate_overflows &&
      (at.ratio >= 0 ||
       (!sides->no_probe && mg_run_overflow_probe(program, in, &at))) &&
      at.ratio > 1) {
    verdict(sides, label, "OVERFLOW: the original program overflows %s at "
            "--range=%g: an intermediate (the result of 'ug.%s', %s) reaches "
            "%.3g, past %s's largest finite value %.6g, so the reference's "
            "results are not meaningful (%s); try --range=%g",
            mg_dtype_name(at.dtype), o->range, at.op, mg_dtype_name(at.dtype),
            at.peak, mg_dtype_name(at.dtype),
            mg_dtype_max_finite(at.dtype), where,
            mg_run_overflow_range(program, in, o->range, &at,
                                  small_inputs(sig) && !sides->no_probe));
    return OUTCOME_OVERFLOW;
  }
  if (first[0]) {
    char why[400] = "";
    uint32_t k = 0;
    while (k < sig->num_outputs && !nf.candidate[k])
      ++k;
    if (k < sig->num_outputs) {
      append_counts(counts, sizeof counts, sig, nf.candidate);
      snprintf(why, sizeof why, "; %s overflows %s (%s are inf/NaN, the "
               "reference's are finite)", sides->candidate,
               mg_dtype_name(sig->outputs[k].dtype), counts);
    } else if (sides->jit_is_reference && at.ratio < 0) {
      snprintf(why, sizeof why, "; its intermediates were not looked at "
               "for an overflow (keeping them passes --memory-limit)");
    }
    verdict(sides, label, "%s%s", first, why);
    return OUTCOME_MISMATCH;
  }
  char skipped_text[64] = "";
  if (t.skipped)
    snprintf(skipped_text, sizeof skipped_text,
             " (%ld ill-conditioned, not compared)", (long)t.skipped);
  if (!o->quiet || sides->verdict)
    verdict(sides, label, "%u output%s, %ld elements%s, max abs error %.2g "
            "(tolerance %.2g): ok",
            sig->num_outputs, sig->num_outputs == 1 ? "" : "s",
            (long)t.total, skipped_text, t.max_err > 0 ? t.max_err : 0.0,
            t.max_err_tol);
  return OUTCOME_OK;
}

static MgProgram *import_kernel(MlirOperation module, MlirOperation kernel,
                                const char *label) {
  MgProgram *program = NULL;
  MgBridgeMap map = {0};
  MlirLocation loc = mlirOperationGetLocation(kernel);
  MgDiag diag = MG_DIAG_INIT;
  MlirSymbolTable symbols = mlirSymbolTableCreate(module);
  MgStatus status =
      mg_bridge_import(symbols, kernel, &program, &map, &loc, &diag);
  mlirSymbolTableDestroy(symbols);
  if (status != MG_STATUS_OK) {
    report_error(loc, label, diag.message);
    program = NULL;
  } else if (mg_program_validate(program, NULL, &diag) != MG_STATUS_OK) {
    report_error(mg_bridge_map_location(&map, diag.graph, diag.op, loc),
                 label, diag.message);
    mg_program_destroy(program);
    program = NULL;
  }
  mg_bridge_map_free(&map);
  return program;
}

/// One run of the float interpreter, for a thread of its own.
typedef struct Interpreted {
  const MgProgram *program;
  const double *const *inputs;
  double *const *outputs;
  MgRunOverflow peaks; // of every tensor, when cheap (overflow.c)
  MgStatus status;
  MgDiag diag;
} Interpreted;

static void *interpret(void *ud) {
  Interpreted *r = ud;
  r->status = mg_run_interpret(r->program, r->inputs, r->outputs, &r->peaks,
                               &r->diag);
  return NULL;
}

/// Once the JIT filled b->jit_out: the interpreter on the same inputs, the
/// error estimates with unit roundoff sides->roundoff, then the comparison.
/// Failures are reported at pair->loc.
static Outcome interpret_and_compare(const Pair *pair,
                                     const MgProgram *program,
                                     const MgRunSignature *sig, Buffers *b,
                                     const Sides *sides) {
  MlirLocation loc = pair->loc;
  const char *label = pair->label;
  char err[512];
  MgDiag diag = MG_DIAG_INIT;
  const double *const *in = (const double *const *)b->in_values;
  if (!mg_interp_stored_to_logical(program, b->in_values)) {
    report_error(loc, label, "out of memory");
    return OUTCOME_ERROR;
  }
  // The interpreter runs beside the estimates (both only read the inputs),
  // unless the copies of the inputs each makes are large: then one after
  // the other, to hold one copy at a time.
  Interpreted run = {program, in, b->interp_out,
                     {-1, 0, MG_DTYPE_F32, ""}, MG_STATUS_OK, MG_DIAG_INIT};
  pthread_t thread;
  bool threaded = small_inputs(sig) &&
                  pthread_create(&thread, NULL, interpret, &run) == 0;
  if (!threaded)
    interpret(&run);
  MgStatus est = mg_run_error_sigmas(program, sig, in, sides->roundoff,
                                     (MgRunSigmas){b->sigma, b->sigma_lin},
                                     &diag);
  if (threaded)
    pthread_join(thread, NULL);
  if (run.status != MG_STATUS_OK) {
    snprintf(err, sizeof err, "the interpreter failed: %s",
             run.diag.message);
    report_error(loc, label, err);
    return OUTCOME_ERROR;
  }
  if (est != MG_STATUS_OK) {
    snprintf(err, sizeof err, "the error estimate failed: %s", diag.message);
    report_error(loc, label, err);
    return OUTCOME_ERROR;
  }
  return compare(pair, program, sig, b, sides, &run.peaks);
}

static Outcome check_instance(MlirOperation module, MlirOperation ref,
                              const Pair *at, const MgRunSignature *sig_in,
                              const MgProgram *program);

/// `program` with every symbol at size `n`, validated, and its label
/// "label[?=n]" in `at`; NULL after reporting why.
static MgProgram *instance(const MgProgram *program, int64_t n,
                           const char *label, MlirLocation loc,
                           char at[300]) {
  snprintf(at, 300, "%s[?=%lld]", label, (long long)n);
  MgProgram *p = mg_program_clone_at(program, n);
  MgDiag diag = MG_DIAG_INIT;
  if (!p) {
    report_error(loc, at, "out of memory");
    return NULL;
  }
  if (mg_program_validate(p, NULL, &diag) != MG_STATUS_OK) {
    report_error(loc, at, diag.message);
    mg_program_destroy(p);
    return NULL;
  }
  return p;
}

/// The line saying which rows a sampled check compares.
static void print_sample(const char *label, const MgRunSample *s,
                         const MgRunSignature *full, bool tiled,
                         const MgRunMemory *all, const Options *o) {
  const MgRunTensorType *out = &full->outputs[0];
  int64_t extent = out->dims[s->dim], taken = s->num_sampled * s->out_unit;
  char blocks[96] = "", which[96];
  if (s->out_unit > 1)
    snprintf(blocks, sizeof blocks, " in %u block%s of %lld, the kernel's "
             "tiles", s->num_sampled, s->num_sampled == 1 ? "" : "s",
             (long long)s->out_unit);
  if (s->num_sampled == 1)
    snprintf(which, sizeof which, "the first");
  else if (s->num_sampled == 2)
    snprintf(which, sizeof which, "the first and the last");
  else
    snprintf(which, sizeof which, "the first, the last and %u chosen at "
             "random with seed %llu", s->num_sampled - 2,
             (unsigned long long)o->seed);
  char memory[160] = "", need[32], bound[32];
  if (all->bytes > o->memory_limit) {
    mg_run_memory_str(all->bytes, need, sizeof need);
    mg_run_memory_str(o->memory_limit, bound, sizeof bound);
    snprintf(memory, sizeof memory, " and need about %s, more than "
             "--memory-limit=%s", need, bound);
  }
  printf("%s: sampled: %lld of %lld indices of dim %u of output 0%s (%s): "
         "%lld of %lld elements; a full check would take about %.2g "
         "operations (--sample-above=%.3g)%s%s\n",
         label, (long long)taken, (long long)extent, s->dim, blocks, which,
         (long long)mg_run_numel(&s->sig.outputs[0]),
         (long long)mg_run_numel(out), s->full_work, o->sample_above,
         memory,
         tiled ? "" : "; the reference was run whole (its tiling did not "
                      "apply)");
}

/// The check of a sample of rows: the JIT on the whole inputs for the
/// sampled rows only, the interpreter and the estimates on the sliced
/// kernel graph and the slices of the inputs.
static Outcome check_sampled(const Pair *pair, MlirOperation module,
                             MlirOperation ref, const MgRunSignature *sig,
                             const Plan *plan, bool no_probe) {
  const MgRunSample *s = &plan->sample;
  MlirLocation kloc = pair->loc;
  const char *label = pair->label;
  const Options *o = pair->o;
  char err[512];
  Outcome outcome = OUTCOME_ERROR;
  Buffers full = {0}, part = {0};
  int64_t *rows = malloc((size_t)(s->num_sampled * s->out_unit) * sizeof *rows);
  bool ok = rows != NULL;
  // The whole inputs in their element types only (the JIT's), drawn as the
  // full check draws them.
  uint64_t state = mg_hash_u64(0x6d6972616765ull, o->seed); // "mirage"
  for (uint32_t i = 0; ok && i < sig->num_inputs; ++i) {
    size_t n = (size_t)mg_run_numel(&sig->inputs[i]);
    full.in_storage[i] = malloc((n ? n : 1) *
                                mg_dtype_bytes(sig->inputs[i].dtype));
    ok = full.in_storage[i] != NULL;
    if (ok)
      mg_run_random_fill_storage(&state, sig->inputs[i].dtype, o->range,
                                 full.in_storage[i], n);
  }
  size_t out_n = (size_t)mg_run_numel(&sig->outputs[0]);
  ok = ok && (full.jit_out[0] = calloc(out_n ? out_n : 1,
                                       mg_dtype_bytes(sig->outputs[0].dtype)));
  // The slices: inputs as doubles, the JIT's sampled results, the rest.
  for (uint32_t i = 0; ok && i < sig->num_inputs; ++i) {
    size_t n = (size_t)mg_run_numel(&s->sig.inputs[i]);
    ok = (part.in_values[i] = malloc((n ? n : 1) * sizeof(double)));
    if (ok)
      mg_run_sample_gather_input(s, sig, i, full.in_storage[i],
                                 part.in_values[i]);
  }
  size_t n = (size_t)mg_run_numel(&s->sig.outputs[0]);
  ok = ok &&
       (part.jit_out[0] = calloc(n ? n : 1,
                                 mg_dtype_bytes(sig->outputs[0].dtype))) &&
       (part.interp_out[0] = calloc(n ? n : 1, sizeof(double))) &&
       (part.sigma[0] = calloc(n ? n : 1, sizeof(double))) &&
       (part.sigma_lin[0] = calloc(n ? n : 1, sizeof(double)));
  MgRunJitRows jr = {s->dim, ok ? mg_run_sample_rows(s, rows) : 0, rows,
                     false};
  if (!ok)
    report_error(kloc, label, "out of memory");
  else if (!mg_run_jit_rows(module, ref,
                            &(MgRunJitCall){o->jit_cpu, sig, full.in_storage,
                                            full.jit_out},
                            &jr, err, sizeof err))
    report_error(mlirOperationGetLocation(ref), label, err);
  else {
    mg_run_sample_gather_output(s, sig, full.jit_out[0], part.jit_out[0]);
    print_sample(label, s, sig, jr.tiled, &plan->all, o);
    Sides sides = {true, mg_run_func_narrowest(ref), mg_run_func_roundoff(ref),
                   "the μGraph side", "jit", NULL, 0, s, sig, no_probe};
    outcome = interpret_and_compare(pair, s->program, &s->sig, &part, &sides);
  }
  free(rows);
  buffers_free(&full);
  buffers_free(&part);
  return outcome;
}

static uint64_t add_bytes(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/// The error for a check that would need more memory than --memory-limit,
/// before anything was allocated.
static Outcome over_memory(MlirLocation loc, const char *label,
                           const MgRunMemory *need, const char *what,
                           const Options *o) {
  char total[32], bound[32], tensor[32];
  mg_run_memory_str(need->bytes, total, sizeof total);
  mg_run_memory_str(o->memory_limit, bound, sizeof bound);
  mg_run_memory_str(need->tensor_bytes, tensor, sizeof tensor);
  return pair_error(loc, label, "%s needs about %s, more than the memory "
                    "bound of %s (--memory-limit): its largest tensor is %s, "
                    "%llu elements (%s); nothing was run", what, total, bound,
                    need->tensor, (unsigned long long)need->numel, tensor);
}

/// How to check `program` against `ref` within --sample-above and
/// --memory-limit: the plan for the work, or, when that does not fit the
/// memory bound, a sample of fewer rows (not with --sample-above=never);
/// each try asks for a 16th of the work.
static void plan_check(const MgProgram *program, const MgRunSignature *sig,
                       MlirOperation ref, const Options *o, Plan *plan) {
  MgRunSample *s = &plan->sample;
  MgRunMemory *need = &plan->need, *all = &plan->all;
  mg_run_memory_full(program, sig, MG_RUN_MEMORY_REFERENCE, ref, all);
  *need = *all;
  MgRunSampleKind kind =
      mg_run_sample_plan(program, sig, o->sample_above, o->seed, s);
  double work = s->full_work;
  if (kind == MG_RUN_SAMPLE_ROWS)
    mg_run_memory_sampled(sig, s, ref, need);
  for (int i = 0; i < 6 && need->bytes > o->memory_limit &&
                  kind != MG_RUN_SAMPLE_NONE && isfinite(o->sample_above);
       ++i) {
    double budget = (kind == MG_RUN_SAMPLE_ROWS ? s->work : work) / 16;
    if (kind == MG_RUN_SAMPLE_ROWS)
      mg_run_sample_free(s);
    kind = mg_run_sample_plan(program, sig, budget, o->seed, s);
    if (kind != MG_RUN_SAMPLE_ROWS) {
      *need = *all;
      break;
    }
    mg_run_memory_sampled(sig, s, ref, need);
  }
  plan->kind = kind;
}

/// Runs `ref` (JIT) and `kernel` (interpreter) and compares them: every
/// element, or a sample of rows when that would take too long or not fit
/// the memory bound.
static Outcome check_pair(MlirOperation module, MlirOperation ref,
                          MlirOperation kernel, const char *label,
                          const Options *o) {
  char err[512];
  MgRunSignature sig, ksig;
  MlirLocation kloc = mlirOperationGetLocation(kernel);
  if (!mg_run_signature_read(ref, &sig, err, sizeof err)) {
    report_error(mlirOperationGetLocation(ref), label, err);
    return OUTCOME_ERROR;
  }
  if (!mg_run_signature_read(kernel, &ksig, err, sizeof err)) {
    report_error(kloc, label, err);
    return OUTCOME_ERROR;
  }
  char diff[256];
  if (!mg_run_signature_equal(&sig, &ksig, diff, sizeof diff)) {
    snprintf(err, sizeof err,
             "the reference and the kernel graph have different signatures "
             "(%s)",
             diff);
    report_error(kloc, label, err);
    return OUTCOME_ERROR;
  }
  MgProgram *program = import_kernel(module, kernel, label);
  if (!program)
    return OUTCOME_ERROR;
  if (!mg_run_signature_dynamic(&sig)) {
    Outcome outcome =
        check_instance(module, ref, &(Pair){label, kloc, o}, &sig, program);
    mg_program_destroy(program);
    return outcome;
  }
  // One check per size, every symbol at that size.
  Outcome worst = OUTCOME_OK;
  for (uint32_t i = 0; i < o->num_dyn_sizes; ++i) {
    char at[300];
    MgRunSignature sig_n = mg_run_signature_at(&sig, o->dyn_sizes[i]);
    MgProgram *p = instance(program, o->dyn_sizes[i], label, kloc, at);
    Outcome r = p ? check_instance(module, ref, &(Pair){at, kloc, o}, &sig_n, p)
                  : OUTCOME_ERROR;
    mg_program_destroy(p);
    if (r > worst)
      worst = r;
  }
  mg_program_destroy(program);
  return worst;
}

/// check_pair for one static signature `sig` and its program.
static Outcome check_instance(MlirOperation module, MlirOperation ref,
                              const Pair *at, const MgRunSignature *sig_in,
                              const MgProgram *program) {
  char err[512];
  MgRunSignature sig = *sig_in;
  Pair pair = *at;
  const char *label = at->label;
  MlirLocation kloc = at->loc;
  const Options *o = at->o;
  Plan plan;
  plan_check(program, &sig, ref, o, &plan);
  MgRunSampleKind kind = plan.kind;
  const MgRunMemory need = plan.need;
  bool no_probe = add_bytes(need.held, need.probe) > o->memory_limit;
  if (need.bytes > o->memory_limit || kind == MG_RUN_SAMPLE_ROWS) {
    Outcome outcome =
        need.bytes > o->memory_limit
            ? over_memory(kloc, label, &need,
                          kind == MG_RUN_SAMPLE_ROWS
                              ? "checking a sample of rows"
                              : "checking every element",
                          o)
            : check_sampled(&pair, module, ref, &sig, &plan, no_probe);
    if (kind == MG_RUN_SAMPLE_ROWS)
      mg_run_sample_free(&plan.sample);
    return outcome;
  }
  if (kind == MG_RUN_SAMPLE_NONE)
    printf("%s: every element is checked although that takes about %.2g "
           "operations (--sample-above=%.3g): no dim of the output can be "
           "sampled\n", label, plan.sample.full_work, o->sample_above);

  Outcome outcome = OUTCOME_ERROR;
  Buffers b = {0};
  if (!buffers_alloc(&b, &sig, o))
    report_error(kloc, label, "out of memory");
  else if (!mg_run_jit(module, ref,
                       &(MgRunJitCall){o->jit_cpu, &sig, b.in_storage,
                                       b.jit_out},
                       err, sizeof err))
    report_error(mlirOperationGetLocation(ref), label, err);
  else {
    Sides sides = {true, mg_run_func_narrowest(ref), mg_run_func_roundoff(ref),
                   "the μGraph side", "jit", NULL, 0, NULL, NULL, no_probe};
    outcome = interpret_and_compare(&pair, program, &sig, &b, &sides);
  }
  buffers_free(&b);
  return outcome;
}

/// The unit roundoff of the coarsest element type of `program`: lowered
/// code computes in f32 and rounds every stored value to its tensor's type.
static double coarsest_roundoff(const MgProgram *program) {
  double u = mg_run_unit_roundoff(MG_DTYPE_F32);
  for (uint32_t g = 0; g < program->num_graphs; g++)
    for (uint32_t t = 0; t < program->graphs[g].num_tensors; t++)
      u = fmax(u, mg_run_unit_roundoff(
                      (MgDType)program->graphs[g].tensors[t].dtype));
  return u;
}

/// Runs the CPU lowering of `program` (JIT) and the interpreter on the
/// same inputs and compares them, with the tolerance of the coarsest type.
static Outcome compare_lowered(MlirContext ctx, const MgProgram *program,
                               const MgProgram *lowered,
                               const MgRunSignature *sig, const Pair *pair) {
  char err[512];
  MlirLocation loc = pair->loc;
  const char *label = pair->label;
  const Options *o = pair->o;
  double u = coarsest_roundoff(program);
  MgRunMemory need;
  mg_run_memory_full(program, sig, MG_RUN_MEMORY_LOWERED, (MlirOperation){0},
                     &need);
  if (need.bytes > o->memory_limit)
    return over_memory(loc, label, &need, "checking every element", o);
  Sides sides = {false, MG_DTYPE_F32, u, "the lowered code", "jit", NULL, 0,
                 NULL, NULL, add_bytes(need.held, need.probe) >
                                 o->memory_limit};
  Outcome outcome = OUTCOME_ERROR;
  Buffers b = {0};
  if (!buffers_alloc(&b, sig, o))
    report_error(loc, label, "out of memory");
  else if (!mg_run_jit_lowered(ctx, lowered,
                               &(MgRunJitCall){o->jit_cpu, sig, b.in_storage,
                                               b.jit_out},
                               err, sizeof err))
    report_error(loc, label, err);
  else
    outcome = interpret_and_compare(pair, program, sig, &b,
                                    &sides);
  buffers_free(&b);
  return outcome;
}

typedef struct Candidates {
  MgProgram **items;
  uint64_t *hashes;
  uint32_t n, cap;
} Candidates;

// Keeps the first `cap` distinct candidates the search materializes.
static void keep_candidate(const MgProgram *p, void *ud) {
  Candidates *c = ud;
  if (c->n == c->cap)
    return;
  uint64_t h = mg_program_hash(p);
  for (uint32_t i = 0; i < c->n; i++)
    if (c->hashes[i] == h)
      return;
  MgProgram *copy = mg_program_clone(p);
  if (!copy)
    return;
  c->hashes[c->n] = h;
  c->items[c->n++] = copy;
}

/// --lower-candidates: the programs the search generates for `program`
/// (predefined ops only), equivalent or not, lowered and checked one by one.
static Outcome check_candidates(MlirContext ctx, const MgProgram *program,
                                const MgRunSignature *sig, MlirLocation loc,
                                const char *label, const Options *o) {
  for (uint32_t i = 0; i < program->graphs[0].num_ops; i++)
    if (program->graphs[0].ops[i].kind == MG_OP_CUSTOM)
      return OUTCOME_OK; // already searched: nothing to generate from
  Candidates c = {calloc(o->candidates, sizeof(MgProgram *)),
                  calloc(o->candidates, sizeof(uint64_t)), 0, o->candidates};
  if (!c.items || !c.hashes) {
    free(c.items);
    free(c.hashes);
    report_error(loc, label, "out of memory");
    return OUTCOME_ERROR;
  }
  MgSearchOptions so = mg_search_options_default();
  so.threads = 1;
  so.max_kernel_ops = 2;
  so.exhaustive = true;
  so.cut_prologues = false;
  // The first candidates in enumeration order (one thread: the same ones
  // on any machine, at any load); the state bound, not a time budget, only
  // guards against a search that generates too few (about a minute of
  // enumeration).
  so.max_offered = 4 * (uint64_t)o->candidates;
  so.time_budget_s = 0;
  so.max_states = (uint64_t)1 << 22;
  so.on_candidate = keep_candidate;
  so.candidate_user_data = &c;
  MgSearchResult r;
  MgDiag diag;
  Outcome worst = OUTCOME_OK;
  if (mg_search_run(program, &so, &r, &diag) != MG_STATUS_OK) {
    report_error(loc, label, diag.message);
    worst = OUTCOME_ERROR;
  }
  mg_search_result_free(&r);
  Options quiet = *o;
  quiet.quiet = true;
  uint32_t ok = 0, overflows = 0;
  for (uint32_t i = 0; i < c.n; i++) {
    char name[300];
    snprintf(name, sizeof name, "%s candidate %u", label, i);
    Outcome out =
        compare_lowered(ctx, c.items[i], c.items[i], sig,
                        &(Pair){name, loc, &quiet});
    ok += out == OUTCOME_OK;
    overflows += out == OUTCOME_OVERFLOW;
    if (out > worst)
      worst = out;
    mg_program_destroy(c.items[i]);
  }
  printf("%s: %u search candidate(s) lowered, %u agree with the "
         "interpreter", label, c.n, ok);
  if (overflows)
    printf(", %u overflow", overflows);
  printf("\n");
  free(c.items);
  free(c.hashes);
  return worst;
}

/// The signature and μGraph of kernel graph `kernel`; NULL after reporting
/// why not.
static MgProgram *load_kernel(MlirOperation module, MlirOperation kernel,
                              const char *label, MgRunSignature *sig) {
  char err[512];
  if (!mg_run_signature_read(kernel, sig, err, sizeof err)) {
    report_error(mlirOperationGetLocation(kernel), label, err);
    return NULL;
  }
  return import_kernel(module, kernel, label);
}

/// --lower: checks the lowering of `kernel` (and, with --lower-candidates,
/// of the search's candidates for it).
static Outcome check_lowered(MlirOperation module, MlirOperation kernel,
                             const char *label, const Options *o) {
  MgRunSignature sig;
  MlirLocation kloc = mlirOperationGetLocation(kernel);
  MgProgram *program = load_kernel(module, kernel, label, &sig);
  if (!program)
    return OUTCOME_ERROR;
  MlirContext ctx = mlirOperationGetContext(module);
  Outcome outcome = OUTCOME_OK;
  if (mg_run_signature_dynamic(&sig)) {
    // The symbolic program lowered as it is, run at each size beside the
    // interpreter on the program at that size.
    for (uint32_t i = 0; i < o->num_dyn_sizes; ++i) {
      char at[300];
      MgRunSignature sig_n = mg_run_signature_at(&sig, o->dyn_sizes[i]);
      MgProgram *p = instance(program, o->dyn_sizes[i], label, kloc, at);
      Outcome r = p ? compare_lowered(ctx, p, program, &sig_n,
                                      &(Pair){at, kloc, o})
                    : OUTCOME_ERROR;
      mg_program_destroy(p);
      if (r > outcome)
        outcome = r;
    }
    if (o->candidates)
      printf("%s: --lower-candidates skipped: its candidates are searched "
             "at one size\n", label);
    mg_program_destroy(program);
    return outcome;
  }
  outcome = compare_lowered(ctx, program, program, &sig,
                            &(Pair){label, kloc, o});
  if (o->candidates) {
    Outcome c = check_candidates(ctx, program, &sig, kloc, label, o);
    if (c > outcome)
      outcome = c;
  }
  mg_program_destroy(program);
  return outcome;
}

//===--- Finding the pairs ------------------------------------------------===//

static void symbol_name(MlirOperation func, char *buf, size_t size) {
  MlirAttribute a = mlirOperationGetAttributeByName(
      func, mlirStringRefCreateFromCString("sym_name"));
  MlirStringRef s = mlirStringAttrGetValue(a);
  snprintf(buf, size, "%.*s", (int)s.length, s.data);
}

static bool is_declaration(MlirOperation func) {
  return mlirBlockIsNull(
      mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0)));
}

/// --compare=L,R. Returns the outcome.
static Outcome run_compare(MlirOperation module, const Options *o) {
  MlirLocation loc = mlirOperationGetLocation(module);
  char label[600];
  snprintf(label, sizeof label, "@%s vs @%s", o->lhs, o->rhs);
  MlirOperation lhs = mg_bridge_lookup_func(module, o->lhs);
  MlirOperation rhs = mg_bridge_lookup_func(module, o->rhs);
  const char *missing = mlirOperationIsNull(lhs)   ? o->lhs
                        : mlirOperationIsNull(rhs) ? o->rhs
                                                   : NULL;
  if (missing)
    return pair_error(loc, label, "no function named '@%s'", missing);
  MgLevel level;
  if (mg_bridge_func_level(lhs, &level) || is_declaration(lhs))
    return pair_error(mlirOperationGetLocation(lhs), label,
                      "'@%s' must be a function body in upstream dialects "
                      "(TOSA, linalg, ...) to be JIT-compiled",
                      o->lhs);
  if (!mg_bridge_func_level(rhs, &level) || level != MG_LEVEL_KERNEL)
    return pair_error(mlirOperationGetLocation(rhs), label,
                      "'@%s' is not a kernel-level μGraph function "
                      "(ug.level = \"kernel\")",
                      o->rhs);
  return check_pair(module, lhs, rhs, label, o);
}

/// Every kernel graph with a ug.reference. Counts pairs into *pairs.
static Outcome run_lifted(MlirOperation module, const Options *o,
                          int *pairs) {
  Outcome worst = OUTCOME_OK;
  MlirSymbolTable symbols = mlirSymbolTableCreate(module);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MgLevel level;
    if (!mg_bridge_func_level(op, &level) || level != MG_LEVEL_KERNEL)
      continue;
    MlirAttribute ref_attr = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("ug.reference"));
    if (mlirAttributeIsNull(ref_attr) && !o->lower)
      continue;
    char label[256];
    label[0] = '@';
    symbol_name(op, label + 1, sizeof label - 1);
    ++*pairs;
    Outcome r;
    if (o->lower) {
      r = check_lowered(module, op, label, o);
    } else if (!mlirAttributeIsAFlatSymbolRef(ref_attr)) {
      report_error(mlirOperationGetLocation(op), label,
                   "'ug.reference' must be a symbol reference (@name)");
      r = OUTCOME_ERROR;
    } else {
      MlirStringRef s = mlirFlatSymbolRefAttrGetValue(ref_attr);
      char ref_name[256];
      snprintf(ref_name, sizeof ref_name, "%.*s", (int)s.length, s.data);
      MlirOperation ref = mg_bridge_lookup_func_in(symbols, ref_name);
      if (mlirOperationIsNull(ref) || is_declaration(ref)) {
        r = pair_error(mlirOperationGetLocation(op), label,
                       "reference function '@%s' not found", ref_name);
      } else {
        r = check_pair(module, ref, op, label, o);
      }
    }
    if (r > worst)
      worst = r;
  }
  mlirSymbolTableDestroy(symbols);
  return worst;
}

static bool run_lift(MlirOperation module, const char *options) {
  MlirContext ctx = mlirOperationGetContext(module);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  char error[512];
  bool ok = mg_passes_add(mlirPassManagerGetAsOpPassManager(pm), "mirage-lift",
                          mlirStringRefCreateFromCString(options ? options : ""),
                          error, sizeof error);
  if (!ok)
    fprintf(stderr, "mirage-run: --lift: %s\n", error);
  else if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, module))) {
    fprintf(stderr, "mirage-run: --lift: the mirage-lift pass failed\n");
    ok = false;
  }
  mlirPassManagerDestroy(pm);
  return ok;
}

/// 0: every pair agrees; 2: some reference overflows and nothing worse
/// happened; 1: a mismatch or an error.
static int exit_status(Outcome worst) {
  return worst == OUTCOME_OK ? 0 : worst == OUTCOME_OVERFLOW ? 2 : 1;
}

//===--- --time: the lowered kernels on a GPU -----------------------------===//

/// Three significant digits without an exponent: "1234", "41.2", "3.05".
static void fmt3(double v, char *out, size_t size) {
  snprintf(out, size,
           v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : v >= 1 ? "%.2f" : "%.2g",
           v);
}

typedef struct TimeRun {
  MgCuda cuda;
  MgCudaDevice device;
  const char *target;    // the lowering's
  MlirOperation lowered; // the input lowered for `target`
  const MgGpu *model;    // the cost model's figures for `target`
  double dram_bw;        // the device's, bytes/s
  const char *bw_source;
} TimeRun;

/// Lowered kernels of `kernel` on the GPU: times them, compares their
/// results with the interpreter and prints one line.
static Outcome time_kernel(MlirOperation module, const TimeRun *tr,
                           MlirOperation kernel, const char *label,
                           const char *name, const Options *o) {
  char err[2048];
  MgRunSignature sig;
  MlirLocation kloc = mlirOperationGetLocation(kernel);
  MgProgram *program = load_kernel(module, kernel, label, &sig);
  if (!program)
    return OUTCOME_ERROR;
  Outcome outcome = OUTCOME_ERROR;
  MgRunGpuPlan plan = {0};
  MgRunGpuImage image = {0};
  Buffers b = {0};
  MgRunTiming t;
  MgRunGpu gpu = {&tr->cuda, &tr->device};
  MgRunMemory need;
  mg_run_memory_full(program, &sig, MG_RUN_MEMORY_DEVICE, (MlirOperation){0},
                     &need);
  if (need.bytes > o->memory_limit) {
    over_memory(kloc, label, &need, "checking every element", o);
  } else if (!mg_run_gpu_plan_build(program, &sig, &plan, err, sizeof err) ||
      !mg_run_gpu_image_find(tr->lowered, name, &plan, &image, err,
                             sizeof err)) {
    report_error(kloc, label, err);
  } else if (!buffers_alloc(&b, &sig, o)) {
    report_error(kloc, label, "out of memory");
  } else if (!mg_run_gpu_time(&gpu,
                              &(MgRunGpuJob){program, &plan, &image,
                                             b.in_storage, b.jit_out},
                              &o->timing, &t, err, sizeof err)) {
    report_error(kloc, label, err);
  } else {
    char text[800] = "";
    Sides sides = {false, MG_DTYPE_F32, coarsest_roundoff(program),
                   "the GPU kernels", "gpu", text, sizeof text, NULL, NULL,
                   add_bytes(need.held, need.probe) > o->memory_limit};
    outcome = interpret_and_compare(&(Pair){label, kloc, o}, program, &sig,
                                    &b, &sides);
    if (outcome != OUTCOME_ERROR) {
      double estimate = 1e6 * mg_cost_program(program, tr->model);
      double bytes = (double)mg_run_gpu_min_dram_bytes(&sig);
      double bound = 1e6 * bytes / tr->dram_bw;
      char med[32], min[32], est[32], mb[32], bnd[32], pct[32] = "-";
      fmt3(t.median_us, med, sizeof med);
      fmt3(t.min_us, min, sizeof min);
      fmt3(estimate, est, sizeof est);
      fmt3(bytes / 1e6, mb, sizeof mb);
      fmt3(bound, bnd, sizeof bnd);
      if (t.median_us > 0) {
        fmt3(100.0 * bound / t.median_us, pct, sizeof pct - 1);
        strcat(pct, "%");
      }
      printf("%s: %u kernel%s: %s us (median of %u, min %s); estimate %s "
             "us; DRAM >= %s MB, bound %s us: %s of %.2f TB/s; %s\n",
             label, plan.num_launches, plan.num_launches == 1 ? "" : "s",
             med, t.runs, min, est, mb, bnd, pct, tr->dram_bw / 1e12, text);
    }
  }
  buffers_free(&b);
  mg_run_gpu_image_free(&image);
  mg_run_gpu_plan_free(&plan);
  mg_program_destroy(program);
  return outcome;
}

/// The newest lowering target the device runs (PTX for an older
/// architecture is JIT-compiled for newer ones), or NULL below sm_80.
static const char *device_target(const MgCudaDevice *d) {
  int cc = d->cc_major * 10 + d->cc_minor;
  for (size_t i = mg_target_count(); i-- > 0;)
    if (mg_target_at(i)->gpu->sm <= cc)
      return mg_target_at(i)->name;
  return NULL;
}

static bool is_kernel_graph(MlirOperation op) {
  MgLevel level;
  return mg_bridge_func_level(op, &level) && level == MG_LEVEL_KERNEL;
}

/// --time: every kernel graph of `module`, lowered as mirage-opt lowers
/// it, on device 0. Without a driver or a device: one line, exit 0.
static int run_time(MlirOperation module, const Options *o) {
  TimeRun tr;
  memset(&tr, 0, sizeof tr);
  char why[800];
  if (!mg_cuda_open(mg_cuda_library_name(), &tr.cuda, why, sizeof why)) {
    printf("mirage-run: --time: no CUDA driver (%s); nothing timed\n", why);
    return 0;
  }
  switch (mg_cuda_device_open(&tr.cuda, 0, &tr.device, why, sizeof why)) {
  case MG_CUDA_DEVICE_OK:
    break;
  case MG_CUDA_DEVICE_NO_DRIVER:
    printf("mirage-run: --time: no CUDA driver (%s is CUDA's stub "
           "library: %s); nothing timed\n", mg_cuda_library_name(), why);
    mg_cuda_close(&tr.cuda);
    return 0;
  case MG_CUDA_DEVICE_NONE:
    printf("mirage-run: --time: no CUDA device (%s); nothing timed\n", why);
    mg_cuda_close(&tr.cuda);
    return 0;
  case MG_CUDA_DEVICE_ERROR:
    fprintf(stderr, "mirage-run: --time: cannot use %s: %s\n",
            tr.device.name[0] ? tr.device.name : "device 0", why);
    mg_cuda_close(&tr.cuda);
    return 1;
  }
  int status = 1;
  char err[4800];
  tr.target = o->target[0] ? o->target : device_target(&tr.device);
  uint32_t graphs = 0, binaries = 0;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    graphs += is_kernel_graph(op);
    binaries += mg_bridge_op_is(op, "gpu.binary");
  }
  if (!tr.target) {
    fprintf(stderr, "mirage-run: --time: %s is sm_%d%d; the lowering "
            "targets sm_80 and newer (--target=... to try anyway)\n",
            tr.device.name, tr.device.cc_major, tr.device.cc_minor);
    goto done;
  }
  if (!graphs) {
    if (binaries)
      fprintf(stderr, "mirage-run: --time: '%s' holds lowered code "
              "(gpu.binary) but no kernel graph: its μGraphs, needed to "
              "check the results and to estimate the time, are gone; time "
              "the output of mirage-opt --mirage-superopt=\"lower=false\" "
              "instead, which --time lowers the same way\n", o->input);
    else
      fprintf(stderr, "mirage-run: no kernel graphs in '%s' (no func.func "
              "with ug.level = \"kernel\")\n", o->input);
    goto done;
  }
  tr.lowered = mg_run_lower_module(module, tr.target, o->toolkit, err,
                                   sizeof err);
  if (mlirOperationIsNull(tr.lowered)) {
    fprintf(stderr, "mirage-run: --time: %s\n", err);
    goto done;
  }
  tr.model = mg_cost_gpu(mg_target_lookup(tr.target));
  tr.dram_bw = tr.device.dram_bw;
  tr.bw_source = tr.device.bw_source;
  if (!(tr.dram_bw > 0)) {
    tr.dram_bw = tr.model->dram_bw;
    tr.bw_source = "cost model's figure";
  }
  char l2[32];
  fmt3((double)tr.device.l2_bytes / 1e6, l2, sizeof l2);
  printf("mirage-run: --time: %s (sm_%d%d, %d SMs, %s MB L2, DRAM %.2f "
         "TB/s from the %s), CUDA driver %d.%d; PTX for %s; %u warm-up and "
         "%u timed run%s%s\n",
         tr.device.name, tr.device.cc_major, tr.device.cc_minor,
         tr.device.sms, l2, tr.dram_bw / 1e12, tr.bw_source,
         tr.device.driver_version / 1000,
         tr.device.driver_version % 1000 / 10, tr.target, o->timing.warmup,
         o->timing.runs, o->timing.runs == 1 ? "" : "s",
         o->timing.flush_l2 ? ", L2 evicted before each" : "");
  Outcome worst = OUTCOME_OK;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!is_kernel_graph(op))
      continue;
    char label[256];
    label[0] = '@';
    symbol_name(op, label + 1, sizeof label - 1);
    // The host function keeps the symbol, whatever its length.
    MlirStringRef sym = mlirStringAttrGetValue(mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name")));
    char *name = malloc(sym.length + 1);
    if (!name) {
      report_error(mlirOperationGetLocation(op), label, "out of memory");
      worst = OUTCOME_ERROR;
      continue;
    }
    memcpy(name, sym.data, sym.length);
    name[sym.length] = 0;
    Outcome r = time_kernel(module, &tr, op, label, name, o);
    free(name);
    if (r > worst)
      worst = r;
  }
  status = exit_status(worst);
done:
  if (!mlirOperationIsNull(tr.lowered))
    mlirOperationDestroy(tr.lowered);
  mg_cuda_device_close(&tr.cuda, &tr.device);
  mg_cuda_close(&tr.cuda);
  return status;
}

int main(int argc, char **argv) {
  Options o = {0};
  int rc = parse_args(argc, argv, &o);
  if (rc == -1) {
    usage(stdout);
    printf("\nLOWERING PIPELINE (reference functions):\n  %s\n",
           mg_run_jit_pipeline());
    printf("\nLOWERING PIPELINE (--lower, lib/lower's CPU code):\n  %s\n",
           mg_run_jit_lowered_pipeline());
    return 0;
  }
  if (rc)
    return 1;
  size_t len = 0;
  char *text = mg_tool_read_file(o.input, &len);
  if (!text) {
    fprintf(stderr, "mirage-run: cannot read '%s': %s\n", o.input,
            strerror(errno ? errno : EIO));
    return 1;
  }
  MlirContext ctx = mg_tool_context_create(NULL);
  if (mlirContextIsNull(ctx)) {
    free(text);
    return 1;
  }
  int status = 1;
  MlirOperation mod = mg_tool_parse_module(ctx, text, len, o.input);
  free(text);
  if (mlirOperationIsNull(mod)) {
    fprintf(stderr, "mirage-run: could not parse '%s'\n", o.input);
  } else {
    if (o.compare) {
      status = exit_status(run_compare(mod, &o));
    } else if (o.lift && !run_lift(mod, o.lift_options)) {
      // reported
    } else if (o.time) {
      status = run_time(mod, &o);
    } else {
      int pairs = 0;
      Outcome r = run_lifted(mod, &o, &pairs);
      if (!pairs)
        fprintf(stderr, o.lower ? "mirage-run: no kernel graphs in '%s' (no "
                                  "func.func with ug.level = \"kernel\")\n"
                                : "mirage-run: no lifted kernel graphs in "
                                  "'%s' (no func.func with ug.level = "
                                  "\"kernel\" and ug.reference)\n",
                o.input);
      else
        status = exit_status(r);
    }
    mlirOperationDestroy(mod);
  }
  mlirContextDestroy(ctx);
  return status;
}

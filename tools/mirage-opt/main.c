//===- main.c - mirage-opt: an mlir-opt-like driver for the Mirage passes -===//
//
// Parses a module, runs a pipeline built from --pass-pipeline or from
// per-pass flags (Mirage and upstream), prints the result. Every failure is
// one diagnostic and a non-zero exit status.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // setenv

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mirage/passes.h"
#include "mirage/tool.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

typedef struct PassFlag {
  const char *name; // without leading dashes
  const char *options;
  size_t name_len;
} PassFlag;

typedef struct Options {
  const char *input;
  const char *output;
  const char *pipeline;
  PassFlag *flags;
  size_t num_flags;
  bool split_input;
  bool generic;
  bool debug_info;
  bool remarks;
  bool progress;
  bool stats;
  bool explain;
  const char *explain_file; // --mirage-explain=FILE
  const char *dump_dot;
} Options;

static void usage(FILE *out) {
  fprintf(out,
          "OVERVIEW: Mirage superoptimizer driver for MLIR tensor programs\n\n"
          "USAGE: mirage-opt [options] <input file or '-'>\n\n"
          "OPTIONS:\n"
          "  -o <file>                      - output file (default: stdout)\n"
          "  --pass-pipeline=<pipeline>     - textual pipeline, e.g. "
          "'builtin.module(mirage-superopt{target=sm_90})'\n"
          "  --<pass>[=<options>]           - append a pass (Mirage or any "
          "registered op-agnostic upstream pass, e.g. --canonicalize)\n"
          "  --split-input-file             - process chunks separated by "
          "'// -----' separately\n"
          "  --mirage-remarks               - explain what each Mirage pass "
          "did, per function\n"
          "  --mirage-progress              - live search progress on stderr\n"
          "  --mirage-stats                 - search statistics per pruning "
          "rule on stderr\n"
          "  --mirage-explain[=<file>]      - why the search chose what it "
          "chose, per kernel graph\n"
          "                                   (remarks; also JSON in <file>)\n"
          "  --mirage-dump-dot=<dir>        - write each searched function's "
          "chosen μGraph as Graphviz <dir>/<function>.dot\n"
          "  --mlir-print-op-generic        - print ops in generic form\n"
          "  --mlir-print-debuginfo         - print locations\n"
          "  --version                      - print the version\n"
          "  --help                         - this text\n\n"
          "MIRAGE PASSES (flag form takes options as --pass=\"k=v k=v\"; "
          "pipeline form as pass{k=v k=v}):\n");
}

/// Builds the pass manager from the options; false after one message.
static bool build_pipeline(MlirOpPassManager opm, const Options *o) {
  if (o->pipeline) {
    MgToolText err = {"", 0};
    if (mlirLogicalResultIsFailure(mlirParsePassPipeline(
            opm, mlirStringRefCreateFromCString(o->pipeline), mg_tool_collect,
            &err))) {
      fprintf(stderr, "mirage-opt: invalid --pass-pipeline: %s\n", err.text);
      return false;
    }
    return true;
  }
  for (size_t i = 0; i < o->num_flags; ++i) {
    const PassFlag *f = &o->flags[i];
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)f->name_len, f->name);
    const char *opts = f->options ? f->options : "";
    char error[512];
    if (!strncmp(name, "mirage-", 7)) {
      if (!mg_passes_add(opm, name, mlirStringRefCreateFromCString(opts), error,
                         sizeof error)) {
        fprintf(stderr, "mirage-opt: %s\n", error);
        return false;
      }
      continue;
    }
    size_t len = strlen(name) + strlen(opts) + 3;
    char *element = malloc(len);
    if (!element)
      return false;
    snprintf(element, len, f->options ? "%s{%s}" : "%s", name, opts);
    MgToolText err = {"", 0};
    bool ok = mlirLogicalResultIsSuccess(mlirOpPassManagerAddPipeline(
        opm, mlirStringRefCreateFromCString(element), mg_tool_collect, &err));
    free(element);
    if (!ok) {
      if (strstr(err.text, "does not refer to a registered pass"))
        fprintf(stderr, "mirage-opt: unknown option or pass '--%s'\n", name);
      else
        fprintf(stderr, "mirage-opt: invalid pass '--%s': %s\n", name,
                err.text);
      return false;
    }
  }
  return true;
}

// The options that only switch a flag of Options on.
static const struct {
  const char *name;
  size_t offset; // of the bool in Options
} switches[] = {
    {"--split-input-file", offsetof(Options, split_input)},
    {"--mlir-print-op-generic", offsetof(Options, generic)},
    {"--mlir-print-debuginfo", offsetof(Options, debug_info)},
    {"--mirage-remarks", offsetof(Options, remarks)},
    {"--mirage-progress", offsetof(Options, progress)},
    {"--mirage-stats", offsetof(Options, stats)},
    {"--mirage-explain", offsetof(Options, explain)},
};

// The flag option `a` switches on, or NULL when it is no such option.
static bool *switch_flag(Options *o, const char *a) {
  for (size_t i = 0; i < sizeof switches / sizeof *switches; ++i)
    if (!strcmp(a, switches[i].name))
      return (bool *)((char *)o + switches[i].offset);
  return NULL;
}

static int parse_args(int argc, char **argv, Options *o) {
  o->flags = calloc((size_t)argc, sizeof *o->flags);
  if (!o->flags)
    return 1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    bool *flag;
    if (!strcmp(a, "-o")) {
      if (++i >= argc) {
        fprintf(stderr, "mirage-opt: '-o' needs a file name\n");
        return 1;
      }
      o->output = argv[i];
    } else if (!strncmp(a, "-o", 2) && a[2]) {
      o->output = a + 2;
    } else if (!strcmp(a, "-") || a[0] != '-') {
      if (o->input) {
        fprintf(stderr, "mirage-opt: more than one input file ('%s', '%s')\n",
                o->input, a);
        return 1;
      }
      o->input = a;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      return -1;
    } else if (!strcmp(a, "--version")) {
      return -2;
    } else if (!strncmp(a, "--pass-pipeline=", 16)) {
      o->pipeline = a + 16;
    } else if ((flag = switch_flag(o, a)) != NULL) {
      *flag = true;
    } else if (!strncmp(a, "--mirage-explain=", 17)) {
      o->explain = true;
      o->explain_file = a + 17;
    } else if (!strncmp(a, "--mirage-dump-dot", 17) &&
               (a[17] == '=' || !a[17])) {
      if (a[17] != '=' || !a[18]) {
        fprintf(stderr, "mirage-opt: '--mirage-dump-dot' needs a directory "
                        "('--mirage-dump-dot=DIR')\n");
        return 1;
      }
      o->dump_dot = a + 18;
    } else if (!strncmp(a, "--", 2) && a[2] && a[2] != '-' && a[2] != '=') {
      PassFlag *f = &o->flags[o->num_flags++];
      f->name = a + 2;
      const char *eq = strchr(f->name, '=');
      f->name_len = eq ? (size_t)(eq - f->name) : strlen(f->name);
      f->options = eq ? eq + 1 : NULL;
    } else {
      fprintf(stderr, "mirage-opt: unknown option '%s' (see --help)\n", a);
      return 1;
    }
  }
  if (o->pipeline && o->num_flags) {
    fprintf(stderr, "mirage-opt: --pass-pipeline cannot be combined with "
                    "pass flags\n");
    return 1;
  }
  if (!o->input)
    o->input = "-";
  return 0;
}

/// What every chunk of the input is processed with.
typedef struct Session {
  MlirContext ctx;
  MlirPassManager pm;
  const Options *o;
  MgOutFile *outfile;
  const int *errors; // errors the diagnostic handler has printed so far
} Session;

/// Parses one chunk, runs s->pm on it and prints it; true on success.
static bool process(const Session *s, const char *text, size_t len) {
  const Options *o = s->o;
  const int *errors = s->errors;
  MgOutFile *outfile = s->outfile;
  FILE *out = outfile->stream;
  const char *name = strcmp(o->input, "-") ? o->input : "<stdin>";
  int before = *errors;
  MlirOperation module = mg_tool_parse_module(s->ctx, text, len, name);
  if (mlirOperationIsNull(module)) {
    if (*errors == before)
      fprintf(stderr, "%s: error: could not parse the input\n", name);
    return false;
  }
  bool ok = true;
  if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(s->pm, module))) {
    if (*errors == before)
      fprintf(stderr, "%s: error: pass pipeline failed\n", name);
    ok = false;
  }
  if (ok) {
    MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
    // The parser and the pass manager (after every pass) have verified the
    // module; verifying it again to print costs as much as once more, and
    // upstream's check of a gpu.container_module looks each launched
    // kernel up by a scan of the module (quadratic in the functions).
    mlirOpPrintingFlagsAssumeVerified(flags);
    if (o->generic)
      mlirOpPrintingFlagsPrintGenericOpForm(flags);
    if (o->debug_info)
      mlirOpPrintingFlagsEnableDebugInfo(flags, true, false);
    mlirOperationPrintWithFlags(module, flags, mg_tool_print_chunk, out);
    mlirOpPrintingFlagsDestroy(flags);
    fputc('\n', out);
    mg_outfile_flush(outfile); // keep chunk output and diagnostics in order
  }
  mlirOperationDestroy(module);
  return ok;
}

int main(int argc, char **argv) {
  Options o = {0};
  int rc = parse_args(argc, argv, &o);
  if (rc == -1) {
    usage(stdout);
    for (size_t i = 0; i < mg_passes_count(); ++i)
      mg_passes_print_help(i, mg_tool_print_chunk, stdout);
    free(o.flags);
    return 0;
  }
  if (rc == -2) {
    printf("mirage-opt %s (MLIR %s)\n", MIRAGE_VERSION, MIRAGE_MLIR_VERSION);
    free(o.flags);
    return 0;
  }
  if (rc) {
    free(o.flags);
    return 1;
  }
  // Read by every Mirage pass, so they also apply inside --pass-pipeline.
  if (o.remarks)
    setenv("MIRAGE_REMARKS", "1", 1);
  if (o.progress)
    setenv("MIRAGE_PROGRESS", "1", 1);
  if (o.stats)
    setenv("MIRAGE_STATS", "1", 1);
  if (o.explain)
    setenv("MIRAGE_EXPLAIN", "1", 1);
  if (o.explain_file)
    setenv("MIRAGE_EXPLAIN_FILE", o.explain_file, 1);
  if (o.dump_dot)
    setenv("MIRAGE_DUMP_DOT", o.dump_dot, 1);
  size_t len = 0;
  char *text = mg_tool_read_file(o.input, &len);
  if (!text) {
    fprintf(stderr, "mirage-opt: cannot read '%s': %s\n", o.input,
            strerror(errno ? errno : EIO));
    free(o.flags);
    return 1;
  }
  // Written to a temporary file that replaces -o only when everything
  // succeeded: `-o` naming the input cannot lose it.
  MgOutFile outfile;
  MgDiag diag = MG_DIAG_INIT;
  // Under mpirun the other ranks search for rank 0, which alone writes.
  bool worker = mg_passes_mpi_is_worker();
  if (worker && !freopen("/dev/null", "w", stdout)) {
    fprintf(stderr, "mirage-opt: cannot silence this MPI rank's output\n");
    return 1;
  }
  if (mg_outfile_open(&outfile, o.output && !worker ? o.output : "-",
                      &diag) !=
      MG_STATUS_OK) {
    fprintf(stderr, "mirage-opt: %s\n", diag.message);
    free(text);
    free(o.flags);
    return 1;
  }

  int errors = 0;
  MlirContext ctx = mg_tool_context_create(&errors);
  MlirPassManager pm = {NULL};
  bool ok = !mlirContextIsNull(ctx);
  if (ok) {
    pm = mlirPassManagerCreate(ctx);
    ok = build_pipeline(mlirPassManagerGetAsOpPassManager(pm), &o);
  }

  // --split-input-file: chunks keep their line numbers (earlier lines are
  // replaced by newlines) so diagnostics point into the original file.
  const char *sep = "// -----";
  size_t start = 0, newlines = 0; // newlines before `start`
  bool pipeline_ok = ok;
  Session session = {ctx, pm, &o, &outfile, &errors};
  while (pipeline_ok) {
    size_t end = len;
    if (o.split_input) {
      const char *hit = text + start;
      while ((hit = strstr(hit, sep)) &&
             !(hit == text || hit[-1] == '\n'))
        hit += strlen(sep);
      end = hit ? (size_t)(hit - text) : len;
    }
    char *chunk = malloc(newlines + (end - start) + 1);
    if (!chunk) {
      ok = false;
      break;
    }
    memset(chunk, '\n', newlines);
    memcpy(chunk + newlines, text + start, end - start);
    if (!process(&session, chunk, newlines + (end - start)))
      ok = false;
    free(chunk);
    if (!o.split_input || end == len)
      break;
    fprintf(outfile.stream, "// -----\n");
    const char *eol = strchr(text + end, '\n');
    size_t next = eol ? (size_t)(eol - text) + 1 : len;
    for (size_t i = start; i < next; ++i)
      newlines += text[i] == '\n';
    start = next;
  }
  if (!mlirPassManagerIsNull(pm))
    mlirPassManagerDestroy(pm);
  if (!mlirContextIsNull(ctx))
    mlirContextDestroy(ctx);
  if (ok && mg_outfile_commit(&outfile, &diag) != MG_STATUS_OK) {
    fprintf(stderr, "mirage-opt: %s\n", diag.message);
    ok = false;
  }
  mg_outfile_discard(&outfile); // after a failure: the target stays as it was
  free(text);
  free(o.flags);
  mg_passes_mpi_finish(ok ? 0 : 1); // under mpirun: end MPI with the status
  return ok ? 0 : 1;
}

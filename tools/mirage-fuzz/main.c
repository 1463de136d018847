//===- main.c - mirage-fuzz: fuzz the Mirage passes with mutated inputs ---===//
//
// mirage-fuzz mutates the .mlir seeds under the given paths (corpus.c,
// mutate.c) and runs each mutant through a Mirage pipeline in a forked
// child of one set-up process (server.c), then prints a table: inputs per
// pipeline and class, the distinct crash/hang/memory signatures and whose
// code they are in (classify.c), inputs per second.
//
// Input i of seed s is always the same mutant of the same corpus: the seed
// text, the pipeline and 0-6 mutations come from a random state made from
// (s, i) only. --emit=i prints it, --run runs a file, --reduce shrinks one
// (reduce.c).
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // kill

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "server.h"

// The sanitized build: abort() gets a stack like any other report (the
// parent aborts children at their limits); allocations past the limits
// return NULL as they would under ulimit, so the code's handling of that is
// fuzzed too. Options in the environment come after these and win.
#if defined(__SANITIZE_ADDRESS__)
#define MG_FUZZ_EXPORT __attribute__((visibility("default"), used))
MG_FUZZ_EXPORT const char *__asan_default_options(void);
const char *__asan_default_options(void) {
  return "handle_abort=1:allocator_may_return_null=1:detect_leaks=1:"
         "abort_on_error=1:detect_stack_use_after_return=1:"
         "check_initialization_order=1:strict_string_checks=1";
}
MG_FUZZ_EXPORT const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) {
  return "abort_on_error=1:halt_on_error=1:print_stacktrace=1";
}
#endif

typedef struct Options {
  uint64_t seed, start, inputs;
  unsigned jobs;
  MgFuzzLimits limits;
  const char *save_dir;
  const char *run_file, *reduce_file, *output;
  size_t pipeline; // for --run and --reduce
  int64_t emit;
  int verbose;
  char **paths;
  size_t num_paths;
} Options;

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

static bool is_ugraph_seed(const MgFuzzText *t) {
  return strstr(t->data, "ug.") != NULL;
}

/// Input `index` of `seed`: deterministic in (seed, index, corpus).
static bool generate(const MgFuzzCorpus *c, uint64_t seed, uint64_t index,
                     MgFuzzInput *in) {
  uint64_t mix = seed;
  uint64_t rng = mg_fuzz_rand(&mix) ^ (index * 0xd1342543de82ef95ull);
  mg_fuzz_rand(&rng);
  in->index = index;
  in->seed = mg_fuzz_below(&rng, c->num_seeds);
  const MgFuzzText *s = &c->seeds[in->seed];
  bool ugraph = is_ugraph_seed(s);
  unsigned total = 0;
  for (size_t p = 0; p < MG_FUZZ_NUM_PIPELINES; ++p)
    total +=
        mg_fuzz_pipelines[p].ugraph == ugraph ? mg_fuzz_pipelines[p].weight : 0;
  uint64_t w = mg_fuzz_below(&rng, total);
  for (size_t p = 0; p < MG_FUZZ_NUM_PIPELINES; ++p) {
    if (mg_fuzz_pipelines[p].ugraph != ugraph)
      continue;
    if (w < mg_fuzz_pipelines[p].weight) {
      in->pipeline = p;
      break;
    }
    w -= mg_fuzz_pipelines[p].weight;
  }
  in->text.len = 0;
  if (!mg_fuzz_text_append(&in->text, s->data, s->len))
    return false;
  // 1 in 32: the seed as it is; else mostly 1-2 mutations, sometimes 3-6.
  uint64_t r = mg_fuzz_below(&rng, 32);
  unsigned count = r == 0   ? 0
                   : r < 20 ? 1
                   : r < 28 ? 2
                            : 3 + (unsigned)mg_fuzz_below(&rng, 4);
  size_t n = 0;
  in->mutations[0] = 0;
  for (unsigned i = 0; i < count; ++i) {
    char what[32];
    if (!mg_fuzz_mutate(&in->text, &rng, c, what, sizeof what))
      return false;
    n += (size_t)snprintf(in->mutations + n, sizeof in->mutations - n, "%s%s",
                          i ? ", " : "", what);
    if (n >= sizeof in->mutations)
      n = sizeof in->mutations - 1;
    size_t cap = 4 * s->len + 65536; // splices and duplications add up
    if (in->text.len > cap) {
      in->text.len = cap;
      in->text.data[cap] = 0;
    }
  }
  if (!count)
    snprintf(in->mutations, sizeof in->mutations, "none");
  return true;
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

typedef struct Signature {
  MgFuzzOutcome outcome;
  uint64_t count, first;
  size_t seed, pipeline;
  char mutations[256];
} Signature;

typedef struct Results {
  uint64_t counts[MG_FUZZ_NUM_PIPELINES][MG_FUZZ_CLASS_COUNT];
  uint64_t parsed[MG_FUZZ_NUM_PIPELINES]; // inputs that reached the passes
  uint64_t blamed[MG_FUZZ_BLAME_COUNT];   // inputs per blame
  Signature *sigs;
  size_t num_sigs, cap_sigs;
  uint64_t done;
  double slowest_s;
  uint64_t slowest;
} Results;

static uint64_t hash_string(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; ++s)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/// Writes the input and its stderr for a new signature into --save.
static void save_input(const Options *opt, const MgFuzzCorpus *c,
                       const MgFuzzInput *in, const MgFuzzOutcome *o,
                       const MgFuzzText *err) {
  char base[512], path[600], cmd[512];
  snprintf(base, sizeof base, "%s/%s-%s-%016llx", opt->save_dir,
           mg_fuzz_blame_names[o->blame], mg_fuzz_class_names[o->cls],
           (unsigned long long)hash_string(o->signature));
  mg_fuzz_pipeline_command(in->pipeline, cmd, sizeof cmd);
  snprintf(path, sizeof path, "%s.mlir", base);
  FILE *f = fopen(path, "w");
  if (f) {
    fprintf(f,
            "// mirage-fuzz --seed=%llu --emit=%llu: %s, mutations: %s\n"
            "// %s [%s] %s\n// reproduce: %s %s\n",
            (unsigned long long)opt->seed, (unsigned long long)in->index,
            c->origins[in->seed], in->mutations, mg_fuzz_class_names[o->cls],
            mg_fuzz_blame_names[o->blame], o->signature, cmd, path);
    fwrite(in->text.data, 1, in->text.len, f);
    fclose(f);
  }
  snprintf(path, sizeof path, "%s.txt", base);
  f = fopen(path, "w");
  if (f) {
    fwrite(err->data ? err->data : "", 1, err->len, f);
    fclose(f);
  }
}

// What one input came to: its class and blame, the child's stderr, how
// long it ran and whether it got past parsing.
typedef struct Finished {
  const MgFuzzInput *in;
  MgFuzzOutcome outcome;
  const MgFuzzText *err;
  double seconds;
  bool parsed;
} Finished;

static bool record(Results *r, const Options *opt, const MgFuzzCorpus *c,
                   const Finished *f) {
  const MgFuzzInput *in = f->in;
  const MgFuzzOutcome *o = &f->outcome;
  const MgFuzzText *err = f->err;
  double seconds = f->seconds;
  bool parsed = f->parsed;
  ++r->done;
  r->parsed[in->pipeline] += parsed;
  ++r->counts[in->pipeline][o->cls];
  ++r->blamed[o->blame];
  if (seconds > r->slowest_s) {
    r->slowest_s = seconds;
    r->slowest = in->index;
  }
  if (opt->verbose >= 2 || (opt->verbose && o->blame != MG_FUZZ_BLAME_NONE)) {
    // -vv: a diagnostic's first error line says what the mutant broke.
    const char *e = err->data ? strstr(err->data, "error: ") : NULL;
    int n = e ? (int)strcspn(e, "\n") : 0;
    printf("input %llu (%s, %s; %s): %s%s%s%s%s%s%s%.*s\n",
           (unsigned long long)in->index, c->origins[in->seed],
           mg_fuzz_pipelines[in->pipeline].name, in->mutations,
           parsed ? "parsed, " : "", mg_fuzz_class_names[o->cls],
           o->signature[0] ? " [" : "",
           o->signature[0] ? mg_fuzz_blame_names[o->blame] : "",
           o->signature[0] ? "] " : "", o->signature,
           o->cls == MG_FUZZ_CLASS_DIAGNOSTIC ? ": " : "",
           o->cls == MG_FUZZ_CLASS_DIAGNOSTIC ? n : 0, e ? e : "");
  }
  if (o->blame == MG_FUZZ_BLAME_NONE)
    return true;
  for (size_t i = 0; i < r->num_sigs; ++i) {
    Signature *g = &r->sigs[i];
    if (g->outcome.cls == o->cls && g->outcome.blame == o->blame &&
        !strcmp(g->outcome.signature, o->signature)) {
      ++g->count;
      return true;
    }
  }
  if (r->num_sigs == r->cap_sigs) {
    size_t cap = r->cap_sigs ? 2 * r->cap_sigs : 16;
    Signature *sigs = realloc(r->sigs, cap * sizeof *sigs);
    if (!sigs)
      return false;
    r->sigs = sigs;
    r->cap_sigs = cap;
  }
  Signature *g = &r->sigs[r->num_sigs++];
  *g = (Signature){.outcome = *o,
                   .count = 1,
                   .first = in->index,
                   .seed = in->seed,
                   .pipeline = in->pipeline};
  snprintf(g->mutations, sizeof g->mutations, "%s", in->mutations);
  if (opt->save_dir)
    save_input(opt, c, in, o, err);
  return true;
}

/// Events (crash, hang, memory) that fail the run: any but the parser's.
static uint64_t failing(const Results *r) {
  return r->blamed[MG_FUZZ_BLAME_OURS] + r->blamed[MG_FUZZ_BLAME_UPSTREAM] +
         r->blamed[MG_FUZZ_BLAME_UNKNOWN];
}

static void print_table(const Results *r, const Options *opt,
                        const MgFuzzCorpus *c, double seconds) {
  printf("mirage-fuzz: seed %llu, inputs %llu..%llu, %u jobs, timeout %g s, "
         "memory %llu MiB\n",
         (unsigned long long)opt->seed, (unsigned long long)opt->start,
         (unsigned long long)(opt->start + r->done - (r->done > 0)), opt->jobs,
         opt->limits.timeout_s, (unsigned long long)opt->limits.memory_mb);
  printf("corpus: %zu files, %zu seeds, %zu op names\n", c->num_files,
         c->num_seeds, c->num_op_names);
  printf("%-14s %8s %8s", "pipeline", "inputs", "parsed");
  for (size_t k = 0; k < MG_FUZZ_CLASS_COUNT; ++k)
    printf(" %10s", mg_fuzz_class_names[k]);
  printf("\n");
  uint64_t total[MG_FUZZ_CLASS_COUNT] = {0}, parsed = 0;
  for (size_t p = 0; p < MG_FUZZ_NUM_PIPELINES; ++p) {
    uint64_t n = 0;
    for (size_t k = 0; k < MG_FUZZ_CLASS_COUNT; ++k)
      n += r->counts[p][k], total[k] += r->counts[p][k];
    parsed += r->parsed[p];
    printf("%-14s %8llu %8llu", mg_fuzz_pipelines[p].name,
           (unsigned long long)n, (unsigned long long)r->parsed[p]);
    for (size_t k = 0; k < MG_FUZZ_CLASS_COUNT; ++k)
      printf(" %10llu", (unsigned long long)r->counts[p][k]);
    printf("\n");
  }
  printf("%-14s %8llu %8llu", "total", (unsigned long long)r->done,
         (unsigned long long)parsed);
  for (size_t k = 0; k < MG_FUZZ_CLASS_COUNT; ++k)
    printf(" %10llu", (unsigned long long)total[k]);
  printf("\n");
  size_t per_blame[MG_FUZZ_BLAME_COUNT] = {0};
  for (size_t i = 0; i < r->num_sigs; ++i)
    ++per_blame[r->sigs[i].outcome.blame];
  printf(
      "distinct crash/hang/memory signatures: ours %zu, upstream parser %zu, "
      "upstream on our output %zu, no stack %zu\n",
      per_blame[MG_FUZZ_BLAME_OURS], per_blame[MG_FUZZ_BLAME_PARSER],
      per_blame[MG_FUZZ_BLAME_UPSTREAM], per_blame[MG_FUZZ_BLAME_UNKNOWN]);
  for (size_t i = 0; i < r->num_sigs; ++i) {
    const Signature *g = &r->sigs[i];
    printf(
        "  [%s] %s: %s\n      %llu inputs; first: --emit=%llu (%s, %s; %s)\n",
        mg_fuzz_blame_names[g->outcome.blame],
        mg_fuzz_class_names[g->outcome.cls], g->outcome.signature,
        (unsigned long long)g->count, (unsigned long long)g->first,
        c->origins[g->seed], mg_fuzz_pipelines[g->pipeline].name, g->mutations);
  }
  printf("time: %.1f s, %.1f inputs/s; slowest input %.2f s (--emit=%llu)\n",
         seconds, seconds > 0 ? (double)r->done / seconds : 0.0, r->slowest_s,
         (unsigned long long)r->slowest);
  printf("crashes, hangs and memory events in our code: %llu inputs\n",
         (unsigned long long)r->blamed[MG_FUZZ_BLAME_OURS]);
  printf("  upstream on IR our passes produced: %llu; no stack: %llu; "
         "upstream parser (reported, not failing): %llu\n",
         (unsigned long long)r->blamed[MG_FUZZ_BLAME_UPSTREAM],
         (unsigned long long)r->blamed[MG_FUZZ_BLAME_UNKNOWN],
         (unsigned long long)r->blamed[MG_FUZZ_BLAME_PARSER]);
}

// SIGINT/SIGTERM: the first stops starting inputs (those running finish,
// so the table covers a contiguous range); the second kills them, and they
// are not counted.
static volatile sig_atomic_t interrupted;

static void on_signal(int sig) {
  (void)sig;
  interrupted = interrupted < 2 ? interrupted + 1 : 2;
}

/// The main mode: inputs [start, start + inputs) on `jobs` children.
static int fuzz(MgFuzzServer *s, const Options *opt, const MgFuzzCorpus *c) {
  size_t num_jobs = opt->jobs;
  MgFuzzJob jobs[MG_FUZZ_MAX_JOBS] = {{0}};
  MgFuzzInput inputs[MG_FUZZ_MAX_JOBS] = {{0}};
  Results r = {0};
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  double start = mg_fuzz_now();
  uint64_t next = opt->start, end = opt->start + opt->inputs;
  size_t active = 0;
  uint64_t lowest_abandoned = UINT64_MAX;
  bool ok = true;
  while (ok && (active || (next < end && !interrupted))) {
    for (size_t k = 0; k < num_jobs && next < end && !interrupted; ++k) {
      if (jobs[k].active)
        continue;
      ok = generate(c, opt->seed, next, &inputs[k]) &&
           mg_fuzz_job_start(s, &jobs[k], k, &inputs[k]);
      if (!ok)
        break;
      ++next;
      ++active;
    }
    if (!mg_fuzz_pump(s, jobs, num_jobs, 20))
      continue;
    for (size_t k = 0; k < num_jobs; ++k) {
      if (!jobs[k].active || !jobs[k].exited || jobs[k].fd >= 0)
        continue;
      Finished f = {&inputs[k], {0}, &jobs[k].err, 0,
                    s->phases[k] >= MG_FUZZ_PHASE_PASSES};
      bool abandoned = jobs[k].abandoned;
      mg_fuzz_job_finish(s, &jobs[k], k, &f.outcome, &f.seconds);
      --active;
      if (abandoned)
        lowest_abandoned = inputs[k].index < lowest_abandoned
                               ? inputs[k].index
                               : lowest_abandoned;
      else
        ok = ok && record(&r, opt, c, &f);
    }
    if (interrupted >= 2)
      for (size_t k = 0; k < num_jobs; ++k)
        if (jobs[k].active && !jobs[k].exited && !jobs[k].abandoned) {
          kill(-jobs[k].pid, SIGKILL);
          jobs[k].abandoned = true;
        }
  }
  print_table(&r, opt, c, mg_fuzz_now() - start);
  if (interrupted && lowest_abandoned == UINT64_MAX)
    printf("interrupted: inputs %llu..%llu done; the rest: --start=%llu\n",
           (unsigned long long)opt->start, (unsigned long long)(next - 1),
           (unsigned long long)next);
  else if (interrupted)
    printf("interrupted: %llu inputs done, from %llu; input %llu and some "
           "after it were stopped and not counted\n",
           (unsigned long long)r.done, (unsigned long long)opt->start,
           (unsigned long long)lowest_abandoned);
  for (size_t k = 0; k < MG_FUZZ_MAX_JOBS; ++k) {
    mg_fuzz_text_free(&jobs[k].err);
    mg_fuzz_text_free(&inputs[k].text);
  }
  free(r.sigs);
  return !ok ? 2 : failing(&r) || interrupted ? 1 : 0;
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

static void usage(FILE *out) {
  fprintf(
      out,
      "USAGE: mirage-fuzz [options] <corpus files or folders...>\n\n"
      "Mutates the .mlir seeds under the given paths and runs each mutant "
      "through a Mirage pipeline in a forked child, classifying its end\n"
      "(clean, diagnostic, crash, hang, memory) and blaming crashes on our "
      "code or upstream. Exit 1 when any crash, hang or memory event\n"
      "is not the upstream parser's.\n\n"
      "OPTIONS:\n"
      "  --seed=N        random seed (default 1)\n"
      "  --inputs=N      number of inputs (default 1000)\n"
      "  --start=N       index of the first input (default 0)\n"
      "  --jobs=N        children at a time (default 1, at most 64)\n"
      "  --timeout=S     wall-clock seconds per input (default 20)\n"
      "  --memory=MB     memory per input above the parent's (default 2048)\n"
      "  --leaks=WHEN    LeakSanitizer at exit: none, parsed (inputs that "
      "reached the passes; default), all\n"
      "  --save=DIR      write the first input of each signature and its "
      "stderr\n"
      "  --emit=I        print input I (with its origin) and exit\n"
      "  --run=FILE      run FILE through --pipeline, print its stderr and "
      "class\n"
      "  --reduce=FILE   shrink FILE keeping its failure (-o OUT)\n"
      "  --pipeline=P    for --run and --reduce (default lift):");
  for (size_t p = 0; p < MG_FUZZ_NUM_PIPELINES; ++p)
    fprintf(out, " %s", mg_fuzz_pipelines[p].name);
  fprintf(out, "\n  -v              one line per crash/hang/memory input; -vv "
               "every input\n");
}

static bool parse_uint(const char *text, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (!*text || *end || errno || text[0] == '-')
    return false;
  *out = v;
  return true;
}

static int parse_args(int argc, char **argv, Options *o) {
  *o = (Options){.seed = 1,
                 .inputs = 1000,
                 .jobs = 1,
                 .emit = -1,
                 .limits = {.timeout_s = 20, .memory_mb = 2048, .leaks = 1}};
  o->paths = calloc((size_t)argc, sizeof *o->paths);
  if (!o->paths)
    return 2;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = strchr(a, '=');
    v = v ? v + 1 : "";
    uint64_t n = 0;
    bool good = true;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return -1;
    } else if (!strncmp(a, "--seed=", 7)) {
      good = parse_uint(v, &o->seed);
    } else if (!strncmp(a, "--inputs=", 9)) {
      good = parse_uint(v, &o->inputs);
    } else if (!strncmp(a, "--start=", 8)) {
      good = parse_uint(v, &o->start);
    } else if (!strncmp(a, "--jobs=", 7)) {
      good = parse_uint(v, &n) && n >= 1 && n <= MG_FUZZ_MAX_JOBS;
      o->jobs = (unsigned)n;
    } else if (!strncmp(a, "--timeout=", 10)) {
      char *end;
      o->limits.timeout_s = strtod(v, &end);
      good = *v && !*end && o->limits.timeout_s > 0;
    } else if (!strncmp(a, "--memory=", 9)) {
      good = parse_uint(v, &o->limits.memory_mb) && o->limits.memory_mb > 0;
    } else if (!strncmp(a, "--save=", 7)) {
      o->save_dir = v;
    } else if (!strncmp(a, "--emit=", 7)) {
      good = parse_uint(v, &n);
      o->emit = (int64_t)n;
    } else if (!strncmp(a, "--run=", 6)) {
      o->run_file = v;
    } else if (!strncmp(a, "--reduce=", 9)) {
      o->reduce_file = v;
    } else if (!strcmp(a, "-o") && i + 1 < argc) {
      o->output = argv[++i];
    } else if (!strncmp(a, "--pipeline=", 11)) {
      int p = mg_fuzz_pipeline_find(v);
      good = p >= 0;
      o->pipeline = good ? (size_t)p : 0;
    } else if (!strncmp(a, "--leaks=", 8)) {
      good = !strcmp(v, "none") || !strcmp(v, "parsed") || !strcmp(v, "all");
      o->limits.leaks = !strcmp(v, "all") ? 2 : !strcmp(v, "parsed");
    } else if (!strcmp(a, "-v")) {
      o->verbose = 1;
    } else if (!strcmp(a, "-vv")) {
      o->verbose = 2;
    } else if (a[0] == '-') {
      fprintf(stderr, "mirage-fuzz: unknown option '%s' (see --help)\n", a);
      return 2;
    } else {
      o->paths[o->num_paths++] = argv[i];
    }
    if (!good) {
      fprintf(stderr, "mirage-fuzz: invalid value in '%s'\n", a);
      return 2;
    }
  }
  if (!o->num_paths && !o->run_file && !o->reduce_file) {
    fprintf(stderr, "mirage-fuzz: no corpus (see --help)\n");
    return 2;
  }
  return 0;
}

/// --emit: the mutant and where it came from, as comments.
static int emit(const Options *opt, const MgFuzzCorpus *c) {
  MgFuzzInput in = {0};
  if (!generate(c, opt->seed, (uint64_t)opt->emit, &in))
    return 2;
  char cmd[512];
  mg_fuzz_pipeline_command(in.pipeline, cmd, sizeof cmd);
  printf("// mirage-fuzz --seed=%llu --emit=%llu: %s, mutations: %s\n"
         "// pipeline %s: %s\n",
         (unsigned long long)opt->seed, (unsigned long long)opt->emit,
         c->origins[in.seed], in.mutations, mg_fuzz_pipelines[in.pipeline].name,
         cmd);
  fwrite(in.text.data, 1, in.text.len, stdout);
  mg_fuzz_text_free(&in.text);
  return 0;
}

int main(int argc, char **argv) {
  Options opt;
  int rc = parse_args(argc, argv, &opt);
  if (rc) {
    free(opt.paths);
    return rc < 0 ? 0 : rc;
  }
  unsetenv("MIRAGE_REMARKS"); // the passes read these (mirage-opt's flags)
  unsetenv("MIRAGE_PROGRESS");
  unsetenv("MIRAGE_STATS");
  MgFuzzCorpus corpus = {0};
  if (opt.num_paths &&
      !mg_fuzz_corpus_load(&corpus, opt.paths, opt.num_paths)) {
    free(opt.paths);
    return 2;
  }
  if (opt.emit >= 0) {
    rc = emit(&opt, &corpus);
  } else {
    if (opt.save_dir)
      mkdir(opt.save_dir, 0777);
    MgFuzzServer server;
    if (!mg_fuzz_server_init(&server, &opt.limits)) {
      rc = 2;
    } else if (opt.reduce_file) {
      rc = mg_fuzz_reduce(&server, opt.reduce_file, opt.pipeline, opt.output);
    } else if (opt.run_file) {
      rc = mg_fuzz_run_file(&server, opt.run_file, opt.pipeline);
    } else {
      rc = fuzz(&server, &opt, &corpus);
    }
    mg_fuzz_server_destroy(&server);
  }
  mg_fuzz_corpus_free(&corpus);
  free(opt.paths);
  return rc;
}

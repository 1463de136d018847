//===- main.c - mirage-fuzz: fuzz the Mirage passes with mutated inputs ---===//
//
// Sets up the MLIR context (every dialect loaded), the Mirage passes and
// one pass manager per pipeline ONCE, then for each input fork()s a child
// that parses the mutant and runs a pipeline through the same calls as
// mirage-opt (mg_tool_parse_module, mlirPassManagerRunOnOp, print). Start-up
// and context set-up are most of a mirage-opt run; the fork skips them.
//
// Invariant: the parent stays single-threaded and never runs a pass, so a
// fork copies no lock another thread holds (checked in /proc/self/task).
//
// Limits per child: RLIMIT_AS (the parent's address space plus --memory,
// which bounds the large allocations), RLIMIT_CPU (a backstop), and in the
// parent a wall-clock limit (--timeout) and a resident-set limit
// (--memory above the parent's), both enforced with SIGABRT (the sanitized
// build prints the stack, so the hang or the blow-up is attributed), then
// SIGKILL for the whole process group. Classes and blame: classify.c.
//
// Input i of seed s is always the same mutant of the same corpus: the seed
// text, the pipeline and 0-6 mutations come from a random state made from
// (s, i) only. --emit=i prints it, --run runs a file, --reduce shrinks one.
//
//===----------------------------------------------------------------------===//
#define _DEFAULT_SOURCE // MAP_ANONYMOUS, setpgid, kill

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"
#include "mirage/passes.h"
#include "mirage/tool.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

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

#ifndef MIRAGE_SOURCE_DIR
#define MIRAGE_SOURCE_DIR ""
#endif

// The search options every searching pipeline uses: a short budget, one
// thread, no cache, no PTX (upstream's NVPTX back end is not ours to fuzz).
#define SEARCH_OPTIONS "time-budget-s=0.05 cache=false threads=1"

/// A pipeline: up to two Mirage passes with their options.
typedef struct Pipeline {
  const char *name;
  const char *passes[2];
  const char *options[2];
  bool ugraph; // for seeds that hold μGraphs (ug.*) rather than TOSA/linalg
  unsigned weight;
} Pipeline;

static const Pipeline pipelines[] = {
    {"lift", {"mirage-lift"}, {""}, false, 45},
    {"superopt", {"mirage-superopt"}, {SEARCH_OPTIONS " ptx=false"}, false, 35},
    {"lift-unlift", {"mirage-lift", "mirage-unlift"}, {"", ""}, false, 10},
    {"lift-verify", {"mirage-lift", "mirage-verify-ugraph"}, {"", ""}, false, 10},
    {"verify-ugraph", {"mirage-verify-ugraph"}, {""}, true, 25},
    {"lower", {"mirage-lower"}, {"ptx=false"}, true, 25},
    {"search", {"mirage-search"}, {SEARCH_OPTIONS}, true, 20},
    {"cost", {"mirage-cost"}, {""}, true, 15},
    {"unlift", {"mirage-unlift"}, {""}, true, 15},
    {"test-bridge", {"mirage-test-bridge"}, {""}, true, 15},
};
#define NUM_PIPELINES (sizeof pipelines / sizeof *pipelines)

typedef struct Options {
  uint64_t seed, start, inputs;
  unsigned jobs;
  double timeout_s;
  uint64_t memory_mb;
  const char *save_dir;
  const char *run_file, *reduce_file, *output, *pipeline;
  int64_t emit;
  int verbose;
  int leaks; // LeakSanitizer at a child's exit: 0 never, 1 parsed inputs, 2 all
  char **paths;
  size_t num_paths;
} Options;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// One input: the mutant, its seed, pipeline and mutations.
typedef struct Input {
  uint64_t index;
  size_t seed;
  size_t pipeline;
  MgFuzzText text;
  char mutations[256];
} Input;

static bool is_ugraph_seed(const MgFuzzText *t) {
  return strstr(t->data, "ug.") != NULL;
}

/// Input `index` of `seed`: deterministic in (seed, index, corpus).
static bool generate(const MgFuzzCorpus *c, uint64_t seed, uint64_t index,
                     Input *in) {
  uint64_t mix = seed;
  uint64_t rng = mg_fuzz_rand(&mix) ^ (index * 0xd1342543de82ef95ull);
  mg_fuzz_rand(&rng);
  in->index = index;
  in->seed = mg_fuzz_below(&rng, c->num_seeds);
  const MgFuzzText *s = &c->seeds[in->seed];
  bool ugraph = is_ugraph_seed(s);
  unsigned total = 0;
  for (size_t p = 0; p < NUM_PIPELINES; ++p)
    total += pipelines[p].ugraph == ugraph ? pipelines[p].weight : 0;
  uint64_t w = mg_fuzz_below(&rng, total);
  for (size_t p = 0; p < NUM_PIPELINES; ++p) {
    if (pipelines[p].ugraph != ugraph)
      continue;
    if (w < pipelines[p].weight) {
      in->pipeline = p;
      break;
    }
    w -= pipelines[p].weight;
  }
  in->text.len = 0;
  if (!mg_fuzz_text_append(&in->text, s->data, s->len))
    return false;
  // 1 in 32: the seed as it is; else mostly 1-2 mutations, sometimes 3-6.
  uint64_t r = mg_fuzz_below(&rng, 32);
  unsigned count = r == 0 ? 0 : r < 20 ? 1 : r < 28 ? 2 : 3 + (unsigned)mg_fuzz_below(&rng, 4);
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

/// The mirage-opt command line that runs pipeline `p`.
static void command_line(size_t p, char *buf, size_t size) {
  size_t n = (size_t)snprintf(buf, size, "mirage-opt");
  for (size_t i = 0; i < 2 && pipelines[p].passes[i] && n < size; ++i)
    n += (size_t)snprintf(buf + n, size - n,
                          pipelines[p].options[i][0] ? " --%s=\"%s\"" : " --%s",
                          pipelines[p].passes[i], pipelines[p].options[i]);
}

//===----------------------------------------------------------------------===//
// The fork server
//===----------------------------------------------------------------------===//

// SIGCHLD writes a byte here, so that poll() wakes when a child exits
// (its stderr reaches EOF a moment before it can be reaped).
static int sigchld_pipe[2] = {-1, -1};

static void on_sigchld(int sig) {
  (void)sig;
  int saved = errno;
  if (write(sigchld_pipe[1], "", 1) < 0) {
    // full: a wake-up is pending anyway
  }
  errno = saved;
}

typedef struct Server {
  MlirContext ctx;
  MlirPassManager pms[NUM_PIPELINES];
  int errors; // counted by the diagnostic handler (each child its own copy)
  volatile unsigned char *phases; // one per job slot, shared with children
  int devnull;
  long page_size;
  uint64_t parent_rss; // bytes
  const Options *opt;
} Server;

/// Field `field` (0: size, 1: resident) of /proc/<pid>/statm, in bytes.
static uint64_t statm(pid_t pid, int field, long page_size) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  unsigned long long v[2] = {0, 0};
  int n = fscanf(f, "%llu %llu", &v[0], &v[1]);
  fclose(f);
  return n == 2 ? v[field] * (uint64_t)page_size : 0;
}

static size_t count_threads(void) {
  DIR *d = opendir("/proc/self/task");
  size_t n = 0;
  if (!d)
    return 1;
  struct dirent *e;
  while ((e = readdir(d)))
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static bool server_init(Server *s, const Options *opt) {
  *s = (Server){.opt = opt, .devnull = -1};
  s->page_size = sysconf(_SC_PAGESIZE);
  s->ctx = mg_tool_context_create(&s->errors);
  if (mlirContextIsNull(s->ctx))
    return false;
  // Children then load nothing; loading a dialect on first use would cost
  // every child the same time again.
  mlirContextLoadAllAvailableDialects(s->ctx);
  for (size_t p = 0; p < NUM_PIPELINES; ++p) {
    s->pms[p] = mlirPassManagerCreate(s->ctx);
    for (size_t i = 0; i < 2 && pipelines[p].passes[i]; ++i) {
      char error[512];
      if (!mg_passes_add(mlirPassManagerGetAsOpPassManager(s->pms[p]),
                         pipelines[p].passes[i],
                         mlirStringRefCreateFromCString(pipelines[p].options[i]),
                         error, sizeof error)) {
        fprintf(stderr, "mirage-fuzz: pipeline %s: %s\n", pipelines[p].name,
                error);
        return false;
      }
    }
  }
  s->phases = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (s->phases == MAP_FAILED) {
    s->phases = NULL;
    fprintf(stderr, "mirage-fuzz: mmap: %s\n", strerror(errno));
    return false;
  }
  s->devnull = open("/dev/null", O_RDWR);
  if (pipe(sigchld_pipe)) {
    fprintf(stderr, "mirage-fuzz: pipe: %s\n", strerror(errno));
    return false;
  }
  fcntl(sigchld_pipe[0], F_SETFL, O_NONBLOCK);
  fcntl(sigchld_pipe[1], F_SETFL, O_NONBLOCK);
  struct sigaction sa = {.sa_handler = on_sigchld, .sa_flags = SA_RESTART};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, NULL);
  size_t threads = count_threads();
  if (threads != 1) {
    fprintf(stderr, "mirage-fuzz: %zu threads before the first fork (must be "
                    "1)\n", threads);
    return false;
  }
  s->parent_rss = statm(getpid(), 1, s->page_size);
  return s->devnull >= 0;
}

static void server_destroy(Server *s) {
  for (size_t p = 0; p < NUM_PIPELINES; ++p)
    if (s->pms[p].ptr)
      mlirPassManagerDestroy(s->pms[p]);
  if (!mlirContextIsNull(s->ctx))
    mlirContextDestroy(s->ctx);
  if (s->phases)
    munmap((void *)s->phases, 4096);
  if (s->devnull >= 0)
    close(s->devnull);
  signal(SIGCHLD, SIG_DFL);
  for (int i = 0; i < 2; ++i)
    if (sigchld_pipe[i] >= 0)
      close(sigchld_pipe[i]);
}

/// Ends a child: exit() runs LeakSanitizer (in the sanitized build), which
/// doubles the cost of an input; _exit() skips it.
static void child_exit(Server *s, int code, bool check_leaks) {
  (void)s;
  if (check_leaks)
    exit(code);
  fflush(stdout);
  fflush(stderr);
  _exit(code);
}

/// The child: what mirage-opt's process() does, phase by phase. Never
/// returns.
static void child_run(Server *s, size_t slot, const Input *in, int err_fd) {
  volatile unsigned char *phase = &s->phases[slot];
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGCHLD, SIG_DFL);
  close(sigchld_pipe[0]);
  close(sigchld_pipe[1]);
  setpgid(0, 0);
  dup2(err_fd, 2);
  dup2(s->devnull, 1);
  dup2(s->devnull, 0);
  close(err_fd);
  uint64_t mem = s->opt->memory_mb << 20;
  uint64_t now_as = statm(getpid(), 0, s->page_size);
  struct rlimit as = {now_as + mem, now_as + mem};
  setrlimit(RLIMIT_AS, &as);
  rlim_t cpu = (rlim_t)(2 * s->opt->timeout_s) + 10;
  struct rlimit cpu_limit = {cpu, cpu + 5}, core = {0, 0};
  setrlimit(RLIMIT_CPU, &cpu_limit);
  setrlimit(RLIMIT_CORE, &core);

  const char *name = "input.mlir";
  *phase = MG_FUZZ_PHASE_PARSE;
  int before = s->errors;
  MlirOperation module =
      mg_tool_parse_module(s->ctx, in->text.data, in->text.len, name);
  if (mlirOperationIsNull(module)) {
    if (s->errors == before)
      fprintf(stderr, "%s: error: could not parse the input\n", name);
    // The phase stays "parse": the input never reached a pass.
    child_exit(s, 1, s->opt->leaks >= 2);
  }
  *phase = MG_FUZZ_PHASE_PASSES;
  bool ok = mlirLogicalResultIsSuccess(
      mlirPassManagerRunOnOp(s->pms[in->pipeline], module));
  if (!ok && s->errors == before)
    fprintf(stderr, "%s: error: pass pipeline failed\n", name);
  if (ok) {
    *phase = MG_FUZZ_PHASE_PRINT;
    MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
    mlirOperationPrintWithFlags(module, flags, mg_tool_print_chunk, stdout);
    mlirOpPrintingFlagsDestroy(flags);
    fflush(stdout);
  }
  mlirOperationDestroy(module);
  *phase = MG_FUZZ_PHASE_EXIT;
  child_exit(s, ok ? 0 : 1, s->opt->leaks >= 1);
}

/// A running child.
typedef struct Job {
  bool active;
  pid_t pid;
  int fd;      // read end of its stderr; -1 at EOF
  bool exited; // reaped; `status` is valid
  int status;
  double started, signalled, exited_at;
  MgFuzzKill kill;
  Input *input; // owned by the caller
  MgFuzzText err;
} Job;

// Enough for any report; a diagnostic storm keeps its head and its tail.
#define ERR_CAP (4u << 20)
#define ERR_HEAD (64u << 10)

static void append_err(Job *j, const char *buf, size_t n) {
  if (j->err.len + n > ERR_CAP) {
    static const char cut[] = "\n[... cut by mirage-fuzz ...]\n";
    size_t keep = ERR_CAP / 2;
    if (j->err.len > ERR_HEAD + keep) {
      size_t drop = j->err.len - ERR_HEAD - keep;
      mg_fuzz_text_replace(&j->err, ERR_HEAD, drop, cut, sizeof cut - 1);
    }
  }
  mg_fuzz_text_append(&j->err, buf, n);
}

static bool job_start(Server *s, Job *j, size_t slot, Input *in) {
  int fds[2];
  if (pipe(fds)) {
    fprintf(stderr, "mirage-fuzz: pipe: %s\n", strerror(errno));
    return false;
  }
  s->phases[slot] = MG_FUZZ_PHASE_START;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "mirage-fuzz: fork: %s\n", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {
    close(fds[0]);
    child_run(s, slot, in, fds[1]);
  }
  setpgid(pid, pid); // also in the child: whichever runs first
  close(fds[1]);
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  j->active = true;
  j->pid = pid;
  j->fd = fds[0];
  j->exited = false;
  j->status = 0;
  j->started = now_s();
  j->signalled = j->exited_at = 0;
  j->kill = MG_FUZZ_KILL_NONE;
  j->input = in;
  j->err.len = 0;
  return true;
}

static void drain(Job *j) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(j->fd, buf, sizeof buf);
    if (n > 0) {
      append_err(j, buf, (size_t)n);
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      close(j->fd);
      j->fd = -1;
    }
    return;
  }
}

// Seconds a child has after SIGABRT (to print and symbolize its stack)
// before SIGKILL, and after its exit for its stderr to reach EOF.
#define GRACE_S 10.0

/// Waits up to `wait_ms` for output or an exit, then checks limits and
/// exits. True when some job finished (exited and its stderr at EOF).
static bool pump(Server *s, Job *jobs, size_t num_jobs, int wait_ms) {
  struct pollfd fds[65];
  size_t map[65], n = 0;
  fds[n] = (struct pollfd){.fd = sigchld_pipe[0], .events = POLLIN};
  map[n++] = SIZE_MAX;
  for (size_t i = 0; i < num_jobs && n < 65; ++i)
    if (jobs[i].active && jobs[i].fd >= 0) {
      fds[n] = (struct pollfd){.fd = jobs[i].fd, .events = POLLIN};
      map[n++] = i;
    }
  if (poll(fds, n, wait_ms) > 0) {
    for (size_t k = 0; k < n; ++k) {
      if (!fds[k].revents)
        continue;
      if (map[k] == SIZE_MAX) {
        char buf[64];
        while (read(sigchld_pipe[0], buf, sizeof buf) > 0)
          ;
      } else {
        drain(&jobs[map[k]]);
      }
    }
  }
  double t = now_s();
  bool finished = false;
  for (size_t i = 0; i < num_jobs; ++i) {
    Job *j = &jobs[i];
    if (!j->active)
      continue;
    if (!j->exited) {
      pid_t r = waitpid(j->pid, &j->status, WNOHANG);
      if (r == j->pid) {
        j->exited = true;
        j->exited_at = t;
      }
    }
    if (j->exited) {
      if (j->fd >= 0 && t - j->exited_at > GRACE_S) {
        kill(-j->pid, SIGKILL); // a grandchild holding the pipe
        close(j->fd);
        j->fd = -1;
      }
      finished |= j->fd < 0;
      continue;
    }
    if (j->kill == MG_FUZZ_KILL_NONE) {
      uint64_t rss = statm(j->pid, 1, s->page_size);
      if (t - j->started > s->opt->timeout_s)
        j->kill = MG_FUZZ_KILL_TIME;
      else if (rss > s->parent_rss + (s->opt->memory_mb << 20))
        j->kill = MG_FUZZ_KILL_MEMORY;
      if (j->kill != MG_FUZZ_KILL_NONE) {
        kill(j->pid, SIGABRT);
        j->signalled = t;
      }
    } else if (t - j->signalled > GRACE_S) {
      kill(-j->pid, SIGKILL);
      kill(j->pid, SIGKILL);
    }
  }
  return finished;
}

/// Classifies a finished job and frees its slot.
static void job_finish(Server *s, Job *j, size_t slot, MgFuzzOutcome *out,
                       double *seconds) {
  mg_fuzz_classify(j->status, j->err.data ? j->err.data : "", j->err.len,
                   (MgFuzzPhase)s->phases[slot], j->kill, MIRAGE_SOURCE_DIR,
                   out);
  *seconds = (j->exited_at ? j->exited_at : now_s()) - j->started;
  j->active = false;
}

/// Runs one input to its end (for --run and --reduce).
static bool run_one(Server *s, Input *in, MgFuzzOutcome *out,
                    MgFuzzText *err) {
  Job job = {0};
  if (!job_start(s, &job, 0, in))
    return false;
  while (!pump(s, &job, 1, 20))
    ;
  double seconds;
  job_finish(s, &job, 0, out, &seconds);
  if (err) {
    mg_fuzz_text_free(err);
    *err = job.err;
  } else {
    mg_fuzz_text_free(&job.err);
  }
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
  uint64_t counts[NUM_PIPELINES][MG_FUZZ_CLASS_COUNT];
  uint64_t parsed[NUM_PIPELINES]; // inputs that reached the passes
  uint64_t blamed[MG_FUZZ_BLAME_COUNT]; // inputs per blame
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
                       const Input *in, const MgFuzzOutcome *o,
                       const MgFuzzText *err) {
  char base[512], path[600], cmd[512];
  snprintf(base, sizeof base, "%s/%s-%s-%016llx", opt->save_dir,
           mg_fuzz_blame_names[o->blame], mg_fuzz_class_names[o->cls],
           (unsigned long long)hash_string(o->signature));
  command_line(in->pipeline, cmd, sizeof cmd);
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

static bool record(Results *r, const Options *opt, const MgFuzzCorpus *c,
                   const Input *in, const MgFuzzOutcome *o,
                   const MgFuzzText *err, double seconds, bool parsed) {
  ++r->done;
  r->parsed[in->pipeline] += parsed;
  ++r->counts[in->pipeline][o->cls];
  ++r->blamed[o->blame];
  if (seconds > r->slowest_s) {
    r->slowest_s = seconds;
    r->slowest = in->index;
  }
  if (opt->verbose >= 2 ||
      (opt->verbose && o->blame != MG_FUZZ_BLAME_NONE)) {
    // -vv: a diagnostic's first error line says what the mutant broke.
    const char *e = err->data ? strstr(err->data, "error: ") : NULL;
    int n = e ? (int)strcspn(e, "\n") : 0;
    printf("input %llu (%s, %s; %s): %s%s%s%s%s%s%s%.*s\n",
           (unsigned long long)in->index, c->origins[in->seed],
           pipelines[in->pipeline].name, in->mutations,
           parsed ? "parsed, " : "", mg_fuzz_class_names[o->cls], o->signature[0] ? " [" : "",
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
  *g = (Signature){.outcome = *o, .count = 1, .first = in->index,
                   .seed = in->seed, .pipeline = in->pipeline};
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
         opt->timeout_s, (unsigned long long)opt->memory_mb);
  printf("corpus: %zu files, %zu seeds, %zu op names\n", c->num_files,
         c->num_seeds, c->num_op_names);
  printf("%-14s %8s %8s", "pipeline", "inputs", "parsed");
  for (size_t k = 0; k < MG_FUZZ_CLASS_COUNT; ++k)
    printf(" %10s", mg_fuzz_class_names[k]);
  printf("\n");
  uint64_t total[MG_FUZZ_CLASS_COUNT] = {0}, parsed = 0;
  for (size_t p = 0; p < NUM_PIPELINES; ++p) {
    uint64_t n = 0;
    for (size_t k = 0; k < MG_FUZZ_CLASS_COUNT; ++k)
      n += r->counts[p][k], total[k] += r->counts[p][k];
    parsed += r->parsed[p];
    printf("%-14s %8llu %8llu", pipelines[p].name, (unsigned long long)n,
           (unsigned long long)r->parsed[p]);
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
  printf("distinct crash/hang/memory signatures: ours %zu, upstream parser %zu, "
         "upstream on our output %zu, no stack %zu\n",
         per_blame[MG_FUZZ_BLAME_OURS], per_blame[MG_FUZZ_BLAME_PARSER],
         per_blame[MG_FUZZ_BLAME_UPSTREAM], per_blame[MG_FUZZ_BLAME_UNKNOWN]);
  for (size_t i = 0; i < r->num_sigs; ++i) {
    const Signature *g = &r->sigs[i];
    printf("  [%s] %s: %s\n      %llu inputs; first: --emit=%llu (%s, %s; %s)\n",
           mg_fuzz_blame_names[g->outcome.blame],
           mg_fuzz_class_names[g->outcome.cls], g->outcome.signature,
           (unsigned long long)g->count, (unsigned long long)g->first,
           c->origins[g->seed], pipelines[g->pipeline].name, g->mutations);
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

static volatile sig_atomic_t interrupted;

static void on_signal(int sig) {
  (void)sig;
  interrupted = 1;
}

/// The main mode: inputs [start, start + inputs) on `jobs` children.
static int fuzz(Server *s, const Options *opt, const MgFuzzCorpus *c) {
  size_t num_jobs = opt->jobs;
  Job jobs[64] = {{0}};
  Input inputs[64] = {{0}};
  Results r = {0};
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  double start = now_s();
  uint64_t next = opt->start, end = opt->start + opt->inputs;
  size_t active = 0;
  bool ok = true;
  while (ok && (active || (next < end && !interrupted))) {
    for (size_t k = 0; k < num_jobs && next < end && !interrupted; ++k) {
      if (jobs[k].active)
        continue;
      ok = generate(c, opt->seed, next, &inputs[k]) &&
           job_start(s, &jobs[k], k, &inputs[k]);
      if (!ok)
        break;
      ++next;
      ++active;
    }
    if (!pump(s, jobs, num_jobs, 20))
      continue;
    for (size_t k = 0; k < num_jobs; ++k) {
      if (!jobs[k].active || !jobs[k].exited || jobs[k].fd >= 0)
        continue;
      MgFuzzOutcome o;
      double seconds;
      bool parsed = s->phases[k] >= MG_FUZZ_PHASE_PASSES;
      job_finish(s, &jobs[k], k, &o, &seconds);
      --active;
      ok = ok && record(&r, opt, c, &inputs[k], &o, &jobs[k].err, seconds,
                        parsed);
    }
    if (interrupted)
      for (size_t k = 0; k < num_jobs; ++k)
        if (jobs[k].active && !jobs[k].exited)
          kill(-jobs[k].pid, SIGKILL);
  }
  print_table(&r, opt, c, now_s() - start);
  if (interrupted)
    printf("interrupted after %llu inputs\n", (unsigned long long)r.done);
  for (size_t k = 0; k < 64; ++k) {
    mg_fuzz_text_free(&jobs[k].err);
    mg_fuzz_text_free(&inputs[k].text);
  }
  free(r.sigs);
  return !ok ? 2 : failing(&r) || interrupted ? 1 : 0;
}

//===----------------------------------------------------------------------===//
// One file: --run and --reduce
//===----------------------------------------------------------------------===//

static bool read_input(const char *path, Input *in) {
  size_t len = 0;
  char *text = mg_tool_read_file(path, &len);
  if (!text) {
    fprintf(stderr, "mirage-fuzz: cannot read '%s': %s\n", path,
            strerror(errno ? errno : EIO));
    return false;
  }
  bool ok = mg_fuzz_text_append(&in->text, text, len);
  free(text);
  return ok;
}

static bool same_failure(const MgFuzzOutcome *a, const MgFuzzOutcome *b) {
  if (a->cls != b->cls || a->blame != b->blame)
    return false;
  // A hang's stack is wherever it was when stopped.
  return a->cls == MG_FUZZ_CLASS_HANG || !strcmp(a->signature, b->signature);
}

/// Tries `candidate` in place of `in`; keeps it when it fails the same way.
static bool try_candidate(Server *s, Input *in, MgFuzzText *candidate,
                          const MgFuzzOutcome *want, unsigned *runs) {
  Input trial = *in;
  trial.text = *candidate;
  MgFuzzOutcome o;
  ++*runs;
  if (!run_one(s, &trial, &o, NULL) || !same_failure(&o, want))
    return false;
  MgFuzzText old = in->text;
  in->text = *candidate;
  *candidate = old;
  return true;
}

/// Line ranges [begin, end) of `t` split into `parts` pieces of whole lines.
static size_t line_offsets(const MgFuzzText *t, size_t *offsets, size_t max) {
  size_t n = 0;
  offsets[n++] = 0;
  for (size_t i = 0; i < t->len && n < max; ++i)
    if (t->data[i] == '\n')
      offsets[n++] = i + 1;
  if (offsets[n - 1] != t->len && n < max)
    offsets[n++] = t->len;
  return n;
}

/// Delta debugging over lines, then over whitespace-separated tokens.
static int reduce(Server *s, const Options *opt) {
  Input in = {.pipeline = 0};
  for (size_t p = 0; p < NUM_PIPELINES; ++p)
    if (!strcmp(pipelines[p].name, opt->pipeline))
      in.pipeline = p;
  if (!read_input(opt->reduce_file, &in))
    return 2;
  MgFuzzOutcome want;
  if (!run_one(s, &in, &want, NULL))
    return 2;
  if (want.blame == MG_FUZZ_BLAME_NONE) {
    fprintf(stderr, "mirage-fuzz: '%s' ends %s under %s: nothing to reduce\n",
            opt->reduce_file, mg_fuzz_class_names[want.cls],
            pipelines[in.pipeline].name);
    mg_fuzz_text_free(&in.text);
    return 1;
  }
  fprintf(stderr, "reducing: %s [%s] %s\n", mg_fuzz_class_names[want.cls],
          mg_fuzz_blame_names[want.blame], want.signature);
  unsigned runs = 0;
  MgFuzzText cand = {0};
  static size_t offsets[1 << 16];
  for (size_t parts = 2;;) {
    size_t lines = line_offsets(&in.text, offsets, 1 << 16) - 1;
    if (lines < 2)
      break;
    if (parts > lines)
      parts = lines;
    bool removed = false;
    for (size_t k = 0; k < parts && !removed; ++k) {
      size_t b = offsets[k * lines / parts], e = offsets[(k + 1) * lines / parts];
      cand.len = 0;
      mg_fuzz_text_append(&cand, in.text.data, b);
      mg_fuzz_text_append(&cand, in.text.data + e, in.text.len - e);
      removed = try_candidate(s, &in, &cand, &want, &runs);
    }
    if (removed)
      parts = parts > 2 ? parts - 1 : 2;
    else if (parts == lines)
      break;
    else
      parts = 2 * parts < lines ? 2 * parts : lines;
  }
  // Tokens: each run of non-blank bytes, last to first.
  for (size_t end = in.text.len; end > 0;) {
    while (end > 0 && (in.text.data[end - 1] == ' ' ||
                       in.text.data[end - 1] == '\n'))
      --end;
    size_t begin = end;
    while (begin > 0 && in.text.data[begin - 1] != ' ' &&
           in.text.data[begin - 1] != '\n')
      --begin;
    if (begin == end)
      break;
    cand.len = 0;
    mg_fuzz_text_append(&cand, in.text.data, begin);
    mg_fuzz_text_append(&cand, in.text.data + end, in.text.len - end);
    try_candidate(s, &in, &cand, &want, &runs);
    end = begin < in.text.len ? begin : in.text.len;
  }
  fprintf(stderr, "reduced to %zu bytes in %u runs\n", in.text.len, runs);
  FILE *out = opt->output ? fopen(opt->output, "w") : stdout;
  if (out) {
    fwrite(in.text.data, 1, in.text.len, out);
    if (out != stdout)
      fclose(out);
  }
  mg_fuzz_text_free(&cand);
  mg_fuzz_text_free(&in.text);
  return out ? 0 : 2;
}

/// --run: one file through one pipeline; prints the class and stderr.
static int run_file(Server *s, const Options *opt) {
  Input in = {.pipeline = 0};
  for (size_t p = 0; p < NUM_PIPELINES; ++p)
    if (!strcmp(pipelines[p].name, opt->pipeline))
      in.pipeline = p;
  if (!read_input(opt->run_file, &in))
    return 2;
  MgFuzzOutcome o;
  MgFuzzText err = {0};
  bool ok = run_one(s, &in, &o, &err);
  if (ok) {
    fwrite(err.data ? err.data : "", 1, err.len, stdout);
    printf("mirage-fuzz: %s under %s: %s%s%s%s%s\n", opt->run_file,
           pipelines[in.pipeline].name, mg_fuzz_class_names[o.cls],
           o.signature[0] ? " [" : "",
           o.signature[0] ? mg_fuzz_blame_names[o.blame] : "",
           o.signature[0] ? "] " : "", o.signature);
  }
  mg_fuzz_text_free(&err);
  mg_fuzz_text_free(&in.text);
  return !ok ? 2 : o.blame == MG_FUZZ_BLAME_NONE ? 0 : 1;
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

static void usage(FILE *out) {
  fprintf(out,
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
  for (size_t p = 0; p < NUM_PIPELINES; ++p)
    fprintf(out, " %s", pipelines[p].name);
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
  *o = (Options){.seed = 1, .inputs = 1000, .jobs = 1, .timeout_s = 20,
                 .memory_mb = 2048, .emit = -1, .pipeline = "lift",
                 .leaks = 1};
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
      good = parse_uint(v, &n) && n >= 1 && n <= 64;
      o->jobs = (unsigned)n;
    } else if (!strncmp(a, "--timeout=", 10)) {
      char *end;
      o->timeout_s = strtod(v, &end);
      good = *v && !*end && o->timeout_s > 0;
    } else if (!strncmp(a, "--memory=", 9)) {
      good = parse_uint(v, &o->memory_mb) && o->memory_mb > 0;
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
      good = false;
      for (size_t p = 0; p < NUM_PIPELINES; ++p)
        good |= !strcmp(pipelines[p].name, v);
      o->pipeline = v;
    } else if (!strncmp(a, "--leaks=", 8)) {
      good = !strcmp(v, "none") || !strcmp(v, "parsed") || !strcmp(v, "all");
      o->leaks = !strcmp(v, "all") ? 2 : !strcmp(v, "parsed");
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
  Input in = {0};
  if (!generate(c, opt->seed, (uint64_t)opt->emit, &in))
    return 2;
  char cmd[512];
  command_line(in.pipeline, cmd, sizeof cmd);
  printf("// mirage-fuzz --seed=%llu --emit=%llu: %s, mutations: %s\n"
         "// pipeline %s: %s\n",
         (unsigned long long)opt->seed, (unsigned long long)opt->emit,
         c->origins[in.seed], in.mutations, pipelines[in.pipeline].name, cmd);
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
  if (opt.num_paths && !mg_fuzz_corpus_load(&corpus, opt.paths, opt.num_paths)) {
    free(opt.paths);
    return 2;
  }
  if (opt.emit >= 0) {
    rc = emit(&opt, &corpus);
  } else {
    if (opt.save_dir)
      mkdir(opt.save_dir, 0777);
    Server server;
    if (!server_init(&server, &opt)) {
      rc = 2;
    } else if (opt.reduce_file) {
      rc = reduce(&server, &opt);
    } else if (opt.run_file) {
      rc = run_file(&server, &opt);
    } else {
      rc = fuzz(&server, &opt, &corpus);
    }
    server_destroy(&server);
  }
  mg_fuzz_corpus_free(&corpus);
  free(opt.paths);
  return rc;
}

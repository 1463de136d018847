//===- server.c - mirage-fuzz: the fork server ------------------------===//
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
// Limits per child: RLIMIT_AS (its address space at the fork plus the
// memory limit, which bounds the large allocations), RLIMIT_CPU (a
// backstop), and in the parent a wall-clock limit and a resident-set limit
// (the memory limit above the parent's), both enforced with SIGABRT (the
// sanitized build prints the stack, so the hang or the blow-up is
// attributed), then SIGKILL for the whole process group.
//
//===----------------------------------------------------------------------===//
#define _DEFAULT_SOURCE // MAP_ANONYMOUS, setpgid, kill

#include "server.h"

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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mirage/passes.h"
#include "mirage/tool.h"

#ifndef MIRAGE_SOURCE_DIR
#define MIRAGE_SOURCE_DIR ""
#endif

// The search options every searching pipeline uses: a short budget, one
// thread, no cache, no PTX (upstream's NVPTX back end is not ours to fuzz).
#define SEARCH_OPTIONS "time-budget-s=0.05 cache=false threads=1"

// clang-format off
const MgFuzzPipeline mg_fuzz_pipelines[MG_FUZZ_NUM_PIPELINES] = {
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
// clang-format on

int mg_fuzz_pipeline_find(const char *name) {
  for (size_t p = 0; p < MG_FUZZ_NUM_PIPELINES; ++p)
    if (!strcmp(mg_fuzz_pipelines[p].name, name))
      return (int)p;
  return -1;
}

void mg_fuzz_pipeline_command(size_t p, char *buf, size_t size) {
  size_t n = (size_t)snprintf(buf, size, "mirage-opt");
  for (size_t i = 0; i < 2 && mg_fuzz_pipelines[p].passes[i] && n < size; ++i)
    n += (size_t)snprintf(
        buf + n, size - n,
        mg_fuzz_pipelines[p].options[i][0] ? " --%s=\"%s\"" : " --%s",
        mg_fuzz_pipelines[p].passes[i], mg_fuzz_pipelines[p].options[i]);
}

double mg_fuzz_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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

bool mg_fuzz_server_init(MgFuzzServer *s, const MgFuzzLimits *limits) {
  *s = (MgFuzzServer){.limits = *limits, .devnull = -1};
  s->page_size = sysconf(_SC_PAGESIZE);
  s->ctx = mg_tool_context_create(&s->errors);
  if (mlirContextIsNull(s->ctx))
    return false;
  // Children then load nothing; loading a dialect on first use would cost
  // every child the same time again.
  mlirContextLoadAllAvailableDialects(s->ctx);
  for (size_t p = 0; p < MG_FUZZ_NUM_PIPELINES; ++p) {
    s->pms[p] = mlirPassManagerCreate(s->ctx);
    for (size_t i = 0; i < 2 && mg_fuzz_pipelines[p].passes[i]; ++i) {
      char error[512];
      if (!mg_passes_add(
              mlirPassManagerGetAsOpPassManager(s->pms[p]),
              mg_fuzz_pipelines[p].passes[i],
              mlirStringRefCreateFromCString(mg_fuzz_pipelines[p].options[i]),
              error, sizeof error)) {
        fprintf(stderr, "mirage-fuzz: pipeline %s: %s\n",
                mg_fuzz_pipelines[p].name, error);
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
    fprintf(stderr,
            "mirage-fuzz: %zu threads before the first fork (must be "
            "1)\n",
            threads);
    return false;
  }
  s->parent_rss = statm(getpid(), 1, s->page_size);
  return s->devnull >= 0;
}

void mg_fuzz_server_destroy(MgFuzzServer *s) {
  for (size_t p = 0; p < MG_FUZZ_NUM_PIPELINES; ++p)
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
static void child_exit(MgFuzzServer *s, int code, bool check_leaks) {
  (void)s;
  if (check_leaks)
    exit(code);
  fflush(stdout);
  fflush(stderr);
  _exit(code);
}

/// The child: what mirage-opt's process() does, phase by phase. Never
/// returns.
static void child_run(MgFuzzServer *s, size_t slot, const MgFuzzInput *in,
                      int err_fd) {
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
  uint64_t mem = s->limits.memory_mb << 20;
  uint64_t now_as = statm(getpid(), 0, s->page_size);
  struct rlimit as = {now_as + mem, now_as + mem};
  setrlimit(RLIMIT_AS, &as);
  rlim_t cpu = (rlim_t)(2 * s->limits.timeout_s) + 10;
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
    child_exit(s, 1, s->limits.leaks >= 2);
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
  child_exit(s, ok ? 0 : 1, s->limits.leaks >= 1);
}

// Enough for any report; a diagnostic storm keeps its head and its tail.
#define ERR_CAP (4u << 20)
#define ERR_HEAD (64u << 10)

static void append_err(MgFuzzJob *j, const char *buf, size_t n) {
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

bool mg_fuzz_job_start(MgFuzzServer *s, MgFuzzJob *j, size_t slot,
                       MgFuzzInput *in) {
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
  j->started = mg_fuzz_now();
  j->signalled = j->exited_at = 0;
  j->kill = MG_FUZZ_KILL_NONE;
  j->abandoned = false;
  j->input = in;
  j->err.len = 0;
  return true;
}

static void drain(MgFuzzJob *j) {
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
bool mg_fuzz_pump(MgFuzzServer *s, MgFuzzJob *jobs, size_t num_jobs,
                  int wait_ms) {
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
  double t = mg_fuzz_now();
  bool finished = false;
  for (size_t i = 0; i < num_jobs; ++i) {
    MgFuzzJob *j = &jobs[i];
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
      if (t - j->started > s->limits.timeout_s)
        j->kill = MG_FUZZ_KILL_TIME;
      else if (rss > s->parent_rss + (s->limits.memory_mb << 20))
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
void mg_fuzz_job_finish(MgFuzzServer *s, MgFuzzJob *j, size_t slot,
                        MgFuzzOutcome *out, double *seconds) {
  MgFuzzEnd end = {j->status, j->err.data ? j->err.data : "", j->err.len,
                   (MgFuzzPhase)s->phases[slot], j->kill};
  mg_fuzz_classify(&end, MIRAGE_SOURCE_DIR, out);
  *seconds = (j->exited_at ? j->exited_at : mg_fuzz_now()) - j->started;
  j->active = false;
}

/// Runs one input to its end (for --run and --reduce).
bool mg_fuzz_run_one(MgFuzzServer *s, MgFuzzInput *in, MgFuzzOutcome *out,
                     MgFuzzText *err) {
  MgFuzzJob job = {0};
  if (!mg_fuzz_job_start(s, &job, 0, in))
    return false;
  while (!mg_fuzz_pump(s, &job, 1, 20))
    ;
  double seconds;
  mg_fuzz_job_finish(s, &job, 0, out, &seconds);
  if (err) {
    mg_fuzz_text_free(err);
    *err = job.err;
  } else {
    mg_fuzz_text_free(&job.err);
  }
  return true;
}

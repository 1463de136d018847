//===- ptxas_run.c - Running the CUDA assembler on PTX text ---------------===//
//
// The PTX goes into a directory of this process's own (mkdtemp: mode 0700,
// a fresh name), so no other user can plant or read the file; ptxas runs
// without a shell (paths are passed as they are) and is killed when it
// outlives the deadline (a hung assembler must not hang the compiler).
//
//===----------------------------------------------------------------------===//
#define _XOPEN_SOURCE 700 // mkdtemp, fork/execv, kill
#include "ptxas_run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

// Reads the child's output into `log` until EOF or `deadline`; false when
// the deadline passed.
static bool read_until(int fd, double deadline, MgText *log) {
  char buf[4096];
  for (;;) {
    double left = deadline - mg_clock_now();
    if (left <= 0)
      return false;
    struct pollfd p = {fd, POLLIN, 0};
    int r = poll(&p, 1, (int)(left * 1000) + 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return r == 0 ? false : true;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return true;
    mg_text_printf(log, "%.*s", (int)n, buf);
  }
}

// Runs argv (no shell), output into `log`; the exit status, -1 when it
// could not start, -2 when killed at the deadline.
static int run_capture(char *const argv[], double timeout_s, MgText *log) {
  int fds[2];
  if (pipe(fds) != 0)
    return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    execv(argv[0], argv);
    _exit(127);
  }
  close(fds[1]);
  bool in_time = read_until(fds[0], mg_clock_now() + timeout_s, log);
  close(fds[0]);
  if (!in_time)
    kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (!in_time)
    return -2;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The first line of `log` that says error or fatal, into `why`.
static void first_error(const MgText *log, char *why, size_t size) {
  for (const char *s = log->data; s && *s;) {
    size_t n = strcspn(s, "\n");
    const char *e = strstr(s, "error"), *f = strstr(s, "fatal");
    if ((e && e < s + n) || (f && f < s + n)) {
      snprintf(why, size, "%.*s", (int)(n < 500 ? n : 500), s);
      return;
    }
    s += n + (s[n] != 0);
  }
  snprintf(why, size, "ptxas failed");
}

bool mg_ptxas_assemble(const MgPtxasJob *job, const char *ptx, size_t len,
                       MgText *log, char *why, size_t size) {
  const char *tmp = getenv("TMPDIR");
  char dir[4096], path[4200];
  snprintf(dir, sizeof dir, "%s/mirage-ptxas-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    snprintf(why, size, "cannot create a temporary directory under '%s': %s",
             tmp && *tmp ? tmp : "/tmp", strerror(errno));
    return false;
  }
  snprintf(path, sizeof path, "%s/kernels.ptx", dir);
  bool wrote = mg_privfile_write(path, ptx, len, false, NULL) == MG_STATUS_OK;
  int rc = -1;
  if (wrote) {
    char arch[340];
    snprintf(arch, sizeof arch, "-arch=%s", job->arch);
    char *argv[] = {(char *)job->ptxas, arch, "-v", path, "-o", "/dev/null",
                    NULL};
    rc = run_capture(argv, job->timeout_s > 0 ? job->timeout_s : 60, log);
  }
  unlink(path);
  rmdir(dir);
  if (!wrote)
    snprintf(why, size, "cannot write the PTX into '%s'", dir);
  else if (rc == -2)
    snprintf(why, size, "ptxas ran past %.0f s and was stopped",
             job->timeout_s > 0 ? job->timeout_s : 60);
  else if (rc == -1 || rc == 127)
    snprintf(why, size, "cannot run '%s'", job->ptxas);
  else if (rc != 0)
    first_error(log, why, size);
  return wrote && rc == 0 && !log->failed;
}

static bool executable(const char *path) {
  struct stat st;
  return access(path, X_OK) == 0 && stat(path, &st) == 0 &&
         S_ISREG(st.st_mode);
}

bool mg_ptxas_find(const char *spec, char *out, size_t size) {
  if (!spec || !strcmp(spec, "none"))
    return false;
  if (strcmp(spec, "auto") != 0) {
    snprintf(out, size, "%s", spec);
    return executable(out);
  }
  snprintf(out, size, "/usr/local/cuda/bin/ptxas");
  if (executable(out))
    return true;
  const char *path = getenv("PATH");
  for (const char *p = path; p && *p;) {
    size_t n = strcspn(p, ":");
    if (n > 0 && n < size - 7) {
      snprintf(out, size, "%.*s/ptxas", (int)n, p);
      if (out[0] == '/' && executable(out))
        return true;
    }
    p += n + (p[n] == ':');
  }
  return false;
}

bool mg_ptxas_version(const char *ptxas, char *out, size_t size) {
  MgText log = {NULL, 0, 0, false};
  char *argv[] = {(char *)ptxas, "--version", NULL};
  int rc = run_capture(argv, 30, &log);
  // The last non-empty line: "Build cuda_13.0.r13.0/compiler.36424714_0".
  const char *last = NULL;
  size_t last_n = 0;
  for (const char *s = log.data; s && *s;) {
    size_t n = strcspn(s, "\n");
    if (n > 0) {
      last = s;
      last_n = n;
    }
    s += n + (s[n] != 0);
  }
  bool ok = rc == 0 && last;
  if (ok)
    snprintf(out, size, "%.*s", (int)(last_n < 200 ? last_n : 200), last);
  mg_text_free(&log);
  return ok;
}

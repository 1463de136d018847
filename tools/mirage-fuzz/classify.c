//===- classify.c - mirage-fuzz: how a run ended, and in whose code -------===//
//
// A child's end is read from its wait status and its stderr. The sanitized
// build prints a symbolized stack for every report, for a signal and (with
// handle_abort=1, set by main.c) for abort(): the parent aborts a child it
// stops at a limit, so hangs and memory blow-ups come with a stack too.
//
// Blame, from the first stack of the report: frames of the sanitizer
// runtime, libc and the C++ runtime at the top are skipped; a frame in
// <root>/lib/ or <root>/tools/, or a function named mg_*, is ours. Two
// frames of ours are only the way into MLIR and do not count unless the
// crash is in them: mg_tool_parse_module (which calls the upstream parser)
// and the harness (tools/mirage-fuzz/). A stack with no frame of ours is
// upstream: "parser" when the child was parsing the fuzzed text, else
// "upstream" (the passes were running or their output printing: the IR
// upstream code choked on came from our passes).
//
// The signature is the kind of report and the top three named frames that
// are not runtime frames, function names only (no addresses, no line
// numbers), so one bug hit from many inputs counts once.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L

#include "fuzz.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

// ORDER MG_FUZZ_CLASS
const char *const mg_fuzz_class_names[MG_FUZZ_CLASS_COUNT] = {
    "clean", "diagnostic", "crash", "hang", "memory"};
// ORDER MG_FUZZ_BLAME
const char *const mg_fuzz_blame_names[MG_FUZZ_BLAME_COUNT] = {
    "-", "ours", "parser", "upstream", "unknown"};

/// Finds `needle` in the first `len` bytes of `hay` (not NUL-terminated).
static const char *find(const char *hay, size_t len, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; n <= len && i <= len - n; ++i)
    if (hay[i] == needle[0] && !memcmp(hay + i, needle, n))
      return hay + i;
  return NULL;
}

static bool contains(const char *hay, size_t len, const char *needle) {
  return find(hay, len, needle) != NULL;
}

/// One stack frame: the function (may be empty) and where it is (a
/// file:line:col or a module path).
typedef struct {
  char function[160];
  char where[256];
} Frame;

/// Parses "#N 0xADDR in FUNCTION LOCATION" or "#N 0xADDR (MODULE+0xOFF)";
/// false for any other line.
static bool parse_frame(const char *line, const char *eol, Frame *f) {
  while (line < eol && (*line == ' ' || *line == '\t'))
    ++line;
  if (line >= eol || *line != '#' || line + 1 >= eol || line[1] < '0' ||
      line[1] > '9')
    return false;
  const char *p = memchr(line, ' ', (size_t)(eol - line));
  if (!p || eol - p < 3 || strncmp(p + 1, "0x", 2))
    return false;
  p = memchr(p + 1, ' ', (size_t)(eol - p - 1));
  if (!p)
    return false;
  while (p < eol && *p == ' ')
    ++p;
  // Newer runtimes append " (BuildId: ...)".
  const char *end = eol;
  const char *build_id = find(p, (size_t)(eol - p), " (BuildId:");
  if (build_id)
    end = build_id;
  f->function[0] = f->where[0] = 0;
  if (end - p > 3 && !strncmp(p, "in ", 3)) {
    p += 3;
    const char *split;
    if (end[-1] == ')') { // "FUNCTION (MODULE+0xOFF)"
      split = end - 1;
      while (split > p && *split != '(')
        --split;
      snprintf(f->where, sizeof f->where, "%.*s", (int)(end - split - 2),
               split + 1);
      if (split > p)
        --split; // the space
    } else {
      // "FUNCTION FILE:LINE:COL"
      split = end;
      while (split > p && split[-1] != ' ')
        --split;
      snprintf(f->where, sizeof f->where, "%.*s", (int)(end - split), split);
      if (split > p)
        --split;
    }
    if (split < p)
      split = p;
    snprintf(f->function, sizeof f->function, "%.*s", (int)(split - p), p);
  } else if (*p == '(') {
    snprintf(f->where, sizeof f->where, "%.*s", (int)(end - p - 2), p + 1);
  }
  return true;
}

static bool starts_with(const char *s, const char *prefix) {
  return !strncmp(s, prefix, strlen(prefix));
}

/// The sanitizer runtime, libc, the C++ runtime: never the bug.
static bool is_runtime_frame(const Frame *f) {
  // clang-format off
  static const char *const modules[] = {
      "libasan", "libubsan", "liblsan", "libc.so", "libc-", "libstdc++",
      "libgcc_s", "libpthread", "ld-linux", "/libsanitizer/",
      "/sanitizer_common/", "/asan/", "/ubsan/", "/lsan/", "../sysdeps/",
      "./nptl/", "./stdlib/", "./string/", "./posix/", "./signal/",
      "./assert/", "./malloc/", "./libio/",
  };
  static const char *const functions[] = {
      "__interceptor_", "__asan", "__sanitizer", "__ubsan", "__lsan",
      "__cxa_", "__cxxabiv1", "__gnu_cxx::", "std::terminate", "abort",
      "raise", "__pthread_kill", "pthread_kill", "__GI_", "__libc",
      "operator new", "operator delete", "malloc", "calloc", "realloc",
      "free", "__assert", "__wrap_", "___interceptor_", "__memcpy",
      "__memmove", "__memset", "__strlen",
  };
  // clang-format on
  for (size_t i = 0; i < sizeof modules / sizeof *modules; ++i)
    if (strstr(f->where, modules[i]))
      return true;
  for (size_t i = 0; i < sizeof functions / sizeof *functions; ++i)
    if (starts_with(f->function, functions[i]))
      return true;
  return false;
}

static bool in_source(const Frame *f, const char *root, const char *sub) {
  size_t n = strlen(root);
  return n && !strncmp(f->where, root, n) && starts_with(f->where + n, sub);
}

static bool is_harness_frame(const Frame *f, const char *root) {
  return in_source(f, root, "/tools/mirage-fuzz/") ||
         starts_with(f->function, "mg_tool_parse_module");
}

static bool is_our_frame(const Frame *f, const char *root) {
  return in_source(f, root, "/lib/") || in_source(f, root, "/tools/") ||
         starts_with(f->function, "mg_");
}

/// Reads the first stack after `from`: fills `frames` (at most `max`),
/// returns how many.
static size_t read_stack(const char *from, const char *end, Frame *frames,
                         size_t max) {
  size_t n = 0;
  bool started = false;
  for (const char *line = from; line < end;) {
    const char *eol = memchr(line, '\n', (size_t)(end - line));
    if (!eol)
      eol = end;
    Frame f;
    if (parse_frame(line, eol, &f)) {
      started = true;
      if (n < max)
        frames[n++] = f;
    } else if (started) {
      break;
    }
    line = eol + 1;
  }
  return n;
}

/// The start of the sanitizer report in `err`, NULL when there is none.
static const char *report_start(const char *err, size_t len) {
  static const char *const markers[] = {
      "ERROR: AddressSanitizer",           "ERROR: LeakSanitizer",
      "ERROR: UndefinedBehaviorSanitizer", "runtime error: ",
      "AddressSanitizer:DEADLYSIGNAL",
  };
  const char *first = NULL;
  for (size_t i = 0; i < sizeof markers / sizeof *markers; ++i) {
    const char *hit = find(err, len, markers[i]);
    if (hit && (!first || hit < first))
      first = hit;
  }
  return first;
}

/// Copies the rest of the line at `p` (at most `max` bytes) into `out`,
/// digits and hex addresses dropped so that the kind does not depend on
/// the input's sizes or the run's addresses.
static void copy_kind(const char *p, const char *end, size_t max, char *out,
                      size_t size) {
  size_t n = 0;
  for (size_t i = 0; p + i < end && p[i] != '\n' && i < max && n + 1 < size;
       ++i) {
    if (p[i] == '0' && p + i + 1 < end && p[i + 1] == 'x') {
      i += 2;
      while (p + i < end &&
             ((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
        ++i;
      --i;
      continue;
    }
    if (p[i] >= '0' && p[i] <= '9')
      continue;
    out[n++] = p[i];
  }
  out[n] = 0;
}

/// What went wrong, in a few words, from stderr and the wait status. A
/// message printed before an abort comes first; else the first sanitizer
/// report (UBSan's abort makes ASan print an ABRT report after it).
static void describe(const MgFuzzEnd *e, const char *report, char *kind,
                     size_t size) {
  int status = e->status;
  const char *err = e->err;
  size_t len = e->len;
  MgFuzzKill kill = e->kill;
  const char *end = err + len, *hit;
  if (kill == MG_FUZZ_KILL_TIME) {
    snprintf(kind, size, "timeout");
  } else if (kill == MG_FUZZ_KILL_MEMORY) {
    snprintf(kind, size, "memory limit");
  } else if ((hit = find(err, len, "LLVM ERROR: "))) {
    copy_kind(hit, end, 60, kind, size);
  } else if ((hit = find(err, len, "terminate called"))) {
    copy_kind(hit, end, 80, kind, size);
  } else if ((hit = find(err, len, "Assertion `"))) {
    copy_kind(hit, end, 80, kind, size);
  } else if (report && (hit = find(report, (size_t)(end - report),
                                   "runtime error: ")) == report) {
    copy_kind(hit, end, 120, kind, size);
  } else if ((hit = find(err, len, "ERROR: AddressSanitizer: "))) {
    copy_kind(hit + 25, end, 40, kind, size);
    char *on = strstr(kind, " on ");
    if (on)
      *on = 0;
  } else if ((hit = find(err, len, "ERROR: LeakSanitizer: "))) {
    snprintf(kind, size, "leak");
  } else if ((hit = find(err, len, "runtime error: "))) {
    copy_kind(hit, end, 120, kind, size);
  } else if (WIFSIGNALED(status)) {
    snprintf(kind, size, "signal %d", WTERMSIG(status));
  } else if (WIFEXITED(status)) {
    snprintf(kind, size, "exit %d", WEXITSTATUS(status));
  } else {
    snprintf(kind, size, "status %d", status);
  }
}

/// True when the child ran out of memory (as opposed to a bug).
static bool ran_out_of_memory(const char *err, size_t len) {
  static const char *const markers[] = {
      "out of memory",           "out-of-memory",
      "allocation-size-too-big", "requested allocation size",
      "std::bad_alloc",          "Allocation failed",
      "rss-limit-exceeded",      "Cannot allocate memory",
      "allocator is out of",
  };
  for (size_t i = 0; i < sizeof markers / sizeof *markers; ++i)
    if (contains(err, len, markers[i]))
      return true;
  return false;
}

void mg_fuzz_classify(const MgFuzzEnd *end, const char *source_root,
                      MgFuzzOutcome *out) {
  int status = end->status;
  const char *err = end->err;
  size_t len = end->len;
  MgFuzzKill kill = end->kill;
  out->blame = MG_FUZZ_BLAME_NONE;
  out->signature[0] = 0;
  const char *report = report_start(err, len);
  bool fatal = report || contains(err, len, "LLVM ERROR: ") ||
               contains(err, len, "terminate called");
  if (kill == MG_FUZZ_KILL_TIME ||
      (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU))
    out->cls = MG_FUZZ_CLASS_HANG;
  else if (kill == MG_FUZZ_KILL_MEMORY ||
           ((fatal || WIFSIGNALED(status)) && ran_out_of_memory(err, len)))
    out->cls = MG_FUZZ_CLASS_MEMORY;
  else if (fatal || WIFSIGNALED(status) || !WIFEXITED(status) ||
           WEXITSTATUS(status) > 1)
    out->cls = MG_FUZZ_CLASS_CRASH;
  else if (WEXITSTATUS(status) == 1 && contains(err, len, "error: "))
    out->cls = MG_FUZZ_CLASS_DIAGNOSTIC;
  else if (WEXITSTATUS(status) == 0)
    out->cls = MG_FUZZ_CLASS_CLEAN;
  else // exit 1 without a diagnostic: mirage-opt never does that
    out->cls = MG_FUZZ_CLASS_CRASH;
  if (out->cls == MG_FUZZ_CLASS_CLEAN || out->cls == MG_FUZZ_CLASS_DIAGNOSTIC)
    return;

  char kind[128];
  describe(end, report, kind, sizeof kind);
  Frame frames[64];
  size_t num_frames = report ? read_stack(report, err + len, frames, 64) : 0;
  // Skip the runtime at the top; then blame.
  size_t top = 0;
  while (top < num_frames && is_runtime_frame(&frames[top]))
    ++top;
  bool ours = false;
  for (size_t i = top; i < num_frames && !ours; ++i)
    ours = is_our_frame(&frames[i], source_root) &&
           (i == top || !is_harness_frame(&frames[i], source_root));
  if (ours)
    out->blame = MG_FUZZ_BLAME_OURS;
  else if (top == num_frames)
    out->blame = MG_FUZZ_BLAME_UNKNOWN;
  else if (end->phase == MG_FUZZ_PHASE_PARSE)
    out->blame = MG_FUZZ_BLAME_PARSER;
  else
    out->blame = MG_FUZZ_BLAME_UPSTREAM;

  size_t n =
      (size_t)snprintf(out->signature, sizeof out->signature, "%s:", kind);
  // Frames without a symbol (static functions of libMLIR) are left out
  // when named ones follow: one bug reached through two call sites in the
  // same function would otherwise count twice.
  size_t named = 0;
  for (size_t i = top; i < num_frames; ++i)
    named += frames[i].function[0] != 0;
  for (size_t i = top, shown = 0;
       i < num_frames && shown < 3 && n < sizeof out->signature; ++i) {
    if (is_harness_frame(&frames[i], source_root) && i != top)
      break;
    const Frame *f = &frames[i];
    if (!f->function[0] && named)
      continue;
    n += (size_t)snprintf(out->signature + n, sizeof out->signature - n,
                          "%s %.100s", shown ? " <" : "",
                          f->function[0] ? f->function : f->where);
    ++shown;
  }
  if (top == num_frames && n < sizeof out->signature)
    snprintf(out->signature + n, sizeof out->signature - n, " (no stack)");
}

//===- reduce.c - mirage-fuzz: one file, run or reduced ---------------===//
//
// --run runs one file through one pipeline in a child, as the fuzz loop
// does, and prints how it ended. --reduce shrinks a failing file while it
// fails the same way (class, blame and signature; for a hang, class and
// blame, since its stack is wherever it was stopped): delta debugging over
// lines, then each whitespace-separated token, last to first.
//
//===----------------------------------------------------------------------===//
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mirage/tool.h"

static bool read_input(const char *path, MgFuzzInput *in) {
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
static bool try_candidate(MgFuzzServer *s, MgFuzzInput *in,
                          MgFuzzText *candidate, const MgFuzzOutcome *want,
                          unsigned *runs) {
  MgFuzzInput trial = *in;
  trial.text = *candidate;
  MgFuzzOutcome o;
  ++*runs;
  if (!mg_fuzz_run_one(s, &trial, &o, NULL) || !same_failure(&o, want))
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

int mg_fuzz_reduce(MgFuzzServer *s, const char *path, size_t p,
                   const char *output) {
  MgFuzzInput in = {.pipeline = p};
  if (!read_input(path, &in))
    return 2;
  MgFuzzOutcome want;
  if (!mg_fuzz_run_one(s, &in, &want, NULL))
    return 2;
  if (want.blame == MG_FUZZ_BLAME_NONE) {
    fprintf(stderr, "mirage-fuzz: '%s' ends %s under %s: nothing to reduce\n",
            path, mg_fuzz_class_names[want.cls],
            mg_fuzz_pipelines[in.pipeline].name);
    mg_fuzz_text_free(&in.text);
    return 1;
  }
  fprintf(stderr, "reducing: %s [%s] %s\n", mg_fuzz_class_names[want.cls],
          mg_fuzz_blame_names[want.blame], want.signature);
  unsigned runs = 0;
  MgFuzzText cand = {0};
  size_t max_lines = 2;
  for (size_t i = 0; i < in.text.len; ++i)
    max_lines += in.text.data[i] == '\n';
  size_t *offsets = malloc(max_lines * sizeof *offsets);
  if (!offsets) {
    mg_fuzz_text_free(&in.text);
    return 2;
  }
  for (size_t parts = 2;;) {
    size_t lines = line_offsets(&in.text, offsets, max_lines) - 1;
    if (lines < 2)
      break;
    if (parts > lines)
      parts = lines;
    bool removed = false;
    for (size_t k = 0; k < parts && !removed; ++k) {
      size_t b = offsets[k * lines / parts],
             e = offsets[(k + 1) * lines / parts];
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
    while (end > 0 &&
           (in.text.data[end - 1] == ' ' || in.text.data[end - 1] == '\n'))
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
  FILE *out = output ? fopen(output, "w") : stdout;
  if (out) {
    fwrite(in.text.data, 1, in.text.len, out);
    if (out != stdout)
      fclose(out);
  }
  free(offsets);
  mg_fuzz_text_free(&cand);
  mg_fuzz_text_free(&in.text);
  return out ? 0 : 2;
}

int mg_fuzz_run_file(MgFuzzServer *s, const char *path, size_t p) {
  MgFuzzInput in = {.pipeline = p};
  if (!read_input(path, &in))
    return 2;
  MgFuzzOutcome o;
  MgFuzzText err = {0};
  bool ok = mg_fuzz_run_one(s, &in, &o, &err);
  if (ok) {
    fwrite(err.data ? err.data : "", 1, err.len, stdout);
    printf("mirage-fuzz: %s under %s: %s%s%s%s%s\n", path,
           mg_fuzz_pipelines[in.pipeline].name, mg_fuzz_class_names[o.cls],
           o.signature[0] ? " [" : "",
           o.signature[0] ? mg_fuzz_blame_names[o.blame] : "",
           o.signature[0] ? "] " : "", o.signature);
  }
  mg_fuzz_text_free(&err);
  mg_fuzz_text_free(&in.text);
  return !ok ? 2 : o.blame == MG_FUZZ_BLAME_NONE ? 0 : 1;
}

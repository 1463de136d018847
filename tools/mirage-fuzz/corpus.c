//===- corpus.c - mirage-fuzz: the seeds from the lit inputs --------------===//
//
// Every .mlir file under the given paths, in sorted path order, split at
// `// -----` lines into one seed per case, comment lines dropped (RUN and
// CHECK lines are not MLIR, and mutating them finds nothing). The seeds'
// `dialect.op` tokens make the op-name dictionary of the mutator.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // strdup

#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool mg_fuzz_text_append(MgFuzzText *t, const char *s, size_t n) {
  return mg_fuzz_text_replace(t, t->len, 0, s, n);
}

bool mg_fuzz_text_replace(MgFuzzText *t, size_t at, size_t n, const char *s,
                          size_t s_len) {
  size_t len = t->len - n + s_len;
  if (len + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 256;
    while (cap < len + 1)
      cap *= 2;
    char *data = realloc(t->data, cap);
    if (!data)
      return false;
    t->data = data;
    t->cap = cap;
  }
  memmove(t->data + at + s_len, t->data + at + n, t->len - at - n);
  memcpy(t->data + at, s, s_len);
  t->len = len;
  t->data[len] = 0;
  return true;
}

void mg_fuzz_text_free(MgFuzzText *t) {
  free(t->data);
  *t = (MgFuzzText){0};
}

typedef struct {
  char **items;
  size_t count, cap;
} Strings;

static bool strings_push(Strings *s, char *item) {
  if (!item)
    return false;
  if (s->count == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 64;
    char **items = realloc(s->items, cap * sizeof *items);
    if (!items) {
      free(item);
      return false;
    }
    s->items = items;
    s->cap = cap;
  }
  s->items[s->count++] = item;
  return true;
}

static int compare_strings(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/// Appends every .mlir file under `path` (a file or a folder) to `files`.
static bool collect_files(const char *path, Strings *files) {
  struct stat st;
  if (stat(path, &st)) {
    fprintf(stderr, "mirage-fuzz: cannot read '%s'\n", path);
    return false;
  }
  if (!S_ISDIR(st.st_mode))
    return !ends_with(path, ".mlir") || strings_push(files, strdup(path));
  DIR *dir = opendir(path);
  if (!dir) {
    fprintf(stderr, "mirage-fuzz: cannot read '%s'\n", path);
    return false;
  }
  bool ok = true;
  struct dirent *e;
  while (ok && (e = readdir(dir))) {
    if (e->d_name[0] == '.')
      continue;
    size_t n = strlen(path) + strlen(e->d_name) + 2;
    char *child = malloc(n);
    if (!child) {
      ok = false;
      break;
    }
    snprintf(child, n, "%s/%s", path, e->d_name);
    ok = collect_files(child, files);
    free(child);
  }
  closedir(dir);
  return ok;
}

static bool is_comment_line(const char *line, const char *end) {
  while (line < end && (*line == ' ' || *line == '\t'))
    ++line;
  return end - line >= 2 && line[0] == '/' && line[1] == '/';
}

static bool is_blank(const MgFuzzText *t) {
  for (size_t i = 0; i < t->len; ++i)
    if (t->data[i] != ' ' && t->data[i] != '\t' && t->data[i] != '\n' &&
        t->data[i] != '\r')
      return false;
  return true;
}

static bool push_seed(MgFuzzCorpus *c, size_t *cap, MgFuzzText *seed,
                      const char *path, size_t line) {
  if (is_blank(seed)) {
    mg_fuzz_text_free(seed);
    return true;
  }
  if (c->num_seeds == *cap) {
    size_t n = *cap ? 2 * *cap : 64;
    MgFuzzText *seeds = realloc(c->seeds, n * sizeof *seeds);
    if (!seeds)
      return false;
    c->seeds = seeds;
    char **origins = realloc(c->origins, n * sizeof *origins);
    if (!origins)
      return false;
    c->origins = origins;
    *cap = n;
  }
  size_t n = strlen(path) + 24;
  char *origin = malloc(n);
  if (!origin)
    return false;
  snprintf(origin, n, "%s:%zu", path, line);
  c->seeds[c->num_seeds] = *seed;
  c->origins[c->num_seeds++] = origin;
  *seed = (MgFuzzText){0};
  return true;
}

/// Splits one file into seeds.
static bool add_file(MgFuzzCorpus *c, size_t *cap, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "mirage-fuzz: cannot read '%s'\n", path);
    return false;
  }
  MgFuzzText file = {0}, seed = {0};
  char buf[4096];
  size_t n;
  bool ok = true;
  while (ok && (n = fread(buf, 1, sizeof buf, f)))
    ok = mg_fuzz_text_append(&file, buf, n);
  fclose(f);
  size_t line = 1, seed_line = 1;
  for (size_t pos = 0; ok && pos < file.len; ++line) {
    const char *start = file.data + pos;
    const char *eol = memchr(start, '\n', file.len - pos);
    size_t end = eol ? (size_t)(eol - file.data) + 1 : file.len;
    if (!strncmp(start, "// -----", 8)) {
      ok = push_seed(c, cap, &seed, path, seed_line);
      seed_line = line + 1;
    } else if (!is_comment_line(start, file.data + end)) {
      if (is_blank(&seed) && seed.len == 0)
        seed_line = line;
      ok = mg_fuzz_text_append(&seed, start, end - pos);
    }
    pos = end;
  }
  ok = ok && push_seed(c, cap, &seed, path, seed_line);
  mg_fuzz_text_free(&seed);
  mg_fuzz_text_free(&file);
  return ok;
}

static bool is_name_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '$';
}

/// Collects the `dialect.op` tokens of every seed into c->op_names.
static bool collect_op_names(MgFuzzCorpus *c) {
  Strings names = {0};
  for (size_t s = 0; s < c->num_seeds; ++s) {
    const char *t = c->seeds[s].data;
    size_t len = c->seeds[s].len;
    for (size_t pos = 0; pos < len;) {
      if (!(t[pos] >= 'a' && t[pos] <= 'z') ||
          (pos > 0 && (is_name_char(t[pos - 1]) || t[pos - 1] == '%' ||
                       t[pos - 1] == '@' || t[pos - 1] == '#' ||
                       t[pos - 1] == '!' || t[pos - 1] == '^'))) {
        ++pos;
        continue;
      }
      size_t end = pos, dots = 0;
      while (end < len && is_name_char(t[end]))
        dots += t[end++] == '.';
      if (dots >= 1 && t[end - 1] != '.' && end - pos < 64 &&
          !strings_push(&names, strndup(t + pos, end - pos)))
        return false;
      pos = end;
    }
  }
  qsort(names.items, names.count, sizeof *names.items, compare_strings);
  size_t unique = 0;
  for (size_t i = 0; i < names.count; ++i) {
    if (unique && !strcmp(names.items[unique - 1], names.items[i]))
      free(names.items[i]);
    else
      names.items[unique++] = names.items[i];
  }
  c->op_names = names.items;
  c->num_op_names = unique;
  return true;
}

bool mg_fuzz_corpus_load(MgFuzzCorpus *c, char **paths, size_t num_paths) {
  *c = (MgFuzzCorpus){0};
  Strings files = {0};
  bool ok = true;
  for (size_t i = 0; ok && i < num_paths; ++i)
    ok = collect_files(paths[i], &files);
  if (ok)
    qsort(files.items, files.count, sizeof *files.items, compare_strings);
  size_t cap = 0;
  for (size_t i = 0; ok && i < files.count; ++i)
    ok = add_file(c, &cap, files.items[i]);
  c->num_files = files.count;
  for (size_t i = 0; i < files.count; ++i)
    free(files.items[i]);
  free(files.items);
  ok = ok && collect_op_names(c);
  if (!ok)
    fprintf(stderr, "mirage-fuzz: could not load the corpus\n");
  else if (!c->num_seeds)
    fprintf(stderr, "mirage-fuzz: no .mlir seeds under the given paths\n");
  return ok && c->num_seeds;
}

void mg_fuzz_corpus_free(MgFuzzCorpus *c) {
  for (size_t i = 0; i < c->num_seeds; ++i) {
    mg_fuzz_text_free(&c->seeds[i]);
    free(c->origins[i]);
  }
  for (size_t i = 0; i < c->num_op_names; ++i)
    free(c->op_names[i]);
  free(c->seeds);
  free(c->origins);
  free(c->op_names);
  *c = (MgFuzzCorpus){0};
}

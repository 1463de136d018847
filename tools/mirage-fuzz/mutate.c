//===- mutate.c - mirage-fuzz: deterministic mutations of MLIR text -------===//
//
// One call applies one mutation, chosen and placed by the caller's random
// state only, so a seed and an input index always give the same mutant.
// Three families:
//  - bytes: flip a bit, overwrite, insert or erase bytes, duplicate a
//    range, truncate, splice in a range of another seed;
//  - lines: delete, duplicate or swap whole lines;
//  - structure: a dimension of a tensor<...> shape (0, 1, 2^31, -1,
//    65536, dynamic, added, dropped, rank 0), an element type, an integer
//    or float literal, an `axis = N`, an op name (a neighbour of the same
//    dialect, another op of the corpus or an unknown one), an SSA operand
//    (replaced, dropped or duplicated), an iterator type, a boolean.
// A structure mutation that finds nothing to change falls back to a byte
// mutation, so every call changes the text (or truncates it).
//
//===----------------------------------------------------------------------===//
#include "fuzz.h"

#include <stdio.h>
#include <string.h>

uint64_t mg_fuzz_rand(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t mg_fuzz_below(uint64_t *state, uint64_t n) {
  return mg_fuzz_rand(state) % n;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

// clang-format off
static const char *const interesting_ints[] = {
    "0", "1", "2", "3", "-1", "7", "16", "255", "65536",
    "2147483647", "2147483648", "-2147483648", "4294967296",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "18446744073709551616",
};

/// Dimension sizes: the 0, 1, 2^31 and negative, plus neighbours.
static const char *const interesting_dims[] = {
    "0", "1", "2", "3", "-1", "65536", "2147483647", "2147483648",
    "4294967296", "9223372036854775807", "?", "18446744073709551616",
};
// clang-format on

static const char *const interesting_floats[] = {
    "0.0",        "-0.0",       "1.0",        "-1.0",    "1.0e+38",
    "3.4e+38",    "1.0e+39",    "1.0e-45",    "65504.0", "65520.0",
    "0x7FC00000", "0x7F800000", "0xFF800000", "0x7E00",  "1.0e+308",
};

static const char *const dtypes[] = {
    "f16", "bf16", "f32", "f64",   "i1",       "i8",     "i16", "i32",
    "i64", "ui8",  "si8", "index", "f8E4M3FN", "f8E5M2", "i4",  "complex<f32>",
};

static const char *const junk_ops[] = {"foo", "", "add.add", "matmul2"};

// Swaps that keep the syntax (the likes of `->` for `,` never parse).
static const char *const swaps[][2] = {
    {"parallel", "reduction"}, {"true", "false"}, {"tensor<", "memref<"},
    {"maximumf", "minimumf"},  {"addf", "mulf"},  {"exp", "log"},
};

/// Bytes worth inserting: MLIR's punctuation weighs more than noise.
static const char syntax[] = "%@#^!<>()[]{}:,=x-.?\"0123456789 \n";

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
         c == '_' || c == '$';
}

static bool replace_str(MgFuzzText *t, size_t at, size_t n, const char *s) {
  return mg_fuzz_text_replace(t, at, n, s, strlen(s));
}

// Reservoir sampling: the k-th match (k from 1) replaces the choice with
// probability 1/k, so one pass picks a uniform match.
typedef struct {
  size_t begin, end, count;
} Pick;

static void offer(Pick *p, uint64_t *rng, size_t begin, size_t end) {
  if (mg_fuzz_below(rng, ++p->count) == 0) {
    p->begin = begin;
    p->end = end;
  }
}

//===----------------------------------------------------------------------===//
// Bytes and lines
//===----------------------------------------------------------------------===//

static bool mutate_bytes(MgFuzzText *t, uint64_t *rng,
                         const MgFuzzCorpus *corpus, const char **what) {
  size_t len = t->len;
  size_t at = len ? mg_fuzz_below(rng, len) : 0;
  switch (mg_fuzz_below(rng, 7)) {
  case 0:
    *what = "bit-flip";
    if (!len)
      break;
    t->data[at] ^= (char)(1u << mg_fuzz_below(rng, 8));
    return true;
  case 1:
    *what = "byte-set";
    if (!len)
      break;
    t->data[at] = mg_fuzz_below(rng, 2)
                      ? syntax[mg_fuzz_below(rng, sizeof syntax - 1)]
                      : (char)mg_fuzz_below(rng, 256);
    return true;
  case 2: {
    *what = "byte-erase";
    if (!len)
      break;
    size_t n = 1 + mg_fuzz_below(rng, 16);
    return mg_fuzz_text_replace(t, at, n < len - at ? n : len - at, "", 0);
  }
  case 3: {
    *what = "range-duplicate";
    if (!len)
      break;
    size_t n = 1 + mg_fuzz_below(rng, 64);
    n = n < len - at ? n : len - at;
    char copy[64];
    memcpy(copy, t->data + at, n);
    return mg_fuzz_text_replace(t, mg_fuzz_below(rng, len + 1), 0, copy, n);
  }
  case 4:
    *what = "truncate";
    t->len = at;
    t->data[at] = 0;
    return true;
  case 5: {
    *what = "splice";
    const MgFuzzText *other =
        &corpus->seeds[mg_fuzz_below(rng, corpus->num_seeds)];
    size_t from = mg_fuzz_below(rng, other->len);
    size_t n = 1 + mg_fuzz_below(rng, 256);
    n = n < other->len - from ? n : other->len - from;
    return mg_fuzz_text_replace(t, len ? mg_fuzz_below(rng, len + 1) : 0, 0,
                                other->data + from, n);
  }
  default:
    break;
  }
  *what = "byte-insert";
  char bytes[8];
  size_t n = 1 + mg_fuzz_below(rng, sizeof bytes);
  for (size_t i = 0; i < n; ++i)
    bytes[i] = syntax[mg_fuzz_below(rng, sizeof syntax - 1)];
  return mg_fuzz_text_replace(t, len ? mg_fuzz_below(rng, len + 1) : 0, 0,
                              bytes, n);
}

/// Bounds of a random line: [*begin, *end), `end` after its newline.
static bool pick_line(const MgFuzzText *t, uint64_t *rng, size_t *begin,
                      size_t *end) {
  if (!t->len)
    return false;
  size_t at = mg_fuzz_below(rng, t->len);
  size_t b = at;
  while (b > 0 && t->data[b - 1] != '\n')
    --b;
  size_t e = at;
  while (e < t->len && t->data[e] != '\n')
    ++e;
  *begin = b;
  *end = e < t->len ? e + 1 : e;
  return true;
}

static bool mutate_lines(MgFuzzText *t, uint64_t *rng, const char **what) {
  size_t b, e;
  if (!pick_line(t, rng, &b, &e))
    return false;
  MgFuzzText line = {0};
  bool ok = mg_fuzz_text_append(&line, t->data + b, e - b);
  switch (mg_fuzz_below(rng, 3)) {
  case 0:
    *what = "line-delete";
    ok = ok && mg_fuzz_text_replace(t, b, e - b, "", 0);
    break;
  case 1:
    *what = "line-duplicate";
    ok = ok && mg_fuzz_text_replace(t, b, 0, line.data, line.len);
    break;
  default: { // move the line elsewhere: a swap with its new neighbours
    *what = "line-move";
    ok = ok && mg_fuzz_text_replace(t, b, e - b, "", 0);
    size_t b2, e2;
    if (ok && pick_line(t, rng, &b2, &e2))
      ok = mg_fuzz_text_replace(t, b2, 0, line.data, line.len);
    else if (ok)
      ok = mg_fuzz_text_append(t, line.data, line.len);
    break;
  }
  }
  mg_fuzz_text_free(&line);
  return ok;
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

static bool at_word_start(const MgFuzzText *t, size_t pos) {
  return pos == 0 || !is_word_char(t->data[pos - 1]);
}

/// A word start, or an element type right after a shape's last 'x'
/// (`4xf16`, `?xf16`).
static bool at_type_start(const MgFuzzText *t, size_t pos) {
  return at_word_start(t, pos) ||
         (pos >= 2 && t->data[pos - 1] == 'x' &&
          (is_digit(t->data[pos - 2]) || t->data[pos - 2] == '?'));
}

/// Replaces every occurrence of `old` (`n` bytes, at word boundaries) by
/// `repl`: a type changed consistently stays type-correct where the parser
/// checks that a value's uses agree, so the mutant reaches the verifiers
/// and the passes more often than a single edit does.
static bool replace_all(MgFuzzText *t, const char *old, size_t n,
                        const char *repl) {
  size_t m = strlen(repl);
  for (size_t pos = 0; pos + n <= t->len;) {
    if (!memcmp(t->data + pos, old, n) && at_type_start(t, pos) &&
        (pos + n == t->len || !is_word_char(t->data[pos + n]) ||
         !is_word_char(old[n - 1]))) {
      if (!mg_fuzz_text_replace(t, pos, n, repl, m))
        return false;
      pos += m;
    } else {
      ++pos;
    }
  }
  return true;
}

/// End of the type that opens at `open` (the '<'): after its '>'.
static size_t type_end(const MgFuzzText *t, size_t open) {
  int depth = 0;
  for (size_t pos = open; pos < t->len; ++pos) {
    if (t->data[pos] == '<')
      ++depth;
    else if (t->data[pos] == '>' && t->data[pos - 1] != '-' && --depth == 0)
      return pos + 1;
    else if (t->data[pos] == '\n')
      break;
  }
  return 0;
}

/// `tensor<AxBx...xT>` shapes (also memref, vector): one dimension changed,
/// added or dropped, or the rank made 0; at that place only, or (two times
/// in three) everywhere the same type is written.
static bool mutate_shape(MgFuzzText *t, uint64_t *rng, const char **what) {
  static const char *const kinds[] = {"tensor<", "memref<", "vector<"};
  Pick shape = {0};
  for (size_t pos = 0; pos < t->len; ++pos)
    for (size_t k = 0; k < COUNT(kinds); ++k)
      if (!strncmp(t->data + pos, kinds[k], strlen(kinds[k])) &&
          at_word_start(t, pos))
        offer(&shape, rng, pos, pos + strlen(kinds[k]));
  if (!shape.count)
    return false;
  size_t type_begin = shape.begin, end = type_end(t, shape.end - 1);
  // Work on a copy of the type; `base` is where its dimensions start.
  MgFuzzText type = {0};
  if (!end || end - type_begin > 4096)
    end = shape.end;
  if (!mg_fuzz_text_append(&type, t->data + type_begin, end - type_begin))
    return false;
  size_t base = shape.end - shape.begin;
  // The dimensions: tokens of digits, '-' or '?' each followed by 'x'.
  size_t dims[32][2], num_dims = 0, p = base;
  while (num_dims < 32) {
    size_t q = p;
    while (q < type.len && (is_digit(type.data[q]) || type.data[q] == '?' ||
                            type.data[q] == '-'))
      ++q;
    if (q == p || q >= type.len || type.data[q] != 'x')
      break;
    dims[num_dims][0] = p;
    dims[num_dims][1] = q;
    ++num_dims;
    p = q + 1;
  }
  uint64_t choice = mg_fuzz_below(rng, 10);
  bool everywhere = mg_fuzz_below(rng, 3) && end > shape.end;
  const char *value =
      interesting_dims[mg_fuzz_below(rng, COUNT(interesting_dims))];
  MgFuzzText old = {0};
  bool ok = mg_fuzz_text_append(&old, type.data, type.len);
  if (num_dims && choice < 6) {
    *what = everywhere ? "shape-dim-all" : "shape-dim";
    size_t d = mg_fuzz_below(rng, num_dims);
    ok = ok && replace_str(&type, dims[d][0], dims[d][1] - dims[d][0], value);
  } else if (num_dims && choice < 8) {
    *what = everywhere ? "shape-drop-dim-all" : "shape-drop-dim";
    size_t d = mg_fuzz_below(rng, num_dims);
    ok = ok && mg_fuzz_text_replace(&type, dims[d][0],
                                    dims[d][1] + 1 - dims[d][0], "", 0);
  } else if (num_dims && choice < 9) {
    *what = everywhere ? "shape-rank-0-all" : "shape-rank-0";
    ok = ok && mg_fuzz_text_replace(&type, base, p - base, "", 0);
  } else {
    *what = everywhere ? "shape-add-dim-all" : "shape-add-dim";
    char buf[32];
    snprintf(buf, sizeof buf, "%sx", value);
    size_t at = num_dims ? dims[mg_fuzz_below(rng, num_dims)][0] : base;
    ok = ok && replace_str(&type, at, 0, buf);
  }
  if (ok && everywhere)
    ok = replace_all(t, old.data, old.len, type.data);
  else if (ok)
    ok = mg_fuzz_text_replace(t, type_begin, old.len, type.data, type.len);
  mg_fuzz_text_free(&old);
  mg_fuzz_text_free(&type);
  return ok;
}

/// An element type token replaced by another.
static bool mutate_dtype(MgFuzzText *t, uint64_t *rng, const char **what) {
  Pick pick = {0};
  for (size_t pos = 0; pos < t->len; ++pos) {
    if (!at_type_start(t, pos))
      continue;
    for (size_t k = 0; k < COUNT(dtypes); ++k) {
      size_t n = strlen(dtypes[k]);
      if (!strncmp(t->data + pos, dtypes[k], n) &&
          (pos + n == t->len || !is_word_char(t->data[pos + n])))
        offer(&pick, rng, pos, pos + n);
    }
  }
  if (!pick.count)
    return false;
  const char *to = dtypes[mg_fuzz_below(rng, COUNT(dtypes))];
  if (mg_fuzz_below(rng, 3) == 0) {
    *what = "dtype";
    return replace_str(t, pick.begin, pick.end - pick.begin, to);
  }
  *what = "dtype-all";
  char from[16];
  snprintf(from, sizeof from, "%.*s", (int)(pick.end - pick.begin),
           t->data + pick.begin);
  return replace_all(t, from, strlen(from), to);
}

/// An integer literal (a constant, an attribute, a shape inside a dense
/// literal, a permutation) or, one time in three, the N of `axis = N`.
static bool mutate_int(MgFuzzText *t, uint64_t *rng, const char **what) {
  Pick pick = {0}, axis = {0};
  for (size_t pos = 0; pos < t->len; ++pos) {
    if (!strncmp(t->data + pos, "axis = ", 7)) {
      size_t q = pos + 7;
      while (q < t->len && (is_digit(t->data[q]) || t->data[q] == '-'))
        ++q;
      if (q > pos + 7)
        offer(&axis, rng, pos + 7, q);
    }
    if (!is_digit(t->data[pos]) || !at_word_start(t, pos) ||
        (pos > 0 && t->data[pos - 1] == '.'))
      continue;
    size_t q = pos;
    while (q < t->len && is_digit(t->data[q]))
      ++q;
    if (q < t->len &&
        (t->data[q] == '.' || t->data[q] == 'e' || is_word_char(t->data[q])))
      continue; // a float, or 4x8 inside a shape (mutate_shape's)
    offer(&pick, rng, pos, q);
    pos = q;
  }
  static const char *const axes[] = {"-1", "0", "1", "2",
                                     "3",  "4", "7", "2147483648"};
  if (axis.count && mg_fuzz_below(rng, 3) == 0) {
    *what = "axis";
    return replace_str(t, axis.begin, axis.end - axis.begin,
                       axes[mg_fuzz_below(rng, COUNT(axes))]);
  }
  if (!pick.count)
    return false;
  *what = "integer";
  return replace_str(
      t, pick.begin, pick.end - pick.begin,
      interesting_ints[mg_fuzz_below(rng, COUNT(interesting_ints))]);
}

/// A float literal (digits '.' digits, exponent optional).
static bool mutate_float(MgFuzzText *t, uint64_t *rng, const char **what) {
  Pick pick = {0};
  for (size_t pos = 0; pos < t->len; ++pos) {
    if (!is_digit(t->data[pos]) || !at_word_start(t, pos))
      continue;
    size_t q = pos;
    while (q < t->len && is_digit(t->data[q]))
      ++q;
    if (q + 1 >= t->len || t->data[q] != '.' || !is_digit(t->data[q + 1])) {
      pos = q;
      continue;
    }
    ++q;
    while (q < t->len &&
           (is_digit(t->data[q]) || t->data[q] == 'e' || t->data[q] == 'E' ||
            t->data[q] == '+' || t->data[q] == '-'))
      ++q;
    offer(&pick, rng, pos > 0 && t->data[pos - 1] == '-' ? pos - 1 : pos, q);
    pos = q;
  }
  if (!pick.count)
    return false;
  *what = "float";
  return replace_str(
      t, pick.begin, pick.end - pick.begin,
      interesting_floats[mg_fuzz_below(rng, COUNT(interesting_floats))]);
}

/// An op name `dialect.op` (also inside quotes, the generic form): another
/// op of the same dialect from the corpus, any op of the corpus, or an
/// unknown op of the same dialect.
static bool mutate_op_name(MgFuzzText *t, uint64_t *rng,
                           const MgFuzzCorpus *corpus, const char **what) {
  Pick pick = {0};
  size_t dialect_len = 0;
  for (size_t pos = 0; pos < t->len; ++pos) {
    char c = t->data[pos];
    if (!(c >= 'a' && c <= 'z') ||
        (pos > 0 && (is_word_char(t->data[pos - 1]) ||
                     t->data[pos - 1] == '.' || t->data[pos - 1] == '%' ||
                     t->data[pos - 1] == '@' || t->data[pos - 1] == '#' ||
                     t->data[pos - 1] == '!' || t->data[pos - 1] == '^')))
      continue;
    size_t q = pos, dot = 0;
    while (q < t->len && (is_word_char(t->data[q]) || t->data[q] == '.')) {
      if (t->data[q] == '.' && !dot)
        dot = q;
      ++q;
    }
    if (dot && t->data[q - 1] != '.') {
      size_t before = pick.count;
      offer(&pick, rng, pos, q);
      if (pick.count != before && pick.begin == pos)
        dialect_len = dot - pos + 1;
    }
    pos = q;
  }
  if (!pick.count || !corpus->num_op_names)
    return false;
  const char *name = t->data + pick.begin;
  char buf[96];
  uint64_t choice = mg_fuzz_below(rng, 8);
  if (choice < 4) { // a neighbour: the next or previous op of its dialect
    *what = "op-neighbour";
    size_t candidates = 0, chosen = 0;
    for (size_t i = 0; i < corpus->num_op_names; ++i)
      if (!strncmp(corpus->op_names[i], name, dialect_len) &&
          mg_fuzz_below(rng, ++candidates) == 0)
        chosen = i;
    snprintf(buf, sizeof buf, "%s", corpus->op_names[chosen]);
  } else if (choice < 6) {
    *what = "op-any";
    snprintf(buf, sizeof buf, "%s",
             corpus->op_names[mg_fuzz_below(rng, corpus->num_op_names)]);
  } else {
    *what = "op-unknown";
    snprintf(buf, sizeof buf, "%.*s%s", (int)dialect_len, name,
             junk_ops[mg_fuzz_below(rng, COUNT(junk_ops))]);
  }
  return replace_str(t, pick.begin, pick.end - pick.begin, buf);
}

/// An SSA use `%name`: replaced by another value of the text, dropped with
/// its comma, or duplicated.
static bool mutate_operand(MgFuzzText *t, uint64_t *rng, const char **what) {
  Pick use = {0}, other = {0};
  for (size_t pos = 0; pos < t->len; ++pos) {
    if (t->data[pos] != '%')
      continue;
    size_t q = pos + 1;
    while (q < t->len &&
           (is_word_char(t->data[q]) || t->data[q] == '#' || t->data[q] == '.'))
      ++q;
    if (q == pos + 1)
      continue;
    offer(&use, rng, pos, q);
    offer(&other, rng, pos, q);
    pos = q - 1;
  }
  if (!use.count)
    return false;
  char name[128];
  size_t n = other.end - other.begin < sizeof name - 1 ? other.end - other.begin
                                                       : sizeof name - 1;
  memcpy(name, t->data + other.begin, n);
  name[n] = 0;
  switch (mg_fuzz_below(rng, 3)) {
  case 0:
    *what = "operand-replace";
    return replace_str(t, use.begin, use.end - use.begin, name);
  case 1: { // drop it and one neighbouring comma
    *what = "operand-drop";
    size_t b = use.begin, e = use.end;
    if (e + 1 < t->len && t->data[e] == ',' && t->data[e + 1] == ' ')
      e += 2;
    else if (b >= 2 && t->data[b - 2] == ',' && t->data[b - 1] == ' ')
      b -= 2;
    return mg_fuzz_text_replace(t, b, e - b, "", 0);
  }
  default: {
    *what = "operand-duplicate";
    char buf[140];
    snprintf(buf, sizeof buf, "%s, ", name);
    return replace_str(t, use.begin, 0, buf);
  }
  }
}

/// A keyword swapped for its counterpart (iterator types, booleans, ...).
static bool mutate_keyword(MgFuzzText *t, uint64_t *rng, const char **what) {
  Pick pick = {0};
  size_t which = 0;
  for (size_t pos = 0; pos < t->len; ++pos)
    for (size_t k = 0; k < COUNT(swaps); ++k)
      for (size_t side = 0; side < 2; ++side) {
        size_t n = strlen(swaps[k][side]);
        if (!strncmp(t->data + pos, swaps[k][side], n)) {
          size_t before = pick.count;
          offer(&pick, rng, pos, pos + n);
          if (pick.count != before && pick.begin == pos)
            which = 2 * k + (1 - side);
        }
      }
  if (!pick.count)
    return false;
  *what = "keyword";
  return replace_str(t, pick.begin, pick.end - pick.begin,
                     swaps[which / 2][which % 2]);
}

bool mg_fuzz_mutate(MgFuzzText *t, uint64_t *rng, const MgFuzzCorpus *corpus,
                    char *what, size_t what_size) {
  const char *name = "none";
  bool ok = true, done = false;
  // Byte and line mutations mostly stop at the parser (which is upstream's,
  // but mg_tool_parse_module's alias hoisting is ours); structure mutations
  // reach the passes from a third to a half of the time.
  uint64_t family = mg_fuzz_below(rng, 20);
  if (family < 3)
    done = ok = mutate_bytes(t, rng, corpus, &name);
  else if (family < 5)
    done = mutate_lines(t, rng, &name);
  else if (family < 9)
    done = mutate_shape(t, rng, &name);
  else if (family < 12)
    done = mutate_dtype(t, rng, &name);
  else if (family < 15)
    done = mutate_int(t, rng, &name);
  else if (family < 16)
    done = mutate_float(t, rng, &name);
  else if (family < 18)
    done = mutate_op_name(t, rng, corpus, &name);
  else if (family < 19)
    done = mutate_operand(t, rng, &name);
  else
    done = mutate_keyword(t, rng, &name);
  // Out of memory and "nothing to change" both come back as false: retry
  // as bytes, which only fail when out of memory.
  if (!done)
    ok = mutate_bytes(t, rng, corpus, &name);
  snprintf(what, what_size, "%s", name);
  return ok;
}

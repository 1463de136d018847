//===- options.c - Parsing pass options in C ------------------------------===//
//
// MLIR hands a registered pipeline its raw option string; we parse it here so
// that the options are the same in mirage-opt and in stock mlir-opt.
//
//===----------------------------------------------------------------------===//
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// One run of mg_options_parse: the table, the values it fills (one per
// spec) and the buffer its message goes to.
typedef struct Parser {
  const MgOptionTable *table;
  MgOptionValue *values;
  char *error;
  size_t error_size;
} Parser;

// Parses `text` (`len` bytes) as the value of option `i`.
static bool parse_value(const Parser *p, size_t i, const char *text,
                        size_t len) {
  const MgOptionSpec *spec = &p->table->specs[i];
  const char *pass_name = p->table->pass_name;
  MgOptionValue *value = &p->values[i];
  char *error = p->error;
  size_t error_size = p->error_size;
  char buf[MG_OPTION_STRING_MAX];
  if (len >= sizeof buf) {
    snprintf(error, error_size, "value of option '%s' of '%s' is too long",
             spec->name, pass_name);
    return false;
  }
  memcpy(buf, text, len);
  buf[len] = 0;
  char *end = NULL;
  errno = 0;
  switch (spec->kind) {
  case MG_OPTION_INT: {
    long long v = strtoll(buf, &end, 10);
    if (len == 0 || *end || errno) {
      snprintf(error, error_size,
               "invalid value '%s' for option '%s' of '%s': expected an integer",
               buf, spec->name, pass_name);
      return false;
    }
    if (v < spec->min_int || v > spec->max_int) {
      snprintf(error, error_size,
               "value %lld of option '%s' of '%s' is out of range [%lld, %lld]",
               v, spec->name, pass_name, (long long)spec->min_int,
               (long long)spec->max_int);
      return false;
    }
    value->i = v;
    return true;
  }
  case MG_OPTION_FLOAT: {
    double v = strtod(buf, &end);
    if (len == 0 || *end || errno || !(v >= 0)) {
      snprintf(error, error_size,
               "invalid value '%s' for option '%s' of '%s': expected a "
               "non-negative number",
               buf, spec->name, pass_name);
      return false;
    }
    value->f = v;
    return true;
  }
  case MG_OPTION_BOOL:
    if (!strcmp(buf, "true") || !strcmp(buf, "1") || len == 0) {
      value->b = true;
    } else if (!strcmp(buf, "false") || !strcmp(buf, "0")) {
      value->b = false;
    } else {
      snprintf(error, error_size,
               "invalid value '%s' for option '%s' of '%s': expected true or "
               "false",
               buf, spec->name, pass_name);
      return false;
    }
    return true;
  case MG_OPTION_STRING:
    memcpy(value->s, buf, len + 1);
    return true;
  }
  return false;
}

bool mg_options_parse(const MgOptionTable *table, const char *text,
                      size_t len, MgOptionValue *values, char *error,
                      size_t error_size) {
  const MgOptionSpec *specs = table->specs;
  const size_t num_specs = table->num_specs;
  const char *pass_name = table->pass_name;
  const Parser p = {table, values, error, error_size};
  for (size_t i = 0; i < num_specs; ++i) {
    memset(&values[i], 0, sizeof values[i]);
    const char *d = specs[i].default_value;
    if (!parse_value(&p, i, d, strlen(d)))
      return false;
  }
  size_t pos = 0;
  while (pos < len) {
    while (pos < len && (text[pos] == ' ' || text[pos] == '\t'))
      ++pos;
    if (pos >= len)
      break;
    size_t key = pos;
    while (pos < len && text[pos] != '=' && text[pos] != ' ')
      ++pos;
    size_t key_len = pos - key;
    const char *val = "";
    size_t val_len = 0;
    bool has_value = pos < len && text[pos] == '=';
    if (has_value) {
      ++pos;
      char quote = pos < len ? text[pos] : 0;
      if (quote == '\'' || quote == '"' || quote == '{') {
        char close = quote == '{' ? '}' : quote;
        val = text + ++pos;
        while (pos < len && text[pos] != close)
          ++pos;
        if (pos >= len) {
          snprintf(error, error_size,
                   "unterminated value for option '%.*s' of '%s'",
                   (int)key_len, text + key, pass_name);
          return false;
        }
        val_len = (size_t)(text + pos - val);
        ++pos;
      } else {
        val = text + pos;
        while (pos < len && text[pos] != ' ')
          ++pos;
        val_len = (size_t)(text + pos - val);
      }
    }
    size_t i = 0;
    while (i < num_specs && (strlen(specs[i].name) != key_len ||
                             strncmp(specs[i].name, text + key, key_len)))
      ++i;
    if (i == num_specs) {
      snprintf(error, error_size, "unknown option '%.*s' for pass '%s'",
               (int)key_len, text + key, pass_name);
      return false;
    }
    if (!has_value && specs[i].kind != MG_OPTION_BOOL) {
      snprintf(error, error_size, "option '%s' of '%s' needs a value",
               specs[i].name, pass_name);
      return false;
    }
    if (!parse_value(&p, i, val, val_len))
      return false;
    values[i].given = true;
  }
  return true;
}

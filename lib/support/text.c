//===- text.c - Growable strings (MgText) ---------------------------------===//
#include "mirage/support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void mg_text_printf(MgText *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mg_text_vprintf(t, fmt, ap);
  va_end(ap);
}

void mg_text_vprintf(MgText *t, const char *fmt, va_list args) {
  if (t->failed)
    return;
  va_list ap;
  va_copy(ap, args);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    t->failed = true;
    return;
  }
  if (t->len + (size_t)n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->len + (size_t)n + 1)
      cap *= 2;
    char *data = realloc(t->data, cap);
    if (!data) {
      t->failed = true;
      return;
    }
    t->data = data;
    t->cap = cap;
  }
  va_copy(ap, args);
  vsnprintf(t->data + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
  MG_ASSERT(t->len < t->cap && t->data[t->len] == '\0');
}

void mg_text_free(MgText *t) {
  free(t->data);
  t->data = NULL;
  t->len = t->cap = 0;
  t->failed = false;
}

//===- cache_memo.c - Cache entry texts in memory, by key ------------------===//
//
// A rank of an MPI run hands rank 0 the entries its lookup read and its
// search wrote (search_mpi.c); rank 0 reads them as it reads the shared
// server's. A handful of entries per subprogram: a linear scan suffices.
//
//===----------------------------------------------------------------------===//
#include "cache.h"

#include <stdlib.h>
#include <string.h>

static MgCacheMemoEntry *find(const MgCacheMemo *m, const char *key) {
  for (uint32_t i = 0; i < m->count; i++)
    if (!strcmp(m->entries[i].key, key))
      return &m->entries[i];
  return NULL;
}

bool mg_cache_memo_put(MgCacheMemo *m, const char *key, const char *text,
                       size_t len) {
  if (strlen(key) != 64)
    return false;
  char *copy = malloc(len + 1);
  if (!copy)
    return false;
  memcpy(copy, text, len);
  copy[len] = '\0';
  MgCacheMemoEntry *e = find(m, key);
  if (!e) {
    if (!mg_array_reserve(&m->entries, &m->cap, m->count + 1,
                          sizeof *m->entries, 4)) {
      free(copy);
      return false;
    }
    e = &m->entries[m->count++];
    memcpy(e->key, key, 65);
    e->text = NULL;
  }
  free(e->text);
  e->text = copy;
  e->len = len;
  return true;
}

const MgCacheMemoEntry *mg_cache_memo_get(const MgCacheMemo *m,
                                          const char *key) {
  return m ? find(m, key) : NULL;
}

void mg_cache_memo_del(MgCacheMemo *m, const char *key) {
  MgCacheMemoEntry *e = m ? find(m, key) : NULL;
  if (!e)
    return;
  free(e->text);
  *e = m->entries[--m->count];
}

void mg_cache_memo_clear(MgCacheMemo *m) {
  for (uint32_t i = 0; i < m->count; i++)
    free(m->entries[i].text);
  m->count = 0;
}

void mg_cache_memo_free(MgCacheMemo *m) {
  mg_cache_memo_clear(m);
  free(m->entries);
  m->entries = NULL;
  m->cap = 0;
}

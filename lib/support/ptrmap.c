//===- ptrmap.c - Pointer-keyed open-addressing hash map ------------------===//
//
// Keys are addresses (e.g. MLIR values and ops); compared by address only, so
// iteration order never matters: callers keep their own ordered arrays and
// use the map for lookups. Load factor stays below 1/2.
//
//===----------------------------------------------------------------------===//
#include "mirage/support.h"

#include <stdlib.h>
#include <string.h>

void mg_ptrmap_init(MgPtrMap *m) { memset(m, 0, sizeof *m); }

void mg_ptrmap_free(MgPtrMap *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

void mg_ptrmap_clear(MgPtrMap *m) {
  if (m->cap)
    memset(m->keys, 0, m->cap * sizeof *m->keys);
  m->count = 0;
}

static size_t slot_of(const MgPtrMap *m, const void *key) {
  // A power-of-two table with a free slot, or the probe would never stop.
  MG_ASSERT(m->cap && (m->cap & (m->cap - 1)) == 0 && m->count < m->cap);
  size_t h = (size_t)(((uintptr_t)key >> 3) * 0x9E3779B97F4A7C15ull);
  size_t i = h & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != key)
    i = (i + 1) & (m->cap - 1);
  return i;
}

static bool grow(MgPtrMap *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  MgPtrMap bigger = {calloc(cap, sizeof(void *)),
                         calloc(cap, sizeof(uint32_t)), cap, 0};
  if (!bigger.keys || !bigger.vals) {
    free(bigger.keys);
    free(bigger.vals);
    return false;
  }
  for (size_t i = 0; i < m->cap; ++i)
    if (m->keys[i]) {
      size_t s = slot_of(&bigger, m->keys[i]);
      bigger.keys[s] = m->keys[i];
      bigger.vals[s] = m->vals[i];
      bigger.count++;
    }
  free(m->keys);
  free(m->vals);
  *m = bigger;
  return true;
}

bool mg_ptrmap_put(MgPtrMap *m, const void *key, uint32_t val) {
  if (!key)
    return true; // null handles are never looked up
  if ((m->count + 1) * 2 > m->cap && !grow(m))
    return false;
  size_t s = slot_of(m, key);
  if (!m->keys[s]) {
    m->keys[s] = key;
    m->count++;
  }
  m->vals[s] = val;
  return true;
}

uint32_t mg_ptrmap_get(const MgPtrMap *m, const void *key) {
  if (!m->cap || !key)
    return UINT32_MAX;
  size_t s = slot_of(m, key);
  return m->keys[s] ? m->vals[s] : UINT32_MAX;
}

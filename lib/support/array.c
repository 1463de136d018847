//===- array.c - Growable malloc'd arrays ---------------------------------===//
//
// The one growth rule for arrays that own their memory (an arena's arrays
// grow in lib/graph/program.c): capacity starts at the caller's `first` and
// doubles until it holds what is needed, so pushing n items costs O(n)
// copies in all.
//
//===----------------------------------------------------------------------===//
#include "mirage/support.h"

#include <stdlib.h>
#include <string.h>

// The capacity that holds `need` elements under the growth rule, or 0 when
// it would pass UINT32_MAX elements.
static uint32_t grown_capacity(uint32_t cap, uint32_t need, uint32_t first) {
  uint64_t want = cap ? cap : (first ? first : 1);
  while (want < need)
    want *= 2;
  return want > UINT32_MAX ? 0 : (uint32_t)want;
}

// Reallocates the array whose pointer is at `items` to `count` elements.
static bool resize(void *items, uint32_t count, size_t size) {
  MG_ASSERT(size > 0);
  if (count > SIZE_MAX / size)
    return false;
  void *old;
  memcpy(&old, items, sizeof old); // items is the address of a T *
  void *fresh = realloc(old, (size_t)count * size);
  if (!fresh)
    return false;
  memcpy(items, &fresh, sizeof fresh);
  return true;
}

bool mg_array_reserve(void *items, uint32_t *cap, uint32_t need, size_t size,
                      uint32_t first) {
  return mg_array_reserve_parallel(&items, &size, 1, cap, need, first);
}

bool mg_array_reserve_parallel(void *const *items, const size_t *sizes,
                               uint32_t n, uint32_t *cap, uint32_t need,
                               uint32_t first) {
  MG_ASSERT(items && sizes && cap && n > 0);
  if (need <= *cap)
    return true;
  uint32_t want = grown_capacity(*cap, need, first);
  bool ok = want != 0;
  for (uint32_t i = 0; ok && i < n; ++i)
    ok = resize(items[i], want, sizes[i]);
  if (ok)
    *cap = want;
  return ok;
}

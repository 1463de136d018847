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

bool mg_array_reserve(void *items, uint32_t *cap, uint32_t need, size_t size,
                      uint32_t first) {
  if (need <= *cap)
    return true;
  uint64_t want = *cap ? *cap : (first ? first : 1);
  while (want < need)
    want *= 2;
  if (want > UINT32_MAX || want > SIZE_MAX / size)
    return false;
  void *old;
  memcpy(&old, items, sizeof old); // items is the address of a T *
  void *fresh = realloc(old, (size_t)want * size);
  if (!fresh)
    return false;
  memcpy(items, &fresh, sizeof fresh);
  *cap = (uint32_t)want;
  return true;
}

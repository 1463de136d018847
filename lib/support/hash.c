//===- hash.c - Canonical hashing and the seeded random source ------------===//
//
// mg_hash_bytes is FNV-1a over bytes. mg_hash_u64 feeds the value's eight
// bytes little-endian first, so hashes do not depend on the host's byte
// order: mg_hash_u64(s, v) == mg_hash_bytes(s, le_bytes(v), 8). Callers pick
// the seed (the FNV offset basis 0xcbf29ce484222325 is the usual one).
//
//===----------------------------------------------------------------------===//
#include "mirage/support.h"

#define FNV_PRIME 0x100000001b3ull

uint64_t mg_hash_bytes(uint64_t seed, const void *data, size_t len) {
  const unsigned char *p = data;
  uint64_t h = seed;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= FNV_PRIME;
  }
  return h;
}

uint64_t mg_hash_u64(uint64_t seed, uint64_t value) {
  uint64_t h = seed;
  for (int i = 0; i < 8; i++) {
    h ^= (value >> (8 * i)) & 0xffu;
    h *= FNV_PRIME;
  }
  return h;
}

#define WEYL_STEP 0x9e3779b97f4a7c15ull

uint64_t mg_rng_next(MgRng *rng) {
  // SplitMix64 (Steele, Lea, Flood 2014): a Weyl sequence through a mixer.
  uint64_t z = (rng->state += WEYL_STEP);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void mg_rng_skip(MgRng *rng, uint64_t n) {
  rng->state += n * WEYL_STEP; // modulo 2^64, as the steps themselves
}

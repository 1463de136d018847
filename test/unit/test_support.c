//===- test_support.c - Unit tests for lib/support ------------------------===//
#include "mirage/support.h"
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_support_diag_set(void) {
  MgDiag d;
  memset(&d, 0x55, sizeof d);
  MgStatus st =
      mg_diag_set(&d, MG_STATUS_INVALID, 3, 7, "bad '%s' %d", "x", 42);
  CHECK_EQ_INT(st, MG_STATUS_INVALID);
  CHECK_EQ_INT(d.graph, 3);
  CHECK_EQ_INT(d.op, 7);
  CHECK_EQ_INT(d.status, MG_STATUS_INVALID);
  CHECK(strcmp(d.message, "bad 'x' 42") == 0);
  // NULL diag: only the status comes back.
  CHECK_EQ_INT(mg_diag_set(NULL, MG_STATUS_NOMEM, 0, 0, "x"), MG_STATUS_NOMEM);
  // Long messages are truncated and terminated.
  char big[600];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  mg_diag_set(&d, MG_STATUS_BUDGET, -1, -1, "%s", big);
  CHECK_EQ_INT(strlen(d.message), sizeof d.message - 1);
  CHECK_EQ_INT(d.graph, -1);
  CHECK_EQ_INT(d.status, MG_STATUS_BUDGET);
}

static void test_support_status_name(void) {
  CHECK(strcmp(mg_status_name(MG_STATUS_OK), "ok") == 0);
  CHECK(strcmp(mg_status_name(MG_STATUS_INVALID), "invalid") == 0);
  CHECK(strcmp(mg_status_name(MG_STATUS_UNSUPPORTED), "unsupported") == 0);
  CHECK(strcmp(mg_status_name(MG_STATUS_NOMEM), "nomem") == 0);
  CHECK(strcmp(mg_status_name(MG_STATUS_BUDGET), "budget") == 0);
  CHECK(strcmp(mg_status_name(MG_STATUS_COUNT), "unknown") == 0);
}

static void test_support_arena_aligned_zeroed(void) {
  MgArena *a = mg_arena_create(0); // clamps to a minimum chunk
  CHECK(a != NULL);
  CHECK_EQ_INT(mg_arena_bytes_used(a), 0);
  size_t expect = 0;
  for (size_t n = 1; n < 300; n += 7) {
    unsigned char *p = mg_arena_alloc(a, n, 3);
    CHECK(p != NULL);
    CHECK_EQ_INT((uintptr_t)p % 16, 0);
    size_t zeros = 0;
    for (size_t i = 0; i < n * 3; i++)
      zeros += p[i] == 0;
    CHECK_EQ_INT(zeros, n * 3);
    memset(p, 0xff, n * 3); // must not disturb later allocations
    expect += (n * 3 + 15) / 16 * 16;
  }
  CHECK_EQ_INT(mg_arena_bytes_used(a), expect);
  // Larger than a chunk: a dedicated chunk, still aligned and zeroed.
  unsigned char *big = mg_arena_alloc(a, 1 << 20, 1);
  CHECK(big != NULL);
  CHECK_EQ_INT((uintptr_t)big % 16, 0);
  CHECK_EQ_INT(big[0] | big[(1 << 20) - 1], 0);
  CHECK_EQ_INT(mg_arena_bytes_used(a), expect + (1 << 20));
  // The current chunk keeps serving small requests after a big one.
  unsigned char *small = mg_arena_alloc(a, 1, 1);
  CHECK(small != NULL && small[0] == 0);
  mg_arena_destroy(a);
}

static void test_support_arena_overflow(void) {
  MgArena *a = mg_arena_create(1024);
  CHECK(mg_arena_alloc(a, SIZE_MAX / 2, 4) == NULL);
  CHECK(mg_arena_alloc(a, 4, SIZE_MAX / 2) == NULL);
  CHECK(mg_arena_alloc(a, SIZE_MAX, 1) == NULL);
  CHECK_EQ_INT(mg_arena_bytes_used(a), 0);
  // Zero-size requests give distinct valid pointers.
  void *p = mg_arena_alloc(a, 0, 8), *q = mg_arena_alloc(a, 8, 0);
  CHECK(p != NULL && q != NULL && p != q);
  CHECK(mg_arena_alloc(NULL, 1, 1) == NULL);
  CHECK_EQ_INT(mg_arena_bytes_used(NULL), 0);
  mg_arena_destroy(a);
  mg_arena_destroy(NULL);
}

static void test_support_arena_no_overlap(void) {
  MgArena *a = mg_arena_create(4096);
  uint32_t *blocks[500];
  for (uint32_t i = 0; i < 500; i++) {
    uint32_t n = 1 + i % 37;
    blocks[i] = mg_arena_alloc(a, n, sizeof(uint32_t));
    for (uint32_t k = 0; k < n; k++)
      blocks[i][k] = i;
  }
  int bad = 0;
  for (uint32_t i = 0; i < 500; i++)
    for (uint32_t k = 0; k < 1 + i % 37; k++)
      bad += blocks[i][k] != i;
  CHECK_EQ_INT(bad, 0);
  mg_arena_destroy(a);
}

static void test_support_hash_fnv1a(void) {
  const uint64_t basis = 0xcbf29ce484222325ull;
  // Published FNV-1a 64-bit test vectors.
  CHECK(mg_hash_bytes(basis, "", 0) == 0xcbf29ce484222325ull);
  CHECK(mg_hash_bytes(basis, "a", 1) == 0xaf63dc4c8601ec8cull);
  CHECK(mg_hash_bytes(basis, "foobar", 6) == 0x85944171f73967e8ull);
  // mg_hash_u64 feeds little-endian bytes.
  unsigned char le[8];
  uint64_t v = 0x0102030405060708ull;
  for (int i = 0; i < 8; i++)
    le[i] = (unsigned char)(v >> (8 * i));
  CHECK(mg_hash_u64(basis, v) == mg_hash_bytes(basis, le, 8));
  CHECK(mg_hash_u64(basis, 1) != mg_hash_u64(basis, 2));
  CHECK(mg_hash_u64(1, 5) != mg_hash_u64(2, 5));
}

static void test_support_rng_skip(void) {
  MgRng a = {42}, b = {42};
  for (int i = 0; i < 1000; ++i)
    mg_rng_next(&a);
  mg_rng_skip(&b, 1000);
  CHECK(mg_rng_next(&a) == mg_rng_next(&b));
}

static void test_support_rng_splitmix64(void) {
  // Reference outputs of SplitMix64 (Vigna's splitmix64.c) from state 0.
  MgRng r = {0};
  CHECK(mg_rng_next(&r) == 0xe220a8397b1dcdafull);
  CHECK(mg_rng_next(&r) == 0x6e789e6aa1b965f4ull);
  CHECK(mg_rng_next(&r) == 0x06c45d188009454full);
  // Deterministic: equal seeds, equal streams.
  MgRng a = {12345}, b = {12345};
  int same = 0;
  for (int i = 0; i < 100; i++)
    same += mg_rng_next(&a) == mg_rng_next(&b);
  CHECK_EQ_INT(same, 100);
}

static bool digest_is(const uint8_t d[32], const char *hex) {
  char buf[65];
  for (int i = 0; i < 32; i++)
    snprintf(buf + 2 * i, 3, "%02x", d[i]);
  return strcmp(buf, hex) == 0;
}

static void sha256_of(const void *data, size_t len, uint8_t out[32]) {
  MgSha256 s;
  mg_sha256_init(&s);
  mg_sha256_update(&s, data, len);
  mg_sha256_final(&s, out);
}

static void test_support_sha256_vectors(void) {
  uint8_t d[32];
  // FIPS 180-4 examples (NIST CSRC): "", "abc", the 448-bit message.
  sha256_of("", 0, d);
  CHECK(digest_is(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
  sha256_of("abc", 3, d);
  CHECK(digest_is(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
  const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  sha256_of(m448, strlen(m448), d);
  CHECK(digest_is(d, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
  // One million 'a', fed in uneven pieces (block boundaries inside updates).
  MgSha256 s;
  mg_sha256_init(&s);
  char a[1000];
  memset(a, 'a', sizeof a);
  for (size_t done = 0, step = 1; done < 1000000; done += step, step = step % 997 + 1)
    mg_sha256_update(&s, a, done + step > 1000000 ? 1000000 - done : step);
  mg_sha256_final(&s, d);
  CHECK(digest_is(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
}

static void test_support_hmac_sha256_rfc4231(void) {
  uint8_t d[32], key[131];
  // RFC 4231 test case 1: 20 bytes 0x0b, "Hi There".
  memset(key, 0x0b, 20);
  mg_hmac_sha256(key, 20, "Hi There", 8, d);
  CHECK(digest_is(d, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"));
  // Test case 2: key "Jefe".
  const char *msg2 = "what do ya want for nothing?";
  mg_hmac_sha256("Jefe", 4, msg2, strlen(msg2), d);
  CHECK(digest_is(d, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
  // Test case 6: a 131-byte key (hashed first).
  memset(key, 0xaa, sizeof key);
  const char *msg6 = "Test Using Larger Than Block-Size Key - Hash Key First";
  mg_hmac_sha256(key, sizeof key, msg6, strlen(msg6), d);
  CHECK(digest_is(d, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"));
}

// Capacity starts at `first`, doubles past what is needed, and a failed
// request leaves the array as it was.
static void test_support_array_reserve(void) {
  int64_t *items = NULL;
  uint32_t cap = 0;
  CHECK(mg_array_reserve(&items, &cap, 0, sizeof *items, 4));
  CHECK(items == NULL);
  CHECK(mg_array_reserve(&items, &cap, 1, sizeof *items, 4));
  CHECK_EQ_INT(cap, 4);
  for (int64_t i = 0; i < 4; i++)
    items[i] = i;
  CHECK(mg_array_reserve(&items, &cap, 5, sizeof *items, 4));
  CHECK_EQ_INT(cap, 8);
  CHECK(mg_array_reserve(&items, &cap, 33, sizeof *items, 4));
  CHECK_EQ_INT(cap, 64);
  CHECK_EQ_INT(items[3], 3);
  int64_t *before = items;
  CHECK(!mg_array_reserve(&items, &cap, UINT32_MAX, SIZE_MAX / 2, 4));
  CHECK(items == before);
  CHECK_EQ_INT(cap, 64);
  free(items);
}

static void test_support_array_reserve_parallel(void) {
  int64_t *wide = NULL;
  uint8_t *narrow = NULL;
  void *const arrays[] = {&wide, &narrow};
  const size_t sizes[] = {sizeof *wide, sizeof *narrow};
  uint32_t cap = 0;
  CHECK(mg_array_reserve_parallel(arrays, sizes, 2, &cap, 3, 8));
  CHECK_EQ_INT(cap, 8);
  CHECK(wide != NULL && narrow != NULL);
  wide[7] = 7;
  narrow[7] = 7;
  CHECK(mg_array_reserve_parallel(arrays, sizes, 2, &cap, 9, 8));
  CHECK_EQ_INT(cap, 16);
  CHECK_EQ_INT(wide[7], 7);
  CHECK_EQ_INT(narrow[7], 7);
  // Past UINT32_MAX elements: false, the shared capacity unchanged.
  CHECK(!mg_array_reserve_parallel(arrays, sizes, 2, &cap, UINT32_MAX, 8));
  CHECK_EQ_INT(cap, 16);
  free(wide);
  free(narrow);
}

int main(void) {
  RUN_TEST(test_support_diag_set);
  RUN_TEST(test_support_status_name);
  RUN_TEST(test_support_array_reserve);
  RUN_TEST(test_support_array_reserve_parallel);
  RUN_TEST(test_support_arena_aligned_zeroed);
  RUN_TEST(test_support_arena_overflow);
  RUN_TEST(test_support_arena_no_overlap);
  RUN_TEST(test_support_hash_fnv1a);
  RUN_TEST(test_support_rng_splitmix64);
  RUN_TEST(test_support_rng_skip);
  RUN_TEST(test_support_sha256_vectors);
  RUN_TEST(test_support_hmac_sha256_rfc4231);
  return TEST_SUMMARY();
}

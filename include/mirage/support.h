//===- support.h - Status codes, diagnostics and the arena ------*- C -*-===//
//
// Shared by every library in lib/. No MLIR here: libraries build, test and
// benchmark without a context.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SUPPORT_H
#define MIRAGE_SUPPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MG_API __attribute__((visibility("default")))
#else
#define MG_API
#endif

/// Checks an invariant of our own code (an id in range, an arena or emitter
/// in the state its caller promised), as Lua's lua_assert: compiled in where
/// MG_ENABLE_ASSERT is defined (the sanitized and Debug builds, set by
/// CMakeLists.txt), where a false `cond` prints file:line and the expression
/// and aborts; elsewhere `cond` is not evaluated at all. Never for bad input:
/// that gets an MgDiag (docs/graph.md, Support library).
#if defined(MG_ENABLE_ASSERT)
#define MG_ASSERT(cond)                                                        \
  ((cond) ? (void)0 : mg_assert_fail(#cond, __FILE__, __LINE__, __func__))
#else
#define MG_ASSERT(cond) ((void)0)
#endif

/// Reports a failed MG_ASSERT on stderr and aborts.
MG_API void mg_assert_fail(const char *expr, const char *file, int line,
                           const char *func)
#if defined(__GNUC__)
    __attribute__((noreturn, cold))
#endif
    ;

/// Result of a library call. Bad input is INVALID/UNSUPPORTED with an MgDiag;
/// exhaustion (memory, budgets) is NOMEM/BUDGET.
typedef enum MgStatus {
  MG_STATUS_OK = 0,
  MG_STATUS_INVALID,
  MG_STATUS_UNSUPPORTED,
  MG_STATUS_NOMEM,
  MG_STATUS_BUDGET,
  MG_STATUS_COUNT
} MgStatus;

/// Where and why a call failed. `graph`/`op` index the offending op (-1 when
/// none) so the pass layer can map it to an MLIR location. `status` is what
/// the failing call returned: test it, not the message, to tell exhaustion
/// from bad input (it stays MG_STATUS_OK in a diagnostic written by hand).
typedef struct MgDiag {
  int32_t graph;
  int32_t op;
  char message[256];
  MgStatus status;
} MgDiag;

/// An empty diagnostic: no op, no message, no failure yet.
#define MG_DIAG_INIT {-1, -1, "", MG_STATUS_OK}

/// Fills `diag` (may be NULL) with `status` and a printf-style message;
/// returns `status`.
MG_API MgStatus mg_diag_set(MgDiag *diag, MgStatus status, int32_t graph,
                            int32_t op, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/// Name of a status, for messages.
MG_API const char *mg_status_name(MgStatus status);

/// A bump allocator. Everything allocated from it is freed at once by
/// mg_arena_destroy; `bytes_used` feeds memory budgets.
typedef struct MgArena MgArena;

/// Creates an arena; the caller must mg_arena_destroy it. NULL on no memory.
MG_API MgArena *mg_arena_create(size_t chunk_bytes);
/// Frees the arena and everything in it. Accepts NULL.
MG_API void mg_arena_destroy(MgArena *arena);
/// Zeroed, 16-byte aligned memory owned by the arena; NULL on no memory or
/// when count * size overflows.
MG_API void *mg_arena_alloc(MgArena *arena, size_t count, size_t size);
/// Total bytes handed out so far.
MG_API size_t mg_arena_bytes_used(const MgArena *arena);

/// 64-bit FNV-1a style mixing, for canonical hashes.
MG_API uint64_t mg_hash_bytes(uint64_t seed, const void *data, size_t len);
MG_API uint64_t mg_hash_u64(uint64_t seed, uint64_t value);

/// SHA-256 (FIPS 180-4), incremental, and HMAC-SHA-256 (RFC 2104): for
/// authenticating files, not for speed.
typedef struct MgSha256 {
  uint32_t h[8];
  uint64_t bytes;
  uint8_t buf[64];
  size_t fill;
} MgSha256;
MG_API void mg_sha256_init(MgSha256 *s);
MG_API void mg_sha256_update(MgSha256 *s, const void *data, size_t len);
MG_API void mg_sha256_final(MgSha256 *s, uint8_t out[32]);
MG_API void mg_hmac_sha256(const void *key, size_t key_len, const void *data,
                           size_t len, uint8_t out[32]);

/// Pointer -> uint32 hash map (open addressing, load below 1/2). Keys are
/// compared by address only; iteration order is never exposed, so callers
/// keep their own ordered arrays and use the map for lookups.
typedef struct MgPtrMap {
  const void **keys;
  uint32_t *vals;
  size_t cap, count;
} MgPtrMap;

/// Empty map (no allocation until the first put).
MG_API void mg_ptrmap_init(MgPtrMap *m);
MG_API void mg_ptrmap_free(MgPtrMap *m);
MG_API void mg_ptrmap_clear(MgPtrMap *m);
/// Inserts or overwrites; NULL keys are ignored. False on no memory.
MG_API bool mg_ptrmap_put(MgPtrMap *m, const void *key, uint32_t val);
/// The value, or UINT32_MAX when absent.
MG_API uint32_t mg_ptrmap_get(const MgPtrMap *m, const void *key);

/// Seconds on a monotonic clock (for time budgets and deadlines).
MG_API double mg_clock_now(void);

/// Greatest common divisor of two non-negative integers (gcd(a, 0) = a).
MG_API int64_t mg_gcd_i64(int64_t a, int64_t b);

/// Makes the malloc'd array `*items` (`*cap` elements of `size` bytes) hold
/// at least `need` elements: the capacity starts at `first` and doubles.
/// `items` is the address of the array's pointer (a `T **`). False, with
/// both unchanged, when out of memory or past UINT32_MAX elements.
MG_API bool mg_array_reserve(void *items, uint32_t *cap, uint32_t need,
                             size_t size, uint32_t first);

/// mg_array_reserve for `n` parallel arrays that share one capacity `*cap`:
/// `items[i]` is the address of array i's pointer, `sizes[i]` its element
/// size. False, with `*cap` unchanged, when any of them could not grow (the
/// ones that did keep their larger allocation, still owned by the caller).
MG_API bool mg_array_reserve_parallel(void *const *items, const size_t *sizes,
                                      uint32_t n, uint32_t *cap, uint32_t need,
                                      uint32_t first);

/// A growable NUL-terminated string. Appends after a failed allocation are
/// ignored and `failed` stays set, so a caller checks once at the end.
typedef struct MgText {
  char *data; // NULL until the first append
  size_t len, cap;
  bool failed;
} MgText;
/// Appends printf-style text.
MG_API void mg_text_printf(MgText *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/// mg_text_printf with a va_list.
MG_API void mg_text_vprintf(MgText *t, const char *fmt, va_list ap);
/// Frees the buffer and empties `t`. Accepts a zeroed text.
MG_API void mg_text_free(MgText *t);

/// SplitMix64: the only random source in the libraries (always seeded).
typedef struct MgRng {
  uint64_t state;
} MgRng;
MG_API uint64_t mg_rng_next(MgRng *rng);
/// Advances `rng` past `n` draws in constant time (SplitMix64's state is a
/// Weyl sequence), so that a stream can be split between threads.
MG_API void mg_rng_skip(MgRng *rng, uint64_t n);

/// A file written in full or not at all: output goes to a temporary file
/// beside `path` that replaces it (rename) only on mg_outfile_commit, so a
/// failed run never truncates or half-writes the target. "-" is stdout and
/// targets that are not regular files (/dev/null, pipes) are written
/// directly; either way every write error (ENOSPC, EIO) reaches the commit.
typedef struct MgOutFile {
  FILE *stream;  // where to write
  char *path;    // the target (symbolic links resolved)
  char *tmp;     // the temporary file, NULL when written directly
  int error;     // errno of the first failed flush, 0 if none
} MgOutFile;
/// Opens `path` for writing; non-OK with a message naming the file.
MG_API MgStatus mg_outfile_open(MgOutFile *f, const char *path, MgDiag *diag);
/// Flushes what was written so far (e.g. to keep it in order with
/// diagnostics on a terminal), remembering the first error for the commit.
MG_API void mg_outfile_flush(MgOutFile *f);
/// Flushes, checks every write, closes and renames over the target; on
/// failure the temporary file is removed and the target left as it was.
MG_API MgStatus mg_outfile_commit(MgOutFile *f, MgDiag *diag);
/// Drops what was written (the target is left as it was). Accepts a zeroed
/// or already committed MgOutFile.
MG_API void mg_outfile_discard(MgOutFile *f);
/// mkdir -p `dir` (mode 0755 less the umask); non-OK with a message naming
/// it (errno set) unless it ends up a directory this process can create
/// files in.
MG_API MgStatus mg_outfile_make_dirs(const char *dir, MgDiag *diag);
/// mg_outfile_make_dirs creating the missing directories with `mode` (less
/// the umask); the search cache's are 0700.
MG_API MgStatus mg_outfile_make_dirs_mode(const char *dir, unsigned mode,
                                          MgDiag *diag);

/// Files kept for oneself in a directory others may be able to write (the
/// search cache, lib/support/privfile.c). Unlike MgOutFile, never through
/// a symbolic link: a read opens with O_NOFOLLOW | O_NONBLOCK and takes
/// only a regular file of the effective user of at most `max` bytes
/// (`*mode`, if not NULL: its permission bits).
typedef enum MgPrivRead {
  MG_PRIV_ABSENT,  // no such file
  MG_PRIV_READ,    // `*data` (malloc'd, NUL-terminated) and `*len` filled
  MG_PRIV_REFUSED, // a link, FIFO, device, another user's or too large:
                   // `diag` says which
} MgPrivRead;
MG_API MgPrivRead mg_privfile_read(const char *path, size_t max, char **data,
                                   size_t *len, unsigned *mode, MgDiag *diag);
/// Writes `data` to a new temporary file `.NAME.XXXXXX` (O_EXCL, mode 0600)
/// beside `path` and renames it over `path` (`replace`), which replaces a
/// link or special file rather than writing through it; without `replace`
/// it is published only if `path` does not exist (EEXIST otherwise). Non-OK
/// with a message (errno set) on any failure, the temporary file removed.
MG_API MgStatus mg_privfile_write(const char *path, const void *data,
                                  size_t len, bool replace, MgDiag *diag);
/// True when users other than the effective one can create or replace
/// files in `dir`: a group or other write bit (sticky or not), or another
/// owner.
MG_API bool mg_privfile_dir_shared(const char *dir);

/// Bit patterns of floats and back (memcpy: no aliasing questions).
static inline uint32_t mg_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static inline float mg_f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static inline uint64_t mg_f64_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/// Conversions between IEEE binary64/binary32/binary16 and bfloat16 on bit
/// patterns, rounding to nearest-even (one rounding, also from binary64),
/// overflow to infinity, subnormals kept, NaNs quieted with their sign and
/// leading payload bits. They back the soft-float helpers of the CPU JIT and
/// must not depend on the host CPU or compiler.
MG_API uint16_t mg_softfloat_f32_to_bf16(uint32_t f32);
MG_API uint16_t mg_softfloat_f32_to_f16(uint32_t f32);
MG_API uint16_t mg_softfloat_f64_to_bf16(uint64_t f64);
MG_API uint16_t mg_softfloat_f64_to_f16(uint64_t f64);
/// Exact widenings (every binary16 and bfloat16 value is a binary32 value).
MG_API uint32_t mg_softfloat_f16_to_f32(uint16_t f16);
MG_API uint32_t mg_softfloat_bf16_to_f32(uint16_t bf16);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_SUPPORT_H

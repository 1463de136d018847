//===- remote_cache.h - A shared search cache in Redis ---------------------===//
//
// The search's results shared by a team or a CI fleet through a Redis
// server (`cache-url=redis://HOST[:PORT][/DB]`, or MIRAGE_CACHE_URL),
// beside the on-disk cache (cache.h): the same keys, the same entry text
// (a header with the key, a checksum and a part count, then the μGraph),
// never code. Anyone who can write to the server can put anything there,
// so cache.c verifies every entry read from it, whatever it claims.
//
// A server that is down, unreachable, slow (every connect and reply is
// bounded by a stated timeout), full or read-only is never an error: the
// first failure is reported once, the connection is dropped, and the run
// goes on with the local cache and the search alone. Built without
// hiredis, opening fails with a message saying so.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_PASSES_REMOTE_CACHE_H
#define MIRAGE_PASSES_REMOTE_CACHE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct MgRemoteCache MgRemoteCache;

/// Connect and reply timeout of every request, seconds (the default).
#define MG_REMOTE_TIMEOUT_S 2.0

typedef enum MgRemoteStatus {
  MG_REMOTE_OK,        // GET: a value; PUT/DEL: done
  MG_REMOTE_MISS,      // GET: no value under the key
  MG_REMOTE_TOO_LARGE, // GET: a value over the bound, not read whole
  MG_REMOTE_FAILED,    // the server is out of use from now on
                       // (mg_remote_cache_failure says why)
} MgRemoteStatus;

/// Where a redis:// URL points.
typedef struct MgRedisAddress {
  char host[256];
  int port; // 6379 unless given
  int db;   // 0 unless given
} MgRedisAddress;

/// Whether this build can talk to Redis (hiredis was found).
bool mg_remote_cache_supported(void);

/// Parses `url`; false with a message for anything but
/// redis://HOST[:PORT][/DB] (PORT 1..65535, default 6379; DB 0..15).
bool mg_remote_cache_parse_url(const char *url, MgRedisAddress *a,
                               char *why, size_t size);

/// Connects to `url` within `timeout_s` (also every later reply's bound).
/// NULL with a message when the URL is bad, the build has no hiredis, or
/// the server cannot be reached.
MgRemoteCache *mg_remote_cache_open(const char *url, double timeout_s,
                                    char *why, size_t size);
void mg_remote_cache_close(MgRemoteCache *r);

/// A value: its bytes (malloc'd, NUL-terminated) and length.
typedef struct MgRemoteValue {
  char *text;
  size_t len;
} MgRemoteValue;

/// The value under `key` (a 64-digit hex key), at most `max_bytes` (a
/// longer one is not read whole: TOO_LARGE).
MgRemoteStatus mg_remote_cache_get(MgRemoteCache *r, const char *key,
                                   size_t max_bytes, MgRemoteValue *v);
/// Stores `v` under `key`, expiring after `ttl_s` (0: never).
MgRemoteStatus mg_remote_cache_put(MgRemoteCache *r, const char *key,
                                   MgRemoteValue v, unsigned ttl_s);
/// Why the server is out of use (its first failed request), or NULL.
const char *mg_remote_cache_failure(const MgRemoteCache *r);

/// Deletes the value under `key` (a rejected entry).
MgRemoteStatus mg_remote_cache_del(MgRemoteCache *r, const char *key);

/// One search across the fleet: takes the lock of `key` for `token`
/// (`SET mirage-lock:<key> token NX PX ttl_ms`): OK when taken, MISS when
/// another process holds it. The lock expires after `ttl_ms`, so a
/// crashed holder blocks nobody for longer.
MgRemoteStatus mg_remote_cache_lock(MgRemoteCache *r, const char *key,
                                    const char *token, unsigned ttl_ms);
/// Whether the lock of `key` is held: OK held, MISS free.
MgRemoteStatus mg_remote_cache_locked(MgRemoteCache *r, const char *key);
/// Releases the lock of `key` if `token` still holds it (an expired lock
/// another process took since is left alone).
MgRemoteStatus mg_remote_cache_unlock(MgRemoteCache *r, const char *key,
                                      const char *token);

#endif // MIRAGE_PASSES_REMOTE_CACHE_H

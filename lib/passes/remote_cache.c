//===- remote_cache.c - A shared search cache in Redis (hiredis) ----------===//
//
// One Redis string per entry, under "mirage:<key>". Reads ask GETRANGE for
// at most max_bytes + 1 bytes, so a planted multi-gigabyte value is never
// read whole. The first failed request (connection refused or lost, a
// timeout, an error reply such as a full or read-only server) ends the
// use of the server for the run: one message, then local work only.
//
//===----------------------------------------------------------------------===//
#include "remote_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MIRAGE_HAVE_HIREDIS
#include <hiredis/hiredis.h>
#include <sys/time.h>
#endif

bool mg_remote_cache_parse_url(const char *url, MgRedisAddress *a,
                               char *why, size_t size) {
  static const char scheme[] = "redis://";
  a->port = 6379;
  a->db = 0;
  if (!url || strncmp(url, scheme, sizeof scheme - 1)) {
    snprintf(why, size, "cache-url '%s' is not redis://HOST[:PORT][/DB]",
             url ? url : "");
    return false;
  }
  const char *h = url + sizeof scheme - 1;
  size_t n = strcspn(h, ":/");
  if (n == 0 || n >= sizeof a->host) {
    snprintf(why, size, "cache-url '%s' has no host (or one too long)", url);
    return false;
  }
  memcpy(a->host, h, n);
  a->host[n] = 0;
  const char *rest = h + n;
  char *end;
  if (*rest == ':') {
    errno = 0;
    long p = strtol(rest + 1, &end, 10);
    if (end == rest + 1 || errno || p < 1 || p > 65535 ||
        (*end && *end != '/')) {
      snprintf(why, size, "cache-url '%s' has a bad port", url);
      return false;
    }
    a->port = (int)p;
    rest = end;
  }
  if (*rest && strcmp(rest, "/")) { // "/DB"
    errno = 0;
    long d = *rest == '/' ? strtol(rest + 1, &end, 10) : -1;
    if (d < 0 || end == rest + 1 || *end || errno || d > 15) {
      snprintf(why, size, "cache-url '%s' is not redis://HOST[:PORT][/DB] "
                          "(DB 0..15)", url);
      return false;
    }
    a->db = (int)d;
  }
  return true;
}

#ifdef MIRAGE_HAVE_HIREDIS

struct MgRemoteCache {
  redisContext *c;
  bool failed;     // a request failed: the server is out of use
  char why[256];   // the first failure
  double timeout_s;
};

const char *mg_remote_cache_failure(const MgRemoteCache *r) {
  return r && r->failed ? r->why : NULL;
}

bool mg_remote_cache_supported(void) { return true; }

static struct timeval timeval_of(double s) {
  struct timeval tv;
  tv.tv_sec = (time_t)s;
  tv.tv_usec = (suseconds_t)((s - (double)tv.tv_sec) * 1e6);
  return tv;
}

static void fail_reason(const MgRemoteCache *r, const redisReply *reply,
                        const char *what, char *why, size_t size);

// Marks the server out of use and says why (hiredis's message, or the
// error reply's text); the first failure's reason is kept.
static MgRemoteStatus fail(MgRemoteCache *r, const redisReply *reply,
                           const char *what) {
  if (!r->failed)
    fail_reason(r, reply, what, r->why, sizeof r->why);
  r->failed = true;
  return MG_REMOTE_FAILED;
}

static void fail_reason(const MgRemoteCache *r, const redisReply *reply,
                        const char *what, char *why, size_t size) {
  if (reply && reply->type == REDIS_REPLY_ERROR)
    snprintf(why, size, "%s: the server answered '%.*s'", what,
             (int)reply->len, reply->str);
  else if (r->c && r->c->err == REDIS_ERR_IO &&
           strstr(r->c->errstr, "temporarily unavailable"))
    snprintf(why, size, "%s: no reply within %g s", what, r->timeout_s);
  else if (r->c && r->c->err)
    snprintf(why, size, "%s: %s", what, r->c->errstr);
  else
    snprintf(why, size, "%s: unexpected reply", what);
}

// The status of a reply that should be of `type` (or nil, when `nil_miss`:
// MISS): OK, or the server out of use. Frees the reply.
static MgRemoteStatus expect(MgRemoteCache *r, redisReply *reply, int type,
                             bool nil_miss, const char *what) {
  MgRemoteStatus st = reply && reply->type == type ? MG_REMOTE_OK
                      : reply && nil_miss && reply->type == REDIS_REPLY_NIL
                          ? MG_REMOTE_MISS
                          : fail(r, reply, what);
  if (reply)
    freeReplyObject(reply);
  return st;
}

MgRemoteCache *mg_remote_cache_open(const char *url, double timeout_s,
                                    char *why, size_t size) {
  MgRedisAddress a;
  if (!mg_remote_cache_parse_url(url, &a, why, size))
    return NULL;
  MgRemoteCache *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(why, size, "out of memory");
    return NULL;
  }
  r->timeout_s = timeout_s > 0 ? timeout_s : MG_REMOTE_TIMEOUT_S;
  struct timeval tv = timeval_of(r->timeout_s);
  r->c = redisConnectWithTimeout(a.host, a.port, tv);
  if (!r->c || r->c->err) {
    snprintf(why, size, "cannot reach %s within %g s: %s", url, r->timeout_s,
             r->c ? r->c->errstr : "out of memory");
    mg_remote_cache_close(r);
    return NULL;
  }
  // Replies are bounded too: a server that accepts and never answers
  // costs one timeout, not a hang.
  if (redisSetTimeout(r->c, tv) != REDIS_OK) {
    snprintf(why, size, "cannot set a timeout on %s", url);
    mg_remote_cache_close(r);
    return NULL;
  }
  redisReply *reply = a.db ? redisCommand(r->c, "SELECT %d", a.db)
                           : redisCommand(r->c, "PING");
  bool ok = reply && reply->type == REDIS_REPLY_STATUS;
  if (!ok) {
    fail(r, reply, url);
    snprintf(why, size, "%s", r->why);
    if (reply)
      freeReplyObject(reply);
    mg_remote_cache_close(r);
    return NULL;
  }
  freeReplyObject(reply);
  return r;
}

void mg_remote_cache_close(MgRemoteCache *r) {
  if (!r)
    return;
  if (r->c)
    redisFree(r->c);
  free(r);
}

MgRemoteStatus mg_remote_cache_get(MgRemoteCache *r, const char *key,
                                   size_t max_bytes, MgRemoteValue *v) {
  *v = (MgRemoteValue){NULL, 0};
  if (!r || r->failed)
    return MG_REMOTE_FAILED;
  // hiredis's format knows no %zu.
  redisReply *reply = redisCommand(r->c, "GETRANGE mirage:%s 0 %llu", key,
                                   (unsigned long long)max_bytes);
  if (!reply || reply->type != REDIS_REPLY_STRING) {
    MgRemoteStatus st = fail(r, reply, "GET");
    if (reply)
      freeReplyObject(reply);
    return st;
  }
  MgRemoteStatus st = MG_REMOTE_MISS; // no key reads as the empty string
  if (reply->len > max_bytes) {
    st = MG_REMOTE_TOO_LARGE;
  } else if (reply->len > 0 && (v->text = malloc(reply->len + 1))) {
    memcpy(v->text, reply->str, reply->len);
    v->text[reply->len] = 0;
    v->len = reply->len;
    st = MG_REMOTE_OK;
  }
  freeReplyObject(reply);
  return st;
}

MgRemoteStatus mg_remote_cache_put(MgRemoteCache *r, const char *key,
                                   MgRemoteValue v, unsigned ttl_s) {
  if (!r || r->failed)
    return MG_REMOTE_FAILED;
  redisReply *reply =
      ttl_s ? redisCommand(r->c, "SET mirage:%s %b EX %u", key, v.text,
                           v.len, ttl_s)
            : redisCommand(r->c, "SET mirage:%s %b", key, v.text, v.len);
  return expect(r, reply, REDIS_REPLY_STATUS, false, "SET");
}

MgRemoteStatus mg_remote_cache_del(MgRemoteCache *r, const char *key) {
  if (!r || r->failed)
    return MG_REMOTE_FAILED;
  return expect(r, redisCommand(r->c, "DEL mirage:%s", key),
                REDIS_REPLY_INTEGER, false, "DEL");
}

MgRemoteStatus mg_remote_cache_lock(MgRemoteCache *r, const char *key,
                                    const char *token, unsigned ttl_ms) {
  if (!r || r->failed)
    return MG_REMOTE_FAILED;
  return expect(r, redisCommand(r->c, "SET mirage-lock:%s %s NX PX %u", key,
                                token, ttl_ms),
                REDIS_REPLY_STATUS, true, "SET NX");
}

MgRemoteStatus mg_remote_cache_locked(MgRemoteCache *r, const char *key) {
  if (!r || r->failed)
    return MG_REMOTE_FAILED;
  redisReply *reply = redisCommand(r->c, "EXISTS mirage-lock:%s", key);
  bool held = reply && reply->type == REDIS_REPLY_INTEGER && reply->integer;
  MgRemoteStatus st = expect(r, reply, REDIS_REPLY_INTEGER, false, "EXISTS");
  return st == MG_REMOTE_OK && !held ? MG_REMOTE_MISS : st;
}

MgRemoteStatus mg_remote_cache_unlock(MgRemoteCache *r, const char *key,
                                      const char *token) {
  if (!r || r->failed)
    return MG_REMOTE_FAILED;
  // Compare and delete in one step on the server.
  static const char script[] =
      "if redis.call('get', KEYS[1]) == ARGV[1] then "
      "return redis.call('del', KEYS[1]) else return 0 end";
  return expect(r, redisCommand(r->c, "EVAL %s 1 mirage-lock:%s %s", script,
                                key, token),
                REDIS_REPLY_INTEGER, false, "EVAL unlock");
}

#else // !MIRAGE_HAVE_HIREDIS

bool mg_remote_cache_supported(void) { return false; }

const char *mg_remote_cache_failure(const MgRemoteCache *r) {
  (void)r;
  return NULL;
}

MgRemoteCache *mg_remote_cache_open(const char *url, double timeout_s,
                                    char *why, size_t size) {
  (void)timeout_s;
  MgRedisAddress a;
  if (mg_remote_cache_parse_url(url, &a, why, size))
    snprintf(why, size, "this mirage was built without hiredis (install "
                        "libhiredis-dev: scripts/install-deps.sh)");
  return NULL;
}

void mg_remote_cache_close(MgRemoteCache *r) { (void)r; }

MgRemoteStatus mg_remote_cache_get(MgRemoteCache *r, const char *key,
                                   size_t max_bytes, MgRemoteValue *v) {
  (void)r, (void)key, (void)max_bytes;
  *v = (MgRemoteValue){NULL, 0};
  return MG_REMOTE_FAILED;
}

MgRemoteStatus mg_remote_cache_put(MgRemoteCache *r, const char *key,
                                   MgRemoteValue v, unsigned ttl_s) {
  (void)r, (void)key, (void)v, (void)ttl_s;
  return MG_REMOTE_FAILED;
}

MgRemoteStatus mg_remote_cache_del(MgRemoteCache *r, const char *key) {
  (void)r, (void)key;
  return MG_REMOTE_FAILED;
}

MgRemoteStatus mg_remote_cache_lock(MgRemoteCache *r, const char *key,
                                    const char *token, unsigned ttl_ms) {
  (void)r, (void)key, (void)token, (void)ttl_ms;
  return MG_REMOTE_FAILED;
}

MgRemoteStatus mg_remote_cache_locked(MgRemoteCache *r, const char *key) {
  (void)r, (void)key;
  return MG_REMOTE_FAILED;
}

MgRemoteStatus mg_remote_cache_unlock(MgRemoteCache *r, const char *key,
                                      const char *token) {
  (void)r, (void)key, (void)token;
  return MG_REMOTE_FAILED;
}

#endif

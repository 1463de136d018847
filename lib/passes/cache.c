//===- cache.c - On-disk cache of search results ---------------------------===//
//
// The entry format and the checks a hit goes through are described in
// cache.h.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // mkdir, fstatat, fdopendir, O_DIRECTORY

#include "cache.h"
#include "remote_cache.h"
#include "mirage/cost.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mirage/bridge.h"
#include "mirage/tool.h"
#include "mirage/verify.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"

#define CACHE_MAGIC "// mirage-cache v3"
#define CACHE_ROOT "cached"
// Entries are a few KiB of μGraph text; this bounds what a planted file
// can make us read.
#define CACHE_MAX_ENTRY_BYTES ((size_t)64 << 20)
// Temporary files of a writer killed before its rename are this old at
// least before they are removed (a live writer renames within seconds).
#define CACHE_STALE_TEMP_S (24 * 60 * 60)
// A key file of another length than 32 bytes, up to this, is damaged (and
// replaced); a larger one is not ours to replace.
#define CACHE_MAX_SECRET_BYTES 4096

/// An entry's key: the SHA-256 of the tool's version, options and the
/// subprogram's text, as hex. The whole digest is in the entry's header and
/// compared on every lookup; the file name is a function of it.
typedef struct CacheKey {
  char hex[65];
} CacheKey;

bool mg_cache_dir(const char *option, char *buf, size_t size) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n;
  if (option && *option)
    n = snprintf(buf, size, "%s", option);
  else if (xdg && *xdg)
    n = snprintf(buf, size, "%s/mirage", xdg);
  else if (home && *home)
    n = snprintf(buf, size, "%s/.cache/mirage", home);
  else
    return false;
  return n > 0 && (size_t)n < size;
}

/// mkdir -p with mode 0700, and a directory we can write into.
static bool make_dirs(const char *dir) {
  return mg_outfile_make_dirs_mode(dir, 0700, NULL) == MG_STATUS_OK;
}

bool mg_cache_usable(const char *dir) {
  return make_dirs(dir);
}

static bool secret_path(const char *dir, char *path, size_t size) {
  return snprintf(path, size, "%s/secret", dir) < (int)size;
}

typedef enum SecretState {
  SECRET_OK,       // this user's, private, 32 bytes
  SECRET_ABSENT,   // no file
  SECRET_DAMAGED,  // this user's regular file of another length
  SECRET_UNUSABLE, // a link, another user's, readable by others, ...
} SecretState;

/// Reads the cache's secret at `path` into `key`; `why`, if not NULL, says
/// what is wrong unless SECRET_OK or SECRET_ABSENT.
static SecretState read_secret(const char *path, uint8_t key[32],
                               MgDiag *why) {
  char *data = NULL;
  size_t len = 0;
  unsigned mode = 0;
  MgPrivRead r =
      mg_privfile_read(path, CACHE_MAX_SECRET_BYTES, &data, &len, &mode, why);
  SecretState state = SECRET_UNUSABLE;
  if (r == MG_PRIV_ABSENT)
    state = SECRET_ABSENT;
  else if (r == MG_PRIV_READ && len != 32)
    state = SECRET_DAMAGED;
  else if (r == MG_PRIV_READ && (mode & 077) == 0)
    state = SECRET_OK;
  if (state == SECRET_OK)
    memcpy(key, data, 32);
  else if (state == SECRET_DAMAGED)
    mg_diag_set(why, MG_STATUS_INVALID, -1, -1, "'%s' has %zu bytes, not 32",
                path, len);
  else if (r == MG_PRIV_READ)
    mg_diag_set(why, MG_STATUS_INVALID, -1, -1,
                "'%s' can be read by others (mode %03o)", path, mode);
  free(data);
  return state;
}

/// The cache's secret: 32 random bytes in `dir`/secret, readable by its
/// owner only. True with `key` filled when the file is this user's, private
/// and whole. With `create`, a missing one is made and a damaged one (this
/// user's, of another length: a writer killed by an older tool) replaced,
/// both through a temporary file. `*state` says what was found, `why` (if
/// not NULL) what was wrong with it. Any other doubt (another owner, group
/// or other access, a link) means no key, and then every hit is verified.
static bool cache_secret(const char *dir, bool create, uint8_t key[32],
                         SecretState *state, MgDiag *why) {
  char path[4096];
  *state = SECRET_UNUSABLE;
  if (!secret_path(dir, path, sizeof path))
    return false;
  *state = read_secret(path, key, why);
  if (*state == SECRET_OK)
    return true;
  if (!create || *state == SECRET_UNUSABLE || !make_dirs(dir))
    return false;
  uint8_t fresh[32];
  FILE *rnd = fopen("/dev/urandom", "rb");
  bool ok = rnd && fread(fresh, 1, sizeof fresh, rnd) == sizeof fresh;
  if (rnd)
    fclose(rnd);
  // A damaged key is replaced; a missing one is published only where no
  // racing process published its own first, and then that one is used.
  bool replace = *state == SECRET_DAMAGED;
  ok = ok && (mg_privfile_write(path, fresh, sizeof fresh, replace, NULL) ==
                  MG_STATUS_OK ||
              (!replace && errno == EEXIST));
  return ok && read_secret(path, key, NULL) == SECRET_OK;
}

/// The entry's MAC under `secret`, as hex: over its key, its part count and
/// its body, so an entry can be neither edited nor moved to another key.
static void entry_mac(const uint8_t secret[32], const CacheKey *key,
                      uint32_t parts, const char *body, size_t len,
                      char hex[65]) {
  MgSha256 s;
  uint8_t inner[32], mac[32];
  char head[96];
  int n = snprintf(head, sizeof head, "%s %" PRIu32 "\n", key->hex, parts);
  mg_sha256_init(&s);
  mg_sha256_update(&s, head, (size_t)n);
  mg_sha256_update(&s, body, len);
  mg_sha256_final(&s, inner);
  mg_hmac_sha256(secret, 32, inner, sizeof inner, mac);
  for (int i = 0; i < 32; ++i)
    snprintf(hex + 2 * i, 3, "%02x", mac[i]);
}

/// `<dir>/<key>.mlir`. For tests only, $MIRAGE_CACHE_TEST_NAME_DIGITS=N
/// zeroes all but the first N hex digits of the name, so that different
/// keys share a file (the header's full key still tells them apart).
static void entry_path(const char *dir, const CacheKey *key, char *buf,
                       size_t size) {
  char name[65];
  memcpy(name, key->hex, sizeof name);
  const char *test = getenv("MIRAGE_CACHE_TEST_NAME_DIGITS");
  char *end = NULL;
  long keep = test && *test ? strtol(test, &end, 10) : 64;
  if (end && *end == 0 && keep >= 0 && keep < 64)
    memset(name + keep, '0', (size_t)(64 - keep));
  snprintf(buf, size, "%s/%s.mlir", dir, name);
}

/// The entry text for `key`: header (with a MAC when `mac` is not empty)
/// and `body`, the program's text.
static bool entry_text(const CacheKey *key, const char *body, uint32_t parts,
                       const char *mac, MgText *entry) {
  size_t len = strlen(body);
  mg_text_printf(entry, "%s key=%s checksum=%016" PRIx64 " parts=%" PRIu32
                        "%s%s\n%s",
                 CACHE_MAGIC, key->hex, mg_hash_bytes(0, body, len), parts,
                 *mac ? " mac=" : "", mac, body);
  return !entry->failed;
}

/// Writes the entry for `key` to the shared server and the store's record,
/// without a MAC (it is this user's; readers there verify every entry
/// anyway). Failures are the remote's to report (remote_cache.h), never
/// the caller's; a record out of memory only makes rank 0 search again.
static void store_shared(const MgCacheStore *cs, const CacheKey *key,
                         const char *body, uint32_t parts) {
  if (!cs->remote && !cs->record)
    return;
  MgText entry = {0};
  if (entry_text(key, body, parts, "", &entry) && cs->remote)
    mg_remote_cache_put(cs->remote, key->hex,
                        (MgRemoteValue){entry.data, entry.len}, cs->ttl_s);
  if (!entry.failed && cs->record)
    mg_cache_memo_put(cs->record, key->hex, entry.data, entry.len);
  mg_text_free(&entry);
}

/// Writes the entry for `key`, with a MAC when `secret` is not null,
/// through a temporary file renamed over the name (never through a link),
/// and to the store's shared server if it has one.
static MgStatus store(const MgCacheStore *cs, const CacheKey *key,
                      const MgProgram *program, uint32_t parts,
                      const uint8_t *secret, MgDiag *diag) {
  const char *dir = cs->dir;
  if (dir && !make_dirs(dir))
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "cannot create cache directory '%s': %s", dir,
                       strerror(errno));
  char *text = mg_bridge_print(program, CACHE_ROOT, NULL);
  if (!text)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  size_t len = strlen(text);
  char path[4096], mac[65] = "";
  if (dir)
    entry_path(dir, key, path, sizeof path);
  if (secret)
    entry_mac(secret, key, parts, text, len, mac);
  MgText entry = {0};
  MgStatus st =
      !entry_text(key, text, parts, mac, &entry)
          ? mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory")
      : dir ? mg_privfile_write(path, entry.data, entry.len, true, diag)
            : MG_STATUS_OK;
  mg_text_free(&entry);
  store_shared(cs, key, text, parts);
  free(text);
  return st;
}

static MlirLogicalResult swallow(MlirDiagnostic d, void *ud) {
  (void)d;
  (void)ud;
  return mlirLogicalResultSuccess();
}

/// One lookup: where, with which options, and what it trusts.
typedef struct Lookup {
  MlirContext ctx;
  const MgCacheStore *store;
  const MgSearchOptions *o;
  bool stopped;     // looking under the keys of stopped searches
  bool have_secret; // entries with this user's MAC need no verification
  uint8_t secret[32];
  bool verified;    // the verifier ran
  bool shared;      // the last entry load read came from the shared server
                    // (or was handed over: checked the same way)
  bool any_shared;  // an entry of the hit came from it
  bool handed;      // the last entry load read was handed by another rank
  bool any_handed;
} Lookup;

/// What load found at an entry's name.
typedef enum Found {
  FOUND_NONE,    // nothing, or the entry of another key sharing the name
  FOUND_REFUSED, // a link, FIFO, device, another user's file, too large
  FOUND_ENTRY,   // an entry for this key (usable or not)
} Found;

/// Reads the entry for `key`: NULL unless usable (`diag` says why for
/// FOUND_REFUSED and for an unusable FOUND_ENTRY); `*parts` from its
/// header; `*authentic` when its MAC is right under the lookup's secret.
static MgProgram *load(Lookup *l, const CacheKey *key, Found *found,
                       uint32_t *parts, bool *authentic, MgDiag *diag) {
  *authentic = false;
  *found = FOUND_NONE;
  *parts = 0;
  char path[4096] = "";
  size_t len = 0;
  char *text = NULL;
  MgDiag why = MG_DIAG_INIT;
  MgPrivRead r = MG_PRIV_ABSENT;
  // Another rank's entry first (that rank read it from its caches or
  // wrote it after its search): checked like the shared server's.
  const MgCacheMemoEntry *h = mg_cache_memo_get(l->store->handed, key->hex);
  l->shared = l->handed = h != NULL;
  if (h && (text = malloc(h->len + 1))) {
    memcpy(text, h->text, h->len + 1);
    len = h->len;
    r = MG_PRIV_READ;
    snprintf(path, sizeof path, "handed:%s", key->hex);
  } else if (!h && l->store->dir) {
    entry_path(l->store->dir, key, path, sizeof path);
    r = mg_privfile_read(path, CACHE_MAX_ENTRY_BYTES, &text, &len, NULL,
                         &why);
  }
  if (r == MG_PRIV_REFUSED) {
    *found = FOUND_REFUSED;
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "%s", why.message);
  }
  // Not on disk: the shared server's entry, if any, read under the same
  // checks (the MAC is never looked at: verified whatever it claims).
  if (r == MG_PRIV_ABSENT && l->store->remote) {
    MgRemoteValue v;
    MgRemoteStatus rs = mg_remote_cache_get(l->store->remote, key->hex,
                                            CACHE_MAX_ENTRY_BYTES, &v);
    if (rs == MG_REMOTE_OK) {
      r = MG_PRIV_READ;
      text = v.text;
      len = v.len;
      l->shared = true;
      snprintf(path, sizeof path, "shared:%s", key->hex);
    } else if (rs == MG_REMOTE_TOO_LARGE) { // not read whole
      *found = FOUND_ENTRY;
      l->shared = true;
      mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "cache entry 'shared:%s' "
                  "is over %zu bytes", key->hex, CACHE_MAX_ENTRY_BYTES);
      mg_remote_cache_del(l->store->remote, key->hex);
    }
  }
  if (r != MG_PRIV_READ)
    return NULL;
  if (l->store->record && !l->handed)
    mg_cache_memo_put(l->store->record, key->hex, text, len);
  MgProgram *program = NULL;
  uint64_t checksum = 0;
  char file_key[65] = "";
  char *body = strchr(text, '\n');
  bool header = body && !strncmp(text, CACHE_MAGIC, strlen(CACHE_MAGIC)) &&
                sscanf(text + strlen(CACHE_MAGIC),
                       " key=%64[0-9a-f] checksum=%" SCNx64 " parts=%" SCNu32,
                       file_key, &checksum, parts) == 3;
  // Another key's entry under the same name (names may be shorter than
  // keys): a miss, and the search's result replaces it.
  if (header && strlen(file_key) == 64 && strcmp(file_key, key->hex)) {
    free(text);
    return NULL;
  }
  *found = FOUND_ENTRY;
  if (!header || strlen(file_key) != 64 || *parts > MG_SEARCH_MAX_PARTS) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                "cache entry '%s' has a bad header", path);
    goto done;
  }
  ++body;
  size_t body_len = len - (size_t)(body - text);
  if (mg_hash_bytes(0, body, body_len) != checksum) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                "cache entry '%s' fails its checksum", path);
    goto done;
  }
  const char *mac = strstr(text, " mac=");
  char expect[65];
  if (mac && mac < body && l->have_secret && !l->shared) {
    entry_mac(l->secret, key, *parts, body, body_len, expect);
    *authentic = strncmp(mac + 5, expect, 64) == 0 && mac[5 + 64] == '\n';
  }
  // A damaged entry is not the user's error: swallow its parse diagnostics.
  MlirDiagnosticHandlerID quiet =
      mlirContextAttachDiagnosticHandler(l->ctx, swallow, NULL, NULL);
  MlirModule module =
      mlirModuleCreateParse(l->ctx, mlirStringRefCreateFromCString(body));
  mlirContextDetachDiagnosticHandler(l->ctx, quiet);
  if (mlirModuleIsNull(module)) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                "cache entry '%s' does not parse", path);
    goto done;
  }
  MlirOperation mod = mlirModuleGetOperation(module);
  MlirSymbolTable table = mlirSymbolTableCreate(mod);
  MlirOperation root =
      mlirSymbolTableLookup(table, mlirStringRefCreateFromCString(CACHE_ROOT));
  MgBridgeMap map;
  MlirLocation loc;
  if (mlirOperationIsNull(root)) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                "cache entry '%s' has no kernel graph", path);
  } else if (mg_bridge_import(table, root, &program, &map, &loc, diag) ==
             MG_STATUS_OK) {
    mg_bridge_map_free(&map);
    if (mg_program_validate(program, l->o->target, diag) != MG_STATUS_OK) {
      mg_program_destroy(program);
      program = NULL;
    }
  }
  mlirSymbolTableDestroy(table);
  mlirModuleDestroy(module);
done:
  free(text);
  return program;
}

/// Removes a damaged or rejected entry: the file, or the shared server's
/// value when that is where it came from.
static void remove_entry(const Lookup *l, const CacheKey *key) {
  mg_cache_memo_del(l->store->record, key->hex);
  if (l->handed)
    return; // only rank 0's copy: nothing to remove
  if (l->shared) {
    mg_remote_cache_del(l->store->remote, key->hex);
    return;
  }
  char path[4096];
  if (!l->store->dir)
    return;
  entry_path(l->store->dir, key, path, sizeof path);
  unlink(path);
}

/// A shared entry the verifier accepted: kept on disk too (with this
/// user's MAC), so the next compile reads it locally.
static void keep_shared(const Lookup *l, const CacheKey *key,
                        const MgProgram *program, uint32_t parts) {
  if (!l->shared || !l->store->dir)
    return;
  uint8_t secret[32];
  SecretState state;
  MgDiag ignored = MG_DIAG_INIT;
  bool have = cache_secret(l->store->dir, true, secret, &state, NULL);
  // Not back to the server.
  const MgCacheStore disk = {.dir = l->store->dir, .salt = l->store->salt};
  store(&disk, key, program, parts, have ? secret : NULL, &ignored);
}

/// Key of an entry: the tool's version, every option that changes the
/// result (not threads: results do not depend on them) and the subprogram's
/// text (the cache's own μGraph form: equal programs print equally, and it
/// is what an entry holds, so it loses nothing). `part` tells a part's
/// entry from a whole subprogram's. A search its time budget, memory bound
/// or max-states stopped has a result that depends on them (and, but for
/// max-states with one thread, on the machine): `stopped` keys it by all
/// three too, apart from complete results. False when out of memory.
static bool cache_key(const MgProgram *subject, const MgSearchOptions *o,
                      const char *salt, bool part, bool stopped,
                      CacheKey *key) {
  char text[800];
  int n = snprintf(text, sizeof text, "mirage-" MIRAGE_VERSION " %s %s mko=%u "
           "mbo=%u mck=%u abs=%d seed=%llu err=%a rank=%d cost=%d cuts=%d extra=%u",
           part ? "part" : "whole", o->target->name, o->max_kernel_ops,
           o->max_block_ops, o->max_custom_kernels, o->use_absexpr,
           (unsigned long long)o->seed, o->verify_error, (int)o->rank,
           MG_COST_MODEL_REVISION, o->cut_prologues, o->extra_levels);
  if (stopped && n > 0 && (size_t)n < sizeof text)
    snprintf(text + n, sizeof text - (size_t)n,
             " stopped budget=%a mem=%llu states=%llu", o->time_budget_s,
             (unsigned long long)o->memory_limit,
             (unsigned long long)o->max_states);
  // Absent unless set, so keys without it are those of before.
  n = (int)strlen(text);
  if (salt && salt[0] && (size_t)n < sizeof text)
    snprintf(text + n, sizeof text - (size_t)n, " %s", salt);
  char *program = mg_bridge_print(subject, CACHE_ROOT, NULL);
  if (!program)
    return false;
  MgSha256 s;
  uint8_t digest[32];
  mg_sha256_init(&s);
  mg_sha256_update(&s, text, strlen(text) + 1); // with its NUL: a separator
  mg_sha256_update(&s, program, strlen(program));
  mg_sha256_final(&s, digest);
  free(program);
  for (int i = 0; i < 32; ++i)
    snprintf(key->hex + 2 * i, 3, "%02x", digest[i]);
  return true;
}

/// check() for a subject with symbols (one entry serves every size): the
/// entry must not mix rows (then equivalence at one size of each tile is
/// equivalence at all, docs/verification.md §4b), tested at 1, 7 and each
/// block's rows + 1, with a fresh seed.
static MgStatus check_symbolic(Lookup *l, const MgProgram *subject,
                               const MgProgram *entry, double verify_error,
                               MgDiag *diag) {
  MgDiag vd = MG_DIAG_INIT;
  if (!mg_search_symbolic_rowwise(entry, &vd))
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "it is not valid for every size: %s", vd.message);
  int64_t sizes[16];
  MgSymbolicTest test = {sizes,
                         mg_search_symbolic_test_sizes(entry, sizes, 16),
                         mg_verify_options_default()};
  test.verify.target_error = verify_error;
  test.verify.seed = mg_verify_fresh_seed();
  test.verify.threads = mg_search_threads(l->o);
  test.verify.memory_limit = l->o->memory_limit;
  MgSymbolicCheck c;
  MgStatus st = mg_search_symbolic_verify(subject, entry, &test, &c, &vd);
  if (st != MG_STATUS_OK)
    return mg_diag_set(diag, st, -1, -1, "it cannot be verified at size "
                       "%lld: %s", (long long)c.size, vd.message);
  if (c.verdict != MG_VERDICT_EQUIVALENT)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "it is not shown equivalent at size %lld",
                       (long long)c.size);
  return MG_STATUS_OK;
}

/// OK when `entry` may stand for `subject`: the same signature, and the
/// entry `authentic` (it carries this user's MAC, so this tool wrote it
/// after verifying it for this very key) or equivalence shown by the
/// finite-field verifier to `verify_error` (then `l->verified`).
static MgStatus check(Lookup *l, const MgProgram *subject,
                      const MgProgram *entry, double verify_error,
                      bool authentic, MgDiag *diag) {
  if (!mg_program_same_signature(subject, entry))
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "its inputs or outputs differ from the kernel graph's "
                       "(shapes or element types)");
  if (authentic)
    return MG_STATUS_OK;
  l->verified = true;
  if (mg_program_syms(subject))
    return check_symbolic(l, subject, entry, verify_error, diag);
  MgVerifyOptions o = mg_verify_options_default();
  o.target_error = verify_error;
  // A fresh seed: the entry may have been written by someone who knows the
  // search's seed and so the fields it would draw (docs/verification.md).
  o.seed = mg_verify_fresh_seed();
  // The search's threads and memory bound: the same verdict, sooner.
  o.threads = mg_search_threads(l->o);
  o.memory_limit = l->o->memory_limit;
  MgVerifyResult r;
  MgDiag vd = MG_DIAG_INIT;
  MgStatus st = mg_verify_equivalent(subject, entry, &o, &r, &vd);
  if (st != MG_STATUS_OK)
    return mg_diag_set(diag, st, -1, -1, "it cannot be verified: %s",
                       vd.message);
  if (r.verdict == MG_VERDICT_NOT_EQUIVALENT)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "it is not equivalent to the kernel graph (output %u "
                       "differs at element %lld)", r.output,
                       (long long)r.index);
  if (r.verdict != MG_VERDICT_EQUIVALENT)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "its equivalence is not verified to 2^%.0f in %u "
                       "tests", log2(verify_error), r.tests);
  return MG_STATUS_OK;
}

bool mg_cache_key_hex(const MgCacheStore *cs, const MgProgram *subject,
                      const MgSearchOptions *o, char hex[65]) {
  CacheKey key;
  if (!cache_key(subject, o, cs->salt, false, false, &key))
    return false;
  memcpy(hex, key.hex, 65);
  return true;
}

/// The composition of the cached programs of `subject`'s `n` parts, each
/// checked against its part; NULL with `*outcome` set otherwise.
static MgProgram *fetch_parts(Lookup *l, const MgProgram *subject, uint32_t n,
                              MgCacheOutcome *outcome, MgDiag *diag) {
  MgProgram *parts[MG_SEARCH_MAX_PARTS] = {NULL};
  MgProgram *programs[MG_SEARCH_MAX_PARTS] = {NULL};
  MgProgram *joined = NULL;
  uint32_t have = mg_search_cut_parts(subject, parts, diag);
  *outcome = MG_CACHE_REJECTED;
  if (have != n) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                "it has %u parts, the kernel graph cuts into %u", n, have);
    goto done;
  }
  for (uint32_t k = 0; k < n; k++) {
    CacheKey key;
    Found found = FOUND_NONE;
    bool authentic = false;
    uint32_t nested = 0;
    if (!cache_key(parts[k], l->o, l->store->salt, true, l->stopped, &key)) {
      mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
      goto done;
    }
    MgDiag why = MG_DIAG_INIT;
    programs[k] = load(l, &key, &found, &nested, &authentic, &why);
    if (!programs[k]) {
      // A refused file is not ours: left alone (the search's result
      // replaces it where the directory lets us).
      if (found == FOUND_ENTRY)
        mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "%s", why.message);
      else
        mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                    "the entry of its part %u is %s%s", k,
                    found == FOUND_NONE ? "missing" : "refused: ",
                    found == FOUND_NONE ? "" : why.message);
      *outcome = found == FOUND_ENTRY ? MG_CACHE_DAMAGED : MG_CACHE_REJECTED;
      if (found == FOUND_ENTRY)
        remove_entry(l, &key);
      goto done;
    }
    if (nested != 0 || check(l, parts[k], programs[k], l->o->verify_error / n,
                             authentic, &why) != MG_STATUS_OK) {
      mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "part %u: %s", k,
                  nested ? "a part cannot have parts" : why.message);
      remove_entry(l, &key);
      goto done;
    }
    l->any_shared |= l->shared;
    l->any_handed |= l->handed;
    keep_shared(l, &key, programs[k], 0);
  }
  joined = mg_search_cut_join(subject, (const MgProgram *const *)programs,
                              n, l->o->target, diag);
  if (joined)
    *outcome = MG_CACHE_HIT;
done:
  for (uint32_t k = 0; k < MG_SEARCH_MAX_PARTS; k++) {
    mg_program_destroy(parts[k]);
    mg_program_destroy(programs[k]);
  }
  return joined;
}

static MgProgram *fetch(Lookup *l, const MgProgram *subject,
                        MgCacheOutcome *outcome, MgDiag *diag) {
  CacheKey key;
  Found found = FOUND_NONE;
  bool authentic = false;
  uint32_t parts = 0;
  *outcome = MG_CACHE_MISS;
  if (!cache_key(subject, l->o, l->store->salt, false, l->stopped, &key))
    return NULL;
  MgProgram *entry = load(l, &key, &found, &parts, &authentic, diag);
  bool shared = l->shared, handed = l->handed; // the parts' loads change them
  // A refused file is not ours: reported, left alone, searched again.
  *outcome = found == FOUND_NONE      ? MG_CACHE_MISS
             : found == FOUND_REFUSED ? MG_CACHE_REFUSED
             : entry                  ? MG_CACHE_HIT
                                      : MG_CACHE_DAMAGED;
  if (!entry) {
    if (found == FOUND_ENTRY)
      remove_entry(l, &key);
    return NULL;
  }
  MgProgram *result = NULL;
  if (!parts && mg_program_equal(entry, subject)) {
    *outcome = MG_CACHE_KEPT;
    l->any_shared = shared;
    l->any_handed = handed;
    keep_shared(l, &key, entry, 0);
    mg_program_destroy(entry);
    return NULL;
  }
  if (parts) {
    // Checked part by part and composed here; the entry's own composed
    // program only had to parse.
    result = fetch_parts(l, subject, parts, outcome, diag);
  } else if (check(l, subject, entry, l->o->verify_error, authentic, diag) ==
             MG_STATUS_OK) {
    result = entry;
    entry = NULL;
  } else {
    *outcome = MG_CACHE_REJECTED;
  }
  l->shared = shared;
  l->handed = handed;
  if (!result) {
    remove_entry(l, &key);
  } else {
    l->any_shared |= shared;
    l->any_handed |= handed;
    keep_shared(l, &key, parts ? entry : result, parts);
  }
  mg_program_destroy(entry);
  return result;
}

MgProgram *mg_cache_fetch(MlirContext ctx, const MgCacheQuery *q,
                          MgCacheFetched *got, MgDiag *diag) {
  const MgCacheStore *cs = q->store;
  Lookup l = {.ctx = ctx, .store = cs, .o = q->options};
  SecretState state;
  l.have_secret = q->trust_signed && cs->dir &&
                  cache_secret(cs->dir, false, l.secret, &state, NULL);
  MgCacheOutcome *outcome = &got->outcome;
  MgProgram *p = fetch(&l, q->subject, outcome, diag);
  if (*outcome == MG_CACHE_MISS) {
    l.stopped = true;
    p = fetch(&l, q->subject, outcome, diag);
  }
  got->stopped = l.stopped && *outcome != MG_CACHE_MISS;
  got->verified = l.verified;
  bool used = *outcome == MG_CACHE_HIT || *outcome == MG_CACHE_KEPT;
  got->shared = used ? l.any_shared : *outcome != MG_CACHE_MISS && l.shared;
  got->handed = used ? l.any_handed : *outcome != MG_CACHE_MISS && l.handed;
  return p;
}

/// Where and how results are stored.
typedef struct Put {
  const MgCacheStore *store;
  const MgSearchOptions *o;
  bool stopped;
  const uint8_t *secret; // NULL: entries without a MAC
  uint8_t buf[32];
} Put;

static void put_begin(Put *p, const MgCacheStore *cs,
                      const MgSearchOptions *o, bool stopped) {
  SecretState state;
  *p = (Put){.store = cs, .o = o, .stopped = stopped};
  if (cs->dir && cache_secret(cs->dir, true, p->buf, &state, NULL))
    p->secret = p->buf;
}

/// Stores `program` under the key of `subject` (a part's with `part`).
static MgStatus put_one(const Put *p, const MgProgram *subject, bool part,
                        const MgProgram *program, uint32_t parts,
                        MgDiag *diag) {
  CacheKey key;
  if (!cache_key(subject, p->o, p->store->salt, part, p->stopped, &key))
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  return store(p->store, &key, program, parts, p->secret, diag);
}

MgStatus mg_cache_put(const MgCacheStore *cs, const MgProgram *subject,
                      const MgSearchOptions *o, const MgSearchFound *found,
                      bool stopped, MgDiag *diag) {
  Put p;
  put_begin(&p, cs, o, stopped);
  MgProgram *parts[MG_SEARCH_MAX_PARTS] = {NULL};
  uint32_t n = 0;
  MgStatus st = MG_STATUS_OK;
  if (found->num_parts) {
    // The parts' keys are those of the subject's parts, cut again here as
    // the fetch will.
    n = mg_search_cut_parts(subject, parts, diag);
    if (n != found->num_parts)
      st = mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "the result's parts do not match the cut");
    for (uint32_t k = 0; st == MG_STATUS_OK && k < n; k++)
      st = put_one(&p, parts[k], true, found->parts[k], 0, diag);
    for (uint32_t k = 0; k < n; k++)
      mg_program_destroy(parts[k]);
  }
  // The whole entry last: a reader that finds it finds its parts.
  if (st == MG_STATUS_OK)
    st = put_one(&p, subject, false, found->program, found->num_parts, diag);
  return st;
}

MgStatus mg_cache_put_kept(const MgCacheStore *cs, const MgProgram *subject,
                           const MgSearchOptions *o, bool stopped,
                           MgDiag *diag) {
  Put p;
  put_begin(&p, cs, o, stopped);
  return put_one(&p, subject, false, subject, 0, diag);
}

/// A temporary file of this cache's writers: `.NAME.XXXXXX` (mkstemp's
/// six letters or digits) where NAME is an entry's (64 hex digits and
/// `.mlir`) or `secret`.
static bool is_temp_name(const char *name) {
  size_t len = strlen(name), hex = 0;
  if (len < 9 || name[0] != '.' || name[len - 7] != '.')
    return false;
  for (size_t i = len - 6; i < len; i++)
    if (!isalnum((unsigned char)name[i]))
      return false;
  const char *base = name + 1;
  size_t base_len = len - 8;
  if (base_len == 6 && !strncmp(base, "secret", 6))
    return true;
  while (hex < base_len && isxdigit((unsigned char)base[hex]))
    hex++;
  return hex == 64 && base_len == 69 && !strncmp(base + 64, ".mlir", 5);
}

/// Removes the temporary files a writer killed before its rename left:
/// this user's regular files of the cache's temporary names, untouched for
/// a day (a live writer renames within seconds). How many it removed.
static unsigned sweep_temps(const char *dir) {
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
  if (!d) {
    if (dfd >= 0)
      close(dfd);
    return 0;
  }
  time_t before = time(NULL) - CACHE_STALE_TEMP_S;
  unsigned removed = 0;
  for (struct dirent *e; (e = readdir(d));) {
    struct stat st;
    if (is_temp_name(e->d_name) &&
        fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        st.st_mtime < before && unlinkat(dfd, e->d_name, 0) == 0)
      removed++;
  }
  closedir(d);
  return removed;
}

bool mg_cache_open(const char *dir, MgCacheWarn warn, void *ud) {
  MgDiag diag = MG_DIAG_INIT;
  if (mg_outfile_make_dirs_mode(dir, 0700, &diag) != MG_STATUS_OK)
    return false;
  char msg[sizeof diag.message + 256];
  if (mg_privfile_dir_shared(dir)) {
    snprintf(msg, sizeof msg,
             "cache directory '%s' can be written by other users: its "
             "entries are used only if they are regular files of yours, and "
             "verified unless they carry your MAC, but others can remove "
             "them (a private directory avoids this)", dir);
    warn(ud, msg);
  }
  sweep_temps(dir);
  uint8_t key[32];
  SecretState state;
  bool ok = cache_secret(dir, true, key, &state, &diag);
  if (state == SECRET_DAMAGED) {
    snprintf(msg, sizeof msg,
             "cache secret damaged (%s): %s; entries written before "
             "are verified again on use", diag.message,
             ok ? "replaced by a new one" : "could not be replaced");
    warn(ud, msg);
  } else if (state == SECRET_UNUSABLE) {
    snprintf(msg, sizeof msg,
             "cache secret not used (%s): every cache hit is verified",
             diag.message);
    warn(ud, msg);
  }
  return true;
}

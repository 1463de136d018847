//===- cache.c - On-disk cache of search results ---------------------------===//
//
// The entry format and the checks a hit goes through are described in
// cache.h.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // mkdir, O_NOFOLLOW

#include "cache.h"
#include "mirage/cost.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mirage/bridge.h"
#include "mirage/tool.h"
#include "mirage/verify.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"

#define CACHE_MAGIC "// mirage-cache v2"
#define CACHE_ROOT "cached"

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

/// mkdir -p, and a directory we can write into.
static bool make_dirs(const char *dir) {
  return mg_outfile_make_dirs(dir, NULL) == MG_STATUS_OK;
}

bool mg_cache_usable(const char *dir) {
  return make_dirs(dir);
}

/// The cache's secret: 32 random bytes in `dir`/secret, readable by its
/// owner only. True with `key` filled when the file is this user's, private
/// and whole; with `create`, makes it first if it is missing. Any doubt
/// (another owner, group or other access, a link, a short file) means no
/// key, and then every hit is verified.
static bool cache_secret(const char *dir, bool create, uint8_t key[32]) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/secret", dir) >= (int)sizeof path)
    return false;
  int fd = open(path, O_RDONLY | O_NOFOLLOW);
  if (fd < 0 && errno == ENOENT && create && make_dirs(dir)) {
    int wfd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (wfd >= 0) {
      uint8_t fresh[32];
      FILE *rnd = fopen("/dev/urandom", "rb");
      bool ok = rnd && fread(fresh, 1, sizeof fresh, rnd) == sizeof fresh;
      if (rnd)
        fclose(rnd);
      ok = ok && write(wfd, fresh, sizeof fresh) == (ssize_t)sizeof fresh;
      ok = close(wfd) == 0 && ok;
      if (!ok) {
        unlink(path);
        return false;
      }
    }
    fd = open(path, O_RDONLY | O_NOFOLLOW); // ours, or a racing writer's
  }
  if (fd < 0)
    return false;
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            st.st_uid == geteuid() && (st.st_mode & 077) == 0 &&
            st.st_size == 32 && read(fd, key, 32) == 32;
  close(fd);
  return ok;
}

/// The entry's MAC under `secret`, as hex: over its key, its part count and
/// its body, so an entry can be neither edited nor moved to another key.
static void entry_mac(const uint8_t secret[32], uint64_t key, uint32_t parts,
                      const char *body, size_t len, char hex[65]) {
  MgSha256 s;
  uint8_t inner[32], mac[32];
  char head[64];
  int n = snprintf(head, sizeof head, "%016" PRIx64 " %" PRIu32 "\n", key,
                   parts);
  mg_sha256_init(&s);
  mg_sha256_update(&s, head, (size_t)n);
  mg_sha256_update(&s, body, len);
  mg_sha256_final(&s, inner);
  mg_hmac_sha256(secret, 32, inner, sizeof inner, mac);
  for (int i = 0; i < 32; ++i)
    snprintf(hex + 2 * i, 3, "%02x", mac[i]);
}

static void entry_path(const char *dir, uint64_t key, char *buf, size_t size) {
  snprintf(buf, size, "%s/%016" PRIx64 ".mlir", dir, key);
}

/// Writes the entry for `key`, with a MAC when `secret` is not null.
static MgStatus store(const char *dir, uint64_t key, const MgProgram *program,
                      uint32_t parts, const uint8_t *secret, MgDiag *diag) {
  if (!make_dirs(dir))
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "cannot create cache directory '%s': %s", dir,
                       strerror(errno));
  char *text = mg_bridge_print(program, CACHE_ROOT, NULL);
  if (!text)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  size_t len = strlen(text);
  char path[4096], mac[65] = "";
  entry_path(dir, key, path, sizeof path);
  if (secret)
    entry_mac(secret, key, parts, text, len, mac);
  // Written in full or not at all: readers never see a partial entry.
  MgOutFile f;
  MgStatus st = mg_outfile_open(&f, path, diag);
  if (st == MG_STATUS_OK) {
    fprintf(f.stream,
            "%s key=%016" PRIx64 " checksum=%016" PRIx64 " parts=%" PRIu32
            "%s%s\n",
            CACHE_MAGIC, key, mg_hash_bytes(0, text, len), parts,
            *mac ? " mac=" : "", mac);
    fwrite(text, 1, len, f.stream);
    st = mg_outfile_commit(&f, diag);
    mg_outfile_discard(&f);
  }
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
  const char *dir;
  const MgSearchOptions *o;
  bool stopped;     // looking under the keys of stopped searches
  bool have_secret; // entries with this user's MAC need no verification
  uint8_t secret[32];
  bool verified;    // the verifier ran
} Lookup;

/// Reads the entry for `key`: NULL when absent (`*found` false) or
/// unusable (`*found` true, `diag` says why); `*parts` from its header;
/// `*authentic` when its MAC is right under the lookup's secret.
static MgProgram *load(const Lookup *l, uint64_t key, bool *found,
                       uint32_t *parts, bool *authentic, MgDiag *diag) {
  *authentic = false;
  const char *dir = l->dir;
  char path[4096];
  entry_path(dir, key, path, sizeof path);
  size_t len = 0;
  char *text = mg_tool_read_file(path, &len);
  *found = text != NULL;
  if (!text)
    return NULL;
  MgProgram *program = NULL;
  uint64_t file_key = 0, checksum = 0;
  *parts = 0;
  char *body = strchr(text, '\n');
  if (!body || strncmp(text, CACHE_MAGIC, strlen(CACHE_MAGIC)) ||
      sscanf(text + strlen(CACHE_MAGIC),
             " key=%" SCNx64 " checksum=%" SCNx64 " parts=%" SCNu32, &file_key,
             &checksum, parts) != 3 ||
      file_key != key || *parts > MG_SEARCH_MAX_PARTS) {
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
  if (mac && mac < body && l->have_secret) {
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

static void remove_entry(const char *dir, uint64_t key) {
  char path[4096];
  entry_path(dir, key, path, sizeof path);
  unlink(path);
}

/// Key of an entry: the tool's version, the subprogram and every option
/// that changes the result (not threads: results do not depend on them).
/// `part` tells a part's entry from a whole subprogram's. A search its time
/// budget or memory bound stopped has a result that depends on them (and on
/// the machine): `stopped` keys it by both too, apart from complete results.
static uint64_t cache_key(const MgProgram *subject, const MgSearchOptions *o,
                          bool part, bool stopped) {
  char text[400];
  int n = snprintf(text, sizeof text, "mirage-" MIRAGE_VERSION " %s %s mko=%u "
           "mbo=%u mck=%u abs=%d seed=%llu err=%a rank=%d cost=%d cuts=%d extra=%u",
           part ? "part" : "whole", o->target->name, o->max_kernel_ops,
           o->max_block_ops, o->max_custom_kernels, o->use_absexpr,
           (unsigned long long)o->seed, o->verify_error, (int)o->rank,
           MG_COST_MODEL_REVISION, o->cut_prologues, o->extra_levels);
  if (stopped && n > 0 && (size_t)n < sizeof text)
    snprintf(text + n, sizeof text - (size_t)n, " stopped budget=%a mem=%llu",
             o->time_budget_s, (unsigned long long)o->memory_limit);
  return mg_hash_bytes(mg_program_hash(subject), text, strlen(text));
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
  MgVerifyOptions o = mg_verify_options_default();
  o.target_error = verify_error;
  o.seed = l->o->seed;
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
    uint64_t key = cache_key(parts[k], l->o, true, l->stopped);
    bool found = false, authentic = false;
    uint32_t nested = 0;
    programs[k] = load(l, key, &found, &nested, &authentic, diag);
    if (!programs[k]) {
      if (!found)
        mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                    "the entry of its part %u is missing", k);
      *outcome = found ? MG_CACHE_DAMAGED : MG_CACHE_REJECTED;
      if (found)
        remove_entry(l->dir, key);
      goto done;
    }
    MgDiag why = MG_DIAG_INIT;
    if (nested != 0 || check(l, parts[k], programs[k], l->o->verify_error / n,
                             authentic, &why) != MG_STATUS_OK) {
      mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "part %u: %s", k,
                  nested ? "a part cannot have parts" : why.message);
      remove_entry(l->dir, key);
      goto done;
    }
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
  uint64_t key = cache_key(subject, l->o, false, l->stopped);
  bool found = false, authentic = false;
  uint32_t parts = 0;
  MgProgram *entry = load(l, key, &found, &parts, &authentic, diag);
  *outcome = !found ? MG_CACHE_MISS : entry ? MG_CACHE_HIT : MG_CACHE_DAMAGED;
  if (!entry) {
    if (found)
      remove_entry(l->dir, key);
    return NULL;
  }
  MgProgram *result = NULL;
  if (!parts && mg_program_equal(entry, subject)) {
    *outcome = MG_CACHE_KEPT;
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
  mg_program_destroy(entry);
  if (!result)
    remove_entry(l->dir, key);
  return result;
}

MgProgram *mg_cache_fetch(MlirContext ctx, const char *dir,
                          const MgProgram *subject, const MgSearchOptions *o,
                          bool trust_signed, MgCacheOutcome *outcome,
                          bool *stopped, bool *verified, MgDiag *diag) {
  Lookup l = {.ctx = ctx, .dir = dir, .o = o};
  l.have_secret = trust_signed && cache_secret(dir, false, l.secret);
  MgProgram *p = fetch(&l, subject, outcome, diag);
  if (*outcome == MG_CACHE_MISS) {
    l.stopped = true;
    p = fetch(&l, subject, outcome, diag);
  }
  *stopped = l.stopped && *outcome != MG_CACHE_MISS;
  *verified = l.verified;
  return p;
}

MgStatus mg_cache_put(const char *dir, const MgProgram *subject,
                      const MgSearchOptions *o, const MgSearchFound *found,
                      bool stopped, MgDiag *diag) {
  uint8_t buf[32];
  const uint8_t *secret = cache_secret(dir, true, buf) ? buf : NULL;
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
      st = store(dir, cache_key(parts[k], o, true, stopped), found->parts[k],
                 0, secret, diag);
    for (uint32_t k = 0; k < n; k++)
      mg_program_destroy(parts[k]);
  }
  // The whole entry last: a reader that finds it finds its parts.
  if (st == MG_STATUS_OK)
    st = store(dir, cache_key(subject, o, false, stopped), found->program,
               found->num_parts, secret, diag);
  return st;
}

MgStatus mg_cache_put_kept(const char *dir, const MgProgram *subject,
                           const MgSearchOptions *o, bool stopped,
                           MgDiag *diag) {
  uint8_t buf[32];
  const uint8_t *secret = cache_secret(dir, true, buf) ? buf : NULL;
  return store(dir, cache_key(subject, o, false, stopped), subject, 0, secret,
               diag);
}

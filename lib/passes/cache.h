//===- cache.h - On-disk cache of search results --------------------------===//
//
// One file per (subprogram, tool version, target, search options) key --
// the SHA-256 of their text, which the entry's header holds whole and a
// lookup compares whole -- holding the chosen μGraph in the dialect's
// textual form behind a header line with a checksum and a part count.
//
// The directory may be one others can write (a team share, /tmp), so
// entries go through lib/support/privfile.c, not MgOutFile: read only if a
// regular file of this user's under 64 MiB, opened without following links
// or blocking (a link, FIFO, another user's file is refused with a warning
// and searched again); written to a temporary file renamed over the name,
// never through a link, so readers never see a partial entry either.
//
// An entry is never trusted on its word: whoever can write the directory,
// or an older tool, could have put anything there. A hit is used only after
// the finite-field verifier showed it computes the subprogram being
// compiled, to the search's bound, with the same signature -- or, when the
// entry carries a MAC (HMAC-SHA-256 over its key, part count and body)
// under this user's cache secret (`secret` in the directory, 32 random
// bytes, mode 0600, checked to be the user's own and private), after the
// signature check alone: only this tool, run by this user, can have written
// it, and it writes only results its search verified for that key. A
// forged, edited, moved or foreign entry has no valid MAC and is verified.
// `cache-verify=true` verifies every hit regardless. At a whole model's
// shapes this is the difference between seconds and a minute per compile
// (one down projection of a 7B model: ~30 s of finite-field tests). Where the search cut the
// subprogram at its prologues (lib/search/cut.c), the entry says how many
// parts it has and each part's program is an entry of its own: the parts
// are cut from the subprogram again here, each cached program is verified
// against its part (to bound/parts, as the search did) and the composition
// is rebuilt by mg_search_cut_join, which is far cheaper than verifying the
// composed program whole (QKNorm at paper shapes: 14 whole-program tests).
// An entry that fails is reported, removed and the subprogram searched again.
//
// "Nothing cheaper found" is cached too, as an entry holding the subprogram
// itself: a hit is recognised by exact equality (no verification needed,
// since keeping the original is always correct; a forged one can only skip
// a search), so a warm compile of a whole model searches nothing.
//
// A search stopped by its time budget, memory bound or max-states has a
// result that depends on them (and on the machine, but for max-states with
// one thread); it is cached under a key that adds all three, looked up only
// when no complete result is cached, so a warm compile repeats the cold
// one's output instead of searching again.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_PASSES_CACHE_H
#define MIRAGE_PASSES_CACHE_H

#include "mirage/search.h"
#include "mlir-c/IR.h"

/// True when `dir` exists or can be made (mkdir -p) and is writable; else
/// false with errno set.
bool mg_cache_usable(const char *dir);
/// Called with each warning mg_cache_open has for the user.
typedef void (*MgCacheWarn)(void *ud, const char *message);
/// Prepares `dir` for a run: creates it (0700), warns when other users can
/// write it, removes stale temporary files (a day old) and makes the
/// secret, replacing a damaged one (with a warning). False if `dir` cannot
/// be created.
bool mg_cache_open(const char *dir, MgCacheWarn warn, void *ud);
/// Resolves the cache directory: `option` if non-empty, else
/// $XDG_CACHE_HOME/mirage, else $HOME/.cache/mirage. False if none.
bool mg_cache_dir(const char *option, char *buf, size_t size);

typedef enum MgCacheOutcome {
  MG_CACHE_MISS,     // no entry
  MG_CACHE_HIT,      // a verified program
  MG_CACHE_KEPT,     // the search found nothing cheaper: keep the subject
  MG_CACHE_DAMAGED,  // unreadable (header, checksum, parse); removed
  MG_CACHE_REJECTED, // readable but not shown equivalent; removed
  MG_CACHE_REFUSED,  // not a regular file of this user's (a link, a FIFO),
                     // or too large: not read, not removed
} MgCacheOutcome;

/// Entry texts by key, in memory: what an MPI rank hands to rank 0
/// (search_mpi.c). Texts are NUL-terminated copies.
typedef struct MgCacheMemoEntry {
  char key[65];
  char *text;
  size_t len;
} MgCacheMemoEntry;
typedef struct MgCacheMemo {
  MgCacheMemoEntry *entries;
  uint32_t count, cap;
} MgCacheMemo;

/// Sets `key`'s text (a copy of `len` bytes), replacing an earlier one;
/// false when out of memory.
bool mg_cache_memo_put(MgCacheMemo *m, const char *key, const char *text,
                       size_t len);
/// `key`'s entry, or NULL.
const MgCacheMemoEntry *mg_cache_memo_get(const MgCacheMemo *m,
                                          const char *key);
void mg_cache_memo_del(MgCacheMemo *m, const char *key);
void mg_cache_memo_clear(MgCacheMemo *m);
void mg_cache_memo_free(MgCacheMemo *m);

/// Where entries live: a directory (NULL: none), and optionally a shared
/// Redis server (remote_cache.h) read after it and written with it. An
/// entry read from the server is verified whatever it claims, and once
/// verified kept on disk with this user's MAC; a damaged or rejected one
/// is deleted there. `handed`: entries another MPI rank sent, read first
/// and checked like the server's. `record`: every entry text a lookup
/// reads or a put writes is also copied there (what a rank sends).
typedef struct MgCacheStore {
  const char *dir;
  struct MgRemoteCache *remote; // NULL: none
  unsigned ttl_s;               // the server's entries expire (0: never)
  const char *salt;             // more of the key (the ptxas ranking's
                                // settings); NULL or "": none
  const MgCacheMemo *handed;    // NULL: none
  MgCacheMemo *record;          // NULL: none
} MgCacheStore;

/// A lookup: the search result for `subject` searched with `options`, in
/// `store`; `trust_signed`: an entry with a valid MAC (on disk) is used
/// without the verifier.
typedef struct MgCacheQuery {
  const MgCacheStore *store;
  const MgProgram *subject;
  const MgSearchOptions *options;
  bool trust_signed;
} MgCacheQuery;

/// What a lookup found, besides its program.
typedef struct MgCacheFetched {
  MgCacheOutcome outcome;
  bool stopped;  // the entry is that of a stopped search
  bool verified; // the verifier ran (no valid MAC, or trust_signed false)
  bool shared;   // the entry (of a hit, kept, damaged or rejected) came
                 // from the shared server, or was handed over
  bool handed;   // ... by another MPI rank (store->handed)
} MgCacheFetched;

/// Looks up `q`: on MG_CACHE_HIT a new program the caller destroys,
/// verified as above; otherwise NULL, and `diag` says why for DAMAGED and
/// REJECTED. Fills `got`.
MgProgram *mg_cache_fetch(MlirContext ctx, const MgCacheQuery *q,
                          MgCacheFetched *got, MgDiag *diag);

/// The hex key of `subject`'s complete-search entry under `o` (the name a
/// fleet's processes lock while one searches it); false when out of memory.
bool mg_cache_key_hex(const MgCacheStore *cs, const MgProgram *subject,
                      const MgSearchOptions *o, char hex[65]);

/// Stores `found`, the search's choice for `subject` (and its parts, if it
/// has some); creates the directory. Non-OK with a message on I/O errors
/// (a cache that cannot be written is not fatal).
MgStatus mg_cache_put(const MgCacheStore *cs, const MgProgram *subject,
                      const MgSearchOptions *o, const MgSearchFound *found,
                      bool stopped, MgDiag *diag);

/// Stores that the search found nothing cheaper than `subject`.
MgStatus mg_cache_put_kept(const MgCacheStore *cs, const MgProgram *subject,
                           const MgSearchOptions *o, bool stopped,
                           MgDiag *diag);

#endif // MIRAGE_PASSES_CACHE_H

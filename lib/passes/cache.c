//===- cache.c - On-disk cache of search results ---------------------------===//
#define _POSIX_C_SOURCE 200809L // mkdir

#include "cache.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mirage/bridge.h"
#include "mirage/tool.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"

#define CACHE_MAGIC "// mirage-cache v1"
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

/// mkdir -p.
static bool make_dirs(const char *dir) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
    return false;
  for (char *p = path + 1; *p; ++p) {
    if (*p != '/')
      continue;
    *p = 0;
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
      return false;
    *p = '/';
  }
  return mkdir(path, 0755) == 0 || errno == EEXIST;
}

static void entry_path(const char *dir, uint64_t key, char *buf, size_t size) {
  snprintf(buf, size, "%s/%016" PRIx64 ".mlir", dir, key);
}

MgStatus mg_cache_store(const char *dir, uint64_t key, const MgProgram *program,
                        MgDiag *diag) {
  if (!make_dirs(dir))
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "cannot create cache directory '%s': %s", dir,
                       strerror(errno));
  char *text = mg_bridge_print(program, CACHE_ROOT, NULL);
  if (!text)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  size_t len = strlen(text);
  char path[4096];
  entry_path(dir, key, path, sizeof path);
  // Written in full or not at all: readers never see a partial entry.
  MgOutFile f;
  MgStatus st = mg_outfile_open(&f, path, diag);
  if (st == MG_STATUS_OK) {
    fprintf(f.stream, "%s key=%016" PRIx64 " checksum=%016" PRIx64 "\n",
            CACHE_MAGIC, key, mg_hash_bytes(0, text, len));
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

MgProgram *mg_cache_load(MlirContext ctx, const char *dir, uint64_t key,
                         const MgTarget *target, bool *found, MgDiag *diag) {
  char path[4096];
  entry_path(dir, key, path, sizeof path);
  size_t len = 0;
  char *text = mg_tool_read_file(path, &len);
  *found = text != NULL;
  if (!text)
    return NULL;
  MgProgram *program = NULL;
  uint64_t file_key = 0, checksum = 0;
  char *body = strchr(text, '\n');
  if (!body || strncmp(text, CACHE_MAGIC, strlen(CACHE_MAGIC)) ||
      sscanf(text + strlen(CACHE_MAGIC), " key=%" SCNx64 " checksum=%" SCNx64,
             &file_key, &checksum) != 2 || file_key != key) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                "cache entry '%s' has a bad header", path);
    goto done;
  }
  ++body;
  if (mg_hash_bytes(0, body, len - (size_t)(body - text)) != checksum) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                "cache entry '%s' fails its checksum", path);
    goto done;
  }
  // A damaged entry is not the user's error: swallow its parse diagnostics.
  MlirDiagnosticHandlerID quiet =
      mlirContextAttachDiagnosticHandler(ctx, swallow, NULL, NULL);
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(body));
  mlirContextDetachDiagnosticHandler(ctx, quiet);
  if (mlirModuleIsNull(module)) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                "cache entry '%s' does not parse", path);
    goto done;
  }
  MlirOperation mod = mlirModuleGetOperation(module);
  MlirSymbolTable table = mlirSymbolTableCreate(mod);
  MlirOperation root =
      mlirSymbolTableLookup(table, mlirStringRefCreateFromCString(CACHE_ROOT));
  mlirSymbolTableDestroy(table);
  MgBridgeMap map;
  MlirLocation loc;
  if (mlirOperationIsNull(root)) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                "cache entry '%s' has no kernel graph", path);
  } else if (mg_bridge_import(mod, root, &program, &map, &loc, diag) ==
             MG_STATUS_OK) {
    mg_bridge_map_free(&map);
    if (mg_program_validate(program, target, diag) != MG_STATUS_OK) {
      mg_program_destroy(program);
      program = NULL;
    }
  }
  mlirModuleDestroy(module);
done:
  free(text);
  return program;
}

//===- outfile.c - Output files written in full or not at all -------------===//
//
// A regular target is written through a temporary file in its own
// directory (rename is atomic only within one file system) and renamed over
// it after every write, the flush and the close succeeded. The temporary
// file gets the target's permissions, or those a new file would get under
// the umask. Special files (/dev/null, /dev/full, pipes) cannot be renamed
// over, so they are written directly, with the same error checks.
//
//===----------------------------------------------------------------------===//
#define _XOPEN_SOURCE 700 // mkstemp, fchmod, realpath, strdup

#include "mirage/support.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void clear(MgOutFile *f) {
  free(f->path);
  free(f->tmp);
  f->stream = NULL;
  f->path = f->tmp = NULL;
  f->error = 0;
}

static MgStatus fail(MgOutFile *f, MgDiag *diag, const char *what,
                     const char *path, int err) {
  mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "cannot %s '%s': %s", what,
              path, strerror(err ? err : EIO));
  if (f->stream && f->stream != stdout)
    fclose(f->stream);
  if (f->tmp)
    unlink(f->tmp);
  clear(f);
  return MG_STATUS_INVALID;
}

/// The permissions a new file would get: 0666 less the umask.
static mode_t new_file_mode(void) {
  mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

MgStatus mg_outfile_open(MgOutFile *f, const char *path, MgDiag *diag) {
  memset(f, 0, sizeof *f);
  if (!strcmp(path, "-")) {
    f->stream = stdout;
    return MG_STATUS_OK;
  }
  struct stat st;
  bool exists = stat(path, &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    f->path = strdup(path);
    if (!f->path)
      return fail(f, diag, "open", path, ENOMEM);
    f->stream = fopen(path, "w");
    return f->stream ? MG_STATUS_OK : fail(f, diag, "open", path, errno);
  }
  // Through a symbolic link, the file it names is replaced, not the link.
  char resolved[PATH_MAX];
  f->path = strdup(exists && realpath(path, resolved) ? resolved : path);
  if (!f->path)
    return fail(f, diag, "open", path, ENOMEM);
  const char *slash = strrchr(f->path, '/');
  size_t dir_len = slash ? (size_t)(slash - f->path) + 1 : 0;
  const char *base = f->path + dir_len;
  size_t size = strlen(f->path) + 16;
  f->tmp = malloc(size);
  if (!f->tmp)
    return fail(f, diag, "open", path, ENOMEM);
  snprintf(f->tmp, size, "%.*s.%s.XXXXXX", (int)dir_len, f->path, base);
  int fd = mkstemp(f->tmp);
  if (fd < 0) {
    int err = errno;
    free(f->tmp);
    f->tmp = NULL;
    return fail(f, diag, "open", path, err);
  }
  if (fchmod(fd, exists ? st.st_mode & 07777 : new_file_mode()) != 0 ||
      !(f->stream = fdopen(fd, "w"))) {
    int err = errno;
    close(fd);
    return fail(f, diag, "open", path, err);
  }
  return MG_STATUS_OK;
}

void mg_outfile_flush(MgOutFile *f) {
  errno = 0;
  if (f->stream && fflush(f->stream) != 0 && !f->error)
    f->error = errno ? errno : EIO;
}

MgStatus mg_outfile_commit(MgOutFile *f, MgDiag *diag) {
  if (!f->stream)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "no file is open");
  const char *shown = f->path ? f->path : "<stdout>";
  mg_outfile_flush(f);
  if (f->error || ferror(f->stream))
    return fail(f, diag, "write", shown, f->error);
  if (f->stream == stdout) {
    clear(f);
    return MG_STATUS_OK;
  }
  FILE *stream = f->stream;
  f->stream = NULL;
  if (fclose(stream) != 0)
    return fail(f, diag, "write", shown, errno);
  if (f->tmp && rename(f->tmp, f->path) != 0)
    return fail(f, diag, "replace", shown, errno);
  free(f->tmp);
  f->tmp = NULL; // renamed: nothing to remove
  clear(f);
  return MG_STATUS_OK;
}

void mg_outfile_discard(MgOutFile *f) {
  if (f->stream && f->stream != stdout)
    fclose(f->stream);
  if (f->tmp)
    unlink(f->tmp);
  clear(f);
}

MgStatus mg_outfile_make_dirs(const char *dir, MgDiag *diag) {
  return mg_outfile_make_dirs_mode(dir, 0755, diag);
}

// errno is kept from the call that failed, for callers that print it.
MgStatus mg_outfile_make_dirs_mode(const char *dir, unsigned mode,
                                   MgDiag *diag) {
  char path[PATH_MAX];
  if (!dir || !*dir || snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
    errno = ENAMETOOLONG;
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "cannot create directory '%s': %s", dir ? dir : "",
                       dir && *dir ? strerror(errno) : "empty name");
  }
  int err = 0;
  for (char *p = path + 1; *p && !err; ++p) {
    if (*p != '/')
      continue;
    *p = 0;
    if (mkdir(path, (mode_t)mode) != 0 && errno != EEXIST)
      err = errno;
    *p = '/';
  }
  if (!err && mkdir(path, (mode_t)mode) != 0 && errno != EEXIST)
    err = errno;
  struct stat st;
  if (!err && stat(path, &st) != 0)
    err = errno;
  if (!err && !S_ISDIR(st.st_mode))
    err = ENOTDIR;
  if (!err && access(path, W_OK | X_OK) != 0)
    err = errno;
  if (!err)
    return MG_STATUS_OK;
  MgStatus s = mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                           "cannot create or write into directory '%s': %s",
                           dir, strerror(err));
  errno = err;
  return s;
}

//===- privfile.c - Files kept for oneself in a directory others may write ===//
//
// The search cache lives where the user says, which may be a team share or
// /tmp. Another user there can plant a symbolic link at a name we are about
// to write (we would replace the file it names), a FIFO (a read blocks
// forever), a link to /dev/zero (a read never ends) or a file of their own.
// So, unlike MgOutFile (which follows links for `-o`, as users expect):
// reads open with O_NOFOLLOW | O_NONBLOCK and take only this user's regular
// files under a size limit; writes go to a fresh temporary file (O_EXCL,
// 0600) in the same directory that is renamed over the name, which replaces
// a link rather than writing through it.
//
//===----------------------------------------------------------------------===//
#define _XOPEN_SOURCE 700 // mkstemp, O_NOFOLLOW, O_CLOEXEC

#include "mirage/support.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/// Reads the `size` bytes (by fstat) of the regular file open on `fd`,
/// NUL-terminated. A file that grew since is refused: ours are replaced by
/// rename, never changed in place.
static char *read_all(int fd, size_t size, size_t *len, int *err) {
  char *data = malloc(size + 1);
  size_t have = 0;
  if (!data) {
    *err = ENOMEM;
    return NULL;
  }
  for (;;) {
    char extra;
    ssize_t n = have < size ? read(fd, data + have, size - have)
                            : read(fd, &extra, 1);
    if (n == 0)
      break;
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 || have == size) {
      *err = n < 0 ? errno : EFBIG;
      free(data);
      return NULL;
    }
    have += (size_t)n;
  }
  data[have] = 0;
  *len = have;
  return data;
}

static const char too_large[] = "larger than the limit";

MgPrivRead mg_privfile_read(const char *path, size_t max, char **data,
                            size_t *len, unsigned *mode, MgDiag *diag) {
  *data = NULL;
  *len = 0;
  // O_NONBLOCK: opening a FIFO with no writer returns at once; it is then
  // refused as not a regular file.
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT)
    return MG_PRIV_ABSENT;
  if (fd < 0 && errno == ELOOP) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "'%s' is a symbolic link",
                path);
    return MG_PRIV_REFUSED;
  }
  if (fd < 0) {
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "'%s' cannot be read: %s",
                path, strerror(errno));
    return MG_PRIV_REFUSED;
  }
  struct stat st;
  const char *why = NULL;
  int err = 0;
  if (fstat(fd, &st) != 0)
    err = errno;
  else if (!S_ISREG(st.st_mode))
    why = "not a regular file";
  else if (st.st_uid != geteuid())
    why = "owned by another user";
  else if ((uintmax_t)st.st_size > max)
    why = too_large;
  else if (!(*data = read_all(fd, (size_t)st.st_size, len, &err)) &&
           err == EFBIG)
    why = "growing while read";
  close(fd);
  if (!why && !err && mode)
    *mode = (unsigned)(st.st_mode & 07777);
  if (!why && !err)
    return MG_PRIV_READ;
  if (why == too_large)
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                "'%s' is larger than the limit (%zu bytes)", path, max);
  else if (why)
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "'%s' is %s", path, why);
  else
    mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "'%s' cannot be read: %s",
                path, strerror(err));
  return MG_PRIV_REFUSED;
}

static bool write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    len -= (size_t)n;
  }
  return true;
}

MgStatus mg_privfile_write(const char *path, const void *data, size_t len,
                           bool replace, MgDiag *diag) {
  const char *slash = strrchr(path, '/');
  size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  char tmp[PATH_MAX];
  if (snprintf(tmp, sizeof tmp, "%.*s.%s.XXXXXX", (int)dir_len, path,
               path + dir_len) >= (int)sizeof tmp)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "cannot write '%s': %s", path, strerror(ENAMETOOLONG));
  // mkstemp: O_CREAT | O_EXCL, mode 0600, a name nobody planted.
  int fd = mkstemp(tmp);
  if (fd < 0)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "cannot write '%s': %s", path, strerror(errno));
  (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
  bool ok = write_all(fd, data, len);
  int err = ok ? 0 : errno ? errno : EIO;
  if (close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  // rename replaces whatever the name is (a link is replaced, not
  // followed); link publishes only where nothing is yet (EEXIST).
  if (ok && (replace ? rename(tmp, path) : link(tmp, path)) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok || !replace)
    unlink(tmp);
  if (ok)
    return MG_STATUS_OK;
  MgStatus st = mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                            "cannot write '%s': %s", path, strerror(err));
  errno = err; // for callers that look for EEXIST
  return st;
}

bool mg_privfile_dir_shared(const char *dir) {
  struct stat st;
  return stat(dir, &st) == 0 &&
         ((st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_uid != geteuid());
}

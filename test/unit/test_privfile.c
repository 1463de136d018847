// Files kept for oneself in a directory others may write
// (lib/support/privfile.c): what another user could plant at a name is
// refused on read and replaced, never written through, on write.
#define _XOPEN_SOURCE 700 // mkdtemp, mkfifo, symlink, lchown

#include "mirage/support.h"
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void path_of(const char *name, char *buf, size_t size) {
  snprintf(buf, size, "%s/%s", dir, name);
}

static void put_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static bool has_text(const char *path, const char *text) {
  char buf[256] = "";
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f)
    fclose(f);
  buf[n] = 0;
  return strcmp(buf, text) == 0;
}

static MgPrivRead read_of(const char *path, size_t max, MgDiag *diag) {
  char *data = NULL;
  size_t len = 0;
  MgPrivRead r = mg_privfile_read(path, max, &data, &len, NULL, diag);
  free(data);
  return r;
}

/// Entries of `dir` other than . and .. (a temporary file left behind
/// shows up here).
static int count_entries(void) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (d)
    closedir(d);
  return n;
}

static void test_privfile_round_trip(void) {
  char path[128];
  path_of("entry", path, sizeof path);
  MgDiag diag = MG_DIAG_INIT;
  CHECK_EQ_INT(read_of(path, 100, &diag), MG_PRIV_ABSENT);
  CHECK_EQ_INT(mg_privfile_write(path, "hello", 5, true, &diag),
               MG_STATUS_OK);
  char *data = NULL;
  size_t len = 0;
  unsigned mode = 0;
  CHECK_EQ_INT(mg_privfile_read(path, 5, &data, &len, &mode, &diag),
               MG_PRIV_READ);
  CHECK_EQ_INT(len, 5);
  CHECK(data && strcmp(data, "hello") == 0);
  CHECK_EQ_INT(mode, 0600);
  free(data);
  // One byte over the limit: refused.
  CHECK_EQ_INT(read_of(path, 4, &diag), MG_PRIV_REFUSED);
  CHECK(strstr(diag.message, "larger than the limit") != NULL);
  // Without `replace`, an existing name is kept (EEXIST), nothing left.
  CHECK_EQ_INT(mg_privfile_write(path, "other", 5, false, &diag),
               MG_STATUS_INVALID);
  CHECK_EQ_INT(errno, EEXIST);
  CHECK(has_text(path, "hello"));
  CHECK_EQ_INT(count_entries(), 1);
  unlink(path);
}

static void test_privfile_symlink(void) {
  char path[128], victim[128];
  path_of("entry", path, sizeof path);
  path_of("victim", victim, sizeof victim);
  put_text(victim, "the victim's file");
  CHECK_EQ_INT(symlink(victim, path), 0);
  MgDiag diag = MG_DIAG_INIT;
  CHECK_EQ_INT(read_of(path, 1 << 20, &diag), MG_PRIV_REFUSED);
  CHECK(strstr(diag.message, "symbolic link") != NULL);
  // The write replaces the link; the file it named is intact.
  CHECK_EQ_INT(mg_privfile_write(path, "entry", 5, true, &diag),
               MG_STATUS_OK);
  CHECK(has_text(victim, "the victim's file"));
  struct stat st;
  CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
  CHECK(has_text(path, "entry"));
  CHECK_EQ_INT(count_entries(), 2);
  unlink(path);
  // A link to /dev/zero is never read.
  CHECK_EQ_INT(symlink("/dev/zero", path), 0);
  CHECK_EQ_INT(read_of(path, 1 << 20, &diag), MG_PRIV_REFUSED);
  unlink(path);
  unlink(victim);
}

static void test_privfile_fifo(void) {
  char path[128];
  path_of("entry", path, sizeof path);
  CHECK_EQ_INT(mkfifo(path, 0600), 0);
  MgDiag diag = MG_DIAG_INIT;
  // Returns at once (no writer would ever come), refused.
  CHECK_EQ_INT(read_of(path, 1 << 20, &diag), MG_PRIV_REFUSED);
  CHECK(strstr(diag.message, "not a regular file") != NULL);
  CHECK_EQ_INT(mg_privfile_write(path, "entry", 5, true, &diag),
               MG_STATUS_OK);
  CHECK(has_text(path, "entry"));
  unlink(path);
}

static void test_privfile_foreign_owner(void) {
  if (geteuid() != 0) {
    printf("(not root: another user's file is not tested)\n");
    return;
  }
  char path[128];
  path_of("entry", path, sizeof path);
  put_text(path, "theirs");
  CHECK_EQ_INT(chown(path, 65534, 65534), 0);
  MgDiag diag = MG_DIAG_INIT;
  CHECK_EQ_INT(read_of(path, 1 << 20, &diag), MG_PRIV_REFUSED);
  CHECK(strstr(diag.message, "another user") != NULL);
  unlink(path);
}

static void test_privfile_dirs(void) {
  char sub[128];
  path_of("a/b", sub, sizeof sub);
  CHECK_EQ_INT(mg_outfile_make_dirs_mode(sub, 0700, NULL), MG_STATUS_OK);
  struct stat st;
  CHECK(stat(sub, &st) == 0 && (st.st_mode & 0777) == 0700);
  CHECK(!mg_privfile_dir_shared(sub));
  chmod(sub, 0770);
  CHECK(mg_privfile_dir_shared(sub));
  chmod(sub, 01777); // /tmp-like: sticky, still shared
  CHECK(mg_privfile_dir_shared(sub));
  rmdir(sub);
  path_of("a", sub, sizeof sub);
  rmdir(sub);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/mirage-privfile-XXXXXX");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return EXIT_FAILURE;
  }
  RUN_TEST(test_privfile_round_trip);
  RUN_TEST(test_privfile_symlink);
  RUN_TEST(test_privfile_fifo);
  RUN_TEST(test_privfile_foreign_owner);
  RUN_TEST(test_privfile_dirs);
  CHECK_EQ_INT(count_entries(), 0);
  rmdir(dir);
  return TEST_SUMMARY();
}

#include "cli_support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static char tmpdir[256];

void tt_tmpdir_make(const char *prefix) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/%s_XXXXXX", prefix);
  cr_assert_not_null(mkdtemp(tmpdir), "cannot make %s", tmpdir);
}

void tt_tmpdir_remove(void) {
  if (!tmpdir[0]) return;
  /* Whatever the tests and the command left there: plain files only. */
  DIR *d = opendir(tmpdir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char path[768];
    snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
    unlink(path);
  }
  if (d) closedir(d);
  rmdir(tmpdir);
}

const char *tt_tmpdir(void) { return tmpdir; }

const char *tt_tmp_path(const char *name) {
  static char buf[4][768];
  static unsigned k;
  char *b = buf[k++ % 4];
  snprintf(b, sizeof buf[0], "%s/%s", tmpdir, name);
  return b;
}

const char *tt_tmp_write(const char *name, const void *data, size_t len) {
  const char *path = tt_tmp_path(name);
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f, "cannot write %s", path);
  cr_assert_eq(fwrite(data, 1, len, f), len);
  cr_assert_eq(fclose(f), 0);
  return path;
}

tt_run tt_texmem_v(const char *const *pre, size_t npre, const char *first, va_list ap) {
  const char *argv[32] = {TEXMEM_BINARY_DIR "/texmem"};
  size_t argc = 1;
  for (size_t i = 0; i < npre; i++) {
    cr_assert_lt(argc, 31);
    argv[argc++] = pre[i];
  }
  for (const char *a = first; a; a = va_arg(ap, const char *)) {
    cr_assert_lt(argc, 31);
    argv[argc++] = a;
  }
  argv[argc] = NULL;
  tt_run r;
  r.code = tt_spawn(argv, tmpdir, &r.out, &r.err);
  return r;
}

tt_run tt_texmem(const char *first, ...) {
  va_list ap;
  va_start(ap, first);
  tt_run r = tt_texmem_v(NULL, 0, first, ap);
  va_end(ap);
  return r;
}

void tt_run_free(tt_run *r) {
  free(r->out);
  free(r->err);
  r->out = r->err = NULL;
}

#include "support.h"

#include <stdio.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef TEXMEM_TEST_EMULATOR
#include "cross_exec.h"
#endif

extern char **environ;

texmem_plan *tt_plan(const texmem_record *rec, size_t n, unsigned dims,
                     texmem_plan_desc desc) {
  texmem_plan *p = NULL;
  texmem_error err = {0};
  texmem_status st = texmem_plan_create(rec, n, dims, &desc, &p, &err);
  cr_assert_eq(st, TEXMEM_STATUS_OK, "plan_create(%s): %s: %s",
               texmem_strategy_name(desc.strategy), texmem_status_name(st), err.message);
  cr_assert_not_null(p);
  st = texmem_plan_validate(rec, n, dims, p, &err);
  cr_assert_eq(st, TEXMEM_STATUS_OK, "validate(%s): %s", texmem_strategy_name(desc.strategy),
               err.message);
  return p;
}

uint64_t tt_plan_total(const texmem_record *rec, size_t n, unsigned dims,
                       texmem_plan_desc desc) {
  texmem_plan *p = tt_plan(rec, n, dims, desc);
  uint64_t t = texmem_plan_total(p);
  texmem_plan_destroy(p);
  return t;
}

char *tt_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)sz + 1);
  cr_assert_not_null(buf);
  size_t got = fread(buf, 1, (size_t)sz, f);
  fclose(f);
  cr_assert_eq(got, (size_t)sz);
  buf[sz] = 0;
  if (len) *len = (size_t)sz;
  return buf;
}

texmem_records *tt_load_records(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", TEXMEM_TEST_DATA, name);
  texmem_records *r = NULL;
  texmem_error err = {0};
  texmem_status st = texmem_records_load(path, &r, &err);
  cr_assert_eq(st, TEXMEM_STATUS_OK, "load %s: %s", path, err.message);
  return r;
}

uint64_t tt_rand(uint64_t *s) {
  /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int tt_spawn(const char *const *argv, const char *dir, char **out, char **err) {
  char opath[1024], epath[1024];
  snprintf(opath, sizeof opath, "%s/stdout.txt", dir);
  snprintf(epath, sizeof epath, "%s/stderr.txt", dir);
  posix_spawn_file_actions_t fa;
  cr_assert_eq(posix_spawn_file_actions_init(&fa), 0);
  posix_spawn_file_actions_addopen(&fa, 1, opath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, epath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
#ifdef TEXMEM_TEST_EMULATOR
  /* Cross build: the texmem command runs under the emulator too. */
  char emu_buf[1024];
  const char *emu_argv[128];
  argv = tt_emulated_argv(argv[0], argv, emu_buf, sizeof emu_buf, emu_argv,
                          sizeof emu_argv / sizeof emu_argv[0]);
  cr_assert_not_null(argv, "too many arguments for the emulator");
#endif
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  cr_assert_eq(rc, 0, "cannot spawn %s: %s", argv[0], strerror(rc));
  int status = 0;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status), "%s did not exit normally (status %d)", argv[0], status);
  if (out) *out = tt_read_file(opath, NULL);
  if (err) *err = tt_read_file(epath, NULL);
  unlink(opath);
  unlink(epath);
  return WEXITSTATUS(status);
}

const char *tt_model_cache(void) {
  static char path[1024];
  const char *dir = getenv("TEXMEM_MODEL_CACHE");
  if (dir && *dir) return dir;
  snprintf(path, sizeof path, "%s/.cache/texmem/models", getenv("HOME") ? getenv("HOME") : "");
  return path;
}

const char *tt_node_path(void) {
  static char buf[1024];
  const char *env = getenv("TEXMEM_NODE");
  if (env && *env) return env;
  const char *path = getenv("PATH");
  char dirs[4096];
  snprintf(dirs, sizeof dirs, "%s", path ? path : "/usr/bin:/usr/local/bin");
  for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
    snprintf(buf, sizeof buf, "%s/node", d);
    if (access(buf, X_OK) == 0) return buf;
  }
  cr_assert_fail("node not found in PATH (set TEXMEM_NODE or run tools/install-deps.sh)");
  return NULL;
}

const char *tt_tflite_wasm_dir(void) {
  static char buf[1024];
  const char *env = getenv("TEXMEM_TFLITE_WASM");
  if (env && *env)
    snprintf(buf, sizeof buf, "%s", env);
  else
    snprintf(buf, sizeof buf, "%s/.cache/texmem/tflite-wasm", getenv("HOME") ? getenv("HOME") : "");
  char f[1100];
  snprintf(f, sizeof f, "%s/tflite_web_api_cc.wasm", buf);
  cr_assert(access(f, R_OK) == 0, "%s missing: run tools/fetch_tflite.sh", f);
  return buf;
}

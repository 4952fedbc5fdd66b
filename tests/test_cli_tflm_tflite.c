/* Real TensorFlow Lite (the WebAssembly build the oracle uses,
 * tests/oracle/tflite_run.cjs under Node) loads every test model after
 * texmem tflm --output wrote its plan, and gives byte-identical outputs to
 * the original: the written flatbuffer is one TFLite accepts, with every
 * weight kept. Like the oracle, this never skips: no node or no TFLite is
 * a failure (tools/test.sh installs both). Kept out of the valgrind stage
 * (it runs Node). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"
#include "tflm_models.h"

static const char *node_path(void) {
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

static const char *wasm_dir(void) {
  static char buf[1024];
  const char *env = getenv("TEXMEM_TFLITE_WASM");
  if (env && *env) snprintf(buf, sizeof buf, "%s", env);
  else snprintf(buf, sizeof buf, "%s/.cache/texmem/tflite-wasm", getenv("HOME") ? getenv("HOME") : "");
  char f[1100];
  snprintf(f, sizeof f, "%s/tflite_web_api_cc.wasm", buf);
  cr_assert(access(f, R_OK) == 0, "%s missing: run tools/fetch_tflite.sh", f);
  return buf;
}

static char dir[256];

static void cleanup(void) {
  static const char *const names[] = {"m.tflite", "p.tflite", "a.0.f32", "b.0.f32", "stdout.txt", "stderr.txt"};
  char path[512];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
}

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/texmem_tflm_tflite_XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

TestSuite(tflm_tflite, .init = setup, .fini = cleanup);

static char *at(const char *name) {
  static char buf[4][512];
  static int k;
  char *b = buf[k++ % 4];
  snprintf(b, 512, "%s/%s", dir, name);
  return b;
}

static void tflite_run(const char *model, const char *prefix) {
  const char *argv[] = {node_path(), TEXMEM_SOURCE_DIR "/tests/oracle/tflite_run.cjs", "--wasm", wasm_dir(),
                        "--model", model, "--out", prefix, NULL};
  char *out = NULL, *err = NULL;
  int rc = tt_spawn(argv, dir, &out, &err);
  cr_assert_eq(rc, 0, "TFLite on %s: %s %s", model, out, err);
  free(out);
  free(err);
}

Test(tflm_tflite, written_models_run_identically) {
  for (int k = 0; k < TM_COUNT; k++) {
    uint8_t *data = NULL;
    size_t size = 0;
    texmem_error e = {0};
    cr_assert_eq(tm_build((tm_kind)k, NULL, 0, &data, &size, &e), TEXMEM_STATUS_OK, "%s", e.message);
    FILE *f = fopen(at("m.tflite"), "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(data, 1, size, f), size);
    fclose(f);
    free(data);
    const char *argv[] = {TEXMEM_BINARY_DIR "/texmem", "tflm", at("m.tflite"), "--output", at("p.tflite"), NULL};
    char *out = NULL, *err = NULL;
    cr_assert_eq(tt_spawn(argv, dir, &out, &err), 0, "%s", err);
    free(out);
    free(err);
    tflite_run(at("m.tflite"), at("a"));
    tflite_run(at("p.tflite"), at("b"));
    size_t la, lb;
    char *a = tt_read_file(at("a.0.f32"), &la), *b = tt_read_file(at("b.0.f32"), &lb);
    cr_assert_eq(la, lb, "%s", tm_name((tm_kind)k));
    cr_assert(la > 0 && memcmp(a, b, la) == 0, "%s: outputs differ", tm_name((tm_kind)k));
    free(a);
    free(b);
  }
}

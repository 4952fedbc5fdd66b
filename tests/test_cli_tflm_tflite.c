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

#include "cli_support.h"
#include "support.h"
#include "tflm_models.h"

static void setup(void) { tt_tmpdir_make("texmem_tflm_tflite"); }

TestSuite(tflm_tflite, .init = setup, .fini = tt_tmpdir_remove);

static void tflite_run(const char *model, const char *prefix) {
  const char *argv[] = {tt_node_path(), TEXMEM_SOURCE_DIR "/tests/oracle/tflite_run.cjs", "--wasm", tt_tflite_wasm_dir(),
                        "--model", model, "--out", prefix, NULL};
  char *out = NULL, *err = NULL;
  int rc = tt_spawn(argv, tt_tmpdir(), &out, &err);
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
    tt_tmp_write("m.tflite", data, size);
    free(data);
    const char *argv[] = {TEXMEM_BINARY_DIR "/texmem", "tflm", tt_tmp_path("m.tflite"), "--output", tt_tmp_path("p.tflite"), NULL};
    char *out = NULL, *err = NULL;
    cr_assert_eq(tt_spawn(argv, tt_tmpdir(), &out, &err), 0, "%s", err);
    free(out);
    free(err);
    tflite_run(tt_tmp_path("m.tflite"), tt_tmp_path("a"));
    tflite_run(tt_tmp_path("p.tflite"), tt_tmp_path("b"));
    size_t la, lb;
    char *a = tt_read_file(tt_tmp_path("a.0.f32"), &la), *b = tt_read_file(tt_tmp_path("b.0.f32"), &lb);
    cr_assert_eq(la, lb, "%s", tm_name((tm_kind)k));
    cr_assert(la > 0 && memcmp(a, b, la) == 0, "%s: outputs differ", tm_name((tm_kind)k));
    free(a);
    free(b);
  }
}

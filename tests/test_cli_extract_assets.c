/* tools/extract_packed_assets.js (used by tools/fetch_models.sh): the
 * .tflite byte ranges a packed-assets loader lists are written out under
 * their base names, other files skipped; ranges outside the data, a
 * missing file list, a size mismatch and non-TFLite bytes are errors. Runs
 * node through sh (node comes with npm, which the set-up installs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_support.h"
#include "support.h"

static void make_tmpdir(void) { tt_tmpdir_make("texmem_extract"); }

TestSuite(cli_extract_assets, .init = make_tmpdir, .fini = tt_tmpdir_remove);


/* A loader listing `list` (the JSON files array) for a data file of size. */
static void write_loader(const char *list, size_t size) {
  char js[2048];
  snprintf(js, sizeof js,
           "var Module = {};\n(function() {\n  function loadPackage(metadata) {}\n"
           "    loadPackage({\"files\": [%s], \"remote_package_size\": %zu});\n})();\n",
           list, size);
  tt_tmp_write("loader.js", js, strlen(js));
}

static int extract(char **err) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "node '%s/tools/extract_packed_assets.js' '%s/loader.js' '%s/assets.data' '%s'",
           TEXMEM_SOURCE_DIR, tt_tmpdir(), tt_tmpdir(), tt_tmpdir());
  const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
  char *out = NULL;
  int rc = tt_spawn(argv, tt_tmpdir(), &out, err);
  free(out);
  return rc;
}

/* data: 11 bytes of text, then two fake models ("....TFL3" headers). */
static uint8_t data[11 + 24 + 16];

static void make_data(void) {
  memcpy(data, "handedness\n", 11);
  for (size_t i = 11; i < sizeof data; i++) data[i] = (uint8_t)(i * 7);
  memcpy(data + 11 + 4, "TFL3", 4);
  memcpy(data + 11 + 24 + 4, "TFL3", 4);
  tt_tmp_write("assets.data", data, sizeof data);
}

Test(cli_extract_assets, tflite_ranges_extracted) {
  make_data();
  write_loader("{\"filename\": \"/x/handedness.txt\", \"start\": 0, \"end\": 11}, "
               "{\"filename\": \"/third_party/m/a.tflite\", \"start\": 11, \"end\": 35}, "
               "{\"filename\": \"/b.tflite\", \"start\": 35, \"end\": 51}",
               sizeof data);
  char *err = NULL;
  cr_assert_eq(extract(&err), 0, "%s", err);
  free(err);
  char path[512];
  size_t len;
  snprintf(path, sizeof path, "%s/a.tflite", tt_tmpdir());
  char *a = tt_read_file(path, &len);
  cr_assert_eq(len, 24);
  cr_assert_arr_eq(a, data + 11, 24);
  free(a);
  snprintf(path, sizeof path, "%s/b.tflite", tt_tmpdir());
  char *b = tt_read_file(path, &len);
  cr_assert_eq(len, 16);
  cr_assert_arr_eq(b, data + 35, 16);
  free(b);
  snprintf(path, sizeof path, "%s/handedness.txt", tt_tmpdir());
  cr_assert_neq(access(path, F_OK), 0, "a non-model file was extracted");
}

static void expect_error(const char *list, size_t size, const char *msg) {
  make_data();
  write_loader(list, size);
  char *err = NULL;
  cr_expect_eq(extract(&err), 1);
  cr_expect_not_null(strstr(err, msg), "stderr '%s' lacks '%s'", err, msg);
  free(err);
}

Test(cli_extract_assets, bad_loaders_are_errors) {
  expect_error("{\"filename\": \"/a.tflite\", \"start\": 11, \"end\": 99}", sizeof data,
               "byte range 11..99 outside");
  expect_error("{\"filename\": \"/a.tflite\", \"start\": 20, \"end\": 11}", sizeof data,
               "byte range 20..11 outside");
  expect_error("{\"filename\": \"/a.tflite\", \"start\": 0, \"end\": 11}", sizeof data,
               "is not a TFLite model");
  expect_error("{\"filename\": \"/a.tflite\", \"start\": 11, \"end\": 35}", 7, "the loader expects 7");
  tt_tmp_write("loader.js", "var x = 1;\n", 11);
  char *err = NULL;
  cr_expect_eq(extract(&err), 1);
  cr_expect_not_null(strstr(err, "no loadPackage"), "%s", err);
  free(err);
}

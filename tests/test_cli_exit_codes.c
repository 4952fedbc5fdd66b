/* The one status -> exit code mapping (tools/texmem/cli_util.c), seen from
 * every subcommand: 0 success, 2 bad input (flags, missing or malformed
 * files, sums past 64 bits), 1 internal failure. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static char tmpdir[256];

static void make_tmpdir(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/texmem_cli_exit_XXXXXX");
  cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void) {
  char p[512];
  const char *files[] = {"overflow.txt", "truncated.tflite", "out", "err"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    snprintf(p, sizeof p, "%s/%s", tmpdir, files[i]);
    unlink(p);
  }
  rmdir(tmpdir);
}

TestSuite(cli_exit_codes, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 300);

/* Runs texmem with args (NULL-terminated), asserts the exit code and, when
 * want_err is not NULL, that stderr names it. */
static void expect(int code, const char *want_err, const char *first, ...) {
  const char *argv[16] = {TEXMEM_BINARY_DIR "/texmem", first};
  int argc = 2;
  va_list ap;
  va_start(ap, first);
  for (const char *a; argc < 15 && (a = va_arg(ap, const char *));) argv[argc++] = a;
  va_end(ap);
  argv[argc] = NULL;
  char *out = NULL, *err = NULL;
  int got = tt_spawn(argv, tmpdir, &out, &err);
  cr_expect_eq(got, code, "texmem %s %s: exit %d, expected %d; stderr: %s", first,
               argc > 2 ? argv[2] : "", got, code, err);
  if (want_err) cr_expect(strstr(err, want_err), "stderr lacks '%s': %s", want_err, err);
  free(out);
  free(err);
}

static const char *tmp_file(const char *name, const void *data, size_t len) {
  static char p[4][512];
  static int k;
  char *path = p[k++ % 4];
  snprintf(path, 512, "%s/%s", tmpdir, name);
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(data, 1, len, f), len);
  fclose(f);
  return path;
}

static const char *truncated_model(void) {
  size_t len;
  char *m = tt_read_file(TEXMEM_TEST_DATA "/face_detection_short_range.tflite", &len);
  const char *p = tmp_file("truncated.tflite", m, len / 3);
  free(m);
  return p;
}

#define DATA(f) TEXMEM_TEST_DATA "/" f

Test(cli_exit_codes, plan) {
  expect(0, NULL, "plan", "--records", DATA("face_detection_short_range.1d.txt"), "--kind",
         "offsets", "--strategy", "greedy_by_size", NULL);
  expect(2, "--bogus", "plan", "--bogus", NULL);
  expect(2, "no/such/file", "plan", "--records", "no/such/file", NULL);
  const char over[] = "0 0 1 9223372036854775808\n1 0 1 9223372036854775808\n";
  const char *o = tmp_file("overflow.txt", over, sizeof over - 1);
  expect(2, NULL, "plan", "--records", o, "--kind", "objects", "--strategy", "naive", NULL);
  expect(2, NULL, "plan", "--model", truncated_model(), NULL);
}

Test(cli_exit_codes, records) {
  expect(0, NULL, "records", DATA("face_detection_short_range.tflite"), NULL);
  expect(2, "--bogus", "records", "--bogus", DATA("face_detection_short_range.tflite"), NULL);
  expect(2, "no/such/file", "records", "no/such/file.tflite", NULL);
  expect(2, NULL, "records", truncated_model(), NULL);
}

Test(cli_exit_codes, bench) {
  expect(0, NULL, "bench", DATA("face_detection_short_range.tflite"), "--plan-only", NULL);
  expect(2, "--bogus", "bench", "--bogus", NULL);
  expect(2, NULL, "bench", "--runs", "0", NULL);
  expect(2, "no/such/file", "bench", "no/such/file.tflite", NULL);
  expect(2, NULL, "bench", truncated_model(), NULL);
}

Test(cli_exit_codes, info) {
  expect(0, NULL, "info", NULL);
  expect(2, "--bogus", "info", "--bogus", NULL);
}

Test(cli_exit_codes, unknown_command) { expect(2, NULL, "frobnicate", NULL); }

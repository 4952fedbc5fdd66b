/* The one status -> exit code mapping (tools/texmem/cli_util.c), seen from
 * every subcommand: 0 success, 2 bad input (flags, missing or malformed
 * files, sums past 64 bits), 1 internal failure. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_support.h"
#include "support.h"

static void make_tmpdir(void) { tt_tmpdir_make("texmem_cli_exit"); }

TestSuite(cli_exit_codes, .init = make_tmpdir, .fini = tt_tmpdir_remove, .timeout = 300);

/* Runs texmem with args (NULL-terminated), asserts the exit code and, when
 * want_err is not NULL, that stderr names it. */
static void expect(int code, const char *want_err, const char *first, ...) {
  va_list ap;
  va_start(ap, first);
  tt_run r = tt_texmem_v(NULL, 0, first, ap);
  va_end(ap);
  cr_expect_eq(r.code, code, "texmem %s: exit %d, expected %d; stderr: %s", first, r.code, code,
               r.err);
  if (want_err) cr_expect(strstr(r.err, want_err), "stderr lacks '%s': %s", want_err, r.err);
  tt_run_free(&r);
}


static const char *truncated_model(void) {
  size_t len;
  char *m = tt_read_file(TEXMEM_TEST_DATA "/face_detection_short_range.tflite", &len);
  const char *p = tt_tmp_write("truncated.tflite", m, len / 3);
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
  const char *o = tt_tmp_write("overflow.txt", over, sizeof over - 1);
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

/* texmem tflm, run as a program on the test models: the summary, --json
 * fields, the --ascii picture against a golden file, --output then
 * --check, --check on plans with problems, and exit codes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_support.h"
#include "support.h"
#include "tflm_models.h"

static void make_tmpdir(void) { tt_tmpdir_make("texmem_tflm_cli"); }

TestSuite(tflm_cli, .init = make_tmpdir, .fini = tt_tmpdir_remove);

static void write_model(tm_kind k, const tw_metadata *meta, size_t n_meta, const char *name) {
  uint8_t *data = NULL;
  size_t size = 0;
  texmem_error err = {0};
  cr_assert_eq(tm_build(k, meta, n_meta, &data, &size, &err), TEXMEM_STATUS_OK, "%s", err.message);
  tt_tmp_write(name, data, size);
  free(data);
}

static int run(const char *a1, const char *a2, const char *a3, const char *a4, char **out, char **err) {
  const char *argv[] = {TEXMEM_BINARY_DIR "/texmem", "tflm", a1, a2, a3, a4, NULL};
  return tt_spawn(argv, tt_tmpdir(), out, err);
}

Test(tflm_cli, ascii_matches_golden_file) {
  write_model(TM_TINY_INT8, NULL, 0, "m.tflite");
  char *out = NULL, *err = NULL;
  cr_assert_eq(run(tt_tmp_path("m.tflite"), "--ascii", NULL, NULL, &out, &err), 0, "%s", err);
  const char *pic = strstr(out, "arena 256 bytes");
  cr_assert_not_null(pic, "%s", out);
  size_t len;
  char *golden = tt_read_file(TEXMEM_TEST_DATA "/tflm_tiny_int8.ascii.txt", &len);
  cr_assert_str_eq(pic, golden);
  cr_assert(strstr(out, "proven optimal"), "%s", out);
  free(golden);
  free(out);
  free(err);
}

Test(tflm_cli, json_has_every_field) {
  write_model(TM_TWO_SUBGRAPHS_INT8, NULL, 0, "m.tflite");
  char *out = NULL, *err = NULL;
  cr_assert_eq(run(tt_tmp_path("m.tflite"), "--json", NULL, NULL, &out, &err), 0, "%s", err);
  static const char *const keys[] = {"\"model\": ", "\"subgraphs\": 2", "\"tensors\": 15", "\"planned\": 4",
                                     "\"arena_bytes\": 3072", "\"tflm_greedy_bytes\": ", "\"max_live_bytes\": 3072",
                                     "\"optimal\": true", "\"strategy\": \"exact\"", "\"peak\": [{\"tensor\": ",
                                     "\"offsets\": ["};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) cr_assert(strstr(out, keys[i]), "%s in %s", keys[i], out);
  /* 15 offsets, the body's 7 last ones -1. */
  cr_assert(strstr(out, ", -1, -1, -1, -1, -1, -1, -1]}"), "%s", out);
  free(out);
  free(err);
}

Test(tflm_cli, output_then_check) {
  write_model(TM_BRANCHY_INT8, NULL, 0, "m.tflite");
  char *out = NULL, *err = NULL;
  cr_assert_eq(run(tt_tmp_path("m.tflite"), "--output", tt_tmp_path("planned.tflite"), NULL, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "6144") && strstr(out, "6912"), "%s", out);
  cr_assert(strstr(out, "re-read and checked"), "%s", out);
  free(out);
  free(err);
  cr_assert_eq(run("--check", tt_tmp_path("planned.tflite"), NULL, NULL, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "plan ok: arena head 6144 bytes"), "%s", out);
  free(out);
  free(err);
  /* The original has no plan to check. */
  cr_assert_eq(run("--check", tt_tmp_path("m.tflite"), NULL, NULL, &out, &err), 2);
  cr_assert(strstr(err, "no OfflineMemoryAllocation"), "%s", err);
  free(out);
  free(err);
  /* tflm_greedy as the strategy gives TFLM's arena. */
  cr_assert_eq(run(tt_tmp_path("m.tflite"), "--strategy", "tflm_greedy", "--json", &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "\"arena_bytes\": 6912") && strstr(out, "\"optimal\": false"), "%s", out);
  free(out);
  free(err);
}

Test(tflm_cli, check_reports_problems_with_exit_2) {
  /* tiny: tensor 3 (128 B, scopes 1..2) and 6 (64 B, 2..3) overlap; 7 is misaligned. */
  int32_t words[3 + 8] = {0, 1, 8, 0, -1, -1, 64, -1, -1, 64, 8};
  tw_metadata m = {"OfflineMemoryAllocation", words, sizeof words, -1};
  write_model(TM_TINY_INT8, &m, 1, "bad.tflite");
  char *out = NULL, *err = NULL;
  cr_assert_eq(run("--check", tt_tmp_path("bad.tflite"), NULL, NULL, &out, &err), 2, "%s", err);
  cr_assert(strstr(out, "overlap while both are live"), "%s", out);
  cr_assert(strstr(out, "not a multiple of 16"), "%s", out);
  free(out);
  free(err);
  cr_assert_eq(run("--check", tt_tmp_path("bad.tflite"), "--json", NULL, &out, &err), 2, "%s", err);
  cr_assert(strstr(out, "\"kind\": \"overlap\", \"tensor\": 3, \"other\": 6"), "%s", out);
  cr_assert(strstr(out, "\"kind\": \"misaligned\""), "%s", out);
  free(out);
  free(err);
  /* Replanning the model replaces the bad plan. */
  cr_assert_eq(run(tt_tmp_path("bad.tflite"), "--output", tt_tmp_path("planned.tflite"), NULL, &out, &err), 0, "%s", err);
  free(out);
  free(err);
  cr_assert_eq(run("--check", tt_tmp_path("planned.tflite"), NULL, NULL, &out, &err), 0, "%s", out);
  free(out);
  free(err);
}

Test(tflm_cli, bad_input_exit_codes) {
  char *out = NULL, *err = NULL;
  cr_assert_eq(run(tt_tmp_path("missing.tflite"), NULL, NULL, NULL, &out, &err), 2);
  cr_assert(strstr(err, "missing.tflite") && strstr(err, "TEXMEM_STATUS_IO"), "%s", err);
  free(out);
  free(err);
  write_model(TM_TINY_INT8, NULL, 0, "m.tflite");
  cr_assert_eq(run(tt_tmp_path("m.tflite"), "--strategy", "naive", NULL, &out, &err), 2);
  cr_assert(strstr(err, "not an offsets strategy"), "%s", err);
  free(out);
  free(err);
  cr_assert_eq(run(tt_tmp_path("m.tflite"), "--frobnicate", NULL, NULL, &out, &err), 2);
  free(out);
  free(err);
  /* A truncated file. */
  FILE *f = fopen(tt_tmp_path("bad.tflite"), "wb");
  fwrite("\x10\0\0\0TFL3\0\0", 1, 10, f);
  fclose(f);
  cr_assert_eq(run(tt_tmp_path("bad.tflite"), NULL, NULL, NULL, &out, &err), 2);
  cr_assert(strstr(err, "TEXMEM_STATUS_BAD_MODEL"), "%s", err);
  free(out);
  free(err);
}

/* --budget answers only what is proven: branchy's optimum is 6144 bytes,
 * tflm_greedy's plan 6912. */
Test(tflm_cli, budget_answers) {
  write_model(TM_BRANCHY_INT8, NULL, 0, "m.tflite");
  static const struct { const char *bytes, *strategy, *answer; } cases[] = {
      {"6144", "exact", "fits"},
      {"6143", "exact", "does not fit"},
      {"6200", "tflm_greedy", "unknown"},  /* max_live fits, the plan does not, not proven */
      {"6000", "tflm_greedy", "does not fit"}, /* below max_live */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *argv[] = {TEXMEM_BINARY_DIR "/texmem", "tflm", tt_tmp_path("m.tflite"), "--budget", cases[i].bytes,
                          "--strategy", cases[i].strategy, "--json", NULL};
    char *out = NULL, *err = NULL;
    cr_assert_eq(tt_spawn(argv, tt_tmpdir(), &out, &err), 0, "%s", err);
    char want[128];
    snprintf(want, sizeof want, "\"budget\": {\"bytes\": %s, \"answer\": \"%s\"}", cases[i].bytes, cases[i].answer);
    cr_assert(strstr(out, want), "%s not in %s", want, out);
    free(out);
    free(err);
  }
  char *out = NULL, *err = NULL;
  cr_assert_eq(run(tt_tmp_path("m.tflite"), "--budget", "lots", NULL, &out, &err), 2);
  cr_assert(strstr(err, "--budget must be a number"), "%s", err);
  free(out);
  free(err);
}

/* --budget between max_live and the greedy plans on branchy (max_live is
 * under 6144, greedy_by_size and tflm_greedy above it): exact's plan, or
 * the budget oracle's, fits, and the arena printed is within the budget. */
Test(tflm_cli, budget_between_max_live_and_greedy_fits) {
  write_model(TM_BRANCHY_INT8, NULL, 0, "m.tflite");
  static const char *const strategies[] = {"exact", "best"};
  for (size_t i = 0; i < 2; i++) {
    const char *argv[] = {TEXMEM_BINARY_DIR "/texmem", "tflm", tt_tmp_path("m.tflite"), "--budget", "6200",
                          "--strategy", strategies[i], "--json", NULL};
    char *out = NULL, *err = NULL;
    cr_assert_eq(tt_spawn(argv, tt_tmpdir(), &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "\"budget\": {\"bytes\": 6200, \"answer\": \"fits\"}"), "%s", out);
    const char *a = strstr(out, "\"arena_bytes\": ");
    cr_assert_not_null(a);
    cr_assert_leq(strtoull(a + 15, NULL, 10), 6200, "%s", out);
    free(out);
    free(err);
  }
}

/* --node-budget and --time-budget-ms reach exact's search and the budget
 * oracle: a one-node search neither finds 6144 (branchy's optimum, equal
 * to max_live) nor proves it wrong, enough of both finds it; bad values
 * are refused. */
Test(tflm_cli, search_budgets) {
  write_model(TM_BRANCHY_INT8, NULL, 0, "m.tflite");
  static const struct { const char *nodes, *ms; } cases[] = {{"1", "50"}, {"1000000", "5000"}};
  for (size_t i = 0; i < 2; i++) {
    const char *argv[] = {TEXMEM_BINARY_DIR "/texmem", "tflm", tt_tmp_path("m.tflite"), "--budget", "6144",
                          "--node-budget", cases[i].nodes, "--time-budget-ms", cases[i].ms, "--json", NULL};
    char *out = NULL, *err = NULL;
    cr_assert_eq(tt_spawn(argv, tt_tmpdir(), &out, &err), 0, "%s", err);
    /* one node: the seed plans (6912) stand, nothing is proven */
    cr_assert(strstr(out, i ? "\"answer\": \"fits\"" : "\"answer\": \"unknown\""), "%s", out);
    free(out);
    free(err);
  }
  char *out = NULL, *err = NULL;
  cr_assert_eq(run(tt_tmp_path("m.tflite"), "--node-budget", "0", NULL, &out, &err), 2);
  cr_assert(strstr(err, "bad value '0' for --node-budget"), "%s", err);
  free(out);
  free(err);
  cr_assert_eq(run(tt_tmp_path("m.tflite"), "--time-budget-ms", "soon", NULL, &out, &err), 2);
  cr_assert(strstr(err, "bad value 'soon' for --time-budget-ms"), "%s", err);
  free(out);
  free(err);
}

/* texmem tflm ARGS... (NULL-terminated); the exit status. */
static int run_v(char **out, char **err, ...) {
  const char *argv[24] = {TEXMEM_BINARY_DIR "/texmem", "tflm"};
  size_t n = 2;
  va_list ap;
  va_start(ap, err);
  for (const char *a; n < 23 && (a = va_arg(ap, const char *));) argv[n++] = a;
  va_end(ap);
  argv[n] = NULL;
  return tt_spawn(argv, tt_tmpdir(), out, err);
}

/* branchy_int8 with scratch buffers at operators 7 and 8: the plan leaves
 * them holes, TFLM's head with it is 6816 bytes where its own plan needs
 * 6912; written and checked with the same buffers. The plan of the
 * tensors alone (no --scratch), checked with them, costs TFLM 7072 bytes:
 * --check says so and exits 2. */
Test(tflm_cli, scratch_buffers_get_holes) {
  write_model(TM_BRANCHY_INT8, NULL, 0, "m.tflite");
  const char *m = tt_tmp_path("m.tflite"), *p = tt_tmp_path("p.tflite"), *old = tt_tmp_path("old.tflite");
  char *out = NULL, *err = NULL;
  cr_assert_eq(run_v(&out, &err, m, "--scratch", "7:640", "--scratch", "8:928", "--json", NULL), 0, "%s", err);
  static const char *const keys[] = {"\"scratch_buffers\": 2", "\"tflm_greedy_bytes\": 6912", "\"head_bytes\": 6816",
                                     "\"offline_plan\": true", "\"planned\": 13"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) cr_assert(strstr(out, keys[i]), "%s in %s", keys[i], out);
  free(out);
  free(err);
  cr_assert_eq(run_v(&out, &err, m, "--scratch", "7:640", "--scratch", "8:928", "--output", p, NULL), 0, "%s", err);
  cr_assert(strstr(out, "TFLM's head with the plan          6816"), "%s", out);
  cr_assert(strstr(out, "re-read and checked"), "%s", out);
  free(out);
  free(err);
  cr_assert_eq(run_v(&out, &err, "--check", p, "--scratch", "8:928", "--scratch", "7:640", NULL), 0, "%s", out);
  cr_assert(strstr(out, "with the scratch buffers: head 6816 bytes, TFLM's own online plan 6912"), "%s", out);
  free(out);
  free(err);
  cr_assert_eq(run_v(&out, &err, m, "--output", old, NULL), 0, "%s", err);
  free(out);
  free(err);
  cr_assert_eq(run_v(&out, &err, "--check", old, "--scratch", "7:640", "--scratch", "8:928", NULL), 2, "%s", out);
  cr_assert(strstr(out, "problem: with the scratch buffers TFLM's head is 7072 bytes, more than the 6912 of its own "
                        "online plan"),
            "%s", out);
  free(out);
  free(err);
  cr_assert_eq(run_v(&out, &err, "--check", old, "--scratch", "7:640", "--scratch", "8:928", "--json", NULL), 2, "%s", out);
  cr_assert(strstr(out, "\"head_bytes\": ") && strstr(out, "\"kind\": \"head_over_tflm\""), "%s", out);
  free(out);
  free(err);
}

/* --scratch-file takes what --scratch takes, a request list a line, and
 * gives the same plan; malformed values are refused naming them. */
Test(tflm_cli, scratch_file_and_bad_values) {
  write_model(TM_BRANCHY_INT8, NULL, 0, "m.tflite");
  const char *m = tt_tmp_path("m.tflite");
  static const char file[] = "# operator:bytes of each request\n8:928\n\n  7:640   # conv\n";
  const char *sf = tt_tmp_write("scratch.txt", file, sizeof file - 1);
  char *a = NULL, *b = NULL, *err = NULL;
  cr_assert_eq(run_v(&a, &err, m, "--scratch-file", sf, "--json", NULL), 0, "%s", err);
  free(err);
  cr_assert_eq(run_v(&b, &err, m, "--scratch", "7:640", "--scratch", "8:928", "--json", NULL), 0, "%s", err);
  free(err);
  cr_assert_str_eq(a, b);
  free(a);
  free(b);
  static const char *const bad[] = {"7", "7:", "x:16", "7:16,", "7:0", ":16", "7:16,,32"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *out = NULL;
    cr_assert_eq(run_v(&out, &err, m, "--scratch", bad[i], NULL), 2, "'%s'", bad[i]);
    cr_assert(strstr(err, "want OP:BYTES[,BYTES...]"), "'%s': %s", bad[i], err);
    free(out);
    free(err);
  }
  char *out = NULL;
  cr_assert_eq(run_v(&out, &err, m, "--scratch", "99:16", NULL), 2);
  cr_assert(strstr(err, "operator 99 out of range") && strstr(err, "INVALID_ARGUMENT"), "%s", err);
  free(out);
  free(err);
  static const char badfile[] = "7:640\n8:lots\n";
  cr_assert_eq(run_v(&out, &err, m, "--scratch-file", tt_tmp_write("bad.txt", badfile, sizeof badfile - 1), NULL), 2);
  cr_assert(strstr(err, "--scratch-file line 2 '8:lots'"), "%s", err);
  free(out);
  free(err);
  cr_assert_eq(run_v(&out, &err, m, "--scratch-file", tt_tmp_path("none.txt"), NULL), 2);
  free(out);
  free(err);
}

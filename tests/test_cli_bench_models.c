/* texmem bench on every fetched MediaPipe model (tests/models_list.h):
 * --plan-only prints the memory tables of any model; a model with
 * operators the runtime cannot execute prints the tables, then names all
 * of them (name and count) and exits 2; every other model runs end to end
 * (planned outputs bit-identical to naive). The four models test_cli_bench
 * already runs are not run again here. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models_list.h"
#include "cli_support.h"
#include "support.h"
#include "tflite_writer.h"

static void make_tmpdir(void) { tt_tmpdir_make("texmem_cli_bench_models"); }

TestSuite(cli_bench_models, .init = make_tmpdir, .fini = tt_tmpdir_remove, .timeout = 600);

/* texmem bench PATH [--input-shape S] ARGS... (NULL-terminated). */
static tt_run bench(size_t model, const char *first, ...) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/%s", tt_model_cache(), tt_models[model].file);
  if (access(path, R_OK) != 0) cr_skip_test("%s is not in the model cache (tools/fetch_models.sh)", path);
  const char *pre[4] = {"bench", path};
  size_t npre = 2;
  if (tt_models[model].input_shape) {
    pre[npre++] = "--input-shape";
    pre[npre++] = tt_models[model].input_shape;
  }
  va_list ap;
  va_start(ap, first);
  tt_run r = tt_texmem_v(pre, npre, first, ap);
  va_end(ap);
  return r;
}

/* Each "NAME xCOUNT" of list is a line of the report. */
static void expect_each_listed(const char *out, const char *list, const char *file) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", list);
  for (char *item = strtok(buf, ","); item; item = strtok(NULL, ",")) {
    while (*item == ' ') item++;
    char line[160];
    snprintf(line, sizeof line, "\n  %s\n", item);
    cr_expect_not_null(strstr(out, line), "%s: no line '%s' in:\n%s", file, item, out);
  }
}

Test(cli_bench_models, plan_only_every_model) {
  for (size_t i = 0; i < TT_N_MODELS; i++) {
    if (!tt_model_in_run(tt_models[i].file)) continue;
    const char *file = tt_models[i].file;
    tt_run r = bench(i, "--plan-only", NULL);
    cr_assert_eq(r.code, 0, "%s: %s", file, r.err);
    cr_expect_not_null(strstr(r.out, "texture memory of the intermediate tensors"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "lower bound"), "%s", r.out);
    cr_expect_null(strstr(r.out, "latency"), "%s ran: %s", file, r.out);
    if (tt_models[i].unsupported) {
      /* "1 operator the runtime..." or "N operators the runtime..." */
      cr_expect_not_null(strstr(r.out, " the runtime cannot execute:"), "%s", r.out);
      expect_each_listed(r.out, tt_models[i].unsupported, file);
    } else {
      cr_expect_null(strstr(r.out, "not run:"), "%s: %s", file, r.out);
    }
    tt_run_free(&r);
    r = bench(i, "--plan-only", "--json", NULL);
    cr_assert_eq(r.code, 0, "%s: %s", file, r.err);
    cr_expect_not_null(strstr(r.out, "\"executed\": false"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "\"lower_bound\": "), "%s", r.out);
    if (!tt_models[i].unsupported)
      cr_expect_not_null(strstr(r.out, "\"unsupported_ops\": []"), "%s: %s", file, r.out);
    tt_run_free(&r);
  }
}

Test(cli_bench_models, unsupported_operators_are_all_named_exit_2) {
  size_t seen = 0;
  for (size_t i = 0; i < TT_N_MODELS; i++) {
    if (!tt_model_in_run(tt_models[i].file)) continue;
    if (!tt_models[i].unsupported) continue;
    const char *file = tt_models[i].file;
    tt_run r = bench(i, "--runs", "1", NULL);
    cr_expect_eq(r.code, 2, "%s: exit %d: %s", file, r.code, r.err);
    /* The tables first, then every operator, on stdout; the whole list on
     * stderr. */
    const char *tables = strstr(r.out, "texture memory of the intermediate tensors");
    const char *names = strstr(r.out, "not run:");
    cr_expect(tables && names && tables < names, "%s: %s", file, r.out);
    expect_each_listed(r.out, tt_models[i].unsupported, file);
    char want[600];
    snprintf(want, sizeof want, "operators the runtime cannot execute: %s\n", tt_models[i].unsupported);
    cr_expect_not_null(strstr(r.err, want), "%s: stderr lacks '%s': %s", file, want, r.err);
    tt_run_free(&r);
    seen++;
  }
  cr_log_info("%zu cached models with operators the runtime cannot execute", seen);
}

/* A model made here with operators no runtime executes (a CUSTOM op twice
 * and a builtin outside the IR) between two RELUs: the tables, then every
 * unsupported operator with its count, exit 2; --plan-only exits 0. */
Test(cli_bench_models, unsupported_operators_of_a_made_model) {
  const tw_tensor t[] = {TW_TENSOR("in", TW_FLOAT32, 4, 1, 4, 4, 3),
                         TW_TENSOR("a", TW_FLOAT32, 4, 1, 4, 4, 3),
                         TW_TENSOR("b", TW_FLOAT32, 4, 1, 4, 4, 3),
                         TW_TENSOR("c", TW_FLOAT32, 4, 1, 4, 4, 3),
                         TW_TENSOR("d", TW_FLOAT32, 4, 1, 4, 4, 3),
                         TW_TENSOR("out", TW_FLOAT32, 4, 1, 4, 4, 3)};
  const int32_t io[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}};
  const tw_operator ops[] = {
      {TW_OP_RELU, .n_inputs = 1, .inputs = &io[0][0], .n_outputs = 1, .outputs = &io[0][1]},
      {TW_OP_CUSTOM, "NotAnOp", .n_inputs = 1, .inputs = &io[1][0], .n_outputs = 1,
       .outputs = &io[1][1]},
      {99 /* SQUARED_DIFFERENCE */, .n_inputs = 1, .inputs = &io[2][0], .n_outputs = 1,
       .outputs = &io[2][1]},
      {TW_OP_CUSTOM, "NotAnOp", .n_inputs = 1, .inputs = &io[3][0], .n_outputs = 1,
       .outputs = &io[3][1]},
      {TW_OP_RELU, .n_inputs = 1, .inputs = &io[4][0], .n_outputs = 1, .outputs = &io[4][1]}};
  const int32_t in = 0, out = 5;
  const tw_subgraph sg = {"main", 6, t, 1, &in, 1, &out, 5, ops};
  const tw_model m = {"unsupported operators", 1, &sg};
  const char *path = tt_tmp_path("unsupported.tflite");
  texmem_error err = {0};
  cr_assert_eq(tw_write_file(&m, path, &err), TEXMEM_STATUS_OK, "%s", err.message);
  tt_run r = tt_texmem("bench", path, "--runs", "1", NULL);
  cr_expect_eq(r.code, 2, "exit %d: %s", r.code, r.err);
  const char *tables = strstr(r.out, "texture memory of the intermediate tensors");
  const char *names = strstr(r.out, "not run:");
  cr_expect(tables && names && tables < names, "%s", r.out);
  expect_each_listed(r.out, "NotAnOp x2, SQUARED_DIFFERENCE x1", path);
  tt_run_free(&r);
  r = tt_texmem("bench", path, "--plan-only", NULL);
  cr_expect_eq(r.code, 0, "exit %d: %s", r.code, r.err);
  tt_run_free(&r);
}

/* Already run by test_cli_bench. */
static bool run_elsewhere(const char *file) {
  static const char *const done[] = {"selfie_segmentation.tflite", "face_detection_short_range.tflite",
                                     "hand_landmark_lite.tflite", "pose_landmark_lite.tflite"};
  for (size_t i = 0; i < sizeof done / sizeof done[0]; i++)
    if (!strcmp(file, done[i])) return true;
  return false;
}

Test(cli_bench_models, supported_models_run_end_to_end) {
  size_t ran = 0;
  for (size_t i = 0; i < TT_N_MODELS; i++) {
    if (!tt_model_in_run(tt_models[i].file)) continue;
    const char *file = tt_models[i].file;
    if (tt_models[i].unsupported || run_elsewhere(file)) continue;
    tt_run r = bench(i, "--runs", "1", "--json", NULL);
    cr_expect_eq(r.code, 0, "%s: %s", file, r.err);
    cr_expect_not_null(strstr(r.out, "\"outputs_identical\": true"), "%s: %s", file, r.out);
    tt_run_free(&r);
    ran++;
  }
  cr_assert_gt(ran, 0);
}

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

/* texmem bench PATH ARGS... (NULL-terminated): every model as a new user
 * runs it, dynamic batches at the file's placeholder. */
static tt_run bench(size_t model, const char *first, ...) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/%s", tt_model_cache(), tt_models[model].file);
  if (access(path, R_OK) != 0) cr_skip_test("%s is not in the model cache (tools/fetch_models.sh)", path);
  const char *pre[2] = {"bench", path};
  size_t npre = 2;
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

/* A graph of nt tensors made here: tensor 0 in, the last one out; written
 * to the scratch folder as name (the path returned). */
static const char *made_model(const char *name, const tw_tensor *t, size_t nt, const tw_operator *ops, size_t nops) {
  const int32_t in = 0, out = (int32_t)nt - 1;
  const tw_subgraph sg = {"main", nt, t, 1, &in, 1, &out, nops, ops};
  const tw_model m = {name, 1, &sg};
  const char *path = tt_tmp_path(name);
  texmem_error err = {0};
  cr_assert_eq(tw_write_file(&m, path, &err), TEXMEM_STATUS_OK, "%s", err.message);
  return path;
}

#define PLACEHOLDER_NOTE "texmem: input_1: batch dynamic, run at 1; --input-shape to change\n"

/* "lower_bound" of bench --json output. */
static unsigned long long lower_bound(const char *json) {
  const char *p = strstr(json, "\"lower_bound\": ");
  cr_assert_not_null(p, "%s", json);
  return strtoull(p + 15, NULL, 10);
}

/* The models whose input has a dynamic batch (the four 3-D object
 * detectors) plan with `texmem bench MODEL` alone, at batch 1 as TFLite
 * runs them, and say so; --input-shape still sets the batch. */
Test(cli_bench_models, dynamic_batch_runs_at_the_placeholder) {
  size_t seen = 0;
  for (size_t i = 0; i < TT_N_MODELS; i++) {
    if (!tt_model_in_run(tt_models[i].file) || !tt_models[i].input_shape) continue;
    const char *file = tt_models[i].file;
    tt_run a = bench(i, "--plan-only", "--json", NULL);
    cr_assert_eq(a.code, 0, "%s: %s", file, a.err);
    cr_expect_not_null(strstr(a.err, PLACEHOLDER_NOTE), "%s: %s", file, a.err);
    tt_run b = bench(i, "--plan-only", "--json", "--input-shape", "2,224,224,3", NULL);
    cr_assert_eq(b.code, 0, "%s: %s", file, b.err);
    cr_expect_null(strstr(b.err, "dynamic"), "%s: %s", file, b.err);
    cr_expect_gt(lower_bound(b.out), lower_bound(a.out), "%s: batch 2 plans no more than batch 1", file);
    tt_run_free(&a);
    tt_run_free(&b);
    seen++;
  }
  cr_log_info("%zu cached models with a dynamic batch", seen);
}

/* A model made here (nothing downloaded) whose input and intermediate
 * tensors have a dynamic batch, placeholder 1: RELU, RELU6. texmem bench,
 * records and plan --model take it as it is, at batch 1, and say so;
 * --input-shape 3,... triples every record. */
Test(cli_bench_models, dynamic_batch_model_made_here) {
  static const int32_t sig[4] = {-1, 4, 4, 8};
  tw_tensor t[] = {TW_TENSOR("in", TW_FLOAT32, 4, 1, 4, 4, 8), TW_TENSOR("mid", TW_FLOAT32, 4, 1, 4, 4, 8),
                   TW_TENSOR("out", TW_FLOAT32, 4, 1, 4, 4, 8)};
  for (int i = 0; i < 3; i++) t[i].shape_signature = sig;
  const int32_t io[][2] = {{0, 1}, {1, 2}};
  const tw_operator ops[] = {
      {TW_OP_RELU, .n_inputs = 1, .inputs = &io[0][0], .n_outputs = 1, .outputs = &io[0][1]},
      {TW_OP_RELU6, .n_inputs = 1, .inputs = &io[1][0], .n_outputs = 1, .outputs = &io[1][1]}};
  const char *path = made_model("dynamic_batch.tflite", t, 3, ops, 2);
  static const char note[] = "texmem: in: batch dynamic, run at 1; --input-shape to change\n";
  tt_run r = tt_texmem("bench", path, "--runs", "1", "--json", NULL);
  cr_assert_eq(r.code, 0, "%s", r.err);
  cr_expect_not_null(strstr(r.out, "\"outputs_identical\": true"), "%s", r.out);
  cr_expect_not_null(strstr(r.err, note), "%s", r.err);
  tt_run_free(&r);
  r = tt_texmem("plan", "--model", path, NULL);
  cr_assert_eq(r.code, 0, "%s", r.err);
  cr_expect_not_null(strstr(r.err, note), "%s", r.err);
  tt_run_free(&r);
  /* 1-D stored records: 512 bytes a tensor at batch 1, 1536 at batch 3. */
  tt_run a = tt_texmem("records", path, "--dims", "1", "--precision", "stored", NULL);
  tt_run b = tt_texmem("records", path, "--dims", "1", "--precision", "stored", "--input-shape", "3,4,4,8", NULL);
  cr_assert_eq(a.code, 0, "%s", a.err);
  cr_assert_eq(b.code, 0, "%s", b.err);
  cr_expect_not_null(strstr(a.err, note), "%s", a.err);
  cr_expect_null(strstr(b.err, "dynamic"), "%s", b.err);
  cr_expect_not_null(strstr(a.out, "\n0 0 1 512\n"), "%s", a.out);
  cr_expect_not_null(strstr(b.out, "\n0 0 1 1536\n"), "%s", b.out);
  tt_run_free(&a);
  tt_run_free(&b);
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
  const char *path = made_model("unsupported.tflite", t, 6, ops, 5);
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

/* A model this test runs end to end: fetched, in this run, executable and
 * not one test_cli_bench runs. */
static bool end_to_end(size_t i) {
  return tt_model_in_run(tt_models[i].file) && !tt_models[i].unsupported &&
         !run_elsewhere(tt_models[i].file);
}

/* Every other such model from `first`: two tests, so that each stays well
 * within Criterion's 600 s on a loaded 2-core machine (every bench runs
 * five runtimes). */
static void run_end_to_end(size_t first) {
  for (size_t i = first; i < TT_N_MODELS; i += 2) {
    if (!end_to_end(i)) continue;
    const char *file = tt_models[i].file;
    tt_run r = bench(i, "--runs", "1", "--json", NULL);
    cr_expect_eq(r.code, 0, "%s: %s", file, r.err);
    cr_expect_not_null(strstr(r.out, "\"outputs_identical\": true"), "%s: %s", file, r.out);
    if (tt_models[i].input_shape) /* a dynamic batch, run at its placeholder */
      cr_expect_not_null(strstr(r.err, PLACEHOLDER_NOTE), "%s: %s", file, r.err);
    tt_run_free(&r);
  }
}

Test(cli_bench_models, supported_models_run_end_to_end) {
  size_t n = 0;
  for (size_t i = 0; i < TT_N_MODELS; i++) n += end_to_end(i);
  cr_assert_gt(n, 0, "no model to run end to end");
  run_end_to_end(0);
}
Test(cli_bench_models, supported_models_run_end_to_end_odd) { run_end_to_end(1); }

/* Every fetched MediaPipe model through the GL-free commands: `texmem
 * records` (every dims and precision) and `texmem plan --model` with every
 * strategy (each plan valid; the best texture plan within 1.10x
 * positional_max, in 2-D and 3-D), whether or not texmem can run the
 * model's operators; dynamic batches run at the file's placeholder, or
 * fixed with --input-shape. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models_list.h"
#include "cli_support.h"
#include "support.h"

static void make_tmpdir(void) { tt_tmpdir_make("texmem_cli_models"); }

TestSuite(cli_models, .init = make_tmpdir, .fini = tt_tmpdir_remove, .timeout = 300);

/* The cached path of model i; skips the test when the cache lacks it. */
static const char *model_path(size_t i) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/%s", tt_model_cache(), tt_models[i].file);
  if (access(path, R_OK) != 0) cr_skip_test("%s is not in the model cache (tools/fetch_models.sh)", path);
  return path;
}

/* Parses records text (stdout of texmem records) through the library's
 * loader; returns the loaded records (caller destroys). */
static texmem_records *parse_records(const char *text) {
  const char *path = tt_tmp_write("records.txt", text, strlen(text));
  texmem_records *r = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_records_load(path, &r, &err), TEXMEM_STATUS_OK, "%s", err.message);
  return r;
}

Test(cli_models, records_of_every_model) {
  static const char *const dims[] = {"1", "2", "3"};
  for (size_t i = 0; i < TT_N_MODELS; i++) {
    if (!tt_model_in_run(tt_models[i].file)) continue;
    const char *path = model_path(i);
    const char *shape = tt_models[i].input_shape;
    size_t count = 0;
    for (int d = 0; d < 3; d++)
      for (int stored = 0; stored < 2; stored++) {
        const char *prec = stored ? "stored" : "fp16";
        tt_run r = shape ? tt_texmem("records", path, "--dims", dims[d], "--precision", prec,
                               "--input-shape", shape, NULL)
                      : tt_texmem("records", path, "--dims", dims[d], "--precision", prec, NULL);
        cr_assert_eq(r.code, 0, "%s --dims %s: %s", tt_models[i].file, dims[d], r.err);
        texmem_records *rec = parse_records(r.out);
        size_t n = texmem_records_count(rec);
        cr_assert_gt(n, 0, "%s: no records", tt_models[i].file);
        cr_assert_eq(texmem_records_dims(rec), (unsigned)d + 1);
        if (count) cr_assert_eq(n, count, "%s: record count differs between options", tt_models[i].file);
        count = n;
        texmem_records_destroy(rec);
        tt_run_free(&r);
      }
  }
}

/* Smallest "total" of the rows of `kind` in texmem plan --json output, and
 * every row valid. */
static uint64_t best_total(const char *json, const char *kind, const char *file) {
  cr_assert_null(strstr(json, "\"valid\": false"), "%s: an invalid plan: %s", file, json);
  char key[64];
  snprintf(key, sizeof key, "{\"kind\": \"%s\"", kind);
  uint64_t best = UINT64_MAX;
  size_t rows = 0;
  for (const char *p = strstr(json, key); p; p = strstr(p + 1, key)) {
    const char *t = strstr(p, "\"total\": ");
    cr_assert_not_null(t);
    uint64_t v = strtoull(t + 9, NULL, 10);
    if (v < best) best = v;
    rows++;
  }
  cr_assert_gt(rows, 1, "%s: %zu %s rows", file, rows, kind);
  return best;
}

static uint64_t json_u64(const char *json, const char *key) {
  const char *p = strstr(json, key);
  cr_assert_not_null(p, "no %s", key);
  return strtoull(p + strlen(key), NULL, 10);
}

Test(cli_models, plan_every_model_every_strategy) {
  double worst = 0;
  for (size_t i = 0; i < TT_N_MODELS; i++) {
    if (!tt_model_in_run(tt_models[i].file)) continue;
    const char *path = model_path(i);
    const char *shape = tt_models[i].input_shape;
    for (int d = 2; d <= 3; d++) {
      const char *dims = d == 2 ? "2" : "3";
      tt_run r = shape ? tt_texmem("plan", "--model", path, "--dims", dims, "--json", "--input-shape", shape, NULL)
                    : tt_texmem("plan", "--model", path, "--dims", dims, "--json", NULL);
      cr_assert_eq(r.code, 0, "%s: %s", tt_models[i].file, r.err);
      uint64_t pos_max = json_u64(r.out, "\"positional_max\": ");
      uint64_t max_live = json_u64(r.out, "\"max_live\": ");
      uint64_t objects = best_total(r.out, "objects", tt_models[i].file);
      uint64_t arena = best_total(r.out, "offsets", tt_models[i].file);
      double ratio = (double)objects / (double)pos_max;
      cr_log_info("%s %d-D: best texture plan %llu texels, positional_max %llu, ratio %.3f",
                  tt_models[i].file, d, (unsigned long long)objects, (unsigned long long)pos_max, ratio);
      cr_expect_leq(ratio, 1.10, "%s %d-D: best texture plan %.3f x positional_max", tt_models[i].file,
                    d, ratio);
      cr_expect_geq(objects, pos_max);
      cr_expect_geq(arena, max_live);
      if (ratio > worst) worst = ratio;
      tt_run_free(&r);
    }
    /* 1-D bytes as stored: the arena plan too. */
    tt_run r = shape ? tt_texmem("plan", "--model", path, "--dims", "1", "--precision", "stored", "--kind",
                           "offsets", "--json", "--input-shape", shape, NULL)
                  : tt_texmem("plan", "--model", path, "--dims", "1", "--precision", "stored", "--kind",
                           "offsets", "--json", NULL);
    cr_assert_eq(r.code, 0, "%s: %s", tt_models[i].file, r.err);
    cr_expect_geq(best_total(r.out, "offsets", tt_models[i].file), json_u64(r.out, "\"max_live\": "));
    tt_run_free(&r);
  }
  cr_log_info("worst best-texture-plan ratio: %.3f", worst);
}

Test(cli_models, plan_table_names_the_model) {
  const char *path = model_path(3); /* face_landmark: operators texmem cannot run */
  tt_run r = tt_texmem("plan", "--model", path, "--kind", "objects", "--strategy", "best", NULL);
  cr_assert_eq(r.code, 0, "%s", r.err);
  cr_expect_not_null(strstr(r.out, "face_landmark.tflite: 95 tensors, 3-D"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "best (greedy_in_order)"), "%s", r.out);
  tt_run_free(&r);
}

/* A dynamic batch runs at the file's placeholder (1), as TFLite runs it,
 * and the command says so; --input-shape still sets it. */
Test(cli_models, dynamic_batch_runs_at_the_placeholder) {
  size_t i = 0;
  while (i < TT_N_MODELS && !tt_models[i].input_shape) i++;
  cr_assert_lt(i, TT_N_MODELS);
  const char *path = model_path(i);
  static const char *const cmds[] = {"records", "plan"};
  for (int c = 0; c < 2; c++) {
    tt_run r = c ? tt_texmem("plan", "--model", path, NULL) : tt_texmem("records", path, NULL);
    cr_assert_eq(r.code, 0, "%s: %s", cmds[c], r.err);
    cr_expect_not_null(strstr(r.err, "texmem: input_1: batch dynamic, run at 1; --input-shape to change\n"),
                       "%s: %s", cmds[c], r.err);
    tt_run_free(&r);
  }
  /* The placeholder is batch 1: the same records as --input-shape 1,... */
  tt_run p = tt_texmem("records", path, NULL);
  tt_run q = tt_texmem("records", path, "--input-shape", "1,224,224,3", NULL);
  cr_assert_eq(q.code, 0, "%s", q.err);
  cr_expect_str_eq(p.out, q.out);
  cr_expect_null(strstr(q.err, "dynamic"), "%s", q.err);
  tt_run_free(&p);
  tt_run_free(&q);
  /* Batch 1 and batch 2 (by name): every 1-D record doubles. */
  tt_run a = tt_texmem("records", path, "--input-shape", "1,224,224,3", NULL);
  tt_run b = tt_texmem("records", path, "--input-shape", "input_1=2,224,224,3", NULL);
  cr_assert_eq(a.code, 0, "%s", a.err);
  cr_assert_eq(b.code, 0, "%s", b.err);
  texmem_records *ra = parse_records(a.out), *rb = parse_records(b.out);
  cr_assert_eq(texmem_records_count(ra), texmem_records_count(rb));
  for (size_t k = 0; k < texmem_records_count(ra); k++)
    cr_assert_eq(texmem_records_data(rb)[k].dims[0], 2 * texmem_records_data(ra)[k].dims[0], "record %zu", k);
  texmem_records_destroy(ra);
  texmem_records_destroy(rb);
  tt_run_free(&a);
  tt_run_free(&b);
  /* A static dimension given otherwise, a malformed value, a wrong name. */
  tt_run r = tt_texmem("plan", "--model", path, "--input-shape", "1,225,224,3", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "does not fit its signature [-1,224,224,3]"), "%s", r.err);
  tt_run_free(&r);
  r = tt_texmem("plan", "--model", path, "--input-shape", "1,x,224,3", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "--input-shape '1,x,224,3'"), "%s", r.err);
  tt_run_free(&r);
  r = tt_texmem("records", path, "--input-shape", "nope=1,224,224,3", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "no graph input is named 'nope'"), "%s", r.err);
  tt_run_free(&r);
}

Test(cli_models, plan_model_flags) {
  const char *path = TEXMEM_TEST_DATA "/face_detection_short_range.tflite";
  tt_run r = tt_texmem("plan", "--model", path, "--records", path, NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "one of --records FILE or --model"), "%s", r.err);
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", TEXMEM_TEST_DATA "/selfie_segmentation.2d.txt", "--dims", "2", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "--dims applies to --model only"), "%s", r.err);
  tt_run_free(&r);
  r = tt_texmem("plan", "--model", path, "--dims", "4", NULL);
  cr_expect_eq(r.code, 2);
  tt_run_free(&r);
  r = tt_texmem("plan", "--model", "/nonexistent.tflite", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "/nonexistent.tflite"), "%s", r.err);
  tt_run_free(&r);
  /* --model gives the same plan as its records through --records. */
  tt_run a = tt_texmem("plan", "--model", path, "--dims", "2", "--json", NULL);
  tt_run b = tt_texmem("plan", "--records", TEXMEM_TEST_DATA "/face_detection_short_range.2d.txt", "--json", NULL);
  cr_assert_eq(a.code, 0, "%s", a.err);
  cr_assert_eq(b.code, 0, "%s", b.err);
  cr_expect_eq(best_total(a.out, "objects", "model"), best_total(b.out, "objects", "records"));
  cr_expect_eq(json_u64(a.out, "\"positional_max\": "), json_u64(b.out, "\"positional_max\": "));
  tt_run_free(&a);
  tt_run_free(&b);
}

/* The GPU-precision records (the default) stay byte-identical to the
 * committed tests/data files. */
Test(cli_models, default_records_byte_identical_to_test_data) {
  static const char *const names[] = {"face_detection_short_range", "selfie_segmentation",
                                      "hand_landmark_lite", "pose_landmark_lite"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    for (int d = 1; d <= 3; d++) {
      char path[1024], want_path[1024], dims[2] = {(char)('0' + d), 0};
      if (i == 0)
        snprintf(path, sizeof path, "%s/%s.tflite", TEXMEM_TEST_DATA, names[i]);
      else
        snprintf(path, sizeof path, "%s/%s.tflite", tt_model_cache(), names[i]);
      if (access(path, R_OK) != 0) cr_skip_test("%s is not in the model cache (tools/fetch_models.sh)", path);
      snprintf(want_path, sizeof want_path, "%s/%s.%dd.txt", TEXMEM_TEST_DATA, names[i], d);
      char *want = tt_read_file(want_path, NULL);
      tt_run r = tt_texmem("records", path, "--dims", dims, NULL);
      cr_assert_eq(r.code, 0, "%s", r.err);
      cr_assert_str_eq(r.out, want, "%s --dims %d differs from %s", names[i], d, want_path);
      free(want);
      tt_run_free(&r);
    }
}

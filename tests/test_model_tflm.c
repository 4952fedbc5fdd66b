/* TFLite Micro offline plans (include/texmem/tflm.h) on models the tests
 * build: the whole-file reader, TFLM's lifetimes, tflm_greedy, writing a
 * plan (round trip, replacement, several subgraphs), every --check
 * problem, and hostile plan metadata. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"
#include "texmem/model.h"
#include "texmem/tflm.h"
#include "tflm_models.h"

static texmem_tflm *build(tm_kind k, const tw_metadata *meta, size_t n_meta) {
  uint8_t *data = NULL;
  size_t size = 0;
  texmem_error err = {0};
  cr_assert_eq(tm_build(k, meta, n_meta, &data, &size, &err), TEXMEM_STATUS_OK, "%s", err.message);
  texmem_tflm *f = NULL;
  texmem_status st = texmem_tflm_read(data, size, &f, &err);
  free(data);
  cr_assert_eq(st, TEXMEM_STATUS_OK, "%s: %s", tm_name(k), err.message);
  return f;
}

/* texmem's exact plan of f as offsets over all tensors (malloc'd). */
static int32_t *exact_offsets(const texmem_tflm *f, uint64_t *arena, bool *optimal) {
  texmem_record *rec = NULL;
  int32_t *of = NULL;
  size_t n = 0;
  texmem_error err = {0};
  cr_assert_eq(texmem_tflm_records(f, &rec, &n, &of, &err), TEXMEM_STATUS_OK, "%s", err.message);
  texmem_plan *p = tt_plan(rec, n, 1,
                           (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS, .strategy = TEXMEM_STRATEGY_EXACT,
                                              .alignment = 16});
  size_t nt = texmem_tflm_tensor_count(f);
  int32_t *off = malloc(nt * sizeof *off);
  for (size_t i = 0; i < nt; i++) off[i] = -1;
  for (size_t k = 0; k < n; k++) off[of[k]] = (int32_t)texmem_plan_tensor_offset(p, k);
  if (arena) *arena = texmem_plan_total(p);
  if (optimal) *optimal = texmem_plan_is_optimal(p);
  texmem_plan_destroy(p);
  free(rec);
  free(of);
  return off;
}

/* The models as files, for the CLI tests and docs/tflm.md's table. */
Test(tflm, write_models) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/tflm_models", TEXMEM_BINARY_DIR);
  mkdir(dir, 0755);
  for (int k = 0; k < TM_COUNT; k++) {
    uint8_t *data = NULL;
    size_t size = 0;
    texmem_error err = {0};
    cr_assert_eq(tm_build((tm_kind)k, NULL, 0, &data, &size, &err), TEXMEM_STATUS_OK, "%s", err.message);
    char path[600];
    snprintf(path, sizeof path, "%s/%s.tflite", dir, tm_name((tm_kind)k));
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp);
    cr_assert_eq(fwrite(data, 1, size, fp), size);
    fclose(fp);
    free(data);
  }
}

Test(tflm, reads_every_subgraph_variables_and_quantization) {
  texmem_tflm *f = build(TM_TWO_SUBGRAPHS_INT8, NULL, 0);
  cr_assert_eq(texmem_tflm_subgraph_count(f), 2);
  size_t nt = texmem_tflm_tensor_count(f);
  /* main: input, (w, bias, a), (w, bias, b), output = 8; body: input, (w, bias, c), (w, bias, output) = 7 */
  cr_assert_eq(nt, 15, "tensors %zu", nt);
  const texmem_tflm_tensor *t = texmem_tflm_get_tensor(f, 8);
  cr_assert_str_eq(t->name, "body/input");
  cr_assert_eq(t->subgraph, 1);
  cr_assert_eq(t->index, 0);
  cr_assert_str_eq(t->type_name, "int8");
  cr_assert_eq(t->n_quant, 1);
  cr_assert_float_eq(t->scale[0], 0.05f, 1e-9);
  cr_assert_eq(t->zero_point[0], -3);
  cr_assert(texmem_tflm_get_tensor(f, 1)->constant);
  cr_assert_null(texmem_tflm_get_tensor(f, nt));
  texmem_tflm_destroy(f);

  f = build(TM_VARIABLE_F32, NULL, 0);
  t = texmem_tflm_get_tensor(f, 1);
  cr_assert_str_eq(t->name, "state");
  cr_assert(t->variable);
  cr_assert_str_eq(t->type_name, "float32");
  cr_assert_eq(t->bytes, 32 * 4);
  texmem_record *rec = NULL;
  int32_t *of = NULL;
  size_t n = 0;
  cr_assert_eq(texmem_tflm_records(f, &rec, &n, &of, NULL), TEXMEM_STATUS_OK);
  for (size_t k = 0; k < n; k++) cr_assert_neq(of[k], 1, "the variable tensor is never planned");
  free(rec);
  free(of);
  texmem_tflm_destroy(f);
  texmem_tflm_destroy(NULL);
}

/* tiny_int8: input(0) -> conv a(3) -> conv b(6) -> add(input, b) = output(7);
 * 1, 2, 4, 5 are weights and biases. */
Test(tflm, lifetimes_follow_tflm_scopes) {
  texmem_tflm *f = build(TM_TINY_INT8, NULL, 0);
  texmem_record *rec = NULL;
  int32_t *of = NULL;
  size_t n = 0;
  cr_assert_eq(texmem_tflm_records(f, &rec, &n, &of, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(n, 4);
  /* tensor, first, last, bytes (int8 4x4xC, rounded to 16) */
  static const uint64_t want[4][4] = {{0, 0, 3, 64}, {3, 1, 2, 128}, {6, 2, 3, 64}, {7, 3, 3, 64}};
  for (size_t k = 0; k < n; k++) {
    cr_assert_eq((uint64_t)of[k], want[k][0], "record %zu is tensor %d", k, of[k]);
    cr_assert_eq(rec[k].id, want[k][0]);
    cr_assert_eq(rec[k].first_task, want[k][1], "tensor %d first %llu", of[k],
                 (unsigned long long)rec[k].first_task);
    cr_assert_eq(rec[k].last_task, want[k][2], "tensor %d last", of[k]);
    cr_assert_eq(rec[k].dims[0], want[k][3]);
  }
  free(rec);
  free(of);
  texmem_tflm_destroy(f);
}

/* TFLM's GreedyMemoryPlanner puts A (largest) at 0, then B, C at the
 * lowest gap before the next live buffer (first fit); greedy_by_size would
 * take the smallest gap. Hand-worked from its algorithm. */
Test(tflm, tflm_greedy_is_first_fit_largest_first) {
  texmem_record r[] = {
      {0, {64, 1, 1}, 0, 1},  /* A */
      {1, {32, 1, 1}, 2, 3},  /* B: not live with A: 0 */
      {2, {16, 1, 1}, 1, 2},  /* C: live with A and B: above both, 64 */
      {3, {16, 1, 1}, 3, 3},  /* D: live with B only: 32 */
  };
  texmem_plan *p = tt_plan(r, 4, 1, (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS,
                                                       .strategy = TEXMEM_STRATEGY_TFLM_GREEDY, .alignment = 16});
  static const uint64_t want[4] = {0, 0, 64, 32};
  for (size_t k = 0; k < 4; k++)
    cr_assert_eq(texmem_plan_tensor_offset(p, k), want[k], "tensor %zu at %llu", k,
                 (unsigned long long)texmem_plan_tensor_offset(p, k));
  cr_assert_eq(texmem_plan_total(p), 80);
  texmem_plan_destroy(p);
}

/* The branchy model is one where TFLM's greedy is not optimal; texmem's
 * exact search meets max_live. */
Test(tflm, branchy_model_beats_tflm_greedy) {
  texmem_tflm *f = build(TM_BRANCHY_INT8, NULL, 0);
  texmem_record *rec = NULL;
  size_t n = 0;
  cr_assert_eq(texmem_tflm_records(f, &rec, &n, NULL, NULL), TEXMEM_STATUS_OK);
  texmem_bounds b;
  cr_assert_eq(texmem_lower_bounds(rec, n, 1, &b, NULL), TEXMEM_STATUS_OK);
  uint64_t g = tt_plan_total(rec, n, 1, (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS,
                                                            .strategy = TEXMEM_STRATEGY_TFLM_GREEDY,
                                                            .alignment = 16});
  uint64_t arena;
  bool optimal;
  free(exact_offsets(f, &arena, &optimal));
  cr_assert(optimal);
  cr_assert_eq(arena, b.max_live);
  cr_assert_gt(g, arena, "tflm_greedy %llu, exact %llu", (unsigned long long)g, (unsigned long long)arena);
  free(rec);
  texmem_tflm_destroy(f);
}


/* Writes f's exact plan; returns the re-read copy (bytes in *data). */
static texmem_tflm *write_plan(const texmem_tflm *f, const int32_t *off, uint8_t **data, size_t *size) {
  texmem_error err = {0};
  cr_assert_eq(texmem_tflm_write_plan(f, off, texmem_tflm_tensor_count(f), data, size, &err), TEXMEM_STATUS_OK,
               "%s", err.message);
  texmem_tflm *g = NULL;
  cr_assert_eq(texmem_tflm_read(*data, *size, &g, &err), TEXMEM_STATUS_OK, "%s", err.message);
  return g;
}

static void assert_same_tensors(const texmem_tflm *a, const texmem_tflm *b) {
  cr_assert_eq(texmem_tflm_tensor_count(a), texmem_tflm_tensor_count(b));
  cr_assert_eq(texmem_tflm_subgraph_count(a), texmem_tflm_subgraph_count(b));
  for (size_t i = 0; i < texmem_tflm_tensor_count(a); i++) {
    const texmem_tflm_tensor *x = texmem_tflm_get_tensor(a, i), *y = texmem_tflm_get_tensor(b, i);
    cr_assert_str_eq(x->name, y->name);
    cr_assert_eq(x->type, y->type);
    cr_assert_eq(x->rank, y->rank);
    cr_assert_arr_eq(x->shape, y->shape, x->rank * sizeof *x->shape);
    cr_assert_eq(x->variable, y->variable);
    cr_assert_eq(x->n_quant, y->n_quant);
    size_t sx, sy;
    const uint8_t *dx = texmem_tflm_buffer_data(a, x->buffer, &sx), *dy = texmem_tflm_buffer_data(b, y->buffer, &sy);
    cr_assert_eq(sx, sy, "tensor %zu weights", i);
    if (sx) cr_assert_arr_eq(dx, dy, sx, "tensor %zu weights differ", i);
  }
}

static size_t plan_entries(const texmem_tflm *f) {
  size_t k = 0;
  for (size_t m = 0; m < texmem_tflm_metadata_count(f); m++)
    k += strcmp(texmem_tflm_metadata_name(f, m), TEXMEM_TFLM_PLAN_NAME) == 0;
  return k;
}

Test(tflm, round_trip_every_model) {
  for (int k = 0; k < TM_COUNT; k++) {
    texmem_tflm *f = build((tm_kind)k, NULL, 0);
    uint64_t arena;
    int32_t *off = exact_offsets(f, &arena, NULL);
    uint8_t *data;
    size_t size;
    texmem_tflm *g = write_plan(f, off, &data, &size);
    assert_same_tensors(f, g);
    texmem_tflm_plan_info info;
    cr_assert_eq(texmem_tflm_offline_plan(g, &info, NULL), TEXMEM_STATUS_OK);
    cr_assert(info.present);
    cr_assert_eq(info.entries, 1);
    cr_assert_eq(info.version, 0);
    cr_assert_eq(info.subgraphs, texmem_tflm_subgraph_count(f));
    cr_assert_eq(info.n, texmem_tflm_tensor_count(f));
    cr_assert_arr_eq(info.offsets, off, info.n * sizeof *off);
    size_t bsize;
    const uint8_t *b = texmem_tflm_buffer_data(g, info.buffer, &bsize);
    cr_assert_eq((size_t)(b - texmem_tflm_file(g, NULL)) % 16, 0, "plan buffer 16-byte aligned in the file");
    cr_assert_eq(bsize, 4 * (3 + (size_t)info.n));
    texmem_tflm_issue *is = NULL;
    size_t n_is = 0;
    uint64_t got = 0;
    cr_assert_eq(texmem_tflm_check(g, info.offsets, info.n, &is, &n_is, 0, &got, NULL), TEXMEM_STATUS_OK);
    cr_assert_eq(n_is, 0, "%s: %s", tm_name((tm_kind)k), n_is ? is[0].message : "");
    cr_assert_eq(got, arena);
    /* texmem's own model reader still reads the copy, weights and all. */
    texmem_model *m1 = NULL, *m2 = NULL;
    size_t osize;
    const uint8_t *orig = texmem_tflm_file(f, &osize);
    cr_assert_eq(texmem_model_read_tflite(orig, osize, &m1, NULL), TEXMEM_STATUS_OK);
    cr_assert_eq(texmem_model_read_tflite(data, size, &m2, NULL), TEXMEM_STATUS_OK);
    cr_assert_eq(texmem_model_tensor_count(m1), texmem_model_tensor_count(m2));
    cr_assert_eq(texmem_model_op_count(m1), texmem_model_op_count(m2));
    for (size_t i = 0; i < texmem_model_tensor_count(m1); i++) {
      const texmem_tensor *x = texmem_model_tensor(m1, i), *y = texmem_model_tensor(m2, i);
      cr_assert_eq(x->data_size, y->data_size);
      if (x->data_size) cr_assert_arr_eq(x->data, y->data, x->data_size);
    }
    texmem_model_destroy(m1);
    texmem_model_destroy(m2);
    free(is);
    free(info.offsets);
    free(data);
    free(off);
    texmem_tflm_destroy(g);
    texmem_tflm_destroy(f);
  }
}

/* n counts the tensors of every subgraph; the other subgraph's are -1. */
Test(tflm, n_covers_all_subgraphs) {
  texmem_tflm *f = build(TM_TWO_SUBGRAPHS_INT8, NULL, 0);
  int32_t *off = exact_offsets(f, NULL, NULL);
  for (size_t i = 8; i < 15; i++) cr_assert_eq(off[i], -1);
  uint8_t *data;
  size_t size;
  texmem_tflm *g = write_plan(f, off, &data, &size);
  texmem_tflm_plan_info info;
  cr_assert_eq(texmem_tflm_offline_plan(g, &info, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(info.n, 15);
  cr_assert_eq(info.subgraphs, 2);
  /* A plan of subgraph 0's tensors only is refused. */
  texmem_error err = {0};
  uint8_t *bad = NULL;
  size_t bad_size = 0;
  cr_assert_eq(texmem_tflm_write_plan(f, off, 8, &bad, &bad_size, &err), TEXMEM_STATUS_INVALID_PLAN);
  cr_assert(strstr(err.message, "8 offsets") && strstr(err.message, "15 tensors"), "%s", err.message);
  cr_assert_null(bad);
  /* An offset for the body's tensors cannot be checked: refused. */
  off[11] = 4096;
  cr_assert_eq(texmem_tflm_write_plan(f, off, 15, &bad, &bad_size, &err), TEXMEM_STATUS_INVALID_PLAN);
  cr_assert(strstr(err.message, "subgraph 1"), "%s", err.message);
  cr_assert_null(bad);
  free(info.offsets);
  free(data);
  free(off);
  texmem_tflm_destroy(g);
  texmem_tflm_destroy(f);
}

/* An existing plan is replaced, never duplicated; other metadata stays. */
Test(tflm, existing_plan_is_replaced) {
  int32_t old_words[3 + 8] = {0, 1, 8, 0, -1, -1, 0, -1, -1, 0, 0};
  static const char note[] = "min_runtime_version 1.5";
  tw_metadata meta[] = {{"min_runtime_version", note, sizeof note, -1},
                        {TEXMEM_TFLM_PLAN_NAME, old_words, sizeof old_words, -1},
                        {"other", "xyz", 3, -1}};
  texmem_tflm *f = build(TM_TINY_INT8, meta, 3);
  size_t buffers = texmem_tflm_buffer_count(f);
  cr_assert_eq(plan_entries(f), 1);
  int32_t *off = exact_offsets(f, NULL, NULL);
  uint8_t *data;
  size_t size;
  texmem_tflm *g = write_plan(f, off, &data, &size);
  cr_assert_eq(plan_entries(g), 1);
  cr_assert_eq(texmem_tflm_metadata_count(g), 3);
  cr_assert_str_eq(texmem_tflm_metadata_name(g, 0), "min_runtime_version");
  cr_assert_str_eq(texmem_tflm_metadata_name(g, 1), "other");
  size_t s;
  const uint8_t *d = texmem_tflm_buffer_data(g, texmem_tflm_metadata_buffer(g, 0), &s);
  cr_assert_eq(s, sizeof note);
  cr_assert_arr_eq(d, note, s);
  /* The old plan's buffer (used by nothing else) is reused. */
  cr_assert_eq(texmem_tflm_buffer_count(g), buffers);
  texmem_tflm_plan_info info;
  cr_assert_eq(texmem_tflm_offline_plan(g, &info, NULL), TEXMEM_STATUS_OK);
  cr_assert_arr_eq(info.offsets, off, 8 * sizeof *off);
  free(info.offsets);
  /* Written again: still one entry, no new buffer. */
  uint8_t *data2;
  size_t size2;
  texmem_tflm *h = write_plan(g, off, &data2, &size2);
  cr_assert_eq(plan_entries(h), 1);
  cr_assert_eq(texmem_tflm_buffer_count(h), buffers);
  assert_same_tensors(f, h);
  free(data2);
  texmem_tflm_destroy(h);
  free(data);
  free(off);
  texmem_tflm_destroy(g);
  texmem_tflm_destroy(f);
}

/* Two plan entries (TFLM takes the last): both go, one is written. */
Test(tflm, duplicate_plans_collapse_to_one) {
  int32_t w1[3 + 8] = {0, 1, 8, -1, -1, -1, -1, -1, -1, -1, -1};
  tw_metadata meta[] = {{TEXMEM_TFLM_PLAN_NAME, w1, sizeof w1, -1}, {TEXMEM_TFLM_PLAN_NAME, w1, sizeof w1, -1}};
  texmem_tflm *f = build(TM_TINY_INT8, meta, 2);
  texmem_tflm_plan_info info;
  cr_assert_eq(texmem_tflm_offline_plan(f, &info, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(info.entries, 2);
  free(info.offsets);
  int32_t *off = exact_offsets(f, NULL, NULL);
  uint8_t *data;
  size_t size;
  texmem_tflm *g = write_plan(f, off, &data, &size);
  cr_assert_eq(plan_entries(g), 1);
  free(data);
  free(off);
  texmem_tflm_destroy(g);
  texmem_tflm_destroy(f);
}

static size_t count_kind(const texmem_tflm_issue *is, size_t n, texmem_tflm_issue_kind k) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += is[i].kind == k;
  return c;
}

/* Every problem --check reports, on the tiny model (tensors 0, 3, 6, 7
 * planned; 0 live with all the others, 3 with 6, 6 with 7). */
Test(tflm, check_reports_every_problem) {
  texmem_tflm *f = build(TM_TINY_INT8, NULL, 0);
  texmem_tflm_issue *is = NULL;
  size_t n = 0;
  uint64_t arena = 0;
  int32_t wrong[5] = {0, -1, 0, -1, 0};
  cr_assert_eq(texmem_tflm_check(f, wrong, 5, &is, &n, 0, &arena, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(n, 1);
  cr_assert_eq(is[0].kind, TEXMEM_TFLM_ISSUE_WRONG_COUNT);
  cr_assert(strstr(is[0].message, "5 offsets"), "%s", is[0].message);
  free(is);

  int32_t off[8] = {-16, -1, -1, 8, -1, -1, 0, 0x7ffffff0};
  cr_assert_eq(texmem_tflm_check(f, off, 8, &is, &n, 0, &arena, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(count_kind(is, n, TEXMEM_TFLM_ISSUE_NEGATIVE), 1);
  cr_assert_eq(count_kind(is, n, TEXMEM_TFLM_ISSUE_MISALIGNED), 1);
  cr_assert_eq(count_kind(is, n, TEXMEM_TFLM_ISSUE_TOO_FAR), 1);
  cr_assert_eq(n, 3);
  free(is);

  /* 3 (bytes 64..191, scopes 1..2) and 6 (64..127, 2..3) overlap while
   * live; 7 (128..191, scope 3) shares bytes with 3 but not its scopes. */
  int32_t overlap[8] = {0, -1, -1, 64, -1, -1, 64, 128};
  cr_assert_eq(texmem_tflm_check(f, overlap, 8, &is, &n, 0, &arena, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(n, 1);
  cr_assert_eq(is[0].kind, TEXMEM_TFLM_ISSUE_OVERLAP);
  cr_assert_eq(is[0].tensor, 3);
  cr_assert_eq(is[0].other, 6);
  cr_assert_eq(arena, 192);
  free(is);
  /* Offsets of constants are ignored by TFLM, so not checked. */
  int32_t consts[8] = {0, 0, 0, 64, 0, 0, 192, 128};
  cr_assert_eq(texmem_tflm_check(f, consts, 8, &is, &n, 0, &arena, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(n, 0, "%s", n ? is[0].message : "");
  free(is);
  /* The writer refuses a plan with problems. */
  texmem_error err = {0};
  uint8_t *data = NULL;
  size_t size = 0;
  cr_assert_eq(texmem_tflm_write_plan(f, overlap, 8, &data, &size, &err), TEXMEM_STATUS_INVALID_PLAN);
  cr_assert(strstr(err.message, "overlap"), "%s", err.message);
  texmem_tflm_destroy(f);
}

/* Hostile plan metadata: a buffer past the end, a truncated buffer, a
 * header announcing more offsets than it holds; plans with a wrong n or
 * offsets past what TFLM can address are reported by the check. */
Test(tflm, hostile_plan_metadata) {
  texmem_error err = {0};
  uint8_t *data = NULL;
  size_t size = 0;
  tw_metadata past = {TEXMEM_TFLM_PLAN_NAME, NULL, 0, 999};
  cr_assert_eq(tm_build(TM_TINY_INT8, &past, 1, &data, &size, &err), TEXMEM_STATUS_OK);
  texmem_tflm *f = NULL;
  cr_assert_eq(texmem_tflm_read(data, size, &f, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "buffer 999 out of range"), "%s", err.message);
  cr_assert_null(f);
  free(data);

  int32_t shortw[2] = {0, 1};
  tw_metadata trunc = {TEXMEM_TFLM_PLAN_NAME, shortw, sizeof shortw, -1};
  f = build(TM_TINY_INT8, &trunc, 1);
  texmem_tflm_plan_info info;
  cr_assert_eq(texmem_tflm_offline_plan(f, &info, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "3-word header"), "%s", err.message);
  cr_assert_null(info.offsets);
  texmem_tflm_destroy(f);

  int32_t announce[3 + 2] = {0, 1, 1000000, 0, 0};
  tw_metadata lie = {TEXMEM_TFLM_PLAN_NAME, announce, sizeof announce, -1};
  f = build(TM_TINY_INT8, &lie, 1);
  cr_assert_eq(texmem_tflm_offline_plan(f, &info, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "truncated") && strstr(err.message, "1000000"), "%s", err.message);
  texmem_tflm_destroy(f);

  int32_t wrong_n[3 + 4] = {0, 1, 4, 0, -1, 0, -1};
  tw_metadata wn = {TEXMEM_TFLM_PLAN_NAME, wrong_n, sizeof wrong_n, -1};
  f = build(TM_TINY_INT8, &wn, 1);
  cr_assert_eq(texmem_tflm_offline_plan(f, &info, &err), TEXMEM_STATUS_OK);
  texmem_tflm_issue *is = NULL;
  size_t n = 0;
  cr_assert_eq(texmem_tflm_check(f, info.offsets, info.n, &is, &n, 0, NULL, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(n, 1);
  cr_assert_eq(is[0].kind, TEXMEM_TFLM_ISSUE_WRONG_COUNT);
  free(is);
  free(info.offsets);
  texmem_tflm_destroy(f);

  int32_t far[3 + 8] = {0, 1, 8, 0x7fffffe0, -1, -1, -1, -1, -1, -1, -1};
  tw_metadata fr = {TEXMEM_TFLM_PLAN_NAME, far, sizeof far, -1};
  f = build(TM_TINY_INT8, &fr, 1);
  cr_assert_eq(texmem_tflm_offline_plan(f, &info, &err), TEXMEM_STATUS_OK);
  cr_assert_eq(texmem_tflm_check(f, info.offsets, info.n, &is, &n, 0, NULL, NULL), TEXMEM_STATUS_OK);
  cr_assert_geq(count_kind(is, n, TEXMEM_TFLM_ISSUE_TOO_FAR), 1);
  free(is);
  free(info.offsets);
  texmem_tflm_destroy(f);
}

/* Every truncation of a model with a plan fails cleanly or reads. */
Test(tflm, truncated_files_fail_cleanly) {
  int32_t w[3 + 8] = {0, 1, 8, 0, -1, -1, 64, -1, -1, 128, 0};
  tw_metadata m = {TEXMEM_TFLM_PLAN_NAME, w, sizeof w, -1};
  uint8_t *data = NULL;
  size_t size = 0;
  cr_assert_eq(tm_build(TM_TINY_INT8, &m, 1, &data, &size, NULL), TEXMEM_STATUS_OK);
  for (size_t len = 0; len < size; len++) {
    texmem_tflm *f = NULL;
    texmem_error err = {0};
    texmem_status st = texmem_tflm_read(data, len, &f, &err);
    if (st == TEXMEM_STATUS_OK) {
      texmem_tflm_plan_info info;
      texmem_tflm_offline_plan(f, &info, NULL);
      free(info.offsets);
      texmem_tflm_destroy(f);
    } else {
      cr_assert_eq(st, TEXMEM_STATUS_BAD_MODEL, "length %zu: %s", len, err.message);
      cr_assert_null(f);
    }
  }
  free(data);
}

/* Random byte flips: reading, planning, checking and writing either work
 * or fail with a status, never crash (ASan/valgrind watch the rest). */
Test(tflm, random_flips_never_crash) {
  int32_t w[3 + 8] = {0, 1, 8, 0, -1, -1, 64, -1, -1, 128, 0};
  tw_metadata m = {TEXMEM_TFLM_PLAN_NAME, w, sizeof w, -1};
  uint8_t *data = NULL;
  size_t size = 0;
  cr_assert_eq(tm_build(TM_TINY_INT8, &m, 1, &data, &size, NULL), TEXMEM_STATUS_OK);
  uint8_t *copy = malloc(size);
  uint64_t state = 7;
  size_t read_ok = 0, written = 0;
  for (int iter = 0; iter < 1000; iter++) {
    memcpy(copy, data, size);
    for (int k = 0; k < 1 + iter % 4; k++) copy[tt_rand(&state) % size] ^= (uint8_t)(1 + tt_rand(&state) % 255);
    texmem_tflm *f = NULL;
    if (texmem_tflm_read(copy, size, &f, NULL) != TEXMEM_STATUS_OK) continue;
    read_ok++;
    texmem_record *rec = NULL;
    int32_t *of = NULL;
    size_t n = 0;
    if (texmem_tflm_records(f, &rec, &n, &of, NULL) == TEXMEM_STATUS_OK) {
      size_t nt = texmem_tflm_tensor_count(f);
      int32_t *off = malloc((nt + 1) * sizeof *off);
      for (size_t i = 0; i < nt; i++) off[i] = -1;
      texmem_plan *p = NULL;
      texmem_plan_desc d = {.kind = TEXMEM_PLAN_OFFSETS, .strategy = TEXMEM_STRATEGY_GREEDY_BY_SIZE,
                            .alignment = 16};
      if (texmem_plan_create(rec, n, 1, &d, &p, NULL) == TEXMEM_STATUS_OK && texmem_plan_total(p) < INT32_MAX) {
        for (size_t k = 0; k < n; k++) off[of[k]] = (int32_t)texmem_plan_tensor_offset(p, k);
        uint8_t *out = NULL;
        size_t out_size = 0;
        if (texmem_tflm_write_plan(f, off, nt, &out, &out_size, NULL) == TEXMEM_STATUS_OK) written++;
        free(out);
      }
      texmem_plan_destroy(p);
      free(off);
    }
    texmem_tflm_plan_info info;
    if (texmem_tflm_offline_plan(f, &info, NULL) == TEXMEM_STATUS_OK && info.present) {
      texmem_tflm_issue *is = NULL;
      size_t n_is = 0;
      texmem_tflm_check(f, info.offsets, info.n, &is, &n_is, 0, NULL, NULL);
      free(is);
    }
    free(info.offsets);
    free(rec);
    free(of);
    texmem_tflm_destroy(f);
  }
  cr_assert_gt(read_ok, 0);
  cr_assert_gt(written, 0);
  free(copy);
  free(data);
}

/* tflm_greedy gives valid plans (tt_plan runs the validator) on random
 * records, with and without alignment, never below max_live; on 16-byte
 * sizes it places every record where texmem_tflm_greedy (TFLM's planner
 * with nothing offline, a separate implementation) does. */
Test(tflm, tflm_greedy_valid_on_random_records) {
  uint64_t state = 11;
  for (int iter = 0; iter < 200; iter++) {
    size_t n = 1 + tt_rand(&state) % 60;
    texmem_record *r = calloc(n, sizeof *r);
    for (size_t i = 0; i < n; i++) {
      uint64_t a = tt_rand(&state) % 40, len = tt_rand(&state) % 8;
      r[i] = (texmem_record){i, {1 + tt_rand(&state) % 1000, 1, 1}, a, a + len};
    }
    texmem_bounds b;
    cr_assert_eq(texmem_lower_bounds(r, n, 1, &b, NULL), TEXMEM_STATUS_OK);
    uint64_t align = iter % 2 ? 16 : 1;
    uint64_t t = tt_plan_total(r, n, 1, (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS,
                                                           .strategy = TEXMEM_STRATEGY_TFLM_GREEDY,
                                                           .alignment = align});
    cr_assert_geq(t, b.max_live);
    for (size_t i = 0; i < n; i++) r[i].dims[0] = (r[i].dims[0] + 15) / 16 * 16;
    texmem_plan *p = tt_plan(r, n, 1, (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS,
                                                         .strategy = TEXMEM_STRATEGY_TFLM_GREEDY, .alignment = 16});
    uint64_t *off = malloc(n * sizeof *off), head = 0;
    cr_assert_eq(texmem_tflm_greedy(r, n, NULL, off, &head, NULL), TEXMEM_STATUS_OK);
    cr_assert_eq(head, texmem_plan_total(p), "iteration %d", iter);
    for (size_t k = 0; k < n; k++) cr_assert_eq(off[k], texmem_plan_tensor_offset(p, k), "iteration %d record %zu", iter, k);
    texmem_plan_destroy(p);
    free(off);
    free(r);
  }
}

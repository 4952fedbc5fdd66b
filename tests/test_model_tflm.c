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
  /* main: input, w, a, w, b, output = 6; body: input, w, c, w, output = 5 */
  cr_assert_eq(nt, 11, "tensors %zu", nt);
  const texmem_tflm_tensor *t = texmem_tflm_get_tensor(f, 6);
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

/* tiny_int8: input(0) -> conv a(2) -> conv b(4) -> add(input, b) = output(5). */
Test(tflm, lifetimes_follow_tflm_scopes) {
  texmem_tflm *f = build(TM_TINY_INT8, NULL, 0);
  texmem_record *rec = NULL;
  int32_t *of = NULL;
  size_t n = 0;
  cr_assert_eq(texmem_tflm_records(f, &rec, &n, &of, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(n, 4);
  /* tensor, first, last, bytes (int8 4x4xC, rounded to 16) */
  static const uint64_t want[4][4] = {{0, 0, 3, 64}, {2, 1, 2, 128}, {4, 2, 3, 64}, {5, 3, 3, 64}};
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


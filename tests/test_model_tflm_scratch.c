/* Scratch buffers in TFLite Micro plans: their records (one per request,
 * live at their operator's scope), TFLM's GreedyMemoryPlanner with an
 * offline plan (texmem_tflm_greedy, hand-worked; test_model_tflm compares
 * it with the tflm_greedy strategy), and what a plan costs once TFLM adds the scratch
 * buffers (texmem_tflm_heads): a plan packed around the tensors alone makes
 * TFLM's head larger than its own, a plan made with the scratch buffers
 * leaves them holes and does not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "texmem/tflm.h"
#include "tflm_models.h"

static texmem_tflm *build(tm_kind k) {
  uint8_t *data = NULL;
  size_t size = 0;
  texmem_error err = {0};
  cr_assert_eq(tm_build(k, NULL, 0, &data, &size, &err), TEXMEM_STATUS_OK, "%s", err.message);
  texmem_tflm *f = NULL;
  texmem_status st = texmem_tflm_read(data, size, &f, &err);
  free(data);
  cr_assert_eq(st, TEXMEM_STATUS_OK, "%s: %s", tm_name(k), err.message);
  return f;
}

/* Offsets over all tensors from a plan of records (the first nt of them
 * tensors, tensor_of giving each one's index), -1 elsewhere (malloc'd). */
static int32_t *plan_offsets(const texmem_tflm *f, const texmem_record *rec, size_t n, const int32_t *tensor_of,
                             texmem_strategy s, uint64_t *arena) {
  texmem_plan *p = tt_plan(rec, n, 1, (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS, .strategy = s, .alignment = 16});
  size_t nt = texmem_tflm_tensor_count(f);
  int32_t *off = malloc(nt * sizeof *off);
  for (size_t i = 0; i < nt; i++) off[i] = -1;
  for (size_t k = 0; k < n; k++)
    if (tensor_of[k] >= 0) off[tensor_of[k]] = (int32_t)texmem_plan_tensor_offset(p, k);
  if (arena) *arena = texmem_plan_total(p);
  texmem_plan_destroy(p);
  return off;
}

Test(tflm_scratch, records_follow_the_tensors_at_their_operator) {
  texmem_tflm *f = build(TM_TINY_INT8);
  const texmem_tflm_scratch s[] = {{0, 100}, {2, 960}, {2, 16}};
  texmem_record *rec = NULL, *plain = NULL;
  int32_t *of = NULL;
  size_t n = 0, np = 0;
  texmem_error err = {0};
  cr_assert_eq(texmem_tflm_records(f, &plain, &np, NULL, &err), TEXMEM_STATUS_OK, "%s", err.message);
  cr_assert_eq(texmem_tflm_records_scratch(f, s, 3, &rec, &n, &of, &err), TEXMEM_STATUS_OK, "%s", err.message);
  cr_assert_eq(n, np + 3);
  cr_assert_eq(memcmp(rec, plain, np * sizeof *rec), 0, "the tensors' records are texmem_tflm_records'");
  static const uint64_t bytes[3] = {112, 960, 16}; /* rounded up to 16 */
  for (size_t k = 0; k < 3; k++) {
    const texmem_record *x = &rec[np + k];
    cr_assert_eq(x->dims[0], bytes[k], "scratch %zu: %llu bytes", k, (unsigned long long)x->dims[0]);
    cr_assert_eq(x->first_task, s[k].op + 1);
    cr_assert_eq(x->last_task, s[k].op + 1);
    cr_assert_eq(x->id, texmem_tflm_tensor_count(f) + k);
    cr_assert_eq(of[np + k], -1 - (int32_t)k);
  }
  free(rec);
  free(plain);
  free(of);
  /* No operator 3 (the model has 3), no empty buffer. */
  const texmem_tflm_scratch bad_op = {3, 16}, empty = {1, 0};
  cr_assert_eq(texmem_tflm_records_scratch(f, &bad_op, 1, &rec, &n, NULL, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "operator 3 out of range"), "%s", err.message);
  cr_assert_eq(texmem_tflm_records_scratch(f, &empty, 1, &rec, &n, NULL, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "0 bytes"), "%s", err.message);
  cr_assert_null(rec);
  texmem_tflm_destroy(f);
}

/* Offline A (0..64, scopes 0..2) and B (128..192, scopes 1..2); online: S
 * (64, scope 1) takes the hole between them, T (96, scope 2) does not fit
 * it and goes above B, U (48, scope 3, live with nothing) goes to 0; T is
 * placed before S (larger first). Hand-worked from TFLM's planner. */
Test(tflm_scratch, greedy_places_online_buffers_around_the_offline_plan) {
  const texmem_record r[] = {
      {0, {64, 1, 1}, 0, 2}, {1, {64, 1, 1}, 1, 2}, {2, {64, 1, 1}, 1, 1}, {3, {96, 1, 1}, 2, 2},
      {4, {48, 1, 1}, 3, 3},
  };
  const int64_t fixed[] = {0, 128, -1, -1, -1};
  uint64_t off[5], head = 0;
  texmem_error err = {0};
  cr_assert_eq(texmem_tflm_greedy(r, 5, fixed, off, &head, &err), TEXMEM_STATUS_OK, "%s", err.message);
  static const uint64_t want[5] = {0, 128, 64, 192, 0};
  for (size_t k = 0; k < 5; k++)
    cr_assert_eq(off[k], want[k], "record %zu at %llu", k, (unsigned long long)off[k]);
  cr_assert_eq(head, 288);
  /* Bad input names the record. */
  const int64_t bad[] = {0, -2, -1, -1, -1};
  cr_assert_eq(texmem_tflm_greedy(r, 5, bad, NULL, &head, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "record 1"), "%s", err.message);
}

/* tiny_int8 with a 960-byte scratch buffer at operator 2: the plan of the
 * tensors alone (256 bytes, tight) makes TFLM put it above them, 1216
 * bytes, where TFLM's own plan needs 1152; planned with the tensors it gets
 * a hole and TFLM's head is its own, 1152. */
Test(tflm_scratch, tight_plan_costs_head_bytes_and_a_plan_with_holes_does_not) {
  texmem_tflm *f = build(TM_TINY_INT8);
  const texmem_tflm_scratch s = {2, 960};
  size_t nt = texmem_tflm_tensor_count(f);
  texmem_record *rec = NULL;
  int32_t *of = NULL;
  size_t n = 0;
  texmem_error err = {0};
  cr_assert_eq(texmem_tflm_records_scratch(f, &s, 1, &rec, &n, &of, &err), TEXMEM_STATUS_OK, "%s", err.message);
  uint64_t arena, offline, online;
  int32_t *tight = plan_offsets(f, rec, n - 1, of, TEXMEM_STRATEGY_EXACT, &arena);
  cr_assert_eq(arena, 256);
  cr_assert_eq(texmem_tflm_heads(f, tight, nt, &s, 1, &offline, &online, &err), TEXMEM_STATUS_OK, "%s", err.message);
  cr_assert_eq(online, 1152);
  cr_assert_eq(offline, 1216);
  int32_t *holes = plan_offsets(f, rec, n, of, TEXMEM_STRATEGY_EXACT, &arena);
  cr_assert_eq(arena, 1152);
  cr_assert_eq(texmem_tflm_heads(f, holes, nt, &s, 1, &offline, &online, &err), TEXMEM_STATUS_OK, "%s", err.message);
  cr_assert_eq(offline, 1152);
  /* Without scratch buffers the head is the plan's. */
  cr_assert_eq(texmem_tflm_heads(f, tight, nt, NULL, 0, &offline, &online, &err), TEXMEM_STATUS_OK);
  cr_assert_eq(offline, 256);
  cr_assert_eq(texmem_tflm_heads(f, tight, nt - 1, NULL, 0, &offline, &online, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  free(tight);
  free(holes);
  free(rec);
  free(of);
  texmem_tflm_destroy(f);
}

/* branchy_int8 (TFLM's greedy above the optimum) with scratch buffers at
 * operators 7 and 8: planned with them, TFLM's head is 6816 bytes, below
 * its own 6912; the plan of the tensors alone would make it 7072. */
Test(tflm_scratch, plan_with_holes_beats_tflm_on_the_branchy_model) {
  texmem_tflm *f = build(TM_BRANCHY_INT8);
  const texmem_tflm_scratch s[] = {{7, 640}, {8, 928}};
  size_t nt = texmem_tflm_tensor_count(f);
  texmem_record *rec = NULL;
  int32_t *of = NULL;
  size_t n = 0;
  cr_assert_eq(texmem_tflm_records_scratch(f, s, 2, &rec, &n, &of, NULL), TEXMEM_STATUS_OK);
  uint64_t offline, online;
  int32_t *holes = plan_offsets(f, rec, n, of, TEXMEM_STRATEGY_EXACT, NULL);
  cr_assert_eq(texmem_tflm_heads(f, holes, nt, s, 2, &offline, &online, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(online, 6912);
  cr_assert_eq(offline, 6816);
  int32_t *tight = plan_offsets(f, rec, n - 2, of, TEXMEM_STRATEGY_EXACT, NULL);
  cr_assert_eq(texmem_tflm_heads(f, tight, nt, s, 2, &offline, &online, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(offline, 7072);
  free(holes);
  free(tight);
  free(rec);
  free(of);
  texmem_tflm_destroy(f);
}

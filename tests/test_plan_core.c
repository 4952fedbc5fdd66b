/* Plan core: naive, argument checks, bounds, limits, validator, plans from
 * assignments, totals consistent with their objects. */
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define R1(f, l, s) {0, {(s), 1, 1}, (f), (l)}

Test(status, names_and_messages) {
  cr_assert_str_eq(texmem_status_name(TEXMEM_STATUS_OK), "TEXMEM_STATUS_OK");
  cr_assert_str_eq(texmem_status_name(TEXMEM_STATUS_BAD_RECORDS), "TEXMEM_STATUS_BAD_RECORDS");
  cr_assert_str_eq(texmem_status_name((texmem_status)9999), "TEXMEM_STATUS_UNKNOWN");
  for (int s = 0; s < TEXMEM_STATUS_COUNT_; s++) cr_assert(strlen(texmem_status_message(s)) > 0);
}

Test(strategy, names_round_trip) {
  for (int s = 0; s < TEXMEM_STRATEGY_COUNT_; s++) {
    texmem_strategy back;
    cr_assert(texmem_strategy_from_name(texmem_strategy_name(s), &back));
    cr_assert_eq(back, s);
  }
  cr_assert_not(texmem_strategy_from_name("nope", NULL));
  cr_assert_null(texmem_strategy_name(TEXMEM_STRATEGY_COUNT_));
}

Test(naive, one_object_per_tensor) {
  texmem_record r[] = {R1(0, 1, 10), R1(1, 2, 20), R1(2, 3, 30)};
  texmem_plan *p = tt_plan(r, 3, 1, (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_NAIVE});
  cr_assert_eq(texmem_plan_total(p), 60);
  cr_assert_eq(texmem_plan_object_count(p), 3);
  cr_assert_eq(texmem_plan_get_strategy(p), TEXMEM_STRATEGY_NAIVE);
  texmem_plan_destroy(p);
}

Test(plan, empty_records) {
  texmem_plan *p = tt_plan(NULL, 0, 2, (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_NAIVE});
  cr_assert_eq(texmem_plan_total(p), 0);
  cr_assert_eq(texmem_plan_object_count(p), 0);
  texmem_plan_destroy(p);
  texmem_plan_destroy(NULL);
}

Test(plan, bad_arguments) {
  texmem_record r[] = {R1(0, 1, 10)};
  texmem_plan *p = NULL;
  texmem_error e;
  cr_assert_eq(texmem_plan_create(r, 1, 4, NULL, &p, &e), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_eq(texmem_plan_create(NULL, 1, 1, NULL, &p, &e), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_eq(texmem_plan_create(r, 1, 1, NULL, NULL, &e), TEXMEM_STATUS_INVALID_ARGUMENT);
  texmem_plan_desc d = {.kind = TEXMEM_PLAN_OFFSETS, .strategy = TEXMEM_STRATEGY_NAIVE};
  cr_assert_eq(texmem_plan_create(r, 1, 1, &d, &p, &e), TEXMEM_STATUS_UNSUPPORTED);
  cr_assert(strstr(e.message, "naive"), "%s", e.message);
  d = (texmem_plan_desc){.layout = TEXMEM_LAYOUT_LINEAR};
  cr_assert_eq(texmem_plan_create(r, 1, 1, &d, &p, &e), TEXMEM_STATUS_UNSUPPORTED);
  cr_assert_null(p);
}

Test(plan, last_before_first_names_tensor) {
  texmem_record r[] = {R1(0, 1, 10), {7, {5, 1, 1}, 4, 2}};
  texmem_plan *p = NULL;
  texmem_error e;
  cr_assert_eq(texmem_plan_create(r, 2, 1, NULL, &p, &e), TEXMEM_STATUS_BAD_RECORDS);
  cr_assert(strstr(e.message, "tensor 7"), "%s", e.message);
}

Test(plan, tensor_over_limits) {
  texmem_record r[] = {{0, {100, 10, 1}, 0, 1}, {1, {10, 5000, 1}, 1, 2}};
  texmem_plan_desc d = {.strategy = TEXMEM_STRATEGY_NAIVE, .max_dims = {4096, 4096, 256}};
  texmem_plan *p = NULL;
  texmem_error e;
  cr_assert_eq(texmem_plan_create(r, 2, 2, &d, &p, &e), TEXMEM_STATUS_EXCEEDS_LIMITS);
  cr_assert(strstr(e.message, "tensor 1") && strstr(e.message, "height"), "%s", e.message);
}

Test(plan, sizes_overflow_is_error) {
  texmem_record r[] = {R1(0, 1, UINT64_MAX / 2 + 1), R1(2, 3, UINT64_MAX / 2 + 1)};
  texmem_plan *p = NULL;
  texmem_error e;
  cr_assert_eq(texmem_plan_create(r, 2, 1, NULL, &p, &e), TEXMEM_STATUS_OVERFLOW);
  texmem_record r2[] = {{0, {1ull << 32, 1ull << 32, 1}, 0, 1}};
  cr_assert_eq(texmem_plan_create(r2, 1, 2, NULL, &p, &e), TEXMEM_STATUS_OVERFLOW);
  /* 2^63 alone is fine. */
  texmem_record r3[] = {R1(0, 1, 1ull << 63)};
  cr_assert_eq(tt_plan_total(r3, 1, 1, (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_NAIVE}),
               1ull << 63);
}

/* Found by tests/fuzz/fuzz_planner: an object holding a 2^63 x 0 x 0 and
 * a 0 x 2^20 x 0 texture has dims 2^63 x 2^20 x 0, 0 texels. The exact
 * volume overflowed on the first product, so every merging strategy (and
 * BEST, which picked one) failed with OVERFLOW while naive planned. */
Test(plan, zero_dimension_makes_a_zero_volume_never_an_overflow) {
  texmem_record r[] = {{0, {1ull << 63, 0, 0}, 0, 0}, {1, {0, 1u << 20, 0}, 1, 1}};
  for (int s = TEXMEM_STRATEGY_BEST; s < TEXMEM_STRATEGY_COUNT_; s++) {
    if (!texmem_strategy_supports((texmem_strategy)s, TEXMEM_PLAN_OBJECTS)) continue;
    texmem_plan *p = tt_plan(r, 2, 3, (texmem_plan_desc){.strategy = (texmem_strategy)s});
    cr_assert_eq(texmem_plan_total(p), 0, "%s", texmem_strategy_name((texmem_strategy)s));
    texmem_plan_destroy(p);
  }
  /* A record with a zero dimension is 0 bytes in an arena too. */
  texmem_record big[] = {{0, {1ull << 40, 1ull << 40, 0}, 0, 1}, {1, {3, 1, 1}, 0, 1}};
  cr_assert_eq(tt_plan_total(big, 2, 3, (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS}), 3);
}

Test(bounds, chain_and_overlap) {
  /* tasks: 0:{a10,b20} 1:{b20,c5} 2:{c5,d40} */
  texmem_record r[] = {R1(0, 0, 10), R1(0, 1, 20), R1(1, 2, 5), R1(2, 2, 40)};
  texmem_bounds b;
  cr_assert_eq(texmem_lower_bounds(r, 4, 1, &b, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(b.max_live, 45);
  /* positions: task0 [20,10], task1 [20,5], task2 [40,5] -> 40 + 10 */
  cr_assert_eq(b.positional_max, 50);
}

Test(bounds, textures_use_volumes_and_sparse_tasks) {
  texmem_record r[] = {{0, {4, 4, 1}, 1000, 2000}, {1, {2, 3, 1}, 1500, 1ull << 60}};
  texmem_bounds b;
  cr_assert_eq(texmem_lower_bounds(r, 2, 2, &b, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(b.max_live, 22);
  cr_assert_eq(b.positional_max, 22);
}

/* The quadratic definitions of the bounds, kept as a reference for the
 * O(n log n) sweep: at every task, the sum and the sorted live sizes. */
static int cmp_desc_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x > y ? -1 : x < y;
}

static texmem_bounds slow_bounds(const texmem_record *r, size_t n) {
  texmem_bounds b = {0, 0};
  uint64_t *pos = calloc(n + 1, sizeof *pos), *buf = calloc(n + 1, sizeof *buf);
  cr_assert(pos && buf);
  for (size_t t = 0; t < n; t++) { /* every start task is enough */
    uint64_t task = r[t].first_task, live = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
      if (r[i].first_task <= task && task <= r[i].last_task) {
        buf[k++] = r[i].dims[0];
        live += r[i].dims[0];
      }
    if (live > b.max_live) b.max_live = live;
    qsort(buf, k, sizeof *buf, cmp_desc_u64);
    for (size_t j = 0; j < k; j++)
      if (buf[j] > pos[j]) pos[j] = buf[j];
  }
  for (size_t j = 0; j < n; j++) b.positional_max += pos[j];
  free(pos);
  free(buf);
  return b;
}

Test(bounds, sweep_matches_quadratic_definition) {
  uint64_t seed = 11;
  texmem_record r[64];
  for (int iter = 0; iter < 400; iter++) {
    size_t n = 1 + tt_rand(&seed) % 64;
    uint64_t span = 1 + tt_rand(&seed) % 40, smax = 1 + tt_rand(&seed) % (iter % 2 ? 8 : 1000);
    for (size_t i = 0; i < n; i++) {
      uint64_t f = tt_rand(&seed) % span, len = tt_rand(&seed) % (1 + span / 3);
      /* ties and zero sizes included */
      r[i] = (texmem_record){i, {tt_rand(&seed) % (smax + 1), 1, 1}, f * 3, f * 3 + len * 3};
    }
    texmem_bounds want = slow_bounds(r, n), got;
    cr_assert_eq(texmem_lower_bounds(r, n, 1, &got, NULL), TEXMEM_STATUS_OK);
    cr_assert_eq(got.max_live, want.max_live, "iter %d: max_live %llu != %llu", iter,
                 (unsigned long long)got.max_live, (unsigned long long)want.max_live);
    cr_assert_eq(got.positional_max, want.positional_max, "iter %d: positional_max %llu != %llu",
                 iter, (unsigned long long)got.positional_max,
                 (unsigned long long)want.positional_max);
  }
}

Test(bounds, many_records_all_live_together) {
  /* 200 000 records all live at once: the old per-task re-sort took hours
   * at this scale; the sweep is O(n log n). */
  size_t n = 200000;
  texmem_record *r = malloc(n * sizeof *r);
  cr_assert(r);
  for (size_t i = 0; i < n; i++) r[i] = (texmem_record){i, {1 + i % 1000, 1, 1}, i, 2 * n};
  texmem_bounds b;
  cr_assert_eq(texmem_lower_bounds(r, n, 1, &b, NULL), TEXMEM_STATUS_OK);
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i++) sum += 1 + i % 1000;
  /* at the last start task everything is live */
  cr_assert_eq(b.max_live, sum);
  cr_assert_eq(b.positional_max, sum);
  free(r);
}

Test(validate, catches_conflicts_and_misfits) {
  texmem_record r[] = {R1(0, 2, 10), R1(1, 3, 20), R1(4, 5, 30)};
  texmem_plan *p = tt_plan(r, 3, 1, (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_NAIVE});
  /* Same plan against records where tensor 2 overlaps nothing but is bigger. */
  texmem_record bigger[] = {R1(0, 2, 10), R1(1, 3, 20), R1(4, 5, 31)};
  texmem_error e;
  cr_assert_eq(texmem_plan_validate(bigger, 3, 1, p, &e), TEXMEM_STATUS_INVALID_PLAN);
  cr_assert(strstr(e.message, "tensor 2"), "%s", e.message);
  cr_assert_eq(texmem_plan_validate(r, 2, 1, p, &e), TEXMEM_STATUS_INVALID_PLAN);
  texmem_plan_destroy(p);
}

Test(offsets, any_strategy_meeting_max_live_is_optimal) {
  /* A chain: greedy_by_size reaches max_live (30), so the plan is proven. */
  texmem_record r[] = {R1(0, 1, 10), R1(1, 2, 20), R1(2, 3, 10)};
  texmem_plan *p = tt_plan(r, 3, 1,
                           (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS,
                                              .strategy = TEXMEM_STRATEGY_GREEDY_BY_SIZE});
  cr_assert_eq(texmem_plan_total(p), 30);
  cr_assert_eq(texmem_plan_bound(p), 30);
  cr_assert(texmem_plan_is_optimal(p));
  texmem_plan_destroy(p);
  /* max_live is 40 (task 1: 10 + 5 + 25); exact reaches and proves it. */
  texmem_record q[] = {R1(0, 1, 10), R1(1, 1, 5), R1(0, 0, 20), R1(1, 1, 25)};
  p = tt_plan(q, 4, 1, (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS,
                                          .strategy = TEXMEM_STRATEGY_EXACT});
  cr_assert_eq(texmem_plan_total(p), 40);
  cr_assert(texmem_plan_is_optimal(p));
  texmem_plan_destroy(p);
}

Test(local_search, total_saturating_at_2_64_minus_1) {
  /* Two overlapping tensors whose sizes sum to exactly 2^64 - 1: the
   * result's total equals the "no result yet" marker and was dropped. */
  texmem_record r[] = {R1(0, 1, (1ull << 63) - 1), R1(1, 2, 1ull << 63)};
  for (int s = TEXMEM_STRATEGY_BEST; s <= TEXMEM_STRATEGY_LOCAL_SEARCH; s++) {
    if (!texmem_strategy_supports((texmem_strategy)s, TEXMEM_PLAN_OBJECTS)) continue;
    if (s == TEXMEM_STRATEGY_MIN_COST_FLOW) continue; /* refuses totals above 2^61 */
    texmem_plan *p = tt_plan(r, 2, 1, (texmem_plan_desc){.strategy = (texmem_strategy)s});
    cr_assert_eq(texmem_plan_total(p), UINT64_MAX, "%s", texmem_strategy_name((texmem_strategy)s));
    cr_assert_eq(texmem_plan_object_count(p), 2);
    texmem_plan_destroy(p);
  }
}

Test(best, one_strategy_failing_never_fails_the_others) {
  /* Totals above 2^61: min_cost_flow refuses them (63-bit costs); BEST
   * reports that in its row and plans with the others. */
  texmem_record r[] = {R1(0, 1, 1ull << 62), R1(1, 2, 1ull << 62), R1(3, 4, 1ull << 61)};
  texmem_plan *p = tt_plan(r, 3, 1, (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_BEST});
  cr_assert_eq(texmem_plan_total(p), 1ull << 63);
  texmem_strategy_report mcf = texmem_plan_strategy_report(p, TEXMEM_STRATEGY_MIN_COST_FLOW);
  cr_assert_eq(mcf.outcome, TEXMEM_RUN_FAILED);
  cr_assert_eq(mcf.status, TEXMEM_STATUS_OVERFLOW);
  cr_assert(strstr(mcf.reason, "min_cost_flow"), "%s", mcf.reason);
  texmem_strategy_report gs = texmem_plan_strategy_report(p, TEXMEM_STRATEGY_GREEDY_BY_SIZE);
  cr_assert_eq(gs.outcome, TEXMEM_RUN_PLANNED);
  cr_assert_eq(gs.total, 1ull << 63);
  cr_assert_eq(gs.objects, 2);
  /* offsets-only strategies were not candidates; out of range is NOT_RUN */
  cr_assert_eq(texmem_plan_strategy_report(p, TEXMEM_STRATEGY_EXACT).outcome, TEXMEM_RUN_NOT_RUN);
  cr_assert_eq(texmem_plan_strategy_report(p, TEXMEM_STRATEGY_COUNT_).outcome, TEXMEM_RUN_NOT_RUN);
  cr_assert_eq(texmem_plan_strategy_report(NULL, TEXMEM_STRATEGY_NAIVE).outcome, TEXMEM_RUN_NOT_RUN);
  texmem_plan_destroy(p);
}

Test(best, named_strategy_reports_itself) {
  texmem_record r[] = {R1(0, 1, 10), R1(1, 2, 20)};
  texmem_plan *p = tt_plan(r, 2, 1, (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_NAIVE});
  texmem_strategy_report rep = texmem_plan_strategy_report(p, TEXMEM_STRATEGY_NAIVE);
  cr_assert_eq(rep.outcome, TEXMEM_RUN_PLANNED);
  cr_assert_eq(rep.total, 30);
  cr_assert_eq(texmem_plan_strategy_report(p, TEXMEM_STRATEGY_LOCAL_SEARCH).outcome,
               TEXMEM_RUN_NOT_RUN);
  texmem_plan_destroy(p);
}

Test(best, time_budget_skips_quadratic_strategies_past_a_size) {
  /* 3 000 records: within the default budget's limits, past those of a
   * 20 ms budget (the limits scale with its square root). */
  size_t n = 3000;
  texmem_record *r = malloc(n * sizeof *r);
  cr_assert(r);
  uint64_t seed = 5;
  for (size_t i = 0; i < n; i++) r[i] = (texmem_record){i, {1 + tt_rand(&seed) % 100, 1, 1}, i, i + 1 + i % 3};
  texmem_plan_desc d = {.strategy = TEXMEM_STRATEGY_BEST, .time_budget_ms = 20};
  texmem_plan *p = tt_plan(r, n, 1, d);
  static const texmem_strategy quad[] = {TEXMEM_STRATEGY_MIN_COST_FLOW, TEXMEM_STRATEGY_LOCAL_SEARCH};
  for (size_t i = 0; i < 2; i++) {
    texmem_strategy_report rep = texmem_plan_strategy_report(p, quad[i]);
    cr_assert_eq(rep.outcome, TEXMEM_RUN_SKIPPED, "%s", texmem_strategy_name(quad[i]));
    cr_assert(strstr(rep.reason, "3000 tensors") && strstr(rep.reason, "20 ms"), "%s", rep.reason);
  }
  /* Of the n log n greedy ones, the primary always runs; the other only
   * if its estimate (8 s per 10^6 tensors: 24 ms here) fits. */
  cr_assert_eq(texmem_plan_strategy_report(p, TEXMEM_STRATEGY_GREEDY_BY_BREADTH).outcome,
               TEXMEM_RUN_PLANNED);
  texmem_strategy_report gs = texmem_plan_strategy_report(p, TEXMEM_STRATEGY_GREEDY_BY_SIZE);
  cr_assert_eq(gs.outcome, TEXMEM_RUN_SKIPPED);
  cr_assert(strstr(gs.reason, "estimated 24 ms"), "%s", gs.reason);
  cr_assert_eq(texmem_plan_strategy_report(p, TEXMEM_STRATEGY_GREEDY_IN_ORDER).outcome,
               TEXMEM_RUN_PLANNED);
  texmem_plan_destroy(p);
  d.time_budget_ms = 0; /* default: both greedy ones run on 3 000 tensors */
  p = tt_plan(r, n, 1, d);
  cr_assert_eq(texmem_plan_strategy_report(p, TEXMEM_STRATEGY_GREEDY_BY_SIZE).outcome,
               TEXMEM_RUN_PLANNED);
  texmem_plan_destroy(p);
  d.time_budget_ms = 20;
  d.kind = TEXMEM_PLAN_OFFSETS;
  p = tt_plan(r, n, 1, d);
  cr_assert_eq(texmem_plan_strategy_report(p, TEXMEM_STRATEGY_STRIP_BEST_FIT).outcome,
               TEXMEM_RUN_SKIPPED);
  cr_assert_eq(texmem_plan_strategy_report(p, TEXMEM_STRATEGY_GREEDY_BY_SIZE).outcome,
               TEXMEM_RUN_PLANNED);
  texmem_plan_destroy(p);
  /* A negative budget is an argument error. */
  d.time_budget_ms = -1;
  texmem_plan *q = NULL;
  texmem_error e;
  cr_assert_eq(texmem_plan_create(r, n, 1, &d, &q, &e), TEXMEM_STATUS_INVALID_ARGUMENT);
  free(r);
}

/* BEST's size rule, as callers that run strategies by name ask it: the
 * quadratic strategies (tflm_greedy too, which BEST does not run) up to
 * their limit for the budget (scaled by sqrt(budget / 2 s)), the others at
 * any size. */
Test(best, size_rule_for_callers) {
  char why[200] = "";
  cr_assert(texmem_strategy_within_budget(TEXMEM_STRATEGY_TFLM_GREEDY, 10000, 0, why, sizeof why));
  cr_assert(!texmem_strategy_within_budget(TEXMEM_STRATEGY_TFLM_GREEDY, 10001, 0, why, sizeof why));
  cr_assert(strstr(why, "10001 tensors") && strstr(why, "limit of 10000") && strstr(why, "2000 ms"),
            "%s", why);
  cr_assert(texmem_strategy_within_budget(TEXMEM_STRATEGY_MIN_COST_FLOW, 20000, 2000, NULL, 0));
  cr_assert(!texmem_strategy_within_budget(TEXMEM_STRATEGY_LOCAL_SEARCH, 20001, 8000, NULL, 0));
  cr_assert(texmem_strategy_within_budget(TEXMEM_STRATEGY_LOCAL_SEARCH, 20000, 8000, NULL, 0));
  cr_assert(!texmem_strategy_within_budget(TEXMEM_STRATEGY_STRIP_BEST_FIT, 224, 1, NULL, 0));
  static const texmem_strategy any_size[] = {
      TEXMEM_STRATEGY_NAIVE, TEXMEM_STRATEGY_EQUALITY, TEXMEM_STRATEGY_GREEDY_IN_ORDER,
      TEXMEM_STRATEGY_GREEDY_BY_BREADTH, TEXMEM_STRATEGY_GREEDY_BY_SIZE, TEXMEM_STRATEGY_EXACT};
  for (size_t i = 0; i < sizeof any_size / sizeof any_size[0]; i++)
    cr_assert(texmem_strategy_within_budget(any_size[i], 100000000, 1, NULL, 0), "%s",
              texmem_strategy_name(any_size[i]));
}

/* A caller's assignment becomes a validated plan: object dims, arena size
 * and totals derived; conflicts, misalignment and bad arguments refused. */
Test(plan_core, plan_from_assignment) {
  const texmem_record r[] = {{0, {4, 2, 1}, 0, 1}, {1, {3, 3, 1}, 1, 2}, {2, {5, 1, 1}, 2, 3}};
  const size_t of[] = {0, 1, 0};
  texmem_plan_assignment a = {.object_of = of};
  texmem_plan *p = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_plan_from_assignment(r, 3, 2, &a, &p, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  uint64_t d[3];
  texmem_plan_object_dims(p, 0, d);
  cr_assert(d[0] == 5 && d[1] == 2 && d[2] == 1);
  cr_assert_eq(texmem_plan_total(p), 10 + 9);
  texmem_plan_destroy(p);
  /* Linear objects: W = 4, rows ceil(volume / 4). */
  a.layout = TEXMEM_LAYOUT_LINEAR;
  a.linear_width = 4;
  cr_assert_eq(texmem_plan_from_assignment(r, 3, 2, &a, &p, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  cr_assert_eq(texmem_plan_total(p), 4 * 2 + 4 * 3);
  texmem_plan_destroy(p);
  /* 1-D offsets: the arena ends where its tensors end. */
  const uint64_t off[] = {0, 8, 0};
  texmem_plan_assignment o = {.kind = TEXMEM_PLAN_OFFSETS, .offset = off, .alignment = 8};
  const texmem_record b[] = {{0, {8}, 0, 1}, {1, {9}, 1, 2}, {2, {5}, 2, 3}};
  cr_assert_eq(texmem_plan_from_assignment(b, 3, 1, &o, &p, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  cr_assert_eq(texmem_plan_total(p), 17);
  cr_assert_eq(texmem_plan_tensor_offset(p, 1), 8);
  texmem_plan_destroy(p);
  /* Arena in rows of W = 4: tensor 1 at row 2, after tensor 0's 2 rows. */
  const uint64_t rows[] = {0, 2, 0};
  texmem_plan_assignment ar = {.kind = TEXMEM_PLAN_OFFSETS, .layout = TEXMEM_LAYOUT_LINEAR,
                               .linear_width = 4, .offset = rows};
  cr_assert_eq(texmem_plan_from_assignment(r, 3, 2, &ar, &p, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  cr_assert_eq(texmem_plan_total(p), 4 * 5);
  cr_assert_eq(texmem_plan_tensor_base_row(p, 1), 2);
  texmem_plan_destroy(p);
  /* Refused: live together in one object; overlapping; misaligned. */
  const size_t same[] = {0, 0, 1};
  a = (texmem_plan_assignment){.object_of = same};
  p = (texmem_plan *)1;
  cr_assert_eq(texmem_plan_from_assignment(r, 3, 2, &a, &p, &err), TEXMEM_STATUS_INVALID_PLAN);
  cr_assert_null(p);
  const uint64_t clash[] = {0, 4, 0};
  o.offset = clash;
  o.alignment = 0;
  cr_assert_eq(texmem_plan_from_assignment(b, 3, 1, &o, &p, &err), TEXMEM_STATUS_INVALID_PLAN);
  cr_assert(strstr(err.message, "tensors 0 and 1"), "%s", err.message);
  o.offset = off;
  o.alignment = 16;
  cr_assert_eq(texmem_plan_from_assignment(b, 3, 1, &o, &p, &err), TEXMEM_STATUS_INVALID_PLAN);
  cr_assert(strstr(err.message, "alignment"), "%s", err.message);
  /* Bad arguments. */
  cr_assert_eq(texmem_plan_from_assignment(r, 3, 2, NULL, &p, &err),
               TEXMEM_STATUS_INVALID_ARGUMENT);
  ar.linear_width = 0;
  cr_assert_eq(texmem_plan_from_assignment(r, 3, 2, &ar, &p, &err),
               TEXMEM_STATUS_INVALID_ARGUMENT);
  const size_t far[] = {0, 7, 0};
  a.object_of = far;
  cr_assert_eq(texmem_plan_from_assignment(r, 3, 2, &a, &p, &err), TEXMEM_STATUS_INVALID_PLAN);
  cr_assert_eq(texmem_plan_from_assignment(r, 0, 2, &a, &p, &err), TEXMEM_STATUS_OK);
  cr_assert_eq(texmem_plan_total(p), 0);
  texmem_plan_destroy(p);
}

/* The validator's "total is the sum of the objects" check can only be met
 * by planned plans (texmem_plan_from_assignment derives the total), so the
 * invariant is asserted here on every strategy, kind and layout: each
 * object's size is the product of its dims, the total their sum, and a
 * natural offsets arena ends where its last tensor ends. */
Test(plan_core, totals_are_sums_of_objects) {
  uint64_t seed = 12;
  for (int round = 0; round < 12; round++) {
    texmem_record r[24];
    size_t n = 1 + tt_rand(&seed) % 24;
    unsigned dims = 1 + (unsigned)(round % 3);
    for (size_t i = 0; i < n; i++) {
      uint64_t f = tt_rand(&seed) % 16;
      r[i] = (texmem_record){i, {1 + tt_rand(&seed) % 40, 1 + tt_rand(&seed) % 9,
                                 1 + tt_rand(&seed) % 3}, f, f + tt_rand(&seed) % 6};
    }
    for (int kind = 0; kind < 2; kind++)
      for (int layout = 0; layout < 2; layout++) {
        if (layout == TEXMEM_LAYOUT_LINEAR ? dims == 1 : kind == TEXMEM_PLAN_OFFSETS && dims != 1)
          continue;
        for (int s = 0; s < TEXMEM_STRATEGY_COUNT_; s++) {
          if (!texmem_strategy_supports((texmem_strategy)s, (texmem_plan_kind)kind)) continue;
          texmem_plan_desc d = {.kind = (texmem_plan_kind)kind, .strategy = (texmem_strategy)s,
                                .layout = (texmem_layout)layout, .exact_node_budget = 20000};
          texmem_plan *p = tt_plan(r, n, dims, d);
          uint64_t sum = 0, end = 0;
          for (size_t o = 0; o < texmem_plan_object_count(p); o++) {
            uint64_t od[3];
            texmem_plan_object_dims(p, o, od);
            cr_assert_eq(texmem_plan_object_size(p, o), od[0] * od[1] * od[2],
                         "round %d kind %d layout %d %s object %zu", round, kind, layout,
                         texmem_strategy_name((texmem_strategy)s), o);
            sum += texmem_plan_object_size(p, o);
          }
          cr_assert_eq(texmem_plan_total(p), sum, "round %d kind %d layout %d %s", round, kind,
                       layout, texmem_strategy_name((texmem_strategy)s));
          if (kind == TEXMEM_PLAN_OFFSETS && layout == TEXMEM_LAYOUT_NATURAL) {
            for (size_t i = 0; i < n; i++) {
              uint64_t e = texmem_plan_tensor_offset(p, i) + r[i].dims[0];
              if (e > end) end = e;
            }
            cr_assert_eq(texmem_plan_total(p), end, "round %d %s", round,
                         texmem_strategy_name((texmem_strategy)s));
          }
          texmem_plan_destroy(p);
        }
      }
  }
}

/* A caller's own objects: object_count and object_dims taken as given (a
 * padded object is fine, one too small is the validator's to refuse), and
 * the new fields' bad uses named. */
Test(plan_core, plan_from_assignment_given_objects) {
  texmem_record r[] = {{0, {4, 2, 1}, 0, 1}, {1, {3, 3, 1}, 2, 3}, {2, {2, 2, 1}, 1, 2}};
  const size_t of[] = {0, 0, 1};
  const uint64_t padded[][3] = {{8, 4, 1}, {2, 2, 1}}, small[][3] = {{4, 2, 1}, {2, 2, 1}};
  texmem_plan_assignment a = {.object_of = of, .object_count = 2, .object_dims = padded};
  texmem_plan *p = NULL;
  texmem_error err = {0};
  texmem_status st = texmem_plan_from_assignment(r, 3, 2, &a, &p, &err);
  cr_assert_eq(st, TEXMEM_STATUS_OK, "%s", err.message);
  for (size_t o = 0; o < 2; o++) {
    uint64_t got[3];
    texmem_plan_object_dims(p, o, got);
    cr_assert_arr_eq(got, padded[o], sizeof got, "object %zu", o);
  }
  cr_assert_eq(texmem_plan_total(p), 8 * 4 + 2 * 2);
  texmem_plan_destroy(p);
  a.object_dims = small;
  cr_assert_eq(texmem_plan_from_assignment(r, 3, 2, &a, &p, &err), TEXMEM_STATUS_INVALID_PLAN);
  cr_assert_null(p);
  cr_assert(strstr(err.message, "tensor 1: dimension 1 is 3, its object 0 has 2"), "%s",
            err.message);
  /* An object past object_count: the validator names it. */
  const size_t past[] = {0, 0, 2};
  a = (texmem_plan_assignment){.object_of = past, .object_count = 2};
  cr_assert_eq(texmem_plan_from_assignment(r, 3, 2, &a, &p, &err), TEXMEM_STATUS_INVALID_PLAN);
  cr_assert(strstr(err.message, "tensor 2: object 2 does not exist (2 objects)"), "%s",
            err.message);
  /* Bad uses: more objects than tensors, dims without a count, fixed
   * offsets outside natural offsets plans, two natural arenas. */
  a = (texmem_plan_assignment){.object_of = of, .object_count = 4};
  cr_assert_eq(texmem_plan_from_assignment(r, 3, 2, &a, &p, &err),
               TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "object_count 4"), "%s", err.message);
  a = (texmem_plan_assignment){.object_of = of, .object_dims = padded};
  cr_assert_eq(texmem_plan_from_assignment(r, 3, 2, &a, &p, &err),
               TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "object_dims needs object_count"), "%s", err.message);
  const uint64_t off[] = {0, 0, 4}, fixed[] = {0, TEXMEM_OFFSET_FREE, TEXMEM_OFFSET_FREE};
  a = (texmem_plan_assignment){.object_of = of, .fixed_offsets = fixed};
  cr_assert_eq(texmem_plan_from_assignment(r, 3, 2, &a, &p, &err),
               TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "fixed_offsets"), "%s", err.message);
  texmem_record b[] = {{0, {4, 1, 1}, 0, 1}, {1, {4, 1, 1}, 2, 3}, {2, {2, 1, 1}, 1, 2}};
  a = (texmem_plan_assignment){.kind = TEXMEM_PLAN_OFFSETS, .offset = off, .object_count = 2};
  cr_assert_eq(texmem_plan_from_assignment(b, 3, 1, &a, &p, &err),
               TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "one arena"), "%s", err.message);
  /* A natural arena given larger than its tensors reach is refused. */
  const uint64_t arena[][3] = {{8, 1, 1}};
  a = (texmem_plan_assignment){.kind = TEXMEM_PLAN_OFFSETS, .offset = off, .object_dims = arena};
  cr_assert_eq(texmem_plan_from_assignment(b, 3, 1, &a, &p, &err), TEXMEM_STATUS_INVALID_PLAN);
  cr_assert(strstr(err.message, "arena size 8, but tensors end at 6"), "%s", err.message);
  a.object_dims = NULL;
  cr_assert_eq(texmem_plan_from_assignment(b, 3, 1, &a, &p, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  cr_assert_eq(texmem_plan_total(p), 6);
  texmem_plan_destroy(p);
}

/* Whether any two tensors live together overlap in space (rows of one
 * arena texture when obj is given), pair by pair. */
static bool brute_overlap(const texmem_record *r, size_t n, const uint64_t *off,
                          const uint64_t *len, const size_t *obj) {
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      if (r[i].first_task <= r[j].last_task && r[j].first_task <= r[i].last_task &&
          (!obj || obj[i] == obj[j]) && len[i] && len[j] && off[i] < off[j] + len[j] &&
          off[j] < off[i] + len[i])
        return true;
  return false;
}

/* The validator has two ways to find tensors live together that overlap:
 * a live list while few tensors are live at once, and a rank set over the
 * space order past 64 (records that all overlap would make the list
 * quadratic). Crowded random plans, some valid and some not, in a 1-D
 * arena and in arena textures, against the pairwise answer. */
Test(validate, crowded_plans_against_every_pair) {
  uint64_t seed = 99;
  static texmem_record r[400];
  static uint64_t off[400], len[400];
  static size_t obj[400];
  int valid = 0, invalid = 0;
  for (int round = 0; round < 300; round++) {
    size_t n = 1 + tt_rand(&seed) % 400;
    bool arena = round % 2, sparse = tt_rand(&seed) % 2;
    uint64_t w = 8, top = 0;
    for (size_t i = 0; i < n; i++) {
      uint64_t f = tt_rand(&seed) % 6, s = tt_rand(&seed) % 10 ? 1 + tt_rand(&seed) % 40 : 0;
      r[i] = (texmem_record){i, {s, arena ? 1 + tt_rand(&seed) % 3 : 1, 1}, f,
                             f + tt_rand(&seed) % 6};
      len[i] = arena ? (s * r[i].dims[1] + w - 1) / w : s;
      if (arena && !len[i]) len[i] = 1; /* a tensor takes a row at least */
      obj[i] = arena && i && n > 1 ? (i == n - 1 ? 1 : tt_rand(&seed) % 2) : 0; /* both used */
      /* stacked apart (valid), with now and then one moved down onto others,
       * at times by one unit only */
      off[i] = sparse || tt_rand(&seed) % 200 ? top : tt_rand(&seed) % (top + 1);
      if (!sparse && top && tt_rand(&seed) % 300 == 0) off[i] = top - 1;
      top = off[i] + len[i] > top ? off[i] + len[i] : top;
    }
    bool bad = brute_overlap(r, n, off, len, arena ? obj : NULL);
    texmem_plan_assignment a = {.kind = TEXMEM_PLAN_OFFSETS, .offset = off};
    if (arena) {
      a.layout = TEXMEM_LAYOUT_LINEAR;
      a.linear_width = w;
      a.object_of = obj;
    }
    texmem_plan *p = NULL;
    texmem_error err;
    texmem_status st = texmem_plan_from_assignment(r, n, arena ? 2 : 1, &a, &p, &err);
    cr_assert_eq(st, bad ? TEXMEM_STATUS_INVALID_PLAN : TEXMEM_STATUS_OK,
                 "round %d (%zu tensors, %s): %s", round, n, arena ? "arena textures" : "1-D",
                 st ? err.message : "valid");
    if (bad) cr_assert(strstr(err.message, "live together"), "%s", err.message);
    bad ? invalid++ : valid++;
    texmem_plan_destroy(p);
  }
  cr_assert_gt(valid, 50);
  cr_assert_gt(invalid, 50);
}

/* keep_candidates: every strategy BEST planned is kept, and the plan
 * texmem_plan_candidate rebuilds from it is the one the strategy makes when
 * named: same total, objects and assignment, for objects (natural and
 * linear) and natural offsets, with and without fixed tensors. */
Test(best, kept_candidates_are_the_named_strategies_plans) {
  uint64_t seed = 4242;
  int compared = 0;
  for (int round = 0; round < 60; round++) {
    texmem_record r[40];
    uint64_t fixed[40];
    size_t n = 1 + tt_rand(&seed) % 40;
    unsigned dims = 1 + (unsigned)(round % 2);
    int shape = round % 3; /* objects natural, objects linear (2-D), offsets */
    if (shape == 1 && dims == 1) dims = 2;
    for (size_t i = 0; i < n; i++) {
      uint64_t f = tt_rand(&seed) % 12;
      r[i] = (texmem_record){i, {1 + tt_rand(&seed) % 40, 1 + tt_rand(&seed) % 9, 1}, f,
                             f + tt_rand(&seed) % 5};
      fixed[i] = TEXMEM_OFFSET_FREE;
    }
    /* Budgets no run reaches, and exact bounded by nodes: the same search
     * inside best and named, however slow the machine (sanitizers). */
    texmem_plan_desc d = {.strategy = TEXMEM_STRATEGY_BEST, .keep_candidates = true,
                          .time_budget_ms = 6e5, .exact_time_budget_ms = 6e5,
                          .exact_node_budget = 20000};
    if (shape == 1) d.layout = TEXMEM_LAYOUT_LINEAR;
    if (shape == 2) {
      d.kind = TEXMEM_PLAN_OFFSETS;
      d.alignment = round % 4 ? 1 : 8;
      if (round % 5 == 0) { /* one tensor fixed at the bottom */
        fixed[0] = 0;
        d.fixed_offsets = fixed;
      }
    }
    texmem_plan *best = tt_plan(r, n, dims, d);
    for (unsigned s = 1; s < TEXMEM_STRATEGY_COUNT_; s++) {
      texmem_strategy_report rep = texmem_plan_strategy_report(best, (texmem_strategy)s);
      texmem_plan *c = NULL;
      texmem_error err;
      texmem_status st = texmem_plan_candidate(best, r, n, dims, (texmem_strategy)s, &c, &err);
      if (rep.outcome != TEXMEM_RUN_PLANNED) {
        cr_assert_eq(st, TEXMEM_STATUS_UNSUPPORTED, "round %d %s", round,
                     texmem_strategy_name((texmem_strategy)s));
        continue;
      }
      cr_assert_eq(st, TEXMEM_STATUS_OK, "round %d %s: %s", round,
                   texmem_strategy_name((texmem_strategy)s), err.message);
      texmem_plan_desc named = d;
      named.strategy = (texmem_strategy)s;
      named.keep_candidates = false;
      texmem_plan *q = tt_plan(r, n, dims, named);
      cr_assert_eq(texmem_plan_get_strategy(c), (texmem_strategy)s);
      cr_assert_eq(texmem_plan_total(c), texmem_plan_total(q), "round %d %s", round,
                   texmem_strategy_name((texmem_strategy)s));
      cr_assert_eq(texmem_plan_object_count(c), texmem_plan_object_count(q));
      cr_assert_eq(texmem_plan_linear_width(c), texmem_plan_linear_width(q));
      for (size_t i = 0; i < n; i++) {
        cr_assert_eq(texmem_plan_tensor_object(c, i), texmem_plan_tensor_object(q, i));
        cr_assert_eq(texmem_plan_tensor_offset(c, i), texmem_plan_tensor_offset(q, i));
      }
      if (shape == 2) {
        cr_assert_eq(texmem_plan_is_optimal(c), texmem_plan_is_optimal(q), "round %d %s", round,
                     texmem_strategy_name((texmem_strategy)s));
        cr_assert_eq(texmem_plan_bound(c), texmem_plan_bound(q));
      }
      texmem_plan_destroy(q);
      texmem_plan_destroy(c);
      compared++;
    }
    texmem_plan_destroy(best);
  }
  cr_assert_gt(compared, 150);
  /* Nothing is kept without the flag, nor for a named strategy. */
  texmem_record r[] = {{0, {4, 1, 1}, 0, 1}, {1, {4, 1, 1}, 1, 2}};
  texmem_plan *p = tt_plan(r, 2, 1, (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_BEST});
  texmem_plan *c = (texmem_plan *)1;
  texmem_error err;
  cr_assert_eq(texmem_plan_candidate(p, r, 2, 1, TEXMEM_STRATEGY_NAIVE, &c, &err),
               TEXMEM_STATUS_UNSUPPORTED);
  cr_assert_null(c);
  cr_assert(strstr(err.message, "naive"), "%s", err.message);
  texmem_plan_destroy(p);
  cr_assert_eq(texmem_plan_candidate(NULL, r, 2, 1, TEXMEM_STRATEGY_NAIVE, &c, &err),
               TEXMEM_STATUS_INVALID_ARGUMENT);
}

/* Offsets strategies: hand-computed cases, brute force on small random
 * cases, the exhausted-budget path, and the four models' 1-D records.
 * Every plan goes through tt_plan (planner + validator). */
#include <stdio.h>
#include <string.h>

#include "support.h"

#define R1(f, l, s) {0, {(s), 1, 1}, (f), (l)}
#define NSTRAT 6

static const texmem_strategy strategies[NSTRAT] = {
    TEXMEM_STRATEGY_GREEDY_IN_ORDER, TEXMEM_STRATEGY_GREEDY_BY_BREADTH,
    TEXMEM_STRATEGY_GREEDY_BY_SIZE,  TEXMEM_STRATEGY_STRIP_BEST_FIT,
    TEXMEM_STRATEGY_EXACT,           TEXMEM_STRATEGY_BEST};

static texmem_plan_desc off_desc(texmem_strategy s, uint64_t alignment) {
  return (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS, .strategy = s, .alignment = alignment};
}

static uint64_t off_total(const texmem_record *r, size_t n, texmem_strategy s, uint64_t a) {
  return tt_plan_total(r, n, 1, off_desc(s, a));
}

/* expect[] in the order of strategies[] */
static void expect_totals(const texmem_record *r, size_t n, uint64_t a, const uint64_t *expect) {
  for (int k = 0; k < NSTRAT; k++) {
    uint64_t t = off_total(r, n, strategies[k], a);
    cr_expect_eq(t, expect[k], "%s: total %llu, expected %llu", texmem_strategy_name(strategies[k]),
                 (unsigned long long)t, (unsigned long long)expect[k]);
  }
}

Test(offsets, chain) {
  /* 0-1 and 1-2 conflict. in_order stacks 30 on 20 on 10; the others put
   * 10 under 20 next to 30 (strip_best_fit raises [0,1] to 30 first). */
  texmem_record r[] = {R1(0, 1, 10), R1(1, 2, 20), R1(2, 3, 30)};
  expect_totals(r, 3, 1, (uint64_t[]){60, 50, 50, 50, 50, 50});
  texmem_plan *p = tt_plan(r, 3, 1, off_desc(TEXMEM_STRATEGY_GREEDY_BY_SIZE, 1));
  cr_expect_eq(texmem_plan_tensor_offset(p, 2), 0);
  cr_expect_eq(texmem_plan_tensor_offset(p, 1), 30);
  cr_expect_eq(texmem_plan_tensor_offset(p, 0), 0);
  texmem_plan_destroy(p);
  p = tt_plan(r, 3, 1, off_desc(TEXMEM_STRATEGY_EXACT, 1));
  cr_expect(texmem_plan_is_optimal(p));
  cr_expect_eq(texmem_plan_bound(p), 50);
  texmem_plan_destroy(p);
}

Test(offsets, all_overlapping) {
  texmem_record r[] = {R1(0, 2, 5), R1(0, 2, 7), R1(1, 2, 3)};
  expect_totals(r, 3, 1, (uint64_t[]){15, 15, 15, 15, 15, 15});
  texmem_plan *p = tt_plan(r, 3, 1, off_desc(TEXMEM_STRATEGY_GREEDY_BY_SIZE, 1));
  cr_expect_eq(texmem_plan_tensor_offset(p, 1), 0);
  cr_expect_eq(texmem_plan_tensor_offset(p, 0), 7);
  cr_expect_eq(texmem_plan_tensor_offset(p, 2), 12);
  texmem_plan_destroy(p);
}

Test(offsets, identical_sizes) {
  /* A chain of four 8-byte tensors: two slots suffice for every strategy. */
  texmem_record r[] = {R1(0, 1, 8), R1(1, 2, 8), R1(2, 3, 8), R1(3, 4, 8)};
  expect_totals(r, 4, 1, (uint64_t[]){16, 16, 16, 16, 16, 16});
}

Test(offsets, zero_sizes) {
  texmem_record r[] = {R1(0, 5, 0), R1(0, 5, 10), R1(2, 3, 0)};
  expect_totals(r, 3, 1, (uint64_t[]){10, 10, 10, 10, 10, 10});
  texmem_record z[] = {R1(0, 5, 0), R1(1, 2, 0)};
  expect_totals(z, 2, 16, (uint64_t[]){0, 0, 0, 0, 0, 0});
}

Test(offsets, one_and_empty) {
  texmem_record r[] = {R1(3, 7, 42)};
  expect_totals(r, 1, 1, (uint64_t[]){42, 42, 42, 42, 42, 42});
  expect_totals(r, 1, 64, (uint64_t[]){42, 42, 42, 42, 42, 42});
  expect_totals(NULL, 0, 1, (uint64_t[]){0, 0, 0, 0, 0, 0});
  texmem_plan *p = tt_plan(NULL, 0, 1, off_desc(TEXMEM_STRATEGY_EXACT, 1));
  cr_expect(texmem_plan_is_optimal(p));
  texmem_plan_destroy(p);
}

Test(offsets, unsorted_records) {
  /* 2 conflicts with 0 (task 5) and 1 (task 1); 0 and 1 can share space. */
  texmem_record r[] = {R1(5, 6, 10), R1(0, 1, 20), R1(1, 5, 30)};
  expect_totals(r, 3, 1, (uint64_t[]){50, 50, 50, 50, 50, 50});
}

Test(offsets, alignment_16_puts_the_largest_slack_on_top) {
  /* Aligned sizes 16, 32, 16 all live together: the tensor on top only
   * needs its real size, so the optimum tops with 20 (slack 12): 52. The
   * greedy order tops with 5 (slack 11): 32 + 16 + 5 = 53. */
  texmem_record r[] = {R1(0, 1, 10), R1(0, 1, 20), R1(0, 1, 5)};
  expect_totals(r, 3, 16, (uint64_t[]){53, 53, 53, 53, 52, 52});
  texmem_plan *p = tt_plan(r, 3, 1, off_desc(TEXMEM_STRATEGY_EXACT, 16));
  cr_expect(texmem_plan_is_optimal(p));
  cr_expect_eq(texmem_plan_tensor_offset(p, 1), 32);
  texmem_plan_destroy(p);
}

Test(offsets, alignment_1_16_64) {
  /* 100 (aligned 128 at 64), 30 (64), 64 (64), all live together; 7 apart. */
  texmem_record r[] = {R1(0, 2, 100), R1(0, 2, 30), R1(1, 2, 64), R1(3, 4, 7)};
  expect_totals(r, 4, 1, (uint64_t[]){194, 194, 194, 194, 194, 194});
  /* 16: aligned 112, 32, 64 (slacks 12, 2, 0). Largest first gives
   * 112 + 64 + 30 = 206; in_order and strip_best_fit end with 64 on top
   * (208); the optimum tops with 100: 32 + 64 + 100 = 196. */
  expect_totals(r, 4, 16, (uint64_t[]){208, 206, 206, 208, 196, 196});
  /* 64: aligned 128, 64, 64 (slacks 28, 34, 0): topping with 30 gives 222,
   * with 100 228, with 64 256. */
  expect_totals(r, 4, 64, (uint64_t[]){256, 222, 222, 256, 222, 222});
  for (uint64_t a = 1; a <= 64; a *= 4) {
    texmem_plan *p = tt_plan(r, 4, 1, off_desc(TEXMEM_STRATEGY_BEST, a));
    for (size_t i = 0; i < 4; i++) cr_expect_eq(texmem_plan_tensor_offset(p, i) % a, 0);
    texmem_plan_destroy(p);
  }
}

Test(offsets, sparse_huge_task_numbers) {
  const uint64_t big = 1000000000000ull;
  texmem_record r[] = {R1(0, big, 8), R1(big, UINT64_MAX, 16), R1(UINT64_MAX, UINT64_MAX, 4)};
  expect_totals(r, 3, 1, (uint64_t[]){24, 24, 24, 24, 24, 24});
}

/* ---- brute force: every order, each tensor at its lowest aligned spot ---- */

typedef struct bf {
  const texmem_record *r;
  size_t n;
  uint64_t a, best;
  uint64_t off[8];
  bool used[8];
} bf;

static bool bf_conflict(const texmem_record *r, size_t i, size_t j) {
  return r[i].first_task <= r[j].last_task && r[j].first_task <= r[i].last_task &&
         r[i].dims[0] && r[j].dims[0];
}

static uint64_t al(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* In a plan where no tensor can move down, taken in order of offset, each
 * tensor sits at the lowest spot left by those before it: trying every
 * order finds the optimum. */
static void bf_rec(bf *b, size_t depth, uint64_t top) {
  if (top >= b->best) return;
  if (depth == b->n) {
    b->best = top;
    return;
  }
  for (size_t i = 0; i < b->n; i++) {
    if (b->used[i]) continue;
    uint64_t best_o = UINT64_MAX;
    for (size_t c = 0; c <= b->n; c++) { /* c == n: offset 0 */
      if (c < b->n && (!b->used[c] || !bf_conflict(b->r, c, i))) continue;
      uint64_t o = c < b->n ? b->off[c] + al(b->r[c].dims[0], b->a) : 0;
      bool fits = true;
      for (size_t j = 0; j < b->n && fits; j++)
        if (b->used[j] && bf_conflict(b->r, j, i) && o < b->off[j] + al(b->r[j].dims[0], b->a) &&
            b->off[j] < o + al(b->r[i].dims[0], b->a))
          fits = false;
      if (fits && o < best_o) best_o = o;
    }
    b->used[i] = true;
    b->off[i] = best_o;
    uint64_t t = best_o + b->r[i].dims[0];
    bf_rec(b, depth + 1, t > top ? t : top);
    b->used[i] = false;
  }
}

static uint64_t brute_force(const texmem_record *r, size_t n, uint64_t a) {
  bf b = {.r = r, .n = n, .a = a, .best = UINT64_MAX};
  bf_rec(&b, 0, 0);
  return n ? b.best : 0;
}

Test(offsets, random_small_cases_exact_matches_brute_force) {
  uint64_t rng = 12345;
  static const uint64_t aligns[] = {1, 1, 4, 16};
  int beaten = 0;
  for (int iter = 0; iter < 300; iter++) {
    size_t n = 1 + (size_t)(tt_rand(&rng) % 7);
    uint64_t a = aligns[tt_rand(&rng) % 4];
    texmem_record r[7];
    for (size_t i = 0; i < n; i++) {
      uint64_t f = tt_rand(&rng) % 8, len = tt_rand(&rng) % 4;
      uint64_t s = tt_rand(&rng) % 10 == 0 ? 0 : 1 + tt_rand(&rng) % 40;
      r[i] = (texmem_record){i, {s, 1, 1}, f, f + len};
    }
    uint64_t opt = brute_force(r, n, a);
    texmem_plan *p = tt_plan(r, n, 1, off_desc(TEXMEM_STRATEGY_EXACT, a));
    cr_assert_eq(texmem_plan_total(p), opt, "iter %d: exact %llu, brute force %llu", iter,
                 (unsigned long long)texmem_plan_total(p), (unsigned long long)opt);
    cr_assert(texmem_plan_is_optimal(p), "iter %d", iter);
    cr_assert_eq(texmem_plan_bound(p), opt, "iter %d", iter);
    texmem_plan_destroy(p);
    for (int k = 0; k < NSTRAT; k++) {
      uint64_t t = off_total(r, n, strategies[k], a);
      cr_assert_geq(t, opt, "iter %d %s", iter, texmem_strategy_name(strategies[k]));
      if (strategies[k] == TEXMEM_STRATEGY_GREEDY_BY_SIZE && t > opt) beaten++;
    }
    cr_assert_eq(off_total(r, n, TEXMEM_STRATEGY_BEST, a), opt, "iter %d", iter);
  }
  /* The cases are not all trivial: greedy_by_size misses the optimum on some. */
  cr_expect_gt(beaten, 0);
}

/* A case where greedy_by_size is above max_live, so exact has to search. */
static size_t hard_case(texmem_record *r, size_t cap, uint64_t *rng) {
  for (;;) {
    size_t n = cap;
    for (size_t i = 0; i < n; i++) {
      uint64_t f = tt_rand(rng) % 40, len = tt_rand(rng) % 8;
      r[i] = (texmem_record){i, {1 + tt_rand(rng) % 100, 1, 1}, f, f + len};
    }
    texmem_bounds b;
    cr_assert_eq(texmem_lower_bounds(r, n, 1, &b, NULL), TEXMEM_STATUS_OK);
    if (off_total(r, n, TEXMEM_STRATEGY_GREEDY_BY_SIZE, 1) > b.max_live) return n;
  }
}

Test(offsets, exact_node_budget_one) {
  uint64_t rng = 777;
  texmem_record r[60];
  size_t n = hard_case(r, 60, &rng);
  texmem_plan_desc d = off_desc(TEXMEM_STRATEGY_EXACT, 1);
  d.exact_node_budget = 1;
  texmem_plan *p = tt_plan(r, n, 1, d);
  texmem_bounds b;
  cr_assert_eq(texmem_lower_bounds(r, n, 1, &b, NULL), TEXMEM_STATUS_OK);
  cr_expect_not(texmem_plan_is_optimal(p));
  cr_expect_leq(texmem_plan_bound(p), texmem_plan_total(p));
  cr_expect_geq(texmem_plan_bound(p), b.max_live);
  cr_expect_leq(texmem_plan_total(p), off_total(r, n, TEXMEM_STRATEGY_GREEDY_BY_SIZE, 1));
  texmem_plan_destroy(p);
  /* A tiny time budget behaves the same way: a valid plan, a sound bound. */
  d.exact_node_budget = 0;
  d.exact_time_budget_ms = 1e-6;
  p = tt_plan(r, n, 1, d);
  cr_expect_leq(texmem_plan_bound(p), texmem_plan_total(p));
  texmem_plan_destroy(p);
}

Test(offsets, exact_with_a_real_budget_improves_or_proves) {
  uint64_t rng = 4242;
  texmem_record r[14];
  for (int iter = 0; iter < 5; iter++) {
    size_t n = hard_case(r, 14, &rng);
    texmem_plan *p = tt_plan(r, n, 1, off_desc(TEXMEM_STRATEGY_EXACT, 1));
    uint64_t g = off_total(r, n, TEXMEM_STRATEGY_GREEDY_BY_SIZE, 1);
    cr_expect_leq(texmem_plan_total(p), g);
    cr_expect_leq(texmem_plan_bound(p), texmem_plan_total(p));
    if (texmem_plan_is_optimal(p)) cr_expect_eq(texmem_plan_bound(p), texmem_plan_total(p));
    texmem_plan_destroy(p);
  }
}

Test(offsets, exact_large_input_with_exhausted_budget) {
  size_t n = 100000;
  texmem_record *r = malloc(n * sizeof *r);
  cr_assert_not_null(r);
  uint64_t rng = 99;
  for (size_t i = 0; i < n; i++)
    r[i] = (texmem_record){i, {1 + tt_rand(&rng) % 1000, 1, 1}, i, i + tt_rand(&rng) % 20};
  texmem_plan_desc d = off_desc(TEXMEM_STRATEGY_EXACT, 4);
  d.exact_node_budget = 1;
  texmem_plan *p = tt_plan(r, n, 1, d);
  cr_expect_leq(texmem_plan_bound(p), texmem_plan_total(p));
  texmem_plan_destroy(p);
  free(r);
}

Test(offsets, random_medium_cases_all_valid) {
  uint64_t rng = 2024;
  static texmem_record r[400];
  for (int iter = 0; iter < 20; iter++) {
    size_t n = 50 + (size_t)(tt_rand(&rng) % 350);
    uint64_t span = 1 + tt_rand(&rng) % 300;
    for (size_t i = 0; i < n; i++) {
      uint64_t f = tt_rand(&rng) % span, len = tt_rand(&rng) % (1 + span / 4);
      r[i] = (texmem_record){i, {tt_rand(&rng) % 5000, 1, 1}, f, f + len};
    }
    texmem_bounds b;
    cr_assert_eq(texmem_lower_bounds(r, n, 1, &b, NULL), TEXMEM_STATUS_OK);
    texmem_plan_desc bd = off_desc(TEXMEM_STRATEGY_BEST, 8);
    bd.exact_time_budget_ms = 20;
    uint64_t best = tt_plan_total(r, n, 1, bd);
    for (int k = 0; k < NSTRAT; k++) {
      texmem_plan_desc d = off_desc(strategies[k], 8);
      d.exact_time_budget_ms = 20;
      uint64_t t = tt_plan_total(r, n, 1, d);
      cr_expect_geq(t, b.max_live);
      if (strategies[k] != TEXMEM_STRATEGY_EXACT && strategies[k] != TEXMEM_STRATEGY_BEST)
        cr_expect_leq(best, t, "%s", texmem_strategy_name(strategies[k]));
    }
  }
}

/* ---- the four models: TFLite's offsets greedy_by_size and max_live ---- */

typedef struct model_case {
  const char *file;
  uint64_t tflite_greedy_by_size, max_live;
} model_case;

static const model_case models[] = {
    {"selfie_segmentation.1d.txt", 1835008, 1835008},
    {"face_detection_short_range.1d.txt", 688128, 688128},
    {"hand_landmark_lite.1d.txt", 2107392, 2107392},
    {"pose_landmark_lite.1d.txt", 3481600, 3481600},
};

Test(offsets, models_reach_tflite_and_max_live) {
  for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
    texmem_records *rs = tt_load_records(models[m].file);
    const texmem_record *r = texmem_records_data(rs);
    size_t n = texmem_records_count(rs);
    texmem_bounds b;
    cr_assert_eq(texmem_lower_bounds(r, n, 1, &b, NULL), TEXMEM_STATUS_OK);
    cr_expect_eq(b.max_live, models[m].max_live, "%s", models[m].file);
    for (int k = 0; k < NSTRAT; k++) {
      texmem_plan *p = tt_plan(r, n, 1, off_desc(strategies[k], 1));
      uint64_t t = texmem_plan_total(p);
      cr_expect_geq(t, b.max_live);
      if (strategies[k] == TEXMEM_STRATEGY_GREEDY_BY_SIZE || strategies[k] == TEXMEM_STRATEGY_BEST ||
          strategies[k] == TEXMEM_STRATEGY_EXACT)
        cr_expect_leq(t, models[m].tflite_greedy_by_size, "%s %s", models[m].file,
                      texmem_strategy_name(strategies[k]));
      if (strategies[k] == TEXMEM_STRATEGY_EXACT) {
        /* TFLite's greedy already meets max_live here, so exact proves it. */
        cr_expect_eq(t, b.max_live, "%s", models[m].file);
        cr_expect(texmem_plan_is_optimal(p), "%s", models[m].file);
      }
      texmem_plan_destroy(p);
    }
    texmem_records_destroy(rs);
  }
}

/* ---- the greedy placer against its rule ---- */

typedef struct ref_key {
  uint64_t k1, k2;
  size_t id;
} ref_key;

static int cmp_ref_key(const void *pa, const void *pb) {
  const ref_key *a = pa, *b = pb;
  if (a->k1 != b->k1) return a->k1 > b->k1 ? -1 : 1;
  if (a->k2 != b->k2) return a->k2 > b->k2 ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

static int cmp_ref_off(const void *pa, const void *pb) {
  const uint64_t *a = pa, *b = pb; /* {offset, id} */
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* The placer's rule, quadratically: tensors in the strategy's order, each at
 * the start of the smallest gap (lowest on ties) between the placed
 * tensors it conflicts with, walked by offset, else on top of them. */
static void ref_place(const texmem_record *r, size_t n, uint64_t a, const uint64_t *fixed,
                      bool by_size, uint64_t *off) {
  ref_key *ord = malloc(n * sizeof *ord);
  uint64_t(*w)[2] = malloc(n * sizeof *w);
  bool *placed = calloc(n, sizeof *placed);
  cr_assert(ord && w && placed);
  for (size_t i = 0; i < n; i++) {
    ord[i] = by_size ? (ref_key){r[i].dims[0], 0, i}
                     : (ref_key){UINT64_MAX - r[i].first_task, r[i].dims[0], i};
    if (fixed && fixed[i] != TEXMEM_OFFSET_FREE) {
      off[i] = fixed[i];
      placed[i] = r[i].dims[0] > 0;
    }
  }
  qsort(ord, n, sizeof *ord, cmp_ref_key);
  for (size_t j = 0; j < n; j++) {
    size_t t = ord[j].id, k = 0;
    uint64_t need = align_up(r[t].dims[0], a), prev = 0, best = UINT64_MAX, gap_best = UINT64_MAX;
    if (fixed && fixed[t] != TEXMEM_OFFSET_FREE) continue;
    if (!need) {
      off[t] = 0;
      continue;
    }
    for (size_t u = 0; u < n; u++)
      if (placed[u] && r[u].first_task <= r[t].last_task && r[t].first_task <= r[u].last_task) {
        w[k][0] = off[u];
        w[k++][1] = u;
      }
    qsort(w, k, sizeof *w, cmp_ref_off);
    for (size_t q = 0; q < k; q++) {
      uint64_t o = w[q][0], end = o + align_up(r[w[q][1]].dims[0], a);
      if (o >= prev && o - prev >= need && o - prev < gap_best) {
        gap_best = o - prev;
        best = prev;
      }
      if (end > prev) prev = end;
    }
    off[t] = best != UINT64_MAX ? best : prev;
    placed[t] = true;
  }
  free(ord);
  free(w);
  free(placed);
}

/* Tensors that meet every placed one take a path of their own in the
 * placer (the holes of everything placed, no interval query); mixed with
 * short-lived tensors, zero sizes and fixed tensors that leave holes, the
 * offsets must be the rule's, tensor by tensor. */
Test(offsets, greedy_placer_follows_its_rule_when_tensors_overlap_everything) {
  uint64_t rng = 2026;
  static const uint64_t aligns[] = {1, 16};
  texmem_record r[160];
  uint64_t fixed[160], ref[160];
  for (int iter = 0; iter < 400; iter++) {
    size_t n = 1 + (size_t)(tt_rand(&rng) % 160);
    uint64_t a = aligns[iter % 2], span = 4 + tt_rand(&rng) % 30;
    unsigned everywhere = (unsigned)(tt_rand(&rng) % 101); /* percent spanning all tasks */
    bool any_fixed = iter % 3 == 0;
    uint64_t next_free = 0; /* fixed tensors apart in space: they may share tasks */
    for (size_t i = 0; i < n; i++) {
      uint64_t f = tt_rand(&rng) % span, len = tt_rand(&rng) % 5;
      if (tt_rand(&rng) % 100 < everywhere) f = 0, len = span;
      uint64_t s = tt_rand(&rng) % 12 == 0 ? 0 : 1 + tt_rand(&rng) % 300;
      r[i] = (texmem_record){i, {s, 1, 1}, f, f + len};
      fixed[i] = TEXMEM_OFFSET_FREE;
      if (any_fixed && tt_rand(&rng) % 8 == 0) {
        fixed[i] = align_up(next_free + tt_rand(&rng) % 200, a);
        next_free = fixed[i] + s;
      }
    }
    for (int by_size = 0; by_size < 2; by_size++) {
      texmem_plan_desc d = off_desc(by_size ? TEXMEM_STRATEGY_GREEDY_BY_SIZE
                                            : TEXMEM_STRATEGY_GREEDY_IN_ORDER, a);
      d.fixed_offsets = any_fixed ? fixed : NULL;
      texmem_plan *p = tt_plan(r, n, 1, d);
      ref_place(r, n, a, d.fixed_offsets, by_size, ref);
      for (size_t i = 0; i < n; i++)
        cr_assert_eq(texmem_plan_tensor_offset(p, i), ref[i],
                     "iter %d %s tensor %zu: offset %llu, the rule's %llu", iter,
                     by_size ? "greedy_by_size" : "greedy_in_order", i,
                     (unsigned long long)texmem_plan_tensor_offset(p, i),
                     (unsigned long long)ref[i]);
      texmem_plan_destroy(p);
    }
  }
}

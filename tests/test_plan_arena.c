/* Arena plans (offsets in rows of W-wide textures): every strategy on the
 * models' records, below the shared-objects plans and near max_live; the
 * split into several textures under a small height limit, never with a
 * tensor across two; a tensor too tall for one texture named; the row
 * width's tolerance, shared with linear objects; and the validator
 * refusing overlapping, misaligned and out-of-range arena plans. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static const char *const models[] = {"selfie_segmentation", "face_detection_short_range",
                                     "hand_landmark_lite", "pose_landmark_lite"};

static uint64_t rows_of(const texmem_record *r, uint64_t w) {
  uint64_t v = r->dims[0] * r->dims[1] * (r->dims[2] ? r->dims[2] : 1);
  return (v + w - 1) / w;
}

/* Every tensor inside its texture, base row == offset, object dims W x rows. */
static void check_layout(const texmem_record *rec, size_t n, const texmem_plan *p) {
  uint64_t w = texmem_plan_linear_width(p);
  cr_assert_gt(w, 0);
  for (size_t i = 0; i < n; i++) {
    size_t o = texmem_plan_tensor_object(p, i);
    cr_assert_lt(o, texmem_plan_object_count(p));
    uint64_t d[3];
    texmem_plan_object_dims(p, o, d);
    cr_assert_eq(d[0], w);
    cr_assert_eq(d[2], 1);
    uint64_t b = texmem_plan_tensor_base_row(p, i);
    cr_assert_eq(b, texmem_plan_tensor_offset(p, i));
    cr_assert_leq(b + rows_of(&rec[i], w), d[1], "tensor %zu straddles texture %zu", i, o);
  }
}

Test(plan_arena, models_every_strategy_below_objects_near_max_live) {
  static const texmem_strategy strategies[] = {
      TEXMEM_STRATEGY_GREEDY_IN_ORDER, TEXMEM_STRATEGY_GREEDY_BY_BREADTH,
      TEXMEM_STRATEGY_GREEDY_BY_SIZE, TEXMEM_STRATEGY_STRIP_BEST_FIT, TEXMEM_STRATEGY_EXACT,
      TEXMEM_STRATEGY_BEST};
  for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
    char name[128];
    snprintf(name, sizeof name, "%s.3d.txt", models[m]);
    texmem_records *r = tt_load_records(name);
    const texmem_record *rec = texmem_records_data(r);
    size_t n = texmem_records_count(r);
    texmem_bounds b;
    cr_assert_eq(texmem_lower_bounds(rec, n, 3, &b, NULL), TEXMEM_STATUS_OK);
    uint64_t objects = tt_plan_total(rec, n, 3,
                                     (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_BEST,
                                                        .layout = TEXMEM_LAYOUT_LINEAR,
                                                        .max_dims = {16384, 16384, 0}});
    for (size_t s = 0; s < sizeof strategies / sizeof strategies[0]; s++) {
      texmem_plan_desc d = {.kind = TEXMEM_PLAN_OFFSETS, .strategy = strategies[s],
                            .layout = TEXMEM_LAYOUT_LINEAR, .max_dims = {16384, 16384, 0}};
      texmem_plan *p = tt_plan(rec, n, 3, d);
      check_layout(rec, n, p);
      uint64_t t = texmem_plan_total(p);
      cr_assert_eq(texmem_plan_object_count(p), 1, "%s: one arena texture", name);
      cr_assert_geq(t, b.max_live, "%s: arena %llu below max_live %llu", name,
                    (unsigned long long)t, (unsigned long long)b.max_live);
      cr_assert_geq(t, texmem_plan_bound(p));
      if (strategies[s] == TEXMEM_STRATEGY_BEST || strategies[s] == TEXMEM_STRATEGY_EXACT) {
        cr_log_info("%s %s: arena %llu texels (W %llu), max_live %llu (%.4f), objects %llu, "
                    "positional_max %llu, optimal %d",
                    name, texmem_strategy_name(strategies[s]), (unsigned long long)t,
                    (unsigned long long)texmem_plan_linear_width(p),
                    (unsigned long long)b.max_live, (double)t / (double)b.max_live,
                    (unsigned long long)objects, (unsigned long long)b.positional_max,
                    texmem_plan_is_optimal(p));
        /* The arena's promise: below the shared-objects bound and plan. */
        cr_expect_lt(t, objects, "%s: arena %llu >= objects %llu", name, (unsigned long long)t,
                     (unsigned long long)objects);
        cr_expect_leq(t * 100, b.max_live * 101, "%s: arena %llu > 1.01 x max_live %llu", name,
                      (unsigned long long)t, (unsigned long long)b.max_live);
      }
      texmem_plan_destroy(p);
    }
    texmem_records_destroy(r);
  }
}

/* A chain of tensors of 3..10 rows at W = 16 (the planner's widths are
 * powers of two from 16). */
static void chain(texmem_record *r, size_t n) {
  for (size_t i = 0; i < n; i++)
    r[i] = (texmem_record){100 + i, {16, 3 + i % 8, 1}, i, i + 1 + (i % 3 == 0)};
}

Test(plan_arena, split_into_textures_under_a_small_height_limit) {
  enum { N = 24 };
  texmem_record r[N];
  chain(r, N);
  texmem_plan *one = tt_plan(r, N, 3,
                             (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS,
                                                .layout = TEXMEM_LAYOUT_LINEAR,
                                                .linear_width = 16});
  cr_assert_eq(texmem_plan_object_count(one), 1);
  uint64_t d1[3];
  texmem_plan_object_dims(one, 0, d1);
  cr_assert_gt(d1[1], 12);
  for (uint64_t limit = 10; limit <= 16; limit += 3) {
    texmem_plan_desc d = {.kind = TEXMEM_PLAN_OFFSETS, .layout = TEXMEM_LAYOUT_LINEAR,
                          .linear_width = 16, .max_dims = {16, limit, 0}};
    texmem_plan *p = tt_plan(r, N, 3, d);
    check_layout(r, N, p);
    cr_assert_gt(texmem_plan_object_count(p), 1, "limit %llu", (unsigned long long)limit);
    for (size_t o = 0; o < texmem_plan_object_count(p); o++) {
      uint64_t od[3];
      texmem_plan_object_dims(p, o, od);
      cr_assert_leq(od[1], limit);
    }
    cr_assert_geq(texmem_plan_total(p), texmem_plan_total(one));
    cr_assert_not(texmem_plan_is_optimal(p));
    texmem_plan_destroy(p);
  }
  texmem_plan_destroy(one);
  /* A tensor taller than one texture is named. */
  r[5].dims[1] = 40;
  texmem_plan_desc d = {.kind = TEXMEM_PLAN_OFFSETS, .layout = TEXMEM_LAYOUT_LINEAR,
                        .linear_width = 16, .max_dims = {16, 32, 0}};
  texmem_plan *p = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_plan_create(r, N, 3, &d, &p, &err), TEXMEM_STATUS_EXCEEDS_LIMITS);
  cr_assert_null(p);
  cr_assert(strstr(err.message, "tensor 105") && strstr(err.message, "40 rows"), "%s",
            err.message);
  /* With the planner choosing W: no width fits 16 x 40 texels in 2 rows of 16. */
  d.linear_width = 0;
  d.max_dims[1] = 2;
  cr_assert_eq(texmem_plan_create(r, N, 3, &d, &p, &err), TEXMEM_STATUS_EXCEEDS_LIMITS);
  cr_assert(strstr(err.message, "tensor 105"), "%s", err.message);
  /* Linear needs 2-D/3-D records. */
  cr_assert_eq(texmem_plan_create(r, N, 1, &d, &p, &err), TEXMEM_STATUS_UNSUPPORTED);
}

Test(plan_arena, exact_search_in_rows_with_alignment) {
  enum { N = 24 };
  texmem_record r[N];
  chain(r, N);
  texmem_plan_desc d = {.kind = TEXMEM_PLAN_OFFSETS, .strategy = TEXMEM_STRATEGY_EXACT,
                        .layout = TEXMEM_LAYOUT_LINEAR, .linear_width = 16};
  texmem_plan *p = tt_plan(r, N, 3, d);
  cr_assert(texmem_plan_is_optimal(p));
  cr_assert_eq(texmem_plan_total(p), texmem_plan_bound(p));
  texmem_plan_destroy(p);
  d.alignment = 4;
  p = tt_plan(r, N, 3, d);
  for (size_t i = 0; i < N; i++) cr_assert_eq(texmem_plan_tensor_base_row(p, i) % 4, 0);
  texmem_plan_destroy(p);
}

/* An arena plan brought through the public API: W = 16, tensors at
 * (texture obj[i], base row row[i]); k textures (0 = derived), their dims
 * given (NULL = derived from the tensors). */
static texmem_status arena_plan(const texmem_record *rec, size_t n, const size_t *obj,
                                const uint64_t *row, size_t k, const uint64_t (*dims)[3],
                                uint64_t alignment, uint64_t max_rows, texmem_plan **p,
                                texmem_error *err) {
  texmem_plan_assignment a = {.kind = TEXMEM_PLAN_OFFSETS, .layout = TEXMEM_LAYOUT_LINEAR,
                              .linear_width = 16, .object_of = obj, .offset = row,
                              .alignment = alignment, .max_dims = {0, max_rows, 0},
                              .object_count = k, .object_dims = dims};
  *p = NULL;
  return texmem_plan_from_assignment(rec, n, 3, &a, p, err);
}

static void expect_invalid(const texmem_record *rec, size_t n, const size_t *obj,
                           const uint64_t *row, size_t k, const uint64_t (*dims)[3],
                           uint64_t alignment, uint64_t max_rows, const char *want) {
  texmem_error err = {0};
  texmem_plan *p = NULL;
  cr_assert_eq(arena_plan(rec, n, obj, row, k, dims, alignment, max_rows, &p, &err),
               TEXMEM_STATUS_INVALID_PLAN, "expected '%s'", want);
  cr_assert_null(p);
  cr_assert(strstr(err.message, want), "'%s' not in: %s", want, err.message);
}

Test(plan_arena, validator_refuses_overlap_misalignment_and_out_of_range) {
  /* Tensors of 2, 3 and 1 rows; 0 and 1 live together, 2 after both. */
  const texmem_record r[] = {{0, {16, 2, 1}, 0, 1}, {1, {8, 5, 1}, 1, 2}, {2, {5, 3, 1}, 3, 4}};
  const size_t obj[] = {0, 0, 0};
  const uint64_t good_row[] = {0, 2, 0};
  const uint64_t h5[][3] = {{16, 5, 1}}, h6[][3] = {{16, 6, 1}}, w32[][3] = {{32, 5, 1}};
  texmem_plan *p = NULL;
  texmem_error err = {0};
  cr_assert_eq(arena_plan(r, 3, obj, good_row, 0, NULL, 1, 0, &p, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  cr_assert_eq(texmem_plan_total(p), 80);
  texmem_plan_destroy(p);
  /* The same texture given explicitly is the same plan. */
  cr_assert_eq(arena_plan(r, 3, obj, good_row, 1, h5, 1, 0, &p, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  cr_assert_eq(texmem_plan_total(p), 80);
  texmem_plan_destroy(p);
  /* Overlap: tensor 1 at row 1 meets tensor 0's rows [0, 2). */
  const uint64_t overlap[] = {0, 1, 0};
  expect_invalid(r, 3, obj, overlap, 0, NULL, 1, 0,
                 "overlap in arena texture 0 (rows [0,+2) and [1,+3))");
  /* Misaligned base row. */
  cr_assert_eq(arena_plan(r, 3, obj, good_row, 0, NULL, 2, 0, &p, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  texmem_plan_destroy(p);
  const uint64_t odd[] = {0, 2, 1};
  expect_invalid(r, 3, obj, odd, 0, NULL, 2, 0, "base row 1 is not a multiple of the alignment 2");
  /* Past the texture (the caller's own 5-row texture). */
  const uint64_t past[] = {0, 2, 5};
  expect_invalid(r, 3, obj, past, 1, h5, 1, 0, "rows [5, +1) pass the 5 rows of arena texture 0");
  /* Texture taller than what its tensors use (bytes would not be exact). */
  expect_invalid(r, 3, obj, good_row, 1, h6, 1, 0, "has 6 rows but its tensors end at row 5");
  /* Over the height limit. */
  expect_invalid(r, 3, obj, good_row, 0, NULL, 1, 4, "has 5 rows, over the limit 4");
  /* No such texture; wrong width. */
  const size_t missing[] = {0, 0, 3};
  expect_invalid(r, 3, missing, good_row, 1, NULL, 1, 0, "arena texture 3 does not exist");
  expect_invalid(r, 3, obj, good_row, 1, w32, 1, 0, "not 16 wide");
  /* (A total that is not the sum of the textures cannot be brought: the
   * total is derived. plan_core's totals_are_sums_of_objects asserts the
   * invariant on planned plans.) */
  /* Two textures: the same rows are fine in different ones. */
  const size_t obj2[] = {0, 1, 0};
  const uint64_t row2[] = {0, 0, 0}, h2[][3] = {{16, 2, 1}, {16, 3, 1}};
  cr_assert_eq(arena_plan(r, 3, obj2, row2, 2, h2, 1, 0, &p, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  cr_assert_eq(texmem_plan_tensor_object(p, 1), 1);
  cr_assert_eq(texmem_plan_total(p), 80);
  texmem_plan_destroy(p);
  cr_assert_eq(arena_plan(r, 3, obj2, row2, 0, NULL, 1, 0, &p, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  uint64_t d[3];
  texmem_plan_object_dims(p, 0, d);
  cr_assert_eq(d[1], 2);
  texmem_plan_object_dims(p, 1, d);
  cr_assert_eq(d[1], 3);
  texmem_plan_destroy(p);
}

/* Empty tensors (a zero dimension) still take one row, alone or not. */
Test(plan_arena, empty_tensors_take_one_row) {
  texmem_record r[3] = {{0, {0, 3, 1}, 0, 1}, {1, {0, 4, 1}, 1, 2}, {2, {0, 1, 1}, 2, 3}};
  texmem_plan_desc d = {.kind = TEXMEM_PLAN_OFFSETS, .layout = TEXMEM_LAYOUT_LINEAR,
                        .linear_width = 16};
  texmem_plan *p = tt_plan(r, 3, 3, d);
  cr_assert_eq(texmem_plan_total(p), 2 * 16); /* 0 and 1 live together */
  texmem_plan_destroy(p);
  r[1].dims[0] = 5;
  p = tt_plan(r, 3, 3, d);
  cr_assert_eq(texmem_plan_total(p), 3 * 16);
  texmem_plan_destroy(p);
  p = tt_plan(r, 0, 3, d);
  cr_assert_eq(texmem_plan_total(p), 0);
  cr_assert_eq(texmem_plan_object_count(p), 0);
  texmem_plan_destroy(p);
}

/* Found by tests/fuzz/fuzz_planner: split over several textures (height
 * limit 64 rows), BEST kept the strategy with the lowest unsplit arena
 * (1952 texels once split) while strip_best_fit's own split was 1712. BEST
 * must never be above a named strategy. */
Test(plan_arena, best_split_over_textures_never_above_a_strategy) {
  texmem_record r[] = {{0, {0, 0, 0}, 3, 6}, {1, {7, 1, 126}, 0, 0}, {2, {5, 0, 0}, 0, 2},
                       {3, {0, 0, 0}, 0, 0}, {4, {0, 0, 0}, 0, 0}, {5, {0, 0, 0}, 0, 0},
                       {6, {0, 0, 0}, 0, 0}, {7, {0, 0, 0}, 0, 0}};
  texmem_plan_desc d = {.kind = TEXMEM_PLAN_OFFSETS, .layout = TEXMEM_LAYOUT_LINEAR,
                        .max_dims = {64, 64, 64}, .alignment = 16, .linear_width = 16};
  uint64_t best = tt_plan_total(r, 8, 3, d);
  for (int s = TEXMEM_STRATEGY_BEST + 1; s < TEXMEM_STRATEGY_COUNT_; s++) {
    if (!texmem_strategy_supports((texmem_strategy)s, TEXMEM_PLAN_OFFSETS)) continue;
    d.strategy = (texmem_strategy)s;
    cr_assert_leq(best, tt_plan_total(r, 8, 3, d), "best above %s", texmem_strategy_name(d.strategy));
  }
}

/* Found by tests/fuzz/fuzz_planner: BEST's own plan fit one texture (832
 * texels) while greedy_by_breadth's, split over two, came to 816. */
Test(plan_arena, best_unsplit_never_above_a_split_strategy) {
  texmem_record r[] = {{0, {6, 0, 1}, 5, 9},   {1, {5, 5, 1}, 2, 5},    {2, {21, 21, 1}, 4, 4},
                       {3, {21, 21, 1}, 9, 11}, {4, {18, 11, 1}, 9, 10}, {5, {8, 8, 1}, 0, 2},
                       {6, {21, 21, 1}, 2, 2}};
  texmem_plan_desc d = {.kind = TEXMEM_PLAN_OFFSETS, .layout = TEXMEM_LAYOUT_LINEAR,
                        .max_dims = {64, 64, 64}, .alignment = 16, .linear_width = 16};
  uint64_t best = tt_plan_total(r, 7, 2, d);
  for (int s = TEXMEM_STRATEGY_BEST + 1; s < TEXMEM_STRATEGY_COUNT_; s++) {
    if (!texmem_strategy_supports((texmem_strategy)s, TEXMEM_PLAN_OFFSETS)) continue;
    d.strategy = (texmem_strategy)s;
    cr_assert_leq(best, tt_plan_total(r, 7, 2, d), "best above %s", texmem_strategy_name(d.strategy));
  }
}

/* The row width, one rule for linear objects and the arena: the widest
 * power of two whose plan is within 0.5% of the smallest. One tensor of
 * 16 x k texels under a width limit of 32: W = 16 fits it exactly, W = 32
 * wastes 16 texels when k is odd, 0.5% of the total from k = 200 on (the
 * tolerance is best / 200, rounded down). */
Test(plan_arena, row_width_within_half_a_percent_for_both_layouts) {
  static const struct {
    uint64_t k, w;
  } cases[] = {{101, 16}, {199, 16}, {201, 32}, {202, 32}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    texmem_record r = {7, {16, cases[c].k, 1}, 0, 0};
    for (int arena = 0; arena < 2; arena++) {
      texmem_plan_desc d = {.kind = arena ? TEXMEM_PLAN_OFFSETS : TEXMEM_PLAN_OBJECTS,
                            .strategy = TEXMEM_STRATEGY_GREEDY_BY_SIZE,
                            .layout = TEXMEM_LAYOUT_LINEAR, .max_dims = {32, 0, 0}};
      texmem_plan *p = tt_plan(&r, 1, 2, d);
      cr_assert_eq(texmem_plan_linear_width(p), cases[c].w, "%s, 16 x %llu: W %llu, not %llu",
                   arena ? "arena" : "linear objects", (unsigned long long)cases[c].k,
                   (unsigned long long)texmem_plan_linear_width(p),
                   (unsigned long long)cases[c].w);
      uint64_t texels = 16 * cases[c].k, w = cases[c].w;
      cr_assert_eq(texmem_plan_total(p), (texels + w - 1) / w * w);
      texmem_plan_destroy(p);
    }
  }
}

/* The width's cost is probed with greedy_by_size and greedy_by_breadth:
 * on face_detection_short_range's fused records by size alone is 26% over
 * max_live at every width (so the widest, 16384, won, and no strategy
 * could do better there); by breadth meets max_live from 4096 down, and
 * the best plan then does. */
Test(plan_arena, row_width_probed_by_breadth_too) {
  texmem_records *r = tt_load_records("face_detection_short_range.fused.3d.txt");
  const texmem_record *rec = texmem_records_data(r);
  size_t n = texmem_records_count(r);
  texmem_bounds b;
  cr_assert_eq(texmem_lower_bounds(rec, n, 3, &b, NULL), TEXMEM_STATUS_OK);
  texmem_plan_desc d = {.kind = TEXMEM_PLAN_OFFSETS, .strategy = TEXMEM_STRATEGY_BEST,
                        .layout = TEXMEM_LAYOUT_LINEAR, .max_dims = {16384, 16384, 0}};
  texmem_plan *p = tt_plan(rec, n, 3, d);
  check_layout(rec, n, p);
  cr_assert_eq(texmem_plan_total(p), b.max_live, "arena %llu texels (W %llu), max_live %llu",
               (unsigned long long)texmem_plan_total(p),
               (unsigned long long)texmem_plan_linear_width(p), (unsigned long long)b.max_live);
  cr_assert_leq(texmem_plan_linear_width(p), 4096);
  texmem_plan_destroy(p);
  texmem_records_destroy(r);
}

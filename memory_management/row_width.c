/* The row width W of the linear layouts, one chooser for both: linear
 * objects (each object W x rows) and the arena (offsets in rows of W-wide
 * textures). A tensor of T texels takes ceil(T / W) rows (the arena: at
 * least one).
 *
 * W is a power of two from 16 to the width limit (16384 by default) at
 * which the largest tensor fits the height limit: the widest whose cost is
 * within a tolerance of the smallest cost. Wider rows mean fewer, shorter
 * textures, fewer arena textures under a height limit, and
 * fewer row changes in a shader; narrower rows waste less of each
 * tensor's last row. The tolerance, 0.5%, is the memory given up for
 * width. Why 0.5% and not 1%: the arena is what the GPU runtime allocates,
 * and on every cached model it is within 0.5% of max_live; with 1%, 5 of
 * the 17 models that plan an arena (dims 2 and 3) take one twice as wide
 * for 0.4 to 0.8% more texels. On linear objects 0.5% gives 12 of the 21
 * models a narrower W than 1%, for 0.2 to 1.3% fewer texels.
 * test_plan_arena pins the rule at its boundary for both layouts.
 *
 * The cost of a width is its greedy_by_size plan in texels (objects: the
 * sum of object sizes; arena: the smaller arena of greedy_by_size and
 * greedy_by_breadth), or, above
 * TEXMEM__ROW_PROBE_MAX tensors, the texels of every tensor rounded up to
 * whole rows (linear time per width). Calls the greedy_by_size strategies,
 * offsets greedy_by_breadth and problem.c. */
#include "internal.h"

/* Above this many tensors a width's cost is its rows' sum. */
#define TEXMEM__ROW_PROBE_MAX 2000
#define TEXMEM__DEFAULT_MAX_WIDTH 16384u
/* The tolerance: a cost within best + best / 200 (0.5%). */
#define TEXMEM__ROW_WIDTH_TOLERANCE_DIVISOR 200

/* The greedy_by_size plan of rows, in rows. */
static texmem_status probe(const texmem__problem *rows, bool arena, uint64_t *cost,
                           texmem_error *err) {
  size_t m = rows->n ? rows->n : 1;
  texmem_status st;
  if (arena) {
    uint64_t *off = malloc(m * sizeof *off);
    if (!off) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    bool opt = false;
    uint64_t bound = 0;
    st = texmem__offsets_greedy_by_size(rows, off, &opt, &bound, err);
    if (!st) *cost = texmem__offsets_total_sat(rows, off);
    /* By size alone misjudges some widths (a fused BlazeFace: 26% over
     * max_live at every width, where by breadth meets it at most). */
    if (!st && !(st = texmem__offsets_greedy_by_breadth(rows, off, &opt, &bound, err))) {
      uint64_t c = texmem__offsets_total_sat(rows, off);
      if (c < *cost) *cost = c;
    }
    free(off);
  } else {
    size_t *of = calloc(m, sizeof *of), k = 0;
    if (!of) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    st = texmem__objects_greedy_by_size(rows, of, &k, err);
    if (!st) *cost = texmem__objects_total_sat(rows, of, k);
    free(of);
  }
  return st;
}

/* The cost of width w in rows (rows is nat at w). */
static texmem_status width_cost(const texmem__problem *rows, bool arena, uint64_t *cost,
                                texmem_error *err) {
  *cost = 0;
  if (rows->n <= TEXMEM__ROW_PROBE_MAX) return probe(rows, arena, cost, err);
  for (size_t i = 0; i < rows->n; i++) *cost = texmem__add_sat(*cost, rows->size[i]);
  return TEXMEM_STATUS_OK;
}

/* The widest of ws[0..nw) whose cost is within the tolerance of the
 * smallest; false when there is none. */
static bool pick(const uint64_t *ws, const uint64_t *costs, size_t nw, uint64_t *w) {
  uint64_t best = UINT64_MAX;
  for (size_t i = 0; i < nw; i++)
    if (costs[i] < best) best = costs[i];
  *w = 0;
  for (size_t i = 0; i < nw; i++)
    if (costs[i] <= best + best / TEXMEM__ROW_WIDTH_TOLERANCE_DIVISOR) *w = ws[i];
  return *w != 0;
}

texmem_status texmem__choose_row_width(const texmem__problem *nat, texmem__problem *rows,
                                       bool arena, const uint64_t max_dims[3], uint64_t *out,
                                       texmem_error *err) {
  uint64_t maxw = max_dims[0] ? max_dims[0] : TEXMEM__DEFAULT_MAX_WIDTH, maxh = max_dims[1];
  uint64_t maxvol = 0;
  for (size_t i = 0; i < nat->n; i++) maxvol = texmem__max_u64(maxvol, nat->size[i]);
  enum { NW = 64 };
  uint64_t ws[NW], costs[NW];
  size_t nw = 0;
  /* From the first width that holds the largest tensor in one row on, the
   * rows no longer change, nor does their plan: it is probed once. */
  bool flat = false;
  uint64_t flat_cost = 0;
  for (uint64_t w = 16; w <= maxw && nw < NW; w *= 2) {
    if (maxh && texmem__rows_of(maxvol, w, arena) > maxh) continue;
    uint64_t c = flat_cost;
    if (!flat) {
      texmem__problem_to_rows(rows, nat, w, arena);
      texmem_status st = width_cost(rows, arena, &c, err);
      if (st) return st;
    }
    if (w >= maxvol) {
      flat = true;
      flat_cost = c;
    }
    ws[nw] = w;
    costs[nw++] = texmem__mul_sat(c, w);
    if (w > UINT64_MAX / 2) break;
  }
  /* No power of two fits under the width limit: the limit itself, when
   * the largest tensor fits there (the caller checks). */
  if (!pick(ws, costs, nw, out)) *out = maxw;
  return TEXMEM_STATUS_OK;
}

/* The tensor with the most texels (for messages). */
static size_t largest(const texmem__problem *nat) {
  size_t b = 0;
  for (size_t i = 1; i < nat->n; i++)
    if (nat->size[i] > nat->size[b]) b = i;
  return b;
}

texmem_status texmem__rows_fit(const texmem_record *rec, const texmem__problem *nat, uint64_t w,
                               uint64_t maxh, bool arena, texmem_error *err) {
  if (!maxh || !nat->n) return TEXMEM_STATUS_OK;
  size_t i = largest(nat);
  uint64_t rows = texmem__rows_of(nat->size[i], w, arena);
  if (rows <= maxh) return TEXMEM_STATUS_OK;
  return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                      "%s: tensor %llu (record %zu) of %llu texels needs %llu rows of width "
                      "%llu, over the %llu rows of one texture",
                      arena ? "arena" : "linear layout", (unsigned long long)rec[i].id, i,
                      (unsigned long long)nat->size[i], (unsigned long long)rows,
                      (unsigned long long)w, (unsigned long long)maxh);
}

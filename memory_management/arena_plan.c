/* Arena plans (the GPU arena): every tensor at a base row of a W-wide
 * texture. Tensors become whole rows (ceil(texels / W)), which turns the
 * shared-objects problem into an offsets problem in rows, solved by the
 * offsets strategies (the exact search included). When the rows exceed the
 * texture height limit, the arena is split into several textures, never
 * with a tensor across two: what the strategy placed below the limit stays
 * in the first texture and the rest is planned again for the next. */
#include <string.h>

#include "internal.h"

/* BEST also lays out every strategy's own split only up to this many
 * tensors (as the row width's probes are bounded). */
#define ARENA_SPLIT_PROBE_MAX 2000

/* One arena layout: textures (each tensor's texture and base row, each
 * texture's height in rows) and what the offsets search said of the first. */
typedef struct layout {
  size_t *texture_of;
  uint64_t *base, *height; /* height: at most one texture per tensor */
  size_t n_tex;
  texmem_strategy chosen;
  bool optimal;
  uint64_t bound, total; /* bound in rows; total in texels (saturating) */
} layout;

static void layout_free(layout *L) {
  free(L->texture_of);
  free(L->base);
  free(L->height);
  memset(L, 0, sizeof *L);
}

static texmem_status layout_alloc(layout *L, size_t m, texmem_error *err) {
  memset(L, 0, sizeof *L);
  L->texture_of = calloc(m, sizeof *L->texture_of);
  L->base = calloc(m, sizeof *L->base);
  L->height = calloc(m, sizeof *L->height);
  if (L->texture_of && L->base && L->height) return TEXMEM_STATUS_OK;
  layout_free(L);
  return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
}

/* Plans the rows with strategy s, one offsets plan per texture on the
 * tensors not placed yet: what lies below the height limit stays, the rest
 * goes to the next texture. */
static texmem_status split_textures(const texmem__problem *rows, texmem_strategy s, uint64_t maxh,
                                    uint64_t w, double time_budget_ms, uint64_t bound0, layout *L,
                                    texmem_error *err) {
  size_t n = rows->n, m = n ? n : 1;
  size_t *rest = malloc(m * sizeof *rest);
  uint64_t *off = malloc(m * sizeof *off);
  texmem_status st = TEXMEM_STATUS_OK;
  if (!rest || !off) st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  size_t n_rest = n;
  for (size_t i = 0; i < n && !st; i++) rest[i] = i;
  L->n_tex = 0;
  L->chosen = s;
  L->optimal = false;
  L->bound = bound0;
  while (!st && n_rest) {
    texmem__problem sub;
    st = texmem__problem_copy(rows, rest, n_rest, &sub, err);
    if (st) break;
    texmem__offsets_result res = {.chosen = s, .bound = bound0};
    texmem_strategy_report reports[TEXMEM_STRATEGY_COUNT_] = {0}; /* not kept */
    texmem__budget bg = texmem__budget_start(time_budget_ms, reports);
    st = texmem__plan_offsets(&sub, s, off, &res, &bg, err);
    texmem__problem_free(&sub);
    if (st) break;
    if (L->n_tex == 0) {
      L->chosen = res.chosen;
      L->optimal = res.optimal;
      if (res.bound > L->bound) L->bound = res.bound;
    }
    size_t keep = 0, placed = 0, t = L->n_tex;
    L->height[t] = 0;
    for (size_t k = 0; k < n_rest; k++) {
      size_t i = rest[k];
      uint64_t end = texmem__add_sat(off[k], rows->size[i]);
      if (!maxh || end <= maxh) {
        L->texture_of[i] = t;
        L->base[i] = off[k];
        L->height[t] = texmem__max_u64(L->height[t], end);
        placed++;
      } else {
        rest[keep++] = i;
      }
    }
    if (!placed) { /* never happens with the strategies' canonical plans */
      size_t i = rest[0];
      L->texture_of[i] = t;
      L->base[i] = 0;
      L->height[t] = rows->size[i];
      memmove(rest, rest + 1, (n_rest - 1) * sizeof *rest);
      keep = n_rest - 1;
    }
    n_rest = keep;
    L->n_tex++;
  }
  L->total = 0;
  for (size_t t = 0; t < L->n_tex; t++)
    L->total = texmem__add_sat(L->total, texmem__mul_sat(w, L->height[t]));
  free(rest);
  free(off);
  return st;
}

/* Under a height limit the smallest first texture is not always the
 * smallest arena (a strategy whose plan is split can come out smaller,
 * each texture's rows starting again at 0): BEST then also lays out every
 * strategy's own split (as a named run would) and keeps in *L the smallest
 * total, so it is never above a named strategy. No plan can split when all
 * the rows, aligned, fit one texture: then BEST's smallest single texture
 * is already the smallest arena. */
static texmem_status best_split(const texmem__problem *rows, const texmem_plan_desc *d, uint64_t w,
                                uint64_t bound0, layout *L, texmem_error *err) {
  uint64_t maxh = d->max_dims[1], all_rows = 0;
  for (size_t i = 0; i < rows->n && maxh; i++)
    all_rows = texmem__add_sat(all_rows, texmem__align_up(rows->size[i], rows->alignment));
  if (d->strategy != TEXMEM_STRATEGY_BEST || !maxh || all_rows <= maxh ||
      rows->n > ARENA_SPLIT_PROBE_MAX)
    return TEXMEM_STATUS_OK;
  layout alt;
  texmem_status st = layout_alloc(&alt, rows->n ? rows->n : 1, err);
  for (unsigned i = 0; i < TEXMEM_STRATEGY_COUNT_ && !st; i++) {
    texmem_strategy c = (texmem_strategy)i;
    if (c == TEXMEM_STRATEGY_BEST || !texmem_strategy_supports(c, TEXMEM_PLAN_OFFSETS)) continue;
    texmem_error e;
    texmem_status cs = split_textures(rows, c, maxh, w, d->time_budget_ms, bound0, &alt, &e);
    if (cs == TEXMEM_STATUS_OUT_OF_MEMORY) {
      st = cs;
      if (err) *err = e;
    } else if (!cs && alt.total < L->total) {
      layout tmp = *L;
      *L = alt;
      alt = tmp;
    }
  }
  layout_free(&alt);
  return st;
}

/* The plan of layout L: one W x height texture per arena texture. */
static texmem_status layout_plan(const layout *L, size_t n, uint64_t w, texmem_plan **out,
                                 texmem_error *err) {
  texmem_plan *p = texmem__plan_alloc(n, L->n_tex);
  if (!p) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  memcpy(p->object_of, L->texture_of, n * sizeof *p->object_of);
  memcpy(p->offset, L->base, n * sizeof *p->offset);
  p->linear_width = w;
  uint64_t t = 0;
  for (size_t o = 0; o < L->n_tex; o++) {
    uint64_t v;
    p->object_dims[o][0] = w;
    p->object_dims[o][1] = L->height[o];
    p->object_dims[o][2] = 1;
    if (texmem__mul_ovf(w, L->height[o], &v) || texmem__add_ovf(t, v, &t)) {
      texmem_plan_destroy(p);
      return texmem__fail(err, TEXMEM_STATUS_OVERFLOW, "arena texture %zu: size overflows", o);
    }
    p->object_size[o] = v;
  }
  p->total = t;
  /* In texels, like the total; a single texture meeting it is optimal. */
  p->bound = texmem__mul_sat(L->bound, w);
  p->optimal = L->n_tex <= 1 && (L->optimal || t <= p->bound);
  *out = p;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__arena_plan(const texmem_record *rec, const texmem__problem *nat,
                                 const texmem_plan_desc *d, texmem_plan **out,
                                 texmem_strategy *chosen, texmem_error *err) {
  *out = NULL;
  uint64_t maxh = d->max_dims[1], w = d->linear_width;
  texmem__problem rows;
  texmem_status st = texmem__problem_copy(nat, NULL, nat->n, &rows, err);
  if (st) return st;
  if (!w) st = texmem__choose_row_width(nat, &rows, true, d->max_dims, &w, err);
  if (!st) st = texmem__rows_fit(rec, nat, w, maxh, true, err);
  if (!st) texmem__problem_to_rows(&rows, nat, w, true);
  texmem_bounds b = {0, 0};
  layout L;
  memset(&L, 0, sizeof L);
  if (!st) st = layout_alloc(&L, nat->n ? nat->n : 1, err);
  if (!st) st = texmem__bounds(&rows, &b, err);
  if (!st) st = split_textures(&rows, d->strategy, maxh, w, d->time_budget_ms, b.max_live, &L, err);
  if (!st) st = best_split(&rows, d, w, b.max_live, &L, err);
  if (!st) st = layout_plan(&L, nat->n, w, out, err);
  if (!st) *chosen = L.chosen;
  layout_free(&L);
  texmem__problem_free(&rows);
  return st;
}

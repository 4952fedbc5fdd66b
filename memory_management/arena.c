/* Arena plans (the GPU arena): every tensor at a base row of a W-wide
 * texture. Tensors become whole rows (ceil(texels / W)), which turns the
 * shared-objects problem into an offsets problem in rows, solved by the
 * offsets strategies (the exact search included). When the rows exceed the
 * texture height limit, the arena is split into several textures, never
 * with a tensor across two: what the strategy placed below the limit stays
 * in the first texture and the rest is planned again for the next. */
#include <string.h>

#include "internal.h"

#define ARENA_DEFAULT_MAX_WIDTH 16384u
/* Above this many tensors W is chosen on the rows' sum (linear time)
 * instead of a greedy_by_size arena per width. */
#define ARENA_PROBE_MAX 2000

/* Every tensor takes at least one row (an empty one still gets a texel,
 * as in the GL pool). */
static uint64_t rows_of(uint64_t texels, uint64_t w) {
  return texels ? texels / w + (texels % w != 0) : 1;
}

/* dst = the tensors idx[0..m) of src (compressed tasks kept as they are). */
static texmem_status subproblem(const texmem__problem *src, const size_t *idx, size_t m,
                                texmem__problem *dst, texmem_error *err) {
  *dst = *src;
  dst->n = m;
  size_t c = m ? m : 1;
  dst->dims = malloc(c * sizeof *dst->dims);
  dst->size = malloc(c * sizeof *dst->size);
  dst->first = malloc(c * sizeof *dst->first);
  dst->last = malloc(c * sizeof *dst->last);
  dst->span = src->span ? malloc(c * sizeof *dst->span) : NULL;
  if (!dst->dims || !dst->size || !dst->first || !dst->last || (src->span && !dst->span)) {
    texmem__problem_free(dst);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  for (size_t k = 0; k < m; k++) {
    size_t i = idx ? idx[k] : k;
    memcpy(dst->dims[k], src->dims[i], sizeof dst->dims[k]);
    dst->size[k] = src->size[i];
    dst->first[k] = src->first[i];
    dst->last[k] = src->last[i];
    if (src->span) dst->span[k] = src->span[i];
  }
  return TEXMEM_STATUS_OK;
}

/* The natural problem in rows of width w (1-D sizes). */
static void to_rows(texmem__problem *rows, const texmem__problem *nat, uint64_t w) {
  for (size_t i = 0; i < nat->n; i++) {
    rows->size[i] = rows_of(nat->size[i], w);
    rows->dims[i][0] = rows->size[i];
    rows->dims[i][1] = rows->dims[i][2] = 1;
  }
  rows->ndims = 1;
}

/* The tensor with the most texels (for EXCEEDS_LIMITS messages). */
static size_t largest(const texmem__problem *nat) {
  size_t b = 0;
  for (size_t i = 1; i < nat->n; i++)
    if (nat->size[i] > nat->size[b]) b = i;
  return b;
}

static texmem_status too_tall(const texmem_record *rec, const texmem__problem *nat, uint64_t w,
                              uint64_t maxh, texmem_error *err) {
  size_t i = largest(nat);
  return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                      "arena: tensor %llu (record %zu) of %llu texels needs %llu rows of width "
                      "%llu, over the %llu rows of one texture",
                      (unsigned long long)rec[i].id, i, (unsigned long long)nat->size[i],
                      (unsigned long long)rows_of(nat->size[i], w), (unsigned long long)w,
                      (unsigned long long)maxh);
}

/* W: a power of two (16 .. the width limit) at which every tensor fits the
 * height limit; the widest whose greedy_by_size arena (texels) is within
 * 0.5% of the smallest: wider rows waste less of a tensor's last row only
 * when the tensors are large, and shorten the texture. */
static texmem_status choose_width(const texmem_record *rec, const texmem__problem *nat,
                                  texmem__problem *rows, const texmem_plan_desc *d,
                                  uint64_t *out, texmem_error *err) {
  uint64_t maxw = d->max_dims[0] ? d->max_dims[0] : ARENA_DEFAULT_MAX_WIDTH;
  uint64_t maxh = d->max_dims[1], maxvol = nat->n ? nat->size[largest(nat)] : 0;
  uint64_t *off = malloc((nat->n ? nat->n : 1) * sizeof *off);
  if (!off) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  enum { NW = 64 };
  uint64_t ws[NW], ts[NW], best = UINT64_MAX;
  size_t nw = 0;
  texmem_status st = TEXMEM_STATUS_OK;
  /* From the first width that holds the largest tensor in one row on, the
   * rows no longer change, nor does their arena: it is probed once. */
  bool flat = false;
  uint64_t flat_t = 0;
  for (uint64_t w = 16; w <= maxw && nw < NW && !st; w *= 2) {
    if (maxh && rows_of(maxvol, w) > maxh) continue;
    to_rows(rows, nat, w);
    uint64_t t = 0;
    if (flat) {
      t = flat_t;
    } else if (nat->n <= ARENA_PROBE_MAX) {
      bool opt = false;
      uint64_t bound = 0;
      st = texmem__offsets_greedy_by_size(rows, off, &opt, &bound, err);
      t = texmem__offsets_total_sat(rows, off);
    } else {
      for (size_t i = 0; i < rows->n; i++) t = texmem__add_sat(t, rows->size[i]);
    }
    if (w >= maxvol) {
      flat = true;
      flat_t = t;
    }
    t = texmem__mul_sat(t, w);
    ws[nw] = w;
    ts[nw++] = t;
    if (t < best) best = t;
    if (w > UINT64_MAX / 2) break;
  }
  free(off);
  if (st) return st;
  uint64_t pick = 0;
  for (size_t i = 0; i < nw; i++)
    if (ts[i] <= best + best / 200) pick = ws[i];
  if (!pick) {
    if (maxh && rows_of(maxvol, maxw) > maxh) return too_tall(rec, nat, maxw, maxh, err);
    pick = maxw; /* no power of two fits under the width limit */
  }
  *out = pick;
  return TEXMEM_STATUS_OK;
}

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
    st = subproblem(rows, rest, n_rest, &sub, err);
    if (st) break;
    uint64_t total = 0, sb = bound0;
    bool opt = false;
    texmem_strategy c = s;
    st = texmem__plan_offsets(&sub, s, off, &total, &c, &opt, &sb, time_budget_ms, err);
    texmem__problem_free(&sub);
    if (st) break;
    if (L->n_tex == 0) {
      L->chosen = c;
      L->optimal = opt;
      if (sb > L->bound) L->bound = sb;
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

texmem_status texmem__arena_plan(const texmem_record *rec, const texmem__problem *nat,
                                 const texmem_plan_desc *d, texmem_plan **out,
                                 texmem_strategy *chosen, texmem_error *err) {
  *out = NULL;
  size_t n = nat->n, m = n ? n : 1;
  uint64_t maxh = d->max_dims[1], w = d->linear_width;
  texmem__problem rows;
  texmem_status st = subproblem(nat, NULL, n, &rows, err);
  if (st) return st;
  if (w) {
    if (maxh && n && rows_of(nat->size[largest(nat)], w) > maxh)
      st = too_tall(rec, nat, w, maxh, err);
  } else {
    st = choose_width(rec, nat, &rows, d, &w, err);
  }
  if (st) {
    texmem__problem_free(&rows);
    return st;
  }
  to_rows(&rows, nat, w);

  texmem_bounds b = {0, 0};
  layout L, alt;
  memset(&alt, 0, sizeof alt);
  st = layout_alloc(&L, m, err);
  if (!st) st = texmem__bounds(&rows, &b, err);
  if (!st) st = split_textures(&rows, d->strategy, maxh, w, d->time_budget_ms, b.max_live, &L, err);
  /* Under a height limit the smallest first texture is not always the
   * smallest arena (a strategy whose plan is split can come out smaller,
   * each texture's rows starting again at 0): BEST then also lays out every
   * strategy's own split (as a named run would) and keeps the smallest
   * total, so it is never above a named strategy. Bounded like
   * choose_width's probes. */
  /* No plan can split when all the rows, aligned, fit one texture: then
   * BEST's smallest single texture is already the smallest arena. */
  uint64_t all_rows = 0;
  for (size_t i = 0; i < n && maxh; i++)
    all_rows = texmem__add_sat(all_rows, texmem__align_up(rows.size[i], rows.alignment));
  if (!st && d->strategy == TEXMEM_STRATEGY_BEST && maxh && all_rows > maxh && n <= ARENA_PROBE_MAX) {
    st = layout_alloc(&alt, m, err);
    for (unsigned i = 0; i < TEXMEM_STRATEGY_COUNT_ && !st; i++) {
      texmem_strategy c = (texmem_strategy)i;
      if (c == TEXMEM_STRATEGY_BEST || !texmem_strategy_supports(c, TEXMEM_PLAN_OFFSETS)) continue;
      texmem_error e;
      texmem_status cs = split_textures(&rows, c, maxh, w, d->time_budget_ms, b.max_live, &alt, &e);
      if (cs == TEXMEM_STATUS_OUT_OF_MEMORY) {
        st = cs;
        if (err) *err = e;
      } else if (!cs && alt.total < L.total) {
        layout tmp = L;
        L = alt;
        alt = tmp;
      }
    }
  }
  layout_free(&alt);

  texmem_plan *p = NULL;
  if (!st) {
    p = calloc(1, sizeof *p);
    if (p) {
      p->object_dims = calloc(L.n_tex ? L.n_tex : 1, sizeof *p->object_dims);
      p->object_size = calloc(L.n_tex ? L.n_tex : 1, sizeof *p->object_size);
      p->object_of = L.texture_of;
      p->offset = L.base;
      L.texture_of = NULL;
      L.base = NULL;
    }
    if (!p || !p->object_dims || !p->object_size)
      st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  if (!st) {
    *chosen = L.chosen;
    p->n_tensors = n;
    p->n_objects = L.n_tex;
    p->linear_width = w;
    uint64_t t = 0;
    for (size_t o = 0; o < L.n_tex && !st; o++) {
      uint64_t v;
      p->object_dims[o][0] = w;
      p->object_dims[o][1] = L.height[o];
      p->object_dims[o][2] = 1;
      if (texmem__mul_ovf(w, L.height[o], &v) || texmem__add_ovf(t, v, &t))
        st = texmem__fail(err, TEXMEM_STATUS_OVERFLOW, "arena texture %zu: size overflows", o);
      p->object_size[o] = v;
    }
    p->total = t;
    /* In texels, like the total; a single texture meeting it is optimal. */
    p->bound = texmem__mul_sat(L.bound, w);
    p->optimal = L.n_tex <= 1 && (L.optimal || t <= p->bound);
  }
  layout_free(&L);
  texmem__problem_free(&rows);
  if (st) {
    texmem_plan_destroy(p);
    return st;
  }
  *out = p;
  return TEXMEM_STATUS_OK;
}

uint64_t texmem_plan_tensor_base_row(const texmem_plan *p, size_t t) {
  return p && t < p->n_tensors && p->kind == TEXMEM_PLAN_OFFSETS &&
                 p->layout == TEXMEM_LAYOUT_LINEAR
             ? p->offset[t]
             : 0;
}

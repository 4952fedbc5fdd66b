/* local_search shared objects: texmem's own improvement pass.
 *
 * Improves each of the greedy_by_size, greedy_by_breadth and
 * greedy_in_order results (strategies that fail are skipped; one object a
 * tensor if all do) and keeps the smallest; above LS_MULTI_MAX tensors
 * only the smallest start is improved. Each improvement repeats, up
 * to LS_ROUNDS times while the total falls:
 *  - move one tensor to the feasible object (or a new one) that lowers the
 *    total most;
 *  - swap two tensors of different objects, for tensors that alone set
 *    their object's size in some dimension (only those swaps can help);
 *  - empty an object, smallest first, by moving each of its tensors to the
 *    cheapest feasible other object, kept only if the total falls.
 * Only strict decreases are accepted, so the result is never worse than
 * the start. Object size is the volume of per-dimension maxima. Work is
 * O(starts * rounds * n * objects^2 * log n), in practice a few ms for
 * 1 000 tensors. */
#include <string.h>

#include "internal.h"

#define LS_ROUNDS 12
#define LS_MULTI_MAX 2000u /* above this, only the best start is improved */

typedef struct ls_obj {
  size_t *mem; /* sorted by first task; members never conflict */
  size_t len, cap;
  uint64_t dims[3];
  uint64_t second[3]; /* largest value below dims[k], 0 if none */
  uint32_t ntop[3];   /* members reaching dims[k] */
  uint64_t vol;
} ls_obj;

typedef struct ls {
  const texmem__problem *pb;
  ls_obj *obj;
  size_t nobj;
  size_t *of;
} ls;

static void obj_stats(ls *s, size_t o) {
  ls_obj *ob = &s->obj[o];
  for (int k = 0; k < 3; k++) {
    ob->dims[k] = 0;
    ob->second[k] = 0;
    ob->ntop[k] = 0;
  }
  for (size_t i = 0; i < ob->len; i++) {
    const uint64_t *d = s->pb->dims[ob->mem[i]];
    for (int k = 0; k < 3; k++) {
      if (d[k] > ob->dims[k]) {
        ob->second[k] = ob->dims[k];
        ob->dims[k] = d[k];
        ob->ntop[k] = 1;
      } else if (d[k] == ob->dims[k]) {
        ob->ntop[k]++;
      } else if (d[k] > ob->second[k]) {
        ob->second[k] = d[k];
      }
    }
  }
  ob->vol = ob->len ? texmem__vol_sat(ob->dims) : 0;
}

/* Dims of object o without tensor t (a member). */
static void dims_without(const ls *s, size_t o, size_t t, uint64_t out[3]) {
  const ls_obj *ob = &s->obj[o];
  for (int k = 0; k < 3; k++)
    out[k] = s->pb->dims[t][k] == ob->dims[k] && ob->ntop[k] == 1 ? ob->second[k] : ob->dims[k];
  if (ob->len == 1) out[0] = out[1] = out[2] = 0;
}

static uint64_t vol_of(const uint64_t d[3]) {
  return d[0] && d[1] && d[2] ? texmem__vol_sat(d) : 0;
}

/* Members of o intersecting t: mem[*lo .. *hi). */
static void conflicts(const ls *s, size_t o, size_t t, size_t *lo_out, size_t *hi_out) {
  const texmem__problem *pb = s->pb;
  const ls_obj *ob = &s->obj[o];
  size_t lo = 0, hi = ob->len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (pb->last[ob->mem[mid]] < pb->first[t]) lo = mid + 1; else hi = mid;
  }
  hi = lo;
  while (hi < ob->len && pb->first[ob->mem[hi]] <= pb->last[t]) hi++;
  *lo_out = lo;
  *hi_out = hi;
}

/* Whether t fits o with member ignore (SIZE_MAX: none) taken out. */
static bool fits(const ls *s, size_t o, size_t t, size_t ignore) {
  size_t lo, hi;
  conflicts(s, o, t, &lo, &hi);
  return hi == lo || (hi == lo + 1 && s->obj[o].mem[lo] == ignore);
}

static bool obj_add(ls *s, size_t o, size_t t) {
  ls_obj *ob = &s->obj[o];
  if (ob->len == ob->cap) {
    size_t nc = ob->cap ? 2 * ob->cap : 4;
    size_t *nm = realloc(ob->mem, nc * sizeof *nm);
    if (!nm) return false;
    ob->mem = nm;
    ob->cap = nc;
  }
  size_t lo, hi;
  conflicts(s, o, t, &lo, &hi);
  memmove(ob->mem + lo + 1, ob->mem + lo, (ob->len - lo) * sizeof *ob->mem);
  ob->mem[lo] = t;
  ob->len++;
  s->of[t] = o;
  obj_stats(s, o);
  return true;
}

static void obj_remove(ls *s, size_t o, size_t t) {
  ls_obj *ob = &s->obj[o];
  size_t i = 0;
  while (ob->mem[i] != t) i++;
  memmove(ob->mem + i, ob->mem + i + 1, (ob->len - i - 1) * sizeof *ob->mem);
  ob->len--;
  obj_stats(s, o);
}

/* Cost of o with t added (o may be empty). */
static uint64_t vol_with(const ls *s, size_t o, size_t t) {
  if (s->obj[o].len == 0) return s->pb->size[t];
  return texmem__merged_vol_sat(s->obj[o].dims, s->pb->dims[t]);
}

/* Empty object index for "move to a new object"; SIZE_MAX if none left. */
static size_t empty_obj(const ls *s) {
  for (size_t o = 0; o < s->nobj; o++)
    if (s->obj[o].len == 0) return o;
  return SIZE_MAX;
}

/* Best single move of each tensor; returns whether any was made. */
static texmem_status pass_moves(ls *s, bool *improved) {
  const texmem__problem *pb = s->pb;
  for (size_t t = 0; t < pb->n; t++) {
    size_t a = s->of[t], best = SIZE_MAX;
    uint64_t wo[3];
    dims_without(s, a, t, wo);
    uint64_t before_a = s->obj[a].vol, after_a = vol_of(wo);
    uint64_t best_gain = 0;
    size_t fresh = empty_obj(s);
    for (size_t b = 0; b < s->nobj; b++) {
      if (b == a || (s->obj[b].len == 0 && b != fresh)) continue;
      if (s->obj[b].len && !fits(s, b, t, SIZE_MAX)) continue;
      uint64_t before = texmem__add_sat(before_a, s->obj[b].vol);
      uint64_t after = texmem__add_sat(after_a, vol_with(s, b, t));
      if (after < before && before - after > best_gain) {
        best_gain = before - after;
        best = b;
      }
    }
    if (best != SIZE_MAX) {
      obj_remove(s, a, t);
      if (!obj_add(s, best, t)) return TEXMEM_STATUS_OUT_OF_MEMORY;
      *improved = true;
    }
  }
  return TEXMEM_STATUS_OK;
}

/* Whether t alone sets its object's size in some dimension. */
static bool critical(const ls *s, size_t t) {
  const ls_obj *ob = &s->obj[s->of[t]];
  for (int k = 0; k < 3; k++)
    if (s->pb->dims[t][k] == ob->dims[k] && ob->ntop[k] == 1 && ob->second[k] < ob->dims[k])
      return true;
  return false;
}

static texmem_status pass_swaps(ls *s, bool *improved) {
  const texmem__problem *pb = s->pb;
  for (size_t t = 0; t < pb->n; t++) {
    if (!critical(s, t)) continue;
    size_t a = s->of[t], best = SIZE_MAX;
    uint64_t best_gain = 0, wa[3];
    dims_without(s, a, t, wa);
    for (size_t u = 0; u < pb->n; u++) {
      size_t b = s->of[u];
      if (b == a || pb->size[u] == pb->size[t]) continue;
      uint64_t wb[3], na[3], nb[3];
      dims_without(s, b, u, wb);
      for (int k = 0; k < 3; k++) {
        na[k] = texmem__max_u64(wa[k], pb->dims[u][k]);
        nb[k] = texmem__max_u64(wb[k], pb->dims[t][k]);
      }
      uint64_t before = texmem__add_sat(s->obj[a].vol, s->obj[b].vol);
      uint64_t after = texmem__add_sat(vol_of(na), vol_of(nb));
      if (after >= before || before - after <= best_gain) continue;
      if (!fits(s, b, t, u) || !fits(s, a, u, t)) continue;
      best_gain = before - after;
      best = u;
    }
    if (best != SIZE_MAX) {
      size_t b = s->of[best];
      obj_remove(s, a, t);
      obj_remove(s, b, best);
      if (!obj_add(s, b, t) || !obj_add(s, a, best)) return TEXMEM_STATUS_OUT_OF_MEMORY;
      *improved = true;
    }
  }
  return TEXMEM_STATUS_OK;
}

/* Ejection chains: t moves to object b whose only member in its way, u,
 * moves on to a third object c (or a new one). Tried when t or u alone
 * sets its object's size in some dimension, since otherwise nothing
 * shrinks. */
static texmem_status pass_eject(ls *s, bool *improved) {
  const texmem__problem *pb = s->pb;
  for (size_t t = 0; t < pb->n; t++) {
    size_t a = s->of[t];
    bool tc = critical(s, t);
    uint64_t wa[3];
    dims_without(s, a, t, wa);
    uint64_t va = vol_of(wa);
    size_t bb = SIZE_MAX, bu = SIZE_MAX, bc = SIZE_MAX;
    uint64_t best_gain = 0;
    size_t fresh = empty_obj(s);
    for (size_t b = 0; b < s->nobj; b++) {
      if (b == a || s->obj[b].len < 2) continue;
      size_t lo, hi;
      conflicts(s, b, t, &lo, &hi);
      if (hi != lo + 1) continue;
      size_t u = s->obj[b].mem[lo];
      if (!tc && !critical(s, u)) continue;
      uint64_t wb[3], nb[3];
      dims_without(s, b, u, wb);
      for (int k = 0; k < 3; k++) nb[k] = texmem__max_u64(wb[k], pb->dims[t][k]);
      uint64_t base_before = texmem__add_sat(s->obj[a].vol, s->obj[b].vol);
      uint64_t base_after = texmem__add_sat(va, vol_of(nb));
      for (size_t c = 0; c < s->nobj; c++) {
        if (c == a || c == b || (s->obj[c].len == 0 && c != fresh)) continue;
        uint64_t before = texmem__add_sat(base_before, s->obj[c].vol);
        uint64_t after = texmem__add_sat(base_after, vol_with(s, c, u));
        if (after >= before || before - after <= best_gain) continue;
        if (s->obj[c].len && !fits(s, c, u, SIZE_MAX)) continue;
        best_gain = before - after;
        bb = b;
        bu = u;
        bc = c;
      }
    }
    if (bb != SIZE_MAX) {
      obj_remove(s, bb, bu);
      if (!obj_add(s, bc, bu)) return TEXMEM_STATUS_OUT_OF_MEMORY;
      obj_remove(s, a, t);
      if (!obj_add(s, bb, t)) return TEXMEM_STATUS_OUT_OF_MEMORY;
      *improved = true;
    }
  }
  return TEXMEM_STATUS_OK;
}

/* Tries to empty each object, smallest first, into the others. */
static texmem_status pass_empty(ls *s, size_t *buf, size_t *where, bool *improved) {
  for (size_t round = 0; round < s->nobj; round++) {
    /* smallest non-empty object not tried in this pass: by volume, then id */
    size_t a = SIZE_MAX;
    for (size_t o = 0; o < s->nobj; o++) {
      if (s->obj[o].len == 0 || where[o] == 1) continue;
      if (a == SIZE_MAX || s->obj[o].vol < s->obj[a].vol) a = o;
    }
    if (a == SIZE_MAX) break;
    where[a] = 1;
    size_t m = s->obj[a].len;
    memcpy(buf, s->obj[a].mem, m * sizeof *buf);
    uint64_t before = 0;
    for (size_t o = 0; o < s->nobj; o++) before = texmem__add_sat(before, s->obj[o].vol);
    size_t done = 0;
    bool ok = true;
    for (; done < m && ok; done++) {
      size_t t = buf[done], best = SIZE_MAX;
      uint64_t best_cost = UINT64_MAX;
      for (size_t b = 0; b < s->nobj; b++) {
        if (b == a || s->obj[b].len == 0 || !fits(s, b, t, SIZE_MAX)) continue;
        uint64_t c = vol_with(s, b, t) - s->obj[b].vol;
        if (c < best_cost) {
          best_cost = c;
          best = b;
        }
      }
      if (best == SIZE_MAX) {
        ok = false;
        break;
      }
      obj_remove(s, a, t);
      if (!obj_add(s, best, t)) return TEXMEM_STATUS_OUT_OF_MEMORY;
    }
    uint64_t after = 0;
    for (size_t o = 0; o < s->nobj; o++) after = texmem__add_sat(after, s->obj[o].vol);
    if (ok && after < before) {
      *improved = true;
      continue;
    }
    /* roll back: the first `done` tensors return to a */
    for (size_t i = 0; i < done; i++) {
      size_t t = buf[i];
      obj_remove(s, s->of[t], t);
      if (!obj_add(s, a, t)) return TEXMEM_STATUS_OUT_OF_MEMORY;
    }
  }
  for (size_t o = 0; o < s->nobj; o++) where[o] = 0;
  return TEXMEM_STATUS_OK;
}

/* Loads an assignment (k objects) and improves it; s->of holds the result. */
static texmem_status improve(ls *s, const size_t *start, size_t k, size_t *buf, size_t *where) {
  size_t n = s->pb->n;
  for (size_t o = 0; o <= n; o++) s->obj[o].len = 0;
  /* n + 1 slots: at most n objects plus one spare empty. */
  s->nobj = k < n ? k + 1 : n;
  for (size_t t = 0; t < n; t++)
    if (!obj_add(s, start[t], t)) return TEXMEM_STATUS_OUT_OF_MEMORY;
  for (size_t o = 0; o <= n; o++) obj_stats(s, o);
  texmem_status st = TEXMEM_STATUS_OK;
  for (int round = 0; round < LS_ROUNDS && !st; round++) {
    bool improved = false;
    st = pass_moves(s, &improved);
    if (!st) st = pass_swaps(s, &improved);
    if (!st) st = pass_eject(s, &improved);
    if (!st) st = pass_empty(s, buf, where, &improved);
    if (!improved) break;
    /* keep one empty object available for moves to a new object */
    if (empty_obj(s) == SIZE_MAX && s->nobj <= n) s->nobj++;
  }
  return st;
}

texmem_status texmem__objects_local_search(const texmem__problem *pb, size_t *object_of,
                                           size_t *n_objects, texmem_error *err) {
  static const texmem__objects_fn starts[] = {texmem__objects_greedy_by_size,
                                              texmem__objects_greedy_by_breadth,
                                              texmem__objects_greedy_in_order};
  size_t n = pb->n;
  *n_objects = 0;
  if (n == 0) return TEXMEM_STATUS_OK;
  size_t *cand = malloc(n * sizeof *cand), *buf = malloc(n * sizeof *buf);
  size_t *work = malloc(n * sizeof *work);
  size_t *where = calloc(n + 1, sizeof *where);
  ls s = {pb, calloc(n + 1, sizeof(ls_obj)), 0, work};
  texmem_status st = TEXMEM_STATUS_OK;
  if (!cand || !buf || !work || !where || !s.obj) {
    st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "local_search: out of memory for %zu tensors", n);
    goto done;
  }
  /* Every greedy start is improved; the smallest result wins, so it is
   * never worse than the best start. */
  uint64_t best = UINT64_MAX, best_start = UINT64_MAX;
  bool have = false; /* a total may saturate at UINT64_MAX and still be the result */
  size_t tried = 0, nstarts = sizeof starts / sizeof *starts;
  bool multi = n <= LS_MULTI_MAX;
  /* pass 0: (large inputs) find the best start; pass 1: improve */
  for (int pass = multi ? 1 : 0; pass < 2; pass++) {
    for (size_t i = 0; i <= nstarts; i++) {
      size_t k = 0;
      if (i < nstarts) {
        texmem_error e;
        texmem_status r = starts[i](pb, cand, &k, &e);
        if (r == TEXMEM_STATUS_OUT_OF_MEMORY) {
          st = texmem__fail(err, r, "local_search: %s", e.message);
          goto done;
        }
        bool valid = r == TEXMEM_STATUS_OK && k <= n;
        for (size_t t = 0; valid && t < n; t++) valid = cand[t] < k;
        if (!valid) continue;
      } else if (tried || best_start != UINT64_MAX) {
        break;
      } else { /* no start: one object a tensor */
        for (size_t t = 0; t < n; t++) cand[t] = t;
        k = n;
      }
      uint64_t start_total = texmem__objects_total_sat(pb, cand, k);
      if (pass == 0) {
        if (start_total < best_start) best_start = start_total;
        continue;
      }
      if (!multi && start_total != best_start && best_start != UINT64_MAX) continue;
      tried++;
      st = improve(&s, cand, k, buf, where);
      if (st) {
        st = texmem__fail(err, st, "local_search: out of memory");
        goto done;
      }
      uint64_t tot = 0;
      for (size_t o = 0; o < s.nobj; o++) tot = texmem__add_sat(tot, s.obj[o].vol);
      if (!have || tot < best) { /* renumber non-empty objects densely */
        best = tot;
        have = true;
        size_t kk = 0;
        for (size_t o = 0; o < s.nobj; o++) where[o] = s.obj[o].len ? kk++ : SIZE_MAX;
        for (size_t t = 0; t < n; t++) object_of[t] = where[work[t]];
        for (size_t o = 0; o < s.nobj; o++) where[o] = 0;
        *n_objects = kk;
      }
      if (!multi) break;
    }
  }
done:
  if (s.obj)
    for (size_t o = 0; o <= n; o++) free(s.obj[o].mem);
  free(s.obj);
  free(cand);
  free(buf);
  free(work);
  free(where);
  return st;
}

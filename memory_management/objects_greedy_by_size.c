/* greedy_by_size shared objects (Pisarchyk & Lee 2020; TFLite's
 * GreedyBySizeDistPriorityAssignment).
 *
 * 1-D: every tensor gets a position: the last index k of the positional
 * maxima (k-th largest live size, maximised over tasks) with
 * pm[k] >= size. Tensors are taken by position, then by distance priority
 * (smallest positive gap, in tasks, to a tensor already in an object that
 * holds no conflicting tensor), then larger size, then record order. Each
 * goes to the object giving that gap, or to a new object when none can
 * take it. Position depends only on size, so groups of equal position are
 * handled one after the other and distances are kept only for the current
 * group. Ties between objects at the same gap go to the object that reached
 * the gap first (TFLite keeps the earlier one too).
 *
 * 2-D/3-D (objects sized by per-dimension maxima): tensors by volume,
 * descending, stable; each goes to the feasible object needing no growth,
 * else the least growth (merged volume - object volume), ties by gap and
 * object order; a new object when the growth exceeds the tensor's volume.
 *
 * Gaps use the compressed task indices of the problem. */
#include <string.h>

#include "internal.h"

#define GAP_NONE UINT32_MAX

/* Objects: members in a member set (member_set.c: sorted runs, so objects
 * of 10^5+ tensors insert in O(log n), not O(n)). */
typedef struct gbs_obj {
  texmem__mset mem;
  uint64_t dims[3];
} gbs_obj;

typedef struct gbs_state {
  const texmem__problem *pb;
  gbs_obj *obj;
  size_t nobj;
  size_t *step; /* assignment step of each tensor */
  size_t nassigned;
  uint32_t max_first, min_last; /* over assigned tensors */
} gbs_state;

/* Whether t's interval meets every assigned tensor's: then no object can
 * take it, found in O(1) (records that all overlap would otherwise cost a
 * scan of every object per tensor). */
static bool meets_all(const gbs_state *s, size_t t) {
  return s->nassigned && s->max_first <= s->pb->last[t] && s->min_last >= s->pb->first[t];
}

/* Gap from tensor t to object o (GAP_NONE if a member conflicts with t)
 * and the step at which the nearest member was assigned. */
static uint32_t obj_gap(const gbs_state *s, size_t o, size_t t, size_t *when) {
  const texmem__problem *pb = s->pb;
  const gbs_obj *ob = &s->obj[o];
  uint32_t f = pb->first[t], l = pb->last[t];
  uint32_t best = GAP_NONE;
  size_t w = SIZE_MAX;
  size_t m = texmem__mset_after(&ob->mem, f); /* first ending at/after f */
  if (m != SIZE_MAX) {
    if (pb->first[m] <= l) return GAP_NONE;
    best = pb->first[m] - l;
    w = s->step[m];
  }
  m = texmem__mset_before(&ob->mem, f); /* last ending before f */
  if (m != SIZE_MAX) {
    uint32_t g = f - pb->last[m];
    if (g < best || (g == best && s->step[m] < w)) {
      best = g;
      w = s->step[m];
    }
  }
  *when = w;
  return best;
}

static bool obj_insert(gbs_state *s, size_t o, size_t t) {
  gbs_obj *ob = &s->obj[o];
  if (!texmem__mset_insert(&ob->mem, s->pb->first, s->pb->last, t)) return false;
  for (int k = 0; k < 3; k++) ob->dims[k] = texmem__max_u64(ob->dims[k], s->pb->dims[t][k]);
  return true;
}

/* Gap between two tensors' intervals; GAP_NONE when they intersect. */
static uint32_t tensor_gap(const texmem__problem *pb, size_t a, size_t b) {
  if (pb->last[a] < pb->first[b]) return pb->first[b] - pb->last[a];
  if (pb->last[b] < pb->first[a]) return pb->first[a] - pb->last[b];
  return GAP_NONE;
}

typedef struct gbs_pri {
  uint32_t dist;
  size_t obj, when;
} gbs_pri;

static void recalc(const gbs_state *s, size_t t, gbs_pri *p) {
  p->dist = GAP_NONE;
  p->obj = SIZE_MAX;
  p->when = SIZE_MAX;
  size_t nobj = meets_all(s, t) ? 0 : s->nobj;
  for (size_t o = 0; o < nobj; o++) {
    size_t w;
    uint32_t g = obj_gap(s, o, t, &w);
    if (g < p->dist || (g == p->dist && g != GAP_NONE && w < p->when)) {
      p->dist = g;
      p->obj = o;
      p->when = w;
    }
  }
}

/* Positional maxima: pm[k] = max over tasks of the k-th largest live size.
 * Tensors by size descending into a range-add/max segment tree over tasks;
 * whenever the largest live count reaches c, pm[c-1] is the current size. */
static size_t positional_maxima(const texmem__problem *pb, const size_t *by_size,
                                uint64_t *pm, uint32_t *tree_add, uint32_t *tree_max) {
  size_t nt = pb->ntasks, sz = 1, npm = 0;
  while (sz < nt) sz *= 2;
  memset(tree_add, 0, 2 * sz * sizeof *tree_add);
  memset(tree_max, 0, 2 * sz * sizeof *tree_max);
  for (size_t r = 0; r < pb->n; r++) {
    size_t t = by_size[r];
    /* iterative range add on [first, last] over leaves sz..2sz-1 */
    size_t lo = pb->first[t] + sz, hi = pb->last[t] + sz + 1;
    size_t l0 = lo, h0 = hi - 1;
    for (; lo < hi; lo >>= 1, hi >>= 1) {
      if (lo & 1) { tree_add[lo]++; tree_max[lo]++; lo++; }
      if (hi & 1) { --hi; tree_add[hi]++; tree_max[hi]++; }
    }
    for (size_t v = l0 >> 1; v >= 1; v >>= 1) {
      uint32_t m = tree_max[2 * v] > tree_max[2 * v + 1] ? tree_max[2 * v] : tree_max[2 * v + 1];
      tree_max[v] = m + tree_add[v];
    }
    for (size_t v = h0 >> 1; v >= 1; v >>= 1) {
      uint32_t m = tree_max[2 * v] > tree_max[2 * v + 1] ? tree_max[2 * v] : tree_max[2 * v + 1];
      tree_max[v] = m + tree_add[v];
    }
    uint32_t top = tree_max[1];
    while (npm < top) pm[npm++] = pb->size[t];
  }
  return npm;
}

static int cmp_size_desc(const void *a, const void *b, const uint64_t *key) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  if (key[x] != key[y]) return key[x] > key[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* Stable sort of indices by key descending (merge sort, no qsort_r). */
static void sort_desc(size_t *idx, size_t *tmp, size_t n, const uint64_t *key) {
  if (n < 2) return;
  size_t h = n / 2;
  sort_desc(idx, tmp, h, key);
  sort_desc(idx + h, tmp, n - h, key);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = cmp_size_desc(&idx[j], &idx[i], key) < 0 ? idx[j++] : idx[i++];
  while (i < h) tmp[k++] = idx[i++];
  while (j < n) tmp[k++] = idx[j++];
  memcpy(idx, tmp, n * sizeof *idx);
}

static texmem_status assign(gbs_state *s, size_t t, size_t o, size_t *object_of,
                            size_t *stepc, texmem_error *err) {
  if (o == SIZE_MAX) o = s->nobj++;
  if (!obj_insert(s, o, t))
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "greedy_by_size: out of memory");
  object_of[t] = o;
  s->step[t] = (*stepc)++;
  if (!s->nassigned++ || s->pb->first[t] > s->max_first) s->max_first = s->pb->first[t];
  if (s->nassigned == 1 || s->pb->last[t] < s->min_last) s->min_last = s->pb->last[t];
  return TEXMEM_STATUS_OK;
}

/* A candidate pair for the group's selection: member u at gap from source
 * tensor src (already in an object), either scanned by a cursor of src
 * (side 0: members after src by first task, side 1: members before src by
 * last task) or, for sources in objects older than the group, u's best
 * found by recalc (side 2). */
typedef struct gbs_cand {
  uint32_t gap;
  uint8_t side;
  size_t u, when, src, cur;
} gbs_cand;

typedef struct gbs_group {
  size_t *grp, *loc, *byF, *byL, *posF, *posL, *nxtF, *nxtL, *stmp;
  uint64_t *key;
  bool *done;
  gbs_cand *heap;
  size_t g, nheap, cap;
} gbs_group;

/* Selection order: smaller gap, then larger size, then record order, then
 * the object that reached the gap first. */
static bool cand_before(const texmem__problem *pb, const gbs_cand *a, const gbs_cand *b) {
  if (a->gap != b->gap) return a->gap < b->gap;
  if (pb->size[a->u] != pb->size[b->u]) return pb->size[a->u] > pb->size[b->u];
  if (a->u != b->u) return a->u < b->u;
  return a->when < b->when;
}

static void heap_push(const texmem__problem *pb, gbs_group *w, gbs_cand c) {
  if (w->nheap == w->cap) return; /* cannot happen: at most 3 live entries a member */
  size_t i = w->nheap++;
  while (i > 0 && cand_before(pb, &c, &w->heap[(i - 1) / 2])) {
    w->heap[i] = w->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  w->heap[i] = c;
}

static gbs_cand heap_pop(const texmem__problem *pb, gbs_group *w) {
  gbs_cand top = w->heap[0], c = w->heap[--w->nheap];
  size_t i = 0, n = w->nheap;
  for (;;) {
    size_t l = 2 * i + 1, m = i;
    const gbs_cand *best = &c;
    if (l < n && cand_before(pb, &w->heap[l], best)) { m = l; best = &w->heap[l]; }
    if (l + 1 < n && cand_before(pb, &w->heap[l + 1], best)) m = l + 1;
    if (m == i) break;
    w->heap[i] = w->heap[m];
    i = m;
  }
  if (n) w->heap[i] = c;
  return top;
}

/* First not-done position at or after p in an order (union-find skip). */
static size_t next_open(size_t *nxt, size_t p) {
  size_t r = p;
  while (nxt[r] != r) r = nxt[r];
  while (nxt[p] != r) {
    size_t q = nxt[p];
    nxt[p] = r;
    p = q;
  }
  return r;
}

/* Pushes the next valid pair of a cursor of src starting at position p, or
 * nothing when the cursor runs out of members that src can be nearest to
 * (past src's neighbour in its object). */
static void cursor_push(gbs_state *s, gbs_group *w, size_t *object_of, size_t src, int side,
                        size_t p) {
  const texmem__problem *pb = s->pb;
  const gbs_obj *ob = &s->obj[object_of[src]];
  /* src's neighbours in its object: the cursor stops at them */
  size_t next = texmem__mset_after(&ob->mem, pb->last[src] + 1);
  size_t prev = texmem__mset_before(&ob->mem, pb->first[src]);
  for (;;) {
    p = next_open(side == 0 ? w->nxtF : w->nxtL, p);
    if (p >= w->g) return;
    size_t li = side == 0 ? w->byF[p] : w->byL[p], u = w->grp[li], when;
    if (side == 0 && next != SIZE_MAX && pb->first[u] >= pb->first[next]) return;
    if (side == 1 && prev != SIZE_MAX && pb->last[u] <= pb->last[prev]) return;
    if (obj_gap(s, object_of[src], u, &when) != GAP_NONE) {
      gbs_cand c = {tensor_gap(pb, src, u), (uint8_t)side, u, s->step[src], src, p};
      heap_push(pb, w, c);
      return;
    }
    p++;
  }
}

/* Starts both cursors of a tensor just placed in an object. */
static void source_add(gbs_state *s, gbs_group *w, size_t *object_of, size_t t) {
  const texmem__problem *pb = s->pb;
  size_t lo = 0, hi = w->g;
  while (lo < hi) { /* first member by first task with first > last_t */
    size_t mid = lo + (hi - lo) / 2;
    if (pb->first[w->grp[w->byF[mid]]] <= pb->last[t]) lo = mid + 1; else hi = mid;
  }
  cursor_push(s, w, object_of, t, 0, lo);
  lo = 0, hi = w->g;
  while (lo < hi) { /* first member by last task, descending, with last < first_t */
    size_t mid = lo + (hi - lo) / 2;
    if (pb->last[w->grp[w->byL[mid]]] >= pb->first[t]) lo = mid + 1; else hi = mid;
  }
  cursor_push(s, w, object_of, t, 1, lo);
}

static void static_push(gbs_state *s, gbs_group *w, gbs_pri *pri, size_t u) {
  recalc(s, u, &pri[u]);
  if (pri[u].dist == GAP_NONE) return;
  gbs_cand c = {pri[u].dist, 2, u, pri[u].when, pri[u].obj, 0};
  heap_push(s->pb, w, c);
}

/* Sorts local ids by key descending, ties by size descending then record
 * order (merge sort on a composite key). */
static void sort_members(gbs_group *w, const texmem__problem *pb, size_t *ids, bool by_last) {
  size_t g = w->g;
  for (size_t i = 0; i < g; i++) ids[i] = i;
  /* grp is already by size desc then record order, so a stable sort on the
   * task key keeps that tie order. */
  for (size_t i = 0; i < g; i++)
    w->key[i] = by_last ? pb->last[w->grp[i]] : (uint64_t)UINT32_MAX - pb->first[w->grp[i]];
  sort_desc(ids, w->stmp, g, w->key);
}

/* One position group in TFLite's order: repeatedly the member of smallest
 * gap to a feasible object (then larger size, record order) joins the
 * object that reached that gap first; a new object when none is feasible.
 * Candidate pairs come from cursors of the group's placed members, each
 * limited to the members it can be nearest to in its object, and from one
 * recalculated best per member for objects older than the group. */
static texmem_status run_group(gbs_state *s, gbs_group *w, gbs_pri *pri, size_t *object_of,
                               size_t *stepc, texmem_error *err) {
  const texmem__problem *pb = s->pb;
  size_t g = w->g, nextnew = 0;
  sort_members(w, pb, w->byF, false);
  sort_members(w, pb, w->byL, true);
  for (size_t i = 0; i <= g; i++) {
    w->nxtF[i] = w->nxtL[i] = i;
    w->done[i] = false;
  }
  for (size_t i = 0; i < g; i++) {
    w->loc[w->grp[i]] = i;
    w->posF[w->byF[i]] = i;
    w->posL[w->byL[i]] = i;
  }
  w->nheap = 0;
  for (size_t i = 0; i < g; i++) static_push(s, w, pri, w->grp[i]);
  for (size_t left = g; left > 0; left--) {
    size_t t = SIZE_MAX, o = SIZE_MAX;
    gbs_cand c = {0};
    while (w->nheap && t == SIZE_MAX) {
      c = heap_pop(pb, w);
      size_t when;
      bool open = !w->done[w->loc[c.u]];
      if (c.side == 2) {
        if (!open) continue;
        if (obj_gap(s, c.src, c.u, &when) == GAP_NONE) {
          static_push(s, w, pri, c.u);
          continue;
        }
        t = c.u;
        o = c.src;
      } else if (open && obj_gap(s, object_of[c.src], c.u, &when) != GAP_NONE) {
        t = c.u;
        o = object_of[c.src];
      } else {
        cursor_push(s, w, object_of, c.src, c.side, c.cur + open);
      }
    }
    if (t == SIZE_MAX) { /* nothing feasible: largest open member, new object */
      while (w->done[nextnew]) nextnew++;
      t = w->grp[nextnew];
    }
    texmem_status st = assign(s, t, o, object_of, stepc, err);
    if (st) return st;
    size_t li = w->loc[t];
    w->done[li] = true;
    w->nxtF[w->posF[li]] = w->posF[li] + 1;
    w->nxtL[w->posL[li]] = w->posL[li] + 1;
    if (c.side != 2 && c.u == t) cursor_push(s, w, object_of, c.src, c.side, c.cur);
    source_add(s, w, object_of, t);
  }
  return TEXMEM_STATUS_OK;
}

static texmem_status plan_1d(gbs_state *s, size_t *order, size_t *tmp,
                             size_t *object_of, texmem_error *err) {
  const texmem__problem *pb = s->pb;
  size_t n = pb->n, sz = 1, stepc = 0;
  while (sz < pb->ntasks) sz *= 2;
  uint64_t *pm = malloc(n * sizeof *pm);
  uint32_t *ta = malloc(2 * sz * sizeof *ta), *tm = malloc(2 * sz * sizeof *tm);
  size_t *pos = malloc(n * sizeof *pos);
  gbs_pri *pri = malloc(n * sizeof *pri);
  gbs_group w = {.grp = tmp};
  w.loc = malloc(n * sizeof(size_t));
  w.byF = malloc(n * sizeof(size_t));
  w.byL = malloc(n * sizeof(size_t));
  w.posF = malloc(n * sizeof(size_t));
  w.posL = malloc(n * sizeof(size_t));
  w.nxtF = malloc((n + 1) * sizeof(size_t));
  w.nxtL = malloc((n + 1) * sizeof(size_t));
  w.stmp = malloc(n * sizeof(size_t));
  w.key = malloc(n * sizeof(uint64_t));
  w.done = malloc((n + 1) * sizeof(bool));
  w.cap = 3 * n + 8;
  w.heap = malloc(w.cap * sizeof(gbs_cand));
  texmem_status st = TEXMEM_STATUS_OK;
  if (!pm || !ta || !tm || !pos || !pri || !w.loc || !w.byF || !w.byL || !w.posF || !w.posL ||
      !w.nxtF || !w.nxtL || !w.stmp || !w.key || !w.done || !w.heap) {
    st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "greedy_by_size: out of memory");
    goto done;
  }
  size_t npm = positional_maxima(pb, order, pm, ta, tm);
  for (size_t i = 0; i < n; i++) {
    size_t lo = 0, hi = npm; /* count of pm >= size (pm is non-increasing) */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (pm[mid] >= pb->size[i]) lo = mid + 1; else hi = mid;
    }
    pos[i] = lo ? lo - 1 : 0;
  }
  /* order is by size desc, stable; positions are non-decreasing along it,
   * so the tensors of one position are contiguous. */
  for (size_t g0 = 0; g0 < n && !st;) {
    size_t g1 = g0;
    while (g1 < n && pos[order[g1]] == pos[order[g0]]) g1++;
    for (size_t i = g0; i < g1; i++) tmp[i - g0] = order[i];
    w.g = g1 - g0;
    st = run_group(s, &w, pri, object_of, &stepc, err);
    g0 = g1;
  }
done:
  free(pm); free(ta); free(tm); free(pos); free(pri);
  free(w.loc); free(w.byF); free(w.byL); free(w.posF); free(w.posL); free(w.nxtF);
  free(w.nxtL); free(w.stmp); free(w.key); free(w.done); free(w.heap);
  return st;
}

static texmem_status plan_tex(gbs_state *s, const size_t *order, size_t *object_of,
                              texmem_error *err) {
  const texmem__problem *pb = s->pb;
  size_t stepc = 0;
  for (size_t r = 0; r < pb->n; r++) {
    size_t t = order[r], best = SIZE_MAX, bw = SIZE_MAX;
    uint64_t bgrow = UINT64_MAX;
    uint32_t bdist = GAP_NONE;
    size_t nobj = meets_all(s, t) ? 0 : s->nobj;
    for (size_t o = 0; o < nobj; o++) {
      size_t w;
      uint32_t g = obj_gap(s, o, t, &w);
      if (g == GAP_NONE) continue;
      uint64_t ov = texmem__vol_sat(s->obj[o].dims);
      uint64_t grow = texmem__merged_vol_sat(s->obj[o].dims, pb->dims[t]) - ov;
      if (grow < bgrow || (grow == bgrow && (g < bdist || (g == bdist && w < bw)))) {
        best = o;
        bgrow = grow;
        bdist = g;
        bw = w;
      }
    }
    if (best != SIZE_MAX && bgrow > pb->size[t]) best = SIZE_MAX;
    texmem_status st = assign(s, t, best, object_of, &stepc, err);
    if (st) return st;
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__objects_greedy_by_size(const texmem__problem *pb, size_t *object_of,
                                             size_t *n_objects, texmem_error *err) {
  size_t n = pb->n;
  *n_objects = 0;
  if (n == 0) return TEXMEM_STATUS_OK;
  gbs_state s = {pb, calloc(n, sizeof(gbs_obj)), 0, malloc(n * sizeof(size_t)), 0, 0, 0};
  size_t *order = malloc(n * sizeof *order), *tmp = malloc(n * sizeof *tmp);
  texmem_status st = TEXMEM_STATUS_OK;
  if (!s.obj || !s.step || !order || !tmp) {
    st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "greedy_by_size: out of memory for %zu tensors", n);
  } else {
    for (size_t i = 0; i < n; i++) order[i] = i;
    sort_desc(order, tmp, n, pb->size);
    st = pb->ndims == 1 ? plan_1d(&s, order, tmp, object_of, err)
                        : plan_tex(&s, order, object_of, err);
  }
  if (!st) *n_objects = s.nobj;
  if (s.obj)
    for (size_t o = 0; o < n; o++) texmem__mset_free(&s.obj[o].mem);
  free(s.obj);
  free(s.step);
  free(order);
  free(tmp);
  return st;
}

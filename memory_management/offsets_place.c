/* Best-fit gap placer shared by the greedy offsets strategies.
 *
 * Placed tensors are filed in blocks of B consecutive tasks (B about the
 * mean interval length, so each tensor sits in a few blocks and the blocks
 * stay short); a query scans the blocks its interval touches and reports
 * each intersecting tensor once, from the block holding the first task they
 * share. The k conflicting tensors are then walked in offset order: sorted
 * directly when k is small, or by filtering an offset-sorted list of all
 * placed tensors when k is large.
 *
 * A tensor whose interval meets every placed tensor's (the placed tensors'
 * latest first task is at or before its last, and their earliest last task
 * at or after its first) conflicts with all of them, so its gaps are the
 * holes in the union of everything placed. Those holes are kept as a list
 * in offset order, rebuilt from the offset-sorted list when a placement of
 * the other kind has made it stale, and updated in place by each such
 * tensor; the tensor needs no query. Records that all overlap (every
 * tensor live at once) then cost O(holes) a tensor, which is O(1) unless
 * fixed tensors leave holes, instead of O(placed). The choice is the same
 * best fit either way. */
#include <string.h>

#include "offsets_place.h"

static int cmp_keyed(const void *pa, const void *pb) {
  const texmem__keyed *a = pa, *b = pb;
  if (a->k1 != b->k1) return a->k1 > b->k1 ? -1 : 1;
  if (a->k2 != b->k2) return a->k2 > b->k2 ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

void texmem__sort_keyed(texmem__keyed *a, size_t n) {
  if (n > 1) qsort(a, n, sizeof *a, cmp_keyed);
}

typedef struct entry {
  uint32_t f, l, id;
} entry;

typedef struct block {
  entry *e;
  uint32_t n, cap;
} block;

typedef struct hole {
  uint64_t lo, hi;
} hole;

typedef struct by_off {
  uint64_t off;
  uint32_t id;
} by_off;

struct texmem__placer {
  const texmem__problem *pb;
  uint64_t *offset;
  uint32_t width;  /* tasks per block */
  uint32_t nblocks;
  block *blocks;
  uint32_t *stamp; /* per tensor: last query that reported it */
  uint32_t query;
  uint32_t *hits; /* ids reported by the current query */
  size_t nhits;
  by_off *work, *tmp; /* conflicting tensors sorted by offset */
  uint32_t *sorted, *merge; /* all placed ids by offset (up to nsorted) */
  size_t nsorted;
  uint32_t *pending; /* placed since the last merge into sorted */
  size_t npending, nplaced;
  uint32_t max_first, min_last; /* over placed tensors of nonzero size */
  hole *holes; /* holes in the union of placed tensors, by offset */
  size_t nholes;
  uint64_t top; /* the union's top, valid with holes */
  bool holes_valid;
};

static bool off_less(const by_off *a, const by_off *b) {
  return a->off < b->off || (a->off == b->off && a->id < b->id);
}

/* Stable merge sort of by_off records (qsort's indirect calls dominated). */
static void sort_by_off(by_off *a, by_off *tmp, size_t n) {
  for (size_t i = 1; i < n && n <= 16; i++) {
    by_off x = a[i];
    size_t j = i;
    while (j > 0 && off_less(&x, &a[j - 1])) {
      a[j] = a[j - 1];
      j--;
    }
    a[j] = x;
  }
  if (n <= 16) return;
  size_t h = n / 2;
  sort_by_off(a, tmp, h);
  sort_by_off(a + h, tmp, n - h);
  if (!off_less(&a[h], &a[h - 1])) return;
  memcpy(tmp, a, h * sizeof *a);
  size_t i = 0, j = h, o = 0;
  while (i < h && j < n) a[o++] = off_less(&a[j], &tmp[i]) ? a[j++] : tmp[i++];
  while (i < h) a[o++] = tmp[i++];
}

static bool record(texmem__placer *p, size_t i);

void texmem__placer_destroy(texmem__placer *p) {
  if (!p) return;
  if (p->blocks)
    for (uint32_t b = 0; b < p->nblocks; b++) free(p->blocks[b].e);
  free(p->blocks);
  free(p->stamp);
  free(p->hits);
  free(p->work);
  free(p->tmp);
  free(p->sorted);
  free(p->merge);
  free(p->pending);
  free(p->holes);
  free(p);
}

texmem_status texmem__placer_create(const texmem__problem *pb, uint64_t *offset,
                                    texmem__placer **out, texmem_error *err) {
  *out = NULL;
  texmem__placer *p = calloc(1, sizeof *p);
  if (!p) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for the offsets placer");
  p->pb = pb;
  p->offset = offset;
  uint64_t span = 0;
  for (size_t i = 0; i < pb->n; i++) span += (uint64_t)(pb->last[i] - pb->first[i]) + 1;
  uint64_t w = pb->n ? span / pb->n : 1;
  p->width = (uint32_t)(w < 16 ? 16 : w);
  p->nblocks = pb->ntasks / p->width + 1;
  size_t m = pb->n ? pb->n : 1;
  p->blocks = calloc(p->nblocks, sizeof *p->blocks);
  p->stamp = calloc(m, sizeof *p->stamp);
  p->hits = malloc(m * sizeof *p->hits);
  p->work = malloc(m * sizeof *p->work);
  p->tmp = malloc(m * sizeof *p->tmp);
  p->sorted = malloc(m * sizeof *p->sorted);
  p->merge = malloc(m * sizeof *p->merge);
  p->pending = malloc(m * sizeof *p->pending);
  p->holes = malloc((m + 1) * sizeof *p->holes);
  p->max_first = 0;
  p->min_last = UINT32_MAX;
  if (!p->blocks || !p->stamp || !p->hits || !p->work || !p->tmp || !p->sorted || !p->merge ||
      !p->pending || !p->holes) {
    texmem__placer_destroy(p);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for the offsets placer");
  }
  for (size_t i = 0; i < pb->n; i++) { /* fixed tensors are there from the start */
    if (!texmem__is_fixed(pb, i)) continue;
    offset[i] = pb->fixed[i];
    if (!pb->size[i]) continue;
    if (!record(p, i)) {
      texmem__placer_destroy(p);
      return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for the offsets placer");
    }
  }
  *out = p;
  return TEXMEM_STATUS_OK;
}

static bool insert(texmem__placer *p, uint32_t f, uint32_t l, uint32_t id) {
  for (uint32_t b = f / p->width; b <= l / p->width; b++) {
    block *bl = &p->blocks[b];
    if (bl->n == bl->cap) {
      uint32_t nc = bl->cap ? 2 * bl->cap : 8;
      entry *ne = realloc(bl->e, nc * sizeof *ne);
      if (!ne) return false;
      bl->e = ne;
      bl->cap = nc;
    }
    bl->e[bl->n++] = (entry){f, l, id};
  }
  return true;
}

/* Files placed tensor i (nonzero size, offset set) everywhere it is looked
 * up. */
static bool record(texmem__placer *p, size_t i) {
  const texmem__problem *pb = p->pb;
  if (!insert(p, pb->first[i], pb->last[i], (uint32_t)i)) return false;
  p->pending[p->npending++] = (uint32_t)i;
  p->nplaced++;
  if (pb->first[i] > p->max_first) p->max_first = pb->first[i];
  if (pb->last[i] < p->min_last) p->min_last = pb->last[i];
  return true;
}

static void query(texmem__placer *p, uint32_t f, uint32_t l) {
  for (uint32_t b = f / p->width; b <= l / p->width; b++) {
    const block *bl = &p->blocks[b];
    for (uint32_t j = 0; j < bl->n; j++) {
      entry e = bl->e[j];
      if (e.l < f || e.f > l) continue;
      uint32_t common = e.f > f ? e.f : f; /* report from its first block */
      if (common / p->width != b) continue;
      p->stamp[e.id] = p->query;
      p->hits[p->nhits++] = e.id;
    }
  }
}

/* Folds pending ids into the offset-sorted list of all placed tensors. */
static void merge_pending(texmem__placer *p) {
  if (!p->npending) return;
  for (size_t j = 0; j < p->npending; j++)
    p->work[j] = (by_off){p->offset[p->pending[j]], p->pending[j]};
  sort_by_off(p->work, p->tmp, p->npending);
  size_t a = 0, b = 0, o = 0;
  while (a < p->nsorted || b < p->npending) {
    bool take_a;
    if (b == p->npending) take_a = true;
    else if (a == p->nsorted) take_a = false;
    else {
      by_off x = {p->offset[p->sorted[a]], p->sorted[a]};
      take_a = !off_less(&p->work[b], &x);
    }
    p->merge[o++] = take_a ? p->sorted[a++] : (uint32_t)p->work[b++].id;
  }
  uint32_t *t = p->sorted;
  p->sorted = p->merge;
  p->merge = t;
  p->nsorted = o;
  p->npending = 0;
}

static unsigned log2_ceil(size_t k) {
  unsigned r = 0;
  while (((size_t)1 << r) < k) r++;
  return r;
}

/* The offset a best-fit walk over the tensors conflicting with i gives. */
static uint64_t fit_by_query(texmem__placer *p, size_t i, uint64_t need) {
  const texmem__problem *pb = p->pb;
  uint64_t a = pb->alignment;
  if (++p->query == 0) { /* stamps wrapped: reset them */
    memset(p->stamp, 0, pb->n * sizeof *p->stamp);
    p->query = 1;
  }
  p->nhits = 0;
  query(p, pb->first[i], pb->last[i]);
  size_t k = p->nhits;
  /* Walk conflicting tensors by offset: gap = offset - highest end so far. */
  uint64_t prev = 0, best_gap = UINT64_MAX, best = UINT64_MAX;
#define VISIT(id_)                                                            \
  do {                                                                        \
    uint64_t o_ = p->offset[id_];                                             \
    if (o_ >= prev) {                                                         \
      uint64_t gap_ = o_ - prev;                                              \
      if (gap_ >= need && gap_ < best_gap) {                                  \
        best_gap = gap_;                                                      \
        best = prev;                                                          \
      }                                                                       \
    }                                                                         \
    prev = texmem__max_u64(prev, o_ + texmem__align_up(pb->size[id_], a));    \
  } while (0)
  if (k > 0 && (size_t)k * (log2_ceil(k) + 1) > p->nplaced) {
    merge_pending(p);
    for (size_t j = 0; j < p->nsorted; j++) {
      uint32_t id = p->sorted[j];
      if (p->stamp[id] == p->query) VISIT(id);
    }
  } else {
    for (size_t j = 0; j < k; j++) p->work[j] = (by_off){p->offset[p->hits[j]], p->hits[j]};
    sort_by_off(p->work, p->tmp, k);
    for (size_t j = 0; j < k; j++) VISIT(p->work[j].id);
  }
#undef VISIT
  return best != UINT64_MAX ? best : prev;
}

/* Rebuilds the holes of the union of all placed tensors. */
static void build_holes(texmem__placer *p) {
  merge_pending(p);
  uint64_t a = p->pb->alignment, prev = 0;
  p->nholes = 0;
  for (size_t j = 0; j < p->nsorted; j++) {
    uint32_t id = p->sorted[j];
    uint64_t o = p->offset[id];
    if (o > prev) p->holes[p->nholes++] = (hole){prev, o};
    prev = texmem__max_u64(prev, o + texmem__align_up(p->pb->size[id], a));
  }
  p->top = prev;
  p->holes_valid = true;
}

/* Best fit among the holes (smallest that fits, lowest on ties), else the
 * top; the chosen space leaves the holes. */
static uint64_t fit_in_holes(texmem__placer *p, uint64_t need) {
  size_t best = SIZE_MAX;
  uint64_t best_len = UINT64_MAX;
  for (size_t j = 0; j < p->nholes; j++) {
    uint64_t len = p->holes[j].hi - p->holes[j].lo;
    if (len >= need && len < best_len) {
      best = j;
      best_len = len;
    }
  }
  if (best == SIZE_MAX) {
    uint64_t off = p->top;
    p->top += need;
    return off;
  }
  uint64_t off = p->holes[best].lo;
  p->holes[best].lo += need;
  if (p->holes[best].lo == p->holes[best].hi) {
    memmove(&p->holes[best], &p->holes[best + 1], (p->nholes - best - 1) * sizeof *p->holes);
    p->nholes--;
  }
  return off;
}

texmem_status texmem__placer_place(texmem__placer *p, size_t i, texmem_error *err) {
  const texmem__problem *pb = p->pb;
  if (texmem__is_fixed(pb, i)) return TEXMEM_STATUS_OK; /* placed at create */
  uint64_t need = texmem__align_up(pb->size[i], pb->alignment);
  if (need == 0) {
    p->offset[i] = 0;
    return TEXMEM_STATUS_OK;
  }
  bool meets_all = p->nplaced && p->max_first <= pb->last[i] && p->min_last >= pb->first[i];
  if (meets_all) {
    if (!p->holes_valid) build_holes(p);
    p->offset[i] = fit_in_holes(p, need);
  } else {
    p->offset[i] = fit_by_query(p, i, need);
    p->holes_valid = false;
  }
  if (!record(p, i))
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for the offsets placer");
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__place_in_order(const texmem__problem *pb, const texmem__keyed *order,
                                     uint64_t *offset, texmem_error *err) {
  texmem__placer *p;
  texmem_status st = texmem__placer_create(pb, offset, &p, err);
  for (size_t j = 0; !st && j < pb->n; j++) st = texmem__placer_place(p, order[j].id, err);
  texmem__placer_destroy(p);
  return st;
}

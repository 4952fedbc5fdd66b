/* TFLM's GreedyMemoryPlanner with an offline plan, to know the head TFLM
 * will need once it places its online buffers (scratch buffers above all)
 * around offline-planned tensors. Its rules: offline buffers go first at
 * their offsets, in the order added; then the online ones, sorted by size,
 * largest first (its bubble sort is stable: ties in the order added); each
 * walks the buffers placed so far in offset order, skipping those not
 * live with it, and takes the first gap from 0 up that holds it, else the
 * end of the last live one. The placed buffers are kept here as an array
 * sorted by offset. */
#include <string.h>

#include "tflm_internal.h"

typedef struct placed {
  uint64_t lo, hi;
  uint64_t first, last;
} placed;

static bool live_together(const placed *p, const texmem_record *r) {
  return p->first <= r->last_task && r->first_task <= p->last;
}

/* The lowest offset where r fits among the live placed buffers. */
static uint64_t first_fit(const placed *pl, size_t np, const texmem_record *r) {
  uint64_t at = 0;
  for (size_t i = 0; i < np; i++) {
    if (!live_together(&pl[i], r)) continue;
    if (pl[i].lo >= at && pl[i].lo - at >= r->dims[0]) break;
    if (pl[i].hi > at) at = pl[i].hi;
  }
  return at;
}

/* Inserts after every buffer at or below lo (TFLM's list order). */
static void insert(placed *pl, size_t *np, placed x) {
  size_t i = *np;
  while (i > 0 && pl[i - 1].lo > x.lo) i--;
  memmove(pl + i + 1, pl + i, (*np - i) * sizeof *pl);
  pl[i] = x;
  (*np)++;
}

/* Online records by size, largest first, ties in record order. */
static void order_online(const texmem_record *rec, size_t *ids, size_t n) {
  for (size_t i = 1; i < n; i++) { /* insertion sort: stable, as TFLM's */
    size_t x = ids[i], j = i;
    while (j > 0 && rec[ids[j - 1]].dims[0] < rec[x].dims[0]) {
      ids[j] = ids[j - 1];
      j--;
    }
    ids[j] = x;
  }
}

texmem_status texmem_tflm_greedy(const texmem_record *rec, size_t n, const int64_t *fixed, uint64_t *offsets,
                                 uint64_t *head, texmem_error *err) {
  if ((!rec && n) || !head) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "records or head is NULL");
  *head = 0;
  for (size_t k = 0; k < n; k++)
    if (rec[k].first_task > rec[k].last_task || (fixed && fixed[k] < -1) || rec[k].dims[0] > INT32_MAX ||
        (fixed && fixed[k] > INT32_MAX))
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "record %zu: tasks %llu..%llu, %llu bytes, offset %lld (TFLM's int range)", k,
                          (unsigned long long)rec[k].first_task, (unsigned long long)rec[k].last_task,
                          (unsigned long long)rec[k].dims[0], fixed ? (long long)fixed[k] : -1LL);
  placed *pl = malloc((n + 1) * sizeof *pl);
  size_t *ids = malloc((n + 1) * sizeof *ids);
  if (!pl || !ids) {
    free(pl);
    free(ids);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for %zu buffers", n);
  }
  size_t np = 0, n_online = 0;
  for (size_t k = 0; k < n; k++) {
    if (fixed && fixed[k] >= 0) {
      uint64_t lo = (uint64_t)fixed[k];
      insert(pl, &np, (placed){lo, lo + rec[k].dims[0], rec[k].first_task, rec[k].last_task});
      if (offsets) offsets[k] = lo;
    } else {
      ids[n_online++] = k;
    }
  }
  order_online(rec, ids, n_online);
  for (size_t i = 0; i < n_online; i++) {
    const texmem_record *r = &rec[ids[i]];
    uint64_t lo = first_fit(pl, np, r);
    insert(pl, &np, (placed){lo, lo + r->dims[0], r->first_task, r->last_task});
    if (offsets) offsets[ids[i]] = lo;
  }
  for (size_t i = 0; i < np; i++)
    if (pl[i].hi > *head) *head = pl[i].hi;
  free(pl);
  free(ids);
  return TEXMEM_STATUS_OK;
}

/* Lower bounds: max_live and positional_max, in O(n log n).
 *
 * max_live is one sweep of a difference array over the compressed tasks
 * (every partial sum fits: problem_init checks the sum of all sizes).
 *
 * positional_max sums, over positions k, the largest k-th largest live
 * size at any task. Add the tensors one by one in descending size to a
 * count of added tensors per task, kept in a segment tree (range add,
 * global max). When the global max rises from k-1 to k, the tensor just
 * added is the first to be the k-th largest at some task, and every
 * tensor added later is no larger, so its size is position k's maximum.
 * The max rises by at most one per tensor, so each position is found
 * exactly once. */
#include <string.h>

#include "internal.h"

/* Segment tree over tasks [0, nt): mx[v] = add[v] + max of the children. */
typedef struct seg_tree {
  uint32_t *mx, *add;
} seg_tree;

static void tree_add(seg_tree *t, size_t v, size_t lo, size_t hi, size_t a, size_t b) {
  if (b < lo || hi < a) return;
  if (a <= lo && hi <= b) {
    t->mx[v]++;
    t->add[v]++;
    return;
  }
  size_t mid = lo + (hi - lo) / 2;
  tree_add(t, 2 * v, lo, mid, a, b);
  tree_add(t, 2 * v + 1, mid + 1, hi, a, b);
  uint32_t l = t->mx[2 * v], r = t->mx[2 * v + 1];
  t->mx[v] = t->add[v] + (l > r ? l : r);
}

/* Sorts idx by descending size (a merge sort: qsort has no context pointer). */
static void sort_desc(size_t *idx, size_t *tmp, size_t n, const uint64_t *size) {
  if (n < 2) return;
  size_t h = n / 2;
  sort_desc(idx, tmp, h, size);
  sort_desc(idx + h, tmp, n - h, size);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = size[idx[j]] > size[idx[i]] ? idx[j++] : idx[i++];
  while (i < h) tmp[k++] = idx[i++];
  while (j < n) tmp[k++] = idx[j++];
  memcpy(idx, tmp, n * sizeof *idx);
}

texmem_status texmem__bounds(const texmem__problem *pb, texmem_bounds *out,
                             texmem_error *err) {
  out->max_live = 0;
  out->positional_max = 0;
  size_t n = pb->n, nt = pb->ntasks;
  if (n == 0) return TEXMEM_STATUS_OK;
  size_t tree_n = 1;
  while (tree_n < nt) tree_n *= 2;
  uint64_t *diff = calloc(nt + 1, sizeof *diff);
  size_t *idx = malloc(n * sizeof *idx), *tmp = malloc(n * sizeof *tmp);
  seg_tree t = {calloc(2 * tree_n, sizeof *t.mx), calloc(2 * tree_n, sizeof *t.add)};
  if (!diff || !idx || !tmp || !t.mx || !t.add) {
    free(diff); free(idx); free(tmp); free(t.mx); free(t.add);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for bounds of %zu records", n);
  }
  /* Wrapping arithmetic is exact here: every prefix sum is a live total. */
  for (size_t i = 0; i < n; i++) {
    diff[pb->first[i]] += pb->size[i];
    diff[pb->last[i] + 1] -= pb->size[i];
  }
  uint64_t live = 0;
  for (size_t k = 0; k < nt; k++) {
    live += diff[k];
    if (live > out->max_live) out->max_live = live;
  }
  for (size_t i = 0; i < n; i++) idx[i] = i;
  sort_desc(idx, tmp, n, pb->size);
  uint32_t height = 0;
  uint64_t sum = 0;
  for (size_t k = 0; k < n; k++) {
    size_t i = idx[k];
    tree_add(&t, 1, 0, tree_n - 1, pb->first[i], pb->last[i]);
    if (t.mx[1] > height) {
      height = t.mx[1];
      sum = texmem__add_sat(sum, pb->size[i]);
    }
  }
  out->positional_max = sum;
  free(diff); free(idx); free(tmp); free(t.mx); free(t.add);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_lower_bounds(const texmem_record *records, size_t count,
                                  unsigned dims, texmem_bounds *out,
                                  texmem_error *err) {
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "out is NULL");
  if (count && !records)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "records is NULL");
  if (dims < 1 || dims > 3)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "dims must be 1, 2 or 3, not %u", dims);
  texmem__problem pb;
  texmem_status st = texmem__problem_init(records, count, dims, NULL, &pb, err);
  if (st) return st;
  st = texmem__bounds(&pb, out, err);
  texmem__problem_free(&pb);
  return st;
}

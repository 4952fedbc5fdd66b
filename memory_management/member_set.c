/* The tensors of one object, ordered by first task, in sorted runs of
 * doubling length (a binary counter of runs: run k holds 2^k tensors or is
 * empty). An insert merges runs like a carry, O(log n) amortised; a
 * neighbour query binary-searches every run, O(log^2 n). A sorted array
 * with insertion costs O(n) per insert, which made objects holding 10^5
 * tensors or more quadratic.
 *
 * Members of one object never conflict, so their order by first task is
 * also their order by last task: each run can be searched by either. */
#include <string.h>

#include "internal.h"

bool texmem__mset_insert(texmem__mset *s, const uint32_t *first, const uint32_t *last,
                         size_t t) {
  texmem__mnode *carry = malloc(sizeof *carry);
  if (!carry) return false;
  carry[0] = (texmem__mnode){first[t], last[t], t};
  size_t clen = 1;
  unsigned k = 0;
  for (;; k++) {
    if (k == s->nruns) {
      texmem__mnode **nr = realloc(s->run, (k + 1) * sizeof *nr);
      if (!nr) {
        free(carry);
        return false;
      }
      s->run = nr;
      s->run[k] = NULL;
      s->nruns++;
    }
    if (!s->run[k]) break;
    /* merge run k (2^k members) with the carry (as many) */
    texmem__mnode *m = malloc(2 * clen * sizeof *m);
    if (!m) {
      free(carry);
      return false;
    }
    size_t i = 0, j = 0, o = 0;
    texmem__mnode *a = s->run[k];
    while (i < clen && j < clen) m[o++] = a[i].first < carry[j].first ? a[i++] : carry[j++];
    while (i < clen) m[o++] = a[i++];
    while (j < clen) m[o++] = carry[j++];
    free(a);
    free(carry);
    s->run[k] = NULL;
    carry = m;
    clen *= 2;
  }
  s->run[k] = carry;
  s->len++;
  return true;
}

/* In a run of len members (sorted by first task, hence by last task too):
 * the first whose last task is >= f. */
static size_t first_ending_at_or_after(const texmem__mnode *r, size_t len, uint32_t f) {
  size_t lo = 0, hi = len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r[mid].last < f) lo = mid + 1; else hi = mid;
  }
  return lo;
}

size_t texmem__mset_after(const texmem__mset *s, uint32_t f) {
  const texmem__mnode *best = NULL;
  for (unsigned k = 0; k < s->nruns; k++) {
    const texmem__mnode *r = s->run[k];
    if (!r) continue;
    size_t lo = first_ending_at_or_after(r, (size_t)1 << k, f);
    if (lo < ((size_t)1 << k) && (!best || r[lo].first < best->first)) best = &r[lo];
  }
  return best ? best->t : SIZE_MAX;
}

size_t texmem__mset_before(const texmem__mset *s, uint32_t f) {
  const texmem__mnode *best = NULL;
  for (unsigned k = 0; k < s->nruns; k++) {
    const texmem__mnode *r = s->run[k];
    if (!r) continue;
    size_t lo = first_ending_at_or_after(r, (size_t)1 << k, f);
    if (lo > 0 && (!best || r[lo - 1].first > best->first)) best = &r[lo - 1];
  }
  return best ? best->t : SIZE_MAX;
}

void texmem__mset_free(texmem__mset *s) {
  for (unsigned k = 0; k < s->nruns; k++) free(s->run[k]);
  free(s->run);
  memset(s, 0, sizeof *s);
}

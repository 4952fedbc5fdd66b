/* Row ranges of arena textures: the dirty sets that decide barriers, and
 * the per-row last writer that the reuse checker consults. Many tensors
 * share one arena texture, so both work on rows, not on whole textures:
 * independent branches in disjoint rows need no barrier between them. */
#include <string.h>

#include "gl_pool.h"

bool texmem__rowset_intersects(const texmem__rowset *s, uint64_t lo, uint64_t hi) {
  for (uint32_t i = 0; i < s->n; i++)
    if (s->lo[i] < hi && lo < s->hi[i]) return true;
  return false;
}

void texmem__rowset_add(texmem__rowset *s, uint64_t lo, uint64_t hi) {
  if (lo >= hi) return;
  /* Absorb every range that overlaps or touches [lo, hi). */
  uint32_t k = 0;
  for (uint32_t i = 0; i < s->n; i++) {
    if (s->lo[i] <= hi && lo <= s->hi[i]) {
      if (s->lo[i] < lo) lo = s->lo[i];
      if (s->hi[i] > hi) hi = s->hi[i];
    } else {
      s->lo[k] = s->lo[i];
      s->hi[k++] = s->hi[i];
    }
  }
  s->n = k;
  if (s->n == TEXMEM__ROWSET_CAP) {
    /* Full: merge the two neighbours with the smallest gap (a superset). */
    uint32_t best = 0;
    for (uint32_t i = 1; i + 1 < s->n; i++)
      if (s->lo[i + 1] - s->hi[i] < s->lo[best + 1] - s->hi[best]) best = i;
    s->hi[best] = s->hi[best + 1];
    memmove(&s->lo[best + 1], &s->lo[best + 2], (s->n - best - 2) * sizeof s->lo[0]);
    memmove(&s->hi[best + 1], &s->hi[best + 2], (s->n - best - 2) * sizeof s->hi[0]);
    s->n--;
    texmem__rowset_add(s, lo, hi); /* may touch the merged range */
    return;
  }
  uint32_t at = 0;
  while (at < s->n && s->lo[at] < lo) at++;
  memmove(&s->lo[at + 1], &s->lo[at], (s->n - at) * sizeof s->lo[0]);
  memmove(&s->hi[at + 1], &s->hi[at], (s->n - at) * sizeof s->hi[0]);
  s->lo[at] = lo;
  s->hi[at] = hi;
  s->n++;
}

void texmem__gl_binding_rows(const texmem__gl_binding *b, uint64_t *lo, uint64_t *hi) {
  if (!b->ranged || !b->linear_width) {
    *lo = 0;
    *hi = UINT64_MAX;
    return;
  }
  uint64_t n = texmem__vol_sat(b->shape);
  *lo = b->base_row;
  *hi = texmem__add_sat(b->base_row, n / b->linear_width + (n % b->linear_width != 0));
}

/* ---- the reuse checker's row owners ---- */

void texmem__row_map_write(texmem__row_map *m, uint64_t lo, uint64_t hi, size_t tensor,
                           uint64_t task) {
  if (lo >= hi) return;
  /* Cut [lo, hi) out of the entries (sorted, disjoint), then insert it. */
  texmem__row_owner keep_right = {0, 0, 0, 0};
  bool split = false;
  size_t k = 0;
  for (size_t i = 0; i < m->n; i++) {
    texmem__row_owner e = m->v[i];
    if (e.hi <= lo || hi <= e.lo) {
      m->v[k++] = e;
      continue;
    }
    if (e.lo < lo && hi < e.hi) { /* [lo, hi) inside e: e splits in two */
      keep_right = e;
      keep_right.lo = hi;
      split = true;
      e.hi = lo;
      m->v[k++] = e;
    } else if (e.lo < lo) {
      e.hi = lo;
      m->v[k++] = e;
    } else if (hi < e.hi) {
      e.lo = hi;
      m->v[k++] = e;
    } /* else covered: dropped */
  }
  m->n = k;
  texmem__row_owner add[2] = {{lo, hi, tensor, task}, keep_right};
  for (int a = 0; a < (split ? 2 : 1) && m->n < m->cap; a++) {
    size_t at = 0;
    while (at < m->n && m->v[at].lo < add[a].lo) at++;
    memmove(&m->v[at + 1], &m->v[at], (m->n - at) * sizeof *m->v);
    m->v[at] = add[a];
    m->n++;
  }
}

bool texmem__row_map_check(const texmem__row_map *m, uint64_t lo, uint64_t hi, size_t tensor,
                           texmem__row_owner *bad) {
  uint64_t at = lo; /* rows before `at` are known to be tensor's */
  for (size_t i = 0; i < m->n && at < hi; i++) {
    const texmem__row_owner *e = &m->v[i];
    if (e->hi <= at) continue;
    if (e->lo >= hi) break;
    if (e->lo > at) { /* a gap: rows nobody wrote */
      *bad = (texmem__row_owner){at, e->lo, TEXMEM__NO_TENSOR, 0};
      return false;
    }
    if (e->tensor != tensor) {
      *bad = *e;
      if (bad->lo < lo) bad->lo = lo;
      if (bad->hi > hi) bad->hi = hi;
      return false;
    }
    at = e->hi;
  }
  if (at < hi) {
    *bad = (texmem__row_owner){at, hi, TEXMEM__NO_TENSOR, 0};
    return false;
  }
  return true;
}

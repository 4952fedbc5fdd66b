/* min_cost_flow shared objects (TFLite's MinCostFlowAssignment formulation,
 * solved exactly by a faster method).
 *
 * Each tensor j either opens a new object (cost: its size) or continues the
 * object of one tensor i that ended strictly before j starts (cost:
 * max(0, size_j - size_i); for textures merged_vol(i, j) - vol(i)); each i
 * is continued at most once. That is an assignment problem: rows are
 * tensors, columns are predecessors plus one private "new" column a row.
 * It is solved by successive shortest augmenting paths with column
 * potentials (the Jonker-Volgenant augmentation), one row at a time; a
 * row's predecessors are a prefix of the tensors sorted by last task, so
 * edges are never stored. Chains of continuations become objects.
 *
 * Above MCF_DENSE_MAX tensors each row only sees its MCF_NEAREST nearest
 * predecessors (largest last task); the result is then exact for that
 * sparser formulation only, and each augmenting search stops after
 * MCF_SCAN_MAX columns (then the result is a good, not optimal, matching
 * of it). Texture edges costing at least the tensor's
 * own volume are dropped: a new object is never worse. */
#include <string.h>

#include "internal.h"

#define MCF_DENSE_MAX 1000u
#define MCF_NEAREST 64u
/* Windowed mode bounds each augmenting search: after this many scanned
 * columns it takes the cheapest free column reached so far (the row's own
 * "new" column is always one), so a row costs O(window * scans) even on
 * chains of similar sizes where exact searches run through every row. */
#define MCF_SCAN_MAX 512u
#define MCF_NONE SIZE_MAX

typedef struct mcf {
  const texmem__problem *pb;
  size_t n;
  size_t *by_last;  /* column k (< n) is tensor by_last[k] */
  size_t *prefix;   /* row j sees columns [lo(j), prefix[j]) */
  size_t window;    /* 0 = all predecessors */
  int64_t *v;       /* column potentials, 2n */
  int64_t *d;       /* tentative distances, 2n */
  size_t *pred;     /* row that reached a column */
  size_t *col_row;  /* matched row of a column, MCF_NONE if free */
  size_t *row_col;  /* matched column of a row */
  size_t *todo;     /* reached, not yet scanned columns */
  size_t *seen;     /* every column reached in this search */
  unsigned char *state; /* 0 untouched, 1 reached, 2 scanned */
} mcf;

/* Edge cost of row j to column c, or -1 when there is no edge. */
static int64_t edge_cost(const mcf *m, size_t j, size_t c) {
  const texmem__problem *pb = m->pb;
  if (c >= m->n) return c - m->n == j ? (int64_t)pb->size[j] : -1;
  size_t i = m->by_last[c];
  if (pb->ndims == 1) return pb->size[j] > pb->size[i] ? (int64_t)(pb->size[j] - pb->size[i]) : 0;
  uint64_t g = texmem__merged_vol_sat(pb->dims[i], pb->dims[j]) - pb->size[i];
  return g >= pb->size[j] ? -1 : (int64_t)g;
}

static size_t row_lo(const mcf *m, size_t j) {
  return m->window && m->prefix[j] > m->window ? m->prefix[j] - m->window : 0;
}

/* Relaxes every edge of row j, reached at distance base. */
static void relax_row(mcf *m, size_t j, int64_t base, size_t *ntodo, size_t *nseen) {
  int64_t uj = 0;
  if (m->row_col[j] != MCF_NONE) {
    size_t cj = m->row_col[j];
    uj = edge_cost(m, j, cj) - m->v[cj];
  }
  size_t lo = row_lo(m, j), hi = m->prefix[j];
  for (size_t c = lo; c <= hi; c++) {
    size_t col = c == hi ? m->n + j : c;
    if (m->state[col] == 2) continue;
    int64_t w = edge_cost(m, j, col);
    if (w < 0) continue;
    int64_t nd = base + w - m->v[col] - uj;
    if (m->state[col] == 0) {
      m->state[col] = 1;
      m->seen[(*nseen)++] = col;
      m->todo[(*ntodo)++] = col;
      m->d[col] = nd;
      m->pred[col] = j;
    } else if (nd < m->d[col]) {
      m->d[col] = nd;
      m->pred[col] = j;
    }
  }
}

/* Matches free row r along a shortest augmenting path. */
static void augment(mcf *m, size_t r) {
  size_t ntodo = 0, nseen = 0, target = MCF_NONE;
  relax_row(m, r, 0, &ntodo, &nseen);
  int64_t dstar = 0;
  size_t scans = 0;
  while (ntodo) {
    if (m->window && scans++ == MCF_SCAN_MAX) {
      /* bounded search: the cheapest free column reached */
      size_t bi = SIZE_MAX;
      for (size_t k = 0; k < ntodo; k++) {
        size_t a = m->todo[k];
        if (m->col_row[a] == MCF_NONE && (bi == SIZE_MAX || m->d[a] < m->d[m->todo[bi]])) bi = k;
      }
      if (bi != SIZE_MAX) {
        target = m->todo[bi];
        dstar = m->d[target];
        break;
      }
    }
    /* smallest distance; among equals a free column, then a predecessor
     * column (continuing an object) before a "new" one */
    size_t bi = 0;
    for (size_t k = 1; k < ntodo; k++) {
      size_t a = m->todo[k], b = m->todo[bi];
      if (m->d[a] < m->d[b]) {
        bi = k;
      } else if (m->d[a] == m->d[b]) {
        bool fa = m->col_row[a] == MCF_NONE, fb = m->col_row[b] == MCF_NONE;
        if ((fa && !fb) || (fa == fb && a < b)) bi = k;
      }
    }
    size_t c = m->todo[bi];
    m->todo[bi] = m->todo[--ntodo];
    m->state[c] = 2;
    if (m->col_row[c] == MCF_NONE) {
      target = c;
      dstar = m->d[c];
      break;
    }
    relax_row(m, m->col_row[c], m->d[c], &ntodo, &nseen);
  }
  /* Scanned columns get cheaper by what they were ahead of the target
   * (keeps reduced costs non-negative). */
  for (size_t k = 0; k < nseen; k++) {
    size_t c = m->seen[k];
    if (m->state[c] == 2 && c != target) m->v[c] += m->d[c] - dstar;
    m->state[c] = 0;
  }
  for (size_t c = target;;) {
    size_t j = m->pred[c], prev = m->row_col[j];
    m->row_col[j] = c;
    m->col_row[c] = j;
    if (j == r) break;
    c = prev;
  }
}

static void sort_by_key(size_t *idx, size_t *tmp, size_t n, const uint32_t *key) {
  if (n < 2) return;
  size_t h = n / 2;
  sort_by_key(idx, tmp, h, key);
  sort_by_key(idx + h, tmp, n - h, key);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = key[idx[j]] < key[idx[i]] ? idx[j++] : idx[i++];
  while (i < h) tmp[k++] = idx[i++];
  while (j < n) tmp[k++] = idx[j++];
  memcpy(idx, tmp, n * sizeof *idx);
}

texmem_status texmem__objects_min_cost_flow(const texmem__problem *pb, size_t *object_of,
                                            size_t *n_objects, texmem_error *err) {
  size_t n = pb->n;
  *n_objects = 0;
  if (n == 0) return TEXMEM_STATUS_OK;
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i++) sum = texmem__add_sat(sum, pb->size[i]);
  if (sum > (uint64_t)INT64_MAX / 4)
    return texmem__fail(err, TEXMEM_STATUS_OVERFLOW,
                        "min_cost_flow: total size %llu too large for its 63-bit costs",
                        (unsigned long long)sum);
  mcf m = {.pb = pb, .n = n, .window = n > MCF_DENSE_MAX ? MCF_NEAREST : 0};
  m.by_last = malloc(n * sizeof(size_t));
  m.prefix = malloc(n * sizeof(size_t));
  m.v = calloc(2 * n, sizeof(int64_t));
  m.d = malloc(2 * n * sizeof(int64_t));
  m.pred = malloc(2 * n * sizeof(size_t));
  m.col_row = malloc(2 * n * sizeof(size_t));
  m.row_col = malloc(n * sizeof(size_t));
  m.todo = malloc(2 * n * sizeof(size_t));
  m.seen = malloc(2 * n * sizeof(size_t));
  m.state = calloc(2 * n, 1);
  size_t *rows = malloc(n * sizeof(size_t));
  texmem_status st = TEXMEM_STATUS_OK;
  if (!m.by_last || !m.prefix || !m.v || !m.d || !m.pred || !m.col_row || !m.row_col ||
      !m.todo || !m.seen || !m.state || !rows) {
    st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "min_cost_flow: out of memory for %zu tensors", n);
    goto done;
  }
  for (size_t i = 0; i < n; i++) m.by_last[i] = rows[i] = i;
  sort_by_key(m.by_last, m.todo, n, pb->last);
  sort_by_key(rows, m.todo, n, pb->first);
  for (size_t j = 0; j < n; j++) {
    size_t lo = 0, hi = n; /* predecessors: last < first_j */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (pb->last[m.by_last[mid]] < pb->first[j]) lo = mid + 1; else hi = mid;
    }
    m.prefix[j] = lo;
    m.row_col[j] = MCF_NONE;
  }
  for (size_t c = 0; c < 2 * n; c++) m.col_row[c] = MCF_NONE;
  for (size_t k = 0; k < n; k++) augment(&m, rows[k]);
  /* next[i] = the row continuing tensor i; chains start at "new" rows. */
  size_t *next = m.pred; /* reuse */
  for (size_t i = 0; i < n; i++) next[i] = MCF_NONE;
  for (size_t j = 0; j < n; j++)
    if (m.row_col[j] < n) next[m.by_last[m.row_col[j]]] = j;
  size_t k = 0;
  for (size_t r = 0; r < n; r++) {
    size_t j = rows[r];
    if (m.row_col[j] < n) continue;
    for (size_t t = j; t != MCF_NONE; t = next[t]) object_of[t] = k;
    k++;
  }
  *n_objects = k;
done:
  free(m.by_last); free(m.prefix); free(m.v); free(m.d); free(m.pred); free(m.col_row);
  free(m.row_col); free(m.todo); free(m.seen); free(m.state); free(rows);
  return st;
}

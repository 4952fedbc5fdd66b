/* Checks an offline plan the way TFLM never does (it takes offsets as
 * given): the count of offsets, their sign and alignment, their reach, and
 * overlaps between tensors of subgraph 0 that are live at the same time.
 * Overlaps are found by a sweep over the planned tensors sorted by offset,
 * so only pairs that share bytes are ever compared for lifetimes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tflm_internal.h"

typedef struct issues {
  texmem_tflm_issue *v;
  size_t n, max;
  bool nomem;
} issues;

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void add(issues *is, texmem_tflm_issue_kind kind, int64_t a, int64_t b, const char *fmt, ...) {
  if (is->nomem || is->n >= is->max) return;
  if ((is->n & (is->n - 1)) == 0) { /* grow at powers of two */
    texmem_tflm_issue *v = realloc(is->v, (is->n ? 2 * is->n : 1) * sizeof *v);
    if (!v) {
      is->nomem = true;
      return;
    }
    is->v = v;
  }
  texmem_tflm_issue *x = &is->v[is->n++];
  x->kind = kind;
  x->tensor = a;
  x->other = b;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(x->message, sizeof x->message, fmt, ap);
  va_end(ap);
}

typedef struct span {
  uint64_t lo, hi;
  size_t t; /* global tensor */
} span;

static int by_lo(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return x->t < y->t ? -1 : x->t > y->t;
}

texmem_status texmem_tflm_check(const texmem_tflm *f, const int32_t *offsets, size_t n,
                                texmem_tflm_issue **out, size_t *n_out, size_t max_issues, uint64_t *arena,
                                texmem_error *err) {
  if (!f || (!offsets && n) || !out || !n_out)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "model, offsets, issues or count is NULL");
  *out = NULL;
  *n_out = 0;
  if (arena) *arena = 0;
  issues is = {NULL, 0, max_issues ? max_issues : 1000, false};
  if (n != f->n_tensors) {
    add(&is, TEXMEM_TFLM_ISSUE_WRONG_COUNT, -1, -1,
        "the plan has %zu offsets but the model has %zu tensors over its %zu subgraph%s (TFLM refuses it)", n,
        f->n_tensors, f->n_sg, f->n_sg == 1 ? "" : "s");
    *out = is.v;
    *n_out = is.n;
    return is.nomem ? texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for the issues")
                    : TEXMEM_STATUS_OK;
  }
  size_t nt = f->sg[0].n_tensors;
  int64_t *first = malloc((nt + 1) * sizeof *first), *last = malloc((nt + 1) * sizeof *last);
  span *sp = malloc((nt + 1) * sizeof *sp);
  if (!first || !last || !sp) {
    free(first);
    free(last);
    free(sp);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for %zu tensors", nt);
  }
  texmem__tflm_scopes(f, first, last, err);
  size_t ns = 0;
  uint64_t top = 0;
  for (size_t g = 0; g < n; g++) {
    int32_t o = offsets[g];
    const texmem_tflm_tensor *t = &f->tensors[g];
    if (o == -1) continue;
    if (o < 0) {
      add(&is, TEXMEM_TFLM_ISSUE_NEGATIVE, (int64_t)g, -1, "tensor %zu ('%s'): offset %d is negative (only -1 is allowed)",
          g, t->name, (int)o);
      continue;
    }
    if (o % TEXMEM_TFLM_ALIGNMENT) {
      add(&is, TEXMEM_TFLM_ISSUE_MISALIGNED, (int64_t)g, -1, "tensor %zu ('%s'): offset %d is not a multiple of %d", g,
          t->name, (int)o, TEXMEM_TFLM_ALIGNMENT);
      continue;
    }
    if (!texmem__tflm_planned(f, g, first, last)) continue; /* TFLM ignores it */
    uint64_t size = texmem__tflm_round(t->bytes);
    if ((uint64_t)o + size > INT32_MAX) {
      add(&is, TEXMEM_TFLM_ISSUE_TOO_FAR, (int64_t)g, -1,
          "tensor %zu ('%s'): offset %d + %llu bytes is past the 2 GiB TFLM can address", g, t->name, (int)o,
          (unsigned long long)size);
      continue;
    }
    sp[ns++] = (span){(uint64_t)o, (uint64_t)o + size, g};
    if ((uint64_t)o + size > top) top = (uint64_t)o + size;
  }
  qsort(sp, ns, sizeof *sp, by_lo);
  for (size_t a = 0; a < ns; a++)
    for (size_t b = a + 1; b < ns && sp[b].lo < sp[a].hi; b++) {
      size_t x = sp[a].t, y = sp[b].t;
      if (first[x] > last[y] || first[y] > last[x]) continue;
      add(&is, TEXMEM_TFLM_ISSUE_OVERLAP, (int64_t)x, (int64_t)y,
          "tensors %zu ('%s', bytes %llu..%llu, scopes %lld..%lld) and %zu ('%s', bytes %llu..%llu, scopes "
          "%lld..%lld) overlap while both are live",
          x, f->tensors[x].name, (unsigned long long)sp[a].lo, (unsigned long long)sp[a].hi - 1,
          (long long)first[x], (long long)last[x], y, f->tensors[y].name, (unsigned long long)sp[b].lo,
          (unsigned long long)sp[b].hi - 1, (long long)first[y], (long long)last[y]);
    }
  free(first);
  free(last);
  free(sp);
  if (arena) *arena = top;
  *out = is.v;
  *n_out = is.n;
  if (is.nomem) {
    free(is.v);
    *out = NULL;
    *n_out = 0;
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for the issues");
  }
  return TEXMEM_STATUS_OK;
}

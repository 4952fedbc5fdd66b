/* Scratch buffers as TFLM plans them: one buffer per request, live at its
 * operator's scope only (TFLM marks it created and last used at the scope
 * of the operator that asked for it), after the tensors in request order. */
#include <string.h>

#include "tflm_internal.h"

static texmem_status check_scratch(const texmem_tflm *f, const texmem_tflm_scratch *s, size_t n, texmem_error *err) {
  size_t ops = f->sg[0].n_ops;
  for (size_t k = 0; k < n; k++) {
    if (s[k].op >= ops)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "scratch buffer %zu: operator %u out of range (subgraph 0 has %zu operators)", k,
                          (unsigned)s[k].op, ops);
    if (s[k].bytes == 0 || s[k].bytes > INT32_MAX - TEXMEM_TFLM_ALIGNMENT)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "scratch buffer %zu of operator %u: %llu bytes (1 to 2^31 - 17, TFLM's int sizes)", k,
                          (unsigned)s[k].op, (unsigned long long)s[k].bytes);
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_tflm_records_scratch(const texmem_tflm *f, const texmem_tflm_scratch *scratch,
                                          size_t n_scratch, texmem_record **out, size_t *n, int32_t **tensor_of,
                                          texmem_error *err) {
  if (!f || !out || !n || (!scratch && n_scratch))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "model, scratch, out or n is NULL");
  *out = NULL;
  *n = 0;
  if (tensor_of) *tensor_of = NULL;
  texmem_status st = check_scratch(f, scratch, n_scratch, err);
  if (st) return st;
  texmem_record *rec = NULL;
  int32_t *of = NULL;
  size_t nt = 0;
  if ((st = texmem_tflm_records(f, &rec, &nt, &of, err))) return st;
  texmem_record *r2 = realloc(rec, (nt + n_scratch + 1) * sizeof *r2);
  if (r2) rec = r2;
  int32_t *o2 = r2 ? realloc(of, (nt + n_scratch + 1) * sizeof *o2) : NULL;
  if (o2) of = o2;
  if (!r2 || !o2) {
    free(rec);
    free(of);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for %zu scratch buffers", n_scratch);
  }
  for (size_t k = 0; k < n_scratch; k++) {
    texmem_record *x = &rec[nt + k];
    memset(x, 0, sizeof *x);
    x->id = f->n_tensors + k;
    x->dims[0] = texmem__tflm_round(scratch[k].bytes);
    x->dims[1] = x->dims[2] = 1;
    x->first_task = x->last_task = (uint64_t)scratch[k].op + 1;
    of[nt + k] = -1 - (int32_t)k;
  }
  *out = rec;
  *n = nt + n_scratch;
  if (tensor_of) *tensor_of = of;
  else free(of);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_tflm_heads(const texmem_tflm *f, const int32_t *offsets, size_t n,
                                const texmem_tflm_scratch *scratch, size_t n_scratch, uint64_t *offline_head,
                                uint64_t *online_head, texmem_error *err) {
  if (!f || (!offsets && n) || !offline_head || !online_head)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "model, offsets or heads is NULL");
  *offline_head = *online_head = 0;
  if (n != f->n_tensors)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%zu offsets for %zu tensors", n, f->n_tensors);
  texmem_record *rec = NULL;
  int32_t *of = NULL;
  size_t nr = 0;
  texmem_status st = texmem_tflm_records_scratch(f, scratch, n_scratch, &rec, &nr, &of, err);
  if (st) return st;
  int64_t *fixed = malloc((nr + 1) * sizeof *fixed);
  if (!fixed) st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for %zu records", nr);
  for (size_t k = 0; !st && k < nr; k++) {
    int32_t o = of[k] >= 0 ? offsets[of[k]] : -1;
    if (o < -1)
      st = texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "tensor %d ('%s'): offset %d", (int)of[k],
                        f->tensors[of[k]].name, (int)o);
    fixed[k] = o;
  }
  if (!st) st = texmem_tflm_greedy(rec, nr, fixed, NULL, offline_head, err);
  if (!st) st = texmem_tflm_greedy(rec, nr, NULL, NULL, online_head, err);
  free(fixed);
  free(rec);
  free(of);
  return st;
}

/* Usage records of a model's intermediate tensors: the lifetime of each is
 * [producing operator, last operator reading it] (inclusive, operator
 * indices = tasks), its size the PHWC4 layout the GL backend uses. */
#include <string.h>

#include "graph.h"

/* Size of tensor t for dims 1/2/3 (see model.h); false on overflow. */
static bool phwc4_dims(const texmem_tensor *t, unsigned dims, texmem_precision p, uint64_t out[3]) {
  uint64_t b = t->b, h = t->h, w = t->w, slices = ((uint64_t)t->c + 3) / 4;
  uint64_t r0, r1;
  out[0] = out[1] = out[2] = 1;
  switch (dims) {
  case 1:
    if (p == TEXMEM_PRECISION_STORED) /* dense, in the element type as stored */
      return !__builtin_mul_overflow(b, h, &r0) && !__builtin_mul_overflow(r0, w, &r0) &&
             !__builtin_mul_overflow(r0, (uint64_t)t->c, &r0) &&
             !__builtin_mul_overflow(r0, (uint64_t)texmem_dtype_size(t->type), &out[0]);
    return !__builtin_mul_overflow(b, h, &r0) && !__builtin_mul_overflow(r0, w, &r0) &&
           !__builtin_mul_overflow(r0, slices, &r0) &&
           !__builtin_mul_overflow(r0, p == TEXMEM_PRECISION_FP32 ? 16u : 8u, &out[0]);
  case 2:
    if (__builtin_mul_overflow(w, b, &r0) || __builtin_mul_overflow(h, slices, &r1)) return false;
    out[0] = r0;
    out[1] = r1;
    return true;
  default:
    if (__builtin_mul_overflow(b, slices, &r0)) return false;
    out[0] = w;
    out[1] = h;
    out[2] = r0;
    return true;
  }
}

texmem_status texmem_model_records(const texmem_model *m, unsigned dims, texmem_precision precision,
                                   texmem_record **out, size_t *n, int32_t **tensor_of,
                                   texmem_error *err) {
  if (out) *out = NULL;
  if (n) *n = 0;
  if (tensor_of) *tensor_of = NULL;
  if (!m || !out || !n) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "model, out or n is NULL");
  if (dims < 1 || dims > 3)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "dims must be 1, 2 or 3, not %u", dims);
  if (precision != TEXMEM_PRECISION_FP16 && precision != TEXMEM_PRECISION_FP32 &&
      precision != TEXMEM_PRECISION_STORED)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "precision %d unknown", (int)precision);

  /* Last reader of every tensor. */
  int64_t *last = malloc((m->n_tensors ? m->n_tensors : 1) * sizeof *last);
  if (!last) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for %zu tensors", m->n_tensors);
  for (size_t i = 0; i < m->n_tensors; i++) last[i] = -1;
  for (size_t k = 0; k < m->n_ops; k++)
    for (size_t j = 0; j < m->ops[k].n_inputs; j++) {
      int32_t ti = m->ops[k].inputs[j];
      if (ti >= 0 && (size_t)ti < m->n_tensors) last[ti] = (int64_t)k;
    }

  /* Operators in order, outputs in order: records come sorted by first
   * task with ties in output order. */
  size_t count = 0;
  for (size_t i = 0; i < m->n_tensors; i++)
    if (m->tensors[i].flags & TEXMEM_TENSOR_INTERMEDIATE) count++;
  texmem_record *rec = malloc((count ? count : 1) * sizeof *rec);
  int32_t *of = malloc((count ? count : 1) * sizeof *of);
  if (!rec || !of) {
    free(last);
    free(rec);
    free(of);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for %zu records", count);
  }
  size_t r = 0;
  for (size_t k = 0; k < m->n_ops; k++)
    for (size_t j = 0; j < m->ops[k].n_outputs; j++) {
      int32_t ti = m->ops[k].outputs[j];
      const texmem_tensor *t = &m->tensors[ti];
      if (!(t->flags & TEXMEM_TENSOR_INTERMEDIATE) || t->producer != (int32_t)k) continue;
      texmem_record *x = &rec[r];
      if (!phwc4_dims(t, dims, precision, x->dims)) {
        free(last);
        free(rec);
        free(of);
        return texmem__fail(err, TEXMEM_STATUS_OVERFLOW, "tensor %d ('%s'): PHWC4 size overflows 64 bits",
                            (int)ti, t->name);
      }
      x->id = r;
      x->first_task = k;
      x->last_task = last[ti] > (int64_t)k ? (uint64_t)last[ti] : k;
      of[r++] = ti;
    }
  free(last);
  *out = rec;
  *n = r;
  if (tensor_of)
    *tensor_of = of;
  else
    free(of);
  return TEXMEM_STATUS_OK;
}

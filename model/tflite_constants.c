/* The reader's constant data and its load budget. Every allocation the
 * reader makes for a model is charged against the budget first, so a
 * hostile file cannot make it allocate out of proportion to its size. A
 * constant's bytes come from its folded data, else from the file, and
 * sparse file data is densified on the way (charged too). The option
 * parsers (tflite_options.c) read small integer constants (axes, paddings,
 * shapes) through texmem__tfl_const_ints, so they depend on this file and
 * not on the reader that calls them. */
#include <stdlib.h>

#include "tflite_reader.h"

/* Counts `bytes` about to be allocated for tensor `ti` (-1: tables) against
 * the load budget; past it, BAD_MODEL naming the tensor. */
texmem_status texmem__tfl_charge(texmem__tfl_reader *r, int32_t ti, size_t bytes) {
  if (bytes <= r->budget - r->used) {
    r->used += bytes;
    return TEXMEM_STATUS_OK;
  }
  if (ti < 0)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                        "model tables need %zu bytes, past the load budget of %zu bytes (%zu used; "
                        "texmem_model_load_desc.max_load_bytes)",
                        bytes, r->budget, r->used);
  const texmem_tensor *t = (size_t)ti < r->m->n_tensors ? &r->m->tensors[ti] : NULL;
  return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                      "tensor %d ('%s'): its data needs %zu bytes, past the load budget of %zu bytes "
                      "(%zu used; texmem_model_load_desc.max_load_bytes)",
                      (int)ti, t ? t->name : "", bytes, r->budget, r->used);
}

/* Dense bytes of a constant in its current type (folded data or the file's),
 * densifying sparse file data into *owned. */
texmem_status texmem__tfl_const_bytes(texmem__tfl_reader *r, int32_t ti, const uint8_t **data,
                                      size_t *size, void **owned) {
  texmem_tensor *t = &r->m->tensors[ti];
  texmem__tfl_raw *raw = &r->raw[ti];
  *owned = NULL;
  if (t->data) {
    *data = t->data;
    *size = t->data_size;
    return TEXMEM_STATUS_OK;
  }
  if (!raw->data) {
    *data = NULL;
    *size = 0;
    return TEXMEM_STATUS_OK;
  }
  if (!raw->sparse) {
    *data = raw->data;
    *size = raw->size;
    return TEXMEM_STATUS_OK;
  }
  size_t esize = texmem_dtype_size(t->type);
  uint64_t count;
  if (!texmem__shape_elements(t->rank, t->shape, &count) || count > SIZE_MAX / esize)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "tensor %d ('%s'): dense size too large", (int)ti,
                        t->name);
  texmem_status s = texmem__tfl_charge(r, ti, (size_t)count * esize);
  if (s) return s;
  s = texmem__tflite_densify(t, (size_t)ti, &raw->sparsity, raw->data, raw->size / esize, esize,
                             (size_t)count * esize, owned, size, r->err);
  if (s) return s;
  *data = *owned;
  return TEXMEM_STATUS_OK;
}

/* Integer values of a small constant input (int32 or int64). */
texmem_status texmem__tfl_const_ints(texmem__tfl_reader *r, unsigned k, const char *opname, const char *what,
                                     int32_t ti, int64_t *vals, size_t max, size_t *n) {
  texmem_tensor *t = &r->m->tensors[ti];
  if (!(t->flags & TEXMEM_TENSOR_CONSTANT) ||
      (t->type != TEXMEM_DTYPE_INT32 && t->type != TEXMEM_DTYPE_INT64))
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED_OP,
                        "operator %u (%s): %s (tensor %d) must be a constant int32/int64 tensor", k,
                        opname, what, (int)ti);
  const uint8_t *data;
  size_t size;
  void *owned;
  texmem_status s = texmem__tfl_const_bytes(r, ti, &data, &size, &owned);
  if (s) return s;
  size_t esize = texmem_dtype_size(t->type);
  size_t count = size / esize;
  if (count > max) {
    free(owned);
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %u (%s): %s has %zu values, at most %zu",
                        k, opname, what, count, max);
  }
  for (size_t i = 0; i < count; i++) {
    if (esize == 4) {
      vals[i] = (int32_t)texmem__fb_u32(data + 4 * i);
    } else {
      vals[i] = (int64_t)texmem__fb_u64(data + 8 * i);
    }
  }
  *n = count;
  free(owned);
  return TEXMEM_STATUS_OK;
}

/* Dynamic dimensions of a TFLite model (-1 in shape_signature) fixed from
 * caller-given input shapes. There is no shape inference through the
 * operators: converters store the intermediate shapes static apart from a
 * dynamic batch (the placeholder 1 in `shape`), so inputs take the given
 * shapes and every other tensor whose only dynamic dimension is dimension 0
 * takes the inputs' batch. Any other dynamic dimension would need
 * per-operator shape rules, and is refused naming the tensor. */
#include <stdio.h>
#include <string.h>

#include "tflite.h"

/* Graph input position of spec, or n_inputs if none matches. */
static size_t find_input(const texmem_model *m, const texmem_input_shape *spec) {
  if (!spec->name) return spec->input < m->n_inputs ? spec->input : m->n_inputs;
  for (size_t i = 0; i < m->n_inputs; i++)
    if (!strcmp(m->tensors[m->inputs[i]].name, spec->name)) return i;
  return m->n_inputs;
}

static const char *dim_list(const int32_t *d, unsigned rank, char *buf, size_t n) {
  size_t at = 0;
  buf[0] = 0;
  for (unsigned i = 0; i < rank && at < n; i++)
    at += (size_t)snprintf(buf + at, n - at, "%s%d", i ? "," : "", (int)d[i]);
  return buf;
}

texmem_status texmem__apply_input_shapes(texmem_model *m, const uint8_t *dynamic,
                                         const texmem_model_load_desc *desc,
                                         uint64_t max_elements, texmem_error *err) {
  size_t n_specs = desc ? desc->n_input_shapes : 0;
  if (n_specs && !desc->input_shapes)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "input_shapes is NULL");
  bool *fixed = calloc(m->n_tensors ? m->n_tensors : 1, sizeof *fixed);
  if (!fixed) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for %zu tensors", m->n_tensors);
  texmem_status s = TEXMEM_STATUS_OK;
  int64_t batch = -1; /* the inputs' dynamic batch, once one is given */
  char want[64], got[64];
  for (size_t k = 0; k < n_specs && !s; k++) {
    const texmem_input_shape *spec = &desc->input_shapes[k];
    size_t i = find_input(m, spec);
    if (i == m->n_inputs) {
      if (spec->name)
        s = texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "input shape %zu: no graph input is named '%s'", k,
                         spec->name);
      else
        s = texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "input shape %zu: graph input %zu out of range (%zu inputs)",
                         k, spec->input, m->n_inputs);
      break;
    }
    int32_t ti = m->inputs[i];
    texmem_tensor *t = &m->tensors[ti];
    if (fixed[ti]) {
      s = texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "input shape %zu: input tensor %d ('%s') given twice", k,
                       (int)ti, t->name);
      break;
    }
    bool ok = spec->rank == t->rank;
    for (unsigned d = 0; ok && d < t->rank; d++)
      ok = dynamic[ti] & (1u << d) ? spec->shape[d] >= 1 : spec->shape[d] == t->shape[d];
    uint64_t count = 0;
    if (ok) ok = texmem__shape_elements(spec->rank, spec->shape, &count) && count <= max_elements;
    if (!ok) {
      int32_t sig[TEXMEM_MAX_RANK];
      for (unsigned d = 0; d < t->rank; d++) sig[d] = dynamic[ti] & (1u << d) ? -1 : t->shape[d];
      s = texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                       "input tensor %d ('%s'): shape [%s] does not fit its signature [%s] (-1 = any "
                       "size; at most 2^40 elements)",
                       (int)ti, t->name, dim_list(spec->shape, spec->rank < TEXMEM_MAX_RANK ? spec->rank : TEXMEM_MAX_RANK, got, sizeof got),
                       dim_list(sig, t->rank, want, sizeof want));
      break;
    }
    if (t->rank >= 2 && (dynamic[ti] & 1u)) {
      if (batch >= 0 && batch != spec->shape[0]) {
        s = texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                         "input tensor %d ('%s'): batch %d differs from another input's %lld", (int)ti, t->name,
                         (int)spec->shape[0], (long long)batch);
        break;
      }
      batch = spec->shape[0];
    }
    texmem__tensor_set_shape(t, t->rank, spec->shape);
    fixed[ti] = true;
  }
  for (size_t ti = 0; ti < m->n_tensors && !s; ti++) {
    if (!dynamic[ti] || fixed[ti]) continue;
    texmem_tensor *t = &m->tensors[ti];
    unsigned d = (unsigned)__builtin_ctz(dynamic[ti]);
    if (t->flags & TEXMEM_TENSOR_INPUT) {
      s = texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                       "graph input tensor %zu ('%s'): dimension %u is dynamic (-1 in shape_signature); "
                       "give the input's shape (texmem_model_load_desc, --input-shape)",
                       ti, t->name, d);
    } else if (dynamic[ti] != 1u || t->rank < 2 || batch < 0) {
      s = texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                       "tensor %zu ('%s'): dimension %u is dynamic (-1 in shape_signature) and %s", ti,
                       t->name, d,
                       dynamic[ti] != 1u || t->rank < 2
                           ? "not the batch: only a dynamic batch follows the input shapes"
                           : "no input shape gives a dynamic batch (--input-shape)");
    } else {
      int32_t shape[TEXMEM_MAX_RANK];
      memcpy(shape, t->shape, sizeof shape);
      shape[0] = (int32_t)batch;
      uint64_t count;
      if (!texmem__shape_elements(t->rank, shape, &count) || count > max_elements)
        s = texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "tensor %zu ('%s'): batch %lld makes it over 2^40 elements",
                         ti, t->name, (long long)batch);
      else
        texmem__tensor_set_shape(t, t->rank, shape);
    }
  }
  free(fixed);
  return s;
}

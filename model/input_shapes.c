/* Dynamic dimensions of a TFLite model (-1 in shape_signature) fixed from
 * caller-given input shapes, or run at the placeholders the file stores in
 * `shape` (usually 1), as TFLite runs a model it is not asked to resize.
 * There is no shape inference through the operators: converters store the
 * intermediate shapes static apart from a dynamic batch, so inputs take the
 * given shapes and every other tensor whose only dynamic dimension is
 * dimension 0 takes the inputs' batch. Any other dynamic dimension would
 * need per-operator shape rules, and is refused naming the tensor once an
 * input is resized; at the placeholders every stored shape holds. */
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

/* The shapes being fixed: per tensor whether it is, the inputs' batch. */
typedef struct fixing {
  texmem_model *m;
  const uint8_t *dynamic;
  uint64_t max_elements;
  bool *fixed;
  int64_t batch;      /* the inputs' dynamic batch, once one is known; -1 before */
  bool resized;       /* some dynamic input was given a shape */
  texmem_error *err;
} fixing;

/* Input tensor ti's dynamic batch b, which every input shares. */
static texmem_status take_batch(fixing *fx, int32_t ti, int64_t b, bool placeholder) {
  const texmem_tensor *t = &fx->m->tensors[ti];
  if (t->rank < 2 || !(fx->dynamic[ti] & 1u)) return TEXMEM_STATUS_OK;
  if (fx->batch >= 0 && fx->batch != b)
    return texmem__fail(fx->err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "input tensor %d ('%s'): batch %lld%s differs from another input's %lld%s", (int)ti, t->name,
                        (long long)b, placeholder ? " (its placeholder)" : "", (long long)fx->batch,
                        placeholder ? "; give its shape too (--input-shape)" : "");
  fx->batch = b;
  return TEXMEM_STATUS_OK;
}

/* One caller-given input shape. */
static texmem_status apply_spec(fixing *fx, size_t k, const texmem_input_shape *spec) {
  texmem_model *m = fx->m;
  size_t i = find_input(m, spec);
  if (i == m->n_inputs) {
    if (spec->name)
      return texmem__fail(fx->err, TEXMEM_STATUS_INVALID_ARGUMENT, "input shape %zu: no graph input is named '%s'", k,
                          spec->name);
    return texmem__fail(fx->err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "input shape %zu: graph input %zu out of range (%zu inputs)", k, spec->input, m->n_inputs);
  }
  int32_t ti = m->inputs[i];
  texmem_tensor *t = &m->tensors[ti];
  if (fx->fixed[ti])
    return texmem__fail(fx->err, TEXMEM_STATUS_INVALID_ARGUMENT, "input shape %zu: input tensor %d ('%s') given twice",
                        k, (int)ti, t->name);
  bool ok = spec->rank == t->rank;
  for (unsigned d = 0; ok && d < t->rank; d++)
    ok = fx->dynamic[ti] & (1u << d) ? spec->shape[d] >= 1 : spec->shape[d] == t->shape[d];
  uint64_t count = 0;
  if (ok) ok = texmem__shape_elements(spec->rank, spec->shape, &count) && count <= fx->max_elements;
  if (!ok) {
    char want[64], got[64];
    int32_t sig[TEXMEM_MAX_RANK];
    for (unsigned d = 0; d < t->rank; d++) sig[d] = fx->dynamic[ti] & (1u << d) ? -1 : t->shape[d];
    unsigned shown = spec->rank < TEXMEM_MAX_RANK ? spec->rank : TEXMEM_MAX_RANK;
    return texmem__fail(fx->err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "input tensor %d ('%s'): shape [%s] does not fit its signature [%s] (-1 = any "
                        "size; at most 2^40 elements)",
                        (int)ti, t->name, dim_list(spec->shape, shown, got, sizeof got),
                        dim_list(sig, t->rank, want, sizeof want));
  }
  texmem_status s = take_batch(fx, ti, spec->shape[0], false);
  if (s) return s;
  if (fx->dynamic[ti]) fx->resized = true;
  texmem__tensor_set_shape(t, t->rank, spec->shape);
  fx->fixed[ti] = true;
  return TEXMEM_STATUS_OK;
}

/* Graph inputs no shape was given for run at their placeholders, as
 * TFLite runs them; the model says which dimensions. */
static texmem_status placeholders(fixing *fx) {
  texmem_model *m = fx->m;
  m->placeholder = calloc(m->n_inputs ? m->n_inputs : 1, sizeof *m->placeholder);
  if (!m->placeholder) return texmem__fail(fx->err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for the inputs");
  for (size_t i = 0; i < m->n_inputs; i++) {
    int32_t ti = m->inputs[i];
    if (!fx->dynamic[ti] || fx->fixed[ti]) continue;
    texmem_status s = take_batch(fx, ti, m->tensors[ti].shape[0], true);
    if (s) return s;
    m->placeholder[i] = fx->dynamic[ti];
    fx->fixed[ti] = true;
  }
  return TEXMEM_STATUS_OK;
}

/* Another tensor with dynamic dimensions: its batch follows the inputs'. */
static texmem_status follow(fixing *fx, size_t ti) {
  texmem_tensor *t = &fx->m->tensors[ti];
  uint8_t dyn = fx->dynamic[ti];
  unsigned d = (unsigned)__builtin_ctz(dyn);
  if (dyn != 1u || t->rank < 2 || fx->batch < 0)
    return texmem__fail(fx->err, TEXMEM_STATUS_UNSUPPORTED,
                        "tensor %zu ('%s'): dimension %u is dynamic (-1 in shape_signature) and %s", ti, t->name, d,
                        dyn != 1u || t->rank < 2 ? "not the batch: only a dynamic batch follows the input shapes"
                                                 : "no input shape gives a dynamic batch (--input-shape)");
  int32_t shape[TEXMEM_MAX_RANK];
  memcpy(shape, t->shape, sizeof shape);
  shape[0] = (int32_t)fx->batch;
  uint64_t count;
  if (!texmem__shape_elements(t->rank, shape, &count) || count > fx->max_elements)
    return texmem__fail(fx->err, TEXMEM_STATUS_INVALID_ARGUMENT, "tensor %zu ('%s'): batch %lld makes it over 2^40 elements",
                        ti, t->name, (long long)fx->batch);
  texmem__tensor_set_shape(t, t->rank, shape);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__apply_input_shapes(texmem_model *m, const uint8_t *dynamic,
                                         const texmem_model_load_desc *desc,
                                         uint64_t max_elements, texmem_error *err) {
  size_t n_specs = desc ? desc->n_input_shapes : 0;
  if (n_specs && !desc->input_shapes)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "input_shapes is NULL");
  fixing fx = {m, dynamic, max_elements, calloc(m->n_tensors ? m->n_tensors : 1, sizeof(bool)), -1, false, err};
  if (!fx.fixed) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for %zu tensors", m->n_tensors);
  texmem_status s = TEXMEM_STATUS_OK;
  for (size_t k = 0; k < n_specs && !s; k++) s = apply_spec(&fx, k, &desc->input_shapes[k]);
  if (!s) s = placeholders(&fx);
  /* With every input at its placeholder, the stored shapes are the ones
   * TFLite runs: nothing to follow. */
  for (size_t ti = 0; ti < m->n_tensors && !s && fx.resized; ti++)
    if (dynamic[ti] && !fx.fixed[ti]) s = follow(&fx, ti);
  free(fx.fixed);
  return s;
}

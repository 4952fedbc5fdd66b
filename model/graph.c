/* The graph IR: names, accessors, the builder and destruction. */
#include <string.h>

#include "graph.h"
#include "tflite.h"

static const char *const op_names[] = {
#define X(name) #name,
    TEXMEM_OP_LIST(X)
#undef X
};

const char *texmem_op_type_name(texmem_op_type t) {
  if ((unsigned)t >= TEXMEM_OP_COUNT_) return NULL;
  return op_names[t];
}

const char *texmem_tflite_builtin_name(int32_t code) { return texmem__tflite_op_name(code); }

const char *texmem_op_name(const texmem_op *op) {
  if (!op) return "UNKNOWN";
  if (op->type != TEXMEM_OP_OTHER) {
    const char *n = texmem_op_type_name(op->type);
    return n ? n : "UNKNOWN";
  }
  if (op->options.custom_name && op->options.custom_name[0]) return op->options.custom_name;
  const char *n = texmem__tflite_op_name(op->options.builtin_code);
  return n ? n : "UNKNOWN_BUILTIN";
}

static const struct {
  const char *name;
  size_t size;
} dtypes[TEXMEM_DTYPE_COUNT_] = {
    [TEXMEM_DTYPE_FLOAT32] = {"float32", 4}, [TEXMEM_DTYPE_FLOAT16] = {"float16", 2},
    [TEXMEM_DTYPE_INT32] = {"int32", 4},     [TEXMEM_DTYPE_UINT8] = {"uint8", 1},
    [TEXMEM_DTYPE_INT64] = {"int64", 8},     [TEXMEM_DTYPE_BOOL] = {"bool", 1},
    [TEXMEM_DTYPE_INT16] = {"int16", 2},     [TEXMEM_DTYPE_INT8] = {"int8", 1},
    [TEXMEM_DTYPE_FLOAT64] = {"float64", 8}, [TEXMEM_DTYPE_UINT16] = {"uint16", 2},
    [TEXMEM_DTYPE_UINT32] = {"uint32", 4},   [TEXMEM_DTYPE_UINT64] = {"uint64", 8},
    [TEXMEM_DTYPE_COMPLEX64] = {"complex64", 8}, [TEXMEM_DTYPE_COMPLEX128] = {"complex128", 16},
    [TEXMEM_DTYPE_BFLOAT16] = {"bfloat16", 2},
};

size_t texmem_dtype_size(texmem_dtype t) {
  return (unsigned)t < TEXMEM_DTYPE_COUNT_ ? dtypes[t].size : 0;
}
const char *texmem_dtype_name(texmem_dtype t) {
  return (unsigned)t < TEXMEM_DTYPE_COUNT_ ? dtypes[t].name : "unknown";
}

texmem_op_options texmem_op_options_default(void) {
  texmem_op_options o;
  memset(&o, 0, sizeof o);
  o.stride_w = o.stride_h = 1;
  o.dilation_w = o.dilation_h = 1;
  o.depth_multiplier = 1;
  o.beta = 1.0f;
  return o;
}

/* ---- accessors ---- */

size_t texmem_model_tensor_count(const texmem_model *m) { return m ? m->n_tensors : 0; }
size_t texmem_model_op_count(const texmem_model *m) { return m ? m->n_ops : 0; }
size_t texmem_model_folded_count(const texmem_model *m) { return m ? m->n_folded : 0; }
uint32_t texmem_model_input_placeholder(const texmem_model *m, size_t i) {
  return m && m->placeholder && i < m->n_inputs ? m->placeholder[i] : 0;
}

const texmem_tensor *texmem_model_tensor(const texmem_model *m, size_t i) {
  return m && i < m->n_tensors ? &m->tensors[i] : NULL;
}
const texmem_op *texmem_model_op(const texmem_model *m, size_t i) {
  return m && i < m->n_ops ? &m->ops[i] : NULL;
}
const int32_t *texmem_model_inputs(const texmem_model *m, size_t *n) {
  if (n) *n = m ? m->n_inputs : 0;
  return m ? m->inputs : NULL;
}
const int32_t *texmem_model_outputs(const texmem_model *m, size_t *n) {
  if (n) *n = m ? m->n_outputs : 0;
  return m ? m->outputs : NULL;
}

/* ---- shared helpers ---- */

void texmem__tensor_set_shape(texmem_tensor *t, unsigned rank, const int32_t *shape) {
  t->rank = rank;
  for (unsigned i = 0; i < TEXMEM_MAX_RANK; i++) t->shape[i] = i < rank ? shape[i] : 1;
  uint32_t d[4] = {1, 1, 1, 1}; /* b, h, w, c */
  switch (rank) {
  case 4: d[0] = (uint32_t)shape[0]; d[1] = (uint32_t)shape[1]; d[2] = (uint32_t)shape[2]; d[3] = (uint32_t)shape[3]; break;
  case 3: d[0] = (uint32_t)shape[0]; d[2] = (uint32_t)shape[1]; d[3] = (uint32_t)shape[2]; break;
  case 2: d[0] = (uint32_t)shape[0]; d[3] = (uint32_t)shape[1]; break;
  case 1: d[3] = (uint32_t)shape[0]; break;
  default: break;
  }
  t->b = d[0];
  t->h = d[1];
  t->w = d[2];
  t->c = d[3];
}

bool texmem__shape_elements(unsigned rank, const int32_t *shape, uint64_t *count) {
  uint64_t n = 1;
  for (unsigned i = 0; i < rank; i++) {
    if (shape[i] < 0 || __builtin_mul_overflow(n, (uint64_t)shape[i], &n)) return false;
  }
  *count = n;
  return true;
}

void texmem__model_update_flags(texmem_model *m) {
  for (size_t i = 0; i < m->n_tensors; i++) {
    m->tensors[i].producer = -1;
    m->tensors[i].flags &= ~(uint32_t)TEXMEM_TENSOR_INTERMEDIATE;
  }
  for (size_t k = 0; k < m->n_ops; k++)
    for (size_t j = 0; j < m->ops[k].n_outputs; j++) {
      int32_t o = m->ops[k].outputs[j];
      if (o >= 0 && (size_t)o < m->n_tensors) m->tensors[o].producer = (int32_t)k;
    }
  const uint32_t not_intermediate =
      TEXMEM_TENSOR_INPUT | TEXMEM_TENSOR_OUTPUT | TEXMEM_TENSOR_CONSTANT;
  for (size_t i = 0; i < m->n_tensors; i++)
    if (m->tensors[i].producer >= 0 && !(m->tensors[i].flags & not_intermediate))
      m->tensors[i].flags |= TEXMEM_TENSOR_INTERMEDIATE;
}

texmem_status texmem__model_reserve_tensors(texmem_model *m, size_t n, texmem_error *err) {
  void *grown = texmem__grow(m->tensors, &m->cap_tensors, n, sizeof *m->tensors);
  if (!grown) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for %zu tensors", n);
  m->tensors = grown;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__model_reserve_ops(texmem_model *m, size_t n, texmem_error *err) {
  void *grown = texmem__grow(m->ops, &m->cap_ops, n, sizeof *m->ops);
  if (!grown) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for %zu operators", n);
  m->ops = grown;
  return TEXMEM_STATUS_OK;
}

void texmem__tensor_free(texmem_tensor *t) {
  if (t->name && t->name[0]) free((void *)t->name);
  free((void *)t->data);
  t->name = "";
  t->data = NULL;
  t->data_size = 0;
}

void texmem__op_free(texmem_op *op) {
  free((void *)op->inputs);
  free((void *)op->outputs);
  free((void *)op->options.custom_name);
  free((void *)op->options.custom_options);
  op->inputs = op->outputs = NULL;
  op->options.custom_name = NULL;
  op->options.custom_options = NULL;
}

void texmem_model_destroy(texmem_model *m) {
  if (!m) return;
  for (size_t i = 0; i < m->n_tensors; i++) texmem__tensor_free(&m->tensors[i]);
  for (size_t i = 0; i < m->n_ops; i++) texmem__op_free(&m->ops[i]);
  free(m->tensors);
  free(m->ops);
  free(m->inputs);
  free(m->outputs);
  free(m->placeholder);
  free(m);
}

/* ---- builder ---- */

texmem_status texmem_model_create(texmem_model **out, texmem_error *err) {
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "out is NULL");
  *out = calloc(1, sizeof **out);
  if (!*out) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for a model");
  return TEXMEM_STATUS_OK;
}

static texmem_status add_tensor(texmem_model *m, const char *name, texmem_dtype type,
                                unsigned rank, const int32_t *shape, bool need_positive,
                                int32_t *index, texmem_tensor **added, texmem_error *err) {
  if (!m) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "model is NULL");
  if ((unsigned)type >= TEXMEM_DTYPE_COUNT_)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "tensor type %d unknown", (int)type);
  if (rank > TEXMEM_MAX_RANK || (rank && !shape))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "tensor rank %u above %d or shape NULL",
                        rank, TEXMEM_MAX_RANK);
  for (unsigned i = 0; i < rank; i++)
    if (shape[i] < (need_positive ? 1 : 0))
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "tensor dimension %u is %d", i,
                          (int)shape[i]);
  uint64_t count;
  if (!texmem__shape_elements(rank, shape, &count) ||
      count > (uint64_t)SIZE_MAX / 8 || m->n_tensors >= INT32_MAX)
    return texmem__fail(err, TEXMEM_STATUS_OVERFLOW, "tensor shape product too large");
  texmem_status s = texmem__model_reserve_tensors(m, m->n_tensors + 1, err);
  if (s) return s;
  texmem_tensor *t = &m->tensors[m->n_tensors];
  memset(t, 0, sizeof *t);
  t->name = "";
  if (name && name[0]) {
    char *d = texmem__strdup(name);
    if (!d) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for a tensor name");
    t->name = d;
  }
  t->type = type;
  t->producer = -1;
  texmem__tensor_set_shape(t, rank, shape);
  if (index) *index = (int32_t)m->n_tensors;
  m->n_tensors++;
  *added = t;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_model_add_tensor(texmem_model *m, const char *name, texmem_dtype type,
                                      unsigned rank, const int32_t *shape, int32_t *index,
                                      texmem_error *err) {
  texmem_tensor *t;
  return add_tensor(m, name, type, rank, shape, true, index, &t, err);
}

texmem_status texmem_model_add_constant(texmem_model *m, const char *name, texmem_dtype type,
                                        unsigned rank, const int32_t *shape, const void *data,
                                        size_t size, int32_t *index, texmem_error *err) {
  uint64_t count;
  if (rank > TEXMEM_MAX_RANK || (rank && !shape) || !texmem__shape_elements(rank, shape, &count))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "constant shape invalid");
  size_t esize = texmem_dtype_size(type);
  if (esize == 0 || count > SIZE_MAX / esize || count * esize != size || (size && !data))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "constant data is %zu bytes, shape needs %llu elements of %zu", size,
                        (unsigned long long)count, esize);
  size_t out_size = type == TEXMEM_DTYPE_FLOAT16 ? (size_t)count * 4 : size;
  void *copy = malloc(out_size ? out_size : 1);
  if (!copy) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for constant data");
  if (type == TEXMEM_DTYPE_FLOAT16) {
    const uint8_t *src = data;
    float *dst = copy;
    for (size_t i = 0; i < count; i++)
      dst[i] = texmem__f16_to_f32((uint16_t)(src[2 * i] | src[2 * i + 1] << 8));
    type = TEXMEM_DTYPE_FLOAT32;
  } else if (size) {
    memcpy(copy, data, size);
  }
  texmem_tensor *t = NULL;
  texmem_status s = add_tensor(m, name, type, rank, shape, false, index, &t, err);
  if (s) {
    free(copy);
    return s;
  }
  t->flags = TEXMEM_TENSOR_CONSTANT;
  t->data = copy;
  t->data_size = out_size;
  return TEXMEM_STATUS_OK;
}

static texmem_status copy_indices(const int32_t *src, size_t n, int32_t **dst, texmem_error *err) {
  *dst = NULL;
  if (n == 0) return TEXMEM_STATUS_OK;
  if (n > SIZE_MAX / sizeof **dst || !(*dst = malloc(n * sizeof **dst)))
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for %zu tensor indices", n);
  memcpy(*dst, src, n * sizeof **dst);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_model_add_op(texmem_model *m, texmem_op_type type, const int32_t *inputs,
                                  size_t n_inputs, const int32_t *outputs, size_t n_outputs,
                                  const texmem_op_options *options, size_t *index,
                                  texmem_error *err) {
  if (!m) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "model is NULL");
  if ((unsigned)type >= TEXMEM_OP_COUNT_)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator type %d unknown", (int)type);
  const char *name = op_names[type];
  if ((n_inputs && !inputs) || (n_outputs && !outputs) || n_outputs == 0)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: inputs/outputs missing", name);
  for (size_t i = 0; i < n_inputs; i++)
    if (inputs[i] < -1 || (inputs[i] >= 0 && (size_t)inputs[i] >= m->n_tensors))
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: input %zu is tensor %d, not in the model",
                          name, i, (int)inputs[i]);
  for (size_t i = 0; i < n_outputs; i++) {
    int32_t o = outputs[i];
    if (o < 0 || (size_t)o >= m->n_tensors)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: output %zu is tensor %d, not in the model",
                          name, i, (int)o);
    if (m->tensors[o].flags & TEXMEM_TENSOR_CONSTANT)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: output tensor %d is a constant", name, (int)o);
    if (m->tensors[o].producer >= 0)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: output tensor %d already produced by operator %d",
                          name, (int)o, (int)m->tensors[o].producer);
    for (size_t j = 0; j < i; j++)
      if (outputs[j] == o)
        return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: output tensor %d listed twice", name, (int)o);
  }
  texmem_status s = texmem__model_reserve_ops(m, m->n_ops + 1, err);
  if (s) return s;
  texmem_op op;
  memset(&op, 0, sizeof op);
  op.type = type;
  op.options = options ? *options : texmem_op_options_default();
  op.options.custom_name = NULL;
  op.options.custom_options = NULL;
  op.options.custom_options_size = 0;
  int32_t *in = NULL, *outv = NULL;
  char *cname = NULL;
  uint8_t *copt = NULL;
  if ((s = copy_indices(inputs, n_inputs, &in, err)) ||
      (s = copy_indices(outputs, n_outputs, &outv, err)))
    goto fail;
  if (options && options->custom_name && !(cname = texmem__strdup(options->custom_name))) {
    s = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for a custom name");
    goto fail;
  }
  if (options && options->custom_options && options->custom_options_size) {
    if (!(copt = malloc(options->custom_options_size))) {
      s = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for custom options");
      goto fail;
    }
    memcpy(copt, options->custom_options, options->custom_options_size);
    op.options.custom_options_size = options->custom_options_size;
  }
  op.n_inputs = n_inputs;
  op.inputs = in;
  op.n_outputs = n_outputs;
  op.outputs = outv;
  op.options.custom_name = cname;
  op.options.custom_options = copt;
  for (size_t i = 0; i < n_outputs; i++) {
    texmem_tensor *t = &m->tensors[outputs[i]];
    t->producer = (int32_t)m->n_ops;
    if (!(t->flags & (TEXMEM_TENSOR_INPUT | TEXMEM_TENSOR_OUTPUT)))
      t->flags |= TEXMEM_TENSOR_INTERMEDIATE;
  }
  if (index) *index = m->n_ops;
  m->ops[m->n_ops++] = op;
  return TEXMEM_STATUS_OK;
fail:
  free(in);
  free(outv);
  free(cname);
  free(copt);
  return s;
}

texmem_status texmem_model_set_io(texmem_model *m, const int32_t *inputs, size_t n_inputs,
                                  const int32_t *outputs, size_t n_outputs, texmem_error *err) {
  if (!m) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "model is NULL");
  if ((n_inputs && !inputs) || (n_outputs && !outputs))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "inputs/outputs NULL");
  for (size_t k = 0; k < 2; k++) {
    const int32_t *v = k ? outputs : inputs;
    size_t n = k ? n_outputs : n_inputs;
    for (size_t i = 0; i < n; i++)
      if (v[i] < 0 || (size_t)v[i] >= m->n_tensors)
        return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "graph %s %zu is tensor %d, not in the model",
                            k ? "output" : "input", i, (int)v[i]);
  }
  int32_t *in = NULL, *outv = NULL;
  texmem_status s;
  if ((s = copy_indices(inputs, n_inputs, &in, err)) ||
      (s = copy_indices(outputs, n_outputs, &outv, err))) {
    free(in);
    return s;
  }
  free(m->inputs);
  free(m->outputs);
  free(m->placeholder); /* the builder's inputs are static */
  m->placeholder = NULL;
  m->inputs = in;
  m->n_inputs = n_inputs;
  m->outputs = outv;
  m->n_outputs = n_outputs;
  for (size_t i = 0; i < m->n_tensors; i++)
    m->tensors[i].flags &= ~(uint32_t)(TEXMEM_TENSOR_INPUT | TEXMEM_TENSOR_OUTPUT);
  for (size_t i = 0; i < n_inputs; i++) m->tensors[in[i]].flags |= TEXMEM_TENSOR_INPUT;
  for (size_t i = 0; i < n_outputs; i++) m->tensors[outv[i]].flags |= TEXMEM_TENSOR_OUTPUT;
  texmem__model_update_flags(m);
  return TEXMEM_STATUS_OK;
}

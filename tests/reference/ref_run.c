/* Runs a whole texmem_model on the CPU, operator by operator, keeping every
 * tensor's values (so GPU results can be compared tensor by tensor). */
#include <stdio.h>
#include <string.h>

#include "ref_internal.h"

void texmem_ref_result_destroy(texmem_ref_result *r) {
  if (!r) return;
  if (r->values)
    for (size_t i = 0; i < r->n_tensors; i++) free(r->values[i]);
  free(r->values);
  free(r->counts);
  free(r);
}

static size_t elements(const texmem_tensor *t) {
  size_t n = 1;
  for (unsigned i = 0; i < t->rank; i++) n *= (size_t)t->shape[i];
  return n;
}

static bool int32_constant(const texmem_tensor *t, size_t n) {
  return (t->flags & TEXMEM_TENSOR_CONSTANT) && t->type == TEXMEM_DTYPE_INT32 && t->data &&
         t->data_size >= n * sizeof(int32_t);
}

/* Options from the op, with PAD paddings / MEAN axes taken from the int32
 * constant input when the reader left them empty. */
static texmem_op_options op_options(const texmem_model *m, const texmem_op *op) {
  texmem_op_options o = op->options;
  const texmem_tensor *in0 = op->n_inputs > 0 && op->inputs[0] >= 0
                                 ? texmem_model_tensor(m, (size_t)op->inputs[0]) : NULL;
  const texmem_tensor *in1 = op->n_inputs > 1 && op->inputs[1] >= 0
                                 ? texmem_model_tensor(m, (size_t)op->inputs[1]) : NULL;
  if (!in0 || !in1) return o;
  if (op->type == TEXMEM_OP_PAD && o.pad_rank == 0 && in0->rank > 0 &&
      int32_constant(in1, 2u * in0->rank)) {
    const int32_t *p = in1->data;
    o.pad_rank = in0->rank;
    for (unsigned i = 0; i < in0->rank; i++) {
      o.pad[i][0] = p[2 * i];
      o.pad[i][1] = p[2 * i + 1];
    }
  }
  if (op->type == TEXMEM_OP_MEAN && o.reduce_axes == 0 && int32_constant(in1, elements(in1))) {
    const int32_t *a = in1->data;
    for (size_t i = 0; i < elements(in1); i++) {
      int32_t ax = a[i] < 0 ? a[i] + (int32_t)in0->rank : a[i];
      if (ax >= 0 && ax < (int32_t)in0->rank) o.reduce_axes |= 1u << ax;
    }
  }
  return o;
}

/* Runs operator k into r (args: room for its inputs). */
static texmem_status run_op(const texmem_model *m, texmem_ref_result *r, size_t k,
                            const texmem_op *op, texmem_ref_tensor *args, texmem_error *err) {
  const char *name = texmem_op_type_name(op->type);
  bool split = op->type == TEXMEM_OP_SPLIT || op->type == TEXMEM_OP_SPLIT_V;
  if (op->n_outputs < 1 || (op->n_outputs != 1 && !split) || op->n_outputs > 64)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED, "operator %zu (%s): %zu inputs, %zu outputs",
                        k, name ? name : "?", op->n_inputs, op->n_outputs);
  for (size_t j = 0; j < op->n_inputs; j++) {
    int32_t ti = op->inputs[j];
    memset(&args[j], 0, sizeof args[j]);
    if (ti < 0) continue;
    const texmem_tensor *t = texmem_model_tensor(m, (size_t)ti);
    args[j] = texmem_ref_make(r->values[ti], t->rank, t->shape);
    if (!args[j].data && !(t->flags & TEXMEM_TENSOR_CONSTANT)) {
      return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                          "operator %zu (%s) reads tensor %d before anything writes it", k,
                          name ? name : "?", (int)ti);
    }
  }
  texmem_ref_tensor res[64];
  for (size_t j = 0; j < op->n_outputs; j++) {
    size_t oi = (size_t)op->outputs[j];
    const texmem_tensor *t = texmem_model_tensor(m, oi);
    if (t->type != TEXMEM_DTYPE_FLOAT32 || r->values[oi]) {
      return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                          "operator %zu (%s): output tensor %zu is %s or already written", k,
                          name ? name : "?", oi, texmem_dtype_name(t->type));
    }
    if (!(r->values[oi] = malloc(r->counts[oi] * sizeof(float) + 1))) {
      return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for tensor %zu", oi);
    }
    res[j] = texmem_ref_make(r->values[oi], t->rank, t->shape);
  }
  texmem_op_options o = op_options(m, op);
  texmem_error inner = {0};
  texmem_status s = split ? texmem_ref_split(op->type, &o, args, op->n_inputs, res, op->n_outputs,
                                             &inner)
                          : texmem_ref_op(op->type, &o, args, op->n_inputs, res, &inner);
  if (s) {
    texmem__fail(err, s, "operator %zu (%s): %s", k, name ? name : "?", inner.message);
    return s;
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_ref_run(const texmem_model *m, const float *const *inputs,
                             size_t n_inputs, texmem_ref_result **out, texmem_error *err) {
  if (!m || !out || (n_inputs && !inputs))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "model, inputs or out is NULL");
  *out = NULL;
  size_t n_graph_in;
  const int32_t *graph_in = texmem_model_inputs(m, &n_graph_in);
  if (n_inputs != n_graph_in)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "model has %zu inputs, %zu given",
                        n_graph_in, n_inputs);
  size_t nt = texmem_model_tensor_count(m);
  texmem_ref_result *r = calloc(1, sizeof *r);
  if (!r) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for a result");
  r->n_tensors = nt;
  r->values = calloc(nt ? nt : 1, sizeof *r->values);
  r->counts = calloc(nt ? nt : 1, sizeof *r->counts);
  texmem_status s = TEXMEM_STATUS_OK;
  if (!r->values || !r->counts) {
    s = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for %zu tensors", nt);
    goto fail;
  }
  for (size_t i = 0; i < nt; i++) {
    const texmem_tensor *t = texmem_model_tensor(m, i);
    r->counts[i] = elements(t);
    bool is_float_const = (t->flags & TEXMEM_TENSOR_CONSTANT) && t->data &&
                          t->type == TEXMEM_DTYPE_FLOAT32;
    if (!is_float_const) continue;
    if (t->data_size != r->counts[i] * sizeof(float)) {
      s = texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "constant %zu has %zu bytes for %zu floats",
                       i, t->data_size, r->counts[i]);
      goto fail;
    }
    if (!(r->values[i] = malloc(t->data_size ? t->data_size : 1))) {
      s = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for constant %zu", i);
      goto fail;
    }
    memcpy(r->values[i], t->data, t->data_size);
  }
  for (size_t i = 0; i < n_graph_in; i++) {
    size_t ti = (size_t)graph_in[i];
    const texmem_tensor *t = texmem_model_tensor(m, ti);
    if (t->type != TEXMEM_DTYPE_FLOAT32 || !inputs[i]) {
      s = texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED, "graph input %zu (tensor %zu) is %s or NULL",
                       i, ti, texmem_dtype_name(t->type));
      goto fail;
    }
    free(r->values[ti]);
    if (!(r->values[ti] = malloc(r->counts[ti] * sizeof(float) + 1))) {
      s = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for input %zu", i);
      goto fail;
    }
    memcpy(r->values[ti], inputs[i], r->counts[ti] * sizeof(float));
  }
  for (size_t k = 0; k < texmem_model_op_count(m); k++) {
    const texmem_op *op = texmem_model_op(m, k);
    texmem_ref_tensor args_small[16], *args = args_small;
    if (op->n_inputs > 16 && !(args = calloc(op->n_inputs, sizeof *args))) {
      s = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "operator %zu: no memory for %zu inputs",
                       k, op->n_inputs);
      goto fail;
    }
    s = run_op(m, r, k, op, args, err);
    if (args != args_small) free(args);
    if (s) goto fail;
  }
  *out = r;
  return TEXMEM_STATUS_OK;
fail:
  texmem_ref_result_destroy(r);
  return s;
}

/* Reference tensors, TFLite padding geometry, fused activations and the
 * per-operator dispatch. */
#include <math.h>
#include <string.h>

#include "ref_internal.h"

texmem_ref_tensor texmem_ref_make(float *data, unsigned rank, const int32_t *shape) {
  texmem_ref_tensor t;
  memset(&t, 0, sizeof t);
  t.rank = rank > TEXMEM_MAX_RANK ? TEXMEM_MAX_RANK : rank;
  for (unsigned i = 0; i < TEXMEM_MAX_RANK; i++) t.shape[i] = i < t.rank ? shape[i] : 1;
  t.data = data;
  return t;
}

size_t texmem_ref_count(const texmem_ref_tensor *t) {
  size_t n = 1;
  for (unsigned i = 0; i < t->rank; i++) n *= t->shape[i] > 0 ? (size_t)t->shape[i] : 0;
  return n;
}

void texmem_ref_bhwc(const texmem_ref_tensor *t, uint32_t d[4]) {
  const int32_t *s = t->shape;
  d[0] = d[1] = d[2] = d[3] = 1;
  switch (t->rank) {
  case 4: d[0] = (uint32_t)s[0]; d[1] = (uint32_t)s[1]; d[2] = (uint32_t)s[2]; d[3] = (uint32_t)s[3]; break;
  case 3: d[0] = (uint32_t)s[0]; d[2] = (uint32_t)s[1]; d[3] = (uint32_t)s[2]; break;
  case 2: d[0] = (uint32_t)s[0]; d[3] = (uint32_t)s[1]; break;
  case 1: d[3] = (uint32_t)s[0]; break;
  default: break;
  }
}

int32_t texmem_ref_out_size(texmem_padding p, int32_t in, int32_t k, int32_t stride,
                            int32_t dilation) {
  if (in < 1 || k < 1 || stride < 1 || dilation < 1) return 0;
  int32_t eff = (k - 1) * dilation + 1;
  if (p == TEXMEM_PADDING_SAME) return (in + stride - 1) / stride;
  return in >= eff ? (in - eff) / stride + 1 : 0;
}

int32_t texmem_ref_pad_before(int32_t in, int32_t out, int32_t k, int32_t stride,
                              int32_t dilation) {
  int32_t total = (out - 1) * stride + (k - 1) * dilation + 1 - in;
  return total > 0 ? total / 2 : 0;
}

texmem_status texmem_ref_activate(texmem_activation a, float *x, size_t n, texmem_error *err) {
  switch (a) {
  case TEXMEM_ACT_NONE: return TEXMEM_STATUS_OK;
  case TEXMEM_ACT_RELU:
    for (size_t i = 0; i < n; i++) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
    return TEXMEM_STATUS_OK;
  case TEXMEM_ACT_RELU_N1_TO_1:
    for (size_t i = 0; i < n; i++) x[i] = x[i] < -1.0f ? -1.0f : x[i] > 1.0f ? 1.0f : x[i];
    return TEXMEM_STATUS_OK;
  case TEXMEM_ACT_RELU6:
    for (size_t i = 0; i < n; i++) x[i] = x[i] < 0.0f ? 0.0f : x[i] > 6.0f ? 6.0f : x[i];
    return TEXMEM_STATUS_OK;
  case TEXMEM_ACT_TANH:
    for (size_t i = 0; i < n; i++) x[i] = tanhf(x[i]);
    return TEXMEM_STATUS_OK;
  default:
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP, "fused activation %d not supported",
                        (int)a);
  }
}

texmem_status texmem__ref_need(const char *name, const texmem_ref_tensor *in, size_t n_in,
                               size_t required, texmem_error *err) {
  if (n_in < required || (required && !in))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: needs %zu inputs, has %zu",
                        name, required, n_in);
  for (size_t i = 0; i < required; i++)
    if (!in[i].data)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: input %zu has no data", name,
                          i);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__ref_check_out(const char *name, const texmem_ref_tensor *out, uint32_t b,
                                    uint32_t h, uint32_t w, uint32_t c, texmem_error *err) {
  if (!out || !out->data)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: output has no data", name);
  uint32_t d[4];
  texmem_ref_bhwc(out, d);
  if (d[0] != b || d[1] != h || d[2] != w || d[3] != c)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "%s: output is %ux%ux%ux%u (BHWC), the operator gives %ux%ux%ux%u", name,
                        d[0], d[1], d[2], d[3], b, h, w, c);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__ref_check_count(const char *name, const char *what,
                                      const texmem_ref_tensor *t, size_t count,
                                      texmem_error *err) {
  size_t n = texmem_ref_count(t);
  if (n != count)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: %s has %zu elements, needs %zu",
                        name, what, n, count);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_ref_op(texmem_op_type type, const texmem_op_options *o,
                            const texmem_ref_tensor *in, size_t n_in, texmem_ref_tensor *out,
                            texmem_error *err) {
  texmem_op_options def = texmem_op_options_default();
  if (!o) o = &def;
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "output is NULL");
  switch (type) {
  case TEXMEM_OP_CONV_2D: return texmem_ref_conv2d(o, in, n_in, out, err);
  case TEXMEM_OP_DEPTHWISE_CONV_2D: return texmem_ref_depthwise(o, in, n_in, out, err);
  case TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS:
    return texmem_ref_transpose_conv_bias(o, in, n_in, out, err);
  case TEXMEM_OP_FULLY_CONNECTED: return texmem_ref_fully_connected(o, in, n_in, out, err);
  case TEXMEM_OP_ADD:
  case TEXMEM_OP_MUL:
  case TEXMEM_OP_SUB:
  case TEXMEM_OP_DIV:
  case TEXMEM_OP_MAXIMUM:
  case TEXMEM_OP_MINIMUM:
  case TEXMEM_OP_PRELU: return texmem_ref_binary(type, o, in, n_in, out, err);
  case TEXMEM_OP_TANH:
  case TEXMEM_OP_LEAKY_RELU: return texmem_ref_unary_opt(type, o, in, n_in, out, err);
  case TEXMEM_OP_SOFTMAX: return texmem_ref_softmax(o, in, n_in, out, err);
  case TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR: return texmem_ref_resize_nearest(o, in, n_in, out, err);
  case TEXMEM_OP_RELU:
  case TEXMEM_OP_RELU6:
  case TEXMEM_OP_LOGISTIC:
  case TEXMEM_OP_HARD_SWISH: return texmem_ref_unary(type, in, n_in, out, err);
  case TEXMEM_OP_MAX_POOL_2D:
  case TEXMEM_OP_AVERAGE_POOL_2D: return texmem_ref_pool(type, o, in, n_in, out, err);
  case TEXMEM_OP_MEAN: return texmem_ref_mean(o, in, n_in, out, err);
  case TEXMEM_OP_RESIZE_BILINEAR: return texmem_ref_resize_bilinear(o, in, n_in, out, err);
  case TEXMEM_OP_PAD: return texmem_ref_pad(o, in, n_in, out, err);
  case TEXMEM_OP_CONCATENATION: return texmem_ref_concatenation(o, in, n_in, out, err);
  case TEXMEM_OP_RESHAPE: return texmem_ref_reshape(in, n_in, out, err);
  case TEXMEM_OP_DEPTH_TO_SPACE: return texmem_ref_depth_to_space(o, in, n_in, out, err);
  case TEXMEM_OP_STRIDED_SLICE: return texmem_ref_strided_slice(o, in, n_in, out, err);
  case TEXMEM_OP_TRANSPOSE_CONV: return texmem_ref_transpose_conv(o, in, n_in, out, err);
  case TEXMEM_OP_SPLIT:
  case TEXMEM_OP_SPLIT_V: return texmem_ref_split(type, o, in, n_in, out, 1, err);
  case TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX:
    return texmem_ref_landmarks_to_transform_matrix(o, in, n_in, out, err);
  case TEXMEM_OP_TRANSFORM_TENSOR_BILINEAR:
    return texmem_ref_transform_tensor_bilinear(o, in, n_in, out, err);
  case TEXMEM_OP_TRANSFORM_LANDMARKS: return texmem_ref_transform_landmarks(o, in, n_in, out, err);
  default: break;
  }
  return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %d has no reference", (int)type);
}

/* Element-wise operators: ADD, MUL, SUB, DIV, MAXIMUM, MINIMUM and PRELU
 * (x >= 0 ? x : alpha * x) with numpy-style broadcasting of the shapes as
 * written (aligned on the right, a dim of 1 broadcasts), and the unary
 * RELU, RELU6, LOGISTIC, HARD_SWISH, TANH and LEAKY_RELU (x > 0 ? x :
 * alpha * x), as TFLite's reference kernels. */
#include <math.h>

#include "ref_internal.h"

/* Shape right-aligned into 4 dims with leading 1s. */
static void align4(const texmem_ref_tensor *t, int32_t s[4]) {
  unsigned lead = 4 - t->rank;
  for (unsigned i = 0; i < 4; i++) s[i] = i < lead ? 1 : t->shape[i - lead];
}

texmem_status texmem_ref_binary(texmem_op_type type, const texmem_op_options *o,
                                const texmem_ref_tensor *in, size_t n_in,
                                texmem_ref_tensor *out, texmem_error *err) {
  const char *name = texmem_op_type_name(type);
  texmem_status s;
  if (type != TEXMEM_OP_ADD && type != TEXMEM_OP_MUL && type != TEXMEM_OP_SUB &&
      type != TEXMEM_OP_DIV && type != TEXMEM_OP_MAXIMUM && type != TEXMEM_OP_MINIMUM &&
      type != TEXMEM_OP_PRELU)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "binary op %d", (int)type);
  if ((s = texmem__ref_need(name, in, n_in, 2, err))) return s;
  int32_t sa[4], sb[4], so[4];
  align4(&in[0], sa);
  align4(&in[1], sb);
  for (int i = 0; i < 4; i++) {
    if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "%s: shapes do not broadcast (dim %d: %d vs %d)", name, i, sa[i], sb[i]);
    so[i] = sa[i] > sb[i] ? sa[i] : sb[i];
  }
  unsigned rank = in[0].rank > in[1].rank ? in[0].rank : in[1].rank;
  texmem_ref_tensor e = texmem_ref_make(NULL, rank, so + (4 - rank));
  uint32_t ed[4];
  texmem_ref_bhwc(&e, ed);
  if ((s = texmem__ref_check_out(name, out, ed[0], ed[1], ed[2], ed[3], err))) return s;
  const float *a = in[0].data, *b = in[1].data;
  size_t k = 0;
  for (int32_t i0 = 0; i0 < so[0]; i0++)
    for (int32_t i1 = 0; i1 < so[1]; i1++)
      for (int32_t i2 = 0; i2 < so[2]; i2++)
        for (int32_t i3 = 0; i3 < so[3]; i3++, k++) {
          int32_t ia[4] = {sa[0] == 1 ? 0 : i0, sa[1] == 1 ? 0 : i1, sa[2] == 1 ? 0 : i2,
                           sa[3] == 1 ? 0 : i3};
          int32_t ib[4] = {sb[0] == 1 ? 0 : i0, sb[1] == 1 ? 0 : i1, sb[2] == 1 ? 0 : i2,
                           sb[3] == 1 ? 0 : i3};
          size_t pa = (((size_t)ia[0] * sa[1] + ia[1]) * sa[2] + ia[2]) * sa[3] + ia[3];
          size_t pb = (((size_t)ib[0] * sb[1] + ib[1]) * sb[2] + ib[2]) * sb[3] + ib[3];
          float va = a[pa], vb = b[pb], r;
          switch (type) {
          case TEXMEM_OP_ADD: r = va + vb; break;
          case TEXMEM_OP_MUL: r = va * vb; break;
          case TEXMEM_OP_SUB: r = va - vb; break;
          case TEXMEM_OP_DIV: r = va / vb; break;
          case TEXMEM_OP_MAXIMUM: r = va > vb ? va : vb; break;
          case TEXMEM_OP_MINIMUM: r = va < vb ? va : vb; break;
          default: r = va >= 0.0f ? va : va * vb; break; /* PRELU */
          }
          out->data[k] = r;
        }
  /* MAXIMUM, MINIMUM and PRELU have no fused activation. */
  bool fused = type == TEXMEM_OP_ADD || type == TEXMEM_OP_MUL || type == TEXMEM_OP_SUB ||
               type == TEXMEM_OP_DIV;
  return texmem_ref_activate(fused ? o->activation : TEXMEM_ACT_NONE, out->data, k, err);
}

texmem_status texmem_ref_unary(texmem_op_type type, const texmem_ref_tensor *in, size_t n_in,
                               texmem_ref_tensor *out, texmem_error *err) {
  texmem_op_options o = texmem_op_options_default();
  return texmem_ref_unary_opt(type, &o, in, n_in, out, err);
}

texmem_status texmem_ref_unary_opt(texmem_op_type type, const texmem_op_options *o,
                                   const texmem_ref_tensor *in, size_t n_in,
                                   texmem_ref_tensor *out, texmem_error *err) {
  const char *name = texmem_op_type_name(type);
  if (!name) name = "unary";
  texmem_status s;
  if ((s = texmem__ref_need(name, in, n_in, 1, err))) return s;
  uint32_t d[4];
  texmem_ref_bhwc(&in[0], d);
  if ((s = texmem__ref_check_out(name, out, d[0], d[1], d[2], d[3], err))) return s;
  size_t n = texmem_ref_count(&in[0]);
  const float *x = in[0].data;
  float *y = out->data;
  for (size_t i = 0; i < n; i++) {
    float v = x[i];
    switch (type) {
    case TEXMEM_OP_RELU: y[i] = v > 0.0f ? v : 0.0f; break;
    case TEXMEM_OP_RELU6: y[i] = v < 0.0f ? 0.0f : v > 6.0f ? 6.0f : v; break;
    case TEXMEM_OP_LOGISTIC: y[i] = (float)(1.0 / (1.0 + exp(-(double)v))); break;
    case TEXMEM_OP_TANH: y[i] = tanhf(v); break;
    case TEXMEM_OP_LEAKY_RELU: y[i] = v > 0.0f ? v : v * o->alpha; break;
    case TEXMEM_OP_HARD_SWISH: {
      float r = v + 3.0f;
      r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r;
      y[i] = v * r / 6.0f;
      break;
    }
    default:
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s is not a unary op", name);
    }
  }
  return TEXMEM_STATUS_OK;
}

/* SOFTMAX over the last axis (C of BHWC for every rank): per row, the
 * maximum, exp((x - max) * beta), divided by their sum (TFLite's float
 * reference kernel). */
texmem_status texmem_ref_softmax(const texmem_op_options *o, const texmem_ref_tensor *in,
                                 size_t n_in, texmem_ref_tensor *out, texmem_error *err) {
  const char *name = "SOFTMAX";
  texmem_status s;
  if ((s = texmem__ref_need(name, in, n_in, 1, err))) return s;
  uint32_t d[4];
  texmem_ref_bhwc(&in[0], d);
  if ((s = texmem__ref_check_out(name, out, d[0], d[1], d[2], d[3], err))) return s;
  size_t rows = (size_t)d[0] * d[1] * d[2], c = d[3];
  for (size_t r = 0; r < rows; r++) {
    const float *x = in[0].data + r * c;
    float *y = out->data + r * c, mx = x[0], sum = 0.0f;
    for (size_t k = 1; k < c; k++) mx = x[k] > mx ? x[k] : mx;
    for (size_t k = 0; k < c; k++) sum += y[k] = expf((x[k] - mx) * o->beta);
    for (size_t k = 0; k < c; k++) y[k] /= sum;
  }
  return TEXMEM_STATUS_OK;
}

/* Convolutions: CONV_2D (OHWI weights), DEPTHWISE_CONV_2D (1HWC weights,
 * output channel = input channel * multiplier + m), MediaPipe's
 * Convolution2DTransposeBias (OHWI weights) and FULLY_CONNECTED ([out, in]
 * weights), TFLite's TRANSPOSE_CONV. Accumulation is in double. */
#include <string.h>

#include "ref_internal.h"

static texmem_status check_bias(const char *name, const texmem_ref_tensor *in, size_t n_in,
                                size_t idx, uint32_t channels, const float **bias,
                                texmem_error *err) {
  *bias = NULL;
  if (n_in <= idx || !in[idx].data) return TEXMEM_STATUS_OK;
  *bias = in[idx].data;
  return texmem__ref_check_count(name, "bias", &in[idx], channels, err);
}

static texmem_status check_rank4(const char *name, const char *what, const texmem_ref_tensor *t,
                                 texmem_error *err) {
  if (t->rank != 4)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: %s has rank %u, needs 4", name,
                        what, t->rank);
  return TEXMEM_STATUS_OK;
}

/* Data x (its BHWC into d) and weights w, both rank 4; with OHWI weights
 * (ohwi) w's input channels must be x's channels. */
static texmem_status data_and_weights(const char *name, const texmem_ref_tensor *x,
                                      const texmem_ref_tensor *w, bool ohwi, uint32_t d[4],
                                      texmem_error *err) {
  texmem_status s;
  if ((s = check_rank4(name, "input", x, err)) || (s = check_rank4(name, "weights", w, err)))
    return s;
  texmem_ref_bhwc(x, d);
  if (ohwi && (uint32_t)w->shape[3] != d[3])
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "%s: weights have %d input channels, input has %u", name, w->shape[3],
                        d[3]);
  return TEXMEM_STATUS_OK;
}

/* A ws[1] x ws[2] window over d with o's strides and dilations (each at
 * least 1): the output (c channels) checked against out, its BHWC into od,
 * and the padding before the first row (pt) and column (pl). */
static texmem_status conv_window(const char *name, const texmem_op_options *o, const uint32_t d[4],
                                 const int32_t *ws, uint32_t c, const texmem_ref_tensor *out,
                                 uint32_t od[4], int32_t *pt, int32_t *pl, texmem_error *err) {
  if (o->stride_h < 1 || o->stride_w < 1 || o->dilation_h < 1 || o->dilation_w < 1)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: stride/dilation below 1", name);
  int32_t oh = texmem_ref_out_size(o->padding, (int32_t)d[1], ws[1], o->stride_h, o->dilation_h);
  int32_t ow = texmem_ref_out_size(o->padding, (int32_t)d[2], ws[2], o->stride_w, o->dilation_w);
  texmem_status s = texmem__ref_check_out(name, out, d[0], (uint32_t)oh, (uint32_t)ow, c, err);
  if (s) return s;
  *pt = texmem_ref_pad_before((int32_t)d[1], oh, ws[1], o->stride_h, o->dilation_h);
  *pl = texmem_ref_pad_before((int32_t)d[2], ow, ws[2], o->stride_w, o->dilation_w);
  od[0] = d[0];
  od[1] = (uint32_t)oh;
  od[2] = (uint32_t)ow;
  od[3] = c;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_ref_conv2d(const texmem_op_options *o, const texmem_ref_tensor *in,
                                size_t n_in, texmem_ref_tensor *out, texmem_error *err) {
  const char *name = "CONV_2D";
  texmem_status s;
  uint32_t d[4];
  if ((s = texmem__ref_need(name, in, n_in, 2, err)) ||
      (s = data_and_weights(name, &in[0], &in[1], true, d, err)))
    return s;
  const int32_t *ws = in[1].shape; /* O, KH, KW, I */
  const float *bias;
  if ((s = check_bias(name, in, n_in, 2, (uint32_t)ws[0], &bias, err))) return s;
  uint32_t od[4];
  int32_t pt, pl;
  if ((s = conv_window(name, o, d, ws, (uint32_t)ws[0], out, od, &pt, &pl, err))) return s;
  int32_t oh = (int32_t)od[1], ow = (int32_t)od[2];
  const float *x = in[0].data, *w = in[1].data;
  for (uint32_t b = 0; b < d[0]; b++)
    for (int32_t oy = 0; oy < oh; oy++)
      for (int32_t ox = 0; ox < ow; ox++)
        for (int32_t oc = 0; oc < ws[0]; oc++) {
          double acc = bias ? bias[oc] : 0.0;
          for (int32_t ky = 0; ky < ws[1]; ky++) {
            int32_t iy = oy * o->stride_h - pt + ky * o->dilation_h;
            if (iy < 0 || iy >= (int32_t)d[1]) continue;
            for (int32_t kx = 0; kx < ws[2]; kx++) {
              int32_t ix = ox * o->stride_w - pl + kx * o->dilation_w;
              if (ix < 0 || ix >= (int32_t)d[2]) continue;
              const float *xp = x + texmem__ref_at(d, b, (uint32_t)iy, (uint32_t)ix, 0);
              const float *wp = w + (((size_t)oc * ws[1] + ky) * ws[2] + kx) * ws[3];
              for (uint32_t ic = 0; ic < d[3]; ic++) acc += (double)xp[ic] * wp[ic];
            }
          }
          out->data[texmem__ref_at(od, b, (uint32_t)oy, (uint32_t)ox, (uint32_t)oc)] = (float)acc;
        }
  return texmem_ref_activate(o->activation, out->data, texmem_ref_count(out), err);
}

texmem_status texmem_ref_depthwise(const texmem_op_options *o, const texmem_ref_tensor *in,
                                   size_t n_in, texmem_ref_tensor *out, texmem_error *err) {
  const char *name = "DEPTHWISE_CONV_2D";
  texmem_status s;
  uint32_t d[4];
  if ((s = texmem__ref_need(name, in, n_in, 2, err)) ||
      (s = data_and_weights(name, &in[0], &in[1], false, d, err)))
    return s;
  const int32_t *ws = in[1].shape; /* 1, KH, KW, C*M */
  uint32_t oc_n = (uint32_t)ws[3];
  if (ws[0] != 1 || oc_n % d[3] != 0)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "DEPTHWISE_CONV_2D: weights %dx%dx%dx%d do not fit %u input channels",
                        ws[0], ws[1], ws[2], ws[3], d[3]);
  uint32_t mult = oc_n / d[3];
  if (o->depth_multiplier > 1 && (uint32_t)o->depth_multiplier != mult)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "DEPTHWISE_CONV_2D: depth_multiplier %d, weights give %u",
                        o->depth_multiplier, mult);
  const float *bias;
  if ((s = check_bias(name, in, n_in, 2, oc_n, &bias, err))) return s;
  uint32_t od[4];
  int32_t pt, pl;
  if ((s = conv_window(name, o, d, ws, oc_n, out, od, &pt, &pl, err))) return s;
  int32_t oh = (int32_t)od[1], ow = (int32_t)od[2];
  const float *x = in[0].data, *w = in[1].data;
  for (uint32_t b = 0; b < d[0]; b++)
    for (int32_t oy = 0; oy < oh; oy++)
      for (int32_t ox = 0; ox < ow; ox++)
        for (uint32_t oc = 0; oc < oc_n; oc++) {
          uint32_t ic = oc / mult;
          double acc = bias ? bias[oc] : 0.0;
          for (int32_t ky = 0; ky < ws[1]; ky++) {
            int32_t iy = oy * o->stride_h - pt + ky * o->dilation_h;
            if (iy < 0 || iy >= (int32_t)d[1]) continue;
            for (int32_t kx = 0; kx < ws[2]; kx++) {
              int32_t ix = ox * o->stride_w - pl + kx * o->dilation_w;
              if (ix < 0 || ix >= (int32_t)d[2]) continue;
              acc += (double)x[texmem__ref_at(d, b, (uint32_t)iy, (uint32_t)ix, ic)] *
                     w[((size_t)ky * ws[2] + kx) * oc_n + oc];
            }
          }
          out->data[texmem__ref_at(od, b, (uint32_t)oy, (uint32_t)ox, oc)] = (float)acc;
        }
  return texmem_ref_activate(o->activation, out->data, texmem_ref_count(out), err);
}

/* Transposed convolution as a scatter: input pixel (iy, ix) adds its
 * kernel footprint at output (iy * sh - pt + ky, ix * sw - pl + kx); out
 * gives the output size; bias (may be NULL) is added last. */
static texmem_status scatter(const char *name, const texmem_ref_tensor *xt,
                             const texmem_ref_tensor *wt, const float *bias, int32_t sh, int32_t sw,
                             int32_t pt, int32_t pl, texmem_ref_tensor *out, texmem_error *err) {
  uint32_t d[4], od[4];
  texmem_ref_bhwc(xt, d);
  texmem_ref_bhwc(out, od);
  const int32_t *ws = wt->shape; /* O, KH, KW, I */
  int32_t oh = (int32_t)od[1], ow = (int32_t)od[2];
  size_t n = texmem_ref_count(out);
  double *acc = calloc(n ? n : 1, sizeof *acc);
  if (!acc) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "%s: no memory", name);
  const float *x = xt->data, *w = wt->data;
  for (uint32_t b = 0; b < d[0]; b++)
    for (uint32_t iy = 0; iy < d[1]; iy++)
      for (uint32_t ix = 0; ix < d[2]; ix++)
        for (int32_t ky = 0; ky < ws[1]; ky++) {
          int32_t oy = (int32_t)iy * sh - pt + ky;
          if (oy < 0 || oy >= oh) continue;
          for (int32_t kx = 0; kx < ws[2]; kx++) {
            int32_t ox = (int32_t)ix * sw - pl + kx;
            if (ox < 0 || ox >= ow) continue;
            const float *xp = x + texmem__ref_at(d, b, iy, ix, 0);
            for (int32_t oc = 0; oc < ws[0]; oc++) {
              const float *wp = w + (((size_t)oc * ws[1] + ky) * ws[2] + kx) * ws[3];
              double sum = 0.0;
              for (uint32_t ic = 0; ic < d[3]; ic++) sum += (double)xp[ic] * wp[ic];
              acc[texmem__ref_at(od, b, (uint32_t)oy, (uint32_t)ox, (uint32_t)oc)] += sum;
            }
          }
        }
  for (size_t i = 0; i < n; i++)
    out->data[i] = (float)(acc[i] + (bias ? bias[i % (size_t)ws[0]] : 0.0));
  free(acc);
  return TEXMEM_STATUS_OK;
}

/* The custom options are MediaPipe's TfLiteTransposeConvParams bytes:
 * int32 padding (1 = SAME, 2 = VALID), int32 stride_w, int32 stride_h.
 * Without them the generic options are used. */
static texmem_status transpose_params(const texmem_op_options *o, texmem_padding *pad,
                                      int32_t *sw, int32_t *sh, texmem_error *err) {
  *pad = o->padding;
  *sw = o->stride_w;
  *sh = o->stride_h;
  if (o->custom_options && o->custom_options_size >= 12) {
    int32_t v[3];
    for (int i = 0; i < 3; i++) {
      const uint8_t *p = o->custom_options + 4 * i;
      v[i] = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                       (uint32_t)p[3] << 24);
    }
    if (v[0] != 1 && v[0] != 2)
      return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP,
                          "CONV_2D_TRANSPOSE_BIAS: padding code %d (1 SAME, 2 VALID)", (int)v[0]);
    *pad = v[0] == 1 ? TEXMEM_PADDING_SAME : TEXMEM_PADDING_VALID;
    *sw = v[1];
    *sh = v[2];
  }
  if (*sw < 1 || *sh < 1)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "CONV_2D_TRANSPOSE_BIAS: stride %dx%d below 1", (int)*sw, (int)*sh);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_ref_transpose_conv_bias(const texmem_op_options *o,
                                             const texmem_ref_tensor *in, size_t n_in,
                                             texmem_ref_tensor *out, texmem_error *err) {
  const char *name = "CONV_2D_TRANSPOSE_BIAS";
  texmem_status s;
  uint32_t d[4];
  if ((s = texmem__ref_need(name, in, n_in, 2, err)) ||
      (s = data_and_weights(name, &in[0], &in[1], false, d, err)))
    return s;
  const int32_t *ws = in[1].shape; /* 1, KH, KW, C*M */
  const float *bias;
  if ((s = check_bias(name, in, n_in, 2, (uint32_t)ws[0], &bias, err))) return s;
  texmem_padding pad;
  int32_t sw, sh;
  if ((s = transpose_params(o, &pad, &sw, &sh, err))) return s;
  /* MediaPipe: total padding = max(0, k - (in-1) % stride - 1) for SAME. */
  int32_t ph = 0, pw = 0;
  if (pad == TEXMEM_PADDING_SAME) {
    ph = ws[1] - ((int32_t)d[1] - 1) % sh - 1;
    pw = ws[2] - ((int32_t)d[2] - 1) % sw - 1;
    ph = ph > 0 ? ph : 0;
    pw = pw > 0 ? pw : 0;
  }
  int32_t oh = sh * ((int32_t)d[1] - 1) + ws[1] - ph;
  int32_t ow = sw * ((int32_t)d[2] - 1) + ws[2] - pw;
  if ((s = texmem__ref_check_out(name, out, d[0], (uint32_t)oh, (uint32_t)ow, (uint32_t)ws[0],
                                 err)))
    return s;
  return scatter(name, &in[0], &in[1], bias, sh, sw, ph / 2, pw / 2, out, err);
}

/* TFLite's TRANSPOSE_CONV: the output size is given (out); the padding is
 * the one a forward convolution from the output to the input would use:
 * total = max(0, (n - 1) * stride + k - out) with n = SAME ceil(out/stride),
 * VALID ceil((out - k + 1)/stride); half (rounded down) before. */
texmem_status texmem_ref_transpose_conv(const texmem_op_options *o, const texmem_ref_tensor *in,
                                        size_t n_in, texmem_ref_tensor *out, texmem_error *err) {
  const char *name = "TRANSPOSE_CONV";
  texmem_status s;
  if (n_in < 3 || !in || !in[1].data || !in[2].data)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: needs weights and data", name);
  uint32_t d[4], od[4];
  if ((s = data_and_weights(name, &in[2], &in[1], true, d, err))) return s;
  if (o->stride_w < 1 || o->stride_h < 1)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: stride below 1", name);
  const int32_t *ws = in[1].shape;
  const float *bias;
  if ((s = check_bias(name, in, n_in, 3, (uint32_t)ws[0], &bias, err))) return s;
  if (!out->data || out->rank != 4)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: output needs rank 4", name);
  texmem_ref_bhwc(out, od);
  if (od[0] != d[0] || od[3] != (uint32_t)ws[0])
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: output batch or channels", name);
  int32_t pad[2];
  for (int i = 0; i < 2; i++) {
    int32_t size = (int32_t)od[1 + i], k = ws[1 + i], st = i ? o->stride_w : o->stride_h;
    int32_t n = o->padding == TEXMEM_PADDING_SAME ? (size + st - 1) / st
                : size >= k ? (size - k + st) / st : 0;
    int32_t total = (n - 1) * st + k - size;
    pad[i] = total > 0 ? total / 2 : 0;
  }
  if ((s = scatter(name, &in[2], &in[1], bias, o->stride_h, o->stride_w, pad[0], pad[1], out, err)))
    return s;
  return texmem_ref_activate(o->activation, out->data, texmem_ref_count(out), err);
}

texmem_status texmem_ref_fully_connected(const texmem_op_options *o,
                                         const texmem_ref_tensor *in, size_t n_in,
                                         texmem_ref_tensor *out, texmem_error *err) {
  const char *name = "FULLY_CONNECTED";
  texmem_status s;
  if ((s = texmem__ref_need(name, in, n_in, 2, err))) return s;
  if (in[1].rank != 2)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: weights have rank %u, need 2",
                        name, in[1].rank);
  size_t n_out = (size_t)in[1].shape[0], depth = (size_t)in[1].shape[1];
  size_t total = texmem_ref_count(&in[0]);
  if (depth == 0 || total % depth != 0)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "%s: input of %zu elements is not rows of %zu", name, total, depth);
  size_t rows = total / depth;
  const float *bias;
  if ((s = check_bias(name, in, n_in, 2, (uint32_t)n_out, &bias, err))) return s;
  /* keep_num_dims: the input shape with its last dim replaced; else [rows, out]. */
  texmem_ref_tensor e = in[0];
  if (o->keep_dims && e.rank >= 1) {
    e.shape[e.rank - 1] = (int32_t)n_out;
  } else {
    e.rank = 2;
    e.shape[0] = (int32_t)rows;
    e.shape[1] = (int32_t)n_out;
  }
  uint32_t ed[4];
  texmem_ref_bhwc(&e, ed);
  if ((s = texmem__ref_check_out(name, out, ed[0], ed[1], ed[2], ed[3], err))) return s;
  for (size_t r = 0; r < rows; r++)
    for (size_t j = 0; j < n_out; j++) {
      double acc = bias ? bias[j] : 0.0;
      const float *xp = in[0].data + r * depth, *wp = in[1].data + j * depth;
      for (size_t k = 0; k < depth; k++) acc += (double)xp[k] * wp[k];
      out->data[r * n_out + j] = (float)acc;
    }
  return texmem_ref_activate(o->activation, out->data, texmem_ref_count(out), err);
}

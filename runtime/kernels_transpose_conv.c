/* Transposed convolutions, run as a gather (op_transpose_conv.comp) with
 * conv's 4x4 weight blocks:
 * - MediaPipe's custom Convolution2DTransposeBias (CONV_2D_TRANSPOSE_BIAS):
 *   inputs data, OHWI weights, bias. Stride and padding come from its 12
 *   custom option bytes (int32 padding: 1 SAME, 2 VALID; int32 stride_w;
 *   int32 stride_h), else from the generic options. Output size and SAME
 *   padding follow MediaPipe: total pad = max(0, k - (in - 1) % stride -
 *   1), out = stride * (in - 1) + k - pad, half the pad before. No fused
 *   activation.
 * Either takes a unary operator fused after it (kernels_fusion.h), as
 * FULLY_CONNECTED does.
 * - TFLite's builtin TRANSPOSE_CONV: inputs output_shape, OHWI weights,
 *   data, optional bias; fused activation. The output size is given; the
 *   padding is the one a forward convolution from the output back to the
 *   input would use (TFLite's rule): total = max(0, (n - 1) * stride + k -
 *   out), n = SAME ceil(out / stride), VALID ceil((out - k + 1) / stride),
 *   the smaller half before. */
#include "kernels_conv_common.h"
#include "kernels_conv_fuse.h"

static int32_t le32(const uint8_t *p) {
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                   (uint32_t)p[3] << 24);
}

/* Packs the weights and bias and sets up the gather for data input x_in
 * (model tensor x), output 0, the strides and the padding before. */
static texmem_status emit(texmem__kernel_env *env, const texmem_model *model, const texmem_op *op,
                          int32_t x_in, const texmem_tensor *x, const texmem_tensor *y,
                          const texmem_tensor *w, const texmem_tensor *bias, int32_t sw, int32_t sh, int32_t pad_left,
                          int32_t pad_top, texmem__kernel *out, texmem_error *err) {
  const char *name = texmem_op_type_name(op->type);
  uint32_t O = (uint32_t)w->shape[0], KH = (uint32_t)w->shape[1], KW = (uint32_t)w->shape[2],
           I = (uint32_t)w->shape[3];
  uint32_t os = (uint32_t)texmem__ku_slices(O);
  uint32_t ng = (os + TEXMEM__CONV_GROUP - 1) / TEXMEM__CONV_GROUP;
  size_t nw = 0, nb = 0;
  float *packed = texmem__conv_pack_ohwi(w->data, O, KH, KW, I, 1, &nw);
  float *pb = texmem__conv_pack_bias(bias ? bias->data : NULL, O, ng * TEXMEM__CONV_GROUP, &nb);
  texmem_status s;
  if ((s = texmem__conv_check_alloc(name, packed, pb, err))) return s;
  if ((s = texmem__conv_upload(env, packed, nw, pb, nb, out, err))) return s;
  static const char *const ins[] = {"x"}, *const outs[] = {"y"}, *const bufs[] = {"w", "b"};
  const uint32_t local[3] = {8, 8, 1};
  char defs[256] = "";
  out->inputs[0] = x_in;
  out->n_inputs = 1;
  out->outputs[0] = op->outputs[0];
  out->n_outputs = 1;
  if ((s = texmem__fuse_unary_stage(env, model, op, out, defs, sizeof defs, err)) ||
      (s = texmem__kernel_program_defines(env, "op_transpose_conv.comp", defs, ins, 1, outs, 1,
                                          bufs, 2, local, &out->program, err)))
    return s;
  texmem__kernel_ivec4(out, "geom", sw, sh, pad_left, pad_top);
  texmem__kernel_ivec4(out, "kern", (int32_t)KW, (int32_t)KH, 0, 0);
  texmem__ku_batch(out, x->b);
  out->groups[0] = (y->w + 7) / 8;
  out->groups[1] = (y->h + 7) / 8;
  out->groups[2] = ng * x->b;
  return TEXMEM_STATUS_OK;
}

/* OHWI weights w that fit input x (d = O, KH, KW, I), then the optional
 * bias, operand bias_at of op. */
static texmem_status ohwi_and_bias(const char *name, const texmem_model *model,
                                   const texmem_op *op, size_t bias_at, const texmem_tensor *x,
                                   const texmem_tensor *w, uint32_t d[4],
                                   const texmem_tensor **bias, texmem_error *err) {
  for (int k = 0; k < 4; k++) d[k] = (uint32_t)w->shape[k];
  if (w->data_size != (size_t)d[0] * d[1] * d[2] * d[3] * sizeof(float) || d[3] != x->c)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: weights %ux%ux%ux%u do not fit input \"%s\" with %u channels", name,
                        d[0], d[1], d[2], d[3], x->name, x->c);
  if (op->n_inputs > bias_at && op->inputs[bias_at] >= 0)
    return texmem__conv_const(name, model, op->inputs[bias_at], "bias", d[0], bias, err);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__kernel_transpose_conv(texmem__kernel_env *env, const texmem_model *model,
                                            const texmem_op *op, texmem__kernel *out,
                                            texmem_error *err) {
  const char *name = "CONV_2D_TRANSPOSE_BIAS";
  const texmem_tensor *x = NULL, *y = NULL, *w = NULL, *bias = NULL;
  texmem_status s;
  if ((s = texmem__conv_operands(name, model, op, &x, &y, &w, err))) return s;
  if ((s = texmem__conv_check_4d(name, x, w, err))) return s;
  uint32_t d[4];
  if ((s = ohwi_and_bias(name, model, op, 2, x, w, d, &bias, err))) return s;
  uint32_t O = d[0], KH = d[1], KW = d[2];

  const texmem_op_options *o = &op->options;
  texmem_padding pad = o->padding;
  int32_t sw = o->stride_w, sh = o->stride_h;
  if (o->custom_options && o->custom_options_size >= 12) {
    int32_t code = le32(o->custom_options);
    if (code != 1 && code != 2)
      return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP,
                          "%s: padding code %d (1 SAME, 2 VALID)", name, (int)code);
    pad = code == 1 ? TEXMEM_PADDING_SAME : TEXMEM_PADDING_VALID;
    sw = le32(o->custom_options + 4);
    sh = le32(o->custom_options + 8);
  }
  if (sw < 1 || sh < 1 || sw > 4096 || sh > 4096)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: stride %dx%d out of range", name,
                        (int)sw, (int)sh);
  int32_t ih = (int32_t)x->h, iw = (int32_t)x->w, kh = (int32_t)KH, kw = (int32_t)KW;
  int32_t ph = 0, pw = 0;
  if (pad == TEXMEM_PADDING_SAME) {
    ph = kh - (ih - 1) % sh - 1;
    pw = kw - (iw - 1) % sw - 1;
    ph = ph > 0 ? ph : 0;
    pw = pw > 0 ? pw : 0;
  }
  int64_t oh = (int64_t)sh * (ih - 1) + kh - ph, ow = (int64_t)sw * (iw - 1) + kw - pw;
  if (oh < 1 || ow < 1 || oh > INT32_MAX || ow > INT32_MAX)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: output %lldx%lld", name, (long long)oh,
                        (long long)ow);
  if ((s = texmem__conv_check_out(name, y, x->b, (uint32_t)oh, (uint32_t)ow, O, err))) return s;

  if ((s = texmem__ku_activation(name, TEXMEM_ACT_NONE, out, err))) return s;
  return emit(env, model, op, op->inputs[0], x, y, w, bias, sw, sh, pw / 2, ph / 2, out, err);
}

texmem_status texmem__kernel_transpose_conv_builtin(texmem__kernel_env *env,
                                                    const texmem_model *model, const texmem_op *op,
                                                    texmem__kernel *out, texmem_error *err) {
  const char *name = "TRANSPOSE_CONV";
  if (op->n_inputs < 3 || op->n_outputs != 1)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %zu inputs, %zu outputs", name,
                        op->n_inputs, op->n_outputs);
  const texmem_tensor *x = NULL, *y = NULL, *w = NULL, *bias = NULL, *shape = NULL;
  texmem_status s;
  if ((s = texmem__conv_image(name, model, op->inputs[2], "input", &x, err)) ||
      (s = texmem__conv_image(name, model, op->outputs[0], "output", &y, err)) ||
      (s = texmem__conv_const(name, model, op->inputs[1], "weights", 0, &w, err)) ||
      (s = texmem__conv_check_4d(name, x, w, err)))
    return s;
  uint32_t d[4];
  if ((s = ohwi_and_bias(name, model, op, 3, x, w, d, &bias, err))) return s;
  uint32_t O = d[0], KH = d[1], KW = d[2];
  if (y->rank != 4 || y->b != x->b || y->c != O)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: output \"%s\" is %ux%ux%ux%u (BHWC), needs batch %u and %u channels",
                        name, y->name, y->b, y->h, y->w, y->c, x->b, O);
  /* The output_shape input, when constant, must be the output's shape. */
  shape = op->inputs[0] >= 0 ? texmem_model_tensor(model, (size_t)op->inputs[0]) : NULL;
  if (shape && (shape->flags & TEXMEM_TENSOR_CONSTANT) && shape->data &&
      shape->type == TEXMEM_DTYPE_INT32 && shape->data_size == 4 * sizeof(int32_t)) {
    int32_t v[4];
    memcpy(v, shape->data, sizeof v);
    for (int i = 0; i < 4; i++)
      if (v[i] != y->shape[i])
        return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                            "%s: output_shape says %d,%d,%d,%d, output \"%s\" is %d,%d,%d,%d", name,
                            v[0], v[1], v[2], v[3], y->name, y->shape[0], y->shape[1],
                            y->shape[2], y->shape[3]);
  }
  const texmem_op_options *o = &op->options;
  if (o->stride_w < 1 || o->stride_h < 1 || o->stride_w > 4096 || o->stride_h > 4096)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: stride %dx%d out of range", name,
                        (int)o->stride_w, (int)o->stride_h);
  int32_t pad[2];
  for (int i = 0; i < 2; i++) {
    int64_t size = i ? y->w : y->h, k = i ? KW : KH, st = i ? o->stride_w : o->stride_h;
    int64_t n = o->padding == TEXMEM_PADDING_SAME ? (size + st - 1) / st
                : size >= k ? (size - k + st) / st : 0;
    int64_t total = (n - 1) * st + k - size;
    pad[i] = total > 0 ? (int32_t)(total / 2) : 0;
  }
  if ((s = texmem__ku_activation(name, o->activation, out, err))) return s;
  return emit(env, model, op, op->inputs[2], x, y, w, bias, o->stride_w, o->stride_h, pad[1],
              pad[0], out, err);
}

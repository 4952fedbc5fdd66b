/* MediaPipe's custom Convolution2DTransposeBias (CONV_2D_TRANSPOSE_BIAS):
 * inputs data, OHWI weights, bias. Stride and padding come from its 12
 * custom option bytes (int32 padding: 1 SAME, 2 VALID; int32 stride_w;
 * int32 stride_h), else from the generic options. Output size and SAME
 * padding follow MediaPipe: total pad = max(0, k - (in - 1) % stride - 1),
 * out = stride * (in - 1) + k - pad, half the pad before. No fused
 * activation. Run as a gather (op_transpose_conv.comp) with conv's 4x4
 * weight blocks. */
#include "kernels_conv_common.h"

static int32_t le32(const uint8_t *p) {
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                   (uint32_t)p[3] << 24);
}

texmem_status texmem__kernel_transpose_conv(texmem__kernel_env *env, const texmem_model *model,
                                            const texmem_op *op, texmem__kernel *out,
                                            texmem_error *err) {
  const char *name = "CONV_2D_TRANSPOSE_BIAS";
  const texmem_tensor *x = NULL, *y = NULL, *w = NULL, *bias = NULL;
  texmem_status s;
  if ((s = texmem__conv_operands(name, model, op, &x, &y, &w, err))) return s;
  if ((s = texmem__conv_check_4d(name, x, w, err))) return s;
  uint32_t O = (uint32_t)w->shape[0], KH = (uint32_t)w->shape[1], KW = (uint32_t)w->shape[2],
           I = (uint32_t)w->shape[3];
  if (w->data_size != (size_t)O * KH * KW * I * sizeof(float) || I != x->c)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: weights %ux%ux%ux%u do not fit input \"%s\" with %u channels", name, O,
                        KH, KW, I, x->name, x->c);
  if (op->n_inputs > 2 && op->inputs[2] >= 0 &&
      (s = texmem__conv_const(name, model, op->inputs[2], "bias", O, &bias, err)))
    return s;

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

  uint32_t os = (uint32_t)texmem__ku_slices(O);
  uint32_t ng = (os + TEXMEM__CONV_GROUP - 1) / TEXMEM__CONV_GROUP;
  size_t nw = 0, nb = 0;
  float *packed = texmem__conv_pack_ohwi(w->data, O, KH, KW, I, &nw);
  float *pb = texmem__conv_pack_bias(bias ? bias->data : NULL, O, ng * TEXMEM__CONV_GROUP, &nb);
  if ((s = texmem__conv_check_alloc(name, packed, pb, err))) return s;
  if ((s = texmem__conv_upload(env, packed, nw, pb, nb, out, err))) return s;

  static const char *const ins[] = {"x"}, *const outs[] = {"y"}, *const bufs[] = {"w", "b"};
  const uint32_t local[3] = {8, 8, 1};
  if ((s = texmem__kernel_program(env, "op_transpose_conv.comp", ins, 1, outs, 1, bufs, 2, local,
                                  &out->program, err)))
    return s;
  out->inputs[0] = op->inputs[0];
  out->n_inputs = 1;
  out->outputs[0] = op->outputs[0];
  out->n_outputs = 1;
  texmem__kernel_ivec4(out, "geom", sw, sh, pw / 2, ph / 2);
  texmem__kernel_ivec4(out, "kern", kw, kh, 0, 0);
  texmem__ku_batch(out, x->b);
  out->groups[0] = (uint32_t)((ow + 7) / 8);
  out->groups[1] = (uint32_t)((oh + 7) / 8);
  out->groups[2] = ng * x->b;
  return TEXMEM_STATUS_OK;
}

/* CONV_2D: OHWI weights packed into 4x4 vec4 blocks for groups of 4
 * output slices; one shader invocation computes 4 output pixels x 4
 * slices (each weight vec4 feeds 4 pixels, each texel read 16
 * multiply-adds). 1x1 kernels take a loop
 * without bounds checks (op_conv1x1.comp), everything else op_conv.comp.
 * Pixels run over batch x H x W. Padding, output size and activation
 * follow TFLite. */
#include "kernels_conv_common.h"

texmem_status texmem__kernel_conv2d(texmem__kernel_env *env, const texmem_model *model,
                                    const texmem_op *op, texmem__kernel *out, texmem_error *err) {
  const char *name = "CONV_2D";
  const texmem_tensor *x = NULL, *y = NULL, *w = NULL, *bias = NULL;
  texmem_status s;
  if ((s = texmem__conv_operands(name, model, op, &x, &y, &w, err))) return s;
  if ((s = texmem__conv_check_4d(name, x, w, err))) return s;
  uint32_t O = (uint32_t)w->shape[0], KH = (uint32_t)w->shape[1], KW = (uint32_t)w->shape[2],
           I = (uint32_t)w->shape[3];
  if (w->data_size != (size_t)O * KH * KW * I * sizeof(float))
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: weights hold %zu bytes, their shape needs more", name, w->data_size);
  if (I != x->c)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: weights have %u input channels, input \"%s\" has %u", name, I, x->name,
                        x->c);
  if (op->n_inputs > 2 && op->inputs[2] >= 0 &&
      (s = texmem__conv_const(name, model, op->inputs[2], "bias", O, &bias, err)))
    return s;
  const texmem_op_options *o = &op->options;
  texmem__conv_window g = {0};
  if ((s = texmem__conv_window_of(name, o, x, KH, KW, &g, err))) return s;
  int32_t oh = g.oh, ow = g.ow, kh = (int32_t)KH, kw = (int32_t)KW;
  if ((s = texmem__conv_check_out(name, y, x->b, (uint32_t)oh, (uint32_t)ow, O, err))) return s;
  if ((s = texmem__ku_activation(name, o->activation, out, err))) return s;

  bool one = KH == 1 && KW == 1;
  uint32_t os = (uint32_t)texmem__ku_slices(O);
  uint32_t ng = (os + TEXMEM__CONV_GROUP - 1) / TEXMEM__CONV_GROUP;
  size_t nw = 0, nb = 0;
  float *pw = texmem__conv_pack_ohwi(w->data, O, KH, KW, I, &nw);
  float *pb = texmem__conv_pack_bias(bias ? bias->data : NULL, O, ng * TEXMEM__CONV_GROUP, &nb);
  if ((s = texmem__conv_check_alloc(name, pw, pb, err))) return s;
  if ((s = texmem__conv_upload(env, pw, nw, pb, nb, out, err))) return s;

  static const char *const ins[] = {"x"}, *const outs[] = {"y"}, *const bufs[] = {"w", "b"};
  /* Flat invocations: quads of pixels x groups, 64 a work group, split
   * over the x and y work group counts (each at most 65535). */
  uint64_t quads =
      ((uint64_t)ow * (uint64_t)oh * x->b + TEXMEM__CONV_PX - 1) / TEXMEM__CONV_PX;
  uint64_t wgs = (quads * ng + 63) / 64, gx = wgs < 65535 ? wgs : 65535, gy = (wgs + gx - 1) / gx;
  if (quads * ng > (uint64_t)INT32_MAX / 2 || gy > 65535)
    return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS, "%s: output %dx%dx%u too large", name,
                        oh, ow, O);
  const uint32_t local[3] = {64, 1, 1};
  if ((s = texmem__kernel_program(env, one ? "op_conv1x1.comp" : "op_conv.comp", ins, 1, outs, 1,
                                  bufs, 2, local, &out->program, err)))
    return s;
  out->inputs[0] = op->inputs[0];
  out->n_inputs = 1;
  out->outputs[0] = op->outputs[0];
  out->n_outputs = 1;
  if (one) {
    texmem__kernel_ivec4(out, "geom", o->stride_w, o->stride_h, (int32_t)quads, 0);
  } else {
    int32_t pt = g.pad_top, pl = g.pad_left;
    texmem__kernel_ivec4(out, "geom", o->stride_w, o->stride_h, pl, pt);
    texmem__kernel_ivec4(out, "kern", kw, kh, o->dilation_w, o->dilation_h);
    texmem__kernel_int(out, "quads", (int32_t)quads);
  }
  texmem__ku_batch(out, x->b);
  out->groups[0] = (uint32_t)gx;
  out->groups[1] = (uint32_t)gy;
  out->groups[2] = 1;
  return TEXMEM_STATUS_OK;
}

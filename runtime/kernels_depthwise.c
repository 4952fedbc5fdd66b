/* DEPTHWISE_CONV_2D: 1HWC weights repacked as one vec4 per (output slice,
 * ky, kx); one shader invocation per output texel. Depth multiplier 1
 * reads the same slice (op_depthwise.comp); a multiplier M > 1 gathers
 * input channel c / M for each output channel c (op_depthwise_mult.comp).
 * A depthwise convolution folded into the tiled 1x1 convolution reading
 * it (kernels_fusion.h) gives that kernel its weights, bias and
 * geometry here (texmem__dw_fold). The weights are packed in
 * kernels_depthwise_weights.c. */
#include <stdio.h>

#include "kernel_env.h"
#include "kernels_conv_common.h"
#include "kernels_conv_fuse.h"

/* The 3x3 kernel's case (op_depthwise3x3.comp): MobileNet's windows, 4
 * pixels an invocation sharing input columns, the stride along x compiled
 * in. */
static bool takes_3x3(const texmem_op_options *o, uint32_t mult, uint32_t kh, uint32_t kw) {
  return mult == 1 && kh == 3 && kw == 3 && o->dilation_w == 1 && o->dilation_h == 1 &&
         o->stride_w <= 2;
}

texmem_status texmem__dw_fold(texmem__kernel_env *env, const texmem_model *model,
                              const texmem_op *op, texmem__kernel *k, char *defs, size_t cap,
                              texmem_error *err) {
  texmem__dw_parts d;
  texmem_status s = texmem__dw_parts_of(model, op, &d, err);
  if (s) return s;
  if (d.mult != 1 || k->n_buffers != 2) {
    texmem__dw_parts_free(&d);
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "DEPTHWISE_CONV_2D folded with multiplier %u, %zu buffers before", d.mult,
                        k->n_buffers);
  }
  if ((s = texmem__dw_parts_upload(env, &d, &k->buffers[2], err))) return s;
  k->n_buffers = 3;
  const texmem_op_options *o = &op->options;
  /* Its activation, as uniform dact. */
  if ((s = texmem__ku_activation_as("DEPTHWISE_CONV_2D", o->activation, "dact", k, err)))
    return s;
  texmem__kernel_int(k, "dbias", (int32_t)(d.nw / 4));
  int32_t pl = d.g.pad_left, pt = d.g.pad_top;
  texmem__pad_before(model, k->in_dw_pad, &pl, &pt);
  texmem__kernel_ivec4(k, "dgeom", o->stride_w, o->stride_h, pl, pt);
  texmem__kernel_ivec4(k, "dkern", (int32_t)d.kw, (int32_t)d.kh, o->dilation_w, o->dilation_h);
  size_t len = strlen(defs);
  snprintf(defs + len, cap - len, "#define TM_FUSE_DW %d\n%s",
           takes_3x3(o, d.mult, d.kh, d.kw) ? 3 : 1,
           texmem__kernel_env_half_images(env) ? "#define TM_DW_ROUND 1\n" : "");
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__kernel_depthwise(texmem__kernel_env *env, const texmem_model *model,
                                       const texmem_op *op, texmem__kernel *out,
                                       texmem_error *err) {
  const char *name = "DEPTHWISE_CONV_2D";
  texmem__dw_parts d;
  texmem_status s = texmem__dw_parts_of(model, op, &d, err);
  if (s) return s;
  const texmem_op_options *o = &op->options;
  if ((s = texmem__ku_activation(name, o->activation, out, err))) {
    texmem__dw_parts_free(&d);
    return s;
  }
  if ((s = texmem__conv_upload(env, d.pw, d.nw, d.pb, d.nb, out, err))) return s;
  const texmem_tensor *x = d.x;
  uint32_t mult = d.mult, os = (uint32_t)texmem__ku_slices(d.oc);
  texmem__conv_window g = d.g;
  int32_t oh = g.oh, ow = g.ow, kh = (int32_t)d.kh, kw = (int32_t)d.kw;
  bool k3 = takes_3x3(o, mult, d.kh, d.kw);
  const char *file = k3 ? "op_depthwise3x3.comp"
                     : mult == 1 ? "op_depthwise.comp" : "op_depthwise_mult.comp";
  const uint32_t local_2d[3] = {8, 8, 1}, local_flat[3] = {64, 1, 1};
  char defs[32];
  snprintf(defs, sizeof defs, "#define TM_SX %d\n", o->stride_w);
  if ((s = texmem__conv_program(env, model, op, file, k3 ? defs : NULL,
                                k3 ? local_flat : local_2d, out, err)))
    return s;
  int32_t pt = g.pad_top, pl = g.pad_left;
  texmem__pad_before(model, out->in_pad, &pl, &pt);
  texmem__kernel_ivec4(out, "geom", o->stride_w, o->stride_h, pl, pt);
  texmem__kernel_ivec4(out, "kern", kw, kh, o->dilation_w, o->dilation_h);
  if (mult != 1) texmem__kernel_ivec4(out, "chan", (int32_t)mult, (int32_t)d.oc, 0, 0);
  texmem__ku_batch(out, x->b);
  if (k3) {
    /* Flat: (slice, row, quad of columns), 64 a work group, split over the
     * x and y work group counts (each at most 65535). */
    uint64_t quads = ((uint64_t)ow + TEXMEM__CONV_PX - 1) / TEXMEM__CONV_PX;
    uint64_t n = (uint64_t)os * x->b * (uint64_t)oh * quads;
    uint64_t wgs = (n + 63) / 64, gx = wgs < 65535 ? wgs : 65535, gy = (wgs + gx - 1) / gx;
    if (n > (uint64_t)INT32_MAX / 2 || gy > 65535)
      return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS, "%s: output %dx%dx%u too large", name,
                          oh, ow, d.oc);
    out->groups[0] = (uint32_t)gx;
    out->groups[1] = (uint32_t)gy;
    out->groups[2] = 1;
    return TEXMEM_STATUS_OK;
  }
  out->groups[0] = ((uint32_t)ow + 7) / 8;
  out->groups[1] = ((uint32_t)oh + 7) / 8;
  out->groups[2] = os * x->b;
  return TEXMEM_STATUS_OK;
}

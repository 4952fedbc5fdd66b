/* DEPTHWISE_CONV_2D: 1HWC weights repacked as one vec4 per (output slice,
 * ky, kx); one shader invocation per output texel. Depth multiplier 1
 * reads the same slice (op_depthwise.comp); a multiplier M > 1 gathers
 * input channel c / M for each output channel c (op_depthwise_mult.comp).
 * A depthwise convolution folded into the tiled 1x1 convolution reading
 * it (kernels_conv_fuse.h) gives that kernel its weights, bias and
 * geometry here (texmem__dw_fold). */
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

/* A depthwise convolution's checked operands, window, and its weights
 * (pw: one vec4 per output slice, ky, kx) and bias (pb: one vec4 per
 * output slice) packed, nw and nb floats (both the caller's to free). */
typedef struct dw_parts {
  const texmem_tensor *x;
  uint32_t kh, kw, oc, mult;
  texmem__conv_window g;
  float *pw, *pb;
  size_t nw, nb;
} dw_parts;

static texmem_status dw_parts_of(const texmem_model *model, const texmem_op *op, dw_parts *d,
                                 texmem_error *err) {
  const char *name = "DEPTHWISE_CONV_2D";
  const texmem_tensor *x = NULL, *y = NULL, *w = NULL, *bias = NULL;
  texmem_status s;
  if ((s = texmem__conv_operands(name, model, op, &x, &y, &w, err))) return s;
  if ((s = texmem__conv_check_4d(name, x, w, err))) return s;
  uint32_t KH = (uint32_t)w->shape[1], KW = (uint32_t)w->shape[2], OC = (uint32_t)w->shape[3];
  if (w->shape[0] != 1 || OC % x->c != 0 ||
      w->data_size != (size_t)KH * KW * OC * sizeof(float))
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: weights %dx%dx%dx%d do not fit %u input channels", name, w->shape[0],
                        w->shape[1], w->shape[2], w->shape[3], x->c);
  uint32_t mult = OC / x->c;
  const texmem_op_options *o = &op->options;
  if (o->depth_multiplier > 1 && (uint32_t)o->depth_multiplier != mult)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: depth_multiplier %d, weights give %u",
                        name, o->depth_multiplier, mult);
  if (op->n_inputs > 2 && op->inputs[2] >= 0 &&
      (s = texmem__conv_const(name, model, op->inputs[2], "bias", OC, &bias, err)))
    return s;
  texmem__conv_window g = {0};
  if ((s = texmem__conv_window_of(name, o, x, KH, KW, &g, err))) return s;
  if ((s = texmem__conv_check_out(name, y, x->b, (uint32_t)g.oh, (uint32_t)g.ow, OC, err)))
    return s;
  *d = (dw_parts){.x = x, .kh = KH, .kw = KW, .oc = OC, .mult = mult, .g = g};

  uint32_t os = (uint32_t)texmem__ku_slices(OC);
  size_t taps = (size_t)KH * KW, nw = (size_t)os * taps * 4, nb = 0;
  float *pw = calloc(nw ? nw : 1, sizeof *pw);
  float *pb = texmem__conv_pack_bias(bias ? bias->data : NULL, OC, os, &nb);
  if ((s = texmem__conv_check_alloc(name, pw, pb, err))) return s;
  const float *wd = w->data;
  for (uint32_t oc = 0; oc < OC; oc++)
    for (size_t t = 0; t < taps; t++) pw[((oc / 4) * taps + t) * 4 + oc % 4] = wd[t * OC + oc];
  d->pw = pw;
  d->pb = pb;
  d->nw = nw;
  d->nb = nb;
  return TEXMEM_STATUS_OK;
}

static void dw_parts_free(dw_parts *d) {
  free(d->pw);
  free(d->pb);
}

/* d's weights then bias in one buffer *buf (a binding fewer: GLES 3.1
 * guarantees 4); frees d's arrays. */
static texmem_status joined_buffer(texmem__kernel_env *env, dw_parts *d, texmem_gl_buffer *buf,
                                   texmem_error *err) {
  return texmem__conv_upload_joined(env, d->pw, d->nw, d->pb, d->nb, buf, err);
}

texmem_status texmem__dw_fold(texmem__kernel_env *env, const texmem_model *model,
                              const texmem_op *op, texmem__kernel *k, char *defs, size_t cap,
                              texmem_error *err) {
  dw_parts d;
  texmem_status s = dw_parts_of(model, op, &d, err);
  if (s) return s;
  if (d.mult != 1 || k->n_buffers != 2) {
    dw_parts_free(&d);
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "DEPTHWISE_CONV_2D folded with multiplier %u, %zu buffers before", d.mult,
                        k->n_buffers);
  }
  if ((s = joined_buffer(env, &d, &k->buffers[2], err))) return s;
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

texmem_status texmem__dw_affine_buffer(texmem__kernel_env *env, const texmem_model *model,
                                      const texmem_op *op, texmem__kernel *k, const char *act,
                                      texmem_error *err) {
  dw_parts d;
  texmem_status s = dw_parts_of(model, op, &d, err);
  if (s) return s;
  if (d.mult != 1 || d.kh != 1 || d.kw != 1 || k->n_buffers >= TEXMEM__KERNEL_MAX_BUFFERS) {
    dw_parts_free(&d);
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "DEPTHWISE_CONV_2D %ux%u, multiplier %u applied per texel, %zu buffers "
                        "before", d.kh, d.kw, d.mult, k->n_buffers);
  }
  if ((s = joined_buffer(env, &d, &k->buffers[k->n_buffers], err))) return s;
  k->n_buffers++;
  return texmem__ku_activation_as("DEPTHWISE_CONV_2D", op->options.activation, act, k, err);
}

texmem_status texmem__kernel_depthwise(texmem__kernel_env *env, const texmem_model *model,
                                       const texmem_op *op, texmem__kernel *out,
                                       texmem_error *err) {
  const char *name = "DEPTHWISE_CONV_2D";
  dw_parts d;
  texmem_status s = dw_parts_of(model, op, &d, err);
  if (s) return s;
  const texmem_op_options *o = &op->options;
  if ((s = texmem__ku_activation(name, o->activation, out, err))) {
    dw_parts_free(&d);
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

/* A depthwise convolution's weights and bias as its kernels read them
 * (one vec4 a (output slice, ky, kx), one vec4 an output slice), for the
 * depthwise kernels (kernels_depthwise.c) and for the kernels that compute
 * a depthwise convolution inside their own dispatch: the tiled 1x1 one
 * (texmem__dw_fold) and any convolution reading a per-texel one
 * (texmem__dw_affine_buffer, kernels_conv_fuse_program.c). */
#include "kernel_env.h"
#include "kernels_conv_common.h"

texmem_status texmem__dw_parts_of(const texmem_model *model, const texmem_op *op,
                                  texmem__dw_parts *d, texmem_error *err) {
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
  *d = (texmem__dw_parts){.x = x, .kh = KH, .kw = KW, .oc = OC, .mult = mult, .g = g};

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

void texmem__dw_parts_free(texmem__dw_parts *d) {
  free(d->pw);
  free(d->pb);
}

texmem_status texmem__dw_parts_upload(texmem__kernel_env *env, texmem__dw_parts *d,
                                     texmem_gl_buffer *buf, texmem_error *err) {
  return texmem__conv_upload_joined(env, d->pw, d->nw, d->pb, d->nb, buf, err);
}

texmem_status texmem__dw_affine_buffer(texmem__kernel_env *env, const texmem_model *model,
                                      const texmem_op *op, texmem__kernel *k, const char *act,
                                      texmem_error *err) {
  texmem__dw_parts d;
  texmem_status s = texmem__dw_parts_of(model, op, &d, err);
  if (s) return s;
  if (d.mult != 1 || d.kh != 1 || d.kw != 1 || k->n_buffers >= TEXMEM__KERNEL_MAX_BUFFERS) {
    texmem__dw_parts_free(&d);
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "DEPTHWISE_CONV_2D %ux%u, multiplier %u applied per texel, %zu buffers "
                        "before", d.kh, d.kw, d.mult, k->n_buffers);
  }
  if ((s = texmem__dw_parts_upload(env, &d, &k->buffers[k->n_buffers], err))) return s;
  k->n_buffers++;
  return texmem__ku_activation_as("DEPTHWISE_CONV_2D", op->options.activation, act, k, err);
}


/* CONV_2D: OHWI weights packed into 4x4 vec4 blocks for groups of 4
 * output slices; one shader invocation computes 4 output pixels x 4
 * slices (each weight vec4 feeds 4 pixels, each texel read 16
 * multiply-adds). 1x1 kernels take a loop without bounds checks:
 * op_conv1x1.comp, or on GPUs (texmem__kernel_env_tiled) the work-group
 * tiled op_conv1x1_tiled.comp; everything else op_conv.comp. Pixels run
 * over batch x H x W. Padding, output size and activation follow TFLite. */
#include <stdio.h>
#include <string.h>

#include "kernel_env.h"
#include "kernels_conv_common.h"
#include "kernels_conv_fuse.h"

/* Splits `n` work groups of a flat index over the x and y counts. */
static texmem_status flat_groups(const char *name, uint64_t n, texmem__kernel *out,
                                 texmem_error *err) {
  uint64_t gx = n < 65535 ? n : 65535, gy = (n + gx - 1) / gx;
  if (gy > 65535)
    return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS, "%s: output too large", name);
  out->groups[0] = (uint32_t)gx;
  out->groups[1] = (uint32_t)gy;
  out->groups[2] = 1;
  return TEXMEM_STATUS_OK;
}

/* The tiled 1x1 program and its uniforms (pixels over batch x H x W). */
static texmem_status conv1x1_tiled(texmem__kernel_env *env, const texmem_model *model,
                                   const texmem_op *op, uint64_t pixels, uint32_t ng,
                                   uint32_t chunks, texmem__kernel *out, texmem_error *err) {
  texmem__conv_tile t = texmem__conv1x1_tile(pixels, ng, chunks, texmem__kernel_env_split(env));
  uint64_t ptiles = (pixels + 4 * t.pq - 1) / (4 * t.pq), stiles = (ng + t.sg - 1) / t.sg;
  if (ptiles * stiles > (uint64_t)INT32_MAX / 2)
    return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS, "CONV_2D: output too large");
  /* binary16 weights of an unsplit 64-pixel tile are unpacked once a work
   * group, in shared memory (8 KiB with the texels: GLES 3.1 guarantees 16). */
  bool stage = texmem__kernel_env_half_weights(env) && t.pq == 16 && t.sg == 4 && t.ks == 1;
  char defs[256];
  snprintf(defs, sizeof defs, "#define TM_PQ %u\n#define TM_SG %u\n#define TM_KS %u\n%s", t.pq,
           t.sg, t.ks, stage ? "#define TM_WSTAGE 1\n" : "");
  texmem_status s = TEXMEM_STATUS_OK;
  if (out->in_dw && (s = texmem__dw_fold(env, model, out->in_dw, out, defs, sizeof defs, err)))
    return s;
  if (out->in_mul) {
    /* The MUL's activation, as uniform sact; its product rounded in fp16. */
    if ((s = texmem__ku_activation_as("MUL", out->in_mul->options.activation, "sact", out, err)))
      return s;
    size_t len = strlen(defs);
    snprintf(defs + len, sizeof defs - len, "#define TM_FUSE_SCALE 1\n%s",
             texmem__kernel_env_half_images(env) ? "#define TM_SC_ROUND 1\n" : "");
  }
  if (out->in_add) {
    /* The ADD after it: its operand order and activation (saact). */
    const texmem_op *add = out->in_add;
    texmem_activation act = add->options.activation;
    if ((s = texmem__ku_activation_as("ADD", act, "saact", out, err))) return s;
    size_t len = strlen(defs);
    snprintf(defs + len, sizeof defs - len, "#define TM_FUSE_SCALE_ADD %d\n#define TM_SA_TANH %d\n",
             add->inputs[1] == out->in_mul->outputs[0], act == TEXMEM_ACT_TANH);
  }
  const uint32_t local[3] = {t.pq * t.sg * t.ks, 1, 1};
  s = texmem__conv_program(env, model, op, "op_conv1x1_tiled.comp", defs, local, out, err);
  if (s) return s;
  texmem__kernel_env_note_split(env, t.ks);
  const texmem_op_options *o = &op->options;
  texmem__kernel_ivec4(out, "geom", o->stride_w, o->stride_h, (int32_t)ptiles, (int32_t)ng);
  return flat_groups("CONV_2D", ptiles * stiles, out, err);
}

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

  bool one = KH == 1 && KW == 1, tiled = one && texmem__kernel_env_tiled(env);
  if ((out->in_sq_pool && !tiled) || (out->in_add && !out->in_mul) ||
      ((out->in_dw || out->in_mul || out->in_rsz) &&
       (!tiled || o->stride_w != 1 || o->stride_h != 1)))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "%s: a depthwise convolution, MUL, resize or squeeze folds into a "
                        "tiled 1x1 stride-1 one only",
                        name);
  uint32_t os = (uint32_t)texmem__ku_slices(O);
  uint32_t ng = (os + TEXMEM__CONV_GROUP - 1) / TEXMEM__CONV_GROUP;
  size_t nw = 0, nb = 0;
  float *pw = texmem__conv_pack_ohwi(w->data, O, KH, KW, I, tiled ? 4 : 1, &nw);
  float *pb = texmem__conv_pack_bias(bias ? bias->data : NULL, O, ng * TEXMEM__CONV_GROUP, &nb);
  if ((s = texmem__conv_check_alloc(name, pw, pb, err))) return s;
  if ((s = texmem__conv_upload(env, pw, nw, pb, nb, out, err))) return s;

  if (out->in_sq_pool) return texmem__conv_squeeze(env, model, op, out, err);
  uint64_t pixels = (uint64_t)ow * (uint64_t)oh * x->b;
  if (tiled) {
    uint32_t chunks = ((uint32_t)texmem__ku_slices(I) + 3) / 4;
    if ((s = conv1x1_tiled(env, model, op, pixels, ng, chunks, out, err))) return s;
    texmem__ku_batch(out, x->b);
    return TEXMEM_STATUS_OK;
  }
  /* Flat invocations: quads of pixels x groups, 64 a work group, split
   * over the x and y work group counts (each at most 65535). */
  uint64_t quads = (pixels + TEXMEM__CONV_PX - 1) / TEXMEM__CONV_PX;
  if (quads * ng > (uint64_t)INT32_MAX / 2)
    return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS, "%s: output %dx%dx%u too large", name,
                        oh, ow, O);
  const uint32_t local[3] = {64, 1, 1};
  if ((s = texmem__conv_program(env, model, op, one ? "op_conv1x1.comp" : "op_conv.comp", NULL,
                                local, out, err)))
    return s;
  if (one) {
    texmem__kernel_ivec4(out, "geom", o->stride_w, o->stride_h, (int32_t)quads, 0);
  } else {
    int32_t pt = g.pad_top, pl = g.pad_left;
    texmem__pad_before(model, out->in_pad, &pl, &pt);
    texmem__kernel_ivec4(out, "geom", o->stride_w, o->stride_h, pl, pt);
    texmem__kernel_ivec4(out, "kern", kw, kh, o->dilation_w, o->dilation_h);
    texmem__kernel_int(out, "quads", (int32_t)quads);
  }
  texmem__ku_batch(out, x->b);
  return flat_groups(name, (quads * ng + 63) / 64, out, err);
}

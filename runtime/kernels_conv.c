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

/* The tiled 1x1 program and its uniforms (pixels over batch x H x W), the
 * input slices split in `split` parts (0: as the layer's size asks). */
static texmem_status conv1x1_tiled(texmem__kernel_env *env, const texmem_model *model,
                                   const texmem_op *op, uint64_t pixels, uint32_t ng,
                                   uint32_t chunks, uint32_t split, texmem__kernel *out,
                                   texmem_error *err) {
  texmem__conv_tile t = texmem__conv1x1_tile(pixels, ng, chunks, split);
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

/* A convolution's checked operands: input, output, weights (O x KH x KW x
 * I), bias (NULL: none) and window. */
typedef struct conv_parts {
  const texmem_tensor *x, *y, *w, *bias;
  uint32_t O, KH, KW, I;
  texmem__conv_window g;
} conv_parts;

static texmem_status conv_parts_of(const texmem_model *model, const texmem_op *op, conv_parts *c,
                                   texmem_error *err) {
  const char *name = "CONV_2D";
  texmem_status s;
  memset(c, 0, sizeof *c);
  if ((s = texmem__conv_operands(name, model, op, &c->x, &c->y, &c->w, err))) return s;
  if ((s = texmem__conv_check_4d(name, c->x, c->w, err))) return s;
  const texmem_tensor *x = c->x, *w = c->w;
  c->O = (uint32_t)w->shape[0], c->KH = (uint32_t)w->shape[1], c->KW = (uint32_t)w->shape[2];
  c->I = (uint32_t)w->shape[3];
  if (w->data_size != (size_t)c->O * c->KH * c->KW * c->I * sizeof(float))
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: weights hold %zu bytes, their shape needs more", name, w->data_size);
  if (c->I != x->c)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: weights have %u input channels, input \"%s\" has %u", name, c->I,
                        x->name, x->c);
  if (op->n_inputs > 2 && op->inputs[2] >= 0 &&
      (s = texmem__conv_const(name, model, op->inputs[2], "bias", c->O, &c->bias, err)))
    return s;
  if ((s = texmem__conv_window_of(name, &op->options, x, c->KH, c->KW, &c->g, err))) return s;
  return texmem__conv_check_out(name, c->y, x->b, (uint32_t)c->g.oh, (uint32_t)c->g.ow, c->O, err);
}

/* Uniform names of the heads' activations (op_conv1x1_tiled.comp). */
static const char *const head_act[] = {"act", "act1", "act2"};

/* The heads' weights and biases packed for the tiled kernel one after
 * another, head h's from group first[h] of ng, chunks of 4 input slices
 * each (*pw or *pb NULL: out of memory; both the caller's). */
static void heads_weights(const conv_parts *c, size_t n, const int32_t *first, uint32_t ng,
                          uint32_t chunks, float **pw, size_t *nw, float **pb, size_t *nb) {
  size_t per = (size_t)chunks * 4 * TEXMEM__CONV_GROUP * 16; /* floats a group's weights */
  *nw = ng * per;
  *nb = (size_t)ng * TEXMEM__CONV_GROUP * 4;
  *pw = malloc(*nw * sizeof **pw);
  *pb = malloc(*nb * sizeof **pb);
  for (size_t h = 0; h < n && *pw && *pb; h++) {
    uint32_t g = (h + 1 < n ? (uint32_t)first[h + 1] : ng) - (uint32_t)first[h];
    size_t hw = 0, hb = 0;
    float *w = texmem__conv_pack_ohwi(c[h].w->data, c[h].O, 1, 1, c[h].I, 4, &hw);
    float *b = texmem__conv_pack_bias(c[h].bias ? c[h].bias->data : NULL, c[h].O,
                                      g * TEXMEM__CONV_GROUP, &hb);
    if (w && b) {
      memcpy(*pw + (size_t)first[h] * per, w, hw * sizeof *w);
      memcpy(*pb + (size_t)first[h] * TEXMEM__CONV_GROUP * 4, b, hb * sizeof *b);
    } else {
      free(*pw);
      *pw = NULL;
    }
    free(w);
    free(b);
  }
}

/* op and the 1x1 convolutions of its input after it (out->heads,
 * kernels_merge_conv_heads.c) as one tiled product: their weights and
 * biases one after another, each padded to whole groups of 4 output
 * slices, head h's from group hfirst[h]; the split of the input slices
 * op's alone (the merge checked that each head's is the same). */
static texmem_status conv_heads(texmem__kernel_env *env, const texmem_model *model,
                                const texmem_op *op, texmem__kernel *out, texmem_error *err) {
  const char *name = "CONV_2D";
  size_t n = 1 + out->n_heads;
  if (n > sizeof head_act / sizeof head_act[0] || !texmem__kernel_env_tiled(env))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "%s: %zu heads; up to 3 merge, with the tiled kernels", name, n);
  conv_parts c[3] = {{0}};
  int32_t first[4] = {0, INT32_MAX, INT32_MAX, INT32_MAX};
  uint32_t ng = 0;
  texmem_status s;
  for (size_t h = 0; h < n; h++) {
    const texmem_op *o = h ? out->heads[h - 1] : op;
    if ((s = conv_parts_of(model, o, &c[h], err))) return s;
    if (c[h].KH != 1 || c[h].KW != 1 || o->options.stride_w != 1 || o->options.stride_h != 1 ||
        o->inputs[0] != op->inputs[0])
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "%s: merged heads are 1x1 stride-1 convolutions of one input", name);
    if ((s = texmem__ku_activation_as(name, o->options.activation, head_act[h], out, err)))
      return s;
    first[h] = (int32_t)ng;
    ng += texmem__conv_groups(c[h].O);
  }
  uint32_t chunks = texmem__conv_chunks(c[0].I);
  size_t nw = 0, nb = 0;
  float *pw = NULL, *pb = NULL;
  heads_weights(c, n, first, ng, chunks, &pw, &nw, &pb, &nb);
  if ((s = texmem__conv_check_alloc(name, pw, pb, err))) return s;
  if ((s = texmem__conv_upload(env, pw, nw, pb, nb, out, err))) return s;
  uint64_t pixels = (uint64_t)c[0].g.ow * (uint64_t)c[0].g.oh * c[0].x->b;
  uint32_t split = texmem__kernel_env_split(env);
  if (!split) split = texmem__conv1x1_own_split(pixels, c[0].O, c[0].I);
  texmem__kernel_ivec4(out, "hfirst", first[0], first[1], first[2], first[3]);
  if ((s = conv1x1_tiled(env, model, op, pixels, ng, chunks, split, out, err))) return s;
  texmem__ku_batch(out, c[0].x->b);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__kernel_conv2d(texmem__kernel_env *env, const texmem_model *model,
                                    const texmem_op *op, texmem__kernel *out, texmem_error *err) {
  const char *name = "CONV_2D";
  if (out->n_heads) return conv_heads(env, model, op, out, err);
  conv_parts c;
  texmem_status s = conv_parts_of(model, op, &c, err);
  if (s) return s;
  const texmem_tensor *x = c.x, *w = c.w, *bias = c.bias;
  uint32_t O = c.O, KH = c.KH, KW = c.KW, I = c.I;
  const texmem_op_options *o = &op->options;
  int32_t oh = c.g.oh, ow = c.g.ow, kh = (int32_t)KH, kw = (int32_t)KW;
  if ((s = texmem__ku_activation(name, o->activation, out, err))) return s;

  bool one = KH == 1 && KW == 1, tiled = one && texmem__kernel_env_tiled(env);
  if ((out->in_sq_pool && !tiled) || (out->in_add && !out->in_mul) ||
      ((out->in_dw || out->in_mul || out->in_rsz) &&
       (!tiled || o->stride_w != 1 || o->stride_h != 1)))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "%s: a depthwise convolution, MUL, resize or squeeze folds into a "
                        "tiled 1x1 stride-1 one only",
                        name);
  uint32_t ng = texmem__conv_groups(O);
  size_t nw = 0, nb = 0;
  float *pw = texmem__conv_pack_ohwi(w->data, O, KH, KW, I, tiled ? 4 : 1, &nw);
  float *pb = texmem__conv_pack_bias(bias ? bias->data : NULL, O, ng * TEXMEM__CONV_GROUP, &nb);
  if ((s = texmem__conv_check_alloc(name, pw, pb, err))) return s;
  if ((s = texmem__conv_upload(env, pw, nw, pb, nb, out, err))) return s;

  if (out->in_sq_pool) return texmem__conv_squeeze(env, model, op, out, err);
  uint64_t pixels = (uint64_t)ow * (uint64_t)oh * x->b;
  if (tiled) {
    if ((s = conv1x1_tiled(env, model, op, pixels, ng, texmem__conv_chunks(I),
                           texmem__kernel_env_split(env), out, err)))
      return s;
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
    int32_t pt = c.g.pad_top, pl = c.g.pad_left;
    texmem__pad_before(model, out->in_pad, &pl, &pt);
    texmem__kernel_ivec4(out, "geom", o->stride_w, o->stride_h, pl, pt);
    texmem__kernel_ivec4(out, "kern", kw, kh, o->dilation_w, o->dilation_h);
    texmem__kernel_int(out, "quads", (int32_t)quads);
  }
  texmem__ku_batch(out, x->b);
  return flat_groups(name, (quads * ng + 63) / 64, out, err);
}

/* Helpers shared by the convolution-like kernels (kernels_conv.c,
 * kernels_depthwise.c, kernels_fc.c, kernels_transpose_conv.c): operand
 * checks, window geometry and vec4 weight packing (the fused activation
 * uniform comes from kernels_util.h). Static
 * functions only (each file uses a subset). */
#ifndef TEXMEM_RUNTIME_KERNELS_CONV_COMMON_H
#define TEXMEM_RUNTIME_KERNELS_CONV_COMMON_H

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "common.h" /* texmem__fail, checked arithmetic */
#include "kernel.h"
#include "kernels_util.h" /* texmem__ku_activation: the same act uniform */

/* Output slices one conv invocation computes (weights are padded to a
 * multiple of this many slices; the shaders hard-code it). */
#define TEXMEM__CONV_GROUP 4

/* Adjacent output pixels (along x) one conv invocation computes (the
 * shaders' PX). */
#ifndef TEXMEM__CONV_PX
#define TEXMEM__CONV_PX 4
#endif

/* TFLite window geometry: output size (SAME ceil(in/stride), VALID
 * ceil((in - eff_k + 1)/stride), 0 if it does not fit) and padding before
 * the first element (the odd one goes after). */
static inline int32_t texmem__conv_out_size(texmem_padding p, int32_t in, int32_t k,
                                            int32_t stride, int32_t dil) {
  int32_t ek = (k - 1) * dil + 1;
  if (p == TEXMEM_PADDING_SAME) return (in + stride - 1) / stride;
  return in >= ek ? (in - ek) / stride + 1 : 0;
}

static inline int32_t texmem__conv_pad_before(int32_t in, int32_t out, int32_t k, int32_t stride,
                                              int32_t dil) {
  int32_t total = (out - 1) * stride + (k - 1) * dil + 1 - in;
  return total > 0 ? total / 2 : 0;
}

/* A KH x KW window over x with o's strides and dilations (each must be at
 * least 1): the output size and the padding before the first row and
 * column, as TFLite computes them. */
typedef struct texmem__conv_window {
  int32_t oh, ow, pad_top, pad_left;
} texmem__conv_window;

static inline texmem_status texmem__conv_window_of(const char *name, const texmem_op_options *o,
                                                   const texmem_tensor *x, uint32_t KH,
                                                   uint32_t KW, texmem__conv_window *g,
                                                   texmem_error *err) {
  if (o->stride_w < 1 || o->stride_h < 1 || o->dilation_w < 1 || o->dilation_h < 1)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: stride %dx%d / dilation %dx%d below 1",
                        name, o->stride_w, o->stride_h, o->dilation_w, o->dilation_h);
  int32_t ih = (int32_t)x->h, iw = (int32_t)x->w, kh = (int32_t)KH, kw = (int32_t)KW;
  g->oh = texmem__conv_out_size(o->padding, ih, kh, o->stride_h, o->dilation_h);
  g->ow = texmem__conv_out_size(o->padding, iw, kw, o->stride_w, o->dilation_w);
  g->pad_top = texmem__conv_pad_before(ih, g->oh, kh, o->stride_h, o->dilation_h);
  g->pad_left = texmem__conv_pad_before(iw, g->ow, kw, o->stride_w, o->dilation_w);
  return TEXMEM_STATUS_OK;
}

/* A model tensor as a float image operand: non-constant, FLOAT32. */
static inline texmem_status texmem__conv_image(const char *op, const texmem_model *m, int32_t idx,
                                               const char *what, const texmem_tensor **out,
                                               texmem_error *err) {
  const texmem_tensor *t = idx >= 0 ? texmem_model_tensor(m, (size_t)idx) : NULL;
  if (!t)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %s tensor %d missing", op, what, idx);
  if (t->flags & TEXMEM_TENSOR_CONSTANT)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP, "%s: constant %s (tensor %d \"%s\")", op,
                        what, idx, t->name);
  if (t->type != TEXMEM_DTYPE_FLOAT32 && t->type != TEXMEM_DTYPE_FLOAT16)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP, "%s: %s tensor %d is %s, needs float",
                        op, what, idx, texmem_dtype_name(t->type));
  *out = t;
  return TEXMEM_STATUS_OK;
}

/* A constant float operand with `count` elements (count 0: any). */
static inline texmem_status texmem__conv_const(const char *op, const texmem_model *m, int32_t idx,
                                               const char *what, size_t count,
                                               const texmem_tensor **out, texmem_error *err) {
  const texmem_tensor *t = idx >= 0 ? texmem_model_tensor(m, (size_t)idx) : NULL;
  if (!t)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %s tensor %d missing", op, what, idx);
  if (!(t->flags & TEXMEM_TENSOR_CONSTANT) || !t->data)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP,
                        "%s: %s (tensor %d \"%s\") is not constant data", op, what, idx, t->name);
  if (t->type != TEXMEM_DTYPE_FLOAT32)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP, "%s: %s tensor %d is %s, needs float32",
                        op, what, idx, texmem_dtype_name(t->type));
  size_t n = t->data_size / sizeof(float);
  if (count && n != count)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %s tensor %d has %zu values, needs %zu",
                        op, what, idx, n, count);
  *out = t;
  return TEXMEM_STATUS_OK;
}

/* The operands every conv-like op starts from: input 0 and output 0 as
 * images, input 1 as constant weights. */
static inline texmem_status texmem__conv_operands(const char *op, const texmem_model *m,
                                                  const texmem_op *o, const texmem_tensor **x,
                                                  const texmem_tensor **y,
                                                  const texmem_tensor **w, texmem_error *err) {
  if (o->n_inputs < 2 || o->n_outputs < 1)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: needs input, weights and an output", op);
  texmem_status s;
  if ((s = texmem__conv_image(op, m, o->inputs[0], "input", x, err)) ||
      (s = texmem__conv_image(op, m, o->outputs[0], "output", y, err)) ||
      (s = texmem__conv_const(op, m, o->inputs[1], "weights", 0, w, err)))
    return s;
  return TEXMEM_STATUS_OK;
}

/* Rank-4 input and weights (the spatial convolutions). */
static inline texmem_status texmem__conv_check_4d(const char *op, const texmem_tensor *x,
                                                  const texmem_tensor *w, texmem_error *err) {
  if (w->rank != 4 || x->rank != 4)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: input rank %u, weights rank %u (need 4)",
                        op, x->rank, w->rank);
  return TEXMEM_STATUS_OK;
}

/* The output tensor must have exactly the shape the op computes. */
static inline texmem_status texmem__conv_check_out(const char *op, const texmem_tensor *t,
                                                   uint32_t b, uint32_t h, uint32_t w, uint32_t c,
                                                   texmem_error *err) {
  if (t->b != b || t->h != h || t->w != w || t->c != c)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: output \"%s\" is %ux%ux%ux%u (BHWC), the op gives %ux%ux%ux%u", op,
                        t->name, t->b, t->h, t->w, t->c, b, h, w, c);
  return TEXMEM_STATUS_OK;
}

/* A tile of op_conv1x1_tiled.comp: pixel quads, groups of 4 output slices
 * and parts splitting the input slices (pq * sg * ks = 64 invocations). */
typedef struct texmem__conv_tile {
  uint32_t pq, sg, ks;
} texmem__conv_tile;

/* The tile for a 1x1 convolution over `pixels` output pixels, `groups4`
 * groups of 4 output slices and `chunks` chunks of 4 input slices: the
 * one of `split` parts (1, 2, 4, 8, 16) when it is not 0, else the
 * largest giving enough work groups to fill a large GPU, else the
 * smallest whose parts each get a chunk (kernels_conv1x1_tile.c). */
texmem__conv_tile texmem__conv1x1_tile(uint64_t pixels, uint32_t groups4, uint32_t chunks,
                                       uint32_t split);

/* Groups of TEXMEM__CONV_GROUP output slices of c output channels (the
 * weight blocks an invocation walks), and chunks of 4 input slices of c
 * input channels (the tiled 1x1 kernel's loop). */
static inline uint32_t texmem__conv_groups(uint32_t c) {
  return ((uint32_t)texmem__ku_slices(c) + TEXMEM__CONV_GROUP - 1) / TEXMEM__CONV_GROUP;
}
static inline uint32_t texmem__conv_chunks(uint32_t c) {
  return ((uint32_t)texmem__ku_slices(c) + 3) / 4;
}

/* The split of the input slices (the tile's ks) a 1x1 convolution of I to
 * O channels over `pixels` takes by itself: merged heads must each take
 * the same (kernels_merge_conv_heads.c), and their dispatch takes it. */
static inline uint32_t texmem__conv1x1_own_split(uint64_t pixels, uint32_t O, uint32_t I) {
  return texmem__conv1x1_tile(pixels, texmem__conv_groups(O), texmem__conv_chunks(I), 0).ks;
}

/* 1x1 convolution `op` of one-pixel planes running the squeeze that makes
 * its input (k->in_sq_pool, k->in_sq, k->in_sq_fused: kernels_fusion.h)
 * in one dispatch of op_squeeze.comp (kernels_squeeze.c); k's buffers w and
 * b hold op's weights packed for the tiled kernel, its act uniform is set. */
texmem_status texmem__conv_squeeze(texmem__kernel_env *env, const texmem_model *model,
                                   const texmem_op *op, texmem__kernel *k, texmem_error *err);

/* A depthwise convolution's checked operands, window, and its weights
 * (pw: one vec4 per output slice, ky, kx) and bias (pb: one vec4 per
 * output slice) packed, nw and nb floats (kernels_depthwise_weights.c). */
typedef struct texmem__dw_parts {
  const texmem_tensor *x;
  uint32_t kh, kw, oc, mult;
  texmem__conv_window g;
  float *pw, *pb;
  size_t nw, nb;
} texmem__dw_parts;

/* op's parts in *d, its arrays the caller's (texmem__dw_parts_free, or
 * texmem__dw_parts_upload, which frees them). */
texmem_status texmem__dw_parts_of(const texmem_model *model, const texmem_op *op,
                                  texmem__dw_parts *d, texmem_error *err);
void texmem__dw_parts_free(texmem__dw_parts *d);
/* d's weights then bias in one buffer *buf (a binding fewer: GLES 3.1
 * guarantees 4); frees d's arrays. */
texmem_status texmem__dw_parts_upload(texmem__kernel_env *env, texmem__dw_parts *d,
                                     texmem_gl_buffer *buf, texmem_error *err);

/* Depthwise convolution `op` (multiplier 1) folded into the tiled 1x1
 * kernel k, whose buffers w and b are bound (kernels_depthwise.c): its
 * weights then bias as buffer 2 (dw), its activation, bias offset,
 * geometry and kernel as uniforms dact, dbias, dgeom, dkern, and
 * TM_FUSE_DW (3: the 3x3 kernel's sums, 1: the general kernel's) and
 * TM_DW_ROUND (binary16 images) appended to defs (cap bytes). */
texmem_status texmem__dw_fold(texmem__kernel_env *env, const texmem_model *model,
                              const texmem_op *op, texmem__kernel *k, char *defs, size_t cap,
                              texmem_error *err);

/* Depthwise convolution `op` of a 1x1 window and multiplier 1, applied to
 * each texel another kernel k computes or reads (kernels_fusion.h): its
 * weights then its bias (one vec4 a slice each, as op_depthwise.comp
 * reads them) as k's next buffer, its activation as uniform `act` (a
 * string literal). */
texmem_status texmem__dw_affine_buffer(texmem__kernel_env *env, const texmem_model *model,
                                      const texmem_op *op, texmem__kernel *k, const char *act,
                                      texmem_error *err);

/* OHWI weights (O x KH x KW x I) as 4x4 blocks for groups of
 * TEXMEM__CONV_GROUP output slices: index
 *   (((g * KH + ky) * KW + kx) * IS + is) * GROUP*4 + o * 4 + k
 * holds the vec4 of output channels 4*(g*GROUP+o) .. +3 for input channel
 * 4*is+k. A shader invocation of group g walks its blocks in order and
 * does out[o] += x[k] * block[o*4+k]. IS is the input slices rounded up to
 * `slice_step` (the tiled 1x1 kernel reads whole chunks of 4 without a
 * bound check). Zero where padded. Caller frees. */
static inline float *texmem__conv_pack_ohwi(const float *w, uint32_t O, uint32_t KH, uint32_t KW,
                                            uint32_t I, uint32_t slice_step, size_t *count) {
  uint32_t os = (uint32_t)texmem__ku_slices(O), is = (uint32_t)texmem__ku_slices(I);
  is = (is + slice_step - 1) / slice_step * slice_step;
  uint32_t ng = (os + TEXMEM__CONV_GROUP - 1) / TEXMEM__CONV_GROUP;
  size_t n = (size_t)ng * KH * KW * is * TEXMEM__CONV_GROUP * 16;
  float *p = calloc(n ? n : 1, sizeof *p);
  if (!p) return NULL;
  for (uint32_t oc = 0; oc < O; oc++) {
    uint32_t g = oc / (4 * TEXMEM__CONV_GROUP), o = (oc / 4) % TEXMEM__CONV_GROUP, lane = oc % 4;
    for (uint32_t ky = 0; ky < KH; ky++)
      for (uint32_t kx = 0; kx < KW; kx++)
        for (uint32_t ic = 0; ic < I; ic++) {
          size_t blk = (((size_t)g * KH + ky) * KW + kx) * is + ic / 4;
          size_t at = (blk * TEXMEM__CONV_GROUP * 4 + o * 4 + ic % 4) * 4 + lane;
          p[at] = w[(((size_t)oc * KH + ky) * KW + kx) * I + ic];
        }
  }
  *count = n;
  return p;
}

/* Bias (or zeros) as one vec4 per output slice, padded to `slices`. */
static inline float *texmem__conv_pack_bias(const float *bias, uint32_t O, uint32_t slices,
                                            size_t *count) {
  size_t n = (size_t)slices * 4;
  float *p = calloc(n ? n : 1, sizeof *p);
  if (!p) return NULL;
  if (bias) memcpy(p, bias, (size_t)O * sizeof *p);
  *count = n;
  return p;
}

/* Packed weight and bias arrays, both allocated or neither (frees the
 * other and fails with OUT_OF_MEMORY). */
static inline texmem_status texmem__conv_check_alloc(const char *op, float *pw, float *pb,
                                                     texmem_error *err) {
  if (pw && pb) return TEXMEM_STATUS_OK;
  free(pw);
  free(pb);
  return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "%s: no memory for packed weights", op);
}

/* Uploads packed weights pw then bias pb as one buffer *buf (a binding
 * fewer: GLES 3.1 guarantees 4); frees both arrays. */
static inline texmem_status texmem__conv_upload_joined(texmem__kernel_env *env, float *pw,
                                                       size_t nw, float *pb, size_t nb,
                                                       texmem_gl_buffer *buf, texmem_error *err) {
  float *wb = realloc(pw, (nw + nb) * sizeof *wb);
  if (!wb) {
    free(pw);
    free(pb);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  memcpy(wb + nw, pb, nb * sizeof *wb);
  free(pb);
  texmem_status s = texmem__kernel_buffer(env, wb, nw + nb, buf, err);
  free(wb);
  return s;
}

/* Uploads packed weights and bias as the kernel's buffers w (0) and b (1);
 * frees both arrays. */
static inline texmem_status texmem__conv_upload(texmem__kernel_env *env, float *pw, size_t nw,
                                                float *pb, size_t nb, texmem__kernel *k,
                                                texmem_error *err) {
  texmem_status s = texmem__kernel_buffer(env, pw, nw, &k->buffers[0], err);
  if (!s) s = texmem__kernel_buffer(env, pb, nb, &k->buffers[1], err);
  free(pw);
  free(pb);
  if (!s) k->n_buffers = 2;
  return s;
}

#endif

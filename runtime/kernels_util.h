/* Helpers shared by the data-movement and element-wise kernels
 * (kernels_elementwise.c, kernels_pool.c, kernels_mean.c, kernels_resize.c,
 * kernels_pad.c, kernels_concat.c, kernels_reshape.c,
 * kernels_depth_to_space.c). Static inline only. */
#ifndef TEXMEM_RUNTIME_KERNELS_UTIL_H
#define TEXMEM_RUNTIME_KERNELS_UTIL_H

#include <float.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h" /* texmem__fail, checked arithmetic */
#include "kernel.h"
#include "kernel_env.h"

static inline int32_t texmem__ku_slices(uint32_t c) { return (int32_t)((c + 3) / 4); }

/* A model tensor bound as an image: present, not constant, float. Batch b
 * of a tensor with S slices is at texel z = b*S + s (the records' 3-D
 * convention); kernels whose slices change split z with the "batch"
 * uniform (texmem__ku_batch). */
static inline texmem_status texmem__ku_image(const char *op, const texmem_model *m, int32_t idx,
                                             const char *what, const texmem_tensor **out,
                                             texmem_error *err) {
  const texmem_tensor *t = idx >= 0 ? texmem_model_tensor(m, (size_t)idx) : NULL;
  if (!t) return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %s tensor %d missing", op, what, idx);
  if (t->flags & TEXMEM_TENSOR_CONSTANT)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP, "%s: %s tensor %d \"%s\" is constant",
                        op, what, idx, t->name);
  if (t->type != TEXMEM_DTYPE_FLOAT32 && t->type != TEXMEM_DTYPE_FLOAT16)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP, "%s: %s tensor %d is %s, needs float",
                        op, what, idx, texmem_dtype_name(t->type));
  *out = t;
  return TEXMEM_STATUS_OK;
}

/* Input 0 and output 0 as images (the common one-in one-out case). */
static inline texmem_status texmem__ku_in_out(const char *op, const texmem_model *m,
                                              const texmem_op *o, const texmem_tensor **x,
                                              const texmem_tensor **y, texmem_error *err) {
  if (o->n_inputs < 1 || o->n_outputs != 1)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %zu inputs, %zu outputs", op,
                        o->n_inputs, o->n_outputs);
  texmem_status s = texmem__ku_image(op, m, o->inputs[0], "input", x, err);
  if (!s) s = texmem__ku_image(op, m, o->outputs[0], "output", y, err);
  return s;
}

static inline texmem_status texmem__ku_check_out(const char *op, const texmem_tensor *t,
                                                 uint32_t h, uint32_t w, uint32_t c,
                                                 texmem_error *err) {
  if (t->h != h || t->w != w || t->c != c)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: output \"%s\" is %ux%ux%u (HWC), the op gives %ux%ux%u", op, t->name,
                        t->h, t->w, t->c, h, w, c);
  return TEXMEM_STATUS_OK;
}

/* The output's batch must be the input's (ops that keep the batch). */
static inline texmem_status texmem__ku_check_batch(const char *op, const texmem_tensor *x,
                                                   const texmem_tensor *y, texmem_error *err) {
  if (x->b != y->b)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: output \"%s\" has batch %u, input %u",
                        op, y->name, y->b, x->b);
  return TEXMEM_STATUS_OK;
}

/* Input 0 and output 0 of an op whose output has its input's shape (unary
 * ops, softmax). */
static inline texmem_status texmem__ku_same_shape_io(const char *op, const texmem_model *m,
                                                     const texmem_op *o, const texmem_tensor **x,
                                                     const texmem_tensor **y, texmem_error *err) {
  texmem_status s = texmem__ku_in_out(op, m, o, x, y, err);
  if (!s) s = texmem__ku_check_out(op, *y, (*x)->h, (*x)->w, (*x)->c, err);
  if (!s) s = texmem__ku_check_batch(op, *x, *y, err);
  return s;
}

/* uniform int batch: shaders split texel z into (batch, slice) with
 * S = shape.z / max(batch, 1) (an unset uniform reads 0 = batch 1). */
static inline void texmem__ku_batch(texmem__kernel *k, uint32_t b) {
  texmem__kernel_int(k, "batch", (int32_t)b);
}

/* Fused activation a as uniform vec4 `uniform` (a string literal) =
 * (min, max, tanh?, 0), the convention of the conv kernels too:
 * clamp(v, min, max), then tanh when the third is > 0. */
static inline texmem_status texmem__ku_activation_as(const char *op, texmem_activation a,
                                                     const char *uniform, texmem__kernel *k,
                                                     texmem_error *err) {
  float lo = -FLT_MAX, hi = FLT_MAX, th = 0.0f;
  switch (a) {
    case TEXMEM_ACT_NONE: break;
    case TEXMEM_ACT_RELU: lo = 0.0f; break;
    case TEXMEM_ACT_RELU6: lo = 0.0f; hi = 6.0f; break;
    case TEXMEM_ACT_RELU_N1_TO_1: lo = -1.0f; hi = 1.0f; break;
    case TEXMEM_ACT_TANH: th = 1.0f; break;
    default:
      return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP, "%s: fused activation %d", op, (int)a);
  }
  texmem__kernel_vec4(k, uniform, lo, hi, th, 0.0f);
  return TEXMEM_STATUS_OK;
}

/* The same as uniform act. */
static inline texmem_status texmem__ku_activation(const char *op, texmem_activation a,
                                                  texmem__kernel *k, texmem_error *err) {
  return texmem__ku_activation_as(op, a, "act", k, err);
}

/* One input image "src", one output named out, default local size
 * (8x8x1), the program's defines in front. */
static inline texmem_status texmem__ku_program_1_as(texmem__kernel_env *env, const char *file,
                                                    const char *defines, const char *out,
                                                    const texmem_op *o, texmem__kernel *k,
                                                    texmem_error *err) {
  static const char *const ins[] = {"src"};
  const char *const outs[] = {out};
  texmem_status s = texmem__kernel_program_defines(env, file, defines, ins, 1, outs, 1, NULL, 0,
                                                   NULL, &k->program, err);
  if (s) return s;
  k->inputs[0] = o->inputs[0];
  k->n_inputs = 1;
  k->outputs[0] = o->outputs[0];
  k->n_outputs = 1;
  return TEXMEM_STATUS_OK;
}

/* One input image "src", one output "dst", default local size. */
static inline texmem_status texmem__ku_program_1(texmem__kernel_env *env, const char *file,
                                                 const texmem_op *o, texmem__kernel *k,
                                                 texmem_error *err) {
  return texmem__ku_program_1_as(env, file, NULL, "dst", o, k, err);
}

/* Work groups of op_reduce_hw.comp: at least 128 invocations, the least
 * every GLES 3.1 driver runs in one group. */
#define TEXMEM__KU_REDUCE_GROUP 128u
/* The most invocations a plane's reduction takes: op_squeeze.comp's shared
 * array (4 partials for each of the least group's invocations, its
 * convolutions' parts) holds one for each. */
#define TEXMEM__KU_REDUCE_GROUP_MAX (4u * TEXMEM__KU_REDUCE_GROUP)

/* Invocations that reduce a plane of n texels (op_reduce_hw.comp, and
 * op_squeeze.comp's pool, which keeps its order): one work group folds a
 * whole plane, so its serial part is n / group folds a slice. On an H200
 * the landscape selfie model's squeeze on its largest plane (72 x 128)
 * took 98 us a dispatch with 128 invocations, 48 us with 512 (buffer
 * arena, programs from the driver's cache); so up to about 16 texels an
 * invocation, a power of two from 128 to 512 within the driver's limits. It depends on n and the driver alone, so both kernels
 * fold a plane in the same order. */
static inline uint32_t texmem__ku_reduce_group(const texmem__kernel_env *env, uint64_t n) {
  texmem_gl_limits lim;
  texmem_gl_context_limits(texmem__kernel_env_context(env), &lim);
  uint32_t g = TEXMEM__KU_REDUCE_GROUP;
  while (g < TEXMEM__KU_REDUCE_GROUP_MAX && (uint64_t)g * 16 < n &&
         (int64_t)g * 2 <= lim.max_work_group_invocations &&
         (int64_t)g * 2 <= lim.max_work_group_size[0])
    g *= 2;
  return g;
}

/* The most work groups along x every GLES 3.1 driver runs. */
#define TEXMEM__KU_MAX_GROUPS_X 65535u

/* Whether op_reduce_hw.comp (one work group a texel) takes a reduction of
 * whole H x W planes to the `depth` texels of x's batches x slices: on a
 * GPU (the tiled kernels), within the work-group count every driver runs. */
static inline bool texmem__ku_reduce_hw_fits(const texmem__kernel_env *env, uint64_t depth) {
  return texmem__kernel_env_tiled(env) && depth >= 1 && depth <= TEXMEM__KU_MAX_GROUPS_X;
}

/* op_reduce_hw.comp for input 0 -> output 0: kind 0 max, 1 mean (divided
 * by count); one work group per output texel z (batch x slice), of
 * texmem__ku_reduce_group(env, plane) invocations. The caller sets "act". */
static inline texmem_status texmem__ku_reduce_hw(texmem__kernel_env *env, const texmem_op *o,
                                                 uint32_t depth, uint64_t plane, int32_t kind,
                                                 float count, texmem__kernel *k,
                                                 texmem_error *err) {
  static const char *const ins[] = {"src"}, *const outs[] = {"dst"};
  const uint32_t rn = texmem__ku_reduce_group(env, plane), local[3] = {rn, 1, 1};
  char defs[48];
  snprintf(defs, sizeof defs, "#define TM_RN %u\n", rn);
  texmem_status s = texmem__kernel_program_defines(env, "op_reduce_hw.comp", defs, ins, 1, outs,
                                                   1, NULL, 0, local, &k->program, err);
  if (s) return s;
  k->inputs[0] = o->inputs[0];
  k->n_inputs = 1;
  k->outputs[0] = o->outputs[0];
  k->n_outputs = 1;
  k->groups[0] = depth;
  k->groups[1] = k->groups[2] = 1;
  texmem__kernel_ivec4(k, "mode", kind, 0, 0, 0);
  texmem__kernel_float(k, "count", count);
  return TEXMEM_STATUS_OK;
}

/* Model tensor i, NULL for -1. */
static inline const texmem_tensor *texmem__ku_tensor(const texmem_model *m, int32_t i) {
  return i >= 0 ? texmem_model_tensor(m, (size_t)i) : NULL;
}

/* Whether t holds floats (fp32 or fp16 in the model). */
static inline bool texmem__ku_is_float(const texmem_tensor *t) {
  return t->type == TEXMEM_DTYPE_FLOAT32 || t->type == TEXMEM_DTYPE_FLOAT16;
}

/* Whether a and b have the same batch, height, width and channels. */
static inline bool texmem__ku_same_bhwc(const texmem_tensor *a, const texmem_tensor *b) {
  return a->b == b->b && a->h == b->h && a->w == b->w && a->c == b->c;
}

/* The operator making tensor t that k reads through (kernel.h: through),
 * folded into k (or with `any`, into any kernel); NULL when none. */
static inline const texmem_op *texmem__ku_through(const texmem_model *m, const texmem__kernel *k,
                                                  int32_t t, bool any) {
  const texmem_tensor *tt = texmem__ku_tensor(m, t);
  if (!tt || tt->producer < 0 || !k->through) return NULL;
  int32_t r = k->through[tt->producer];
  return (any ? r >= 0 : r == (int32_t)k->op) ? texmem_model_op(m, (size_t)tt->producer) : NULL;
}

/* Whether a and b have the same batch, channels and pixels, whatever
 * their height and width: a RESHAPE from one to the other keeps each
 * texel's lanes and each pixel's index (y * W + x). */
static inline bool texmem__ku_same_pixels(const texmem_tensor *a, const texmem_tensor *b) {
  return a->b == b->b && a->c == b->c && (uint64_t)a->h * a->w == (uint64_t)b->h * b->w;
}

/* Where a dispatch storing tensor t stores it reshaped to another height
 * and width (kernels_fusion.h: into; shaders/y_flat.glsl): t's producer
 * stores the RESHAPE's output instead, of the same batch, channels and
 * pixels. The reshape's output, or NULL when t is stored as it is (or
 * reshaped to its own BHWC shape: the same texels). */
static inline const texmem_tensor *texmem__ku_stored_flat(const texmem_model *m,
                                                          const texmem__kernel *k, int32_t t) {
  const texmem_tensor *x = texmem__ku_tensor(m, t);
  if (!x || x->producer < 0 || !k->into || k->into[x->producer] < 0) return NULL;
  const texmem_op *r = texmem_model_op(m, (size_t)k->into[x->producer]);
  const texmem_tensor *y = r->inputs[0] == t ? texmem__ku_tensor(m, r->outputs[0]) : NULL;
  return y && !texmem__ku_same_bhwc(x, y) && texmem__ku_same_pixels(x, y) ? y : NULL;
}

/* For a kernel of the default local size (8x8x1) storing tensor y, y or (flat,
 * texmem__ku_stored_flat) a RESHAPE of it: work groups over y's own texels
 * (W, H, batch x slices), and y's width and height as uniform yflat
 * (shaders/y_flat.glsl). */
static inline void texmem__ku_cover_y(texmem__kernel *k, const texmem_tensor *y, bool flat) {
  if (flat) texmem__kernel_ivec4(k, "yflat", (int32_t)y->w, (int32_t)y->h, 0, 0);
  k->groups[0] = (y->w + 7) / 8;
  k->groups[1] = (y->h + 7) / 8;
  k->groups[2] = y->b * (uint32_t)texmem__ku_slices(y->c);
}

/* The input of a RESHAPE read through (r), an image whose channels a
 * shader can count in int lanes: *chans its channels. */
static inline texmem_status texmem__ku_reshaped_input(const char *op, const texmem_model *m,
                                                      const texmem_op *r, int32_t *chans,
                                                      texmem_error *err) {
  const texmem_tensor *x = NULL;
  texmem_status s = texmem__ku_image(op, m, r->inputs[0], "reshaped input", &x, err);
  if (!s && (x->c < 1 || x->c > INT32_MAX / 4))
    s = texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: reshaped input \"%s\" has %u channels", op,
                     x->name, x->c);
  if (!s) *chans = (int32_t)x->c;
  return s;
}

/* Which BHWC component an axis of a rank-r shape as written is:
 * 0 = B, 1 = H, 2 = W, 3 = C (rank 4 BHWC, 3 BWC, 2 BC, 1 C). */
static inline int texmem__ku_axis_component(unsigned rank, unsigned axis) {
  static const int map[5][4] = {{3, 3, 3, 3}, {3, 3, 3, 3}, {0, 3, 3, 3}, {0, 2, 3, 3},
                                {0, 1, 2, 3}};
  return rank <= 4 && axis < 4 ? map[rank][axis] : 3;
}

#endif

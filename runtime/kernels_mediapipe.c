/* MediaPipe's custom operators, version 2 (options: FlexBuffers maps in
 * custom_options, parsed by model/mediapipe_options.c):
 * - LANDMARKS_TO_TRANSFORM_MATRIX (op_landmarks_to_matrix.comp):
 *   landmarks (B, N, 3) -> matrix (B, 4, 4); the subset's indices go to a
 *   small SSBO;
 * - TRANSFORM_TENSOR_BILINEAR (op_transform_tensor.comp): data (B,H,W,C)
 *   and matrix -> (B, output_height, output_width, C);
 * - TRANSFORM_LANDMARKS (op_transform_landmarks.comp): landmarks
 *   (B, N, 2|3) and matrix -> the same shape.
 * A matrix is (B or 1, 4, 4) (or (B or 1, 1, 4, 4)): row r at texel x = r.
 * MediaPipe runs batch 0 only; here every batch runs, with its own matrix
 * or the one of a batch-1 matrix.
 * The two landmark operators read their landmarks through a RESHAPE and a
 * MUL by a scalar folded into them (k->through; shaders/landmarks.glsl),
 * and TRANSFORM_LANDMARKS stores a RESHAPE of its output folded into it
 * (k->into), as kernels_fusion.h says. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "kernels_util.h"
#include "mediapipe_options.h"

/* Appends "#define NAME 1" to defines (cap bytes: each kernel's buffer
 * holds every define it can take). */
static void define(char *defines, size_t cap, const char *name) {
  size_t n = strlen(defines);
  if (n < cap) snprintf(defines + n, cap - n, "#define %s 1\n", name);
}

/* Which input of MUL p is its constant (the fold took one that is). */
static int constant_side(const texmem_model *model, const texmem_op *p) {
  const texmem_tensor *a = texmem__ku_tensor(model, p->inputs[0]);
  return a && (a->flags & TEXMEM_TENSOR_CONSTANT) ? 0 : 1;
}

/* What the landmarks are read from: the tensor bound as lm, and the
 * defines and uniforms of shaders/landmarks.glsl saying how. x: the
 * landmarks, (B, N, C). */
static texmem_status landmark_source(texmem__kernel_env *env, const texmem_model *model,
                                     const texmem_op *op, const texmem_tensor *x,
                                     texmem__kernel *k, int32_t *src, char *defines, size_t cap,
                                     texmem_error *err) {
  const char *name = texmem_op_type_name(op->type);
  int32_t t = op->inputs[0], cs = 0;
  const texmem_op *p = texmem__ku_through(model, k, t, false);
  texmem_status s = TEXMEM_STATUS_OK;
  if (p && p->type == TEXMEM_OP_MUL) { /* x = y * scale */
    int ci = constant_side(model, p);
    float v = 0.0f;
    memcpy(&v, texmem__ku_tensor(model, p->inputs[ci])->data, sizeof v);
    texmem__kernel_float(k, "lmscale", texmem__kernel_buffer_value(env, v));
    if ((s = texmem__ku_activation_as(name, p->options.activation, "lmact", k, err))) return s;
    define(defines, cap, "TM_LM_SCALE");
    if (texmem__kernel_env_half_images(env)) define(defines, cap, "TM_LM_ROUND");
    t = p->inputs[1 - ci];
    p = texmem__ku_through(model, k, t, false);
  }
  if (p && p->type == TEXMEM_OP_RESHAPE) { /* y = RESHAPE(z) */
    if ((s = texmem__ku_reshaped_input(name, model, p, &cs, err))) return s;
    define(defines, cap, "TM_LM_THRU");
    t = p->inputs[0];
  }
  texmem__kernel_ivec4(k, "lmgeo", (int32_t)x->w, (int32_t)x->c, cs, 0);
  *src = t;
  return TEXMEM_STATUS_OK;
}

/* The matrix input: (mb, 1, 4, 4) BHWC with mb = 1 or the batch. */
static texmem_status matrix_input(const char *name, const texmem_model *model,
                                  const texmem_op *op, uint32_t batch, const texmem_tensor **m,
                                  texmem_error *err) {
  if (op->n_inputs != 2 || op->n_outputs != 1)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %zu inputs, %zu outputs (needs 2, 1)",
                        name, op->n_inputs, op->n_outputs);
  texmem_status s = texmem__ku_image(name, model, op->inputs[1], "matrix", m, err);
  if (s) return s;
  const texmem_tensor *t = *m;
  if (t->h != 1 || t->w != 4 || t->c != 4 || (t->b != 1 && t->b != batch))
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: matrix \"%s\" is %ux%ux%ux%u (BHWC), needs (%u or 1)x1x4x4", name,
                        t->name, t->b, t->h, t->w, t->c, batch);
  return TEXMEM_STATUS_OK;
}

static texmem_status program_2(texmem__kernel_env *env, const char *file, const texmem_op *op,
                               texmem__kernel *k, texmem_error *err) {
  const char *const ins[] = {"src", "mat"}, *const outs[] = {"dst"};
  texmem_status s = texmem__kernel_program(env, file, ins, 2, outs, 1, NULL, 0, NULL, &k->program,
                                           err);
  if (s) return s;
  k->inputs[0] = op->inputs[0];
  k->inputs[1] = op->inputs[1];
  k->n_inputs = 2;
  k->outputs[0] = op->outputs[0];
  k->n_outputs = 1;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__kernel_landmarks_to_matrix(texmem__kernel_env *env,
                                                 const texmem_model *model, const texmem_op *op,
                                                 texmem__kernel *out, texmem_error *err) {
  const char *name = TEXMEM__MP_L2TM_NAME;
  const texmem_tensor *x = NULL, *y = NULL;
  texmem_status s = texmem__ku_in_out(name, model, op, &x, &y, err);
  if (s) return s;
  if (op->n_inputs != 1)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %zu inputs (needs 1)", name,
                        op->n_inputs);
  if (x->rank != 3 || x->c != 3)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: landmarks \"%s\" need shape (B, N, 3), have rank %u with %u channels",
                        name, x->name, x->rank, x->c);
  if ((s = texmem__ku_check_out(name, y, 1, 4, 4, err)) ||
      (s = texmem__ku_check_batch(name, x, y, err)))
    return s;
  texmem__mp_l2tm *p = malloc(sizeof *p);
  float *idx = NULL;
  if (!p) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "%s: no memory", name);
  if ((s = texmem__mp_parse_l2tm(op->options.custom_options, op->options.custom_options_size, p,
                                 err)))
    goto done;
  uint32_t n = x->w;
  bool in_range = (uint32_t)p->left < n && (uint32_t)p->right < n;
  for (size_t i = 0; i < p->n_subset; i++)
    in_range = in_range && (uint32_t)p->subset[i][0] < n && (uint32_t)p->subset[i][1] < n;
  if (!in_range) {
    s = texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                     "%s: a landmark index of the options is past the %u landmarks of \"%s\"",
                     name, n, x->name);
    goto done;
  }
  if (n > 2048 && texmem__kernel_env_half_weights(env)) { /* indices go in binary16 */
    s = texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                     "%s: %u landmarks: indices past 2048 need --precision fp32 (fp16 buffers)",
                     name, n);
    goto done;
  }
  size_t np = 2 * p->n_subset;
  if (!(idx = malloc(np * sizeof *idx))) {
    s = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "%s: no memory", name);
    goto done;
  }
  for (size_t i = 0; i < np; i++) idx[i] = (float)p->subset[i / 2][i % 2];
  if ((s = texmem__kernel_buffer(env, idx, np, &out->buffers[0], err))) goto done;
  out->n_buffers = 1;
  static const char *const ins[] = {"lm"}, *const outs[] = {"mat"}, *const bufs[] = {"idx"};
  const uint32_t local[3] = {4, 1, 16};
  char defines[96] = "";
  int32_t src = -1;
  if ((s = landmark_source(env, model, op, x, out, &src, defines, sizeof defines, err)) ||
      (s = texmem__kernel_program_defines(env, "op_landmarks_to_matrix.comp", defines, ins, 1,
                                          outs, 1, bufs, 1, local, &out->program, err)))
    goto done;
  out->inputs[0] = src;
  out->n_inputs = 1;
  out->outputs[0] = op->outputs[0];
  out->n_outputs = 1;
  texmem__kernel_ivec4(out, "prm", p->left, p->right, (int32_t)np, 0);
  texmem__kernel_vec4(out, "geo", p->scale_x, p->scale_y, (float)p->out_w, (float)p->out_h);
  texmem__kernel_float(out, "target", p->target_rotation);
done:
  free(idx);
  free(p);
  return s;
}

texmem_status texmem__kernel_transform_tensor(texmem__kernel_env *env, const texmem_model *model,
                                              const texmem_op *op, texmem__kernel *out,
                                              texmem_error *err) {
  const char *name = TEXMEM__MP_TTB_NAME;
  const texmem_tensor *x = NULL, *y = NULL, *m = NULL;
  texmem_status s = texmem__ku_in_out(name, model, op, &x, &y, err);
  if (s || (s = matrix_input(name, model, op, x->b, &m, err))) return s;
  if (x->rank != 4 || y->rank != 4)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: data and output need rank 4", name);
  texmem__mp_ttb p;
  if ((s = texmem__mp_parse_ttb(op->options.custom_options, op->options.custom_options_size, &p,
                                err)) ||
      (s = texmem__ku_check_out(name, y, (uint32_t)p.out_h, (uint32_t)p.out_w, x->c, err)) ||
      (s = texmem__ku_check_batch(name, x, y, err)) ||
      (s = program_2(env, "op_transform_tensor.comp", op, out, err)))
    return s;
  texmem__ku_batch(out, x->b);
  texmem__kernel_int(out, "mbatch", (int32_t)m->b);
  return TEXMEM_STATUS_OK;
}

/* The matrix TRANSFORM_LANDMARKS binds: op's, or, for a MUL by a constant
 * read through (k->through; kernels_fusion.h), the MUL's matrix, its
 * constant in buffer matc and its activation (defines: TM_MAT_SCALE, and
 * TM_MAT_ROUND where its store rounds). */
static texmem_status matrix_source(texmem__kernel_env *env, const texmem_model *model,
                                   const texmem_op *op, texmem__kernel *k, int32_t *mat,
                                   char *defines, size_t cap, texmem_error *err) {
  const char *name = TEXMEM__MP_TL_NAME;
  *mat = op->inputs[1];
  const texmem_op *p = texmem__ku_through(model, k, *mat, true);
  if (!p || p->type != TEXMEM_OP_MUL) return TEXMEM_STATUS_OK;
  int ci = constant_side(model, p);
  const texmem_tensor *c = texmem__ku_tensor(model, p->inputs[ci]);
  bool scalar = c->data_size == sizeof(float);
  const int32_t dims[4] = {1, 1, scalar ? 1 : 4, scalar ? 1 : 4};
  texmem_status s = texmem__ew_const_buffer(env, name, c, dims, &k->buffers[k->n_buffers], err);
  if (s || (s = texmem__ku_activation_as(name, p->options.activation, "matact", k, err))) return s;
  k->n_buffers++;
  texmem__kernel_int(k, "matcrow", scalar ? 0 : 1);
  define(defines, cap, "TM_MAT_SCALE");
  if (texmem__kernel_env_half_images(env)) define(defines, cap, "TM_MAT_ROUND");
  *mat = p->inputs[1 - ci];
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__kernel_transform_landmarks(texmem__kernel_env *env,
                                                 const texmem_model *model, const texmem_op *op,
                                                 texmem__kernel *out, texmem_error *err) {
  const char *name = TEXMEM__MP_TL_NAME;
  const texmem_tensor *x = NULL, *y = NULL, *m = NULL;
  texmem_status s = texmem__ku_in_out(name, model, op, &x, &y, err);
  if (s || (s = matrix_input(name, model, op, x->b, &m, err))) return s;
  if (x->rank != 3 || (x->c != 2 && x->c != 3))
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: landmarks \"%s\" need shape (B, N, 2 or 3), have rank %u with %u "
                        "channels",
                        name, x->name, x->rank, x->c);
  if ((s = texmem__ku_check_out(name, y, 1, x->w, x->c, err)) ||
      (s = texmem__ku_check_batch(name, x, y, err)))
    return s;
  char defines[192] = "";
  int32_t src = -1, mat = -1;
  if ((s = landmark_source(env, model, op, x, out, &src, defines, sizeof defines, err)) ||
      (s = matrix_source(env, model, op, out, &mat, defines, sizeof defines, err)))
    return s;
  /* A RESHAPE of another shape stored instead of the output: the flat
   * variant (a RESHAPE of the same BHWC shape is the same texels). */
  const texmem_tensor *flat = NULL;
  if (out->into && out->into[out->op] >= 0) {
    const texmem_op *r = texmem_model_op(model, (size_t)out->into[out->op]);
    if ((s = texmem__ku_image(name, model, r->outputs[0], "reshaped output", &flat, err)))
      return s;
    if (texmem__ku_same_bhwc(flat, y)) flat = NULL;
    else if (flat->c > INT32_MAX / 4)
      return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                          "%s: reshaped output \"%s\" has %u channels", name, flat->name, flat->c);
  }
  if (flat) define(defines, sizeof defines, "TM_TL_FLAT");
  const char *const ins[] = {"lm", "mat"}, *const outs[] = {"dst"}, *const bufs[] = {"matc"};
  if ((s = texmem__kernel_program_defines(env, "op_transform_landmarks.comp", defines, ins, 2,
                                          outs, 1, bufs, out->n_buffers, NULL, &out->program,
                                          err)))
    return s;
  out->inputs[0] = src;
  out->inputs[1] = mat;
  out->n_inputs = 2;
  out->outputs[0] = op->outputs[0];
  out->n_outputs = 1;
  texmem__kernel_int(out, "mbatch", (int32_t)m->b);
  if (flat) texmem__kernel_ivec4(out, "tlflat", (int32_t)flat->c, 0, 0, 0);
  return TEXMEM_STATUS_OK;
}

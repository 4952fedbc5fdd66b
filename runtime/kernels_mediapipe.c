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
 * or the one of a batch-1 matrix. */
#include "kernels_util.h"
#include "mediapipe_options.h"

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
                               const char *in0, texmem__kernel *k, texmem_error *err) {
  const char *const ins[] = {in0, "mat"}, *const outs[] = {"dst"};
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
  if ((s = texmem__kernel_program(env, "op_landmarks_to_matrix.comp", ins, 1, outs, 1, bufs, 1,
                                  local, &out->program, err)))
    goto done;
  out->inputs[0] = op->inputs[0];
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
      (s = program_2(env, "op_transform_tensor.comp", op, "src", out, err)))
    return s;
  texmem__ku_batch(out, x->b);
  texmem__kernel_int(out, "mbatch", (int32_t)m->b);
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
      (s = texmem__ku_check_batch(name, x, y, err)) ||
      (s = program_2(env, "op_transform_landmarks.comp", op, "src", out, err)))
    return s;
  texmem__kernel_int(out, "mbatch", (int32_t)m->b);
  return TEXMEM_STATUS_OK;
}

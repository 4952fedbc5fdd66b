/* Folds of operators that are not convolutions (see kernels_fusion.h:
 * through, into): RESHAPEs read through by the CONCATENATION reading them
 * or stored by the operator making their input, and the copies and scales
 * around MediaPipe's landmark operators. Each leaves an operator unrun and
 * its output unplanned; the reader or writer does the copy or the scale
 * itself, as the operator's own shader would have, so values stay bit
 * for bit. Run by texmem__fuse_find after the convolutions' fusion. */
#include "kernels_fusion.h"

static uint64_t elements(const texmem_tensor *t) {
  return (uint64_t)t->b * t->h * t->w * t->c;
}

/* RESHAPEs folded into the CONCATENATION reading them: a float reshape of
 * a non-constant tensor with as many elements, its output an intermediate
 * one the concatenation alone reads, once (see kernels_fusion.h). */
static void fold_reshapes(const texmem_model *m, texmem__fusion *f, const int32_t *reader) {
  for (size_t r = 0; r < f->n_ops; r++) {
    const texmem_op *op = texmem__fuse_unclaimed(m, f, r, TEXMEM_OP_RESHAPE, 1);
    if (!op) continue;
    int32_t t = op->outputs[0];
    const texmem_tensor *x = texmem__ku_tensor(m, op->inputs[0]), *y = texmem__ku_tensor(m, t);
    if (!x || !y || !texmem__ku_is_float(x) || !texmem__ku_is_float(y) ||
        (x->flags & TEXMEM_TENSOR_CONSTANT) || !(y->flags & TEXMEM_TENSOR_INTERMEDIATE) ||
        reader[t] < 0 || elements(x) != elements(y))
      continue;
    int32_t k = reader[t];
    if (texmem_model_op(m, (size_t)k)->type != TEXMEM_OP_CONCATENATION || f->head[k] != -1)
      continue;
    f->head[r] = f->through[r] = k;
    f->task[r] = f->task[k];
    f->n_rs++;
  }
}

/* Whether tensor x, made by operator p, reshaped to y, keeps its batch,
 * channels and pixels (a detector's head flattened to anchors), and p's
 * dispatch stores through such a reshape: a convolution's or depthwise
 * convolution's (op p or an operator fused into it; not a squeeze's), a
 * DEPTH_TO_SPACE's or a CONCATENATION's, each texel computed at x's (x, y)
 * stored at the same pixel index of y (shaders/y_flat.glsl). */
static bool spatial(const texmem_model *m, const texmem__fusion *f, int32_t p,
                    const texmem_tensor *x, const texmem_tensor *y) {
  if (!texmem__ku_same_pixels(x, y)) return false;
  int32_t d = f->head[p] >= 0 ? f->head[p] : p;
  texmem_op_type t = texmem_model_op(m, (size_t)d)->type;
  if (t == TEXMEM_OP_DEPTH_TO_SPACE || t == TEXMEM_OP_CONCATENATION)
    return d == p && f->head[p] < 0;
  return (t == TEXMEM_OP_CONV_2D || t == TEXMEM_OP_DEPTHWISE_CONV_2D) && f->insq[d] < 0;
}

/* RESHAPEs stored by the operator making their input (see
 * kernels_fusion.h: into): to their input's BHWC shape, to another
 * height and width where the dispatch can (spatial above), or to any
 * shape of as many elements after a TRANSFORM_LANDMARKS (landmarks
 * flattened to a graph output); the input an intermediate float tensor the
 * reshape alone reads, made by an operator that a dispatch runs (not a
 * reshape stored into another); the output float, not a graph input. */
static void fold_stored_reshapes(const texmem_model *m, texmem__fusion *f,
                                 const int32_t *reader) {
  for (size_t r = 0; r < f->n_ops; r++) {
    const texmem_op *op = texmem__fuse_unclaimed(m, f, r, TEXMEM_OP_RESHAPE, 1);
    if (!op) continue;
    int32_t t = op->inputs[0];
    const texmem_tensor *x = texmem__ku_tensor(m, t), *y = texmem__ku_tensor(m, op->outputs[0]);
    if (!x || !y || !texmem__ku_is_float(x) || !texmem__ku_is_float(y) || x->producer < 0 ||
        (x->flags & (TEXMEM_TENSOR_INPUT | TEXMEM_TENSOR_OUTPUT | TEXMEM_TENSOR_CONSTANT)) ||
        (y->flags & (TEXMEM_TENSOR_INPUT | TEXMEM_TENSOR_CONSTANT)) || reader[t] != (int32_t)r)
      continue;
    int32_t p = x->producer;
    texmem_op_type pt = texmem_model_op(m, (size_t)p)->type;
    bool flat = (pt == TEXMEM_OP_TRANSFORM_LANDMARKS && elements(x) == elements(y)) ||
                spatial(m, f, p, x, y);
    if ((!texmem__ku_same_bhwc(x, y) && !flat) || f->into[p] >= 0 ||
        (pt == TEXMEM_OP_RESHAPE && f->head[p] >= 0))
      continue;
    f->into[p] = (int32_t)r;
    f->head[r] = (int32_t)r;
    f->task[r] = f->task[p];
    f->n_rs++;
  }
}

static bool landmark_op(const texmem_op *op) {
  return op->type == TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX ||
         op->type == TEXMEM_OP_TRANSFORM_LANDMARKS;
}

/* MUL op's constant input (the second where both or neither are). */
static const texmem_tensor *mul_constant(const texmem_model *m, const texmem_op *op,
                                         const texmem_tensor **other) {
  const texmem_tensor *a = texmem__ku_tensor(m, op->inputs[0]);
  const texmem_tensor *c = texmem__ku_tensor(m, op->inputs[1]);
  bool first = a && (a->flags & TEXMEM_TENSOR_CONSTANT);
  *other = first ? c : a;
  return first ? a : c;
}

/* The MUL of a float non-constant tensor by a float32 scalar constant
 * making intermediate tensor t, which one operator alone reads; -1
 * otherwise. */
static int32_t scalar_mul_making(const texmem_model *m, const texmem__fusion *f, int32_t t,
                                 const int32_t *reader) {
  int32_t q = texmem__fuse_sole_producer(m, t, reader, TEXMEM_OP_MUL);
  const texmem_op *op = q >= 0 ? texmem__fuse_unclaimed(m, f, (size_t)q, TEXMEM_OP_MUL, 2) : NULL;
  if (!op || op->n_inputs != 2) return -1;
  const texmem_tensor *a = NULL, *c = mul_constant(m, op, &a);
  return a && c && texmem__ku_is_float(a) && !(a->flags & TEXMEM_TENSOR_CONSTANT) &&
                 texmem__ku_same_bhwc(a, texmem__ku_tensor(m, t)) &&
                 (c->flags & TEXMEM_TENSOR_CONSTANT) && c->type == TEXMEM_DTYPE_FLOAT32 &&
                 c->data && c->data_size == sizeof(float)
             ? q
             : -1;
}

/* The RESHAPE of a float non-constant tensor making intermediate tensor
 * t, which one operator alone reads; -1 otherwise. */
static int32_t reshape_making(const texmem_model *m, const texmem__fusion *f, int32_t t,
                              const int32_t *reader) {
  int32_t q = texmem__fuse_sole_producer(m, t, reader, TEXMEM_OP_RESHAPE);
  const texmem_op *op =
      q >= 0 ? texmem__fuse_unclaimed(m, f, (size_t)q, TEXMEM_OP_RESHAPE, 1) : NULL;
  const texmem_tensor *x = op ? texmem__ku_tensor(m, op->inputs[0]) : NULL;
  const texmem_tensor *y = texmem__ku_tensor(m, t);
  return x && y && texmem__ku_is_float(x) && texmem__ku_is_float(y) &&
                 !(x->flags & TEXMEM_TENSOR_CONSTANT) && elements(x) == elements(y)
             ? q
             : -1;
}

/* Operator q, read through by operator k: not run, at k's task. */
static void read_through_by(texmem__fusion *f, int32_t q, size_t k) {
  f->head[q] = f->through[q] = (int32_t)k;
  f->task[q] = f->task[k];
}

/* Landmark operators (LANDMARKS_TO_TRANSFORM_MATRIX, TRANSFORM_LANDMARKS)
 * reading their landmarks through a MUL by a scalar constant, a RESHAPE,
 * or a RESHAPE then such a MUL (a landmark model's head output, flattened,
 * reshaped to landmarks and scaled); each made tensor read by the next
 * alone (see kernels_fusion.h). The MUL counts as fused. */
static void fold_landmark_reads(const texmem_model *m, texmem__fusion *f, const int32_t *reader) {
  for (size_t k = 0; k < f->n_ops; k++) {
    const texmem_op *op = texmem_model_op(m, k);
    if (!landmark_op(op) || op->n_inputs < 1 || op->n_outputs != 1 || f->head[k] != -1) continue;
    int32_t t = op->inputs[0], mul = scalar_mul_making(m, f, t, reader);
    if (mul >= 0) {
      const texmem_op *mo = texmem_model_op(m, (size_t)mul);
      const texmem_tensor *a = texmem__ku_tensor(m, mo->inputs[0]);
      t = mo->inputs[a->flags & TEXMEM_TENSOR_CONSTANT ? 1 : 0];
      read_through_by(f, mul, k);
      f->n_fused++;
    }
    int32_t rs = reshape_making(m, f, t, reader);
    if (rs >= 0) {
      read_through_by(f, rs, k);
      f->n_rs++;
    }
  }
}

/* MULs of a 4x4 matrix by a float32 constant of 16 values or one, every
 * reader of their output (not a graph output) a TRANSFORM_LANDMARKS
 * reading it as its matrix (face_landmark_with_attention's eye and lip
 * crops scaled to their own boxes), read through by each of them (see
 * kernels_fusion.h): through and task of the MUL are the last
 * reader's. Counted as fused. */
static void fold_matrix_scales(const texmem_model *m, texmem__fusion *f) {
  for (size_t q = 0; q < f->n_ops; q++) {
    const texmem_op *op = texmem__fuse_unclaimed(m, f, q, TEXMEM_OP_MUL, 2);
    if (!op || op->n_inputs != 2) continue;
    int32_t t = op->outputs[0], last = -1;
    const texmem_tensor *y = texmem__ku_tensor(m, t), *a = NULL, *c = mul_constant(m, op, &a);
    if (!y || !a || !c || !texmem__ku_is_float(a) || (a->flags & TEXMEM_TENSOR_CONSTANT) ||
        !(y->flags & TEXMEM_TENSOR_INTERMEDIATE) || (y->flags & TEXMEM_TENSOR_OUTPUT) ||
        !texmem__ku_same_bhwc(a, y) || y->h != 1 || y->w != 4 || y->c != 4 ||
        !(c->flags & TEXMEM_TENSOR_CONSTANT) || c->type != TEXMEM_DTYPE_FLOAT32 || !c->data ||
        (c->data_size != sizeof(float) &&
         (c->data_size != 16 * sizeof(float) || c->b != 1 || c->h != 1 || c->w != 4 || c->c != 4)))
      continue;
    bool all = true;
    for (size_t k = q + 1; k < f->n_ops && all; k++) {
      const texmem_op *r = texmem_model_op(m, k);
      for (size_t j = 0; j < r->n_inputs; j++) {
        if (r->inputs[j] != t) continue;
        all = all && r->type == TEXMEM_OP_TRANSFORM_LANDMARKS && j == 1 && f->head[k] == -1 &&
              r->inputs[0] != t;
        last = (int32_t)k;
      }
    }
    if (!all || last < 0) continue;
    read_through_by(f, (int32_t)q, (size_t)last);
    f->n_fused++;
  }
}

void texmem__fold_reshapes(const texmem_model *m, texmem__fusion *f, const int32_t *reader) {
  fold_reshapes(m, f, reader);
  fold_stored_reshapes(m, f, reader);
  fold_landmark_reads(m, f, reader);
  fold_matrix_scales(m, f);
}

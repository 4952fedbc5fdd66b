/* The folds into a convolution's input (kernels_fusion.h: inpad, ind2s,
 * indw, inmul, inadd, inrsz, inaff): a PAD of zero rows and columns, a
 * DEPTH_TO_SPACE, a depthwise convolution, a per-channel MUL (and an ADD
 * of it), an upsampling resize or a per-texel depthwise convolution making
 * what the convolution reads, read by it alone. Each is found after the
 * element-wise fusion (kernels_conv_fuse.c), since a dispatch binds a
 * tensor once and must know its fused operand first; the squeezes, between
 * the depthwise and the per-texel folds, are kernels_fold_squeezes.c. */
#include "kernels_fusion.h"

/* The PAD making operator k's input when k may read through it: k a
 * depthwise or a k x k (not 1x1) CONV_2D, the PAD's zeros before and after
 * rows and columns only, its input a rank-4 tensor that k does not also
 * bind as its fused operand (src_taken); -1 otherwise. */
static int32_t input_pad(const texmem_model *m, size_t k, int32_t src_taken) {
  const texmem_op *c = texmem_model_op(m, k);
  const texmem_tensor *w = c->n_inputs > 1 ? texmem__ku_tensor(m, c->inputs[1]) : NULL;
  if ((c->type != TEXMEM_OP_CONV_2D && c->type != TEXMEM_OP_DEPTHWISE_CONV_2D) || !w ||
      w->rank != 4 || (c->type == TEXMEM_OP_CONV_2D && w->shape[1] * w->shape[2] == 1))
    return -1;
  int32_t t = c->inputs[0], before[4], after[4];
  int32_t q = t >= 0 ? texmem__fuse_pad_of(m, t, before, after) : -1;
  if (q < 0) return -1;
  const texmem_tensor *x = texmem__ku_tensor(m, texmem_model_op(m, (size_t)q)->inputs[0]);
  const texmem_tensor *tt = texmem__ku_tensor(m, t);
  if (x->rank != 4 || texmem_model_op(m, (size_t)q)->inputs[0] == src_taken || before[0] ||
      after[0] || before[3] || after[3] || x->b != tt->b || x->c != tt->c)
    return -1;
  return q;
}

/* The PAD making convolution k's input when it folds into the
 * convolution's read (input_pad): every operator reading its output is
 * such a convolution, reading it once, as its input, through the same
 * PAD, and no other's fused operator (TFLite's explicit padding before a
 * stride-2 convolution; pose_detection's heads read one PAD twice); -1
 * otherwise. */
static int32_t foldable_input_pad(const texmem_model *m, const texmem__fusion *f, size_t k,
                                  const int32_t *reader) {
  int32_t q = input_pad(m, k, texmem__fuse_operand_read(m, f, k)),
          t = texmem_model_op(m, k)->inputs[0];
  if (q < 0 || reader[t] == (int32_t)k) return q;
  for (size_t j = (size_t)q + 1; j < f->n_ops; j++) {
    const texmem_op *o = texmem_model_op(m, j);
    size_t uses = 0;
    for (size_t i = 0; i < o->n_inputs; i++) uses += o->inputs[i] == t;
    if (uses && (uses != 1 || o->inputs[0] != t || (f->head[j] != -1 && f->head[j] != (int32_t)j) ||
                 input_pad(m, j, texmem__fuse_operand_read(m, f, j)) != q))
      return -1;
  }
  return q;
}

/* Operator q (an input PAD or DEPTH_TO_SPACE), read through by
 * convolution k: it joins k's dispatch when k is its first reader, and is
 * read until its last one. */
static void read_through(texmem__fusion *f, size_t k, int32_t q) {
  f->head[k] = (int32_t)k;
  if (f->head[q] == -1)
    texmem__fuse_join(f, k, q, f->task[k]);
  else
    texmem__fuse_read_until(f, q, f->task[k]);
}

/* Input PADs folded into the convolutions that read them. */
static void fold_input_pads(const texmem_model *m, texmem__fusion *f, const int32_t *reader) {
  for (size_t k = 0; k < f->n_ops; k++) {
    const texmem_op *op = texmem_model_op(m, k);
    if (op->type != TEXMEM_OP_CONV_2D && op->type != TEXMEM_OP_DEPTHWISE_CONV_2D) continue;
    int32_t q = foldable_input_pad(m, f, k, reader);
    if (q < 0 || (f->head[q] != -1 && f->inpad[f->head[q]] != q)) continue;
    f->inpad[k] = q;
    read_through(f, k, q);
  }
}

/* The DEPTH_TO_SPACE making the tensor convolution k reads as x (its
 * folded input PAD's input, or its own input) when that tensor is an
 * intermediate one of the same batch; -1 otherwise. */
static int32_t depth_to_space_of(const texmem_model *m, const texmem__fusion *f, size_t k) {
  const texmem_op *c = texmem_model_op(m, k);
  int32_t t = f->inpad[k] >= 0 ? texmem_model_op(m, (size_t)f->inpad[k])->inputs[0] : c->inputs[0];
  const texmem_tensor *tt = texmem__ku_tensor(m, t);
  if (!tt || tt->producer < 0 || !(tt->flags & TEXMEM_TENSOR_INTERMEDIATE) || tt->rank != 4)
    return -1;
  const texmem_op *d = texmem_model_op(m, (size_t)tt->producer);
  const texmem_tensor *x = d->n_inputs == 1 ? texmem__ku_tensor(m, d->inputs[0]) : NULL;
  int32_t bs = d->options.block_size;
  if (d->type != TEXMEM_OP_DEPTH_TO_SPACE || d->n_outputs != 1 || !x || !texmem__ku_is_float(x) ||
      !texmem__ku_is_float(tt) || x->rank != 4 || (x->flags & TEXMEM_TENSOR_CONSTANT) || bs < 1 ||
      x->b != tt->b || x->c != tt->c * (uint32_t)(bs * bs) || tt->h != x->h * (uint32_t)bs ||
      tt->w != x->w * (uint32_t)bs)
    return -1;
  return tt->producer;
}

/* Whether DEPTH_TO_SPACE q, making what convolution k reads as x, folds
 * into every convolution reading it: k alone reads its output, or a PAD
 * does that every one of its readers folds (fold_input_pads); none of them
 * binds q's input as its fused operand (a dispatch binds a tensor once). */
static bool depth_to_space_folds(const texmem_model *m, const texmem__fusion *f, size_t k,
                                 int32_t q, const int32_t *reader) {
  const texmem_op *d = texmem_model_op(m, (size_t)q);
  int32_t t = d->outputs[0], src = d->inputs[0], p = f->inpad[k];
  if (reader[t] != (p >= 0 ? p : (int32_t)k)) return false;
  for (size_t j = 0; j < f->n_ops; j++)
    if ((j == k || (p >= 0 && f->inpad[j] == p)) &&
        ((f->head[j] != -1 && f->head[j] != (int32_t)j) ||
         texmem__fuse_operand_read(m, f, j) == src))
      return false;
  return true;
}

/* DEPTH_TO_SPACEs read through by the convolutions reading their output
 * (through a folded PAD or not): not run, their input read until the last
 * of them (pose_detection's heads). Counted with the fused operators. */
static void fold_depth_to_space(const texmem_model *m, texmem__fusion *f, const int32_t *reader) {
  for (size_t k = 0; k < f->n_ops; k++) {
    const texmem_op *op = texmem_model_op(m, k);
    if (op->type != TEXMEM_OP_CONV_2D && op->type != TEXMEM_OP_DEPTHWISE_CONV_2D) continue;
    int32_t q = depth_to_space_of(m, f, k);
    if (q < 0 || (f->head[q] != -1 && f->ind2s[f->head[q]] != q) ||
        (f->head[q] == -1 && !depth_to_space_folds(m, f, k, q, reader)))
      continue;
    f->ind2s[k] = q;
    read_through(f, k, q);
  }
}

/* The input of operator k when the tiled 1x1 kernel may compute it while
 * staging (a folded depthwise convolution or MUL): k a 1x1 stride-1
 * CONV_2D run by itself or with its own fused operators, no input PAD or
 * other fold taken, its input a rank-4 tensor it alone reads; -1
 * otherwise. */
static int32_t staged_input(const texmem_model *m, const texmem__fusion *f, size_t k,
                            const int32_t *reader) {
  const texmem_op *c = texmem_model_op(m, k);
  const texmem_tensor *w = c->n_inputs > 1 ? texmem__ku_tensor(m, c->inputs[1]) : NULL;
  if (c->type != TEXMEM_OP_CONV_2D || !w || w->rank != 4 || w->shape[1] != 1 || w->shape[2] != 1 ||
      c->options.stride_w != 1 || c->options.stride_h != 1 ||
      (f->head[k] != -1 && f->head[k] != (int32_t)k) || texmem__fuse_input_folded(f, k))
    return -1;
  int32_t t = c->inputs[0];
  const texmem_tensor *tt = texmem__ku_tensor(m, t);
  return tt && tt->rank == 4 && reader[t] == (int32_t)k ? t : -1;
}

/* The DEPTHWISE_CONV_2D making 1x1 convolution k's input when it folds
 * into k's tiled kernel (kernels_fusion.h): k a 1x1 stride-1 CONV_2D
 * run by itself or with its own fused operators; the depthwise one of
 * multiplier 1, an activation the kernels apply, nothing element-wise
 * fused into it (an input PAD folded is: k then reads the PAD's input,
 * the padding added), its output read by k alone, its input a
 * rank-4 float tensor of the same batch (which k's fused operator may read
 * too: BlazeFace's shortcut; the dispatch binds it once); -1 otherwise. */
static int32_t foldable_depthwise(const texmem_model *m, const texmem__fusion *f, size_t k,
                                  const int32_t *reader) {
  int32_t t = staged_input(m, f, k, reader);
  if (t < 0) return -1;
  const texmem_tensor *tt = texmem__ku_tensor(m, t);
  int32_t q = texmem__fuse_sole_producer(m, t, reader, TEXMEM_OP_DEPTHWISE_CONV_2D);
  if (q < 0 || (f->head[q] != -1 && (f->head[q] != q || f->first[q] >= 0))) return -1;
  const texmem_op *d = texmem_model_op(m, (size_t)q);
  const texmem_tensor *x = texmem__ku_tensor(m, d->inputs[0]);
  const texmem_tensor *dwt = d->n_inputs > 1 ? texmem__ku_tensor(m, d->inputs[1]) : NULL;
  if (!x || !texmem__ku_is_float(x) || x->rank != 4 || (x->flags & TEXMEM_TENSOR_CONSTANT) ||
      x->b != tt->b || x->c != tt->c || !dwt || dwt->rank != 4 || dwt->shape[0] != 1 ||
      (uint32_t)dwt->shape[3] != x->c || !texmem__fuse_activation_ok(d->options.activation))
    return -1;
  return q;
}

/* The MUL making tensor t, read by one operator alone, when a tiled 1x1
 * kernel may stage it (kernels_fusion.h: inmul): in no dispatch yet, an
 * activation the kernels apply, of a rank-4 float tensor x of t's shape
 * by a non-constant float one of x's batch and channels and one pixel
 * (*scale); -1 otherwise. */
static int32_t scale_of(const texmem_model *m, const texmem__fusion *f, int32_t t,
                        const int32_t *reader, int32_t *scale) {
  const texmem_tensor *tt = texmem__ku_tensor(m, t);
  int32_t q = texmem__fuse_sole_producer(m, t, reader, TEXMEM_OP_MUL);
  if (q < 0 || f->head[q] != -1) return -1;
  const texmem_op *mul = texmem_model_op(m, (size_t)q);
  if (mul->n_inputs != 2 || !texmem__fuse_activation_ok(mul->options.activation)) return -1;
  const texmem_tensor *a = texmem__ku_tensor(m, mul->inputs[0]),
                      *b = texmem__ku_tensor(m, mul->inputs[1]);
  if (!a || !b || !texmem__ku_is_float(a) || !texmem__ku_is_float(b) || a->rank != 4 ||
      b->rank != 4 || ((a->flags | b->flags) & TEXMEM_TENSOR_CONSTANT))
    return -1;
  *scale = mul->inputs[1];
  if (!texmem__ku_same_bhwc(a, tt)) {
    const texmem_tensor *sw = a;
    a = b;
    b = sw;
    *scale = mul->inputs[0];
  }
  if (!texmem__ku_same_bhwc(a, tt) || b->b != a->b || b->h != 1 || b->w != 1 || b->c != a->c ||
      mul->inputs[0] == mul->inputs[1])
    return -1;
  return q;
}

/* The MUL making 1x1 convolution k's input when it folds into k's tiled
 * kernel (kernels_fusion.h: inmul): k as for a depthwise fold, the MUL
 * as scale_of finds it, its scale not what k's fused operator reads (one
 * dispatch binds a tensor once; x it reads through x's binding); -1
 * otherwise. */
static int32_t foldable_mul(const texmem_model *m, const texmem__fusion *f, size_t k,
                            const int32_t *reader) {
  int32_t t = staged_input(m, f, k, reader), si = -1;
  int32_t q = t >= 0 ? scale_of(m, f, t, reader, &si) : -1;
  return q >= 0 && texmem__fuse_operand_read(m, f, k) != si ? q : -1;
}

/* The ADD making 1x1 convolution k's input from a per-channel MUL's output
 * and a tensor b when both fold into k's tiled kernel (kernels_fusion.h:
 * inadd; the selfie decoder's scaled skip connection plus the upsampled
 * path): k as for a depthwise fold; the ADD (an activation the kernels
 * apply, nothing fused into it) read by k alone, its output float; the
 * MUL as foldable_mul finds it for the ADD, read by the ADD alone; b a
 * float rank-4 non-constant tensor of the ADD's output shape, neither of
 * the MUL's operands nor what k's fused operator reads, which reads no
 * scale either (one dispatch binds a tensor once). *mul: the MUL. -1
 * otherwise. */
static int32_t foldable_scale_add(const texmem_model *m, const texmem__fusion *f, size_t k,
                                  const int32_t *reader, int32_t *mul) {
  int32_t t = staged_input(m, f, k, reader);
  int32_t q = t >= 0 ? texmem__fuse_sole_producer(m, t, reader, TEXMEM_OP_ADD) : -1;
  if (q < 0 || f->head[q] != -1) return -1;
  const texmem_op *add = texmem_model_op(m, (size_t)q);
  if (add->n_inputs != 2 || !texmem__fuse_activation_ok(add->options.activation) ||
      !texmem__ku_is_float(texmem__ku_tensor(m, t)))
    return -1;
  for (int side = 0; side < 2; side++) {
    int32_t u = add->inputs[side], bi = add->inputs[1 - side];
    int32_t si, q2 = u >= 0 && reader[u] == q ? scale_of(m, f, u, reader, &si) : -1;
    const texmem_tensor *b = texmem__ku_tensor(m, bi);
    if (q2 < 0 || !b || !texmem__ku_is_float(b) || b->rank != 4 ||
        (b->flags & TEXMEM_TENSOR_CONSTANT) || !texmem__ku_same_bhwc(b, texmem__ku_tensor(m, t)))
      continue;
    const texmem_op *mo = texmem_model_op(m, (size_t)q2);
    int32_t e = texmem__fuse_operand_read(m, f, k); /* x it may read, through x's binding */
    if (bi == mo->inputs[0] || bi == mo->inputs[1] || bi == e || e == si) continue;
    *mul = q2;
    return q;
  }
  return -1;
}

/* The RESIZE_BILINEAR making 1x1 convolution k's input when it folds into
 * k's tiled kernel (kernels_fusion.h: inrsz): k as for a depthwise
 * fold, the resize as foldable_resize, its input not what k's fused
 * operator reads (one dispatch binds a tensor once); -1 otherwise. */
static int32_t foldable_input_resize(const texmem_model *m, const texmem__fusion *f, size_t k,
                                     const int32_t *reader) {
  int32_t t = staged_input(m, f, k, reader);
  int32_t q = t >= 0 ? texmem__fuse_foldable_resize(m, t, reader) : -1;
  if (q < 0 || f->head[q] != -1 ||
      texmem_model_op(m, (size_t)q)->inputs[0] == texmem__fuse_operand_read(m, f, k))
    return -1;
  return q;
}

/* Depthwise convolutions, per-channel MULs and resizes folded into the 1x1
 * convolutions that read them. */
static void fold_depthwise(const texmem_model *m, texmem__fusion *f, const int32_t *reader,
                           bool resize) {
  for (size_t k = 0; k < f->n_ops; k++) {
    int32_t mul, q = foldable_depthwise(m, f, k, reader);
    if (q >= 0) {
      f->indw[k] = q;
      f->n_dw++;
      texmem__fuse_read_until(f, f->inpad[q],
                              f->task[k]); /* read there now, until the last reader */
      texmem__fuse_read_until(f, f->ind2s[q], f->task[k]);
    } else if ((q = foldable_mul(m, f, k, reader)) >= 0) {
      f->inmul[k] = q;
      f->n_mul++;
    } else if ((q = foldable_scale_add(m, f, k, reader, &mul)) >= 0) {
      f->inadd[k] = q;
      texmem__fuse_join(f, k, q, f->task[k]);
      f->inmul[k] = q = mul;
      f->n_mul++;
    } else if (resize && (q = foldable_input_resize(m, f, k, reader)) >= 0) {
      f->inrsz[k] = q;
      f->n_rsz++;
    } else {
      continue;
    }
    f->head[k] = (int32_t)k;
    f->head[q] = (int32_t)k;
    f->task[q] = f->task[k];
  }
}

/* The per-texel DEPTHWISE_CONV_2D making convolution k's input when k
 * reads through it (kernels_fusion.h: inaff): k a CONV_2D or
 * DEPTHWISE_CONV_2D run by itself or with its own fused operators, no other
 * fold of its input taken, its input read by k alone; the depthwise one in
 * no dispatch but its own, of a float rank-4 non-constant tensor of its
 * output's shape that k's fused operator does not read (one dispatch binds
 * a tensor once); -1 otherwise. */
static int32_t per_texel_input(const texmem_model *m, const texmem__fusion *f, size_t k,
                               const int32_t *reader) {
  const texmem_op *c = texmem_model_op(m, k);
  if ((c->type != TEXMEM_OP_CONV_2D && c->type != TEXMEM_OP_DEPTHWISE_CONV_2D) ||
      c->n_outputs != 1 || (f->head[k] != -1 && f->head[k] != (int32_t)k) ||
      texmem__fuse_input_folded(f, k))
    return -1;
  int32_t t = c->inputs[0];
  int32_t q = t >= 0 && reader[t] == (int32_t)k
                  ? texmem__fuse_sole_producer(m, t, reader, TEXMEM_OP_DEPTHWISE_CONV_2D)
                  : -1;
  if (q < 0 || f->head[q] != -1) return -1;
  const texmem_op *d = texmem_model_op(m, (size_t)q);
  const texmem_tensor *x = texmem__ku_tensor(m, d->inputs[0]), *y = texmem__ku_tensor(m, t);
  if (!x || !texmem__ku_is_float(x) || !texmem__ku_is_float(y) || x->rank != 4 || y->rank != 4 ||
      (x->flags & TEXMEM_TENSOR_CONSTANT) || !texmem__ku_same_bhwc(x, y) ||
      !texmem__fuse_per_texel_depthwise(m, d, d->inputs[0]) ||
      texmem__fuse_operand_read(m, f, k) == d->inputs[0])
    return -1;
  return q;
}

/* Per-texel depthwise convolutions read through by the convolution
 * reading their output (hand_recrop's, after a standalone PRELU or a
 * dispatch that already runs two operators): not run. Counted with the
 * fused operators, as input PADs. */
static void fold_per_texel_inputs(const texmem_model *m, texmem__fusion *f, const int32_t *reader) {
  for (size_t k = 0; k < f->n_ops; k++) {
    int32_t q = per_texel_input(m, f, k, reader);
    if (q < 0) continue;
    f->inaff[k] = q;
    read_through(f, k, q);
  }
}

void texmem__fold_inputs(const texmem_model *m, texmem__fusion *f, const int32_t *reader, bool pads,
                         bool depthwise, bool resize) {
  if (pads) {
    fold_input_pads(m, f, reader);
    fold_depth_to_space(m, f, reader);
  }
  if (depthwise) {
    fold_depthwise(m, f, reader, resize);
    texmem__fold_squeezes(m, f, reader);
  }
  if (pads) fold_per_texel_inputs(m, f, reader);
}

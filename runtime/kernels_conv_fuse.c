/* Fusion of element-wise operators into the convolution before them, and
 * the folds that read through other operators (see kernels_fusion.h):
 * which operators a dispatch runs, and in which task. The records and the
 * plan kept: kernels_fuse_plan.c; the fused program's bindings:
 * kernels_conv_fuse_program.c. */
#include <stdio.h>

#include "kernel_env.h"
#include "kernels_conv_common.h"
#include "kernels_conv_fuse.h"
#include "kernels_util.h"

static const texmem_tensor *tensor_at(const texmem_model *m, int32_t i) {
  return i >= 0 ? texmem_model_tensor(m, (size_t)i) : NULL;
}

static bool is_float(const texmem_tensor *t) {
  return t->type == TEXMEM_DTYPE_FLOAT32 || t->type == TEXMEM_DTYPE_FLOAT16;
}

static bool same_bhwc(const texmem_tensor *a, const texmem_tensor *b) {
  return a->b == b->b && a->h == b->h && a->w == b->w && a->c == b->c;
}

/* Activations the conv and element-wise kernels apply (texmem__ku_activation). */
static bool activation_ok(texmem_activation a) {
  return a == TEXMEM_ACT_NONE || a == TEXMEM_ACT_RELU || a == TEXMEM_ACT_RELU6 ||
         a == TEXMEM_ACT_RELU_N1_TO_1 || a == TEXMEM_ACT_TANH;
}

/* A constant operand op_binary.comp reads broadcast to shape t (each of
 * its aligned dims 1 or t's). */
static bool constant_fits(const texmem_tensor *o, const texmem_tensor *t) {
  if (o->type != TEXMEM_DTYPE_FLOAT32 || !o->data || o->rank > 4) return false;
  int32_t s[4];
  texmem__ew_align_bhwc(o, 4, s);
  const uint32_t ts[4] = {t->b, t->h, t->w, t->c};
  size_t n = 1;
  for (int i = 0; i < 4; i++) {
    if (s[i] < 1 || (s[i] != 1 && (uint32_t)s[i] != ts[i])) return false;
    n *= (size_t)s[i];
  }
  return o->data_size == n * sizeof(float);
}

/* Whether e is a DEPTHWISE_CONV_2D of rank-4 tensor t that maps each
 * texel alone (a 1x1 window, multiplier 1: a per-channel scale and shift,
 * hand_recrop's), with an activation the kernels apply. */
static bool per_texel_depthwise(const texmem_model *m, const texmem_op *e, int32_t t) {
  const texmem_tensor *tt = tensor_at(m, t);
  const texmem_tensor *w = e->n_inputs >= 2 ? tensor_at(m, e->inputs[1]) : NULL;
  return e->type == TEXMEM_OP_DEPTHWISE_CONV_2D && e->inputs[0] == t && tt && tt->rank == 4 &&
         w && (w->flags & TEXMEM_TENSOR_CONSTANT) && w->rank == 4 && w->shape[0] == 1 &&
         w->shape[1] == 1 && w->shape[2] == 1 && (uint32_t)w->shape[3] == tt->c &&
         e->options.depth_multiplier <= 1 && activation_ok(e->options.activation);
}

/* Whether element-wise operator e can take tensor t's value inside a
 * fused program: one float output of t's shape, neither constant nor
 * graph input; unary, binary with an activation the kernels apply, or a
 * per-texel depthwise convolution (applied as op_depthwise.comp sums its
 * one tap). *oi: a binary operator's other operand (-1 otherwise). */
static bool elementwise_on(const texmem_model *m, const texmem_op *e, int32_t t, int32_t *oi) {
  const texmem_tensor *tt = tensor_at(m, t);
  const texmem_tensor *y = e->n_outputs == 1 ? tensor_at(m, e->outputs[0]) : NULL;
  *oi = -1;
  if (!tt || !y || !is_float(y) || !same_bhwc(y, tt) ||
      (y->flags & (TEXMEM_TENSOR_CONSTANT | TEXMEM_TENSOR_INPUT)))
    return false;
  if (e->type == TEXMEM_OP_DEPTHWISE_CONV_2D) return per_texel_depthwise(m, e, t);
  if (texmem__ew_unary_kind(e->type) >= 0) return e->n_inputs == 1;
  if (texmem__ew_binary_mode(e->type) < 0 || e->n_inputs != 2) return false;
  if (texmem__ew_has_activation(e->type) && !activation_ok(e->options.activation)) return false;
  *oi = e->inputs[0] == t ? e->inputs[1] : e->inputs[0];
  return tensor_at(m, *oi) != NULL;
}

/* Whether operator e, fused after tensor t, reads a tensor operand. */
static bool binds_tensor(const texmem_model *m, const texmem_op *e, int32_t t) {
  if (e->n_inputs != 2) return false;
  const texmem_tensor *o = tensor_at(m, e->inputs[0] == t ? e->inputs[1] : e->inputs[0]);
  return o && !(o->flags & TEXMEM_TENSOR_CONSTANT);
}

/* The PAD making intermediate tensor o from a float non-constant tensor,
 * with its zeros before and after each BHWC component; -1 otherwise. */
static int32_t pad_of(const texmem_model *m, int32_t o, int32_t before[4], int32_t after[4]) {
  const texmem_tensor *ot = tensor_at(m, o);
  if (!ot || ot->producer < 0 || !(ot->flags & TEXMEM_TENSOR_INTERMEDIATE)) return -1;
  int32_t q = ot->producer;
  const texmem_op *p = texmem_model_op(m, (size_t)q);
  if (p->type != TEXMEM_OP_PAD || p->n_outputs != 1 || p->n_inputs < 1) return -1;
  const texmem_tensor *x = tensor_at(m, p->inputs[0]);
  if (!x || !is_float(x) || (x->flags & TEXMEM_TENSOR_CONSTANT) ||
      texmem__pad_amounts(m, p, x->rank, before, after, NULL))
    return -1;
  return q;
}

/* The PAD making tensor o (as pad_of) when one operator alone reads o. */
static int32_t pad_making(const texmem_model *m, int32_t o, const int32_t *reader,
                          int32_t before[4], int32_t after[4]) {
  return o >= 0 && reader[o] >= 0 ? pad_of(m, o, before, after) : -1;
}

/* The STRIDED_SLICE making tensor o when one operator alone reads o and
 * it takes the leading channels of a float non-constant tensor (as a
 * PAD, it changes the channels only); -1 otherwise. */
static int32_t leading_channels_of(const texmem_model *m, int32_t o, const int32_t *reader) {
  int32_t q = texmem__fuse_sole_producer(m, o, reader, TEXMEM_OP_STRIDED_SLICE);
  if (q < 0) return -1;
  const texmem_op *p = texmem_model_op(m, (size_t)q);
  const texmem_tensor *x = tensor_at(m, p->inputs[0]);
  return x && is_float(x) && !(x->flags & TEXMEM_TENSOR_CONSTANT) &&
                 texmem__slice_leading_channels(m, p)
             ? q
             : -1;
}

/* The PAD making tensor o when it folds into a fused read (see
 * kernels_fusion.h): zeros after the channels only, its input of o's
 * batch and plane; or the STRIDED_SLICE taking o's channels from the
 * leading ones of such an input; -1 otherwise. */
static int32_t foldable_pad(const texmem_model *m, int32_t o, const int32_t *reader) {
  int32_t before[4], after[4], q = pad_making(m, o, reader, before, after);
  if (q < 0) return leading_channels_of(m, o, reader);
  for (int i = 0; i < 4; i++)
    if (before[i] != 0 || (i < 3 && after[i] != 0)) return -1;
  const texmem_tensor *x = tensor_at(m, texmem_model_op(m, (size_t)q)->inputs[0]);
  const texmem_tensor *ot = tensor_at(m, o);
  if (x->b != ot->b || x->h != ot->h || x->w != ot->w || x->c + (uint32_t)after[3] != ot->c)
    return -1;
  return q;
}

/* The MAX_POOL_2D making tensor o when it folds into a fused read (see
 * kernels_fusion.h): as sole_producer, no activation, a window of at
 * most 16 texels, its input a float rank-4 tensor of o's batch and
 * channels; -1 otherwise. */
static int32_t foldable_pool(const texmem_model *m, int32_t o, const int32_t *reader) {
  int32_t q = texmem__fuse_sole_producer(m, o, reader, TEXMEM_OP_MAX_POOL_2D);
  if (q < 0) return -1;
  const texmem_op *p = texmem_model_op(m, (size_t)q);
  const texmem_op_options *po = &p->options;
  if (p->n_inputs != 1 || po->activation != TEXMEM_ACT_NONE || po->filter_w < 1 ||
      po->filter_h < 1 || po->filter_w * po->filter_h > 16 || po->stride_w < 1 ||
      po->stride_h < 1)
    return -1;
  const texmem_tensor *x = tensor_at(m, p->inputs[0]), *ot = tensor_at(m, o);
  if (!x || !is_float(x) || x->rank != 4 || (x->flags & TEXMEM_TENSOR_CONSTANT) ||
      x->b != ot->b || x->c != ot->c)
    return -1;
  return q;
}

/* The RESIZE_BILINEAR making tensor o when its reader may read through it
 * (see kernels_fusion.h): as sole_producer, options the kernel runs,
 * its input a float rank-4 non-constant tensor of o's batch and channels;
 * -1 otherwise. */
static int32_t foldable_resize(const texmem_model *m, int32_t o, const int32_t *reader) {
  int32_t q = texmem__fuse_sole_producer(m, o, reader, TEXMEM_OP_RESIZE_BILINEAR);
  if (q < 0) return -1;
  const texmem_op *r = texmem_model_op(m, (size_t)q);
  const texmem_tensor *x = tensor_at(m, r->inputs[0]), *ot = tensor_at(m, o);
  if (!x || !is_float(x) || !is_float(ot) || x->rank != 4 || ot->rank != 4 ||
      (x->flags & TEXMEM_TENSOR_CONSTANT) || x->b != ot->b || x->c != ot->c ||
      (r->options.align_corners && r->options.half_pixel_centers))
    return -1;
  return q;
}

/* Operator q, read through by dispatches up to `task`, is read there. */
static void read_until(texmem__fusion *f, int32_t q, int32_t task) {
  if (q >= 0 && task > f->task[q]) f->task[q] = task;
}

/* Operator j joins convolution k's dispatch at `task`. */
static void join(texmem__fusion *f, size_t k, int32_t j, int32_t task) {
  f->head[j] = (int32_t)k;
  f->task[j] = task;
  f->n_fused++;
}

/* The PAD making operator k's input when k may read through it: k a
 * depthwise or a k x k (not 1x1) CONV_2D, the PAD's zeros before and after
 * rows and columns only, its input a rank-4 tensor that k does not also
 * bind as its fused operand (src_taken); -1 otherwise. */
static int32_t input_pad(const texmem_model *m, size_t k, int32_t src_taken) {
  const texmem_op *c = texmem_model_op(m, k);
  const texmem_tensor *w = c->n_inputs > 1 ? tensor_at(m, c->inputs[1]) : NULL;
  if ((c->type != TEXMEM_OP_CONV_2D && c->type != TEXMEM_OP_DEPTHWISE_CONV_2D) || !w ||
      w->rank != 4 || (c->type == TEXMEM_OP_CONV_2D && w->shape[1] * w->shape[2] == 1))
    return -1;
  int32_t t = c->inputs[0], before[4], after[4];
  int32_t q = t >= 0 ? pad_of(m, t, before, after) : -1;
  if (q < 0) return -1;
  const texmem_tensor *x = tensor_at(m, texmem_model_op(m, (size_t)q)->inputs[0]);
  const texmem_tensor *tt = tensor_at(m, t);
  if (x->rank != 4 || texmem_model_op(m, (size_t)q)->inputs[0] == src_taken || before[0] ||
      after[0] || before[3] || after[3] || x->b != tt->b || x->c != tt->c)
    return -1;
  return q;
}

/* The tensor convolution k's dispatch reads as its fused operand (-1:
 * none). */
static int32_t operand_read(const texmem_model *m, const texmem__fusion *f, size_t k) {
  if (f->first[k] < 0) return -1;
  if (f->pool[k] >= 0) return texmem_model_op(m, (size_t)f->pool[k])->inputs[0];
  if (f->pad[k] >= 0) return texmem_model_op(m, (size_t)f->pad[k])->inputs[0];
  if (f->rsz[k] >= 0) return texmem_model_op(m, (size_t)f->rsz[k])->inputs[0];
  const texmem_op *e = texmem_model_op(m, (size_t)f->first[k]);
  int32_t t = texmem_model_op(m, k)->outputs[0];
  if (!binds_tensor(m, e, t) && f->second[k] >= 0) { /* the second's, if any */
    t = e->outputs[0];
    e = texmem_model_op(m, (size_t)f->second[k]);
  }
  if (!binds_tensor(m, e, t)) return -1;
  return e->inputs[0] == t ? e->inputs[1] : e->inputs[0];
}

/* The PAD making convolution k's input when it folds into the
 * convolution's read (input_pad): every operator reading its output is
 * such a convolution, reading it once, as its input, through the same
 * PAD, and no other's fused operator (TFLite's explicit padding before a
 * stride-2 convolution; pose_detection's heads read one PAD twice); -1
 * otherwise. */
static int32_t foldable_input_pad(const texmem_model *m, const texmem__fusion *f, size_t k,
                                  const int32_t *reader) {
  int32_t q = input_pad(m, k, operand_read(m, f, k)), t = texmem_model_op(m, k)->inputs[0];
  if (q < 0 || reader[t] == (int32_t)k) return q;
  for (size_t j = (size_t)q + 1; j < f->n_ops; j++) {
    const texmem_op *o = texmem_model_op(m, j);
    size_t uses = 0;
    for (size_t i = 0; i < o->n_inputs; i++) uses += o->inputs[i] == t;
    if (uses && (uses != 1 || o->inputs[0] != t || (f->head[j] != -1 && f->head[j] != (int32_t)j) ||
                 input_pad(m, j, operand_read(m, f, j)) != q))
      return -1;
  }
  return q;
}

/* Operator q (an input PAD or DEPTH_TO_SPACE), read through by
 * convolution k: it joins k's dispatch when k is its first reader, and is
 * read until its last one. */
static void read_through(texmem__fusion *f, size_t k, int32_t q) {
  f->head[k] = (int32_t)k;
  if (f->head[q] == -1) join(f, k, q, f->task[k]);
  else read_until(f, q, f->task[k]);
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
  const texmem_tensor *tt = tensor_at(m, t);
  if (!tt || tt->producer < 0 || !(tt->flags & TEXMEM_TENSOR_INTERMEDIATE) || tt->rank != 4)
    return -1;
  const texmem_op *d = texmem_model_op(m, (size_t)tt->producer);
  const texmem_tensor *x = d->n_inputs == 1 ? tensor_at(m, d->inputs[0]) : NULL;
  int32_t bs = d->options.block_size;
  if (d->type != TEXMEM_OP_DEPTH_TO_SPACE || d->n_outputs != 1 || !x || !is_float(x) ||
      !is_float(tt) || x->rank != 4 || (x->flags & TEXMEM_TENSOR_CONSTANT) || bs < 1 ||
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
        ((f->head[j] != -1 && f->head[j] != (int32_t)j) || operand_read(m, f, j) == src))
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

/* Whether convolution k reads its input through a fold already (an
 * input PAD, DEPTH_TO_SPACE, depthwise convolution, MUL, ADD, resize or
 * per-texel depthwise one): x is bound to something else then. */
static bool input_folded(const texmem__fusion *f, size_t k) {
  return f->inpad[k] >= 0 || f->ind2s[k] >= 0 || f->indw[k] >= 0 || f->inmul[k] >= 0 ||
         f->inadd[k] >= 0 || f->inrsz[k] >= 0 || f->inaff[k] >= 0 || f->insq[k] >= 0;
}

/* The input of operator k when the tiled 1x1 kernel may compute it while
 * staging (a folded depthwise convolution or MUL): k a 1x1 stride-1
 * CONV_2D run by itself or with its own fused operators, no input PAD or
 * other fold taken, its input a rank-4 tensor it alone reads; -1
 * otherwise. */
static int32_t staged_input(const texmem_model *m, const texmem__fusion *f, size_t k,
                            const int32_t *reader) {
  const texmem_op *c = texmem_model_op(m, k);
  const texmem_tensor *w = c->n_inputs > 1 ? tensor_at(m, c->inputs[1]) : NULL;
  if (c->type != TEXMEM_OP_CONV_2D || !w || w->rank != 4 || w->shape[1] != 1 ||
      w->shape[2] != 1 || c->options.stride_w != 1 || c->options.stride_h != 1 ||
      (f->head[k] != -1 && f->head[k] != (int32_t)k) || input_folded(f, k))
    return -1;
  int32_t t = c->inputs[0];
  const texmem_tensor *tt = tensor_at(m, t);
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
  const texmem_tensor *tt = tensor_at(m, t);
  int32_t q = texmem__fuse_sole_producer(m, t, reader, TEXMEM_OP_DEPTHWISE_CONV_2D);
  if (q < 0 || (f->head[q] != -1 && (f->head[q] != q || f->first[q] >= 0))) return -1;
  const texmem_op *d = texmem_model_op(m, (size_t)q);
  const texmem_tensor *x = tensor_at(m, d->inputs[0]);
  const texmem_tensor *dwt = d->n_inputs > 1 ? tensor_at(m, d->inputs[1]) : NULL;
  if (!x || !is_float(x) || x->rank != 4 || (x->flags & TEXMEM_TENSOR_CONSTANT) ||
      x->b != tt->b || x->c != tt->c || !dwt || dwt->rank != 4 || dwt->shape[0] != 1 ||
      (uint32_t)dwt->shape[3] != x->c || !activation_ok(d->options.activation))
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
  const texmem_tensor *tt = tensor_at(m, t);
  int32_t q = texmem__fuse_sole_producer(m, t, reader, TEXMEM_OP_MUL);
  if (q < 0 || f->head[q] != -1) return -1;
  const texmem_op *mul = texmem_model_op(m, (size_t)q);
  if (mul->n_inputs != 2 || !activation_ok(mul->options.activation)) return -1;
  const texmem_tensor *a = tensor_at(m, mul->inputs[0]), *b = tensor_at(m, mul->inputs[1]);
  if (!a || !b || !is_float(a) || !is_float(b) || a->rank != 4 || b->rank != 4 ||
      ((a->flags | b->flags) & TEXMEM_TENSOR_CONSTANT))
    return -1;
  *scale = mul->inputs[1];
  if (!same_bhwc(a, tt)) {
    const texmem_tensor *sw = a;
    a = b;
    b = sw;
    *scale = mul->inputs[0];
  }
  if (!same_bhwc(a, tt) || b->b != a->b || b->h != 1 || b->w != 1 || b->c != a->c ||
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
  return q >= 0 && operand_read(m, f, k) != si ? q : -1;
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
  if (add->n_inputs != 2 || !activation_ok(add->options.activation) ||
      !is_float(tensor_at(m, t)))
    return -1;
  for (int side = 0; side < 2; side++) {
    int32_t u = add->inputs[side], bi = add->inputs[1 - side];
    int32_t si, q2 = u >= 0 && reader[u] == q ? scale_of(m, f, u, reader, &si) : -1;
    const texmem_tensor *b = tensor_at(m, bi);
    if (q2 < 0 || !b || !is_float(b) || b->rank != 4 || (b->flags & TEXMEM_TENSOR_CONSTANT) ||
        !same_bhwc(b, tensor_at(m, t)))
      continue;
    const texmem_op *mo = texmem_model_op(m, (size_t)q2);
    int32_t e = operand_read(m, f, k); /* x it may read, through x's binding */
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
  int32_t q = t >= 0 ? foldable_resize(m, t, reader) : -1;
  if (q < 0 || f->head[q] != -1 ||
      texmem_model_op(m, (size_t)q)->inputs[0] == operand_read(m, f, k))
    return -1;
  return q;
}

/* Depthwise convolutions, per-channel MULs and resizes folded into the 1x1
 * convolutions that read them. */
static void fold_depthwise(const texmem_model *m, texmem__fusion *f, const int32_t *reader,
                           unsigned allow) {
  for (size_t k = 0; k < f->n_ops; k++) {
    int32_t mul, q = foldable_depthwise(m, f, k, reader);
    if (q >= 0) {
      f->indw[k] = q;
      f->n_dw++;
      read_until(f, f->inpad[q], f->task[k]); /* read there now, until the last reader */
      read_until(f, f->ind2s[q], f->task[k]);
    } else if ((q = foldable_mul(m, f, k, reader)) >= 0) {
      f->inmul[k] = q;
      f->n_mul++;
    } else if ((q = foldable_scale_add(m, f, k, reader, &mul)) >= 0) {
      f->inadd[k] = q;
      join(f, k, q, f->task[k]);
      f->inmul[k] = q = mul;
      f->n_mul++;
    } else if (allow & TEXMEM__FUSE_RESIZE && (q = foldable_input_resize(m, f, k, reader)) >= 0) {
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
      c->n_outputs != 1 || (f->head[k] != -1 && f->head[k] != (int32_t)k) || input_folded(f, k))
    return -1;
  int32_t t = c->inputs[0];
  int32_t q = t >= 0 && reader[t] == (int32_t)k
                  ? texmem__fuse_sole_producer(m, t, reader, TEXMEM_OP_DEPTHWISE_CONV_2D)
                  : -1;
  if (q < 0 || f->head[q] != -1) return -1;
  const texmem_op *d = texmem_model_op(m, (size_t)q);
  const texmem_tensor *x = tensor_at(m, d->inputs[0]), *y = tensor_at(m, t);
  if (!x || !is_float(x) || !is_float(y) || x->rank != 4 || y->rank != 4 ||
      (x->flags & TEXMEM_TENSOR_CONSTANT) || !same_bhwc(x, y) ||
      !per_texel_depthwise(m, d, d->inputs[0]) || operand_read(m, f, k) == d->inputs[0])
    return -1;
  return q;
}

/* The most output channels a squeeze's convolutions may have: 8 groups
 * of 4 slices, whatever parts (at most 16) the tiled kernel splits the
 * input in, give each (group, part) pair one of op_squeeze.comp's 128
 * invocations; and input channels its pool may have (128 slices). */
#define SQUEEZE_MAX_OUT 128u
#define SQUEEZE_MAX_IN 512u

/* Whether operator k is a CONV_2D of a 1x1 window from a one-pixel plane
 * of at most `in` channels to one of at most SQUEEZE_MAX_OUT, float, no
 * fold reading its input yet. */
static bool one_pixel_1x1(const texmem_model *m, const texmem__fusion *f, size_t k, uint32_t in) {
  const texmem_op *c = texmem_model_op(m, k);
  if (c->type != TEXMEM_OP_CONV_2D || c->n_inputs < 2 || c->n_outputs != 1 || input_folded(f, k))
    return false;
  const texmem_tensor *x = tensor_at(m, c->inputs[0]), *w = tensor_at(m, c->inputs[1]);
  const texmem_tensor *y = tensor_at(m, c->outputs[0]);
  return x && w && y && is_float(x) && is_float(y) && x->rank == 4 && y->rank == 4 &&
         w->rank == 4 && w->shape[1] == 1 && w->shape[2] == 1 && x->h == 1 && x->w == 1 &&
         y->h == 1 && y->w == 1 && x->c <= in && y->c <= SQUEEZE_MAX_OUT;
}

/* The global pool making tensor t, read by one operator alone, as
 * kernels_pool.c and kernels_mean.c send it to op_reduce_hw.comp: an
 * AVERAGE_POOL_2D or MAX_POOL_2D whose window is the plane (an activation
 * the kernels apply), or a MEAN over H and W keeping them; its input a
 * float rank-4 non-constant tensor of t's batch and channels; -1
 * otherwise. */
static int32_t global_pool_of(const texmem_model *m, const texmem__fusion *f, int32_t t,
                              const int32_t *reader) {
  static const texmem_op_type types[] = {TEXMEM_OP_AVERAGE_POOL_2D, TEXMEM_OP_MAX_POOL_2D,
                                         TEXMEM_OP_MEAN};
  int32_t q = -1;
  for (size_t i = 0; i < 3 && q < 0; i++) q = texmem__fuse_sole_producer(m, t, reader, types[i]);
  if (q < 0 || f->head[q] != -1) return -1;
  const texmem_op *p = texmem_model_op(m, (size_t)q);
  const texmem_op_options *o = &p->options;
  const texmem_tensor *x = tensor_at(m, p->inputs[0]), *tt = tensor_at(m, t);
  if (!x || !is_float(x) || x->rank != 4 || (x->flags & TEXMEM_TENSOR_CONSTANT) ||
      x->b != tt->b || x->c != tt->c ||
      (uint64_t)x->b * texmem__ku_slices(x->c) > TEXMEM__KU_MAX_GROUPS_X)
    return -1;
  if (p->type == TEXMEM_OP_MEAN) return o->reduce_axes == 6u && o->keep_dims ? q : -1;
  return p->n_inputs == 1 && activation_ok(o->activation) && o->filter_w >= 1 &&
                 o->filter_h >= 1 && o->stride_w >= 1 && o->stride_h >= 1 &&
                 texmem__pool_global(p, x)
             ? q
             : -1;
}

/* The squeeze making 1x1 convolution k's input (kernels_fusion.h:
 * insq): a first 1x1 convolution (run by itself or with one fused unary
 * operator at its own task) of a global pool's output, or with `one` a
 * global pool. -1 otherwise. */
static int32_t squeeze_of(const texmem_model *m, const texmem__fusion *f, size_t k,
                          const int32_t *reader, bool one) {
  if ((f->head[k] != -1 && f->head[k] != (int32_t)k) || !one_pixel_1x1(m, f, k, SQUEEZE_MAX_IN))
    return -1;
  int32_t t = texmem_model_op(m, k)->inputs[0];
  const texmem_tensor *tt = tensor_at(m, t);
  if (reader[t] != (int32_t)k || tt->producer < 0 || !(tt->flags & TEXMEM_TENSOR_INTERMEDIATE))
    return -1;
  if (one) return global_pool_of(m, f, t, reader);
  int32_t c = tt->producer; /* the convolution, or its fused unary operator */
  if (f->head[c] >= 0 && f->head[c] != c) {
    int32_t h = f->head[c];
    if (f->first[h] != c || f->second[h] >= 0 || f->task[h] != h ||
        texmem__ew_unary_kind(texmem_model_op(m, (size_t)c)->type) < 0)
      return -1;
    c = h;
  } else if (f->head[c] >= 0) {
    return -1;
  }
  if (!one_pixel_1x1(m, f, (size_t)c, SQUEEZE_MAX_IN)) return -1;
  int32_t x = texmem_model_op(m, (size_t)c)->inputs[0];
  return reader[x] == c && global_pool_of(m, f, x, reader) >= 0 ? c : -1;
}

/* Whether operator q is a convolution (else a squeeze's pool). */
static bool is_conv(const texmem_model *m, int32_t q) {
  return texmem_model_op(m, (size_t)q)->type == TEXMEM_OP_CONV_2D;
}

int32_t texmem__squeeze_pool(const texmem_model *m, const texmem__fusion *f, size_t k) {
  int32_t q = f->insq[k];
  return is_conv(m, q) ? tensor_at(m, texmem_model_op(m, (size_t)q)->inputs[0])->producer : q;
}

/* Whether operator p runs inside convolution c's squeeze (pool, first
 * convolution, its fused operator, the ADD under the pool). */
bool texmem__squeezed(const texmem_model *m, const texmem__fusion *f, int32_t c, int32_t p) {
  int32_t q = f->insq[c];
  return q >= 0 && (p == q || p == texmem__squeeze_pool(m, f, (size_t)c) || p == f->sqadd[c] ||
                    (is_conv(m, q) && p == f->first[q]));
}

/* The ADD making squeeze pool p's input when the pool reads through it
 * (kernels_fusion.h: sqadd): in no dispatch yet, read by the pool
 * alone, an activation the kernels apply, of two distinct float rank-4
 * non-constant tensors of its output's shape, neither what convolution
 * k's fused operator reads (one dispatch binds a tensor once); -1
 * otherwise. */
static int32_t squeeze_add_of(const texmem_model *m, const texmem__fusion *f, size_t k, int32_t p,
                              const int32_t *reader) {
  int32_t t = texmem_model_op(m, (size_t)p)->inputs[0];
  int32_t q = texmem__fuse_sole_producer(m, t, reader, TEXMEM_OP_ADD);
  if (q < 0 || f->head[q] != -1) return -1;
  const texmem_op *add = texmem_model_op(m, (size_t)q);
  if (add->n_inputs != 2 || add->inputs[0] == add->inputs[1] ||
      !activation_ok(add->options.activation) || !is_float(tensor_at(m, t)))
    return -1;
  int32_t e = operand_read(m, f, k);
  for (int i = 0; i < 2; i++) {
    const texmem_tensor *o = tensor_at(m, add->inputs[i]);
    if (!o || !is_float(o) || o->rank != 4 || (o->flags & TEXMEM_TENSOR_CONSTANT) ||
        !same_bhwc(o, tensor_at(m, t)) || add->inputs[i] == e)
      return -1;
  }
  return q;
}

/* Squeezes run in the dispatch of the 1x1 convolution reading them (the
 * selfie models' squeeze-and-excitation blocks): pool, first convolution
 * and its fused operator join it; those of two convolutions first (a
 * first convolution reading a pool would otherwise take it alone). */
static void fold_squeezes(const texmem_model *m, texmem__fusion *f, const int32_t *reader) {
  for (size_t i = 0; i < 2 * f->n_ops; i++) {
    size_t k = i % f->n_ops;
    int32_t q = squeeze_of(m, f, k, reader, i >= f->n_ops);
    if (q < 0) continue;
    f->insq[k] = q;
    f->head[k] = (int32_t)k;
    int32_t u = is_conv(m, q) ? f->first[q] : -1, pool = texmem__squeeze_pool(m, f, k);
    join(f, k, q, f->task[k]);
    if (is_conv(m, q)) join(f, k, pool, f->task[k]);
    int32_t a = squeeze_add_of(m, f, k, pool, reader);
    if (a >= 0) {
      f->sqadd[k] = a;
      join(f, k, a, f->task[k]);
    }
    if (u >= 0) { /* counted already */
      f->head[u] = (int32_t)k;
      f->task[u] = f->task[k];
    }
  }
}

/* Per-texel depthwise convolutions read through by the convolution
 * reading their output (hand_recrop's, after a standalone PRELU or a
 * dispatch that already runs two operators): not run. Counted with the
 * fused operators, as input PADs. */
static void fold_per_texel_inputs(const texmem_model *m, texmem__fusion *f,
                                  const int32_t *reader) {
  for (size_t k = 0; k < f->n_ops; k++) {
    int32_t q = per_texel_input(m, f, k, reader);
    if (q < 0) continue;
    f->inaff[k] = q;
    read_through(f, k, q);
  }
}

/* The operators a fused operand is read through (-1: none), and whether
 * what is read is computed after the convolution. */
typedef struct operand_folds {
  int32_t pad, pool, rsz;
  bool late;
} operand_folds;

/* Operator q (-1: none) making the tensor *oi, when the dispatch reads
 * its input instead: *oi becomes that input, unless it is `avoid` (the
 * convolution's own input); q, or -1 when not taken. */
static int32_t read_operand_through(const texmem_model *m, int32_t q, int32_t avoid,
                                    int32_t *oi) {
  if (q < 0 || texmem_model_op(m, (size_t)q)->inputs[0] == avoid) return -1;
  *oi = texmem_model_op(m, (size_t)q)->inputs[0];
  return q;
}

/* How operator k2, the one reader of convolution k's output t, fuses into
 * it: for a binary operator the other operand a fitting constant or a
 * tensor of t's shape, read as it is, or (as `allow` lets) through the
 * channel PAD making it (pad) and the max pool making that (pool), or
 * through the bilinear resize making it (rsz), never of the convolution's
 * own input. The operand itself may be that input (a residual around a
 * depthwise convolution of stride 1): the program reads it through x's
 * binding (one dispatch binds a texture once). */
static bool fusable(const texmem_model *m, size_t k, size_t k2, int32_t t, const int32_t *reader,
                    unsigned allow, operand_folds *fo) {
  const texmem_op *c = texmem_model_op(m, k);
  const texmem_tensor *tt = tensor_at(m, t);
  int32_t oi;
  *fo = (operand_folds){-1, -1, -1, false};
  if (!tt || tt->rank != 4 || !elementwise_on(m, texmem_model_op(m, k2), t, &oi)) return false;
  if (oi < 0) return true;
  const texmem_tensor *o = tensor_at(m, oi);
  if (o->flags & TEXMEM_TENSOR_CONSTANT) return constant_fits(o, tt);
  if (!is_float(o) || o->rank != 4 || !same_bhwc(o, tt)) return false;
  /* What the dispatch reads: the operand, or a folded PAD's, pool's or
   * resize's input other than the convolution's own. */
  int32_t in = c->inputs[0];
  if (allow & TEXMEM__FUSE_PAD)
    fo->pad = read_operand_through(m, foldable_pad(m, oi, reader), in, &oi);
  if (allow & TEXMEM__FUSE_POOL)
    fo->pool = read_operand_through(m, foldable_pool(m, oi, reader), in, &oi);
  if (allow & TEXMEM__FUSE_RESIZE && fo->pad < 0 && fo->pool < 0)
    fo->rsz = read_operand_through(m, foldable_resize(m, oi, reader), in, &oi);
  fo->late = tensor_at(m, oi)->producer > (int32_t)k;
  return true;
}

/* Whether operator k3, the one reader of t2 (the output of the operator
 * fused into a convolution), runs fused after it too: unary, or binary
 * with a fitting constant as its other operand, or, when tensor_ok (the
 * first operator binds no tensor: the program binds one operand), with a
 * tensor of t2's shape, read as it is or (as `allow` lets) through the
 * bilinear resize making it (*rsz); the convolution's own input is read
 * through x's binding. *src: the tensor the dispatch reads for k3 (-1:
 * none). */
static bool fusable_second(const texmem_model *m, size_t k3, int32_t t2,
                           const int32_t *reader, unsigned allow, bool tensor_ok, int32_t *rsz,
                           int32_t *src) {
  const texmem_tensor *tt = tensor_at(m, t2);
  int32_t oi;
  *rsz = *src = -1;
  if (!tt || !(tt->flags & TEXMEM_TENSOR_INTERMEDIATE) ||
      !elementwise_on(m, texmem_model_op(m, k3), t2, &oi))
    return false;
  if (oi < 0) return true;
  const texmem_tensor *o = tensor_at(m, oi);
  if (o->flags & TEXMEM_TENSOR_CONSTANT) return constant_fits(o, tt);
  if (!tensor_ok || !is_float(o) || o->rank != 4 || !same_bhwc(o, tt) || oi == t2) return false;
  int32_t q = allow & TEXMEM__FUSE_RESIZE ? foldable_resize(m, oi, reader) : -1;
  if (q >= 0) {
    *rsz = q;
    oi = texmem_model_op(m, (size_t)q)->inputs[0];
  }
  *src = oi;
  return true;
}

/* The one operator reading each tensor once (-1: none, -2: several) at
 * reader[t]; the first operator reading it at reader[n_tensors + t]. */
static void single_readers(const texmem_model *m, int32_t *reader, size_t n_tensors) {
  for (size_t i = 0; i < 2 * n_tensors; i++) reader[i] = -1;
  for (size_t k = 0; k < texmem_model_op_count(m); k++) {
    const texmem_op *op = texmem_model_op(m, k);
    for (size_t j = 0; j < op->n_inputs; j++) {
      int32_t t = op->inputs[j];
      if (t < 0 || (size_t)t >= n_tensors) continue;
      reader[t] = reader[t] == -1 ? (int32_t)k : -2;
      if (reader[n_tensors + t] == -1) reader[n_tensors + t] = (int32_t)k;
    }
  }
}

void texmem__fusion_destroy(texmem__fusion *f) {
  if (!f) return;
  free(f->head);
  free(f);
}

static texmem__fusion *fusion_new(size_t n_ops) {
  texmem__fusion *f = calloc(1, sizeof *f);
  int32_t *v = malloc(TEXMEM__FUSION_ARRAYS * n_ops * sizeof *v);
  if (!f || !v) {
    free(f);
    free(v);
    return NULL;
  }
  f->n_ops = n_ops;
  f->head = v;
  f->task = v + n_ops;
  f->first = v + 2 * n_ops;
  f->second = v + 3 * n_ops;
  f->pad = v + 4 * n_ops;
  f->pool = v + 5 * n_ops;
  f->inpad = v + 6 * n_ops;
  f->indw = v + 7 * n_ops;
  f->through = v + 8 * n_ops;
  f->into = v + 9 * n_ops;
  f->inmul = v + 10 * n_ops;
  f->keep = v + 11 * n_ops;
  f->rsz = v + 12 * n_ops;
  f->inrsz = v + 13 * n_ops;
  f->heads = v + 14 * n_ops;
  f->ind2s = v + 15 * n_ops;
  f->inaff = v + 16 * n_ops;
  f->inadd = v + 17 * n_ops;
  f->insq = v + 18 * n_ops;
  f->sqadd = v + 19 * n_ops;
  for (size_t k = 0; k < n_ops; k++) {
    f->head[k] = f->first[k] = f->second[k] = f->pad[k] = f->pool[k] = f->inpad[k] = -1;
    f->indw[k] = f->through[k] = f->into[k] = f->inmul[k] = -1;
    f->rsz[k] = f->inrsz[k] = f->heads[k] = f->ind2s[k] = f->inaff[k] = f->inadd[k] = -1;
    f->insq[k] = f->sqadd[k] = -1;
    f->keep[k] = 0;
    f->task[k] = (int32_t)k;
  }
  return f;
}

/* Resize q, read through by convolution k's dispatch at `task`: not run
 * (as a folded depthwise convolution: not in n_fused). */
static void read_through_resize(texmem__fusion *f, size_t k, int32_t q, int32_t task) {
  f->rsz[k] = q;
  f->head[q] = (int32_t)k;
  f->task[q] = task;
  f->n_rsz++;
}

/* The operator after convolution k's first fused one k2 that joins the
 * dispatch at `task` (see fuse_group), if any: it reads k2's output alone,
 * or (keep) is the first of several to read it, that output then stored
 * too (hand_recrop's PRELU after a residual ADD that a pool reads too). A
 * tensor it reads computed after the convolution moves the dispatch to
 * its task. */
static void fuse_second(const texmem_model *m, texmem__fusion *f, const int32_t *reader, size_t k,
                        size_t k2, int32_t task, unsigned allow) {
  int32_t t = texmem_model_op(m, k)->outputs[0], t2 = texmem_model_op(m, k2)->outputs[0];
  int32_t rsz, src;
  size_t n_tensors = texmem_model_tensor_count(m);
  bool several = reader[t2] == -2 && (allow & TEXMEM__FUSE_KEEP);
  bool tensor_ok = !several && !binds_tensor(m, texmem_model_op(m, k2), t);
  int32_t k3 = several ? reader[n_tensors + t2] : reader[t2];
  if (k3 <= (int32_t)k2 || f->head[k3] != -1 ||
      !fusable_second(m, (size_t)k3, t2, reader, allow, tensor_ok, &rsz, &src))
    return;
  if (src >= 0 && tensor_at(m, src)->producer > task) { /* computed after: run at k3 */
    if (!(allow & TEXMEM__FUSE_LATE)) return;
    task = f->task[k] = f->task[k2] = k3;
  }
  f->second[k] = k3;
  f->keep[k] = several;
  f->n_kept += several;
  join(f, k, k3, task);
  if (rsz >= 0) read_through_resize(f, k, rsz, task);
}

/* Convolution k's fused operators (first k2, its operand read through
 * fo's folds; a second one after it), and where they run. */
static void fuse_group(const texmem_model *m, texmem__fusion *f, const int32_t *reader, size_t k,
                       size_t k2, const operand_folds *fo, unsigned allow) {
  int32_t task = fo->late ? (int32_t)k2 : (int32_t)k;
  f->head[k] = (int32_t)k;
  f->task[k] = task;
  f->first[k] = (int32_t)k2;
  join(f, k, (int32_t)k2, task);
  f->pad[k] = fo->pad;
  if (fo->pad >= 0) join(f, k, fo->pad, task);
  f->pool[k] = fo->pool;
  if (fo->pool >= 0) join(f, k, fo->pool, task);
  if (fo->rsz >= 0) read_through_resize(f, k, fo->rsz, task);
  fuse_second(m, f, reader, k, k2, task, allow);
}

/* Whether operator k takes a unary operator in its output stage: a
 * FULLY_CONNECTED whose rows lie along the input's channels (op_fc.comp),
 * a transposed convolution (op_transpose_conv.comp), in no dispatch yet. */
static bool takes_unary(const texmem_model *m, const texmem__fusion *f, size_t k) {
  if (texmem__fuse_unclaimed(m, f, k, TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS, 1) ||
      texmem__fuse_unclaimed(m, f, k, TEXMEM_OP_TRANSPOSE_CONV, 1))
    return true;
  const texmem_op *op = texmem__fuse_unclaimed(m, f, k, TEXMEM_OP_FULLY_CONNECTED, 2);
  const texmem_tensor *x = op ? tensor_at(m, op->inputs[0]) : NULL;
  const texmem_tensor *w = op ? tensor_at(m, op->inputs[1]) : NULL;
  return x && w && w->rank == 2 && (uint32_t)w->shape[1] == x->c;
}

/* FULLY_CONNECTED layers and transposed convolutions (takes_unary) whose
 * output one unary element-wise operator alone reads, once (a
 * classifier's LOGISTIC, a mask's): the operator runs in their dispatch. */
static void fuse_unary_after(const texmem_model *m, texmem__fusion *f, const int32_t *reader) {
  for (size_t k = 0; k < f->n_ops; k++) {
    if (!takes_unary(m, f, k)) continue;
    int32_t t = texmem_model_op(m, k)->outputs[0], oi;
    const texmem_tensor *tt = tensor_at(m, t);
    if (!tt || !(tt->flags & TEXMEM_TENSOR_INTERMEDIATE) || reader[t] <= (int32_t)k ||
        f->head[reader[t]] != -1 ||
        texmem__ew_unary_kind(texmem_model_op(m, (size_t)reader[t])->type) < 0 ||
        !elementwise_on(m, texmem_model_op(m, (size_t)reader[t]), t, &oi))
      continue;
    f->head[k] = (int32_t)k;
    f->first[k] = reader[t];
    join(f, k, reader[t], (int32_t)k);
  }
}

/* Whether FULLY_CONNECTED k reads its input by rows of its channels
 * (op_fc.comp), in no dispatch but its own, its output float. */
static bool fc_rowwise(const texmem_model *m, const texmem__fusion *f, size_t k) {
  const texmem_op *op = texmem_model_op(m, k);
  if (op->type != TEXMEM_OP_FULLY_CONNECTED || op->n_inputs < 2 || op->n_outputs != 1 ||
      (f->head[k] != -1 && f->head[k] != (int32_t)k) || f->task[k] != (int32_t)k)
    return false;
  const texmem_tensor *x = tensor_at(m, op->inputs[0]), *w = tensor_at(m, op->inputs[1]);
  const texmem_tensor *y = tensor_at(m, op->outputs[0]);
  return x && w && y && is_float(x) && is_float(y) && w->rank == 2 &&
         (uint32_t)w->shape[1] == x->c;
}

/* FULLY_CONNECTED layers reading one input by rows (a landmark model's
 * heads: hand_landmark's four, the 3-D detectors' two), with their fused
 * unary operators, up to TEXMEM__KERNEL_MAX_HEADS of them, run as one dispatch at
 * the first one's task (heads). */
static void merge_fully_connected(const texmem_model *m, texmem__fusion *f) {
  for (size_t k = 0; k < f->n_ops; k++) {
    if (!fc_rowwise(m, f, k)) continue;
    const texmem_op *op = texmem_model_op(m, k);
    int32_t last = (int32_t)k, n = 1;
    for (size_t j = k + 1; j < f->n_ops && n < TEXMEM__KERNEL_MAX_HEADS; j++) {
      const texmem_op *o = texmem_model_op(m, j);
      if (!fc_rowwise(m, f, j) || o->inputs[0] != op->inputs[0] ||
          o->options.keep_dims != op->options.keep_dims)
        continue;
      f->heads[last] = (int32_t)j;
      last = (int32_t)j;
      n++;
      f->head[j] = (int32_t)j;
      f->task[j] = (int32_t)k;
      if (f->first[j] >= 0) f->task[f->first[j]] = (int32_t)k;
      f->n_heads++;
    }
    if (n > 1) f->head[k] = (int32_t)k;
  }
}

texmem_status texmem__fuse_find(const texmem_model *m, unsigned allow, texmem__fusion **out,
                                texmem_error *err) {
  *out = NULL;
  size_t n_ops = texmem_model_op_count(m), n_tensors = texmem_model_tensor_count(m);
  if (!n_ops) return TEXMEM_STATUS_OK;
  texmem__fusion *f = fusion_new(n_ops);
  int32_t *reader = malloc((n_tensors ? 2 * n_tensors : 1) * sizeof *reader);
  if (!f || !reader) {
    texmem__fusion_destroy(f);
    free(reader);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  single_readers(m, reader, n_tensors);
  /* Dispatches at their convolution's task first: an operator two
   * convolutions could take (an ADD of both) goes to the later one, whose
   * dispatch need not wait. */
  for (int late = 0; late <= ((allow & TEXMEM__FUSE_LATE) != 0); late++)
    for (size_t k = 0; k < n_ops; k++) {
      const texmem_op *op = texmem_model_op(m, k);
      if ((op->type != TEXMEM_OP_CONV_2D && op->type != TEXMEM_OP_DEPTHWISE_CONV_2D) ||
          op->n_outputs != 1 || f->head[k] != -1)
        continue;
      int32_t t = op->outputs[0];
      operand_folds fo;
      const texmem_tensor *tt = tensor_at(m, t);
      if (!tt || !(tt->flags & TEXMEM_TENSOR_INTERMEDIATE) || reader[t] <= (int32_t)k ||
          f->head[reader[t]] != -1)
        continue;
      size_t k2 = (size_t)reader[t];
      if (!fusable(m, k, k2, t, reader, allow, &fo) || fo.late != (late != 0)) continue;
      fuse_group(m, f, reader, k, k2, &fo, allow);
    }
  fuse_unary_after(m, f, reader);
  if (allow & TEXMEM__FUSE_HEADS) merge_fully_connected(m, f);
  if (allow & TEXMEM__FUSE_INPAD) {
    fold_input_pads(m, f, reader);
    fold_depth_to_space(m, f, reader);
  }
  if (allow & TEXMEM__FUSE_DW) {
    fold_depthwise(m, f, reader, allow);
    fold_squeezes(m, f, reader);
  }
  if (allow & TEXMEM__FUSE_INPAD) fold_per_texel_inputs(m, f, reader);
  if (allow & TEXMEM__FUSE_RESHAPE) {
    texmem__fold_reshapes(m, f, reader);
  }
  free(reader);
  *out = f;
  return TEXMEM_STATUS_OK;
}

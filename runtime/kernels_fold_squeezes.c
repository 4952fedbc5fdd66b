/* Squeeze-and-excitation's squeeze run in the dispatch of the 1x1
 * convolution reading it (kernels_fusion.h: insq, sqadd; tiled kernels):
 * a global pool of a plane (and an ADD under it), then one or two 1x1
 * convolutions of one-pixel planes, computed by one work group a batch in
 * op_squeeze.comp before the 1x1 convolution scales its input
 * (kernels_squeeze.c builds it). */
#include "kernels_fusion.h"

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
  if (c->type != TEXMEM_OP_CONV_2D || c->n_inputs < 2 || c->n_outputs != 1 ||
      texmem__fuse_input_folded(f, k))
    return false;
  const texmem_tensor *x = texmem__ku_tensor(m, c->inputs[0]),
                      *w = texmem__ku_tensor(m, c->inputs[1]);
  const texmem_tensor *y = texmem__ku_tensor(m, c->outputs[0]);
  return x && w && y && texmem__ku_is_float(x) && texmem__ku_is_float(y) && x->rank == 4 &&
         y->rank == 4 && w->rank == 4 && w->shape[1] == 1 && w->shape[2] == 1 && x->h == 1 &&
         x->w == 1 && y->h == 1 && y->w == 1 && x->c <= in && y->c <= SQUEEZE_MAX_OUT;
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
  const texmem_tensor *x = texmem__ku_tensor(m, p->inputs[0]), *tt = texmem__ku_tensor(m, t);
  if (!x || !texmem__ku_is_float(x) || x->rank != 4 || (x->flags & TEXMEM_TENSOR_CONSTANT) ||
      x->b != tt->b || x->c != tt->c ||
      (uint64_t)x->b * texmem__ku_slices(x->c) > TEXMEM__KU_MAX_GROUPS_X)
    return -1;
  if (p->type == TEXMEM_OP_MEAN) return o->reduce_axes == 6u && o->keep_dims ? q : -1;
  return p->n_inputs == 1 && texmem__fuse_activation_ok(o->activation) && o->filter_w >= 1 &&
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
  const texmem_tensor *tt = texmem__ku_tensor(m, t);
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
  return is_conv(m, q) ? texmem__ku_tensor(m, texmem_model_op(m, (size_t)q)->inputs[0])->producer
                       : q;
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
      !texmem__fuse_activation_ok(add->options.activation) ||
      !texmem__ku_is_float(texmem__ku_tensor(m, t)))
    return -1;
  int32_t e = texmem__fuse_operand_read(m, f, k);
  for (int i = 0; i < 2; i++) {
    const texmem_tensor *o = texmem__ku_tensor(m, add->inputs[i]);
    if (!o || !texmem__ku_is_float(o) || o->rank != 4 || (o->flags & TEXMEM_TENSOR_CONSTANT) ||
        !texmem__ku_same_bhwc(o, texmem__ku_tensor(m, t)) || add->inputs[i] == e)
      return -1;
  }
  return q;
}

/* Squeezes run in the dispatch of the 1x1 convolution reading them (the
 * selfie models' squeeze-and-excitation blocks): pool, first convolution
 * and its fused operator join it; those of two convolutions first (a
 * first convolution reading a pool would otherwise take it alone). */
void texmem__fold_squeezes(const texmem_model *m, texmem__fusion *f, const int32_t *reader) {
  for (size_t i = 0; i < 2 * f->n_ops; i++) {
    size_t k = i % f->n_ops;
    int32_t q = squeeze_of(m, f, k, reader, i >= f->n_ops);
    if (q < 0) continue;
    f->insq[k] = q;
    f->head[k] = (int32_t)k;
    int32_t u = is_conv(m, q) ? f->first[q] : -1, pool = texmem__squeeze_pool(m, f, k);
    texmem__fuse_join(f, k, q, f->task[k]);
    if (is_conv(m, q)) texmem__fuse_join(f, k, pool, f->task[k]);
    int32_t a = squeeze_add_of(m, f, k, pool, reader);
    if (a >= 0) {
      f->sqadd[k] = a;
      texmem__fuse_join(f, k, a, f->task[k]);
    }
    if (u >= 0) { /* counted already */
      f->head[u] = (int32_t)k;
      f->task[u] = f->task[k];
    }
  }
}

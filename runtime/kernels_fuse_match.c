/* The operators a fusion reads through, as more than one pass matches
 * them (kernels_fusion.h says what each fold does with them): a
 * per-texel depthwise convolution, a PAD, an upsampling resize, and the
 * tensor a fused dispatch already binds as its operand, which no fold may
 * bind a second time. Pure functions of the model and the fusion so far;
 * the passes that decide are kernels_conv_fuse.c (element-wise operators
 * after a convolution), kernels_fold_inputs.c and kernels_fold_squeezes.c
 * (what a convolution reads its input through). */
#include "kernels_fusion.h"

/* Whether e is a DEPTHWISE_CONV_2D of rank-4 tensor t that maps each
 * texel alone (a 1x1 window, multiplier 1: a per-channel scale and shift,
 * hand_recrop's), with an activation the kernels apply. */
bool texmem__fuse_per_texel_depthwise(const texmem_model *m, const texmem_op *e, int32_t t) {
  const texmem_tensor *tt = texmem__ku_tensor(m, t);
  const texmem_tensor *w = e->n_inputs >= 2 ? texmem__ku_tensor(m, e->inputs[1]) : NULL;
  return e->type == TEXMEM_OP_DEPTHWISE_CONV_2D && e->inputs[0] == t && tt && tt->rank == 4 && w &&
         (w->flags & TEXMEM_TENSOR_CONSTANT) && w->rank == 4 && w->shape[0] == 1 &&
         w->shape[1] == 1 && w->shape[2] == 1 && (uint32_t)w->shape[3] == tt->c &&
         e->options.depth_multiplier <= 1 && texmem__fuse_activation_ok(e->options.activation);
}

/* Whether operator e, fused after tensor t, reads a tensor operand. */
bool texmem__fuse_binds_tensor(const texmem_model *m, const texmem_op *e, int32_t t) {
  if (e->n_inputs != 2) return false;
  const texmem_tensor *o = texmem__ku_tensor(m, e->inputs[0] == t ? e->inputs[1] : e->inputs[0]);
  return o && !(o->flags & TEXMEM_TENSOR_CONSTANT);
}

/* The PAD making intermediate tensor o from a float non-constant tensor,
 * with its zeros before and after each BHWC component; -1 otherwise. */
int32_t texmem__fuse_pad_of(const texmem_model *m, int32_t o, int32_t before[4], int32_t after[4]) {
  const texmem_tensor *ot = texmem__ku_tensor(m, o);
  if (!ot || ot->producer < 0 || !(ot->flags & TEXMEM_TENSOR_INTERMEDIATE)) return -1;
  int32_t q = ot->producer;
  const texmem_op *p = texmem_model_op(m, (size_t)q);
  if (p->type != TEXMEM_OP_PAD || p->n_outputs != 1 || p->n_inputs < 1) return -1;
  const texmem_tensor *x = texmem__ku_tensor(m, p->inputs[0]);
  if (!x || !texmem__ku_is_float(x) || (x->flags & TEXMEM_TENSOR_CONSTANT) ||
      texmem__pad_amounts(m, p, x->rank, before, after, NULL))
    return -1;
  return q;
}

/* The RESIZE_BILINEAR making tensor o when its reader may read through it
 * (see kernels_fusion.h): as sole_producer, options the kernel runs,
 * its input a float rank-4 non-constant tensor of o's batch and channels;
 * -1 otherwise. */
int32_t texmem__fuse_foldable_resize(const texmem_model *m, int32_t o, const int32_t *reader) {
  int32_t q = texmem__fuse_sole_producer(m, o, reader, TEXMEM_OP_RESIZE_BILINEAR);
  if (q < 0) return -1;
  const texmem_op *r = texmem_model_op(m, (size_t)q);
  const texmem_tensor *x = texmem__ku_tensor(m, r->inputs[0]), *ot = texmem__ku_tensor(m, o);
  if (!x || !texmem__ku_is_float(x) || !texmem__ku_is_float(ot) || x->rank != 4 || ot->rank != 4 ||
      (x->flags & TEXMEM_TENSOR_CONSTANT) || x->b != ot->b || x->c != ot->c ||
      (r->options.align_corners && r->options.half_pixel_centers))
    return -1;
  return q;
}

/* The tensor convolution k's dispatch reads as its fused operand (-1:
 * none). */
int32_t texmem__fuse_operand_read(const texmem_model *m, const texmem__fusion *f, size_t k) {
  if (f->first[k] < 0) return -1;
  if (f->pool[k] >= 0) return texmem_model_op(m, (size_t)f->pool[k])->inputs[0];
  if (f->pad[k] >= 0) return texmem_model_op(m, (size_t)f->pad[k])->inputs[0];
  if (f->rsz[k] >= 0) return texmem_model_op(m, (size_t)f->rsz[k])->inputs[0];
  const texmem_op *e = texmem_model_op(m, (size_t)f->first[k]);
  int32_t t = texmem_model_op(m, k)->outputs[0];
  if (!texmem__fuse_binds_tensor(m, e, t) && f->second[k] >= 0) { /* the second's, if any */
    t = e->outputs[0];
    e = texmem_model_op(m, (size_t)f->second[k]);
  }
  if (!texmem__fuse_binds_tensor(m, e, t)) return -1;
  return e->inputs[0] == t ? e->inputs[1] : e->inputs[0];
}

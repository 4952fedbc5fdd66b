/* MAX_POOL_2D and AVERAGE_POOL_2D (op_pool.comp): TFLite geometry (SAME
 * pads ceil(in/stride) outputs, the odd padding after), averages over the
 * valid texels only, fused activation. A window over the whole plane goes
 * to op_reduce_hw.comp on a GPU (kernels_util.h). */
#include "kernels_util.h"

static int32_t out_size(texmem_padding p, int32_t in, int32_t k, int32_t stride) {
  if (p == TEXMEM_PADDING_SAME) return (in + stride - 1) / stride;
  return in >= k ? (in - k) / stride + 1 : 0;
}

static int32_t pad_before(int32_t in, int32_t out, int32_t k, int32_t stride) {
  int32_t total = (out - 1) * stride + k - in;
  return total > 0 ? total / 2 : 0;
}

void texmem__pool_pads(const texmem_op *op, const texmem_tensor *x, int32_t *px, int32_t *py) {
  const texmem_op_options *o = &op->options;
  int32_t oh = out_size(o->padding, (int32_t)x->h, o->filter_h, o->stride_h);
  int32_t ow = out_size(o->padding, (int32_t)x->w, o->filter_w, o->stride_w);
  *px = pad_before((int32_t)x->w, ow, o->filter_w, o->stride_w);
  *py = pad_before((int32_t)x->h, oh, o->filter_h, o->stride_h);
}

bool texmem__pool_global(const texmem_op *op, const texmem_tensor *x) {
  const texmem_op_options *o = &op->options;
  int32_t px, py;
  texmem__pool_pads(op, x, &px, &py);
  return out_size(o->padding, (int32_t)x->h, o->filter_h, o->stride_h) == 1 &&
         out_size(o->padding, (int32_t)x->w, o->filter_w, o->stride_w) == 1 &&
         o->filter_w - px >= (int32_t)x->w && o->filter_h - py >= (int32_t)x->h;
}

texmem_status texmem__kernel_pool(texmem__kernel_env *env, const texmem_model *model,
                                  const texmem_op *op, texmem__kernel *out, texmem_error *err) {
  const char *name = texmem_op_type_name(op->type);
  const texmem_tensor *x = NULL, *y = NULL;
  texmem_status s = texmem__ku_in_out(name, model, op, &x, &y, err);
  if (s) return s;
  const texmem_op_options *o = &op->options;
  if (o->filter_w < 1 || o->filter_h < 1 || o->stride_w < 1 || o->stride_h < 1)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: filter %dx%d, stride %dx%d", name,
                        o->filter_w, o->filter_h, o->stride_w, o->stride_h);
  if (x->rank != 4)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: input rank %u, needs 4", name, x->rank);
  int32_t oh = out_size(o->padding, (int32_t)x->h, o->filter_h, o->stride_h);
  int32_t ow = out_size(o->padding, (int32_t)x->w, o->filter_w, o->stride_w);
  if ((s = texmem__ku_check_out(name, y, (uint32_t)oh, (uint32_t)ow, x->c, err)) ||
      (s = texmem__ku_check_batch(name, x, y, err)))
    return s;
  if ((s = texmem__ku_activation(name, o->activation, out, err))) return s;
  int32_t px, py;
  texmem__pool_pads(op, x, &px, &py);
  int32_t kind = op->type == TEXMEM_OP_MAX_POOL_2D ? 0 : 1;
  /* One window over the whole plane (a global pool): a work-group
   * reduction on a GPU; its valid texels are all H x W. */
  uint64_t depth = (uint64_t)x->b * (uint64_t)texmem__ku_slices(x->c);
  if (texmem__pool_global(op, x) && texmem__ku_reduce_hw_fits(env, depth))
    return texmem__ku_reduce_hw(env, op, (uint32_t)depth, (uint64_t)x->h * x->w, kind,
                                (float)x->w * (float)x->h, out, err);
  if ((s = texmem__ku_program_1(env, "op_pool.comp", op, out, err))) return s;
  texmem__kernel_ivec4(out, "geom", o->filter_w, o->filter_h, o->stride_w, o->stride_h);
  texmem__kernel_ivec4(out, "pad", px, py, kind, 0);
  return TEXMEM_STATUS_OK;
}

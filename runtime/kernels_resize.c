/* RESIZE_BILINEAR (op_resize.comp) and RESIZE_NEAREST_NEIGHBOR
 * (op_resize_nearest.comp): output size from the output tensor; scale
 * in/out, or (in-1)/(out-1) with align_corners, computed in fp32 as
 * TFLite does; half_pixel_centers shifts the source by half a texel. */
#include "kernels_util.h"

void texmem__resize_scale(const texmem_op *op, const texmem_tensor *x, const texmem_tensor *y,
                          float scale[4]) {
  const texmem_op_options *o = &op->options;
  float hs = (float)x->h / (float)y->h, ws = (float)x->w / (float)y->w;
  if (o->align_corners && y->h > 1) hs = (float)(x->h - 1) / (float)(y->h - 1);
  if (o->align_corners && y->w > 1) ws = (float)(x->w - 1) / (float)(y->w - 1);
  scale[0] = ws;
  scale[1] = hs;
  scale[2] = o->half_pixel_centers ? 1.0f : 0.0f;
  scale[3] = 0.0f;
}

texmem_status texmem__kernel_resize(texmem__kernel_env *env, const texmem_model *model,
                                    const texmem_op *op, texmem__kernel *out, texmem_error *err) {
  bool nearest = op->type == TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR;
  const char *name = nearest ? "RESIZE_NEAREST_NEIGHBOR" : "RESIZE_BILINEAR";
  const texmem_tensor *x = NULL, *y = NULL;
  texmem_status s = texmem__ku_in_out(name, model, op, &x, &y, err);
  if (s) return s;
  const texmem_op_options *o = &op->options;
  if (x->rank != 4 || y->rank != 4)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: input and output need rank 4", name);
  if (!nearest && o->align_corners && o->half_pixel_centers)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP,
                        "%s: align_corners and half_pixel_centers both set", name);
  if ((s = texmem__ku_check_out(name, y, y->h, y->w, x->c, err)) ||
      (s = texmem__ku_check_batch(name, x, y, err)))
    return s;
  float sc[4];
  texmem__resize_scale(op, x, y, sc);
  if (nearest) {
    if ((s = texmem__ku_program_1(env, "op_resize_nearest.comp", op, out, err))) return s;
    texmem__kernel_vec4(out, "scale", sc[0], sc[1], o->half_pixel_centers ? 0.5f : 0.0f,
                        o->align_corners ? 1.0f : 0.0f);
    return TEXMEM_STATUS_OK;
  }
  if ((s = texmem__ku_program_1(env, "op_resize.comp", op, out, err))) return s;
  texmem__kernel_vec4(out, "scale", sc[0], sc[1], sc[2], sc[3]);
  return TEXMEM_STATUS_OK;
}

/* DEPTH_TO_SPACE (op_depth_to_space.comp), TFLite's DCR order. */
#include "kernels_util.h"

texmem_status texmem__kernel_depth_to_space(texmem__kernel_env *env, const texmem_model *model,
                                            const texmem_op *op, texmem__kernel *out,
                                            texmem_error *err) {
  const char *name = "DEPTH_TO_SPACE";
  const texmem_tensor *x = NULL, *y = NULL;
  texmem_status s = texmem__ku_in_out(name, model, op, &x, &y, err);
  if (s) return s;
  int32_t bs = op->options.block_size;
  if (x->rank != 4 || bs < 1 || x->c % ((uint32_t)bs * (uint32_t)bs) != 0)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "DEPTH_TO_SPACE: block %d does not fit rank %u, %u channels", bs, x->rank,
                        x->c);
  uint32_t oc = x->c / ((uint32_t)bs * (uint32_t)bs);
  if ((s = texmem__ku_check_out(name, y, x->h * (uint32_t)bs, x->w * (uint32_t)bs, oc, err)) ||
      (s = texmem__ku_check_batch(name, x, y, err)))
    return s;
  /* y, or a RESHAPE of it to another height and width stored instead
   * (shaders/y_flat.glsl): work groups over y's own texels. */
  bool flat = texmem__ku_stored_flat(model, out, op->outputs[0]) != NULL;
  if ((s = texmem__ku_program_1_as(env, "op_depth_to_space.comp",
                                   flat ? "#define TM_Y_FLAT 1\n" : NULL, "y", op, out, err)))
    return s;
  texmem__kernel_ivec4(out, "cfg", bs, (int32_t)oc, 0, 0);
  texmem__ku_cover_y(out, y, flat);
  return TEXMEM_STATUS_OK;
}

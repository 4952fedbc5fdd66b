/* SOFTMAX over the last axis (op_softmax.comp): in every rank the last
 * axis as written is the BHWC channel axis, so each pixel's channels are
 * one row. beta from the options (TFLite's SoftmaxOptions). */
#include <math.h>

#include "kernels_util.h"

texmem_status texmem__kernel_softmax(texmem__kernel_env *env, const texmem_model *model,
                                     const texmem_op *op, texmem__kernel *out, texmem_error *err) {
  const char *name = "SOFTMAX";
  const texmem_tensor *x = NULL, *y = NULL;
  texmem_status s = texmem__ku_same_shape_io(name, model, op, &x, &y, err);
  if (s) return s;
  if (!isfinite(op->options.beta))
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: beta is not finite", name);
  if ((s = texmem__ku_program_1(env, "op_softmax.comp", op, out, err))) return s;
  texmem__kernel_ivec4(out, "cfg", (int32_t)x->c, 0, 0, 0);
  texmem__kernel_float(out, "beta", op->options.beta);
  return TEXMEM_STATUS_OK;
}

/* RESHAPE (op_reshape.comp): the dense BHWC order is the same for every
 * rank (rank 3 = B,W,C, rank 2 = B,C), so output element (y, x, c) is
 * input element number ((b*H' + y)*W' + x)*C' + c. A copy when the PHWC4 shapes
 * agree, whole texels when only the spatial shape changes. */
#include "kernels_util.h"

texmem_status texmem__kernel_reshape(texmem__kernel_env *env, const texmem_model *model,
                                     const texmem_op *op, texmem__kernel *out, texmem_error *err) {
  const char *name = "RESHAPE";
  const texmem_tensor *x = NULL, *y = NULL;
  texmem_status s = texmem__ku_in_out(name, model, op, &x, &y, err);
  if (s) return s;
  uint64_t nx = (uint64_t)x->b * x->h * x->w * x->c, ny = (uint64_t)y->b * y->h * y->w * y->c;
  if (nx != ny)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "RESHAPE: input \"%s\" has %llu elements, output \"%s\" %llu", x->name,
                        (unsigned long long)nx, y->name, (unsigned long long)ny);
  int mode = x->b == y->b && x->h == y->h && x->w == y->w && x->c == y->c ? 2
             : x->c == y->c ? 1 : 0;
  if ((s = texmem__ku_program_1(env, "op_reshape.comp", op, out, err))) return s;
  texmem__kernel_ivec4(out, "cs", (int32_t)x->c, (int32_t)y->c, mode, 0);
  return TEXMEM_STATUS_OK;
}

/* PAD with zeros (op_pad.comp): paddings from the options (read at load)
 * or the int32 constant input, mapped through the shape as written to the
 * input's batch / y / x / channels. */
#include "kernels_util.h"

texmem_status texmem__pad_amounts(const texmem_model *model, const texmem_op *op, unsigned r,
                                  int32_t before[4], int32_t after[4], texmem_error *err) {
  int32_t pad[TEXMEM_MAX_RANK][2];
  const texmem_op_options *o = &op->options;
  if (o->pad_rank == r && r > 0) {
    memcpy(pad, o->pad, sizeof pad);
  } else {
    const texmem_tensor *pt = op->n_inputs > 1 && op->inputs[1] >= 0
                                  ? texmem_model_tensor(model, (size_t)op->inputs[1]) : NULL;
    if (!pt || !(pt->flags & TEXMEM_TENSOR_CONSTANT) || pt->type != TEXMEM_DTYPE_INT32 ||
        !pt->data || pt->data_size != 2 * r * sizeof(int32_t) || r == 0)
      return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP,
                          "PAD: paddings are not an int32 constant of %u x 2", r);
    const int32_t *v = pt->data;
    for (unsigned i = 0; i < r; i++) {
      pad[i][0] = v[2 * i];
      pad[i][1] = v[2 * i + 1];
    }
  }
  for (int i = 0; i < 4; i++) before[i] = after[i] = 0;
  for (unsigned i = 0; i < r; i++) {
    if (pad[i][0] < 0 || pad[i][1] < 0)
      return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "PAD: negative padding on dim %u", i);
    int comp = texmem__ku_axis_component(r, i);
    before[comp] += pad[i][0];
    after[comp] += pad[i][1];
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__kernel_pad(texmem__kernel_env *env, const texmem_model *model,
                                 const texmem_op *op, texmem__kernel *out, texmem_error *err) {
  const char *name = "PAD";
  const texmem_tensor *x = NULL, *y = NULL;
  texmem_status s = texmem__ku_in_out(name, model, op, &x, &y, err);
  if (s) return s;
  int32_t before[4], after[4];
  if ((s = texmem__pad_amounts(model, op, x->rank, before, after, err))) return s;
  if ((s = texmem__ku_check_out(name, y, x->h + (uint32_t)(before[1] + after[1]),
                                x->w + (uint32_t)(before[2] + after[2]),
                                x->c + (uint32_t)(before[3] + after[3]), err)))
    return s;
  if (y->b != x->b + (uint32_t)(before[0] + after[0]))
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "PAD: output \"%s\" has batch %u, the op gives %u",
                        y->name, y->b, x->b + (uint32_t)(before[0] + after[0]));
  if ((s = texmem__ku_program_1(env, "op_pad.comp", op, out, err))) return s;
  texmem__kernel_ivec4(out, "before", before[2], before[1], before[3], before[0]);
  texmem__kernel_int(out, "cin", (int32_t)x->c);
  texmem__kernel_ivec4(out, "sl", texmem__ku_slices(x->c), texmem__ku_slices(y->c), (int32_t)x->b, 0);
  return TEXMEM_STATUS_OK;
}

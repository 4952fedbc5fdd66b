/* FULLY_CONNECTED: the input (any rank) is read as rows of `depth` values
 * in row-major order, as TFLite does; weights [out, depth], optional
 * bias; output [rows, out], or with keep_num_dims the input shape with
 * its last dimension replaced. When a row is exactly the input's last
 * dimension (the usual case) rows are whole texel runs (op_fc.comp, 4x4
 * vec4 blocks); otherwise each element is gathered (op_fc_gather.comp).
 * One invocation per output texel, flat 64-wide work groups: outputs are
 * often 1x1 spatially with many slices. A unary operator alone reading the
 * output runs in the same dispatch (kernels_conv_fuse.h). */
#include "kernel_env.h"
#include "kernels_conv_common.h"
#include "kernels_conv_fuse.h"

texmem_status texmem__kernel_fully_connected(texmem__kernel_env *env, const texmem_model *model,
                                             const texmem_op *op, texmem__kernel *out,
                                             texmem_error *err) {
  const char *name = "FULLY_CONNECTED";
  const texmem_tensor *x = NULL, *y = NULL, *w = NULL, *bias = NULL;
  texmem_status s;
  if ((s = texmem__conv_operands(name, model, op, &x, &y, &w, err))) return s;
  if (w->rank != 2)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: weights have rank %u, need 2", name,
                        w->rank);
  uint32_t n_out = (uint32_t)w->shape[0], depth = (uint32_t)w->shape[1];
  if (w->data_size != (size_t)n_out * depth * sizeof(float))
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: weights hold %zu bytes, need %zu", name,
                        w->data_size, (size_t)n_out * depth * sizeof(float));
  uint64_t total = (uint64_t)x->b * x->h * x->w * x->c;
  if (depth == 0 || total % depth != 0)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: input \"%s\" of %llu values is not rows of %u", name, x->name,
                        (unsigned long long)total, depth);
  uint32_t rows = (uint32_t)(total / depth);
  if (op->n_inputs > 2 && op->inputs[2] >= 0 &&
      (s = texmem__conv_const(name, model, op->inputs[2], "bias", n_out, &bias, err)))
    return s;
  const texmem_op_options *o = &op->options;
  if (o->keep_dims)
    s = texmem__conv_check_out(name, y, x->b, x->h, x->w, n_out, err);
  else
    s = texmem__conv_check_out(name, y, rows, 1, 1, n_out, err);
  if (s) return s;
  if ((s = texmem__ku_activation(name, o->activation, out, err))) return s;

  bool rowwise = depth == x->c;
  uint32_t os = (uint32_t)texmem__ku_slices(n_out), is = (uint32_t)texmem__ku_slices(depth);
  size_t nw = rowwise ? (size_t)os * is * 16 : (size_t)os * depth * 4, nb = 0;
  float *pw = calloc(nw ? nw : 1, sizeof *pw);
  float *pb = texmem__conv_pack_bias(bias ? bias->data : NULL, n_out, os, &nb);
  if ((s = texmem__conv_check_alloc(name, pw, pb, err))) return s;
  const float *wd = w->data;
  for (uint32_t j = 0; j < n_out; j++)
    for (uint32_t k = 0; k < depth; k++) {
      size_t at = rowwise ? (((size_t)(j / 4) * is + k / 4) * 4 + k % 4) * 4 + j % 4
                          : ((size_t)(j / 4) * depth + k) * 4 + j % 4;
      pw[at] = wd[(size_t)j * depth + k];
    }
  if ((s = texmem__conv_upload(env, pw, nw, pb, nb, out, err))) return s;

  static const char *const ins[] = {"x"}, *const outs[] = {"y"}, *const bufs[] = {"w", "b"};
  const uint32_t local[3] = {64, 1, 1};
  char defs[256] = "";
  out->inputs[0] = op->inputs[0];
  out->n_inputs = 1;
  out->outputs[0] = op->outputs[0];
  out->n_outputs = 1;
  if ((s = texmem__fuse_unary_stage(env, model, op, out, defs, sizeof defs, err))) return s;
  if ((s = texmem__kernel_program_defines(env, rowwise ? "op_fc.comp" : "op_fc_gather.comp", defs,
                                          ins, 1, outs, 1, bufs, 2, local, &out->program, err)))
    return s;
  if (rowwise)
    texmem__kernel_ivec4(out, "fc", (int32_t)is, (int32_t)os, 0, 0);
  else
    texmem__kernel_ivec4(out, "fc", (int32_t)x->c, (int32_t)os, (int32_t)depth, 0);
  uint64_t texels = (uint64_t)y->b * y->h * y->w * os;
  uint64_t groups = (texels + 63) / 64;
  if (groups > 65535)
    return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                        "%s: %llu output texels need more than 65535 work groups", name,
                        (unsigned long long)texels);
  out->groups[0] = (uint32_t)groups;
  out->groups[1] = 1;
  out->groups[2] = 1;
  return TEXMEM_STATUS_OK;
}

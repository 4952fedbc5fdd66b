/* Element-wise kernels: RELU, RELU6, LOGISTIC, HARD_SWISH, TANH,
 * LEAKY_RELU (op_unary.comp) and ADD, MUL, SUB, DIV, MAXIMUM, MINIMUM,
 * PRELU (op_binary.comp) with numpy-style broadcasting of the shapes as
 * written (right-aligned; a dimension of 1 broadcasts) and the fused
 * activation where TFLite has one. A constant operand goes to an SSBO in
 * PHWC4 order of its own shape; a non-constant one is an image. */
#include "kernels_util.h"

void texmem__ew_align_bhwc(const texmem_tensor *t, unsigned r, int32_t s[4]) {
  s[0] = s[1] = s[2] = s[3] = 1;
  unsigned lead = r - t->rank;
  for (unsigned i = lead; i < r; i++)
    s[texmem__ku_axis_component(r, i)] = t->shape[i - lead];
}

int texmem__ew_unary_kind(texmem_op_type t) {
  switch (t) {
    case TEXMEM_OP_RELU: return 0;
    case TEXMEM_OP_RELU6: return 1;
    case TEXMEM_OP_LOGISTIC: return 2;
    case TEXMEM_OP_HARD_SWISH: return 3;
    case TEXMEM_OP_TANH: return 4;
    case TEXMEM_OP_LEAKY_RELU: return 5;
    default: return -1;
  }
}

int texmem__ew_binary_mode(texmem_op_type t) {
  switch (t) {
    case TEXMEM_OP_ADD: return 0;
    case TEXMEM_OP_MUL: return 1;
    case TEXMEM_OP_SUB: return 2;
    case TEXMEM_OP_DIV: return 3;
    case TEXMEM_OP_MAXIMUM: return 4;
    case TEXMEM_OP_MINIMUM: return 5;
    case TEXMEM_OP_PRELU: return 6;
    default: return -1;
  }
}

static texmem_status unary(texmem__kernel_env *env, const texmem_model *model,
                           const texmem_op *op, texmem__kernel *out, texmem_error *err) {
  const char *name = texmem_op_type_name(op->type);
  const texmem_tensor *x = NULL, *y = NULL;
  texmem_status s = texmem__ku_same_shape_io(name, model, op, &x, &y, err);
  if (s) return s;
  int kind = texmem__ew_unary_kind(op->type);
  if ((s = texmem__ku_program_1(env, "op_unary.comp", op, out, err))) return s;
  texmem__kernel_int(out, "kind", kind);
  if (kind == 5) texmem__kernel_float(out, "alpha", op->options.alpha);
  texmem__kernel_int(out, "channels", (int32_t)y->c);
  return TEXMEM_STATUS_OK;
}

bool texmem__ew_has_activation(texmem_op_type t) {
  return t == TEXMEM_OP_ADD || t == TEXMEM_OP_MUL || t == TEXMEM_OP_SUB || t == TEXMEM_OP_DIV;
}

texmem_status texmem__ew_const_buffer(texmem__kernel_env *env, const char *name,
                                     const texmem_tensor *t, const int32_t s[4],
                                     texmem_gl_buffer *buf, texmem_error *err) {
  size_t n = (size_t)s[0] * s[1] * s[2] * s[3];
  if (t->type != TEXMEM_DTYPE_FLOAT32 || !t->data || t->data_size != n * sizeof(float))
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP,
                        "%s: constant operand \"%s\" is not %zu float32 values", name, t->name, n);
  /* Dense order as written is BHWC order for every rank. */
  size_t bhw = (size_t)s[0] * s[1] * s[2], c = (size_t)s[3], sl = (c + 3) / 4;
  float *p = calloc(bhw * sl * 4, sizeof *p);
  if (!p) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "%s: out of memory", name);
  const float *v = t->data;
  for (size_t i = 0; i < bhw; i++)
    for (size_t k = 0; k < c; k++) p[(i * sl + k / 4) * 4 + k % 4] = v[i * c + k];
  texmem_status st = texmem__kernel_buffer(env, p, bhw * sl * 4, buf, err);
  free(p);
  return st;
}

static texmem_status binary(texmem__kernel_env *env, const texmem_model *model,
                            const texmem_op *op, texmem__kernel *out, texmem_error *err) {
  const char *name = texmem_op_type_name(op->type);
  if (op->n_inputs != 2 || op->n_outputs != 1)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %zu inputs, %zu outputs", name,
                        op->n_inputs, op->n_outputs);
  int32_t ia = op->inputs[0], ib = op->inputs[1];
  const texmem_tensor *ta = ia >= 0 ? texmem_model_tensor(model, (size_t)ia) : NULL;
  const texmem_tensor *tb = ib >= 0 ? texmem_model_tensor(model, (size_t)ib) : NULL;
  if (!ta || !tb) return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: an input is missing", name);
  /* Keep a constant operand second; the shader swaps back the operands of
   * the ops that do not commute. */
  bool swap = false;
  if (ta->flags & TEXMEM_TENSOR_CONSTANT) {
    swap = true;
    const texmem_tensor *tt = ta;
    ta = tb;
    tb = tt;
    int32_t ti = ia;
    ia = ib;
    ib = ti;
  }
  const texmem_tensor *y = NULL;
  texmem_status s = texmem__ku_image(name, model, ia, "input", &ta, err);
  if (!s) s = texmem__ku_image(name, model, op->outputs[0], "output", &y, err);
  if (s) return s;
  bool b_const = (tb->flags & TEXMEM_TENSOR_CONSTANT) != 0;
  if (!b_const && (s = texmem__ku_image(name, model, ib, "input", &tb, err))) return s;
  int32_t sa[4], sb[4], so[4];
  unsigned rank = ta->rank > tb->rank ? ta->rank : tb->rank;
  texmem__ew_align_bhwc(ta, rank, sa);
  texmem__ew_align_bhwc(tb, rank, sb);
  /* An image operand is read through its own BHWC layout: a lower-rank
   * tensor whose aligned dims land elsewhere (e.g. [2,W,C] against rank 4,
   * its batch becoming H) is not addressed. */
  for (int k = 0; k < 2; k++) {
    const texmem_tensor *t = k ? tb : ta;
    const int32_t *sk = k ? sb : sa;
    if (k && b_const) continue;
    if ((uint32_t)sk[0] != t->b || (uint32_t)sk[1] != t->h || (uint32_t)sk[2] != t->w ||
        (uint32_t)sk[3] != t->c)
      return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP,
                          "%s: input \"%s\" of rank %u broadcasts against rank %u with its "
                          "leading dims moved",
                          name, t->name, t->rank, rank);
  }
  for (int i = 0; i < 4; i++) {
    if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1)
      return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                          "%s: shapes do not broadcast (dim %d: %d vs %d)", name, i, sa[i], sb[i]);
    so[i] = sa[i] > sb[i] ? sa[i] : sb[i];
  }
  if ((s = texmem__ku_check_out(name, y, (uint32_t)so[1], (uint32_t)so[2], (uint32_t)so[3], err)))
    return s;
  if (y->b != (uint32_t)so[0])
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: output \"%s\" has batch %u, the op gives %d",
                        name, y->name, y->b, so[0]);
  bool fused = op->type == TEXMEM_OP_ADD || op->type == TEXMEM_OP_MUL ||
               op->type == TEXMEM_OP_SUB || op->type == TEXMEM_OP_DIV;
  if ((s = texmem__ku_activation(name, fused ? op->options.activation : TEXMEM_ACT_NONE, out,
                                 err)))
    return s;

  static const char *const ab[] = {"a", "b"}, *const a_only[] = {"a"}, *const outs[] = {"dst"},
                           *const bufs[] = {"bconst"};
  bool self = !b_const && ia == ib;
  out->inputs[0] = ia;
  out->n_inputs = 1;
  if (b_const) {
    s = texmem__ew_const_buffer(env, name, tb, sb, &out->buffers[0], err);
    if (s) return s;
    out->n_buffers = 1;
    s = texmem__kernel_program_defines(env, "op_binary.comp", "#define TM_B_CONST 1\n", a_only, 1,
                                       outs, 1, bufs, 1, NULL, &out->program, err);
    texmem__kernel_ivec4(out, "bdim", sb[2], sb[1], texmem__ku_slices((uint32_t)sb[3]), 0);
  } else if (self) {
    s = texmem__kernel_program_defines(env, "op_binary.comp", "#define TM_SELF 1\n", a_only, 1,
                                       outs, 1, NULL, 0, NULL, &out->program, err);
  } else {
    out->inputs[1] = ib;
    out->n_inputs = 2;
    s = texmem__kernel_program(env, "op_binary.comp", ab, 2, outs, 1, NULL, 0, NULL,
                               &out->program, err);
  }
  if (s) return s;
  out->outputs[0] = op->outputs[0];
  out->n_outputs = 1;
  int mode = texmem__ew_binary_mode(op->type);
  texmem__kernel_ivec4(out, "mode", mode, swap, 0, 0);
  texmem__kernel_int(out, "channels", so[3]);
  texmem__kernel_ivec4(out, "abc", sa[2] == 1 && so[2] > 1, sa[1] == 1 && so[1] > 1,
                       sa[3] == 1 && so[3] > 1, sa[0] == 1 && so[0] > 1);
  texmem__kernel_ivec4(out, "bbc", sb[2] == 1 && so[2] > 1, sb[1] == 1 && so[1] > 1,
                       sb[3] == 1 && so[3] > 1, sb[0] == 1 && so[0] > 1);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__kernel_elementwise(texmem__kernel_env *env, const texmem_model *model,
                                         const texmem_op *op, texmem__kernel *out,
                                         texmem_error *err) {
  switch (op->type) {
    case TEXMEM_OP_ADD:
    case TEXMEM_OP_MUL:
    case TEXMEM_OP_SUB:
    case TEXMEM_OP_DIV:
    case TEXMEM_OP_MAXIMUM:
    case TEXMEM_OP_MINIMUM:
    case TEXMEM_OP_PRELU: return binary(env, model, op, out, err);
    case TEXMEM_OP_RELU:
    case TEXMEM_OP_RELU6:
    case TEXMEM_OP_LOGISTIC:
    case TEXMEM_OP_HARD_SWISH:
    case TEXMEM_OP_TANH:
    case TEXMEM_OP_LEAKY_RELU: return unary(env, model, op, out, err);
    default:
      return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP, "%s is not element-wise",
                          texmem_op_type_name(op->type) ? texmem_op_type_name(op->type) : "?");
  }
}

/* Operator options: the builtin operators the IR knows (their input counts
 * and BuiltinOptions member) with one parser per operator's options table,
 * as TFLite's own flatbuffer_conversions does, and the custom operators
 * whose option bytes are parsed (MediaPipe's). A parser returns
 * UNSUPPORTED_OP for options outside the IR (the reader then keeps the
 * operator as OTHER) and BAD_MODEL for options no TFLite accepts. */
#include <math.h>
#include <string.h>

#include "mediapipe_options.h"
#include "tflite.h"

/* One operator's options: its table (schema defaults when absent) and the
 * operator's tensors. */
struct texmem__opt_args {
  texmem__tfl_reader *r;
  const texmem_model *m;
  texmem_error *err;
  unsigned k;        /* operator index, for messages */
  const char *name;  /* its type name */
  const texmem__fb_table *t;
  bool have;         /* the table is in the file */
  texmem_op_type type;
  const int32_t *in;
  uint32_t n_in, n_out;
};
typedef texmem__opt_args opt_args;

#define FB(call, ...) TEXMEM__FB_TRY(a->err, call, __VA_ARGS__)
#define U8(id, dst) FB(texmem__fb_u8(a->t, id, 0, &(dst)), "operator %u (%s): options", a->k, a->name)
#define I32(id, def, dst) FB(texmem__fb_i32(a->t, id, def, &(dst)), "operator %u (%s): options", a->k, a->name)

static texmem_status activation(const opt_args *a, uint8_t v, texmem_activation *out) {
  if (v > TEXMEM_ACT_SIGN_BIT)
    return texmem__fail(a->err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %u (%s): fused activation %u unsupported",
                        a->k, a->name, v);
  *out = (texmem_activation)v;
  return TEXMEM_STATUS_OK;
}

static texmem_status padding(const opt_args *a, uint8_t v, texmem_padding *out) {
  if (v > 1)
    return texmem__fail(a->err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %u (%s): padding %u unsupported", a->k,
                        a->name, v);
  *out = v ? TEXMEM_PADDING_VALID : TEXMEM_PADDING_SAME;
  return TEXMEM_STATUS_OK;
}

static texmem_status positive(texmem_error *err, unsigned k, const char *name, const char *what, int32_t v) {
  if (v < 1) return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): %s is %d", k, name, what, (int)v);
  return TEXMEM_STATUS_OK;
}

/* Padding, activation and both strides of a windowed operator. */
static texmem_status window(const opt_args *a, uint8_t pad, uint8_t act, texmem_op_options *o) {
  texmem_status s;
  if ((s = padding(a, pad, &o->padding)) || (s = activation(a, act, &o->activation)) ||
      (s = positive(a->err, a->k, a->name, "stride_w", o->stride_w)) ||
      (s = positive(a->err, a->k, a->name, "stride_h", o->stride_h)))
    return s;
  return TEXMEM_STATUS_OK;
}

static texmem_status dilations(const opt_args *a, const texmem_op_options *o) {
  texmem_status s;
  if ((s = positive(a->err, a->k, a->name, "dilation_w", o->dilation_w)) ||
      (s = positive(a->err, a->k, a->name, "dilation_h", o->dilation_h)))
    return s;
  return TEXMEM_STATUS_OK;
}

/* Conv2DOptions (padding, stride_w, stride_h, activation, dilation_w,
 * dilation_h) and DepthwiseConv2DOptions (the same with depth_multiplier
 * after the strides). */
static texmem_status conv_options(const opt_args *a, texmem_op_options *o, bool depthwise) {
  uint8_t pad, act;
  unsigned next = depthwise ? 4 : 3;
  U8(0, pad);
  I32(1, 0, o->stride_w);
  I32(2, 0, o->stride_h);
  if (depthwise) I32(3, 0, o->depth_multiplier);
  U8(next, act);
  I32(next + 1, 1, o->dilation_w);
  I32(next + 2, 1, o->dilation_h);
  texmem_status s = window(a, pad, act, o);
  return s ? s : dilations(a, o);
}

static texmem_status conv_2d(const opt_args *a, texmem_op_options *o) { return conv_options(a, o, false); }
static texmem_status depthwise_conv_2d(const opt_args *a, texmem_op_options *o) { return conv_options(a, o, true); }

/* Pool2DOptions: padding, strides, filter width and height, activation. */
static texmem_status pool_2d(const opt_args *a, texmem_op_options *o) {
  uint8_t pad, act;
  U8(0, pad);
  I32(1, 0, o->stride_w);
  I32(2, 0, o->stride_h);
  I32(3, 0, o->filter_w);
  I32(4, 0, o->filter_h);
  U8(5, act);
  texmem_status s = window(a, pad, act, o);
  if (!s) s = positive(a->err, a->k, a->name, "filter_width", o->filter_w);
  if (!s) s = positive(a->err, a->k, a->name, "filter_height", o->filter_h);
  return s;
}

/* Add/Sub/Mul/DivOptions: the fused activation first. */
static texmem_status arithmetic(const opt_args *a, texmem_op_options *o) {
  uint8_t act;
  U8(0, act);
  return activation(a, act, &o->activation);
}

static texmem_status fully_connected(const opt_args *a, texmem_op_options *o) {
  uint8_t act, fmt, keep;
  U8(0, act);
  U8(1, fmt);
  U8(2, keep);
  texmem_status s = activation(a, act, &o->activation);
  if (s) return s;
  if (fmt != 0)
    return texmem__fail(a->err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %u (%s): weights format %u unsupported",
                        a->k, a->name, fmt);
  o->keep_dims = keep != 0;
  return TEXMEM_STATUS_OK;
}

static texmem_status concatenation(const opt_args *a, texmem_op_options *o) {
  uint8_t act;
  I32(0, 0, o->axis);
  U8(1, act);
  return activation(a, act, &o->activation);
}

/* SoftmaxOptions.beta, LeakyReluOptions.alpha: one float field. Absent
 * (field or table) reads as the schema default 0, as TFLite does. */
static texmem_status float_field(const opt_args *a, const char *what, float *out) {
  uint32_t bits;
  FB(texmem__fb_u32f(a->t, 0, 0, &bits), "operator %u (%s): options", a->k, a->name);
  memcpy(out, &bits, sizeof *out);
  if (!isfinite(*out))
    return texmem__fail(a->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): %s is not finite", a->k, a->name, what);
  return TEXMEM_STATUS_OK;
}

static texmem_status softmax(const opt_args *a, texmem_op_options *o) { return float_field(a, "beta", &o->beta); }
static texmem_status leaky_relu(const opt_args *a, texmem_op_options *o) {
  return float_field(a, "alpha", &o->alpha);
}

/* align_corners and half_pixel_centers at field ids first, first + 1. */
static texmem_status resize_flags(const opt_args *a, unsigned first, texmem_op_options *o) {
  uint8_t ac, hp;
  U8(first, ac);
  U8(first + 1, hp);
  o->align_corners = ac != 0;
  o->half_pixel_centers = hp != 0;
  return TEXMEM_STATUS_OK;
}

static texmem_status resize_nearest(const opt_args *a, texmem_op_options *o) { return resize_flags(a, 0, o); }
/* ResizeBilinearOptions: two deprecated fields first. */
static texmem_status resize_bilinear(const opt_args *a, texmem_op_options *o) { return resize_flags(a, 2, o); }

static texmem_status depth_to_space(const opt_args *a, texmem_op_options *o) {
  I32(0, 0, o->block_size);
  return positive(a->err, a->k, a->name, "block_size", o->block_size);
}

/* ReducerOptions.keep_dims; the axes are the constant second input. */
static texmem_status mean(const opt_args *a, texmem_op_options *o) {
  uint8_t keep;
  U8(0, keep);
  o->keep_dims = keep != 0;
  int64_t axes[TEXMEM_MAX_RANK];
  size_t n;
  texmem_status s = texmem__tfl_const_ints(a->r, a->k, a->name, "axis", a->in[1], axes, TEXMEM_MAX_RANK, &n);
  if (s) return s;
  int64_t rank = a->m->tensors[a->in[0]].rank;
  for (size_t i = 0; i < n; i++) {
    int64_t x = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (x < 0 || x >= rank)
      return texmem__fail(a->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (MEAN): axis %lld out of range", a->k,
                          (long long)axes[i]);
    o->reduce_axes |= 1u << x;
  }
  return TEXMEM_STATUS_OK;
}

/* The paddings are the constant second input, a pair per dimension. */
static texmem_status pad(const opt_args *a, texmem_op_options *o) {
  int64_t p[2 * TEXMEM_MAX_RANK];
  size_t n;
  texmem_status s = texmem__tfl_const_ints(a->r, a->k, a->name, "paddings", a->in[1], p, 2 * TEXMEM_MAX_RANK, &n);
  if (s) return s;
  unsigned rank = a->m->tensors[a->in[0]].rank;
  if (n % 2 || n / 2 != rank)
    return texmem__fail(a->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (PAD): %zu padding values for rank %u", a->k,
                        n, rank);
  for (size_t i = 0; i < n; i++) {
    if (p[i] < 0 || p[i] > INT32_MAX)
      return texmem__fail(a->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (PAD): padding %lld", a->k, (long long)p[i]);
    o->pad[i / 2][i % 2] = (int32_t)p[i];
  }
  o->pad_rank = (unsigned)(n / 2);
  return TEXMEM_STATUS_OK;
}

/* ReshapeOptions.new_shape, else a constant shape input. */
static texmem_status reshape(const opt_args *a, texmem_op_options *o) {
  texmem__fb_vec ns;
  ns.len = 0;
  if (a->have) FB(texmem__fb_vec_field(a->t, 0, 4, &ns), "operator %u (RESHAPE): new_shape", a->k);
  if (ns.len > TEXMEM_MAX_NEW_SHAPE)
    return texmem__fail(a->err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %u (RESHAPE): new_shape rank %u", a->k,
                        ns.len);
  for (uint32_t i = 0; i < ns.len; i++) o->new_shape[i] = texmem__fb_vec_i32(&ns, i);
  o->new_shape_rank = ns.len;
  if (ns.len || a->n_in != 2 || a->in[1] < 0 || !(a->m->tensors[a->in[1]].flags & TEXMEM_TENSOR_CONSTANT))
    return TEXMEM_STATUS_OK;
  int64_t v[TEXMEM_MAX_NEW_SHAPE];
  size_t n;
  texmem_status s = texmem__tfl_const_ints(a->r, a->k, a->name, "shape", a->in[1], v, TEXMEM_MAX_NEW_SHAPE, &n);
  if (s) return s;
  for (size_t i = 0; i < n; i++) {
    if (v[i] < -1 || v[i] > INT32_MAX)
      return texmem__fail(a->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (RESHAPE): shape value %lld", a->k,
                          (long long)v[i]);
    o->new_shape[i] = (int32_t)v[i];
  }
  o->new_shape_rank = (unsigned)n;
  return TEXMEM_STATUS_OK;
}

/* STRIDED_SLICE's begin, end and strides: constant inputs 1..3, one value
 * per dimension. */
static texmem_status slice_vectors(const opt_args *a, texmem_op_options *o) {
  unsigned rank = a->m->tensors[a->in[0]].rank;
  static const char *const what[3] = {"begin", "end", "strides"};
  int32_t *dst[3] = {o->slice_begin, o->slice_end, o->slice_stride};
  for (int i = 0; i < 3; i++) {
    int64_t v[TEXMEM_MAX_RANK];
    size_t n;
    texmem_status s = texmem__tfl_const_ints(a->r, a->k, a->name, what[i], a->in[1 + i], v, TEXMEM_MAX_RANK, &n);
    if (s) return s;
    if (n != rank)
      return texmem__fail(a->err, TEXMEM_STATUS_UNSUPPORTED_OP,
                          "operator %u (STRIDED_SLICE): %zu %s values for rank %u", a->k, n, what[i], rank);
    for (size_t j = 0; j < n; j++) {
      /* Indices beyond int32 are clamped to the axis anyway. */
      int64_t c = v[j] < INT32_MIN ? INT32_MIN : v[j] > INT32_MAX ? INT32_MAX : v[j];
      if (i == 2 && c == 0)
        return texmem__fail(a->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (STRIDED_SLICE): stride of axis %zu is 0",
                            a->k, j);
      if (i == 2 && c == INT32_MIN) c = INT32_MIN + 1; /* negatable */
      dst[i][j] = (int32_t)c;
    }
  }
  o->slice_rank = rank;
  return TEXMEM_STATUS_OK;
}

static texmem_status strided_slice(const opt_args *a, texmem_op_options *o) {
  int32_t ellipsis, new_axis, bm, em, sm;
  uint8_t offset;
  I32(0, 0, bm);
  I32(1, 0, em);
  I32(2, 0, ellipsis);
  I32(3, 0, new_axis);
  I32(4, 0, sm);
  U8(5, offset);
  if (ellipsis || new_axis || offset)
    return texmem__fail(a->err, TEXMEM_STATUS_UNSUPPORTED_OP,
                        "operator %u (STRIDED_SLICE): ellipsis, new-axis masks or offset", a->k);
  o->begin_mask = (uint32_t)bm;
  o->end_mask = (uint32_t)em;
  o->shrink_axis_mask = (uint32_t)sm;
  return slice_vectors(a, o);
}

static texmem_status transpose_conv(const opt_args *a, texmem_op_options *o) {
  uint8_t pad, act;
  U8(0, pad);
  I32(1, 0, o->stride_w);
  I32(2, 0, o->stride_h);
  U8(3, act);
  return window(a, pad, act, o);
}

/* SPLIT (axis, data) and SPLIT_V (data, sizes, axis): num_splits must be
 * the output count; the axis is a constant input. */
static texmem_status split(const opt_args *a, texmem_op_options *o) {
  bool v = a->type == TEXMEM_OP_SPLIT_V;
  I32(0, 0, o->num_splits);
  int32_t data = v ? a->in[0] : a->in[1], axis_in = v ? a->in[2] : a->in[0];
  int64_t x[1];
  size_t n;
  texmem_status s = texmem__tfl_const_ints(a->r, a->k, a->name, "axis", axis_in, x, 1, &n);
  if (s) return s;
  int64_t rank = a->m->tensors[data].rank;
  int64_t ax = n == 1 && x[0] < 0 ? x[0] + rank : n == 1 ? x[0] : -1;
  if (ax < 0 || ax >= rank)
    return texmem__fail(a->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): axis %lld for rank %lld", a->k, a->name,
                        n == 1 ? (long long)x[0] : 0LL, (long long)rank);
  o->axis = (int32_t)ax;
  if (o->num_splits != (int32_t)a->n_out)
    return texmem__fail(a->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): num_splits %d, %u outputs", a->k,
                        a->name, (int)o->num_splits, a->n_out);
  return TEXMEM_STATUS_OK;
}

static const texmem__op_spec specs[] = {
    {TFL_CONV_2D, TEXMEM_OP_CONV_2D, TFLO_CONV_2D, 2, 3, conv_2d},
    {TFL_DEPTHWISE_CONV_2D, TEXMEM_OP_DEPTHWISE_CONV_2D, TFLO_DEPTHWISE_CONV_2D, 2, 3, depthwise_conv_2d},
    {TFL_ADD, TEXMEM_OP_ADD, TFLO_ADD, 2, 2, arithmetic},
    {TFL_MUL, TEXMEM_OP_MUL, TFLO_MUL, 2, 2, arithmetic},
    {TFL_RELU, TEXMEM_OP_RELU, TFLO_NONE, 1, 1, NULL},
    {TFL_RELU6, TEXMEM_OP_RELU6, TFLO_NONE, 1, 1, NULL},
    {TFL_LOGISTIC, TEXMEM_OP_LOGISTIC, TFLO_NONE, 1, 1, NULL},
    {TFL_HARD_SWISH, TEXMEM_OP_HARD_SWISH, TFLO_HARD_SWISH, 1, 1, NULL},
    {TFL_PAD, TEXMEM_OP_PAD, TFLO_PAD, 2, 2, pad},
    {TFL_MAX_POOL_2D, TEXMEM_OP_MAX_POOL_2D, TFLO_POOL_2D, 1, 1, pool_2d},
    {TFL_AVERAGE_POOL_2D, TEXMEM_OP_AVERAGE_POOL_2D, TFLO_POOL_2D, 1, 1, pool_2d},
    {TFL_MEAN, TEXMEM_OP_MEAN, TFLO_REDUCER, 2, 2, mean},
    {TFL_RESIZE_BILINEAR, TEXMEM_OP_RESIZE_BILINEAR, TFLO_RESIZE_BILINEAR, 2, 2, resize_bilinear},
    {TFL_CONCATENATION, TEXMEM_OP_CONCATENATION, TFLO_CONCATENATION, 1, UINT32_MAX, concatenation},
    {TFL_RESHAPE, TEXMEM_OP_RESHAPE, TFLO_RESHAPE, 1, 2, reshape},
    {TFL_FULLY_CONNECTED, TEXMEM_OP_FULLY_CONNECTED, TFLO_FULLY_CONNECTED, 2, 3, fully_connected},
    {TFL_DEPTH_TO_SPACE, TEXMEM_OP_DEPTH_TO_SPACE, TFLO_DEPTH_TO_SPACE, 1, 1, depth_to_space},
    {TFL_PRELU, TEXMEM_OP_PRELU, TFLO_NONE, 2, 2, NULL},
    {TFL_SOFTMAX, TEXMEM_OP_SOFTMAX, TFLO_SOFTMAX, 1, 1, softmax},
    {TFL_TANH, TEXMEM_OP_TANH, TFLO_NONE, 1, 1, NULL},
    {TFL_SUB, TEXMEM_OP_SUB, TFLO_SUB, 2, 2, arithmetic},
    {TFL_DIV, TEXMEM_OP_DIV, TFLO_DIV, 2, 2, arithmetic},
    {TFL_MAXIMUM, TEXMEM_OP_MAXIMUM, TFLO_MAXIMUM_MINIMUM, 2, 2, NULL},
    {TFL_MINIMUM, TEXMEM_OP_MINIMUM, TFLO_MAXIMUM_MINIMUM, 2, 2, NULL},
    {TFL_LEAKY_RELU, TEXMEM_OP_LEAKY_RELU, TFLO_LEAKY_RELU, 1, 1, leaky_relu},
    {TFL_RESIZE_NEAREST_NEIGHBOR, TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR, TFLO_RESIZE_NEAREST_NEIGHBOR, 2, 2,
     resize_nearest},
    {TFL_STRIDED_SLICE, TEXMEM_OP_STRIDED_SLICE, TFLO_STRIDED_SLICE, 4, 4, strided_slice},
    {TFL_TRANSPOSE_CONV, TEXMEM_OP_TRANSPOSE_CONV, TFLO_TRANSPOSE_CONV, 3, 4, transpose_conv},
    {TFL_SPLIT, TEXMEM_OP_SPLIT, TFLO_SPLIT, 2, 2, split},
    {TFL_SPLIT_V, TEXMEM_OP_SPLIT_V, TFLO_SPLIT_V, 3, 3, split},
};

const texmem__op_spec *texmem__tflite_builtin_spec(int32_t code) {
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
    if (specs[i].code == code) return &specs[i];
  return NULL;
}

texmem_status texmem__tflite_builtin_options(texmem__tfl_reader *r, const texmem_model *m, unsigned k,
                                             const texmem__op_spec *sp, const texmem__fb_table *ot,
                                             const int32_t *in, uint32_t n_in, uint32_t n_out,
                                             texmem_op_options *o, texmem_error *err) {
  const char *name = texmem_op_type_name(sp->type);
  uint8_t utype;
  texmem__fb_table t;
  bool have = false;
  TEXMEM__FB_TRY(err, texmem__fb_u8(ot, OP_BUILTIN_TYPE, 0, &utype), "operator %u (%s): options type", k, name);
  if (utype != TFLO_NONE && utype != sp->options)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): options are union member %u, expected %u",
                        k, name, utype, sp->options);
  if (utype != TFLO_NONE)
    TEXMEM__FB_TRY(err, texmem__fb_table_field(ot, OP_BUILTIN, &t, &have), "operator %u (%s): options table", k,
                   name);
  /* Absent options read as schema defaults: a table whose 4-byte vtable
   * lists no field (field lookups never touch its bytes). */
  static const uint8_t empty_bytes[4] = {0};
  static const texmem__fb empty_fb = {empty_bytes, 4};
  if (!have) t = (texmem__fb_table){&empty_fb, 0, 0, 4, 4, 0};
  if (!sp->parse) return TEXMEM_STATUS_OK;
  opt_args a = {r, m, err, k, name, &t, have, sp->type, in, n_in, n_out};
  return sp->parse(&a, o);
}

/* ---- custom operators ---- */

static const char custom_transpose_conv[] = "Convolution2DTransposeBias";

/* MediaPipe's custom operators, in the version implemented (2). */
typedef struct mp_spec {
  const char *name;
  int32_t version;
  texmem__op_spec spec;
} mp_spec;

static const mp_spec mp_specs[] = {
    {TEXMEM__MP_L2TM_NAME, 2, {TFL_CUSTOM, TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX, TFLO_NONE, 1, 1, NULL}},
    {TEXMEM__MP_TTB_NAME, 2, {TFL_CUSTOM, TEXMEM_OP_TRANSFORM_TENSOR_BILINEAR, TFLO_NONE, 2, 2, NULL}},
    {TEXMEM__MP_TL_NAME, 2, {TFL_CUSTOM, TEXMEM_OP_TRANSFORM_LANDMARKS, TFLO_NONE, 2, 2, NULL}},
};
static const texmem__op_spec transpose_conv_bias = {TFL_CUSTOM, TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS, TFLO_NONE, 3, 3,
                                                    NULL};

const texmem__op_spec *texmem__tflite_custom_spec(const char *custom, int32_t version, bool *other_version) {
  *other_version = false;
  if (strcmp(custom, custom_transpose_conv) == 0) return &transpose_conv_bias;
  for (size_t i = 0; i < sizeof mp_specs / sizeof mp_specs[0]; i++) {
    if (strcmp(custom, mp_specs[i].name) != 0) continue;
    if (mp_specs[i].version == version) return &mp_specs[i].spec;
    *other_version = true;
  }
  return NULL;
}

/* MediaPipe's Convolution2DTransposeBias keeps TfLiteTransposeConvParams as
 * raw bytes: int32 padding (1 SAME, 2 VALID), stride_w, stride_h. */
static texmem_status transpose_conv_bias_options(unsigned k, const uint8_t *opt, size_t n, texmem_op_options *o,
                                                 texmem_error *err) {
  const char *name = custom_transpose_conv;
  if (n < 12)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): custom options are %zu bytes, expected 12",
                        k, name, n);
  int32_t pad_v = (int32_t)texmem__fb_u32(opt);
  o->stride_w = (int32_t)texmem__fb_u32(opt + 4);
  o->stride_h = (int32_t)texmem__fb_u32(opt + 8);
  if (pad_v != 1 && pad_v != 2)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %u (%s): padding %d unsupported", k, name,
                        (int)pad_v);
  o->padding = pad_v == 2 ? TEXMEM_PADDING_VALID : TEXMEM_PADDING_SAME;
  texmem_status s;
  if ((s = positive(err, k, name, "stride_w", o->stride_w)) || (s = positive(err, k, name, "stride_h", o->stride_h)))
    return s;
  return TEXMEM_STATUS_OK;
}

/* Checks MediaPipe's FlexBuffers options now, so a hostile map is a load
 * error naming the operator; the kernels parse them again when they run. */
static texmem_status mediapipe_options(unsigned k, texmem_op_type type, const uint8_t *opt, size_t n,
                                       texmem_error *err) {
  texmem_error inner;
  memset(&inner, 0, sizeof inner);
  texmem_status s = TEXMEM_STATUS_OK;
  if (type == TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX) {
    texmem__mp_l2tm *l = malloc(sizeof *l);
    if (!l) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "operator %u: no memory", k);
    s = texmem__mp_parse_l2tm(opt, n, l, &inner);
    free(l);
  } else if (type == TEXMEM_OP_TRANSFORM_TENSOR_BILINEAR) {
    texmem__mp_ttb t;
    s = texmem__mp_parse_ttb(opt, n, &t, &inner);
  }
  if (s) return texmem__fail(err, s, "operator %u: %s", k, inner.message);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__tflite_custom_options(unsigned k, const texmem__op_spec *sp, const uint8_t *opt, size_t n,
                                            texmem_op_options *o, texmem_error *err) {
  if (sp->type == TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS) return transpose_conv_bias_options(k, opt, n, o, err);
  return mediapipe_options(k, sp->type, opt, n, err);
}

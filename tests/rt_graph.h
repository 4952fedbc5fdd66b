/* Small graphs for the runtime's tests: one helper an operator, each
 * adding its output tensor to an rt_mb model (rt_support.h) and returning
 * it; weights and constants come from g_seed, one sequence a test
 * program. */
#ifndef TEXMEM_TESTS_RT_GRAPH_H
#define TEXMEM_TESTS_RT_GRAPH_H

#include "rt_support.h"

static uint64_t g_seed = 11; /* of the constants below */

/* A constant of this shape, values uniform in [lo, hi]. */
static inline int32_t constant(rt_mb *b, unsigned rank, const int32_t *shape, float lo, float hi) {
  size_t n = 1;
  for (unsigned i = 0; i < rank; i++) n *= (size_t)shape[i];
  float *v = malloc(n * sizeof *v);
  cr_assert_not_null(v);
  for (size_t i = 0; i < n; i++)
    v[i] = lo + (hi - lo) * (float)(tt_rand(&g_seed) % 10001) / 10000.0f;
  int32_t t;
  TG_OK(texmem_model_add_constant(b->m, NULL, TEXMEM_DTYPE_FLOAT32, rank, shape, v, n * sizeof *v,
                                  &t, &tg_err_));
  free(v);
  return t;
}

/* MAX_POOL_2D of x, k x k window, stride s. */
static inline int32_t max_pool(rt_mb *b, int32_t x, int32_t k, int32_t s, texmem_padding padding,
                               texmem_activation act) {
  const texmem_tensor *t = texmem_model_tensor(b->m, (size_t)x);
  int32_t h = (int32_t)t->h, w = (int32_t)t->w;
  int32_t shape[4] = {
      (int32_t)t->b, padding == TEXMEM_PADDING_SAME ? (h + s - 1) / s : (h - k) / s + 1,
      padding == TEXMEM_PADDING_SAME ? (w + s - 1) / s : (w - k) / s + 1, (int32_t)t->c};
  int32_t y = rt_mb_tensor(b, 4, shape);
  texmem_op_options o = texmem_op_options_default();
  o.stride_w = o.stride_h = s;
  o.filter_w = o.filter_h = k;
  o.padding = padding;
  o.activation = act;
  rt_mb_op(b, TEXMEM_OP_MAX_POOL_2D, &x, 1, y, &o);
  return y;
}

/* A convolution of x (CONV_2D k x k, or DEPTHWISE_CONV_2D with multiplier
 * mult when cout is 0) with stride s, padding, activation act. */
static inline int32_t conv_padded(rt_mb *b, int32_t x, int32_t k, int32_t s, int32_t cout,
                                  int32_t mult, texmem_activation act, texmem_padding padding) {
  const texmem_tensor *t = texmem_model_tensor(b->m, (size_t)x);
  /* Copied: adding tensors may move the model's tensor array. */
  int32_t xb = (int32_t)t->b, xh = (int32_t)t->h, xw = (int32_t)t->w;
  int32_t cin = (int32_t)t->c, oc = cout ? cout : cin * mult;
  int32_t ws[4] = {cout ? cout : 1, k, k, cout ? cin : oc}, bs = oc;
  float a = 1.5f / sqrtf((float)(k * k * (cout ? cin : 1)));
  int32_t w = constant(b, 4, ws, -a, a), bias = constant(b, 1, &bs, -0.5f, 0.5f);
  bool same = padding == TEXMEM_PADDING_SAME;
  int32_t ys[4] = {xb, same ? (xh + s - 1) / s : (xh - k) / s + 1,
                   same ? (xw + s - 1) / s : (xw - k) / s + 1, oc};
  int32_t y = rt_mb_tensor(b, 4, ys), ins[3] = {x, w, bias};
  texmem_op_options o = texmem_op_options_default();
  o.padding = padding;
  o.stride_w = o.stride_h = s;
  o.activation = act;
  o.depth_multiplier = cout ? 0 : mult;
  rt_mb_op(b, cout ? TEXMEM_OP_CONV_2D : TEXMEM_OP_DEPTHWISE_CONV_2D, ins, 3, y, &o);
  return y;
}

/* The same, SAME padding. */
static inline int32_t conv(rt_mb *b, int32_t x, int32_t k, int32_t s, int32_t cout, int32_t mult,
                           texmem_activation act) {
  return conv_padded(b, x, k, s, cout, mult, act, TEXMEM_PADDING_SAME);
}

/* op(a) or op(a, o) into a new tensor of a's shape. */
static inline int32_t ew(rt_mb *b, texmem_op_type op, int32_t a, int32_t o, bool o_first,
                         texmem_activation act) {
  const texmem_tensor *t = texmem_model_tensor(b->m, (size_t)a);
  int32_t shape[4] = {(int32_t)t->b, (int32_t)t->h, (int32_t)t->w, (int32_t)t->c};
  int32_t y = rt_mb_tensor(b, 4, shape);
  texmem_op_options opt = texmem_op_options_default();
  opt.activation = act;
  opt.alpha = 0.2f;
  int32_t ins[2] = {o_first ? o : a, o_first ? a : o};
  rt_mb_op(b, op, ins, o < -1 ? 1 : 2, y, &opt);
  return y;
}
#define UNARY -2 /* ew's o for a unary operator */

/* A graph input of shape (batch, h, w, c) as a planned tensor. */
static inline int32_t input(rt_mb *b, int32_t batch, int32_t h, int32_t w, int32_t c) {
  int32_t s[4] = {batch, h, w, c};
  return rt_mb_input(b, 4, s);
}

/* PAD of x with `after` zero channels after its own (or, spatial, rows
 * after its last). */
static inline int32_t pad(rt_mb *b, int32_t x, int32_t after, bool spatial) {
  const texmem_tensor *t = texmem_model_tensor(b->m, (size_t)x);
  int32_t shape[4] = {(int32_t)t->b, (int32_t)t->h, (int32_t)t->w, (int32_t)t->c};
  shape[spatial ? 1 : 3] += after;
  int32_t y = rt_mb_tensor(b, 4, shape);
  texmem_op_options o = texmem_op_options_default();
  o.pad_rank = 4;
  o.pad[spatial ? 1 : 3][1] = after;
  rt_mb_op(b, TEXMEM_OP_PAD, &x, 1, y, &o);
  return y;
}

/* RESHAPE of x to (rank, shape). */
static inline int32_t reshape(rt_mb *b, int32_t x, unsigned rank, const int32_t *shape) {
  int32_t y = rt_mb_tensor(b, rank, shape);
  rt_mb_op(b, TEXMEM_OP_RESHAPE, &x, 1, y, NULL);
  return y;
}

/* CONCATENATION of n tensors along axis. */
static inline int32_t concat(rt_mb *b, const int32_t *ins, size_t n, int32_t axis) {
  const texmem_tensor *t = texmem_model_tensor(b->m, (size_t)ins[0]);
  unsigned rank = t->rank;
  int32_t shape[TEXMEM_MAX_RANK];
  memcpy(shape, t->shape, sizeof shape);
  for (size_t i = 1; i < n; i++)
    shape[axis] += texmem_model_tensor(b->m, (size_t)ins[i])->shape[axis];
  int32_t y = rt_mb_tensor(b, rank, shape);
  texmem_op_options o = texmem_op_options_default();
  o.axis = axis;
  rt_mb_op(b, TEXMEM_OP_CONCATENATION, ins, n, y, &o);
  return y;
}

/* RESIZE_BILINEAR of x to oh x ow. */
static inline int32_t resize(rt_mb *b, int32_t x, int32_t oh, int32_t ow, bool ac, bool hp) {
  const texmem_tensor *t = texmem_model_tensor(b->m, (size_t)x);
  int32_t os[4] = {(int32_t)t->b, oh, ow, (int32_t)t->c}, y = rt_mb_tensor(b, 4, os);
  const int32_t two = 2, size[2] = {oh, ow};
  int32_t sz;
  TG_OK(texmem_model_add_constant(b->m, NULL, TEXMEM_DTYPE_INT32, 1, &two, size, sizeof size, &sz,
                                  &tg_err_));
  texmem_op_options o = texmem_op_options_default();
  o.align_corners = ac;
  o.half_pixel_centers = hp;
  int32_t ins[2] = {x, sz};
  rt_mb_op(b, TEXMEM_OP_RESIZE_BILINEAR, ins, 2, y, &o);
  return y;
}

/* A global pool of x to one pixel: AVERAGE_POOL_2D (0) or MAX_POOL_2D (1)
 * of the whole plane with activation act, or MEAN over H and W (2). */
static inline int32_t global_pool(rt_mb *b, int32_t x, int kind, texmem_activation act) {
  const texmem_tensor *t = texmem_model_tensor(b->m, (size_t)x);
  int32_t shape[4] = {(int32_t)t->b, 1, 1, (int32_t)t->c};
  texmem_op_options o = texmem_op_options_default();
  o.filter_w = (int32_t)t->w;
  o.filter_h = (int32_t)t->h;
  o.padding = TEXMEM_PADDING_VALID;
  o.activation = act;
  o.reduce_axes = 6;
  o.keep_dims = true;
  int32_t y = rt_mb_tensor(b, 4, shape);
  rt_mb_op(b,
           kind == 2 ? TEXMEM_OP_MEAN
           : kind    ? TEXMEM_OP_MAX_POOL_2D
                     : TEXMEM_OP_AVERAGE_POOL_2D,
           &x, 1, y, &o);
  return y;
}

/* PAD of x with zero rows (top, bottom) and columns (left, right). */
static inline int32_t pad_plane(rt_mb *b, int32_t x, int32_t top, int32_t bottom, int32_t left,
                                int32_t right) {
  const texmem_tensor *t = texmem_model_tensor(b->m, (size_t)x);
  int32_t shape[4] = {(int32_t)t->b, (int32_t)t->h + top + bottom, (int32_t)t->w + left + right,
                      (int32_t)t->c};
  int32_t y = rt_mb_tensor(b, 4, shape);
  texmem_op_options o = texmem_op_options_default();
  o.pad_rank = 4;
  o.pad[1][0] = top;
  o.pad[1][1] = bottom;
  o.pad[2][0] = left;
  o.pad[2][1] = right;
  rt_mb_op(b, TEXMEM_OP_PAD, &x, 1, y, &o);
  return y;
}

/* FULLY_CONNECTED of x (rows of its last `depth` values) to n outputs. */
static inline int32_t fully_connected(rt_mb *b, int32_t x, int32_t depth, int32_t n, int32_t rows) {
  int32_t ws[2] = {n, depth}, bs = n, ys[2] = {rows, n};
  int32_t w = constant(b, 2, ws, -0.5f, 0.5f), bias = constant(b, 1, &bs, -0.5f, 0.5f);
  int32_t y = rt_mb_tensor(b, 2, ys), ins[3] = {x, w, bias};
  rt_mb_op(b, TEXMEM_OP_FULLY_CONNECTED, ins, 3, y, NULL);
  return y;
}

/* DEPTH_TO_SPACE of x, block bs. */
static inline int32_t depth_to_space(rt_mb *b, int32_t x, int32_t bs) {
  const texmem_tensor *t = texmem_model_tensor(b->m, (size_t)x);
  int32_t shape[4] = {(int32_t)t->b, (int32_t)t->h * bs, (int32_t)t->w * bs,
                      (int32_t)t->c / (bs * bs)};
  int32_t y = rt_mb_tensor(b, 4, shape);
  texmem_op_options o = texmem_op_options_default();
  o.block_size = bs;
  rt_mb_op(b, TEXMEM_OP_DEPTH_TO_SPACE, &x, 1, y, &o);
  return y;
}

/* STRIDED_SLICE of x: channels c0 .. c0 + c of rows 0 .. rows (0: all). */
static inline int32_t slice_channels(rt_mb *b, int32_t x, int32_t c0, int32_t c, int32_t rows) {
  const texmem_tensor *t = texmem_model_tensor(b->m, (size_t)x);
  int32_t shape[4] = {(int32_t)t->b, rows ? rows : (int32_t)t->h, (int32_t)t->w, c};
  int32_t y = rt_mb_tensor(b, 4, shape);
  texmem_op_options o = texmem_op_options_default();
  o.slice_rank = 4;
  for (int i = 0; i < 4; i++) {
    o.slice_begin[i] = i == 3 ? c0 : 0;
    o.slice_end[i] = i == 3 ? c0 + c : shape[i];
    o.slice_stride[i] = 1;
  }
  rt_mb_op(b, TEXMEM_OP_STRIDED_SLICE, &x, 1, y, &o);
  return y;
}

/* A transposed convolution of x, kernel k, stride 2, SAME padding: MediaPipe's
 * Convolution2DTransposeBias, or (builtin) TFLite's TRANSPOSE_CONV with
 * activation act, its output size given. */
static inline int32_t transpose_conv(rt_mb *b, int32_t x, int32_t k, int32_t cout, bool builtin,
                                     texmem_activation act) {
  const texmem_tensor *t = texmem_model_tensor(b->m, (size_t)x);
  int32_t xb = (int32_t)t->b, xh = (int32_t)t->h, xw = (int32_t)t->w, cin = (int32_t)t->c;
  int32_t ws[4] = {cout, k, k, cin}, bs = cout;
  float a = 1.5f / sqrtf((float)(k * k * cin));
  int32_t w = constant(b, 4, ws, -a, a), bias = constant(b, 1, &bs, -0.5f, 0.5f);
  int32_t ph = k - (xh - 1) % 2 - 1, pw = k - (xw - 1) % 2 - 1;
  int32_t ys[4] = {xb, 2 * (xh - 1) + k - (ph > 0 ? ph : 0), 2 * (xw - 1) + k - (pw > 0 ? pw : 0),
                   cout};
  if (builtin) ys[1] = 2 * xh, ys[2] = 2 * xw;
  int32_t y = rt_mb_tensor(b, 4, ys);
  texmem_op_options o = texmem_op_options_default();
  o.stride_w = o.stride_h = 2;
  if (builtin) {
    int32_t four = 4, shape;
    TG_OK(texmem_model_add_constant(b->m, NULL, TEXMEM_DTYPE_INT32, 1, &four, ys, sizeof ys, &shape,
                                    &tg_err_));
    o.padding = TEXMEM_PADDING_SAME;
    o.activation = act;
    int32_t ins[4] = {shape, w, x, bias};
    rt_mb_op(b, TEXMEM_OP_TRANSPOSE_CONV, ins, 4, y, &o);
  } else {
    static uint8_t opts[12] = {1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0}; /* SAME, stride 2 x 2 */
    o.custom_name = "Convolution2DTransposeBias";
    o.custom_options = opts;
    o.custom_options_size = sizeof opts;
    int32_t ins[3] = {x, w, bias};
    rt_mb_op(b, TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS, ins, 3, y, &o);
  }
  return y;
}

#endif

/* CPU reference operators on tiny hand-computed cases. */
#include <math.h>
#include <string.h>

#include "reference.h"
#include "support.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static texmem_ref_tensor T(float *data, unsigned rank, int32_t s0, int32_t s1, int32_t s2,
                           int32_t s3) {
  int32_t s[4] = {s0, s1, s2, s3};
  return texmem_ref_make(data, rank, s);
}

/* Runs one op into a fresh buffer of the given output shape and compares
 * with want (n values) to tol. */
static void check_op(texmem_op_type type, const texmem_op_options *o, texmem_ref_tensor *in,
                     size_t n_in, texmem_ref_tensor out_shape, const float *want, size_t n,
                     float tol) {
  cr_assert_eq(texmem_ref_count(&out_shape), n, "%s: expected %zu values for the output shape",
               texmem_op_type_name(type), n);
  float buf[256];
  cr_assert(n <= N(buf));
  for (size_t i = 0; i < N(buf); i++) buf[i] = NAN;
  out_shape.data = buf;
  texmem_error err = {0};
  texmem_status s = texmem_ref_op(type, o, in, n_in, &out_shape, &err);
  cr_assert_eq(s, TEXMEM_STATUS_OK, "%s: %s: %s", texmem_op_type_name(type),
               texmem_status_name(s), err.message);
  for (size_t i = 0; i < n; i++)
    cr_assert(fabsf(buf[i] - want[i]) <= tol, "%s: value %zu is %g, expected %g",
              texmem_op_type_name(type), i, (double)buf[i], (double)want[i]);
}

static texmem_status try_op(texmem_op_type type, const texmem_op_options *o,
                            texmem_ref_tensor *in, size_t n_in, texmem_ref_tensor out_shape) {
  float buf[256];
  out_shape.data = buf;
  texmem_error err = {0};
  texmem_status s = texmem_ref_op(type, o, in, n_in, &out_shape, &err);
  if (s) cr_assert(err.message[0] != 0, "failure without a message");
  return s;
}

Test(reference, geometry_same_valid) {
  /* SAME: ceil(in/stride); extra odd padding goes after. */
  cr_assert_eq(texmem_ref_out_size(TEXMEM_PADDING_SAME, 5, 3, 2, 1), 3);
  cr_assert_eq(texmem_ref_pad_before(5, 3, 3, 2, 1), 1);
  cr_assert_eq(texmem_ref_out_size(TEXMEM_PADDING_SAME, 6, 3, 2, 1), 3);
  cr_assert_eq(texmem_ref_pad_before(6, 3, 3, 2, 1), 0);
  cr_assert_eq(texmem_ref_out_size(TEXMEM_PADDING_SAME, 224, 3, 2, 1), 112);
  cr_assert_eq(texmem_ref_pad_before(224, 112, 3, 2, 1), 0);
  cr_assert_eq(texmem_ref_out_size(TEXMEM_PADDING_SAME, 1, 3, 1, 1), 1);
  cr_assert_eq(texmem_ref_pad_before(1, 1, 3, 1, 1), 1);
  cr_assert_eq(texmem_ref_out_size(TEXMEM_PADDING_SAME, 7, 3, 1, 2), 7);
  cr_assert_eq(texmem_ref_pad_before(7, 7, 3, 1, 2), 2);
  /* VALID: windows that fit. */
  cr_assert_eq(texmem_ref_out_size(TEXMEM_PADDING_VALID, 5, 3, 2, 1), 2);
  cr_assert_eq(texmem_ref_out_size(TEXMEM_PADDING_VALID, 7, 3, 1, 2), 3);
  cr_assert_eq(texmem_ref_out_size(TEXMEM_PADDING_VALID, 2, 3, 1, 1), 0);
  cr_assert_eq(texmem_ref_out_size(TEXMEM_PADDING_VALID, 7, 7, 1, 1), 1);
  cr_assert_eq(texmem_ref_pad_before(5, 2, 3, 2, 1), 0);
}

static float x9[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static float ones9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

Test(reference, conv2d_same_valid_stride) {
  texmem_op_options o = texmem_op_options_default();
  float bias[1] = {1};
  texmem_ref_tensor in[3] = {T(x9, 4, 1, 3, 3, 1), T(ones9, 4, 1, 3, 3, 1), T(bias, 1, 1, 0, 0, 0)};
  float same[9] = {13, 22, 17, 28, 46, 34, 25, 40, 29};
  check_op(TEXMEM_OP_CONV_2D, &o, in, 3, T(NULL, 4, 1, 3, 3, 1), same, 9, 0);
  o.padding = TEXMEM_PADDING_VALID;
  float valid[1] = {46};
  check_op(TEXMEM_OP_CONV_2D, &o, in, 3, T(NULL, 4, 1, 1, 1, 1), valid, 1, 0);
  /* Stride 2 SAME on 3x3: 2x2 output, one row/column of padding before. */
  o.padding = TEXMEM_PADDING_SAME;
  o.stride_h = o.stride_w = 2;
  float s2[4] = {12, 16, 24, 28};
  check_op(TEXMEM_OP_CONV_2D, &o, in, 2, T(NULL, 4, 1, 2, 2, 1), s2, 4, 0);
  /* A wrong output shape is refused. */
  cr_assert_eq(try_op(TEXMEM_OP_CONV_2D, &o, in, 2, T(NULL, 4, 1, 3, 3, 1)),
               TEXMEM_STATUS_INVALID_ARGUMENT);
}

Test(reference, conv2d_channels_activation_width1_dilation) {
  /* 1x1 conv, 3 input channels -> 2 outputs, bias, fused activations. */
  float x[6] = {1, 2, 3, 4, 5, 6};
  float w[6] = {1, 0, -1, 0.5f, 0.5f, 0.5f};
  float b[2] = {0, -1};
  texmem_ref_tensor in[3] = {T(x, 4, 1, 1, 2, 3), T(w, 4, 2, 1, 1, 3), T(b, 1, 2, 0, 0, 0)};
  texmem_op_options o = texmem_op_options_default();
  float none[4] = {-2, 2, -2, 6.5f};
  check_op(TEXMEM_OP_CONV_2D, &o, in, 3, T(NULL, 4, 1, 1, 2, 2), none, 4, 0);
  o.activation = TEXMEM_ACT_RELU;
  float relu[4] = {0, 2, 0, 6.5f};
  check_op(TEXMEM_OP_CONV_2D, &o, in, 3, T(NULL, 4, 1, 1, 2, 2), relu, 4, 0);
  o.activation = TEXMEM_ACT_RELU6;
  float relu6[4] = {0, 2, 0, 6};
  check_op(TEXMEM_OP_CONV_2D, &o, in, 3, T(NULL, 4, 1, 1, 2, 2), relu6, 4, 0);
  /* Width 1: a 3x3 kernel over a 3x1 column. */
  float col[3] = {1, 2, 3};
  texmem_ref_tensor cin[2] = {T(col, 4, 1, 3, 1, 1), T(ones9, 4, 1, 3, 3, 1)};
  texmem_op_options d = texmem_op_options_default();
  float cw[3] = {3, 6, 5};
  check_op(TEXMEM_OP_CONV_2D, &d, cin, 2, T(NULL, 4, 1, 3, 1, 1), cw, 3, 0);
  /* Dilation 2 along a 1x5 row, 1x3 kernel. */
  float row[5] = {1, 2, 3, 4, 5};
  texmem_ref_tensor rin[2] = {T(row, 4, 1, 1, 5, 1), T(ones9, 4, 1, 1, 3, 1)};
  d.dilation_w = 2;
  float dsame[5] = {4, 6, 9, 6, 8};
  check_op(TEXMEM_OP_CONV_2D, &d, rin, 2, T(NULL, 4, 1, 1, 5, 1), dsame, 5, 0);
  d.padding = TEXMEM_PADDING_VALID;
  float dvalid[1] = {9};
  check_op(TEXMEM_OP_CONV_2D, &d, rin, 2, T(NULL, 4, 1, 1, 1, 1), dvalid, 1, 0);
}

Test(reference, depthwise_multiplier) {
  /* 2x2x2 input, multiplier 2: out channels 0,1 read channel 0; 2,3 read 1. */
  float x[8] = {1, 10, 2, 20, 3, 30, 4, 40};
  /* weights [1,2,2,4]: w[ky][kx][oc] */
  float w[16] = {1, 1, 0.5f, 0, /* (0,0) */ 1, 0, 0.5f, 0, /* (0,1) */
                 1, 0, 0.5f, 0, /* (1,0) */ 1, 0, 0.5f, 1 /* (1,1) */};
  float b[4] = {0, 0, 0, 1};
  texmem_ref_tensor in[3] = {T(x, 4, 1, 2, 2, 2), T(w, 4, 1, 2, 2, 4), T(b, 1, 4, 0, 0, 0)};
  texmem_op_options o = texmem_op_options_default();
  o.depth_multiplier = 2;
  o.padding = TEXMEM_PADDING_VALID;
  float valid[4] = {10, 1, 50, 41};
  check_op(TEXMEM_OP_DEPTHWISE_CONV_2D, &o, in, 3, T(NULL, 4, 1, 1, 1, 4), valid, 4, 0);
  o.padding = TEXMEM_PADDING_SAME; /* k=2: the one padding row/column goes after */
  float same[16] = {10, 1, 50, 41, 6, 2, 30, 1, 7, 3, 35, 1, 4, 4, 20, 1};
  check_op(TEXMEM_OP_DEPTHWISE_CONV_2D, &o, in, 3, T(NULL, 4, 1, 2, 2, 4), same, 16, 0);
  o.depth_multiplier = 3;
  cr_assert_eq(try_op(TEXMEM_OP_DEPTHWISE_CONV_2D, &o, in, 3, T(NULL, 4, 1, 2, 2, 4)),
               TEXMEM_STATUS_INVALID_ARGUMENT);
}

Test(reference, transpose_conv_bias) {
  /* Kernel 2, stride 2, SAME: each input pixel fills a 2x2 block. */
  float x[4] = {1, 2, 3, 4};
  float w4[4] = {1, 1, 1, 1};
  float b[1] = {0.5f};
  uint8_t opts[12] = {1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0}; /* SAME, stride_w 2, stride_h 2 */
  texmem_op_options o = texmem_op_options_default();
  o.custom_options = opts;
  o.custom_options_size = sizeof opts;
  texmem_ref_tensor in[3] = {T(x, 4, 1, 2, 2, 1), T(w4, 4, 1, 2, 2, 1), T(b, 1, 1, 0, 0, 0)};
  float blocks[16] = {1.5f, 1.5f, 2.5f, 2.5f, 1.5f, 1.5f, 2.5f, 2.5f,
                      3.5f, 3.5f, 4.5f, 4.5f, 3.5f, 3.5f, 4.5f, 4.5f};
  check_op(TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS, &o, in, 3, T(NULL, 4, 1, 4, 4, 1), blocks, 16, 0);
  /* Kernel 3, stride 2 over a 1x2 input. SAME: total padding max(0, k-(in-1)%s-1) =
   * 2 rows (1 before), 1 column (0 before); output 1x4, overlapping columns add. */
  float x2[2] = {1, 10};
  float w9[9] = {100, 100, 100, 1, 2, 3, 100, 100, 100};
  texmem_ref_tensor in2[3] = {T(x2, 4, 1, 1, 2, 1), T(w9, 4, 1, 3, 3, 1), T(b, 1, 1, 0, 0, 0)};
  float same[4] = {1.5f, 2.5f, 13.5f, 20.5f};
  check_op(TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS, &o, in2, 3, T(NULL, 4, 1, 1, 4, 1), same, 4, 0);
  opts[0] = 2; /* VALID: 3x5 output, no padding */
  float valid[15] = {100.5f, 100.5f, 1100.5f, 1000.5f, 1000.5f, 1.5f, 2.5f, 13.5f,
                     20.5f, 30.5f, 100.5f, 100.5f, 1100.5f, 1000.5f, 1000.5f};
  check_op(TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS, &o, in2, 3, T(NULL, 4, 1, 3, 5, 1), valid, 15, 0);
  opts[0] = 7;
  cr_assert_eq(try_op(TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS, &o, in2, 3, T(NULL, 4, 1, 3, 5, 1)),
               TEXMEM_STATUS_UNSUPPORTED_OP);
  /* Without custom bytes the generic options are used. */
  texmem_op_options g = texmem_op_options_default();
  g.stride_w = g.stride_h = 2;
  check_op(TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS, &g, in, 3, T(NULL, 4, 1, 4, 4, 1), blocks, 16, 0);
}

Test(reference, fully_connected) {
  float x[6] = {1, 2, 3, 4, 5, 6};
  float w[6] = {1, 0, 0, 1, 1, 1};
  float b[2] = {0.5f, -0.5f};
  texmem_ref_tensor in[3] = {T(x, 2, 2, 3, 0, 0), T(w, 2, 2, 3, 0, 0), T(b, 1, 2, 0, 0, 0)};
  texmem_op_options o = texmem_op_options_default();
  float want[4] = {1.5f, 5.5f, 4.5f, 14.5f};
  check_op(TEXMEM_OP_FULLY_CONNECTED, &o, in, 3, T(NULL, 2, 2, 2, 0, 0), want, 4, 0);
  /* keep_num_dims: [1,2,3] -> [1,2,2]; without bias. */
  in[0] = T(x, 3, 1, 2, 3, 0);
  o.keep_dims = true;
  float nob[4] = {1, 6, 4, 15};
  check_op(TEXMEM_OP_FULLY_CONNECTED, &o, in, 2, T(NULL, 3, 1, 2, 2, 0), nob, 4, 0);
  /* A [1,1,1,6] input is read as 2 rows of 3. */
  o.keep_dims = false;
  in[0] = T(x, 4, 1, 1, 1, 6);
  float rows[4] = {1, 6, 4, 15};
  check_op(TEXMEM_OP_FULLY_CONNECTED, &o, in, 2, T(NULL, 2, 2, 2, 0, 0), rows, 4, 0);
}

Test(reference, add_mul_broadcast) {
  float a[12];
  for (int i = 0; i < 12; i++) a[i] = (float)i;
  float c3[3] = {100, 200, 300};
  texmem_ref_tensor in[2] = {T(a, 4, 1, 2, 2, 3), T(c3, 1, 3, 0, 0, 0)};
  texmem_op_options o = texmem_op_options_default();
  float want[12];
  for (int i = 0; i < 12; i++) want[i] = (float)i + c3[i % 3];
  check_op(TEXMEM_OP_ADD, &o, in, 2, T(NULL, 4, 1, 2, 2, 3), want, 12, 0);
  in[1] = T(c3, 4, 1, 1, 1, 3);
  check_op(TEXMEM_OP_ADD, &o, in, 2, T(NULL, 4, 1, 2, 2, 3), want, 12, 0);
  float five[1] = {5};
  in[1] = T(five, 0, 0, 0, 0, 0);
  for (int i = 0; i < 12; i++) want[i] = (float)i * 5;
  check_op(TEXMEM_OP_MUL, &o, in, 2, T(NULL, 4, 1, 2, 2, 3), want, 12, 0);
  /* Same-shape add. */
  in[1] = T(a, 4, 1, 2, 2, 3);
  for (int i = 0; i < 12; i++) want[i] = (float)(2 * i);
  check_op(TEXMEM_OP_ADD, &o, in, 2, T(NULL, 4, 1, 2, 2, 3), want, 12, 0);
  /* MUL with fused RELU. */
  float m[4] = {-1, 2, 3, 4}, k[2] = {2, -1};
  texmem_ref_tensor min[2] = {T(m, 4, 1, 1, 2, 2), T(k, 1, 2, 0, 0, 0)};
  o.activation = TEXMEM_ACT_RELU;
  float relu[4] = {0, 0, 6, 0};
  check_op(TEXMEM_OP_MUL, &o, min, 2, T(NULL, 4, 1, 1, 2, 2), relu, 4, 0);
  /* Shapes that do not broadcast. */
  min[1] = T(c3, 1, 3, 0, 0, 0);
  cr_assert_eq(try_op(TEXMEM_OP_ADD, &o, min, 2, T(NULL, 4, 1, 1, 2, 2)),
               TEXMEM_STATUS_INVALID_ARGUMENT);
}

Test(reference, unary) {
  texmem_op_options o = texmem_op_options_default();
  float r[3] = {-1, 0, 2.5f};
  texmem_ref_tensor in = T(r, 1, 3, 0, 0, 0);
  float relu[3] = {0, 0, 2.5f};
  check_op(TEXMEM_OP_RELU, &o, &in, 1, T(NULL, 1, 3, 0, 0, 0), relu, 3, 0);
  float r6[3] = {-1, 3, 7};
  in = T(r6, 1, 3, 0, 0, 0);
  float relu6[3] = {0, 3, 6};
  check_op(TEXMEM_OP_RELU6, &o, &in, 1, T(NULL, 1, 3, 0, 0, 0), relu6, 3, 0);
  float l[2] = {0, logf(3.0f)};
  in = T(l, 4, 1, 1, 1, 2);
  float sig[2] = {0.5f, 0.75f};
  check_op(TEXMEM_OP_LOGISTIC, &o, &in, 1, T(NULL, 4, 1, 1, 1, 2), sig, 2, 1e-6f);
  float h[6] = {-4, -3, 0, 1, 3, 4};
  in = T(h, 4, 1, 1, 2, 3);
  float hs[6] = {0, 0, 0, 4.0f / 6.0f, 3, 4};
  check_op(TEXMEM_OP_HARD_SWISH, &o, &in, 1, T(NULL, 4, 1, 1, 2, 3), hs, 6, 1e-6f);
}

Test(reference, pad) {
  float x[2] = {1, 2};
  texmem_ref_tensor in = T(x, 4, 1, 1, 2, 1);
  texmem_op_options o = texmem_op_options_default();
  o.pad_rank = 4;
  o.pad[1][0] = 1; /* H: 1 before */
  o.pad[2][1] = 2; /* W: 2 after */
  float want[8] = {0, 0, 0, 0, 1, 2, 0, 0};
  check_op(TEXMEM_OP_PAD, &o, &in, 1, T(NULL, 4, 1, 2, 4, 1), want, 8, 0);
  /* Channel padding 3 -> 4 (rank 2). */
  float y[6] = {1, 2, 3, 4, 5, 6};
  texmem_ref_tensor in2 = T(y, 2, 2, 3, 0, 0);
  texmem_op_options p = texmem_op_options_default();
  p.pad_rank = 2;
  p.pad[1][1] = 1;
  float w2[8] = {1, 2, 3, 0, 4, 5, 6, 0};
  check_op(TEXMEM_OP_PAD, &p, &in2, 1, T(NULL, 2, 2, 4, 0, 0), w2, 8, 0);
  p.pad_rank = 4; /* paddings for the wrong rank */
  cr_assert_eq(try_op(TEXMEM_OP_PAD, &p, &in2, 1, T(NULL, 2, 2, 4, 0, 0)),
               TEXMEM_STATUS_INVALID_ARGUMENT);
}

Test(reference, pools_borders) {
  texmem_ref_tensor in = T(x9, 4, 1, 3, 3, 1);
  texmem_op_options o = texmem_op_options_default();
  o.filter_h = o.filter_w = 2;
  o.stride_h = o.stride_w = 2;
  /* SAME 2x2/2 on 3x3: the padding row/column is after; border windows are partial. */
  float mx[4] = {5, 6, 8, 9};
  check_op(TEXMEM_OP_MAX_POOL_2D, &o, &in, 1, T(NULL, 4, 1, 2, 2, 1), mx, 4, 0);
  float av[4] = {3, 4.5f, 7.5f, 9};
  check_op(TEXMEM_OP_AVERAGE_POOL_2D, &o, &in, 1, T(NULL, 4, 1, 2, 2, 1), av, 4, 0);
  o.padding = TEXMEM_PADDING_VALID;
  float v[1] = {5};
  check_op(TEXMEM_OP_MAX_POOL_2D, &o, &in, 1, T(NULL, 4, 1, 1, 1, 1), v, 1, 0);
  float va[1] = {3};
  check_op(TEXMEM_OP_AVERAGE_POOL_2D, &o, &in, 1, T(NULL, 4, 1, 1, 1, 1), va, 1, 0);
  /* 3x3/1 SAME average: corners average 4 values, edges 6, centre 9. */
  texmem_op_options a = texmem_op_options_default();
  a.filter_h = a.filter_w = 3;
  float a3[9] = {3, 3.5f, 4, 4.5f, 5, 5.5f, 6, 6.5f, 7};
  check_op(TEXMEM_OP_AVERAGE_POOL_2D, &a, &in, 1, T(NULL, 4, 1, 3, 3, 1), a3, 9, 1e-6f);
  /* Three channels (not a multiple of 4), 1x2 window. */
  float c[6] = {1, 2, 3, 4, 5, 6};
  texmem_ref_tensor cin = T(c, 4, 1, 1, 2, 3);
  texmem_op_options w = texmem_op_options_default();
  w.filter_h = 1;
  w.filter_w = 2;
  w.padding = TEXMEM_PADDING_VALID;
  float cav[3] = {2.5f, 3.5f, 4.5f}, cmx[3] = {4, 5, 6};
  check_op(TEXMEM_OP_AVERAGE_POOL_2D, &w, &cin, 1, T(NULL, 4, 1, 1, 1, 3), cav, 3, 0);
  check_op(TEXMEM_OP_MAX_POOL_2D, &w, &cin, 1, T(NULL, 4, 1, 1, 1, 3), cmx, 3, 0);
  /* Fused RELU6 on a pool. */
  float big[2] = {10, 20};
  texmem_ref_tensor bin = T(big, 4, 1, 1, 2, 1);
  w.activation = TEXMEM_ACT_RELU6;
  float six[1] = {6};
  check_op(TEXMEM_OP_AVERAGE_POOL_2D, &w, &bin, 1, T(NULL, 4, 1, 1, 1, 1), six, 1, 0);
}

Test(reference, mean) {
  float x[12];
  for (int i = 0; i < 12; i++) x[i] = (float)i;
  texmem_ref_tensor in = T(x, 4, 1, 2, 2, 3);
  texmem_op_options o = texmem_op_options_default();
  o.reduce_axes = (1u << 1) | (1u << 2);
  o.keep_dims = true;
  float want[3] = {4.5f, 5.5f, 6.5f};
  check_op(TEXMEM_OP_MEAN, &o, &in, 1, T(NULL, 4, 1, 1, 1, 3), want, 3, 0);
  o.keep_dims = false;
  check_op(TEXMEM_OP_MEAN, &o, &in, 1, T(NULL, 2, 1, 3, 0, 0), want, 3, 0);
  /* Over channels only. */
  o.reduce_axes = 1u << 3;
  o.keep_dims = true;
  float ch[4] = {1, 4, 7, 10};
  check_op(TEXMEM_OP_MEAN, &o, &in, 1, T(NULL, 4, 1, 2, 2, 1), ch, 4, 0);
  o.reduce_axes = 1u << 4;
  cr_assert_eq(try_op(TEXMEM_OP_MEAN, &o, &in, 1, T(NULL, 4, 1, 2, 2, 1)),
               TEXMEM_STATUS_INVALID_ARGUMENT);
}

Test(reference, resize_bilinear_modes) {
  float x[2] = {0, 10};
  texmem_ref_tensor in = T(x, 4, 1, 1, 2, 1);
  texmem_op_options o = texmem_op_options_default();
  /* scale 2/4: sources 0, .5, 1, 1.5 (clamped to the last pixel). */
  float plain[4] = {0, 5, 10, 10};
  check_op(TEXMEM_OP_RESIZE_BILINEAR, &o, &in, 1, T(NULL, 4, 1, 1, 4, 1), plain, 4, 1e-6f);
  /* align_corners: scale 1/3. */
  o.align_corners = true;
  float ac[4] = {0, 10.0f / 3, 20.0f / 3, 10};
  check_op(TEXMEM_OP_RESIZE_BILINEAR, &o, &in, 1, T(NULL, 4, 1, 1, 4, 1), ac, 4, 1e-5f);
  /* half_pixel_centers: sources -.25 (clamped), .25, .75, 1.25 (clamped). */
  o.align_corners = false;
  o.half_pixel_centers = true;
  float hp[4] = {0, 2.5f, 7.5f, 10};
  check_op(TEXMEM_OP_RESIZE_BILINEAR, &o, &in, 1, T(NULL, 4, 1, 1, 4, 1), hp, 4, 1e-6f);
  /* 2-D, align_corners 2x2 -> 3x3, two channels (second = 10x first). */
  float q[8] = {0, 0, 1, 10, 2, 20, 3, 30};
  texmem_ref_tensor qin = T(q, 4, 1, 2, 2, 2);
  o.half_pixel_centers = false;
  o.align_corners = true;
  float q3[18] = {0, 0, 0.5f, 5, 1, 10, 1, 10, 1.5f, 15, 2, 20, 2, 20, 2.5f, 25, 3, 30};
  check_op(TEXMEM_OP_RESIZE_BILINEAR, &o, &qin, 1, T(NULL, 4, 1, 3, 3, 2), q3, 18, 1e-5f);
  /* Both flags at once is refused. */
  o.half_pixel_centers = true;
  cr_assert_eq(try_op(TEXMEM_OP_RESIZE_BILINEAR, &o, &qin, 1, T(NULL, 4, 1, 3, 3, 2)),
               TEXMEM_STATUS_INVALID_ARGUMENT);
}

Test(reference, concatenation_reshape) {
  float a[2] = {1, 2}, b[6] = {10, 11, 12, 20, 21, 22};
  texmem_ref_tensor in[2] = {T(a, 4, 1, 1, 2, 1), T(b, 4, 1, 1, 2, 3)};
  texmem_op_options o = texmem_op_options_default();
  o.axis = -1;
  float ch[8] = {1, 10, 11, 12, 2, 20, 21, 22};
  check_op(TEXMEM_OP_CONCATENATION, &o, in, 2, T(NULL, 4, 1, 1, 2, 4), ch, 8, 0);
  o.axis = 3;
  check_op(TEXMEM_OP_CONCATENATION, &o, in, 2, T(NULL, 4, 1, 1, 2, 4), ch, 8, 0);
  /* Along H. */
  float c[4] = {3, 4, 5, 6};
  texmem_ref_tensor hin[2] = {T(a, 4, 1, 1, 1, 2), T(c, 4, 1, 2, 1, 2)};
  o.axis = 1;
  float hv[6] = {1, 2, 3, 4, 5, 6};
  check_op(TEXMEM_OP_CONCATENATION, &o, hin, 2, T(NULL, 4, 1, 3, 1, 2), hv, 6, 0);
  o.axis = 3; /* H differs: refused */
  cr_assert_eq(try_op(TEXMEM_OP_CONCATENATION, &o, hin, 2, T(NULL, 4, 1, 1, 1, 4)),
               TEXMEM_STATUS_INVALID_ARGUMENT);
  /* RESHAPE keeps the data order. */
  texmem_ref_tensor r = T(b, 4, 1, 1, 1, 6);
  check_op(TEXMEM_OP_RESHAPE, NULL, &r, 1, T(NULL, 2, 2, 3, 0, 0), b, 6, 0);
  cr_assert_eq(try_op(TEXMEM_OP_RESHAPE, NULL, &r, 1, T(NULL, 2, 2, 2, 0, 0)),
               TEXMEM_STATUS_INVALID_ARGUMENT);
}

Test(reference, depth_to_space_dcr) {
  float x[4] = {1, 2, 3, 4};
  texmem_ref_tensor in = T(x, 4, 1, 1, 1, 4);
  texmem_op_options o = texmem_op_options_default();
  o.block_size = 2;
  check_op(TEXMEM_OP_DEPTH_TO_SPACE, &o, &in, 1, T(NULL, 4, 1, 2, 2, 1), x, 4, 0);
  float y[16];
  for (int i = 0; i < 16; i++) y[i] = (float)i;
  texmem_ref_tensor in2 = T(y, 4, 1, 1, 2, 8);
  float want[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};
  check_op(TEXMEM_OP_DEPTH_TO_SPACE, &o, &in2, 1, T(NULL, 4, 1, 2, 4, 2), want, 16, 0);
  o.block_size = 3;
  cr_assert_eq(try_op(TEXMEM_OP_DEPTH_TO_SPACE, &o, &in2, 1, T(NULL, 4, 1, 3, 6, 1)),
               TEXMEM_STATUS_INVALID_ARGUMENT);
}

Test(reference, every_op_has_a_reference) {
  /* Each IR op dispatches to something (a missing input is INVALID_ARGUMENT,
   * never UNSUPPORTED_OP). */
  texmem_op_options o = texmem_op_options_default();
  for (int t = 0; t < TEXMEM_OP_COUNT_; t++) {
    if (t == TEXMEM_OP_OTHER) continue; /* outside the IR: asserted below */
    float buf[4];
    texmem_ref_tensor out = T(buf, 1, 4, 0, 0, 0);
    texmem_status s = texmem_ref_op((texmem_op_type)t, &o, NULL, 0, &out, NULL);
    cr_assert_eq(s, TEXMEM_STATUS_INVALID_ARGUMENT, "%s gives %s", texmem_op_type_name((texmem_op_type)t),
                 texmem_status_name(s));
  }
  float buf[1];
  texmem_ref_tensor out = T(buf, 1, 1, 0, 0, 0);
  cr_assert_eq(texmem_ref_op(TEXMEM_OP_COUNT_, &o, NULL, 0, &out, NULL),
               TEXMEM_STATUS_UNSUPPORTED_OP);
  cr_assert_eq(texmem_ref_op(TEXMEM_OP_OTHER, &o, NULL, 0, &out, NULL),
               TEXMEM_STATUS_UNSUPPORTED_OP);
}

/* ---- whole-model runner ---- */

static int32_t tensor(texmem_model *m, unsigned rank, int32_t s0, int32_t s1, int32_t s2,
                      int32_t s3) {
  int32_t s[4] = {s0, s1, s2, s3}, idx = -1;
  texmem_error err = {0};
  cr_assert_eq(texmem_model_add_tensor(m, NULL, TEXMEM_DTYPE_FLOAT32, rank, s, &idx, &err),
               TEXMEM_STATUS_OK, "%s", err.message);
  return idx;
}

static int32_t constant(texmem_model *m, texmem_dtype type, unsigned rank, const int32_t *shape,
                        const void *data, size_t size) {
  int32_t idx = -1;
  texmem_error err = {0};
  cr_assert_eq(texmem_model_add_constant(m, NULL, type, rank, shape, data, size, &idx, &err),
               TEXMEM_STATUS_OK, "%s", err.message);
  return idx;
}

static void op(texmem_model *m, texmem_op_type type, const int32_t *in, size_t n_in, int32_t out,
               const texmem_op_options *o) {
  texmem_error err = {0};
  cr_assert_eq(texmem_model_add_op(m, type, in, n_in, &out, 1, o, NULL, &err), TEXMEM_STATUS_OK,
               "%s", err.message);
}

Test(reference, run_small_model) {
  /* x[1,2,2,1] -> ADD 1 -> PAD (int32 paddings input) -> MEAN (int32 axes) -> RELU */
  texmem_model *m = NULL;
  cr_assert_eq(texmem_model_create(&m, NULL), TEXMEM_STATUS_OK);
  int32_t x = tensor(m, 4, 1, 2, 2, 1);
  float one = 1;
  int32_t s1[1] = {1};
  int32_t c1 = constant(m, TEXMEM_DTYPE_FLOAT32, 1, s1, &one, sizeof one);
  int32_t a = tensor(m, 4, 1, 2, 2, 1);
  int32_t in_add[2] = {x, c1};
  op(m, TEXMEM_OP_ADD, in_add, 2, a, NULL);
  int32_t pads[8] = {0, 0, 1, 0, 1, 0, 0, 0}, ps[2] = {4, 2};
  int32_t cp = constant(m, TEXMEM_DTYPE_INT32, 2, ps, pads, sizeof pads);
  int32_t p = tensor(m, 4, 1, 3, 3, 1);
  int32_t in_pad[2] = {a, cp};
  op(m, TEXMEM_OP_PAD, in_pad, 2, p, NULL);
  int32_t axes[2] = {1, 2}, as[1] = {2};
  int32_t ca = constant(m, TEXMEM_DTYPE_INT32, 1, as, axes, sizeof axes);
  int32_t mean = tensor(m, 4, 1, 1, 1, 1);
  int32_t in_mean[2] = {p, ca};
  texmem_op_options keep = texmem_op_options_default();
  keep.keep_dims = true;
  op(m, TEXMEM_OP_MEAN, in_mean, 2, mean, &keep);
  int32_t y = tensor(m, 2, 1, 1, 0, 0);
  op(m, TEXMEM_OP_RELU, &mean, 1, y, NULL);
  cr_assert_eq(texmem_model_set_io(m, &x, 1, &y, 1, NULL), TEXMEM_STATUS_OK);

  float xin[4] = {-10, -2, 3, 5};
  const float *inputs[1] = {xin};
  texmem_ref_result *r = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_ref_run(m, inputs, 1, &r, &err), TEXMEM_STATUS_OK, "%s", err.message);
  cr_assert_eq(r->n_tensors, texmem_model_tensor_count(m));
  float want_a[4] = {-9, -1, 4, 6};
  for (int i = 0; i < 4; i++) cr_assert_eq(r->values[a][i], want_a[i]);
  cr_assert_eq(r->counts[p], 9);
  cr_assert_eq(r->values[p][4], -9); /* (1,1) = a(0,0): a row and a column before */
  cr_assert_eq(r->values[p][5], -1);
  cr_assert_eq(r->values[p][0], 0);
  cr_assert_eq(r->values[mean][0], 0.0f); /* (-9-1+4+6)/9 */
  cr_assert_eq(r->values[y][0], 0.0f);
  cr_assert_null(r->values[cp]); /* int32 constants carry no float values */
  texmem_ref_result_destroy(r);

  xin[3] = 23; /* sum 18 -> mean 2 */
  cr_assert_eq(texmem_ref_run(m, inputs, 1, &r, &err), TEXMEM_STATUS_OK, "%s", err.message);
  cr_assert_eq(r->values[y][0], 2.0f);
  texmem_ref_result_destroy(r);
  texmem_ref_result_destroy(NULL);

  /* Wrong input count. */
  cr_assert_eq(texmem_ref_run(m, inputs, 0, &r, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_null(r);
  texmem_model_destroy(m);
}

Test(reference, run_reports_bad_graphs) {
  /* An op reads a tensor nothing writes; another has a wrong output shape. */
  texmem_model *m = NULL;
  cr_assert_eq(texmem_model_create(&m, NULL), TEXMEM_STATUS_OK);
  int32_t x = tensor(m, 4, 1, 2, 2, 1);
  int32_t ghost = tensor(m, 4, 1, 2, 2, 1);
  int32_t y = tensor(m, 4, 1, 2, 2, 1);
  int32_t in[2] = {x, ghost};
  op(m, TEXMEM_OP_ADD, in, 2, y, NULL);
  cr_assert_eq(texmem_model_set_io(m, &x, 1, &y, 1, NULL), TEXMEM_STATUS_OK);
  float xin[4] = {1, 2, 3, 4};
  const float *inputs[1] = {xin};
  texmem_ref_result *r = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_ref_run(m, inputs, 1, &r, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "operator 0") != NULL, "%s", err.message);
  texmem_model_destroy(m);

  cr_assert_eq(texmem_model_create(&m, NULL), TEXMEM_STATUS_OK);
  x = tensor(m, 4, 1, 2, 2, 1);
  y = tensor(m, 4, 1, 3, 2, 1);
  op(m, TEXMEM_OP_RELU, &x, 1, y, NULL);
  cr_assert_eq(texmem_model_set_io(m, &x, 1, &y, 1, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(texmem_ref_run(m, inputs, 1, &r, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "RELU") != NULL, "%s", err.message);
  cr_assert_null(r);
  texmem_model_destroy(m);
}

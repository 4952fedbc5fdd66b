/* The test .tflite writer (tests/tflite_writer.c): its files read back
 * through texmem's reader with every field intact (operators, options,
 * constants, several subgraphs, int8 with quantization), and bad
 * descriptions are refused with a message. The same files loading in the
 * real TFLite is checked by tests/test_rt_oracle.c. */
#include <stdlib.h>
#include <string.h>

#include "flatbuffer.h"
#include "support.h"
#include "texmem/model.h"
#include "tflite_writer.h"

static texmem_model *read_back(const tw_model *tm, size_t *size_out) {
  uint8_t *data = NULL;
  size_t size = 0;
  texmem_error err = {0};
  texmem_status st = tw_write(tm, &data, &size, &err);
  cr_assert_eq(st, TEXMEM_STATUS_OK, "tw_write: %s", err.message);
  cr_assert_gt(size, 8);
  cr_assert(memcmp(data + 4, "TFL3", 4) == 0, "file identifier");
  texmem_model *m = NULL;
  st = texmem_model_read_tflite(data, size, &m, &err);
  cr_assert_eq(st, TEXMEM_STATUS_OK, "reader: %s: %s", texmem_status_name(st), err.message);
  free(data);
  if (size_out) *size_out = size;
  return m;
}

/* conv (weights, bias) -> depthwise -> reshape: every option read back. */
Test(tflite_writer, two_ops_round_trip) {
  float w[4 * 3 * 3 * 2], bias[4], dw[1 * 3 * 3 * 8];
  for (size_t i = 0; i < sizeof w / 4; i++) w[i] = (float)i * 0.5f - 3.0f;
  for (size_t i = 0; i < 4; i++) bias[i] = (float)i;
  for (size_t i = 0; i < sizeof dw / 4; i++) dw[i] = 1.0f / (float)(i + 1);
  int32_t rs[] = {1, 5 * 6 * 8};
  tw_tensor t[] = {
      TW_TENSOR("in", TW_FLOAT32, 4, 1, 9, 11, 2),
      TW_CONST("w", TW_FLOAT32, w, 4, 4, 3, 3, 2),
      TW_CONST("b", TW_FLOAT32, bias, 1, 4),
      TW_TENSOR("conv", TW_FLOAT32, 4, 1, 5, 6, 4),
      TW_CONST("dw", TW_FLOAT32, dw, 4, 1, 3, 3, 8),
      TW_TENSOR("dwout", TW_FLOAT32, 4, 1, 5, 6, 8),
      TW_TENSOR("out", TW_FLOAT32, 2, 1, 240),
  };
  int32_t c_in[] = {0, 1, 2}, c_out[] = {3}, d_in[] = {3, 4, -1}, d_out[] = {5}, r_in[] = {5},
          r_out[] = {6}, g_in[] = {0}, g_out[] = {6};
  tw_operator ops[] = {
      {TW_OP_CONV_2D, .n_inputs = 3, .inputs = c_in, .n_outputs = 1, .outputs = c_out,
       .options = tw_conv2d_options(TW_SAME, 2, 2, TW_ACT_RELU6, 1, 1)},
      {TW_OP_DEPTHWISE_CONV_2D, .n_inputs = 3, .inputs = d_in, .n_outputs = 1, .outputs = d_out,
       .options = tw_depthwise_options(TW_SAME, 1, 1, 2, TW_ACT_NONE, 2, 3)},
      {TW_OP_RESHAPE, .n_inputs = 1, .inputs = r_in, .n_outputs = 1, .outputs = r_out,
       .options = tw_reshape_options(2, rs)},
  };
  tw_subgraph g = {"main", 7, t, 1, g_in, 1, g_out, 3, ops};
  tw_model tm = {"writer test", 1, &g};
  texmem_model *m = read_back(&tm, NULL);
  cr_assert_eq(texmem_model_op_count(m), 3);
  cr_assert_eq(texmem_model_tensor_count(m), 7);
  const texmem_op *c = texmem_model_op(m, 0), *d = texmem_model_op(m, 1), *r = texmem_model_op(m, 2);
  cr_assert_eq(c->type, TEXMEM_OP_CONV_2D);
  cr_assert_eq(c->options.padding, TEXMEM_PADDING_SAME);
  cr_assert_eq(c->options.stride_w, 2);
  cr_assert_eq(c->options.stride_h, 2);
  cr_assert_eq(c->options.activation, TEXMEM_ACT_RELU6);
  cr_assert_eq(d->type, TEXMEM_OP_DEPTHWISE_CONV_2D);
  cr_assert_eq(d->options.depth_multiplier, 2);
  cr_assert_eq(d->options.dilation_w, 2);
  cr_assert_eq(d->options.dilation_h, 3);
  cr_assert_eq(d->n_inputs, 3);
  cr_assert_eq(d->inputs[2], -1);
  cr_assert_eq(r->type, TEXMEM_OP_RESHAPE);
  cr_assert_eq(r->options.new_shape_rank, 2);
  cr_assert_eq(r->options.new_shape[1], 240);
  const texmem_tensor *wt = texmem_model_tensor(m, 1);
  cr_assert_str_eq(wt->name, "w");
  cr_assert(wt->flags & TEXMEM_TENSOR_CONSTANT);
  cr_assert_eq(wt->data_size, sizeof w);
  cr_assert(memcmp(wt->data, w, sizeof w) == 0, "weights read back");
  const texmem_tensor *it = texmem_model_tensor(m, 0);
  cr_assert_eq(it->rank, 4);
  cr_assert_eq(it->h, 9);
  cr_assert_eq(it->w, 11);
  cr_assert(it->flags & TEXMEM_TENSOR_INPUT);
  cr_assert(texmem_model_tensor(m, 6)->flags & TEXMEM_TENSOR_OUTPUT);
  texmem_model_destroy(m);
}

/* Every option helper of the ops texmem runs, one operator each, reads back. */
Test(tflite_writer, options_read_back) {
  int32_t ax[] = {1, 2}, pads[] = {0, 0, 1, 2, 3, 0, 0, 0}, size[] = {7, 9};
  tw_tensor t[] = {
      TW_TENSOR("x", TW_FLOAT32, 4, 1, 4, 4, 8),
      TW_TENSOR("p", TW_FLOAT32, 4, 1, 2, 2, 8),
      TW_CONST("axes", TW_INT32, ax, 1, 2),
      TW_TENSOR("mean", TW_FLOAT32, 4, 1, 1, 1, 8),
      TW_TENSOR("rs", TW_FLOAT32, 4, 1, 7, 9, 8),
      TW_TENSOR("d2s", TW_FLOAT32, 4, 1, 8, 8, 2),
      TW_CONST("pads", TW_INT32, pads, 2, 4, 2),
      TW_TENSOR("padded", TW_FLOAT32, 4, 1, 7, 7, 8),
      TW_CONST("size", TW_INT32, size, 1, 2),
  };
  int32_t x[] = {0}, p[] = {1}, mi[] = {0, 2}, mo[] = {3}, rso[] = {4}, d2o[] = {5}, pi[] = {0, 6},
          po[] = {7}, ri[] = {0, 8}, outs[] = {1, 3, 4, 5, 7};
  tw_operator ops[] = {
      {TW_OP_AVERAGE_POOL_2D, .n_inputs = 1, .inputs = x, .n_outputs = 1, .outputs = p,
       .options = tw_pool_options(TW_VALID, 2, 2, 3, 2, TW_ACT_RELU)},
      {TW_OP_MEAN, .n_inputs = 2, .inputs = mi, .n_outputs = 1, .outputs = mo,
       .options = tw_reducer_options(true)},
      {TW_OP_RESIZE_BILINEAR, .n_inputs = 2, .inputs = ri, .n_outputs = 1, .outputs = rso,
       .options = tw_resize_bilinear_options(false, true)},
      {TW_OP_DEPTH_TO_SPACE, .n_inputs = 1, .inputs = x, .n_outputs = 1, .outputs = d2o,
       .options = tw_depth_to_space_options(2)},
      {TW_OP_PAD, .n_inputs = 2, .inputs = pi, .n_outputs = 1, .outputs = po,
       .options = tw_pad_options()},
  };
  tw_subgraph g = {NULL, 9, t, 1, x, 5, outs, 5, ops};
  tw_model tm = {NULL, 1, &g};
  texmem_model *m = read_back(&tm, NULL);
  const texmem_op *o = texmem_model_op(m, 0);
  cr_assert_eq(o->options.padding, TEXMEM_PADDING_VALID);
  cr_assert_eq(o->options.filter_w, 3);
  cr_assert_eq(o->options.filter_h, 2);
  cr_assert_eq(o->options.activation, TEXMEM_ACT_RELU);
  o = texmem_model_op(m, 1);
  cr_assert(o->options.keep_dims);
  cr_assert_eq(o->options.reduce_axes, 0x6u);
  o = texmem_model_op(m, 2);
  cr_assert_not(o->options.align_corners);
  cr_assert(o->options.half_pixel_centers);
  cr_assert_eq(texmem_model_op(m, 3)->options.block_size, 2);
  o = texmem_model_op(m, 4);
  cr_assert_eq(o->options.pad_rank, 4);
  cr_assert_eq(o->options.pad[1][0], 1);
  cr_assert_eq(o->options.pad[1][1], 2);
  cr_assert_eq(o->options.pad[2][0], 3);
  texmem_model_destroy(m);
}

/* Two subgraphs, int8 tensors with per-channel quantization, a custom
 * operator with options and an opcode past 127: subgraph 0 reads back. */
Test(tflite_writer, subgraphs_int8_custom) {
  int8_t q[2 * 3] = {-128, -1, 0, 1, 2, 127};
  float scale[] = {0.5f, 0.25f};
  int64_t zp[] = {0, -3};
  tw_quant qp = {2, scale, zp, 0};
  int32_t copts_i[3] = {1, 2, 2}; /* padding (TfLitePadding: 1 = same), stride_w, stride_h */
  uint8_t copts[12];
  memcpy(copts, copts_i, sizeof copts);
  float wt[4 * 3 * 3 * 4] = {0}, bias[4] = {0};
  tw_tensor t0[] = {
      TW_TENSOR("a", TW_FLOAT32, 4, 1, 2, 2, 4),
      TW_TENSOR("b", TW_FLOAT32, 4, 1, 4, 4, 4),
      TW_CONST("wt", TW_FLOAT32, wt, 4, 4, 3, 3, 4),
      TW_CONST("bias", TW_FLOAT32, bias, 1, 4),
      {.name = "q", .type = TW_INT8, .rank = 2, .shape = {2, 3}, .data = q, .data_size = sizeof q, .quant = &qp},
  };
  int32_t i0[] = {0}, o0[] = {1}, ci[] = {0, 2, 3};
  tw_operator ops0[] = {{TW_OP_CUSTOM, "Convolution2DTransposeBias", .n_inputs = 3, .inputs = ci,
                         .n_outputs = 1, .outputs = o0, .custom_options = copts,
                         .custom_options_size = sizeof copts}};
  tw_tensor t1[] = {{.name = "x", .type = TW_INT8, .rank = 1, .shape = {4}, .quant = &qp},
                   {.name = "y", .type = TW_INT8, .rank = 1, .shape = {4}, .quant = &qp}};
  int32_t i1[] = {0}, o1[] = {1};
  tw_operator ops1[] = {{150 /* a code past 127 */, .n_inputs = 1, .inputs = i1, .n_outputs = 1,
                         .outputs = o1, .version = 2}};
  tw_subgraph g[] = {{"main", 5, t0, 1, i0, 1, o0, 1, ops0}, {"second", 2, t1, 1, i1, 1, o1, 1, ops1}};
  tw_model tm = {"two subgraphs", 2, g};
  texmem_model *m = read_back(&tm, NULL);
  cr_assert_eq(texmem_model_op_count(m), 1);
  const texmem_op *o = texmem_model_op(m, 0);
  cr_assert_eq(o->type, TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS);
  cr_assert_str_eq(o->options.custom_name, "Convolution2DTransposeBias");
  cr_assert_eq(o->options.custom_options_size, sizeof copts);
  cr_assert(memcmp(o->options.custom_options, copts, sizeof copts) == 0);
  cr_assert_eq(texmem_model_tensor(m, 4)->type, TEXMEM_DTYPE_INT8);
  cr_assert_str_eq(texmem_model_tensor(m, 4)->name, "q");
  texmem_model_destroy(m);
}

/* Identical descriptions give identical bytes (deterministic writer). */
Test(tflite_writer, deterministic) {
  tw_tensor t[] = {TW_TENSOR("x", TW_FLOAT32, 4, 1, 3, 3, 5), TW_TENSOR("y", TW_FLOAT32, 4, 1, 3, 3, 5)};
  int32_t i[] = {0}, o[] = {1};
  tw_operator op = {TW_OP_LOGISTIC, .n_inputs = 1, .inputs = i, .n_outputs = 1, .outputs = o};
  tw_subgraph g = {NULL, 2, t, 1, i, 1, o, 1, &op};
  tw_model tm = {NULL, 1, &g};
  uint8_t *a = NULL, *b = NULL;
  size_t na = 0, nb = 0;
  cr_assert_eq(tw_write(&tm, &a, &na, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(tw_write(&tm, &b, &nb, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(na, nb);
  cr_assert(memcmp(a, b, na) == 0);
  free(a);
  free(b);
}

static void expect_refused(const tw_model *tm, texmem_status want, const char *word) {
  uint8_t *data = (uint8_t *)1;
  size_t size = 1;
  texmem_error err = {0};
  texmem_status st = tw_write(tm, &data, &size, &err);
  cr_assert_eq(st, want, "got %s: %s", texmem_status_name(st), err.message);
  cr_assert_eq(err.status, want);
  cr_assert_null(data);
  cr_assert_eq(size, 0);
  cr_assert_not_null(strstr(err.message, word), "message '%s' lacks '%s'", err.message, word);
}

Test(tflite_writer, bad_descriptions) {
  float w[3] = {0};
  tw_tensor t[] = {TW_TENSOR("x", TW_FLOAT32, 2, 2, 2), TW_CONST("w", TW_FLOAT32, w, 1, 4)};
  int32_t i[] = {0}, o[] = {1}, bad[] = {7};
  tw_subgraph g = {NULL, 2, t, 1, i, 1, o, 0, NULL};
  tw_model tm = {NULL, 1, &g};
  expect_refused(&tm, TEXMEM_STATUS_INVALID_ARGUMENT, "data bytes"); /* 12 bytes for 4 floats */
  t[1].data_size = 16;
  float w4[4] = {0};
  t[1].data = w4;
  g.outputs = bad;
  expect_refused(&tm, TEXMEM_STATUS_INVALID_ARGUMENT, "graph output");
  g.outputs = o;
  tw_operator op = {TW_OP_ADD, .n_inputs = 1, .inputs = bad, .n_outputs = 1, .outputs = o};
  g.n_operators = 1;
  g.operators = &op;
  expect_refused(&tm, TEXMEM_STATUS_INVALID_ARGUMENT, "operator 0");
  op.inputs = i;
  op.code = TW_OP_CUSTOM;
  expect_refused(&tm, TEXMEM_STATUS_INVALID_ARGUMENT, "bad code");
  op.code = TW_OP_ADD;
  t[0].type = 200;
  expect_refused(&tm, TEXMEM_STATUS_INVALID_ARGUMENT, "type 200");
  t[0].type = TW_FLOAT32;
  t[0].rank = 9;
  expect_refused(&tm, TEXMEM_STATUS_INVALID_ARGUMENT, "rank 9");
  t[0].rank = 2;
  tw_model none = {NULL, 0, NULL};
  expect_refused(&none, TEXMEM_STATUS_INVALID_ARGUMENT, "no subgraph");
  expect_refused(NULL, TEXMEM_STATUS_INVALID_ARGUMENT, "no subgraph");
  cr_assert_eq(tw_write(&tm, NULL, NULL, NULL), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_eq(tw_write_file(&tm, "/nonexistent-dir/x.tflite", NULL), TEXMEM_STATUS_IO);
}

/* Fields texmem's reader does not expose, read with the flatbuffer
 * helpers: opcode bytes past 127, version, quantization vectors,
 * shape_signature, and buffer data aligned to 16. */
Test(tflite_writer, raw_fields) {
  float scale[] = {0.5f, 0.25f};
  int64_t zp[] = {1, -3};
  tw_quant qp = {2, scale, zp, 3};
  int32_t sig[] = {-1, 4, 4, 2};
  uint8_t w[6] = {1, 2, 3, 4, 5, 6};
  tw_tensor t[] = {{.name = "x", .type = TW_INT8, .rank = 4, .shape = {1, 4, 4, 2}, .quant = &qp,
                    .shape_signature = sig},
                   TW_CONST("w", TW_UINT8, w, 1, 6), TW_TENSOR("y", TW_FLOAT32, 4, 1, 4, 4, 2)};
  int32_t i[] = {0, 1}, o[] = {2};
  tw_operator op = {.code = 150, .version = 2, .n_inputs = 2, .inputs = i, .n_outputs = 1,
                    .outputs = o};
  tw_subgraph g = {"g", 3, t, 1, i, 1, o, 1, &op};
  tw_model tm = {NULL, 1, &g};
  uint8_t *data = NULL;
  size_t size = 0;
  cr_assert_eq(tw_write(&tm, &data, &size, NULL), TEXMEM_STATUS_OK);
  texmem__fb fb = {data, size};
  texmem__fb_table root, code, sg, tensor, quant, buf;
  texmem__fb_vec v, codes, sgs, tensors, bufs;
  cr_assert_eq(texmem__fb_root(&fb, "TFL3", &root), TEXMEM__FB_OK);
  uint32_t version = 0;
  cr_assert_eq(texmem__fb_u32f(&root, 0, 0, &version), TEXMEM__FB_OK);
  cr_assert_eq(version, 3);
  cr_assert_eq(texmem__fb_vec_field(&root, 1, 4, &codes), TEXMEM__FB_OK);
  cr_assert_eq(codes.len, 1);
  cr_assert_eq(texmem__fb_vec_table(&codes, 0, &code), TEXMEM__FB_OK);
  uint8_t dep = 0;
  int32_t builtin = 0, ver = 0;
  cr_assert_eq(texmem__fb_u8(&code, 0, 0, &dep), TEXMEM__FB_OK);
  cr_assert_eq(texmem__fb_i32(&code, 3, 0, &builtin), TEXMEM__FB_OK);
  cr_assert_eq(texmem__fb_i32(&code, 2, 1, &ver), TEXMEM__FB_OK);
  cr_assert_eq(dep, 127);
  cr_assert_eq(builtin, 150);
  cr_assert_eq(ver, 2);
  cr_assert_eq(texmem__fb_vec_field(&root, 2, 4, &sgs), TEXMEM__FB_OK);
  cr_assert_eq(texmem__fb_vec_table(&sgs, 0, &sg), TEXMEM__FB_OK);
  cr_assert_eq(texmem__fb_vec_field(&sg, 0, 4, &tensors), TEXMEM__FB_OK);
  cr_assert_eq(tensors.len, 3);
  cr_assert_eq(texmem__fb_vec_table(&tensors, 0, &tensor), TEXMEM__FB_OK);
  cr_assert_eq(texmem__fb_vec_field(&tensor, 7, 4, &v), TEXMEM__FB_OK);
  cr_assert_eq(v.len, 4);
  cr_assert_eq(texmem__fb_vec_i32(&v, 0), -1);
  cr_assert_eq(texmem__fb_vec_i32(&v, 3), 2);
  bool have = false;
  cr_assert_eq(texmem__fb_table_field(&tensor, 4, &quant, &have), TEXMEM__FB_OK);
  cr_assert(have);
  cr_assert_eq(texmem__fb_vec_field(&quant, 2, 4, &v), TEXMEM__FB_OK);
  cr_assert_eq(v.len, 2);
  float s1;
  memcpy(&s1, texmem__fb_vec_at(&v, 1), 4);
  cr_assert_eq(s1, 0.25f);
  cr_assert_eq(texmem__fb_vec_field(&quant, 3, 8, &v), TEXMEM__FB_OK);
  cr_assert_eq(v.len, 2);
  cr_assert_eq(v.pos % 8, 0, "int64 zero points aligned to 8");
  cr_assert_eq((int64_t)texmem__fb_u64(texmem__fb_vec_at(&v, 1)), -3);
  int32_t qdim = 0;
  cr_assert_eq(texmem__fb_i32(&quant, 6, 0, &qdim), TEXMEM__FB_OK);
  cr_assert_eq(qdim, 3);
  uint32_t bi = 0;
  cr_assert_eq(texmem__fb_vec_table(&tensors, 1, &tensor), TEXMEM__FB_OK);
  cr_assert_eq(texmem__fb_u32f(&tensor, 2, 0, &bi), TEXMEM__FB_OK);
  cr_assert_eq(bi, 1, "first constant gets buffer 1 (0 is the empty buffer)");
  cr_assert_eq(texmem__fb_vec_field(&root, 4, 4, &bufs), TEXMEM__FB_OK);
  cr_assert_eq(bufs.len, 2);
  cr_assert_eq(texmem__fb_vec_table(&bufs, 1, &buf), TEXMEM__FB_OK);
  cr_assert_eq(texmem__fb_vec_field(&buf, 0, 1, &v), TEXMEM__FB_OK);
  cr_assert_eq(v.len, 6);
  cr_assert_eq(v.pos % 16, 0, "buffer data aligned to 16");
  cr_assert(memcmp(texmem__fb_vec_at(&v, 0), w, 6) == 0);
  free(data);
}

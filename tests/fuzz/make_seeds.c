/* Writes the seed models of fuzz_tflite into DIR: small graphs made with the
 * tests' .tflite writer covering what the reader parses (every operator
 * family of the IR with its options, constants, fp16 weights behind
 * DEQUANTIZE, sparse weights behind DENSIFY, custom operators, dynamic
 * shapes, ranks above 4, quantization, names). Usage: fuzz_make_seeds DIR */
#include <stdio.h>
#include <string.h>

#include "tflite_writer.h"

static const char *dir;
static int failures;

static void emit(const char *name, const tw_subgraph *g) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.tflite", dir, name);
  tw_model m = {.description = "seed", .n_subgraphs = 1, .subgraphs = g};
  texmem_error err = {0};
  if (tw_write_file(&m, path, &err)) {
    fprintf(stderr, "%s: %s\n", name, err.message);
    failures++;
  }
}

/* One operator: input 0 (and constants) -> output (last tensor). */
static void one_op(const char *name, tw_tensor *t, size_t nt, int32_t code, tw_options opt,
                   const int32_t *in, size_t n_in) {
  int32_t out[] = {(int32_t)nt - 1}, gin[] = {0};
  tw_operator op = {.code = code, .n_inputs = n_in, .inputs = in, .n_outputs = 1, .outputs = out,
                    .options = opt};
  tw_subgraph g = {.n_tensors = nt, .tensors = t, .n_inputs = 1, .inputs = gin, .n_outputs = 1,
                   .outputs = out, .n_operators = 1, .operators = &op};
  emit(name, &g);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  dir = argv[1];
  static const float w[2 * 3 * 3 * 2] = {1, 2, 3};
  static const float bias[2] = {0.5f, -1};
  static const int32_t pads[4][2] = {{0, 0}, {1, 1}, {1, 1}, {0, 0}};
  static const int32_t axes[2] = {1, 2};
  static const int32_t new_shape[2] = {1, 32};
  static const int32_t size2[2] = {8, 8};
  static const uint16_t w16[2 * 1 * 1 * 2] = {0x3c00, 0x4000, 0xbc00, 0};

  {
    tw_tensor t[] = {TW_TENSOR("in", TW_FLOAT32, 4, 1, 4, 4, 2), TW_CONST("w", TW_FLOAT32, w, 4, 2, 3, 3, 2),
                     TW_CONST("b", TW_FLOAT32, bias, 1, 2), TW_TENSOR("out", TW_FLOAT32, 4, 1, 4, 4, 2)};
    int32_t in[] = {0, 1, 2};
    one_op("conv", t, 4, TW_OP_CONV_2D, tw_conv2d_options(TW_SAME, 1, 1, TW_ACT_RELU, 1, 1), in, 3);
    tw_tensor d[] = {TW_TENSOR("in", TW_FLOAT32, 4, 1, 4, 4, 2), TW_CONST("w", TW_FLOAT32, w, 4, 1, 3, 3, 4),
                     TW_TENSOR("out", TW_FLOAT32, 4, 1, 2, 2, 4)};
    one_op("depthwise", d, 3, TW_OP_DEPTHWISE_CONV_2D, tw_depthwise_options(TW_VALID, 1, 1, 2, TW_ACT_RELU6, 1, 1),
           in, 2);
  }
  {
    tw_tensor t[] = {TW_TENSOR("a", TW_FLOAT32, 4, 1, 2, 2, 4), TW_TENSOR("b", TW_FLOAT32, 4, 1, 2, 2, 4),
                     TW_TENSOR("out", TW_FLOAT32, 4, 1, 2, 2, 4)};
    int32_t in[] = {0, 1};
    one_op("add", t, 3, TW_OP_ADD, tw_add_options(TW_ACT_NONE), in, 2);
    one_op("mul", t, 3, TW_OP_MUL, tw_mul_options(TW_ACT_RELU), in, 2);
    one_op("concat", t, 3, TW_OP_CONCATENATION, tw_concatenation_options(-1, 0), in, 2);
    one_op("relu", t + 1, 2, TW_OP_RELU, (tw_options){0}, in, 1);
    one_op("logistic", t + 1, 2, TW_OP_LOGISTIC, (tw_options){0}, in, 1);
    one_op("hard_swish", t + 1, 2, TW_OP_HARD_SWISH, tw_hard_swish_options(), in, 1);
    one_op("other_builtin", t + 1, 2, 99, (tw_options){0}, in, 1);
  }
  {
    tw_tensor t[] = {TW_TENSOR("in", TW_FLOAT32, 4, 1, 4, 4, 2), TW_TENSOR("out", TW_FLOAT32, 4, 1, 2, 2, 2)};
    int32_t in[] = {0};
    one_op("max_pool", t, 2, TW_OP_MAX_POOL_2D, tw_pool_options(TW_VALID, 2, 2, 2, 2, 0), in, 1);
    one_op("avg_pool", t, 2, TW_OP_AVERAGE_POOL_2D, tw_pool_options(TW_SAME, 2, 2, 3, 3, 1), in, 1);
    tw_tensor s[] = {TW_TENSOR("in", TW_FLOAT32, 4, 1, 4, 4, 2), TW_CONST("shape", TW_INT32, new_shape, 1, 2),
                     TW_TENSOR("out", TW_FLOAT32, 2, 1, 32)};
    int32_t in2[] = {0, 1};
    one_op("reshape", s, 3, TW_OP_RESHAPE, tw_reshape_options(2, new_shape), in2, 2);
    tw_tensor p[] = {TW_TENSOR("in", TW_FLOAT32, 4, 1, 4, 4, 2), TW_CONST("pads", TW_INT32, pads, 2, 4, 2),
                     TW_TENSOR("out", TW_FLOAT32, 4, 1, 6, 6, 2)};
    one_op("pad", p, 3, TW_OP_PAD, tw_pad_options(), in2, 2);
    tw_tensor mn[] = {TW_TENSOR("in", TW_FLOAT32, 4, 1, 4, 4, 2), TW_CONST("axes", TW_INT32, axes, 1, 2),
                      TW_TENSOR("out", TW_FLOAT32, 4, 1, 1, 1, 2)};
    one_op("mean", mn, 3, TW_OP_MEAN, tw_reducer_options(true), in2, 2);
    tw_tensor rb[] = {TW_TENSOR("in", TW_FLOAT32, 4, 1, 4, 4, 2), TW_CONST("size", TW_INT32, size2, 1, 2),
                      TW_TENSOR("out", TW_FLOAT32, 4, 1, 8, 8, 2)};
    one_op("resize", rb, 3, TW_OP_RESIZE_BILINEAR, tw_resize_bilinear_options(false, true), in2, 2);
    tw_tensor fc[] = {TW_TENSOR("in", TW_FLOAT32, 2, 1, 18), TW_CONST("w", TW_FLOAT32, w, 2, 2, 18),
                      TW_TENSOR("out", TW_FLOAT32, 2, 1, 2)};
    one_op("fully_connected", fc, 3, TW_OP_FULLY_CONNECTED, tw_fully_connected_options(0, false), in2, 2);
    tw_tensor ds[] = {TW_TENSOR("in", TW_FLOAT32, 4, 1, 2, 2, 4), TW_TENSOR("out", TW_FLOAT32, 4, 1, 4, 4, 1)};
    one_op("depth_to_space", ds, 2, TW_OP_DEPTH_TO_SPACE, tw_depth_to_space_options(2), in, 1);
  }
  {
    /* fp16 weights behind DEQUANTIZE, then a conv reading them. */
    tw_tensor t[] = {TW_TENSOR("in", TW_FLOAT32, 4, 1, 2, 2, 2), TW_CONST("w16", TW_FLOAT16, w16, 4, 2, 1, 1, 2),
                     TW_TENSOR("w32", TW_FLOAT32, 4, 2, 1, 1, 2), TW_TENSOR("out", TW_FLOAT32, 4, 1, 2, 2, 2)};
    int32_t dq_in[] = {1}, dq_out[] = {2}, c_in[] = {0, 2}, c_out[] = {3}, gin[] = {0};
    tw_operator ops[] = {
        {.code = TW_OP_DEQUANTIZE, .n_inputs = 1, .inputs = dq_in, .n_outputs = 1, .outputs = dq_out},
        {.code = TW_OP_CONV_2D, .n_inputs = 2, .inputs = c_in, .n_outputs = 1, .outputs = c_out,
         .options = tw_conv2d_options(TW_SAME, 1, 1, 0, 1, 1)}};
    tw_subgraph g = {.n_tensors = 4, .tensors = t, .n_inputs = 1, .inputs = gin, .n_outputs = 1,
                     .outputs = c_out, .n_operators = 2, .operators = ops};
    emit("dequantize_fp16", &g);
  }
  {
    /* Sparse fp32 weights (dense dim 0, CSR dim 1) behind DENSIFY. */
    static const int32_t seg[] = {0, 1, 2}, idx[] = {0, 1};
    static const float vals[] = {1, 2};
    tw_sparsity sp = {.n_levels = 2, .traversal_order = {0, 1},
                      .dims = {{.format = 0, .dense_size = 2},
                               {.format = 1, .n_segments = 3, .segments = seg, .n_indices = 2, .indices = idx}}};
    tw_tensor t[] = {TW_TENSOR("in", TW_FLOAT32, 2, 1, 2),
                     {.name = "ws", .type = TW_FLOAT32, .rank = 2, .shape = {2, 2}, .data = vals,
                      .data_size = sizeof vals, .sparsity = &sp},
                     TW_TENSOR("w", TW_FLOAT32, 2, 2, 2), TW_TENSOR("out", TW_FLOAT32, 2, 1, 2)};
    int32_t d_in[] = {1}, d_out[] = {2}, f_in[] = {0, 2}, f_out[] = {3}, gin[] = {0};
    tw_operator ops[] = {{.code = 124, .n_inputs = 1, .inputs = d_in, .n_outputs = 1, .outputs = d_out},
                         {.code = TW_OP_FULLY_CONNECTED, .n_inputs = 2, .inputs = f_in, .n_outputs = 1,
                          .outputs = f_out, .options = tw_fully_connected_options(0, false)}};
    tw_subgraph g = {.n_tensors = 4, .tensors = t, .n_inputs = 1, .inputs = gin, .n_outputs = 1,
                     .outputs = f_out, .n_operators = 2, .operators = ops};
    emit("densify_sparse", &g);
    /* The same sparse weights read directly (densified at load). */
    int32_t f2_in[] = {0, 1};
    ops[1].inputs = f2_in;
    g.operators = &ops[1];
    g.n_operators = 1;
    emit("sparse_constant", &g);
  }
  {
    /* Custom operators: MediaPipe's transposed conv and an unknown one. */
    static const uint8_t tc_opts[] = {1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0};
    tw_tensor t[] = {TW_TENSOR("in", TW_FLOAT32, 4, 1, 2, 2, 2), TW_CONST("w", TW_FLOAT32, w, 4, 2, 3, 3, 2),
                     TW_CONST("b", TW_FLOAT32, bias, 1, 2), TW_TENSOR("out", TW_FLOAT32, 4, 1, 4, 4, 2)};
    int32_t in[] = {0, 1, 2}, out[] = {3};
    tw_operator op = {.code = TW_OP_CUSTOM, .custom_code = "Convolution2DTransposeBias", .n_inputs = 3,
                      .inputs = in, .n_outputs = 1, .outputs = out, .custom_options = tc_opts,
                      .custom_options_size = sizeof tc_opts};
    tw_subgraph g = {.n_tensors = 4, .tensors = t, .n_inputs = 1, .inputs = in, .n_outputs = 1,
                     .outputs = out, .n_operators = 1, .operators = &op};
    emit("custom_transpose_conv", &g);
    op.custom_code = "SomethingElse";
    emit("custom_unknown", &g);
  }
  {
    /* Dynamic batch, rank 6 (collapsed), quantized int8 tensors. */
    static const int32_t sig[] = {-1, 4, 4, 2};
    static const float scale[] = {0.5f};
    static const int64_t zp[] = {3};
    static const tw_quant q = {.n = 1, .scale = scale, .zero_point = zp};
    tw_tensor t[] = {{.name = "in", .type = TW_FLOAT32, .rank = 4, .shape = {1, 4, 4, 2}, .shape_signature = sig},
                     {.name = "out", .type = TW_FLOAT32, .rank = 4, .shape = {1, 4, 4, 2}, .shape_signature = sig}};
    int32_t in[] = {0};
    one_op("dynamic_batch", t, 2, TW_OP_RELU, (tw_options){0}, in, 1);
    tw_tensor r6[] = {TW_TENSOR("in", TW_FLOAT32, 6, 1, 2, 1, 2, 2, 2), TW_TENSOR("out", TW_FLOAT32, 6, 1, 2, 1, 2, 2, 2)};
    one_op("rank6", r6, 2, TW_OP_RELU, (tw_options){0}, in, 1);
    tw_tensor qt[] = {{.name = "in", .type = TW_INT8, .rank = 2, .shape = {1, 8}, .quant = &q},
                      {.name = "out", .type = TW_INT8, .rank = 2, .shape = {1, 8}, .quant = &q}};
    one_op("quantized", qt, 2, TW_OP_RELU, (tw_options){0}, in, 1);
  }
  {
    /* A chain of five operators with a skip connection (planning shape). */
    tw_tensor t[] = {TW_TENSOR("t0", TW_FLOAT32, 4, 1, 4, 4, 4), TW_TENSOR("t1", TW_FLOAT32, 4, 1, 4, 4, 4),
                     TW_TENSOR("t2", TW_FLOAT32, 4, 1, 4, 4, 4), TW_TENSOR("t3", TW_FLOAT32, 4, 1, 4, 4, 4),
                     TW_TENSOR("t4", TW_FLOAT32, 4, 1, 4, 4, 4), TW_TENSOR("t5", TW_FLOAT32, 4, 1, 4, 4, 4)};
    int32_t i0[] = {0}, o0[] = {1}, i1[] = {1}, o1[] = {2}, i2[] = {2}, o2[] = {3}, i3[] = {3, 1}, o3[] = {4},
            i4[] = {4}, o4[] = {5};
    tw_operator ops[] = {{.code = TW_OP_RELU, .n_inputs = 1, .inputs = i0, .n_outputs = 1, .outputs = o0},
                         {.code = TW_OP_LOGISTIC, .n_inputs = 1, .inputs = i1, .n_outputs = 1, .outputs = o1},
                         {.code = TW_OP_RELU6, .n_inputs = 1, .inputs = i2, .n_outputs = 1, .outputs = o2},
                         {.code = TW_OP_ADD, .n_inputs = 2, .inputs = i3, .n_outputs = 1, .outputs = o3,
                          .options = tw_add_options(0)},
                         {.code = TW_OP_RELU, .n_inputs = 1, .inputs = i4, .n_outputs = 1, .outputs = o4}};
    tw_subgraph g = {.n_tensors = 6, .tensors = t, .n_inputs = 1, .inputs = i0, .n_outputs = 1,
                     .outputs = o4, .n_operators = 5, .operators = ops};
    emit("chain", &g);
  }
  return failures ? 1 : 0;
}

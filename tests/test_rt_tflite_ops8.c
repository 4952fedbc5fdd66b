/* The TFLite reader on the operators of issue 8 (PRELU, SOFTMAX, TANH,
 * SUB, DIV, MAXIMUM, MINIMUM, LEAKY_RELU, RESIZE_NEAREST_NEIGHBOR): small
 * one-operator .tflite files (written by tests/tflite_writer.c) are read
 * back, their options checked, and a few run on the GPU against the CPU
 * reference. */
#include <math.h>

#include "rt_support.h"
#include "tflite_writer.h"

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* ---- one-operator models ---- */

typedef struct one_op {
  int32_t code;         /* builtin operator */
  uint8_t options_type; /* BuiltinOptions member, 0 none */
  unsigned n_opts;      /* option fields 0..n_opts-1, as 4-byte scalars */
  uint32_t opts[4];
  bool opt_present[4];
  size_t n_in;
  unsigned rank[3];
  int32_t shape[3][4];
  const void *const_data[3]; /* non-NULL: a constant input (int32 if is_int) */
  size_t const_bytes[3];
  bool is_int[3];
  unsigned out_rank;
  int32_t out_shape[4];
} one_op;

/* The one-operator model of s (tensors in0.., then out; constant inputs
 * keep their data, the others are graph inputs); the option fields are
 * written as 4-byte scalars (bits as given: floats too). */
static uint8_t *write_model(const one_op *s, size_t *size) {
  static const char *const names[4] = {"in0", "in1", "in2", "out"};
  tw_tensor t[4];
  int32_t graph_in[3], op_in[3] = {0, 1, 2}, out = (int32_t)s->n_in;
  size_t n_graph_in = 0;
  memset(t, 0, sizeof t);
  for (size_t i = 0; i <= s->n_in; i++) {
    bool o = i == s->n_in;
    t[i].name = names[o ? 3 : i];
    t[i].type = !o && s->is_int[i] ? TW_INT32 : TW_FLOAT32;
    t[i].rank = o ? s->out_rank : s->rank[i];
    memcpy(t[i].shape, o ? s->out_shape : s->shape[i], t[i].rank * sizeof(int32_t));
    if (!o && s->const_data[i]) {
      t[i].data = s->const_data[i];
      t[i].data_size = s->const_bytes[i];
    } else if (!o) {
      graph_in[n_graph_in++] = (int32_t)i;
    }
  }
  tw_operator op = {.code = s->code, .n_inputs = s->n_in, .inputs = op_in, .n_outputs = 1,
                    .outputs = &out};
  op.options.type = s->options_type;
  for (unsigned i = 0; i < s->n_opts; i++)
    if (s->opt_present[i])
      op.options.fields[op.options.n_fields++] = (tw_field){(uint16_t)i, 4, false, s->opts[i], 0};
  tw_subgraph g = {.n_tensors = s->n_in + 1, .tensors = t, .n_inputs = n_graph_in,
                   .inputs = graph_in, .n_outputs = 1, .outputs = &out, .n_operators = 1,
                   .operators = &op};
  tw_model m = {.description = "one operator", .n_subgraphs = 1, .subgraphs = &g};
  uint8_t *bytes = NULL;
  TG_OK(tw_write(&m, &bytes, size, &tg_err_));
  return bytes;
}

static texmem_model *read_one(const one_op *s, texmem_status want, const char *substr) {
  size_t n = 0;
  uint8_t *bytes = write_model(s, &n);
  texmem_model *m = NULL;
  texmem_error err = {0};
  texmem_status st = texmem_model_read_tflite(bytes, n, &m, &err);
  free(bytes);
  cr_assert_eq(st, want, "read: status %d (%s), expected %d", (int)st, err.message, (int)want);
  if (substr) cr_assert(strstr(err.message, substr), "%s", err.message);
  if (st) {
    cr_assert_null(m);
    return NULL;
  }
  cr_assert_eq(texmem_model_op_count(m), 1);
  return m;
}

/* A float data tensor input of shape s (rank r). */
static void data_input(one_op *o, size_t i, unsigned r, const int32_t *s) {
  o->rank[i] = r;
  memcpy(o->shape[i], s, r * sizeof *s);
  if (i + 1 > o->n_in) o->n_in = i + 1;
}

static void set_out(one_op *o, unsigned r, const int32_t *s) {
  o->out_rank = r;
  memcpy(o->out_shape, s, r * sizeof *s);
}

static void opt(one_op *o, unsigned id, uint32_t bits) {
  o->opts[id] = bits;
  o->opt_present[id] = true;
  if (id + 1 > o->n_opts) o->n_opts = id + 1;
}

/* Runs m on the GPU (fp32, BEST and NAIVE, reuse checker on) against the
 * CPU reference. */
static void run_check(texmem_model *m, const char *what) {
  texmem_gl_context *ctx = tg_context();
  size_t n_in;
  float **in = rt_inputs(m, 3, &n_in);
  texmem_ref_result *ref = rt_reference(m, in);
  texmem_runtime_desc best = {.precision = TEXMEM_PRECISION_FP32, .reuse_checker = true};
  texmem_runtime_desc naive = best;
  naive.strategy = TEXMEM_STRATEGY_NAIVE;
  rt_outputs a = rt_run(ctx, m, &best, in), b = rt_run(ctx, m, &naive, in);
  rt_compare(m, &a, ref, 1e-4, 1e-5, what);
  rt_assert_identical(&a, &b, what);
  rt_outputs_free(&a);
  rt_outputs_free(&b);
  texmem_ref_result_destroy(ref);
  rt_free_arrays(in, n_in);
  texmem_gl_context_destroy(ctx);
}

enum {
  SOFTMAX = 25, TANH = 28, SUB = 41, DIV = 42, PRELU = 54, MAXIMUM = 55, MINIMUM = 57,
  RESIZE_NEAREST = 97, LEAKY_RELU = 98
};
enum { O_SOFTMAX = 9, O_SUB = 28, O_DIV = 29, O_MAXMIN = 39, O_RESIZE_NEAREST = 74, O_LEAKY = 75 };

static const int32_t s4[4] = {2, 3, 4, 6};

Test(rt_tflite_ops8, leaky_relu_alpha) {
  one_op o = {.code = LEAKY_RELU, .options_type = O_LEAKY};
  data_input(&o, 0, 4, s4);
  set_out(&o, 4, s4);
  opt(&o, 0, f32_bits(0.25f));
  texmem_model *m = read_one(&o, TEXMEM_STATUS_OK, NULL);
  const texmem_op *op = texmem_model_op(m, 0);
  cr_assert_eq(op->type, TEXMEM_OP_LEAKY_RELU);
  cr_assert_float_eq(op->options.alpha, 0.25f, 0.0f);
  run_check(m, "LEAKY_RELU from a .tflite, batch 2");
  texmem_model_destroy(m);
  /* A non-finite alpha is a bad model naming the field. */
  o.opts[0] = f32_bits(NAN);
  read_one(&o, TEXMEM_STATUS_BAD_MODEL, "alpha");
}

Test(rt_tflite_ops8, softmax_beta) {
  one_op o = {.code = SOFTMAX, .options_type = O_SOFTMAX};
  const int32_t s[2] = {3, 10};
  data_input(&o, 0, 2, s);
  set_out(&o, 2, s);
  opt(&o, 0, f32_bits(0.5f));
  texmem_model *m = read_one(&o, TEXMEM_STATUS_OK, NULL);
  cr_assert_eq(texmem_model_op(m, 0)->type, TEXMEM_OP_SOFTMAX);
  cr_assert_float_eq(texmem_model_op(m, 0)->options.beta, 0.5f, 0.0f);
  run_check(m, "SOFTMAX beta 0.5 from a .tflite");
  texmem_model_destroy(m);
  /* No options table: beta is the schema default 0, as TFLite reads it
   * (every output 1/C). */
  o.options_type = 0;
  m = read_one(&o, TEXMEM_STATUS_OK, NULL);
  cr_assert_float_eq(texmem_model_op(m, 0)->options.beta, 0.0f, 0.0f);
  run_check(m, "SOFTMAX without options (beta 0)");
  texmem_model_destroy(m);
  o.options_type = O_SOFTMAX;
  o.opts[0] = f32_bits(INFINITY);
  read_one(&o, TEXMEM_STATUS_BAD_MODEL, "beta");
}

Test(rt_tflite_ops8, sub_div_fused_activation) {
  const int32_t c[1] = {6};
  static const float k[6] = {0.5f, -1.0f, 2.0f, 1.5f, -0.25f, 3.0f};
  for (int t = 0; t < 2; t++) {
    one_op o = {.code = t ? DIV : SUB, .options_type = t ? O_DIV : O_SUB};
    data_input(&o, 0, 4, s4);
    data_input(&o, 1, 1, c);
    o.const_data[1] = k;
    o.const_bytes[1] = sizeof k;
    set_out(&o, 4, s4);
    opt(&o, 0, t ? 1 : 3); /* RELU for DIV, RELU6 for SUB */
    texmem_model *m = read_one(&o, TEXMEM_STATUS_OK, NULL);
    const texmem_op *op = texmem_model_op(m, 0);
    cr_assert_eq(op->type, t ? TEXMEM_OP_DIV : TEXMEM_OP_SUB);
    cr_assert_eq(op->options.activation, t ? TEXMEM_ACT_RELU : TEXMEM_ACT_RELU6);
    run_check(m, t ? "DIV by a constant, RELU" : "SUB a constant, RELU6");
    texmem_model_destroy(m);
  }
}

Test(rt_tflite_ops8, codes_without_options) {
  static const struct {
    int32_t code;
    uint8_t options;
    texmem_op_type type;
    size_t n_in;
  } cases[] = {{TANH, 0, TEXMEM_OP_TANH, 1},
               {PRELU, 0, TEXMEM_OP_PRELU, 2},
               {MAXIMUM, O_MAXMIN, TEXMEM_OP_MAXIMUM, 2},
               {MINIMUM, O_MAXMIN, TEXMEM_OP_MINIMUM, 2}};
  const int32_t a[3] = {1, 1, 6};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    one_op o = {.code = cases[i].code, .options_type = cases[i].options};
    data_input(&o, 0, 4, s4);
    if (cases[i].n_in == 2) data_input(&o, 1, 3, a);
    set_out(&o, 4, s4);
    texmem_model *m = read_one(&o, TEXMEM_STATUS_OK, NULL);
    cr_assert_eq(texmem_model_op(m, 0)->type, cases[i].type, "code %d", cases[i].code);
    if (cases[i].code == PRELU) run_check(m, "PRELU with a [1,1,C] alpha tensor");
    texmem_model_destroy(m);
  }
}

Test(rt_tflite_ops8, resize_nearest_options) {
  const int32_t is[4] = {1, 3, 5, 3}, os[4] = {1, 7, 4, 3}, two[1] = {2};
  static const int32_t size[2] = {7, 4};
  for (int v = 0; v < 3; v++) {
    one_op o = {.code = RESIZE_NEAREST, .options_type = O_RESIZE_NEAREST};
    data_input(&o, 0, 4, is);
    data_input(&o, 1, 1, two);
    o.const_data[1] = size;
    o.const_bytes[1] = sizeof size;
    o.is_int[1] = true;
    set_out(&o, 4, os);
    opt(&o, 0, v == 1);
    opt(&o, 1, v == 2);
    texmem_model *m = read_one(&o, TEXMEM_STATUS_OK, NULL);
    const texmem_op *op = texmem_model_op(m, 0);
    cr_assert_eq(op->type, TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR);
    cr_assert_eq(op->options.align_corners, v == 1);
    cr_assert_eq(op->options.half_pixel_centers, v == 2);
    run_check(m, v == 0 ? "NEAREST" : v == 1 ? "NEAREST align_corners" : "NEAREST half_pixel");
    texmem_model_destroy(m);
  }
}

/* ---- STRIDED_SLICE, SPLIT, SPLIT_V, TRANSPOSE_CONV through the reader ---- */

/* Reads the model of the given tensors and one operator (inputs 0..n_in-1,
 * outputs after them); want: the status, substr: in its message. */
static texmem_model *read_tw(const tw_tensor *t, size_t n_in, size_t n_out, int32_t code,
                             tw_options opts, texmem_status want, const char *substr) {
  uint8_t *bytes = NULL;
  size_t size = 0;
  TG_OK(tw_write_one_op(t, n_in, n_out, code, opts, &bytes, &size, &tg_err_));
  texmem_model *model = NULL;
  texmem_error err = {0};
  texmem_status st = texmem_model_read_tflite(bytes, size, &model, &err);
  free(bytes);
  cr_assert_eq(st, want, "status %d (%s), expected %d", (int)st, err.message, (int)want);
  if (substr) cr_assert(strstr(err.message, substr), "%s", err.message);
  return model;
}

Test(rt_tflite_ops8, strided_slice_options) {
  static const int32_t begin[4] = {0, -1, 0, 2}, end[4] = {1, 0, 3, 3}, strides[4] = {1, -2, 1, 1};
  tw_tensor t[5] = {TW_TENSOR("x", TW_FLOAT32, 4, 1, 5, 7, 6),
                    TW_CONST("begin", TW_INT32, begin, 1, 4), TW_CONST("end", TW_INT32, end, 1, 4),
                    TW_CONST("strides", TW_INT32, strides, 1, 4),
                    TW_TENSOR("y", TW_FLOAT32, 3, 1, 2, 7)};
  texmem_model *m =
      read_tw(t, 4, 1, TW_OP_STRIDED_SLICE, tw_strided_slice_options(0, 4, 8), TEXMEM_STATUS_OK, NULL);
  const texmem_op *op = texmem_model_op(m, 0);
  cr_assert_eq(op->type, TEXMEM_OP_STRIDED_SLICE);
  cr_assert_eq(op->options.slice_rank, 4);
  cr_assert_eq(op->options.slice_begin[1], -1);
  cr_assert_eq(op->options.slice_end[2], 3);
  cr_assert_eq(op->options.slice_stride[1], -2);
  cr_assert_eq(op->options.end_mask, 4);
  cr_assert_eq(op->options.shrink_axis_mask, 8);
  run_check(m, "STRIDED_SLICE from a .tflite: negative stride, end mask, shrunk channels");
  texmem_model_destroy(m);
  /* Ellipsis and new-axis masks are outside the IR: the operator plans as
   * OTHER and the runtime names it. */
  tw_options ell = tw_strided_slice_options(0, 0, 0);
  ell.fields[ell.n_fields++] = (tw_field){2, 4, false, 1, 0};
  m = read_tw(t, 4, 1, TW_OP_STRIDED_SLICE, ell, TEXMEM_STATUS_OK, NULL);
  op = texmem_model_op(m, 0);
  cr_assert_eq(op->type, TEXMEM_OP_OTHER);
  cr_assert(op->options.options_unsupported);
  cr_assert_str_eq(texmem_op_name(op), "STRIDED_SLICE");
  texmem_model_destroy(m);
  /* A stride of 0 is a bad model; begin of the wrong length is OTHER. */
  static const int32_t zero[4] = {1, 0, 1, 1}, three[3] = {0, 0, 0};
  tw_tensor z[5];
  memcpy(z, t, sizeof z);
  z[3] = (tw_tensor)TW_CONST("strides", TW_INT32, zero, 1, 4);
  read_tw(z, 4, 1, TW_OP_STRIDED_SLICE, tw_strided_slice_options(0, 0, 0), TEXMEM_STATUS_BAD_MODEL,
          "stride");
  memcpy(z, t, sizeof z);
  z[1] = (tw_tensor)TW_CONST("begin", TW_INT32, three, 1, 3);
  m = read_tw(z, 4, 1, TW_OP_STRIDED_SLICE, tw_strided_slice_options(0, 0, 0), TEXMEM_STATUS_OK,
              NULL);
  cr_assert_eq(texmem_model_op(m, 0)->type, TEXMEM_OP_OTHER);
  texmem_model_destroy(m);
  /* An output shape the slice does not give is reported when run. */
  memcpy(z, t, sizeof z);
  z[4] = (tw_tensor)TW_TENSOR("y", TW_FLOAT32, 3, 1, 3, 7);
  m = read_tw(z, 4, 1, TW_OP_STRIDED_SLICE, tw_strided_slice_options(0, 4, 8), TEXMEM_STATUS_OK,
              NULL);
  texmem_gl_context *ctx = tg_context();
  texmem_runtime *rt = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_runtime_create(ctx, m, NULL, &rt, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "STRIDED_SLICE") && strstr(err.message, "slice gives"), "%s",
            err.message);
  cr_assert_null(rt);
  texmem_gl_context_destroy(ctx);
  texmem_model_destroy(m);
}

Test(rt_tflite_ops8, split_and_split_v) {
  static const int32_t axis[1] = {-1}, sizes[3] = {2, -1, 3};
  tw_tensor t[5] = {TW_CONST("axis", TW_INT32, axis, 1, 1), TW_TENSOR("x", TW_FLOAT32, 4, 2, 3, 4, 9),
                    TW_TENSOR("a", TW_FLOAT32, 4, 2, 3, 4, 3), TW_TENSOR("b", TW_FLOAT32, 4, 2, 3, 4, 3),
                    TW_TENSOR("c", TW_FLOAT32, 4, 2, 3, 4, 3)};
  texmem_model *m = read_tw(t, 2, 3, TW_OP_SPLIT, tw_split_options(3), TEXMEM_STATUS_OK, NULL);
  const texmem_op *op = texmem_model_op(m, 0);
  cr_assert_eq(op->type, TEXMEM_OP_SPLIT);
  cr_assert_eq(op->n_outputs, 3);
  cr_assert_eq(op->options.axis, 3, "negative axis normalized");
  run_check(m, "SPLIT from a .tflite, 3 outputs, batch 2");
  texmem_model_destroy(m);
  /* num_splits must be the number of outputs. */
  read_tw(t, 2, 3, TW_OP_SPLIT, tw_split_options(2), TEXMEM_STATUS_BAD_MODEL, "num_splits");
  /* SPLIT_V: data, sizes (-1 = the rest), axis. */
  tw_tensor v[6] = {TW_TENSOR("x", TW_FLOAT32, 4, 2, 3, 4, 9), TW_CONST("sizes", TW_INT32, sizes, 1, 3),
                    TW_CONST("axis", TW_INT32, axis, 1, 1), TW_TENSOR("a", TW_FLOAT32, 4, 2, 3, 4, 2),
                    TW_TENSOR("b", TW_FLOAT32, 4, 2, 3, 4, 4), TW_TENSOR("c", TW_FLOAT32, 4, 2, 3, 4, 3)};
  m = read_tw(v, 3, 3, TW_OP_SPLIT_V, tw_split_v_options(3), TEXMEM_STATUS_OK, NULL);
  cr_assert_eq(texmem_model_op(m, 0)->type, TEXMEM_OP_SPLIT_V);
  run_check(m, "SPLIT_V from a .tflite, sizes 2, -1, 3");
  texmem_model_destroy(m);
  /* Outputs that do not add up to the input: reported when run. */
  v[5] = (tw_tensor)TW_TENSOR("c", TW_FLOAT32, 4, 2, 3, 4, 4);
  m = read_tw(v, 3, 3, TW_OP_SPLIT_V, tw_split_v_options(3), TEXMEM_STATUS_OK, NULL);
  texmem_gl_context *ctx = tg_context();
  texmem_runtime *rt = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_runtime_create(ctx, m, NULL, &rt, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "SPLIT_V") && strstr(err.message, "add up"), "%s", err.message);
  texmem_gl_context_destroy(ctx);
  texmem_model_destroy(m);
  /* An axis out of range is a bad model. */
  static const int32_t bad_axis[1] = {4};
  t[0] = (tw_tensor)TW_CONST("axis", TW_INT32, bad_axis, 1, 1);
  read_tw(t, 2, 3, TW_OP_SPLIT, tw_split_options(3), TEXMEM_STATUS_BAD_MODEL, "axis");
}

Test(rt_tflite_ops8, transpose_conv_builtin) {
  static const int32_t shape[4] = {1, 9, 13, 3};
  static float w[3 * 3 * 3 * 4], bias[3];
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) w[i] = (float)((int)(i * 7 % 11) - 5) / 8.0f;
  for (int i = 0; i < 3; i++) bias[i] = 0.25f * (float)i - 0.3f;
  tw_tensor t[5] = {TW_CONST("output_shape", TW_INT32, shape, 1, 4),
                    TW_CONST("w", TW_FLOAT32, w, 4, 3, 3, 3, 4), TW_TENSOR("x", TW_FLOAT32, 4, 1, 5, 7, 4),
                    TW_CONST("bias", TW_FLOAT32, bias, 1, 3), TW_TENSOR("y", TW_FLOAT32, 4, 1, 9, 13, 3)};
  texmem_model *m = read_tw(t, 4, 1, TW_OP_TRANSPOSE_CONV,
                            tw_transpose_conv_options(TW_SAME, 2, 2, TW_ACT_RELU), TEXMEM_STATUS_OK,
                            NULL);
  const texmem_op *op = texmem_model_op(m, 0);
  cr_assert_eq(op->type, TEXMEM_OP_TRANSPOSE_CONV);
  cr_assert_eq(op->options.stride_w, 2);
  cr_assert_eq(op->options.padding, TEXMEM_PADDING_SAME);
  cr_assert_eq(op->options.activation, TEXMEM_ACT_RELU);
  run_check(m, "TRANSPOSE_CONV from a .tflite, SAME stride 2, bias, RELU");
  texmem_model_destroy(m);
  /* output_shape contradicting the output tensor: reported when run. */
  static const int32_t other[4] = {1, 10, 13, 3};
  t[0] = (tw_tensor)TW_CONST("output_shape", TW_INT32, other, 1, 4);
  m = read_tw(t, 4, 1, TW_OP_TRANSPOSE_CONV, tw_transpose_conv_options(TW_SAME, 2, 2, TW_ACT_NONE),
              TEXMEM_STATUS_OK, NULL);
  texmem_gl_context *ctx = tg_context();
  texmem_runtime *rt = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_runtime_create(ctx, m, NULL, &rt, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "output_shape"), "%s", err.message);
  texmem_gl_context_destroy(ctx);
  texmem_model_destroy(m);
  /* A stride of 0 is a bad model. */
  read_tw(t, 4, 1, TW_OP_TRANSPOSE_CONV, tw_transpose_conv_options(TW_SAME, 0, 2, TW_ACT_NONE),
          TEXMEM_STATUS_BAD_MODEL, "stride_w");
}

/* CONCATENATION has no input limit at load (the runtime splits it into
 * passes of at most 8 images): 300 inputs, more than the byte-sized limit
 * the reader once had. */
Test(rt_tflite_ops8, concatenation_300_inputs) {
  enum { N = 300 };
  static tw_tensor t[N + 1];
  static int32_t ins[N];
  for (size_t i = 0; i < N; i++) {
    t[i] = (tw_tensor)TW_TENSOR("x", TW_FLOAT32, 4, 1, 2, 1, 1 + (int32_t)(i % 3));
    ins[i] = (int32_t)i;
  }
  int32_t out = N, channels = 0;
  for (size_t i = 0; i < N; i++) channels += t[i].shape[3];
  t[N] = (tw_tensor)TW_TENSOR("y", TW_FLOAT32, 4, 1, 2, 1, channels);
  tw_operator op = {.code = TW_OP_CONCATENATION, .n_inputs = N, .inputs = ins, .n_outputs = 1,
                    .outputs = &out, .options = tw_concatenation_options(3, TW_ACT_NONE)};
  tw_subgraph g = {.n_tensors = N + 1, .tensors = t, .n_inputs = N, .inputs = ins, .n_outputs = 1,
                   .outputs = &out, .n_operators = 1, .operators = &op};
  tw_model m = {.description = "concat 300", .n_subgraphs = 1, .subgraphs = &g};
  uint8_t *bytes = NULL;
  size_t size = 0;
  TG_OK(tw_write(&m, &bytes, &size, &tg_err_));
  texmem_model *model = NULL;
  TG_OK(texmem_model_read_tflite(bytes, size, &model, &tg_err_));
  free(bytes);
  const texmem_op *o = texmem_model_op(model, 0);
  cr_assert_eq(o->type, TEXMEM_OP_CONCATENATION);
  cr_assert_eq(o->n_inputs, N);
  run_check(model, "CONCATENATION of 300 inputs along unaligned channels");
  texmem_model_destroy(model);
}

/* The reader on STRIDED_SLICE, SPLIT, SPLIT_V and TRANSPOSE_CONV with odd
 * or hostile parameters (no GL): int64 indices past int32 are clamped,
 * non-constant parameters keep the operator as OTHER (it still plans),
 * wrong counts are bad models naming the operator; the CPU reference
 * agrees with TFLite's rules on a clamped slice. Models come from
 * tests/tflite_writer.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "support.h"
#include "texmem/model.h"
#include "tflite_writer.h"

/* One operator over tensors t (inputs 0..n_in-1, outputs after them);
 * tensors without data are graph inputs. */
static texmem_status read_op(const tw_tensor *t, size_t n_in, size_t n_out, int32_t code,
                             tw_options opts, texmem_model **out, texmem_error *err) {
  uint8_t *bytes = NULL;
  size_t size = 0;
  texmem_error werr = {0};
  cr_assert_eq(tw_write_one_op(t, n_in, n_out, code, opts, &bytes, &size, &werr),
               TEXMEM_STATUS_OK, "%s", werr.message);
  texmem_status st = texmem_model_read_tflite(bytes, size, out, err);
  free(bytes);
  return st;
}

Test(model_slice_split, strided_slice_int64_indices_are_clamped) {
  static const int64_t begin[2] = {INT64_MIN, 1}, end[2] = {INT64_MAX, INT64_MIN},
                       strides[2] = {1, INT64_MIN};
  tw_tensor t[5] = {TW_TENSOR("x", TW_FLOAT32, 2, 3, 10), TW_CONST("b", TW_INT64, begin, 1, 2),
                    TW_CONST("e", TW_INT64, end, 1, 2), TW_CONST("s", TW_INT64, strides, 1, 2),
                    TW_TENSOR("y", TW_FLOAT32, 2, 3, 1)};
  texmem_model *m = NULL;
  texmem_error err = {0};
  cr_assert_eq(read_op(t, 4, 1, TW_OP_STRIDED_SLICE, tw_strided_slice_options(0, 0, 0), &m, &err),
               TEXMEM_STATUS_OK, "%s", err.message);
  const texmem_op *op = texmem_model_op(m, 0);
  cr_assert_eq(op->type, TEXMEM_OP_STRIDED_SLICE);
  cr_assert_eq(op->options.slice_begin[0], INT32_MIN);
  cr_assert_eq(op->options.slice_end[0], INT32_MAX);
  cr_assert_eq(op->options.slice_end[1], INT32_MIN);
  cr_assert_eq(op->options.slice_stride[1], -INT32_MAX);
  /* The reference follows TFLite: axis 0 from 0 to 3; axis 1 runs from 1
   * down past the start of the axis: one huge negative step takes one
   * element. */
  float x[30], y[3];
  for (int i = 0; i < 30; i++) x[i] = (float)i;
  texmem_ref_tensor in[1] = {texmem_ref_make(x, 2, (int32_t[]){3, 10})};
  texmem_ref_tensor o = texmem_ref_make(y, 2, (int32_t[]){3, 1});
  cr_assert_eq(texmem_ref_strided_slice(&op->options, in, 1, &o, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  cr_assert_float_eq(y[0], 1.0f, 0.0f);
  cr_assert_float_eq(y[2], 21.0f, 0.0f);
  texmem_model_destroy(m);
}

Test(model_slice_split, non_constant_parameters_keep_the_operator_as_other) {
  static const int32_t ones[4] = {1, 1, 1, 1};
  /* begin is a graph input. */
  tw_tensor t[5] = {TW_TENSOR("x", TW_FLOAT32, 4, 1, 2, 3, 4), TW_TENSOR("b", TW_INT32, 1, 4),
                    TW_CONST("e", TW_INT32, ones, 1, 4), TW_CONST("s", TW_INT32, ones, 1, 4),
                    TW_TENSOR("y", TW_FLOAT32, 4, 1, 1, 1, 1)};
  texmem_model *m = NULL;
  texmem_error err = {0};
  cr_assert_eq(read_op(t, 4, 1, TW_OP_STRIDED_SLICE, tw_strided_slice_options(0, 0, 0), &m, &err),
               TEXMEM_STATUS_OK, "%s", err.message);
  cr_assert_eq(texmem_model_op(m, 0)->type, TEXMEM_OP_OTHER);
  cr_assert(texmem_model_op(m, 0)->options.options_unsupported);
  texmem_model_destroy(m);
  /* SPLIT whose axis is a graph input. */
  tw_tensor s[4] = {TW_TENSOR("axis", TW_INT32, 1, 1), TW_TENSOR("x", TW_FLOAT32, 4, 1, 2, 3, 4),
                    TW_TENSOR("a", TW_FLOAT32, 4, 1, 2, 3, 2), TW_TENSOR("b", TW_FLOAT32, 4, 1, 2, 3, 2)};
  cr_assert_eq(read_op(s, 2, 2, TW_OP_SPLIT, tw_split_options(2), &m, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  const texmem_op *op = texmem_model_op(m, 0);
  cr_assert_eq(op->type, TEXMEM_OP_OTHER);
  cr_assert_eq(op->n_outputs, 2, "both outputs kept for planning");
  cr_assert_str_eq(texmem_op_name(op), "SPLIT");
  texmem_model_destroy(m);
}

Test(model_slice_split, bad_counts_name_the_operator) {
  static const int32_t axis[1] = {3};
  tw_tensor s[4] = {TW_CONST("axis", TW_INT32, axis, 1, 1), TW_TENSOR("x", TW_FLOAT32, 4, 1, 2, 3, 4),
                    TW_TENSOR("a", TW_FLOAT32, 4, 1, 2, 3, 2), TW_TENSOR("b", TW_FLOAT32, 4, 1, 2, 3, 2)};
  texmem_model *m = NULL;
  texmem_error err = {0};
  /* No options: num_splits reads 0, not the 2 outputs. */
  cr_assert_eq(read_op(s, 2, 2, TW_OP_SPLIT, (tw_options){0}, &m, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "SPLIT") && strstr(err.message, "num_splits"), "%s", err.message);
  cr_assert_null(m);
  /* SPLIT_V with two inputs (sizes but no axis). */
  static const int32_t sizes[2] = {2, 2};
  tw_tensor v[4] = {TW_TENSOR("x", TW_FLOAT32, 4, 1, 2, 3, 4), TW_CONST("sizes", TW_INT32, sizes, 1, 2),
                    TW_TENSOR("a", TW_FLOAT32, 4, 1, 2, 3, 2), TW_TENSOR("b", TW_FLOAT32, 4, 1, 2, 3, 2)};
  cr_assert_eq(read_op(v, 2, 2, TW_OP_SPLIT_V, tw_split_v_options(2), &m, &err),
               TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "SPLIT_V"), "%s", err.message);
  /* STRIDED_SLICE with two outputs. */
  static const int32_t z[4] = {0, 0, 0, 0}, one[4] = {1, 1, 1, 1};
  tw_tensor t[6] = {TW_TENSOR("x", TW_FLOAT32, 4, 1, 2, 3, 4), TW_CONST("b", TW_INT32, z, 1, 4),
                    TW_CONST("e", TW_INT32, one, 1, 4), TW_CONST("s", TW_INT32, one, 1, 4),
                    TW_TENSOR("y", TW_FLOAT32, 4, 1, 1, 1, 1), TW_TENSOR("y2", TW_FLOAT32, 4, 1, 1, 1, 1)};
  cr_assert_eq(read_op(t, 4, 2, TW_OP_STRIDED_SLICE, tw_strided_slice_options(0, 0, 0), &m, &err),
               TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "STRIDED_SLICE"), "%s", err.message);
  /* TRANSPOSE_CONV without its data input. */
  static const int32_t shape[4] = {1, 4, 4, 2};
  static const float w[2 * 3 * 3 * 2] = {0};
  tw_tensor c[3] = {TW_CONST("shape", TW_INT32, shape, 1, 4), TW_CONST("w", TW_FLOAT32, w, 4, 2, 3, 3, 2),
                    TW_TENSOR("y", TW_FLOAT32, 4, 1, 4, 4, 2)};
  cr_assert_eq(read_op(c, 2, 1, TW_OP_TRANSPOSE_CONV,
                       tw_transpose_conv_options(TW_SAME, 2, 2, TW_ACT_NONE), &m, &err),
               TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "TRANSPOSE_CONV"), "%s", err.message);
}

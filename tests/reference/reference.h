/* CPU reference implementation of the texmem IR operators: plain, obviously
 * correct fp32 loops, used by the tests to check GPU inference. Not part of
 * the installed library (prefix texmem_ref_).
 *
 * Host tensors are dense and row-major in their shape as written; for rank
 * 4 that is BHWC. Semantics follow TFLite's reference kernels (MediaPipe's
 * for CONV_2D_TRANSPOSE_BIAS).
 *
 * Ownership: texmem_ref_tensor data is owned by whoever allocated it; the
 * op functions only read inputs and write the caller's output buffer. A
 * texmem_ref_result is owned by the caller and freed with
 * texmem_ref_result_destroy (NULL is a no-op). */
#ifndef TEXMEM_TESTS_REFERENCE_H
#define TEXMEM_TESTS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "texmem/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct texmem_ref_tensor {
  unsigned rank;                  /* 0..TEXMEM_MAX_RANK */
  int32_t shape[TEXMEM_MAX_RANK]; /* rank entries, each >= 1 */
  float *data;                    /* NULL: optional input absent */
} texmem_ref_tensor;

/* A tensor view; shape has rank entries. */
texmem_ref_tensor texmem_ref_make(float *data, unsigned rank, const int32_t *shape);
/* Element count (product of the shape). */
size_t texmem_ref_count(const texmem_ref_tensor *t);
/* BHWC view of the shape, as texmem_tensor's b,h,w,c (rank 3 = B,W,C;
 * rank 2 = B,C; rank 1 = C). */
void texmem_ref_bhwc(const texmem_ref_tensor *t, uint32_t bhwc[4]);

/* TFLite geometry. Output size of a window op: SAME = ceil(in/stride),
 * VALID = ceil((in - effective_k + 1)/stride), effective_k = (k-1)*d+1;
 * 0 when VALID does not fit. */
int32_t texmem_ref_out_size(texmem_padding p, int32_t in, int32_t k, int32_t stride,
                            int32_t dilation);
/* Padding before the first element: max((out-1)*s + eff_k - in, 0) / 2
 * (the extra odd element goes after). */
int32_t texmem_ref_pad_before(int32_t in, int32_t out, int32_t k, int32_t stride,
                              int32_t dilation);

/* Applies a fused activation in place (NONE, RELU, RELU_N1_TO_1, RELU6,
 * TANH); UNSUPPORTED_OP for others. */
texmem_status texmem_ref_activate(texmem_activation a, float *x, size_t n, texmem_error *err);

/* Runs one operator. in[] follows TFLite's input order (data first, then
 * weights, bias...; a NULL data pointer = optional input absent; non-float
 * inputs such as PAD paddings, MEAN axes or RESHAPE shapes are not read:
 * their values come from the options). out->rank/shape must be set to the
 * operator's output shape (checked: INVALID_ARGUMENT on mismatch) and
 * out->data must hold texmem_ref_count(out) floats. RESIZE_BILINEAR takes
 * its output size and RESHAPE its shape from out. */
texmem_status texmem_ref_op(texmem_op_type type, const texmem_op_options *o,
                            const texmem_ref_tensor *in, size_t n_in, texmem_ref_tensor *out,
                            texmem_error *err);

/* One family per file; texmem_ref_op dispatches to these. */
texmem_status texmem_ref_conv2d(const texmem_op_options *o, const texmem_ref_tensor *in,
                                size_t n_in, texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_depthwise(const texmem_op_options *o, const texmem_ref_tensor *in,
                                   size_t n_in, texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_transpose_conv_bias(const texmem_op_options *o,
                                             const texmem_ref_tensor *in, size_t n_in,
                                             texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_fully_connected(const texmem_op_options *o,
                                         const texmem_ref_tensor *in, size_t n_in,
                                         texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_binary(texmem_op_type type, const texmem_op_options *o,
                                const texmem_ref_tensor *in, size_t n_in,
                                texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_unary(texmem_op_type type, const texmem_ref_tensor *in, size_t n_in,
                               texmem_ref_tensor *out, texmem_error *err);
/* As texmem_ref_unary, with options (LEAKY_RELU's alpha). */
texmem_status texmem_ref_unary_opt(texmem_op_type type, const texmem_op_options *o,
                                   const texmem_ref_tensor *in, size_t n_in,
                                   texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_softmax(const texmem_op_options *o, const texmem_ref_tensor *in,
                                 size_t n_in, texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_resize_nearest(const texmem_op_options *o, const texmem_ref_tensor *in,
                                        size_t n_in, texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_pool(texmem_op_type type, const texmem_op_options *o,
                              const texmem_ref_tensor *in, size_t n_in, texmem_ref_tensor *out,
                              texmem_error *err);
texmem_status texmem_ref_mean(const texmem_op_options *o, const texmem_ref_tensor *in,
                              size_t n_in, texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_resize_bilinear(const texmem_op_options *o,
                                         const texmem_ref_tensor *in, size_t n_in,
                                         texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_pad(const texmem_op_options *o, const texmem_ref_tensor *in,
                             size_t n_in, texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_concatenation(const texmem_op_options *o,
                                       const texmem_ref_tensor *in, size_t n_in,
                                       texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_reshape(const texmem_ref_tensor *in, size_t n_in,
                                 texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_depth_to_space(const texmem_op_options *o,
                                        const texmem_ref_tensor *in, size_t n_in,
                                        texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_strided_slice(const texmem_op_options *o, const texmem_ref_tensor *in,
                                       size_t n_in, texmem_ref_tensor *out, texmem_error *err);
/* TFLite's builtin TRANSPOSE_CONV: in = output_shape (not read), OHWI
 * weights, data, optional bias; output size from out. */
texmem_status texmem_ref_transpose_conv(const texmem_op_options *o, const texmem_ref_tensor *in,
                                        size_t n_in, texmem_ref_tensor *out, texmem_error *err);
/* SPLIT (in = axis (not read), data) and SPLIT_V (data, sizes, axis; not
 * read): the axis from o->axis, piece sizes from the n_out output shapes.
 * texmem_ref_op runs them with one output only. */
texmem_status texmem_ref_split(texmem_op_type type, const texmem_op_options *o,
                               const texmem_ref_tensor *in, size_t n_in, texmem_ref_tensor *outs,
                               size_t n_out, texmem_error *err);
/* MediaPipe's custom operators (version 2; options parsed from
 * o->custom_options): Landmarks2TransformMatrix (landmarks (B,N,3) ->
 * (B,4,4)), TransformTensorBilinear (data (B,H,W,C), matrix (B|1,4,4) ->
 * (B,output_height,output_width,C)), TransformLandmarks (landmarks
 * (B,N,2|3), matrix -> same shape). ref_mediapipe.c. */
texmem_status texmem_ref_landmarks_to_transform_matrix(const texmem_op_options *o,
                                                       const texmem_ref_tensor *in, size_t n_in,
                                                       texmem_ref_tensor *out,
                                                       texmem_error *err);
texmem_status texmem_ref_transform_tensor_bilinear(const texmem_op_options *o,
                                                   const texmem_ref_tensor *in, size_t n_in,
                                                   texmem_ref_tensor *out, texmem_error *err);
texmem_status texmem_ref_transform_landmarks(const texmem_op_options *o,
                                             const texmem_ref_tensor *in, size_t n_in,
                                             texmem_ref_tensor *out, texmem_error *err);

/* ---- whole models ---- */

typedef struct texmem_ref_result {
  size_t n_tensors;  /* texmem_model_tensor_count of the model */
  float **values;    /* per tensor: its values (dense, shape order), or
                        NULL for non-float constants */
  size_t *counts;    /* per tensor: element count */
} texmem_ref_result;

/* Runs every operator of m in order. inputs[i] holds the values of graph
 * input i (texmem_model_inputs order; element count of that tensor; read
 * only for the call). Float constants are copied in; PAD paddings, MEAN
 * axes and RESHAPE shapes come from the options or, when those are empty,
 * from the int32 constant input. *out receives every tensor's values. */
texmem_status texmem_ref_run(const texmem_model *m, const float *const *inputs,
                             size_t n_inputs, texmem_ref_result **out, texmem_error *err);
void texmem_ref_result_destroy(texmem_ref_result *r);

#ifdef __cplusplus
}
#endif
#endif

/* A small TFLite flatbuffer writer for tests: builds a valid schema-v3
 * .tflite file from a compact description (several subgraphs, any number
 * of operators, float or integer tensors, optional quantization), so the
 * project can make single-operator models and whole graphs that both
 * texmem's reader and the real TFLite load.
 *
 * The description is borrowed for the call; nothing in it is kept. The
 * file goes to *out (malloc'd, caller frees). Operator codes are
 * deduplicated; every constant tensor gets its own buffer (buffer 0 is the
 * empty one, as TFLite's converter writes). Errors return a texmem_status
 * with a message naming the subgraph, tensor or operator. */
#ifndef TEXMEM_TESTS_TFLITE_WRITER_H
#define TEXMEM_TESTS_TFLITE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "texmem/status.h"

/* TensorType values of the TFLite schema. */
enum {
  TW_FLOAT32 = 0, TW_FLOAT16 = 1, TW_INT32 = 2, TW_UINT8 = 3, TW_INT64 = 4,
  TW_BOOL = 6, TW_INT16 = 7, TW_INT8 = 9
};
/* Padding and ActivationFunctionType. */
enum { TW_SAME = 0, TW_VALID = 1 };
enum { TW_ACT_NONE = 0, TW_ACT_RELU = 1, TW_ACT_RELU_N1_TO_1 = 2, TW_ACT_RELU6 = 3, TW_ACT_TANH = 4 };
/* BuiltinOperator codes (the schema's numbers). */
enum {
  TW_OP_ADD = 0, TW_OP_AVERAGE_POOL_2D = 1, TW_OP_CONCATENATION = 2, TW_OP_CONV_2D = 3,
  TW_OP_DEPTHWISE_CONV_2D = 4, TW_OP_DEPTH_TO_SPACE = 5, TW_OP_DEQUANTIZE = 6,
  TW_OP_FULLY_CONNECTED = 9, TW_OP_LOGISTIC = 14, TW_OP_MAX_POOL_2D = 17, TW_OP_MUL = 18,
  TW_OP_RELU = 19, TW_OP_RELU6 = 21, TW_OP_RESHAPE = 22, TW_OP_RESIZE_BILINEAR = 23,
  TW_OP_CUSTOM = 32, TW_OP_PAD = 34, TW_OP_MEAN = 40, TW_OP_QUANTIZE = 114,
  TW_OP_HARD_SWISH = 117, TW_OP_SOFTMAX = 25, TW_OP_TANH = 28, TW_OP_SUB = 41, TW_OP_DIV = 42,
  TW_OP_STRIDED_SLICE = 45, TW_OP_SPLIT = 49, TW_OP_PRELU = 54, TW_OP_MAXIMUM = 55,
  TW_OP_MINIMUM = 57, TW_OP_TRANSPOSE_CONV = 67, TW_OP_RESIZE_NEAREST_NEIGHBOR = 97,
  TW_OP_LEAKY_RELU = 98, TW_OP_SPLIT_V = 102
};

#define TW_MAX_FIELDS 8
#define TW_MAX_VEC 8

/* One scalar field of an options table: field id (schema order), size in
 * bytes (1, 4 or 8) and value (float fields: is_float, value in f). */
typedef struct tw_field {
  uint16_t id;
  uint8_t size;
  bool is_float;
  int64_t i;
  double f;
} tw_field;

/* Builtin options: the BuiltinOptions union member (0 = none), its scalar
 * fields and at most one int32 vector field (vec_len 0 = none). Made by
 * the tw_*_options helpers below or by hand for any other operator. */
typedef struct tw_options {
  uint8_t type;
  size_t n_fields;
  tw_field fields[TW_MAX_FIELDS];
  uint16_t vec_id;
  size_t vec_len;
  int32_t vec[TW_MAX_VEC];
} tw_options;

/* Quantization parameters (per tensor: n = 1; per channel: n = channels). */
typedef struct tw_quant {
  size_t n;
  const float *scale;
  const int64_t *zero_point;
  int32_t quantized_dimension;
} tw_quant;

/* Sparse constant data (TFLite SparsityParameters): traversal order over
 * the dims and block dims, the block map, and per level a format (0 DENSE
 * with dense_size, 1 SPARSE_CSR with int32 segments and indices). The
 * tensor's data then holds only the stored values. */
#define TW_MAX_LEVELS 8
typedef struct tw_dim_meta {
  uint8_t format;
  int32_t dense_size;
  size_t n_segments, n_indices;
  const int32_t *segments, *indices;
} tw_dim_meta;

typedef struct tw_sparsity {
  size_t n_levels;
  int32_t traversal_order[TW_MAX_LEVELS];
  size_t n_block_map;
  int32_t block_map[TW_MAX_LEVELS];
  tw_dim_meta dims[TW_MAX_LEVELS];
} tw_sparsity;

typedef struct tw_tensor {
  const char *name;    /* NULL = none */
  uint8_t type;        /* TW_FLOAT32 ... */
  unsigned rank;       /* 0..8 */
  int32_t shape[8];
  /* Constant data (little-endian, dense; size must equal the element
   * count times the element size), NULL for a non-constant. */
  const void *data;
  size_t data_size;
  const tw_quant *quant; /* NULL = none */
  /* shape_signature (rank entries, -1 = dynamic dimension), NULL = none. */
  const int32_t *shape_signature;
  bool variable; /* is_variable */
  /* Sparse data (data holds the values, any whole number of elements);
   * NULL = dense. */
  const tw_sparsity *sparsity;
} tw_tensor;

/* Compact tensor entries: a non-constant, and a constant with its data. */
#define TW_TENSOR(nm, ty, rk, ...) {.name = (nm), .type = (ty), .rank = (rk), .shape = {__VA_ARGS__}}
#define TW_CONST(nm, ty, d, rk, ...)                                                 \
  {.name = (nm), .type = (ty), .rank = (rk), .shape = {__VA_ARGS__}, .data = (d),    \
   .data_size = sizeof(d)}

typedef struct tw_operator {
  int32_t code;            /* TW_OP_*, or any BuiltinOperator number */
  const char *custom_code; /* code TW_OP_CUSTOM: its name */
  int32_t version;         /* 0 = 1 */
  size_t n_inputs;
  const int32_t *inputs;   /* tensor indices, -1 = absent optional input */
  size_t n_outputs;
  const int32_t *outputs;
  tw_options options;
  const uint8_t *custom_options;
  size_t custom_options_size;
} tw_operator;

typedef struct tw_subgraph {
  const char *name;
  size_t n_tensors;
  const tw_tensor *tensors;
  size_t n_inputs;
  const int32_t *inputs;
  size_t n_outputs;
  const int32_t *outputs;
  size_t n_operators;
  const tw_operator *operators; /* execution order */
} tw_subgraph;

/* A metadata entry: name and the bytes of its own buffer (placed after
 * the tensors' buffers, data 16-byte aligned); buffer_index >= 0 points
 * the entry at that buffer instead (any number, for hostile files). */
typedef struct tw_metadata {
  const char *name;
  const void *data;
  size_t size;
  int64_t buffer_index; /* -1 = its own buffer */
} tw_metadata;

typedef struct tw_model {
  const char *description;
  size_t n_subgraphs; /* >= 1; subgraph 0 is the main one */
  const tw_subgraph *subgraphs;
} tw_model;

/* Writes the flatbuffer. INVALID_ARGUMENT for a bad description (index out
 * of range, data size not matching the shape, bad rank or field size),
 * OVERFLOW past the 2 GiB flatbuffer limit, OUT_OF_MEMORY. */
texmem_status tw_write(const tw_model *m, uint8_t **out, size_t *size, texmem_error *err);
/* tw_write with metadata entries (n_meta may be 0). */
texmem_status tw_write_meta(const tw_model *m, const tw_metadata *meta, size_t n_meta, uint8_t **out,
                            size_t *size, texmem_error *err);
/* tw_write, then the bytes to path (IO on failure). */
texmem_status tw_write_file(const tw_model *m, const char *path, texmem_error *err);

/* A model of one operator `code` over tensors t: inputs 0..n_in-1 (at
 * most 8), outputs after them (at most 4); tensors without data are the
 * graph inputs, the outputs the graph outputs. */
texmem_status tw_write_one_op(const tw_tensor *t, size_t n_in, size_t n_out, int32_t code,
                              tw_options opts, uint8_t **out, size_t *size, texmem_error *err);

/* Options of the operators texmem runs (schema field order). */
tw_options tw_conv2d_options(int padding, int stride_w, int stride_h, int act, int dilation_w,
                             int dilation_h);
tw_options tw_depthwise_options(int padding, int stride_w, int stride_h, int depth_multiplier,
                                int act, int dilation_w, int dilation_h);
tw_options tw_pool_options(int padding, int stride_w, int stride_h, int filter_w, int filter_h,
                           int act);
tw_options tw_fully_connected_options(int act, bool keep_num_dims);
tw_options tw_concatenation_options(int axis, int act);
tw_options tw_add_options(int act);
tw_options tw_mul_options(int act);
tw_options tw_resize_bilinear_options(bool align_corners, bool half_pixel_centers);
tw_options tw_reshape_options(size_t rank, const int32_t *new_shape);
tw_options tw_reducer_options(bool keep_dims);
tw_options tw_depth_to_space_options(int block_size);
tw_options tw_pad_options(void);
tw_options tw_hard_swish_options(void);
tw_options tw_softmax_options(float beta);
tw_options tw_leaky_relu_options(float alpha);
tw_options tw_sub_options(int act);
tw_options tw_div_options(int act);
tw_options tw_maximum_minimum_options(void);
tw_options tw_resize_nearest_options(bool align_corners, bool half_pixel_centers);
/* Ellipsis and new-axis masks and offset are left at 0. */
tw_options tw_strided_slice_options(int begin_mask, int end_mask, int shrink_axis_mask);
/* act TW_ACT_NONE leaves the fused_activation_function field out (older
 * readers do not know it). */
tw_options tw_transpose_conv_options(int padding, int stride_w, int stride_h, int act);
tw_options tw_split_options(int num_splits);
tw_options tw_split_v_options(int num_splits);
/* Element size of a TensorType (0 if unknown). */
size_t tw_type_size(uint8_t type);

#endif

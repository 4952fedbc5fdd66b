/* TFLite schema constants (field ids are the order of fields in the public
 * schema.fbs, a union taking two ids: type then value) and the reader's
 * internal helpers. */
#ifndef TEXMEM_MODEL_TFLITE_H
#define TEXMEM_MODEL_TFLITE_H

#include <stdbool.h>
#include <stdint.h>

#include "flatbuffer.h"
#include "graph.h"

/* Builtin operator codes used here. */
enum {
  TFL_ADD = 0, TFL_AVERAGE_POOL_2D = 1, TFL_CONCATENATION = 2, TFL_CONV_2D = 3,
  TFL_DEPTHWISE_CONV_2D = 4, TFL_DEPTH_TO_SPACE = 5, TFL_DEQUANTIZE = 6,
  TFL_FULLY_CONNECTED = 9, TFL_LOGISTIC = 14, TFL_MAX_POOL_2D = 17, TFL_MUL = 18,
  TFL_RELU = 19, TFL_RELU6 = 21, TFL_RESHAPE = 22, TFL_RESIZE_BILINEAR = 23,
  TFL_CUSTOM = 32, TFL_PAD = 34, TFL_MEAN = 40, TFL_HARD_SWISH = 117,
  TFL_DENSIFY = 124,
  TFL_SOFTMAX = 25, TFL_TANH = 28, TFL_SUB = 41, TFL_DIV = 42, TFL_PRELU = 54,
  TFL_MAXIMUM = 55, TFL_MINIMUM = 57, TFL_RESIZE_NEAREST_NEIGHBOR = 97, TFL_LEAKY_RELU = 98,
  TFL_STRIDED_SLICE = 45, TFL_SPLIT = 49, TFL_TRANSPOSE_CONV = 67, TFL_SPLIT_V = 102
};

/* BuiltinOptions union member ids. */
enum {
  TFLO_NONE = 0, TFLO_CONV_2D = 1, TFLO_DEPTHWISE_CONV_2D = 2, TFLO_POOL_2D = 5,
  TFLO_FULLY_CONNECTED = 8, TFLO_CONCATENATION = 10, TFLO_ADD = 11,
  TFLO_RESIZE_BILINEAR = 15, TFLO_RESHAPE = 17, TFLO_MUL = 21, TFLO_PAD = 22,
  TFLO_REDUCER = 27, TFLO_DEQUANTIZE = 38, TFLO_HARD_SWISH = 91,
  TFLO_DEPTH_TO_SPACE = 94, TFLO_DENSIFY = 99,
  TFLO_SOFTMAX = 9, TFLO_SUB = 28, TFLO_DIV = 29, TFLO_MAXIMUM_MINIMUM = 39,
  TFLO_RESIZE_NEAREST_NEIGHBOR = 74, TFLO_LEAKY_RELU = 75,
  TFLO_STRIDED_SLICE = 32, TFLO_SPLIT = 35, TFLO_TRANSPOSE_CONV = 49, TFLO_SPLIT_V = 79
};

/* TensorType. */
enum {
  TFLT_FLOAT32 = 0, TFLT_FLOAT16 = 1, TFLT_INT32 = 2, TFLT_UINT8 = 3,
  TFLT_INT64 = 4, TFLT_BOOL = 6, TFLT_INT16 = 7, TFLT_COMPLEX64 = 8, TFLT_INT8 = 9,
  TFLT_FLOAT64 = 10, TFLT_COMPLEX128 = 11, TFLT_UINT64 = 12, TFLT_UINT32 = 15, TFLT_UINT16 = 16,
  TFLT_BFLOAT16 = 18
};

/* Field ids of the tables read. */
enum { MODEL_VERSION = 0, MODEL_OPERATOR_CODES = 1, MODEL_SUBGRAPHS = 2, MODEL_BUFFERS = 4 };
enum { OPCODE_DEPRECATED_BUILTIN = 0, OPCODE_CUSTOM = 1, OPCODE_VERSION = 2, OPCODE_BUILTIN = 3 };
enum { SUBGRAPH_TENSORS = 0, SUBGRAPH_INPUTS = 1, SUBGRAPH_OUTPUTS = 2, SUBGRAPH_OPERATORS = 3 };
enum {
  TENSOR_SHAPE = 0, TENSOR_TYPE = 1, TENSOR_BUFFER = 2, TENSOR_NAME = 3, TENSOR_SPARSITY = 6,
  TENSOR_SHAPE_SIGNATURE = 7
};
enum {
  OP_OPCODE_INDEX = 0, OP_INPUTS = 1, OP_OUTPUTS = 2, OP_BUILTIN_TYPE = 3, OP_BUILTIN = 4,
  OP_CUSTOM_OPTIONS = 5, OP_LARGE_CUSTOM_OFFSET = 9, OP_LARGE_CUSTOM_SIZE = 10
};
enum { BUFFER_DATA = 0, BUFFER_OFFSET = 1, BUFFER_SIZE = 2 };
enum { SPARSITY_TRAVERSAL_ORDER = 0, SPARSITY_BLOCK_MAP = 1, SPARSITY_DIM_METADATA = 2 };
enum {
  DIMMETA_FORMAT = 0, DIMMETA_DENSE_SIZE = 1, DIMMETA_SEGMENTS_TYPE = 2,
  DIMMETA_SEGMENTS = 3, DIMMETA_INDICES_TYPE = 4, DIMMETA_INDICES = 5
};

/* ---- operators (tflite_options.c) ---- */

/* The reader's state (tflite_reader.h), which option parsers reach only
 * through texmem__tfl_const_ints (tflite_constants.c). */
typedef struct texmem__tfl_reader texmem__tfl_reader;
typedef struct texmem__opt_args texmem__opt_args;

/* An operator the IR knows: its builtin code, type, BuiltinOptions member,
 * input count (the first min_in required) and options parser (NULL: none). */
typedef struct texmem__op_spec {
  int32_t code;
  texmem_op_type type;
  uint8_t options;
  uint32_t min_in, max_in;
  texmem_status (*parse)(const texmem__opt_args *a, texmem_op_options *o);
} texmem__op_spec;

/* The spec of a builtin code; NULL when the IR does not know it. */
const texmem__op_spec *texmem__tflite_builtin_spec(int32_t code);
/* Reads operator k's builtin options (table ot) into o. UNSUPPORTED_OP:
 * options outside the IR; BAD_MODEL: options TFLite refuses. */
texmem_status texmem__tflite_builtin_options(texmem__tfl_reader *r, const texmem_model *m, unsigned k,
                                             const texmem__op_spec *sp, const texmem__fb_table *ot,
                                             const int32_t *in, uint32_t n_in, uint32_t n_out,
                                             texmem_op_options *o, texmem_error *err);
/* The spec of a custom operator whose options are parsed (MediaPipe's, in
 * the version implemented); NULL otherwise, with *other_version set when
 * the name is known but the version is not. */
const texmem__op_spec *texmem__tflite_custom_spec(const char *custom, int32_t version, bool *other_version);
/* Parses and checks a custom operator's option bytes (spec from
 * texmem__tflite_custom_spec). */
texmem_status texmem__tflite_custom_options(unsigned k, const texmem__op_spec *sp, const uint8_t *opt, size_t n,
                                            texmem_op_options *o, texmem_error *err);
/* Integer values (int32 or int64) of constant tensor ti, an input of
 * operator k named `what`; at most max of them. */
texmem_status texmem__tfl_const_ints(texmem__tfl_reader *r, unsigned k, const char *opname, const char *what,
                                     int32_t ti, int64_t *vals, size_t max, size_t *n);

/* Name of a builtin code, NULL if unknown. */
const char *texmem__tflite_op_name(int32_t code);

/* Expands the sparse values of tensor `t` (sparsity table sp, `values`
 * holding n_values elements of esize bytes) into a dense, zero-filled
 * buffer of t's shape; *out is malloc'd (caller frees). Every index is
 * checked; dense size is capped at max_bytes. */
texmem_status texmem__tflite_densify(const texmem_tensor *t, size_t index,
                                     const texmem__fb_table *sp,
                                     const uint8_t *values, size_t n_values,
                                     size_t esize, size_t max_bytes,
                                     void **out, size_t *out_size,
                                     texmem_error *err);

/* Fixes the dynamic dimensions (dynamic[i]: bit d = dimension d of tensor
 * i is -1 in shape_signature) from desc's input shapes: graph inputs take
 * the given shapes, any other tensor whose only dynamic dimension is the
 * batch takes the inputs' batch. Anything left dynamic is
 * TEXMEM_STATUS_UNSUPPORTED naming the tensor; element counts stay below
 * max_elements. */
texmem_status texmem__apply_input_shapes(texmem_model *m, const uint8_t *dynamic,
                                         const texmem_model_load_desc *desc,
                                         uint64_t max_elements, texmem_error *err);

#endif

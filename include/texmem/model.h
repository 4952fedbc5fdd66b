/* texmem model: a small graph IR for NN inference (tensors + operators in
 * execution order), a bounds-checked TFLite flatbuffer reader, a builder API
 * for graphs made in code, and the tensor usage records of a graph.
 * Pure C, no GL.
 *
 * Ownership: a texmem_model is owned by the caller and freed with
 * texmem_model_destroy (NULL is a no-op). Pointers returned by accessors
 * (tensors, ops, names, data) are borrowed and stay valid until the model is
 * destroyed or, for the builder, until the next add call (arrays may move).
 * Data passed to the builder is copied. */
#ifndef TEXMEM_MODEL_H
#define TEXMEM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "texmem/plan.h"
#include "texmem/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEXMEM_MAX_RANK 4

/* Element types. FLOAT16 constants are converted to FLOAT32 at load. */
typedef enum texmem_dtype {
  TEXMEM_DTYPE_FLOAT32 = 0,
  TEXMEM_DTYPE_FLOAT16,
  TEXMEM_DTYPE_INT32,
  TEXMEM_DTYPE_UINT8,
  TEXMEM_DTYPE_INT64,
  TEXMEM_DTYPE_BOOL,
  TEXMEM_DTYPE_INT16,
  TEXMEM_DTYPE_INT8,
  /* Planned (records) but never run: */
  TEXMEM_DTYPE_FLOAT64,
  TEXMEM_DTYPE_UINT16,
  TEXMEM_DTYPE_UINT32,
  TEXMEM_DTYPE_UINT64,
  TEXMEM_DTYPE_COMPLEX64,
  TEXMEM_DTYPE_COMPLEX128,
  TEXMEM_DTYPE_BFLOAT16,
  TEXMEM_DTYPE_COUNT_
} texmem_dtype;

/* Bytes of one element; 0 if out of range. */
TEXMEM_API size_t texmem_dtype_size(texmem_dtype t);
/* "float32" etc.; "unknown" if out of range. */
TEXMEM_API const char *texmem_dtype_name(texmem_dtype t);

/* Tensor flags. INTERMEDIATE: produced by an operator and neither a graph
 * input, a graph output nor a constant (what the memory planner places).
 * COLLAPSED: the file's rank was above TEXMEM_MAX_RANK (up to 16); its
 * leading dimensions are merged into shape[0] (element count and row-major
 * order kept, so it plans), and every operator touching it is OTHER. */
enum {
  TEXMEM_TENSOR_INPUT = 1u << 0,
  TEXMEM_TENSOR_OUTPUT = 1u << 1,
  TEXMEM_TENSOR_CONSTANT = 1u << 2,
  TEXMEM_TENSOR_INTERMEDIATE = 1u << 3,
  TEXMEM_TENSOR_COLLAPSED = 1u << 4
};

typedef struct texmem_tensor {
  const char *name;        /* never NULL; "" when the file has none */
  texmem_dtype type;
  unsigned rank;           /* 0..TEXMEM_MAX_RANK */
  int32_t shape[TEXMEM_MAX_RANK]; /* as written (but COLLAPSED): rank entries, rest 1 */
  /* The same shape as BHWC: rank 4 = (B,H,W,C), rank 3 = (B,W,C) with H=1,
   * rank 2 = (B,C) with H=W=1, rank 1 = (C), rank 0 = all 1. */
  uint32_t b, h, w, c;
  uint32_t flags;          /* TEXMEM_TENSOR_* */
  int32_t producer;        /* operator index, or -1 */
  /* Constant data (little-endian, dense, row-major in `shape` order); NULL
   * for non-constants and for constants no operator reads. Float weights
   * are always FLOAT32 here. */
  const void *data;
  size_t data_size;        /* bytes */
} texmem_tensor;

/* X(NAME): the operators of the IR. CONV_2D_TRANSPOSE_BIAS is MediaPipe's
 * custom "Convolution2DTransposeBias" (inputs: data, weights OHWI, bias).
 * PRELU: inputs data, alpha (broadcast to data). SUB, DIV, MAXIMUM,
 * MINIMUM: two inputs, numpy broadcasting. SOFTMAX over the last axis.
 * STRIDED_SLICE: inputs data, begin, end, strides (int constants, read
 * into the slice_* options). TRANSPOSE_CONV is TFLite's builtin (inputs
 * output_shape, weights OHWI, data, optional bias). SPLIT (inputs axis,
 * data) and SPLIT_V (data, size_splits, axis) have several outputs, in
 * order along options.axis.
 * MediaPipe's custom operators (version 2; options stay in custom_options,
 * a FlexBuffers map): LANDMARKS_TO_TRANSFORM_MATRIX is
 * "Landmarks2TransformMatrix" (landmarks (B,N,3) -> matrix (B,4,4)),
 * TRANSFORM_TENSOR_BILINEAR is "TransformTensorBilinear" (data (B,H,W,C) and
 * matrix (B or 1,4,4) -> (B,output_height,output_width,C)),
 * TRANSFORM_LANDMARKS is "TransformLandmarks" (landmarks (B,N,2|3) and
 * matrix -> same shape); see docs/mediapipe-ops.md.
 * OTHER (kept last) is any operator outside the IR, builtin or custom, known
 * to TFLite or not, or a known one whose options the IR cannot express: it
 * keeps its inputs and outputs, so records and plans cover every model, but
 * the runtime cannot execute it (texmem_op_name names it). */
#define TEXMEM_OP_LIST(X)                                                      \
  X(CONV_2D)                                                                   \
  X(DEPTHWISE_CONV_2D)                                                         \
  X(ADD)                                                                       \
  X(MUL)                                                                       \
  X(RELU)                                                                      \
  X(RELU6)                                                                     \
  X(LOGISTIC)                                                                  \
  X(HARD_SWISH)                                                                \
  X(PAD)                                                                       \
  X(MAX_POOL_2D)                                                               \
  X(AVERAGE_POOL_2D)                                                           \
  X(MEAN)                                                                      \
  X(RESIZE_BILINEAR)                                                           \
  X(CONCATENATION)                                                             \
  X(RESHAPE)                                                                   \
  X(FULLY_CONNECTED)                                                           \
  X(DEPTH_TO_SPACE)                                                            \
  X(CONV_2D_TRANSPOSE_BIAS)                                                    \
  X(PRELU)                                                                     \
  X(SOFTMAX)                                                                   \
  X(TANH)                                                                      \
  X(SUB)                                                                       \
  X(DIV)                                                                       \
  X(MAXIMUM)                                                                   \
  X(MINIMUM)                                                                   \
  X(LEAKY_RELU)                                                                \
  X(RESIZE_NEAREST_NEIGHBOR)                                                   \
  X(STRIDED_SLICE)                                                             \
  X(TRANSPOSE_CONV)                                                            \
  X(SPLIT)                                                                     \
  X(SPLIT_V)                                                                   \
  X(LANDMARKS_TO_TRANSFORM_MATRIX)                                             \
  X(TRANSFORM_TENSOR_BILINEAR)                                                 \
  X(TRANSFORM_LANDMARKS)                                                       \
  X(OTHER)

typedef enum texmem_op_type {
#define TEXMEM__OP_ENUM(name) TEXMEM_OP_##name,
  TEXMEM_OP_LIST(TEXMEM__OP_ENUM)
#undef TEXMEM__OP_ENUM
  TEXMEM_OP_COUNT_
} texmem_op_type;

/* "CONV_2D" etc.; NULL if out of range. */
TEXMEM_API const char *texmem_op_type_name(texmem_op_type t);

typedef enum texmem_padding {
  TEXMEM_PADDING_SAME = 0,
  TEXMEM_PADDING_VALID = 1
} texmem_padding;

typedef enum texmem_activation {
  TEXMEM_ACT_NONE = 0,
  TEXMEM_ACT_RELU = 1,
  TEXMEM_ACT_RELU_N1_TO_1 = 2,
  TEXMEM_ACT_RELU6 = 3,
  TEXMEM_ACT_TANH = 4,
  TEXMEM_ACT_SIGN_BIT = 5
} texmem_activation;

#define TEXMEM_MAX_NEW_SHAPE 8

/* Operator options; which fields matter depends on the op. Start from
 * texmem_op_options_default(). */
typedef struct texmem_op_options {
  texmem_padding padding;       /* conv, depthwise, pools, transpose conv */
  int32_t stride_w, stride_h;   /* default 1 */
  int32_t dilation_w, dilation_h; /* default 1 */
  int32_t filter_w, filter_h;   /* pools */
  int32_t depth_multiplier;     /* depthwise; default 1 */
  texmem_activation activation; /* fused activation */
  int32_t axis;                 /* CONCATENATION, SPLIT, SPLIT_V; negative from
                                   the end */
  bool align_corners;           /* RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR */
  bool half_pixel_centers;      /* RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR */
  float alpha;                  /* LEAKY_RELU: slope below 0 */
  float beta;                   /* SOFTMAX: exp(beta * x); default 1 (a file without
                                   SoftmaxOptions reads 0, as in TFLite) */
  int32_t block_size;           /* DEPTH_TO_SPACE */
  bool keep_dims;               /* MEAN, FULLY_CONNECTED keep_num_dims */
  /* MEAN: reduced axes of the input as written (bit i = axis i), read at
   * load from the constant axis input. */
  uint32_t reduce_axes;
  /* RESHAPE: target shape (from options, else from the constant shape
   * input); new_shape_rank 0 = none given. */
  unsigned new_shape_rank;
  int32_t new_shape[TEXMEM_MAX_NEW_SHAPE];
  /* PAD: (before, after) per dim of the input as written, read at load from
   * the constant paddings input; pad_rank 0 = none. */
  unsigned pad_rank;
  int32_t pad[TEXMEM_MAX_RANK][2];
  /* STRIDED_SLICE: begin, end and strides per axis of the input as
   * written (slice_rank entries, read at load from the constant inputs)
   * and the masks (bit i = axis i); ellipsis and new-axis masks are
   * outside the IR (the operator becomes OTHER). */
  unsigned slice_rank;
  int32_t slice_begin[TEXMEM_MAX_RANK], slice_end[TEXMEM_MAX_RANK];
  int32_t slice_stride[TEXMEM_MAX_RANK];
  uint32_t begin_mask, end_mask, shrink_axis_mask;
  /* SPLIT, SPLIT_V: the number of outputs the options declare. */
  int32_t num_splits;
  /* Custom ops: the custom code and its raw option bytes (borrowed from the
   * model; NULL/0 for builtins). */
  const char *custom_name;
  const uint8_t *custom_options;
  size_t custom_options_size;
  /* OTHER: the TFLite builtin operator code (32 = CUSTOM, then custom_name
   * says which); options_unsupported: a known operator whose options are
   * outside what the IR expresses (fused activation, weights format, a
   * non-constant parameter...), kept as OTHER so it still plans. */
  int32_t builtin_code;
  bool options_unsupported;
} texmem_op_options;

/* Defaults: strides, dilations, depth multiplier and beta 1, everything
 * else 0. */
TEXMEM_API texmem_op_options texmem_op_options_default(void);

typedef struct texmem_op {
  texmem_op_type type;
  size_t n_inputs;
  const int32_t *inputs;  /* tensor indices; -1 = optional input absent */
  size_t n_outputs;
  const int32_t *outputs;
  texmem_op_options options;
} texmem_op;

/* The operator's name: its type name, and for OTHER the custom code, the
 * TFLite builtin name, or "UNKNOWN_BUILTIN" for a code TFLite's schema (as
 * known here) does not list. Borrowed from op or static; never NULL. */
TEXMEM_API const char *texmem_op_name(const texmem_op *op);
/* Name of a TFLite builtin operator code ("SOFTMAX"); NULL if unknown. */
TEXMEM_API const char *texmem_tflite_builtin_name(int32_t code);

typedef struct texmem_model texmem_model;

/* ---- loading ---- */

/* A shape for a graph input with dynamic dimensions (-1 in the file's
 * shape_signature). `name` picks the input by tensor name; NULL picks
 * graph input number `input` (texmem_model_inputs order). Dimensions the
 * file fixes must be given as they are. */
typedef struct texmem_input_shape {
  const char *name;
  size_t input;
  unsigned rank;
  int32_t shape[TEXMEM_MAX_RANK];
} texmem_input_shape;

/* Zero = defaults (no input shapes). */
typedef struct texmem_model_load_desc {
  const texmem_input_shape *input_shapes; /* borrowed for the call */
  size_t n_input_shapes;
  /* Total bytes the reader may allocate while loading the model (tables,
   * names, constant data, densified sparse and converted fp16 weights,
   * counted cumulatively); 0 = 8 x the file size + 16 MiB. Past it the
   * load fails with TEXMEM_STATUS_BAD_MODEL naming the tensor, so no file
   * makes the reader allocate out of proportion to its size. */
  size_t max_load_bytes;
} texmem_model_load_desc;

/* Reads a TFLite flatbuffer (subgraph 0). Every offset and length is
 * checked; a truncated, corrupted or hostile file gives
 * TEXMEM_STATUS_BAD_MODEL naming what is wrong. Every operator is kept with
 * its inputs and outputs: one outside the IR (or with options outside it)
 * becomes TEXMEM_OP_OTHER, which plans but does not run. Weight-only
 * operators (DEQUANTIZE of constant fp16 data, DENSIFY of constant sparse
 * data) are folded: their outputs become constants and they are dropped
 * from the operator list. A graph input's dynamic dimension (-1 in
 * shape_signature) that no input shape of desc fixes runs at the
 * placeholder the file stores in `shape`, as TFLite runs it
 * (texmem_model_input_placeholder says which). Input shapes given in desc
 * propagate to tensors whose only dynamic dimension is the batch
 * (dimension 0 of rank >= 2), which take the inputs' batch; any other
 * dynamic dimension is then TEXMEM_STATUS_UNSUPPORTED naming the tensor
 * (with every input at its placeholder, every tensor keeps the shape the
 * file stores). `data` is borrowed for the call; desc may be NULL. */
TEXMEM_API texmem_status texmem_model_read_tflite_desc(
    const void *data, size_t size, const texmem_model_load_desc *desc,
    texmem_model **out, texmem_error *err);
TEXMEM_API texmem_status texmem_model_load_tflite_desc(
    const char *path, const texmem_model_load_desc *desc, texmem_model **out,
    texmem_error *err);
/* The same with desc NULL. */
TEXMEM_API texmem_status texmem_model_read_tflite(const void *data, size_t size,
                                                  texmem_model **out,
                                                  texmem_error *err);
TEXMEM_API texmem_status texmem_model_load_tflite(const char *path,
                                                  texmem_model **out,
                                                  texmem_error *err);
TEXMEM_API void texmem_model_destroy(texmem_model *m);

/* ---- inspection ---- */
TEXMEM_API size_t texmem_model_tensor_count(const texmem_model *m);
TEXMEM_API size_t texmem_model_op_count(const texmem_model *m);
/* NULL if out of range. */
TEXMEM_API const texmem_tensor *texmem_model_tensor(const texmem_model *m,
                                                    size_t i);
TEXMEM_API const texmem_op *texmem_model_op(const texmem_model *m, size_t i);
/* Graph inputs / outputs (tensor indices); borrowed. */
TEXMEM_API const int32_t *texmem_model_inputs(const texmem_model *m, size_t *n);
TEXMEM_API const int32_t *texmem_model_outputs(const texmem_model *m, size_t *n);
/* Operators folded away at load (DEQUANTIZE, DENSIFY). */
TEXMEM_API size_t texmem_model_folded_count(const texmem_model *m);
/* Dimensions of graph input i (texmem_model_inputs order) that the file
 * leaves dynamic (-1 in shape_signature) and no input shape of the load
 * desc fixed: bit d set = dimension d runs at the placeholder the file
 * stores in `shape` (the input's shape here), as TFLite runs it. 0 when
 * none, or i out of range. */
TEXMEM_API uint32_t texmem_model_input_placeholder(const texmem_model *m, size_t i);

/* ---- builder ---- */

/* An empty model. */
TEXMEM_API texmem_status texmem_model_create(texmem_model **out,
                                             texmem_error *err);
/* A non-constant tensor; shape has `rank` entries, each >= 1 (name may be
 * NULL). Its index goes to *index. */
TEXMEM_API texmem_status texmem_model_add_tensor(texmem_model *m,
                                                 const char *name,
                                                 texmem_dtype type,
                                                 unsigned rank,
                                                 const int32_t *shape,
                                                 int32_t *index,
                                                 texmem_error *err);
/* A constant tensor; `data` (size bytes = element count * dtype size) is
 * copied. FLOAT16 data is converted to FLOAT32. */
TEXMEM_API texmem_status texmem_model_add_constant(
    texmem_model *m, const char *name, texmem_dtype type, unsigned rank,
    const int32_t *shape, const void *data, size_t size, int32_t *index,
    texmem_error *err);
/* Appends an operator (execution order = order of adding). Inputs may be
 * -1 (absent); outputs must be non-constant tensors not produced by another
 * operator. options may be NULL (defaults); custom_name/custom_options are
 * copied. *index (may be NULL) receives the operator index. */
TEXMEM_API texmem_status texmem_model_add_op(texmem_model *m,
                                             texmem_op_type type,
                                             const int32_t *inputs,
                                             size_t n_inputs,
                                             const int32_t *outputs,
                                             size_t n_outputs,
                                             const texmem_op_options *options,
                                             size_t *index, texmem_error *err);
/* Sets the graph inputs and outputs (replacing earlier ones). */
TEXMEM_API texmem_status texmem_model_set_io(texmem_model *m,
                                             const int32_t *inputs,
                                             size_t n_inputs,
                                             const int32_t *outputs,
                                             size_t n_outputs,
                                             texmem_error *err);

/* ---- usage records ---- */

typedef enum texmem_precision {
  TEXMEM_PRECISION_FP16 = 0, /* 2 bytes an element, RGBA16F texels */
  TEXMEM_PRECISION_FP32 = 1, /* 4 bytes an element, RGBA32F texels */
  /* Records only: 1-D sizes are the tensor as stored, dense, in its own
   * element type (B*H*W*C * texmem_dtype_size), as a CPU arena holds it;
   * 2-D/3-D texels are the same as for the GPU precisions. */
  TEXMEM_PRECISION_STORED = 2
} texmem_precision;

/* Records of the intermediate tensors, in order of first task; tasks are
 * operator indices. A tensor maps to PHWC4 (C padded to a multiple of 4):
 * dims 1 = bytes B*H*W*ceil(C/4)*4*(2 or 4 by precision) whatever the
 * element type (the GPU holds every tensor as float texels), or with
 * TEXMEM_PRECISION_STORED bytes B*H*W*C*element size; dims 2 = texels
 * (W*B, H*ceil(C/4)); dims 3 = texels (W, H, B*ceil(C/4)). record.id is the
 * record's position. *out (and *tensor_of if not NULL: the model tensor
 * index of each record) are malloc'd and owned by the caller (free()). */
TEXMEM_API texmem_status texmem_model_records(const texmem_model *m,
                                              unsigned dims,
                                              texmem_precision precision,
                                              texmem_record **out, size_t *n,
                                              int32_t **tensor_of,
                                              texmem_error *err);

#ifdef __cplusplus
}
#endif
#endif

/* TFLite flatbuffer -> texmem_model (subgraph 0). Reads the public schema
 * through the bounds-checked layer in flatbuffer.c; nothing is trusted.
 * Weight-only operators are folded while reading: DEQUANTIZE of constant
 * fp16 data and DENSIFY of constant sparse data make their outputs
 * constants and are dropped, so operator indices are dense over what runs. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mediapipe_options.h"
#include "tflite.h"

/* No legitimate tensor here comes near this many elements; refusing larger
 * shapes keeps every later size computation far from overflow. */
#define MAX_ELEMENTS (1ull << 40)
/* Ranks above TEXMEM_MAX_RANK are read up to this and collapsed. */
#define MAX_FILE_RANK 16
/* Default load budget: LOAD_BUDGET_FACTOR x file size + LOAD_BUDGET_SLACK.
 * Real models need about 3 x (fp16 weights converted to fp32, constants
 * copied); the slack covers the tables of small files. */
#define LOAD_BUDGET_FACTOR 8
#define LOAD_BUDGET_SLACK ((size_t)16 << 20)

typedef struct raw_tensor {
  const uint8_t *data; /* buffer bytes inside the file, NULL if none */
  size_t size;
  bool sparse;
  texmem__fb_table sparsity;
} raw_tensor;

typedef struct reader {
  texmem__fb fb;
  texmem_error *err;
  texmem_model *m;
  raw_tensor *raw;
  uint8_t *dynamic; /* per tensor: bit d = dimension d is -1 in shape_signature */
  texmem__fb_vec codes, buffers;
  size_t budget, used; /* load budget and bytes allocated so far (cumulative) */
  const texmem_model_load_desc *desc;
} reader;

/* Counts `bytes` about to be allocated for tensor `ti` (-1: tables) against
 * the load budget; past it, BAD_MODEL naming the tensor. */
static texmem_status charge(reader *r, int32_t ti, size_t bytes) {
  if (bytes <= r->budget - r->used) {
    r->used += bytes;
    return TEXMEM_STATUS_OK;
  }
  if (ti < 0)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                        "model tables need %zu bytes, past the load budget of %zu bytes (%zu used; "
                        "texmem_model_load_desc.max_load_bytes)",
                        bytes, r->budget, r->used);
  const texmem_tensor *t = (size_t)ti < r->m->n_tensors ? &r->m->tensors[ti] : NULL;
  return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                      "tensor %d ('%s'): its data needs %zu bytes, past the load budget of %zu bytes "
                      "(%zu used; texmem_model_load_desc.max_load_bytes)",
                      (int)ti, t ? t->name : "", bytes, r->budget, r->used);
}

#define FB(call, ...) TEXMEM__FB_TRY(r->err, call, __VA_ARGS__)

static bool map_type(uint8_t t, texmem_dtype *out) {
  switch (t) {
  case TFLT_FLOAT32: *out = TEXMEM_DTYPE_FLOAT32; return true;
  case TFLT_FLOAT16: *out = TEXMEM_DTYPE_FLOAT16; return true;
  case TFLT_INT32: *out = TEXMEM_DTYPE_INT32; return true;
  case TFLT_UINT8: *out = TEXMEM_DTYPE_UINT8; return true;
  case TFLT_INT64: *out = TEXMEM_DTYPE_INT64; return true;
  case TFLT_BOOL: *out = TEXMEM_DTYPE_BOOL; return true;
  case TFLT_INT16: *out = TEXMEM_DTYPE_INT16; return true;
  case TFLT_INT8: *out = TEXMEM_DTYPE_INT8; return true;
  case TFLT_FLOAT64: *out = TEXMEM_DTYPE_FLOAT64; return true;
  case TFLT_UINT16: *out = TEXMEM_DTYPE_UINT16; return true;
  case TFLT_UINT32: *out = TEXMEM_DTYPE_UINT32; return true;
  case TFLT_UINT64: *out = TEXMEM_DTYPE_UINT64; return true;
  case TFLT_COMPLEX64: *out = TEXMEM_DTYPE_COMPLEX64; return true;
  case TFLT_COMPLEX128: *out = TEXMEM_DTYPE_COMPLEX128; return true;
  case TFLT_BFLOAT16: *out = TEXMEM_DTYPE_BFLOAT16; return true;
  default: return false; /* STRING, RESOURCE, VARIANT, INT4: no fixed element size */
  }
}

/* Bytes of buffer `b`: inline data, or (models over 2 GB) offset/size into
 * the file. */
static texmem_status buffer_bytes(reader *r, uint32_t i, uint32_t b, const uint8_t **data,
                                  size_t *size) {
  texmem__fb_table bt;
  texmem__fb_vec v;
  uint64_t off, sz;
  FB(texmem__fb_vec_table(&r->buffers, b, &bt), "tensor %u: buffer %u", i, b);
  FB(texmem__fb_vec_field(&bt, BUFFER_DATA, 1, &v), "tensor %u: buffer %u data", i, b);
  FB(texmem__fb_u64f(&bt, BUFFER_OFFSET, 0, &off), "tensor %u: buffer %u offset", i, b);
  FB(texmem__fb_u64f(&bt, BUFFER_SIZE, 0, &sz), "tensor %u: buffer %u size", i, b);
  *data = NULL;
  *size = 0;
  if (v.len) {
    *data = r->fb.data + v.pos;
    *size = v.len;
  } else if (off > 1) {
    if (off > r->fb.size || sz > r->fb.size - off)
      return texmem__fb_bad(r->err, TEXMEM__FB_OUT_OF_BOUNDS, "tensor %u: buffer %u external data", i, b);
    *data = r->fb.data + off;
    *size = (size_t)sz;
  }
  return TEXMEM_STATUS_OK;
}

static texmem_status read_tensor(reader *r, const texmem__fb_vec *tv, uint32_t i) {
  texmem__fb_table t;
  texmem__fb_vec shape;
  uint8_t type8;
  uint32_t buf;
  const char *name;
  size_t name_len;
  FB(texmem__fb_vec_table(tv, i, &t), "tensor %u", i);
  FB(texmem__fb_vec_field(&t, TENSOR_SHAPE, 4, &shape), "tensor %u: shape vector", i);
  FB(texmem__fb_u8(&t, TENSOR_TYPE, 0, &type8), "tensor %u: type", i);
  FB(texmem__fb_u32f(&t, TENSOR_BUFFER, 0, &buf), "tensor %u: buffer index", i);
  FB(texmem__fb_string(&t, TENSOR_NAME, &name, &name_len), "tensor %u: name", i);
  raw_tensor *raw = &r->raw[i];
  FB(texmem__fb_table_field(&t, TENSOR_SPARSITY, &raw->sparsity, &raw->sparse),
     "tensor %u: sparsity", i);

  if (shape.len > MAX_FILE_RANK)
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED, "tensor %u ('%s'): rank %u above %d", i,
                        name, shape.len, MAX_FILE_RANK);
  int32_t dims[MAX_FILE_RANK];
  for (uint32_t d = 0; d < shape.len; d++) {
    dims[d] = texmem__fb_vec_i32(&shape, d);
    if (dims[d] < 0)
      return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED,
                          "tensor %u ('%s'): dimension %u is %d in shape (dynamic shapes unsupported "
                          "there; TFLite marks them in shape_signature)",
                          i, name, d, (int)dims[d]);
  }
  /* Dynamic dimensions: -1 in shape_signature (the stored shape then holds
   * a placeholder, usually 1). Fixed later from the input shapes. */
  texmem__fb_vec sig;
  FB(texmem__fb_vec_field(&t, TENSOR_SHAPE_SIGNATURE, 4, &sig), "tensor %u: shape_signature", i);
  if (sig.len && sig.len != shape.len)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                        "tensor %u ('%s'): shape_signature has rank %u, shape %u", i, name, sig.len,
                        shape.len);
  for (uint32_t d = 0; d < sig.len; d++) {
    int32_t v = texmem__fb_vec_i32(&sig, d);
    if (v == -1 && shape.len > TEXMEM_MAX_RANK)
      return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED,
                          "tensor %u ('%s'): dimension %u of a rank-%u tensor is dynamic (ranks above %d "
                          "are planned with static shapes only)",
                          i, name, d, shape.len, TEXMEM_MAX_RANK);
    if (v == -1)
      r->dynamic[i] |= (uint8_t)(1u << d);
    else if (v != dims[d])
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                          "tensor %u ('%s'): shape_signature dimension %u is %d, shape says %d", i,
                          name, d, (int)v, (int)dims[d]);
  }
  uint64_t count;
  if (!texmem__shape_elements(shape.len, dims, &count) || count > MAX_ELEMENTS)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                        "tensor %u ('%s'): shape product too large (over 2^40 elements)", i, name);
  /* Ranks above 4: the leading dimensions are merged into the first, which
   * keeps the element count and the row-major order (all planning needs);
   * operators touching such a tensor are kept as OTHER. */
  unsigned rank = shape.len;
  if (rank > TEXMEM_MAX_RANK) {
    uint64_t lead = 1;
    for (unsigned d = 0; d + 3 < rank; d++) lead *= (uint64_t)dims[d]; /* <= count */
    if (lead > INT32_MAX)
      return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED,
                          "tensor %u ('%s'): rank %u with leading dimensions over 2^31 elements", i, name,
                          rank);
    dims[0] = (int32_t)lead;
    memmove(dims + 1, dims + rank - 3, 3 * sizeof *dims);
    rank = TEXMEM_MAX_RANK;
  }
  texmem_dtype type;
  if (!map_type(type8, &type))
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED, "tensor %u ('%s'): element type %u unsupported",
                        i, name, type8);
  if (buf >= r->buffers.len)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "tensor %u ('%s'): buffer %u out of range (%u buffers)",
                        i, name, buf, r->buffers.len);
  texmem_status s = buffer_bytes(r, i, buf, &raw->data, &raw->size);
  if (s) return s;
  size_t esize = texmem_dtype_size(type);
  if (raw->data && !raw->sparse && raw->size != count * esize)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                        "tensor %u ('%s'): buffer %u holds %zu bytes, shape needs %llu", i, name, buf,
                        raw->size, (unsigned long long)(count * esize));
  if (raw->sparse && (!raw->data || raw->size % esize))
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                        "tensor %u ('%s'): sparse tensor without whole values", i, name);

  texmem_tensor *mt = &r->m->tensors[i];
  memset(mt, 0, sizeof *mt);
  mt->name = "";
  mt->producer = -1;
  mt->type = type;
  texmem__tensor_set_shape(mt, rank, dims);
  if (raw->data) {
    mt->flags = TEXMEM_TENSOR_CONSTANT;
    r->dynamic[i] = 0; /* data fixes the shape */
  }
  if (rank != shape.len) mt->flags |= TEXMEM_TENSOR_COLLAPSED;
  r->m->n_tensors = i + 1;
  /* The name as C reads it: up to its first NUL. One that starts with NUL
   * is "" (static, as for no name: the model frees only non-empty names). */
  name_len = strlen(name);
  if (name_len) {
    if ((s = charge(r, (int32_t)i, name_len + 1))) return s;
    char *copy = malloc(name_len + 1);
    if (!copy) return texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for tensor names");
    memcpy(copy, name, name_len + 1);
    mt->name = copy;
  }
  return TEXMEM_STATUS_OK;
}

static texmem_status read_io(reader *r, const texmem__fb_table *sg, unsigned id, const char *what,
                             int32_t **out, size_t *n, uint32_t flag) {
  texmem__fb_vec v;
  FB(texmem__fb_vec_field(sg, id, 4, &v), "subgraph 0: %s vector", what);
  *n = 0;
  texmem_status s = charge(r, -1, (size_t)v.len * sizeof **out + 1);
  if (s) return s;
  *out = malloc((size_t)v.len * sizeof **out + 1);
  if (!*out) return texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for graph %s", what);
  for (uint32_t i = 0; i < v.len; i++) {
    int32_t t = texmem__fb_vec_i32(&v, i);
    if (t < 0 || (size_t)t >= r->m->n_tensors)
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "subgraph 0: %s %u is tensor %d, out of range", what,
                          i, (int)t);
    (*out)[(*n)++] = t;
    r->m->tensors[t].flags |= flag;
  }
  return TEXMEM_STATUS_OK;
}

/* ---- constant data ---- */

/* Dense bytes of a constant in its current type (folded data or the file's),
 * densifying sparse file data into *owned. */
static texmem_status const_bytes(reader *r, int32_t ti, const uint8_t **data, size_t *size,
                                 void **owned) {
  texmem_tensor *t = &r->m->tensors[ti];
  raw_tensor *raw = &r->raw[ti];
  *owned = NULL;
  if (t->data) {
    *data = t->data;
    *size = t->data_size;
    return TEXMEM_STATUS_OK;
  }
  if (!raw->data) {
    *data = NULL;
    *size = 0;
    return TEXMEM_STATUS_OK;
  }
  if (!raw->sparse) {
    *data = raw->data;
    *size = raw->size;
    return TEXMEM_STATUS_OK;
  }
  size_t esize = texmem_dtype_size(t->type);
  uint64_t count;
  if (!texmem__shape_elements(t->rank, t->shape, &count) || count > SIZE_MAX / esize)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "tensor %d ('%s'): dense size too large", (int)ti,
                        t->name);
  texmem_status s = charge(r, ti, (size_t)count * esize);
  if (s) return s;
  s = texmem__tflite_densify(t, (size_t)ti, &raw->sparsity, raw->data, raw->size / esize, esize,
                             (size_t)count * esize, owned, size, r->err);
  if (s) return s;
  *data = *owned;
  return TEXMEM_STATUS_OK;
}

/* Integer values of a small constant input (int32 or int64). */
static texmem_status const_ints(reader *r, unsigned k, const char *opname, const char *what,
                                int32_t ti, int64_t *vals, size_t max, size_t *n) {
  texmem_tensor *t = &r->m->tensors[ti];
  if (!(t->flags & TEXMEM_TENSOR_CONSTANT) ||
      (t->type != TEXMEM_DTYPE_INT32 && t->type != TEXMEM_DTYPE_INT64))
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED_OP,
                        "operator %u (%s): %s (tensor %d) must be a constant int32/int64 tensor", k,
                        opname, what, (int)ti);
  const uint8_t *data;
  size_t size;
  void *owned;
  texmem_status s = const_bytes(r, ti, &data, &size, &owned);
  if (s) return s;
  size_t esize = texmem_dtype_size(t->type);
  size_t count = size / esize;
  if (count > max) {
    free(owned);
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %u (%s): %s has %zu values, at most %zu",
                        k, opname, what, count, max);
  }
  for (size_t i = 0; i < count; i++) {
    if (esize == 4) {
      vals[i] = (int32_t)texmem__fb_u32(data + 4 * i);
    } else {
      vals[i] = (int64_t)texmem__fb_u64(data + 8 * i);
    }
  }
  *n = count;
  free(owned);
  return TEXMEM_STATUS_OK;
}

/* ---- folding ---- */

/* Whether DEQUANTIZE / DENSIFY operator can be folded: one constant input
 * (fp16/fp32 for DEQUANTIZE). Others (int8 dequantization, a non-constant
 * input) stay in the graph as OTHER operators. */
static bool foldable(reader *r, int32_t code, const int32_t *in, uint32_t n_in, uint32_t n_out) {
  if (n_in != 1 || n_out != 1 || in[0] < 0) return false;
  const texmem_tensor *src = &r->m->tensors[in[0]];
  if (!(src->flags & TEXMEM_TENSOR_CONSTANT)) return false;
  return code != TFL_DEQUANTIZE || src->type == TEXMEM_DTYPE_FLOAT16 ||
         src->type == TEXMEM_DTYPE_FLOAT32;
}

static texmem_status fold(reader *r, unsigned k, int32_t code, const int32_t *in, uint32_t n_in,
                          const int32_t *out, uint32_t n_out) {
  const char *opname = texmem__tflite_op_name(code);
  if (n_in != 1 || n_out != 1 || in[0] < 0)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): needs 1 input and 1 output", k,
                        opname);
  texmem_tensor *src = &r->m->tensors[in[0]], *dst = &r->m->tensors[out[0]];
  if (!(src->flags & TEXMEM_TENSOR_CONSTANT))
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED_OP,
                        "operator %u (%s): input tensor %d is not constant (only weight folding is supported)",
                        k, opname, (int)in[0]);
  if (code == TFL_DEQUANTIZE && src->type != TEXMEM_DTYPE_FLOAT16 && src->type != TEXMEM_DTYPE_FLOAT32)
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED_OP,
                        "operator %u (DEQUANTIZE): %s input (only fp16 weights are supported)", k,
                        texmem_dtype_name(src->type));
  if (code == TFL_DENSIFY && !r->raw[in[0]].sparse && !src->data)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (DENSIFY): input tensor %d is not sparse",
                        k, (int)in[0]);
  texmem_dtype want = code == TFL_DEQUANTIZE ? TEXMEM_DTYPE_FLOAT32 : src->type;
  uint64_t n_src, n_dst;
  texmem__shape_elements(src->rank, src->shape, &n_src);
  texmem__shape_elements(dst->rank, dst->shape, &n_dst);
  if (n_src != n_dst || dst->type != want ||
      (dst->flags & TEXMEM_TENSOR_CONSTANT) || dst->producer >= 0)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                        "operator %u (%s): output tensor %d does not match its input", k, opname,
                        (int)out[0]);
  const uint8_t *data;
  size_t size;
  void *owned;
  texmem_status s = const_bytes(r, in[0], &data, &size, &owned);
  if (s) return s;
  if (size != n_src * texmem_dtype_size(src->type)) {
    free(owned);
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): input data size wrong", k, opname);
  }
  void *result;
  size_t rsize;
  /* fp16 -> fp32 takes twice the bytes; file data is copied. */
  bool convert = src->type == TEXMEM_DTYPE_FLOAT16 && dst->type == TEXMEM_DTYPE_FLOAT32;
  if ((s = charge(r, out[0], convert ? size * 2 : owned ? 0 : size))) {
    free(owned);
    return s;
  }
  if (src->type == TEXMEM_DTYPE_FLOAT16 && dst->type == TEXMEM_DTYPE_FLOAT32) {
    rsize = (size_t)n_src * 4;
    float *f = malloc(rsize ? rsize : 1);
    if (!f) {
      free(owned);
      return texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "operator %u (%s): no memory", k, opname);
    }
    for (size_t i = 0; i < n_src; i++) f[i] = texmem__f16_to_f32(texmem__fb_u16(data + 2 * i));
    free(owned);
    result = f;
  } else if (owned) {
    result = owned;
    rsize = size;
  } else {
    rsize = size;
    result = malloc(size ? size : 1);
    if (!result) return texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "operator %u (%s): no memory", k, opname);
    if (size) memcpy(result, data, size);
  }
  dst->data = result;
  dst->data_size = rsize;
  dst->type = src->type == TEXMEM_DTYPE_FLOAT16 && dst->type == TEXMEM_DTYPE_FLOAT32 ? TEXMEM_DTYPE_FLOAT32
                                                                                      : src->type;
  dst->flags |= TEXMEM_TENSOR_CONSTANT;
  r->m->n_folded++;
  return TEXMEM_STATUS_OK;
}

/* ---- operators ---- */

typedef struct op_spec {
  int32_t code;
  texmem_op_type type;
  uint8_t options;              /* expected BuiltinOptions member */
  uint32_t min_in, max_in;      /* input count; the first min_in required */
} op_spec;

/* Operators with one output or more (the others have exactly one). */
static bool multi_output(texmem_op_type t) {
  return t == TEXMEM_OP_SPLIT || t == TEXMEM_OP_SPLIT_V;
}

static const op_spec specs[] = {
    {TFL_CONV_2D, TEXMEM_OP_CONV_2D, TFLO_CONV_2D, 2, 3},
    {TFL_DEPTHWISE_CONV_2D, TEXMEM_OP_DEPTHWISE_CONV_2D, TFLO_DEPTHWISE_CONV_2D, 2, 3},
    {TFL_ADD, TEXMEM_OP_ADD, TFLO_ADD, 2, 2},
    {TFL_MUL, TEXMEM_OP_MUL, TFLO_MUL, 2, 2},
    {TFL_RELU, TEXMEM_OP_RELU, TFLO_NONE, 1, 1},
    {TFL_RELU6, TEXMEM_OP_RELU6, TFLO_NONE, 1, 1},
    {TFL_LOGISTIC, TEXMEM_OP_LOGISTIC, TFLO_NONE, 1, 1},
    {TFL_HARD_SWISH, TEXMEM_OP_HARD_SWISH, TFLO_HARD_SWISH, 1, 1},
    {TFL_PAD, TEXMEM_OP_PAD, TFLO_PAD, 2, 2},
    {TFL_MAX_POOL_2D, TEXMEM_OP_MAX_POOL_2D, TFLO_POOL_2D, 1, 1},
    {TFL_AVERAGE_POOL_2D, TEXMEM_OP_AVERAGE_POOL_2D, TFLO_POOL_2D, 1, 1},
    {TFL_MEAN, TEXMEM_OP_MEAN, TFLO_REDUCER, 2, 2},
    {TFL_RESIZE_BILINEAR, TEXMEM_OP_RESIZE_BILINEAR, TFLO_RESIZE_BILINEAR, 2, 2},
    {TFL_CONCATENATION, TEXMEM_OP_CONCATENATION, TFLO_CONCATENATION, 1, UINT32_MAX},
    {TFL_RESHAPE, TEXMEM_OP_RESHAPE, TFLO_RESHAPE, 1, 2},
    {TFL_FULLY_CONNECTED, TEXMEM_OP_FULLY_CONNECTED, TFLO_FULLY_CONNECTED, 2, 3},
    {TFL_DEPTH_TO_SPACE, TEXMEM_OP_DEPTH_TO_SPACE, TFLO_DEPTH_TO_SPACE, 1, 1},
    {TFL_PRELU, TEXMEM_OP_PRELU, TFLO_NONE, 2, 2},
    {TFL_SOFTMAX, TEXMEM_OP_SOFTMAX, TFLO_SOFTMAX, 1, 1},
    {TFL_TANH, TEXMEM_OP_TANH, TFLO_NONE, 1, 1},
    {TFL_SUB, TEXMEM_OP_SUB, TFLO_SUB, 2, 2},
    {TFL_DIV, TEXMEM_OP_DIV, TFLO_DIV, 2, 2},
    {TFL_MAXIMUM, TEXMEM_OP_MAXIMUM, TFLO_MAXIMUM_MINIMUM, 2, 2},
    {TFL_MINIMUM, TEXMEM_OP_MINIMUM, TFLO_MAXIMUM_MINIMUM, 2, 2},
    {TFL_LEAKY_RELU, TEXMEM_OP_LEAKY_RELU, TFLO_LEAKY_RELU, 1, 1},
    {TFL_RESIZE_NEAREST_NEIGHBOR, TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR, TFLO_RESIZE_NEAREST_NEIGHBOR, 2, 2},
    {TFL_STRIDED_SLICE, TEXMEM_OP_STRIDED_SLICE, TFLO_STRIDED_SLICE, 4, 4},
    {TFL_TRANSPOSE_CONV, TEXMEM_OP_TRANSPOSE_CONV, TFLO_TRANSPOSE_CONV, 3, 4},
    {TFL_SPLIT, TEXMEM_OP_SPLIT, TFLO_SPLIT, 2, 2},
    {TFL_SPLIT_V, TEXMEM_OP_SPLIT_V, TFLO_SPLIT_V, 3, 3},
};

static const char custom_transpose_conv[] = "Convolution2DTransposeBias";

static texmem_status activation(reader *r, unsigned k, const char *name, uint8_t v,
                                texmem_activation *out) {
  if (v > TEXMEM_ACT_SIGN_BIT)
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %u (%s): fused activation %u unsupported",
                        k, name, v);
  *out = (texmem_activation)v;
  return TEXMEM_STATUS_OK;
}

static texmem_status padding(reader *r, unsigned k, const char *name, uint8_t v, texmem_padding *out) {
  if (v > 1)
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %u (%s): padding %u unsupported", k,
                        name, v);
  *out = v ? TEXMEM_PADDING_VALID : TEXMEM_PADDING_SAME;
  return TEXMEM_STATUS_OK;
}

static texmem_status positive(reader *r, unsigned k, const char *name, const char *what, int32_t v) {
  if (v < 1)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): %s is %d", k, name, what, (int)v);
  return TEXMEM_STATUS_OK;
}

/* Builtin options of op table `ot` into o. */
static texmem_status parse_options(reader *r, unsigned k, const op_spec *sp, const texmem__fb_table *ot,
                                   const int32_t *in, uint32_t n_in, uint32_t n_out,
                                   texmem_op_options *o) {
  const char *name = texmem_op_type_name(sp->type);
  uint8_t utype;
  texmem__fb_table t;
  bool have = false;
  FB(texmem__fb_u8(ot, OP_BUILTIN_TYPE, 0, &utype), "operator %u (%s): options type", k, name);
  if (utype != TFLO_NONE && utype != sp->options)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): options are union member %u, expected %u",
                        k, name, utype, sp->options);
  if (utype != TFLO_NONE)
    FB(texmem__fb_table_field(ot, OP_BUILTIN, &t, &have), "operator %u (%s): options table", k, name);
  /* Absent options read as schema defaults: a table whose 4-byte vtable
   * lists no field (field lookups never touch its bytes). */
  static const uint8_t empty_bytes[4] = {0};
  static const texmem__fb empty_fb = {empty_bytes, 4};
  if (!have) {
    t.fb = &empty_fb;
    t.pos = 0;
    t.vt = 0;
    t.vt_size = 4;
    t.size = 4;
    t.depth = 0;
  }
  uint8_t u8v;
  texmem_status s = TEXMEM_STATUS_OK;
#define U8(id, def, dst) FB(texmem__fb_u8(&t, id, def, &u8v), "operator %u (%s): options", k, name); dst = u8v
#define I32(id, def, dst) FB(texmem__fb_i32(&t, id, def, &dst), "operator %u (%s): options", k, name)
  switch (sp->type) {
  case TEXMEM_OP_CONV_2D:
  case TEXMEM_OP_DEPTHWISE_CONV_2D: {
    bool dw = sp->type == TEXMEM_OP_DEPTHWISE_CONV_2D;
    uint8_t pad, act;
    U8(0, 0, pad);
    I32(1, 0, o->stride_w);
    I32(2, 0, o->stride_h);
    if (dw) I32(3, 0, o->depth_multiplier);
    U8(dw ? 4 : 3, 0, act);
    I32(dw ? 5 : 4, 1, o->dilation_w);
    I32(dw ? 6 : 5, 1, o->dilation_h);
    if ((s = padding(r, k, name, pad, &o->padding)) || (s = activation(r, k, name, act, &o->activation)) ||
        (s = positive(r, k, name, "stride_w", o->stride_w)) ||
        (s = positive(r, k, name, "stride_h", o->stride_h)) ||
        (s = positive(r, k, name, "dilation_w", o->dilation_w)) ||
        (s = positive(r, k, name, "dilation_h", o->dilation_h)))
      return s;
    break;
  }
  case TEXMEM_OP_MAX_POOL_2D:
  case TEXMEM_OP_AVERAGE_POOL_2D: {
    uint8_t pad, act;
    U8(0, 0, pad);
    I32(1, 0, o->stride_w);
    I32(2, 0, o->stride_h);
    I32(3, 0, o->filter_w);
    I32(4, 0, o->filter_h);
    U8(5, 0, act);
    if ((s = padding(r, k, name, pad, &o->padding)) || (s = activation(r, k, name, act, &o->activation)) ||
        (s = positive(r, k, name, "stride_w", o->stride_w)) ||
        (s = positive(r, k, name, "stride_h", o->stride_h)) ||
        (s = positive(r, k, name, "filter_width", o->filter_w)) ||
        (s = positive(r, k, name, "filter_height", o->filter_h)))
      return s;
    break;
  }
  case TEXMEM_OP_ADD:
  case TEXMEM_OP_MUL:
  case TEXMEM_OP_SUB:
  case TEXMEM_OP_DIV: {
    uint8_t act;
    U8(0, 0, act);
    if ((s = activation(r, k, name, act, &o->activation))) return s;
    break;
  }
  case TEXMEM_OP_FULLY_CONNECTED: {
    uint8_t act, fmt, keep;
    U8(0, 0, act);
    U8(1, 0, fmt);
    U8(2, 0, keep);
    if ((s = activation(r, k, name, act, &o->activation))) return s;
    if (fmt != 0)
      return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %u (%s): weights format %u unsupported",
                          k, name, fmt);
    o->keep_dims = keep != 0;
    break;
  }
  case TEXMEM_OP_CONCATENATION: {
    uint8_t act;
    I32(0, 0, o->axis);
    U8(1, 0, act);
    if ((s = activation(r, k, name, act, &o->activation))) return s;
    break;
  }
  case TEXMEM_OP_SOFTMAX:
  case TEXMEM_OP_LEAKY_RELU: {
    /* float fields: SoftmaxOptions.beta, LeakyReluOptions.alpha. Absent
     * (field or table) reads as the schema default 0, as TFLite does. */
    uint32_t bits;
    float v;
    FB(texmem__fb_u32f(&t, 0, 0, &bits), "operator %u (%s): options", k, name);
    memcpy(&v, &bits, sizeof v);
    if (!isfinite(v))
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): %s is not finite", k,
                          name, sp->type == TEXMEM_OP_SOFTMAX ? "beta" : "alpha");
    if (sp->type == TEXMEM_OP_SOFTMAX)
      o->beta = v;
    else
      o->alpha = v;
    break;
  }
  case TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR: {
    uint8_t ac, hp;
    U8(0, 0, ac);
    U8(1, 0, hp);
    o->align_corners = ac != 0;
    o->half_pixel_centers = hp != 0;
    break;
  }
  case TEXMEM_OP_RESIZE_BILINEAR: {
    uint8_t ac, hp;
    U8(2, 0, ac);
    U8(3, 0, hp);
    o->align_corners = ac != 0;
    o->half_pixel_centers = hp != 0;
    break;
  }
  case TEXMEM_OP_DEPTH_TO_SPACE:
    I32(0, 0, o->block_size);
    if ((s = positive(r, k, name, "block_size", o->block_size))) return s;
    break;
  case TEXMEM_OP_MEAN: {
    uint8_t keep;
    U8(0, 0, keep);
    o->keep_dims = keep != 0;
    int64_t axes[TEXMEM_MAX_RANK];
    size_t n;
    if ((s = const_ints(r, k, name, "axis", in[1], axes, TEXMEM_MAX_RANK, &n))) return s;
    int64_t rank = r->m->tensors[in[0]].rank;
    for (size_t i = 0; i < n; i++) {
      int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
      if (a < 0 || a >= rank)
        return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (MEAN): axis %lld out of range", k,
                            (long long)axes[i]);
      o->reduce_axes |= 1u << a;
    }
    break;
  }
  case TEXMEM_OP_PAD: {
    int64_t p[2 * TEXMEM_MAX_RANK];
    size_t n;
    if ((s = const_ints(r, k, name, "paddings", in[1], p, 2 * TEXMEM_MAX_RANK, &n))) return s;
    if (n % 2 || n / 2 != r->m->tensors[in[0]].rank)
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (PAD): %zu padding values for rank %u",
                          k, n, r->m->tensors[in[0]].rank);
    for (size_t i = 0; i < n; i++) {
      if (p[i] < 0 || p[i] > INT32_MAX)
        return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (PAD): padding %lld", k,
                            (long long)p[i]);
      o->pad[i / 2][i % 2] = (int32_t)p[i];
    }
    o->pad_rank = (unsigned)(n / 2);
    break;
  }
  case TEXMEM_OP_RESHAPE: {
    texmem__fb_vec ns;
    ns.len = 0;
    if (have) FB(texmem__fb_vec_field(&t, 0, 4, &ns), "operator %u (RESHAPE): new_shape", k);
    if (ns.len > TEXMEM_MAX_NEW_SHAPE)
      return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %u (RESHAPE): new_shape rank %u", k,
                          ns.len);
    for (uint32_t i = 0; i < ns.len; i++) o->new_shape[i] = texmem__fb_vec_i32(&ns, i);
    o->new_shape_rank = ns.len;
    if (ns.len == 0 && n_in == 2 && in[1] >= 0 &&
        (r->m->tensors[in[1]].flags & TEXMEM_TENSOR_CONSTANT)) {
      int64_t v[TEXMEM_MAX_NEW_SHAPE];
      size_t n;
      if ((s = const_ints(r, k, name, "shape", in[1], v, TEXMEM_MAX_NEW_SHAPE, &n))) return s;
      for (size_t i = 0; i < n; i++) {
        if (v[i] < -1 || v[i] > INT32_MAX)
          return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (RESHAPE): shape value %lld", k,
                              (long long)v[i]);
        o->new_shape[i] = (int32_t)v[i];
      }
      o->new_shape_rank = (unsigned)n;
    }
    break;
  }
  case TEXMEM_OP_STRIDED_SLICE: {
    int32_t ellipsis, new_axis, bm, em, sm;
    uint8_t offset;
    I32(0, 0, bm);
    I32(1, 0, em);
    I32(2, 0, ellipsis);
    I32(3, 0, new_axis);
    I32(4, 0, sm);
    U8(5, 0, offset);
    if (ellipsis || new_axis || offset)
      return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED_OP,
                          "operator %u (STRIDED_SLICE): ellipsis, new-axis masks or offset", k);
    o->begin_mask = (uint32_t)bm;
    o->end_mask = (uint32_t)em;
    o->shrink_axis_mask = (uint32_t)sm;
    unsigned rank = r->m->tensors[in[0]].rank;
    static const char *const what[3] = {"begin", "end", "strides"};
    int32_t *dst[3] = {o->slice_begin, o->slice_end, o->slice_stride};
    for (int i = 0; i < 3; i++) {
      int64_t v[TEXMEM_MAX_RANK];
      size_t n;
      if ((s = const_ints(r, k, name, what[i], in[1 + i], v, TEXMEM_MAX_RANK, &n))) return s;
      if (n != rank)
        return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED_OP,
                            "operator %u (STRIDED_SLICE): %zu %s values for rank %u", k, n, what[i],
                            rank);
      for (size_t j = 0; j < n; j++) {
        /* Indices beyond int32 are clamped to the axis anyway. */
        int64_t c = v[j] < INT32_MIN ? INT32_MIN : v[j] > INT32_MAX ? INT32_MAX : v[j];
        if (i == 2 && c == 0)
          return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                              "operator %u (STRIDED_SLICE): stride of axis %zu is 0", k, j);
        if (i == 2 && c == INT32_MIN) c = INT32_MIN + 1; /* negatable */
        dst[i][j] = (int32_t)c;
      }
    }
    o->slice_rank = rank;
    break;
  }
  case TEXMEM_OP_TRANSPOSE_CONV: {
    uint8_t pad, act;
    U8(0, 0, pad);
    I32(1, 0, o->stride_w);
    I32(2, 0, o->stride_h);
    U8(3, 0, act);
    if ((s = padding(r, k, name, pad, &o->padding)) || (s = activation(r, k, name, act, &o->activation)) ||
        (s = positive(r, k, name, "stride_w", o->stride_w)) ||
        (s = positive(r, k, name, "stride_h", o->stride_h)))
      return s;
    break;
  }
  case TEXMEM_OP_SPLIT:
  case TEXMEM_OP_SPLIT_V: {
    bool v = sp->type == TEXMEM_OP_SPLIT_V;
    I32(0, 0, o->num_splits);
    int32_t data = v ? in[0] : in[1], axis_in = v ? in[2] : in[0];
    int64_t a[1];
    size_t n;
    if ((s = const_ints(r, k, name, "axis", axis_in, a, 1, &n))) return s;
    int64_t rank = r->m->tensors[data].rank;
    int64_t ax = n == 1 && a[0] < 0 ? a[0] + rank : n == 1 ? a[0] : -1;
    if (ax < 0 || ax >= rank)
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): axis %lld for rank %lld",
                          k, name, n == 1 ? (long long)a[0] : 0LL, (long long)rank);
    o->axis = (int32_t)ax;
    if (o->num_splits != (int32_t)n_out)
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): num_splits %d, %u outputs",
                          k, name, (int)o->num_splits, n_out);
    break;
  }
  default:
    break;
  }
#undef U8
#undef I32
  return TEXMEM_STATUS_OK;
}

/* MediaPipe's Convolution2DTransposeBias keeps TfLiteTransposeConvParams as
 * raw bytes: int32 padding (1 SAME, 2 VALID), stride_w, stride_h. */
static texmem_status parse_transpose_conv(reader *r, unsigned k, const uint8_t *opt, size_t n,
                                          texmem_op_options *o) {
  if (n < 12)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                        "operator %u (%s): custom options are %zu bytes, expected 12", k, custom_transpose_conv, n);
  int32_t pad = (int32_t)texmem__fb_u32(opt);
  o->stride_w = (int32_t)texmem__fb_u32(opt + 4);
  o->stride_h = (int32_t)texmem__fb_u32(opt + 8);
  if (pad != 1 && pad != 2)
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %u (%s): padding %d unsupported", k,
                        custom_transpose_conv, (int)pad);
  o->padding = pad == 2 ? TEXMEM_PADDING_VALID : TEXMEM_PADDING_SAME;
  texmem_status s;
  if ((s = positive(r, k, custom_transpose_conv, "stride_w", o->stride_w)) ||
      (s = positive(r, k, custom_transpose_conv, "stride_h", o->stride_h)))
    return s;
  return TEXMEM_STATUS_OK;
}

/* MediaPipe's custom operators, in the version implemented (2). */
typedef struct mp_spec {
  const char *name;
  int32_t version;
  op_spec spec;
} mp_spec;

static const mp_spec mp_specs[] = {
    {TEXMEM__MP_L2TM_NAME, 2, {TFL_CUSTOM, TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX, TFLO_NONE, 1, 1}},
    {TEXMEM__MP_TTB_NAME, 2, {TFL_CUSTOM, TEXMEM_OP_TRANSFORM_TENSOR_BILINEAR, TFLO_NONE, 2, 2}},
    {TEXMEM__MP_TL_NAME, 2, {TFL_CUSTOM, TEXMEM_OP_TRANSFORM_LANDMARKS, TFLO_NONE, 2, 2}},
};

static const mp_spec *mediapipe_spec(const char *custom) {
  for (size_t i = 0; i < sizeof mp_specs / sizeof mp_specs[0]; i++)
    if (strcmp(custom, mp_specs[i].name) == 0) return &mp_specs[i];
  return NULL;
}

/* Checks the FlexBuffers options now, so a hostile map is a load error
 * naming the operator; the kernels parse them again when they run. */
static texmem_status parse_mediapipe(reader *r, unsigned k, const mp_spec *mp, const uint8_t *opt,
                                     size_t n) {
  texmem_error inner;
  memset(&inner, 0, sizeof inner);
  texmem_status s = TEXMEM_STATUS_OK;
  if (mp->spec.type == TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX) {
    texmem__mp_l2tm *l = malloc(sizeof *l);
    if (!l) return texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "operator %u: no memory", k);
    s = texmem__mp_parse_l2tm(opt, n, l, &inner);
    free(l);
  } else if (mp->spec.type == TEXMEM_OP_TRANSFORM_TENSOR_BILINEAR) {
    texmem__mp_ttb t;
    s = texmem__mp_parse_ttb(opt, n, &t, &inner);
  }
  if (s) return texmem__fail(r->err, s, "operator %u: %s", k, inner.message);
  return TEXMEM_STATUS_OK;
}

/* The custom option bytes of operator table ot: inline, or (models over
 * 2 GB) at an offset of the file; bounds-checked, borrowed. */
static texmem_status custom_options(reader *r, unsigned k, const char *custom, const texmem__fb_table *ot,
                                    const uint8_t **opt, size_t *opt_size) {
  texmem__fb_vec co;
  uint64_t loff, lsize;
  FB(texmem__fb_vec_field(ot, OP_CUSTOM_OPTIONS, 1, &co), "operator %u (custom '%s'): custom options", k,
     custom);
  FB(texmem__fb_u64f(ot, OP_LARGE_CUSTOM_OFFSET, 0, &loff), "operator %u (custom '%s'): custom options", k,
     custom);
  FB(texmem__fb_u64f(ot, OP_LARGE_CUSTOM_SIZE, 0, &lsize), "operator %u (custom '%s'): custom options", k,
     custom);
  *opt = r->fb.data + co.pos;
  *opt_size = co.len;
  if (co.len == 0 && loff > 1) {
    if (loff > r->fb.size || lsize > r->fb.size - loff)
      return texmem__fb_bad(r->err, TEXMEM__FB_OUT_OF_BOUNDS, "operator %u (custom '%s'): external custom options", k, custom);
    *opt = r->fb.data + loff;
    *opt_size = (size_t)lsize;
  }
  return TEXMEM_STATUS_OK;
}

static texmem_status read_indices(reader *r, unsigned k, const texmem__fb_table *ot, unsigned id,
                                  const char *what, bool allow_absent, int32_t **out, uint32_t *n) {
  texmem__fb_vec v;
  FB(texmem__fb_vec_field(ot, id, 4, &v), "operator %u: %s vector", k, what);
  texmem_status s = charge(r, -1, (size_t)v.len * sizeof **out + 1);
  if (s) return s;
  *out = malloc((size_t)v.len * sizeof **out + 1);
  if (!*out) return texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "operator %u: no memory", k);
  *n = v.len;
  for (uint32_t i = 0; i < v.len; i++) {
    int32_t t = texmem__fb_vec_i32(&v, i);
    if (t < (allow_absent ? -1 : 0) || (t >= 0 && (size_t)t >= r->m->n_tensors))
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u: %s %u is tensor %d, out of range", k, what,
                          i, (int)t);
    (*out)[i] = t;
  }
  return TEXMEM_STATUS_OK;
}

static bool touches_collapsed(const reader *r, const int32_t *in, uint32_t n_in, const int32_t *out,
                              uint32_t n_out) {
  for (uint32_t i = 0; i < n_in + n_out; i++) {
    int32_t t = i < n_in ? in[i] : out[i - n_in];
    if (t >= 0 && (r->m->tensors[t].flags & TEXMEM_TENSOR_COLLAPSED)) return true;
  }
  return false;
}

static texmem_status read_op(reader *r, const texmem__fb_vec *ov, uint32_t k) {
  texmem__fb_table ot, ct;
  uint32_t opcode;
  FB(texmem__fb_vec_table(ov, k, &ot), "operator %u", k);
  FB(texmem__fb_u32f(&ot, OP_OPCODE_INDEX, 0, &opcode), "operator %u: opcode index", k);
  if (opcode >= r->codes.len)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u: opcode index %u out of range (%u codes)", k,
                        opcode, r->codes.len);
  uint8_t dep;
  int32_t code;
  const char *custom;
  size_t custom_len;
  FB(texmem__fb_vec_table(&r->codes, opcode, &ct), "operator code %u", opcode);
  FB(texmem__fb_u8(&ct, OPCODE_DEPRECATED_BUILTIN, 0, &dep), "operator code %u: builtin code", opcode);
  FB(texmem__fb_i32(&ct, OPCODE_BUILTIN, 0, &code), "operator code %u: builtin code", opcode);
  FB(texmem__fb_string(&ct, OPCODE_CUSTOM, &custom, &custom_len), "operator code %u: custom code", opcode);
  int32_t version;
  FB(texmem__fb_i32(&ct, OPCODE_VERSION, 1, &version), "operator code %u: version", opcode);
  /* Old files set only the byte field, new ones both; take the larger. */
  if ((int8_t)dep > code) code = (int8_t)dep;

  int32_t *in = NULL, *out = NULL;
  uint32_t n_in = 0, n_out = 0;
  texmem_status s;
  if ((s = read_indices(r, k, &ot, OP_INPUTS, "input", true, &in, &n_in)) ||
      (s = read_indices(r, k, &ot, OP_OUTPUTS, "output", false, &out, &n_out)))
    goto done;
  for (uint32_t i = 0; i < n_out; i++) {
    texmem_tensor *t = &r->m->tensors[out[i]];
    if (t->producer >= 0 || (t->flags & TEXMEM_TENSOR_CONSTANT)) {
      s = texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u: output tensor %d is %s", k, (int)out[i],
                       t->producer >= 0 ? "already produced by another operator" : "a constant");
      goto done;
    }
    for (uint32_t j = 0; j < i; j++)
      if (out[j] == out[i]) {
        s = texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u: output tensor %d listed twice", k,
                         (int)out[i]);
        goto done;
      }
  }
  if ((code == TFL_DEQUANTIZE || code == TFL_DENSIFY) && foldable(r, code, in, n_in, n_out)) {
    s = fold(r, k, code, in, n_in, out, n_out);
    goto done;
  }

  texmem_op op;
  memset(&op, 0, sizeof op);
  op.options = texmem_op_options_default();
  op.options.builtin_code = code;
  const op_spec *sp = NULL;
  op_spec custom_spec = {TFL_CUSTOM, TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS, TFLO_NONE, 3, 3};
  const mp_spec *mp = NULL;
  const uint8_t *opt = NULL;
  size_t opt_size = 0;
  if (code == TFL_CUSTOM) {
    /* Every custom operator's option bytes are checked and kept, known or
     * not; only Convolution2DTransposeBias is parsed. */
    if ((s = custom_options(r, k, custom, &ot, &opt, &opt_size))) goto done;
    if (strcmp(custom, custom_transpose_conv) == 0) sp = &custom_spec;
    else if ((mp = mediapipe_spec(custom)) && mp->version == version) sp = &mp->spec;
    /* another version of a MediaPipe operator: kept as OTHER by its name */
    else if (mp) op.options.options_unsupported = true;
  } else {
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
      if (specs[i].code == code) sp = &specs[i];
  }
  if (sp) {
    const char *name = texmem_op_type_name(sp->type);
    if (n_in < sp->min_in || n_in > sp->max_in || n_out < 1 || (n_out != 1 && !multi_output(sp->type))) {
      s = texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): %u inputs and %u outputs", k, name,
                       n_in, n_out);
      goto done;
    }
    for (uint32_t i = 0; i < sp->min_in; i++)
      if (in[i] < 0) {
        s = texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): required input %u absent", k, name,
                         i);
        goto done;
      }
    if (touches_collapsed(r, in, n_in, out, n_out))
      s = TEXMEM_STATUS_UNSUPPORTED_OP; /* a rank above 4: no kernel handles it */
    else if (sp->type == TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS)
      s = parse_transpose_conv(r, k, opt, opt_size, &op.options);
    else if (mp)
      s = parse_mediapipe(r, k, mp, opt, opt_size);
    else
      s = parse_options(r, k, sp, &ot, in, n_in, n_out, &op.options);
    if (s == TEXMEM_STATUS_UNSUPPORTED_OP) {
      /* Options outside the IR: keep the operator (it plans) as OTHER; the
       * runtime refuses it by name. */
      op.options = texmem_op_options_default();
      op.options.builtin_code = code;
      op.options.options_unsupported = true;
      sp = NULL;
      s = TEXMEM_STATUS_OK;
      if (r->err) memset(r->err, 0, sizeof *r->err);
    } else if (s) {
      goto done;
    }
  }
  if (code == TFL_CUSTOM) {
    size_t name_len = strlen(custom);
    if ((s = charge(r, -1, name_len + 1 + opt_size))) goto done;
    char *cname = malloc(name_len + 1);
    uint8_t *copt = malloc(opt_size ? opt_size : 1);
    if (!cname || !copt) {
      free(cname);
      free(copt);
      s = texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "operator %u: no memory", k);
      goto done;
    }
    memcpy(cname, custom, name_len + 1);
    if (opt_size) memcpy(copt, opt, opt_size);
    op.options.custom_name = cname;
    op.options.custom_options = copt;
    op.options.custom_options_size = opt_size;
  }
  op.type = sp ? sp->type : TEXMEM_OP_OTHER;
  op.inputs = in;
  op.n_inputs = n_in;
  op.outputs = out;
  op.n_outputs = n_out;
  for (uint32_t i = 0; i < n_out; i++) r->m->tensors[out[i]].producer = (int32_t)r->m->n_ops;
  r->m->ops[r->m->n_ops++] = op; /* capacity reserved for every file op */
  return TEXMEM_STATUS_OK;
done:
  free(in);
  free(out);
  return s;
}

/* Converts or copies the data of every constant a kept operator reads; the
 * rest keep no data. Float weights end up FLOAT32. */
static texmem_status materialize(reader *r) {
  texmem_model *m = r->m;
  for (size_t k = 0; k < m->n_ops; k++)
    for (size_t j = 0; j < m->ops[k].n_inputs; j++) {
      int32_t ti = m->ops[k].inputs[j];
      if (ti < 0) continue;
      texmem_tensor *t = &m->tensors[ti];
      if (!(t->flags & TEXMEM_TENSOR_CONSTANT)) continue;
      if (t->data && t->type != TEXMEM_DTYPE_FLOAT16) continue;
      const uint8_t *data;
      size_t size;
      void *owned;
      texmem_status s = const_bytes(r, ti, &data, &size, &owned);
      if (s) return s;
      void *result;
      size_t rsize = size;
      /* Converted fp16 data takes twice its bytes; file data is copied. */
      size_t extra = t->type == TEXMEM_DTYPE_FLOAT16 ? size * 2 : owned ? 0 : size;
      if ((s = charge(r, ti, extra))) {
        free(owned);
        return s;
      }
      if (t->type == TEXMEM_DTYPE_FLOAT16) {
        rsize = size / 2 * 4;
        float *f = malloc(rsize ? rsize : 1);
        if (f)
          for (size_t i = 0; i < size / 2; i++) f[i] = texmem__f16_to_f32(texmem__fb_u16(data + 2 * i));
        result = f;
        free(owned);
      } else if (owned) {
        result = owned;
      } else {
        result = malloc(size ? size : 1);
        if (result && size) memcpy(result, data, size);
      }
      if (!result) return texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "tensor %d: no memory for data", (int)ti);
      free((void *)t->data);
      t->data = result;
      t->data_size = rsize;
      if (t->type == TEXMEM_DTYPE_FLOAT16) t->type = TEXMEM_DTYPE_FLOAT32;
    }
  /* Folded-away inputs (fp16 or sparse weights) keep no data. */
  bool *read = calloc(m->n_tensors ? m->n_tensors : 1, sizeof *read);
  if (!read) return texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for %zu tensors", m->n_tensors);
  for (size_t k = 0; k < m->n_ops; k++)
    for (size_t j = 0; j < m->ops[k].n_inputs; j++)
      if (m->ops[k].inputs[j] >= 0) read[m->ops[k].inputs[j]] = true;
  for (size_t i = 0; i < m->n_tensors; i++)
    if (!read[i] && m->tensors[i].data) {
      free((void *)m->tensors[i].data);
      m->tensors[i].data = NULL;
      m->tensors[i].data_size = 0;
    }
  free(read);
  return TEXMEM_STATUS_OK;
}

static texmem_status read_model(reader *r) {
  texmem__fb_table root, sg;
  texmem__fb_vec subgraphs, tv, ov;
  uint32_t version;
  if (r->fb.size >= 8 && memcmp(r->fb.data + 4, "TFL3", 4) != 0)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "not a TFLite model (file identifier is not TFL3)");
  FB(texmem__fb_root(&r->fb, "TFL3", &root), "model root table");
  FB(texmem__fb_u32f(&root, MODEL_VERSION, 0, &version), "model version");
  if (version != 3)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "model schema version %u, expected 3", version);
  FB(texmem__fb_vec_field(&root, MODEL_OPERATOR_CODES, 4, &r->codes), "model operator_codes vector");
  FB(texmem__fb_vec_field(&root, MODEL_BUFFERS, 4, &r->buffers), "model buffers vector");
  FB(texmem__fb_vec_field(&root, MODEL_SUBGRAPHS, 4, &subgraphs), "model subgraphs vector");
  if (subgraphs.len == 0) return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "model has no subgraph");
  FB(texmem__fb_vec_table(&subgraphs, 0, &sg), "subgraph 0");
  FB(texmem__fb_vec_field(&sg, SUBGRAPH_TENSORS, 4, &tv), "subgraph 0: tensors vector");
  FB(texmem__fb_vec_field(&sg, SUBGRAPH_OPERATORS, 4, &ov), "subgraph 0: operators vector");

  /* Vector lengths are bounded by the file size, so these are too. */
  texmem_status s;
  /* The model's arrays (capacity up to twice the count), the per-tensor
   * scratch here, in materialize and in texmem__apply_input_shapes. */
  size_t nt = tv.len ? tv.len : 1, no = ov.len ? ov.len : 1;
  if ((s = charge(r, -1, nt * (2 * sizeof(texmem_tensor) + sizeof(raw_tensor) + 1 + 2 * sizeof(bool)) +
                             no * 2 * sizeof(texmem_op))))
    return s;
  if ((s = texmem__model_reserve_tensors(r->m, tv.len ? tv.len : 1, r->err)) ||
      (s = texmem__model_reserve_ops(r->m, ov.len ? ov.len : 1, r->err)))
    return s;
  r->raw = calloc(tv.len ? tv.len : 1, sizeof *r->raw);
  r->dynamic = calloc(tv.len ? tv.len : 1, 1);
  if (!r->raw || !r->dynamic)
    return texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for %u tensors", tv.len);
  for (uint32_t i = 0; i < tv.len; i++)
    if ((s = read_tensor(r, &tv, i))) return s;
  if ((s = read_io(r, &sg, SUBGRAPH_INPUTS, "input", &r->m->inputs, &r->m->n_inputs, TEXMEM_TENSOR_INPUT)) ||
      (s = read_io(r, &sg, SUBGRAPH_OUTPUTS, "output", &r->m->outputs, &r->m->n_outputs, TEXMEM_TENSOR_OUTPUT)) ||
      (s = texmem__apply_input_shapes(r->m, r->dynamic, r->desc, MAX_ELEMENTS, r->err)))
    return s;
  for (uint32_t k = 0; k < ov.len; k++)
    if ((s = read_op(r, &ov, k))) return s;
  if ((s = materialize(r))) return s;
  texmem__model_update_flags(r->m);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_model_read_tflite(const void *data, size_t size, texmem_model **out,
                                       texmem_error *err) {
  return texmem_model_read_tflite_desc(data, size, NULL, out, err);
}

texmem_status texmem_model_read_tflite_desc(const void *data, size_t size,
                                            const texmem_model_load_desc *desc, texmem_model **out,
                                            texmem_error *err) {
  if (!out || (!data && size)) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "data or out is NULL");
  *out = NULL;
  if (size > UINT32_MAX)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "model of %zu bytes is over the 4 GiB flatbuffer limit", size);
  reader r;
  memset(&r, 0, sizeof r);
  r.fb.data = data;
  r.fb.size = size;
  r.err = err;
  r.budget = desc && desc->max_load_bytes ? desc->max_load_bytes
                                           : size * LOAD_BUDGET_FACTOR + LOAD_BUDGET_SLACK;
  r.desc = desc;
  texmem_status s = texmem_model_create(&r.m, err);
  if (s) return s;
  s = read_model(&r);
  free(r.raw);
  free(r.dynamic);
  if (s) {
    texmem_model_destroy(r.m);
    return s;
  }
  *out = r.m;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_model_load_tflite(const char *path, texmem_model **out, texmem_error *err) {
  return texmem_model_load_tflite_desc(path, NULL, out, err);
}

texmem_status texmem_model_load_tflite_desc(const char *path, const texmem_model_load_desc *desc,
                                            texmem_model **out, texmem_error *err) {
  if (!path || !out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "path or out is NULL");
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return texmem__fail(err, TEXMEM_STATUS_IO, "%s: cannot open", path);
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      size_t ncap = cap ? cap * 2 : 1u << 20;
      uint8_t *nb = ncap > cap ? realloc(buf, ncap) : NULL;
      if (!nb) {
        free(buf);
        fclose(f);
        return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "%s: no memory to read the file", path);
      }
      buf = nb;
      cap = ncap;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  bool failed = ferror(f) != 0;
  fclose(f);
  if (failed) {
    free(buf);
    return texmem__fail(err, TEXMEM_STATUS_IO, "%s: read error", path);
  }
  texmem_status s = texmem_model_read_tflite_desc(buf, len, desc, out, err);
  free(buf);
  if (s && err) {
    /* Prefix the path so CLI messages say which file. */
    char msg[sizeof err->message];
    memcpy(msg, err->message, sizeof msg);
    if (snprintf(err->message, sizeof err->message, "%s: %s", path, msg) < 0) err->message[0] = 0;
  }
  return s;
}

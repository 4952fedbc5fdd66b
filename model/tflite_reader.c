/* TFLite flatbuffer -> texmem_model (subgraph 0). The file's tables come
 * from the one .tflite reader (tflite_file.c); nothing is trusted.
 * Weight-only operators are folded while reading: DEQUANTIZE of constant
 * fp16 data and DENSIFY of constant sparse data make their outputs
 * constants and are dropped, so operator indices are dense over what runs. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tflite_reader.h"

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

typedef texmem__tfl_reader reader;
typedef texmem__tfl_raw raw_tensor;

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

/* The stored shape of tensor i into dims (static: -1 there is refused),
 * its dynamic dimensions (-1 in shape_signature, the stored shape then
 * holding a placeholder, usually 1) into r->dynamic[i], and the element
 * count. */
static texmem_status read_dims(reader *r, uint32_t i, const texmem__tfl_tensor *tt, int32_t *dims,
                               uint64_t *count) {
  const char *name = tt->name;
  uint32_t rank = tt->shape.len;
  if (rank > MAX_FILE_RANK)
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED, "tensor %u ('%s'): rank %u above %d", i, name, rank,
                        MAX_FILE_RANK);
  for (uint32_t d = 0; d < rank; d++) {
    dims[d] = texmem__fb_vec_i32(&tt->shape, d);
    if (dims[d] < 0)
      return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED,
                          "tensor %u ('%s'): dimension %u is %d in shape (dynamic shapes unsupported "
                          "there; TFLite marks them in shape_signature)",
                          i, name, d, (int)dims[d]);
  }
  const texmem__fb_vec *sig = &tt->signature;
  if (sig->len && sig->len != rank)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "tensor %u ('%s'): shape_signature has rank %u, shape %u",
                        i, name, sig->len, rank);
  for (uint32_t d = 0; d < sig->len; d++) {
    int32_t v = texmem__fb_vec_i32(sig, d);
    if (v == -1 && rank > TEXMEM_MAX_RANK)
      return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED,
                          "tensor %u ('%s'): dimension %u of a rank-%u tensor is dynamic (ranks above %d "
                          "are planned with static shapes only)",
                          i, name, d, rank, TEXMEM_MAX_RANK);
    if (v == -1)
      r->dynamic[i] |= (uint8_t)(1u << d);
    else if (v != dims[d])
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                          "tensor %u ('%s'): shape_signature dimension %u is %d, shape says %d", i, name, d, (int)v,
                          (int)dims[d]);
  }
  if (!texmem__shape_elements(rank, dims, count) || *count > MAX_ELEMENTS)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                        "tensor %u ('%s'): shape product too large (over 2^40 elements)", i, name);
  return TEXMEM_STATUS_OK;
}

/* Ranks above 4: the leading dimensions are merged into the first, which
 * keeps the element count and the row-major order (all planning needs);
 * operators touching such a tensor are kept as OTHER. */
static texmem_status collapse_rank(reader *r, uint32_t i, const char *name, int32_t *dims, unsigned *rank) {
  if (*rank <= TEXMEM_MAX_RANK) return TEXMEM_STATUS_OK;
  uint64_t lead = 1;
  for (unsigned d = 0; d + 3 < *rank; d++) lead *= (uint64_t)dims[d]; /* <= the element count */
  if (lead > INT32_MAX)
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED,
                        "tensor %u ('%s'): rank %u with leading dimensions over 2^31 elements", i, name, *rank);
  dims[0] = (int32_t)lead;
  memmove(dims + 1, dims + *rank - 3, 3 * sizeof *dims);
  *rank = TEXMEM_MAX_RANK;
  return TEXMEM_STATUS_OK;
}

/* The buffer of tensor i: its size against the shape (sparse data: whole
 * values). */
static texmem_status read_data(reader *r, uint32_t i, const texmem__tfl_tensor *tt, size_t esize, uint64_t count) {
  raw_tensor *raw = &r->raw[i];
  char where[32];
  snprintf(where, sizeof where, "tensor %u", i);
  raw->sparse = tt->sparse;
  raw->sparsity = tt->sparsity;
  texmem_status s = texmem__tfl_buffer(&r->file, tt->buffer, where, &raw->data, &raw->size, NULL, r->err);
  if (s) return s;
  if (raw->data && !raw->sparse && raw->size != count * esize)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "tensor %u ('%s'): buffer %u holds %zu bytes, shape needs %llu",
                        i, tt->name, tt->buffer, raw->size, (unsigned long long)(count * esize));
  if (raw->sparse && (!raw->data || raw->size % esize))
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "tensor %u ('%s'): sparse tensor without whole values", i,
                        tt->name);
  return TEXMEM_STATUS_OK;
}

static texmem_status read_tensor(reader *r, uint32_t i) {
  texmem__tfl_tensor tt;
  char where[32];
  snprintf(where, sizeof where, "tensor %u", i);
  int32_t dims[MAX_FILE_RANK];
  uint64_t count;
  texmem_dtype type;
  texmem_status s;
  if ((s = texmem__tfl_tensor_read(&r->file, &r->sg, i, where, &tt, r->err)) ||
      (s = read_dims(r, i, &tt, dims, &count)))
    return s;
  unsigned rank = tt.shape.len;
  if ((s = collapse_rank(r, i, tt.name, dims, &rank))) return s;
  if (!map_type(tt.type, &type))
    return texmem__fail(r->err, TEXMEM_STATUS_UNSUPPORTED, "tensor %u ('%s'): element type %u unsupported", i,
                        tt.name, tt.type);
  if ((s = read_data(r, i, &tt, texmem_dtype_size(type), count))) return s;

  texmem_tensor *mt = &r->m->tensors[i];
  memset(mt, 0, sizeof *mt);
  mt->name = "";
  mt->producer = -1;
  mt->type = type;
  texmem__tensor_set_shape(mt, rank, dims);
  if (r->raw[i].data) {
    mt->flags = TEXMEM_TENSOR_CONSTANT;
    r->dynamic[i] = 0; /* data fixes the shape */
  }
  if (rank != tt.shape.len) mt->flags |= TEXMEM_TENSOR_COLLAPSED;
  r->m->n_tensors = i + 1;
  /* The name as C reads it: up to its first NUL. One that starts with NUL
   * is "" (static, as for no name: the model frees only non-empty names). */
  size_t name_len = strlen(tt.name);
  if (name_len) {
    if ((s = texmem__tfl_charge(r, (int32_t)i, name_len + 1))) return s;
    char *copy = malloc(name_len + 1);
    if (!copy) return texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for tensor names");
    memcpy(copy, tt.name, name_len + 1);
    mt->name = copy;
  }
  return TEXMEM_STATUS_OK;
}

/* Tensor indices of v, malloc'd into *out (charged to the load budget). */
static texmem_status copy_indices(reader *r, const texmem__fb_vec *v, bool allow_absent, const char *where,
                                  const char *what, int32_t **out) {
  texmem_status s = texmem__tfl_charge(r, -1, (size_t)v->len * sizeof **out + 1);
  if (s) return s;
  *out = malloc((size_t)v->len * sizeof **out + 1);
  if (!*out) return texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "%s: no memory", where);
  return texmem__tfl_indices(v, r->m->n_tensors, allow_absent, where, what, *out, r->err);
}

static texmem_status read_io(reader *r, const texmem__fb_vec *v, const char *what, int32_t **out, size_t *n,
                             uint32_t flag) {
  *n = 0;
  texmem_status s = copy_indices(r, v, false, "subgraph 0", what, out);
  if (s) return s;
  *n = v->len;
  for (uint32_t i = 0; i < v->len; i++) r->m->tensors[(*out)[i]].flags |= flag;
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
  texmem_status s = texmem__tfl_const_bytes(r, in[0], &data, &size, &owned);
  if (s) return s;
  if (size != n_src * texmem_dtype_size(src->type)) {
    free(owned);
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): input data size wrong", k, opname);
  }
  void *result;
  size_t rsize;
  /* fp16 -> fp32 takes twice the bytes; file data is copied. */
  bool convert = src->type == TEXMEM_DTYPE_FLOAT16 && dst->type == TEXMEM_DTYPE_FLOAT32;
  if ((s = texmem__tfl_charge(r, out[0], convert ? size * 2 : owned ? 0 : size))) {
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

/* Operators with one output or more (the others have exactly one). */
static bool multi_output(texmem_op_type t) { return t == TEXMEM_OP_SPLIT || t == TEXMEM_OP_SPLIT_V; }

/* The custom option bytes of an operator: inline, or (models over 2 GB) at
 * an offset of the file; bounds-checked, borrowed. */
static texmem_status custom_options(reader *r, unsigned k, const texmem__tfl_op *op, const uint8_t **opt,
                                    size_t *opt_size) {
  texmem__fb_vec co;
  TEXMEM__FB_TRY(r->err, texmem__fb_vec_field(&op->table, OP_CUSTOM_OPTIONS, 1, &co),
                 "operator %u (custom '%s'): custom options", k, op->custom);
  const texmem__fb *fb = &r->file.fb;
  *opt = fb->data + co.pos;
  *opt_size = co.len;
  uint64_t loff = op->large_custom_offset, lsize = op->large_custom_size;
  if (co.len == 0 && loff > 1) {
    if (loff > fb->size || lsize > fb->size - loff)
      return texmem__fb_bad(r->err, TEXMEM__FB_OUT_OF_BOUNDS, "operator %u (custom '%s'): external custom options", k,
                            op->custom);
    *opt = fb->data + loff;
    *opt_size = (size_t)lsize;
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

/* An operator being read: its file fields, tensors and what it becomes. */
typedef struct op_read {
  unsigned k;
  texmem__tfl_op file;
  int32_t *in, *out;
  uint32_t n_in, n_out;
  const texmem__op_spec *sp;
  const uint8_t *opt; /* custom option bytes */
  size_t opt_size;
  texmem_op op;
} op_read;

/* Each output is produced once, by this operator, and is no constant. */
static texmem_status check_outputs(reader *r, const op_read *x) {
  for (uint32_t i = 0; i < x->n_out; i++) {
    const texmem_tensor *t = &r->m->tensors[x->out[i]];
    if (t->producer >= 0 || (t->flags & TEXMEM_TENSOR_CONSTANT))
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u: output tensor %d is %s", x->k,
                          (int)x->out[i], t->producer >= 0 ? "already produced by another operator" : "a constant");
    for (uint32_t j = 0; j < i; j++)
      if (x->out[j] == x->out[i])
        return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u: output tensor %d listed twice", x->k,
                            (int)x->out[i]);
  }
  return TEXMEM_STATUS_OK;
}

/* The spec of the operator (NULL: OTHER). Every custom operator's option
 * bytes are checked and kept, known or not. */
static texmem_status find_spec(reader *r, op_read *x) {
  int32_t code = x->file.code;
  x->op.options = texmem_op_options_default();
  x->op.options.builtin_code = code;
  if (code != TFL_CUSTOM) {
    x->sp = texmem__tflite_builtin_spec(code);
    return TEXMEM_STATUS_OK;
  }
  texmem_status s = custom_options(r, x->k, &x->file, &x->opt, &x->opt_size);
  if (s) return s;
  bool other_version;
  x->sp = texmem__tflite_custom_spec(x->file.custom, x->file.version, &other_version);
  /* another version of a MediaPipe operator: kept as OTHER by its name */
  if (other_version) x->op.options.options_unsupported = true;
  return TEXMEM_STATUS_OK;
}

/* The operator's options per its spec. Options outside the IR keep the
 * operator (it plans) as OTHER; the runtime refuses it by name. */
static texmem_status parse_options(reader *r, op_read *x) {
  const texmem__op_spec *sp = x->sp;
  const char *name = texmem_op_type_name(sp->type);
  if (x->n_in < sp->min_in || x->n_in > sp->max_in || x->n_out < 1 || (x->n_out != 1 && !multi_output(sp->type)))
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): %u inputs and %u outputs", x->k, name,
                        x->n_in, x->n_out);
  for (uint32_t i = 0; i < sp->min_in; i++)
    if (x->in[i] < 0)
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "operator %u (%s): required input %u absent", x->k, name,
                          i);
  texmem_status s;
  if (touches_collapsed(r, x->in, x->n_in, x->out, x->n_out))
    s = TEXMEM_STATUS_UNSUPPORTED_OP; /* a rank above 4: no kernel handles it */
  else if (sp->code == TFL_CUSTOM)
    s = texmem__tflite_custom_options(x->k, sp, x->opt, x->opt_size, &x->op.options, r->err);
  else
    s = texmem__tflite_builtin_options(r, r->m, x->k, sp, &x->file.table, x->in, x->n_in, x->n_out, &x->op.options,
                                       r->err);
  if (s != TEXMEM_STATUS_UNSUPPORTED_OP) return s;
  x->op.options = texmem_op_options_default();
  x->op.options.builtin_code = x->file.code;
  x->op.options.options_unsupported = true;
  x->sp = NULL;
  if (r->err) memset(r->err, 0, sizeof *r->err);
  return TEXMEM_STATUS_OK;
}

/* A custom operator keeps its code and option bytes (copies). */
static texmem_status keep_custom(reader *r, op_read *x) {
  size_t name_len = strlen(x->file.custom);
  texmem_status s = texmem__tfl_charge(r, -1, name_len + 1 + x->opt_size);
  if (s) return s;
  char *cname = malloc(name_len + 1);
  uint8_t *copt = malloc(x->opt_size ? x->opt_size : 1);
  if (!cname || !copt) {
    free(cname);
    free(copt);
    return texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "operator %u: no memory", x->k);
  }
  memcpy(cname, x->file.custom, name_len + 1);
  if (x->opt_size) memcpy(copt, x->opt, x->opt_size);
  x->op.options.custom_name = cname;
  x->op.options.custom_options = copt;
  x->op.options.custom_options_size = x->opt_size;
  return TEXMEM_STATUS_OK;
}

/* Operator k: folded away, or appended to the model. */
static texmem_status read_op(reader *r, uint32_t k) {
  op_read x;
  memset(&x, 0, sizeof x);
  x.k = k;
  char where[32];
  snprintf(where, sizeof where, "operator %u", k);
  texmem_status s = texmem__tfl_op_read(&r->file, &r->sg, k, &x.file, r->err);
  if (s) return s;
  x.n_in = x.file.inputs.len;
  x.n_out = x.file.outputs.len;
  if ((s = copy_indices(r, &x.file.inputs, true, where, "input", &x.in)) ||
      (s = copy_indices(r, &x.file.outputs, false, where, "output", &x.out)) || (s = check_outputs(r, &x)))
    goto fail;
  int32_t code = x.file.code;
  if ((code == TFL_DEQUANTIZE || code == TFL_DENSIFY) && foldable(r, code, x.in, x.n_in, x.n_out)) {
    s = fold(r, k, code, x.in, x.n_in, x.out, x.n_out);
    goto fail; /* folded: the indices are not kept */
  }
  if ((s = find_spec(r, &x)) || (x.sp && (s = parse_options(r, &x))) ||
      (code == TFL_CUSTOM && (s = keep_custom(r, &x))))
    goto fail;
  x.op.type = x.sp ? x.sp->type : TEXMEM_OP_OTHER;
  x.op.inputs = x.in;
  x.op.n_inputs = x.n_in;
  x.op.outputs = x.out;
  x.op.n_outputs = x.n_out;
  for (uint32_t i = 0; i < x.n_out; i++) r->m->tensors[x.out[i]].producer = (int32_t)r->m->n_ops;
  r->m->ops[r->m->n_ops++] = x.op; /* capacity reserved for every file op */
  return TEXMEM_STATUS_OK;
fail:
  free(x.in);
  free(x.out);
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
      texmem_status s = texmem__tfl_const_bytes(r, ti, &data, &size, &owned);
      if (s) return s;
      void *result;
      size_t rsize = size;
      /* Converted fp16 data takes twice its bytes; file data is copied. */
      size_t extra = t->type == TEXMEM_DTYPE_FLOAT16 ? size * 2 : owned ? 0 : size;
      if ((s = texmem__tfl_charge(r, ti, extra))) {
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
  texmem_status s;
  if ((s = texmem__tfl_subgraph_read(&r->file, 0, &r->sg, r->err))) return s;
  uint32_t n_tensors = r->sg.tensors.len, n_ops = r->sg.operators.len;
  /* Vector lengths are bounded by the file size, so these are too. The
   * model's arrays (capacity up to twice the count), the per-tensor
   * scratch here, in materialize and in texmem__apply_input_shapes. */
  size_t nt = n_tensors ? n_tensors : 1, no = n_ops ? n_ops : 1;
  if ((s = texmem__tfl_charge(r, -1, nt * (2 * sizeof(texmem_tensor) + sizeof(raw_tensor) + 1 + 2 * sizeof(bool)) +
                             no * 2 * sizeof(texmem_op))))
    return s;
  if ((s = texmem__model_reserve_tensors(r->m, nt, r->err)) || (s = texmem__model_reserve_ops(r->m, no, r->err)))
    return s;
  r->raw = calloc(nt, sizeof *r->raw);
  r->dynamic = calloc(nt, 1);
  if (!r->raw || !r->dynamic)
    return texmem__fail(r->err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for %u tensors", n_tensors);
  for (uint32_t i = 0; i < n_tensors; i++)
    if ((s = read_tensor(r, i))) return s;
  if ((s = read_io(r, &r->sg.inputs, "input", &r->m->inputs, &r->m->n_inputs, TEXMEM_TENSOR_INPUT)) ||
      (s = read_io(r, &r->sg.outputs, "output", &r->m->outputs, &r->m->n_outputs, TEXMEM_TENSOR_OUTPUT)) ||
      (s = texmem__apply_input_shapes(r->m, r->dynamic, r->desc, MAX_ELEMENTS, r->err)))
    return s;
  for (uint32_t k = 0; k < n_ops; k++)
    if ((s = read_op(r, k))) return s;
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
  r.err = err;
  r.budget = desc && desc->max_load_bytes ? desc->max_load_bytes
                                           : size * LOAD_BUDGET_FACTOR + LOAD_BUDGET_SLACK;
  r.desc = desc;
  texmem_status s = texmem__tfl_open(&r.file, data, size, err);
  if (s) return s;
  if ((s = texmem_model_create(&r.m, err))) return s;
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
  uint8_t *buf;
  size_t len;
  texmem_status s = texmem__tfl_read_path(path, UINT32_MAX, &buf, &len, err);
  if (s) return s;
  s = texmem_model_read_tflite_desc(buf, len, desc, out, err);
  free(buf);
  /* Prefix the path so CLI messages say which file. */
  if (s) texmem__tfl_name_path(err, path);
  return s;
}

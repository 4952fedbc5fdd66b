/* TFLite flatbuffer writer (see tflite_writer.h).
 *
 * Written front to back: a table is laid out with placeholder offsets for
 * its children, the children are written after it, and each placeholder is
 * patched. Flatbuffer offsets (uoffset) must point forward, which this
 * order gives for free. Every vtable sits just before its table; every
 * scalar is aligned to its size, vector elements to theirs (buffer data to
 * 16, as the schema's force_align asks). */
#include "tflite_writer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Schema constants: union member ids and field ids (schema.fbs order, a
 * union taking two ids). */
enum {
  OPT_CONV_2D = 1, OPT_DEPTHWISE_CONV_2D = 2, OPT_POOL_2D = 5, OPT_FULLY_CONNECTED = 8,
  OPT_CONCATENATION = 10, OPT_ADD = 11, OPT_RESIZE_BILINEAR = 15, OPT_RESHAPE = 17, OPT_MUL = 21,
  OPT_PAD = 22, OPT_REDUCER = 27, OPT_HARD_SWISH = 91, OPT_DEPTH_TO_SPACE = 94,
  OPT_SOFTMAX = 9, OPT_SUB = 28, OPT_DIV = 29, OPT_STRIDED_SLICE = 32, OPT_SPLIT = 35,
  OPT_MAXIMUM_MINIMUM = 39, OPT_TRANSPOSE_CONV = 49, OPT_RESIZE_NEAREST_NEIGHBOR = 74,
  OPT_LEAKY_RELU = 75, OPT_SPLIT_V = 79
};
enum { F_MODEL_VERSION, F_MODEL_CODES, F_MODEL_SUBGRAPHS, F_MODEL_DESCRIPTION, F_MODEL_BUFFERS, F_MODEL_METADATA = 6 };
enum { F_META_NAME, F_META_BUFFER };
enum { F_CODE_DEPRECATED, F_CODE_CUSTOM, F_CODE_VERSION, F_CODE_BUILTIN };
enum { F_SG_TENSORS, F_SG_INPUTS, F_SG_OUTPUTS, F_SG_OPERATORS, F_SG_NAME };
enum { F_T_SHAPE, F_T_TYPE, F_T_BUFFER, F_T_NAME, F_T_QUANT, F_T_VARIABLE, F_T_SPARSITY,
       F_T_SIGNATURE };
enum { F_SP_ORDER, F_SP_BLOCK_MAP, F_SP_DIM_METADATA };
enum { F_DM_FORMAT, F_DM_DENSE_SIZE, F_DM_SEG_TYPE, F_DM_SEG, F_DM_IDX_TYPE, F_DM_IDX };
enum { SPARSE_INT32_VECTOR = 1 };
enum { F_Q_MIN, F_Q_MAX, F_Q_SCALE, F_Q_ZERO_POINT, F_Q_DIM = 6 };
enum {
  F_OP_CODE_INDEX, F_OP_INPUTS, F_OP_OUTPUTS, F_OP_OPTIONS_TYPE, F_OP_OPTIONS, F_OP_CUSTOM_OPTIONS
};
enum { F_BUFFER_DATA };

#define MAX_FILE ((size_t)1 << 31) /* uoffset is 32 bits; TFLite wants < 2 GiB */

typedef struct wbuf {
  uint8_t *p;
  size_t n, cap;
  texmem_status st;
  texmem_error *err;
} wbuf;

static texmem_status fail(wbuf *b, texmem_status st, const char *fmt, ...) {
  if (b->st == TEXMEM_STATUS_OK) {
    b->st = st;
    if (b->err) {
      b->err->status = st;
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(b->err->message, sizeof b->err->message, fmt, ap);
      va_end(ap);
    }
  }
  return b->st;
}

/* Pads to `align` then appends `len` zero bytes; returns their position
 * (0 after a failure: callers check b->st at the end). */
static size_t reserve(wbuf *b, size_t len, size_t align) {
  if (b->st) return 0;
  size_t pos = (b->n + align - 1) / align * align;
  if (len > MAX_FILE || pos + len > MAX_FILE) {
    fail(b, TEXMEM_STATUS_OVERFLOW, "model larger than 2 GiB, the flatbuffer limit");
    return 0;
  }
  if (pos + len > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < pos + len) cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
      fail(b, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory writing a %zu-byte model", cap);
      return 0;
    }
    b->p = p;
    b->cap = cap;
  }
  memset(b->p + b->n, 0, pos + len - b->n);
  b->n = pos + len;
  return pos;
}

static void put(wbuf *b, size_t pos, uint64_t v, size_t size) {
  if (b->st) return;
  for (size_t k = 0; k < size; k++) b->p[pos + k] = (uint8_t)(v >> (8 * k));
}

/* The uoffset at `slot` now points at `target` (written later). */
static void patch(wbuf *b, size_t slot, size_t target) {
  if (!b->st) put(b, slot, (uint32_t)(target - slot), 4);
}

/* A table field: scalar (size 1, 4 or 8, raw bits) or offset (size 0: its
 * slot position goes to *slot, to patch once the child is written). */
typedef struct tfield {
  uint16_t id;
  uint8_t size;
  uint64_t bits;
  size_t *slot;
} tfield;

static tfield scalar(uint16_t id, uint8_t size, uint64_t bits) {
  return (tfield){id, size, bits, NULL};
}
static tfield offset(uint16_t id, size_t *slot) { return (tfield){id, 0, 0, slot}; }

/* Writes vtable + table; returns the table position. Layout: soffset at 0,
 * then 8-byte fields (table start aligned to 8), 4-byte and offsets, then
 * bytes, so every field is aligned to its size. */
static size_t table(wbuf *b, const tfield *f, size_t n) {
  uint16_t nid = 0, at[16] = {0};
  size_t off = 4;
  for (size_t i = 0; i < n; i++)
    if (f[i].id + 1u > nid) nid = (uint16_t)(f[i].id + 1);
  if (nid > 16) {
    fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "table field id %u out of range", nid - 1u);
    return 0;
  }
  for (unsigned pass = 0; pass < 3; pass++) {
    static const uint8_t sizes[3] = {8, 4, 1};
    for (size_t i = 0; i < n; i++) {
      size_t sz = f[i].size ? f[i].size : 4;
      if (sz != sizes[pass]) continue;
      off = (off + sz - 1) / sz * sz;
      at[f[i].id] = (uint16_t)off;
      off += sz;
    }
  }
  size_t vt_size = 4 + 2 * (size_t)nid;
  size_t start = b->n + vt_size; /* the table follows its vtable, 8-aligned */
  size_t t = (start + 7) / 8 * 8;
  reserve(b, t + off - b->n, 1);
  if (b->st) return 0;
  size_t v = t - vt_size;
  put(b, v, vt_size, 2);
  put(b, v + 2, off, 2);
  for (uint16_t id = 0; id < nid; id++) put(b, v + 4 + 2 * (size_t)id, at[id], 2);
  put(b, t, (uint32_t)(t - v), 4); /* soffset: vtable = table - soffset */
  for (size_t i = 0; i < n; i++) {
    size_t pos = t + at[f[i].id];
    if (f[i].size) put(b, pos, f[i].bits, f[i].size);
    else *f[i].slot = pos;
  }
  return t;
}

/* A vector of `count` elements of `esize` bytes aligned to `ealign`
 * (data NULL: zeros, e.g. offset placeholders at returned pos + 4 + 4i). */
static size_t vector(wbuf *b, size_t count, size_t esize, size_t ealign, const void *data) {
  if (b->st) return 0;
  if (count > MAX_FILE / (esize ? esize : 1)) {
    fail(b, TEXMEM_STATUS_OVERFLOW, "vector of %zu elements exceeds 2 GiB", count);
    return 0;
  }
  size_t align = ealign > 4 ? ealign : 4;
  /* The elements (after the 4-byte length) start aligned. */
  size_t first = (b->n + 4 + align - 1) / align * align;
  reserve(b, first + count * esize - b->n, 1);
  if (b->st) return 0;
  put(b, first - 4, (uint32_t)count, 4);
  if (data && count) memcpy(b->p + first, data, count * esize);
  return first - 4;
}

static size_t ivector(wbuf *b, size_t count, const int32_t *v) {
  size_t pos = vector(b, count, 4, 4, NULL);
  for (size_t i = 0; i < count; i++) put(b, pos + 4 + 4 * i, (uint32_t)v[i], 4);
  return pos;
}

static size_t string(wbuf *b, const char *s) {
  size_t len = strlen(s);
  size_t pos = vector(b, len, 1, 1, NULL);
  reserve(b, 1, 1); /* the NUL after the bytes, not counted in the length */
  if (!b->st) memcpy(b->p + pos + 4, s, len);
  return pos;
}

size_t tw_type_size(uint8_t type) {
  switch (type) {
  case TW_FLOAT32: case TW_INT32: return 4;
  case TW_FLOAT16: case TW_INT16: return 2;
  case TW_UINT8: case TW_INT8: case TW_BOOL: return 1;
  case TW_INT64: return 8;
  default: return 0;
  }
}

/* ---- operator codes ---- */

typedef struct opcode {
  int32_t code, version;
  const char *custom;
} opcode;

static bool same_code(const opcode *a, const opcode *b) {
  if (a->code != b->code || a->version != b->version) return false;
  if (!a->custom || !b->custom) return a->custom == b->custom;
  return strcmp(a->custom, b->custom) == 0;
}

static opcode code_of(const tw_operator *op) {
  return (opcode){op->code, op->version ? op->version : 1,
                  op->code == TW_OP_CUSTOM ? op->custom_code : NULL};
}

/* ---- checks ---- */

static texmem_status check(wbuf *b, const tw_model *m) {
  if (!m || m->n_subgraphs == 0 || !m->subgraphs)
    return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "model has no subgraph");
  for (size_t s = 0; s < m->n_subgraphs; s++) {
    const tw_subgraph *g = &m->subgraphs[s];
    int64_t nt = (int64_t)g->n_tensors;
    if (g->n_tensors && !g->tensors)
      return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "subgraph %zu: tensors missing", s);
    for (size_t i = 0; i < g->n_tensors; i++) {
      const tw_tensor *t = &g->tensors[i];
      size_t es = tw_type_size(t->type);
      if (!es) return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "subgraph %zu tensor %zu: type %u unknown", s, i, t->type);
      if (t->rank > 8) return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "subgraph %zu tensor %zu: rank %u > 8", s, i, t->rank);
      uint64_t cnt = 1;
      for (unsigned d = 0; d < t->rank; d++) {
        if (t->shape[d] < 0)
          return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "subgraph %zu tensor %zu: dim %u is %d", s, i, d, t->shape[d]);
        cnt *= (uint64_t)t->shape[d];
        if (cnt > MAX_FILE) return fail(b, TEXMEM_STATUS_OVERFLOW, "subgraph %zu tensor %zu: too many elements", s, i);
      }
      if (t->sparsity && (!t->data || t->data_size % es || t->sparsity->n_levels > TW_MAX_LEVELS ||
                          t->sparsity->n_block_map > TW_MAX_LEVELS))
        return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "subgraph %zu tensor %zu: sparsity malformed", s, i);
      if (t->data && !t->sparsity && t->data_size != cnt * es)
        return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT,
                    "subgraph %zu tensor %zu (%s): %zu data bytes, shape needs %llu", s, i,
                    t->name ? t->name : "", t->data_size, (unsigned long long)(cnt * es));
      if (t->quant && (!t->quant->n || !t->quant->scale || !t->quant->zero_point))
        return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "subgraph %zu tensor %zu: empty quantization", s, i);
    }
    const int32_t *lists[2] = {g->inputs, g->outputs};
    size_t lens[2] = {g->n_inputs, g->n_outputs};
    for (int k = 0; k < 2; k++)
      for (size_t i = 0; i < lens[k]; i++)
        if (lists[k][i] < 0 || lists[k][i] >= nt)
          return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "subgraph %zu: graph %s %zu is tensor %d of %zu", s,
                      k ? "output" : "input", i, lists[k][i], g->n_tensors);
    for (size_t o = 0; o < g->n_operators; o++) {
      const tw_operator *op = &g->operators[o];
      if (op->code < 0 || (op->code == TW_OP_CUSTOM && !op->custom_code))
        return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "subgraph %zu operator %zu: bad code %d", s, o, op->code);
      for (size_t i = 0; i < op->n_inputs; i++)
        if (op->inputs[i] < -1 || op->inputs[i] >= nt)
          return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "subgraph %zu operator %zu: input %zu is tensor %d", s, o, i, op->inputs[i]);
      for (size_t i = 0; i < op->n_outputs; i++)
        if (op->outputs[i] < 0 || op->outputs[i] >= nt)
          return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "subgraph %zu operator %zu: output %zu is tensor %d", s, o, i, op->outputs[i]);
      const tw_options *p = &op->options;
      if (p->n_fields > TW_MAX_FIELDS || p->vec_len > TW_MAX_VEC)
        return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "subgraph %zu operator %zu: too many option fields", s, o);
      for (size_t i = 0; i < p->n_fields; i++)
        if ((p->fields[i].size != 1 && p->fields[i].size != 4 && p->fields[i].size != 8) ||
            p->fields[i].id >= 16 || (p->fields[i].is_float && p->fields[i].size != 4))
          return fail(b, TEXMEM_STATUS_INVALID_ARGUMENT, "subgraph %zu operator %zu: option field %zu malformed", s, o, i);
    }
  }
  return TEXMEM_STATUS_OK;
}

/* ---- serialization ---- */

static void write_options(wbuf *b, const tw_options *p, size_t slot) {
  tfield f[TW_MAX_FIELDS + 1];
  size_t n = 0, vslot = 0;
  for (size_t i = 0; i < p->n_fields; i++) {
    uint64_t bits = (uint64_t)p->fields[i].i;
    if (p->fields[i].is_float) {
      float x = (float)p->fields[i].f;
      uint32_t u;
      memcpy(&u, &x, 4);
      bits = u;
    }
    f[n++] = scalar(p->fields[i].id, p->fields[i].size, bits);
  }
  if (p->vec_len) f[n++] = offset(p->vec_id, &vslot);
  patch(b, slot, table(b, f, n));
  if (p->vec_len) patch(b, vslot, ivector(b, p->vec_len, p->vec));
}

static void write_quant(wbuf *b, const tw_quant *q, size_t slot) {
  size_t s_scale = 0, s_zp = 0;
  tfield f[] = {offset(F_Q_SCALE, &s_scale), offset(F_Q_ZERO_POINT, &s_zp),
                scalar(F_Q_DIM, 4, (uint32_t)q->quantized_dimension)};
  patch(b, slot, table(b, f, 3));
  size_t pos = vector(b, q->n, 4, 4, NULL);
  for (size_t i = 0; i < q->n; i++) {
    uint32_t u;
    memcpy(&u, &q->scale[i], 4);
    put(b, pos + 4 + 4 * i, u, 4);
  }
  patch(b, s_scale, pos);
  pos = vector(b, q->n, 8, 8, NULL);
  for (size_t i = 0; i < q->n; i++) put(b, pos + 4 + 8 * i, (uint64_t)q->zero_point[i], 8);
  patch(b, s_zp, pos);
}

/* An Int32Vector table (the SparseIndexVector union member 1). */
static void write_int32_vector(wbuf *b, size_t n, const int32_t *v, size_t slot) {
  size_t s_values = 0;
  tfield f[] = {offset(0, &s_values)};
  patch(b, slot, table(b, f, 1));
  patch(b, s_values, ivector(b, n, v));
}

static void write_sparsity(wbuf *b, const tw_sparsity *sp, size_t slot) {
  size_t s_order = 0, s_map = 0, s_meta = 0;
  tfield f[] = {offset(F_SP_ORDER, &s_order), offset(F_SP_BLOCK_MAP, &s_map),
                offset(F_SP_DIM_METADATA, &s_meta)};
  patch(b, slot, table(b, f, 3));
  patch(b, s_order, ivector(b, sp->n_levels, sp->traversal_order));
  patch(b, s_map, ivector(b, sp->n_block_map, sp->block_map));
  size_t vm = vector(b, sp->n_levels, 4, 4, NULL);
  patch(b, s_meta, vm);
  for (size_t l = 0; l < sp->n_levels; l++) {
    const tw_dim_meta *d = &sp->dims[l];
    size_t s_seg = 0, s_idx = 0;
    tfield df[6];
    size_t k = 0;
    df[k++] = scalar(F_DM_FORMAT, 1, d->format);
    df[k++] = scalar(F_DM_DENSE_SIZE, 4, (uint32_t)d->dense_size);
    if (d->format == 1) {
      df[k++] = scalar(F_DM_SEG_TYPE, 1, SPARSE_INT32_VECTOR);
      df[k++] = offset(F_DM_SEG, &s_seg);
      df[k++] = scalar(F_DM_IDX_TYPE, 1, SPARSE_INT32_VECTOR);
      df[k++] = offset(F_DM_IDX, &s_idx);
    }
    patch(b, vm + 4 + 4 * l, table(b, df, k));
    if (d->format == 1) {
      write_int32_vector(b, d->n_segments, d->segments, s_seg);
      write_int32_vector(b, d->n_indices, d->indices, s_idx);
    }
  }
}

/* buffer_of[i]: buffer index of tensor i (0 = none). */
static void write_subgraph(wbuf *b, const tw_subgraph *g, const uint32_t *buffer_of,
                           const opcode *codes, size_t n_codes, size_t slot) {
  size_t s_t = 0, s_in = 0, s_out = 0, s_ops = 0, s_name = 0;
  tfield f[5];
  size_t n = 0;
  f[n++] = offset(F_SG_TENSORS, &s_t);
  f[n++] = offset(F_SG_INPUTS, &s_in);
  f[n++] = offset(F_SG_OUTPUTS, &s_out);
  f[n++] = offset(F_SG_OPERATORS, &s_ops);
  if (g->name) f[n++] = offset(F_SG_NAME, &s_name);
  patch(b, slot, table(b, f, n));

  size_t vt = vector(b, g->n_tensors, 4, 4, NULL);
  patch(b, s_t, vt);
  for (size_t i = 0; i < g->n_tensors; i++) {
    const tw_tensor *t = &g->tensors[i];
    size_t s_shape = 0, s_tname = 0, s_q = 0, s_sig = 0, s_sp = 0;
    tfield tf[7];
    size_t k = 0;
    tf[k++] = offset(F_T_SHAPE, &s_shape);
    if (t->variable) tf[k++] = scalar(F_T_VARIABLE, 1, 1);
    tf[k++] = scalar(F_T_TYPE, 1, t->type);
    tf[k++] = scalar(F_T_BUFFER, 4, buffer_of[i]);
    if (t->name) tf[k++] = offset(F_T_NAME, &s_tname);
    if (t->quant) tf[k++] = offset(F_T_QUANT, &s_q);
    if (t->shape_signature) tf[k++] = offset(F_T_SIGNATURE, &s_sig);
    if (t->sparsity) tf[k++] = offset(F_T_SPARSITY, &s_sp);
    patch(b, vt + 4 + 4 * i, table(b, tf, k));
    patch(b, s_shape, ivector(b, t->rank, t->shape));
    if (t->name) patch(b, s_tname, string(b, t->name));
    if (t->quant) write_quant(b, t->quant, s_q);
    if (t->shape_signature) patch(b, s_sig, ivector(b, t->rank, t->shape_signature));
    if (t->sparsity) write_sparsity(b, t->sparsity, s_sp);
  }
  patch(b, s_in, ivector(b, g->n_inputs, g->inputs));
  patch(b, s_out, ivector(b, g->n_outputs, g->outputs));
  size_t vo = vector(b, g->n_operators, 4, 4, NULL);
  patch(b, s_ops, vo);
  for (size_t o = 0; o < g->n_operators; o++) {
    const tw_operator *op = &g->operators[o];
    opcode c = code_of(op);
    uint32_t idx = 0;
    while (idx < n_codes && !same_code(&codes[idx], &c)) idx++;
    size_t s_i = 0, s_o = 0, s_opt = 0, s_co = 0;
    tfield of[6];
    size_t k = 0;
    of[k++] = scalar(F_OP_CODE_INDEX, 4, idx);
    of[k++] = offset(F_OP_INPUTS, &s_i);
    of[k++] = offset(F_OP_OUTPUTS, &s_o);
    if (op->options.type) {
      of[k++] = scalar(F_OP_OPTIONS_TYPE, 1, op->options.type);
      of[k++] = offset(F_OP_OPTIONS, &s_opt);
    }
    if (op->custom_options_size) of[k++] = offset(F_OP_CUSTOM_OPTIONS, &s_co);
    patch(b, vo + 4 + 4 * o, table(b, of, k));
    patch(b, s_i, ivector(b, op->n_inputs, op->inputs));
    patch(b, s_o, ivector(b, op->n_outputs, op->outputs));
    if (op->options.type) write_options(b, &op->options, s_opt);
    if (op->custom_options_size)
      patch(b, s_co, vector(b, op->custom_options_size, 1, 1, op->custom_options));
  }
  if (g->name) patch(b, s_name, string(b, g->name));
}

texmem_status tw_write(const tw_model *m, uint8_t **out, size_t *size, texmem_error *err) {
  return tw_write_meta(m, NULL, 0, out, size, err);
}

texmem_status tw_write_meta(const tw_model *m, const tw_metadata *meta, size_t n_meta, uint8_t **out,
                            size_t *size, texmem_error *err) {
  wbuf b = {.err = err};
  opcode *codes = NULL;
  uint32_t **buffer_of = NULL;
  if (!out || !size) return fail(&b, TEXMEM_STATUS_INVALID_ARGUMENT, "tw_write: out or size is NULL");
  *out = NULL;
  *size = 0;
  if (check(&b, m)) return b.st;

  /* Operator codes (deduplicated) and buffer numbers (1.. per constant). */
  size_t n_ops = 0, n_codes = 0, n_buffers = 1;
  for (size_t s = 0; s < m->n_subgraphs; s++) n_ops += m->subgraphs[s].n_operators;
  codes = calloc(n_ops + 1, sizeof *codes);
  buffer_of = calloc(m->n_subgraphs, sizeof *buffer_of);
  if (!codes || !buffer_of) {
    fail(&b, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  for (size_t s = 0; s < m->n_subgraphs; s++) {
    const tw_subgraph *g = &m->subgraphs[s];
    for (size_t o = 0; o < g->n_operators; o++) {
      opcode c = code_of(&g->operators[o]);
      size_t k = 0;
      while (k < n_codes && !same_code(&codes[k], &c)) k++;
      if (k == n_codes) codes[n_codes++] = c;
    }
    buffer_of[s] = calloc(g->n_tensors + 1, sizeof **buffer_of);
    if (!buffer_of[s]) {
      fail(&b, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
      goto done;
    }
    for (size_t i = 0; i < g->n_tensors; i++)
      if (g->tensors[i].data) buffer_of[s][i] = (uint32_t)n_buffers++;
  }

  size_t root = reserve(&b, 8, 8);
  memcpy(b.p + root + 4, "TFL3", 4); /* file identifier */
  size_t s_codes = 0, s_sg = 0, s_desc = 0, s_buf = 0, s_meta = 0;
  tfield f[] = {scalar(F_MODEL_VERSION, 4, 3), offset(F_MODEL_CODES, &s_codes),
                offset(F_MODEL_SUBGRAPHS, &s_sg), offset(F_MODEL_DESCRIPTION, &s_desc),
                offset(F_MODEL_BUFFERS, &s_buf), offset(F_MODEL_METADATA, &s_meta)};
  patch(&b, root, table(&b, f, n_meta ? 6 : 5));
  size_t first_meta_buffer = n_buffers;
  for (size_t k = 0; k < n_meta; k++)
    if (meta[k].buffer_index < 0) n_buffers++;

  size_t vc = vector(&b, n_codes, 4, 4, NULL);
  patch(&b, s_codes, vc);
  for (size_t k = 0; k < n_codes; k++) {
    /* Codes past 127 keep 127 (PLACEHOLDER_FOR_GREATER_OP_CODES) in the
     * deprecated byte; readers take the larger of the two. */
    int32_t dep = codes[k].code < 127 ? codes[k].code : 127;
    size_t s_custom = 0;
    tfield cf[4] = {scalar(F_CODE_DEPRECATED, 1, (uint8_t)dep),
                    scalar(F_CODE_VERSION, 4, (uint32_t)codes[k].version),
                    scalar(F_CODE_BUILTIN, 4, (uint32_t)codes[k].code)};
    size_t nf = 3;
    if (codes[k].custom) cf[nf++] = offset(F_CODE_CUSTOM, &s_custom);
    patch(&b, vc + 4 + 4 * k, table(&b, cf, nf));
    if (codes[k].custom) patch(&b, s_custom, string(&b, codes[k].custom));
  }
  size_t vs = vector(&b, m->n_subgraphs, 4, 4, NULL);
  patch(&b, s_sg, vs);
  for (size_t s = 0; s < m->n_subgraphs; s++)
    write_subgraph(&b, &m->subgraphs[s], buffer_of[s], codes, n_codes, vs + 4 + 4 * s);
  patch(&b, s_desc, string(&b, m->description ? m->description : "texmem tflite_writer"));
  size_t vb = vector(&b, n_buffers, 4, 4, NULL);
  patch(&b, s_buf, vb);
  patch(&b, vb + 4, table(&b, NULL, 0)); /* buffer 0: empty */
  size_t bi = 1;
  for (size_t s = 0; s < m->n_subgraphs; s++) {
    const tw_subgraph *g = &m->subgraphs[s];
    for (size_t i = 0; i < g->n_tensors; i++) {
      if (!g->tensors[i].data) continue;
      size_t s_data = 0;
      tfield bf[] = {offset(F_BUFFER_DATA, &s_data)};
      patch(&b, vb + 4 + 4 * bi++, table(&b, bf, 1));
      patch(&b, s_data, vector(&b, g->tensors[i].data_size, 1, 16, g->tensors[i].data));
    }
  }
  if (n_meta) {
    size_t vm = vector(&b, n_meta, 4, 4, NULL);
    patch(&b, s_meta, vm);
    size_t own = first_meta_buffer;
    for (size_t k = 0; k < n_meta; k++) {
      const tw_metadata *md = &meta[k];
      uint64_t idx = md->buffer_index >= 0 ? (uint64_t)md->buffer_index : own++;
      size_t s_name = 0;
      tfield mf[] = {offset(F_META_NAME, &s_name), scalar(F_META_BUFFER, 4, (uint32_t)idx)};
      patch(&b, vm + 4 + 4 * k, table(&b, mf, 2));
      patch(&b, s_name, string(&b, md->name ? md->name : ""));
    }
    for (size_t k = 0; k < n_meta; k++) {
      const tw_metadata *md = &meta[k];
      if (md->buffer_index >= 0) continue;
      size_t s_data = 0;
      tfield bf[] = {offset(F_BUFFER_DATA, &s_data)};
      patch(&b, vb + 4 + 4 * bi++, table(&b, md->size ? bf : NULL, md->size ? 1 : 0));
      if (md->size) patch(&b, s_data, vector(&b, md->size, 1, 16, md->data));
    }
  }

done:
  if (buffer_of)
    for (size_t s = 0; s < m->n_subgraphs; s++) free(buffer_of[s]);
  free(buffer_of);
  free(codes);
  if (b.st) {
    free(b.p);
    return b.st;
  }
  *out = b.p;
  *size = b.n;
  return TEXMEM_STATUS_OK;
}

texmem_status tw_write_file(const tw_model *m, const char *path, texmem_error *err) {
  uint8_t *data = NULL;
  size_t size = 0;
  texmem_status st = tw_write(m, &data, &size, err);
  if (st) return st;
  FILE *f = path ? fopen(path, "wb") : NULL;
  bool ok = f && fwrite(data, 1, size, f) == size;
  if (f && fclose(f) != 0) ok = false;
  free(data);
  if (!ok) {
    if (err) {
      err->status = TEXMEM_STATUS_IO;
      snprintf(err->message, sizeof err->message, "cannot write %s", path ? path : "(null)");
    }
    return TEXMEM_STATUS_IO;
  }
  return TEXMEM_STATUS_OK;
}

texmem_status tw_write_one_op(const tw_tensor *t, size_t n_in, size_t n_out, int32_t code,
                              tw_options opts, uint8_t **out, size_t *size, texmem_error *err) {
  int32_t op_in[8], graph_in[8], outs[4];
  if (n_in > 8 || n_out > 4) {
    if (err) {
      err->status = TEXMEM_STATUS_INVALID_ARGUMENT;
      snprintf(err->message, sizeof err->message, "%zu inputs, %zu outputs (at most 8 and 4)",
               n_in, n_out);
    }
    return TEXMEM_STATUS_INVALID_ARGUMENT;
  }
  size_t n_graph_in = 0;
  for (size_t i = 0; i < n_in; i++) {
    op_in[i] = (int32_t)i;
    if (!t[i].data) graph_in[n_graph_in++] = (int32_t)i;
  }
  for (size_t j = 0; j < n_out; j++) outs[j] = (int32_t)(n_in + j);
  tw_operator op = {.code = code, .n_inputs = n_in, .inputs = op_in, .n_outputs = n_out,
                    .outputs = outs, .options = opts};
  tw_subgraph g = {.n_tensors = n_in + n_out, .tensors = t, .n_inputs = n_graph_in,
                   .inputs = graph_in, .n_outputs = n_out, .outputs = outs, .n_operators = 1,
                   .operators = &op};
  tw_model m = {.description = "one operator", .n_subgraphs = 1, .subgraphs = &g};
  return tw_write(&m, out, size, err);
}

/* ---- options ---- */

static tw_field fi(uint16_t id, uint8_t size, int64_t v) { return (tw_field){id, size, false, v, 0}; }
static tw_field ff(uint16_t id, double v) { return (tw_field){id, 4, true, 0, v}; }

#define OPTS(t, ...)                                                                \
  do {                                                                             \
    tw_options o = {.type = (t)};                                                  \
    tw_field f_[] = {__VA_ARGS__};                                                 \
    o.n_fields = sizeof f_ / sizeof f_[0];                                         \
    memcpy(o.fields, f_, sizeof f_);                                               \
    return o;                                                                      \
  } while (0)

tw_options tw_conv2d_options(int padding, int sw, int sh, int act, int dw, int dh) {
  OPTS(OPT_CONV_2D, fi(0, 1, padding), fi(1, 4, sw), fi(2, 4, sh), fi(3, 1, act), fi(4, 4, dw),
       fi(5, 4, dh));
}
tw_options tw_depthwise_options(int padding, int sw, int sh, int mult, int act, int dw, int dh) {
  OPTS(OPT_DEPTHWISE_CONV_2D, fi(0, 1, padding), fi(1, 4, sw), fi(2, 4, sh), fi(3, 4, mult),
       fi(4, 1, act), fi(5, 4, dw), fi(6, 4, dh));
}
tw_options tw_pool_options(int padding, int sw, int sh, int fw, int fh, int act) {
  OPTS(OPT_POOL_2D, fi(0, 1, padding), fi(1, 4, sw), fi(2, 4, sh), fi(3, 4, fw), fi(4, 4, fh),
       fi(5, 1, act));
}
tw_options tw_fully_connected_options(int act, bool keep_num_dims) {
  OPTS(OPT_FULLY_CONNECTED, fi(0, 1, act), fi(2, 1, keep_num_dims));
}
tw_options tw_concatenation_options(int axis, int act) {
  OPTS(OPT_CONCATENATION, fi(0, 4, axis), fi(1, 1, act));
}
tw_options tw_add_options(int act) { OPTS(OPT_ADD, fi(0, 1, act)); }
tw_options tw_mul_options(int act) { OPTS(OPT_MUL, fi(0, 1, act)); }
tw_options tw_resize_bilinear_options(bool align_corners, bool half_pixel_centers) {
  OPTS(OPT_RESIZE_BILINEAR, fi(2, 1, align_corners), fi(3, 1, half_pixel_centers));
}
tw_options tw_reducer_options(bool keep_dims) { OPTS(OPT_REDUCER, fi(0, 1, keep_dims)); }
tw_options tw_depth_to_space_options(int block_size) {
  OPTS(OPT_DEPTH_TO_SPACE, fi(0, 4, block_size));
}
tw_options tw_reshape_options(size_t rank, const int32_t *new_shape) {
  tw_options o = {.type = OPT_RESHAPE, .vec_id = 0};
  o.vec_len = rank <= TW_MAX_VEC ? rank : TW_MAX_VEC;
  for (size_t i = 0; i < o.vec_len; i++) o.vec[i] = new_shape[i];
  return o;
}
tw_options tw_pad_options(void) { return (tw_options){.type = OPT_PAD}; }
tw_options tw_hard_swish_options(void) { return (tw_options){.type = OPT_HARD_SWISH}; }
tw_options tw_softmax_options(float beta) { OPTS(OPT_SOFTMAX, ff(0, beta)); }
tw_options tw_leaky_relu_options(float alpha) { OPTS(OPT_LEAKY_RELU, ff(0, alpha)); }
tw_options tw_sub_options(int act) { OPTS(OPT_SUB, fi(0, 1, act)); }
tw_options tw_div_options(int act) { OPTS(OPT_DIV, fi(0, 1, act)); }
tw_options tw_maximum_minimum_options(void) { return (tw_options){.type = OPT_MAXIMUM_MINIMUM}; }
tw_options tw_resize_nearest_options(bool align_corners, bool half_pixel_centers) {
  OPTS(OPT_RESIZE_NEAREST_NEIGHBOR, fi(0, 1, align_corners), fi(1, 1, half_pixel_centers));
}
tw_options tw_strided_slice_options(int begin_mask, int end_mask, int shrink_axis_mask) {
  OPTS(OPT_STRIDED_SLICE, fi(0, 4, begin_mask), fi(1, 4, end_mask), fi(4, 4, shrink_axis_mask));
}
tw_options tw_transpose_conv_options(int padding, int sw, int sh, int act) {
  if (act == TW_ACT_NONE) OPTS(OPT_TRANSPOSE_CONV, fi(0, 1, padding), fi(1, 4, sw), fi(2, 4, sh));
  OPTS(OPT_TRANSPOSE_CONV, fi(0, 1, padding), fi(1, 4, sw), fi(2, 4, sh), fi(3, 1, act));
}
tw_options tw_split_options(int num_splits) { OPTS(OPT_SPLIT, fi(0, 4, num_splits)); }
tw_options tw_split_v_options(int num_splits) { OPTS(OPT_SPLIT_V, fi(0, 4, num_splits)); }

/* texmem_tflm: the whole .tflite file as TFLite Micro sees it, every
 * subgraph with its tensors numbered in order (TFLM's global numbering),
 * variable flags, quantization, metadata and buffers. Read through the
 * model part's .tflite reader (tflite_file.c); nothing in the file is
 * trusted.
 * Unlike texmem_model it keeps every operator as written (no folding), so
 * operator i is TFLM's operator i. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tflm_internal.h"

/* Element counts above this are refused (no MCU tensor comes near), which
 * keeps byte sizes far from overflow. */
#define MAX_ELEMENTS (1ull << 40)
#define MAX_RANK 16

/* The name of a tensor before its own copy is made (never freed). */
static const char no_name[] = "";

typedef struct rd {
  texmem_tflm *f;
  texmem__tfl_file file;
  texmem_error *err;
} rd;

#define NOMEM(r) texmem__fail((r)->err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory reading the model")

/* Element size and name of a TensorType; size 0 for types without a fixed
 * one; name NULL for codes the schema does not have. */
static size_t type_size(int32_t t, const char **name) {
  static const struct { const char *name; size_t size; } types[] = {
      {"float32", 4}, {"float16", 2}, {"int32", 4},   {"uint8", 1},      {"int64", 8},
      {"string", 0},  {"bool", 1},    {"int16", 2},   {"complex64", 8},  {"int8", 1},
      {"float64", 8}, {"complex128", 16}, {"uint64", 8}, {"resource", 0}, {"variant", 0},
      {"uint32", 4},  {"uint16", 2},  {"int4", 0},    {"bfloat16", 2}};
  if (t < 0 || (size_t)t >= sizeof types / sizeof types[0]) {
    *name = NULL;
    return 0;
  }
  *name = types[t].name;
  return types[t].size;
}

static texmem_status read_buffers(rd *r) {
  texmem_tflm *f = r->f;
  uint32_t n = r->file.buffers.len;
  f->n_buffers = n;
  f->buf_data = calloc((size_t)n + 1, sizeof *f->buf_data);
  f->buf_size = calloc((size_t)n + 1, sizeof *f->buf_size);
  if (!f->buf_data || !f->buf_size) return NOMEM(r);
  for (uint32_t b = 0; b < n; b++) {
    bool external;
    texmem_status st = texmem__tfl_buffer(&r->file, b, "", &f->buf_data[b], &f->buf_size[b], &external, r->err);
    if (st) return st;
    if (external) f->external = true;
  }
  return TEXMEM_STATUS_OK;
}

static texmem_status read_metadata(rd *r) {
  texmem__fb_vec mv;
  texmem_status st = texmem__tfl_metadata(&r->file, &mv, r->err);
  if (st) return st;
  texmem_tflm *f = r->f;
  f->meta_name = calloc((size_t)mv.len + 1, sizeof *f->meta_name);
  f->meta_buffer = calloc((size_t)mv.len + 1, sizeof *f->meta_buffer);
  if (!f->meta_name || !f->meta_buffer) return NOMEM(r);
  for (uint32_t i = 0; i < mv.len; i++) {
    const char *name;
    size_t len;
    if ((st = texmem__tfl_metadata_entry(&r->file, &mv, i, &name, &len, &f->meta_buffer[i], r->err))) return st;
    f->meta_name[i] = malloc(len + 1);
    if (!f->meta_name[i]) return NOMEM(r);
    memcpy(f->meta_name[i], name, len + 1);
    f->n_meta = i + 1;
  }
  return TEXMEM_STATUS_OK;
}

static texmem_status read_quant(rd *r, const texmem__tfl_tensor *t, const char *where, texmem_tflm_tensor *mt) {
  texmem__tfl_quant q;
  texmem_status st = texmem__tfl_tensor_quant(t, where, &q, r->err);
  if (st || !q.n) return st;
  mt->quantized_dimension = q.dimension;
  float *s = malloc(q.n * sizeof *s);
  int64_t *z = calloc(q.n, sizeof *z);
  mt->scale = s;
  mt->zero_point = z;
  if (!s || !z) return NOMEM(r);
  for (uint32_t k = 0; k < q.n; k++) {
    uint32_t u = texmem__fb_u32(texmem__fb_vec_at(&q.scale, k));
    memcpy(&s[k], &u, 4);
    if (q.zero_point.len) z[k] = (int64_t)texmem__fb_u64(texmem__fb_vec_at(&q.zero_point, k));
  }
  mt->n_quant = q.n;
  return TEXMEM_STATUS_OK;
}

/* The static shape TFLM runs (a dynamic dimension's placeholder, as TFLM
 * takes it) and the element count. */
static texmem_status read_shape(rd *r, const texmem__tfl_tensor *t, const char *where, texmem_tflm_tensor *mt,
                                uint64_t *count) {
  *count = 0;
  if (t->shape.len > MAX_RANK)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "%s ('%s'): rank %u above %d", where, mt->name,
                        t->shape.len, MAX_RANK);
  int32_t *dims = malloc((t->shape.len + 1) * sizeof *dims);
  if (!dims) return NOMEM(r);
  mt->shape = dims;
  mt->rank = t->shape.len;
  *count = 1;
  for (uint32_t d = 0; d < t->shape.len; d++) {
    dims[d] = texmem__fb_vec_i32(&t->shape, d);
    if (dims[d] < 0)
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "%s ('%s'): dimension %u is %d (TFLM needs static shapes)",
                          where, mt->name, d, (int)dims[d]);
    *count *= (uint64_t)dims[d];
    if (*count > MAX_ELEMENTS)
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "%s ('%s'): over 2^40 elements", where, mt->name);
  }
  return TEXMEM_STATUS_OK;
}

static texmem_status read_tensor(rd *r, const texmem__tfl_subgraph *sg, uint32_t s, uint32_t i, size_t g) {
  texmem__tfl_tensor t;
  char where[48];
  snprintf(where, sizeof where, "subgraph %u tensor %u", s, i);
  texmem_tflm_tensor *mt = &r->f->tensors[g];
  mt->name = no_name;
  mt->subgraph = s;
  mt->index = i;
  texmem_status st = texmem__tfl_tensor_read(&r->file, sg, i, where, &t, r->err);
  if (st) return st;
  char *copy = malloc(t.name_len + 1);
  if (!copy) return NOMEM(r);
  memcpy(copy, t.name, t.name_len + 1);
  mt->name = copy;
  uint64_t count = 0;
  if ((st = read_shape(r, &t, where, mt, &count))) return st;
  mt->type = t.type;
  size_t es = type_size(t.type, &mt->type_name);
  if (!mt->type_name)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "%s ('%s'): unknown type %u", where, copy, t.type);
  mt->bytes = count * es;
  mt->buffer = t.buffer;
  mt->constant = r->f->buf_size[t.buffer] > 0;
  mt->variable = t.variable;
  if (mt->constant && es && r->f->buf_size[t.buffer] != mt->bytes && !t.sparse)
    /* TFLM reads dense constants in place, so a size mismatch is a broken
     * file (sparse ones hold fewer values: TFLM cannot run them, but they
     * are never planned). */
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "%s ('%s'): buffer %u holds %zu bytes, shape needs %llu",
                        where, copy, t.buffer, r->f->buf_size[t.buffer], (unsigned long long)mt->bytes);
  return read_quant(r, &t, where, mt);
}

/* Indices of v, malloc'd into *out, checked against n_tensors. */
static texmem_status read_indices(rd *r, const texmem__fb_vec *v, const char *where, const char *what,
                                  size_t n_tensors, bool allow_absent, int32_t **out, uint32_t *n) {
  *out = malloc(((size_t)v->len + 1) * sizeof **out);
  if (!*out) return NOMEM(r);
  *n = v->len;
  return texmem__tfl_indices(v, n_tensors, allow_absent, where, what, *out, r->err);
}

static texmem_status read_ops(rd *r, const texmem__tfl_subgraph *sgt, uint32_t s) {
  texmem__tflm_subgraph *g = &r->f->sg[s];
  g->ops = calloc((size_t)sgt->operators.len + 1, sizeof *g->ops);
  if (!g->ops) return NOMEM(r);
  texmem_status st = TEXMEM_STATUS_OK;
  for (uint32_t k = 0; !st && k < sgt->operators.len; k++) {
    texmem__tfl_op op;
    char where[48];
    snprintf(where, sizeof where, "subgraph %u operator %u", s, k);
    if ((st = texmem__tfl_op_read(&r->file, sgt, k, &op, r->err))) break;
    if (op.large_custom_offset > 1) r->f->external = true;
    texmem__tflm_op *o = &g->ops[k];
    g->n_ops = k + 1;
    o->code = op.code;
    o->custom = op.custom; /* in f->file */
    st = read_indices(r, &op.inputs, where, "input", g->n_tensors, true, &o->in, &o->n_in);
    if (!st) st = read_indices(r, &op.outputs, where, "output", g->n_tensors, false, &o->out, &o->n_out);
  }
  return st;
}

static texmem_status read_subgraphs(rd *r) {
  texmem_tflm *f = r->f;
  uint32_t n = r->file.subgraphs.len;
  f->sg = calloc(n, sizeof *f->sg);
  texmem__tfl_subgraph *sgt = calloc(n, sizeof *sgt);
  if (!f->sg || !sgt) {
    free(sgt);
    return NOMEM(r);
  }
  f->n_sg = n;
  /* Count first: tensors are numbered over all subgraphs. Vector lengths
   * are bounded by the file size, so the total is too. */
  texmem_status st = TEXMEM_STATUS_OK;
  size_t total = 0;
  for (uint32_t s = 0; !st && s < n; s++) {
    st = texmem__tfl_subgraph_read(&r->file, s, &sgt[s], r->err);
    f->sg[s].first = total;
    f->sg[s].n_tensors = sgt[s].tensors.len;
    total += sgt[s].tensors.len;
  }
  if (!st && !(f->tensors = calloc(total + 1, sizeof *f->tensors))) st = NOMEM(r);
  for (uint32_t s = 0; !st && s < n; s++) {
    texmem__tflm_subgraph *g = &f->sg[s];
    for (uint32_t i = 0; !st && i < sgt[s].tensors.len; i++) {
      f->n_tensors = g->first + i + 1;
      st = read_tensor(r, &sgt[s], s, i, g->first + i);
    }
    char where[32];
    snprintf(where, sizeof where, "subgraph %u", s);
    if (!st) st = read_indices(r, &sgt[s].inputs, where, "input", g->n_tensors, false, &g->inputs, &g->n_inputs);
    if (!st) st = read_indices(r, &sgt[s].outputs, where, "output", g->n_tensors, false, &g->outputs, &g->n_outputs);
    if (!st) st = read_ops(r, &sgt[s], s);
  }
  free(sgt);
  return st;
}

static texmem_status read_all(rd *r) {
  texmem_status st;
  if ((st = texmem__tfl_open(&r->file, r->f->file, r->f->size, r->err)) || (st = read_buffers(r)) ||
      (st = read_metadata(r)) || (st = read_subgraphs(r)))
    return st;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_tflm_read(const void *data, size_t size, texmem_tflm **out, texmem_error *err) {
  if (!out || (!data && size)) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "data or out is NULL");
  *out = NULL;
  if (size > INT32_MAX)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "model of %zu bytes is over the 2 GiB flatbuffer limit", size);
  texmem_tflm *f = calloc(1, sizeof *f);
  if (!f) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory reading the model");
  f->file = malloc(size ? size : 1);
  if (!f->file) {
    free(f);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for a %zu-byte model", size);
  }
  if (size) memcpy(f->file, data, size);
  f->size = size;
  rd r;
  memset(&r, 0, sizeof r);
  r.f = f;
  r.err = err;
  texmem_status st = read_all(&r);
  if (st) {
    texmem_tflm_destroy(f);
    return st;
  }
  *out = f;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_tflm_load(const char *path, texmem_tflm **out, texmem_error *err) {
  if (!path || !out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "path or out is NULL");
  *out = NULL;
  uint8_t *buf;
  size_t len;
  texmem_status st = texmem__tfl_read_path(path, INT32_MAX, &buf, &len, err);
  if (st) return st;
  st = texmem_tflm_read(buf, len, out, err);
  free(buf);
  if (st) texmem__tfl_name_path(err, path);
  return st;
}

void texmem_tflm_destroy(texmem_tflm *f) {
  if (!f) return;
  for (size_t i = 0; i < f->n_tensors; i++) {
    texmem_tflm_tensor *t = &f->tensors[i];
    if (t->name != no_name) free((void *)t->name);
    free((void *)t->shape);
    free((void *)t->scale);
    free((void *)t->zero_point);
  }
  free(f->tensors);
  for (size_t s = 0; s < f->n_sg; s++) {
    texmem__tflm_subgraph *g = &f->sg[s];
    free(g->inputs);
    free(g->outputs);
    for (size_t k = 0; k < g->n_ops; k++) {
      free(g->ops[k].in);
      free(g->ops[k].out);
    }
    free(g->ops);
  }
  free(f->sg);
  for (size_t i = 0; i < f->n_meta; i++) free(f->meta_name[i]);
  free(f->meta_name);
  free(f->meta_buffer);
  free(f->buf_data);
  free(f->buf_size);
  free(f->file);
  free(f);
}

size_t texmem_tflm_subgraph_count(const texmem_tflm *f) { return f ? f->n_sg : 0; }
size_t texmem_tflm_tensor_count(const texmem_tflm *f) { return f ? f->n_tensors : 0; }
size_t texmem_tflm_op_count(const texmem_tflm *f, size_t s) { return f && s < f->n_sg ? f->sg[s].n_ops : 0; }
const texmem_tflm_tensor *texmem_tflm_get_tensor(const texmem_tflm *f, size_t i) {
  return f && i < f->n_tensors ? &f->tensors[i] : NULL;
}
size_t texmem_tflm_metadata_count(const texmem_tflm *f) { return f ? f->n_meta : 0; }
const char *texmem_tflm_metadata_name(const texmem_tflm *f, size_t i) {
  return f && i < f->n_meta ? f->meta_name[i] : NULL;
}
uint32_t texmem_tflm_metadata_buffer(const texmem_tflm *f, size_t i) {
  return f && i < f->n_meta ? f->meta_buffer[i] : 0;
}
size_t texmem_tflm_buffer_count(const texmem_tflm *f) { return f ? f->n_buffers : 0; }
const uint8_t *texmem_tflm_buffer_data(const texmem_tflm *f, uint32_t b, size_t *size) {
  if (size) *size = 0;
  if (!f || b >= f->n_buffers) return NULL;
  if (size) *size = f->buf_size[b];
  return f->buf_data[b];
}
const uint8_t *texmem_tflm_file(const texmem_tflm *f, size_t *size) {
  if (size) *size = f ? f->size : 0;
  return f ? f->file : NULL;
}

texmem_status texmem_tflm_offline_plan(const texmem_tflm *f, texmem_tflm_plan_info *out, texmem_error *err) {
  if (!f || !out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "model or out is NULL");
  memset(out, 0, sizeof *out);
  size_t last = 0;
  for (size_t i = 0; i < f->n_meta; i++)
    if (strcmp(f->meta_name[i], TEXMEM_TFLM_PLAN_NAME) == 0) {
      out->entries++;
      last = i;
    }
  if (!out->entries) return TEXMEM_STATUS_OK;
  uint32_t b = f->meta_buffer[last]; /* checked against the buffers at read */
  const uint8_t *d = f->buf_data[b];
  size_t size = f->buf_size[b];
  out->buffer = b;
  if (size < 12)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: buffer %u holds %zu bytes, less than its 3-word header", TEXMEM_TFLM_PLAN_NAME, b, size);
  out->version = texmem__fb_u32(d);
  out->subgraphs = texmem__fb_u32(d + 4);
  out->n = texmem__fb_u32(d + 8);
  if ((uint64_t)out->n * 4 > size - 12)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: buffer %u is truncated: it announces %u offsets but holds %zu", TEXMEM_TFLM_PLAN_NAME, b,
                        out->n, (size - 12) / 4);
  int32_t *o = malloc(((size_t)out->n + 1) * sizeof *o);
  if (!o) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for %u offsets", out->n);
  for (uint32_t i = 0; i < out->n; i++) o[i] = (int32_t)texmem__fb_u32(d + 12 + 4 * (size_t)i);
  out->offsets = o;
  out->present = true;
  return TEXMEM_STATUS_OK;
}

/* texmem_tflm: the whole .tflite file as TFLite Micro sees it, every
 * subgraph with its tensors numbered in order (TFLM's global numbering),
 * variable flags, quantization, metadata and buffers. Read through the
 * bounds-checked layer of flatbuffer.c; nothing in the file is trusted.
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

enum { T_SHAPE = 0, T_TYPE = 1, T_BUFFER = 2, T_NAME = 3, T_QUANT = 4, T_VARIABLE = 5, T_SPARSITY = 6 };
enum { Q_SCALE = 2, Q_ZERO_POINT = 3, Q_DIM = 6 };
enum { SG_TENSORS = 0, SG_INPUTS = 1, SG_OUTPUTS = 2, SG_OPERATORS = 3 };
enum { OP_INPUTS = 1, OP_OUTPUTS = 2, OP_LARGE_CUSTOM_OFFSET = 9 };
enum { BUF_DATA = 0, BUF_OFFSET = 1, BUF_SIZE = 2 };

/* The name of a tensor before its own copy is made (never freed). */
static const char no_name[] = "";

typedef struct rd {
  texmem_tflm *f;
  texmem__fb fb;
  texmem_error *err;
} rd;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static texmem_status bad(rd *r, texmem__fb_err e, const char *fmt, ...) {
  char ctx[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx, sizeof ctx, fmt, ap);
  va_end(ap);
  return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "%s: %s", ctx, texmem__fb_strerror(e));
}

#define FB(call, ...)                                                          \
  do {                                                                         \
    texmem__fb_err e_ = (call);                                                \
    if (e_ != TEXMEM__FB_OK) return bad(r, e_, __VA_ARGS__);                   \
  } while (0)

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

static texmem_status read_buffers(rd *r, const texmem__fb_table *root) {
  texmem__fb_vec bv;
  FB(texmem__fb_vec_field(root, TFLM_MODEL_BUFFERS, 4, &bv), "model buffers vector");
  texmem_tflm *f = r->f;
  f->n_buffers = bv.len;
  f->buf_data = calloc(bv.len + 1, sizeof *f->buf_data);
  f->buf_size = calloc(bv.len + 1, sizeof *f->buf_size);
  if (!f->buf_data || !f->buf_size) return NOMEM(r);
  for (uint32_t b = 0; b < bv.len; b++) {
    texmem__fb_table bt;
    texmem__fb_vec data;
    uint64_t off, sz;
    FB(texmem__fb_vec_table(&bv, b, &bt), "buffer %u", b);
    FB(texmem__fb_vec_field(&bt, BUF_DATA, 1, &data), "buffer %u data", b);
    FB(texmem__fb_u64f(&bt, BUF_OFFSET, 0, &off), "buffer %u offset", b);
    FB(texmem__fb_u64f(&bt, BUF_SIZE, 0, &sz), "buffer %u size", b);
    if (data.len) {
      f->buf_data[b] = r->fb.data + data.pos;
      f->buf_size[b] = data.len;
    } else if (off > 1) {
      if (off > r->fb.size || sz > r->fb.size - off)
        return bad(r, TEXMEM__FB_OUT_OF_BOUNDS, "buffer %u external data", b);
      f->buf_data[b] = r->fb.data + off;
      f->buf_size[b] = (size_t)sz;
      f->external = true;
    }
  }
  return TEXMEM_STATUS_OK;
}

static texmem_status read_metadata(rd *r, const texmem__fb_table *root) {
  texmem__fb_vec mv;
  FB(texmem__fb_vec_field(root, TFLM_MODEL_METADATA, 4, &mv), "model metadata vector");
  texmem_tflm *f = r->f;
  f->meta_name = calloc(mv.len + 1, sizeof *f->meta_name);
  f->meta_buffer = calloc(mv.len + 1, sizeof *f->meta_buffer);
  if (!f->meta_name || !f->meta_buffer) return NOMEM(r);
  for (uint32_t i = 0; i < mv.len; i++) {
    texmem__fb_table mt;
    const char *name;
    size_t len;
    FB(texmem__fb_vec_table(&mv, i, &mt), "metadata %u", i);
    FB(texmem__fb_string(&mt, TFLM_METADATA_NAME, &name, &len), "metadata %u name", i);
    FB(texmem__fb_u32f(&mt, TFLM_METADATA_BUFFER, 0, &f->meta_buffer[i]), "metadata %u buffer", i);
    f->meta_name[i] = malloc(len + 1);
    if (!f->meta_name[i]) return NOMEM(r);
    memcpy(f->meta_name[i], name, len + 1);
    f->n_meta = i + 1;
  }
  return TEXMEM_STATUS_OK;
}

static texmem_status read_quant(rd *r, const texmem__fb_table *t, size_t g, texmem_tflm_tensor *mt) {
  texmem__fb_table q;
  bool present;
  FB(texmem__fb_table_field(t, T_QUANT, &q, &present), "tensor %zu quantization", g);
  if (!present) return TEXMEM_STATUS_OK;
  texmem__fb_vec sv, zv;
  FB(texmem__fb_vec_field(&q, Q_SCALE, 4, &sv), "tensor %zu quantization scale", g);
  FB(texmem__fb_vec_field(&q, Q_ZERO_POINT, 8, &zv), "tensor %zu quantization zero_point", g);
  FB(texmem__fb_i32(&q, Q_DIM, 0, &mt->quantized_dimension), "tensor %zu quantized_dimension", g);
  if (zv.len && zv.len != sv.len)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "tensor %zu: %u scales but %u zero points", g,
                        sv.len, zv.len);
  if (!sv.len) return TEXMEM_STATUS_OK;
  float *s = malloc(sv.len * sizeof *s);
  int64_t *z = calloc(sv.len, sizeof *z);
  mt->scale = s;
  mt->zero_point = z;
  if (!s || !z) return NOMEM(r);
  for (uint32_t k = 0; k < sv.len; k++) {
    uint32_t u = texmem__fb_u32(texmem__fb_vec_at(&sv, k));
    memcpy(&s[k], &u, 4);
    if (zv.len) z[k] = (int64_t)texmem__fb_u64(texmem__fb_vec_at(&zv, k));
  }
  mt->n_quant = sv.len;
  return TEXMEM_STATUS_OK;
}

static texmem_status read_tensor(rd *r, const texmem__fb_vec *tv, uint32_t s, uint32_t i, size_t g) {
  texmem__fb_table t;
  texmem__fb_vec shape;
  uint8_t type, var;
  uint32_t buf;
  const char *name;
  size_t name_len;
  texmem_tflm_tensor *mt = &r->f->tensors[g];
  mt->name = no_name;
  mt->subgraph = s;
  mt->index = i;
  FB(texmem__fb_vec_table(tv, i, &t), "subgraph %u tensor %u", s, i);
  FB(texmem__fb_vec_field(&t, T_SHAPE, 4, &shape), "subgraph %u tensor %u shape", s, i);
  FB(texmem__fb_u8(&t, T_TYPE, 0, &type), "subgraph %u tensor %u type", s, i);
  FB(texmem__fb_u32f(&t, T_BUFFER, 0, &buf), "subgraph %u tensor %u buffer", s, i);
  FB(texmem__fb_string(&t, T_NAME, &name, &name_len), "subgraph %u tensor %u name", s, i);
  FB(texmem__fb_u8(&t, T_VARIABLE, 0, &var), "subgraph %u tensor %u is_variable", s, i);
  char *copy = malloc(name_len + 1);
  if (!copy) return NOMEM(r);
  memcpy(copy, name, name_len + 1);
  mt->name = copy;
  if (shape.len > MAX_RANK)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "subgraph %u tensor %u ('%s'): rank %u above %d", s,
                        i, copy, shape.len, MAX_RANK);
  int32_t *dims = malloc((shape.len + 1) * sizeof *dims);
  if (!dims) return NOMEM(r);
  mt->shape = dims;
  mt->rank = shape.len;
  uint64_t count = 1;
  for (uint32_t d = 0; d < shape.len; d++) {
    dims[d] = texmem__fb_vec_i32(&shape, d);
    if (dims[d] < 0)
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                          "subgraph %u tensor %u ('%s'): dimension %u is %d (TFLM needs static shapes)", s, i,
                          copy, d, (int)dims[d]);
    count *= (uint64_t)dims[d];
    if (count > MAX_ELEMENTS)
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                          "subgraph %u tensor %u ('%s'): over 2^40 elements", s, i, copy);
  }
  mt->type = type;
  size_t es = type_size(type, &mt->type_name);
  if (!mt->type_name)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "subgraph %u tensor %u ('%s'): unknown type %u", s, i,
                        copy, type);
  mt->bytes = count * es;
  if (buf >= r->f->n_buffers)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                        "subgraph %u tensor %u ('%s'): buffer %u out of range (%zu buffers)", s, i, copy, buf,
                        r->f->n_buffers);
  mt->buffer = buf;
  mt->constant = r->f->buf_size[buf] > 0;
  mt->variable = var != 0;
  if (mt->constant && es && r->f->buf_size[buf] != mt->bytes && !texmem__fb_has(&t, T_SPARSITY))
    /* TFLM reads dense constants in place, so a size mismatch is a broken
     * file (sparse ones hold fewer values: TFLM cannot run them, but they
     * are never planned). */
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL,
                        "subgraph %u tensor %u ('%s'): buffer %u holds %zu bytes, shape needs %llu", s, i, copy,
                        buf, r->f->buf_size[buf], (unsigned long long)mt->bytes);
  return read_quant(r, &t, g, mt);
}

static texmem_status read_indices(rd *r, const texmem__fb_table *t, unsigned id, uint32_t s, const char *what,
                                  size_t n_tensors, bool allow_absent, int32_t **out, uint32_t *n) {
  texmem__fb_vec v;
  FB(texmem__fb_vec_field(t, id, 4, &v), "subgraph %u: %s vector", s, what);
  *out = malloc(((size_t)v.len + 1) * sizeof **out);
  if (!*out) return NOMEM(r);
  *n = v.len;
  for (uint32_t k = 0; k < v.len; k++) {
    int32_t x = texmem__fb_vec_i32(&v, k);
    if (x < (allow_absent ? -1 : 0) || (x >= 0 && (size_t)x >= n_tensors))
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "subgraph %u: %s %u is tensor %d, out of range (%zu)",
                          s, what, k, (int)x, n_tensors);
    (*out)[k] = x;
  }
  return TEXMEM_STATUS_OK;
}

static texmem_status read_subgraphs(rd *r, const texmem__fb_table *root) {
  texmem__fb_vec sv;
  texmem_tflm *f = r->f;
  FB(texmem__fb_vec_field(root, TFLM_MODEL_SUBGRAPHS, 4, &sv), "model subgraphs vector");
  if (sv.len == 0) return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "model has no subgraph");
  f->sg = calloc(sv.len, sizeof *f->sg);
  if (!f->sg) return NOMEM(r);
  f->n_sg = sv.len;
  /* Count first: tensors are numbered over all subgraphs. Vector lengths
   * are bounded by the file size, so the total is too. */
  texmem__fb_table *sgt = calloc(sv.len, sizeof *sgt);
  texmem__fb_vec *tvs = calloc(sv.len, sizeof *tvs);
  texmem_status st = TEXMEM_STATUS_OK;
  if (!sgt || !tvs) st = NOMEM(r);
  size_t total = 0;
  for (uint32_t s = 0; !st && s < sv.len; s++) {
    texmem__fb_err e = texmem__fb_vec_table(&sv, s, &sgt[s]);
    if (!e) e = texmem__fb_vec_field(&sgt[s], SG_TENSORS, 4, &tvs[s]);
    if (e) {
      st = bad(r, e, "subgraph %u", s);
      break;
    }
    f->sg[s].first = total;
    f->sg[s].n_tensors = tvs[s].len;
    total += tvs[s].len;
  }
  if (!st) {
    f->tensors = calloc(total + 1, sizeof *f->tensors);
    if (!f->tensors) st = NOMEM(r);
  }
  for (uint32_t s = 0; !st && s < sv.len; s++) {
    texmem__tflm_subgraph *g = &f->sg[s];
    for (uint32_t i = 0; !st && i < tvs[s].len; i++) {
      f->n_tensors = g->first + i + 1;
      st = read_tensor(r, &tvs[s], s, i, g->first + i);
    }
    if (!st) st = read_indices(r, &sgt[s], SG_INPUTS, s, "input", g->n_tensors, false, &g->inputs, &g->n_inputs);
    if (!st)
      st = read_indices(r, &sgt[s], SG_OUTPUTS, s, "output", g->n_tensors, false, &g->outputs, &g->n_outputs);
    texmem__fb_vec ov;
    if (!st) {
      texmem__fb_err e = texmem__fb_vec_field(&sgt[s], SG_OPERATORS, 4, &ov);
      if (e) st = bad(r, e, "subgraph %u operators vector", s);
    }
    if (!st) {
      g->ops = calloc((size_t)ov.len + 1, sizeof *g->ops);
      if (!g->ops) st = NOMEM(r);
    }
    for (uint32_t k = 0; !st && k < ov.len; k++) {
      texmem__fb_table ot;
      uint64_t loff = 0;
      texmem__fb_err e = texmem__fb_vec_table(&ov, k, &ot);
      if (!e) e = texmem__fb_u64f(&ot, OP_LARGE_CUSTOM_OFFSET, 0, &loff);
      if (e) {
        st = bad(r, e, "subgraph %u operator %u", s, k);
        break;
      }
      if (loff > 1) f->external = true;
      g->n_ops = k + 1;
      st = read_indices(r, &ot, OP_INPUTS, s, "operator input", g->n_tensors, true, &g->ops[k].in,
                        &g->ops[k].n_in);
      if (!st)
        st = read_indices(r, &ot, OP_OUTPUTS, s, "operator output", g->n_tensors, false, &g->ops[k].out,
                          &g->ops[k].n_out);
    }
  }
  free(sgt);
  free(tvs);
  return st;
}

static texmem_status read_all(rd *r) {
  texmem__fb_table root;
  uint32_t version;
  if (r->fb.size >= 8 && memcmp(r->fb.data + 4, "TFL3", 4) != 0)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "not a TFLite model (file identifier is not TFL3)");
  FB(texmem__fb_root(&r->fb, "TFL3", &root), "model root table");
  FB(texmem__fb_u32f(&root, TFLM_MODEL_VERSION, 0, &version), "model version");
  if (version != 3)
    return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "model schema version %u, expected 3", version);
  texmem_status st;
  if ((st = read_buffers(r, &root)) || (st = read_metadata(r, &root)) || (st = read_subgraphs(r, &root)))
    return st;
  for (size_t i = 0; i < r->f->n_meta; i++)
    if (r->f->meta_buffer[i] >= r->f->n_buffers)
      return texmem__fail(r->err, TEXMEM_STATUS_BAD_MODEL, "metadata %zu ('%s'): buffer %u out of range (%zu buffers)",
                          i, r->f->meta_name[i], r->f->meta_buffer[i], r->f->n_buffers);
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
  rd r = {f, {f->file, size}, err};
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
  FILE *fp = fopen(path, "rb");
  if (!fp) return texmem__fail(err, TEXMEM_STATUS_IO, "%s: cannot open", path);
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  bool failed = false;
  for (;;) {
    if (len == cap) {
      if (cap > INT32_MAX) break; /* over the limit: the reader says so */
      size_t ncap = cap ? cap * 2 : 1u << 16;
      uint8_t *nb = realloc(buf, ncap);
      if (!nb) {
        free(buf);
        fclose(fp);
        return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "%s: no memory to read the file", path);
      }
      buf = nb;
      cap = ncap;
    }
    size_t got = fread(buf + len, 1, cap - len, fp);
    len += got;
    if (got == 0) break;
  }
  failed = ferror(fp) != 0;
  fclose(fp);
  if (failed) {
    free(buf);
    return texmem__fail(err, TEXMEM_STATUS_IO, "%s: read error", path);
  }
  texmem_status st = texmem_tflm_read(buf, len, out, err);
  free(buf);
  if (st && err) {
    char msg[sizeof err->message];
    memcpy(msg, err->message, sizeof msg);
    if (snprintf(err->message, sizeof err->message, "%s: %s", path, msg) < 0) err->message[0] = 0;
  }
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

/* The .tflite file structure (tflite_file.h): root, subgraphs, tensors,
 * buffers, operators and metadata of the public schema, read once here
 * for every reader. Field ids are the order of fields in schema.fbs. */
#include "tflite_file.h"

#include <stdio.h>
#include <string.h>

#include "common.h"
#include "tflite.h"

enum { MODEL_METADATA = 6 };
enum { TENSOR_QUANTIZATION = 4, TENSOR_IS_VARIABLE = 5 };
enum { QUANT_SCALE = 2, QUANT_ZERO_POINT = 3, QUANT_DIMENSION = 6 };
enum { METADATA_NAME = 0, METADATA_BUFFER = 1 };

#define FB(call, ...) TEXMEM__FB_TRY(err, call, __VA_ARGS__)

texmem_status texmem__tfl_open(texmem__tfl_file *f, const uint8_t *data, size_t size, texmem_error *err) {
  memset(f, 0, sizeof *f);
  f->fb.data = data;
  f->fb.size = size;
  uint32_t version;
  if (size >= 8 && memcmp(data + 4, "TFL3", 4) != 0)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "not a TFLite model (file identifier is not TFL3)");
  FB(texmem__fb_root(&f->fb, "TFL3", &f->root), "model root table");
  FB(texmem__fb_u32f(&f->root, MODEL_VERSION, 0, &version), "model version");
  if (version != 3)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "model schema version %u, expected 3", version);
  FB(texmem__fb_vec_field(&f->root, MODEL_OPERATOR_CODES, 4, &f->codes), "model operator_codes vector");
  FB(texmem__fb_vec_field(&f->root, MODEL_BUFFERS, 4, &f->buffers), "model buffers vector");
  FB(texmem__fb_vec_field(&f->root, MODEL_SUBGRAPHS, 4, &f->subgraphs), "model subgraphs vector");
  if (f->subgraphs.len == 0) return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "model has no subgraph");
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__tfl_subgraph_read(const texmem__tfl_file *f, uint32_t s, texmem__tfl_subgraph *out,
                                        texmem_error *err) {
  FB(texmem__fb_vec_table(&f->subgraphs, s, &out->table), "subgraph %u", s);
  FB(texmem__fb_vec_field(&out->table, SUBGRAPH_TENSORS, 4, &out->tensors), "subgraph %u: tensors vector", s);
  FB(texmem__fb_vec_field(&out->table, SUBGRAPH_OPERATORS, 4, &out->operators), "subgraph %u: operators vector",
     s);
  FB(texmem__fb_vec_field(&out->table, SUBGRAPH_INPUTS, 4, &out->inputs), "subgraph %u: input vector", s);
  FB(texmem__fb_vec_field(&out->table, SUBGRAPH_OUTPUTS, 4, &out->outputs), "subgraph %u: output vector", s);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__tfl_tensor_read(const texmem__tfl_file *f, const texmem__tfl_subgraph *sg, uint32_t i,
                                      const char *where, texmem__tfl_tensor *out, texmem_error *err) {
  memset(out, 0, sizeof *out);
  texmem__fb_table *t = &out->table;
  uint8_t var;
  FB(texmem__fb_vec_table(&sg->tensors, i, t), "%s", where);
  FB(texmem__fb_vec_field(t, TENSOR_SHAPE, 4, &out->shape), "%s: shape vector", where);
  FB(texmem__fb_u8(t, TENSOR_TYPE, 0, &out->type), "%s: type", where);
  FB(texmem__fb_u32f(t, TENSOR_BUFFER, 0, &out->buffer), "%s: buffer index", where);
  FB(texmem__fb_string(t, TENSOR_NAME, &out->name, &out->name_len), "%s: name", where);
  FB(texmem__fb_table_field(t, TENSOR_SPARSITY, &out->sparsity, &out->sparse), "%s: sparsity", where);
  FB(texmem__fb_vec_field(t, TENSOR_SHAPE_SIGNATURE, 4, &out->signature), "%s: shape_signature", where);
  FB(texmem__fb_u8(t, TENSOR_IS_VARIABLE, 0, &var), "%s: is_variable", where);
  out->variable = var != 0;
  if (out->buffer >= f->buffers.len)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s ('%s'): buffer %u out of range (%u buffers)", where,
                        out->name, out->buffer, f->buffers.len);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__tfl_tensor_quant(const texmem__tfl_tensor *t, const char *where, texmem__tfl_quant *out,
                                       texmem_error *err) {
  memset(out, 0, sizeof *out);
  texmem__fb_table q;
  bool present;
  FB(texmem__fb_table_field(&t->table, TENSOR_QUANTIZATION, &q, &present), "%s: quantization", where);
  if (!present) return TEXMEM_STATUS_OK;
  FB(texmem__fb_vec_field(&q, QUANT_SCALE, 4, &out->scale), "%s: quantization scale", where);
  FB(texmem__fb_vec_field(&q, QUANT_ZERO_POINT, 8, &out->zero_point), "%s: quantization zero_point", where);
  FB(texmem__fb_i32(&q, QUANT_DIMENSION, 0, &out->dimension), "%s: quantized_dimension", where);
  if (out->zero_point.len && out->zero_point.len != out->scale.len)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %u scales but %u zero points", where, out->scale.len,
                        out->zero_point.len);
  out->n = out->scale.len;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__tfl_buffer(const texmem__tfl_file *f, uint32_t b, const char *where, const uint8_t **data,
                                 size_t *size, bool *external, texmem_error *err) {
  texmem__fb_table bt;
  texmem__fb_vec v;
  uint64_t off, sz;
  const char *sep = where[0] ? ": " : "";
  *data = NULL;
  *size = 0;
  if (external) *external = false;
  FB(texmem__fb_vec_table(&f->buffers, b, &bt), "%s%sbuffer %u", where, sep, b);
  FB(texmem__fb_vec_field(&bt, BUFFER_DATA, 1, &v), "%s%sbuffer %u data", where, sep, b);
  FB(texmem__fb_u64f(&bt, BUFFER_OFFSET, 0, &off), "%s%sbuffer %u offset", where, sep, b);
  FB(texmem__fb_u64f(&bt, BUFFER_SIZE, 0, &sz), "%s%sbuffer %u size", where, sep, b);
  if (v.len) {
    *data = f->fb.data + v.pos;
    *size = v.len;
  } else if (off > 1) {
    if (off > f->fb.size || sz > f->fb.size - off)
      return texmem__fb_bad(err, TEXMEM__FB_OUT_OF_BOUNDS, "%s%sbuffer %u external data", where, sep, b);
    *data = f->fb.data + off;
    *size = (size_t)sz;
    if (external) *external = true;
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__tfl_op_read(const texmem__tfl_file *f, const texmem__tfl_subgraph *sg, uint32_t k,
                                  texmem__tfl_op *out, texmem_error *err) {
  memset(out, 0, sizeof *out);
  texmem__fb_table *ot = &out->table, ct;
  FB(texmem__fb_vec_table(&sg->operators, k, ot), "operator %u", k);
  FB(texmem__fb_u32f(ot, OP_OPCODE_INDEX, 0, &out->opcode), "operator %u: opcode index", k);
  if (out->opcode >= f->codes.len)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "operator %u: opcode index %u out of range (%u codes)", k,
                        out->opcode, f->codes.len);
  uint32_t c = out->opcode;
  uint8_t dep;
  size_t custom_len;
  FB(texmem__fb_vec_table(&f->codes, c, &ct), "operator code %u", c);
  FB(texmem__fb_u8(&ct, OPCODE_DEPRECATED_BUILTIN, 0, &dep), "operator code %u: builtin code", c);
  FB(texmem__fb_i32(&ct, OPCODE_BUILTIN, 0, &out->code), "operator code %u: builtin code", c);
  FB(texmem__fb_string(&ct, OPCODE_CUSTOM, &out->custom, &custom_len), "operator code %u: custom code", c);
  FB(texmem__fb_i32(&ct, OPCODE_VERSION, 1, &out->version), "operator code %u: version", c);
  if ((int8_t)dep > out->code) out->code = (int8_t)dep;
  FB(texmem__fb_vec_field(ot, OP_INPUTS, 4, &out->inputs), "operator %u: input vector", k);
  FB(texmem__fb_vec_field(ot, OP_OUTPUTS, 4, &out->outputs), "operator %u: output vector", k);
  FB(texmem__fb_u64f(ot, OP_LARGE_CUSTOM_OFFSET, 0, &out->large_custom_offset), "operator %u: custom options", k);
  FB(texmem__fb_u64f(ot, OP_LARGE_CUSTOM_SIZE, 0, &out->large_custom_size), "operator %u: custom options", k);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__tfl_indices(const texmem__fb_vec *v, size_t n_tensors, bool allow_absent, const char *where,
                                  const char *what, int32_t *out, texmem_error *err) {
  for (uint32_t i = 0; i < v->len; i++) {
    int32_t t = texmem__fb_vec_i32(v, i);
    if (t < (allow_absent ? -1 : 0) || (t >= 0 && (size_t)t >= n_tensors))
      return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %s %u is tensor %d, out of range (%zu tensors)", where,
                          what, i, (int)t, n_tensors);
    out[i] = t;
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__tfl_metadata(const texmem__tfl_file *f, texmem__fb_vec *out, texmem_error *err) {
  FB(texmem__fb_vec_field(&f->root, MODEL_METADATA, 4, out), "model metadata vector");
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__tfl_metadata_entry(const texmem__tfl_file *f, const texmem__fb_vec *mv, uint32_t i,
                                         const char **name, size_t *len, uint32_t *buffer, texmem_error *err) {
  texmem__fb_table mt;
  FB(texmem__fb_vec_table(mv, i, &mt), "metadata %u", i);
  FB(texmem__fb_string(&mt, METADATA_NAME, name, len), "metadata %u name", i);
  FB(texmem__fb_u32f(&mt, METADATA_BUFFER, 0, buffer), "metadata %u buffer", i);
  if (*buffer >= f->buffers.len)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "metadata %u ('%s'): buffer %u out of range (%u buffers)", i,
                        *name, *buffer, f->buffers.len);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__tfl_read_path(const char *path, size_t max, uint8_t **out, size_t *size, texmem_error *err) {
  *out = NULL;
  *size = 0;
  FILE *fp = fopen(path, "rb");
  if (!fp) return texmem__fail(err, TEXMEM_STATUS_IO, "%s: cannot open", path);
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      if (cap > max) break; /* past what the reader takes: it says so */
      size_t ncap = cap ? cap * 2 : (size_t)1 << 20;
      uint8_t *nb = ncap > cap ? realloc(buf, ncap) : NULL;
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
  bool failed = ferror(fp) != 0;
  fclose(fp);
  if (failed) {
    free(buf);
    return texmem__fail(err, TEXMEM_STATUS_IO, "%s: read error", path);
  }
  *out = buf;
  *size = len;
  return TEXMEM_STATUS_OK;
}

void texmem__tfl_name_path(texmem_error *err, const char *path) {
  if (!err) return;
  char msg[sizeof err->message];
  memcpy(msg, err->message, sizeof msg);
  if (snprintf(err->message, sizeof err->message, "%s: %s", path, msg) < 0) err->message[0] = 0;
}

/* The one reader of the .tflite file structure, shared by the model reader
 * (tflite_reader.c: subgraph 0 as a texmem_model) and TFLite Micro's view
 * (tflm/: every subgraph, metadata and buffers as written). It reads the
 * tables of the public schema through the bounds-checked layer of
 * flatbuffer.c and hands back their fields, borrowed from the file; what a
 * reader makes of them (and which extra checks it needs) is its own.
 * Messages name what was read with the caller's prefix ("tensor 3",
 * "subgraph 1 tensor 3"). */
#ifndef TEXMEM_MODEL_TFLITE_FILE_H
#define TEXMEM_MODEL_TFLITE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flatbuffer.h"

/* The model root's vectors. */
typedef struct texmem__tfl_file {
  texmem__fb fb;
  texmem__fb_table root;
  texmem__fb_vec codes, subgraphs, buffers;
} texmem__tfl_file;

/* Checks the identifier ("TFL3"), the root table and schema version 3, and
 * reads the operator codes, subgraphs and buffers vectors. data is
 * borrowed for as long as f is used. */
texmem_status texmem__tfl_open(texmem__tfl_file *f, const uint8_t *data, size_t size, texmem_error *err);

/* A subgraph's vectors. */
typedef struct texmem__tfl_subgraph {
  texmem__fb_table table;
  texmem__fb_vec tensors, inputs, outputs, operators;
} texmem__tfl_subgraph;

texmem_status texmem__tfl_subgraph_read(const texmem__tfl_file *f, uint32_t s, texmem__tfl_subgraph *out,
                                        texmem_error *err);

/* A tensor's fields as stored (name borrowed: NUL-terminated in the file,
 * name_len its stored length). */
typedef struct texmem__tfl_tensor {
  texmem__fb_table table;
  const char *name;
  size_t name_len;
  uint8_t type;            /* TensorType code, unchecked */
  uint32_t buffer;         /* checked against the buffers */
  bool variable;           /* is_variable */
  texmem__fb_vec shape;    /* int32 */
  texmem__fb_vec signature; /* shape_signature, int32; may be empty */
  bool sparse;
  texmem__fb_table sparsity; /* when sparse */
} texmem__tfl_tensor;

/* Tensor i of a subgraph; where prefixes every message ("tensor 3"). */
texmem_status texmem__tfl_tensor_read(const texmem__tfl_file *f, const texmem__tfl_subgraph *sg, uint32_t i,
                                      const char *where, texmem__tfl_tensor *out, texmem_error *err);

/* Quantization of a tensor (absent: n 0): scale (float32) and zero_point
 * (int64, may be empty) vectors and quantized_dimension. Different
 * nonzero lengths of the two are BAD_MODEL. */
typedef struct texmem__tfl_quant {
  texmem__fb_vec scale, zero_point;
  int32_t dimension;
  uint32_t n;
} texmem__tfl_quant;

texmem_status texmem__tfl_tensor_quant(const texmem__tfl_tensor *t, const char *where, texmem__tfl_quant *out,
                                       texmem_error *err);

/* Bytes of buffer b: inline data, or (models over 2 GB) offset and size
 * into the file, then *external is true (may be NULL). Empty: NULL/0. */
texmem_status texmem__tfl_buffer(const texmem__tfl_file *f, uint32_t b, const char *where, const uint8_t **data,
                                 size_t *size, bool *external, texmem_error *err);

/* An operator: its code resolved from the operator codes (the larger of
 * the deprecated byte and the int field, as old and new files set them),
 * its input and output vectors (not yet checked against the tensors) and
 * the large custom options' place (offset > 1: at that file offset). */
typedef struct texmem__tfl_op {
  texmem__fb_table table;
  uint32_t opcode;
  int32_t code;
  int32_t version;
  const char *custom;      /* custom code, "" for builtins */
  texmem__fb_vec inputs, outputs;
  uint64_t large_custom_offset, large_custom_size;
} texmem__tfl_op;

/* Operator k of a subgraph; messages say "operator k". */
texmem_status texmem__tfl_op_read(const texmem__tfl_file *f, const texmem__tfl_subgraph *sg, uint32_t k,
                                  texmem__tfl_op *out, texmem_error *err);

/* Copies tensor indices of v into out (v->len entries): each must name one
 * of n_tensors tensors, or be -1 when allow_absent. Otherwise BAD_MODEL
 * "<where>: <what> <i> is tensor <t>, out of range (<n_tensors> tensors)". */
texmem_status texmem__tfl_indices(const texmem__fb_vec *v, size_t n_tensors, bool allow_absent, const char *where,
                                  const char *what, int32_t *out, texmem_error *err);

/* The model's metadata vector, and entry i's name (borrowed) and buffer
 * index (checked against the buffers). */
texmem_status texmem__tfl_metadata(const texmem__tfl_file *f, texmem__fb_vec *out, texmem_error *err);
texmem_status texmem__tfl_metadata_entry(const texmem__tfl_file *f, const texmem__fb_vec *mv, uint32_t i,
                                         const char **name, size_t *len, uint32_t *buffer, texmem_error *err);

/* The whole file at path, malloc'd into *out (the caller frees it);
 * reading stops past max bytes (the caller's reader then refuses the
 * size). IO and OUT_OF_MEMORY name the path. */
texmem_status texmem__tfl_read_path(const char *path, size_t max, uint8_t **out, size_t *size, texmem_error *err);

/* Prefixes err's message with "path: " (after a failed read of path). */
void texmem__tfl_name_path(texmem_error *err, const char *path);

#endif

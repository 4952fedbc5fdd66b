/* The .tflite model reader's state (tflite_reader.c), shared with the
 * constant data and load budget it charges (tflite_constants.c). The
 * option parsers see the state only as the opaque texmem__tfl_reader of
 * tflite.h. */
#ifndef TEXMEM_MODEL_TFLITE_READER_H
#define TEXMEM_MODEL_TFLITE_READER_H

#include "tflite.h"
#include "tflite_file.h"

/* A tensor's data as the file holds it (sparse: still compressed). */
typedef struct texmem__tfl_raw {
  const uint8_t *data; /* buffer bytes inside the file, NULL if none */
  size_t size;
  bool sparse;
  texmem__fb_table sparsity;
} texmem__tfl_raw;

struct texmem__tfl_reader {
  texmem__tfl_file file;
  texmem__tfl_subgraph sg; /* subgraph 0 */
  texmem_error *err;
  texmem_model *m;
  texmem__tfl_raw *raw;
  uint8_t *dynamic; /* per tensor: bit d = dimension d is -1 in shape_signature */
  size_t budget, used; /* load budget and bytes allocated so far (cumulative) */
  const texmem_model_load_desc *desc;
};

/* Counts `bytes` about to be allocated for tensor `ti` (-1: tables) against
 * the load budget; past it, BAD_MODEL naming the tensor. */
texmem_status texmem__tfl_charge(texmem__tfl_reader *r, int32_t ti, size_t bytes);
/* Dense bytes of a constant in its current type (folded data or the
 * file's), densifying sparse file data into *owned (malloc'd, the caller
 * frees; NULL when nothing was made). */
texmem_status texmem__tfl_const_bytes(texmem__tfl_reader *r, int32_t ti, const uint8_t **data,
                                      size_t *size, void **owned);

#endif

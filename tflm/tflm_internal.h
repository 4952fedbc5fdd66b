/* Internal layout of texmem_tflm (include/texmem/tflm.h), shared by the
 * reader (tflm_file.c), TFLM's lifetimes (tflm_lifetimes.c), the plan
 * checker (tflm_check.c) and the plan writer (tflm_write_plan.c). */
#ifndef TEXMEM_TFLM_INTERNAL_H
#define TEXMEM_TFLM_INTERNAL_H

#include "texmem/tflm.h"

#include "flatbuffer.h"
#include "tflite_file.h"
#include "common.h" /* texmem__fail */

/* Model and metadata field ids of the public schema. */
enum {
  TFLM_MODEL_VERSION = 0, TFLM_MODEL_CODES = 1, TFLM_MODEL_SUBGRAPHS = 2, TFLM_MODEL_DESCRIPTION = 3,
  TFLM_MODEL_BUFFERS = 4, TFLM_MODEL_METADATA_BUFFER = 5, TFLM_MODEL_METADATA = 6,
  TFLM_MODEL_SIGNATURE_DEFS = 7, TFLM_MODEL_FIELDS = 8
};

typedef struct texmem__tflm_op {
  int32_t *in, *out; /* subgraph-local tensor indices; inputs may be -1 */
  uint32_t n_in, n_out;
  int32_t code;       /* builtin operator code */
  const char *custom; /* custom code ("" for builtins), in the file's copy */
} texmem__tflm_op;

typedef struct texmem__tflm_subgraph {
  size_t first;      /* global index of its tensor 0 */
  size_t n_tensors;
  int32_t *inputs, *outputs;
  uint32_t n_inputs, n_outputs;
  texmem__tflm_op *ops;
  size_t n_ops;
} texmem__tflm_subgraph;

struct texmem_tflm {
  uint8_t *file;
  size_t size;
  texmem_tflm_tensor *tensors;
  size_t n_tensors;
  texmem__tflm_subgraph *sg;
  size_t n_sg;
  char **meta_name;
  uint32_t *meta_buffer;
  size_t n_meta;
  const uint8_t **buf_data;
  size_t *buf_size;
  size_t n_buffers;
  bool external;        /* some buffer or custom options live at a file offset */
};

/* Scopes (TFLM's allocation scopes) of every tensor of subgraph 0:
 * first[i] / last[i] for subgraph-local i, -1 when never touched. */
texmem_status texmem__tflm_scopes(const texmem_tflm *f, int64_t *first, int64_t *last,
                                  texmem_error *err);
/* Whether TFLM plans global tensor g in the head (subgraph 0, not
 * constant, not variable, bytes > 0, touched). first/last: from
 * texmem__tflm_scopes. */
bool texmem__tflm_planned(const texmem_tflm *f, size_t g, const int64_t *first,
                          const int64_t *last);
static inline uint64_t texmem__tflm_round(uint64_t bytes) {
  return (bytes + TEXMEM_TFLM_ALIGNMENT - 1) / TEXMEM_TFLM_ALIGNMENT * TEXMEM_TFLM_ALIGNMENT;
}

#endif

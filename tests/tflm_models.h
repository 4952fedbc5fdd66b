/* Whole-graph .tflite models for the TFLite Micro tests and benchmark,
 * made with tests/tflite_writer (nothing downloaded): int8 and float
 * graphs of 1x1 convolutions, additions and concatenations with real
 * constant weights and quantization. */
#ifndef TEXMEM_TESTS_TFLM_MODELS_H
#define TEXMEM_TESTS_TFLM_MODELS_H

#include "tflite_writer.h"

typedef enum tm_kind {
  TM_CHAIN_INT8 = 0,   /* input -> 6 convolutions -> output */
  TM_RESIDUAL_F32,     /* 3 residual blocks (conv, conv, add) */
  TM_BRANCHY_INT8,     /* a branchy graph where largest-first greedy is not optimal */
  TM_VARIABLE_F32,     /* a recurrent cell with a variable (state) tensor */
  TM_TWO_SUBGRAPHS_INT8, /* a main graph and a second subgraph (control flow body) */
  TM_TINY_INT8,        /* 4 tensors, for the ASCII golden file */
  TM_COUNT
} tm_kind;

/* Non-zero: TM_BRANCHY_INT8 uses this seed (to search for seeds). */
extern uint64_t tm_branchy_seed;
/* "chain_int8" etc. */
const char *tm_name(tm_kind k);
/* The model with the given metadata entries (may be NULL/0); *out is
 * malloc'd (caller frees). */
texmem_status tm_build(tm_kind k, const tw_metadata *meta, size_t n_meta, uint8_t **out, size_t *size,
                       texmem_error *err);

#endif

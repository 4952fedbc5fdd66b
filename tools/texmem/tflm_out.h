/* texmem tflm: what the command computed, shared by its printers. */
#ifndef TEXMEM_CLI_TFLM_OUT_H
#define TEXMEM_CLI_TFLM_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "texmem/tflm.h"

typedef struct tflm_run {
  const char *path;
  const texmem_tflm *f;
  texmem_record *rec;   /* planned tensors of subgraph 0 */
  int32_t *tensor_of;   /* record -> global tensor */
  size_t n;
  int32_t *offsets;     /* one per tensor of all subgraphs, -1 = left to TFLM */
  uint64_t arena, greedy, max_live;
  bool optimal;
  const char *strategy; /* what made offsets */
  uint64_t peak_scope;  /* first scope where max_live is reached */
  bool has_budget;
  uint64_t budget;      /* --budget: head bytes available */
  const char *answer;   /* --budget: "fits", "does not fit" or "unknown" */
  double time_budget_ms; /* --time-budget-ms: exact's (and best's) time; 0 = default */
  uint64_t node_budget;  /* --node-budget: exact's nodes; 0 = default */
} tflm_run;

/* The plan as text: one line per scope, a letter per tensor, columns of
 * a fixed number of bytes (a multiple of 16), then a legend. */
void tflm_write_ascii(FILE *out, const tflm_run *r);

#endif

/* texmem tflm: what the command computed, shared by its printers. */
#ifndef TEXMEM_CLI_TFLM_OUT_H
#define TEXMEM_CLI_TFLM_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "texmem/tflm.h"

typedef struct tflm_run {
  const char *path;
  const texmem_tflm *f;
  texmem_record *rec;   /* planned tensors of subgraph 0, then the scratch buffers */
  int32_t *tensor_of;   /* record -> global tensor; -1 - k for scratch buffer k */
  size_t n;             /* records */
  size_t n_tensors;     /* records that are tensors (the first ones) */
  const texmem_tflm_scratch *scratch; /* --scratch, in request order */
  size_t n_scratch;
  uint64_t *rec_offset; /* record -> offset in the chosen plan */
  int32_t *offsets;     /* one per tensor of all subgraphs, -1 = left to TFLM */
  uint64_t arena, greedy, max_live;
  /* The head TFLM needs with the plan written once it has placed the
   * scratch buffers around it (arena when there are none); greedy is its
   * own online plan's. */
  uint64_t head;
  bool offline;         /* the plan is kept (head <= greedy); else offsets are all -1 */
  bool optimal;
  const char *strategy; /* what made offsets */
  uint64_t peak_scope;  /* first scope where max_live is reached */
  bool has_budget;
  uint64_t budget;      /* --budget: head bytes available */
  const char *answer;   /* --budget: "fits", "does not fit" or "unknown" */
  double time_budget_ms; /* --time-budget-ms: exact's (and best's) time; 0 = default */
  uint64_t node_budget;  /* --node-budget: exact's nodes; 0 = default */
} tflm_run;

/* What record k is: "tensor 3 'name'" or "scratch 0 of operator 2". */
void tflm_record_label(const tflm_run *r, size_t k, char *buf, size_t size);

/* The plan as text: one line per scope, a letter per tensor, columns of
 * a fixed number of bytes (a multiple of 16), then a legend. */
void tflm_write_ascii(FILE *out, const tflm_run *r);

#endif

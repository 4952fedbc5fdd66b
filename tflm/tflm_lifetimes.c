/* TFLite Micro's tensor lifetimes (its AllocationInfoBuilder), as 1-D
 * usage records: scope 0 is the start of the graph, operator i is scope
 * i + 1. Graph inputs and outputs are created at scope 0, an operator's
 * outputs at its scope (which restarts their lifetime), its inputs are
 * used at its scope, and graph outputs stay live to the last scope.
 * Control-flow operators make TFLM number the scopes of the subgraphs they
 * call in between; that shifts later scopes of subgraph 0 but keeps their
 * order, so which of its tensors are live together is the same. */
#include <string.h>

#include "tflm_internal.h"

static void created(int64_t *first, int64_t *last, int32_t t, int64_t scope) {
  first[t] = scope;
  last[t] = scope;
}

texmem_status texmem__tflm_scopes(const texmem_tflm *f, int64_t *first, int64_t *last, texmem_error *err) {
  (void)err;
  const texmem__tflm_subgraph *g = &f->sg[0];
  for (size_t i = 0; i < g->n_tensors; i++) first[i] = last[i] = -1;
  for (uint32_t k = 0; k < g->n_inputs; k++) created(first, last, g->inputs[k], 0);
  for (uint32_t k = 0; k < g->n_outputs; k++) created(first, last, g->outputs[k], 0);
  for (size_t i = 0; i < g->n_ops; i++) {
    int64_t scope = (int64_t)i + 1;
    const texmem__tflm_op *op = &g->ops[i];
    for (uint32_t k = 0; k < op->n_out; k++) created(first, last, op->out[k], scope);
    for (uint32_t k = 0; k < op->n_in; k++)
      if (op->in[k] >= 0) last[op->in[k]] = scope;
  }
  for (uint32_t k = 0; k < g->n_outputs; k++) last[g->outputs[k]] = (int64_t)g->n_ops;
  /* Read before anything creates it (a malformed graph): TFLM would plan it
   * from before scope 0; from scope 0 conflicts with the same tensors. */
  for (size_t i = 0; i < g->n_tensors; i++)
    if (first[i] < 0 && last[i] >= 0) first[i] = 0;
  return TEXMEM_STATUS_OK;
}

bool texmem__tflm_planned(const texmem_tflm *f, size_t g, const int64_t *first, const int64_t *last) {
  (void)first;
  const texmem_tflm_tensor *t = &f->tensors[g];
  return t->subgraph == 0 && !t->constant && !t->variable && t->bytes > 0 && last[t->index] >= 0;
}

texmem_status texmem_tflm_records(const texmem_tflm *f, texmem_record **out, size_t *n, int32_t **tensor_of,
                                  texmem_error *err) {
  if (!f || !out || !n) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "model, out or n is NULL");
  *out = NULL;
  *n = 0;
  if (tensor_of) *tensor_of = NULL;
  size_t nt = f->sg[0].n_tensors;
  int64_t *first = malloc((nt + 1) * sizeof *first), *last = malloc((nt + 1) * sizeof *last);
  texmem_record *rec = malloc((nt + 1) * sizeof *rec);
  int32_t *of = malloc((nt + 1) * sizeof *of);
  if (!first || !last || !rec || !of) {
    free(first);
    free(last);
    free(rec);
    free(of);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for %zu tensors", nt);
  }
  texmem__tflm_scopes(f, first, last, err);
  size_t k = 0;
  for (size_t i = 0; i < nt; i++) {
    if (!texmem__tflm_planned(f, i, first, last)) continue;
    memset(&rec[k], 0, sizeof rec[k]);
    rec[k].id = i;
    rec[k].dims[0] = texmem__tflm_round(f->tensors[i].bytes);
    rec[k].dims[1] = rec[k].dims[2] = 1;
    rec[k].first_task = (uint64_t)first[i];
    rec[k].last_task = (uint64_t)last[i];
    of[k++] = (int32_t)i;
  }
  free(first);
  free(last);
  *out = rec;
  *n = k;
  if (tensor_of) *tensor_of = of;
  else free(of);
  return TEXMEM_STATUS_OK;
}

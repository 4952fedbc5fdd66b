/* Which operators of a model the runtime cannot execute: TEXMEM_OP_OTHER
 * (outside the IR, or options outside it) and IR types without a GPU
 * kernel. Used to refuse a model up front naming every such operator, and
 * by clients (texmem bench) to list them. Needs no GL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h" /* texmem__fail, checked arithmetic */
#include "kernel.h"
#include "texmem/runtime.h"

static bool runnable(const texmem_op *op) {
  return op->type != TEXMEM_OP_OTHER && texmem__kernel_for(op->type) != NULL;
}

static bool same(const texmem_op_tally *t, const texmem_op *op) {
  return t->type == op->type && t->options_unsupported == op->options.options_unsupported &&
         (op->type != TEXMEM_OP_OTHER || t->builtin_code == op->options.builtin_code) &&
         !strcmp(t->name, texmem_op_name(op));
}

texmem_status texmem_runtime_unsupported_ops(const texmem_model *model, texmem_op_tally **out,
                                             size_t *n, texmem_error *err) {
  if (out) *out = NULL;
  if (n) *n = 0;
  if (!model || !out || !n)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "model, out or n is NULL");
  size_t n_ops = texmem_model_op_count(model), bad = 0;
  for (size_t k = 0; k < n_ops; k++)
    if (!runnable(texmem_model_op(model, k))) bad++;
  if (!bad) return TEXMEM_STATUS_OK;
  texmem_op_tally *t = calloc(bad, sizeof *t);
  if (!t) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "no memory for %zu operators", bad);
  size_t nt = 0;
  for (size_t k = 0; k < n_ops; k++) {
    const texmem_op *op = texmem_model_op(model, k);
    if (runnable(op)) continue;
    size_t i = 0;
    while (i < nt && !same(&t[i], op)) i++;
    if (i == nt) {
      t[nt].name = texmem_op_name(op);
      t[nt].type = op->type;
      t[nt].builtin_code = op->type == TEXMEM_OP_OTHER ? op->options.builtin_code : 0;
      t[nt].options_unsupported = op->options.options_unsupported;
      nt++;
    }
    t[i].count++;
  }
  *out = t;
  *n = nt;
  return TEXMEM_STATUS_OK;
}

void texmem_op_tally_format(const texmem_op_tally *tallies, size_t n, char *buf, size_t size) {
  if (!buf || !size) return;
  buf[0] = 0;
  size_t at = 0;
  for (size_t i = 0; i < n && tallies; i++) {
    const texmem_op_tally *t = &tallies[i];
    char item[160];
    if (t->type == TEXMEM_OP_OTHER && !strcmp(t->name, "UNKNOWN_BUILTIN"))
      snprintf(item, sizeof item, "%sbuiltin code %d x%zu", i ? ", " : "", (int)t->builtin_code, t->count);
    else
      snprintf(item, sizeof item, "%s%.100s x%zu%s", i ? ", " : "", t->name, t->count,
               t->options_unsupported ? " (options outside the kernels)"
               : t->type != TEXMEM_OP_OTHER ? " (no kernel)" : "");
    size_t len = strlen(item);
    if (at + len + 4 >= size) { /* room for "..." */
      if (at + 4 <= size) memcpy(buf + at, "...", 4);
      return;
    }
    memcpy(buf + at, item, len + 1);
    at += len;
  }
}

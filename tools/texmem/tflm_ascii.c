/* texmem tflm --ascii: the plan drawn as text, in the spirit of TFLM's
 * PrintMemoryPlan: one line per allocation scope, one column per few
 * bytes of the arena, the letter of the tensor (or scratch buffer)
 * occupying it ('.' free), and the bytes live at that scope. */
#include <inttypes.h>
#include <stdlib.h>

#include "tflm_out.h"

#define COLUMNS 64

static char letter(size_t k) {
  static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return k < sizeof set - 1 ? set[k] : '*';
}

void tflm_write_ascii(FILE *out, const tflm_run *r) {
  uint64_t scopes = 0;
  for (size_t k = 0; k < r->n; k++)
    if (r->rec[k].last_task + 1 > scopes) scopes = r->rec[k].last_task + 1;
  /* Bytes per column: the arena over COLUMNS, rounded up to 16. */
  uint64_t w = (r->arena + COLUMNS - 1) / COLUMNS;
  w = w < 16 ? 16 : (w + 15) / 16 * 16;
  uint64_t cols = r->arena ? (r->arena + w - 1) / w : 0;
  fprintf(out, "arena %" PRIu64 " bytes, one column = %" PRIu64 " bytes, one line per scope (0 = graph inputs, "
               "i + 1 = operator i)\n",
          r->arena, w);
  char line[COLUMNS + 1];
  uint64_t cover[COLUMNS]; /* bytes of the column the letter shown covers */
  for (uint64_t s = 0; s < scopes; s++) {
    uint64_t live = 0;
    for (uint64_t c = 0; c < cols; c++) {
      line[c] = '.';
      cover[c] = 0;
    }
    line[cols] = 0;
    for (size_t k = 0; k < r->n; k++) {
      const texmem_record *x = &r->rec[k];
      if (s < x->first_task || s > x->last_task) continue;
      live += x->dims[0];
      uint64_t off = r->rec_offset[k], end = off + x->dims[0];
      /* A column shows the tensor covering most of it. */
      for (uint64_t c = off / w; c < cols && c * w < end; c++) {
        uint64_t lo = c * w > off ? c * w : off, hi = (c + 1) * w < end ? (c + 1) * w : end;
        if (hi - lo > cover[c]) {
          cover[c] = hi - lo;
          line[c] = letter(k);
        }
      }
    }
    fprintf(out, "%4" PRIu64 " |%s| %" PRIu64 "%s\n", s, line, live, s == r->peak_scope ? "  <- peak" : "");
  }
  fprintf(out, "legend:\n");
  for (size_t k = 0; k < r->n; k++) {
    char label[160];
    tflm_record_label(r, k, label, sizeof label);
    fprintf(out, "  %c  %s: %" PRIu64 " bytes at %" PRIu64 ", scopes %" PRIu64 "..%" PRIu64 "\n", letter(k), label,
            r->rec[k].dims[0], r->rec_offset[k], r->rec[k].first_task, r->rec[k].last_task);
  }
}

void tflm_record_label(const tflm_run *r, size_t k, char *buf, size_t size) {
  if (r->tensor_of[k] >= 0) {
    const texmem_tflm_tensor *t = texmem_tflm_get_tensor(r->f, (size_t)r->tensor_of[k]);
    snprintf(buf, size, "tensor %d '%s'", (int)r->tensor_of[k], t->name);
  } else {
    size_t s = (size_t)(-1 - r->tensor_of[k]);
    snprintf(buf, size, "scratch %zu of operator %u", s, (unsigned)r->scratch[s].op);
  }
}

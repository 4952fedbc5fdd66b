/* Failed-state table of the exact offsets search: open addressing over
 * 128-bit fingerprints, a short linear probe run, no deletion. A state
 * found here was searched completely without a plan; since only the
 * fingerprint is kept, a hit could in principle be a collision, so the
 * search never rests a "does not fit" proof on a hit (see offsets_exact.c). */
#include <stdlib.h>

#include "offsets_exact_table.h"

#define PROBES 8
#define MAX_SLOTS ((size_t)1 << 22)

struct texmem__fail_table {
  texmem__fp *slot;
  size_t mask;
};

texmem__fail_table *texmem__fail_table_new(size_t m) {
  texmem__fail_table *t = malloc(sizeof *t);
  if (!t) return NULL;
  size_t n = 1024;
  /* On at most 8 tensors the whole search is short (each question is
   * answered in one go): 1024 slots do, where zeroing 16 slots a tensor
   * would cost more than the search itself. */
  while (m > 8 && n < MAX_SLOTS && n < 4096 * m) n *= 2;
  t->slot = calloc(n, sizeof *t->slot); /* zero pages: memory used as it fills */
  if (!t->slot) {
    free(t);
    return NULL;
  }
  t->mask = n - 1;
  return t;
}

void texmem__fail_table_free(texmem__fail_table *t) {
  if (!t) return;
  free(t->slot);
  free(t);
}

bool texmem__fail_table_has(const texmem__fail_table *t, texmem__fp k) {
  if (!k.a && !k.b) k.b = 1; /* (0, 0) marks an empty slot */
  for (size_t i = 0, s = k.a & t->mask; i < PROBES; i++, s = (s + 1) & t->mask) {
    if (t->slot[s].a == k.a && t->slot[s].b == k.b) return true;
    if (!t->slot[s].a && !t->slot[s].b) return false;
  }
  return false;
}

void texmem__fail_table_add(texmem__fail_table *t, texmem__fp k) {
  if (!k.a && !k.b) k.b = 1;
  size_t s = k.a & t->mask, last = s;
  for (size_t i = 0; i < PROBES; i++, s = (s + 1) & t->mask) {
    last = s;
    if (t->slot[s].a == k.a && t->slot[s].b == k.b) return;
    if (!t->slot[s].a && !t->slot[s].b) {
      t->slot[s] = k;
      return;
    }
  }
  t->slot[last] = k; /* the run is full: its last entry gives way */
}

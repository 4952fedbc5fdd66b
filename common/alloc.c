/* Allocation helpers: a growable array and a string copy. */
#include <string.h>

#include "common.h"

void *texmem__grow(void *p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap && p) return p;
  size_t c = *cap ? *cap : 8;
  while (c < need) {
    if (c > SIZE_MAX / 2) {
      c = need;
      break;
    }
    c *= 2;
  }
  if (elem && c > SIZE_MAX / elem) return NULL;
  void *q = realloc(p, c * elem);
  if (q) *cap = c;
  return q;
}

char *texmem__strdup(const char *s) {
  if (!s) s = "";
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

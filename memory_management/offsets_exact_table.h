/* Table of failed search states for the exact offsets search (a
 * transposition table of nogoods), keyed by 128-bit fingerprints. */
#ifndef TEXMEM_OFFSETS_EXACT_TABLE_H
#define TEXMEM_OFFSETS_EXACT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct texmem__fp {
  uint64_t a, b; /* two independent 64-bit hashes; never both 0 */
} texmem__fp;

typedef struct texmem__fail_table texmem__fail_table;

/* A table sized for m tensors (about 4096 m slots, at most 2^22 = 64 MiB);
 * NULL without memory (the search then runs without one). */
texmem__fail_table *texmem__fail_table_new(size_t m);
void texmem__fail_table_free(texmem__fail_table *t);
bool texmem__fail_table_has(const texmem__fail_table *t, texmem__fp k);
/* Adds k; when its probe run is full an older entry gives way (it is a
 * cache: losing an entry only costs a search again). */
void texmem__fail_table_add(texmem__fail_table *t, texmem__fp k);

/* Fingerprint building: feed words in order. */
static inline void texmem__fp_mix(texmem__fp *h, uint64_t w) {
  uint64_t x = h->a ^ w;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  h->a = x * 0xc4ceb9fe1a85ec53ull + 0x9e3779b97f4a7c15ull;
  uint64_t y = (h->b + w) * 0x9e3779b97f4a7c15ull;
  y ^= y >> 29;
  y *= 0xbf58476d1ce4e5b9ull;
  h->b = (y ^ (y >> 32)) + 0x94d049bb133111ebull;
}

#endif

/* Deterministic generated usage records for the benchmarks: three network
 * shapes, any size n, 1-D (bytes) or 2-D (texels, PHWC4 textures).
 *
 * Tensor i is produced by task i (so records come in first_task order) and
 * lives until its last consumer. Sizes follow a feature pyramid: spatial
 * side halves and channels double per level, with a little PRNG jitter.
 * Header-only because every bench_*.c is built as a single-file program. */
#ifndef TEXMEM_BENCH_GEN_RECORDS_H
#define TEXMEM_BENCH_GEN_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "texmem/plan.h"

typedef enum gen_kind {
  GEN_CHAINS = 0,   /* straight chains with a few short branches */
  GEN_RESIDUAL = 1, /* ResNet blocks: x -> conv -> conv -> add(x, .) */
  GEN_SKIPS = 2,    /* U-Nets of depth 7 plus skips across 4 units */
  GEN_COUNT_
} gen_kind;

static inline const char *gen_name(gen_kind g) {
  return g == GEN_CHAINS ? "chains" : g == GEN_RESIDUAL ? "residual" : "long_skips";
}

/* splitmix64 */
static inline uint64_t gen_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A PHWC4 tensor of side (base >> level) and (16 << level) channels, with
 * jitter on the side; 2-D = (W, H * C/4) texels, 1-D = fp16 bytes. */
static inline void gen_size(texmem_record *r, unsigned dims, unsigned level, uint64_t *rng) {
  uint64_t side = 256u >> (level > 8 ? 8 : level);
  uint64_t j = gen_rand(rng) % 4;
  side = side * (4 + j) / 4; /* 1x .. 1.75x */
  if (side < 1) side = 1;
  uint64_t slices = (16u << (level > 6 ? 6 : level)) / 4; /* ceil(C/4) */
  if (gen_rand(rng) % 8 == 0) slices = slices * 3 / 2 + 1;
  uint64_t w = side, h = side * slices;
  r->dims[1] = r->dims[2] = 0;
  if (dims == 1) {
    r->dims[0] = w * h * 8; /* RGBA fp16 */
  } else {
    r->dims[0] = w;
    r->dims[1] = h;
    if (dims == 3) r->dims[2] = 1;
  }
}

static inline void gen_use(texmem_record *rec, size_t n, size_t tensor, size_t task) {
  if (tensor < n && rec[tensor].last_task < task) rec[tensor].last_task = task;
}

/* Fills rec[0..n). Same (g, n, dims, seed) -> same records. */
static inline void gen_records(gen_kind g, size_t n, unsigned dims, uint64_t seed,
                               texmem_record *rec) {
  uint64_t rng = seed * 0x9e3779b97f4a7c15ull + (uint64_t)g * 7919u + dims;
  for (size_t i = 0; i < n; i++) {
    rec[i].id = i;
    rec[i].first_task = i;
    rec[i].last_task = i;
  }
  if (g == GEN_CHAINS) {
    /* Levels drift slowly along the chain; 1 in 8 tensors also feeds an
     * op up to 6 tasks later. */
    unsigned level = 0;
    for (size_t i = 0; i < n; i++) {
      if (i % 16 == 0) level = (unsigned)(gen_rand(&rng) % 6);
      gen_size(&rec[i], dims, level, &rng);
      gen_use(rec, n, i, i + 1);
      if (gen_rand(&rng) % 8 == 0) gen_use(rec, n, i, i + 2 + gen_rand(&rng) % 6);
    }
  } else if (g == GEN_RESIDUAL) {
    /* Block j: x = 3j, a = conv(x) = 3j+1, b = conv(a) = 3j+2,
     * next x = add(x, b) = 3j+3. Four blocks per stage, five stages. */
    for (size_t i = 0; i < n; i++) {
      size_t block = i / 3;
      unsigned level = (unsigned)((block / 4) % 5);
      gen_size(&rec[i], dims, level, &rng);
      switch (i % 3) {
        case 0: gen_use(rec, n, i, i + 1); gen_use(rec, n, i, i + 3); break;
        case 1: gen_use(rec, n, i, i + 1); break;
        default: gen_use(rec, n, i, i + 1); break;
      }
    }
  } else {
    /* Unit of 3*L tensors: e_0, p_0, e_1, p_1, ..., e_{L-1}, p_{L-1},
     * d_{L-1}, ..., d_0. e_l = conv(prev), p_l = pool(e_l), d_l =
     * up(d_{l+1}) ++ e_l. A unit's output d_0 also feeds the output of
     * the unit four later. */
    enum { L = 7, UNIT = 3 * L };
    for (size_t i = 0; i < n; i++) {
      size_t u = i / UNIT, k = i % UNIT, base = u * UNIT;
      unsigned level;
      if (k < 2 * L) {
        level = (unsigned)(k / 2);
        gen_use(rec, n, i, i + 1); /* e_l -> p_l, p_l -> e_{l+1} / d_{L-1} */
        if (k % 2 == 0) gen_use(rec, n, i, base + 2 * L + (L - 1 - k / 2)); /* e_l -> d_l */
      } else {
        size_t l = L - 1 - (k - 2 * L);
        level = (unsigned)l;
        gen_use(rec, n, i, i + 1); /* d_l -> d_{l-1}, d_0 -> next unit's e_0 */
        if (l == 0) gen_use(rec, n, i, base + 4 * UNIT + UNIT - 1);
      }
      gen_size(&rec[i], dims, level, &rng);
    }
  }
}

/* Every tensor live at once: tensor i is produced by task i and all are
 * consumed by one last op (task n), as by a concat of everything; sizes of
 * random pyramid levels. The worst case for planners that compare a tensor
 * with the placed ones it meets. Not one of the GEN_COUNT_ families the
 * benchmarks sweep; bench_plan --write-records all_live writes it. */
static inline void gen_all_live(size_t n, unsigned dims, uint64_t seed, texmem_record *rec) {
  uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 104729u + dims;
  for (size_t i = 0; i < n; i++) {
    rec[i] = (texmem_record){i, {0, 0, 0}, i, n};
    gen_size(&rec[i], dims, (unsigned)(gen_rand(&rng) % 7), &rng);
  }
}

#endif

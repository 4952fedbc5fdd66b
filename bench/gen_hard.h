/* Hard 1-D offsets instances with a known feasible capacity: a capacity x
 * horizon rectangle (bytes x tasks) is cut into pieces, each piece a
 * tensor (its bytes the piece's height, its tasks the piece's width), so
 * the cut itself is a plan at exactly the capacity. Cuts are guillotine
 * (a straight cut across a piece) or, with probability nonguillotine, a
 * pinwheel of five pieces no sequence of straight cuts can produce. Sizes
 * are multiples of unit. Pieces are then dropped with probability
 * 1 - density (the capacity stays feasible; the optimum may get lower).
 * Header-only because every bench_*.c is built as a single-file program. */
#ifndef TEXMEM_BENCH_GEN_HARD_H
#define TEXMEM_BENCH_GEN_HARD_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "texmem/plan.h"

typedef struct hard_rect {
  uint64_t x0, x1, y0, y1; /* tasks [x0, x1), units [y0, y1) */
} hard_rect;

static inline uint64_t hard_rand(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A cut position strictly inside (lo, hi), kept away from the ends. */
static inline uint64_t hard_cut(uint64_t lo, uint64_t hi, uint64_t *rng) {
  uint64_t w = hi - lo;
  return lo + 1 + (w > 2 ? hard_rand(rng) % (w - 1) : 0);
}

/* Writes up to n records (returns the count kept) for a capacity of
 * cap_units * unit bytes and horizon tasks. out has n entries. */
static inline size_t hard_generate(texmem_record *out, size_t n, uint64_t cap_units,
                                   uint64_t unit, uint64_t horizon, double nonguillotine,
                                   double density, uint64_t seed) {
  hard_rect *r = malloc((n + 8) * sizeof *r);
  if (!r) return 0;
  uint64_t rng = seed;
  size_t k = 1;
  r[0] = (hard_rect){0, horizon, 0, cap_units};
  unsigned stuck = 0;
  while (k < n && stuck < 1000) {
    /* split the larger (in relative terms) of two random pieces */
    size_t i = hard_rand(&rng) % k, j = hard_rand(&rng) % k;
    double ai = (double)(r[i].x1 - r[i].x0) / (double)horizon * (double)(r[i].y1 - r[i].y0) / (double)cap_units;
    double aj = (double)(r[j].x1 - r[j].x0) / (double)horizon * (double)(r[j].y1 - r[j].y0) / (double)cap_units;
    if (aj > ai) i = j;
    hard_rect p = r[i];
    uint64_t w = p.x1 - p.x0, h = p.y1 - p.y0;
    bool pin = k + 4 <= n && w >= 3 && h >= 3 &&
               (double)(hard_rand(&rng) % 1000) < nonguillotine * 1000.0;
    if (pin) {
      uint64_t a = hard_cut(p.x0, p.x1 - 1, &rng), b = hard_cut(a, p.x1, &rng);
      uint64_t c = hard_cut(p.y0, p.y1 - 1, &rng), d = hard_cut(c, p.y1, &rng);
      r[i] = (hard_rect){p.x0, b, p.y0, c};
      r[k++] = (hard_rect){b, p.x1, p.y0, d};
      r[k++] = (hard_rect){a, p.x1, d, p.y1};
      r[k++] = (hard_rect){p.x0, a, c, p.y1};
      r[k++] = (hard_rect){a, b, c, d};
      stuck = 0;
      continue;
    }
    double rw = (double)w / (double)horizon, rh = (double)h / (double)cap_units;
    bool vertical = rw > rh ? hard_rand(&rng) % 4 != 0 : hard_rand(&rng) % 4 == 0;
    if (vertical && w < 2) vertical = false;
    if (!vertical && h < 2) vertical = w >= 2;
    if ((vertical && w < 2) || (!vertical && h < 2)) {
      stuck++;
      continue;
    }
    stuck = 0;
    if (vertical) {
      uint64_t x = hard_cut(p.x0, p.x1, &rng);
      r[i].x1 = x;
      r[k++] = (hard_rect){x, p.x1, p.y0, p.y1};
    } else {
      uint64_t y = hard_cut(p.y0, p.y1, &rng);
      r[i].y1 = y;
      r[k++] = (hard_rect){p.x0, p.x1, y, p.y1};
    }
  }
  size_t m = 0;
  for (size_t i = 0; i < k; i++) {
    if (density < 1.0 && (double)(hard_rand(&rng) % 1000000) >= density * 1e6) continue;
    texmem_record *o = &out[m];
    o->id = m;
    o->dims[0] = (r[i].y1 - r[i].y0) * unit;
    o->dims[1] = o->dims[2] = 0;
    o->first_task = r[i].x0;
    o->last_task = r[i].x1 - 1;
    m++;
  }
  free(r);
  return m;
}

#endif

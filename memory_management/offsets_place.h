/* Shared pieces of the offsets strategies: a keyed sort and the best-fit
 * gap placer (TFLite's GreedyBySizeAssignment rule) used by the greedy
 * offsets strategies. */
#ifndef TEXMEM_MM_OFFSETS_PLACE_H
#define TEXMEM_MM_OFFSETS_PLACE_H

#include "internal.h"

/* Sort record: k1 descending, then k2 descending, then id ascending. Flip a
 * key to ascending by storing UINT64_MAX - key. */
typedef struct texmem__keyed {
  uint64_t k1, k2;
  size_t id;
} texmem__keyed;

void texmem__sort_keyed(texmem__keyed *a, size_t n);

/* Placed tensors indexed by their task interval. Owned by the caller;
 * destroy(NULL) is a no-op. Writes into the offset array given at create,
 * which it borrows until destroy. */
typedef struct texmem__placer texmem__placer;

texmem_status texmem__placer_create(const texmem__problem *pb, uint64_t *offset,
                                    texmem__placer **out, texmem_error *err);
/* Fixed tensors (pb->fixed) are placed by create; placing one is a no-op.
 * Places tensor i (not yet placed) at the start of the smallest gap between
 * the already placed tensors that conflict with it into which its aligned
 * size fits (lowest gap on ties), else just above the highest of them.
 * Zero-size tensors go to 0 and are not recorded (they conflict with
 * nothing). */
texmem_status texmem__placer_place(texmem__placer *p, size_t i, texmem_error *err);
void texmem__placer_destroy(texmem__placer *p);

/* Places every tensor in the given order with the placer. */
texmem_status texmem__place_in_order(const texmem__problem *pb, const texmem__keyed *order,
                                     uint64_t *offset, texmem_error *err);

#endif

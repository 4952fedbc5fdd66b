/* tflm_greedy offsets: TensorFlow Lite Micro's GreedyMemoryPlanner, for
 * comparison. Tensors by size, largest first (ties keep record order, as
 * its stable sort does); each goes to the lowest offset where it fits
 * before the next placed tensor that is live at the same time, walking the
 * placed tensors in offset order (first fit, where greedy_by_size takes
 * the best fit). Quadratic in the tensors, like the original. */
#include "offsets_place.h"

typedef struct entry {
  uint64_t offset;
  size_t tensor;
  size_t next; /* SIZE_MAX ends the list */
} entry;

texmem_status texmem__offsets_tflm_greedy(const texmem__problem *pb, uint64_t *offset,
                                          bool *optimal, uint64_t *bound, texmem_error *err) {
  (void)optimal;
  (void)bound;
  if (pb->n == 0) return TEXMEM_STATUS_OK;
  texmem__keyed *order = malloc(pb->n * sizeof *order);
  entry *list = malloc(pb->n * sizeof *list);
  if (!order || !list) {
    free(order);
    free(list);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for tflm_greedy");
  }
  for (size_t i = 0; i < pb->n; i++) order[i] = (texmem__keyed){pb->size[i], 0, i};
  texmem__sort_keyed(order, pb->n); /* size descending, then index ascending */
  size_t head = SIZE_MAX, used = 0;
  for (size_t k = 0; k < pb->n; k++) {
    size_t t = order[k].id;
    uint64_t size = texmem__align_up(pb->size[t], pb->alignment);
    uint64_t cand = 0;
    size_t prev = SIZE_MAX; /* last list entry at or below cand, for the insertion */
    for (size_t e = head; e != SIZE_MAX; e = list[e].next) {
      if (!texmem__conflict(pb, t, list[e].tensor)) continue;
      /* The next live tensor: does the gap below it hold this one? */
      if (list[e].offset >= cand && list[e].offset - cand >= size) break;
      uint64_t end = texmem__add_sat(list[e].offset,
                                     texmem__align_up(pb->size[list[e].tensor], pb->alignment));
      if (end > cand) cand = end;
    }
    offset[t] = cand;
    /* Insert after every entry whose offset is <= cand (TFLM's order). */
    list[used] = (entry){cand, t, SIZE_MAX};
    if (head == SIZE_MAX || list[head].offset > cand) {
      list[used].next = head;
      head = used;
    } else {
      prev = head;
      while (list[prev].next != SIZE_MAX && list[list[prev].next].offset <= cand) prev = list[prev].next;
      list[used].next = list[prev].next;
      list[prev].next = used;
    }
    used++;
  }
  free(order);
  free(list);
  return TEXMEM_STATUS_OK;
}

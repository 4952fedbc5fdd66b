/* strip_best_fit offsets: the best-fit strip-packing heuristic (Burke,
 * Kendall and Whitwell 2004) as adapted to DNN memory by Sekiyama et al.
 * 2018. The task axis is the strip's width and tensors have fixed
 * horizontal positions (their intervals), so a tensor fits a skyline
 * segment when its interval lies inside it. Repeatedly take the lowest
 * segment (leftmost on ties) and place there the fitting tensor with the
 * widest interval (then the largest size, then the lowest index); when none fits, raise the
 * segment to its lower neighbour, wasting that space.
 *
 * Every tensor placed on a segment sits on top of everything placed under
 * its interval, so the result is valid by construction. Each step scans
 * the unplaced tensors: O(n^2) overall, fine for model-sized inputs. */
#include "offsets_place.h"

#define NIL UINT32_MAX

typedef struct seg {
  uint32_t a, b;       /* tasks, inclusive */
  uint64_t h;          /* skyline height over them */
  uint32_t prev, next; /* neighbours in task order */
} seg;

/* Merges s with its right neighbour when their heights are equal. */
static void merge_right(seg *g, uint32_t s) {
  uint32_t r = g[s].next;
  if (r == NIL || g[r].h != g[s].h) return;
  g[s].b = g[r].b;
  g[s].next = g[r].next;
  if (g[r].next != NIL) g[g[r].next].prev = s;
}

texmem_status texmem__offsets_strip_best_fit(const texmem__problem *pb, uint64_t *offset,
                                             bool *optimal, uint64_t *bound,
                                             texmem_error *err) {
  (void)optimal;
  (void)bound;
  size_t n = pb->n;
  if (n == 0) return TEXMEM_STATUS_OK;
  for (size_t i = 0; i < n; i++)
    if (texmem__is_fixed(pb, i))
      return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                          "strip_best_fit cannot plan around fixed offsets (tensor %zu is fixed)", i);
  uint32_t *un = malloc(n * sizeof *un); /* unplaced tensors */
  seg *g = malloc((2 * n + 2) * sizeof *g);
  if (!un || !g) {
    free(un);
    free(g);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for strip_best_fit");
  }
  size_t nun = 0;
  for (size_t i = 0; i < n; i++) {
    if (pb->size[i] == 0) offset[i] = 0; /* conflicts with nothing */
    else un[nun++] = (uint32_t)i;
  }
  uint32_t ng = 1, head = 0;
  g[0] = (seg){0, pb->ntasks - 1, 0, NIL, NIL};
  while (nun > 0) {
    uint32_t low = head;
    for (uint32_t s = g[head].next; s != NIL; s = g[s].next)
      if (g[s].h < g[low].h) low = s;
    uint32_t a = g[low].a, b = g[low].b;
    size_t best = SIZE_MAX;
    uint32_t best_w = 0;
    uint64_t best_size = 0;
    for (size_t j = 0; j < nun; j++) {
      uint32_t i = un[j], f = pb->first[i], l = pb->last[i];
      if (f < a || l > b) continue;
      uint32_t w = l - f;
      if (best == SIZE_MAX || w > best_w ||
          (w == best_w && (pb->size[i] > best_size || (pb->size[i] == best_size && i < un[best])))) {
        best = j;
        best_w = w;
        best_size = pb->size[i];
      }
    }
    if (best == SIZE_MAX) {
      /* Nothing fits: raise to the lower neighbour and merge. A lone
       * segment always fits every tensor, so a neighbour exists. */
      uint32_t p = g[low].prev, q = g[low].next;
      uint64_t h = UINT64_MAX;
      if (p != NIL) h = g[p].h;
      if (q != NIL && g[q].h < h) h = g[q].h;
      g[low].h = h;
      merge_right(g, low);
      if (p != NIL) merge_right(g, p);
      continue;
    }
    uint32_t i = un[best];
    un[best] = un[--nun];
    uint32_t f = pb->first[i], l = pb->last[i];
    uint64_t h = g[low].h;
    offset[i] = h;
    uint64_t top = h + texmem__align_up(pb->size[i], pb->alignment);
    /* Split [a,b] into [a,f-1]@h, [f,l]@top, [l+1,b]@h. */
    uint32_t mid = low;
    if (f > a) {
      mid = ng++;
      g[mid] = (seg){f, l, top, low, g[low].next};
      if (g[low].next != NIL) g[g[low].next].prev = mid;
      g[low].next = mid;
      g[low].b = f - 1;
    } else {
      g[mid].b = l;
      g[mid].h = top;
    }
    if (l < b) {
      uint32_t r = ng++;
      g[r] = (seg){l + 1, b, h, mid, g[mid].next};
      if (g[mid].next != NIL) g[g[mid].next].prev = r;
      g[mid].next = r;
    }
    merge_right(g, mid);
    if (g[mid].prev != NIL) merge_right(g, g[mid].prev);
  }
  free(un);
  free(g);
  return TEXMEM_STATUS_OK;
}

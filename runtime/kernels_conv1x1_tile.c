/* The tile of the tiled 1x1 convolution (op_conv1x1_tiled.comp), chosen
 * per layer; op_squeeze.comp follows the same choice so that its sums run
 * in the same order. A work group of 64 invocations computes 4 * pq
 * output pixels x 4 * sg output slices, its invocations split in ks parts
 * that take turns over the chunks of 4 input slices; each part's sums are
 * added in a fixed order after, so the split changes how long a work
 * group's serial loop is, not the result's determinism. Large layers want
 * the largest tile (each staged texel feeds most multiply-adds); a small
 * layer (MobileNet's 7x7 ones) has then too few work groups to fill a large
 * GPU, each walking a long loop, so the rule takes the largest tile that
 * still gives WANT_GROUPS work groups, never splitting so far that a part
 * gets no chunk. docs/runtime.md ("Kernels for GPUs") says what was
 * measured on a GPU and what was not. */
#include "kernels_conv_common.h"

/* Work groups a GPU wants to be busy: on a large GPU (an H100 holds 132
 * x 32 work groups of 64) the product of a small layer (MobileNet's 7x7)
 * has few tiles, each a long serial loop, so smaller tiles that split the
 * input slices are worth their shared-memory sums below this. */
#define WANT_GROUPS 256u

/* The tiles, largest first: each halves the pixels and doubles the parts
 * that split the input slices (pq * sg * ks = 64 invocations). */
static const texmem__conv_tile tiles[] = {{16, 4, 1}, {8, 4, 2}, {4, 4, 4}, {2, 4, 8}, {1, 4, 16}};

texmem__conv_tile texmem__conv1x1_tile(uint64_t pixels, uint32_t groups4, uint32_t chunks,
                                       uint32_t split) {
  size_t pick = 0;
  for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++) {
    if (split) {
      if (tiles[i].ks == split) return tiles[i];
      continue;
    }
    if (i > 0 && tiles[i].ks > chunks) break; /* a part with no chunk idles */
    pick = i;
    uint64_t n = (pixels + 4 * tiles[i].pq - 1) / (4 * tiles[i].pq) *
                 ((groups4 + tiles[i].sg - 1) / tiles[i].sg);
    if (n >= WANT_GROUPS) break;
  }
  return tiles[pick];
}


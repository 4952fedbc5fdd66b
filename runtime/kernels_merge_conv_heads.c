/* A detector's heads as one dispatch (kernels_fusion.h: heads). At each
 * feature map a detector runs two or three 1x1 convolutions of the same
 * input: class scores, box offsets, the next feature map's projection
 * (SSD: 24, 144 and 256 channels of one 10x10x1280 map; BlazeFace: 2 and
 * 32 of a 16x16x88 one). Each is a small product that costs a GPU
 * dispatch's fixed price more than its arithmetic. The tiled 1x1 kernel
 * takes them as one product: their weights side by side, each layer's
 * output slices padded to whole groups of 4, so no slice group straddles
 * two layers, and each group stores to its own layer's output with its
 * own activation (shaders/op_conv1x1_tiled.comp, TM_HEADS).
 *
 * Bit for bit: the tiled kernel sums a pixel's input chunks in one order
 * for a given split of the input slices (the tile's ks), whatever else
 * the tile is, and the split is chosen per layer from its slice groups.
 * So heads merge only where each alone would take the same split; the
 * merged dispatch takes it too.
 *
 * Memory: every merged output is made at the first head's task. Heads
 * merge only within five operators of each other (a detector's heads are
 * next to each other, with what follows the one before between: a
 * reshape, or face_detection_full_range_sparse's PAD, depthwise
 * convolution, DEPTH_TO_SPACE and reshape), so an output is not held
 * across a network (a U-Net's skip read by a 1x1 at each end). Three at
 * most: the input and three outputs are the four images GLES 3.1
 * guarantees a compute shader. Only with the tiled kernels
 * (texmem__fuse_find's allow). */
#include "kernels_conv_common.h"
#include "kernels_fusion.h"

/* Operators from one head to the next at most. */
#define HEAD_GAP 5

/* Heads one dispatch runs at most. */
#define MAX_CONV_HEADS 3

/* The split of the input slices (the tile's ks) convolution k takes alone
 * when it can merge: a 1x1 stride-1 CONV_2D of a float input, in no
 * dispatch but its own, storing its own output, its activation one the
 * kernel applies; 0 otherwise. */
static uint32_t head_split(const texmem_model *m, const texmem__fusion *f, size_t k) {
  const texmem_op *op = texmem__fuse_unclaimed(m, f, k, TEXMEM_OP_CONV_2D, 2);
  if (!op || f->task[k] != (int32_t)k || f->into[k] >= 0 || texmem__fuse_input_folded(f, k) ||
      op->options.stride_w != 1 || op->options.stride_h != 1 ||
      !texmem__fuse_activation_ok(op->options.activation))
    return 0;
  const texmem_tensor *x = texmem__ku_tensor(m, op->inputs[0]),
                      *w = texmem__ku_tensor(m, op->inputs[1]),
                      *y = texmem__ku_tensor(m, op->outputs[0]);
  if (!x || !w || !y || !texmem__ku_is_float(x) || !texmem__ku_is_float(y) || x->rank != 4 ||
      (x->flags & TEXMEM_TENSOR_CONSTANT) || w->rank != 4 || w->shape[1] != 1 || w->shape[2] != 1 ||
      (uint32_t)w->shape[3] != x->c)
    return 0;
  return texmem__conv1x1_own_split((uint64_t)x->b * x->h * x->w, (uint32_t)w->shape[0], x->c);
}

void texmem__merge_conv_heads(const texmem_model *m, texmem__fusion *f) {
  for (size_t k = 0; k < f->n_ops; k++) {
    uint32_t ks = head_split(m, f, k);
    if (!ks) continue;
    int32_t in = texmem_model_op(m, k)->inputs[0], last = (int32_t)k, n = 1;
    for (size_t j = k + 1; j < f->n_ops && j <= (size_t)last + HEAD_GAP && n < MAX_CONV_HEADS;
         j++) {
      if (texmem_model_op(m, j)->inputs[0] != in || head_split(m, f, j) != ks) continue;
      f->heads[last] = (int32_t)j;
      last = (int32_t)j;
      n++;
      f->head[j] = (int32_t)j;
      f->task[j] = (int32_t)k;
      f->n_heads++;
    }
    if (n > 1) f->head[k] = (int32_t)k;
  }
}

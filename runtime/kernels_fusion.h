/* Fusion of an element-wise operator into the convolution before it: a
 * CONV_2D or DEPTHWISE_CONV_2D (or, for a unary operator, a
 * FULLY_CONNECTED) whose output only that operator reads
 * (unary RELU, RELU6, LOGISTIC, HARD_SWISH, TANH, LEAKY_RELU; binary ADD,
 * MUL, SUB, DIV, MAXIMUM, MINIMUM, PRELU with a constant or with a tensor
 * of the same shape; a DEPTHWISE_CONV_2D of a 1x1 window and multiplier 1,
 * which maps each texel alone: a per-channel scale and shift) runs as one
 * dispatch, and the convolution's output is never stored or planned. A
 * second operator reading only that operator's output (unary, or binary
 * with a constant: the PRELU or RELU after a residual ADD) joins the same
 * dispatch, and the first one's output is not stored either; when other
 * operators read it too and the second is the first of them, the same
 * dispatch stores it beside the second's (keep).
 * The fused program applies the operator to the value the convolution
 * would have stored (binary16-rounded in fp16 runs), with the operator's
 * own shader code (shaders/elementwise.glsl), so its outputs equal the
 * two dispatches' bit for bit. The first operator's tensor operand may
 * be computed after the convolution: the dispatch then runs where the
 * operator did. A channel PAD making that operand (BlazeFace's shortcut),
 * or a STRIDED_SLICE of its leading channels (hand_recrop's), folds into
 * the read. */
#ifndef TEXMEM_RUNTIME_KERNELS_FUSION_H
#define TEXMEM_RUNTIME_KERNELS_FUSION_H

#include "kernel.h"
#include "kernels_util.h"

/* Which operators run inside which convolution's dispatch, and when.
 * Per operator: head, the convolution whose dispatch runs it (a fused
 * convolution's own is itself; -1: it runs alone), and task, the task its
 * dispatch runs in (its own index when it runs alone). Per convolution:
 * first and second, its fused operators, and pad, a PAD folded into the
 * first one's tensor operand (-1: none; or a STRIDED_SLICE of the leading
 * channels, read the same way). The dispatch runs at the
 * convolution's task, or, when the first operator's tensor operand is
 * computed after the convolution ("late"), at that operator's: the
 * convolution's input then lives until there. A PAD folded in (zeros
 * after the channels only, its output read by the first operator alone)
 * is not run: the dispatch reads the PAD's input and takes zeros past its
 * channels. Likewise pool, a MAX_POOL_2D (no activation, a window of at
 * most 16 texels) making that operand or the folded PAD's input: the
 * dispatch reads the pool's input and takes each window's maximum, which
 * is one of the stored values, so the outputs stay bit for bit. And
 * inpad, a PAD of zero rows and columns making the convolution's own input
 * (a depthwise or a k x k convolution, read by it alone: TFLite's explicit
 * padding before a stride-2 convolution; or by several such convolutions,
 * each folding it: the PAD's head is the first, its task the last one's):
 * the convolution reads the PAD's input with the padding added to its own,
 * and zeros outside it. Likewise ind2s, a DEPTH_TO_SPACE making what the
 * convolution reads (its input or its folded PAD's), read by it or that
 * PAD alone: the convolution reads the DEPTH_TO_SPACE's input, each texel
 * where op_depth_to_space.comp takes it (a copy: bit for bit), and the
 * DEPTH_TO_SPACE is not run (counted in n_fused, as input PADs). A
 * convolution may fold one with no element-wise operator fused. And indw,
 * with the tiled 1x1 kernel only: a DEPTHWISE_CONV_2D (multiplier 1,
 * nothing element-wise fused into it; its input PAD folded or not) making
 * a 1x1 stride-1 CONV_2D's input, read
 * by it alone: the 1x1 kernel reads the depthwise convolution's input and
 * computes each input texel it stages with the depthwise kernel's own code
 * (shaders/depthwise_common.glsl), activated and rounded as its store
 * would, so outputs stay bit for bit; the depthwise output, often the
 * largest tensor at a MobileNet block's peak, is never planned, its input
 * lives until the 1x1's dispatch. Likewise inmul, a MUL of a tensor by a
 * per-channel one (B x 1 x 1 x C: squeeze-and-excitation's scale) making
 * the 1x1's input, read by it alone: the kernel reads both operands and
 * stages their product, activated and rounded as the MUL's store would;
 * the MUL's output is never planned. With inadd, an ADD of that MUL's
 * output (read by the ADD alone) and a tensor b making the 1x1's input,
 * read by it alone (the selfie decoder's scaled skip connection plus the
 * upsampled path): the kernel stages the MUL's product rounded, then the
 * ADD's sum with b, activated and rounded as its store would; neither
 * output is planned (the ADD counted in n_fused, the MUL in n_mul).
 * Likewise inrsz, a RESIZE_BILINEAR
 * making the 1x1's input, read by it alone: the kernel reads the resize's
 * input and stages each texel interpolated as op_resize.comp computes it
 * (shaders/bilinear.glsl, the same code), rounded as its store would; the
 * resized tensor, four times its input for a 2x upsampling, is never
 * planned. And rsz, per convolution, a RESIZE_BILINEAR making the first
 * fused operator's tensor operand, read by it alone (a feature pyramid's
 * upsampled coarse level added to a finer one): the dispatch reads the
 * resize's input and interpolates it there, with every kernel set.
 * And inaff, per convolution (any CONV_2D or DEPTHWISE_CONV_2D, every
 * kernel set), a per-texel DEPTHWISE_CONV_2D as above making its input,
 * read by it alone, when no dispatch runs it already (its input no
 * convolution's, or that dispatch runs two operators: hand_recrop's
 * scale after a residual ADD and PRELU): the convolution reads the
 * depthwise one's input and computes each texel as op_depthwise.comp
 * does, activated and rounded as its store would; it is not run (counted
 * in n_fused, as input PADs) and its output never planned.
 * And insq, per 1x1 CONV_2D k of one-pixel planes (tiled kernels):
 * squeeze-and-excitation's squeeze making k's input, read by k alone: a
 * 1x1 CONV_2D of one-pixel planes (its unary operator fused or none) whose
 * input is a global pool's output, or that pool itself (insq then the
 * pool); the pool an AVERAGE_POOL_2D or MAX_POOL_2D whose window is the
 * plane or a MEAN over H and W, its output read by one operator alone. One
 * work group a batch runs the pool as op_reduce_hw.comp does, then the
 * convolutions as the tiled 1x1 kernel adds their terms
 * (op_squeeze.comp), rounding what each would have stored; the pool's
 * and the first convolution's outputs are never planned (pool and first
 * convolution counted in n_fused). With sqadd, per such k, an ADD of two
 * tensors of its shape making the pool's input, read by the pool alone
 * (the selfie decoder's skip connection plus the upsampled path): the
 * pool reads both and adds them as op_binary.comp does, rounded as its
 * store would; its output is never planned (counted in n_fused).
 * Not convolutions: through, per operator, for a RESHAPE whose output only
 * a CONCATENATION reads (and is not a graph output), that concatenation
 * (-1: none). The reshape is not run: the concatenation reads each of the
 * segment's elements from the reshape's input, where the dense BHWC order
 * puts it (as op_reshape.comp finds it), so values are copied as before;
 * the reshape's output (a detector's head flattened to anchors) is never
 * planned, its input lives until the concatenation. head and task of the
 * reshape are the concatenation's. And into, per operator p, a RESHAPE
 * whose input of the same BHWC shape p makes and the reshape alone reads
 * (a classifier's logits reshaped to a graph output): p's dispatch stores
 * the reshape's output instead, at the same texels (the same shape is the
 * same texture or the same dense run), and the reshape is not run; its
 * input is never planned (head: itself, task: p's). Likewise a RESHAPE to
 * another height and width of the same batch, channels and pixels (a
 * detector's head flattened to anchors, face_detection_full_range's),
 * where p's dispatch is a convolution's or a depthwise convolution's (not
 * a squeeze's) or p a DEPTH_TO_SPACE or a CONCATENATION (the SSD
 * detector's boxes): the kernel stores each texel at the reshape's texel
 * of the same pixel index (shaders/y_flat.glsl). And heads, per
 * FULLY_CONNECTED k: the next layer reading k's input by rows that k's
 * dispatch runs too (a landmark model's heads on one pooled feature
 * vector), each with its own fused unary operator; every output is stored
 * as before, now at k's task (their head: themselves, task: k's). Likewise
 * per 1x1 CONV_2D k of stride 1, with the tiled kernels: the next 1x1 of
 * k's input within five operators (a detector's class and box heads and
 * the next feature map's projection), none with a fused operator or an
 * input or output fold, whose split of the input slices alone would be
 * k's (so each sums in the same order): one product, each output stored
 * with its own activation.
 * MediaPipe's landmark operators (LANDMARKS_TO_TRANSFORM_MATRIX,
 * TRANSFORM_LANDMARKS) read their landmarks through what made them, each
 * made tensor read by the next alone: a MUL by a float32 scalar constant
 * (any activation), a RESHAPE of a float tensor, or a RESHAPE then such a
 * MUL (face_landmark_with_attention: a head's 1404 values reshaped to 468
 * landmarks and scaled). through of each is the landmark operator, which
 * reads the reshape's input in dense BHWC order and multiplies, activates
 * and rounds as op_binary.comp and its store would (shaders/
 * landmarks.glsl), so values are the same; neither runs nor is planned
 * (the MUL counted in n_fused, the reshape in n_rs). Likewise a MUL of a
 * 4x4 matrix by a float32 constant of 16 values or one, every reader of
 * its output a TRANSFORM_LANDMARKS reading it as its matrix: each reads
 * through it (through and task: the last reader's). And into, per
 * TRANSFORM_LANDMARKS p, a RESHAPE of any shape of as many elements whose
 * input p makes and the reshape alone reads (moved landmarks flattened to
 * a graph output): p's dispatch writes each texel of the reshape's output
 * from the landmarks the dense order puts there, and the reshape is not
 * run. */
/* The per-operator arrays of a fusion, head .. sqadd, one allocation. */
enum { TEXMEM__FUSION_ARRAYS = 20 };

typedef struct texmem__fusion {
  size_t n_ops;
  size_t n_fused; /* operators run inside a convolution's dispatch */
  size_t n_dw;    /* depthwise convolutions folded into a 1x1 (not in n_fused) */
  size_t n_rs;    /* reshapes read through or stored into (not in n_fused) */
  size_t n_mul;   /* per-channel MULs folded into a 1x1 (not in n_fused) */
  size_t n_kept;  /* first fused operators whose output is stored all the same */
  size_t n_rsz;   /* resizes read through by a convolution (not in n_fused) */
  size_t n_heads; /* FULLY_CONNECTED layers or 1x1 convolutions run in another one's dispatch */
  int32_t *head, *task, *first, *second, *pad, *pool, *inpad, *indw, *through, *into, *inmul;
  int32_t *keep; /* per convolution: 1 when its first operator's output, which other
                    operators read too, is stored beside the second's */
  int32_t *rsz, *inrsz;
  int32_t *heads; /* per FULLY_CONNECTED or CONV_2D: the next one its dispatch runs (-1: none) */
  int32_t *ind2s; /* per convolution: the DEPTH_TO_SPACE it reads x through (-1: none) */
  int32_t *inaff; /* per convolution: the per-texel depthwise one it reads x through (-1: none) */
  int32_t *inadd; /* per 1x1 convolution: the ADD of inmul's output it stages (-1: none) */
  int32_t *insq;  /* per 1x1 convolution: the squeeze's first 1x1 convolution (-1: none) */
  int32_t *sqadd; /* per 1x1 convolution: the ADD making its squeeze's pool input (-1: none) */
} texmem__fusion;

/* The fusion passes' shared helpers (reader[t]: the one operator reading
 * tensor t, once, else -1). The operator of `type` making tensor o, when
 * o is an intermediate one operator alone reads and that operator has one
 * output and an input; -1 otherwise. */
static inline int32_t texmem__fuse_sole_producer(const texmem_model *m, int32_t o,
                                                 const int32_t *reader, texmem_op_type type) {
  const texmem_tensor *ot = texmem__ku_tensor(m, o);
  if (!ot || ot->producer < 0 || reader[o] < 0 || !(ot->flags & TEXMEM_TENSOR_INTERMEDIATE))
    return -1;
  const texmem_op *p = texmem_model_op(m, (size_t)ot->producer);
  return p->type == type && p->n_outputs == 1 && p->n_inputs >= 1 ? ot->producer : -1;
}

/* Operator k when it is of `type` with at least n_in inputs and one
 * output, in no dispatch but its own yet; NULL otherwise. */
static inline const texmem_op *texmem__fuse_unclaimed(const texmem_model *m,
                                                      const texmem__fusion *f, size_t k,
                                                      texmem_op_type type, size_t n_in) {
  const texmem_op *op = texmem_model_op(m, k);
  return op->type == type && op->n_inputs >= n_in && op->n_outputs == 1 && f->head[k] == -1
             ? op
             : NULL;
}

/* Activations the conv and element-wise kernels apply (texmem__ku_activation). */
static inline bool texmem__fuse_activation_ok(texmem_activation a) {
  return a == TEXMEM_ACT_NONE || a == TEXMEM_ACT_RELU || a == TEXMEM_ACT_RELU6 ||
         a == TEXMEM_ACT_RELU_N1_TO_1 || a == TEXMEM_ACT_TANH;
}

/* Operator j joins convolution k's dispatch at `task`. */
static inline void texmem__fuse_join(texmem__fusion *f, size_t k, int32_t j, int32_t task) {
  f->head[j] = (int32_t)k;
  f->task[j] = task;
  f->n_fused++;
}

/* Operator q, read through by dispatches up to `task`, is read there. */
static inline void texmem__fuse_read_until(texmem__fusion *f, int32_t q, int32_t task) {
  if (q >= 0 && task > f->task[q]) f->task[q] = task;
}

/* Whether convolution k reads its input through a fold already (an
 * input PAD, DEPTH_TO_SPACE, depthwise convolution, MUL, ADD, resize,
 * per-texel depthwise one or squeeze): x is bound to something else then. */
static inline bool texmem__fuse_input_folded(const texmem__fusion *f, size_t k) {
  return f->inpad[k] >= 0 || f->ind2s[k] >= 0 || f->indw[k] >= 0 || f->inmul[k] >= 0 ||
         f->inadd[k] >= 0 || f->inrsz[k] >= 0 || f->inaff[k] >= 0 || f->insq[k] >= 0;
}

/* What several passes match (kernels_fuse_match.c). Whether e is a
 * DEPTHWISE_CONV_2D of rank-4 tensor t that maps each texel alone (a 1x1
 * window, multiplier 1: a per-channel scale and shift), with an
 * activation the kernels apply. */
bool texmem__fuse_per_texel_depthwise(const texmem_model *m, const texmem_op *e, int32_t t);
/* Whether operator e, fused after tensor t, reads a tensor operand. */
bool texmem__fuse_binds_tensor(const texmem_model *m, const texmem_op *e, int32_t t);
/* The PAD making intermediate tensor o from a float non-constant tensor,
 * with its zeros before and after each BHWC component; -1 otherwise. */
int32_t texmem__fuse_pad_of(const texmem_model *m, int32_t o, int32_t before[4],
                            int32_t after[4]);
/* The RESIZE_BILINEAR making tensor o when its one reader may read
 * through it; -1 otherwise. */
int32_t texmem__fuse_foldable_resize(const texmem_model *m, int32_t o, const int32_t *reader);
/* The tensor convolution k's dispatch reads as its fused operand (-1:
 * none). */
int32_t texmem__fuse_operand_read(const texmem_model *m, const texmem__fusion *f, size_t k);

/* The passes after the element-wise fusion (texmem__fuse_find), in this
 * order. The folds into convolutions' inputs (inpad, ind2s with pads;
 * indw, inmul, inadd, inrsz with depthwise, inrsz only with resize, then
 * the squeezes; inaff with pads; kernels_fold_inputs.c). */
void texmem__fold_inputs(const texmem_model *m, texmem__fusion *f, const int32_t *reader,
                         bool pads, bool depthwise, bool resize);
/* The squeezes (insq, sqadd; kernels_fold_squeezes.c). */
void texmem__fold_squeezes(const texmem_model *m, texmem__fusion *f, const int32_t *reader);
/* The pool whose output convolution insq[k] reads (f->insq[k] >= 0). */
int32_t texmem__squeeze_pool(const texmem_model *m, const texmem__fusion *f, size_t k);
/* Whether operator p runs inside convolution c's squeeze (its pool, first
 * convolution and that one's fused operator, the ADD under the pool). */
bool texmem__squeezed(const texmem_model *m, const texmem__fusion *f, int32_t c, int32_t p);
/* The folds of RESHAPEs and of the landmark operators' copies and scales
 * (through, into above; kernels_fold_reshapes.c). */
void texmem__fold_reshapes(const texmem_model *m, texmem__fusion *f, const int32_t *reader);
/* A detector's heads: 1x1 convolutions of one input merged (heads above;
 * kernels_merge_conv_heads.c). */
void texmem__merge_conv_heads(const texmem_model *m, texmem__fusion *f);

#endif

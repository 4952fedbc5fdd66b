/* Fusion of an element-wise operator into the convolution before it: a
 * CONV_2D or DEPTHWISE_CONV_2D whose output only that operator reads
 * (unary RELU, RELU6, LOGISTIC, HARD_SWISH, TANH, LEAKY_RELU; binary ADD,
 * MUL, SUB, DIV, MAXIMUM, MINIMUM, PRELU with a constant or with a tensor
 * of the same shape computed before the convolution) runs as one
 * dispatch, and the convolution's output is never stored or planned. A
 * second operator reading only that operator's output (unary, or binary
 * with a constant: the PRELU or RELU after a residual ADD) joins the same
 * dispatch, and the first one's output is not stored either.
 * The fused program applies the operator to the value the convolution
 * would have stored (binary16-rounded in fp16 runs), with the operator's
 * own shader code (shaders/elementwise.glsl), so its outputs equal the
 * two dispatches' bit for bit. */
#ifndef TEXMEM_RUNTIME_KERNELS_CONV_FUSE_H
#define TEXMEM_RUNTIME_KERNELS_CONV_FUSE_H

#include "kernel.h"

/* The fused operators of m: (*pair)[k] is the other operator of k's pair,
 * or -1; a convolution's is later, its fused operator's earlier. A second
 * element-wise operator may follow the first in the same dispatch (the one
 * reader of its output; unary, or binary with a constant): its entry is
 * the convolution, and (*pair)[n_ops + k] names it for convolution k (-1:
 * none). malloc'd, two entries an operator, owned by the caller; NULL
 * when m has no operators. *n_fused: how many operators run fused. */
texmem_status texmem__fuse_find(const texmem_model *m, int32_t **pair, size_t *n_fused,
                                texmem_error *err);

/* Convolution conv's second fused operator in texmem__fuse_find's array
 * for a model of n_ops operators, or -1. */
static inline int32_t texmem__fuse_second(const int32_t *pair, size_t n_ops, size_t conv) {
  return pair[n_ops + conv];
}

/* The model's records (rec, tensor_of: *n of them, as texmem_model_records
 * gives) for the fused graph, in place: a fused operator runs in its
 * convolution's task, so the convolution's output is gone, the operator's
 * output lives from that task on and its other operand is last read there
 * (unless a later operator reads it); still in order of first task, ids
 * renumbered. */
texmem_status texmem__fuse_records(const texmem_model *m, const int32_t *pair, texmem_record *rec,
                                   int32_t *tensor_of, size_t *n, texmem_error *err);

/* Plans with pd: on entry *rec, *tensor_of (*n of them) are the model's
 * records and *pair the fused pairs (NULL: none). The fused records are
 * kept when their plan is no larger than the model's records allow at
 * best (their max_live) or than the model's records' plan: fusion never
 * takes more memory (a fused operator's output lives beside its
 * convolution's input, which the unfused output could have replaced). On
 * return *rec, *tensor_of, *n and *plan belong to the plan kept; *pair is
 * freed and NULL, *n_fused 0, when the unfused records won. */
texmem_status texmem__fuse_plan(const texmem_model *m, int32_t **pair, size_t *n_fused,
                                texmem_record **rec, int32_t **tensor_of, size_t *n,
                                const texmem_plan_desc *pd, texmem_plan **plan,
                                texmem_error *err);

/* The program of a convolution kernel (op_conv*.comp, op_depthwise*.comp,
 * whose output stage is shaders/conv_common.glsl) with `defines` (may be
 * NULL) and its bindings: input image x (and e, a fused operator's tensor
 * operand), output y (the last fused operator's output when k->fused),
 * buffers w and b as texmem__conv_upload left them (and f, g: the fused
 * operators' constants). */
texmem_status texmem__conv_program(texmem__kernel_env *env, const texmem_model *m,
                                   const texmem_op *op, const char *file, const char *defines,
                                   const uint32_t local[3], texmem__kernel *k, texmem_error *err);

#endif

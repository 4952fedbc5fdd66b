/* The fusion passes (kernels_conv_fuse.c finds, kernels_fuse_plan.c keeps
 * a level and makes its records) and the fused programs' helpers
 * (kernels_conv_fuse_program.c). What a fusion decides, and how each fold
 * keeps outputs bit for bit: kernels_fusion.h. */
#ifndef TEXMEM_RUNTIME_KERNELS_CONV_FUSE_H
#define TEXMEM_RUNTIME_KERNELS_CONV_FUSE_H

#include "kernels_fusion.h"

/* What texmem__fuse_find may do beyond fusing at the convolution's task:
 * run a dispatch late, fold PADs, pools, depthwise convolutions, reshapes,
 * resizes, merge FULLY_CONNECTED or 1x1 convolution heads. */
enum {
  TEXMEM__FUSE_LATE = 1,
  TEXMEM__FUSE_PAD = 2,
  TEXMEM__FUSE_POOL = 4,
  TEXMEM__FUSE_INPAD = 8,
  TEXMEM__FUSE_DW = 16,
  TEXMEM__FUSE_RESHAPE = 32,
  TEXMEM__FUSE_KEEP = 64,
  TEXMEM__FUSE_RESIZE = 128,
  TEXMEM__FUSE_HEADS = 256,
  TEXMEM__FUSE_CONV_HEADS = 512
};

/* How many fusions texmem__fuse_plan tries. */
enum { TEXMEM__FUSE_LEVELS = 6 };

/* The fusion of m's operators into convolutions, as `allow` (a set of
 * TEXMEM__FUSE_*) lets it. *out is owned by the caller
 * (texmem__fusion_destroy); NULL when m has no operators. */
texmem_status texmem__fuse_find(const texmem_model *m, unsigned allow, texmem__fusion **out,
                                texmem_error *err);

void texmem__fusion_destroy(texmem__fusion *f);

/* The model's records (rec, tensor_of: *n of them, as texmem_model_records
 * gives) for the fused graph, in place: a convolution's fused output, a
 * first fused operator's with a second after it and a folded PAD's are
 * gone; every operator's reads and writes happen at its dispatch's task;
 * still in order of first task, ids renumbered. */
texmem_status texmem__fuse_records(const texmem_model *m, const texmem__fusion *f,
                                   texmem_record *rec, int32_t *tensor_of, size_t *n,
                                   texmem_error *err);

/* Plans with pd: on entry *rec, *tensor_of (*n of them) are the model's
 * records. Tries the fusion with everything (kept first outputs too: the
 * second operator's output then lives beside the convolution's inputs),
 * then without kept outputs, then the fusion with late dispatches and
 * folded PADs and pools (input PADs, reshapes and resizes read through,
 * heads merged in every try but the last) and, with `tiled` (the tiled 1x1
 * kernel runs), folded depthwise convolutions, then the same without them, then
 * without folded pools,
 * then without late dispatches, then without folded PADs, and keeps the
 * first whose plan is no larger than the model's records allow at best
 * (their max_live), else the first no larger than the model's records'
 * plan (a try whose records' lower bound is above the figure it is held
 * to is not planned): fusion never takes
 * more memory (a fused operator's output lives beside its convolution's
 * input, which the unfused output could have replaced; a late dispatch
 * keeps its input longer). On return *rec, *tensor_of, *n and *plan belong
 * to the plan kept, *fusion to it too (NULL: unfused). */
texmem_status texmem__fuse_plan(const texmem_model *m, bool tiled, texmem__fusion **fusion,
                                texmem_record **rec, int32_t **tensor_of, size_t *n,
                                const texmem_plan_desc *pd, texmem_plan **plan, texmem_error *err);

/* The defines (appended to defs) and uniforms of a unary operator fused
 * after a kernel that ends in conv_common.glsl's output stage but binds its
 * own images (op_fc.comp: k->fused; none: nothing to do), k->outputs[0]
 * then its output; a fused operator of another kind: INVALID_ARGUMENT. */
texmem_status texmem__fuse_unary_stage(texmem__kernel_env *env, const texmem_model *m,
                                       const texmem_op *op, texmem__kernel *k, char *defs,
                                       size_t cap, texmem_error *err);

/* Adds the rows and columns a folded PAD (k->in_pad, k->in_dw_pad; NULL:
 * none) puts before its input to a window's padding *pl, *pt: what the
 * kernel reading the PAD's input pads by. */
void texmem__pad_before(const texmem_model *m, const texmem_op *pad, int32_t *pl, int32_t *pt);

/* The program of a convolution kernel (op_conv*.comp, op_depthwise*.comp,
 * whose output stage is shaders/conv_common.glsl) with `defines` (may be
 * NULL) and its bindings: input image x (a folded PAD's or depthwise
 * convolution's input, or a folded MUL's full-shape operand, then s its
 * per-channel one; and e, a fused operator's tensor operand), output y
 * (the last fused operator's output when k->fused; y1 the first one's when
 * k->fused_keep), buffers w and b as
 * texmem__conv_upload left them (dw, a folded depthwise convolution's,
 * third; and f, g: the fused operators' constants). */
texmem_status texmem__conv_program(texmem__kernel_env *env, const texmem_model *m,
                                   const texmem_op *op, const char *file, const char *defines,
                                   const uint32_t local[3], texmem__kernel *k, texmem_error *err);

#endif

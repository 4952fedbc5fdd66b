/* Fusion of element-wise operators into the convolution before them
 * (kernels_fusion.h says what a fusion decides and why each fold keeps
 * outputs bit for bit), a unary operator into a FULLY_CONNECTED or
 * transposed convolution, FULLY_CONNECTED heads into one dispatch; then
 * texmem__fuse_find runs the folds after them: into convolutions' inputs
 * (kernels_fold_inputs.c, kernels_fold_squeezes.c) and of reshapes and
 * landmark copies (kernels_fold_reshapes.c). The records and the plan
 * kept: kernels_fuse_plan.c; the fused program's bindings:
 * kernels_conv_fuse_program.c. */
#include <stdio.h>

#include "kernel_env.h"
#include "kernels_conv_common.h"
#include "kernels_conv_fuse.h"
#include "kernels_util.h"

/* A constant operand op_binary.comp reads broadcast to shape t (each of
 * its aligned dims 1 or t's). */
static bool constant_fits(const texmem_tensor *o, const texmem_tensor *t) {
  if (o->type != TEXMEM_DTYPE_FLOAT32 || !o->data || o->rank > 4) return false;
  int32_t s[4];
  texmem__ew_align_bhwc(o, 4, s);
  const uint32_t ts[4] = {t->b, t->h, t->w, t->c};
  size_t n = 1;
  for (int i = 0; i < 4; i++) {
    if (s[i] < 1 || (s[i] != 1 && (uint32_t)s[i] != ts[i])) return false;
    n *= (size_t)s[i];
  }
  return o->data_size == n * sizeof(float);
}

/* Whether element-wise operator e can take tensor t's value inside a
 * fused program: one float output of t's shape, neither constant nor
 * graph input; unary, binary with an activation the kernels apply, or a
 * per-texel depthwise convolution (applied as op_depthwise.comp sums its
 * one tap). *oi: a binary operator's other operand (-1 otherwise). */
static bool elementwise_on(const texmem_model *m, const texmem_op *e, int32_t t, int32_t *oi) {
  const texmem_tensor *tt = texmem__ku_tensor(m, t);
  const texmem_tensor *y = e->n_outputs == 1 ? texmem__ku_tensor(m, e->outputs[0]) : NULL;
  *oi = -1;
  if (!tt || !y || !texmem__ku_is_float(y) || !texmem__ku_same_bhwc(y, tt) ||
      (y->flags & (TEXMEM_TENSOR_CONSTANT | TEXMEM_TENSOR_INPUT)))
    return false;
  if (e->type == TEXMEM_OP_DEPTHWISE_CONV_2D) return texmem__fuse_per_texel_depthwise(m, e, t);
  if (texmem__ew_unary_kind(e->type) >= 0) return e->n_inputs == 1;
  if (texmem__ew_binary_mode(e->type) < 0 || e->n_inputs != 2) return false;
  if (texmem__ew_has_activation(e->type) && !texmem__fuse_activation_ok(e->options.activation))
    return false;
  *oi = e->inputs[0] == t ? e->inputs[1] : e->inputs[0];
  return texmem__ku_tensor(m, *oi) != NULL;
}

/* The PAD making tensor o (as pad_of) when one operator alone reads o. */
static int32_t pad_making(const texmem_model *m, int32_t o, const int32_t *reader,
                          int32_t before[4], int32_t after[4]) {
  return o >= 0 && reader[o] >= 0 ? texmem__fuse_pad_of(m, o, before, after) : -1;
}

/* The STRIDED_SLICE making tensor o when one operator alone reads o and
 * it takes the leading channels of a float non-constant tensor (as a
 * PAD, it changes the channels only); -1 otherwise. */
static int32_t leading_channels_of(const texmem_model *m, int32_t o, const int32_t *reader) {
  int32_t q = texmem__fuse_sole_producer(m, o, reader, TEXMEM_OP_STRIDED_SLICE);
  if (q < 0) return -1;
  const texmem_op *p = texmem_model_op(m, (size_t)q);
  const texmem_tensor *x = texmem__ku_tensor(m, p->inputs[0]);
  return x && texmem__ku_is_float(x) && !(x->flags & TEXMEM_TENSOR_CONSTANT) &&
                 texmem__slice_leading_channels(m, p)
             ? q
             : -1;
}

/* The PAD making tensor o when it folds into a fused read (see
 * kernels_fusion.h): zeros after the channels only, its input of o's
 * batch and plane; or the STRIDED_SLICE taking o's channels from the
 * leading ones of such an input; -1 otherwise. */
static int32_t foldable_pad(const texmem_model *m, int32_t o, const int32_t *reader) {
  int32_t before[4], after[4], q = pad_making(m, o, reader, before, after);
  if (q < 0) return leading_channels_of(m, o, reader);
  for (int i = 0; i < 4; i++)
    if (before[i] != 0 || (i < 3 && after[i] != 0)) return -1;
  const texmem_tensor *x = texmem__ku_tensor(m, texmem_model_op(m, (size_t)q)->inputs[0]);
  const texmem_tensor *ot = texmem__ku_tensor(m, o);
  if (x->b != ot->b || x->h != ot->h || x->w != ot->w || x->c + (uint32_t)after[3] != ot->c)
    return -1;
  return q;
}

/* The MAX_POOL_2D making tensor o when it folds into a fused read (see
 * kernels_fusion.h): as sole_producer, no activation, a window of at
 * most 16 texels, its input a float rank-4 tensor of o's batch and
 * channels; -1 otherwise. */
static int32_t foldable_pool(const texmem_model *m, int32_t o, const int32_t *reader) {
  int32_t q = texmem__fuse_sole_producer(m, o, reader, TEXMEM_OP_MAX_POOL_2D);
  if (q < 0) return -1;
  const texmem_op *p = texmem_model_op(m, (size_t)q);
  const texmem_op_options *po = &p->options;
  if (p->n_inputs != 1 || po->activation != TEXMEM_ACT_NONE || po->filter_w < 1 ||
      po->filter_h < 1 || po->filter_w * po->filter_h > 16 || po->stride_w < 1 ||
      po->stride_h < 1)
    return -1;
  const texmem_tensor *x = texmem__ku_tensor(m, p->inputs[0]), *ot = texmem__ku_tensor(m, o);
  if (!x || !texmem__ku_is_float(x) || x->rank != 4 || (x->flags & TEXMEM_TENSOR_CONSTANT) ||
      x->b != ot->b || x->c != ot->c)
    return -1;
  return q;
}

/* The operators a fused operand is read through (-1: none), and whether
 * what is read is computed after the convolution. */
typedef struct operand_folds {
  int32_t pad, pool, rsz;
  bool late;
} operand_folds;

/* Operator q (-1: none) making the tensor *oi, when the dispatch reads
 * its input instead: *oi becomes that input, unless it is `avoid` (the
 * convolution's own input); q, or -1 when not taken. */
static int32_t read_operand_through(const texmem_model *m, int32_t q, int32_t avoid,
                                    int32_t *oi) {
  if (q < 0 || texmem_model_op(m, (size_t)q)->inputs[0] == avoid) return -1;
  *oi = texmem_model_op(m, (size_t)q)->inputs[0];
  return q;
}

/* How operator k2, the one reader of convolution k's output t, fuses into
 * it: for a binary operator the other operand a fitting constant or a
 * tensor of t's shape, read as it is, or (as `allow` lets) through the
 * channel PAD making it (pad) and the max pool making that (pool), or
 * through the bilinear resize making it (rsz), never of the convolution's
 * own input. The operand itself may be that input (a residual around a
 * depthwise convolution of stride 1): the program reads it through x's
 * binding (one dispatch binds a texture once). */
static bool fusable(const texmem_model *m, size_t k, size_t k2, int32_t t, const int32_t *reader,
                    unsigned allow, operand_folds *fo) {
  const texmem_op *c = texmem_model_op(m, k);
  const texmem_tensor *tt = texmem__ku_tensor(m, t);
  int32_t oi;
  *fo = (operand_folds){-1, -1, -1, false};
  if (!tt || tt->rank != 4 || !elementwise_on(m, texmem_model_op(m, k2), t, &oi)) return false;
  if (oi < 0) return true;
  const texmem_tensor *o = texmem__ku_tensor(m, oi);
  if (o->flags & TEXMEM_TENSOR_CONSTANT) return constant_fits(o, tt);
  if (!texmem__ku_is_float(o) || o->rank != 4 || !texmem__ku_same_bhwc(o, tt)) return false;
  /* What the dispatch reads: the operand, or a folded PAD's, pool's or
   * resize's input other than the convolution's own. */
  int32_t in = c->inputs[0];
  if (allow & TEXMEM__FUSE_PAD)
    fo->pad = read_operand_through(m, foldable_pad(m, oi, reader), in, &oi);
  if (allow & TEXMEM__FUSE_POOL)
    fo->pool = read_operand_through(m, foldable_pool(m, oi, reader), in, &oi);
  if (allow & TEXMEM__FUSE_RESIZE && fo->pad < 0 && fo->pool < 0)
    fo->rsz = read_operand_through(m, texmem__fuse_foldable_resize(m, oi, reader), in, &oi);
  fo->late = texmem__ku_tensor(m, oi)->producer > (int32_t)k;
  return true;
}

/* Whether operator k3, the one reader of t2 (the output of the operator
 * fused into a convolution), runs fused after it too: unary, or binary
 * with a fitting constant as its other operand, or, when tensor_ok (the
 * first operator binds no tensor: the program binds one operand), with a
 * tensor of t2's shape, read as it is or (as `allow` lets) through the
 * bilinear resize making it (*rsz); the convolution's own input is read
 * through x's binding. *src: the tensor the dispatch reads for k3 (-1:
 * none). */
static bool fusable_second(const texmem_model *m, size_t k3, int32_t t2,
                           const int32_t *reader, unsigned allow, bool tensor_ok, int32_t *rsz,
                           int32_t *src) {
  const texmem_tensor *tt = texmem__ku_tensor(m, t2);
  int32_t oi;
  *rsz = *src = -1;
  if (!tt || !(tt->flags & TEXMEM_TENSOR_INTERMEDIATE) ||
      !elementwise_on(m, texmem_model_op(m, k3), t2, &oi))
    return false;
  if (oi < 0) return true;
  const texmem_tensor *o = texmem__ku_tensor(m, oi);
  if (o->flags & TEXMEM_TENSOR_CONSTANT) return constant_fits(o, tt);
  if (!tensor_ok || !texmem__ku_is_float(o) || o->rank != 4 || !texmem__ku_same_bhwc(o, tt) ||
      oi == t2)
    return false;
  int32_t q = allow & TEXMEM__FUSE_RESIZE ? texmem__fuse_foldable_resize(m, oi, reader) : -1;
  if (q >= 0) {
    *rsz = q;
    oi = texmem_model_op(m, (size_t)q)->inputs[0];
  }
  *src = oi;
  return true;
}

/* The one operator reading each tensor once (-1: none, -2: several) at
 * reader[t]; the first operator reading it at reader[n_tensors + t]. */
static void single_readers(const texmem_model *m, int32_t *reader, size_t n_tensors) {
  for (size_t i = 0; i < 2 * n_tensors; i++) reader[i] = -1;
  for (size_t k = 0; k < texmem_model_op_count(m); k++) {
    const texmem_op *op = texmem_model_op(m, k);
    for (size_t j = 0; j < op->n_inputs; j++) {
      int32_t t = op->inputs[j];
      if (t < 0 || (size_t)t >= n_tensors) continue;
      reader[t] = reader[t] == -1 ? (int32_t)k : -2;
      if (reader[n_tensors + t] == -1) reader[n_tensors + t] = (int32_t)k;
    }
  }
}

void texmem__fusion_destroy(texmem__fusion *f) {
  if (!f) return;
  free(f->head);
  free(f);
}

static texmem__fusion *fusion_new(size_t n_ops) {
  texmem__fusion *f = calloc(1, sizeof *f);
  int32_t *v = malloc(TEXMEM__FUSION_ARRAYS * n_ops * sizeof *v);
  if (!f || !v) {
    free(f);
    free(v);
    return NULL;
  }
  f->n_ops = n_ops;
  f->head = v;
  f->task = v + n_ops;
  f->first = v + 2 * n_ops;
  f->second = v + 3 * n_ops;
  f->pad = v + 4 * n_ops;
  f->pool = v + 5 * n_ops;
  f->inpad = v + 6 * n_ops;
  f->indw = v + 7 * n_ops;
  f->through = v + 8 * n_ops;
  f->into = v + 9 * n_ops;
  f->inmul = v + 10 * n_ops;
  f->keep = v + 11 * n_ops;
  f->rsz = v + 12 * n_ops;
  f->inrsz = v + 13 * n_ops;
  f->heads = v + 14 * n_ops;
  f->ind2s = v + 15 * n_ops;
  f->inaff = v + 16 * n_ops;
  f->inadd = v + 17 * n_ops;
  f->insq = v + 18 * n_ops;
  f->sqadd = v + 19 * n_ops;
  for (size_t k = 0; k < n_ops; k++) {
    f->head[k] = f->first[k] = f->second[k] = f->pad[k] = f->pool[k] = f->inpad[k] = -1;
    f->indw[k] = f->through[k] = f->into[k] = f->inmul[k] = -1;
    f->rsz[k] = f->inrsz[k] = f->heads[k] = f->ind2s[k] = f->inaff[k] = f->inadd[k] = -1;
    f->insq[k] = f->sqadd[k] = -1;
    f->keep[k] = 0;
    f->task[k] = (int32_t)k;
  }
  return f;
}

/* Resize q, read through by convolution k's dispatch at `task`: not run
 * (as a folded depthwise convolution: not in n_fused). */
static void read_through_resize(texmem__fusion *f, size_t k, int32_t q, int32_t task) {
  f->rsz[k] = q;
  f->head[q] = (int32_t)k;
  f->task[q] = task;
  f->n_rsz++;
}

/* The operator after convolution k's first fused one k2 that joins the
 * dispatch at `task` (see fuse_group), if any: it reads k2's output alone,
 * or (keep) is the first of several to read it, that output then stored
 * too (hand_recrop's PRELU after a residual ADD that a pool reads too). A
 * tensor it reads computed after the convolution moves the dispatch to
 * its task. */
static void fuse_second(const texmem_model *m, texmem__fusion *f, const int32_t *reader, size_t k,
                        size_t k2, int32_t task, unsigned allow) {
  int32_t t = texmem_model_op(m, k)->outputs[0], t2 = texmem_model_op(m, k2)->outputs[0];
  int32_t rsz, src;
  size_t n_tensors = texmem_model_tensor_count(m);
  bool several = reader[t2] == -2 && (allow & TEXMEM__FUSE_KEEP);
  bool tensor_ok = !several && !texmem__fuse_binds_tensor(m, texmem_model_op(m, k2), t);
  int32_t k3 = several ? reader[n_tensors + t2] : reader[t2];
  if (k3 <= (int32_t)k2 || f->head[k3] != -1 ||
      !fusable_second(m, (size_t)k3, t2, reader, allow, tensor_ok, &rsz, &src))
    return;
  if (src >= 0 && texmem__ku_tensor(m, src)->producer > task) { /* computed after: run at k3 */
    if (!(allow & TEXMEM__FUSE_LATE)) return;
    task = f->task[k] = f->task[k2] = k3;
  }
  f->second[k] = k3;
  f->keep[k] = several;
  f->n_kept += several;
  texmem__fuse_join(f, k, k3, task);
  if (rsz >= 0) read_through_resize(f, k, rsz, task);
}

/* Convolution k's fused operators (first k2, its operand read through
 * fo's folds; a second one after it), and where they run. */
static void fuse_group(const texmem_model *m, texmem__fusion *f, const int32_t *reader, size_t k,
                       size_t k2, const operand_folds *fo, unsigned allow) {
  int32_t task = fo->late ? (int32_t)k2 : (int32_t)k;
  f->head[k] = (int32_t)k;
  f->task[k] = task;
  f->first[k] = (int32_t)k2;
  texmem__fuse_join(f, k, (int32_t)k2, task);
  f->pad[k] = fo->pad;
  if (fo->pad >= 0) texmem__fuse_join(f, k, fo->pad, task);
  f->pool[k] = fo->pool;
  if (fo->pool >= 0) texmem__fuse_join(f, k, fo->pool, task);
  if (fo->rsz >= 0) read_through_resize(f, k, fo->rsz, task);
  fuse_second(m, f, reader, k, k2, task, allow);
}

/* Whether operator k takes a unary operator in its output stage: a
 * FULLY_CONNECTED whose rows lie along the input's channels (op_fc.comp),
 * a transposed convolution (op_transpose_conv.comp), in no dispatch yet. */
static bool takes_unary(const texmem_model *m, const texmem__fusion *f, size_t k) {
  if (texmem__fuse_unclaimed(m, f, k, TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS, 1) ||
      texmem__fuse_unclaimed(m, f, k, TEXMEM_OP_TRANSPOSE_CONV, 1))
    return true;
  const texmem_op *op = texmem__fuse_unclaimed(m, f, k, TEXMEM_OP_FULLY_CONNECTED, 2);
  const texmem_tensor *x = op ? texmem__ku_tensor(m, op->inputs[0]) : NULL;
  const texmem_tensor *w = op ? texmem__ku_tensor(m, op->inputs[1]) : NULL;
  return x && w && w->rank == 2 && (uint32_t)w->shape[1] == x->c;
}

/* FULLY_CONNECTED layers and transposed convolutions (takes_unary) whose
 * output one unary element-wise operator alone reads, once (a
 * classifier's LOGISTIC, a mask's): the operator runs in their dispatch. */
static void fuse_unary_after(const texmem_model *m, texmem__fusion *f, const int32_t *reader) {
  for (size_t k = 0; k < f->n_ops; k++) {
    if (!takes_unary(m, f, k)) continue;
    int32_t t = texmem_model_op(m, k)->outputs[0], oi;
    const texmem_tensor *tt = texmem__ku_tensor(m, t);
    if (!tt || !(tt->flags & TEXMEM_TENSOR_INTERMEDIATE) || reader[t] <= (int32_t)k ||
        f->head[reader[t]] != -1 ||
        texmem__ew_unary_kind(texmem_model_op(m, (size_t)reader[t])->type) < 0 ||
        !elementwise_on(m, texmem_model_op(m, (size_t)reader[t]), t, &oi))
      continue;
    f->head[k] = (int32_t)k;
    f->first[k] = reader[t];
    texmem__fuse_join(f, k, reader[t], (int32_t)k);
  }
}

/* Whether FULLY_CONNECTED k reads its input by rows of its channels
 * (op_fc.comp), in no dispatch but its own, its output float. */
static bool fc_rowwise(const texmem_model *m, const texmem__fusion *f, size_t k) {
  const texmem_op *op = texmem_model_op(m, k);
  if (op->type != TEXMEM_OP_FULLY_CONNECTED || op->n_inputs < 2 || op->n_outputs != 1 ||
      (f->head[k] != -1 && f->head[k] != (int32_t)k) || f->task[k] != (int32_t)k)
    return false;
  const texmem_tensor *x = texmem__ku_tensor(m, op->inputs[0]),
                      *w = texmem__ku_tensor(m, op->inputs[1]);
  const texmem_tensor *y = texmem__ku_tensor(m, op->outputs[0]);
  return x && w && y && texmem__ku_is_float(x) && texmem__ku_is_float(y) && w->rank == 2 &&
         (uint32_t)w->shape[1] == x->c;
}

/* FULLY_CONNECTED layers reading one input by rows (a landmark model's
 * heads: hand_landmark's four, the 3-D detectors' two), with their fused
 * unary operators, up to TEXMEM__KERNEL_MAX_HEADS of them, run as one dispatch at
 * the first one's task (heads). */
static void merge_fully_connected(const texmem_model *m, texmem__fusion *f) {
  for (size_t k = 0; k < f->n_ops; k++) {
    if (!fc_rowwise(m, f, k)) continue;
    const texmem_op *op = texmem_model_op(m, k);
    int32_t last = (int32_t)k, n = 1;
    for (size_t j = k + 1; j < f->n_ops && n < TEXMEM__KERNEL_MAX_HEADS; j++) {
      const texmem_op *o = texmem_model_op(m, j);
      if (!fc_rowwise(m, f, j) || o->inputs[0] != op->inputs[0] ||
          o->options.keep_dims != op->options.keep_dims)
        continue;
      f->heads[last] = (int32_t)j;
      last = (int32_t)j;
      n++;
      f->head[j] = (int32_t)j;
      f->task[j] = (int32_t)k;
      if (f->first[j] >= 0) f->task[f->first[j]] = (int32_t)k;
      f->n_heads++;
    }
    if (n > 1) f->head[k] = (int32_t)k;
  }
}

texmem_status texmem__fuse_find(const texmem_model *m, unsigned allow, texmem__fusion **out,
                                texmem_error *err) {
  *out = NULL;
  size_t n_ops = texmem_model_op_count(m), n_tensors = texmem_model_tensor_count(m);
  if (!n_ops) return TEXMEM_STATUS_OK;
  texmem__fusion *f = fusion_new(n_ops);
  int32_t *reader = malloc((n_tensors ? 2 * n_tensors : 1) * sizeof *reader);
  if (!f || !reader) {
    texmem__fusion_destroy(f);
    free(reader);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  single_readers(m, reader, n_tensors);
  /* Dispatches at their convolution's task first: an operator two
   * convolutions could take (an ADD of both) goes to the later one, whose
   * dispatch need not wait. */
  for (int late = 0; late <= ((allow & TEXMEM__FUSE_LATE) != 0); late++)
    for (size_t k = 0; k < n_ops; k++) {
      const texmem_op *op = texmem_model_op(m, k);
      if ((op->type != TEXMEM_OP_CONV_2D && op->type != TEXMEM_OP_DEPTHWISE_CONV_2D) ||
          op->n_outputs != 1 || f->head[k] != -1)
        continue;
      int32_t t = op->outputs[0];
      operand_folds fo;
      const texmem_tensor *tt = texmem__ku_tensor(m, t);
      if (!tt || !(tt->flags & TEXMEM_TENSOR_INTERMEDIATE) || reader[t] <= (int32_t)k ||
          f->head[reader[t]] != -1)
        continue;
      size_t k2 = (size_t)reader[t];
      if (!fusable(m, k, k2, t, reader, allow, &fo) || fo.late != (late != 0)) continue;
      fuse_group(m, f, reader, k, k2, &fo, allow);
    }
  fuse_unary_after(m, f, reader);
  if (allow & TEXMEM__FUSE_HEADS) merge_fully_connected(m, f);
  texmem__fold_inputs(m, f, reader, allow & TEXMEM__FUSE_INPAD, allow & TEXMEM__FUSE_DW,
                      allow & TEXMEM__FUSE_RESIZE);
  if (allow & TEXMEM__FUSE_RESHAPE) texmem__fold_reshapes(m, f, reader);
  if (allow & TEXMEM__FUSE_CONV_HEADS) texmem__merge_conv_heads(m, f);
  free(reader);
  *out = f;
  return TEXMEM_STATUS_OK;
}

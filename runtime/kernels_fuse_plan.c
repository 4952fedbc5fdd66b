/* Which fusion a runtime keeps (texmem__fuse_plan) and the usage records
 * it plans (texmem__fuse_records). texmem__fuse_find (kernels_conv_fuse.c)
 * can fuse and fold at several levels, from everything down to nothing;
 * each level's records drop the tensors its dispatches never store and
 * stretch what a dispatch reads to the task it runs in. Fusing shortens
 * most lifetimes but lengthens some (a late dispatch keeps the
 * convolution's input alive; a folded operator's input lives until its
 * reader), so more fusion is not always less memory: the first level whose
 * plan fits the unfused max_live is kept, else the first no larger than the
 * unfused plan, else none. Lower bounds rule a level out before it is
 * planned. */
#include <stdlib.h>
#include <string.h>

#include "kernels_conv_fuse.h"
#include "kernels_util.h"

/* The task operator k's reads and writes happen in. */
static int64_t task_of(const texmem__fusion *f, size_t k) { return f->task[k]; }

/* Whether tensor `of`, made by operator p, is never stored: a fused
 * convolution's output, a first fused operator's with a second after it,
 * a folded PAD's, pool's, depthwise convolution's or resize's, a reshape's
 * or MUL's read through, a squeeze's, the input of a reshape p stores
 * into. */
static bool unstored(const texmem_model *m, const texmem__fusion *f, int32_t of, int32_t p) {
  if (p >= 0 && f->into[p] >= 0 && texmem_model_op(m, (size_t)f->into[p])->inputs[0] == of)
    return true;
  if (p < 0 || f->head[p] < 0) return false;
  if (f->through[p] >= 0) return true;
  int32_t c = f->head[p];
  return (p == c && f->first[c] >= 0) ||
         (p == f->first[c] && f->second[c] >= 0 && !f->keep[c]) ||
         p == f->pad[c] || p == f->pool[c] || p == f->inpad[c] || p == f->indw[c] ||
         p == f->inmul[c] || p == f->rsz[c] || p == f->inrsz[c] || p == f->ind2s[c] ||
         p == f->inaff[c] || p == f->inadd[c] || texmem__squeezed(m, f, c, p);
}

texmem_status texmem__fuse_records(const texmem_model *m, const texmem__fusion *f,
                                   texmem_record *rec, int32_t *tensor_of, size_t *n,
                                   texmem_error *err) {
  size_t n_tensors = texmem_model_tensor_count(m);
  int64_t *last = malloc((n_tensors ? n_tensors : 1) * sizeof *last);
  if (!last) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < n_tensors; i++) last[i] = -1;
  for (size_t k = 0; k < texmem_model_op_count(m); k++) {
    const texmem_op *op = texmem_model_op(m, k);
    for (size_t j = 0; j < op->n_inputs; j++) {
      int32_t t = op->inputs[j];
      if (t >= 0 && (size_t)t < n_tensors && task_of(f, k) > last[t]) last[t] = task_of(f, k);
    }
  }
  size_t kept = 0;
  for (size_t r = 0; r < *n; r++) {
    int32_t of = tensor_of[r], p = texmem__ku_tensor(m, of)->producer;
    if (unstored(m, f, of, p)) continue;
    texmem_record x = rec[r];
    if (p >= 0) {
      x.first_task = (uint64_t)task_of(f, (size_t)p);
      x.last_task = last[of] > (int64_t)x.first_task ? (uint64_t)last[of] : x.first_task;
    }
    /* Insertion keeps the order of first task (a fused output moves back
     * past the few records its operators' gap holds). */
    size_t at = kept;
    while (at > 0 && rec[at - 1].first_task > x.first_task) {
      rec[at] = rec[at - 1];
      tensor_of[at] = tensor_of[at - 1];
      at--;
    }
    rec[at] = x;
    tensor_of[at] = of;
    kept++;
  }
  free(last);
  for (size_t r = 0; r < kept; r++) rec[r].id = r;
  *n = kept;
  return TEXMEM_STATUS_OK;
}

/* A fusion tried: its records, their lower bound for the plan's kind, and
 * (once made) their plan. */
typedef struct fuse_try {
  texmem__fusion *f;
  texmem_record *rec;
  int32_t *of;
  size_t n;
  uint64_t bound;
  texmem_plan *plan;
} fuse_try;

/* t's fused records (malloc'd copies of rec, tensor_of) and their bound. */
static texmem_status fused_records(const texmem_model *m, const texmem_record *rec,
                                   const int32_t *tensor_of, size_t n, texmem_plan_kind kind,
                                   fuse_try *t, texmem_error *err) {
  t->rec = malloc((n ? n : 1) * sizeof *t->rec);
  t->of = malloc((n ? n : 1) * sizeof *t->of);
  if (!t->rec || !t->of) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  if (n) {
    memcpy(t->rec, rec, n * sizeof *rec);
    memcpy(t->of, tensor_of, n * sizeof *tensor_of);
  }
  t->n = n;
  texmem_bounds b;
  texmem_status st = texmem__fuse_records(m, t->f, t->rec, t->of, &t->n, err);
  if (!st) st = texmem_lower_bounds(t->rec, t->n, 3, &b, err);
  if (!st) t->bound = kind == TEXMEM_PLAN_OBJECTS ? b.positional_max : b.max_live;
  return st;
}

static bool same_fusion(const texmem__fusion *a, const texmem__fusion *b) {
  return a->n_fused == b->n_fused && a->n_dw == b->n_dw && a->n_rs == b->n_rs &&
         a->n_mul == b->n_mul && a->n_kept == b->n_kept && a->n_rsz == b->n_rsz &&
         a->n_heads == b->n_heads &&
         !memcmp(a->head, b->head, TEXMEM__FUSION_ARRAYS * a->n_ops * sizeof *a->head);
}

static void try_free(fuse_try *t) {
  texmem__fusion_destroy(t->f);
  free(t->rec);
  free(t->of);
  texmem_plan_destroy(t->plan);
  memset(t, 0, sizeof *t);
}

/* The fusions to try, most first, each with its records and bound; a try
 * that fuses nothing, or what the one before it fused, is left out. */
static texmem_status fuse_tries(const texmem_model *m, unsigned allow, const texmem_record *rec,
                                const int32_t *tensor_of, size_t n, texmem_plan_kind kind,
                                fuse_try *tries, size_t *done, texmem_error *err) {
  enum {
    IN = TEXMEM__FUSE_INPAD | TEXMEM__FUSE_RESHAPE | TEXMEM__FUSE_RESIZE | TEXMEM__FUSE_HEADS |
         TEXMEM__FUSE_CONV_HEADS,
    ALL = TEXMEM__FUSE_LATE | TEXMEM__FUSE_PAD | TEXMEM__FUSE_POOL | IN
  };
  static const unsigned levels[TEXMEM__FUSE_LEVELS] = {
      ALL | TEXMEM__FUSE_DW | TEXMEM__FUSE_KEEP, ALL | TEXMEM__FUSE_DW, ALL,
      TEXMEM__FUSE_LATE | TEXMEM__FUSE_PAD | IN, TEXMEM__FUSE_PAD | IN, 0};
  texmem_status st = TEXMEM_STATUS_OK;
  *done = 0;
  for (int l = 0; l < TEXMEM__FUSE_LEVELS && !st; l++) {
    fuse_try *t = &tries[*done];
    st = texmem__fuse_find(m, levels[l] & allow, &t->f, err);
    if (st || !t->f ||
        !(t->f->n_fused + t->f->n_dw + t->f->n_rs + t->f->n_mul + t->f->n_rsz + t->f->n_heads) ||
        (*done && same_fusion(t->f, tries[*done - 1].f))) {
      try_free(t);
      continue;
    }
    (*done)++;
    st = fused_records(m, rec, tensor_of, n, kind, t, err);
  }
  return st;
}

texmem_status texmem__fuse_plan(const texmem_model *m, bool tiled, texmem__fusion **fusion,
                                texmem_record **rec, int32_t **tensor_of, size_t *n,
                                const texmem_plan_desc *pd, texmem_plan **plan, texmem_error *err) {
  texmem__fusion_destroy(*fusion);
  *fusion = NULL;
  fuse_try tries[TEXMEM__FUSE_LEVELS] = {{0}};
  texmem_bounds b;
  size_t done = 0, kept = TEXMEM__FUSE_LEVELS;
  texmem_status st = texmem_lower_bounds(*rec, *n, 3, &b, err);
  /* Folded depthwise convolutions and merged 1x1 heads: tiled kernels only. */
  unsigned allow = tiled ? ~0u : ~(unsigned)(TEXMEM__FUSE_DW | TEXMEM__FUSE_CONV_HEADS);
  if (!st) st = fuse_tries(m, allow, *rec, *tensor_of, *n, pd->kind, tries, &done, err);
  /* The first within the unfused max_live; a try whose bound is above it
   * cannot be, and is planned only if the next step needs it. */
  for (size_t i = 0; i < done && !st && kept == TEXMEM__FUSE_LEVELS; i++) {
    if (tries[i].bound > b.max_live) continue;
    st = texmem_plan_create(tries[i].rec, tries[i].n, 3, pd, &tries[i].plan, err);
    if (!st && texmem_plan_total(tries[i].plan) <= b.max_live) kept = i;
  }
  /* Else the first no larger than the unfused plan. */
  texmem_plan *up = NULL;
  if (!st && kept == TEXMEM__FUSE_LEVELS) {
    st = texmem_plan_create(*rec, *n, 3, pd, &up, err);
    for (size_t i = 0; i < done && !st && kept == TEXMEM__FUSE_LEVELS; i++) {
      if (tries[i].bound > texmem_plan_total(up)) continue;
      if (!tries[i].plan)
        st = texmem_plan_create(tries[i].rec, tries[i].n, 3, pd, &tries[i].plan, err);
      if (!st && texmem_plan_total(tries[i].plan) <= texmem_plan_total(up)) kept = i;
    }
  }
  if (!st && kept < TEXMEM__FUSE_LEVELS) {
    fuse_try *t = &tries[kept];
    free(*rec);
    free(*tensor_of);
    *rec = t->rec;
    *tensor_of = t->of;
    *n = t->n;
    *plan = t->plan;
    *fusion = t->f;
    memset(t, 0, sizeof *t);
  } else if (!st) {
    *plan = up;
    up = NULL;
  }
  texmem_plan_destroy(up);
  for (int i = 0; i < TEXMEM__FUSE_LEVELS; i++) try_free(&tries[i]);
  return st;
}

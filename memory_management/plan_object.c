/* The plan object (struct texmem_plan, internal.h): its allocation, its
 * destruction and the public accessors. Calls nothing of the planner. */
#include <string.h>

#include "internal.h"

texmem_plan *texmem__plan_alloc(size_t n, size_t n_objects) {
  texmem_plan *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  size_t m = n ? n : 1, mo = n_objects ? n_objects : 1;
  p->object_dims = calloc(mo, sizeof *p->object_dims);
  p->object_size = calloc(mo, sizeof *p->object_size);
  p->object_of = calloc(m, sizeof *p->object_of);
  p->offset = calloc(m, sizeof *p->offset);
  if (!p->object_dims || !p->object_size || !p->object_of || !p->offset) {
    texmem_plan_destroy(p);
    return NULL;
  }
  p->n_tensors = n;
  p->n_objects = n_objects;
  return p;
}

void texmem__kept_free(texmem__kept *k) {
  if (!k) return;
  for (unsigned s = 0; s < TEXMEM_STRATEGY_COUNT_; s++) {
    free(k->object_of[s]);
    free(k->offset[s]);
  }
  free(k);
}

void texmem_plan_destroy(texmem_plan *p) {
  if (!p) return;
  free(p->object_dims);
  free(p->object_size);
  free(p->object_of);
  free(p->offset);
  free(p->fixed);
  texmem__kept_free(p->kept);
  free(p);
}

texmem_plan_kind texmem_plan_get_kind(const texmem_plan *p) { return p->kind; }
texmem_strategy texmem_plan_get_strategy(const texmem_plan *p) { return p->strategy; }
texmem_layout texmem_plan_get_layout(const texmem_plan *p) { return p->layout; }
uint64_t texmem_plan_total(const texmem_plan *p) { return p->total; }
size_t texmem_plan_tensor_count(const texmem_plan *p) { return p->n_tensors; }
size_t texmem_plan_object_count(const texmem_plan *p) { return p->n_objects; }

void texmem_plan_object_dims(const texmem_plan *p, size_t o, uint64_t dims[3]) {
  if (o >= p->n_objects) {
    dims[0] = dims[1] = dims[2] = 0;
    return;
  }
  memcpy(dims, p->object_dims[o], 3 * sizeof *dims);
}

uint64_t texmem_plan_object_size(const texmem_plan *p, size_t o) {
  return o < p->n_objects ? p->object_size[o] : 0;
}

size_t texmem_plan_tensor_object(const texmem_plan *p, size_t t) {
  return t < p->n_tensors && (p->kind == TEXMEM_PLAN_OBJECTS || p->layout == TEXMEM_LAYOUT_LINEAR)
             ? p->object_of[t]
             : 0;
}

uint64_t texmem_plan_tensor_offset(const texmem_plan *p, size_t t) {
  return t < p->n_tensors && p->kind == TEXMEM_PLAN_OFFSETS ? p->offset[t] : 0;
}

uint64_t texmem_plan_tensor_base_row(const texmem_plan *p, size_t t) {
  return p && t < p->n_tensors && p->kind == TEXMEM_PLAN_OFFSETS &&
                 p->layout == TEXMEM_LAYOUT_LINEAR
             ? p->offset[t]
             : 0;
}

uint64_t texmem_plan_linear_width(const texmem_plan *p) { return p->linear_width; }
bool texmem_plan_is_optimal(const texmem_plan *p) { return p->optimal; }
uint64_t texmem_plan_bound(const texmem_plan *p) { return p->bound; }

texmem_fit texmem_plan_fits(const texmem_plan *p) {
  if (!p->budget) return TEXMEM_FIT_NO_BUDGET;
  if (p->total <= p->budget) return TEXMEM_FIT_FITS;
  return p->bound > p->budget ? TEXMEM_FIT_DOES_NOT_FIT : TEXMEM_FIT_UNKNOWN;
}

texmem_strategy_report texmem_plan_strategy_report(const texmem_plan *p, texmem_strategy s) {
  texmem_strategy_report r;
  memset(&r, 0, sizeof r);
  if (p && (unsigned)s < TEXMEM_STRATEGY_COUNT_) r = p->reports[s];
  return r;
}

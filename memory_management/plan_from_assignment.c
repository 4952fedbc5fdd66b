/* texmem_plan_from_assignment: a caller's assignment made into a plan,
 * object dims and totals derived here, then validated like any plan. */
#include <string.h>

#include "internal.h"

static uint64_t rec_vol(const texmem_record *r, unsigned dims) {
  uint64_t v = 1;
  for (unsigned k = 0; k < dims; k++) v = texmem__mul_sat(v, r->dims[k]);
  return v;
}

static texmem_status check_args(const texmem_record *rec, size_t n, unsigned dims,
                                const texmem_plan_assignment *a, texmem_plan **out,
                                texmem_error *err) {
  if (!out || !a || (n && !rec))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "records, assignment and out needed");
  if (dims < 1 || dims > 3)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "dims %u (1, 2 or 3)", dims);
  if (a->kind != TEXMEM_PLAN_OBJECTS && a->kind != TEXMEM_PLAN_OFFSETS)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "unknown plan kind %d", (int)a->kind);
  if (a->layout != TEXMEM_LAYOUT_NATURAL && a->layout != TEXMEM_LAYOUT_LINEAR)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "unknown layout %d", (int)a->layout);
  if (a->layout == TEXMEM_LAYOUT_LINEAR && (dims < 2 || a->linear_width == 0))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "the linear layout needs 2-D or 3-D records and a linear_width");
  if (n && a->kind == TEXMEM_PLAN_OBJECTS && !a->object_of)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "objects assignment without object_of");
  if (n && a->kind == TEXMEM_PLAN_OFFSETS && !a->offset)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "offsets assignment without offset");
  bool natural_offsets = a->kind == TEXMEM_PLAN_OFFSETS && a->layout == TEXMEM_LAYOUT_NATURAL;
  if (natural_offsets && dims != 1)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "an offsets plan of %u-D records needs the linear layout", dims);
  if (a->fixed_offsets && !natural_offsets)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "fixed_offsets applies to natural offsets plans only");
  if (natural_offsets && a->object_count > 1)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "object_count %zu: a natural offsets plan has one arena", a->object_count);
  /* More objects than tensors would only be empty ones; refusing them also
   * bounds what the plan allocates. */
  if (a->object_count > n)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "object_count %zu, but %zu tensors can use at most %zu objects",
                        a->object_count, n, n);
  if (n && a->object_dims && !a->object_count && !natural_offsets)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "object_dims needs object_count (how many entries it has)");
  /* With object_count given, an object_of past it is the validator's to
   * name; without, the count comes from object_of and must stay bounded. */
  for (size_t i = 0; a->object_of && !a->object_count && i < n; i++)
    if (a->object_of[i] >= n)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                          "tensor %zu: object %zu, but %zu tensors can use at most %zu objects", i,
                          a->object_of[i], n, n);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_plan_from_assignment(const texmem_record *rec, size_t n, unsigned dims,
                                          const texmem_plan_assignment *a, texmem_plan **out,
                                          texmem_error *err) {
  texmem_status st = check_args(rec, n, dims, a, out, err);
  if (st) return st;
  *out = NULL;
  bool linear = a->layout == TEXMEM_LAYOUT_LINEAR;
  bool offsets = a->kind == TEXMEM_PLAN_OFFSETS;
  bool one_arena = offsets && !linear;
  size_t k = 1; /* linear offsets with object_of NULL: texture 0 */
  if (n == 0) k = 0;
  else if (a->object_count) k = a->object_count;
  for (size_t i = 0; a->object_of && !a->object_count && i < n && !one_arena; i++)
    if (a->object_of[i] + 1 > k) k = a->object_of[i] + 1;
  texmem_plan *p = texmem__plan_alloc(n, k);
  if (!p) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  p->kind = a->kind;
  p->strategy = TEXMEM_STRATEGY_NAIVE;
  p->layout = a->layout;
  p->dims = dims;
  p->alignment = offsets && a->alignment ? a->alignment : 1;
  p->linear_width = linear ? a->linear_width : 0;
  for (int j = 0; j < 3; j++) p->max_dims[j] = a->max_dims[j];
  for (size_t i = 0; i < n; i++) {
    size_t o = a->object_of && !one_arena ? a->object_of[i] : 0;
    p->object_of[i] = o;
    if (offsets) p->offset[i] = a->offset[i];
    if (a->object_dims || o >= k) continue; /* dims given; a missing object */
    uint64_t *od = p->object_dims[o];
    uint64_t v = rec_vol(&rec[i], dims);
    if (offsets) {
      uint64_t end = texmem__add_sat(a->offset[i], linear ? texmem__rows_of(v, a->linear_width, true) : v);
      od[linear ? 1 : 0] = texmem__max_u64(od[linear ? 1 : 0], end);
    } else if (linear) {
      od[1] = texmem__max_u64(od[1], texmem__rows_of(v, a->linear_width, false));
    } else {
      for (unsigned j = 0; j < dims; j++)
        od[j] = texmem__max_u64(od[j], rec[i].dims[j] ? rec[i].dims[j] : 1);
    }
  }
  if (a->object_dims) {
    memcpy(p->object_dims, a->object_dims, k * sizeof *p->object_dims);
  } else {
    /* Dimensions no tensor sets are 1; linear textures are W wide. */
    for (size_t o = 0; o < k; o++)
      for (int j = 0; j < 3; j++) {
        uint64_t *d = &p->object_dims[o][j];
        if (linear && j == 0) *d = a->linear_width;
        else if (!*d && !(j == (linear ? 1 : 0) && (offsets || linear))) *d = 1;
      }
  }
  /* The total is always derived: the sum of the object sizes (one arena
   * for natural offsets). */
  uint64_t total = 0;
  for (size_t o = 0; o < k; o++) {
    p->object_size[o] = texmem__vol_sat(p->object_dims[o]);
    total = texmem__add_sat(total, p->object_size[o]);
  }
  p->total = total;
  if (a->fixed_offsets && n) {
    p->fixed = malloc(n * sizeof *p->fixed);
    if (!p->fixed) {
      texmem_plan_destroy(p);
      return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    }
    memcpy(p->fixed, a->fixed_offsets, n * sizeof *p->fixed);
  }
  if (total == UINT64_MAX) st = texmem__fail(err, TEXMEM_STATUS_OVERFLOW, "plan total overflows");
  if (!st) st = texmem_plan_validate(rec, n, dims, p, err);
  if (st) {
    texmem_plan_destroy(p);
    return st;
  }
  *out = p;
  return TEXMEM_STATUS_OK;
}

/* A natural offsets plan of kept offsets (any dims: the arena holds
 * volumes, as texmem_plan_create plans them), validated. */
static texmem_status offsets_candidate(const texmem_plan *best, const texmem_record *rec,
                                       size_t n, unsigned dims, const uint64_t *off,
                                       texmem_plan **out, texmem_error *err) {
  texmem_plan *p = texmem__plan_alloc(n, 1);
  if (!p || (best->fixed && !(p->fixed = malloc((n ? n : 1) * sizeof *p->fixed)))) {
    texmem_plan_destroy(p);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  uint64_t t = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t v = 1;
    for (unsigned k = 0; k < dims; k++) v = texmem__mul_sat(v, rec[i].dims[k]);
    p->offset[i] = off[i];
    t = texmem__max_u64(t, texmem__add_sat(off[i], v));
  }
  if (best->fixed) memcpy(p->fixed, best->fixed, n * sizeof *p->fixed);
  p->total = p->object_dims[0][0] = p->object_size[0] = t;
  p->object_dims[0][1] = p->object_dims[0][2] = 1;
  p->kind = TEXMEM_PLAN_OFFSETS;
  p->layout = TEXMEM_LAYOUT_NATURAL;
  p->dims = dims;
  p->alignment = best->alignment;
  memcpy(p->max_dims, best->max_dims, sizeof p->max_dims);
  texmem_status st = texmem_plan_validate(rec, n, dims, p, err);
  if (st) {
    texmem_plan_destroy(p);
    return st;
  }
  *out = p;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_plan_candidate(const texmem_plan *best, const texmem_record *records,
                                    size_t count, unsigned dims, texmem_strategy s,
                                    texmem_plan **out, texmem_error *err) {
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!best) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "best is NULL");
  if (count && !records) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "records is NULL");
  const texmem__kept *k = best->kept;
  bool objects = best->kind == TEXMEM_PLAN_OBJECTS;
  if ((unsigned)s >= TEXMEM_STRATEGY_COUNT_ || !k || !(objects ? k->object_of[s] : k->offset[s]))
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                        "the plan keeps no plan of strategy %s (keep_candidates, and BEST "
                        "planned it?)",
                        texmem_strategy_name(s));
  if (count != best->n_tensors || dims != best->dims)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "the plan is for %zu records of %u dims, given %zu of %u",
                        best->n_tensors, best->dims, count, dims);
  texmem_plan *p;
  texmem_status st;
  if (objects) {
    texmem_plan_assignment a = {.layout = best->layout, .linear_width = best->linear_width,
                                .object_of = k->object_of[s], .object_count = k->n_objects[s]};
    memcpy(a.max_dims, best->max_dims, sizeof a.max_dims);
    st = texmem_plan_from_assignment(records, count, dims, &a, &p, err);
  } else {
    st = offsets_candidate(best, records, count, dims, k->offset[s], &p, err);
  }
  if (st) return st;
  p->strategy = s;
  p->budget = best->budget;
  p->reports[s] = best->reports[s];
  if (!objects) {
    p->bound = k->bound[s];
    p->optimal = k->optimal[s] || p->total <= p->bound;
  }
  *out = p;
  return TEXMEM_STATUS_OK;
}

/* Validator: checks a plan against its records, independently of how the
 * plan was made. */
#include <string.h>

#include "internal.h"

typedef struct span {
  uint64_t first, last;
  size_t tensor;
  size_t object;
} span;

static int cmp_span(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->object != y->object) return x->object < y->object ? -1 : 1;
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  return (x->tensor > y->tensor) - (x->tensor < y->tensor);
}

static uint64_t rec_dim(const texmem_record *r, unsigned dims, int k) {
  return (unsigned)k < dims ? r->dims[k] : 1;
}

static texmem_status validate_objects(const texmem_record *rec, size_t n,
                                      unsigned dims, const texmem_plan *p,
                                      texmem_error *err) {
  uint64_t total = 0;
  for (size_t o = 0; o < p->n_objects; o++) {
    uint64_t v = 1;
    for (int k = 0; k < 3; k++) {
      if (p->max_dims[k] && (unsigned)k < (p->layout == TEXMEM_LAYOUT_LINEAR ? 2u : dims) &&
          p->object_dims[o][k] > p->max_dims[k])
        return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                            "object %zu: dimension %d is %llu, over the limit %llu", o, k,
                            (unsigned long long)p->object_dims[o][k],
                            (unsigned long long)p->max_dims[k]);
    }
    if (texmem__vol_ovf(p->object_dims[o], &v))
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "object %zu: size overflows", o);
    if (v != p->object_size[o])
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                          "object %zu: size %llu is not the product of its dims (%llu)", o,
                          (unsigned long long)p->object_size[o], (unsigned long long)v);
    if (texmem__add_ovf(total, v, &total))
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "total overflows");
  }
  if (total != p->total)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                        "total %llu is not the sum of object sizes %llu",
                        (unsigned long long)p->total, (unsigned long long)total);
  if (p->layout == TEXMEM_LAYOUT_LINEAR && p->linear_width == 0 && n)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "linear plan with width 0");
  span *s = malloc((n ? n : 1) * sizeof *s);
  if (!s) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < n; i++) {
    size_t o = p->object_of[i];
    if (o >= p->n_objects) {
      free(s);
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                          "tensor %zu: object %zu does not exist (%zu objects)", i, o, p->n_objects);
    }
    const uint64_t *od = p->object_dims[o];
    if (p->layout == TEXMEM_LAYOUT_LINEAR) {
      uint64_t vol = 1;
      for (int k = 0; k < 3; k++) vol = texmem__mul_sat(vol, rec_dim(&rec[i], dims, k));
      uint64_t w = p->linear_width;
      uint64_t rows = vol / w + (vol % w != 0);
      if (od[0] != w || rows > od[1]) {
        free(s);
        return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                            "tensor %zu: needs %llu rows of width %llu, object %zu is %llux%llu", i,
                            (unsigned long long)rows, (unsigned long long)w, o,
                            (unsigned long long)od[0], (unsigned long long)od[1]);
      }
    } else {
      for (int k = 0; k < (int)dims; k++)
        if (rec_dim(&rec[i], dims, k) > od[k]) {
          free(s);
          return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                              "tensor %zu: dimension %d is %llu, its object %zu has %llu", i, k,
                              (unsigned long long)rec_dim(&rec[i], dims, k), o,
                              (unsigned long long)od[k]);
        }
    }
    s[i] = (span){rec[i].first_task, rec[i].last_task, i, o};
  }
  qsort(s, n, sizeof *s, cmp_span);
  /* Sorted by start within an object: a tensor overlaps an earlier one
   * iff it starts before the furthest end seen so far in that object. */
  size_t far = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || s[i].object != s[i - 1].object) {
      far = i;
      continue;
    }
    if (s[far].last >= s[i].first) {
      texmem_status st = texmem__fail(
          err, TEXMEM_STATUS_INVALID_PLAN,
          "tensors %zu and %zu share object %zu but their tasks overlap ([%llu,%llu] and [%llu,%llu])",
          s[far].tensor, s[i].tensor, s[i].object, (unsigned long long)s[far].first,
          (unsigned long long)s[far].last, (unsigned long long)s[i].first,
          (unsigned long long)s[i].last);
      free(s);
      return st;
    }
    if (s[i].last > s[far].last) far = i;
  }
  free(s);
  return TEXMEM_STATUS_OK;
}

typedef struct live {
  uint64_t last;
  size_t tensor;
} live;

static int cmp_first(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  return (x->tensor > y->tensor) - (x->tensor < y->tensor);
}

/* Two tensors conflict iff both are live when the later one starts: each
 * tensor is checked against the live set at its start (s sorted here, act
 * room for n). Their spans [offset, +len) must not meet (arena plans: when
 * in the same arena texture); zero lengths meet nothing. */
static texmem_status check_overlaps(const texmem_record *rec, size_t n, span *s, size_t *act,
                                    const texmem_plan *p, const uint64_t *len, bool arena,
                                    texmem_error *err) {
  qsort(s, n, sizeof *s, cmp_first);
  size_t nact = 0;
  for (size_t i = 0; i < n; i++) {
    size_t t = s[i].tensor, keep = 0;
    for (size_t j = 0; j < nact; j++)
      if (rec[act[j]].last_task >= s[i].first) act[keep++] = act[j];
    nact = keep;
    for (size_t j = 0; j < nact; j++) {
      size_t u = act[j];
      if ((arena && p->object_of[t] != p->object_of[u]) || !len[t] || !len[u] ||
          p->offset[t] >= p->offset[u] + len[u] || p->offset[u] >= p->offset[t] + len[t])
        continue;
      if (arena)
        return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                            "tensors %zu and %zu are live together but overlap in arena texture "
                            "%zu (rows [%llu,+%llu) and [%llu,+%llu))",
                            u, t, p->object_of[t], (unsigned long long)p->offset[u],
                            (unsigned long long)len[u], (unsigned long long)p->offset[t],
                            (unsigned long long)len[t]);
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                          "tensors %zu and %zu are live together but overlap in the arena "
                          "([%llu,+%llu) and [%llu,+%llu))",
                          u, t, (unsigned long long)p->offset[u], (unsigned long long)len[u],
                          (unsigned long long)p->offset[t], (unsigned long long)len[t]);
    }
    act[nact++] = t;
  }
  return TEXMEM_STATUS_OK;
}

static texmem_status validate_offsets(const texmem_record *rec, size_t n,
                                      unsigned dims, const texmem_plan *p,
                                      texmem_error *err) {
  uint64_t *size = malloc((n ? n : 1) * sizeof *size);
  span *s = malloc((n ? n : 1) * sizeof *s);
  size_t *act = malloc((n ? n : 1) * sizeof *act);
  texmem_status st = TEXMEM_STATUS_OK;
  if (!size || !s || !act) {
    st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  uint64_t total = 0;
  for (size_t i = 0; i < n && !st; i++) {
    uint64_t v = 1, end;
    for (int k = 0; k < (int)dims; k++) v = texmem__mul_sat(v, rec[i].dims[k]);
    size[i] = v;
    if (p->offset[i] % p->alignment)
      st = texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                        "tensor %zu: offset %llu is not a multiple of the alignment %llu", i,
                        (unsigned long long)p->offset[i], (unsigned long long)p->alignment);
    else if (texmem__add_ovf(p->offset[i], v, &end))
      st = texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "tensor %zu: offset + size overflows", i);
    else if (end > p->total)
      st = texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                        "tensor %zu: ends at %llu, past the arena size %llu", i,
                        (unsigned long long)end, (unsigned long long)p->total);
    total = texmem__max_u64(total, texmem__add_sat(p->offset[i], v));
    s[i] = (span){rec[i].first_task, rec[i].last_task, i, 0};
  }
  if (!st && total != p->total)
    st = texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "arena size %llu, but tensors end at %llu",
                      (unsigned long long)p->total, (unsigned long long)total);
  if (st) goto done;
  st = check_overlaps(rec, n, s, act, p, size, false, err);
done:
  free(size);
  free(s);
  free(act);
  return st;
}

/* Arena plans: arena textures W x rows, each tensor in whole rows of one
 * of them (aligned, inside it), conflicting tensors of one texture on
 * disjoint rows, every texture as tall as its tensors reach. */
static texmem_status validate_arena(const texmem_record *rec, size_t n, unsigned dims,
                                    const texmem_plan *p, texmem_error *err) {
  uint64_t w = p->linear_width, total = 0;
  if (n && !w) return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "arena plan with width 0");
  if (p->max_dims[0] && w > p->max_dims[0])
    return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "arena width %llu over the limit %llu",
                        (unsigned long long)w, (unsigned long long)p->max_dims[0]);
  for (size_t o = 0; o < p->n_objects; o++) {
    const uint64_t *od = p->object_dims[o];
    uint64_t v;
    if (od[0] != w || od[2] != 1 || !od[1])
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                          "arena texture %zu is %llux%llux%llu, not %llu wide with rows", o,
                          (unsigned long long)od[0], (unsigned long long)od[1],
                          (unsigned long long)od[2], (unsigned long long)w);
    if (p->max_dims[1] && od[1] > p->max_dims[1])
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                          "arena texture %zu has %llu rows, over the limit %llu", o,
                          (unsigned long long)od[1], (unsigned long long)p->max_dims[1]);
    if (texmem__mul_ovf(w, od[1], &v) || v != p->object_size[o] || texmem__add_ovf(total, v, &total))
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                          "arena texture %zu: size %llu is not %llu x %llu", o,
                          (unsigned long long)p->object_size[o], (unsigned long long)w,
                          (unsigned long long)od[1]);
  }
  if (total != p->total)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                        "total %llu is not the sum of the arena textures %llu",
                        (unsigned long long)p->total, (unsigned long long)total);
  size_t m = n ? n : 1;
  uint64_t *rows = malloc(m * sizeof *rows);
  uint64_t *end = calloc(p->n_objects ? p->n_objects : 1, sizeof *end);
  span *s = malloc(m * sizeof *s);
  size_t *act = malloc(m * sizeof *act);
  texmem_status st = TEXMEM_STATUS_OK;
  if (!rows || !end || !s || !act) {
    st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < n && !st; i++) {
    uint64_t vol = 1, e;
    for (int k = 0; k < 3; k++) vol = texmem__mul_sat(vol, rec_dim(&rec[i], dims, k));
    rows[i] = vol ? vol / w + (vol % w != 0) : 1; /* at least one row, as planned */
    size_t o = p->object_of[i];
    if (o >= p->n_objects)
      st = texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                        "tensor %zu: arena texture %zu does not exist (%zu textures)", i, o,
                        p->n_objects);
    else if (p->alignment > 1 && p->offset[i] % p->alignment)
      st = texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                        "tensor %zu: base row %llu is not a multiple of the alignment %llu", i,
                        (unsigned long long)p->offset[i], (unsigned long long)p->alignment);
    else if (texmem__add_ovf(p->offset[i], rows[i], &e) || e > p->object_dims[o][1])
      st = texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                        "tensor %zu: rows [%llu, +%llu) pass the %llu rows of arena texture %zu", i,
                        (unsigned long long)p->offset[i], (unsigned long long)rows[i],
                        (unsigned long long)p->object_dims[o][1], o);
    else
      end[o] = texmem__max_u64(end[o], e);
    s[i] = (span){rec[i].first_task, rec[i].last_task, i, o};
  }
  for (size_t o = 0; o < p->n_objects && !st; o++)
    if (end[o] != p->object_dims[o][1])
      st = texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                        "arena texture %zu has %llu rows but its tensors end at row %llu", o,
                        (unsigned long long)p->object_dims[o][1], (unsigned long long)end[o]);
  if (st) goto done;
  st = check_overlaps(rec, n, s, act, p, rows, true, err);
done:
  free(rows);
  free(end);
  free(s);
  free(act);
  return st;
}

texmem_status texmem_plan_validate(const texmem_record *records, size_t count,
                                   unsigned dims, const texmem_plan *p,
                                   texmem_error *err) {
  if (!p) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "plan is NULL");
  if (count && !records)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "records is NULL");
  if (dims != p->dims || count != p->n_tensors)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                        "plan is for %zu records of %u dims, given %zu of %u", p->n_tensors,
                        p->dims, count, dims);
  for (size_t i = 0; i < count; i++)
    if (records[i].last_task < records[i].first_task)
      return texmem__fail(err, TEXMEM_STATUS_BAD_RECORDS, "record %zu: last_task < first_task", i);
  if (p->kind == TEXMEM_PLAN_OBJECTS) return validate_objects(records, count, dims, p, err);
  for (size_t i = 0; p->fixed && i < count; i++)
    if (p->fixed[i] != TEXMEM_OFFSET_FREE && p->offset[i] != p->fixed[i])
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                          "tensor %zu: offset %llu, but it is fixed at %llu", i,
                          (unsigned long long)p->offset[i], (unsigned long long)p->fixed[i]);
  if (p->layout == TEXMEM_LAYOUT_LINEAR) return validate_arena(records, count, dims, p, err);
  return validate_offsets(records, count, dims, p, err);
}

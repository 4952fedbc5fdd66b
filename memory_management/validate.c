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

static int cmp_first(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  return (x->tensor > y->tensor) - (x->tensor < y->tensor);
}

/* Spans in space: object (arena texture; 0 for a 1-D arena), start, end. */
typedef struct place {
  size_t object;
  uint64_t lo, hi;
  size_t tensor;
} place;

static int cmp_place(const void *a, const void *b) {
  const place *x = a, *y = b;
  if (x->object != y->object) return x->object < y->object ? -1 : 1;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return (x->tensor > y->tensor) - (x->tensor < y->tensor);
}

/* Live tensors as a set of ranks in space order: a Fenwick tree of counts. */
typedef struct rankset {
  size_t n;
  uint32_t *c; /* 1-based */
} rankset;

static void rs_add(rankset *r, size_t i, int d) {
  for (i++; i <= r->n; i += i & (~i + 1)) r->c[i] += (uint32_t)d;
}

/* The largest rank below `below` in the set, or SIZE_MAX. */
static size_t rs_pred(const rankset *r, size_t below) {
  uint32_t k = 0;
  for (size_t i = below; i > 0; i -= i & (~i + 1)) k += r->c[i];
  if (!k) return SIZE_MAX;
  size_t pos = 0, step = 1;
  while (step * 2 <= r->n) step *= 2;
  for (; step; step /= 2) /* the last position whose prefix count is < k */
    if (pos + step <= r->n && r->c[pos + step] < k) {
      pos += step;
      k -= r->c[pos];
    }
  return pos; /* 0-based rank of the k-th member */
}

static int cmp_last(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->last != y->last) return x->last < y->last ? -1 : 1;
  return (x->tensor > y->tensor) - (x->tensor < y->tensor);
}

/* The first rank whose place is at or after (object, lo) in space order. */
static size_t first_at(const place *pl, size_t n, size_t object, uint64_t lo) {
  size_t l = 0, h = n;
  while (l < h) {
    size_t mid = l + (h - l) / 2;
    if (pl[mid].object < object || (pl[mid].object == object && pl[mid].lo < lo)) l = mid + 1;
    else h = mid;
  }
  return l;
}

static texmem_status overlap_error(const texmem_plan *p, const uint64_t *len, bool arena,
                                   size_t u, size_t t, texmem_error *err) {
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

/* Two tensors conflict iff both are live when the later one starts. The
 * sweep takes tensors by first task; the live ones of nonzero length lie
 * apart in space (else the sweep has stopped), so a new tensor [lo, hi)
 * meets one of them iff it meets the live one starting last below hi in
 * its object: one predecessor query in a rank set over all tensors' space
 * order, O(n log n) however many are live at once. s: the spans sorted by
 * first task; ends: room for a copy sorted by last; len: each tensor's
 * length from p->offset (arena plans: rows of texture object_of). */
static texmem_status overlaps_ranked(size_t n, span *s, span *ends, const texmem_plan *p,
                                     const uint64_t *len, bool arena, texmem_error *err) {
  size_t m = n ? n : 1;
  place *pl = malloc(m * sizeof *pl);
  size_t *rank = malloc(m * sizeof *rank);
  rankset live = {n, calloc(m + 1, sizeof(uint32_t))};
  texmem_status st = TEXMEM_STATUS_OK;
  if (!pl || !rank || !live.c) {
    st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < n; i++)
    pl[i] = (place){arena ? p->object_of[i] : 0, p->offset[i], p->offset[i] + len[i], i};
  qsort(pl, n, sizeof *pl, cmp_place);
  for (size_t r = 0; r < n; r++) rank[pl[r].tensor] = r;
  memcpy(ends, s, n * sizeof *s);
  qsort(ends, n, sizeof *ends, cmp_last);
  for (size_t i = 0, gone = 0; i < n && !st; i++) {
    size_t t = s[i].tensor;
    for (; gone < n && ends[gone].last < s[i].first; gone++) /* ended before t starts */
      if (len[ends[gone].tensor]) rs_add(&live, rank[ends[gone].tensor], -1);
    if (!len[t]) continue;
    const place *me = &pl[rank[t]];
    size_t r = rs_pred(&live, first_at(pl, n, me->object, me->hi));
    if (r != SIZE_MAX && pl[r].object == me->object && pl[r].hi > me->lo)
      st = overlap_error(p, len, arena, pl[r].tensor, t, err);
    rs_add(&live, rank[t], +1);
  }
done:
  free(pl);
  free(rank);
  free(live.c);
  return st;
}

/* The live set at each tensor's start kept as a list, each tensor checked
 * against all of it: the fastest way while few tensors are live at once
 * (model records: tens). *crowded is set, and nothing decided, once more
 * than LIVE_LIST_MAX are live. s sorted by first task; act room for
 * LIVE_LIST_MAX + 1. */
#define LIVE_LIST_MAX 64

static texmem_status overlaps_listed(size_t n, const span *s, span *act, const texmem_plan *p,
                                     const uint64_t *len, bool arena, bool *crowded,
                                     texmem_error *err) {
  size_t nact = 0;
  *crowded = false;
  for (size_t i = 0; i < n; i++) {
    size_t t = s[i].tensor, keep = 0;
    for (size_t j = 0; j < nact; j++)
      if (act[j].last >= s[i].first) act[keep++] = act[j];
    nact = keep;
    for (size_t j = 0; j < nact && len[t]; j++) {
      size_t u = act[j].tensor;
      if ((arena && p->object_of[t] != p->object_of[u]) || !len[u] ||
          p->offset[t] >= p->offset[u] + len[u] || p->offset[u] >= p->offset[t] + len[t])
        continue;
      return overlap_error(p, len, arena, u, t, err);
    }
    if (nact == LIVE_LIST_MAX) {
      *crowded = true;
      return TEXMEM_STATUS_OK;
    }
    act[nact++] = s[i];
  }
  return TEXMEM_STATUS_OK;
}

/* No two conflicting tensors overlap in space: by the list while few are
 * live at once, else by the rank set. s and ends: room for n spans. */
static texmem_status check_overlaps(size_t n, span *s, span *ends, const texmem_plan *p,
                                    const uint64_t *len, bool arena, texmem_error *err) {
  qsort(s, n, sizeof *s, cmp_first);
  bool crowded;
  texmem_status st = overlaps_listed(n, s, ends, p, len, arena, &crowded, err);
  if (st || !crowded) return st;
  return overlaps_ranked(n, s, ends, p, len, arena, err);
}

static texmem_status validate_offsets(const texmem_record *rec, size_t n,
                                      unsigned dims, const texmem_plan *p,
                                      texmem_error *err) {
  uint64_t *size = malloc((n ? n : 1) * sizeof *size);
  span *s = malloc((n ? n : 1) * sizeof *s);
  span *ends = malloc((n ? n : 1) * sizeof *ends);
  texmem_status st = TEXMEM_STATUS_OK;
  if (!size || !s || !ends) {
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
  st = check_overlaps(n, s, ends, p, size, false, err);
done:
  free(size);
  free(s);
  free(ends);
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
  span *ends = malloc(m * sizeof *ends);
  texmem_status st = TEXMEM_STATUS_OK;
  if (!rows || !end || !s || !ends) {
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
  st = check_overlaps(n, s, ends, p, rows, true, err);
done:
  free(rows);
  free(end);
  free(s);
  free(ends);
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

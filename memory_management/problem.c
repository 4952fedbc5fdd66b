/* The normalised problem every strategy sees (texmem__problem): records
 * checked (first <= last, limits, 64-bit sums), volumes, tasks compressed
 * to dense ranks, fixed offsets checked; its copies and its form in rows
 * of a W-wide texture; and the totals strategies compare. Calls nothing of
 * the planner but common/. */
#include <string.h>

#include "internal.h"

texmem_plan_desc texmem__plan_desc_defaults(const texmem_plan_desc *desc) {
  texmem_plan_desc d = desc ? *desc : (texmem_plan_desc){0};
  if (!d.alignment) d.alignment = 1;
  if (!d.exact_node_budget) d.exact_node_budget = 2000000;
  if (!(d.exact_time_budget_ms > 0)) d.exact_time_budget_ms = 1000.0;
  if (!(d.time_budget_ms > 0)) d.time_budget_ms = TEXMEM__DEFAULT_BUDGET_MS;
  return d;
}

void texmem__problem_free(texmem__problem *pb) {
  free(pb->dims);
  free(pb->size);
  free(pb->first);
  free(pb->last);
  free(pb->span);
  memset(pb, 0, sizeof *pb);
}

/* pb's arrays for n tensors (at least one entry each, zeroed). */
static texmem_status problem_alloc(texmem__problem *pb, size_t n, bool span, texmem_error *err) {
  size_t m = n ? n : 1;
  pb->dims = calloc(m, sizeof *pb->dims);
  pb->size = calloc(m, sizeof *pb->size);
  pb->first = calloc(m, sizeof *pb->first);
  pb->last = calloc(m, sizeof *pb->last);
  pb->span = span ? calloc(m, sizeof *pb->span) : NULL;
  if (pb->dims && pb->size && pb->first && pb->last && (!span || pb->span))
    return TEXMEM_STATUS_OK;
  texmem__problem_free(pb);
  return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for %zu records", n);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint32_t task_index(const uint64_t *tasks, size_t nt, uint64_t v) {
  size_t lo = 0, hi = nt;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (tasks[mid] < v) lo = mid + 1; else hi = mid;
  }
  return (uint32_t)lo;
}

static const char *dim_name(unsigned k) { return k == 0 ? "width" : k == 1 ? "height" : "depth"; }

/* Record i into pb (dims, volume, span) and its two tasks into tasks[2i..];
 * *sum gathers the aligned volumes so that every later sum fits. */
static texmem_status add_record(texmem__problem *pb, const texmem_record *rec, size_t i,
                                const texmem_plan_desc *d, uint64_t *tasks, uint64_t *sum,
                                texmem_error *err) {
  const texmem_record *r = &rec[i];
  if (r->last_task < r->first_task)
    return texmem__fail(err, TEXMEM_STATUS_BAD_RECORDS,
                        "tensor %llu (record %zu): last_task %llu < first_task %llu",
                        (unsigned long long)r->id, i, (unsigned long long)r->last_task,
                        (unsigned long long)r->first_task);
  for (unsigned k = 0; k < 3; k++) {
    uint64_t v = k < pb->ndims ? r->dims[k] : 1;
    if (d->max_dims[k] && k < pb->ndims && v > d->max_dims[k])
      return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                          "tensor %llu (record %zu): %s %llu exceeds the limit %llu",
                          (unsigned long long)r->id, i, dim_name(k), (unsigned long long)v,
                          (unsigned long long)d->max_dims[k]);
    pb->dims[i][k] = v;
  }
  uint64_t vol;
  if (texmem__vol_ovf(pb->dims[i], &vol) ||
      texmem__add_ovf(*sum, texmem__align_up(vol, pb->alignment), sum) ||
      texmem__align_up(vol, pb->alignment) == UINT64_MAX)
    return texmem__fail(err, TEXMEM_STATUS_OVERFLOW,
                        "tensor %llu (record %zu): sizes overflow 64 bits (sum of all tensor sizes "
                        "must fit)",
                        (unsigned long long)r->id, i);
  pb->size[i] = vol;
  tasks[2 * i] = r->first_task;
  tasks[2 * i + 1] = r->last_task;
  pb->span[i] = texmem__add_sat(r->last_task - r->first_task, 1);
  return TEXMEM_STATUS_OK;
}

/* Tasks become their ranks among all first/last values (sorted, unique):
 * the order is kept, so conflicts are unchanged. tasks has 2n entries. */
static void compress_tasks(texmem__problem *pb, const texmem_record *rec, uint64_t *tasks) {
  size_t n = pb->n;
  qsort(tasks, 2 * n, sizeof *tasks, cmp_u64);
  size_t nt = 0;
  for (size_t i = 0; i < 2 * n; i++)
    if (nt == 0 || tasks[nt - 1] != tasks[i]) tasks[nt++] = tasks[i];
  for (size_t i = 0; i < n; i++) {
    pb->first[i] = task_index(tasks, nt, rec[i].first_task);
    pb->last[i] = task_index(tasks, nt, rec[i].last_task);
  }
  pb->ntasks = (uint32_t)nt;
}

texmem_status texmem__problem_init(const texmem_record *rec, size_t n, unsigned dims,
                                   const texmem_plan_desc *desc, texmem__problem *pb,
                                   texmem_error *err) {
  texmem_plan_desc d = texmem__plan_desc_defaults(desc);
  memset(pb, 0, sizeof *pb);
  texmem_status st = problem_alloc(pb, n, true, err);
  if (st) return st;
  pb->n = n;
  pb->ndims = dims;
  pb->alignment = d.alignment;
  pb->exact_node_budget = d.exact_node_budget;
  pb->exact_time_budget_ms = d.exact_time_budget_ms;
  pb->exact_time_cpu = d.exact_time_cpu;
  pb->budget = d.budget;
  uint64_t *tasks = calloc(2 * (n ? n : 1), sizeof *tasks);
  if (!tasks) {
    texmem__problem_free(pb);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for %zu records", n);
  }
  uint64_t sum = 0;
  for (size_t i = 0; i < n && !st; i++) st = add_record(pb, rec, i, &d, tasks, &sum, err);
  if (!st) compress_tasks(pb, rec, tasks);
  free(tasks);
  if (st) texmem__problem_free(pb);
  return st;
}

texmem_status texmem__problem_copy(const texmem__problem *src, const size_t *idx, size_t m,
                                   texmem__problem *dst, texmem_error *err) {
  *dst = *src;
  texmem_status st = problem_alloc(dst, m, src->span != NULL, err);
  if (st) return st;
  dst->n = m;
  for (size_t k = 0; k < m; k++) {
    size_t i = idx ? idx[k] : k;
    memcpy(dst->dims[k], src->dims[i], sizeof dst->dims[k]);
    dst->size[k] = src->size[i];
    dst->first[k] = src->first[i];
    dst->last[k] = src->last[i];
    if (src->span) dst->span[k] = src->span[i];
  }
  return TEXMEM_STATUS_OK;
}

void texmem__problem_to_rows(texmem__problem *rows, const texmem__problem *nat, uint64_t w,
                             bool arena) {
  for (size_t i = 0; i < nat->n; i++) {
    rows->size[i] = texmem__rows_of(nat->size[i], w, arena);
    rows->dims[i][0] = rows->size[i];
    rows->dims[i][1] = rows->dims[i][2] = 1;
  }
  rows->ndims = 1;
}

/* Fixed offsets: aligned, within 64 bits, and no two fixed tensors that
 * share a task overlap (checked by offset order, each against those that
 * start below its end). */
typedef struct fixed_ent {
  uint64_t off, end;
  size_t i;
} fixed_ent;

static int cmp_fixed(const void *a, const void *b) {
  const fixed_ent *x = a, *y = b;
  if (x->off != y->off) return x->off < y->off ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

/* Each fixed offset alone: aligned, and its end within 64 bits. */
static texmem_status check_fixed_one(const texmem_record *rec, const texmem__problem *pb,
                                     const uint64_t *fixed, size_t i, texmem_error *err) {
  uint64_t e;
  if (fixed[i] % pb->alignment)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "tensor %llu (record %zu): fixed offset %llu is not a multiple of the "
                        "alignment %llu",
                        (unsigned long long)rec[i].id, i, (unsigned long long)fixed[i],
                        (unsigned long long)pb->alignment);
  if (texmem__add_ovf(fixed[i], texmem__align_up(pb->size[i], pb->alignment), &e))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "tensor %llu (record %zu): fixed offset %llu plus its size overflows 64 "
                        "bits",
                        (unsigned long long)rec[i].id, i, (unsigned long long)fixed[i]);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__problem_fix(texmem__problem *pb, const texmem_record *rec,
                                  const uint64_t *fixed, texmem_error *err) {
  size_t k = 0;
  for (size_t i = 0; i < pb->n; i++) {
    if (fixed[i] == TEXMEM_OFFSET_FREE) continue;
    texmem_status st = check_fixed_one(rec, pb, fixed, i, err);
    if (st) return st;
    k++;
  }
  fixed_ent *f = malloc((k ? k : 1) * sizeof *f);
  if (!f) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  k = 0;
  for (size_t i = 0; i < pb->n; i++)
    if (fixed[i] != TEXMEM_OFFSET_FREE && pb->size[i])
      f[k++] = (fixed_ent){fixed[i], fixed[i] + pb->size[i], i};
  qsort(f, k, sizeof *f, cmp_fixed);
  for (size_t a = 0; a < k; a++)
    for (size_t b = a + 1; b < k && f[b].off < f[a].end; b++)
      if (texmem__conflict(pb, f[a].i, f[b].i)) {
        size_t x = f[a].i, y = f[b].i;
        free(f);
        return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                            "fixed tensors %llu (record %zu, offset %llu) and %llu (record %zu, "
                            "offset %llu) share a task and overlap",
                            (unsigned long long)rec[x].id, x, (unsigned long long)fixed[x],
                            (unsigned long long)rec[y].id, y, (unsigned long long)fixed[y]);
      }
  free(f);
  pb->fixed = fixed;
  return TEXMEM_STATUS_OK;
}

uint64_t texmem__objects_total_sat(const texmem__problem *pb, const size_t *object_of,
                                   size_t n_objects) {
  uint64_t(*od)[3] = calloc(n_objects ? n_objects : 1, sizeof *od);
  if (!od) return UINT64_MAX;
  for (size_t i = 0; i < pb->n; i++)
    for (int k = 0; k < 3; k++)
      od[object_of[i]][k] = texmem__max_u64(od[object_of[i]][k], pb->dims[i][k]);
  uint64_t t = 0;
  for (size_t o = 0; o < n_objects; o++) t = texmem__add_sat(t, texmem__vol_sat(od[o]));
  free(od);
  return t;
}

uint64_t texmem__offsets_total_sat(const texmem__problem *pb, const uint64_t *offset) {
  uint64_t t = 0;
  for (size_t i = 0; i < pb->n; i++)
    t = texmem__max_u64(t, texmem__add_sat(offset[i], pb->size[i]));
  return t;
}

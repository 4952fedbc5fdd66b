/* texmem_plan_create: records in, a validated plan out. The planner's
 * rooms, and who calls whom (an arrow: calls into; none runs back up):
 *
 *   plan.c            texmem_plan_create: checks the arguments, normalises
 *     |                 the records, plans the kind and layout asked for,
 *     |                 fills and validates the plan
 *     +-> arena_plan.c  arena plans: W, rows, textures under a height limit
 *     |     +-> row_width.c, strategies.c, bounds.c, problem.c, plan_object.c
 *     +-> row_width.c   the one row-width chooser (linear objects, arena)
 *     |     +-> objects_/offsets_greedy_by_size.c, problem.c
 *     +-> strategies.c  the strategy table; BEST over the strategies
 *     |     +-> best_budget.c   BEST's time budget (sizes and estimates)
 *     |     +-> objects_*.c, offsets_*.c   one algorithm a file
 *     +-> bounds.c      lower bounds        +-> problem.c
 *     +-> validate.c    texmem_plan_validate
 *     +-> problem.c     the normalised problem: records checked, tasks
 *     |                   compressed, fixed offsets checked, rows, totals
 *     +-> plan_object.c the plan object: allocation and accessors
 *
 * problem.c, plan_object.c, best_budget.c and validate.c call nothing of
 * the planner; plan_from_assignment.c (a caller's plan, or one BEST kept:
 * texmem_plan_candidate) calls plan_object.c and validate.c. */
#include <string.h>

#include "internal.h"

/* Every check of the arguments and the desc, apart from the work. */
static texmem_status check_args(const texmem_record *records, size_t count, unsigned dims,
                                const texmem_plan_desc *d, texmem_error *err) {
  if (count && !records)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "records is NULL with count %zu", count);
  if (dims < 1 || dims > 3)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "dims must be 1, 2 or 3, not %u", dims);
  if (count > (size_t)UINT32_MAX / 2)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "too many records: %zu", count);
  if (d->kind != TEXMEM_PLAN_OBJECTS && d->kind != TEXMEM_PLAN_OFFSETS)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "unknown plan kind %d", (int)d->kind);
  if (!texmem_strategy_supports(d->strategy, d->kind))
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED, "strategy %s does not plan %s",
                        texmem_strategy_name(d->strategy) ? texmem_strategy_name(d->strategy) : "(unknown)",
                        d->kind == TEXMEM_PLAN_OBJECTS ? "shared objects" : "offsets");
  if (d->layout != TEXMEM_LAYOUT_NATURAL && d->layout != TEXMEM_LAYOUT_LINEAR)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "unknown layout %d", (int)d->layout);
  if (d->layout == TEXMEM_LAYOUT_LINEAR && dims < 2)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                        "the linear layout (objects or arena) plans 2-D/3-D records only");
  if (d->linear_width && d->max_dims[0] && d->linear_width > d->max_dims[0])
    return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS, "linear width %llu exceeds the width limit %llu",
                        (unsigned long long)d->linear_width, (unsigned long long)d->max_dims[0]);

  if (d->fixed_offsets && (d->kind != TEXMEM_PLAN_OFFSETS || d->layout != TEXMEM_LAYOUT_NATURAL))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "fixed_offsets applies to natural offsets plans only");
  if (d->time_budget_ms < 0 || d->time_budget_ms != d->time_budget_ms)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "time_budget_ms must be >= 0");
  return TEXMEM_STATUS_OK;
}

/* Natural offsets: one arena, its offsets planned by strategy d->strategy;
 * the plan's total is the exact arena size with the actual sizes. */
static texmem_status plan_natural_offsets(const texmem__problem *nat, const texmem_plan_desc *d,
                                          texmem__budget *bg, texmem_plan **out,
                                          texmem_strategy *chosen, texmem_error *err) {
  size_t n = nat->n;
  texmem_bounds b = {0, 0};
  texmem_status st = texmem__bounds(nat, &b, err);
  if (st) return st;
  texmem_plan *p = texmem__plan_alloc(n, 1);
  if (!p || (d->fixed_offsets && !(p->fixed = malloc((n ? n : 1) * sizeof *p->fixed)))) {
    texmem_plan_destroy(p);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  texmem__offsets_result res = {.chosen = d->strategy, .bound = b.max_live};
  st = texmem__plan_offsets(nat, d->strategy, p->offset, &res, bg, err);
  uint64_t t = 0;
  for (size_t i = 0; i < n && !st; i++) {
    uint64_t e;
    if (texmem__add_ovf(p->offset[i], nat->size[i], &e))
      st = texmem__fail(err, TEXMEM_STATUS_OVERFLOW, "arena offset of tensor %zu overflows", i);
    t = texmem__max_u64(t, e);
  }
  if (st) {
    texmem_plan_destroy(p);
    return st;
  }
  p->total = p->object_dims[0][0] = p->object_size[0] = t;
  p->object_dims[0][1] = p->object_dims[0][2] = 1;
  /* A result meeting the bound is optimal whoever found it. */
  p->optimal = res.optimal || t <= res.bound;
  p->bound = res.bound;
  if (d->fixed_offsets) memcpy(p->fixed, d->fixed_offsets, n * sizeof *p->fixed);
  *chosen = res.chosen;
  *out = p;
  return TEXMEM_STATUS_OK;
}

/* Linear objects: nat in rows of width *w (given, or chosen) into lin. */
static texmem_status linear_rows(const texmem_record *rec, const texmem__problem *nat,
                                 const texmem_plan_desc *d, texmem__problem *lin, uint64_t *w,
                                 texmem_error *err) {
  texmem_status st = texmem__problem_copy(nat, NULL, nat->n, lin, err);
  if (st) return st;
  *w = d->linear_width;
  if (!*w) st = texmem__choose_row_width(nat, lin, false, d->max_dims, w, err);
  if (!st) st = texmem__rows_fit(rec, nat, *w, d->max_dims[1], false, err);
  if (st) {
    texmem__problem_free(lin);
    return st;
  }
  texmem__problem_to_rows(lin, nat, *w, false);
  return TEXMEM_STATUS_OK;
}

/* The plan of an objects assignment of pb (linear: w > 0, pb in rows):
 * each object's dims are the per-dimension max of its tensors'. */
static texmem_status objects_plan(const texmem__problem *pb, const texmem__objects_result *res,
                                  uint64_t w, texmem_plan **out, texmem_error *err) {
  size_t n = pb->n, k = res->n_objects;
  texmem_plan *p = texmem__plan_alloc(n, k);
  if (!p) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  memcpy(p->object_of, res->object_of, n * sizeof *p->object_of);
  for (size_t i = 0; i < n; i++)
    for (int j = 0; j < 3; j++)
      p->object_dims[res->object_of[i]][j] =
          texmem__max_u64(p->object_dims[res->object_of[i]][j], pb->dims[i][j]);
  uint64_t t = 0;
  for (size_t o = 0; o < k; o++) {
    uint64_t v;
    if (w) { /* (rows, 1, 1) becomes (W, rows, 1) */
      p->object_dims[o][1] = p->object_dims[o][0];
      p->object_dims[o][0] = w;
      p->object_dims[o][2] = 1;
    }
    if (texmem__vol_ovf(p->object_dims[o], &v) || texmem__add_ovf(t, v, &t)) {
      texmem_plan_destroy(p);
      return texmem__fail(err, TEXMEM_STATUS_OVERFLOW,
                          "object %zu: total texture size overflows 64 bits", o);
    }
    p->object_size[o] = v;
  }
  p->total = t;
  p->linear_width = w;
  *out = p;
  return TEXMEM_STATUS_OK;
}

/* Shared objects, natural or linear. */
static texmem_status plan_objects(const texmem_record *rec, const texmem__problem *nat,
                                  const texmem_plan_desc *d, texmem__budget *bg,
                                  texmem_plan **out, texmem_strategy *chosen, texmem_error *err) {
  texmem__problem lin;
  uint64_t w = 0;
  bool linear = d->layout == TEXMEM_LAYOUT_LINEAR;
  texmem_status st = linear ? linear_rows(rec, nat, d, &lin, &w, err) : TEXMEM_STATUS_OK;
  if (st) return st;
  const texmem__problem *use = linear ? &lin : nat;
  texmem__objects_result res = {NULL, 0, 0, d->strategy};
  st = texmem__plan_objects(use, d->strategy, &res, bg, err);
  if (!st) st = objects_plan(use, &res, w, out, err);
  if (!st) *chosen = res.chosen;
  free(res.object_of);
  if (linear) texmem__problem_free(&lin);
  return st;
}

/* The natural problem of the records, fixed offsets checked. */
static texmem_status normalise(const texmem_record *records, size_t count, unsigned dims,
                               const texmem_plan_desc *d, texmem__problem *nat,
                               texmem_error *err) {
  /* An arena's limits are its textures' (W, rows), not the records' dims. */
  texmem_plan_desc init_d = *d;
  if (d->kind == TEXMEM_PLAN_OFFSETS && d->layout == TEXMEM_LAYOUT_LINEAR)
    memset(init_d.max_dims, 0, sizeof init_d.max_dims);
  texmem_status st = texmem__problem_init(records, count, dims, &init_d, nat, err);
  if (st || !d->fixed_offsets) return st;
  st = texmem__problem_fix(nat, records, d->fixed_offsets, err);
  if (st) texmem__problem_free(nat);
  return st;
}

texmem_status texmem_plan_create(const texmem_record *records, size_t count,
                                 unsigned dims, const texmem_plan_desc *desc,
                                 texmem_plan **out, texmem_error *err) {
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  const texmem_plan_desc d = texmem__plan_desc_defaults(desc);
  texmem_status st = check_args(records, count, dims, desc ? desc : &d, err);
  if (st) return st;
  texmem__problem nat;
  st = normalise(records, count, dims, &d, &nat, err);
  if (st) return st;
  /* Reports live here until the plan exists (it is allocated last). */
  texmem_strategy_report reports[TEXMEM_STRATEGY_COUNT_];
  memset(reports, 0, sizeof reports);
  texmem__budget bg = texmem__budget_start(d.time_budget_ms, reports);
  bool arena = d.kind == TEXMEM_PLAN_OFFSETS && d.layout == TEXMEM_LAYOUT_LINEAR;
  if (d.keep_candidates && d.strategy == TEXMEM_STRATEGY_BEST && !arena &&
      !(bg.kept = calloc(1, sizeof *bg.kept))) {
    texmem__problem_free(&nat);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  texmem_plan *p = NULL;
  texmem_strategy chosen = d.strategy;
  if (arena) {
    nat.budget = 0; /* the arena's rows are not the budget's unit */
    st = texmem__arena_plan(records, &nat, &d, &p, &chosen, err);
  } else if (d.kind == TEXMEM_PLAN_OFFSETS) {
    st = plan_natural_offsets(&nat, &d, &bg, &p, &chosen, err);
  } else {
    st = plan_objects(records, &nat, &d, &bg, &p, &chosen, err);
  }
  texmem__problem_free(&nat);
  if (st) {
    texmem__kept_free(bg.kept);
    return st;
  }
  p->kept = bg.kept;
  p->kind = d.kind;
  p->strategy = chosen;
  p->layout = d.layout;
  p->dims = dims;
  p->budget = d.budget;
  p->alignment = d.alignment;
  memcpy(p->max_dims, d.max_dims, sizeof p->max_dims);
  memcpy(p->reports, reports, sizeof reports);
  st = texmem_plan_validate(records, count, dims, p, err);
  if (st) {
    texmem_plan_destroy(p);
    return st;
  }
  *out = p;
  return TEXMEM_STATUS_OK;
}

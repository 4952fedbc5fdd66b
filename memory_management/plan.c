/* Plan creation: normalise records into a texmem__problem (checked sizes,
 * compressed tasks, linear rows), run the strategy, build and validate the
 * plan. */
#include <stdio.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static const char *const strategy_names[TEXMEM_STRATEGY_COUNT_] = {
    "best",           "naive",          "equality",
    "greedy_in_order", "greedy_by_breadth", "greedy_by_size",
    "min_cost_flow",  "local_search",   "strip_best_fit",
    "exact",          "tflm_greedy"};

const char *texmem_strategy_name(texmem_strategy s) {
  if ((unsigned)s >= TEXMEM_STRATEGY_COUNT_) return NULL;
  return strategy_names[s];
}

bool texmem_strategy_from_name(const char *name, texmem_strategy *out) {
  if (!name) return false;
  for (unsigned i = 0; i < TEXMEM_STRATEGY_COUNT_; i++) {
    if (strcmp(name, strategy_names[i]) == 0) {
      if (out) *out = (texmem_strategy)i;
      return true;
    }
  }
  return false;
}

static texmem__objects_fn objects_fn(texmem_strategy s) {
  switch (s) {
    case TEXMEM_STRATEGY_NAIVE: return texmem__objects_naive;
    case TEXMEM_STRATEGY_EQUALITY: return texmem__objects_equality;
    case TEXMEM_STRATEGY_GREEDY_IN_ORDER: return texmem__objects_greedy_in_order;
    case TEXMEM_STRATEGY_GREEDY_BY_BREADTH: return texmem__objects_greedy_by_breadth;
    case TEXMEM_STRATEGY_GREEDY_BY_SIZE: return texmem__objects_greedy_by_size;
    case TEXMEM_STRATEGY_MIN_COST_FLOW: return texmem__objects_min_cost_flow;
    case TEXMEM_STRATEGY_LOCAL_SEARCH: return texmem__objects_local_search;
    default: return NULL;
  }
}

static texmem__offsets_fn offsets_fn(texmem_strategy s) {
  switch (s) {
    case TEXMEM_STRATEGY_GREEDY_IN_ORDER: return texmem__offsets_greedy_in_order;
    case TEXMEM_STRATEGY_GREEDY_BY_BREADTH: return texmem__offsets_greedy_by_breadth;
    case TEXMEM_STRATEGY_GREEDY_BY_SIZE: return texmem__offsets_greedy_by_size;
    case TEXMEM_STRATEGY_STRIP_BEST_FIT: return texmem__offsets_strip_best_fit;
    case TEXMEM_STRATEGY_EXACT: return texmem__offsets_exact;
    case TEXMEM_STRATEGY_TFLM_GREEDY: return texmem__offsets_tflm_greedy;
    default: return NULL;
  }
}

bool texmem_strategy_supports(texmem_strategy s, texmem_plan_kind k) {
  if (s == TEXMEM_STRATEGY_BEST) return k == TEXMEM_PLAN_OBJECTS || k == TEXMEM_PLAN_OFFSETS;
  if (k == TEXMEM_PLAN_OBJECTS) return objects_fn(s) != NULL;
  if (k == TEXMEM_PLAN_OFFSETS) return offsets_fn(s) != NULL;
  return false;
}

uint64_t texmem__objects_total_sat(const texmem__problem *pb,
                                   const size_t *object_of, size_t n_objects) {
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

uint64_t texmem__offsets_total_sat(const texmem__problem *pb,
                                   const uint64_t *offset) {
  uint64_t t = 0;
  for (size_t i = 0; i < pb->n; i++)
    t = texmem__max_u64(t, texmem__add_sat(offset[i], pb->size[i]));
  return t;
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

void texmem__problem_free(texmem__problem *pb) {
  free(pb->dims);
  free(pb->size);
  free(pb->first);
  free(pb->last);
  free(pb->span);
  memset(pb, 0, sizeof *pb);
}

static const char *dim_name(int k) { return k == 0 ? "width" : k == 1 ? "height" : "depth"; }

texmem_plan_desc texmem__plan_desc_defaults(const texmem_plan_desc *desc) {
  texmem_plan_desc d = desc ? *desc : (texmem_plan_desc){0};
  if (!d.alignment) d.alignment = 1;
  if (!d.exact_node_budget) d.exact_node_budget = 2000000;
  if (!(d.exact_time_budget_ms > 0)) d.exact_time_budget_ms = 1000.0;
  if (!(d.time_budget_ms > 0)) d.time_budget_ms = TEXMEM__DEFAULT_BUDGET_MS;
  return d;
}

/* Checks records and builds the natural problem (volumes, compressed tasks). */
texmem_status texmem__problem_init(const texmem_record *rec, size_t n,
                                  unsigned dims, const texmem_plan_desc *desc,
                                  texmem__problem *pb, texmem_error *err) {
  texmem_plan_desc dd = texmem__plan_desc_defaults(desc);
  const texmem_plan_desc *d = &dd;
  memset(pb, 0, sizeof *pb);
  pb->n = n;
  pb->ndims = dims;
  pb->alignment = d->alignment;
  pb->exact_node_budget = d->exact_node_budget;
  pb->exact_time_budget_ms = d->exact_time_budget_ms;
  pb->exact_time_cpu = d->exact_time_cpu;
  pb->budget = d->budget;
  size_t m = n ? n : 1;
  pb->dims = calloc(m, sizeof *pb->dims);
  pb->size = calloc(m, sizeof *pb->size);
  pb->first = calloc(m, sizeof *pb->first);
  pb->last = calloc(m, sizeof *pb->last);
  pb->span = calloc(m, sizeof *pb->span);
  uint64_t *tasks = calloc(2 * m, sizeof *tasks);
  if (!pb->dims || !pb->size || !pb->first || !pb->last || !pb->span || !tasks) {
    free(tasks);
    texmem__problem_free(pb);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for %zu records", n);
  }
  texmem_status st = TEXMEM_STATUS_OK;
  uint64_t sum = 0;
  for (size_t i = 0; i < n && st == TEXMEM_STATUS_OK; i++) {
    const texmem_record *r = &rec[i];
    if (r->last_task < r->first_task) {
      st = texmem__fail(err, TEXMEM_STATUS_BAD_RECORDS,
                        "tensor %llu (record %zu): last_task %llu < first_task %llu",
                        (unsigned long long)r->id, i, (unsigned long long)r->last_task,
                        (unsigned long long)r->first_task);
      break;
    }
    for (unsigned k = 0; k < 3; k++) {
      uint64_t v = k < dims ? r->dims[k] : 1;
      if (d && d->max_dims[k] && k < dims && v > d->max_dims[k]) {
        st = texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                          "tensor %llu (record %zu): %s %llu exceeds the limit %llu",
                          (unsigned long long)r->id, i, dim_name((int)k),
                          (unsigned long long)v, (unsigned long long)d->max_dims[k]);
        break;
      }
      pb->dims[i][k] = v;
    }
    if (st) break;
    uint64_t vol;
    if (texmem__vol_ovf(pb->dims[i], &vol) ||
        texmem__add_ovf(sum, texmem__align_up(vol, pb->alignment), &sum) ||
        texmem__align_up(vol, pb->alignment) == UINT64_MAX) {
      st = texmem__fail(err, TEXMEM_STATUS_OVERFLOW,
                        "tensor %llu (record %zu): sizes overflow 64 bits (sum of all tensor sizes must fit)",
                        (unsigned long long)r->id, i);
      break;
    }
    pb->size[i] = vol;
    tasks[2 * i] = r->first_task;
    tasks[2 * i + 1] = r->last_task;
    pb->span[i] = texmem__add_sat(r->last_task - r->first_task, 1);
  }
  if (st) {
    free(tasks);
    texmem__problem_free(pb);
    return st;
  }
  qsort(tasks, 2 * n, sizeof *tasks, cmp_u64);
  size_t nt = 0;
  for (size_t i = 0; i < 2 * n; i++)
    if (nt == 0 || tasks[nt - 1] != tasks[i]) tasks[nt++] = tasks[i];
  for (size_t i = 0; i < n; i++) {
    pb->first[i] = task_index(tasks, nt, rec[i].first_task);
    pb->last[i] = task_index(tasks, nt, rec[i].last_task);
  }
  pb->ntasks = (uint32_t)nt;
  free(tasks);
  return TEXMEM_STATUS_OK;
}

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

void texmem_plan_destroy(texmem_plan *p) {
  if (!p) return;
  free(p->object_dims);
  free(p->object_size);
  free(p->object_of);
  free(p->offset);
  free(p->fixed);
  free(p);
}

/* Runs one objects strategy; on success *out_of (n entries, caller frees)
 * and *out_k hold the assignment. */
static texmem_status run_objects(const texmem__problem *pb, texmem_strategy s,
                                 size_t **out_of, size_t *out_k,
                                 texmem_error *err) {
  size_t *of = calloc(pb->n ? pb->n : 1, sizeof *of);
  if (!of) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  size_t k = 0;
  texmem_status st = objects_fn(s)(pb, of, &k, err);
  if (st == TEXMEM_STATUS_OK) {
    for (size_t i = 0; i < pb->n; i++)
      if (of[i] >= k) {
        st = texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                          "strategy %s assigned tensor %zu to object %zu of %zu",
                          texmem_strategy_name(s), i, of[i], k);
        break;
      }
  }
  if (st) {
    free(of);
    return st;
  }
  *out_of = of;
  *out_k = k;
  return TEXMEM_STATUS_OK;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* BEST's time budget. Decisions come from sizes and fixed cost estimates,
 * not timings, so the same input and budget give the same plan on any
 * machine (only the "budget spent" rule reads the clock, and it only
 * applies to the quadratic strategies and exact search):
 *  - linear ones (naive, equality, greedy_in_order) always run;
 *  - the n log n greedy ones cost a few seconds per 10^6 tensors: one of
 *    them (the kind's primary) always runs, the others while the
 *    estimates of those run so far stay within the budget;
 *  - those that grow about quadratically on some inputs run only up to a
 *    size that fits the default 2 s budget, scaled by sqrt(budget / 2 s),
 *    and not once the budget is spent;
 *  - exact search gets at most the time left. */
typedef struct budget {
  double start_ms, budget_ms;
  double estimated_ms; /* estimates of the n log n strategies run so far */
  texmem_strategy_report *reports; /* TEXMEM_STRATEGY_COUNT_ entries */
} budget;


static size_t quadratic_max_n(texmem_strategy s) {
  switch (s) {
    case TEXMEM_STRATEGY_MIN_COST_FLOW: return 20000;
    case TEXMEM_STRATEGY_LOCAL_SEARCH: return 10000;
    case TEXMEM_STRATEGY_STRIP_BEST_FIT: return 10000;
    default: return 0;
  }
}

/* Estimated ms per 10^6 tensors of the n log n strategies (measured on the
 * generated records of bench/, with margin); 0 for the others. */
static double nlogn_ms_per_million(texmem_plan_kind k, texmem_strategy s) {
  if (s == TEXMEM_STRATEGY_GREEDY_BY_BREADTH) return k == TEXMEM_PLAN_OBJECTS ? 6000 : 4500;
  if (s == TEXMEM_STRATEGY_GREEDY_BY_SIZE) return k == TEXMEM_PLAN_OBJECTS ? 8000 : 3000;
  return 0;
}

/* The n log n strategy that always runs: the best of them on the model
 * records for objects, TFLite's choice for offsets. */
static texmem_strategy primary(texmem_plan_kind k) {
  return k == TEXMEM_PLAN_OBJECTS ? TEXMEM_STRATEGY_GREEDY_BY_BREADTH
                                  : TEXMEM_STRATEGY_GREEDY_BY_SIZE;
}

/* Whether BEST runs candidate c on n tensors; if not, records why. */
static bool budget_allows(budget *b, texmem_plan_kind kind, texmem_strategy c, size_t n) {
  texmem_strategy_report *r = &b->reports[c];
  size_t base = quadratic_max_n(c);
  double est = nlogn_ms_per_million(kind, c) * (double)n / 1e6;
  if (est > 0 && c != primary(kind)) {
    /* the primary's estimate is kept for it when it runs later */
    double reserve = b->reports[primary(kind)].outcome == TEXMEM_RUN_NOT_RUN
                         ? nlogn_ms_per_million(kind, primary(kind)) * (double)n / 1e6
                         : 0;
    if (b->estimated_ms + est + reserve > b->budget_ms) {
      r->outcome = TEXMEM_RUN_SKIPPED;
      snprintf(r->reason, sizeof r->reason,
               "%zu tensors: its estimated %.0f ms would pass the %.0f ms budget", n, est,
               b->budget_ms);
      return false;
    }
  }
  if (est > 0) b->estimated_ms += est;
  double spent = now_ms() - b->start_ms;
  if (base) {
    double lim = (double)base * sqrt(b->budget_ms / TEXMEM__DEFAULT_BUDGET_MS);
    if ((double)n > lim) {
      r->outcome = TEXMEM_RUN_SKIPPED;
      snprintf(r->reason, sizeof r->reason,
               "%zu tensors: over its limit of %.0f for a %.0f ms budget (its cost grows about "
               "quadratically)", n, lim, b->budget_ms);
      return false;
    }
  }
  if ((base || c == TEXMEM_STRATEGY_EXACT) && spent >= b->budget_ms) {
    r->outcome = TEXMEM_RUN_SKIPPED;
    snprintf(r->reason, sizeof r->reason, "the %.0f ms budget was spent (%.0f ms) before it",
             b->budget_ms, spent);
    return false;
  }
  return true;
}

static void report_failed(texmem_strategy_report *r, texmem_status st, const texmem_error *e,
                          double ms) {
  r->outcome = TEXMEM_RUN_FAILED;
  r->status = st;
  r->time_ms = ms;
  size_t l = strnlen(e->message, sizeof r->reason - 1);
  memcpy(r->reason, e->message, l); /* cut to fit */
  r->reason[l] = 0;
}

static void report_planned(texmem_strategy_report *r, uint64_t total, size_t objects,
                           double ms) {
  r->outcome = TEXMEM_RUN_PLANNED;
  r->status = TEXMEM_STATUS_OK;
  r->total = total;
  r->objects = objects;
  r->time_ms = ms;
}

/* Objects: the strategy, or for BEST the smallest total over all of them. */
static texmem_status plan_objects(const texmem__problem *pb, texmem_strategy s,
                                  size_t **of, size_t *k, uint64_t *total,
                                  texmem_strategy *chosen, budget *bg,
                                  texmem_error *err) {
  if (s != TEXMEM_STRATEGY_BEST) {
    double t0 = now_ms();
    texmem_status st = run_objects(pb, s, of, k, err);
    if (st) return st;
    *total = texmem__objects_total_sat(pb, *of, *k);
    *chosen = s;
    report_planned(&bg->reports[s], *total, *k, now_ms() - t0);
    return TEXMEM_STATUS_OK;
  }
  *of = NULL;
  *total = UINT64_MAX;
  texmem_status last = TEXMEM_STATUS_UNSUPPORTED;
  for (unsigned i = 0; i < TEXMEM_STRATEGY_COUNT_; i++) {
    texmem_strategy c = (texmem_strategy)i;
    if (c == TEXMEM_STRATEGY_BEST || !objects_fn(c)) continue;
    if (!budget_allows(bg, TEXMEM_PLAN_OBJECTS, c, pb->n)) continue;
    size_t *cof = NULL, ck = 0;
    texmem_error e;
    double t0 = now_ms();
    texmem_status st = run_objects(pb, c, &cof, &ck, &e);
    if (st == TEXMEM_STATUS_OUT_OF_MEMORY) {
      free(*of);
      if (err) *err = e;
      return st;
    }
    if (st) { /* this strategy cannot take the input; the others go on */
      report_failed(&bg->reports[c], st, &e, now_ms() - t0);
      last = st;
      if (err) *err = e;
      continue;
    }
    uint64_t t = texmem__objects_total_sat(pb, cof, ck);
    report_planned(&bg->reports[c], t, ck, now_ms() - t0);
    if (!*of || t < *total) {
      free(*of);
      *of = cof;
      *k = ck;
      *total = t;
      *chosen = c;
    } else {
      free(cof);
    }
  }
  return *of ? TEXMEM_STATUS_OK : last;
}

static texmem_status plan_offsets(const texmem__problem *pb, texmem_strategy s,
                                  uint64_t *off, uint64_t *total,
                                  texmem_strategy *chosen, bool *optimal,
                                  uint64_t *bound, budget *bg, texmem_error *err) {
  size_t m = pb->n ? pb->n : 1;
  if (s != TEXMEM_STRATEGY_BEST) {
    double t0 = now_ms();
    texmem_status st = offsets_fn(s)(pb, off, optimal, bound, err);
    if (st) return st;
    *total = texmem__offsets_total_sat(pb, off);
    *chosen = s;
    report_planned(&bg->reports[s], *total, 1, now_ms() - t0);
    return TEXMEM_STATUS_OK;
  }
  uint64_t *tmp = calloc(m, sizeof *tmp);
  if (!tmp) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  bool have = false;
  texmem_status last = TEXMEM_STATUS_UNSUPPORTED;
  for (unsigned i = 0; i < TEXMEM_STRATEGY_COUNT_; i++) {
    texmem_strategy c = (texmem_strategy)i;
    if (c == TEXMEM_STRATEGY_BEST || !offsets_fn(c)) continue;
    if (c == TEXMEM_STRATEGY_TFLM_GREEDY) continue; /* a comparison only: BEST keeps its set */
    if (!budget_allows(bg, TEXMEM_PLAN_OFFSETS, c, pb->n)) continue;
    texmem__problem sub = *pb;
    if (c == TEXMEM_STRATEGY_EXACT) { /* at most the time left */
      double left = bg->budget_ms - (now_ms() - bg->start_ms);
      if (left < sub.exact_time_budget_ms) sub.exact_time_budget_ms = left;
    }
    bool opt = false;
    uint64_t b = *bound;
    texmem_error e;
    double t0 = now_ms();
    texmem_status st = offsets_fn(c)(&sub, tmp, &opt, &b, &e);
    if (st == TEXMEM_STATUS_OUT_OF_MEMORY) {
      free(tmp);
      if (err) *err = e;
      return st;
    }
    if (st) {
      report_failed(&bg->reports[c], st, &e, now_ms() - t0);
      last = st;
      if (err) *err = e;
      continue;
    }
    if (b > *bound) *bound = b;
    uint64_t t = texmem__offsets_total_sat(pb, tmp);
    report_planned(&bg->reports[c], t, 1, now_ms() - t0);
    if (!have || t < *total || (t == *total && opt && !*optimal)) {
      memcpy(off, tmp, m * sizeof *tmp);
      *total = t;
      *chosen = c;
      *optimal = opt;
      have = true;
    }
  }
  free(tmp);
  return have ? TEXMEM_STATUS_OK : last;
}

texmem_status texmem__plan_offsets(const texmem__problem *pb, texmem_strategy s,
                                   uint64_t *offset, uint64_t *total, texmem_strategy *chosen,
                                   bool *optimal, uint64_t *bound, double time_budget_ms,
                                   texmem_error *err) {
  texmem_strategy_report reports[TEXMEM_STRATEGY_COUNT_];
  memset(reports, 0, sizeof reports);
  budget bg = {now_ms(), time_budget_ms > 0 ? time_budget_ms : TEXMEM__DEFAULT_BUDGET_MS, 0,
               reports};
  return plan_offsets(pb, s, offset, total, chosen, optimal, bound, &bg, err);
}

/* Linear layout: tensors become ceil(volume / W) rows of a W-wide texture. */
static void problem_to_rows(texmem__problem *lin, const texmem__problem *nat,
                            uint64_t w) {
  for (size_t i = 0; i < nat->n; i++) {
    uint64_t v = nat->size[i];
    uint64_t rows = v / w + (v % w != 0);
    lin->dims[i][0] = rows;
    lin->dims[i][1] = 1;
    lin->dims[i][2] = 1;
    lin->size[i] = rows;
  }
}

static texmem_status problem_clone(const texmem__problem *src, texmem__problem *dst,
                                   texmem_error *err) {
  *dst = *src;
  size_t m = src->n ? src->n : 1;
  dst->dims = malloc(m * sizeof *dst->dims);
  dst->size = malloc(m * sizeof *dst->size);
  dst->first = malloc(m * sizeof *dst->first);
  dst->last = malloc(m * sizeof *dst->last);
  dst->span = src->span ? malloc(m * sizeof *dst->span) : NULL;
  if (!dst->dims || !dst->size || !dst->first || !dst->last || (src->span && !dst->span)) {
    texmem__problem_free(dst);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  if (src->span) memcpy(dst->span, src->span, m * sizeof *dst->span);
  memcpy(dst->dims, src->dims, m * sizeof *dst->dims);
  memcpy(dst->size, src->size, m * sizeof *dst->size);
  memcpy(dst->first, src->first, m * sizeof *dst->first);
  memcpy(dst->last, src->last, m * sizeof *dst->last);
  dst->ndims = 1;
  return TEXMEM_STATUS_OK;
}

#define TEXMEM__DEFAULT_MAX_WIDTH 16384u

/* Chooses W for the linear layout among powers of two (16 .. max width)
 * whose rows fit the height limit: the widest whose cost is within 1% of
 * the smallest (wider rows mean fewer, shorter textures and better
 * locality for shaders). The cost is the greedy_by_size total in texels,
 * or, above TEXMEM__LINEAR_PROBE_MAX tensors, the texels of every tensor
 * rounded up to whole rows (linear time per width). */
#define TEXMEM__LINEAR_PROBE_MAX 2000
static texmem_status choose_linear_width(const texmem__problem *nat,
                                         texmem__problem *lin,
                                         const texmem_plan_desc *d,
                                         uint64_t *out_w, texmem_error *err) {
  uint64_t maxw = d->max_dims[0] ? d->max_dims[0] : TEXMEM__DEFAULT_MAX_WIDTH;
  uint64_t maxh = d->max_dims[1];
  uint64_t maxvol = 0;
  for (size_t i = 0; i < nat->n; i++) maxvol = texmem__max_u64(maxvol, nat->size[i]);
  enum { NW = 64 };
  uint64_t ws[NW], ts[NW];
  size_t nw = 0;
  uint64_t best_t = UINT64_MAX, best_w = 0;
  /* From the first width that holds the largest tensor in one row on, the
   * rows no longer change, nor does their plan: it is probed once. */
  bool flat = false;
  uint64_t flat_t = 0;
  for (uint64_t w = 16; w <= maxw && nw < NW; w *= 2) {
    if (maxh && maxvol / w + (maxvol % w != 0) > maxh) continue;
    uint64_t t = 0;
    if (flat) {
      t = flat_t;
    } else if (nat->n <= TEXMEM__LINEAR_PROBE_MAX) {
      problem_to_rows(lin, nat, w);
      size_t *of = NULL, k = 0;
      texmem_status st = run_objects(lin, TEXMEM_STRATEGY_GREEDY_BY_SIZE, &of, &k, err);
      if (st) return st;
      t = texmem__objects_total_sat(lin, of, k);
      free(of);
    } else {
      problem_to_rows(lin, nat, w);
      for (size_t i = 0; i < lin->n; i++) t = texmem__add_sat(t, lin->size[i]);
    }
    if (w >= maxvol) {
      flat = true;
      flat_t = t;
    }
    t = texmem__mul_sat(t, w);
    ws[nw] = w;
    ts[nw++] = t;
    if (t < best_t) best_t = t;
    if (w > UINT64_MAX / 2) break;
  }
  for (size_t i = 0; i < nw; i++)
    if (ts[i] <= best_t + best_t / 100) best_w = ws[i];
  if (!best_w) {
    /* No power of two fits: try the largest width allowed. */
    if (maxh && maxvol / maxw + (maxvol % maxw != 0) > maxh)
      return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                          "linear layout: a tensor of %llu texels needs more than %llu rows at the maximum width %llu",
                          (unsigned long long)maxvol, (unsigned long long)maxh,
                          (unsigned long long)maxw);
    best_w = maxw;
  }
  *out_w = best_w;
  return TEXMEM_STATUS_OK;
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

static texmem_status check_fixed(const texmem_record *rec, const texmem__problem *pb,
                                 const uint64_t *fixed, texmem_error *err) {
  size_t k = 0;
  for (size_t i = 0; i < pb->n; i++) {
    if (fixed[i] == TEXMEM_OFFSET_FREE) continue;
    uint64_t e;
    if (fixed[i] % pb->alignment)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "tensor %llu (record %zu): fixed offset %llu is not a multiple of the alignment %llu",
                          (unsigned long long)rec[i].id, i, (unsigned long long)fixed[i],
                          (unsigned long long)pb->alignment);
    if (texmem__add_ovf(fixed[i], texmem__align_up(pb->size[i], pb->alignment), &e))
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "tensor %llu (record %zu): fixed offset %llu plus its size overflows 64 bits",
                          (unsigned long long)rec[i].id, i, (unsigned long long)fixed[i]);
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
                            "fixed tensors %llu (record %zu, offset %llu) and %llu (record %zu, offset "
                            "%llu) share a task and overlap",
                            (unsigned long long)rec[x].id, x, (unsigned long long)fixed[x],
                            (unsigned long long)rec[y].id, y, (unsigned long long)fixed[y]);
      }
  free(f);
  return TEXMEM_STATUS_OK;
}

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

texmem_status texmem_plan_create(const texmem_record *records, size_t count,
                                 unsigned dims, const texmem_plan_desc *desc,
                                 texmem_plan **out, texmem_error *err) {
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  const texmem_plan_desc dd = texmem__plan_desc_defaults(desc);
  const texmem_plan_desc *d = &dd;
  texmem_status st0 = check_args(records, count, dims, desc ? desc : d, err);
  if (st0) return st0;
  /* Reports live here until the plan exists (it is allocated last). */
  texmem_strategy_report reports[TEXMEM_STRATEGY_COUNT_];
  memset(reports, 0, sizeof reports);
  budget bg = {now_ms(), d->time_budget_ms, 0,
               reports};

  texmem__problem nat;
  /* An arena's limits are its textures' (W, rows), not the records' dims. */
  texmem_plan_desc init_d = *d;
  if (d->kind == TEXMEM_PLAN_OFFSETS && d->layout == TEXMEM_LAYOUT_LINEAR)
    memset(init_d.max_dims, 0, sizeof init_d.max_dims);
  texmem_status st = texmem__problem_init(records, count, dims, &init_d, &nat, err);
  if (st) return st;
  if (d->fixed_offsets) {
    st = check_fixed(records, &nat, d->fixed_offsets, err);
    if (st) {
      texmem__problem_free(&nat);
      return st;
    }
    nat.fixed = d->fixed_offsets;
  }

  texmem_plan *p = NULL;
  texmem_strategy chosen = d->strategy;
  if (d->kind == TEXMEM_PLAN_OFFSETS && d->layout == TEXMEM_LAYOUT_LINEAR) {
    nat.budget = 0; /* the arena's rows are not the budget's unit */
    st = texmem__arena_plan(records, &nat, d, &p, &chosen, err); /* arena.c */
  } else if (d->kind == TEXMEM_PLAN_OFFSETS) {
    uint64_t *off = calloc(count ? count : 1, sizeof *off);
    texmem_bounds b = {0, 0};
    if (!off) {
      st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    } else {
      st = texmem__bounds(&nat, &b, err);
    }
    bool optimal = false;
    uint64_t bound = b.max_live, total = 0;
    if (!st) st = plan_offsets(&nat, d->strategy, off, &total, &chosen, &optimal, &bound, &bg, err);
    if (!st && !(p = texmem__plan_alloc(count, 1)))
      st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    if (!st) {
      memcpy(p->offset, off, (count ? count : 1) * sizeof *off);
      /* Exact total with the actual sizes, overflow checked. */
      uint64_t t = 0;
      for (size_t i = 0; i < count && !st; i++) {
        uint64_t e;
        if (texmem__add_ovf(off[i], nat.size[i], &e))
          st = texmem__fail(err, TEXMEM_STATUS_OVERFLOW, "arena offset of tensor %zu overflows", i);
        t = texmem__max_u64(t, e);
      }
      p->total = t;
      p->object_dims[0][0] = t;
      p->object_dims[0][1] = p->object_dims[0][2] = 1;
      p->object_size[0] = t;
      /* A result meeting the bound is optimal whoever found it. */
      p->optimal = optimal || t <= bound;
      p->bound = bound;
      if (d->fixed_offsets) {
        p->fixed = malloc((count ? count : 1) * sizeof *p->fixed);
        if (!p->fixed) st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
        else memcpy(p->fixed, d->fixed_offsets, count * sizeof *p->fixed);
      }
    }
    free(off);
  } else {
    texmem__problem lin;
    const texmem__problem *use = &nat;
    uint64_t w = 0;
    bool have_lin = false;
    if (d->layout == TEXMEM_LAYOUT_LINEAR) {
      st = problem_clone(&nat, &lin, err);
      if (!st) {
        have_lin = true;
        if (d->linear_width) {
          w = d->linear_width;
          uint64_t maxvol = 0;
          for (size_t i = 0; i < count; i++) maxvol = texmem__max_u64(maxvol, nat.size[i]);
          if (d->max_dims[1] && maxvol / w + (maxvol % w != 0) > d->max_dims[1])
            st = texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                              "linear layout: a tensor of %llu texels needs more than %llu rows at width %llu",
                              (unsigned long long)maxvol, (unsigned long long)d->max_dims[1],
                              (unsigned long long)w);
        } else {
          st = choose_linear_width(&nat, &lin, d, &w, err);
        }
        if (!st) problem_to_rows(&lin, &nat, w);
        use = &lin;
      }
    }
    size_t *of = NULL, k = 0;
    uint64_t total_sat = 0;
    if (!st) st = plan_objects(use, d->strategy, &of, &k, &total_sat, &chosen, &bg, err);
    if (!st && !(p = texmem__plan_alloc(count, k)))
      st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    if (!st) {
      memcpy(p->object_of, of, (count ? count : 1) * sizeof *of);
      for (size_t i = 0; i < count; i++)
        for (int j = 0; j < 3; j++)
          p->object_dims[of[i]][j] = texmem__max_u64(p->object_dims[of[i]][j], use->dims[i][j]);
      uint64_t t = 0;
      for (size_t o = 0; o < k && !st; o++) {
        uint64_t v;
        if (have_lin) {
          p->object_dims[o][1] = p->object_dims[o][0]; /* rows */
          p->object_dims[o][0] = w;
          p->object_dims[o][2] = 1;
        }
        if (texmem__vol_ovf(p->object_dims[o], &v) || texmem__add_ovf(t, v, &t))
          st = texmem__fail(err, TEXMEM_STATUS_OVERFLOW,
                            "object %zu: total texture size overflows 64 bits", o);
        p->object_size[o] = v;
      }
      p->total = t;
      p->linear_width = w;
    }
    free(of);
    if (have_lin) texmem__problem_free(&lin);
  }
  texmem__problem_free(&nat);
  if (st) {
    texmem_plan_destroy(p);
    return st;
  }
  p->kind = d->kind;
  p->strategy = chosen;
  p->layout = d->layout;
  p->dims = dims;
  p->budget = d->budget;
  p->alignment = d->alignment;
  memcpy(p->max_dims, d->max_dims, sizeof p->max_dims);
  memcpy(p->reports, reports, sizeof reports);
  st = texmem_plan_validate(records, count, dims, p, err);
  if (st) {
    texmem_plan_destroy(p);
    return st;
  }
  *out = p;
  return TEXMEM_STATUS_OK;
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
             ? p->object_of[t] : 0;
}
uint64_t texmem_plan_tensor_offset(const texmem_plan *p, size_t t) {
  return t < p->n_tensors && p->kind == TEXMEM_PLAN_OFFSETS ? p->offset[t] : 0;
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

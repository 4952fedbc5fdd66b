/* The strategy table: names, which kind each plans, the function that runs
 * it; and BEST, which runs every strategy of a kind that its time budget
 * allows (best_budget.c) and keeps the smallest valid result, recording
 * what each strategy did in the plan's reports. */
#include <string.h>

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

/* Runs one objects strategy; on success *out_of (n entries, caller frees)
 * and *out_k hold the assignment. */
static texmem_status run_objects(const texmem__problem *pb, texmem_strategy s, size_t **out_of,
                                 size_t *out_k, texmem_error *err) {
  size_t *of = calloc(pb->n ? pb->n : 1, sizeof *of);
  if (!of) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  size_t k = 0;
  texmem_status st = objects_fn(s)(pb, of, &k, err);
  for (size_t i = 0; i < pb->n && !st; i++)
    if (of[i] >= k)
      st = texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                        "strategy %s assigned tensor %zu to object %zu of %zu",
                        texmem_strategy_name(s), i, of[i], k);
  if (st) {
    free(of);
    return st;
  }
  *out_of = of;
  *out_k = k;
  return TEXMEM_STATUS_OK;
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

/* One named objects strategy, reported. */
/* keep_candidates: a copy of candidate c's assignment (n entries of size
 * bytes each) in *slot; false when out of memory. */
static bool keep_copy(void **slot, const void *a, size_t n, size_t size) {
  *slot = malloc((n ? n : 1) * size);
  if (!*slot) return false;
  memcpy(*slot, a, n * size);
  return true;
}

static texmem_status plan_objects_named(const texmem__problem *pb, texmem_strategy s,
                                        texmem__objects_result *res, texmem__budget *bg,
                                        texmem_error *err) {
  double t0 = texmem__now_ms();
  texmem_status st = run_objects(pb, s, &res->object_of, &res->n_objects, err);
  if (st) return st;
  res->total = texmem__objects_total_sat(pb, res->object_of, res->n_objects);
  res->chosen = s;
  report_planned(&bg->reports[s], res->total, res->n_objects, texmem__now_ms() - t0);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__plan_objects(const texmem__problem *pb, texmem_strategy s,
                                   texmem__objects_result *res, texmem__budget *bg,
                                   texmem_error *err) {
  res->object_of = NULL;
  if (s != TEXMEM_STRATEGY_BEST) return plan_objects_named(pb, s, res, bg, err);
  res->total = UINT64_MAX;
  texmem_status last = TEXMEM_STATUS_UNSUPPORTED;
  for (unsigned i = 0; i < TEXMEM_STRATEGY_COUNT_; i++) {
    texmem_strategy c = (texmem_strategy)i;
    if (c == TEXMEM_STRATEGY_BEST || !objects_fn(c)) continue;
    if (!texmem__budget_allows(bg, TEXMEM_PLAN_OBJECTS, c, pb->n)) continue;
    size_t *cof = NULL, ck = 0;
    texmem_error e;
    double t0 = texmem__now_ms();
    texmem_status st = run_objects(pb, c, &cof, &ck, &e);
    if (st == TEXMEM_STATUS_OUT_OF_MEMORY) {
      free(res->object_of);
      res->object_of = NULL;
      if (err) *err = e;
      return st;
    }
    if (st) { /* this strategy cannot take the input; the others go on */
      report_failed(&bg->reports[c], st, &e, texmem__now_ms() - t0);
      last = st;
      if (err) *err = e;
      continue;
    }
    uint64_t t = texmem__objects_total_sat(pb, cof, ck);
    report_planned(&bg->reports[c], t, ck, texmem__now_ms() - t0);
    if (bg->kept) {
      bg->kept->n_objects[c] = ck;
      if (!keep_copy((void **)&bg->kept->object_of[c], cof, pb->n, sizeof *cof)) {
        free(cof);
        free(res->object_of);
        res->object_of = NULL;
        return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
      }
    }
    if (!res->object_of || t < res->total) {
      free(res->object_of);
      *res = (texmem__objects_result){cof, ck, t, c};
    } else {
      free(cof);
    }
  }
  return res->object_of ? TEXMEM_STATUS_OK : last;
}

/* One offsets strategy as BEST runs it (exact search gets at most the time
 * left); its status, its total in *t and its bound raised from res->bound. */
static texmem_status run_offsets_candidate(const texmem__problem *pb, texmem_strategy c,
                                           uint64_t *tmp, bool *opt, uint64_t *b, uint64_t *t,
                                           texmem__budget *bg, texmem_error *e) {
  texmem__problem sub = *pb;
  if (c == TEXMEM_STRATEGY_EXACT) {
    double left = texmem__budget_left_ms(bg);
    if (left < sub.exact_time_budget_ms) sub.exact_time_budget_ms = left;
  }
  double t0 = texmem__now_ms();
  texmem_status st = offsets_fn(c)(&sub, tmp, opt, b, e);
  if (st == TEXMEM_STATUS_OUT_OF_MEMORY) return st;
  if (st) {
    report_failed(&bg->reports[c], st, e, texmem__now_ms() - t0);
    return st;
  }
  *t = texmem__offsets_total_sat(pb, tmp);
  report_planned(&bg->reports[c], *t, 1, texmem__now_ms() - t0);
  return TEXMEM_STATUS_OK;
}

/* BEST over the offsets strategies (tflm_greedy, a comparison only, is not
 * one of them). */
static texmem_status plan_offsets_best(const texmem__problem *pb, uint64_t *off,
                                       texmem__offsets_result *res, texmem__budget *bg,
                                       texmem_error *err) {
  size_t m = pb->n ? pb->n : 1;
  uint64_t *tmp = calloc(m, sizeof *tmp);
  if (!tmp) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  bool have = false;
  texmem_status last = TEXMEM_STATUS_UNSUPPORTED;
  for (unsigned i = 0; i < TEXMEM_STRATEGY_COUNT_; i++) {
    texmem_strategy c = (texmem_strategy)i;
    if (c == TEXMEM_STRATEGY_BEST || c == TEXMEM_STRATEGY_TFLM_GREEDY || !offsets_fn(c)) continue;
    if (!texmem__budget_allows(bg, TEXMEM_PLAN_OFFSETS, c, pb->n)) continue;
    bool opt = false;
    uint64_t b = res->bound, t = 0;
    texmem_error e;
    texmem_status st = run_offsets_candidate(pb, c, tmp, &opt, &b, &t, bg, &e);
    if (st) {
      if (err) *err = e;
      if (st == TEXMEM_STATUS_OUT_OF_MEMORY) {
        free(tmp);
        return st;
      }
      last = st;
      continue;
    }
    if (bg->kept) {
      bg->kept->optimal[c] = opt;
      bg->kept->bound[c] = b;
      if (!keep_copy((void **)&bg->kept->offset[c], tmp, pb->n, sizeof *tmp)) {
        free(tmp);
        return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
      }
    }
    if (b > res->bound) res->bound = b;
    if (!have || t < res->total || (t == res->total && opt && !res->optimal)) {
      memcpy(off, tmp, m * sizeof *tmp);
      res->total = t;
      res->chosen = c;
      res->optimal = opt;
      have = true;
    }
  }
  free(tmp);
  return have ? TEXMEM_STATUS_OK : last;
}

texmem_status texmem__plan_offsets(const texmem__problem *pb, texmem_strategy s, uint64_t *off,
                                   texmem__offsets_result *res, texmem__budget *bg,
                                   texmem_error *err) {
  if (s == TEXMEM_STRATEGY_BEST) return plan_offsets_best(pb, off, res, bg, err);
  double t0 = texmem__now_ms();
  texmem_status st = offsets_fn(s)(pb, off, &res->optimal, &res->bound, err);
  if (st) return st;
  res->total = texmem__offsets_total_sat(pb, off);
  res->chosen = s;
  report_planned(&bg->reports[s], res->total, 1, texmem__now_ms() - t0);
  return TEXMEM_STATUS_OK;
}

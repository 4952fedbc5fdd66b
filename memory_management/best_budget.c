/* BEST's time budget (texmem_plan_desc.time_budget_ms). Decisions come from
 * sizes and fixed cost estimates, not timings, so the same input and budget
 * give the same plan on any machine (only the "budget spent" rule reads the
 * clock, and it only applies to the quadratic strategies and exact search):
 *  - linear ones (naive, equality, greedy_in_order) always run;
 *  - the n log n greedy ones cost a few seconds per 10^6 tensors: one of
 *    them (the kind's primary) always runs, the others while the
 *    estimates of those run so far stay within the budget;
 *  - those that grow about quadratically on some inputs run only up to a
 *    size that fits the default 2 s budget, scaled by sqrt(budget / 2 s),
 *    and not once the budget is spent (texmem_strategy_within_budget is
 *    this size rule, for callers that run strategies by name);
 *  - exact search gets at most the time left.
 * Calls nothing of the planner. */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "internal.h"

double texmem__now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

texmem__budget texmem__budget_start(double budget_ms, texmem_strategy_report *reports) {
  return (texmem__budget){texmem__now_ms(), budget_ms > 0 ? budget_ms : TEXMEM__DEFAULT_BUDGET_MS,
                          0, reports, NULL};
}

/* Records a strategy's size limit for the default budget; 0 for those
 * whose cost grows at most as n log n. tflm_greedy is not a candidate of
 * BEST: its limit serves callers that run it by name. */
static size_t quadratic_max_n(texmem_strategy s) {
  switch (s) {
    case TEXMEM_STRATEGY_MIN_COST_FLOW: return 20000;
    case TEXMEM_STRATEGY_LOCAL_SEARCH: return 10000;
    case TEXMEM_STRATEGY_STRIP_BEST_FIT: return 10000;
    case TEXMEM_STRATEGY_TFLM_GREEDY: return 10000;
    default: return 0;
  }
}

bool texmem_strategy_within_budget(texmem_strategy s, size_t n, double time_budget_ms, char *why,
                                   size_t why_size) {
  size_t base = quadratic_max_n(s);
  if (!base) return true;
  double budget_ms = time_budget_ms > 0 ? time_budget_ms : TEXMEM__DEFAULT_BUDGET_MS;
  double lim = (double)base * sqrt(budget_ms / TEXMEM__DEFAULT_BUDGET_MS);
  if ((double)n <= lim) return true;
  if (why && why_size)
    snprintf(why, why_size,
             "%zu tensors: over its limit of %.0f for a %.0f ms budget (its cost grows about "
             "quadratically)",
             n, lim, budget_ms);
  return false;
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

static bool skip(texmem_strategy_report *r) {
  r->outcome = TEXMEM_RUN_SKIPPED;
  return false;
}

bool texmem__budget_allows(texmem__budget *b, texmem_plan_kind kind, texmem_strategy c, size_t n) {
  texmem_strategy_report *r = &b->reports[c];
  double est = nlogn_ms_per_million(kind, c) * (double)n / 1e6;
  if (est > 0 && c != primary(kind)) {
    /* the primary's estimate is kept for it when it runs later */
    double reserve = b->reports[primary(kind)].outcome == TEXMEM_RUN_NOT_RUN
                         ? nlogn_ms_per_million(kind, primary(kind)) * (double)n / 1e6
                         : 0;
    if (b->estimated_ms + est + reserve > b->budget_ms) {
      snprintf(r->reason, sizeof r->reason,
               "%zu tensors: its estimated %.0f ms would pass the %.0f ms budget", n, est,
               b->budget_ms);
      return skip(r);
    }
  }
  if (est > 0) b->estimated_ms += est;
  double spent = texmem__now_ms() - b->start_ms;
  if (!texmem_strategy_within_budget(c, n, b->budget_ms, r->reason, sizeof r->reason))
    return skip(r);
  if ((quadratic_max_n(c) || c == TEXMEM_STRATEGY_EXACT) && spent >= b->budget_ms) {
    snprintf(r->reason, sizeof r->reason, "the %.0f ms budget was spent (%.0f ms) before it",
             b->budget_ms, spent);
    return skip(r);
  }
  return true;
}

double texmem__budget_left_ms(const texmem__budget *b) {
  return b->budget_ms - (texmem__now_ms() - b->start_ms);
}

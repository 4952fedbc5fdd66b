/* texmem plan --json: one object, keys in a fixed order (docs/cli-plan.md).
 * Only numbers, booleans and the library's own names are written, so no
 * string needs escaping beyond what cli_json_str does for safety. */
#include <inttypes.h>

#include "cli_util.h"
#include "plan_out.h"

bool cli_plan_write_json(FILE *f, const plan_run *run) {
  fprintf(f, "{\"records\": %zu, \"dims\": %u, \"lower_bounds\": {\"max_live\": %" PRIu64
             ", \"positional_max\": %" PRIu64 "}, \"results\": [",
          run->n, run->dims, run->bounds.max_live, run->bounds.positional_max);
  for (size_t i = 0; i < run->nresults; i++) {
    const plan_result *r = &run->results[i];
    const texmem_plan *p = r->plan;
    fprintf(f, "%s\n  {\"kind\": ", i ? "," : "");
    cli_json_str(f, r->kind == TEXMEM_PLAN_OBJECTS ? "objects" : "offsets");
    fprintf(f, ", \"layout\": ");
    cli_json_str(f, r->layout == TEXMEM_LAYOUT_LINEAR ? "linear" : "natural");
    if (r->layout == TEXMEM_LAYOUT_LINEAR)
      fprintf(f, ", \"linear_width\": %" PRIu64, texmem_plan_linear_width(p));
    if (!p) { /* --strategy all: a strategy best skipped, or one that failed */
      fprintf(f, ", \"strategy\": ");
      cli_json_str(f, texmem_strategy_name(r->requested));
      fprintf(f, ", \"outcome\": ");
      cli_json_str(f, r->outcome == TEXMEM_RUN_SKIPPED ? "skipped" : "failed");
      fprintf(f, ", \"reason\": ");
      cli_json_str(f, r->reason);
      fprintf(f, "}");
      continue;
    }
    fprintf(f, ", \"strategy\": ");
    cli_json_str(f, texmem_strategy_name(r->requested));
    if (r->requested == TEXMEM_STRATEGY_BEST) {
      fprintf(f, ", \"chosen\": ");
      cli_json_str(f, texmem_strategy_name(texmem_plan_get_strategy(p)));
    }
    fprintf(f, ", \"total\": %" PRIu64 ", \"objects\": %zu, \"time_us\": %.1f, \"valid\": true",
            texmem_plan_total(p), texmem_plan_object_count(p), r->time_us);
    if (r->kind == TEXMEM_PLAN_OFFSETS)
      fprintf(f, ", \"optimal\": %s, \"bound\": %" PRIu64,
              texmem_plan_is_optimal(p) ? "true" : "false", texmem_plan_bound(p));
    if (run->budget) {
      texmem_fit fit = texmem_plan_fits(p);
      fprintf(f, ", \"fits\": %s",
              fit == TEXMEM_FIT_FITS ? "true" : fit == TEXMEM_FIT_DOES_NOT_FIT ? "false" : "null");
    }
    if (r->requested == TEXMEM_STRATEGY_BEST) { /* what best left out for its budget */
      fprintf(f, ", \"skipped\": [");
      bool any = false;
      for (unsigned s = 1; s < TEXMEM_STRATEGY_COUNT_; s++)
        if (texmem_plan_strategy_report(p, (texmem_strategy)s).outcome == TEXMEM_RUN_SKIPPED) {
          fprintf(f, "%s", any ? ", " : "");
          cli_json_str(f, texmem_strategy_name((texmem_strategy)s));
          any = true;
        }
      fprintf(f, "]");
    }
    fprintf(f, ", \"assignment\": [");
    for (size_t t = 0; t < run->n; t++) {
      if (t) fputs(t % 16 ? ", " : ",\n    ", f);
      if (r->kind == TEXMEM_PLAN_OBJECTS) fprintf(f, "%zu", texmem_plan_tensor_object(p, t));
      else fprintf(f, "%" PRIu64, texmem_plan_tensor_offset(p, t));
    }
    fprintf(f, "]}");
  }
  fprintf(f, "%s]}\n", run->nresults ? "\n" : "");
  return !ferror(f);
}

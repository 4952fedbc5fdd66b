/* texmem plan: the results of one run and the writers that print them
 * (table in cmd_plan.c, JSON in plan_json.c, SVG in plan_svg.c). */
#ifndef TEXMEM_CLI_PLAN_OUT_H
#define TEXMEM_CLI_PLAN_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "texmem/plan.h"

/* One row. The plan is owned by the result (freed with the run) unless
 * shares_plan (it is then best's plan, owned by best's row); it is NULL
 * when the strategy did not plan (outcome SKIPPED or FAILED under
 * --strategy all, as BEST reported it; reason says why). */
typedef struct plan_result {
  texmem_plan_kind kind;
  texmem_layout layout;
  texmem_strategy requested; /* BEST or the strategy named */
  texmem_plan *plan;
  texmem_run_outcome outcome; /* PLANNED when plan is set */
  char reason[200];
  double time_us; /* wall time of texmem_plan_create, or of the strategy
                     within best (rows best planned: their kept plans) */
  bool smallest;  /* smallest total of its kind (ties all marked) */
  bool shares_plan; /* plan is best's (the strategy best chose, objects) */
} plan_result;

/* Everything the writers need. Records are borrowed from the loaded file. */
typedef struct plan_run {
  const char *path;
  const texmem_record *rec;
  size_t n;
  unsigned dims;
  texmem_bounds bounds;
  uint64_t bytes_per_texel; /* textures only; 1-D sizes are bytes */
  uint64_t budget;          /* --budget (0: none) */
  plan_result *results;
  size_t nresults;
} plan_run;

/* Writers return false when writing failed (errno is left set). */
bool cli_plan_write_json(FILE *f, const plan_run *run);
/* Draws run->results[chosen]. */
bool cli_plan_write_svg(FILE *f, const plan_run *run, size_t chosen);

#endif

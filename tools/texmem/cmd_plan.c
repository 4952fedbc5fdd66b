/* texmem plan: plans a records file, or straight from a .tflite model (its
 * usage records), with one or every strategy and prints a table, JSON, and
 * optionally an SVG picture. A client of the public planner and model API. Every plan is validated again before anything is
 * printed, and nothing is printed until every requested plan succeeded. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "plan_out.h"
#ifdef TEXMEM_HAVE_MODEL
#include "model_args.h"
#endif

#define KIND_ALL (-1)
#define LAYOUT_DEFAULT (-1)

typedef struct opts {
  const char *records;
  const char *model;  /* --model: records made from a .tflite */
  unsigned model_dims;
  texmem_precision precision;
  bool bpt_given;
  const char *model_only; /* a --model option given (for the error without one) */
#ifdef TEXMEM_HAVE_MODEL
  cli_input_shapes shapes;
#endif
  const char *svg;
  bool json;
  int kind;           /* KIND_ALL or a texmem_plan_kind */
  bool strategy_all;  /* every strategy of the kind, plus best */
  texmem_strategy strategy;
  int layout;         /* LAYOUT_DEFAULT or a texmem_layout */
  uint64_t alignment; /* 0 = 1 */
  uint64_t max_dims[3];
  uint64_t bytes_per_texel;
  double time_budget_ms; /* BEST's and exact's budget; 0 = the library's default */
  uint64_t node_budget;  /* exact's nodes; 0 = the library's default */
  uint64_t budget;       /* --budget: the oracle's question; 0 = none */
} opts;

static void usage(FILE *f) {
  fprintf(f,
          "usage: texmem plan --records FILE [options]\n"
          "       texmem plan --model FILE.tflite [--dims N] [--precision P] [options]\n"
          "\n"
          "Plans the tensors of a usage-records file, or of a TFLite model, into shared\n"
          "objects and/or one arena (offsets) and prints each plan's total next to the\n"
          "lower bounds.\n"
          "\n"
          "options:\n"
          "  --records FILE          usage records (tensor_id first_task last_task dims...)\n"
          "  --model FILE.tflite     plan the model's intermediate tensors (as texmem\n"
          "                          records MODEL prints them; any valid model, whether or\n"
          "                          not texmem can run its operators)\n"
          "  --dims N                with --model: 1 (bytes), 2 or 3 (texels; default 3, the\n"
          "                          2-D array textures the runtime uses)\n"
          "  --precision P           with --model: fp16 (default), fp32 or stored (as texmem\n"
          "                          records); sets the MiB column's bytes per texel\n"
          "  --input-shape [NAME=]D0,D1,...\n"
          "                          with --model: a graph input's shape where the model has\n"
          "                          dynamic dimensions (repeatable)\n"
          "  --kind K                objects | offsets | all (default all)\n"
          "  --strategy S            a strategy name or all (default all: every strategy\n"
          "                          that plans the kind, then best)\n"
          "  --layout L              natural | linear: texture objects of 2-D/3-D records\n"
          "                          (default: natural, plus linear rows for 2-D/3-D);\n"
          "                          with --kind offsets, linear plans the GPU arena\n"
          "                          (offsets in rows of W-wide textures)\n"
          "  --align N               arena alignment for offsets, in size units (default 1)\n"
          "  --max-dims W[,H[,D]]    texture size limits per dimension (0 = none)\n"
          "  --bytes-per-texel N     bytes per texel for the MiB column (default 8, fp16\n"
          "                          RGBA); 1-D records are already in bytes\n"
          "  --time-budget-ms N      best's planning time per kind and layout (default\n"
          "                          2000); strategies of quadratic cost are skipped on\n"
          "                          records too large for it, and listed as skipped;\n"
          "                          also exact's search time (default 1000)\n"
          "  --node-budget N         exact's search nodes (default 2000000)\n"
          "  --budget N              offsets only: does the arena fit in N (bytes, or the\n"
          "                          plan's unit)? exact then answers that question; the\n"
          "                          exit status gives the answer (below); JSON \"fits\"\n"
          "  --json                  print JSON instead of the table\n"
          "  --svg FILE              draw the smallest plan of the first kind requested\n"
          "  --help                  this text\n"
          "\n"
          "strategies:");
  for (unsigned s = 0; s < TEXMEM_STRATEGY_COUNT_; s++) {
    texmem_strategy st = (texmem_strategy)s;
    bool ob = texmem_strategy_supports(st, TEXMEM_PLAN_OBJECTS);
    bool of = texmem_strategy_supports(st, TEXMEM_PLAN_OFFSETS);
    fprintf(f, "\n  %-18s %s", texmem_strategy_name(st),
            ob && of ? "objects, offsets" : ob ? "objects" : of ? "offsets" : "-");
  }
  fprintf(f,
          "\n\nexit status: 0 ok, 2 bad input (flags, records, limits, strategy), 1 internal;\n"
          "with --budget: 0 fits (a plan at or under it), 3 does not fit (proven: a bound\n"
          "or a completed search above it), 4 unknown within the budgets\n");
}

static bool parse_max_dims(const char *s, uint64_t out[3]) {
  char buf[128];
  size_t len = strlen(s);
  if (len == 0 || len >= sizeof buf) return false;
  memcpy(buf, s, len + 1);
  out[0] = out[1] = out[2] = 0;
  char *p = buf;
  for (int k = 0; k < 3; k++) {
    char *comma = strchr(p, ',');
    if (comma) *comma = 0;
    if (!cli_parse_u64(p, &out[k])) return false;
    if (!comma) return true;
    p = comma + 1;
  }
  return false; /* more than three values */
}

/* apply_value's model and budget options. */
static int apply_model_or_budget(opts *o, const char *name, const char *val) {
  bool ok = true;
  if (!strcmp(name, "--dims")) {
    o->model_only = name;
    ok = (!strcmp(val, "1") || !strcmp(val, "2") || !strcmp(val, "3"));
    if (ok) o->model_dims = (unsigned)(val[0] - '0');
  } else if (!strcmp(name, "--precision")) {
    o->model_only = name;
    if (!strcmp(val, "fp16")) o->precision = TEXMEM_PRECISION_FP16;
    else if (!strcmp(val, "fp32")) o->precision = TEXMEM_PRECISION_FP32;
    else if (!strcmp(val, "stored")) o->precision = TEXMEM_PRECISION_STORED;
    else ok = false;
  } else if (!strcmp(name, "--input-shape")) {
    o->model_only = name;
#ifdef TEXMEM_HAVE_MODEL
    if (!cli_input_shape_add(&o->shapes, "plan", val)) return CLI_EXIT_BAD_INPUT;
#else
    ok = false;
#endif
  } else if (!strcmp(name, "--time-budget-ms")) {
    /* The one place the budget is parsed: it sets best's budget here
     * (desc.time_budget_ms in plan_one). */
    uint64_t ms = 0;
    ok = cli_parse_u64(val, &ms) && ms > 0 && ms <= 86400000u;
    o->time_budget_ms = (double)ms;
  } else if (!strcmp(name, "--node-budget")) {
    ok = cli_parse_u64(val, &o->node_budget) && o->node_budget > 0;
  } else if (!strcmp(name, "--budget")) {
    ok = cli_parse_u64(val, &o->budget) && o->budget > 0;
  }
  return ok ? -1 : 0;
}

/* Options with a value: "--opt VALUE" or "--opt=VALUE". */
static const char *const with_value[] = {"--records", "--kind", "--strategy", "--layout",
                                         "--align", "--max-dims", "--bytes-per-texel",
                                         "--svg", "--model", "--dims", "--precision",
                                         "--input-shape", "--time-budget-ms",
                                         "--node-budget", "--budget"};

/* Applies option name (one of with_value) with val. Returns -1 when taken,
 * 0 for a bad value, else an exit code (the message printed). */
static int apply_value(opts *o, const char *name, const char *val) {
  bool ok = true;
  if (!strcmp(name, "--records")) {
    o->records = val;
    ok = *val != 0;
  } else if (!strcmp(name, "--svg")) {
    o->svg = val;
    ok = *val != 0;
  } else if (!strcmp(name, "--kind")) {
    if (!strcmp(val, "objects")) o->kind = TEXMEM_PLAN_OBJECTS;
    else if (!strcmp(val, "offsets")) o->kind = TEXMEM_PLAN_OFFSETS;
    else if (!strcmp(val, "all")) o->kind = KIND_ALL;
    else ok = false;
  } else if (!strcmp(name, "--strategy")) {
    if (!strcmp(val, "all")) {
      o->strategy_all = true;
    } else if (texmem_strategy_from_name(val, &o->strategy)) {
      o->strategy_all = false;
    } else {
      fprintf(stderr, "texmem plan: unknown strategy '%s' (texmem plan --help lists them)\n", val);
      return CLI_EXIT_BAD_INPUT;
    }
  } else if (!strcmp(name, "--layout")) {
    if (!strcmp(val, "natural")) o->layout = TEXMEM_LAYOUT_NATURAL;
    else if (!strcmp(val, "linear")) o->layout = TEXMEM_LAYOUT_LINEAR;
    else ok = false;
  } else if (!strcmp(name, "--align")) {
    ok = cli_parse_u64(val, &o->alignment) && o->alignment > 0;
  } else if (!strcmp(name, "--max-dims")) {
    ok = parse_max_dims(val, o->max_dims);
  } else if (!strcmp(name, "--bytes-per-texel")) {
    ok = cli_parse_u64(val, &o->bytes_per_texel) && o->bytes_per_texel > 0;
    o->bpt_given = true;
  } else if (!strcmp(name, "--model")) {
    o->model = val;
    ok = *val != 0;
  } else {
    return apply_model_or_budget(o, name, val);
  }
  return ok ? -1 : 0;
}

/* The options together. Returns -1 when they agree, else an exit code. */
static int check_opts(opts *o) {
  if (!o->records == !o->model) {
    fprintf(stderr, "texmem plan: give one of --records FILE or --model FILE.tflite (texmem plan "
                    "--help)\n");
    return CLI_EXIT_BAD_INPUT;
  }
#ifndef TEXMEM_HAVE_MODEL
  if (o->model) {
    fprintf(stderr, "texmem plan: --model needs the model reader (built without it)\n");
    return CLI_EXIT_BAD_INPUT;
  }
#endif
  if (o->records && o->model_only) {
    fprintf(stderr, "texmem plan: %s applies to --model only\n", o->model_only);
    return CLI_EXIT_BAD_INPUT;
  }
  if (o->budget && o->kind == TEXMEM_PLAN_OBJECTS) {
    fprintf(stderr, "texmem plan: --budget asks about the arena: it needs --kind offsets\n");
    return CLI_EXIT_BAD_INPUT;
  }
  if (o->budget) o->kind = TEXMEM_PLAN_OFFSETS;
  if (!o->bpt_given && o->precision == TEXMEM_PRECISION_FP32) o->bytes_per_texel = 16;
  return -1;
}

/* Returns -1 on success (go on), else an exit code. */
static int parse_args(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->kind = KIND_ALL;
  o->strategy_all = true;
  o->layout = LAYOUT_DEFAULT;
  o->bytes_per_texel = 8;
  o->model_dims = 3;
  o->precision = TEXMEM_PRECISION_FP16;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return CLI_EXIT_OK;
    }
    if (!strcmp(a, "--json")) {
      o->json = true;
      continue;
    }
    const char *name = NULL, *val = NULL;
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++) {
      size_t l = strlen(with_value[k]);
      if (!strncmp(a, with_value[k], l) && (a[l] == 0 || a[l] == '=')) {
        name = with_value[k];
        if (a[l] == '=') {
          val = a + l + 1;
        } else if (i + 1 < argc) {
          val = argv[++i];
        } else {
          fprintf(stderr, "texmem plan: %s needs a value\n", name);
          return CLI_EXIT_BAD_INPUT;
        }
        break;
      }
    }
    if (!name) {
      fprintf(stderr, "texmem plan: unknown argument '%s' (texmem plan --help)\n", a);
      return CLI_EXIT_BAD_INPUT;
    }
    int rc = apply_value(o, name, val);
    if (rc == 0) {
      fprintf(stderr, "texmem plan: bad value '%s' for %s\n", val, name);
      return CLI_EXIT_BAD_INPUT;
    }
    if (rc > 0) return rc;
  }
  return check_opts(o);
}

static const char *kind_name(texmem_plan_kind k) {
  return k == TEXMEM_PLAN_OBJECTS ? "objects" : "offsets";
}

static void free_results(plan_run *run) {
  for (size_t i = 0; i < run->nresults; i++)
    if (!run->results[i].shares_plan) texmem_plan_destroy(run->results[i].plan);
  free(run->results);
  run->results = NULL;
  run->nresults = 0;
}

/* A row for a strategy that did not plan (as BEST reported it). */
static void add_unplanned(plan_run *run, texmem_plan_kind kind, texmem_layout layout,
                          texmem_strategy s, texmem_run_outcome outcome, const char *reason) {
  plan_result *r = &run->results[run->nresults++];
  memset(r, 0, sizeof *r);
  r->kind = kind;
  r->layout = layout;
  r->requested = s;
  r->outcome = outcome;
  snprintf(r->reason, sizeof r->reason, "%s", reason);
}

/* Plans one row. Returns -1 when planned or skipped, else an exit code.
 * With keep_failed (--strategy all), a strategy that refuses the input
 * becomes a "failed" row and the others go on; with keep (BEST under
 * --strategy all), the plan keeps every plan BEST made for the rows. */
static int plan_one(plan_run *run, const opts *o, texmem_plan_kind kind, texmem_layout layout,
                    texmem_strategy s, bool skip_unsupported, bool keep_failed, bool keep) {
  texmem_plan_desc d;
  memset(&d, 0, sizeof d);
  d.kind = kind;
  d.strategy = s;
  d.layout = layout;
  d.time_budget_ms = o->time_budget_ms;
  d.exact_time_budget_ms = o->time_budget_ms;
  d.exact_node_budget = o->node_budget;
  d.budget = o->budget;
  d.alignment = o->alignment;
  d.keep_candidates = keep;
  memcpy(d.max_dims, o->max_dims, sizeof d.max_dims);
  texmem_plan *p = NULL;
  texmem_error err;
  memset(&err, 0, sizeof err);
  double t0 = (cli_now_ms() * 1e3);
  texmem_status st = texmem_plan_create(run->rec, run->n, run->dims, &d, &p, &err);
  double t1 = (cli_now_ms() * 1e3);
  const char *layout_name = layout == TEXMEM_LAYOUT_LINEAR ? "linear" : "natural";
  if (st == TEXMEM_STATUS_UNSUPPORTED && skip_unsupported) {
    fprintf(stderr, "texmem plan: note: skipped %s %s %s: %s\n", texmem_strategy_name(s),
            kind_name(kind), layout_name, err.message);
    return -1;
  }
  if (st && keep_failed && st != TEXMEM_STATUS_OUT_OF_MEMORY &&
      cli_exit_for(st) == CLI_EXIT_BAD_INPUT) {
    char why[200];
    snprintf(why, sizeof why, "%s: %.170s", texmem_status_name(st), err.message);
    add_unplanned(run, kind, layout, s, TEXMEM_RUN_FAILED, why);
    return -1;
  }
  if (st) {
    fprintf(stderr, "texmem plan: %s %s %s: %s: %s\n", texmem_strategy_name(s), kind_name(kind),
            layout_name, texmem_status_name(st), err.message);
    return cli_exit_for(st);
  }
  /* texmem_plan_create validated the plan against these records (a second
   * pass here cost seconds at 10^6 records); the count is cheap to check. */
  if (texmem_plan_tensor_count(p) != run->n) {
    fprintf(stderr, "texmem plan: internal error: %s %s plan has %zu tensors, not %zu\n",
            texmem_strategy_name(s), kind_name(kind), texmem_plan_tensor_count(p), run->n);
    texmem_plan_destroy(p);
    return CLI_EXIT_INTERNAL;
  }
  plan_result *r = &run->results[run->nresults++];
  r->kind = kind;
  r->layout = layout;
  r->requested = s;
  r->plan = p;
  r->outcome = TEXMEM_RUN_PLANNED;
  r->reason[0] = 0;
  r->time_us = t1 - t0;
  r->smallest = false;
  return -1;
}

/* The row of strategy st under --strategy all, after best planned these
 * records (best.plan). Returns -1 or an exit code. */
static int plan_after_best(plan_run *run, const opts *o, texmem_plan_kind kind,
                           texmem_layout layout, texmem_strategy st, const plan_result *best) {
  texmem_strategy_report rep = texmem_plan_strategy_report(best->plan, st);
  if (rep.outcome == TEXMEM_RUN_SKIPPED) {
    add_unplanned(run, kind, layout, st, rep.outcome, rep.reason);
    return -1;
  }
  /* A strategy best does not weigh (tflm_greedy) keeps to the same size
   * rule; --strategy NAME runs it at any size. */
  if (!texmem_strategy_within_budget(st, run->n, o->time_budget_ms, rep.reason,
                                     sizeof rep.reason)) {
    add_unplanned(run, kind, layout, st, TEXMEM_RUN_SKIPPED, rep.reason);
    return -1;
  }
  /* The objects strategy best chose planned exactly best's plan (the same
   * problem, deterministic): its row shows that plan and the strategy's
   * time within best. (Offsets: best's arena carries the bound exact
   * proved, so the row gets the kept plan below.) */
  if (kind == TEXMEM_PLAN_OBJECTS && rep.outcome == TEXMEM_RUN_PLANNED &&
      texmem_plan_get_strategy(best->plan) == st) {
    plan_result *r = &run->results[run->nresults++];
    *r = *best;
    r->requested = st;
    r->time_us = rep.time_ms * 1e3;
    r->shares_plan = true;
    return -1;
  }
  /* Any other strategy best planned: the plan it kept (not planned again:
   * at 10^6 records that halves the default's time). Exact search within
   * best had only the time left; unless that settled the question, it
   * runs again with its own budget. */
  texmem_plan *kept = NULL;
  if (rep.outcome == TEXMEM_RUN_PLANNED &&
      !texmem_plan_candidate(best->plan, run->rec, run->n, run->dims, st, &kept, NULL) &&
      st == TEXMEM_STRATEGY_EXACT && !texmem_plan_is_optimal(kept) &&
      !(o->budget && texmem_plan_fits(kept) != TEXMEM_FIT_UNKNOWN)) {
    texmem_plan_destroy(kept);
    kept = NULL;
  }
  if (kept) {
    plan_result *r = &run->results[run->nresults++];
    *r = (plan_result){.kind = kind, .layout = layout, .requested = st, .plan = kept,
                       .outcome = TEXMEM_RUN_PLANNED, .time_us = rep.time_ms * 1e3};
    return -1;
  }
  return plan_one(run, o, kind, layout, st, true, true, false);
}

/* --strategy all for one kind and layout: best first (its reports say
 * which strategies it skipped or saw fail: those rows are not run again),
 * then each strategy in enum order; best's row is listed last. Returns -1
 * or an exit code. */
static int plan_every_strategy(plan_run *run, const opts *o, texmem_plan_kind kind,
                               texmem_layout layout) {
  size_t before = run->nresults;
  int rc = plan_one(run, o, kind, layout, TEXMEM_STRATEGY_BEST, true, false, true);
  if (rc >= 0 || run->nresults == before) return rc; /* an error, or not for these records */
  plan_result best = run->results[--run->nresults];
  for (unsigned s = 1; s < TEXMEM_STRATEGY_COUNT_ && rc < 0; s++)
    if (texmem_strategy_supports((texmem_strategy)s, kind))
      rc = plan_after_best(run, o, kind, layout, (texmem_strategy)s, &best);
  if (rc >= 0) {
    texmem_plan_destroy(best.plan);
    return rc;
  }
  run->results[run->nresults++] = best;
  return -1;
}

/* Marks the smallest total of each kind (ties all marked). */
static void mark_smallest(plan_run *run) {
  for (int ki = 0; ki < 2; ki++) {
    uint64_t min = UINT64_MAX;
    for (size_t i = 0; i < run->nresults; i++)
      if ((int)run->results[i].kind == ki && run->results[i].plan &&
          texmem_plan_total(run->results[i].plan) < min)
        min = texmem_plan_total(run->results[i].plan);
    for (size_t i = 0; i < run->nresults; i++)
      if ((int)run->results[i].kind == ki && run->results[i].plan &&
          texmem_plan_total(run->results[i].plan) == min)
        run->results[i].smallest = true;
  }
}

/* Plans every row the options ask for. Returns -1 or an exit code. */
static int plan_all(plan_run *run, const opts *o) {
  size_t cap = 2 * 2 * (size_t)TEXMEM_STRATEGY_COUNT_;
  run->results = calloc(cap, sizeof *run->results);
  if (!run->results) {
    fprintf(stderr, "texmem plan: out of memory\n");
    return CLI_EXIT_INTERNAL;
  }
  for (int ki = 0; ki < 2; ki++) {
    texmem_plan_kind kind = (texmem_plan_kind)ki;
    if (o->kind != KIND_ALL && o->kind != ki) continue;
    /* A named strategy under --kind all runs for the kinds it plans. */
    if (!o->strategy_all && o->kind == KIND_ALL && !texmem_strategy_supports(o->strategy, kind))
      continue;
    texmem_layout layouts[2];
    int nl = 0;
    if (kind == TEXMEM_PLAN_OFFSETS) {
      /* The arena (offsets in rows) only when asked: --layout linear. */
      layouts[nl++] = o->layout == TEXMEM_LAYOUT_LINEAR ? TEXMEM_LAYOUT_LINEAR : TEXMEM_LAYOUT_NATURAL;
    } else if (o->layout != LAYOUT_DEFAULT) {
      layouts[nl++] = (texmem_layout)o->layout;
    } else {
      layouts[nl++] = TEXMEM_LAYOUT_NATURAL;
      if (run->dims >= 2) layouts[nl++] = TEXMEM_LAYOUT_LINEAR;
    }
    for (int li = 0; li < nl; li++) {
      int rc = o->strategy_all ? plan_every_strategy(run, o, kind, layouts[li])
                               : plan_one(run, o, kind, layouts[li], o->strategy, false, false, false);
      if (rc >= 0) return rc;
    }
  }
  if (run->nresults == 0) {
    fprintf(stderr, "texmem plan: no strategy produced a plan (all were skipped)\n");
    return CLI_EXIT_INTERNAL;
  }
  mark_smallest(run);
  return -1;
}

/* --budget: fits when any offsets plan does, does not fit when any proves
 * it (the proof holds for the problem, whoever found it), else unknown. */
static texmem_fit plan_answer(const plan_run *run) {
  texmem_fit a = TEXMEM_FIT_UNKNOWN;
  for (size_t i = 0; i < run->nresults; i++) {
    const plan_result *r = &run->results[i];
    if (!r->plan || r->kind != TEXMEM_PLAN_OFFSETS) continue;
    texmem_fit f = texmem_plan_fits(r->plan);
    if (f == TEXMEM_FIT_FITS) return f;
    if (f == TEXMEM_FIT_DOES_NOT_FIT) a = f;
  }
  return a;
}

static void print_ratio(FILE *f, uint64_t total, uint64_t bound) {
  if (bound) fprintf(f, " %9.3f", (double)total / (double)bound);
  else fprintf(f, " %9s", "-");
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static void print_table(FILE *f, const plan_run *run) {
  const char *unit = run->dims == 1 ? "bytes" : "texels";
  fprintf(f, "records %s: %zu tensors, %u-D, max_live %" PRIu64 ", positional_max %" PRIu64
             " (%s",
          base_name(run->path), run->n, run->dims, run->bounds.max_live,
          run->bounds.positional_max, unit);
  if (run->dims > 1) fprintf(f, "; %" PRIu64 " bytes per texel", run->bytes_per_texel);
  fprintf(f, ")\n");
  fprintf(f, "  %-26s %-7s %-12s %14s %10s %8s %9s %9s %10s\n", "strategy", "kind", "layout",
          "total", "MiB", "objects", "/pos_max", "/max_live", "time_us");
  for (size_t i = 0; i < run->nresults; i++) {
    const plan_result *r = &run->results[i];
    const texmem_plan *p = r->plan;
    char sname[64], lname[32];
    if (!p) {
      fprintf(f, "  %-26s %-7s %-12s %s: %s\n", texmem_strategy_name(r->requested),
              kind_name(r->kind), r->kind == TEXMEM_PLAN_OFFSETS ? "arena"
              : r->layout == TEXMEM_LAYOUT_LINEAR ? "linear" : "natural",
              r->outcome == TEXMEM_RUN_SKIPPED ? "skipped" : "failed", r->reason);
      continue;
    }
    if (r->requested == TEXMEM_STRATEGY_BEST)
      snprintf(sname, sizeof sname, "best (%s)", texmem_strategy_name(texmem_plan_get_strategy(p)));
    else
      snprintf(sname, sizeof sname, "%s", texmem_strategy_name(r->requested));
    if (r->layout == TEXMEM_LAYOUT_LINEAR)
      snprintf(lname, sizeof lname, "linear/%" PRIu64, texmem_plan_linear_width(p));
    else
      snprintf(lname, sizeof lname, "%s", r->kind == TEXMEM_PLAN_OFFSETS ? "arena" : "natural");
    uint64_t total = texmem_plan_total(p);
    double mib = (double)total * (double)(run->dims == 1 ? 1 : run->bytes_per_texel) /
                 (1024.0 * 1024.0);
    fprintf(f, "%c %-26s %-7s %-12s %14" PRIu64 " %10.3f %8zu", r->smallest ? '*' : ' ', sname,
            kind_name(r->kind), lname, total, mib, texmem_plan_object_count(p));
    print_ratio(f, total, run->bounds.positional_max);
    if (r->kind == TEXMEM_PLAN_OFFSETS) print_ratio(f, total, run->bounds.max_live);
    else fprintf(f, " %9s", "-");
    fprintf(f, " %10.1f\n", r->time_us);
  }
  /* What best left out to stay within its time budget. */
  for (size_t i = 0; i < run->nresults; i++) {
    const plan_result *r = &run->results[i];
    if (r->requested != TEXMEM_STRATEGY_BEST || !r->plan) continue;
    for (unsigned s = 1; s < TEXMEM_STRATEGY_COUNT_; s++) {
      texmem_strategy_report rep = texmem_plan_strategy_report(r->plan, (texmem_strategy)s);
      if (rep.outcome == TEXMEM_RUN_SKIPPED)
        fprintf(f, "best %s %s skipped %s: %s\n", kind_name(r->kind),
                r->layout == TEXMEM_LAYOUT_LINEAR ? "linear" : "natural",
                texmem_strategy_name((texmem_strategy)s), rep.reason);
    }
  }
  fprintf(f, "(* smallest total of its kind; objects are bounded by positional_max, the arena "
             "by max_live)\n");
  for (size_t i = 0; i < run->nresults; i++) {
    const plan_result *r = &run->results[i];
    if (!r->plan || r->kind != TEXMEM_PLAN_OFFSETS ||
        (r->requested != TEXMEM_STRATEGY_EXACT && r->requested != TEXMEM_STRATEGY_BEST))
      continue;
    if (texmem_plan_is_optimal(r->plan))
      fprintf(f, "%s: %" PRIu64 " is optimal\n", texmem_strategy_name(r->requested),
              texmem_plan_total(r->plan));
    else
      fprintf(f, "%s: %" PRIu64 ", proven lower bound %" PRIu64 "\n",
              texmem_strategy_name(r->requested), texmem_plan_total(r->plan),
              texmem_plan_bound(r->plan));
  }
  if (run->budget) {
    texmem_fit fit = plan_answer(run);
    fprintf(f, "budget %" PRIu64 ": %s\n", run->budget,
            fit == TEXMEM_FIT_FITS ? "fits" : fit == TEXMEM_FIT_DOES_NOT_FIT ? "does not fit (proven)"
                                                                           : "unknown");
  }
}

/* The plan to draw: the smallest of the first kind requested. */
static size_t svg_choice(const plan_run *run) {
  size_t best = 0;
  while (!run->results[best].plan) best++; /* a planned row exists */
  texmem_plan_kind first = run->results[best].kind;
  for (size_t i = 0; i < run->nresults; i++)
    if (run->results[i].kind == first && run->results[i].plan &&
        texmem_plan_total(run->results[i].plan) < texmem_plan_total(run->results[best].plan))
      best = i;
  return best;
}

static int write_svg(const plan_run *run, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "texmem plan: cannot write %s: %s\n", path, strerror(errno));
    return CLI_EXIT_BAD_INPUT;
  }
  bool ok = cli_plan_write_svg(f, run, svg_choice(run));
  int e = errno;
  if (fclose(f) != 0) {
    ok = false;
    e = errno;
  }
  if (!ok) {
    fprintf(stderr, "texmem plan: writing %s failed: %s\n", path, strerror(e));
    return CLI_EXIT_INTERNAL;
  }
  return -1;
}

int cli_cmd_plan(int argc, char **argv) {
  opts o;
  int rc = parse_args(argc, argv, &o);
  if (rc >= 0) return rc;

  texmem_records *recs = NULL;
  texmem_record *model_rec = NULL; /* --model: malloc'd by texmem_model_records */
  texmem_error err;
  memset(&err, 0, sizeof err);
  plan_run run;
  memset(&run, 0, sizeof run);
  texmem_status st;
  if (o.model) {
#ifdef TEXMEM_HAVE_MODEL
    texmem_model *m = NULL;
    st = cli_load_model(o.model, &o.shapes, &m, &err);
    if (st) {
      fprintf(stderr, "texmem plan: %s (%s)\n", err.message, texmem_status_name(st));
      return cli_exit_for(st);
    }
    st = texmem_model_records(m, o.model_dims, o.precision, &model_rec, &run.n, NULL, &err);
    texmem_model_destroy(m);
    if (st) {
      fprintf(stderr, "texmem plan: %s: records: %s\n", o.model, err.message);
      return cli_exit_for(st);
    }
    run.path = o.model;
    run.rec = model_rec;
    run.dims = o.model_dims;
#endif
  } else {
    st = texmem_records_load(o.records, &recs, &err);
    if (st) {
      /* The loader's messages already name the file and the line. */
      fprintf(stderr, "texmem plan: %s\n", err.message);
      return cli_exit_for(st);
    }
    run.path = o.records;
    run.rec = texmem_records_data(recs);
    run.n = texmem_records_count(recs);
    run.dims = texmem_records_dims(recs);
  }
  run.bytes_per_texel = o.bytes_per_texel;
  run.budget = o.budget;
  if (run.n && (run.dims < 1 || run.dims > 3)) {
    fprintf(stderr, "texmem plan: %s: records have %u dims\n", run.path, run.dims);
    texmem_records_destroy(recs);
    free(model_rec);
    return CLI_EXIT_INTERNAL;
  }
  if (run.dims == 0) run.dims = 1; /* no records: nothing depends on it */
  if (o.layout == TEXMEM_LAYOUT_LINEAR && run.dims == 1) {
    fprintf(stderr, "texmem plan: --layout linear needs 2-D or 3-D records; %s is 1-D\n",
            run.path);
    texmem_records_destroy(recs);
    free(model_rec);
    return CLI_EXIT_BAD_INPUT;
  }
  st = texmem_lower_bounds(run.rec, run.n, run.dims, &run.bounds, &err);
  if (st) {
    fprintf(stderr, "texmem plan: %s: lower bounds: %s\n", run.path, err.message);
    texmem_records_destroy(recs);
    free(model_rec);
    return cli_exit_for(st);
  }
  rc = plan_all(&run, &o);
  if (rc < 0 && o.svg) rc = write_svg(&run, o.svg);
  if (rc < 0) {
    if (o.json) {
      if (!cli_plan_write_json(stdout, &run)) rc = CLI_EXIT_INTERNAL;
    } else {
      print_table(stdout, &run);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
      fprintf(stderr, "texmem plan: writing the output failed\n");
      rc = CLI_EXIT_INTERNAL;
    }
  }
  if (rc < 0 && o.budget) {
    texmem_fit fit = plan_answer(&run);
    rc = fit == TEXMEM_FIT_FITS ? CLI_EXIT_OK
         : fit == TEXMEM_FIT_DOES_NOT_FIT ? CLI_EXIT_DOES_NOT_FIT : CLI_EXIT_UNKNOWN;
  }
  free_results(&run);
  texmem_records_destroy(recs);
  free(model_rec);
  return rc < 0 ? CLI_EXIT_OK : rc;
}

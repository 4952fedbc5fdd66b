/* texmem tflm MODEL.tflite [--strategy S] [--output FILE] [--ascii] [--json]
 * texmem tflm --check FILE
 * TFLite Micro offline memory plans: plans the tensors TFLM puts in its
 * arena head with TFLM's lifetimes, compares with TFLM's own greedy
 * planner and the max_live bound, writes the plan into a copy of the model
 * (OfflineMemoryAllocation), or checks the plan a model carries. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tflm_out.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: texmem tflm MODEL.tflite [--strategy S] [--output PLANNED.tflite] [--budget BYTES]\n"
          "                   [--scratch OP:BYTES[,BYTES...]]... [--scratch-file FILE]\n"
          "                   [--time-budget-ms N] [--node-budget N] [--ascii] [--json]\n"
          "       texmem tflm --check PLANNED.tflite [--json]\n"
          "  Plans the tensors TFLite Micro keeps in its arena head (TFLM's lifetimes, sizes\n"
          "  rounded up to 16 bytes), and prints the arena of texmem's plan, of TFLM's own\n"
          "  GreedyMemoryPlanner (tflm_greedy) and the max_live bound, whether the plan is\n"
          "  proven optimal, and the tensors live at the peak.\n"
          "  --strategy S   an offsets strategy (default exact; texmem plan --help lists them)\n"
          "  --output FILE  a copy of the model with the plan as OfflineMemoryAllocation\n"
          "                 metadata (an existing one is replaced), re-read and checked\n"
          "  --scratch OP:BYTES[,BYTES...]  the scratch buffers operator OP (of subgraph 0)\n"
          "                 requests, in request order (repeatable): planned with the tensors,\n"
          "                 left as holes TFLM fills online; a plan that would make TFLM's head\n"
          "                 larger than its own online plan's is not kept (docs/tflm.md)\n"
          "  --scratch-file FILE  the same, one OP:BYTES[,BYTES...] a line ('#' comments)\n"
          "  --ascii        the plan as text: a line per scope, a letter per tensor\n"
          "  --json         one JSON object instead of the summary\n"
          "  --budget BYTES whether the head fits in BYTES: fits (a plan does), does not fit\n"
          "                 (max_live or a completed search's bound is larger), or unknown;\n"
          "                 with exact or best, an open question is asked again of the\n"
          "                 planner's budget oracle (an exact search for BYTES alone)\n"
          "  --time-budget-ms N  exact's search time (default 1000; best's: 2000)\n"
          "  --node-budget N     exact's search nodes (default 2000000)\n"
          "  --check FILE   checks the plan FILE carries: offset count, negative or\n"
          "                 misaligned offsets, overlaps of tensors live together; with\n"
          "                 --scratch, whether TFLM's head with it and the scratch buffers\n"
          "                 stays within its own online plan's\n"
          "  Exit status: 0 ok; 2 bad input (or --check found problems, or --output not\n"
          "  written because the plan would not beat TFLM's own); 1 internal failure.\n");
}

static int fail_status(const char *path, texmem_status s, const texmem_error *err) {
  if (s == TEXMEM_STATUS_IO) {
    const char *why = cli_io_reason(path);
    fprintf(stderr, "texmem tflm: %s%s%s (%s)\n", err->message, strstr(err->message, why) ? "" : ": ",
            strstr(err->message, why) ? "" : why, texmem_status_name(s));
    return CLI_EXIT_BAD_INPUT;
  }
  fprintf(stderr, "texmem tflm: %s (%s)\n", err->message, texmem_status_name(s));
  return cli_exit_for(s);
}


static void shape_str(const texmem_tflm_tensor *t, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = 0;
  k += (size_t)snprintf(buf, size, "[");
  for (unsigned d = 0; d < t->rank && k < size; d++)
    k += (size_t)snprintf(buf + k, size - k, d ? ",%d" : "%d", (int)t->shape[d]);
  if (k < size) snprintf(buf + k, size - k, "]");
}

/* err gets status s and the message; returns s. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static texmem_status cli_fail(texmem_error *err, texmem_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  err->status = s;
  return s;
}

/* ---- options ---- */

typedef struct opts {
  const char *path, *out_path, *check_path;
  bool ascii, as_json, has_budget;
  uint64_t budget, node_budget, time_ms;
  texmem_strategy strategy;
  texmem_tflm_scratch *scratch; /* malloc'd */
  size_t n_scratch;
} opts;

/* OP:BYTES[,BYTES...] (where names the argument or file line). */
static bool add_scratch(opts *o, const char *v, const char *where) {
  const char *colon = strchr(v, ':');
  uint64_t op = 0;
  char head[24];
  size_t hl = colon ? (size_t)(colon - v) : 0;
  if (colon && hl < sizeof head) {
    memcpy(head, v, hl);
    head[hl] = 0;
  }
  bool ok = colon && hl && hl < sizeof head && cli_parse_u64(head, &op) && op <= UINT32_MAX && colon[1];
  for (const char *p = colon ? colon + 1 : ""; ok && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char num[24];
    uint64_t bytes = 0;
    ok = len && len < sizeof num;
    if (ok) {
      memcpy(num, p, len);
      num[len] = 0;
      ok = cli_parse_u64(num, &bytes) && bytes > 0;
    }
    if (!ok) break;
    texmem_tflm_scratch *ns = realloc(o->scratch, (o->n_scratch + 1) * sizeof *ns);
    if (!ns) {
      fprintf(stderr, "texmem tflm: out of memory for the scratch buffers\n");
      return false;
    }
    o->scratch = ns;
    o->scratch[o->n_scratch++] = (texmem_tflm_scratch){(uint32_t)op, bytes};
    p += len + (comma != NULL);
    ok = !comma || *p;
  }
  if (!ok)
    fprintf(stderr, "texmem tflm: %s '%s': want OP:BYTES[,BYTES...] (operator index, bytes of each scratch buffer "
                    "it requests)\n", where, v);
  return ok;
}

static bool add_scratch_file(opts *o, const char *path) {
  FILE *fp = fopen(path, "r");
  if (!fp) {
    fprintf(stderr, "texmem tflm: --scratch-file %s: %s\n", path, cli_io_reason(path));
    return false;
  }
  char line[4096], where[64];
  bool ok = true;
  for (unsigned no = 1; ok && fgets(line, sizeof line, fp); no++) {
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *b = line, *e = line + strlen(line);
    while (*b == ' ' || *b == '\t') b++;
    while (e > b && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t')) *--e = 0;
    if (!*b) continue;
    snprintf(where, sizeof where, "--scratch-file line %u", no);
    ok = add_scratch(o, b, where);
  }
  fclose(fp);
  return ok;
}

/* TFLM requests scratch buffers operator by operator (in its Prepare), so
 * its order, which the planner's ties follow, is by operator. */
static int by_op(const void *a, const void *b) {
  const texmem_tflm_scratch *x = a, *y = b;
  return x->op < y->op ? -1 : x->op > y->op;
}

static void sort_scratch(opts *o) {
  /* insertion sort: stable, keeps each operator's request order */
  for (size_t i = 1; i < o->n_scratch; i++)
    for (size_t j = i; j > 0 && by_op(&o->scratch[j - 1], &o->scratch[j]) > 0; j--) {
      texmem_tflm_scratch t = o->scratch[j];
      o->scratch[j] = o->scratch[j - 1];
      o->scratch[j - 1] = t;
    }
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, opts *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return CLI_EXIT_OK;
    } else if (!strcmp(a, "--strategy") && has_value) {
      const char *v = argv[++i];
      if (!texmem_strategy_from_name(v, &o->strategy) || !texmem_strategy_supports(o->strategy, TEXMEM_PLAN_OFFSETS)) {
        fprintf(stderr, "texmem tflm: --strategy '%s' is not an offsets strategy\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
    } else if (!strcmp(a, "--output") && has_value) {
      o->out_path = argv[++i];
    } else if (!strcmp(a, "--check") && has_value) {
      o->check_path = argv[++i];
    } else if (!strcmp(a, "--scratch") && has_value) {
      if (!add_scratch(o, argv[++i], "--scratch")) return CLI_EXIT_BAD_INPUT;
    } else if (!strcmp(a, "--scratch-file") && has_value) {
      if (!add_scratch_file(o, argv[++i])) return CLI_EXIT_BAD_INPUT;
    } else if (!strcmp(a, "--budget") && has_value) {
      const char *v = argv[++i];
      if (!cli_parse_u64(v, &o->budget)) {
        fprintf(stderr, "texmem tflm: --budget must be a number of bytes, not '%s'\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
      o->has_budget = true;
    } else if ((!strcmp(a, "--time-budget-ms") || !strcmp(a, "--node-budget")) && has_value) {
      const char *v = argv[++i];
      bool t = !strcmp(a, "--time-budget-ms");
      uint64_t x = 0;
      if (!cli_parse_u64(v, &x) || x == 0 || (t && x > 86400000u)) {
        fprintf(stderr, "texmem tflm: bad value '%s' for %s\n", v, a);
        return CLI_EXIT_BAD_INPUT;
      }
      *(t ? &o->time_ms : &o->node_budget) = x;
    } else if (!strcmp(a, "--ascii")) {
      o->ascii = true;
    } else if (!strcmp(a, "--json")) {
      o->as_json = true;
    } else if (a[0] == '-' || o->path) {
      fprintf(stderr, "texmem tflm: unexpected argument '%s'\n", a);
      usage(stderr);
      return CLI_EXIT_BAD_INPUT;
    } else {
      o->path = a;
    }
  }
  if (o->check_path && (o->path || o->out_path || o->ascii)) {
    fprintf(stderr, "texmem tflm: --check takes only the file to check (and --json, --scratch)\n");
    return CLI_EXIT_BAD_INPUT;
  }
  if (!o->check_path && !o->path) {
    usage(stderr);
    return CLI_EXIT_BAD_INPUT;
  }
  sort_scratch(o);
  return -1;
}

/* ---- planning ---- */

/* Plans the records with strategy s (offsets, 16-byte aligned). */
static texmem_status plan(const tflm_run *r, texmem_strategy s, texmem_plan **p, texmem_error *err) {
  texmem_plan_desc d = {.kind = TEXMEM_PLAN_OFFSETS, .strategy = s, .alignment = TEXMEM_TFLM_ALIGNMENT,
                        .time_budget_ms = r->time_budget_ms, .exact_time_budget_ms = r->time_budget_ms,
                        .exact_node_budget = r->node_budget};
  return texmem_plan_create(r->rec, r->n, 1, &d, p, err);
}

static bool live_at(const texmem_record *x, uint64_t s) { return s >= x->first_task && s <= x->last_task; }

/* The budget answer, only what is proven: a plan fits, or a lower bound
 * (max_live, or the bound of a completed search) is above the budget. */
static const char *budget_answer(const tflm_run *r, uint64_t bound) {
  if ((r->head < r->greedy ? r->head : r->greedy) <= r->budget) return "fits";
  if (r->max_live > r->budget || bound > r->budget || r->optimal) return "does not fit";
  return "unknown";
}

/* --budget with a searching strategy (exact, best) whose optimisation left
 * the question open: asks the planner's budget oracle, an exact search for
 * a plan within the budget alone, which may find one or prove there is
 * none where the optimisation ran out of time. */
static texmem_status ask_oracle(const tflm_run *r, texmem_strategy s, texmem_plan **o, texmem_error *err) {
  texmem_plan_desc d = {.kind = TEXMEM_PLAN_OFFSETS, .strategy = s, .alignment = TEXMEM_TFLM_ALIGNMENT,
                        .time_budget_ms = r->time_budget_ms, .exact_time_budget_ms = r->time_budget_ms,
                        .exact_node_budget = r->node_budget, .budget = r->budget};
  return texmem_plan_create(r->rec, r->n, 1, &d, o, err);
}

/* TFLM's head with plan c written offline: its tensors where c puts them,
 * the scratch buffers placed by TFLM around them. UINT64_MAX when c is
 * past TFLM's int offsets. */
static texmem_status head_with(const tflm_run *r, const texmem_plan *c, uint64_t *head, texmem_error *err) {
  *head = UINT64_MAX;
  if (texmem_plan_total(c) > INT32_MAX) return TEXMEM_STATUS_OK;
  int64_t *fixed = malloc((r->n + 1) * sizeof *fixed);
  if (!fixed) return cli_fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for %zu records", r->n);
  for (size_t k = 0; k < r->n; k++) fixed[k] = k < r->n_tensors ? (int64_t)texmem_plan_tensor_offset(c, k) : -1;
  texmem_status s = texmem_tflm_greedy(r->rec, r->n, fixed, NULL, head, err);
  free(fixed);
  return s;
}

/* Takes plan c (made by strategy name) as the one written. */
static texmem_status take(tflm_run *r, const texmem_plan *c, const char *name, texmem_error *err) {
  uint64_t head;
  texmem_status s = head_with(r, c, &head, err);
  if (s) return s;
  r->strategy = name;
  r->arena = texmem_plan_total(c);
  r->head = head;
  r->optimal = texmem_plan_is_optimal(c) || r->arena == r->max_live;
  for (size_t k = 0; k < r->n; k++) r->rec_offset[k] = texmem_plan_tensor_offset(c, k);
  return TEXMEM_STATUS_OK;
}

/* The plans: the strategy's and TFLM's own (tflm_greedy, also TFLM's
 * online head), whichever gives TFLM the smaller head written offline, so
 * texmem's is never the worse one; then the budget oracle. */
static texmem_status plan_all(tflm_run *r, texmem_strategy strategy, texmem_error *err) {
  texmem_plan *p = NULL, *g = NULL, *o = NULL;
  texmem_bounds b = {0};
  texmem_status s;
  if ((s = texmem_lower_bounds(r->rec, r->n, 1, &b, err)) || (s = plan(r, strategy, &p, err)) ||
      (s = plan(r, TEXMEM_STRATEGY_TFLM_GREEDY, &g, err)))
    goto done;
  r->max_live = b.max_live;
  r->greedy = texmem_plan_total(g);
  uint64_t hg;
  if ((s = head_with(r, g, &hg, err)) || (s = take(r, p, texmem_strategy_name(texmem_plan_get_strategy(p)), err)))
    goto done;
  if (hg < r->head) {
    if ((s = take(r, g, "tflm_greedy", err))) goto done;
    r->optimal = r->arena == r->max_live;
  }
  if (r->has_budget) {
    uint64_t bound = texmem_plan_bound(p);
    r->answer = budget_answer(r, bound);
    if (!strcmp(r->answer, "unknown") && (strategy == TEXMEM_STRATEGY_EXACT || strategy == TEXMEM_STRATEGY_BEST)) {
      if ((s = ask_oracle(r, strategy, &o, err))) goto done;
      uint64_t ho;
      if (texmem_plan_fits(o) == TEXMEM_FIT_FITS && !(s = head_with(r, o, &ho, err)) && ho <= r->budget)
        s = take(r, o, texmem_strategy_name(texmem_plan_get_strategy(o)), err); /* its plan is the answer */
      if (s) goto done;
      if (texmem_plan_bound(o) > bound) bound = texmem_plan_bound(o);
      r->answer = budget_answer(r, bound);
    }
  }
done:
  texmem_plan_destroy(p);
  texmem_plan_destroy(g);
  texmem_plan_destroy(o);
  return s;
}

/* Records, plans, the offsets written and the peak. */
static texmem_status compute(tflm_run *r, const opts *o, texmem_error *err) {
  size_t nt = texmem_tflm_tensor_count(r->f);
  r->offsets = malloc((nt + 1) * sizeof *r->offsets);
  if (!r->offsets) return cli_fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for %zu offsets", nt);
  for (size_t i = 0; i < nt; i++) r->offsets[i] = -1;
  texmem_status s = texmem_tflm_records_scratch(r->f, o->scratch, o->n_scratch, &r->rec, &r->n, &r->tensor_of, err);
  if (s) return s;
  r->n_tensors = r->n - o->n_scratch;
  r->rec_offset = malloc((r->n + 1) * sizeof *r->rec_offset);
  if (!r->rec_offset) return cli_fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for %zu records", r->n);
  if ((s = plan_all(r, o->strategy, err))) return s;
  if (r->arena > INT32_MAX)
    return cli_fail(err, TEXMEM_STATUS_UNSUPPORTED, "arena of %" PRIu64 " bytes is past TFLM's int offsets",
                            r->arena);
  /* A plan TFLM would need more head for than for its own stays unwritten:
   * the model keeps TFLM's online plan. */
  r->offline = r->head <= r->greedy;
  for (size_t k = 0; k < r->n_tensors && r->offline; k++) r->offsets[r->tensor_of[k]] = (int32_t)r->rec_offset[k];
  /* The peak: the first scope with max_live bytes live. */
  uint64_t best = 0, scopes = 0;
  for (size_t k = 0; k < r->n; k++)
    if (r->rec[k].last_task + 1 > scopes) scopes = r->rec[k].last_task + 1;
  for (uint64_t sc = 0; sc < scopes; sc++) {
    uint64_t live = 0;
    for (size_t k = 0; k < r->n; k++)
      if (live_at(&r->rec[k], sc)) live += r->rec[k].dims[0];
    if (live > best) {
      best = live;
      r->peak_scope = sc;
    }
  }
  return TEXMEM_STATUS_OK;
}

/* ---- output ---- */

static void summary_peak(const tflm_run *r) {
  printf("peak: scope %" PRIu64 " (%s), %" PRIu64 " bytes live; shrink these to shrink the arena:\n", r->peak_scope,
         r->peak_scope ? "after an operator" : "graph inputs", r->max_live);
  printf("  %-7s %-28s %-18s %-8s %s\n", "tensor", "name", "shape", "type", "bytes");
  for (size_t k = 0; k < r->n; k++) {
    if (!live_at(&r->rec[k], r->peak_scope)) continue;
    if (r->tensor_of[k] < 0) {
      size_t i = (size_t)(-1 - r->tensor_of[k]);
      char name[48];
      snprintf(name, sizeof name, "(scratch %zu of operator %u)", i, (unsigned)r->scratch[i].op);
      printf("  %-7s %-28s %-18s %-8s %" PRIu64 "\n", "-", name, "-", "-", r->rec[k].dims[0]);
      continue;
    }
    const texmem_tflm_tensor *t = texmem_tflm_get_tensor(r->f, (size_t)r->tensor_of[k]);
    char shape[64];
    shape_str(t, shape, sizeof shape);
    printf("  %-7d %-28s %-18s %-8s %" PRIu64 "\n", (int)r->tensor_of[k], t->name, shape, t->type_name,
           r->rec[k].dims[0]);
  }
}

static void summary(const tflm_run *r) {
  const texmem_tflm *f = r->f;
  size_t nt = texmem_tflm_tensor_count(f), constants = 0, variables = 0, others = 0;
  for (size_t i = 0; i < nt; i++) {
    const texmem_tflm_tensor *t = texmem_tflm_get_tensor(f, i);
    if (t->subgraph) others++;
    else if (t->constant) constants++;
    else if (t->variable) variables++;
  }
  printf("model: %s\n", r->path);
  printf("subgraphs: %zu, tensors: %zu (all subgraphs), planned: %zu\n", texmem_tflm_subgraph_count(f), nt,
         r->n_tensors);
  printf("left to TFLM (-1): %zu constant, %zu variable (persistent), %zu of other subgraphs (planned online "
         "by TFLM around this plan), %zu other (unused or empty)\n",
         constants, variables, others, nt - r->n_tensors - constants - variables - others);
  if (r->n_scratch)
    printf("scratch buffers: %zu, planned with the tensors; the plan leaves their holes for TFLM to fill\n",
           r->n_scratch);
  printf("arena head bytes:\n");
  char label[64];
  snprintf(label, sizeof label, "texmem (%s)", r->strategy);
  printf("  %-28s %10" PRIu64 "   %s\n", label, r->arena, r->optimal ? "proven optimal" : "not proven optimal");
  printf("  %-28s %10" PRIu64 "   TFLM's GreedyMemoryPlanner\n", "tflm_greedy", r->greedy);
  printf("  %-28s %10" PRIu64 "\n", "max_live bound", r->max_live);
  if (r->n_scratch)
    printf("  %-28s %10" PRIu64 "   scratch buffers placed by TFLM's planner around the plan\n",
           "TFLM's head with the plan", r->head);
  if (!r->offline)
    printf("offline plan not kept: with it TFLM would need %" PRIu64 " head bytes, more than the %" PRIu64
           " of its own online plan; the model keeps TFLM's online plan (every offset -1)\n",
           r->head, r->greedy);
  if (r->has_budget) printf("budget %" PRIu64 " bytes of head: %s\n", r->budget, r->answer);
  if (r->n) summary_peak(r);
}

static void json(const tflm_run *r) {
  size_t nt = texmem_tflm_tensor_count(r->f);
  printf("{\"model\": ");
  cli_json_str(stdout, r->path);
  printf(", \"subgraphs\": %zu, \"tensors\": %zu, \"planned\": %zu, \"scratch_buffers\": %zu, \"arena_bytes\": %" PRIu64
         ", \"tflm_greedy_bytes\": %" PRIu64 ", \"head_bytes\": %" PRIu64 ", \"offline_plan\": %s, \"max_live_bytes\": %" PRIu64
         ", \"optimal\": %s, \"strategy\": ",
         texmem_tflm_subgraph_count(r->f), nt, r->n_tensors, r->n_scratch, r->arena, r->greedy, r->head,
         r->offline ? "true" : "false", r->max_live, r->optimal ? "true" : "false");
  cli_json_str(stdout, r->strategy);
  if (r->has_budget) printf(", \"budget\": {\"bytes\": %" PRIu64 ", \"answer\": \"%s\"}", r->budget, r->answer);
  printf(", \"peak\": [");
  bool first = true;
  for (size_t k = 0; k < r->n; k++) {
    if (!live_at(&r->rec[k], r->peak_scope)) continue;
    printf("%s{\"tensor\": %d, \"name\": ", first ? "" : ", ", (int)r->tensor_of[k]);
    if (r->tensor_of[k] >= 0) {
      cli_json_str(stdout, texmem_tflm_get_tensor(r->f, (size_t)r->tensor_of[k])->name);
    } else {
      char label[64];
      tflm_record_label(r, k, label, sizeof label);
      cli_json_str(stdout, label);
    }
    printf(", \"bytes\": %" PRIu64 "}", r->rec[k].dims[0]);
    first = false;
  }
  printf("], \"offsets\": [");
  for (size_t i = 0; i < nt; i++) printf("%s%d", i ? ", " : "", (int)r->offsets[i]);
  printf("]}\n");
}

/* --check with --scratch: the heads TFLM needs with the plan and without. */
typedef struct heads {
  bool known;
  uint64_t offline, online;
} heads;

static void check_json(const char *path, const texmem_tflm *f, const texmem_tflm_plan_info *info, uint64_t arena,
                       const texmem_tflm_issue *is, size_t n_is, const heads *h) {
  static const char *const kinds[] = {"wrong_count", "negative", "misaligned", "overlap", "too_far"};
  printf("{\"model\": ");
  cli_json_str(stdout, path);
  printf(", \"entries\": %zu, \"version\": %" PRIu32 ", \"subgraphs\": %" PRIu32 ", \"n\": %" PRIu32
         ", \"tensors\": %zu, \"arena_bytes\": %" PRIu64,
         info->entries, info->version, info->subgraphs, info->n, texmem_tflm_tensor_count(f), arena);
  if (h->known)
    printf(", \"head_bytes\": %" PRIu64 ", \"tflm_greedy_bytes\": %" PRIu64, h->offline, h->online);
  printf(", \"issues\": [");
  for (size_t k = 0; k < n_is; k++) {
    printf("%s{\"kind\": \"%s\", \"tensor\": %" PRId64 ", \"other\": %" PRId64 ", \"message\": ", k ? ", " : "",
           kinds[is[k].kind], is[k].tensor, is[k].other);
    cli_json_str(stdout, is[k].message);
    printf("}");
  }
  if (h->known && h->offline > h->online)
    printf("%s{\"kind\": \"head_over_tflm\", \"tensor\": -1, \"other\": -1, \"message\": \"with the scratch buffers "
           "TFLM's head is %" PRIu64 " bytes, more than the %" PRIu64 " of its own online plan\"}",
           n_is ? ", " : "", h->offline, h->online);
  printf("]}\n");
}

static void check_text(const char *path, const texmem_tflm *f, const texmem_tflm_plan_info *info, uint64_t arena,
                       const texmem_tflm_issue *is, size_t n_is, const heads *h) {
  printf("%s: %s in buffer %" PRIu32 ": version %" PRIu32 ", %" PRIu32 " subgraph(s), %" PRIu32
         " offsets for %zu tensors%s\n",
         path, TEXMEM_TFLM_PLAN_NAME, info->buffer, info->version, info->subgraphs, info->n,
         texmem_tflm_tensor_count(f), info->entries > 1 ? " (several entries: TFLM takes the last, checked here)" : "");
  for (size_t k = 0; k < n_is; k++) printf("  problem: %s\n", is[k].message);
  bool over = h->known && h->offline > h->online;
  if (over)
    printf("  problem: with the scratch buffers TFLM's head is %" PRIu64 " bytes, more than the %" PRIu64
           " of its own online plan (the plan leaves them no room)\n",
           h->offline, h->online);
  if (n_is) printf("%zu problem(s): TFLM would run this plan unchecked\n", n_is);
  else if (over) printf("the plan costs head bytes: run the model without it\n");
  else printf("plan ok: arena head %" PRIu64 " bytes for the offline-planned tensors\n", arena);
  if (h->known && !over)
    printf("with the scratch buffers: head %" PRIu64 " bytes, TFLM's own online plan %" PRIu64 "\n", h->offline,
           h->online);
}

static int check(const char *path, const opts *o) {
  texmem_error err = {0};
  texmem_tflm *f = NULL;
  texmem_status s = texmem_tflm_load(path, &f, &err);
  if (s) return fail_status(path, s, &err);
  texmem_tflm_plan_info info;
  s = texmem_tflm_offline_plan(f, &info, &err);
  if (s) {
    texmem_tflm_destroy(f);
    return fail_status(path, s, &err);
  }
  if (!info.present) {
    fprintf(stderr, "texmem tflm: %s has no %s metadata\n", path, TEXMEM_TFLM_PLAN_NAME);
    texmem_tflm_destroy(f);
    return CLI_EXIT_BAD_INPUT;
  }
  texmem_tflm_issue *is = NULL;
  size_t n_is = 0;
  uint64_t arena = 0;
  heads h = {false, 0, 0};
  s = texmem_tflm_check(f, info.offsets, info.n, &is, &n_is, 0, &arena, &err);
  if (!s && o->n_scratch && !n_is) {
    s = texmem_tflm_heads(f, info.offsets, info.n, o->scratch, o->n_scratch, &h.offline, &h.online, &err);
    h.known = !s;
  }
  int rc = CLI_EXIT_OK;
  if (s) rc = fail_status(path, s, &err);
  else if (o->as_json) check_json(path, f, &info, arena, is, n_is, &h);
  else check_text(path, f, &info, arena, is, n_is, &h);
  if (!s && (n_is || (h.known && h.offline > h.online))) rc = CLI_EXIT_BAD_INPUT;
  free(is);
  free(info.offsets);
  texmem_tflm_destroy(f);
  return rc;
}

static int write_output(const tflm_run *r, const char *out_path, bool quiet) {
  if (!r->offline) {
    fprintf(stderr,
            "texmem tflm: %s not written: with the plan TFLM would need %" PRIu64 " head bytes once it placed the "
            "scratch buffers, more than the %" PRIu64 " of its own online plan; run the model as it is\n",
            out_path, r->head, r->greedy);
    return cli_exit_for(TEXMEM_STATUS_UNSUPPORTED);
  }
  texmem_error err = {0};
  uint8_t *data = NULL;
  size_t size = 0;
  texmem_status s =
      texmem_tflm_write_plan(r->f, r->offsets, texmem_tflm_tensor_count(r->f), &data, &size, &err);
  if (s) return fail_status(r->path, s, &err);
  FILE *fp = fopen(out_path, "wb");
  bool ok = fp && fwrite(data, 1, size, fp) == size;
  if (fp && fclose(fp) != 0) ok = false;
  free(data);
  if (!ok) {
    fprintf(stderr, "texmem tflm: cannot write %s\n", out_path);
    return CLI_EXIT_BAD_INPUT;
  }
  if (!quiet)
    printf("wrote %s (%zu bytes): %s with %zu offsets, re-read and checked\n", out_path, size, TEXMEM_TFLM_PLAN_NAME,
           texmem_tflm_tensor_count(r->f));
  return CLI_EXIT_OK;
}

int cli_cmd_tflm(int argc, char **argv) {
  opts o = {.strategy = TEXMEM_STRATEGY_EXACT};
  int rc = parse_args(argc, argv, &o);
  if (rc >= 0 || o.check_path) {
    if (rc < 0) rc = check(o.check_path, &o);
    free(o.scratch);
    return rc;
  }
  texmem_error err = {0};
  texmem_tflm *f = NULL;
  texmem_status s = texmem_tflm_load(o.path, &f, &err);
  if (s) {
    free(o.scratch);
    return fail_status(o.path, s, &err);
  }
  tflm_run r = {.path = o.path, .f = f, .has_budget = o.has_budget, .budget = o.budget,
                .time_budget_ms = (double)o.time_ms, .node_budget = o.node_budget, .scratch = o.scratch,
                .n_scratch = o.n_scratch};
  if ((s = compute(&r, &o, &err))) {
    rc = fail_status(o.path, s, &err);
  } else {
    rc = CLI_EXIT_OK;
    if (o.as_json) json(&r);
    else summary(&r);
    if (o.ascii) tflm_write_ascii(stdout, &r);
    if (o.out_path) rc = write_output(&r, o.out_path, o.as_json);
  }
  free(r.rec);
  free(r.tensor_of);
  free(r.rec_offset);
  free(r.offsets);
  free(o.scratch);
  texmem_tflm_destroy(f);
  if (rc == CLI_EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) {
    fprintf(stderr, "texmem tflm: write error\n");
    return CLI_EXIT_INTERNAL;
  }
  return rc;
}

/* texmem tflm MODEL.tflite [--strategy S] [--output FILE] [--ascii] [--json]
 * texmem tflm --check FILE
 * TFLite Micro offline memory plans: plans the tensors TFLM puts in its
 * arena head with TFLM's lifetimes, compares with TFLM's own greedy
 * planner and the max_live bound, writes the plan into a copy of the model
 * (OfflineMemoryAllocation), or checks the plan a model carries. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tflm_out.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: texmem tflm MODEL.tflite [--strategy S] [--output PLANNED.tflite] [--budget BYTES]\n"
          "                   [--time-budget-ms N] [--node-budget N] [--ascii] [--json]\n"
          "       texmem tflm --check PLANNED.tflite [--json]\n"
          "  Plans the tensors TFLite Micro keeps in its arena head (TFLM's lifetimes, sizes\n"
          "  rounded up to 16 bytes), and prints the arena of texmem's plan, of TFLM's own\n"
          "  GreedyMemoryPlanner (tflm_greedy) and the max_live bound, whether the plan is\n"
          "  proven optimal, and the tensors live at the peak.\n"
          "  --strategy S   an offsets strategy (default exact; texmem plan --help lists them)\n"
          "  --output FILE  a copy of the model with the plan as OfflineMemoryAllocation\n"
          "                 metadata (an existing one is replaced), re-read and checked\n"
          "  --ascii        the plan as text: a line per scope, a letter per tensor\n"
          "  --json         one JSON object instead of the summary\n"
          "  --budget BYTES whether the head fits in BYTES: fits (a plan does), does not fit\n"
          "                 (max_live or a completed search's bound is larger), or unknown;\n"
          "                 with exact or best, an open question is asked again of the\n"
          "                 planner's budget oracle (an exact search for BYTES alone)\n"
          "  --time-budget-ms N  exact's search time (default 1000; best's: 2000)\n"
          "  --node-budget N     exact's search nodes (default 2000000)\n"
          "  --check FILE   checks the plan FILE carries: offset count, negative or\n"
          "                 misaligned offsets, overlaps of tensors live together\n"
          "  Exit status: 0 ok; 2 bad input (or --check found problems); 1 internal failure.\n");
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
  if (r->arena <= r->budget) return "fits";
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
  printf("subgraphs: %zu, tensors: %zu (all subgraphs), planned: %zu\n", texmem_tflm_subgraph_count(f), nt, r->n);
  printf("left to TFLM (-1): %zu constant, %zu variable (persistent), %zu of other subgraphs (planned online "
         "by TFLM around this plan), %zu other (unused or empty)\n",
         constants, variables, others, nt - r->n - constants - variables - others);
  printf("arena head bytes:\n");
  char label[64];
  snprintf(label, sizeof label, "texmem (%s)", r->strategy);
  printf("  %-28s %10" PRIu64 "   %s\n", label, r->arena, r->optimal ? "proven optimal" : "not proven optimal");
  printf("  %-28s %10" PRIu64 "   TFLM's GreedyMemoryPlanner\n", "tflm_greedy", r->greedy);
  printf("  %-28s %10" PRIu64 "\n", "max_live bound", r->max_live);
  if (r->has_budget)
    printf("budget %" PRIu64 " bytes of head: %s\n", r->budget, r->answer);
  if (r->n) {
    printf("peak: scope %" PRIu64 " (%s), %" PRIu64 " bytes live; shrink these to shrink the arena:\n", r->peak_scope,
           r->peak_scope ? "after an operator" : "graph inputs", r->max_live);
    printf("  %-7s %-28s %-18s %-8s %s\n", "tensor", "name", "shape", "type", "bytes");
    for (size_t k = 0; k < r->n; k++) {
      if (!live_at(&r->rec[k], r->peak_scope)) continue;
      const texmem_tflm_tensor *t = texmem_tflm_get_tensor(f, (size_t)r->tensor_of[k]);
      char shape[64];
      shape_str(t, shape, sizeof shape);
      printf("  %-7d %-28s %-18s %-8s %" PRIu64 "\n", (int)r->tensor_of[k], t->name, shape, t->type_name,
             r->rec[k].dims[0]);
    }
  }
}

static void json(const tflm_run *r) {
  size_t nt = texmem_tflm_tensor_count(r->f);
  printf("{\"model\": ");
  cli_json_str(stdout, r->path);
  printf(", \"subgraphs\": %zu, \"tensors\": %zu, \"planned\": %zu, \"arena_bytes\": %" PRIu64
         ", \"tflm_greedy_bytes\": %" PRIu64 ", \"max_live_bytes\": %" PRIu64 ", \"optimal\": %s, \"strategy\": ",
         texmem_tflm_subgraph_count(r->f), nt, r->n, r->arena, r->greedy, r->max_live, r->optimal ? "true" : "false");
  cli_json_str(stdout, r->strategy);
  if (r->has_budget) printf(", \"budget\": {\"bytes\": %" PRIu64 ", \"answer\": \"%s\"}", r->budget, r->answer);
  printf(", \"peak\": [");
  bool first = true;
  for (size_t k = 0; k < r->n; k++) {
    if (!live_at(&r->rec[k], r->peak_scope)) continue;
    const texmem_tflm_tensor *t = texmem_tflm_get_tensor(r->f, (size_t)r->tensor_of[k]);
    printf("%s{\"tensor\": %d, \"name\": ", first ? "" : ", ", (int)r->tensor_of[k]);
    cli_json_str(stdout, t->name);
    printf(", \"bytes\": %" PRIu64 "}", r->rec[k].dims[0]);
    first = false;
  }
  printf("], \"offsets\": [");
  for (size_t i = 0; i < nt; i++) printf("%s%d", i ? ", " : "", (int)r->offsets[i]);
  printf("]}\n");
}

static int check(const char *path, bool as_json) {
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
  s = texmem_tflm_check(f, info.offsets, info.n, &is, &n_is, 0, &arena, &err);
  int rc = CLI_EXIT_OK;
  if (s) {
    rc = fail_status(path, s, &err);
  } else if (as_json) {
    static const char *const kinds[] = {"wrong_count", "negative", "misaligned", "overlap", "too_far"};
    printf("{\"model\": ");
    cli_json_str(stdout, path);
    printf(", \"entries\": %zu, \"version\": %" PRIu32 ", \"subgraphs\": %" PRIu32 ", \"n\": %" PRIu32
           ", \"tensors\": %zu, \"arena_bytes\": %" PRIu64 ", \"issues\": [",
           info.entries, info.version, info.subgraphs, info.n, texmem_tflm_tensor_count(f), arena);
    for (size_t k = 0; k < n_is; k++) {
      printf("%s{\"kind\": \"%s\", \"tensor\": %" PRId64 ", \"other\": %" PRId64 ", \"message\": ", k ? ", " : "",
             kinds[is[k].kind], is[k].tensor, is[k].other);
      cli_json_str(stdout, is[k].message);
      printf("}");
    }
    printf("]}\n");
  } else {
    printf("%s: %s in buffer %" PRIu32 ": version %" PRIu32 ", %" PRIu32 " subgraph(s), %" PRIu32
           " offsets for %zu tensors%s\n",
           path, TEXMEM_TFLM_PLAN_NAME, info.buffer, info.version, info.subgraphs, info.n,
           texmem_tflm_tensor_count(f), info.entries > 1 ? " (several entries: TFLM takes the last, checked here)" : "");
    for (size_t k = 0; k < n_is; k++) printf("  problem: %s\n", is[k].message);
    if (n_is) printf("%zu problem(s): TFLM would run this plan unchecked\n", n_is);
    else printf("plan ok: arena head %" PRIu64 " bytes for the offline-planned tensors\n", arena);
  }
  if (!s && n_is) rc = CLI_EXIT_BAD_INPUT;
  free(is);
  free(info.offsets);
  texmem_tflm_destroy(f);
  return rc;
}

static int write_output(const tflm_run *r, const char *out_path, bool quiet) {
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

int texmem_cmd_tflm(int argc, char **argv) {
  const char *path = NULL, *out_path = NULL, *check_path = NULL;
  bool ascii = false, as_json = false, has_budget = false;
  uint64_t budget = 0, node_budget = 0, time_ms = 0;
  texmem_strategy strategy = TEXMEM_STRATEGY_EXACT;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return CLI_EXIT_OK;
    } else if (!strcmp(a, "--strategy") && i + 1 < argc) {
      const char *v = argv[++i];
      if (!texmem_strategy_from_name(v, &strategy) || !texmem_strategy_supports(strategy, TEXMEM_PLAN_OFFSETS)) {
        fprintf(stderr, "texmem tflm: --strategy '%s' is not an offsets strategy\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
    } else if (!strcmp(a, "--output") && i + 1 < argc) {
      out_path = argv[++i];
    } else if (!strcmp(a, "--check") && i + 1 < argc) {
      check_path = argv[++i];
    } else if (!strcmp(a, "--budget") && i + 1 < argc) {
      const char *v = argv[++i];
      if (!cli_parse_u64(v, &budget)) {
        fprintf(stderr, "texmem tflm: --budget must be a number of bytes, not '%s'\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
      has_budget = true;
    } else if ((!strcmp(a, "--time-budget-ms") || !strcmp(a, "--node-budget")) && i + 1 < argc) {
      const char *v = argv[++i];
      bool t = !strcmp(a, "--time-budget-ms");
      uint64_t x = 0;
      if (!cli_parse_u64(v, &x) || x == 0 || (t && x > 86400000u)) {
        fprintf(stderr, "texmem tflm: bad value '%s' for %s\n", v, a);
        return CLI_EXIT_BAD_INPUT;
      }
      *(t ? &time_ms : &node_budget) = x;
    } else if (!strcmp(a, "--ascii")) {
      ascii = true;
    } else if (!strcmp(a, "--json")) {
      as_json = true;
    } else if (a[0] == '-' || path) {
      fprintf(stderr, "texmem tflm: unexpected argument '%s'\n", a);
      usage(stderr);
      return CLI_EXIT_BAD_INPUT;
    } else {
      path = a;
    }
  }
  if (check_path) {
    if (path || out_path || ascii) {
      fprintf(stderr, "texmem tflm: --check takes only the file to check (and --json)\n");
      return CLI_EXIT_BAD_INPUT;
    }
    return check(check_path, as_json);
  }
  if (!path) {
    usage(stderr);
    return CLI_EXIT_BAD_INPUT;
  }

  texmem_error err = {0};
  texmem_tflm *f = NULL;
  texmem_status s = texmem_tflm_load(path, &f, &err);
  if (s) return fail_status(path, s, &err);
  tflm_run r = {.path = path, .f = f, .has_budget = has_budget, .budget = budget,
                .time_budget_ms = (double)time_ms, .node_budget = node_budget};
  texmem_plan *p = NULL, *g = NULL, *o = NULL;
  int rc = CLI_EXIT_OK;
  size_t nt = texmem_tflm_tensor_count(f);
  r.offsets = malloc((nt + 1) * sizeof *r.offsets);
  if (!r.offsets) {
    s = TEXMEM_STATUS_OUT_OF_MEMORY;
    snprintf(err.message, sizeof err.message, "out of memory for %zu offsets", nt);
    goto fail;
  }
  for (size_t i = 0; i < nt; i++) r.offsets[i] = -1;
  if ((s = texmem_tflm_records(f, &r.rec, &r.n, &r.tensor_of, &err))) goto fail;
  texmem_bounds b = {0};
  if ((s = texmem_lower_bounds(r.rec, r.n, 1, &b, &err)) || (s = plan(&r, strategy, &p, &err)) ||
      (s = plan(&r, TEXMEM_STRATEGY_TFLM_GREEDY, &g, &err)))
    goto fail;
  r.max_live = b.max_live;
  r.greedy = texmem_plan_total(g);
  /* texmem's plan is never worse than TFLM's: an unproven plan that is
   * larger gives way to tflm_greedy's. */
  const texmem_plan *use = p;
  r.strategy = texmem_strategy_name(texmem_plan_get_strategy(p));
  if (texmem_plan_total(g) < texmem_plan_total(p)) {
    use = g;
    r.strategy = "tflm_greedy";
  }
  r.arena = texmem_plan_total(use);
  r.optimal = (use == p && texmem_plan_is_optimal(p)) || r.arena == r.max_live;
  if (has_budget) {
    uint64_t bound = texmem_plan_bound(p);
    r.answer = budget_answer(&r, bound);
    if (!strcmp(r.answer, "unknown") &&
        (strategy == TEXMEM_STRATEGY_EXACT || strategy == TEXMEM_STRATEGY_BEST)) {
      if ((s = ask_oracle(&r, strategy, &o, &err))) goto fail;
      if (texmem_plan_fits(o) == TEXMEM_FIT_FITS) { /* its plan is the answer */
        use = o;
        r.strategy = texmem_strategy_name(texmem_plan_get_strategy(o));
        r.arena = texmem_plan_total(o);
        r.optimal = texmem_plan_is_optimal(o) || r.arena == r.max_live;
      }
      if (texmem_plan_bound(o) > bound) bound = texmem_plan_bound(o);
      r.answer = budget_answer(&r, bound);
    }
  }
  if (r.arena > INT32_MAX) {
    s = TEXMEM_STATUS_UNSUPPORTED;
    snprintf(err.message, sizeof err.message, "arena of %" PRIu64 " bytes is past TFLM's int offsets", r.arena);
    goto fail;
  }
  for (size_t k = 0; k < r.n; k++) r.offsets[r.tensor_of[k]] = (int32_t)texmem_plan_tensor_offset(use, k);
  /* The peak: the first scope with max_live bytes live. */
  uint64_t best = 0, scopes = 0;
  for (size_t k = 0; k < r.n; k++)
    if (r.rec[k].last_task + 1 > scopes) scopes = r.rec[k].last_task + 1;
  for (uint64_t sc = 0; sc < scopes; sc++) {
    uint64_t live = 0;
    for (size_t k = 0; k < r.n; k++)
      if (live_at(&r.rec[k], sc)) live += r.rec[k].dims[0];
    if (live > best) {
      best = live;
      r.peak_scope = sc;
    }
  }
  if (as_json) json(&r);
  else summary(&r);
  if (ascii) tflm_write_ascii(stdout, &r);
  if (out_path) rc = write_output(&r, out_path, as_json);
  goto done;
fail:
  rc = fail_status(path, s, &err);
done:
  texmem_plan_destroy(p);
  texmem_plan_destroy(g);
  texmem_plan_destroy(o);
  free(r.rec);
  free(r.tensor_of);
  free(r.offsets);
  texmem_tflm_destroy(f);
  if (rc == CLI_EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) {
    fprintf(stderr, "texmem tflm: write error\n");
    return CLI_EXIT_INTERNAL;
  }
  return rc;
}

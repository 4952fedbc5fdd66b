/* texmem bench --profile: every dispatch timed on the GPU (timer queries,
 * through the runtime's profile) and on the CPU, summed per operator type
 * and per kernel for each storage, beside the GPU time of the whole run. */
#ifdef TEXMEM_HAVE_RUNTIME
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_storage.h"
#include "cli.h"

static texmem_status oom(texmem_error *err) {
  snprintf(err->message, sizeof err->message, "out of memory");
  return TEXMEM_STATUS_OUT_OF_MEMORY;
}

/* A copy of name (the runtime's strings die with it); NULL on out of
 * memory. */
static char *copy_name(const char *name) {
  char *copy = malloc(strlen(name) + 1);
  if (copy) strcpy(copy, name);
  return copy;
}

/* Adds dispatch r (its GPU and CPU ns) to the entry of `name` (a new one at
 * the end). */
static bool agg_add(bench_agg **v, size_t *n, const char *name, const texmem_profile_record *r,
                    uint64_t gpu, uint64_t cpu) {
  if (!name) name = "?";
  for (size_t i = 0; i < *n; i++)
    if (!strcmp((*v)[i].name, name)) {
      (*v)[i].dispatches++;
      (*v)[i].gpu_ns += gpu;
      (*v)[i].cpu_ns += cpu;
      (*v)[i].work_groups += r->work_groups;
      (*v)[i].invocations += r->invocations;
      return true;
    }
  bench_agg *g = realloc(*v, (*n + 1) * sizeof *g);
  if (!g) return false;
  *v = g;
  char *copy = copy_name(name);
  if (!copy) return false;
  g[(*n)++] = (bench_agg){.name = copy,
                          .dispatches = 1,
                          .gpu_ns = gpu,
                          .cpu_ns = cpu,
                          .work_groups = r->work_groups,
                          .invocations = r->invocations};
  return true;
}

static int agg_by_gpu(const void *a, const void *b) {
  const bench_agg *x = a, *y = b;
  return x->gpu_ns < y->gpu_ns ? 1 : x->gpu_ns > y->gpu_ns ? -1 : strcmp(x->name, y->name);
}

static void agg_free(bench_agg *v, size_t n) {
  for (size_t i = 0; v && i < n; i++) free((char *)v[i].name);
  free(v);
}

void bench_profile_free(bench_profile *p) {
  for (int s = 0; s < BENCH_STORAGES; s++) {
    agg_free(p->s[s].by_type, p->s[s].n_type);
    agg_free(p->s[s].by_kernel, p->s[s].n_kernel);
    agg_free(p->s[s].slowest, p->s[s].n_slowest);
    agg_free(p->s[s].every, p->s[s].n_every);
  }
}

/* The runs of one storage: GPU and CPU ns of every dispatch, a run a row. */
typedef struct runs_buf {
  uint64_t *gpu, *cpu, *run;
  size_t n_rec;
} runs_buf;

/* GPU time of one unprofiled run: one elapsed query around it. */
static texmem_status time_unprofiled(texmem_gl_context *ctx, texmem_runtime *rt, uint64_t *ns,
                                     bool *disjoint, texmem_error *err) {
  texmem_gl_timer *t = NULL;
  texmem_status st = texmem_gl_timer_create(ctx, 1, &t, err);
  if (!st) {
    texmem_gl_timer_reset(t);
    st = texmem_gl_timer_begin(t, 0, err);
  }
  if (!st) st = texmem_runtime_run(rt, err);
  if (!st) st = texmem_gl_timer_end(t, 0, err);
  if (!st) st = texmem_gl_timer_read(t, ns, 1, disjoint, err);
  texmem_gl_timer_destroy(t);
  return st;
}

/* One profiled run into row `row` of buf; *kept false when discarded. */
static texmem_status profiled_run(const bench_setup *b, texmem_runtime *rt,
                                  texmem_runtime *unprofiled, runs_buf *buf, size_t row,
                                  bool *kept, bool *from_span, texmem_error *err) {
  texmem_runtime_profile p;
  texmem_status st = texmem_runtime_run(rt, err);
  if (!st) st = texmem_runtime_get_profile(rt, &p, err);
  if (st) return st;
  *kept = !p.disjoint && p.n_records == buf->n_rec;
  if (!*kept) return TEXMEM_STATUS_OK;
  for (size_t i = 0; i < p.n_records; i++) {
    buf->gpu[row * buf->n_rec + i] = p.records[i].gpu_ns;
    buf->cpu[row * buf->n_rec + i] = p.records[i].cpu_submit_ns;
  }
  *from_span = p.run_gpu_ns != 0;
  buf->run[row] = p.run_gpu_ns;
  if (*from_span) return TEXMEM_STATUS_OK;
  bool disjoint = false;
  st = time_unprofiled(b->ctx, unprofiled, &buf->run[row], &disjoint, err);
  if (!st && disjoint) *kept = false;
  return st;
}

/* The row whose run time is the median of rows 0 .. n-1. */
static size_t median_row(const uint64_t *run, size_t n) {
  size_t best = 0;
  for (size_t i = 0; i < n; i++) {
    size_t below = 0, equal_before = 0;
    for (size_t j = 0; j < n; j++) {
      below += run[j] < run[i];
      equal_before += j < i && run[j] == run[i];
    }
    if (below + equal_before == n / 2) best = i;
  }
  return best;
}

/* A dispatch's name: its operator (index, pass when several), type and
 * kernel. */
static void dispatch_name(const texmem_profile_record *r, char *name, size_t size) {
  snprintf(name, size, "op %zu%s%.0u %s %s", r->op, r->pass ? "." : "", r->pass,
           r->op_type ? r->op_type : "?", r->kernel ? r->kernel : "?");
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Median of column i over the n kept rows (tmp: n slots). */
static uint64_t column_median(const uint64_t *v, size_t n_rec, size_t i, size_t n, uint64_t *tmp) {
  for (size_t r = 0; r < n; r++) tmp[r] = v[r * n_rec + i];
  qsort(tmp, n, sizeof *tmp, cmp_u64);
  return tmp[(n - 1) / 2];
}

/* Every dispatch in run order with its median GPU and CPU time over the
 * kept runs: what a per-layer comparison of two builds or kernels reads. */
static bool keep_every(bench_profile_storage *ps, const texmem_runtime_profile *p,
                       const runs_buf *buf, size_t kept) {
  uint64_t *tmp = malloc((kept ? kept : 1) * sizeof *tmp);
  ps->every = calloc(buf->n_rec ? buf->n_rec : 1, sizeof *ps->every);
  if (!tmp || !ps->every) {
    free(tmp);
    return false;
  }
  for (size_t i = 0; i < buf->n_rec; i++) {
    char name[160];
    dispatch_name(&p->records[i], name, sizeof name);
    char *copy = copy_name(name);
    if (!copy) break;
    ps->every[ps->n_every++] =
        (bench_agg){.name = copy,
                    .dispatches = 1,
                    .gpu_ns = column_median(buf->gpu, buf->n_rec, i, kept, tmp),
                    .cpu_ns = column_median(buf->cpu, buf->n_rec, i, kept, tmp),
                    .work_groups = p->records[i].work_groups,
                    .invocations = p->records[i].invocations};
  }
  free(tmp);
  return ps->n_every == buf->n_rec;
}

/* The BENCH_SLOWEST slowest dispatches of the median run, each named by
 * dispatch_name: where a per-kernel sum cannot say which layer takes the
 * time. */
static bool keep_slowest(bench_profile_storage *ps, const texmem_runtime_profile *p,
                         const runs_buf *buf, size_t row) {
  for (size_t i = 0; i < buf->n_rec; i++) {
    char name[160];
    dispatch_name(&p->records[i], name, sizeof name);
    if (!agg_add(&ps->slowest, &ps->n_slowest, name, &p->records[i], buf->gpu[row * buf->n_rec + i],
                 buf->cpu[row * buf->n_rec + i]))
      return false;
  }
  qsort(ps->slowest, ps->n_slowest, sizeof *ps->slowest, agg_by_gpu);
  for (size_t i = BENCH_SLOWEST; i < ps->n_slowest; i++) free((char *)ps->slowest[i].name);
  if (ps->n_slowest > BENCH_SLOWEST) ps->n_slowest = BENCH_SLOWEST;
  return true;
}

/* Sums the kept median run per operator type and per kernel. */
static bool aggregate(bench_profile_storage *ps, const texmem_runtime_profile *p,
                      const runs_buf *buf, size_t row) {
  ps->dispatches = buf->n_rec;
  ps->run_gpu_ns = buf->run[row];
  for (size_t i = 0; i < buf->n_rec; i++) {
    uint64_t g = buf->gpu[row * buf->n_rec + i], c = buf->cpu[row * buf->n_rec + i];
    ps->gpu_ns += g;
    ps->cpu_ns += c;
    if (!agg_add(&ps->by_type, &ps->n_type, p->records[i].op_type, &p->records[i], g, c) ||
        !agg_add(&ps->by_kernel, &ps->n_kernel, p->records[i].kernel, &p->records[i], g, c))
      return false;
  }
  qsort(ps->by_type, ps->n_type, sizeof *ps->by_type, agg_by_gpu);
  qsort(ps->by_kernel, ps->n_kernel, sizeof *ps->by_kernel, agg_by_gpu);
  ps->ok = true;
  return keep_slowest(ps, p, buf, row) && keep_every(ps, p, buf, ps->kept);
}

static texmem_status profile_storage(const bench_setup *b, int s, texmem_runtime *unprofiled,
                                     bench_profile_storage *ps, texmem_error *err) {
  texmem_runtime *rt = NULL;
  texmem_runtime_profile p;
  texmem_status st = bench_setup_runtime(b, s, true, &rt, err);
  if (!st) st = texmem_runtime_run(rt, err); /* warm-up */
  if (!st) st = texmem_runtime_get_profile(rt, &p, err);
  runs_buf buf = {.n_rec = st ? 0 : p.n_records};
  if (!st) {
    buf.gpu = calloc(b->runs * buf.n_rec + 1, sizeof *buf.gpu);
    buf.cpu = calloc(b->runs * buf.n_rec + 1, sizeof *buf.cpu);
    buf.run = calloc(b->runs + 1, sizeof *buf.run);
    if (!buf.gpu || !buf.cpu || !buf.run)
      st = oom(err);
  }
  for (unsigned r = 0; r < b->runs && !st; r++) {
    bool kept = false;
    st = profiled_run(b, rt, unprofiled, &buf, ps->kept, &kept, &ps->run_from_span, err);
    if (kept) ps->kept++;
    else ps->discarded++;
  }
  if (!st && ps->kept) {
    size_t row = median_row(buf.run, ps->kept);
    st = texmem_runtime_get_profile(rt, &p, err); /* names of the records */
    if (!st && !aggregate(ps, &p, &buf, row)) st = oom(err);
  }
  free(buf.gpu);
  free(buf.cpu);
  free(buf.run);
  texmem_runtime_destroy(rt);
  return st;
}

texmem_status bench_profile_measure(const bench_setup *b, texmem_runtime *const *unprofiled,
                                    bench_profile *out, texmem_error *err) {
  const char *why;
  out->requested = true;
  out->runs = b->runs;
  out->available = texmem_gl_timer_support(b->ctx, &why) != TEXMEM_GL_TIMER_NONE;
  snprintf(out->why, sizeof out->why, "%s", why);
  if (!out->available) return TEXMEM_STATUS_OK;
  for (int s = 0; s < BENCH_STORAGES; s++) {
    texmem_status st = profile_storage(b, s, unprofiled[s], &out->s[s], err);
    if (st) return st;
  }
  return TEXMEM_STATUS_OK;
}

static double ms(uint64_t ns) { return (double)ns / 1e6; }
static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

static void print_aggs(const char *title, const bench_agg *v, size_t n, uint64_t total) {
  printf("    %-28s %6s %12s %7s %14s %12s\n", title, "disp.", "GPU ms", "GPU %", "CPU submit ms",
         "work groups");
  for (size_t i = 0; i < n; i++)
    printf("    %-28s %6zu %12.3f %7.1f %14.3f %12" PRIu64 "\n", v[i].name, v[i].dispatches,
           ms(v[i].gpu_ns), pct(v[i].gpu_ns, total), ms(v[i].cpu_ns), v[i].work_groups);
}

void bench_profile_print(const bench_profile *p) {
  if (!p->requested) return;
  if (!p->available) {
    printf("\nprofile:      none: %s\n", p->why);
    return;
  }
  printf("\nprofile:      every dispatch timed on the GPU, %s\n"
         "              of %u profiled runs of each storage, the one of median GPU time "
         "(disjoint runs discarded)\n",
         p->why, p->runs);
  for (int s = 0; s < BENCH_STORAGES; s++) {
    const bench_profile_storage *ps = &p->s[s];
    if (!ps->ok) {
      printf("  %s: every run discarded (%u disjoint)\n", bench_storage_names[s], ps->discarded);
      continue;
    }
    printf("  %s: run %.3f ms GPU (%s), dispatches %.3f ms GPU (%.1f%% of the run),\n"
           "    CPU submit %.3f ms; %zu dispatches, %u run%s discarded (disjoint)\n",
           bench_storage_names[s], ms(ps->run_gpu_ns),
           ps->run_from_span ? "timestamps around it" : "an unprofiled run", ms(ps->gpu_ns),
           pct(ps->gpu_ns, ps->run_gpu_ns), ms(ps->cpu_ns), ps->dispatches, ps->discarded,
           ps->discarded == 1 ? "" : "s");
    print_aggs("by operator type", ps->by_type, ps->n_type, ps->gpu_ns);
    print_aggs("by kernel", ps->by_kernel, ps->n_kernel, ps->gpu_ns);
    print_aggs("slowest dispatches", ps->slowest, ps->n_slowest, ps->gpu_ns);
  }
}

static void json_aggs(const char *key, const bench_agg *v, size_t n) {
  printf(",\n      \"%s\": [", key);
  for (size_t i = 0; i < n; i++) {
    printf("%s\n        {\"name\": ", i ? "," : "");
    cli_json_str(stdout, v[i].name);
    printf(", \"dispatches\": %zu, \"gpu_ns\": %" PRIu64 ", \"cpu_submit_ns\": %" PRIu64
           ", \"work_groups\": %" PRIu64 ", \"invocations\": %" PRIu64 "}",
           v[i].dispatches, v[i].gpu_ns, v[i].cpu_ns, v[i].work_groups, v[i].invocations);
  }
  printf("]");
}

void bench_profile_json(const bench_profile *p) {
  if (!p->requested || !p->available) {
    printf("  \"profile\": null,\n  \"profile_note\": ");
    cli_json_str(stdout, p->requested ? p->why : "not requested (--profile)");
    printf(",\n");
    return;
  }
  printf("  \"profile\": {\n    \"timer\": ");
  cli_json_str(stdout, p->why);
  printf(",\n    \"runs\": %u", p->runs);
  for (int s = 0; s < BENCH_STORAGES; s++) {
    const bench_profile_storage *ps = &p->s[s];
    printf(",\n    \"%s\": ", bench_storage_names[s]);
    if (!ps->ok) {
      printf("null");
      continue;
    }
    printf("{\n      \"kept\": %u, \"discarded_disjoint\": %u,\n      \"run_gpu_ns\": %" PRIu64
           ", \"run_gpu_from\": \"%s\",\n      \"dispatches\": %zu, \"dispatch_gpu_ns\": %" PRIu64
           ", \"cpu_submit_ns\": %" PRIu64,
           ps->kept, ps->discarded, ps->run_gpu_ns,
           ps->run_from_span ? "timestamps around the profiled run" : "an unprofiled run",
           ps->dispatches, ps->gpu_ns, ps->cpu_ns);
    json_aggs("by_op_type", ps->by_type, ps->n_type);
    json_aggs("by_kernel", ps->by_kernel, ps->n_kernel);
    json_aggs("slowest_dispatches", ps->slowest, ps->n_slowest);
    json_aggs("every_dispatch", ps->every, ps->n_every);
    printf("\n    }");
  }
  printf("\n  },\n");
}
#else
typedef int texmem__bench_profile_needs_runtime; /* built without the runtime */
#endif

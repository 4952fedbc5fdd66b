/* texmem bench's driver memory: each storage's runtime made alone, run
 * once, and the driver's count before and after beside the planned bytes
 * (textures, graph I/O, weights; the rest is what the driver counts beyond
 * them). Never an estimate: no query, no figure. */
#ifdef TEXMEM_HAVE_RUNTIME
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench_storage.h"
#include "cli.h"

const char *const bench_storage_names[BENCH_STORAGES] = {"naive", "objects", "arena", "buffer"};

texmem_status bench_setup_runtime(const bench_setup *b, int s, bool profile, texmem_runtime **out,
                                  texmem_error *err) {
  texmem_runtime_desc d = b->desc[s];
  d.profile = profile;
  texmem_status st = texmem_runtime_create(b->ctx, b->model, &d, out, err);
  for (size_t i = 0; i < b->n_inputs && !st; i++)
    st = texmem_runtime_set_input(*out, i, b->inputs[i], err);
  return st;
}

static void planned_split(bench_memory_storage *ms, const texmem_runtime_stats *rs) {
  ms->textures = rs->texture_bytes;
  ms->io = rs->io_bytes;
  ms->weights = rs->weights_bytes;
}

static texmem_status measure_one(const bench_setup *b, int s, bench_memory_storage *ms,
                                 texmem_error *err) {
  texmem_runtime *rt = NULL;
  texmem_status st = bench_setup_runtime(b, s, false, &rt, err);
  if (!st) st = texmem_runtime_run(rt, err);
  if (!st) st = texmem_runtime_finish(rt, err);
  if (!st) {
    texmem_runtime_stats rs;
    texmem_runtime_get_stats(rt, &rs);
    planned_split(ms, &rs);
    ms->ok = rs.driver_source != TEXMEM_GL_MEMORY_NONE;
    ms->source = rs.driver_source;
    ms->before = rs.driver_before_bytes;
    ms->after = rs.driver_after_bytes;
  }
  texmem_runtime_destroy(rt);
  return st;
}

/* Whether the driver has a source, and its name or why not. */
static void memory_source(const bench_setup *b, int only, bench_memory *out) {
  const char *why;
  out->available = texmem_gl_memory_support(b->ctx, &why) != TEXMEM_GL_MEMORY_NONE;
  snprintf(out->why, sizeof out->why, "%s", why);
  out->only = only;
}

texmem_status bench_memory_measure(const bench_setup *b, const texmem_runtime_stats *planned,
                                   bench_memory *out, texmem_error *err) {
  memory_source(b, -1, out);
  for (int s = 0; s < BENCH_STORAGES; s++) {
    planned_split(&out->s[s], &planned[s]);
    texmem_status st = out->available ? measure_one(b, s, &out->s[s], err) : TEXMEM_STATUS_OK;
    if (st) return st;
  }
  return TEXMEM_STATUS_OK;
}

texmem_status bench_memory_measure_alone(const bench_setup *b, int s, bench_memory *out,
                                         texmem_error *err) {
  memory_source(b, s, out);
  return measure_one(b, s, &out->s[s], err);
}

static bool shown(const bench_memory *m, int s) { return m->only < 0 || m->only == s; }

static double mib(int64_t b) { return (double)b / (1024.0 * 1024.0); }

static int64_t planned(const bench_memory_storage *s) {
  return (int64_t)(s->textures + s->io + s->weights);
}

void bench_memory_print(const bench_memory *m) {
  printf("\n%s\n", m->why);
  printf("  %-8s %13s %13s %12s %13s %13s %12s %10s\n", "storage", "textures MiB", "graph I/O MiB",
         "weights MiB", "driver before", "driver after", "delta MiB", "rest MiB");
  for (int s = 0; s < BENCH_STORAGES; s++) {
    const bench_memory_storage *x = &m->s[s];
    if (!shown(m, s)) continue;
    printf("  %-8s %13.3f %13.3f %12.3f", bench_storage_names[s], mib((int64_t)x->textures),
           mib((int64_t)x->io), mib((int64_t)x->weights));
    if (x->ok)
      printf(" %13.3f %13.3f %12.3f %10.3f  (%s)\n", mib(x->before), mib(x->after),
             mib(x->after - x->before), mib(x->after - x->before - planned(x)),
             texmem_gl_memory_source_name(x->source));
    else
      printf(" %13s %13s %12s %10s\n", "-", "-", "-", "-");
  }
}

void bench_memory_json(const bench_memory *m) {
  bool any = false;
  for (int s = 0; s < BENCH_STORAGES; s++) any = any || m->s[s].ok;
  printf("  \"planned_bytes\": {");
  for (int s = 0, n = 0; s < BENCH_STORAGES; s++) {
    const bench_memory_storage *x = &m->s[s];
    if (!shown(m, s)) continue;
    printf("%s\"%s\": {\"textures\": %" PRIu64 ", \"graph_io\": %" PRIu64 ", \"weights\": %" PRIu64
           "}",
           n++ ? ", " : "", bench_storage_names[s], x->textures, x->io, x->weights);
  }
  printf("},\n  \"driver_bytes\": ");
  if (!any) {
    printf("null,\n  \"driver_note\": ");
    cli_json_str(stdout, m->why);
    printf(",\n");
    return;
  }
  printf("{");
  for (int s = 0, n = 0; s < BENCH_STORAGES; s++) {
    const bench_memory_storage *x = &m->s[s];
    if (!shown(m, s)) continue;
    printf("%s\n    \"%s\": ", n++ ? "," : "", bench_storage_names[s]);
    if (!x->ok) {
      printf("null");
      continue;
    }
    printf("{\"source\": \"%s\", \"before\": %" PRId64 ", \"after\": %" PRId64
           ", \"delta\": %" PRId64 ", \"rest\": %" PRId64 "}",
           texmem_gl_memory_source_name(x->source), x->before, x->after, x->after - x->before,
           x->after - x->before - planned(x));
  }
  printf("\n  },\n  \"driver_note\": ");
  cli_json_str(stdout, m->why);
  printf(",\n");
}
#else
typedef int texmem__bench_memory_needs_runtime; /* built without the runtime */
#endif

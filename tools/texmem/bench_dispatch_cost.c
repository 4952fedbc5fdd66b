/* texmem bench --dispatch-cost: the least a dispatch costs on this driver,
 * whatever its kernel, so a model's profile can be read against it.
 *
 * A model's run is a chain of dispatches, most reading what the one before
 * wrote. Each such dispatch waits at a memory barrier for the one before
 * to finish and its writes to become visible, so a small layer costs the
 * GPU's drain, the barrier and the launch of the next, not its arithmetic.
 * This measures that floor directly: CHAIN dispatches of a program that
 * adds 1 to every texel, in the storage `auto` picks (the buffer arena on a
 * GPU), once as a dependent chain (each reads what the one before wrote:
 * ping-pong between two tensors, a barrier before every dispatch) and once
 * independent (each reads one input and writes a tensor of its own: no
 * barrier, the driver may overlap them); each at one work group (8x8x1
 * texels) and at a layer's size (56x56x8). One timer interval around each
 * chain gives the GPU time (no per-dispatch queries, which serialize); the
 * CPU time is the issuing of the chain. Medians over RUNS chains. The
 * dependent chain's result is read back and checked (CHAIN adds of 1). */
#ifdef TEXMEM_HAVE_RUNTIME
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_dispatch_cost.h"
#include "texmem/runtime.h"

#define CHAIN 128u
#define RUNS 7u

static const char *const body =
    "void main() {\n"
    "  ivec3 p = ivec3(gl_GlobalInvocationID);\n"
    "  if (!y_inside(p)) return;\n"
    "  y_write(p, x_read(p) + vec4(1.0));\n"
    "}\n";

static texmem_status failf(texmem_error *err, texmem_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  err->status = st;
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return st;
}

typedef struct cost_case {
  const char *name;
  bool dependent;
  uint64_t dims[3];
} cost_case;

static const cost_case cases[] = {{"dependent, 8x8x1", true, {8, 8, 1}},
                                  {"independent, 8x8x1", false, {8, 8, 1}},
                                  {"dependent, 56x56x8", true, {56, 56, 8}},
                                  {"independent, 56x56x8", false, {56, 56, 8}}};
#define N_CASES (sizeof cases / sizeof cases[0])

typedef struct cost_result {
  double gpu_ns, cpu_ns; /* per dispatch, medians over the runs; gpu < 0: none */
  uint64_t barriers;     /* of one chain */
} cost_result;

/* One case's pool: tensor 0 the input, 1 and 2 the ping-pong pair, 3 ..
 * 3 + CHAIN - 1 the independent outputs; all live the whole chain. */
typedef struct cost_pool {
  texmem_plan *plan;
  texmem_gl_pool *pool;
} cost_pool;

static void cost_pool_free(cost_pool *c) {
  texmem_gl_pool_destroy(c->pool);
  texmem_plan_destroy(c->plan);
}

static texmem_status cost_pool_make(texmem_gl_context *ctx, texmem_storage storage,
                                    const uint64_t dims[3], cost_pool *out, texmem_error *err) {
  enum { N = 3 + CHAIN };
  texmem_record r[N];
  for (size_t i = 0; i < N; i++)
    r[i] = (texmem_record){.id = i, .dims = {dims[0], dims[1], dims[2]}, .last_task = CHAIN};
  bool buffer = storage == TEXMEM_STORAGE_BUFFER;
  texmem_plan_desc pd = {.kind = TEXMEM_PLAN_OFFSETS, .strategy = TEXMEM_STRATEGY_GREEDY_BY_SIZE,
                         .layout = TEXMEM_LAYOUT_LINEAR};
  texmem_gl_max_dims(ctx, buffer ? TEXMEM_GL_TARGET_BUFFER : TEXMEM_GL_TARGET_2D, pd.max_dims);
  pd.max_dims[2] = 0;
  texmem_status st = texmem_plan_create(r, N, 3, &pd, &out->plan, err);
  if (st) return st;
  texmem_gl_pool_desc d = {.plan = out->plan, .storage = storage, .records = r,
                           .record_count = N, .dims = 3, .format = TEXMEM_GL_RGBA16F};
  return texmem_gl_pool_create(ctx, &d, &out->pool, err);
}

/* Issues one chain; *cpu_ms the time issuing it took. */
static texmem_status issue_chain(texmem_gl_pool *pool, texmem_gl_program prog, bool dependent,
                                 double *cpu_ms, texmem_error *err) {
  double t0 = cli_now_ms();
  for (size_t i = 0; i < CHAIN; i++) {
    size_t in = dependent ? 1 + i % 2 : 0, out = dependent ? 2 - i % 2 : 3 + i;
    texmem_gl_op op = {.program = prog, .inputs = &in, .n_inputs = 1, .outputs = &out,
                       .n_outputs = 1, .task = i};
    texmem_status st = texmem_gl_dispatch(pool, &op, err);
    if (st) return st;
  }
  *cpu_ms = cli_now_ms() - t0;
  return TEXMEM_STATUS_OK;
}

/* The dependent chain's result: tensor 1, which CHAIN (even) adds of 1
 * took from 0 to CHAIN, in every lane. */
static texmem_status check_chain(texmem_gl_pool *pool, const uint64_t dims[3], texmem_error *err) {
  size_t n = (size_t)(dims[0] * dims[1] * dims[2] * 4);
  float *v = malloc(n * sizeof *v);
  if (!v) return failf(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  texmem_status st = texmem_gl_tensor_read(pool, 1, v, err);
  for (size_t i = 0; i < n && !st; i++)
    if (v[i] != (float)CHAIN)
      st = failf(err, TEXMEM_STATUS_GL_ERROR,
                 "dispatch chain: value %zu is %g after %u adds of 1 to 0", i, (double)v[i],
                 CHAIN);
  free(v);
  return st;
}

/* Zeroes the ping-pong pair and the input. */
static texmem_status zero_inputs(texmem_gl_pool *pool, const uint64_t dims[3], texmem_error *err) {
  size_t n = (size_t)(dims[0] * dims[1] * dims[2] * 4);
  float *z = calloc(n, sizeof *z);
  if (!z) return failf(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  texmem_status st = TEXMEM_STATUS_OK;
  for (size_t t = 0; t < 3 && !st; t++) st = texmem_gl_tensor_upload(pool, t, z, err);
  free(z);
  return st;
}

static texmem_status measure_case(texmem_gl_context *ctx, texmem_storage storage,
                                  texmem_gl_program prog, texmem_gl_timer *timer,
                                  const cost_case *c, cost_result *out, texmem_error *err) {
  cost_pool cp = {0};
  double gpu[RUNS], cpu[RUNS];
  size_t kept = 0;
  texmem_status st = cost_pool_make(ctx, storage, c->dims, &cp, err);
  if (!st) st = zero_inputs(cp.pool, c->dims, err);
  double warm = 0;
  if (!st) st = issue_chain(cp.pool, prog, c->dependent, &warm, err); /* compiles, warms */
  if (!st) st = texmem_gl_finish(ctx, err);
  for (unsigned r = 0; r < RUNS && !st; r++) {
    if (c->dependent) st = zero_inputs(cp.pool, c->dims, err);
    if (!st) st = texmem_gl_finish(ctx, err);
    texmem_gl_counters k0, k1;
    texmem_gl_counters_get(ctx, &k0);
    if (!st && timer) {
      texmem_gl_timer_reset(timer);
      st = texmem_gl_timer_begin(timer, 0, err);
    }
    if (!st) st = issue_chain(cp.pool, prog, c->dependent, &cpu[r], err);
    if (!st && timer) st = texmem_gl_timer_end(timer, 0, err);
    texmem_gl_counters_get(ctx, &k1);
    out->barriers = k1.barriers - k0.barriers;
    uint64_t ns = 0;
    bool disjoint = false;
    if (!st && timer) st = texmem_gl_timer_read(timer, &ns, 1, &disjoint, err);
    if (!st && timer && !disjoint) gpu[kept++] = (double)ns;
    if (!st && c->dependent) st = check_chain(cp.pool, c->dims, err);
  }
  cost_pool_free(&cp);
  if (st) return st;
  out->gpu_ns = kept ? cli_median(gpu, kept) / CHAIN : -1.0;
  out->cpu_ns = cli_median(cpu, RUNS) * 1e6 / CHAIN;
  return TEXMEM_STATUS_OK;
}

static void print_text(const char *renderer, const char *storage, const char *timer_why,
                       const cost_result *res) {
  printf("dispatch cost: %s, %s storage, fp16, chains of %u dispatches adding 1 to every "
         "texel, median of %u chains\n",
         renderer, storage, CHAIN, RUNS);
  printf("  GPU time: %s\n", timer_why);
  printf("  %-24s %18s %24s %16s\n", "chain", "GPU us a dispatch", "CPU submit us a dispatch",
         "barriers/chain");
  for (size_t i = 0; i < N_CASES; i++) {
    char g[32] = "-";
    if (res[i].gpu_ns >= 0) snprintf(g, sizeof g, "%.2f", res[i].gpu_ns / 1e3);
    printf("  %-24s %18s %24.2f %16" PRIu64 "\n", cases[i].name, g, res[i].cpu_ns / 1e3,
           res[i].barriers);
  }
  printf("  a model's dependent dispatches times the dependent figure is the least its run "
         "can take\n");
}

static void print_json(const char *renderer, const char *storage, const char *timer_why,
                       const cost_result *res) {
  printf("{\n  \"dispatch_cost\": {\n    \"renderer\": ");
  cli_json_str(stdout, renderer);
  printf(",\n    \"storage\": \"%s\",\n    \"timer\": ", storage);
  cli_json_str(stdout, timer_why);
  printf(",\n    \"chain\": %u,\n    \"runs\": %u,\n    \"cases\": [", CHAIN, RUNS);
  for (size_t i = 0; i < N_CASES; i++) {
    printf("%s\n      {\"name\": \"%s\", \"dependent\": %s, \"texels\": %" PRIu64
           ", \"gpu_ns_per_dispatch\": ",
           i ? "," : "", cases[i].name, cases[i].dependent ? "true" : "false",
           cases[i].dims[0] * cases[i].dims[1] * cases[i].dims[2]);
    if (res[i].gpu_ns >= 0) printf("%.1f", res[i].gpu_ns);
    else printf("null");
    printf(", \"cpu_submit_ns_per_dispatch\": %.1f, \"barriers\": %" PRIu64 "}", res[i].cpu_ns,
           res[i].barriers);
  }
  printf("\n    ]\n  }\n}\n");
}

texmem_status bench_dispatch_cost(texmem_gl_context *ctx, bool json, texmem_error *err) {
  texmem_storage storage = texmem_runtime_auto_storage(ctx);
  const char *sname = storage == TEXMEM_STORAGE_BUFFER ? "buffer" : "arena";
  const char *why = "";
  texmem_gl_timer *timer = NULL;
  texmem_status st = TEXMEM_STATUS_OK;
  if (texmem_gl_timer_support(ctx, &why) != TEXMEM_GL_TIMER_NONE)
    st = texmem_gl_timer_create(ctx, 1, &timer, err);
  const char *in[] = {"x"}, *out[] = {"y"};
  texmem_gl_program_desc pd = {.name = "dispatch_cost", .source = body, .inputs = in,
                               .n_inputs = 1, .outputs = out, .n_outputs = 1,
                               .defer_compile = true}; /* the storage's variant at dispatch */
  texmem_gl_program prog = {0};
  if (!st) st = texmem_gl_program_create(ctx, &pd, &prog, err);
  cost_result res[N_CASES] = {{0}};
  for (size_t i = 0; i < N_CASES && !st; i++)
    st = measure_case(ctx, storage, prog, timer, &cases[i], &res[i], err);
  texmem_gl_program_destroy(ctx, prog);
  texmem_gl_timer_destroy(timer);
  if (st) return st;
  texmem_gl_info info;
  texmem_gl_context_info(ctx, &info);
  const char *renderer = info.renderer ? info.renderer : "?";
  if (json) print_json(renderer, sname, why, res);
  else print_text(renderer, sname, why, res);
  return TEXMEM_STATUS_OK;
}
#else
typedef int texmem__bench_dispatch_cost_needs_runtime; /* built without the runtime */
#endif

/* The runtime's profile (desc.profile) and driver memory figures: one
 * record a dispatch with the operator, its type and kernel, GPU times
 * inside the run's own span; a disjoint run flagged and zeroed; no timer
 * queries or no profile said plainly. Driver memory: before/after from an
 * injected query (no GPU needed), none where no source answers. */
#include <stdio.h>

#include "rt_support.h"

/* out = ((a + b) + b) + b ... : `adds` ADDs over 1x128x128x16 tensors. */
static texmem_model *add_chain(size_t adds) {
  texmem_model *m = NULL;
  TG_OK(texmem_model_create(&m, &tg_err_));
  const int32_t shape[4] = {1, 128, 128, 16};
  int32_t a, b, prev;
  TG_OK(texmem_model_add_tensor(m, "a", TEXMEM_DTYPE_FLOAT32, 4, shape, &a, &tg_err_));
  TG_OK(texmem_model_add_tensor(m, "b", TEXMEM_DTYPE_FLOAT32, 4, shape, &b, &tg_err_));
  prev = a;
  for (size_t k = 0; k < adds; k++) {
    int32_t t;
    TG_OK(texmem_model_add_tensor(m, NULL, TEXMEM_DTYPE_FLOAT32, 4, shape, &t, &tg_err_));
    const int32_t ins[2] = {prev, b};
    TG_OK(texmem_model_add_op(m, TEXMEM_OP_ADD, ins, 2, &t, 1, NULL, NULL, &tg_err_));
    prev = t;
  }
  const int32_t gin[2] = {a, b};
  TG_OK(texmem_model_set_io(m, gin, 2, &prev, 1, &tg_err_));
  return m;
}

static texmem_runtime *make_runtime(texmem_gl_context *ctx, const texmem_model *m, bool profile,
                                    float ***inputs) {
  texmem_runtime_desc d = {.profile = profile};
  texmem_runtime *rt = NULL;
  TG_OK(texmem_runtime_create(ctx, m, &d, &rt, &tg_err_));
  size_t n = 0;
  *inputs = rt_inputs(m, 3, &n);
  for (size_t i = 0; i < n; i++) TG_OK(texmem_runtime_set_input(rt, i, (*inputs)[i], &tg_err_));
  return rt;
}

Test(rt_profile, records_of_a_run) {
  texmem_gl_context *ctx = tg_context();
  const char *why = NULL;
  texmem_gl_timer_kind kind = texmem_gl_timer_support(ctx, &why);
  if (kind == TEXMEM_GL_TIMER_NONE) {
    texmem_gl_context_destroy(ctx);
    cr_skip_test("%s", why);
  }
  texmem_model *m = add_chain(6);
  float **in = NULL;
  texmem_runtime *rt = make_runtime(ctx, m, true, &in);
  texmem_runtime_profile p;
  texmem_error err = {0};
  cr_expect_eq(texmem_runtime_get_profile(rt, &p, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_expect_not_null(strstr(err.message, "no complete run"), "%s", err.message);
  for (int r = 0; r < 3; r++) {
    texmem_gl_counters c0, c1;
    texmem_gl_counters_get(ctx, &c0);
    TG_OK(texmem_runtime_run(rt, &tg_err_));
    texmem_gl_counters_get(ctx, &c1);
    TG_OK(texmem_runtime_get_profile(rt, &p, &tg_err_));
    cr_assert_eq(p.n_records, 6);
    cr_expect_eq(p.timer, kind);
    /* Each dispatch's work groups cover its 128x128x4 texels, and the
     * records' sum is what the context counted for the run. */
    uint64_t wg = 0, inv = 0;
    for (size_t i = 0; i < p.n_records; i++) {
      const texmem_profile_record *x = &p.records[i];
      cr_expect_geq(x->invocations, 128 * 128 * 4, "dispatch %zu", i);
      cr_expect(x->work_groups > 0 && x->invocations % x->work_groups == 0, "dispatch %zu", i);
      wg += x->work_groups;
      inv += x->invocations;
    }
    cr_expect_eq(wg, c1.work_groups - c0.work_groups);
    cr_expect_eq(inv, c1.invocations - c0.invocations);
    if (p.disjoint) continue;
    uint64_t gpu = 0, cpu = 0;
    for (size_t i = 0; i < p.n_records; i++) {
      const texmem_profile_record *x = &p.records[i];
      cr_expect_eq(x->op, i);
      cr_expect_eq(x->pass, 0);
      cr_expect_str_eq(x->op_type, "ADD");
      cr_expect_str_eq(x->kernel, "op_binary.comp");
      cr_expect_gt(x->gpu_ns, 0, "dispatch %zu", i);
      cr_expect_gt(x->cpu_submit_ns, 0, "dispatch %zu", i);
      gpu += x->gpu_ns;
      cpu += x->cpu_submit_ns;
    }
    cr_expect_eq(p.gpu_ns, gpu);
    cr_expect_eq(p.cpu_submit_ns, cpu);
    if (kind == TEXMEM_GL_TIMER_TIMESTAMPS) {
      /* The dispatches' intervals lie one after another inside the run's. */
      cr_expect_gt(p.run_gpu_ns, 0);
      cr_expect_leq(p.gpu_ns, p.run_gpu_ns, "%llu > %llu", (unsigned long long)p.gpu_ns,
                    (unsigned long long)p.run_gpu_ns);
    } else {
      cr_expect_eq(p.run_gpu_ns, 0, "elapsed queries cannot time the run around them");
    }
  }
  /* Profiled outputs are the unprofiled ones. */
  size_t n_out = texmem_runtime_output_size(rt, 0);
  float *x = malloc(n_out * sizeof *x), *y = malloc(n_out * sizeof *y);
  TG_OK(texmem_runtime_get_output(rt, 0, x, &tg_err_));
  float **in2 = NULL;
  texmem_runtime *plain = make_runtime(ctx, m, false, &in2);
  TG_OK(texmem_runtime_run(plain, &tg_err_));
  TG_OK(texmem_runtime_get_output(plain, 0, y, &tg_err_));
  cr_expect_eq(memcmp(x, y, n_out * sizeof *x), 0);
  cr_expect_eq(texmem_runtime_get_profile(plain, &p, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_expect_not_null(strstr(err.message, "without profile"), "%s", err.message);
  free(x);
  free(y);
  texmem_runtime_destroy(plain);
  texmem_runtime_destroy(rt);
  rt_free_arrays(in, 2);
  rt_free_arrays(in2, 2);
  texmem_model_destroy(m);
  texmem_gl_context_destroy(ctx);
}

Test(rt_profile, disjoint_run_is_flagged) {
  texmem_gl_context *ctx = tg_context();
  if (texmem_gl_timer_support(ctx, NULL) == TEXMEM_GL_TIMER_NONE) {
    texmem_gl_context_destroy(ctx);
    cr_skip_test("no timer queries");
  }
  texmem_model *m = add_chain(2);
  float **in = NULL;
  texmem_runtime *rt = make_runtime(ctx, m, true, &in);
  TG_OK(texmem_runtime_run(rt, &tg_err_));
  texmem__gl_timer_fake_disjoint(ctx, 1);
  texmem_runtime_profile p;
  TG_OK(texmem_runtime_get_profile(rt, &p, &tg_err_));
  cr_expect(p.disjoint);
  cr_expect_eq(p.gpu_ns, 0);
  cr_expect_eq(p.run_gpu_ns, 0);
  cr_expect_gt(p.cpu_submit_ns, 0, "CPU times stand");
  /* The next run is measured again. */
  TG_OK(texmem_runtime_run(rt, &tg_err_));
  TG_OK(texmem_runtime_get_profile(rt, &p, &tg_err_));
  cr_expect_not(p.disjoint);
  cr_expect_gt(p.gpu_ns, 0);
  texmem_runtime_destroy(rt);
  rt_free_arrays(in, 2);
  texmem_model_destroy(m);
  texmem_gl_context_destroy(ctx);
}

Test(rt_profile, no_timer_queries) {
  texmem_gl_context *ctx = tg_context();
  texmem__gl_timer_hide(ctx);
  texmem_model *m = add_chain(2);
  float **in = NULL;
  texmem_runtime *rt = make_runtime(ctx, m, true, &in);
  TG_OK(texmem_runtime_run(rt, &tg_err_)); /* runs, unprofiled on the GPU */
  texmem_runtime_profile p;
  texmem_error err = {0};
  cr_expect_eq(texmem_runtime_get_profile(rt, &p, &err), TEXMEM_STATUS_UNSUPPORTED);
  cr_expect_not_null(strstr(err.message, "no GPU timer queries"), "%s", err.message);
  cr_expect_eq(p.n_records, 0);
  cr_expect_eq(texmem_runtime_get_profile(NULL, &p, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  texmem_runtime_destroy(rt);
  rt_free_arrays(in, 2);
  texmem_model_destroy(m);
  texmem_gl_context_destroy(ctx);
}

/* ---- driver memory in the stats ---- */

/* A fake driver count: starts at base, grows by step at each reading. */
typedef struct fake {
  int64_t base, step;
  unsigned reads, fail_from; /* fail_from: readings past it fail (0: never) */
} fake;

static bool fake_query(void *user, int64_t *used) {
  fake *f = user;
  f->reads++;
  if (f->fail_from && f->reads > f->fail_from) return false;
  *used = f->base + (int64_t)(f->reads - 1) * f->step;
  return true;
}

static bool no_figure(void *user, int64_t *used) {
  (void)user;
  (void)used;
  return false;
}

Test(rt_profile, driver_memory_before_after) {
  texmem_gl_context *ctx = tg_context();
  fake f = {.base = 1 << 20, .step = 3 << 20};
  texmem__gl_memory_inject(ctx, fake_query, &f);
  texmem_model *m = add_chain(3);
  float **in = NULL;
  texmem_runtime *rt = make_runtime(ctx, m, false, &in);
  cr_expect_eq(f.reads, 1, "one reading as create begins");
  TG_OK(texmem_runtime_run(rt, &tg_err_));
  TG_OK(texmem_runtime_finish(rt, &tg_err_));
  texmem_runtime_stats s;
  texmem_runtime_get_stats(rt, &s);
  cr_expect_eq(f.reads, 2, "one more as the stats are taken");
  cr_expect_eq(s.driver_source, TEXMEM_GL_MEMORY_INJECTED);
  cr_expect_eq(s.driver_before_bytes, 1 << 20);
  cr_expect_eq(s.driver_after_bytes, 4 << 20);
  cr_expect_gt(s.texture_bytes, 0);
  /* A reading that fails: no figure at all. */
  f.fail_from = f.reads;
  texmem_runtime_get_stats(rt, &s);
  cr_expect_eq(s.driver_source, TEXMEM_GL_MEMORY_NONE);
  cr_expect_eq(s.driver_before_bytes, 0);
  cr_expect_eq(s.driver_after_bytes, 0);
  cr_expect_gt(s.texture_bytes, 0, "the planned figures stay");
  texmem_runtime_destroy(rt);
  /* No figure as the runtime was made: none later either (a difference
   * needs both readings from one source). */
  texmem__gl_memory_inject(ctx, no_figure, NULL);
  float **in2 = NULL;
  texmem_runtime *rt2 = make_runtime(ctx, m, false, &in2);
  f = (fake){.base = 5, .step = 1};
  texmem__gl_memory_inject(ctx, fake_query, &f);
  texmem_runtime_get_stats(rt2, &s);
  cr_expect_eq(s.driver_source, TEXMEM_GL_MEMORY_NONE);
  cr_expect_eq(s.driver_after_bytes, 0);
  texmem_runtime_destroy(rt2);
  rt_free_arrays(in2, 2);
  rt_free_arrays(in, 2);
  texmem_model_destroy(m);
  texmem_gl_context_destroy(ctx);
}

/* GPU timer queries (GL_EXT_disjoint_timer_query): intervals around real
 * compute dispatches read back non-zero and nest where timestamps exist;
 * a disjoint event zeroes the set; misuse is refused with a message; a
 * driver without the extension is reported as such. */
#include <stdio.h>

#include "gl_support.h"

/* Two 512 x 512 x 4 tensors in their own textures and add_const between
 * them (task 0): enough work to take measurable GPU time anywhere. */
typedef struct work {
  texmem_gl_context *ctx;
  texmem_plan *plan;
  texmem_gl_pool *pool;
  texmem_gl_program prog;
  texmem_gl_op op;
  size_t in[1], out[1];
  texmem_gl_uniform u;
} work;

static void work_make(work *w, texmem_gl_context *ctx) {
  static const texmem_record r[2] = {{0, {512, 512, 4}, 0, 0}, {1, {512, 512, 4}, 0, 1}};
  static const size_t of[2] = {0, 1};
  static const char *const src[] = {"src"}, *const dst[] = {"dst"};
  memset(w, 0, sizeof *w);
  w->ctx = ctx;
  w->plan = tg_manual_plan(r, 2, 3, of, 2);
  texmem_gl_pool_desc pd = {.plan = w->plan, .records = r, .record_count = 2, .dims = 3};
  TG_OK(texmem_gl_pool_create(ctx, &pd, &w->pool, &tg_err_));
  texmem_gl_program_desc d = {.name = "add_const",
                              .source = tg_shader_source("test_add_const.comp"),
                              .inputs = src, .n_inputs = 1, .outputs = dst, .n_outputs = 1};
  TG_OK(texmem_gl_program_create(ctx, &d, &w->prog, &tg_err_));
  float *data = tg_fill(r[0].dims, 1);
  TG_OK(texmem_gl_tensor_upload(w->pool, 0, data, &tg_err_));
  free(data);
  w->in[0] = 0;
  w->out[0] = 1;
  w->u = (texmem_gl_uniform){.name = "c", .type = TEXMEM_GL_VEC4, .f = {1, 2, 3, 4}};
  w->op = (texmem_gl_op){.program = w->prog, .inputs = w->in, .n_inputs = 1,
                         .outputs = w->out, .n_outputs = 1, .uniforms = &w->u,
                         .n_uniforms = 1, .task = 0};
}

static void work_free(work *w) {
  texmem_gl_pool_destroy(w->pool);
  texmem_plan_destroy(w->plan);
}

/* A context with timer queries, or skip (a driver without them is
 * tested by no_timer_queries). */
static texmem_gl_context *timer_context(void) {
  texmem_gl_context *ctx = tg_context();
  const char *why = NULL;
  if (texmem_gl_timer_support(ctx, &why) == TEXMEM_GL_TIMER_NONE) {
    cr_expect_not_null(strstr(why, "no GPU timer queries"), "%s", why);
    texmem_gl_context_destroy(ctx);
    cr_skip_test("%s", why);
  }
  return ctx;
}

Test(gl_timer, support_is_described) {
  texmem_gl_context *ctx = tg_context();
  const char *why = NULL;
  texmem_gl_timer_kind k = texmem_gl_timer_support(ctx, &why);
  cr_assert_not_null(why);
  if (k == TEXMEM_GL_TIMER_NONE)
    cr_expect_not_null(strstr(why, "no GPU timer queries"), "%s", why);
  else
    cr_expect_not_null(strstr(why, "GL_EXT_disjoint_timer_query"), "%s", why);
  cr_expect_str_eq(texmem_gl_timer_kind_name(TEXMEM_GL_TIMER_TIMESTAMPS), "timestamps");
  cr_expect_str_eq(texmem_gl_timer_kind_name(TEXMEM_GL_TIMER_ELAPSED), "elapsed");
  cr_expect_str_eq(texmem_gl_timer_kind_name(TEXMEM_GL_TIMER_NONE), "none");
  texmem_gl_info in;
  texmem_gl_context_info(ctx, &in);
  if (strstr(in.renderer, "llvmpipe")) /* Mesa has the extension with timestamps */
    cr_expect_eq(k, TEXMEM_GL_TIMER_TIMESTAMPS, "%s", why);
  texmem_gl_context_destroy(ctx);
}

Test(gl_timer, intervals_around_dispatches) {
  texmem_gl_context *ctx = timer_context();
  bool nest = texmem_gl_timer_support(ctx, NULL) == TEXMEM_GL_TIMER_TIMESTAMPS;
  work w;
  work_make(&w, ctx);
  texmem_gl_timer *t = NULL;
  TG_OK(texmem_gl_timer_create(ctx, 4, &t, &tg_err_));
  for (int round = 0; round < 2; round++) { /* a timer is reused after a reset */
    texmem_gl_timer_reset(t);
    if (nest) TG_OK(texmem_gl_timer_begin(t, 3, &tg_err_)); /* around both */
    for (size_t i = 0; i < 2; i++) {
      TG_OK(texmem_gl_timer_begin(t, i, &tg_err_));
      TG_OK(texmem_gl_dispatch(w.pool, &w.op, &tg_err_));
      TG_OK(texmem_gl_timer_end(t, i, &tg_err_));
    }
    if (nest) TG_OK(texmem_gl_timer_end(t, 3, &tg_err_));
    uint64_t ns[4] = {9, 9, 9, 9};
    bool disjoint = true;
    TG_OK(texmem_gl_timer_read(t, ns, 4, &disjoint, &tg_err_));
    if (disjoint) continue; /* the driver says the figures are void */
    cr_expect_gt(ns[0], 0);
    cr_expect_gt(ns[1], 0);
    cr_expect_eq(ns[2], 0, "interval 2 never ran");
    if (nest) {
      cr_expect_geq(ns[3], ns[0] + ns[1], "the outer interval holds both: %llu < %llu + %llu",
                    (unsigned long long)ns[3], (unsigned long long)ns[0],
                    (unsigned long long)ns[1]);
      cr_expect_lt(ns[3], 60ull * 1000000000ull);
    }
  }
  texmem_gl_timer_destroy(t);
  work_free(&w);
  texmem_gl_context_destroy(ctx);
}

Test(gl_timer, disjoint_discards_the_set) {
  texmem_gl_context *ctx = timer_context();
  work w;
  work_make(&w, ctx);
  texmem_gl_timer *t = NULL;
  TG_OK(texmem_gl_timer_create(ctx, 1, &t, &tg_err_));
  texmem_gl_timer_reset(t);
  TG_OK(texmem_gl_timer_begin(t, 0, &tg_err_));
  TG_OK(texmem_gl_dispatch(w.pool, &w.op, &tg_err_));
  TG_OK(texmem_gl_timer_end(t, 0, &tg_err_));
  texmem__gl_timer_fake_disjoint(ctx, 1);
  uint64_t ns = 7;
  bool disjoint = false;
  TG_OK(texmem_gl_timer_read(t, &ns, 1, &disjoint, &tg_err_));
  cr_expect(disjoint);
  cr_expect_eq(ns, 0, "a disjoint set's figures are zeroed");
  texmem_gl_timer_destroy(t);
  work_free(&w);
  texmem_gl_context_destroy(ctx);
}

Test(gl_timer, misuse_is_refused) {
  texmem_gl_context *ctx = timer_context();
  texmem_gl_timer *t = NULL;
  texmem_error err = {0};
  cr_expect_eq(texmem_gl_timer_create(ctx, 0, &t, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_expect_null(t);
  cr_expect_eq(texmem_gl_timer_create(NULL, 1, &t, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_expect_eq(texmem_gl_timer_create(ctx, 1, NULL, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  TG_OK(texmem_gl_timer_create(ctx, 2, &t, &tg_err_));
  texmem_gl_timer_reset(t);
  cr_expect_eq(texmem_gl_timer_begin(t, 2, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_expect_not_null(strstr(err.message, "interval 2 of 2"), "%s", err.message);
  cr_expect_eq(texmem_gl_timer_end(t, 1, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_expect_not_null(strstr(err.message, "not begun"), "%s", err.message);
  uint64_t ns[3];
  bool dj;
  cr_expect_eq(texmem_gl_timer_read(t, ns, 3, &dj, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_expect_eq(texmem_gl_timer_read(t, ns, 2, NULL, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_expect_eq(texmem_gl_timer_begin(NULL, 0, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  texmem_gl_timer_destroy(t);
  texmem_gl_timer_destroy(NULL);
  texmem_gl_timer_reset(NULL);
  texmem_gl_context_destroy(ctx);
}

/* Elapsed queries cannot nest: a second begin while one is open is
 * refused (forced on a driver that has them; timestamps are preferred). */
Test(gl_timer, elapsed_intervals_do_not_nest) {
  texmem_gl_context *ctx = timer_context();
  GLint bits = 0;
  glGetQueryivEXT(GL_TIME_ELAPSED_EXT, GL_QUERY_COUNTER_BITS_EXT, &bits);
  if (bits <= 0) {
    texmem_gl_context_destroy(ctx);
    cr_skip_test("GL_TIME_ELAPSED_EXT has 0 bits here");
  }
  ctx->timer_kind = TEXMEM_GL_TIMER_ELAPSED;
  texmem_gl_timer *t = NULL;
  TG_OK(texmem_gl_timer_create(ctx, 2, &t, &tg_err_));
  texmem_gl_timer_reset(t);
  TG_OK(texmem_gl_timer_begin(t, 0, &tg_err_));
  texmem_error err = {0};
  cr_expect_eq(texmem_gl_timer_begin(t, 1, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_expect_not_null(strstr(err.message, "cannot nest"), "%s", err.message);
  TG_OK(texmem_gl_timer_end(t, 0, &tg_err_));
  uint64_t ns[2];
  bool dj;
  TG_OK(texmem_gl_timer_read(t, ns, 2, &dj, &tg_err_));
  texmem_gl_timer_destroy(t);
  texmem_gl_context_destroy(ctx);
}

Test(gl_timer, no_timer_queries) {
  texmem_gl_context *ctx = tg_context();
  texmem__gl_timer_hide(ctx);
  const char *why = NULL;
  cr_expect_eq(texmem_gl_timer_support(ctx, &why), TEXMEM_GL_TIMER_NONE);
  texmem_gl_timer *t = NULL;
  texmem_error err = {0};
  cr_expect_eq(texmem_gl_timer_create(ctx, 1, &t, &err), TEXMEM_STATUS_UNSUPPORTED);
  cr_expect_null(t);
  cr_expect_not_null(strstr(err.message, "no GPU timer queries"), "%s", err.message);
  texmem_gl_context_destroy(ctx);
}

/* Dispatch layer: tiny compute graphs (a chain, a diamond, independent
 * branches) on shared textures give exactly the values of one texture per
 * tensor and of a CPU reference; barriers only on hazards; exclusive
 * access; the reuse checker catches a corrupted plan; programs compile once
 * and report their info log. */
#include <stdio.h>

#include "gl_support.h"

/* ---- a tiny graph: add_const (dst = src + c) and add (dst = a + b) ---- */
enum { ADD_CONST = 0, ADD = 1 };
#define MAXT 24
typedef struct node {
  int kind;
  size_t in[2], out;
  float c;
} node;
typedef struct graph {
  size_t n_tensors, n_nodes;
  uint64_t shape[MAXT][3];
  node nodes[MAXT];
} graph;

typedef struct progs {
  texmem_gl_program add_const, add;
} progs;

static progs make_progs(texmem_gl_context *ctx) {
  progs p;
  static const char *const src[] = {"src"}, *const ab[] = {"a", "b"}, *const dst[] = {"dst"};
  texmem_gl_program_desc d = {.name = "add_const",
                              .source = tg_shader_source("test_add_const.comp"),
                              .inputs = src, .n_inputs = 1, .outputs = dst, .n_outputs = 1,
                              .local_size = {4, 4, 2}};
  cr_assert_not_null(d.source);
  TG_OK(texmem_gl_program_create(ctx, &d, &p.add_const, &tg_err_));
  d = (texmem_gl_program_desc){.name = "add", .source = tg_shader_source("test_add.comp"),
                               .inputs = ab, .n_inputs = 2, .outputs = dst, .n_outputs = 1};
  TG_OK(texmem_gl_program_create(ctx, &d, &p.add, &tg_err_));
  return p;
}

static bool is_input(const graph *g, size_t t) {
  for (size_t k = 0; k < g->n_nodes; k++)
    if (g->nodes[k].out == t) return false;
  return true;
}
static bool is_output(const graph *g, size_t t) {
  for (size_t k = 0; k < g->n_nodes; k++) {
    const node *nd = &g->nodes[k];
    if (nd->in[0] == t || (nd->kind == ADD && nd->in[1] == t)) return false;
  }
  return true;
}

/* Records from the graph: op k runs at task k; a graph output lives to
 * task n_nodes (read back). */
static void records_of(const graph *g, texmem_record *r) {
  for (size_t t = 0; t < g->n_tensors; t++) {
    r[t] = (texmem_record){t, {g->shape[t][0], g->shape[t][1], g->shape[t][2]}, 0, 0};
    bool produced = false;
    for (size_t k = 0; k < g->n_nodes; k++) {
      const node *nd = &g->nodes[k];
      if (nd->out == t) {
        r[t].first_task = k;
        produced = true;
      }
      if (nd->in[0] == t || (nd->kind == ADD && nd->in[1] == t))
        if (k > r[t].last_task) r[t].last_task = k;
    }
    if (!produced) r[t].first_task = 0;
    if (is_output(g, t)) r[t].last_task = g->n_nodes;
    if (r[t].last_task < r[t].first_task) r[t].last_task = r[t].first_task;
  }
}

/* CPU reference with the shaders' semantics (zero outside a tensor). */
static float ref_at(const graph *g, float **val, size_t t, uint64_t x, uint64_t y, uint64_t z,
                    int c) {
  const uint64_t *s = g->shape[t];
  if (x >= s[0] || y >= s[1] || z >= s[2]) return 0.0f;
  return val[t][((z * s[1] + y) * s[0] + x) * 4 + (size_t)c];
}
static float **reference(const graph *g) {
  float **val = calloc(g->n_tensors, sizeof *val);
  for (size_t t = 0; t < g->n_tensors; t++)
    if (is_input(g, t)) val[t] = tg_fill(g->shape[t], t + 1);
  for (size_t k = 0; k < g->n_nodes; k++) {
    const node *nd = &g->nodes[k];
    const uint64_t *s = g->shape[nd->out];
    float *o = malloc((size_t)(s[0] * s[1] * s[2]) * 4 * sizeof *o);
    for (uint64_t z = 0; z < s[2]; z++)
      for (uint64_t y = 0; y < s[1]; y++)
        for (uint64_t x = 0; x < s[0]; x++)
          for (int c = 0; c < 4; c++) {
            float v = ref_at(g, val, nd->in[0], x, y, z, c);
            v += nd->kind == ADD ? ref_at(g, val, nd->in[1], x, y, z, c) : nd->c + (float)c;
            o[((z * s[1] + y) * s[0] + x) * 4 + (size_t)c] = v;
          }
    val[nd->out] = o;
  }
  return val;
}
static void free_vals(const graph *g, float **val) {
  for (size_t t = 0; t < g->n_tensors; t++) free(val[t]);
  free(val);
}

static texmem_gl_op op_of(const progs *p, const node *nd, size_t task, texmem_gl_uniform *u) {
  *u = (texmem_gl_uniform){.name = "c", .type = TEXMEM_GL_VEC4,
                           .f = {nd->c, nd->c + 1, nd->c + 2, nd->c + 3}};
  texmem_gl_op op = {.program = nd->kind == ADD ? p->add : p->add_const,
                     .inputs = nd->in, .n_inputs = nd->kind == ADD ? 2 : 1,
                     .outputs = &nd->out, .n_outputs = 1,
                     .uniforms = u, .n_uniforms = nd->kind == ADD ? 0 : 1, .task = task};
  return op;
}

/* Set by a test: run_graph prepares every op (texmem_gl_prepare) before
 * the counters of its run are reset. */
static bool prepare_first;

/* Runs the graph on a pool of plan; returns the graph outputs' data (NULL
 * for other tensors) and the counters of the run (uploads excluded). */
static float **run_graph(texmem_gl_context *ctx, const progs *p, const graph *g,
                         const texmem_plan *plan, texmem_gl_pool_desc d, texmem_gl_counters *cnt) {
  texmem_record r[MAXT];
  records_of(g, r);
  d.plan = plan;
  if (!d.records) d.records = r; /* else the caller's (lying) records */
  d.record_count = g->n_tensors;
  d.dims = 3;
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
  for (size_t t = 0; t < g->n_tensors; t++)
    if (is_input(g, t)) {
      float *in = tg_fill(g->shape[t], t + 1);
      TG_OK(texmem_gl_tensor_upload(pool, t, in, &tg_err_));
      free(in);
    }
  if (prepare_first) {
    texmem_gl_op ops[MAXT];
    texmem_gl_uniform us[MAXT];
    for (size_t k = 0; k < g->n_nodes; k++) ops[k] = op_of(p, &g->nodes[k], k, &us[k]);
    TG_OK(texmem_gl_prepare(pool, ops, g->n_nodes, &tg_err_));
  }
  texmem_gl_counters_reset(ctx);
  for (size_t k = 0; k < g->n_nodes; k++) {
    texmem_gl_uniform u;
    texmem_gl_op op = op_of(p, &g->nodes[k], k, &u);
    TG_OK(texmem_gl_dispatch(pool, &op, &tg_err_));
  }
  texmem_gl_counters_get(ctx, cnt);
  float **out = calloc(g->n_tensors, sizeof *out);
  for (size_t t = 0; t < g->n_tensors; t++)
    if (is_output(g, t)) {
      const uint64_t *s = g->shape[t];
      out[t] = malloc((size_t)(s[0] * s[1] * s[2]) * 4 * sizeof *out[t]);
      TG_OK(texmem_gl_tensor_read(pool, t, out[t], &tg_err_));
    }
  texmem_gl_pool_destroy(pool);
  return out;
}

static void assert_same_outputs(const graph *g, float **a, float **b, const char *what) {
  for (size_t t = 0; t < g->n_tensors; t++) {
    if (!is_output(g, t)) continue;
    size_t n = (size_t)(g->shape[t][0] * g->shape[t][1] * g->shape[t][2]) * 4;
    for (size_t i = 0; i < n; i++)
      cr_assert_eq(a[t][i], b[t][i], "%s: tensor %zu value %zu: %g != %g", what, t, i, a[t][i],
                   b[t][i]);
  }
}

/* ---- the graphs ---- */

/* 0 -> 1 -> ... -> 6, shapes differ so objects are larger than tensors. */
static graph chain(void) {
  graph g = {.n_tensors = 7, .n_nodes = 6};
  const uint64_t s[7][3] = {{9, 7, 3}, {5, 8, 2}, {11, 3, 4}, {6, 6, 1}, {8, 9, 3}, {4, 5, 2}, {10, 2, 3}};
  memcpy(g.shape, s, sizeof s);
  for (size_t k = 0; k < 6; k++) g.nodes[k] = (node){ADD_CONST, {k, 0}, k + 1, 0.5f * (float)(k + 1)};
  return g;
}

/* 0 -> A:1, 0 -> B:2, C:3 = 1 + 2, D:4 = 3 + c. */
static graph diamond(void) {
  graph g = {.n_tensors = 5, .n_nodes = 4};
  const uint64_t s[5][3] = {{8, 8, 2}, {7, 9, 2}, {8, 6, 3}, {9, 9, 2}, {6, 7, 3}};
  memcpy(g.shape, s, sizeof s);
  g.nodes[0] = (node){ADD_CONST, {0, 0}, 1, 1.0f};
  g.nodes[1] = (node){ADD_CONST, {0, 0}, 2, 2.0f};
  g.nodes[2] = (node){ADD, {1, 2}, 3, 0};
  g.nodes[3] = (node){ADD_CONST, {3, 0}, 4, -1.5f};
  return g;
}

/* Four independent branches of two ops, then a sum tree; breadth first. */
static graph branches(void) {
  graph g = {.n_tensors = 12, .n_nodes = 11};
  for (size_t t = 0; t < 12; t++) {
    g.shape[t][0] = 8 + t % 3;
    g.shape[t][1] = 6 + t % 2;
    g.shape[t][2] = 2;
  }
  for (size_t b = 0; b < 4; b++) {
    g.nodes[b] = (node){ADD_CONST, {0, 0}, 1 + b, (float)b};          /* level 1: 1..4 */
    g.nodes[4 + b] = (node){ADD_CONST, {1 + b, 0}, 5 + b, 0.25f * (float)b}; /* level 2: 5..8 */
  }
  g.nodes[8] = (node){ADD, {5, 6}, 9, 0};
  g.nodes[9] = (node){ADD, {7, 8}, 10, 0};
  g.nodes[10] = (node){ADD, {9, 10}, 11, 0};
  return g;
}

static texmem_plan *naive_plan(const graph *g) {
  texmem_record r[MAXT];
  records_of(g, r);
  return tt_plan(r, g->n_tensors, 3, (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_NAIVE});
}

/* ---- tests ---- */

Test(gl_dispatch, chain_on_two_shared_textures_matches_naive_and_cpu) {
  texmem_gl_context *ctx = tg_context();
  progs p = make_progs(ctx);
  graph g = chain();
  texmem_record r[MAXT];
  records_of(&g, r);
  const size_t of[7] = {0, 1, 0, 1, 0, 1, 0}; /* ping-pong */
  texmem_plan *shared = tg_manual_plan(r, 7, 3, of, 2);
  texmem_plan *naive = naive_plan(&g);
  float **want = reference(&g);
  texmem_gl_counters cs, cn;
  float **a = run_graph(ctx, &p, &g, shared, (texmem_gl_pool_desc){.reuse_checker = true}, &cs);
  float **b = run_graph(ctx, &p, &g, naive, (texmem_gl_pool_desc){0}, &cn);
  assert_same_outputs(&g, a, want, "shared vs cpu");
  assert_same_outputs(&g, b, want, "naive vs cpu");
  /* A chain reads what the previous op wrote: a barrier before ops 1..5. */
  cr_assert_eq(cs.dispatches, 6);
  cr_assert_eq(cs.barriers, 5);
  cr_assert_eq(cn.barriers, 5);
  cr_assert_eq(cs.binds, 12);
  free_vals(&g, want);
  free_vals(&g, a);
  free_vals(&g, b);
  texmem_plan_destroy(shared);
  texmem_plan_destroy(naive);
  texmem_gl_context_destroy(ctx);
}

Test(gl_dispatch, diamond_shared_matches_naive_every_target_format_layout) {
  texmem_gl_context *ctx = tg_context();
  progs p = make_progs(ctx);
  graph g = diamond();
  texmem_record r[MAXT];
  records_of(&g, r);
  /* t0 [0,1] and t3 [2,4]... t0 shares with t3, t1 [0,2] with t4 [3,4]. */
  const size_t of[5] = {0, 1, 2, 0, 1};
  texmem_plan *shared = tg_manual_plan(r, 5, 3, of, 3);
  texmem_plan *naive = naive_plan(&g);
  float **want = reference(&g);
  for (int v = 0; v < 4; v++) {
    texmem_gl_pool_desc d = {.reuse_checker = true,
                             .format = v & 1 ? TEXMEM_GL_RGBA16F : TEXMEM_GL_RGBA32F,
                             .array_target = v & 2 ? TEXMEM_GL_TARGET_3D : TEXMEM_GL_TARGET_AUTO};
    texmem_gl_counters cs, cn;
    float **a = run_graph(ctx, &p, &g, shared, d, &cs);
    float **b = run_graph(ctx, &p, &g, naive, d, &cn);
    assert_same_outputs(&g, a, b, "shared vs naive");
    assert_same_outputs(&g, a, want, "shared vs cpu"); /* quarter steps: exact in fp16 */
    /* A and B are independent: barriers before C and D only. */
    cr_assert_eq(cs.dispatches, 4);
    cr_assert_eq(cs.barriers, 2, "shared plan: %llu barriers", (unsigned long long)cs.barriers);
    cr_assert_eq(cn.barriers, 2);
    free_vals(&g, a);
    free_vals(&g, b);
  }
  /* Linear layout from the planner (shared objects, W-wide 2-D textures). */
  texmem_plan *lin = tt_plan(r, 5, 3,
                             (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_GREEDY_IN_ORDER,
                                                .layout = TEXMEM_LAYOUT_LINEAR, .linear_width = 32});
  cr_assert_lt(texmem_plan_object_count(lin), 5);
  texmem_gl_counters cl;
  float **c = run_graph(ctx, &p, &g, lin, (texmem_gl_pool_desc){.reuse_checker = true}, &cl);
  assert_same_outputs(&g, c, want, "linear vs cpu");
  free_vals(&g, c);
  texmem_plan_destroy(lin);
  free_vals(&g, want);
  texmem_plan_destroy(shared);
  texmem_plan_destroy(naive);
  texmem_gl_context_destroy(ctx);
}

/* Independent branches: far fewer barriers than one per dispatch (TFLite
 * issues a full barrier after every dispatch). */
Test(gl_dispatch, branches_need_fewer_barriers_than_dispatches) {
  texmem_gl_context *ctx = tg_context();
  progs p = make_progs(ctx);
  graph g = branches();
  texmem_record r[MAXT];
  records_of(&g, r);
  texmem_plan *naive = naive_plan(&g);
  texmem_plan *best = tt_plan(r, g.n_tensors, 3, (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_BEST});
  cr_assert_lt(texmem_plan_object_count(best), g.n_tensors);
  float **want = reference(&g);
  texmem_gl_counters cn, cb;
  float **a = run_graph(ctx, &p, &g, naive, (texmem_gl_pool_desc){0}, &cn);
  float **b = run_graph(ctx, &p, &g, best, (texmem_gl_pool_desc){.reuse_checker = true}, &cb);
  assert_same_outputs(&g, a, want, "naive vs cpu");
  assert_same_outputs(&g, b, want, "best plan vs cpu");
  cr_assert_eq(cn.dispatches, 11);
  /* Level 2, then each level of the sum tree: 3 barriers for 11 dispatches. */
  cr_assert_eq(cn.barriers, 3, "naive: %llu", (unsigned long long)cn.barriers);
  cr_assert_lt(cb.barriers, cb.dispatches, "shared: %llu barriers for %llu dispatches",
               (unsigned long long)cb.barriers, (unsigned long long)cb.dispatches);
  cr_log_info("branches: naive %llu barriers, %s plan (%zu objects) %llu barriers, %llu dispatches",
              (unsigned long long)cn.barriers, texmem_strategy_name(texmem_plan_get_strategy(best)),
              texmem_plan_object_count(best), (unsigned long long)cb.barriers,
              (unsigned long long)cb.dispatches);
  free_vals(&g, want);
  free_vals(&g, a);
  free_vals(&g, b);
  texmem_plan_destroy(naive);
  texmem_plan_destroy(best);
  texmem_gl_context_destroy(ctx);
}

/* The diamond with a lie in its records: tensor 1's last use is recorded
 * as task 0, though C reads it at task 2. A plan valid for these records
 * puts tensor 2 (written at task 1) into tensor 1's texture. */
static texmem_plan *corrupted_diamond(const graph *g, texmem_record *r) {
  records_of(g, r);
  r[1].last_task = 0;
  const size_t of[5] = {0, 1, 1, 0, 2};
  return tg_manual_plan(r, 5, 3, of, 3); /* valid for the lying records */
}

Test(gl_dispatch, reuse_checker_catches_corrupted_plan) {
  texmem_gl_context *ctx = tg_context();
  progs p = make_progs(ctx);
  graph g = diamond();
  texmem_record r[MAXT];
  texmem_plan *bad = corrupted_diamond(&g, r);
  /* Reuse checker alone (lifetime check off). */
  texmem_gl_pool_desc d = {.plan = bad, .records = r, .record_count = 5, .dims = 3,
                           .reuse_checker = true, .skip_lifetime_check = true};
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
  float *in = tg_fill(g.shape[0], 1);
  TG_OK(texmem_gl_tensor_upload(pool, 0, in, &tg_err_));
  texmem_gl_uniform u;
  for (size_t k = 0; k < 2; k++) {
    texmem_gl_op op = op_of(&p, &g.nodes[k], k, &u);
    TG_OK(texmem_gl_dispatch(pool, &op, &tg_err_));
  }
  texmem_gl_counters before;
  texmem_gl_counters_get(ctx, &before);
  texmem_gl_op op = op_of(&p, &g.nodes[2], 2, &u);
  texmem_error err = {0};
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_REUSE_VIOLATION, "%s",
               err.message);
  cr_assert(strstr(err.message, "task 2") && strstr(err.message, "tensor 1") &&
                strstr(err.message, "object 1") && strstr(err.message, "tensor 2"),
            "%s", err.message);
  texmem_gl_counters after;
  texmem_gl_counters_get(ctx, &after);
  cr_assert_eq(after.dispatches, before.dispatches, "the failing op was not dispatched");
  float buf[9 * 9 * 3 * 4];
  cr_assert_eq(texmem_gl_tensor_read(pool, 1, buf, &err), TEXMEM_STATUS_REUSE_VIOLATION);
  texmem_gl_pool_destroy(pool);

  /* Default checks: the lifetime check refuses it statically, naming the
   * tensor that holds the texture. */
  d.reuse_checker = false;
  d.skip_lifetime_check = false;
  TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
  TG_OK(texmem_gl_tensor_upload(pool, 0, in, &tg_err_));
  for (size_t k = 0; k < 2; k++) {
    op = op_of(&p, &g.nodes[k], k, &u);
    TG_OK(texmem_gl_dispatch(pool, &op, &tg_err_));
  }
  op = op_of(&p, &g.nodes[2], 2, &u);
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_EXCLUSIVE_ACCESS, "%s",
               err.message);
  cr_assert(strstr(err.message, "tensor 1") && strstr(err.message, "live tensor 2"), "%s",
            err.message);
  texmem_gl_pool_destroy(pool);

  free(in);
  texmem_plan_destroy(bad);
  texmem_gl_context_destroy(ctx);
}

/* A long branch: A: 1 = 0 + c, B: 2 = 0 + c, C: 3 = 2 + c, D: 4 = 3 + c,
 * E: 5 = 1 + 4. The records say tensor 1 dies at task 0, so a plan valid
 * for them lets C write tensor 3 into tensor 1's texture before E reads
 * it, and no op ever binds one texture twice. */
static graph long_branch(void) {
  graph g = {.n_tensors = 6, .n_nodes = 5};
  const uint64_t s[6][3] = {{8, 8, 2}, {7, 9, 2}, {8, 6, 3}, {9, 9, 2}, {6, 7, 3}, {9, 9, 3}};
  memcpy(g.shape, s, sizeof s);
  g.nodes[0] = (node){ADD_CONST, {0, 0}, 1, 1.0f};
  g.nodes[1] = (node){ADD_CONST, {0, 0}, 2, 2.0f};
  g.nodes[2] = (node){ADD_CONST, {2, 0}, 3, 3.0f};
  g.nodes[3] = (node){ADD_CONST, {3, 0}, 4, 4.0f};
  g.nodes[4] = (node){ADD, {1, 4}, 5, 0};
  return g;
}

/* Runs g unchecked with plan bad (pool settings d) and asserts that output
 * 5 differs from the reference somewhere: the lie in bad does harm. */
static void assert_wrong_unchecked(texmem_gl_context *ctx, const progs *p, const graph *g,
                                   texmem_plan *bad, texmem_gl_pool_desc d, float **want,
                                   const char *what) {
  texmem_gl_counters c;
  float **got = run_graph(ctx, p, g, bad, d, &c);
  size_t n = (size_t)(g->shape[5][0] * g->shape[5][1] * g->shape[5][2]) * 4, diff = 0;
  for (size_t i = 0; i < n; i++) diff += got[5][i] != want[5][i];
  cr_assert_gt(diff, 0, "the corrupted %s should give wrong values unchecked", what);
  free_vals(g, got);
}

/* A pool for d, the input uploaded and nodes 0..3 dispatched; *st is node
 * 4's dispatch status (its message in *err). The caller destroys the pool. */
static texmem_gl_pool *dispatch_to_node4(texmem_gl_context *ctx, const progs *p, const graph *g,
                                         const texmem_gl_pool_desc *d, texmem_status *st,
                                         texmem_error *err) {
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, d, &pool, &tg_err_));
  float *in = tg_fill(g->shape[0], 1);
  TG_OK(texmem_gl_tensor_upload(pool, 0, in, &tg_err_));
  free(in);
  texmem_gl_uniform u;
  for (size_t k = 0; k < 4; k++) {
    texmem_gl_op op = op_of(p, &g->nodes[k], k, &u);
    TG_OK(texmem_gl_dispatch(pool, &op, &tg_err_));
  }
  texmem_gl_op op = op_of(p, &g->nodes[4], 4, &u);
  *st = texmem_gl_dispatch(pool, &op, err);
  return pool;
}

Test(gl_dispatch, reuse_checker_catches_what_unchecked_runs_get_wrong) {
  texmem_gl_context *ctx = tg_context();
  progs p = make_progs(ctx);
  graph g = long_branch();
  texmem_record r[MAXT];
  records_of(&g, r);
  r[1].last_task = 0; /* the lie */
  const size_t of[6] = {0, 1, 2, 1, 0, 2};
  texmem_plan *bad = tg_manual_plan(r, 6, 3, of, 3);
  float **want = reference(&g);
  /* Unchecked, the plan silently gives wrong values. */
  assert_wrong_unchecked(ctx, &p, &g, bad,
                         (texmem_gl_pool_desc){.records = r, .skip_lifetime_check = true}, want,
                         "plan");
  /* The reuse checker stops E, naming both tensors, the object, the task. */
  for (int mode = 0; mode < 2; mode++) {
    texmem_gl_pool_desc d = {.plan = bad, .records = r, .record_count = 6, .dims = 3,
                             .reuse_checker = mode == 0, .skip_lifetime_check = mode == 0};
    texmem_error err = {0};
    texmem_status st;
    texmem_gl_pool *pool = dispatch_to_node4(ctx, &p, &g, &d, &st, &err);
    if (mode == 0) {
      cr_assert_eq(st, TEXMEM_STATUS_REUSE_VIOLATION, "%s", err.message);
      cr_assert(strstr(err.message, "task 4") && strstr(err.message, "reads tensor 1") &&
                    strstr(err.message, "object 1") && strstr(err.message, "tensor 3 wrote") &&
                    strstr(err.message, "at task 2"),
                "%s", err.message);
    } else {
      /* The default lifetime check refuses it too. */
      cr_assert_eq(st, TEXMEM_STATUS_EXCLUSIVE_ACCESS, "%s", err.message);
      cr_assert(strstr(err.message, "tensor 1 is used outside its lifetime [0, 0]"), "%s",
                err.message);
    }
    texmem_gl_pool_destroy(pool);
  }
  /* The honest plan passes the reuse checker and gives the right values. */
  records_of(&g, r);
  texmem_plan *good = tt_plan(r, 6, 3, (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_BEST});
  texmem_gl_counters c;
  float **got = run_graph(ctx, &p, &g, good, (texmem_gl_pool_desc){.reuse_checker = true}, &c);
  assert_same_outputs(&g, got, want, "honest plan vs cpu");
  free_vals(&g, got);
  free_vals(&g, want);
  texmem_plan_destroy(good);
  texmem_plan_destroy(bad);
  texmem_gl_context_destroy(ctx);
}

Test(gl_dispatch, exclusive_access_errors) {
  texmem_gl_context *ctx = tg_context();
  progs p = make_progs(ctx);
  graph g = diamond();
  texmem_record r[MAXT];
  records_of(&g, r);
  const size_t of[5] = {0, 1, 2, 0, 1};
  texmem_plan *plan = tg_manual_plan(r, 5, 3, of, 3);
  texmem_gl_pool_desc d = {.plan = plan, .records = r, .record_count = 5, .dims = 3};
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
  texmem_error err = {0};
  /* The same texture twice in one dispatch. */
  const size_t twice[2] = {0, 0}, out1 = 1;
  texmem_gl_op op = {.program = p.add, .inputs = twice, .n_inputs = 2, .outputs = &out1,
                     .n_outputs = 1, .task = 0};
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_EXCLUSIVE_ACCESS, "%s",
               err.message);
  cr_assert(strstr(err.message, "share one texture"), "%s", err.message);
  /* Reading tensor 0 at task 3: it is dead and tensor 3 holds object 0. */
  const size_t in0 = 0, out4 = 4;
  op = (texmem_gl_op){.program = p.add_const, .inputs = &in0, .n_inputs = 1, .outputs = &out4,
                      .n_outputs = 1, .task = 3};
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_EXCLUSIVE_ACCESS);
  cr_assert(strstr(err.message, "input tensor 0") && strstr(err.message, "live tensor 3"), "%s",
            err.message);
  /* Outside its lifetime with no holder. */
  const size_t in2 = 2;
  op.inputs = &in2;
  op.task = 4;
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_EXCLUSIVE_ACCESS);
  cr_assert(strstr(err.message, "outside its lifetime [1, 2]"), "%s", err.message);
  /* Wrong argument counts, stale program, out of range tensor. */
  op = (texmem_gl_op){.program = p.add, .inputs = &in0, .n_inputs = 1, .outputs = &out1,
                      .n_outputs = 1};
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  const size_t bad_t = 99;
  op = (texmem_gl_op){.program = p.add_const, .inputs = &bad_t, .n_inputs = 1, .outputs = &out1,
                      .n_outputs = 1};
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  texmem_gl_program gone = p.add_const;
  texmem_gl_program_destroy(ctx, gone);
  op.inputs = &in0;
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_STALE_HANDLE);
  op.program = (texmem_gl_program){0};
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  size_t failed = 0;
  cr_assert_eq(texmem_gl_run(pool, &op, 1, &failed, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_eq(failed, 0);
  texmem_gl_counters c;
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.dispatches, 0, "no failed op was dispatched");
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(plan);
  texmem_gl_context_destroy(ctx);
}

Test(gl_dispatch, programs_compile_once_and_report_the_log) {
  texmem_gl_context *ctx = tg_context();
  texmem_gl_counters_reset(ctx);
  progs p = make_progs(ctx);
  texmem_gl_counters c;
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.programs_compiled, 2);
  /* Ten runs of the chain on fp32 2-D arrays: no further compile but the
   * read back's. */
  graph g = chain();
  texmem_plan *naive = naive_plan(&g);
  for (int i = 0; i < 10; i++) {
    texmem_gl_counters cr;
    float **o = run_graph(ctx, &p, &g, naive, (texmem_gl_pool_desc){0}, &cr);
    free_vals(&g, o);
  }
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.programs_compiled, 0, "counters were reset by the last run; nothing compiled");
  /* fp16 bindings: one new variant per program used, once. */
  texmem_gl_counters_reset(ctx);
  for (int i = 0; i < 3; i++) {
    texmem_gl_counters cr;
    float **o = run_graph(ctx, &p, &g, naive, (texmem_gl_pool_desc){.format = TEXMEM_GL_RGBA16F}, &cr);
    free_vals(&g, o);
    if (i == 0) cr_assert_eq(cr.programs_compiled, 1, "add_const fp16 variant");
    else cr_assert_eq(cr.programs_compiled, 0);
  }
  texmem_plan_destroy(naive);
  /* A compile error returns the info log. */
  static const char *const src[] = {"src"}, *const dst[] = {"dst"};
  texmem_gl_program_desc d = {.name = "broken", .source = "void main() { undeclared_thing = 1; }",
                              .inputs = src, .n_inputs = 1, .outputs = dst, .n_outputs = 1};
  texmem_gl_program bad = {0};
  texmem_error err = {0};
  cr_assert_eq(texmem_gl_program_create(ctx, &d, &bad, &err), TEXMEM_STATUS_SHADER_COMPILE);
  cr_assert_eq(bad.id, 0);
  cr_assert(strstr(err.message, "broken") && strstr(err.message, "undeclared_thing"), "%s",
            err.message);
  cr_assert(strstr(texmem_gl_program_log(ctx), "undeclared_thing"), "%s", texmem_gl_program_log(ctx));
  /* Names must be GLSL identifiers, distinct. */
  static const char *const bad_names[] = {"gl_x"}, *const dup[] = {"src"};
  d = (texmem_gl_program_desc){.name = "n", .source = "void main() {}", .inputs = bad_names,
                               .n_inputs = 1};
  cr_assert_eq(texmem_gl_program_create(ctx, &d, &bad, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  d = (texmem_gl_program_desc){.name = "n", .source = "void main() {}", .inputs = src,
                               .n_inputs = 1, .outputs = dup, .n_outputs = 1};
  cr_assert_eq(texmem_gl_program_create(ctx, &d, &bad, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  d.source = NULL;
  cr_assert_eq(texmem_gl_program_create(ctx, &d, &bad, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_null(tg_shader_source("no_such.comp"));
  /* Waiting for the GPU: nothing pending is OK; a NULL context is refused. */
  TG_OK(texmem_gl_finish(ctx, &tg_err_));
  cr_assert_eq(texmem_gl_finish(NULL, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  texmem_gl_context_destroy(ctx);
}

/* Weights outside the pool: an SSBO, an imported texture, int and float
 * uniforms, explicit work-group counts. */
/* Programs of the same source share one linked program in a context (a GPU
 * driver can take a second a compile): a second set compiles nothing and
 * runs as the first, outlives the first's destruction, and the link goes
 * with the last reference. Compile time is counted, and reset. */
static texmem_gl_counters counters_of(const texmem_gl_context *ctx) {
  texmem_gl_counters c;
  texmem_gl_counters_get(ctx, &c);
  return c;
}

Test(gl_dispatch, same_source_programs_share_one_link) {
  texmem_gl_context *ctx = tg_context();
  texmem_gl_counters_reset(ctx);
  progs p = make_progs(ctx);
  texmem_gl_counters c = counters_of(ctx);
  cr_assert_eq(c.programs_compiled, 2);
  cr_assert_gt(c.compile_ns, 0, "compiling takes time");
  texmem_gl_counters_reset(ctx);
  cr_assert_eq(counters_of(ctx).compile_ns, 0, "reset zeroes the compile time");
  progs q = make_progs(ctx);
  c = counters_of(ctx);
  cr_assert_eq(c.programs_compiled, 0, "the same sources again: nothing compiled");
  cr_assert_eq(c.compile_ns, 0);
  graph g = chain();
  texmem_plan *naive = naive_plan(&g);
  float **want = reference(&g);
  texmem_gl_counters cr;
  float **a = run_graph(ctx, &p, &g, naive, (texmem_gl_pool_desc){0}, &cr);
  texmem_gl_program_destroy(ctx, p.add_const);
  texmem_gl_program_destroy(ctx, p.add);
  float **b = run_graph(ctx, &q, &g, naive, (texmem_gl_pool_desc){0}, &cr);
  cr_assert_eq(cr.programs_compiled, 0, "q's programs outlive p's");
  assert_same_outputs(&g, a, want, "first set vs cpu");
  assert_same_outputs(&g, b, want, "second set (shared links) vs cpu");
  /* Another set while q lives shares again; after q and it go, a new set
   * compiles: the last reference deleted the links. */
  progs r = make_progs(ctx);
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.programs_compiled, 0);
  texmem_gl_program_destroy(ctx, q.add_const);
  texmem_gl_program_destroy(ctx, q.add);
  texmem_gl_program_destroy(ctx, r.add_const);
  texmem_gl_program_destroy(ctx, r.add);
  texmem_gl_counters_reset(ctx);
  progs s = make_progs(ctx);
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.programs_compiled, 2, "nothing left to share");
  float **d = run_graph(ctx, &s, &g, naive, (texmem_gl_pool_desc){0}, &cr);
  assert_same_outputs(&g, d, want, "recompiled set vs cpu");
  free_vals(&g, want);
  free_vals(&g, a);
  free_vals(&g, b);
  free_vals(&g, d);
  texmem_plan_destroy(naive);
  texmem_gl_context_destroy(ctx);
}

/* texmem_gl_prepare compiles, in one batch, what the ops' first dispatches
 * would: here the fp16 and buffer variants. The run then compiles nothing
 * and matches the CPU. Two programs of one source compile once (a leader
 * and its follower); an op that does not resolve is left to its dispatch. */
Test(gl_dispatch, prepare_compiles_what_the_run_would) {
  texmem_gl_context *ctx = tg_context();
  progs p = make_progs(ctx), twin = make_progs(ctx);
  graph g = diamond();
  texmem_record r[MAXT];
  records_of(&g, r);
  texmem_plan *naive = naive_plan(&g);
  texmem_plan *arena = tt_plan(r, g.n_tensors, 3,
                               (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS,
                                                  .layout = TEXMEM_LAYOUT_LINEAR,
                                                  .max_dims = {1, 0, 0}});
  float **want = reference(&g);
  const texmem_gl_pool_desc descs[2] = {{.format = TEXMEM_GL_RGBA16F},
                                        {.storage = TEXMEM_STORAGE_BUFFER}};
  for (int k = 0; k < 2; k++) {
    const texmem_plan *plan = k ? arena : naive;
    texmem_gl_counters_reset(ctx);
    prepare_first = true;
    texmem_gl_counters cr, c;
    float **o = run_graph(ctx, &p, &g, plan, descs[k], &cr);
    prepare_first = false;
    texmem_gl_counters_get(ctx, &c);
    cr_assert_eq(cr.programs_compiled, 0, "the run compiled %llu programs",
                 (unsigned long long)cr.programs_compiled);
    cr_assert_eq(cr.dispatches, g.n_nodes);
    if (k == 1) assert_same_outputs(&g, o, want, "buffer, prepared");
    free_vals(&g, o);
    /* The twin's variants: the same sources, linked already. */
    texmem_gl_counters_reset(ctx);
    o = run_graph(ctx, &twin, &g, plan, descs[k], &cr);
    texmem_gl_counters_get(ctx, &c);
    cr_assert_eq(c.programs_compiled, 0, "the twin shares every link");
    if (k == 1) assert_same_outputs(&g, o, want, "buffer, twin");
    free_vals(&g, o);
  }
  /* Prepared together, the twins' new variants (fp16 buffers) compile
   * once: the second program's entry follows the first's. */
  texmem_gl_pool *bp = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &(texmem_gl_pool_desc){.plan = arena, .records = r,
                                                         .record_count = g.n_tensors, .dims = 3,
                                                         .storage = TEXMEM_STORAGE_BUFFER,
                                                         .format = TEXMEM_GL_RGBA16F},
                              &bp, &tg_err_));
  texmem_gl_uniform us[2];
  texmem_gl_op both[2] = {op_of(&p, &g.nodes[0], 0, &us[0]), op_of(&twin, &g.nodes[0], 0, &us[1])};
  texmem_gl_counters c;
  texmem_gl_counters_reset(ctx);
  TG_OK(texmem_gl_prepare(bp, both, 2, &tg_err_));
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.programs_compiled, 1);
  texmem_gl_pool_destroy(bp);
  texmem_plan_destroy(arena);
  /* A stale handle is skipped by prepare; its dispatch names it. */
  texmem_gl_program_destroy(ctx, p.add);
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &(texmem_gl_pool_desc){.plan = naive, .records = r,
                                                         .record_count = g.n_tensors, .dims = 3},
                              &pool, &tg_err_));
  texmem_gl_uniform u;
  texmem_gl_op op = op_of(&p, &g.nodes[2], 2, &u);
  TG_OK(texmem_gl_prepare(pool, &op, 1, &tg_err_));
  texmem_error err = {0};
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_STALE_HANDLE);
  cr_assert_eq(texmem_gl_prepare(NULL, &op, 1, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  TG_OK(texmem_gl_prepare(pool, NULL, 0, &tg_err_));
  texmem_gl_pool_destroy(pool);
  free_vals(&g, want);
  texmem_plan_destroy(naive);
  texmem_gl_context_destroy(ctx);
}

/* A program whose buffer variants do not compile: the body names the
 * image of a texture binding, which a buffer binding does not declare. */
static texmem_gl_program texture_only(texmem_gl_context *ctx, const char *name) {
  static const char *const src[] = {"src"}, *const dst[] = {"dst"};
  texmem_gl_program_desc d = {
      .name = name,
      .source = "void main() { ivec3 p = ivec3(gl_GlobalInvocationID); "
                "if (!dst_inside(p)) return; "
                "dst_write(p, src_read(p) + float(imageSize(tm_img_src).x)); }",
      .inputs = src, .n_inputs = 1, .outputs = dst, .n_outputs = 1};
  texmem_gl_program prog = {0};
  TG_OK(texmem_gl_program_create(ctx, &d, &prog, &tg_err_));
  return prog;
}

/* A buffer arena's plan of g's records r (filled here): offsets, one row. */
static texmem_plan *row_plan(const graph *g, texmem_record *r) {
  records_of(g, r);
  return tt_plan(r, g->n_tensors, 3,
                 (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS, .layout = TEXMEM_LAYOUT_LINEAR,
                                    .max_dims = {1, 0, 0}});
}

/* A context that compiles a batch on several threads (its desc's
 * compile_threads): the diamond's two programs are compiled at once, one
 * on a thread with a context of its own that shares the runtime's, and
 * run as those the calling thread compiled alone; a compile error among
 * them is reported as on one thread, with the program's name. */
Test(gl_dispatch, prepare_on_several_threads) {
  graph g = diamond();
  texmem_plan *naive = naive_plan(&g);
  float **want = reference(&g);
  for (uint32_t threads = 1; threads <= 3; threads += 2) {
    texmem_gl_context *ctx = tg_context_desc(&(texmem_gl_context_desc){.compile_threads = threads});
    progs p = make_progs(ctx);
    texmem_gl_counters c;
    prepare_first = true;
    float **o = run_graph(ctx, &p, &g, naive, (texmem_gl_pool_desc){0}, &c);
    prepare_first = false;
    assert_same_outputs(&g, o, want, threads > 1 ? "three threads" : "one thread");
    free_vals(&g, o);
    cr_assert_eq(c.programs_compiled, 0, "the run compiled what prepare did not");
    texmem_gl_counters_reset(ctx);
    /* A second batch (buffer variants, new): one that does not compile
     * (it names a texture binding's image) beside one that does. */
    texmem_gl_program bad = texture_only(ctx, "texture_only_threads");
    texmem_record r[MAXT];
    texmem_plan *arena = row_plan(&g, r);
    texmem_gl_pool *pool = NULL;
    TG_OK(texmem_gl_pool_create(ctx, &(texmem_gl_pool_desc){.plan = arena, .records = r,
                                                           .record_count = g.n_tensors,
                                                           .dims = 3,
                                                           .storage = TEXMEM_STORAGE_BUFFER},
                                &pool, &tg_err_));
    texmem_gl_uniform us[2];
    texmem_gl_op ops[2] = {op_of(&p, &g.nodes[2], 2, &us[0]), op_of(&p, &g.nodes[0], 0, &us[1])};
    ops[1].program = bad;
    texmem_error err = {0};
    cr_assert_eq(texmem_gl_prepare(pool, ops, 2, &err), TEXMEM_STATUS_SHADER_COMPILE, "%s",
                 err.message);
    cr_assert_not_null(strstr(err.message, "texture_only_threads"), "%s", err.message);
    texmem_gl_counters_get(ctx, &c);
    cr_assert_eq(c.compile_threads_max, threads > 1 ? 2 : 1, "%u threads asked, %llu ran",
                 threads, (unsigned long long)c.compile_threads_max);
    texmem_gl_pool_destroy(pool);
    texmem_plan_destroy(arena);
    texmem_gl_context_destroy(ctx);
  }
  free_vals(&g, want);
  texmem_plan_destroy(naive);
}

/* A buffer arena pool for the chain's first operation alone (tensor 0 ->
 * tensor 1); *plan gets its plan (the caller destroys both). */
static texmem_gl_pool *one_op_buffer_pool(texmem_gl_context *ctx, texmem_plan **plan) {
  graph g = chain();
  g.n_nodes = 1;
  texmem_record r[MAXT];
  *plan = row_plan(&g, r);
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &(texmem_gl_pool_desc){.plan = *plan, .records = r,
                                                         .record_count = g.n_tensors, .dims = 3,
                                                         .storage = TEXMEM_STORAGE_BUFFER},
                              &pool, &tg_err_));
  return pool;
}

/* A variant that does not compile (the body names the image of a texture
 * binding, which a buffer binding does not declare) fails prepare with the
 * program's name and the log; nothing is left half made. */
Test(gl_dispatch, prepare_reports_a_compile_error) {
  texmem_gl_context *ctx = tg_context();
  texmem_gl_program prog = texture_only(ctx, "texture_only");
  texmem_plan *naive = NULL;
  texmem_gl_pool *pool = one_op_buffer_pool(ctx, &naive);
  size_t in = 0, out = 1;
  texmem_gl_op op = {.program = prog, .inputs = &in, .n_inputs = 1, .outputs = &out,
                     .n_outputs = 1};
  texmem_error err = {0};
  cr_assert_eq(texmem_gl_prepare(pool, &op, 1, &err), TEXMEM_STATUS_SHADER_COMPILE, "%s",
               err.message);
  cr_assert(strstr(err.message, "texture_only") && strstr(err.message, "tm_img_src"), "%s",
            err.message);
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_SHADER_COMPILE, "%s",
               err.message);
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(naive);
  texmem_gl_program_destroy(ctx, prog);
  texmem_gl_context_destroy(ctx);
}

/* defer_compile: creating compiles nothing, not even a broken source;
 * texmem_gl_prepare compiles the one variant the operation binds (a
 * buffer arena's, which the default variant of 2-D arrays is not), the
 * run nothing more, with the undeferred program's outputs; the broken
 * source fails prepare and the dispatch with its name and log. */
Test(gl_dispatch, deferred_programs_compile_at_prepare) {
  texmem_gl_context *ctx = tg_context();
  static const char *const src[] = {"src"}, *const dst[] = {"dst"};
  texmem_gl_program_desc d = {.name = "add_const_deferred",
                              .source = tg_shader_source("test_add_const.comp"),
                              .inputs = src, .n_inputs = 1, .outputs = dst, .n_outputs = 1,
                              .local_size = {4, 4, 2}, .defer_compile = true};
  texmem_gl_program good = {0}, broken = {0};
  texmem_gl_counters c;
  texmem_gl_counters_reset(ctx);
  TG_OK(texmem_gl_program_create(ctx, &d, &good, &tg_err_));
  d.name = "broken_deferred";
  d.source = "void main() { undeclared_thing = 1; }";
  TG_OK(texmem_gl_program_create(ctx, &d, &broken, &tg_err_));
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.programs_compiled, 0, "deferred: nothing compiled at creation");

  texmem_plan *rows = NULL;
  texmem_gl_pool *pool = one_op_buffer_pool(ctx, &rows); /* one ADD_CONST: tensor 0 -> 1 */
  size_t in = 0, out = 1;
  texmem_gl_op op = {.program = good, .inputs = &in, .n_inputs = 1, .outputs = &out,
                     .n_outputs = 1};
  TG_OK(texmem_gl_prepare(pool, &op, 1, &tg_err_));
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.programs_compiled, 1, "the buffer variant alone");
  uint64_t s0[3], s1[3];
  cr_assert(texmem_gl_tensor_shape(pool, 0, s0) && texmem_gl_tensor_shape(pool, 1, s1));
  size_t n0 = (size_t)(s0[0] * s0[1] * s0[2] * 4), n = (size_t)(s1[0] * s1[1] * s1[2] * 4);
  float *x = malloc(n0 * sizeof *x), *y = malloc(n * sizeof *y);
  cr_assert(x && y);
  for (size_t i = 0; i < n0; i++) x[i] = (float)i * 0.25f;
  TG_OK(texmem_gl_tensor_upload(pool, 0, x, &tg_err_));
  TG_OK(texmem_gl_dispatch(pool, &op, &tg_err_));
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.programs_compiled, 1, "the dispatch compiled nothing more");
  TG_OK(texmem_gl_tensor_read(pool, 1, y, &tg_err_));
  /* The same operation with the program made the default way. */
  float *want = malloc(n * sizeof *want);
  cr_assert_not_null(want);
  progs p = make_progs(ctx);
  op.program = p.add_const;
  TG_OK(texmem_gl_dispatch(pool, &op, &tg_err_));
  TG_OK(texmem_gl_tensor_read(pool, 1, want, &tg_err_));
  cr_assert(memcmp(y, want, n * sizeof *y) == 0, "deferred and default programs differ");

  op.program = broken;
  texmem_error err = {0};
  cr_assert_eq(texmem_gl_prepare(pool, &op, 1, &err), TEXMEM_STATUS_SHADER_COMPILE, "%s",
               err.message);
  cr_assert(strstr(err.message, "broken_deferred") && strstr(err.message, "undeclared_thing"),
            "%s", err.message);
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_SHADER_COMPILE, "%s",
               err.message);
  free(x);
  free(y);
  free(want);
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(rows);
  texmem_gl_context_destroy(ctx);
}

/* test_scale_bias.comp: dst = src * weights[z] * scale + bias. */
static texmem_gl_program scale_bias_program(texmem_gl_context *ctx) {
  static const char *const src[] = {"src"}, *const dst[] = {"dst"}, *const w[] = {"weights"};
  texmem_gl_program_desc d = {.name = "scale_bias",
                              .source = tg_shader_source("test_scale_bias.comp"),
                              .inputs = src, .n_inputs = 1, .outputs = dst, .n_outputs = 1,
                              .buffers = w, .n_buffers = 1};
  texmem_gl_program sb;
  TG_OK(texmem_gl_program_create(ctx, &d, &sb, &tg_err_));
  return sb;
}

Test(gl_dispatch, buffers_imported_textures_uniforms_groups) {
  texmem_gl_context *ctx = tg_context();
  texmem_gl_program sb = scale_bias_program(ctx);
  progs p = make_progs(ctx);
  const texmem_record r[] = {{0, {5, 4, 3}, 0, 0}, {1, {5, 4, 3}, 0, 1}, {2, {5, 4, 3}, 1, 2}};
  const size_t of[] = {0, 1, 0};
  texmem_plan *plan = tg_manual_plan(r, 3, 3, of, 2);
  texmem_gl_pool_desc pd = {.plan = plan, .records = r, .record_count = 3, .dims = 3,
                            .reuse_checker = true};
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &pd, &pool, &tg_err_));
  const float weights[3][4] = {{1, 2, 3, 4}, {-1, 0.5f, 2, 0}, {0.25f, 1, 1, -2}};
  texmem_gl_buffer wb;
  TG_OK(texmem_gl_buffer_create(ctx, weights, sizeof weights, &wb, &tg_err_));
  /* A constant texture imported as a tensor (read-only, always live). */
  texmem_gl_texture_desc td = {.dims = {5, 4, 3}, .format = TEXMEM_GL_RGBA16F};
  texmem_gl_texture ct;
  TG_OK(texmem_gl_texture_create(ctx, &td, &ct, &tg_err_));
  float *cdata = tg_fill(td.dims, 7);
  TG_OK(texmem_gl_texture_upload(ctx, ct, cdata, &tg_err_));
  size_t ctensor;
  TG_OK(texmem_gl_pool_import(pool, ct, td.dims, &ctensor, &tg_err_));
  cr_assert_eq(ctensor, 3);
  float *in = tg_fill(td.dims, 1);
  TG_OK(texmem_gl_tensor_upload(pool, 0, in, &tg_err_));
  const texmem_gl_uniform u[] = {{.name = "scale", .type = TEXMEM_GL_FLOAT, .f = {2.0f}},
                                 {.name = "bias", .type = TEXMEM_GL_INT, .i = {-3}},
                                 {.name = "not_in_shader", .type = TEXMEM_GL_IVEC4}};
  const size_t t0 = 0, t1 = 1, t2 = 2, ab[2] = {1, 3};
  texmem_gl_op ops[2] = {
      {.program = sb, .inputs = &t0, .n_inputs = 1, .outputs = &t1, .n_outputs = 1,
       .buffers = &wb, .n_buffers = 1, .uniforms = u, .n_uniforms = 3, .groups = {1, 1, 3},
       .task = 0},
      {.program = p.add, .inputs = ab, .n_inputs = 2, .outputs = &t2, .n_outputs = 1, .task = 1}};
  TG_OK(texmem_gl_run(pool, ops, 2, NULL, &tg_err_));
  float out[5 * 4 * 3 * 4];
  TG_OK(texmem_gl_tensor_read(pool, 2, out, &tg_err_));
  for (size_t z = 0; z < 3; z++)
    for (size_t i = 0; i < 20; i++)
      for (int c = 0; c < 4; c++) {
        size_t k = (z * 20 + i) * 4 + (size_t)c;
        float want = in[k] * weights[z][c] * 2.0f - 3.0f + cdata[k];
        cr_assert_eq(out[k], want, "texel %zu.%d: %g != %g", z * 20 + i, c, out[k], want);
      }
  /* Imported tensors cannot be written; stale buffers are detected. */
  texmem_error err = {0};
  const size_t into_const = 3;
  texmem_gl_op wr = {.program = p.add_const, .inputs = &t2, .n_inputs = 1, .outputs = &into_const,
                     .n_outputs = 1, .task = 2};
  cr_assert_eq(texmem_gl_dispatch(pool, &wr, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  texmem_gl_buffer_destroy(ctx, wb);
  cr_assert_eq(texmem_gl_dispatch(pool, &ops[0], &err), TEXMEM_STATUS_STALE_HANDLE);
  /* Work groups beyond the limit. */
  texmem_gl_op big = {.program = p.add_const, .inputs = &t2, .n_inputs = 1, .outputs = &t1,
                      .n_outputs = 1, .groups = {UINT32_MAX, 1, 1}, .task = 1};
  texmem_gl_limits l;
  texmem_gl_context_limits(ctx, &l);
  if (l.max_work_group_count[0] < (int64_t)UINT32_MAX)
    cr_assert_eq(texmem_gl_dispatch(pool, &big, &err), TEXMEM_STATUS_EXCEEDS_LIMITS);
  free(in);
  free(cdata);
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(plan);
  texmem_gl_context_destroy(ctx);
}

/* Tensors 0 and 1, 5x4x3, each in a texture of its own. */
static texmem_gl_pool *two_tensor_pool(texmem_gl_context *ctx, texmem_plan **plan) {
  const texmem_record r[] = {{0, {5, 4, 3}, 0, 0}, {1, {5, 4, 3}, 0, 0}};
  const size_t of[] = {0, 1};
  *plan = tg_manual_plan(r, 2, 3, of, 2);
  texmem_gl_pool_desc pd = {.plan = *plan, .records = r, .record_count = 2, .dims = 3};
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &pd, &pool, &tg_err_));
  return pool;
}

/* Runs scale_bias (dst = src * weights[z] * 2 - 3) with buffer w over a
 * 5x4x3 input and checks each slice against its vec4 of want. */
static void assert_scaled_by(texmem_gl_context *ctx, texmem_gl_program sb, texmem_gl_buffer w,
                             const float want[3][4], const char *what) {
  texmem_plan *plan = NULL;
  texmem_gl_pool *pool = two_tensor_pool(ctx, &plan);
  const uint64_t shape[3] = {5, 4, 3};
  float *in = tg_fill(shape, 3);
  TG_OK(texmem_gl_tensor_upload(pool, 0, in, &tg_err_));
  const texmem_gl_uniform u[] = {{.name = "scale", .type = TEXMEM_GL_FLOAT, .f = {2.0f}},
                                 {.name = "bias", .type = TEXMEM_GL_INT, .i = {-3}}};
  const size_t t0 = 0, t1 = 1;
  texmem_gl_op op = {.program = sb, .inputs = &t0, .n_inputs = 1, .outputs = &t1,
                     .n_outputs = 1, .buffers = &w, .n_buffers = 1, .uniforms = u,
                     .n_uniforms = 2, .groups = {1, 1, 3}};
  TG_OK(texmem_gl_dispatch(pool, &op, &tg_err_));
  float out[5 * 4 * 3 * 4];
  TG_OK(texmem_gl_tensor_read(pool, 1, out, &tg_err_));
  for (size_t k = 0; k < 5 * 4 * 3 * 4; k++) {
    float want_k = in[k] * want[k / 80][k % 4] * 2.0f - 3.0f;
    cr_assert_eq(out[k], want_k, "%s: value %zu: %g != %g", what, k, out[k], want_k);
  }
  free(in);
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(plan);
}

/* Views of one GL buffer bind their own bytes (glBindBufferRange), hold
 * no GL buffer, refuse what the driver would, and go stale with it. */
Test(gl_dispatch, buffer_views_bind_their_range) {
  texmem_gl_context *ctx = tg_context();
  texmem_gl_program sb = scale_bias_program(ctx);
  texmem_gl_limits l;
  texmem_gl_context_limits(ctx, &l);
  cr_assert_gt(l.ssbo_offset_alignment, 0);
  cr_assert_leq(l.ssbo_offset_alignment, 256); /* GLES 3.1's largest allowed */
  /* Two sets of three vec4s: one at 0, one at the second aligned offset
   * past 48 bytes; every other vec4 of the buffer is 1000. */
  size_t a = (size_t)l.ssbo_offset_alignment, second = (48 + a - 1) / a * a + a;
  size_t n = second / 16 + 4;
  float *data = malloc(n * 16);
  for (size_t i = 0; i < n * 4; i++) data[i] = 1000.0f;
  const float first_w[3][4] = {{1, 2, 3, 4}, {-1, 0.5f, 2, 0}, {0.25f, 1, 1, -2}};
  const float second_w[3][4] = {{3, -2, 0.5f, 1}, {2, 2, -1, 4}, {0, 1, -0.75f, 8}};
  memcpy(data, first_w, sizeof first_w);
  memcpy(data + second / 4, second_w, sizeof second_w);
  texmem_gl_counters c0 = counters_of(ctx);
  texmem_gl_buffer parent, v1, v2;
  TG_OK(texmem_gl_buffer_create(ctx, data, n * 16, &parent, &tg_err_));
  TG_OK(texmem_gl_buffer_create_view(ctx, parent, 0, 48, &v1, &tg_err_));
  TG_OK(texmem_gl_buffer_create_view(ctx, parent, second, 48, &v2, &tg_err_));
  cr_assert_eq(counters_of(ctx).buffers_live, c0.buffers_live + 1, "views hold no GL buffer");
  assert_scaled_by(ctx, sb, v2, second_w, "the second view");
  assert_scaled_by(ctx, sb, v1, first_w, "the first view");

  /* What glBindBufferRange would refuse, refused when the view is made. */
  texmem_error err = {0};
  texmem_gl_buffer v;
  cr_assert_eq(texmem_gl_buffer_create_view(ctx, parent, second, n * 16, &v, &err),
               TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "outside"), "%s", err.message);
  cr_assert_eq(v.id, 0);
  cr_assert_eq(texmem_gl_buffer_create_view(ctx, parent, 0, 20, &v, &err),
               TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_eq(texmem_gl_buffer_create_view(ctx, v1, 0, 16, &v, &err),
               TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "a view itself"), "%s", err.message);
  if (a > 8) {
    cr_assert_eq(texmem_gl_buffer_create_view(ctx, parent, 8, 16, &v, &err),
                 TEXMEM_STATUS_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "alignment"), "%s", err.message);
  }
  /* A view is a handle: destroying it leaves the buffer; destroying the
   * buffer leaves its views stale. */
  texmem_gl_buffer_destroy(ctx, v1);
  texmem_gl_buffer_destroy(ctx, v1);
  cr_assert_eq(counters_of(ctx).buffers_live, c0.buffers_live + 1);
  assert_scaled_by(ctx, sb, v2, second_w, "the second view, the first destroyed");
  texmem_gl_buffer_destroy(ctx, parent);
  cr_assert_eq(counters_of(ctx).buffers_live, c0.buffers_live);
  cr_assert_eq(texmem_gl_buffer_create_view(ctx, parent, 0, 16, &v, &err),
               TEXMEM_STATUS_STALE_HANDLE);
  texmem_plan *plan = NULL;
  texmem_gl_pool *pool = two_tensor_pool(ctx, &plan);
  const size_t t0 = 0, t1 = 1;
  texmem_gl_op op = {.program = sb, .inputs = &t0, .n_inputs = 1, .outputs = &t1,
                     .n_outputs = 1, .buffers = &v2, .n_buffers = 1, .groups = {1, 1, 3}};
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_STALE_HANDLE);
  cr_assert(strstr(err.message, "a view of a destroyed buffer"), "%s", err.message);
  texmem_gl_buffer_destroy(ctx, v2);
  free(data);
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(plan);
  texmem_gl_context_destroy(ctx);
}

/* ---- the GPU arena: tensors at base rows of shared W-wide textures ---- */

static texmem_plan *arena_plan(const graph *g, uint64_t max_rows) {
  texmem_record r[MAXT];
  records_of(g, r);
  return tt_plan(r, g->n_tensors, 3,
                 (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS, .layout = TEXMEM_LAYOUT_LINEAR,
                                    .linear_width = 16, .max_dims = {16, max_rows, 0}});
}

/* Every graph in one arena texture, both formats, reuse checker on:
 * exactly the CPU's values; the barriers follow dirty rows, so the
 * independent branches skip them although they share one texture. */
Test(gl_dispatch, arena_graphs_match_cpu_with_range_barriers) {
  texmem_gl_context *ctx = tg_context();
  progs p = make_progs(ctx);
  graph gs[3] = {chain(), diamond(), branches()};
  for (int gi = 0; gi < 3; gi++) {
    const graph *g = &gs[gi];
    texmem_plan *naive = naive_plan(g), *arena = arena_plan(g, 0);
    cr_assert_eq(texmem_plan_object_count(arena), 1);
    float **want = reference(g);
    for (int fmt = 0; fmt < 2; fmt++) {
      texmem_gl_pool_desc d = {.storage = TEXMEM_STORAGE_ARENA, .reuse_checker = true,
                               .format = fmt ? TEXMEM_GL_RGBA16F : TEXMEM_GL_RGBA32F};
      texmem_gl_counters ca, cn;
      float **a = run_graph(ctx, &p, g, arena, d, &ca);
      d.storage = TEXMEM_STORAGE_OBJECTS;
      float **b = run_graph(ctx, &p, g, naive, d, &cn);
      assert_same_outputs(g, a, want, "arena vs cpu");
      assert_same_outputs(g, b, want, "naive vs cpu");
      cr_log_info("graph %d: arena %llu barriers, naive %llu, %llu dispatches", gi,
                  (unsigned long long)ca.barriers, (unsigned long long)cn.barriers,
                  (unsigned long long)ca.dispatches);
      cr_assert_eq(ca.dispatches, cn.dispatches);
      cr_assert_geq(ca.barriers, cn.barriers);
      if (gi == 1) cr_assert_eq(ca.barriers, 2, "diamond: A and B share no rows");
      if (gi == 2) {
        /* One texture tracked as a whole would need a barrier before
         * every dispatch but the first (10); rows give what the best
         * shared-objects plan gets (7: reuse adds write-after-read). */
        cr_assert_leq(ca.barriers, 7, "branches: %llu barriers", (unsigned long long)ca.barriers);
      }
      free_vals(g, a);
      free_vals(g, b);
    }
    free_vals(g, want);
    texmem_plan_destroy(naive);
    texmem_plan_destroy(arena);
  }
  texmem_gl_context_destroy(ctx);
}

/* The buffer arena (an arena plan of width 1 in SSBOs): every graph, both
 * formats, exactly the CPU's values, barriers by dirty texel ranges as the
 * texture arena's by rows; a small forced size splits it into several
 * buffers. */
Test(gl_dispatch, buffer_arena_graphs_match_cpu_with_range_barriers) {
  texmem_gl_context *ctx = tg_context();
  progs p = make_progs(ctx);
  graph gs[3] = {chain(), diamond(), branches()};
  for (int gi = 0; gi < 3; gi++) {
    const graph *g = &gs[gi];
    texmem_record r[MAXT];
    records_of(g, r);
    for (uint64_t max_texels = 0; max_texels <= 256; max_texels += 256) {
      texmem_plan *plan =
          tt_plan(r, g->n_tensors, 3,
                  (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS, .layout = TEXMEM_LAYOUT_LINEAR,
                                     .max_dims = {1, max_texels, 0}});
      cr_assert_eq(texmem_plan_linear_width(plan), 1);
      if (max_texels) cr_assert_gt(texmem_plan_object_count(plan), 1, "graph %d", gi);
      float **want = reference(g);
      for (int fmt = 0; fmt < 2; fmt++) {
        texmem_gl_pool_desc d = {.storage = TEXMEM_STORAGE_BUFFER, .reuse_checker = true,
                                 .format = fmt ? TEXMEM_GL_RGBA16F : TEXMEM_GL_RGBA32F};
        texmem_gl_counters c;
        float **a = run_graph(ctx, &p, g, plan, d, &c);
        assert_same_outputs(g, a, want, "buffer arena vs cpu");
        if (gi == 1 && !max_texels) cr_assert_eq(c.barriers, 2, "diamond: A and B share no texels");
        if (gi == 2 && !max_texels) cr_assert_leq(c.barriers, 7, "branches: %llu barriers",
                                                  (unsigned long long)c.barriers);
        free_vals(g, a);
      }
      free_vals(g, want);
      texmem_plan_destroy(plan);
    }
  }
  /* An arena plan wider than 1 is not a buffer arena's. */
  graph g = chain();
  texmem_plan *rows = arena_plan(&g, 0);
  texmem_record r[MAXT];
  records_of(&g, r);
  texmem_gl_pool_desc d = {.plan = rows, .storage = TEXMEM_STORAGE_BUFFER, .records = r,
                           .record_count = g.n_tensors, .dims = 3};
  texmem_gl_pool *pool = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_gl_pool_create(ctx, &d, &pool, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "width 1"), "%s", err.message);
  texmem_plan_destroy(rows);
  texmem_gl_context_destroy(ctx);
}

/* A small forced height: the arena splits into several textures, no tensor
 * across two, and the values stay exact. */
Test(gl_dispatch, arena_split_under_a_small_max_height) {
  texmem_gl_context *ctx = tg_context();
  progs p = make_progs(ctx);
  graph gs[2] = {chain(), branches()};
  for (int gi = 0; gi < 2; gi++) {
    const graph *g = &gs[gi];
    texmem_plan *arena = arena_plan(g, 16);
    cr_assert_gt(texmem_plan_object_count(arena), 1);
    texmem_gl_pool_desc d = {.storage = TEXMEM_STORAGE_ARENA, .reuse_checker = true};
    texmem_gl_counters c;
    float **want = reference(g);
    float **a = run_graph(ctx, &p, g, arena, d, &c);
    assert_same_outputs(g, a, want, "split arena vs cpu");
    free_vals(g, a);
    free_vals(g, want);
    texmem_plan_destroy(arena);
  }
  texmem_gl_context_destroy(ctx);
}

Test(gl_dispatch, arena_overlapping_rows_refused) {
  texmem_gl_context *ctx = tg_context();
  progs p = make_progs(ctx);
  graph g = chain();
  texmem_record r[MAXT];
  records_of(&g, r);
  r[1].first_task = 1; /* the lie that lets tensor 1 start inside tensor 0's rows */
  const size_t obj[7] = {0, 0, 0, 0, 0, 0, 0};
  const uint64_t row[7] = {0, 10, 15, 0, 3, 17, 0};
  texmem_plan *bad = tg_manual_arena_plan(r, 7, 3, 16, obj, row, 1);
  texmem_gl_pool_desc d = {.plan = bad, .storage = TEXMEM_STORAGE_ARENA, .records = r,
                           .record_count = 7, .dims = 3, .reuse_checker = true};
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
  float *in = tg_fill(g.shape[0], 1);
  TG_OK(texmem_gl_tensor_upload(pool, 0, in, &tg_err_));
  free(in);
  texmem_gl_counters_reset(ctx);
  texmem_gl_uniform u;
  texmem_gl_op op = op_of(&p, &g.nodes[0], 0, &u);
  texmem_error err = {0};
  cr_assert_eq(texmem_gl_dispatch(pool, &op, &err), TEXMEM_STATUS_EXCLUSIVE_ACCESS, "%s",
               err.message);
  cr_assert(strstr(err.message, "input tensor 0 (rows [0, 12)) and output tensor 1 (rows [10, "
                                "15)) overlap in arena texture 0"),
            "%s", err.message);
  texmem_gl_counters c;
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.dispatches, 0);
  /* Two inputs on the same rows are fine (both read-only). */
  const size_t twice[2] = {0, 0}, out1 = 2;
  op = (texmem_gl_op){.program = p.add, .inputs = twice, .n_inputs = 2, .outputs = &out1,
                      .n_outputs = 1, .task = 0};
  d.skip_lifetime_check = true;
  texmem_gl_pool_destroy(pool);
  TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
  in = tg_fill(g.shape[0], 1);
  TG_OK(texmem_gl_tensor_upload(pool, 0, in, &tg_err_));
  free(in);
  TG_OK(texmem_gl_dispatch(pool, &op, &tg_err_));
  /* The storage must match the plan. */
  texmem_gl_pool_destroy(pool);
  d.storage = TEXMEM_STORAGE_OBJECTS;
  cr_assert_eq(texmem_gl_pool_create(ctx, &d, &pool, &err), TEXMEM_STATUS_UNSUPPORTED);
  cr_assert(strstr(err.message, "arena storage"), "%s", err.message);
  texmem_plan *naive = naive_plan(&g);
  d.plan = naive;
  d.storage = TEXMEM_STORAGE_ARENA;
  cr_assert_eq(texmem_gl_pool_create(ctx, &d, &pool, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "arena plan"), "%s", err.message);
  cr_assert_null(pool);
  texmem_plan_destroy(naive);
  texmem_plan_destroy(bad);
  texmem_gl_context_destroy(ctx);
}

/* The long branch in one arena with the lie (tensor 1 dies at task 0): C
 * writes tensor 3 over rows of tensor 1 before E reads it. */
Test(gl_dispatch, arena_reuse_checker_catches_corrupted_plan) {
  texmem_gl_context *ctx = tg_context();
  progs p = make_progs(ctx);
  graph g = long_branch();
  texmem_record r[MAXT];
  records_of(&g, r);
  r[1].last_task = 0; /* the lie */
  const size_t obj[6] = {0, 0, 0, 0, 0, 0};
  const uint64_t row[6] = {0, 8, 16, 0, 11, 19};
  texmem_plan *bad = tg_manual_arena_plan(r, 6, 3, 16, obj, row, 1);
  float **want = reference(&g);
  /* Unchecked, the plan silently gives wrong values. */
  assert_wrong_unchecked(ctx, &p, &g, bad,
                         (texmem_gl_pool_desc){.storage = TEXMEM_STORAGE_ARENA, .records = r,
                                               .skip_lifetime_check = true},
                         want, "arena plan");
  for (int mode = 0; mode < 2; mode++) {
    texmem_gl_pool_desc d = {.plan = bad, .storage = TEXMEM_STORAGE_ARENA, .records = r,
                             .record_count = 6, .dims = 3, .reuse_checker = mode == 0,
                             .skip_lifetime_check = mode == 0};
    texmem_error err = {0};
    texmem_status st;
    texmem_gl_pool *pool = dispatch_to_node4(ctx, &p, &g, &d, &st, &err);
    if (mode == 0) {
      cr_assert_eq(st, TEXMEM_STATUS_REUSE_VIOLATION, "%s", err.message);
      cr_assert(strstr(err.message, "task 4") && strstr(err.message, "reads tensor 1") &&
                    strstr(err.message, "tensor 3 wrote its rows [8, 11) of arena texture 0") &&
                    strstr(err.message, "at task 2"),
                "%s", err.message);
      float buf[7 * 9 * 2 * 4];
      cr_assert_eq(texmem_gl_tensor_read(pool, 1, buf, &err), TEXMEM_STATUS_REUSE_VIOLATION);
      cr_assert(strstr(err.message, "rows [8, 11)") && strstr(err.message, "tensor 3"), "%s",
                err.message);
    } else {
      cr_assert_eq(st, TEXMEM_STATUS_EXCLUSIVE_ACCESS, "%s", err.message);
      cr_assert(strstr(err.message, "input tensor 1") && strstr(err.message, "live tensor 4"),
                "%s", err.message);
    }
    texmem_gl_pool_destroy(pool);
  }
  /* The honest arena plan passes the reuse checker with the right values. */
  records_of(&g, r);
  texmem_plan *good = arena_plan(&g, 0);
  texmem_gl_counters c;
  float **got = run_graph(
      ctx, &p, &g, good,
      (texmem_gl_pool_desc){.storage = TEXMEM_STORAGE_ARENA, .reuse_checker = true}, &c);
  assert_same_outputs(&g, got, want, "honest arena vs cpu");
  free_vals(&g, got);
  free_vals(&g, want);
  texmem_plan_destroy(good);
  texmem_plan_destroy(bad);
  texmem_gl_context_destroy(ctx);
}

/* Random graphs against the runtime's invariants. The tests of one
 * fusion or fold each build the pattern they are about; the folds also
 * meet each other, and a branch, a second reader or a graph output in the
 * wrong place changes what may fold. Here a seeded generator chains
 * convolutions (1x1, 3x3, depthwise, strided, transposed), element-wise
 * operators with constants and with tensors, squeeze-and-excitation
 * scales, pools, global pools, PADs of channels and of the plane, channel
 * slices, concatenations, resizes, DEPTH_TO_SPACE, and as graph outputs
 * detector heads (1x1s of one map or two, reshaped into a concatenation) and classifiers
 * (FULLY_CONNECTED after a global pool), reading the newest
 * tensor most often and an older one otherwise, so that branches, second
 * readers and graph outputs land anywhere. Each graph runs in fp16 with
 * the tiled 1x1 kernels and in one other setting of precision and kernels
 * (by seed), unfused with one texture per tensor and fused with the
 * planned storage (objects, texture arena or buffer arena, by seed), and
 * must give:
 * - the same outputs bit for bit (fusion exact, plan sound);
 * - a plan the validator accepts for the runtime's records, and no reuse
 *   conflict at run time (the reuse checker);
 * - as many dispatches and planned tensors fewer as the runtime says it
 *   fused and folded;
 * - in fp32, the CPU reference's outputs within 1e-4 of each output's
 *   largest magnitude.
 * TEXMEM_RANDOM_GRAPHS=N runs N graphs (default 6, CI) from seed
 * TEXMEM_RANDOM_SEED (default 1): a long campaign is those two variables. */
#include "rt_graph.h"

typedef struct rg_tensor {
  int32_t id, b, h, w, c;
  int reads;
} rg_tensor;

typedef struct rg {
  rt_mb mb;
  uint64_t rng;
  rg_tensor t[64];
  size_t n;
  char log[1024]; /* the operators, for a failure's message */
} rg;

static uint32_t pick(rg *g, uint32_t n) { return (uint32_t)(tt_rand(&g->rng) % n); }

static void note(rg *g, const char *what) {
  size_t len = strlen(g->log);
  snprintf(g->log + len, sizeof g->log - len, " %s;", what);
}

static void add(rg *g, int32_t id) {
  const texmem_tensor *x = texmem_model_tensor(g->mb.m, (size_t)id);
  cr_assert_lt(g->n, sizeof g->t / sizeof g->t[0]);
  g->t[g->n++] = (rg_tensor){id, (int32_t)x->b, (int32_t)x->h, (int32_t)x->w, (int32_t)x->c, 0};
}

/* The operand: the newest tensor two times in three, else any. */
static rg_tensor *operand(rg *g) {
  rg_tensor *x = pick(g, 3) ? &g->t[g->n - 1] : &g->t[pick(g, (uint32_t)g->n)];
  x->reads++;
  return x;
}

/* Another tensor of x's shape (not x), or NULL. */
static rg_tensor *same_shape(rg *g, const rg_tensor *x) {
  size_t k = pick(g, (uint32_t)g->n);
  for (size_t i = 0; i < g->n; i++) {
    rg_tensor *y = &g->t[(k + i) % g->n];
    if (y != x && y->b == x->b && y->h == x->h && y->w == x->w && y->c == x->c) return y;
  }
  return NULL;
}

static texmem_activation activation(rg *g) {
  static const texmem_activation a[] = {TEXMEM_ACT_NONE, TEXMEM_ACT_NONE, TEXMEM_ACT_RELU,
                                        TEXMEM_ACT_RELU6, TEXMEM_ACT_TANH};
  return a[pick(g, 5)];
}

/* One operator (or a squeeze's few) reading existing tensors; false if
 * the drawn one does not apply to the drawn operand. */
static bool step(rg *g) {
  rg_tensor *x = operand(g);
  int32_t id = x->id, b = x->b, h = x->h, w = x->w, c = x->c, y = -1;
  char what[96];
  switch (pick(g, 17)) {
    case 0:
    case 1: { /* 1x1 convolution */
      int32_t co = 1 + (int32_t)pick(g, 40);
      y = conv(&g->mb, id, 1, 1, co, 0, activation(g));
      snprintf(what, sizeof what, "conv1x1 %d->%d", c, co);
      break;
    }
    case 2: { /* 3x3 convolution, stride 1 or 2 */
      int32_t s = 1 + (int32_t)pick(g, 2), co = 1 + (int32_t)pick(g, 24);
      if (h * w > 400) return false;
      y = conv(&g->mb, id, 3, s, co, 0, activation(g));
      snprintf(what, sizeof what, "conv3x3/%d %d->%d", s, c, co);
      break;
    }
    case 3: { /* depthwise 3x3 (multiplier 1 or 2), stride 1 or 2 */
      int32_t s = 1 + (int32_t)pick(g, 2), mult = pick(g, 4) ? 1 : 2;
      if (c * mult > 64) return false;
      y = conv(&g->mb, id, 3, s, 0, mult, activation(g));
      snprintf(what, sizeof what, "dw3x3/%d x%d", s, mult);
      break;
    }
    case 4: { /* unary */
      static const texmem_op_type u[] = {TEXMEM_OP_RELU, TEXMEM_OP_LOGISTIC, TEXMEM_OP_TANH,
                                         TEXMEM_OP_HARD_SWISH, TEXMEM_OP_RELU6};
      texmem_op_type op = u[pick(g, 5)];
      y = ew(&g->mb, op, id, UNARY, false, TEXMEM_ACT_NONE);
      snprintf(what, sizeof what, "%s", texmem_op_type_name(op));
      break;
    }
    case 5: { /* binary with a constant: per channel or scalar, either side */
      static const texmem_op_type o[] = {TEXMEM_OP_ADD, TEXMEM_OP_MUL, TEXMEM_OP_SUB,
                                         TEXMEM_OP_MAXIMUM, TEXMEM_OP_MINIMUM};
      texmem_op_type op = o[pick(g, 5)];
      int32_t n = pick(g, 2) ? c : 1, k = constant(&g->mb, 1, &n, -1.0f, 1.0f);
      bool first = pick(g, 2);
      y = ew(&g->mb, op, id, k, first, activation(g));
      snprintf(what, sizeof what, "%s const[%d]%s", texmem_op_type_name(op), n,
               first ? " first" : "");
      break;
    }
    case 6: { /* binary of two tensors of one shape */
      rg_tensor *z = same_shape(g, x);
      if (!z) return false;
      z->reads++;
      texmem_op_type op = pick(g, 3) ? TEXMEM_OP_ADD : TEXMEM_OP_MUL;
      y = ew(&g->mb, op, id, z->id, pick(g, 2), activation(g));
      snprintf(what, sizeof what, "%s of two", texmem_op_type_name(op));
      break;
    }
    case 7: { /* squeeze-and-excitation: x * logistic(1x1(act(1x1(pool(x))))) */
      int32_t p = global_pool(&g->mb, id, pick(g, 3), TEXMEM_ACT_NONE),
              mid = 1 + (int32_t)pick(g, 16);
      p = conv(&g->mb, p, 1, 1, mid, 0, TEXMEM_ACT_RELU);
      p = conv(&g->mb, p, 1, 1, c, 0, TEXMEM_ACT_NONE);
      p = ew(&g->mb, TEXMEM_OP_LOGISTIC, p, UNARY, false, TEXMEM_ACT_NONE);
      y = ew(&g->mb, TEXMEM_OP_MUL, id, p, false, TEXMEM_ACT_NONE);
      snprintf(what, sizeof what, "squeeze %d-%d-%d", c, mid, c);
      break;
    }
    case 8: { /* max pool 2x2/2 or 3x3/1 */
      bool two = pick(g, 2);
      if (two && (h < 2 || w < 2)) return false;
      y = max_pool(&g->mb, id, two ? 2 : 3, two ? 2 : 1,
                   two ? TEXMEM_PADDING_VALID : TEXMEM_PADDING_SAME, TEXMEM_ACT_NONE);
      snprintf(what, sizeof what, "maxpool %s", two ? "2/2" : "3/1");
      break;
    }
    case 9: { /* global pool (average, max, MEAN), a 1x1 convolution after it */
      int kind = (int)pick(g, 3);
      y = conv(&g->mb, global_pool(&g->mb, id, kind, TEXMEM_ACT_NONE), 1, 1,
               1 + (int32_t)pick(g, 32), 0, activation(g));
      snprintf(what, sizeof what, "global pool %d, conv1x1", kind);
      break;
    }
    case 10: { /* PAD: channels after, or rows after */
      bool spatial = pick(g, 2);
      int32_t n = 1 + (int32_t)pick(g, spatial ? 3 : 8);
      y = pad(&g->mb, id, n, spatial);
      snprintf(what, sizeof what, "pad %s +%d", spatial ? "rows" : "channels", n);
      break;
    }
    case 11: { /* STRIDED_SLICE of channels, mostly the leading ones */
      if (c < 2) return false;
      int32_t c0 = pick(g, 4) ? 0 : 1, n = 1 + (int32_t)pick(g, (uint32_t)(c - c0));
      y = slice_channels(&g->mb, id, c0, n, 0);
      snprintf(what, sizeof what, "slice channels %d+%d of %d", c0, n, c);
      break;
    }
    case 12: { /* DEPTH_TO_SPACE, block 2 */
      if (c % 4 || h * w > 100) return false;
      y = depth_to_space(&g->mb, id, 2);
      snprintf(what, sizeof what, "depth_to_space 2");
      break;
    }
    case 13: { /* PAD of rows and columns (a convolution may read through it) */
      int32_t p[4] = {(int32_t)pick(g, 3), (int32_t)pick(g, 3), (int32_t)pick(g, 3),
                      (int32_t)pick(g, 3)};
      y = pad_plane(&g->mb, id, p[0], p[1], p[2], p[3]);
      snprintf(what, sizeof what, "pad plane %d %d %d %d", p[0], p[1], p[2], p[3]);
      break;
    }
    case 14: { /* transposed convolution, stride 2: MediaPipe's or TFLite's */
      int32_t k = 2 + (int32_t)pick(g, 3), co = 1 + (int32_t)pick(g, 16);
      bool builtin = pick(g, 2);
      if (h * w > 100) return false;
      y = transpose_conv(&g->mb, id, k, co, builtin, builtin ? activation(g) : TEXMEM_ACT_NONE);
      snprintf(what, sizeof what, "transpose conv %d %d->%d%s", k, c, co,
               builtin ? " builtin" : "");
      break;
    }
    case 15: { /* detector heads: 1x1s flattened by RESHAPEs into one CONCATENATION, of
                * two maps or of one (scores and boxes: merged with the tiled kernels) */
      rg_tensor *z = pick(g, 2) ? x : &g->t[pick(g, (uint32_t)g->n)];
      if (z->b != b || g->mb.n_out > 4) return false;
      z->reads++;
      int32_t k = 1 + (int32_t)pick(g, 8), heads[2], srcs[2] = {id, z->id};
      for (int i = 0; i < 2; i++) {
        const rg_tensor *t = i ? z : x;
        int32_t rs[3] = {b, t->h * t->w * 2, k};
        heads[i] = reshape(&g->mb, conv(&g->mb, srcs[i], 1, 1, 2 * k, 0, TEXMEM_ACT_NONE), 3, rs);
      }
      rt_mb_output(&g->mb, concat(&g->mb, heads, 2, 1));
      snprintf(what, sizeof what, "heads of %d and %d channels, %d an anchor (output)", c, z->c, k);
      note(g, what);
      return true;
    }
    case 16: { /* a classifier: global pool, RESHAPE, FULLY_CONNECTED, LOGISTIC */
      if (g->mb.n_out > 4) return false;
      int32_t n = 1 + (int32_t)pick(g, 20), rs[2] = {b, c};
      int32_t f = reshape(&g->mb, global_pool(&g->mb, id, 0, TEXMEM_ACT_NONE), 2, rs);
      f = fully_connected(&g->mb, f, c, n, b);
      rt_mb_output(&g->mb, ew(&g->mb, TEXMEM_OP_LOGISTIC, f, UNARY, false, TEXMEM_ACT_NONE));
      snprintf(what, sizeof what, "classifier %d->%d (output)", c, n);
      note(g, what);
      return true;
    }
    default: { /* concatenation of channels, or a 2x resize */
      if (pick(g, 2)) {
        rg_tensor *z = NULL;
        for (size_t i = 0; i < g->n && !z; i++) {
          rg_tensor *t = &g->t[g->n - 1 - i];
          if (t != x && t->b == b && t->h == h && t->w == w && t->c + c <= 64) z = t;
        }
        if (!z) return false;
        z->reads++;
        int32_t ins[2] = {id, z->id};
        y = concat(&g->mb, ins, 2, 3);
        snprintf(what, sizeof what, "concat %d+%d", c, z->c);
      } else {
        if (h * w > 100) return false;
        bool ac = pick(g, 2), hp = !ac && pick(g, 2);
        y = resize(&g->mb, id, 2 * h, 2 * w, ac, hp);
        snprintf(what, sizeof what, "resize x2%s%s", ac ? " ac" : "", hp ? " hp" : "");
      }
    }
  }
  add(g, y);
  note(g, what);
  return true;
}

/* Graph number `seed`: one or two inputs, 4-13 steps, the last tensor and
 * up to 6 unread ones (or, one in four, any) as graph outputs. */
static texmem_model *graph(uint64_t seed, char *log, size_t log_size) {
  rg *g = calloc(1, sizeof *g);
  cr_assert_not_null(g);
  g->mb = rt_mb_new();
  /* splitmix64 steps its state by a constant: seeds k and k + 1 times
   * that constant would draw one sequence one step apart. */
  uint64_t s0 = seed ^ 0xD1B54A32D192ED03ull;
  g->rng = tt_rand(&s0);
  g_seed = seed + 11;
  int32_t b = pick(g, 4) ? 1 : 2, h = 2 + (int32_t)pick(g, 18), w = 2 + (int32_t)pick(g, 18);
  add(g, input(&g->mb, b, h, w, 1 + (int32_t)pick(g, 32)));
  if (pick(g, 2)) add(g, input(&g->mb, b, h, w, pick(g, 2) ? g->t[0].c : 1 + (int32_t)pick(g, 32)));
  snprintf(g->log, sizeof g->log, "seed %llu: %zu input(s) %dx%dx%dx%d:", (unsigned long long)seed,
           g->n, b, h, w, g->t[0].c);
  for (uint32_t steps = 4 + pick(g, 10), tries = 0; steps && tries < 100; tries++)
    if (step(g)) steps--;
  g->t[g->n - 1].reads = 0;
  for (size_t i = g->n; i-- > 0 && g->mb.n_out < 7;)
    if (!g->t[i].reads || !pick(g, 4)) rt_mb_output(&g->mb, g->t[i].id);
  TG_OK(texmem_model_set_io(g->mb.m, g->mb.in, g->mb.n_in, g->mb.out, g->mb.n_out, &tg_err_));
  snprintf(log, log_size, "%s", g->log);
  texmem_model *m = g->mb.m;
  free(g);
  return m;
}

typedef struct rg_run {
  rt_outputs out;
  texmem_runtime_stats stats;
  uint64_t dispatches;
} rg_run;

static rg_run g_run;
static texmem_gl_context *g_ctx;

/* The plan holds for the runtime's records; keeps stats and dispatches. */
static void inspect(const texmem_model *m, const texmem_runtime_desc *d, const texmem_runtime *rt) {
  (void)m;
  (void)d;
  texmem_runtime_get_stats(rt, &g_run.stats);
  size_t n = 0;
  const texmem_record *rec = texmem_runtime_records(rt, &n);
  cr_assert_eq(n, g_run.stats.tensors);
  TG_OK(texmem_plan_validate(rec, n, 3, texmem_runtime_plan(rt), &tg_err_));
  texmem_gl_counters c;
  texmem_gl_counters_get(g_ctx, &c);
  g_run.dispatches = c.dispatches - g_run.dispatches;
}

static rg_run run(const texmem_model *m, const texmem_runtime_desc *d, float **in) {
  texmem_gl_counters c;
  texmem_gl_counters_get(g_ctx, &c);
  g_run = (rg_run){.dispatches = c.dispatches};
  g_run.out = rt_run_inspect(g_ctx, m, d, in, inspect);
  return g_run;
}

static void check(const texmem_model *m, uint64_t seed, const char *log) {
  size_t n_in;
  float **in = rt_inputs(m, seed, &n_in);
  texmem_ref_result *ref = rt_reference(m, in);
  static const texmem_storage storages[] = {TEXMEM_STORAGE_OBJECTS, TEXMEM_STORAGE_ARENA,
                                            TEXMEM_STORAGE_BUFFER};
  /* fp16 with the tiled kernels (the default run) every graph; one of the
   * other three settings by seed, so three graphs in a row cover all four
   * at half the shader compiles of all four a graph. */
  const int cfgs[2] = {3, (int)(seed % 3)};
  for (int k = 0; k < 2; k++) {
    int cfg = cfgs[k];
    texmem_runtime_desc u = {.strategy = TEXMEM_STRATEGY_NAIVE,
                             .precision = cfg & 1 ? TEXMEM_PRECISION_FP16 : TEXMEM_PRECISION_FP32,
                             .kernels = cfg & 2 ? TEXMEM_KERNELS_TILED : TEXMEM_KERNELS_PORTABLE,
                             .reuse_checker = true,
                             .unfused = true};
    texmem_runtime_desc f = u;
    f.strategy = TEXMEM_STRATEGY_BEST;
    f.unfused = false;
    f.storage = storages[(seed + (uint64_t)cfg) % 3];
    char label[1200];
    snprintf(label, sizeof label, "%s (%s, %s, storage %d)", log, cfg & 1 ? "fp16" : "fp32",
             cfg & 2 ? "tiled" : "portable", (int)f.storage);
    rg_run a = run(m, &u, in), b = run(m, &f, in);
    rt_assert_identical(&a.out, &b.out, label);
    const texmem_runtime_stats *s = &b.stats;
    size_t folded =
        s->fused + s->depthwise_folded + s->reshapes_folded + s->scales_folded + s->resizes_folded;
    cr_assert_eq(b.dispatches + folded + s->heads_merged, a.dispatches,
                 "%s: %llu dispatches, %llu unfused, %zu fused or folded", label,
                 (unsigned long long)b.dispatches, (unsigned long long)a.dispatches, folded);
    cr_assert_eq(s->tensors + folded - s->fused_kept, a.stats.tensors, "%s: tensors", label);
    if (!(cfg & 1)) rt_compare_scaled(m, &b.out, ref, 1e-4, label);
    if (cfg == 3)
      cr_log_info(
          "  fp16 tiled: %llu dispatches, %llu unfused; fused %zu (late %zu, kept %zu), "
          "folded: depthwise %zu, scales %zu, reshapes %zu, resizes %zu; heads merged %zu",
          (unsigned long long)b.dispatches, (unsigned long long)a.dispatches, s->fused,
          s->late_fused, s->fused_kept, s->depthwise_folded, s->scales_folded, s->reshapes_folded,
          s->resizes_folded, s->heads_merged);
    rt_outputs_free(&a.out);
    rt_outputs_free(&b.out);
  }
  texmem_ref_result_destroy(ref);
  rt_free_arrays(in, n_in);
}

static uint64_t env_u64(const char *name, uint64_t fallback) {
  const char *v = getenv(name);
  return v && *v ? strtoull(v, NULL, 10) : fallback;
}

TestSuite(rt_random, .timeout = 900);

Test(rt_random, graphs_keep_the_invariants) {
  uint64_t n = env_u64("TEXMEM_RANDOM_GRAPHS", 6), first = env_u64("TEXMEM_RANDOM_SEED", 1);
  g_ctx = tg_context();
  for (uint64_t seed = first; seed < first + n; seed++) {
    char log[1024];
    texmem_model *m = graph(seed, log, sizeof log);
    cr_log_info("%s", log);
    check(m, seed, log);
    texmem_model_destroy(m);
  }
  texmem_gl_context_destroy(g_ctx);
}

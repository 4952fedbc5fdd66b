/* Fusion of one or two element-wise operators into the convolution
 * before them (runtime/kernels_fusion.h): the fused runtime gives bit
 * for bit the outputs of the unfused one (texmem_runtime_desc.unfused), in
 * fp32 and fp16 (where the fused kernel must round each intermediate
 * result to binary16 as the stores between the dispatches did), with the
 * portable and the tiled 1x1 kernels; it makes one dispatch fewer (GL
 * counters) and plans one tensor fewer per fused operator, its plan valid
 * for its records; fp32 outputs are close to the CPU reference. Operators
 * that must not fuse (the convolution's output read twice or a graph
 * output, a broadcast tensor operand; for a second operator a tensor
 * operand when the first reads one) stay apart; the convolution's own
 * input as operand is read through its binding. An operand
 * computed after the convolution moves the dispatch to the operator's
 * task; a channel PAD or a MAX_POOL_2D making the operand is folded into
 * the read, a PAD of rows and columns into the convolution's own read.
 * With the tiled kernels a depthwise convolution folds into the 1x1 one
 * reading it (computed while staging), bit for bit too, one dispatch and
 * one planned tensor fewer each. */
#include "rt_graph.h"
#include "texmem/mobilenet.h"


typedef struct run_result {
  rt_outputs out;
  texmem_runtime_stats stats;
  uint64_t dispatches; /* counted by the GL context: one run and the reads */
} run_result;

static texmem_gl_context *g_ctx;
static run_result g_last; /* filled by inspect */
/* Depthwise convolutions the tiled runs fold into 1x1 ones (-1: not
 * asserted; the dispatch and tensor counts still add them up). */
static long g_dw = -1;
/* Reshapes read through by a concatenation or stored into (-1: not
 * asserted). */
static long g_rs = -1;
/* Per-channel MULs the tiled runs fold into 1x1 convolutions (-1: not
 * asserted). */
static long g_sc = -1;
/* Fused operators whose output is stored all the same (-1: not asserted). */
static long g_kept = -1;
/* Resizes read through, with the portable and the tiled kernels (-1: not
 * asserted). */
static long g_rsz[2] = {-1, -1};
/* FULLY_CONNECTED layers run in another's dispatch (-1: not asserted). */
static long g_heads = -1;
/* 1x1 convolutions run in another's dispatch with the tiled kernels, none
 * with the portable ones (-1: not asserted). */
static long g_conv_heads = -1;
/* Only the configurations with the tiled kernels (where depthwise
 * convolutions fold). */
static bool g_tiled_only = false;
/* texmem_runtime_desc.conv1x1_split of the runs (0: per layer). */
static uint32_t g_split = 0;
/* texmem_runtime_desc.storage of the runs (shared objects by default). */
static texmem_storage g_storage = TEXMEM_STORAGE_OBJECTS;

/* The plan is valid for the runtime's records, one a planned tensor, in
 * order of first task; keeps the stats and the dispatch count. */
static void inspect(const texmem_model *m, const texmem_runtime_desc *d, const texmem_runtime *rt) {
  (void)m;
  (void)d;
  texmem_runtime_get_stats(rt, &g_last.stats);
  size_t n_rec = 0;
  const texmem_record *rec = texmem_runtime_records(rt, &n_rec);
  cr_assert_eq(n_rec, g_last.stats.tensors);
  TG_OK(texmem_plan_validate(rec, n_rec, 3, texmem_runtime_plan(rt), &tg_err_));
  for (size_t i = 1; i < n_rec; i++) cr_assert_leq(rec[i - 1].first_task, rec[i].first_task);
  texmem_gl_counters c;
  texmem_gl_counters_get(g_ctx, &c);
  g_last.dispatches = c.dispatches - g_last.dispatches;
}

static run_result run(texmem_gl_context *ctx, const texmem_model *m, const texmem_runtime_desc *d,
                      float **in) {
  texmem_gl_counters c;
  texmem_gl_counters_get(ctx, &c);
  g_ctx = ctx;
  g_last = (run_result){.dispatches = c.dispatches};
  g_last.out = rt_run_inspect(ctx, m, d, in, inspect);
  return g_last;
}

/* Fused against unfused in fp32 and fp16 (naive, or greedy_in_order in
 * an arena, and BEST plans, portable and tiled 1x1 kernels): identical
 * outputs, `fused` operators (`late` of the dispatches run late), that
 * many dispatches and planned tensors fewer. */
static void check_fused_late(const texmem_model *m, size_t fused, size_t late, const char *what) {
  texmem_gl_context *ctx = tg_context();
  size_t n_in;
  float **in = rt_inputs(m, 5, &n_in);
  texmem_ref_result *ref = rt_reference(m, in);
  for (int cfg = 0; cfg < 4; cfg++) {
    texmem_runtime_desc d = {
        .strategy = !(cfg & 1)                            ? TEXMEM_STRATEGY_BEST
                    : g_storage == TEXMEM_STORAGE_OBJECTS ? TEXMEM_STRATEGY_NAIVE
                                                          : TEXMEM_STRATEGY_GREEDY_IN_ORDER,
        .precision = cfg < 2 ? TEXMEM_PRECISION_FP32 : TEXMEM_PRECISION_FP16,
        .kernels = cfg == 1 || cfg == 2 ? TEXMEM_KERNELS_TILED : TEXMEM_KERNELS_PORTABLE,
        .reuse_checker = true,
        .conv1x1_split = g_split,
        .storage = g_storage};
    if (g_tiled_only && d.kernels != TEXMEM_KERNELS_TILED) continue;
    texmem_runtime_desc du = d;
    du.unfused = true;
    char label[200];
    snprintf(label, sizeof label, "%s (%s %s %s)", what, cfg < 2 ? "fp32" : "fp16",
             texmem_strategy_name(d.strategy),
             d.kernels == TEXMEM_KERNELS_TILED ? "tiled" : "portable");
    run_result a = run(ctx, m, &d, in), u = run(ctx, m, &du, in);
    rt_assert_identical(&u.out, &a.out, label);
    cr_assert_eq(a.stats.fused, fused, "%s: %zu fused, expected %zu", label, a.stats.fused, fused);
    cr_assert_eq(a.stats.late_fused, late, "%s: %zu dispatches late, expected %zu", label,
                 a.stats.late_fused, late);
    cr_assert_eq(u.stats.fused, 0);
    cr_assert_eq(u.stats.late_fused, 0);
    cr_assert_eq(u.stats.depthwise_folded, 0);
    cr_assert_eq(u.stats.reshapes_folded, 0);
    cr_assert_eq(u.stats.scales_folded, 0);
    cr_assert_eq(u.stats.resizes_folded, 0);
    size_t dw = a.stats.depthwise_folded, rs = a.stats.reshapes_folded, sc = a.stats.scales_folded;
    size_t rsz = a.stats.resizes_folded;
    long want_rsz = g_rsz[d.kernels == TEXMEM_KERNELS_TILED];
    if (want_rsz >= 0)
      cr_assert_eq(rsz, (size_t)want_rsz, "%s: %zu resizes folded, expected %ld", label, rsz,
                   want_rsz);
    if (d.kernels != TEXMEM_KERNELS_TILED) cr_assert_eq(dw + sc, 0, "%s", label);
    else if (g_dw >= 0)
      cr_assert_eq(dw, (size_t)g_dw, "%s: %zu depthwise folded, expected %ld", label, dw, g_dw);
    if (d.kernels == TEXMEM_KERNELS_TILED && g_sc >= 0)
      cr_assert_eq(sc, (size_t)g_sc, "%s: %zu MULs folded, expected %ld", label, sc, g_sc);
    if (g_rs >= 0)
      cr_assert_eq(rs, (size_t)g_rs, "%s: %zu reshapes folded, expected %ld", label, rs, g_rs);
    dw += rs + sc + rsz; /* each one dispatch and one planned tensor, as a fused operator */
    size_t heads = a.stats.heads_merged; /* one dispatch each, no tensor */
    cr_assert_eq(u.stats.heads_merged, 0);
    long want_heads = g_heads;
    if (g_conv_heads >= 0) want_heads = d.kernels == TEXMEM_KERNELS_TILED ? g_conv_heads : 0;
    if (want_heads >= 0)
      cr_assert_eq(heads, (size_t)want_heads, "%s: %zu heads merged, expected %ld", label, heads,
                   want_heads);
    cr_assert_eq(a.dispatches + fused + dw + heads, u.dispatches,
                 "%s: %llu dispatches fused, %llu unfused, %zu depthwise and reshapes folded",
                 label, (unsigned long long)a.dispatches, (unsigned long long)u.dispatches, dw);
    cr_assert_eq(a.stats.dispatches + fused + dw + heads, u.stats.dispatches);
    cr_assert_eq(a.stats.tensors + fused - a.stats.fused_kept + dw, u.stats.tensors);
    cr_assert_eq(u.stats.fused_kept, 0);
    if (g_kept >= 0)
      cr_assert_eq(a.stats.fused_kept, (size_t)g_kept, "%s: %zu kept", label, a.stats.fused_kept);
    cr_assert_eq(a.stats.tiled, d.kernels == TEXMEM_KERNELS_TILED);
    if (d.precision == TEXMEM_PRECISION_FP32) rt_compare(m, &a.out, ref, 1e-4, 1e-5, label);
    rt_outputs_free(&a.out);
    rt_outputs_free(&u.out);
  }
  texmem_ref_result_destroy(ref);
  rt_free_arrays(in, n_in);
  texmem_gl_context_destroy(ctx);
}

static void check_fused(const texmem_model *m, size_t fused, const char *what) {
  check_fused_late(m, fused, 0, what);
}


/* rt_mb_output copies y to the graph output with an ADD of zero: after a
 * fused pair ending in y, that copy joins the pair as a second operator. */
#define COPY 1

static void finish_late(rt_mb *b, int32_t y, size_t fused, size_t late, const char *what) {
  rt_mb_output(b, y);
  TG_OK(texmem_model_set_io(b->m, b->in, b->n_in, b->out, b->n_out, &tg_err_));
  check_fused_late(b->m, fused, late, what);
  texmem_model_destroy(b->m);
}

static void finish(rt_mb *b, int32_t y, size_t fused, const char *what) {
  finish_late(b, y, fused, 0, what);
}

/* As finish, with y itself the graph output (no copy after it). */
static void finish_as_output(rt_mb *b, int32_t y, size_t fused, const char *what) {
  b->out[b->n_out++] = y;
  TG_OK(texmem_model_set_io(b->m, b->in, b->n_in, b->out, b->n_out, &tg_err_));
  check_fused(b->m, fused, what);
  texmem_model_destroy(b->m);
}

TestSuite(rt_fusion, .timeout = 600);

/* MobileNet's residual: a 1x1 projection plus the block input. */
Test(rt_fusion, conv_1x1_add_residual) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, 1, 6, 7, 8), r = input(&b, 1, 6, 7, 12);
  int32_t t = conv(&b, x, 1, 1, 12, 0, TEXMEM_ACT_NONE);
  finish(&b, ew(&b, TEXMEM_OP_ADD, t, r, false, TEXMEM_ACT_NONE), 1 + COPY, "1x1 + residual");
}

/* The convolution's output second, both activations, odd channels. */
Test(rt_fusion, conv_add_swapped_with_activations) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, 1, 5, 9, 6), r = input(&b, 1, 5, 9, 7);
  int32_t t = conv(&b, x, 1, 1, 7, 0, TEXMEM_ACT_RELU);
  finish(&b, ew(&b, TEXMEM_OP_ADD, t, r, true, TEXMEM_ACT_RELU6), 1 + COPY,
         "r + relu(1x1), relu6");
}

Test(rt_fusion, conv_3x3_mul_per_channel_constant) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, 1, 7, 5, 5);
  int32_t t = conv(&b, x, 3, 1, 7, 0, TEXMEM_ACT_NONE);
  int32_t cs = 7, c = constant(&b, 1, &cs, -2.0f, 2.0f);
  finish(&b, ew(&b, TEXMEM_OP_MUL, t, c, false, TEXMEM_ACT_NONE), 1 + COPY, "3x3 * c[7]");
}

/* Constant first (swapped back in the shader), a scalar. */
Test(rt_fusion, constant_minus_conv) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, 1, 6, 6, 4);
  int32_t t = conv(&b, x, 1, 1, 10, 0, TEXMEM_ACT_RELU6);
  int32_t one = 1, c = constant(&b, 1, &one, 0.5f, 0.5f);
  finish(&b, ew(&b, TEXMEM_OP_SUB, t, c, true, TEXMEM_ACT_NONE), 1 + COPY, "0.5 - relu6(1x1)");
}

/* A constant spread over the channels (its c is 1) and over the batch. */
Test(rt_fusion, minimum_with_spatial_constant_batch_2) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, 2, 5, 6, 6);
  int32_t t = conv(&b, x, 3, 2, 9, 0, TEXMEM_ACT_NONE);
  int32_t cs[4] = {1, 3, 3, 1}, c = constant(&b, 4, cs, -0.5f, 0.5f);
  finish(&b, ew(&b, TEXMEM_OP_MINIMUM, t, c, false, TEXMEM_ACT_NONE), 1 + COPY,
         "min(3x3 s2, c[1,3,3,1])");
}

Test(rt_fusion, prelu_after_1x1) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, 1, 4, 9, 12);
  int32_t t = conv(&b, x, 1, 1, 6, 0, TEXMEM_ACT_NONE);
  int32_t as[3] = {1, 1, 6}, alpha = constant(&b, 3, as, 0.0f, 0.5f);
  finish(&b, ew(&b, TEXMEM_OP_PRELU, t, alpha, false, TEXMEM_ACT_NONE), 1 + COPY, "prelu(1x1)");
}

/* Unary operators after each depthwise kernel; LOGISTIC of the padding
 * lanes (5 channels) would be 0.5, the fused kernel writes them 0. */
Test(rt_fusion, unary_after_depthwise) {
  static const texmem_op_type ops[] = {TEXMEM_OP_HARD_SWISH, TEXMEM_OP_LOGISTIC,
                                       TEXMEM_OP_LEAKY_RELU, TEXMEM_OP_TANH};
  static const int32_t k[] = {3, 5, 3, 3}, s[] = {1, 2, 1, 2}, mult[] = {1, 1, 2, 1};
  for (int i = 0; i < 4; i++) {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, 1, 9, 7, 5);
    int32_t t = conv(&b, x, k[i], s[i], 0, mult[i], TEXMEM_ACT_NONE);
    char what[80];
    snprintf(what, sizeof what, "%s(depthwise %dx%d s%d x%d)", texmem_op_type_name(ops[i]), k[i],
             k[i], s[i], mult[i]);
    finish(&b, ew(&b, ops[i], t, UNARY, false, TEXMEM_ACT_NONE), 1 + COPY, what);
  }
}

/* Two pairs in a chain, and a relu6 after a 3x3 conv. */
Test(rt_fusion, chains_and_relu6) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, 1, 8, 8, 3);
  int32_t t = conv(&b, x, 3, 2, 16, 0, TEXMEM_ACT_NONE);
  int32_t a = ew(&b, TEXMEM_OP_RELU6, t, UNARY, false, TEXMEM_ACT_NONE);
  int32_t d = conv(&b, a, 3, 1, 0, 1, TEXMEM_ACT_RELU6);
  int32_t p = conv(&b, d, 1, 1, 16, 0, TEXMEM_ACT_NONE);
  finish(&b, ew(&b, TEXMEM_OP_ADD, p, a, false, TEXMEM_ACT_NONE), 2 + COPY, "chain");
}

/* Second operators: a residual ADD then PRELU (BlazeFace's and BlazePalm's
 * blocks) or RELU, run as one dispatch with the convolution. */
Test(rt_fusion, add_then_prelu_or_relu) {
  {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, 1, 6, 7, 8), r = input(&b, 1, 6, 7, 12);
    int32_t t = conv(&b, x, 1, 1, 12, 0, TEXMEM_ACT_NONE);
    int32_t a = ew(&b, TEXMEM_OP_ADD, t, r, false, TEXMEM_ACT_NONE);
    int32_t as[3] = {1, 1, 12}, alpha = constant(&b, 3, as, 0.0f, 0.5f);
    finish(&b, ew(&b, TEXMEM_OP_PRELU, a, alpha, false, TEXMEM_ACT_NONE), 2, "prelu(1x1 + r)");
  }
  {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, 1, 9, 7, 5), r = input(&b, 1, 9, 7, 5);
    int32_t t = conv(&b, x, 3, 1, 0, 1, TEXMEM_ACT_NONE);
    int32_t a = ew(&b, TEXMEM_OP_ADD, r, t, false, TEXMEM_ACT_NONE);
    finish(&b, ew(&b, TEXMEM_OP_RELU, a, UNARY, false, TEXMEM_ACT_NONE), 2, "relu(r + dw)");
  }
}

/* Second operators after a constant or a unary first one: both constants
 * bound (f and g), a constant first with a tanh activation, a LOGISTIC
 * whose padding lanes (5 channels) must stay 0. */
Test(rt_fusion, second_operator_kinds) {
  {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, 2, 5, 6, 6);
    int32_t t = conv(&b, x, 3, 2, 9, 0, TEXMEM_ACT_RELU);
    int32_t cs = 9, c = constant(&b, 1, &cs, -2.0f, 2.0f);
    int32_t m = ew(&b, TEXMEM_OP_MUL, t, c, false, TEXMEM_ACT_NONE);
    int32_t ds[4] = {1, 3, 3, 1}, d = constant(&b, 4, ds, -0.5f, 0.5f);
    finish(&b, ew(&b, TEXMEM_OP_ADD, m, d, false, TEXMEM_ACT_RELU6), 2, "relu6(relu(3x3) * c + d)");
  }
  {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, 1, 6, 6, 4);
    int32_t t = conv(&b, x, 1, 1, 10, 0, TEXMEM_ACT_NONE);
    int32_t h = ew(&b, TEXMEM_OP_HARD_SWISH, t, UNARY, false, TEXMEM_ACT_NONE);
    int32_t one = 1, c = constant(&b, 1, &one, 0.5f, 0.5f);
    finish(&b, ew(&b, TEXMEM_OP_SUB, h, c, true, TEXMEM_ACT_TANH), 2, "tanh(0.5 - hswish(1x1))");
  }
  {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, 1, 9, 7, 5);
    int32_t t = conv(&b, x, 5, 2, 0, 1, TEXMEM_ACT_NONE);
    int32_t cs = 5, c = constant(&b, 1, &cs, -3.0f, 3.0f);
    int32_t m = ew(&b, TEXMEM_OP_MUL, t, c, false, TEXMEM_ACT_NONE);
    finish(&b, ew(&b, TEXMEM_OP_LOGISTIC, m, UNARY, false, TEXMEM_ACT_NONE), 2,
           "logistic(dw 5x5 * c)");
  }
}

/* Where the second operator must not join: the first one's output read
 * twice or a graph output, a tensor operand. The first still fuses. */
Test(rt_fusion, second_operator_not_fused) {
  {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, 1, 4, 4, 4), r = input(&b, 1, 4, 4, 4);
    int32_t t = conv(&b, x, 1, 1, 4, 0, TEXMEM_ACT_NONE);
    int32_t a = ew(&b, TEXMEM_OP_ADD, t, r, false, TEXMEM_ACT_NONE);
    finish(&b, ew(&b, TEXMEM_OP_MUL, a, a, false, TEXMEM_ACT_NONE), 1, "a * a");
  }
  {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, 1, 4, 4, 4), r = input(&b, 1, 4, 4, 4);
    int32_t t = conv(&b, x, 1, 1, 4, 0, TEXMEM_ACT_NONE);
    int32_t a = ew(&b, TEXMEM_OP_ADD, t, r, false, TEXMEM_ACT_NONE);
    finish(&b, ew(&b, TEXMEM_OP_MAXIMUM, a, r, false, TEXMEM_ACT_NONE), 1, "max(a, r)");
  }
  {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, 1, 4, 4, 4);
    int32_t t = conv(&b, x, 1, 1, 4, 0, TEXMEM_ACT_NONE);
    int32_t a = ew(&b, TEXMEM_OP_RELU, t, UNARY, false, TEXMEM_ACT_NONE);
    b.out[b.n_out++] = a;
    finish(&b, ew(&b, TEXMEM_OP_TANH, a, UNARY, false, TEXMEM_ACT_NONE), 1, "output relu");
  }
}

/* An operand computed after the convolution: the dispatch runs at the
 * ADD's task (the convolution's input lives until then), its second
 * operator with it. */
Test(rt_fusion, late_operand) {
  {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, 1, 4, 4, 4);
    int32_t t = conv(&b, x, 1, 1, 4, 0, TEXMEM_ACT_NONE);
    int32_t r = input(&b, 1, 4, 4, 4);
    finish_late(&b, ew(&b, TEXMEM_OP_ADD, t, r, false, TEXMEM_ACT_NONE), 1 + COPY, 1,
                "t + later");
  }
  {
    rt_mb b = rt_mb_new(); /* a max pool with an activation is not folded */
    int32_t x = input(&b, 1, 8, 6, 8);
    int32_t d = conv(&b, x, 3, 2, 0, 1, TEXMEM_ACT_NONE);
    int32_t t = conv(&b, d, 1, 1, 8, 0, TEXMEM_ACT_NONE);
    int32_t mp = max_pool(&b, x, 2, 2, TEXMEM_PADDING_VALID, TEXMEM_ACT_RELU6);
    int32_t a = ew(&b, TEXMEM_OP_ADD, mp, t, false, TEXMEM_ACT_NONE);
    finish_late(&b, ew(&b, TEXMEM_OP_RELU, a, UNARY, false, TEXMEM_ACT_NONE), 2, 1,
                "relu(relu6(maxpool) + 1x1(dw s2))");
  }
  {
    rt_mb b = rt_mb_new(); /* an ADD of two convolutions goes to the later one */
    int32_t x = input(&b, 1, 4, 5, 4), y = input(&b, 1, 4, 5, 4);
    int32_t t1 = conv(&b, x, 1, 1, 8, 0, TEXMEM_ACT_NONE);
    int32_t t2 = conv(&b, y, 3, 1, 8, 0, TEXMEM_ACT_NONE);
    finish(&b, ew(&b, TEXMEM_OP_ADD, t1, t2, false, TEXMEM_ACT_NONE), 1 + COPY, "1x1 + 3x3");
  }
}

/* A shortcut zero-padded to more channels (BlazeFace's blocks) is read
 * from the PAD's input, the PAD never run: channels multiple of 4 or not,
 * batch 2, the PAD before the convolution or after it (late). */
Test(rt_fusion, channel_pad_folded) {
  static const int32_t cin[] = {8, 6, 5}, extra[] = {8, 6, 3}, batch[] = {1, 2, 1};
  for (int i = 0; i < 3; i++) {
    for (int late = 0; late < 2; late++) {
      rt_mb b = rt_mb_new();
      int32_t x = input(&b, batch[i], 5, 6, 4), s = -1, p = -1;
      if (!late) s = input(&b, batch[i], 5, 6, cin[i]), p = pad(&b, s, extra[i], false);
      int32_t d = conv(&b, x, 3, 1, 0, 1, TEXMEM_ACT_NONE);
      int32_t t = conv(&b, d, 1, 1, cin[i] + extra[i], 0, TEXMEM_ACT_NONE);
      if (late) s = input(&b, batch[i], 5, 6, cin[i]), p = pad(&b, s, extra[i], false);
      int32_t a = ew(&b, TEXMEM_OP_ADD, p, t, false, TEXMEM_ACT_NONE);
      char what[80];
      snprintf(what, sizeof what, "relu(pad(%d + %d ch, batch %d) + 1x1)%s", cin[i], extra[i],
               batch[i], late ? " late" : "");
      finish_late(&b, ew(&b, TEXMEM_OP_RELU, a, UNARY, false, TEXMEM_ACT_NONE), 3, (size_t)late,
                  what);
    }
  }
}

/* A max-pooled shortcut (BlazePalm's, and BlazeFace's with its channel
 * PAD after the pool) is read from the pool's input, each window's maximum,
 * the pool never run: 2x2 VALID and 3x3 SAME windows over odd sizes,
 * batch 2, with and without the PAD; a 5x5 window (over 16 texels) runs
 * as it is. */
Test(rt_fusion, max_pool_folded) {
  static const struct {
    int32_t batch, h, w, k, extra;
    texmem_padding padding;
  } cases[] = {{1, 8, 6, 2, 0, TEXMEM_PADDING_VALID}, {1, 8, 6, 2, 4, TEXMEM_PADDING_VALID},
               {2, 7, 5, 3, 6, TEXMEM_PADDING_SAME}, {1, 9, 7, 3, 0, TEXMEM_PADDING_SAME}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, cases[i].batch, cases[i].h, cases[i].w, 6);
    int32_t d = conv(&b, x, 3, 2, 0, 1, TEXMEM_ACT_NONE);
    int32_t t = conv(&b, d, 1, 1, 6 + cases[i].extra, 0, TEXMEM_ACT_NONE);
    int32_t mp = max_pool(&b, x, cases[i].k, 2, cases[i].padding, TEXMEM_ACT_NONE);
    if (cases[i].extra) mp = pad(&b, mp, cases[i].extra, false);
    int32_t a = ew(&b, TEXMEM_OP_ADD, mp, t, false, TEXMEM_ACT_NONE);
    char what[96];
    snprintf(what, sizeof what, "relu(pad(maxpool %dx%d %s) + 1x1(dw s2)), batch %d, +%d ch",
             cases[i].k, cases[i].k, cases[i].padding == TEXMEM_PADDING_SAME ? "same" : "valid",
             cases[i].batch, cases[i].extra);
    finish(&b, ew(&b, TEXMEM_OP_RELU, a, UNARY, false, TEXMEM_ACT_NONE),
           3 + (cases[i].extra != 0), what);
  }
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, 1, 10, 10, 4);
  int32_t d = conv(&b, x, 3, 2, 0, 1, TEXMEM_ACT_NONE);
  int32_t t = conv(&b, d, 1, 1, 4, 0, TEXMEM_ACT_NONE);
  int32_t mp = max_pool(&b, x, 5, 2, TEXMEM_PADDING_SAME, TEXMEM_ACT_NONE);
  int32_t a = ew(&b, TEXMEM_OP_ADD, mp, t, false, TEXMEM_ACT_NONE);
  finish_late(&b, ew(&b, TEXMEM_OP_RELU, a, UNARY, false, TEXMEM_ACT_NONE), 2, 1, "5x5 pool");
}


/* A PAD of rows and columns before a depthwise (3x3 and 5x5, multiplier 1
 * and 2) or a 3x3 convolution is read by the convolution, its padding
 * added to the window's, the PAD never run: symmetric and TFLite's
 * after-only padding, odd sizes, batch 2, with and without an element-wise
 * operator fused after. */
Test(rt_fusion, input_pad_folded) {
  static const struct {
    int32_t batch, h, w, top, bottom, left, right, k, s, cout, mult;
  } cases[] = {{1, 7, 6, 1, 1, 1, 1, 3, 2, 0, 1}, {2, 8, 8, 0, 1, 0, 1, 3, 2, 0, 1},
               {1, 9, 7, 2, 2, 2, 2, 5, 2, 0, 1}, {1, 6, 5, 1, 1, 1, 1, 3, 1, 0, 2},
               {1, 7, 7, 0, 1, 0, 1, 3, 2, 12, 0}, {2, 5, 6, 1, 2, 2, 1, 3, 1, 6, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    for (int relu = 0; relu < 2; relu++) {
      rt_mb b = rt_mb_new();
      int32_t x = input(&b, cases[i].batch, cases[i].h, cases[i].w, 5);
      int32_t p = pad_plane(&b, x, cases[i].top, cases[i].bottom, cases[i].left, cases[i].right);
      int32_t y = conv_padded(&b, p, cases[i].k, cases[i].s, cases[i].cout, cases[i].mult,
                              TEXMEM_ACT_RELU6, TEXMEM_PADDING_VALID);
      if (relu) y = ew(&b, TEXMEM_OP_RELU, y, UNARY, false, TEXMEM_ACT_NONE);
      char what[96];
      snprintf(what, sizeof what, "%s %dx%d s%d after pad %d,%d,%d,%d, batch %d%s",
               cases[i].cout ? "conv" : "depthwise", cases[i].k, cases[i].k, cases[i].s,
               cases[i].top, cases[i].bottom, cases[i].left, cases[i].right, cases[i].batch,
               relu ? ", relu" : "");
      finish(&b, y, 1 + COPY + (size_t)relu, what);
    }
  }
}

/* PADs that are not zeros after the channels run as they are; the ADD
 * still fuses (late: the PAD runs after the convolution). */
Test(rt_fusion, other_pads_not_folded) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, 1, 5, 6, 4);
  int32_t t = conv(&b, x, 1, 1, 8, 0, TEXMEM_ACT_NONE);
  int32_t s = input(&b, 1, 3, 6, 8), p = pad(&b, s, 2, true);
  int32_t a = ew(&b, TEXMEM_OP_ADD, p, t, false, TEXMEM_ACT_NONE);
  finish_late(&b, ew(&b, TEXMEM_OP_RELU, a, UNARY, false, TEXMEM_ACT_NONE), 2, 1, "rows pad");
}

/* What must not fuse: each graph has none. */
Test(rt_fusion, not_fused) {
  {
    rt_mb b = rt_mb_new(); /* read twice */
    int32_t x = input(&b, 1, 4, 4, 4);
    int32_t t = conv(&b, x, 1, 1, 4, 0, TEXMEM_ACT_NONE);
    finish(&b, ew(&b, TEXMEM_OP_MUL, t, t, false, TEXMEM_ACT_NONE), 0, "t * t");
  }
  {
    rt_mb b = rt_mb_new(); /* a broadcast tensor operand */
    int32_t x = input(&b, 1, 4, 4, 8), r = input(&b, 1, 1, 1, 8);
    int32_t t = conv(&b, x, 1, 1, 8, 0, TEXMEM_ACT_NONE);
    finish(&b, ew(&b, TEXMEM_OP_ADD, t, r, false, TEXMEM_ACT_NONE), 0, "t + r[1,1,1,8]");
  }
  {
    rt_mb b = rt_mb_new(); /* the convolution's output is a graph output */
    int32_t x = input(&b, 1, 4, 4, 4);
    int32_t t = conv(&b, x, 1, 1, 4, 0, TEXMEM_ACT_NONE);
    b.out[b.n_out++] = t;
    finish(&b, ew(&b, TEXMEM_OP_RELU, t, UNARY, false, TEXMEM_ACT_NONE), 0, "output conv");
  }
}

/* MobileNet v2: its 10 residual ADDs fuse into their projections; with
 * the tiled kernels its 17 depthwise convolutions fold into them too. */
Test(rt_fusion, mobilenet_v2) {
  texmem_model *m = NULL;
  TG_OK(texmem_model_mobilenet_v2_sized(3, 32, &m, &tg_err_));
  g_dw = 17;
  check_fused(m, 10, "mobilenet_v2 32");
  texmem_model_destroy(m);
}

/* A depthwise convolution folds into the tiled 1x1 convolution reading
 * it: 3x3 at stride 1 and 2 (the 3x3 kernel's sums), 5x5 and a dilated
 * 3x3 (the general kernel's), VALID and SAME, odd channels past a chunk,
 * batch 2, each activation; the 1x1 with a residual ADD fused after it or
 * split in parts; BlazeFace's shortcut, where the ADD reads the depthwise
 * input itself, through a channel PAD, or through a 2x2 max pool and the
 * PAD (one binding serves both reads); bit for bit against the unfused
 * dispatches, in fp32 and fp16 (where the folded value is rounded as the
 * depthwise store rounded). */
enum { SC_RELU, SC_INPUT, SC_X, SC_PAD_X, SC_POOL_PAD_X };
typedef struct dw_case {
  int32_t batch, h, w, c, k, s, dil, cout;
  texmem_padding pad;
  texmem_activation act;
  int shortcut; /* SC_*: a RELU after the 1x1, or an ADD of: a graph input,
                   x, x padded to cout channels, x pooled 2x2 and padded */
  int32_t inpad; /* rows of zeros a PAD adds after x's before the
                    depthwise one (TFLite's explicit padding; folded too) */
} dw_case;

/* A k x k depthwise convolution of x with dilation dil, stride 1, SAME. */
static int32_t dw_dilated(rt_mb *b, int32_t x, int32_t k, int32_t dil, texmem_activation act) {
  const texmem_tensor *t = texmem_model_tensor(b->m, (size_t)x);
  int32_t shape[4] = {(int32_t)t->b, (int32_t)t->h, (int32_t)t->w, (int32_t)t->c};
  int32_t ws[4] = {1, k, k, shape[3]}, bs = shape[3];
  int32_t w = constant(b, 4, ws, -0.5f, 0.5f), bias = constant(b, 1, &bs, -0.5f, 0.5f);
  int32_t y = rt_mb_tensor(b, 4, shape), ins[3] = {x, w, bias};
  texmem_op_options o = texmem_op_options_default();
  o.padding = TEXMEM_PADDING_SAME;
  o.dilation_w = o.dilation_h = dil;
  o.depth_multiplier = 1;
  o.activation = act;
  rt_mb_op(b, TEXMEM_OP_DEPTHWISE_CONV_2D, ins, 3, y, &o);
  return y;
}

static void check_dw_fold(const dw_case *dc) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, dc->batch, dc->h, dc->w, dc->c);
  bool same = dc->pad == TEXMEM_PADDING_SAME; /* the residual: made first, not late */
  int32_t hp = dc->h + dc->inpad;
  int32_t oh = same ? (hp + dc->s - 1) / dc->s : (hp - dc->k) / dc->s + 1;
  int32_t ow = same ? (dc->w + dc->s - 1) / dc->s : (dc->w - dc->k) / dc->s + 1;
  int32_t r = dc->shortcut == SC_INPUT ? input(&b, dc->batch, oh, ow, dc->cout) : -1;
  size_t fused = 1 + COPY; /* the ADD or RELU, and the output copy */
  if (dc->shortcut >= SC_X) r = x;
  if (dc->shortcut == SC_POOL_PAD_X) {
    r = max_pool(&b, r, 2, 2, TEXMEM_PADDING_VALID, TEXMEM_ACT_NONE);
    fused++;
  }
  if (dc->shortcut >= SC_PAD_X) {
    r = pad(&b, r, dc->cout - dc->c, false);
    fused++;
  }
  int32_t xd = x;
  if (dc->inpad) {
    xd = pad(&b, x, dc->inpad, true);
    fused++;
  }
  int32_t t = dc->dil > 1 ? dw_dilated(&b, xd, dc->k, dc->dil, dc->act)
                          : conv_padded(&b, xd, dc->k, dc->s, 0, 1, dc->act, dc->pad);
  int32_t y = conv(&b, t, 1, 1, dc->cout, 0, TEXMEM_ACT_RELU6);
  y = dc->shortcut != SC_RELU ? ew(&b, TEXMEM_OP_ADD, y, r, false, TEXMEM_ACT_NONE)
                              : ew(&b, TEXMEM_OP_RELU, y, UNARY, false, TEXMEM_ACT_NONE);
  char what[160];
  snprintf(what, sizeof what, "dw %dx%d s%d d%d %dx%dx%dx%d (+%d rows) -> 1x1 %d, shortcut %d, act %d",
           dc->k, dc->k, dc->s, dc->dil, dc->batch, dc->h, dc->w, dc->c, dc->inpad, dc->cout,
           dc->shortcut, (int)dc->act);
  g_dw = 1;
  g_tiled_only = true; /* the portable kernels fold nothing: other tests */
  finish(&b, y, fused, what);
  g_dw = -1;
  g_tiled_only = false;
}

/* MobileNet's 3x3 windows (op_depthwise3x3.comp's sums). */
Test(rt_fusion, depthwise_3x3_folded_into_1x1) {
  const dw_case cases[] = {
      {1, 9, 11, 24, 3, 1, 1, 16, TEXMEM_PADDING_SAME, TEXMEM_ACT_RELU6, SC_INPUT, 0},
      {1, 12, 10, 36, 3, 2, 1, 20, TEXMEM_PADDING_SAME, TEXMEM_ACT_RELU6, SC_RELU, 0},
      {2, 7, 9, 13, 3, 2, 1, 6, TEXMEM_PADDING_VALID, TEXMEM_ACT_NONE, SC_INPUT, 0},
      {1, 5, 6, 150, 3, 1, 1, 8, TEXMEM_PADDING_SAME, TEXMEM_ACT_RELU6, SC_RELU, 0},
      {1, 9, 9, 16, 3, 2, 1, 12, TEXMEM_PADDING_VALID, TEXMEM_ACT_RELU6, SC_INPUT, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_dw_fold(&cases[i]);
}

/* Other windows (op_depthwise.comp's sums) and BlazeFace's shortcuts. */
Test(rt_fusion, depthwise_folded_into_1x1) {
  const dw_case cases[] = {
      {1, 10, 8, 20, 5, 1, 1, 12, TEXMEM_PADDING_SAME, TEXMEM_ACT_RELU, SC_RELU, 0},
      {1, 8, 11, 12, 5, 2, 1, 8, TEXMEM_PADDING_VALID, TEXMEM_ACT_NONE, SC_RELU, 3},
      {1, 11, 11, 18, 5, 2, 1, 70, TEXMEM_PADDING_SAME, TEXMEM_ACT_TANH, SC_INPUT, 0},
      {1, 9, 9, 8, 3, 1, 2, 8, TEXMEM_PADDING_SAME, TEXMEM_ACT_RELU_N1_TO_1, SC_RELU, 0},
      {1, 8, 9, 24, 3, 1, 1, 24, TEXMEM_PADDING_SAME, TEXMEM_ACT_NONE, SC_X, 0},
      {1, 8, 8, 24, 5, 1, 1, 28, TEXMEM_PADDING_SAME, TEXMEM_ACT_NONE, SC_PAD_X, 0},
      {2, 10, 12, 24, 3, 2, 1, 32, TEXMEM_PADDING_SAME, TEXMEM_ACT_NONE, SC_POOL_PAD_X, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_dw_fold(&cases[i]);
}

/* What must not fold: a 1x1 of stride 2, a depthwise output read twice,
 * a multiplier of 2, a depthwise convolution with an operator fused after
 * it (its RELU); each still bit for bit against unfused. */
Test(rt_fusion, depthwise_not_folded) {
  g_tiled_only = true;
  g_dw = 0;
  for (int c = 0; c < 4; c++) {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, 1, 8, 10, 12);
    int32_t t = conv(&b, x, 3, 1, 0, c == 2 ? 2 : 1, TEXMEM_ACT_RELU6);
    size_t fused = 1 + COPY; /* the RELU after the 1x1, its output copy */
    if (c == 3) { /* RELU after the depthwise: fused into it */
      t = ew(&b, TEXMEM_OP_RELU, t, UNARY, false, TEXMEM_ACT_NONE);
      fused++;
    }
    int32_t y = conv(&b, t, 1, c == 0 ? 2 : 1, 8, 0, TEXMEM_ACT_NONE);
    y = ew(&b, TEXMEM_OP_RELU, y, UNARY, false, TEXMEM_ACT_NONE);
    if (c == 1) { /* the depthwise output a graph output too (copied) */
      rt_mb_output(&b, t);
    }
    static const char *const what[] = {"1x1 stride 2", "depthwise output read twice",
                                       "multiplier 2", "RELU fused into the depthwise"};
    finish(&b, y, fused, what[c]);
  }
  g_dw = -1;
  g_tiled_only = false;
}

/* A real model: BlazeFace (face_detection_short_range) folds its shortcut
 * pools and PADs, 47 operators in all (its 11 ADD + RELU pairs, their
 * max pools and channel PADs, and the rest), and its heads' four reshapes
 * into the two concatenations, bit for bit. */
Test(rt_fusion, face_detection_short_range) {
  texmem_model *m = NULL;
  TG_OK(texmem_model_load_tflite(TEXMEM_TEST_DATA "/face_detection_short_range.tflite", &m,
                                 &tg_err_));
  g_rs = 4;
  check_fused(m, 47, "face_detection_short_range");
  g_rs = -1;
  texmem_model_destroy(m);
}


/* A detector's heads: convolutions flattened to anchors by RESHAPEs that
 * a CONCATENATION alone reads. The concatenation reads through them along
 * every axis (x, y, channels aligned and not, batch), with channel counts
 * that are and are not multiples of 4, beside segments read as they are,
 * one reshape input read through twice; bit for bit, one dispatch and one
 * planned tensor fewer each. A reshape whose output is read twice (here
 * also copied out) is run. */
Test(rt_fusion, reshapes_folded_into_concat) {
  for (int c = 0; c < 6; c++) {
    rt_mb b = rt_mb_new();
    int32_t nb = c == 2 ? 2 : 1;
    int32_t x = input(&b, nb, 8, 8, 5);
    int32_t h1 = conv(&b, x, 1, 1, 6, 0, TEXMEM_ACT_NONE);  /* nb x 8 x 8 x 6 */
    int32_t h2 = conv(&b, x, 3, 2, 12, 0, TEXMEM_ACT_NONE); /* nb x 4 x 4 x 12 */
    int32_t ins[3], y;
    long folded = 2;
    if (c == 0 || c == 2) { /* BlazeFace: (batch, anchors, values) along the anchors */
      int32_t s1[3] = {nb, 128, 3}, s2[3] = {nb, 64, 3};
      ins[0] = reshape(&b, h1, 3, s1);
      ins[1] = reshape(&b, h2, 3, s2);
      y = concat(&b, ins, 2, 1);
    } else if (c == 1) { /* h1 read through twice */
      int32_t s1[3] = {1, 192, 2}, s2[3] = {1, 96, 2};
      ins[0] = reshape(&b, h1, 3, s1);
      ins[1] = reshape(&b, h2, 3, s2);
      ins[2] = reshape(&b, h1, 3, s1);
      y = concat(&b, ins, 3, 1);
      folded = 3;
    } else if (c == 3) { /* along y, beside a tensor read as it is; one reshape read twice */
      int32_t s1[4] = {1, 16, 4, 6}, s2[4] = {1, 8, 4, 6};
      ins[0] = reshape(&b, h1, 4, s1);
      ins[1] = input(&b, 1, 3, 4, 6);
      ins[2] = reshape(&b, h2, 4, s2);
      rt_mb_output(&b, ins[2]);
      y = concat(&b, ins, 3, 1);
      folded = 1;
    } else if (c == 4) { /* along channels: 12 + 4 (aligned), 3 + 12 (not) */
      int32_t s1[4] = {1, 4, 8, 12}, s2[4] = {1, 2, 8, 12};
      int32_t u[2] = {reshape(&b, h2, 4, s2), input(&b, 1, 2, 8, 4)};
      rt_mb_output(&b, concat(&b, u, 2, 3));
      int32_t w[2] = {input(&b, 1, 4, 8, 3), reshape(&b, h1, 4, s1)};
      y = concat(&b, w, 2, 3);
    } else { /* along the batch */
      int32_t s1[4] = {4, 4, 4, 6}, s2[4] = {2, 4, 4, 6};
      ins[0] = reshape(&b, h1, 4, s1);
      ins[1] = reshape(&b, h2, 4, s2);
      y = concat(&b, ins, 2, 0);
    }
    static const char *const what[] = {"anchors", "anchors, h1 twice", "anchors, batch 2",
                                       "along y", "along channels", "along the batch"};
    g_rs = folded;
    finish(&b, y, 0, what[c]);
    g_rs = -1;
  }
}

/* Squeeze-and-excitation: a MUL of x by a per-channel scale (1 pixel,
 * x's batch and channels) read by a 1x1 convolution alone folds into the
 * tiled kernel, which stages the product rounded as the MUL's store would:
 * channels a multiple of 4 and not, batch 2, the scale first or second, an
 * activation on the MUL, a residual ADD after the 1x1 reading x or not;
 * bit for bit against unfused. An ADD of the product and another tensor
 * between them (the selfie decoder's) folds too, staged after it: either
 * operand order, with RELU6 or tanh. Not folded: the MUL's output read
 * twice, a scale of several pixels, a 1x1 of stride 2, an ADD of x itself
 * (nothing folds). */
typedef struct sc_case {
  int32_t batch, h, w, c, cout;
  bool scale_first, relu, residual_x;
  int folded; /* -1: the MUL's output read twice, -2: a 2-pixel scale, -3: stride 2 */
  int add;    /* an ADD after the MUL: 1 (product, b), 2 (b, product), 3 (product, x) */
} sc_case;

static void check_scale_fold(const sc_case *sc) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, sc->batch, sc->h, sc->w, sc->c);
  int32_t sh = sc->folded == -2 ? sc->h : 1;
  int32_t s = input(&b, sc->batch, sh, 1, sc->c); /* -2: broadcast along x only */
  int32_t prod[4] = {sc->batch, sc->h, sc->w, sc->c}, t = rt_mb_tensor(&b, 4, prod);
  int32_t ins[2] = {sc->scale_first ? s : x, sc->scale_first ? x : s};
  texmem_op_options o = texmem_op_options_default();
  o.activation = sc->relu ? TEXMEM_ACT_RELU6 : TEXMEM_ACT_NONE;
  rt_mb_op(&b, TEXMEM_OP_MUL, ins, 2, t, &o);
  if (sc->add) {
    int32_t r = sc->add == 3 ? x : input(&b, sc->batch, sc->h, sc->w, sc->c);
    t = ew(&b, TEXMEM_OP_ADD, t, r, sc->add == 2,
           sc->add == 2 ? TEXMEM_ACT_TANH : sc->relu ? TEXMEM_ACT_RELU6 : TEXMEM_ACT_NONE);
  }
  int32_t y = conv(&b, t, 1, sc->folded == -3 ? 2 : 1, sc->cout, 0, TEXMEM_ACT_NONE);
  size_t fused = COPY + (sc->add && sc->add != 3 && sc->folded > 0);
  if (sc->residual_x) {
    y = ew(&b, TEXMEM_OP_ADD, y, x, false, TEXMEM_ACT_NONE);
    fused++;
  }
  if (sc->folded == -1) rt_mb_output(&b, t);
  char what[128];
  snprintf(what, sizeof what, "x %dx%dx%dx%d * scale%s -> 1x1 %d%s%s, case %d, add %d", sc->batch,
           sc->h, sc->w, sc->c, sc->scale_first ? " (first)" : "", sc->cout,
           sc->relu ? ", RELU6" : "", sc->residual_x ? ", + x" : "", sc->folded, sc->add);
  g_sc = sc->folded > 0 && sc->add != 3 ? 1 : 0;
  g_tiled_only = true;
  finish(&b, y, fused, what);
  g_sc = -1;
  g_tiled_only = false;
}

Test(rt_fusion, scale_folded_into_1x1) {
  const sc_case cases[] = {
      {1, 9, 7, 16, 12, false, false, false, 1, 0}, {1, 6, 8, 13, 20, true, true, false, 1, 0},
      {2, 5, 6, 24, 24, false, false, true, 1, 0},  {1, 4, 5, 150, 24, true, false, false, 1, 0},
      {1, 6, 6, 12, 12, false, false, true, 1, 0},  {1, 6, 6, 12, 8, false, false, false, -1, 0},
      {1, 6, 6, 12, 8, false, false, false, -2, 0}, {1, 6, 6, 12, 8, false, false, false, -3, 0},
      {1, 8, 8, 16, 16, false, false, false, 1, 1}, {2, 5, 6, 13, 24, true, true, false, 1, 1},
      {1, 6, 7, 24, 24, false, false, true, 1, 2},  {1, 6, 6, 12, 8, false, false, false, 1, 3},
      {1, 6, 6, 12, 8, false, false, false, -1, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_scale_fold(&cases[i]);
}

/* A residual ADD fused into a 1x1 convolution, its output read by a PRELU
 * (or RELU) and a max pool: the PRELU, the first of them, joins the
 * dispatch as a second operator and the dispatch stores the ADD's output
 * too (hand_recrop's blocks), bit for bit, one dispatch fewer and no tensor
 * fewer. Read by the pool first, the PRELU runs apart. */
Test(rt_fusion, first_output_kept) {
  for (int c = 0; c < 3; c++) {
    rt_mb b = rt_mb_new();
    int32_t nb = c == 2 ? 2 : 1, ch = c == 2 ? 13 : 16;
    /* Larger tensors first hold the peak (of max_live and of the
     * positional maximum): storing both outputs at the convolution's task,
     * beside its inputs, then costs no memory. */
    int32_t x0a = input(&b, nb, 32, 32, 12), x0b = input(&b, nb, 32, 32, 12);
    int32_t r = input(&b, nb, 8, 8, ch);
    int32_t x0 = ew(&b, TEXMEM_OP_ADD, x0a, x0b, false, TEXMEM_ACT_NONE);
    int32_t x = conv(&b, x0, 1, 4, 12, 0, TEXMEM_ACT_NONE);
    int32_t y = conv(&b, x, 1, 1, ch, 0, TEXMEM_ACT_NONE);
    int32_t a = ew(&b, TEXMEM_OP_ADD, y, r, false, TEXMEM_ACT_NONE), p = -1;
    if (c == 1) p = max_pool(&b, a, 2, 2, TEXMEM_PADDING_VALID, TEXMEM_ACT_NONE);
    int32_t z = c == 2 ? ew(&b, TEXMEM_OP_RELU, a, UNARY, false, TEXMEM_ACT_NONE)
                       : ew(&b, TEXMEM_OP_PRELU, a, constant(&b, 1, &ch, 0.1f, 0.3f), false,
                            TEXMEM_ACT_NONE);
    if (c != 1) p = max_pool(&b, a, 2, 2, TEXMEM_PADDING_VALID, TEXMEM_ACT_NONE);
    rt_mb_output(&b, p);
    static const char *const what[] = {"PRELU kept beside", "pool reads first",
                                       "RELU, batch 2, 13 channels"};
    g_kept = c == 1 ? 0 : 1;
    finish(&b, z, c == 1 ? 1 : 2, what[c]);
    g_kept = -1;
  }
}


/* A classifier's head: a unary operator alone reading a FULLY_CONNECTED
 * layer's output runs in its dispatch (op_fc.comp's output stage is the
 * convolutions'), bit for bit, 1 to 3 rows, 1 to 63 outputs. Not fused: a
 * binary operator after it, its output read twice, rows that cut across
 * the input's channels (op_fc_gather.comp). */
Test(rt_fusion, unary_after_fully_connected) {
  static const texmem_op_type after[] = {TEXMEM_OP_LOGISTIC, TEXMEM_OP_HARD_SWISH,
                                         TEXMEM_OP_RELU,     TEXMEM_OP_TANH,
                                         TEXMEM_OP_ADD,      TEXMEM_OP_LOGISTIC,
                                         TEXMEM_OP_LOGISTIC};
  for (int c = 0; c < 7; c++) {
    rt_mb b = rt_mb_new();
    int32_t rows = c == 1 ? 3 : 1, n = c == 2 ? 63 : c == 0 ? 1 : 10;
    int32_t xs[4] = {rows, 1, c == 6 ? 2 : 1, 12};
    int32_t x = rt_mb_input(&b, c == 6 ? 4 : 2, c == 6 ? xs : (int32_t[]){rows, 12});
    int32_t y = fully_connected(&b, x, c == 6 ? 6 : 12, n, c == 6 ? 4 : rows);
    if (c == 5) rt_mb_output(&b, y); /* read twice */
    y = after[c] == TEXMEM_OP_ADD ? ew(&b, TEXMEM_OP_ADD, y, b.zero, false, TEXMEM_ACT_NONE)
                                  : ew(&b, after[c], y, UNARY, false, TEXMEM_ACT_NONE);
    static const char *const what[] = {"LOGISTIC", "HARD_SWISH, 3 rows", "RELU, 63 outputs",
                                       "TANH", "ADD of a constant", "read twice",
                                       "rows across channels"};
    finish(&b, y, c < 4 ? 1 : 0, what[c]);
  }
}

/* A RESHAPE to its input's own BHWC shape (a classifier's logits to
 * (batch, classes)), its input made by a convolution (with a LOGISTIC fused
 * or not) and read by the reshape alone: the convolution's dispatch stores
 * the reshape's output, as a graph output or a planned tensor, bit for bit.
 * Not folded: a reshape to other channels (reshape_stored_flattened: to
 * another height and width), a reshape whose input is read twice, the
 * second of two reshapes in a row. */
Test(rt_fusion, reshape_stored_by_its_producer) {
  for (int c = 0; c < 6; c++) {
    rt_mb b = rt_mb_new();
    int32_t nb = c == 1 ? 2 : 1;
    int32_t x = input(&b, nb, c < 2 ? 1 : 4, c < 2 ? 1 : 4, 7);
    int32_t h = conv(&b, x, 1, 1, 6, 0, TEXMEM_ACT_NONE);
    size_t fused = 0;
    if (c == 1) {
      h = ew(&b, TEXMEM_OP_LOGISTIC, h, UNARY, false, TEXMEM_ACT_NONE);
      fused = 1;
    }
    int32_t flat[2] = {nb, 6}, same[4] = {1, 4, 4, 6}, other[3] = {1, 4, 24};
    int32_t y = c < 2 ? reshape(&b, h, 2, flat) : reshape(&b, h, c == 3 ? 3 : 4, c == 3 ? other : same);
    if (c == 4) rt_mb_output(&b, h); /* h read twice */
    if (c == 5) y = reshape(&b, y, 4, same);
    if (c < 2) { /* y itself the graph output */
      g_rs = 1;
      finish_as_output(&b, y, fused, c ? "logits, LOGISTIC fused, batch 2" : "logits");
    } else {
      static const char *const what[] = {"4x4x6 planned", "to other channels", "input read twice",
                                         "two in a row"};
      g_rs = c == 2 || c == 5 ? 1 : 0;
      finish(&b, y, 0, what[c - 2]);
    }
    g_rs = -1;
  }
}

/* A RESHAPE to another height and width of the same batch, channels and
 * pixels (BlazeFace's heads flattened to anchors, a graph output or a
 * planned tensor), its input made by a convolution (1x1, 3x3, with an
 * element-wise operator fused reading another tensor at each pixel), a
 * depthwise convolution (5 channels: padding lanes), a DEPTH_TO_SPACE
 * (face_detection_full_range_sparse's heads; 3 channels, batch 2) or a
 * CONCATENATION (the SSD detector's boxes), read by the reshape alone:
 * the dispatch stores each texel at the reshape's texel of the same pixel
 * index (shaders/y_flat.glsl), bit for bit, one dispatch and one planned
 * tensor fewer. Not folded: a reshape moving pixels across the batch. */
Test(rt_fusion, reshape_stored_flattened) {
  for (int c = 0; c < 10; c++) {
    rt_mb b = rt_mb_new();
    int32_t y;
    size_t fused = 0;
    bool output = c != 2 && c != 3;
    g_rs = c == 7 ? 0 : c == 9 ? 2 : 1;
    if (c == 0) { /* a 1x1 head to (1, 1, anchors, values) */
      int32_t s[4] = {1, 1, 20, 6};
      y = reshape(&b, conv(&b, input(&b, 1, 4, 5, 7), 1, 1, 6, 0, TEXMEM_ACT_NONE), 4, s);
    } else if (c == 1) { /* + a residual read at the convolution's pixel */
      int32_t x = input(&b, 1, 4, 5, 7), r = input(&b, 1, 4, 5, 6), s[3] = {1, 20, 6};
      int32_t t = conv(&b, x, 1, 1, 6, 0, TEXMEM_ACT_NONE);
      y = reshape(&b, ew(&b, TEXMEM_OP_ADD, t, r, false, TEXMEM_ACT_RELU), 3, s);
      fused = 1;
    } else if (c == 2) { /* a 3x3 and a LOGISTIC, planned, 4x5 to 2x10 */
      int32_t s[4] = {1, 2, 10, 9};
      int32_t t = conv(&b, input(&b, 1, 4, 5, 3), 3, 1, 9, 0, TEXMEM_ACT_NONE);
      y = reshape(&b, ew(&b, TEXMEM_OP_LOGISTIC, t, UNARY, false, TEXMEM_ACT_NONE), 4, s);
      fused = 1;
    } else if (c == 3) { /* batch 2, planned, 4x4 to 2x8 */
      int32_t s[4] = {2, 2, 8, 6};
      y = reshape(&b, conv(&b, input(&b, 2, 4, 4, 7), 1, 1, 6, 0, TEXMEM_ACT_NONE), 4, s);
    } else if (c == 4) { /* a depthwise convolution, 5 channels */
      int32_t s[3] = {1, 20, 5};
      y = reshape(&b, conv(&b, input(&b, 1, 5, 4, 5), 3, 1, 0, 1, TEXMEM_ACT_RELU6), 3, s);
    } else if (c == 5) { /* DEPTH_TO_SPACE 3x4x16 -> 6x8x4 -> anchors */
      int32_t s[4] = {1, 1, 48, 4};
      y = reshape(&b, depth_to_space(&b, input(&b, 1, 3, 4, 16), 2), 4, s);
    } else if (c == 6) { /* batch 2, 3 channels */
      int32_t s[3] = {2, 24, 3};
      y = reshape(&b, depth_to_space(&b, input(&b, 2, 2, 3, 12), 2), 3, s);
    } else if (c == 7) { /* across the batch: run */
      int32_t s[4] = {2, 2, 4, 6};
      y = reshape(&b, conv(&b, input(&b, 1, 4, 4, 7), 1, 1, 6, 0, TEXMEM_ACT_NONE), 4, s);
    } else if (c == 8) { /* a CONCATENATION along x */
      int32_t u[2] = {input(&b, 1, 2, 3, 5), input(&b, 1, 2, 5, 5)}, s[4] = {1, 1, 16, 5};
      y = reshape(&b, concat(&b, u, 2, 2), 4, s);
    } else { /* the SSD's boxes: along y, one segment read through a reshape */
      int32_t r[4] = {1, 8, 1, 4}, s[4] = {1, 1, 11, 4};
      int32_t h = conv(&b, input(&b, 1, 2, 2, 6), 1, 1, 8, 0, TEXMEM_ACT_NONE);
      int32_t u[2] = {reshape(&b, h, 4, r), input(&b, 1, 3, 1, 4)};
      y = reshape(&b, concat(&b, u, 2, 1), 4, s);
    }
    static const char *const what[] = {"1x1 to anchors",
                                       "1x1 + residual, relu",
                                       "3x3 + LOGISTIC, planned",
                                       "1x1, batch 2, planned",
                                       "depthwise, 5 channels",
                                       "DEPTH_TO_SPACE",
                                       "DEPTH_TO_SPACE, batch 2, 3 channels",
                                       "across the batch",
                                       "CONCATENATION along x",
                                       "CONCATENATION along y, a segment read through"};
    if (output)
      finish_as_output(&b, y, fused, what[c]);
    else
      finish(&b, y, fused, what[c]);
    g_rs = -1;
  }
}

/* A planned reshape stored flattened (as in reshape_stored_flattened) in
 * the texture arena (rows of a linear texture) and the buffer arena. */
Test(rt_fusion, reshape_stored_flattened_in_arenas) {
  for (int st = 0; st < 2; st++) {
    rt_mb b = rt_mb_new();
    int32_t s[4] = {2, 2, 8, 6};
    int32_t t = conv(&b, input(&b, 2, 4, 4, 7), 1, 1, 6, 0, TEXMEM_ACT_NONE);
    int32_t y = reshape(&b, ew(&b, TEXMEM_OP_RELU, t, UNARY, false, TEXMEM_ACT_NONE), 4, s);
    g_storage = st ? TEXMEM_STORAGE_BUFFER : TEXMEM_STORAGE_ARENA;
    g_rs = 1;
    finish(&b, y, 1, st ? "buffer arena, batch 2" : "texture arena, batch 2");
    g_rs = -1;
    g_storage = TEXMEM_STORAGE_OBJECTS;
  }
}

/* The runtime's records against the model's: the convolution's output
 * and, with a second operator (`second`: the output copy, an ADD of zero),
 * the first one's are gone; the last fused operator's output starts at
 * the dispatch's task, and the residual, read there, ends there. The
 * task is the convolution's, or (`late`: the residual made after the
 * convolution) the ADD's, and the convolution's input then lives until
 * it. */
static void check_fused_records(bool second, bool late) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, 1, 4, 5, 4), r = late ? -1 : input(&b, 1, 4, 5, 8);
  int32_t t = conv(&b, x, 1, 1, 8, 0, TEXMEM_ACT_NONE);
  if (late) r = input(&b, 1, 4, 5, 8);
  size_t task = texmem_model_op_count(b.m) - (late ? 0 : 1);
  int32_t e = ew(&b, TEXMEM_OP_ADD, t, r, false, TEXMEM_ACT_NONE), last = e;
  if (second) {
    rt_mb_output(&b, e);
    last = b.out[b.n_out - 1];
  } else {
    b.out[b.n_out++] = e;
  }
  TG_OK(texmem_model_set_io(b.m, b.in, b.n_in, b.out, b.n_out, &tg_err_));
  texmem_record *rec = NULL;
  int32_t *of = NULL;
  size_t n = 0;
  TG_OK(texmem_model_records(b.m, 3, TEXMEM_PRECISION_FP16, &rec, &n, &of, &tg_err_));
  texmem_gl_context *ctx = tg_context();
  texmem_runtime *rt = NULL;
  TG_OK(texmem_runtime_create(ctx, b.m, NULL, &rt, &tg_err_));
  texmem_runtime_stats st;
  texmem_runtime_get_stats(rt, &st);
  cr_assert_eq(st.fused, second ? 2u : 1u);
  cr_assert_eq(st.late_fused, late ? 1u : 0u);
  size_t nr = 0;
  const texmem_record *got = texmem_runtime_records(rt, &nr);
  cr_assert_eq(nr, n - st.fused);
  size_t j = 0;
  for (size_t i = 0; i < n; i++) {
    if (of[i] == t || (second && of[i] == e)) continue;
    texmem_record want = rec[i];
    if (of[i] == last) want.first_task = task;
    if (of[i] == r || of[i] == x) want.last_task = task;
    cr_assert_eq(got[j].first_task, want.first_task, "record %zu", j);
    cr_assert_eq(got[j].last_task, want.last_task, "record %zu", j);
    cr_assert_eq(memcmp(got[j].dims, want.dims, sizeof want.dims), 0);
    cr_assert_eq(got[j].id, j);
    j++;
  }
  cr_assert_eq(j, nr);
  cr_assert_null(texmem_runtime_records(NULL, &nr));
  cr_assert_eq(nr, 0);
  texmem_runtime_destroy(rt);
  texmem_gl_context_destroy(ctx);
  free(rec);
  free(of);
  texmem_model_destroy(b.m);
}

Test(rt_fusion, records_drop_the_fused_outputs) {
  for (int late = 0; late < 2; late++) {
    check_fused_records(false, late);
    check_fused_records(true, late);
  }
}

/* An unknown kernels value is refused by name. */
Test(rt_fusion, unknown_kernels_refused) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, 1, 2, 2, 4);
  rt_mb_output(&b, conv(&b, x, 1, 1, 4, 0, TEXMEM_ACT_NONE));
  TG_OK(texmem_model_set_io(b.m, b.in, b.n_in, b.out, b.n_out, &tg_err_));
  texmem_gl_context *ctx = tg_context();
  texmem_runtime *rt = NULL;
  texmem_runtime_desc d = {.kernels = (texmem_kernels)7};
  texmem_error err = {0};
  cr_assert_eq(texmem_runtime_create(ctx, b.m, &d, &rt, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_null(rt);
  cr_assert(strstr(err.message, "kernels"), "%s", err.message);
  /* So is a split of the tiled 1x1 kernel that is not 1, 2, 4, 8 or 16. */
  static const uint32_t bad[] = {3, 6, 32, 0x80000000u};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    d = (texmem_runtime_desc){.conv1x1_split = bad[i]};
    cr_assert_eq(texmem_runtime_create(ctx, b.m, &d, &rt, &err), TEXMEM_STATUS_INVALID_ARGUMENT,
                 "split %u", (unsigned)bad[i]);
    cr_assert_null(rt);
    cr_assert(strstr(err.message, "conv1x1_split"), "%s", err.message);
  }
  texmem_gl_context_destroy(ctx);
  texmem_model_destroy(b.m);
}


/* A feature pyramid's step: a convolution (k x k, or depthwise when cout
 * is 0) of the fine level plus the coarse level resized to it. The resize
 * folds into the fused ADD's operand read with every kernel set, bit for
 * bit: 2x and uneven scales, half-pixel centers, aligned corners, batch 2,
 * 13 channels, the coarse level computed after the convolution (a late
 * dispatch) or a graph input. Not folded: the resized tensor read twice. */
typedef struct rsz_case {
  int32_t batch, h, w, c, ch, cw, k, cout;
  bool ac, hp, late;
  int folded; /* 1, or 0: the resized tensor is a graph output too */
} rsz_case;

static void check_operand_resize(const rsz_case *rc) {
  rt_mb b = rt_mb_new();
  int32_t fine = input(&b, rc->batch, rc->h, rc->w, rc->c);
  int32_t coarse = input(&b, rc->batch, rc->ch, rc->cw, rc->c);
  int32_t y = conv(&b, fine, rc->k, 1, rc->cout, 1, TEXMEM_ACT_RELU);
  if (rc->late) coarse = conv(&b, coarse, 1, 1, rc->c, 0, TEXMEM_ACT_NONE);
  int32_t r = resize(&b, coarse, rc->h, rc->w, rc->ac, rc->hp);
  if (!rc->folded) rt_mb_output(&b, r);
  int32_t z = ew(&b, TEXMEM_OP_ADD, y, r, rc->late, TEXMEM_ACT_NONE);
  char what[160];
  snprintf(what, sizeof what, "conv %dx%d/%d of %dx%dx%dx%d + resize of %dx%d%s%s%s, case %d",
           rc->k, rc->k, rc->cout, rc->batch, rc->h, rc->w, rc->c, rc->ch, rc->cw,
           rc->ac ? ", align_corners" : "", rc->hp ? ", half pixel" : "", rc->late ? ", late" : "",
           rc->folded);
  g_rsz[0] = g_rsz[1] = rc->folded;
  /* Late too when the resize, made after the convolution, is run. */
  finish_late(&b, z, 1 + COPY, rc->late || !rc->folded ? 1 : 0, what);
  g_rsz[0] = g_rsz[1] = -1;
}

Test(rt_fusion, resize_folded_into_operand) {
  const rsz_case cases[] = {
      {1, 8, 10, 16, 4, 5, 1, 16, false, false, false, 1},
      {1, 9, 7, 13, 5, 4, 3, 13, false, true, false, 1},
      {2, 6, 8, 12, 3, 4, 1, 12, true, false, false, 1},
      {1, 12, 9, 8, 5, 7, 3, 0, false, true, true, 1},
      {1, 8, 8, 24, 4, 4, 1, 24, false, false, true, 1},
      {1, 8, 8, 16, 4, 4, 1, 16, false, false, false, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_operand_resize(&cases[i]);
}

/* A 1x1 convolution of a resized tensor: with the tiled kernels the resize
 * folds into the convolution's staging (the portable ones run it apart),
 * bit for bit: 2x and uneven scales, half-pixel centers, aligned corners,
 * batch 2, 13 and 150 channels, a fused ADD after it reading another
 * tensor. Not folded: the resized tensor read twice, the ADD's operand the
 * resize's input (one dispatch binds a tensor once), a stride of 2. */
typedef struct in_rsz_case {
  int32_t batch, h, w, c, oh, ow, cout;
  bool ac, hp;
  int folded; /* 1, or 0 with -1: read twice, -2: operand its input, -3: stride 2 */
} in_rsz_case;

static void check_input_resize(const in_rsz_case *rc) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, rc->batch, rc->h, rc->w, rc->c);
  bool add = rc->folded == 1 && rc->cout == rc->c; /* an ADD of another tensor after */
  int32_t o = add ? input(&b, rc->batch, rc->oh, rc->ow, rc->cout) : -1;
  int32_t r = resize(&b, x, rc->oh, rc->ow, rc->ac, rc->hp);
  if (rc->folded == -1) rt_mb_output(&b, r);
  int32_t y = conv(&b, r, 1, rc->folded == -3 ? 2 : 1, rc->cout, 0, TEXMEM_ACT_RELU6);
  size_t fused = COPY;
  if (rc->folded == -2) { /* x resized to itself: the operand is the resize's input */
    y = ew(&b, TEXMEM_OP_ADD, y, x, false, TEXMEM_ACT_NONE);
    fused++;
  } else if (add) {
    y = ew(&b, TEXMEM_OP_ADD, y, o, true, TEXMEM_ACT_NONE);
    fused++;
  }
  char what[160];
  snprintf(what, sizeof what, "resize %dx%dx%dx%d to %dx%d%s%s -> 1x1 %d, case %d", rc->batch,
           rc->h, rc->w, rc->c, rc->oh, rc->ow, rc->ac ? ", align_corners" : "",
           rc->hp ? ", half pixel" : "", rc->cout, rc->folded);
  g_rsz[0] = 0;
  g_rsz[1] = rc->folded > 0 ? 1 : 0;
  finish(&b, y, fused, what);
  g_rsz[0] = g_rsz[1] = -1;
}

Test(rt_fusion, resize_folded_into_1x1) {
  const in_rsz_case cases[] = {
      {1, 4, 5, 16, 8, 10, 12, false, false, 1}, {1, 5, 4, 13, 9, 7, 13, false, true, 1},
      {2, 3, 4, 12, 6, 8, 12, true, false, 1},   {1, 3, 3, 150, 6, 6, 24, false, true, 1},
      {1, 4, 4, 8, 8, 8, 8, false, false, -1},   {1, 6, 6, 8, 6, 6, 8, false, false, -2},
      {1, 4, 4, 8, 8, 8, 8, false, false, -3},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_input_resize(&cases[i]);
}

/* A second operator with a tensor operand, after a first one that reads
 * none (a feature pyramid's RELU then ADD): the dispatch binds it, read as
 * it is or through the resize making it, moved to the second's task when
 * that operand is computed after the convolution, or through x's
 * binding when it is the convolution's own input; bit for bit. Not
 * joined: its operand the first one's output itself. */
Test(rt_fusion, second_operator_with_tensor) {
  for (int c = 0; c < 6; c++) {
    rt_mb b = rt_mb_new();
    int32_t nb = c == 3 ? 2 : 1, ch = c == 3 ? 13 : 12;
    int32_t x = input(&b, nb, 8, 6, ch), r = input(&b, nb, 8, 6, ch);
    int32_t coarse = input(&b, nb, 4, 3, ch);
    int32_t t = c == 3 ? conv(&b, x, 3, 1, 0, 1, TEXMEM_ACT_NONE)
                       : conv(&b, x, 1, 1, ch, 0, TEXMEM_ACT_NONE);
    int32_t a, z, fused = 2, late = 0, folded = 0;
    if (c == 1) {
      int32_t cs = ch, k = constant(&b, 1, &cs, -2.0f, 2.0f);
      a = ew(&b, TEXMEM_OP_MUL, t, k, false, TEXMEM_ACT_NONE);
    } else {
      a = ew(&b, c == 3 ? TEXMEM_OP_LEAKY_RELU : TEXMEM_OP_RELU, t, UNARY, false,
             TEXMEM_ACT_NONE);
    }
    if (c == 0) {
      z = ew(&b, TEXMEM_OP_ADD, a, r, false, TEXMEM_ACT_NONE);
    } else if (c == 1) {
      z = ew(&b, TEXMEM_OP_SUB, a, r, true, TEXMEM_ACT_TANH);
    } else if (c == 2) { /* the coarse level computed after, resized */
      int32_t q = conv(&b, coarse, 1, 1, ch, 0, TEXMEM_ACT_RELU);
      z = ew(&b, TEXMEM_OP_ADD, a, resize(&b, q, 8, 6, false, true), false, TEXMEM_ACT_NONE);
      late = folded = 1;
    } else if (c == 3) {
      z = ew(&b, TEXMEM_OP_MAXIMUM, a, resize(&b, coarse, 8, 6, true, false), true,
             TEXMEM_ACT_NONE);
      folded = 1;
    } else {
      /* x, the convolution's own input, is read through its binding; a
       * itself is not stored: the second stays apart. */
      z = ew(&b, TEXMEM_OP_ADD, a, c == 4 ? x : a, false, TEXMEM_ACT_NONE);
      fused = c == 4 ? 2 : 1;
    }
    static const char *const what[] = {"relu(1x1) + r", "r - 1x1 * k, tanh",
                                       "relu(1x1) + resize(1x1 after)",
                                       "max(resize(coarse), leaky(dw 3x3)), batch 2, 13 channels",
                                       "relu(1x1(x)) + x", "relu(1x1) + itself"};
    g_rsz[0] = g_rsz[1] = folded;
    finish_late(&b, z, (size_t)fused, (size_t)late, what[c]);
    g_rsz[0] = g_rsz[1] = -1;
  }
}

/* A PAD of rows and columns read by two convolutions (pose_detection's
 * heads: two depthwise ones, each folded into its 1x1 with the tiled
 * kernels) folds into both: the PAD is not run, its input lives until the
 * last of them; bit for bit. A depthwise and a 3x3 convolution likewise.
 * Not folded: one reader a 1x1 convolution (which reads no PAD). */
Test(rt_fusion, input_pad_read_twice) {
  for (int c = 0; c < 3; c++) {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, c == 1 ? 2 : 1, 9, 8, 12);
    int32_t p = pad_plane(&b, x, 0, 1, 0, 1);
    int32_t d1 = conv_padded(&b, p, 3, 2, 0, 1, TEXMEM_ACT_NONE, TEXMEM_PADDING_VALID);
    int32_t y1 = conv(&b, d1, 1, 1, 8, 0, TEXMEM_ACT_NONE);
    int32_t d2 = c == 0   ? conv_padded(&b, p, 3, 2, 0, 1, TEXMEM_ACT_RELU, TEXMEM_PADDING_VALID)
                 : c == 1 ? conv_padded(&b, p, 3, 2, 12, 0, TEXMEM_ACT_NONE, TEXMEM_PADDING_VALID)
                          : conv(&b, p, 1, 1, 12, 0, TEXMEM_ACT_NONE);
    int32_t y2 = conv(&b, d2, 1, 1, 6, 0, TEXMEM_ACT_NONE);
    rt_mb_output(&b, y1);
    static const char *const what[] = {"two depthwise", "a depthwise and a 3x3, batch 2",
                                       "a depthwise and a 1x1"};
    g_dw = c == 0 ? 2 : 1;
    finish(&b, y2, c == 2 ? 2 : 3, what[c]); /* the PAD and the two outputs' copies */
    g_dw = -1;
  }
}

/* A landmark model's heads: FULLY_CONNECTED layers reading one input by
 * rows, each with its own unary operator or none, run as one dispatch
 * that stores every output, bit for bit: 1 and 3 rows, 1 to 63 outputs;
 * five layers: four in one dispatch, the fifth alone. Not merged: a layer
 * gathering rows across channels, one reading another input. (Merged
 * outputs are made at the first layer's task: where that costs memory, as
 * when planned tensors copy them to the graph's outputs, no merge.) */
Test(rt_fusion, fully_connected_heads_merged) {
  static const texmem_op_type after[] = {TEXMEM_OP_LOGISTIC, TEXMEM_OP_LOGISTIC, TEXMEM_OP_ADD,
                                         TEXMEM_OP_RELU, TEXMEM_OP_TANH};
  static const int32_t outs[] = {1, 1, 63, 10, 5};
  for (int c = 0; c < 4; c++) {
    rt_mb b = rt_mb_new();
    int32_t rows = c == 1 ? 3 : 1, n = c == 2 ? 5 : c == 3 ? 3 : 4, fused = 0;
    int32_t x = rt_mb_input(&b, 2, (int32_t[]){rows, 20});
    int32_t other = rt_mb_input(&b, 2, (int32_t[]){rows, 20}), y = -1;
    for (int i = 0; i < n; i++) {
      int32_t in = c == 3 && i == 2 ? other : x, depth = c == 3 && i == 1 ? 10 : 20;
      y = fully_connected(&b, in, depth, outs[i], depth == 10 ? 2 * rows : rows);
      if (after[i] != TEXMEM_OP_ADD) {
        y = ew(&b, after[i], y, UNARY, false, TEXMEM_ACT_NONE);
        fused += depth == 20; /* a gathering layer takes none */
      }
      if (i + 1 < n) b.out[b.n_out++] = y; /* graph outputs, not planned */
    }
    static const char *const what[] = {"four heads", "four heads, 3 rows", "five heads",
                                       "a gathered layer and another input"};
    g_heads = c == 3 ? 0 : 3;
    finish(&b, y, (size_t)fused, what[c]);
    g_heads = -1;
  }
}

/* A detector's heads: 1x1 convolutions of one input (a planned tensor or a
 * graph input, batch 1 or 2, 5 to 37 channels), each with its own
 * activation and 1 to 40 output channels (part of a group of 4 slices or
 * several groups), run as one dispatch of the tiled kernel that stores
 * every output, bit for bit, also with the input slices split in 2 parts;
 * an operator between them; four heads: three in one dispatch, the fourth
 * alone. Not merged: a 3x3 and a stride-2 sibling, a 1x1 more than five
 * operators after the last head, two heads whose split of the input
 * slices would differ (4 and 1024 channels of a 32x32 map: each alone would
 * sum in another order), and with the portable kernels. */
Test(rt_fusion, conv_heads_merged) {
  static const char *const what[] = {"two heads",  "three heads, batch 2", "split in 2",
                                     "four heads", "apart or not 1x1",     "other splits"};
  for (int c = 0; c < 6; c++) {
    rt_mb b = rt_mb_new();
    int32_t nb = c == 1 || c == 2 ? 2 : 1, y = -1;
    long merged = 0;
    if (c == 0) { /* BlazeFace: scores and boxes of a computed map */
      int32_t x = conv(&b, input(&b, 1, 8, 8, 5), 3, 1, 12, 0, TEXMEM_ACT_RELU);
      b.out[b.n_out++] = conv(&b, x, 1, 1, 2, 0, TEXMEM_ACT_NONE);
      y = conv(&b, x, 1, 1, 32, 0, TEXMEM_ACT_RELU);
      merged = 1;
    } else if (c <= 2) { /* 37 channels; an ADD between the second and third */
      int32_t x = input(&b, nb, 5, 7, 37), o = input(&b, nb, 3, 3, 4);
      b.out[b.n_out++] = conv(&b, x, 1, 1, 1, 0, TEXMEM_ACT_TANH);
      b.out[b.n_out++] = conv(&b, x, 1, 1, 17, 0, TEXMEM_ACT_RELU6);
      b.out[b.n_out++] = ew(&b, TEXMEM_OP_ADD, o, o, false, TEXMEM_ACT_NONE);
      y = conv(&b, x, 1, 1, 40, 0, TEXMEM_ACT_RELU_N1_TO_1);
      merged = 2;
    } else if (c == 3) {
      int32_t x = input(&b, 1, 6, 6, 8);
      static const int32_t outs[] = {24, 144, 64, 6};
      for (int i = 0; i < 4; i++) {
        if (y >= 0) b.out[b.n_out++] = y;
        y = conv(&b, x, 1, 1, outs[i], 0, TEXMEM_ACT_NONE);
      }
      merged = 2;
    } else if (c == 4) {
      int32_t x = input(&b, 1, 6, 6, 8), o = input(&b, 1, 2, 2, 4);
      b.out[b.n_out++] = conv(&b, x, 1, 1, 4, 0, TEXMEM_ACT_NONE);
      b.out[b.n_out++] = conv(&b, x, 3, 1, 4, 0, TEXMEM_ACT_NONE);
      b.out[b.n_out++] = conv(&b, x, 1, 2, 4, 0, TEXMEM_ACT_NONE);
      for (int i = 0; i < 3; i++) o = ew(&b, TEXMEM_OP_RELU, o, UNARY, false, TEXMEM_ACT_NONE);
      b.out[b.n_out++] = o;
      y = conv(&b, x, 1, 1, 8, 0, TEXMEM_ACT_NONE);
    } else {
      int32_t x = input(&b, 1, 32, 32, 20); /* 4 channels: 2 parts; 1024: 1 */
      b.out[b.n_out++] = conv(&b, x, 1, 1, 4, 0, TEXMEM_ACT_NONE);
      y = conv(&b, x, 1, 1, 1024, 0, TEXMEM_ACT_NONE);
    }
    g_conv_heads = merged;
    g_split = c == 2 ? 2 : 0;
    finish_as_output(&b, y, 0, what[c]);
    g_split = 0;
    g_conv_heads = -1;
  }
}

/* The same heads in the texture and the buffer arena. */
Test(rt_fusion, conv_heads_merged_in_arenas) {
  for (int st = 0; st < 2; st++) {
    rt_mb b = rt_mb_new();
    int32_t x = conv(&b, input(&b, 2, 6, 5, 9), 3, 1, 20, 0, TEXMEM_ACT_RELU);
    b.out[b.n_out++] = conv(&b, x, 1, 1, 3, 0, TEXMEM_ACT_NONE);
    b.out[b.n_out++] = conv(&b, x, 1, 1, 21, 0, TEXMEM_ACT_RELU6);
    int32_t y = conv(&b, x, 1, 1, 16, 0, TEXMEM_ACT_NONE);
    g_storage = st ? TEXMEM_STORAGE_BUFFER : TEXMEM_STORAGE_ARENA;
    g_conv_heads = 2;
    finish_as_output(&b, y, 0, st ? "buffer arena" : "texture arena");
    g_conv_heads = -1;
    g_storage = TEXMEM_STORAGE_OBJECTS;
  }
}

/* A DEPTH_TO_SPACE read by convolutions (pose_detection's heads: through
 * a PAD that two depthwise convolutions read, each folded into its 1x1 with
 * the tiled kernels) is read through: not run, each convolution reads its
 * input where op_depth_to_space.comp takes it; bit for bit. A depthwise
 * and a 3x3 convolution reading it directly; channels a multiple of 4 and
 * not, block 2 and 3, batch 2. Not folded: its output read twice. */
Test(rt_fusion, depth_to_space_read_through) {
  for (int c = 0; c < 4; c++) {
    rt_mb b = rt_mb_new();
    int32_t y = -1, fused = 2, dw = 0;
    if (c == 0 || c == 3) {
      int32_t d = depth_to_space(&b, input(&b, 1, 4, 5, 48), 2);
      if (c == 3) rt_mb_output(&b, d);
      y = conv(&b, d, 3, 1, 0, 1, TEXMEM_ACT_RELU6);
      fused = c == 3 ? 1 : 2;
    } else if (c == 1) {
      int32_t p = pad_plane(&b, depth_to_space(&b, input(&b, 2, 5, 4, 24), 2), 0, 1, 0, 1);
      int32_t d1 = conv_padded(&b, p, 3, 2, 0, 1, TEXMEM_ACT_NONE, TEXMEM_PADDING_VALID);
      rt_mb_output(&b, conv(&b, d1, 1, 1, 8, 0, TEXMEM_ACT_NONE));
      int32_t d2 = conv_padded(&b, p, 3, 2, 0, 1, TEXMEM_ACT_NONE, TEXMEM_PADDING_VALID);
      y = conv(&b, d2, 1, 1, 5, 0, TEXMEM_ACT_NONE);
      fused = 4; /* the DEPTH_TO_SPACE, the PAD, two copies */
      dw = 2;
    } else {
      y = conv(&b, depth_to_space(&b, input(&b, 1, 3, 3, 36), 3), 3, 1, 8, 0, TEXMEM_ACT_NONE);
    }
    static const char *const what[] = {"depthwise, 12 channels", "PAD, two depthwise, 6 channels, batch 2",
                                       "3x3, block 3, 4 channels", "read twice"};
    g_dw = dw;
    finish(&b, y, (size_t)fused, what[c]);
    g_dw = -1;
  }
}

/* A per-texel depthwise convolution (a 1x1 window, multiplier 1:
 * hand_recrop's per-channel scale and shift) runs inside the dispatch
 * before it, as a first or second fused operator, and where that dispatch
 * already runs two (or its input is no convolution's) the convolution
 * reading its output reads through it: not run either way; bit for bit,
 * with an activation, 5 channels (padding lanes), batch 2, read by a 3x3
 * depthwise and a 2x2 stride-2 convolution. Not folded: its output read
 * twice, a multiplier of 2. */
Test(rt_fusion, per_texel_depthwise) {
  for (int c = 0; c < 6; c++) {
    rt_mb b = rt_mb_new();
    int32_t y = -1, fused = 0, as[3] = {1, 1, 12}, prelu = constant(&b, 3, as, 0.0f, 0.5f);
    if (c == 0) { /* second, after a PRELU: the copy stays apart */
      int32_t t = conv(&b, input(&b, 1, 7, 6, 3), 3, 2, 12, 0, TEXMEM_ACT_NONE);
      t = ew(&b, TEXMEM_OP_PRELU, t, prelu, false, TEXMEM_ACT_NONE);
      y = conv(&b, t, 1, 1, 0, 1, TEXMEM_ACT_NONE);
      fused = 2;
    } else if (c == 1) { /* first, with an activation */
      int32_t t = conv(&b, input(&b, 1, 5, 6, 8), 1, 1, 12, 0, TEXMEM_ACT_NONE);
      y = conv(&b, t, 1, 1, 0, 1, TEXMEM_ACT_RELU6);
      fused = 1 + COPY;
    } else if (c == 2) { /* read through after a standalone operator */
      int32_t t = ew(&b, TEXMEM_OP_RELU, input(&b, 1, 8, 8, 12), UNARY, false, TEXMEM_ACT_NONE);
      t = conv(&b, t, 1, 1, 0, 1, TEXMEM_ACT_TANH);
      y = conv_padded(&b, t, 2, 2, 8, 0, TEXMEM_ACT_NONE, TEXMEM_PADDING_VALID);
      fused = 1 + COPY;
    } else if (c == 3) { /* a third after ADD and PRELU, read through (hand_recrop's) */
      int32_t x = input(&b, 1, 8, 6, 8), r = input(&b, 1, 8, 6, 12);
      int32_t t = conv(&b, x, 1, 1, 12, 0, TEXMEM_ACT_NONE);
      t = ew(&b, TEXMEM_OP_ADD, t, r, false, TEXMEM_ACT_NONE);
      t = ew(&b, TEXMEM_OP_PRELU, t, prelu, false, TEXMEM_ACT_NONE);
      t = conv(&b, t, 1, 1, 0, 1, TEXMEM_ACT_NONE);
      y = conv_padded(&b, t, 2, 2, 16, 0, TEXMEM_ACT_NONE, TEXMEM_PADDING_VALID);
      fused = 2 + 1 + COPY;
    } else if (c == 4) { /* batch 2, 5 channels, read by a 3x3 depthwise */
      int32_t t = ew(&b, TEXMEM_OP_LOGISTIC, input(&b, 2, 7, 6, 5), UNARY, false,
                     TEXMEM_ACT_NONE);
      t = conv(&b, t, 1, 1, 0, 1, TEXMEM_ACT_RELU);
      y = conv(&b, t, 3, 1, 0, 1, TEXMEM_ACT_NONE);
      fused = 1 + COPY;
    } else { /* read twice; a multiplier of 2 */
      int32_t t = ew(&b, TEXMEM_OP_RELU, input(&b, 1, 6, 6, 12), UNARY, false, TEXMEM_ACT_NONE);
      int32_t d = conv(&b, t, 1, 1, 0, 1, TEXMEM_ACT_NONE);
      rt_mb_output(&b, d);
      int32_t u = conv(&b, input(&b, 1, 6, 6, 4), 3, 1, 12, 0, TEXMEM_ACT_NONE);
      u = ew(&b, TEXMEM_OP_PRELU, u, prelu, false, TEXMEM_ACT_NONE);
      rt_mb_output(&b, conv(&b, u, 1, 1, 0, 2, TEXMEM_ACT_NONE));
      y = conv(&b, d, 3, 1, 8, 0, TEXMEM_ACT_NONE);
      fused = 1 + COPY + COPY; /* the PRELU, the multiplier-2 one's copy, y's */
    }
    static const char *const what[] = {"second after a PRELU", "first, RELU6",
                                       "read through by a 2x2, tanh",
                                       "read through after ADD and PRELU",
                                       "read through by a depthwise, batch 2, 5 channels",
                                       "read twice, multiplier 2"};
    g_dw = 0;
    finish(&b, y, (size_t)fused, what[c]);
    g_dw = -1;
  }
}


/* A shortcut that keeps the leading channels of a max pool's output
 * (hand_recrop's last blocks: STRIDED_SLICE after MAX_POOL_2D) folds into
 * the fused ADD's read as a channel PAD does: neither is run, the dispatch
 * reads the pool's input at the slice's channels; bit for bit, 8 and 6 of
 * 16 channels, batch 2, with and without the pool. Not folded: a slice
 * starting past channel 0, one of fewer rows. */
Test(rt_fusion, leading_channel_slice_folded) {
  static const struct {
    int32_t batch, c, c0, rows;
    bool pool;
  } cases[] = {{1, 8, 0, 0, true}, {1, 6, 0, 0, true}, {2, 10, 0, 0, false},
               {1, 8, 4, 0, true}, {1, 8, 0, 4, false}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    rt_mb b = rt_mb_new();
    int32_t nb = cases[i].batch, x2 = input(&b, nb, 4, 3, 8);
    int32_t s = cases[i].pool ? input(&b, nb, 8, 6, 16) : input(&b, nb, 4 + !!cases[i].rows, 3, 16);
    if (cases[i].pool) s = max_pool(&b, s, 2, 2, TEXMEM_PADDING_VALID, TEXMEM_ACT_NONE);
    s = slice_channels(&b, s, cases[i].c0, cases[i].c, cases[i].rows);
    int32_t t = conv(&b, x2, 1, 1, cases[i].c, 0, TEXMEM_ACT_NONE);
    int32_t a = ew(&b, TEXMEM_OP_ADD, s, t, false, TEXMEM_ACT_NONE);
    bool folds = cases[i].c0 == 0 && !cases[i].rows;
    char what[96];
    snprintf(what, sizeof what, "relu(slice %d of 16 from %d%s + 1x1), batch %d", cases[i].c,
             cases[i].c0, cases[i].pool ? " of a pool" : "", nb);
    finish(&b, ew(&b, TEXMEM_OP_RELU, a, UNARY, false, TEXMEM_ACT_NONE),
           2 + (folds ? 1 + cases[i].pool : 0), what);
  }
}

/* The convolution's own input as the fused operator's operand (selfie's
 * residual around a stride-1 depthwise convolution and its RELU; a 1x1
 * one's input subtracted): one binding, read as the convolution reads it;
 * bit for bit, as first and as second operator, batch 2, 5 channels. */
Test(rt_fusion, own_input_as_operand) {
  for (int c = 0; c < 3; c++) {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, c == 2 ? 2 : 1, 7, 6, c == 2 ? 5 : 8), y;
    if (c == 0) {
      int32_t t = conv(&b, x, 1, 1, 8, 0, TEXMEM_ACT_NONE);
      y = ew(&b, TEXMEM_OP_SUB, t, x, false, TEXMEM_ACT_NONE);
    } else {
      int32_t t = conv(&b, x, 3, 1, 0, 1, TEXMEM_ACT_NONE);
      t = ew(&b, TEXMEM_OP_RELU, t, UNARY, false, TEXMEM_ACT_NONE);
      y = ew(&b, TEXMEM_OP_ADD, x, t, false, TEXMEM_ACT_NONE);
    }
    static const char *const what[] = {"1x1 - x", "x + relu(dw 3x3)",
                                       "x + relu(dw 3x3), batch 2, 5 channels"};
    finish(&b, y, c == 0 ? 1 + COPY : 2, what[c]);
  }
}


typedef struct sq_case {
  int32_t batch, h, w, c, mid, cout;
  int pool;               /* global_pool's kind */
  texmem_activation pact; /* the pool's activation */
  texmem_activation act1; /* the first convolution's (mid 0: none) */
  texmem_op_type unary;   /* fused after it (TEXMEM_OP_ADD: none) */
  uint32_t split;         /* conv1x1_split */
  int read;               /* also a graph output: 1 the pool's, 2 the first convolution's */
  size_t fused;           /* operators fused, besides the output's copy */
  bool tail;              /* a MUL and an ADD of constants after the second, not its LOGISTIC */
  int add;                /* the pool's input an ADD of two inputs (2: also a graph output) */
  float scale;            /* the pool's input x times this scalar first (0: not) */
} sq_case;

/* Squeeze-and-excitation's squeeze (a global pool, a 1x1 convolution and
 * its unary operator, a 1x1 convolution and its LOGISTIC) with the tiled
 * kernels: pool, first convolution and its operator run in the second
 * one's dispatch (or, the first's output read twice, the pool in the
 * first's), bit for bit; the second's two fused operators with constants
 * too (15 of a kernel's 16 uniforms); an ADD making the pool's input is
 * read through (not when its output is read twice). */
static void check_squeeze(const sq_case *sq) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, sq->batch, sq->h, sq->w, sq->c);
  if (sq->add) {
    x = ew(&b, TEXMEM_OP_ADD, x, input(&b, sq->batch, sq->h, sq->w, sq->c), false,
           sq->pool == 2 ? TEXMEM_ACT_NONE : TEXMEM_ACT_RELU6);
    if (sq->add == 2) rt_mb_output(&b, x);
  }
  if (sq->scale != 0.0f) {
    const int32_t one = 1;
    x = ew(&b, TEXMEM_OP_MUL, x, constant(&b, 1, &one, sq->scale, sq->scale), false,
           TEXMEM_ACT_NONE);
  }
  int32_t p = global_pool(&b, x, sq->pool, sq->pact), t = p;
  if (sq->mid) {
    t = conv(&b, t, 1, 1, sq->mid, 0, sq->act1);
    if (sq->unary != TEXMEM_OP_ADD) t = ew(&b, sq->unary, t, UNARY, false, TEXMEM_ACT_NONE);
  }
  int32_t s = conv(&b, t, 1, 1, sq->cout, 0, TEXMEM_ACT_NONE);
  if (sq->tail) {
    const int32_t one[4] = {1, 1, 1, 1}, row[4] = {1, 1, 1, sq->cout};
    s = ew(&b, TEXMEM_OP_MUL, s, constant(&b, 4, row, 0.5f, 1.5f), false, TEXMEM_ACT_NONE);
    s = ew(&b, TEXMEM_OP_ADD, s, constant(&b, 4, one, -0.5f, 0.5f), true, TEXMEM_ACT_RELU6);
  } else {
    s = ew(&b, TEXMEM_OP_LOGISTIC, s, UNARY, false, TEXMEM_ACT_NONE);
  }
  if (sq->read) rt_mb_output(&b, sq->read == 1 ? p : t);
  char what[160];
  snprintf(what, sizeof what, "squeeze %dx%dx%dx%d pool %d -> %d (%s) -> %d, split %u, read %d, "
           "add %d, x %g", sq->batch, sq->h, sq->w, sq->c, sq->pool, sq->mid,
           sq->unary != TEXMEM_OP_ADD ? texmem_op_type_name(sq->unary) : "-", sq->cout, sq->split,
           sq->read, sq->add, (double)sq->scale);
  g_tiled_only = true;
  g_split = sq->split;
  finish(&b, s, COPY + sq->fused, what);
  g_tiled_only = false;
  g_split = 0;
}

Test(rt_fusion, squeeze_folded) {
  const texmem_op_type R = TEXMEM_OP_RELU, H = TEXMEM_OP_HARD_SWISH, N = TEXMEM_OP_ADD;
  const texmem_activation A0 = TEXMEM_ACT_NONE, A6 = TEXMEM_ACT_RELU6, AT = TEXMEM_ACT_TANH;
  const sq_case cases[] = {
      {1, 16, 16, 96, 24, 96, 0, A0, A0, R, 0, 0, 4, false, 0, 0},  /* the selfie models' blocks */
      {2, 5, 7, 13, 5, 13, 1, A6, A6, H, 0, 0, 4, false, 0, 0},     /* batch 2, padded lanes, max */
      {1, 9, 7, 24, 8, 24, 2, A0, A0, N, 0, 0, 3, false, 0, 0},     /* MEAN, no unary operator */
      {1, 16, 16, 32, 0, 128, 0, AT, A0, N, 0, 0, 2, false, 0, 0},  /* one convolution */
      {1, 40, 33, 16, 8, 16, 0, A0, AT, R, 0, 0, 4, false, 0, 0},   /* 1320 texels a slice */
      {1, 64, 64, 16, 8, 16, 0, A0, A0, R, 0, 0, 4, false, 0, 0},   /* a pool of 256 invocations */
      {1, 100, 90, 24, 8, 24, 1, A0, A0, R, 0, 0, 5, false, 1, 0},  /* of 512, under an ADD */
      {1, 3, 4, 512, 128, 128, 1, A0, A0, R, 0, 0, 4, false, 0, 0}, /* 128 (group, part) pairs */
      {2, 6, 6, 40, 12, 40, 0, A0, A0, R, 16, 0, 4, false, 0, 0},   /* 16 parts, most idle */
      {1, 6, 6, 40, 12, 40, 0, A0, A0, R, 1, 0, 4, false, 0, 0},    /* one part */
      {1, 6, 6, 16, 8, 16, 0, A0, A0, R, 0, 1, 2, false, 0, 0},     /* not folded */
      {1, 6, 6, 16, 8, 16, 0, A0, A0, R, 0, 2, 3, false, 0, 0},     /* the pool into the first */
      {1, 6, 6, 16, 8, 16, 0, A0, A0, N, 0, 2, 2, false, 0, 0},
      {1, 6, 6, 16, 8, 16, 0, A0, A0, R, 0, 0, 4, true, 0, 0},      /* two fused stages */
      {1, 16, 16, 24, 24, 24, 0, A0, A0, R, 0, 0, 5, false, 1, 0},  /* an ADD (RELU6) under it */
      {2, 5, 7, 13, 5, 13, 1, A6, A6, H, 0, 0, 5, false, 1, 0},     /* a max pool, batch 2 */
      {1, 9, 7, 24, 8, 24, 2, A0, A0, N, 0, 0, 4, false, 1, 0},     /* under a MEAN, no act. */
      {1, 6, 6, 16, 8, 16, 0, A0, A0, R, 0, 0, 4, false, 2, 0},     /* not: read twice */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_squeeze(&cases[i]);
}

/* The squeeze pools in work groups of a slice group's share each and the
 * last of a batch to finish, elected by a count that only grows, runs the
 * convolutions: every run of one runtime must elect one, whatever ran
 * before. 24 slices (6 pooling groups of 8 launched), 10 at batch 2 (3 of
 * 4), 4 (one group), 6 at batch 2 on a 70x60 plane (2 shares of 2 slice
 * groups a batch): five runs each, new inputs each time (and the same
 * twice), against an unfused runtime, both precisions. */
Test(rt_fusion, squeeze_runs_again) {
  static const int32_t shapes[][5] = {
      {1, 96, 24, 9, 7}, {2, 40, 12, 9, 7}, {1, 16, 8, 9, 7}, {2, 24, 8, 70, 60}};
  texmem_gl_context *ctx = tg_context();
  for (size_t c = 0; c < 4; c++)
    for (int fp16 = 0; fp16 < 2; fp16++) {
      rt_mb b = rt_mb_new();
      int32_t x = input(&b, shapes[c][0], shapes[c][3], shapes[c][4], shapes[c][1]);
      int32_t t =
          conv(&b, global_pool(&b, x, 0, TEXMEM_ACT_NONE), 1, 1, shapes[c][2], 0, TEXMEM_ACT_RELU);
      t = conv(&b, t, 1, 1, shapes[c][1], 0, TEXMEM_ACT_NONE);
      rt_mb_output(&b, ew(&b, TEXMEM_OP_LOGISTIC, t, UNARY, false, TEXMEM_ACT_NONE));
      TG_OK(texmem_model_set_io(b.m, b.in, b.n_in, b.out, b.n_out, &tg_err_));
      texmem_runtime_desc d = {.precision = fp16 ? TEXMEM_PRECISION_FP16 : TEXMEM_PRECISION_FP32,
                               .kernels = TEXMEM_KERNELS_TILED,
                               .reuse_checker = true},
                          du = d;
      du.unfused = true;
      texmem_runtime *rt = NULL, *ru = NULL;
      TG_OK(texmem_runtime_create(ctx, b.m, &d, &rt, &tg_err_));
      TG_OK(texmem_runtime_create(ctx, b.m, &du, &ru, &tg_err_));
      texmem_runtime_stats st;
      texmem_runtime_get_stats(rt, &st);
      cr_assert_eq(st.fused, 4, "%zu: %zu fused", c, st.fused); /* pool, conv, RELU, LOGISTIC */
      for (uint64_t run = 0; run < 5; run++) {
        size_t n_in;
        float **in = rt_inputs(b.m, run == 3 ? 2 : run + 1, &n_in);
        rt_outputs a = rt_run_once(rt, b.m, in), u = rt_run_once(ru, b.m, in);
        char what[96];
        snprintf(what, sizeof what, "squeeze of %d channels, batch %d, %s, run %llu", shapes[c][1],
                 shapes[c][0], fp16 ? "fp16" : "fp32", (unsigned long long)run);
        rt_assert_identical(&u, &a, what);
        rt_outputs_free(&a);
        rt_outputs_free(&u);
        rt_free_arrays(in, n_in);
      }
      texmem_runtime_destroy(rt);
      texmem_runtime_destroy(ru);
      texmem_model_destroy(b.m);
    }
  texmem_gl_context_destroy(ctx);
}

/* The squeeze's pool must sum in op_reduce_hw.comp's order, invocation
 * count included: the unfused run pools there. In the cases above a
 * plane's mean carries a rounding error far below the biases' ulps, so a
 * squeeze pooling with half or twice the reduction's invocations still
 * passed some of them. Here the pool's input is x times 100 and there are
 * 48-64 channels: with that mutation 24-42 of each case's outputs differ
 * in their last bits (fp32; planes of 128, 256 and 512 invocations). */
Test(rt_fusion, squeeze_sums_in_the_reduction_order) {
  const texmem_op_type R = TEXMEM_OP_RELU, N = TEXMEM_OP_ADD;
  const texmem_activation A0 = TEXMEM_ACT_NONE;
  const sq_case cases[] = {
      {1, 40, 33, 64, 16, 64, 0, A0, A0, R, 0, 0, 4, false, 0, 100.0f},
      {1, 64, 64, 64, 16, 64, 0, A0, A0, R, 0, 0, 4, false, 0, 100.0f},
      {1, 100, 90, 48, 16, 48, 2, A0, A0, N, 0, 0, 3, false, 0, 100.0f},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_squeeze(&cases[i]);
}


/* A unary operator after a transposed convolution runs in its dispatch
 * (the selfie models' LOGISTIC on the upsampled mask), bit for bit; not
 * when the convolution's output is read twice or by a binary one. */
Test(rt_fusion, unary_after_transpose_conv) {
  static const texmem_op_type after[] = {TEXMEM_OP_LOGISTIC, TEXMEM_OP_LOGISTIC,
                                         TEXMEM_OP_TANH,     TEXMEM_OP_RELU,
                                         TEXMEM_OP_HARD_SWISH, TEXMEM_OP_LOGISTIC,
                                         TEXMEM_OP_ADD};
  static const char *const what[] = {"LOGISTIC after MediaPipe's, 1 channel",
                                     "LOGISTIC, batch 2, 6 channels, their MEAN after",
                                     "TANH after the builtin with RELU6",
                                     "RELU after the builtin, 3x3 kernel", "HARD_SWISH",
                                     "read twice", "ADD of a constant"};
  for (int c = 0; c < 7; c++) {
    rt_mb b = rt_mb_new();
    int32_t x = input(&b, c == 1 ? 2 : 1, 5, 6, c == 1 ? 7 : 8);
    bool builtin = c == 2 || c == 3;
    int32_t y = transpose_conv(&b, x, c == 3 ? 3 : 2, c == 1 ? 6 : c == 0 ? 1 : 5, builtin,
                               c == 2 ? TEXMEM_ACT_RELU6 : TEXMEM_ACT_NONE);
    if (c == 5) rt_mb_output(&b, y);
    y = after[c] == TEXMEM_OP_ADD ? ew(&b, TEXMEM_OP_ADD, y, b.zero, false, TEXMEM_ACT_NONE)
                                  : ew(&b, after[c], y, UNARY, false, TEXMEM_ACT_NONE);
    if (c == 1) { /* reads the padding lanes, which must hold 0 */
      const texmem_tensor *t = texmem_model_tensor(b.m, (size_t)y);
      int32_t ms[4] = {(int32_t)t->b, (int32_t)t->h, (int32_t)t->w, 1}, m = rt_mb_tensor(&b, 4, ms);
      texmem_op_options o = texmem_op_options_default();
      o.reduce_axes = 8;
      o.keep_dims = true;
      rt_mb_op(&b, TEXMEM_OP_MEAN, &y, 1, m, &o);
      y = m;
    }
    finish(&b, y, c < 5 ? 1 : 0, what[c]);
  }
}

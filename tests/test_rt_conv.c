/* Convolution kernels through the runtime (CONV_2D incl. the 1x1 path,
 * DEPTHWISE_CONV_2D, FULLY_CONNECTED, MediaPipe's transpose conv) against
 * the CPU reference, under NAIVE and BEST plans, natural and linear
 * layouts, fp32 and fp16.
 *
 * Each op under test reads and writes pool tensors: the graph is
 * x -> identity -> a -> OP -> b -> identity -> y, the identities being a
 * 1x1 CONV_2D (rank 4) or a FULLY_CONNECTED keeping dims (other ranks)
 * with identity weights, exact in both precisions.
 *
 * Tolerances: fp32 |gpu - ref| <= 1e-4 |ref| + 1e-5 (ref accumulates in
 * double). fp16: inputs are multiples of 1/256 in [-2, 2] (exact in fp16)
 * and the kernels accumulate in fp32, so the error is the rounding of the
 * op's output to fp16 (at most 1 ulp = 2^-10 relative seen on llvmpipe):
 * |gpu - ref| <= 2e-3 |ref| + 1e-3 max(max |ref|, 1). */
#include <math.h>
#include <stdio.h>

#include "gl_support.h"
#include "kernels_conv_common.h"
#include "reference.h"
#include "texmem/runtime.h"

/* ---- deterministic values ---- */
static uint32_t rng_next(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}
/* Weights: uniform in [-a, a]. */
static float rng_weight(uint32_t *s, float a) {
  return ((float)(rng_next(s) % 20001) / 10000.0f - 1.0f) * a;
}
/* Inputs: k/256 in [-2, 2]: exact in fp16. */
static float rng_input(uint32_t *s) { return (float)((int)(rng_next(s) % 1025) - 512) / 256.0f; }

/* ---- graph building ---- */
typedef struct graph {
  texmem_model *m;
  uint32_t seed;
} graph;

static graph graph_new(void) {
  graph g = {NULL, 12345u};
  texmem_error err = {0};
  cr_assert_eq(texmem_model_create(&g.m, &err), TEXMEM_STATUS_OK);
  return g;
}

static int32_t add_tensor(graph *g, unsigned rank, const int32_t *shape) {
  int32_t idx = -1;
  texmem_error err = {0};
  cr_assert_eq(texmem_model_add_tensor(g->m, NULL, TEXMEM_DTYPE_FLOAT32, rank, shape, &idx, &err),
               TEXMEM_STATUS_OK, "%s", err.message);
  return idx;
}

static int32_t add_const(graph *g, unsigned rank, const int32_t *shape, const float *data) {
  size_t n = 1;
  for (unsigned i = 0; i < rank; i++) n *= (size_t)shape[i];
  int32_t idx = -1;
  texmem_error err = {0};
  cr_assert_eq(texmem_model_add_constant(g->m, NULL, TEXMEM_DTYPE_FLOAT32, rank, shape, data,
                                         n * sizeof(float), &idx, &err),
               TEXMEM_STATUS_OK, "%s", err.message);
  return idx;
}

/* A constant of random weights scaled by 1/sqrt(fan_in). */
static int32_t add_weights(graph *g, unsigned rank, const int32_t *shape, int32_t fan_in) {
  size_t n = 1;
  for (unsigned i = 0; i < rank; i++) n *= (size_t)shape[i];
  float *d = malloc(n * sizeof *d);
  cr_assert_not_null(d);
  float a = 1.5f / sqrtf((float)(fan_in > 0 ? fan_in : 1));
  for (size_t i = 0; i < n; i++) d[i] = rng_weight(&g->seed, a);
  int32_t idx = add_const(g, rank, shape, d);
  free(d);
  return idx;
}

static int32_t add_bias(graph *g, int32_t n) {
  float *d = malloc((size_t)n * sizeof *d);
  cr_assert_not_null(d);
  for (int32_t i = 0; i < n; i++) d[i] = rng_weight(&g->seed, 0.5f);
  int32_t idx = add_const(g, 1, &n, d);
  free(d);
  return idx;
}

static void add_op(graph *g, texmem_op_type t, const int32_t *in, size_t n_in, int32_t out,
                   const texmem_op_options *o) {
  texmem_error err = {0};
  cr_assert_eq(texmem_model_add_op(g->m, t, in, n_in, &out, 1, o, NULL, &err), TEXMEM_STATUS_OK,
               "%s", err.message);
}

/* y = x through an identity op (a new tensor of x's shape). */
static int32_t identity(graph *g, int32_t x) {
  const texmem_tensor *t = texmem_model_tensor(g->m, (size_t)x);
  unsigned rank = t->rank;
  int32_t shape[TEXMEM_MAX_RANK];
  memcpy(shape, t->shape, sizeof shape);
  int32_t c = shape[rank - 1];
  float *eye = calloc((size_t)c * c, sizeof *eye);
  cr_assert_not_null(eye);
  for (int32_t i = 0; i < c; i++) eye[(size_t)i * c + i] = 1.0f;
  int32_t w, y = add_tensor(g, rank, shape);
  texmem_op_options o = texmem_op_options_default();
  if (rank == 4) {
    int32_t ws[4] = {c, 1, 1, c};
    w = add_const(g, 4, ws, eye);
    int32_t in[2] = {x, w};
    add_op(g, TEXMEM_OP_CONV_2D, in, 2, y, &o);
  } else {
    int32_t ws[2] = {c, c};
    w = add_const(g, 2, ws, eye);
    o.keep_dims = true;
    int32_t in[3] = {x, w, -1};
    add_op(g, TEXMEM_OP_FULLY_CONNECTED, in, 3, y, &o);
  }
  free(eye);
  return y;
}

/* ---- running and checking ---- */
enum { F_NAIVE = 1, F_BEST = 2, F_NATURAL = 4, F_LINEAR = 8, F_FP32 = 16, F_FP16 = 32 };
#define ALL_CONFIGS (F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32 | F_FP16)

static texmem_gl_context *g_ctx;
/* Batch of the conv, depthwise and transpose conv cases (each test runs
 * in its own process; the batch tests set 2). */
static int32_t g_batch = 1;
/* The 1x1 convolution kernels (AUTO: the portable ones on llvmpipe; the
 * tiled tests set TILED, which runs on any GL). */
static texmem_kernels g_kernels = TEXMEM_KERNELS_AUTO;
/* texmem_runtime_desc.conv1x1_split of every case (0: per layer). */
static uint32_t g_split = 0;

/* Runs the model in every configuration of `configs` (a config runs if
 * its strategy, layout and precision bits are all set) and compares the
 * graph output with the CPU reference. Returns the configurations run. */
static int run_and_check(texmem_model *m, const char *what, int configs) {
  size_t n_in = 0, n_out = 0;
  const int32_t *ins = texmem_model_inputs(m, &n_in);
  const int32_t *outs = texmem_model_outputs(m, &n_out);
  cr_assert_eq(n_in, 1);
  cr_assert_eq(n_out, 1);
  const texmem_tensor *xt = texmem_model_tensor(m, (size_t)ins[0]);
  size_t nx = (size_t)xt->b * xt->h * xt->w * xt->c;
  float *x = malloc(nx * sizeof *x);
  cr_assert_not_null(x);
  uint32_t seed = 777u;
  for (size_t i = 0; i < nx; i++) x[i] = rng_input(&seed);
  texmem_error err = {0};
  texmem_ref_result *ref = NULL;
  const float *inputs[1] = {x};
  cr_assert_eq(texmem_ref_run(m, inputs, 1, &ref, &err), TEXMEM_STATUS_OK, "%s: reference: %s",
               what, err.message);
  size_t ny = ref->counts[outs[0]];
  const float *want = ref->values[outs[0]];
  double max_ref = 0.0;
  for (size_t i = 0; i < ny; i++) max_ref = fmax(max_ref, fabs(want[i]));
  float *got = malloc((ny ? ny : 1) * sizeof *got);
  cr_assert_not_null(got);
  int ran = 0;
  for (int si = 0; si < 2; si++)
    for (int li = 0; li < 2; li++)
      for (int pi = 0; pi < 2; pi++) {
        int f = (si ? F_BEST : F_NAIVE) | (li ? F_LINEAR : F_NATURAL) | (pi ? F_FP16 : F_FP32);
        if ((f & configs) != f) continue;
        texmem_runtime_desc d = {.strategy = si ? TEXMEM_STRATEGY_BEST : TEXMEM_STRATEGY_NAIVE,
                                 .layout = li ? TEXMEM_LAYOUT_LINEAR : TEXMEM_LAYOUT_NATURAL,
                                 .precision = pi ? TEXMEM_PRECISION_FP16 : TEXMEM_PRECISION_FP32,
                                 .reuse_checker = true,
                                 .kernels = g_kernels,
                                 .conv1x1_split = g_split};
        const char *cfg_name[3] = {si ? "BEST" : "NAIVE", li ? "linear" : "natural",
                                   pi ? "fp16" : "fp32"};
        texmem_runtime *rt = NULL;
        cr_assert_eq(texmem_runtime_create(g_ctx, m, &d, &rt, &err), TEXMEM_STATUS_OK,
                     "%s %s/%s/%s: create: %s", what, cfg_name[0], cfg_name[1], cfg_name[2],
                     err.message);
        cr_assert_eq(texmem_runtime_input_size(rt, 0), nx);
        cr_assert_eq(texmem_runtime_output_size(rt, 0), ny);
        if (g_split) { /* every 1x1 layer (the identities too) took it */
          texmem_runtime_stats st;
          texmem_runtime_get_stats(rt, &st);
          cr_assert_eq(st.conv1x1_splits, g_split, "%s: splits 0x%x", what,
                       (unsigned)st.conv1x1_splits);
        }
        cr_assert_eq(texmem_runtime_set_input(rt, 0, x, &err), TEXMEM_STATUS_OK, "%s",
                     err.message);
        /* Twice: the second run finds the textures holding the first's data. */
        for (int rep = 0; rep < 2; rep++) {
          for (size_t i = 0; i < ny; i++) got[i] = NAN;
          cr_assert_eq(texmem_runtime_run(rt, &err), TEXMEM_STATUS_OK, "%s: run: %s", what,
                       err.message);
          cr_assert_eq(texmem_runtime_get_output(rt, 0, got, &err), TEXMEM_STATUS_OK, "%s",
                       err.message);
          for (size_t i = 0; i < ny; i++) {
            double tol = pi ? 2e-3 * fabs(want[i]) + 1e-3 * fmax(max_ref, 1.0)
                            : 1e-4 * fabs(want[i]) + 1e-5;
            cr_assert(fabs((double)got[i] - want[i]) <= tol,
                      "%s %s/%s/%s: output[%zu] = %.7g, reference %.7g (tolerance %.3g)", what,
                      cfg_name[0], cfg_name[1], cfg_name[2], i, got[i], want[i], tol);
          }
        }
        texmem_runtime_destroy(rt);
        ran++;
      }
  free(got);
  free(x);
  texmem_ref_result_destroy(ref);
  return ran;
}

static void setup(void) { g_ctx = tg_context(); }
static void teardown(void) {
  texmem_gl_context_destroy(g_ctx);
  g_ctx = NULL;
}

TestSuite(rt_conv, .init = setup, .fini = teardown, .timeout = 300);

/* ---- CONV_2D ---- */
typedef struct conv_case {
  int32_t h, w, cin, cout, kh, kw, stride_w, stride_h, dilation;
  texmem_padding pad;
  texmem_activation act;
  bool bias;
} conv_case;

static int32_t out_dim(texmem_padding p, int32_t in, int32_t k, int32_t s, int32_t d) {
  return texmem_ref_out_size(p, in, k, s, d);
}

static texmem_model *conv_model(const conv_case *c) {
  graph g = graph_new();
  int32_t xs[4] = {g_batch, c->h, c->w, c->cin};
  int32_t x = add_tensor(&g, 4, xs);
  int32_t a = identity(&g, x);
  int32_t ws[4] = {c->cout, c->kh, c->kw, c->cin};
  int32_t w = add_weights(&g, 4, ws, c->kh * c->kw * c->cin);
  int32_t bias = c->bias ? add_bias(&g, c->cout) : -1;
  int32_t ys[4] = {g_batch, out_dim(c->pad, c->h, c->kh, c->stride_h, c->dilation),
                   out_dim(c->pad, c->w, c->kw, c->stride_w, c->dilation), c->cout};
  cr_assert(ys[1] > 0 && ys[2] > 0, "test case does not fit");
  int32_t b = add_tensor(&g, 4, ys);
  texmem_op_options o = texmem_op_options_default();
  o.padding = c->pad;
  o.stride_w = c->stride_w;
  o.stride_h = c->stride_h;
  o.dilation_w = o.dilation_h = c->dilation;
  o.activation = c->act;
  int32_t in[3] = {a, w, bias};
  add_op(&g, TEXMEM_OP_CONV_2D, in, 3, b, &o);
  int32_t y = identity(&g, b);
  texmem_error err = {0};
  cr_assert_eq(texmem_model_set_io(g.m, &x, 1, &y, 1, &err), TEXMEM_STATUS_OK);
  return g.m;
}

static void check_conv(const conv_case *c, int configs) {
  char what[160];
  snprintf(what, sizeof what, "CONV_2D %dx%dx%d -> %d k%dx%d s%dx%d d%d %s act%d%s", c->h, c->w,
           c->cin, c->cout, c->kh, c->kw, c->stride_w, c->stride_h, c->dilation,
           c->pad == TEXMEM_PADDING_SAME ? "SAME" : "VALID", (int)c->act,
           c->bias ? " bias" : "");
  texmem_model *m = conv_model(c);
  cr_assert_gt(run_and_check(m, what, configs), 0);
  texmem_model_destroy(m);
}

#define SAME TEXMEM_PADDING_SAME
#define VALID TEXMEM_PADDING_VALID

Test(rt_conv, conv_1x1_all_configs) {
  check_conv(&(conv_case){6, 7, 8, 12, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_NONE, true}, ALL_CONFIGS);
}

Test(rt_conv, conv_1x1_odd_channels) {
  /* 3 -> 5 and 7 -> 13: padded input lanes and a partly used last slice;
   * 13 -> 7 too (a group of 4 slices only partly real). */
  check_conv(&(conv_case){7, 5, 3, 5, 1, 1, 1, 1, 1, VALID, TEXMEM_ACT_NONE, true}, ALL_CONFIGS);
  check_conv(&(conv_case){7, 5, 7, 13, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_RELU, false},
             F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32);
  check_conv(&(conv_case){5, 9, 13, 7, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_NONE, true},
             F_BEST | F_LINEAR | F_FP16);
}

Test(rt_conv, conv_1x1_wide_and_strided) {
  /* 24 -> 40 channels: 10 output slices = groups of 4, 4, 2; stride 2. */
  check_conv(&(conv_case){9, 11, 24, 40, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_RELU6, true},
             F_NAIVE | F_BEST | F_NATURAL | F_FP32 | F_FP16);
  check_conv(&(conv_case){9, 11, 8, 4, 1, 1, 2, 2, 1, SAME, TEXMEM_ACT_NONE, true},
             F_NAIVE | F_NATURAL | F_LINEAR | F_FP32);
  check_conv(&(conv_case){9, 11, 8, 4, 1, 1, 2, 3, 1, VALID, TEXMEM_ACT_NONE, false},
             F_BEST | F_LINEAR | F_FP32);
}

Test(rt_conv, conv_3x3_stride_1_and_2) {
  check_conv(&(conv_case){7, 5, 3, 5, 3, 3, 1, 1, 1, SAME, TEXMEM_ACT_NONE, true}, ALL_CONFIGS);
  check_conv(&(conv_case){7, 5, 3, 5, 3, 3, 1, 1, 1, VALID, TEXMEM_ACT_NONE, true},
             F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32);
  check_conv(&(conv_case){9, 10, 7, 13, 3, 3, 2, 2, 1, SAME, TEXMEM_ACT_RELU6, true},
             F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32);
  check_conv(&(conv_case){9, 10, 7, 13, 3, 3, 2, 2, 1, VALID, TEXMEM_ACT_RELU, false},
             F_BEST | F_NATURAL | F_LINEAR | F_FP16);
  /* Even input, stride 2, SAME: the extra padding element goes after. */
  check_conv(&(conv_case){8, 8, 4, 8, 3, 3, 2, 2, 1, SAME, TEXMEM_ACT_NONE, true},
             F_NAIVE | F_NATURAL | F_FP32);
}

Test(rt_conv, conv_dilated_and_rectangular) {
  check_conv(&(conv_case){9, 11, 7, 13, 3, 3, 1, 1, 2, SAME, TEXMEM_ACT_NONE, true},
             F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32);
  check_conv(&(conv_case){9, 11, 5, 6, 3, 3, 1, 1, 2, VALID, TEXMEM_ACT_NONE, true},
             F_BEST | F_LINEAR | F_FP16);
  /* 5x3 kernel, strides 1x2, 4x4 kernel. */
  check_conv(&(conv_case){10, 7, 4, 4, 5, 3, 1, 2, 1, SAME, TEXMEM_ACT_NONE, true},
             F_NAIVE | F_NATURAL | F_LINEAR | F_FP32);
  check_conv(&(conv_case){10, 7, 4, 4, 4, 4, 2, 2, 1, SAME, TEXMEM_ACT_NONE, false},
             F_NAIVE | F_NATURAL | F_FP32);
}

Test(rt_conv, conv_width_one_and_tiny) {
  check_conv(&(conv_case){9, 1, 5, 6, 3, 3, 1, 1, 1, SAME, TEXMEM_ACT_NONE, true},
             F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32);
  check_conv(&(conv_case){9, 1, 5, 6, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_NONE, true},
             F_NAIVE | F_LINEAR | F_FP32 | F_FP16);
  check_conv(&(conv_case){1, 1, 4, 9, 3, 3, 2, 2, 1, SAME, TEXMEM_ACT_RELU6, true},
             F_NAIVE | F_NATURAL | F_FP32);
  /* Kernel as large as the input, VALID: a 1x1 output. */
  check_conv(&(conv_case){3, 3, 6, 3, 3, 3, 1, 1, 1, VALID, TEXMEM_ACT_NONE, true},
             F_NAIVE | F_NATURAL | F_FP32);
}

Test(rt_conv, conv_fused_activations) {
  static const texmem_activation acts[] = {TEXMEM_ACT_NONE, TEXMEM_ACT_RELU, TEXMEM_ACT_RELU6,
                                           TEXMEM_ACT_RELU_N1_TO_1, TEXMEM_ACT_TANH};
  for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
    check_conv(&(conv_case){5, 6, 6, 7, 3, 3, 1, 1, 1, SAME, acts[i], true},
               F_NAIVE | F_NATURAL | F_FP32);
    check_conv(&(conv_case){5, 6, 6, 7, 1, 1, 1, 1, 1, SAME, acts[i], true},
               F_BEST | F_LINEAR | F_FP32);
  }
}

/* MobileNet v2's shapes at a small scale: 1x1 expand, 3x3 s2 stem. */
Test(rt_conv, conv_mobilenet_like) {
  check_conv(&(conv_case){14, 14, 24, 144, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_RELU6, true},
             F_BEST | F_NATURAL | F_LINEAR | F_FP16);
  check_conv(&(conv_case){14, 14, 144, 24, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_NONE, true},
             F_BEST | F_NATURAL | F_FP32 | F_FP16);
  check_conv(&(conv_case){32, 32, 3, 32, 3, 3, 2, 2, 1, SAME, TEXMEM_ACT_RELU6, true},
             F_NAIVE | F_BEST | F_NATURAL | F_FP32 | F_FP16);
}

/* The tile kernels_conv.c picks for a 1x1 convolution over `pixels`
 * output pixels from `cin` to `cout` channels, as (pixels a tile / 4,
 * parts splitting the input slices). */
static void expect_tile(uint64_t pixels, uint32_t cin, uint32_t cout, uint32_t pq, uint32_t ks) {
  uint32_t groups4 = ((cout + 3) / 4 + 3) / 4, chunks = ((cin + 3) / 4 + 3) / 4;
  texmem__conv_tile t = texmem__conv1x1_tile(pixels, groups4, chunks, 0);
  cr_assert(t.pq == pq && t.sg == 4 && t.ks == ks,
            "%llu pixels, %u -> %u channels: tile %u x %u x %u, expected %u x 4 x %u",
            (unsigned long long)pixels, cin, cout, t.pq, t.sg, t.ks, pq, ks);
}

/* The rule: the largest tile that gives 256 work groups, else the
 * smallest whose parts each have a chunk of 4 input slices. MobileNet v2's
 * late layers (14x14 and 7x7) take the split tiles. */
Test(rt_conv, conv_1x1_tile_choice) {
  expect_tile(112 * 112, 32, 96, 16, 1);
  expect_tile(112 * 112, 32, 16, 8, 2);
  expect_tile(128 * 128, 9, 16, 16, 1);
  expect_tile(100 * 100, 20, 13, 8, 2);
  expect_tile(14 * 14, 96, 576, 4, 4);
  expect_tile(14 * 14, 576, 96, 1, 16);
  expect_tile(7 * 7, 160, 960, 2, 8);
  expect_tile(7 * 7, 960, 160, 1, 16);
  expect_tile(6 * 7, 8, 12, 16, 1);  /* one chunk: no split */
  expect_tile(6 * 7, 52, 12, 4, 4);  /* 4 chunks: 4 parts at most */
  expect_tile(5 * 9, 120, 70, 2, 8); /* 8 chunks */
  expect_tile(7 * 7, 250, 70, 1, 16);
}

/* The tiled 1x1 kernel (op_conv1x1_tiled.comp), forced on llvmpipe, in
 * each of its tiles (conv_1x1_tile_choice says which each case takes).
 * Cases: padded lanes, output slices past a tile, input slices past a
 * chunk of 4, strides, activations; the identities around the op are
 * tiled 1x1 convs too. */
Test(rt_conv, conv_1x1_tiled_small_tiles) {
  g_kernels = TEXMEM_KERNELS_TILED;
  check_conv(&(conv_case){6, 7, 8, 12, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_NONE, true}, ALL_CONFIGS);
  check_conv(&(conv_case){7, 5, 3, 5, 1, 1, 1, 1, 1, VALID, TEXMEM_ACT_RELU, true},
             F_NAIVE | F_BEST | F_LINEAR | F_FP32 | F_FP16);
  check_conv(&(conv_case){5, 9, 21, 70, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_RELU6, true},
             F_BEST | F_NATURAL | F_FP32 | F_FP16);
  check_conv(&(conv_case){9, 11, 36, 4, 1, 1, 2, 3, 1, VALID, TEXMEM_ACT_TANH, false},
             F_NAIVE | F_NATURAL | F_LINEAR | F_FP32);
}

/* The tiles that split the input slices 4, 8 and 16 ways (partial sums
 * added through shared memory), with input slices past the last whole
 * chunk and parts left without a chunk in the last round. */
Test(rt_conv, conv_1x1_tiled_split_tiles) {
  g_kernels = TEXMEM_KERNELS_TILED;
  check_conv(&(conv_case){6, 7, 52, 12, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_RELU6, true}, ALL_CONFIGS);
  check_conv(&(conv_case){5, 9, 120, 70, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_NONE, true},
             F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32 | F_FP16);
  check_conv(&(conv_case){7, 7, 250, 70, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_RELU, false},
             F_NAIVE | F_BEST | F_NATURAL | F_FP32 | F_FP16);
}

/* Outputs large enough for the larger tiles: 100x100 pixels take 32
 * pixels x 16 slices split 2 ways, 128x128 64 pixels x 16 slices, unsplit. */
Test(rt_conv, conv_1x1_tiled_large_tiles) {
  g_kernels = TEXMEM_KERNELS_TILED;
  check_conv(&(conv_case){100, 100, 20, 13, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_NONE, true},
             F_BEST | F_NATURAL | F_LINEAR | F_FP32 | F_FP16);
  check_conv(&(conv_case){128, 128, 9, 16, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_RELU6, true},
             F_NAIVE | F_BEST | F_NATURAL | F_FP32 | F_FP16);
}

/* The unsplit 64-pixel tile with binary16 weights stages each chunk's
 * weights in shared memory: 3 chunks (the last partial) and 5 slice
 * groups (a second tile of groups, mostly past the last). */
Test(rt_conv, conv_1x1_tiled_staged_weights) {
  g_kernels = TEXMEM_KERNELS_TILED;
  expect_tile(128 * 128, 40, 70, 16, 1);
  check_conv(&(conv_case){128, 128, 40, 70, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_RELU, true},
             F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP16);
  check_conv(&(conv_case){128, 128, 40, 70, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_NONE, false},
             F_BEST | F_NATURAL | F_FP32);
}

/* conv1x1_split forces one tile in every layer, whatever its size: each
 * split against the CPU reference, with fewer chunks than parts (16 parts
 * over 4 chunks: 12 parts idle) and more (a part walks several). The
 * stats say every layer took it. */
Test(rt_conv, conv_1x1_tiled_forced_split) {
  g_kernels = TEXMEM_KERNELS_TILED;
  for (uint32_t k = 1; k <= 16; k *= 2) {
    texmem__conv_tile t = texmem__conv1x1_tile(128 * 128, 4, 1, k);
    cr_assert(t.ks == k && t.pq * k == 16 && t.sg == 4, "split %u: %u x %u x %u", k, t.pq, t.sg,
              t.ks);
    g_split = k;
    check_conv(&(conv_case){6, 7, 52, 12, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_RELU6, true},
               F_NAIVE | F_BEST | F_NATURAL | F_FP32 | F_FP16);
    check_conv(&(conv_case){9, 5, 150, 20, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_NONE, false},
               F_BEST | F_LINEAR | F_FP16);
  }
  g_split = 0;
}

/* ---- DEPTHWISE_CONV_2D ---- */
typedef struct dw_case {
  int32_t h, w, c, mult, k, stride, dilation;
  texmem_padding pad;
  texmem_activation act;
  bool bias;
} dw_case;

static void check_dw(const dw_case *c, int configs) {
  graph g = graph_new();
  int32_t xs[4] = {g_batch, c->h, c->w, c->c};
  int32_t x = add_tensor(&g, 4, xs);
  int32_t a = identity(&g, x);
  int32_t oc = c->c * c->mult;
  int32_t ws[4] = {1, c->k, c->k, oc};
  int32_t w = add_weights(&g, 4, ws, c->k * c->k);
  int32_t bias = c->bias ? add_bias(&g, oc) : -1;
  int32_t ys[4] = {g_batch, out_dim(c->pad, c->h, c->k, c->stride, c->dilation),
                   out_dim(c->pad, c->w, c->k, c->stride, c->dilation), oc};
  cr_assert(ys[1] > 0 && ys[2] > 0, "test case does not fit");
  int32_t b = add_tensor(&g, 4, ys);
  texmem_op_options o = texmem_op_options_default();
  o.padding = c->pad;
  o.stride_w = o.stride_h = c->stride;
  o.dilation_w = o.dilation_h = c->dilation;
  o.depth_multiplier = c->mult;
  o.activation = c->act;
  int32_t in[3] = {a, w, bias};
  add_op(&g, TEXMEM_OP_DEPTHWISE_CONV_2D, in, 3, b, &o);
  int32_t y = identity(&g, b);
  texmem_error err = {0};
  cr_assert_eq(texmem_model_set_io(g.m, &x, 1, &y, 1, &err), TEXMEM_STATUS_OK);
  char what[160];
  snprintf(what, sizeof what, "DEPTHWISE %dx%dx%d x%d k%d s%d d%d %s act%d%s", c->h, c->w, c->c,
           c->mult, c->k, c->stride, c->dilation, c->pad == SAME ? "SAME" : "VALID", (int)c->act,
           c->bias ? " bias" : "");
  cr_assert_gt(run_and_check(g.m, what, configs), 0);
  texmem_model_destroy(g.m);
}

Test(rt_conv, depthwise_3x3_s1_s2_odd_channels) {
  check_dw(&(dw_case){7, 5, 7, 1, 3, 1, 1, SAME, TEXMEM_ACT_NONE, true}, ALL_CONFIGS);
  check_dw(&(dw_case){7, 5, 7, 1, 3, 2, 1, SAME, TEXMEM_ACT_RELU6, true},
           F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32);
  check_dw(&(dw_case){8, 9, 13, 1, 3, 2, 1, VALID, TEXMEM_ACT_RELU, false},
           F_BEST | F_NATURAL | F_LINEAR | F_FP16);
  check_dw(&(dw_case){8, 8, 16, 1, 3, 2, 1, SAME, TEXMEM_ACT_NONE, true},
           F_NAIVE | F_NATURAL | F_FP32);
  /* Stride 3: the general kernel (op_depthwise3x3.comp compiles strides 1
   * and 2 in); rows and columns past both borders. */
  check_dw(&(dw_case){10, 11, 5, 1, 3, 3, 1, SAME, TEXMEM_ACT_NONE, true},
           F_NAIVE | F_BEST | F_NATURAL | F_FP32 | F_FP16);
  check_dw(&(dw_case){2, 3, 4, 1, 3, 1, 1, SAME, TEXMEM_ACT_NONE, true},
           F_NAIVE | F_NATURAL | F_FP32 | F_FP16);
}

Test(rt_conv, depthwise_dilated_large_kernel_width_one) {
  check_dw(&(dw_case){9, 11, 6, 1, 3, 1, 2, SAME, TEXMEM_ACT_NONE, true},
           F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32);
  check_dw(&(dw_case){9, 11, 6, 1, 5, 1, 1, SAME, TEXMEM_ACT_RELU_N1_TO_1, true},
           F_NAIVE | F_NATURAL | F_FP32);
  check_dw(&(dw_case){9, 1, 3, 1, 3, 1, 1, SAME, TEXMEM_ACT_NONE, true},
           F_NAIVE | F_LINEAR | F_FP32 | F_FP16);
}

Test(rt_conv, depthwise_multiplier) {
  check_dw(&(dw_case){5, 6, 3, 3, 3, 1, 1, VALID, TEXMEM_ACT_NONE, true},
           F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32);
  check_dw(&(dw_case){6, 6, 1, 8, 3, 2, 1, SAME, TEXMEM_ACT_RELU, true},
           F_NAIVE | F_NATURAL | F_FP32 | F_FP16);
  check_dw(&(dw_case){5, 5, 5, 2, 3, 1, 1, SAME, TEXMEM_ACT_NONE, false},
           F_BEST | F_LINEAR | F_FP32);
}

Test(rt_conv, depthwise_fused_activations) {
  static const texmem_activation acts[] = {TEXMEM_ACT_NONE, TEXMEM_ACT_RELU, TEXMEM_ACT_RELU6,
                                           TEXMEM_ACT_RELU_N1_TO_1, TEXMEM_ACT_TANH};
  for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
    check_dw(&(dw_case){5, 6, 6, 1, 3, 1, 1, SAME, acts[i], true}, F_NAIVE | F_NATURAL | F_FP32);
}

/* ---- FULLY_CONNECTED ---- */
static void check_fc(unsigned rank, const int32_t *xshape, int32_t depth, int32_t n_out,
                     bool keep, bool bias, texmem_activation act, int configs) {
  graph g = graph_new();
  int32_t x = add_tensor(&g, rank, xshape);
  int32_t a = identity(&g, x);
  int32_t ws[2] = {n_out, depth};
  int32_t w = add_weights(&g, 2, ws, depth);
  int32_t bt = bias ? add_bias(&g, n_out) : -1;
  size_t total = 1;
  for (unsigned i = 0; i < rank; i++) total *= (size_t)xshape[i];
  int32_t ys[TEXMEM_MAX_RANK];
  unsigned yrank;
  if (keep) {
    yrank = rank;
    memcpy(ys, xshape, rank * sizeof *ys);
    ys[rank - 1] = n_out;
  } else {
    yrank = 2;
    ys[0] = (int32_t)(total / (size_t)depth);
    ys[1] = n_out;
  }
  int32_t b = add_tensor(&g, yrank, ys);
  texmem_op_options o = texmem_op_options_default();
  o.keep_dims = keep;
  o.activation = act;
  int32_t in[3] = {a, w, bt};
  add_op(&g, TEXMEM_OP_FULLY_CONNECTED, in, 3, b, &o);
  int32_t y = identity(&g, b);
  texmem_error err = {0};
  cr_assert_eq(texmem_model_set_io(g.m, &x, 1, &y, 1, &err), TEXMEM_STATUS_OK);
  char what[160];
  snprintf(what, sizeof what, "FULLY_CONNECTED rank %u (last %d) depth %d -> %d%s%s act%d", rank,
           xshape[rank - 1], depth, n_out, keep ? " keep_num_dims" : "", bias ? " bias" : "",
           (int)act);
  cr_assert_gt(run_and_check(g.m, what, configs), 0);
  texmem_model_destroy(g.m);
}

Test(rt_conv, fc_vector) {
  /* MobileNet's classifier shape, small: [1, C] -> [1, N]. */
  check_fc(2, (int32_t[]){1, 40}, 40, 21, false, true, TEXMEM_ACT_NONE, ALL_CONFIGS);
  check_fc(2, (int32_t[]){1, 7}, 7, 13, false, false, TEXMEM_ACT_RELU,
           F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32);
  check_fc(2, (int32_t[]){1, 5}, 5, 3, true, true, TEXMEM_ACT_RELU6, F_NAIVE | F_NATURAL | F_FP32);
}

Test(rt_conv, fc_rows_keep_num_dims_both_ways) {
  /* keep_num_dims: rows are pixels ([1, 2, 3, 6] and [1, 4, 9] with depth
   * = C). Without it the output is [rows, N]: batch = rows (one row here:
   * [1, 1, 1, 6] -> [1, 5]; batch_2_fc_and_transpose_conv has more). */
  check_fc(4, (int32_t[]){1, 2, 3, 6}, 6, 5, true, true, TEXMEM_ACT_NONE, ALL_CONFIGS);
  check_fc(3, (int32_t[]){1, 4, 9}, 9, 2, true, false, TEXMEM_ACT_RELU,
           F_NAIVE | F_NATURAL | F_LINEAR | F_FP32);
  check_fc(4, (int32_t[]){1, 1, 1, 6}, 6, 5, false, false, TEXMEM_ACT_NONE,
           F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32);
  check_fc(4, (int32_t[]){1, 1, 1, 6}, 6, 5, true, true, TEXMEM_ACT_NONE,
           F_NAIVE | F_NATURAL | F_FP32);
}

Test(rt_conv, fc_flattened_input) {
  /* Rows cut across channels: [1, 3, 4, 5] as one row of 60; [1, 2, 6]
   * as one row of 12. */
  check_fc(4, (int32_t[]){1, 3, 4, 5}, 60, 7, false, true, TEXMEM_ACT_NONE,
           F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32 | F_FP16);
  check_fc(3, (int32_t[]){1, 2, 6}, 12, 6, false, true, TEXMEM_ACT_RELU,
           F_NAIVE | F_NATURAL | F_LINEAR | F_FP32);
}

/* ---- CONV_2D_TRANSPOSE_BIAS ---- */
static void check_tconv(int32_t h, int32_t w, int32_t cin, int32_t cout, int32_t kh, int32_t kw,
                        int32_t sw, int32_t sh, texmem_padding pad, int configs) {
  graph g = graph_new();
  int32_t xs[4] = {g_batch, h, w, cin};
  int32_t x = add_tensor(&g, 4, xs);
  int32_t a = identity(&g, x);
  int32_t ws[4] = {cout, kh, kw, cin};
  int32_t wt = add_weights(&g, 4, ws, kh * kw * cin);
  int32_t bias = add_bias(&g, cout);
  int32_t ph = 0, pw = 0;
  if (pad == SAME) {
    ph = kh - (h - 1) % sh - 1;
    pw = kw - (w - 1) % sw - 1;
    ph = ph > 0 ? ph : 0;
    pw = pw > 0 ? pw : 0;
  }
  int32_t ys[4] = {g_batch, sh * (h - 1) + kh - ph, sw * (w - 1) + kw - pw, cout};
  int32_t b = add_tensor(&g, 4, ys);
  texmem_op_options o = texmem_op_options_default();
  uint8_t opts[12];
  int32_t vals[3] = {pad == SAME ? 1 : 2, sw, sh};
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 4; k++) opts[4 * i + k] = (uint8_t)((uint32_t)vals[i] >> (8 * k));
  o.custom_name = "Convolution2DTransposeBias";
  o.custom_options = opts;
  o.custom_options_size = sizeof opts;
  int32_t in[3] = {a, wt, bias};
  add_op(&g, TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS, in, 3, b, &o);
  int32_t y = identity(&g, b);
  texmem_error err = {0};
  cr_assert_eq(texmem_model_set_io(g.m, &x, 1, &y, 1, &err), TEXMEM_STATUS_OK);
  char what[160];
  snprintf(what, sizeof what, "TRANSPOSE_CONV %dx%dx%d -> %d k%dx%d s%dx%d %s", h, w, cin, cout,
           kh, kw, sw, sh, pad == SAME ? "SAME" : "VALID");
  cr_assert_gt(run_and_check(g.m, what, configs), 0);
  texmem_model_destroy(g.m);
}

Test(rt_conv, transpose_conv_stride_2) {
  check_tconv(5, 7, 6, 5, 3, 3, 2, 2, SAME, ALL_CONFIGS);
  check_tconv(4, 3, 3, 7, 4, 4, 2, 2, VALID, F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32);
  check_tconv(4, 4, 8, 16, 2, 2, 2, 2, SAME, F_NAIVE | F_BEST | F_NATURAL | F_FP32 | F_FP16);
  check_tconv(4, 4, 8, 16, 2, 2, 2, 2, VALID, F_BEST | F_LINEAR | F_FP32);
}

Test(rt_conv, transpose_conv_other_strides) {
  check_tconv(3, 5, 4, 4, 3, 3, 1, 1, SAME, F_NAIVE | F_NATURAL | F_FP32);
  check_tconv(3, 5, 4, 4, 5, 3, 3, 2, VALID, F_NAIVE | F_NATURAL | F_LINEAR | F_FP32);
  check_tconv(1, 6, 5, 3, 3, 3, 2, 2, SAME, F_NAIVE | F_NATURAL | F_FP32);
}

/* ---- TRANSPOSE_CONV (TFLite builtin): output size given, TFLite's
 * padding rule, optional bias, fused activation ---- */
static void check_tconv_builtin(int32_t oh, int32_t ow, int32_t cin, int32_t cout, int32_t kh,
                                int32_t kw, int32_t sw, int32_t sh, texmem_padding pad,
                                bool with_bias, texmem_activation act, int configs) {
  graph g = graph_new();
  /* The input a forward convolution of the output would give. */
  int32_t h = pad == SAME ? (oh + sh - 1) / sh : (oh - kh + sh) / sh;
  int32_t w = pad == SAME ? (ow + sw - 1) / sw : (ow - kw + sw) / sw;
  int32_t xs[4] = {g_batch, h, w, cin};
  int32_t x = add_tensor(&g, 4, xs);
  int32_t a = identity(&g, x);
  int32_t ws[4] = {cout, kh, kw, cin};
  int32_t wt = add_weights(&g, 4, ws, kh * kw * cin);
  int32_t ys[4] = {g_batch, oh, ow, cout}, four = 4, shape = -1;
  texmem_error err = {0};
  cr_assert_eq(texmem_model_add_constant(g.m, "output_shape", TEXMEM_DTYPE_INT32, 1, &four, ys,
                                         sizeof ys, &shape, &err),
               TEXMEM_STATUS_OK, "%s", err.message);
  int32_t b = add_tensor(&g, 4, ys);
  texmem_op_options o = texmem_op_options_default();
  o.padding = pad;
  o.stride_w = sw;
  o.stride_h = sh;
  o.activation = act;
  int32_t in[4] = {shape, wt, a, with_bias ? add_bias(&g, cout) : -1};
  add_op(&g, TEXMEM_OP_TRANSPOSE_CONV, in, with_bias ? 4 : 3, b, &o);
  int32_t y = identity(&g, b);
  cr_assert_eq(texmem_model_set_io(g.m, &x, 1, &y, 1, &err), TEXMEM_STATUS_OK);
  char what[160];
  snprintf(what, sizeof what, "builtin TRANSPOSE_CONV -> %dx%dx%d k%dx%d s%dx%d %s%s act %d", oh, ow,
           cout, kh, kw, sw, sh, pad == SAME ? "SAME" : "VALID", with_bias ? " bias" : "", (int)act);
  cr_assert_gt(run_and_check(g.m, what, configs), 0);
  texmem_model_destroy(g.m);
}

Test(rt_conv, transpose_conv_builtin) {
  check_tconv_builtin(10, 14, 6, 5, 3, 3, 2, 2, SAME, true, TEXMEM_ACT_NONE, ALL_CONFIGS);
  check_tconv_builtin(9, 13, 6, 5, 3, 3, 2, 2, SAME, false, TEXMEM_ACT_RELU,
                      F_NAIVE | F_BEST | F_LINEAR | F_FP32);
  check_tconv_builtin(9, 8, 3, 7, 4, 3, 2, 3, VALID, true, TEXMEM_ACT_RELU6,
                      F_NAIVE | F_NATURAL | F_FP32);
  check_tconv_builtin(7, 5, 4, 4, 3, 3, 1, 1, SAME, true, TEXMEM_ACT_TANH, F_BEST | F_NATURAL | F_FP32);
  g_batch = 2;
  check_tconv_builtin(8, 6, 5, 6, 2, 2, 2, 2, VALID, true, TEXMEM_ACT_NONE, (F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32));
}

/* ---- batch 2: every kernel of the family, the two images of the batch
 * different (seeded input), NAIVE and BEST, both layouts, fp16 once (few
 * configurations: each compiles its own program variants) ---- */
#define BATCH_CONFIGS (F_NAIVE | F_BEST | F_NATURAL | F_LINEAR | F_FP32)

Test(rt_conv, batch_2_conv) {
  g_batch = 2;
  check_conv(&(conv_case){5, 6, 6, 9, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_NONE, true}, BATCH_CONFIGS);
  check_conv(&(conv_case){5, 7, 5, 6, 3, 3, 2, 1, 1, SAME, TEXMEM_ACT_RELU6, true},
             F_NAIVE | F_BEST | F_LINEAR | F_FP32);
  check_conv(&(conv_case){6, 5, 3, 17, 3, 2, 1, 1, 2, VALID, TEXMEM_ACT_NONE, false},
             F_BEST | F_NATURAL | F_FP16);
}

Test(rt_conv, batch_2_conv_tiled) {
  g_batch = 2;
  g_kernels = TEXMEM_KERNELS_TILED;
  check_conv(&(conv_case){5, 6, 6, 9, 1, 1, 1, 1, 1, SAME, TEXMEM_ACT_NONE, true}, BATCH_CONFIGS);
  check_conv(&(conv_case){7, 5, 17, 6, 1, 1, 2, 1, 1, SAME, TEXMEM_ACT_RELU, true},
             F_BEST | F_LINEAR | F_FP16);
}

Test(rt_conv, batch_2_depthwise) {
  g_batch = 2;
  check_dw(&(dw_case){7, 5, 7, 1, 3, 1, 1, SAME, TEXMEM_ACT_NONE, true}, BATCH_CONFIGS);
  check_dw(&(dw_case){7, 6, 6, 1, 5, 2, 1, SAME, TEXMEM_ACT_RELU, true},
           F_NAIVE | F_BEST | F_NATURAL | F_FP32);
  check_dw(&(dw_case){5, 6, 3, 3, 3, 1, 1, VALID, TEXMEM_ACT_NONE, true},
           F_NAIVE | F_BEST | F_LINEAR | F_FP32);
}

Test(rt_conv, batch_2_fc_and_transpose_conv) {
  check_fc(2, (int32_t[]){2, 13}, 13, 6, false, true, TEXMEM_ACT_NONE, BATCH_CONFIGS);
  check_fc(4, (int32_t[]){2, 2, 3, 6}, 6, 5, true, true, TEXMEM_ACT_RELU, BATCH_CONFIGS);
  check_fc(4, (int32_t[]){2, 3, 2, 5}, 30, 7, false, true, TEXMEM_ACT_NONE, BATCH_CONFIGS);
  g_batch = 2;
  check_tconv(5, 7, 6, 5, 3, 3, 2, 2, SAME, BATCH_CONFIGS);
  check_tconv(3, 5, 4, 9, 3, 3, 1, 1, VALID, F_NAIVE | F_BEST | F_NATURAL | F_FP32 | F_FP16);
}

/* ---- refusals: clean errors, no crash ---- */
Test(rt_conv, refuses_bad_operands) {
  texmem_error err = {0};
  texmem_runtime *rt = NULL;
  texmem_runtime_desc d = {.strategy = TEXMEM_STRATEGY_NAIVE};
  /* Non-constant weights. */
  {
    graph g = graph_new();
    int32_t xs[4] = {1, 4, 4, 4}, ws[4] = {4, 1, 1, 4};
    int32_t x = add_tensor(&g, 4, xs), w = add_tensor(&g, 4, ws), y = add_tensor(&g, 4, xs);
    int32_t in[2] = {x, w};
    add_op(&g, TEXMEM_OP_CONV_2D, in, 2, y, NULL);
    int32_t io[2] = {x, w};
    cr_assert_eq(texmem_model_set_io(g.m, io, 2, &y, 1, &err), TEXMEM_STATUS_OK);
    texmem_status s = texmem_runtime_create(g_ctx, g.m, &d, &rt, &err);
    cr_assert_neq(s, TEXMEM_STATUS_OK);
    cr_assert_null(rt);
    texmem_model_destroy(g.m);
  }
  /* Unsupported fused activation (SIGN_BIT). */
  {
    graph g = graph_new();
    int32_t xs[4] = {1, 4, 4, 4}, ws[4] = {4, 1, 1, 4};
    int32_t x = add_tensor(&g, 4, xs), y = add_tensor(&g, 4, xs);
    int32_t w = add_weights(&g, 4, ws, 4);
    texmem_op_options o = texmem_op_options_default();
    o.activation = TEXMEM_ACT_SIGN_BIT;
    int32_t in[2] = {x, w};
    add_op(&g, TEXMEM_OP_CONV_2D, in, 2, y, &o);
    cr_assert_eq(texmem_model_set_io(g.m, &x, 1, &y, 1, &err), TEXMEM_STATUS_OK);
    cr_assert_eq(texmem_runtime_create(g_ctx, g.m, &d, &rt, &err), TEXMEM_STATUS_UNSUPPORTED_OP);
    cr_assert_null(rt);
    texmem_model_destroy(g.m);
  }
  /* Transpose conv with a padding code that is neither SAME nor VALID. */
  {
    graph g = graph_new();
    int32_t xs[4] = {1, 3, 3, 4}, ws[4] = {4, 3, 3, 4}, ys[4] = {1, 5, 5, 4};
    int32_t x = add_tensor(&g, 4, xs), y = add_tensor(&g, 4, ys);
    int32_t w = add_weights(&g, 4, ws, 36);
    texmem_op_options o = texmem_op_options_default();
    uint8_t opts[12] = {7, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0};
    o.custom_options = opts;
    o.custom_options_size = sizeof opts;
    int32_t in[2] = {x, w};
    add_op(&g, TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS, in, 2, y, &o);
    cr_assert_eq(texmem_model_set_io(g.m, &x, 1, &y, 1, &err), TEXMEM_STATUS_OK);
    cr_assert_eq(texmem_runtime_create(g_ctx, g.m, &d, &rt, &err), TEXMEM_STATUS_UNSUPPORTED_OP);
    cr_assert_null(rt);
    texmem_model_destroy(g.m);
  }
}

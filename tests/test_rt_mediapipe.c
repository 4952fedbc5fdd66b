/* MediaPipe's custom operators on GL against the C reference
 * (tests/reference/ref_mediapipe.c, the oracle for them: TFLite's wasm
 * build lacks them): crafted landmarks and matrices, batch 1 and 2, a
 * matrix of batch 1 shared by a batch of 2, channels not a multiple of 4,
 * samples falling outside the input, and the face-model chain
 * (Landmarks2TransformMatrix -> TransformTensorBilinear and
 * TransformLandmarks). fp32 within 1e-4 relative (+1e-5 absolute) in the
 * natural and linear layouts; fp16 within 2e-2 of the output's largest
 * value; planned (BEST) = naive bit for bit. Shape and option errors name
 * the operator. */
#include <math.h>

#include "flexbuffers_writer.h"
#include "rt_support.h"

#define FP32_REL 1e-4
#define FP32_ABS 1e-5
#define FP16_SCALED 2e-2
/* The chain stores landmarks in pixels (up to 12 here) as fp16, 1/128
 * of a pixel apart: the crop moves by that much, and the samples with it. */
#define FP16_CHAIN 6e-2

/* Sets inputs the test crafts (matrices, landmarks in pixels). */
typedef void (*fill_fn)(float **in);

/* fp32 natural and linear, fp16 natural against the reference; BEST =
 * NAIVE bit for bit; destroys the model. chain: fp32 within FP32_REL of
 * each output's largest value (a matrix computed on the GPU moves the
 * samples by ~1e-6 of the coordinates, which the data's slope scales). */
static void mb_check_opt(rt_mb *b, fill_fn fill, bool chain, const char *what) {
  TG_OK(texmem_model_set_io(b->m, b->in, b->n_in, b->out, b->n_out, &tg_err_));
  texmem_gl_context *ctx = tg_context();
  size_t n_in;
  float **in = rt_inputs(b->m, 11, &n_in);
  if (fill) fill(in);
  texmem_ref_result *ref = rt_reference(b->m, in);
  char label[160];
  texmem_runtime_desc d32 = {.layout = TEXMEM_LAYOUT_NATURAL, .precision = TEXMEM_PRECISION_FP32,
                             .reuse_checker = true};
  rt_outputs best = rt_run(ctx, b->m, &d32, in);
  snprintf(label, sizeof label, "%s (fp32 natural)", what);
  if (chain)
    rt_compare_scaled(b->m, &best, ref, FP32_REL, label);
  else
    rt_compare(b->m, &best, ref, FP32_REL, FP32_ABS, label);
  texmem_runtime_desc lin = d32;
  lin.layout = TEXMEM_LAYOUT_LINEAR;
  rt_outputs o = rt_run(ctx, b->m, &lin, in);
  snprintf(label, sizeof label, "%s (fp32 linear)", what);
  if (chain)
    rt_compare_scaled(b->m, &o, ref, FP32_REL, label);
  else
    rt_compare(b->m, &o, ref, FP32_REL, FP32_ABS, label);
  rt_outputs_free(&o);
  texmem_runtime_desc d16 = d32;
  d16.precision = TEXMEM_PRECISION_FP16;
  o = rt_run(ctx, b->m, &d16, in);
  snprintf(label, sizeof label, "%s (fp16 natural)", what);
  double w16 = rt_compare_scaled(b->m, &o, ref, chain ? FP16_CHAIN : FP16_SCALED, label);
  cr_log_info("%s: fp16 worst error %.3g of the bound", what, w16);
  rt_outputs_free(&o);
  texmem_runtime_desc naive_d = d32;
  naive_d.strategy = TEXMEM_STRATEGY_NAIVE;
  o = rt_run(ctx, b->m, &naive_d, in);
  snprintf(label, sizeof label, "%s (fp32 natural, BEST vs NAIVE)", what);
  rt_assert_identical(&best, &o, label);
  rt_outputs_free(&o);
  rt_outputs_free(&best);
  texmem_ref_result_destroy(ref);
  rt_free_arrays(in, n_in);
  texmem_gl_context_destroy(ctx);
  texmem_model_destroy(b->m);
}

static void mb_check(rt_mb *b, fill_fn fill, const char *what) { mb_check_opt(b, fill, false, what); }

/* ---- options ---- */

static uint8_t l2tm_opt[1024];
static size_t l2tm_opt_size;

static texmem_op_options l2tm_options(int left, int right, double target, int ow, int oh,
                                      double sx, double sy, const int32_t *subset, size_t n) {
  fxw_entry e[] = {
      {.key = "left_rotation_idx", .kind = FXW_INT, .i = left},
      {.key = "output_height", .kind = FXW_INT, .i = oh},
      {.key = "output_width", .kind = FXW_INT, .i = ow},
      {.key = "right_rotation_idx", .kind = FXW_INT, .i = right},
      {.key = "scale_x", .kind = FXW_FLOAT, .f = sx},
      {.key = "scale_y", .kind = FXW_FLOAT, .f = sy},
      {.key = "subset_idxs", .kind = FXW_INTS, .v = subset, .n = n},
      {.key = "target_rotation_radians", .kind = FXW_FLOAT, .f = target},
  };
  l2tm_opt_size = fxw_map(e, sizeof e / sizeof e[0], l2tm_opt, sizeof l2tm_opt);
  cr_assert_gt(l2tm_opt_size, 0);
  texmem_op_options o = texmem_op_options_default();
  o.custom_options = l2tm_opt;
  o.custom_options_size = l2tm_opt_size;
  return o;
}

static uint8_t ttb_opt[256];

static texmem_op_options ttb_options(int oh, int ow) {
  fxw_entry e[] = {{.key = "output_height", .kind = FXW_INT, .i = oh},
                   {.key = "output_width", .kind = FXW_INT, .i = ow}};
  size_t n = fxw_map(e, 2, ttb_opt, sizeof ttb_opt);
  cr_assert_gt(n, 0);
  texmem_op_options o = texmem_op_options_default();
  o.custom_options = ttb_opt;
  o.custom_options_size = n;
  return o;
}

/* ---- Landmarks2TransformMatrix ---- */

static const int32_t subset7[7] = {0, 3, 8, 2, 5, 6, 1}; /* odd: the last repeats */

static void check_l2tm(int32_t batch, const char *what) {
  rt_mb b = rt_mb_new();
  const int32_t ls[3] = {batch, 9, 3}, ms[3] = {batch, 4, 4};
  int32_t x = rt_mb_input(&b, 3, ls), y = rt_mb_tensor(&b, 3, ms);
  texmem_op_options o = l2tm_options(1, 7, 0.35, 6, 5, 1.5, 1.25, subset7, 7);
  rt_mb_op(&b, TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX, &x, 1, y, &o);
  rt_mb_output(&b, y);
  mb_check(&b, NULL, what);
}

Test(rt_mediapipe, landmarks_to_transform_matrix) {
  check_l2tm(1, "Landmarks2TransformMatrix batch 1");
  check_l2tm(2, "Landmarks2TransformMatrix batch 2");
}

/* ---- TransformTensorBilinear ---- */

/* Rotation a, scales, shift: output pixels to input coordinates. */
static void set_matrix(float *m, double a, double sx, double sy, double tx, double ty) {
  memset(m, 0, 16 * sizeof *m);
  m[0] = (float)(sx * cos(a));
  m[1] = (float)(-sy * sin(a));
  m[3] = (float)tx;
  m[4] = (float)(sx * sin(a));
  m[5] = (float)(sy * cos(a));
  m[7] = (float)ty;
  m[10] = 1;
  m[15] = 1;
}

static int matrix_input_index, matrix_batches;

static void fill_matrices(float **in) {
  float *m = in[matrix_input_index];
  set_matrix(m, 0.3, 1.1, 0.9, 1.2, 0.8);
  if (matrix_batches > 1) set_matrix(m + 16, -0.4, 1.4, 1.3, 2.5, 1.5); /* partly outside */
}

static void check_ttb(int32_t batch, int32_t mbatch, const char *what) {
  rt_mb b = rt_mb_new();
  const int32_t ds[4] = {batch, 7, 9, 6}, ms[3] = {mbatch, 4, 4}, os[4] = {batch, 5, 4, 6};
  int32_t ins[2];
  ins[0] = rt_mb_input(&b, 4, ds);
  ins[1] = rt_mb_input(&b, 3, ms);
  int32_t y = rt_mb_tensor(&b, 4, os);
  texmem_op_options o = ttb_options(5, 4);
  rt_mb_op(&b, TEXMEM_OP_TRANSFORM_TENSOR_BILINEAR, ins, 2, y, &o);
  rt_mb_output(&b, y);
  matrix_input_index = 1;
  matrix_batches = mbatch;
  mb_check(&b, fill_matrices, what);
}

Test(rt_mediapipe, transform_tensor_bilinear) {
  check_ttb(1, 1, "TransformTensorBilinear batch 1");
  check_ttb(2, 2, "TransformTensorBilinear batch 2");
  check_ttb(2, 1, "TransformTensorBilinear batch 2, one matrix");
}

/* ---- TransformLandmarks ---- */

static void check_tl(int32_t batch, int32_t mbatch, int32_t dims, const char *what) {
  rt_mb b = rt_mb_new();
  const int32_t ls[3] = {batch, 11, dims}, ms[3] = {mbatch, 4, 4};
  int32_t ins[2];
  ins[0] = rt_mb_input(&b, 3, ls);
  ins[1] = rt_mb_input(&b, 3, ms); /* any matrix: random values */
  int32_t y = rt_mb_tensor(&b, 3, ls);
  rt_mb_op(&b, TEXMEM_OP_TRANSFORM_LANDMARKS, ins, 2, y, NULL);
  rt_mb_output(&b, y);
  mb_check(&b, NULL, what);
}

Test(rt_mediapipe, transform_landmarks) {
  check_tl(1, 1, 2, "TransformLandmarks 2-D batch 1");
  check_tl(1, 1, 3, "TransformLandmarks 3-D batch 1");
  check_tl(2, 2, 2, "TransformLandmarks 2-D batch 2");
  check_tl(2, 1, 3, "TransformLandmarks 3-D batch 2, one matrix");
}

/* ---- the face model's chain ---- */

static void fill_face(float **in) {
  /* landmarks (2, 12, 3) in pixels of the 16x16 data, z anything */
  uint64_t s = 99;
  for (int i = 0; i < 2 * 12; i++) {
    in[0][3 * i] = 3.0f + (float)(tt_rand(&s) % 900) / 100.0f;
    in[0][3 * i + 1] = 4.0f + (float)(tt_rand(&s) % 700) / 100.0f;
  }
}

Test(rt_mediapipe, face_chain) {
  rt_mb b = rt_mb_new();
  const int32_t ls[3] = {2, 12, 3}, ds[4] = {2, 16, 16, 5}, ms[3] = {2, 4, 4},
                cs[4] = {2, 6, 6, 5}, ps[3] = {2, 4, 2};
  int32_t lm = rt_mb_input(&b, 3, ls), data = rt_mb_input(&b, 4, ds), pts = rt_mb_input(&b, 3, ps);
  int32_t mat = rt_mb_tensor(&b, 3, ms), crop = rt_mb_tensor(&b, 4, cs), moved = rt_mb_tensor(&b, 3, ps);
  const int32_t sub[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  texmem_op_options lo = l2tm_options(0, 5, 0.0, 6, 6, 1.5, 1.5, sub, 12);
  rt_mb_op(&b, TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX, &lm, 1, mat, &lo);
  texmem_op_options to = ttb_options(6, 6);
  int32_t ti[2] = {data, mat}, li[2] = {pts, mat};
  rt_mb_op(&b, TEXMEM_OP_TRANSFORM_TENSOR_BILINEAR, ti, 2, crop, &to);
  rt_mb_op(&b, TEXMEM_OP_TRANSFORM_LANDMARKS, li, 2, moved, NULL);
  rt_mb_output(&b, crop);
  rt_mb_output(&b, moved);
  rt_mb_output(&b, mat);
  mb_check_opt(&b, fill_face, true,
               "Landmarks2TransformMatrix -> TransformTensorBilinear, TransformLandmarks");
}

/* ---- errors ---- */

/* texmem_runtime_create fails with BAD_MODEL, naming the operator and
 * `needle`. */
static void expect_refused(rt_mb *b, const char *op, const char *needle) {
  TG_OK(texmem_model_set_io(b->m, b->in, b->n_in, b->out, b->n_out, &tg_err_));
  texmem_gl_context *ctx = tg_context();
  texmem_runtime *rt = NULL;
  texmem_error err = {0};
  texmem_runtime_desc d = {.precision = TEXMEM_PRECISION_FP32};
  texmem_status s = texmem_runtime_create(ctx, b->m, &d, &rt, &err);
  cr_assert_eq(s, TEXMEM_STATUS_BAD_MODEL, "%s: status %d: %s", needle, (int)s, err.message);
  cr_assert_null(rt);
  cr_assert(strstr(err.message, op) && strstr(err.message, needle), "want '%s' in: %s", needle,
            err.message);
  texmem_gl_context_destroy(ctx);
  texmem_model_destroy(b->m);
}

Test(rt_mediapipe, shape_and_option_errors) {
  {
    /* output size contradicting output_height / output_width */
    rt_mb b = rt_mb_new();
    const int32_t ds[4] = {1, 7, 9, 6}, ms[3] = {1, 4, 4}, os[4] = {1, 5, 5, 6};
    int32_t ins[2] = {rt_mb_input(&b, 4, ds), rt_mb_input(&b, 3, ms)};
    int32_t y = rt_mb_tensor(&b, 4, os);
    texmem_op_options o = ttb_options(5, 4);
    rt_mb_op(&b, TEXMEM_OP_TRANSFORM_TENSOR_BILINEAR, ins, 2, y, &o);
    rt_mb_output(&b, y);
    expect_refused(&b, "TransformTensorBilinear", "the op gives 5x4x6");
  }
  {
    /* a matrix that is not 4x4, and one of another batch */
    rt_mb b = rt_mb_new();
    const int32_t ls[3] = {2, 5, 2}, ms[3] = {2, 3, 4};
    int32_t ins[2] = {rt_mb_input(&b, 3, ls), rt_mb_input(&b, 3, ms)};
    int32_t y = rt_mb_tensor(&b, 3, ls);
    rt_mb_op(&b, TEXMEM_OP_TRANSFORM_LANDMARKS, ins, 2, y, NULL);
    rt_mb_output(&b, y);
    expect_refused(&b, "TransformLandmarks", "needs (2 or 1)x1x4x4");
    b = rt_mb_new();
    const int32_t ms3[3] = {3, 4, 4};
    int32_t ins2[2] = {rt_mb_input(&b, 3, ls), rt_mb_input(&b, 3, ms3)};
    y = rt_mb_tensor(&b, 3, ls);
    rt_mb_op(&b, TEXMEM_OP_TRANSFORM_LANDMARKS, ins2, 2, y, NULL);
    rt_mb_output(&b, y);
    expect_refused(&b, "TransformLandmarks", "3x1x4x4");
  }
  {
    /* landmarks of 4 values each */
    rt_mb b = rt_mb_new();
    const int32_t ls[3] = {1, 5, 4}, ms[3] = {1, 4, 4};
    int32_t ins[2] = {rt_mb_input(&b, 3, ls), rt_mb_input(&b, 3, ms)};
    int32_t y = rt_mb_tensor(&b, 3, ls);
    rt_mb_op(&b, TEXMEM_OP_TRANSFORM_LANDMARKS, ins, 2, y, NULL);
    rt_mb_output(&b, y);
    expect_refused(&b, "TransformLandmarks", "2 or 3");
  }
  {
    /* a subset index past the landmarks; then options that are no map */
    rt_mb b = rt_mb_new();
    const int32_t ls[3] = {1, 9, 3}, ms[3] = {1, 4, 4};
    int32_t x = rt_mb_input(&b, 3, ls), y = rt_mb_tensor(&b, 3, ms);
    const int32_t far[2] = {2, 9};
    texmem_op_options o = l2tm_options(1, 7, 0.0, 6, 5, 1.5, 1.5, far, 2);
    rt_mb_op(&b, TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX, &x, 1, y, &o);
    rt_mb_output(&b, y);
    expect_refused(&b, "Landmarks2TransformMatrix", "past the 9 landmarks");
    b = rt_mb_new();
    x = rt_mb_input(&b, 3, ls);
    y = rt_mb_tensor(&b, 3, ms);
    const uint8_t junk[3] = {1, 2, 3};
    o = texmem_op_options_default();
    o.custom_options = junk;
    o.custom_options_size = sizeof junk;
    rt_mb_op(&b, TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX, &x, 1, y, &o);
    rt_mb_output(&b, y);
    expect_refused(&b, "Landmarks2TransformMatrix", "custom options");
  }
  {
    /* a matrix output that is not (B, 4, 4) */
    rt_mb b = rt_mb_new();
    const int32_t ls[3] = {1, 9, 3}, ms[3] = {1, 4, 3};
    int32_t x = rt_mb_input(&b, 3, ls), y = rt_mb_tensor(&b, 3, ms);
    texmem_op_options o = l2tm_options(1, 7, 0.0, 6, 5, 1.5, 1.5, subset7, 7);
    rt_mb_op(&b, TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX, &x, 1, y, &o);
    rt_mb_output(&b, y);
    expect_refused(&b, "Landmarks2TransformMatrix", "the op gives 1x4x4");
  }
}

/* ---- folds: landmarks read through a RESHAPE and a MUL, stored reshaped ---- */

static texmem_gl_context *g_ctx;
static texmem_runtime_stats g_stats;
static uint64_t g_dispatches;

static void keep_stats(const texmem_model *m, const texmem_runtime_desc *d,
                       const texmem_runtime *rt) {
  (void)m;
  (void)d;
  texmem_runtime_get_stats(rt, &g_stats);
  size_t n_rec = 0;
  const texmem_record *rec = texmem_runtime_records(rt, &n_rec);
  TG_OK(texmem_plan_validate(rec, n_rec, 3, texmem_runtime_plan(rt), &tg_err_));
  texmem_gl_counters c;
  texmem_gl_counters_get(g_ctx, &c);
  g_dispatches = c.dispatches - g_dispatches;
}

static rt_outputs run_counted(const texmem_model *m, const texmem_runtime_desc *d, float **in) {
  texmem_gl_counters c;
  texmem_gl_counters_get(g_ctx, &c);
  g_dispatches = c.dispatches;
  return rt_run_inspect(g_ctx, m, d, in, keep_stats);
}

/* Fused against unfused (fp32 and fp16, naive and BEST): identical
 * outputs, `fused` MULs and `rs` reshapes folded, that many dispatches and
 * planned tensors fewer; fp32 against the reference. Destroys the model. */
static void check_folds(rt_mb *b, fill_fn fill, size_t fused, size_t rs, const char *what) {
  TG_OK(texmem_model_set_io(b->m, b->in, b->n_in, b->out, b->n_out, &tg_err_));
  g_ctx = tg_context();
  size_t n_in;
  float **in = rt_inputs(b->m, 23, &n_in);
  if (fill) fill(in);
  texmem_ref_result *ref = rt_reference(b->m, in);
  for (int cfg = 0; cfg < 4; cfg++) {
    texmem_runtime_desc d = {.strategy = cfg & 1 ? TEXMEM_STRATEGY_NAIVE : TEXMEM_STRATEGY_BEST,
                             .precision = cfg < 2 ? TEXMEM_PRECISION_FP32 : TEXMEM_PRECISION_FP16,
                             .reuse_checker = true};
    texmem_runtime_desc du = d;
    du.unfused = true;
    char label[200];
    snprintf(label, sizeof label, "%s (%s %s)", what, cfg < 2 ? "fp32" : "fp16",
             cfg & 1 ? "naive" : "best");
    rt_outputs u = run_counted(b->m, &du, in);
    texmem_runtime_stats us = g_stats;
    uint64_t ud = g_dispatches;
    rt_outputs a = run_counted(b->m, &d, in);
    rt_assert_identical(&u, &a, label);
    cr_assert_eq(g_stats.fused, fused, "%s: %zu fused, expected %zu", label, g_stats.fused, fused);
    cr_assert_eq(g_stats.reshapes_folded, rs, "%s: %zu reshapes folded, expected %zu", label,
                 g_stats.reshapes_folded, rs);
    cr_assert_eq(us.fused + us.reshapes_folded, 0, "%s", label);
    cr_assert_eq(g_dispatches + fused + rs, ud, "%s: %llu dispatches, %llu unfused", label,
                 (unsigned long long)g_dispatches, (unsigned long long)ud);
    cr_assert_eq(g_stats.tensors + fused + rs, us.tensors, "%s", label);
    if (cfg < 2) rt_compare_scaled(b->m, &a, ref, FP32_REL, label);
    rt_outputs_free(&a);
    rt_outputs_free(&u);
  }
  texmem_ref_result_destroy(ref);
  rt_free_arrays(in, n_in);
  texmem_gl_context_destroy(g_ctx);
  texmem_model_destroy(b->m);
}

static int32_t reshape_to(rt_mb *b, int32_t x, unsigned rank, const int32_t *shape) {
  int32_t y = rt_mb_tensor(b, rank, shape);
  rt_mb_op(b, TEXMEM_OP_RESHAPE, &x, 1, y, NULL);
  return y;
}

/* MUL of x by the scalar constant v (first or second), with activation a. */
static int32_t scaled(rt_mb *b, int32_t x, float v, bool first, texmem_activation a) {
  const int32_t one = 1;
  int32_t c, ins[2];
  TG_OK(texmem_model_add_constant(b->m, NULL, TEXMEM_DTYPE_FLOAT32, 1, &one, &v, sizeof v, &c,
                                  &tg_err_));
  const texmem_tensor *t = texmem_model_tensor(b->m, (size_t)x);
  int32_t shape[TEXMEM_MAX_RANK];
  memcpy(shape, t->shape, sizeof shape);
  int32_t y = rt_mb_tensor(b, t->rank, shape);
  ins[0] = first ? c : x;
  ins[1] = first ? x : c;
  texmem_op_options o = texmem_op_options_default();
  o.activation = a;
  rt_mb_op(b, TEXMEM_OP_MUL, ins, 2, y, &o);
  return y;
}

/* A 4x4 constant of values binary16 rounds, some negative. */
static int32_t constant_4x4(rt_mb *b) {
  const int32_t shape[3] = {1, 4, 4};
  float v[16];
  for (int i = 0; i < 16; i++) v[i] = 0.3f + 0.1373f * (float)(i % 7) - (i % 5 == 0 ? 1.1f : 0.0f);
  int32_t t;
  TG_OK(texmem_model_add_constant(b->m, NULL, TEXMEM_DTYPE_FLOAT32, 3, shape, v, sizeof v, &t,
                                  &tg_err_));
  return t;
}

/* A landmark head's flat output (batch, 1, 1, n * dims), values in pixels. */
static int32_t head(rt_mb *b, int32_t batch, int32_t n, int32_t dims) {
  const int32_t s[4] = {batch, 1, 1, n * dims};
  return rt_mb_input(b, 4, s);
}

static int32_t g_head_values; /* of the head filled */

static void fill_head(float **in) {
  uint64_t s = 5;
  for (int32_t i = 0; i < g_head_values; i++) in[0][i] = 2.0f + (float)(tt_rand(&s) % 800) / 100.0f;
}

/* face_landmark_with_attention's chains: its 1404-value head reshaped to
 * 468 landmarks, scaled, into Landmarks2TransformMatrix (batch 1 and 2,
 * the scale first, with RELU6, the scale alone, the reshape alone); its
 * eye and lip heads reshaped to (x, y) pairs, moved by TransformLandmarks
 * and flattened back to a graph output (batch 2 with one matrix, 3-D
 * landmarks of 33 values, not a multiple of 4, scaled; reshaped to the
 * same BHWC shape); a matrix scaled by a 4x4
 * constant read by two TransformLandmarks, by one value with RELU at
 * batch 2. Bit for bit against unfused, one dispatch and one planned
 * tensor fewer a fold. Not folded: a reshape or a MUL whose output is read
 * twice, a TransformLandmarks output read twice, a scaled matrix read by a
 * copy too. */
Test(rt_mediapipe, landmark_folds) {
  const int32_t sub[6] = {0, 1, 2, 3, 4, 5};
  for (int c = 0; c < 5; c++) { /* into Landmarks2TransformMatrix */
    rt_mb b = rt_mb_new();
    int32_t nb = c == 1 ? 2 : 1, n = 12;
    int32_t ls[3] = {nb, n, 3}, ms[3] = {nb, 4, 4};
    g_head_values = nb * n * 3;
    /* c == 3: no reshape, the landmarks a graph input's copy */
    int32_t lm = c == 3 ? rt_mb_input(&b, 3, ls) : reshape_to(&b, head(&b, nb, n, 3), 3, ls);
    size_t fused = 1, rs = c == 3 ? 0 : 1;
    if (c == 4) {
      rt_mb_output(&b, lm); /* the reshape's output read twice */
      rs = 0;
    }
    /* scales that binary16 rounds, as the MUL's constant buffer holds them */
    if (c != 2)
      lm = scaled(&b, lm, c == 1 ? 0.7071f : 1.37f, c == 1,
                  c == 1 ? TEXMEM_ACT_RELU6 : TEXMEM_ACT_NONE);
    else fused = 0;
    int32_t mat = rt_mb_tensor(&b, 3, ms);
    texmem_op_options o = l2tm_options(0, 5, 0.2, 6, 6, 1.5, 1.25, sub, 6);
    rt_mb_op(&b, TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX, &lm, 1, mat, &o);
    rt_mb_output(&b, mat);
    static const char *const what[] = {"head reshaped and scaled", "batch 2, scale first, RELU6",
                                       "reshape alone", "scale alone", "reshape read twice"};
    check_folds(&b, c == 3 ? NULL : fill_head, fused, rs, what[c]);
  }
  for (int c = 0; c < 5; c++) { /* TransformLandmarks */
    rt_mb b = rt_mb_new();
    int32_t nb = c == 1 ? 2 : 1, dims = c == 2 ? 3 : 2, n = c == 2 ? 11 : 6;
    int32_t h = head(&b, nb, n, dims), ls[3] = {nb, n, dims}, ms[3] = {c == 1 ? 1 : nb, 4, 4};
    int32_t mat = rt_mb_input(&b, 3, ms);
    int32_t lm = reshape_to(&b, h, 3, ls);
    size_t fused = 0, rs = 2;
    if (c == 2) {
      lm = scaled(&b, lm, 0.4142f, false, TEXMEM_ACT_NONE);
      fused = 1;
    }
    int32_t ins[2] = {lm, mat}, y = rt_mb_tensor(&b, 3, ls);
    rt_mb_op(&b, TEXMEM_OP_TRANSFORM_LANDMARKS, ins, 2, y, NULL);
    if (c == 4) {
      rt_mb_output(&b, y); /* the output read twice: stored as it is */
      rs = 1;
    }
    const int32_t flat[2] = {nb, n * dims}, same[4] = {nb, 1, n, dims};
    int32_t out = c == 3 ? reshape_to(&b, y, 4, same) : reshape_to(&b, y, 2, flat);
    b.out[b.n_out++] = out;
    static const char *const what[] = {"pairs flattened", "batch 2, one matrix",
                                       "3-D, scaled, 33 values", "reshaped to the same BHWC",
                                       "output read twice"};
    check_folds(&b, NULL, fused, rs, what[c]);
  }
  for (int c = 0; c < 3; c++) { /* a scaled matrix */
    rt_mb b = rt_mb_new();
    int32_t nb = c == 1 ? 2 : 1, ms[3] = {1, 4, 4}, ls[3] = {nb, 5, 2}, l3[3] = {nb, 7, 3};
    int32_t mat = rt_mb_input(&b, 3, ms), m2 = -1;
    if (c == 1) { /* one value, with RELU */
      m2 = scaled(&b, mat, 0.7071f, true, TEXMEM_ACT_RELU);
    } else { /* 16 values, binary16 rounds them */
      int32_t k = constant_4x4(&b), ins[2] = {mat, k};
      m2 = rt_mb_tensor(&b, 3, ms);
      rt_mb_op(&b, TEXMEM_OP_MUL, ins, 2, m2, NULL);
    }
    size_t fused = c == 2 ? 0 : 1;
    if (c == 2) rt_mb_output(&b, m2); /* read by a copy too: run */
    int32_t y1 = rt_mb_tensor(&b, 3, ls), y2 = rt_mb_tensor(&b, 3, l3);
    int32_t i1[2] = {rt_mb_input(&b, 3, ls), m2}, i2[2] = {rt_mb_input(&b, 3, l3), m2};
    rt_mb_op(&b, TEXMEM_OP_TRANSFORM_LANDMARKS, i1, 2, y1, NULL);
    rt_mb_op(&b, TEXMEM_OP_TRANSFORM_LANDMARKS, i2, 2, y2, NULL);
    rt_mb_output(&b, y1);
    rt_mb_output(&b, y2);
    static const char *const what[] = {"matrix scaled, read by two", "one scale, RELU, batch 2",
                                       "scaled matrix read by a copy too"};
    check_folds(&b, NULL, fused, 0, what[c]);
  }
}

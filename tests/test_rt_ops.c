/* Runtime kernels other than the convolution family, one small model each
 * (odd sizes: channels not a multiple of 4, width 1, stride 2, SAME and
 * VALID, broadcasts), run on GL and compared with the CPU reference: fp32
 * within 1e-4 relative (+1e-5 absolute) in the natural and linear layouts,
 * fp16 within 2e-2 relative (+2e-2 absolute). The op under test reads and
 * writes planned (pool) textures: its inputs come from an identity ADD of
 * the graph input and its output goes through one to the graph output. */
#include "rt_support.h"

#define FP32_REL 1e-4
#define FP32_ABS 1e-5
#define FP16_REL 2e-2
#define FP16_ABS 2e-2

static int32_t mb_const(rt_mb *b, unsigned rank, const int32_t *shape, uint64_t seed) {
  size_t n = 1;
  for (unsigned i = 0; i < rank; i++) n *= (size_t)shape[i];
  float *v = malloc(n * sizeof *v);
  cr_assert_not_null(v);
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++) v[i] = (float)(tt_rand(&s) % 2001) / 500.0f - 2.0f;
  int32_t t;
  TG_OK(texmem_model_add_constant(b->m, NULL, TEXMEM_DTYPE_FLOAT32, rank, shape, v,
                                  n * sizeof *v, &t, &tg_err_));
  free(v);
  return t;
}

/* The kernels every run of mb_check uses (AUTO unless a test forces the
 * GPU ones) and, where set, the shader file the op under test must run
 * (checked in a profiled run where the driver has timer queries). */
static texmem_kernels g_kernels;
static const char *g_kernel_file;

static void expect_kernel(texmem_gl_context *ctx, const texmem_model *m, float **in,
                          const char *what) {
  texmem_runtime_desc d = {.kernels = g_kernels, .profile = true};
  texmem_runtime *rt = NULL;
  TG_OK(texmem_runtime_create(ctx, m, &d, &rt, &tg_err_));
  size_t n_in = 0;
  texmem_model_inputs(m, &n_in);
  for (size_t i = 0; i < n_in; i++) TG_OK(texmem_runtime_set_input(rt, i, in[i], &tg_err_));
  TG_OK(texmem_runtime_run(rt, &tg_err_));
  texmem_runtime_profile p;
  texmem_error err = {0};
  texmem_status st = texmem_runtime_get_profile(rt, &p, &err);
  if (st != TEXMEM_STATUS_UNSUPPORTED) { /* no timer queries: no names to check */
    cr_assert_eq(st, TEXMEM_STATUS_OK, "%s: %s", what, err.message);
    size_t hits = 0;
    for (size_t r = 0; r < p.n_records; r++) hits += !strcmp(p.records[r].kernel, g_kernel_file);
    cr_expect_eq(hits, 1, "%s: %zu dispatches of %s", what, hits, g_kernel_file);
  }
  texmem_runtime_destroy(rt);
}

/* Runs fp32 natural, fp32 linear and fp16 natural against the reference;
 * destroys the model. */
static void mb_check(rt_mb *b, const char *what) {
  TG_OK(texmem_model_set_io(b->m, b->in, b->n_in, b->out, b->n_out, &tg_err_));
  texmem_gl_context *ctx = tg_context();
  size_t n_in;
  float **in = rt_inputs(b->m, 7, &n_in);
  texmem_ref_result *ref = rt_reference(b->m, in);
  struct {
    texmem_layout layout;
    texmem_precision precision;
    double rel, abs;
    const char *name;
  } cfg[] = {{TEXMEM_LAYOUT_NATURAL, TEXMEM_PRECISION_FP32, FP32_REL, FP32_ABS, "fp32 natural"},
             {TEXMEM_LAYOUT_LINEAR, TEXMEM_PRECISION_FP32, FP32_REL, FP32_ABS, "fp32 linear"},
             {TEXMEM_LAYOUT_NATURAL, TEXMEM_PRECISION_FP16, FP16_REL, FP16_ABS, "fp16 natural"}};
  rt_outputs best = {0};
  for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
    texmem_runtime_desc d = {.layout = cfg[c].layout, .precision = cfg[c].precision,
                             .kernels = g_kernels, .reuse_checker = true};
    rt_outputs o = rt_run(ctx, b->m, &d, in);
    char label[160];
    snprintf(label, sizeof label, "%s (%s)", what, cfg[c].name);
    rt_compare(b->m, &o, ref, cfg[c].rel, cfg[c].abs, label);
    if (c == 0)
      best = o;
    else
      rt_outputs_free(&o);
  }
  /* The planned (BEST) run gives bit for bit the naive one. */
  texmem_runtime_desc naive_d = {.strategy = TEXMEM_STRATEGY_NAIVE,
                                 .layout = TEXMEM_LAYOUT_NATURAL,
                                 .precision = TEXMEM_PRECISION_FP32,
                                 .kernels = g_kernels,
                                 .reuse_checker = true};
  rt_outputs naive = rt_run(ctx, b->m, &naive_d, in);
  char label[160];
  snprintf(label, sizeof label, "%s (fp32 natural, BEST vs NAIVE)", what);
  rt_assert_identical(&best, &naive, label);
  rt_outputs_free(&naive);
  rt_outputs_free(&best);
  if (g_kernel_file) expect_kernel(ctx, b->m, in, what);
  texmem_ref_result_destroy(ref);
  rt_free_arrays(in, n_in);
  texmem_gl_context_destroy(ctx);
  texmem_model_destroy(b->m);
}

/* One op with one data input of shape `is` and output shape `os`. */
static void check_1(texmem_op_type type, const texmem_op_options *o, unsigned ir, const int32_t *is,
                    unsigned orank, const int32_t *os, const char *what) {
  rt_mb b = rt_mb_new();
  int32_t x = rt_mb_input(&b, ir, is), y = rt_mb_tensor(&b, orank, os);
  rt_mb_op(&b, type, &x, 1, y, o);
  rt_mb_output(&b, y);
  mb_check(&b, what);
}

static const int32_t s5x7x6[4] = {1, 5, 7, 6};

Test(rt_ops, unary) {
  check_1(TEXMEM_OP_RELU, NULL, 4, s5x7x6, 4, s5x7x6, "RELU");
  check_1(TEXMEM_OP_RELU6, NULL, 4, s5x7x6, 4, s5x7x6, "RELU6");
  check_1(TEXMEM_OP_LOGISTIC, NULL, 4, s5x7x6, 4, s5x7x6, "LOGISTIC");
  check_1(TEXMEM_OP_HARD_SWISH, NULL, 4, s5x7x6, 4, s5x7x6, "HARD_SWISH");
  const int32_t w1[4] = {1, 3, 1, 5}, r2[2] = {1, 9};
  check_1(TEXMEM_OP_LOGISTIC, NULL, 4, w1, 4, w1, "LOGISTIC width 1");
  check_1(TEXMEM_OP_HARD_SWISH, NULL, 2, r2, 2, r2, "HARD_SWISH rank 2");
}

/* a (op) b where each is a tensor (graph input) or a constant. */
static void check_binary(texmem_op_type type, texmem_activation act, unsigned ra, const int32_t *sa,
                         bool a_const, unsigned rb, const int32_t *sb, bool b_const, unsigned ro,
                         const int32_t *so, const char *what) {
  rt_mb b = rt_mb_new();
  int32_t a = a_const ? mb_const(&b, ra, sa, 11) : rt_mb_input(&b, ra, sa);
  int32_t c = b_const ? mb_const(&b, rb, sb, 13) : rt_mb_input(&b, rb, sb);
  int32_t y = rt_mb_tensor(&b, ro, so), ins[2] = {a, c};
  texmem_op_options o = texmem_op_options_default();
  o.activation = act;
  rt_mb_op(&b, type, ins, 2, y, &o);
  rt_mb_output(&b, y);
  mb_check(&b, what);
}

Test(rt_ops, add_mul_broadcast) {
  const int32_t full[4] = {1, 5, 3, 7}, chan[4] = {1, 1, 1, 7}, c1[1] = {7}, one[1] = {1},
                row[4] = {1, 5, 1, 7}, pix[4] = {1, 5, 3, 1};
  check_binary(TEXMEM_OP_ADD, TEXMEM_ACT_NONE, 4, full, false, 4, full, false, 4, full, "ADD");
  check_binary(TEXMEM_OP_ADD, TEXMEM_ACT_RELU6, 4, full, false, 4, full, false, 4, full,
               "ADD RELU6");
  check_binary(TEXMEM_OP_MUL, TEXMEM_ACT_NONE, 4, full, false, 4, chan, false, 4, full,
               "MUL by a [1,1,1,C] tensor");
  check_binary(TEXMEM_OP_MUL, TEXMEM_ACT_RELU, 4, chan, false, 4, full, false, 4, full,
               "MUL of a [1,1,1,C] tensor by a full one");
  check_binary(TEXMEM_OP_ADD, TEXMEM_ACT_RELU_N1_TO_1, 4, full, false, 1, c1, true, 4, full,
               "ADD constant [C]");
  check_binary(TEXMEM_OP_MUL, TEXMEM_ACT_TANH, 4, full, false, 4, chan, true, 4, full,
               "MUL constant [1,1,1,C]");
  check_binary(TEXMEM_OP_ADD, TEXMEM_ACT_NONE, 4, full, false, 1, one, true, 4, full,
               "ADD scalar constant");
  check_binary(TEXMEM_OP_MUL, TEXMEM_ACT_NONE, 1, c1, true, 4, full, false, 4, full,
               "MUL constant first");
  check_binary(TEXMEM_OP_ADD, TEXMEM_ACT_NONE, 4, full, false, 4, row, false, 4, full,
               "ADD broadcast along width");
  check_binary(TEXMEM_OP_MUL, TEXMEM_ACT_NONE, 4, pix, false, 4, full, false, 4, full,
               "MUL broadcast of one channel");
  check_binary(TEXMEM_OP_ADD, TEXMEM_ACT_NONE, 4, full, false, 4, full, true, 4, full,
               "ADD full constant");
}

Test(rt_ops, add_self) {
  rt_mb b = rt_mb_new();
  const int32_t s[4] = {1, 3, 5, 6};
  int32_t x = rt_mb_input(&b, 4, s), y = rt_mb_tensor(&b, 4, s), ins[2] = {x, x};
  rt_mb_op(&b, TEXMEM_OP_ADD, ins, 2, y, NULL);
  rt_mb_output(&b, y);
  mb_check(&b, "x + x");
}

static void check_pool(texmem_op_type type, const int32_t *is, int32_t fw, int32_t fh, int32_t sw,
                       int32_t sh, texmem_padding pad, texmem_activation act, const char *what) {
  texmem_op_options o = texmem_op_options_default();
  o.filter_w = fw;
  o.filter_h = fh;
  o.stride_w = sw;
  o.stride_h = sh;
  o.padding = pad;
  o.activation = act;
  int32_t os[4] = {is[0], texmem_ref_out_size(pad, is[1], fh, sh, 1),
                   texmem_ref_out_size(pad, is[2], fw, sw, 1), is[3]};
  check_1(type, &o, 4, is, 4, os, what);
}

/* MAX_POOL_2D then AVERAGE_POOL_2D, `label` after the op's name. */
static void check_pools(const int32_t *is, int32_t fw, int32_t fh, int32_t sw, int32_t sh,
                        texmem_padding pad, texmem_activation act, const char *label) {
  for (int t = 0; t < 2; t++) {
    char what[128];
    snprintf(what, sizeof what, "%s %s", t ? "AVERAGE_POOL_2D" : "MAX_POOL_2D", label);
    check_pool(t ? TEXMEM_OP_AVERAGE_POOL_2D : TEXMEM_OP_MAX_POOL_2D, is, fw, fh, sw, sh, pad, act,
               what);
  }
}

Test(rt_ops, pools) {
  const int32_t a[4] = {1, 7, 9, 6}, w1[4] = {1, 5, 1, 3}, g[4] = {1, 6, 5, 5};
  check_pools(a, 3, 3, 2, 2, TEXMEM_PADDING_SAME, TEXMEM_ACT_NONE, "3x3/2 SAME");
  check_pools(a, 2, 2, 2, 2, TEXMEM_PADDING_VALID, TEXMEM_ACT_RELU, "2x2/2 VALID RELU");
  check_pools(w1, 3, 3, 1, 1, TEXMEM_PADDING_SAME, TEXMEM_ACT_NONE, "width 1, 3x3/1 SAME");
  check_pools(g, 5, 6, 5, 6, TEXMEM_PADDING_VALID, TEXMEM_ACT_RELU6, "global 5x6 VALID");
  check_pools(a, 2, 3, 1, 2, TEXMEM_PADDING_SAME, TEXMEM_ACT_NONE, "2x3/(1,2) SAME");
}

static void check_mean(uint32_t axes, bool keep, unsigned orank, const int32_t *os,
                       const char *what) {
  texmem_op_options o = texmem_op_options_default();
  o.reduce_axes = axes;
  o.keep_dims = keep;
  check_1(TEXMEM_OP_MEAN, &o, 4, s5x7x6, orank, os, what);
}

Test(rt_ops, mean) {
  const int32_t hw[2] = {1, 6}, hw_keep[4] = {1, 1, 1, 6}, h[3] = {1, 7, 6}, w[3] = {1, 5, 6},
                c_keep[4] = {1, 5, 7, 1}, all[1] = {1};
  check_mean(6, false, 2, hw, "MEAN H,W");
  check_mean(6, true, 4, hw_keep, "MEAN H,W keep_dims");
  check_mean(2, false, 3, h, "MEAN H");
  check_mean(4, false, 3, w, "MEAN W (H becomes the output's width)");
  check_mean(8, true, 4, c_keep, "MEAN C keep_dims");
  check_mean(14, false, 1, all, "MEAN H,W,C");
}

/* The GPU kernels (forced here, AUTO's choice on a GPU): a pool whose
 * window covers the plane and a MEAN over H and W alone run
 * op_reduce_hw.comp, a work group a texel folding partials in shared
 * memory; planes larger than the group take several texels an
 * invocation, and larger planes larger groups (128 to 512 invocations:
 * 37x41, 64x64, 96x90). Other pools and MEANs keep their kernels. */
Test(rt_ops, global_reductions_gpu_kernel) {
  g_kernels = TEXMEM_KERNELS_TILED;
  g_kernel_file = "op_reduce_hw.comp";
  const int32_t g[4] = {1, 6, 5, 5}, a[4] = {1, 7, 9, 6}, big[4] = {1, 37, 41, 10},
                g2[4] = {2, 6, 5, 5}, huge[4] = {1, 96, 90, 7};
  check_pools(g, 5, 6, 5, 6, TEXMEM_PADDING_VALID, TEXMEM_ACT_RELU6, "global 5x6 VALID RELU6");
  check_pools(a, 11, 9, 11, 9, TEXMEM_PADDING_SAME, TEXMEM_ACT_NONE, "11x9 SAME over a 9x7 plane");
  check_pools(big, 41, 37, 41, 37, TEXMEM_PADDING_VALID, TEXMEM_ACT_TANH, "global 41x37");
  check_pools(g2, 5, 6, 5, 6, TEXMEM_PADDING_VALID, TEXMEM_ACT_NONE, "global batch 2");
  check_pools(huge, 90, 96, 90, 96, TEXMEM_PADDING_VALID, TEXMEM_ACT_NONE, "global 90x96");
  const int32_t hw[2] = {1, 6}, hw_keep[4] = {1, 1, 1, 6}, hw2[2] = {2, 6}, m2[4] = {2, 5, 7, 6},
                hwb[2] = {1, 10}, sq[4] = {2, 64, 64, 9};
  check_mean(6, false, 2, hw, "MEAN H,W (reduce_hw)");
  check_mean(6, true, 4, hw_keep, "MEAN H,W keep_dims (reduce_hw)");
  texmem_op_options o = texmem_op_options_default();
  o.reduce_axes = 6;
  check_1(TEXMEM_OP_MEAN, &o, 4, m2, 2, hw2, "MEAN H,W batch 2 (reduce_hw)");
  check_1(TEXMEM_OP_MEAN, &o, 4, big, 2, hwb, "MEAN H,W of 41x37 (reduce_hw)");
  check_1(TEXMEM_OP_MEAN, &o, 4, sq, 2, (const int32_t[2]){2, 9}, "MEAN H,W of 64x64 (reduce_hw)");
  g_kernel_file = "op_pool.comp";
  check_pool(TEXMEM_OP_AVERAGE_POOL_2D, a, 3, 3, 2, 2, TEXMEM_PADDING_SAME, TEXMEM_ACT_NONE,
             "AVERAGE_POOL_2D 3x3/2 SAME (op_pool)");
  g_kernel_file = "op_mean.comp";
  const int32_t h[3] = {1, 7, 6};
  check_mean(2, false, 3, h, "MEAN H (op_mean)");
}

/* RESIZE_BILINEAR or RESIZE_NEAREST_NEIGHBOR of is to oh x ow. */
static void check_resize(texmem_op_type type, const int32_t *is, int32_t oh, int32_t ow, bool ac,
                         bool hp, const char *what) {
  rt_mb b = rt_mb_new();
  int32_t x = rt_mb_input(&b, 4, is), os[4] = {is[0], oh, ow, is[3]}, y = rt_mb_tensor(&b, 4, os);
  const int32_t two = 2, size[2] = {oh, ow};
  int32_t sz;
  TG_OK(texmem_model_add_constant(b.m, NULL, TEXMEM_DTYPE_INT32, 1, &two, size, sizeof size, &sz,
                                  &tg_err_));
  texmem_op_options o = texmem_op_options_default();
  o.align_corners = ac;
  o.half_pixel_centers = hp;
  int32_t ins[2] = {x, sz};
  rt_mb_op(&b, type, ins, 2, y, &o);
  rt_mb_output(&b, y);
  mb_check(&b, what);
}

Test(rt_ops, resize_bilinear) {
  const int32_t a[4] = {1, 4, 5, 6}, w1[4] = {1, 3, 1, 5};
  check_resize(TEXMEM_OP_RESIZE_BILINEAR, a, 8, 10, false, true, "RESIZE x2 half_pixel_centers");
  check_resize(TEXMEM_OP_RESIZE_BILINEAR, a, 7, 9, true, false, "RESIZE align_corners");
  check_resize(TEXMEM_OP_RESIZE_BILINEAR, a, 3, 7, false, false, "RESIZE plain, down in H");
  check_resize(TEXMEM_OP_RESIZE_BILINEAR, a, 9, 3, false, true, "RESIZE half_pixel_centers, odd sizes");
  check_resize(TEXMEM_OP_RESIZE_BILINEAR, w1, 6, 2, false, false, "RESIZE from width 1");
  check_resize(TEXMEM_OP_RESIZE_BILINEAR, w1, 5, 3, true, false, "RESIZE align_corners from width 1");
}

static void check_pad(unsigned rank, const int32_t *is, const int32_t (*pad)[2], const char *what) {
  texmem_op_options o = texmem_op_options_default();
  o.pad_rank = rank;
  int32_t os[4];
  for (unsigned i = 0; i < rank; i++) {
    o.pad[i][0] = pad[i][0];
    o.pad[i][1] = pad[i][1];
    os[i] = is[i] + pad[i][0] + pad[i][1];
  }
  check_1(TEXMEM_OP_PAD, &o, rank, is, rank, os, what);
}

Test(rt_ops, pad) {
  const int32_t a[4] = {1, 5, 4, 6}, c24[4] = {1, 3, 2, 24}, c5[4] = {1, 2, 3, 5}, r3[3] = {1, 6, 3};
  const int32_t sp[4][2] = {{0, 0}, {1, 1}, {2, 0}, {0, 0}};
  const int32_t ch[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 4}};
  const int32_t ch_front[4][2] = {{0, 0}, {0, 0}, {0, 0}, {8, 2}};
  const int32_t odd[4][2] = {{0, 0}, {1, 0}, {0, 2}, {3, 2}};
  const int32_t p3[3][2] = {{0, 0}, {2, 1}, {1, 0}};
  check_pad(4, a, sp, "PAD spatial");
  check_pad(4, c24, ch, "PAD channels after (24 -> 28)");
  check_pad(4, c24, ch_front, "PAD channels before, aligned");
  check_pad(4, c5, odd, "PAD channels before, unaligned, and spatial");
  check_pad(3, r3, p3, "PAD rank 3");
}

/* CONCATENATION of inputs of shapes shapes[i] (rank r) along axis. */
static void check_concat(unsigned r, const int32_t (*shapes)[4], size_t n, int32_t axis,
                         texmem_activation act, const char *what) {
  rt_mb b = rt_mb_new();
  int32_t ins[24], os[4];
  cr_assert(n <= 24);
  memcpy(os, shapes[0], sizeof os);
  int32_t ax = axis < 0 ? axis + (int32_t)r : axis;
  os[ax] = 0;
  for (size_t i = 0; i < n; i++) {
    ins[i] = rt_mb_input(&b, r, shapes[i]);
    os[ax] += shapes[i][ax];
  }
  int32_t y = rt_mb_tensor(&b, r, os);
  texmem_op_options o = texmem_op_options_default();
  o.axis = axis;
  o.activation = act;
  rt_mb_op(&b, TEXMEM_OP_CONCATENATION, ins, n, y, &o);
  rt_mb_output(&b, y);
  mb_check(&b, what);
}

Test(rt_ops, concatenation) {
  const int32_t unaligned[3][4] = {{1, 4, 3, 5}, {1, 4, 3, 3}, {1, 4, 3, 4}};
  const int32_t aligned[2][4] = {{1, 4, 3, 4}, {1, 4, 3, 6}};
  const int32_t hs[3][4] = {{1, 2, 3, 5}, {1, 4, 3, 5}, {1, 1, 3, 5}};
  const int32_t ws[2][4] = {{1, 2, 3, 6}, {1, 2, 1, 6}};
  const int32_t r3[2][4] = {{1, 6, 1}, {1, 5, 1}};
  const int32_t r3c[2][4] = {{1, 6, 16}, {1, 5, 16}};
  check_concat(4, unaligned, 3, 3, TEXMEM_ACT_NONE, "CONCAT channels 5+3+4");
  check_concat(4, aligned, 2, -1, TEXMEM_ACT_RELU, "CONCAT channels 4+6, axis -1, RELU");
  check_concat(4, hs, 3, 1, TEXMEM_ACT_NONE, "CONCAT height");
  check_concat(4, ws, 2, 2, TEXMEM_ACT_NONE, "CONCAT width");
  check_concat(3, r3, 2, 1, TEXMEM_ACT_NONE, "CONCAT rank 3 axis 1, C=1");
  check_concat(3, r3c, 2, 1, TEXMEM_ACT_NONE, "CONCAT rank 3 axis 1, C=16");
}

Test(rt_ops, concatenation_same_input_twice) {
  rt_mb b = rt_mb_new();
  const int32_t s[4] = {1, 3, 2, 3}, os[4] = {1, 3, 2, 9};
  int32_t x = rt_mb_input(&b, 4, s), z = rt_mb_input(&b, 4, s), y = rt_mb_tensor(&b, 4, os);
  int32_t ins[3] = {x, z, x};
  texmem_op_options o = texmem_op_options_default();
  o.axis = 3;
  rt_mb_op(&b, TEXMEM_OP_CONCATENATION, ins, 3, y, &o);
  rt_mb_output(&b, y);
  mb_check(&b, "CONCAT (x, z, x)");
}

static void check_reshape(unsigned ir, const int32_t *is, unsigned orank, const int32_t *os,
                          const char *what) {
  texmem_op_options o = texmem_op_options_default();
  o.new_shape_rank = orank;
  for (unsigned i = 0; i < orank; i++) o.new_shape[i] = os[i];
  check_1(TEXMEM_OP_RESHAPE, &o, ir, is, orank, os, what);
}

Test(rt_ops, reshape) {
  const int32_t a[4] = {1, 4, 4, 2}, a_out[3] = {1, 32, 1};
  const int32_t b[4] = {1, 4, 4, 8}, b_out[3] = {1, 32, 4};
  const int32_t c[4] = {1, 1, 1, 7}, c_out[2] = {1, 7};
  const int32_t d[4] = {1, 6, 4, 5}, d_out[4] = {1, 4, 6, 5};
  const int32_t e[4] = {1, 3, 5, 6}, e_out[4] = {1, 5, 2, 9};
  const int32_t f_out[2] = {1, 90};
  check_reshape(4, a, 3, a_out, "RESHAPE [1,4,4,2] -> [1,32,1]");
  check_reshape(4, b, 3, b_out, "RESHAPE [1,4,4,8] -> [1,32,4]");
  check_reshape(4, c, 2, c_out, "RESHAPE [1,1,1,7] -> [1,7] (copy)");
  check_reshape(4, d, 4, d_out, "RESHAPE same channels (texels)");
  check_reshape(4, e, 4, e_out, "RESHAPE general");
  check_reshape(4, e, 2, f_out, "RESHAPE flatten");
}

Test(rt_ops, depth_to_space) {
  const int32_t a[4] = {1, 3, 4, 8}, a_out[4] = {1, 6, 8, 2};
  const int32_t b[4] = {1, 2, 3, 12}, b_out[4] = {1, 4, 6, 3};
  const int32_t c[4] = {1, 2, 1, 18}, c_out[4] = {1, 6, 3, 2};
  texmem_op_options o = texmem_op_options_default();
  o.block_size = 2;
  check_1(TEXMEM_OP_DEPTH_TO_SPACE, &o, 4, a, 4, a_out, "DEPTH_TO_SPACE 2, C 8");
  check_1(TEXMEM_OP_DEPTH_TO_SPACE, &o, 4, b, 4, b_out, "DEPTH_TO_SPACE 2, C 12");
  o.block_size = 3;
  check_1(TEXMEM_OP_DEPTH_TO_SPACE, &o, 4, c, 4, c_out, "DEPTH_TO_SPACE 3, width 1");
}

/* Batch 2 through every kernel of this file: each batch image differs
 * (seeded input) and lands at texel z = b * slices + s. */
Test(rt_ops, batch_2_elementwise) {
  const int32_t b2[4] = {2, 5, 3, 7}, b1[4] = {1, 5, 3, 7}, chan[4] = {2, 1, 1, 7}, c1[1] = {7},
                r2[2] = {2, 9}, r2c[1] = {9}, r3[3] = {2, 4, 6}, pix[4] = {2, 5, 3, 1};
  check_1(TEXMEM_OP_RELU6, NULL, 4, b2, 4, b2, "RELU6 batch 2");
  check_1(TEXMEM_OP_LOGISTIC, NULL, 2, r2, 2, r2, "LOGISTIC [2, 9]");
  check_binary(TEXMEM_OP_ADD, TEXMEM_ACT_NONE, 4, b2, false, 4, b2, false, 4, b2, "ADD batch 2");
  check_binary(TEXMEM_OP_MUL, TEXMEM_ACT_NONE, 4, b2, false, 4, b1, false, 4, b2,
               "MUL batch 2 by a batch 1 tensor");
  check_binary(TEXMEM_OP_ADD, TEXMEM_ACT_RELU, 4, b1, false, 4, b2, true, 4, b2,
               "ADD batch 1 tensor + batch 2 constant");
  check_binary(TEXMEM_OP_MUL, TEXMEM_ACT_NONE, 4, chan, false, 4, b2, false, 4, b2,
               "MUL [2,1,1,C] by [2,H,W,C]");
  check_binary(TEXMEM_OP_ADD, TEXMEM_ACT_NONE, 4, b2, false, 4, pix, false, 4, b2,
               "ADD one channel per batch");
  check_binary(TEXMEM_OP_MUL, TEXMEM_ACT_NONE, 4, b2, false, 1, c1, true, 4, b2,
               "MUL batch 2 by constant [C]");
  check_binary(TEXMEM_OP_ADD, TEXMEM_ACT_NONE, 2, r2, false, 1, r2c, false, 2, r2,
               "ADD [2, 9] + [9]");
  check_binary(TEXMEM_OP_ADD, TEXMEM_ACT_NONE, 3, r3, false, 3, r3, true, 3, r3,
               "ADD rank 3 batch 2 + constant");
}

Test(rt_ops, batch_2_pool_mean_resize) {
  const int32_t a[4] = {2, 7, 9, 6}, g[4] = {2, 6, 5, 5}, m[4] = {2, 5, 7, 6};
  check_pool(TEXMEM_OP_MAX_POOL_2D, a, 3, 3, 2, 2, TEXMEM_PADDING_SAME, TEXMEM_ACT_NONE,
             "MAX_POOL batch 2");
  check_pool(TEXMEM_OP_AVERAGE_POOL_2D, g, 5, 6, 5, 6, TEXMEM_PADDING_VALID, TEXMEM_ACT_NONE,
             "AVERAGE_POOL global batch 2");
  const int32_t hw[2] = {2, 6}, c_keep[4] = {2, 5, 7, 1}, h[3] = {2, 7, 6};
  texmem_op_options o = texmem_op_options_default();
  o.reduce_axes = 6;
  check_1(TEXMEM_OP_MEAN, &o, 4, m, 2, hw, "MEAN H,W batch 2");
  o.reduce_axes = 8;
  o.keep_dims = true;
  check_1(TEXMEM_OP_MEAN, &o, 4, m, 4, c_keep, "MEAN C keep_dims batch 2");
  o.reduce_axes = 2;
  o.keep_dims = false;
  check_1(TEXMEM_OP_MEAN, &o, 4, m, 3, h, "MEAN H batch 2");
  const int32_t bk[4] = {1, 5, 7, 6}, bhw[1] = {6}, bc[4] = {1, 5, 7, 1};
  o.reduce_axes = 1;
  o.keep_dims = true;
  check_1(TEXMEM_OP_MEAN, &o, 4, m, 4, bk, "MEAN over the batch, keep_dims");
  o.reduce_axes = 7;
  o.keep_dims = false;
  check_1(TEXMEM_OP_MEAN, &o, 4, m, 1, bhw, "MEAN over B,H,W");
  o.reduce_axes = 9;
  o.keep_dims = true;
  check_1(TEXMEM_OP_MEAN, &o, 4, m, 4, bc, "MEAN over B and C, keep_dims");
  const int32_t r[4] = {2, 4, 5, 6};
  check_resize(TEXMEM_OP_RESIZE_BILINEAR, r, 7, 9, true, false, "RESIZE align_corners batch 2");
  check_resize(TEXMEM_OP_RESIZE_BILINEAR, r, 8, 10, false, true, "RESIZE half_pixel_centers batch 2");
}

Test(rt_ops, batch_2_data_movement) {
  const int32_t c5[4] = {2, 2, 3, 5}, a[4] = {2, 5, 4, 6};
  const int32_t odd[4][2] = {{0, 0}, {1, 0}, {0, 2}, {3, 2}};
  const int32_t ch_front[4][2] = {{0, 0}, {0, 0}, {1, 1}, {8, 2}};
  check_pad(4, c5, odd, "PAD unaligned channels + spatial, batch 2");
  check_pad(4, a, ch_front, "PAD aligned channels, batch 2");
  const int32_t bp[4][2] = {{1, 2}, {0, 1}, {0, 0}, {1, 0}};
  const int32_t bp3[3][2] = {{2, 0}, {1, 0}, {0, 0}};
  const int32_t r3[3] = {2, 3, 4};
  check_pad(4, c5, bp, "PAD the batch (1 before, 2 after), H and C");
  check_pad(3, r3, bp3, "PAD rank 3 batch 2 before");
  const int32_t unaligned[3][4] = {{2, 4, 3, 5}, {2, 4, 3, 3}, {2, 4, 3, 4}};
  const int32_t aligned[2][4] = {{2, 4, 3, 4}, {2, 4, 3, 6}};
  const int32_t hs[2][4] = {{2, 2, 3, 5}, {2, 4, 3, 5}};
  const int32_t ws[2][4] = {{2, 2, 3, 6}, {2, 2, 1, 6}};
  check_concat(4, unaligned, 3, 3, TEXMEM_ACT_NONE, "CONCAT channels 5+3+4, batch 2");
  check_concat(4, aligned, 2, 3, TEXMEM_ACT_NONE, "CONCAT channels 4+6, batch 2");
  check_concat(4, hs, 2, 1, TEXMEM_ACT_NONE, "CONCAT height, batch 2");
  check_concat(4, ws, 2, 2, TEXMEM_ACT_NONE, "CONCAT width, batch 2");
  const int32_t bs[3][4] = {{1, 3, 2, 5}, {2, 3, 2, 5}, {1, 3, 2, 5}};
  const int32_t bs2[2][4] = {{1, 7}, {2, 7}};
  check_concat(4, bs, 3, 0, TEXMEM_ACT_NONE, "CONCAT along the batch 1+2+1");
  check_concat(2, bs2, 2, -2, TEXMEM_ACT_RELU, "CONCAT [1,7] and [2,7] along the batch, RELU");
  const int32_t e[4] = {2, 3, 5, 6}, e_out[4] = {2, 5, 2, 9}, f_out[2] = {2, 90};
  const int32_t d[4] = {2, 6, 4, 5}, d_out[4] = {2, 4, 6, 5}, g_out[4] = {1, 6, 8, 5};
  const int32_t x_out[2] = {12, 15};
  check_reshape(4, e, 4, e_out, "RESHAPE general, batch 2");
  check_reshape(4, e, 2, f_out, "RESHAPE flatten, batch 2");
  check_reshape(4, d, 4, d_out, "RESHAPE same channels, batch 2");
  check_reshape(4, d, 4, g_out, "RESHAPE batch 2 into batch 1");
  check_reshape(4, e, 2, x_out, "RESHAPE batch 2 into 12 rows");
  texmem_op_options o = texmem_op_options_default();
  o.block_size = 2;
  const int32_t s[4] = {2, 3, 4, 12}, s_out[4] = {2, 6, 8, 3};
  check_1(TEXMEM_OP_DEPTH_TO_SPACE, &o, 4, s, 4, s_out, "DEPTH_TO_SPACE batch 2");
}

/* ---- issue 8 element-wise ops ---- */

Test(rt_ops, tanh_leaky_relu) {
  const int32_t b2[4] = {2, 3, 5, 6}, r2[2] = {3, 9};
  check_1(TEXMEM_OP_TANH, NULL, 4, s5x7x6, 4, s5x7x6, "TANH");
  check_1(TEXMEM_OP_TANH, NULL, 2, r2, 2, r2, "TANH [3, 9]");
  texmem_op_options o = texmem_op_options_default();
  o.alpha = 0.2f;
  check_1(TEXMEM_OP_LEAKY_RELU, &o, 4, s5x7x6, 4, s5x7x6, "LEAKY_RELU 0.2");
  o.alpha = -1.5f;
  check_1(TEXMEM_OP_LEAKY_RELU, &o, 4, b2, 4, b2, "LEAKY_RELU -1.5, batch 2");
}

Test(rt_ops, sub_div) {
  const int32_t full[4] = {1, 5, 3, 7}, chan[4] = {1, 1, 1, 7}, c1[1] = {7}, one[1] = {1},
                b2[4] = {2, 5, 3, 7}, row[4] = {1, 5, 1, 7};
  check_binary(TEXMEM_OP_SUB, TEXMEM_ACT_NONE, 4, full, false, 4, full, false, 4, full, "SUB");
  check_binary(TEXMEM_OP_SUB, TEXMEM_ACT_RELU, 4, full, false, 1, c1, true, 4, full,
               "SUB constant [C], RELU");
  check_binary(TEXMEM_OP_SUB, TEXMEM_ACT_RELU6, 1, c1, true, 4, full, false, 4, full,
               "SUB constant first (c - x), RELU6");
  check_binary(TEXMEM_OP_SUB, TEXMEM_ACT_NONE, 4, chan, false, 4, b2, false, 4, b2,
               "SUB [1,1,1,C] - batch 2");
  check_binary(TEXMEM_OP_DIV, TEXMEM_ACT_NONE, 4, full, false, 4, full, false, 4, full, "DIV");
  check_binary(TEXMEM_OP_DIV, TEXMEM_ACT_RELU_N1_TO_1, 4, full, false, 1, one, true, 4, full,
               "DIV by scalar constant, RELU_N1_TO_1");
  check_binary(TEXMEM_OP_DIV, TEXMEM_ACT_NONE, 1, one, true, 4, full, false, 4, full,
               "DIV constant first (c / x)");
  check_binary(TEXMEM_OP_DIV, TEXMEM_ACT_TANH, 4, b2, false, 4, row, false, 4, b2,
               "DIV batch 2 by a row, TANH");
}

Test(rt_ops, maximum_minimum) {
  const int32_t full[4] = {1, 5, 3, 7}, c1[1] = {7}, b2[4] = {2, 5, 3, 7}, pix[4] = {1, 5, 3, 1},
                one[1] = {1};
  check_binary(TEXMEM_OP_MAXIMUM, TEXMEM_ACT_NONE, 4, full, false, 4, full, false, 4, full,
               "MAXIMUM");
  check_binary(TEXMEM_OP_MINIMUM, TEXMEM_ACT_NONE, 4, full, false, 4, full, false, 4, full,
               "MINIMUM");
  check_binary(TEXMEM_OP_MAXIMUM, TEXMEM_ACT_NONE, 1, c1, true, 4, b2, false, 4, b2,
               "MAXIMUM constant [C] first, batch 2");
  check_binary(TEXMEM_OP_MINIMUM, TEXMEM_ACT_NONE, 4, full, false, 1, one, true, 4, full,
               "MINIMUM with a scalar constant");
  check_binary(TEXMEM_OP_MINIMUM, TEXMEM_ACT_NONE, 4, b2, false, 4, pix, false, 4, b2,
               "MINIMUM with one channel broadcast");
}

Test(rt_ops, prelu) {
  const int32_t full[4] = {1, 5, 3, 7}, a3[3] = {1, 1, 7}, c1[1] = {7}, one[1] = {1},
                hwc[3] = {5, 3, 7}, b2[4] = {2, 4, 3, 6}, a3b[3] = {1, 1, 6};
  check_binary(TEXMEM_OP_PRELU, TEXMEM_ACT_NONE, 4, full, false, 3, a3, true, 4, full,
               "PRELU per-channel alpha [1,1,C] (TFLite's shape)");
  check_binary(TEXMEM_OP_PRELU, TEXMEM_ACT_NONE, 4, full, false, 1, one, true, 4, full,
               "PRELU scalar alpha");
  check_binary(TEXMEM_OP_PRELU, TEXMEM_ACT_NONE, 4, full, false, 3, hwc, true, 4, full,
               "PRELU alpha [H,W,C]");
  check_binary(TEXMEM_OP_PRELU, TEXMEM_ACT_NONE, 4, full, false, 1, c1, false, 4, full,
               "PRELU alpha a tensor [C]");
  check_binary(TEXMEM_OP_PRELU, TEXMEM_ACT_NONE, 4, b2, false, 3, a3b, true, 4, b2,
               "PRELU per-channel alpha, batch 2");
}

static void check_softmax(unsigned r, const int32_t *s, float beta, const char *what) {
  texmem_op_options o = texmem_op_options_default();
  o.beta = beta;
  check_1(TEXMEM_OP_SOFTMAX, &o, r, s, r, s, what);
}

Test(rt_ops, softmax) {
  const int32_t c7[4] = {1, 3, 5, 7}, c8[4] = {2, 2, 3, 8}, c1[4] = {1, 2, 3, 1}, r2[2] = {3, 9},
                c13[3] = {2, 4, 13};
  check_softmax(4, c7, 1.0f, "SOFTMAX C 7");
  check_softmax(4, c8, 0.5f, "SOFTMAX C 8, beta 0.5, batch 2");
  check_softmax(4, c1, 1.0f, "SOFTMAX C 1 (all ones)");
  check_softmax(2, r2, 2.0f, "SOFTMAX [3, 9], beta 2");
  check_softmax(3, c13, 1.0f, "SOFTMAX rank 3 batch 2, C 13");
}

Test(rt_ops, resize_nearest_neighbor) {
  const int32_t a[4] = {1, 4, 5, 6}, w1[4] = {1, 3, 1, 5}, b2[4] = {2, 5, 3, 3};
  check_resize(TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR, a, 8, 10, false, false, "NEAREST x2");
  check_resize(TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR, a, 7, 9, true, false, "NEAREST align_corners");
  check_resize(TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR, a, 9, 7, false, true, "NEAREST half_pixel_centers");
  check_resize(TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR, a, 7, 3, true, true, "NEAREST align_corners and half_pixel_centers");
  check_resize(TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR, a, 3, 2, false, false, "NEAREST down");
  check_resize(TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR, w1, 6, 2, false, true, "NEAREST from width 1");
  check_resize(TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR, b2, 11, 7, false, true, "NEAREST half_pixel_centers, batch 2");
}

/* More inputs than one program binds (8): several passes, each writing
 * its own range of the output; an unaligned channel texel shared by two
 * passes' inputs goes to the later pass. */
Test(rt_ops, concatenation_many_inputs) {
  int32_t ch[20][4], w[11][4], h[10][4], c1[13][4];
  for (int i = 0; i < 20; i++) {
    ch[i][0] = 1; ch[i][1] = 3; ch[i][2] = 2; ch[i][3] = 1 + (i * 5) % 7;
  }
  for (int i = 0; i < 11; i++) {
    w[i][0] = 2; w[i][1] = 3; w[i][2] = 1 + i % 3; w[i][3] = 5;
  }
  for (int i = 0; i < 10; i++) {
    h[i][0] = 1; h[i][1] = 1 + i % 2; h[i][2] = 3; h[i][3] = 6;
  }
  for (int i = 0; i < 13; i++) {
    c1[i][0] = 2; c1[i][1] = 2; c1[i][2] = 3; c1[i][3] = 1;
  }
  check_concat(4, ch, 20, 3, TEXMEM_ACT_NONE, "CONCAT 20 inputs along channels, unaligned");
  check_concat(4, w, 11, 2, TEXMEM_ACT_RELU, "CONCAT 11 inputs along width, batch 2, RELU");
  check_concat(4, h, 10, 1, TEXMEM_ACT_NONE, "CONCAT 10 inputs along height");
  check_concat(4, c1, 13, -1, TEXMEM_ACT_NONE, "CONCAT 13 one-channel inputs, batch 2");
  int32_t c4[9][4];
  for (int i = 0; i < 9; i++) {
    c4[i][0] = 1; c4[i][1] = 2; c4[i][2] = 2; c4[i][3] = 4 * (1 + i % 2);
  }
  check_concat(4, c4, 9, 3, TEXMEM_ACT_NONE, "CONCAT 9 inputs along channels, aligned");
  int32_t bt[10][4];
  for (int i = 0; i < 10; i++) {
    bt[i][0] = 1 + i % 2; bt[i][1] = 2; bt[i][2] = 3; bt[i][3] = 3;
  }
  check_concat(4, bt, 10, 0, TEXMEM_ACT_NONE, "CONCAT 10 inputs along the batch");
}

Test(rt_ops, concatenation_many_inputs_repeated) {
  /* 12 segments of 2 distinct tensors: each pass binds them once. */
  rt_mb b = rt_mb_new();
  const int32_t s[4] = {1, 2, 3, 3}, os[4] = {1, 2, 3, 36};
  int32_t x = rt_mb_input(&b, 4, s), z = rt_mb_input(&b, 4, s), y = rt_mb_tensor(&b, 4, os);
  int32_t ins[12];
  for (int i = 0; i < 12; i++) ins[i] = i % 3 ? x : z;
  texmem_op_options o = texmem_op_options_default();
  o.axis = 3;
  rt_mb_op(&b, TEXMEM_OP_CONCATENATION, ins, 12, y, &o);
  rt_mb_output(&b, y);
  mb_check(&b, "CONCAT 12 segments of (z, x, x)");
}

/* Unsupported input is refused with a message naming the op and index,
 * and nothing leaks (the sanitizer build checks). */
/* ---- slicing: STRIDED_SLICE, SPLIT, SPLIT_V ---- */

static void check_slice(unsigned ir, const int32_t *is, const int32_t *begin, const int32_t *end,
                        const int32_t *strides, uint32_t bmask, uint32_t emask, uint32_t smask,
                        unsigned orank, const int32_t *os, const char *what) {
  texmem_op_options o = texmem_op_options_default();
  o.slice_rank = ir;
  memcpy(o.slice_begin, begin, ir * sizeof *begin);
  memcpy(o.slice_end, end, ir * sizeof *end);
  memcpy(o.slice_stride, strides, ir * sizeof *strides);
  o.begin_mask = bmask;
  o.end_mask = emask;
  o.shrink_axis_mask = smask;
  check_1(TEXMEM_OP_STRIDED_SLICE, &o, ir, is, orank, os, what);
}

Test(rt_ops, strided_slice) {
  const int32_t a[4] = {2, 5, 7, 6}, a_out[4] = {2, 2, 3, 5};
  check_slice(4, a, (int32_t[]){0, 1, 0, 1}, (int32_t[]){2, 5, 7, 6}, (int32_t[]){1, 2, 3, 1}, 0,
              0, 0, 4, a_out, "STRIDED_SLICE strides 2 and 3, channels from 1, batch 2");
  const int32_t b_out[4] = {1, 2, 7, 6}, b[4] = {1, 5, 7, 6};
  check_slice(4, b, (int32_t[]){0, -1, 0, 0}, (int32_t[]){1, 0, 3, 0}, (int32_t[]){1, -2, 1, -1},
              8, 12, 0, 4, b_out, "STRIDED_SLICE negative strides, begin/end masks");
  const int32_t c[4] = {1, 4, 4, 6}, c_out[3] = {1, 4, 6};
  check_slice(4, c, (int32_t[]){0, 0, 2, 0}, (int32_t[]){1, 4, 3, 6}, (int32_t[]){1, 1, 1, 1}, 0,
              0, 4, 3, c_out, "STRIDED_SLICE shrink W: H becomes the output's W");
  const int32_t d[4] = {1, 3, 5, 8}, d_out[3] = {1, 3, 5};
  check_slice(4, d, (int32_t[]){0, 0, 0, -5}, (int32_t[]){1, 3, 5, 0}, (int32_t[]){1, 1, 1, 1}, 0,
              0, 8, 3, d_out, "STRIDED_SLICE shrink channel 3: W becomes channels");
  const int32_t e[2] = {3, 10}, e_out[2] = {2, 3};
  check_slice(2, e, (int32_t[]){1, 2}, (int32_t[]){3, 9}, (int32_t[]){1, 3}, 0, 0, 0, 2, e_out,
              "STRIDED_SLICE rank 2, batch 2 out");
  const int32_t f[4] = {1, 3, 4, 12}, f_out[4] = {1, 3, 4, 7};
  check_slice(4, f, (int32_t[]){0, 0, 0, 4}, (int32_t[]){1, 3, 4, 11}, (int32_t[]){1, 1, 1, 1}, 0,
              0, 0, 4, f_out, "STRIDED_SLICE aligned channels 4..10 (texel path)");
  const int32_t g[4] = {3, 2, 3, 5}, g_out[3] = {2, 3, 5};
  check_slice(4, g, (int32_t[]){2, 0, 0, 0}, (int32_t[]){3, 2, 3, 5}, (int32_t[]){1, 1, 1, 1}, 0,
              0, 1, 3, g_out, "STRIDED_SLICE shrink the batch: H becomes the batch");
}

/* SPLIT (v false: inputs axis, data; equal pieces) or SPLIT_V (data,
 * sizes, axis) of x into n outputs of shapes os along axis. */
static void check_split(bool v, unsigned rank, const int32_t *is, int32_t axis, size_t n,
                        const int32_t (*os)[4], const char *what) {
  rt_mb b = rt_mb_new();
  int32_t x = rt_mb_input(&b, rank, is), outs[4];
  for (size_t i = 0; i < n; i++) outs[i] = rt_mb_tensor(&b, rank, os[i]);
  int32_t one = 1, nn = (int32_t)n, sizes[4], ax, sz;
  int32_t ai = axis < 0 ? axis + (int32_t)rank : axis;
  for (size_t i = 0; i < n; i++) sizes[i] = os[i][ai];
  TG_OK(texmem_model_add_constant(b.m, "axis", TEXMEM_DTYPE_INT32, 1, &one, &axis, sizeof axis,
                                  &ax, &tg_err_));
  TG_OK(texmem_model_add_constant(b.m, "sizes", TEXMEM_DTYPE_INT32, 1, &nn, sizes,
                                  n * sizeof *sizes, &sz, &tg_err_));
  texmem_op_options o = texmem_op_options_default();
  o.axis = axis;
  o.num_splits = (int32_t)n;
  int32_t ins[3] = {v ? x : ax, v ? sz : x, ax};
  TG_OK(texmem_model_add_op(b.m, v ? TEXMEM_OP_SPLIT_V : TEXMEM_OP_SPLIT, ins, v ? 3 : 2, outs, n,
                            &o, NULL, &tg_err_));
  for (size_t i = 0; i < n; i++) rt_mb_output(&b, outs[i]);
  mb_check(&b, what);
}

Test(rt_ops, split) {
  const int32_t a[4] = {2, 4, 5, 9};
  const int32_t av[3][4] = {{2, 4, 5, 2}, {2, 4, 5, 4}, {2, 4, 5, 3}};
  check_split(true, 4, a, 3, 3, av, "SPLIT_V channels 2+4+3, batch 2");
  const int32_t ah[2][4] = {{2, 2, 5, 9}, {2, 2, 5, 9}};
  check_split(false, 4, a, 1, 2, ah, "SPLIT H in 2");
  const int32_t ab[2][4] = {{1, 4, 5, 9}, {1, 4, 5, 9}};
  check_split(false, 4, a, 0, 2, ab, "SPLIT the batch in 2");
  const int32_t aw[2][4] = {{2, 4, 1, 9}, {2, 4, 4, 9}};
  check_split(true, 4, a, 2, 2, aw, "SPLIT_V W 1+4");
  const int32_t c[4] = {1, 3, 2, 16};
  const int32_t c4[4][4] = {{1, 3, 2, 4}, {1, 3, 2, 4}, {1, 3, 2, 4}, {1, 3, 2, 4}};
  check_split(false, 4, c, -1, 4, c4, "SPLIT channels in 4 (axis -1)");
  const int32_t r[2] = {3, 10};
  const int32_t r2[2][4] = {{3, 7}, {3, 3}};
  check_split(true, 2, r, 1, 2, r2, "SPLIT_V rank 2 channels 7+3");
}

Test(rt_ops, refusals) {
  texmem_gl_context *ctx = tg_context();
  texmem_error err = {0};
  texmem_runtime *rt = (texmem_runtime *)1;
  /* MEAN over the batch of [2,3,1,4] without keep_dims: the output
   * [3,1,4] makes H its batch (every kernel runs batch > 1, but this
   * reshuffle is refused). */
  rt_mb b = rt_mb_new();
  const int32_t s2[4] = {2, 3, 1, 4}, s2_out[3] = {3, 1, 4};
  int32_t x = rt_mb_input(&b, 4, s2), y = rt_mb_tensor(&b, 3, s2_out);
  texmem_op_options bo = texmem_op_options_default();
  bo.reduce_axes = 1;
  rt_mb_op(&b, TEXMEM_OP_MEAN, &x, 1, y, &bo);
  rt_mb_output(&b, y);
  TG_OK(texmem_model_set_io(b.m, b.in, b.n_in, b.out, b.n_out, &tg_err_));
  cr_assert_eq(texmem_runtime_create(ctx, b.m, NULL, &rt, &err), TEXMEM_STATUS_UNSUPPORTED_OP);
  cr_assert_null(rt);
  cr_assert(strstr(err.message, "batch") && strstr(err.message, "operator 1"), "%s", err.message);
  texmem_model_destroy(b.m);
  /* MEAN whose kept spatial axis would become channels; op index named. */
  b = rt_mb_new();
  const int32_t s[4] = {1, 3, 5, 1}, os[3] = {1, 3, 5};
  x = rt_mb_input(&b, 4, s);
  y = rt_mb_tensor(&b, 3, os);
  texmem_op_options o = texmem_op_options_default();
  o.reduce_axes = 8;
  rt_mb_op(&b, TEXMEM_OP_MEAN, &x, 1, y, &o);
  rt_mb_output(&b, y);
  TG_OK(texmem_model_set_io(b.m, b.in, b.n_in, b.out, b.n_out, &tg_err_));
  cr_assert_eq(texmem_runtime_create(ctx, b.m, NULL, &rt, &err), TEXMEM_STATUS_UNSUPPORTED_OP);
  cr_assert(strstr(err.message, "operator 1") && strstr(err.message, "MEAN"), "%s", err.message);
  texmem_model_destroy(b.m);
  /* A rank-3 tensor [2,W,C] against a rank-4 one: numpy makes its batch
   * the height, which its texture does not hold that way. */
  b = rt_mb_new();
  const int32_t r3[3] = {2, 3, 4}, r4[4] = {1, 2, 3, 4};
  int32_t p = rt_mb_input(&b, 3, r3), q = rt_mb_input(&b, 4, r4), pq[2] = {q, p};
  y = rt_mb_tensor(&b, 4, r4);
  rt_mb_op(&b, TEXMEM_OP_SUB, pq, 2, y, NULL);
  rt_mb_output(&b, y);
  TG_OK(texmem_model_set_io(b.m, b.in, b.n_in, b.out, b.n_out, &tg_err_));
  cr_assert_eq(texmem_runtime_create(ctx, b.m, NULL, &rt, &err), TEXMEM_STATUS_UNSUPPORTED_OP);
  cr_assert(strstr(err.message, "SUB") && strstr(err.message, "leading dims"), "%s", err.message);
  texmem_model_destroy(b.m);
  /* Bad arguments. */
  cr_assert_eq(texmem_runtime_create(NULL, NULL, NULL, &rt, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_eq(texmem_runtime_create(ctx, NULL, NULL, NULL, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  texmem_runtime_destroy(NULL);
  cr_assert_eq(texmem_runtime_input_size(NULL, 0), 0);
  texmem_gl_context_destroy(ctx);
}

/* Padding lanes are 0: a MEAN over channels sums every lane of the op's
 * output texels, so a non-zero padding lane would show in its result. */
static void check_then_mean_c(texmem_op_type type, const texmem_op_options *o, unsigned ir,
                              const int32_t *is, const int32_t *extra_const, const int32_t *os,
                              const char *what) {
  rt_mb b = rt_mb_new();
  int32_t x = rt_mb_input(&b, ir, is), y = rt_mb_tensor(&b, 4, os);
  int32_t ins[2] = {x, extra_const ? mb_const(&b, 1, extra_const, 5) : -1};
  rt_mb_op(&b, type, ins, extra_const ? 2 : 1, y, o);
  const int32_t ms[4] = {1, os[1], os[2], 1};
  int32_t mean = rt_mb_tensor(&b, 4, ms);
  texmem_op_options mo = texmem_op_options_default();
  mo.reduce_axes = 8;
  mo.keep_dims = true;
  rt_mb_op(&b, TEXMEM_OP_MEAN, &y, 1, mean, &mo);
  rt_mb_output(&b, mean);
  mb_check(&b, what);
}

Test(rt_ops, padding_lanes_zero) {
  const int32_t s[4] = {1, 3, 4, 5}, one[1] = {1};
  check_then_mean_c(TEXMEM_OP_LOGISTIC, NULL, 4, s, NULL, s, "LOGISTIC then MEAN C");
  check_then_mean_c(TEXMEM_OP_ADD, NULL, 4, s, one, s, "ADD scalar then MEAN C");
  texmem_op_options o = texmem_op_options_default();
  o.activation = TEXMEM_ACT_RELU6;
  check_then_mean_c(TEXMEM_OP_MUL, &o, 4, s, one, s, "MUL scalar RELU6 then MEAN C");
  o = texmem_op_options_default();
  o.pad_rank = 4;
  o.pad[3][0] = 1;
  o.pad[3][1] = 1;
  const int32_t padded[4] = {1, 3, 4, 7};
  check_then_mean_c(TEXMEM_OP_PAD, &o, 4, s, NULL, padded, "PAD channels then MEAN C");
  o = texmem_op_options_default();
  o.block_size = 2;
  const int32_t d[4] = {1, 2, 2, 12}, d_out[4] = {1, 4, 4, 3};
  check_then_mean_c(TEXMEM_OP_DEPTH_TO_SPACE, &o, 4, d, NULL, d_out, "DEPTH_TO_SPACE then MEAN C");
  o = texmem_op_options_default();
  const int32_t r_in[4] = {1, 2, 3, 10}, r_out[4] = {1, 4, 5, 3};
  check_then_mean_c(TEXMEM_OP_RESHAPE, &o, 4, r_in, NULL, r_out, "RESHAPE then MEAN C");
  o = texmem_op_options_default();
  check_then_mean_c(TEXMEM_OP_SOFTMAX, &o, 4, s, NULL, s, "SOFTMAX then MEAN C");
  o.alpha = 0.3f;
  check_then_mean_c(TEXMEM_OP_LEAKY_RELU, &o, 4, s, NULL, s, "LEAKY_RELU then MEAN C");
  o = texmem_op_options_default();
  check_then_mean_c(TEXMEM_OP_DIV, &o, 4, s, one, s, "DIV by scalar then MEAN C");
  check_then_mean_c(TEXMEM_OP_PRELU, &o, 4, s, one, s, "PRELU scalar alpha then MEAN C");
}

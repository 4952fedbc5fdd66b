/* Whole models on the runtime: the built-in MobileNet v2 at 64x64, the
 * committed face_detection_short_range.tflite and, when present in the
 * model cache ($TEXMEM_MODEL_CACHE or ~/.cache/texmem/models), the other
 * MediaPipe models. Each runs with one texture per tensor (NAIVE) and with
 * the BEST plan in the natural and linear layouts and in the GPU arena
 * (arena storage, at most 1% above max_live), fp32 and fp16, reuse
 * checker on: planned outputs are bit-identical to the naive ones, and
 * fp32 outputs are close to the CPU reference. */
#include <stdio.h>
#include <unistd.h>

#include "models_list.h"
#include "rt_support.h"
#include "texmem/mobilenet.h"

/* fp32 whole-model tolerance, relative to each output's largest value:
 * GPU and CPU sum in different orders and deep models amplify it. */
#define MODEL_REL 1e-3

/* The runtime's plan is valid for the model's records; stats agree. */
static void check_plan(const texmem_model *m, const texmem_runtime_desc *d,
                       const texmem_runtime *rt) {
  texmem_precision prec = d->precision;
  texmem_record *rec = NULL;
  size_t n = 0;
  TG_OK(texmem_model_records(m, 3, prec, &rec, &n, NULL, &tg_err_));
  const texmem_plan *p = texmem_runtime_plan(rt);
  cr_assert_not_null(p);
  texmem_runtime_stats s;
  texmem_runtime_get_stats(rt, &s);
  /* Fusion drops one record a fused pair (the convolution's output), a
   * folded depthwise convolution or MUL and a reshape or resize not run;
   * the plan is checked against the records it was made for. */
  size_t n_run = 0;
  const texmem_record *run_rec = texmem_runtime_records(rt, &n_run);
  size_t n_model = n;
  cr_assert_eq(n_run + s.fused - s.fused_kept + s.depthwise_folded + s.scales_folded +
                   s.reshapes_folded + s.resizes_folded,
               n);
  TG_OK(texmem_plan_validate(run_rec, n_run, 3, p, &tg_err_));
  n = n_run;
  cr_assert_eq(s.tensors, n);
  cr_assert_eq(s.operators, texmem_model_op_count(m));
  cr_assert_eq(s.objects, texmem_plan_object_count(p));
  uint64_t texel = prec == TEXMEM_PRECISION_FP32 ? 16 : 8;
  cr_assert_eq(s.texture_bytes, texmem_plan_total(p) * texel, "pool bytes %llu, plan total %llu",
               (unsigned long long)s.texture_bytes, (unsigned long long)texmem_plan_total(p));
  cr_assert_gt(s.io_bytes, 0);
  cr_assert_eq(s.storage, d->storage);
  if (d->storage == TEXMEM_STORAGE_BUFFER) /* rows are texels */
    cr_assert_eq(s.linear_width, 1);
  if (d->storage == TEXMEM_STORAGE_ARENA || d->storage == TEXMEM_STORAGE_BUFFER) {
    cr_assert_eq(s.layout, TEXMEM_LAYOUT_LINEAR);
    cr_assert_eq(texmem_plan_get_kind(p), TEXMEM_PLAN_OFFSETS);
    texmem_bounds b;
    TG_OK(texmem_lower_bounds(rec, n_model, 3, &b, &tg_err_));
    /* The arena: at most 1% above the model's max_live (with fused operators
     * too: fusion is kept only where it takes no more memory than one
     * dispatch an operator could), here with the GL limits. */
    cr_assert_leq(texmem_plan_total(p) * 100, b.max_live * 101, "arena %llu, max_live %llu",
                  (unsigned long long)texmem_plan_total(p), (unsigned long long)b.max_live);
  } else {
    cr_assert_eq(s.layout, d->layout);
  }
  if (d->strategy == TEXMEM_STRATEGY_NAIVE) cr_assert_eq(s.objects, n);
  free(rec);
}

/* Runs every configuration and checks them. */
static void check_model(const texmem_model *m, const char *name) {
  texmem_gl_context *ctx = tg_context();
  size_t n_in;
  float **in = rt_inputs(m, 3, &n_in);
  texmem_ref_result *ref = rt_reference(m, in);
  for (int prec = 0; prec < 2; prec++) {
    texmem_precision pr = prec ? TEXMEM_PRECISION_FP32 : TEXMEM_PRECISION_FP16;
    texmem_runtime_desc naive_d = {.strategy = TEXMEM_STRATEGY_NAIVE, .precision = pr,
                                   .reuse_checker = true};
    rt_outputs naive = rt_run_inspect(ctx, m, &naive_d, in, check_plan);
    char what[160];
    if (pr == TEXMEM_PRECISION_FP32) {
      snprintf(what, sizeof what, "%s fp32 naive vs CPU", name);
      double worst = rt_compare_scaled(m, &naive, ref, MODEL_REL, what);
      cr_log_info("%s: worst error %.3f of the tolerance", what, worst);
    }
    static const char *const how[] = {"natural", "linear", "arena", "buffer arena"};
    for (int lay = 0; lay < 4; lay++) {
      texmem_runtime_desc d = {.strategy = TEXMEM_STRATEGY_BEST,
                               .layout = lay ? TEXMEM_LAYOUT_LINEAR : TEXMEM_LAYOUT_NATURAL,
                               .storage = lay == 3   ? TEXMEM_STORAGE_BUFFER
                                          : lay == 2 ? TEXMEM_STORAGE_ARENA
                                                     : TEXMEM_STORAGE_OBJECTS,
                               .precision = pr, .reuse_checker = true};
      rt_outputs planned = rt_run_inspect(ctx, m, &d, in, check_plan);
      snprintf(what, sizeof what, "%s %s %s planned vs naive", name, prec ? "fp32" : "fp16",
               how[lay]);
      rt_assert_identical(&naive, &planned, what);
      rt_outputs_free(&planned);
    }
    rt_outputs_free(&naive);
  }
  texmem_ref_result_destroy(ref);
  rt_free_arrays(in, n_in);
  texmem_gl_context_destroy(ctx);
}

Test(rt_models, mobilenet_v2_64) {
  texmem_model *m = NULL;
  TG_OK(texmem_model_mobilenet_v2_sized(5, 64, &m, &tg_err_));
  check_model(m, "mobilenet_v2 64");
  texmem_model_destroy(m);
}

/* A runtime compiles its programs when created (texmem_gl_prepare, one
 * batch), not in its first run; runtimes of one context share them, so a
 * second of the same model and desc compiles nothing (a GPU driver takes
 * up to a second a program), and gives the same outputs. */
Test(rt_models, a_second_runtime_compiles_nothing) {
  texmem_model *m = NULL;
  TG_OK(texmem_model_mobilenet_v2_sized(5, 64, &m, &tg_err_));
  texmem_gl_context *ctx = tg_context();
  size_t n_in;
  float **in = rt_inputs(m, 3, &n_in);
  texmem_runtime_desc d = {.strategy = TEXMEM_STRATEGY_BEST, .storage = TEXMEM_STORAGE_BUFFER,
                           .precision = TEXMEM_PRECISION_FP16};
  texmem_gl_counters c;
  texmem_runtime *keep = NULL;
  texmem_gl_counters_reset(ctx);
  TG_OK(texmem_runtime_create(ctx, m, &d, &keep, &tg_err_));
  texmem_gl_counters_get(ctx, &c);
  cr_assert_gt(c.programs_compiled, 1);
  /* Only variants its operations bind: fp16 ones, none the default fp32
   * 2-D arrays that texmem_gl_program_create compiles unless deferred
   * (compiled and never run, they doubled a runtime's compiles). */
  size_t variants = 0;
  for (size_t i = 0; i < ctx->programs.cap; i++) {
    const texmem__gl_prog *p = texmem__slots_at(&ctx->programs, i);
    if (!p->hdr.alive) continue;
    for (size_t v = 0; v < p->n_variants; v++, variants++)
      for (size_t b = 0; b < p->n_inputs + p->n_outputs; b++)
        cr_assert(TEXMEM__GL_KEY_HALF(p->variants[v].key[b]) ||
                      TEXMEM__GL_KEY_TARGET(p->variants[v].key[b]) == TEXMEM__GL_KEY_BUFFER,
                  "%s: an fp32 image binding (%s) in an fp16 runtime", p->name, p->images[b]);
  }
  cr_assert_eq(variants, c.programs_compiled, "%zu variants, %llu programs compiled", variants,
               (unsigned long long)c.programs_compiled);
  for (size_t i = 0; i < n_in; i++) TG_OK(texmem_runtime_set_input(keep, i, in[i], &tg_err_));
  texmem_gl_counters_reset(ctx);
  TG_OK(texmem_runtime_run(keep, &tg_err_));
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.programs_compiled, 0, "the first run compiled %llu programs",
               (unsigned long long)c.programs_compiled);
  /* Reading outputs compiles the context's read back (once per format). */
  size_t n_out;
  texmem_model_outputs(m, &n_out);
  for (size_t i = 0; i < n_out; i++) {
    float *o = malloc((texmem_runtime_output_size(keep, i) + 1) * sizeof *o);
    TG_OK(texmem_runtime_get_output(keep, i, o, &tg_err_));
    free(o);
  }
  texmem_gl_counters_reset(ctx);
  rt_outputs first = rt_run(ctx, m, &d, in);
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.programs_compiled, 0, "a second runtime compiled %llu programs",
               (unsigned long long)c.programs_compiled);
  texmem_runtime_destroy(keep);
  texmem_gl_counters_reset(ctx);
  rt_outputs second = rt_run(ctx, m, &d, in);
  texmem_gl_counters_get(ctx, &c);
  cr_assert_gt(c.programs_compiled, 1, "alone again, it compiles");
  rt_assert_identical(&first, &second, "shared programs vs its own");
  rt_outputs_free(&first);
  rt_outputs_free(&second);
  rt_free_arrays(in, n_in);
  texmem_gl_context_destroy(ctx);
  texmem_model_destroy(m);
}

Test(rt_models, face_detection_short_range) {
  texmem_model *m = NULL;
  TG_OK(texmem_model_load_tflite(TEXMEM_TEST_DATA "/face_detection_short_range.tflite", &m,
                                 &tg_err_));
  check_model(m, "face_detection_short_range");
  texmem_model_destroy(m);
}

/* The same graph with batch B: every non-constant tensor whose first dim
 * (rank >= 2) is 1, and every RESHAPE target starting with 1, gets B. */
static texmem_model *with_batch(const texmem_model *m, int32_t B) {
  texmem_model *c = NULL;
  TG_OK(texmem_model_create(&c, &tg_err_));
  for (size_t i = 0; i < texmem_model_tensor_count(m); i++) {
    const texmem_tensor *t = texmem_model_tensor(m, i);
    int32_t shape[TEXMEM_MAX_RANK], idx;
    memcpy(shape, t->shape, sizeof shape);
    if ((t->flags & TEXMEM_TENSOR_CONSTANT) && t->data) {
      TG_OK(texmem_model_add_constant(c, t->name, t->type, t->rank, shape, t->data, t->data_size,
                                      &idx, &tg_err_));
    } else {
      if (t->rank >= 2 && shape[0] == 1) shape[0] = B;
      TG_OK(texmem_model_add_tensor(c, t->name, t->type, t->rank, shape, &idx, &tg_err_));
    }
    cr_assert_eq((size_t)idx, i);
  }
  for (size_t k = 0; k < texmem_model_op_count(m); k++) {
    const texmem_op *op = texmem_model_op(m, k);
    texmem_op_options o = op->options;
    if (op->type == TEXMEM_OP_RESHAPE && o.new_shape_rank > 0 && o.new_shape[0] == 1)
      o.new_shape[0] = B;
    TG_OK(texmem_model_add_op(c, op->type, op->inputs, op->n_inputs, op->outputs, op->n_outputs,
                              &o, NULL, &tg_err_));
  }
  size_t ni, no;
  const int32_t *ins = texmem_model_inputs(m, &ni), *outs = texmem_model_outputs(m, &no);
  TG_OK(texmem_model_set_io(c, ins, ni, outs, no, &tg_err_));
  return c;
}

/* Whole models at batch 2: the two images of the batch differ, planned =
 * naive bit for bit, fp32 close to the CPU reference. */
Test(rt_models, batch_2_face_detection_and_mobilenet) {
  texmem_model *m = NULL, *b = NULL;
  TG_OK(texmem_model_load_tflite(TEXMEM_TEST_DATA "/face_detection_short_range.tflite", &m,
                                 &tg_err_));
  b = with_batch(m, 2);
  const texmem_tensor *x = texmem_model_tensor(b, (size_t)texmem_model_inputs(b, NULL)[0]);
  cr_assert_eq(x->b, 2);
  check_model(b, "face_detection_short_range batch 2");
  texmem_model_destroy(b);
  texmem_model_destroy(m);
  TG_OK(texmem_model_mobilenet_v2_sized(5, 32, &m, &tg_err_));
  b = with_batch(m, 2);
  check_model(b, "mobilenet_v2 32 batch 2");
  texmem_model_destroy(b);
  texmem_model_destroy(m);
}

/* A cached model, or NULL (test skipped) when the cache lacks it. */
static texmem_model *cached(const char *file) {
  char path[1024];
  const char *dir = getenv("TEXMEM_MODEL_CACHE");
  if (dir && *dir)
    snprintf(path, sizeof path, "%s/%s", dir, file);
  else
    snprintf(path, sizeof path, "%s/.cache/texmem/models/%s", getenv("HOME") ? getenv("HOME") : "",
             file);
  if (access(path, R_OK) != 0) return NULL;
  texmem_model *m = NULL;
  texmem_error err = {0};
  texmem_status st = texmem_model_load_tflite(path, &m, &err);
  cr_assert_eq(st, TEXMEM_STATUS_OK, "%s: %s", path, err.message);
  return m;
}

static void check_cached(const char *file) {
  if (!tt_model_in_run(file)) {
    cr_log_info("%s: not in this run's model set (TEXMEM_TEST_MODELS)", file);
    return;
  }
  texmem_model *m = cached(file);
  if (!m) cr_skip_test("%s is not in the model cache (tools/fetch_models.sh)", file);
  check_model(m, file);
  texmem_model_destroy(m);
}

Test(rt_models, selfie_segmentation) { check_cached("selfie_segmentation.tflite"); }
Test(rt_models, hand_landmark_lite) { check_cached("hand_landmark_lite.tflite"); }
Test(rt_models, face_landmark_with_attention) {
  check_cached("face_landmark_with_attention.tflite");
}

/* Every other cached model the runtime executes, in the GPU arena with the
 * reuse checker on, in both precisions: bit-identical to one texture per
 * tensor (the models above also run every other configuration). */
Test(rt_models, every_cached_model_in_the_arena) {
  static const char *const full[] = {"selfie_segmentation.tflite", "hand_landmark_lite.tflite",
                                     "pose_landmark_lite.tflite",
                                     "face_detection_full_range_sparse.tflite",
                                     "face_landmark_with_attention.tflite"};
  texmem_gl_context *ctx = tg_context();
  size_t ran = 0;
  for (size_t i = 0; i < TT_N_MODELS; i++) {
    const char *file = tt_models[i].file;
    bool elsewhere = false;
    for (size_t j = 0; j < sizeof full / sizeof *full; j++) elsewhere |= !strcmp(file, full[j]);
    if (elsewhere || tt_models[i].unsupported || !tt_model_in_run(file)) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", tt_model_cache(), file);
    texmem_input_shape shape;
    texmem_model_load_desc ld = tt_model_load_desc(i, &shape);
    texmem_model *m = NULL;
    texmem_error err = {0};
    cr_assert_eq(texmem_model_load_tflite_desc(path, &ld, &m, &err), TEXMEM_STATUS_OK, "%s: %s",
                 path, err.message);
    size_t n_in;
    float **in = rt_inputs(m, 3, &n_in);
    for (int prec = 0; prec < 2; prec++) {
      texmem_precision pr = prec ? TEXMEM_PRECISION_FP32 : TEXMEM_PRECISION_FP16;
      texmem_runtime_desc nd = {.strategy = TEXMEM_STRATEGY_NAIVE, .precision = pr,
                                .reuse_checker = true};
      rt_outputs naive = rt_run(ctx, m, &nd, in);
      for (int b = 0; b < 2; b++) {
        texmem_runtime_desc ad = {.storage = b ? TEXMEM_STORAGE_BUFFER : TEXMEM_STORAGE_ARENA,
                                  .precision = pr, .reuse_checker = true};
        rt_outputs arena = rt_run_inspect(ctx, m, &ad, in, check_plan);
        char what[160];
        snprintf(what, sizeof what, "%s %s %s vs naive", file, prec ? "fp32" : "fp16",
                 b ? "buffer arena" : "arena");
        rt_assert_identical(&naive, &arena, what);
        rt_outputs_free(&arena);
      }
      rt_outputs_free(&naive);
    }
    rt_free_arrays(in, n_in);
    texmem_model_destroy(m);
    ran++;
  }
  cr_log_info("%zu more models in the arena, fp16 and fp32", ran);
  cr_assert_gt(ran, 0);
  texmem_gl_context_destroy(ctx);
}
Test(rt_models, pose_landmark_lite) { check_cached("pose_landmark_lite.tflite"); }
Test(rt_models, face_detection_full_range_sparse) {
  check_cached("face_detection_full_range_sparse.tflite");
}

/* Texels of the model's largest intermediate tensor (BHWC4: W x H x B*S). */
static uint64_t largest_texels(const texmem_model *m) {
  texmem_record *r = NULL;
  int32_t *of = NULL;
  size_t n = 0;
  TG_OK(texmem_model_records(m, 3, TEXMEM_PRECISION_FP16, &r, &n, &of, &tg_err_));
  uint64_t t = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t v = r[i].dims[0] * r[i].dims[1] * r[i].dims[2];
    if (v > t) t = v;
  }
  free(r);
  free(of);
  return t;
}

/* A small forced arena height: MobileNet v2's arena splits into several
 * textures, none over the height, and the outputs stay bit-identical to
 * one texture per tensor (reuse checker on); a height below the largest
 * tensor is EXCEEDS_LIMITS naming it. Both heights are derived from the
 * GL's widest texture, so that the split and the refusal happen on every
 * driver (a fixed 4 rows held a whole arena at NVIDIA's 32768 texels). */
Test(rt_models, arena_split_under_a_small_height) {
  texmem_gl_context *ctx = tg_context();
  uint64_t lim[3];
  texmem_gl_max_dims(ctx, TEXMEM_GL_TARGET_2D, lim);
  texmem_runtime_desc ad = {.storage = TEXMEM_STORAGE_ARENA, .reuse_checker = true};
  texmem_runtime *rt = NULL;
  texmem_runtime_stats one;
  texmem_model *m = NULL;
  /* The fewest rows that still hold the largest tensor at the widest
   * texture; the input grows until the arena cannot fit one texture of
   * that many rows. */
  uint64_t rows = 0;
  for (uint32_t size = 64; size <= 1024 && !m; size *= 2) {
    TG_OK(texmem_model_mobilenet_v2_sized(5, size, &m, &tg_err_));
    TG_OK(texmem_runtime_create(ctx, m, &ad, &rt, &tg_err_));
    texmem_runtime_get_stats(rt, &one);
    texmem_runtime_destroy(rt);
    rows = (largest_texels(m) + lim[0] - 1) / lim[0];
    if (one.texture_bytes / 8 <= rows * lim[0]) {
      texmem_model_destroy(m);
      m = NULL;
    }
  }
  cr_assert_not_null(m, "no MobileNet up to 1024x1024 has an arena past its largest tensor's rows");
  size_t n_in;
  float **in = rt_inputs(m, 3, &n_in);
  texmem_runtime_desc nd = {.strategy = TEXMEM_STRATEGY_NAIVE, .reuse_checker = true};
  rt_outputs naive = rt_run(ctx, m, &nd, in);
  uint64_t d[3];
  ad.arena_max_rows = rows;
  TG_OK(texmem_runtime_create(ctx, m, &ad, &rt, &tg_err_));
  texmem_runtime_stats s;
  texmem_runtime_get_stats(rt, &s);
  const texmem_plan *p = texmem_runtime_plan(rt);
  cr_assert_gt(s.objects, 1, "W %llu", (unsigned long long)s.linear_width);
  for (size_t o = 0; o < s.objects; o++) {
    texmem_plan_object_dims(p, o, d);
    cr_assert_leq(d[1], rows);
    cr_assert_eq(d[0], s.linear_width);
  }
  cr_log_info("arena at %llu rows: %zu textures, %llu bytes (one texture: %llu)",
              (unsigned long long)rows, s.objects, (unsigned long long)s.texture_bytes,
              (unsigned long long)one.texture_bytes);
  texmem_runtime_destroy(rt);
  rt_outputs split = rt_run(ctx, m, &ad, in);
  rt_assert_identical(&naive, &split, "mobilenet_v2 split arena vs naive");
  rt_outputs_free(&split);
  rt_outputs_free(&naive);
  rt_free_arrays(in, n_in);
  texmem_model_destroy(m);
  /* One row cannot hold a tensor wider than the widest texture: the input
   * size doubles until one is (weights do not depend on it). */
  uint32_t size = 64;
  do {
    size *= 2;
    TG_OK(texmem_model_mobilenet_v2_sized(5, size, &m, &tg_err_));
    if (largest_texels(m) > lim[0]) break;
    texmem_model_destroy(m);
    m = NULL;
  } while (size < 4096);
  cr_assert_not_null(m, "no MobileNet input size up to 4096 has a tensor past %llu texels",
                     (unsigned long long)lim[0]);
  ad.arena_max_rows = 1;
  texmem_error err = {0};
  cr_assert_eq(texmem_runtime_create(ctx, m, &ad, &rt, &err), TEXMEM_STATUS_EXCEEDS_LIMITS,
               "%s", err.message);
  cr_assert(strstr(err.message, "tensor"), "%s", err.message);
  texmem_model_destroy(m);
  texmem_gl_context_destroy(ctx);
}

/* Arena storage takes offsets strategies only; unknown storages are refused. */
Test(rt_models, arena_desc_errors) {
  texmem_gl_context *ctx = tg_context();
  texmem_model *m = NULL;
  TG_OK(texmem_model_mobilenet_v2_sized(5, 32, &m, &tg_err_));
  texmem_runtime *rt = (texmem_runtime *)1;
  texmem_error err = {0};
  texmem_runtime_desc d = {.strategy = TEXMEM_STRATEGY_NAIVE, .storage = TEXMEM_STORAGE_ARENA};
  cr_assert_eq(texmem_runtime_create(ctx, m, &d, &rt, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_null(rt);
  cr_assert(strstr(err.message, "offsets (arena)"), "%s", err.message);
  d = (texmem_runtime_desc){.storage = (texmem_storage)7};
  cr_assert_eq(texmem_runtime_create(ctx, m, &d, &rt, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "storage"), "%s", err.message);
  /* exact and strip_best_fit plan arenas, not objects. */
  d = (texmem_runtime_desc){.strategy = TEXMEM_STRATEGY_EXACT};
  cr_assert_eq(texmem_runtime_create(ctx, m, &d, &rt, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  d.storage = TEXMEM_STORAGE_ARENA;
  TG_OK(texmem_runtime_create(ctx, m, &d, &rt, &tg_err_));
  texmem_runtime_stats s;
  texmem_runtime_get_stats(rt, &s);
  cr_assert_eq(s.storage, TEXMEM_STORAGE_ARENA);
  cr_assert_eq(s.strategy, TEXMEM_STRATEGY_EXACT);
  cr_assert_eq(s.objects, 1);
  cr_assert(texmem_plan_is_optimal(texmem_runtime_plan(rt)));
  texmem_runtime_destroy(rt);
  texmem_model_destroy(m);
  texmem_gl_context_destroy(ctx);
}

/* fp16 runs store weights and constants as binary16: half the bytes of an
 * fp32 run; fp32_weights keeps them as the model has them. */
Test(rt_models, fp16_weights_take_half_the_bytes) {
  texmem_gl_context *ctx = tg_context();
  texmem_model *m = NULL;
  TG_OK(texmem_model_mobilenet_v2_sized(5, 32, &m, &tg_err_));
  texmem_runtime_stats s16, s32, s16w32;
  texmem_runtime_desc d[3] = {{.precision = TEXMEM_PRECISION_FP16},
                              {.precision = TEXMEM_PRECISION_FP32},
                              {.precision = TEXMEM_PRECISION_FP16, .fp32_weights = true}};
  texmem_runtime_stats *s[3] = {&s16, &s32, &s16w32};
  for (int i = 0; i < 3; i++) {
    texmem_runtime *rt = NULL;
    TG_OK(texmem_runtime_create(ctx, m, &d[i], &rt, &tg_err_));
    texmem_runtime_get_stats(rt, s[i]);
    texmem_runtime_destroy(rt);
  }
  cr_assert_gt(s32.weights_bytes, 3000000); /* MobileNet v2: 3.5 M parameters */
  cr_assert_eq(s16.weights_bytes * 2, s32.weights_bytes, "fp16 %llu, fp32 %llu bytes",
               (unsigned long long)s16.weights_bytes, (unsigned long long)s32.weights_bytes);
  cr_assert_eq(s16w32.weights_bytes, s32.weights_bytes);
  texmem_model_destroy(m);
  texmem_gl_context_destroy(ctx);
}

/* The recommended storage: an arena always (both reach max_live), the
 * texture arena on a CPU renderer, the buffer arena on a GPU. */
Test(rt_models, auto_storage_policy) {
  cr_assert_eq(texmem_runtime_auto_storage(NULL), TEXMEM_STORAGE_OBJECTS);
  texmem_gl_context *ctx = tg_context();
  texmem_gl_info info;
  texmem_gl_context_info(ctx, &info);
  bool cpu = info.renderer && strstr(info.renderer, "llvmpipe");
  cr_assert_eq(texmem_runtime_auto_storage(ctx), cpu ? TEXMEM_STORAGE_ARENA : TEXMEM_STORAGE_BUFFER,
               "renderer %s", info.renderer);
  texmem_gl_context_destroy(ctx);
}

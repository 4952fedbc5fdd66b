/* The runtime: model -> records (PHWC4, 3-D) -> plan -> texture pool,
 * graph inputs/outputs as standalone textures imported into the pool, one
 * kernel (GL operation) per operator whose task is the operator index, but
 * for the operators fused into a convolution's dispatch, which runs in its
 * convolution's task or a later one of its group (kernels_fusion.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "common.h" /* texmem__fail, checked arithmetic */
#include "kernel_env.h"
#include "kernels_conv_fuse.h"
#include "texmem/runtime.h"

#define NO_TENSOR SIZE_MAX

struct texmem_runtime {
  texmem_gl_context *ctx;
  const texmem_model *model;
  texmem_gl_format format;
  texmem__kernel_env *env;
  texmem_record *records;
  size_t n_records;
  int32_t *tensor_of; /* record -> model tensor */
  texmem_plan *plan;
  texmem_gl_pool *pool;
  size_t *pool_of; /* model tensor -> pool tensor, or NO_TENSOR */
  texmem_gl_texture *io;
  size_t n_io;
  /* One GL operation a kernel pass (most operators have one pass; the
   * passes of operator k all have task k, or a fused dispatch's task). */
  texmem__kernel *kernels;
  texmem_gl_op *ops;
  size_t *op_tensors; /* per GL operation 2*MAX_IO pool ids: inputs then outputs */
  size_t n_ops, n_gl_ops, cap_gl_ops;
  texmem_runtime_stats stats;
  texmem_gl_memory_reading driver_before; /* source NONE: none */
  /* Profiling (desc.profile): one record and one timer interval a GL
   * operation; timer NULL where the driver has no timer queries. */
  bool profile;
  texmem_gl_timer *timer;
  texmem_profile_record *prof;
  uint64_t *gpu_ns;
  bool span; /* timer interval n_gl_ops: the whole run (timestamps only) */
  bool profiled_run, results_read, disjoint;
  /* Fusion (kernels_fusion.h): which operators run in which
   * convolution's dispatch, and at which task; NULL if none. */
  texmem__fusion *fusion;
};

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t slices(uint32_t c) { return ((uint64_t)c + 3) / 4; }

void texmem_runtime_destroy(texmem_runtime *rt) {
  if (!rt) return;
  texmem_gl_pool_destroy(rt->pool);
  if (rt->io)
    for (size_t i = 0; i < rt->n_io; i++) texmem_gl_texture_destroy(rt->ctx, rt->io[i]);
  texmem__kernel_env_destroy(rt->env);
  texmem_plan_destroy(rt->plan);
  free(rt->records);
  free(rt->tensor_of);
  free(rt->pool_of);
  free(rt->io);
  free(rt->kernels);
  free(rt->ops);
  free(rt->op_tensors);
  texmem_gl_timer_destroy(rt->timer);
  free(rt->prof);
  free(rt->gpu_ns);
  texmem__fusion_destroy(rt->fusion);
  free(rt);
}

static texmem_status fail(texmem_runtime *rt, texmem_status st) {
  texmem_runtime_destroy(rt);
  return st;
}

/* A graph input or output: a standalone natural texture (W, H, slices). */
static texmem_status add_io(texmem_runtime *rt, int32_t t, bool writable, texmem_error *err) {
  if (rt->pool_of[t] != NO_TENSOR) return TEXMEM_STATUS_OK; /* input that is also an output */
  const texmem_tensor *x = texmem_model_tensor(rt->model, (size_t)t);
  if (x->type != TEXMEM_DTYPE_FLOAT32 && x->type != TEXMEM_DTYPE_FLOAT16)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED, "graph %s tensor %d \"%s\" is %s, not float",
                        writable ? "output" : "input", t, x->name, texmem_dtype_name(x->type));
  /* Batch b at slices b*S .. b*S+S-1 (the records' 3-D convention). */
  texmem_gl_texture_desc d = {.dims = {x->w, x->h, (uint64_t)x->b * slices(x->c)},
                              .format = rt->format,
                              .target = TEXMEM_GL_TARGET_2D_ARRAY};
  texmem_gl_texture tex;
  texmem_status st = texmem_gl_texture_create(rt->ctx, &d, &tex, err);
  if (st) return st;
  rt->io[rt->n_io++] = tex;
  rt->stats.io_bytes += d.dims[0] * d.dims[1] * d.dims[2] * texmem_gl_format_bytes(rt->format);
  return writable ? texmem_gl_pool_import_writable(rt->pool, tex, d.dims, &rt->pool_of[t], err)
                  : texmem_gl_pool_import(rt->pool, tex, d.dims, &rt->pool_of[t], err);
}

/* Room for one more GL operation (arrays may move: pointers into them are
 * set once all are built). */
static texmem_status grow_gl_ops(texmem_runtime *rt, texmem_error *err) {
  if (rt->n_gl_ops < rt->cap_gl_ops) return TEXMEM_STATUS_OK;
  size_t nc = rt->cap_gl_ops ? rt->cap_gl_ops * 2 : 16;
  texmem__kernel *kn = realloc(rt->kernels, nc * sizeof *kn);
  if (kn) rt->kernels = kn;
  texmem_gl_op *g = realloc(rt->ops, nc * sizeof *g);
  if (g) rt->ops = g;
  size_t *ids = realloc(rt->op_tensors, nc * 2 * TEXMEM__KERNEL_MAX_IO * sizeof *ids);
  if (ids) rt->op_tensors = ids;
  if (!kn || !g || !ids) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  rt->cap_gl_ops = nc;
  return TEXMEM_STATUS_OK;
}

static const texmem_op *op_or_null(const texmem_model *m, int32_t k) {
  return k >= 0 ? texmem_model_op(m, (size_t)k) : NULL;
}

/* Where output tensor t is stored: t, or the output of the RESHAPE that
 * reads it alone when that reshape is folded into t's producer
 * (kernels_fusion.h: into). */
static int32_t stored_as(const texmem_runtime *rt, int32_t t) {
  const texmem__fusion *f = rt->fusion;
  if (!f || t < 0 || (size_t)t >= texmem_model_tensor_count(rt->model)) return t;
  int32_t p = texmem_model_tensor(rt->model, (size_t)t)->producer;
  if (p < 0 || f->into[p] < 0) return t;
  const texmem_op *r = texmem_model_op(rt->model, (size_t)f->into[p]);
  return r->inputs[0] == t ? r->outputs[0] : t;
}

/* Builds pass `pass` of operator k's kernel as GL operation n_gl_ops, run
 * in task `task`. */
static texmem_status build_pass(texmem_runtime *rt, size_t task, size_t k, const texmem_op *op,
                                texmem__kernel_build_fn fn, uint32_t pass, texmem_error *err) {
  const char *name = texmem_op_type_name(op->type);
  texmem__kernel *kn = &rt->kernels[rt->n_gl_ops];
  memset(kn, 0, sizeof *kn);
  kn->pass = pass;
  kn->op = k;
  const texmem__fusion *f = rt->fusion;
  kn->through = f && (f->n_rs || f->n_fused) ? f->through : NULL;
  kn->into = f && f->n_rs ? f->into : NULL;
  if (f && f->head[k] == (int32_t)k) {
    kn->fused = op_or_null(rt->model, f->first[k]);
    kn->fused2 = op_or_null(rt->model, f->second[k]);
    kn->fused_keep = f->keep[k] != 0;
    kn->fused_pad = op_or_null(rt->model, f->pad[k]);
    kn->fused_pool = op_or_null(rt->model, f->pool[k]);
    kn->in_pad = op_or_null(rt->model, f->inpad[k]);
    kn->in_dw = op_or_null(rt->model, f->indw[k]);
    kn->in_dw_pad = f->indw[k] >= 0 ? op_or_null(rt->model, f->inpad[f->indw[k]]) : NULL;
    kn->in_mul = op_or_null(rt->model, f->inmul[k]);
    kn->in_rsz = op_or_null(rt->model, f->inrsz[k]);
    kn->in_aff = op_or_null(rt->model, f->inaff[k]);
    kn->in_add = op_or_null(rt->model, f->inadd[k]);
    if (f->insq[k] >= 0) {
      int32_t pool = texmem__squeeze_pool(rt->model, f, k), c = f->insq[k];
      kn->in_sq_pool = op_or_null(rt->model, pool);
      kn->in_sq = c != pool ? op_or_null(rt->model, c) : NULL;
      kn->in_sq_fused = c != pool ? op_or_null(rt->model, f->first[c]) : NULL;
      kn->in_sq_add = op_or_null(rt->model, f->sqadd[k]);
    }
    kn->in_d2s = op_or_null(rt->model, f->ind2s[f->indw[k] >= 0 ? f->indw[k] : (int32_t)k]);
    kn->fused_rsz = op_or_null(rt->model, f->rsz[k]);
    for (int32_t j = f->heads[k]; j >= 0 && kn->n_heads < TEXMEM__KERNEL_MAX_HEADS - 1;
         j = f->heads[j]) {
      kn->heads[kn->n_heads] = texmem_model_op(rt->model, (size_t)j);
      kn->heads_fused[kn->n_heads++] = op_or_null(rt->model, f->first[j]);
    }
  }
  texmem_status st = fn(rt->env, rt->model, op, kn, err);
  if (st) {
    texmem__prefix(err, "operator %zu (%s): ", k, name ? name : "?");
    return st;
  }
  if (kn->uniform_overflow)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "operator %zu (%s): kernel sets uniform %s past the %d a kernel holds", k,
                        name ? name : "?", kn->uniform_overflow, TEXMEM__KERNEL_MAX_UNIFORMS);
  if (kn->n_inputs > TEXMEM__KERNEL_MAX_IO || kn->n_outputs > TEXMEM__KERNEL_MAX_IO ||
      kn->n_outputs == 0)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "operator %zu (%s): kernel binds %zu inputs, %zu outputs", k, name,
                        kn->n_inputs, kn->n_outputs);
  size_t *ids = rt->op_tensors + rt->n_gl_ops * 2 * TEXMEM__KERNEL_MAX_IO;
  size_t n_tensors = texmem_model_tensor_count(rt->model);
  for (size_t i = 0; i < kn->n_inputs + kn->n_outputs; i++) {
    bool in = i < kn->n_inputs;
    int32_t t = in ? kn->inputs[i] : stored_as(rt, kn->outputs[i - kn->n_inputs]);
    if (t < 0 || (size_t)t >= n_tensors || rt->pool_of[t] == NO_TENSOR)
      return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                          "operator %zu (%s): %s tensor %d is neither planned nor a graph "
                          "input/output",
                          k, name, in ? "input" : "output", t);
    ids[i] = rt->pool_of[t];
  }
  texmem_gl_op *g = &rt->ops[rt->n_gl_ops];
  memset(g, 0, sizeof *g);
  g->program = kn->program;
  g->n_inputs = kn->n_inputs;
  g->n_outputs = kn->n_outputs;
  g->n_buffers = kn->n_buffers;
  g->n_uniforms = kn->n_uniforms;
  memcpy(g->groups, kn->groups, sizeof g->groups);
  g->task = task;
  rt->n_gl_ops++;
  return TEXMEM_STATUS_OK;
}

/* A builder asking for more passes than this is broken. */
#define MAX_PASSES 4096u

/* Builds the GL operations of task k: operator k's kernel passes, or a
 * fused convolution's dispatch (which runs in one task of its group). */
static texmem_status build_op(texmem_runtime *rt, size_t k, texmem_error *err) {
  const texmem_op *op = texmem_model_op(rt->model, k);
  const char *name = texmem_op_type_name(op->type);
  texmem__kernel_build_fn fn = texmem__kernel_for(op->type);
  if (!fn)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP, "operator %zu: %s has no GPU kernel", k,
                        name ? name : "(unknown)");
  size_t at = k; /* the operator whose kernel runs in task k */
  const texmem__fusion *f = rt->fusion;
  if (f && f->head[k] >= 0) {
    if (f->task[k] != (int32_t)k) return TEXMEM_STATUS_OK; /* in another task's dispatch */
    at = (size_t)f->head[k];
    op = texmem_model_op(rt->model, at);
    name = texmem_op_type_name(op->type);
    fn = texmem__kernel_for(op->type);
  }
  uint32_t passes = 1;
  for (uint32_t pass = 0; pass < passes; pass++) {
    texmem_status st = grow_gl_ops(rt, err);
    if (st) return st;
    if ((st = build_pass(rt, k, at, op, fn, pass, err))) return st;
    texmem__kernel *kn = &rt->kernels[rt->n_gl_ops - 1];
    if (pass == 0) passes = kn->n_passes ? kn->n_passes : 1;
    if (passes > MAX_PASSES)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "operator %zu (%s): kernel asks for %u passes", k, name, passes);
  }
  return TEXMEM_STATUS_OK;
}

/* Pointers of each GL operation into its kernel and id arrays. */
static void link_gl_ops(texmem_runtime *rt) {
  for (size_t i = 0; i < rt->n_gl_ops; i++) {
    texmem__kernel *kn = &rt->kernels[i];
    texmem_gl_op *g = &rt->ops[i];
    size_t *ids = rt->op_tensors + i * 2 * TEXMEM__KERNEL_MAX_IO;
    g->inputs = ids;
    g->outputs = ids + kn->n_inputs;
    g->buffers = kn->buffers;
    g->uniforms = kn->uniforms;
  }
}

/* desc.profile: a record per GL operation (operator, pass, kernel) and a
 * timer interval each, where the driver has timer queries. */
static texmem_status profile_setup(texmem_runtime *rt, texmem_error *err) {
  rt->profile = true;
  size_t n = rt->n_gl_ops ? rt->n_gl_ops : 1;
  rt->prof = calloc(n, sizeof *rt->prof);
  rt->gpu_ns = calloc(n + 1, sizeof *rt->gpu_ns);
  if (!rt->prof || !rt->gpu_ns)
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < rt->n_gl_ops; i++) {
    texmem_profile_record *r = &rt->prof[i];
    r->op = rt->kernels[i].op;
    r->pass = rt->kernels[i].pass;
    r->op_type = texmem_op_type_name(texmem_model_op(rt->model, r->op)->type);
    r->kernel = texmem_gl_program_name(rt->ctx, rt->kernels[i].program);
  }
  texmem_gl_timer_kind k = texmem_gl_timer_support(rt->ctx, NULL);
  if (k == TEXMEM_GL_TIMER_NONE) return TEXMEM_STATUS_OK;
  /* Timestamps: one more interval, around the whole run. */
  rt->span = k == TEXMEM_GL_TIMER_TIMESTAMPS;
  return texmem_gl_timer_create(rt->ctx, n + rt->span, &rt->timer, err);
}

/* A GL that renders on the CPU: no texture cache or shared memory of its
 * own. */
static bool renders_on_cpu(const texmem_gl_context *ctx) {
  texmem_gl_info info;
  texmem_gl_context_info(ctx, &info);
  return info.renders_on_cpu;
}

/* The kernels policy: AUTO takes the tiled 1x1 convolution unless the GL
 * renders on the CPU, where shared memory is ordinary memory and every
 * barrier() a thread switch, so staging costs more than it saves. */
static bool use_tiled(const texmem_gl_context *ctx, texmem_kernels k) {
  if (k != TEXMEM_KERNELS_AUTO) return k == TEXMEM_KERNELS_TILED;
  return !renders_on_cpu(ctx);
}

texmem_storage texmem_runtime_auto_storage(const texmem_gl_context *ctx) {
  if (!ctx) return TEXMEM_STORAGE_OBJECTS;
  return renders_on_cpu(ctx) ? TEXMEM_STORAGE_ARENA : TEXMEM_STORAGE_BUFFER;
}

/* Fills the desc's defaults (arena storages plan linear rows) and refuses
 * values out of range. */
static texmem_status check_desc(texmem_runtime_desc *d, texmem_error *err) {
  bool buffer = d->storage == TEXMEM_STORAGE_BUFFER;
  bool arena = d->storage == TEXMEM_STORAGE_ARENA || buffer;
  if (d->storage != TEXMEM_STORAGE_OBJECTS && !arena)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "unknown storage %d", (int)d->storage);
  if (arena) d->layout = TEXMEM_LAYOUT_LINEAR;
  texmem_plan_kind kind = arena ? TEXMEM_PLAN_OFFSETS : TEXMEM_PLAN_OBJECTS;
  if ((unsigned)d->strategy >= TEXMEM_STRATEGY_COUNT_ || !texmem_strategy_supports(d->strategy, kind))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "strategy %d is not a%s strategy",
                        (int)d->strategy, arena ? "n offsets (arena)" : " shared-objects");
  if (d->layout != TEXMEM_LAYOUT_NATURAL && d->layout != TEXMEM_LAYOUT_LINEAR)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "unknown layout %d", (int)d->layout);
  if (d->precision != TEXMEM_PRECISION_FP16 && d->precision != TEXMEM_PRECISION_FP32)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "unknown precision %d",
                        (int)d->precision);
  if ((unsigned)d->kernels > TEXMEM_KERNELS_TILED)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "unknown kernels %d", (int)d->kernels);
  uint32_t k = d->conv1x1_split;
  if (k > 16 || (k & (k - 1)))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "conv1x1_split %u: not 0, 1, 2, 4, 8 or 16", (unsigned)k);
  return TEXMEM_STATUS_OK;
}

/* Every operator the runtime cannot execute, named at once. */
static texmem_status refuse_unsupported(const texmem_model *model, texmem_error *err) {
  texmem_op_tally *bad = NULL;
  size_t n_bad = 0;
  texmem_status ust = texmem_runtime_unsupported_ops(model, &bad, &n_bad, err);
  if (ust || !n_bad) return ust;
  size_t total = 0;
  for (size_t i = 0; i < n_bad; i++) total += bad[i].count;
  char list[400];
  texmem_op_tally_format(bad, n_bad, list, sizeof list);
  free(bad);
  return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP,
                      "%zu operator%s the runtime cannot execute: %s", total, total == 1 ? "" : "s",
                      list);
}

texmem_status texmem_runtime_create(texmem_gl_context *ctx, const texmem_model *model,
                                    const texmem_runtime_desc *desc, texmem_runtime **out,
                                    texmem_error *err) {
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!ctx || !model)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "context or model is NULL");
  texmem_runtime_desc d = desc ? *desc : (texmem_runtime_desc){0};
  texmem_status cst = check_desc(&d, err);
  if (cst) return cst;
  bool buffer = d.storage == TEXMEM_STORAGE_BUFFER;
  bool arena = d.storage == TEXMEM_STORAGE_ARENA || buffer;
  texmem_plan_kind kind = arena ? TEXMEM_PLAN_OFFSETS : TEXMEM_PLAN_OBJECTS;
  size_t n_tensors = texmem_model_tensor_count(model), n_ops = texmem_model_op_count(model);
  texmem_status ust = refuse_unsupported(model, err);
  if (ust) return ust;

  texmem_runtime *rt = calloc(1, sizeof *rt);
  if (!rt) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  /* Before anything is allocated; no source: no figure. */
  if (texmem_gl_memory_read(ctx, &rt->driver_before, NULL) != TEXMEM_STATUS_OK)
    rt->driver_before.source = TEXMEM_GL_MEMORY_NONE;
  rt->ctx = ctx;
  rt->model = model;
  rt->format = d.precision == TEXMEM_PRECISION_FP32 ? TEXMEM_GL_RGBA32F : TEXMEM_GL_RGBA16F;
  rt->n_ops = n_ops;
  texmem_status st = texmem_model_records(model, 3, d.precision, &rt->records, &rt->n_records,
                                          &rt->tensor_of, err);
  if (st) return fail(rt, st);

  texmem_plan_desc pd = {.kind = kind, .strategy = d.strategy, .layout = d.layout};
  /* A buffer arena is an arena plan of width 1: rows are texels. */
  texmem_gl_max_dims(ctx,
                     buffer ? TEXMEM_GL_TARGET_BUFFER
                     : d.layout == TEXMEM_LAYOUT_LINEAR ? TEXMEM_GL_TARGET_2D
                                                        : TEXMEM_GL_TARGET_2D_ARRAY,
                     pd.max_dims);
  if (d.layout == TEXMEM_LAYOUT_LINEAR) pd.max_dims[2] = 0; /* depth is folded into rows */
  if (arena && d.arena_max_rows && d.arena_max_rows < pd.max_dims[1])
    pd.max_dims[1] = d.arena_max_rows;
  double t0 = now_us();
  rt->stats.tiled = use_tiled(ctx, d.kernels);
  st = d.unfused ? texmem_plan_create(rt->records, rt->n_records, 3, &pd, &rt->plan, err)
                 : texmem__fuse_plan(model, rt->stats.tiled, &rt->fusion, &rt->records,
                                     &rt->tensor_of, &rt->n_records, &pd, &rt->plan, err);
  if (rt->fusion) {
    rt->stats.fused = rt->fusion->n_fused;
    rt->stats.fused_kept = rt->fusion->n_kept;
    rt->stats.depthwise_folded = rt->fusion->n_dw;
    rt->stats.reshapes_folded = rt->fusion->n_rs;
    rt->stats.scales_folded = rt->fusion->n_mul;
    rt->stats.resizes_folded = rt->fusion->n_rsz;
    rt->stats.heads_merged = rt->fusion->n_heads;
    for (size_t k = 0; k < n_ops; k++)
      rt->stats.late_fused += rt->fusion->head[k] == (int32_t)k && rt->fusion->task[k] > (int32_t)k;
  }
  rt->stats.plan_us = now_us() - t0;
  if (st) return fail(rt, st);

  texmem_gl_pool_desc pool_d = {.plan = rt->plan,
                                .records = rt->records,
                                .record_count = rt->n_records,
                                .dims = 3,
                                .storage = d.storage,
                                .format = rt->format,
                                .reuse_checker = d.reuse_checker};
  t0 = now_us();
  st = texmem_gl_pool_create(ctx, &pool_d, &rt->pool, err);
  rt->stats.pool_create_ms = (now_us() - t0) / 1e3;
  if (st) return fail(rt, st);

  size_t n_in, n_out;
  const int32_t *ins = texmem_model_inputs(model, &n_in);
  const int32_t *outs = texmem_model_outputs(model, &n_out);
  rt->pool_of = malloc((n_tensors ? n_tensors : 1) * sizeof *rt->pool_of);
  rt->io = calloc(n_in + n_out + 1, sizeof *rt->io);
  if (!rt->pool_of || !rt->io)
    return fail(rt, texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory"));
  for (size_t i = 0; i < n_tensors; i++) rt->pool_of[i] = NO_TENSOR;
  for (size_t r = 0; r < rt->n_records; r++) rt->pool_of[rt->tensor_of[r]] = r;
  for (size_t i = 0; i < n_in && !st; i++) st = add_io(rt, ins[i], false, err);
  for (size_t i = 0; i < n_out && !st; i++) st = add_io(rt, outs[i], true, err);
  if (st) return fail(rt, st);

  bool half_weights = d.precision == TEXMEM_PRECISION_FP16 && !d.fp32_weights;
  st = texmem__kernel_env_create(ctx, half_weights, &rt->env, err);
  if (!st)
    texmem__kernel_env_configure(rt->env, d.precision == TEXMEM_PRECISION_FP16, rt->stats.tiled,
                                 d.conv1x1_split);
  for (size_t k = 0; k < n_ops && !st; k++) st = build_op(rt, k, err);
  if (!st) st = texmem__kernel_env_commit(rt->env, rt->kernels, rt->n_gl_ops, err);
  if (st) return fail(rt, st);
  link_gl_ops(rt);
  /* Every program now, in one batch, not one by one in the first run. */
  if ((st = texmem_gl_prepare(rt->pool, rt->ops, rt->n_gl_ops, err))) return fail(rt, st);
  if (d.profile && (st = profile_setup(rt, err))) return fail(rt, st);

  texmem_runtime_stats *s = &rt->stats;
  s->operators = n_ops;
  s->tasks = n_ops;
  s->tensors = rt->n_records;
  s->strategy = texmem_plan_get_strategy(rt->plan);
  s->layout = texmem_plan_get_layout(rt->plan);
  s->storage = d.storage;
  s->linear_width = texmem_plan_linear_width(rt->plan);
  s->objects = texmem_gl_pool_object_count(rt->pool);
  s->texture_bytes = texmem_gl_pool_bytes(rt->pool);
  s->weights_bytes = texmem__kernel_env_weights_bytes(rt->env);
  s->weight_buffers = texmem__kernel_env_weight_buffers(rt->env);
  s->conv1x1_splits = texmem__kernel_env_splits_used(rt->env);
  s->dispatches = rt->n_gl_ops;
  *out = rt;
  return TEXMEM_STATUS_OK;
}

static const texmem_tensor *io_tensor(const texmem_runtime *rt, size_t i, bool output) {
  size_t n;
  const int32_t *v = output ? texmem_model_outputs(rt->model, &n) : texmem_model_inputs(rt->model, &n);
  return i < n ? texmem_model_tensor(rt->model, (size_t)v[i]) : NULL;
}

static size_t io_pool_tensor(const texmem_runtime *rt, size_t i, bool output) {
  size_t n;
  const int32_t *v = output ? texmem_model_outputs(rt->model, &n) : texmem_model_inputs(rt->model, &n);
  return rt->pool_of[v[i]];
}

/* GL enums of the two formats (the caller's GL headers have them). */
#define GL_ENUM_RGBA16F 0x881Au
#define GL_ENUM_RGBA32F 0x8814u

static texmem_status io_texture(const texmem_runtime *rt, size_t i, bool output,
                                texmem_runtime_io_texture *out, texmem_error *err) {
  if (!rt || !out)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "runtime or out is NULL");
  memset(out, 0, sizeof *out);
  const char *what = output ? "output" : "input";
  const texmem_tensor *t = io_tensor(rt, i, output);
  if (!t) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "no graph %s %zu", what, i);
  texmem_gl_texture tex = texmem_gl_pool_tensor_texture(rt->pool, io_pool_tensor(rt, i, output));
  texmem_gl_texture_desc d;
  texmem_status st = texmem_gl_texture_get_desc(rt->ctx, tex, &d, err);
  if (st) return st;
  out->gl_name = texmem_gl_texture_gl_name(rt->ctx, tex);
  out->gl_internal_format = d.format == TEXMEM_GL_RGBA32F ? GL_ENUM_RGBA32F : GL_ENUM_RGBA16F;
  out->width = (uint32_t)d.dims[0];
  out->height = (uint32_t)d.dims[1];
  out->layers = (uint32_t)d.dims[2];
  out->batch = t->b;
  out->channels = t->c;
  out->slices = (uint32_t)slices(t->c);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_runtime_input_texture(const texmem_runtime *rt, size_t i,
                                           texmem_runtime_io_texture *out, texmem_error *err) {
  return io_texture(rt, i, false, out, err);
}

texmem_status texmem_runtime_output_texture(const texmem_runtime *rt, size_t i,
                                            texmem_runtime_io_texture *out, texmem_error *err) {
  return io_texture(rt, i, true, out, err);
}

static size_t elements(const texmem_tensor *t) { return (size_t)t->b * t->h * t->w * t->c; }

size_t texmem_runtime_input_size(const texmem_runtime *rt, size_t i) {
  const texmem_tensor *t = rt ? io_tensor(rt, i, false) : NULL;
  return t ? elements(t) : 0;
}

size_t texmem_runtime_output_size(const texmem_runtime *rt, size_t i) {
  const texmem_tensor *t = rt ? io_tensor(rt, i, true) : NULL;
  return t ? elements(t) : 0;
}

texmem_status texmem_runtime_set_input(texmem_runtime *rt, size_t i, const float *values,
                                       texmem_error *err) {
  if (!rt || !values)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "runtime or values is NULL");
  const texmem_tensor *t = io_tensor(rt, i, false);
  if (!t) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "no graph input %zu", i);
  size_t B = t->b, W = t->w, H = t->h, C = t->c, S = (size_t)slices(t->c);
  float *texels = calloc(B * W * H * S * 4 + 1, sizeof *texels);
  if (!texels) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  for (size_t b = 0; b < B; b++)
    for (size_t y = 0; y < H; y++)
      for (size_t x = 0; x < W; x++)
        for (size_t c = 0; c < C; c++)
          texels[(((b * S + c / 4) * H + y) * W + x) * 4 + c % 4] =
              values[((b * H + y) * W + x) * C + c];
  texmem_status st = texmem_gl_tensor_upload(rt->pool, io_pool_tensor(rt, i, false), texels, err);
  free(texels);
  return st;
}

/* Each GL operation between a timer interval's begin and end, its CPU
 * submit time around the dispatch alone. */
static texmem_status run_profiled(texmem_runtime *rt, texmem_error *err) {
  rt->profiled_run = false;
  if (rt->timer) texmem_gl_timer_reset(rt->timer);
  texmem_status st = rt->span ? texmem_gl_timer_begin(rt->timer, rt->n_gl_ops, err) : 0;
  if (st) return st;
  for (size_t i = 0; i < rt->n_gl_ops; i++) {
    st = rt->timer ? texmem_gl_timer_begin(rt->timer, i, err) : TEXMEM_STATUS_OK;
    if (st) return st;
    texmem_gl_counters c0, c1;
    texmem_gl_counters_get(rt->ctx, &c0);
    uint64_t t0 = now_ns();
    st = texmem_gl_dispatch(rt->pool, &rt->ops[i], err);
    rt->prof[i].cpu_submit_ns = now_ns() - t0;
    texmem_gl_counters_get(rt->ctx, &c1);
    rt->prof[i].work_groups = c1.work_groups - c0.work_groups;
    rt->prof[i].invocations = c1.invocations - c0.invocations;
    if (!st && rt->timer) st = texmem_gl_timer_end(rt->timer, i, err);
    if (st) return st;
  }
  if (rt->span && (st = texmem_gl_timer_end(rt->timer, rt->n_gl_ops, err))) return st;
  rt->profiled_run = true;
  rt->results_read = false;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_runtime_run(texmem_runtime *rt, texmem_error *err) {
  if (!rt) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  if (rt->profile) return run_profiled(rt, err);
  return texmem_gl_run(rt->pool, rt->ops, rt->n_gl_ops, NULL, err);
}

texmem_status texmem_runtime_get_profile(texmem_runtime *rt, texmem_runtime_profile *out,
                                         texmem_error *err) {
  if (!rt || !out)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "runtime or out is NULL");
  memset(out, 0, sizeof *out);
  if (!rt->profile)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "the runtime was created without profile");
  if (!rt->timer) {
    const char *why;
    texmem_gl_timer_support(rt->ctx, &why);
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED, "%s", why);
  }
  if (!rt->profiled_run)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "no complete run to profile since the runtime was created");
  if (!rt->results_read) {
    texmem_status st = texmem_gl_timer_read(rt->timer, rt->gpu_ns, rt->n_gl_ops + rt->span,
                                            &rt->disjoint, err);
    if (st) return st;
    for (size_t i = 0; i < rt->n_gl_ops; i++) rt->prof[i].gpu_ns = rt->gpu_ns[i];
    rt->results_read = true;
  }
  out->records = rt->prof;
  out->n_records = rt->n_gl_ops;
  out->timer = texmem_gl_timer_support(rt->ctx, NULL);
  out->disjoint = rt->disjoint;
  out->run_gpu_ns = rt->span ? rt->gpu_ns[rt->n_gl_ops] : 0;
  for (size_t i = 0; i < rt->n_gl_ops; i++) {
    out->gpu_ns += rt->prof[i].gpu_ns;
    out->cpu_submit_ns += rt->prof[i].cpu_submit_ns;
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_runtime_finish(texmem_runtime *rt, texmem_error *err) {
  if (!rt) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  return texmem_gl_finish(rt->ctx, err);
}

texmem_status texmem_runtime_get_output(texmem_runtime *rt, size_t i, float *values,
                                        texmem_error *err) {
  if (!rt || !values)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "runtime or values is NULL");
  const texmem_tensor *t = io_tensor(rt, i, true);
  if (!t) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "no graph output %zu", i);
  size_t B = t->b, W = t->w, H = t->h, C = t->c, S = (size_t)slices(t->c);
  float *texels = malloc((B * W * H * S * 4 + 1) * sizeof *texels);
  if (!texels) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  texmem_status st = texmem_gl_tensor_read(rt->pool, io_pool_tensor(rt, i, true), texels, err);
  if (!st)
    for (size_t b = 0; b < B; b++)
      for (size_t y = 0; y < H; y++)
        for (size_t x = 0; x < W; x++)
          for (size_t c = 0; c < C; c++)
            values[((b * H + y) * W + x) * C + c] =
                texels[(((b * S + c / 4) * H + y) * W + x) * 4 + c % 4];
  free(texels);
  return st;
}

void texmem_runtime_get_stats(const texmem_runtime *rt, texmem_runtime_stats *out) {
  if (!out) return;
  if (!rt) {
    memset(out, 0, sizeof *out);
    return;
  }
  *out = rt->stats;
  texmem_gl_memory_reading now;
  if (rt->driver_before.source == TEXMEM_GL_MEMORY_NONE ||
      texmem_gl_memory_read(rt->ctx, &now, NULL) != TEXMEM_STATUS_OK ||
      now.source != rt->driver_before.source)
    return;
  out->driver_source = now.source;
  out->driver_before_bytes = rt->driver_before.used_bytes;
  out->driver_after_bytes = now.used_bytes;
}

const texmem_plan *texmem_runtime_plan(const texmem_runtime *rt) { return rt ? rt->plan : NULL; }

const texmem_record *texmem_runtime_records(const texmem_runtime *rt, size_t *n) {
  if (n) *n = rt ? rt->n_records : 0;
  return rt ? rt->records : NULL;
}

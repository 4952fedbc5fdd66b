/* Helpers for the runtime tests (header only): run a model on the GL
 * runtime and on the CPU reference with the same seeded inputs, compare. */
#ifndef TEXMEM_TESTS_RT_SUPPORT_H
#define TEXMEM_TESTS_RT_SUPPORT_H

#include <math.h>
#include <stdio.h>

#include "gl_support.h"
#include "reference.h"
#include "texmem/runtime.h"

/* Seeded inputs in [-2, 2): one malloc'd array per graph input. */
static inline float **rt_inputs(const texmem_model *m, uint64_t seed, size_t *n) {
  const int32_t *in = texmem_model_inputs(m, n);
  float **v = calloc(*n + 1, sizeof *v);
  cr_assert_not_null(v);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < *n; i++) {
    const texmem_tensor *t = texmem_model_tensor(m, (size_t)in[i]);
    size_t cnt = (size_t)t->b * t->h * t->w * t->c;
    v[i] = malloc((cnt + 1) * sizeof **v);
    cr_assert_not_null(v[i]);
    for (size_t k = 0; k < cnt; k++)
      v[i][k] = (float)((double)(tt_rand(&s) >> 11) / 9007199254740992.0 * 4.0 - 2.0);
  }
  return v;
}

static inline void rt_free_arrays(float **v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

/* Graph outputs after one run (malloc'd arrays, one per output). */
typedef struct rt_outputs {
  size_t n;
  float **v;
  size_t *count;
} rt_outputs;

static inline void rt_outputs_free(rt_outputs *o) {
  rt_free_arrays(o->v, o->n);
  free(o->count);
  o->v = NULL;
  o->count = NULL;
}

/* Called on the runtime before it is destroyed (may be NULL). */
typedef void (*rt_inspect_fn)(const texmem_model *m, const texmem_runtime_desc *desc,
                              const texmem_runtime *rt);

/* Every graph output of rt's last run (get_output). */
static inline rt_outputs rt_read_outputs(texmem_runtime *rt, const texmem_model *m) {
  size_t n_out;
  texmem_model_outputs(m, &n_out);
  rt_outputs o = {n_out, calloc(n_out + 1, sizeof(float *)), calloc(n_out + 1, sizeof(size_t))};
  cr_assert(o.v && o.count);
  for (size_t i = 0; i < n_out; i++) {
    o.count[i] = texmem_runtime_output_size(rt, i);
    o.v[i] = malloc((o.count[i] + 1) * sizeof(float));
    cr_assert_not_null(o.v[i]);
    TG_OK(texmem_runtime_get_output(rt, i, o.v[i], &tg_err_));
  }
  return o;
}

/* Sets rt's inputs, runs it once and reads every output. */
static inline rt_outputs rt_run_once(texmem_runtime *rt, const texmem_model *m, float **inputs) {
  size_t n_in;
  texmem_model_inputs(m, &n_in);
  for (size_t i = 0; i < n_in; i++) TG_OK(texmem_runtime_set_input(rt, i, inputs[i], &tg_err_));
  TG_OK(texmem_runtime_run(rt, &tg_err_));
  return rt_read_outputs(rt, m);
}

/* Creates a runtime for desc, runs it once on inputs, reads every output,
 * calls inspect. */
static inline rt_outputs rt_run_inspect(texmem_gl_context *ctx, const texmem_model *m,
                                        const texmem_runtime_desc *desc, float **inputs,
                                        rt_inspect_fn inspect) {
  texmem_runtime *rt = NULL;
  TG_OK(texmem_runtime_create(ctx, m, desc, &rt, &tg_err_));
  rt_outputs o = rt_run_once(rt, m, inputs);
  if (inspect) inspect(m, desc, rt);
  texmem_runtime_destroy(rt);
  return o;
}

static inline rt_outputs rt_run(texmem_gl_context *ctx, const texmem_model *m,
                                const texmem_runtime_desc *desc, float **inputs) {
  return rt_run_inspect(ctx, m, desc, inputs, NULL);
}

/* CPU reference outputs for the same inputs. */
static inline texmem_ref_result *rt_reference(const texmem_model *m, float **inputs) {
  size_t n_in;
  texmem_model_inputs(m, &n_in);
  texmem_ref_result *r = NULL;
  texmem_error err = {0};
  texmem_status st = texmem_ref_run(m, (const float *const *)inputs, n_in, &r, &err);
  cr_assert_eq(st, TEXMEM_STATUS_OK, "reference run: %s", err.message);
  return r;
}

/* |got - want| <= abs_tol + rel_tol * |want| for every output value;
 * returns the largest error relative to (abs_tol + rel_tol*|want|). */
static inline double rt_compare(const texmem_model *m, const rt_outputs *o,
                                const texmem_ref_result *ref, double rel_tol, double abs_tol,
                                const char *what) {
  size_t n_out;
  const int32_t *out = texmem_model_outputs(m, &n_out);
  cr_assert_eq(o->n, n_out);
  double worst = 0.0;
  for (size_t i = 0; i < n_out; i++) {
    const float *want = ref->values[out[i]];
    cr_assert_not_null(want);
    cr_assert_eq(o->count[i], ref->counts[out[i]], "%s: output %zu has %zu values, reference %zu",
                 what, i, o->count[i], ref->counts[out[i]]);
    for (size_t k = 0; k < o->count[i]; k++) {
      double g = o->v[i][k], w = want[k], lim = abs_tol + rel_tol * fabs(w);
      cr_assert(fabs(g - w) <= lim, "%s: output %zu value %zu is %.7g, reference %.7g", what, i,
                k, g, w);
      if (fabs(g - w) / lim > worst) worst = fabs(g - w) / lim;
    }
  }
  return worst;
}

/* Whole models: |got - want| <= rel_tol * max|want| of that output (the
 * errors of a deep network grow with its activations, not per value);
 * returns the worst error / that bound. */
static inline double rt_compare_scaled(const texmem_model *m, const rt_outputs *o,
                                       const texmem_ref_result *ref, double rel_tol,
                                       const char *what) {
  size_t n_out;
  const int32_t *out = texmem_model_outputs(m, &n_out);
  cr_assert_eq(o->n, n_out);
  double worst = 0.0;
  for (size_t i = 0; i < n_out; i++) {
    const float *want = ref->values[out[i]];
    cr_assert_not_null(want);
    cr_assert_eq(o->count[i], ref->counts[out[i]], "%s: output %zu has %zu values, reference %zu",
                 what, i, o->count[i], ref->counts[out[i]]);
    double mag = 1e-6;
    for (size_t k = 0; k < o->count[i]; k++)
      if (fabs(want[k]) > mag) mag = fabs(want[k]);
    double lim = rel_tol * mag;
    for (size_t k = 0; k < o->count[i]; k++) {
      double g = o->v[i][k], w = want[k];
      cr_assert(fabs(g - w) <= lim, "%s: output %zu value %zu is %.7g, reference %.7g (max |ref| %g)",
                what, i, k, g, w, mag);
      if (fabs(g - w) / lim > worst) worst = fabs(g - w) / lim;
    }
  }
  return worst;
}

/* Bit-identical outputs. */
static inline void rt_assert_identical(const rt_outputs *a, const rt_outputs *b,
                                       const char *what) {
  cr_assert_eq(a->n, b->n);
  for (size_t i = 0; i < a->n; i++) {
    cr_assert_eq(a->count[i], b->count[i]);
    for (size_t k = 0; k < a->count[i]; k++)
      cr_assert(memcmp(&a->v[i][k], &b->v[i][k], sizeof(float)) == 0,
                "%s: output %zu value %zu differs: %.9g vs %.9g", what, i, k, a->v[i][k],
                b->v[i][k]);
  }
}

/* A small test model around one op: graph inputs reach the op under test
 * through an identity ADD (x + 0) and its output leaves through one, so the
 * op reads and writes planned (pool) textures. */
typedef struct rt_mb {
  texmem_model *m;
  int32_t zero; /* scalar constant 0 for the identity ADDs */
  int32_t in[24], out[8];
  size_t n_in, n_out;
} rt_mb;

static inline int32_t rt_mb_tensor(rt_mb *b, unsigned rank, const int32_t *shape) {
  int32_t t;
  TG_OK(texmem_model_add_tensor(b->m, NULL, TEXMEM_DTYPE_FLOAT32, rank, shape, &t, &tg_err_));
  return t;
}

static inline void rt_mb_op(rt_mb *b, texmem_op_type type, const int32_t *ins, size_t n,
                            int32_t out, const texmem_op_options *o) {
  TG_OK(texmem_model_add_op(b->m, type, ins, n, &out, 1, o, NULL, &tg_err_));
}

static inline rt_mb rt_mb_new(void) {
  rt_mb b = {0};
  TG_OK(texmem_model_create(&b.m, &tg_err_));
  const int32_t one = 1;
  const float z = 0.0f;
  TG_OK(texmem_model_add_constant(b.m, "zero", TEXMEM_DTYPE_FLOAT32, 1, &one, &z, sizeof z,
                                  &b.zero, &tg_err_));
  return b;
}

/* Graph input number b->n_in of this shape, returned as the intermediate
 * x + 0. */
static inline int32_t rt_mb_input(rt_mb *b, unsigned rank, const int32_t *shape) {
  cr_assert_lt(b->n_in, sizeof b->in / sizeof b->in[0]);
  int32_t g = rt_mb_tensor(b, rank, shape), t = rt_mb_tensor(b, rank, shape);
  int32_t ins[2] = {g, b->zero};
  rt_mb_op(b, TEXMEM_OP_ADD, ins, 2, t, NULL);
  b->in[b->n_in++] = g;
  return t;
}

/* The op output t leaves through t + 0 as a graph output. */
static inline void rt_mb_output(rt_mb *b, int32_t t) {
  cr_assert_lt(b->n_out, sizeof b->out / sizeof b->out[0]);
  const texmem_tensor *x = texmem_model_tensor(b->m, (size_t)t);
  int32_t shape[TEXMEM_MAX_RANK];
  memcpy(shape, x->shape, sizeof shape);
  int32_t g = rt_mb_tensor(b, x->rank, shape);
  int32_t ins[2] = {t, b->zero};
  rt_mb_op(b, TEXMEM_OP_ADD, ins, 2, g, NULL);
  b->out[b->n_out++] = g;
}

#endif

/* Real TensorFlow Lite as the oracle: the same seeded inputs go through
 * texmem's GL runtime (fp32) and through TFLite compiled to WebAssembly
 * (tools/fetch_tflite.sh), run by Node (tests/oracle/tflite_run.cjs).
 *
 *  - real_models: every .tflite in the model cache ($TEXMEM_MODEL_CACHE or
 *    ~/.cache/texmem/models, tools/fetch_models.sh). Each output must be
 *    within 1e-3 of its largest reference value. The only exclusions: a
 *    model TFLite cannot load because of a custom operator (checked: TFLite
 *    must fail and say so), and a model texmem cannot execute yet (checked:
 *    it must be refused with UNSUPPORTED_OP). Both are listed.
 *  - single_ops: one-operator models made by tests/tflite_writer.c, one
 *    table entry each, covering the options of every kernel.
 *
 * This test never skips: no node, no TFLite, no model or no GL is a
 * failure (the GL rule of gl_support.h holds with TEXMEM_REQUIRE_GL).
 *
 * real_models and real_models_fp16 can record TFLite's results and replay
 * them, so that they run on a machine without Node (a GPU machine):
 * TEXMEM_ORACLE_RECORD=DIR writes each TFLite run to DIR, named from the
 * model, the input kind and a checksum of the input values;
 * TEXMEM_ORACLE_REPLAY=DIR reads them instead of running Node, which is
 * then not needed, nor the WebAssembly runtime. A run that was not recorded
 * (or was recorded from other input values) fails the test, naming the
 * file. The other tests always run Node. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models_list.h"
#include "rt_support.h"
#include "tflite_writer.h"

#define MODEL_REL 1e-3 /* whole models: of max |reference| per output */
#define OP_REL 1e-4    /* single operators */

/* ---- Node and the TFLite runtime ---- */

/* The test's scratch directory; removed by the test, or by cleanup() (each
 * Test's .fini) when an assertion ended it early. */
static char *scratch;

static char *make_tmpdir(void) {
  char *d = strdup("/tmp/texmem-oracle-XXXXXX");
  cr_assert_not_null(d);
  cr_assert_not_null(mkdtemp(d), "mkdtemp failed");
  scratch = d;
  return d;
}

static void remove_tmpdir(char *dir) {
  if (!dir) return;
  if (dir == scratch) scratch = NULL;
  DIR *dp = opendir(dir);
  if (dp) {
    struct dirent *e;
    char p[1400];
    while ((e = readdir(dp)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
      }
    closedir(dp);
  }
  rmdir(dir);
  free(dir);
}

static void cleanup(void) { remove_tmpdir(scratch); }

#define MAX_IO 16

/* One TFLite run: rc 0 ok (outputs filled), 3 the model did not load
 * (msg holds TFLite's reason), anything else is a failure. */
typedef struct tfl_run {
  int rc;
  char *msg; /* node's stdout */
  size_t n_out;
  float *v[MAX_IO];
  size_t count[MAX_IO];
  char shape[MAX_IO][96];
  char name[MAX_IO][256];
} tfl_run;

static void tfl_free(tfl_run *r) {
  for (size_t i = 0; i < r->n_out; i++) free(r->v[i]);
  free(r->msg);
}

static void write_f32(const char *path, const float *v, size_t n) {
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f, "cannot write %s", path);
  cr_assert_eq(fwrite(v, sizeof *v, n, f), n);
  cr_assert_eq(fclose(f), 0);
}

static tfl_run tflite(const char *model, float **inputs, const size_t *counts, size_t n_in,
                      const char *dir) {
  cr_assert_leq(n_in, MAX_IO);
  char in_path[MAX_IO][1100], out_prefix[1100];
  const char *argv[16 + 2 * MAX_IO];
  size_t a = 0;
  argv[a++] = tt_node_path();
  argv[a++] = TEXMEM_SOURCE_DIR "/tests/oracle/tflite_run.cjs";
  argv[a++] = "--wasm";
  argv[a++] = tt_tflite_wasm_dir();
  argv[a++] = "--model";
  argv[a++] = model;
  snprintf(out_prefix, sizeof out_prefix, "%s/out", dir);
  argv[a++] = "--out";
  argv[a++] = out_prefix;
  for (size_t i = 0; i < n_in; i++) {
    snprintf(in_path[i], sizeof in_path[i], "%s/in%zu.f32", dir, i);
    write_f32(in_path[i], inputs[i], counts[i]);
    argv[a++] = "--input";
    argv[a++] = in_path[i];
  }
  argv[a] = NULL;
  tfl_run r = {0};
  char *err = NULL;
  r.rc = tt_spawn(argv, dir, &r.msg, &err);
  cr_assert(r.rc == 0 || r.rc == 3, "TFLite run of %s failed (exit %d): %s %s", model, r.rc, r.msg,
            err);
  free(err);
  if (r.rc) return r;
  /* "output INDEX TYPE SHAPE NAME" lines. */
  for (char *line = r.msg; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    size_t idx;
    char type[32], shape[96], name[256] = "";
    if (sscanf(line, "output %zu %31s %95s %255[^\n]", &idx, type, shape, name) >= 3) {
      cr_assert_eq(idx, r.n_out);
      cr_assert_lt(idx, MAX_IO);
      snprintf(r.shape[idx], sizeof r.shape[idx], "%s", shape);
      snprintf(r.name[idx], sizeof r.name[idx], "%s", name);
      char p[1200];
      snprintf(p, sizeof p, "%s.%zu.f32", out_prefix, idx);
      size_t len = 0;
      char *bytes = tt_read_file(p, &len);
      cr_assert_eq(len % 4, 0);
      r.v[idx] = (float *)(void *)bytes; /* malloc'd: aligned for float */
      r.count[idx] = len / 4;
      unlink(p);
      r.n_out++;
    }
    if (nl) *nl = '\n';
    line = nl ? nl + 1 : NULL;
  }
  for (size_t i = 0; i < n_in; i++) unlink(in_path[i]);
  return r;
}

/* ---- recorded TFLite runs (TEXMEM_ORACLE_RECORD / _REPLAY) ---- */

static uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
  for (const unsigned char *b = p; n--; b++) h = (h ^ *b) * 1099511628211ull;
  return h;
}

/* The checksum of a run's inputs (counts and values): a replay with other
 * inputs, such as smooth inputs computed differently by another libm, must
 * not find the recorded run. */
static uint64_t inputs_hash(float **inputs, const size_t *counts, size_t n_in) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n_in; i++) {
    uint64_t c = counts[i];
    h = fnv1a(fnv1a(h, &c, sizeof c), inputs[i], counts[i] * sizeof(float));
  }
  return h;
}

/* A header line, one line per output (count, shape, name), TFLite's stdout,
 * then each output's float32 values (binary: the pose models' outputs are
 * about 1 MB a run). */
static void tfl_save(const tfl_run *r, const char *file, uint64_t h) {
  FILE *f = fopen(file, "wb");
  cr_assert_not_null(f, "TEXMEM_ORACLE_RECORD: cannot write %s", file);
  const char *msg = r->msg ? r->msg : "";
  fprintf(f, "texmem oracle run %016llx rc %d outputs %zu msg %zu\n", (unsigned long long)h, r->rc,
          r->n_out, strlen(msg));
  for (size_t i = 0; i < r->n_out; i++)
    fprintf(f, "%zu %s %s\n", r->count[i], r->shape[i], r->name[i]);
  fputs(msg, f);
  for (size_t i = 0; i < r->n_out; i++)
    cr_assert_eq(fwrite(r->v[i], sizeof(float), r->count[i], f), r->count[i]);
  cr_assert_eq(fclose(f), 0, "TEXMEM_ORACLE_RECORD: cannot write %s", file);
}

static tfl_run tfl_load(const char *file, uint64_t h) {
  cr_assert(access(file, R_OK) == 0,
            "TEXMEM_ORACLE_REPLAY: no recorded TFLite run %s: not recorded with "
            "TEXMEM_ORACLE_RECORD, or recorded from other input values (the name ends with their "
            "checksum)", file);
  size_t len = 0, msg_len = 0, values = 0;
  char *b = tt_read_file(file, &len), *p = strchr(b, '\n');
  tfl_run r = {0};
  unsigned long long fh = 0;
  cr_assert(p && sscanf(b, "texmem oracle run %llx rc %d outputs %zu msg %zu", &fh, &r.rc,
                        &r.n_out, &msg_len) == 4 && r.n_out <= MAX_IO,
            "%s: not a recorded TFLite run", file);
  cr_assert_eq(fh, h, "%s: recorded from inputs with checksum %016llx, not %016llx", file, fh,
               (unsigned long long)h);
  for (size_t i = 0; i < r.n_out; i++) {
    char *line = p + 1;
    p = strchr(line, '\n');
    cr_assert(p && sscanf(line, "%zu %95s %255[^\n]", &r.count[i], r.shape[i], r.name[i]) >= 2,
              "%s: output %zu: bad line", file, i);
    values += r.count[i];
  }
  p++;
  cr_assert_eq(len, (size_t)(p - b) + msg_len + values * sizeof(float), "%s: wrong size", file);
  r.msg = malloc(msg_len + 1);
  cr_assert_not_null(r.msg);
  memcpy(r.msg, p, msg_len);
  r.msg[msg_len] = '\0';
  p += msg_len;
  for (size_t i = 0; i < r.n_out; i++) {
    size_t bytes = r.count[i] * sizeof(float);
    r.v[i] = malloc(bytes + sizeof(float));
    cr_assert_not_null(r.v[i]);
    memcpy(r.v[i], p, bytes);
    p += bytes;
  }
  free(b);
  return r;
}

static const char *env_dir(const char *var) {
  const char *d = getenv(var);
  return d && *d ? d : NULL;
}

/* tflite() for the real-model tests, recorded or replayed when the
 * environment asks (see the header). kind names the inputs: "noise",
 * "smooth", or "probe" for a run with none. */
static tfl_run oracle_tflite(const char *model, const char *kind, float **inputs,
                             const size_t *counts, size_t n_in, const char *dir) {
  const char *rec = env_dir("TEXMEM_ORACLE_RECORD"), *rep = env_dir("TEXMEM_ORACLE_REPLAY");
  cr_assert(!(rec && rep), "set TEXMEM_ORACLE_RECORD or TEXMEM_ORACLE_REPLAY, not both");
  if (!rec && !rep) return tflite(model, inputs, counts, n_in, dir);
  uint64_t h = inputs_hash(inputs, counts, n_in);
  const char *base = strrchr(model, '/');
  char file[1600];
  snprintf(file, sizeof file, "%s/%s.%s.%016llx.tfl", rep ? rep : rec, base ? base + 1 : model,
           kind, (unsigned long long)h);
  if (rep) return tfl_load(file, h);
  tfl_run r = tflite(model, inputs, counts, n_in, dir);
  tfl_save(&r, file, h);
  return r;
}

/* ---- texmem ---- */

/* Creates the runtime (fp32 unless desc says) and runs it; returns the
 * create status (OK: outputs filled). Any failure after create fails the
 * test. */
static texmem_status texmem_run_desc(texmem_gl_context *ctx, const texmem_model *m,
                                     const texmem_runtime_desc *d, float **inputs, rt_outputs *o,
                                     texmem_error *err) {
  texmem_runtime *rt = NULL;
  texmem_status st = texmem_runtime_create(ctx, m, d, &rt, err);
  if (st) return st;
  size_t n_in, n_out;
  texmem_model_inputs(m, &n_in);
  texmem_model_outputs(m, &n_out);
  for (size_t i = 0; i < n_in; i++) TG_OK(texmem_runtime_set_input(rt, i, inputs[i], &tg_err_));
  TG_OK(texmem_runtime_run(rt, &tg_err_));
  o->n = n_out;
  o->v = calloc(n_out + 1, sizeof *o->v);
  o->count = calloc(n_out + 1, sizeof *o->count);
  cr_assert(o->v && o->count);
  for (size_t i = 0; i < n_out; i++) {
    o->count[i] = texmem_runtime_output_size(rt, i);
    o->v[i] = malloc((o->count[i] + 1) * sizeof(float));
    cr_assert_not_null(o->v[i]);
    TG_OK(texmem_runtime_get_output(rt, i, o->v[i], &tg_err_));
  }
  texmem_runtime_destroy(rt);
  return TEXMEM_STATUS_OK;
}

static texmem_status texmem_run(texmem_gl_context *ctx, const texmem_model *m, float **inputs,
                                rt_outputs *o, texmem_error *err) {
  texmem_runtime_desc d = {.precision = TEXMEM_PRECISION_FP32};
  return texmem_run_desc(ctx, m, &d, inputs, o, err);
}

/* "1,2,3" -> element count. */
static size_t shape_count(const char *s) {
  size_t n = 1;
  while (*s) {
    n *= strtoul(s, (char **)&s, 10);
    if (*s == ',') s++;
    else break;
  }
  return n;
}

/* Every output within rel of its max |TFLite value|; returns the worst
 * error relative to max |reference| over the outputs, logging each. */
static double compare(const char *what, const texmem_model *m, const rt_outputs *o,
                      const tfl_run *r, double rel) {
  size_t n_out;
  const int32_t *out = texmem_model_outputs(m, &n_out);
  cr_assert_eq(r->n_out, n_out, "%s: TFLite has %zu outputs, texmem %zu", what, r->n_out, n_out);
  double worst = 0.0;
  for (size_t i = 0; i < n_out; i++) {
    const texmem_tensor *t = texmem_model_tensor(m, (size_t)out[i]);
    cr_assert_eq(o->count[i], r->count[i], "%s: output %zu: texmem %zu values, TFLite %zu (shape %s)",
                 what, i, o->count[i], r->count[i], r->shape[i]);
    cr_assert_eq(shape_count(r->shape[i]), r->count[i]);
    double mag = 0.0, e = 0.0;
    size_t at = 0;
    for (size_t k = 0; k < r->count[i]; k++) {
      double w = r->v[i][k], g = o->v[i][k];
      cr_assert(isfinite(w) && isfinite(g), "%s: output %zu value %zu: texmem %g, TFLite %g", what,
                i, k, g, w);
      if (fabs(w) > mag) mag = fabs(w);
      if (fabs(g - w) > e) {
        e = fabs(g - w);
        at = k;
      }
    }
    double lim = rel * (mag > 1e-6 ? mag : 1e-6);
    cr_log_info("oracle: %s output %zu \"%s\" [%s]: max |err| %.3g, max |ref| %.3g, ratio %.2g", what,
                i, t->name, r->shape[i], e, mag, mag > 0 ? e / mag : e);
    cr_assert(e <= lim,
              "%s: output %zu \"%s\": value %zu is %.7g on texmem, %.7g on TFLite: error %.3g > "
              "%g x max |ref| %.4g",
              what, i, t->name, at, o->v[i][at], r->v[i][at], e, rel, mag);
    double ratio = e / (mag > 1e-6 ? mag : 1e-6); /* as the limit: tiny outputs compare absolutely */
    if (ratio > worst) worst = ratio;
  }
  return worst;
}

static size_t elements(const texmem_tensor *t) { return (size_t)t->b * t->h * t->w * t->c; }

/* ---- real models ---- */

static const char *model_cache(char *buf, size_t n) {
  const char *env = getenv("TEXMEM_MODEL_CACHE");
  if (env && *env) return env;
  snprintf(buf, n, "%s/.cache/texmem/models", getenv("HOME") ? getenv("HOME") : "");
  return buf;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .tflite files of the model cache, sorted (malloc'd names); n >= 1. */
static size_t list_models(const char *cache, char **names, size_t cap) {
  DIR *dp = opendir(cache);
  cr_assert_not_null(dp, "no model cache %s: run tools/fetch_models.sh", cache);
  size_t n = 0;
  for (struct dirent *e; (e = readdir(dp));) {
    size_t len = strlen(e->d_name);
    if (len > 7 && strcmp(e->d_name + len - 7, ".tflite") == 0 && n < cap)
      names[n++] = strdup(e->d_name);
  }
  closedir(dp);
  cr_assert_gt(n, 0, "no .tflite in %s: run tools/fetch_models.sh", cache);
  qsort(names, n, sizeof *names, by_name);
  return n;
}

/* Loads a cached model; models with dynamic dimensions get the input shape
 * the model list gives them (tests/models_list.h). */
static texmem_status load_cached(const char *path, const char *file, texmem_model **m,
                                 texmem_error *err) {
  texmem_input_shape shape = {0};
  texmem_model_load_desc ld = {0};
  for (size_t j = 0; j < TT_N_MODELS; j++)
    if (!strcmp(tt_models[j].file, file)) ld = tt_model_load_desc(j, &shape);
  return texmem_model_load_tflite_desc(path, &ld, m, err);
}

Test(oracle, real_models, .timeout = 560, .fini = cleanup) {
  char cbuf[1024];
  const char *cache = model_cache(cbuf, sizeof cbuf);
  char *names[256];
  size_t n = list_models(cache, names, 256);

  texmem_gl_context *ctx = tg_context();
  char *dir = make_tmpdir();
  size_t compared = 0, custom = 0, refused = 0;
  char summary[4096] = "";
  for (size_t k = 0; k < n; k++) {
    if (!tt_model_in_run(names[k])) {
      free(names[k]);
      continue;
    }
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", cache, names[k]);
    texmem_model *m = NULL;
    texmem_error err = {0};
    texmem_status st = load_cached(path, names[k], &m, &err);
    cr_assert(st == TEXMEM_STATUS_OK || st == TEXMEM_STATUS_UNSUPPORTED_OP, "%s: %s: %s", names[k],
              texmem_status_name(st), err.message);
    size_t n_in = 0;
    float **in = NULL;
    size_t counts[MAX_IO] = {0};
    rt_outputs o = {0};
    texmem_error rerr = {0};
    texmem_status rst = st;
    if (m) {
      in = rt_inputs(m, 7, &n_in);
      const int32_t *ins = texmem_model_inputs(m, &n_in);
      cr_assert_leq(n_in, MAX_IO);
      for (size_t i = 0; i < n_in; i++) counts[i] = elements(texmem_model_tensor(m, (size_t)ins[i]));
      rst = texmem_run(ctx, m, in, &o, &rerr);
      cr_assert(rst == TEXMEM_STATUS_OK || rst == TEXMEM_STATUS_UNSUPPORTED_OP,
                "%s: runtime: %s: %s", names[k], texmem_status_name(rst), rerr.message);
    } else {
      snprintf(rerr.message, sizeof rerr.message, "%s", err.message);
    }
    /* TFLite gets the same inputs (seeded ones when texmem could not read
     * the model: it must still load or fail for a custom operator). */
    tfl_run r = in ? oracle_tflite(path, "noise", in, counts, n_in, dir)
                   : oracle_tflite(path, "probe", NULL, NULL, 0, dir);
    char line[600];
    if (r.rc == 3) {
      cr_assert_not_null(strstr(r.msg, "custom op"),
                         "%s: TFLite could not load it, and not for a custom operator: %s",
                         names[k], r.msg);
      const char *op = strstr(r.msg, "custom op: ");
      char opname[128] = "?";
      if (op) sscanf(op + 11, "%127[^. |]", opname);
      snprintf(line, sizeof line, "  %s: skipped: TFLite cannot load it (custom op %s)\n",
               names[k], opname);
      custom++;
    } else if (rst == TEXMEM_STATUS_UNSUPPORTED_OP) {
      snprintf(line, sizeof line, "  %s: texmem cannot execute it yet: %s\n", names[k],
               rerr.message);
      refused++;
    } else {
      double worst = compare(names[k], m, &o, &r, MODEL_REL);
      snprintf(line, sizeof line, "  %s: compared, worst error %.2e of max |ref|\n", names[k],
               worst);
      compared++;
    }
    strncat(summary, line, sizeof summary - strlen(summary) - 1);
    tfl_free(&r);
    rt_outputs_free(&o);
    rt_free_arrays(in, n_in);
    texmem_model_destroy(m);
    free(names[k]);
  }
  cr_log_info("oracle: %zu models: %zu compared with TFLite, %zu TFLite cannot load (custom ops), "
              "%zu texmem cannot execute yet\n%s",
              n, compared, custom, refused, summary);
  fprintf(stderr, "oracle summary:\n%s", summary);
  remove_tmpdir(dir);
  texmem_gl_context_destroy(ctx);
  cr_assert_gt(compared, 0, "no model was compared with TFLite");
}

/* ---- real models in fp16 ---- */

/* fp16 runs (binary16 textures and weights, fp32 arithmetic) against
 * TFLite's fp32, per output: the error is max |err| / max |ref|, or max
 * |err| itself for an output whose values all lie below binary16's normal
 * range (2^-14, such as a presence score near 1e-6). The tolerance is
 * FP16_REL (FP16_ABS absolutely), except where binary16 storage alone is
 * further off: the emulation (the same run with fp32 weights: every stored
 * tensor rounded to nearest, nothing else) measures that, and there fp16
 * must stay within FP16_EMU times its error (plus FP16_FLOOR, for outputs
 * the emulation gets exact). So fp16 may add at most half of the storage
 * rounding's own error, and nothing where storage is exact enough. */
#define FP16_REL 0.05
#define FP16_ABS 1e-4
#define FP16_EMU 1.5
#define FP16_FLOOR 2e-3
#define FP16_NORMAL 6.103515625e-05

/* Inputs that look like a camera's: smooth colour gradients and a few
 * soft blobs in [0.1, 0.9] (what image models see after normalising, in
 * either [0, 1] or [-1, 1] conventions), unlike rt_inputs' white noise. */
static float **smooth_inputs(const texmem_model *m, size_t *n) {
  const int32_t *in = texmem_model_inputs(m, n);
  float **v = calloc(*n + 1, sizeof *v);
  cr_assert_not_null(v);
  for (size_t i = 0; i < *n; i++) {
    const texmem_tensor *t = texmem_model_tensor(m, (size_t)in[i]);
    size_t cnt = (size_t)t->b * t->h * t->w * t->c, k = 0;
    v[i] = malloc((cnt + 1) * sizeof **v);
    cr_assert_not_null(v[i]);
    for (uint32_t b = 0; b < t->b; b++)
      for (uint32_t y = 0; y < t->h; y++)
        for (uint32_t x = 0; x < t->w; x++)
          for (uint32_t c = 0; c < t->c; c++) {
            double u = (x + 0.5) / t->w, w = (y + 0.5) / t->h;
            double g = 0.35 * sin(6.1 * u + 1.7 * c + b) * cos(4.3 * w - 0.9 * c);
            double blob = 0.15 * exp(-((u - 0.6) * (u - 0.6) + (w - 0.4) * (w - 0.4)) * 18.0);
            v[i][k++] = (float)(0.5 + g + blob);
          }
  }
  return v;
}

/* max |got - ref| over output i, and max |ref|. */
static void output_error(const rt_outputs *o, const tfl_run *r, size_t i, double *err,
                         double *mag) {
  *err = *mag = 0.0;
  for (size_t k = 0; k < r->count[i]; k++) {
    double w = r->v[i][k], g = o->v[i][k];
    cr_assert(isfinite(g), "output %zu value %zu: %g", i, k, g);
    if (fabs(w) > *mag) *mag = fabs(w);
    if (fabs(g - w) > *err) *err = fabs(g - w);
  }
}

/* One model, one input set: fp16 (weights fp16) and the store-rounding
 * emulation (fp16 textures, fp32 weights) against TFLite, logged per output;
 * fp16 must be within the tolerance. */
static void check_fp16(texmem_gl_context *ctx, const char *name, const char *what,
                       const char *path, const texmem_model *m, float **in, const char *dir) {
  size_t n_in, n_out;
  const int32_t *ins = texmem_model_inputs(m, &n_in);
  const int32_t *outs = texmem_model_outputs(m, &n_out);
  size_t counts[MAX_IO] = {0};
  for (size_t i = 0; i < n_in; i++) counts[i] = elements(texmem_model_tensor(m, (size_t)ins[i]));
  tfl_run r = oracle_tflite(path, what, in, counts, n_in, dir);
  cr_assert_eq(r.rc, 0, "%s: TFLite did not run it: %s", name, r.msg);
  texmem_runtime_desc d16 = {.precision = TEXMEM_PRECISION_FP16};
  texmem_runtime_desc emu = {.precision = TEXMEM_PRECISION_FP16, .fp32_weights = true};
  rt_outputs o16 = {0}, oe = {0};
  TG_OK(texmem_run_desc(ctx, m, &d16, in, &o16, &tg_err_));
  TG_OK(texmem_run_desc(ctx, m, &emu, in, &oe, &tg_err_));
  cr_assert_eq(r.n_out, n_out);
  for (size_t i = 0; i < n_out; i++) {
    const texmem_tensor *t = texmem_model_tensor(m, (size_t)outs[i]);
    cr_assert_eq(o16.count[i], r.count[i]);
    double e16, ee, mag;
    output_error(&oe, &r, i, &ee, &mag);
    output_error(&o16, &r, i, &e16, &mag);
    bool tiny = mag < FP16_NORMAL;
    double rel16 = tiny ? e16 : e16 / mag, rele = tiny ? ee : ee / mag;
    cr_log_info("oracle fp16: %s (%s) output %zu \"%s\" [%s]: max |ref| %.3g, error %s %.3g, "
                "rounding emulation %.3g, ratio %.2f", name, what, i, t->name, r.shape[i], mag,
                tiny ? "(absolute)" : "of max |ref|", rel16, rele, rele > 0 ? rel16 / rele : 0.0);
    fprintf(stderr, "fp16 | %s | %s | %s | %.3g | %.3g | %.3g\n", name, what, t->name, mag, rel16,
            rele);
    double base = tiny ? FP16_ABS : FP16_REL;
    double lim = FP16_EMU * rele + FP16_FLOOR * base / FP16_REL;
    if (lim < base) lim = base;
    cr_assert(rel16 <= lim,
              "%s (%s): output %zu \"%s\": fp16 error %.3g %s, the rounding emulation's %.3g "
              "(limit %.3g: %g, or %g x the emulation's where that is more)", name, what, i,
              t->name, rel16, tiny ? "absolute" : "of max |ref|", rele, lim, base, FP16_EMU);
  }
  tfl_free(&r);
  rt_outputs_free(&o16);
  rt_outputs_free(&oe);
}

Test(oracle, real_models_fp16, .timeout = 560, .fini = cleanup) {
  char cbuf[1024];
  const char *cache = model_cache(cbuf, sizeof cbuf);
  char *names[256];
  size_t n = list_models(cache, names, 256), compared = 0;
  texmem_gl_context *ctx = tg_context();
  char *dir = make_tmpdir();
  for (size_t k = 0; k < n; k++) {
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", cache, names[k]);
    texmem_model *m = NULL;
    texmem_error err = {0};
    texmem_runtime *rt = NULL;
    /* Models the fp32 test lists as refused or not loadable are skipped
     * here (that test checks why); every other model runs in fp16. */
    bool run = tt_model_in_run(names[k]) && !load_cached(path, names[k], &m, &err) &&
               !texmem_runtime_create(ctx, m, NULL, &rt, &err);
    texmem_runtime_destroy(rt);
    if (run) {
      tfl_run probe = oracle_tflite(path, "probe", NULL, NULL, 0, dir);
      run = probe.rc == 0;
      tfl_free(&probe);
    }
    if (run) {
      size_t n_in;
      float **noise = rt_inputs(m, 7, &n_in), **smooth = smooth_inputs(m, &n_in);
      check_fp16(ctx, names[k], "noise", path, m, noise, dir);
      check_fp16(ctx, names[k], "smooth", path, m, smooth, dir);
      rt_free_arrays(noise, n_in);
      rt_free_arrays(smooth, n_in);
      compared++;
    }
    texmem_model_destroy(m);
    free(names[k]);
  }
  remove_tmpdir(dir);
  texmem_gl_context_destroy(ctx);
  cr_assert_gt(compared, 0, "no model was compared with TFLite in fp16");
}

/* ---- single-operator models ---- */

/* graph input, seeded float constant in [-1, 1), the same in [0.5, 1.5)
 * (divisors), int32 constant */
enum { VAR, WGT, WPOS, I32 };

#define OC_MAX_IN 10
#define OC_MAX_OUT 4

typedef struct oc_tensor {
  int kind;
  unsigned rank;
  int32_t shape[4];
  int32_t ival[8]; /* I32 values */
} oc_tensor;

/* One operator: its inputs (graph inputs and constants, in operator input
 * order) and its output shape; operators with several outputs (SPLIT) list
 * the others in `more` (same rank). scale: inputs in [-scale, scale) (0 =
 * 2). */
typedef struct oc_case {
  const char *name;
  int32_t code;
  tw_options opts;
  size_t n_in;
  oc_tensor in[OC_MAX_IN];
  unsigned out_rank;
  int32_t out[4];
  float scale;
  size_t n_more;
  int32_t more[OC_MAX_OUT - 1][4];
} oc_case;

#define IN(r, ...) {.kind = VAR, .rank = (r), .shape = {__VA_ARGS__}}
#define W(r, ...) {.kind = WGT, .rank = (r), .shape = {__VA_ARGS__}}
#define WP(r, ...) {.kind = WPOS, .rank = (r), .shape = {__VA_ARGS__}}
#define INTS(n, ...) {.kind = I32, .rank = 1, .shape = {n}, .ival = {__VA_ARGS__}}
#define PADS(...) {.kind = I32, .rank = 2, .shape = {4, 2}, .ival = {__VA_ARGS__}}
#define OUT(r, ...) .out_rank = (r), .out = {__VA_ARGS__}
#define CASE(nm, op, o, ...) .name = (nm), .code = TW_OP_##op, .opts = (o), __VA_ARGS__

/* Adding an operator's model = adding one entry here. */
static size_t op_cases(oc_case *c) {
  const int32_t rs3[] = {1, 12, 16}, rs2[] = {1, 96}, rs3b[] = {2, 12, 16};
  oc_case t[] = {
      /* CONV_2D: padding (asymmetric SAME: H pad 1 = 0 before, 1 after),
       * strides, dilations, fused activations. */
      {CASE("conv_valid", CONV_2D, tw_conv2d_options(TW_VALID, 1, 1, TW_ACT_NONE, 1, 1),
            .n_in = 3, .in = {IN(4, 1, 9, 11, 5), W(4, 7, 3, 3, 5), W(1, 7)}, OUT(4, 1, 7, 9, 7))},
      {CASE("conv_same_stride2_asym_relu6", CONV_2D,
            tw_conv2d_options(TW_SAME, 2, 2, TW_ACT_RELU6, 1, 1), .n_in = 3,
            .in = {IN(4, 1, 10, 11, 5), W(4, 6, 3, 3, 5), W(1, 6)}, OUT(4, 1, 5, 6, 6), .scale = 4)},
      {CASE("conv_same_2x2_stride2_asym", CONV_2D, tw_conv2d_options(TW_SAME, 2, 2, TW_ACT_NONE, 1, 1),
            .n_in = 3, .in = {IN(4, 1, 9, 9, 4), W(4, 5, 2, 2, 4), W(1, 5)}, OUT(4, 1, 5, 5, 5))},
      {CASE("conv_stride_1x2_relu", CONV_2D, tw_conv2d_options(TW_SAME, 2, 1, TW_ACT_RELU, 1, 1),
            .n_in = 3, .in = {IN(4, 1, 7, 10, 3), W(4, 9, 3, 3, 3), W(1, 9)}, OUT(4, 1, 7, 5, 9))},
      {CASE("conv_dilation_2x3_relu", CONV_2D, tw_conv2d_options(TW_SAME, 1, 1, TW_ACT_RELU, 3, 2),
            .n_in = 3, .in = {IN(4, 1, 12, 13, 4), W(4, 5, 3, 3, 4), W(1, 5)}, OUT(4, 1, 12, 13, 5))},
      {CASE("conv_dilation2_valid", CONV_2D, tw_conv2d_options(TW_VALID, 1, 1, TW_ACT_NONE, 2, 2),
            .n_in = 3, .in = {IN(4, 1, 11, 12, 6), W(4, 4, 3, 3, 6), W(1, 4)}, OUT(4, 1, 7, 8, 4))},
      {CASE("conv_1x1_relu_n1_to_1", CONV_2D,
            tw_conv2d_options(TW_VALID, 1, 1, TW_ACT_RELU_N1_TO_1, 1, 1), .n_in = 3,
            .in = {IN(4, 1, 6, 7, 8), W(4, 12, 1, 1, 8), W(1, 12)}, OUT(4, 1, 6, 7, 12))},
      /* DEPTHWISE_CONV_2D: depth multiplier, stride + dilation. */
      {CASE("depthwise_mult2_same", DEPTHWISE_CONV_2D,
            tw_depthwise_options(TW_SAME, 1, 1, 2, TW_ACT_NONE, 1, 1), .n_in = 3,
            .in = {IN(4, 1, 9, 10, 4), W(4, 1, 3, 3, 8), W(1, 8)}, OUT(4, 1, 9, 10, 8))},
      {CASE("depthwise_mult3_stride2_asym_relu6", DEPTHWISE_CONV_2D,
            tw_depthwise_options(TW_SAME, 2, 2, 3, TW_ACT_RELU6, 1, 1), .n_in = 3,
            .in = {IN(4, 1, 10, 9, 3), W(4, 1, 3, 3, 9), W(1, 9)}, OUT(4, 1, 5, 5, 9), .scale = 4)},
      {CASE("depthwise_dilation2_valid_relu", DEPTHWISE_CONV_2D,
            tw_depthwise_options(TW_VALID, 1, 1, 1, TW_ACT_RELU, 2, 2), .n_in = 3,
            .in = {IN(4, 1, 11, 12, 6), W(4, 1, 3, 3, 6), W(1, 6)}, OUT(4, 1, 7, 8, 6))},
      /* ADD / MUL: same shape, broadcast constant [C], broadcast [1,1,1,C]
       * and [1,H,1,C] inputs, scalar, fused activations. */
      {CASE("add_relu", ADD, tw_add_options(TW_ACT_RELU), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), IN(4, 1, 5, 6, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("add_const_c", ADD, tw_add_options(TW_ACT_NONE), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), W(1, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("add_broadcast_111c_relu6", ADD, tw_add_options(TW_ACT_RELU6), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), IN(4, 1, 1, 1, 7)}, OUT(4, 1, 5, 6, 7), .scale = 5)},
      {CASE("add_broadcast_1h1c", ADD, tw_add_options(TW_ACT_NONE), .n_in = 2,
            .in = {IN(4, 1, 5, 1, 7), IN(4, 1, 5, 6, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("mul", MUL, tw_mul_options(TW_ACT_NONE), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), IN(4, 1, 5, 6, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("mul_scalar_relu", MUL, tw_mul_options(TW_ACT_RELU), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), W(1, 1)}, OUT(4, 1, 5, 6, 7))},
      {CASE("mul_broadcast_111c", MUL, tw_mul_options(TW_ACT_NONE), .n_in = 2,
            .in = {IN(4, 1, 1, 1, 6), IN(4, 1, 4, 5, 6)}, OUT(4, 1, 4, 5, 6))},
      /* Pools: SAME-padded average (TFLite counts valid cells), max. */
      {CASE("avg_pool_same_3x3_s2", AVERAGE_POOL_2D, tw_pool_options(TW_SAME, 2, 2, 3, 3, TW_ACT_NONE),
            .n_in = 1, .in = {IN(4, 1, 9, 10, 5)}, OUT(4, 1, 5, 5, 5))},
      {CASE("avg_pool_valid_2x3_relu", AVERAGE_POOL_2D,
            tw_pool_options(TW_VALID, 1, 2, 3, 2, TW_ACT_RELU), .n_in = 1,
            .in = {IN(4, 1, 8, 9, 6)}, OUT(4, 1, 4, 7, 6))},
      {CASE("max_pool_valid_2x2_s2", MAX_POOL_2D, tw_pool_options(TW_VALID, 2, 2, 2, 2, TW_ACT_NONE),
            .n_in = 1, .in = {IN(4, 1, 9, 10, 5)}, OUT(4, 1, 4, 5, 5))},
      {CASE("max_pool_same_3x3_s1", MAX_POOL_2D, tw_pool_options(TW_SAME, 1, 1, 3, 3, TW_ACT_NONE),
            .n_in = 1, .in = {IN(4, 1, 7, 8, 3)}, OUT(4, 1, 7, 8, 3))},
      /* RESIZE_BILINEAR: the three coordinate rules, up and down. */
      {CASE("resize_bilinear_up", RESIZE_BILINEAR, tw_resize_bilinear_options(false, false),
            .n_in = 2, .in = {IN(4, 1, 5, 7, 6), INTS(2, 9, 13)}, OUT(4, 1, 9, 13, 6))},
      {CASE("resize_bilinear_align_corners", RESIZE_BILINEAR, tw_resize_bilinear_options(true, false),
            .n_in = 2, .in = {IN(4, 1, 5, 7, 6), INTS(2, 9, 13)}, OUT(4, 1, 9, 13, 6))},
      {CASE("resize_bilinear_half_pixel", RESIZE_BILINEAR, tw_resize_bilinear_options(false, true),
            .n_in = 2, .in = {IN(4, 1, 5, 7, 6), INTS(2, 9, 13)}, OUT(4, 1, 9, 13, 6))},
      {CASE("resize_bilinear_half_pixel_down", RESIZE_BILINEAR,
            tw_resize_bilinear_options(false, true), .n_in = 2,
            .in = {IN(4, 1, 9, 13, 5), INTS(2, 4, 6)}, OUT(4, 1, 4, 6, 5))},
      /* MEAN over H and W, kept and dropped. */
      {CASE("mean_hw_keep", MEAN, tw_reducer_options(true), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), INTS(2, 1, 2)}, OUT(4, 1, 1, 1, 7))},
      {CASE("mean_hw_drop", MEAN, tw_reducer_options(false), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 9), INTS(2, 1, 2)}, OUT(2, 1, 9))},
      /* PAD: H/W (asymmetric) and channels. */
      {CASE("pad_hw", PAD, tw_pad_options(), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), PADS(0, 0, 1, 2, 2, 1, 0, 0)}, OUT(4, 1, 8, 9, 7))},
      {CASE("pad_channels", PAD, tw_pad_options(), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), PADS(0, 0, 0, 0, 0, 0, 1, 2)}, OUT(4, 1, 5, 6, 10))},
      /* CONCATENATION on C (not multiples of 4), H, W, three inputs. */
      {CASE("concat_c", CONCATENATION, tw_concatenation_options(3, TW_ACT_NONE), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 3), IN(4, 1, 5, 6, 5)}, OUT(4, 1, 5, 6, 8))},
      {CASE("concat_h", CONCATENATION, tw_concatenation_options(1, TW_ACT_NONE), .n_in = 2,
            .in = {IN(4, 1, 3, 6, 4), IN(4, 1, 5, 6, 4)}, OUT(4, 1, 8, 6, 4))},
      {CASE("concat_w_3_inputs", CONCATENATION, tw_concatenation_options(-2, TW_ACT_NONE),
            .n_in = 3, .in = {IN(4, 1, 4, 2, 6), IN(4, 1, 4, 3, 6), IN(4, 1, 4, 1, 6)},
            OUT(4, 1, 4, 6, 6))},
      /* RESHAPE: shape from the constant input and from options. */
      {CASE("reshape_to_rank3", RESHAPE, tw_reshape_options(3, rs3), .n_in = 2,
            .in = {IN(4, 1, 4, 6, 8), INTS(3, 1, 12, 16)}, OUT(3, 1, 12, 16))},
      {CASE("reshape_options_only", RESHAPE, tw_reshape_options(2, rs2), .n_in = 1,
            .in = {IN(4, 1, 4, 6, 4)}, OUT(2, 1, 96))},
      /* FULLY_CONNECTED with bias and fused activation. */
      {CASE("fully_connected_relu", FULLY_CONNECTED, tw_fully_connected_options(TW_ACT_RELU, false),
            .n_in = 3, .in = {IN(2, 1, 12), W(2, 5, 12), W(1, 5)}, OUT(2, 1, 5))},
      {CASE("fully_connected", FULLY_CONNECTED, tw_fully_connected_options(TW_ACT_NONE, false),
            .n_in = 3, .in = {IN(2, 1, 37), W(2, 10, 37), W(1, 10)}, OUT(2, 1, 10))},
      {CASE("depth_to_space_2", DEPTH_TO_SPACE, tw_depth_to_space_options(2), .n_in = 1,
            .in = {IN(4, 1, 4, 5, 12)}, OUT(4, 1, 8, 10, 3))},
      /* Element-wise activations (inputs past 6 for RELU6). */
      {CASE("logistic", LOGISTIC, (tw_options){0}, .n_in = 1, .in = {IN(4, 1, 5, 6, 7)},
            OUT(4, 1, 5, 6, 7), .scale = 8)},
      {CASE("hard_swish", HARD_SWISH, tw_hard_swish_options(), .n_in = 1, .in = {IN(4, 1, 5, 6, 7)},
            OUT(4, 1, 5, 6, 7), .scale = 5)},
      {CASE("relu", RELU, (tw_options){0}, .n_in = 1, .in = {IN(4, 1, 5, 6, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("relu6", RELU6, (tw_options){0}, .n_in = 1, .in = {IN(4, 1, 5, 6, 7)},
            OUT(4, 1, 5, 6, 7), .scale = 9)},
      /* Batch 2: every kernel family. */
      {CASE("batch2_conv_same_relu", CONV_2D, tw_conv2d_options(TW_SAME, 1, 1, TW_ACT_RELU, 1, 1),
            .n_in = 3, .in = {IN(4, 2, 6, 7, 3), W(4, 4, 3, 3, 3), W(1, 4)}, OUT(4, 2, 6, 7, 4))},
      {CASE("batch2_depthwise_mult2", DEPTHWISE_CONV_2D,
            tw_depthwise_options(TW_SAME, 2, 2, 2, TW_ACT_NONE, 1, 1), .n_in = 3,
            .in = {IN(4, 2, 7, 8, 3), W(4, 1, 3, 3, 6), W(1, 6)}, OUT(4, 2, 4, 4, 6))},
      {CASE("batch2_add_broadcast", ADD, tw_add_options(TW_ACT_NONE), .n_in = 2,
            .in = {IN(4, 2, 5, 6, 7), W(1, 7)}, OUT(4, 2, 5, 6, 7))},
      {CASE("batch2_avg_pool_same", AVERAGE_POOL_2D,
            tw_pool_options(TW_SAME, 2, 2, 3, 3, TW_ACT_NONE), .n_in = 1,
            .in = {IN(4, 2, 7, 8, 5)}, OUT(4, 2, 4, 4, 5))},
      {CASE("batch2_resize_bilinear_half_pixel", RESIZE_BILINEAR,
            tw_resize_bilinear_options(false, true), .n_in = 2,
            .in = {IN(4, 2, 4, 5, 3), INTS(2, 7, 9)}, OUT(4, 2, 7, 9, 3))},
      {CASE("batch2_concat_c", CONCATENATION, tw_concatenation_options(3, TW_ACT_NONE), .n_in = 2,
            .in = {IN(4, 2, 3, 4, 3), IN(4, 2, 3, 4, 6)}, OUT(4, 2, 3, 4, 9))},
      {CASE("batch2_fully_connected", FULLY_CONNECTED, tw_fully_connected_options(TW_ACT_NONE, false),
            .n_in = 3, .in = {IN(2, 2, 12), W(2, 5, 12), W(1, 5)}, OUT(2, 2, 5))},
      {CASE("batch2_mul_broadcast_relu", MUL, tw_mul_options(TW_ACT_RELU), .n_in = 2,
            .in = {IN(4, 2, 4, 5, 6), IN(4, 1, 1, 1, 6)}, OUT(4, 2, 4, 5, 6))},
      {CASE("batch2_max_pool_same", MAX_POOL_2D, tw_pool_options(TW_SAME, 2, 2, 3, 3, TW_ACT_NONE),
            .n_in = 1, .in = {IN(4, 2, 7, 8, 5)}, OUT(4, 2, 4, 4, 5))},
      {CASE("batch2_mean_hw_keep", MEAN, tw_reducer_options(true), .n_in = 2,
            .in = {IN(4, 2, 5, 6, 7), INTS(2, 1, 2)}, OUT(4, 2, 1, 1, 7))},
      {CASE("batch2_pad_hwc", PAD, tw_pad_options(), .n_in = 2,
            .in = {IN(4, 2, 4, 5, 7), PADS(0, 0, 1, 0, 0, 2, 1, 1)}, OUT(4, 2, 5, 7, 9))},
      {CASE("batch2_reshape", RESHAPE, tw_reshape_options(3, rs3b), .n_in = 2,
            .in = {IN(4, 2, 4, 6, 8), INTS(3, 2, 12, 16)}, OUT(3, 2, 12, 16))},
      {CASE("batch2_depth_to_space", DEPTH_TO_SPACE, tw_depth_to_space_options(2), .n_in = 1,
            .in = {IN(4, 2, 3, 4, 12)}, OUT(4, 2, 6, 8, 3))},
      {CASE("batch2_logistic", LOGISTIC, (tw_options){0}, .n_in = 1, .in = {IN(4, 2, 3, 4, 5)},
            OUT(4, 2, 3, 4, 5), .scale = 8)},
      {CASE("batch2_hard_swish", HARD_SWISH, tw_hard_swish_options(), .n_in = 1,
            .in = {IN(4, 2, 3, 4, 5)}, OUT(4, 2, 3, 4, 5), .scale = 5)},
      {CASE("batch2_relu6", RELU6, (tw_options){0}, .n_in = 1, .in = {IN(4, 2, 3, 4, 5)},
            OUT(4, 2, 3, 4, 5), .scale = 9)},
      {CASE("batch2_relu", RELU, (tw_options){0}, .n_in = 1, .in = {IN(2, 2, 9)}, OUT(2, 2, 9))},
      /* PRELU: per-channel alpha [1,1,C] and [1,1,1,C], alpha [H,1,C].
       * One alpha for every channel ([1] or [1,1,1]) is checked against
       * the C reference only: this TFLite build answers NaN for it. */
      {CASE("prelu_per_channel", PRELU, (tw_options){0}, .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), W(3, 1, 1, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("prelu_alpha_rank4_111c", PRELU, (tw_options){0}, .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), W(4, 1, 1, 1, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("prelu_alpha_h1c", PRELU, (tw_options){0}, .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), W(3, 5, 1, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("batch2_prelu", PRELU, (tw_options){0}, .n_in = 2,
            .in = {IN(4, 2, 3, 4, 6), W(3, 1, 1, 6)}, OUT(4, 2, 3, 4, 6))},
      /* SOFTMAX over the last axis, beta. */
      {CASE("softmax_beta_0.5", SOFTMAX, tw_softmax_options(0.5f), .n_in = 1, .in = {IN(2, 1, 10)},
            OUT(2, 1, 10), .scale = 6)},
      {CASE("softmax_rank4_beta_2", SOFTMAX, tw_softmax_options(2.0f), .n_in = 1,
            .in = {IN(4, 1, 3, 4, 9)}, OUT(4, 1, 3, 4, 9), .scale = 4)},
      {CASE("batch2_softmax", SOFTMAX, tw_softmax_options(1.0f), .n_in = 1, .in = {IN(2, 2, 7)},
            OUT(2, 2, 7), .scale = 6)},
      {CASE("tanh", TANH, (tw_options){0}, .n_in = 1, .in = {IN(4, 1, 5, 6, 7)}, OUT(4, 1, 5, 6, 7),
            .scale = 6)},
      {CASE("batch2_tanh", TANH, (tw_options){0}, .n_in = 1, .in = {IN(3, 2, 6, 5)}, OUT(3, 2, 6, 5),
            .scale = 6)},
      /* SUB / DIV / MAXIMUM / MINIMUM: broadcasts, fused activations
       * (divisors in [0.5, 1.5)). */
      {CASE("sub_broadcast_111c_relu6", SUB, tw_sub_options(TW_ACT_RELU6), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), IN(4, 1, 1, 1, 7)}, OUT(4, 1, 5, 6, 7), .scale = 8)},
      {CASE("sub_const_relu", SUB, tw_sub_options(TW_ACT_RELU), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), W(1, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("sub_const_minus_input", SUB, tw_sub_options(TW_ACT_NONE), .n_in = 2,
            .in = {W(1, 7), IN(4, 1, 5, 6, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("div_const_c_relu_n1_to_1", DIV, tw_div_options(TW_ACT_RELU_N1_TO_1), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), WP(1, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("div_const_h1c", DIV, tw_div_options(TW_ACT_NONE), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), WP(3, 5, 1, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("maximum_broadcast_111c", MAXIMUM, tw_maximum_minimum_options(), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), IN(4, 1, 1, 1, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("minimum_const_scalar", MINIMUM, tw_maximum_minimum_options(), .n_in = 2,
            .in = {IN(4, 1, 5, 6, 7), W(1, 1)}, OUT(4, 1, 5, 6, 7))},
      {CASE("batch2_sub", SUB, tw_sub_options(TW_ACT_NONE), .n_in = 2,
            .in = {IN(4, 2, 3, 4, 6), IN(4, 2, 3, 4, 6)}, OUT(4, 2, 3, 4, 6))},
      {CASE("batch2_div_relu", DIV, tw_div_options(TW_ACT_RELU), .n_in = 2,
            .in = {IN(4, 2, 3, 4, 6), WP(1, 6)}, OUT(4, 2, 3, 4, 6))},
      {CASE("batch2_maximum", MAXIMUM, tw_maximum_minimum_options(), .n_in = 2,
            .in = {IN(4, 2, 3, 4, 6), IN(4, 2, 3, 4, 6)}, OUT(4, 2, 3, 4, 6))},
      {CASE("batch2_minimum_broadcast", MINIMUM, tw_maximum_minimum_options(), .n_in = 2,
            .in = {IN(4, 2, 3, 4, 6), W(1, 6)}, OUT(4, 2, 3, 4, 6))},
      {CASE("leaky_relu_0.2", LEAKY_RELU, tw_leaky_relu_options(0.2f), .n_in = 1,
            .in = {IN(4, 1, 5, 6, 7)}, OUT(4, 1, 5, 6, 7))},
      {CASE("batch2_leaky_relu_1.5", LEAKY_RELU, tw_leaky_relu_options(1.5f), .n_in = 1,
            .in = {IN(4, 2, 3, 4, 5)}, OUT(4, 2, 3, 4, 5))},
      /* RESIZE_NEAREST_NEIGHBOR: the three coordinate rules, up and down. */
      {CASE("resize_nearest_up", RESIZE_NEAREST_NEIGHBOR, tw_resize_nearest_options(false, false),
            .n_in = 2, .in = {IN(4, 1, 5, 7, 6), INTS(2, 9, 13)}, OUT(4, 1, 9, 13, 6))},
      {CASE("resize_nearest_align_corners", RESIZE_NEAREST_NEIGHBOR,
            tw_resize_nearest_options(true, false), .n_in = 2,
            .in = {IN(4, 1, 5, 7, 6), INTS(2, 9, 13)}, OUT(4, 1, 9, 13, 6))},
      {CASE("resize_nearest_half_pixel", RESIZE_NEAREST_NEIGHBOR,
            tw_resize_nearest_options(false, true), .n_in = 2,
            .in = {IN(4, 1, 5, 7, 6), INTS(2, 9, 13)}, OUT(4, 1, 9, 13, 6))},
      {CASE("resize_nearest_half_pixel_down", RESIZE_NEAREST_NEIGHBOR,
            tw_resize_nearest_options(false, true), .n_in = 2,
            .in = {IN(4, 1, 9, 13, 5), INTS(2, 4, 6)}, OUT(4, 1, 4, 6, 5))},
      {CASE("resize_nearest_align_corners_down", RESIZE_NEAREST_NEIGHBOR,
            tw_resize_nearest_options(true, false), .n_in = 2,
            .in = {IN(4, 1, 9, 13, 5), INTS(2, 4, 6)}, OUT(4, 1, 4, 6, 5))},
      {CASE("batch2_resize_nearest", RESIZE_NEAREST_NEIGHBOR, tw_resize_nearest_options(false, false),
            .n_in = 2, .in = {IN(4, 2, 4, 5, 3), INTS(2, 8, 10)}, OUT(4, 2, 8, 10, 3))},
      /* STRIDED_SLICE: strides, negative strides and indices, masks,
       * shrunk axes (moving W to H's place, the batch away). */
      {CASE("strided_slice_strides", STRIDED_SLICE, tw_strided_slice_options(0, 0, 0), .n_in = 4,
            .in = {IN(4, 1, 5, 7, 6), INTS(4, 0, 1, 0, 1), INTS(4, 1, 5, 7, 6), INTS(4, 1, 2, 3, 1)},
            OUT(4, 1, 2, 3, 5))},
      {CASE("strided_slice_negative_masks", STRIDED_SLICE, tw_strided_slice_options(8, 12, 0),
            .n_in = 4,
            .in = {IN(4, 1, 5, 7, 6), INTS(4, 0, -1, 0, 0), INTS(4, 1, 0, 3, 0),
                   INTS(4, 1, -2, 1, -1)},
            OUT(4, 1, 2, 7, 6))},
      {CASE("strided_slice_shrink_w", STRIDED_SLICE, tw_strided_slice_options(0, 0, 4), .n_in = 4,
            .in = {IN(4, 1, 4, 4, 6), INTS(4, 0, 0, 2, 0), INTS(4, 1, 4, 3, 6), INTS(4, 1, 1, 1, 1)},
            OUT(3, 1, 4, 6))},
      {CASE("strided_slice_shrink_c", STRIDED_SLICE, tw_strided_slice_options(0, 0, 8), .n_in = 4,
            .in = {IN(4, 1, 3, 5, 8), INTS(4, 0, 0, 0, -5), INTS(4, 1, 3, 5, 0), INTS(4, 1, 1, 1, 1)},
            OUT(3, 1, 3, 5))},
      {CASE("strided_slice_rank2_end_clamped", STRIDED_SLICE, tw_strided_slice_options(1, 0, 0),
            .n_in = 4, .in = {IN(2, 3, 10), INTS(2, 2, 2), INTS(2, 3, 100), INTS(2, 1, 3)},
            OUT(2, 3, 3))},
      {CASE("batch2_strided_slice_channels", STRIDED_SLICE, tw_strided_slice_options(0, 0, 0),
            .n_in = 4,
            .in = {IN(4, 2, 3, 4, 12), INTS(4, 0, 0, 1, 4), INTS(4, 2, 3, 4, 11), INTS(4, 1, 2, 1, 1)},
            OUT(4, 2, 2, 3, 7))},
      {CASE("batch2_strided_slice_shrink_batch", STRIDED_SLICE, tw_strided_slice_options(0, 0, 1),
            .n_in = 4,
            .in = {IN(4, 2, 2, 3, 5), INTS(4, 1, 0, 0, 0), INTS(4, 2, 2, 3, 5), INTS(4, 1, 1, 1, 1)},
            OUT(3, 2, 3, 5))},
      /* TRANSPOSE_CONV (builtin): output size given, SAME and VALID,
       * strides, with and without bias. Its fused activation (a newer
       * schema field) is checked against the C reference only: this TFLite
       * build ignores it (RELU6 gave -16.7). */
      {CASE("transpose_conv_same_s2_bias", TRANSPOSE_CONV,
            tw_transpose_conv_options(TW_SAME, 2, 2, TW_ACT_NONE), .n_in = 4,
            .in = {INTS(4, 1, 10, 14, 5), W(4, 5, 3, 3, 6), IN(4, 1, 5, 7, 6), W(1, 5)},
            OUT(4, 1, 10, 14, 5))},
      {CASE("transpose_conv_same_s2_odd_out", TRANSPOSE_CONV,
            tw_transpose_conv_options(TW_SAME, 2, 2, TW_ACT_NONE), .n_in = 3,
            .in = {INTS(4, 1, 9, 13, 4), W(4, 4, 3, 3, 6), IN(4, 1, 5, 7, 6)}, OUT(4, 1, 9, 13, 4))},
      {CASE("transpose_conv_valid_s2x3_bias", TRANSPOSE_CONV,
            tw_transpose_conv_options(TW_VALID, 3, 2, TW_ACT_NONE), .n_in = 4,
            .in = {INTS(4, 1, 9, 8, 7), W(4, 7, 4, 3, 3), IN(4, 1, 3, 2, 3), W(1, 7)},
            OUT(4, 1, 9, 8, 7))},
      {CASE("transpose_conv_same_s1", TRANSPOSE_CONV,
            tw_transpose_conv_options(TW_SAME, 1, 1, TW_ACT_NONE), .n_in = 4,
            .in = {INTS(4, 1, 6, 5, 4), W(4, 4, 3, 3, 4), IN(4, 1, 6, 5, 4), W(1, 4)},
            OUT(4, 1, 6, 5, 4))},
      {CASE("batch2_transpose_conv_valid_2x2", TRANSPOSE_CONV,
            tw_transpose_conv_options(TW_VALID, 2, 2, TW_ACT_NONE), .n_in = 4,
            .in = {INTS(4, 2, 8, 6, 6), W(4, 6, 2, 2, 5), IN(4, 2, 4, 3, 5), W(1, 6)},
            OUT(4, 2, 8, 6, 6))},
      /* SPLIT (axis first) and SPLIT_V (sizes, -1 = the rest). */
      {CASE("split_channels_3", SPLIT, tw_split_options(3), .n_in = 2,
            .in = {INTS(1, 3), IN(4, 1, 3, 4, 9)}, OUT(4, 1, 3, 4, 3), .n_more = 2,
            .more = {{1, 3, 4, 3}, {1, 3, 4, 3}})},
      {CASE("split_h_axis_-3", SPLIT, tw_split_options(2), .n_in = 2,
            .in = {INTS(1, -3), IN(4, 1, 6, 4, 5)}, OUT(4, 1, 3, 4, 5), .n_more = 1,
            .more = {{1, 3, 4, 5}})},
      {CASE("split_v_channels_2_rest_3", SPLIT_V, tw_split_v_options(3), .n_in = 3,
            .in = {IN(4, 1, 3, 4, 9), INTS(3, 2, -1, 3), INTS(1, 3)}, OUT(4, 1, 3, 4, 2),
            .n_more = 2, .more = {{1, 3, 4, 4}, {1, 3, 4, 3}})},
      {CASE("split_v_w", SPLIT_V, tw_split_v_options(2), .n_in = 3,
            .in = {IN(4, 1, 3, 5, 6), INTS(2, 1, 4), INTS(1, 2)}, OUT(4, 1, 3, 1, 6), .n_more = 1,
            .more = {{1, 3, 4, 6}})},
      {CASE("batch2_split_batch", SPLIT, tw_split_options(2), .n_in = 2,
            .in = {INTS(1, 0), IN(4, 2, 3, 4, 5)}, OUT(4, 1, 3, 4, 5), .n_more = 1,
            .more = {{1, 3, 4, 5}})},
      {CASE("batch2_split_v_channels", SPLIT_V, tw_split_v_options(2), .n_in = 3,
            .in = {IN(4, 2, 3, 4, 7), INTS(2, 5, 2), INTS(1, -1)}, OUT(4, 2, 3, 4, 5), .n_more = 1,
            .more = {{2, 3, 4, 2}})},
      /* CONCATENATION of 10 inputs (more than one pass binds); TFLite's
       * float CONCATENATION refuses a fused activation. */
      {CASE("concat_c_10_inputs", CONCATENATION, tw_concatenation_options(3, TW_ACT_NONE),
            .n_in = 10,
            .in = {IN(4, 1, 3, 4, 3), IN(4, 1, 3, 4, 2), IN(4, 1, 3, 4, 5), IN(4, 1, 3, 4, 1),
                   IN(4, 1, 3, 4, 4), IN(4, 1, 3, 4, 3), IN(4, 1, 3, 4, 6), IN(4, 1, 3, 4, 2),
                   IN(4, 1, 3, 4, 1), IN(4, 1, 3, 4, 7)},
            OUT(4, 1, 3, 4, 34))},
      {CASE("batch2_concat_w_9_inputs", CONCATENATION,
            tw_concatenation_options(2, TW_ACT_NONE), .n_in = 9,
            .in = {IN(4, 2, 3, 1, 5), IN(4, 2, 3, 2, 5), IN(4, 2, 3, 1, 5), IN(4, 2, 3, 3, 5),
                   IN(4, 2, 3, 1, 5), IN(4, 2, 3, 2, 5), IN(4, 2, 3, 1, 5), IN(4, 2, 3, 1, 5),
                   IN(4, 2, 3, 2, 5)},
            OUT(4, 2, 3, 14, 5))},
  };
  size_t n = sizeof t / sizeof t[0];
  if (c) memcpy(c, t, sizeof t);
  return n;
}

static bool batched(const oc_case *c) {
  for (size_t i = 0; i < c->n_in; i++)
    if (c->in[i].kind == VAR && c->in[i].rank >= 2 && c->in[i].shape[0] > 1) return true;
  return false;
}

/* The one-operator model of a case: tensors = inputs in order, then the
 * output; constants get seeded data. */
static void write_case(const oc_case *c, const char *path, uint64_t seed) {
  tw_tensor t[OC_MAX_IN + OC_MAX_OUT];
  float *data[OC_MAX_IN] = {0};
  int32_t graph_in[OC_MAX_IN], op_in[OC_MAX_IN], outs[OC_MAX_OUT];
  size_t n_graph_in = 0, n_out = 1 + c->n_more;
  uint64_t s = seed;
  cr_assert_leq(c->n_in, OC_MAX_IN);
  cr_assert_leq(n_out, OC_MAX_OUT);
  memset(t, 0, sizeof t);
  for (size_t i = 0; i < c->n_in; i++) {
    const oc_tensor *x = &c->in[i];
    tw_tensor *y = &t[i];
    y->rank = x->rank;
    memcpy(y->shape, x->shape, sizeof x->shape);
    op_in[i] = (int32_t)i;
    size_t cnt = 1;
    for (unsigned d = 0; d < x->rank; d++) cnt *= (size_t)x->shape[d];
    if (x->kind == VAR) {
      y->name = "input";
      y->type = TW_FLOAT32;
      graph_in[n_graph_in++] = (int32_t)i;
    } else if (x->kind == WGT || x->kind == WPOS) {
      y->name = "weights";
      y->type = TW_FLOAT32;
      data[i] = malloc(cnt * sizeof(float));
      cr_assert_not_null(data[i]);
      for (size_t k = 0; k < cnt; k++) {
        double u = (double)(tt_rand(&s) >> 11) / 9007199254740992.0;
        data[i][k] = (float)(x->kind == WPOS ? u + 0.5 : u * 2.0 - 1.0);
      }
      y->data = data[i];
      y->data_size = cnt * sizeof(float);
    } else {
      y->name = "params";
      y->type = TW_INT32;
      y->data = x->ival;
      y->data_size = cnt * sizeof(int32_t);
    }
  }
  for (size_t j = 0; j < n_out; j++) {
    tw_tensor *y = &t[c->n_in + j];
    outs[j] = (int32_t)(c->n_in + j);
    y->name = "output";
    y->type = TW_FLOAT32;
    y->rank = c->out_rank;
    memcpy(y->shape, j ? c->more[j - 1] : c->out, sizeof c->out);
  }
  tw_operator op = {.code = c->code, .n_inputs = c->n_in, .inputs = op_in, .n_outputs = n_out,
                    .outputs = outs, .options = c->opts};
  tw_subgraph g = {.name = c->name, .n_tensors = c->n_in + n_out, .tensors = t,
                   .n_inputs = n_graph_in, .inputs = graph_in, .n_outputs = n_out, .outputs = outs,
                   .n_operators = 1, .operators = &op};
  tw_model m = {.description = c->name, .n_subgraphs = 1, .subgraphs = &g};
  texmem_error err = {0};
  texmem_status st = tw_write_file(&m, path, &err);
  cr_assert_eq(st, TEXMEM_STATUS_OK, "%s: %s", c->name, err.message);
  for (size_t i = 0; i < OC_MAX_IN; i++) free(data[i]);
}

Test(oracle, single_ops, .timeout = 560, .fini = cleanup) {
  size_t n = op_cases(NULL);
  oc_case *cases = calloc(n, sizeof *cases);
  cr_assert_not_null(cases);
  op_cases(cases);
  texmem_gl_context *ctx = tg_context();
  char *dir = make_tmpdir();
  size_t compared = 0, batch2 = 0;
  double worst = 0.0;
  const char *worst_case = "";
  for (size_t k = 0; k < n; k++) {
    const oc_case *c = &cases[k];
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.tflite", dir, c->name);
    write_case(c, path, 1000 + k);
    texmem_model *m = NULL;
    TG_OK(texmem_model_load_tflite(path, &m, &tg_err_));
    /* Inputs in [-scale, scale). */
    size_t n_in = 0;
    float **in = rt_inputs(m, 11 + k, &n_in);
    const int32_t *ins = texmem_model_inputs(m, &n_in);
    size_t counts[MAX_IO] = {0};
    float sc = (c->scale > 0 ? c->scale : 2.0f) / 2.0f;
    for (size_t i = 0; i < n_in; i++) {
      counts[i] = elements(texmem_model_tensor(m, (size_t)ins[i]));
      for (size_t j = 0; j < counts[i]; j++) in[i][j] *= sc;
    }
    tfl_run r = tflite(path, in, counts, n_in, dir);
    cr_assert_eq(r.rc, 0, "%s: TFLite cannot load the writer's model: %s", c->name, r.msg);
    /* TFLite computes the output shapes itself: they must match the table. */
    cr_assert_eq(r.n_out, 1 + c->n_more, "%s: TFLite gives %zu outputs", c->name, r.n_out);
    for (size_t j = 0; j <= c->n_more; j++) {
      const int32_t *shape = j ? c->more[j - 1] : c->out;
      char want[96] = "";
      for (unsigned d = 0; d < c->out_rank; d++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s%d", d ? "," : "", shape[d]);
      cr_assert_str_eq(r.shape[j], want, "%s: TFLite output %zu shape %s, table says %s", c->name,
                       j, r.shape[j], want);
    }
    rt_outputs o = {0};
    texmem_error err = {0};
    texmem_status st = texmem_run(ctx, m, in, &o, &err);
    cr_assert_eq(st, TEXMEM_STATUS_OK, "%s: %s: %s", c->name, texmem_status_name(st), err.message);
    double e = compare(c->name, m, &o, &r, OP_REL);
    if (e >= worst) {
      worst = e;
      worst_case = c->name;
    }
    if (batched(c)) batch2++;
    compared++;
    unlink(path);
    tfl_free(&r);
    rt_outputs_free(&o);
    rt_free_arrays(in, n_in);
    texmem_model_destroy(m);
  }
  cr_log_info("oracle: %zu single-operator models: %zu compared with TFLite (%zu at batch 2), "
              "worst error %.2e of max |ref| (%s)",
              n, compared, batch2, worst, worst_case);
  fprintf(stderr, "oracle single ops: %zu compared (%zu at batch 2), worst %.2e (%s)\n", compared,
          batch2, worst, worst_case);
  remove_tmpdir(dir);
  texmem_gl_context_destroy(ctx);
  free(cases);
}

/* The writer's int8 tensors, quantization parameters and second subgraph
 * as TFLite reads them: float -> QUANTIZE (int8, scale 0.05, zero point
 * -3) -> DEQUANTIZE -> float must give exactly the quantization computed
 * here, saturation included. texmem does not execute quantized operators:
 * it must refuse the model with UNSUPPORTED_OP (reader or runtime). */
Test(oracle, writer_int8_quantization, .fini = cleanup) {
  float scale = 0.05f;
  int64_t zp = -3;
  tw_quant q = {1, &scale, &zp, 0};
  tw_tensor t0[] = {TW_TENSOR("x", TW_FLOAT32, 4, 1, 4, 5, 6),
                    {.name = "q", .type = TW_INT8, .rank = 4, .shape = {1, 4, 5, 6}, .quant = &q},
                    TW_TENSOR("y", TW_FLOAT32, 4, 1, 4, 5, 6)};
  int32_t x[] = {0}, qi[] = {1}, y[] = {2};
  tw_operator ops0[] = {
      {.code = TW_OP_QUANTIZE, .n_inputs = 1, .inputs = x, .n_outputs = 1, .outputs = qi},
      {.code = TW_OP_DEQUANTIZE, .n_inputs = 1, .inputs = qi, .n_outputs = 1, .outputs = y}};
  tw_tensor t1[] = {TW_TENSOR("a", TW_FLOAT32, 1, 3), TW_TENSOR("b", TW_FLOAT32, 1, 3)};
  int32_t a[] = {0}, b[] = {1};
  tw_operator ops1[] = {{.code = TW_OP_RELU, .n_inputs = 1, .inputs = a, .n_outputs = 1, .outputs = b}};
  tw_subgraph g[] = {{"main", 3, t0, 1, x, 1, y, 2, ops0}, {"unused", 2, t1, 1, a, 1, b, 1, ops1}};
  tw_model tm = {"int8 quantization", 2, g};
  char *dir = make_tmpdir();
  char path[1200];
  snprintf(path, sizeof path, "%s/int8.tflite", dir);
  TG_OK(tw_write_file(&tm, path, &tg_err_));

  texmem_model *m = NULL;
  texmem_error err = {0};
  texmem_status st = texmem_model_load_tflite(path, &m, &err);
  if (st == TEXMEM_STATUS_OK) {
    texmem_gl_context *ctx = tg_context();
    texmem_runtime *rt = NULL;
    texmem_runtime_desc d = {.precision = TEXMEM_PRECISION_FP32};
    st = texmem_runtime_create(ctx, m, &d, &rt, &err);
    texmem_runtime_destroy(rt);
    texmem_gl_context_destroy(ctx);
  }
  cr_assert_eq(st, TEXMEM_STATUS_UNSUPPORTED_OP, "texmem: %s: %s", texmem_status_name(st),
               err.message);
  texmem_model_destroy(m);

  size_t n = 4 * 5 * 6;
  float in[4 * 5 * 6];
  uint64_t s = 99;
  for (size_t i = 0; i < n; i++)
    in[i] = (float)((double)(tt_rand(&s) >> 11) / 9007199254740992.0 * 16.0 - 8.0);
  float *inputs[] = {in};
  tfl_run r = tflite(path, inputs, &n, 1, dir);
  cr_assert_eq(r.rc, 0, "TFLite cannot load the writer's int8 model: %s", r.msg);
  cr_assert_eq(r.n_out, 1);
  cr_assert_eq(r.count[0], n);
  size_t saturated = 0;
  for (size_t i = 0; i < n; i++) {
    double v = (double)in[i] / scale, rv = round(v) + (double)zp;
    if (rv < -128 || rv > 127) saturated++;
    rv = rv < -128 ? -128 : rv > 127 ? 127 : rv;
    double want = (rv - (double)zp) * scale, got = r.v[0][i];
    /* A value half-way between two steps may round either way. */
    bool tie = fabs(fabs(v - floor(v)) - 0.5) < 1e-3;
    cr_assert(fabs(got - want) <= (tie ? scale * 1.001 : 1e-5),
              "value %zu: input %.7g, TFLite %.7g, expected %.7g", i, in[i], got, want);
  }
  cr_assert_gt(saturated, 0, "the inputs should reach int8 saturation");
  tfl_free(&r);
  unlink(path);
  remove_tmpdir(dir);
}

/* The TFLite Micro test models (see tflm_models.h). A small graph builder
 * on top of tflite_writer: tensors of shape [1, H, W, C], 1x1 convolutions
 * with int8 or float weights, ADD and CONCATENATION, so every model is a
 * valid graph whose tensor sizes follow from its operators. */
#include "tflm_models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_T 96

uint64_t tm_branchy_seed;
#define MAX_OPS 48

typedef struct gb {
  uint8_t type; /* TW_INT8 or TW_FLOAT32 */
  tw_tensor t[MAX_T];
  char names[MAX_T][24];
  void *data[MAX_T];
  tw_operator ops[MAX_OPS];
  int32_t io[MAX_OPS][6];
  size_t nt, nops;
  tw_quant q, wq, bq; /* activations, weights (zero point 0), int32 bias (in * w scale) */
  float scale, wscale, bscale;
  int64_t zp, zero;
  uint64_t seed;
} gb;

static uint32_t rnd(gb *g) {
  g->seed = g->seed * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(g->seed >> 33);
}

static int32_t act(gb *g, const char *name, int h, int w, int c) {
  size_t i = g->nt++;
  snprintf(g->names[i], sizeof g->names[i], "%s", name);
  g->t[i] = (tw_tensor){.name = g->names[i], .type = g->type, .rank = 4, .shape = {1, h, w, c}};
  if (g->type == TW_INT8) g->t[i].quant = &g->q;
  return (int32_t)i;
}

static int32_t weights(gb *g, int32_t in, int cout) {
  const tw_tensor *x = &g->t[in];
  int cin = x->shape[3];
  size_t i = g->nt++, count = (size_t)cout * (size_t)cin, es = g->type == TW_INT8 ? 1 : 4;
  snprintf(g->names[i], sizeof g->names[i], "w%zu", i);
  uint8_t *d = malloc(count * es);
  for (size_t k = 0; k < count * es; k++) d[k] = (uint8_t)rnd(g);
  if (g->type == TW_FLOAT32)
    for (size_t k = 0; k < count; k++) {
      float v = (float)((int)(rnd(g) % 200) - 100) / 400.0f;
      memcpy(d + 4 * k, &v, 4);
    }
  g->data[i] = d;
  g->t[i] = (tw_tensor){.name = g->names[i], .type = g->type, .rank = 4, .shape = {cout, 1, 1, cin},
                        .data = d, .data_size = count * es};
  if (g->type == TW_INT8) g->t[i].quant = &g->wq;
  return (int32_t)i;
}

/* Bias of a convolution: float32, or int32 at input scale * weight scale. */
static int32_t bias(gb *g, int cout) {
  size_t i = g->nt++;
  snprintf(g->names[i], sizeof g->names[i], "b%zu", i);
  int32_t *d = malloc((size_t)cout * 4);
  for (int k = 0; k < cout; k++) {
    if (g->type == TW_INT8) {
      d[k] = (int32_t)(rnd(g) % 64) - 32;
    } else {
      float v = (float)((int)(rnd(g) % 100) - 50) / 200.0f;
      memcpy(&d[k], &v, 4);
    }
  }
  g->data[i] = d;
  g->t[i] = (tw_tensor){.name = g->names[i], .type = g->type == TW_INT8 ? TW_INT32 : TW_FLOAT32, .rank = 1,
                        .shape = {cout}, .data = d, .data_size = (size_t)cout * 4};
  if (g->type == TW_INT8) g->t[i].quant = &g->bq;
  return (int32_t)i;
}

static void op(gb *g, int32_t code, tw_options opt, const int32_t *in, size_t n_in, int32_t out) {
  size_t k = g->nops++;
  memcpy(g->io[k], in, n_in * sizeof *in);
  g->io[k][n_in] = out;
  g->ops[k] = (tw_operator){.code = code, .n_inputs = n_in, .inputs = g->io[k], .n_outputs = 1,
                            .outputs = &g->io[k][n_in], .options = opt};
}

static int32_t conv(gb *g, const char *name, int32_t in, int cout) {
  const tw_tensor *x = &g->t[in];
  int32_t w = weights(g, in, cout);
  int32_t bi = bias(g, cout);
  int32_t out = act(g, name, x->shape[1], x->shape[2], cout);
  int32_t ins[3] = {in, w, bi};
  op(g, TW_OP_CONV_2D, tw_conv2d_options(TW_SAME, 1, 1, TW_ACT_RELU, 1, 1), ins, 3, out);
  return out;
}

static int32_t add(gb *g, const char *name, int32_t a, int32_t b) {
  const tw_tensor *x = &g->t[a];
  int32_t out = act(g, name, x->shape[1], x->shape[2], x->shape[3]);
  int32_t ins[2] = {a, b};
  op(g, TW_OP_ADD, tw_add_options(TW_ACT_NONE), ins, 2, out);
  return out;
}

static int32_t concat(gb *g, const char *name, int32_t a, int32_t b) {
  const tw_tensor *x = &g->t[a];
  int32_t out = act(g, name, x->shape[1], x->shape[2], x->shape[3] + g->t[b].shape[3]);
  int32_t ins[2] = {a, b};
  op(g, TW_OP_CONCATENATION, tw_concatenation_options(3, TW_ACT_NONE), ins, 2, out);
  return out;
}

static void init(gb *g, uint8_t type) {
  memset(g, 0, sizeof *g);
  g->type = type;
  g->scale = 0.05f;
  g->wscale = 0.02f;
  g->bscale = g->scale * g->wscale;
  g->zp = -3;
  g->zero = 0;
  g->q = (tw_quant){1, &g->scale, &g->zp, 0};
  g->wq = (tw_quant){1, &g->wscale, &g->zero, 0};
  g->bq = (tw_quant){1, &g->bscale, &g->zero, 0};
  g->seed = 12345;
}

static void done(gb *g) {
  for (size_t i = 0; i < g->nt; i++) free(g->data[i]);
}

static tw_subgraph subgraph(gb *g, const int32_t *in, size_t n_in, const int32_t *out, size_t n_out) {
  return (tw_subgraph){.n_tensors = g->nt, .tensors = g->t, .n_inputs = n_in, .inputs = in,
                       .n_outputs = n_out, .outputs = out, .n_operators = g->nops, .operators = g->ops};
}

const char *tm_name(tm_kind k) {
  static const char *const names[TM_COUNT] = {"chain_int8",    "residual_f32", "branchy_int8",
                                              "variable_f32",  "two_subgraphs_int8", "tiny_int8"};
  return (unsigned)k < TM_COUNT ? names[k] : NULL;
}

/* A branchy graph: a random DAG of 1x1 convolutions and concatenations
 * over recent tensors (deterministic from the seed). */
static void branchy(gb *g, uint64_t seed, int32_t *in, int32_t *out) {
  static const int widths[6] = {4, 8, 12, 16, 24, 32};
  g->seed = seed;
  int32_t made[MAX_OPS + 1];
  size_t n = 0;
  made[n++] = *in = act(g, "input", 8, 8, 8);
  for (int k = 0; k < 12; k++) {
    char name[16];
    snprintf(name, sizeof name, k == 11 ? "output" : "t%d", k);
    int32_t a = made[n - 1 - rnd(g) % (n < 4 ? n : 4)];
    int32_t b = made[n - 1 - rnd(g) % (n < 5 ? n : 5)];
    if (rnd(g) % 3 == 1 && a != b && g->t[a].shape[3] + g->t[b].shape[3] <= 48)
      made[n++] = concat(g, name, a, b);
    else
      made[n++] = conv(g, name, a, widths[rnd(g) % 6]);
  }
  *out = made[n - 1];
}

/* The seed of TM_BRANCHY_INT8, found by trying seeds (tm_branchy_seed) on
 * an earlier bias-free version of this generator, where 20 of the first 59
 * seeds put TFLM's greedy above the proven optimum; with biases,
 * seed 5 gives 6912 bytes against 6144 (test_model_tflm checks it). */
#define BRANCHY_SEED 5

texmem_status tm_build(tm_kind k, const tw_metadata *meta, size_t n_meta, uint8_t **out, size_t *size,
                       texmem_error *err) {
  static gb g, g2; /* large; tests are single-threaded per process */
  int32_t in[2], outs[2];
  tw_subgraph sg[2];
  size_t n_sg = 1;
  switch (k) {
  case TM_CHAIN_INT8: {
    init(&g, TW_INT8);
    in[0] = act(&g, "input", 16, 16, 8);
    int32_t x = in[0];
    static const int cs[6] = {16, 32, 16, 24, 8, 4};
    for (int s = 0; s < 6; s++) {
      char name[16];
      snprintf(name, sizeof name, s == 5 ? "output" : "conv%d", s);
      x = conv(&g, name, x, cs[s]);
    }
    outs[0] = x;
    sg[0] = subgraph(&g, in, 1, outs, 1);
    break;
  }
  case TM_RESIDUAL_F32: {
    init(&g, TW_FLOAT32);
    in[0] = act(&g, "input", 8, 8, 16);
    int32_t x = in[0];
    for (int s = 0; s < 3; s++) {
      char n1[16], n2[16], n3[16];
      snprintf(n1, sizeof n1, "block%d/expand", s);
      snprintf(n2, sizeof n2, "block%d/project", s);
      snprintf(n3, sizeof n3, s == 2 ? "output" : "block%d/add", s);
      int32_t e = conv(&g, n1, x, 64);
      int32_t p = conv(&g, n2, e, 16);
      x = add(&g, n3, x, p);
    }
    outs[0] = x;
    sg[0] = subgraph(&g, in, 1, outs, 1);
    break;
  }
  case TM_BRANCHY_INT8:
    init(&g, TW_INT8);
    branchy(&g, tm_branchy_seed ? tm_branchy_seed : BRANCHY_SEED, &in[0], &outs[0]);
    sg[0] = subgraph(&g, in, 1, outs, 1);
    break;
  case TM_VARIABLE_F32: {
    init(&g, TW_FLOAT32);
    in[0] = act(&g, "input", 1, 1, 32);
    int32_t state = act(&g, "state", 1, 1, 32);
    g.t[state].variable = true;
    int32_t x = conv(&g, "x", in[0], 32);
    int32_t h = add(&g, "h", x, state);
    int32_t y = conv(&g, "y", h, 64);
    outs[0] = conv(&g, "output", y, 8);
    sg[0] = subgraph(&g, in, 1, outs, 1);
    break;
  }
  case TM_TWO_SUBGRAPHS_INT8: {
    init(&g, TW_INT8);
    in[0] = act(&g, "input", 8, 8, 8);
    int32_t a = conv(&g, "a", in[0], 16);
    int32_t b = conv(&g, "b", a, 16);
    outs[0] = add(&g, "output", a, b);
    sg[0] = subgraph(&g, in, 1, outs, 1);
    init(&g2, TW_INT8);
    in[1] = act(&g2, "body/input", 8, 8, 8);
    int32_t c = conv(&g2, "body/c", in[1], 32);
    outs[1] = conv(&g2, "body/output", c, 8);
    sg[1] = subgraph(&g2, &in[1], 1, &outs[1], 1);
    sg[1].name = "body";
    n_sg = 2;
    break;
  }
  case TM_TINY_INT8: {
    init(&g, TW_INT8);
    in[0] = act(&g, "input", 4, 4, 4);
    int32_t a = conv(&g, "a", in[0], 8);
    int32_t b = conv(&g, "b", a, 4);
    outs[0] = add(&g, "output", in[0], b);
    sg[0] = subgraph(&g, in, 1, outs, 1);
    break;
  }
  default:
    if (err) {
      err->status = TEXMEM_STATUS_INVALID_ARGUMENT;
      snprintf(err->message, sizeof err->message, "no test model %d", (int)k);
    }
    return TEXMEM_STATUS_INVALID_ARGUMENT;
  }
  tw_model m = {.description = tm_name(k), .n_subgraphs = n_sg, .subgraphs = sg};
  texmem_status st = tw_write_meta(&m, meta, n_meta, out, size, err);
  done(&g);
  if (n_sg == 2) done(&g2);
  return st;
}

/* The TFLite reader on the operators of issue 8 (PRELU, SOFTMAX, TANH,
 * SUB, DIV, MAXIMUM, MINIMUM, LEAKY_RELU, RESIZE_NEAREST_NEIGHBOR): small
 * one-operator .tflite files written here (a minimal flatbuffer writer,
 * parents before children so every offset points forward) are read back,
 * their options checked, and a few run on the GPU against the CPU
 * reference. */
#include <math.h>

#include "rt_support.h"

/* ---- a minimal flatbuffer writer ---- */

typedef struct fnode fnode;
typedef struct ffield {
  bool present;
  uint32_t bits;  /* scalar value (4-byte slot) */
  fnode *child;   /* or a reference */
} ffield;

enum { FN_TABLE, FN_VEC_I32, FN_VEC_U8, FN_VEC_TABLES, FN_STRING };
struct fnode {
  int kind;
  ffield f[12];
  unsigned nf;
  const void *data; /* vectors: elements; string: text */
  size_t n;
  fnode **tables;
};

typedef struct fwriter {
  uint8_t b[1 << 14];
  size_t n;
  fnode nodes[128];
  fnode *tabs[64];
  size_t n_nodes, n_tabs;
} fwriter;

static fnode *fw_node(fwriter *w, int kind) {
  cr_assert_lt(w->n_nodes, 128);
  fnode *x = &w->nodes[w->n_nodes++];
  memset(x, 0, sizeof *x);
  x->kind = kind;
  return x;
}

static void fw_put(fwriter *w, const void *p, size_t len) {
  cr_assert_leq(w->n + len, sizeof w->b);
  memcpy(w->b + w->n, p, len);
  w->n += len;
}
static void fw_u32(fwriter *w, uint32_t v) {
  uint8_t p[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  fw_put(w, p, 4);
}
static void fw_u16(fwriter *w, uint16_t v) {
  uint8_t p[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
  fw_put(w, p, 2);
}
static void fw_pad4(fwriter *w) {
  while (w->n % 4) fw_put(w, "", 1);
}
static void fw_patch(fwriter *w, size_t at, size_t target) {
  uint32_t v = (uint32_t)(target - at);
  for (int i = 0; i < 4; i++) w->b[at + i] = (uint8_t)(v >> (8 * i));
}

/* Writes x and its children; returns x's position (table or vector). */
static size_t fw_emit(fwriter *w, const fnode *x) {
  fw_pad4(w);
  if (x->kind == FN_TABLE) {
    uint16_t vt_size = (uint16_t)(4 + 2 * x->nf), tbl_size = (uint16_t)(4 + 4 * x->nf);
    if (vt_size % 4) fw_u16(w, 0); /* keep the table 4-aligned */
    size_t vt = w->n;
    fw_u16(w, vt_size);
    fw_u16(w, tbl_size);
    for (unsigned i = 0; i < x->nf; i++) fw_u16(w, x->f[i].present ? (uint16_t)(4 + 4 * i) : 0);
    size_t pos = w->n;
    fw_u32(w, (uint32_t)(pos - vt));
    for (unsigned i = 0; i < x->nf; i++) fw_u32(w, x->f[i].bits);
    for (unsigned i = 0; i < x->nf; i++)
      if (x->f[i].present && x->f[i].child) fw_patch(w, pos + 4 + 4 * i, fw_emit(w, x->f[i].child));
    return pos;
  }
  size_t pos = w->n;
  fw_u32(w, (uint32_t)x->n);
  if (x->kind == FN_VEC_I32) {
    for (size_t i = 0; i < x->n; i++) fw_u32(w, (uint32_t)((const int32_t *)x->data)[i]);
  } else if (x->kind == FN_VEC_U8 || x->kind == FN_STRING) {
    fw_put(w, x->data, x->n);
    if (x->kind == FN_STRING) fw_put(w, "", 1);
  } else {
    size_t slots = w->n;
    for (size_t i = 0; i < x->n; i++) fw_u32(w, 0);
    for (size_t i = 0; i < x->n; i++) fw_patch(w, slots + 4 * i, fw_emit(w, x->tables[i]));
  }
  return pos;
}

static void fw_scalar(fnode *t, unsigned id, uint32_t bits) {
  t->f[id].present = true;
  t->f[id].bits = bits;
  if (id + 1 > t->nf) t->nf = id + 1;
}
static void fw_ref(fnode *t, unsigned id, fnode *child) {
  t->f[id].present = true;
  t->f[id].child = child;
  if (id + 1 > t->nf) t->nf = id + 1;
}
static fnode *fw_vec_i32(fwriter *w, const int32_t *v, size_t n) {
  fnode *x = fw_node(w, FN_VEC_I32);
  x->data = v;
  x->n = n;
  return x;
}
static fnode *fw_tables(fwriter *w, size_t n) {
  fnode *x = fw_node(w, FN_VEC_TABLES);
  cr_assert_leq(w->n_tabs + n, 64);
  x->tables = &w->tabs[w->n_tabs];
  w->n_tabs += n;
  x->n = n;
  return x;
}
static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* ---- one-operator models ---- */

typedef struct one_op {
  int32_t code;         /* builtin operator */
  uint8_t options_type; /* BuiltinOptions member, 0 none */
  unsigned n_opts;      /* option fields 0..n_opts-1, as 4-byte scalars */
  uint32_t opts[4];
  bool opt_present[4];
  size_t n_in;
  unsigned rank[3];
  int32_t shape[3][4];
  const void *const_data[3]; /* non-NULL: a constant input (int32 if is_int) */
  size_t const_bytes[3];
  bool is_int[3];
  unsigned out_rank;
  int32_t out_shape[4];
} one_op;

/* Writes the model into w->b[0 .. w->n). */
static void write_model(fwriter *w, const one_op *s) {
  memset(w, 0, sizeof *w);
  size_t nt = s->n_in + 1;
  fnode *model = fw_node(w, FN_TABLE);
  fw_scalar(model, 0, 3);
  fnode *codes = fw_tables(w, 1), *code = fw_node(w, FN_TABLE);
  codes->tables[0] = code;
  fw_scalar(code, 0, (uint32_t)(s->code < 127 ? s->code : 127));
  fw_scalar(code, 2, 1);
  fw_scalar(code, 3, (uint32_t)s->code);
  fw_ref(model, 1, codes);
  /* Buffers: 0 empty, then one per constant input. */
  fnode *bufs = fw_tables(w, 1 + s->n_in);
  bufs->tables[0] = fw_node(w, FN_TABLE);
  fnode *tensors = fw_tables(w, nt);
  static const char *const names[4] = {"in0", "in1", "in2", "out"};
  size_t nb = 1;
  int32_t graph_in[3];
  size_t n_graph_in = 0;
  for (size_t i = 0; i < nt; i++) {
    bool out = i == s->n_in;
    fnode *t = fw_node(w, FN_TABLE);
    fw_ref(t, 0, fw_vec_i32(w, out ? s->out_shape : s->shape[i], out ? s->out_rank : s->rank[i]));
    fw_scalar(t, 1, !out && s->is_int[i] ? 2 : 0); /* INT32 / FLOAT32 */
    fnode *nm = fw_node(w, FN_STRING);
    nm->data = names[out ? 3 : i];
    nm->n = strlen(names[out ? 3 : i]);
    fw_ref(t, 3, nm);
    if (!out && s->const_data[i]) {
      fnode *b = fw_node(w, FN_TABLE), *d = fw_node(w, FN_VEC_U8);
      d->data = s->const_data[i];
      d->n = s->const_bytes[i];
      fw_ref(b, 0, d);
      bufs->tables[nb] = b;
      fw_scalar(t, 2, (uint32_t)nb++);
    } else if (!out) {
      graph_in[n_graph_in++] = (int32_t)i;
    }
    tensors->tables[i] = t;
  }
  for (size_t i = nb; i < 1 + s->n_in; i++) bufs->tables[i] = fw_node(w, FN_TABLE);
  fw_ref(model, 4, bufs);
  fnode *sgs = fw_tables(w, 1), *sg = fw_node(w, FN_TABLE);
  sgs->tables[0] = sg;
  fw_ref(sg, 0, tensors);
  static int32_t in_ids[3], out_id[1];
  memcpy(in_ids, graph_in, sizeof graph_in);
  out_id[0] = (int32_t)s->n_in;
  fw_ref(sg, 1, fw_vec_i32(w, in_ids, n_graph_in));
  fw_ref(sg, 2, fw_vec_i32(w, out_id, 1));
  fnode *ops = fw_tables(w, 1), *op = fw_node(w, FN_TABLE);
  ops->tables[0] = op;
  static const int32_t op_in[3] = {0, 1, 2};
  static int32_t op_out[1];
  op_out[0] = (int32_t)s->n_in;
  fw_scalar(op, 0, 0);
  fw_ref(op, 1, fw_vec_i32(w, op_in, s->n_in));
  fw_ref(op, 2, fw_vec_i32(w, op_out, 1));
  if (s->options_type) {
    fw_scalar(op, 3, s->options_type);
    fnode *o = fw_node(w, FN_TABLE);
    for (unsigned i = 0; i < s->n_opts; i++)
      if (s->opt_present[i]) fw_scalar(o, i, s->opts[i]);
    fw_ref(op, 4, o);
  }
  fw_ref(sg, 3, ops);
  fw_ref(model, 2, sgs);
  /* Root offset and file identifier, then the tree. */
  fw_u32(w, 0);
  fw_put(w, "TFL3", 4);
  fw_patch(w, 0, fw_emit(w, model));
}

static texmem_model *read_one(const one_op *s, texmem_status want, const char *substr) {
  static fwriter w;
  write_model(&w, s);
  texmem_model *m = NULL;
  texmem_error err = {0};
  texmem_status st = texmem_model_read_tflite(w.b, w.n, &m, &err);
  cr_assert_eq(st, want, "read: status %d (%s), expected %d", (int)st, err.message, (int)want);
  if (substr) cr_assert(strstr(err.message, substr), "%s", err.message);
  if (st) {
    cr_assert_null(m);
    return NULL;
  }
  cr_assert_eq(texmem_model_op_count(m), 1);
  return m;
}

/* A float data tensor input of shape s (rank r). */
static void data_input(one_op *o, size_t i, unsigned r, const int32_t *s) {
  o->rank[i] = r;
  memcpy(o->shape[i], s, r * sizeof *s);
  if (i + 1 > o->n_in) o->n_in = i + 1;
}

static void set_out(one_op *o, unsigned r, const int32_t *s) {
  o->out_rank = r;
  memcpy(o->out_shape, s, r * sizeof *s);
}

static void opt(one_op *o, unsigned id, uint32_t bits) {
  o->opts[id] = bits;
  o->opt_present[id] = true;
  if (id + 1 > o->n_opts) o->n_opts = id + 1;
}

/* Runs m on the GPU (fp32, BEST and NAIVE, reuse checker on) against the
 * CPU reference. */
static void run_check(texmem_model *m, const char *what) {
  texmem_gl_context *ctx = tg_context();
  size_t n_in;
  float **in = rt_inputs(m, 3, &n_in);
  texmem_ref_result *ref = rt_reference(m, in);
  texmem_runtime_desc best = {.precision = TEXMEM_PRECISION_FP32, .reuse_checker = true};
  texmem_runtime_desc naive = best;
  naive.strategy = TEXMEM_STRATEGY_NAIVE;
  rt_outputs a = rt_run(ctx, m, &best, in), b = rt_run(ctx, m, &naive, in);
  rt_compare(m, &a, ref, 1e-4, 1e-5, what);
  rt_assert_identical(&a, &b, what);
  rt_outputs_free(&a);
  rt_outputs_free(&b);
  texmem_ref_result_destroy(ref);
  rt_free_arrays(in, n_in);
  texmem_gl_context_destroy(ctx);
}

enum {
  SOFTMAX = 25, TANH = 28, SUB = 41, DIV = 42, PRELU = 54, MAXIMUM = 55, MINIMUM = 57,
  RESIZE_NEAREST = 97, LEAKY_RELU = 98
};
enum { O_SOFTMAX = 9, O_SUB = 28, O_DIV = 29, O_MAXMIN = 39, O_RESIZE_NEAREST = 74, O_LEAKY = 75 };

static const int32_t s4[4] = {2, 3, 4, 6};

Test(rt_tflite_ops8, leaky_relu_alpha) {
  one_op o = {.code = LEAKY_RELU, .options_type = O_LEAKY};
  data_input(&o, 0, 4, s4);
  set_out(&o, 4, s4);
  opt(&o, 0, f32_bits(0.25f));
  texmem_model *m = read_one(&o, TEXMEM_STATUS_OK, NULL);
  const texmem_op *op = texmem_model_op(m, 0);
  cr_assert_eq(op->type, TEXMEM_OP_LEAKY_RELU);
  cr_assert_float_eq(op->options.alpha, 0.25f, 0.0f);
  run_check(m, "LEAKY_RELU from a .tflite, batch 2");
  texmem_model_destroy(m);
  /* A non-finite alpha is a bad model naming the field. */
  o.opts[0] = f32_bits(NAN);
  read_one(&o, TEXMEM_STATUS_BAD_MODEL, "alpha");
}

Test(rt_tflite_ops8, softmax_beta) {
  one_op o = {.code = SOFTMAX, .options_type = O_SOFTMAX};
  const int32_t s[2] = {3, 10};
  data_input(&o, 0, 2, s);
  set_out(&o, 2, s);
  opt(&o, 0, f32_bits(0.5f));
  texmem_model *m = read_one(&o, TEXMEM_STATUS_OK, NULL);
  cr_assert_eq(texmem_model_op(m, 0)->type, TEXMEM_OP_SOFTMAX);
  cr_assert_float_eq(texmem_model_op(m, 0)->options.beta, 0.5f, 0.0f);
  run_check(m, "SOFTMAX beta 0.5 from a .tflite");
  texmem_model_destroy(m);
  /* No options table: beta is the schema default 0, as TFLite reads it
   * (every output 1/C). */
  o.options_type = 0;
  m = read_one(&o, TEXMEM_STATUS_OK, NULL);
  cr_assert_float_eq(texmem_model_op(m, 0)->options.beta, 0.0f, 0.0f);
  run_check(m, "SOFTMAX without options (beta 0)");
  texmem_model_destroy(m);
  o.options_type = O_SOFTMAX;
  o.opts[0] = f32_bits(INFINITY);
  read_one(&o, TEXMEM_STATUS_BAD_MODEL, "beta");
}

Test(rt_tflite_ops8, sub_div_fused_activation) {
  const int32_t c[1] = {6};
  static const float k[6] = {0.5f, -1.0f, 2.0f, 1.5f, -0.25f, 3.0f};
  for (int t = 0; t < 2; t++) {
    one_op o = {.code = t ? DIV : SUB, .options_type = t ? O_DIV : O_SUB};
    data_input(&o, 0, 4, s4);
    data_input(&o, 1, 1, c);
    o.const_data[1] = k;
    o.const_bytes[1] = sizeof k;
    set_out(&o, 4, s4);
    opt(&o, 0, t ? 1 : 3); /* RELU for DIV, RELU6 for SUB */
    texmem_model *m = read_one(&o, TEXMEM_STATUS_OK, NULL);
    const texmem_op *op = texmem_model_op(m, 0);
    cr_assert_eq(op->type, t ? TEXMEM_OP_DIV : TEXMEM_OP_SUB);
    cr_assert_eq(op->options.activation, t ? TEXMEM_ACT_RELU : TEXMEM_ACT_RELU6);
    run_check(m, t ? "DIV by a constant, RELU" : "SUB a constant, RELU6");
    texmem_model_destroy(m);
  }
}

Test(rt_tflite_ops8, codes_without_options) {
  static const struct {
    int32_t code;
    uint8_t options;
    texmem_op_type type;
    size_t n_in;
  } cases[] = {{TANH, 0, TEXMEM_OP_TANH, 1},
               {PRELU, 0, TEXMEM_OP_PRELU, 2},
               {MAXIMUM, O_MAXMIN, TEXMEM_OP_MAXIMUM, 2},
               {MINIMUM, O_MAXMIN, TEXMEM_OP_MINIMUM, 2}};
  const int32_t a[3] = {1, 1, 6};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    one_op o = {.code = cases[i].code, .options_type = cases[i].options};
    data_input(&o, 0, 4, s4);
    if (cases[i].n_in == 2) data_input(&o, 1, 3, a);
    set_out(&o, 4, s4);
    texmem_model *m = read_one(&o, TEXMEM_STATUS_OK, NULL);
    cr_assert_eq(texmem_model_op(m, 0)->type, cases[i].type, "code %d", cases[i].code);
    if (cases[i].code == PRELU) run_check(m, "PRELU with a [1,1,C] alpha tensor");
    texmem_model_destroy(m);
  }
}

Test(rt_tflite_ops8, resize_nearest_options) {
  const int32_t is[4] = {1, 3, 5, 3}, os[4] = {1, 7, 4, 3}, two[1] = {2};
  static const int32_t size[2] = {7, 4};
  for (int v = 0; v < 3; v++) {
    one_op o = {.code = RESIZE_NEAREST, .options_type = O_RESIZE_NEAREST};
    data_input(&o, 0, 4, is);
    data_input(&o, 1, 1, two);
    o.const_data[1] = size;
    o.const_bytes[1] = sizeof size;
    o.is_int[1] = true;
    set_out(&o, 4, os);
    opt(&o, 0, v == 1);
    opt(&o, 1, v == 2);
    texmem_model *m = read_one(&o, TEXMEM_STATUS_OK, NULL);
    const texmem_op *op = texmem_model_op(m, 0);
    cr_assert_eq(op->type, TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR);
    cr_assert_eq(op->options.align_corners, v == 1);
    cr_assert_eq(op->options.half_pixel_centers, v == 2);
    run_check(m, v == 0 ? "NEAREST" : v == 1 ? "NEAREST align_corners" : "NEAREST half_pixel");
    texmem_model_destroy(m);
  }
}

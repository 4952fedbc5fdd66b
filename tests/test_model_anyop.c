/* Any model plans: the reader keeps every operator (unknown builtin codes,
 * builtins outside the IR, custom operators, known operators with options
 * outside the IR) with its tensors; records use every tensor type's real
 * element size with TEXMEM_PRECISION_STORED; dynamic dimensions are refused
 * naming the tensor, or fixed by input shapes. The models are tiny
 * flatbuffers built here (bottom-up, as flatbuffers are), so the test
 * needs no file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "texmem/model.h"

/* ---- a minimal flatbuffer builder: the buffer grows toward lower
 * addresses; an object is named by its distance from the end ("ref"). */

enum { FBB_CAP = 1 << 16 };
typedef struct fbb {
  uint8_t b[FBB_CAP];
  size_t top; /* b[top..FBB_CAP) is used */
} fbb;

static uint32_t at(const fbb *f) { return (uint32_t)(FBB_CAP - f->top); }
static void push(fbb *f, const void *p, size_t n) {
  cr_assert_geq(f->top, n + 16, "test flatbuffer full");
  f->top -= n;
  memcpy(f->b + f->top, p, n);
}
/* Pads so that after n more bytes the size is a multiple of align. */
static void prep(fbb *f, size_t align, size_t n) {
  while ((at(f) + n) % align) {
    uint8_t z = 0;
    push(f, &z, 1);
  }
}
static void push_le(fbb *f, uint64_t v, size_t size) {
  uint8_t x[8];
  for (size_t i = 0; i < size; i++) x[i] = (uint8_t)(v >> (8 * i));
  push(f, x, size);
}
/* A uoffset to object r, written here. */
static void push_ref(fbb *f, uint32_t r) {
  prep(f, 4, 4);
  push_le(f, at(f) + 4 - r, 4);
}
static uint32_t vec(fbb *f, const void *elems, size_t n, size_t esize) {
  prep(f, esize > 4 ? esize : 4, n * esize);
  /* Elements are pushed as a block (little-endian host assumed by the
   * values given: bytes or int32s built with le32 below). */
  if (n) push(f, elems, n * esize);
  push_le(f, n, 4);
  return at(f);
}
static uint32_t vec_i32(fbb *f, const int32_t *v, size_t n) {
  uint8_t tmp[64 * 4];
  cr_assert_leq(n, 64);
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 4; k++) tmp[4 * i + (size_t)k] = (uint8_t)((uint32_t)v[i] >> (8 * k));
  return vec(f, tmp, n, 4);
}
static uint32_t vec_refs(fbb *f, const uint32_t *refs, size_t n) {
  prep(f, 4, 4 * n);
  for (size_t i = n; i-- > 0;) push_ref(f, refs[i]);
  push_le(f, n, 4);
  return at(f);
}
static uint32_t str(fbb *f, const char *s) {
  size_t len = strlen(s);
  prep(f, 4, len + 1);
  push(f, s, len + 1);
  push_le(f, len, 4);
  return at(f);
}

typedef struct fld {
  unsigned id;
  unsigned size; /* 1, 4, 8 bytes; 0 = a reference */
  uint64_t v;    /* value, or the ref */
} fld;
#define MAX_FIELDS 12

static uint32_t table(fbb *f, const fld *fl, size_t n) {
  uint32_t start = at(f);
  uint32_t pos[MAX_FIELDS];
  unsigned max_id = 0;
  cr_assert_leq(n, MAX_FIELDS);
  for (size_t i = n; i-- > 0;) {
    if (fl[i].size == 0) {
      push_ref(f, (uint32_t)fl[i].v);
    } else {
      prep(f, fl[i].size, fl[i].size);
      push_le(f, fl[i].v, fl[i].size);
    }
    pos[i] = at(f);
    if (fl[i].id > max_id) max_id = fl[i].id;
  }
  prep(f, 4, 4);
  push_le(f, 0, 4); /* soffset, patched below */
  uint32_t t = at(f);
  uint16_t offs[MAX_FIELDS * 2] = {0};
  cr_assert_lt(max_id, MAX_FIELDS * 2);
  for (size_t i = 0; i < n; i++) offs[fl[i].id] = (uint16_t)(t - pos[i]);
  size_t nslots = n ? max_id + 1u : 0u;
  for (size_t i = nslots; i-- > 0;) push_le(f, offs[i], 2);
  push_le(f, t - start, 2);
  push_le(f, 4 + 2 * nslots, 2);
  uint32_t vt = at(f);
  uint32_t soff = vt - t; /* vtable lies before the table */
  uint8_t *p = f->b + FBB_CAP - t;
  for (int k = 0; k < 4; k++) p[k] = (uint8_t)(soff >> (8 * k));
  return t;
}

/* Finishes with root table r and identifier TFL3; returns the bytes. */
static const uint8_t *finish(fbb *f, uint32_t r, size_t *len) {
  prep(f, 8, 8);
  push(f, "TFL3", 4);
  push_ref(f, r);
  *len = at(f);
  return f->b + f->top;
}

/* ---- the test models ---- */

enum { T_F32 = 0, T_F16 = 1, T_I32 = 2, T_U8 = 3, T_I64 = 4, T_BOOL = 6, T_I16 = 7, T_I8 = 9 };

typedef struct tdesc {
  const char *name;
  uint8_t type;
  unsigned rank;
  int32_t shape[6];
  int32_t sig[6]; /* shape_signature when has_sig */
  bool has_sig;
  uint32_t buffer;
} tdesc;

typedef struct odesc {
  uint32_t code_index;
  int32_t in[4], out[4];
  size_t n_in, n_out;
  uint8_t options_type;
  uint8_t padding; /* Conv2DOptions.padding when options_type is 1 */
  const uint8_t *custom_options;
  size_t custom_size;
  uint64_t large_offset, large_size;
} odesc;

typedef struct cdesc {
  int32_t builtin;
  const char *custom;
} cdesc;

typedef struct mdesc {
  const tdesc *t;
  size_t nt;
  const odesc *o;
  size_t no;
  const cdesc *c;
  size_t nc;
  int32_t in[2], out[2];
  size_t n_in, n_out;
} mdesc;

static const uint8_t *build(fbb *f, const mdesc *m, size_t *len) {
  f->top = FBB_CAP;
  /* Buffers: 0 empty (non-constants), 1 the conv weights 8x1x1x8 fp32. */
  float w[64];
  for (int i = 0; i < 64; i++) w[i] = (float)(i % 7) * 0.25f;
  uint8_t wbytes[256];
  memcpy(wbytes, w, sizeof wbytes);
  uint32_t wvec = vec(f, wbytes, sizeof wbytes, 1);
  fld bf1[] = {{0, 0, wvec}};
  uint32_t bufs[2] = {table(f, NULL, 0), table(f, bf1, 1)};
  uint32_t buffers = vec_refs(f, bufs, 2);

  uint32_t ops[16];
  cr_assert_leq(m->no, 16);
  for (size_t k = 0; k < m->no; k++) {
    const odesc *o = &m->o[k];
    fld fl[MAX_FIELDS];
    size_t n = 0;
    fl[n++] = (fld){0, 4, o->code_index};
    fl[n++] = (fld){1, 0, vec_i32(f, o->in, o->n_in)};
    fl[n++] = (fld){2, 0, vec_i32(f, o->out, o->n_out)};
    if (o->options_type == 1) {
      fld cf[] = {{0, 1, o->padding}, {1, 4, 1}, {2, 4, 1}};
      fl[n++] = (fld){3, 1, 1};
      fl[n++] = (fld){4, 0, table(f, cf, 3)};
    }
    if (o->custom_options) fl[n++] = (fld){5, 0, vec(f, o->custom_options, o->custom_size, 1)};
    if (o->large_offset) {
      fl[n++] = (fld){9, 8, o->large_offset};
      fl[n++] = (fld){10, 8, o->large_size};
    }
    ops[k] = table(f, fl, n);
  }
  uint32_t opvec = vec_refs(f, ops, m->no);
  uint32_t tens[16];
  cr_assert_leq(m->nt, 16);
  for (size_t i = 0; i < m->nt; i++) {
    const tdesc *t = &m->t[i];
    fld fl[] = {{0, 0, vec_i32(f, t->shape, t->rank)},
                {1, 1, t->type},
                {2, 4, t->buffer},
                {3, 0, str(f, t->name)},
                {7, 0, t->has_sig ? vec_i32(f, t->sig, t->rank) : 0}};
    tens[i] = table(f, fl, t->has_sig ? 5 : 4);
  }
  uint32_t tvec = vec_refs(f, tens, m->nt);
  fld sg[] = {{0, 0, tvec},
              {1, 0, vec_i32(f, m->in, m->n_in)},
              {2, 0, vec_i32(f, m->out, m->n_out)},
              {3, 0, opvec}};
  uint32_t subgraph = table(f, sg, 4);
  uint32_t sgvec = vec_refs(f, &subgraph, 1);
  uint32_t codes[8];
  cr_assert_leq(m->nc, 8);
  for (size_t i = 0; i < m->nc; i++) {
    const cdesc *c = &m->c[i];
    int32_t b = c->builtin;
    fld fl[] = {{0, 1, (uint64_t)(uint8_t)(b < 127 ? b : 127)}, {3, 4, (uint32_t)b},
                {1, 0, c->custom ? str(f, c->custom) : 0}};
    codes[i] = table(f, fl, c->custom ? 3 : 2);
  }
  uint32_t cvec = vec_refs(f, codes, m->nc);
  fld root[] = {{0, 4, 3}, {1, 0, cvec}, {2, 0, sgvec}, {4, 0, buffers}};
  return finish(f, table(f, root, 4), len);
}

/* The "any op" model: an unknown builtin code, a custom operator with two
 * outputs, builtins outside the IR, a CONV_2D whose padding code the IR
 * does not have, and a plain ADD; one intermediate of every type. */
static const cdesc codes[] = {
    {250, NULL}, {32, "MyCustomOp"}, {99, NULL}, {7, NULL}, {32, "Sink"}, {0, NULL}, {3, NULL}};
static const uint8_t custom_bytes[5] = {1, 2, 3, 4, 5};

static tdesc tensors[] = {
    {"in", T_F32, 4, {1, 4, 4, 8}, {0}, false, 0},
    {"a_int8", T_I8, 4, {1, 4, 4, 8}, {0}, false, 0},
    {"b_fp16", T_F16, 4, {1, 4, 4, 8}, {0}, false, 0},
    {"c_uint8", T_U8, 4, {1, 4, 4, 3}, {0}, false, 0},
    {"d_int16", T_I16, 4, {1, 2, 2, 8}, {0}, false, 0},
    {"e_int32", T_I32, 4, {1, 4, 4, 8}, {0}, false, 0},
    {"f_int64", T_I64, 3, {1, 4, 8}, {0}, false, 0},
    {"g_bool", T_BOOL, 4, {1, 4, 4, 8}, {0}, false, 0},
    {"h_sink", T_F32, 4, {1, 4, 4, 8}, {0}, false, 0},
    {"out", T_F32, 4, {1, 4, 4, 8}, {0}, false, 0},
    {"w", T_F32, 4, {8, 1, 1, 8}, {0}, false, 1},
    {"conv", T_F32, 4, {1, 4, 4, 8}, {0}, false, 0},
};
#define NT (sizeof tensors / sizeof tensors[0])

static odesc ops[] = {
    {0, {0}, {1}, 1, 1, 0, 0, NULL, 0, 0, 0},                          /* builtin 250 */
    {1, {1}, {2, 3}, 1, 2, 0, 0, custom_bytes, 5, 0, 0},               /* MyCustomOp */
    {2, {2, 3}, {4, 5}, 2, 2, 0, 0, NULL, 0, 0, 0},                    /* SQUARED_DIFFERENCE */
    {3, {4, 5}, {6, 7}, 2, 2, 0, 0, NULL, 0, 0, 0},                    /* EMBEDDING_LOOKUP */
    {4, {6, 7, 1}, {8}, 3, 1, 0, 0, NULL, 0, 0, 0},                    /* Sink */
    {6, {0, 10}, {11}, 2, 1, 1, 7, NULL, 0, 0, 0},                     /* CONV_2D, padding 7 */
    {5, {8, 11}, {9}, 2, 1, 0, 0, NULL, 0, 0, 0},                      /* ADD */
};
#define NO (sizeof ops / sizeof ops[0])

static mdesc anyop(void) {
  return (mdesc){tensors, NT, ops, NO, codes, sizeof codes / sizeof codes[0], {0}, {9}, 1, 1};
}

static texmem_status load(const mdesc *m, const texmem_model_load_desc *d, texmem_model **out,
                          texmem_error *err) {
  static fbb f;
  size_t len;
  const uint8_t *bytes = build(&f, m, &len);
  /* A copy of exactly len bytes, so ASan sees any read past the end. */
  uint8_t *copy = malloc(len);
  cr_assert_not_null(copy);
  memcpy(copy, bytes, len);
  texmem_status s = texmem_model_read_tflite_desc(copy, len, d, out, err);
  free(copy);
  if (s) cr_assert_null(*out);
  return s;
}

Test(model_anyop, every_operator_is_kept_with_its_tensors) {
  mdesc m = anyop();
  texmem_model *model = NULL;
  texmem_error err = {0};
  cr_assert_eq(load(&m, NULL, &model, &err), TEXMEM_STATUS_OK, "%s", err.message);
  cr_assert_eq(texmem_model_op_count(model), NO);
  static const char *const names[NO] = {"UNKNOWN_BUILTIN", "MyCustomOp", "SQUARED_DIFFERENCE",
                                        "EMBEDDING_LOOKUP", "Sink", "CONV_2D", "ADD"};
  static const int32_t codes_of[NO] = {250, 32, 99, 7, 32, 3, 0};
  for (size_t k = 0; k < NO; k++) {
    const texmem_op *op = texmem_model_op(model, k);
    cr_assert_str_eq(texmem_op_name(op), names[k], "operator %zu", k);
    cr_assert_eq(op->type, k == NO - 1 ? TEXMEM_OP_ADD : TEXMEM_OP_OTHER, "operator %zu", k);
    if (op->type == TEXMEM_OP_OTHER) cr_assert_eq(op->options.builtin_code, codes_of[k]);
    cr_assert_eq(op->n_inputs, ops[k].n_in);
    cr_assert_eq(op->n_outputs, ops[k].n_out);
    cr_assert_arr_eq(op->inputs, ops[k].in, ops[k].n_in * sizeof(int32_t));
    cr_assert_arr_eq(op->outputs, ops[k].out, ops[k].n_out * sizeof(int32_t));
    for (size_t j = 0; j < op->n_outputs; j++)
      cr_assert_eq(texmem_model_tensor(model, (size_t)op->outputs[j])->producer, (int32_t)k);
  }
  /* The CONV_2D with padding 7 is kept, marked, and names itself. */
  cr_assert(texmem_model_op(model, 5)->options.options_unsupported);
  cr_assert_not(texmem_model_op(model, 0)->options.options_unsupported);
  /* The custom operator keeps its code and option bytes. */
  const texmem_op *c = texmem_model_op(model, 1);
  cr_assert_str_eq(c->options.custom_name, "MyCustomOp");
  cr_assert_eq(c->options.custom_options_size, sizeof custom_bytes);
  cr_assert_arr_eq(c->options.custom_options, custom_bytes, sizeof custom_bytes);
  cr_assert_str_eq(texmem_tflite_builtin_name(99), "SQUARED_DIFFERENCE");
  cr_assert_null(texmem_tflite_builtin_name(250));
  texmem_model_destroy(model);
}

/* Bytes of one element of each type, as the records use them. */
Test(model_anyop, every_tensor_type_has_its_element_size) {
  static const struct {
    texmem_dtype t;
    size_t size;
  } want[] = {{TEXMEM_DTYPE_FLOAT32, 4}, {TEXMEM_DTYPE_FLOAT16, 2}, {TEXMEM_DTYPE_INT8, 1},
              {TEXMEM_DTYPE_UINT8, 1},   {TEXMEM_DTYPE_INT16, 2},   {TEXMEM_DTYPE_INT32, 4},
              {TEXMEM_DTYPE_INT64, 8},   {TEXMEM_DTYPE_BOOL, 1},    {TEXMEM_DTYPE_FLOAT64, 8},
              {TEXMEM_DTYPE_UINT16, 2},  {TEXMEM_DTYPE_UINT32, 4},  {TEXMEM_DTYPE_UINT64, 8},
              {TEXMEM_DTYPE_COMPLEX64, 8}, {TEXMEM_DTYPE_COMPLEX128, 16}, {TEXMEM_DTYPE_BFLOAT16, 2}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    cr_assert_eq(texmem_dtype_size(want[i].t), want[i].size, "%s", texmem_dtype_name(want[i].t));
  cr_assert_eq(texmem_dtype_size(TEXMEM_DTYPE_COUNT_), 0);
}

Test(model_anyop, records_of_every_type) {
  mdesc m = anyop();
  texmem_model *model = NULL;
  texmem_error err = {0};
  cr_assert_eq(load(&m, NULL, &model, &err), TEXMEM_STATUS_OK, "%s", err.message);
  /* Intermediates in order of production: a_int8, b_fp16, c_uint8, d_int16,
   * e_int32, f_int64, g_bool, h_sink, conv. Dense bytes as stored: */
  static const int32_t tensor[] = {1, 2, 3, 4, 5, 6, 7, 8, 11};
  static const uint64_t stored[] = {128, 256, 48, 64, 512, 256, 128, 512, 512};
  /* GPU fp16 PHWC4 bytes (B*H*W*ceil(C/4)*4*2), whatever the type: */
  static const uint64_t fp16[] = {256, 256, 128, 64, 256, 64, 256, 256, 256};
  /* 3-D texels (W, H, B*ceil(C/4)): */
  static const uint64_t tex3[][3] = {{4, 4, 2}, {4, 4, 2}, {4, 4, 1}, {2, 2, 2}, {4, 4, 2},
                                     {4, 1, 2}, {4, 4, 2}, {4, 4, 2}, {4, 4, 2}};
  static const uint64_t first[] = {0, 1, 1, 2, 2, 3, 3, 4, 5};
  static const uint64_t last[] = {4, 2, 2, 3, 3, 4, 4, 6, 6};
  size_t nrec = sizeof tensor / sizeof tensor[0];
  for (int p = 0; p < 3; p++) {
    for (unsigned dims = 1; dims <= 3; dims++) {
      texmem_record *r = NULL;
      int32_t *of = NULL;
      size_t n = 0;
      texmem_precision prec = p == 0 ? TEXMEM_PRECISION_STORED
                              : p == 1 ? TEXMEM_PRECISION_FP16
                                       : TEXMEM_PRECISION_FP32;
      cr_assert_eq(texmem_model_records(model, dims, prec, &r, &n, &of, &err), TEXMEM_STATUS_OK, "%s",
                   err.message);
      cr_assert_eq(n, nrec);
      for (size_t i = 0; i < n; i++) {
        cr_assert_eq(of[i], tensor[i], "record %zu", i);
        cr_assert_eq(r[i].first_task, first[i], "record %zu", i);
        cr_assert_eq(r[i].last_task, last[i], "record %zu", i);
        if (dims == 1) {
          uint64_t want = p == 0 ? stored[i] : p == 1 ? fp16[i] : 2 * fp16[i];
          cr_assert_eq(r[i].dims[0], want, "record %zu (tensor %d) precision %d: %llu bytes, want %llu",
                       i, (int)of[i], p, (unsigned long long)r[i].dims[0], (unsigned long long)want);
        } else if (dims == 3) {
          for (int d = 0; d < 3; d++) cr_assert_eq(r[i].dims[d], tex3[i][d], "record %zu dim %d", i, d);
        } else {
          cr_assert_eq(r[i].dims[0], tex3[i][0] * 1, "record %zu", i); /* W*B, B = 1 */
          cr_assert_eq(r[i].dims[1], tex3[i][1] * tex3[i][2], "record %zu", i);
        }
      }
      free(r);
      free(of);
    }
  }
  /* Every plan of these records validates (planning needs no kernel). */
  texmem_record *r = NULL;
  size_t n = 0;
  cr_assert_eq(texmem_model_records(model, 1, TEXMEM_PRECISION_STORED, &r, &n, NULL, NULL),
               TEXMEM_STATUS_OK);
  uint64_t total = tt_plan_total(r, n, 1, (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS,
                                                              .strategy = TEXMEM_STRATEGY_BEST});
  cr_assert_gt(total, 0);
  free(r);
  texmem_model_destroy(model);
}

Test(model_anyop, hostile_custom_options_name_the_operator) {
  odesc o2[NO];
  memcpy(o2, ops, sizeof ops);
  o2[1].custom_options = NULL;
  o2[1].large_offset = 1u << 30; /* far past the end of the file */
  o2[1].large_size = 16;
  mdesc m = anyop();
  m.o = o2;
  texmem_model *model = NULL;
  texmem_error err = {0};
  cr_assert_eq(load(&m, NULL, &model, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "operator 1 (custom 'MyCustomOp')"), "%s", err.message);
  /* Convolution2DTransposeBias with short option bytes is an error too. */
  cdesc c2[sizeof codes / sizeof codes[0]];
  memcpy(c2, codes, sizeof codes);
  c2[1].custom = "Convolution2DTransposeBias";
  o2[1] = ops[1];
  o2[1].n_out = 1;
  o2[1].in[1] = 10;
  o2[1].in[2] = 10;
  o2[1].n_in = 3;
  m.c = c2;
  cr_assert_eq(load(&m, NULL, &model, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "Convolution2DTransposeBias"), "%s", err.message);
}

Test(model_anyop, output_listed_twice_is_bad) {
  odesc o2[NO];
  memcpy(o2, ops, sizeof ops);
  o2[1].out[1] = o2[1].out[0]; /* MyCustomOp writes tensor 2 twice */
  mdesc m = anyop();
  m.o = o2;
  texmem_model *model = NULL;
  texmem_error err = {0};
  cr_assert_eq(load(&m, NULL, &model, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "operator 1: output tensor 2 listed twice"), "%s", err.message);
}

/* ---- dynamic dimensions ---- */

static tdesc dyn[NT];

/* Every tensor of rank >= 2 but the weights gets a dynamic batch. */
static mdesc dynamic_batch(void) {
  memcpy(dyn, tensors, sizeof tensors);
  for (size_t i = 0; i < NT; i++) {
    if (dyn[i].buffer || dyn[i].rank < 2) continue;
    dyn[i].has_sig = true;
    memcpy(dyn[i].sig, dyn[i].shape, sizeof dyn[i].sig);
    dyn[i].sig[0] = -1;
  }
  mdesc m = anyop();
  m.t = dyn;
  return m;
}

/* Without input shapes a dynamic input runs at the placeholder the file
 * stores in `shape`, as TFLite runs it (here batch 2, so the test sees the
 * file's value rather than a default), and the model says which of its
 * dimensions do. */
Test(model_anyop, dynamic_batch_runs_at_the_placeholder) {
  mdesc m = dynamic_batch();
  for (size_t i = 0; i < NT; i++)
    if (dyn[i].has_sig) dyn[i].shape[0] = 2;
  texmem_model *model = NULL;
  texmem_error err = {0};
  cr_assert_eq(load(&m, NULL, &model, &err), TEXMEM_STATUS_OK, "%s", err.message);
  cr_assert_eq(texmem_model_input_placeholder(model, 0), 1u);
  cr_assert_eq(texmem_model_input_placeholder(model, 1), 0u); /* out of range */
  for (size_t i = 0; i < NT; i++) {
    const texmem_tensor *t = texmem_model_tensor(model, i);
    uint32_t want = tensors[i].buffer ? 8u : tensors[i].rank >= 2 ? 2u : 1u;
    cr_assert_eq(t->b, want, "tensor %zu '%s': batch %u", i, t->name, t->b);
  }
  texmem_record *r = NULL;
  size_t n = 0;
  cr_assert_eq(texmem_model_records(model, 1, TEXMEM_PRECISION_STORED, &r, &n, NULL, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(r[0].dims[0], 2 * 128); /* a_int8, batch 2 */
  free(r);
  texmem_model_destroy(model);
  /* A shape given: nothing runs at a placeholder. */
  texmem_input_shape s = {"in", 0, 4, {3, 4, 4, 8}};
  texmem_model_load_desc d = {.input_shapes = &s, .n_input_shapes = 1};
  cr_assert_eq(load(&m, &d, &model, &err), TEXMEM_STATUS_OK, "%s", err.message);
  cr_assert_eq(texmem_model_input_placeholder(model, 0), 0u);
  cr_assert_eq(texmem_model_tensor(model, 1)->b, 3u);
  texmem_model_destroy(model);
  /* At the placeholders every stored shape holds, other dynamic
   * dimensions than the batch included (the input's and another tensor's). */
  dyn[0].sig[1] = -1;
  dyn[3].sig[2] = -1;
  cr_assert_eq(load(&m, NULL, &model, &err), TEXMEM_STATUS_OK, "%s", err.message);
  cr_assert_eq(texmem_model_input_placeholder(model, 0), 3u);
  const texmem_tensor *c = texmem_model_tensor(model, 3);
  cr_assert(c->shape[0] == 2 && c->shape[1] == 4 && c->shape[2] == 4 && c->shape[3] == 3);
  texmem_model_destroy(model);
}

Test(model_anyop, input_shape_fixes_and_propagates_the_batch) {
  mdesc m = dynamic_batch();
  texmem_model *model = NULL;
  texmem_error err = {0};
  /* By position, then by name: the same model. */
  for (int by_name = 0; by_name < 2; by_name++) {
    texmem_input_shape s = {by_name ? "in" : NULL, 0, 4, {3, 4, 4, 8}};
    texmem_model_load_desc d = {.input_shapes = &s, .n_input_shapes = 1};
    cr_assert_eq(load(&m, &d, &model, &err), TEXMEM_STATUS_OK, "%s", err.message);
    for (size_t i = 0; i < NT; i++) {
      const texmem_tensor *t = texmem_model_tensor(model, i);
      uint32_t want = tensors[i].buffer ? 8u : tensors[i].rank >= 2 ? 3u : 1u;
      cr_assert_eq(t->b, want, "tensor %zu '%s': batch %u", i, t->name, t->b);
      cr_assert_eq(t->shape[0], (int32_t)want);
    }
    texmem_record *r = NULL;
    size_t n = 0;
    cr_assert_eq(texmem_model_records(model, 1, TEXMEM_PRECISION_STORED, &r, &n, NULL, NULL),
                 TEXMEM_STATUS_OK);
    cr_assert_eq(r[0].dims[0], 3 * 128); /* a_int8, batch 3 */
    free(r);
    texmem_model_destroy(model);
  }
}

Test(model_anyop, input_shape_errors) {
  mdesc m = dynamic_batch();
  texmem_model *model = NULL;
  texmem_error err = {0};
  /* A static dimension given otherwise. */
  texmem_input_shape s = {NULL, 0, 4, {2, 4, 5, 8}};
  texmem_model_load_desc d = {.input_shapes = &s, .n_input_shapes = 1};
  cr_assert_eq(load(&m, &d, &model, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "input tensor 0 ('in'): shape [2,4,5,8] does not fit its signature "
                                "[-1,4,4,8]"),
            "%s", err.message);
  /* Wrong rank, unknown name, input out of range. */
  s = (texmem_input_shape){NULL, 0, 3, {2, 4, 4}};
  cr_assert_eq(load(&m, &d, &model, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  s = (texmem_input_shape){"nope", 0, 4, {2, 4, 4, 8}};
  cr_assert_eq(load(&m, &d, &model, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "no graph input is named 'nope'"), "%s", err.message);
  s = (texmem_input_shape){NULL, 1, 4, {2, 4, 4, 8}};
  cr_assert_eq(load(&m, &d, &model, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  /* Zero or absurd sizes. */
  s = (texmem_input_shape){NULL, 0, 4, {0, 4, 4, 8}};
  cr_assert_eq(load(&m, &d, &model, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  /* A huge batch is only numbers: no allocation follows the shapes. */
  s = (texmem_input_shape){NULL, 0, 4, {INT32_MAX, 4, 4, 8}};
  cr_assert_eq(load(&m, &d, &model, &err), TEXMEM_STATUS_OK, "%s", err.message);
  texmem_record *r = NULL;
  size_t n = 0;
  cr_assert_eq(texmem_model_records(model, 3, TEXMEM_PRECISION_FP16, &r, &n, NULL, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(r[0].dims[2], 2ull * INT32_MAX);
  free(r);
  texmem_model_destroy(model);
  /* A dynamic dimension other than the batch cannot be inferred. */
  dyn[3].sig[2] = -1;
  s = (texmem_input_shape){NULL, 0, 4, {2, 4, 4, 8}};
  cr_assert_eq(load(&m, &d, &model, &err), TEXMEM_STATUS_UNSUPPORTED);
  cr_assert(strstr(err.message, "tensor 3 ('c_uint8'): dimension 0 is dynamic"), "%s", err.message);
  cr_assert(strstr(err.message, "only a dynamic batch follows"), "%s", err.message);
  /* A signature contradicting the shape is a bad model. */
  dyn[3].sig[2] = 5;
  cr_assert_eq(load(&m, &d, &model, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "shape_signature dimension 2 is 5"), "%s", err.message);
}

Test(model_anyop, static_model_ignores_matching_input_shape) {
  mdesc m = anyop();
  texmem_model *model = NULL;
  texmem_error err = {0};
  texmem_input_shape s = {"in", 0, 4, {1, 4, 4, 8}};
  texmem_model_load_desc d = {.input_shapes = &s, .n_input_shapes = 1};
  cr_assert_eq(load(&m, &d, &model, &err), TEXMEM_STATUS_OK, "%s", err.message);
  texmem_model_destroy(model);
  s.shape[0] = 2; /* static: must match */
  cr_assert_eq(load(&m, &d, &model, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
}

/* Ranks above 4 plan: leading dimensions merged into the first (count and
 * order kept), every operator touching such a tensor kept as OTHER. */
Test(model_anyop, rank_above_four_is_collapsed) {
  static const tdesc t5[] = {
      {"in", T_F32, 4, {1, 4, 4, 8}, {0}, false, 0},
      {"five", T_F32, 5, {1, 2, 2, 4, 8}, {0}, false, 0},
      {"six", T_F32, 6, {3, 1, 2, 2, 4, 8}, {0}, false, 0},
      {"out", T_F32, 4, {1, 4, 4, 8}, {0}, false, 0},
      {"w", T_F32, 4, {8, 1, 1, 8}, {0}, false, 1},
  };
  static const cdesc c5[] = {{22, NULL}, {0, NULL}};
  static const odesc o5[] = {
      {0, {0}, {1}, 1, 1, 0, 0, NULL, 0, 0, 0},    /* RESHAPE to rank 5 */
      {1, {1, 1}, {2}, 2, 1, 0, 0, NULL, 0, 0, 0}, /* ADD, broadcast to rank 6 */
      {0, {2}, {3}, 1, 1, 0, 0, NULL, 0, 0, 0},    /* RESHAPE back */
  };
  mdesc m = {t5, 5, o5, 3, c5, 2, {0}, {3}, 1, 1};
  texmem_model *model = NULL;
  texmem_error err = {0};
  cr_assert_eq(load(&m, NULL, &model, &err), TEXMEM_STATUS_OK, "%s", err.message);
  const texmem_tensor *five = texmem_model_tensor(model, 1), *six = texmem_model_tensor(model, 2);
  cr_assert(five->flags & TEXMEM_TENSOR_COLLAPSED);
  cr_assert(six->flags & TEXMEM_TENSOR_COLLAPSED);
  cr_assert_not(texmem_model_tensor(model, 0)->flags & TEXMEM_TENSOR_COLLAPSED);
  cr_assert_eq(five->rank, 4);
  int32_t want5[4] = {2, 2, 4, 8}, want6[4] = {6, 2, 4, 8};
  cr_assert_arr_eq(five->shape, want5, sizeof want5);
  cr_assert_arr_eq(six->shape, want6, sizeof want6);
  static const char *const names[] = {"RESHAPE", "ADD", "RESHAPE"};
  for (size_t k = 0; k < 3; k++) {
    const texmem_op *op = texmem_model_op(model, k);
    cr_assert_eq(op->type, TEXMEM_OP_OTHER, "operator %zu", k);
    cr_assert(op->options.options_unsupported);
    cr_assert_str_eq(texmem_op_name(op), names[k]);
  }
  texmem_record *r = NULL;
  size_t n = 0;
  cr_assert_eq(texmem_model_records(model, 1, TEXMEM_PRECISION_STORED, &r, &n, NULL, NULL), TEXMEM_STATUS_OK);
  cr_assert_eq(n, 2);
  cr_assert_eq(r[0].dims[0], 128 * 4);
  cr_assert_eq(r[1].dims[0], 3 * 128 * 4);
  free(r);
  texmem_model_destroy(model);
  /* A dynamic dimension in such a tensor cannot be placed. */
  tdesc t5d[5];
  memcpy(t5d, t5, sizeof t5);
  t5d[1].has_sig = true;
  memcpy(t5d[1].sig, t5d[1].shape, sizeof t5d[1].sig);
  t5d[1].sig[3] = -1;
  m.t = t5d;
  cr_assert_eq(load(&m, NULL, &model, &err), TEXMEM_STATUS_UNSUPPORTED);
  cr_assert(strstr(err.message, "tensor 1 ('five'): dimension 3 of a rank-5 tensor is dynamic"), "%s",
            err.message);
}

/* The planning-only types load and use their element size as stored. */
Test(model_anyop, wider_types_plan) {
  static const uint8_t types[] = {10, 16, 15, 12, 8, 11, 18};
  static const uint64_t esize[] = {8, 2, 4, 8, 8, 16, 2};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    tdesc t[NT];
    memcpy(t, tensors, sizeof tensors);
    t[1].type = types[i]; /* a_int8 becomes this type */
    mdesc m = anyop();
    m.t = t;
    texmem_model *model = NULL;
    texmem_error err = {0};
    cr_assert_eq(load(&m, NULL, &model, &err), TEXMEM_STATUS_OK, "type %u: %s", types[i], err.message);
    texmem_record *r = NULL;
    size_t n = 0;
    cr_assert_eq(texmem_model_records(model, 1, TEXMEM_PRECISION_STORED, &r, &n, NULL, NULL), TEXMEM_STATUS_OK);
    cr_assert_eq(r[0].dims[0], 128 * esize[i], "type %u", types[i]);
    free(r);
    texmem_model_destroy(model);
  }
  /* STRING (5), RESOURCE (13), VARIANT (14), INT4 (17) have no fixed size. */
  static const uint8_t refused[] = {5, 13, 14, 17, 99};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    tdesc t[NT];
    memcpy(t, tensors, sizeof tensors);
    t[1].type = refused[i];
    mdesc m = anyop();
    m.t = t;
    texmem_model *model = NULL;
    texmem_error err = {0};
    cr_assert_eq(load(&m, NULL, &model, &err), TEXMEM_STATUS_UNSUPPORTED);
    cr_assert(strstr(err.message, "tensor 1 ('a_int8'): element type"), "%s", err.message);
  }
}

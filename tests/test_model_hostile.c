/* Hostile input to the TFLite reader: every truncation of the committed
 * model, deterministic random byte flips, and crafted corruptions. Nothing
 * may crash or leak (run under ASan); errors must name the problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flatbuffer.h"
#include "support.h"
#include "texmem/model.h"
#include "tflite.h"

#define MODEL TEXMEM_TEST_DATA "/face_detection_short_range.tflite"

static uint8_t *model_bytes(size_t *len) { return (uint8_t *)tt_read_file(MODEL, len); }

/* Loads data, and when it loads, exercises the records too. */
static texmem_status try_load(const uint8_t *data, size_t len, texmem_error *err) {
  texmem_model *m = NULL;
  texmem_status s = texmem_model_read_tflite(data, len, &m, err);
  if (s == TEXMEM_STATUS_OK) {
    cr_assert_not_null(m);
    for (unsigned d = 1; d <= 3; d++) {
      texmem_record *r = NULL;
      size_t n;
      texmem_status rs = texmem_model_records(m, d, TEXMEM_PRECISION_FP32, &r, &n, NULL, NULL);
      cr_assert(rs == TEXMEM_STATUS_OK || rs == TEXMEM_STATUS_OVERFLOW);
      free(r);
    }
    texmem_model_destroy(m);
  } else {
    cr_assert_null(m);
    cr_assert_neq(err->message[0], 0, "status %s without a message", texmem_status_name(s));
  }
  return s;
}

Test(model_hostile, every_truncation_fails_cleanly) {
  size_t len;
  uint8_t *full = model_bytes(&len);
  /* The prefix sits at the end of the allocation, so any read past the
   * truncated length is outside it (ASan reports it). */
  uint8_t *buf = malloc(len);
  cr_assert_not_null(buf);
  size_t bad_model = 0;
  for (size_t l = 0; l < len; l++) {
    uint8_t *p = buf + (len - l);
    memcpy(p, full, l);
    texmem_error err = {0};
    texmem_status s = try_load(p, l, &err);
    cr_assert_neq(s, TEXMEM_STATUS_OK, "prefix of %zu bytes loaded", l);
    if (s == TEXMEM_STATUS_BAD_MODEL) bad_model++;
  }
  cr_assert_eq(bad_model, len, "%zu of %zu truncations were not BAD_MODEL", len - bad_model, len);
  texmem_error err = {0};
  cr_assert_eq(try_load(full, len, &err), TEXMEM_STATUS_OK, "%s", err.message);
  free(buf);
  free(full);
}

Test(model_hostile, random_byte_flips_never_crash) {
  size_t len;
  uint8_t *full = model_bytes(&len);
  uint8_t *buf = malloc(len);
  cr_assert_not_null(buf);
  uint64_t seed = 0x7e3e3;
  size_t counts[TEXMEM_STATUS_COUNT_] = {0};
  enum { ROUNDS = 4000 };
  /* Half the rounds hit the first 8 KiB (tables, vtables, offsets), where
   * flips matter most; the rest anywhere. */
  size_t meta = len < 8192 ? len : 8192;
  for (int round = 0; round < ROUNDS; round++) {
    memcpy(buf, full, len);
    int flips = 1 + (int)(tt_rand(&seed) % 4);
    for (int f = 0; f < flips; f++) {
      size_t at = (size_t)(tt_rand(&seed) % (round % 2 ? len : meta));
      buf[at] ^= (uint8_t)(1u << (tt_rand(&seed) % 8));
    }
    texmem_error err = {0};
    texmem_status s = try_load(buf, len, &err);
    cr_assert_lt((unsigned)s, TEXMEM_STATUS_COUNT_);
    counts[s]++;
  }
  /* Most flips land in weights and still load; many do not. */
  cr_assert_gt(counts[TEXMEM_STATUS_OK], 0);
  cr_assert_gt(counts[TEXMEM_STATUS_BAD_MODEL], 0);
  cr_assert_eq(counts[TEXMEM_STATUS_OUT_OF_MEMORY], 0);
  free(buf);
  free(full);
}

/* ---- crafted corruptions: locate fields with the checked layer ---- */

typedef struct layout {
  texmem__fb fb;
  texmem__fb_table root, sg;
  texmem__fb_vec codes, subgraphs, tensors, ops, buffers;
} layout;

static void locate(const uint8_t *data, size_t len, layout *L) {
  L->fb.data = data;
  L->fb.size = len;
  cr_assert_eq(texmem__fb_root(&L->fb, "TFL3", &L->root), TEXMEM__FB_OK);
  cr_assert_eq(texmem__fb_vec_field(&L->root, MODEL_OPERATOR_CODES, 4, &L->codes), TEXMEM__FB_OK);
  cr_assert_eq(texmem__fb_vec_field(&L->root, MODEL_SUBGRAPHS, 4, &L->subgraphs), TEXMEM__FB_OK);
  cr_assert_eq(texmem__fb_vec_field(&L->root, MODEL_BUFFERS, 4, &L->buffers), TEXMEM__FB_OK);
  cr_assert_eq(texmem__fb_vec_table(&L->subgraphs, 0, &L->sg), TEXMEM__FB_OK);
  cr_assert_eq(texmem__fb_vec_field(&L->sg, SUBGRAPH_TENSORS, 4, &L->tensors), TEXMEM__FB_OK);
  cr_assert_eq(texmem__fb_vec_field(&L->sg, SUBGRAPH_OPERATORS, 4, &L->ops), TEXMEM__FB_OK);
}

/* Byte position of field id of t (0 if absent). */
static size_t field_pos(const texmem__fb_table *t, unsigned id) {
  if (4 + 2 * id + 2 > t->vt_size) return 0;
  uint16_t o = texmem__fb_u16(t->fb->data + t->vt + 4 + 2 * id);
  return o ? t->pos + o : 0;
}

/* Target of the reference field id of t. */
static size_t ref_target(const texmem__fb_table *t, unsigned id) {
  size_t p = field_pos(t, id);
  cr_assert_neq(p, 0, "field %u absent", id);
  return p + texmem__fb_u32(t->fb->data + p);
}

static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

/* Applies a corruption to a fresh copy and expects status + substring. */
typedef void (*corrupt_fn)(uint8_t *buf, size_t *len, const layout *L);

static void expect(corrupt_fn fn, texmem_status want, const char *substr) {
  size_t len;
  uint8_t *buf = model_bytes(&len);
  layout L;
  locate(buf, len, &L);
  fn(buf, &len, &L);
  texmem_error err = {0};
  texmem_status s = try_load(buf, len, &err);
  cr_assert_eq(s, want, "got %s: %s", texmem_status_name(s), err.message);
  cr_assert(strstr(err.message, substr), "message '%s' lacks '%s'", err.message, substr);
  free(buf);
}

static void root_out_of_range(uint8_t *b, size_t *len, const layout *L) {
  (void)L;
  put32(b, (uint32_t)*len + 100);
}
Test(model_hostile, root_offset_out_of_range) {
  expect(root_out_of_range, TEXMEM_STATUS_BAD_MODEL, "model root table: out of bounds");
}

static void root_vtable_outside(uint8_t *b, size_t *len, const layout *L) {
  put32(b + L->root.pos, (uint32_t)-(int32_t)(*len + 64));
}
Test(model_hostile, vtable_pointing_outside) {
  expect(root_vtable_outside, TEXMEM_STATUS_BAD_MODEL, "model root table: bad vtable");
}

static void vtable_odd_size(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  b[L->root.vt] = 3;
  b[L->root.vt + 1] = 0;
}
Test(model_hostile, vtable_size_insane) {
  expect(vtable_odd_size, TEXMEM_STATUS_BAD_MODEL, "bad vtable");
}

static void field_past_table(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  /* The subgraphs field's offset beyond the table's inline size. */
  size_t slot = L->root.vt + 4 + 2 * MODEL_SUBGRAPHS;
  b[slot] = 0xf0;
  b[slot + 1] = 0xff;
}
Test(model_hostile, field_outside_table) {
  expect(field_past_table, TEXMEM_STATUS_BAD_MODEL, "model subgraphs vector: field outside its table");
}

static void self_reference(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  /* subgraphs[0] points at itself: its "table" is its own offset slot. */
  put32(b + L->subgraphs.pos, 0);
}
Test(model_hostile, self_referential_offset) {
  expect(self_reference, TEXMEM_STATUS_BAD_MODEL, "subgraph 0: bad vtable");
}

static void tensor_self_reference(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  put32(b + L->tensors.pos + 4 * 5, 0);
}
Test(model_hostile, self_referential_tensor) {
  expect(tensor_self_reference, TEXMEM_STATUS_BAD_MODEL, "tensor 5: bad vtable");
}

static void huge_vector(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  put32(b + L->tensors.pos - 4, 0x80000000u);
}
Test(model_hostile, vector_claiming_2_31_elements) {
  expect(huge_vector, TEXMEM_STATUS_BAD_MODEL, "subgraph 0: tensors vector: out of bounds");
}

static void huge_ops_vector(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  put32(b + L->ops.pos - 4, 0xffffffffu);
}
Test(model_hostile, operators_vector_claiming_2_32_elements) {
  expect(huge_ops_vector, TEXMEM_STATUS_BAD_MODEL, "subgraph 0: operators vector: out of bounds");
}

/* Index of the first tensor of rank 4 that has a buffer field. */
static uint32_t rank4_tensor(const layout *L, texmem__fb_table *t) {
  for (uint32_t i = 0; i < L->tensors.len; i++) {
    texmem__fb_vec shape;
    cr_assert_eq(texmem__fb_vec_table(&L->tensors, i, t), TEXMEM__FB_OK);
    cr_assert_eq(texmem__fb_vec_field(t, TENSOR_SHAPE, 4, &shape), TEXMEM__FB_OK);
    if (shape.len == 4 && field_pos(t, TENSOR_BUFFER)) return i;
  }
  cr_assert_fail("no rank-4 tensor");
  return 0;
}

static void huge_shape(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  texmem__fb_table t;
  rank4_tensor(L, &t);
  size_t v = ref_target(&t, TENSOR_SHAPE);
  for (int d = 0; d < 4; d++) put32(b + v + 4 + 4 * d, 0x7fffffff);
}
Test(model_hostile, huge_shape_product) {
  expect(huge_shape, TEXMEM_STATUS_BAD_MODEL, "shape product too large");
}

static void shape_vector_out(uint8_t *b, size_t *len, const layout *L) {
  texmem__fb_table t;
  cr_assert_eq(texmem__fb_vec_table(&L->tensors, 12, &t), TEXMEM__FB_OK);
  size_t p = field_pos(&t, TENSOR_SHAPE);
  put32(b + p, (uint32_t)(*len - p - 2));
}
Test(model_hostile, shape_vector_out_of_bounds) {
  expect(shape_vector_out, TEXMEM_STATUS_BAD_MODEL, "tensor 12: shape vector: out of bounds");
}

static void negative_dim(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  texmem__fb_table t;
  rank4_tensor(L, &t);
  put32(b + ref_target(&t, TENSOR_SHAPE) + 4, (uint32_t)-1);
}
Test(model_hostile, dynamic_dimension_unsupported) {
  expect(negative_dim, TEXMEM_STATUS_UNSUPPORTED, "dynamic shapes unsupported");
}

static void buffer_index_out(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  texmem__fb_table t;
  uint32_t i = rank4_tensor(L, &t);
  (void)i;
  put32(b + field_pos(&t, TENSOR_BUFFER), 0x00ffffff);
}
Test(model_hostile, buffer_index_out_of_range) {
  expect(buffer_index_out, TEXMEM_STATUS_BAD_MODEL, "buffer 16777215 out of range");
}

static void name_unterminated(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  texmem__fb_table t;
  cr_assert_eq(texmem__fb_vec_table(&L->tensors, 3, &t), TEXMEM__FB_OK);
  size_t s = ref_target(&t, TENSOR_NAME);
  b[s + 4 + texmem__fb_u32(b + s)] = 'x';
}
Test(model_hostile, string_not_terminated) {
  expect(name_unterminated, TEXMEM_STATUS_BAD_MODEL, "tensor 3: name: string not terminated");
}

/* Sets the code of operator 0's operator code (the byte and, when present,
 * the int field) to `code`. */
static void set_op0_code(uint8_t *b, const layout *L, int32_t code) {
  texmem__fb_table op, c;
  uint32_t idx;
  cr_assert_eq(texmem__fb_vec_table(&L->ops, 0, &op), TEXMEM__FB_OK);
  texmem__fb_u32f(&op, OP_OPCODE_INDEX, 0, &idx);
  cr_assert_eq(texmem__fb_vec_table(&L->codes, idx, &c), TEXMEM__FB_OK);
  size_t dep = field_pos(&c, OPCODE_DEPRECATED_BUILTIN), bc = field_pos(&c, OPCODE_BUILTIN);
  cr_assert(dep || bc, "operator code %u has no code field", idx);
  if (dep) b[dep] = (uint8_t)(code < 127 ? code : 127);
  if (bc) put32(b + bc, (uint32_t)code);
}

static bool op0_has_int_code(void) {
  size_t len;
  uint8_t *buf = model_bytes(&len);
  layout L;
  locate(buf, len, &L);
  texmem__fb_table op, c;
  uint32_t idx;
  cr_assert_eq(texmem__fb_vec_table(&L.ops, 0, &op), TEXMEM__FB_OK);
  texmem__fb_u32f(&op, OP_OPCODE_INDEX, 0, &idx);
  cr_assert_eq(texmem__fb_vec_table(&L.codes, idx, &c), TEXMEM__FB_OK);
  bool has = field_pos(&c, OPCODE_BUILTIN) != 0;
  free(buf);
  return has;
}

/* Loads the model corrupted by fn (operator 0's code, shared by every
 * DEQUANTIZE of the file, is changed): it must load, every operator with
 * that code be kept as OTHER named want_name, and each of their outputs,
 * constants when the DEQUANTIZEs were folded, become a record produced by
 * that operator (planning needs no kernel). */
static void expect_kept(corrupt_fn fn, const char *want_name, int32_t want_code) {
  size_t len;
  uint8_t *buf = model_bytes(&len);
  texmem_model *orig = NULL, *m = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_model_read_tflite(buf, len, &orig, &err), TEXMEM_STATUS_OK, "%s", err.message);
  layout L;
  locate(buf, len, &L);
  fn(buf, &len, &L);
  cr_assert_eq(texmem_model_read_tflite(buf, len, &m, &err), TEXMEM_STATUS_OK, "%s", err.message);
  size_t n_other = 0;
  for (size_t k = 0; k < texmem_model_op_count(m); k++)
    if (texmem_model_op(m, k)->type == TEXMEM_OP_OTHER) n_other++;
  cr_assert_gt(n_other, 0);
  cr_assert_eq(texmem_model_op_count(m), texmem_model_op_count(orig) + n_other);
  cr_assert_eq(texmem_model_folded_count(m), texmem_model_folded_count(orig) - n_other);
  const texmem_op *op = texmem_model_op(m, 0);
  cr_assert_eq(op->type, TEXMEM_OP_OTHER);
  cr_assert_str_eq(texmem_op_name(op), want_name);
  cr_assert_eq(op->options.builtin_code, want_code);
  cr_assert_eq(op->n_inputs, 1);
  cr_assert_eq(op->n_outputs, 1);
  for (unsigned d = 1; d <= 3; d++) {
    texmem_record *a = NULL, *b = NULL;
    int32_t *of = NULL;
    size_t na, nb;
    cr_assert_eq(texmem_model_records(orig, d, TEXMEM_PRECISION_FP16, &a, &na, NULL, NULL), TEXMEM_STATUS_OK);
    cr_assert_eq(texmem_model_records(m, d, TEXMEM_PRECISION_FP16, &b, &nb, &of, NULL), TEXMEM_STATUS_OK);
    cr_assert_eq(nb, na + n_other, "%u-D: %zu records, want %zu", d, nb, na + n_other);
    size_t seen = 0;
    for (size_t i = 0; i < nb; i++) {
      const texmem_op *p = texmem_model_op(m, b[i].first_task);
      if (p->type != TEXMEM_OP_OTHER) continue;
      cr_assert_eq(p->outputs[0], of[i]);
      seen++;
    }
    cr_assert_eq(seen, n_other);
    free(a);
    free(b);
    free(of);
  }
  texmem_model_destroy(m);
  texmem_model_destroy(orig);
  free(buf);
}

static void unknown_opcode(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  set_op0_code(b, L, 250);
}
Test(model_hostile, unknown_opcode_is_kept) {
  /* Files with only the byte field can say at most 127. */
  if (op0_has_int_code())
    expect_kept(unknown_opcode, "UNKNOWN_BUILTIN", 250);
  else
    expect_kept(unknown_opcode, "PLACEHOLDER_FOR_GREATER_OP_CODES", 127);
}

/* An operator TFLite knows and the IR does not (no kernel is planned for it). */
static void squared_difference_opcode(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  set_op0_code(b, L, 99);
}
Test(model_hostile, builtin_outside_ir_is_kept) {
  expect_kept(squared_difference_opcode, "SQUARED_DIFFERENCE", 99);
}

static void opcode_index_out(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  texmem__fb_table op;
  cr_assert_eq(texmem__fb_vec_table(&L->ops, 7, &op), TEXMEM__FB_OK);
  size_t p = field_pos(&op, OP_OPCODE_INDEX);
  cr_assert_neq(p, 0);
  put32(b + p, 1000);
}
Test(model_hostile, opcode_index_out_of_range) {
  expect(opcode_index_out, TEXMEM_STATUS_BAD_MODEL, "operator 7: opcode index 1000 out of range");
}

static void input_index_out(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  texmem__fb_table op;
  cr_assert_eq(texmem__fb_vec_table(&L->ops, 100, &op), TEXMEM__FB_OK);
  put32(b + ref_target(&op, OP_INPUTS) + 4, 99999);
}
Test(model_hostile, operator_input_out_of_range) {
  expect(input_index_out, TEXMEM_STATUS_BAD_MODEL, "operator 100: input 0 is tensor 99999, out of range");
}

static void wrong_identifier(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  (void)L;
  memcpy(b + 4, "TFL2", 4);
}
Test(model_hostile, not_a_tflite_file) {
  expect(wrong_identifier, TEXMEM_STATUS_BAD_MODEL, "not a TFLite model");
}

static void wrong_version(uint8_t *b, size_t *len, const layout *L) {
  (void)len;
  size_t p = field_pos(&L->root, MODEL_VERSION);
  cr_assert_neq(p, 0);
  put32(b + p, 7);
}
Test(model_hostile, wrong_schema_version) {
  expect(wrong_version, TEXMEM_STATUS_BAD_MODEL, "schema version 7");
}

Test(model_hostile, tiny_and_null_inputs) {
  texmem_model *m = (texmem_model *)1;
  texmem_error err = {0};
  static const uint8_t zeros[16] = {0};
  cr_assert_eq(texmem_model_read_tflite(zeros, 0, &m, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert_null(m);
  cr_assert_eq(texmem_model_read_tflite(zeros, sizeof zeros, &m, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert_eq(texmem_model_read_tflite(NULL, 10, &m, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_eq(texmem_model_read_tflite(zeros, 4, NULL, NULL), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_eq(texmem_model_load_tflite("/nonexistent/x.tflite", &m, &err), TEXMEM_STATUS_IO);
  cr_assert(strstr(err.message, "/nonexistent/x.tflite"));
  texmem_model_destroy(NULL);
}

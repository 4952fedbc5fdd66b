/* MediaPipe's custom operators at load: the FlexBuffers reader
 * (model/flexbuffers.c) and the option parsers (model/mediapipe_options.c)
 * on real, crafted and hostile bytes, and the TFLite reader keeping them
 * as their IR types, or refusing hostile options by operator name. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexbuffers.h"
#include "flexbuffers_writer.h"
#include "mediapipe_options.h"
#include "support.h"
#include "texmem/model.h"
#include "tflite_writer.h"

/* TransformTensorBilinear's options as face_landmark_with_attention.tflite
 * stores them (1-byte slots): {output_height: 16, output_width: 16}. */
static const uint8_t real_ttb[40] = {
    'o', 'u', 't', 'p', 'u', 't', '_', 'h', 'e', 'i', 'g', 'h', 't', 0,    'o',  'u',
    't', 'p', 'u', 't', '_', 'w', 'i', 'd', 't', 'h', 0,   0x02, 0x1c, 0x0f, 0x02, 0x01,
    0x02, 0x10, 0x10, 0x04, 0x04, 0x04, 0x24, 0x01};

static const int32_t subset[5] = {3, 1, 4, 1, 5}; /* odd: the last repeats */

/* Valid Landmarks2TransformMatrix options, keys sorted. */
static size_t l2tm_bytes(uint8_t *out, size_t cap) {
  fxw_entry e[] = {
      {.key = "left_rotation_idx", .kind = FXW_INT, .i = 2},
      {.key = "output_height", .kind = FXW_INT, .i = 8},
      {.key = "output_width", .kind = FXW_INT, .i = 6},
      {.key = "right_rotation_idx", .kind = FXW_INT, .i = 7},
      {.key = "scale_x", .kind = FXW_FLOAT, .f = 1.5},
      {.key = "scale_y", .kind = FXW_FLOAT, .f = 1.25},
      {.key = "subset_idxs", .kind = FXW_INTS, .v = subset, .n = 5},
      {.key = "target_rotation_radians", .kind = FXW_FLOAT, .f = 0.5},
  };
  return fxw_map(e, sizeof e / sizeof e[0], out, cap);
}

Test(mediapipe_options, real_transform_tensor_bilinear) {
  texmem__mp_ttb t;
  texmem_error err = {0};
  cr_assert_eq(texmem__mp_parse_ttb(real_ttb, sizeof real_ttb, &t, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  cr_assert_eq(t.out_h, 16);
  cr_assert_eq(t.out_w, 16);
}

Test(mediapipe_options, landmarks_to_transform_matrix) {
  uint8_t buf[512];
  size_t n = l2tm_bytes(buf, sizeof buf);
  cr_assert_gt(n, 0);
  texmem__mp_l2tm *l = malloc(sizeof *l);
  texmem_error err = {0};
  cr_assert_eq(texmem__mp_parse_l2tm(buf, n, l, &err), TEXMEM_STATUS_OK, "%s", err.message);
  cr_assert_eq(l->left, 2);
  cr_assert_eq(l->right, 7);
  cr_assert_eq(l->out_w, 6);
  cr_assert_eq(l->out_h, 8);
  cr_assert_float_eq(l->scale_x, 1.5f, 0);
  cr_assert_float_eq(l->scale_y, 1.25f, 0);
  cr_assert_float_eq(l->target_rotation, 0.5f, 0);
  cr_assert_eq(l->n_subset, 3);
  cr_assert_eq(l->subset[0][0], 3);
  cr_assert_eq(l->subset[0][1], 1);
  cr_assert_eq(l->subset[1][0], 4);
  cr_assert_eq(l->subset[2][0], 5);
  cr_assert_eq(l->subset[2][1], 5);
  free(l);
}

/* One option changed: parse fails with BAD_MODEL naming the key. */
static void expect_bad(const fxw_entry *e, size_t n, const char *needle) {
  static uint8_t buf[16384];
  size_t len = fxw_map(e, n, buf, sizeof buf);
  cr_assert_gt(len, 0);
  texmem__mp_l2tm *l = malloc(sizeof *l);
  texmem_error err = {0};
  cr_assert_eq(texmem__mp_parse_l2tm(buf, len, l, &err), TEXMEM_STATUS_BAD_MODEL, "%s", needle);
  cr_assert(strstr(err.message, "Landmarks2TransformMatrix"), "%s", err.message);
  cr_assert(strstr(err.message, needle), "'%s' not in: %s", needle, err.message);
  free(l);
}

Test(mediapipe_options, bad_values_name_the_key) {
  fxw_entry e[] = {
      {.key = "left_rotation_idx", .kind = FXW_INT, .i = 2},
      {.key = "output_height", .kind = FXW_INT, .i = 8},
      {.key = "output_width", .kind = FXW_INT, .i = 6},
      {.key = "right_rotation_idx", .kind = FXW_INT, .i = 7},
      {.key = "scale_x", .kind = FXW_FLOAT, .f = 1.5},
      {.key = "scale_y", .kind = FXW_FLOAT, .f = 1.25},
      {.key = "subset_idxs", .kind = FXW_INTS, .v = subset, .n = 5},
      {.key = "target_rotation_radians", .kind = FXW_FLOAT, .f = 0.5},
  };
  const size_t n = sizeof e / sizeof e[0];
  fxw_entry c[8];
#define VARY(idx, field, val, needle) \
  memcpy(c, e, sizeof e);             \
  c[idx].field = val;                 \
  expect_bad(c, n, needle)
  VARY(0, i, -1, "left_rotation_idx");
  VARY(1, i, 0, "output_height");
  VARY(2, i, -5, "output_width");
  VARY(4, f, 0.0, "scale_x");
  VARY(5, f, -2.0, "scale_y");
  VARY(7, f, 1e39, "target_rotation_radians"); /* inf as float32 */
#undef VARY
}

Test(mediapipe_options, float_where_int_expected) {
  fxw_entry e[] = {
      {.key = "left_rotation_idx", .kind = FXW_FLOAT, .f = 1.5},
      {.key = "output_height", .kind = FXW_INT, .i = 8},
      {.key = "output_width", .kind = FXW_INT, .i = 6},
      {.key = "right_rotation_idx", .kind = FXW_INT, .i = 7},
      {.key = "scale_x", .kind = FXW_FLOAT, .f = 1.5},
      {.key = "scale_y", .kind = FXW_FLOAT, .f = 1.25},
      {.key = "subset_idxs", .kind = FXW_INTS, .v = subset, .n = 5},
      {.key = "target_rotation_radians", .kind = FXW_FLOAT, .f = 0.5},
  };
  expect_bad(e, 8, "left_rotation_idx");
  e[0].kind = FXW_INT;
  e[0].i = 1;
  static const int32_t neg[2] = {1, -3};
  e[6].v = neg;
  e[6].n = 2;
  expect_bad(e, 8, "subset_idxs[1]");
  e[6].n = 0;
  expect_bad(e, 8, "subset_idxs");
  e[6] = e[7];
  expect_bad(e, 7, "subset_idxs: missing");
  e[6] = (fxw_entry){.key = "subset_idxs", .kind = FXW_INTS};
  /* longer than TEXMEM__MP_MAX_SUBSET pairs: refused, not allocated */
  int32_t *many = calloc(2 * TEXMEM__MP_MAX_SUBSET + 1, sizeof *many);
  e[6].v = many;
  e[6].n = 2 * TEXMEM__MP_MAX_SUBSET + 1;
  expect_bad(e, 8, "longer than supported");
  free(many);
}

/* Parsing `len` bytes copied to an exact-size heap block (so a sanitizer
 * catches any read past them): OK or BAD_MODEL, nothing else. */
static int parse_copy(const uint8_t *bytes, size_t len, bool l2tm) {
  uint8_t *b = malloc(len ? len : 1);
  if (len) memcpy(b, bytes, len);
  texmem_error err = {0};
  texmem_status s;
  if (l2tm) {
    texmem__mp_l2tm *l = malloc(sizeof *l);
    s = texmem__mp_parse_l2tm(b, len, l, &err);
    free(l);
  } else {
    texmem__mp_ttb t;
    s = texmem__mp_parse_ttb(b, len, &t, &err);
  }
  free(b);
  cr_assert(s == TEXMEM_STATUS_OK || s == TEXMEM_STATUS_BAD_MODEL, "status %d", (int)s);
  if (s) cr_assert(err.message[0], "no message");
  return s == TEXMEM_STATUS_OK;
}

Test(mediapipe_options, hostile_truncations_and_flips) {
  uint8_t buf[512];
  size_t n = l2tm_bytes(buf, sizeof buf);
  for (size_t len = 0; len < n; len++) parse_copy(buf, len, true);
  for (size_t len = 0; len < sizeof real_ttb; len++)
    cr_assert_eq(parse_copy(real_ttb, len, false), 0, "truncated to %zu parses", len);
  uint64_t s = 12345;
  uint8_t m[512];
  for (int round = 0; round < 4000; round++) {
    memcpy(m, buf, n);
    int flips = 1 + (int)(tt_rand(&s) % 4);
    for (int f = 0; f < flips; f++) m[tt_rand(&s) % n] ^= (uint8_t)(1u << (tt_rand(&s) % 8));
    parse_copy(m, n, true);
    uint8_t t[sizeof real_ttb];
    memcpy(t, real_ttb, sizeof t);
    t[tt_rand(&s) % sizeof t] = (uint8_t)tt_rand(&s);
    parse_copy(t, sizeof t, false);
  }
}

Test(mediapipe_options, crafted_structures) {
  uint8_t b[40];
  texmem__flex_map m;
  /* root width 3, root not a map, offset past the start */
  memcpy(b, real_ttb, 40);
  b[39] = 3;
  cr_assert_not_null(texmem__flex_root_map(b, 40, &m));
  memcpy(b, real_ttb, 40);
  b[38] = 0x04; /* INT root */
  cr_assert_not_null(texmem__flex_root_map(b, 40, &m));
  memcpy(b, real_ttb, 40);
  b[37] = 0xff; /* root offset before the buffer */
  cr_assert_not_null(texmem__flex_root_map(b, 40, &m));
  memcpy(b, real_ttb, 40);
  b[32] = 0xff; /* map count far past the end */
  cr_assert_not_null(texmem__flex_root_map(b, 40, &m));
  memcpy(b, real_ttb, 40);
  b[31] = 3; /* keys byte width 3 */
  cr_assert_not_null(texmem__flex_root_map(b, 40, &m));
  memcpy(b, real_ttb, 40);
  b[13] = 'x'; /* key 0 not NUL-terminated: runs into key 1, no match */
  texmem__mp_ttb t;
  texmem_error err = {0};
  cr_assert_eq(texmem__mp_parse_ttb(b, 40, &t, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "output_height"), "%s", err.message);
  cr_assert_not_null(texmem__flex_root_map(NULL, 0, &m));
}

/* A model: landmarks (1,N,3) -> Landmarks2TransformMatrix -> (1,4,4). */
static texmem_status read_l2tm_model(const uint8_t *opt, size_t opt_size, int version,
                                     texmem_model **out, texmem_error *err) {
  tw_tensor t[] = {TW_TENSOR("landmarks", TW_FLOAT32, 3, 1, 9, 3),
                   TW_TENSOR("matrix", TW_FLOAT32, 3, 1, 4, 4)};
  int32_t in = 0, o = 1;
  tw_operator op = {.code = TW_OP_CUSTOM, .custom_code = "Landmarks2TransformMatrix",
                    .version = version, .n_inputs = 1, .inputs = &in, .n_outputs = 1,
                    .outputs = &o, .custom_options = opt, .custom_options_size = opt_size};
  tw_subgraph sg = {.n_tensors = 2, .tensors = t, .n_inputs = 1, .inputs = &in, .n_outputs = 1,
                    .outputs = &o, .n_operators = 1, .operators = &op};
  tw_model mdl = {.n_subgraphs = 1, .subgraphs = &sg};
  uint8_t *file;
  size_t size;
  texmem_error werr = {0};
  cr_assert_eq(tw_write(&mdl, &file, &size, &werr), TEXMEM_STATUS_OK, "%s", werr.message);
  texmem_status s = texmem_model_read_tflite(file, size, out, err);
  free(file);
  return s;
}

Test(mediapipe_options, reader_keeps_and_refuses) {
  uint8_t buf[512];
  size_t n = l2tm_bytes(buf, sizeof buf);
  texmem_model *m = NULL;
  texmem_error err = {0};
  cr_assert_eq(read_l2tm_model(buf, n, 2, &m, &err), TEXMEM_STATUS_OK, "%s", err.message);
  const texmem_op *op = texmem_model_op(m, 0);
  cr_assert_eq(op->type, TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX);
  cr_assert_eq(op->options.custom_options_size, n);
  cr_assert_eq(memcmp(op->options.custom_options, buf, n), 0);
  texmem_model_destroy(m);
  /* version 1 has other options and semantics: kept as OTHER by name */
  cr_assert_eq(read_l2tm_model(buf, n, 1, &m, &err), TEXMEM_STATUS_OK, "%s", err.message);
  op = texmem_model_op(m, 0);
  cr_assert_eq(op->type, TEXMEM_OP_OTHER);
  cr_assert_str_eq(texmem_op_name(op), "Landmarks2TransformMatrix");
  texmem_model_destroy(m);
  /* hostile options: an error naming the operator, never a crash */
  for (size_t len = 0; len < n; len += 7) {
    m = NULL;
    memset(&err, 0, sizeof err);
    texmem_status s = read_l2tm_model(buf, len, 2, &m, &err);
    if (s == TEXMEM_STATUS_OK) {
      texmem_model_destroy(m);
      continue;
    }
    cr_assert_eq(s, TEXMEM_STATUS_BAD_MODEL, "%s", err.message);
    cr_assert(strstr(err.message, "operator 0") && strstr(err.message, "Landmarks2TransformMatrix"),
              "%s", err.message);
    cr_assert_null(m);
  }
  uint8_t bad[512];
  memcpy(bad, buf, n);
  bad[n - 1] = 5; /* root byte width 5 */
  cr_assert_eq(read_l2tm_model(bad, n, 2, &m, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_assert(strstr(err.message, "Landmarks2TransformMatrix: custom options"), "%s", err.message);
}

Test(mediapipe_options, real_model_ops) {
  char path[1024];
  snprintf(path, sizeof path, "%s/face_landmark_with_attention.tflite", tt_model_cache());
  FILE *f = fopen(path, "rb");
  if (!f) cr_skip_test("%s is not in the model cache (tools/fetch_models.sh)", path);
  fclose(f);
  texmem_model *m = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_model_load_tflite(path, &m, &err), TEXMEM_STATUS_OK, "%s", err.message);
  size_t counts[3] = {0};
  for (size_t k = 0; k < texmem_model_op_count(m); k++) {
    const texmem_op *op = texmem_model_op(m, k);
    if (op->type == TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX) {
      texmem__mp_l2tm *l = malloc(sizeof *l);
      cr_assert_eq(texmem__mp_parse_l2tm(op->options.custom_options,
                                         op->options.custom_options_size, l, &err),
                   TEXMEM_STATUS_OK, "%s", err.message);
      cr_assert_eq(l->out_w, 16);
      cr_assert_eq(l->out_h, 16);
      cr_assert_float_eq(l->scale_x, 1.5f, 0);
      cr_assert_gt(l->n_subset, 30);
      free(l);
      counts[0]++;
    }
    if (op->type == TEXMEM_OP_TRANSFORM_TENSOR_BILINEAR) counts[1]++;
    if (op->type == TEXMEM_OP_TRANSFORM_LANDMARKS) counts[2]++;
  }
  cr_assert_eq(counts[0], 3);
  cr_assert_eq(counts[1], 3);
  cr_assert_eq(counts[2], 5);
  texmem_model_destroy(m);
}

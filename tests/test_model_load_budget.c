/* The TFLite reader's load budget (texmem_model_load_desc.max_load_bytes)
 * and the defects a first fuzzing pass found in the reader: sparse FLOAT16
 * constants densified and converted without a total cap, and names that
 * start with a NUL byte (leaked: run under ASan/valgrind). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "texmem/model.h"
#include "tflite_writer.h"

#define N_SPARSE 8
#define DENSE 500000 /* fp16 elements of each sparse tensor: 1 MB dense, 2 MB as fp32 */

static const int32_t seg[] = {0, 1}, idx[] = {7};
static const uint16_t one_half[] = {0x3c00}; /* 1.0 in fp16 */

/* N_SPARSE sparse fp16 constants of DENSE elements holding one value each
 * (about 2.5 KB of file), all read by one operator outside the IR. */
static uint8_t *sparse_model(size_t *size) {
  static tw_sparsity sp = {.n_levels = 1, .traversal_order = {0},
                           .dims = {{.format = 1, .n_segments = 2, .segments = seg,
                                     .n_indices = 1, .indices = idx}}};
  static char names[N_SPARSE][16];
  tw_tensor t[N_SPARSE + 1];
  int32_t in[N_SPARSE], out[] = {N_SPARSE};
  for (int i = 0; i < N_SPARSE; i++) {
    snprintf(names[i], sizeof names[i], "sparse_%d", i);
    t[i] = (tw_tensor){.name = names[i], .type = TW_FLOAT16, .rank = 1, .shape = {DENSE},
                       .data = one_half, .data_size = sizeof one_half, .sparsity = &sp};
    in[i] = i;
  }
  t[N_SPARSE] = (tw_tensor)TW_TENSOR("out", TW_FLOAT32, 1, 1);
  tw_operator op = {.code = 200, .n_inputs = N_SPARSE, .inputs = in, .n_outputs = 1, .outputs = out};
  tw_subgraph g = {.n_tensors = N_SPARSE + 1, .tensors = t, .n_outputs = 1, .outputs = out,
                   .n_operators = 1, .operators = &op};
  tw_model m = {.n_subgraphs = 1, .subgraphs = &g};
  uint8_t *bytes = NULL;
  texmem_error err = {0};
  cr_assert_eq(tw_write(&m, &bytes, size, &err), TEXMEM_STATUS_OK, "%s", err.message);
  return bytes;
}

Test(model_load_budget, sparse_fp16_amplification_is_refused) {
  /* Each tensor alone is under the old per-allocation cap (64 x file
   * size); together they made a 2.5 KB file allocate 24 MB (gigabytes
   * with more tensors or a larger file), and the load succeeded. */
  size_t size;
  uint8_t *bytes = sparse_model(&size);
  cr_assert_lt(size, 4096, "the file should stay small (%zu bytes)", size);
  texmem_model *m = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_model_read_tflite(bytes, size, &m, &err), TEXMEM_STATUS_BAD_MODEL, "%s",
               err.message);
  cr_assert_null(m);
  cr_expect_not_null(strstr(err.message, "load budget"), "%s", err.message);
  cr_expect_not_null(strstr(err.message, "('sparse_"), "names the tensor: %s", err.message);
  free(bytes);
}

Test(model_load_budget, raised_budget_loads_and_densifies) {
  size_t size;
  uint8_t *bytes = sparse_model(&size);
  texmem_model_load_desc d = {.max_load_bytes = (size_t)256 << 20};
  texmem_model *m = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_model_read_tflite_desc(bytes, size, &d, &m, &err), TEXMEM_STATUS_OK, "%s",
               err.message);
  const texmem_tensor *t = texmem_model_tensor(m, 5);
  cr_assert_eq(t->type, TEXMEM_DTYPE_FLOAT32);
  cr_assert_eq(t->data_size, (size_t)DENSE * 4);
  const float *f = t->data;
  cr_expect_eq(f[7], 1.0f);
  cr_expect_eq(f[0], 0.0f);
  cr_expect_eq(f[DENSE - 1], 0.0f);
  texmem_model_destroy(m);
  /* A budget just too small for the data fails; the tables alone fit. */
  d.max_load_bytes = (size_t)DENSE * 6 * N_SPARSE - 1;
  cr_assert_eq(texmem_model_read_tflite_desc(bytes, size, &d, &m, &err), TEXMEM_STATUS_BAD_MODEL);
  d.max_load_bytes = 64;
  cr_assert_eq(texmem_model_read_tflite_desc(bytes, size, &d, &m, &err), TEXMEM_STATUS_BAD_MODEL);
  cr_expect_not_null(strstr(err.message, "model tables"), "%s", err.message);
  free(bytes);
}

Test(model_load_budget, committed_model_fits_the_default_budget) {
  size_t len;
  char *bytes = tt_read_file(TEXMEM_TEST_DATA "/face_detection_short_range.tflite", &len);
  texmem_model *m = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_model_read_tflite(bytes, len, &m, &err), TEXMEM_STATUS_OK, "%s", err.message);
  texmem_model_destroy(m);
  /* and a budget of 2 x its size is too small (its fp16 weights convert) */
  texmem_model_load_desc d = {.max_load_bytes = len / 2};
  cr_assert_eq(texmem_model_read_tflite_desc(bytes, len, &d, &m, &err), TEXMEM_STATUS_BAD_MODEL);
  free(bytes);
}

/* Replaces the first byte of the string s in the file by NUL. */
static void nul_first(uint8_t *b, size_t n, const char *s) {
  size_t k = strlen(s);
  for (size_t i = 0; i + k <= n; i++)
    if (memcmp(b + i, s, k) == 0) {
      b[i] = 0;
      return;
    }
  cr_assert_fail("'%s' not in the file", s);
}

Test(model_load_budget, names_starting_with_nul_do_not_leak) {
  /* A tensor name and a custom code whose first byte is NUL: the reader
   * copied the name but the model frees only non-empty names (a leak
   * LeakSanitizer and valgrind report). Such a name reads as "". */
  tw_tensor t[] = {TW_TENSOR("Xnul_input", TW_FLOAT32, 1, 4), TW_TENSOR("Xnul_output", TW_FLOAT32, 1, 4)};
  int32_t in[] = {0}, out[] = {1};
  tw_operator op = {.code = TW_OP_CUSTOM, .custom_code = "Xnul_custom", .n_inputs = 1, .inputs = in,
                    .n_outputs = 1, .outputs = out};
  tw_subgraph g = {.n_tensors = 2, .tensors = t, .n_inputs = 1, .inputs = in, .n_outputs = 1,
                   .outputs = out, .n_operators = 1, .operators = &op};
  tw_model md = {.n_subgraphs = 1, .subgraphs = &g};
  uint8_t *bytes = NULL;
  size_t size;
  texmem_error err = {0};
  cr_assert_eq(tw_write(&md, &bytes, &size, &err), TEXMEM_STATUS_OK, "%s", err.message);
  nul_first(bytes, size, "Xnul_input");
  nul_first(bytes, size, "Xnul_output");
  nul_first(bytes, size, "Xnul_custom");
  texmem_model *m = NULL;
  cr_assert_eq(texmem_model_read_tflite(bytes, size, &m, &err), TEXMEM_STATUS_OK, "%s", err.message);
  cr_expect_str_eq(texmem_model_tensor(m, 0)->name, "");
  cr_expect_str_eq(texmem_model_tensor(m, 1)->name, "");
  cr_expect_eq(texmem_model_op(m, 0)->type, TEXMEM_OP_OTHER);
  cr_expect_str_eq(texmem_op_name(texmem_model_op(m, 0)), "CUSTOM");
  texmem_model_destroy(m);
  free(bytes);
}

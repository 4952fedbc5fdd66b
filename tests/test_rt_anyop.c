/* The runtime and operators it cannot execute: texmem_runtime_unsupported_ops
 * lists them (name, count, options flag) in order of first appearance, and
 * texmem_runtime_create refuses such a model up front, naming all of them,
 * while its records still plan. */
#include <stdio.h>
#include <string.h>

#include "rt_support.h"
#include "texmem/mobilenet.h"

/* in -> ADD(in, in) -> OTHER "Foo" -> OTHER SQUARED_DIFFERENCE ->
 * OTHER "Foo" -> CONV_2D with unsupported options (kept as OTHER) -> out. */
static texmem_model *mixed_model(void) {
  texmem_model *m = NULL;
  TG_OK(texmem_model_create(&m, &tg_err_));
  const int32_t shape[4] = {1, 4, 4, 8};
  int32_t t[7];
  for (int i = 0; i < 7; i++)
    TG_OK(texmem_model_add_tensor(m, NULL, TEXMEM_DTYPE_FLOAT32, 4, shape, &t[i], &tg_err_));
  texmem_op_options foo = texmem_op_options_default();
  foo.builtin_code = 32;
  foo.custom_name = "Foo";
  texmem_op_options sq = texmem_op_options_default();
  sq.builtin_code = 99;
  texmem_op_options conv = texmem_op_options_default();
  conv.builtin_code = 3;
  conv.options_unsupported = true;
  int32_t in0[2] = {t[0], t[0]};
  TG_OK(texmem_model_add_op(m, TEXMEM_OP_ADD, in0, 2, &t[1], 1, NULL, NULL, &tg_err_));
  TG_OK(texmem_model_add_op(m, TEXMEM_OP_OTHER, &t[1], 1, &t[2], 1, &foo, NULL, &tg_err_));
  TG_OK(texmem_model_add_op(m, TEXMEM_OP_OTHER, &t[2], 1, &t[3], 1, &sq, NULL, &tg_err_));
  TG_OK(texmem_model_add_op(m, TEXMEM_OP_OTHER, &t[3], 1, &t[4], 1, &foo, NULL, &tg_err_));
  TG_OK(texmem_model_add_op(m, TEXMEM_OP_OTHER, &t[4], 1, &t[5], 1, &conv, NULL, &tg_err_));
  int32_t in5[2] = {t[5], t[1]};
  TG_OK(texmem_model_add_op(m, TEXMEM_OP_ADD, in5, 2, &t[6], 1, NULL, NULL, &tg_err_));
  TG_OK(texmem_model_set_io(m, &t[0], 1, &t[6], 1, &tg_err_));
  return m;
}

Test(rt_anyop, unsupported_ops_are_listed) {
  texmem_model *m = mixed_model();
  texmem_op_tally *t = NULL;
  size_t n = 0;
  TG_OK(texmem_runtime_unsupported_ops(m, &t, &n, &tg_err_));
  cr_assert_eq(n, 3);
  cr_assert_str_eq(t[0].name, "Foo");
  cr_assert_eq(t[0].count, 2);
  cr_assert_str_eq(t[1].name, "SQUARED_DIFFERENCE");
  cr_assert_eq(t[1].builtin_code, 99);
  cr_assert_eq(t[1].count, 1);
  cr_assert_str_eq(t[2].name, "CONV_2D");
  cr_assert(t[2].options_unsupported);
  char buf[256];
  texmem_op_tally_format(t, n, buf, sizeof buf);
  cr_assert_str_eq(buf, "Foo x2, SQUARED_DIFFERENCE x1, CONV_2D x1 (options outside the kernels)");
  /* A short buffer is cut with "...", never overrun. */
  char small[24];
  memset(small, 'z', sizeof small);
  texmem_op_tally_format(t, n, small, 20);
  cr_assert_str_eq(small, "Foo x2...");
  cr_assert_eq(small[21], 'z');
  free(t);
  /* A model whose operators all run lists none. */
  texmem_model *ok = NULL;
  TG_OK(texmem_model_mobilenet_v2_sized(1, 32, &ok, &tg_err_));
  TG_OK(texmem_runtime_unsupported_ops(ok, &t, &n, &tg_err_));
  cr_assert_eq(n, 0);
  cr_assert_null(t);
  texmem_model_destroy(ok);
  cr_assert_eq(texmem_runtime_unsupported_ops(NULL, &t, &n, NULL), TEXMEM_STATUS_INVALID_ARGUMENT);
  texmem_model_destroy(m);
}

Test(rt_anyop, create_refuses_naming_all) {
  texmem_gl_context *ctx = tg_context();
  texmem_model *m = mixed_model();
  texmem_runtime *rt = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_runtime_create(ctx, m, NULL, &rt, &err), TEXMEM_STATUS_UNSUPPORTED_OP);
  cr_assert_null(rt);
  cr_assert(strstr(err.message, "4 operators the runtime cannot execute: Foo x2, SQUARED_DIFFERENCE x1, "
                                "CONV_2D x1 (options outside the kernels)"),
            "%s", err.message);
  /* Planning needs no kernel: the records plan and validate. */
  texmem_record *rec = NULL;
  size_t n = 0;
  TG_OK(texmem_model_records(m, 3, TEXMEM_PRECISION_FP16, &rec, &n, NULL, &tg_err_));
  cr_assert_eq(n, 5);
  texmem_plan_destroy(tt_plan(rec, n, 3, (texmem_plan_desc){.kind = TEXMEM_PLAN_OBJECTS}));
  free(rec);
  texmem_model_destroy(m);
  texmem_gl_context_destroy(ctx);
}

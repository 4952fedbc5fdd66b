/* The kernels' uniform setters: a kernel that sets more uniforms than a
 * kernel holds gets its first extra uniform named (the runtime turns that
 * into a status), never an abort, and the uniforms that fit are kept. */
#include <criterion/criterion.h>

#include "kernel.h"

Test(kernel_env, uniforms_past_the_limit_are_named_not_fatal) {
  static const char *const names[] = {"u0",  "u1",  "u2",  "u3",  "u4",  "u5",  "u6",
                                      "u7",  "u8",  "u9",  "u10", "u11", "u12", "u13",
                                      "u14", "u15", "u16", "u17"};
  cr_assert_eq(sizeof names / sizeof names[0], TEXMEM__KERNEL_MAX_UNIFORMS + 2);
  texmem__kernel k = {0};
  for (int i = 0; i < TEXMEM__KERNEL_MAX_UNIFORMS; i++) texmem__kernel_int(&k, names[i], i);
  cr_assert_null(k.uniform_overflow);
  cr_assert_eq(k.n_uniforms, TEXMEM__KERNEL_MAX_UNIFORMS);
  texmem__kernel_vec4(&k, names[TEXMEM__KERNEL_MAX_UNIFORMS], 1, 2, 3, 4);
  texmem__kernel_float(&k, names[TEXMEM__KERNEL_MAX_UNIFORMS + 1], 5);
  cr_assert_eq(k.n_uniforms, TEXMEM__KERNEL_MAX_UNIFORMS);
  cr_assert_str_eq(k.uniform_overflow, "u16", "the first uniform that did not fit is named");
  for (int i = 0; i < TEXMEM__KERNEL_MAX_UNIFORMS; i++) {
    cr_assert_str_eq(k.uniforms[i].name, names[i]);
    cr_assert_eq(k.uniforms[i].type, TEXMEM_GL_INT);
    cr_assert_eq(k.uniforms[i].i[0], i);
  }
}

Test(kernel_env, uniform_setters_fill_in_order) {
  texmem__kernel k = {0};
  texmem__kernel_ivec4(&k, "a", 1, 2, 3, 4);
  texmem__kernel_vec4(&k, "b", 0.5f, 1.5f, 2.5f, 3.5f);
  texmem__kernel_float(&k, "c", 7.25f);
  cr_assert_eq(k.n_uniforms, 3);
  cr_assert_null(k.uniform_overflow);
  cr_assert_eq(k.uniforms[0].type, TEXMEM_GL_IVEC4);
  cr_assert_eq(k.uniforms[0].i[3], 4);
  cr_assert_eq(k.uniforms[1].type, TEXMEM_GL_VEC4);
  cr_assert_float_eq(k.uniforms[1].f[2], 2.5f, 0);
  cr_assert_eq(k.uniforms[2].type, TEXMEM_GL_FLOAT);
  cr_assert_float_eq(k.uniforms[2].f[0], 7.25f, 0);
}

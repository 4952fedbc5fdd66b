/* GL context: headless creation on each platform, limits, strings,
 * adopting a caller's context, counters. */
#include "gl_support.h"

Test(gl_context, create_auto_gles31_with_limits) {
  texmem_gl_context *ctx = tg_context();
  texmem_gl_info in;
  texmem_gl_context_info(ctx, &in);
  cr_assert(in.gl_major > 3 || (in.gl_major == 3 && in.gl_minor >= 1), "%s", in.version);
  cr_assert(strstr(in.version, "OpenGL ES"), "%s", in.version);
  cr_assert(strstr(in.glsl_version, "OpenGL ES GLSL"), "%s", in.glsl_version);
  cr_assert(strlen(in.renderer) > 0);
  /* The CPU renderers are named by their renderer strings; NVIDIA's is not. */
  if (strstr(in.renderer, "llvmpipe") || strstr(in.renderer, "softpipe"))
    cr_expect(in.renders_on_cpu, "%s", in.renderer);
  if (strstr(in.vendor, "NVIDIA")) cr_expect(!in.renders_on_cpu, "%s", in.renderer);
  cr_assert(!strcmp(in.platform, "device") || !strcmp(in.platform, "surfaceless") ||
            !strcmp(in.platform, "default"), "%s", in.platform);
  /* GLES 3.1 minimums (spec table 20.x). */
  texmem_gl_limits l;
  texmem_gl_context_limits(ctx, &l);
  cr_assert_geq(l.max_2d_size, 2048);
  cr_assert_geq(l.max_3d_size, 256);
  cr_assert_geq(l.max_array_layers, 256);
  cr_assert_geq(l.max_image_units, 4);
  cr_assert_geq(l.max_compute_image_uniforms, 4);
  cr_assert_geq(l.max_ssbo_bindings, 4);
  for (int i = 0; i < 3; i++) cr_assert_geq(l.max_work_group_count[i], 65535);
  cr_assert_geq(l.max_work_group_size[0], 128);
  cr_assert_geq(l.max_work_group_size[1], 128);
  cr_assert_geq(l.max_work_group_size[2], 64);
  cr_assert_geq(l.max_work_group_invocations, 128);
  cr_assert_geq(l.max_shared_memory, 16384);
  /* A context of texmem's own asks for all the driver's compiler threads
   * (GL_KHR_parallel_shader_compile), where it has the extension. */
  cr_assert(l.compiler_threads == -1 || l.compiler_threads == 0xFFFFFFFFll, "%lld",
            (long long)l.compiler_threads);
  /* Planner limits follow the texture target. */
  uint64_t md[3];
  texmem_gl_max_dims(ctx, TEXMEM_GL_TARGET_2D_ARRAY, md);
  cr_assert(md[0] == (uint64_t)l.max_2d_size && md[2] == (uint64_t)l.max_array_layers);
  texmem_gl_max_dims(ctx, TEXMEM_GL_TARGET_3D, md);
  cr_assert(md[0] == (uint64_t)l.max_3d_size && md[2] == (uint64_t)l.max_3d_size);
  texmem_gl_max_dims(ctx, TEXMEM_GL_TARGET_2D, md);
  cr_assert(md[1] == (uint64_t)l.max_2d_size && md[2] == 1);
  texmem_gl_context_destroy(ctx);
  texmem_gl_context_destroy(NULL);
}

/* Each platform on its own: works, or fails with a message naming the EGL
 * step (never an abort). Mesa has device and surfaceless. */
Test(gl_context, each_platform_works_or_names_the_failure) {
  texmem_gl_context *probe = tg_context();
  texmem_gl_context_destroy(probe);
  static const texmem_gl_platform ps[] = {TEXMEM_GL_PLATFORM_DEVICE,
                                          TEXMEM_GL_PLATFORM_SURFACELESS,
                                          TEXMEM_GL_PLATFORM_DEFAULT};
  int worked = 0, with_pbuffer = 0;
  for (int i = 0; i < 6; i++) {
    texmem_gl_context_desc d = {.platform = ps[i % 3], .prefer_software = true,
                                .use_pbuffer = i >= 3};
    texmem_gl_context *ctx = NULL;
    texmem_error err = {0};
    texmem_status st = texmem_gl_context_create(&d, &ctx, &err);
    if (st == TEXMEM_STATUS_OK) {
      worked++;
      texmem_gl_info in;
      texmem_gl_context_info(ctx, &in);
      cr_assert_geq(in.gl_minor + 10 * in.gl_major, 31);
      if (d.use_pbuffer) {
        cr_assert_not(in.surfaceless);
        with_pbuffer++;
      }
      /* The context runs compute: a program compiles. */
      static const char *const out[] = {"o"};
      texmem_gl_program_desc pd = {.name = "t", .source = "void main() { o_write(ivec3(0), vec4(1.0)); }",
                                   .outputs = out, .n_outputs = 1};
      texmem_gl_program prog;
      TG_OK(texmem_gl_program_create(ctx, &pd, &prog, &tg_err_));
      /* It really runs GL: a texture can be made. */
      texmem_gl_texture t;
      texmem_gl_texture_desc td = {.dims = {4, 4, 2}};
      TG_OK(texmem_gl_texture_create(ctx, &td, &t, &tg_err_));
      texmem_gl_context_destroy(ctx);
    } else {
      cr_assert_eq(st, TEXMEM_STATUS_GL_CONTEXT, "%s", err.message);
      cr_assert(strstr(err.message, "egl") || strstr(err.message, "EGL"), "%s", err.message);
      cr_assert_null(ctx);
    }
  }
  cr_assert_geq(worked, 2);
  cr_assert_geq(with_pbuffer, 1, "the 1x1 pbuffer path works somewhere");
  texmem_gl_context *ctx = NULL;
  texmem_gl_context_desc bad = {.platform = (texmem_gl_platform)99};
  cr_assert_eq(texmem_gl_context_create(&bad, &ctx, NULL), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_eq(texmem_gl_context_create(NULL, NULL, NULL), TEXMEM_STATUS_INVALID_ARGUMENT);
}

/* A delegate's context: texmem works in it and leaves it alone. */
Test(gl_context, adopt_callers_context) {
  texmem_gl_context *owner = tg_context();
  EGLContext egl_ctx = eglGetCurrentContext();
  cr_assert_neq(egl_ctx, EGL_NO_CONTEXT);
  texmem_gl_context *ad = NULL;
  TG_OK(texmem_gl_context_adopt(&ad, &tg_err_));
  texmem_gl_info in;
  texmem_gl_context_info(ad, &in);
  cr_assert_str_eq(in.platform, "adopted");
  cr_assert_not(in.surfaceless);
  texmem_error err = {0};
  cr_assert_eq(texmem_gl_context_make_current(ad, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  /* Objects made through the adopted wrapper are its own and die with it. */
  texmem_gl_texture t;
  texmem_gl_texture_desc td = {.dims = {8, 8, 1}, .format = TEXMEM_GL_RGBA16F};
  TG_OK(texmem_gl_texture_create(ad, &td, &t, &tg_err_));
  GLuint name = texmem__gl_texture_name(ad, t);
  cr_assert(glIsTexture(name));
  texmem_gl_context_destroy(ad);
  cr_assert_not(glIsTexture(name));
  /* The caller's context is still current and usable. */
  cr_assert_eq(eglGetCurrentContext(), egl_ctx);
  TG_OK(texmem_gl_texture_create(owner, &td, &t, &tg_err_));
  texmem_gl_context_destroy(owner);
}

Test(gl_context, adopt_without_current_context_fails) {
  texmem_gl_context *owner = tg_context();
  EGLDisplay dpy = eglGetCurrentDisplay();
  cr_assert(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT));
  texmem_gl_context *ad = NULL;
  texmem_error err = {0};
  cr_assert_eq(texmem_gl_context_adopt(&ad, &err), TEXMEM_STATUS_GL_CONTEXT);
  cr_assert(strstr(err.message, "eglGetCurrentContext"), "%s", err.message);
  cr_assert_null(ad);
  TG_OK(texmem_gl_context_make_current(owner, &tg_err_));
  cr_assert_neq(eglGetCurrentContext(), EGL_NO_CONTEXT);
  texmem_gl_context_destroy(owner);
}

/* Two contexts at once on one display: destroying one leaves the other. */
Test(gl_context, two_contexts_share_a_display) {
  texmem_gl_context *a = tg_context();
  texmem_gl_context *b = tg_context();
  texmem_gl_context_destroy(b);
  TG_OK(texmem_gl_context_make_current(a, &tg_err_));
  texmem_gl_texture t;
  texmem_gl_texture_desc td = {.dims = {2, 2, 1}};
  TG_OK(texmem_gl_texture_create(a, &td, &t, &tg_err_));
  texmem_gl_context_destroy(a);
}

/* Work groups and invocations are counted per dispatch: given groups
 * (3x2x1 of 4x2x1 invocations) and groups covering the output (a 10x3
 * texture in groups of 8x8: 2x1x1); a reset zeroes them. */
Test(gl_context, counters_count_work_groups) {
  static const char *const src =
      "void main() {\n"
      "  highp ivec3 p = ivec3(gl_GlobalInvocationID);\n"
      "  if (dst_inside(p)) dst_write(p, vec4(1.0));\n"
      "}\n";
  static const char *const dst[] = {"dst"};
  texmem_gl_context *ctx = tg_context();
  static const texmem_record r[] = {{0, {10, 3, 1}, 0, 0}};
  static const size_t of[] = {0};
  texmem_plan *plan = tg_manual_plan(r, 1, 3, of, 1);
  texmem_gl_pool_desc pd = {.plan = plan, .records = r, .record_count = 1, .dims = 3};
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &pd, &pool, &tg_err_));
  texmem_gl_program_desc d = {
      .name = "ones", .source = src, .outputs = dst, .n_outputs = 1, .local_size = {4, 2, 1}};
  texmem_gl_program prog, cover;
  TG_OK(texmem_gl_program_create(ctx, &d, &prog, &tg_err_));
  d.local_size[0] = d.local_size[1] = 8;
  TG_OK(texmem_gl_program_create(ctx, &d, &cover, &tg_err_));
  const size_t t0 = 0;
  texmem_gl_op ops[2] = {{.program = prog, .outputs = &t0, .n_outputs = 1, .groups = {3, 2, 1}},
                         {.program = cover, .outputs = &t0, .n_outputs = 1}};
  texmem_gl_counters_reset(ctx);
  TG_OK(texmem_gl_run(pool, ops, 2, NULL, &tg_err_));
  texmem_gl_counters c;
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.dispatches, 2);
  cr_assert_eq(c.work_groups, 6 + 2, "%llu", (unsigned long long)c.work_groups);
  cr_assert_eq(c.invocations, 6 * 8 + 2 * 64, "%llu", (unsigned long long)c.invocations);
  texmem_gl_counters_reset(ctx);
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.work_groups, 0);
  cr_assert_eq(c.invocations, 0);
  texmem_gl_program_destroy(ctx, prog);
  texmem_gl_program_destroy(ctx, cover);
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(plan);
  texmem_gl_context_destroy(ctx);
}

Test(gl_context, counters_reset_keeps_live_figures) {
  texmem_gl_context *ctx = tg_context();
  texmem_gl_texture t;
  texmem_gl_texture_desc td = {.dims = {3, 5, 7}, .format = TEXMEM_GL_RGBA16F};
  TG_OK(texmem_gl_texture_create(ctx, &td, &t, &tg_err_));
  texmem_gl_counters c;
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.textures_created, 1);
  cr_assert_eq(c.textures_live, 1);
  cr_assert_eq(c.bytes_allocated, 3 * 5 * 7 * 8);
  texmem_gl_counters_reset(ctx);
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.textures_created, 0);
  cr_assert_eq(c.textures_live, 1);
  cr_assert_eq(c.bytes_allocated, 3 * 5 * 7 * 8);
  texmem_gl_texture_destroy(ctx, t);
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.textures_live, 0);
  cr_assert_eq(c.bytes_allocated, 0);
  texmem_gl_context_destroy(ctx);
}

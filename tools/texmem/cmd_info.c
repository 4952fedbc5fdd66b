/* texmem info: the GL renderer, versions and the limits planning uses. */
#ifdef TEXMEM_HAVE_GL
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "texmem/gl.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: texmem info [--json] [--platform auto|device|surfaceless|default]\n"
          "  Creates a headless GLES 3.1 context and prints its renderer, GL and GLSL\n"
          "  versions and texture / compute limits, its GPU timer queries (texmem bench\n"
          "  --profile) and its driver memory query, if any.\n");
}

int cli_cmd_info(int argc, char **argv) {
  bool json = false;
  texmem_gl_context_desc desc = {0};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) {
      json = true;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return CLI_EXIT_OK;
    } else if (!strcmp(argv[i], "--platform") && i + 1 < argc) {
      const char *p = argv[++i];
      if (!strcmp(p, "auto")) desc.platform = TEXMEM_GL_PLATFORM_AUTO;
      else if (!strcmp(p, "device")) desc.platform = TEXMEM_GL_PLATFORM_DEVICE;
      else if (!strcmp(p, "surfaceless")) desc.platform = TEXMEM_GL_PLATFORM_SURFACELESS;
      else if (!strcmp(p, "default")) desc.platform = TEXMEM_GL_PLATFORM_DEFAULT;
      else {
        fprintf(stderr, "texmem info: unknown platform '%s'\n", p);
        usage(stderr);
        return CLI_EXIT_BAD_INPUT;
      }
    } else {
      fprintf(stderr, "texmem info: unknown option '%s'\n", argv[i]);
      usage(stderr);
      return CLI_EXIT_BAD_INPUT;
    }
  }
  texmem_gl_context *ctx = NULL;
  texmem_error err = {0};
  texmem_status st = texmem_gl_context_create(&desc, &ctx, &err);
  if (st) {
    fprintf(stderr, "texmem info: %s: %s\n", texmem_status_name(st), err.message);
    return cli_exit_for(st);
  }
  texmem_gl_info in;
  texmem_gl_limits l;
  texmem_gl_context_info(ctx, &in);
  texmem_gl_context_limits(ctx, &l);
  const char *timer_why, *memory_why;
  texmem_gl_timer_kind timer = texmem_gl_timer_support(ctx, &timer_why);
  texmem_gl_memory_source memory = texmem_gl_memory_support(ctx, &memory_why);
  if (json) {
    printf("{\n  \"platform\": ");
    cli_json_str(stdout, in.platform);
    printf(",\n  \"surfaceless\": %s,\n  \"egl_vendor\": ", in.surfaceless ? "true" : "false");
    cli_json_str(stdout, in.egl_vendor);
    printf(",\n  \"egl_version\": ");
    cli_json_str(stdout, in.egl_version);
    printf(",\n  \"vendor\": ");
    cli_json_str(stdout, in.vendor);
    printf(",\n  \"renderer\": ");
    cli_json_str(stdout, in.renderer);
    printf(",\n  \"renders_on_cpu\": %s", in.renders_on_cpu ? "true" : "false");
    printf(",\n  \"gl_version\": ");
    cli_json_str(stdout, in.version);
    printf(",\n  \"glsl_version\": ");
    cli_json_str(stdout, in.glsl_version);
    printf(",\n  \"timer_queries\": \"%s\",\n  \"timer_note\": ",
           texmem_gl_timer_kind_name(timer));
    cli_json_str(stdout, timer_why);
    printf(",\n  \"driver_memory\": \"%s\",\n  \"driver_memory_note\": ",
           texmem_gl_memory_source_name(memory));
    cli_json_str(stdout, memory_why);
    printf(",\n  \"limits\": {\n"
           "    \"max_2d_size\": %lld,\n    \"max_3d_size\": %lld,\n"
           "    \"max_array_layers\": %lld,\n    \"max_image_units\": %lld,\n"
           "    \"max_compute_image_uniforms\": %lld,\n    \"max_ssbo_bindings\": %lld,\n"
           "    \"max_work_group_count\": [%lld, %lld, %lld],\n"
           "    \"max_work_group_size\": [%lld, %lld, %lld],\n"
           "    \"max_work_group_invocations\": %lld,\n    \"max_shared_memory\": %lld,\n"
           "    \"ssbo_offset_alignment\": %lld,\n    \"program_binary_formats\": %lld,\n"
           "    \"compiler_threads\": %lld\n  }\n}\n",
           (long long)l.max_2d_size, (long long)l.max_3d_size, (long long)l.max_array_layers,
           (long long)l.max_image_units, (long long)l.max_compute_image_uniforms,
           (long long)l.max_ssbo_bindings, (long long)l.max_work_group_count[0],
           (long long)l.max_work_group_count[1], (long long)l.max_work_group_count[2],
           (long long)l.max_work_group_size[0], (long long)l.max_work_group_size[1],
           (long long)l.max_work_group_size[2], (long long)l.max_work_group_invocations,
           (long long)l.max_shared_memory, (long long)l.ssbo_offset_alignment,
           (long long)l.program_binary_formats, (long long)l.compiler_threads);
  } else {
    printf("platform:        EGL %s%s (%s, EGL %s)\n", in.platform,
           in.surfaceless ? ", surfaceless" : "", in.egl_vendor, in.egl_version);
    printf("vendor:          %s\nrenderer:        %s (%s)\nGL version:      %s\nGLSL version:    %s\n",
           in.vendor, in.renderer, in.renders_on_cpu ? "on the CPU" : "a GPU", in.version,
           in.glsl_version);
    printf("max 2-D size:    %lld\nmax 3-D size:    %lld\nmax layers:      %lld\n",
           (long long)l.max_2d_size, (long long)l.max_3d_size, (long long)l.max_array_layers);
    printf("max image units: %lld (compute image uniforms %lld, SSBO bindings %lld, offsets a "
           "multiple of %lld bytes)\n",
           (long long)l.max_image_units, (long long)l.max_compute_image_uniforms,
           (long long)l.max_ssbo_bindings, (long long)l.ssbo_offset_alignment);
    printf("timer queries:   %s\n%s\n", timer_why, memory_why);
    printf("program binaries: %lld format%s%s\n", (long long)l.program_binary_formats,
           l.program_binary_formats == 1 ? "" : "s",
           l.program_binary_formats > 0 ? " (a program cache loads them)"
                                        : " (no program cache on this driver)");
    if (l.compiler_threads < 0)
      printf("shader compiles: one at a time (no GL_KHR_parallel_shader_compile)\n");
    else
      printf("shader compiles: GL_KHR_parallel_shader_compile, threads %s\n",
             l.compiler_threads == 0xFFFFFFFFll ? "as many as the driver has" : "set by the caller");
    printf("max work groups: %lld x %lld x %lld\n", (long long)l.max_work_group_count[0],
           (long long)l.max_work_group_count[1], (long long)l.max_work_group_count[2]);
    printf("max group size:  %lld x %lld x %lld (%lld invocations, %lld bytes shared)\n",
           (long long)l.max_work_group_size[0], (long long)l.max_work_group_size[1],
           (long long)l.max_work_group_size[2], (long long)l.max_work_group_invocations,
           (long long)l.max_shared_memory);
  }
  texmem_gl_context_destroy(ctx);
  return CLI_EXIT_OK;
}
#else
typedef int texmem__cmd_info_needs_gl; /* built without the GL backend */
#endif

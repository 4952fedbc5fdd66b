/* texmem info, run as a program: the renderer, versions and limits, text
 * and --json, and bad flags. Needs a GLES 3.1 context like the GL tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_support.h"
#include "support.h"

static void make_tmpdir(void) { tt_tmpdir_make("texmem_cli_info"); }

TestSuite(cli_info, .init = make_tmpdir, .fini = tt_tmpdir_remove);

static int info(const char *flag, char **out, char **err) {
  const char *argv[] = {TEXMEM_BINARY_DIR "/texmem", "info", flag, NULL};
  return tt_spawn(argv, tt_tmpdir(), out, err);
}

Test(cli_info, text_report) {
  char *out, *err;
  int code = info(NULL, &out, &err);
  cr_assert_eq(code, 0, "stderr: %s", err);
  static const char *const lines[] = {"renderer:", "GL version:", "GLSL version:", "max 2-D size:",
                                      "max 3-D size:", "max layers:", "max image units:",
                                      "max work groups:", "max group size:", "shader compiles:"};
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
    cr_expect_not_null(strstr(out, lines[i]), "no '%s' in:\n%s", lines[i], out);
  cr_expect_not_null(strstr(out, "OpenGL ES 3."), "%s", out);
  free(out);
  free(err);
}

Test(cli_info, json_limits) {
  char *out, *err;
  int code = info("--json", &out, &err);
  cr_assert_eq(code, 0, "stderr: %s", err);
  static const char *const keys[] = {"\"renderer\":", "\"gl_version\":", "\"glsl_version\":",
                                     "\"max_2d_size\":", "\"max_3d_size\":",
                                     "\"max_array_layers\":", "\"max_image_units\":",
                                     "\"max_work_group_count\":", "\"max_work_group_size\":",
                                     "\"ssbo_offset_alignment\":", "\"program_binary_formats\":",
                                     "\"compiler_threads\":"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    cr_expect_not_null(strstr(out, keys[i]), "no %s in %s", keys[i], out);
  /* GLES 3.1 guarantees at least 2048 texels a side. */
  const char *p = strstr(out, "\"max_2d_size\":");
  cr_assert_not_null(p);
  cr_expect_geq(strtol(p + strlen("\"max_2d_size\":"), NULL, 10), 2048);
  /* GLES 3.1: a positive alignment of at most 256 bytes. */
  p = strstr(out, "\"ssbo_offset_alignment\":");
  cr_assert_not_null(p);
  long align = strtol(p + strlen("\"ssbo_offset_alignment\":"), NULL, 10);
  cr_expect(align >= 1 && align <= 256, "%ld", align);
  free(out);
  free(err);
}

Test(cli_info, bad_flag_exit_2) {
  char *out, *err;
  cr_expect_eq(info("--bogus", &out, &err), 2);
  cr_expect_not_null(strstr(err, "--bogus"), "%s", err);
  free(out);
  free(err);
}

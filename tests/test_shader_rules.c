/* Rules every shader of texmem keeps, checked on the sources (no GL):
 * no arrays and no subscripts in shader code. A local array, or a vector
 * indexed with a run-time value, can make a driver back it with per-thread
 * scratch memory reserved for every thread the GPU holds at once (tens of
 * MiB for one shader on a large card, whatever the model). Kernels keep
 * per-invocation state in named variables, pick lanes with tm_lane and
 * read buffers with NAME_at; only the read back writes an SSBO array. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* The source without comments (malloc'd). */
static char *strip_comments(const char *s) {
  char *o = malloc(strlen(s) + 1), *w = o;
  cr_assert_not_null(o);
  while (*s) {
    if (s[0] == '/' && s[1] == '/') {
      while (*s && *s != '\n') s++;
    } else if (s[0] == '/' && s[1] == '*') {
      const char *e = strstr(s + 2, "*/");
      s = e ? e + 2 : s + strlen(s);
    } else {
      *w++ = *s++;
    }
  }
  *w = '\0';
  return o;
}

/* Checks one file; returns 1 if it is a shader source. `allowed`: the one
 * subscripted name the file may use ("" none). */
static int check_file(const char *dir, const char *name, const char *allowed) {
  size_t len = strlen(name);
  if (!(len > 5 && (!strcmp(name + len - 5, ".comp") || !strcmp(name + len - 5, ".glsl"))))
    return 0;
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  size_t n = 0;
  char *src = tt_read_file(path, &n);
  cr_assert_not_null(src, "cannot read %s", path);
  char *code = strip_comments(src);
  int line = 1;
  for (const char *p = code; *p; p++) {
    if (*p == '\n') line++;
    if (*p != '[') continue;
    size_t al = strlen(allowed);
    bool ok = al && (size_t)(p - code) >= al && !strncmp(p - al, allowed, al);
    cr_assert(ok, "%s: line %d (comments removed): a subscript; keep state in named variables, "
              "use tm_lane / NAME_at", path, line);
  }
  free(code);
  free(src);
  return 1;
}

static int check_dir(const char *dir, const char *allowed) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "cannot open %s", dir);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += check_file(dir, e->d_name, allowed);
  closedir(d);
  return n;
}

Test(shader_rules, no_arrays_or_subscripts) {
  int ops = check_dir(TEXMEM_SOURCE_DIR "/shaders", "");
  cr_assert_geq(ops, 20, "only %d operator shaders found", ops);
  int backend = check_dir(TEXMEM_SOURCE_DIR "/gl_backend/shaders", "tm_out");
  cr_assert_geq(backend, 2);
}

/* The checker itself: a local array and a run-time lane are caught. */
Test(shader_rules, the_check_sees_arrays_and_lanes) {
  char *a = strip_comments("vec4 acc[4]; // [ in a comment\n/* [ */ x");
  cr_assert_not_null(strchr(a, '['));
  cr_assert_eq(strchr(strchr(a, '[') + 1, '['), NULL, "comments must be removed: %s", a);
  free(a);
}

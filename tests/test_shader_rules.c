/* Rules every shader of texmem keeps, checked on the sources (no GL):
 * no arrays and no subscripts in shader code. A local array, or a vector
 * indexed with a run-time value, can make a driver back it with per-thread
 * scratch memory reserved for every thread the GPU holds at once (tens of
 * MiB for one shader on a large card, whatever the model). Kernels keep
 * per-invocation state in named variables, pick lanes with tm_lane and
 * read buffers with NAME_at; only the read back writes an SSBO array.
 * Arrays declared `shared` in the same file may be subscripted: shared
 * memory is one copy per work group (the tiled convolution stages its
 * tiles there), not per-thread scratch. */
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

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The identifier ending just before p (whitespace skipped) into out. */
static void name_before(const char *code, const char *p, char *out, size_t cap) {
  while (p > code && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n')) p--;
  const char *e = p;
  while (p > code && ident_char(p[-1])) p--;
  size_t n = (size_t)(e - p) < cap - 1 ? (size_t)(e - p) : cap - 1;
  memcpy(out, p, n);
  out[n] = '\0';
}

/* Whether `name` is declared as a shared array in code: the keyword
 * `shared` (a whole word) starts a declaration whose first subscript
 * follows `name`. */
static bool declared_shared(const char *code, const char *name) {
  for (const char *p = strstr(code, "shared"); p; p = strstr(p + 6, "shared")) {
    if ((p > code && ident_char(p[-1])) || ident_char(p[6])) continue;
    const char *semi = strchr(p, ';'), *br = strchr(p, '[');
    if (!br || (semi && semi < br)) continue;
    char decl[64];
    name_before(code, br, decl, sizeof decl);
    if (!strcmp(decl, name)) return true;
  }
  return false;
}

/* The line (1-based) of the first subscript in code (comments removed)
 * on anything but a shared array of code or `allowed` ("" none); 0 if
 * none. */
static int bad_subscript_line(const char *code, const char *allowed) {
  int line = 1;
  for (const char *p = code; *p; p++) {
    if (*p == '\n') line++;
    if (*p != '[') continue;
    char name[64];
    name_before(code, p, name, sizeof name);
    if (*allowed && !strcmp(name, allowed)) continue;
    if (!*name || !declared_shared(code, name)) return line;
  }
  return 0;
}

/* Checks one file; returns 1 if it is a shader source. `allowed`: the one
 * other subscripted name the file may use ("" none). */
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
  int line = bad_subscript_line(code, allowed);
  cr_assert_eq(line, 0, "%s: line %d (comments removed): a subscript; keep state in named "
               "variables, use tm_lane / NAME_at (only shared arrays are subscripted)", path, line);
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

/* Shared arrays of the file pass; a local array, a subscript on a vector
 * or on another file's shared name does not, nor does a `shared` that is
 * part of a longer word. */
Test(shader_rules, only_shared_arrays_are_subscripted) {
  const char *ok = "shared highp vec4 xs[64];\nvoid f() { xs[1] = xs [2]; }\n";
  cr_assert_eq(bad_subscript_line(ok, ""), 0);
  const char *local = "shared highp vec4 xs[64];\nvoid f() {\n vec4 acc[4];\n}\n";
  cr_assert_eq(bad_subscript_line(local, ""), 3);
  const char *lane = "shared vec4 xs[4];\nvoid f(int k) { vec4 v; v[k] = 1.0; }\n";
  cr_assert_eq(bad_subscript_line(lane, ""), 2);
  const char *other = "void f() { ys[0] = vec4(0.0); }\n";
  cr_assert_eq(bad_subscript_line(other, ""), 1);
  const char *word = "unshared vec4 zs[4];\n";
  cr_assert_eq(bad_subscript_line(word, ""), 1);
  cr_assert_eq(bad_subscript_line("tm_out[i] = v;", "tm_out"), 0);
}

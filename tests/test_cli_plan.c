/* texmem plan, run as a program: exit codes, messages, --json structure,
 * --svg output. Inputs are small records files in a fresh temp dir. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_support.h"
#include "support.h"


static void make_tmpdir(void) { tt_tmpdir_make("texmem_cli_plan"); }

TestSuite(cli_plan, .init = make_tmpdir, .fini = tt_tmpdir_remove);

static void write_file(const char *name, const char *text) {
  tt_tmp_write(name, text, strlen(text));
}

/* Four 2-D tensors over tasks 0..4; 0 and 2 may share, 1 and 3 may share. */
static const char good2d[] =
    "# id first last w h\n"
    "0 0 1 8 8\n"
    "1 1 2 4 16\n"
    "2 2 3 8 4\n"
    "\n"
    "3 3 4 4 8\n";
static const char good1d[] =
    "0 0 1 1024\n"
    "1 1 2 512\n"
    "2 2 3 2048\n"
    "3 3 4 256\n"
    "4 0 4 64\n";


Test(cli_plan, help_exits_zero) {
  tt_run r = tt_texmem("plan", "--help", NULL);
  cr_expect_eq(r.code, 0);
  cr_expect_not_null(strstr(r.out, "usage: texmem plan"));
  cr_expect_not_null(strstr(r.out, "greedy_by_size"));
  tt_run_free(&r);
}

Test(cli_plan, good_2d_table) {
  write_file("good2d.txt", good2d);
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("good2d.txt"), NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "4 tensors, 2-D"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "positional_max"));
  cr_expect_not_null(strstr(r.out, "naive"));
  cr_expect_not_null(strstr(r.out, "best ("));
  /* The smallest plan of each kind is starred. */
  cr_expect_eq(r.out[strcspn(r.out, "*")], '*');
  tt_run_free(&r);
}

Test(cli_plan, good_1d_single_strategy) {
  write_file("good1d.txt", good1d);
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("good1d.txt"), "--kind", "objects", "--strategy",
                      "naive", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "5 tensors, 1-D"), "%s", r.out);
  /* Naive: one object per tensor, total = sum of sizes. */
  cr_expect_not_null(strstr(r.out, "3904"), "%s", r.out);
  cr_expect_null(strstr(r.out, "offsets"));
  tt_run_free(&r);
}

Test(cli_plan, bad_flags_exit_2) {
  write_file("good2d.txt", good2d);
  const char *f = tt_tmp_path("good2d.txt");
  tt_run r = tt_texmem("plan", "--records", f, "--bogus", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "--bogus"), "%s", r.err);
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", f, "--kind", "textures", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "textures"), "%s", r.err);
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", f, "--strategy", "fastest", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "fastest"), "%s", r.err);
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", f, "--align", "-4", NULL);
  cr_expect_eq(r.code, 2);
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", f, "--max-dims", "1,2,3,4", NULL);
  cr_expect_eq(r.code, 2);
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", NULL);
  cr_expect_eq(r.code, 2);
  tt_run_free(&r);
  r = tt_texmem("plan", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "--records"), "%s", r.err);
  tt_run_free(&r);
}

Test(cli_plan, missing_file_exit_2) {
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("does_not_exist.txt"), NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "does_not_exist.txt"), "%s", r.err);
  cr_expect_eq(r.out[0], 0, "nothing on stdout: %s", r.out);
  tt_run_free(&r);
}

Test(cli_plan, malformed_line_exit_2_names_line) {
  write_file("bad.txt", "0 0 1 8 8\n1 1 2 4 16\n2 2 x 8 4\n");
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("bad.txt"), NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "line 3"), "%s", r.err);
  cr_expect_eq(r.out[0], 0);
  tt_run_free(&r);
}

Test(cli_plan, limits_too_small_exit_2) {
  write_file("good2d.txt", good2d);
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("good2d.txt"), "--max-dims", "4,64", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "exceeds"), "%s", r.err);
  cr_expect_eq(r.out[0], 0);
  tt_run_free(&r);
}

Test(cli_plan, unsupported_named_strategy_exit_2) {
  write_file("good2d.txt", good2d);
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("good2d.txt"), "--kind", "objects", "--strategy",
                      "exact", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "exact"), "%s", r.err);
  tt_run_free(&r);
  write_file("good1d.txt", good1d);
  r = tt_texmem("plan", "--records", tt_tmp_path("good1d.txt"), "--layout", "linear", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "linear"), "%s", r.err);
  tt_run_free(&r);
}

/* --kind offsets --layout linear: the GPU arena, offsets in rows. */
Test(cli_plan, arena_offsets_in_rows) {
  tt_run r = tt_texmem("plan", "--records", TEXMEM_TEST_DATA "/pose_landmark_lite.3d.txt", "--kind",
                      "offsets", "--layout", "linear", "--strategy", "exact", NULL);
  cr_assert_eq(r.code, 0, "%s", r.err);
  cr_expect_not_null(strstr(r.out, "offsets linear/2048"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "436224"), "%s", r.out); /* 213 rows x 2048 */
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", TEXMEM_TEST_DATA "/pose_landmark_lite.3d.txt", "--kind", "offsets",
               "--layout", "linear", "--strategy", "exact", "--json", NULL);
  cr_assert_eq(r.code, 0, "%s", r.err);
  cr_expect_not_null(strstr(r.out, "\"kind\": \"offsets\", \"layout\": \"linear\", "
                                   "\"linear_width\": 2048"),
                     "%s", r.out);
  tt_run_free(&r);
}

/* ---- a small JSON reader: enough to check structure and key order ---- */
typedef struct jp {
  const char *s;
  bool ok;
} jp;

static void ws(jp *p) {
  while (*p->s == ' ' || *p->s == '\n' || *p->s == '\t' || *p->s == '\r') p->s++;
}
static bool lit(jp *p, char c) {
  ws(p);
  if (*p->s != c) return p->ok = false;
  p->s++;
  return true;
}
/* Copies a string (no escapes needed by this output) into buf. */
static void jstr(jp *p, char *buf, size_t len) {
  if (!lit(p, '"')) return;
  size_t k = 0;
  while (*p->s && *p->s != '"') {
    if (*p->s == '\\' || (unsigned char)*p->s < 0x20) {
      p->ok = false;
      return;
    }
    if (k + 1 < len) buf[k++] = *p->s;
    p->s++;
  }
  buf[k] = 0;
  if (*p->s != '"') p->ok = false;
  else p->s++;
}
static double jnum(jp *p) {
  ws(p);
  char *end;
  double v = strtod(p->s, &end);
  if (end == p->s || *p->s == '+' || *p->s == '.') p->ok = false;
  p->s = end;
  return v;
}
static void jvalue(jp *p);
/* Skips a value of any type. */
static void jvalue(jp *p) {
  ws(p);
  char tmp[256];
  if (*p->s == '{') {
    p->s++;
    ws(p);
    if (*p->s == '}') { p->s++; return; }
    do { jstr(p, tmp, sizeof tmp); lit(p, ':'); jvalue(p); ws(p); } while (p->ok && *p->s == ',' && p->s++);
    lit(p, '}');
  } else if (*p->s == '[') {
    p->s++;
    ws(p);
    if (*p->s == ']') { p->s++; return; }
    do { jvalue(p); ws(p); } while (p->ok && *p->s == ',' && p->s++);
    lit(p, ']');
  } else if (*p->s == '"') {
    jstr(p, tmp, sizeof tmp);
  } else if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "null", 4)) {
    p->s += 4;
  } else if (!strncmp(p->s, "false", 5)) {
    p->s += 5;
  } else {
    jnum(p);
  }
}

static void expect_key(jp *p, const char *want) {
  char k[64];
  jstr(p, k, sizeof k);
  cr_assert(p->ok, "JSON: expected key \"%s\" near: %.40s", want, p->s);
  cr_assert_str_eq(k, want, "JSON key order");
  lit(p, ':');
}

/* Checks the whole --json document; returns the number of results. Offsets
 * must be multiples of align. */
static size_t check_json(const char *text, size_t nrec, unsigned dims, unsigned align) {
  jp p = {text, true};
  lit(&p, '{');
  expect_key(&p, "records");
  cr_assert_eq((size_t)jnum(&p), nrec);
  lit(&p, ',');
  expect_key(&p, "dims");
  cr_assert_eq((unsigned)jnum(&p), dims);
  lit(&p, ',');
  expect_key(&p, "lower_bounds");
  lit(&p, '{');
  expect_key(&p, "max_live");
  double max_live = jnum(&p);
  lit(&p, ',');
  expect_key(&p, "positional_max");
  double pmax = jnum(&p);
  lit(&p, '}');
  cr_assert_gt(max_live, 0);
  cr_assert_geq(pmax, max_live);
  lit(&p, ',');
  expect_key(&p, "results");
  lit(&p, '[');
  size_t nres = 0;
  ws(&p);
  while (p.ok && *p.s == '{') {
    char kind[32], layout[32], strategy[64], chosen[64];
    lit(&p, '{');
    expect_key(&p, "kind");
    jstr(&p, kind, sizeof kind);
    cr_assert(!strcmp(kind, "objects") || !strcmp(kind, "offsets"), "kind %s", kind);
    lit(&p, ',');
    expect_key(&p, "layout");
    jstr(&p, layout, sizeof layout);
    cr_assert(!strcmp(layout, "natural") || !strcmp(layout, "linear"), "layout %s", layout);
    lit(&p, ',');
    if (!strcmp(layout, "linear")) {
      expect_key(&p, "linear_width");
      cr_assert_gt(jnum(&p), 0);
      lit(&p, ',');
    }
    expect_key(&p, "strategy");
    jstr(&p, strategy, sizeof strategy);
    texmem_strategy s;
    cr_assert(texmem_strategy_from_name(strategy, &s), "strategy %s", strategy);
    lit(&p, ',');
    ws(&p);
    if (!strncmp(p.s, "\"outcome\"", 9)) { /* a strategy best skipped, or one that failed */
      char outcome[32], reason[256];
      expect_key(&p, "outcome");
      jstr(&p, outcome, sizeof outcome);
      cr_assert(!strcmp(outcome, "skipped") || !strcmp(outcome, "failed"), "outcome %s", outcome);
      cr_assert_neq(s, TEXMEM_STRATEGY_BEST);
      lit(&p, ',');
      expect_key(&p, "reason");
      jstr(&p, reason, sizeof reason);
      cr_assert_gt(strlen(reason), 0);
      lit(&p, '}');
      nres++;
      ws(&p);
      if (*p.s == ',') p.s++;
      ws(&p);
      continue;
    }
    if (s == TEXMEM_STRATEGY_BEST) {
      expect_key(&p, "chosen");
      jstr(&p, chosen, sizeof chosen);
      cr_assert(texmem_strategy_from_name(chosen, NULL), "chosen %s", chosen);
      lit(&p, ',');
    }
    expect_key(&p, "total");
    double total = jnum(&p);
    cr_assert_geq(total, strcmp(kind, "objects") ? max_live : pmax);
    lit(&p, ',');
    expect_key(&p, "objects");
    double objects = jnum(&p);
    cr_assert_geq(objects, 1);
    lit(&p, ',');
    expect_key(&p, "time_us");
    cr_assert_geq(jnum(&p), 0);
    lit(&p, ',');
    expect_key(&p, "valid");
    ws(&p);
    cr_assert_eq(strncmp(p.s, "true", 4), 0);
    p.s += 4;
    lit(&p, ',');
    if (!strcmp(kind, "offsets")) { /* the proof status: optimal, bound <= total */
      expect_key(&p, "optimal");
      ws(&p);
      bool opt = !strncmp(p.s, "true", 4);
      cr_assert(opt || !strncmp(p.s, "false", 5), "optimal: %.10s", p.s);
      p.s += opt ? 4 : 5;
      lit(&p, ',');
      expect_key(&p, "bound");
      double bound = jnum(&p);
      cr_assert_leq(bound, total);
      cr_assert_geq(bound, max_live);
      if (opt) cr_assert_eq(bound, total);
      lit(&p, ',');
    }
    ws(&p);
    if (!strncmp(p.s, "\"fits\"", 6)) { /* --budget */
      expect_key(&p, "fits");
      ws(&p);
      cr_assert(!strncmp(p.s, "true", 4) || !strncmp(p.s, "false", 5) || !strncmp(p.s, "null", 4),
                "fits: %.10s", p.s);
      p.s += *p.s == 'f' ? 5 : 4;
      lit(&p, ',');
    }
    if (s == TEXMEM_STRATEGY_BEST) { /* the strategies best skipped for its budget */
      expect_key(&p, "skipped");
      lit(&p, '[');
      ws(&p);
      while (p.ok && *p.s == '"') {
        char name[64];
        jstr(&p, name, sizeof name);
        cr_assert(texmem_strategy_from_name(name, NULL), "skipped %s", name);
        ws(&p);
        if (*p.s == ',') p.s++;
        ws(&p);
      }
      lit(&p, ']');
      lit(&p, ',');
    }
    expect_key(&p, "assignment");
    lit(&p, '[');
    size_t len = 0;
    ws(&p);
    while (p.ok && *p.s != ']') {
      double v = jnum(&p);
      if (!strcmp(kind, "objects")) {
        cr_assert_lt(v, objects);
      } else {
        cr_assert_lt(v, total);
        cr_assert_eq((unsigned long long)v % align, 0, "offset %.0f not aligned to %u", v, align);
      }
      len++;
      ws(&p);
      if (*p.s == ',') p.s++;
    }
    lit(&p, ']');
    cr_assert_eq(len, nrec, "assignment length");
    lit(&p, '}');
    nres++;
    ws(&p);
    if (*p.s == ',') p.s++;
    ws(&p);
  }
  lit(&p, ']');
  lit(&p, '}');
  ws(&p);
  cr_assert(p.ok, "JSON malformed near: %.60s", p.s);
  cr_assert_eq(*p.s, 0, "trailing text: %.40s", p.s);
  /* And the generic reader accepts it too. */
  jp q = {text, true};
  jvalue(&q);
  cr_assert(q.ok);
  return nres;
}

Test(cli_plan, json_structure_2d) {
  write_file("good2d.txt", good2d);
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("good2d.txt"), "--json", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  size_t nres = check_json(r.out, 4, 2, 1);
  cr_expect_geq(nres, 2); /* naive objects and best objects at least */
  tt_run_free(&r);
}

Test(cli_plan, json_structure_1d_offsets) {
  write_file("good1d.txt", good1d);
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("good1d.txt"), "--json", "--kind", "all", "--align",
                      "64", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  check_json(r.out, 5, 1, 64);
  cr_expect_not_null(strstr(r.out, "\"kind\": \"offsets\""));
  tt_run_free(&r);
}

Test(cli_plan, json_selfie_all_strategies) {
  tt_run r = tt_texmem("plan", "--records", TEXMEM_TEST_DATA "/selfie_segmentation.2d.txt", "--json",
                      NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  check_json(r.out, 135, 2, 1);
  tt_run_free(&r);
}

static size_t count(const char *hay, const char *needle) {
  size_t c = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) c++;
  return c;
}

Test(cli_plan, svg_objects) {
  write_file("good2d.txt", good2d);
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("good2d.txt"), "--svg", tt_tmp_path("out.svg"), NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  char *svg = tt_read_file(tt_tmp_path("out.svg"), NULL);
  cr_expect_not_null(strstr(svg, "<svg"));
  cr_expect_not_null(strstr(svg, "viewBox=\"0 0 "));
  cr_expect_geq(count(svg, "<rect"), 4);
  cr_expect_eq(count(svg, "<title>tensor "), 4);
  cr_expect_not_null(strstr(svg, "</svg>"));
  free(svg);
  tt_run_free(&r);
}

Test(cli_plan, svg_offsets_300ish_tensors) {
  tt_run r = tt_texmem("plan", "--records", TEXMEM_TEST_DATA "/selfie_segmentation.1d.txt", "--kind",
                      "offsets", "--svg", tt_tmp_path("off.svg"), NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  char *svg = tt_read_file(tt_tmp_path("off.svg"), NULL);
  cr_expect_not_null(strstr(svg, "<svg"));
  cr_expect_geq(count(svg, "<rect"), 135);
  cr_expect_eq(count(svg, "<title>tensor "), 135);
  cr_expect_not_null(strstr(svg, "max_live"));
  free(svg);
  tt_run_free(&r);
}

Test(cli_plan, svg_unwritable_path_fails) {
  write_file("good2d.txt", good2d);
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("good2d.txt"), "--svg",
                      "/nonexistent_dir_texmem/out.svg", NULL);
  cr_expect_neq(r.code, 0);
  cr_expect_not_null(strstr(r.err, "nonexistent_dir_texmem"), "%s", r.err);
  tt_run_free(&r);
}

Test(cli_plan, svg_escapes_text) {
  write_file("a&b<c>.txt", good2d);
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("a&b<c>.txt"), "--kind", "objects", "--strategy",
                      "naive", "--svg", tt_tmp_path("esc.svg"), NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  char *svg = tt_read_file(tt_tmp_path("esc.svg"), NULL);
  cr_expect_not_null(strstr(svg, "a&amp;b&lt;c&gt;.txt"));
  cr_expect_null(strstr(svg, "a&b"));
  cr_expect_null(strstr(svg, "<c>"));
  free(svg);
  tt_run_free(&r);
}

/* IO errors carry the system's reason: plan (the records loader) and
 * records (the model reader says only "read error"; the command adds why). */
Test(cli_plan, read_errors_say_why) {
  tt_run r = tt_texmem("plan", "--records", tt_tmpdir(), NULL);
  cr_assert_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "Is a directory"), "%s", r.err);
  tt_run_free(&r);
  r = tt_texmem("records", tt_tmpdir(), NULL);
  if (!strstr(r.err, "texmem records:")) { /* built without the model reader */
    tt_run_free(&r);
    cr_skip_test("texmem records is not built");
  }
  cr_assert_eq(r.code, 2, "%s", r.err);
  cr_expect_not_null(strstr(r.err, "Is a directory"), "%s", r.err);
  tt_run_free(&r);
}

/* Sizes the README accepts (up to 2^63, sums within 64 bits) but above
 * min_cost_flow's 2^61 total: its row says so, every other row prints, and
 * the command succeeds. */
Test(cli_plan, strategy_all_reports_a_failing_strategy_in_its_row) {
  write_file("huge.txt", "0 0 1 4611686018427387904\n1 1 2 4611686018427387904\n"
                         "2 3 4 2305843009213693952\n");
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("huge.txt"), NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "min_cost_flow"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "failed: TEXMEM_STATUS_OVERFLOW"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "local_search"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "best (greedy_in_order)"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "9223372036854775808"), "%s", r.out);
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", tt_tmp_path("huge.txt"), "--json", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  check_json(r.out, 3, 1, 1);
  cr_expect_not_null(strstr(r.out, "\"outcome\": \"failed\""), "%s", r.out);
  tt_run_free(&r);
}

Test(cli_plan, time_budget_flag) {
  /* 400 tensors, 1 ms budget: past local_search's limit (10 000 scaled by
   * sqrt(1 / 2000): 223) and greedy_by_size's estimate (3.2 ms); within
   * min_cost_flow's (447). */
  FILE *f = fopen(tt_tmp_path("many.txt"), "w");
  cr_assert_not_null(f);
  for (int i = 0; i < 400; i++) fprintf(f, "%d %d %d %d\n", i, i, i + 1 + i % 3, 16 + (i * 37) % 500);
  cr_assert_eq(fclose(f), 0);
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("many.txt"), "--time-budget-ms", "1", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "local_search               objects natural      skipped: 400 tensors"),
                     "%s", r.out);
  cr_expect_not_null(strstr(r.out, "best objects natural skipped local_search"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "best offsets natural skipped strip_best_fit"), "%s", r.out);
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", tt_tmp_path("many.txt"), "--time-budget-ms", "1", "--strategy", "best",
               "--json", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_assert_eq(check_json(r.out, 400, 1, 1), 2);
  /* (min_cost_flow may join them when the 1 ms are spent before it, as
   * under sanitizers or valgrind) */
  cr_expect_not_null(strstr(r.out, "\"skipped\": [\"greedy_by_size\", "), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "\"local_search\"]"), "%s", r.out);
  tt_run_free(&r);
  /* The default budget runs them all on 400 tensors. */
  r = tt_texmem("plan", "--records", tt_tmp_path("many.txt"), "--strategy", "best", "--json", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "\"skipped\": []"), "%s", r.out);
  tt_run_free(&r);
  const char *bad[] = {"0", "-5", "1.5", "x", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    r = tt_texmem("plan", "--records", tt_tmp_path("many.txt"), "--time-budget-ms", bad[i], NULL);
    cr_expect_eq(r.code, 2, "--time-budget-ms '%s'", bad[i]);
    tt_run_free(&r);
  }
}

/* The default (--strategy all) keeps to the budget at any size: a strategy
 * best does not weigh (tflm_greedy) past its size limit for the budget
 * (10 000 tensors for 2 s, scaled by sqrt(budget / 2 s): 224 for 1 ms) gets
 * a skipped row saying why; named, it runs. */
Test(cli_plan, strategy_all_skips_tflm_greedy_past_its_limit) {
  FILE *f = fopen(tt_tmp_path("300.txt"), "w");
  cr_assert_not_null(f);
  for (int i = 0; i < 300; i++) fprintf(f, "%d %d %d %d\n", i, i, i + 1 + i % 5, 32 + (i * 53) % 700);
  cr_assert_eq(fclose(f), 0);
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("300.txt"), "--kind", "offsets",
                      "--time-budget-ms", "1", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "tflm_greedy                offsets arena        skipped: 300 "
                                   "tensors: over its limit of 224 for a 1 ms budget"),
                     "%s", r.out);
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", tt_tmp_path("300.txt"), "--kind", "offsets", "--time-budget-ms",
               "1", "--json", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "\"strategy\": \"tflm_greedy\", \"outcome\": \"skipped\""), "%s",
                     r.out);
  tt_run_free(&r);
  /* Under the default budget 300 tensors are well within it. */
  r = tt_texmem("plan", "--records", tt_tmp_path("300.txt"), "--kind", "offsets", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_null(strstr(r.out, "skipped"), "%s", r.out);
  tt_run_free(&r);
  /* Named, it runs whatever the budget. */
  r = tt_texmem("plan", "--records", tt_tmp_path("300.txt"), "--kind", "offsets", "--strategy",
               "tflm_greedy", "--time-budget-ms", "1", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_null(strstr(r.out, "skipped"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "tflm_greedy                offsets arena     "), "%s", r.out);
  tt_run_free(&r);
}

Test(cli_plan, budget_exit_codes) {
  /* max_live 270, met by a plan: 270 fits, 269 is proven not to. */
  write_file("budget.txt", "0 0 3 100\n1 2 5 100\n2 4 6 50\n3 1 2 70\n");
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("budget.txt"), "--budget", "270", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "budget 270: fits"), "%s", r.out);
  cr_expect_null(strstr(r.out, "objects natural"), "--budget plans offsets only: %s", r.out);
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", tt_tmp_path("budget.txt"), "--budget", "269", "--strategy", "exact",
               "--json", "--node-budget", "10", "--time-budget-ms", "1000", NULL);
  cr_assert_eq(r.code, 3, "stderr: %s", r.err);
  cr_assert_eq(check_json(r.out, 4, 1, 1), 1);
  cr_expect_not_null(strstr(r.out, "\"optimal\": true, \"bound\": 270, \"fits\": false"), "%s",
                     r.out);
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", tt_tmp_path("budget.txt"), "--budget", "300", "--json", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "\"fits\": true"), "%s", r.out);
  tt_run_free(&r);
  /* bad input: objects, zero, not a number, a zero node budget */
  static const char *const bad[][2] = {
      {"--kind", "objects"}, {"--budget", "0"}, {"--budget", "x"}, {"--node-budget", "0"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    r = tt_texmem("plan", "--records", tt_tmp_path("budget.txt"), "--budget", "100", bad[i][0], bad[i][1],
                 NULL);
    cr_expect_eq(r.code, 2, "%s %s: %d", bad[i][0], bad[i][1], r.code);
    cr_expect_gt(strlen(r.err), 0);
    tt_run_free(&r);
  }
}

Test(cli_plan, budget_unknown_exit_code) {
  /* The optimum is 220 (exact, unbounded, proves it) and equals max_live, so
   * no bound can say "does not fit"; every heuristic needs 230 or more, and
   * one search node cannot reach a 9-tensor plan: the answer is unknown. */
  write_file("unknown.txt", "0 4 5 80\n1 3 3 10\n2 0 2 120\n3 3 4 50\n4 6 9 30\n5 5 8 70\n"
                            "6 6 9 40\n7 1 4 10\n8 2 4 80\n");
  tt_run r = tt_texmem("plan", "--records", tt_tmp_path("unknown.txt"), "--kind", "offsets", "--strategy",
                      "exact", "--json", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "\"total\": 220"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "\"optimal\": true"), "%s", r.out);
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", tt_tmp_path("unknown.txt"), "--budget", "220", "--node-budget", "1", NULL);
  cr_assert_eq(r.code, 4, "exit %d, stdout: %s stderr: %s", r.code, r.out, r.err);
  cr_expect_not_null(strstr(r.out, "budget 220: unknown"), "%s", r.out);
  tt_run_free(&r);
  r = tt_texmem("plan", "--records", tt_tmp_path("unknown.txt"), "--budget", "220", "--strategy", "exact",
               "--node-budget", "1", "--json", NULL);
  cr_assert_eq(r.code, 4, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "\"fits\": null"), "%s", r.out);
  tt_run_free(&r);
}

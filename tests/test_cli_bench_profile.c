/* texmem bench --profile, run as a program on the built-in MobileNet v2:
 * per storage, the dispatches' GPU times add up to within 10% of the run's
 * GPU time (queries of its own), the tables per operator type and per
 * kernel add up to the dispatches, the slowest dispatches come slowest
 * first; the text report has the tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_json.h"
#include "cli_support.h"
#include "support.h"

static void make_tmpdir(void) { tt_tmpdir_make("texmem_cli_bench_profile"); }

TestSuite(cli_bench_profile, .init = make_tmpdir, .fini = tt_tmpdir_remove, .timeout = 300);

/* --profile: per storage, the dispatches' GPU times add up to within 10%
 * of the run's GPU time (measured by queries of its own), and the tables
 * per operator type and per kernel add up to the dispatches. */
Test(cli_bench_profile, profile_json) {
  tt_run r = tt_texmem("bench", "--runs", "2", "--profile", "--json", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "\"outputs_identical\": true"), "%s", r.out);
  if (strstr(r.out, "\"profile\": null")) {
    /* Only a driver without timer queries, saying so. */
    cr_expect_not_null(strstr(r.out, "\"profile_note\": \"no GPU timer queries"), "%s", r.out);
    tt_run_free(&r);
    return;
  }
  cr_expect_not_null(strstr(r.out, "\"timer\": \"GL_EXT_disjoint_timer_query"), "%s", r.out);
  for (int s = 0; s < 4; s++) {
    const char *at = storage_at(r.out, "profile", bench_storages[s]);
    cr_assert(strncmp(at + strlen(bench_storages[s]) + 4, "null", 4) != 0,
              "%s: every run disjoint: %s", bench_storages[s], r.out);
    double run = json_num(at, NULL, "run_gpu_ns"), sum = json_num(at, NULL, "dispatch_gpu_ns");
    double cpu = json_num(at, NULL, "cpu_submit_ns"), n = json_num(at, NULL, "dispatches");
    cr_expect_gt(run, 0, "%s", bench_storages[s]);
    const char *name = bench_storages[s];
    cr_expect_geq(sum, 0.9 * run, "%s: dispatches %.0f ns, run %.0f ns", name, sum, run);
    cr_expect_leq(sum, 1.1 * run, "%s: dispatches %.0f ns, run %.0f ns", name, sum, run);
    cr_expect_gt(cpu, 0);
    if (s > 0) /* a planned storage: as many as its run counted (fusion may differ) */
      cr_expect_eq(n, json_num(r.out, "\"dispatches\"", name), "%s", name);
    else
      cr_expect_gt(n, 0);
    size_t k = 0;
    double by_type = array_sum(at, "by_op_type", "gpu_ns", &k);
    cr_expect_gt(k, 1, "MobileNet has several operator types");
    double by_type_n = array_sum(at, "by_op_type", "dispatches", &k);
    double by_kernel = array_sum(at, "by_kernel", "gpu_ns", &k);
    double by_kernel_cpu = array_sum(at, "by_kernel", "cpu_submit_ns", &k);
    cr_expect_eq(by_type, sum, "%s", bench_storages[s]);
    cr_expect_eq(by_kernel, sum, "%s", bench_storages[s]);
    cr_expect_eq(by_kernel_cpu, cpu, "%s", bench_storages[s]);
    cr_expect_eq(by_type_n, n, "%s", bench_storages[s]);
    /* The slowest single dispatches: 8 (MobileNet has more), each once,
     * slowest first, none slower than its kernel's sum. */
    double slow_n = array_sum(at, "slowest_dispatches", "dispatches", &k);
    cr_expect_eq(k, 8, "%s", name);
    cr_expect_eq(slow_n, 8, "%s", name);
    const char *sl = strstr(at, "\"slowest_dispatches\": ["), *end = strchr(sl, ']');
    double prev = -1;
    for (const char *q = strstr(sl, "\"gpu_ns\": "); q && q < end; q = strstr(q + 1, "\"gpu_ns\": ")) {
      double g = strtod(q + 10, NULL);
      if (prev >= 0) cr_expect_leq(g, prev, "%s: not slowest first", name);
      prev = g;
    }
    cr_expect_not_null(strstr(sl, "\"name\": \"op "), "%s", name);
    /* Every dispatch in run order, each its median (of 2 runs: the
     * smaller) time: as many as the run's, summing to no more than the
     * median run's dispatches, operator indices rising. */
    double every = array_sum(at, "every_dispatch", "gpu_ns", &k);
    cr_expect_eq((double)k, n, "%s", name);
    /* Work groups: every dispatch launched some, its kernel's and its
     * type's sums are theirs, and no group is empty. */
    double every_wg = array_sum(at, "every_dispatch", "work_groups", &k);
    double every_inv = array_sum(at, "every_dispatch", "invocations", &k);
    cr_expect_geq(every_wg, n, "%s", name);
    cr_expect_geq(every_inv, every_wg, "%s", name);
    cr_expect_eq(array_sum(at, "by_kernel", "work_groups", &k), every_wg, "%s", name);
    cr_expect_eq(array_sum(at, "by_op_type", "invocations", &k), every_inv, "%s", name);
    for (const char *q = strstr(at, "\"work_groups\": "); q && q < strstr(at, "\"every_dispatch\"");
         q = strstr(q + 1, "\"work_groups\": "))
      cr_expect_gt(strtod(q + 15, NULL), 0, "%s: a dispatch of no work group", name);
    cr_expect_leq(every, sum, "%s", name);
    cr_expect_gt(every, 0, "%s", name);
    const char *ev = strstr(at, "\"every_dispatch\": ["), *eend = strchr(ev, ']');
    long prev_op = -1;
    for (const char *q = strstr(ev, "\"name\": \"op "); q && q < eend;
         q = strstr(q + 1, "\"name\": \"op ")) {
      long op = strtol(q + 12, NULL, 10);
      cr_expect_geq(op, prev_op, "%s: every_dispatch out of order", name);
      prev_op = op;
    }
  }
  cr_expect_not_null(strstr(r.out, "\"name\": \"CONV_2D\""), "%s", r.out);
  /* AUTO picks the 1x1 kernel by driver (the tiled one on a GPU). */
  cr_expect(strstr(r.out, "\"name\": \"op_conv1x1.comp\"") ||
                strstr(r.out, "\"name\": \"op_conv1x1_tiled.comp\""),
            "%s", r.out);
  tt_run_free(&r);
}

Test(cli_bench_profile, profile_report_text) {
  tt_run r = tt_texmem("bench", "--runs", "1", "--profile", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  if (strstr(r.out, "profile:      none: ")) {
    cr_expect_not_null(strstr(r.out, "no GPU timer queries"), "%s", r.out);
  } else {
    cr_expect_not_null(strstr(r.out, "by operator type"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "by kernel"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "slowest dispatches"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "work groups\n"), "%s", r.out);
    for (int s = 0; s < 4; s++) {
      char want[32];
      snprintf(want, sizeof want, "\n  %s: run ", bench_storages[s]);
      cr_expect_not_null(strstr(r.out, want), "%s", r.out);
    }
  }
  /* Driver memory: the driver's figures or a plain "no query". */
  cr_expect_not_null(strstr(r.out, "\ndriver memory: "), "%s", r.out);
  tt_run_free(&r);
}

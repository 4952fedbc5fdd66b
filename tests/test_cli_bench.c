/* texmem bench, run as a program: the built-in MobileNet v2 and the four
 * MediaPipe models end to end on the GL runtime (planned outputs must be
 * bit-identical to naive ones), --json keys, driver memory, and bad input
 * (--profile: test_cli_bench_profile). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_json.h"
#include "cli_support.h"
#include "support.h"

static void make_tmpdir(void) { tt_tmpdir_make("texmem_cli_bench"); }

TestSuite(cli_bench, .init = make_tmpdir, .fini = tt_tmpdir_remove, .timeout = 300);

/* driver_bytes: null with the reason, or per storage the driver's
 * figures, the rest being the difference less the planned bytes. */
static void check_driver_bytes(const char *json) {
  if (strstr(json, "\"driver_bytes\": null")) {
    cr_expect_not_null(strstr(json, "\"driver_note\": \"driver memory: no query on this driver ("),
                       "%s", json);
    return;
  }
  for (int s = 0; s < 4; s++) {
    const char *at = storage_at(json, "driver_bytes", bench_storages[s]);
    if (!strncmp(at + strlen(bench_storages[s]) + 4, "null", 4)) continue;
    double before = json_num(at, NULL, "before"), after = json_num(at, NULL, "after");
    double delta = json_num(at, NULL, "delta"), rest = json_num(at, NULL, "rest");
    const char *pl = storage_at(json, "planned_bytes", bench_storages[s]);
    double planned = json_num(pl, NULL, "textures") + json_num(pl, NULL, "graph_io") +
                     json_num(pl, NULL, "weights");
    cr_expect_eq(delta, after - before, "%s", json);
    cr_expect_eq(rest, delta - planned, "%s", json);
  }
}

/* Checks one --json report: keys, identical outputs, memory ordering. */
static void check_report(const char *json) {
  static const char *const keys[] = {
      "\"model\":", "\"tasks\":", "\"tensors\":", "\"precision\":", "\"layout\":",
      "\"strategy\":", "\"storage\":", "\"texture_bytes\":", "\"weights_bytes\":",
      "\"weight_buffers\":", "\"plan_us\":", "\"pool_create_ms\":", "\"create_ms\":",
      "\"first_run_ms\":",
      "\"programs_compiled\":", "\"programs_loaded\":", "\"compile_ms\":", "\"compile_threads\":",
      "\"renders_on_cpu\":", "\"warmup_ms\":", "\"warmup_rounds\":", "\"warmup_elapsed_ms\":",
      "\"latency_ms\":", "\"layout_latency_ms\":", "\"io_ms\":",
      "\"storage_texture_bytes\":", "\"barriers\":", "\"dispatches\":", "\"storage_max_live\":",
      "\"storage_latency_ms\":",
      "\"planned_bytes\":", "\"driver_bytes\":", "\"driver_note\":", "\"profile\":",
      "\"peak_rss_bytes\":", "\"outputs_identical\":"};
  const char *prev = json;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    const char *at = strstr(json, keys[i]);
    cr_assert_not_null(at, "missing %s in %s", keys[i], json);
    cr_expect_gt(at, prev - 1, "%s out of order", keys[i]);
    prev = at;
  }
  cr_expect_not_null(strstr(json, "\"outputs_identical\": true"), "%s", json);
  double naive = json_num(json, "\"texture_bytes\"", "naive");
  double planned = json_num(json, "\"texture_bytes\"", "planned");
  double bound = json_num(json, "\"texture_bytes\"", "lower_bound");
  cr_expect_gt(naive, 0);
  cr_expect_lt(planned, naive, "%s", json);
  cr_expect_geq(planned, bound, "%s", json);
  /* A fresh context compiles (or loads from a program cache), within the
   * creation's and first runs' time. */
  double create = json_num(json, NULL, "create_ms"), first = json_num(json, NULL, "first_run_ms");
  double compile = json_num(json, NULL, "compile_ms");
  cr_expect_gt(json_num(json, NULL, "programs_compiled") + json_num(json, NULL, "programs_loaded"),
               0, "%s", json);
  cr_expect_gt(compile, 0, "%s", json);
  cr_expect_gt(first, 0, "%s", json);
  cr_expect_leq(compile, create + first, "%s", json);
  cr_expect_geq(json_num(json, NULL, "compile_threads"), 1, "%s", json);
  /* The warm-up ran rounds until its time had passed, none when it is 0. */
  double warmup = json_num(json, NULL, "warmup_ms"), rounds = json_num(json, NULL, "warmup_rounds");
  if (warmup > 0) {
    cr_expect_geq(rounds, 1, "%s", json);
    cr_expect_geq(json_num(json, NULL, "warmup_elapsed_ms"), warmup, "%s", json);
  } else {
    cr_expect_eq(rounds, 0, "%s", json);
  }
  cr_expect_gt(json_num(json, "\"latency_ms\"", "naive"), 0);
  cr_expect_gt(json_num(json, "\"latency_ms\"", "planned"), 0);
  cr_expect_gt(json_num(json, "\"layout_latency_ms\"", "natural"), 0);
  cr_expect_gt(json_num(json, "\"layout_latency_ms\"", "linear"), 0);
  /* Graph I/O through the CPU: each step of the reported runtime timed,
   * as many rounds as runs. */
  cr_expect_gt(json_num(json, "\"io_ms\"", "set_input"), 0, "%s", json);
  cr_expect_gt(json_num(json, "\"io_ms\"", "run"), 0, "%s", json);
  cr_expect_gt(json_num(json, "\"io_ms\"", "get_output"), 0, "%s", json);
  cr_expect_geq(json_num(json, "\"io_ms\"", "runs"), 1, "%s", json);
  /* Objects and both arenas side by side: each arena at least the max_live
   * of the records it planned (fused operators' inputs are not planned) and
   * within 1% of the model's own max_live, below the objects pool; all ran
   * (latencies, barriers no more than dispatches). */
  double max_live = json_num(json, "\"texture_bytes\"", "max_live");
  double objects = json_num(json, "\"storage_texture_bytes\"", "objects");
  double arena = json_num(json, "\"storage_texture_bytes\"", "arena");
  double buffer = json_num(json, "\"storage_texture_bytes\"", "buffer");
  double arena_live = json_num(json, "\"storage_max_live\"", "arena");
  double buffer_live = json_num(json, "\"storage_max_live\"", "buffer");
  cr_expect_gt(arena_live, 0);
  cr_expect_geq(arena, arena_live, "%s", json);
  cr_expect_leq(arena, max_live * 1.01, "%s", json);
  cr_expect_lt(arena, objects, "%s", json);
  cr_expect_geq(buffer, buffer_live, "%s", json);
  cr_expect_leq(buffer, max_live * 1.01, "%s", json);
  static const char *const planned_storages[] = {"objects", "arena", "buffer"};
  for (int i = 0; i < 3; i++) {
    double dispatches = json_num(json, "\"dispatches\"", planned_storages[i]);
    cr_expect_gt(dispatches, 0);
    cr_expect_leq(json_num(json, "\"barriers\"", planned_storages[i]), dispatches);
    cr_expect_gt(json_num(json, "\"storage_latency_ms\"", planned_storages[i]), 0);
  }
  check_driver_bytes(json);
  /* The reported plan is the chosen storage's, its bound that of the records
   * it planned. */
  bool is_arena = strstr(json, "\"storage\": \"arena\"") != NULL;
  bool is_buffer = strstr(json, "\"storage\": \"buffer\"") != NULL;
  cr_expect_eq(planned, is_arena ? arena : is_buffer ? buffer : objects, "%s", json);
  if (is_arena || is_buffer)
    cr_expect_eq(bound, is_arena ? arena_live : buffer_live, "arenas: the bound is max_live: %s",
                 json);
  else
    cr_expect_geq(bound, json_num(json, "\"storage_max_live\"", "objects"),
                  "objects: positional_max >= max_live: %s", json);
}

/* Also: without --profile no profile, said so; on llvmpipe there is no
 * driver memory query: driver_bytes is null and the report says so. */
Test(cli_bench, builtin_mobilenet_v2) {
  tt_run info = tt_texmem("info", "--json", NULL);
  cr_assert_eq(info.code, 0, "stderr: %s", info.err);
  bool llvmpipe = strstr(info.out, "llvmpipe") != NULL;
  bool cpu = strstr(info.out, "\"renders_on_cpu\": true") != NULL;
  cr_expect(cpu || !llvmpipe, "llvmpipe renders on the CPU: %s", info.out);
  tt_run_free(&info);
  tt_run r = tt_texmem("bench", "--runs", "1", "--json", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  check_report(r.out);
  cr_expect_not_null(strstr(r.out, cpu ? "\"renders_on_cpu\": true" : "\"renders_on_cpu\": false"),
                     "%s", r.out);
  cr_expect_eq(json_num(r.out, NULL, "warmup_ms"), cpu ? 0 : 500,
               "the default warm-up: none on a CPU renderer, 500 ms on a GPU: %s", r.out);
  cr_expect_not_null(strstr(r.out, "\"model\": \"builtin:mobilenet_v2_224\""), "%s", r.out);
  cr_expect_not_null(strstr(r.out, llvmpipe ? "\"storage\": \"arena\"" : "\"storage\": \"buffer\""),
                     "auto: the texture arena on llvmpipe, the buffer arena on a GPU: %s", r.out);
  cr_expect_not_null(strstr(r.out, "\"profile\": null,\n  \"profile_note\": \"not requested"),
                     "%s", r.out);
  cr_expect_not_null(strstr(r.out, llvmpipe ? "\"kernels\": \"portable\"" : "\"kernels\": \"tiled\""),
                     "auto: the portable 1x1 kernel on llvmpipe, the tiled one on a GPU: %s", r.out);
  if (llvmpipe) {
    cr_expect_not_null(strstr(r.out, "\"driver_bytes\": null"), "%s", r.out);
    cr_expect_not_null(
        strstr(r.out, "\"driver_note\": \"driver memory: no query on this driver (llvmpipe)\""),
        "%s", r.out);
  }
  tt_run_free(&r);
}

Test(cli_bench, builtin_report_text) {
  tt_run r = tt_texmem("bench", "--runs", "1", "--precision", "fp32", "--layout", "natural", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "~26 MB"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "bit-identical"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "storage, side by side"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "ms for the five runtimes, "), "%s", r.out);
  cr_expect_not_null(strstr(r.out, " GL programs compiled in "), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "warm-up:      "), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "CPU I/O:      through the CPU, median of 1 rounds"), "%s",
                     r.out);
  cr_expect_not_null(strstr(r.out, "arena (W "), "%s", r.out);
  cr_expect_not_null(strstr(r.out, "buffer (1 SSBO)"), "%s", r.out);
  cr_expect_not_null(strstr(r.out, " 1x1 convolutions (auto); 10 operators fused into convolutions (0 dispatches run late)"),
                     "MobileNet's 10 residual ADDs: %s", r.out);
  tt_run_free(&r);
}

/* --alone S: only S's runtime, run once, nothing timed; its planned bytes
 * are those the full bench reports for S, and its driver figure (where the
 * driver has a query) is after minus before. */
Test(cli_bench, alone_storage) {
  const char *model = TEXMEM_TEST_DATA "/face_detection_short_range.tflite";
  tt_run full = tt_texmem("bench", model, "--runs", "1", "--json", NULL);
  cr_assert_eq(full.code, 0, "stderr: %s", full.err);
  for (int s = 0; s < 4; s++) {
    tt_run r = tt_texmem("bench", model, "--alone", bench_storages[s], "--json", NULL);
    cr_assert_eq(r.code, 0, "%s: stderr: %s", bench_storages[s], r.err);
    char want[64];
    snprintf(want, sizeof want, "\"alone\": \"%s\"", bench_storages[s]);
    cr_expect_not_null(strstr(r.out, want), "%s", r.out);
    cr_expect_null(strstr(r.out, "latency_ms"), "nothing timed: %s", r.out);
    for (int o = 0; o < 4; o++) {
      snprintf(want, sizeof want, "\"%s\": ", bench_storages[o]);
      cr_expect_eq(strstr(r.out, want) != NULL, o == s, "only %s: %s", bench_storages[s], r.out);
    }
    static const char *const parts[] = {"textures", "graph_io", "weights"};
    const char *a = storage_at(r.out, "planned_bytes", bench_storages[s]);
    const char *f = storage_at(full.out, "planned_bytes", bench_storages[s]);
    for (int k = 0; k < 3; k++)
      cr_expect_eq(json_num(a, NULL, parts[k]), json_num(f, NULL, parts[k]), "%s %s: %s",
                   bench_storages[s], parts[k], r.out);
    cr_expect_gt(json_num(a, NULL, "textures"), 0, "%s", r.out);
    if (strstr(r.out, "\"driver_bytes\": null")) {
      cr_expect_not_null(strstr(r.out, "\"driver_note\": \"driver memory: no query"), "%s", r.out);
    } else {
      const char *d = storage_at(r.out, "driver_bytes", bench_storages[s]);
      cr_expect_eq(json_num(d, NULL, "delta"),
                   json_num(d, NULL, "after") - json_num(d, NULL, "before"), "%s", r.out);
    }
    tt_run_free(&r);
  }
  tt_run_free(&full);
  tt_run r = tt_texmem("bench", model, "--alone", "heap", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "unknown storage 'heap'"), "%s", r.err);
  tt_run_free(&r);
}

/* --program-cache DIR: the first process compiles and stores every
 * program, the second loads them all and compiles none, with the same
 * bit-identical outputs; a missing directory is bad input. */
Test(cli_bench, program_cache_directory) {
  const char *model = TEXMEM_TEST_DATA "/face_detection_short_range.tflite";
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", tt_tmp_path("programs"));
  cr_assert_eq(mkdir(dir, 0700), 0, "%s", dir);
  /* A driver without program binaries (Mesa's with its disk cache off)
   * compiles in both processes. */
  tt_run info = tt_texmem("info", "--json", NULL);
  cr_assert_eq(info.code, 0, "%s", info.err);
  bool binaries = json_num(info.out, NULL, "program_binary_formats") > 0;
  tt_run_free(&info);
  double compiled = 0;
  for (int k = 0; k < 2; k++) {
    tt_run r = tt_texmem("bench", model, "--runs", "1", "--json", "--program-cache", dir, NULL);
    cr_assert_eq(r.code, 0, "run %d: stderr: %s", k, r.err);
    check_report(r.out);
    double c = json_num(r.out, NULL, "programs_compiled");
    double l = json_num(r.out, NULL, "programs_loaded");
    if (k == 0 || !binaries) {
      cr_expect_gt(c, 0, "%s", r.out);
      cr_expect_eq(l, 0, "%s", r.out);
      compiled = c;
    } else {
      cr_expect_eq(c, 0, "the second process compiles nothing: %s", r.out);
      cr_expect_eq(l, compiled, "%s", r.out);
    }
    tt_run_free(&r);
  }
  tt_run r = tt_texmem("bench", model, "--program-cache", tt_tmp_path("none"), NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "not a directory"), "%s", r.err);
  tt_run_free(&r);
}

/* --compile-threads N: the runtimes' programs compiled on one thread or
 * on four (each extra one with a context sharing the runtime's), the same
 * programs and the same outputs; 0 or more than 16 is bad input. */
Test(cli_bench, compile_threads) {
  const char *model = TEXMEM_TEST_DATA "/face_detection_short_range.tflite";
  char fnv[2][17] = {"", ""};
  double compiled[2] = {0, 0};
  const char *const n[2] = {"1", "4"};
  for (int k = 0; k < 2; k++) {
    tt_run r = tt_texmem("bench", model, "--runs", "1", "--json", "--compile-threads", n[k], NULL);
    cr_assert_eq(r.code, 0, "%s threads: stderr: %s", n[k], r.err);
    check_report(r.out);
    double t = json_num(r.out, NULL, "compile_threads");
    if (k == 0) cr_expect_eq(t, 1, "%s", r.out);
    else cr_expect(t >= 2 && t <= 4, "%g threads compiled a batch: %s", t, r.out);
    compiled[k] = json_num(r.out, NULL, "programs_compiled");
    const char *h = strstr(r.out, "\"outputs_fnv1a\": \"");
    cr_assert_not_null(h, "%s", r.out);
    memcpy(fnv[k], h + 18, 16);
    tt_run_free(&r);
  }
  cr_expect_eq(compiled[0], compiled[1]);
  cr_expect_str_eq(fnv[0], fnv[1], "one compiling thread %s, four %s", fnv[0], fnv[1]);
  const char *const bad[] = {"0", "17", "x"};
  for (int k = 0; k < 3; k++) {
    tt_run r = tt_texmem("bench", model, "--compile-threads", bad[k], NULL);
    cr_expect_eq(r.code, 2, "--compile-threads %s", bad[k]);
    cr_expect_not_null(strstr(r.err, "--compile-threads needs 1 to 16"), "%s", r.err);
    tt_run_free(&r);
  }
}

/* --warmup-ms N: untimed rounds of all five runtimes after the first runs
 * until N ms have passed (the timed runs then meet a GPU at its clock);
 * 0 runs none; bad values are exit 2. */
Test(cli_bench, warmup) {
  const char *model = TEXMEM_TEST_DATA "/face_detection_short_range.tflite";
  const char *const ms[2] = {"0", "200"};
  for (int k = 0; k < 2; k++) {
    tt_run r = tt_texmem("bench", model, "--runs", "1", "--json", "--warmup-ms", ms[k], NULL);
    cr_assert_eq(r.code, 0, "--warmup-ms %s: stderr: %s", ms[k], r.err);
    check_report(r.out);
    cr_expect_eq(json_num(r.out, NULL, "warmup_ms"), k ? 200 : 0, "%s", r.out);
    if (k) cr_expect_geq(json_num(r.out, NULL, "warmup_rounds"), 1, "%s", r.out);
    tt_run_free(&r);
  }
  const char *const bad[] = {"x", "600001", "-1"};
  for (int k = 0; k < 3; k++) {
    tt_run r = tt_texmem("bench", model, "--warmup-ms", bad[k], NULL);
    cr_expect_eq(r.code, 2, "--warmup-ms %s", bad[k]);
    cr_expect_not_null(strstr(r.err, "--warmup-ms needs 0 to 600000"), "%s", r.err);
    tt_run_free(&r);
  }
}

/* --kernels forces the 1x1 convolution kernel on any driver, --split the
 * tiled one's split in every layer, --unfused turns fusion off: the report
 * names the kernel and splits that ran and counts the fused operators, and
 * the planned runs stay bit-identical to naive. The outputs' checksum of
 * the tiled run fused (depthwise convolutions folded) equals that of the
 * same kernels unfused, in another process. */
Test(cli_bench, kernels_forced_and_unfused) {
  const char *model = TEXMEM_TEST_DATA "/face_detection_short_range.tflite";
  static const char *const kernels[] = {"tiled", "portable", "tiled"};
  char fnv[3][17] = {{0}};
  for (int k = 0; k < 3; k++) {
    /* The first tiled run split 4 ways, the portable one unfused, the
     * second tiled run both. */
    tt_run r = k == 2 ? tt_texmem("bench", model, "--runs", "1", "--json", "--kernels", "tiled",
                                  "--split", "4", "--unfused", NULL)
                      : tt_texmem("bench", model, "--runs", "1", "--json", "--kernels",
                                  kernels[k], k ? "--unfused" : "--split", k ? NULL : "4", NULL);
    cr_assert_eq(r.code, 0, "%s: stderr: %s", kernels[k], r.err);
    check_report(r.out);
    char want[64];
    snprintf(want, sizeof want, "\"kernels\": \"%s\"", kernels[k]);
    cr_expect_not_null(strstr(r.out, want), "%s", r.out);
    double fused = json_num(r.out, NULL, "fused"), late = json_num(r.out, NULL, "late_fused");
    double dw = json_num(r.out, NULL, "depthwise_folded");
    double rs = json_num(r.out, NULL, "reshapes_folded");
    double rsz = json_num(r.out, NULL, "resizes_folded");
    double hd = json_num(r.out, NULL, "heads_merged");
    if (k) cr_expect_eq(fused + late + dw + rs + rsz + hd, 0, "--unfused: %s", r.out);
    else cr_expect_gt(fused, 0, "%s", r.out);
    /* BlazeFace's depthwise convolutions fold into the tiled 1x1 ones, its
     * heads' four reshapes into the two concatenations. */
    if (!k) cr_expect_gt(dw, 0, "%s", r.out);
    if (!k) cr_expect_eq(rs, 4, "%s", r.out);
    cr_expect_not_null(strstr(r.out, k == 1 ? "\"conv1x1_split\": 0,\n  \"conv1x1_splits\": [],"
                                            : "\"conv1x1_split\": 4,\n  \"conv1x1_splits\": [4],"),
                       "%s", r.out);
    cr_expect_leq(late, fused, "%s", r.out);
    const char *h = strstr(r.out, "\"outputs_fnv1a\": \"");
    cr_assert_not_null(h, "%s", r.out);
    memcpy(fnv[k], h + 18, 16);
    tt_run_free(&r);
  }
  cr_expect_str_eq(fnv[0], fnv[2], "tiled fused %s, unfused %s", fnv[0], fnv[2]);
  tt_run r = tt_texmem("bench", model, "--kernels", "fast", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "unknown kernels 'fast'"), "%s", r.err);
  tt_run_free(&r);
  r = tt_texmem("bench", model, "--split", "3", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "--split needs 1, 2, 4, 8 or 16, not '3'"), "%s", r.err);
  tt_run_free(&r);
}

/* --dispatch-cost: four chains, each reading what the one before wrote
 * (a barrier before all but the first) or independent (at most one, where
 * the chain starts over the last one's writes), their results checked by
 * the command; GPU times wherever the driver has timer queries. A model
 * beside it is bad input. */
Test(cli_bench, dispatch_cost) {
  tt_run r = tt_texmem("bench", "--dispatch-cost", "--json", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  const char *at = strstr(r.out, "\"cases\": [");
  cr_assert_not_null(at, "%s", r.out);
  double chain = json_num(r.out, NULL, "chain");
  cr_expect_eq(chain, 128, "%s", r.out);
  bool timer = strstr(r.out, "\"timer\": \"GL_EXT_disjoint_timer_query") != NULL;
  int n = 0;
  for (const char *c = strstr(at, "{\"name\": "); c; c = strstr(c + 1, "{\"name\": "), n++) {
    bool dep = strncmp(strstr(c, "\"dependent\": "), "\"dependent\": true", 17) == 0;
    double barriers = json_num(c, NULL, "barriers");
    if (dep) cr_expect_geq(barriers, chain - 1, "%s", c);
    else cr_expect_leq(barriers, 1, "%s", c);
    cr_expect_gt(json_num(c, NULL, "cpu_submit_ns_per_dispatch"), 0, "%s", c);
    const char *g = strstr(c, "\"gpu_ns_per_dispatch\": ");
    cr_assert_not_null(g);
    if (timer) cr_expect_gt(strtod(g + 23, NULL), 0, "%s", c);
    else cr_expect_eq(strncmp(g + 23, "null", 4), 0, "%s", c);
  }
  cr_expect_eq(n, 4, "%s", r.out);
  tt_run_free(&r);
  r = tt_texmem("bench", "--dispatch-cost", NULL);
  cr_assert_eq(r.code, 0, "stderr: %s", r.err);
  cr_expect_not_null(strstr(r.out, "\n  dependent, 56x56x8 "), "%s", r.out);
  tt_run_free(&r);
  r = tt_texmem("bench", TEXMEM_TEST_DATA "/face_detection_short_range.tflite",
                "--dispatch-cost", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "--dispatch-cost runs no model"), "%s", r.err);
  tt_run_free(&r);
}

static void check_model(const char *file, const char *layout, const char *precision,
                        const char *storage) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", tt_model_cache(), file);
  if (access(path, R_OK) != 0) cr_skip_test("%s is not in the model cache (tools/fetch_models.sh)", path);
  tt_run r = tt_texmem("bench", path, "--runs", "1", "--json", "--layout", layout, "--precision", precision,
                "--storage", storage, NULL);
  cr_assert_eq(r.code, 0, "%s: stderr: %s", file, r.err);
  check_report(r.out);
  if (strcmp(storage, "auto") != 0) {
    char want[64];
    snprintf(want, sizeof want, "\"storage\": \"%s\"", storage);
    cr_expect_not_null(strstr(r.out, want), "%s", r.out);
  }
  tt_run_free(&r);
}

Test(cli_bench, selfie_segmentation) {
  check_model("selfie_segmentation.tflite", "auto", "fp16", "auto");
}
Test(cli_bench, face_detection_short_range) {
  check_model("face_detection_short_range.tflite", "natural", "fp32", "objects");
}
Test(cli_bench, hand_landmark_lite) {
  check_model("hand_landmark_lite.tflite", "linear", "fp16", "arena");
}
Test(cli_bench, pose_landmark_lite) {
  check_model("pose_landmark_lite.tflite", "auto", "fp32", "arena");
}
Test(cli_bench, face_detection_full_range_sparse) {
  check_model("face_detection_full_range_sparse.tflite", "auto", "fp16", "arena");
}
Test(cli_bench, palm_detection_lite_buffer) {
  check_model("palm_detection_lite.tflite", "auto", "fp32", "buffer");
}

Test(cli_bench, bad_input) {
  tt_run r = tt_texmem("bench", "/nonexistent/model.tflite", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "/nonexistent/model.tflite"), "%s", r.err);
  tt_run_free(&r);

  size_t len = 0;
  char *model = tt_read_file(TEXMEM_TEST_DATA "/face_detection_short_range.tflite", &len);
  const char *trunc = tt_tmp_write("trunc.tflite", model, len / 3);
  free(model);
  r = tt_texmem("bench", trunc, "--runs", "1", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "BAD_MODEL"), "%s", r.err);
  tt_run_free(&r);

  r = tt_texmem("bench", "--runs", "0", NULL);
  cr_expect_eq(r.code, 2);
  tt_run_free(&r);
  r = tt_texmem("bench", "--layout", "diagonal", NULL);
  cr_expect_eq(r.code, 2);
  tt_run_free(&r);
  r = tt_texmem("bench", "--storage", "heap", NULL);
  cr_expect_eq(r.code, 2);
  cr_expect_not_null(strstr(r.err, "heap"), "%s", r.err);
  tt_run_free(&r);
  r = tt_texmem("bench", "--strategy", "no_such_strategy", NULL);
  cr_expect_eq(r.code, 2);
  tt_run_free(&r);
  r = tt_texmem("bench", "--no-such-flag", NULL);
  cr_expect_eq(r.code, 2);
  tt_run_free(&r);
  r = tt_texmem("bench", "--help", NULL);
  cr_expect_eq(r.code, 0);
  cr_expect_not_null(strstr(r.out, "usage: texmem bench"));
  tt_run_free(&r);
}

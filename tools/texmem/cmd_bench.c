/* texmem bench: runs a model (or the built-in MobileNet v2 224) on the GL
 * runtime with one texture per tensor (naive) and with a planned pool,
 * interleaving the timed runs in one process, and prints texture memory
 * (naive, every shared-objects strategy in both layouts, the lower bound),
 * planning and pool creation times, latencies, peak RSS and whether the
 * planned outputs are bit-identical to the naive ones. The same plan
 * strategy in the other layout is timed in the same loop, so the two
 * layouts are compared side by side too. A model with operators the
 * runtime cannot execute gets the memory tables (planning needs no kernel),
 * then every such operator by name and count, and exit status 2;
 * --plan-only stops after the tables. After the timed runs: --profile
 * (bench_profile.c) and the driver's memory figures of each storage made
 * alone (bench_memory.c). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_dispatch_cost.h"
#include "bench_storage.h"
#include "cli.h"
#include "model_args.h"
#include "program_cache_dir.h"
#include "texmem/mobilenet.h"
#include "texmem/runtime.h"

#define LAYOUT_AUTO (-1)
#define STORAGE_AUTO (-1)
#define BUILTIN_SEED 1

typedef struct opts {
  const char *model;
  texmem_strategy strategy;
  int layout; /* LAYOUT_AUTO or a texmem_layout */
  int storage; /* STORAGE_AUTO or a texmem_storage */
  texmem_precision precision;
  texmem_kernels kernels;
  uint32_t split; /* texmem_runtime_desc.conv1x1_split */
  bool unfused;
  unsigned runs;
  int64_t warmup_ms; /* -1: by renderer (WARMUP_GPU_MS on a GPU, 0 on the CPU) */
  bool json;
  bool plan_only;
  bool profile;
  bool dispatch_cost; /* no model: the driver's cost of a dispatch */
  int alone; /* -1, or the one storage (BENCH_*) made and measured */
  const char *program_cache; /* a directory, or NULL */
  uint32_t compile_threads;  /* texmem_gl_context_desc's: 0 = the processors */
  cli_input_shapes shapes;
} opts;

static void usage(FILE *f) {
  fprintf(f,
          "usage: texmem bench [MODEL.tflite] [options]\n"
          "\n"
          "Runs a model on the GL runtime in one process, with one texture per tensor\n"
          "(naive), with planned shared textures (in both layouts), in the texture\n"
          "arena (tensors at base rows of shared textures) and in the buffer arena\n"
          "(tensors at texel offsets of an SSBO), all timed side by side, and reports\n"
          "texture memory, planning and pool creation time, median latency and\n"
          "whether all runs give bit-identical outputs. Without a model: the built-in\n"
          "MobileNet v2 224x224 (fixed seed).\n"
          "\n"
          "options:\n"
          "  --strategy S       strategy of the planned run (default best); the other\n"
          "                     storage uses best where S does not apply to it\n"
          "  --layout L         natural | linear | auto (default auto: the smaller plan)\n"
          "  --storage S        objects | arena | buffer | auto (default auto: buffer on\n"
          "                     a GPU, arena on a CPU renderer such as llvmpipe; see\n"
          "                     docs/runtime.md); all storages run side by side\n"
          "  --precision P      fp16 | fp32 (default fp16)\n"
          "  --kernels K        auto | portable | tiled: the 1x1 convolution kernel\n"
          "                     (default auto: tiled on a GPU, portable on a CPU renderer)\n"
          "  --split N          the tiled 1x1 kernel's parts splitting the input channels,\n"
          "                     1, 2, 4, 8 or 16, in every layer (default: per layer);\n"
          "                     with --profile, JSON every_dispatch gives each layer's time\n"
          "  --unfused          one dispatch per operator (no element-wise operator, PAD\n"
          "                     or max pool run inside a convolution's dispatch)\n"
          "  --runs N           timed runs of each, after the first runs and the warm-up\n"
          "                     (default 5)\n"
          "  --warmup-ms N      after the first runs, run all runtimes untimed until N ms\n"
          "                     have passed (default 500 on a GPU, 0 on a CPU renderer):\n"
          "                     an idle GPU runs at a fraction of its clock until busy\n"
          "  --plan-only        print the memory tables only, run nothing (any model)\n"
          "  --profile          time every dispatch on the GPU (timer queries), summed per\n"
          "                     operator type and per kernel, for each storage\n"
          "  --alone S          make only storage S's runtime (naive, objects, arena or\n"
          "                     buffer), run it once and report the driver's memory\n"
          "                     before and after, nothing timed: one process per storage\n"
          "                     gives figures no other runtime of the process touched\n"
          "  --program-cache DIR\n"
          "                     keep the GL programs' binaries in DIR (an existing\n"
          "                     directory) and load them from there instead of\n"
          "                     compiling: a GPU driver may compile a second a program\n"
          "  --compile-threads N\n"
          "                     threads that compile the runtimes' programs, 1 to 16\n"
          "                     (default: one a processor, at most 16)\n"
          "  --input-shape [NAME=]D0,D1,...\n"
          "                     a graph input's shape where the model has dynamic\n"
          "                     dimensions (repeatable)\n"
          "  --dispatch-cost    no model: time chains of trivial dispatches, each reading\n"
          "                     what the one before wrote and independent ones, at\n"
          "                     one work group and at a layer's size: the least a\n"
          "                     dispatch costs on this driver\n"
          "  --json             print JSON instead of the report\n"
          "  --help             this text\n"
          "\n"
          "exit status: 0 ok, 2 bad input (flags, model, operators the runtime cannot\n"
          "execute: the memory tables are printed, then those operators),\n"
          "1 internal (GL failure, or planned outputs differ from the naive ones)\n");
}

static bool parse_storage(const char *v, int *out) {
  if (!strcmp(v, "objects")) *out = TEXMEM_STORAGE_OBJECTS;
  else if (!strcmp(v, "arena")) *out = TEXMEM_STORAGE_ARENA;
  else if (!strcmp(v, "buffer")) *out = TEXMEM_STORAGE_BUFFER;
  else if (!strcmp(v, "auto")) *out = STORAGE_AUTO;
  else return false;
  return true;
}

static int parse_args(int argc, char **argv, opts *o) {
  *o = (opts){.strategy = TEXMEM_STRATEGY_BEST, .layout = LAYOUT_AUTO, .storage = STORAGE_AUTO,
              .precision = TEXMEM_PRECISION_FP16, .runs = 5, .alone = -1, .warmup_ms = -1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return -1;
    } else if (!strcmp(a, "--json")) {
      o->json = true;
    } else if (!strcmp(a, "--plan-only")) {
      o->plan_only = true;
    } else if (!strcmp(a, "--profile")) {
      o->profile = true;
    } else if (!strcmp(a, "--dispatch-cost")) {
      o->dispatch_cost = true;
    } else if (!strcmp(a, "--unfused")) {
      o->unfused = true;
    } else if (!strcmp(a, "--program-cache") && v) {
      struct stat st;
      if (stat(v, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "texmem bench: --program-cache %s: not a directory\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
      o->program_cache = v;
      i++;
    } else if (!strcmp(a, "--alone") && v) {
      for (int k = 0; k < BENCH_STORAGES; k++)
        if (!strcmp(v, bench_storage_names[k])) o->alone = k;
      if (o->alone < 0) {
        fprintf(stderr, "texmem bench: unknown storage '%s' (naive, objects, arena or buffer)\n",
                v);
        return CLI_EXIT_BAD_INPUT;
      }
      i++;
    } else if (!strcmp(a, "--input-shape") && v) {
      if (!cli_input_shape_add(&o->shapes, "bench", v)) return CLI_EXIT_BAD_INPUT;
      i++;
    } else if (!strcmp(a, "--strategy") && v) {
      if (!texmem_strategy_from_name(v, &o->strategy)) {
        fprintf(stderr, "texmem bench: '%s' is not a strategy\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
      i++;
    } else if (!strcmp(a, "--layout") && v) {
      if (!strcmp(v, "natural")) o->layout = TEXMEM_LAYOUT_NATURAL;
      else if (!strcmp(v, "linear")) o->layout = TEXMEM_LAYOUT_LINEAR;
      else if (!strcmp(v, "auto")) o->layout = LAYOUT_AUTO;
      else {
        fprintf(stderr, "texmem bench: unknown layout '%s'\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
      i++;
    } else if (!strcmp(a, "--storage") && v) {
      if (!parse_storage(v, &o->storage)) {
        fprintf(stderr, "texmem bench: unknown storage '%s' (objects, arena, buffer or auto)\n",
                v);
        return CLI_EXIT_BAD_INPUT;
      }
      i++;
    } else if (!strcmp(a, "--precision") && v) {
      if (!strcmp(v, "fp16")) o->precision = TEXMEM_PRECISION_FP16;
      else if (!strcmp(v, "fp32")) o->precision = TEXMEM_PRECISION_FP32;
      else {
        fprintf(stderr, "texmem bench: unknown precision '%s'\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
      i++;
    } else if (!strcmp(a, "--kernels") && v) {
      if (!strcmp(v, "auto")) o->kernels = TEXMEM_KERNELS_AUTO;
      else if (!strcmp(v, "portable")) o->kernels = TEXMEM_KERNELS_PORTABLE;
      else if (!strcmp(v, "tiled")) o->kernels = TEXMEM_KERNELS_TILED;
      else {
        fprintf(stderr, "texmem bench: unknown kernels '%s' (auto, portable or tiled)\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
      i++;
    } else if (!strcmp(a, "--split") && v) {
      uint64_t k = 0;
      if (!cli_parse_u64(v, &k) || k == 0 || k > 16 || (k & (k - 1))) {
        fprintf(stderr, "texmem bench: --split needs 1, 2, 4, 8 or 16, not '%s'\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
      o->split = (uint32_t)k;
      i++;
    } else if (!strcmp(a, "--compile-threads") && v) {
      uint64_t k = 0;
      if (!cli_parse_u64(v, &k) || k == 0 || k > 16) {
        fprintf(stderr, "texmem bench: --compile-threads needs 1 to 16, not '%s'\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
      o->compile_threads = (uint32_t)k;
      i++;
    } else if (!strcmp(a, "--runs") && v) {
      uint64_t runs = 0;
      if (!cli_parse_u64(v, &runs) || runs == 0 || runs > 100000000u) {
        fprintf(stderr, "texmem bench: --runs needs a positive integer, not '%s'\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
      o->runs = (unsigned)runs;
      i++;
    } else if (!strcmp(a, "--warmup-ms") && v) {
      uint64_t ms = 0;
      if (!cli_parse_u64(v, &ms) || ms > 600000u) {
        fprintf(stderr, "texmem bench: --warmup-ms needs 0 to 600000, not '%s'\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
      o->warmup_ms = (int64_t)ms;
      i++;
    } else if (a[0] == '-') {
      fprintf(stderr, "texmem bench: unknown option or missing value '%s'\n", a);
      usage(stderr);
      return CLI_EXIT_BAD_INPUT;
    } else if (!o->model) {
      o->model = a;
    } else {
      fprintf(stderr, "texmem bench: more than one model ('%s')\n", a);
      return CLI_EXIT_BAD_INPUT;
    }
  }
  if (o->dispatch_cost && o->model) {
    fprintf(stderr, "texmem bench: --dispatch-cost runs no model ('%s')\n", o->model);
    return CLI_EXIT_BAD_INPUT;
  }
  return 0;
}

static double mib(uint64_t b) { return (double)b / (1024.0 * 1024.0); }

/* Objects strategies of the planning table (BEST last). */
static const texmem_strategy table_strategies[] = {
    TEXMEM_STRATEGY_NAIVE,          TEXMEM_STRATEGY_EQUALITY,      TEXMEM_STRATEGY_GREEDY_IN_ORDER,
    TEXMEM_STRATEGY_GREEDY_BY_BREADTH, TEXMEM_STRATEGY_GREEDY_BY_SIZE, TEXMEM_STRATEGY_MIN_COST_FLOW,
    TEXMEM_STRATEGY_LOCAL_SEARCH,   TEXMEM_STRATEGY_BEST};
#define N_TABLE (sizeof table_strategies / sizeof table_strategies[0])

typedef struct bench {
  opts o;
  texmem_model *model;
  texmem_gl_context *ctx;
  texmem_record *rec;
  size_t n_rec;
  unsigned texel_bytes;
  uint64_t bytes[N_TABLE][2]; /* 0 = failed */
  texmem_strategy chosen[N_TABLE][2];
  uint64_t lower_bound;
  texmem_layout layout;
  texmem_runtime *naive, *planned, *other; /* other: planned, other layout */
  float **inputs;
  size_t n_inputs;
  double lat_naive, lat_planned, lat_other;
  bool identical;
  uint64_t outputs_fnv; /* FNV-1a 64 of the naive outputs' bytes, in order */
  texmem_op_tally *unsupported; /* operators the runtime cannot execute */
  size_t n_unsupported;
  /* Storage, side by side: objects = `planned` above, the texture arena
   * `arena`, the buffer arena `buffer`. */
  texmem_storage storage;           /* of the reported planned run */
  texmem_runtime *arena, *buffer;
  double lat_arena, lat_buffer;
  uint64_t max_live, positional_max; /* bytes at the run's precision */
  uint64_t barriers[3], dispatches[3]; /* one run: objects, arena, buffer */
  /* The bounds of the records each planned runtime planned (fusion takes
   * the fused convolutions' outputs out): objects, arena, buffer. */
  uint64_t run_max_live[3], run_positional_max[3];
  bool identical_storage[3];
  bench_setup setup; /* naive, objects (the planned layout), arena */
  texmem_runtime_stats stats[BENCH_STORAGES];
  bench_profile profile;
  bench_memory memory;
  bench_io io; /* set_input, run, get_output of the reported runtime */
  uint64_t peak_rss;
  /* Creating the five runtimes (inputs set) and their first runs
   * (untimed): wall times, and the GL programs compiled in them (a kernel's
   * program compiles at its first dispatch) and the time that took. */
  double create_ms, first_run_ms, compile_ms;
  uint64_t programs_compiled, programs_loaded, compile_threads;
  /* Then untimed rounds of all five until warmup_ms had passed (by
   * default none where the GL renders on the CPU). */
  bool renders_on_cpu;
  uint64_t warmup_ms, warmup_rounds;
  double warmup_elapsed_ms;
  texmem_gl_counters compile_start;
} bench;

/* The timed runtimes only (the driver memory is measured without them). */
static void destroy_runtimes(bench *b) {
  texmem_runtime_destroy(b->naive);
  texmem_runtime_destroy(b->planned);
  texmem_runtime_destroy(b->other);
  texmem_runtime_destroy(b->arena);
  texmem_runtime_destroy(b->buffer);
  b->naive = b->planned = b->other = b->arena = b->buffer = NULL;
}

static void bench_free(bench *b) {
  destroy_runtimes(b);
  bench_profile_free(&b->profile);
  if (b->inputs)
    for (size_t i = 0; i < b->n_inputs; i++) free(b->inputs[i]);
  free(b->inputs);
  free(b->rec);
  free(b->unsupported);
  texmem_gl_context_destroy(b->ctx);
  texmem_model_destroy(b->model);
}

static int fail(bench *b, const char *what, texmem_status st, const texmem_error *err) {
  fprintf(stderr, "texmem bench: %s: %s: %s\n", what, texmem_status_name(st), err->message);
  bench_free(b);
  return cli_exit_for(st);
}

/* Plans the records with every strategy in both layouts (planning only). */
static texmem_status plan_table(bench *b, texmem_error *err) {
  uint64_t max_nat[3] = {0, 0, 0}, max_lin[3] = {0, 0, 0}; /* no context: no limits */
  if (b->ctx) {
    texmem_gl_max_dims(b->ctx, TEXMEM_GL_TARGET_2D_ARRAY, max_nat);
    texmem_gl_max_dims(b->ctx, TEXMEM_GL_TARGET_2D, max_lin);
    max_lin[2] = 0;
  }
  for (size_t s = 0; s < N_TABLE; s++)
    for (int l = 0; l < 2; l++) {
      texmem_plan_desc d = {.kind = TEXMEM_PLAN_OBJECTS, .strategy = table_strategies[s],
                            .layout = l ? TEXMEM_LAYOUT_LINEAR : TEXMEM_LAYOUT_NATURAL};
      memcpy(d.max_dims, l ? max_lin : max_nat, sizeof d.max_dims);
      texmem_plan *p = NULL;
      texmem_error e = {0};
      if (texmem_plan_create(b->rec, b->n_rec, 3, &d, &p, &e) == TEXMEM_STATUS_OK) {
        b->bytes[s][l] = texmem_plan_total(p) * b->texel_bytes;
        b->chosen[s][l] = texmem_plan_get_strategy(p);
      }
      texmem_plan_destroy(p);
    }
  texmem_bounds bd;
  texmem_status st = texmem_lower_bounds(b->rec, b->n_rec, 3, &bd, err);
  if (st) return st;
  b->lower_bound = bd.positional_max * b->texel_bytes;
  b->positional_max = bd.positional_max * b->texel_bytes;
  b->max_live = bd.max_live * b->texel_bytes;
  return TEXMEM_STATUS_OK;
}

static size_t table_index(texmem_strategy s) {
  for (size_t i = 0; i < N_TABLE; i++)
    if (table_strategies[i] == s) return i;
  return N_TABLE - 1;
}

static texmem_status timed_run(texmem_runtime *rt, double *ms, texmem_error *err) {
  double t0 = cli_now_ms();
  texmem_status st = texmem_runtime_run(rt, err);
  if (!st) st = texmem_runtime_finish(rt, err);
  *ms = cli_now_ms() - t0;
  return st;
}

/* FNV-1a 64 of n bytes, continuing from h. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 0x100000001b3ull;
  return h;
}

/* Every output of every planned runtime against the naive one, bit for
 * bit: objects (both layouts), arena, buffer. The naive outputs' checksum
 * says the same across processes: a fused run against an unfused one, a
 * driver against another (the inputs are fixed). */
static texmem_status compare_outputs(bench *b, texmem_error *err) {
  b->outputs_fnv = 0xcbf29ce484222325ull;
  size_t n_out;
  texmem_model_outputs(b->model, &n_out);
  texmem_runtime *const rts[4] = {b->planned, b->arena, b->buffer, b->other};
  bool *same[4] = {&b->identical_storage[0], &b->identical_storage[1], &b->identical_storage[2],
                   &b->identical};
  for (int k = 0; k < 4; k++) *same[k] = true;
  for (size_t i = 0; i < n_out; i++) {
    size_t n = texmem_runtime_output_size(b->naive, i);
    float *x = malloc((n + 1) * sizeof *x), *y = malloc((n + 1) * sizeof *y);
    texmem_status st = !x || !y ? TEXMEM_STATUS_OUT_OF_MEMORY : TEXMEM_STATUS_OK;
    if (st) snprintf(err->message, sizeof err->message, "out of memory");
    if (!st) st = texmem_runtime_get_output(b->naive, i, x, err);
    if (!st) b->outputs_fnv = fnv1a(b->outputs_fnv, x, n * sizeof *x);
    for (int k = 0; k < 4 && !st; k++) {
      st = texmem_runtime_get_output(rts[k], i, y, err);
      if (!st && memcmp(x, y, n * sizeof *x) != 0) *same[k] = false;
    }
    free(x);
    free(y);
    if (st) return st;
  }
  for (int k = 0; k < 3; k++) b->identical = b->identical && *same[k];
  return TEXMEM_STATUS_OK;
}

/* ---- objects vs arena ---- */

/* The strategy of a storage's run: --strategy where it applies, else best. */
static texmem_strategy storage_strategy(const opts *o, texmem_plan_kind k) {
  return texmem_strategy_supports(o->strategy, k) ? o->strategy : TEXMEM_STRATEGY_BEST;
}

/* --storage auto: the library's policy (texmem_runtime_auto_storage: the
 * buffer arena on a GPU, the texture arena on a CPU renderer). The reported
 * bound is the one of the storage's problem (positional_max for objects,
 * max_live for an arena). */
static void choose_storage(bench *b) {
  b->storage = b->o.storage == STORAGE_AUTO ? texmem_runtime_auto_storage(b->ctx)
                                            : (texmem_storage)b->o.storage;
}

/* The planned storages side by side: objects, arena, buffer. */
static int storage_slot(texmem_storage s) {
  return s == TEXMEM_STORAGE_ARENA ? 1 : s == TEXMEM_STORAGE_BUFFER ? 2 : 0;
}

static const char *storage_name(texmem_storage s) {
  return s == TEXMEM_STORAGE_ARENA ? "arena" : s == TEXMEM_STORAGE_BUFFER ? "buffer" : "objects";
}

/* Barriers and dispatches of one more run of each storage. */
static texmem_status count_barriers(bench *b, texmem_error *err) {
  texmem_runtime *rts[3] = {b->planned, b->arena, b->buffer};
  for (int i = 0; i < 3; i++) {
    texmem_status st = texmem_runtime_finish(rts[i], err);
    if (st) return st;
    texmem_gl_counters_reset(b->ctx);
    st = texmem_runtime_run(rts[i], err);
    if (!st) st = texmem_runtime_finish(rts[i], err);
    if (st) return st;
    texmem_gl_counters c;
    texmem_gl_counters_get(b->ctx, &c);
    b->barriers[i] = c.barriers;
    b->dispatches[i] = c.dispatches;
    size_t n = 0;
    const texmem_record *rec = texmem_runtime_records(rts[i], &n);
    texmem_bounds bd;
    if ((st = texmem_lower_bounds(rec, n, 3, &bd, err))) return st;
    b->run_max_live[i] = bd.max_live * b->texel_bytes;
    b->run_positional_max[i] = bd.positional_max * b->texel_bytes;
  }
  int k = storage_slot(b->storage);
  b->lower_bound = b->storage == TEXMEM_STORAGE_OBJECTS ? b->run_positional_max[k]
                                                        : b->run_max_live[k];
  return TEXMEM_STATUS_OK;
}

/* Compile time past which the report warns that the latencies may be a
 * cold driver's (NVIDIA: about a second a program). */
#define COLD_COMPILE_MS 1000.0
/* The default warm-up on a GPU. A GPU that sat idle (while its programs
 * compiled on the CPU, tens of seconds on NVIDIA) runs at a fraction of its
 * clock (an H100 was seen at 345 MHz) and raises it only once kept busy;
 * 21 runs of a 1 ms model are too short to be sure it has. */
#define WARMUP_GPU_MS 500

static texmem_runtime *chosen_runtime(const bench *b) {
  texmem_runtime *const rts[3] = {b->planned, b->arena, b->buffer};
  return rts[storage_slot(b->storage)];
}

static double lat_chosen(const bench *b) {
  const double lat[3] = {b->lat_planned, b->lat_arena, b->lat_buffer};
  return lat[storage_slot(b->storage)];
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

/* The stats of a planned storage (0 objects, 1 arena, 2 buffer). */
static const texmem_runtime_stats *slot_stats(const bench *b, int i) {
  return &b->stats[i == 0 ? BENCH_OBJECTS : i == 1 ? BENCH_ARENA : BENCH_BUFFER];
}

static void print_storage_table(const bench *b) {
  printf("\nstorage, side by side (* = the planned run; arena: offsets in rows of a texture; "
         "buffer: offsets in texels of an SSBO; bounds of each run's records, fused operators'\n"
         "inputs not planned):\n");
  printf("  %-26s %12s %9s %9s %16s %11s %10s\n", "storage", "texture MiB", "/max_live",
         "/pos_max", "barriers/disp.", "latency ms", "identical");
  const double lat[3] = {b->lat_planned, b->lat_arena, b->lat_buffer};
  for (int i = 0; i < 3; i++) {
    const texmem_runtime_stats *s = slot_stats(b, i);
    char name[64];
    if (i == 0)
      snprintf(name, sizeof name, "objects (%s, %zu tex.)",
               s->layout == TEXMEM_LAYOUT_LINEAR ? "linear" : "natural", s->objects);
    else if (i == 1)
      snprintf(name, sizeof name, "arena (W %" PRIu64 ", %zu tex.)", s->linear_width, s->objects);
    else
      snprintf(name, sizeof name, "buffer (%zu SSBO%s)", s->objects, s->objects == 1 ? "" : "s");
    char bar[32];
    snprintf(bar, sizeof bar, "%" PRIu64 "/%" PRIu64, b->barriers[i], b->dispatches[i]);
    printf("  %-26s %12.3f %9.4f %9.4f %16s %11.3f %10s%s\n", name, mib(s->texture_bytes),
           ratio(s->texture_bytes, b->run_max_live[i]),
           ratio(s->texture_bytes, b->run_positional_max[i]), bar,
           lat[i], b->identical_storage[i] ? "yes" : "NO",
           storage_slot(b->storage) == i ? "  *" : "");
  }
  printf("  arena / objects: bytes %.4f, latency %.3f; buffer / objects: bytes %.4f, latency "
         "%.3f (median, interleaved)\n",
         ratio(slot_stats(b, 1)->texture_bytes, slot_stats(b, 0)->texture_bytes),
         b->lat_planned > 0 ? b->lat_arena / b->lat_planned : 0.0,
         ratio(slot_stats(b, 2)->texture_bytes, slot_stats(b, 0)->texture_bytes),
         b->lat_planned > 0 ? b->lat_buffer / b->lat_planned : 0.0);
}

static void print_storage_json(const bench *b) {
  printf("  \"storage_texture_bytes\": {\"objects\": %" PRIu64 ", \"arena\": %" PRIu64
         ", \"buffer\": %" PRIu64 "},\n",
         slot_stats(b, 0)->texture_bytes, slot_stats(b, 1)->texture_bytes,
         slot_stats(b, 2)->texture_bytes);
  printf("  \"barriers\": {\"objects\": %" PRIu64 ", \"arena\": %" PRIu64 ", \"buffer\": %" PRIu64
         "},\n",
         b->barriers[0], b->barriers[1], b->barriers[2]);
  printf("  \"dispatches\": {\"objects\": %" PRIu64 ", \"arena\": %" PRIu64 ", \"buffer\": %" PRIu64
         "},\n",
         b->dispatches[0], b->dispatches[1], b->dispatches[2]);
  printf("  \"storage_max_live\": {\"objects\": %" PRIu64 ", \"arena\": %" PRIu64
         ", \"buffer\": %" PRIu64 "},\n",
         b->run_max_live[0], b->run_max_live[1], b->run_max_live[2]);
  printf("  \"storage_latency_ms\": {\"objects\": %.4f, \"arena\": %.4f, \"buffer\": %.4f},\n",
         b->lat_planned, b->lat_arena, b->lat_buffer);
}

/* The model line and the planning-only memory table. */
static void print_tables(const bench *b) {
  const opts *o = &b->o;
  size_t ops = texmem_model_op_count(b->model);
  printf("model:        %s\n", !o->model ? "built-in MobileNet v2 224x224 (seed 1)" : o->model);
  printf("operators:    %zu   tasks: %zu   intermediate tensors: %zu\n", ops, ops, b->n_rec);
  printf("precision:    %s (%u bytes a texel)\n",
         o->precision == TEXMEM_PRECISION_FP32 ? "fp32" : "fp16", b->texel_bytes);
  printf("\ntexture memory of the intermediate tensors (planning only):\n");
  printf("  %-18s %14s %14s\n", "strategy", "natural MiB", "linear MiB");
  for (size_t s = 0; s < N_TABLE; s++) {
    printf("  %-18s", texmem_strategy_name(table_strategies[s]));
    for (int l = 0; l < 2; l++) {
      if (b->bytes[s][l])
        printf(" %14.3f", mib(b->bytes[s][l]));
      else
        printf(" %14s", "-");
    }
    if (table_strategies[s] == TEXMEM_STRATEGY_BEST)
      printf("   (%s / %s)", texmem_strategy_name(b->chosen[s][0]),
             texmem_strategy_name(b->chosen[s][1]));
    printf("\n");
  }
  printf("  %-18s %14.3f   (positional max of live volumes)\n", "lower bound",
         mib(b->positional_max));
  printf("  %-18s %14.3f   (max live volume: the arena's bound)\n", "arena bound",
         mib(b->max_live));
}

/* Operators the runtime cannot execute, one line each. */
static void print_unsupported(const bench *b) {
  size_t total = 0;
  for (size_t i = 0; i < b->n_unsupported; i++) total += b->unsupported[i].count;
  printf("\nnot run:      %zu operator%s the runtime cannot execute:\n", total, total == 1 ? "" : "s");
  for (size_t i = 0; i < b->n_unsupported; i++) {
    char item[256];
    texmem_op_tally_format(&b->unsupported[i], 1, item, sizeof item);
    printf("  %s\n", item);
  }
}

static void print_report(const bench *b, uint64_t peak_rss) {
  const opts *o = &b->o;
  const texmem_runtime_stats *ns = &b->stats[BENCH_NAIVE];
  const texmem_runtime_stats *ps = slot_stats(b, storage_slot(b->storage));
  bool builtin = !o->model;
  print_tables(b);
  printf("\nplanned run:  %s storage%s, %s, %s layout%s: %zu textures, %.3f MiB (%" PRIu64
         " bytes), %.3fx the lower bound (%s)\n",
         storage_name(b->storage), o->storage == STORAGE_AUTO ? " (auto)" : "",
         texmem_strategy_name(ps->strategy),
         ps->layout == TEXMEM_LAYOUT_LINEAR ? "linear" : "natural",
         o->layout == LAYOUT_AUTO && b->storage == TEXMEM_STORAGE_OBJECTS ? " (auto)" : "",
         ps->objects, mib(ps->texture_bytes), ps->texture_bytes,
         ratio(ps->texture_bytes, b->lower_bound),
         b->storage == TEXMEM_STORAGE_OBJECTS ? "positional_max" : "max_live");
  if (ps->layout == TEXMEM_LAYOUT_LINEAR) printf("              linear width %" PRIu64 "\n", ps->linear_width);
  printf("naive run:    %zu textures, %.3f MiB (%" PRIu64 " bytes); planned / naive = %.3f\n",
         ns->objects, mib(ns->texture_bytes), ns->texture_bytes,
         ns->texture_bytes ? (double)ps->texture_bytes / (double)ns->texture_bytes : 0.0);
  printf("graph I/O:    %.3f MiB   weights: %.3f MiB (%" PRIu64 " bytes) in %zu GL buffer%s\n",
         mib(ps->io_bytes), mib(ps->weights_bytes), ps->weights_bytes, ps->weight_buffers,
         ps->weight_buffers == 1 ? "" : "s");
  if (builtin)
    printf("published:    MobileNet v2, TFLite 2020 (fp32 intermediates): ~26 MB one buffer per\n"
           "              tensor, ~7 MB shared; ours above at %s%s\n",
           o->precision == TEXMEM_PRECISION_FP32 ? "fp32 (comparable)" : "fp16",
           o->precision == TEXMEM_PRECISION_FP32 ? "" : " (use --precision fp32 to compare)");
  printf("planning:     %.1f us   pool creation: %.3f ms\n", ps->plan_us, ps->pool_create_ms);
  printf("creation:     %.1f ms for the five runtimes, %.1f ms their first runs; %" PRIu64
         " GL programs compiled", b->create_ms, b->first_run_ms, b->programs_compiled);
  if (o->program_cache)
    printf(" and %" PRIu64 " loaded from the program cache", b->programs_loaded);
  printf(" in %.1f ms on %" PRIu64 " thread%s\n", b->compile_ms, b->compile_threads,
         b->compile_threads == 1 ? "" : "s");
  if (b->compile_ms >= COLD_COMPILE_MS)
    printf("              (some processes that compiled this long ran 3-4x slow on NVIDIA, why\n"
           "              is not settled: the warm-up below is for one suspect, a GPU left\n"
           "              idle at a low clock; if the latencies still look slow, run again:\n"
           "              the driver's shader cache keeps the programs)\n");
  char split[48] = "";
  if (ps->tiled && o->split)
    snprintf(split, sizeof split, ", split %u ways in every layer", (unsigned)o->split);
  printf(
      "kernels:      %s 1x1 convolutions%s%s; %zu operators fused into convolutions "
      "(%zu dispatches run late)\n              folded: %zu depthwise convolutions and %zu "
      "per-channel MULs into 1x1 ones, %zu reshapes, %zu resizes; %zu heads merged "
      "(FULLY_CONNECTED, 1x1)\n",
      ps->tiled ? "tiled" : "portable", o->kernels == TEXMEM_KERNELS_AUTO ? " (auto)" : "", split,
      ps->fused, ps->late_fused, ps->depthwise_folded, ps->scales_folded, ps->reshapes_folded,
      ps->resizes_folded, ps->heads_merged);
  printf("warm-up:      %" PRIu64 " untimed rounds of all five in %.1f ms (--warmup-ms %" PRIu64
         "%s)\n",
         b->warmup_rounds, b->warmup_elapsed_ms, b->warmup_ms,
         o->warmup_ms >= 0 ? "" : b->renders_on_cpu ? ", default on a CPU renderer" : ", default on a GPU");
  printf("latency:      median of %u runs (after the warm-up, interleaved): naive %.3f ms, "
         "planned %.3f ms, planned / naive = %.3f\n",
         o->runs, b->lat_naive, lat_chosen(b),
         b->lat_naive > 0 ? lat_chosen(b) / b->lat_naive : 0.0);
  double nat = b->layout == TEXMEM_LAYOUT_NATURAL ? b->lat_planned : b->lat_other;
  double lin = b->layout == TEXMEM_LAYOUT_NATURAL ? b->lat_other : b->lat_planned;
  printf("layouts:      the objects run in both layouts, side by side: natural %.3f ms, "
         "linear %.3f ms, linear / natural = %.3f\n",
         nat, lin, nat > 0 ? lin / nat : 0.0);
  bench_io_print(&b->io);
  print_storage_table(b);
  bench_memory_print(&b->memory);
  bench_profile_print(&b->profile);
  printf("peak RSS:     %.1f MiB\n", mib(peak_rss));
  printf("outputs:      %s (FNV-1a of the naive outputs %016" PRIx64 ")\n",
         b->identical ? "planned bit-identical to naive" : "planned DIFFER from naive",
         b->outputs_fnv);
}

static void print_json(const bench *b, uint64_t peak_rss) {
  const opts *o = &b->o;
  const texmem_runtime_stats *ns = &b->stats[BENCH_NAIVE];
  const texmem_runtime_stats *ps = slot_stats(b, storage_slot(b->storage));
  printf("{\n  \"model\": ");
  cli_json_str(stdout, o->model ? o->model : "builtin:mobilenet_v2_224");
  printf(",\n  \"tasks\": %zu,\n  \"tensors\": %zu,\n  \"precision\": \"%s\",\n", ps->tasks,
         ps->tensors, o->precision == TEXMEM_PRECISION_FP32 ? "fp32" : "fp16");
  printf("  \"layout\": \"%s\",\n  \"strategy\": \"%s\",\n  \"storage\": \"%s\",\n",
         ps->layout == TEXMEM_LAYOUT_LINEAR ? "linear" : "natural",
         texmem_strategy_name(ps->strategy), storage_name(b->storage));
  printf("  \"texture_bytes\": {\"naive\": %" PRIu64 ", \"planned\": %" PRIu64
         ", \"lower_bound\": %" PRIu64 ", \"max_live\": %" PRIu64 "},\n",
         ns->texture_bytes, ps->texture_bytes, b->lower_bound, b->max_live);
  printf("  \"weights_bytes\": %" PRIu64 ",\n  \"weight_buffers\": %zu,\n", ps->weights_bytes,
         ps->weight_buffers);
  printf("  \"plan_us\": %.3f,\n  \"pool_create_ms\": %.3f,\n", ps->plan_us, ps->pool_create_ms);
  printf("  \"create_ms\": %.3f,\n  \"first_run_ms\": %.3f,\n  \"programs_compiled\": %" PRIu64
         ",\n  \"programs_loaded\": %" PRIu64 ",\n  \"compile_ms\": %.3f,\n  \"compile_threads\": %" PRIu64
         ",\n",
         b->create_ms, b->first_run_ms, b->programs_compiled, b->programs_loaded, b->compile_ms,
         b->compile_threads);
  printf("  \"renders_on_cpu\": %s,\n  \"warmup_ms\": %" PRIu64 ",\n  \"warmup_rounds\": %" PRIu64
         ",\n  \"warmup_elapsed_ms\": %.3f,\n",
         b->renders_on_cpu ? "true" : "false", b->warmup_ms, b->warmup_rounds,
         b->warmup_elapsed_ms);
  printf("  \"kernels\": \"%s\",\n  \"conv1x1_split\": %u,\n  \"conv1x1_splits\": [",
         ps->tiled ? "tiled" : "portable", (unsigned)o->split);
  for (unsigned k = 0, n = 0; k < 5; k++)
    if (ps->conv1x1_splits >> k & 1u) printf("%s%u", n++ ? ", " : "", 1u << k);
  printf("],\n  \"fused\": %zu,\n  \"fused_kept\": %zu,\n  \"depthwise_folded\": %zu,\n"
         "  \"scales_folded\": %zu,\n  \"reshapes_folded\": %zu,\n  \"resizes_folded\": %zu,\n"
         "  \"heads_merged\": %zu,\n  \"late_fused\": %zu,\n",
         ps->fused, ps->fused_kept, ps->depthwise_folded, ps->scales_folded, ps->reshapes_folded,
         ps->resizes_folded, ps->heads_merged, ps->late_fused);
  printf("  \"latency_ms\": {\"naive\": %.4f, \"planned\": %.4f},\n", b->lat_naive, lat_chosen(b));
  printf("  \"layout_latency_ms\": {\"natural\": %.4f, \"linear\": %.4f},\n",
         b->layout == TEXMEM_LAYOUT_NATURAL ? b->lat_planned : b->lat_other,
         b->layout == TEXMEM_LAYOUT_NATURAL ? b->lat_other : b->lat_planned);
  bench_io_json(&b->io);
  print_storage_json(b);
  bench_memory_json(&b->memory);
  bench_profile_json(&b->profile);
  printf("  \"peak_rss_bytes\": %" PRIu64 ",\n  \"outputs_identical\": %s,\n"
         "  \"outputs_fnv1a\": \"%016" PRIx64 "\"\n}\n",
         peak_rss, b->identical ? "true" : "false", b->outputs_fnv);
}

/* --json without runs: the planning table and the operators not run. */
static void print_json_plan_only(const bench *b) {
  const opts *o = &b->o;
  printf("{\n  \"model\": ");
  cli_json_str(stdout, o->model ? o->model : "builtin:mobilenet_v2_224");
  printf(",\n  \"tasks\": %zu,\n  \"tensors\": %zu,\n  \"precision\": \"%s\",\n",
         texmem_model_op_count(b->model), b->n_rec,
         o->precision == TEXMEM_PRECISION_FP32 ? "fp32" : "fp16");
  printf("  \"plan_bytes\": {");
  for (size_t s = 0; s < N_TABLE; s++)
    printf("%s\n    \"%s\": {\"natural\": %" PRIu64 ", \"linear\": %" PRIu64 "}", s ? "," : "",
           texmem_strategy_name(table_strategies[s]), b->bytes[s][0], b->bytes[s][1]);
  printf("\n  },\n  \"lower_bound\": %" PRIu64 ",\n  \"unsupported_ops\": [", b->lower_bound);
  for (size_t i = 0; i < b->n_unsupported; i++) {
    printf("%s{\"name\": ", i ? ", " : "");
    cli_json_str(stdout, b->unsupported[i].name);
    printf(", \"count\": %zu, \"options_unsupported\": %s}", b->unsupported[i].count,
           b->unsupported[i].options_unsupported ? "true" : "false");
  }
  printf("],\n  \"executed\": false\n}\n");
}

/* The model, its records and operators the runtime cannot execute, and a
 * context (planning goes on without one when nothing will run). 0 or the
 * exit status (b freed). */
static int load(bench *b, bool run) {
  const opts *o = &b->o;
  texmem_error err = {0};
  texmem_status st;
  if (o->model)
    st = cli_load_model(o->model, &o->shapes, &b->model, &err);
  else
    st = texmem_model_mobilenet_v2(BUILTIN_SEED, &b->model, &err);
  if (st == TEXMEM_STATUS_IO && o->model) {
    /* The reader says "read error"; add the system's reason. */
    const char *why = cli_io_reason(o->model);
    size_t l = strlen(err.message);
    if (!strstr(err.message, why)) snprintf(err.message + l, sizeof err.message - l, ": %s", why);
  }
  if (st) return fail(b, o->model ? o->model : "built-in MobileNet v2", st, &err);
  if ((st = texmem_model_records(b->model, 3, o->precision, &b->rec, &b->n_rec, NULL, &err)))
    return fail(b, "records", st, &err);
  if ((st = texmem_runtime_unsupported_ops(b->model, &b->unsupported, &b->n_unsupported, &err)))
    return fail(b, "operators", st, &err);
  run = run && b->n_unsupported == 0;
  const texmem_gl_context_desc cd = {.compile_threads = o->compile_threads};
  if ((st = texmem_gl_context_create(&cd, &b->ctx, &err))) {
    fprintf(stderr, "texmem bench: no GLES 3.1 context: %s: %s\n", texmem_status_name(st),
            err.message);
    if (run) {
      bench_free(b);
      return CLI_EXIT_INTERNAL;
    }
    fprintf(stderr, "texmem bench: planning without the GL texture size limits\n");
    b->ctx = NULL;
  }
  if (b->ctx && o->program_cache) {
    texmem_gl_program_cache cache;
    cli_program_cache_dir(o->program_cache, &cache);
    texmem_gl_context_set_program_cache(b->ctx, &cache);
  }
  fprintf(stderr, "texmem bench: planning %zu tensors with every strategy\n", b->n_rec);
  if ((st = plan_table(b, &err))) return fail(b, "planning", st, &err);
  return 0;
}

/* --plan-only, or operators the runtime cannot execute: the tables. */
static int plan_only(bench *b) {
  const opts *o = &b->o;
  if (o->json) {
    print_json_plan_only(b);
  } else {
    print_tables(b);
    if (b->n_unsupported) print_unsupported(b);
  }
  int rc = CLI_EXIT_OK;
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "texmem bench: writing the output failed\n");
    rc = CLI_EXIT_INTERNAL;
  } else if (b->n_unsupported && !o->plan_only) {
    char list[400];
    texmem_op_tally_format(b->unsupported, b->n_unsupported, list, sizeof list);
    fprintf(stderr, "texmem bench: not run: operators the runtime cannot execute: %s\n", list);
    rc = CLI_EXIT_BAD_INPUT;
  }
  bench_free(b);
  return rc;
}

/* Seeded inputs in [-1, 1). */
static texmem_status make_inputs(bench *b, texmem_error *err) {
  const int32_t *gin = texmem_model_inputs(b->model, &b->n_inputs);
  b->inputs = calloc(b->n_inputs + 1, sizeof *b->inputs);
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; b->inputs && i < b->n_inputs; i++) {
    const texmem_tensor *t = texmem_model_tensor(b->model, (size_t)gin[i]);
    size_t n = (size_t)t->b * t->h * t->w * t->c;
    if (!(b->inputs[i] = malloc((n + 1) * sizeof(float)))) break;
    for (size_t k = 0; k < n; k++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      b->inputs[i][k] = (float)((double)(seed >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
  }
  if (!b->inputs || (b->n_inputs && !b->inputs[b->n_inputs - 1])) {
    snprintf(err->message, sizeof err->message, "out of memory");
    return TEXMEM_STATUS_OUT_OF_MEMORY;
  }
  return TEXMEM_STATUS_OK;
}

/* The layout of the planned run and each storage's runtime desc. */
static void setup_descs(bench *b) {
  const opts *o = &b->o;
  size_t si = table_index(o->strategy);
  if (o->layout == LAYOUT_AUTO)
    b->layout = b->bytes[si][1] && (!b->bytes[si][0] || b->bytes[si][1] < b->bytes[si][0])
                    ? TEXMEM_LAYOUT_LINEAR : TEXMEM_LAYOUT_NATURAL;
  else
    b->layout = (texmem_layout)o->layout;
  bench_setup *su = &b->setup;
  *su = (bench_setup){.ctx = b->ctx, .model = b->model, .inputs = b->inputs,
                      .n_inputs = b->n_inputs, .runs = o->runs};
  su->desc[BENCH_NAIVE] = (texmem_runtime_desc){.strategy = TEXMEM_STRATEGY_NAIVE};
  su->desc[BENCH_OBJECTS] = (texmem_runtime_desc){
      .strategy = storage_strategy(o, TEXMEM_PLAN_OBJECTS), .layout = b->layout};
  su->desc[BENCH_ARENA] = (texmem_runtime_desc){
      .strategy = storage_strategy(o, TEXMEM_PLAN_OFFSETS), .storage = TEXMEM_STORAGE_ARENA};
  for (int s = BENCH_NAIVE; s <= BENCH_ARENA; s++) {
    su->desc[s].precision = o->precision;
    su->desc[s].kernels = o->kernels;
    su->desc[s].conv1x1_split = o->split;
    su->desc[s].unfused = o->unfused;
  }
  su->desc[BENCH_BUFFER] = su->desc[BENCH_ARENA];
  su->desc[BENCH_BUFFER].storage = TEXMEM_STORAGE_BUFFER;
}

static texmem_status create_storages(bench *b, const char **what, texmem_error *err);

/* Naive, planned (both layouts) and arena runtimes, inputs set; *what
 * names the one that failed. */
static texmem_status create_runtimes(bench *b, const char **what, texmem_error *err) {
  setup_descs(b);
  fprintf(stderr, "texmem bench: creating the naive and the planned runtime\n");
  texmem_gl_counters_get(b->ctx, &b->compile_start);
  double t0 = cli_now_ms();
  texmem_status st = create_storages(b, what, err);
  b->create_ms = cli_now_ms() - t0;
  return st;
}

static texmem_status create_storages(bench *b, const char **what, texmem_error *err) {
  bench_setup other = b->setup;
  other.desc[BENCH_OBJECTS].layout =
      b->layout == TEXMEM_LAYOUT_NATURAL ? TEXMEM_LAYOUT_LINEAR : TEXMEM_LAYOUT_NATURAL;
  const struct {
    const char *what;
    const bench_setup *su;
    int slot;
    texmem_runtime **rt;
  } make[] = {{"naive runtime", &b->setup, BENCH_NAIVE, &b->naive},
              {"planned runtime", &b->setup, BENCH_OBJECTS, &b->planned},
              {"planned runtime (other layout)", &other, BENCH_OBJECTS, &b->other},
              {"arena runtime", &b->setup, BENCH_ARENA, &b->arena},
              {"buffer arena runtime", &b->setup, BENCH_BUFFER, &b->buffer}};
  for (size_t i = 0; i < sizeof make / sizeof make[0]; i++) {
    double t0 = cli_now_ms();
    *what = make[i].what;
    texmem_status st = bench_setup_runtime(make[i].su, make[i].slot, false, make[i].rt, err);
    if (st) return st;
    if (!isatty(STDERR_FILENO))
      fprintf(stderr, "texmem bench: %s created in %.0f ms\n", make[i].what, cli_now_ms() - t0);
  }
  choose_storage(b);
  return TEXMEM_STATUS_OK;
}

/* One run of each runtime, untimed. */
static texmem_status untimed_round(bench *b, texmem_error *err) {
  texmem_runtime *all[] = {b->naive, b->planned, b->other, b->arena, b->buffer};
  double ms;
  texmem_status st = TEXMEM_STATUS_OK;
  for (size_t i = 0; i < sizeof all / sizeof all[0] && !st; i++) st = timed_run(all[i], &ms, err);
  return st;
}

/* After the first runs: rounds of all runtimes until the warm-up time (by
 * renderer unless asked) has passed, so that a GPU's clock has risen. */
static texmem_status warm_up(bench *b, texmem_error *err) {
  texmem_gl_info info;
  texmem_gl_context_info(b->ctx, &info);
  b->renders_on_cpu = info.renders_on_cpu;
  int64_t asked = b->o.warmup_ms;
  b->warmup_ms = asked >= 0 ? (uint64_t)asked : b->renders_on_cpu ? 0 : WARMUP_GPU_MS;
  double t0 = cli_now_ms();
  texmem_status st = TEXMEM_STATUS_OK;
  while (!st && cli_now_ms() - t0 < (double)b->warmup_ms) {
    st = untimed_round(b, err);
    b->warmup_rounds++;
  }
  b->warmup_elapsed_ms = cli_now_ms() - t0;
  return st;
}

/* One untimed round (the first runs), the warm-up, then o->runs timed runs
 * of each, interleaved; medians. */
static texmem_status time_runs(bench *b, texmem_error *err) {
  const opts *o = &b->o;
  double *t = calloc(5 * (size_t)o->runs, sizeof *t);
  if (!t) {
    snprintf(err->message, sizeof err->message, "out of memory");
    return TEXMEM_STATUS_OUT_OF_MEMORY;
  }
  double *tn = t, *tp = t + o->runs, *to = t + 2 * o->runs, *ta = t + 3 * o->runs,
         *tb = t + 4 * o->runs;
  double t0 = cli_now_ms();
  texmem_status st = untimed_round(b, err);
  b->first_run_ms = cli_now_ms() - t0;
  texmem_gl_counters c;
  texmem_gl_counters_get(b->ctx, &c);
  b->programs_compiled = c.programs_compiled - b->compile_start.programs_compiled;
  b->programs_loaded = c.programs_loaded - b->compile_start.programs_loaded;
  b->compile_ms = (double)(c.compile_ns - b->compile_start.compile_ns) / 1e6;
  b->compile_threads = c.compile_threads_max;
  bool tty = isatty(STDERR_FILENO);
  if (!tty)
    fprintf(stderr, "texmem bench: created in %.0f ms, first runs %.0f ms: %" PRIu64
            " programs compiled in %.0f ms\n", b->create_ms, b->first_run_ms,
            b->programs_compiled, b->compile_ms);
  if (!st) st = warm_up(b, err);
  if (!tty) fprintf(stderr, "texmem bench: %u timed runs of each\n", o->runs);
  for (unsigned r = 0; r < o->runs && !st; r++) {
    if (tty) fprintf(stderr, "\rtexmem bench: run %u/%u", r + 1, o->runs);
    /* The arenas go first or last in turn: no order bias between storages. */
    st = timed_run(b->naive, &tn[r], err);
    if (!st && r % 2) st = timed_run(b->arena, &ta[r], err);
    if (!st && r % 2) st = timed_run(b->buffer, &tb[r], err);
    if (!st) st = timed_run(b->planned, &tp[r], err);
    if (!st) st = timed_run(b->other, &to[r], err);
    if (!st && r % 2 == 0) st = timed_run(b->buffer, &tb[r], err);
    if (!st && r % 2 == 0) st = timed_run(b->arena, &ta[r], err);
  }
  if (tty) fprintf(stderr, "\n");
  if (!st) {
    b->lat_naive = cli_median(tn, o->runs);
    b->lat_planned = cli_median(tp, o->runs);
    b->lat_other = cli_median(to, o->runs);
    b->lat_arena = cli_median(ta, o->runs);
    b->lat_buffer = cli_median(tb, o->runs);
  }
  free(t);
  return st;
}

/* After the timed runs: the profile (--profile), then, with the timed
 * runtimes gone, the driver memory of each storage alone. */
static texmem_status measure_storages(bench *b, const char **what, texmem_error *err) {
  texmem_runtime_get_stats(b->naive, &b->stats[BENCH_NAIVE]);
  texmem_runtime_get_stats(b->planned, &b->stats[BENCH_OBJECTS]);
  texmem_runtime_get_stats(b->arena, &b->stats[BENCH_ARENA]);
  texmem_runtime_get_stats(b->buffer, &b->stats[BENCH_BUFFER]);
  texmem_status st;
  if (b->o.profile) {
    fprintf(stderr, "texmem bench: profiling %u runs of each storage\n", b->o.runs);
    texmem_runtime *const unprofiled[BENCH_STORAGES] = {b->naive, b->planned, b->arena,
                                                        b->buffer};
    *what = "profile";
    if ((st = bench_profile_measure(&b->setup, unprofiled, &b->profile, err))) return st;
  }
  destroy_runtimes(b);
  *what = "driver memory";
  return bench_memory_measure(&b->setup, b->stats, &b->memory, err);
}

/* --alone S: storage S's runtime made first and alone, run once, its
 * driver memory reported; nothing timed. */
static int alone(bench *b) {
  const opts *o = &b->o;
  texmem_error err = {0};
  setup_descs(b);
  int s = o->alone;
  fprintf(stderr, "texmem bench: the %s runtime alone\n", bench_storage_names[s]);
  texmem_status st = bench_memory_measure_alone(&b->setup, s, &b->memory, &err);
  if (st) return fail(b, bench_storage_names[s], st, &err);
  if (o->json) {
    printf("{\n  \"model\": ");
    cli_json_str(stdout, o->model ? o->model : "builtin:mobilenet_v2_224");
    printf(",\n  \"precision\": \"%s\",\n  \"alone\": \"%s\",\n",
           o->precision == TEXMEM_PRECISION_FP32 ? "fp32" : "fp16", bench_storage_names[s]);
    bench_memory_json(&b->memory);
    printf("  \"executed\": true\n}\n");
  } else {
    bench_memory_print(&b->memory);
  }
  bench_free(b);
  return CLI_EXIT_OK;
}

/* --dispatch-cost: no model, a context of its own. */
static int dispatch_cost(const opts *o) {
  texmem_gl_context *ctx = NULL;
  texmem_error err = {0};
  texmem_status st = texmem_gl_context_create(NULL, &ctx, &err);
  if (st) {
    fprintf(stderr, "texmem bench: no GLES 3.1 context: %s: %s\n", texmem_status_name(st),
            err.message);
    return CLI_EXIT_INTERNAL;
  }
  st = bench_dispatch_cost(ctx, o->json, &err);
  texmem_gl_context_destroy(ctx);
  if (st) {
    fprintf(stderr, "texmem bench: dispatch cost: %s: %s\n", texmem_status_name(st), err.message);
    return CLI_EXIT_INTERNAL;
  }
  return fflush(stdout) == 0 && !ferror(stdout) ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}

int cli_cmd_bench(int argc, char **argv) {
  bench b;
  memset(&b, 0, sizeof b);
  int rc = parse_args(argc, argv, &b.o);
  if (rc) return rc < 0 ? CLI_EXIT_OK : rc;
  const opts *o = &b.o;
  if (o->dispatch_cost) return dispatch_cost(o);
  b.texel_bytes = o->precision == TEXMEM_PRECISION_FP32 ? 16 : 8;
  if ((rc = load(&b, !o->plan_only))) return rc;
  if (o->plan_only || b.n_unsupported) return plan_only(&b);

  texmem_error err = {0};
  const char *what = "inputs";
  texmem_status st = make_inputs(&b, &err);
  if (!st && o->alone >= 0) return alone(&b);
  if (!st) st = create_runtimes(&b, &what, &err);
  if (st) return fail(&b, what, st, &err);
  if ((st = time_runs(&b, &err))) return fail(&b, "run", st, &err);
  if ((st = count_barriers(&b, &err))) return fail(&b, "barrier count", st, &err);
  if ((st = compare_outputs(&b, &err))) return fail(&b, "outputs", st, &err);
  if ((st = bench_io_measure(&b.setup, chosen_runtime(&b), &b.io, &err)))
    return fail(&b, "graph I/O", st, &err);
  if ((st = measure_storages(&b, &what, &err))) return fail(&b, what, st, &err);

  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  uint64_t peak_rss = (uint64_t)ru.ru_maxrss * 1024u;
  if (o->json)
    print_json(&b, peak_rss);
  else
    print_report(&b, peak_rss);
  bool identical = b.identical;
  bench_free(&b);
  if (!identical) {
    fprintf(stderr, "texmem bench: the planned outputs differ from the naive ones\n");
    return CLI_EXIT_INTERNAL;
  }
  return CLI_EXIT_OK;
}

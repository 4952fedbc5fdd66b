/* texmem bench's per-storage measurements beside the timed runs: the GPU
 * profile of every dispatch (--profile, bench_profile.c) and the driver's
 * memory figures (bench_memory.c), for naive, objects, the texture arena
 * and the buffer arena. */
#ifndef TEXMEM_CLI_BENCH_STORAGE_H
#define TEXMEM_CLI_BENCH_STORAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "texmem/runtime.h"

enum { BENCH_NAIVE = 0, BENCH_OBJECTS = 1, BENCH_ARENA = 2, BENCH_BUFFER = 3, BENCH_STORAGES = 4 };
extern const char *const bench_storage_names[BENCH_STORAGES];

/* What every measurement needs to make a storage's runtime again. */
typedef struct bench_setup {
  texmem_gl_context *ctx;
  const texmem_model *model;
  texmem_runtime_desc desc[BENCH_STORAGES];
  float *const *inputs;
  size_t n_inputs;
  unsigned runs;
} bench_setup;

/* A runtime of storage s with desc (profile as given), its inputs set. */
texmem_status bench_setup_runtime(const bench_setup *b, int s, bool profile, texmem_runtime **out,
                                  texmem_error *err);

/* ---- profile ---- */
typedef struct bench_agg {
  const char *name; /* op type or kernel (borrowed from a runtime: copied) */
  size_t dispatches;
  uint64_t gpu_ns, cpu_ns;
  uint64_t work_groups, invocations; /* launched by its dispatches, summed */
} bench_agg;

typedef struct bench_profile_storage {
  bool ok;           /* false: every run discarded (disjoint) */
  unsigned kept, discarded;
  uint64_t run_gpu_ns, gpu_ns, cpu_ns;
  bool run_from_span; /* run_gpu_ns: timestamps around the profiled run (else
                         an elapsed query around an unprofiled run) */
  size_t dispatches;
  bench_agg *by_type, *by_kernel;
  size_t n_type, n_kernel;
  bench_agg *slowest; /* single dispatches ("op K TYPE kernel"), slowest first */
  size_t n_slowest;   /* at most BENCH_SLOWEST */
  bench_agg *every;   /* every dispatch in run order, each its median over
                         the kept runs (JSON only) */
  size_t n_every;
} bench_profile_storage;

#define BENCH_SLOWEST 8

typedef struct bench_profile {
  bool requested, available;
  char why[256]; /* the timer used, or why there is no profile */
  unsigned runs;
  bench_profile_storage s[BENCH_STORAGES];
} bench_profile;

/* For each storage: a profiled runtime made alone, one warm-up run, then
 * `runs` profiled runs; the run of median GPU time is kept. unprofiled[s]
 * times the run where the driver has only elapsed queries. A driver
 * without timer queries: OK with available false and why. */
texmem_status bench_profile_measure(const bench_setup *b, texmem_runtime *const *unprofiled,
                                    bench_profile *out, texmem_error *err);
void bench_profile_free(bench_profile *p);
void bench_profile_print(const bench_profile *p);
void bench_profile_json(const bench_profile *p);

/* ---- driver memory ---- */
typedef struct bench_memory_storage {
  bool ok; /* a driver figure exists */
  texmem_gl_memory_source source;
  int64_t before, after;
  uint64_t textures, io, weights; /* planned bytes */
} bench_memory_storage;

typedef struct bench_memory {
  bool available;
  int only; /* -1: every storage; else the one storage measured (--alone) */
  char why[256];
  bench_memory_storage s[BENCH_STORAGES];
} bench_memory;

/* Where the context has a driver memory source: each storage alone (no
 * other runtime of the process may hold GPU memory then): create, run
 * once, finish, read the stats, destroy. planned[s] (stats of a runtime
 * made with the same desc) gives the planned bytes where there is none. */
texmem_status bench_memory_measure(const bench_setup *b, const texmem_runtime_stats *planned,
                                   bench_memory *out, texmem_error *err);
/* --alone: storage s only, created and run whether or not the driver has a
 * memory source (the planned bytes come from that runtime). */
texmem_status bench_memory_measure_alone(const bench_setup *b, int s, bench_memory *out,
                                         texmem_error *err);
void bench_memory_print(const bench_memory *m);
void bench_memory_json(const bench_memory *m);

/* ---- graph I/O through the CPU ----
 * What texmem_runtime_set_input and texmem_runtime_get_output cost beside
 * the run: the copies (BHWC <-> texels, fp16 rounding), the upload, and a
 * read back that waits for the GPU. A GPU pipeline that writes and reads
 * the graph's textures itself (texmem_runtime_input_texture) skips both. */
typedef struct bench_io {
  bool measured;
  unsigned runs;
  double set_input_ms, run_ms, get_output_ms; /* medians: every input, one run
                                                 and its finish, every output */
} bench_io;

/* `runs` rounds on rt (the reported planned runtime) of: set every input,
 * run and finish, read every output; each step timed alone. */
texmem_status bench_io_measure(const bench_setup *b, texmem_runtime *rt, bench_io *out,
                               texmem_error *err);
void bench_io_print(const bench_io *io);
void bench_io_json(const bench_io *io);

#endif

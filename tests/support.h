/* Helpers shared by the Criterion tests. */
#ifndef TEXMEM_TESTS_SUPPORT_H
#define TEXMEM_TESTS_SUPPORT_H

#include <criterion/criterion.h>
#include <stddef.h>

#include "texmem/plan.h"

/* Plans with desc, asserts success, and checks the result with the
 * validator (every planner result in the tests goes through here). */
texmem_plan *tt_plan(const texmem_record *rec, size_t n, unsigned dims,
                     texmem_plan_desc desc);
/* Total of tt_plan, plan destroyed. */
uint64_t tt_plan_total(const texmem_record *rec, size_t n, unsigned dims,
                       texmem_plan_desc desc);
/* Reads a whole file (test data); caller frees. Asserts on failure. */
char *tt_read_file(const char *path, size_t *len);
/* Loads tests/data/NAME; asserts on failure. */
texmem_records *tt_load_records(const char *name);
/* Runs argv (argv[0] a path; NULL-terminated) with stdout and stderr sent
 * to files in dir, waits, and returns its exit code (asserts it exited).
 * *out / *err (if not NULL) receive the malloc'd outputs. */
int tt_spawn(const char *const *argv, const char *dir, char **out, char **err);
/* The MediaPipe model cache: $TEXMEM_MODEL_CACHE or ~/.cache/texmem/models. */
const char *tt_model_cache(void);

/* Node for the real-TFLite tests: $TEXMEM_NODE or the first node on PATH
 * (asserts it exists). */
const char *tt_node_path(void);
/* The fetched TFLite WebAssembly runtime: $TEXMEM_TFLITE_WASM or
 * ~/.cache/texmem/tflite-wasm (asserts tflite_web_api_cc.wasm is there). */
const char *tt_tflite_wasm_dir(void);

/* Deterministic pseudo-random numbers for generated cases. */
uint64_t tt_rand(uint64_t *state);

#endif

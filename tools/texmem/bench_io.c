/* texmem bench's graph I/O figures: set_input, the run and get_output of
 * the reported planned runtime, each timed alone, so that the report shows
 * what going through the CPU adds to a run (bench_storage.h). */
#ifdef TEXMEM_HAVE_RUNTIME
#include <stdio.h>
#include <stdlib.h>

#include "bench_storage.h"
#include "cli.h"
#include "cli_util.h"

/* One round: every input set, the run finished, every output read. */
static texmem_status io_round(const bench_setup *b, texmem_runtime *rt, float *out, double ms[3],
                              texmem_error *err) {
  size_t n_out;
  texmem_model_outputs(b->model, &n_out);
  double t0 = cli_now_ms();
  texmem_status st = TEXMEM_STATUS_OK;
  for (size_t i = 0; i < b->n_inputs && !st; i++)
    st = texmem_runtime_set_input(rt, i, b->inputs[i], err);
  /* The upload is the driver's once something waits for it. */
  if (!st) st = texmem_runtime_finish(rt, err);
  double t1 = cli_now_ms();
  if (!st) st = texmem_runtime_run(rt, err);
  if (!st) st = texmem_runtime_finish(rt, err);
  double t2 = cli_now_ms();
  for (size_t i = 0; i < n_out && !st; i++) st = texmem_runtime_get_output(rt, i, out, err);
  double t3 = cli_now_ms();
  ms[0] = t1 - t0;
  ms[1] = t2 - t1;
  ms[2] = t3 - t2;
  return st;
}

texmem_status bench_io_measure(const bench_setup *b, texmem_runtime *rt, bench_io *out,
                               texmem_error *err) {
  *out = (bench_io){.runs = b->runs};
  size_t n_out, most = 1;
  texmem_model_outputs(b->model, &n_out);
  for (size_t i = 0; i < n_out; i++)
    if (texmem_runtime_output_size(rt, i) > most) most = texmem_runtime_output_size(rt, i);
  float *values = malloc(most * sizeof *values);
  double *t = calloc(3 * (size_t)b->runs + 3, sizeof *t);
  texmem_status st = TEXMEM_STATUS_OK;
  if (!values || !t) {
    snprintf(err->message, sizeof err->message, "out of memory");
    st = TEXMEM_STATUS_OUT_OF_MEMORY;
  }
  for (unsigned r = 0; r < b->runs && !st; r++) {
    double ms[3];
    st = io_round(b, rt, values, ms, err);
    for (int k = 0; k < 3; k++) t[k * b->runs + r] = ms[k];
  }
  if (!st && b->runs) {
    out->set_input_ms = cli_median(t, b->runs);
    out->run_ms = cli_median(t + b->runs, b->runs);
    out->get_output_ms = cli_median(t + 2 * (size_t)b->runs, b->runs);
    out->measured = true;
  }
  free(values);
  free(t);
  return st;
}

void bench_io_print(const bench_io *io) {
  if (!io->measured) return;
  printf(
      "CPU I/O:      through the CPU, median of %u rounds of the planned runtime: set_input "
      "%.3f ms, run %.3f ms, get_output %.3f ms\n              (a GPU pipeline skips both: "
      "texmem_runtime_input_texture / _output_texture)\n",
      io->runs, io->set_input_ms, io->run_ms, io->get_output_ms);
}

void bench_io_json(const bench_io *io) {
  if (!io->measured) {
    printf("  \"io_ms\": null,\n");
    return;
  }
  printf("  \"io_ms\": {\"runs\": %u, \"set_input\": %.4f, \"run\": %.4f, \"get_output\": %.4f},\n",
         io->runs, io->set_input_ms, io->run_ms, io->get_output_ms);
}
#else
typedef int texmem__bench_io_needs_runtime; /* built without the runtime */
#endif

/* texmem bench --dispatch-cost (bench_dispatch_cost.c): chains of
 * dispatches of a trivial program, dependent and independent, timed on the
 * GPU: the least a dispatch costs on the driver. */
#ifndef TEXMEM_CLI_BENCH_DISPATCH_COST_H
#define TEXMEM_CLI_BENCH_DISPATCH_COST_H

#include <stdbool.h>

#include "cli.h"
#include "texmem/gl.h"

/* Measures on ctx and prints the report (or JSON). */
texmem_status bench_dispatch_cost(texmem_gl_context *ctx, bool json, texmem_error *err);

#endif

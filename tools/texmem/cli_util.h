/* Helpers every texmem subcommand shares: the one status -> exit code
 * mapping, JSON strings, strict number parsing, timing, the median, and the
 * system's reason for an IO failure. CLI-only; nothing here is library API. */
#ifndef TEXMEM_CLI_UTIL_H
#define TEXMEM_CLI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "texmem/status.h"

/* Exit codes of every subcommand (README, "The texmem command"). */
enum {
  CLI_EXIT_OK = 0,
  CLI_EXIT_INTERNAL = 1,
  CLI_EXIT_BAD_INPUT = 2,
  CLI_EXIT_DOES_NOT_FIT = 3, /* --budget: proven not to fit */
  CLI_EXIT_UNKNOWN = 4       /* --budget: neither shown within the budgets */
};

/* OK -> 0; statuses that describe the input (arguments, files, models,
 * records, limits, overflow, operators) -> 2; anything else -> 1. */
int cli_exit_for(texmem_status st);

/* Writes s (NULL as "") as a JSON string: quotes, backslashes and control
 * characters escaped. */
void cli_json_str(FILE *f, const char *s);

/* Strict unsigned decimal: digits only, no sign, no overflow. */
bool cli_parse_u64(const char *s, uint64_t *out);

/* Monotonic clock in milliseconds. */
double cli_now_ms(void);

/* Median of v[0..n) (sorts v); 0 for n = 0. */
double cli_median(double *v, size_t n);

/* After a loader returned TEXMEM_STATUS_IO for path: the system's reason
 * (strerror text, static storage), found by opening and reading it again
 * (errno is not part of the library's API). */
const char *cli_io_reason(const char *path);

#endif

/* The texmem command's shared helpers (cli_util.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cli_exit_for(texmem_status st) {
  switch (st) {
    case TEXMEM_STATUS_OK: return CLI_EXIT_OK;
    case TEXMEM_STATUS_INVALID_ARGUMENT:
    case TEXMEM_STATUS_IO:
    case TEXMEM_STATUS_BAD_RECORDS:
    case TEXMEM_STATUS_BAD_MODEL:
    case TEXMEM_STATUS_EXCEEDS_LIMITS:
    case TEXMEM_STATUS_OVERFLOW:
    case TEXMEM_STATUS_UNSUPPORTED_OP:
    case TEXMEM_STATUS_UNSUPPORTED: return CLI_EXIT_BAD_INPUT;
    default: return CLI_EXIT_INTERNAL;
  }
}

void cli_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

bool cli_parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s) return false;
  uint64_t v = 0;
  for (const char *p = s; *p; p++) {
    if (*p < '0' || *p > '9') return false;
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

double cli_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double cli_median(double *v, size_t n) {
  if (n == 0) return 0.0;
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const char *cli_io_reason(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return strerror(errno);
  char buf[4096];
  int e = 0;
  while (fread(buf, 1, sizeof buf, f) == sizeof buf) {
  }
  if (ferror(f)) e = errno ? errno : EIO;
  fclose(f);
  return e ? strerror(e) : "the file changed while it was read";
}

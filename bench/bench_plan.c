/* bench_plan: planning time, quality and memory of every strategy.
 *
 *   bench_plan [--max-n N] [--cap-ms MS] [FILES...]
 *
 * Generated records (chains, residual blocks, long skips; 1-D and 2-D) of
 * 100 .. 100 000 tensors, then each records file given. Every measurement
 * runs in a forked child so that a slow strategy can be stopped at the cap
 * and so that the child's peak RSS (getrusage ru_maxrss) belongs to that
 * one size and strategy alone. Prints markdown tables. Targets are
 * reported, not asserted. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h" /* the texmem command's monotonic clock */
#include "gen_records.h"
#include "texmem/plan.h"

#define NSIZES 4
static const size_t sizes[NSIZES] = {100, 1000, 10000, 100000};

/* Rows: every (kind, strategy) pair the library offers, best last. */
typedef struct row {
  texmem_plan_kind kind;
  texmem_layout layout; /* linear rows only run on 2-D/3-D records */
  texmem_strategy strategy;
} row;
#define MAX_ROWS (3 * TEXMEM_STRATEGY_COUNT_)
static row rows[MAX_ROWS];
static size_t nrows;

typedef enum outcome { OUT_OK, OUT_NA, OUT_SKIPPED, OUT_ERROR, OUT_NOT_RUN } outcome;

/* What a child reports through its pipe. */
typedef struct measure {
  outcome out;
  int runs;
  double median_ms;
  uint64_t total;
  size_t objects;
  texmem_bounds bounds;
  long maxrss_kb;
  char chosen[32];
  char msg[200];
} measure;

/* The input of one measurement. */
typedef struct input {
  const char *file; /* NULL: generated */
  gen_kind gen;
  unsigned dims;
  size_t n;
} input;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* In the child: build the input, plan it up to `runs` times. */
static void child_measure(const input *in, row r, double cap_ms, measure *m) {
  texmem_records *loaded = NULL;
  texmem_record *gen = NULL;
  const texmem_record *rec;
  size_t n;
  unsigned dims;
  texmem_error err;
  memset(&err, 0, sizeof err);
  if (in->file) {
    texmem_status st = texmem_records_load(in->file, &loaded, &err);
    if (st) {
      m->out = OUT_ERROR;
      snprintf(m->msg, sizeof m->msg, "%.190s", err.message);
      return;
    }
    rec = texmem_records_data(loaded);
    n = texmem_records_count(loaded);
    dims = texmem_records_dims(loaded);
  } else {
    gen = calloc(in->n ? in->n : 1, sizeof *gen);
    if (!gen) {
      m->out = OUT_ERROR;
      snprintf(m->msg, sizeof m->msg, "out of memory");
      return;
    }
    gen_records(in->gen, in->n, in->dims, 42, gen);
    rec = gen;
    n = in->n;
    dims = in->dims;
  }
  texmem_lower_bounds(rec, n, dims, &m->bounds, NULL);
  int runs = n <= 1000 ? 7 : n <= 10000 ? 5 : 3;
  double times[7];
  texmem_plan_desc d;
  memset(&d, 0, sizeof d);
  d.kind = r.kind;
  d.layout = r.layout;
  d.strategy = r.strategy;
  m->out = OUT_OK;
  for (int i = 0; i < runs; i++) {
    texmem_plan *p = NULL;
    double t0 = cli_now_ms();
    texmem_status st = texmem_plan_create(rec, n, dims, &d, &p, &err);
    double t = cli_now_ms() - t0;
    if (st) {
      m->out = st == TEXMEM_STATUS_UNSUPPORTED ? OUT_NA : OUT_ERROR;
      snprintf(m->msg, sizeof m->msg, "%.190s", err.message);
      break;
    }
    times[i] = t;
    m->runs = i + 1;
    m->total = texmem_plan_total(p);
    m->objects = texmem_plan_object_count(p);
    snprintf(m->chosen, sizeof m->chosen, "%s", texmem_strategy_name(texmem_plan_get_strategy(p)));
    texmem_plan_destroy(p);
    if (t > cap_ms) {
      m->out = OUT_SKIPPED;
      break;
    }
    /* A slow strategy gets fewer runs; the median stays meaningful. */
    if (t > 1000.0 || (t > 200.0 && i >= 2)) break;
  }
  if (m->runs) {
    qsort(times, (size_t)m->runs, sizeof times[0], cmp_double);
    m->median_ms = times[m->runs / 2];
  }
  texmem_records_destroy(loaded);
  free(gen);
}

/* Runs one measurement in a child, killed at the cap. */
static void measure_one(const input *in, row r, double cap_ms, measure *m) {
  memset(m, 0, sizeof *m);
  fflush(stdout);
  int fd[2];
  if (pipe(fd) != 0) {
    m->out = OUT_ERROR;
    snprintf(m->msg, sizeof m->msg, "pipe: %s", strerror(errno));
    return;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    m->out = OUT_ERROR;
    snprintf(m->msg, sizeof m->msg, "fork: %s", strerror(errno));
    return;
  }
  if (pid == 0) {
    close(fd[0]);
    /* Planning one run past the cap ends the child by SIGALRM. */
    alarm((unsigned)(cap_ms / 1000.0) + 2u);
    measure cm;
    memset(&cm, 0, sizeof cm);
    child_measure(in, r, cap_ms, &cm);
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) cm.maxrss_kb = ru.ru_maxrss;
    ssize_t w = write(fd[1], &cm, sizeof cm);
    _exit(w == (ssize_t)sizeof cm ? 0 : 3);
  }
  close(fd[1]);
  size_t got = 0;
  while (got < sizeof *m) {
    ssize_t k = read(fd[0], (char *)m + got, sizeof *m - got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += (size_t)k;
  }
  close(fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got != sizeof *m) {
    memset(m, 0, sizeof *m);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
      m->out = OUT_SKIPPED;
    } else {
      m->out = OUT_ERROR;
      snprintf(m->msg, sizeof m->msg, "child ended with status %d", status);
    }
  }
}

static const char *kind_name(texmem_plan_kind k) {
  return k == TEXMEM_PLAN_OBJECTS ? "objects" : "offsets";
}

static const char *layout_name(texmem_layout l) {
  return l == TEXMEM_LAYOUT_LINEAR ? "linear" : "natural";
}

static void cell(char *buf, size_t len, const measure *m, texmem_plan_kind kind, bool with_total) {
  switch (m->out) {
    case OUT_OK: {
      double pmax = m->bounds.positional_max
                        ? (double)m->total / (double)m->bounds.positional_max
                        : 0.0;
      double live = m->bounds.max_live ? (double)m->total / (double)m->bounds.max_live : 0.0;
      if (with_total)
        snprintf(buf, len, "%.3f | %d | %" PRIu64 " | %.3f | %.3f", m->median_ms, m->runs,
                 m->total, pmax, live);
      else
        snprintf(buf, len, "%.3f ms, %.3f", m->median_ms, kind == TEXMEM_PLAN_OBJECTS ? pmax : live);
      break;
    }
    case OUT_NA: snprintf(buf, len, "%s", with_total ? "n/a | | | |" : "n/a"); break;
    case OUT_SKIPPED:
    case OUT_NOT_RUN: snprintf(buf, len, "%s", with_total ? "skipped | | | |" : "skipped"); break;
    default: snprintf(buf, len, "%s", with_total ? "error | | | |" : "error"); break;
  }
}

static void usage(FILE *f) {
  fprintf(f, "usage: bench_plan [--max-n N] [--cap-ms MS] [RECORDS_FILES...]\n"
             "       bench_plan --write-records chains|residual|long_skips|all_live DIMS N FILE\n"
             "         writes generated records (seed 42) as a records file, for timing\n"
             "         the texmem command on them (bench/plan_large.sh)\n");
}

/* --write-records: one generated input as a records file. */
static int write_records(const char *family, const char *dims_s, const char *n_s,
                         const char *path) {
  int g = -1;
  for (int k = 0; k < GEN_COUNT_; k++)
    if (!strcmp(family, gen_name((gen_kind)k))) g = k;
  unsigned dims = (unsigned)strtoul(dims_s, NULL, 10);
  size_t n = (size_t)strtoull(n_s, NULL, 10);
  bool all_live = !strcmp(family, "all_live");
  if ((g < 0 && !all_live) || dims < 1 || dims > 3 || n == 0) {
    usage(stderr);
    return 2;
  }
  texmem_record *rec = calloc(n, sizeof *rec);
  FILE *f = fopen(path, "w");
  if (!rec || !f) {
    fprintf(stderr, "bench_plan: %s: %s\n", path, rec ? strerror(errno) : "out of memory");
    free(rec);
    if (f) fclose(f);
    return 1;
  }
  if (all_live) gen_all_live(n, dims, 42, rec);
  else gen_records((gen_kind)g, n, dims, 42, rec);
  fprintf(f, "# bench_plan --write-records %s %u %zu\n", family, dims, n);
  for (size_t i = 0; i < n; i++) {
    fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64, rec[i].id, rec[i].first_task, rec[i].last_task);
    for (unsigned k = 0; k < dims; k++) fprintf(f, " %" PRIu64, rec[i].dims[k]);
    fputc('\n', f);
  }
  free(rec);
  if (fclose(f) != 0) {
    fprintf(stderr, "bench_plan: writing %s: %s\n", path, strerror(errno));
    return 1;
  }
  return 0;
}

/* Every (kind, layout, strategy) row: objects natural, objects linear,
 * offsets; best last in each. */
static void build_rows(void) {
  for (int k = 0; k < 3; k++) {
    texmem_plan_kind kind = k < 2 ? TEXMEM_PLAN_OBJECTS : TEXMEM_PLAN_OFFSETS;
    texmem_layout layout = k == 1 ? TEXMEM_LAYOUT_LINEAR : TEXMEM_LAYOUT_NATURAL;
    for (unsigned s = 1; s <= TEXMEM_STRATEGY_COUNT_; s++) {
      texmem_strategy st = s == TEXMEM_STRATEGY_COUNT_ ? TEXMEM_STRATEGY_BEST : (texmem_strategy)s;
      if (texmem_strategy_supports(st, kind)) rows[nrows++] = (row){kind, layout, st};
    }
  }
}

/* What the generated inputs leave for the summary tables. */
typedef struct summary {
  size_t max_n;
  double cap_ms;
  /* Peak RSS per generated input and size: max over strategies. */
  long rss[GEN_COUNT_][2][NSIZES];
  /* Targets: each greedy objects strategy at 10 000 (worst input). */
  double greedy10k[TEXMEM_STRATEGY_COUNT_][2];
} summary;

/* The sizes' header cells of a table ("| n = 100 | ..." and its rule). */
static void size_columns(size_t max_n, const char *rule_start) {
  for (int si = 0; si < NSIZES; si++)
    if (sizes[si] <= max_n) printf(" n = %zu |", sizes[si]);
  printf("\n%s", rule_start);
  for (int si = 0; si < NSIZES; si++)
    if (sizes[si] <= max_n) printf("---:|");
  printf("\n");
}

/* Row r on generator g at every size up to max_n, into res[0..NSIZES); a
 * size that is skipped or n/a stops the larger ones. */
static void measure_sizes(gen_kind g, unsigned dims, size_t r, summary *sm, measure *res) {
  outcome stop = OUT_OK; /* else what the larger sizes get without running */
  for (int si = 0; si < NSIZES; si++) {
    measure *m = &res[si];
    if (sizes[si] > sm->max_n || stop != OUT_OK) {
      memset(m, 0, sizeof *m);
      m->out = stop != OUT_OK ? stop : OUT_NOT_RUN;
      continue;
    }
    input in = {NULL, g, dims, sizes[si]};
    measure_one(&in, rows[r], sm->cap_ms, m);
    if (m->out == OUT_SKIPPED || m->out == OUT_NA) stop = m->out;
    if (m->out == OUT_ERROR)
      fprintf(stderr, "bench_plan: %s %uD n=%zu %s %s %s: %s\n", gen_name(g), dims, sizes[si],
              kind_name(rows[r].kind), layout_name(rows[r].layout),
              texmem_strategy_name(rows[r].strategy), m->msg);
    if (m->maxrss_kb > sm->rss[g][dims - 1][si]) sm->rss[g][dims - 1][si] = m->maxrss_kb;
    if (sizes[si] == 10000 && m->out == OUT_OK && rows[r].kind == TEXMEM_PLAN_OBJECTS &&
        rows[r].layout == TEXMEM_LAYOUT_NATURAL &&
        m->median_ms > sm->greedy10k[rows[r].strategy][dims - 1])
      sm->greedy10k[rows[r].strategy][dims - 1] = m->median_ms;
  }
}

/* One generator and dims: every row at every size, as a table. */
static void bench_generated(gen_kind g, unsigned dims, summary *sm, measure *res) {
  for (size_t r = 0; r < nrows; r++)
    if (!(dims == 1 && rows[r].layout == TEXMEM_LAYOUT_LINEAR))
      measure_sizes(g, dims, r, sm, &res[r * NSIZES]);
  printf("\n## %s, %u-D (%s)\n\n| kind | layout | strategy |", gen_name(g), dims,
         dims == 1 ? "bytes" : "texels");
  size_columns(sm->max_n, "|---|---|---|");
  for (size_t r = 0; r < nrows; r++) {
    if (dims == 1 && rows[r].layout == TEXMEM_LAYOUT_LINEAR) continue;
    printf("| %s | %s | %s |", kind_name(rows[r].kind), layout_name(rows[r].layout),
           texmem_strategy_name(rows[r].strategy));
    for (int si = 0; si < NSIZES; si++) {
      if (sizes[si] > sm->max_n) continue;
      char buf[96];
      cell(buf, sizeof buf, &res[r * NSIZES + (size_t)si], rows[r].kind, false);
      printf(" %s |", buf);
    }
    printf("\n");
  }
  fflush(stdout);
}

static void print_rss(const summary *sm) {
  printf("\n## Peak RSS (MiB, max over strategies; includes the generated records, 40 bytes "
         "each)\n\n| input |");
  size_columns(sm->max_n, "|---|");
  for (int g = 0; g < GEN_COUNT_; g++)
    for (unsigned dims = 1; dims <= 2; dims++) {
      printf("| %s %u-D |", gen_name((gen_kind)g), dims);
      for (int si = 0; si < NSIZES; si++)
        if (sizes[si] <= sm->max_n) printf(" %.1f |", (double)sm->rss[g][dims - 1][si] / 1024.0);
      printf("\n");
    }
}

/* Every row on one records file, as a table; returns min_cost_flow's
 * median time on it (0 when not measured). */
static double bench_file(const char *file, double cap_ms) {
  unsigned fdims = 0;
  texmem_records *probe = NULL;
  if (texmem_records_load(file, &probe, NULL) == TEXMEM_STATUS_OK) fdims = texmem_records_dims(probe);
  texmem_records_destroy(probe);
  printf("\n## %s\n\n| kind | layout | strategy | median ms | runs | total | /positional_max "
         "| /max_live | chosen | RSS MiB |\n|---|---|---|---:|---:|---:|---:|---:|---|---:|\n",
         file);
  double mcf = 0.0;
  for (size_t r = 0; r < nrows; r++) {
    if (fdims < 2 && rows[r].layout == TEXMEM_LAYOUT_LINEAR) continue;
    input in = {file, GEN_CHAINS, 0, 0};
    measure m;
    measure_one(&in, rows[r], cap_ms, &m);
    if (m.out == OUT_ERROR)
      fprintf(stderr, "bench_plan: %s %s %s %s: %s\n", file, kind_name(rows[r].kind),
              layout_name(rows[r].layout), texmem_strategy_name(rows[r].strategy), m.msg);
    if (m.out == OUT_OK && rows[r].strategy == TEXMEM_STRATEGY_MIN_COST_FLOW &&
        rows[r].layout == TEXMEM_LAYOUT_NATURAL && m.median_ms > mcf)
      mcf = m.median_ms;
    char buf[128];
    cell(buf, sizeof buf, &m, rows[r].kind, true);
    printf("| %s | %s | %s | %s | %s | %.1f |\n", kind_name(rows[r].kind),
           layout_name(rows[r].layout), texmem_strategy_name(rows[r].strategy), buf,
           m.out == OUT_OK && rows[r].strategy == TEXMEM_STRATEGY_BEST ? m.chosen : "",
           (double)m.maxrss_kb / 1024.0);
  }
  fflush(stdout);
  return mcf;
}

/* The targets: greedy objects at 10 000 records, min_cost_flow at 300. */
static void print_targets(const summary *sm, double mcf_max) {
  printf("\n## Targets (reported, not asserted)\n\n");
  if (sm->max_n >= 10000) {
    static const texmem_strategy greedy[] = {TEXMEM_STRATEGY_GREEDY_IN_ORDER,
                                             TEXMEM_STRATEGY_GREEDY_BY_BREADTH,
                                             TEXMEM_STRATEGY_GREEDY_BY_SIZE};
    for (size_t i = 0; i < 3; i++)
      for (unsigned dims = 1; dims <= 2; dims++) {
        double t = sm->greedy10k[greedy[i]][dims - 1];
        printf("- objects %s, 10 000 records %u-D, slowest generator: ",
               texmem_strategy_name(greedy[i]), dims);
        if (t > 0) printf("%.2f ms (target < 50 ms: %s)\n", t, t < 50.0 ? "met" : "MISSED");
        else printf("not measured\n");
      }
  }
  if (mcf_max > 0)
    printf("- objects min_cost_flow on the records files given: slowest %.2f ms\n", mcf_max);
  for (int g = 0; g < GEN_COUNT_; g++)
    for (unsigned dims = 1; dims <= 2; dims++) {
      input in = {NULL, (gen_kind)g, dims, 300};
      measure m;
      row mcf = {TEXMEM_PLAN_OBJECTS, TEXMEM_LAYOUT_NATURAL, TEXMEM_STRATEGY_MIN_COST_FLOW};
      measure_one(&in, mcf, sm->cap_ms, &m);
      printf("- objects min_cost_flow, 300 records %s %u-D: ", gen_name((gen_kind)g), dims);
      if (m.out == OUT_OK)
        printf("%.2f ms, %.3f of positional_max (target < 10 ms: %s)\n", m.median_ms,
               m.bounds.positional_max ? (double)m.total / (double)m.bounds.positional_max : 0.0,
               m.median_ms < 10.0 ? "met" : "MISSED");
      else
        printf("%s\n", m.out == OUT_NA ? "n/a" : m.out == OUT_SKIPPED ? "skipped" : "error");
    }
}

int main(int argc, char **argv) {
  static summary sm = {.max_n = 100000, .cap_ms = 5000.0};
  int nfiles = 0;
  const char **files = calloc((size_t)argc + 1, sizeof *files);
  if (!files) return 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--write-records") && i + 4 < argc) {
      free(files);
      return write_records(argv[i + 1], argv[i + 2], argv[i + 3], argv[i + 4]);
    } else if (!strcmp(argv[i], "--max-n") && i + 1 < argc) {
      sm.max_n = (size_t)strtoull(argv[++i], NULL, 10);
    } else if (!strcmp(argv[i], "--cap-ms") && i + 1 < argc) {
      sm.cap_ms = strtod(argv[++i], NULL);
    } else if (!strcmp(argv[i], "--help") || argv[i][0] == '-') {
      bool help = !strcmp(argv[i], "--help");
      usage(help ? stdout : stderr);
      free(files);
      return help ? 0 : 2;
    } else {
      files[nfiles++] = argv[i];
    }
  }
  build_rows();
  printf("# bench_plan\n\nCell: median planning time over the runs (7 for n <= 1000, 5 for "
         "10 000, 3 above; fewer when a run is slow), then total / positional_max for objects, "
         "total / max_live for offsets. \"skipped\": a single run took over %.0f ms (larger "
         "sizes are then not tried); \"n/a\": the strategy returned UNSUPPORTED.\n",
         sm.cap_ms);
  measure *res = calloc(nrows * NSIZES, sizeof *res);
  if (!res) {
    free(files);
    return 1;
  }
  for (int g = 0; g < GEN_COUNT_; g++)
    for (unsigned dims = 1; dims <= 2; dims++) bench_generated((gen_kind)g, dims, &sm, res);
  print_rss(&sm);
  double mcf_max = 0.0;
  for (int fi = 0; fi < nfiles; fi++) {
    double t = bench_file(files[fi], sm.cap_ms);
    if (t > mcf_max) mcf_max = t;
  }
  print_targets(&sm, mcf_max);
  free(res);
  free(files);
  return 0;
}

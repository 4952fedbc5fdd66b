/* libFuzzer target: the planner on small record sets decoded from bytes.
 * Every strategy runs for the kind and layout the input names (two flag
 * bits, so the fuzzer reaches each pair and coverage tells them apart; one
 * pair an input keeps an execution at a quarter of the work), and the
 * results are held to what the planner promises:
 *   - each plan validates (texmem_plan_validate, again here);
 *   - objects total >= positional_max, offsets total >= max_live;
 *   - BEST <= every strategy of its kind and layout that planned, and BEST
 *     fails only when every strategy failed;
 *   - a failure is a status from the expected list, with a message;
 *   - on n <= 6 records, no plan beats the brute-force optimum, an
 *     optimality claim equals it, and a claimed bound never exceeds it.
 *
 * Input bytes: [flags] [n] then per record [first] [len] and per dimension a
 * size ([small] or, with the high bit, [exp] [sub] for sizes near 2^exp).
 * Flags: dims (bits 0-1), alignment (2-3), texture limits (4), linear
 * width (5), offsets kind (6), linear layout (7; natural when 1-D).
 * A byte after the records (natural offsets only) fixes the tensors of its
 * set bits where greedy_by_size put them, and exact plans the others
 * around them: the plan validates and keeps them, is no worse than
 * greedy_by_size's with the same tensors fixed, and the budget question
 * just under that answers honestly. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "texmem/plan.h"
#include "fuzz_target.h"
#ifdef FUZZ_PLANNER_DEBUG
#include <stdio.h>
#endif


#define MAX_N 8
#define BRUTE_N 6

typedef struct input {
  texmem_plan_kind kind;
  texmem_layout layout;
  unsigned dims;
  uint64_t alignment;
  uint64_t max_dims[3];
  uint64_t linear_width;
  size_t n;
  texmem_record r[MAX_N];
} input;

typedef struct reader {
  const unsigned char *p;
  size_t left;
} reader;

static unsigned byte(reader *rd) {
  if (!rd->left) return 0;
  rd->left--;
  return *rd->p++;
}

static uint64_t size_of(reader *rd) {
  unsigned b = byte(rd);
  if (!(b & 0x80)) return b; /* 0..127 */
  unsigned e = b & 63;
  uint64_t v = (uint64_t)1 << e;
  return v - (byte(rd) & 3);
}

/* Returns the bytes left after the records. */
static reader decode(const unsigned char *data, size_t size, input *in) {
  reader rd = {data, size};
  memset(in, 0, sizeof *in);
  unsigned f = byte(&rd);
  in->dims = 1 + (f & 3) % 3;
  static const uint64_t aligns[4] = {0, 1, 4, 16};
  in->alignment = aligns[(f >> 2) & 3];
  if (f & 0x10)
    for (int k = 0; k < 3; k++) in->max_dims[k] = 64;
  if (f & 0x20) in->linear_width = 16;
  in->kind = f & 0x40 ? TEXMEM_PLAN_OFFSETS : TEXMEM_PLAN_OBJECTS;
  in->layout = f & 0x80 && in->dims >= 2 ? TEXMEM_LAYOUT_LINEAR : TEXMEM_LAYOUT_NATURAL;
  in->n = 1 + byte(&rd) % MAX_N;
  for (size_t i = 0; i < in->n; i++) {
    texmem_record *r = &in->r[i];
    r->id = i;
    r->first_task = byte(&rd) % 12;
    r->last_task = r->first_task + byte(&rd) % 6;
    for (unsigned k = 0; k < 3; k++) r->dims[k] = k < in->dims ? size_of(&rd) : 1;
  }
  return rd;
}

static bool conflict(const texmem_record *a, const texmem_record *b) {
  return a->first_task <= b->last_task && b->first_task <= a->last_task;
}

static uint64_t sat_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
static uint64_t sat_add(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t volume(const texmem_record *r, unsigned dims) {
  uint64_t v = 1;
  for (unsigned k = 0; k < dims; k++) v = sat_mul(v, r->dims[k]);
  return v;
}

/* ---- brute force (n <= BRUTE_N) ---- */

/* Objects, natural layout: the cheapest partition into groups of pairwise
 * non-conflicting tensors, a group costing the volume of its per-dimension
 * maximum (UINT64_MAX when that overflows: no plan can use it). */
typedef struct objects_bf {
  const input *in;
  int group[MAX_N];
  uint64_t best;
} objects_bf;

static void objects_rec(objects_bf *b, size_t i, int groups) {
  const input *in = b->in;
  if (i == in->n) {
    uint64_t total = 0;
    for (int g = 0; g < groups; g++) {
      uint64_t d[3] = {0, 0, 0};
      for (size_t j = 0; j < in->n; j++)
        if (b->group[j] == g)
          for (unsigned k = 0; k < 3; k++)
            if (in->r[j].dims[k] > d[k]) d[k] = in->r[j].dims[k];
      uint64_t v = 1;
      for (unsigned k = 0; k < in->dims; k++) v = sat_mul(v, d[k]);
      total = sat_add(total, v);
    }
    if (total < b->best) b->best = total;
    return;
  }
  for (int g = 0; g <= groups; g++) {
    bool ok = true;
    for (size_t j = 0; j < i && ok; j++)
      if (b->group[j] == g && conflict(&in->r[i], &in->r[j])) ok = false;
    if (!ok) continue;
    b->group[i] = g;
    objects_rec(b, i + 1, g == groups ? groups + 1 : groups);
  }
}

static uint64_t objects_optimum(const input *in) {
  objects_bf b = {.in = in, .best = UINT64_MAX};
  objects_rec(&b, 0, 0);
  return b.best;
}

/* Offsets: any optimal arena can be compacted (tensors by offset, each at
 * the lowest aligned offset clear of the conflicting ones before it), so
 * the best lowest-offset placement over all orders is the optimum. */
typedef struct offsets_bf {
  const input *in;
  uint64_t size[MAX_N], off[MAX_N], a;
  size_t order[MAX_N];
  bool used[MAX_N];
  uint64_t best;
} offsets_bf;

static void offsets_rec(offsets_bf *b, size_t depth, uint64_t top) {
  const input *in = b->in;
  if (top >= b->best) return;
  if (depth == in->n) {
    b->best = top;
    return;
  }
  for (size_t i = 0; i < in->n; i++) {
    if (b->used[i]) continue;
    /* lowest aligned offset clear of the placed conflicting tensors */
    uint64_t o = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t d = 0; d < depth; d++) {
        size_t j = b->order[d];
        if (!conflict(&in->r[i], &in->r[j]) || b->size[j] == 0 || b->size[i] == 0) continue;
        if (o < b->off[j] + b->size[j] && b->off[j] < o + b->size[i]) {
          o = (b->off[j] + b->size[j] + b->a - 1) / b->a * b->a;
          moved = true;
        }
      }
    }
    b->used[i] = true;
    b->off[i] = o;
    b->order[depth] = i;
    offsets_rec(b, depth + 1, o + b->size[i] > top ? o + b->size[i] : top);
    b->used[i] = false;
  }
}

static uint64_t offsets_optimum(const input *in) {
  offsets_bf b = {.in = in, .a = in->alignment ? in->alignment : 1, .best = UINT64_MAX};
  for (size_t i = 0; i < in->n; i++) b.size[i] = volume(&in->r[i], in->dims);
  offsets_rec(&b, 0, 0);
  return b.best;
}

/* ---- the planner ---- */

static bool expected_failure(texmem_status s) {
  return s == TEXMEM_STATUS_OVERFLOW || s == TEXMEM_STATUS_EXCEEDS_LIMITS ||
         s == TEXMEM_STATUS_UNSUPPORTED;
}

static texmem_status plan_fixed(const input *in, texmem_strategy s, const uint64_t *fixed,
                                uint64_t budget, texmem_plan **p, texmem_error *err) {
  texmem_plan_desc d = {.kind = TEXMEM_PLAN_OFFSETS,
                        .strategy = s,
                        .alignment = in->alignment,
                        .fixed_offsets = fixed,
                        .budget = budget};
  return texmem_plan_create(in->r, in->n, in->dims, &d, p, err);
}

/* The fixed-offsets stage (see the top). */
static void fixed_stage(const input *in, unsigned mask) {
  texmem_plan *g = NULL, *h = NULL, *e = NULL, *q = NULL;
  texmem_error err = {0};
  if (plan_fixed(in, TEXMEM_STRATEGY_GREEDY_BY_SIZE, NULL, 0, &g, &err)) return;
  uint64_t fixed[MAX_N];
  for (size_t i = 0; i < in->n; i++)
    fixed[i] = mask >> i & 1 ? texmem_plan_tensor_offset(g, i) : TEXMEM_OFFSET_FREE;
  texmem_plan_destroy(g);
  texmem_status st = plan_fixed(in, TEXMEM_STRATEGY_GREEDY_BY_SIZE, fixed, 0, &h, &err);
  if (st) {
    CHECK(h == NULL && expected_failure(st) && err.message[0]);
    return;
  }
  st = plan_fixed(in, TEXMEM_STRATEGY_EXACT, fixed, 0, &e, &err);
  CHECK(st == TEXMEM_STATUS_OK);
  CHECK(texmem_plan_validate(in->r, in->n, in->dims, e, &err) == TEXMEM_STATUS_OK);
  for (size_t i = 0; i < in->n; i++)
    if (fixed[i] != TEXMEM_OFFSET_FREE) CHECK(texmem_plan_tensor_offset(e, i) == fixed[i]);
  uint64_t ht = texmem_plan_total(h);
  CHECK(texmem_plan_total(e) <= ht);
  CHECK(texmem_plan_bound(e) <= texmem_plan_total(e));
  if (ht > 1 && plan_fixed(in, TEXMEM_STRATEGY_EXACT, fixed, ht - 1, &q, &err) == TEXMEM_STATUS_OK) {
    texmem_fit f = texmem_plan_fits(q);
    if (f == TEXMEM_FIT_FITS) CHECK(texmem_plan_total(q) <= ht - 1);
    if (f == TEXMEM_FIT_DOES_NOT_FIT) CHECK(texmem_plan_bound(q) > ht - 1 && texmem_plan_total(e) == ht);
    texmem_plan_destroy(q);
  }
  texmem_plan_destroy(h);
  texmem_plan_destroy(e);
}


int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  input in;
  reader rest = decode(data, size, &in);
  texmem_bounds bounds;
  texmem_error err = {0};
  texmem_status bs = texmem_lower_bounds(in.r, in.n, in.dims, &bounds, &err);
  if (bs != TEXMEM_STATUS_OK) {
    CHECK(bs == TEXMEM_STATUS_OVERFLOW && err.message[0]);
    return 0;
  }
  /* The brute force needs sizes whose sum fits (else planning overflows). */
  uint64_t sum = 0;
  for (size_t i = 0; i < in.n; i++) sum = sat_add(sum, sat_add(volume(&in.r[i], in.dims), 16));
  const int kind = in.kind, layout = in.layout;
  bool brute = in.n <= BRUTE_N && sum != UINT64_MAX && !in.max_dims[0] &&
               layout == TEXMEM_LAYOUT_NATURAL;
  uint64_t opt = !brute                        ? 0
                 : kind == TEXMEM_PLAN_OBJECTS ? objects_optimum(&in)
                                               : offsets_optimum(&in);
  uint64_t best_total = 0, min_named = UINT64_MAX;
  bool best_ok = false, named_ok = false;
  for (int s = TEXMEM_STRATEGY_BEST; s < TEXMEM_STRATEGY_COUNT_; s++) {
    if (!texmem_strategy_supports((texmem_strategy)s, (texmem_plan_kind)kind)) continue;
    texmem_plan_desc d = {.kind = (texmem_plan_kind)kind,
                          .strategy = (texmem_strategy)s,
                          .layout = (texmem_layout)layout,
                          .alignment = kind == TEXMEM_PLAN_OFFSETS ? in.alignment : 0,
                          .linear_width = in.linear_width};
    memcpy(d.max_dims, in.max_dims, sizeof d.max_dims);
    texmem_plan *p = NULL;
    memset(&err, 0, sizeof err);
    texmem_status st = texmem_plan_create(in.r, in.n, in.dims, &d, &p, &err);
#ifdef FUZZ_PLANNER_DEBUG
    fprintf(stderr, "kind %d layout %d %-18s: %s %llu (%s)\n", kind, layout,
            texmem_strategy_name((texmem_strategy)s), texmem_status_name(st),
            st ? 0ull : (unsigned long long)texmem_plan_total(p), st ? err.message : "");
#endif
    if (st != TEXMEM_STATUS_OK) {
      CHECK(p == NULL && expected_failure(st) && err.message[0] && err.status == st);
      continue;
    }
    CHECK(texmem_plan_validate(in.r, in.n, in.dims, p, &err) == TEXMEM_STATUS_OK);
    uint64_t total = texmem_plan_total(p);
    if (kind == TEXMEM_PLAN_OBJECTS) {
      CHECK(total >= bounds.positional_max);
    } else {
      CHECK(total >= bounds.max_live);
    }
    if (brute) {
      CHECK(total >= opt);
      if (texmem_plan_is_optimal(p)) CHECK(total == opt);
      if (kind == TEXMEM_PLAN_OFFSETS) CHECK(texmem_plan_bound(p) <= opt);
    }
    if (s == TEXMEM_STRATEGY_BEST) {
      best_ok = true;
      best_total = total;
    } else {
      named_ok = true;
      if (total < min_named) min_named = total;
    }
    texmem_plan_destroy(p);
  }
  if (named_ok || best_ok) CHECK(best_ok && named_ok && best_total <= min_named);
  if (kind == TEXMEM_PLAN_OFFSETS && layout == TEXMEM_LAYOUT_NATURAL && rest.left)
    fixed_stage(&in, byte(&rest));
  return 0;
}

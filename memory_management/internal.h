/* Internal planner interface: the normalised problem every strategy sees,
 * one function per strategy (one algorithm a file), and the rooms around
 * them (each section names its file; the call graph is in plan.c). */
#ifndef TEXMEM_MM_INTERNAL_H
#define TEXMEM_MM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "common.h"
#include "texmem/plan.h"

/* The normalised problem. Tasks are compressed to dense 0..ntasks-1 (the
 * order of all first/last values is kept, so conflicts are unchanged).
 * For the linear layout, dims are (rows, 1, 1) and ndims is 1. */
typedef struct texmem__problem {
  size_t n;
  unsigned ndims;        /* 1, 2 or 3 (1 for linear) */
  uint64_t (*dims)[3];   /* n entries; unused dims are 1 */
  uint64_t *size;        /* n volumes; their sum fits in 64 bits */
  uint32_t *first;       /* n compressed first tasks */
  uint32_t *last;        /* n compressed last tasks, inclusive */
  uint32_t ntasks;       /* compressed task count (0 when n == 0) */
  uint64_t *span;        /* NULL, or n lifetimes in the records' own task
                            units (last - first + 1, saturated): exact's
                            preorders weigh real lengths, not ranks */
  uint64_t alignment;    /* offsets: >= 1; size[] is NOT aligned */
  uint64_t exact_node_budget;
  double exact_time_budget_ms;
  bool exact_time_cpu;   /* the time budget is thread CPU time */
  uint64_t budget;       /* exact: only ask "fits in budget?"; 0 = optimise */
  const uint64_t *fixed; /* NULL, or n offsets (TEXMEM_OFFSET_FREE: planned) */
} texmem__problem;

static inline bool texmem__is_fixed(const texmem__problem *pb, size_t i) {
  return pb->fixed && pb->fixed[i] != TEXMEM_OFFSET_FREE;
}

static inline bool texmem__conflict(const texmem__problem *pb, size_t a,
                                    size_t b) {
  return pb->first[a] <= pb->last[b] && pb->first[b] <= pb->last[a];
}

/* Shared objects: write object_of[i] in [0, *n_objects) for each tensor.
 * Object dims are then the per-dimension max of their tensors. */
typedef texmem_status (*texmem__objects_fn)(const texmem__problem *pb,
                                            size_t *object_of,
                                            size_t *n_objects,
                                            texmem_error *err);

texmem_status texmem__objects_naive(const texmem__problem *, size_t *, size_t *, texmem_error *);
texmem_status texmem__objects_equality(const texmem__problem *, size_t *, size_t *, texmem_error *);
texmem_status texmem__objects_greedy_in_order(const texmem__problem *, size_t *, size_t *, texmem_error *);
texmem_status texmem__objects_greedy_by_breadth(const texmem__problem *, size_t *, size_t *, texmem_error *);
texmem_status texmem__objects_greedy_by_size(const texmem__problem *, size_t *, size_t *, texmem_error *);
texmem_status texmem__objects_min_cost_flow(const texmem__problem *, size_t *, size_t *, texmem_error *);
texmem_status texmem__objects_local_search(const texmem__problem *, size_t *, size_t *, texmem_error *);

/* Offsets: write offset[i] (a multiple of pb->alignment) for each tensor.
 * *optimal / *bound only matter for exact search (others leave them). */
typedef texmem_status (*texmem__offsets_fn)(const texmem__problem *pb,
                                            uint64_t *offset, bool *optimal,
                                            uint64_t *bound,
                                            texmem_error *err);

texmem_status texmem__offsets_greedy_in_order(const texmem__problem *, uint64_t *, bool *, uint64_t *, texmem_error *);
texmem_status texmem__offsets_greedy_by_breadth(const texmem__problem *, uint64_t *, bool *, uint64_t *, texmem_error *);
texmem_status texmem__offsets_greedy_by_size(const texmem__problem *, uint64_t *, bool *, uint64_t *, texmem_error *);
texmem_status texmem__offsets_strip_best_fit(const texmem__problem *, uint64_t *, bool *, uint64_t *, texmem_error *);
texmem_status texmem__offsets_exact(const texmem__problem *, uint64_t *, bool *, uint64_t *, texmem_error *);
texmem_status texmem__offsets_tflm_greedy(const texmem__problem *, uint64_t *, bool *, uint64_t *, texmem_error *);

/* Stable counting sort of the tensors by task[i] (pb->first or pb->last):
 * the tensors with task t are order[start[t] .. start[t+1]). order has
 * pb->n entries, start pb->ntasks + 1. */
void texmem__bucket_by_task(const texmem__problem *pb, const uint32_t *task, size_t *order,
                            size_t *start);
/* The members of one object (tensors that never conflict), for objects
 * that grow to any size: member_set.c. Zero-initialise; free with
 * texmem__mset_free. first/last are the problem's task arrays. */
typedef struct texmem__mnode {
  uint32_t first, last; /* copies, so searches read the run only */
  size_t t;
} texmem__mnode;
typedef struct texmem__mset {
  texmem__mnode **run; /* run[k]: 2^k members sorted by first task, or NULL */
  unsigned nruns;
  size_t len;
} texmem__mset;
bool texmem__mset_insert(texmem__mset *s, const uint32_t *first, const uint32_t *last,
                         size_t t);
/* The member with the smallest first task among those with last >= f
 * (the one a tensor starting at f could meet next); SIZE_MAX if none. */
size_t texmem__mset_after(const texmem__mset *s, uint32_t f);
/* The member with the largest first task among those with last < f. */
size_t texmem__mset_before(const texmem__mset *s, uint32_t f);
void texmem__mset_free(texmem__mset *s);

/* Lower bounds on the normalised problem (volumes): bounds.c. */
texmem_status texmem__bounds(const texmem__problem *pb, texmem_bounds *out,
                             texmem_error *err);

/* ---- the normalised problem: problem.c ---- */
/* The desc with every zero-means-default field filled (desc may be NULL):
 * the one place plan defaults are set. */
#define TEXMEM__DEFAULT_BUDGET_MS 2000.0
texmem_plan_desc texmem__plan_desc_defaults(const texmem_plan_desc *desc);
/* Checks records (first <= last, limits, 64-bit sums) and builds the
 * natural problem; free with texmem__problem_free. desc may be NULL. */
texmem_status texmem__problem_init(const texmem_record *rec, size_t n,
                                   unsigned dims, const texmem_plan_desc *desc,
                                   texmem__problem *pb, texmem_error *err);
void texmem__problem_free(texmem__problem *pb);
/* dst = the tensors idx[0..m) of src (idx NULL: the first m), compressed
 * tasks kept as they are; free with texmem__problem_free. */
texmem_status texmem__problem_copy(const texmem__problem *src, const size_t *idx, size_t m,
                                   texmem__problem *dst, texmem_error *err);
/* Checks fixed offsets (aligned, within 64 bits, no two conflicting fixed
 * tensors overlap; messages name records of rec) and sets pb->fixed
 * (borrowed). */
texmem_status texmem__problem_fix(texmem__problem *pb, const texmem_record *rec,
                                  const uint64_t *fixed, texmem_error *err);
/* Rows of a tensor of texels in a W-wide texture; arena tensors take at
 * least one (an empty one still gets a texel, as in the GL pool). */
static inline uint64_t texmem__rows_of(uint64_t texels, uint64_t w, bool arena) {
  uint64_t r = texels / w + (texels % w != 0);
  return arena && r == 0 ? 1 : r;
}
/* rows = nat in rows of width w (1-D sizes; rows has nat->n entries). */
void texmem__problem_to_rows(texmem__problem *rows, const texmem__problem *nat, uint64_t w,
                             bool arena);
/* Sum of object volumes for an assignment (saturating); used to compare. */
uint64_t texmem__objects_total_sat(const texmem__problem *pb,
                                   const size_t *object_of, size_t n_objects);
/* Arena size for offsets: max(offset + size), saturating. */
uint64_t texmem__offsets_total_sat(const texmem__problem *pb,
                                   const uint64_t *offset);

/* ---- BEST's time budget: best_budget.c ---- */
/* Assignments of the strategies BEST planned (texmem_plan_desc
 * keep_candidates): objects (object_of, n_objects) or offsets (offset,
 * optimal, bound); NULL where none was kept. */
typedef struct texmem__kept {
  size_t *object_of[TEXMEM_STRATEGY_COUNT_];
  size_t n_objects[TEXMEM_STRATEGY_COUNT_];
  uint64_t *offset[TEXMEM_STRATEGY_COUNT_];
  bool optimal[TEXMEM_STRATEGY_COUNT_];
  uint64_t bound[TEXMEM_STRATEGY_COUNT_];
} texmem__kept;
void texmem__kept_free(texmem__kept *k); /* plan_object.c; NULL is a no-op */

typedef struct texmem__budget {
  double start_ms, budget_ms;
  double estimated_ms;             /* estimates of the n log n strategies run so far */
  texmem_strategy_report *reports; /* TEXMEM_STRATEGY_COUNT_ entries */
  texmem__kept *kept;              /* NULL: keep nothing */
} texmem__budget;
double texmem__now_ms(void);
/* A budget of budget_ms (0 = the default) starting now, reporting into
 * reports. */
texmem__budget texmem__budget_start(double budget_ms, texmem_strategy_report *reports);
/* Whether BEST runs candidate c on n tensors; if not, its report says why. */
bool texmem__budget_allows(texmem__budget *b, texmem_plan_kind kind, texmem_strategy c, size_t n);
double texmem__budget_left_ms(const texmem__budget *b);

/* ---- the strategy table and BEST: strategies.c ---- */
typedef struct texmem__objects_result {
  size_t *object_of; /* n entries, the caller frees */
  size_t n_objects;
  uint64_t total;    /* saturating */
  texmem_strategy chosen;
} texmem__objects_result;
/* Objects with strategy s (BEST: the smallest total of those the budget
 * allows), reported in bg. */
texmem_status texmem__plan_objects(const texmem__problem *pb, texmem_strategy s,
                                   texmem__objects_result *res, texmem__budget *bg,
                                   texmem_error *err);
typedef struct texmem__offsets_result {
  uint64_t total; /* saturating */
  texmem_strategy chosen;
  bool optimal;   /* in: false */
  uint64_t bound; /* in: the best bound known; raised by exact search */
} texmem__offsets_result;
/* Offsets with strategy s into offset (BEST as for objects). */
texmem_status texmem__plan_offsets(const texmem__problem *pb, texmem_strategy s, uint64_t *offset,
                                   texmem__offsets_result *res, texmem__budget *bg,
                                   texmem_error *err);

/* ---- the row width of both linear layouts: row_width.c ---- */
/* W for nat's tensors (rows: a copy of nat, overwritten) under max_dims
 * (width, rows of one texture). When no power of two fits the height
 * limit, the width limit: texmem__rows_fit then says whether it fits. */
texmem_status texmem__choose_row_width(const texmem__problem *nat, texmem__problem *rows,
                                       bool arena, const uint64_t max_dims[3], uint64_t *w,
                                       texmem_error *err);
/* EXCEEDS_LIMITS naming the largest tensor (records rec) when it needs
 * more than maxh rows (0 = no limit) at width w. */
texmem_status texmem__rows_fit(const texmem_record *rec, const texmem__problem *nat, uint64_t w,
                               uint64_t maxh, bool arena, texmem_error *err);

/* ---- arena plans (offsets in rows of W-wide textures): arena_plan.c ---- */
/* Plans nat's tensors (records rec, for messages) into *out (objects =
 * arena textures, offset = base row, total in texels); kind, layout etc.
 * are left to the caller. */
struct texmem_plan;
texmem_status texmem__arena_plan(const texmem_record *rec, const texmem__problem *nat,
                                 const texmem_plan_desc *d, struct texmem_plan **out,
                                 texmem_strategy *chosen, texmem_error *err);

/* ---- the plan object (accessors): plan_object.c ---- */
/* A zeroed plan with room for n tensors and n_objects objects (at least
 * one of each); NULL when out of memory. */
texmem_plan *texmem__plan_alloc(size_t n, size_t n_objects);

struct texmem_plan {
  texmem_plan_kind kind;
  texmem_strategy strategy;
  texmem_layout layout;
  unsigned dims; /* of the records */
  size_t n_tensors;
  size_t n_objects;
  uint64_t (*object_dims)[3];
  uint64_t *object_size;
  size_t *object_of;
  uint64_t *offset;
  uint64_t total;
  uint64_t linear_width;
  uint64_t alignment;
  uint64_t max_dims[3];
  bool optimal;
  uint64_t bound;
  uint64_t budget; /* texmem_plan_desc.budget */
  uint64_t *fixed; /* copy of texmem_plan_desc.fixed_offsets, or NULL */
  texmem_strategy_report reports[TEXMEM_STRATEGY_COUNT_];
  texmem__kept *kept; /* keep_candidates: BEST's other plans, or NULL */
};

#endif

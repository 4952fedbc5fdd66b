/* texmem planner: tensor usage records -> shared objects or arena offsets.
 * Pure C, no GL. All functions are reentrant; no global state.
 *
 * Ownership: records arrays passed in are borrowed for the call only.
 * texmem_records and texmem_plan handles are owned by the caller and freed
 * with their destroy function; destroy(NULL) is a no-op. */
#ifndef TEXMEM_PLAN_H
#define TEXMEM_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "texmem/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One tensor: dims[0] = bytes (1-D), or texture dims (w,h) / (w,h,d) in
 * texels. Unused dims are ignored (treated as 1). Tasks are inclusive;
 * two tensors conflict when [first_task, last_task] intersect. */
typedef struct texmem_record {
  uint64_t id; /* the file's tensor id; informational only */
  uint64_t dims[3];
  uint64_t first_task;
  uint64_t last_task;
} texmem_record;

/* ---- records files (format: docs/records-format.md) ---- */
typedef struct texmem_records texmem_records;

/* Parse records text. dims (1..3) is taken from the first record; every
 * line must agree. Errors name the line. *out is owned by the caller. */
TEXMEM_API texmem_status texmem_records_parse(const char *text, size_t len,
                                              texmem_records **out,
                                              texmem_error *err);
TEXMEM_API texmem_status texmem_records_load(const char *path,
                                             texmem_records **out,
                                             texmem_error *err);
TEXMEM_API size_t texmem_records_count(const texmem_records *r);
TEXMEM_API unsigned texmem_records_dims(const texmem_records *r);
/* Borrowed pointer, valid until destroy. */
TEXMEM_API const texmem_record *texmem_records_data(const texmem_records *r);
TEXMEM_API void texmem_records_destroy(texmem_records *r);

/* ---- strategies ---- */
typedef enum texmem_plan_kind {
  TEXMEM_PLAN_OBJECTS = 0, /* shared objects: sum of object sizes */
  TEXMEM_PLAN_OFFSETS = 1  /* one arena: its size */
} texmem_plan_kind;

typedef enum texmem_strategy {
  TEXMEM_STRATEGY_BEST = 0,        /* smallest valid result of the others */
  TEXMEM_STRATEGY_NAIVE,           /* objects */
  TEXMEM_STRATEGY_EQUALITY,        /* objects */
  TEXMEM_STRATEGY_GREEDY_IN_ORDER, /* objects, offsets */
  TEXMEM_STRATEGY_GREEDY_BY_BREADTH, /* objects, offsets */
  TEXMEM_STRATEGY_GREEDY_BY_SIZE,  /* objects, offsets */
  TEXMEM_STRATEGY_MIN_COST_FLOW,   /* objects */
  TEXMEM_STRATEGY_LOCAL_SEARCH,    /* objects: texmem's own improvement pass */
  TEXMEM_STRATEGY_STRIP_BEST_FIT,  /* offsets */
  TEXMEM_STRATEGY_EXACT,           /* offsets: branch and bound */
  TEXMEM_STRATEGY_TFLM_GREEDY,     /* offsets: TFLite Micro's GreedyMemoryPlanner, for
                                      comparison (not part of BEST) */
  TEXMEM_STRATEGY_COUNT_
} texmem_strategy;

/* "greedy_by_size" etc.; NULL if out of range. */
TEXMEM_API const char *texmem_strategy_name(texmem_strategy s);
/* Returns false if the name is unknown. */
TEXMEM_API bool texmem_strategy_from_name(const char *name, texmem_strategy *out);
/* Whether a strategy exists for the kind (BEST exists for both). */
TEXMEM_API bool texmem_strategy_supports(texmem_strategy s, texmem_plan_kind k);
/* The size rule of BEST's time budget (texmem_plan_desc.time_budget_ms):
 * whether strategy s, whose cost may grow about quadratically
 * (min_cost_flow, local_search, strip_best_fit, tflm_greedy), fits a
 * budget of time_budget_ms (0 = the default 2000 ms) on n records; always
 * true for the others. When false and why is not NULL, why (why_size
 * bytes) says why. BEST applies it to its candidates; a caller that runs
 * strategies by name (texmem plan's default --strategy all) applies it to
 * keep to the same budget. Deterministic: sizes only. */
TEXMEM_API bool texmem_strategy_within_budget(texmem_strategy s, size_t n,
                                              double time_budget_ms, char *why,
                                              size_t why_size);

typedef enum texmem_layout {
  TEXMEM_LAYOUT_NATURAL = 0, /* object dims = per-dimension max of tensors */
  TEXMEM_LAYOUT_LINEAR = 1   /* texels row-major in W-wide 2-D textures */
} texmem_layout;

/* Arena plans (the GPU arena): kind OFFSETS with layout LINEAR on 2-D/3-D
 * records. A tensor of T texels takes ceil(T / W) whole rows (at least
 * one) of a W-wide 2-D texture, at a base row planned as an offsets
 * problem in rows (every offsets strategy, exact included; alignment is in
 * rows; W a power of two the planner picks unless linear_width is set).
 * The arena is one texture of W x rows, or, when the rows exceed
 * max_dims[1], several such textures: a tensor never straddles two. Objects are these arena
 * textures (dims W x rows x 1); texmem_plan_tensor_object gives a tensor's
 * texture and texmem_plan_tensor_base_row its first row there; the total
 * is the sum of rows x W in texels. max_dims[0] limits W, max_dims[1] the
 * rows of one texture; a tensor that cannot fit one texture gives
 * EXCEEDS_LIMITS naming it. */

/* Zero means default for every field. */
typedef struct texmem_plan_desc {
  texmem_plan_kind kind;
  texmem_strategy strategy;
  texmem_layout layout;      /* LINEAR: 2-D/3-D only; with OFFSETS, the arena */
  uint64_t max_dims[3];      /* per-dimension texture limits; 0 = none */
  uint64_t alignment;        /* offsets: alignment in size units (arena: rows); 0 = 1 */
  uint64_t linear_width;     /* linear layout W; 0 = planner chooses */
  uint64_t exact_node_budget; /* exact search nodes; 0 = 2,000,000 */
  double exact_time_budget_ms; /* exact search time; 0 = 1000 ms */
  /* exact_time_budget_ms counts the calling thread's CPU time instead of
   * wall time (false, the default): on a loaded machine a CPU budget gives
   * the search the same work whatever the load. */
  bool exact_time_cpu;
  /* BEST: planning time for all its strategies; 0 = 2000 ms. Strategies
   * whose cost grows faster than n log n are skipped when the records are
   * past a size threshold that scales with the budget (deterministic: the
   * same input and budget skip the same strategies), or when the budget is
   * already spent; exact search gets at most the time left. The plan's
   * strategy reports say what was skipped. Named strategies always run. */
  double time_budget_ms;
  /* Budget oracle (bytes, or the plan's total unit): "does it fit in
   * budget?". Exact search (alone or within BEST, natural offsets plans)
   * then only asks that question; texmem_plan_fits gives the answer.
   * 0 = no budget. */
  uint64_t budget;
  /* Fixed offsets (natural offsets plans): NULL, or one entry per record:
   * TEXMEM_OFFSET_FREE to plan the tensor, else the offset it must take
   * (a multiple of the alignment). The others are planned around them by
   * exact, greedy_in_order, greedy_by_breadth and greedy_by_size (and BEST
   * over those); strip_best_fit refuses them. Fixed tensors that conflict
   * and overlap, or a misaligned one, give INVALID_ARGUMENT naming them.
   * Borrowed for the call; the plan keeps a copy its validator checks. */
  const uint64_t *fixed_offsets;
  /* BEST (objects plans, natural offsets plans): keep the assignment of
   * every strategy it planned, for texmem_plan_candidate (one array of
   * count entries per strategy, freed with the plan). false = keep only
   * the chosen plan. */
  bool keep_candidates;
} texmem_plan_desc;

#define TEXMEM_OFFSET_FREE UINT64_MAX

typedef struct texmem_plan texmem_plan;

/* Plan the records. dims is 1, 2 or 3. A tensor that alone exceeds
 * max_dims gives TEXMEM_STATUS_EXCEEDS_LIMITS naming it. Every returned
 * plan has passed texmem_plan_validate. *out owned by the caller. */
TEXMEM_API texmem_status texmem_plan_create(const texmem_record *records,
                                            size_t count, unsigned dims,
                                            const texmem_plan_desc *desc,
                                            texmem_plan **out,
                                            texmem_error *err);
TEXMEM_API void texmem_plan_destroy(texmem_plan *p);

TEXMEM_API texmem_plan_kind texmem_plan_get_kind(const texmem_plan *p);
/* For BEST: the strategy whose result was chosen. */
TEXMEM_API texmem_strategy texmem_plan_get_strategy(const texmem_plan *p);
TEXMEM_API texmem_layout texmem_plan_get_layout(const texmem_plan *p);
/* Objects: sum of object sizes (bytes for 1-D, texels otherwise, rows*W for
 * linear). Offsets: arena size. */
TEXMEM_API uint64_t texmem_plan_total(const texmem_plan *p);
TEXMEM_API size_t texmem_plan_tensor_count(const texmem_plan *p);
/* Objects: number of objects. Offsets: 1 (the arena). */
TEXMEM_API size_t texmem_plan_object_count(const texmem_plan *p);
/* Object dims: natural = per-dim max; linear = (W, rows, 1); 1-D = (size,1,1). */
TEXMEM_API void texmem_plan_object_dims(const texmem_plan *p, size_t object,
                                        uint64_t dims[3]);
TEXMEM_API uint64_t texmem_plan_object_size(const texmem_plan *p, size_t object);
/* Objects: object index of a tensor. Arena: its arena texture. Offsets: 0. */
TEXMEM_API size_t texmem_plan_tensor_object(const texmem_plan *p, size_t tensor);
/* Offsets: arena offset of a tensor (arena plans: its base row). Objects: 0. */
TEXMEM_API uint64_t texmem_plan_tensor_offset(const texmem_plan *p, size_t tensor);
/* Arena plans: the first row of a tensor in its arena texture (the tensor
 * is rows [base, base + ceil(texels / W)) there). Other plans: 0. */
TEXMEM_API uint64_t texmem_plan_tensor_base_row(const texmem_plan *p, size_t tensor);
/* Linear layout (objects or arena): W; else 0. */
TEXMEM_API uint64_t texmem_plan_linear_width(const texmem_plan *p);
/* Exact search: true when the result is proven optimal. */
TEXMEM_API bool texmem_plan_is_optimal(const texmem_plan *p);
/* Exact search: the best lower bound known for this problem. */
TEXMEM_API uint64_t texmem_plan_bound(const texmem_plan *p);

/* The budget oracle's answer (texmem_plan_desc.budget). */
typedef enum texmem_fit {
  TEXMEM_FIT_NO_BUDGET = 0, /* no budget was given */
  TEXMEM_FIT_FITS,          /* the plan's total is <= budget */
  TEXMEM_FIT_DOES_NOT_FIT,  /* proven: texmem_plan_bound > budget (a bound,
                               or a completed search that raised it) */
  TEXMEM_FIT_UNKNOWN        /* neither shown within the node/time budgets */
} texmem_fit;
TEXMEM_API texmem_fit texmem_plan_fits(const texmem_plan *p);

/* What a strategy did for a plan: for BEST, every strategy of the plan's
 * kind; otherwise the one strategy that planned it. */
typedef enum texmem_run_outcome {
  TEXMEM_RUN_NOT_RUN = 0, /* not a candidate: another kind, or not BEST */
  TEXMEM_RUN_PLANNED,     /* ran and gave a valid assignment */
  TEXMEM_RUN_FAILED,      /* could not take the input (status, reason) */
  TEXMEM_RUN_SKIPPED      /* not run, to keep BEST within its time budget */
} texmem_run_outcome;

typedef struct texmem_strategy_report {
  texmem_run_outcome outcome;
  texmem_status status;   /* FAILED: the strategy's status; else OK */
  uint64_t total;         /* PLANNED: its total (saturating), as compared */
  size_t objects;         /* PLANNED objects: its object count */
  double time_ms;         /* PLANNED / FAILED: wall time of the strategy */
  char reason[200];       /* FAILED / SKIPPED: why, else empty */
} texmem_strategy_report;

/* The report of strategy s for plan p; outcome NOT_RUN when s is out of
 * range. Returned by value; nothing to free. */
TEXMEM_API texmem_strategy_report texmem_plan_strategy_report(const texmem_plan *p,
                                                              texmem_strategy s);

/* Check a plan against records: every tensor fits its object in every
 * dimension (or its rows, for linear), no two conflicting tensors share an
 * object or overlap in the arena (arena plans: overlap in rows of one arena
 * texture), offsets aligned, tensors within their arena texture, objects
 * within max_dims, totals consistent. */
TEXMEM_API texmem_status texmem_plan_validate(const texmem_record *records,
                                              size_t count, unsigned dims,
                                              const texmem_plan *p,
                                              texmem_error *err);

/* A plan from an assignment the caller brings (its own planner, a plan read
 * from a file, its own padded textures, a test that needs exact sharing).
 * Zero means default.
 * - OBJECTS: object_of[i] is tensor i's object; each object's dims are the
 *   per-dimension maxima of its tensors (LINEAR: linear_width x the most
 *   rows of its tensors).
 * - OFFSETS: offset[i] is tensor i's offset (LINEAR: its base row in arena
 *   texture object_of[i], NULL = all in texture 0); the arena (each arena
 *   texture) ends where its tensors end.
 * - object_count: how many objects (arena textures) there are; 0 = one more
 *   than the largest object_of. At most count. Natural OFFSETS: 0 or 1.
 * - object_dims: NULL = derived as above; else object_count entries (one
 *   for natural OFFSETS: {arena size, 1, 1}), taken as given: the
 *   validator then decides whether every tensor fits them.
 * - fixed_offsets (natural OFFSETS): NULL, or count entries, each
 *   TEXMEM_OFFSET_FREE or the offset the tensor must have, as in
 *   texmem_plan_desc; the plan keeps a copy its validator checks.
 * The plan's total is always the sum of its object sizes (natural OFFSETS:
 * the arena size). It goes through texmem_plan_validate before it is
 * returned (an invalid assignment is TEXMEM_STATUS_INVALID_PLAN naming the
 * tensors); its strategy reads NAIVE, it claims no optimality and its bound
 * is 0. Arrays are borrowed for the call; *out is owned by the caller. */
typedef struct texmem_plan_assignment {
  texmem_plan_kind kind;     /* OBJECTS (default) or OFFSETS */
  texmem_layout layout;      /* NATURAL (default) or LINEAR (2-D/3-D records) */
  uint64_t linear_width;     /* LINEAR: W, required */
  const size_t *object_of;   /* count entries (see above) */
  const uint64_t *offset;    /* OFFSETS: count entries */
  uint64_t alignment;        /* OFFSETS: offsets are multiples of it; 0 = 1 */
  uint64_t max_dims[3];      /* objects within these; 0 = no limit */
  size_t object_count;       /* 0 = derived from object_of */
  const uint64_t (*object_dims)[3]; /* NULL = derived from the tensors */
  const uint64_t *fixed_offsets;    /* natural OFFSETS: NULL = none fixed */
} texmem_plan_assignment;

TEXMEM_API texmem_status texmem_plan_from_assignment(const texmem_record *records, size_t count,
                                                     unsigned dims,
                                                     const texmem_plan_assignment *a,
                                                     texmem_plan **out, texmem_error *err);

/* The plan strategy s made inside BEST, kept by a plan created with
 * keep_candidates: what texmem_plan_create with strategy s would give for
 * the same records and desc (the same assignment, validated), except that
 * exact search had the time BEST left it. Its reports hold s's only.
 * UNSUPPORTED when best kept no plan of s (s skipped, failed or not run,
 * keep_candidates not set, or a texture arena plan). records must be the
 * ones best was made from. *out owned by the caller. */
TEXMEM_API texmem_status texmem_plan_candidate(const texmem_plan *best,
                                               const texmem_record *records, size_t count,
                                               unsigned dims, texmem_strategy s,
                                               texmem_plan **out, texmem_error *err);

/* ---- lower bounds (on volumes for textures) ---- */
typedef struct texmem_bounds {
  uint64_t max_live;       /* max over tasks of the sum of live sizes */
  uint64_t positional_max; /* sum over positions of max over tasks of the
                              k-th largest live size */
} texmem_bounds;

TEXMEM_API texmem_status texmem_lower_bounds(const texmem_record *records,
                                             size_t count, unsigned dims,
                                             texmem_bounds *out,
                                             texmem_error *err);

#ifdef __cplusplus
}
#endif
#endif

/* greedy_by_breadth shared objects (TFLite GreedyByBreadth).
 *
 * A task's breadth is the sum of the sizes live at it. Tasks go by breadth,
 * largest first (ties: earlier task first); at each task its still
 * unassigned live tensors go by size, largest first (ties: record order).
 * Each takes, among objects none of whose tensors conflict with it, the
 * smallest that already covers it, else the one whose growth (merged volume
 * minus volume) is smallest; ties go to the lower object id. A new object
 * is made when none is usable or growing costs more than the tensor's own
 * volume. On 1-D this is exactly TFLite's choice.
 *
 * Speed: the unassigned tensors live at a task come from a segment tree
 * over tasks (each tensor in O(log T) nodes, every node emptied once
 * visited), so gathering is O(n log n) overall. Each object keeps its
 * tensors in sorted runs (member_set.c), so a conflict test is a few
 * binary searches and an insert O(log n) amortised, and the test is only
 * done for objects that would beat the best found so far. Objects busy at
 * the current task leave the candidate list until the task is done, so a
 * task with many tensors does not re-test them (10 000 all-overlapping
 * tensors: ~5 ms instead of ~200 ms). */
#include <string.h>

#include "internal.h"

typedef struct object {
  uint64_t d[3];
  uint64_t vol;      /* saturating volume of d */
  texmem__mset mem;  /* its tensors */
} object;

typedef struct task_b {
  uint64_t breadth;
  uint32_t task;
} task_b;

static int cmp_task_b(const void *a, const void *b) {
  const task_b *x = a, *y = b;
  if (x->breadth != y->breadth) return x->breadth > y->breadth ? -1 : 1;
  return x->task < y->task ? -1 : x->task > y->task;
}

typedef struct size_idx {
  uint64_t size;
  size_t i;
} size_idx;

static int cmp_size_desc(const void *a, const void *b) {
  const size_idx *x = a, *y = b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_size_t(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

/* Whether a member of o intersects [first, last]: members are disjoint,
 * so only the first one ending at or after `first` can. */
static bool conflicts(const texmem__problem *pb, const object *o, uint32_t first, uint32_t last) {
  size_t m = texmem__mset_after(&o->mem, first);
  return m != SIZE_MAX && pb->first[m] <= last;
}

static bool covers(const uint64_t o[3], const uint64_t t[3]) {
  return o[0] >= t[0] && o[1] >= t[1] && o[2] >= t[2];
}

/* A candidate object with a copy of its dims, so the scan reads memory in
 * order. */
typedef struct cand_e {
  uint64_t d[3];
  uint64_t vol;
  size_t o;
} cand_e;

/* Moves cand[c] to the tail region [*nc - 1, ...): out of the candidates
 * until the current task is done. */
static void drop(cand_e *cand, size_t *pos, size_t *nc, size_t c) {
  cand_e e = cand[c];
  --*nc;
  cand[c] = cand[*nc];
  pos[cand[c].o] = c;
  cand[*nc] = e;
  pos[e.o] = *nc;
}

/* Best usable object for tensor i (live at `task`) among cand[0..*nc), or
 * SIZE_MAX for a new one. Ranks by (covers, key, id) explicitly, so cand may
 * be in any order. An object found busy at `task` conflicts with every
 * tensor of this task, so it is dropped from the candidates. */
static size_t choose(const texmem__problem *pb, const object *obj, cand_e *cand, size_t *pos,
                     size_t *nc, size_t i, uint32_t task) {
  const uint64_t *t = pb->dims[i];
  size_t best = SIZE_MAX;
  bool best_cov = false;
  uint64_t best_key = 0; /* volume if covering, else growth */
  for (size_t c = 0; c < *nc; c++) {
    const cand_e *e = &cand[c];
    size_t o = e->o;
    bool cov = covers(e->d, t);
    uint64_t key;
    if (cov) {
      key = e->vol;
    } else {
      if (best_cov) continue; /* a covering object always wins */
      uint64_t mv = texmem__merged_vol_sat(e->d, t);
      if (mv == UINT64_MAX) continue; /* never grow into overflow */
      key = mv - e->vol;
    }
    if (best != SIZE_MAX && cov == best_cov && (key > best_key || (key == best_key && o > best)))
      continue;
    if (conflicts(pb, &obj[o], pb->first[i], pb->last[i])) {
      if (conflicts(pb, &obj[o], task, task)) drop(cand, pos, nc, c--);
      continue;
    }
    best = o;
    best_cov = cov;
    best_key = key;
  }
  if (best != SIZE_MAX && !best_cov && best_key > pb->size[i]) return SIZE_MAX;
  return best;
}

/* The run's state: tasks by breadth, tensors by size, the segment tree of
 * unassigned tensors over tasks, the objects and their candidate list. */
typedef struct breadth {
  const texmem__problem *pb;
  size_t P;             /* leaves of the tree: a power of two >= ntasks */
  task_b *tasks;        /* by breadth, largest first */
  size_idx *rank;       /* tensors by size, largest first */
  size_t *node_start, *node_len, *entries; /* node v: entries[start .. start + len) */
  size_t *gathered;     /* this task's unassigned tensors (ranks) */
  bool *assigned;
  object *obj;
  size_t k;             /* objects made */
  cand_e *cand;         /* objects not used at this task */
  size_t *pos;          /* index of each object in cand */
  size_t nc;
} breadth;

static void breadth_free(breadth *B) {
  if (B->obj)
    for (size_t o = 0; o < B->k; o++) texmem__mset_free(&B->obj[o].mem);
  free(B->obj);
  free(B->cand);
  free(B->pos);
  free(B->tasks);
  free(B->rank);
  free(B->node_start);
  free(B->node_len);
  free(B->entries);
  free(B->gathered);
  free(B->assigned);
}

static bool breadth_alloc(breadth *B, const texmem__problem *pb) {
  size_t m = pb->n ? pb->n : 1;
  B->pb = pb;
  B->P = 1;
  while (B->P < pb->ntasks) B->P *= 2;
  B->tasks = malloc((size_t)pb->ntasks * sizeof *B->tasks);
  B->rank = malloc(m * sizeof *B->rank);
  B->node_start = calloc(2 * B->P + 1, sizeof *B->node_start);
  B->node_len = calloc(2 * B->P, sizeof *B->node_len);
  B->gathered = malloc(m * sizeof *B->gathered);
  B->assigned = calloc(m, sizeof *B->assigned);
  B->obj = calloc(m, sizeof *B->obj);
  B->cand = malloc(m * sizeof *B->cand);
  B->pos = malloc(m * sizeof *B->pos);
  return B->tasks && B->rank && B->node_start && B->node_len && B->gathered && B->assigned &&
         B->obj && B->cand && B->pos;
}

/* Tasks by breadth, largest first; sums fit in 64 bits (problem invariant). */
static bool order_tasks(breadth *B) {
  const texmem__problem *pb = B->pb;
  uint64_t *diff = calloc((size_t)pb->ntasks + 1, sizeof *diff);
  if (!diff) return false;
  for (size_t i = 0; i < pb->n; i++) {
    diff[pb->first[i]] += pb->size[i];
    diff[pb->last[i] + 1] -= pb->size[i];
  }
  uint64_t live = 0;
  for (uint32_t t = 0; t < pb->ntasks; t++) {
    live += diff[t];
    B->tasks[t] = (task_b){live, t};
  }
  free(diff);
  qsort(B->tasks, pb->ntasks, sizeof *B->tasks, cmp_task_b);
  return true;
}

/* Tensors by size, largest first, into the tree: each in the O(log T)
 * nodes covering its lifetime, the nodes' lists in size order (a counting
 * pass, then a filling pass). */
static bool build_tree(breadth *B) {
  const texmem__problem *pb = B->pb;
  size_t n = pb->n, P = B->P;
  for (size_t i = 0; i < n; i++) B->rank[i] = (size_idx){pb->size[i], i};
  qsort(B->rank, n, sizeof *B->rank, cmp_size_desc);
  for (int pass = 0; pass < 2; pass++) {
    for (size_t r = 0; r < n; r++) {
      size_t i = B->rank[r].i;
      for (size_t l = pb->first[i] + P, h = (size_t)pb->last[i] + 1 + P; l < h; l >>= 1, h >>= 1) {
        if (l & 1) {
          if (pass == 0) B->node_len[l]++;
          else B->entries[B->node_start[l] + B->node_len[l]++] = r;
          l++;
        }
        if (h & 1) {
          --h;
          if (pass == 0) B->node_len[h]++;
          else B->entries[B->node_start[h] + B->node_len[h]++] = r;
        }
      }
    }
    if (pass == 1) break;
    size_t total = 0;
    for (size_t v = 0; v < 2 * P; v++) {
      B->node_start[v] = total;
      total += B->node_len[v];
      B->node_len[v] = 0;
    }
    B->node_start[2 * P] = total;
    if (!(B->entries = malloc((total ? total : 1) * sizeof *B->entries))) return false;
  }
  return true;
}

/* Unassigned tensors live at task: those in the nodes on its leaf's path,
 * back in size order. All of them get assigned now, so each node is
 * emptied. Returns how many. */
static size_t gather(breadth *B, uint32_t task) {
  size_t ng = 0;
  for (size_t v = task + B->P; v >= 1; v >>= 1) {
    for (size_t q = 0; q < B->node_len[v]; q++) {
      size_t r = B->entries[B->node_start[v] + q];
      if (!B->assigned[B->rank[r].i]) B->gathered[ng++] = r;
    }
    B->node_len[v] = 0;
  }
  qsort(B->gathered, ng, sizeof *B->gathered, cmp_size_t);
  return ng;
}

/* Assigns the tensors gathered at task. An object taken at this task, or
 * busy at it, conflicts with every other tensor live here: it leaves the
 * candidates until the task is done. */
static bool assign_task(breadth *B, size_t ng, uint32_t task, size_t *object_of) {
  const texmem__problem *pb = B->pb;
  size_t nc_task = B->nc, k_task = B->k;
  for (size_t g = 0; g < ng; g++) {
    size_t i = B->rank[B->gathered[g]].i;
    size_t o = choose(pb, B->obj, B->cand, B->pos, &B->nc, i, task);
    object *ob;
    if (o == SIZE_MAX) {
      o = B->k++;
      ob = &B->obj[o];
      memcpy(ob->d, pb->dims[i], sizeof ob->d);
    } else {
      ob = &B->obj[o];
      for (int d = 0; d < 3; d++) ob->d[d] = texmem__max_u64(ob->d[d], pb->dims[i][d]);
      drop(B->cand, B->pos, &B->nc, B->pos[o]);
    }
    ob->vol = texmem__vol_sat(ob->d);
    if (o < k_task) {
      memcpy(B->cand[B->pos[o]].d, ob->d, sizeof ob->d);
      B->cand[B->pos[o]].vol = ob->vol;
    }
    if (!texmem__mset_insert(&ob->mem, pb->first, pb->last, i)) return false;
    object_of[i] = o;
    B->assigned[i] = true;
  }
  /* Back in: the dropped ones (at the tail), then this task's new objects. */
  B->nc = nc_task;
  for (size_t o = k_task; o < B->k; o++) {
    memcpy(B->cand[B->nc].d, B->obj[o].d, sizeof B->obj[o].d);
    B->cand[B->nc].vol = B->obj[o].vol;
    B->cand[B->nc].o = o;
    B->pos[o] = B->nc++;
  }
  return true;
}

texmem_status texmem__objects_greedy_by_breadth(const texmem__problem *pb, size_t *object_of,
                                                size_t *n_objects, texmem_error *err) {
  *n_objects = 0;
  if (pb->n == 0) return TEXMEM_STATUS_OK;
  breadth B;
  memset(&B, 0, sizeof B);
  bool ok = breadth_alloc(&B, pb) && order_tasks(&B) && build_tree(&B);
  for (uint32_t ti = 0; ti < pb->ntasks && ok; ti++) {
    size_t ng = gather(&B, B.tasks[ti].task);
    if (ng) ok = assign_task(&B, ng, B.tasks[ti].task, object_of);
  }
  if (ok) *n_objects = B.k;
  breadth_free(&B);
  if (ok) return TEXMEM_STATUS_OK;
  return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY,
                      "greedy_by_breadth: out of memory for %zu tensors", pb->n);
}

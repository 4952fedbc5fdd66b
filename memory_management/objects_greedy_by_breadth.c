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

texmem_status texmem__objects_greedy_by_breadth(const texmem__problem *pb, size_t *object_of,
                                                size_t *n_objects, texmem_error *err) {
  size_t n = pb->n, m = n ? n : 1;
  uint32_t nt = pb->ntasks;
  *n_objects = 0;
  if (n == 0) return TEXMEM_STATUS_OK;

  size_t P = 1;
  while (P < nt) P *= 2;
  uint64_t *diff = calloc((size_t)nt + 1, sizeof *diff);
  task_b *tasks = malloc((size_t)nt * sizeof *tasks);
  size_idx *rank = malloc(m * sizeof *rank);
  size_t *node_start = calloc(2 * P + 1, sizeof *node_start);
  size_t *node_len = calloc(2 * P, sizeof *node_len);
  size_t *entries = NULL;
  size_t *gathered = malloc(m * sizeof *gathered);
  bool *assigned = calloc(m, sizeof *assigned);
  object *obj = calloc(m, sizeof *obj);
  cand_e *cand = malloc(m * sizeof *cand); /* objects not used at this task */
  size_t *pos = malloc(m * sizeof *pos);   /* index of each object in cand */
  size_t k = 0, nc = 0;
  texmem_status st = TEXMEM_STATUS_OK;
  if (!diff || !tasks || !rank || !node_start || !node_len || !gathered || !assigned || !obj || !cand || !pos)
    goto oom;

  /* Breadth per task; sums fit in 64 bits (problem invariant). */
  for (size_t i = 0; i < n; i++) {
    diff[pb->first[i]] += pb->size[i];
    diff[pb->last[i] + 1] -= pb->size[i];
  }
  uint64_t live = 0;
  for (uint32_t t = 0; t < nt; t++) {
    live += diff[t];
    tasks[t] = (task_b){live, t};
  }
  qsort(tasks, nt, sizeof *tasks, cmp_task_b);

  /* Tensors by size, largest first; the tree's node lists keep that order. */
  for (size_t i = 0; i < n; i++) rank[i] = (size_idx){pb->size[i], i};
  qsort(rank, n, sizeof *rank, cmp_size_desc);
  for (int pass = 0; pass < 2; pass++) {
    for (size_t r = 0; r < n; r++) {
      size_t i = rank[r].i;
      for (size_t l = pb->first[i] + P, h = (size_t)pb->last[i] + 1 + P; l < h; l >>= 1, h >>= 1) {
        if (l & 1) {
          if (pass == 0) node_len[l]++; else entries[node_start[l] + node_len[l]++] = r;
          l++;
        }
        if (h & 1) {
          --h;
          if (pass == 0) node_len[h]++; else entries[node_start[h] + node_len[h]++] = r;
        }
      }
    }
    if (pass == 0) {
      size_t total = 0;
      for (size_t v = 0; v < 2 * P; v++) {
        node_start[v] = total;
        total += node_len[v];
        node_len[v] = 0;
      }
      node_start[2 * P] = total;
      if (!(entries = malloc((total ? total : 1) * sizeof *entries))) goto oom;
    }
  }

  for (uint32_t ti = 0; ti < nt; ti++) {
    /* Unassigned tensors live at this task: those in the nodes on its leaf's
     * path. All of them get assigned now, so each node is emptied. */
    size_t ng = 0;
    for (size_t v = tasks[ti].task + P; v >= 1; v >>= 1) {
      for (size_t q = 0; q < node_len[v]; q++) {
        size_t r = entries[node_start[v] + q];
        if (!assigned[rank[r].i]) gathered[ng++] = r;
      }
      node_len[v] = 0;
    }
    if (ng == 0) continue;
    qsort(gathered, ng, sizeof *gathered, cmp_size_t); /* back to size order */
    /* An object taken at this task, or busy at it, conflicts with every
     * other tensor live here: it leaves the candidates until the task is
     * done. */
    size_t nc_task = nc, k_task = k;
    for (size_t g = 0; g < ng; g++) {
      size_t i = rank[gathered[g]].i;
      size_t o = choose(pb, obj, cand, pos, &nc, i, tasks[ti].task);
      if (o == SIZE_MAX) {
        o = k++;
        memcpy(obj[o].d, pb->dims[i], sizeof obj[o].d);
      } else {
        for (int d = 0; d < 3; d++) obj[o].d[d] = texmem__max_u64(obj[o].d[d], pb->dims[i][d]);
        drop(cand, pos, &nc, pos[o]);
      }
      obj[o].vol = texmem__vol_sat(obj[o].d);
      if (o < k_task) {
        memcpy(cand[pos[o]].d, obj[o].d, sizeof obj[o].d);
        cand[pos[o]].vol = obj[o].vol;
      }
      if (!texmem__mset_insert(&obj[o].mem, pb->first, pb->last, i)) goto oom;
      object_of[i] = o;
      assigned[i] = true;
    }
    /* Back in: the dropped ones (at the tail), then this task's new objects. */
    nc = nc_task;
    for (size_t o = k_task; o < k; o++) {
      memcpy(cand[nc].d, obj[o].d, sizeof obj[o].d);
      cand[nc].vol = obj[o].vol;
      cand[nc].o = o;
      pos[o] = nc++;
    }
  }
  *n_objects = k;
  goto done;
oom:
  st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "greedy_by_breadth: out of memory for %zu tensors", n);
done:
  if (obj)
    for (size_t o = 0; o < k; o++) texmem__mset_free(&obj[o].mem);
  free(obj);
  free(cand);
  free(pos);
  free(diff);
  free(tasks);
  free(rank);
  free(node_start);
  free(node_len);
  free(entries);
  free(gathered);
  free(assigned);
  return st;
}

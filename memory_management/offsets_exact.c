/* exact offsets: branch and bound on canonical placements, after the method
 * of MiniMalloc (Moffitt, ASPLOS 2023), with texmem's own data layout.
 *
 * The arena size is searched between a lower bound and the best of the
 * offsets heuristics (so exact is never worse than them). Each candidate
 * capacity C is a feasibility question answered by a depth-first search:
 * - a tensor is only placed at its minimum offset, the highest end of the
 *   placed tensors it conflicts with: in a solution where no tensor can move
 *   down, taken in (offset, preorder rank) order, each tensor sits exactly
 *   there, so these placements lose nothing and each such solution is
 *   reached along one path only;
 * - dominance: a placement at or above the lowest possible top of another
 *   unplaced tensor is skipped, since that tensor could drop below it;
 * - unallocated floor: in each task (section), the unplaced tensors live
 *   above both the current offset and the lowest minimum offset among them,
 *   so that floor plus their sizes must fit C;
 * - decomposition: tensors are kept sorted by first task, so the unplaced
 *   tensors of a sub-problem are an index range; when they fall apart into
 *   time-disjoint groups (up front, or once every tensor crossing a task
 *   boundary is placed) each group is solved on its own, and a group that
 *   fails fails the node without retrying the others' alternatives;
 * - left behind: a tensor that can no longer be placed at its minimum
 *   offset (below the current offset, or at it with a lower rank) rests
 *   on a tensor placed later, which lifts the floors it is part of;
 * - twins (same lifetime): identical ones go in rank order, and of two
 *   stacked directly one on the other the lower rank goes below;
 * - failed states: a node searched completely without a plan is kept
 *   (as a 128-bit fingerprint, offsets_exact_table.c) and pruned when
 *   another path reaches the same state; a "no" that used such a hit is
 *   asked again without the table, so no proof rests on a fingerprint;
 * - restarts: each question is asked with rotating preorders (busiest task
 *   then area, then time, then size) under node limits that double, since
 *   a preorder that is slow on one instance is often fast on another.
 * The optimisation interleaves questions at the lower bound, the midpoint
 * and just under the best plan found, so a lower bound that cannot be met
 * does not eat the whole budget. A question answered "no" by a completed
 * search raises the proven bound; one cut by a limit proves nothing.
 * With a budget (pb->budget) only the question "fits in the budget?" is
 * asked. Sizes are aligned up and offsets stay multiples of the alignment;
 * a tensor only needs offset + its real size <= C, which the slack terms
 * allow for. The search within a group is iterative; groups nest at most
 * MAX_NEST deep (deeper splits are searched as one group). */
#include <string.h>
#include <time.h>

#include "offsets_exact_table.h"
#include "offsets_place.h"

typedef enum { FOUND, NOT_FOUND, LIMIT, ABORTED, NO_MEMORY } outcome;

#define NONE UINT32_MAX
#define UNPLACED UINT64_MAX
#define LOG_CAP ((size_t)1 << 24) /* 256 MiB of undo log: past it, the search stops */
#define MAX_NEST 64
#define NPRE 6

typedef struct pre_key {
  uint64_t k1, k2, k3;
  uint32_t id;
} pre_key;

/* A tensor's key in preorder kind (p % 3): TWA, TAW or WAT in MiniMalloc's
 * letters (total of the busiest task, width = lifetime, area). */
static pre_key pre_key_of(unsigned kind, uint64_t busiest, uint64_t len, uint64_t area,
                          uint32_t id) {
  return kind % 3 == 0   ? (pre_key){busiest, len, area, id}
         : kind % 3 == 1 ? (pre_key){busiest, area, len, id}
                         : (pre_key){len, area, busiest, id};
}

typedef struct frame {
  uint32_t cur;         /* tensor placed by this node (NONE before) */
  uint64_t key_off;     /* last candidate tried: (offset, rank) */
  uint32_t key_rank;
  uint64_t min_height;  /* lowest possible top of an unplaced tensor */
  uint64_t last_off;    /* placements here are >= (last_off, last_rank) */
  uint32_t last_rank;
  uint32_t bl, bh;      /* unplaced tensors of the group: index range */
  size_t mark;          /* undo log mark before placing cur */
  texmem__fp fp;        /* the node's state, when keyed */
  bool keyed;
} frame;

typedef struct logent {
  uint64_t *at;
  uint64_t old;
} logent;

typedef struct search {
  uint32_t m, nt;
  uint32_t *first, *last; /* sorted by first task */
  uint64_t *a, *s;        /* aligned and real sizes */
  uint32_t *orig;         /* original tensor index */
  texmem__fail_table *tt; /* failed states (NULL: none kept) */
  bool tt_hit;            /* this question pruned on a table hit */
  bool tt_off;            /* asking again without the table */
  unsigned pre;           /* preorder in use */
  unsigned npre;          /* preorders in the rotation (3 to NPRE) */
  unsigned char kind[NPRE]; /* each one's order: TWA, TAW, WAT (p % 3), on
                               ranks (p < 3) or real lifetimes */
  uint32_t *twin;         /* next tensor with the same [first, last]
                             (a cycle; itself when alone) */
  uint32_t *ranks[NPRE];  /* preorder ranks (unique) */
  uint32_t *rank;         /* the ranks in use: a copy of ranks[pre],
                             re-ranked in decomposed groups */
  uint32_t *rstack;       /* saved ranks of the groups entered */
  size_t nrs, caprs;
  struct pre_key *pk;     /* scratch for re-ranking */
  const uint64_t *span;   /* records' own lifetimes (NULL: none) */
  uint64_t maxslack;
  uint64_t *minoff, *off; /* off == UNPLACED while unplaced */
  uint64_t *lowmin, *total; /* per task: lowest minimum offset and size
                              of the unplaced tensors */
  uint64_t *total0, *scratch;
  uint64_t *base;         /* minimum offset with nothing placed */
  uint64_t align;
  /* Fixed tensors each tensor conflicts with, by offset: [fx_start[k],
   * fx_start[k + 1]) in fx_off / fx_end. */
  size_t *fx_start;
  uint64_t *fx_off, *fx_end;
  /* The fixed tensors of each task, by offset: [ft_start[t], ft_start[t +
   * 1]) in ft_off / ft_end, ft_above the size of that one and of those
   * above it in the task (NULL: none fixed, or too many to list). */
  size_t *ft_start;
  uint64_t *ft_off, *ft_end, *ft_above;
  frame *fr;
  logent *log;
  size_t nlog, caplog;
  uint64_t nodes, node_budget, limit_nodes, node_limit;
  struct timespec t0;
  clockid_t clock;        /* wall, or thread CPU time (exact_time_cpu) */
  double time_budget_ms;
} search;

static double elapsed_ms(clockid_t clock, const struct timespec *t0) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* ABORTED when the whole budget is spent, LIMIT when this question's node
 * limit is, else FOUND (go on). */
static outcome count_node(search *S) {
  if (S->nodes >= S->node_budget) return ABORTED;
  if (S->limit_nodes >= S->node_limit) return LIMIT;
  S->nodes++;
  S->limit_nodes++;
  /* A node scans up to m tensors: past a few thousand the clock is cheap
   * beside it, and read at every node the budget holds at 10^6 tensors. */
  if (((S->nodes & 255) == 0 || S->m > 4096) &&
      elapsed_ms(S->clock, &S->t0) > S->time_budget_ms)
    return ABORTED;
  return FOUND;
}

static bool set_logged(search *S, uint64_t *at, uint64_t v) {
  if (S->nlog == S->caplog) {
    if (S->caplog >= LOG_CAP) return false;
    size_t nc = S->caplog ? 2 * S->caplog : 4096;
    logent *nl = realloc(S->log, nc * sizeof *nl);
    if (!nl) return false;
    S->log = nl;
    S->caplog = nc;
  }
  S->log[S->nlog++] = (logent){at, *at};
  *at = v;
  return true;
}

static void undo_to(search *S, size_t mark) {
  while (S->nlog > mark) {
    S->nlog--;
    *S->log[S->nlog].at = S->log[S->nlog].old;
  }
}

/* The lowest offset >= o (aligned) where tensor k clears the fixed
 * tensors it conflicts with. */
static uint64_t clear_fixed(const search *S, uint32_t k, uint64_t o) {
  if (!S->fx_start) return o;
  for (size_t e = S->fx_start[k]; e < S->fx_start[k + 1]; e++) {
    if (S->fx_off[e] >= o + S->a[k]) break;
    if (S->fx_end[e] > o) o = texmem__align_up(S->fx_end[e], S->align);
  }
  return o;
}

/* Symmetry among tensors with the same lifetime (twins), which conflict
 * with exactly the same tensors:
 * - identical twins (same size too) can be permuted in any plan, so they
 *   are placed in rank order: k waits for its lower-ranked identical twins;
 * - a twin stack: if B sits exactly on A (off_B == off_A + a_A), swapping
 *   them (B at off_A, A at off_A + a_B) occupies the same space at the same
 *   tasks, and the swapped plan is as tight (a free spot below for the
 *   one now lower would have been free for it before; one for the upper
 *   would have let the lower one sit lower, also clear of fixed tensors),
 *   so only the order with the lower rank below is searched. Sorting every
 *   stack by rank (adjacent swaps) turns any tight plan into one this
 *   allows. Only for tensors without alignment slack, whose real ends
 *   move with the swap exactly like their aligned ends.
 * True when placing k at o breaks one of these orders. */
static bool twin_blocked(const search *S, uint32_t k, uint64_t o) {
  bool exact_k = S->a[k] == S->s[k];
  for (uint32_t q = S->twin[k]; q != k; q = S->twin[q]) {
    if (S->off[q] == UNPLACED) {
      if (S->a[q] == S->a[k] && S->s[q] == S->s[k] && S->rank[q] < S->rank[k]) return true;
    } else if (exact_k && S->off[q] + S->a[q] == o && S->rank[q] > S->rank[k] &&
               S->a[q] == S->s[q]) {
      return true;
    }
  }
  return false;
}

/* Places tensor j at its minimum offset, raises the minimum offsets of the
 * unplaced tensors of [bl, bh) it conflicts with, and updates the task
 * data where it can change: the unplaced size over j's tasks, and the
 * lowest minimum offset over the tasks of j and of the raised tensors. */
static bool place(search *S, uint32_t j, uint32_t bl, uint32_t bh) {
  uint64_t top = S->minoff[j] + S->a[j];
  if (!set_logged(S, &S->off[j], S->minoff[j])) return false;
  uint32_t f = S->first[j], l = S->last[j], L = f, R = l;
  for (uint32_t k = bl; k < bh && S->first[k] <= l; k++) {
    if (S->off[k] != UNPLACED || S->last[k] < f || S->minoff[k] >= top) continue;
    if (!set_logged(S, &S->minoff[k], clear_fixed(S, k, top))) return false;
    if (S->first[k] < L) L = S->first[k];
    if (S->last[k] > R) R = S->last[k];
  }
  for (uint32_t t = f; t <= l; t++)
    if (!set_logged(S, &S->total[t], S->total[t] - S->a[j])) return false;
  uint64_t *nm = S->scratch;
  for (uint32_t t = L; t <= R; t++) nm[t] = UINT64_MAX;
  for (uint32_t k = bl; k < bh && S->first[k] <= R; k++) {
    if (S->off[k] != UNPLACED || S->last[k] < L) continue;
    uint64_t mo = S->minoff[k];
    uint32_t hi = S->last[k] < R ? S->last[k] : R;
    for (uint32_t t = S->first[k] > L ? S->first[k] : L; t <= hi; t++)
      if (mo < nm[t]) nm[t] = mo;
  }
  for (uint32_t t = L; t <= R; t++)
    if (nm[t] != S->lowmin[t] && !set_logged(S, &S->lowmin[t], nm[t])) return false;
  return true;
}

/* The top a task's unplaced tensors need from a floor x: x, their sizes,
 * and the part of the task's fixed tensors at or above x, which they
 * cannot use (fixed tensors end at or below every capacity asked). */
static uint64_t need(const search *S, uint32_t t, uint64_t x) {
  uint64_t n = texmem__add_sat(x, S->total[t]);
  if (!S->ft_start) return n;
  size_t lo = S->ft_start[t], hi = S->ft_start[t + 1];
  while (lo < hi) { /* the first fixed tensor ending above x */
    size_t mid = lo + (hi - lo) / 2;
    if (S->ft_end[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  if (lo == S->ft_start[t + 1]) return n;
  uint64_t f = S->ft_above[lo];
  if (S->ft_off[lo] < x) f -= x - S->ft_off[lo];
  return texmem__add_sat(n, f);
}

/* Node test for the unplaced tensors of [bl, bh) placed after (lo,
 * lo_rank): false when they cannot all end at or below C. Sets the lowest
 * possible top. */
static bool node_ok(search *S, uint64_t C, uint32_t bl, uint32_t bh, uint64_t lo,
                    uint32_t lo_rank, uint64_t *min_height) {
  uint64_t mh = UINT64_MAX, amin = UINT64_MAX;
  uint32_t tl = UINT32_MAX, th = 0;
  for (uint32_t k = bl; k < bh; k++) {
    if (S->off[k] != UNPLACED) continue;
    uint64_t o = texmem__max_u64(S->minoff[k], lo);
    if (o + S->s[k] > C) return false;
    if (S->minoff[k] + S->a[k] < mh) mh = S->minoff[k] + S->a[k];
    if (S->a[k] < amin) amin = S->a[k];
    if (tl == UINT32_MAX) tl = S->first[k];
    if (S->last[k] > th) th = S->last[k];
  }
  *min_height = mh;
  if (tl == UINT32_MAX) return true;
  uint64_t cap = texmem__add_sat(C, S->maxslack);
  /* Left behind: a tensor that can no longer be placed at its minimum
   * offset, since placements go on after (lo, lo_rank): its minimum offset
   * is below lo, or is lo with a lower rank. Its minimum offset only rises
   * when a conflicting tensor is placed from now on, so it rests on one,
   * at lo + amin or higher. Without fixed tensors (which it could also
   * rest on) that lifts its floor, and the floor of a task whose lowest
   * tensors are all left behind. */
  bool lift = !S->fx_start && amin != UINT64_MAX;
  uint64_t lifted = texmem__add_sat(lo, amin);
  uint32_t nl = UINT32_MAX, nh = 0; /* tasks the lift may prune */
  for (uint32_t t = tl; t <= th; t++) {
    if (!S->total[t]) continue;
    if (need(S, t, texmem__max_u64(S->lowmin[t], lo)) > cap) return false;
    if (lift && S->lowmin[t] <= lo && need(S, t, lifted) > cap) {
      if (nl == UINT32_MAX) nl = t;
      nh = t;
    }
  }
  /* Hatless: a left-behind tensor that no unplaced tensor conflicts with
   * can never be placed, since only the placement of a conflicting tensor
   * raises its minimum offset (fixed tensors are already in it). A task of
   * its lifetime whose unplaced size exceeds its own holds such a tensor
   * (sizes searched are > 0). MiniMalloc stops trying siblings after a
   * placement with nothing above it; this is that rule, for any path. */
  for (uint32_t k = bl; k < bh; k++) {
    if (S->off[k] != UNPLACED ||
        !(S->minoff[k] < lo || (S->minoff[k] == lo && S->rank[k] < lo_rank)))
      continue;
    uint32_t t = S->first[k];
    while (t <= S->last[k] && S->total[t] <= S->a[k]) t++;
    if (t > S->last[k]) return false;
  }
  if (!lift) return true;
  for (uint32_t k = bl; k < bh; k++)
    if (S->off[k] == UNPLACED &&
        (S->minoff[k] < lo || (S->minoff[k] == lo && S->rank[k] < lo_rank)) &&
        texmem__add_sat(lifted, S->s[k]) > C)
      return false;
  if (nl == UINT32_MAX) return true;
  /* In those tasks the lowest tensor must be one not left behind. */
  uint64_t *low2 = S->scratch;
  for (uint32_t t = nl; t <= nh; t++) low2[t] = UINT64_MAX;
  for (uint32_t k = bl; k < bh && S->first[k] <= nh; k++) {
    if (S->off[k] != UNPLACED || S->last[k] < nl || S->minoff[k] < lo ||
        (S->minoff[k] == lo && S->rank[k] < lo_rank))
      continue;
    uint32_t hi = S->last[k] < nh ? S->last[k] : nh;
    for (uint32_t t = S->first[k] > nl ? S->first[k] : nl; t <= hi; t++)
      if (S->minoff[k] < low2[t]) low2[t] = S->minoff[k];
  }
  for (uint32_t t = nl; t <= nh; t++)
    if (S->total[t] && S->lowmin[t] <= lo && need(S, t, lifted) > cap && need(S, t, low2[t]) > cap)
      return false;
  return true;
}

static int cmp_pre(const void *pa, const void *pb);

/* MiniMalloc's dynamic preorder: a decomposed part is searched afresh
 * (placements from offset 0 again, which loses nothing: each part is a
 * problem of its own), with its tensors ranked by the preorder in use, the
 * busiest task now weighed by the sizes still unplaced. Measured with
 * MiniMalloc: with the busiest task of the whole instance instead, its TWA
 * fails the public instances E and I in 10 s, which it solves in 5.5 and
 * 0.8 s. The placed tensors of the range are re-ranked too, so that twins
 * keep one rank order (twins share every key but the area, so their order
 * is the same in every ranking; placed twins just below gl, outside the
 * group's range, are re-ranked with it, so that no rule compares ranks of
 * two rankings). The old ranks are saved on a stack. Returns the first
 * index re-ranked, or NONE (ranks kept) when the stack is full. */
static uint32_t rerank(search *S, uint32_t gl, uint32_t gh) {
  while (gl > 0 && S->first[gl - 1] == S->first[gl] && S->last[gl - 1] == S->last[gl]) gl--;
  size_t cnt = gh - gl;
  if (S->nrs + cnt > S->caprs) return NONE;
  memcpy(S->rstack + S->nrs, S->rank + gl, cnt * sizeof *S->rstack);
  S->nrs += cnt;
  unsigned kind = S->kind[S->pre];
  bool real = kind >= 3 && S->span;
  for (uint32_t k = gl; k < gh; k++) {
    uint64_t T = 0;
    for (uint32_t t = S->first[k]; t <= S->last[k]; t++)
      if (S->total[t] > T) T = S->total[t];
    uint64_t len = real ? S->span[S->orig[k]] : (uint64_t)(S->last[k] - S->first[k]) + 1;
    uint64_t area = texmem__mul_sat(S->a[k], len);
    S->pk[k - gl] = pre_key_of(kind, T, len, area, k);
  }
  qsort(S->pk, cnt, sizeof *S->pk, cmp_pre);
  for (size_t i = 0; i < cnt; i++) S->rank[S->pk[i].id] = (uint32_t)i;
  return gl;
}

/* Splits the unplaced tensors of [bl, bh) into time-disjoint groups:
 * writes up to max group starts (index of the group's first unplaced
 * tensor) and ends; returns the group count (0 when none is unplaced). */
static uint32_t split(const search *S, uint32_t bl, uint32_t bh, uint32_t *gb, uint32_t *ge,
                      uint32_t max) {
  uint32_t ng = 0, reach = 0;
  for (uint32_t k = bl; k < bh; k++) {
    if (S->off[k] != UNPLACED) continue;
    if (ng == 0 || S->first[k] > reach) {
      if (ng == max) { /* too many: report one group */
        ge[0] = bh;
        return 1;
      }
      if (ng) ge[ng - 1] = k;
      gb[ng++] = k;
      reach = S->last[k];
    } else if (S->last[k] > reach) {
      reach = S->last[k];
    }
  }
  if (ng) ge[ng - 1] = bh;
  return ng;
}

#define MAX_GROUPS 8

/* Fingerprint of a node's state: what the search below it reads. The
 * capacity, the preorder, the current offset lo and, for each unplaced
 * tensor of the group, its minimum offset and whether it is barred from
 * lo (rank below the last placement), and the offsets of its placed twins
 * (the twin rule reads them). Different paths reach the same state (the
 * same tensors placed in other arrangements that leave the same floor). */
static texmem__fp node_fp(const search *S, uint64_t C, uint32_t bl, uint32_t bh, uint64_t lo,
                          uint32_t lo_rank) {
  texmem__fp h = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull};
  texmem__fp_mix(&h, C);
  texmem__fp_mix(&h, S->pre);
  texmem__fp_mix(&h, lo);
  for (uint32_t j = bl; j < bh; j++) {
    if (S->off[j] != UNPLACED) continue;
    texmem__fp_mix(&h, (uint64_t)j << 1 | (S->minoff[j] == lo && S->rank[j] < lo_rank));
    texmem__fp_mix(&h, S->minoff[j]);
    for (uint32_t q = S->twin[j]; q != j; q = S->twin[q])
      if (S->off[q] != UNPLACED) {
        texmem__fp_mix(&h, (uint64_t)1 << 63 | q);
        texmem__fp_mix(&h, S->off[q]);
      }
  }
  return h;
}

/* Can the unplaced tensors of [bl, bh) all be placed at or above
 * (lo, lo_rank) ending at or below C? fr has room for the group's depth. */
static outcome solve(search *S, uint64_t C, uint32_t bl, uint32_t bh, uint64_t lo,
                     uint32_t lo_rank, frame *fr, unsigned nest) {
  size_t d = 0;
  bool enter = true;
  fr[0].bl = bl;
  fr[0].bh = bh;
  fr[0].last_off = lo;
  fr[0].last_rank = lo_rank;
  for (;;) {
    frame *F = &fr[d];
    bool ok = true;
    if (enter) {
      enter = false;
      outcome c = count_node(S);
      if (c != FOUND) return c;
      F->cur = NONE;
      if (d) {
        const frame *P = &fr[d - 1];
        F->last_off = S->off[P->cur];
        F->last_rank = S->rank[P->cur];
        F->bl = P->bl;
        F->bh = P->bh;
      }
      uint32_t gb[MAX_GROUPS], ge[MAX_GROUPS];
      uint32_t ng = split(S, F->bl, F->bh, gb, ge, nest < MAX_NEST ? MAX_GROUPS : 1);
      if (ng == 0) return FOUND;
      F->bl = gb[0];
      F->bh = ge[ng - 1];
      ok = node_ok(S, C, F->bl, F->bh, F->last_off, F->last_rank, &F->min_height);
      F->keyed = false;
      if (ok && S->tt && !S->tt_off) {
        F->fp = node_fp(S, C, F->bl, F->bh, F->last_off, F->last_rank);
        if (texmem__fail_table_has(S->tt, F->fp)) {
          ok = false;
          S->tt_hit = true;
        } else {
          F->keyed = true;
        }
      }
      if (ok && ng > 1) {
        size_t mark = S->nlog, rmark = S->nrs, rpos[MAX_GROUPS];
        uint32_t rlo[MAX_GROUPS];
        uint32_t done = 0;
        outcome r = FOUND;
        for (uint32_t g = 0; g < ng && r == FOUND; g++) {
          rpos[g] = S->nrs;
          rlo[g] = rerank(S, gb[g], ge[g]);
          done = g + 1;
          r = solve(S, C, gb[g], ge[g], 0, 0, fr + d + 1, nest + 1);
        }
        if (r == FOUND) return FOUND;
        undo_to(S, mark);
        for (uint32_t g = done; g-- > 0;) /* the saved ranks, last group first */
          if (rlo[g] != NONE)
            memcpy(S->rank + rlo[g], S->rstack + rpos[g], (ge[g] - rlo[g]) * sizeof *S->rank);
        S->nrs = rmark;
        if (r != NOT_FOUND) return r;
        ok = false; /* a group cannot be completed: nor can this node */
      }
    } else if (F->cur != NONE) {
      undo_to(S, F->mark);
    }
    uint32_t best = NONE;
    if (ok) {
      /* Next candidate in (min offset, rank) order after the last tried. */
      uint64_t bo = UINT64_MAX, lo_off = F->last_off;
      uint32_t br = UINT32_MAX, lr = F->last_rank;
      for (uint32_t k = F->bl; k < F->bh; k++) {
        if (S->off[k] != UNPLACED) continue;
        uint64_t o = S->minoff[k];
        uint32_t r = S->rank[k];
        if (o >= F->min_height || o + S->s[k] > C) continue;
        if ((o < lo_off || (o == lo_off && r < lr))) continue;
        if (F->cur != NONE && (o < F->key_off || (o == F->key_off && r <= F->key_rank))) continue;
        if ((o < bo || (o == bo && r < br)) && (S->twin[k] == k || !twin_blocked(S, k, o))) {
          bo = o;
          br = r;
          best = k;
        }
      }
    }
    if (best == NONE) {
      /* searched completely without a plan (a cut returns at once) */
      if (F->keyed) texmem__fail_table_add(S->tt, F->fp);
      if (d == 0) return NOT_FOUND;
      d--;
      continue;
    }
    F->cur = best;
    F->key_off = S->minoff[best];
    F->key_rank = S->rank[best];
    F->mark = S->nlog;
    if (!place(S, best, F->bl, F->bh)) {
      undo_to(S, F->mark);
      return S->caplog >= LOG_CAP ? ABORTED : NO_MEMORY;
    }
    d++;
    enter = true;
  }
}

/* One question with one preorder and a node limit. */
static outcome decide_once(search *S, uint64_t C, unsigned pre, uint64_t limit) {
  for (uint32_t t = 0; t < S->nt; t++) {
    S->total[t] = S->total0[t];
    S->lowmin[t] = UINT64_MAX;
  }
  for (uint32_t k = 0; k < S->m; k++) {
    S->minoff[k] = S->base[k];
    S->off[k] = UNPLACED;
    for (uint32_t t = S->first[k]; t <= S->last[k] && S->fx_start; t++)
      if (S->base[k] < S->lowmin[t]) S->lowmin[t] = S->base[k];
  }
  if (!S->fx_start)
    for (uint32_t t = 0; t < S->nt; t++) S->lowmin[t] = S->total0[t] ? 0 : UINT64_MAX;
  S->nlog = 0;
  memcpy(S->rank, S->ranks[pre], (size_t)S->m * sizeof *S->rank);
  S->nrs = 0;
  S->pre = pre;
  S->limit_nodes = 0;
  S->node_limit = limit;
  return solve(S, C, 0, S->m, 0, 0, S->fr, 0);
}

/* A "no" that rested on a table hit (a fingerprint, which could collide)
 * proves nothing: the question is asked again without the table. */
static outcome decide(search *S, uint64_t C, unsigned pre, uint64_t limit) {
  S->tt_hit = false;
  S->tt_off = false;
  outcome r = decide_once(S, C, pre, limit);
  if (r == NOT_FOUND && S->tt_hit) {
    S->tt_off = true;
    r = decide_once(S, C, pre, limit);
    S->tt_off = false;
  }
  return r;
}

static int cmp_pre(const void *pa, const void *pb) {
  const pre_key *a = pa, *b = pb;
  if (a->k1 != b->k1) return a->k1 > b->k1 ? -1 : 1;
  if (a->k2 != b->k2) return a->k2 > b->k2 ? -1 : 1;
  if (a->k3 != b->k3) return a->k3 > b->k3 ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

typedef struct by_first {
  uint32_t f, l;
  uint32_t i;
} by_first;

static int cmp_first(const void *pa, const void *pb) {
  const by_first *a = pa, *b = pb;
  if (a->f != b->f) return a->f < b->f ? -1 : 1;
  if (a->l != b->l) return a->l < b->l ? -1 : 1; /* twins side by side */
  return a->i < b->i ? -1 : a->i > b->i;
}

static void search_free(search *S) {
  free(S->first);
  free(S->last);
  free(S->a);
  free(S->s);
  free(S->orig);
  free(S->twin);
  texmem__fail_table_free(S->tt);
  for (int p = 0; p < NPRE; p++) free(S->ranks[p]);
  free(S->rank);
  free(S->rstack);
  free(S->pk);
  free(S->minoff);
  free(S->off);
  free(S->lowmin);
  free(S->total);
  free(S->total0);
  free(S->scratch);
  free(S->base);
  free(S->fx_start);
  free(S->fx_off);
  free(S->fx_end);
  free(S->ft_start);
  free(S->ft_off);
  free(S->ft_end);
  free(S->ft_above);
  free(S->fr);
  free(S->log);
}

static int cmp_fx(const void *pa, const void *pb) {
  const uint64_t *a = pa, *b = pb;
  return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* For each searched tensor, the fixed tensors it conflicts with, sorted by
 * offset. */
static texmem_status fixed_lists(search *S, const texmem__problem *pb, size_t nfixed,
                                 texmem_error *err) {
  uint32_t m = S->m;
  uint64_t (*fx)[4] = malloc(nfixed * sizeof *fx); /* off, end, first, last */
  size_t cnt = 0, k = 0;
  S->fx_start = calloc((size_t)m + 1, sizeof *S->fx_start);
  if (!fx || !S->fx_start) {
    free(fx);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for exact search");
  }
  for (size_t i = 0; i < pb->n; i++)
    if (texmem__is_fixed(pb, i) && pb->size[i])
      fx[k][0] = pb->fixed[i], fx[k][1] = pb->fixed[i] + pb->size[i], fx[k][2] = pb->first[i],
      fx[k][3] = pb->last[i], k++;
  qsort(fx, k, sizeof *fx, cmp_fx);
  for (uint32_t j = 0; j < m; j++)
    for (size_t e = 0; e < k; e++)
      if (fx[e][2] <= S->last[j] && S->first[j] <= fx[e][3]) cnt++;
  S->fx_off = malloc((cnt ? cnt : 1) * sizeof *S->fx_off);
  S->fx_end = malloc((cnt ? cnt : 1) * sizeof *S->fx_end);
  if (!S->fx_off || !S->fx_end) {
    free(fx);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for exact search");
  }
  cnt = 0;
  for (uint32_t j = 0; j < m; j++) {
    S->fx_start[j] = cnt;
    for (size_t e = 0; e < k; e++)
      if (fx[e][2] <= S->last[j] && S->first[j] <= fx[e][3]) {
        S->fx_off[cnt] = fx[e][0];
        S->fx_end[cnt++] = fx[e][1];
      }
  }
  S->fx_start[m] = cnt;
  /* By task, for the floor test: an aid, left out past 2^20 entries or
   * without memory. Fixed tensors sharing a task are disjoint (checked
   * before), so each task's list is sorted by end too. */
  size_t ent = 0;
  for (size_t e = 0; e < k && ent <= ((size_t)1 << 20); e++) ent += (size_t)(fx[e][3] - fx[e][2]) + 1;
  if (ent <= ((size_t)1 << 20)) {
    S->ft_start = calloc((size_t)S->nt + 2, sizeof *S->ft_start);
    S->ft_off = malloc((ent ? ent : 1) * sizeof *S->ft_off);
    S->ft_end = malloc((ent ? ent : 1) * sizeof *S->ft_end);
    S->ft_above = malloc((ent ? ent : 1) * sizeof *S->ft_above);
    if (!S->ft_start || !S->ft_off || !S->ft_end || !S->ft_above) {
      free(S->ft_start);
      free(S->ft_off);
      free(S->ft_end);
      free(S->ft_above);
      S->ft_start = NULL;
      S->ft_off = S->ft_end = S->ft_above = NULL;
    } else {
      size_t *at = S->ft_start + 1; /* counts, then fill positions */
      for (size_t e = 0; e < k; e++)
        for (uint64_t t = fx[e][2]; t <= fx[e][3]; t++) at[t + 1]++;
      for (uint32_t t = 0; t < S->nt; t++) at[t + 1] += at[t];
      for (size_t e = 0; e < k; e++)
        for (uint64_t t = fx[e][2]; t <= fx[e][3]; t++) {
          S->ft_off[at[t]] = fx[e][0];
          S->ft_end[at[t]++] = fx[e][1];
        }
      for (uint32_t t = 0; t < S->nt; t++) {
        uint64_t sum = 0;
        for (size_t e = S->ft_start[t + 1]; e-- > S->ft_start[t];)
          S->ft_above[e] = sum += S->ft_end[e] - S->ft_off[e];
      }
    }
  }
  free(fx);
  return TEXMEM_STATUS_OK;
}

/* The best plan of the offsets heuristics (ties: the first). */
static texmem_status seed(const texmem__problem *pb, uint64_t *offset, texmem_error *err) {
  static const texmem__offsets_fn fns[] = {
      texmem__offsets_greedy_by_size, texmem__offsets_strip_best_fit,
      texmem__offsets_greedy_by_breadth, texmem__offsets_greedy_in_order};
  size_t m = pb->n ? pb->n : 1;
  uint64_t *tmp = malloc(m * sizeof *tmp);
  if (!tmp) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for exact search");
  uint64_t best = UINT64_MAX;
  bool have = false; /* a total may be UINT64_MAX exactly: keep the first plan */
  for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
    /* strip_best_fit is quadratic: only on inputs it plans quickly; on
     * large inputs greedy_by_size alone, as the search rarely gets far
     * there and BEST has run the others already */
    if (fns[f] == texmem__offsets_strip_best_fit && pb->n > 5000) continue;
    if (f > 0 && pb->n > 50000) break;
    bool opt = false;
    uint64_t b = 0;
    texmem_status st = fns[f](pb, tmp, &opt, &b, err);
    if (st == TEXMEM_STATUS_UNSUPPORTED) continue; /* refuses fixed offsets */
    if (st) {
      free(tmp);
      return st;
    }
    uint64_t t = texmem__offsets_total_sat(pb, tmp);
    if (!have || t < best) {
      best = t;
      have = true;
      memcpy(offset, tmp, m * sizeof *tmp);
    }
  }
  free(tmp);
  return TEXMEM_STATUS_OK;
}

/* The first node limit of the questions. Restarts pay off when a search
 * can be long; on a few tensors a question's whole search is short (each
 * node places a tensor not placed on its path: at most the sum over k of
 * m! / (m - k)! nodes, plus one a group entered at each), so the limit
 * starts above that and every question is answered on its first try
 * instead of being asked again and again with doubled limits. */
static uint64_t first_limit(uint32_t m) {
  if (m > 8) return 1000;
  uint64_t tree = 1, paths = 1;
  for (uint32_t k = 0; k < m; k++) tree += paths *= m - k;
  return texmem__max_u64(1000, (MAX_GROUPS + 1) * tree);
}

static texmem_status no_memory(texmem_error *err) {
  return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for exact search");
}

/* What the setup learns of the problem before the search. */
typedef struct setup {
  uint64_t lb;        /* lower bound on the arena */
  uint64_t maxslack;  /* largest alignment slack of a tensor */
  uint64_t fixed_top; /* highest end of a fixed tensor */
  size_t m, nfixed;   /* tensors to search (non-empty, not fixed); fixed ones */
  uint64_t *da;       /* difference array of the aligned sizes by task (nt + 1) */
} setup;

/* Lower bound: at any task, the live tensors' aligned extents are disjoint
 * and all but the topmost lie below it; and bound0, and the fixed tensors'
 * top. */
static texmem_status lower_bound(const texmem__problem *pb, uint64_t bound0, setup *su,
                                 texmem_error *err) {
  uint32_t nt = pb->ntasks;
  memset(su, 0, sizeof *su);
  uint64_t *dr = calloc((size_t)nt + 1, sizeof *dr);
  su->da = calloc((size_t)nt + 1, sizeof *su->da);
  if (!dr || !su->da) {
    free(dr);
    free(su->da);
    su->da = NULL;
    return no_memory(err);
  }
  for (size_t i = 0; i < pb->n; i++) {
    uint64_t a = texmem__align_up(pb->size[i], pb->alignment);
    if (!a) continue;
    if (texmem__is_fixed(pb, i)) {
      su->fixed_top = texmem__max_u64(su->fixed_top, pb->fixed[i] + pb->size[i]);
      su->nfixed++;
    } else {
      su->m++;
    }
    su->maxslack = texmem__max_u64(su->maxslack, a - pb->size[i]);
    su->lb = texmem__max_u64(su->lb, pb->size[i]);
    dr[pb->first[i]] += pb->size[i];
    dr[pb->last[i] + 1] -= pb->size[i];
    su->da[pb->first[i]] += a;
    su->da[pb->last[i] + 1] -= a;
  }
  uint64_t rr = 0, ra = 0, maxa = 0;
  for (uint32_t t = 0; t < nt; t++) {
    rr += dr[t];
    ra += su->da[t];
    su->lb = texmem__max_u64(su->lb, rr);
    maxa = texmem__max_u64(maxa, ra);
  }
  free(dr);
  su->lb = texmem__max_u64(su->lb, maxa - su->maxslack);
  su->lb = texmem__max_u64(su->lb, bound0);
  su->lb = texmem__max_u64(su->lb, su->fixed_top);
  return TEXMEM_STATUS_OK;
}

/* The search's arrays for m tensors over nt tasks; false without memory
 * (search_free frees what was allocated). */
static bool search_alloc(search *S, size_t m, uint32_t nt) {
  bool ok = true;
  for (int p = 0; p < NPRE; p++) ok = (S->ranks[p] = malloc(m * sizeof *S->ranks[p])) && ok;
  S->caprs = 4 * m + 64;
  S->first = malloc(m * sizeof *S->first);
  S->last = malloc(m * sizeof *S->last);
  S->a = malloc(m * sizeof *S->a);
  S->s = malloc(m * sizeof *S->s);
  S->orig = malloc(m * sizeof *S->orig);
  S->twin = malloc(m * sizeof *S->twin);
  S->rank = malloc(m * sizeof *S->rank);
  S->rstack = malloc(S->caprs * sizeof *S->rstack);
  S->pk = malloc(m * sizeof *S->pk);
  S->minoff = malloc(m * sizeof *S->minoff);
  S->off = malloc(m * sizeof *S->off);
  S->lowmin = malloc(((size_t)nt + 1) * sizeof *S->lowmin);
  S->total = malloc(((size_t)nt + 1) * sizeof *S->total);
  S->total0 = calloc((size_t)nt + 1, sizeof *S->total0);
  S->scratch = malloc(((size_t)nt + 1) * sizeof *S->scratch);
  S->fr = malloc((m + 2 * MAX_NEST + 2) * sizeof *S->fr);
  S->base = calloc(m, sizeof *S->base);
  return ok && S->first && S->last && S->a && S->s && S->orig && S->twin && S->rank &&
         S->rstack && S->pk && S->minoff && S->off && S->lowmin && S->total && S->total0 &&
         S->scratch && S->fr && S->base;
}

/* The searched tensors sorted by first task (twins side by side) into S,
 * with each one's busiest task total (the largest aligned live total over
 * its lifetime, from a max segment tree over da's prefix sums) in busiest;
 * and the per-task total of the searched tensors in S->total0. */
static bool order_tensors(search *S, const texmem__problem *pb, const uint64_t *da,
                          uint64_t *busiest) {
  uint32_t m = S->m, nt = S->nt, leaves = 1;
  while (leaves < nt) leaves *= 2;
  by_first *bf = malloc(m * sizeof *bf);
  uint64_t *seg = calloc(2 * (size_t)leaves, sizeof *seg);
  if (!bf || !seg) {
    free(bf);
    free(seg);
    return false;
  }
  uint64_t ra = 0;
  for (uint32_t t = 0; t < nt; t++) seg[leaves + t] = ra += da[t];
  for (size_t v = leaves - 1; v >= 1; v--) seg[v] = texmem__max_u64(seg[2 * v], seg[2 * v + 1]);
  uint32_t j = 0;
  for (size_t i = 0; i < pb->n; i++) {
    uint64_t a = texmem__align_up(pb->size[i], pb->alignment);
    if (!a || texmem__is_fixed(pb, i)) continue;
    S->total0[pb->first[i]] += a;
    S->total0[pb->last[i] + 1] -= a;
    bf[j++] = (by_first){pb->first[i], pb->last[i], (uint32_t)i};
  }
  for (uint32_t t = 1; t < nt; t++) S->total0[t] += S->total0[t - 1];
  qsort(bf, m, sizeof *bf, cmp_first);
  for (j = 0; j < m; j++) {
    uint32_t i = bf[j].i;
    S->first[j] = bf[j].f;
    S->last[j] = bf[j].l;
    S->s[j] = pb->size[i];
    S->a[j] = texmem__align_up(pb->size[i], pb->alignment);
    S->orig[j] = i;
    uint64_t b = 0;
    for (size_t lo = leaves + bf[j].f, hi = leaves + bf[j].l + 1; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) b = texmem__max_u64(b, seg[lo++]);
      if (hi & 1) b = texmem__max_u64(b, seg[--hi]);
    }
    busiest[j] = b;
  }
  free(seg);
  free(bf);
  /* Twin cycles: the twins are side by side in the sorted order. */
  for (uint32_t g = 0; g < m;) {
    uint32_t e = g + 1;
    while (e < m && S->first[e] == S->first[g] && S->last[e] == S->last[g]) e++;
    for (j = g; j < e; j++) S->twin[j] = j + 1 < e ? j + 1 : g;
    g = e;
  }
  return true;
}

/* Preorders: the busiest task a tensor spans first (MiniMalloc's), then
 * area, time or size; lengths in compressed task ranks, then the same
 * three on lifetimes in the records' own units where they differ (a rank
 * can stand for one time step or for thousands). Each set solves
 * instances the other does not: MiniMalloc, which weighs real lengths,
 * solves three public instances with TWA that it (and texmem's ranks)
 * cannot in ranks, and ranks do better on the generated ones. */
static bool preorders(search *S, const texmem__problem *pb, const uint64_t *busiest) {
  uint32_t m = S->m;
  pre_key *pre = malloc(m * sizeof *pre);
  if (!pre) return false;
  S->npre = 0;
  for (unsigned p = 0; p < NPRE; p++) {
    bool real = p >= 3;
    if (real && !pb->span) break;
    for (uint32_t j = 0; j < m; j++) {
      uint64_t len = real ? pb->span[S->orig[j]] : (uint64_t)(S->last[j] - S->first[j]) + 1;
      uint64_t area = texmem__mul_sat(S->a[j], len);
      pre[j] = pre_key_of(p, busiest[j], len, area, j);
    }
    qsort(pre, m, sizeof *pre, cmp_pre);
    uint32_t *r = S->ranks[S->npre];
    for (uint32_t j = 0; j < m; j++) r[pre[j].id] = j;
    bool seen = false; /* an order already in the rotation adds nothing */
    for (unsigned q = 0; q < S->npre && !seen; q++) seen = !memcmp(S->ranks[q], r, m * sizeof *r);
    if (!seen) S->kind[S->npre++] = (unsigned char)p;
  }
  free(pre);
  return true;
}

/* The search state of pb's searched tensors (su from lower_bound; its da
 * is consumed). */
static texmem_status search_init(search *S, const texmem__problem *pb, setup *su,
                                 texmem_error *err) {
  uint32_t m = (uint32_t)su->m;
  S->m = m;
  S->nt = pb->ntasks;
  S->maxslack = su->maxslack;
  S->node_budget = pb->exact_node_budget;
  S->time_budget_ms = pb->exact_time_budget_ms;
  S->span = pb->span;
  S->align = pb->alignment;
  uint64_t *busiest = malloc(m * sizeof *busiest);
  bool ok = busiest && search_alloc(S, m, S->nt) && order_tensors(S, pb, su->da, busiest) &&
            preorders(S, pb, busiest);
  free(busiest);
  free(su->da);
  su->da = NULL;
  texmem_status st = ok ? TEXMEM_STATUS_OK : no_memory(err);
  if (!st && su->nfixed) st = fixed_lists(S, pb, su->nfixed, err);
  if (st) {
    search_free(S);
    return st;
  }
  for (uint32_t j = 0; j < m; j++) S->base[j] = clear_fixed(S, j, 0);
  /* The failed-state table is an aid: without memory the search runs
   * without it. */
  S->tt = texmem__fail_table_new(m);
  return TEXMEM_STATUS_OK;
}

/* The plan the search found, into offset (fixed tensors at their offsets);
 * returns its arena size. */
static uint64_t found_plan(const search *S, const texmem__problem *pb, uint64_t fixed_top,
                           uint64_t *offset) {
  uint64_t t = fixed_top;
  for (size_t i = 0; i < pb->n; i++) offset[i] = texmem__is_fixed(pb, i) ? pb->fixed[i] : 0;
  for (uint32_t j = 0; j < S->m; j++) {
    offset[S->orig[j]] = S->off[j];
    t = texmem__max_u64(t, S->off[j] + S->s[j]);
  }
  return t;
}

/* Questions: "a plan of at most C?" for C at the lower bound, the midpoint
 * and just under the best plan (with a target: the target alone), each
 * with every preorder under a node limit that doubles each round, until
 * [*lo, *hi) closes or a budget runs out. A plan found lowers *hi (and is
 * written to offset); a completed "no" raises *lo. */
static texmem_status ask(search *S, const texmem__problem *pb, uint64_t target, uint64_t fixed_top,
                         uint64_t *offset, uint64_t *lo, uint64_t *hi, texmem_error *err) {
  bool stop = false;
  for (uint64_t limit = first_limit(S->m);
       !stop && *lo < *hi && (!target || (*hi > target && *lo <= target));
       limit = texmem__mul_sat(limit, 2)) {
    uint64_t cs[3] = {*lo, *lo + (*hi - *lo) / 2, *hi - 1};
    if (target) cs[0] = cs[1] = cs[2] = target;
    for (int c = 0; c < 3 && !stop && *lo < *hi; c++) {
      uint64_t C = cs[c];
      if (C < *lo || C >= *hi || (c && cs[c] == cs[c - 1])) continue;
      for (unsigned p = 0; p < S->npre; p++) {
        outcome r = decide(S, C, p, limit);
        if (r == FOUND) {
          *hi = found_plan(S, pb, fixed_top, offset);
          break;
        }
        if (r == NOT_FOUND) {
          *lo = C + 1;
          break;
        }
        if (r == NO_MEMORY) return no_memory(err);
        if (r == ABORTED) {
          stop = true;
          break;
        }
      }
      if (target) break;
    }
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__offsets_exact(const texmem__problem *pb, uint64_t *offset,
                                    bool *optimal, uint64_t *bound, texmem_error *err) {
  search S;
  memset(&S, 0, sizeof S);
  S.clock = pb->exact_time_cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
  clock_gettime(S.clock, &S.t0);
  texmem_status st = seed(pb, offset, err);
  if (st) return st;
  uint64_t best_total = texmem__offsets_total_sat(pb, offset);
  setup su;
  st = lower_bound(pb, *bound, &su, err);
  if (st) return st;
  uint64_t target = pb->budget; /* 0: optimise */
  if (su.lb >= best_total || su.m == 0 ||
      (target && (best_total <= target || su.lb > target))) {
    free(su.da);
    *optimal = su.lb >= best_total || su.m == 0;
    *bound = *optimal ? best_total : su.lb;
    return TEXMEM_STATUS_OK;
  }
  st = search_init(&S, pb, &su, err);
  if (st) return st;
  uint64_t lo = su.lb, hi = best_total;
  st = ask(&S, pb, target, su.fixed_top, offset, &lo, &hi, err);
  search_free(&S);
  if (st) return st;
  *optimal = lo >= hi;
  *bound = *optimal ? hi : lo;
  return TEXMEM_STATUS_OK;
}

/* texmem for TensorFlow Lite Micro: a view of a whole .tflite file (every
 * subgraph, variable tensors, quantization, metadata), TFLM's tensor
 * lifetimes and kernels' scratch buffers as usage records, TFLM's own
 * planner around an offline plan, and offline memory plans: the
 * "OfflineMemoryAllocation" metadata TFLM reads, written into a copy of the
 * model, read back and checked. Pure C, no GL; the tflm/ part, on top of
 * the model part's .tflite reader and the planner. docs/tflm.md has the
 * rules.
 *
 * Ownership: a texmem_tflm keeps its own copy of the file and is freed with
 * texmem_tflm_destroy (NULL is a no-op); pointers from accessors are
 * borrowed until then. */
#ifndef TEXMEM_TFLM_H
#define TEXMEM_TFLM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "texmem/plan.h"
#include "texmem/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TFLM's buffer alignment: sizes are rounded up to it, offsets are
 * multiples of it. */
#define TEXMEM_TFLM_ALIGNMENT 16
/* The metadata name TFLM looks for. */
#define TEXMEM_TFLM_PLAN_NAME "OfflineMemoryAllocation"

typedef struct texmem_tflm texmem_tflm;

/* One tensor, numbered over all subgraphs in order (TFLM's numbering). */
typedef struct texmem_tflm_tensor {
  const char *name;       /* never NULL */
  uint32_t subgraph;
  uint32_t index;         /* within its subgraph */
  int32_t type;           /* TFLite TensorType code */
  const char *type_name;  /* "int8", "float32", ... */
  unsigned rank;
  const int32_t *shape;   /* rank entries */
  /* Element count times element size; 0 for a type without a fixed size
   * (string, resource, variant, int4), which TFLM never plans offline. */
  uint64_t bytes;
  uint32_t buffer;
  bool constant;          /* its buffer holds data: never planned */
  bool variable;          /* is_variable: persistent, never planned */
  /* Quantization (n_quant 0 = none): per tensor n_quant = 1. */
  size_t n_quant;
  const float *scale;
  const int64_t *zero_point;
  int32_t quantized_dimension;
} texmem_tflm_tensor;

/* Reads every subgraph of a TFLite flatbuffer (copied; data borrowed for
 * the call). Every offset and length is checked; bad files give
 * TEXMEM_STATUS_BAD_MODEL naming what is wrong. */
TEXMEM_API texmem_status texmem_tflm_read(const void *data, size_t size, texmem_tflm **out,
                                          texmem_error *err);
TEXMEM_API texmem_status texmem_tflm_load(const char *path, texmem_tflm **out,
                                          texmem_error *err);
TEXMEM_API void texmem_tflm_destroy(texmem_tflm *f);

TEXMEM_API size_t texmem_tflm_subgraph_count(const texmem_tflm *f);
/* Tensors over all subgraphs. */
TEXMEM_API size_t texmem_tflm_tensor_count(const texmem_tflm *f);
/* Operators of a subgraph (0 if out of range). */
TEXMEM_API size_t texmem_tflm_op_count(const texmem_tflm *f, size_t subgraph);
/* NULL if out of range. */
TEXMEM_API const texmem_tflm_tensor *texmem_tflm_get_tensor(const texmem_tflm *f, size_t i);
/* Metadata entries (name, buffer index), in file order. */
TEXMEM_API size_t texmem_tflm_metadata_count(const texmem_tflm *f);
TEXMEM_API const char *texmem_tflm_metadata_name(const texmem_tflm *f, size_t i);
TEXMEM_API uint32_t texmem_tflm_metadata_buffer(const texmem_tflm *f, size_t i);
TEXMEM_API size_t texmem_tflm_buffer_count(const texmem_tflm *f);
/* Bytes of buffer b (NULL/0 when empty or out of range); borrowed. */
TEXMEM_API const uint8_t *texmem_tflm_buffer_data(const texmem_tflm *f, uint32_t b, size_t *size);
/* The file as read; borrowed. */
TEXMEM_API const uint8_t *texmem_tflm_file(const texmem_tflm *f, size_t *size);

/* TFLM's lifetimes of the tensors it plans in subgraph 0, one 1-D record
 * each: graph inputs live from scope 0, operator i is scope i + 1, a tensor
 * lives from the scope of its producer to that of its last consumer, graph
 * outputs to the last scope; constants, variable tensors, zero-byte tensors
 * and tensors no operator touches are not planned, nor are the tensors of
 * other subgraphs (TFLM plans them online around the offline plan). Sizes
 * are bytes rounded up to TEXMEM_TFLM_ALIGNMENT. Records are in tensor
 * order; record.id and (*tensor_of)[k] are the global tensor index. *out
 * and *tensor_of (may be NULL) are malloc'd; the caller frees them. */
TEXMEM_API texmem_status texmem_tflm_records(const texmem_tflm *f, texmem_record **out,
                                             size_t *n, int32_t **tensor_of, texmem_error *err);

/* A scratch buffer a kernel requests in its Prepare (TFLM's
 * RequestScratchBufferInArena): `bytes` for operator `op` of subgraph 0.
 * TFLM plans it online, around the offline plan, and it lives during its
 * operator only (scope op + 1). */
typedef struct texmem_tflm_scratch {
  uint32_t op;
  uint64_t bytes;
} texmem_tflm_scratch;

/* texmem_tflm_records, then one record per scratch buffer in the order
 * given (TFLM's request order, which its planner's ties follow):
 * dims[0] = bytes rounded up to TEXMEM_TFLM_ALIGNMENT, first_task =
 * last_task = op + 1, id = tensor count + its index; (*tensor_of)[k] is
 * -1 - its index. An operator out of range, 0 bytes or a buffer past
 * TFLM's int sizes is INVALID_ARGUMENT naming it. scratch may be NULL when
 * n_scratch is 0. */
TEXMEM_API texmem_status texmem_tflm_records_scratch(const texmem_tflm *f, const texmem_tflm_scratch *scratch,
                                                     size_t n_scratch, texmem_record **out, size_t *n,
                                                     int32_t **tensor_of, texmem_error *err);

/* TFLM's GreedyMemoryPlanner as it runs a model with an offline plan:
 * records (1-D, sizes multiples of the alignment) whose fixed[k] is not -1
 * sit at that offset (the offline plan, placed first); the others
 * (scratch buffers, tensors left to TFLM) go, largest first and ties in
 * record order, each to the lowest offset where it fits below the next
 * placed record live at the same time (first fit). fixed NULL: nothing is
 * offline, TFLM's own plan (the tflm_greedy strategy's). offsets (n
 * entries, may be NULL) gets every record's offset; *head the highest end,
 * the head TFLM's arena needs. */
TEXMEM_API texmem_status texmem_tflm_greedy(const texmem_record *rec, size_t n, const int64_t *fixed,
                                            uint64_t *offsets, uint64_t *head, texmem_error *err);

/* What a plan costs once TFLM adds the scratch buffers: offsets (n = the
 * tensor count of all subgraphs, -1 = left to TFLM, as written in the
 * model) of subgraph 0's planned tensors go offline, the scratch buffers
 * and the tensors left to TFLM online (texmem_tflm_greedy), giving
 * *offline_head; *online_head is TFLM's head with no plan. A plan is worth
 * writing when offline_head <= online_head: a plan packed tight around the
 * tensors alone leaves the scratch buffers no hole and can make TFLM's
 * head larger than its own. Tensors of other subgraphs are not counted.
 * Offsets below -1 or past TFLM's int range, or a wrong n, are
 * INVALID_ARGUMENT. */
TEXMEM_API texmem_status texmem_tflm_heads(const texmem_tflm *f, const int32_t *offsets, size_t n,
                                           const texmem_tflm_scratch *scratch, size_t n_scratch,
                                           uint64_t *offline_head, uint64_t *online_head, texmem_error *err);

/* The model's OfflineMemoryAllocation, if any. */
typedef struct texmem_tflm_plan_info {
  bool present;
  size_t entries;         /* metadata entries with the name (TFLM takes the last) */
  uint32_t buffer;        /* of the last entry */
  uint32_t version;       /* word 0 */
  uint32_t subgraphs;     /* word 1 */
  uint32_t n;             /* word 2: offsets that follow */
  int32_t *offsets;       /* n entries, malloc'd: the caller frees it (NULL when absent) */
} texmem_tflm_plan_info;

/* BAD_MODEL when the entry points past the buffers, or its buffer is
 * shorter than 3 words or than the n offsets it announces. */
TEXMEM_API texmem_status texmem_tflm_offline_plan(const texmem_tflm *f,
                                                  texmem_tflm_plan_info *out,
                                                  texmem_error *err);

/* What --check finds in an offline plan. */
typedef enum texmem_tflm_issue_kind {
  TEXMEM_TFLM_ISSUE_WRONG_COUNT = 0, /* n is not the tensor count of all subgraphs */
  TEXMEM_TFLM_ISSUE_NEGATIVE,        /* an offset below 0 other than -1 */
  TEXMEM_TFLM_ISSUE_MISALIGNED,      /* not a multiple of TEXMEM_TFLM_ALIGNMENT */
  TEXMEM_TFLM_ISSUE_OVERLAP,         /* two tensors live together share bytes */
  TEXMEM_TFLM_ISSUE_TOO_FAR          /* offset + size past TFLM's int range */
} texmem_tflm_issue_kind;

typedef struct texmem_tflm_issue {
  texmem_tflm_issue_kind kind;
  int64_t tensor, other;  /* global tensor indices; -1 when not relevant */
  char message[240];
} texmem_tflm_issue;

/* Checks offsets (n entries, -1 = left to TFLM) against the file's
 * lifetimes. *issues (malloc'd, caller frees; may stay NULL when none) gets
 * every problem, at most max_issues (0 = 1000) of them; *arena the head
 * bytes the planned tensors reach (max offset + rounded size). Returns OK
 * when it could check, whatever it found. */
TEXMEM_API texmem_status texmem_tflm_check(const texmem_tflm *f, const int32_t *offsets, size_t n,
                                           texmem_tflm_issue **issues, size_t *n_issues,
                                           size_t max_issues, uint64_t *arena, texmem_error *err);

/* A copy of the model with offsets (one per tensor of all subgraphs, -1
 * = left to TFLM, others multiples of 16) as its OfflineMemoryAllocation:
 * a new 16-byte aligned buffer of int32 words [0, subgraphs, n, offsets],
 * one metadata entry (an existing one is replaced), every other field,
 * buffer and metadata entry kept. The copy is re-read, its tensors and
 * weights compared with the original's and its plan checked before this
 * returns OK; a plan with issues, or with an offset for a tensor of another
 * subgraph (whose lifetimes are not checked), is INVALID_PLAN naming the first. *out is
 * malloc'd; the caller frees it. */
TEXMEM_API texmem_status texmem_tflm_write_plan(const texmem_tflm *f, const int32_t *offsets,
                                                size_t n, uint8_t **out, size_t *out_size,
                                                texmem_error *err);

#ifdef __cplusplus
}
#endif
#endif

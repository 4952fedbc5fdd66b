/* Internal layout of texmem_model and helpers shared by the reader, the
 * builder and the records code. */
#ifndef TEXMEM_MODEL_GRAPH_H
#define TEXMEM_MODEL_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "common.h" /* texmem__fail, checked arithmetic */
#include "texmem/model.h"

/* Every string and array a tensor or op points to is owned by the model
 * (const in the public structs; freed in texmem_model_destroy). */
struct texmem_model {
  texmem_tensor *tensors;
  size_t n_tensors, cap_tensors;
  texmem_op *ops;
  size_t n_ops, cap_ops;
  int32_t *inputs;
  size_t n_inputs;
  int32_t *outputs;
  size_t n_outputs;
  size_t n_folded;
  /* Per graph input (NULL: none): bit d = dynamic dimension d runs at the
   * file's placeholder (texmem_model_input_placeholder). */
  uint32_t *placeholder;
};

/* Grows the tensor / op arrays to hold one more. */
texmem_status texmem__model_reserve_tensors(texmem_model *m, size_t n,
                                            texmem_error *err);
texmem_status texmem__model_reserve_ops(texmem_model *m, size_t n,
                                        texmem_error *err);

/* Fills rank/shape/BHWC of t from shape[rank]; dims must be >= 0 and
 * rank <= TEXMEM_MAX_RANK (checked by callers). */
void texmem__tensor_set_shape(texmem_tensor *t, unsigned rank,
                              const int32_t *shape);
/* Element count of the shape; false on 64-bit overflow. */
bool texmem__shape_elements(unsigned rank, const int32_t *shape,
                            uint64_t *count);

/* Recomputes every tensor's producer and INTERMEDIATE flag from the ops
 * and the I/O flags. */
void texmem__model_update_flags(texmem_model *m);

/* Frees what one tensor / op owns. */
void texmem__tensor_free(texmem_tensor *t);
void texmem__op_free(texmem_op *op);

#endif

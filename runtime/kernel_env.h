/* The runtime's side of the kernel interface (kernel.h): the environment
 * kernels build in (program cache, weight buffers), created and destroyed
 * by runtime.c, and a program variant with preprocessor defines for kernels
 * whose binding count varies (CONCATENATION). */
#ifndef TEXMEM_RUNTIME_KERNEL_ENV_H
#define TEXMEM_RUNTIME_KERNEL_ENV_H

#include "kernel.h"

/* An empty environment on ctx (borrowed; must outlive the environment).
 * half_weights: buffers are stored as binary16 (rounded to nearest) and
 * every program reads them so. */
texmem_status texmem__kernel_env_create(texmem_gl_context *ctx, bool half_weights,
                                        texmem__kernel_env **out, texmem_error *err);
/* half_images: tensors are RGBA16F (a fused kernel rounds as a store
 * would); tiled: 1x1 convolutions take the shared-memory tiled kernel
 * (op_conv1x1_tiled.comp) instead of the register-tiled one; split: that
 * kernel's parts in every layer (texmem_runtime_desc.conv1x1_split; 0 per
 * layer). False and 0 after create. */
void texmem__kernel_env_configure(texmem__kernel_env *env, bool half_images, bool tiled,
                                  uint32_t split);
bool texmem__kernel_env_half_images(const texmem__kernel_env *env);
bool texmem__kernel_env_tiled(const texmem__kernel_env *env);
uint32_t texmem__kernel_env_split(const texmem__kernel_env *env);
/* The tiled 1x1 kernel's splits the layers built so far take: bit k for
 * 2^k parts (texmem_runtime_stats.conv1x1_splits); kernels_conv.c notes
 * each. */
void texmem__kernel_env_note_split(texmem__kernel_env *env, uint32_t parts);
uint32_t texmem__kernel_env_splits_used(const texmem__kernel_env *env);
/* True when buffers are binary16 (kernels with exactness limits check it). */
bool texmem__kernel_env_half_weights(const texmem__kernel_env *env);
/* Destroys every program and buffer made through env; NULL is a no-op. */
void texmem__kernel_env_destroy(texmem__kernel_env *env);
/* Bytes of the weight buffers made so far. */
uint64_t texmem__kernel_env_weights_bytes(const texmem__kernel_env *env);
/* GL buffers holding them (after commit). */
size_t texmem__kernel_env_weight_buffers(const texmem__kernel_env *env);
/* After the last kernel is built: the staged constant buffers become GL
 * buffers (runtime/weights.c packs them), and each kernel's buffer tokens
 * (what texmem__kernel_buffer gave) the views that hold them. */
texmem_status texmem__kernel_env_commit(texmem__kernel_env *env, texmem__kernel *kernels,
                                        size_t n, texmem_error *err);
texmem_gl_context *texmem__kernel_env_context(const texmem__kernel_env *env);

/* As texmem__kernel_program, with `defines` (e.g. "#define TM_N 3\n",
 * may be NULL) placed in front of the shader body; part of the cache key. */
texmem_status texmem__kernel_program_defines(texmem__kernel_env *env, const char *shader_file,
                                             const char *defines, const char *const *inputs,
                                             size_t n_inputs, const char *const *outputs,
                                             size_t n_outputs, const char *const *buffers,
                                             size_t n_buffers, const uint32_t local_size[3],
                                             texmem_gl_program *out, texmem_error *err);
/* As texmem__kernel_program_defines, buffers whose bit is set in `scratch`
 * declared as the program's read-write scratch (texmem_gl_program_desc's
 * scratch_buffers: NAME_load, NAME_store, NAME_add). */
texmem_status texmem__kernel_program_scratch(texmem__kernel_env *env, const char *shader_file,
                                             const char *defines, const char *const *inputs,
                                             size_t n_inputs, const char *const *outputs,
                                             size_t n_outputs, const char *const *buffers,
                                             size_t n_buffers, uint32_t scratch,
                                             const uint32_t local_size[3], texmem_gl_program *out,
                                             texmem_error *err);

#endif

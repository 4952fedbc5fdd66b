/* The options of MediaPipe's custom operators (version 2, as in
 * mediapipe/util/tflite/operations/): FlexBuffers maps in the operator's
 * custom_options, parsed by the reader (to reject hostile ones at load),
 * by the runtime kernels and by the test reference. */
#ifndef TEXMEM_MODEL_MEDIAPIPE_OPTIONS_H
#define TEXMEM_MODEL_MEDIAPIPE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "texmem/model.h"

/* Pairs of landmark indices a Landmarks2TransformMatrix may list (the
 * face model lists 31 to 34); more is refused rather than allocated. */
#define TEXMEM__MP_MAX_SUBSET 1024

/* Landmarks2TransformMatrix v2: the crop of the landmarks subset_idxs,
 * rotated so the line from landmark left_rotation_idx to
 * right_rotation_idx has angle target_rotation_radians, as a 4x4 matrix
 * from output pixels (output_width x output_height) to input
 * coordinates, the crop scaled by scale_x / scale_y. An odd count of
 * subset indices repeats the last one (as MediaPipe does). */
typedef struct texmem__mp_l2tm {
  int32_t left, right;
  float target_rotation;
  int32_t out_w, out_h;
  float scale_x, scale_y;
  size_t n_subset;                         /* pairs */
  int32_t subset[TEXMEM__MP_MAX_SUBSET][2];
} texmem__mp_l2tm;

/* TransformTensorBilinear v2: output_height, output_width (align corners
 * always on in v2). */
typedef struct texmem__mp_ttb {
  int32_t out_w, out_h;
} texmem__mp_ttb;

/* Parse and check (every key present, sizes and scales positive, indices
 * >= 0); BAD_MODEL naming the operator and the key on anything wrong. */
texmem_status texmem__mp_parse_l2tm(const uint8_t *opt, size_t size, texmem__mp_l2tm *out,
                                    texmem_error *err);
texmem_status texmem__mp_parse_ttb(const uint8_t *opt, size_t size, texmem__mp_ttb *out,
                                   texmem_error *err);

/* The custom code names. */
#define TEXMEM__MP_L2TM_NAME "Landmarks2TransformMatrix"
#define TEXMEM__MP_TTB_NAME "TransformTensorBilinear"
#define TEXMEM__MP_TL_NAME "TransformLandmarks"

#endif

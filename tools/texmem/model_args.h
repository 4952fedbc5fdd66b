/* Model options shared by texmem plan --model, records and bench:
 * --input-shape [NAME=]D0,D1,... (repeatable) fixes a graph input's dynamic
 * dimensions; inputs without a name are taken in graph input order; an
 * input without one runs at the file's placeholder shape. */
#ifndef TEXMEM_CLI_MODEL_ARGS_H
#define TEXMEM_CLI_MODEL_ARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "texmem/model.h"

#define CLI_MAX_INPUT_SHAPES 16

typedef struct cli_input_shapes {
  texmem_input_shape v[CLI_MAX_INPUT_SHAPES];
  char names[CLI_MAX_INPUT_SHAPES][256];
  size_t n, unnamed;
} cli_input_shapes;

/* Adds one --input-shape value; false (message printed to stderr, prefixed
 * "texmem CMD: ") when malformed or too many. */
bool cli_input_shape_add(cli_input_shapes *s, const char *cmd, const char *arg);
/* Loads a .tflite with the input shapes (s may be NULL). A dynamic input
 * no shape fixes runs at the file's placeholder, as TFLite runs it, and
 * cli_note_placeholders says so on stderr. */
texmem_status cli_load_model(const char *path, const cli_input_shapes *s, texmem_model **out,
                             texmem_error *err);
/* One line per graph input running at its placeholder: "texmem: NAME:
 * batch dynamic, run at 1; --input-shape to change" (other dimensions:
 * which, and the shape run). */
void cli_note_placeholders(FILE *f, const texmem_model *m);

#endif

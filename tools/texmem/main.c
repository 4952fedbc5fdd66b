/* texmem: plan a model's texture memory, inspect the GL device, benchmark. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *help;
} command;

static const command commands[] = {
    {"plan", cli_cmd_plan, "plan shared objects / offsets for a records file"},
#ifdef TEXMEM_HAVE_GL
    {"info", cli_cmd_info, "print the GL renderer, versions and limits"},
#endif
#ifdef TEXMEM_HAVE_MODEL
    {"records", cli_cmd_records, "print a .tflite model's usage records"},
    {"tflm", cli_cmd_tflm, "TFLite Micro offline memory plans: plan, write, check"},
#endif
#if defined(TEXMEM_HAVE_MODEL) && defined(TEXMEM_HAVE_GL) && defined(TEXMEM_HAVE_RUNTIME)
    {"bench", cli_cmd_bench, "run a model with naive and planned textures"},
#endif
};

static void usage(FILE *f) {
  fprintf(f, "usage: texmem COMMAND [options]   (texmem COMMAND --help for details)\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_BAD_INPUT;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "texmem: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return CLI_EXIT_BAD_INPUT;
}

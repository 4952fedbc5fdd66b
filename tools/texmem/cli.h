/* texmem command: one file per subcommand, each a client of the library. */
#ifndef TEXMEM_CLI_H
#define TEXMEM_CLI_H

#include "cli_util.h"

/* argv[0] is the subcommand name. */
int cli_cmd_plan(int argc, char **argv);
int cli_cmd_info(int argc, char **argv);
int cli_cmd_records(int argc, char **argv);
int cli_cmd_bench(int argc, char **argv);
int cli_cmd_tflm(int argc, char **argv);

#endif

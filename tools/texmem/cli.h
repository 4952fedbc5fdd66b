/* texmem command: one file per subcommand, each a client of the library. */
#ifndef TEXMEM_CLI_H
#define TEXMEM_CLI_H

/* Exit codes of every subcommand. */
enum {
  TEXMEM_EXIT_OK = 0,
  TEXMEM_EXIT_INTERNAL = 1,
  TEXMEM_EXIT_BAD_INPUT = 2,
  TEXMEM_EXIT_DOES_NOT_FIT = 3, /* texmem plan --budget: proven not to fit */
  TEXMEM_EXIT_UNKNOWN = 4       /* texmem plan --budget: neither shown in time */
};

/* argv[0] is the subcommand name. */
int texmem_cmd_plan(int argc, char **argv);
int texmem_cmd_info(int argc, char **argv);
int texmem_cmd_records(int argc, char **argv);
int texmem_cmd_bench(int argc, char **argv);

/* After a loader returned TEXMEM_STATUS_IO for path: the system's reason
 * (strerror text, static storage), found by opening and reading it again. */
const char *texmem_cli_io_reason(const char *path);

#endif

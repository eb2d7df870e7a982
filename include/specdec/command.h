/* command.h -- every command of the specdec program, as a library call.
 *
 * sd_command_run runs a command from its arguments exactly as the program
 * does (man specdec: the same options, domains, defaults and data files)
 * and hands back the table the program would have printed, or the text it
 * would have written in another program's syntax (roofline --export,
 * metrics --export).  So a binding gets every command's columns through
 * table.h's accessors, with nothing per command.  Errors come back as the
 * program's one line, naming the flag ("--alpha: 2 is outside [0, 1]").
 * Not for partial results (--shard, --format partial) or --help.
 * Commands may read data files and set up shared tables: run one at a
 * time per process.
 */
#ifndef SPECDEC_COMMAND_H
#define SPECDEC_COMMAND_H

#include <stddef.h>

#include "specdec/status.h"
#include "specdec/table.h"

/* The i-th command's name ("speedup", "roofline", ...), i = 0, 1, ...;
 * NULL past the last.  Static. */
SD_API const char *sd_command_at(size_t i);

/* Runs the command argv[0] with its arguments argv[1 .. argc - 1] and the
 * data folder data_dir (the program's --data DIR; NULL: the usual search,
 * data.h).  On success *out gets the table (the caller frees it with
 * sd_table_free) and *text stays NULL, or, for a command that writes
 * another program's syntax, *text gets that text (free it with
 * sd_command_free_text) and *out stays NULL.  SD_ECHECK: a validate whose
 * checks did not all pass, its table in *out in full.  Else the program's
 * failure statuses (SD_EINVAL for bad usage or input) with *out and *text
 * NULL. */
SD_API sd_status sd_command_run(const char *data_dir, int argc, const char *const *argv, sd_table **out, char **text,
                                sd_error *err);

/* Frees a text sd_command_run returned; NULL is allowed. */
SD_API void sd_command_free_text(char *text);

#endif

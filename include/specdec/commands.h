/* commands.h -- every command of the library, listed once.
 *
 * The rows (command.h) of the commands the program runs, in the order its
 * --help lists them: each is one line of src/report/commands.def and one
 * module, cmd_NAME.h.  A binding makes its functions from this list.
 */
#ifndef SPECDEC_COMMANDS_H
#define SPECDEC_COMMANDS_H

#include <stddef.h>

#include "specdec/command.h"

/* The i-th command, i = 0, 1, ...; NULL past the last.  Static. */
SD_API const sd_command *sd_commands_at(size_t i);
/* The command called name, or NULL. */
SD_API const sd_command *sd_commands_find(const char *name);

#endif

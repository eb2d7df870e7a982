/* commands.c -- the library's command list (commands.def) and its lookups. */
#include "specdec/commands.h"

#include <string.h>

#define SD_COMMAND(name) extern const sd_command sd_cmd_##name;
#include "commands.def"
#undef SD_COMMAND

#define SD_COMMAND(name) &sd_cmd_##name,
static const sd_command *const COMMANDS[] = {
#include "commands.def"
    NULL,
};
#undef SD_COMMAND

const sd_command *sd_commands_at(size_t i)
{
    return i < sizeof COMMANDS / sizeof COMMANDS[0] - 1 ? COMMANDS[i] : NULL;
}

const sd_command *sd_commands_find(const char *name)
{
    for (size_t i = 0; COMMANDS[i] != NULL; i++)
        if (strcmp(COMMANDS[i]->name, name) == 0)
            return COMMANDS[i];
    return NULL;
}

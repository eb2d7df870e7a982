/* command.c -- running a parsed command: a library command on the request
 * cli_parse filled (command.h), or the program's own. */
#include "cli.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sd_status cli_run(const cli_args *a, sd_table **out, sd_error *err)
{
    const cli_command *cmd = a->cmd;
    *out = NULL;
    if (cmd->lib == NULL)
        return cmd->run(a, out, err);
    if (cmd->lib->data_dir != SIZE_MAX)
        memcpy((char *)a->req + cmd->lib->data_dir, &a->data_dir, sizeof a->data_dir);
    if (cmd->hooks != NULL)
        cmd->hooks(a->req, a);
    char *text = NULL, missing[64];
    sd_status st = sd_command_run(cmd->lib, a->req, out, &text, err);
    snprintf(missing, sizeof missing, "%s: missing argument", cmd->name);
    if (st == SD_EINVAL && strcmp(err->msg, missing) == 0) /* the library's words; the usage line is ours */
        sd_status_fail(err, st, "%s; usage: specdec %s", missing, cmd->synopsis);
    if (text != NULL && a->text != NULL)
        *a->text = text;
    else
        sd_command_free_text(text);
    return st;
}

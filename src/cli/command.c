/* command.c -- running a parsed command on the request cli_parse filled (command.h): the program's
 * part set into it first (the data folder, the command's hooks). */
#include "cli.h"

#include <stdint.h>
#include <string.h>

sd_status cli_run(const cli_args *a, sd_table **out, sd_error *err)
{
    const sd_command *cmd = a->cmd->cmd;
    *out = NULL;
    if (cmd->data_dir != SIZE_MAX)
        memcpy((char *)a->req + cmd->data_dir, &a->data_dir, sizeof a->data_dir);
    if (a->cmd->hooks != NULL)
        a->cmd->hooks(a->req, a);
    char *text = NULL;
    sd_status st = sd_command_run(cmd, a->req, out, &text, err);
    if (text != NULL && a->text != NULL)
        *a->text = text;
    else
        sd_command_free_text(text);
    return st;
}

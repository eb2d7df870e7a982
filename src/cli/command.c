/* command.c -- running a parsed command (cli_execute: the program's main and the library
 * alike), and every command as a library call (command.h). */
#include "cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/command.h"

sd_status cli_execute(const cli_args *a, int argc, char **argv, int partial, sd_table **out, sd_partial *part,
                      sd_error *err)
{
    const cli_command *cmd = a->cmd;
    *out = NULL;
    if (cmd->scales && (partial || cli_given(a, "--sweep")))
        return cli_scale_run(cmd, a, argc, argv, partial, out, part, err);
    return cmd->run(a, out, err);
}

const char *sd_command_at(size_t i)
{
    size_t n = 0;
    while (cli_commands()[n] != NULL)
        n++;
    return i < n ? cli_commands()[i]->name : NULL;
}

sd_status sd_command_run(const char *data_dir, int argc, const char *const *argv, sd_table **out, char **text,
                         sd_error *err)
{
    *out = NULL;
    *text = NULL;
    if (argc < 1 || argv[0] == NULL)
        return sd_status_fail(err, SD_EINVAL, "no command given");
    const cli_command *cmd = cli_find_command(cli_commands(), argv[0], strlen(argv[0]));
    if (cmd == NULL)
        return sd_status_fail(err, SD_EINVAL, "unknown command '%s'", argv[0]);
    cli_args a;
    int help;
    const char *format;
    /* the parser keeps pointers into argv and never writes through them */
    char **args = (char **)(uintptr_t)(argv + 1);
    sd_status st = cli_parse(cmd, argc - 1, args, &a, &help, &format, err);
    if (st == SD_OK && help)
        st = sd_status_fail(err, SD_EINVAL, "--help: see man specdec or `specdec %s --help`", cmd->name);
    else if (st == SD_OK && (format != NULL || cli_given(&a, "--shard")))
        st = sd_status_fail(err, SD_EINVAL, "%s: a library call returns the table itself (format it with format.h; "
                            "partial results come from the program)", format != NULL ? "--format" : "--shard");
    if (st != SD_OK)
        return st;
    a.data_dir = data_dir;
    a.commands = cli_commands();
    a.text = text;
    sd_partial part = sd_partial_init(1, 1);
    st = cli_execute(&a, argc - 1, args, 0, out, &part, err);
    if (st != SD_OK && st != SD_ECHECK) {
        sd_table_free(*out);
        *out = NULL;
        free(*text);
        *text = NULL;
        cli_name_flag(cmd, err);
    }
    return st;
}

void sd_command_free_text(char *text) { free(text); }

/* help.c -- `specdec --help` and `specdec COMMAND --help`, from the tables:
 * the commands' rows and their fields' rows (help text, domain, default,
 * names: sd_command_help_text), so that help never lists a stale name,
 * range or default. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

void cli_help_usage(const cli_command *const *table)
{
    printf("usage: specdec [--data DIR] COMMAND [OPTIONS]\n\n"
           "The analytical theory of speculative decoding: closed forms, optimal draft\n"
           "length, and checks against a real rejection sampler.\n\ncommands:\n");
    for (int i = 0; table[i] != NULL; i++)
        printf("  %-10s %s\n", table[i]->name, table[i]->cmd->summary);
    printf("\nLISTS: a value, a comma list, or an inclusive range start:stop[:step]\n"
           "(0.5:0.95:0.05, 1:25); several lists give every combination.\n"
           "Every command takes --format %s (default text).\n"
           "--data DIR: the folder of data files (presets); else $SPECDEC_DATA, then %s,\n"
           "then the source tree's data/ when run from its build folder.\n"
           "Run 'specdec COMMAND --help' for a command's options; 'specdec --version'.\n",
           sd_format_names(), sd_data_installed_dir());
}

/* The options of one group of rows (positionals left out). */
static void options(const sd_command *cmd, const sd_command_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char lhs[64], help[1024];
        if (f[i].position > 0)
            continue;
        snprintf(lhs, sizeof lhs, "%s %s", f[i].name, f[i].metavar ? f[i].metavar : "");
        printf("  %-22s %s\n", lhs, sd_command_help_text(cmd, &f[i], help, sizeof help));
    }
}

void cli_help_command(const cli_command *c)
{
    printf("usage: specdec %s%s\n\n%s\n\noptions:\n", c->cmd->usage, c->own_format ? "" : " [--format FORMAT]",
           c->cmd->summary);
    for (int g = 0; g < SD_COMMAND_MAX_GROUPS && c->cmd->groups[g] != NULL; g++) {
        size_t n = 0;
        while (c->cmd->groups[g][n].name != NULL)
            n++;
        options(c->cmd, c->cmd->groups[g], n);
    }
    const sd_command_field *p = cli_program_fields(c);
    size_t n = 0;
    while (p != NULL && p[n].name != NULL)
        n++;
    options(c->cmd, p, n);
    if (!c->own_format)
        printf("  %-22s %s%s (default text)\n", "--format FORMAT", sd_format_names(),
               c->scales ? ", or partial (the counts, for merge)" : "");
    printf("  %-22s %s\n", "--help", "this text");
    if (c->more_help != NULL)
        c->more_help();
}

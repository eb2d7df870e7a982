/* main.c -- specdec: the analytical theory of speculative decoding.
 *
 * Parses first, then runs: the subcommand builds a table, then the table is
 * rendered in the requested format.  Errors print one line on stderr,
 * "specdec: what went wrong", and exit with 2 for invalid usage or input
 * and 1 for anything else; nothing is written to stdout then.
 */
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cli.h"
#include "format.h"
#include "specdec.h"

/* The subcommands: adding a command is adding a row. */
static const cli_command *const COMMANDS[] = {
    &cmd_speedup, &cmd_optimal, &cmd_expect, &cmd_overlap, &cmd_metrics, &cmd_markov, &cmd_simulate, &cmd_policies, &cmd_sample, &cmd_validate, &cmd_roofline, &cmd_plot, NULL,
};

enum { EXIT_USAGE = 2, EXIT_FAILURE_OTHER = 1 };

static void print_usage(void)
{
    FILE *f = stdout;
    fprintf(f, "usage: specdec COMMAND [OPTIONS]\n\n"
               "The analytical theory of speculative decoding: closed forms, optimal draft\n"
               "length, and checks against a real rejection sampler.\n\ncommands:\n");
    for (int i = 0; COMMANDS[i] != NULL; i++)
        fprintf(f, "  %-10s %s\n", COMMANDS[i]->name, COMMANDS[i]->summary);
    fprintf(f, "\nLISTS: a value, a comma list, or an inclusive range start:stop[:step]\n"
               "(0.5:0.95:0.05, 1:25); several lists give every combination.\n"
               "Every command takes --format %s (default text).\n"
               "Run 'specdec COMMAND --help' for a command's options; 'specdec --version'.\n",
               sd_format_names());
}

static void print_command_help(const cli_command *c)
{
    printf("usage: specdec %s%s\n\n%s\n\noptions:\n", c->synopsis, c->own_format ? "" : " [--format FORMAT]",
           c->summary);
    const cli_option *o;
    for (int i = 0; (o = cli_option_at(c, i)) != NULL; i++) {
        char lhs[64];
        snprintf(lhs, sizeof lhs, "%s %s", o->name, o->metavar ? o->metavar : "");
        printf("  %-22s %s\n", lhs, o->help);
    }
    if (!c->own_format)
        printf("  %-22s %s (default text)\n", "--format FORMAT", sd_format_names());
    printf("  %-22s %s\n", "--help", "this text");
    if (c->more_help != NULL)
        c->more_help();
}

static int fail(sd_status st, const sd_error *err)
{
    fprintf(stderr, "specdec: %s\n", err->msg);
    return st == SD_EINVAL ? EXIT_USAGE : EXIT_FAILURE_OTHER;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    sd_error err = { "" };
    if (argc < 2) {
        sd_fail(&err, SD_EINVAL, "no command given; see 'specdec --help'");
        return fail(SD_EINVAL, &err);
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_usage();
        return fflush(stdout) == 0 ? 0 : EXIT_FAILURE_OTHER;
    }
    if (strcmp(name, "--version") == 0) {
        printf("specdec %s\n", SPECDEC_VERSION);
        return fflush(stdout) == 0 ? 0 : EXIT_FAILURE_OTHER;
    }
    const cli_command *cmd = NULL;
    for (int i = 0; COMMANDS[i] != NULL; i++)
        if (strcmp(COMMANDS[i]->name, name) == 0)
            cmd = COMMANDS[i];
    if (cmd == NULL) {
        sd_fail(&err, SD_EINVAL, "unknown command '%s'; see 'specdec --help'", name);
        return fail(SD_EINVAL, &err);
    }

    cli_args args;
    int help;
    const char *format_name;
    sd_format format = SD_FORMAT_TEXT;
    sd_status st = cli_parse(cmd, argc - 2, argv + 2, &args, &help, &format_name, &err);
    if (st == SD_OK && help) {
        print_command_help(cmd);
        return fflush(stdout) == 0 ? 0 : EXIT_FAILURE_OTHER;
    }
    if (st == SD_OK && format_name != NULL)
        st = sd_format_parse(format_name, &format, &err);
    if (st != SD_OK)
        return fail(st, &err);

    sd_table *table = NULL;
    st = cmd->run(&args, &table, &err);
    if (st == SD_OK || st == SD_ECHECK) { /* a failed check still reports in full */
        sd_status wst = sd_format_write(table, format, stdout, &err);
        st = wst != SD_OK ? wst : st;
    }
    sd_table_free(table);
    if (st == SD_ECHECK)
        return EXIT_FAILURE_OTHER;
    return st == SD_OK ? 0 : fail(st, &err);
}

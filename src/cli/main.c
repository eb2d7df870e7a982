/* main.c -- specdec: the analytical theory of speculative decoding.
 *
 * Parses first, then runs: the global options, the command, its options;
 * the command builds a table, then the table is rendered in the requested
 * format (or, for a shard, its partial result is printed).  Errors print one
 * line on stderr, "specdec: what went wrong", and exit with 2 for invalid
 * usage or input and 1 for anything else; nothing is written to stdout then.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cli.h"

enum { EXIT_USAGE = 2, EXIT_FAILURE_OTHER = 1 };

/* Writes "specdec: MSG" on stderr with control bytes escaped (\n, \t, \r,
 * \xHH), so that an error is always exactly one line and never drives the
 * terminal, whatever a file or an argument held; the exit code of st. */
static int fail(sd_status st, const sd_error *err)
{
    fputs("specdec: ", stderr);
    for (const unsigned char *c = (const unsigned char *)err->msg; *c; c++) {
        if (*c == '\n' || *c == '\t' || *c == '\r')
            fprintf(stderr, "\\%c", *c == '\n' ? 'n' : *c == '\t' ? 't' : 'r');
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(stderr, "\\x%02x", *c);
        else
            fputc(*c, stderr);
    }
    fputc('\n', stderr);
    return st == SD_EINVAL ? EXIT_USAGE : EXIT_FAILURE_OTHER;
}

/* Flushes stdout after help or version text; a write error (a full disk, a
 * closed pipe) is reported, not swallowed. */
static int finish_output(sd_error *err)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    return fail(sd_status_fail(err, SD_EIO, "cannot write to standard output: %s", strerror(errno ? errno : EIO)),
                err);
}

/* The global part of the command line: --data DIR, then the command's name
 * (or --help, --version).  Moves *argv past --data. */
static sd_status globals(int *argc, char ***argv, const char **data_dir, sd_error *err)
{
    *data_dir = NULL;
    if (*argc >= 2 && strcmp((*argv)[1], "--data") == 0) { /* the one global option */
        if (*argc < 3)
            return sd_status_fail(err, SD_EINVAL, "--data: needs a folder; see 'specdec --help'");
        *data_dir = (*argv)[2];
        *argv += 2;
        *argc -= 2;
        if (*argc < 2)
            return sd_status_fail(err, SD_EINVAL, "no command given after --data DIR; see 'specdec --help'");
    }
    if (*argc < 2)
        return sd_status_fail(err, SD_EINVAL, "no command given; see 'specdec --help'");
    return SD_OK;
}

/* The command's options, checked against --format (a name, or partial for a
 * scaling command's counts, which --shard implies). */
static sd_status options(const cli_command *cmd, int argc, char **argv, cli_args *a, int *help, sd_format *format,
                         int *partial, sd_error *err)
{
    const char *name;
    sd_status st = cli_parse(cmd, argc, argv, a, help, &name, err);
    *format = SD_FORMAT_TEXT;
    *partial = name != NULL && strcmp(name, "partial") == 0;
    if (st != SD_OK || *help)
        return st;
    if (*partial && !cmd->scales)
        return sd_status_fail(err, SD_EINVAL, "--format: partial results come from simulate, policies, sample, "
                              "validate and serving");
    if (cli_given(a, "--shard") && name != NULL && !*partial)
        return sd_status_fail(err, SD_EINVAL, "--shard: a shard prints a partial result; give --format %s to "
                              "'specdec merge'", name);
    *partial |= cli_given(a, "--shard");
    return name != NULL && !*partial ? sd_format_parse(name, format, err) : SD_OK;
}

/* Runs the parsed command a->cmd (its arguments argv[0..argc-1]): a job of
 * --sweep rows through cli_scale_run, or a partial result into *part when
 * partial (shard --shard), else one run into *out. */
static sd_status execute(const cli_args *a, int argc, char **argv, int partial, sd_table **out, sd_partial *part,
                         sd_error *err)
{
    *out = NULL;
    if (a->cmd->scales && (partial || cli_given(a, "--sweep")))
        return cli_scale_run(a->cmd, a, argc, argv, partial, out, part, err);
    return cli_run(a, out, err);
}

/* Runs the command and writes what it made: its table in the format, or a
 * shard's partial result. */
static sd_status run(const cli_args *a, int argc, char **argv, sd_format format, int partial, sd_error *err)
{
    sd_table *table = NULL;
    sd_partial part;
    sd_status st;
    st = execute(a, argc, argv, partial, &table, &part, err);
    if (st == SD_OK && partial) {
        st = sd_partial_write(&part, stdout, err);
        sd_partial_free(&part);
        return st;
    }
    if (st == SD_OK && *a->text != NULL) { /* another program's syntax, as it is */
        fputs(*a->text, stdout);
        free(*a->text);
        *a->text = NULL;
        return SD_OK;
    }
    if (st == SD_OK || st == SD_ECHECK) { /* a failed check still reports in full */
        sd_status wst = sd_format_write(table, format, stdout, err);
        st = wst != SD_OK ? wst : st;
    }
    sd_table_free(table);
    return st;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    sd_error err = { "" };
    const char *data_dir;
    sd_status st = globals(&argc, &argv, &data_dir, &err);
    if (st != SD_OK)
        return fail(st, &err);
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        cli_help_usage(cli_commands());
        return finish_output(&err);
    }
    if (strcmp(name, "--version") == 0) {
        printf("specdec %s (library %s, GSL %s)\n", SPECDEC_VERSION, sd_version(), sd_version_gsl());
        return finish_output(&err);
    }
    const cli_command *cmd = cli_find_command(cli_commands(), name, strlen(name));
    if (cmd == NULL)
        return fail(sd_status_fail(&err, SD_EINVAL, "unknown command '%s'; see 'specdec --help'", name), &err);
    cli_args args;
    int help, partial;
    sd_format format;
    if ((st = options(cmd, argc - 2, argv + 2, &args, &help, &format, &partial, &err)) == SD_OK && help) {
        cli_args_free(&args);
        cli_help_command(cmd);
        return finish_output(&err);
    }
    char *text = NULL;
    args.data_dir = data_dir;
    args.commands = cli_commands();
    args.text = &text;
    if (st == SD_OK)
        st = run(&args, argc - 2, argv + 2, format, partial, &err);
    cli_args_free(&args);
    if (st == SD_ECHECK)
        return EXIT_FAILURE_OTHER;
    if (st != SD_OK)
        sd_command_name_flag(cmd->cmd, &err);
    return st == SD_OK ? 0 : fail(st, &err);
}

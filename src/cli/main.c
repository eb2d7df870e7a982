/* main.c -- specdec: the analytical theory of speculative decoding.
 *
 * Parses first, then runs: the subcommand builds a table, then the table is
 * rendered in the requested format.  Errors print one line on stderr,
 * "specdec: what went wrong", and exit with 2 for invalid usage or input
 * and 1 for anything else; nothing is written to stdout then.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cli.h"

/* The subcommands: adding a command is adding a row. */
static const cli_command *const COMMANDS[] = {
    &cmd_speedup, &cmd_optimal, &cmd_expect, &cmd_overlap, &cmd_metrics, &cmd_markov, &cmd_fit,
    &cmd_simulate, &cmd_policies, &cmd_sample, &cmd_validate, &cmd_merge, &cmd_roofline, &cmd_plot, NULL,
};

const cli_command *cli_find_command_n(const char *name, size_t len)
{
    for (int i = 0; COMMANDS[i] != NULL; i++)
        if (strlen(COMMANDS[i]->name) == len && strncmp(COMMANDS[i]->name, name, len) == 0)
            return COMMANDS[i];
    return NULL;
}

enum { EXIT_USAGE = 2, EXIT_FAILURE_OTHER = 1 };

static void print_usage(void)
{
    FILE *f = stdout;
    fprintf(f, "usage: specdec [--data DIR] COMMAND [OPTIONS]\n\n"
               "The analytical theory of speculative decoding: closed forms, optimal draft\n"
               "length, and checks against a real rejection sampler.\n\ncommands:\n");
    for (int i = 0; COMMANDS[i] != NULL; i++)
        fprintf(f, "  %-10s %s\n", COMMANDS[i]->name, COMMANDS[i]->summary);
    fprintf(f, "\nLISTS: a value, a comma list, or an inclusive range start:stop[:step]\n"
               "(0.5:0.95:0.05, 1:25); several lists give every combination.\n"
               "Every command takes --format %s (default text).\n"
               "--data DIR: the folder of data files (presets); else $SPECDEC_DATA, then %s,\n"
               "then the source tree's data/ when run from its build folder.\n"
               "Run 'specdec COMMAND --help' for a command's options; 'specdec --version'.\n",
               sd_format_names(), sd_data_installed_dir());
}

/* A NULL-terminated name table joined with ", " into buf. */
static const char *join(const char *const *names, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; names[i] != NULL; i++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? ", " : "", names[i]);
    return buf;
}

/* An option's help with {families}, {regimes}, {policies}, {verifiers}
 * replaced by the library's tables, so that help never lists stale names. */
static void expand_help(const char *help, char *out, size_t size)
{
    char families[256], regimes[256], policies[256];
    const char *const subst[][2] = {
        { "{families}", join(sd_synth_family_names(), families, sizeof families) },
        { "{regimes}", join(sd_synth_regime_names(), regimes, sizeof regimes) },
        { "{policies}", join(sd_engine_policy_names(), policies, sizeof policies) },
        { "{verifiers}", sd_verify_names() },
    };
    size_t n = 0;
    out[0] = '\0';
    while (*help != '\0' && n + 1 < size) {
        size_t k = 0;
        while (k < sizeof subst / sizeof subst[0] && strncmp(help, subst[k][0], strlen(subst[k][0])) != 0)
            k++;
        if (k < sizeof subst / sizeof subst[0]) {
            n += (size_t)snprintf(out + n, size - n, "%s", subst[k][1]);
            help += strlen(subst[k][0]);
        } else {
            out[n++] = *help++;
            out[n] = '\0';
        }
        if (n >= size)
            n = size - 1;
    }
}

static void print_command_help(const cli_command *c)
{
    printf("usage: specdec %s%s\n\n%s\n\noptions:\n", c->synopsis, c->own_format ? "" : " [--format FORMAT]",
           c->summary);
    const cli_option *o;
    for (int i = 0; (o = cli_option_at(c, i)) != NULL; i++) {
        char lhs[64];
        snprintf(lhs, sizeof lhs, "%s %s", o->name, o->metavar ? o->metavar : "");
        char help[512];
        expand_help(o->help, help, sizeof help);
        printf("  %-22s %s\n", lhs, help);
    }
    if (!c->own_format)
        printf("  %-22s %s%s (default text)\n", "--format FORMAT", sd_format_names(),
               c->scales ? ", or partial (the counts, for merge)" : "");
    printf("  %-22s %s\n", "--help", "this text");
    if (c->more_help != NULL)
        c->more_help();
}

/* Library parameters whose option is not simply "--" + the name with '-' for '_'. */
static const char *const PARAM_FLAGS[][2] = {
    { "verifier", "--verify" },   { "mean_length", "--mean-acceptance-length" },
    { "rate", "--acceptance-rate" }, { "dir", "--out" },
    { NULL, NULL },
};

/* The library names parameters ("alpha: ..."), the program names flags:
 * when err starts with a parameter that is one of cmd's options, write the
 * option instead ("--alpha: ..."), as luaL_argerror's caller adds context. */
static void name_flag(const cli_command *cmd, sd_error *err)
{
    size_t n = strspn(err->msg, "abcdefghijklmnopqrstuvwxyz_");
    if (n == 0 || n > 40 || err->msg[n] != ':')
        return;
    char param[48], flag[64];
    memcpy(param, err->msg, n);
    param[n] = '\0';
    snprintf(flag, sizeof flag, "--%s", param);
    for (char *c = flag; *c; c++)
        *c = *c == '_' ? '-' : *c;
    for (int i = 0; PARAM_FLAGS[i][0] != NULL; i++)
        if (strcmp(PARAM_FLAGS[i][0], param) == 0)
            snprintf(flag, sizeof flag, "%s", PARAM_FLAGS[i][1]);
    const cli_option *o;
    int known = strcmp(flag, "--data") == 0 || strcmp(flag, "--format") == 0;
    for (int i = 0; cmd != NULL && !known && (o = cli_option_at(cmd, i)) != NULL; i++)
        known = strcmp(o->name, flag) == 0;
    if (!known)
        return;
    size_t fl = strlen(flag), len = strlen(err->msg);
    if (len - n + fl >= sizeof err->msg) /* no room: keep the parameter's name */
        return;
    memmove(err->msg + fl, err->msg + n, len - n + 1);
    memcpy(err->msg, flag, fl);
}

/* Writes msg with control bytes escaped (\n, \t, \r, \xHH), so that an error is
 * always exactly one line and never drives the terminal, whatever a file or
 * an argument held. */
static void write_escaped(const char *msg, FILE *out)
{
    for (const unsigned char *c = (const unsigned char *)msg; *c; c++) {
        if (*c == '\n')
            fputs("\\n", out);
        else if (*c == '\t')
            fputs("\\t", out);
        else if (*c == '\r')
            fputs("\\r", out);
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(out, "\\x%02x", *c);
        else
            fputc(*c, out);
    }
}

static int fail(sd_status st, const sd_error *err)
{
    fputs("specdec: ", stderr);
    write_escaped(err->msg, stderr);
    fputc('\n', stderr);
    return st == SD_EINVAL ? EXIT_USAGE : EXIT_FAILURE_OTHER;
}

/* Flushes stdout after help or version text; a write error (a full disk, a
 * closed pipe) is reported, not swallowed. */
static int finish_output(sd_error *err)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    sd_status_fail(err, SD_EIO, "cannot write to standard output: %s", strerror(errno ? errno : EIO));
    return fail(SD_EIO, err);
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    sd_error err = { "" };
    if (argc < 2) {
        sd_status_fail(&err, SD_EINVAL, "no command given; see 'specdec --help'");
        return fail(SD_EINVAL, &err);
    }
    const char *data_dir = NULL;
    if (strcmp(argv[1], "--data") == 0) { /* the one global option */
        if (argc < 3) {
            sd_status_fail(&err, SD_EINVAL, "--data: needs a folder; see 'specdec --help'");
            return fail(SD_EINVAL, &err);
        }
        data_dir = argv[2];
        argv += 2;
        argc -= 2;
        if (argc < 2) {
            sd_status_fail(&err, SD_EINVAL, "no command given after --data DIR; see 'specdec --help'");
            return fail(SD_EINVAL, &err);
        }
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_usage();
        return finish_output(&err);
    }
    if (strcmp(name, "--version") == 0) {
        printf("specdec %s (library %s, GSL %s)\n", SPECDEC_VERSION, sd_version(), sd_version_gsl());
        return finish_output(&err);
    }
    const cli_command *cmd = NULL;
    for (int i = 0; COMMANDS[i] != NULL; i++)
        if (strcmp(COMMANDS[i]->name, name) == 0)
            cmd = COMMANDS[i];
    if (cmd == NULL) {
        sd_status_fail(&err, SD_EINVAL, "unknown command '%s'; see 'specdec --help'", name);
        return fail(SD_EINVAL, &err);
    }

    cli_args args;
    int help;
    const char *format_name;
    sd_format format = SD_FORMAT_TEXT;
    sd_status st = cli_parse(cmd, argc - 2, argv + 2, &args, &help, &format_name, &err);
    args.data_dir = data_dir;
    if (st == SD_OK && help) {
        print_command_help(cmd);
        return finish_output(&err);
    }
    int partial = format_name != NULL && strcmp(format_name, "partial") == 0;
    if (st == SD_OK && partial && !cmd->scales)
        st = sd_status_fail(&err, SD_EINVAL, "--format: partial results come from simulate, policies, sample and validate");
    if (st == SD_OK && cli_given(&args, "--shard") && format_name != NULL && !partial)
        st = sd_status_fail(&err, SD_EINVAL, "--shard: a shard prints a partial result; give --format %s to "
                            "'specdec merge'", format_name);
    if (st == SD_OK && format_name != NULL && !partial)
        st = sd_format_parse(format_name, &format, &err);
    if (st != SD_OK) {
        name_flag(cmd, &err);
        return fail(st, &err);
    }

    sd_table *table = NULL;
    if (cmd->scales && (partial || cli_given(&args, "--shard") || cli_given(&args, "--sweep"))) {
        sd_partial part;
        partial |= cli_given(&args, "--shard");
        st = cli_scale_run(cmd, &args, argc - 2, argv + 2, partial, &table, &part, &err);
        if (st == SD_OK && partial) {
            st = sd_partial_write(&part, stdout, &err);
            sd_partial_free(&part);
            return st == SD_OK ? 0 : fail(st, &err);
        }
    } else
        st = cmd->run(&args, &table, &err);
    if (st == SD_OK || st == SD_ECHECK) { /* a failed check still reports in full */
        sd_status wst = sd_format_write(table, format, stdout, &err);
        st = wst != SD_OK ? wst : st;
    }
    sd_table_free(table);
    if (st == SD_ECHECK)
        return EXIT_FAILURE_OTHER;
    if (st != SD_OK)
        name_flag(cmd, &err);
    return st == SD_OK ? 0 : fail(st, &err);
}

/* help.c -- `specdec --help` and `specdec COMMAND --help`, from the tables:
 * the commands' rows, their options' rows (help text, domain, default) and
 * the library's name tables, so that help never lists a stale name, range or
 * default. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void cli_help_usage(const cli_command *const *table)
{
    printf("usage: specdec [--data DIR] COMMAND [OPTIONS]\n\n"
           "The analytical theory of speculative decoding: closed forms, optimal draft\n"
           "length, and checks against a real rejection sampler.\n\ncommands:\n");
    for (int i = 0; table[i] != NULL; i++)
        printf("  %-10s %s\n", table[i]->name, table[i]->lib != NULL ? table[i]->lib->summary : table[i]->summary);
    printf("\nLISTS: a value, a comma list, or an inclusive range start:stop[:step]\n"
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

/* The domain of o as "[min, max]" or "[min, inf)", into buf ("?" without one). */
static const char *range_text(const cli_option *o, char *buf, size_t size)
{
    char lo[32], hi[32];
    if (o->domain == NULL)
        snprintf(buf, size, "?");
    else if (isinf(o->domain->max))
        snprintf(buf, size, "[%s, inf)", cli_number_text(o->domain->min, lo, sizeof lo));
    else
        snprintf(buf, size, "[%s, %s]", cli_number_text(o->domain->min, lo, sizeof lo),
                 cli_number_text(o->domain->max, hi, sizeof hi));
    return buf;
}

/* An option's help with {default}, {range} and the name lists filled in. */
static void expand_help(const cli_option *o, char *out, size_t size)
{
    char formats[256], names[256], dflt[64], range[96], max[32];
    const char *d = cli_default_text(o, dflt, sizeof dflt);
    names[0] = '\0';
    if (o->names != NULL)
        join(o->names(), names, sizeof names);
    const char *const subst[][2] = {
        { "{formats}", join(sd_counters_formats(), formats, sizeof formats) },
        { "{names}", names },
        { "{default}", d != NULL ? d : "none" },
        { "{range}", range_text(o, range, sizeof range) },
        { "{max}", o->domain != NULL ? cli_number_text(o->domain->max, max, sizeof max) : "?" },
    };
    size_t n = 0;
    const char *help = o->help;
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

void cli_help_command(const cli_command *c)
{
    printf("usage: specdec %s%s\n\n%s\n\noptions:\n", c->synopsis, c->own_format ? "" : " [--format FORMAT]",
           c->lib != NULL ? c->lib->summary : c->summary);
    const sd_command_field *f;
    for (size_t i = 0; c->lib != NULL && (f = sd_command_field_at(c->lib, i, NULL)) != NULL; i++) {
        char lhs[64], help[512];
        if (f->position > 0)
            continue;
        snprintf(lhs, sizeof lhs, "%s %s", f->name, f->metavar ? f->metavar : "");
        printf("  %-22s %s\n", lhs, sd_command_help_text(c->lib, f, help, sizeof help));
    }
    const cli_option *o;
    for (int i = 0; (o = cli_option_at(c, i)) != NULL; i++) {
        char lhs[64], help[512];
        snprintf(lhs, sizeof lhs, "%s %s", o->name, o->metavar ? o->metavar : "");
        expand_help(o, help, sizeof help);
        printf("  %-22s %s\n", lhs, help);
    }
    if (!c->own_format)
        printf("  %-22s %s%s (default text)\n", "--format FORMAT", sd_format_names(),
               c->scales ? ", or partial (the counts, for merge)" : "");
    printf("  %-22s %s\n", "--help", "this text");
    if (c->more_help != NULL)
        c->more_help();
}

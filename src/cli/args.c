/* args.c -- strict option parsing shared by every command: the command's rows
 * (command.h) and the program's own (--shard, --sweep) fill its request from
 * argv, each value read as its field's type and checked against its domain. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_command *cli_find_command(const cli_command *const *table, const char *name, size_t len)
{
    for (int i = 0; table[i] != NULL; i++)
        if (strlen(table[i]->name) == len && strncmp(table[i]->name, name, len) == 0)
            return table[i];
    return NULL;
}

/* 1 when arg is a positional argument: not an option, but "-" and negative numbers are. */
static int positional(const char *arg)
{
    return arg[0] != '-' || arg[1] == '\0' || (arg[1] != '-' && (arg[1] == '.' || (arg[1] >= '0' && arg[1] <= '9')));
}

/* The value of option argv[*i] (name len chars, eq its '=' or NULL), taking
 * the next argument when there is no '='. */
static sd_status option_value(int argc, char **argv, int *i, size_t len, const char *eq, const char **value,
                              sd_error *err)
{
    const char *arg = argv[*i];
    if (eq != NULL)
        *value = eq + 1;
    else if (*i + 1 < argc && !(argv[*i + 1][0] == '-' && argv[*i + 1][1] == '-'))
        *value = argv[++*i];
    else
        return sd_status_fail(err, SD_EINVAL, "%.*s needs a value", (int)len, arg);
    return SD_OK;
}

/* The options of the program's scale-out (scale.c) every scaling command takes, into cli_args. */
static const sd_command_field SCALE_FIELDS[] = {
    { .name = "--shard", .type = SD_COMMAND_TEXT, .offset = offsetof(cli_args, shard_text), .metavar = "I/N",
      .help = "run only shard I of N (chunks I-1, I-1+N, ...) and print a partial result for merge" },
    { .name = "--sweep", .type = SD_COMMAND_TEXT, .offset = offsetof(cli_args, sweep_text), .metavar = "FILE",
      .help = "one run per row of a TSV whose columns are options (alpha, gamma, ...)" },
    { .name = NULL },
};

const sd_command_field *cli_program_fields(const cli_command *c) { return c->scales ? SCALE_FIELDS : NULL; }

/* The k-th field a command takes, its options and positionals in order: the command's fields
 * (*where the request) then the program's (*where the arguments); NULL past the last. */
static const sd_command_field *field_at(const cli_args *a, int k, char **where)
{
    size_t base;
    const sd_command_field *f = sd_command_field_at(a->cmd->cmd, (size_t)k, &base);
    if (f != NULL) {
        *where = (char *)a->req + base;
        return f;
    }
    size_t n = 0;
    while (sd_command_field_at(a->cmd->cmd, n, NULL) != NULL)
        n++;
    const sd_command_field *p = cli_program_fields(a->cmd);
    for (int i = 0; p != NULL && p[i].name != NULL; i++)
        if ((size_t)k == n + (size_t)i) {
            *where = (char *)(uintptr_t)a;
            return &p[i];
        }
    return NULL;
}

/* The index of the option called name[0..len-1] (not a positional), or -1. */
static int field_index(const cli_args *a, const char *name, size_t len)
{
    const sd_command_field *f;
    char *where;
    for (int k = 0; k < CLI_MAX_OPTIONS && (f = field_at(a, k, &where)) != NULL; k++)
        if (f->position == 0 && strlen(f->name) == len && strncmp(f->name, name, len) == 0)
            return k;
    return -1;
}

/* Writes the text value of field k (f, its struct at where) typed: a flag set, a number or a
 * list parsed in the field's domain (the list kept in a->lists[k]), a text as it is, a choice's
 * index. */
static sd_status set_field(cli_args *a, int k, const sd_command_field *f, char *where, const char *value,
                           sd_error *err)
{
    void *p = where + f->offset;
    switch (f->type) {
    case SD_COMMAND_FLAG:
        *(int *)p = 1;
        return SD_OK;
    case SD_COMMAND_TEXT:
        *(const char **)p = value;
        return SD_OK;
    case SD_COMMAND_REAL:
        return sd_parse_number(value, f->domain, (double *)p, err);
    case SD_COMMAND_LIST: {
        sd_status st = sd_parse_list(value, f->domain, &a->lists[k], err);
        if (st == SD_OK)
            *(sd_command_list *)p = (sd_command_list){ .v = a->lists[k].v, .n = a->lists[k].n };
        return st;
    }
    case SD_COMMAND_CHOICE:
        break;
    }
    const char *const *names = f->names();
    char valid[512] = "";
    for (int i = 0; names[i] != NULL; i++) {
        if (strcmp(value, names[i]) == 0) {
            *(int *)p = i;
            return SD_OK;
        }
        snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", i ? ", " : "", names[i]);
    }
    return sd_status_fail(err, SD_EINVAL, "%s: unknown value '%s'; expected one of %s", f->name, value, valid);
}

/* The positional arguments into the command's positional fields, in order. */
static sd_status set_positionals(cli_args *a, sd_error *err)
{
    const sd_command_field *f;
    char *where;
    sd_status st;
    for (int k = 0; (f = field_at(a, k, &where)) != NULL; k++)
        if (f->position > 0 && f->position <= a->npos &&
            (st = set_field(a, k, f, where, a->pos[f->position - 1], err)) != SD_OK)
            return st;
    return SD_OK;
}

/* The option argv[*i] (name len chars, eq its '=' or NULL), field k, into its place. */
static sd_status one_option(cli_args *a, int argc, char **argv, int *i, size_t len, const char *eq, int k,
                            sd_error *err)
{
    char *where;
    const sd_command_field *f = field_at(a, k, &where);
    const char *value = NULL;
    sd_status st = SD_OK;
    if (f->type != SD_COMMAND_FLAG)
        st = option_value(argc, argv, i, len, eq, &value, err);
    else if (eq != NULL)
        st = sd_status_fail(err, SD_EINVAL, "%.*s takes no value", (int)len, argv[*i]);
    if (st != SD_OK)
        return st;
    if (a->given[k]++)
        return sd_status_fail(err, SD_EINVAL, "%s given twice; give several values as one list, e.g. %s 1,2,3",
                              f->name, f->name);
    return set_field(a, k, f, where, value, err);
}

void cli_args_free(cli_args *a)
{
    for (int k = 0; k < CLI_MAX_OPTIONS; k++)
        sd_parse_list_free(&a->lists[k]);
    free(a->req);
    a->req = NULL;
}

sd_status cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *a, int *help,
                    const char **format, sd_error *err)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    *help = 0;
    *format = NULL;
    if ((a->req = calloc(1, cmd->cmd->size)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    cmd->cmd->defaults(a->req);
    char *where;
    if (field_at(a, CLI_MAX_OPTIONS, &where) != NULL) /* given[] and lists[] hold CLI_MAX_OPTIONS fields */
        return sd_status_fail(err, SD_EFAIL, "%s: more than %d options; raise CLI_MAX_OPTIONS (cli.h)", cmd->name,
                              CLI_MAX_OPTIONS);
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            *help = 1;
            return SD_OK;
        }
        if (positional(arg)) {
            if (a->npos >= cmd->max_pos)
                return sd_status_fail(err, SD_EINVAL, "%s: unexpected argument '%s'; see 'specdec %s --help'",
                                      cmd->name, arg, cmd->name);
            a->pos[a->npos++] = arg;
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        sd_status st;
        if (!cmd->own_format && len == 8 && strncmp(arg, "--format", 8) == 0) {
            if (*format != NULL)
                return sd_status_fail(err, SD_EINVAL, "--format given twice");
            if ((st = option_value(argc, argv, &i, len, eq, format, err)) != SD_OK)
                return st;
            continue;
        }
        int k = field_index(a, arg, len);
        if (k < 0)
            return sd_status_fail(err, SD_EINVAL, "%s: unknown option '%.*s'; see 'specdec %s --help'",
                                  cmd->name, (int)len, arg, cmd->name);
        if ((st = one_option(a, argc, argv, &i, len, eq, k, err)) != SD_OK)
            return st;
    }
    if (a->npos < cmd->min_pos)
        return sd_status_fail(err, SD_EINVAL, "%s: missing argument; usage: specdec %s", cmd->name, cmd->cmd->usage);
    return set_positionals(a, err);
}

int cli_given(const cli_args *a, const char *name)
{
    int k = field_index(a, name, strlen(name));
    return k >= 0 && a->given[k];
}

const char *cli_value(const cli_args *a, const char *name)
{
    int k = field_index(a, name, strlen(name));
    char *where;
    const sd_command_field *f = k >= 0 ? field_at(a, k, &where) : NULL;
    return f != NULL && a->given[k] && f->type == SD_COMMAND_TEXT ? *(const char *const *)(where + f->offset) : NULL;
}

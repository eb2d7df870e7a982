/* args.c -- strict option parsing shared by every subcommand. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GAMMA_MAX 1e9 /* documented maximum draft length */

const sd_domain CLI_ALPHA = { "--alpha", 0.0, 1.0, 0 };
const sd_domain CLI_COST = { "--cost", 0.0, INFINITY, 0 };
const sd_domain CLI_MU = { "--mu", 0.0, INFINITY, 0 };
const sd_domain CLI_GAMMA = { "--gamma", 1.0, GAMMA_MAX, 1 };

const cli_option *cli_option_at(const cli_command *cmd, int i)
{
    int n = 0;
    while (cmd->options[n].name != NULL)
        n++;
    if (i < n)
        return &cmd->options[i];
    for (int j = 0; cmd->common != NULL && cmd->common[j].name != NULL; j++)
        if (n + j == i)
            return &cmd->common[j];
    return NULL;
}

static int find_option(const cli_command *cmd, const char *name, size_t len)
{
    const cli_option *o;
    for (int i = 0; (o = cli_option_at(cmd, i)) != NULL; i++)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
            return i;
    return -1;
}

sd_status cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *a, int *help,
                    const char **format, sd_error *err)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    *help = 0;
    *format = NULL;
    int format_seen = 0;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            *help = 1;
            return SD_OK;
        }
        if (arg[0] != '-' || arg[1] == '\0' || (arg[1] != '-' && (arg[1] == '.' || (arg[1] >= '0' && arg[1] <= '9')))) {
            if (a->npos >= cmd->max_pos)
                return sd_status_fail(err, SD_EINVAL, "%s: unexpected argument '%s'; see 'specdec %s --help'",
                                      cmd->name, arg, cmd->name);
            a->pos[a->npos++] = arg;
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        int is_format = !cmd->own_format && len == 8 && strncmp(arg, "--format", 8) == 0;
        int k = is_format ? -1 : find_option(cmd, arg, len);
        if (!is_format && k < 0)
            return sd_status_fail(err, SD_EINVAL, "%s: unknown option '%.*s'; see 'specdec %s --help'",
                                  cmd->name, (int)len, arg, cmd->name);
        int takes_value = is_format || cli_option_at(cmd, k)->metavar != NULL;
        const char *value = NULL;
        if (takes_value) {
            if (eq != NULL)
                value = eq + 1;
            else if (i + 1 < argc && !(argv[i + 1][0] == '-' && argv[i + 1][1] == '-'))
                value = argv[++i];
            else
                return sd_status_fail(err, SD_EINVAL, "%.*s needs a value", (int)len, arg);
        } else if (eq != NULL) {
            return sd_status_fail(err, SD_EINVAL, "%.*s takes no value", (int)len, arg);
        }
        if (is_format) {
            if (format_seen++)
                return sd_status_fail(err, SD_EINVAL, "--format given twice");
            *format = value;
            continue;
        }
        if (a->given[k]++)
            return sd_status_fail(err, SD_EINVAL, "%s given twice; give several values as one list, e.g. %s 1,2,3",
                                  cli_option_at(cmd, k)->name, cli_option_at(cmd, k)->name);
        a->value[k] = value;
    }
    if (a->npos < cmd->min_pos)
        return sd_status_fail(err, SD_EINVAL, "%s: missing argument; usage: specdec %s", cmd->name, cmd->synopsis);
    return SD_OK;
}

static int option_index(const cli_args *a, const char *name)
{
    return find_option(a->cmd, name, strlen(name));
}

const char *cli_value(const cli_args *a, const char *name)
{
    int k = option_index(a, name);
    return k < 0 ? NULL : a->value[k];
}

int cli_given(const cli_args *a, const char *name)
{
    int k = option_index(a, name);
    return k >= 0 && a->given[k];
}

/* The text of an option, or dflt; "--x is required" when both are absent. */
static sd_status option_text(const cli_args *a, const sd_domain *dom, const char *dflt,
                             const char **text, sd_error *err)
{
    const char *v = cli_value(a, dom->name);
    *text = v != NULL ? v : dflt;
    if (*text == NULL)
        return sd_status_fail(err, SD_EINVAL, "%s is required; see 'specdec %s --help'", dom->name, a->cmd->name);
    return SD_OK;
}

sd_status cli_list(const cli_args *a, const sd_domain *dom, const char *dflt, sd_list *out,
                   sd_error *err)
{
    const char *v;
    sd_status st = option_text(a, dom, dflt, &v, err);
    return st != SD_OK ? st : sd_parse_list(v, dom, out, err);
}

sd_status cli_number(const cli_args *a, const sd_domain *dom, const char *dflt, double *out,
                     sd_error *err)
{
    const char *v;
    sd_status st = option_text(a, dom, dflt, &v, err);
    return st != SD_OK ? st : sd_parse_number(v, dom, out, err);
}

sd_status cli_choice(const cli_args *a, const char *option, const char *const *names, const char *dflt,
                     int *out, sd_error *err)
{
    const char *v = cli_value(a, option);
    if (v == NULL)
        v = dflt;
    char valid[256] = "";
    for (int i = 0; names[i] != NULL; i++) {
        if (strcmp(v, names[i]) == 0) {
            *out = i;
            return SD_OK;
        }
        snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", i ? ", " : "", names[i]);
    }
    return sd_status_fail(err, SD_EINVAL, "%s: unknown value '%s'; expected one of %s", option, v, valid);
}

sd_status cli_rows(const size_t *counts, size_t n, size_t *rows, sd_error *err)
{
    size_t r = 1;
    for (size_t j = 0; j < n; j++) {
        if (counts[j] != 0 && r > SD_LIST_MAX / counts[j])
            return sd_status_fail(err, SD_EINVAL, "the grid of lists has more than %u rows; narrow a list", SD_LIST_MAX);
        r *= counts[j];
    }
    *rows = r;
    return SD_OK;
}

sd_status cli_grid_size(const sd_list *lists, size_t n, size_t *rows, sd_error *err)
{
    size_t counts[8];
    if (n > 8)
        return sd_status_fail(err, SD_EINVAL, "at most 8 lists make a grid");
    for (size_t j = 0; j < n; j++)
        counts[j] = lists[j].n;
    return cli_rows(counts, n, rows, err);
}

void cli_grid_point(const sd_list *lists, size_t n, size_t idx, double *x)
{
    for (size_t j = n; j-- > 0;) {
        x[j] = lists[j].v[idx % lists[j].n];
        idx /= lists[j].n;
    }
}

sd_status cli_table(size_t ncols, const char *const *names, sd_table **out, sd_error *err)
{
    *out = sd_table_alloc(ncols, names);
    return *out ? SD_OK : sd_status_fail(err, SD_ENOMEM, "out of memory");
}

sd_status cli_finish(sd_status st, sd_list *lists, size_t n, sd_table *t, sd_table **out)
{
    for (size_t j = 0; j < n; j++)
        sd_parse_list_free(&lists[j]);
    if (st != SD_OK) {
        sd_table_free(t);
        t = NULL;
    }
    *out = t;
    return st;
}

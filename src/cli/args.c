/* args.c -- strict option parsing shared by every subcommand: the option and
 * command lookups, values, defaults from the option rows, grids. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GAMMA_MAX 1e9 /* the largest draft length the closed forms take */

const sd_domain CLI_ALPHA = { "--alpha", 0.0, 1.0, 0 };
const sd_domain CLI_COST = { "--cost", 0.0, INFINITY, 0 };
const sd_domain CLI_MU = { "--mu", 0.0, INFINITY, 0 };
const sd_domain CLI_GAMMA = { "--gamma", 1.0, GAMMA_MAX, 1 };
const sd_domain CLI_SEED = { "--seed", 0, 9007199254740992.0, 1 }; /* 2^53: every seed a double holds exactly */
const sd_domain CLI_THREADS = { "--threads", 1, 256, 1 };
/* Caps on work: 1e10 tokens take about 20 minutes on two cores (doc/performance.md);
 * anything longer belongs in several runs. */
const sd_domain CLI_TOKENS = { "--tokens", 1, 1e10, 1 };
const sd_domain CLI_DRAFTS = { "--drafts", 1, SD_DRAFTS_MAX, 1 };
const sd_domain CLI_GAMMA_MAX = { "--gamma-max", 1, SD_ORACLE_MAX, 1 };
/* The roofline's settings, as calibrate.h bounds a measured step's. */
const sd_domain CLI_BATCH = { "--batch", 1, 1048576, 1 };
const sd_domain CLI_CONTEXT = { "--context", 0, 16777216, 1 };
const sd_domain CLI_ACCEPTANCE = { "--acceptance", 0.0, 1.0, 0 };

const cli_option *cli_option_at(const cli_command *cmd, int i)
{
    for (int g = 0; g < CLI_MAX_GROUPS && cmd->groups[g] != NULL; g++)
        for (const cli_option *o = cmd->groups[g]; o->name != NULL; o++)
            if (i-- == 0)
                return o;
    return NULL;
}

/* The index of the option called name[0..len-1], or -1. */
static int option_index(const cli_command *cmd, const char *name, size_t len)
{
    const cli_option *o;
    for (int i = 0; (o = cli_option_at(cmd, i)) != NULL; i++)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
            return i;
    return -1;
}

const cli_option *cli_option_find(const cli_command *cmd, const char *name, size_t len)
{
    int k = option_index(cmd, name, len);
    return k < 0 ? NULL : cli_option_at(cmd, k);
}

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

/* Writes the text value of library field f (its group at base) into a's request, typed:
 * a flag set, a number or a list parsed in the field's domain (the list kept in a->lists[k]),
 * a text as it is, a choice's index. */
static sd_status set_field(cli_args *a, int k, const sd_command_field *f, size_t base, const char *value,
                           sd_error *err)
{
    void *p = (char *)a->req + base + f->offset;
    sd_status st = SD_OK;
    switch (f->type) {
    case SD_COMMAND_FLAG:
        *(int *)p = 1;
        break;
    case SD_COMMAND_TEXT:
        *(const char **)p = value;
        break;
    case SD_COMMAND_REAL:
        st = sd_parse_number(value, f->domain, (double *)p, err);
        break;
    case SD_COMMAND_LIST:
        if ((st = sd_parse_list(value, f->domain, &a->lists[k], err)) == SD_OK)
            *(sd_command_list *)p = (sd_command_list){ .v = a->lists[k].v, .n = a->lists[k].n };
        break;
    case SD_COMMAND_CHOICE: {
        const char *const *names = f->names();
        char valid[512] = "";
        for (int i = 0; names[i] != NULL; i++) {
            if (strcmp(value, names[i]) == 0) {
                *(int *)p = i;
                return SD_OK;
            }
            snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", i ? ", " : "", names[i]);
        }
        st = sd_status_fail(err, SD_EINVAL, "%s: unknown value '%s'; expected one of %s", f->name, value, valid);
        break;
    }
    }
    return st;
}

/* The library field of a's command called name[0..len-1] (an option, not a positional), or NULL. */
static const sd_command_field *lib_field(const cli_args *a, const char *name, size_t len, int *k, size_t *base)
{
    const sd_command_field *f;
    for (size_t i = 0; a->cmd->lib != NULL && (f = sd_command_field_at(a->cmd->lib, i, base)) != NULL; i++)
        if (f->position == 0 && strlen(f->name) == len && strncmp(f->name, name, len) == 0) {
            *k = (int)i;
            return f;
        }
    return NULL;
}

/* The positional arguments into a library command's fields, in order. */
static sd_status set_positionals(cli_args *a, sd_error *err)
{
    const sd_command_field *f;
    size_t base;
    for (size_t i = 0; a->cmd->lib != NULL && (f = sd_command_field_at(a->cmd->lib, i, &base)) != NULL; i++) {
        sd_status st;
        if (f->position > 0 && f->position <= a->npos &&
            (st = set_field(a, (int)i, f, base, a->pos[f->position - 1], err)) != SD_OK)
            return st;
    }
    return SD_OK;
}

/* A library command's option argv[*i] (name len chars, eq its '=' or NULL) into a's request. */
static sd_status lib_option(cli_args *a, int argc, char **argv, int *i, size_t len, const char *eq, int k,
                            const sd_command_field *f, size_t base, sd_error *err)
{
    const char *value = NULL;
    sd_status st = SD_OK;
    if (f->type != SD_COMMAND_FLAG)
        st = option_value(argc, argv, i, len, eq, &value, err);
    else if (eq != NULL)
        st = sd_status_fail(err, SD_EINVAL, "%.*s takes no value", (int)len, argv[*i]);
    if (st != SD_OK)
        return st;
    if (a->lib_given[k]++)
        return sd_status_fail(err, SD_EINVAL, "%s given twice; give several values as one list, e.g. %s 1,2,3",
                              f->name, f->name);
    return set_field(a, k, f, base, value, err);
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
    if (cmd->lib != NULL) {
        if ((a->req = calloc(1, cmd->lib->size)) == NULL)
            return sd_status_fail(err, SD_ENOMEM, "out of memory");
        cmd->lib->defaults(a->req);
    }
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
        int is_format = !cmd->own_format && len == 8 && strncmp(arg, "--format", 8) == 0;
        int k = is_format ? -1 : option_index(cmd, arg, len), lk;
        size_t base;
        const sd_command_field *f = is_format || k >= 0 ? NULL : lib_field(a, arg, len, &lk, &base);
        sd_status st = SD_OK;
        if (f != NULL) {
            if ((st = lib_option(a, argc, argv, &i, len, eq, lk, f, base, err)) != SD_OK)
                return st;
            continue;
        }
        if (!is_format && k < 0)
            return sd_status_fail(err, SD_EINVAL, "%s: unknown option '%.*s'; see 'specdec %s --help'",
                                  cmd->name, (int)len, arg, cmd->name);
        const char *value = NULL;
        if (is_format || cli_option_at(cmd, k)->metavar != NULL)
            st = option_value(argc, argv, &i, len, eq, &value, err);
        else if (eq != NULL)
            st = sd_status_fail(err, SD_EINVAL, "%.*s takes no value", (int)len, arg);
        if (st != SD_OK)
            return st;
        if (is_format && *format != NULL)
            return sd_status_fail(err, SD_EINVAL, "--format given twice");
        if (is_format) {
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
    return set_positionals(a, err);
}

const char *cli_value(const cli_args *a, const char *name)
{
    int k = option_index(a->cmd, name, strlen(name));
    return k < 0 ? NULL : a->value[k];
}

int cli_given(const cli_args *a, const char *name)
{
    int k = option_index(a->cmd, name, strlen(name)), lk;
    size_t base;
    if (k < 0 && lib_field(a, name, strlen(name), &lk, &base) != NULL)
        return a->lib_given[lk];
    return k >= 0 && a->given[k];
}

/* ---- defaults ------------------------------------------------------------------------------ */

static cli_library library_defaults(void)
{
    return (cli_library){ .synth = sd_synth_defaults(), .engine = sd_engine_defaults(), .cost = sd_cost_defaults(),
                          .ngram = sd_ngram_defaults(), .sampling = sd_sampling_defaults(),
                          .validate = sd_validate_defaults(), .seed = SD_RNG_DEFAULT_SEED,
                          .fit_level = SD_FIT_LEVEL, .fit_replicates = SD_FIT_REPLICATES,
                          .policies_gamma_max = SD_POLICIES_GAMMA_MAX };
}

_Static_assert(sizeof(sd_regime) == sizeof(int) && sizeof(sd_policy) == sizeof(int) &&
                   sizeof(sd_granularity) == sizeof(int) && sizeof(sd_family) == sizeof(int),
               "the enums of the library's defaults are read as int");

const char *cli_number_text(double x, char *buf, size_t size)
{
    if (isinf(x)) {
        snprintf(buf, size, "%sinf", x < 0 ? "-" : "");
        return buf;
    }
    if (x >= 1e7 && x < 1e300) { /* a power of ten, 1 and zeros in full: 1eN */
        char full[320];
        snprintf(full, sizeof full, "%.0f", x);
        size_t zeros = strspn(full + 1, "0");
        if (full[0] == '1' && full[1 + zeros] == '\0') {
            snprintf(buf, size, "1e%zu", zeros);
            return buf;
        }
    }
    snprintf(buf, size, "%.15g", x);
    char *p = strchr(buf, 'e');
    if (p != NULL) { /* e+06 -> e6, e-05 -> e-5 */
        char *q = p + 1, *d = p + 1;
        if (*q == '+')
            q++;
        else if (*q == '-')
            *d++ = *q++;
        while (*q == '0' && q[1] != '\0')
            q++;
        memmove(d, q, strlen(q) + 1);
    }
    return buf;
}

const char *cli_default_text(const cli_option *o, char *buf, size_t size)
{
    if (o->dflt != NULL)
        return o->dflt;
    if (o->lib.type == CLI_LIB_NONE)
        return NULL;
    const cli_library lib = library_defaults();
    const char *field = (const char *)&lib + o->lib.offset;
    size_t z;
    uint64_t u;
    unsigned k;
    int e;
    double x = 0.0;
    switch (o->lib.type) {
    case CLI_LIB_SIZE:
        memcpy(&z, field, sizeof z);
        x = (double)z;
        break;
    case CLI_LIB_U64:
        memcpy(&u, field, sizeof u);
        x = (double)u;
        break;
    case CLI_LIB_UINT:
        memcpy(&k, field, sizeof k);
        x = (double)k;
        break;
    case CLI_LIB_ENUM:
        memcpy(&e, field, sizeof e);
        return o->names()[e];
    case CLI_LIB_DOUBLE:
        memcpy(&x, field, sizeof x);
        break;
    case CLI_LIB_NONE:
        return NULL;
    }
    return cli_number_text(x, buf, size);
}

const char *cli_text(const cli_args *a, const char *name, char *buf, size_t size)
{
    const cli_option *o = cli_option_find(a->cmd, name, strlen(name));
    const char *v = cli_value(a, name);
    return v != NULL ? v : o != NULL ? cli_default_text(o, buf, size) : NULL;
}

/* The text of option name, or its row's default; "--x is required" when both are absent. */
static sd_status option_text(const cli_args *a, const char *name, char *buf, size_t size, const char **text,
                             sd_error *err)
{
    *text = cli_text(a, name, buf, size);
    if (*text == NULL)
        return sd_status_fail(err, SD_EINVAL, "%s is required; see 'specdec %s --help'", name, a->cmd->name);
    return SD_OK;
}

sd_status cli_list(const cli_args *a, const sd_domain *dom, sd_list *out, sd_error *err)
{
    char buf[64];
    const char *v;
    sd_status st = option_text(a, dom->name, buf, sizeof buf, &v, err);
    return st != SD_OK ? st : sd_parse_list(v, dom, out, err);
}

sd_status cli_number(const cli_args *a, const sd_domain *dom, double *out, sd_error *err)
{
    char buf[64];
    const char *v;
    sd_status st = option_text(a, dom->name, buf, sizeof buf, &v, err);
    return st != SD_OK ? st : sd_parse_number(v, dom, out, err);
}

sd_status cli_choice(const cli_args *a, const char *option, const char *const *names, int *out, sd_error *err)
{
    char buf[64];
    const char *v;
    const cli_option *o = cli_option_find(a->cmd, option, strlen(option));
    sd_status st = option_text(a, option, buf, sizeof buf, &v, err);
    if (st != SD_OK)
        return st;
    if (names == NULL && (o == NULL || o->names == NULL))
        return sd_status_fail(err, SD_EFAIL, "%s: the program lists no names for this option", option);
    if (names == NULL)
        names = o->names();
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

/* ---- grids and tables ------------------------------------------------------------------------ */

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

/* ---- messages ---------------------------------------------------------------------------------- */

/* Library parameters whose option is not simply "--" + the name with '-' for '_'. */
static const struct {
    const char *param, *flag;
} PARAM_FLAGS[] = {
    { .param = "verifier", .flag = "--verify" },
    { .param = "mean_length", .flag = "--mean-acceptance-length" },
    { .param = "rate", .flag = "--acceptance-rate" },
    { .param = "dir", .flag = "--out" },
    { .param = NULL, .flag = NULL },
};

/* The library names parameters ("alpha: ..."), the program names flags, as
 * luaL_argerror's caller adds context. */
void cli_name_flag(const cli_command *cmd, sd_error *err)
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
    for (int i = 0; PARAM_FLAGS[i].param != NULL; i++)
        if (strcmp(PARAM_FLAGS[i].param, param) == 0)
            snprintf(flag, sizeof flag, "%s", PARAM_FLAGS[i].flag);
    int known = strcmp(flag, "--data") == 0 || strcmp(flag, "--format") == 0 ||
                (cmd != NULL && cli_option_find(cmd, flag, strlen(flag)) != NULL) ||
                (cmd != NULL && cmd->lib != NULL && sd_command_field_find(cmd->lib, flag, NULL) != NULL);
    size_t fl = strlen(flag), len = strlen(err->msg);
    if (!known || len - n + fl >= sizeof err->msg) /* unknown, or no room: keep the parameter's name */
        return;
    memmove(err->msg + fl, err->msg + n, len - n + 1);
    memcpy(err->msg, flag, fl);
}

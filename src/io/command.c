/* command.c -- requests described by rows of named fields (command.h,
 * command_impl.h): the lookups, the given values and the defaults, the
 * help lines, and the one call that runs a command. */
#include "command_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- rows ------------------------------------------------------------------------------------ */

const sd_command_field *sd_command_field_at(const sd_command *cmd, size_t i, size_t *base)
{
    for (int g = 0; g < SD_COMMAND_MAX_GROUPS && cmd->groups[g] != NULL; g++)
        for (const sd_command_field *f = cmd->groups[g]; f->name != NULL; f++)
            if (i-- == 0) {
                if (base != NULL)
                    *base = cmd->base[g];
                return f;
            }
    return NULL;
}

const sd_command_field *sd_command_field_find(const sd_command *cmd, const char *name, size_t *base)
{
    const sd_command_field *f;
    for (size_t i = 0; (f = sd_command_field_at(cmd, i, base)) != NULL; i++)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}

static const void *member(const void *request, size_t base, const sd_command_field *f)
{
    return (const char *)request + base + f->offset;
}

int sd_command_given(const sd_command *cmd, const sd_command_field *f, size_t base, const void *request)
{
    (void)cmd;
    const void *p = member(request, base, f);
    switch (f->type) {
    case SD_COMMAND_FLAG:
        return *(const int *)p != 0;
    case SD_COMMAND_REAL:
        return !isnan(*(const double *)p);
    case SD_COMMAND_LIST:
        return ((const sd_command_list *)p)->n > 0;
    case SD_COMMAND_TEXT:
        return *(const char *const *)p != NULL;
    case SD_COMMAND_CHOICE:
        return *(const int *)p >= 0;
    }
    return 0;
}

/* ---- defaults and help ------------------------------------------------------------------------- */

const char *sd_command_number_text(double x, char *buf, size_t size)
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

/* The library default of f, read from cmd's library defaults, as a number
 * (an enum: its index, *is_enum set). */
static double library_default(const sd_command *cmd, const sd_command_field *f, int *is_enum)
{
    unsigned char buf[SD_COMMAND_LIBRARY_MAX];
    size_t z;
    uint64_t u;
    unsigned k;
    int e;
    double x = 0.0;
    *is_enum = 0;
    if (cmd->library == NULL || cmd->library_size > sizeof buf)
        return NAN;
    cmd->library(buf);
    const unsigned char *p = buf + f->lib_offset;
    switch (f->lib) {
    case SD_COMMAND_LIB_SIZE:
        memcpy(&z, p, sizeof z);
        return (double)z;
    case SD_COMMAND_LIB_U64:
        memcpy(&u, p, sizeof u);
        return (double)u;
    case SD_COMMAND_LIB_UINT:
        memcpy(&k, p, sizeof k);
        return (double)k;
    case SD_COMMAND_LIB_ENUM:
        memcpy(&e, p, sizeof e);
        *is_enum = 1;
        return (double)e;
    case SD_COMMAND_LIB_DOUBLE:
        memcpy(&x, p, sizeof x);
        return x;
    case SD_COMMAND_LIB_NONE:
        break;
    }
    return NAN;
}

const char *sd_command_default_text(const sd_command *cmd, const sd_command_field *f, char *buf, size_t size)
{
    if (f->dflt != NULL)
        return f->dflt;
    if (f->lib == SD_COMMAND_LIB_NONE)
        return NULL;
    int is_enum;
    double x = library_default(cmd, f, &is_enum);
    if (isnan(x))
        return NULL;
    if (is_enum)
        return f->names != NULL ? f->names()[(int)x] : NULL;
    return sd_command_number_text(x, buf, size);
}

/* A NULL-terminated name table joined with ", " into buf. */
static const char *join(const char *const *names, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; names != NULL && names[i] != NULL; i++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? ", " : "", names[i]);
    return buf;
}

/* The domain of f as "[min, max]" or "[min, inf)", into buf ("?" without one). */
static const char *range_text(const sd_command_field *f, char *buf, size_t size)
{
    char lo[32], hi[32];
    if (f->domain == NULL)
        snprintf(buf, size, "?");
    else if (isinf(f->domain->max))
        snprintf(buf, size, "[%s, inf)", sd_command_number_text(f->domain->min, lo, sizeof lo));
    else
        snprintf(buf, size, "[%s, %s]", sd_command_number_text(f->domain->min, lo, sizeof lo),
                 sd_command_number_text(f->domain->max, hi, sizeof hi));
    return buf;
}

const char *sd_command_help_text(const sd_command *cmd, const sd_command_field *f, char *out, size_t size)
{
    char names[1024], dflt[64], range[96], max[32];
    const char *d = sd_command_default_text(cmd, f, dflt, sizeof dflt);
    join(f->names != NULL ? f->names() : NULL, names, sizeof names);
    const char *const subst[][2] = {
        { "{names}", names },
        { "{default}", d != NULL ? d : "none" },
        { "{range}", range_text(f, range, sizeof range) },
        { "{max}", f->domain != NULL ? sd_command_number_text(f->domain->max, max, sizeof max) : "?" },
    };
    size_t n = 0, nsubst = sizeof subst / sizeof subst[0];
    const char *help = f->help != NULL ? f->help : "";
    out[0] = '\0';
    while (*help != '\0' && n + 1 < size) {
        size_t k = 0;
        while (k < nsubst && strncmp(help, subst[k][0], strlen(subst[k][0])) != 0)
            k++;
        if (k < nsubst) {
            n += (size_t)snprintf(out + n, size - n, "%s", subst[k][1]);
            help += strlen(subst[k][0]);
        } else {
            out[n++] = *help++;
            out[n] = '\0';
        }
        if (n >= size)
            n = size - 1;
    }
    return out;
}

/* ---- reading a request ------------------------------------------------------------------------- */

/* The field called name of a's command; NULL when it has none. */
static const sd_command_field *args_field(const sd_command_args *a, const char *name, size_t *base)
{
    return sd_command_field_find(a->cmd, name, base);
}

int sd_command_args_given(const sd_command_args *a, const char *name)
{
    size_t base;
    const sd_command_field *f = args_field(a, name, &base);
    return f != NULL && sd_command_given(a->cmd, f, base, a->req);
}

const char *sd_command_args_value(const sd_command_args *a, const char *name)
{
    size_t base;
    const sd_command_field *f = args_field(a, name, &base);
    if (f == NULL || !sd_command_given(a->cmd, f, base, a->req))
        return NULL;
    if (f->type == SD_COMMAND_TEXT)
        return *(const char *const *)member(a->req, base, f);
    if (f->type == SD_COMMAND_CHOICE && f->names != NULL)
        return f->names()[*(const int *)member(a->req, base, f)];
    return NULL;
}

const char *sd_command_args_text(const sd_command_args *a, const char *name, char *buf, size_t size)
{
    size_t base;
    const sd_command_field *f = args_field(a, name, &base);
    const char *v = sd_command_args_value(a, name);
    return v != NULL ? v : f != NULL ? sd_command_default_text(a->cmd, f, buf, size) : NULL;
}

static sd_status required(const sd_command_args *a, const char *name, sd_error *err)
{
    return sd_status_fail(err, SD_EINVAL, "%s is required; see 'specdec %s --help'", name, a->cmd->name);
}

/* The given values of a REAL or LIST field, checked in dom, copied into *out. */
static sd_status given_list(const sd_command_args *a, const sd_command_field *f, size_t base, const sd_domain *dom,
                            sd_list *out, sd_error *err)
{
    const double *v = member(a->req, base, f);
    size_t n = 1;
    if (f->type == SD_COMMAND_LIST) {
        const sd_command_list *l = member(a->req, base, f);
        v = l->v;
        n = l->n;
        if (n > SD_LIST_MAX)
            return sd_status_fail(err, SD_EINVAL, "%s: more than %u values", dom->name, SD_LIST_MAX);
    }
    sd_status st;
    for (size_t i = 0; i < n; i++)
        if ((st = sd_parse_check(v[i], dom, err)) != SD_OK)
            return st;
    if ((out->v = malloc(n * sizeof *out->v)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    memcpy(out->v, v, n * sizeof *v);
    out->n = n;
    return SD_OK;
}

sd_status sd_command_args_list(const sd_command_args *a, const sd_domain *dom, sd_list *out, sd_error *err)
{
    size_t base;
    char buf[64];
    const sd_command_field *f = args_field(a, dom->name, &base);
    if (f == NULL || (f->type != SD_COMMAND_LIST && f->type != SD_COMMAND_REAL))
        return sd_status_fail(err, SD_EFAIL, "%s: the command has no such number field", dom->name);
    if (sd_command_given(a->cmd, f, base, a->req))
        return given_list(a, f, base, dom, out, err);
    const char *d = sd_command_default_text(a->cmd, f, buf, sizeof buf);
    return d != NULL ? sd_parse_list(d, dom, out, err) : required(a, dom->name, err);
}

sd_status sd_command_args_number(const sd_command_args *a, const sd_domain *dom, double *out, sd_error *err)
{
    size_t base;
    char buf[64];
    const sd_command_field *f = args_field(a, dom->name, &base);
    if (f == NULL || (f->type != SD_COMMAND_LIST && f->type != SD_COMMAND_REAL))
        return sd_status_fail(err, SD_EFAIL, "%s: the command has no such number field", dom->name);
    if (!sd_command_given(a->cmd, f, base, a->req)) {
        const char *d = sd_command_default_text(a->cmd, f, buf, sizeof buf);
        return d != NULL ? sd_parse_number(d, dom, out, err) : required(a, dom->name, err);
    }
    sd_list l = { 0 };
    sd_status st = given_list(a, f, base, dom, &l, err);
    if (st == SD_OK && l.n != 1)
        st = sd_status_fail(err, SD_EINVAL, "%s: one number, not a list of %zu", dom->name, l.n);
    if (st == SD_OK)
        *out = l.v[0];
    sd_parse_list_free(&l);
    return st;
}

sd_status sd_command_args_choice(const sd_command_args *a, const char *name, const char *const *names, int *out,
                                 sd_error *err)
{
    size_t base;
    char buf[64];
    const sd_command_field *f = args_field(a, name, &base);
    if (f == NULL || (f->type != SD_COMMAND_CHOICE && f->type != SD_COMMAND_TEXT))
        return sd_status_fail(err, SD_EFAIL, "%s: the command has no such field", name);
    if (names == NULL && f->names != NULL)
        names = f->names();
    if (names == NULL)
        return sd_status_fail(err, SD_EFAIL, "%s: the command lists no names for this field", name);
    size_t count = 0;
    while (names[count] != NULL)
        count++;
    if (f->type == SD_COMMAND_CHOICE && sd_command_given(a->cmd, f, base, a->req)) {
        int k = *(const int *)member(a->req, base, f);
        if ((size_t)k >= count)
            return sd_status_fail(err, SD_EINVAL, "%s: %d is not the index of a name (0 .. %zu)", name, k, count - 1);
        *out = k;
        return SD_OK;
    }
    const char *v = f->type == SD_COMMAND_TEXT ? sd_command_args_value(a, name) : NULL;
    if (v == NULL && (v = sd_command_default_text(a->cmd, f, buf, sizeof buf)) == NULL)
        return required(a, name, err);
    char valid[512] = "";
    for (size_t i = 0; i < count; i++) {
        if (strcmp(v, names[i]) == 0) {
            *out = (int)i;
            return SD_OK;
        }
        snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", i ? ", " : "", names[i]);
    }
    return sd_status_fail(err, SD_EINVAL, "%s: unknown value '%s'; expected one of %s", name, v, valid);
}

const char *sd_command_args_data_dir(const sd_command_args *a)
{
    if (a->cmd->data_dir == SIZE_MAX)
        return NULL;
    return *(const char *const *)((const char *)a->req + a->cmd->data_dir);
}

sd_status sd_command_check(const sd_command *cmd, const void *request, sd_error *err)
{
    const sd_command_field *f;
    size_t base;
    for (size_t i = 0; (f = sd_command_field_at(cmd, i, &base)) != NULL; i++) {
        int v = f->type == SD_COMMAND_CHOICE || f->type == SD_COMMAND_FLAG ? *(const int *)member(request, base, f) : 0;
        size_t count = 0;
        while (f->type == SD_COMMAND_CHOICE && f->names()[count] != NULL)
            count++;
        if (f->type == SD_COMMAND_FLAG && v != 0 && v != 1)
            return sd_status_fail(err, SD_EINVAL, "%s: a flag is 0 or 1, not %d", f->name, v);
        if (f->type == SD_COMMAND_CHOICE && v >= 0 && (size_t)v >= count)
            return sd_status_fail(err, SD_EINVAL, "%s: %d is not the index of a name (0 .. %zu)", f->name, v,
                                  count - 1);
    }
    return SD_OK;
}

/* ---- messages, tables, grids ------------------------------------------------------------------ */

/* Library parameters whose option is not simply "--" + the name with '-' for '_', where the
 * command has no such option: the option (or options) named instead, when the command has the
 * field given. */
static const struct {
    const char *param, *flag, *field;
} PARAM_FLAGS[] = {
    { .param = "verifier", .flag = "--verify", .field = "--verify" },
    { .param = "mean_length", .flag = "--mean-acceptance-length", .field = "--mean-acceptance-length" },
    { .param = "rate", .flag = "--acceptance-rate", .field = "--acceptance-rate" },
    { .param = "dir", .flag = "--out", .field = "--out" },
    { .param = "memory", .flag = "--prompt, --output: memory", .field = "--prompt" }, /* a request the cache cannot hold */
    { .param = NULL, .flag = NULL, .field = NULL },
};

/* The option cmd names the library parameter param[0..n-1] by, into flag; 0 when it has none. */
static int param_flag(const sd_command *cmd, const char *param, char *flag, size_t size)
{
    snprintf(flag, size, "--%s", param);
    for (char *c = flag; *c; c++)
        *c = *c == '_' ? '-' : *c;
    if (strcmp(flag, "--data") == 0 || strcmp(flag, "--format") == 0 ||
        (cmd != NULL && sd_command_field_find(cmd, flag, NULL) != NULL))
        return 1;
    for (int i = 0; PARAM_FLAGS[i].param != NULL; i++)
        if (strcmp(PARAM_FLAGS[i].param, param) == 0 && cmd != NULL &&
            sd_command_field_find(cmd, PARAM_FLAGS[i].field, NULL) != NULL) {
            snprintf(flag, size, "%s", PARAM_FLAGS[i].flag);
            return 1;
        }
    return 0;
}

void sd_command_name_flag(const sd_command *cmd, sd_error *err)
{
    size_t n = strspn(err->msg, "abcdefghijklmnopqrstuvwxyz_");
    if (n == 0 || n > 40 || err->msg[n] != ':')
        return;
    char param[48], flag[64];
    memcpy(param, err->msg, n);
    param[n] = '\0';
    size_t fl, len = strlen(err->msg);
    if (!param_flag(cmd, param, flag, sizeof flag) || len - n + (fl = strlen(flag)) >= sizeof err->msg)
        return; /* unknown, or no room: keep the parameter's name */
    memmove(err->msg + fl, err->msg + n, len - n + 1);
    memcpy(err->msg, flag, fl);
}

sd_status sd_command_end(const sd_command *cmd, sd_status st, sd_error *err)
{
    if (st != SD_OK && st != SD_ECHECK && err != NULL)
        sd_command_name_flag(cmd, err);
    return st;
}

sd_status sd_command_table(size_t ncols, const char *const *names, sd_table **out, sd_error *err)
{
    *out = sd_table_alloc(ncols, names);
    return *out ? SD_OK : sd_status_fail(err, SD_ENOMEM, "out of memory");
}

sd_status sd_command_finish(sd_status st, sd_list *lists, size_t n, sd_table *t, sd_table **out)
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

sd_status sd_command_rows(const size_t *counts, size_t n, size_t *rows, sd_error *err)
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

sd_status sd_command_grid_size(const sd_list *lists, size_t n, size_t *rows, sd_error *err)
{
    size_t counts[8];
    if (n > 8)
        return sd_status_fail(err, SD_EINVAL, "at most 8 lists make a grid");
    for (size_t j = 0; j < n; j++)
        counts[j] = lists[j].n;
    return sd_command_rows(counts, n, rows, err);
}

void sd_command_grid_point(const sd_list *lists, size_t n, size_t idx, double *x)
{
    for (size_t j = n; j-- > 0;) {
        x[j] = lists[j].v[idx % lists[j].n];
        idx /= lists[j].n;
    }
}

/* ---- running ----------------------------------------------------------------------------------- */

sd_status sd_command_run(const sd_command *cmd, const void *request, sd_table **out, char **text, sd_error *err)
{
    *out = NULL;
    *text = NULL;
    size_t base;
    const sd_command_field *f = cmd->text_option != NULL ? sd_command_field_find(cmd, cmd->text_option, &base) : NULL;
    if (cmd->text != NULL && f != NULL && sd_command_given(cmd, f, base, request))
        return cmd->text(request, text, err);
    return cmd->table(request, out, err);
}

void sd_command_free_text(char *text) { free(text); }

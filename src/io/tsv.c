/* tsv.c -- tab-separated files with line numbers (see tsv.h). */
#include "specdec/tsv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *strip(char *s)
{
    while (*s == ' ')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

/* Splits line (modified) at tabs into fresh strings. */
static sd_status split(char *line, char ***fields, size_t *n, const char *path, sd_error *err)
{
    size_t count = 1;
    for (const char *p = line; *p; p++)
        count += *p == '\t';
    char **f = calloc(count, sizeof *f);
    if (f == NULL)
        return sd_status_fail(err, SD_ENOMEM, "%s: out of memory", path);
    char *s = line;
    for (size_t i = 0; i < count; i++) {
        char *tab = strchr(s, '\t');
        if (tab != NULL)
            *tab = '\0';
        if ((f[i] = strdup(strip(s))) == NULL) {
            for (size_t j = 0; j < i; j++)
                free(f[j]);
            free(f);
            return sd_status_fail(err, SD_ENOMEM, "%s: out of memory", path);
        }
        s = tab != NULL ? tab + 1 : s;
    }
    *fields = f;
    *n = count;
    return SD_OK;
}

static void free_fields(char **f, size_t n)
{
    for (size_t i = 0; f != NULL && i < n; i++)
        free(f[i]);
    free(f);
}

sd_status sd_tsv_load(const char *path, int header, size_t max_rows, sd_tsv *out, sd_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return sd_status_fail(err, SD_EINVAL, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0, rows_cap = 0, lineno = 0;
    sd_status st = SD_OK;
    errno = 0;
    while (st == SD_OK && getline(&line, &cap, fp) >= 0) {
        lineno++;
        char *s = line;
        while (*s == ' ')
            s++;
        if (*strip(s) == '\0' || *s == '#')
            continue;
        char **f = NULL;
        size_t n = 0;
        if ((st = split(s, &f, &n, path, err)) != SD_OK)
            break;
        if (header && out->column == NULL) {
            out->column = f;
            out->ncolumns = n;
            continue;
        }
        if (header && n != out->ncolumns) {
            free_fields(f, n);
            st = sd_status_fail(err, SD_EINVAL, "%s:%zu: %zu fields; the header has %zu", path, lineno, n, out->ncolumns);
            break;
        }
        if (out->nrows >= max_rows) {
            free_fields(f, n);
            st = sd_status_fail(err, SD_EINVAL, "%s:%zu: more than %zu rows", path, lineno, max_rows);
            break;
        }
        if (out->nrows == rows_cap) {
            size_t ncap = rows_cap ? 2 * rows_cap : 64;
            sd_tsv_row *nr = realloc(out->row, ncap * sizeof *nr);
            if (nr == NULL) {
                free_fields(f, n);
                st = sd_status_fail(err, SD_ENOMEM, "%s: out of memory", path);
                break;
            }
            out->row = nr;
            rows_cap = ncap;
        }
        out->row[out->nrows++] = (sd_tsv_row){ f, n, lineno };
    }
    if (st == SD_OK && ferror(fp))
        st = sd_status_fail(err, SD_EINVAL, "%s: read error: %s", path, strerror(errno));
    if (st == SD_OK && header && out->column == NULL)
        st = sd_status_fail(err, SD_EINVAL, "%s: no header line", path);
    free(line);
    fclose(fp);
    if (st != SD_OK)
        sd_tsv_free(out);
    return st;
}

void sd_tsv_free(sd_tsv *t)
{
    free_fields(t->column, t->ncolumns);
    for (size_t i = 0; i < t->nrows; i++)
        free_fields(t->row[i].field, t->row[i].nfields);
    free(t->row);
    memset(t, 0, sizeof *t);
}

size_t sd_tsv_column(const sd_tsv *t, const char *name)
{
    for (size_t j = 0; j < t->ncolumns; j++)
        if (strcmp(t->column[j], name) == 0)
            return j;
    return (size_t)-1;
}

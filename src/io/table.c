/* table.c -- named columns, typed cells, rows and notes (see table.h). */
#include "specdec/table.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sd_table {
    size_t ncols, nrows, cap;
    char **names;
    sd_cell *cells; /* nrows * ncols, row-major */
    char **notes;
    size_t nnotes;
};

/* Text cells point at copies the table owns; the public cell type shows them const. */
static void free_text(const char *s)
{
    union { const char *c; char *m; } u = { s };
    free(u.m);
}

sd_table *sd_table_alloc(size_t ncols, const char *const *names)
{
    sd_table *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->names = calloc(ncols, sizeof *t->names);
    if (t->names == NULL) {
        free(t);
        return NULL;
    }
    t->ncols = ncols;
    for (size_t j = 0; j < ncols; j++) {
        if ((t->names[j] = strdup(names[j])) == NULL) {
            sd_table_free(t);
            return NULL;
        }
    }
    return t;
}

void sd_table_free(sd_table *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        if (t->cells[i].type == SD_CELL_TEXT)
            free_text(t->cells[i].v.s);
    for (size_t j = 0; j < t->ncols; j++)
        free(t->names[j]);
    for (size_t i = 0; i < t->nnotes; i++)
        free(t->notes[i]);
    free(t->names);
    free(t->cells);
    free(t->notes);
    free(t);
}

sd_status sd_table_add(sd_table *t, const sd_cell *row, sd_error *err)
{
    for (size_t j = 0; j < t->ncols; j++)
        if (row[j].type == SD_CELL_REAL && isnan(row[j].v.r))
            return sd_status_fail(err, SD_EFAIL, "internal error: NaN in column %s", t->names[j]);
    if (t->nrows == t->cap) {
        size_t ncap = t->cap ? 2 * t->cap : 16;
        sd_cell *nc = realloc(t->cells, ncap * t->ncols * sizeof *nc);
        if (nc == NULL)
            return sd_status_fail(err, SD_ENOMEM, "out of memory for %zu table rows", ncap);
        t->cells = nc;
        t->cap = ncap;
    }
    sd_cell *dst = t->cells + t->nrows * t->ncols;
    for (size_t j = 0; j < t->ncols; j++) {
        dst[j] = row[j];
        if (row[j].type == SD_CELL_TEXT && (dst[j].v.s = strdup(row[j].v.s)) == NULL) {
            for (size_t k = 0; k < j; k++)
                if (dst[k].type == SD_CELL_TEXT)
                    free_text(dst[k].v.s);
            return sd_status_fail(err, SD_ENOMEM, "out of memory for a table row");
        }
    }
    t->nrows++;
    return SD_OK;
}

sd_status sd_table_note(sd_table *t, sd_error *err, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **nn = realloc(t->notes, (t->nnotes + 1) * sizeof *nn);
    if (nn == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory for a table note");
    t->notes = nn;
    if ((t->notes[t->nnotes] = strdup(buf)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory for a table note");
    t->nnotes++;
    return SD_OK;
}

size_t sd_table_ncols(const sd_table *t) { return t->ncols; }
size_t sd_table_nrows(const sd_table *t) { return t->nrows; }
size_t sd_table_nnotes(const sd_table *t) { return t->nnotes; }
const char *sd_table_name(const sd_table *t, size_t col) { return t->names[col]; }
const char *sd_table_note_at(const sd_table *t, size_t i) { return t->notes[i]; }

const sd_cell *sd_table_cell(const sd_table *t, size_t row, size_t col)
{
    return &t->cells[row * t->ncols + col];
}

size_t sd_table_find(const sd_table *t, const char *name)
{
    for (size_t j = 0; j < t->ncols; j++)
        if (strcmp(t->names[j], name) == 0)
            return j;
    return (size_t)-1;
}

sd_cell_type sd_table_column_type(const sd_table *t, size_t col)
{
    sd_cell_type kind = SD_CELL_INT;
    for (size_t r = 0; r < t->nrows; r++) {
        sd_cell_type c = t->cells[r * t->ncols + col].type;
        if (c == SD_CELL_TEXT)
            return SD_CELL_TEXT;
        if (c == SD_CELL_REAL)
            kind = SD_CELL_REAL;
    }
    return kind;
}

int sd_table_column_reals(const sd_table *t, size_t col, double *out)
{
    if (sd_table_column_type(t, col) == SD_CELL_TEXT)
        return 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const sd_cell *c = &t->cells[r * t->ncols + col];
        out[r] = c->type == SD_CELL_REAL ? c->v.r : (double)c->v.i;
    }
    return 1;
}

int sd_table_column_ints(const sd_table *t, size_t col, long long *out)
{
    if (sd_table_column_type(t, col) != SD_CELL_INT)
        return 0;
    for (size_t r = 0; r < t->nrows; r++)
        out[r] = t->cells[r * t->ncols + col].v.i;
    return 1;
}

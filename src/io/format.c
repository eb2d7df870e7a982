/* format.c -- table renderers (see format.h). */
#include "specdec/format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const NAMES[] = { "text", "tsv", "csv", "json", "markdown", NULL };
enum { NFORMATS = sizeof NAMES / sizeof NAMES[0] - 1 };

sd_status sd_format_parse(const char *name, sd_format *out, sd_error *err)
{
    for (int i = 0; i < NFORMATS; i++) {
        if (strcmp(name, NAMES[i]) == 0) {
            *out = (sd_format)i;
            return SD_OK;
        }
    }
    return sd_status_fail(err, SD_EINVAL, "format: unknown format '%s'; expected one of %s", name, sd_format_names());
}

/* Joined from the table, per thread. */
const char *sd_format_names(void)
{
    static _Thread_local char buf[128];
    buf[0] = '\0';
    for (int i = 0; NAMES[i] != NULL; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "", NAMES[i]);
    return buf;
}

const char *sd_format_cell(const sd_cell *c, int readable, char *buf, size_t size)
{
    switch (c->type) {
    case SD_CELL_INT:
        snprintf(buf, size, "%lld", c->v.i);
        break;
    case SD_CELL_TEXT:
        snprintf(buf, size, "%s", c->v.s);
        break;
    case SD_CELL_REAL: {
        double x = c->v.r;
        if (isinf(x))
            snprintf(buf, size, x > 0 ? "inf" : "-inf");
        else if (!readable)
            snprintf(buf, size, "%.17g", x);
        else if (!(fabs(x) > 0.0))
            snprintf(buf, size, "0");
        else if (fabs(x) < 1e15 && (floor(x) >= x || fabs(x) >= 1e5))
            snprintf(buf, size, "%.0f", x); /* whole or large: no exponent */
        else
            snprintf(buf, size, "%.5g", x);
        break;
    }
    }
    return buf;
}

/* A cell's text without a copy for text cells (no length limit, UTF-8
 * kept whole); numbers are formatted into buf. */
static const char *cell_text(const sd_cell *c, int readable, char *buf, size_t size)
{
    return c->type == SD_CELL_TEXT ? c->v.s : sd_format_cell(c, readable, buf, size);
}

static int is_numeric(const sd_table *t, size_t col)
{
    for (size_t i = 0; i < sd_table_nrows(t); i++)
        if (sd_table_cell(t, i, col)->type == SD_CELL_TEXT)
            return 0;
    return 1;
}

static void write_notes(const sd_table *t, FILE *out)
{
    if (sd_table_nnotes(t) > 0)
        fputc('\n', out);
    for (size_t i = 0; i < sd_table_nnotes(t); i++)
        fprintf(out, "%s\n", sd_table_note_at(t, i));
}

static void write_text(const sd_table *t, FILE *out)
{
    size_t nc = sd_table_ncols(t), nr = sd_table_nrows(t);
    size_t *width = calloc(nc ? nc : 1, sizeof *width);
    char buf[512];
    if (width == NULL)
        return; /* the caller sees no output and reports ferror-free failure below */
    for (size_t j = 0; j < nc; j++) {
        width[j] = strlen(sd_table_name(t, j));
        for (size_t i = 0; i < nr; i++) {
            size_t w = strlen(cell_text(sd_table_cell(t, i, j), 1, buf, sizeof buf));
            if (w > width[j])
                width[j] = w;
        }
    }
    for (size_t j = 0; j < nc; j++) {
        int left = !is_numeric(t, j);
        fprintf(out, "%s%*s", j ? "  " : "", left ? -(int)width[j] : (int)width[j], sd_table_name(t, j));
    }
    fputc('\n', out);
    for (size_t i = 0; i < nr; i++) {
        for (size_t j = 0; j < nc; j++) {
            const sd_cell *c = sd_table_cell(t, i, j);
            int left = c->type == SD_CELL_TEXT;
            fprintf(out, "%s%*s", j ? "  " : "", left ? -(int)width[j] : (int)width[j],
                    cell_text(c, 1, buf, sizeof buf));
        }
        fputc('\n', out);
    }
    free(width);
    write_notes(t, out);
}

/* Writes s for a delimited format: tabs and newlines become spaces in TSV;
 * CSV quotes a field holding a comma, quote or newline (RFC 4180). */
static void write_field(const char *s, char sep, FILE *out)
{
    if (sep == ',' && strpbrk(s, ",\"\n\r") != NULL) {
        fputc('"', out);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', out);
            fputc(*s, out);
        }
        fputc('"', out);
        return;
    }
    for (; *s; s++)
        fputc((sep == '\t' && (*s == '\t' || *s == '\n' || *s == '\r')) ? ' ' : *s, out);
}

static void write_delimited(const sd_table *t, char sep, FILE *out)
{
    char buf[512];
    for (size_t j = 0; j < sd_table_ncols(t); j++) {
        if (j)
            fputc(sep, out);
        write_field(sd_table_name(t, j), sep, out);
    }
    fputc('\n', out);
    for (size_t i = 0; i < sd_table_nrows(t); i++) {
        for (size_t j = 0; j < sd_table_ncols(t); j++) {
            if (j)
                fputc(sep, out);
            write_field(cell_text(sd_table_cell(t, i, j), 0, buf, sizeof buf), sep, out);
        }
        fputc('\n', out);
    }
}

static void write_json_string(const char *s, FILE *out)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

static void write_json(const sd_table *t, FILE *out)
{
    char buf[512];
    size_t nr = sd_table_nrows(t);
    fputs(nr ? "[\n" : "[", out);
    for (size_t i = 0; i < nr; i++) {
        fputs("  {", out);
        for (size_t j = 0; j < sd_table_ncols(t); j++) {
            const sd_cell *c = sd_table_cell(t, i, j);
            fputs(j ? ", " : "", out);
            write_json_string(sd_table_name(t, j), out);
            fputs(": ", out);
            if (c->type == SD_CELL_TEXT)
                write_json_string(c->v.s, out);
            else if (c->type == SD_CELL_REAL && isinf(c->v.r))
                fputs("null", out);
            else
                fputs(cell_text(c, 0, buf, sizeof buf), out);
        }
        fputs(i + 1 < nr ? "},\n" : "}\n", out);
    }
    fputs("]\n", out);
}

static void write_markdown(const sd_table *t, FILE *out)
{
    char buf[512];
    size_t nc = sd_table_ncols(t);
    for (size_t j = 0; j < nc; j++)
        fprintf(out, "| %s ", sd_table_name(t, j));
    fputs("|\n", out);
    for (size_t j = 0; j < nc; j++)
        fputs(is_numeric(t, j) ? "|---:" : "|:---", out);
    fputs("|\n", out);
    for (size_t i = 0; i < sd_table_nrows(t); i++) {
        for (size_t j = 0; j < nc; j++) {
            fputs("| ", out);
            for (const char *s = cell_text(sd_table_cell(t, i, j), 1, buf, sizeof buf); *s; s++) {
                if (*s == '|')
                    fputc('\\', out);
                fputc(*s, out);
            }
            fputc(' ', out);
        }
        fputs("|\n", out);
    }
    write_notes(t, out);
}

sd_status sd_format_write(const sd_table *t, sd_format fmt, FILE *out, sd_error *err)
{
    switch (fmt) {
    case SD_FORMAT_TEXT: write_text(t, out); break;
    case SD_FORMAT_TSV: write_delimited(t, '\t', out); break;
    case SD_FORMAT_CSV: write_delimited(t, ',', out); break;
    case SD_FORMAT_JSON: write_json(t, out); break;
    case SD_FORMAT_MARKDOWN: write_markdown(t, out); break;
    }
    if (fflush(out) != 0 || ferror(out))
        return sd_status_fail(err, SD_EIO, "error writing the output");
    return SD_OK;
}

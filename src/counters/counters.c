/* counters.c -- speculative-decoding counts from engines' logs and scrapes (see counters.h).
 *
 * The reader table and the entry point.  One reader per format, each in its
 * own file citing the source it follows and defining its row; readers.def
 * lists the rows once, and the table and the format names below are made
 * from that list (counters_impl.h).  Each row names the reader's recogniser
 * and the class of lines it is shown, and detect() below weighs their
 * answers.  A reader fills a local sd_counts from the file; check_counts()
 * then holds it to the invariants counters.h promises, and only a complete,
 * checked result reaches the caller.
 */
#include "specdec/counters.h"

#include <stdio.h>
#include <string.h>

#include "counters_impl.h"

/* ---- the reader table: one row a line of readers.def ---------------------------------------- */

#define SD_COUNTERS_READER(id) &sd_counters_reader_##id,
const sd_counters_reader *const sd_counters_readers[] = {
#include "readers.def"
    NULL,
};
#undef SD_COUNTERS_READER

#define NREADERS (sizeof sd_counters_readers / sizeof *sd_counters_readers - 1)

#define SD_COUNTERS_READER(id) sd_counters_reader_##id.name,
static const char *const FORMATS[] = {
#include "readers.def"
    NULL,
};
#undef SD_COUNTERS_READER

const char *const *sd_counters_formats(void)
{
    return FORMATS;
}

/* The format names joined with ", " into buf (each cut to the row's size). */
static const char *format_list(char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < NREADERS; i++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%.31s", i ? ", " : "", FORMATS[i]);
    return buf;
}

/* ---- what counters.h promises ------------------------------------------------------------- */

/* A reader's result c made whole and held to counters.h: the entries beyond
 * gamma zeroed (and accepted_at without positions), then gamma checked
 * against the one given and the invariants against c.  SD_EINVAL naming the
 * first that fails. */
static sd_status check_counts(const sd_counters_ctx *cx, sd_counts *c)
{
    for (size_t i = c->gamma < MAXG ? c->gamma : MAXG; i < MAXG; i++) {
        c->accepted_at[i] = 0.0;
        c->reached[i] = 0.0;
    }
    if (!c->has_positions)
        memset(c->accepted_at, 0, sizeof c->accepted_at);
    sd_status st = sd_counts_gamma_agrees(cx, 0, c->gamma, "the counts have %zu positions", c->gamma);
    return st != SD_OK ? st : sd_counts_invariants(cx->path, c, 1, cx->err);
}

/* ---- detection and the entry point -------------------------------------------------------- */

/* 1 when line is a table's header: neither blank (spaces) nor a '#' comment. */
static int is_header(const char *line)
{
    while (*line == ' ')
        line++;
    return *line != '\0' && *line != '#';
}

/* The reader of t (*f, an index of sd_counters_readers), by the classes of
 * sd_counters_detect_by: the first table reader that claims the header, else
 * (when t starts with '{' or '[') the one JSON reader whose lines t has, else
 * the one log reader whose lines t has, else the fallback when it recognised
 * a line.  SD_EINVAL when t has the lines of two JSON or two log readers, or
 * nothing recognisable. */
static sd_status detect(const sd_counters_ctx *cx, const sd_text_lines *t, size_t *f)
{
    const sd_counters_reader *const *R = sd_counters_readers;
    int seen[NREADERS] = { 0 };
    int first = 1;
    int header = 1;
    int json = 0;
    for (size_t i = 0; i < t->n; i++) {
        const char *s = t->line[i];
        const char *b = sd_text_skip_blank(i == 0 && strncmp(s, "\xEF\xBB\xBF", 3) == 0 ? s + 3 : s); /* the BOM json.h skips */
        json |= first && (*b == '{' || *b == '[');
        for (size_t r = 0; header && is_header(s) && r < NREADERS; r++)
            if (R[r]->by == SD_COUNTERS_BY_HEADER && R[r]->detect(s, first)) {
                *f = r;
                return SD_OK;
            }
        header &= !is_header(s);
        for (size_t r = 0; r < NREADERS; r++)
            if (R[r]->by != SD_COUNTERS_BY_HEADER && (json || R[r]->by != SD_COUNTERS_BY_JSON))
                seen[r] |= R[r]->detect(s, first);
        first &= *sd_text_skip_blank(s) == '\0';
    }
    for (size_t a = 0; a < NREADERS; a++)
        for (size_t b = a + 1; b < NREADERS; b++)
            if (R[a]->by == SD_COUNTERS_BY_JSON && R[b]->by == SD_COUNTERS_BY_JSON && seen[a] && seen[b])
                return sd_status_fail(cx->err, SD_EINVAL, "%s: holds both %s and %s JSON: name the format", cx->path,
                                      R[a]->name, R[b]->name);
    for (size_t r = 0; r < NREADERS; r++)
        if (R[r]->by == SD_COUNTERS_BY_JSON && seen[r]) {
            *f = r;
            return SD_OK;
        }
    for (size_t a = 0; a < NREADERS; a++)
        for (size_t b = a + 1; b < NREADERS; b++)
            if (R[a]->by == SD_COUNTERS_BY_LOG_LINE && R[b]->by == SD_COUNTERS_BY_LOG_LINE && seen[a] && seen[b])
                return sd_status_fail(cx->err, SD_EINVAL, "%s: holds both %s and %s lines: name the format", cx->path,
                                      R[a]->name, R[b]->name);
    for (int by = SD_COUNTERS_BY_LOG_LINE; by <= (int)SD_COUNTERS_FALLBACK; by++)
        for (size_t r = 0; r < NREADERS; r++)
            if ((int)R[r]->by == by && seen[r]) {
                *f = r;
                return SD_OK;
            }
    char list[400];
    return sd_status_fail(cx->err, SD_EINVAL,
                          "%s: no speculative-decoding counts found: expected one of the formats %s", cx->path,
                          format_list(list, sizeof list));
}

/* The reader named by cx->opt->format, else the one detect() finds (*f). */
static sd_status resolve_format(const sd_counters_ctx *cx, const sd_text_lines *t, size_t *f)
{
    if (cx->opt->format != NULL) {
        char list[400];
        for (size_t i = 0; i < NREADERS; i++)
            if (strcmp(cx->opt->format, FORMATS[i]) == 0) {
                *f = i;
                return SD_OK;
            }
        return sd_status_fail(cx->err, SD_EINVAL, "%s: unknown format '%s'; expected one of %s", cx->path,
                              cx->opt->format, format_list(list, sizeof list));
    }
    return detect(cx, t, f);
}

sd_status sd_counters_load(const char *path, const sd_counts_options *opt, sd_counts *out, sd_error *err)
{
    static const sd_counts_options none = { 0 };
    const sd_counters_ctx cx = { path, opt ? opt : &none, err };
    sd_text_lines t;
    size_t f = 0;
    if (cx.opt->gamma > MAXG)
        return sd_status_fail(err, SD_EINVAL, "%s: gamma %zu is beyond %d", path, cx.opt->gamma, MAXG);
    sd_status st = sd_text_read(path, &t, err);
    if (st != SD_OK)
        return st;
    const sd_counters_reader *const *R = sd_counters_readers;
    if ((st = resolve_format(&cx, &t, &f)) == SD_OK && (cx.opt->select || cx.opt->since) && !R[f]->scrape)
        st = sd_status_fail(err, SD_EINVAL, "%s: select and since apply to a Prometheus scrape, not to %s input", path,
                            R[f]->name);
    sd_counts c;
    memset(&c, 0, sizeof c);
    c.kind = SD_COUNTS_PREFIX;
    if (st == SD_OK) {
        snprintf(c.format, sizeof c.format, "%s", R[f]->name);
        st = R[f]->read(&cx, &t, &c);
    }
    sd_text_free(&t);
    if (st == SD_OK)
        st = check_counts(&cx, &c);
    if (st == SD_OK)
        *out = c;
    return st;
}

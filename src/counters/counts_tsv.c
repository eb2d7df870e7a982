/* counts_tsv.c -- the tsv and histogram readers: the counts as tables of this project (see
 * counters_impl.h).
 *
 * Source: this project's own formats (README.md, `specdec fit`), read by sd_tsv_load (parse.h):
 * tab-separated, a header line, blank and '#' lines skipped.
 *   tsv:       gamma, drafts, accepted_1 .. accepted_G [, draft_tokens] [, accepted_tokens]:
 *              accepted_i = drafts whose first i drafted tokens were all accepted; rows summed.
 *   histogram: accepted, count: count drafts had exactly `accepted` tokens accepted (needs
 *              opt->gamma); accepted_at[i] = the counts with accepted > i. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "counters_impl.h"
#include "specdec/parse.h"
#include "specdec/tsv.h"

#define ROWS_MAX 1000000

/* Row r's field col as a whole number in [0, max] (sd_parse_number), a failure named
 * "path:line: column". */
static sd_status tsv_num(const sd_counters_ctx *cx, const sd_tsv *tv, size_t r, size_t col, double max, double *out)
{
    char name[600];
    snprintf(name, sizeof name, "%s:%zu: %s", cx->path, tv->row[r].line, tv->column[col]);
    const sd_domain dom = { name, 0.0, max, 1 };
    return sd_parse_number(tv->row[r].field[col], &dom, out, cx->err);
}

/* The columns of the tsv shape: col[0..3] gamma, drafts, draft_tokens, accepted_tokens
 * (SIZE_MAX when absent), acc[i] accepted_{i+1}; *G the highest i. */
static sd_status tsv_columns(const sd_counters_ctx *cx, const sd_tsv *tv, size_t *col, size_t *acc, size_t *G)
{
    static const char *const named[4] = { "gamma", "drafts", "draft_tokens", "accepted_tokens" };
    for (size_t i = 0; i < MAXG; i++)
        acc[i] = SIZE_MAX;
    for (size_t k = 0; k < 4; k++)
        col[k] = SIZE_MAX;
    *G = 0;
    for (size_t j = 0; j < tv->ncolumns; j++) {
        const char *n = tv->column[j];
        size_t *slot = NULL;
        uint64_t i = 0;
        for (int k = 0; k < 4; k++)
            slot = strcmp(n, named[k]) == 0 ? &col[k] : slot;
        if (slot == NULL && strncmp(n, "accepted_", 9) == 0 && sd_text_count(n + 9, strlen(n + 9), &i) && i >= 1 &&
            n[9] != '0') {
            if (i > MAXG)
                return sd_status_fail(cx->err, SD_EINVAL, "%s: column %s: gamma beyond %d", cx->path, n, MAXG);
            slot = &acc[i - 1];
            *G = (size_t)i > *G ? (size_t)i : *G;
        }
        if (slot == NULL || *slot != SIZE_MAX)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s: column '%s' %s; expected gamma, drafts, accepted_1 .. accepted_G and optionally "
                                  "draft_tokens, accepted_tokens",
                                  cx->path, n, slot ? "repeats" : "is unknown");
        *slot = j;
    }
    for (size_t i = 0; i < *G; i++)
        if (acc[i] == SIZE_MAX)
            return sd_status_fail(cx->err, SD_EINVAL, "%s: no column accepted_%zu (there is accepted_%zu)", cx->path,
                                  i + 1, *G);
    if (col[0] == SIZE_MAX || col[1] == SIZE_MAX || *G == 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s: the columns gamma, drafts and accepted_1 .. accepted_G are required", cx->path);
    return SD_OK;
}

/* Adds row r of the tsv table to c: its drafts, draft tokens (drafts x gamma
 * without the column), accepted tokens (the sum of accepted_i without it) and
 * accepted_i; SD_EINVAL when a field is not a whole count, gamma is not the
 * columns', the counts rise with position or contradict each other. */
static sd_status tsv_row(const sd_counters_ctx *cx, const sd_tsv *tv, size_t r, const size_t *col, const size_t *acc,
                         size_t G, sd_counts *c)
{
    sd_counts_block part = { .positions = G };
    double *a = part.accepted_at;
    double g, n, D, A;
    double sum = 0.0;
    size_t ln = tv->row[r].line;
    sd_status st = tsv_num(cx, tv, r, col[0], MAXG, &g);
    if (st == SD_OK)
        st = tsv_num(cx, tv, r, col[1], SD_TEXT_COUNT_MAX, &n);
    for (size_t i = 0; st == SD_OK && i < G; i++)
        if ((st = tsv_num(cx, tv, r, acc[i], SD_TEXT_COUNT_MAX, &a[i])) == SD_OK)
            sum += a[i];
    if (st != SD_OK)
        return st;
    if ((size_t)g != G)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: gamma %.0f, but the columns are accepted_1 .. accepted_%zu",
                              cx->path, ln, g, G);
    for (size_t i = 0; i < G; i++)
        if (a[i] > (i ? a[i - 1] : n))
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %s %.0f exceeds %s %.0f: %s", cx->path, ln,
                                  tv->column[acc[i]], a[i], i ? tv->column[acc[i - 1]] : "drafts", i ? a[i - 1] : n,
                                  i ? "per-position counts cannot rise with position" : "impossible");
    D = n * g;
    A = sum;
    if ((col[2] != SIZE_MAX && (st = tsv_num(cx, tv, r, col[2], SD_TEXT_COUNT_MAX, &D)) != SD_OK) ||
        (col[3] != SIZE_MAX && (st = tsv_num(cx, tv, r, col[3], SD_TEXT_COUNT_MAX, &A)) != SD_OK))
        return st;
    if (A < sum || A > sum || D > n * g || A > D)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: %.0f accepted and %.0f draft tokens: expected accepted = the sum of accepted_i "
                              "(%.0f) and accepted <= draft tokens <= drafts x gamma (%.0f)",
                              cx->path, ln, A, D, sum, n * g);
    part.drafts = n;
    part.draft_tokens = D;
    part.accepted_tokens = A;
    sd_counts_add(c, &part);
    return SD_OK;
}

static sd_status tsv_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    sd_tsv tv;
    size_t col[4], acc[MAXG];
    size_t G = 0;
    (void)t;
    sd_status st = sd_tsv_load(cx->path, 1, ROWS_MAX, &tv, cx->err);
    if (st != SD_OK)
        return st;
    st = tsv_columns(cx, &tv, col, acc, &G);
    for (size_t r = 0; st == SD_OK && r < tv.nrows; r++)
        st = tsv_row(cx, &tv, r, col, acc, G, c);
    if (st == SD_OK) {
        c->gamma = G;
        c->has_positions = 1;
        for (size_t i = 0; i < G; i++)
            c->reached[i] = c->drafts;
        sd_counts_note(c, "Summed %zu TSV row%s.", tv.nrows, tv.nrows == 1 ? "" : "s");
        if (col[2] == SIZE_MAX)
            sd_counts_note(c, "No draft_tokens column: every draft taken as %zu tokens long.", G);
    }
    sd_tsv_free(&tv);
    return st;
}

/* Adds row r of the histogram to c: count drafts with accepted tokens each;
 * SD_EINVAL when a field is not a whole count or accepted exceeds gamma. */
static sd_status hist_row(const sd_counters_ctx *cx, const sd_tsv *tv, size_t r, const size_t *col, sd_counts *c)
{
    double a, n;
    sd_status st = tsv_num(cx, tv, r, col[0], SD_TEXT_COUNT_MAX, &a);
    if (st == SD_OK)
        st = tsv_num(cx, tv, r, col[1], SD_TEXT_COUNT_MAX, &n);
    if (st != SD_OK)
        return st;
    if (a > (double)cx->opt->gamma)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: accepted %.0f exceeds gamma %zu", cx->path, tv->row[r].line,
                              a, cx->opt->gamma);
    sd_counts_block part = { 0 };
    sd_counts_block_accepting(&part, (size_t)a, n);
    sd_counts_add(c, &part);
    return SD_OK;
}

static sd_status histogram_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    sd_tsv tv;
    size_t col[2] = { SIZE_MAX, SIZE_MAX };
    (void)t;
    if (cx->opt->gamma == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: a histogram of accepted tokens does not state the draft length: "
                              "give it with %s",
                              cx->path, sd_counters_gamma_name(cx));
    sd_status st = sd_tsv_load(cx->path, 1, ROWS_MAX, &tv, cx->err);
    if (st != SD_OK)
        return st;
    for (size_t j = 0; st == SD_OK && j < tv.ncolumns; j++) {
        int k = strcmp(tv.column[j], "accepted") == 0 ? 0 : strcmp(tv.column[j], "count") == 0 ? 1 : -1;
        if (k < 0 || col[k] != SIZE_MAX)
            st = sd_status_fail(cx->err, SD_EINVAL, "%s: column '%s' %s; expected accepted and count", cx->path,
                                tv.column[j], k < 0 ? "is unknown" : "repeats");
        else
            col[k] = j;
    }
    if (st == SD_OK && (col[0] == SIZE_MAX || col[1] == SIZE_MAX))
        st = sd_status_fail(cx->err, SD_EINVAL, "%s: the columns accepted and count are required", cx->path);
    for (size_t r = 0; st == SD_OK && r < tv.nrows; r++)
        st = hist_row(cx, &tv, r, col, c);
    if (st == SD_OK) {
        c->gamma = cx->opt->gamma;
        c->has_positions = 1;
        c->draft_tokens = c->drafts * (double)c->gamma;
        for (size_t i = 0; i < c->gamma; i++)
            c->reached[i] = c->drafts;
        sd_counts_note(c,
                       "A histogram of %zu rows: accepted_at[i] = drafts with more than i accepted tokens; every "
                       "draft taken as gamma = %zu tokens long.",
                       tv.nrows, c->gamma);
    }
    sd_tsv_free(&tv);
    return st;
}

/* 1 when the tab-separated line has a field that is word, surrounding spaces ignored. */
static int has_column(const char *line, const char *word)
{
    const char *s = line;
    int has = 0;
    while (*s) {
        const char *e = strchr(s, '\t');
        const char *f = s;
        size_t n = e ? (size_t)(e - s) : strlen(s);
        while (n > 0 && f[0] == ' ') {
            f++;
            n--;
        }
        while (n > 0 && f[n - 1] == ' ')
            n--;
        has |= sd_text_span_is(f, n, word);
        s = e ? e + 1 : s + strlen(s);
    }
    return has;
}

static int tsv_detect(const char *line, int first)
{
    (void)first;
    return has_column(line, "gamma") && has_column(line, "drafts");
}

static int histogram_detect(const char *line, int first)
{
    (void)first;
    return has_column(line, "accepted") && has_column(line, "count");
}

/* The row of tsv: this project's table of counts, read again from cx->path as a TSV file
 * (sd_tsv_load), not from t.  detect: the header has the columns gamma and drafts.  read:
 * gamma, drafts, accepted_1 .. accepted_G [, draft_tokens] [, accepted_tokens], the rows
 * summed. */
const sd_counters_reader sd_counters_reader_tsv = {
    .name = "tsv",
    .by = SD_COUNTERS_BY_HEADER,
    .detect = tsv_detect,
    .read = tsv_read,
};

/* The row of histogram: this project's histogram, read as the tsv table is.  detect: the header
 * has the columns accepted and count.  read: the drafts with each number of accepted tokens,
 * given opt->gamma. */
const sd_counters_reader sd_counters_reader_histogram = {
    .name = "histogram",
    .by = SD_COUNTERS_BY_HEADER,
    .detect = histogram_detect,
    .read = histogram_read,
};

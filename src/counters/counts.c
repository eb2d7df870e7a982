/* counts.c -- what every reader's sd_counts shares (see counters_impl.h): its notes, the
 * invariants counters.h promises, a part of the input added to the whole, and the draft
 * length the caller gave held to the input's.  Apart from counters.c, so that the readers
 * and the writer, which use these, and the reader table, which uses the readers, do not
 * refer to each other. */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "counters_impl.h"

void sd_counts_note(sd_counts *c, const char *fmt, ...)
{
    size_t len = strlen(c->notes);
    if (len + 2 >= sizeof c->notes)
        return;
    if (len > 0) {
        c->notes[len++] = ' ';
        c->notes[len] = '\0';
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->notes + len, sizeof c->notes - len, fmt, ap);
    va_end(ap);
    for (char *p = c->notes + len; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

/* 1 when x is a whole count in [0, 2^53] (NaN is not). */
static int whole_count(double x)
{
    return x >= 0.0 && x <= SD_TEXT_COUNT_MAX && floor(x) >= x;
}

sd_status sd_counts_invariants(const char *who, const sd_counts *c, int with_reached, sd_error *err)
{
    size_t g = c->gamma;
    if (g < 1 || g > MAXG)
        return sd_status_fail(err, SD_EINVAL, "%s: gamma %zu is outside [1, %d]", who, g, MAXG);
    if (c->gauge) {
        if (!(c->mean_accepted >= 0.0 && c->mean_accepted <= (double)g) || c->has_positions || c->has_emitted ||
            c->kind != SD_COUNTS_PREFIX || fabs(c->drafts) + fabs(c->draft_tokens) + fabs(c->accepted_tokens) > 0.0)
            return sd_status_fail(err, SD_EINVAL,
                                  "%s: a mean of %.17g accepted tokens per draft: expected a value in [0, gamma = %zu]",
                                  who, c->mean_accepted, g);
        return SD_OK;
    }
    const double v[3] = { c->drafts, c->draft_tokens, c->accepted_tokens };
    static const char *const vn[3] = { "drafts", "draft tokens", "accepted tokens" };
    for (int i = 0; i < 3; i++)
        if (!whole_count(v[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: %s %.17g is not a whole count in [0, 2^53]", who, vn[i], v[i]);
    if (!(c->drafts >= 1.0))
        return sd_status_fail(err, SD_EINVAL, "%s: zero drafts: nothing to fit", who);
    for (size_t i = 0; i < g; i++) {
        double a = c->accepted_at[i];
        double r = with_reached ? c->reached[i] : c->drafts;
        if (!whole_count(a) || !whole_count(r))
            return sd_status_fail(err, SD_EINVAL,
                                  "%s: position %zu: %.17g accepted, %.17g reached: not whole counts in [0, 2^53]", who,
                                  i + 1, a, r);
        if (a > (i ? c->accepted_at[i - 1] : c->drafts) || a > r || r > c->drafts ||
            (with_reached && i > 0 && r > c->reached[i - 1]))
            return sd_status_fail(err, SD_EINVAL,
                                  "%s: position %zu: %.0f drafts accepted through it, %.0f reached it, of %.0f: counts "
                                  "cannot rise with position or exceed the drafts that reached it",
                                  who, i + 1, a, r, c->drafts);
    }
    if (c->accepted_tokens > c->draft_tokens || c->draft_tokens > c->drafts * (double)g)
        return sd_status_fail(err, SD_EINVAL,
                              "%s: %.0f accepted of %.0f draft tokens in %.0f drafts of at most %zu: expected accepted "
                              "<= draft tokens <= drafts x gamma",
                              who, c->accepted_tokens, c->draft_tokens, c->drafts, g);
    if (c->has_emitted && (!whole_count(c->emitted_tokens) || c->emitted_tokens < c->drafts ||
                           c->emitted_tokens > c->drafts + c->accepted_tokens))
        return sd_status_fail(err, SD_EINVAL,
                              "%s: %.17g emitted tokens in %.0f drafts with %.0f accepted tokens: expected a whole "
                              "count with drafts <= emitted <= drafts + accepted",
                              who, c->emitted_tokens, c->drafts, c->accepted_tokens);
    double sum = 0.0;
    for (size_t i = 0; i < g; i++)
        sum += c->accepted_at[i];
    if (c->kind == SD_COUNTS_PREFIX && c->has_positions && fabs(sum - c->accepted_tokens) > 0.5)
        return sd_status_fail(err, SD_EINVAL, "%s: %.0f accepted tokens, but the per-position counts sum to %.0f", who,
                              c->accepted_tokens, sum);
    return SD_OK;
}

void sd_counts_add(sd_counts *c, const sd_counts_block *b)
{
    assert(b->positions <= MAXG);
    c->drafts += b->drafts;
    c->draft_tokens += b->draft_tokens;
    c->accepted_tokens += b->accepted_tokens;
    for (size_t i = 0; i < b->positions; i++)
        c->accepted_at[i] += b->accepted_at[i];
}

void sd_counts_block_accepting(sd_counts_block *b, size_t j, double n)
{
    assert(j <= MAXG);
    b->drafts += n;
    b->accepted_tokens += (double)j * n;
    for (size_t i = 0; i < j; i++)
        b->accepted_at[i] += n;
    if (b->positions < j)
        b->positions = j;
}

sd_status sd_counts_gamma_agrees(const sd_counters_ctx *cx, size_t line, size_t g, const char *fmt, ...)
{
    if (cx->opt->gamma == 0 || g == cx->opt->gamma)
        return SD_OK;
    char what[256], at[32] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (line > 0)
        snprintf(at, sizeof at, ":%zu", line);
    return sd_status_fail(cx->err, SD_EINVAL, "%s%s: gamma %zu was given, but %s", cx->path, at, cx->opt->gamma, what);
}

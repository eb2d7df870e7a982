/* llama_timings.c -- the llama-timings reader: llama-server's per-response "timings" JSON
 * (see counters_impl.h).
 *
 * Sources (ggml-org/llama.cpp):
 *   - tools/server/server-task.cpp @ 00efb3e184262872916bf136b3df63c1822a19bd,
 *     result_timings::to_json(): cache_n, prompt_n, ..., predicted_per_second, then, only
 *     when draft_n > 0, "draft_n" and "draft_n_accepted"; the object is the response's
 *     top-level "timings" (OAI chat and completion responses, /completion), on the last
 *     chunk of a stream;
 *   - tools/server/server-context.cpp @ fb4026604c67c682f552337ec9b91eced0abd35a,
 *     get_timings(): draft_n = n_draft_total (tokens drafted and verified: counted after
 *     the --draft-min skip, PR #14104), draft_n_accepted = n_draft_accepted (the accepted
 *     prefix of each draft, so prefix counting);
 *   - docs/speculative.md @ 067318e633f77bbddc60f9eedc2a20142509f81d: a draft is at most
 *     --draft-max tokens and stops early below --draft-p-min; the server also cuts it at
 *     the context's and the request's end, so drafts have varying lengths.
 *
 * What the two numbers determine.  The number of drafts (verify steps) is not in timings,
 * and a draft's length varies, so drafted and accepted tokens do not determine the
 * acceptance: under prefix counting E[accepted] = sum over drafts of sum_{i <= l_d} alpha^i,
 * which depends on the lengths l_d, not only on their sum.  (accepted / drafted <= alpha
 * in expectation -- a lower bound only.)  The one exact case is a draft length of 1 (given
 * as opt->gamma = 1, --draft-max 1): every verified draft then has exactly one token, so
 * drafts = draft_n and accepted_at[0] = draft_n_accepted.  For any longer gamma the reader
 * refuses, naming what is missing and where the drafts are counted (the server log's
 * statistics line, /metrics).  A record is a response with "timings", or a timings object
 * itself; responses without draft_n did not speculate and are skipped; the rest are
 * summed. */
#include <string.h>

#include "counters_impl.h"

typedef struct {
    double drafted, accepted;
    size_t records, with_drafts, first_line;
} lt_sum;

static sd_status lt_record(const sd_counters_ctx *cx, const sd_json *rec, void *arg)
{
    lt_sum *sum = arg;
    const sd_json *t = sd_json_find(rec, "timings");
    sum->records++;
    if (t == NULL)
        t = rec;
    sd_status st = sd_json_expect(t, SD_JSON_OBJECT, "timings", cx->err);
    double n = -1, a = -1;
    if (st == SD_OK)
        st = sd_counters_json_opt_count(t, "draft_n", &n, cx->err);
    if (st == SD_OK)
        st = sd_counters_json_opt_count(t, "draft_n_accepted", &a, cx->err);
    if (st != SD_OK || (n < 0 && a < 0))
        return st;
    if (n < 0 || a < 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: timings has %s without %s", cx->path, t->line,
                              n < 0 ? "draft_n_accepted" : "draft_n", n < 0 ? "draft_n" : "draft_n_accepted");
    if (a > n)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: draft_n_accepted %.0f exceeds draft_n %.0f", cx->path,
                              t->line, a, n);
    if (sum->with_drafts++ == 0)
        sum->first_line = t->line;
    sum->drafted += n;
    sum->accepted += a;
    return SD_OK;
}

static int llama_timings_detect(const char *line, int first)
{
    (void)first;
    return sd_counters_json_has_key(line, "draft_n_accepted");
}

static sd_status llama_timings_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    (void)t;
    lt_sum sum = { 0 };
    sd_status st = sd_counters_json_read_each(cx, lt_record, &sum);
    if (st != SD_OK)
        return st;
    if (sum.with_drafts == 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s: no response's timings has draft_n (llama-server writes it only when it drafted)",
                              cx->path);
    if (sum.drafted > SD_TEXT_COUNT_MAX)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: the responses' draft_n sum to more than 2^53", cx->path);
    if (cx->opt->gamma == 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: llama-server's timings do not state the draft length: give it with %s "
                              "(llama-server's --draft-max)",
                              cx->path, sum.first_line, sd_counters_gamma_name(cx));
    if (cx->opt->gamma > 1)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: llama-server's timings give %.0f drafted (draft_n) and %.0f accepted "
                              "(draft_n_accepted) tokens but not the number of drafts, and drafts of up to %zu tokens "
                              "can be shorter, so the acceptance is not determined (%.0f / %.0f = %.4g is only a lower "
                              "bound on alpha): fit the server log's 'statistics' line or its /metrics instead",
                              cx->path, sum.first_line, sum.drafted, sum.accepted, cx->opt->gamma, sum.accepted,
                              sum.drafted, sum.drafted > 0 ? sum.accepted / sum.drafted : 0.0);
    c->gamma = 1;
    c->drafts = sum.drafted;
    c->draft_tokens = sum.drafted;
    c->accepted_tokens = sum.accepted;
    c->has_positions = 1;
    c->accepted_at[0] = sum.accepted;
    c->reached[0] = sum.drafted;
    sd_counts_note(c, "Summed the timings of %zu llama-server responses; with a draft length of 1 every verified draft "
                   "is one token, so drafts = draft_n.", sum.with_drafts);
    if (sum.records > sum.with_drafts)
        sd_counts_note(c, "%zu of %zu responses have no draft_n (no drafting) and were skipped.",
                       sum.records - sum.with_drafts, sum.records);
    return SD_OK;
}

/* The row of llama-timings: llama-server's "timings".  detect: the member name
 * "draft_n_accepted".  read: every record's draft_n and draft_n_accepted summed; counts only
 * for opt->gamma = 1. */
const sd_counters_reader sd_counters_reader_llama_timings = {
    .name = "llama-timings",
    .by = SD_COUNTERS_BY_JSON,
    .detect = llama_timings_detect,
    .read = llama_timings_read,
};

/* vllm_request.c -- the vllm-request reader: vLLM's per-request speculative-decoding stats
 * in its API responses (see counters_impl.h).
 *
 * Sources (vllm-project/vllm):
 *   - PR #48915 ("Per-request acceptance stats in OpenAI API responses", merged; enabled by
 *     --per-request-spec-decode-metrics summary|detailed): the response's top-level
 *     "metrics": {"speculative_decoding": {mean_acceptance_length, draft_acceptance_rate,
 *     acceptance_histogram, num_spec_steps, num_accepted_draft_tokens, num_draft_tokens,
 *     num_spec_tokens}}, acceptance_histogram a dense list: "index j is the number of verify
 *     steps that accepted exactly j draft tokens", of length num_spec_tokens + 1;
 *   - the earlier shape, tests/v1/spec_decode/test_request_acceptance.py @
 *     2663fab4dec17dac5b68e6176740fd4a71fc223a (RequestSpecDecodeStats.to_dict, surfaced as
 *     choices[].speculative_decoding_stats): the same fields, the histogram sparse with
 *     string keys ({"0": 2, "3": 1}, zero buckets dropped); num_draft_tokens sums each
 *     step's proposed tokens, which can be fewer than num_spec_tokens (test_observe_
 *     records_proposed_and_accepted_independently; grammar-invalid drafts subtracted);
 *     mean_acceptance_length = 1 + accepted / steps (1.0 for no step), draft_acceptance_rate
 *     = accepted / num_draft_tokens (0.0 for none).
 *
 * A record is a response ("metrics"."speculative_decoding", or each choice's
 * "speculative_decoding_stats"), or the stats object itself; records without the stats (a
 * streaming chunk before the last) are skipped with a note.  Counting is prefix (a step
 * accepting j tokens accepted positions 1..j), so the histogram gives the per-position
 * counts exactly: accepted_at[i] = sum_{j > i} h[j], drafts = sum_j h[j], accepted tokens =
 * sum_j j h[j].  gamma is num_spec_tokens, or the dense histogram's length - 1; a sparse
 * histogram without num_spec_tokens needs opt->gamma.  Every stated total is checked
 * against the histogram; the requests are summed. */
#include <math.h>
#include <string.h>

#include "counters_impl.h"

/* The ratios are written at full precision (Python's repr of a double), so they agree
 * with the counts to rounding; this allows another order of the same operations. */
#define RATIO_TOL 1e-9

typedef struct {
    sd_counts *c;
    size_t records, skipped, with_stats;
    size_t first_line; /* the line of the first stats object */
} vr_sum;

/* The number member key of s, if present, against want (a ratio of the counts). */
static sd_status vr_ratio(const sd_counters_ctx *cx, const sd_json *s, const char *key, double want, const char *how)
{
    const sd_json *v = sd_json_find(s, key);
    double x = 0.0;
    if (v == NULL || v->type == SD_JSON_NULL)
        return SD_OK;
    sd_status st = sd_json_number(v, key, &x, cx->err);
    if (st == SD_OK && !(fabs(x - want) <= RATIO_TOL))
        st = sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %s %.17g, but the histogram gives %s = %.17g", cx->path,
                            v->line, key, x, how, want);
    return st;
}

/* The draft length of the stats object at line ln (*g): num_spec_tokens K (-1: absent), else
 * the dense histogram's length - 1, else opt->gamma; the histogram hv (len entries, dense or
 * not) must fit it.  SD_EINVAL when K is out of range, the histogram does not fit, or a
 * sparse histogram comes with neither K nor opt->gamma. */
static sd_status vr_gamma(const sd_counters_ctx *cx, size_t ln, const sd_json *hv, size_t len, int dense, double K,
                          size_t *g)
{
    if (K >= 0) {
        if (K < 1 || K > MAXG)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: num_spec_tokens %.0f is outside [1, %d]", cx->path, ln,
                                  K, MAXG);
        *g = (size_t)K;
        if ((dense && len != *g + 1) || (!dense && len > *g + 1))
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: acceptance_histogram has %s %zu, but num_spec_tokens %zu allows 0 .. %zu "
                                  "accepted tokens",
                                  cx->path, hv->line, dense ? "length" : "a key up to", dense ? len : len - 1, *g, *g);
    } else if (dense) {
        if (len < 2)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: acceptance_histogram of length %zu: expected num_spec_tokens + 1 >= 2 entries",
                                  cx->path, hv->line, len);
        *g = len - 1;
    } else if (cx->opt->gamma) {
        *g = cx->opt->gamma;
        if (len > *g + 1)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: acceptance_histogram has a key %zu, beyond gamma %zu given", cx->path,
                                  hv->line, len - 1, *g);
    } else
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: the sparse acceptance_histogram does not state the draft length and there is "
                              "no num_spec_tokens: give it with %s (vLLM's num_speculative_tokens)",
                              cx->path, hv->line, sd_counters_gamma_name(cx));
    return SD_OK;
}

/* One stats object s (a request's or a choice's): its histogram checked and added to the sum. */
static sd_status vr_stats(const sd_counters_ctx *cx, const sd_json *s, vr_sum *sum)
{
    const sd_json *hv = NULL;
    double h[MAXG + 1];
    size_t len = 0;
    int dense = 0;
    double K = -1, steps = -1, acc = -1, drafted = -1;
    sd_status st = sd_json_expect(s, SD_JSON_OBJECT, "speculative_decoding", cx->err);
    if (st == SD_OK)
        st = sd_json_get(s, "acceptance_histogram", &hv, cx->err);
    if (st == SD_OK)
        st = sd_counters_json_histogram(cx, hv, "acceptance_histogram", 0, 0, h, MAXG + 1, &len, &dense);
    if (st == SD_OK)
        st = sd_counters_json_opt_count(s, "num_spec_tokens", &K, cx->err);
    if (st == SD_OK)
        st = sd_counters_json_opt_count(s, "num_spec_steps", &steps, cx->err);
    if (st == SD_OK)
        st = sd_counters_json_opt_count(s, "num_accepted_draft_tokens", &acc, cx->err);
    if (st == SD_OK)
        st = sd_counters_json_opt_count(s, "num_draft_tokens", &drafted, cx->err);
    if (st != SD_OK)
        return st;
    size_t ln = s->line;
    size_t g = 0;
    if ((st = vr_gamma(cx, ln, hv, len, dense, K, &g)) != SD_OK)
        return st;
    sd_counts *c = sum->c;
    if ((st = sd_counts_gamma_agrees(cx, ln, g, "the request has %zu (%s)", g,
                                     K >= 0 ? "num_spec_tokens" : "the histogram's length - 1")) != SD_OK)
        return st;
    if (c->gamma && g != c->gamma)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: the request has %zu speculative tokens, line %zu's %zu",
                              cx->path, ln, g, sum->first_line, c->gamma);
    sd_counts_block part = { 0 };
    for (size_t j = 0; j <= g; j++)
        sd_counts_block_accepting(&part, j, h[j]);
    const double D = part.drafts, A = part.accepted_tokens;
    if (steps >= 0 && fabs(steps - D) > 0.5)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: num_spec_steps %.0f, but acceptance_histogram sums to %.0f",
                              cx->path, ln, steps, D);
    if (acc >= 0 && fabs(acc - A) > 0.5)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: num_accepted_draft_tokens %.0f, but acceptance_histogram gives %.0f", cx->path,
                              ln, acc, A);
    double X = drafted >= 0 ? drafted : D * (double)g;
    if (drafted >= 0 && !(A <= drafted && drafted <= D * (double)g))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: num_draft_tokens %.0f: expected %.0f accepted <= it <= %.0f steps x %zu", cx->path,
                              ln, drafted, A, D, g);
    if (D > 0 && (st = vr_ratio(cx, s, "mean_acceptance_length", 1.0 + A / D, "1 + accepted / steps")) != SD_OK)
        return st;
    if (X > 0 && (st = vr_ratio(cx, s, "draft_acceptance_rate", A / X, "accepted / draft tokens")) != SD_OK)
        return st;
    if (sum->with_stats++ == 0)
        sum->first_line = ln;
    c->gamma = g;
    part.draft_tokens = X;
    sd_counts_add(c, &part);
    return SD_OK;
}

/* One record: a response with metrics.speculative_decoding or choices[].
 * speculative_decoding_stats, or a stats object itself; else skipped. */
static sd_status vr_record(const sd_counters_ctx *cx, const sd_json *rec, void *arg)
{
    vr_sum *sum = arg;
    sum->records++;
    if (sd_json_find(rec, "acceptance_histogram") != NULL)
        return vr_stats(cx, rec, sum);
    const sd_json *m = sd_json_find(rec, "metrics");
    const sd_json *s = sd_json_find(m, "speculative_decoding");
    if (s == NULL)
        s = sd_json_find(rec, "speculative_decoding");
    if (s != NULL)
        return vr_stats(cx, s, sum);
    const sd_json *ch = sd_json_find(rec, "choices");
    size_t before = sum->with_stats;
    for (size_t i = 0; i < sd_json_length(ch) && ch->type == SD_JSON_ARRAY; i++) {
        const sd_json *cs = sd_json_find(sd_json_at(ch, i), "speculative_decoding_stats");
        sd_status st = cs ? vr_stats(cx, cs, sum) : SD_OK;
        if (st != SD_OK)
            return st;
    }
    sum->skipped += sum->with_stats == before;
    return SD_OK;
}

static int vllm_request_detect(const char *line, int first)
{
    (void)first;
    return sd_counters_json_has_key(line, "acceptance_histogram");
}

static sd_status vllm_request_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    (void)t;
    vr_sum sum = { .c = c };
    sd_status st = sd_counters_json_read_each(cx, vr_record, &sum);
    if (st != SD_OK)
        return st;
    if (sum.with_stats == 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s: no response has metrics.speculative_decoding with an acceptance_histogram (vLLM "
                              "writes it with --per-request-spec-decode-metrics)",
                              cx->path);
    c->has_positions = 1;
    for (size_t i = 0; i < c->gamma; i++)
        c->reached[i] = c->drafts;
    sd_counts_note(c, "Summed the acceptance histograms of %zu vLLM per-request speculative_decoding objects (exact "
                   "per-position prefix counts).", sum.with_stats);
    if (sum.skipped)
        sd_counts_note(c, "%zu of %zu responses have no speculative_decoding stats and were skipped.", sum.skipped,
                       sum.records);
    if (c->draft_tokens < c->drafts * (double)c->gamma)
        sd_counts_note(c, "%.0f draft tokens in %.0f steps of up to %zu: some drafts were shorter, which the histogram "
                       "does not locate; every step is taken to reach every position.",
                       c->draft_tokens, c->drafts, c->gamma);
    return SD_OK;
}

/* The row of vllm-request: vLLM's per-request metrics.speculative_decoding.  detect: the member
 * name "acceptance_histogram".  read: every record's histogram (sd_counters_json_each), summed. */
const sd_counters_reader sd_counters_reader_vllm_request = {
    .name = "vllm-request",
    .by = SD_COUNTERS_BY_JSON,
    .detect = vllm_request_detect,
    .read = vllm_request_read,
};

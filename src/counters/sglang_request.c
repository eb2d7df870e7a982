/* sglang_request.c -- the sglang-request reader: SGLang's per-request meta_info
 * speculative-decoding fields (see counters_impl.h).
 *
 * Sources (sgl-project/sglang):
 *   - python/sglang/srt/managers/tokenizer_manager.py @
 *     001067fffe33427bee0ed2f007fb7551a1d76b44, TokenizerManager._calculate_spec_decoding_
 *     metrics, run when a request finishes and only when spec_verify_ct > 0:
 *     spec_verify_ct (verify passes of the request), spec_num_correct_drafts (accepted draft
 *     tokens, no bonus token), spec_num_proposed_drafts = spec_verify_ct x
 *     (speculative_num_draft_tokens - 1), spec_accept_rate = correct / proposed,
 *     spec_accept_length = completion_tokens / spec_verify_ct, spec_correct_drafts_histogram
 *     (h[j] = verify passes that accepted j drafts, j = 0 .. num_draft_tokens - 1; sum h =
 *     verify_ct and sum j h[j] = correct drafts, PR #33518), and the aliases
 *     spec_accepted_drafts, spec_proposed_drafts, spec_accept_histogram;
 *   - the names of earlier releases: PR #11144 (spec_accept_token_num = accepted drafts,
 *     spec_draft_token_num = proposed), PR #23530 (spec_accepted_drafts,
 *     spec_proposed_drafts, spec_accept_histogram), PR #24081 (today's names, the others
 *     kept as aliases);
 *   - server_args: with --speculative-eagle-topk 1 (a chain), speculative_num_draft_tokens
 *     = speculative_num_steps + 1, so proposed / verify_ct = num_steps = gamma.
 *
 * A record is a /generate response with "meta_info", or a meta_info object itself;
 * requests without spec_verify_ct did not verify and are skipped.  Counting is prefix.
 * The numbers used are the counts: drafts = spec_verify_ct, accepted tokens = the correct
 * drafts, draft tokens = the proposed ones, and with a histogram the per-position counts
 * accepted_at[i] = sum_{j > i} h[j].  spec_accept_length is not used: completion_tokens
 * holds the token prefill produced, which no verify pass did, so it runs high by
 * 1 / verify_ct.  gamma is the histogram's length - 1, or proposed / verify_ct (which must
 * be whole), else opt->gamma; every source that gives it must agree.  The chain reading
 * (topk = 1) is assumed: with a tree the proposed tokens are not one draft's length.
 * Positions are kept when every request has a histogram. */
#include <math.h>
#include <string.h>

#include "counters_impl.h"

/* spec_accept_rate is written at full precision (Python's repr of a double). */
#define RATIO_TOL 1e-9

typedef struct {
    sd_counts *c;
    size_t records, requests, with_hist, first_line;
} sg_sum;

/* The first of names[] that m has, as a count into *x (-1: none); two that disagree are an
 * error naming both. */
static sd_status sg_alias(const sd_counters_ctx *cx, const sd_json *m, const char *const *names, double *x,
                          const char **which)
{
    *x = -1.0;
    *which = NULL;
    for (size_t k = 0; names[k] != NULL; k++) {
        double y = -1.0;
        sd_status st = sd_counters_json_opt_count(m, names[k], &y, cx->err);
        if (st != SD_OK)
            return st;
        if (y < 0)
            continue;
        if (*which != NULL && fabs(y - *x) > 0.5)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %s %.0f, but its alias %s %.0f", cx->path,
                                  sd_json_find(m, names[k])->line, names[k], y, *which, *x);
        if (*which == NULL) {
            *x = y;
            *which = names[k];
        }
    }
    return SD_OK;
}

/* What one request's meta_info states; -1 for a count it does not give. */
typedef struct {
    size_t line;
    double V, A, P;           /* spec_verify_ct, the accepted and the proposed drafts */
    const char *an, *pn;      /* the names A and P were read under */
    int has_h;                /* a histogram: h[0 .. len - 1] */
    const sd_json *hv;        /* its member, for the line */
    double h[MAXG + 1];
    size_t len;
} sg_request;

/* The fields of meta_info m into *q: q->V < 0 when m has no spec_verify_ct (the request did
 * not verify; nothing else is read).  SD_EINVAL when a field is malformed, two aliases or
 * the two histograms disagree, or neither the accepted drafts nor a histogram is there. */
static sd_status sg_fields(const sd_counters_ctx *cx, const sd_json *m, sg_request *q)
{
    static const char *const CORRECT[] = { "spec_num_correct_drafts", "spec_accepted_drafts", "spec_accept_token_num",
                                           NULL };
    static const char *const PROPOSED[] = { "spec_num_proposed_drafts", "spec_proposed_drafts", "spec_draft_token_num",
                                            NULL };
    q->V = -1;
    sd_status st = sd_json_expect(m, SD_JSON_OBJECT, "meta_info", cx->err);
    if (st == SD_OK)
        st = sd_counters_json_opt_count(m, "spec_verify_ct", &q->V, cx->err);
    if (st != SD_OK || q->V < 0)
        return st;
    if ((st = sg_alias(cx, m, CORRECT, &q->A, &q->an)) != SD_OK ||
        (st = sg_alias(cx, m, PROPOSED, &q->P, &q->pn)) != SD_OK)
        return st;
    const sd_json *hv = sd_json_find(m, "spec_correct_drafts_histogram");
    const sd_json *ha = sd_json_find(m, "spec_accept_histogram");
    double h2[MAXG + 1];
    size_t len2 = 0;
    int dense = 0;
    q->line = m->line;
    q->len = 0;
    if (hv != NULL && (st = sd_counters_json_histogram(cx, hv, "spec_correct_drafts_histogram", 0, 0, q->h, MAXG + 1,
                                                       &q->len, &dense)) != SD_OK)
        return st;
    if (ha != NULL && (st = sd_counters_json_histogram(cx, ha, "spec_accept_histogram", 0, 0, hv ? h2 : q->h,
                                                       MAXG + 1, hv ? &len2 : &q->len, &dense)) != SD_OK)
        return st;
    if (hv != NULL && ha != NULL && (q->len != len2 || memcmp(q->h, h2, q->len * sizeof *h2) != 0))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: spec_correct_drafts_histogram and its alias spec_accept_histogram differ",
                              cx->path, ha->line);
    q->has_h = hv != NULL || ha != NULL;
    q->hv = hv ? hv : ha;
    if (q->A < 0 && !q->has_h)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: spec_verify_ct without the accepted drafts (spec_num_correct_drafts, "
                              "spec_accepted_drafts or spec_accept_token_num, or a histogram): completion_tokens, which "
                              "includes the prefill token, does not give them",
                              cx->path, q->line);
    return SD_OK;
}

/* The request's draft length (*g): the histogram's length - 1, else proposed / verify_ct,
 * else opt->gamma; each that the request gives must agree with the others and with
 * opt->gamma.  SD_EINVAL naming the two that differ, or when none gives it. */
static sd_status sg_gamma(const sd_counters_ctx *cx, const sg_request *q, size_t *g)
{
    const char *from = NULL;
    *g = 0;
    if (q->has_h) {
        if (q->len < 2)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: a histogram of %zu buckets: expected gamma + 1 >= 2",
                                  cx->path, q->hv->line, q->len);
        *g = q->len - 1;
        from = "the histogram's length - 1";
    }
    if (q->P >= 0 && q->V > 0) {
        double r = q->P / q->V;
        if (!(floor(r) >= r) || r < 1 || r > MAXG)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: %s %.0f is not spec_verify_ct %.0f x a draft length in [1, %d] (SGLang's "
                                  "proposed = verify_ct x (num_draft_tokens - 1))",
                                  cx->path, q->line, q->pn, q->P, q->V, MAXG);
        if (*g && (size_t)r != *g)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: %s %.0f / spec_verify_ct %.0f = %.0f, but the histogram has %zu + 1 buckets",
                                  cx->path, q->line, q->pn, q->P, q->V, r, *g);
        *g = (size_t)r;
        from = from ? from : "proposed / spec_verify_ct";
    }
    if (!*g && !cx->opt->gamma)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: the request does not state the draft length (no proposed drafts, no histogram): "
                              "give it with %s (SGLang's --speculative-num-steps)",
                              cx->path, q->line, sd_counters_gamma_name(cx));
    if (!*g) {
        *g = cx->opt->gamma;
        from = NULL;
    }
    return sd_counts_gamma_agrees(cx, q->line, *g, "the request has %zu (%s)", *g, from);
}

/* One request's meta_info m checked against itself and the earlier requests, and added to
 * the sum; a request that did not verify is skipped. */
static sd_status sg_meta(const sd_counters_ctx *cx, const sd_json *m, sg_sum *sum)
{
    sg_request q;
    size_t g = 0;
    sd_status st = sg_fields(cx, m, &q);
    if (st != SD_OK || q.V < 0 || (st = sg_gamma(cx, &q, &g)) != SD_OK)
        return st;
    sd_counts *c = sum->c;
    if (c->gamma && g != c->gamma)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: the request has a draft length of %zu, line %zu's %zu",
                              cx->path, q.line, g, sum->first_line, c->gamma);
    sd_counts_block part = { 0 };
    if (q.has_h) {
        for (size_t j = 0; j <= g; j++)
            sd_counts_block_accepting(&part, j, q.h[j]);
        const double D = part.drafts, S = part.accepted_tokens;
        if (fabs(D - q.V) > 0.5)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: spec_verify_ct %.0f, but the histogram sums to %.0f",
                                  cx->path, q.line, q.V, D);
        if (q.A >= 0 && fabs(S - q.A) > 0.5)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %s %.0f, but the histogram gives %.0f accepted drafts",
                                  cx->path, q.line, q.an, q.A, S);
        q.A = S;
    }
    if (q.P < 0)
        q.P = q.V * (double)g;
    if (q.A > q.P)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %.0f accepted drafts exceed the %.0f proposed (%.0f verify "
                              "passes of %zu)", cx->path, q.line, q.A, q.P, q.V, g);
    const sd_json *rv = sd_json_find(m, "spec_accept_rate");
    double rate = 0.0;
    if (rv != NULL && q.P > 0) {
        if ((st = sd_json_number(rv, "spec_accept_rate", &rate, cx->err)) != SD_OK)
            return st;
        if (!(fabs(rate - q.A / q.P) <= RATIO_TOL))
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: spec_accept_rate %.17g, but accepted / proposed drafts = %.0f / %.0f = %.17g",
                                  cx->path, rv->line, rate, q.A, q.P, q.A / q.P);
    }
    if (sum->requests++ == 0)
        sum->first_line = q.line;
    sum->with_hist += q.has_h;
    c->gamma = g;
    part.drafts = q.V;
    part.draft_tokens = q.P;
    part.accepted_tokens = q.A;
    sd_counts_add(c, &part);
    return SD_OK;
}

static sd_status sg_record(const sd_counters_ctx *cx, const sd_json *rec, void *arg)
{
    sg_sum *sum = arg;
    const sd_json *m = sd_json_find(rec, "meta_info");
    sum->records++;
    return sg_meta(cx, m ? m : rec, sum);
}

static int sglang_request_detect(const char *line, int first)
{
    (void)first;
    return sd_counters_json_has_key(line, "spec_verify_ct");
}

static sd_status sglang_request_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    (void)t;
    sg_sum sum = { .c = c };
    sd_status st = sd_counters_json_read_each(cx, sg_record, &sum);
    if (st != SD_OK)
        return st;
    if (sum.requests == 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s: no request's meta_info has spec_verify_ct (SGLang writes it when a finished request "
                              "was verified at least once)",
                              cx->path);
    c->has_positions = sum.with_hist == sum.requests;
    for (size_t i = 0; i < c->gamma; i++)
        c->reached[i] = c->drafts;
    sd_counts_note(c, "Summed the meta_info of %zu SGLang requests (drafts = spec_verify_ct; spec_accept_length, which "
                   "counts the prefill token, is not used).", sum.requests);
    if (sum.with_hist > 0 && !c->has_positions)
        sd_counts_note(c, "Only %zu of the %zu requests have a histogram, so the counts have no positions.",
                       sum.with_hist, sum.requests);
    if (sum.records > sum.requests)
        sd_counts_note(c, "%zu of %zu records have no spec_verify_ct and were skipped.", sum.records - sum.requests,
                       sum.records);
    return SD_OK;
}

/* The row of sglang-request: SGLang's per-request meta_info.  detect: the member name
 * "spec_verify_ct".  read: every request's counts (and histogram), summed. */
const sd_counters_reader sd_counters_reader_sglang_request = {
    .name = "sglang-request",
    .by = SD_COUNTERS_BY_JSON,
    .detect = sglang_request_detect,
    .read = sglang_request_read,
};

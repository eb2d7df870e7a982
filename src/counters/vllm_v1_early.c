/* vllm_v1_early.c -- the vllm-v1-early reader: vLLM 0.8's first V1 log line (see
 * counters_impl.h).
 *
 * Source: vllm-project/vllm PR #15151 ("[V1][Metrics] Initial speculative decoding metrics",
 * 2025-03) added the line to the V1 engine's LoggingStatLogger; PR #15902 (2025-04-01)
 * replaced it by "SpecDecoding metrics: ..." (vllm_v1.c) and quotes the old output as its
 * BEFORE:
 *   "Speculative metrics: Draft acceptance rate: 1.000, Number of accepted tokens: 66,
 *    Number of draft tokens: 66, "
 * so the format is "Speculative metrics: Draft acceptance rate: %.3f, Number of accepted
 * tokens: %d, Number of draft tokens: %d, " (the merged source of #15151 was not found; the
 * format is the one the BEFORE sample implies).  It shares its marker with vLLM V0's line
 * (vllm_v0.c) but has no "Number of speculative tokens", "System efficiency" or "emitted
 * tokens": the recognisers split the two on those fields.
 *
 * What it counts: V1's SpecDecodingStats (vllm/v1/spec_decode/metrics.py, observe_draft)
 * adds each draft's accepted prefix (kind PREFIX, up to the first rejection) and its
 * drafted tokens; the V1 logger resets its stats after every line, so each line is one
 * logging interval and the lines are summed.  (That the early logger reset too is inferred
 * from the V1 design and from the small counts of #15902's sample; a cumulative log would
 * be counted several times: the fit's alpha barely moves, its interval narrows.)  The line
 * prints neither the draft length nor the number of drafts, so gamma comes from --gamma
 * (opt->gamma) and drafts = draft tokens / gamma, every draft taken to be gamma long: a line
 * whose draft tokens are no multiple of gamma is refused. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "counters_impl.h"
#include "derive.h"

#define MARKER "Speculative metrics:"

typedef struct {
    uint64_t A, D;
    double P, hP;
    int has_A, has_D, has_P;
} early_line;

/* The fields of one line (body: what follows the marker) into *o. */
static sd_status early_parse(const sd_counters_ctx *cx, size_t ln, const char *body, early_line *o)
{
    const char *it;
    size_t n;
    memset(o, 0, sizeof *o);
    while (sd_text_next_item(&body, &it, &n)) {
        const char *colon = memchr(it, ':', n);
        if (colon == NULL)
            continue;
        const char *key = it;
        const char *v = colon + 1;
        size_t kn = (size_t)(colon - it);
        size_t vn = n - kn - 1;
        int ok = 1;
        sd_text_trim(&key, &kn);
        sd_text_trim(&v, &vn);
        if (sd_text_span_is(key, kn, "Number of accepted tokens"))
            ok = sd_text_count(v, vn, &o->A) && !o->has_A++;
        else if (sd_text_span_is(key, kn, "Number of draft tokens"))
            ok = sd_text_count(v, vn, &o->D) && !o->has_D++;
        else if (sd_text_span_is(key, kn, "Draft acceptance rate"))
            ok = sd_text_decimal(v, vn, &o->P, &o->hP) && !o->has_P++;
        if (!ok)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: vLLM V1 'Speculative metrics' line: cannot read %.*s: '%.*s'", cx->path, ln,
                                  (int)kn, key, (int)vn, v);
    }
    if (!o->has_A || !o->has_D)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: vLLM V1 'Speculative metrics' line without 'Number of %s'",
                              cx->path, ln, o->has_A ? "draft tokens" : "accepted tokens");
    if (o->A > o->D)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %llu accepted tokens exceed %llu draft tokens", cx->path,
                              ln, (unsigned long long)o->A, (unsigned long long)o->D);
    if (o->D > 0 && o->has_P && !(fabs((double)o->A / (double)o->D - o->P) <= sd_derive_widen(o->hP)))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: the draft acceptance rate %.6g is not accepted / draft tokens = %.6g", cx->path,
                              ln, o->P, (double)o->A / (double)o->D);
    return SD_OK;
}

static sd_status vllm_v1_early_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    size_t g = cx->opt->gamma;
    size_t lines = 0;
    double A = 0.0, D = 0.0;
    early_line o;
    for (size_t i = 0; i < t->n; i++) {
        const char *m = strstr(t->line[i], MARKER);
        sd_status st;
        if (m == NULL)
            continue;
        if ((st = early_parse(cx, i + 1, m + strlen(MARKER), &o)) != SD_OK)
            return st;
        if (g == 0)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: vLLM V1's early 'Speculative metrics' line prints no draft length: give "
                                  "the number of speculative tokens with --gamma (drafts = draft tokens / gamma)",
                                  cx->path, i + 1);
        if (o.D % g != 0)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: %llu draft tokens are no multiple of gamma = %zu: drafts = draft tokens / "
                                  "gamma needs every draft %zu long",
                                  cx->path, i + 1, (unsigned long long)o.D, g, g);
        A += (double)o.A;
        D += (double)o.D;
        lines += o.D > 0;
    }
    if (lines == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: no vLLM V1 'Speculative metrics:' line with draft tokens",
                              cx->path);
    c->gamma = g;
    c->drafts = D / (double)g;
    c->draft_tokens = D;
    c->accepted_tokens = A;
    for (size_t i = 0; i < g; i++)
        c->reached[i] = c->drafts;
    sd_counts_note(c,
                   "Summed %zu vLLM V1 (0.8, early) 'Speculative metrics' lines, each taken as one logging interval "
                   "(V1 resets its counts after every line).",
                   lines);
    sd_counts_note(c, "The line prints no draft length: drafts = draft tokens / %zu (--gamma), every draft %zu long.",
                   g, g);
    sd_counts_note(c, "Prefix counts (accepted up to the first rejection) without per-position rates.");
    return SD_OK;
}

static int vllm_v1_early_detect(const char *line, int first)
{
    (void)first;
    return strstr(line, MARKER) != NULL && strstr(line, "Number of speculative tokens") == NULL &&
           strstr(line, "System efficiency") == NULL && strstr(line, "emitted tokens") == NULL;
}

/* The row of vllm-v1-early: vLLM 0.8's first V1 line "Speculative metrics: Draft acceptance
 * rate: .., Number of accepted tokens: .., Number of draft tokens: .., ".  detect: the marker
 * "Speculative metrics:" without V0's speculative tokens, system efficiency or emitted tokens.
 * read: the lines summed, drafts = draft tokens / opt->gamma (required). */
const sd_counters_reader sd_counters_reader_vllm_v1_early = {
    .name = "vllm-v1-early",
    .by = SD_COUNTERS_BY_LOG_LINE,
    .detect = vllm_v1_early_detect,
    .read = vllm_v1_early_read,
};

/* vllm_v0.c -- the vllm-v0 reader: vLLM V0 log lines (see counters_impl.h).
 *
 * Source: vllm-project/vllm, vllm/engine/metrics.py, LoggingStatLogger._format_spec_decode_metrics_str:
 *   "Speculative metrics: Draft acceptance rate: %.3f, System efficiency: %.3f,
 *    Number of speculative tokens: %d, Number of accepted tokens: %d,
 *    Number of draft tokens: %d, Number of emitted tokens: %d."
 * (older versions: "Number of draft tokens tokens:", "Number of emitted tokens tokens:").  The
 * counts come from vllm/model_executor/layers/spec_decode_base_sampler.py, which adds to them
 * at every step and never resets them: they are cumulative since the engine started.
 * num_accepted_tokens += accepted.sum() counts every draft position that passed its own test
 * (kind ANY); num_draft_tokens += batch_size * k (vllm/spec_decode/metrics.py asserts
 * draft_tokens % k == 0), so drafts = draft tokens / k. */
#include <stdint.h>
#include <string.h>

#include "counters_impl.h"

typedef struct {
    uint64_t k, A, D, E;
    int has_k, has_A, has_D, has_E;
    size_t line;
} v0_line;

/* The counts of one line (body: what follows "Speculative metrics:", its
 * closing period dropped) into *o.  SD_EINVAL when the line is 1024 bytes or
 * longer, a count cannot be read or repeats, the speculative, accepted or
 * draft tokens are missing, gamma is outside [1, MAXG], or the accepted
 * exceed the draft tokens or those are no multiple of gamma. */
static sd_status v0_parse(const sd_counters_ctx *cx, size_t ln, const char *body, v0_line *o)
{
    char buf[1024];
    size_t bn = strlen(body);
    const char *it;
    const char *p = buf;
    size_t n;
    memset(o, 0, sizeof *o);
    o->line = ln;
    if (bn >= sizeof buf)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: vLLM 'Speculative metrics' line too long", cx->path, ln);
    memcpy(buf, body, bn + 1);
    while (bn > 0 && (sd_text_blank(buf[bn - 1]) || buf[bn - 1] == '.')) /* the closing period */
        buf[--bn] = '\0';
    while (sd_text_next_item(&p, &it, &n)) {
        const char *colon = memchr(it, ':', n);
        const char *v = colon ? colon + 1 : it;
        size_t kn = colon ? (size_t)(colon - it) : n;
        size_t vn = n - kn - (colon != NULL);
        uint64_t *dst = NULL;
        int *has = NULL;
        sd_text_trim(&v, &vn);
        if (sd_text_span_is(it, kn, "Number of speculative tokens")) {
            dst = &o->k;
            has = &o->has_k;
        } else if (sd_text_span_is(it, kn, "Number of accepted tokens")) {
            dst = &o->A;
            has = &o->has_A;
        } else if (sd_text_span_is(it, kn, "Number of draft tokens") ||
                   sd_text_span_is(it, kn, "Number of draft tokens tokens")) {
            dst = &o->D;
            has = &o->has_D;
        } else if (sd_text_span_is(it, kn, "Number of emitted tokens") ||
                   sd_text_span_is(it, kn, "Number of emitted tokens tokens")) {
            dst = &o->E;
            has = &o->has_E;
        }
        if (dst != NULL && (*has || !sd_text_count(v, vn, dst)))
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: vLLM 'Speculative metrics' line: cannot read %.*s: '%.*s'", cx->path, ln,
                                  (int)kn, it, (int)vn, v);
        if (has != NULL)
            *has = 1;
    }
    if (!o->has_k || !o->has_A || !o->has_D)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: vLLM 'Speculative metrics' line without the number of %s",
                              cx->path, ln,
                              !o->has_k   ? "speculative tokens"
                              : !o->has_A ? "accepted tokens"
                                          : "draft tokens");
    if (o->k < 1 || o->k > MAXG)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %llu speculative tokens: gamma must be in [1, %d]", cx->path,
                              ln, (unsigned long long)o->k, MAXG);
    if (o->A > o->D || o->D % o->k != 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: %llu accepted of %llu draft tokens with %llu speculative tokens: expected "
                              "accepted <= draft tokens, a multiple of %llu",
                              cx->path, ln, (unsigned long long)o->A, (unsigned long long)o->D,
                              (unsigned long long)o->k, (unsigned long long)o->k);
    return SD_OK;
}

typedef struct {
    size_t lines, runs, gamma;
    double drafts, D, A, E;
    int all_E;
} v0_sum;

/* Adds the last line of a run. */
static sd_status v0_run(const sd_counters_ctx *cx, const v0_line *o, v0_sum *s)
{
    if (s->gamma && o->k != s->gamma)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %llu speculative tokens, but an earlier run had %zu",
                              cx->path, o->line, (unsigned long long)o->k, s->gamma);
    sd_status st = sd_counts_gamma_agrees(cx, o->line, (size_t)o->k, "the line has %llu speculative tokens",
                                          (unsigned long long)o->k);
    if (st != SD_OK)
        return st;
    s->gamma = (size_t)o->k;
    s->runs++;
    s->drafts += (double)(o->D / o->k);
    s->D += (double)o->D;
    s->A += (double)o->A;
    s->E += (double)o->E;
    s->all_E &= o->has_E;
    return SD_OK;
}

static sd_status vllm_v0_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    v0_sum s = { .all_E = 1 };
    v0_line prev = { 0 };
    v0_line o;
    sd_status st;
    for (size_t i = 0; i < t->n; i++) {
        const char *m = strstr(t->line[i], "Speculative metrics:");
        if (m == NULL)
            continue;
        if ((st = v0_parse(cx, i + 1, m + strlen("Speculative metrics:"), &o)) != SD_OK)
            return st;
        int restart = o.A < prev.A || o.D < prev.D || (o.has_E && prev.has_E && o.E < prev.E) || o.k != prev.k;
        if (s.lines > 0 && restart && (st = v0_run(cx, &prev, &s)) != SD_OK)
            return st;
        prev = o;
        s.lines++;
    }
    if (s.lines == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: no vLLM 'Speculative metrics:' line", cx->path);
    if ((st = v0_run(cx, &prev, &s)) != SD_OK)
        return st;
    c->kind = SD_COUNTS_ANY;
    c->gamma = s.gamma;
    c->drafts = s.drafts;
    c->draft_tokens = s.D;
    c->accepted_tokens = s.A;
    for (size_t i = 0; i < c->gamma; i++)
        c->reached[i] = s.drafts;
    sd_counts_note(c,
                   "vLLM V0 counts are cumulative since the engine started: used the last of the %zu 'Speculative "
                   "metrics' lines of each of %zu run%s (a run restarts where a count decreases) and summed the "
                   "runs.",
                   s.lines, s.runs, s.runs == 1 ? "" : "s");
    sd_counts_note(c, "Drafts = draft tokens / %zu speculative tokens.", s.gamma);
    sd_counts_note(c, "V0 counts every draft position that passed its own test, also after a rejection (kind any), "
                        "and prints no per-position counts.");
    c->has_emitted = s.all_E;
    c->emitted_tokens = s.all_E ? s.E : 0.0;
    if (s.all_E)
        sd_counts_note(c, "Its %.0f emitted tokens give the measured E(N) = emitted tokens / drafts.", s.E);
    else
        sd_counts_note(c, "A line without the number of emitted tokens: no measured E(N).");
    return SD_OK;
}

static int vllm_v0_detect(const char *line, int first)
{
    /* V1's early line (vllm_v1_early.c) shares the marker: V0's has the number of speculative
     * tokens, the system efficiency or the emitted tokens. */
    return strstr(line, "Speculative metrics:") != NULL && !sd_counters_reader_vllm_v1_early.detect(line, first);
}

/* The row of vllm-v0: vLLM V0's log lines.  detect: the line has "Speculative metrics:" and is
 * not vLLM 0.8's early V1 line.  read: the last line of each run (a count decreasing starts a
 * new one) summed; kind SD_COUNTS_ANY, no positions. */
const sd_counters_reader sd_counters_reader_vllm_v0 = {
    .name = "vllm-v0",
    .by = SD_COUNTERS_BY_LOG_LINE,
    .detect = vllm_v0_detect,
    .read = vllm_v0_read,
};

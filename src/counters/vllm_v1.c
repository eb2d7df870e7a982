/* vllm_v1.c -- the vllm-v1 reader: vLLM V1 log lines (see counters_impl.h).
 *
 * Source: vllm-project/vllm, vllm/v1/spec_decode/metrics.py, SpecDecodingLogging.log(): one
 * line per logging interval, its counts reset after every line, so the lines are summed.
 * Three versions of the line:
 *   "SpecDecoding metrics: Draft acceptance rate: %.1f%%, Accepted: %d tokens, Drafted: %d tokens"
 *   "SpecDecoding metrics: Draft acceptance rate: %.1f%%, Mean acceptance length: %.2f,
 *    Accepted: %d tokens, Drafted: %d tokens, Per-position acceptance rate: %s"
 *   "SpecDecoding metrics: Mean acceptance length: %.2f, Accepted throughput: %.2f tokens/s,
 *    Drafted throughput: %.2f tokens/s, Accepted: %d tokens, Drafted: %d tokens,
 *    Per-position acceptance rate: %s, Avg Draft acceptance rate: %.1f%%"
 * with mean acceptance length = 1 + accepted / drafts, rates = ", ".join("%.3f") of
 * num_accepted_tokens_per_pos / drafts (position i counts drafts whose first i+1 tokens were
 * accepted: SpecDecodingStats.observe_draft), rate = 100 accepted / drafted ("nan" for 0).
 * Fields are read by name in any order; unknown fields are ignored. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "counters_impl.h"
#include "derive.h"

/* A count followed by an optional unit word ("110 tokens"). */
static int parse_count_unit(const char *s, size_t n, const char *unit, uint64_t *out)
{
    size_t d = 0;
    while (d < n && s[d] >= '0' && s[d] <= '9')
        d++;
    const char *u = s + d;
    size_t un = n - d;
    sd_text_trim(&u, &un);
    return sd_text_count(s, d, out) && (un == 0 || sd_text_span_is(u, un, unit));
}

typedef struct {
    uint64_t A, D;
    int has_A, has_D, has_L, has_P;
    double L, hL, P, hP;
    size_t k;
    double r[MAXG], hr;
} v1_line;

/* One field of a line, key: v (both trimmed), into *o; fields of no interest
 * are ignored.  SD_EINVAL when a known field cannot be read or repeats. */
static sd_status v1_field(const sd_counters_ctx *cx, size_t ln, const char *key, size_t kn, const char *v, size_t vn,
                          v1_line *o)
{
    double h = 0.0;
    int ok = 1;
    if (sd_text_span_is(key, kn, "Accepted"))
        ok = parse_count_unit(v, vn, "tokens", &o->A) && !o->has_A++;
    else if (sd_text_span_is(key, kn, "Drafted"))
        ok = parse_count_unit(v, vn, "tokens", &o->D) && !o->has_D++;
    else if (sd_text_span_is(key, kn, "Mean acceptance length"))
        ok = sd_text_decimal(v, vn, &o->L, &o->hL) && !o->has_L++;
    else if (sd_text_span_is(key, kn, "Draft acceptance rate") || sd_text_span_is(key, kn, "Avg Draft acceptance rate"))
        ok = vn > 1 && v[vn - 1] == '%' && sd_text_decimal(v, vn - 1, &o->P, &o->hP) && !o->has_P++;
    else if (sd_text_span_is(key, kn, "Per-position acceptance rate")) {
        ok = o->k == 0 && sd_text_decimal(v, vn, &o->r[0], &h) && o->r[0] >= 0.0 && o->r[0] <= 1.0;
        o->k = 1;
        o->hr = h;
    }
    if (!ok)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: vLLM 'SpecDecoding metrics' line: cannot read %.*s: '%.*s'",
                              cx->path, ln, (int)kn, key, (int)vn, v);
    return SD_OK;
}

/* The fields of one line (body: what follows "SpecDecoding metrics:") into *o,
 * the rates' list continuing over the items without a colon.  SD_EINVAL when
 * a field cannot be read, there are more than MAXG rates, or Accepted or
 * Drafted is missing. */
static sd_status v1_parse(const sd_counters_ctx *cx, size_t ln, const char *body, v1_line *o)
{
    const char *it;
    size_t n;
    int in_rates = 0;
    memset(o, 0, sizeof *o);
    while (sd_text_next_item(&body, &it, &n)) {
        const char *colon = memchr(it, ':', n);
        if (colon == NULL) { /* a further value of the last list */
            double x, h;
            if (!in_rates)
                continue;
            if (o->k == MAXG)
                return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: more than %d per-position rates: gamma beyond %d",
                                      cx->path, ln, MAXG, MAXG);
            if (!sd_text_decimal(it, n, &x, &h) || !(x >= 0.0 && x <= 1.0))
                return sd_status_fail(cx->err, SD_EINVAL,
                                      "%s:%zu: vLLM 'SpecDecoding metrics' line: cannot read the rate '%.*s'", cx->path,
                                      ln, (int)n, it);
            o->r[o->k++] = x;
            o->hr = fmax(o->hr, h);
            continue;
        }
        const char *key = it;
        const char *v = colon + 1;
        size_t kn = (size_t)(colon - it);
        size_t vn = n - kn - 1;
        sd_text_trim(&key, &kn);
        sd_text_trim(&v, &vn);
        in_rates = sd_text_span_is(key, kn, "Per-position acceptance rate");
        sd_status st = v1_field(cx, ln, key, kn, v, vn, o);
        if (st != SD_OK)
            return st;
    }
    if (!o->has_A || !o->has_D)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: vLLM 'SpecDecoding metrics' line without '%s: N tokens'",
                              cx->path, ln, o->has_A ? "Drafted" : "Accepted");
    return SD_OK;
}

/* The checks of one V1 line that need no derivation. */
static sd_status v1_check(const sd_counters_ctx *cx, size_t ln, const v1_line *o)
{
    if (o->A > o->D)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: Accepted %llu tokens exceeds Drafted %llu", cx->path, ln,
                              (unsigned long long)o->A, (unsigned long long)o->D);
    if (o->D > 0 && o->has_P && !(fabs(100.0 * (double)o->A / (double)o->D - o->P) <= sd_derive_widen(o->hP)))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: the draft acceptance rate %.6g%% is not Accepted / Drafted = %.6g%%", cx->path,
                              ln, o->P, 100.0 * (double)o->A / (double)o->D);
    if (o->D > 0 && o->has_L && !(o->L >= 1.0 && isfinite(o->L)))
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: mean acceptance length %.6g is not a finite number >= 1",
                              cx->path, ln, o->L);
    sd_status st = o->D > 0 && o->k > 0
                       ? sd_counts_gamma_agrees(cx, ln, o->k, "the line has %zu per-position rates", o->k)
                       : SD_OK;
    if (st != SD_OK)
        return st;
    if (o->D > 0 && o->k == 0 && !o->has_L && cx->opt->gamma == 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: the line gives neither a mean acceptance length nor per-position rates: give "
                              "the number of speculative tokens with %s to take drafts = Drafted / gamma",
                              cx->path, ln, sd_counters_gamma_name(cx));
    return sd_derive_rates_fall(cx, ln, o->r, o->k);
}

/* Adds line ln, checked, to s with its drafts and per-position counts derived
 * (sd_derive_solve, preferring drafts = Drafted / gamma); a line without
 * drafted tokens adds nothing.  SD_EINVAL when the line is inconsistent, its
 * number of rates differs from earlier lines', or no number of drafts
 * reproduces it. */
static sd_status v1_line_add(const sd_counters_ctx *cx, size_t ln, const v1_line *o, sd_derive_sum *s)
{
    sd_status st = v1_check(cx, ln, o);
    if (st != SD_OK || (o->D == 0 && o->A == 0)) /* an interval without drafted tokens adds nothing */
        return st;
    if (o->k > 0 && s->gamma > 0 && o->k != s->gamma)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %zu per-position rates, but earlier lines have %zu",
                              cx->path, ln, o->k, s->gamma);
    sd_derive_in in = { .A = o->A, .D = o->D, .has_x = o->has_L, .x = o->L - 1.0, .hx = o->hL, .k = o->k, .r = o->r,
                        .hr = o->hr, .kmax = o->k ? o->k : cx->opt->gamma, .full = 1, .c0 = -1 };
    sd_derive_out out;
    int rc = sd_derive_solve(&in, &out);
    if (rc != SD_DERIVE_OK)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: no whole number of drafts reproduces Accepted %llu, Drafted %llu%s%s as printed",
                              cx->path, ln, (unsigned long long)o->A, (unsigned long long)o->D,
                              o->has_L ? ", the mean acceptance length" : "",
                              o->k ? " and the per-position rates" : "");
    s->gamma = o->k ? o->k : s->gamma;
    sd_derive_add(s, &in, &out);
    return SD_OK;
}

static sd_status vllm_v1_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    sd_derive_sum s = { 0 };
    v1_line o;
    for (size_t i = 0; i < t->n; i++) {
        const char *m = strstr(t->line[i], "SpecDecoding metrics:");
        sd_status st;
        if (m == NULL)
            continue;
        if ((st = v1_parse(cx, i + 1, m + strlen("SpecDecoding metrics:"), &o)) != SD_OK ||
            (st = v1_line_add(cx, i + 1, &o, &s)) != SD_OK)
            return st;
    }
    if (s.lines == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: no vLLM 'SpecDecoding metrics:' line with drafted tokens",
                              cx->path);
    c->gamma = s.gamma ? s.gamma : cx->opt->gamma;
    if (c->gamma == 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s: the lines give no per-position rates: give the draft length (the number of "
                              "speculative tokens) with %s",
                              cx->path, sd_counters_gamma_name(cx));
    c->drafts = s.drafts;
    c->draft_tokens = s.D;
    c->accepted_tokens = s.A;
    c->has_positions = s.no_positions == 0;
    for (size_t i = 0; i < c->gamma && i < MAXG; i++) {
        c->accepted_at[i] = c->has_positions ? s.c[i] : 0.0;
        c->reached[i] = s.drafts;
    }
    sd_counts_note(c, "Summed %zu vLLM V1 'SpecDecoding metrics' lines (each covers one logging interval).", s.lines);
    sd_counts_note(c, "Drafts per line derived from Accepted / (mean acceptance length - 1) and the per-position "
                        "rates, which are printed rounded; per-position counts = rate x drafts, whole numbers within "
                        "the printed rounding, adjusted to sum to Accepted.");
    sd_derive_notes(c, &s, "line");
    if (s.no_positions > 0)
        sd_counts_note(c, "%zu lines have no per-position rates, so the counts have no positions.", s.no_positions);
    if (c->draft_tokens < c->drafts * (double)c->gamma)
        sd_counts_note(c,
                       "Drafted tokens are fewer than drafts x %zu: some drafts were shorter; reached[i] = drafts, "
                       "as vLLM divides each position's count by all drafts.",
                       c->gamma);
    return SD_OK;
}

static int vllm_v1_detect(const char *line, int first)
{
    (void)first;
    return strstr(line, "SpecDecoding metrics:") != NULL;
}

/* The row of vllm-v1: vLLM V1's log lines.  detect: the line has "SpecDecoding metrics:".
 * read: those lines summed, each line's drafts derived. */
const sd_counters_reader sd_counters_reader_vllm_v1 = {
    .name = "vllm-v1",
    .by = SD_COUNTERS_BY_LOG_LINE,
    .detect = vllm_v1_detect,
    .read = vllm_v1_read,
};

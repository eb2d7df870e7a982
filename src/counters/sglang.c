/* sglang.c -- the sglang reader: SGLang's scheduler "Decode batch" log lines (see
 * counters_impl.h).
 *
 * Source: sgl-project/sglang.  Every --decode-log-interval decode steps (default 40) the
 * scheduler logs one line, msg = f"Decode batch{iter_msg}, #running-req: ..., " (older:
 * "Decode batch. #running-req: ...") with, under speculative decoding,
 *   version 0:  f"accept len: {spec_accept_length:.2f}, "
 *               (python/sglang/srt/managers/scheduler.py, then scheduler_metrics_mixin.py)
 *   version A:  f"accept len: {spec_accept_length:.2f}, accept rate: {spec_accept_rate:.2f}, "
 *               rate = accepted tokens / (verifies x speculative_num_draft_tokens)
 *               (PR #11144; python/sglang/srt/managers/scheduler_metrics_mixin.py @
 *               78ac30c2056f2c25089c1d3203c3d5c13dc3d946)
 *   version B:  the same text, rate = (accepted tokens - verifies) / (verifies x
 *               (speculative_num_draft_tokens - 1))  (PR #23530; python/sglang/srt/managers/
 *               scheduler_components/metrics_reporter.py @ c9cbe8f25f9672ae72363052acff97b5464fe202)
 * where accept len = spec_num_accept_tokens / spec_num_forward_ct: the tokens of a window
 * (accepted drafts + one bonus token per request-verify, update_spec_metrics) over its
 * request-verifies, so len = E(N) with the bonus token and mean accepted = len - 1.  For an
 * EAGLE chain (topk 1) num_draft_tokens = num_steps + 1 = gamma + 1 (server_args), so
 * A: rate = len / (gamma + 1) and B: rate = (len - 1) / gamma.  The counters reset at every
 * line: each line is one window's mean, and the line prints neither the number of verifies
 * nor the drafted tokens.
 *
 * Decisions.  The lines are combined as the plain mean of their accept len: without a count
 * per window there is no exact weight (#running-req is the batch at the moment of logging,
 * not the window's verifies), and the result is a gauge (counters.h: a mean without
 * counts; the fit gives alpha without an interval).  Acceptance up to the first rejection
 * (kind PREFIX).  gamma comes from --gamma; else from the lines' two numbers when exactly
 * one (version, gamma) reproduces every line within its printed rounding (+-0.005 each);
 * else the input is refused naming --gamma.  The two versions cannot be told apart by the
 * text (research: byte-identical format strings), only by which division fits.  NGRAM
 * (num_draft_tokens set on its own, a tree) and adaptive speculation (the rate's denominator
 * uses the startup num_steps while the active one changes) break the chain identity; the
 * gamma the numbers give then describes the startup configuration. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "counters_impl.h"
#include "derive.h"

#define MARKER "Decode batch"

typedef struct {
    double L, hL, R, hR;
    int has_R;
} sg_line;

/* The decimal after "key" in the line (to the next comma), into *x, *h: 1 read, 0 absent,
 * -1 malformed. */
static int sg_value(const char *line, const char *key, double *x, double *h)
{
    const char *m = strstr(line, key);
    if (m == NULL)
        return 0;
    const char *v = m + strlen(key);
    const char *e = strchr(v, ',');
    size_t n = e ? (size_t)(e - v) : strlen(v);
    sd_text_trim(&v, &n);
    return sd_text_decimal(v, n, x, h) && isfinite(*x) ? 1 : -1;
}

/* 1 when line is a decode line with an accept length (past "Decode batch": "," "." or " ["). */
static int sg_is_line(const char *line)
{
    const char *m = strstr(line, MARKER);
    if (m == NULL)
        return 0;
    char ch = m[strlen(MARKER)];
    return (ch == ',' || ch == '.' || ch == ' ') && strstr(m, "accept len:") != NULL;
}

/* The versions a line allows with gamma g: bit 0 A (rate = len / (g + 1)), bit 1 B
 * (rate = (len - 1) / g), each with len and rate anywhere within their printed rounding. */
static unsigned sg_fits(const sg_line *o, size_t g)
{
    double hl = sd_derive_widen(o->hL), hr = sd_derive_widen(o->hR), dg = (double)g;
    double lo = o->L - hl, hi = o->L + hl;
    unsigned v = 0;
    if (lo / (dg + 1.0) <= o->R + hr && hi / (dg + 1.0) >= o->R - hr)
        v |= 1u;
    if ((lo - 1.0) / dg <= o->R + hr && (hi - 1.0) / dg >= o->R - hr)
        v |= 2u;
    return v;
}

/* What the lines read so far hold. */
typedef struct {
    size_t lines, rated, first_line; /* lines read, those with an accept rate, the first one's number */
    double sum, lmax;                /* their accept len summed, the largest */
    unsigned fit[MAXG + 1];          /* fit[k]: the versions every rated line allows with gamma k */
} sg_scan;

/* Decode batch line s (line ln) added to *sc, its accept len and rate checked against g (0:
 * not given).  SD_EINVAL when they cannot be read, lie outside their range, or fit no gamma
 * (g when given). */
static sd_status sg_add_line(const sd_counters_ctx *cx, size_t ln, const char *s, size_t g, sg_scan *sc)
{
    sg_line o = { 0 };
    int a = sg_value(s, "accept len:", &o.L, &o.hL);
    int r = sg_value(s, "accept rate:", &o.R, &o.hR);
    if (a != 1 || r < 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: SGLang 'Decode batch' line: cannot read the accept %s",
                              cx->path, ln, a != 1 ? "len" : "rate");
    if (!(o.L >= 1.0 - sd_derive_widen(o.hL)) || (r == 1 && !(o.R >= 0.0 && o.R <= 1.0)))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: accept len %.6g%s: expected a length >= 1 (it counts the bonus token) and a "
                              "rate in [0, 1]",
                              cx->path, ln, o.L, r == 1 ? " with an accept rate outside [0, 1]" : "");
    if (g && o.L - 1.0 > (double)g + sd_derive_widen(o.hL))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: accept len %.6g is more than gamma + 1 = %zu tokens per verify", cx->path, ln,
                              o.L, g + 1);
    o.has_R = r == 1;
    if (o.has_R) {
        unsigned any = 0;
        for (size_t k = 1; k <= MAXG; k++) {
            sc->fit[k] &= sg_fits(&o, k);
            any |= sg_fits(&o, k);
        }
        if (g && sg_fits(&o, g) == 0)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: accept len %.6g and accept rate %.6g fit neither len / (gamma + 1) nor "
                                  "(len - 1) / gamma with gamma = %zu",
                                  cx->path, ln, o.L, o.R, g);
        if (!any)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: accept len %.6g and accept rate %.6g fit len / (gamma + 1) or (len - 1) / "
                                  "gamma for no gamma in [1, %d]",
                                  cx->path, ln, o.L, o.R, MAXG);
        sc->rated++;
    }
    if (sc->lines == 0)
        sc->first_line = ln;
    sc->lmax = fmax(sc->lmax, o.L);
    sc->sum += o.L;
    sc->lines++;
    return SD_OK;
}

static sd_status sglang_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    size_t g = cx->opt->gamma;
    sg_scan sc = { 0 };
    for (size_t k = 1; k <= MAXG; k++)
        sc.fit[k] = 3u;
    for (size_t i = 0; i < t->n; i++) {
        sd_status st = sg_is_line(t->line[i]) ? sg_add_line(cx, i + 1, t->line[i], g, &sc) : SD_OK;
        if (st != SD_OK)
            return st;
    }
    if (sc.lines == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: no SGLang 'Decode batch' line with an accept len", cx->path);
    size_t pairs = 0;
    unsigned ver = 0;
    if (g)
        ver = sc.fit[g];
    for (size_t k = 1; k <= MAXG && sc.rated && cx->opt->gamma == 0; k++)
        for (unsigned v = 1; v <= 2; v++)
            if ((sc.fit[k] & v) && sc.lmax - 1.0 <= (double)k + 0.005) {
                pairs++;
                g = k;
                ver = v;
            }
    if (cx->opt->gamma == 0 && pairs != 1)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: %s: give the draft length (SGLang's --speculative-num-steps) with --gamma",
                              cx->path, sc.first_line,
                              sc.rated == 0 ? "the lines print an accept len but no accept rate, so no draft length"
                              : pairs == 0  ? "no one draft length reproduces the accept len and rate of every line"
                                            : "the accept len and rate fit more than one draft length or version");
    c->gamma = g;
    c->gauge = 1;
    c->mean_accepted = fmin(fmax(sc.sum / (double)sc.lines - 1.0, 0.0), (double)g);
    sd_counts_note(c,
                   "The plain mean of %zu SGLang 'Decode batch' accept len values (each the mean over one "
                   "--decode-log-interval window; the lines print no verify count to weight them): E(N) = %.4g with "
                   "the bonus token, %.4g accepted tokens per verify.",
                   sc.lines, sc.sum / (double)sc.lines, c->mean_accepted);
    if (cx->opt->gamma)
        sd_counts_note(c, "gamma = %zu from --gamma%s.", g,
                       sc.rated == 0 ? ""
                       : ver == 1    ? "; the accept rate fits version A, len / (gamma + 1)"
                       : ver == 2    ? "; the accept rate fits version B, (len - 1) / gamma"
                       : ver == 3    ? "; the accept rate fits both len / (gamma + 1) and (len - 1) / gamma"
                                     : "; the lines' accept rates fit different versions");
    else
        sd_counts_note(c, "gamma = %zu: the one draft length for which %s reproduces every line's accept rate%s.", g,
                       ver == 1 ? "version A's rate = len / (gamma + 1) (SGLang before PR #23530)"
                                : "version B's rate = (len - 1) / gamma (SGLang from PR #23530)",
                       " within the printed rounding");
    return SD_OK;
}

static int sglang_detect(const char *line, int first)
{
    (void)first;
    return sg_is_line(line);
}

/* The row of sglang: SGLang's "Decode batch ... accept len: x[, accept rate: y]" lines.
 * detect: a "Decode batch" line with "accept len:".  read: a gauge, the plain mean of the
 * lines' accept len - 1; gamma from opt->gamma or the one (version, gamma) the rates fit. */
const sd_counters_reader sd_counters_reader_sglang = {
    .name = "sglang",
    .by = SD_COUNTERS_BY_LOG_LINE,
    .detect = sglang_detect,
    .read = sglang_read,
};

/* counters.c -- speculative-decoding counts from engines' logs and scrapes (see counters.h).
 *
 * One reader per format; the comment above each names the source it follows.
 * A reader fills a local sd_counts from the file; check_counts() then holds
 * it to the invariants counters.h promises, and only a complete, checked
 * result reaches the caller.
 *
 * Log lines print rates rounded to a few decimals, so the number of drafts
 * and the per-position counts behind a line are derived (derive_*): every
 * whole number of drafts that reproduces all the printed figures is a
 * candidate; the per-position counts are the whole numbers the printed rates
 * allow, adjusted to sum to the accepted tokens.
 */
#include "specdec/counters.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "specdec/parse.h"
#include "specdec/tsv.h"
#include "common/file.h"

#define MAXG SD_COUNTS_MAX_GAMMA
#define COUNT_MAX 9007199254740992.0 /* 2^53: beyond it a double cannot tell a count is whole */
#define FILE_MAX ((size_t)1 << 30)
#define SERIES_MAX 4096 /* spec-decode series in one scrape */
#define SEARCH_MAX 4096 /* candidate numbers of drafts tried for one log line */
#define ROWS_MAX 1000000

/* ---- the tables ------------------------------------------------------------------------ */

enum { F_PROM, F_V1, F_V0, F_LLAMA, F_TSV, F_HIST, F_N };
static const char *const FORMATS[F_N + 1] = { "prometheus", "vllm-v1", "vllm-v0", "llama.cpp", "tsv", "histogram",
                                              NULL };

/* vLLM V1's counters (vllm/v1/spec_decode/metrics.py, SpecDecodingProm), with their documentation. */
enum { C_DRAFTS, C_DRAFT_TOKENS, C_ACCEPTED, C_PER_POS, C_N };
static const struct {
    const char *name, *help;
} COUNTERS[C_N] = {
    { "vllm:spec_decode_num_drafts", "Number of spec decoding drafts." },
    { "vllm:spec_decode_num_draft_tokens", "Number of draft tokens." },
    { "vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens." },
    { "vllm:spec_decode_num_accepted_tokens_per_pos", "Accepted tokens per draft position." },
};

const char *const *sd_counts_formats(void)
{
    return FORMATS;
}

/* ---- what every reader shares ------------------------------------------------------------ */

/* The file as lines: NUL-terminated, without the line feed and a trailing CR
 * (a line with a NUL byte ends there). */
typedef struct {
    char *buf;
    char **line;
    size_t n, longest;
} text;

typedef struct {
    const char *path;
    const sd_counts_options *opt; /* never NULL */
    sd_error *err;
} ctx;

static void text_free(text *t)
{
    free(t->buf);
    free(t->line);
    memset(t, 0, sizeof *t);
}

static sd_status text_read(const char *path, text *t, sd_error *err)
{
    memset(t, 0, sizeof *t);
    size_t len = 0;
    sd_status st = sd_file_read(path, FILE_MAX, &t->buf, &len, err);
    if (st != SD_OK)
        return st;
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += t->buf[i] == '\n';
    n += len > 0 && t->buf[len - 1] != '\n';
    if ((t->line = malloc((n ? n : 1) * sizeof *t->line)) == NULL) {
        text_free(t);
        return sd_status_fail(err, SD_ENOMEM, "%s: out of memory", path);
    }
    char *s = t->buf;
    for (size_t i = 0; i < n; i++) {
        char *nl = memchr(s, '\n', len - (size_t)(s - t->buf));
        char *end = nl ? nl : t->buf + len;
        *end = '\0';
        if (end > s && end[-1] == '\r')
            end[-1] = '\0';
        t->line[i] = s;
        size_t l = strlen(s);
        t->longest = l > t->longest ? l : t->longest;
        s = end + 1;
    }
    t->n = n;
    return SD_OK;
}

/* Appends a sentence to c->notes (space-separated, truncated to fit), with
 * control bytes shown as '?'. */
__attribute__((format(printf, 2, 3))) static void note(sd_counts *c, const char *fmt, ...)
{
    size_t len = strlen(c->notes);
    if (len + 2 >= sizeof c->notes)
        return;
    if (len > 0)
        c->notes[len++] = ' ', c->notes[len] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->notes + len, sizeof c->notes - len, fmt, ap);
    va_end(ap);
    for (char *p = c->notes + len; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

static int blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

static const char *skip_blank(const char *s)
{
    while (blank(*s))
        s++;
    return s;
}

static void trim(const char **s, size_t *n)
{
    while (*n > 0 && blank(**s))
        (*s)++, (*n)--;
    while (*n > 0 && blank((*s)[*n - 1]))
        (*n)--;
}

static int span_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

/* A whole count: digits only, at most 2^53. */
static int parse_count(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || n > 16)
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = 10 * v + (uint64_t)(s[i] - '0');
    }
    if ((double)v > COUNT_MAX)
        return 0;
    *out = v;
    return 1;
}

/* A printed decimal [+-]d[.d] (no exponent), or nan/inf as Python prints
 * them (*x NaN or infinite).  *half: half a unit of the last printed digit. */
static int parse_decimal(const char *s, size_t n, double *x, double *half)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    const char *p = buf + (buf[0] == '+' || buf[0] == '-');
    if (strcmp(p, "nan") == 0 || strcmp(p, "inf") == 0) {
        *x = p[0] == 'n' ? NAN : (buf[0] == '-' ? -INFINITY : INFINITY);
        *half = 0.0;
        return 1;
    }
    size_t digits = 0, dec = 0;
    int dot = 0;
    for (; *p; p++) {
        if (*p == '.' && !dot)
            dot = 1;
        else if (*p >= '0' && *p <= '9')
            digits++, dec += (size_t)dot;
        else
            return 0;
    }
    if (digits == 0)
        return 0;
    *x = strtod(buf, NULL);
    *half = 0.5 * pow(10.0, -(double)dec);
    return 1;
}

/* A count followed by an optional unit word ("110 tokens"). */
static int parse_count_unit(const char *s, size_t n, const char *unit, uint64_t *out)
{
    size_t d = 0;
    while (d < n && s[d] >= '0' && s[d] <= '9')
        d++;
    const char *u = s + d;
    size_t un = n - d;
    trim(&u, &un);
    return parse_count(s, d, out) && (un == 0 || span_is(u, un, unit));
}

/* The next item of *s split at commas outside parentheses, trimmed; 0 at the end. */
static int next_item(const char **s, const char **item, size_t *len)
{
    const char *p = *s;
    if (*p == '\0')
        return 0;
    int depth = 0;
    const char *q = p;
    for (; *q && !(*q == ',' && depth <= 0); q++)
        depth += (*q == '(' || *q == '[') - (*q == ')' || *q == ']');
    *item = p, *len = (size_t)(q - p);
    trim(item, len);
    *s = *q ? q + 1 : q;
    return 1;
}

/* A comma-separated list of rates in [0, 1] (no parentheses) into r[], *k of
 * them; *half: the coarsest half-unit printed.  0 when malformed; *k =
 * MAXG + 1 when there are too many. */
static int parse_rates(const char *s, size_t n, double *r, size_t *k, double *half)
{
    char buf[2048];
    trim(&s, &n);
    *k = 0, *half = 0.0;
    if (n == 0)
        return 1;
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    const char *p = buf, *it;
    size_t len;
    while (next_item(&p, &it, &len)) {
        double x, h;
        if (*k == MAXG) {
            *k = MAXG + 1;
            return 1;
        }
        if (!parse_decimal(it, len, &x, &h) || !(x >= 0.0 && x <= 1.0))
            return 0;
        r[(*k)++] = x;
        *half = fmax(*half, h);
    }
    return 1;
}

/* ---- drafts and per-position counts from a printed line --------------------------------- */

typedef struct {
    uint64_t A, D;    /* accepted and drafted tokens (exact) */
    int has_x;        /* x = mean acceptance length - 1 = A / drafts, printed to +-hx */
    double x, hx;
    size_t k;         /* per-position rates r[i] = accepted_at[i] / drafts, printed to +-hr */
    const double *r;
    double hr;
    size_t kmax;      /* the longest a draft can be; 0: unknown */
    int full;         /* prefer drafts = D / kmax (every draft kmax tokens long) */
    uint64_t n_fixed; /* > 0: the number of drafts is known */
    int64_t c0;       /* >= 0: accepted_at[0] is known */
} dv_in;

typedef struct {
    uint64_t n, c[MAXG];
    uint64_t nlo, nhi; /* the numbers of drafts the printed figures allow */
    int full;          /* 1: n = D / kmax was taken where other numbers were possible */
} dv_out;

enum { DV_OK, DV_INCONSISTENT, DV_UNKNOWN };

/* The printed precision, widened by the rounding of the division and printing. */
static double widen(double h)
{
    return h * (1.0 + 1e-9) + 1e-12;
}

/* The whole per-position counts rate r[i] allows with n drafts, made
 * non-increasing, into lo/hi; 1 when some choice sums to A. */
static int dv_feasible(const dv_in *in, uint64_t n, uint64_t *lo, uint64_t *hi)
{
    double dn = (double)n, h = widen(in->hr);
    if (in->kmax && ((double)in->A > dn * (double)in->kmax || (double)in->D > dn * (double)in->kmax))
        return 0;
    for (size_t i = 0; i < in->k; i++) {
        double a = fmax(0.0, ceil((in->r[i] - h) * dn)), b = fmin(dn, floor((in->r[i] + h) * dn));
        if (a > b)
            return 0;
        lo[i] = (uint64_t)a, hi[i] = (uint64_t)b;
    }
    if (in->c0 >= 0 && in->k > 0) {
        lo[0] = lo[0] > (uint64_t)in->c0 ? lo[0] : (uint64_t)in->c0;
        hi[0] = hi[0] < (uint64_t)in->c0 ? hi[0] : (uint64_t)in->c0;
    }
    for (size_t i = 1; i < in->k; i++)
        hi[i] = hi[i] < hi[i - 1] ? hi[i] : hi[i - 1];
    for (size_t i = in->k; i-- > 1;)
        lo[i - 1] = lo[i - 1] > lo[i] ? lo[i - 1] : lo[i];
    uint64_t slo = 0, shi = 0;
    for (size_t i = 0; i < in->k; i++) {
        if (lo[i] > hi[i])
            return 0;
        slo += lo[i], shi += hi[i];
    }
    return in->k == 0 || (slo <= in->A && in->A <= shi);
}

/* Narrows [lo, hi] to the drafts n with A / n = x +- h; 0 if none. */
static int dv_bound(uint64_t A, double x, double h, double *lo, double *hi, double *est)
{
    h = widen(h);
    if (A == 0)
        return fabs(x) <= h;
    if (!(x + h > 0.0))
        return 0;
    *lo = fmax(*lo, ceil((double)A / (x + h) * (1.0 - 1e-12)));
    if (x - h > 0.0)
        *hi = fmin(*hi, floor((double)A / (x - h) * (1.0 + 1e-12)));
    if (isnan(*est) && x > 0.0)
        *est = (double)A / x;
    return 1;
}

static int dv_range(const dv_in *in, double *lo, double *hi, double *est)
{
    *lo = 1.0, *hi = in->D > 0 ? (double)in->D : INFINITY, *est = NAN;
    if (in->n_fixed)
        *lo = *hi = (double)in->n_fixed;
    if (in->kmax) {
        uint64_t m = in->A > in->D ? in->A : in->D;
        *lo = fmax(*lo, ceil((double)m / (double)in->kmax));
    }
    if (in->has_x && !dv_bound(in->A, in->x, in->hx, lo, hi, est))
        return 0;
    double s = 0.0;
    for (size_t i = 0; i < in->k; i++)
        s += in->r[i];
    if (in->k > 0 && !dv_bound(in->A, s, (double)in->k * in->hr, lo, hi, est))
        return 0;
    return *lo <= *hi;
}

/* The counts for n drafts: each rate times n, within lo/hi, non-increasing,
 * then raised (front first) or lowered (back first) to sum to A. */
static int dv_counts(const dv_in *in, uint64_t n, const uint64_t *lo, const uint64_t *hi, dv_out *out)
{
    uint64_t sum = 0, *c = out->c;
    out->n = n;
    if (in->k == 0)
        return DV_OK;
    for (size_t i = 0; i < in->k; i++) {
        double v = fmin(fmax(round(in->r[i] * (double)n), (double)lo[i]), (double)hi[i]);
        c[i] = (uint64_t)v;
        if (i > 0 && c[i] > c[i - 1])
            c[i] = c[i - 1];
        sum += c[i];
    }
    uint64_t d = sum < in->A ? in->A - sum : sum - in->A;
    for (size_t i = 0; sum < in->A && i < in->k && d > 0; i++) {
        uint64_t cap = i > 0 && c[i - 1] < hi[i] ? c[i - 1] : hi[i], add = cap - c[i] < d ? cap - c[i] : d;
        c[i] += add, d -= add;
    }
    for (size_t i = in->k; sum > in->A && i-- > 0 && d > 0;) {
        uint64_t fl = i + 1 < in->k && c[i + 1] > lo[i] ? c[i + 1] : lo[i], sub = c[i] - fl < d ? c[i] - fl : d;
        c[i] -= sub, d -= sub;
    }
    return d == 0 ? DV_OK : DV_INCONSISTENT;
}

/* Among the feasible drafts in [lo, hi] (at most SEARCH_MAX tried), the one
 * nearest est; out->nlo, out->nhi: the feasible range (or [lo, hi] when too wide). */
static int dv_search(const dv_in *in, double lo, double hi, double est, dv_out *out)
{
    uint64_t l[MAXG], h[MAXG], best = 0;
    double bestd = INFINITY;
    int wide = hi - lo > SEARCH_MAX;
    double start = wide ? fmin(fmax(round(est), lo), hi) : lo;
    out->nlo = wide ? (uint64_t)lo : UINT64_MAX, out->nhi = wide ? (uint64_t)hi : 0;
    for (uint64_t t = 0; t <= SEARCH_MAX && (wide || start + (double)t <= hi); t++) {
        double cand[2] = { start + (double)t, start - (double)t };
        for (int j = 0; j < (wide && t > 0 ? 2 : 1); j++) {
            if (!(cand[j] >= lo && cand[j] <= hi) || !dv_feasible(in, (uint64_t)cand[j], l, h))
                continue;
            uint64_t n = (uint64_t)cand[j];
            if (!wide)
                out->nlo = n < out->nlo ? n : out->nlo, out->nhi = n > out->nhi ? n : out->nhi;
            if (fabs(cand[j] - est) < bestd)
                bestd = fabs(cand[j] - est), best = n;
        }
        if (wide && best > 0)
            break;
    }
    if (best == 0 || !dv_feasible(in, best, l, h))
        return DV_INCONSISTENT;
    return dv_counts(in, best, l, h, out);
}

/* The number of drafts and the per-position counts behind one printed line. */
static int dv_solve(const dv_in *in, dv_out *out)
{
    double lo, hi, est;
    uint64_t l[MAXG], h[MAXG];
    memset(out, 0, sizeof *out);
    if (!dv_range(in, &lo, &hi, &est))
        return DV_INCONSISTENT;
    if (in->full && in->kmax && in->D % in->kmax == 0) {
        uint64_t n0 = in->D / in->kmax;
        if ((double)n0 >= lo && (double)n0 <= hi && dv_feasible(in, n0, l, h)) {
            out->nlo = out->nhi = n0;
            out->full = hi - lo > SEARCH_MAX;
            for (double m = lo; m <= hi && !out->full; m++)
                out->full = (uint64_t)m != n0 && dv_feasible(in, (uint64_t)m, l, h);
            dv_feasible(in, n0, l, h);
            return dv_counts(in, n0, l, h, out);
        }
    }
    if (!isfinite(hi))
        return DV_UNKNOWN;
    return dv_search(in, lo, hi, isnan(est) ? (lo + hi) / 2.0 : est, out);
}

/* reached[] for one group of n drafts of at most kmax tokens, G tokens in
 * all, c[0..k-1] of them accepted through each position: at least one token
 * per draft, at least c[i] drafts at position i, the other tokens at the
 * earliest positions (drafts as equal in length as the counts allow).  0 if
 * the counts cannot be drafted. */
static int fill_reached(uint64_t n, uint64_t G, const uint64_t *c, size_t k, size_t kmax, double *reached)
{
    uint64_t r[MAXG] = { 0 }, sum = 0;
    if (kmax == 0 || kmax > MAXG || k > kmax || n == 0)
        return 0;
    for (size_t i = 0; i < kmax; i++) {
        r[i] = i == 0 ? n : (i < k ? c[i] : 0);
        if (i < k && c[i] > n)
            return 0;
        sum += r[i];
    }
    if (sum > G || (double)G > (double)n * (double)kmax)
        return 0;
    for (size_t i = 1, left = G - sum; i < kmax && left > 0; i++) {
        uint64_t add = n - r[i] < left ? n - r[i] : left;
        r[i] += add, left -= add;
    }
    for (size_t i = 0; i < kmax; i++)
        reached[i] += (double)r[i];
    return 1;
}

/* ---- sums of per-line counts (vLLM V1, llama.cpp) ----------------------------------------- */

typedef struct {
    double drafts, D, A, c[MAXG];
    size_t lines, ambiguous, full, no_positions;
    double nlo, nhi; /* the total drafts the ambiguous lines allow */
    size_t gamma;    /* the per-position rates' count (0: none yet) */
} acc_sum;

static void acc_add(acc_sum *s, const dv_in *in, const dv_out *o)
{
    s->lines++;
    s->drafts += (double)o->n, s->D += (double)in->D, s->A += (double)in->A;
    for (size_t i = 0; i < in->k; i++)
        s->c[i] += (double)o->c[i];
    s->no_positions += in->k == 0;
    s->full += o->full;
    s->ambiguous += !o->full && o->nhi > o->nlo;
    s->nlo += (double)(o->nhi > o->nlo ? o->nlo : o->n), s->nhi += (double)(o->nhi > o->nlo ? o->nhi : o->n);
}

/* Rates that rise with position cannot come from prefix counts. */
static sd_status rates_fall(const ctx *cx, size_t ln, const double *r, size_t k)
{
    for (size_t i = 1; i < k; i++)
        if (r[i] > r[i - 1])
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: the per-position acceptance rate rises from %.3g at position %zu to %.3g at %zu: "
                                  "impossible, a draft accepted through position %zu was accepted through %zu",
                                  cx->path, ln, r[i - 1], i, r[i], i + 1, i + 1, i);
    return SD_OK;
}

/* ---- vLLM V1 log lines ---------------------------------------------------------------------
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

typedef struct {
    uint64_t A, D;
    int has_A, has_D, has_L, has_P;
    double L, hL, P, hP;
    size_t k;
    double r[MAXG], hr;
} v1_line;

static sd_status v1_field(const ctx *cx, size_t ln, const char *key, size_t kn, const char *v, size_t vn, v1_line *o)
{
    double h = 0.0;
    int ok = 1;
    if (span_is(key, kn, "Accepted"))
        ok = parse_count_unit(v, vn, "tokens", &o->A) && !o->has_A++;
    else if (span_is(key, kn, "Drafted"))
        ok = parse_count_unit(v, vn, "tokens", &o->D) && !o->has_D++;
    else if (span_is(key, kn, "Mean acceptance length"))
        ok = parse_decimal(v, vn, &o->L, &o->hL) && !o->has_L++;
    else if (span_is(key, kn, "Draft acceptance rate") || span_is(key, kn, "Avg Draft acceptance rate"))
        ok = vn > 1 && v[vn - 1] == '%' && parse_decimal(v, vn - 1, &o->P, &o->hP) && !o->has_P++;
    else if (span_is(key, kn, "Per-position acceptance rate")) {
        ok = o->k == 0 && parse_decimal(v, vn, &o->r[0], &h) && o->r[0] >= 0.0 && o->r[0] <= 1.0;
        o->k = 1, o->hr = h;
    }
    if (!ok)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: vLLM 'SpecDecoding metrics' line: cannot read %.*s: '%.*s'",
                              cx->path, ln, (int)kn, key, (int)vn, v);
    return SD_OK;
}

static sd_status v1_parse(const ctx *cx, size_t ln, const char *body, v1_line *o)
{
    const char *it;
    size_t n;
    int in_rates = 0;
    memset(o, 0, sizeof *o);
    while (next_item(&body, &it, &n)) {
        const char *colon = memchr(it, ':', n);
        if (colon == NULL) { /* a further value of the last list */
            double x, h;
            if (!in_rates)
                continue;
            if (o->k == MAXG)
                return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: more than %d per-position rates: gamma beyond %d",
                                      cx->path, ln, MAXG, MAXG);
            if (!parse_decimal(it, n, &x, &h) || !(x >= 0.0 && x <= 1.0))
                return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: vLLM 'SpecDecoding metrics' line: cannot read the rate '%.*s'",
                                      cx->path, ln, (int)n, it);
            o->r[o->k++] = x, o->hr = fmax(o->hr, h);
            continue;
        }
        const char *key = it, *v = colon + 1;
        size_t kn = (size_t)(colon - it), vn = n - kn - 1;
        trim(&key, &kn), trim(&v, &vn);
        in_rates = span_is(key, kn, "Per-position acceptance rate");
        sd_status st = v1_field(cx, ln, key, kn, v, vn, o);
        if (st != SD_OK)
            return st;
    }
    if (!o->has_A || !o->has_D)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: vLLM 'SpecDecoding metrics' line without '%s: N tokens'", cx->path,
                              ln, o->has_A ? "Drafted" : "Accepted");
    return SD_OK;
}

/* The checks of one V1 line that need no derivation. */
static sd_status v1_check(const ctx *cx, size_t ln, const v1_line *o)
{
    if (o->A > o->D)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: Accepted %llu tokens exceeds Drafted %llu", cx->path, ln,
                              (unsigned long long)o->A, (unsigned long long)o->D);
    if (o->D > 0 && o->has_P && !(fabs(100.0 * (double)o->A / (double)o->D - o->P) <= widen(o->hP)))
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: the draft acceptance rate %.6g%% is not Accepted / Drafted = %.6g%%",
                              cx->path, ln, o->P, 100.0 * (double)o->A / (double)o->D);
    if (o->D > 0 && o->has_L && !(o->L >= 1.0 && isfinite(o->L)))
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: mean acceptance length %.6g is not a finite number >= 1", cx->path,
                              ln, o->L);
    if (o->D > 0 && o->k > 0 && cx->opt->gamma && o->k != cx->opt->gamma)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: gamma %zu was given, but the line has %zu per-position rates",
                              cx->path, ln, cx->opt->gamma, o->k);
    if (o->D > 0 && o->k == 0 && !o->has_L && cx->opt->gamma == 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: the line gives neither a mean acceptance length nor per-position rates: give gamma "
                              "(the number of speculative tokens) to take drafts = Drafted / gamma",
                              cx->path, ln);
    return rates_fall(cx, ln, o->r, o->k);
}

static sd_status v1_line_add(const ctx *cx, size_t ln, const v1_line *o, acc_sum *s)
{
    sd_status st = v1_check(cx, ln, o);
    if (st != SD_OK || (o->D == 0 && o->A == 0)) /* an interval without drafted tokens adds nothing */
        return st;
    if (o->k > 0 && s->gamma > 0 && o->k != s->gamma)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %zu per-position rates, but earlier lines have %zu", cx->path, ln,
                              o->k, s->gamma);
    dv_in in = { .A = o->A, .D = o->D, .has_x = o->has_L, .x = o->L - 1.0, .hx = o->hL, .k = o->k, .r = o->r,
                 .hr = o->hr, .kmax = o->k ? o->k : cx->opt->gamma, .full = 1, .c0 = -1 };
    dv_out out;
    int rc = dv_solve(&in, &out);
    if (rc != DV_OK)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: no whole number of drafts reproduces Accepted %llu, Drafted %llu%s%s as printed",
                              cx->path, ln, (unsigned long long)o->A, (unsigned long long)o->D,
                              o->has_L ? ", the mean acceptance length" : "", o->k ? " and the per-position rates" : "");
    s->gamma = o->k ? o->k : s->gamma;
    acc_add(s, &in, &out);
    return SD_OK;
}

/* Notes on how the drafts of summed lines were derived. */
static void derived_notes(sd_counts *c, const acc_sum *s, const char *what)
{
    if (s->full > 0)
        note(c, "On %zu %s the printed figures allow other numbers of drafts; there drafts = drafted tokens / %zu "
                "(every draft %zu tokens long, as with a draft model).",
             s->full, s->full == 1 ? what : "lines", c->gamma, c->gamma);
    if (s->ambiguous > 0)
        note(c, "On %zu lines the printed figures fit several numbers of drafts: the drafts summed lie in [%.0f, %.0f]; "
                "took %.0f (nearest the mean acceptance length).",
             s->ambiguous, s->nlo, s->nhi, c->drafts);
    if (s->ambiguous == 0 && s->full == 0)
        note(c, "The number of drafts on every line is the only whole number that reproduces its printed figures.");
}

static sd_status read_v1(const ctx *cx, const text *t, sd_counts *c)
{
    acc_sum s = { 0 };
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
        return sd_status_fail(cx->err, SD_EINVAL, "%s: no vLLM 'SpecDecoding metrics:' line with drafted tokens", cx->path);
    c->gamma = s.gamma ? s.gamma : cx->opt->gamma;
    if (c->gamma == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: the lines give no per-position rates: give gamma (the number of "
                                           "speculative tokens)", cx->path);
    c->drafts = s.drafts, c->draft_tokens = s.D, c->accepted_tokens = s.A;
    c->has_positions = s.no_positions == 0;
    for (size_t i = 0; i < c->gamma && i < MAXG; i++)
        c->accepted_at[i] = c->has_positions ? s.c[i] : 0.0, c->reached[i] = s.drafts;
    note(c, "Summed %zu vLLM V1 'SpecDecoding metrics' lines (each covers one logging interval).", s.lines);
    note(c, "Drafts per line derived from Accepted / (mean acceptance length - 1) and the per-position rates, which "
            "are printed rounded; per-position counts = rate x drafts, whole numbers within the printed rounding, "
            "adjusted to sum to Accepted.");
    derived_notes(c, &s, "line");
    if (s.no_positions > 0)
        note(c, "%zu lines have no per-position rates, so the counts have no positions.", s.no_positions);
    if (c->draft_tokens < c->drafts * (double)c->gamma)
        note(c, "Drafted tokens are fewer than drafts x %zu: some drafts were shorter; reached[i] = drafts, as vLLM "
                "divides each position's count by all drafts.", c->gamma);
    return SD_OK;
}

/* ---- vLLM V0 log lines ---------------------------------------------------------------------
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

typedef struct {
    uint64_t k, A, D, E;
    int has_k, has_A, has_D, has_E;
    size_t line;
} v0_line;

static sd_status v0_parse(const ctx *cx, size_t ln, const char *body, v0_line *o)
{
    char buf[1024];
    size_t bn = strlen(body);
    const char *it, *p = buf;
    size_t n;
    memset(o, 0, sizeof *o);
    o->line = ln;
    if (bn >= sizeof buf)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: vLLM 'Speculative metrics' line too long", cx->path, ln);
    memcpy(buf, body, bn + 1);
    while (bn > 0 && (blank(buf[bn - 1]) || buf[bn - 1] == '.')) /* the closing period */
        buf[--bn] = '\0';
    while (next_item(&p, &it, &n)) {
        const char *colon = memchr(it, ':', n), *v = colon ? colon + 1 : it;
        size_t kn = colon ? (size_t)(colon - it) : n, vn = n - kn - (colon != NULL);
        uint64_t *dst = NULL;
        int *has = NULL;
        trim(&v, &vn);
        if (span_is(it, kn, "Number of speculative tokens"))
            dst = &o->k, has = &o->has_k;
        else if (span_is(it, kn, "Number of accepted tokens"))
            dst = &o->A, has = &o->has_A;
        else if (span_is(it, kn, "Number of draft tokens") || span_is(it, kn, "Number of draft tokens tokens"))
            dst = &o->D, has = &o->has_D;
        else if (span_is(it, kn, "Number of emitted tokens") || span_is(it, kn, "Number of emitted tokens tokens"))
            dst = &o->E, has = &o->has_E;
        if (dst != NULL && (*has || !parse_count(v, vn, dst)))
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: vLLM 'Speculative metrics' line: cannot read %.*s: '%.*s'",
                                  cx->path, ln, (int)kn, it, (int)vn, v);
        if (has != NULL)
            *has = 1;
    }
    if (!o->has_k || !o->has_A || !o->has_D)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: vLLM 'Speculative metrics' line without the number of %s", cx->path,
                              ln, !o->has_k ? "speculative tokens" : !o->has_A ? "accepted tokens" : "draft tokens");
    if (o->k < 1 || o->k > MAXG)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %llu speculative tokens: gamma must be in [1, %d]", cx->path, ln,
                              (unsigned long long)o->k, MAXG);
    if (o->A > o->D || o->D % o->k != 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %llu accepted of %llu draft tokens with %llu speculative tokens: "
                                           "expected accepted <= draft tokens, a multiple of %llu",
                              cx->path, ln, (unsigned long long)o->A, (unsigned long long)o->D, (unsigned long long)o->k,
                              (unsigned long long)o->k);
    return SD_OK;
}

typedef struct {
    size_t lines, runs, gamma;
    double drafts, D, A, E;
    int all_E;
} v0_sum;

/* Adds the last line of a run. */
static sd_status v0_run(const ctx *cx, const v0_line *o, v0_sum *s)
{
    if (s->gamma && o->k != s->gamma)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %llu speculative tokens, but an earlier run had %zu", cx->path,
                              o->line, (unsigned long long)o->k, s->gamma);
    if (cx->opt->gamma && o->k != cx->opt->gamma)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: gamma %zu was given, but the line has %llu speculative tokens",
                              cx->path, o->line, cx->opt->gamma, (unsigned long long)o->k);
    s->gamma = (size_t)o->k;
    s->runs++;
    s->drafts += (double)(o->D / o->k), s->D += (double)o->D, s->A += (double)o->A, s->E += (double)o->E;
    s->all_E &= o->has_E;
    return SD_OK;
}

static sd_status read_v0(const ctx *cx, const text *t, sd_counts *c)
{
    v0_sum s = { .all_E = 1 };
    v0_line prev = { 0 }, o;
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
        prev = o, s.lines++;
    }
    if (s.lines == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: no vLLM 'Speculative metrics:' line", cx->path);
    if ((st = v0_run(cx, &prev, &s)) != SD_OK)
        return st;
    c->kind = SD_COUNTS_ANY;
    c->gamma = s.gamma, c->drafts = s.drafts, c->draft_tokens = s.D, c->accepted_tokens = s.A;
    for (size_t i = 0; i < c->gamma; i++)
        c->reached[i] = s.drafts;
    note(c, "vLLM V0 counts are cumulative since the engine started: used the last of the %zu 'Speculative metrics' "
            "lines of each of %zu run%s (a run restarts where a count decreases) and summed the runs.",
         s.lines, s.runs, s.runs == 1 ? "" : "s");
    note(c, "Drafts = draft tokens / %zu speculative tokens.", s.gamma);
    note(c, "V0 counts every draft position that passed its own test, also after a rejection (kind any), and prints "
            "no per-position counts.");
    if (s.all_E)
        note(c, "Its %.0f emitted tokens are not used.", s.E);
    return SD_OK;
}

/* ---- llama.cpp server logs -----------------------------------------------------------------
 * Source: ggml-org/llama.cpp, tools/server/server-context.cpp (server_slot::print_timings, and
 * the verification in update_slots / post_decode) and common/speculative.cpp
 * (common_speculative_print_stats); docs/speculative.md ("Statistics").  Per request (a slot's
 * counts are cleared in server_slot::reset), when it drafted anything:
 *   "draft acceptance rate = %0.5f (%5d accepted / %5d generated)"                 (older)
 *   "draft acceptance = %0.5f (%5d accepted / %5d generated), mean acceptance length = %5.2f,
 *    acceptance rate per position = (%s)"
 *   "draft acceptance = %0.5f (%5d accepted / %5d generated), mean len = %5.2f"
 *   "     acc per pos = (%s)"                       (the next line, at trace verbosity, -v)
 * generated = the tokens of all drafts (n_draft_tokens += draft.size(): drafts can be shorter
 * than --draft-max), accepted = the accepted prefixes, mean length = 1 + accepted /
 * verification steps, rates = "%.3f" of n_accepted_per_pos[i] / steps where n_accepted_per_pos
 * (sized --draft-max) counts the steps that accepted more than i tokens.  These lines are
 * summed.  Per speculative implementation, cumulative since the server started:
 *   "statistics NAME: #calls(b,g,a) = %zu %zu %zu, #gen drafts = %zu, #acc drafts = %zu,
 *    #gen tokens = %zu, #acc tokens = %zu[, #mean acc len = %.2f, #acc rate/pos = (%.3f, ...)]
 *    [, dur(b,g,a) = ...]"                      (older: "#calls = %zu", no mean or rates)
 * where the accept calls a are the verification steps, #acc drafts the steps that accepted at
 * least one token and the rates' vector grows to the longest accepted prefix seen.  They are
 * used (the last line of each implementation and run) only when the per-request lines cannot
 * give the number of drafts.  Neither records each draft's length, only the drafted tokens in
 * all: how many drafts reached each position is assumed (fill_reached, stated in the notes). */

typedef struct {
    size_t line;
    uint64_t A, G;
    int has_L, has_r;
    double L, hL;
    size_t k;
    double r[MAXG], hr;
} ll_req;

typedef struct {
    size_t line;
    char name[48];
    int has_calls3, has_mean, has_r;
    uint64_t calls_a, gen_drafts, acc_drafts, gen_tokens, acc_tokens;
    double mean, hmean;
    size_t k;
    double r[MAXG], hr;
} ll_stat;

typedef struct {
    ll_req *req;
    size_t nreq, capreq;
    ll_stat *stat; /* [0, nfin): the finals (last line of a run); then the latest per implementation */
    size_t nfin, nlast, capstat;
    size_t stat_lines;
} ll_log;

enum { LL_NONE, LL_REQ, LL_POS, LL_STAT };

/* Which llama.cpp line this is; *after: just past its marker. */
static int ll_kind(const char *line, const char **after)
{
    const char *m = strstr(line, "draft acceptance");
    if (m != NULL) {
        const char *s = m + strlen("draft acceptance");
        s += strncmp(s, " rate", 5) == 0 ? 5 : 0;
        if (*skip_blank(s) == '=')
            return *after = s, LL_REQ;
    }
    if ((m = strstr(line, "acc per pos")) != NULL && *skip_blank(m + strlen("acc per pos")) == '=')
        return *after = skip_blank(m + strlen("acc per pos")) + 1, LL_POS;
    if ((m = strstr(line, "statistics ")) != NULL && strstr(m, "#gen drafts") != NULL)
        return *after = m + strlen("statistics "), LL_STAT;
    return LL_NONE;
}

/* Skips blanks and the literal word; NULL if it is not there. */
static const char *lit(const char *s, const char *word)
{
    if (s == NULL)
        return NULL;
    s = skip_blank(s);
    return strncmp(s, word, strlen(word)) == 0 ? s + strlen(word) : NULL;
}

/* Skips blanks and takes a token up to a blank or one of "(),/"; NULL if empty. */
static const char *token(const char *s, const char **tok, size_t *n)
{
    if (s == NULL)
        return NULL;
    s = skip_blank(s);
    *tok = s;
    while (*s && !blank(*s) && !strchr("(),/", *s))
        s++;
    *n = (size_t)(s - *tok);
    return *n ? s : NULL;
}

/* "(r, ...)" as the value of an item. */
static int paren_rates(const char *v, size_t vn, double *r, size_t *k, double *h)
{
    return vn >= 2 && v[0] == '(' && v[vn - 1] == ')' && parse_rates(v + 1, vn - 2, r, k, h) && *k <= MAXG;
}

static sd_status ll_req_rest(const ctx *cx, const char *s, ll_req *o)
{
    const char *it;
    size_t n;
    while (next_item(&s, &it, &n)) {
        const char *eq = memchr(it, '=', n), *key = it, *v = eq ? eq + 1 : it;
        size_t kn = eq ? (size_t)(eq - it) : n, vn = eq ? n - kn - 1 : 0;
        int ok = n == 0;
        trim(&key, &kn), trim(&v, &vn);
        if (eq != NULL && (span_is(key, kn, "mean acceptance length") || span_is(key, kn, "mean len")))
            ok = !o->has_L++ && parse_decimal(v, vn, &o->L, &o->hL);
        else if (eq != NULL && span_is(key, kn, "acceptance rate per position"))
            ok = !o->has_r++ && paren_rates(v, vn, o->r, &o->k, &o->hr);
        else if (eq != NULL)
            ok = 1; /* a field of a later version */
        if (!ok)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: llama.cpp 'draft acceptance' line: cannot read '%.*s'", cx->path,
                                  o->line, (int)n, it);
    }
    return SD_OK;
}

static sd_status ll_req_parse(const ctx *cx, size_t ln, const char *s, ll_req *o)
{
    const char *tok, *tA = NULL, *tG = NULL;
    size_t tn = 0, nA = 0, nG = 0;
    double R = 0.0, hR = 0.0;
    memset(o, 0, sizeof *o);
    o->line = ln;
    s = token(lit(s, "="), &tok, &tn);
    int ok = s != NULL && parse_decimal(tok, tn, &R, &hR);
    s = token(lit(s, "("), &tA, &nA);
    s = token(lit(lit(s, "accepted"), "/"), &tG, &nG);
    s = lit(lit(s, "generated"), ")");
    if (!ok || s == NULL || !parse_count(tA, nA, &o->A) || !parse_count(tG, nG, &o->G))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: llama.cpp 'draft acceptance' line: expected '= RATE (A accepted / G generated)'",
                              cx->path, ln);
    sd_status st = ll_req_rest(cx, s, o);
    if (st != SD_OK)
        return st;
    if (o->G == 0 || o->A > o->G || !(fabs((double)o->A / (double)o->G - R) <= widen(hR) + 1e-6))
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %llu accepted of %llu generated tokens at a rate of %.6g: expected "
                                           "0 < generated, accepted <= generated and rate = accepted / generated",
                              cx->path, ln, (unsigned long long)o->A, (unsigned long long)o->G, R);
    if (o->has_L && !(o->L >= 1.0 && isfinite(o->L)))
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: mean acceptance length %.6g is not a finite number >= 1", cx->path,
                              ln, o->L);
    return rates_fall(cx, ln, o->r, o->k);
}

/* The value of a statistics field: counts (three for "#calls(b,g,a)"). */
static int ll_stat_field(const char *key, size_t kn, const char *v, size_t vn, ll_stat *o)
{
    uint64_t *dst = NULL;
    if (span_is(key, kn, "#calls(b,g,a)")) {
        const char *t, *s = v;
        size_t tn;
        uint64_t x[3];
        for (int i = 0; i < 3; i++)
            if ((s = token(s, &t, &tn)) == NULL || (size_t)(t - v) + tn > vn || !parse_count(t, tn, &x[i]))
                return 0;
        o->calls_a = x[2];
        while (s < v + vn && blank(*s))
            s++;
        return s == v + vn && !o->has_calls3++;
    }
    if (span_is(key, kn, "#mean acc len"))
        return !o->has_mean++ && parse_decimal(v, vn, &o->mean, &o->hmean);
    if (span_is(key, kn, "#acc rate/pos"))
        return !o->has_r++ && paren_rates(v, vn, o->r, &o->k, &o->hr);
    dst = span_is(key, kn, "#gen drafts")   ? &o->gen_drafts
          : span_is(key, kn, "#acc drafts") ? &o->acc_drafts
          : span_is(key, kn, "#gen tokens") ? &o->gen_tokens
          : span_is(key, kn, "#acc tokens") ? &o->acc_tokens
                                            : NULL;
    return dst == NULL || parse_count(v, vn, dst);
}

static sd_status ll_stat_parse(const ctx *cx, size_t ln, const char *s, ll_stat *o)
{
    const char *colon = strchr(s, ':'), *name = s, *it;
    size_t nn = colon ? (size_t)(colon - s) : 0, n;
    unsigned seen = 0;
    memset(o, 0, sizeof *o);
    o->line = ln;
    trim(&name, &nn);
    if (colon == NULL || nn == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: llama.cpp 'statistics' line without 'NAME:'", cx->path, ln);
    snprintf(o->name, sizeof o->name, "%.*s", (int)nn, name);
    for (s = colon + 1; next_item(&s, &it, &n);) {
        const char *eq = memchr(it, '=', n), *key = it, *v = eq ? eq + 1 : it;
        size_t kn = eq ? (size_t)(eq - it) : n, vn = eq ? n - kn - 1 : 0;
        if (eq == NULL)
            continue; /* the further values of dur(b,g,a) */
        trim(&key, &kn), trim(&v, &vn);
        seen |= (unsigned)span_is(key, kn, "#gen drafts") | (unsigned)span_is(key, kn, "#acc drafts") << 1 |
                (unsigned)span_is(key, kn, "#gen tokens") << 2 | (unsigned)span_is(key, kn, "#acc tokens") << 3;
        if (!ll_stat_field(key, kn, v, vn, o))
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: llama.cpp 'statistics' line: cannot read '%.*s'", cx->path, ln,
                                  (int)n, it);
    }
    if (seen != 15)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: llama.cpp 'statistics' line without #gen drafts, #acc drafts, "
                                           "#gen tokens and #acc tokens", cx->path, ln);
    return rates_fall(cx, ln, o->r, o->k);
}

static int ll_stat_less(const ll_stat *b, const ll_stat *a) /* b's counts below a's: a restart */
{
    return b->calls_a < a->calls_a || b->gen_drafts < a->gen_drafts || b->acc_drafts < a->acc_drafts ||
           b->gen_tokens < a->gen_tokens || b->acc_tokens < a->acc_tokens;
}

/* Keeps the latest statistics line per implementation; a decrease closes a run. */
static sd_status ll_stat_add(const ctx *cx, ll_log *lg, const ll_stat *o)
{
    size_t i = lg->nfin;
    while (i < lg->nfin + lg->nlast && strcmp(lg->stat[i].name, o->name) != 0)
        i++;
    if (i < lg->nfin + lg->nlast && !ll_stat_less(o, &lg->stat[i])) {
        lg->stat[i] = *o;
        return SD_OK;
    }
    if (lg->nfin + lg->nlast + 1 > lg->capstat) {
        size_t cap = lg->capstat ? 2 * lg->capstat : 16;
        ll_stat *ns = realloc(lg->stat, cap * sizeof *ns);
        if (ns == NULL)
            return sd_status_fail(cx->err, SD_ENOMEM, "%s: out of memory", cx->path);
        lg->stat = ns, lg->capstat = cap;
    }
    if (i < lg->nfin + lg->nlast) { /* a restart: the old line becomes a final, the new one the latest */
        ll_stat old = lg->stat[i];
        memmove(&lg->stat[lg->nfin + 1], &lg->stat[lg->nfin], lg->nlast * sizeof *lg->stat);
        lg->stat[lg->nfin++] = old;
        i++;
        lg->stat[i] = *o;
        return SD_OK;
    }
    lg->stat[lg->nfin + lg->nlast++] = *o;
    return SD_OK;
}

static sd_status ll_push_req(const ctx *cx, ll_log *lg, const ll_req *o)
{
    if (lg->nreq == lg->capreq) {
        size_t cap = lg->capreq ? 2 * lg->capreq : 64;
        ll_req *nr = realloc(lg->req, cap * sizeof *nr);
        if (nr == NULL)
            return sd_status_fail(cx->err, SD_ENOMEM, "%s: out of memory", cx->path);
        lg->req = nr, lg->capreq = cap;
    }
    lg->req[lg->nreq++] = *o;
    return SD_OK;
}

static sd_status ll_scan(const ctx *cx, const text *t, ll_log *lg)
{
    sd_status st = SD_OK;
    for (size_t i = 0; i < t->n && st == SD_OK; i++) {
        const char *after;
        int kind = ll_kind(t->line[i], &after);
        if (kind == LL_REQ) {
            ll_req o;
            if ((st = ll_req_parse(cx, i + 1, after, &o)) == SD_OK)
                st = ll_push_req(cx, lg, &o);
        } else if (kind == LL_POS) {
            ll_req *o = lg->nreq ? &lg->req[lg->nreq - 1] : NULL;
            const char *v = after;
            size_t vn = strlen(v);
            trim(&v, &vn);
            if (o == NULL || o->has_r)
                st = sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: 'acc per pos' without its 'draft acceptance' line", cx->path,
                                    i + 1);
            else if (!paren_rates(v, vn, o->r, &o->k, &o->hr))
                st = sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: llama.cpp 'acc per pos' line: cannot read '%s'", cx->path,
                                    i + 1, v);
            else
                o->has_r = 1, st = rates_fall(cx, i + 1, o->r, o->k);
        } else if (kind == LL_STAT) {
            ll_stat o;
            lg->stat_lines++;
            if ((st = ll_stat_parse(cx, i + 1, after, &o)) == SD_OK)
                st = ll_stat_add(cx, lg, &o);
        }
    }
    lg->nfin += lg->nlast, lg->nlast = 0; /* the latest lines end their runs */
    return st;
}

/* Adds one group of drafts (a request, or an implementation's run) to s and reached. */
static sd_status ll_group(const ctx *cx, size_t ln, const dv_in *in, size_t kfixed, acc_sum *s, double *reached,
                          size_t *gamma, int *shorter)
{
    dv_out o;
    int rc = dv_solve(in, &o);
    if (rc != DV_OK)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: no whole number of drafts reproduces the %llu accepted and %llu "
                                           "generated tokens, the mean length and the rates as printed",
                              cx->path, ln, (unsigned long long)in->A, (unsigned long long)in->D);
    size_t g = kfixed ? kfixed : (size_t)((in->D + o.n - 1) / o.n);
    g = in->k > g ? in->k : g;
    if (g > MAXG)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %llu generated tokens in %llu drafts: gamma beyond %d", cx->path, ln,
                              (unsigned long long)in->D, (unsigned long long)o.n, MAXG);
    if (!fill_reached(o.n, in->D, o.c, in->k, g, reached))
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %llu generated tokens cannot make %llu drafts of at most %zu tokens "
                                           "with the accepted counts printed",
                              cx->path, ln, (unsigned long long)in->D, (unsigned long long)o.n, g);
    *gamma = g > *gamma ? g : *gamma;
    *shorter |= (double)in->D < (double)o.n * (double)g;
    acc_add(s, in, &o);
    return SD_OK;
}

static sd_status ll_use_requests(const ctx *cx, const ll_log *lg, acc_sum *s, double *reached, size_t *gamma,
                                 int *shorter)
{
    for (size_t i = 0; i < lg->nreq; i++) {
        const ll_req *q = &lg->req[i];
        if (q->k > 0 && cx->opt->gamma && q->k != cx->opt->gamma)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: gamma %zu was given, but the line has %zu per-position rates",
                                  cx->path, q->line, cx->opt->gamma, q->k);
        dv_in in = { .A = q->A, .D = q->G, .has_x = q->has_L, .x = q->L - 1.0, .hx = q->hL, .k = q->k, .r = q->r,
                     .hr = q->hr, .kmax = q->k ? q->k : cx->opt->gamma, .c0 = -1 };
        sd_status st = ll_group(cx, q->line, &in, in.kmax, s, reached, gamma, shorter);
        if (st != SD_OK)
            return st;
    }
    return SD_OK;
}

static sd_status ll_use_stats(const ctx *cx, const ll_log *lg, acc_sum *s, double *reached, size_t *gamma,
                              int *shorter)
{
    for (size_t i = 0; i < lg->nfin; i++) {
        const ll_stat *f = &lg->stat[i];
        uint64_t n = f->has_calls3 ? f->calls_a : f->gen_drafts;
        if (n == 0)
            continue; /* the implementation never had a draft verified */
        if (f->acc_drafts > n || f->acc_tokens > f->gen_tokens || f->gen_tokens < n)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %llu drafts, %llu accepted drafts, %llu generated and %llu "
                                               "accepted tokens: expected accepted drafts <= drafts <= generated "
                                               "tokens, accepted <= generated tokens",
                                  cx->path, f->line, (unsigned long long)n, (unsigned long long)f->acc_drafts,
                                  (unsigned long long)f->gen_tokens, (unsigned long long)f->acc_tokens);
        if (cx->opt->gamma && f->k > cx->opt->gamma)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: gamma %zu was given, but the line has %zu per-position rates",
                                  cx->path, f->line, cx->opt->gamma, f->k);
        dv_in in = { .A = f->acc_tokens, .D = f->gen_tokens, .has_x = f->has_mean, .x = f->mean - 1.0, .hx = f->hmean,
                     .k = f->k, .r = f->r, .hr = f->hr, .n_fixed = n, .c0 = f->k ? (int64_t)f->acc_drafts : -1 };
        sd_status st = ll_group(cx, f->line, &in, cx->opt->gamma, s, reached, gamma, shorter);
        if (st != SD_OK)
            return st;
    }
    if (s->lines == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: the llama.cpp 'statistics' lines count no verified draft", cx->path);
    return SD_OK;
}

static void ll_notes(sd_counts *c, const ll_log *lg, const acc_sum *s, int from_stats)
{
    if (!from_stats) {
        note(c, "Summed %zu llama.cpp per-request 'draft acceptance' lines.", s->lines);
        note(c, "Drafts per request derived from accepted / (mean acceptance length - 1) and the per-position rates, "
                "which are printed rounded; per-position counts = rate x drafts, whole numbers within the printed "
                "rounding, adjusted to sum to the accepted tokens.");
        derived_notes(c, s, "request");
        if (lg->stat_lines > 0)
            note(c, "The %zu 'statistics' lines were not used: they count the same drafts cumulatively.",
                 lg->stat_lines);
    } else {
        note(c, "Used the last llama.cpp 'statistics' line of each of %zu implementation runs (cumulative since "
                "llama-server started; a run restarts where a count decreases) and summed them.", s->lines);
        note(c, "Drafts = the accept calls of '#calls(b,g,a)' (older lines without it: '#gen drafts', assuming every "
                "generated draft was verified); per-position counts = '#acc rate/pos' x drafts within the printed "
                "rounding, position 1 = '#acc drafts'.");
        if (lg->nreq > 0)
            note(c, "The 'draft acceptance' lines were not used: one gives no mean acceptance length.");
    }
    if (s->no_positions > 0)
        note(c, "%zu of them print no per-position rates, so the counts have no positions.", s->no_positions);
    if (c->reached_assumed)
        note(c, "llama.cpp drafts can stop before the longest draft (%zu here), and the log gives only the tokens of all "
                "drafts together, not each draft's length: reached[i] (drafts that reached position i+1) assumes the "
                "drafts as equal in length as the counts allow -- every draft at least one token, at least "
                "accepted_at[i] drafts at position i+1, the remaining drafted tokens at the earliest positions. A "
                "draft that stopped early is censored there, not rejected.",
             c->gamma);
}

static sd_status read_llama(const ctx *cx, const text *t, sd_counts *c)
{
    ll_log lg = { 0 };
    acc_sum s = { 0 };
    double reached[MAXG] = { 0 };
    size_t gamma = 0, bad = SIZE_MAX;
    int shorter = 0, from_stats = 0;
    sd_status st = ll_scan(cx, t, &lg);
    for (size_t i = 0; st == SD_OK && i < lg.nreq && bad == SIZE_MAX; i++)
        if (!lg.req[i].has_L && lg.req[i].k == 0)
            bad = i;
    if (st == SD_OK && lg.nreq > 0 && bad == SIZE_MAX)
        st = ll_use_requests(cx, &lg, &s, reached, &gamma, &shorter);
    else if (st == SD_OK && lg.nfin > 0)
        from_stats = 1, st = ll_use_stats(cx, &lg, &s, reached, &gamma, &shorter);
    else if (st == SD_OK && lg.nreq > 0)
        st = sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: this llama.cpp line gives no mean acceptance length, so its number "
                                         "of drafts is unknown (llama-server -v adds 'statistics' lines that count them)",
                            cx->path, lg.req[bad].line);
    else if (st == SD_OK)
        st = sd_status_fail(cx->err, SD_EINVAL, "%s: no llama.cpp 'draft acceptance' or 'statistics' line", cx->path);
    if (st == SD_OK) {
        c->gamma = gamma;
        c->drafts = s.drafts, c->draft_tokens = s.D, c->accepted_tokens = s.A;
        c->has_positions = s.no_positions == 0;
        for (size_t i = 0; i < gamma; i++)
            c->accepted_at[i] = c->has_positions ? s.c[i] : 0.0, c->reached[i] = reached[i];
        c->reached_assumed = shorter;
        ll_notes(c, &lg, &s, from_stats);
    }
    free(lg.req);
    free(lg.stat);
    return st;
}

/* ---- Prometheus text exposition ------------------------------------------------------------
 * Source: https://prometheus.io/docs/instrumenting/exposition_formats/ ("Text format details"):
 * lines end with '\n' (a CR before it is dropped here); blank lines are ignored; tokens are
 * separated by blanks and tabs, leading and trailing ones ignored.  '#' starts a comment; the
 * comments "# HELP name docstring" (docstring escapes \\ and \n) and "# TYPE name counter|gauge|
 * histogram|summary|untyped" are checked.  A sample is
 *   metric_name [ "{" label_name "=" `"` label_value `"` { "," ... } [ "," ] "}" ] value [ timestamp ]
 * or "{" `"`metric_name`"` [ "," labels ] "}" value [ timestamp ] for names outside the legacy
 * character set (label names may be quoted too); label values escape backslash, double quote and
 * line feed as \\, \" and \n (no other escape); value is a float as Go's ParseFloat reads it
 * (NaN, +Inf, -Inf valid; hexadecimal floats are not accepted here), timestamp an int64.
 * prometheus_client (prometheus/client_python, prometheus_client/exposition.py, generate_latest)
 * exposes a counter x as samples x_total under "# TYPE x_total counter" (plus x_created), so the
 * names are read with or without "_total".  vLLM's counters: vllm/v1/spec_decode/metrics.py,
 * SpecDecodingProm (the engine's labels, e.g. model_name and engine, plus position="0".."k-1"
 * on ..._per_pos).  Series that differ in other labels are summed unless opt->select picks one. */

typedef struct {
    int counter, pos; /* pos: the position label of ..._per_pos, else -1 */
    char *key;        /* the other labels, sorted by name and escaped: a="x",b="y" */
    double value;
    size_t line;
} pseries;

typedef struct {
    pseries *s;
    size_t n, cap;
    int v0; /* vLLM V0's vllm:spec_decode_num_emitted_tokens was seen */
} pscrape;

typedef struct {
    const char *name, *val;
    size_t nn, vn;
} plabel;

typedef struct {
    const char *name, *val; /* opt->select split; name NULL when not given */
    size_t nn, vn;
} psel;

typedef struct {
    const ctx *cx;
    const char *path;
    size_t line;
    char *scratch; /* the current line's decoded names and values */
    const psel *sel;
    pscrape *out;
} pctx;

#define PLABELS 64

static int counter_of(const char *name, size_t n)
{
    for (int i = 0; i < C_N; i++) {
        size_t m = strlen(COUNTERS[i].name);
        if (memcmp(name, COUNTERS[i].name, n < m ? n : m) == 0 &&
            (n == m || (n == m + 6 && memcmp(name + m, "_total", 6) == 0)))
            return i;
    }
    return -1;
}

static sd_status p_bad(const pctx *pc, const char *what)
{
    return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: malformed exposition line: %s", pc->path, pc->line, what);
}

static int ident_char(char ch, int first, int metric)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (metric && ch == ':') ||
           (!first && ch >= '0' && ch <= '9');
}

/* A quoted string at s, decoded into *scratch (advanced); just past it, or NULL. */
static const char *p_quoted(const char *s, char **scratch, const char **val, size_t *n)
{
    char *o = *scratch;
    if (*s != '"')
        return NULL;
    *val = o;
    for (s++; *s != '"'; s++) {
        if (*s == '\0')
            return NULL;
        if (*s == '\\') {
            s++;
            if (*s != '\\' && *s != '"' && *s != 'n')
                return NULL;
            *o++ = *s == 'n' ? '\n' : *s;
        } else {
            *o++ = *s;
        }
    }
    *n = (size_t)(o - *val), *scratch = o;
    return s + 1;
}

/* A metric or label name, plain or quoted; just past it, or NULL. */
static const char *p_name(const char *s, int metric, char **scratch, const char **name, size_t *n)
{
    if (*s == '"')
        return p_quoted(s, scratch, name, n);
    if (!ident_char(*s, 1, metric))
        return NULL;
    *name = s;
    while (ident_char(*s, 0, metric))
        s++;
    *n = (size_t)(s - *name);
    return s;
}

/* The label set after '{': the labels into lb (the first PLABELS; *nlb counts all), a leading
 * quoted metric name into *mname when mname is not NULL.  Just past '}', or NULL. */
static const char *p_labels(const char *s, char **scratch, plabel *lb, size_t *nlb, const char **mname, size_t *mn)
{
    size_t n = 0;
    for (int first = 1;; first = 0) {
        const char *ln, *v, *t;
        size_t lnn, vn;
        if (*(s = skip_blank(s)) == '}')
            break;
        if ((t = p_name(s, 0, scratch, &ln, &lnn)) == NULL)
            return NULL;
        if (*(t = skip_blank(t)) != '=') { /* "{"name", ...}" */
            if (!first || *s != '"' || mname == NULL)
                return NULL;
            *mname = ln, *mn = lnn, s = t;
        } else {
            if ((t = p_quoted(skip_blank(t + 1), scratch, &v, &vn)) == NULL)
                return NULL;
            if (n < PLABELS)
                lb[n] = (plabel){ ln, v, lnn, vn };
            n++, s = skip_blank(t);
        }
        if (*s == '}')
            break;
        if (*s++ != ',')
            return NULL;
    }
    *nlb = n;
    return s + 1;
}

/* A float as Go's strconv.ParseFloat reads it (decimal, or inf, infinity, nan in any case). */
static int go_float(const char *s, size_t n, double *x)
{
    char buf[400];
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    const char *p = buf + (buf[0] == '+' || buf[0] == '-');
    if (strcasecmp(p, "inf") == 0 || strcasecmp(p, "infinity") == 0 || strcasecmp(p, "nan") == 0) {
        *x = (p[0] | 0x20) == 'n' ? NAN : buf[0] == '-' ? -INFINITY : INFINITY;
        return 1;
    }
    size_t i = 0, d = 0, e = 0;
    for (; p[i] >= '0' && p[i] <= '9'; i++)
        d++;
    if (p[i] == '.')
        for (i++; p[i] >= '0' && p[i] <= '9'; i++)
            d++;
    if (d > 0 && (p[i] == 'e' || p[i] == 'E')) {
        i += 1 + (p[i + 1] == '+' || p[i + 1] == '-');
        for (; p[i] >= '0' && p[i] <= '9'; i++)
            e++;
        if (e == 0)
            return 0;
    }
    if (d == 0 || p[i] != '\0')
        return 0;
    errno = 0;
    *x = strtod(buf, NULL);
    return !(errno == ERANGE && isinf(*x));
}

/* Appends s[0..n-1] escaped as a label value (\\, \", \n) at *o. */
static void p_escape(char **o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' || s[i] == '"' || s[i] == '\n')
            *(*o)++ = '\\';
        *(*o)++ = s[i] == '\n' ? 'n' : s[i];
    }
}

static int plabel_before(const plabel *a, const plabel *b)
{
    int c = memcmp(a->name, b->name, a->nn < b->nn ? a->nn : b->nn);
    return c < 0 || (c == 0 && a->nn < b->nn);
}

/* The labels but skip (or none), sorted by name: a="x",b="y"; NULL when out of memory. */
static char *p_key(const plabel *lb, size_t n, size_t skip)
{
    size_t idx[PLABELS], size = 1, m = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == skip)
            continue;
        size_t j = m++;
        for (; j > 0 && plabel_before(&lb[i], &lb[idx[j - 1]]); j--)
            idx[j] = idx[j - 1];
        idx[j] = i;
        size += 2 * (lb[i].nn + lb[i].vn) + 4;
    }
    char *key = malloc(size), *o = key;
    if (key == NULL)
        return NULL;
    for (size_t j = 0; j < m; j++) {
        const plabel *l = &lb[idx[j]];
        if (j > 0)
            *o++ = ',';
        p_escape(&o, l->name, l->nn);
        *o++ = '=', *o++ = '"';
        p_escape(&o, l->val, l->vn);
        *o++ = '"';
    }
    *o = '\0';
    return key;
}

/* The position label of ..._per_pos (*at: its index), and whether the series is selected. */
static sd_status p_labels_check(const pctx *pc, int c, const plabel *lb, size_t n, int *pos, size_t *at, int *selected)
{
    *pos = -1, *at = SIZE_MAX, *selected = pc->sel->name == NULL;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++)
            if (lb[j].nn == lb[i].nn && memcmp(lb[j].name, lb[i].name, lb[i].nn) == 0)
                return p_bad(pc, "a label name repeats");
        if (pc->sel->name && lb[i].nn == pc->sel->nn && memcmp(lb[i].name, pc->sel->name, lb[i].nn) == 0 &&
            lb[i].vn == pc->sel->vn && memcmp(lb[i].val, pc->sel->val, lb[i].vn) == 0)
            *selected = 1;
        if (c != C_PER_POS || !span_is(lb[i].name, lb[i].nn, "position"))
            continue;
        uint64_t p;
        if (!parse_count(lb[i].val, lb[i].vn, &p) || (lb[i].vn > 1 && lb[i].val[0] == '0'))
            return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: %s: the position label is not a whole number", pc->path,
                                  pc->line, COUNTERS[c].name);
        if (p >= MAXG)
            return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: %s: position %llu: gamma beyond %d", pc->path, pc->line,
                                  COUNTERS[c].name, (unsigned long long)p, MAXG);
        *pos = (int)p, *at = i;
    }
    if (c == C_PER_POS && *pos < 0)
        return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: %s without a position label", pc->path, pc->line,
                              COUNTERS[c].name);
    return SD_OK;
}

/* Records a sample of one of vLLM's counters. */
static sd_status p_keep(pctx *pc, int c, const plabel *lb, size_t n, double x, const char *v, size_t vn)
{
    int pos, selected;
    size_t at;
    if (n > PLABELS)
        return p_bad(pc, "more than 64 labels on a speculative-decoding counter");
    if (!(x >= 0.0 && x <= COUNT_MAX && floor(x) >= x))
        return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: %s: %.*s is not a whole count in [0, 2^53]", pc->path,
                              pc->line, COUNTERS[c].name, (int)vn, v);
    sd_status st = p_labels_check(pc, c, lb, n, &pos, &at, &selected);
    if (st != SD_OK || !selected)
        return st;
    pscrape *sc = pc->out;
    if (sc->n == SERIES_MAX)
        return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: more than %d speculative-decoding series", pc->path, pc->line,
                              SERIES_MAX);
    char *key = p_key(lb, n, at);
    if (key == NULL)
        return sd_status_fail(pc->cx->err, SD_ENOMEM, "%s: out of memory", pc->path);
    for (size_t i = 0; i < sc->n; i++)
        if (sc->s[i].counter == c && sc->s[i].pos == pos && strcmp(sc->s[i].key, key) == 0) {
            free(key);
            return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: %s: the same series again (first on line %zu)", pc->path,
                                  pc->line, COUNTERS[c].name, sc->s[i].line);
        }
    if (sc->n == sc->cap) {
        size_t cap = sc->cap ? 2 * sc->cap : 32;
        pseries *ns = realloc(sc->s, cap * sizeof *ns);
        if (ns == NULL) {
            free(key);
            return sd_status_fail(pc->cx->err, SD_ENOMEM, "%s: out of memory", pc->path);
        }
        sc->s = ns, sc->cap = cap;
    }
    sc->s[sc->n++] = (pseries){ c, pos, key, x, pc->line };
    return SD_OK;
}

static sd_status p_sample(pctx *pc, const char *s)
{
    char *scratch = pc->scratch;
    const char *name = NULL, *v, *ts;
    size_t nn = 0, nlb = 0, vn, tn;
    plabel lb[PLABELS];
    double x;
    if (*s != '{' && (*s == '"' || (s = p_name(s, 1, &scratch, &name, &nn)) == NULL))
        return p_bad(pc, "expected a metric name");
    s = skip_blank(s);
    if (*s == '{' && (s = p_labels(s + 1, &scratch, lb, &nlb, name ? NULL : &name, &nn)) == NULL)
        return p_bad(pc, "expected name=\"value\" labels between { and }");
    if (name == NULL)
        return p_bad(pc, "expected a metric name");
    for (v = s = skip_blank(s); *s && !blank(*s); s++)
        ;
    vn = (size_t)(s - v);
    if (!go_float(v, vn, &x))
        return p_bad(pc, vn ? "the value is not a number" : "expected a value");
    for (ts = s = skip_blank(s), s += *s == '-' || *s == '+'; *s >= '0' && *s <= '9'; s++)
        ;
    tn = (size_t)(s - ts);
    if (*skip_blank(s) != '\0' || (tn > 0 && !(ts[tn - 1] >= '0' && ts[tn - 1] <= '9')) || tn > 20)
        return p_bad(pc, "expected an optional integer timestamp after the value, then the end of the line");
    if (nn >= 35 && memcmp(name, "vllm:spec_decode_num_emitted_tokens", 35) == 0)
        pc->out->v0 = 1;
    int c = counter_of(name, nn);
    return c < 0 ? SD_OK : p_keep(pc, c, lb, nlb, x, v, vn);
}

static sd_status p_comment(const pctx *pc, const char *s)
{
    char *scratch = pc->scratch;
    const char *w = s = skip_blank(s + 1), *name, *ty;
    size_t wn, nn, tn;
    while (*s && !blank(*s))
        s++;
    wn = (size_t)(s - w);
    int help = span_is(w, wn, "HELP"), type = span_is(w, wn, "TYPE");
    if (!help && !type)
        return SD_OK;
    if ((s = p_name(skip_blank(s), 1, &scratch, &name, &nn)) == NULL || (*s && !blank(*s)))
        return p_bad(pc, help ? "# HELP needs a metric name" : "# TYPE needs a metric name");
    if (help) {
        for (; *s; s++)
            if (*s == '\\' && (s[1] != '\\' && s[1] != 'n'))
                return p_bad(pc, "a HELP text escapes only \\\\ and \\n");
            else if (*s == '\\')
                s++;
        return SD_OK;
    }
    for (ty = s = skip_blank(s); *s && !blank(*s); s++)
        ;
    tn = (size_t)(s - ty);
    if (*skip_blank(s) != '\0' || !(span_is(ty, tn, "counter") || span_is(ty, tn, "gauge") ||
                                     span_is(ty, tn, "histogram") || span_is(ty, tn, "summary") ||
                                     span_is(ty, tn, "untyped")))
        return p_bad(pc, "# TYPE NAME counter|gauge|histogram|summary|untyped");
    int c = counter_of(name, nn);
    if (c >= 0 && !span_is(ty, tn, "counter") && !span_is(ty, tn, "untyped"))
        return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: %.*s is declared a %.*s; vLLM's is a counter", pc->path,
                              pc->line, (int)nn, name, (int)tn, ty);
    return SD_OK;
}

static void pscrape_free(pscrape *sc)
{
    for (size_t i = 0; i < sc->n; i++)
        free(sc->s[i].key);
    free(sc->s);
    memset(sc, 0, sizeof *sc);
}

static sd_status p_scan(const ctx *cx, const char *path, const text *t, const psel *sel, pscrape *out)
{
    pctx pc = { cx, path, 0, malloc(t->longest + 1), sel, out };
    sd_status st = pc.scratch ? SD_OK : sd_status_fail(cx->err, SD_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < t->n && st == SD_OK; i++) {
        const char *s = skip_blank(t->line[i]);
        pc.line = i + 1;
        if (*s == '#')
            st = p_comment(&pc, s);
        else if (*s != '\0')
            st = p_sample(&pc, s);
    }
    free(pc.scratch);
    return st;
}

/* The counts of one label set. */
typedef struct {
    const char *key;
    size_t line;  /* its first series */
    double v[3];  /* drafts, draft tokens, accepted tokens */
    int have[3];
    uint64_t mask; /* positions seen */
    double pos[MAXG];
    size_t pline[MAXG];
} pgroup;

static size_t p_group_of(pgroup *g, size_t *ng, const pseries *s)
{
    size_t i = 0;
    while (i < *ng && strcmp(g[i].key, s->key) != 0)
        i++;
    if (i == *ng) {
        memset(&g[i], 0, sizeof g[i]);
        g[i].key = s->key, g[i].line = s->line, (*ng)++;
    }
    return i;
}

/* Each label set: all four counters, positions 0..k-1 (the same k for all), falling counts. */
static sd_status p_group_check(const ctx *cx, const pgroup *g, const pgroup *g0)
{
    for (int c = 0; c < 3; c++)
        if (!g->have[c])
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: the series {%.120s} has no %s", cx->path, g->line, g->key,
                                  COUNTERS[c].name);
    if (g->mask == 0 || (g->mask & (g->mask + 1)) != 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: the %s series {%.120s} are not positions 0..k-1", cx->path,
                              g->line, COUNTERS[C_PER_POS].name, g->key);
    if (g->mask != g0->mask)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: the series {%.120s} and {%.120s} have different numbers of positions",
                              cx->path, g->line, g->key, g0->key);
    for (size_t i = 1; i < MAXG && (g->mask >> i & 1); i++)
        if (g->pos[i] > g->pos[i - 1])
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: %s{%.120s} rises from %.0f at position %zu to %.0f at %zu: impossible, a draft "
                                  "accepted through position %zu was accepted through %zu",
                                  cx->path, g->pline[i], COUNTERS[C_PER_POS].name, g->key, g->pos[i - 1], i - 1, g->pos[i], i,
                                  i, i - 1);
    return SD_OK;
}

static void p_sum(const pgroup *g, size_t ng, sd_counts *c)
{
    size_t k = 0;
    while (k < MAXG && (g[0].mask >> k & 1))
        k++;
    c->gamma = k, c->has_positions = 1;
    for (size_t j = 0; j < ng; j++) {
        c->drafts += g[j].v[C_DRAFTS], c->draft_tokens += g[j].v[C_DRAFT_TOKENS];
        c->accepted_tokens += g[j].v[C_ACCEPTED];
        for (size_t i = 0; i < k; i++)
            c->accepted_at[i] += g[j].pos[i];
    }
    for (size_t i = 0; i < k; i++)
        c->reached[i] = c->drafts;
}

static sd_status p_missing(const ctx *cx, const pscrape *sc, const psel *sel)
{
    char list[400] = "";
    for (int c = 0; c < C_N; c++) {
        size_t i = 0;
        while (i < sc->n && sc->s[i].counter != c)
            i++;
        if (i == sc->n)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? ", " : "", COUNTERS[c].name);
    }
    if (*list == '\0')
        return SD_OK;
    return sd_status_fail(cx->err, SD_EINVAL, "%s: missing counters%s%.*s%s%.*s: %s%s", cx->path, sel->name ? " with " : "",
                          sel->name ? (int)sel->nn : 0, sel->name ? sel->name : "", sel->name ? "=" : "",
                          sel->name ? (int)sel->vn : 0, sel->name ? sel->val : "", list,
                          sc->v0 ? " (vllm:spec_decode_num_emitted_tokens: a vLLM V0 scrape, which counts no drafts)" : "");
}

static sd_status p_build(const ctx *cx, const pscrape *sc, const psel *sel, sd_counts *c)
{
    sd_status st = p_missing(cx, sc, sel);
    pgroup *g = st == SD_OK ? calloc(sc->n, sizeof *g) : NULL;
    size_t ng = 0;
    if (st == SD_OK && g == NULL)
        return sd_status_fail(cx->err, SD_ENOMEM, "%s: out of memory", cx->path);
    for (size_t i = 0; st == SD_OK && i < sc->n; i++) {
        const pseries *s = &sc->s[i];
        pgroup *gi = &g[p_group_of(g, &ng, s)];
        if (s->counter == C_PER_POS)
            gi->mask |= (uint64_t)1 << s->pos, gi->pos[s->pos] = s->value, gi->pline[s->pos] = s->line;
        else
            gi->have[s->counter] = 1, gi->v[s->counter] = s->value;
    }
    for (size_t j = 0; st == SD_OK && j < ng; j++)
        st = p_group_check(cx, &g[j], &g[0]);
    if (st == SD_OK) {
        p_sum(g, ng, c);
        if (sel->name)
            note(c, "Selected the series with %.*s=\"%.*s\" (%zu label set%s).", (int)sel->nn, sel->name, (int)sel->vn,
                 sel->val, ng, ng == 1 ? "" : "s");
        else if (ng > 1)
            note(c, "Summed %zu series of each counter, one per label set ({%.100s}, {%.100s}%s); select one with "
                    "label=value.", ng, g[0].key, g[1].key, ng > 2 ? ", ..." : "");
    }
    free(g);
    return st;
}

/* now minus then, series by series; a series of then must be in now, no smaller. */
static sd_status p_delta(const ctx *cx, pscrape *now, const pscrape *then, size_t *fresh)
{
    *fresh = now->n;
    for (size_t i = 0; i < then->n; i++) {
        const pseries *e = &then->s[i];
        size_t j = 0;
        while (j < now->n && !(now->s[j].counter == e->counter && now->s[j].pos == e->pos &&
                               strcmp(now->s[j].key, e->key) == 0))
            j++;
        if (j == now->n)
            return sd_status_fail(cx->err, SD_EINVAL, "%s: %s{%.120s} (%s:%zu) is not in this scrape: restart?", cx->path,
                                  COUNTERS[e->counter].name, e->key, cx->opt->since, e->line);
        if (now->s[j].value < e->value)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: counter %s{%.120s} decreased between scrapes (%.0f at %s:%zu, %.0f here): restart?",
                                  cx->path, now->s[j].line, COUNTERS[e->counter].name, e->key, e->value, cx->opt->since,
                                  e->line, now->s[j].value);
        now->s[j].value -= e->value;
        (*fresh)--;
    }
    return SD_OK;
}

static sd_status p_select(const ctx *cx, psel *sel)
{
    const char *s = cx->opt->select, *eq = s ? strchr(s, '=') : NULL;
    memset(sel, 0, sizeof *sel);
    if (s == NULL)
        return SD_OK;
    if (eq == NULL || eq == s)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: select '%s': expected label=value", cx->path, s);
    sel->name = s, sel->nn = (size_t)(eq - s);
    sel->val = eq + 1, sel->vn = strlen(eq + 1);
    if (sel->vn >= 2 && sel->val[0] == '"' && sel->val[sel->vn - 1] == '"')
        sel->val++, sel->vn -= 2;
    if (span_is(sel->name, sel->nn, "position"))
        return sd_status_fail(cx->err, SD_EINVAL, "%s: select '%s': the position label is not a series to select", cx->path, s);
    return SD_OK;
}

static sd_status read_prom(const ctx *cx, const text *t, sd_counts *c)
{
    pscrape now = { 0 }, then = { 0 };
    psel sel;
    size_t fresh = 0;
    sd_status st = p_select(cx, &sel);
    if (st == SD_OK)
        st = p_scan(cx, cx->path, t, &sel, &now);
    if (st == SD_OK && cx->opt->since) {
        text ts;
        if ((st = text_read(cx->opt->since, &ts, cx->err)) == SD_OK) {
            st = p_scan(cx, cx->opt->since, &ts, &sel, &then);
            text_free(&ts);
        }
        if (st == SD_OK)
            st = p_delta(cx, &now, &then, &fresh);
    }
    if (st == SD_OK) {
        note(c, "Read vLLM's counters from a Prometheus scrape.");
        st = p_build(cx, &now, &sel, c);
    }
    if (st == SD_OK) {
        note(c, "gamma = its %zu per-position counters; reached[i] = drafts, as vLLM counts each position over all "
                "drafts.", c->gamma);
        if (cx->opt->since)
            note(c, "The counts are the increase since the earlier scrape %s%s.", cx->opt->since,
                 fresh ? " (series absent from it counted whole)" : "");
        if (c->draft_tokens < c->drafts * (double)c->gamma)
            note(c, "Draft tokens are fewer than drafts x %zu: some drafts were shorter.", c->gamma);
    }
    pscrape_free(&now);
    pscrape_free(&then);
    return st;
}

/* ---- TSV ----------------------------------------------------------------------------------
 * Source: this project's own formats (README.md, `specdec fit`), read by sd_tsv_load (parse.h):
 * tab-separated, a header line, blank and '#' lines skipped.
 *   tsv:       gamma, drafts, accepted_1 .. accepted_G [, draft_tokens] [, accepted_tokens]:
 *              accepted_i = drafts whose first i drafted tokens were all accepted; rows summed.
 *   histogram: accepted, count: count drafts had exactly `accepted` tokens accepted (needs
 *              opt->gamma); accepted_at[i] = the counts with accepted > i. */

static sd_status tsv_num(const ctx *cx, const sd_tsv *tv, size_t r, size_t col, double max, double *out)
{
    char name[600];
    snprintf(name, sizeof name, "%s:%zu: %s", cx->path, tv->row[r].line, tv->column[col]);
    const sd_domain dom = { name, 0.0, max, 1 };
    return sd_parse_number(tv->row[r].field[col], &dom, out, cx->err);
}

/* The columns of the tsv shape: col[0..3] gamma, drafts, draft_tokens, accepted_tokens
 * (SIZE_MAX when absent), acc[i] accepted_{i+1}; *G the highest i. */
static sd_status tsv_columns(const ctx *cx, const sd_tsv *tv, size_t *col, size_t *acc, size_t *G)
{
    static const char *const named[4] = { "gamma", "drafts", "draft_tokens", "accepted_tokens" };
    for (size_t i = 0; i < MAXG; i++)
        acc[i] = SIZE_MAX;
    col[0] = col[1] = col[2] = col[3] = SIZE_MAX, *G = 0;
    for (size_t j = 0; j < tv->ncolumns; j++) {
        const char *n = tv->column[j];
        size_t *slot = NULL;
        uint64_t i = 0;
        for (int k = 0; k < 4; k++)
            slot = strcmp(n, named[k]) == 0 ? &col[k] : slot;
        if (slot == NULL && strncmp(n, "accepted_", 9) == 0 && parse_count(n + 9, strlen(n + 9), &i) && i >= 1 &&
            n[9] != '0') {
            if (i > MAXG)
                return sd_status_fail(cx->err, SD_EINVAL, "%s: column %s: gamma beyond %d", cx->path, n, MAXG);
            slot = &acc[i - 1], *G = (size_t)i > *G ? (size_t)i : *G;
        }
        if (slot == NULL || *slot != SIZE_MAX)
            return sd_status_fail(cx->err, SD_EINVAL, "%s: column '%s' %s; expected gamma, drafts, accepted_1 .. accepted_G "
                                               "and optionally draft_tokens, accepted_tokens",
                                  cx->path, n, slot ? "repeats" : "is unknown");
        *slot = j;
    }
    for (size_t i = 0; i < *G; i++)
        if (acc[i] == SIZE_MAX)
            return sd_status_fail(cx->err, SD_EINVAL, "%s: no column accepted_%zu (there is accepted_%zu)", cx->path, i + 1, *G);
    if (col[0] == SIZE_MAX || col[1] == SIZE_MAX || *G == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: the columns gamma, drafts and accepted_1 .. accepted_G are required",
                              cx->path);
    return SD_OK;
}

static sd_status tsv_row(const ctx *cx, const sd_tsv *tv, size_t r, const size_t *col, const size_t *acc, size_t G,
                         sd_counts *c)
{
    double g, n, a[MAXG], sum = 0.0, D, A;
    size_t ln = tv->row[r].line;
    sd_status st = tsv_num(cx, tv, r, col[0], MAXG, &g);
    if (st == SD_OK)
        st = tsv_num(cx, tv, r, col[1], COUNT_MAX, &n);
    for (size_t i = 0; st == SD_OK && i < G; i++)
        if ((st = tsv_num(cx, tv, r, acc[i], COUNT_MAX, &a[i])) == SD_OK)
            sum += a[i];
    if (st != SD_OK)
        return st;
    if ((size_t)g != G)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: gamma %.0f, but the columns are accepted_1 .. accepted_%zu", cx->path,
                              ln, g, G);
    for (size_t i = 0; i < G; i++)
        if (a[i] > (i ? a[i - 1] : n))
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %s %.0f exceeds %s %.0f: %s", cx->path, ln, tv->column[acc[i]],
                                  a[i], i ? tv->column[acc[i - 1]] : "drafts", i ? a[i - 1] : n,
                                  i ? "per-position counts cannot rise with position" : "impossible");
    D = n * g, A = sum;
    if ((col[2] != SIZE_MAX && (st = tsv_num(cx, tv, r, col[2], COUNT_MAX, &D)) != SD_OK) ||
        (col[3] != SIZE_MAX && (st = tsv_num(cx, tv, r, col[3], COUNT_MAX, &A)) != SD_OK))
        return st;
    if (A < sum || A > sum || D > n * g || A > D)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %.0f accepted and %.0f draft tokens: expected accepted = the sum of "
                                           "accepted_i (%.0f) and accepted <= draft tokens <= drafts x gamma (%.0f)",
                              cx->path, ln, A, D, sum, n * g);
    c->drafts += n, c->draft_tokens += D, c->accepted_tokens += A;
    for (size_t i = 0; i < G; i++)
        c->accepted_at[i] += a[i];
    return SD_OK;
}

static sd_status read_tsv(const ctx *cx, const text *t, sd_counts *c)
{
    sd_tsv tv;
    size_t col[4], acc[MAXG], G = 0;
    (void)t;
    sd_status st = sd_tsv_load(cx->path, 1, ROWS_MAX, &tv, cx->err);
    if (st != SD_OK)
        return st;
    st = tsv_columns(cx, &tv, col, acc, &G);
    for (size_t r = 0; st == SD_OK && r < tv.nrows; r++)
        st = tsv_row(cx, &tv, r, col, acc, G, c);
    if (st == SD_OK) {
        c->gamma = G, c->has_positions = 1;
        for (size_t i = 0; i < G; i++)
            c->reached[i] = c->drafts;
        note(c, "Summed %zu TSV row%s.", tv.nrows, tv.nrows == 1 ? "" : "s");
        if (col[2] == SIZE_MAX)
            note(c, "No draft_tokens column: every draft taken as %zu tokens long.", G);
    }
    sd_tsv_free(&tv);
    return st;
}

static sd_status hist_row(const ctx *cx, const sd_tsv *tv, size_t r, const size_t *col, sd_counts *c)
{
    double a, n;
    sd_status st = tsv_num(cx, tv, r, col[0], COUNT_MAX, &a);
    if (st == SD_OK)
        st = tsv_num(cx, tv, r, col[1], COUNT_MAX, &n);
    if (st != SD_OK)
        return st;
    if (a > (double)cx->opt->gamma)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: accepted %.0f exceeds gamma %zu", cx->path, tv->row[r].line, a,
                              cx->opt->gamma);
    c->drafts += n, c->accepted_tokens += a * n;
    for (size_t i = 0; i < (size_t)a; i++)
        c->accepted_at[i] += n;
    return SD_OK;
}

static sd_status read_hist(const ctx *cx, const text *t, sd_counts *c)
{
    sd_tsv tv;
    size_t col[2] = { SIZE_MAX, SIZE_MAX };
    (void)t;
    if (cx->opt->gamma == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: a histogram of accepted tokens needs gamma (the draft length)", cx->path);
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
        c->gamma = cx->opt->gamma, c->has_positions = 1, c->draft_tokens = c->drafts * (double)c->gamma;
        for (size_t i = 0; i < c->gamma; i++)
            c->reached[i] = c->drafts;
        note(c, "A histogram of %zu rows: accepted_at[i] = drafts with more than i accepted tokens; every draft taken "
                "as gamma = %zu tokens long.", tv.nrows, c->gamma);
    }
    sd_tsv_free(&tv);
    return st;
}

/* ---- what counters.h promises ------------------------------------------------------------- */

static int whole_count(double x)
{
    return x >= 0.0 && x <= COUNT_MAX && floor(x) >= x;
}

/* The invariants of sd_counts (reached[] too when with_reached); messages start with who. */
static sd_status invariants(const char *who, const sd_counts *c, int with_reached, sd_error *err)
{
    size_t g = c->gamma;
    if (g < 1 || g > MAXG)
        return sd_status_fail(err, SD_EINVAL, "%s: gamma %zu is outside [1, %d]", who, g, MAXG);
    const double v[3] = { c->drafts, c->draft_tokens, c->accepted_tokens };
    static const char *const vn[3] = { "drafts", "draft tokens", "accepted tokens" };
    for (int i = 0; i < 3; i++)
        if (!whole_count(v[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: %s %.17g is not a whole count in [0, 2^53]", who, vn[i], v[i]);
    if (!(c->drafts >= 1.0))
        return sd_status_fail(err, SD_EINVAL, "%s: zero drafts: nothing to fit", who);
    for (size_t i = 0; i < g; i++) {
        double a = c->accepted_at[i], r = with_reached ? c->reached[i] : c->drafts;
        if (!whole_count(a) || !whole_count(r))
            return sd_status_fail(err, SD_EINVAL, "%s: position %zu: %.17g accepted, %.17g reached: not whole counts in [0, "
                                           "2^53]", who, i + 1, a, r);
        if (a > (i ? c->accepted_at[i - 1] : c->drafts) || a > r || r > c->drafts ||
            (with_reached && i > 0 && r > c->reached[i - 1]))
            return sd_status_fail(err, SD_EINVAL, "%s: position %zu: %.0f drafts accepted through it, %.0f reached it, of %.0f: "
                                           "counts cannot rise with position or exceed the drafts that reached it",
                                  who, i + 1, a, r, c->drafts);
    }
    if (c->accepted_tokens > c->draft_tokens || c->draft_tokens > c->drafts * (double)g)
        return sd_status_fail(err, SD_EINVAL, "%s: %.0f accepted of %.0f draft tokens in %.0f drafts of at most %zu: expected "
                                       "accepted <= draft tokens <= drafts x gamma",
                              who, c->accepted_tokens, c->draft_tokens, c->drafts, g);
    double sum = 0.0;
    for (size_t i = 0; i < g; i++)
        sum += c->accepted_at[i];
    if (c->kind == SD_COUNTS_PREFIX && c->has_positions && fabs(sum - c->accepted_tokens) > 0.5)
        return sd_status_fail(err, SD_EINVAL, "%s: %.0f accepted tokens, but the per-position counts sum to %.0f", who,
                              c->accepted_tokens, sum);
    return SD_OK;
}

static sd_status check_counts(const ctx *cx, sd_counts *c)
{
    for (size_t i = c->gamma < MAXG ? c->gamma : MAXG; i < MAXG; i++)
        c->accepted_at[i] = c->reached[i] = 0.0;
    if (!c->has_positions)
        memset(c->accepted_at, 0, sizeof c->accepted_at);
    if (cx->opt->gamma && c->gamma != cx->opt->gamma)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: gamma %zu was given, but the counts have %zu positions", cx->path,
                              cx->opt->gamma, c->gamma);
    return invariants(cx->path, c, 1, cx->err);
}

/* ---- detection and the entry points ------------------------------------------------------- */

/* The TSV shape named by the header (the first line neither blank nor '#'), or -1. */
static int detect_tsv(const text *t)
{
    for (size_t i = 0; i < t->n; i++) {
        const char *s = t->line[i];
        while (*s == ' ')
            s++;
        if (*s == '\0' || *s == '#')
            continue;
        int has[4] = { 0 };
        static const char *const cols[4] = { "gamma", "drafts", "accepted", "count" };
        while (*s) {
            const char *e = strchr(s, '\t'), *f = s;
            size_t n = e ? (size_t)(e - s) : strlen(s);
            while (n > 0 && f[0] == ' ')
                f++, n--;
            while (n > 0 && f[n - 1] == ' ')
                n--;
            for (int k = 0; k < 4; k++)
                has[k] |= span_is(f, n, cols[k]);
            s = e ? e + 1 : s + strlen(s);
        }
        return has[0] && has[1] ? F_TSV : has[2] && has[3] ? F_HIST : -1;
    }
    return -1;
}

/* The format of t: a TSV header, else the one kind of log line it has, else a scrape.
 * -1: nothing recognisable; -2 - 8 a - b: lines of two log formats a < b. */
static int detect(const text *t)
{
    int f = detect_tsv(t), seen[F_N] = { 0 }, prom = 0, first = 1;
    if (f >= 0)
        return f;
    for (size_t i = 0; i < t->n; i++) {
        const char *s = t->line[i], *after, *b = skip_blank(s);
        seen[F_V1] |= strstr(s, "SpecDecoding metrics:") != NULL;
        seen[F_V0] |= strstr(s, "Speculative metrics:") != NULL;
        seen[F_LLAMA] |= ll_kind(s, &after) != LL_NONE;
        prom |= strncmp(b, "vllm:spec_decode_", 17) == 0 || strncmp(b, "{\"vllm:spec_decode_", 19) == 0 ||
                (first && *b && (strncmp(b, "# HELP ", 7) == 0 || strncmp(b, "# TYPE ", 7) == 0));
        first &= *b == '\0';
    }
    for (int a = F_V1; a <= F_LLAMA; a++)
        for (int b = a + 1; b <= F_LLAMA; b++)
            if (seen[a] && seen[b])
                return -2 - 8 * a - b;
    for (int a = F_V1; a <= F_LLAMA; a++)
        if (seen[a])
            return a;
    return prom ? F_PROM : -1;
}

static sd_status (*const READERS[F_N])(const ctx *, const text *, sd_counts *) = { read_prom, read_v1,  read_v0,
                                                                                   read_llama, read_tsv, read_hist };

static sd_status resolve_format(const ctx *cx, const text *t, int *f)
{
    if (cx->opt->format != NULL) {
        char list[200] = "";
        for (int i = 0; i < F_N; i++) {
            if (strcmp(cx->opt->format, FORMATS[i]) == 0)
                return *f = i, SD_OK;
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", FORMATS[i]);
        }
        return sd_status_fail(cx->err, SD_EINVAL, "%s: unknown format '%s'; expected one of %s", cx->path, cx->opt->format,
                              list);
    }
    if ((*f = detect(t)) <= -2)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: holds both %s and %s lines: name the format", cx->path,
                              FORMATS[(-2 - *f) / 8], FORMATS[(-2 - *f) % 8]);
    if (*f < 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s: no speculative-decoding counts found: expected a Prometheus scrape with vLLM's "
                              "vllm:spec_decode_* counters, vLLM 'SpecDecoding metrics:' or 'Speculative metrics:' log lines, "
                              "llama.cpp 'draft acceptance' or 'statistics' lines, or a TSV with the columns gamma, drafts, "
                              "accepted_1 ... or accepted, count",
                              cx->path);
    return SD_OK;
}

sd_status sd_counts_load(const char *path, const sd_counts_options *opt, sd_counts *out, sd_error *err)
{
    static const sd_counts_options none = { 0 };
    const ctx cx = { path, opt ? opt : &none, err };
    text t;
    int f = -1;
    if (cx.opt->gamma > MAXG)
        return sd_status_fail(err, SD_EINVAL, "%s: gamma %zu is beyond %d", path, cx.opt->gamma, MAXG);
    sd_status st = text_read(path, &t, err);
    if (st != SD_OK)
        return st;
    if ((st = resolve_format(&cx, &t, &f)) == SD_OK && (cx.opt->select || cx.opt->since) && f != F_PROM)
        st = sd_status_fail(err, SD_EINVAL, "%s: select and since apply to a Prometheus scrape, not to %s input", path,
                            FORMATS[f]);
    sd_counts c;
    memset(&c, 0, sizeof c);
    c.kind = SD_COUNTS_PREFIX;
    if (st == SD_OK) {
        snprintf(c.format, sizeof c.format, "%s", FORMATS[f]);
        st = READERS[f](&cx, &t, &c);
    }
    text_free(&t);
    if (st == SD_OK)
        st = check_counts(&cx, &c);
    if (st == SD_OK)
        *out = c;
    return st;
}

/* ---- the writer: vLLM's counters, as prometheus_client exposes them ----------------------- */

sd_status sd_counts_write_prometheus(const sd_counts *c, FILE *out, sd_error *err)
{
    if (c->kind != SD_COUNTS_PREFIX || !c->has_positions)
        return sd_status_fail(err, SD_EINVAL, "counts: vLLM's counters hold prefix counts with positions; these are %s%s",
                              c->kind != SD_COUNTS_PREFIX ? "of kind any" : "without positions",
                              c->kind != SD_COUNTS_PREFIX && !c->has_positions ? " and without positions" : "");
    sd_status st = invariants("counts", c, 0, err);
    if (st != SD_OK)
        return st;
    int reached_differs = 0;
    char from[sizeof c->format];
    for (size_t i = 0; i < c->gamma; i++)
        reached_differs |= c->reached[i] < c->drafts || c->reached[i] > c->drafts;
    size_t fl = 0; /* the caller's format name, on one printable line */
    for (; fl + 1 < sizeof from && c->format[fl] != '\0'; fl++)
        from[fl] = (unsigned char)c->format[fl] < 0x20 || c->format[fl] == 0x7f ? '?' : c->format[fl];
    from[fl] = '\0';
    fprintf(out, "# Speculative-decoding counts (specdec, from %s input) as vLLM V1's counters "
                 "(vllm/v1/spec_decode/metrics.py).\n", from[0] ? from : "unnamed");
    if (reached_differs)
        fprintf(out, "# Not represented: some drafts were shorter than gamma = %zu (reached[i] < drafts).\n", c->gamma);
    const double v[3] = { c->drafts, c->draft_tokens, c->accepted_tokens };
    for (int k = 0; k < C_N; k++) {
        fprintf(out, "# HELP %s_total %s\n# TYPE %s_total counter\n", COUNTERS[k].name, COUNTERS[k].help,
                COUNTERS[k].name);
        for (size_t i = 0; i < (k == C_PER_POS ? c->gamma : 1); i++)
            if (k == C_PER_POS)
                fprintf(out, "%s_total{position=\"%zu\"} %.0f\n", COUNTERS[k].name, i, c->accepted_at[i]);
            else
                fprintf(out, "%s_total %.0f\n", COUNTERS[k].name, v[k]);
    }
    if (ferror(out))
        return sd_status_fail(err, SD_EIO, "output: write error: %s", strerror(errno));
    return SD_OK;
}

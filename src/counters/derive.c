/* derive.c -- rate derivation (see derive.h): the drafts and per-position counts behind a
 * log line's rounded figures, the sums of the lines, their notes. */
#include "derive.h"

#include <math.h>
#include <string.h>

#define SEARCH_MAX 4096 /* candidate numbers of drafts tried for one log line */

double sd_derive_widen(double h)
{
    return h * (1.0 + 1e-9) + 1e-12;
}

/* The whole per-position counts rate r[i] allows with n drafts, made
 * non-increasing, into lo/hi; 1 when some choice sums to A. */
static int dv_feasible(const sd_derive_in *in, uint64_t n, uint64_t *lo, uint64_t *hi)
{
    double dn = (double)n;
    double h = sd_derive_widen(in->hr);
    if (in->kmax && ((double)in->A > dn * (double)in->kmax || (double)in->D > dn * (double)in->kmax))
        return 0;
    for (size_t i = 0; i < in->k; i++) {
        double a = fmax(0.0, ceil((in->r[i] - h) * dn));
        double b = fmin(dn, floor((in->r[i] + h) * dn));
        if (a > b)
            return 0;
        lo[i] = (uint64_t)a;
        hi[i] = (uint64_t)b;
    }
    if (in->c0 >= 0 && in->k > 0) {
        lo[0] = lo[0] > (uint64_t)in->c0 ? lo[0] : (uint64_t)in->c0;
        hi[0] = hi[0] < (uint64_t)in->c0 ? hi[0] : (uint64_t)in->c0;
    }
    for (size_t i = 1; i < in->k; i++)
        hi[i] = hi[i] < hi[i - 1] ? hi[i] : hi[i - 1];
    for (size_t i = in->k; i-- > 1;)
        lo[i - 1] = lo[i - 1] > lo[i] ? lo[i - 1] : lo[i];
    uint64_t slo = 0;
    uint64_t shi = 0;
    for (size_t i = 0; i < in->k; i++) {
        if (lo[i] > hi[i])
            return 0;
        slo += lo[i];
        shi += hi[i];
    }
    return in->k == 0 || (slo <= in->A && in->A <= shi);
}

/* Narrows [lo, hi] to the drafts n with A / n = x +- h; 0 if none. */
static int dv_bound(uint64_t A, double x, double h, double *lo, double *hi, double *est)
{
    h = sd_derive_widen(h);
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

/* The drafts [lo, hi] the exact counts, kmax, n_fixed, the mean length and
 * the rates' sum allow, and an estimate *est (A / x, else A / the rates'
 * sum; NaN when A = 0 or neither is positive); 0 when none. */
static int dv_range(const sd_derive_in *in, double *lo, double *hi, double *est)
{
    *lo = 1.0;
    *hi = in->D > 0 ? (double)in->D : INFINITY;
    *est = NAN;
    if (in->n_fixed) {
        *lo = (double)in->n_fixed;
        *hi = (double)in->n_fixed;
    }
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
static int dv_counts(const sd_derive_in *in, uint64_t n, const uint64_t *lo, const uint64_t *hi, sd_derive_out *out)
{
    uint64_t sum = 0;
    uint64_t *c = out->c;
    out->n = n;
    if (in->k == 0)
        return SD_DERIVE_OK;
    for (size_t i = 0; i < in->k; i++) {
        double v = fmin(fmax(round(in->r[i] * (double)n), (double)lo[i]), (double)hi[i]);
        c[i] = (uint64_t)v;
        if (i > 0 && c[i] > c[i - 1])
            c[i] = c[i - 1];
        sum += c[i];
    }
    uint64_t d = sum < in->A ? in->A - sum : sum - in->A;
    for (size_t i = 0; sum < in->A && i < in->k && d > 0; i++) {
        uint64_t cap = i > 0 && c[i - 1] < hi[i] ? c[i - 1] : hi[i];
        uint64_t add = cap - c[i] < d ? cap - c[i] : d;
        c[i] += add;
        d -= add;
    }
    for (size_t i = in->k; sum > in->A && i-- > 0 && d > 0;) {
        uint64_t fl = i + 1 < in->k && c[i + 1] > lo[i] ? c[i + 1] : lo[i];
        uint64_t sub = c[i] - fl < d ? c[i] - fl : d;
        c[i] -= sub;
        d -= sub;
    }
    return d == 0 ? SD_DERIVE_OK : SD_DERIVE_INCONSISTENT;
}

/* Among the feasible drafts in [lo, hi] (at most SEARCH_MAX tried), the one
 * nearest est; out->nlo, out->nhi: the feasible range (or [lo, hi] when too wide). */
static int dv_search(const sd_derive_in *in, double lo, double hi, double est, sd_derive_out *out)
{
    uint64_t l[MAXG], h[MAXG];
    uint64_t best = 0;
    double bestd = INFINITY;
    int wide = hi - lo > SEARCH_MAX;
    double start = wide ? fmin(fmax(round(est), lo), hi) : lo;
    out->nlo = wide ? (uint64_t)lo : UINT64_MAX;
    out->nhi = wide ? (uint64_t)hi : 0;
    for (uint64_t t = 0; t <= SEARCH_MAX && (wide || start + (double)t <= hi); t++) {
        double cand[2] = { start + (double)t, start - (double)t };
        for (int j = 0; j < (wide && t > 0 ? 2 : 1); j++) {
            if (!(cand[j] >= lo && cand[j] <= hi) || !dv_feasible(in, (uint64_t)cand[j], l, h))
                continue;
            uint64_t n = (uint64_t)cand[j];
            if (!wide) {
                out->nlo = n < out->nlo ? n : out->nlo;
                out->nhi = n > out->nhi ? n : out->nhi;
            }
            if (fabs(cand[j] - est) < bestd) {
                bestd = fabs(cand[j] - est);
                best = n;
            }
        }
        if (wide && best > 0)
            break;
    }
    if (best == 0 || !dv_feasible(in, best, l, h))
        return SD_DERIVE_INCONSISTENT;
    return dv_counts(in, best, l, h, out);
}

int sd_derive_solve(const sd_derive_in *in, sd_derive_out *out)
{
    double lo, hi, est;
    uint64_t l[MAXG], h[MAXG];
    memset(out, 0, sizeof *out);
    if (!dv_range(in, &lo, &hi, &est))
        return SD_DERIVE_INCONSISTENT;
    if (in->full && in->kmax && in->D % in->kmax == 0) {
        uint64_t n0 = in->D / in->kmax;
        if ((double)n0 >= lo && (double)n0 <= hi && dv_feasible(in, n0, l, h)) {
            out->nlo = n0;
            out->nhi = n0;
            out->full = hi - lo > SEARCH_MAX;
            for (double m = lo; m <= hi && !out->full; m++)
                out->full = (uint64_t)m != n0 && dv_feasible(in, (uint64_t)m, l, h);
            dv_feasible(in, n0, l, h);
            return dv_counts(in, n0, l, h, out);
        }
    }
    if (!isfinite(hi))
        return SD_DERIVE_UNKNOWN;
    return dv_search(in, lo, hi, isnan(est) ? (lo + hi) / 2.0 : est, out);
}

int sd_derive_fill_reached(uint64_t n, uint64_t G, const uint64_t *c, size_t k, size_t kmax, double *reached)
{
    uint64_t r[MAXG] = { 0 };
    uint64_t sum = 0;
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
    uint64_t left = G - sum;
    for (size_t i = 1; i < kmax && left > 0; i++) {
        uint64_t add = n - r[i] < left ? n - r[i] : left;
        r[i] += add;
        left -= add;
    }
    for (size_t i = 0; i < kmax; i++)
        reached[i] += (double)r[i];
    return 1;
}

void sd_derive_add(sd_derive_sum *s, const sd_derive_in *in, const sd_derive_out *o)
{
    s->lines++;
    s->drafts += (double)o->n;
    s->D += (double)in->D;
    s->A += (double)in->A;
    for (size_t i = 0; i < in->k; i++)
        s->c[i] += (double)o->c[i];
    s->no_positions += in->k == 0;
    s->full += o->full;
    s->ambiguous += !o->full && o->nhi > o->nlo;
    s->nlo += (double)(o->nhi > o->nlo ? o->nlo : o->n);
    s->nhi += (double)(o->nhi > o->nlo ? o->nhi : o->n);
}

sd_status sd_derive_rates_fall(const sd_counters_ctx *cx, size_t ln, const double *r, size_t k)
{
    for (size_t i = 1; i < k; i++)
        if (r[i] > r[i - 1])
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: the per-position acceptance rate rises from %.3g at position %zu to %.3g at "
                                  "%zu: impossible, a draft accepted through position %zu was accepted through %zu",
                                  cx->path, ln, r[i - 1], i, r[i], i + 1, i + 1, i);
    return SD_OK;
}

void sd_derive_notes(sd_counts *c, const sd_derive_sum *s, const char *what)
{
    if (s->full > 0)
        sd_counts_note(c,
                       "On %zu %s the printed figures allow other numbers of drafts; there drafts = drafted tokens / "
                       "%zu (every draft %zu tokens long, as with a draft model).",
                       s->full, s->full == 1 ? what : "lines", c->gamma, c->gamma);
    if (s->ambiguous > 0)
        sd_counts_note(c,
                       "On %zu lines the printed figures fit several numbers of drafts: the drafts summed lie in "
                       "[%.0f, %.0f]; took %.0f (nearest the mean acceptance length).",
                       s->ambiguous, s->nlo, s->nhi, c->drafts);
    if (s->ambiguous == 0 && s->full == 0)
        sd_counts_note(c, "The number of drafts on every line is the only whole number that reproduces its printed "
                            "figures.");
}

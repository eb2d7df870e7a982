/* dist.c -- probability vectors: loading, checks, overlap (see dist.h). */
#include "specdec/dist.h"
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_interp.h>

#include "specdec/parse.h"
#include "specdec/tsv.h"

sd_status sd_dist_check(const double *p, size_t n, const char *name, sd_error *err)
{
    if (n == 0)
        return sd_status_fail(err, SD_EINVAL, "%s: no probabilities", name);
    if (n > SD_VOCAB_MAX)
        return sd_status_fail(err, SD_EINVAL, "%s: %zu tokens; at most %u allowed", name, n, SD_VOCAB_MAX);
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!(p[i] >= 0.0 && p[i] <= 1.0))
            return sd_status_fail(err, SD_EINVAL, "%s: probability %g of token %zu is outside [0, 1]", name,
                                  p[i], i);
        sum += p[i];
    }
    if (!(fabs(sum - 1.0) <= SD_DIST_SUM_TOL))
        return sd_status_fail(err, SD_EINVAL, "%s: probabilities sum to %.10g; expected 1 within %g", name,
                              sum, SD_DIST_SUM_TOL);
    return SD_OK;
}

void sd_dist_free(sd_dist *d)
{
    if (d->labels != NULL)
        for (size_t i = 0; i < d->n; i++)
            free(d->labels[i]);
    free(d->labels);
    free(d->p);
    d->p = NULL;
    d->labels = NULL;
    d->n = 0;
}

sd_status sd_dist_load(const char *path, sd_dist *out, sd_error *err)
{
    sd_tsv tsv;
    sd_status st = sd_tsv_load(path, 0, SD_VOCAB_MAX, &tsv, err);
    if (st != SD_OK)
        return st;
    sd_dist d = { tsv.nrows, malloc((tsv.nrows ? tsv.nrows : 1) * sizeof(double)), NULL };
    int labelled = tsv.nrows > 0 && tsv.row[0].nfields == 2;
    if (d.p == NULL || (labelled && (d.labels = calloc(tsv.nrows, sizeof *d.labels)) == NULL))
        st = sd_status_fail(err, SD_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < tsv.nrows && st == SD_OK; i++) {
        const sd_tsv_row *r = &tsv.row[i];
        char where[600];
        snprintf(where, sizeof where, "%s:%zu", path, r->line);
        const sd_domain dom = { where, 0.0, 1.0, 0 };
        if (r->nfields > 2)
            st = sd_status_fail(err, SD_EINVAL, "%s: %zu fields; expected a probability or label<TAB>probability", where,
                                r->nfields);
        else if ((r->nfields == 2) != labelled)
            st = sd_status_fail(err, SD_EINVAL, "%s: %s; every line must be alike", where,
                                labelled ? "an unlabelled line among labelled ones" : "a labelled line among unlabelled ones");
        else if (labelled && r->field[0][0] == '\0')
            st = sd_status_fail(err, SD_EINVAL, "%s: empty label before the tab", where);
        else if ((st = sd_parse_number(r->field[labelled], &dom, &d.p[i], err)) == SD_OK && labelled) {
            d.labels[i] = r->field[0]; /* taken over from the row */
            r->field[0] = NULL;
        }
    }
    sd_tsv_free(&tsv);
    if (st == SD_OK)
        st = sd_dist_check(d.p, d.n, path, err);
    if (st != SD_OK) {
        sd_dist_free(&d);
        return st;
    }
    double sum = 0.0;
    for (size_t i = 0; i < d.n; i++)
        sum += d.p[i];
    for (size_t i = 0; i < d.n; i++)
        d.p[i] /= sum;
    *out = d;
    return SD_OK;
}

sd_status sd_dist_compatible(const sd_dist *p, const sd_dist *q, const char *p_name,
                             const char *q_name, sd_error *err)
{
    if (p->n != q->n)
        return sd_status_fail(err, SD_EINVAL, "%s has %zu tokens but %s has %zu; the vocabularies must match",
                              p_name, p->n, q_name, q->n);
    if (p->labels != NULL && q->labels != NULL)
        for (size_t i = 0; i < p->n; i++)
            if (strcmp(p->labels[i], q->labels[i]) != 0)
                return sd_status_fail(err, SD_EINVAL, "token %zu is '%s' in %s but '%s' in %s", i,
                                      p->labels[i], p_name, q->labels[i], q_name);
    return SD_OK;
}

double sd_dist_overlap(const double *p, const double *q, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += p[i] < q[i] ? p[i] : q[i];
    return s < 1.0 ? s : 1.0; /* a sum of n roundings may pass 1 (p = q): beta is a probability */
}

double sd_dist_tv(const double *p, const double *q, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += fabs(p[i] - q[i]);
    return 0.5 * s;
}

double sd_dist_residual(const double *p, const double *q, size_t n, double *out)
{
    double total = 0.0;
    for (size_t i = 0; i < n; i++) {
        out[i] = p[i] > q[i] ? p[i] - q[i] : 0.0;
        total += out[i];
    }
    return total;
}

/* u c[n], kept below c[n] (rounding can reach it): the point inversion searches for. */
static double cdf_point(const sd_cdf *cdf, double u)
{
    double x = u * cdf->total;
    return x < cdf->total ? x : cdf->below_total;
}

/* The outcome inversion gives u: the i with c[i] <= u c[n] < c[i+1], searched in [lo, hi). */
static size_t cdf_find(const sd_cdf *cdf, double u, size_t lo, size_t hi)
{
    return gsl_interp_bsearch(cdf->c, cdf_point(cdf, u), lo, hi);
}

sd_status sd_cdf_init(sd_cdf *cdf, const double *w, size_t n, sd_error *err)
{
    memset(cdf, 0, sizeof *cdf);
    if (n == 0)
        return sd_status_fail(err, SD_EINVAL, "n: an empty distribution (n = 0)");
    if (n > SD_CDF_MAX)
        return sd_status_fail(err, SD_EINVAL, "n: %zu outcomes; a sampler holds at most %u", n, SD_CDF_MAX);
    double *c = malloc((n + 1) * sizeof *c);
    if (c == NULL)
        return sd_status_fail(err, SD_ENOMEM, "sampler: out of memory for %zu outcomes", n);
    c[0] = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!(w[i] >= 0.0 && w[i] < INFINITY)) {
            free(c);
            return sd_status_fail(err, SD_EINVAL, "w: weight %zu is %g; weights must be finite and >= 0", i, w[i]);
        }
        c[i + 1] = c[i] + w[i];
    }
    double total = c[n];
    if (!(total > 0.0 && total < INFINITY)) {
        free(c);
        return sd_status_fail(err, SD_EINVAL, "w: the weights sum to %g; need a finite positive total", total);
    }
    unsigned bits;
    size_t g = sd_cdf_cells(n, &bits);
    uint32_t *guide = malloc((g + 1) * sizeof *guide);
    if (guide == NULL) {
        free(c);
        return sd_status_fail(err, SD_ENOMEM, "sampler: out of memory for %zu outcomes", n);
    }
    cdf->n = n;
    cdf->c = c;
    cdf->total = total;
    cdf->below_total = nextafter(total, 0.0);
    cdf->bits = bits;
    /* Cell j holds U = K / 2^53 for K in [j 2^(53-bits), (j+1) 2^(53-bits) - 1] (K >= 1):
     * guide[j] is the outcome of its least U, flagged pure when its greatest U gives the
     * same outcome (inversion is monotone in U, so then every U of the cell does). */
    for (size_t j = 0; j < g; j++) {
        uint64_t kmin = (uint64_t)j << (53 - bits), kmax = ((uint64_t)(j + 1) << (53 - bits)) - 1;
        size_t lo = cdf_find(cdf, (double)(kmin ? kmin : 1) * 0x1p-53, 0, n);
        size_t hi = cdf_find(cdf, (double)kmax * 0x1p-53, lo, n);
        guide[j] = (uint32_t)lo | (lo == hi ? SD_CDF_PURE : 0u);
    }
    guide[g] = (uint32_t)(n - 1);
    cdf->guide = guide;
    return SD_OK;
}

void sd_cdf_free(sd_cdf *cdf)
{
    free(cdf->c);
    free(cdf->guide);
    memset(cdf, 0, sizeof *cdf);
}

size_t sd_cdf_draw_rest(const sd_cdf *cdf, gsl_rng *r, uint32_t a)
{
    if (a == 0) /* U's interval holds K = 0: draw U whole (probability 2^-32) */
        return cdf_find(cdf, sd_u53_finish(r, a), 0, cdf->n);
    size_t j = (size_t)((uint64_t)a >> (32 - cdf->bits));
    size_t lo = cdf->guide[j] & ~SD_CDF_PURE, hi = (size_t)(cdf->guide[j + 1] & ~SD_CDF_PURE) + 1;
    size_t i = cdf_find(cdf, sd_u53_lo(a), lo, hi);
    if (cdf_point(cdf, sd_u53_hi(a)) < cdf->c[i + 1]) /* every U with these top bits gives i */
        return i;
    return cdf_find(cdf, sd_u53_finish(r, a), i, hi);
}

size_t sd_cdf_sample(const sd_cdf *cdf, gsl_rng *r) { return sd_cdf_draw(cdf, r); }

size_t sd_sample_weights(const double *w, size_t n, double *cum, gsl_rng *r)
{
    cum[0] = 0.0;
    for (size_t i = 0; i < n; i++)
        cum[i + 1] = cum[i] + w[i];
    if (!(cum[n] > 0.0))
        return n;
    double x = gsl_rng_uniform_pos(r) * cum[n];
    if (!(x < cum[n]))
        x = nextafter(cum[n], 0.0);
    return gsl_interp_bsearch(cum, x, 0, n);
}

double sd_dist_multi_acceptance(const double *p, const double *q, size_t n, size_t k, double *work)
{
    double reject_all = 1.0;
    memcpy(work, p, n * sizeof *work); /* r_1 = p */
    for (size_t i = 0; i < k; i++) {
        double beta = 0.0, rest = 0.0;
        for (size_t x = 0; x < n; x++)
            beta += work[x] < q[x] ? work[x] : q[x];
        reject_all *= 1.0 - beta;
        if (!(reject_all > 0.0))
            break;
        for (size_t x = 0; x < n; x++) /* r_{i+1} = norm(max(r_i - q, 0)) */
            rest += (work[x] = work[x] > q[x] ? work[x] - q[x] : 0.0);
        for (size_t x = 0; x < n && rest > 0.0; x++)
            work[x] /= rest;
    }
    return 1.0 - reject_all;
}

/* dist.c -- probability vectors: loading, checks, overlap (see dist.h). */
#include "specdec/dist.h"
#include "dist_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

double sd_dist_point_acceptance(const double *p, const double *q, size_t n)
{
    size_t x = 0;
    for (size_t i = 1; i < n; i++)
        if (q[i] > q[x] || (!(q[i] < q[x]) && p[i] > p[x]))
            x = i;
    return p[x];
}

double sd_dist_match_acceptance(const double *p, const double *q, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += p[i] * q[i];
    return s < 1.0 ? s : 1.0; /* p = q = a point mass may round past 1 */
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

void sd_dist_rank_acceptance(const double *p, const double *q, size_t n, size_t ranks, int sampled, double *out,
                             double *work)
{
    if (!sampled) { /* q's k-th most likely token, by repeated selection; work marks the ones taken */
        for (size_t x = 0; x < n; x++)
            work[x] = 0.0;
        for (size_t k = 0; k < ranks; k++) {
            size_t best = n;
            for (size_t x = 0; x < n; x++)
                if (!(work[x] < 0.0) && (best == n || q[x] > q[best]))
                    best = x;
            if (best == n) {
                out[k] = 0.0;
                continue;
            }
            work[best] = -1.0;
            out[k] = p[best];
        }
        return;
    }
    double reach = 1.0; /* the chance that children 0 .. k-1 were all rejected */
    memcpy(work, p, n * sizeof *work);
    for (size_t k = 0; k < ranks; k++) {
        double beta = 0.0, rest = 0.0;
        for (size_t x = 0; x < n; x++)
            beta += work[x] < q[x] ? work[x] : q[x];
        out[k] = reach * beta;
        reach *= 1.0 - beta;
        if (!(reach > 0.0)) {
            for (size_t j = k + 1; j < ranks; j++)
                out[j] = 0.0;
            return;
        }
        for (size_t x = 0; x < n; x++)
            rest += (work[x] = work[x] > q[x] ? work[x] - q[x] : 0.0);
        for (size_t x = 0; x < n && rest > 0.0; x++)
            work[x] /= rest;
    }
}

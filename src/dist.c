/* dist.c -- probability vectors: loading, checks, overlap (see dist.h). */
#include "dist.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_interp.h>

#include "parse.h"

sd_status sd_dist_check(const double *p, size_t n, const char *name, sd_error *err)
{
    if (n == 0)
        return sd_fail(err, SD_EINVAL, "%s: no probabilities", name);
    if (n > SD_VOCAB_MAX)
        return sd_fail(err, SD_EINVAL, "%s: %zu tokens; at most %u allowed", name, n, SD_VOCAB_MAX);
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!(p[i] >= 0.0 && p[i] <= 1.0))
            return sd_fail(err, SD_EINVAL, "%s: probability %g of token %zu is outside [0, 1]", name,
                           p[i], i);
        sum += p[i];
    }
    if (!(fabs(sum - 1.0) <= SD_DIST_SUM_TOL))
        return sd_fail(err, SD_EINVAL, "%s: probabilities sum to %.10g; expected 1 within %g", name,
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

/* Strips the characters in set from both ends of s, in place. */
static char *trim_set(char *s, const char *set)
{
    while (*s != '\0' && strchr(set, *s) != NULL)
        s++;
    size_t n = strlen(s);
    while (n > 0 && strchr(set, s[n - 1]) != NULL)
        s[--n] = '\0';
    return s;
}

/* A line keeps its tabs (they separate the label); a field loses them too. */
static char *trim_line(char *s) { return trim_set(s, " \r\n"); }
static char *trim(char *s) { return trim_set(s, " \t\r\n"); }

static sd_status grow(sd_dist *d, size_t *cap, int labelled, const char *path, sd_error *err)
{
    if (d->n < *cap)
        return SD_OK;
    if (d->n >= SD_VOCAB_MAX)
        return sd_fail(err, SD_EINVAL, "%s: more than %u tokens", path, SD_VOCAB_MAX);
    size_t ncap = *cap ? 2 * *cap : 64;
    double *np = realloc(d->p, ncap * sizeof *np);
    if (np == NULL)
        return sd_fail(err, SD_ENOMEM, "%s: out of memory", path);
    d->p = np;
    if (labelled) {
        char **nl = realloc(d->labels, ncap * sizeof *nl);
        if (nl == NULL)
            return sd_fail(err, SD_ENOMEM, "%s: out of memory", path);
        d->labels = nl;
    }
    *cap = ncap;
    return SD_OK;
}

static sd_status parse_line(char *s, size_t lineno, sd_dist *d, size_t *cap, int *labelled,
                            const char *path, sd_error *err)
{
    char where[600];
    snprintf(where, sizeof where, "%s:%zu", path, lineno);
    char *tab = strchr(s, '\t');
    int has_label = tab != NULL;
    if (*labelled < 0)
        *labelled = has_label;
    else if (*labelled != has_label)
        return sd_fail(err, SD_EINVAL, "%s: %s; every line must be alike", where,
                       has_label ? "a labelled line among unlabelled ones" : "an unlabelled line among labelled ones");
    const char *num = s;
    if (has_label) {
        *tab = '\0';
        num = trim(tab + 1);
        if (*trim(s) == '\0')
            return sd_fail(err, SD_EINVAL, "%s: empty label before the tab", where);
    }
    sd_status st = grow(d, cap, has_label, path, err);
    if (st != SD_OK)
        return st;
    const sd_domain dom = { where, 0.0, 1.0, 0 };
    double x;
    if ((st = sd_parse_number(num, &dom, &x, err)) != SD_OK)
        return st;
    if (has_label) {
        const char *label = trim(s);
        size_t n = strlen(label) + 1;
        if ((d->labels[d->n] = malloc(n)) == NULL)
            return sd_fail(err, SD_ENOMEM, "%s: out of memory", path);
        memcpy(d->labels[d->n], label, n);
    }
    d->p[d->n++] = x;
    return SD_OK;
}

sd_status sd_dist_load(const char *path, sd_dist *out, sd_error *err)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return sd_fail(err, SD_EINVAL, "%s: cannot open: %s", path, strerror(errno));
    sd_dist d = { 0, NULL, NULL };
    size_t cap = 0, lineno = 0;
    int labelled = -1;
    char *line = NULL;
    size_t linecap = 0;
    sd_status st = SD_OK;
    errno = 0;
    while (getline(&line, &linecap, f) >= 0) {
        lineno++;
        char *s = trim_line(line);
        if (*s == '\0' || *s == '#')
            continue;
        if ((st = parse_line(s, lineno, &d, &cap, &labelled, path, err)) != SD_OK)
            break;
    }
    if (st == SD_OK && ferror(f))
        st = sd_fail(err, SD_EINVAL, "%s: read error: %s", path, strerror(errno));
    free(line);
    fclose(f);
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
        return sd_fail(err, SD_EINVAL, "%s has %zu tokens but %s has %zu; the vocabularies must match",
                       p_name, p->n, q_name, q->n);
    if (p->labels != NULL && q->labels != NULL)
        for (size_t i = 0; i < p->n; i++)
            if (strcmp(p->labels[i], q->labels[i]) != 0)
                return sd_fail(err, SD_EINVAL, "token %zu is '%s' in %s but '%s' in %s", i,
                               p->labels[i], p_name, q->labels[i], q_name);
    return SD_OK;
}

double sd_dist_overlap(const double *p, const double *q, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += p[i] < q[i] ? p[i] : q[i];
    return s;
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

sd_status sd_cdf_init(sd_cdf *cdf, const double *w, size_t n, sd_error *err)
{
    cdf->n = 0;
    cdf->c = NULL;
    if (n == 0)
        return sd_fail(err, SD_EINVAL, "sampler: empty distribution");
    double *c = malloc((n + 1) * sizeof *c);
    if (c == NULL)
        return sd_fail(err, SD_ENOMEM, "sampler: out of memory for %zu outcomes", n);
    c[0] = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!(w[i] >= 0.0 && w[i] < INFINITY)) {
            free(c);
            return sd_fail(err, SD_EINVAL, "sampler: weight %zu is %g; weights must be finite and >= 0", i, w[i]);
        }
        c[i + 1] = c[i] + w[i];
    }
    double total = c[n];
    if (!(total > 0.0 && total < INFINITY)) {
        free(c);
        return sd_fail(err, SD_EINVAL, "sampler: the weights sum to %g; need a finite positive total", total);
    }
    cdf->n = n;
    cdf->c = c;
    return SD_OK;
}

void sd_cdf_free(sd_cdf *cdf)
{
    free(cdf->c);
    cdf->c = NULL;
    cdf->n = 0;
}

size_t sd_cdf_sample(const sd_cdf *cdf, gsl_rng *r)
{
    double x = gsl_rng_uniform_pos(r) * cdf->c[cdf->n];
    if (!(x < cdf->c[cdf->n])) /* u * total rounded up to the total */
        x = nextafter(cdf->c[cdf->n], 0.0);
    return gsl_interp_bsearch(cdf->c, x, 0, cdf->n);
}

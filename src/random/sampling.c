/* sampling.c -- sampling transforms and matrix-pair acceptance (see
 * sampling.h).  Cost: O(V) per row for temperature and min-p, O(V log V)
 * when top-k or top-p is on (one sort by GSL, gsl_sort_index).
 */
#include "specdec/sampling.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "specdec/dist.h"

static const char *const INPUT_NAMES[] = { "logits", "probs", NULL };

const char *const *sd_sampling_input_names(void) { return INPUT_NAMES; }

sd_sampling sd_sampling_defaults(void)
{
    return (sd_sampling){ .temperature = 1.0, .top_k = 0, .top_p = 1.0, .min_p = 0.0 };
}

static sd_status check_settings(const sd_sampling *s, sd_error *err)
{
    if (!(s->temperature >= 0.0 && s->temperature <= SD_TEMPERATURE_MAX))
        return sd_status_fail(err, SD_EINVAL, "temperature: %g is outside [0, %g]", s->temperature, SD_TEMPERATURE_MAX);
    if (!(s->top_p > 0.0 && s->top_p <= 1.0))
        return sd_status_fail(err, SD_EINVAL, "top_p: %g is outside (0, 1]", s->top_p);
    if (!(s->min_p >= 0.0 && s->min_p <= 1.0))
        return sd_status_fail(err, SD_EINVAL, "min_p: %g is outside [0, 1]", s->min_p);
    return SD_OK;
}

/* Step 1: the input as log-weights z into out, checked, and the first largest one's index in
 * *top (one pass over logits; out is written only once every entry has passed). */
static sd_status to_logits(sd_input kind, const double *in, size_t n, double *out, size_t *top, const char *name,
                           sd_error *err)
{
    if (kind == SD_INPUT_PROBS) {
        sd_status st = sd_dist_check(in, n, name, err);
        if (st != SD_OK)
            return st;
        for (size_t i = 0; i < n; i++)
            out[i] = in[i] > 0.0 ? log(in[i]) : -INFINITY;
        *top = 0;
        for (size_t i = 1; i < n; i++)
            if (out[i] > out[*top])
                *top = i;
        return SD_OK;
    }
    if (n == 0 || n > SD_VOCAB_MAX)
        return sd_status_fail(err, SD_EINVAL, "%s: %zu logits; expected 1 to %u", name, n, SD_VOCAB_MAX);
    size_t t = 0;
    double m = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!(in[i] <= DBL_MAX)) /* NaN or +inf; -inf (a masked token) passes */
            return sd_status_fail(err, SD_EINVAL, "%s: logit %g of token %zu is not finite or -inf", name, in[i], i);
        if (in[i] > m) /* the first largest */
            m = in[i], t = i;
    }
    if (!(m > -INFINITY))
        return sd_status_fail(err, SD_EINVAL, "%s: every logit is -inf", name);
    if (out != in)
        memmove(out, in, n * sizeof *out);
    *top = t;
    return SD_OK;
}

/* to_logits for float logits, widened (exactly) into out in the same pass; out is written
 * as it goes, so on failure it holds a part of the row (the caller's work array). */
static sd_status to_logits_f32(const float *in, size_t n, double *out, size_t *top, const char *name, sd_error *err)
{
    if (n == 0 || n > SD_VOCAB_MAX)
        return sd_status_fail(err, SD_EINVAL, "%s: %zu logits; expected 1 to %u", name, n, SD_VOCAB_MAX);
    size_t t = 0;
    double m = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double x = in[i];
        if (!(x <= DBL_MAX))
            return sd_status_fail(err, SD_EINVAL, "%s: logit %g of token %zu is not finite or -inf", name, x, i);
        out[i] = x;
        if (x > m)
            m = x, t = i;
    }
    if (!(m > -INFINITY))
        return sd_status_fail(err, SD_EINVAL, "%s: every logit is -inf", name);
    *top = t;
    return SD_OK;
}

/* Zeroes the entries of w below the threshold t. */
static void keep_at_least(double *w, size_t n, double t)
{
    for (size_t i = 0; i < n; i++)
        if (w[i] < t)
            w[i] = 0.0;
}

static double total(const double *w, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += w[i];
    return s;
}

/* Steps 4 and 5 on the distribution w (sums to 1), sorted through idx. */
static void top_k_top_p(const sd_sampling *s, double *w, size_t n, size_t *idx)
{
    gsl_sort_index(idx, w, 1, n); /* ascending: idx[n - 1] is the largest */
    if (s->top_k > 0 && s->top_k < n)
        keep_at_least(w, n, w[idx[n - s->top_k]]); /* zeroed entries sort first: order still holds */
    if (s->top_p < 1.0) {
        double mass = total(w, n), cum = 0.0;
        for (size_t j = n; j-- > 0;) {
            cum += w[idx[j]] / mass;
            if (cum >= s->top_p) {
                keep_at_least(w, n, w[idx[j]]);
                break;
            }
        }
    }
}

/* Whether steps 4-5 sort the n weights (top-k or top-p on), and then the sort's index for
 * transform, allocated before anything is written so that a failure leaves out untouched. */
static int sorts_of(const sd_sampling *s, size_t n)
{
    return s->temperature > 0.0 && ((s->top_k > 0 && s->top_k < n) || s->top_p < 1.0);
}

static sd_status sort_index(const sd_sampling *s, size_t n, size_t **idx, const char *name, sd_error *err)
{
    *idx = NULL;
    if (sorts_of(s, n) && (*idx = malloc((n ? n : 1) * sizeof **idx)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "%s: out of memory for %zu tokens", name, n);
    return SD_OK;
}

/* Steps 2-6 on the checked log-weights w[0..n-1] (top: the first largest), in place, with
 * sort_index's idx (freed here).  The passes are fused: the weights and their sum in one,
 * and without truncation the normalisations of steps 2 and 6 are one division.  Never
 * fails. */
static void transform(const sd_sampling *s, double *w, size_t n, size_t top, size_t *idx)
{
    int sorts = sorts_of(s, n);
    double sum = 0.0;
    if (s->temperature <= 0.0) { /* greedy: the point mass on the first argmax */
        memset(w, 0, n * sizeof *w);
        w[top] = 1.0;
        sum = 1.0;
    } else {
        double zmax = w[top], z = 0.0; /* a division by T: 1 / T overflows for T below 5.6e-309 */
        for (size_t i = 0; i < n; i++) {
            w[i] = exp((w[i] - zmax) / s->temperature); /* exp(-inf) = 0 */
            z += w[i];
        }
        sum = z; /* nothing truncated: step 6 is step 2's normalisation, done once */
        if (s->min_p > 0.0 || sorts) {
            for (size_t i = 0; i < n; i++)
                w[i] /= z;
            if (s->min_p > 0.0)
                keep_at_least(w, n, s->min_p * w[top]);
            if (sorts)
                top_k_top_p(s, w, n, idx);
            sum = total(w, n);
        }
    }
    double inv = 1.0 / sum; /* sum >= w[top] > 0: finite */
    for (size_t i = 0; i < n; i++)
        w[i] *= inv;
    free(idx);
}

sd_status sd_sampling_apply(const sd_sampling *s, sd_input kind, const double *in, size_t n, double *out,
                            const char *name, sd_error *err)
{
    /* out is the work array: every check comes before the first write to it, so on failure
     * it is untouched */
    size_t top = 0, *idx = NULL;
    sd_status st = check_settings(s, err);
    if (st == SD_OK && (st = sort_index(s, n, &idx, name, err)) == SD_OK &&
        (st = to_logits(kind, in, n, out, &top, name, err)) == SD_OK)
        transform(s, out, n, top, idx);
    else
        free(idx);
    return st;
}

/* Row i of a view's p (side 0) or q (side 1) transformed by its settings into out: a float
 * row widened (exactly) into out first, then transformed there. */
static sd_status view_row(const sd_sampling_view *v, int side, size_t i, double *out, sd_error *err)
{
    size_t n = v->cols;
    const double *d = side ? v->q64 : v->p64;
    const float *f = side ? v->q32 : v->p32;
    const char *name = side ? v->q_name : v->p_name;
    char rn[320];
    snprintf(rn, sizeof rn, "%.280s row %zu", name, i);
    const sd_sampling *s = side ? &v->draft : &v->target;
    if (d != NULL)
        return sd_sampling_apply(s, v->kind, d + i * n, n, out, rn, err);
    if (v->kind == SD_INPUT_PROBS) { /* widened, then checked as probabilities */
        for (size_t j = 0; j < n; j++)
            out[j] = f[i * n + j];
        return sd_sampling_apply(s, v->kind, out, n, out, rn, err);
    }
    size_t top = 0, *idx = NULL;
    sd_status st = check_settings(s, err);
    if (st == SD_OK && (st = sort_index(s, n, &idx, rn, err)) == SD_OK &&
        (st = to_logits_f32(f + i * n, n, out, &top, rn, err)) == SD_OK)
        transform(s, out, n, top, idx);
    else
        free(idx);
    return st;
}

static sd_status each_row(const sd_sampling_view *v, void (*score)(const double *pr, const double *qr, size_t n,
                                                                   size_t i, void *arg),
                          void *arg, sd_error *err)
{
    if ((v->p64 == NULL) == (v->p32 == NULL) || (v->q64 == NULL) == (v->q32 == NULL))
        return sd_status_fail(err, SD_EINVAL, "%s: give its values as doubles or as floats, one of them", v->p_name);
    size_t n = v->cols;
    double *pr = malloc((n ? n : 1) * sizeof *pr), *qr = malloc((n ? n : 1) * sizeof *qr);
    sd_status st = pr == NULL || qr == NULL ? sd_status_fail(err, SD_ENOMEM, "out of memory for %zu tokens", n) : SD_OK;
    for (size_t i = 0; i < v->rows && st == SD_OK; i++)
        if ((st = view_row(v, 0, i, pr, err)) == SD_OK && (st = view_row(v, 1, i, qr, err)) == SD_OK)
            score(pr, qr, n, i, arg);
    free(pr);
    free(qr);
    return st;
}

/* The view of a pair of .npy matrices: SD_EINVAL when their shapes differ. */
static sd_status npy_view(const sd_sampling_pair *pair, sd_sampling_view *v, sd_error *err)
{
    const sd_npy *p = pair->p, *q = pair->q;
    if (p->rows != q->rows || p->cols != q->cols)
        return sd_status_fail(err, SD_EINVAL, "%s: shape (%zu, %zu) differs from %s's (%zu, %zu)", pair->q_name, q->rows,
                              q->cols, pair->p_name, p->rows, p->cols);
    *v = (sd_sampling_view){ .p64 = p->v, .q64 = q->v, .rows = p->rows, .cols = p->cols, .kind = pair->kind,
                             .target = pair->target, .draft = pair->draft, .p_name = pair->p_name,
                             .q_name = pair->q_name };
    return SD_OK;
}

typedef struct {
    size_t k, rows;
    const sd_dist_acceptance_fn *acc;
    double *out;
} by_fns;

static void score_fns(const double *pr, const double *qr, size_t n, size_t i, void *arg)
{
    by_fns *b = arg;
    for (size_t j = 0; j < b->k; j++)
        b->out[j * b->rows + i] = b->acc[j](pr, qr, n);
}

sd_status sd_sampling_view_acceptances(const sd_sampling_view *v, size_t k, const sd_dist_acceptance_fn *acc,
                                       double *out, sd_error *err)
{
    by_fns b = { k, v->rows, acc, out };
    return each_row(v, score_fns, &b, err);
}

sd_status sd_sampling_acceptances(const sd_sampling_pair *pair, size_t k, const sd_dist_acceptance_fn *acc,
                                  double *out, sd_error *err)
{
    sd_sampling_view v;
    sd_status st = npy_view(pair, &v, err);
    return st == SD_OK ? sd_sampling_view_acceptances(&v, k, acc, out, err) : st;
}

typedef struct {
    size_t ranks, rows;
    int sampled;
    double *out, *one, *work;
} by_rank;

static void score_ranks(const double *pr, const double *qr, size_t n, size_t i, void *arg)
{
    by_rank *b = arg;
    sd_dist_rank_acceptance(pr, qr, n, b->ranks, b->sampled, b->one, b->work);
    for (size_t k = 0; k < b->ranks; k++)
        b->out[k * b->rows + i] = b->one[k];
}

sd_status sd_sampling_view_rank_acceptances(const sd_sampling_view *v, size_t ranks, int sampled, double *out,
                                            sd_error *err)
{
    by_rank b = { ranks, v->rows, sampled, out, malloc((ranks ? ranks : 1) * sizeof(double)),
                  malloc((v->cols ? v->cols : 1) * sizeof(double)) };
    sd_status st = b.one && b.work ? each_row(v, score_ranks, &b, err)
                                   : sd_status_fail(err, SD_ENOMEM, "out of memory for %zu tokens", v->cols);
    free(b.one);
    free(b.work);
    return st;
}

sd_status sd_sampling_rank_acceptances(const sd_sampling_pair *pair, size_t ranks, int sampled, double *out,
                                       sd_error *err)
{
    sd_sampling_view v;
    sd_status st = npy_view(pair, &v, err);
    return st == SD_OK ? sd_sampling_view_rank_acceptances(&v, ranks, sampled, out, err) : st;
}

sd_status sd_sampling_rows(const sd_sampling_pair *pair, double *beta, double *dd, sd_error *err)
{
    static const sd_dist_acceptance_fn ACC[2] = { sd_dist_overlap, sd_dist_point_acceptance };
    size_t rows = pair->p->rows;
    double *both = malloc((rows > 0 ? 2 * rows : 1) * sizeof *both);
    if (both == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory for %zu rows", rows);
    sd_status st = sd_sampling_acceptances(pair, 2, ACC, both, err);
    if (st == SD_OK) {
        memcpy(beta, both, rows * sizeof *beta);
        memcpy(dd, both + rows, rows * sizeof *dd);
    }
    free(both);
    return st;
}

sd_status sd_sampling_summarise(const double *x, size_t n, sd_summary *out, sd_error *err)
{
    static const double LEVELS[7] = { 0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0 };
    double *s = malloc(n * sizeof *s);
    if (s == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory for %zu values", n);
    memcpy(s, x, n * sizeof *s);
    gsl_sort(s, 1, n);
    sd_summary r;
    r.mean = gsl_stats_mean(s, 1, n);
    r.se = n > 1 ? gsl_stats_sd_m(s, 1, n, r.mean) / sqrt((double)n) : 0.0;
    double t = n > 1 ? gsl_cdf_tdist_Qinv(0.025, (double)(n - 1)) : 0.0;
    r.ci_low = r.mean - t * r.se;
    r.ci_high = r.mean + t * r.se;
    for (int k = 0; k < 7; k++)
        r.q[k] = gsl_stats_quantile_from_sorted_data(s, 1, n, LEVELS[k]);
    free(s);
    *out = r;
    return SD_OK;
}

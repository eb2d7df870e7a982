/* gof.c -- Pearson's chi-square with pooling, and the engine's output test
 * (see gof.h).  p-values by GSL (gsl_cdf_chisq_Q). */
#include "specdec/gof.h"
#include "verify_impl.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

void sd_gof_chisq(const uint64_t *obs, const double *prob, size_t n, double *stat, double *dof)
{
    double total = 0.0;
    for (size_t i = 0; i < n; i++)
        total += (double)obs[i];
    if (total <= 0.0)
        return;
    double o_rest = 0.0, e_rest = 0.0, o_last = 0.0, e_last = 0.0;
    int cells = 0, have_last = 0;
    for (size_t i = 0; i < n; i++) {
        double e = prob[i] * total, o = (double)obs[i];
        if (e >= SD_GOF_MIN_EXPECTED) {
            if (have_last) /* the previous big cell is final: add it */
                *stat += (o_last - e_last) * (o_last - e_last) / e_last;
            o_last = o;
            e_last = e;
            have_last = 1;
            cells++;
        } else if (e > 0.0) {
            o_rest += o;
            e_rest += e;
        } else if (o > 0.0) {
            *stat = INFINITY; /* an impossible token was emitted */
        }
    }
    if (e_rest >= SD_GOF_MIN_EXPECTED || (!have_last && e_rest > 0.0)) {
        *stat += (o_rest - e_rest) * (o_rest - e_rest) / e_rest;
        cells++;
    } else if (have_last) { /* a thin remainder joins the smallest big cell seen last */
        o_last += o_rest;
        e_last += e_rest;
    }
    if (have_last)
        *stat += (o_last - e_last) * (o_last - e_last) / e_last;
    *dof += cells > 0 ? cells - 1 : 0;
}

sd_status sd_gof_output(const sd_model *m, const sd_verifier *v, const sd_engine_stats *s, sd_gof *out,
                        sd_error *err)
{
    size_t nv = s->vocab;
    double *prob = malloc(nv * sizeof *prob), *emp = calloc(nv, sizeof *emp), *exp_ = calloc(nv, sizeof *exp_);
    if (prob == NULL || emp == NULL || exp_ == NULL) {
        free(prob), free(emp), free(exp_);
        return sd_status_fail(err, SD_ENOMEM, "out of memory for the output test");
    }
    double stat = 0.0, dof = 0.0;
    for (size_t c = 0; c < s->contexts; c++) {
        if (s->ctx_tokens[c] == 0)
            continue;
        const sd_context *ctx = sd_model_context(m, c);
        v->lossless(ctx, nv, prob);
        const uint64_t *obs = s->out_counts + c * nv;
        sd_gof_chisq(obs, prob, nv, &stat, &dof);
        for (size_t r = 0; r < nv; r++) {
            emp[ctx->token[r]] += (double)obs[r];
            exp_[ctx->token[r]] += prob[r] * (double)s->ctx_tokens[c];
        }
    }
    double tv = 0.0;
    for (size_t t = 0; t < nv; t++)
        tv += fabs(emp[t] - exp_[t]);
    out->tv = 0.5 * tv / (double)s->tokens;
    out->statistic = stat;
    out->dof = dof;
    out->pvalue = isinf(stat) ? 0.0 : dof > 0 ? gsl_cdf_chisq_Q(stat, dof) : 1.0;
    free(prob), free(emp), free(exp_);
    return SD_OK;
}

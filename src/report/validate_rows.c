/* validate_rows.c -- what every check of validate shares (validate_impl.h):
 * the rows, which apply the shared rules (6-sigma z tests, chi-square at
 * p < 1e-7, exact comparisons) and verdicts, and the models and engine
 * runs built from the run's seed, threads and scale. */
#include "validate_impl.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

#include "specdec/rng.h"
#include "specdec/verify.h"

/* ---- rows -------------------------------------------------------------------- */

sd_status sd_validate_add_row(sd_validate_ctx *v, const char *name, double theory, double measured, double tol,
                              double pvalue, double samples, int within, sd_validate_kind kind, sd_error *err)
{
    const char *verdict;
    switch (kind) {
    case SD_VALIDATE_CHECK:
        verdict = within ? "pass" : "FAIL";
        v->passed &= within;
        break;
    case SD_VALIDATE_CONTROL:
        verdict = within ? "MISSED" : "caught";
        v->passed &= !within;
        break;
    default:
        verdict = "finding";
        break;
    }
    const sd_cell row[] = { sd_text(name), sd_real(theory), sd_real(measured), sd_real(tol), sd_real(pvalue),
                            sd_int((long long)samples), sd_text(verdict), sd_int((long long)v->cfg->seed),
                            sd_text(sd_rng_type()->name) };
    return sd_table_add(v->t, row, err);
}

sd_status sd_validate_z_row(sd_validate_ctx *v, const char *name, double theory, double measured, double se,
                            double samples, sd_validate_kind kind, sd_error *err)
{
    double z = fabs(measured - theory) / se;
    return sd_validate_add_row(v, name, theory, measured, SD_VALIDATE_Z_LIMIT * se, 2.0 * gsl_cdf_ugaussian_Q(z),
                               samples, z <= SD_VALIDATE_Z_LIMIT, kind, err);
}

sd_status sd_validate_mean_n_row(sd_validate_ctx *v, const char *name, double theory, const sd_engine_stats *s,
                                 sd_validate_kind kind, sd_error *err)
{
    return sd_validate_z_row(v, name, theory, sd_engine_stats_mean_n(s), sd_engine_stats_mean_n_se(s),
                             (double)s->iterations, kind, err);
}

sd_status sd_validate_chisq_row(sd_validate_ctx *v, const char *name, double stat, double dof, double samples,
                                sd_validate_kind kind, sd_error *err)
{
    double p = isinf(stat) ? 0.0 : dof > 0 ? gsl_cdf_chisq_Q(stat, dof) : 1.0;
    double crit = dof > 0 ? gsl_cdf_chisq_Qinv(SD_VALIDATE_CHISQ_LEVEL, dof) : 0.0;
    return sd_validate_add_row(v, name, dof, stat, crit, p, samples, p >= SD_VALIDATE_CHISQ_LEVEL, kind, err);
}

sd_status sd_validate_exact_row(sd_validate_ctx *v, const char *name, double theory, double measured, double tol,
                                double samples, sd_validate_kind kind, sd_error *err)
{
    int within = fabs(measured - theory) <= tol;
    return sd_validate_add_row(v, name, theory, isnan(measured) ? INFINITY : measured, tol, within ? 1.0 : 0.0,
                               samples, within, kind, err);
}

/* ---- models and runs ------------------------------------------------------ */

sd_synth_config sd_validate_synth(const sd_validate_ctx *v, size_t vocab, double alpha, sd_regime regime)
{
    sd_synth_config c = sd_synth_defaults();
    c.vocab = vocab;
    c.alpha = alpha;
    c.regime = regime;
    c.seed = v->cfg->seed;
    c.threads = v->cfg->threads;
    return c;
}

sd_engine_config sd_validate_engine(const sd_validate_ctx *v, const sd_model *m, const char *rule, double tokens)
{
    sd_engine_config ec = sd_engine_defaults();
    ec.model = m;
    ec.verifier = sd_verify_find(rule);
    ec.tokens = (uint64_t)(tokens * v->scale);
    ec.seed = v->cfg->seed;
    ec.threads = v->cfg->threads;
    ec.shard = v->cfg->shard;
    ec.nshards = v->cfg->nshards;
    ec.io = v->cfg->io;
    return ec;
}

sd_status sd_validate_fixed_run(const sd_validate_ctx *v, const sd_model *m, const char *rule, size_t gamma,
                                double tokens, sd_engine_stats *s, sd_error *err)
{
    sd_engine_config ec = sd_validate_engine(v, m, rule, tokens);
    ec.gamma = gamma;
    return sd_engine_run(&ec, s, err);
}

sd_status sd_validate_model_run(const sd_synth_config *sc, sd_engine_config ec, sd_model **m, sd_engine_stats *s,
                                sd_error *err)
{
    sd_status st = sd_synth_model(sc, m, err);
    if (st != SD_OK)
        return st;
    ec.model = *m;
    if ((st = sd_engine_run(&ec, s, err)) != SD_OK) {
        sd_model_free(*m);
        *m = NULL;
    }
    return st;
}

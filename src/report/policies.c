/* policies.c -- the draft-length policies side by side (see policies.h):
 * gamma_max + nth + 2 engine runs. */
#include "specdec/policies.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "specdec/theory.h"

static sd_status policy_row(sd_table *t, const char *name, double param, const sd_engine_stats *s, double cost,
                            sd_error *err)
{
    double calls = (double)s->target_calls + cost * (double)s->draft_calls;
    const sd_cell row[] = { sd_text(name), sd_real(param), sd_real(sd_engine_stats_mean_n(s)), sd_real(sd_engine_stats_mean_n_se(s)),
                            sd_real((double)s->draft_calls / (double)s->iterations), sd_real((double)s->tokens / calls) };
    return sd_table_add(t, row, err);
}

/* The quartiles of the draft's top probability max_x q(x) over m's bank. */
static sd_status top_quartiles(const sd_model *m, double *q3, sd_error *err)
{
    size_t nc = sd_model_contexts(m);
    double *top = malloc(nc * sizeof *top);
    if (top == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t c = 0; c < nc; c++)
        top[c] = sd_model_context(m, c)->q[sd_model_context(m, c)->argmax_q];
    gsl_sort(top, 1, nc);
    for (int i = 0; i < 3; i++)
        q3[i] = gsl_stats_quantile_from_sorted_data(top, 1, nc, 0.25 * (i + 1));
    free(top);
    return SD_OK;
}

/* The fixed policy swept over gamma = 1..gamma_max: the row at the
 * closed-form gamma* o (capped), and the row of the best measured gamma. */
static sd_status fixed_rows(sd_engine_config ec, double cost, const sd_optimum *o, sd_table *t, sd_error *err)
{
    size_t gamma_max = ec.gamma_max;
    size_t g_star = o->gamma_opt < 1 ? 1 : o->gamma_opt <= (double)gamma_max ? (size_t)o->gamma_opt : gamma_max;
    const char *star = o->gamma_opt < 1                   ? "fixed (eq. 10 says: do not speculate; gamma 1)"
                       : o->gamma_opt > (double)gamma_max ? "fixed at the closed-form gamma*, capped at gamma_max"
                                                          : "fixed at the closed-form gamma*";
    sd_engine_stats s, best = { 0 };
    double best_f = -1.0;
    size_t best_g = 1;
    sd_status st = SD_OK;
    ec.policy = SD_POLICY_FIXED;
    for (size_t g = 1; g <= gamma_max && st == SD_OK; g++) { /* the measured sweep; gamma* is one of its runs */
        ec.gamma = g;
        if ((st = sd_engine_run(&ec, &s, err)) != SD_OK)
            break;
        double f = (double)s.tokens / ((double)s.target_calls + cost * (double)s.draft_calls);
        if (g == g_star)
            st = policy_row(t, star, (double)g, &s, cost, err);
        if (f > best_f) {
            sd_engine_stats_free(&best);
            best = s;
            best_f = f;
            best_g = g;
        } else {
            sd_engine_stats_free(&s);
        }
    }
    if (st == SD_OK)
        st = policy_row(t, "fixed, best of the measured sweep", (double)best_g, &best, cost, err);
    sd_engine_stats_free(&best);
    return st;
}

/* One run of ec as a row. */
static sd_status run_row(const sd_engine_config *ec, const char *name, double param, double cost, sd_table *t,
                         sd_error *err)
{
    sd_engine_stats s;
    sd_status st = sd_engine_run(ec, &s, err);
    if (st != SD_OK)
        return st;
    st = policy_row(t, name, param, &s, cost, err);
    sd_engine_stats_free(&s);
    return st;
}

/* The adaptive policies: the heuristic, the threshold policy at each of
 * thresholds[0..nth-1] (nth = 0: the quartiles of the draft's top
 * probability over the bank), the oracle. */
static sd_status adaptive_rows(sd_engine_config ec, double cost, const double *thresholds, size_t nth, sd_table *t,
                               sd_error *err)
{
    double auto_th[3];
    sd_status st = SD_OK;
    if (nth == 0) {
        if ((st = top_quartiles(ec.model, auto_th, err)) != SD_OK)
            return st;
        thresholds = auto_th;
        nth = 3;
    }
    ec.gamma = 2;
    ec.policy = SD_POLICY_HEURISTIC;
    st = run_row(&ec, "heuristic +2/-1 (start 2, parameter: the cap)", (double)ec.gamma_max, cost, t, err);
    ec.gamma = ec.gamma_max;
    ec.policy = SD_POLICY_THRESHOLD;
    for (size_t i = 0; i < nth && st == SD_OK; i++) {
        ec.threshold = thresholds[i];
        st = run_row(&ec, "threshold on the draft's top probability", thresholds[i], cost, t, err);
    }
    ec.policy = SD_POLICY_ORACLE;
    if (st == SD_OK)
        st = run_row(&ec, "oracle: draft until the first rejection (parameter: its cap)", SD_ORACLE_MAX, cost, t, err);
    return st;
}

sd_status sd_policies_run(const sd_engine_config *base, double cost, const double *thresholds, size_t nth,
                          sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "policy", "parameter", "tokens_per_iteration", "tokens_per_iteration_se",
                                        "drafts_per_iteration", "improvement" };
    *out = NULL;
    double alpha = sd_verify_mean_acceptance(base->verifier, base->model);
    sd_optimum o;
    sd_status st = sd_theory_optimal(alpha, cost, &o, err);
    if (st != SD_OK)
        return st;
    sd_table *t = sd_table_alloc(6, cols);
    if (t == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    sd_engine_config ec = *base;
    ec.skip_outputs = 1; /* no output test here: no contexts x vocab counters */
    ec.drafts = 1;
    ec.seq_tokens = 0;
    ec.positions = 0;
    if ((st = fixed_rows(ec, cost, &o, t, err)) == SD_OK && (st = adaptive_rows(ec, cost, thresholds, nth, t, err)) ==
                                                              SD_OK) {
        double ceil_ = sd_theory_ceiling(alpha);
        const sd_cell row[] = { sd_text("ceiling 1/(1 - alpha), theory (c = 0)"), sd_real(alpha), sd_real(ceil_),
                                sd_real(0.0), sd_real(INFINITY), sd_real(ceil_) };
        st = sd_table_add(t, row, err);
    }
    if (st != SD_OK) {
        sd_table_free(t);
        return st;
    }
    *out = t;
    return SD_OK;
}

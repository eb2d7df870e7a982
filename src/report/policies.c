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

sd_status sd_policies_run(const sd_engine_config *base, double cost, const double *thresholds, size_t nth,
                          sd_table **out, sd_error *err)
{
    const sd_model *m = base->model;
    const sd_verifier *v = base->verifier;
    size_t gamma_max = base->gamma_max;
    *out = NULL;
    static const char *const cols[] = { "policy", "parameter", "tokens_per_iteration", "tokens_per_iteration_se",
                                        "drafts_per_iteration", "improvement" };
    double alpha = sd_verify_mean_acceptance(v, m);
    sd_optimum o;
    sd_status st = sd_theory_optimal(alpha, cost, &o, err);
    if (st != SD_OK)
        return st;
    sd_table *t = sd_table_alloc(6, cols);
    if (t == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    sd_engine_config ec = *base;
    ec.skip_outputs = 1; /* no output test here: no contexts x vocab counters */
    ec.policy = SD_POLICY_FIXED, ec.drafts = 1, ec.seq_tokens = 0, ec.positions = 0;
    sd_engine_stats s, best = { 0 };
    double best_f = -1.0;
    size_t best_g = 1;
    size_t g_star = o.gamma_opt < 1 ? 1 : o.gamma_opt <= (double)gamma_max ? (size_t)o.gamma_opt : gamma_max;
    for (size_t g = 1; g <= gamma_max && st == SD_OK; g++) { /* the measured sweep; gamma* is one of its runs */
        ec.gamma = g;
        if ((st = sd_engine_run(&ec, &s, err)) != SD_OK)
            break;
        double f = (double)s.tokens / ((double)s.target_calls + cost * (double)s.draft_calls);
        if (g == g_star)
            st = policy_row(t, o.gamma_opt < 1                   ? "fixed (eq. 10 says: do not speculate; gamma 1)"
                               : o.gamma_opt > (double)gamma_max ? "fixed at the closed-form gamma*, capped at gamma_max"
                                                                 : "fixed at the closed-form gamma*",
                            (double)g, &s, cost, err);
        if (f > best_f) {
            sd_engine_stats_free(&best);
            best = s, best_f = f, best_g = g;
        } else {
            sd_engine_stats_free(&s);
        }
    }
    if (st == SD_OK)
        st = policy_row(t, "fixed, best of the measured sweep", (double)best_g, &best, cost, err);
    sd_engine_stats_free(&best);
    ec.gamma = 2;
    ec.policy = SD_POLICY_HEURISTIC;
    if (st == SD_OK && (st = sd_engine_run(&ec, &s, err)) == SD_OK) {
        st = policy_row(t, "heuristic +2/-1 (start 2, parameter: the cap)", (double)gamma_max, &s, cost, err);
        sd_engine_stats_free(&s);
    }
    ec.gamma = gamma_max;
    ec.policy = SD_POLICY_THRESHOLD;
    double auto_th[3];
    if (nth == 0) { /* the quartiles of the draft's top probability over the bank */
        if (st == SD_OK && (st = top_quartiles(m, auto_th, err)) != SD_OK) {
            sd_table_free(t);
            return st;
        }
        thresholds = auto_th;
        nth = 3;
    }
    for (size_t i = 0; i < nth && st == SD_OK; i++) {
        ec.threshold = thresholds[i];
        if ((st = sd_engine_run(&ec, &s, err)) == SD_OK) {
            st = policy_row(t, "threshold on the draft's top probability", thresholds[i], &s, cost, err);
            sd_engine_stats_free(&s);
        }
    }
    ec.policy = SD_POLICY_ORACLE;
    if (st == SD_OK && (st = sd_engine_run(&ec, &s, err)) == SD_OK) {
        st = policy_row(t, "oracle: draft until the first rejection (parameter: its cap)", SD_ORACLE_MAX, &s, cost, err);
        sd_engine_stats_free(&s);
    }
    if (st == SD_OK) {
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

/* cmd_fit_table.c -- `specdec fit`'s three reports of a fit (cmd_fit.h):
 * the predictions and the recommendation that fit.h computes
 * (sd_fit_predict, sd_fit_recommend_points), the measured positions beside
 * the fitted models' (sd_fit_model_positions), and the summary, each with
 * its notes in words. */
#include "specdec/cmd_fit.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const REPORT_NAMES[] = { [SD_CMD_FIT_REPORT_PREDICTIONS] = "predictions",
                                            [SD_CMD_FIT_REPORT_POSITIONS] = "positions",
                                            [SD_CMD_FIT_REPORT_SUMMARY] = "summary", NULL };

const char *const *sd_cmd_fit_report_names(void) { return REPORT_NAMES; }

/* The recommendation r in words. */
static sd_status advice_notes(const sd_fit_recommend *r, sd_table *t, sd_error *err)
{
    if (r->gamma == 0)
        return sd_table_note(t, err, "do not speculate (gamma 0): no gamma improves on plain decoding; the best, gamma "
                             "%zu, gives %.4g (95%% interval %.4g-%.4g).", r->best, r->improvement, r->improvement_lo,
                             r->improvement_hi);
    sd_status st = sd_table_note(t, err, "recommended gamma %zu (improvement %.4g, 95%% interval %.4g-%.4g); gamma %zu "
                                 "to %zu reach its lower bound.", r->gamma, r->improvement, r->improvement_lo,
                                 r->improvement_hi, r->from, r->to);
    if (st == SD_OK && r->at_cap)
        st = sd_table_note(t, err, "the optimum sits at the cap, gamma_max = %zu: a longer draft may be better (raise "
                           "the cap).", r->gamma_max);
    return st;
}

/* The sentence on how alpha was estimated, and what the test and the
 * models can say with these counts. */
static sd_status estimator_notes(const sd_counts *c, const sd_fit *f, sd_table *t, sd_error *err)
{
    sd_status st = SD_OK;
    switch (f->estimator) {
    case SD_FIT_EST_POSITIONS:
        return sd_table_note(t, err, "gamma <= %zu: the measured acceptance per position; beyond: the %s model "
                             "(i.i.d. test p = %.3g at level %g).", f->gamma, sd_fit_model_name(f->chosen),
                             f->test_pvalue, f->level);
    case SD_FIT_EST_PREFIX_MEAN:
        return sd_table_note(t, err, "estimator prefix-mean: prefix counts without per-position data; alpha = %.4g "
                             "solves sum_i R_i alpha^i = %.0f accepted tokens (eq. 1's truncated geometric over the "
                             "drafts' lengths); every gamma uses eq. (1); no test of i.i.d. is possible without "
                             "positions.", f->alpha, c->accepted_tokens);
    case SD_FIT_EST_GAUGE:
        return sd_table_note(t, err, "estimator gauge: a mean of %.4g accepted tokens per draft and no counts, so "
                             "alpha = %.4g (solving sum_{i<=%zu} alpha^i = the mean) has no interval and i.i.d. cannot "
                             "be tested; every gamma uses eq. (1).", c->mean_accepted, f->alpha, f->gamma);
    case SD_FIT_EST_ANY:
        st = sd_table_note(t, err, "estimator any: vLLM V0 counts every position that passed its own test, so "
                           "accepted / drafted tokens = %.4g (%.4g-%.4g) estimates alpha under i.i.d.", f->alpha_any,
                           f->alpha_any_lo, f->alpha_any_hi);
        if (st == SD_OK && c->has_emitted)
            st = sd_table_note(t, err, "Its emitted tokens give the measured E(N) = %.4g at gamma %zu, where eq. (1) "
                               "at that alpha gives %.4g: i.i.d. test (1 degree of freedom) p = %.3g at level %g%s. The "
                               "predictions use alpha = %.4g (%.4g-%.4g), which reproduces the measured E(N) (the "
                               "prefix-mean estimator on the emitted tokens), and eq. (1) at every gamma. The Markov "
                               "fit needs per-position counts.", f->measured_en, f->gamma,
                               sd_theory_expected_tokens(f->alpha_any, (double)f->gamma), f->test_pvalue, f->level,
                               f->test_pvalue < f->level ? ": i.i.d. is rejected, so predictions at other gammas than "
                               "the measured are suspect" : "", f->alpha, f->alpha_lo, f->alpha_hi);
        else if (st == SD_OK)
            st = sd_table_note(t, err, "Without emitted tokens, E(N) is not measured and i.i.d. cannot be tested; every "
                               "gamma uses eq. (1).");
        return st;
    }
    return st;
}

static sd_status predictions_table(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq,
                                   const sd_fit_prediction *p, sd_table *t, sd_error *err)
{
    sd_status st = SD_OK;
    for (size_t g = 1; g <= rq->gamma_max && st == SD_OK; g++) {
        const sd_fit_prediction *q = &p[g - 1];
        const char *model = !q->extrapolated && f->has_positions ? "measured" : sd_fit_model_name(f->chosen);
        const char *extra = q->extrapolated ? "yes" : "no";
        const sd_cell with_cost[] = { sd_int((long long)g), sd_real(q->expected_tokens),
                                      sd_real(q->expected_tokens_lo), sd_real(q->expected_tokens_hi),
                                      sd_real(q->improvement), sd_real(q->improvement_lo), sd_real(q->improvement_hi),
                                      sd_text(extra), sd_text(model) };
        const sd_cell without[] = { sd_int((long long)g), sd_real(q->expected_tokens), sd_real(q->expected_tokens_lo),
                                    sd_real(q->expected_tokens_hi), sd_text(extra), sd_text(model) };
        st = sd_table_add(t, rq->cost ? with_cost : without, err);
    }
    sd_fit_recommend r;
    if (st == SD_OK && rq->cost && (st = sd_fit_recommend_points(p, rq->gamma_max, &r, err)) == SD_OK)
        st = advice_notes(&r, t, err);
    if (st == SD_OK)
        st = estimator_notes(c, f, t, err);
    if (st == SD_OK && !f->has_interval)
        st = sd_table_note(t, err, "the intervals are the estimates themselves: a gauge carries no counts to give one.");
    if (st == SD_OK && !rq->cost)
        st = sd_table_note(t, err, "no cost given: E(N) only; a cost (or the presets) adds the improvement and the "
                           "recommended gamma.");
    return st;
}

static sd_status positions_table(const sd_fit *f, sd_table *t, sd_error *err)
{
    if (!f->has_positions)
        return sd_status_fail(err, SD_EINVAL, "report: these counts carry no per-position data (estimator %s); use "
                              "predictions or summary", sd_fit_estimator_name(f->estimator));
    double model[SD_COUNTS_MAX_GAMMA];
    sd_fit_model_positions(f, f->non_iid, f->gamma, model);
    sd_status st = SD_OK;
    for (size_t k = 0; k < f->gamma && st == SD_OK; k++) {
        const sd_cell row[] = { sd_int((long long)k + 1), sd_real(f->tested[k]), sd_real(f->passed[k]),
                                sd_real(f->cond[k]), sd_real(f->cond_lo[k]), sd_real(f->cond_hi[k]), sd_real(f->alpha),
                                sd_real(model[k]), sd_text(sd_fit_model_name(f->non_iid)) };
        st = sd_table_add(t, row, err);
    }
    return st;
}

static sd_status summary_table(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq,
                               const sd_fit_prediction *p, sd_table *t, sd_error *err)
{
    char range[32] = "";
    sd_fit_recommend r = { 0 };
    sd_status st = rq->cost ? sd_fit_recommend_points(p, rq->gamma_max, &r, err) : SD_OK;
    if (st != SD_OK)
        return st;
    if (rq->cost && r.gamma > 0)
        snprintf(range, sizeof range, "%zu-%zu", r.from, r.to);
    else if (rq->cost)
        snprintf(range, sizeof range, "none");
    int pos = f->has_positions && f->test == SD_FIT_TEST_LR;
    const sd_cell row[] = {
        sd_text(c->format), sd_text(c->kind == SD_COUNTS_PREFIX ? "prefix" : "any"), sd_real(c->drafts),
        sd_int((long long)c->gamma), sd_text(sd_fit_estimator_name(f->estimator)), sd_real(f->alpha),
        sd_real(f->alpha_lo), sd_real(f->alpha_hi), sd_real(f->measured_en), sd_text(sd_fit_test_name(f->test)),
        sd_real(f->test_statistic), sd_real(f->test_dof), sd_real(f->test_pvalue),
        sd_real(pos ? f->geo_alpha : f->alpha), sd_real(pos ? f->geo_rho : 1.0),
        sd_real(pos ? f->markov.a_easy : f->alpha), sd_real(pos ? f->markov.a_hard : f->alpha),
        sd_real(pos ? f->markov.stay : 0.0), sd_text(sd_fit_model_name(f->non_iid)),
        sd_text(sd_fit_model_name(f->chosen)), sd_int((long long)r.gamma), sd_text(range),
        sd_text(r.at_cap ? "yes" : "no"),
    };
    st = sd_table_add(t, row, err);
    if (st == SD_OK && c->notes[0] != '\0')
        st = sd_table_note(t, err, "%s", c->notes);
    if (st == SD_OK)
        st = estimator_notes(c, f, t, err);
    if (st == SD_OK && rq->cost)
        st = advice_notes(&r, t, err);
    return st;
}

static const char *const PREDICTION_COLS[] = { "gamma", "expected_tokens", "expected_tokens_lo", "expected_tokens_hi",
                                                "improvement", "improvement_lo", "improvement_hi", "extrapolated",
                                                "model" };
static const char *const PREDICTION_COLS_NO_COST[] = { "gamma", "expected_tokens", "expected_tokens_lo",
                                                        "expected_tokens_hi", "extrapolated", "model" };
static const char *const POSITION_COLS[] = { "position", "tested", "accepted", "alpha_k", "alpha_k_lo", "alpha_k_hi",
                                             "alpha_iid", "alpha_k_model", "model" };
static const char *const SUMMARY_COLS[] = { "format", "counts", "drafts", "gamma", "estimator", "alpha", "alpha_lo",
                                            "alpha_hi", "measured_expected_tokens", "test", "test_statistic",
                                            "test_dof", "test_pvalue", "geometric_alpha", "geometric_rho",
                                            "markov_alpha_easy", "markov_alpha_hard", "markov_stay", "non_iid_model",
                                            "chosen_model", "recommended_gamma", "gamma_within_interval", "at_cap" };
#define NCOLS(a) (sizeof(a) / sizeof *(a))

/* The empty table of report under rq (the columns of the improvement and the recommendation with a cost). */
static sd_table *report_alloc(sd_cmd_fit_report report, const sd_fit_request *rq)
{
    if (report == SD_CMD_FIT_REPORT_PREDICTIONS)
        return rq->cost ? sd_table_alloc(NCOLS(PREDICTION_COLS), PREDICTION_COLS)
                        : sd_table_alloc(NCOLS(PREDICTION_COLS_NO_COST), PREDICTION_COLS_NO_COST);
    if (report == SD_CMD_FIT_REPORT_SUMMARY) /* no recommendation without a cost */
        return sd_table_alloc(rq->cost ? NCOLS(SUMMARY_COLS) : NCOLS(SUMMARY_COLS) - 3, SUMMARY_COLS);
    return sd_table_alloc(NCOLS(POSITION_COLS), POSITION_COLS);
}

sd_status sd_cmd_fit_report_table(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq,
                                  sd_cmd_fit_report report, sd_table **out, sd_error *err)
{
    sd_status st = sd_fit_request_check(rq, err);
    if (st != SD_OK)
        return st;
    sd_fit_prediction *p = report != SD_CMD_FIT_REPORT_POSITIONS ? calloc(rq->gamma_max, sizeof *p) : NULL;
    sd_table *t = report_alloc(report, rq);
    if (t == NULL || (p == NULL && report != SD_CMD_FIT_REPORT_POSITIONS))
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    if (st == SD_OK && report != SD_CMD_FIT_REPORT_POSITIONS)
        st = sd_fit_predict(c, f, rq, p, err);
    if (st == SD_OK)
        st = report == SD_CMD_FIT_REPORT_PREDICTIONS ? predictions_table(c, f, rq, p, t, err)
             : report == SD_CMD_FIT_REPORT_POSITIONS ? positions_table(f, t, err)
                                                     : summary_table(c, f, rq, p, t, err);
    free(p);
    if (st != SD_OK) {
        sd_table_free(t);
        return st;
    }
    *out = t;
    return SD_OK;
}

/* test_cmd_fit.c -- `specdec fit` as a library call (cmd_fit.h): the
 * reports of a fit are fit.h's predictions, positions and recommendation in
 * cells and words; the recommendation as a struct says what the report says,
 * for a gamma that pays, one at the cap and none that pays; a request
 * without a cost has none. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "specdec/cmd_fit.h"
#include "testutil.h"

/* ---- the reports of a fit ------------------------------------------------------------------- */

/* 100 drafts of 3: 80 passed position 1, 60 passed 1-2, 30 passed 1-3; costs 1 + 0.05 gamma. */
static const sd_counts HAND = { .gamma = 3, .drafts = 100, .draft_tokens = 300, .accepted_tokens = 170,
                                .has_positions = 1, .accepted_at = { 80, 60, 30 }, .reached = { 100, 100, 100 },
                                .kind = SD_COUNTS_PREFIX };
static const double HAND_COST[6] = { 1.05, 1.10, 1.15, 1.20, 1.25, 1.30 };

/* The real in column name of t's row. */
static double real(const sd_table *t, size_t row, const char *name)
{
    return sd_table_cell(t, row, sd_table_find(t, name))->v.r;
}

/* The predictions report is sd_fit_predict's points cell for bit, with and without the cost's
 * draws: it flags extrapolation and recommends a gamma. */
START_TEST(predictions_are_the_points)
{
    sd_fit f;
    ck_assert_int_eq(sd_fit_counts(&HAND, 1e-3, &f, NULL), SD_OK);
    double spread[20 * 6];
    for (int k = 0; k < 20; k++)
        for (int g = 0; g < 6; g++)
            spread[k * 6 + g] = HAND_COST[g] * (k % 2 ? 1.1 : 0.9);
    for (int pass = 0; pass < 2; pass++) {
        sd_fit_request rq = { .gamma_max = 6, .cost = HAND_COST, .replicates = 200, .seed = 3 };
        if (pass == 1) {
            rq.cost_draws = spread;
            rq.ncost_draws = 20;
        }
        sd_fit_prediction p[6];
        sd_table *t;
        ck_assert_int_eq(sd_fit_predict(&HAND, &f, &rq, p, NULL), SD_OK);
        ck_assert_int_eq(sd_cmd_fit_report_table(&HAND, &f, &rq, SD_CMD_FIT_REPORT_PREDICTIONS, &t, NULL), SD_OK);
        ck_assert_uint_eq(sd_table_nrows(t), 6);
        for (size_t g = 0; g < 6; g++) {
            ck_assert_double_eq(real(t, g, "expected_tokens"), p[g].expected_tokens);
            ck_assert_double_eq(real(t, g, "expected_tokens_lo"), p[g].expected_tokens_lo);
            ck_assert_double_eq(real(t, g, "expected_tokens_hi"), p[g].expected_tokens_hi);
            ck_assert_double_eq(real(t, g, "improvement"), p[g].improvement);
            ck_assert_double_eq(real(t, g, "improvement_lo"), p[g].improvement_lo);
            ck_assert_double_eq(real(t, g, "improvement_hi"), p[g].improvement_hi);
            ck_assert_str_eq(sd_table_cell(t, g, sd_table_find(t, "extrapolated"))->v.s, g >= 3 ? "yes" : "no");
        }
        ck_assert_rel(real(t, 2, "expected_tokens"), 1.0 + 170.0 / 100.0, 1e-12); /* the mean acceptance length */
        ck_assert_uint_ge(sd_table_nnotes(t), 1);
        ck_assert_ptr_nonnull(strstr(sd_table_note_at(t, 0), "recommended gamma"));
        sd_table_free(t);
    }
}
END_TEST

/* The positions report: the measured alpha_k beside the non-i.i.d. model's
 * (sd_fit_model_positions); every report refuses the request
 * sd_fit_request_check refuses, the positions one too; counts without
 * positions have no positions report. */
START_TEST(positions_and_bad_requests)
{
    sd_fit f;
    sd_table *t;
    sd_error err;
    ck_assert_int_eq(sd_fit_counts(&HAND, 1e-3, &f, NULL), SD_OK);
    double cost[6], model[3];
    memcpy(cost, HAND_COST, sizeof cost);
    sd_fit_request rq = { .gamma_max = 6, .cost = cost, .replicates = 0 };
    ck_assert_int_eq(sd_cmd_fit_report_table(&HAND, &f, &rq, SD_CMD_FIT_REPORT_POSITIONS, &t, NULL), SD_OK);
    sd_fit_model_positions(&f, f.non_iid, 3, model);
    ck_assert_uint_eq(sd_table_nrows(t), 3);
    for (size_t k = 0; k < 3; k++) {
        ck_assert_double_eq(real(t, k, "alpha_k"), f.cond[k]);
        ck_assert_double_eq(real(t, k, "alpha_k_model"), model[k]);
        ck_assert_str_eq(sd_table_cell(t, k, sd_table_find(t, "model"))->v.s, sd_fit_model_name(f.non_iid));
    }
    sd_table_free(t);
    cost[4] = 0.0;
    for (int report = 0; report < 3; report++) {
        t = NULL;
        ck_assert_int_eq(sd_cmd_fit_report_table(&HAND, &f, &rq, (sd_cmd_fit_report)report, &t, &err), SD_EINVAL);
        ck_assert_ptr_nonnull(strstr(err.msg, "cost: the cost of gamma 5 is 0"));
        ck_assert_ptr_null(t);
    }
    cost[4] = 1.25;
    double spread[20 * 6];
    for (int k = 0; k < 20 * 6; k++)
        spread[k] = 1.2;
    spread[7] = -1.0;
    rq.cost_draws = spread;
    rq.ncost_draws = 20;
    ck_assert_int_eq(sd_cmd_fit_report_table(&HAND, &f, &rq, SD_CMD_FIT_REPORT_PREDICTIONS, &t, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "cost_draws: draw 1's cost of gamma 2 is -1"));
    sd_counts totals = { .gamma = 2, .drafts = 1000, .draft_tokens = 2000, .accepted_tokens = 1000,
                         .reached = { 1000, 1000 }, .kind = SD_COUNTS_PREFIX };
    rq.cost_draws = NULL;
    ck_assert_int_eq(sd_fit_counts(&totals, 1e-3, &f, NULL), SD_OK);
    ck_assert_int_eq(sd_cmd_fit_report_table(&totals, &f, &rq, SD_CMD_FIT_REPORT_POSITIONS, &t, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "report: these counts carry no per-position data (estimator prefix-mean)"));
}
END_TEST

/* The advice: no cost, no improvement columns; a hopeless alpha gives gamma 0;
 * an optimum at gamma_max is flagged. */
START_TEST(advice_and_no_cost)
{
    sd_counts c = { .gamma = 1, .drafts = 1000, .draft_tokens = 1000, .accepted_tokens = 20, .has_positions = 1,
                    .accepted_at = { 20 }, .reached = { 1000 }, .kind = SD_COUNTS_PREFIX };
    sd_fit f;
    sd_table *t;
    ck_assert_int_eq(sd_fit_counts(&c, 1e-3, &f, NULL), SD_OK);
    sd_fit_request rq = { .gamma_max = 4, .replicates = 0 };
    ck_assert_int_eq(sd_cmd_fit_report_table(&c, &f, &rq, SD_CMD_FIT_REPORT_PREDICTIONS, &t, NULL), SD_OK);
    ck_assert_uint_eq(sd_table_find(t, "improvement"), SIZE_MAX);
    ck_assert_uint_ne(sd_table_find(t, "expected_tokens"), SIZE_MAX);
    sd_table_free(t);
    double cost[4] = { 1.5, 2.0, 2.5, 3.0 };
    rq.cost = cost;
    ck_assert_int_eq(sd_cmd_fit_report_table(&c, &f, &rq, SD_CMD_FIT_REPORT_SUMMARY, &t, NULL), SD_OK);
    ck_assert_int_eq(sd_table_cell(t, 0, sd_table_find(t, "recommended_gamma"))->v.i, 0);
    ck_assert_str_eq(sd_table_cell(t, 0, sd_table_find(t, "gamma_within_interval"))->v.s, "none");
    sd_table_free(t);
    sd_counts hi = { .gamma = 2, .drafts = 100, .draft_tokens = 200, .accepted_tokens = 190, .has_positions = 1,
                     .accepted_at = { 98, 92 }, .reached = { 100, 100 }, .kind = SD_COUNTS_PREFIX };
    double cheap[4] = { 1.01, 1.02, 1.03, 1.04 };
    rq.cost = cheap;
    ck_assert_int_eq(sd_fit_counts(&hi, 1e-3, &f, NULL), SD_OK);
    ck_assert_int_eq(sd_cmd_fit_report_table(&hi, &f, &rq, SD_CMD_FIT_REPORT_SUMMARY, &t, NULL), SD_OK);
    ck_assert_int_eq(sd_table_cell(t, 0, sd_table_find(t, "recommended_gamma"))->v.i, 4);
    ck_assert_str_eq(sd_table_cell(t, 0, sd_table_find(t, "at_cap"))->v.s, "yes");
    sd_table_free(t);
}
END_TEST

/* ---- the command ---------------------------------------------------------------------------- */

/* The summary report of rq: its recommended_gamma, gamma_within_interval and at_cap. */
static void summary(sd_cmd_fit_request rq, long long *gamma, char *range, size_t size, int *at_cap)
{
    sd_table *t;
    sd_error err;
    rq.report = SD_CMD_FIT_REPORT_SUMMARY;
    ck_assert_msg(sd_cmd_fit_table(&rq, &t, &err) == SD_OK, "%s", err.msg);
    *gamma = sd_table_cell(t, 0, sd_table_find(t, "recommended_gamma"))->v.i;
    snprintf(range, size, "%s", sd_table_cell(t, 0, sd_table_find(t, "gamma_within_interval"))->v.s);
    *at_cap = strcmp(sd_table_cell(t, 0, sd_table_find(t, "at_cap"))->v.s, "yes") == 0;
    sd_table_free(t);
}

/* The struct against the summary's cells and the predictions' row of its best gamma. */
static sd_fit_recommend recommend_as_reported(const sd_cmd_fit_request *rq)
{
    sd_fit_recommend r;
    sd_error err;
    ck_assert_msg(sd_cmd_fit_recommend(rq, &r, &err) == SD_OK, "%s", err.msg);
    long long gamma;
    char range[32], want[32];
    int at_cap;
    summary(*rq, &gamma, range, sizeof range, &at_cap);
    ck_assert_int_eq((long long)r.gamma, gamma);
    if (r.gamma > 0)
        snprintf(want, sizeof want, "%zu-%zu", r.from, r.to);
    else
        snprintf(want, sizeof want, "none");
    ck_assert_str_eq(range, want);
    ck_assert_int_eq(r.at_cap, at_cap);
    sd_table *t;
    ck_assert_int_eq(sd_cmd_fit_table(rq, &t, &err), SD_OK); /* predictions */
    ck_assert_uint_eq(sd_table_nrows(t), r.gamma_max);
    size_t row = r.best - 1;
    ck_assert_double_eq(sd_table_cell(t, row, sd_table_find(t, "improvement"))->v.r, r.improvement);
    ck_assert_double_eq(sd_table_cell(t, row, sd_table_find(t, "improvement_lo"))->v.r, r.improvement_lo);
    ck_assert_double_eq(sd_table_cell(t, row, sd_table_find(t, "improvement_hi"))->v.r, r.improvement_hi);
    ck_assert_double_eq(sd_table_cell(t, row, sd_table_find(t, "expected_tokens"))->v.r, r.expected_tokens);
    for (size_t g = 0; g < r.gamma_max; g++) /* the best is the largest improvement */
        ck_assert(sd_table_cell(t, g, sd_table_find(t, "improvement"))->v.r <= r.improvement);
    sd_table_free(t);
    return r;
}

/* A request for the counters in path at cost ratio c (NaN: none), with 50 replicates. */
static sd_cmd_fit_request request(const char *path, double c)
{
    sd_cmd_fit_request rq = sd_cmd_fit_defaults();
    rq.file = path;
    rq.cost_ratio = c;
    rq.replicates = 50;
    return rq;
}

/* r's gamma, the range reaching its lower bound and the cap. */
static void expect(const sd_fit_recommend *r, size_t gamma, size_t from, size_t to, int at_cap)
{
    ck_assert_uint_eq(r->gamma, gamma);
    ck_assert_uint_eq(r->from, from);
    ck_assert_uint_eq(r->to, to);
    ck_assert_int_eq(r->at_cap, at_cap);
}

/* vLLM V1's three positions at c = 0.02: gamma 4, 3 to 6 within its interval (fit-v1-summary's
 * cells), extrapolated (beyond the measured 3), not at the cap of 6. */
START_TEST(a_recommendation_that_pays)
{
    sd_cmd_fit_request rq = request(fixture_path("counters-vllm-v1.log"), 0.02);
    sd_fit_recommend r = recommend_as_reported(&rq);
    expect(&r, 4, 3, 6, 0);
    ck_assert_uint_eq(r.best, 4);
    ck_assert_uint_eq(r.gamma_max, 6);
    ck_assert_int_eq(r.extrapolated, 1);
    ck_assert(r.improvement_lo <= r.improvement && r.improvement <= r.improvement_hi && r.improvement > 1);
    ck_assert_double_eq(r.improvement, r.expected_tokens / (1 + 4 * 0.02));
}
END_TEST

/* llama.cpp's log at c = 0.02: the best is the last gamma predicted, 8, at the cap; raising the
 * cap moves it. */
START_TEST(a_recommendation_at_the_cap)
{
    sd_cmd_fit_request rq = request(fixture_path("counters-llama.log"), 0.02);
    sd_fit_recommend r = recommend_as_reported(&rq);
    ck_assert_uint_eq(r.gamma, 8);
    ck_assert_uint_eq(r.gamma_max, 8);
    ck_assert_int_eq(r.at_cap, 1);
    rq.gamma_max = 64;
    r = recommend_as_reported(&rq);
    ck_assert_uint_gt(r.gamma, 8);
    ck_assert_int_eq(r.at_cap, 0);
}
END_TEST

/* Two accepted in a hundred at c = 0.5: no gamma pays, gamma 0, the best still named; without a
 * cost there is no recommendation. */
START_TEST(no_recommendation)
{
    const char *path = write_temp("gamma\tdrafts\taccepted_1\n1\t1000\t20\n");
    sd_cmd_fit_request rq = request(path, 0.5);
    sd_fit_recommend r = recommend_as_reported(&rq);
    expect(&r, 0, 0, 0, 0);
    ck_assert_uint_eq(r.best, 1);
    ck_assert_double_lt(r.improvement, 1);
    rq.cost_ratio = NAN;
    sd_error err;
    ck_assert_int_eq(sd_cmd_fit_recommend(&rq, &r, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "--cost: the recommendation needs a cost"));
    unlink(path);
}
END_TEST

/* The roofline presets' costs, with the calibration's draws: the struct is the report's too. */
START_TEST(a_recommendation_under_the_presets)
{
    sd_cmd_fit_request rq = request(fixture_path("counters-vllm-v1.log"), NAN);
    rq.target = "llama-3.1-8b";
    rq.draft = "llama-3.2-1b";
    rq.hardware = "h100-sxm";
    rq.batch = 64;
    sd_fit_recommend r = recommend_as_reported(&rq);
    ck_assert_uint_ge(r.gamma, 1);
    ck_assert(r.improvement_lo < r.improvement && r.improvement < r.improvement_hi);
}
END_TEST

Suite *cmd_fit_suite(void)
{
    Suite *s = suite_create("cmd_fit");
    TCase *tc = tcase_create("cmd_fit");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, predictions_are_the_points);
    tcase_add_test(tc, positions_and_bad_requests);
    tcase_add_test(tc, advice_and_no_cost);
    tcase_add_test(tc, a_recommendation_that_pays);
    tcase_add_test(tc, a_recommendation_at_the_cap);
    tcase_add_test(tc, no_recommendation);
    tcase_add_test(tc, a_recommendation_under_the_presets);
    suite_add_tcase(s, tc);
    return s;
}

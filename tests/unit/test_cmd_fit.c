/* test_cmd_fit.c -- `specdec fit` as a library call (cmd_fit.h): the
 * recommendation as a struct says what the report says in words and cells,
 * for a gamma that pays, one at the cap and none that pays; a request
 * without a cost has none. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "specdec/cmd_fit.h"
#include "testutil.h"

/* The summary report of rq: its recommended_gamma, gamma_within_interval and at_cap. */
static void summary(sd_cmd_fit_request rq, long long *gamma, char *range, size_t size, int *at_cap)
{
    sd_table *t;
    sd_error err;
    rq.report = SD_FIT_REPORT_SUMMARY;
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
    tcase_add_test(tc, a_recommendation_that_pays);
    tcase_add_test(tc, a_recommendation_at_the_cap);
    tcase_add_test(tc, no_recommendation);
    tcase_add_test(tc, a_recommendation_under_the_presets);
    suite_add_tcase(s, tc);
    return s;
}

/* test_fit.c -- specdec fit: the round trip through vLLM's exposition
 * format, the interval's coverage, the i.i.d. test on Markov acceptance,
 * predictions against a second run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "specdec.h"
#include "testutil.h"

/* One engine run of a calibrated zipf model (or the Markov regime). */
static void engine_run(int markov, double alpha, size_t gamma, uint64_t tokens, uint64_t seed, sd_engine_stats *s)
{
    sd_synth_config sc = sd_synth_defaults();
    sc.vocab = 200, sc.alpha = alpha, sc.seed = seed, sc.threads = 2, sc.contexts = 16;
    if (markov)
        sc.regime = SD_REGIME_MARKOV, sc.alpha = NAN;
    sd_model *m;
    ck_assert_int_eq(sd_synth_model(&sc, &m, NULL), SD_OK);
    sd_engine_config ec = sd_engine_defaults();
    ec.model = m, ec.verifier = sd_verify_find("adjusted"), ec.gamma = gamma, ec.tokens = tokens, ec.seed = seed;
    ec.threads = 2;
    sd_error err;
    ck_assert_msg(sd_engine_run(&ec, s, &err) == SD_OK, "%s", err.msg);
    sd_model_free(m);
}

/* The run's counters written in vLLM's exposition format and read back. */
static void round_trip(const sd_engine_stats *s, size_t gamma, sd_counts *out)
{
    sd_counts c;
    sd_error err;
    ck_assert_int_eq(sd_fit_counts_from_engine(s, gamma, &c, &err), SD_OK);
    char path[] = "/tmp/specdec-fit-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_int_eq(sd_counters_write_prometheus(&c, f, &err), SD_OK);
    fclose(f);
    ck_assert_msg(sd_counters_load(path, NULL, out, &err) == SD_OK, "%s", err.msg);
    unlink(path);
    ck_assert_str_eq(out->format, "prometheus");
    ck_assert_uint_eq(out->gamma, gamma);
    ck_assert_double_eq(out->drafts, c.drafts);
    for (size_t i = 0; i < gamma; i++)
        ck_assert_double_eq(out->accepted_at[i], c.accepted_at[i]);
}

/* simulate (i.i.d., alpha 0.7, gamma 5) -> export -> fit: over 200 seeds the
 * 95% interval covers 0.7 in 95% +- 4.6% of runs (3 binomial sigma: 181 to
 * 199 of 200).  Control: the V1 "acceptance rate" accepted / drafted tokens
 * taken for alpha, with an interval of the same width, covers it in none. */
START_TEST(interval_coverage)
{
    enum { SEEDS = 200, G = 5 };
    int covered = 0, control = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        sd_engine_stats s;
        engine_run(0, 0.7, G, 20000, seed, &s);
        sd_counts c;
        round_trip(&s, G, &c);
        sd_fit f;
        ck_assert_int_eq(sd_fit_counts(&c, 1e-3, &f, NULL), SD_OK);
        covered += f.alpha_lo <= 0.7 && 0.7 <= f.alpha_hi;
        double rate = c.accepted_tokens / c.draft_tokens, half = 0.5 * (f.alpha_hi - f.alpha_lo);
        control += rate - half <= 0.7 && 0.7 <= rate + half;
        /* at the measured gamma the prediction is the mean acceptance length exactly */
        ck_assert_rel(sd_fit_expected_tokens(&f, f.chosen, G), 1.0 + c.accepted_tokens / c.drafts, 1e-12);
        sd_engine_stats_free(&s);
    }
    ck_assert_msg(covered >= 181 && covered <= 199, "coverage %d of %d", covered, SEEDS);
    ck_assert_msg(control < 181, "control: accepted/drafted covers alpha in %d of %d", control, SEEDS);
}
END_TEST

/* Markov acceptance: i.i.d. rejected at p < 1e-6 with about 10^6 drafts;
 * the Markov fit predicts E(N) at gamma 8 within 6 SE of a second run at
 * gamma 8; the i.i.d. prediction (control) is more than 6 SE off. */
START_TEST(markov_rejects_iid_and_predicts)
{
    sd_engine_stats s, s8;
    engine_run(1, 0, 5, 2300000, 11, &s);
    ck_assert_uint_ge(s.iterations, 900000);
    sd_counts c;
    round_trip(&s, 5, &c);
    sd_fit f;
    sd_error err;
    ck_assert_msg(sd_fit_counts(&c, 1e-3, &f, &err) == SD_OK, "%s", err.msg);
    ck_assert_msg(f.lr_pvalue < 1e-6, "p = %g", f.lr_pvalue);
    ck_assert_int_eq(f.chosen, f.non_iid);
    ck_assert_int_eq(f.non_iid, SD_FIT_MARKOV);
    engine_run(1, 0, 8, 1000000, 12, &s8);
    double measured = sd_engine_stats_mean_n(&s8), se = sd_engine_stats_mean_n_se(&s8);
    double markov = sd_fit_expected_tokens(&f, SD_FIT_MARKOV, 8), iid = sd_fit_expected_tokens(&f, SD_FIT_IID, 8);
    ck_assert_msg(fabs(markov - measured) < 6 * se, "markov %.5f, measured %.5f (se %.2g)", markov, measured, se);
    ck_assert_msg(fabs(iid - measured) > 6 * se, "control: iid %.5f, measured %.5f (se %.2g)", iid, measured, se);
    sd_engine_stats_free(&s);
    sd_engine_stats_free(&s8);
}
END_TEST

/* The reports: predictions flag extrapolation and recommend a gamma; the
 * i.i.d. MLE equals accepted / tested by hand; bad requests are refused. */
START_TEST(reports_and_hand_counts)
{
    /* 100 drafts of 3: 80 passed position 1, 60 passed 1-2, 30 passed 1-3 */
    sd_counts c = { .gamma = 3, .drafts = 100, .draft_tokens = 300, .accepted_tokens = 170, .has_positions = 1,
                    .accepted_at = { 80, 60, 30 }, .reached = { 100, 100, 100 }, .kind = SD_COUNTS_PREFIX };
    sd_fit f;
    ck_assert_int_eq(sd_fit_counts(&c, 1e-3, &f, NULL), SD_OK);
    ck_assert_double_eq(f.trials, 100 + 80 + 60);
    ck_assert_rel(f.alpha, 170.0 / 240.0, 1e-15);
    ck_assert_rel(f.cond[2], 0.5, 1e-15);
    double cost[6];
    for (int g = 0; g < 6; g++)
        cost[g] = 1.0 + (g + 1) * 0.05;
    sd_fit_request rq = { .gamma_max = 6, .cost = cost, .replicates = 200, .seed = 3 };
    sd_table *t;
    ck_assert_int_eq(sd_fit_table(&c, &f, &rq, SD_FIT_REPORT_PREDICTIONS, &t, NULL), SD_OK);
    ck_assert_uint_eq(sd_table_nrows(t), 6);
    size_t ex = sd_table_find(t, "extrapolated"), e = sd_table_find(t, "expected_tokens");
    ck_assert_str_eq(sd_table_cell(t, 2, ex)->v.s, "no");
    ck_assert_str_eq(sd_table_cell(t, 3, ex)->v.s, "yes");
    ck_assert_rel(sd_table_cell(t, 2, e)->v.r, 1.0 + 170.0 / 100.0, 1e-12); /* the mean acceptance length */
    ck_assert_uint_ge(sd_table_nnotes(t), 1);
    ck_assert_ptr_nonnull(strstr(sd_table_note_at(t, 0), "recommended gamma"));
    sd_table_free(t);
    cost[4] = 0.0;
    sd_error err;
    ck_assert_int_eq(sd_fit_table(&c, &f, &rq, SD_FIT_REPORT_SUMMARY, &t, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "cost: the cost of gamma 5 is 0"));
    ck_assert_int_eq(sd_fit_counts(&c, 1.5, &f, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "level: 1.5 is outside (0, 1)"));
}
END_TEST

Suite *fit_suite(void)
{
    Suite *s = suite_create("fit");
    TCase *tc = tcase_create("fit");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, interval_coverage);
    tcase_add_test(tc, markov_rejects_iid_and_predicts);
    tcase_add_test(tc, reports_and_hand_counts);
    suite_add_tcase(s, tc);
    return s;
}

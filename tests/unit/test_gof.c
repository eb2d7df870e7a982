/* test_gof.c -- goodness of fit (gof.h): Pearson's chi-square, and the
 * engine's output against what a rule must emit. */
#include "specdec/engine.h"
#include "specdec/gof.h"
#include "specdec/synth.h"
#include "specdec/verify.h"
#include "testutil.h"

/* A greedy run's output fits the greedy rule exactly (statistic 0) and is
 * caught against sampling from p.  (From the engine suite's
 * greedy_emits_the_argmax, on its run.) */
START_TEST(greedy_output_fits_greedy_not_sampling)
{
    sd_synth_config c = { .family = SD_FAMILY_LOGITS, .vocab = 50, .zipf_s = 1.5, .kappa = 1.0, .temperature = 0.7,
        .calibrated = 1, .alpha = 0.6, .regime = SD_REGIME_CONSTANT, .concentration = 20, .alpha_easy = 0.95,
        .alpha_hard = 0.3, .stay = 0.9, .contexts = 16, .history = 2, .seed = 3, .threads = 1 };
    sd_model *m;
    ck_assert_int_eq(sd_synth_model(&c, &m, NULL), SD_OK);
    sd_engine_config ec = { .model = m, .verifier = sd_verify_find("greedy"), .policy = SD_POLICY_FIXED, .gamma = 3,
        .tokens = 50000, .seed = 1, .threads = 2, .drafts = 1 };
    sd_engine_stats s;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    sd_gof g;
    ck_assert_int_eq(sd_gof_output(m, sd_verify_find("greedy"), &s, &g, NULL), SD_OK);
    ck_assert_double_eq(g.statistic, 0.0);
    /* against sampling from p the greedy output is caught at once */
    ck_assert_int_eq(sd_gof_output(m, sd_verify_find("adjusted"), &s, &g, NULL), SD_OK);
    ck_assert(g.pvalue < 1e-7);
    sd_engine_stats_free(&s);
    sd_model_free(m);
}
END_TEST

Suite *gof_suite(void)
{
    Suite *s = suite_create("gof");
    TCase *tc = tcase_create("gof");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, greedy_output_fits_greedy_not_sampling);
    suite_add_tcase(s, tc);
    return s;
}

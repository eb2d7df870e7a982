/* test_policies.c -- the draft-length policies side by side (policies.h). */
#include "specdec/engine.h"
#include "specdec/policies.h"
#include "specdec/synth.h"
#include "specdec/table.h"
#include "specdec/verify.h"
#include "testutil.h"

/* With no thresholds given, the quartiles of the draft's top probability:
 * 8 rows, the ceiling last.  (From the engine suite's adaptive_policies,
 * on its model.) */
START_TEST(quartile_thresholds_by_default)
{
    sd_synth_config c = { .family = SD_FAMILY_ZIPF, .vocab = 300, .zipf_s = 1.5, .kappa = 1.0, .temperature = 1.0,
        .calibrated = 1, .alpha = 0.8, .regime = SD_REGIME_CONSTANT, .concentration = 20, .alpha_easy = 0.95,
        .alpha_hard = 0.3, .stay = 0.9, .contexts = 16, .history = 2, .seed = 5, .threads = 2 };
    sd_model *m;
    ck_assert_int_eq(sd_synth_model(&c, &m, NULL), SD_OK);
    const sd_verifier *v = sd_verify_find("adjusted");
    sd_table *t;
    sd_engine_config base = sd_engine_defaults();
    base.model = m, base.verifier = v, base.gamma_max = 12, base.tokens = 50000, base.seed = 1, base.threads = 2;
    ck_assert_int_eq(sd_policies_run(&base, 0.02, NULL, 0, &t, NULL), SD_OK);
    ck_assert_uint_eq(sd_table_nrows(t), 8);
    ck_assert_str_eq(sd_table_cell(t, 7, 0)->v.s, "ceiling 1/(1 - alpha), theory (c = 0)");
    sd_table_free(t);
    sd_model_free(m);
}
END_TEST

Suite *policies_suite(void)
{
    Suite *s = suite_create("policies");
    TCase *tc = tcase_create("policies");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, quartile_thresholds_by_default);
    suite_add_tcase(s, tc);
    return s;
}

/* test_policies.c -- the draft-length policies side by side (policies.h). */
#include <math.h>
#include <string.h>

#include "specdec/engine.h"
#include "specdec/model.h"
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

/* The value of cell (row, col) of a table of numbers. */
static double cell(const sd_table *t, size_t row, size_t col) { return sd_table_cell(t, row, col)->v.r; }

/* The seed's four-token pair (acceptance 0.55 at every position) at c =
 * 0.02, gamma_max 6, thresholds 0.3 and 0.5, 400000 tokens a run.  Rows:
 * fixed at gamma* = 5 (eq. 10: f(4) = 1.954, f(5) = 1.964, f(6) = 1.954),
 * the sweep's best, the heuristic, the thresholds, the oracle, the
 * ceiling 1/(1 - 0.55).  Exact: the parameters; 5 and 6 drafts an
 * iteration (q's top probability 0.4 passes threshold 0.3) and none at
 * threshold 0.5 (N = 1, improvement 1); improvement = N / (1 + 5 c) for the
 * fixed row; the best of the sweep at least the fixed row; the ceiling row.
 * Measured, within 6 of the row's standard errors (a correct run fails with
 * probability 2e-9): fixed E(N) = (1 - 0.55^6) / 0.45, threshold 0.3 E(N) at
 * gamma 6, oracle 1 / 0.45.  Negative controls: E(N) at gamma 4 for the
 * fixed and threshold rows, and the fixed row's E(N) for the oracle, are
 * over 9.1 standard errors away (about 15, 22 and 16). */
START_TEST(four_token_pair_side_by_side)
{
    const double p[] = { 0.5, 0.1, 0.3, 0.1 }, q[] = { 0.2, 0.4, 0.15, 0.25 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, q, 4, &m, NULL), SD_OK);
    sd_engine_config base = sd_engine_defaults();
    base.model = m, base.verifier = sd_verify_find("adjusted"), base.gamma_max = 6, base.tokens = 400000;
    base.seed = 8, base.threads = 2;
    const double th[] = { 0.3, 0.5 }, c = 0.02, a = 0.55;
    sd_table *t;
    sd_error err;
    ck_assert_msg(sd_policies_run(&base, c, th, 2, &t, &err) == SD_OK, "%s", err.msg);
    static const char *const cols[] = { "policy", "parameter", "tokens_per_iteration", "tokens_per_iteration_se",
                                        "drafts_per_iteration", "improvement" };
    ck_assert_uint_eq(sd_table_ncols(t), 6);
    for (size_t j = 0; j < 6; j++)
        ck_assert_str_eq(sd_table_name(t, j), cols[j]);
    ck_assert_uint_eq(sd_table_nrows(t), 7);
    enum { FIXED, BEST, HEURISTIC, TH03, TH05, ORACLE, CEILING, N_, SE, DRAFTS = 4, F = 5 };
    static const char *const names[] = { "fixed at the closed-form gamma*", "fixed, best of the measured sweep",
                                         "heuristic +2/-1 (start 2, parameter: the cap)",
                                         "threshold on the draft's top probability",
                                         "threshold on the draft's top probability",
                                         "oracle: draft until the first rejection (parameter: its cap)",
                                         "ceiling 1/(1 - alpha), theory (c = 0)" };
    for (size_t i = 0; i < 7; i++)
        ck_assert_str_eq(sd_table_cell(t, i, 0)->v.s, names[i]);
    /* parameters */
    ck_assert_double_eq(cell(t, FIXED, 1), 5);
    ck_assert(cell(t, BEST, 1) >= 1 && cell(t, BEST, 1) <= 6 && cell(t, BEST, 1) == floor(cell(t, BEST, 1)));
    ck_assert_double_eq(cell(t, HEURISTIC, 1), 6);
    ck_assert_double_eq(cell(t, TH03, 1), 0.3);
    ck_assert_double_eq(cell(t, TH05, 1), 0.5);
    ck_assert_double_eq(cell(t, ORACLE, 1), SD_ORACLE_MAX);
    ck_assert_double_eq_tol(cell(t, CEILING, 1), a, 1e-15);
    /* exact relations */
    ck_assert_double_eq(cell(t, FIXED, DRAFTS), 5);
    ck_assert_rel(cell(t, FIXED, F), cell(t, FIXED, 2) / (1 + 5 * c), 1e-12);
    ck_assert(cell(t, BEST, F) >= cell(t, FIXED, F)); /* gamma* is one of the sweep's runs */
    ck_assert_double_eq(cell(t, TH03, DRAFTS), 6);
    ck_assert_double_eq(cell(t, TH05, DRAFTS), 0);
    ck_assert_double_eq(cell(t, TH05, 2), 1);
    ck_assert_double_eq(cell(t, TH05, 3), 0);
    ck_assert_double_eq(cell(t, TH05, F), 1);
    double hd = cell(t, HEURISTIC, DRAFTS);
    ck_assert(hd >= 1 && hd <= 6);
    ck_assert_rel(cell(t, CEILING, 2), 1 / (1 - a), 1e-12);
    ck_assert_double_eq(cell(t, CEILING, 3), 0);
    ck_assert(isinf(cell(t, CEILING, DRAFTS)));
    ck_assert_rel(cell(t, CEILING, F), 1 / (1 - a), 1e-12);
    /* measured */
    const double e5 = (1 - pow(a, 6)) / (1 - a), e4 = (1 - pow(a, 5)) / (1 - a), e6 = (1 - pow(a, 7)) / (1 - a);
    const struct { size_t row; double want, control; } meas[] = {
        { FIXED, e5, e4 }, { TH03, e6, e4 }, { ORACLE, 1 / (1 - a), e5 } };
    for (size_t k = 0; k < sizeof meas / sizeof meas[0]; k++) {
        double n = cell(t, meas[k].row, 2), se = cell(t, meas[k].row, 3);
        ck_assert(se > 0 && se < 0.01);
        ck_assert_msg(fabs(n - meas[k].want) <= 6 * se, "row %zu: %.5f tokens, expected %.5f (se %.2g)",
                      meas[k].row, n, meas[k].want, se);
        ck_assert_msg(fabs(n - meas[k].control) > 9.1 * se, "row %zu: control %.5f not caught", meas[k].row,
                      meas[k].control);
    }
    sd_table_free(t);
    /* a cost out of its domain: refused, *out NULL */
    sd_table *other = sd_table_alloc(6, cols);
    t = other; /* anything but NULL */
    ck_assert_int_eq(sd_policies_run(&base, -1, th, 2, &t, &err), SD_EINVAL);
    ck_assert_ptr_null(t);
    sd_table_free(other);
    ck_assert_msg(strncmp(err.msg, "cost: ", 6) == 0, "%s", err.msg);
    sd_model_free(m);
}
END_TEST

Suite *policies_suite(void)
{
    Suite *s = suite_create("policies");
    TCase *tc = tcase_create("policies");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, quartile_thresholds_by_default);
    tcase_add_test(tc, four_token_pair_side_by_side);
    suite_add_tcase(s, tc);
    return s;
}

/* test_cost.c -- the roofline cost model: its limits, monotonicity, presets. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost.h"
#include "testutil.h"
#include "theory.h"

static const sd_model_spec TARGET = { "t70", 70.6e9, 70.6e9, 2, 80, 64, 8, 128, 2, 1, 1 };
static const sd_model_spec DRAFT = { "d1", 1.23e9, 1.23e9, 2, 16, 32, 8, 64, 2, 1, 1 };
static const sd_model_spec MOE = { "moe", 46.7e9, 12.9e9, 2, 32, 32, 8, 128, 2, 8, 2 };
static const sd_hardware H100 = { "h100", 989e12, 3.35e12, 80e9 };

START_TEST(small_batch_is_eq10)
{
    sd_cost_params cp = sd_cost_defaults();
    cp.overhead = 0.0;
    double t1 = sd_cost_step_time(&TARGET, &H100, &cp, 1, 1, 1, NULL);
    double c = sd_cost_step_time(&DRAFT, &H100, &cp, 1, 1, 1, NULL) / t1;
    ck_assert(c > 0.01 && c < 0.03); /* about the ratio of the weights read, 1.23/70.6 */
    for (double g = 1; g <= 12; g++) {
        double ratio = sd_cost_step_time(&TARGET, &H100, &cp, 1, g + 1, 1, NULL) / t1;
        /* all that is left is writing g more tokens' KV: 1e-5 of the weights */
        ck_assert_msg(ratio - 1.0 < 1e-4, "gamma %g: verification costs %g target steps", g, ratio);
        double f = sd_theory_expected_tokens(0.8, g) / (g * c + ratio);
        ck_assert_rel(f, sd_theory_improvement(0.8, g, c), 1e-4);
    }
    static const double gammas[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    sd_roofline_point r;
    sd_cost_roofline(&TARGET, &DRAFT, &H100, &cp, 0.8, NULL, 0, gammas, 16, 1, 1, &r);
    sd_optimum o;
    ck_assert_int_eq(sd_theory_optimal(0.8, r.c_effective, &o, NULL), SD_OK);
    ck_assert_double_eq(r.gamma_opt, o.gamma_opt); /* the roofline optimum is eq. (10)'s */
    ck_assert_rel(r.improvement_opt, o.improvement_opt, 1e-4);
    ck_assert_int_eq(r.compute_bound, 0);
}
END_TEST

START_TEST(large_batch_is_compute_bound)
{
    sd_cost_params cp = sd_cost_defaults();
    static const double gammas[] = { 1, 2, 3, 4, 6, 8, 12, 16 };
    sd_roofline_point r;
    sd_cost_roofline(&TARGET, &DRAFT, &H100, &cp, 0.8, NULL, 0, gammas, 8, 65536, 128, &r);
    ck_assert_double_eq(r.gamma_opt, 0.0);
    ck_assert_double_eq(r.improvement_opt, 1.0);
    ck_assert_int_eq(r.compute_bound, 1);
    for (int i = 0; i < 8; i++) { /* every gamma loses: verification is no longer free */
        double ratio = sd_cost_step_time(&TARGET, &H100, &cp, 65536, gammas[i] + 1, 128, NULL) /
                       sd_cost_step_time(&TARGET, &H100, &cp, 65536, 1, 128, NULL);
        ck_assert(sd_theory_expected_tokens(0.8, gammas[i]) / (gammas[i] * r.c_effective + ratio) < 1.0);
    }
}
END_TEST

START_TEST(improvement_falls_with_batch)
{
    sd_cost_params cp = sd_cost_defaults();
    static const double gammas[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
    static const double contexts[] = { 128, 4096, 32768 };
    for (int k = 0; k < 3; k++) {
        double last = INFINITY;
        for (double b = 1; b <= 8192; b *= 2) {
            sd_roofline_point r;
            sd_cost_roofline(&TARGET, &DRAFT, &H100, &cp, 0.75, NULL, 0, gammas, 12, b, contexts[k], &r);
            ck_assert_msg(r.improvement_opt <= last * (1 + 1e-12), "context %g batch %g: %g after %g", contexts[k], b,
                          r.improvement_opt, last);
            last = r.improvement_opt;
        }
        if (contexts[k] <= 128) /* short contexts reach plain decoding; at long ones the KV read keeps
                                 * verification memory-bound (GQA attention does 8 FLOPs a byte) */
            ck_assert_double_eq(last, 1.0);
    }
}
END_TEST

START_TEST(experts_make_verification_costlier)
{
    sd_cost_params cp = sd_cost_defaults();
    cp.overhead = 0.0;
    double t1 = sd_cost_step_time(&MOE, &H100, &cp, 1, 1, 1, NULL);
    double t8 = sd_cost_step_time(&MOE, &H100, &cp, 1, 8, 1, NULL);
    /* one token reads the shared weights and 2 of 8 experts; 8 tokens read 1 - (3/4)^8 = 90% of them */
    double expert = (46.7e9 - (12.9e9 - 0.25 * 46.7e9) / 0.75), shared = 46.7e9 - expert;
    ck_assert_rel(t8 / t1, (shared + expert * (1 - pow(0.75, 8))) / (shared + 0.25 * expert), 1e-4);
    ck_assert(t8 / t1 > 1.5);
    ck_assert_rel(sd_cost_step_time(&TARGET, &H100, &cp, 1, 8, 1, NULL) / sd_cost_step_time(&TARGET, &H100, &cp, 1, 1, 1, NULL),
                  1.0, 1e-4); /* a dense model does not */
}
END_TEST

START_TEST(memory_fit)
{
    sd_cost_params cp = sd_cost_defaults();
    ck_assert_int_eq(sd_cost_fits(&TARGET, &DRAFT, &H100, &cp, 1, 1024, 5), 0); /* 141 GB of BF16 weights */
    cp.devices = 2;
    ck_assert_int_eq(sd_cost_fits(&TARGET, &DRAFT, &H100, &cp, 1, 1024, 5), 1);
    ck_assert_int_eq(sd_cost_fits(&TARGET, &DRAFT, &H100, &cp, 1024, 8192, 5), 0); /* KV caches of 1024 x 8K tokens */
}
END_TEST

START_TEST(presets_and_bad_files)
{
    sd_model_spec *m;
    sd_hardware *h;
    size_t n;
    ck_assert_int_eq(sd_cost_load_models("data/models.tsv", &m, &n, NULL), SD_OK);
    ck_assert_uint_ge(n, 4);
    int moe = 0;
    for (size_t i = 0; i < n; i++)
        moe |= m[i].experts > 1;
    ck_assert(moe);
    free(m);
    ck_assert_int_eq(sd_cost_load_hardware("data/hardware.tsv", &h, &n, NULL), SD_OK);
    ck_assert_uint_ge(n, 6);
    ck_assert_str_eq(h[2].name, "h200");
    ck_assert_double_eq(h[2].memory, 141e9);
    free(h);
    sd_error err;
    const char *path = write_temp("name\ttflops\tbandwidth_tbs\tmemory_gb\nx\t100\t2\t80\ny\t100\t-2\t80\n");
    ck_assert_int_eq(sd_cost_load_hardware(path, &h, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, ":3: bandwidth_tbs: -2 is outside"));
    unlink(path);
    path = write_temp("name\ttflops\tbandwidth_tbs\nx\t100\t2\n");
    ck_assert_int_eq(sd_cost_load_hardware(path, &h, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "no 'memory_gb' column"));
    unlink(path);
    path = write_temp("name\tparams_total\tparams_active\tbytes_per_param\tlayers\theads\tkv_heads\thead_dim\tkv_bytes\t"
                      "experts\texperts_active\nm\t1e9\t2e9\t2\t16\t32\t8\t64\t2\t1\t1\n");
    ck_assert_int_eq(sd_cost_load_models(path, &m, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, ":2: active parameters or experts exceed the totals"));
    unlink(path);
}
END_TEST

Suite *cost_suite(void)
{
    Suite *s = suite_create("cost");
    TCase *tc = tcase_create("cost");
    tcase_add_test(tc, small_batch_is_eq10);
    tcase_add_test(tc, large_batch_is_compute_bound);
    tcase_add_test(tc, improvement_falls_with_batch);
    tcase_add_test(tc, experts_make_verification_costlier);
    tcase_add_test(tc, memory_fit);
    tcase_add_test(tc, presets_and_bad_files);
    suite_add_tcase(s, tc);
    return s;
}

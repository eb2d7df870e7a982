/* test_cost.c -- the roofline cost model: its limits, monotonicity, presets. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "specdec.h"
#include "testutil.h"

static const sd_model_spec TARGET = { .name = "t70", .params_total = 70.6e9, .params_active = 70.6e9,
                                      .bytes_per_param = 2, .layers = 80, .heads = 64, .kv_heads = 8,
                                      .head_dim = 128, .kv_bytes = 2, .experts = 1, .experts_active = 1 };
static const sd_model_spec DRAFT = { .name = "d1", .params_total = 1.23e9, .params_active = 1.23e9,
                                     .bytes_per_param = 2, .layers = 16, .heads = 32, .kv_heads = 8, .head_dim = 64,
                                     .kv_bytes = 2, .experts = 1, .experts_active = 1 };
static const sd_model_spec MOE = { .name = "moe", .params_total = 46.7e9, .params_active = 12.9e9,
                                   .bytes_per_param = 2, .layers = 32, .heads = 32, .kv_heads = 8, .head_dim = 128,
                                   .kv_bytes = 2, .experts = 8, .experts_active = 2 };
static const sd_hardware H100 = { .name = "h100", .flops = 989e12, .bandwidth = 3.35e12, .memory = 80e9 };

/* The 70B + 1B pair on one H100 at i.i.d. alpha over gammas[0..ng-1]. */
static sd_roofline_request request(const sd_cost_params *cp, double alpha, const double *gammas, size_t ng)
{
    return (sd_roofline_request){ .target = &TARGET, .draft = &DRAFT, .hardware = &H100, .params = *cp,
                                  .alpha = alpha, .gammas = gammas, .ngammas = ng };
}

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
    sd_roofline_request rq = request(&cp, 0.8, gammas, 16);
    sd_cost_roofline(&rq, 1, 1, &r);
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
    sd_roofline_request rq = request(&cp, 0.8, gammas, 8);
    sd_cost_roofline(&rq, 65536, 128, &r);
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
            sd_roofline_request rq = request(&cp, 0.75, gammas, 12);
            sd_cost_roofline(&rq, b, contexts[k], &r);
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

/* Issue 10: a mixture whose every expert serves every token is a dense model
 * (a 0/0 in the expert share used to give c_effective 13.3 instead of 0.117). */
START_TEST(all_experts_active_is_dense)
{
    sd_model_spec all = MOE;
    all.experts_active = all.experts;
    all.params_active = all.params_total;
    sd_model_spec dense = all;
    dense.experts = dense.experts_active = 1;
    sd_cost_params cp = sd_cost_defaults();
    for (double n = 1; n <= 16; n *= 2) {
        int cb1, cb2;
        ck_assert_double_eq(sd_cost_step_time(&all, &H100, &cp, 4, n, 1024, &cb1),
                            sd_cost_step_time(&dense, &H100, &cp, 4, n, 1024, &cb2));
        ck_assert_int_eq(cb1, cb2);
    }
    double t = sd_cost_step_time(&all, &H100, &cp, 1, 1, 1024, NULL);
    ck_assert(isfinite(t) && t > 0);
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

/* The break-even batch and the schedule agree with point-by-point evaluation. */
START_TEST(breakeven_and_schedule)
{
    sd_cost_params cp = sd_cost_defaults();
    cp.devices = 2;
    static const double gammas[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    double batches[16];
    for (int i = 0; i < 16; i++)
        batches[i] = ldexp(1.0, i); /* 1 .. 32768 */
    sd_roofline_request rq = request(&cp, 0.8, gammas, 16);
    double g[16];
    for (int i = 0; i < 16; i++) {
        sd_roofline_point r;
        sd_cost_roofline(&rq, batches[i], 1024, &r);
        g[i] = r.gamma_opt;
    }
    /* brute force: the first batch from which every later gamma_opt is 0 */
    int first_off = 16;
    while (first_off > 0 && g[first_off - 1] == 0.0)
        first_off--;
    ck_assert_int_lt(first_off, 16); /* speculation does switch off on this grid */
    ck_assert_int_gt(first_off, 0);
    ck_assert_double_eq(sd_cost_breakeven(&rq, batches, 16, 1024), batches[first_off]);
    ck_assert(isnan(sd_cost_breakeven(&rq, batches, (size_t)first_off, 1024))); /* it still helps at the last */
    sd_schedule_bucket b[16];
    size_t nb = sd_cost_schedule(&rq, batches, 16, 1024, b);
    ck_assert_uint_ge(nb, 2);
    size_t covered = 0;
    for (size_t k = 0; k < nb; k++) { /* buckets tile the batches in order, each with one gamma */
        ck_assert_double_eq(b[k].batch_from, batches[covered]);
        while (covered < 16 && batches[covered] <= b[k].batch_to) {
            ck_assert_double_eq(g[covered], b[k].gamma);
            covered++;
        }
        if (k > 0)
            ck_assert(b[k].gamma != b[k - 1].gamma);
    }
    ck_assert_uint_eq(covered, 16);
    ck_assert_double_eq(b[nb - 1].gamma, 0.0);
}
END_TEST

START_TEST(presets_and_bad_files)
{
    sd_presets p;
    sd_error err;
    /* found through the resolver from any working directory (the build tree's data/) */
    ck_assert_int_eq(sd_presets_load(NULL, NULL, NULL, &p, &err), SD_OK);
    ck_assert_uint_ge(p.nmodels, 4);
    int moe = 0;
    for (size_t i = 0; i < p.nmodels; i++)
        moe |= p.models[i].experts > 1;
    ck_assert(moe);
    ck_assert_uint_ge(p.nhardware, 6);
    const sd_hardware *h200;
    ck_assert_int_eq(sd_presets_hardware(&p, "hardware", "h200", &h200, &err), SD_OK);
    ck_assert_double_eq(h200->memory, 141e9);
    const sd_model_spec *m0 = NULL;
    ck_assert_int_eq(sd_presets_model(&p, "draft", "no-such-model", &m0, &err), SD_EINVAL);
    ck_assert_ptr_null(m0);
    ck_assert_ptr_nonnull(strstr(err.msg, "draft: unknown model 'no-such-model'; known: "));
    ck_assert_ptr_nonnull(strstr(err.msg, p.models[0].name));
    ck_assert_int_eq(sd_presets_model(&p, "target", NULL, &m0, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "target: a model name is required"));
    sd_presets_free(&p);
    ck_assert_int_eq(sd_presets_load("/nonexistent-folder", NULL, NULL, &p, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "data: '/nonexistent-folder' is not a folder"));

    sd_model_spec *m;
    sd_hardware *h;
    size_t n;
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
    /* a figure so large that products overflow is refused with its file and line */
    path = write_temp("name\ttflops\tbandwidth_tbs\tmemory_gb\nx\t1e300\t2\t80\n");
    ck_assert_int_eq(sd_cost_load_hardware(path, &h, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, ":2: tflops: 1e300 is outside [1e-300, 1000000000]"));
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
    tcase_add_test(tc, all_experts_active_is_dense);
    tcase_add_test(tc, memory_fit);
    tcase_add_test(tc, breakeven_and_schedule);
    tcase_add_test(tc, presets_and_bad_files);
    suite_add_tcase(s, tc);
    return s;
}

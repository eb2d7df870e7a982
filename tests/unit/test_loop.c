/* test_loop.c -- engine profiles (loop.h): the loop's terms in the roofline by hand, their
 * limits, the bit-for-bit roofline without them, the profile file's rules. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "specdec/cost.h"
#include "specdec/loop.h"
#include "specdec/theory.h"
#include "testutil.h"

static const sd_model_spec DRAFT_1B = DENSE("d1", 1.23e9, 16, 2048, 32, 8, 64, 8192, 128256);

/* Llama-3.1-8B and a 1B draft on one H100, calibrated-looking terms (launch costs on). */
static sd_roofline_request pair(const double *gammas, size_t ng, double alpha)
{
    sd_roofline_request rq = sd_cost_roofline_defaults();
    sd_cost_params cp = sd_cost_defaults();
    cp.eta_flops = 0.23, cp.eta_bw = 0.72, cp.launch = 3.7e-6;
    rq.target = &L8B, rq.draft = &DRAFT_1B, rq.hardware = &H100, rq.params = rq.draft_params = cp;
    rq.alpha = alpha, rq.gammas = gammas, rq.ngammas = ng;
    return rq;
}

/* T_g and T_0 of loop.h summed here term by term from the passes' times (sd_cost_step_time),
 * against the roofline's improvement at one gamma and sd_cost_iteration_time's parts: each
 * term alone, then all together, at batches 1, 16 and 128. */
START_TEST(terms_by_hand)
{
    const sd_loop_params each[] = {
        { .draft_step = 6e-4 }, { .draft_step_seq = 2e-6 }, { .iteration = 1.1e-3 }, { .iteration_token = 3e-7 },
        { .host_seq = 2e-5 }, { .verify_premium = 0.25 }, { .catch_up = 1 },
        { 6e-4, 2e-6, 1.1e-3, 3e-7, 2e-5, 0.25, 1 },
    };
    for (size_t k = 0; k < sizeof each / sizeof each[0]; k++)
        for (double b = 1; b <= 128; b *= (b == 1 ? 16 : 8)) {
            const double g = 4, S = 2048, alpha = 0.8, en = sd_theory_expected_tokens(alpha, g);
            sd_roofline_request rq = pair(&g, 1, alpha);
            rq.loop = each[k];
            const sd_loop_params *l = &each[k];
            double t1 = sd_cost_step_time(&L8B, &H100, &rq.params, b, 1, S, NULL);
            double td = sd_cost_step_time(&DRAFT_1B, &H100, &rq.params, b, 1, S, NULL);
            double tde = sd_cost_step_time(&DRAFT_1B, &H100, &rq.params, b, en, S, NULL);
            double tv = sd_cost_step_time(&L8B, &H100, &rq.params, b, g + 1, S, NULL);
            double plain = t1 + b * l->host_seq;
            double iter = g * (td + l->draft_step + b * l->draft_step_seq) + (l->catch_up ? tde - td : 0) +
                          tv * (1 + l->verify_premium) + l->iteration + b * (g + 1) * l->iteration_token +
                          b * l->host_seq;
            sd_roofline_point r;
            sd_cost_roofline(&rq, b, S, &r);
            ck_assert_rel(r.improvement_opt, fmax(1.0, en * plain / iter), 1e-12);
            ck_assert_rel(r.tokens_per_second_baseline, b / plain, 1e-14);
            sd_cost_iteration it;
            sd_cost_iteration_time(&rq, b, S, g, en, &it);
            ck_assert_rel(it.total, iter, 1e-12);
            ck_assert_rel(it.plain, plain, 1e-14);
            ck_assert_rel(it.draft_loop, g * (l->draft_step + b * l->draft_step_seq), 1e-12);
            ck_assert_rel(it.iteration, l->iteration + b * (g + 1) * l->iteration_token, 1e-12);
        }
}
END_TEST

/* The limits.  alpha = 0 (E(N) = 1): the catch-up pass runs over one token, so it costs nothing,
 * and any loop time leaves no gamma worth drafting.  alpha = 1: E(N) = gamma + 1.  A draft step
 * floor of a second: gamma 0.  Every term 0: the roofline of sd_cost_roofline_defaults bit for
 * bit, and its control: an iteration term of 1e-12 s moves it. */
START_TEST(limits)
{
    static const double gammas[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    sd_roofline_request rq = pair(gammas, 8, 0.0), bare = rq;
    rq.loop = (sd_loop_params){ .catch_up = 1 };
    sd_roofline_point r, b;
    sd_cost_roofline(&rq, 1, 1024, &r);
    sd_cost_roofline(&bare, 1, 1024, &b);
    ck_assert(memcmp(&r, &b, sizeof r) == 0);
    rq.loop.iteration = 1e-6;
    sd_cost_roofline(&rq, 1, 1024, &r);
    ck_assert_double_eq(r.gamma_opt, 0);
    ck_assert_double_eq(r.improvement_opt, 1);
    rq = pair(gammas, 8, 1.0);
    rq.loop = (sd_loop_params){ .draft_step = 5e-4, .iteration = 1e-3, .catch_up = 1 };
    sd_cost_iteration it;
    sd_cost_iteration_time(&rq, 1, 1024, 8, sd_theory_expected_tokens(1.0, 8), &it);
    sd_cost_roofline(&rq, 1, 1024, &r);
    ck_assert_double_eq(sd_theory_expected_tokens(1.0, 8), 9);
    ck_assert_rel(r.improvement_opt, 9 * it.plain / it.total, 1e-12);
    rq.loop.draft_step = 1.0;
    sd_cost_roofline(&rq, 1, 1024, &r);
    ck_assert_double_eq(r.gamma_opt, 0);
    bare = pair(gammas, 8, 0.8);
    rq = bare;
    rq.loop = sd_loop_none();
    sd_cost_roofline(&rq, 64, 4096, &r);
    sd_cost_roofline(&bare, 64, 4096, &b);
    ck_assert(memcmp(&r, &b, sizeof r) == 0);
    rq.loop.iteration = 1e-12;
    sd_cost_roofline(&rq, 64, 4096, &r);
    ck_assert(r.improvement_opt != b.improvement_opt);
}
END_TEST

/* A chain tree's iteration under a profile is the chain's (sd_cost_iteration_time). */
START_TEST(tree_takes_the_terms)
{
    sd_roofline_request rq = pair(NULL, 0, 0.8);
    rq.loop = (sd_loop_params){ 6e-4, 2e-6, 1.1e-3, 3e-7, 2e-5, 0.25, 1 };
    sd_tree t;
    sd_error err;
    ck_assert_int_eq(sd_tree_parse("chain:5", NULL, &t, "t", &err), SD_OK);
    double en = sd_theory_expected_tokens(0.8, 5), d;
    for (double b = 1; b <= 256; b *= 16) {
        sd_cost_iteration it;
        sd_cost_iteration_time(&rq, b, 2048, 5, en, &it);
        ck_assert_rel(sd_cost_tree_time(&rq, &t, b, 2048, en, &d), it.total, 1e-12);
        ck_assert_rel(d, it.draft + it.draft_loop, 1e-12);
        ck_assert_rel(sd_cost_plain_time(&rq, b, 2048), it.plain, 1e-14);
    }
}
END_TEST

static sd_status load_text(const char *text, sd_loop_profile **p, size_t *n, sd_error *err)
{
    const char *path = write_temp(text);
    sd_status st = sd_loop_load(path, p, n, err);
    unlink(path);
    return st;
}

#define HEAD "engine\tdrafter\tsource\tdraft_step_ms\tdraft_step_seq_us\titeration_ms\titeration_token_us\t" \
             "host_seq_us\tverify_premium\tcatch_up\n"

/* The file's rules, each refusal naming its line; a kind's own row before the engine's "*". */
START_TEST(profiles_file)
{
    sd_loop_profile *p = NULL;
    size_t n = 0;
    sd_error err;
    ck_assert_int_eq(load_text(HEAD "e\t*\ts\t1\t2\t3\t4\t5\t0.5\toff\n"
                                    "e\tngram\ts\t0\t0\t0.5\t0\t0\t0\ton\n", &p, &n, &err), SD_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_double_eq(p[0].p.draft_step, 1e-3);
    ck_assert_rel(p[0].p.draft_step_seq, 2e-6, 1e-15);
    ck_assert_rel(p[0].p.iteration, 3e-3, 1e-15);
    ck_assert_rel(p[0].p.iteration_token, 4e-6, 1e-15);
    ck_assert_rel(p[0].p.host_seq, 5e-6, 1e-15);
    ck_assert_double_eq(p[0].p.verify_premium, 0.5);
    ck_assert_int_eq(p[0].p.catch_up, 0);
    const sd_loop_profile *f = NULL;
    ck_assert_int_eq(sd_loop_find(p, n, "--engine", "e", "ngram", &f, &err), SD_OK);
    ck_assert_ptr_eq(f, &p[1]);
    ck_assert_int_eq(sd_loop_find(p, n, "--engine", "e", "draft-model", &f, &err), SD_OK);
    ck_assert_ptr_eq(f, &p[0]);
    ck_assert_int_eq(sd_loop_find(p, n, "--engine", "x", "draft-model", &f, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "--engine: unknown engine 'x'; known: e");
    free(p);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        { HEAD "e\tmedusa\ts\t0\t0\t0\t0\t0\t0\toff\n", ":2: drafter: unknown kind 'medusa'" },
        { HEAD "e\t*\ts\t0\t0\t0\t0\t0\t0\toff\ne\t*\ts\t0\t0\t0\t0\t0\t0\ton\n", ":3: engine e with drafter * is line 2's" },
        { HEAD "e\t*\ts\t0\t0\t0\t0\t0\t0\tyes\n", ":2: catch_up: 'yes' is neither on nor off" },
        { HEAD "e\t*\ts\t-1\t0\t0\t0\t0\t0\toff\n", ":2: draft_step_ms: -1 is outside [0, 1000]" },
        { HEAD "e\t*\ts\t0\t0\t0\t0\t0\t11\toff\n", ":2: verify_premium: 11 is outside [0, 10]" },
        { "engine\tdrafter\tsource\n", "no 'draft_step_ms' column" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = (sd_loop_profile *)(uintptr_t)0x5eed;
        ck_assert_int_eq(load_text(bad[i].text, &p, &n, &err), SD_EINVAL);
        ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL, "[%s] lacks [%s]", err.msg, bad[i].msg);
        ck_assert_ptr_eq(p, (sd_loop_profile *)(uintptr_t)0x5eed);
    }
}
END_TEST

/* The shipped profiles load with the values their comments derive: vllm-v1's draft-step floor
 * and catch-up for every drafter that runs passes, its n-gram row the iteration's time alone. */
START_TEST(shipped_profiles)
{
    sd_loop_profile *p;
    size_t n;
    sd_error err;
    ck_assert_int_eq(sd_loop_load(data_path("engine-profiles.tsv"), &p, &n, &err), SD_OK);
    const sd_loop_profile *f;
    static const char *const kinds[] = { "draft-model", "self", "eagle", "eagle3", "mtp" };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        ck_assert_int_eq(sd_loop_find(p, n, "--engine", "vllm-v1", kinds[k], &f, &err), SD_OK);
        ck_assert_rel(f->p.draft_step, 6e-4, 1e-15);
        ck_assert_rel(f->p.iteration, 1.1e-3, 1e-15);
        ck_assert_int_eq(f->p.catch_up, 1);
    }
    ck_assert_int_eq(sd_loop_find(p, n, "--engine", "vllm-v1", "ngram", &f, &err), SD_OK);
    ck_assert_double_eq(f->p.draft_step, 0);
    ck_assert_rel(f->p.iteration, 1.1e-3, 1e-15);
    ck_assert_int_eq(f->p.catch_up, 0);
    ck_assert_str_eq(sd_loop_drafter_of(&L8B, &L8B), "self");
    ck_assert_str_eq(sd_loop_drafter_of(&L8B, sd_presets_ngram()), "ngram");
    ck_assert_str_eq(sd_loop_drafter_of(&L8B, &DRAFT_1B), "draft-model");
    free(p);
}
END_TEST

Suite *loop_suite(void)
{
    Suite *s = suite_create("loop");
    TCase *tc = tcase_create("loop");
    tcase_add_test(tc, terms_by_hand);
    tcase_add_test(tc, limits);
    tcase_add_test(tc, tree_takes_the_terms);
    tcase_add_test(tc, profiles_file);
    tcase_add_test(tc, shipped_profiles);
    suite_add_tcase(s, tc);
    return s;
}

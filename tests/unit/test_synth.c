/* test_synth.c -- synthetic target/draft models (synth.h): calibrated
 * acceptance, the bank, the regimes, the memory estimate, a huge
 * vocabulary. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "specdec/engine.h"
#include "specdec/model.h"
#include "specdec/rng.h"
#include "specdec/synth.h"
#include "specdec/verify.h"
#include "testutil.h"

static sd_synth_config base_config(sd_family f, size_t vocab, double alpha)
{
    sd_synth_config c = { .family = f, .vocab = vocab, .zipf_s = 1.5, .kappa = 0.5, .temperature = 1.0,
        .calibrated = 1, .alpha = alpha, .regime = SD_REGIME_CONSTANT, .concentration = 20, .alpha_easy = 0.95,
        .alpha_hard = 0.3, .stay = 0.9, .contexts = 8, .history = 2, .seed = 11, .threads = 2 };
    return c;
}

START_TEST(calibrated_drafts_hit_alpha)
{
    static const sd_family fams[] = { SD_FAMILY_ZIPF, SD_FAMILY_DIRICHLET, SD_FAMILY_LOGITS };
    static const double alphas[] = { 0.05, 0.3, 0.62, 0.8, 0.97, 1.0 };
    for (size_t f = 0; f < 3; f++)
        for (size_t a = 0; a < 6; a++) {
            sd_synth_config cfg = base_config(fams[f], 500, alphas[a]);
            sd_model *m;
            sd_error err;
            ck_assert_msg(sd_synth_model(&cfg, &m, &err) == SD_OK, "%s", err.msg);
            for (size_t c = 0; c < sd_model_contexts(m); c++) {
                const sd_context *ctx = sd_model_context(m, c);
                ck_assert_double_eq_tol(ctx->beta, alphas[a], 1e-12);
                double sp = 0, sq = 0;
                for (size_t r = 0; r < 500; r++) {
                    ck_assert(ctx->p[r] >= 0 && ctx->q[r] >= 0);
                    ck_assert(r == 0 || ctx->p[r] <= ctx->p[r - 1]); /* rank space */
                    sp += ctx->p[r], sq += ctx->q[r];
                }
                ck_assert_double_eq_tol(sp, 1.0, 1e-12);
                ck_assert_double_eq_tol(sq, 1.0, 1e-12);
            }
            sd_model_free(m);
        }
}
END_TEST

START_TEST(bank_is_thread_independent_and_unreachable_alpha_fails)
{
    sd_synth_config a = base_config(SD_FAMILY_DIRICHLET, 300, 0.7), b = a;
    a.threads = 1, b.threads = 2;
    sd_model *ma, *mb;
    ck_assert_int_eq(sd_synth_model(&a, &ma, NULL), SD_OK);
    ck_assert_int_eq(sd_synth_model(&b, &mb, NULL), SD_OK);
    for (size_t c = 0; c < 8; c++) {
        ck_assert_mem_eq(sd_model_context(ma, c)->q, sd_model_context(mb, c)->q, 300 * sizeof(double));
        ck_assert_mem_eq(sd_model_context(ma, c)->token, sd_model_context(mb, c)->token, 300 * sizeof(uint32_t));
    }
    sd_model_free(ma), sd_model_free(mb);
    sd_synth_config z = base_config(SD_FAMILY_ZIPF, 16, 0.0); /* below p_min: not reachable */
    sd_error err;
    ck_assert_int_eq(sd_synth_model(&z, &ma, &err), SD_EINVAL);
    ck_assert_msg(strncmp(err.msg, "alpha: ", 7) == 0, "%s", err.msg); /* the parameter, not a flag */
    sd_synth_config one = base_config(SD_FAMILY_ZIPF, 1, 1.0); /* V = 1: only alpha = 1 */
    ck_assert_int_eq(sd_synth_model(&one, &ma, NULL), SD_OK);
    ck_assert_double_eq(sd_model_context(ma, 0)->beta, 1.0);
    sd_model_free(ma);
}
END_TEST

START_TEST(noisy_and_regime_drafts)
{
    sd_synth_config n = base_config(SD_FAMILY_LOGITS, 200, 0.0);
    n.calibrated = 0;
    n.noise = 1.0;
    sd_model *m;
    ck_assert_int_eq(sd_synth_model(&n, &m, NULL), SD_OK);
    double b = sd_verify_mean_acceptance(sd_verify_find("adjusted"), m);
    ck_assert(b > 0.2 && b < 0.95);
    sd_model_free(m);
    sd_synth_config k = base_config(SD_FAMILY_ZIPF, 200, 0.0);
    k.regime = SD_REGIME_MARKOV;
    ck_assert_int_eq(sd_synth_model(&k, &m, NULL), SD_OK);
    ck_assert_double_eq_tol(sd_model_context(m, 0)->beta, 0.95, 1e-12);
    ck_assert_double_eq_tol(sd_model_context(m, 7)->beta, 0.3, 1e-12);
    sd_model_free(m);
    sd_synth_config bt = base_config(SD_FAMILY_ZIPF, 200, 0.7);
    bt.regime = SD_REGIME_BETA;
    bt.contexts = 64;
    ck_assert_int_eq(sd_synth_model(&bt, &m, NULL), SD_OK);
    double mean = sd_verify_mean_acceptance(sd_verify_find("adjusted"), m), var = 0;
    for (size_t c = 0; c < 64; c++)
        var += pow(sd_model_context(m, c)->beta - mean, 2) / 64;
    double sd_mean = sqrt(0.7 * 0.3 / 21 / 64); /* Beta(14, 6) has sd 0.1; 64 contexts */
    ck_assert(fabs(mean - 0.7) < 6 * sd_mean);
    ck_assert(fabs(mean - 0.85) > 9.1 * sd_mean); /* control: a mean of 0.85 would be caught */
    ck_assert(var > 0.001);
    sd_model_free(m);
}
END_TEST

/* Issue 10: a Beta regime with no mass above the reachable acceptance hung
 * (an unbounded rejection loop); a far-truncated one now draws by inverting
 * the tail; the memory estimate matches the bank built. */
START_TEST(truncated_beta_and_memory_estimate)
{
    sd_synth_config c = base_config(SD_FAMILY_ZIPF, 2, 0.01);
    c.regime = SD_REGIME_BETA;
    c.concentration = 1e6; /* Beta(1e4, 99e4): nothing above p_min = 0.26 */
    sd_model *m = NULL;
    sd_error err;
    ck_assert_int_eq(sd_synth_model(&c, &m, &err), SD_EINVAL);
    ck_assert_ptr_null(m);
    ck_assert_msg(strncmp(err.msg, "concentration: ", 15) == 0, "%s", err.msg);
    c.alpha = 0.2, c.concentration = 1000; /* mean 0.2, sd 0.013: 64 rejections fail, the inverse serves */
    ck_assert_int_eq(sd_synth_model(&c, &m, &err), SD_OK);
    for (size_t i = 0; i < sd_model_contexts(m); i++) {
        const sd_context *x = sd_model_context(m, i);
        ck_assert(x->target_alpha >= x->p[1] && x->target_alpha < 0.4);
        ck_assert_double_eq_tol(x->beta, x->target_alpha, 1e-12);
    }
    sd_model_free(m);
    sd_synth_config big = base_config(SD_FAMILY_ZIPF, 20000, 0.8);
    big.contexts = 6;
    ck_assert_int_eq(sd_synth_model(&big, &m, NULL), SD_OK);
    double est = (double)sd_synth_bytes(&big), held = (double)sd_model_bytes(m);
    ck_assert_msg(est >= held && est <= 1.5 * held, "estimate %g, bank %g", est, held);
    sd_model_free(m);
    big.vocab = 4194304, big.contexts = 65536; /* saturates instead of wrapping */
    ck_assert(sd_synth_bytes(&big) > (size_t)1 << 40);
}
END_TEST

START_TEST(huge_vocabulary)
{
    sd_synth_config cfg = base_config(SD_FAMILY_ZIPF, 262144, 0.8);
    cfg.contexts = 2;
    sd_model *m;
    ck_assert_int_eq(sd_synth_model(&cfg, &m, NULL), SD_OK);
    sd_engine_config ec = { .model = m, .verifier = sd_verify_find("adjusted"), .policy = SD_POLICY_FIXED,
        .gamma = 4, .tokens = 20000, .seed = 1, .threads = 2, .seq_tokens = 3, .positions = 1, .drafts = 1 };
    sd_engine_stats s;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    uint64_t total = 0;
    for (size_t t = 0; t < 262144; t++)
        total += s.pos_counts[t];
    ck_assert_uint_eq(total, s.sequences); /* every sequence's first token was a valid token id */
    sd_engine_stats_free(&s);
    sd_model_free(m);
}
END_TEST

/* The defaults (synth.h), the default bank size -- about 2^21 token slots,
 * between 2 and 64 contexts -- and the name tables. */
START_TEST(defaults_bank_size_and_names)
{
    sd_synth_config d = sd_synth_defaults();
    ck_assert_int_eq(d.family, SD_FAMILY_ZIPF);
    ck_assert_double_eq(d.zipf_s, 1.5);
    ck_assert_uint_eq(d.vocab, 1000);
    ck_assert(d.calibrated == 1 && d.alpha == 0.8 && d.regime == SD_REGIME_CONSTANT);
    ck_assert(d.concentration == 20 && d.alpha_easy == 0.95 && d.alpha_hard == 0.3 && d.stay == 0.9);
    ck_assert(d.kappa == 0.5 && d.temperature == 1.0 && d.history == 2 && d.contexts == 0);
    ck_assert_uint_eq(d.seed, SD_RNG_DEFAULT_SEED);
    ck_assert_uint_eq(d.threads, 1);
    ck_assert_uint_eq(sd_synth_default_contexts(1000), 64);      /* 2097 capped */
    ck_assert_uint_eq(sd_synth_default_contexts(65536), 32);     /* 2^21 / 2^16 */
    ck_assert_uint_eq(sd_synth_default_contexts(1 << 20), 2);    /* 2 */
    ck_assert_uint_eq(sd_synth_default_contexts(4194304), 2);    /* 0.5, raised to 2 */
    ck_assert_uint_eq(sd_synth_default_contexts(0), 64);         /* vocab 0 counts as 1 */
    static const char *const fam[] = { "zipf", "dirichlet", "logits" }, *const reg[] = { "constant", "beta", "markov" };
    for (int i = 0; i < 3; i++) {
        ck_assert_str_eq(sd_synth_family_names()[i], fam[i]);
        ck_assert_str_eq(sd_synth_regime_names()[i], reg[i]);
        ck_assert_str_eq(sd_synth_regime_name((sd_regime)i), reg[i]);
    }
    ck_assert_ptr_null(sd_synth_family_names()[3]);
    ck_assert_ptr_null(sd_synth_regime_names()[3]);
    sd_model *m; /* the default bank: V = 1000 gives 64 contexts */
    ck_assert_int_eq(sd_synth_model(&d, &m, NULL), SD_OK);
    ck_assert_uint_eq(sd_model_contexts(m), 64);
    ck_assert_int_eq(sd_model_family(m), SD_FAMILY_ZIPF);
    ck_assert_uint_eq(sd_model_history(m), 2);
    sd_model_free(m);
}
END_TEST

Suite *synth_suite(void)
{
    Suite *s = suite_create("synth");
    TCase *tc = tcase_create("synth");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, calibrated_drafts_hit_alpha);
    tcase_add_test(tc, bank_is_thread_independent_and_unreachable_alpha_fails);
    tcase_add_test(tc, noisy_and_regime_drafts);
    tcase_add_test(tc, truncated_beta_and_memory_estimate);
    tcase_add_test(tc, huge_vocabulary);
    tcase_add_test(tc, defaults_bank_size_and_names);
    suite_add_tcase(s, tc);
    return s;
}

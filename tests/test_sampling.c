/* test_sampling.c -- random streams, CDF sampling, verification rules and
 * synthetic models. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "specdec/dist.h"
#include "specdec.h"
#include "mc/verify_impl.h"
#include "model/model_impl.h"
#include "specdec/engine.h"
#include "specdec/rng.h"
#include "specdec/synth.h"
#include "testutil.h"
#include "specdec/verify.h"

/* ---- rng ------------------------------------------------------------------ */

START_TEST(rng_has_53_bits_and_keyed_streams)
{
    gsl_rng *a = sd_rng_stream(42, 7), *b = sd_rng_stream(42, 7), *c = sd_rng_stream(42, 8);
    ck_assert_str_eq(gsl_rng_name(a), "mt19937-53");
    int fine = 0, differ = 0;
    for (int i = 0; i < 1000; i++) {
        double x = gsl_rng_uniform(a), y = gsl_rng_uniform(b), z = gsl_rng_uniform(c);
        ck_assert(x >= 0.0 && x < 1.0);
        ck_assert_double_eq(x, y); /* same (seed, stream): same numbers */
        differ += x != z;
        double scaled = ldexp(x, 32);
        fine += scaled != floor(scaled); /* bits below 2^-32 are used */
    }
    ck_assert_int_gt(fine, 990);
    ck_assert_int_gt(differ, 990);
    gsl_rng_free(a), gsl_rng_free(b), gsl_rng_free(c);
    /* streams 0..65535 of one seed get pairwise distinct first outputs (distinct MT seeds) */
    enum { N = 65536 };
    uint64_t *first = malloc(N * sizeof *first);
    gsl_rng *r = gsl_rng_alloc(sd_rng_type());
    for (uint64_t s = 0; s < N; s++) {
        sd_rng_reseed(r, 1, s);
        first[s] = (uint64_t)gsl_rng_get(r) << 32 | gsl_rng_get(r);
    }
    size_t same = 0; /* neighbouring streams (and a sample of others) never coincide */
    for (size_t i = 0; i < N; i++)
        for (size_t j = i + 1; j < i + 64 && j < N; j++)
            same += first[i] == first[j];
    ck_assert_uint_eq(same, 0);
    free(first);
    gsl_rng_free(r);
}
END_TEST

/* The lazy test U s < b (rng_impl.h) decides as the whole U does, for U =
 * (a 2^21 + b' / 2^11) / 2^53 from scripted words; it reads the second word
 * only when U's top 32 bits leave the decision open; a = 0 never stands for
 * U = 0.  Thresholds at random and exactly at interval ends. */
START_TEST(lazy_acceptance_is_exact)
{
    gsl_rng *s = gsl_rng_alloc(script_type()), *r = sd_rng_stream(3, 1);
    size_t second = 0;
    for (int i = 0; i < 200000; i++) {
        double scale = i % 4 == 0 ? 1.0 : gsl_rng_uniform_pos(r), bound = gsl_rng_uniform(r) * scale;
        uint32_t w[2] = { (uint32_t)gsl_rng_get(r), (uint32_t)gsl_rng_get(r) };
        if (i % 3 == 0) /* the threshold inside a's interval: the second word decides */
            w[0] = (uint32_t)(bound / scale * 0x1p32);
        if (i % 1000 == 1)
            w[0] = 0, w[1] |= 2048u; /* a = 0: U is read whole */
        uint64_t k = (uint64_t)w[0] << 21 | w[1] >> 11;
        script_load(s, w, 2);
        int got = sd_rng_u53_scaled_below(s, scale, bound);
        ck_assert_int_eq(got, (double)k * 0x1p-53 * scale < bound);
        if (script_used(s) == 1) /* every U with top bits a decides alike */
            ck_assert_int_eq((double)((uint64_t)w[0] << 21) * 0x1p-53 * scale < bound,
                             (double)((uint64_t)w[0] << 21 | 0x1fffff) * 0x1p-53 * scale < bound);
        second += script_used(s) == 2;
    }
    ck_assert_uint_gt(second, 10000); /* the thresholds placed inside an interval were read */
    script_load(s, (const uint32_t[]){ 0u }, 1); /* b > s: every U passes, nothing is drawn */
    ck_assert_int_eq(sd_rng_u53_scaled_below(s, 0.25, 0.5), 1);
    ck_assert_uint_eq(script_used(s), 0);
    script_load(s, (const uint32_t[]){ 0u, 0u, 0u, 2048u }, 4); /* K = 0 is redrawn: U = 2^-53 */
    ck_assert_int_eq(sd_rng_u53_scaled_below(s, 1.0, 0x1p-52), 1);
    ck_assert_uint_eq(script_used(s), 4);
    gsl_rng_free(s);
    gsl_rng_free(r);
}
END_TEST

/* ---- CDF sampling ----------------------------------------------------------- */

START_TEST(cdf_never_draws_zero_weight)
{
    const double w[] = { 0.0, 0.25, 0.0, 0.0, 0.5, 0.25, 0.0 };
    sd_cdf c;
    ck_assert_int_eq(sd_cdf_init(&c, w, 7, NULL), SD_OK);
    gsl_rng *r = sd_rng_stream(3, 0);
    uint64_t counts[7] = { 0 };
    enum { DRAWS = 400000 };
    for (int i = 0; i < DRAWS; i++)
        counts[sd_cdf_sample(&c, r)]++;
    ck_assert_uint_eq(counts[0] + counts[2] + counts[3] + counts[6], 0);
    double stat = 0, dof = 0;
    sd_gof_chisq(counts, w, 7, &stat, &dof);
    ck_assert_double_eq(dof, 2);
    ck_assert_msg(gsl_cdf_chisq_Q(stat, dof) > 1e-7, "chi-square %g", stat);
    /* negative control: the same counts against weights off by 0.01 are caught */
    const double off[] = { 0.0, 0.26, 0.0, 0.0, 0.49, 0.25, 0.0 };
    double cstat = 0, cdof = 0;
    sd_gof_chisq(counts, off, 7, &cstat, &cdof);
    ck_assert_msg(gsl_cdf_chisq_Q(cstat, cdof) < 1e-7, "control not caught: chi-square %g", cstat);
    sd_cdf_free(&c);
    gsl_rng_free(r);

    const double one[] = { 1.0 };
    ck_assert_int_eq(sd_cdf_init(&c, one, 1, NULL), SD_OK);
    r = sd_rng_stream(3, 1);
    for (int i = 0; i < 1000; i++)
        ck_assert_uint_eq(sd_cdf_sample(&c, r), 0);
    sd_cdf_free(&c);
    gsl_rng_free(r);

    const double bad1[] = { 0.5, NAN }, bad2[] = { 0.5, -0.1 }, bad3[] = { 0.5, INFINITY }, zero[] = { 0, 0 };
    ck_assert_int_eq(sd_cdf_init(&c, bad1, 2, NULL), SD_EINVAL);
    ck_assert_int_eq(sd_cdf_init(&c, bad2, 2, NULL), SD_EINVAL);
    ck_assert_int_eq(sd_cdf_init(&c, bad3, 2, NULL), SD_EINVAL);
    ck_assert_int_eq(sd_cdf_init(&c, zero, 2, NULL), SD_EINVAL);
    ck_assert_int_eq(sd_cdf_init(&c, zero, 0, NULL), SD_EINVAL);
}
END_TEST

/* ---- verification edge cases --------------------------------------------------- */

static size_t rank_of(const sd_context *c, size_t n, uint32_t token)
{
    for (size_t r = 0; r < n; r++)
        if (c->token[r] == token)
            return r;
    ck_abort_msg("token %u not found", token);
    return 0;
}

START_TEST(p_zero_never_accepted_q_zero_accepted)
{
    const sd_verifier *adj = sd_verify_find("adjusted");
    gsl_rng *tiny = gsl_rng_alloc(script_type()); /* every uniform the least, 2^-53: words 0, then 1 << 11 */
    script_load(tiny, (const uint32_t[]){ 0u, 2048u }, 2);
    sd_model *m;
    /* token 1 has p = 0: never accepted, even with u at its least */
    const double p1[] = { 1.0, 0.0 }, q1[] = { 0.5, 0.5 };
    ck_assert_int_eq(sd_model_pair(p1, q1, 2, &m, NULL), SD_OK);
    const sd_context *c = sd_model_context(m, 0);
    uint32_t x = (uint32_t)rank_of(c, 2, 1);
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(adj->accept(c, x, tiny), 0);
    sd_model_free(m);
    /* token 1 has q = 0 and p > 0: accepted whenever offered */
    const double p2[] = { 0.5, 0.5 }, q2[] = { 1.0, 0.0 };
    ck_assert_int_eq(sd_model_pair(p2, q2, 2, &m, NULL), SD_OK);
    c = sd_model_context(m, 0);
    x = (uint32_t)rank_of(c, 2, 1);
    gsl_rng *r = sd_rng_stream(9, 0);
    for (int i = 0; i < 1000; i++) {
        ck_assert_int_eq(adj->accept(c, x, r), 1);
        ck_assert_uint_eq(c->token[sd_verify_draft(adj, c, r)], 0); /* q never drafts token 1 */
    }
    sd_model_free(m);
    gsl_rng_free(r);
    gsl_rng_free(tiny);
}
END_TEST

START_TEST(p_equals_q_never_rejects)
{
    const double p[] = { 0.1, 0.2, 0.3, 0.4 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, p, 4, &m, NULL), SD_OK);
    const sd_context *c = sd_model_context(m, 0);
    ck_assert_double_eq_tol(c->beta, 1.0, 1e-15);
    gsl_rng *r = sd_rng_stream(5, 0);
    const sd_verifier *adj = sd_verify_find("adjusted");
    size_t bad = 0;
    for (int i = 0; i < 100000; i++) {
        uint32_t x = sd_verify_draft(adj, c, r);
        bad += x >= 4 || !adj->accept(c, x, r) || adj->resample(c, r) >= 4; /* the empty residual falls back to p */
    }
    ck_assert_uint_eq(bad, 0);
    gsl_rng_free(r);
    sd_model_free(m);
}
END_TEST

START_TEST(invalid_distributions_rejected)
{
    sd_model *m = NULL;
    sd_error err;
    const double ok[] = { 0.5, 0.5 }, nan_[] = { 0.5, NAN }, neg[] = { 1.5, -0.5 }, inf_[] = { INFINITY, 0.5 };
    ck_assert_int_eq(sd_model_pair(nan_, ok, 2, &m, &err), SD_EINVAL);
    ck_assert_int_eq(sd_model_pair(ok, neg, 2, &m, &err), SD_EINVAL);
    ck_assert_int_eq(sd_model_pair(inf_, ok, 2, &m, &err), SD_EINVAL);
    ck_assert_ptr_null(m);
}
END_TEST

START_TEST(rules_by_name)
{
    ck_assert_ptr_nonnull(sd_verify_find("adjusted"));
    ck_assert_ptr_nonnull(sd_verify_find("target"));
    ck_assert(sd_verify_find("greedy")->greedy);
    ck_assert_ptr_null(sd_verify_find("block-ish"));
    /* the seed's Case 1 on the four-token example: P(B) = 0.10 + 0.45 * 0.10 */
    const double p[] = { 0.5, 0.1, 0.3, 0.1 }, q[] = { 0.2, 0.4, 0.15, 0.25 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, q, 4, &m, NULL), SD_OK);
    const sd_context *c = sd_model_context(m, 0);
    double out[4];
    sd_verify_find("target")->output(c, 4, out);
    ck_assert_double_eq_tol(out[rank_of(c, 4, 1)], 0.145, 1e-15);
    sd_verify_find("adjusted")->output(c, 4, out);
    ck_assert_double_eq_tol(out[rank_of(c, 4, 1)], 0.10, 1e-15);
    sd_model_free(m);
}
END_TEST

/* deterministic-draft (issue 13): the output is p (chi-square, p-value >= 1e-6) and the
 * acceptance p(argmax q) (6 SE); negative controls: the same rule resampling from p with
 * the draft kept is rejected by the same chi-square, and sum min(p, q) is > 9.1 SE away. */
START_TEST(deterministic_draft_is_lossless)
{
    const double p[] = { 0.31, 0.07, 0.22, 0.005, 0.185, 0.21 }, q[] = { 0.12, 0.4, 0.1, 0.08, 0.2, 0.1 };
    enum { V = 6 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, q, V, &m, NULL), SD_OK);
    const sd_verifier *dd = sd_verify_find("deterministic-draft");
    ck_assert(sd_verify_is_greedy(dd) && sd_verify_is_lossless(dd) && !sd_verify_is_blockwise(dd));
    const sd_context *c = sd_model_context(m, 0);
    ck_assert_uint_eq(c->token[c->argmax_q], 1); /* q's argmax: token 1, p = 0.07 */
    ck_assert_double_eq(sd_verify_acceptance(dd, c), 0.07);
    sd_verifier kept = *dd;
    kept.resample = sd_verify_find("target")->resample;
    const sd_verifier *rules[] = { dd, &kept };
    for (int k = 0; k < 2; k++) {
        uint64_t counts[V];
        double expect[V], stat = 0, dof = 0;
        sd_sample_config sc = { .model = m, .verifier = rules[k], .drafts = 1, .draws = 1000000, .seed = 5 };
        ck_assert_int_eq(sd_sample_run(&sc, counts, expect, NULL), SD_OK);
        for (size_t t = 0; t < V; t++)
            ck_assert_double_eq_tol(expect[t], p[t], 1e-15);
        sd_gof_chisq(counts, expect, V, &stat, &dof);
        double pv = gsl_cdf_chisq_Q(stat, dof);
        if (k == 0)
            ck_assert_msg(pv >= 1e-6, "chi-square %g on %g dof", stat, dof);
        else
            ck_assert_msg(pv < 1e-6, "control missed: chi-square %g on %g dof", stat, dof);
    }
    sd_engine_config ec = sd_engine_defaults();
    ec.model = m, ec.verifier = dd, ec.gamma = 2, ec.tokens = 200000, ec.threads = 2;
    sd_engine_stats s;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    double n = (double)s.verified, rate = (double)s.accepted / n, se = sqrt(0.07 * 0.93 / n);
    ck_assert_msg(fabs(rate - 0.07) <= 6 * se, "rate %g, se %g", rate, se);
    ck_assert(fabs(rate - sd_dist_overlap(p, q, V)) > 9.1 * se); /* control: eq. (1) is not its acceptance */
    sd_engine_stats_free(&s);
    sd_model_free(m);
}
END_TEST

/* ---- synthetic models ---------------------------------------------------------- */

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

/* A prefix is its last k tokens: two prefixes with the same last tokens
 * reach the same contexts, whatever their lengths -- also across the
 * length counter's wrap after 2^32 - 1 tokens (the ring keeps its slots),
 * where a long generation would otherwise lose its history. */
START_TEST(prefix_is_its_last_tokens)
{
    sd_synth_config sc = sd_synth_defaults();
    sc.vocab = 50, sc.history = 3, sc.contexts = 64;
    sd_model *m;
    ck_assert_int_eq(sd_synth_model(&sc, &m, NULL), SD_OK);
    gsl_rng *r = sd_rng_stream(11, 0);
    sd_prefix a, b;
    sd_model_start(m, &a);
    sd_model_start(m, &b);
    b.len = UINT32_MAX - 20; /* wraps after 21 tokens */
    size_t differ = 0;
    for (int i = 0; i < 100; i++) {
        uint32_t t = (uint32_t)gsl_rng_uniform_int(r, 50);
        sd_model_advance(m, &a, t);
        sd_model_advance(m, &b, t);
        if (i >= 2)
            ck_assert_ptr_eq(sd_model_lookup(m, &a), sd_model_lookup(m, &b));
    }
    ck_assert_uint_lt(b.len, 100); /* b wrapped */
    /* the control: a different newest token moves the lookup, mostly */
    for (uint32_t t = 0; t < 50; t++) {
        sd_prefix c = a, d = a;
        sd_model_advance(m, &c, t);
        sd_model_advance(m, &d, (t + 1) % 50);
        differ += sd_model_lookup(m, &c) != sd_model_lookup(m, &d);
    }
    ck_assert_uint_gt(differ, 40);
    gsl_rng_free(r);
    sd_model_free(m);
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

Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("rng");
    tcase_add_test(tc, rng_has_53_bits_and_keyed_streams);
    tcase_add_test(tc, lazy_acceptance_is_exact);
    suite_add_tcase(s, tc);
    return s;
}

Suite *verify_suite(void)
{
    Suite *s = suite_create("verify");
    TCase *tc = tcase_create("verify");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, cdf_never_draws_zero_weight);
    tcase_add_test(tc, p_zero_never_accepted_q_zero_accepted);
    tcase_add_test(tc, p_equals_q_never_rejects);
    tcase_add_test(tc, invalid_distributions_rejected);
    tcase_add_test(tc, rules_by_name);
    tcase_add_test(tc, deterministic_draft_is_lossless);
    suite_add_tcase(s, tc);
    return s;
}

Suite *synth_suite(void)
{
    Suite *s = suite_create("synth");
    TCase *tc = tcase_create("synth");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, calibrated_drafts_hit_alpha);
    tcase_add_test(tc, bank_is_thread_independent_and_unreachable_alpha_fails);
    tcase_add_test(tc, noisy_and_regime_drafts);
    tcase_add_test(tc, truncated_beta_and_memory_estimate);
    tcase_add_test(tc, prefix_is_its_last_tokens);
    tcase_add_test(tc, huge_vocabulary);
    suite_add_tcase(s, tc);
    return s;
}

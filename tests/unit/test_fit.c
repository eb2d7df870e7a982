/* test_fit.c -- fit.h: the round trip through vLLM's exposition format, the
 * interval's coverage, the i.i.d. test on Markov acceptance, predictions
 * against a second run, the predictions' points and intervals, and the
 * recommendation's rule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

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
    ck_assert_msg(f.test_pvalue < 1e-6, "p = %g", f.test_pvalue);
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

/* 100 drafts of 3: 80 passed position 1, 60 passed 1-2, 30 passed 1-3; costs 1 + 0.05 gamma. */
static const sd_counts HAND = { .gamma = 3, .drafts = 100, .draft_tokens = 300, .accepted_tokens = 170,
                                .has_positions = 1, .accepted_at = { 80, 60, 30 }, .reached = { 100, 100, 100 },
                                .kind = SD_COUNTS_PREFIX };
static const double HAND_COST[6] = { 1.05, 1.10, 1.15, 1.20, 1.25, 1.30 };

/* The i.i.d. MLE equals accepted / tested by hand; a level outside (0, 1) is refused. */
START_TEST(hand_counts)
{
    sd_fit f;
    sd_error err;
    ck_assert_int_eq(sd_fit_counts(&HAND, 1e-3, &f, NULL), SD_OK);
    ck_assert_double_eq(f.trials, 100 + 80 + 60);
    ck_assert_rel(f.alpha, 170.0 / 240.0, 1e-15);
    ck_assert_rel(f.cond[2], 0.5, 1e-15);
    ck_assert_int_eq(sd_fit_counts(&HAND, 1.5, &f, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "level: 1.5 is outside (0, 1)"));
}
END_TEST

/* The predictions of the hand counts: without replicates each point is
 * sd_fit_expected_tokens and E(N) / cost exactly (the measured mean length
 * at gamma 3), extrapolated beyond 3; without a cost the improvement is NaN
 * and E(N) the same; with replicates the same points inside their intervals,
 * the improvement's the E(N)'s over the cost, the same again from the same
 * seed.  Bad requests are refused with the field and the entry named. */
START_TEST(predict_points)
{
    sd_fit f;
    ck_assert_int_eq(sd_fit_counts(&HAND, 1e-3, &f, NULL), SD_OK);
    sd_fit_prediction p[6], q[6], b[6], b2[6];
    sd_fit_request rq = { .gamma_max = 6, .cost = HAND_COST, .replicates = 0, .seed = 3 };
    ck_assert_int_eq(sd_fit_predict(&HAND, &f, &rq, p, NULL), SD_OK);
    sd_fit_request none = rq;
    none.cost = NULL;
    ck_assert_int_eq(sd_fit_predict(&HAND, &f, &none, q, NULL), SD_OK);
    rq.replicates = 200;
    ck_assert_int_eq(sd_fit_predict(&HAND, &f, &rq, b, NULL), SD_OK);
    ck_assert_int_eq(sd_fit_predict(&HAND, &f, &rq, b2, NULL), SD_OK);
    ck_assert_rel(p[2].expected_tokens, 1.0 + 170.0 / 100.0, 1e-12);
    for (size_t g = 1; g <= 6; g++) {
        const sd_fit_prediction *x = &p[g - 1], *y = &q[g - 1], *z = &b[g - 1];
        ck_assert_double_eq(x->expected_tokens, sd_fit_expected_tokens(&f, f.chosen, g));
        ck_assert(x->expected_tokens_lo == x->expected_tokens && x->expected_tokens_hi == x->expected_tokens);
        ck_assert_double_eq(x->improvement, x->expected_tokens / HAND_COST[g - 1]);
        ck_assert(x->improvement_lo == x->improvement && x->improvement_hi == x->improvement);
        ck_assert_int_eq(x->extrapolated, g > 3);
        ck_assert_double_eq(y->expected_tokens, x->expected_tokens);
        ck_assert(isnan(y->improvement) && isnan(y->improvement_lo) && isnan(y->improvement_hi));
        ck_assert_double_eq(z->expected_tokens, x->expected_tokens);
        ck_assert_msg(z->expected_tokens_lo < z->expected_tokens && z->expected_tokens < z->expected_tokens_hi,
                      "gamma %zu: %g outside (%g, %g)", g, z->expected_tokens, z->expected_tokens_lo,
                      z->expected_tokens_hi);
        ck_assert_double_eq(z->improvement_lo, z->expected_tokens_lo / HAND_COST[g - 1]);
        ck_assert_double_eq(z->improvement_hi, z->expected_tokens_hi / HAND_COST[g - 1]);
        ck_assert(memcmp(z, &b2[g - 1], sizeof *z) == 0);
    }
    sd_error err;
    double bad[6] = { 1.05, 1.10, 1.15, 1.20, 0.0, 1.30 };
    rq.cost = bad;
    ck_assert_int_eq(sd_fit_predict(&HAND, &f, &rq, b, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "cost: the cost of gamma 5 is 0"));
    ck_assert_int_eq(sd_fit_request_check(&rq, &err), SD_EINVAL);
    rq.cost = HAND_COST;
    rq.gamma_max = 4097;
    ck_assert_int_eq(sd_fit_predict(&HAND, &f, &rq, b, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "gamma_max: 4097 is outside [1, 4096]"));
    rq.gamma_max = 0;
    ck_assert_int_eq(sd_fit_request_check(&rq, &err), SD_EINVAL);
}
END_TEST

/* The cost's draws: all equal to the cost, the improvement's interval is the
 * bootstrap's over the cost, to rounding (the control); spread 10% either
 * way, it widens and still holds the point; a bad draw is refused. */
START_TEST(predict_cost_draws)
{
    sd_fit f;
    ck_assert_int_eq(sd_fit_counts(&HAND, 1e-3, &f, NULL), SD_OK);
    const sd_fit_request rq = { .gamma_max = 6, .cost = HAND_COST, .replicates = 200, .seed = 3 };
    double same[20 * 6], spread[20 * 6];
    for (int k = 0; k < 20; k++)
        for (int g = 0; g < 6; g++) {
            same[k * 6 + g] = HAND_COST[g];
            spread[k * 6 + g] = HAND_COST[g] * (k % 2 ? 1.1 : 0.9);
        }
    sd_fit_prediction base[6], p[6];
    ck_assert_int_eq(sd_fit_predict(&HAND, &f, &rq, base, NULL), SD_OK);
    for (int pass = 1; pass < 3; pass++) {
        sd_fit_request r2 = rq;
        r2.cost_draws = pass == 1 ? same : spread;
        r2.ncost_draws = 20;
        ck_assert_int_eq(sd_fit_predict(&HAND, &f, &r2, p, NULL), SD_OK);
        for (size_t g = 0; g < 6; g++) {
            double l = p[g].improvement_lo, h = p[g].improvement_hi, x = p[g].improvement;
            ck_assert_double_eq(x, base[g].improvement);
            if (pass == 1) {
                ck_assert_rel(l, base[g].improvement_lo, 1e-14);
                ck_assert_rel(h, base[g].improvement_hi, 1e-14);
            } else
                ck_assert_msg(l < base[g].improvement_lo && h > base[g].improvement_hi && l < x && x < h,
                              "gamma %zu: [%g, %g] vs [%g, %g]", g + 1, l, h, base[g].improvement_lo,
                              base[g].improvement_hi);
        }
    }
    spread[7] = -1.0;
    sd_fit_request r3 = rq;
    r3.cost_draws = spread;
    r3.ncost_draws = 20;
    sd_error err;
    ck_assert_int_eq(sd_fit_predict(&HAND, &f, &r3, p, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "cost_draws: draw 1's cost of gamma 2 is -1"));
}
END_TEST

/* Prefix counts without positions, drafts of lengths len(d) = 1 + d mod gamma
 * (every length alike, whatever the acceptance), alpha i.i.d.: the totals a
 * llama.cpp line prints, with reached[] exact. */
static void prefix_totals(gsl_rng *r, double alpha, size_t gamma, size_t drafts, sd_counts *c)
{
    memset(c, 0, sizeof *c);
    c->gamma = gamma, c->drafts = (double)drafts, c->kind = SD_COUNTS_PREFIX;
    for (size_t d = 0; d < drafts; d++) {
        size_t len = 1 + d % gamma, k = 0;
        while (k < len && gsl_rng_uniform(r) < alpha)
            k++;
        c->accepted_tokens += (double)k;
        c->draft_tokens += (double)len;
        for (size_t i = 0; i < len; i++)
            c->reached[i] += 1.0;
    }
}

/* prefix-mean against closed forms: gamma 1 is alpha = A / D with Wilson's
 * interval (the score interval of one Bernoulli position), written out here;
 * gamma 2 with every draft 2 long is alpha + alpha^2 = A / D; the limits A =
 * 0, A = every drafted token, gamma 64; a gauge has no interval. */
START_TEST(prefix_mean_closed_forms)
{
    sd_fit f;
    sd_counts c = { .gamma = 1, .drafts = 200, .draft_tokens = 200, .accepted_tokens = 70, .reached = { 200 },
                    .kind = SD_COUNTS_PREFIX };
    ck_assert_int_eq(sd_fit_counts(&c, 1e-3, &f, NULL), SD_OK);
    ck_assert_int_eq(f.estimator, SD_FIT_EST_PREFIX_MEAN);
    double n = 200, p = 0.35, z = 1.959963984540054, den = 1 + z * z / n;
    double centre = (p + z * z / (2 * n)) / den, half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den;
    ck_assert_rel(f.alpha, 0.35, 1e-12);
    ck_assert_rel(f.alpha_lo, centre - half, 1e-9);
    ck_assert_rel(f.alpha_hi, centre + half, 1e-9);
    ck_assert_int_eq(f.test, SD_FIT_TEST_NONE);
    ck_assert_double_eq(f.test_pvalue, 1.0);

    sd_counts c2 = { .gamma = 2, .drafts = 1000, .draft_tokens = 2000, .accepted_tokens = 1000,
                     .reached = { 1000, 1000 }, .kind = SD_COUNTS_PREFIX };
    ck_assert_int_eq(sd_fit_counts(&c2, 1e-3, &f, NULL), SD_OK);
    ck_assert_rel(f.alpha, (sqrt(5.0) - 1.0) / 2.0, 1e-12); /* alpha + alpha^2 = 1 */
    ck_assert(f.alpha_lo < f.alpha && f.alpha < f.alpha_hi && f.alpha_hi - f.alpha_lo < 0.05);
    ck_assert_rel(sd_fit_expected_tokens(&f, SD_FIT_IID, 2), 2.0, 1e-12); /* the measured mean length */

    c2.accepted_tokens = 0;
    ck_assert_int_eq(sd_fit_counts(&c2, 1e-3, &f, NULL), SD_OK);
    ck_assert_double_eq(f.alpha, 0.0);
    ck_assert_double_eq(f.alpha_lo, 0.0);
    ck_assert(f.alpha_hi > 0.0 && f.alpha_hi < 0.01);
    c2.accepted_tokens = 2000;
    ck_assert_int_eq(sd_fit_counts(&c2, 1e-3, &f, NULL), SD_OK);
    ck_assert_double_eq(f.alpha, 1.0);
    ck_assert_double_eq(f.alpha_hi, 1.0);
    ck_assert(f.alpha_lo > 0.99 && f.alpha_lo < 1.0);

    sd_counts c64 = { .gamma = 64, .drafts = 100, .draft_tokens = 6400, .kind = SD_COUNTS_PREFIX };
    double target = 0.0, a = 0.99, pw = 1.0;
    for (int i = 0; i < 64; i++)
        c64.reached[i] = 100, target += (pw *= a);
    c64.accepted_tokens = round(100 * target); /* 100 drafts averaging sum_{i<=64} 0.99^i */
    ck_assert_int_eq(sd_fit_counts(&c64, 1e-3, &f, NULL), SD_OK);
    ck_assert_msg(fabs(f.alpha - 0.99) < 2e-5, "alpha %.17g", f.alpha);

    sd_counts g = { .gamma = 2, .gauge = 1, .mean_accepted = 1.0, .kind = SD_COUNTS_PREFIX };
    ck_assert_int_eq(sd_fit_counts(&g, 1e-3, &f, NULL), SD_OK);
    ck_assert_int_eq(f.estimator, SD_FIT_EST_GAUGE);
    ck_assert_int_eq(f.has_interval, 0);
    ck_assert_rel(f.alpha, (sqrt(5.0) - 1.0) / 2.0, 1e-12);
    ck_assert_double_eq(f.alpha_lo, f.alpha);
    ck_assert_rel(f.measured_en, 2.0, 1e-15);
}
END_TEST

/* prefix-mean on simulated llama.cpp-like totals (alpha 0.7, gamma 6, drafts
 * of mixed lengths, 300 drafts), 400 seeds: the 95% interval covers 0.7 in at
 * least 355 (the binomial(400, 0.95) tail below 355 is under 1e-6).  Control:
 * accepted / drafted tokens, the estimator `fit` used before for these counts,
 * with an interval of the same width, covers it in at most 40. */
START_TEST(prefix_mean_coverage)
{
    enum { SEEDS = 400, G = 6, DRAFTS = 300 };
    gsl_rng *r = sd_rng_stream(20, 0);
    int covered = 0, control = 0;
    for (int seed = 0; seed < SEEDS; seed++) {
        sd_counts c;
        sd_fit f;
        prefix_totals(r, 0.7, G, DRAFTS, &c);
        ck_assert_int_eq(sd_fit_counts(&c, 1e-3, &f, NULL), SD_OK);
        covered += f.alpha_lo <= 0.7 && 0.7 <= f.alpha_hi;
        double naive = c.accepted_tokens / c.draft_tokens, w = (f.alpha_hi - f.alpha_lo) / 2;
        control += naive - w <= 0.7 && 0.7 <= naive + w;
    }
    gsl_rng_free(r);
    ck_assert_msg(covered >= 355, "covered %d of %d", covered, SEEDS);
    ck_assert_msg(control <= 40, "the biased estimator covered %d of %d", control, SEEDS);
}
END_TEST

/* vLLM V0's counting (every position tested on its own) simulated: D drafts
 * of gamma 4.  Under i.i.d. alpha 0.6, the emitted-tokens test at level 0.01
 * rejects in at most 20 of 400 seeds (binomial(400, 0.01) tail above 20 is
 * below 1e-6); the predictions reproduce the measured E(N) at gamma.
 * Control: drafts whose acceptance is 0.95 or 0.25 (half each, i.i.d. within a
 * draft: the same mean 0.6) are rejected at p < 1e-6 in every one of 20 seeds. */
static void v0_counts(gsl_rng *r, int mixed, size_t drafts, sd_counts *c)
{
    memset(c, 0, sizeof *c);
    c->gamma = 4, c->drafts = (double)drafts, c->draft_tokens = 4.0 * (double)drafts, c->kind = SD_COUNTS_ANY;
    c->has_emitted = 1;
    for (size_t d = 0; d < drafts; d++) {
        double a = mixed ? (gsl_rng_uniform(r) < 0.5 ? 0.95 : 0.25) : 0.6;
        int alive = 1;
        c->emitted_tokens += 1.0;
        for (int i = 0; i < 4; i++) {
            int pass = gsl_rng_uniform(r) < a;
            c->accepted_tokens += pass;
            alive &= pass;
            c->emitted_tokens += alive;
        }
    }
    for (int i = 0; i < 4; i++)
        c->reached[i] = c->drafts;
}

START_TEST(v0_emitted_test)
{
    gsl_rng *r = sd_rng_stream(21, 0);
    int rejected = 0;
    for (int seed = 0; seed < 400; seed++) {
        sd_counts c;
        sd_fit f;
        v0_counts(r, 0, 2000, &c);
        ck_assert_int_eq(sd_fit_counts(&c, 1e-3, &f, NULL), SD_OK);
        ck_assert_int_eq(f.test, SD_FIT_TEST_EMITTED);
        ck_assert_double_eq(f.test_dof, 1.0);
        rejected += f.test_pvalue < 0.01;
        ck_assert_rel(sd_fit_expected_tokens(&f, SD_FIT_IID, 4), c.emitted_tokens / c.drafts, 1e-9);
        ck_assert_rel(f.alpha_any, c.accepted_tokens / c.draft_tokens, 1e-15);
    }
    ck_assert_msg(rejected <= 20, "i.i.d. rejected in %d of 400", rejected);
    for (int seed = 0; seed < 20; seed++) {
        sd_counts c;
        sd_fit f;
        v0_counts(r, 1, 2000, &c);
        ck_assert_int_eq(sd_fit_counts(&c, 1e-3, &f, NULL), SD_OK);
        ck_assert_msg(f.test_pvalue < 1e-6, "mixed acceptance not rejected: p = %g", f.test_pvalue);
    }
    gsl_rng_free(r);
}
END_TEST

/* Points with the given improvements and lower bounds, extrapolated from gamma 3 on. */
static void points(const double *imp, const double *lo, size_t n, sd_fit_prediction *p)
{
    for (size_t g = 0; g < n; g++)
        p[g] = (sd_fit_prediction){ .expected_tokens = 2.0 + 0.1 * (double)g, .improvement = imp[g],
                                    .improvement_lo = lo[g], .improvement_hi = imp[g] + 0.25,
                                    .extrapolated = g >= 2 };
}

/* The rule on points built to catch a wrong one.  pays: the best by the
 * point estimate, not by the lower bound (gamma 5's is higher); the range
 * stops at the first gamma below the best's lower bound (gamma 5 reaches it
 * again, past a gap).  tie: the shorter draft.  cap: the best is the last
 * and pays.  plain: an improvement of exactly 1 is plain decoding (gamma 0,
 * no range, not at the cap although the best is the last). */
START_TEST(recommend_rule)
{
    static const struct {
        const char *name;
        size_t n;
        double imp[6], lo[6];
        size_t gamma, best, from, to;
        int at_cap, extrapolated;
    } cases[] = {
        { "pays", 6, { 1.10, 1.30, 1.29, 1.05, 1.28, 1.20 }, { 1.0, 1.25, 1.2, 1.0, 1.27, 1.1 }, 2, 2, 2, 3, 0, 0 },
        { "tie", 3, { 1.2, 1.5, 1.5 }, { 1.0, 1.1, 1.4 }, 2, 2, 1, 3, 0, 0 },
        { "cap", 3, { 1.1, 1.2, 1.3 }, { 1.0, 1.1, 1.15 }, 3, 3, 2, 3, 1, 1 },
        { "plain", 3, { 0.8, 0.9, 1.0 }, { 0.7, 0.8, 0.85 }, 0, 3, 0, 0, 0, 1 },
    };
    sd_fit_prediction p[6];
    sd_fit_recommend r;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        points(cases[k].imp, cases[k].lo, cases[k].n, p);
        ck_assert_int_eq(sd_fit_recommend_points(p, cases[k].n, &r, NULL), SD_OK);
        ck_assert_msg(r.gamma == cases[k].gamma && r.best == cases[k].best && r.from == cases[k].from &&
                      r.to == cases[k].to && r.at_cap == cases[k].at_cap && r.extrapolated == cases[k].extrapolated,
                      "%s: gamma %zu, best %zu, %zu-%zu, at_cap %d, extrapolated %d", cases[k].name, r.gamma, r.best,
                      r.from, r.to, r.at_cap, r.extrapolated);
        const sd_fit_prediction *b = &p[r.best - 1]; /* the best's cells, bit for bit */
        ck_assert(r.improvement == b->improvement && r.improvement_lo == b->improvement_lo &&
                  r.improvement_hi == b->improvement_hi && r.expected_tokens == b->expected_tokens &&
                  r.expected_tokens_lo == b->expected_tokens_lo && r.expected_tokens_hi == b->expected_tokens_hi);
        ck_assert_uint_eq(r.gamma_max, cases[k].n);
    }
    sd_error err;
    sd_fit_recommend kept = { .gamma = 99 };
    ck_assert_int_eq(sd_fit_recommend_points(p, 0, &kept, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "points: "));
    p[1].improvement = NAN;
    ck_assert_int_eq(sd_fit_recommend_points(p, 3, &kept, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "cost: the recommendation needs the cost of each gamma"));
    ck_assert_uint_eq(kept.gamma, 99);
}
END_TEST

/* The rule on fitted predictions: the hand counts' best is their largest
 * improvement, its cells the point's bit for bit, the range around it what
 * reaches its lower bound; a hopeless alpha gives gamma 0; cheap drafts of a
 * high alpha put the optimum at gamma_max, flagged. */
START_TEST(recommend_of_predictions)
{
    sd_fit f;
    ck_assert_int_eq(sd_fit_counts(&HAND, 1e-3, &f, NULL), SD_OK);
    sd_fit_prediction p[6];
    sd_fit_recommend r;
    const sd_fit_request rq = { .gamma_max = 6, .cost = HAND_COST, .replicates = 200, .seed = 3 };
    ck_assert_int_eq(sd_fit_predict(&HAND, &f, &rq, p, NULL), SD_OK);
    ck_assert_int_eq(sd_fit_recommend_points(p, 6, &r, NULL), SD_OK);
    ck_assert_uint_ge(r.gamma, 1);
    const sd_fit_prediction *b = &p[r.best - 1];
    for (size_t g = 0; g < 6; g++)
        ck_assert(p[g].improvement <= b->improvement);
    ck_assert(r.improvement == b->improvement && r.improvement_lo == b->improvement_lo &&
              r.improvement_hi == b->improvement_hi && r.expected_tokens == b->expected_tokens);
    for (size_t g = r.from; g <= r.to; g++)
        ck_assert(p[g - 1].improvement >= r.improvement_lo);
    ck_assert(r.from == 1 || p[r.from - 2].improvement < r.improvement_lo);
    ck_assert(r.to == 6 || p[r.to].improvement < r.improvement_lo);

    sd_counts low = { .gamma = 1, .drafts = 1000, .draft_tokens = 1000, .accepted_tokens = 20, .has_positions = 1,
                      .accepted_at = { 20 }, .reached = { 1000 }, .kind = SD_COUNTS_PREFIX };
    double dear[4] = { 1.5, 2.0, 2.5, 3.0 }, cheap[4] = { 1.01, 1.02, 1.03, 1.04 };
    sd_fit_request r4 = { .gamma_max = 4, .cost = dear, .replicates = 0 };
    ck_assert_int_eq(sd_fit_counts(&low, 1e-3, &f, NULL), SD_OK);
    ck_assert_int_eq(sd_fit_predict(&low, &f, &r4, p, NULL), SD_OK);
    ck_assert_int_eq(sd_fit_recommend_points(p, 4, &r, NULL), SD_OK);
    ck_assert_uint_eq(r.gamma, 0);
    ck_assert_uint_eq(r.best, 1);
    sd_counts high = { .gamma = 2, .drafts = 100, .draft_tokens = 200, .accepted_tokens = 190, .has_positions = 1,
                       .accepted_at = { 98, 92 }, .reached = { 100, 100 }, .kind = SD_COUNTS_PREFIX };
    r4.cost = cheap;
    ck_assert_int_eq(sd_fit_counts(&high, 1e-3, &f, NULL), SD_OK);
    ck_assert_int_eq(sd_fit_predict(&high, &f, &r4, p, NULL), SD_OK);
    ck_assert_int_eq(sd_fit_recommend_points(p, 4, &r, NULL), SD_OK);
    ck_assert_uint_eq(r.gamma, 4);
    ck_assert_int_eq(r.at_cap, 1);
    ck_assert_int_eq(r.extrapolated, 1);
}
END_TEST

Suite *fit_suite(void)
{
    Suite *s = suite_create("fit");
    TCase *tc = tcase_create("fit");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, interval_coverage);
    tcase_add_test(tc, markov_rejects_iid_and_predicts);
    tcase_add_test(tc, hand_counts);
    tcase_add_test(tc, predict_points);
    tcase_add_test(tc, predict_cost_draws);
    tcase_add_test(tc, prefix_mean_closed_forms);
    tcase_add_test(tc, prefix_mean_coverage);
    tcase_add_test(tc, v0_emitted_test);
    tcase_add_test(tc, recommend_rule);
    tcase_add_test(tc, recommend_of_predictions);
    suite_add_tcase(s, tc);
    return s;
}

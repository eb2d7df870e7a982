/* test_engine.c -- the engine (engine.h) against exact distributions on
 * small vocabularies, the policies, determinism across threads, degenerate
 * models, a broken rule, and on the n-gram pair its acceptance along the
 * path and its output at a context. */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "mc/verify_impl.h"
#include "specdec/engine.h"
#include "specdec/gof.h"
#include "specdec/model.h"
#include "specdec/rng.h"
#include "specdec/ngram.h"
#include "specdec/synth.h"
#include "specdec/theory.h"
#include "specdec/verify.h"
#include "testutil.h"

static const char *const GPL = SD_NGRAM_DEFAULT_CORPUS; /* every Debian system has it */

enum { V = 3, G = 2 }; /* small_model's vocabulary (testutil.h); drafts per iteration */

static double accept_prob(const sd_context *c, size_t r)
{
    return c->q[r] > 0 ? fmin(1.0, c->p[r] / c->q[r]) : 1.0;
}

/* The exact distribution of N in the first iteration from the empty prefix,
 * by enumerating the drafts x1, x2. */
static void exact_n(const sd_model *m, double *pn)
{
    sd_prefix s0;
    sd_model_start(m, &s0);
    const sd_context *c1 = sd_model_lookup(m, &s0);
    pn[0] = 0, pn[1] = 0, pn[2] = 0, pn[3] = 0;
    for (size_t x1 = 0; x1 < V; x1++) {
        double w1 = c1->q[x1], a1 = accept_prob(c1, x1);
        pn[1] += w1 * (1 - a1);
        sd_prefix s1 = s0;
        sd_model_advance(m, &s1, c1->token[x1]);
        const sd_context *c2 = sd_model_lookup(m, &s1);
        for (size_t x2 = 0; x2 < V; x2++) {
            double w2 = w1 * a1 * c2->q[x2], a2 = accept_prob(c2, x2);
            pn[2] += w2 * (1 - a2);
            pn[3] += w2 * a2;
        }
    }
}

START_TEST(first_iteration_n_is_exact)
{
    /* acceptance differs between contexts: with a constant one, every
     * iteration's N would follow the i.i.d. eqs. (2)-(3) exactly */
    sd_model *m = small_model_in(SD_REGIME_BETA);
    double pn[4];
    exact_n(m, pn);
    ck_assert_double_eq_tol(pn[1] + pn[2] + pn[3], 1.0, 1e-12);
    /* seq_tokens = 1: every iteration starts from the empty prefix */
    sd_engine_config ec = { .model = m, .verifier = sd_verify_find("adjusted"), .policy = SD_POLICY_FIXED,
        .gamma = G, .tokens = 400000, .seed = 5, .threads = 2, .seq_tokens = 1, .drafts = 1 };
    sd_engine_stats s;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    ck_assert_uint_eq(s.iterations, s.sequences);
    double stat = 0, dof = 0;
    sd_gof_chisq(s.n_hist, pn, 4, &stat, &dof);
    ck_assert_double_eq(dof, 2);
    ck_assert_msg(gsl_cdf_chisq_Q(stat, dof) > 1e-7, "N: chi-square %g", stat);
    /* negative control: the i.i.d. PMF at the bank's mean acceptance is not this
     * distribution, which the contexts of the empty prefix and its successors set */
    double iid[4] = { 0 }, a = sd_verify_mean_acceptance(sd_verify_find("adjusted"), m), wstat = 0, wdof = 0;
    for (int n = 1; n <= 3; n++)
        iid[n] = n <= G ? pow(a, n - 1) * (1 - a) : pow(a, G);
    sd_gof_chisq(s.n_hist, iid, 4, &wstat, &wdof);
    ck_assert_msg(gsl_cdf_chisq_Q(wstat, wdof) < 1e-7, "control not caught: chi-square %g", wstat);
    sd_engine_stats_free(&s);
    sd_model_free(m);
}
END_TEST

/* Block verification and three drafts per position on the same 3-token model:
 * the first two tokens are exact; block emits at least as much as token-wise. */
static void first_two_with(const sd_model *m, const char *rule, size_t drafts, size_t seqs, uint64_t *joint)
{
    sd_engine_config ec = { .model = m, .verifier = sd_verify_find(rule), .policy = SD_POLICY_FIXED, .gamma = G,
        .tokens = seqs * 2, .seed = 17, .threads = 2, .seq_tokens = 2, .positions = 2, .drafts = drafts };
    sd_engine_stats s;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    /* positions 1 and 2 are recorded per sequence; their joint law is the product
     * p(t1) p(t2 | t1) only through the marginals here, so test the marginals */
    memcpy(joint, s.pos_counts, 2 * V * sizeof *joint);
    sd_engine_stats_free(&s);
}

START_TEST(block_and_multi_draft_are_lossless)
{
    sd_model *m = small_model();
    double marg[2 * V] = { 0 }; /* exact marginals of positions 1 and 2 */
    sd_prefix s0;
    sd_model_start(m, &s0);
    const sd_context *c1 = sd_model_lookup(m, &s0);
    for (size_t r1 = 0; r1 < V; r1++) {
        marg[c1->token[r1]] += c1->p[r1];
        sd_prefix s1 = s0;
        sd_model_advance(m, &s1, c1->token[r1]);
        const sd_context *c2 = sd_model_lookup(m, &s1);
        for (size_t r2 = 0; r2 < V; r2++)
            marg[V + c2->token[r2]] += c1->p[r1] * c2->p[r2];
    }
    static const char *const rules[] = { "block", "adjusted", "target" };
    static const size_t drafts[] = { 1, 3, 1 };
    for (int k = 0; k < 3; k++) {
        uint64_t counts[2 * V];
        first_two_with(m, rules[k], drafts[k], 150000, counts);
        double stat = 0, dof = 0;
        sd_gof_chisq(counts, marg, V, &stat, &dof);
        sd_gof_chisq(counts + V, marg + V, V, &stat, &dof);
        double p = gsl_cdf_chisq_Q(stat, dof);
        if (k < 2)
            ck_assert_msg(p > 1e-7, "%s x%zu: chi-square %g on %g dof", rules[k], drafts[k], stat, dof);
        else
            ck_assert_msg(p < 1e-7, "control: target not caught (chi-square %g)", stat);
    }
    sd_model_free(m);
}
END_TEST

START_TEST(block_reference_pair)
{
    const double p[] = { 1.0 / 3, 2.0 / 3 }, q[] = { 2.0 / 3, 1.0 / 3 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, q, 2, &m, NULL), SD_OK);
    double expect[] = { 1 + 11.0 / 9, 1 + 10.0 / 9 };
    static const char *const rules[] = { "block", "adjusted" };
    for (int k = 0; k < 2; k++) {
        sd_engine_config ec = { .model = m, .verifier = sd_verify_find(rules[k]), .policy = SD_POLICY_FIXED,
            .gamma = 2, .tokens = 1000000, .seed = 3, .threads = 2, .drafts = 1 };
        sd_engine_stats s;
        ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
        double z = (sd_engine_stats_mean_n(&s) - expect[k]) / sd_engine_stats_mean_n_se(&s);
        ck_assert_msg(fabs(z) < 6, "%s: %.5f tokens per iteration, expected %.5f (z %.2f)", rules[k],
                      sd_engine_stats_mean_n(&s), expect[k], z);
        /* control: block is caught against the token-wise value */
        if (k == 0)
            ck_assert(fabs((sd_engine_stats_mean_n(&s) - expect[1]) / sd_engine_stats_mean_n_se(&s)) > 9.1);
        sd_engine_stats_free(&s);
    }
    sd_model_free(m);
}
END_TEST

START_TEST(adaptive_policies)
{
    sd_synth_config c = { .family = SD_FAMILY_ZIPF, .vocab = 300, .zipf_s = 1.5, .kappa = 1.0, .temperature = 1.0,
        .calibrated = 1, .alpha = 0.8, .regime = SD_REGIME_CONSTANT, .concentration = 20, .alpha_easy = 0.95,
        .alpha_hard = 0.3, .stay = 0.9, .contexts = 16, .history = 2, .seed = 5, .threads = 2 };
    sd_model *m;
    ck_assert_int_eq(sd_synth_model(&c, &m, NULL), SD_OK);
    const sd_verifier *v = sd_verify_find("adjusted");
    sd_engine_config ec = { .model = m, .verifier = v, .policy = SD_POLICY_THRESHOLD, .gamma = 6, .tokens = 100000,
        .seed = 1, .threads = 2, .drafts = 1, .threshold = 1.0 };
    sd_engine_stats s;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK); /* no draft is that sure: plain decoding */
    ck_assert_uint_eq(s.draft_calls, 0);
    ck_assert_ptr_null(s.moves); /* the heuristic's moves only */
    ck_assert_uint_eq(s.n_hist[1], s.iterations);
    sd_engine_stats_free(&s);
    ec.threshold = 0.0; /* never stops early: the fixed policy at gamma 6 */
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    ck_assert_uint_eq(s.draft_calls, 6 * s.iterations);
    ck_assert(fabs(sd_engine_stats_mean_n(&s) - sd_theory_expected_tokens(0.8, 6)) < 6 * sd_engine_stats_mean_n_se(&s));
    /* control: the same run against gamma 5 is caught */
    ck_assert(fabs(sd_engine_stats_mean_n(&s) - sd_theory_expected_tokens(0.8, 5)) > 9.1 * sd_engine_stats_mean_n_se(&s));
    sd_engine_stats_free(&s);
    ec.policy = SD_POLICY_HEURISTIC;
    ec.gamma = 2;
    ec.gamma_max = 12;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    double mean_drafts = (double)s.draft_calls / (double)s.iterations;
    ck_assert(mean_drafts > 1.0 && mean_drafts < 12.0);
    ck_assert_uint_eq(s.max_n, 13);      /* N is at most gamma_max + 1 */
    ck_assert_uint_gt(s.n_hist[13], 0);  /* and the cap is reached: 12 drafts, all accepted */
    /* one move per iteration, each one the +2/-1 rule allows (engine.h) */
    uint64_t moves = 0, full = 0;
    for (size_t f = 0; f < 2; f++)
        for (size_t g = 0; g <= 12; g++)
            for (size_t b = 0; b < SD_MOVE_BINS; b++) {
                uint64_t count = s.moves[(f * 13 + g) * SD_MOVE_BINS + b];
                size_t to = f ? (g + 2 < 12 ? g + 2 : 12) : (g > 1 ? g - 1 : 1);
                ck_assert_msg(count == 0 || (b < SD_MOVE_BINS - 1 && g + b == to + SD_MOVE_SPAN),
                              "move from %zu (full %zu), bin %zu: %llu", g, f, b, (unsigned long long)count);
                moves += count;
                full += f ? count : 0;
            }
    ck_assert_uint_eq(moves, s.iterations);
    ck_assert(full > 0 && full < moves); /* both outcomes occur at alpha 0.8 */
    sd_engine_stats_free(&s);
    ec.gamma_max = 1; /* below gamma: refused */
    sd_error err;
    ck_assert_int_eq(sd_engine_run(&ec, &s, &err), SD_EINVAL);
    sd_model_free(m);
}
END_TEST

START_TEST(same_seed_same_result_on_any_thread_count)
{
    sd_synth_config c = { .family = SD_FAMILY_ZIPF, .vocab = 700, .zipf_s = 1.5, .kappa = 1.0, .temperature = 1.0,
        .calibrated = 1, .alpha = 0.7, .regime = SD_REGIME_BETA, .concentration = 20, .alpha_easy = 0.95,
        .alpha_hard = 0.3, .stay = 0.9, .contexts = 16, .history = 2, .seed = 5, .threads = 2 };
    sd_model *m;
    ck_assert_int_eq(sd_synth_model(&c, &m, NULL), SD_OK);
    sd_engine_stats s[3];
    for (unsigned t = 1; t <= 3; t++) {
        sd_engine_config ec = { .model = m, .verifier = sd_verify_find("adjusted"), .policy = SD_POLICY_FIXED,
            .gamma = 4, .tokens = 200000, .seed = 99, .threads = t, .drafts = 1 };
        ck_assert_int_eq(sd_engine_run(&ec, &s[t - 1], NULL), SD_OK);
    }
    for (int k = 1; k < 3; k++) {
        ck_assert_uint_eq(s[k].tokens, s[0].tokens);
        ck_assert_mem_eq(s[k].n_hist, s[0].n_hist, (s[0].max_n + 1) * sizeof(uint64_t));
        ck_assert_mem_eq(s[k].out_counts, s[0].out_counts, 16 * 700 * sizeof(uint64_t));
        ck_assert_mem_eq(&s[k].alpha_hat, &s[0].alpha_hat, sizeof(double)); /* bit for bit */
    }
    sd_engine_config other = { .model = m, .verifier = sd_verify_find("adjusted"), .policy = SD_POLICY_FIXED,
        .gamma = 4, .tokens = 200000, .seed = 100, .threads = 1, .drafts = 1 };
    sd_engine_stats o;
    ck_assert_int_eq(sd_engine_run(&other, &o, NULL), SD_OK);
    ck_assert(memcmp(o.n_hist, s[0].n_hist, (s[0].max_n + 1) * sizeof(uint64_t)) != 0); /* another seed differs */
    sd_engine_stats_free(&o);
    for (int k = 0; k < 3; k++)
        sd_engine_stats_free(&s[k]);
    sd_model_free(m);
}
END_TEST

START_TEST(greedy_emits_the_argmax)
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
    for (size_t k = 0; k < 16; k++) {
        ck_assert_uint_eq(s.out_counts[k * 50], s.ctx_tokens[k]); /* every emitted token is rank 0 */
    }
    sd_engine_stats_free(&s);
    sd_model_free(m);
}
END_TEST

START_TEST(degenerate_models)
{
    /* V = 1, p = q: every draft accepted, N = gamma + 1 */
    const double one[] = { 1.0 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(one, one, 1, &m, NULL), SD_OK);
    sd_engine_config ec = { .model = m, .verifier = sd_verify_find("adjusted"), .policy = SD_POLICY_FIXED,
        .gamma = 6, .tokens = 10000, .seed = 1, .threads = 1, .drafts = 1 };
    sd_engine_stats s;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    ck_assert_uint_eq(s.n_hist[7], s.iterations);
    ck_assert_double_eq(s.alpha_hat, 1.0);
    sd_engine_stats_free(&s);
    /* the oracle at alpha = 1 stops at its cap instead of looping */
    ec.policy = SD_POLICY_ORACLE;
    ec.tokens = 5000;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    ck_assert_uint_eq(s.n_hist[SD_ORACLE_MAX + 1], s.iterations);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    /* disjoint supports: alpha = 0, N = 1 always */
    const double p[] = { 1.0, 0.0 }, q[] = { 0.0, 1.0 };
    ck_assert_int_eq(sd_model_pair(p, q, 2, &m, NULL), SD_OK);
    ec.model = m;
    ec.policy = SD_POLICY_FIXED;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    ck_assert_uint_eq(s.n_hist[1], s.iterations);
    ck_assert_uint_eq(s.accepted, 0);
    sd_engine_stats_free(&s);
    sd_model_free(m);
}
END_TEST

/* A broken rule: token-wise adjusted verification, except that from its
 * 6000th block on it claims one more accepted draft than was made. */
static atomic_int broken_calls;

static size_t broken_block(const sd_block *b, gsl_rng *r, uint32_t *last)
{
    if (atomic_fetch_add(&broken_calls, 1) >= 6000)
        return b->gamma + 1;
    return sd_verify_block(sd_verify_find("adjusted"), b, r, last);
}

static void count_progress(void *arg, double fraction, double seconds)
{
    (void)fraction, (void)seconds;
    ++*(int *)arg;
}

/* Issue 10: an iteration with no valid token count looped forever, and a
 * failing worker left the progress wait hanging.  Now the run stops, on
 * every thread, with SD_EFAIL naming the broken rule. */
START_TEST(broken_rule_fails_instead_of_hanging)
{
    sd_verifier broken = *sd_verify_find("block");
    broken.block = broken_block;
    sd_model *m = small_model();
    int calls = 0;
    sd_engine_config ec = sd_engine_defaults();
    ec.model = m, ec.verifier = &broken, ec.gamma = 3, ec.tokens = 2000000, ec.threads = 2;
    ec.progress = count_progress, ec.progress_arg = &calls;
    atomic_store(&broken_calls, 0);
    sd_engine_stats s;
    sd_error err;
    ck_assert_int_eq(sd_engine_run(&ec, &s, &err), SD_EFAIL); /* the pilot chunk passed: threads were running */
    ck_assert_ptr_nonnull(strstr(err.msg, "accepted more drafts than were made"));
    sd_model_free(m); /* and it returned: with a progress callback the wait once never ended */
}
END_TEST

/* With the oracle policy every emitted token's context is verified, so the measured
 * acceptance along the generated path must equal the mean exact beta of the contexts
 * visited (alpha_hat) within 6 SE (the Bernoulli bound sqrt(a(1 - a)/n), conservative for
 * independent trials of varying beta).  Control: the bank's unweighted mean beta, the
 * i.i.d. reading of the contexts, is rejected. */
START_TEST(path_acceptance_is_mean_beta_of_visited_contexts)
{
    sd_model *m;
    ck_assert_int_eq(sd_ngram_load(GPL, &(sd_ngram_config){ .order = 5, .draft_order = 2, .target = NULL, .draft = NULL }, &m, NULL), SD_OK);
    sd_engine_config ec = sd_engine_defaults();
    ec.model = m, ec.verifier = sd_verify_find("adjusted"), ec.policy = SD_POLICY_ORACLE, ec.tokens = 300000;
    ec.threads = 2, ec.seed = 17;
    sd_engine_stats s;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    double n = (double)s.verified, rate = (double)s.accepted / n, a = s.alpha_hat;
    double se = sqrt(a * (1 - a) / n), bank = sd_verify_mean_acceptance(ec.verifier, m);
    ck_assert_msg(fabs(rate - a) <= 6 * se, "rate %.6f, alpha_hat %.6f, se %.2g", rate, a, se);
    ck_assert_msg(fabs(rate - bank) > 6 * se, "control missed: bank mean %.6f", bank);
    sd_engine_stats_free(&s);
    /* the same for deterministic-draft: acceptance p(argmax q) */
    ec.verifier = sd_verify_find("deterministic-draft");
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    n = (double)s.verified, rate = (double)s.accepted / n, a = s.alpha_hat, se = sqrt(a * (1 - a) / n);
    ck_assert_msg(fabs(rate - a) <= 6 * se, "rate %.6f, alpha_hat %.6f, se %.2g", rate, a, se);
    sd_engine_stats_free(&s);
    sd_model_free(m);
}
END_TEST

/* Output = p at the most visited context (chi-square, p-value >= 1e-6), for the adjusted
 * and deterministic-draft rules; control: the biased target rule is rejected there. */
START_TEST(output_is_p_at_a_fixed_context)
{
    sd_model *m;
    ck_assert_int_eq(sd_ngram_load(GPL, &(sd_ngram_config){ .order = 4, .draft_order = 2, .target = NULL, .draft = NULL }, &m, NULL), SD_OK);
    const char *rules[] = { "adjusted", "deterministic-draft", "target" };
    size_t v = sd_model_vocab(m);
    for (int k = 0; k < 3; k++) {
        sd_engine_config ec = sd_engine_defaults();
        ec.model = m, ec.verifier = sd_verify_find(rules[k]), ec.gamma = 3, ec.tokens = 1000000, ec.threads = 2;
        sd_engine_stats s;
        ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
        size_t best = 0;
        for (size_t c = 1; c < s.contexts; c++)
            if (s.ctx_tokens[c] > s.ctx_tokens[best])
                best = c;
        double stat = 0, dof = 0, pv;
        sd_gof_chisq(s.out_counts + best * v, sd_model_context(m, best)->p, v, &stat, &dof);
        pv = isinf(stat) ? 0.0 : gsl_cdf_chisq_Q(stat, dof);
        if (k < 2)
            ck_assert_msg(pv >= 1e-6, "%s: chi-square %g on %g dof at context %zu (%llu tokens)", rules[k], stat, dof,
                          best, (unsigned long long)s.ctx_tokens[best]);
        else
            ck_assert_msg(pv < 1e-6, "control missed: target passes with chi-square %g on %g dof", stat, dof);
        sd_engine_stats_free(&s);
    }
    sd_model_free(m);
}
END_TEST

/* The defaults, the policy names, the fingerprint (what determines a run,
 * not how it is split), the memory estimate, and refusals naming the field
 * with *out untouched. */
START_TEST(defaults_fingerprint_and_refusals)
{
    sd_engine_config d = sd_engine_defaults();
    ck_assert_int_eq(d.policy, SD_POLICY_FIXED);
    ck_assert_uint_eq(d.gamma, 5);
    ck_assert_uint_eq(d.tokens, 1000000);
    ck_assert_uint_eq(d.seed, SD_RNG_DEFAULT_SEED);
    ck_assert_uint_eq(d.threads, 1);
    ck_assert_uint_eq(d.drafts, 1);
    ck_assert_double_eq(d.threshold, 0.5);
    ck_assert_uint_eq(d.gamma_max, 32);
    ck_assert(d.model == NULL && d.verifier == NULL && d.progress == NULL && d.io == NULL && d.nshards == 0);
    static const char *const names[] = { "fixed", "oracle", "threshold", "heuristic" };
    for (int p = SD_POLICY_FIXED; p <= SD_POLICY_HEURISTIC; p++) {
        ck_assert_str_eq(sd_engine_policy_name((sd_policy)p), names[p]);
        ck_assert_str_eq(sd_engine_policy_names()[p], names[p]);
    }
    ck_assert_ptr_null(sd_engine_policy_names()[4]);

    const double p[] = { 0.5, 0.1, 0.3, 0.1 }, q[] = { 0.2, 0.4, 0.15, 0.25 }, q2[] = { 0.2, 0.4, 0.25, 0.15 };
    sd_model *m, *m2;
    ck_assert_int_eq(sd_model_pair(p, q, 4, &m, NULL), SD_OK);
    ck_assert_int_eq(sd_model_pair(p, q2, 4, &m2, NULL), SD_OK);
    d.model = m, d.verifier = sd_verify_find("adjusted");
    uint64_t f = sd_engine_fingerprint(&d);
    sd_engine_config same = d;
    sd_engine_io io = { 0 };
    same.threads = 7, same.progress_arg = &same, same.shard = 2, same.nshards = 3, same.io = &io, same.drafts = 0;
    ck_assert_uint_eq(sd_engine_fingerprint(&same), f); /* threads, progress, shards, hooks; 0 drafts is 1 */
    sd_engine_config other[9];
    for (int k = 0; k < 9; k++)
        other[k] = d;
    other[0].seed++, other[1].seed += (uint64_t)1 << 60, other[2].gamma = 6, other[3].tokens++;
    other[4].verifier = sd_verify_find("target"), other[5].model = m2, other[6].skip_outputs = 1;
    other[7].positions = 2, other[8].policy = SD_POLICY_ORACLE;
    for (int k = 0; k < 9; k++)
        ck_assert_msg(sd_engine_fingerprint(&other[k]) != f, "change %d keeps the fingerprint", k);

    /* the memory estimate: the output counters are contexts x vocab words a thread */
    sd_engine_config b = sd_engine_defaults();
    b.threads = 3;
    size_t with = sd_engine_bytes(&b, 1000, 64);
    b.skip_outputs = 1;
    size_t without = sd_engine_bytes(&b, 1000, 64);
    ck_assert_uint_ge(with - without, (size_t)3 * 64 * 1000 * sizeof(uint64_t));
    ck_assert_uint_gt(sd_engine_bytes(&b, 1000, 128), without);
    b.skip_outputs = 0;
    ck_assert_uint_eq(sd_engine_bytes(&b, SIZE_MAX / 4, 64), SIZE_MAX); /* saturates */

    static const struct { int field; const char *prefix; } bad[] = {
        { 0, "model: " },    { 1, "verifier: " }, { 2, "gamma: " },  { 3, "tokens: " },      { 4, "positions: " },
        { 5, "threshold: " }, { 6, "drafts: " },  { 7, "drafts: " }, { 8, "gamma_max: " },   { 9, "shard: " },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sd_engine_config c = d;
        c.tokens = 1000;
        switch (bad[i].field) {
        case 0: c.model = NULL; break;
        case 1: c.verifier = NULL; break;
        case 2: c.gamma = 0; break;
        case 3: c.tokens = 0; break;
        case 4: c.positions = SD_POSITIONS_MAX + 1; break;
        case 5: c.policy = SD_POLICY_THRESHOLD, c.threshold = 1.5; break;
        case 6: c.drafts = 65; break;
        case 7: c.drafts = 2, c.verifier = sd_verify_find("target"); break;
        case 8: c.policy = SD_POLICY_HEURISTIC, c.gamma_max = SD_ORACLE_MAX + 1; break;
        default: c.shard = 4, c.nshards = 3; break;
        }
        sd_engine_stats s, sentinel;
        memset(&s, 0xa5, sizeof s);
        sentinel = s;
        sd_error err;
        ck_assert_int_eq(sd_engine_run(&c, &s, &err), SD_EINVAL);
        ck_assert_msg(strncmp(err.msg, bad[i].prefix, strlen(bad[i].prefix)) == 0, "case %zu: %s", i, err.msg);
        ck_assert_mem_eq(&s, &sentinel, sizeof s);
    }
    sd_model_free(m);
    sd_model_free(m2);
}
END_TEST

/* A tree the engine is given is checked first: a rank past SD_TREE_MAX_RANK, or the wrong
 * rule, is refused naming the field, and so is its theory. */
START_TEST(tree_refusals)
{
    static const double p[4] = { 0.5, 0.1, 0.3, 0.1 }, q[4] = { 0.2, 0.4, 0.15, 0.25 };
    sd_model *m;
    sd_error err;
    ck_assert_int_eq(sd_model_pair(p, q, 4, &m, NULL), SD_OK);
    sd_tree t;
    ck_assert_int_eq(sd_tree_parse("[(0,), (1,)]", NULL, &t, "t", &err), SD_OK);
    sd_engine_config ec = sd_engine_defaults();
    ec.model = m;
    ec.verifier = sd_verify_find("adjusted");
    ec.tree = &t;
    ec.tokens = 1000;
    t.rank[1] = 200;
    sd_engine_stats s;
    ck_assert_int_eq(sd_engine_run(&ec, &s, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "tree: node 1: rank 200 is not below 64"));
    sd_tree_accept a;
    double tokens;
    ck_assert_int_eq(sd_engine_tree_theory(&ec, NULL, &a, &tokens, &err), SD_EINVAL);
    t.rank[1] = 1;
    ec.verifier = sd_verify_find("target");
    ck_assert_int_eq(sd_engine_run(&ec, &s, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "tree: a tree is drafted under the fixed policy and the adjusted rule"));
    ec.verifier = sd_verify_find("adjusted");
    ck_assert_int_eq(sd_engine_run(&ec, &s, &err), SD_OK);
    ck_assert_uint_eq(s.target_positions, 3 * s.target_calls);
    sd_engine_stats_free(&s);
    sd_model_free(m);
}
END_TEST

Suite *engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("engine");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, first_iteration_n_is_exact);
    tcase_add_test(tc, same_seed_same_result_on_any_thread_count);
    tcase_add_test(tc, greedy_emits_the_argmax);
    tcase_add_test(tc, degenerate_models);
    tcase_add_test(tc, block_and_multi_draft_are_lossless);
    tcase_add_test(tc, block_reference_pair);
    tcase_add_test(tc, adaptive_policies);
    tcase_add_test(tc, broken_rule_fails_instead_of_hanging);
    tcase_add_test(tc, defaults_fingerprint_and_refusals);
    tcase_add_test(tc, tree_refusals);
    suite_add_tcase(s, tc);
    TCase *ng = tcase_create("n-gram pair");
    tcase_set_timeout(ng, 120);
    tcase_add_test(ng, path_acceptance_is_mean_beta_of_visited_contexts);
    tcase_add_test(ng, output_is_p_at_a_fixed_context);
    suite_add_tcase(s, ng);
    return s;
}


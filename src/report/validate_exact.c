/* validate_exact.c -- the checks of validate built on exact results
 * (16-20): block verification's output enumerated on a pair where its
 * residual weight matters, the calibrated banks' acceptance, greedy's
 * argmax, gamma* against a brute-force scan, and the heuristic's moves.
 * Their rows have a tolerance of 0 or 1e-12 and a p_value of 1 or 0; the
 * engine's measurements beside them are statistical. */
#include "validate_impl.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "specdec/gof.h"
#include "specdec/theory.h"
#include "specdec/verify.h"

/* The larger of a worst deviation w so far and a new one d; a NaN in either stays. */
static double worse(double w, double d) { return isnan(w) || d <= w ? w : d; }

/* ---- 16: block verification's residual weight, on a pair where it matters ----------- */

enum { BV = 3, BG = 3, BL = SD_POSITIONS_MAX }; /* the pair's tokens, gamma, positions counted */

/* Block verification's P_0..P_BG and the law of tau, pt[0..BG], for the drafts
 * x[0..BG-1] of the context-free pair (p, q), as verify.h describes. */
static void block_tau(const double *p, const double *q, const int *x, double *P, double *pt)
{
    double h[BG + 1], rest = 1.0;
    P[0] = 1.0;
    for (int i = 1; i <= BG; i++)
        P[i] = fmin(1.0, P[i - 1] * p[x[i - 1]] / q[x[i - 1]]);
    for (int i = 1; i < BG; i++) {
        double z = 0.0;
        for (int t = 0; t < BV; t++)
            z += fmax(P[i] * p[t] - q[t], 0.0);
        h[i] = z > 0.0 ? z / (z + 1.0 - P[i]) : 0.0;
    }
    h[BG] = P[BG];
    for (int i = BG; i >= 1; i--) { /* going down from BG: stop at i with probability h_i */
        pt[i] = rest * h[i];
        rest *= 1.0 - h[i];
    }
    pt[0] = rest;
}

/* The exact output of one block iteration on the pair, by enumerating the
 * BV^BG drafts: it[(l * (BG + 1) + j) * BV + x] = P(N = l, token j = x).
 * weighted = 0 is the planted bug: the residual max(p - q, 0), without P_tau. */
static void block_iteration(const double *p, const double *q, int weighted, double *it)
{
    int combos = 1;
    for (int i = 0; i < BG; i++)
        combos *= BV;
    memset(it, 0, (BG + 2) * (BG + 1) * BV * sizeof *it);
    for (int code = 0; code < combos; code++) {
        int x[BG];
        double w = 1.0, P[BG + 1], pt[BG + 1];
        for (int i = 0, c = code; i < BG; i++, c /= BV) {
            x[i] = c % BV;
            w *= q[x[i]];
        }
        block_tau(p, q, x, P, pt);
        for (int tau = 0; tau <= BG; tau++) {
            double r[BV], tot = 0.0, wt = w * pt[tau], *row = it + (tau + 1) * (BG + 1) * BV;
            for (int j = 0; j < tau; j++)
                row[j * BV + x[j]] += wt;
            for (int t = 0; t < BV; t++) {
                r[t] = tau == BG ? p[t] : fmax((weighted ? P[tau] : 1.0) * p[t] - q[t], 0.0);
                tot += r[t];
            }
            for (int t = 0; t < BV; t++) /* an empty residual falls back to p, as the rule does */
                row[tau * BV + t] += tot > 0.0 ? wt * r[t] / tot : wt * p[t];
        }
    }
}

/* The exact token law pooled over sequence positions 1..BL into pooled[BV]
 * (iterations on a context-free pair are i.i.d.: a renewal process), and
 * E(N) into *mean_n unless it is NULL. */
static void block_pooled(const double *p, const double *q, int weighted, double *pooled, double *mean_n)
{
    double it[(BG + 2) * (BG + 1) * BV], len[BG + 2] = { 0 }, start[BL] = { 1.0 };
    block_iteration(p, q, weighted, it);
    double en = 0.0;
    for (int l = 1; l <= BG + 1; l++) {
        for (int t = 0; t < BV; t++) /* every iteration has a token 0 */
            len[l] += it[l * (BG + 1) * BV + t];
        en += l * len[l];
    }
    if (mean_n != NULL)
        *mean_n = en;
    for (int s = 1; s < BL; s++) /* P(an iteration starts at position s + 1) */
        for (int l = 1; l <= BG + 1 && l <= s; l++)
            start[s] += start[s - l] * len[l];
    memset(pooled, 0, BV * sizeof *pooled);
    for (int k = 0; k < BL; k++)
        for (int s = 0; s <= k; s++)
            for (int l = k - s + 1; l <= BG + 1; l++)
                for (int t = 0; t < BV; t++)
                    pooled[t] += start[s] * it[(l * (BG + 1) + k - s) * BV + t] / BL;
}

/* The engine's block rule on the pair: pooled output and tokens per iteration. */
static sd_status block_pair_rows(sd_validate_ctx *v, const sd_model *m, const double *p, const double *planted,
                                 double mean_n, sd_error *err)
{
    sd_engine_config ec = sd_validate_engine(v, m, "block", 1e6);
    ec.gamma = BG;
    ec.seq_tokens = BL;
    ec.positions = BL;
    sd_engine_stats s;
    sd_status st = sd_engine_run(&ec, &s, err);
    if (st != SD_OK)
        return st;
    uint64_t counts[BV] = { 0 }, n = 0;
    for (size_t k = 0; k < BL; k++)
        for (size_t t = 0; t < BV; t++) { /* pos_counts are by token id: the pair's order */
            counts[t] += s.pos_counts[k * BV + t];
            n += s.pos_counts[k * BV + t];
        }
    double stat = 0, dof = 0, wstat = 0, wdof = 0;
    sd_gof_chisq(counts, p, BV, &stat, &dof);
    sd_gof_chisq(counts, planted, BV, &wstat, &wdof);
    st = sd_validate_chisq_row(v, "16. block, same pair, engine: output = p, positions 1-16 pooled (chi-square)",
                               stat, dof, (double)n, SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_chisq_row(v, "16. control: the residual without P_tau (the planted bug), enumerated", wstat,
                                   wdof, (double)n, SD_VALIDATE_CONTROL, err);
    if (st == SD_OK)
        st = sd_validate_mean_n_row(v, "16. block, same pair: tokens per iteration = E(N) enumerated", mean_n, &s,
                                    SD_VALIDATE_CHECK, err);
    if (st == SD_OK) /* token-wise: beta = 0.5 */
        st = sd_validate_mean_n_row(v, "16. control: block at the token-wise eq. (4), beta = 0.5",
                                    sd_theory_expected_tokens(0.5, BG), &s, SD_VALIDATE_CONTROL, err);
    sd_engine_stats_free(&s);
    return st;
}

sd_status sd_validate_check_block_residual(sd_validate_ctx *v, sd_error *err)
{
    /* found by search over pairs of 3-5 tokens and gamma 2-3: the one whose
     * output the residual's weight P_tau moves most (on two tokens it does not matter);
     * without it the pooled law is (.35 .377 .273), 0.0046 of chi-square per token */
    static const double p[BV] = { 0.35, 0.35, 0.30 }, q[BV] = { 0.85, 0.14, 0.01 };
    double exact[BV], planted[BV], mean_n, dev = 0.0;
    block_pooled(p, q, 1, exact, &mean_n);
    block_pooled(p, q, 0, planted, NULL);
    for (int t = 0; t < BV; t++)
        dev = worse(dev, fabs(exact[t] - p[t]));
    sd_status st = sd_validate_exact_row(v, "16. block, p = (.35 .35 .30), q = (.85 .14 .01), gamma 3, enumerated: "
                                            "output = p, positions 1-16",
                                         0.0, dev, 1e-12, BL * BV, SD_VALIDATE_CHECK, err);
    sd_model *m = NULL;
    if (st != SD_OK || (st = sd_model_pair(p, q, BV, &m, err)) != SD_OK)
        return st;
    st = block_pair_rows(v, m, p, planted, mean_n, err);
    sd_model_free(m);
    return st;
}

/* ---- 17: every calibrated context's beta is the nominal alpha -------------------------- */

/* The largest |beta - a| over m's contexts, beta both as stored and as
 * sum min(p, q) recomputed here, and |target_alpha - a|; NaN propagates. */
static double worst_beta(const sd_model *m, double a)
{
    double worst = 0.0;
    size_t n = sd_model_vocab(m);
    for (size_t c = 0; c < sd_model_contexts(m); c++) {
        const sd_context *ctx = sd_model_context(m, c);
        double beta = 0.0;
        for (size_t r = 0; r < n; r++)
            beta += ctx->p[r] < ctx->q[r] ? ctx->p[r] : ctx->q[r];
        worst = worse(worse(worse(worst, fabs(beta - a)), fabs(ctx->beta - a)), fabs(ctx->target_alpha - a));
    }
    return worst;
}

sd_status sd_validate_check_nominal_alpha(sd_validate_ctx *v, sd_error *err)
{
    /* the banks of checks 1 and 4-15 and more: each family, alpha 0.1 to 0.8 (logits at 0.3
     * calibrates against the point-mass reference) */
    static const struct {
        sd_family family;
        size_t vocab;
        double alpha;
    } banks[] = {
        { .family = SD_FAMILY_ZIPF, .vocab = SD_VALIDATE_VOCAB, .alpha = SD_VALIDATE_ALPHA },
        { .family = SD_FAMILY_ZIPF, .vocab = 8, .alpha = 0.6 },
        { .family = SD_FAMILY_ZIPF, .vocab = 200, .alpha = 0.6 },
        { .family = SD_FAMILY_ZIPF, .vocab = SD_VALIDATE_VOCAB, .alpha = 0.1 },
        { .family = SD_FAMILY_DIRICHLET, .vocab = 100, .alpha = 0.5 },
        { .family = SD_FAMILY_LOGITS, .vocab = 50, .alpha = 0.3 },
    };
    enum { NB = sizeof banks / sizeof banks[0] };
    double worst = 0.0, wrong = 0.0, contexts = 0.0;
    sd_status st = SD_OK;
    for (size_t b = 0; b < NB && st == SD_OK; b++) {
        sd_synth_config sc = sd_validate_synth(v, banks[b].vocab, banks[b].alpha, SD_REGIME_CONSTANT);
        sc.family = banks[b].family;
        sd_model *m = NULL;
        if ((st = sd_synth_model(&sc, &m, err)) != SD_OK)
            break;
        double d = worst_beta(m, banks[b].alpha), dw = worst_beta(m, banks[b].alpha + 0.01);
        worst = worse(worst, d);
        wrong = worse(wrong, dw);
        contexts += (double)sd_model_contexts(m);
        sd_model_free(m);
    }
    if (st == SD_OK)
        st = sd_validate_exact_row(v, "17. every context's beta = sum min(p, q) = the nominal alpha "
                                      "(6 calibrated banks)",
                                   0.0, worst, 1e-12, contexts, SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_exact_row(v, "17. control: the same contexts against alpha + 0.01", 0.0, wrong, 1e-12,
                                   contexts, SD_VALIDATE_CONTROL, err);
    return st;
}

/* ---- 18: greedy emits the target's argmax ------------------------------------------------ */

/* Tokens emitted at ranks other than p's argmax and other than q's, and
 * where the greedy rule accepts q's argmax (a whole number), from s on m. */
static void greedy_counts(const sd_model *m, const sd_engine_stats *s, uint64_t *off_p, uint64_t *off_q, double *agree)
{
    const sd_verifier *greedy = sd_verify_find("greedy");
    *off_p = 0;
    *off_q = 0;
    *agree = 0.0;
    for (size_t c = 0; c < s->contexts; c++) {
        const sd_context *ctx = sd_model_context(m, c);
        *off_p += s->ctx_tokens[c] - s->out_counts[c * s->vocab];
        *off_q += s->ctx_tokens[c] - s->out_counts[c * s->vocab + ctx->argmax_q];
        *agree += sd_verify_acceptance(greedy, ctx) * (double)s->ctx_tokens[c];
    }
}

sd_status sd_validate_check_greedy(sd_validate_ctx *v, sd_error *err)
{
    enum { G = 3 };
    /* per-context acceptance varies (beta regime), so q's argmax is p's in about half the
     * contexts; a history of 8 tokens makes the (deterministic) greedy path visit the bank
     * like a random draw.  Every chunk replays the same path: run one (2048 iterations). */
    sd_synth_config sc = sd_validate_synth(v, 200, 0.55, SD_REGIME_BETA);
    sc.history = SD_HISTORY_MAX;
    sd_engine_config ec = sd_validate_engine(v, NULL, "greedy", 1);
    ec.gamma = G;
    sd_model *m;
    sd_engine_stats s;
    sd_status st = sd_validate_model_run(&sc, ec, &m, &s, err);
    if (st != SD_OK)
        return st;
    uint64_t off_p, off_q;
    double agree, it = (double)s.iterations, tokens = (double)s.tokens;
    greedy_counts(m, &s, &off_p, &off_q, &agree);
    st = sd_validate_exact_row(v, "18. greedy: every emitted token is p's argmax (tokens of other ranks)", 0.0,
                               (double)off_p, 0.0, tokens, SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_exact_row(v, "18. control: every emitted token is q's argmax (the draft's argmax kept)", 0.0,
                                   (double)off_q, 0.0, tokens, SD_VALIDATE_CONTROL, err);
    /* accepted drafts = tokens emitted where q's argmax is p's, but for the bonus tokens,
     * whose contexts were not verified: tokens per iteration lies in
     * [1 + (agree - bonus) / it, 1 + agree / it] (the row: theory - tolerance to theory) */
    double bonus = (double)s.n_hist[G + 1];
    if (st == SD_OK)
        st = sd_validate_add_row(v, "18. greedy: tokens per iteration = 1 + (tokens where argmaxes agree) / "
                                    "iterations, bonus aside",
                                 1.0 + agree / it, tokens / it, bonus / it, 1.0, it,
                                 tokens - it <= agree && agree <= tokens - it + bonus, SD_VALIDATE_CHECK, err);
    double share = sd_verify_mean_acceptance(sd_verify_find("greedy"), m); /* of contexts where argmaxes agree */
    if (st == SD_OK)
        st = sd_validate_mean_n_row(v, "18. greedy: tokens per iteration = eq. (4) at the share of contexts "
                                       "where argmaxes agree",
                                    sd_theory_expected_tokens(share, G), &s, SD_VALIDATE_CHECK, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

/* ---- 19: gamma* against a brute-force scan of eq. (10) ----------------------------------- */

/* The whole gamma in 0..limit maximising eq. (10) by scanning: 0 when no
 * gamma gives f > 1 by more than rounding (4 eps: at alpha = c, where
 * theory.h proves no gain, the computed f(1) may be 1 + eps); where f ties
 * in double precision, the gamma nearest the continuous optimum gs
 * (sd_theory_optimal's rule, theory.c). */
static double scan_optimum(double alpha, double cost, double limit, double gs)
{
    double best = 0.0, best_f = 1.0 + 4.0 * DBL_EPSILON;
    for (double g = 1.0; g <= limit; g++) {
        double f = sd_theory_improvement(alpha, g, cost);
        if (f > best_f || (best > 0.0 && !(f < best_f) && fabs(g - gs) < fabs(best - gs))) {
            best = g;
            best_f = f;
        }
    }
    return best;
}

/* A point of check 19's grid: (alpha, c) and how far the scan goes. */
typedef struct {
    double alpha, cost, limit;
} grid_point;

/* alpha -> 1 (near the Lambert W branch point: gamma* in the thousands), tiny c
 * with small alpha, and tiny c where 1 + gamma c rounds to 1 (f ties in double) */
static const grid_point HARD[] = {
    { .alpha = 0.9999, .cost = 0.3, .limit = 5000 },     { .alpha = 0.9999, .cost = 0.9, .limit = 5000 },
    { .alpha = 0.999999, .cost = 0.5, .limit = 20000 },  { .alpha = 1 - 1e-7, .cost = 0.7, .limit = 10000 },
    { .alpha = 0.999, .cost = 1e-4, .limit = 10000 },    { .alpha = 0.99, .cost = 0.002, .limit = 3000 },
    { .alpha = 1e-5, .cost = 5e-6, .limit = 100 },       { .alpha = 1e-3, .cost = 1e-7, .limit = 100 },
    { .alpha = 1e-9, .cost = 1e-12, .limit = 100 },      { .alpha = 0.01, .cost = 1e-10, .limit = 100 },
    { .alpha = 0.05, .cost = 1e-12, .limit = 100 },      { .alpha = 1e-3, .cost = 1e-300, .limit = 5000 },
    { .alpha = 0.5, .cost = 1e-280, .limit = 5000 },
};
enum {
    NHARD = sizeof HARD / sizeof HARD[0],
    NREG = 25,                        /* a regular NREG x NREG grid */
    NTIE_A = 5, NTIE_G = 8,           /* near-ties: alphas x gammas x 4 distances */
    NTIE = NTIE_A * NTIE_G * 4,
    NNEAR = 6 * 3                     /* alpha at c: 6 costs x 3 distances */
};

static size_t grid_size(void) { return NREG * NREG + NTIE + NNEAR + NHARD; }

/* Grid point i of check 19, i < grid_size(). */
static grid_point grid_at(size_t i)
{
    static const double tie_a[NTIE_A] = { 0.5, 0.8, 0.9, 0.95, 0.99 }, tie_g[NTIE_G] = { 1, 2, 3, 5, 8, 13, 21, 34 };
    static const double eps[4] = { -1e-6, -1e-9, 1e-9, 1e-6 }, near_c[6] = { 1e-6, 1e-3, 0.05, 0.3, 0.7, 0.95 };
    static const double near_r[3] = { 1.0, 1 + 1e-6, 1 + 1e-9 };
    if (i < NREG * NREG) /* a regular grid, both sides of alpha = c */
        return (grid_point){ .alpha = 0.02 + 0.96 * (double)(i / NREG) / (NREG - 1),
                             .cost = pow(10.0, -4.0 + 3.7 * (double)(i % NREG) / (NREG - 1)), .limit = 3000 };
    if ((i -= NREG * NREG) < NTIE) { /* near-ties: c within 1e-6 or 1e-9 of where f(g) = f(g + 1) */
        double a = tie_a[i / (NTIE_G * 4)], g = tie_g[i / 4 % NTIE_G];
        double e = sd_theory_expected_tokens(a, g), e1 = sd_theory_expected_tokens(a, g + 1);
        double tie = pow(a, g + 1) / ((g + 1) * e - g * e1); /* f(g) = f(g + 1) there */
        return (grid_point){ .alpha = a, .cost = tie * (1 + eps[i % 4]), .limit = 3000 };
    }
    if ((i -= NTIE) < NNEAR) /* alpha at c and just above it (1e-9 only where f(1) - 1 resolves) */
        return (grid_point){ .alpha = near_c[i / 3] * (i % 3 == 2 && near_c[i / 3] < 0.05 ? 1 + 1e-6 : near_r[i % 3]),
                             .cost = near_c[i / 3], .limit = 100 };
    return HARD[i - NNEAR];
}

sd_status sd_validate_check_gamma_star(sd_validate_ctx *v, sd_error *err)
{
    size_t n = grid_size();
    double wrong = 0.0, floor_wrong = 0.0;
    for (size_t i = 0; i < n; i++) {
        grid_point pt = grid_at(i);
        sd_optimum o;
        sd_status st = sd_theory_optimal(pt.alpha, pt.cost, &o, err);
        if (st != SD_OK)
            return st;
        double best = scan_optimum(pt.alpha, pt.cost, pt.limit, o.gamma_continuous);
        wrong += !(fabs(o.gamma_opt - best) <= 0.0) || !(best < pt.limit); /* at the limit: the scan is too short */
        floor_wrong += !(fabs(floor(o.gamma_continuous) - best) <= 0.0);
    }
    sd_status st = sd_validate_exact_row(v, "19. gamma_opt = the argmax of eq. (10) by scan (near-ties, alpha ~ c, "
                                            "tiny c, alpha -> 1)",
                                         0.0, wrong, 0.0, (double)n, SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_exact_row(v, "19. control: floor(gamma_continuous) claimed optimal", 0.0, floor_wrong, 0.0,
                                   (double)n, SD_VALIDATE_CONTROL, err);
    return st;
}

/* ---- 20: the heuristic's draft-length trajectory follows its rule -------------------------- */

/* The moves of s (engine_stats.h: moves) that a rule forbids which allows only
 * g' = min(g + up, gmax) after full acceptance and g' = max(g - 1, 1) otherwise. */
static double forbidden_moves(const sd_engine_stats *s, size_t gmax, size_t up)
{
    double bad = 0.0;
    for (size_t full = 0; full < 2; full++)
        for (size_t g = 0; g <= s->max_gamma; g++) {
            size_t allowed = full ? (g + up < gmax ? g + up : gmax) : (g > 1 ? g - 1 : 1);
            for (size_t b = 0; b < SD_MOVE_BINS; b++) {
                uint64_t count = s->moves[(full * (s->max_gamma + 1) + g) * SD_MOVE_BINS + b];
                int ok = b < SD_MOVE_BINS - 1 && g + b == allowed + SD_MOVE_SPAN;
                bad += ok ? 0.0 : (double)count;
            }
        }
    return bad;
}

/* Pearson's statistic of the fully accepted iterations at each draft length g
 * against a^(g + shift), one degree of freedom per length. */
static void full_acceptance_chisq(const sd_engine_stats *s, double a, double shift, double *stat, double *dof)
{
    for (size_t g = 1; g <= s->max_gamma; g++) {
        uint64_t obs[2] = { 0, 0 }; /* not full, full */
        for (size_t full = 0; full < 2; full++)
            for (size_t b = 0; b < SD_MOVE_BINS; b++)
                obs[full] += s->moves[(full * (s->max_gamma + 1) + g) * SD_MOVE_BINS + b];
        double pf = pow(a, (double)g + shift), prob[2] = { 1.0 - pf, pf };
        sd_gof_chisq(obs, prob, 2, stat, dof);
    }
}

sd_status sd_validate_check_heuristic(sd_validate_ctx *v, sd_error *err)
{
    enum { GMAX = 6 };
    const double alpha = 0.8;
    sd_synth_config sc = sd_validate_synth(v, 100, alpha, SD_REGIME_CONSTANT);
    sd_engine_config ec = sd_validate_engine(v, NULL, "adjusted", 3e5);
    ec.policy = SD_POLICY_HEURISTIC;
    ec.gamma = 2;
    ec.gamma_max = GMAX;
    sd_model *m;
    sd_engine_stats s;
    sd_status st = sd_validate_model_run(&sc, ec, &m, &s, err);
    if (st != SD_OK)
        return st;
    double it = (double)s.iterations, stat = 0, dof = 0, wstat = 0, wdof = 0;
    st = sd_validate_exact_row(v, "20. heuristic +2/-1, gamma 2 to 6: draft-length moves its rule forbids", 0.0,
                               forbidden_moves(&s, GMAX, 2), 0.0, it, SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_exact_row(v, "20. control: the moves a +1/-1 rule forbids", 0.0, forbidden_moves(&s, GMAX, 1),
                                   0.0, it, SD_VALIDATE_CONTROL, err);
    full_acceptance_chisq(&s, alpha, 0.0, &stat, &dof);
    full_acceptance_chisq(&s, alpha, 1.0, &wstat, &wdof);
    if (st == SD_OK)
        st = sd_validate_chisq_row(v, "20. heuristic: P(all g drafts accepted) = alpha^g, g = 1..6, alpha 0.8 "
                                      "(chi-square)",
                                   stat, dof, it, SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_chisq_row(v, "20. control: P(all g drafts accepted) = alpha^(g + 1)", wstat, wdof, it,
                                   SD_VALIDATE_CONTROL, err);
    sd_engine_stats_free(&s);
    sd_model_free(m);
    return st;
}

/* verify.h -- verification rules, chosen by name from one table.
 *
 * A rule sees one iteration of the seed's Algorithm 1 after drafting: the
 * contexts at positions 1..gamma+1 (ctx[i] holds p_{i+1} and q_{i+1}) and
 * the drafted ranks x_1..x_gamma (x_i in ctx[i-1]'s rank space).  It
 * returns n, the number of drafts accepted, and the rank of the one token it
 * adds from ctx[n]: the resampled token after the first rejection, or the
 * bonus token when all gamma drafts pass.
 *
 *   adjusted  accept x ~ q with probability min(1, p(x)/q(x)); on rejection
 *             resample from norm(max(0, p - q)).  Lossless: the output
 *             follows p exactly.
 *   target    the seed's Case 1: resample from p instead.  Biased
 *             (P(x) = min(p, q)(x) + (1 - beta) p(x)); it exists to show that.
 *   greedy    temperature 0: drafts are q's argmax, accepted while they
 *             equal p's argmax; the added token is p's argmax.
 *   block     block verification (Sun, Ro, Beirami and Suresh, ICLR 2025,
 *             arXiv 2403.10444): P_0 = 1, P_i = min(1, P_{i-1} p_i(X_i)/q_i(X_i));
 *             h_i = Z_i / (Z_i + 1 - P_i) with Z_i = sum max(P_i p_{i+1} - q_{i+1}, 0)
 *             for i < gamma, h_gamma = P_gamma, h_0 = 1; going down from
 *             i = gamma, stop at the first i with a uniform <= h_i: that is
 *             tau; emit X_1..X_tau and one token from p_{gamma+1} (tau = gamma)
 *             or norm(max(P_tau p_{tau+1} - q_{tau+1}, 0)).  Lossless, and never
 *             fewer tokens per iteration than token-wise verification.  Costs
 *             O(gamma V) per iteration (the Z_i); a single position is
 *             token-wise.
 *
 * Accepting uses a uniform u in (0, 1) and the strict test u q(x) < p(x):
 * a token with p(x) = 0 is never accepted, and one with q(x) = 0 is
 * accepted whenever p(x) > 0.
 */
#ifndef SPECDEC_VERIFY_H
#define SPECDEC_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "synth.h"

typedef struct {
    size_t gamma;
    const sd_context *const *ctx; /* gamma + 1 contexts */
    const uint32_t *draft;        /* gamma drafted ranks */
    double *work;                 /* SD_BLOCK_WORK(gamma, vocab) doubles of scratch */
} sd_block;

#define SD_BLOCK_WORK(gamma, vocab) (2 * ((gamma) + 1) + 2 * (vocab) + 2)

typedef struct {
    const char *name;
    const char *summary;
    int greedy; /* drafts are q's argmax rather than draws from q */
    /* One position: 1 to accept draft x of c. */
    int (*accept)(const sd_context *c, uint32_t x, gsl_rng *r);
    /* The token added after a rejection at c. */
    uint32_t (*resample)(const sd_context *c, gsl_rng *r);
    /* The token added when every draft passed (from p_{gamma+1}). */
    uint32_t (*bonus)(const sd_context *c, gsl_rng *r);
    /* The probability that the rule accepts a draft at c: beta (eq. 1), or for
     * greedy rules 1 when q's argmax is p's, else 0. */
    double (*acceptance)(const sd_context *c);
    /* The whole block at once, for rules that are not token-wise; NULL for
     * token-wise rules (accept/resample/bonus in order). */
    size_t (*block)(const sd_block *b, gsl_rng *r, uint32_t *last);
    /* The distribution of the token the rule emits at c, into out[n]. */
    void (*output)(const sd_context *c, size_t n, double *out);
    /* What a lossless rule of this kind must emit at c: p, or for greedy
     * rules the point mass on p's argmax. */
    void (*lossless)(const sd_context *c, size_t n, double *out);
} sd_verifier;

/* The rules, ending with a row of NULLs. */
extern const sd_verifier sd_verifiers[];

/* The rule named name, or NULL. */
const sd_verifier *sd_verify_find(const char *name);
/* "adjusted, target, greedy, block" for messages and help. */
const char *sd_verify_names(void);

/* A drafted rank from c: a draw from q, or q's argmax for greedy rules. */
uint32_t sd_verify_draft(const sd_verifier *v, const sd_context *c, gsl_rng *r);

/* One position with k i.i.d. drafts from q and recursive rejection
 * (SpecInfer): r_1 = p; draft j is accepted with probability
 * min(1, r_j(x)/q(x)); else r_{j+1} = norm(max(r_j - q, 0)); after k
 * rejections the token comes from r_{k+1}.  Lossless.  Returns the emitted
 * rank and sets *accepted.  work: 2 V + 1 doubles; O(V) per rejection. */
uint32_t sd_verify_multi(const sd_context *c, size_t k, gsl_rng *r, double *work, int *accepted);

/* Runs the token-wise rule on one block (Algorithm 1's verification):
 * returns n and stores the added token's rank (in ctx[n]) in *last. */
size_t sd_verify_block(const sd_verifier *v, const sd_block *b, gsl_rng *r, uint32_t *last);


/* The mean over m's contexts of v's acceptance at each (for markov models
 * the two regimes' halves weigh alike, as their stationary shares do). */
double sd_verify_mean_acceptance(const sd_verifier *v, const sd_model *m);

#endif

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
} sd_block;

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
/* "adjusted, target, greedy" for messages and help. */
const char *sd_verify_names(void);

/* A drafted rank from c: a draw from q, or q's argmax for greedy rules. */
uint32_t sd_verify_draft(const sd_verifier *v, const sd_context *c, gsl_rng *r);

/* Runs the token-wise rule on one block (Algorithm 1's verification):
 * returns n and stores the added token's rank (in ctx[n]) in *last. */
size_t sd_verify_block(const sd_verifier *v, const sd_block *b, gsl_rng *r, uint32_t *last);


/* The mean over m's contexts of v's acceptance at each (for markov models
 * the two regimes' halves weigh alike, as their stationary shares do). */
double sd_verify_mean_acceptance(const sd_verifier *v, const sd_model *m);

#endif

/* verify_impl.h -- the private half of verify: the rule table's row type,
 * the block a rule verifies, and the inline draft of the drafting loop.
 * The engine (step.c, engine.c, sample.c) runs rules through it; validate
 * plants a bug through it. */
#ifndef SPECDEC_VERIFY_IMPL_H
#define SPECDEC_VERIFY_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "specdec/verify.h"
#include "random/cdf_impl.h"

typedef struct {
    size_t gamma;
    const sd_context *const *ctx; /* gamma + 1 contexts */
    const uint32_t *draft;        /* gamma drafted ranks */
    double *work;                 /* SD_BLOCK_WORK(gamma, vocab) doubles of scratch */
} sd_block;

#define SD_BLOCK_WORK(gamma, vocab) (2 * ((gamma) + 1) + 2 * (vocab) + 2)

struct sd_verifier {
    const char *name;
    const char *summary;
    int greedy; /* drafts are q's argmax rather than draws from q */
    /* One position: 1 to accept draft x of c. */
    int (*accept)(const sd_context *c, uint32_t x, gsl_rng *r);
    /* The token added after draft x was rejected at c. */
    uint32_t (*resample)(const sd_context *c, uint32_t x, gsl_rng *r);
    /* The token added when every draft passed (from p_{gamma+1}). */
    uint32_t (*bonus)(const sd_context *c, gsl_rng *r);
    /* The probability that the rule accepts a draft at c: beta (eq. 1), or for
     * greedy rules 1 when q's argmax is p's, else 0. */
    double (*acceptance)(const sd_context *c);
    /* The same acceptance of two distributions (verify.h); NULL for greedy. */
    sd_dist_acceptance_fn dist_acceptance;
    /* The whole block at once, for rules that are not token-wise; NULL for
     * token-wise rules (accept/resample/bonus in order). */
    size_t (*block)(const sd_block *b, gsl_rng *r, uint32_t *last);
    /* The distribution of the token the rule emits at c, into out[n]. */
    void (*output)(const sd_context *c, size_t n, double *out);
    /* What a lossless rule of this kind must emit at c: p, or for greedy
     * rules the point mass on p's argmax. */
    void (*lossless)(const sd_context *c, size_t n, double *out);
};

/* The rules, ending with a row of NULLs (sd_verify_at walks them). */
extern const sd_verifier sd_verify_rules[];

/* sd_verify_draft (verify.h), inline for the engine's drafting loop. */
static inline uint32_t sd_verify_draft_inline(const sd_verifier *v, const sd_context *c, gsl_rng *r)
{
    return v->greedy ? c->argmax_q : (uint32_t)sd_cdf_draw(&c->q_cdf, r);
}


/* One position with k i.i.d. drafts from q and recursive rejection
 * (SpecInfer): r_1 = p; draft j is accepted with probability
 * min(1, r_j(x)/q(x)); else r_{j+1} = norm(max(r_j - q, 0)); after k
 * rejections the token comes from r_{k+1}.  Lossless.  Returns the emitted
 * rank and sets *accepted.  work: 2 V + 1 doubles; O(V) per rejection. */
uint32_t sd_verify_multi(const sd_context *c, size_t k, gsl_rng *r, double *work, int *accepted);

/* Runs the token-wise rule on one block (Algorithm 1's verification):
 * returns n and stores the added token's rank (in ctx[n]) in *last. */
size_t sd_verify_block(const sd_verifier *v, const sd_block *b, gsl_rng *r, uint32_t *last);

#endif

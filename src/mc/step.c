/* step.c -- Algorithm 1, SpeculativeDecodingStep (see step.h).
 *
 * Under a token-wise rule each draft is tested as it is made and drafting
 * stops at the first rejection (the later drafts change no output); a
 * threshold or a block rule drafts the whole chain first.
 */
#include "specdec/step.h"
#include "verify_impl.h"

#include <stdlib.h>

#include "model/model_impl.h"

sd_status sd_step_init(sd_step *w, size_t gamma, size_t vocab, sd_error *err)
{
    w->gamma = gamma;
    w->ctx = malloc((gamma + 1) * sizeof *w->ctx);
    w->draft = malloc((gamma + 1) * sizeof *w->draft);
    w->states = malloc((gamma + 1) * sizeof *w->states);
    w->work = malloc(SD_BLOCK_WORK(gamma, vocab) * sizeof *w->work);
    w->threshold = 0.0;
    w->drafted = 0;
    w->n = 0;
    w->last = 0;
    if (w->ctx == NULL || w->draft == NULL || w->states == NULL || w->work == NULL) {
        sd_step_free(w);
        return sd_status_fail(err, SD_ENOMEM, "out of memory for a %zu-draft step", gamma);
    }
    return SD_OK;
}

void sd_step_free(sd_step *w)
{
    free(w->ctx);
    free(w->draft);
    free(w->states);
    free(w->work);
    w->work = NULL;
    w->ctx = NULL;
    w->draft = NULL;
    w->states = NULL;
}

/* sd_step_run under a token-wise rule with no threshold: each draft is
 * tested as it is made, and drafting stops at the first rejection -- the
 * drafts after it change no output (Algorithm 1 discards them).  One running
 * prefix state; states[n] receives it. */
static size_t step_tokenwise(const sd_model *m, const sd_verifier *v, sd_step *w, gsl_rng *r)
{
    size_t g = w->gamma;
    sd_prefix s = w->states[0];
    const sd_context *c = w->ctx[0];
    w->drafted = g;
    for (size_t i = 0; i < g; i++) {
        uint32_t x = w->draft[i] = sd_verify_draft_inline(v, c, r);
        if (!v->accept(c, x, r)) {
            w->n = i;
            w->last = v->resample(c, x, r);
            w->states[i] = s;
            return i + 1;
        }
        sd_model_advance_inline(m, &s, c->token[x]);
        c = w->ctx[i + 1] = sd_model_lookup_inline(m, &s);
    }
    w->n = g; /* every draft accepted: the bonus token from p_{gamma+1} */
    w->last = v->bonus(c, r);
    w->states[g] = s;
    return g + 1;
}

size_t sd_step_run(const sd_model *m, const sd_verifier *v, sd_step *w, const sd_prefix *prefix, gsl_rng *r)
{
    size_t g = w->gamma;
    w->states[0] = *prefix;
    w->ctx[0] = sd_model_lookup_inline(m, &w->states[0]);
    /* a threshold must see every draft's context to know how many drafts were made,
     * and a block rule reads all of them: the whole chain is drafted first */
    if (v->block == NULL && !(w->threshold > 0.0))
        return step_tokenwise(m, v, w, r);
    for (size_t i = 0; i < g; i++) { /* drafting: gamma calls of M_q */
        if (w->threshold > 0.0 && w->ctx[i]->q[w->ctx[i]->argmax_q] < w->threshold) {
            g = i; /* the draft is unsure here: stop drafting */
            break;
        }
        w->draft[i] = sd_verify_draft_inline(v, w->ctx[i], r);
        w->states[i + 1] = w->states[i];
        sd_model_advance_inline(m, &w->states[i + 1], w->ctx[i]->token[w->draft[i]]);
        w->ctx[i + 1] = sd_model_lookup_inline(m, &w->states[i + 1]);
    }
    /* one call of M_p at gamma + 1 positions: ctx[0..gamma] hold p_1..p_{gamma+1} */
    w->drafted = g;
    sd_block b = { g, w->ctx, w->draft, w->work };
    w->n = sd_verify_block(v, &b, r, &w->last);
    return w->n + 1;
}

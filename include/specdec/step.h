/* step.h -- one iteration of the seed's Algorithm 1, SpeculativeDecodingStep.
 *
 * gamma drafts from M_q autoregressively, the target's p at all gamma + 1
 * positions from one call of M_p, then the verification rule (verify.h):
 * the step the Monte Carlo engine (engine.h) repeats, on any model
 * (model.h).  Cost: O(gamma) lookups and draws, plus O(gamma V) for a
 * block rule.
 */
#ifndef SPECDEC_STEP_H
#define SPECDEC_STEP_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "specdec/model.h"
#include "specdec/status.h"
#include "specdec/verify.h"

/* Workspace and result of one step with gamma drafts. */
typedef struct {
    size_t gamma;           /* drafts to make (the arrays hold at least gamma + 1) */
    double threshold;       /* > 0: stop drafting where the draft's top probability is below it */
    size_t drafted;         /* drafts made by the last run (gamma, or fewer under a threshold) */
    const sd_context **ctx; /* [gamma + 1]: the contexts at positions 1..gamma+1 */
    uint32_t *draft;        /* [gamma]: drafted ranks */
    sd_prefix *states;      /* [gamma + 1]: prefix states after 0..gamma drafts */
    double *work;           /* SD_BLOCK_WORK(gamma, vocab) doubles of scratch for block rules */
    size_t n;               /* drafts accepted */
    uint32_t last;          /* rank (in ctx[n]) of the resampled or bonus token */
} sd_step;

/* Sets up *w for up to gamma drafts over vocab tokens (at least the
 * model's vocabulary); the caller releases its arrays with sd_step_free.
 * SD_ENOMEM, the only failure; the arrays are then NULL. */
SD_API sd_status sd_step_init(sd_step *w, size_t gamma, size_t vocab, sd_error *err);
/* Frees w's arrays and sets them to NULL. */
SD_API void sd_step_free(sd_step *w);

/* One iteration from prefix: gamma drafts from M_q autoregressively (fewer
 * under a threshold: `drafted`), the target's p at all drafted + 1
 * positions, then rule v.  The emitted tokens are ctx[i]->token[draft[i]]
 * for i < n, then ctx[n]->token[last]; returns N = n + 1.  Under a
 * token-wise rule (not block) with no threshold, each draft is tested as it
 * is made and the drafts after the first rejection are not made: they
 * change no output, and `drafted` still counts gamma, as the system being
 * modelled drafts them; draft[i] and ctx[i] are then set for i <= n only,
 * and states[] at 0 and n only.  w comes from
 * sd_step_init with gamma and vocab at least those used here (w->gamma may
 * be lowered between runs); the contexts belong to m.  Never fails. */
SD_API size_t sd_step_run(const sd_model *m, const sd_verifier *v, sd_step *w, const sd_prefix *prefix, gsl_rng *r);

#endif

/* synth.h -- synthetic target and draft models (model.h).
 *
 * A prefix is summarised by its last k tokens (k = history), hashed with
 * the seed onto one of a bank of contexts built once; generation then
 * costs O(1) per position however long it runs.
 *
 * Targets over a vocabulary of V tokens:
 *   zipf       p(rank r) ~ (r + 1)^-s, tokens shuffled per context
 *   dirichlet  p ~ Dirichlet(kappa, ..., kappa)            (gsl_ran_dirichlet)
 *   logits     p = softmax(z / T), z_i ~ N(0, 1)           (gsl_ran_gaussian)
 * Drafts:
 *   calibrated    q = (1 - lambda) p + lambda r, r an independent draw of the
 *                 same family whose token ranking agrees with p's up to a
 *                 shuffle within windows of 256 ranks (a draft ranks tokens
 *                 roughly as its target does); then
 *                 sum min(p, q) = 1 - lambda TV(p, r), so
 *                 lambda = (1 - a) / TV(p, r) hits a requested acceptance a
 *                 exactly.  When a < 1 - TV(p, r), r becomes the point mass
 *                 on p's least likely token (TV = 1 - p_min); a below p_min
 *                 cannot be reached.
 *   uncalibrated  q = softmax(log p + sigma eps), eps_i ~ N(0, 1); its
 *                 acceptance is only measured.
 * Per-context acceptance a_c (calibrated drafts):
 *   constant  a_c = alpha
 *   beta      a_c ~ Beta(alpha nu, (1 - alpha) nu)          (gsl_ran_beta)
 *   markov    two regimes, easy (alpha_easy) and hard (alpha_hard); each
 *             position stays in its regime with probability `stay`, decided
 *             by a hash of the prefix, so acceptance is correlated along a
 *             sequence; half the bank serves each regime.
 */
#ifndef SPECDEC_SYNTH_H
#define SPECDEC_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/model.h"
#include "specdec/status.h"

typedef enum { SD_REGIME_CONSTANT, SD_REGIME_BETA, SD_REGIME_MARKOV } sd_regime;

typedef struct {
    sd_family family;     /* not SD_FAMILY_FILE */
    size_t vocab;         /* V >= 1 */
    double zipf_s;        /* zipf exponent s > 0 */
    double kappa;         /* dirichlet concentration > 0 */
    double temperature;   /* logits temperature > 0 */
    int calibrated;       /* 1: q hits alpha; 0: noisy logits */
    double alpha;         /* calibrated: mean acceptance in [0, 1] */
    double noise;         /* uncalibrated: sigma >= 0 */
    sd_regime regime;
    double concentration; /* beta regime: nu > 0 */
    double alpha_easy, alpha_hard, stay; /* markov regime */
    size_t contexts;      /* bank size; 0 chooses sd_synth_default_contexts(V) */
    size_t history;       /* k in [0, SD_HISTORY_MAX] */
    uint64_t seed;
    unsigned threads;     /* for building the bank */
} sd_synth_config;

/* The bank size used when the config leaves it 0: about 2^21 token slots,
 * between 2 and 64 contexts (vocab 0 counts as 1).  Never fails. */
SD_API size_t sd_synth_default_contexts(size_t vocab);

/* The defaults: zipf (s 1.5), V = 1000, calibrated draft at alpha 0.8,
 * constant regime (beta: concentration 20; markov: 0.95 / 0.3, stay 0.9),
 * kappa 0.5, temperature 1, history 2, the default bank size, seed
 * SD_RNG_DEFAULT_SEED (rng.h), one thread.  Change fields by name.  Never fails. */
SD_API sd_synth_config sd_synth_defaults(void);

/* Builds a synthetic model into *out, which the caller frees with
 * sd_model_free; the bank is the same for any cfg->threads (0 counts as 1).
 * SD_EINVAL, naming the field, when vocab is outside [1, SD_VOCAB_MAX],
 * family is SD_FAMILY_FILE, history exceeds SD_HISTORY_MAX, the markov
 * regime has fewer than 2 contexts, a non-constant regime has an
 * uncalibrated draft, or a context's acceptance lies below the least its
 * target reaches (beta regime: naming concentration, when the Beta law has
 * no mass there); SD_ENOMEM.  The other numeric fields are not checked:
 * keep them in the domains above.  On failure *out is untouched and
 * nothing is held. */
SD_API sd_status sd_synth_model(const sd_synth_config *cfg, sd_model **out, sd_error *err);

/* The bytes sd_synth_model(cfg) will hold and use while building (the bank
 * and the building threads' scratch), before building it: for a caller's
 * memory limit.  Saturates at SIZE_MAX; never fails. */
SD_API size_t sd_synth_bytes(const sd_synth_config *cfg);

/* The names of the synthetic families (those sd_synth_model builds:
 * "zipf", "dirichlet", "logits", the same as sd_model_family_name's) and of
 * the regimes ("constant", "beta", "markov"): tables indexed by the enums
 * and ending with NULL, the one source of the names (static).
 * sd_synth_regime_name: r must be an enum value (not checked). */
SD_API const char *const *sd_synth_family_names(void);
SD_API const char *const *sd_synth_regime_names(void);
SD_API const char *sd_synth_regime_name(sd_regime r);

#endif

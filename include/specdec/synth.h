/* synth.h -- synthetic target and draft models, and the context bank.
 *
 * A model maps a prefix to a context: the target distribution p and the
 * draft distribution q for the next token.  This is the callback of the
 * seed's Algorithm 1 (M_p(prefix), M_q(prefix)); both models read the same
 * prefix, so one lookup serves both.  A prefix is summarised by its last k
 * tokens (k = history), hashed with the seed onto one of a bank of contexts
 * built once; generation then costs O(1) per position however long it runs.
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
 *
 * Each context stores its distributions in rank space: rank 0 is p's most
 * likely token and token[rank] maps back to the vocabulary.  The samplers
 * then touch the head of their tables most of the time, which keeps the
 * per-token cost nearly flat in V.
 */
#ifndef SPECDEC_SYNTH_H
#define SPECDEC_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/cdf.h"
#include "specdec/dist.h"
#include "specdec/status.h"

#define SD_HISTORY_MAX 8 /* the most prefix tokens a context depends on (a power of two) */

typedef enum { SD_FAMILY_ZIPF, SD_FAMILY_DIRICHLET, SD_FAMILY_LOGITS, SD_FAMILY_FILE, SD_FAMILY_NGRAM } sd_family;
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

/* One context: p and q for a prefix, in rank space. */
typedef struct {
    const double *p, *q;     /* n probabilities each, p non-increasing */
    sd_cdf p_cdf, q_cdf;     /* samplers of p and q */
    sd_cdf residual_cdf;     /* norm(max(0, p - q)); p itself when p = q */
    const uint32_t *token;   /* rank -> token id */
    double beta;             /* sum min(p, q), eq. (1) */
    double target_alpha;     /* the acceptance asked of this context (NaN if uncalibrated) */
    uint32_t argmax_q;       /* rank of q's most likely token (p's is rank 0) */
} sd_context;

typedef struct sd_model sd_model;

/* The state of a prefix: its last tokens and regime.  Start, then advance
 * token by token; equal prefixes give equal states. */
typedef struct {
    uint32_t hist[SD_HISTORY_MAX]; /* a ring of the last tokens: token t of the prefix at hist[t % SD_HISTORY_MAX] */
    uint32_t len;                  /* tokens so far (after 2^32 - 1 it goes on from 8: a full ring) */
    uint32_t regime;               /* 0 easy, 1 hard (markov only) */
} sd_prefix;

/* The bank size used when the config leaves it 0: about 2^21 token slots,
 * between 2 and 64 contexts (vocab 0 counts as 1).  Never fails. */
SD_API size_t sd_synth_default_contexts(size_t vocab);

/* The defaults: zipf (s 1.5), V = 1000, calibrated draft at alpha 0.8,
 * constant regime (beta: concentration 20; markov: 0.95 / 0.3, stay 0.9),
 * kappa 0.5, temperature 1, history 2, the default bank size, seed
 * 20261129, one thread.  Change fields by name.  Never fails. */
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
SD_API sd_status sd_model_synth(const sd_synth_config *cfg, sd_model **out, sd_error *err);

/* A context-free model into *out, which the caller frees with
 * sd_model_free: every prefix gets p and q (copied into p's rank space).
 * SD_EINVAL, naming p or q, when either fails sd_dist_check over n tokens;
 * SD_ENOMEM.  On failure *out is untouched and nothing is held. */
SD_API sd_status sd_model_pair(const double *p, const double *q, size_t n, sd_model **out, sd_error *err);

/* A model whose contexts are the rows of two matrices (issue 13: .npy
 * pairs): row i of p (target) and of q (draft), each of n tokens, row
 * after row, are context i, copied into rank space.  A prefix selects a
 * row by hashing its last `history` tokens with seed, as the synthetic
 * bank does; with one row every prefix gets it (sd_model_pair).  The
 * family is SD_FAMILY_FILE.  SD_EINVAL, naming "p row i" or "q row i"
 * (p or q for one row), when a row fails sd_dist_check, or naming rows or
 * history outside rows >= 1, [0, SD_HISTORY_MAX]; SD_ENOMEM.  On failure
 * *out is untouched and nothing is held. */
SD_API sd_status sd_model_rows(const double *p, const double *q, size_t rows, size_t n, size_t history,
                               uint64_t seed, sd_model **out, sd_error *err);

/* Frees m and its bank; m may be NULL. */
SD_API void sd_model_free(sd_model *m);

/* Accessors; they never fail.  sd_model_bytes is the memory the bank holds,
 * approximately, in bytes; sd_model_build_seconds the wall time that
 * sd_model_synth took, in seconds (0 for sd_model_pair, whose history is 0
 * and family SD_FAMILY_FILE).  sd_model_context: i < sd_model_contexts(m),
 * not checked; the context belongs to m. */
SD_API size_t sd_model_vocab(const sd_model *m);
SD_API size_t sd_model_contexts(const sd_model *m);
SD_API sd_family sd_model_family(const sd_model *m);
SD_API size_t sd_model_history(const sd_model *m);
SD_API size_t sd_model_bytes(const sd_model *m);

/* The bytes sd_model_synth(cfg) will hold and use while building (the bank
 * and the building threads' scratch), before building it: for a caller's
 * memory limit.  Saturates at SIZE_MAX; never fails. */
SD_API size_t sd_synth_bytes(const sd_synth_config *cfg);

/* More accessors of m (see above). */
SD_API double sd_model_build_seconds(const sd_model *m);
SD_API const sd_context *sd_model_context(const sd_model *m, size_t i);

/* Prefix states; these never fail.  sd_model_start sets *s to the empty
 * prefix; sd_model_advance appends token (a token id, not a rank). */
SD_API void sd_model_start(const sd_model *m, sd_prefix *s);
SD_API void sd_model_advance(const sd_model *m, sd_prefix *s, uint32_t token);
/* The context of the prefix in s: the callback M(prefix).  Never NULL;
 * it belongs to m. */
SD_API const sd_context *sd_model_lookup(const sd_model *m, const sd_prefix *s);

/* The names of the families and regimes ("zipf", ...; "constant", ...),
 * static; f and r must be enum values (not checked). */
SD_API const char *sd_family_name(sd_family f);
SD_API const char *sd_regime_name(sd_regime r);
/* The whole tables, indexed by the enums and ending with NULL: the one
 * source of the names.  The family table lists the synthetic families
 * (sd_model_synth); SD_FAMILY_FILE ("file") is made by sd_model_pair and
 * sd_model_rows, SD_FAMILY_NGRAM ("ngram") by sd_model_ngram (ngram.h). */
SD_API const char *const *sd_family_names(void);
SD_API const char *const *sd_regime_names(void);

#endif

/* model.h -- models: the callbacks M_p(prefix) and M_q(prefix) of the
 * seed's Algorithm 1.
 *
 * A model maps a prefix to a context: the target distribution p and the
 * draft distribution q for the next token.  Both models read the same
 * prefix, so one lookup serves both.  A model's contexts are a bank built
 * once; a prefix is summarised by its last k tokens (k = the model's
 * history), and looking it up costs O(k) however long a sequence runs.
 * Every model here is made by one of
 *   synth.h   synthetic targets and drafts (zipf, dirichlet, logits families)
 *   ngram.h   a byte-level Kneser-Ney pair trained on a corpus
 *   below     given distributions: one pair (sd_model_pair) or the rows of
 *             two matrices (sd_model_rows), the "file" family
 * and released with sd_model_free.
 *
 * Each context stores its distributions in rank space: rank 0 is p's most
 * likely token and token[rank] maps back to the vocabulary.  The samplers
 * then touch the head of their tables most of the time, which keeps the
 * per-token cost nearly flat in V.
 */
#ifndef SPECDEC_MODEL_H
#define SPECDEC_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/cdf.h"
#include "specdec/status.h"

#define SD_HISTORY_MAX 8 /* the most prefix tokens a context depends on (a power of two) */

/* What made a model: a synthetic family (synth.h), given distributions, or
 * a corpus (ngram.h). */
typedef enum { SD_FAMILY_ZIPF, SD_FAMILY_DIRICHLET, SD_FAMILY_LOGITS, SD_FAMILY_FILE, SD_FAMILY_NGRAM } sd_family;

/* One context: p and q for a prefix, in rank space. */
typedef struct {
    const double *p, *q;     /* n probabilities each, p non-increasing */
    sd_cdf p_cdf, q_cdf;     /* samplers of p and q */
    sd_cdf residual_cdf;     /* norm(max(0, p - q)); p itself when p = q */
    const uint32_t *token;   /* rank -> token id */
    double beta;             /* sum min(p, q), eq. (1) */
    double target_alpha;     /* the acceptance asked of this context (NaN if not calibrated) */
    uint32_t argmax_q;       /* rank of q's most likely token (p's is rank 0) */
} sd_context;

typedef struct sd_model sd_model;

/* The state of a prefix: its last tokens and regime.  Start, then advance
 * token by token; equal prefixes give equal states. */
typedef struct {
    uint32_t hist[SD_HISTORY_MAX]; /* a ring of the last tokens: token t of the prefix at hist[t % SD_HISTORY_MAX] */
    uint32_t len;                  /* tokens so far (after 2^32 - 1 it goes on from 8: a full ring) */
    uint32_t regime;               /* 0 easy, 1 hard (the markov regime of synth.h only) */
} sd_prefix;

/* The family's name: "zipf", "dirichlet", "logits", "file", "ngram"
 * (static; f must be an enum value, not checked). */
SD_API const char *sd_model_family_name(sd_family f);

/* A model whose contexts are the rows of two matrices: row i of p (target)
 * and of q (draft), each of vocab tokens, row after row, are context i,
 * copied into rank space.  A prefix selects a row by hashing its last
 * `history` tokens with seed; with one row every prefix gets it. */
typedef struct {
    const double *p, *q; /* rows * vocab probabilities each */
    size_t rows, vocab;
    size_t history;      /* [0, SD_HISTORY_MAX] */
    uint64_t seed;
} sd_model_rows_request;

/* Builds rq's model into *out, which the caller frees with sd_model_free;
 * its family is SD_FAMILY_FILE.  SD_EINVAL, naming "p row i" or "q row i"
 * (p or q for one row), when a row fails sd_dist_check (dist.h), or naming
 * rows or history outside rows >= 1, [0, SD_HISTORY_MAX]; SD_ENOMEM.  On
 * failure *out is untouched and nothing is held. */
SD_API sd_status sd_model_rows(const sd_model_rows_request *rq, sd_model **out, sd_error *err);

/* A context-free model: every prefix gets p and q over n tokens (one row,
 * history 0, sd_model_rows).  SD_EINVAL, naming p or q, when either fails
 * sd_dist_check over n tokens; SD_ENOMEM.  On failure *out is untouched. */
SD_API sd_status sd_model_pair(const double *p, const double *q, size_t n, sd_model **out, sd_error *err);

/* Frees m and its bank; m may be NULL. */
SD_API void sd_model_free(sd_model *m);

/* Accessors; they never fail.  sd_model_bytes is the memory the bank holds,
 * approximately, in bytes; sd_model_build_seconds the wall time building it
 * took, in seconds (0 for sd_model_rows and sd_model_pair).
 * sd_model_context: i < sd_model_contexts(m), not checked; the context
 * belongs to m. */
SD_API size_t sd_model_vocab(const sd_model *m);
SD_API size_t sd_model_contexts(const sd_model *m);
SD_API sd_family sd_model_family(const sd_model *m);
SD_API size_t sd_model_history(const sd_model *m);
SD_API size_t sd_model_bytes(const sd_model *m);
SD_API double sd_model_build_seconds(const sd_model *m);
SD_API const sd_context *sd_model_context(const sd_model *m, size_t i);

/* Prefix states; these never fail.  sd_model_start sets *s to the empty
 * prefix; sd_model_advance appends token (a token id, not a rank). */
SD_API void sd_model_start(const sd_model *m, sd_prefix *s);
SD_API void sd_model_advance(const sd_model *m, sd_prefix *s, uint32_t token);
/* The context of the prefix in s: the callback M(prefix).  Never NULL;
 * it belongs to m. */
SD_API const sd_context *sd_model_lookup(const sd_model *m, const sd_prefix *s);

#endif

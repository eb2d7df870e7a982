/* ngram.h -- a target and draft model pair on real text: byte-level
 * n-gram models with interpolated Kneser-Ney smoothing.
 *
 * Both models are trained on one corpus, read as bytes (no tokenizer):
 * the vocabulary is the set of distinct bytes of the corpus (token ids in
 * byte order), V <= 256.  The corpus is read as a cycle -- its last byte
 * is followed by its first -- so every byte has a predecessor and a
 * successor; then a history occurs in the corpus at every level of the
 * model or at none, and the contexts are exactly the corpus's distinct
 * substrings of lengths 0 .. order - 1.
 *
 * Smoothing: interpolated Kneser-Ney (Chen and Goodman 1998, eq. 26/27,
 * one discount per order).  With c the counts of the highest order (raw
 * counts) or the continuation counts N1+(. h w) of the lower orders, and
 * h' = h without its oldest byte:
 *     P(w | h) = max(c(h w) - D, 0) / c(h .) + D N1+(h .) / c(h .) P(w | h'),
 * P(w | empty history, one level below the unigrams) = 1 / V, and
 * D = n1 / (n1 + 2 n2) from the level's counts of count 1 and 2 (0.5 when
 * that is not in (0, 1)).  Every level gives the lower one a positive
 * weight and the bottom is uniform, so no probability is 0.  A history the
 * corpus does not hold has c(h .) = 0 and its distribution is the lower
 * order's (the longest suffix the corpus holds).  The target has order N,
 * the draft order M <= N; at the lower levels both use the same
 * continuation counts, so q = p at histories shorter than M - 1.
 *
 * Generation starts from a real prefix: the engine primes each sequence
 * with the N - 1 corpus bytes at a uniform position, then decodes
 * autoregressively; the context at each position is the longest suffix of
 * the text so far that the corpus holds.
 */
#ifndef SPECDEC_NGRAM_H
#define SPECDEC_NGRAM_H

#include <stddef.h>

#include "specdec/model.h"
#include "specdec/sampling.h"
#include "specdec/status.h"

#define SD_NGRAM_ORDER_MAX 8 /* an order-8 model looks at 7 bytes (SD_HISTORY_MAX = 8) */
#define SD_NGRAM_CORPUS_MAX ((size_t)1 << 26) /* 64 MiB */

/* The pair's orders and the sampling settings (sampling.h) applied to
 * every context's p (target) and q (draft), as engines apply them; NULL:
 * the distributions as trained. */
typedef struct {
    size_t order;              /* the target's, N in [1, SD_NGRAM_ORDER_MAX] */
    size_t draft_order;        /* the draft's, M in [1, N] */
    const sd_sampling *target; /* NULL allowed */
    const sd_sampling *draft;  /* NULL allowed */
} sd_ngram_config;

/* Orders 5 and 2, no sampling settings.  Never fails. */
SD_API sd_ngram_config sd_ngram_defaults(void);

/* Builds the pair from text[0..len-1] into *out (free with sd_model_free):
 * len in [2, SD_NGRAM_CORPUS_MAX]; name is the corpus, in messages.  Its
 * contexts are the bank (sd_model_context); its family SD_FAMILY_NGRAM;
 * its history order - 1; sd_model_bytes and sd_model_build_seconds say
 * what it holds and took.  SD_EINVAL names order, draft_order or len, or a
 * setting (sd_sampling_apply); SD_ENOMEM.  On failure *out is untouched. */
SD_API sd_status sd_ngram_model(const unsigned char *text, size_t len, const char *name, const sd_ngram_config *cfg,
                                sd_model **out, sd_error *err);

/* Reads the file at path whole and builds the pair from it.  SD_EINVAL
 * also when the file cannot be read (naming it) or is longer than
 * SD_NGRAM_CORPUS_MAX. */
SD_API sd_status sd_ngram_load(const char *path, const sd_ngram_config *cfg, sd_model **out, sd_error *err);

/* The byte of token id t of an n-gram model m (t < sd_model_vocab(m)). */
SD_API unsigned char sd_ngram_byte(const sd_model *m, uint32_t t);

/* The pair as logits matrices (a real matrix pair for .npy input): row i holds log p and log q, in token space, at the context the
 * model uses after the corpus's bytes before position floor(i L / rows)
 * (the order - 1 of them, cyclically), i = 0..rows-1.  p and q are the
 * caller's, rows * V doubles each (V = sd_model_vocab(m)); m must come
 * from sd_ngram_model and rows >= 1 (not checked).  Never fails. */
SD_API void sd_ngram_logits(const sd_model *m, size_t rows, double *p, double *q);

/* The default corpus of the n-gram examples and figure. */
#define SD_NGRAM_DEFAULT_CORPUS "/usr/share/common-licenses/GPL-3"

#endif

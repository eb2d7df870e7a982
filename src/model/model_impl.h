/* model_impl.h -- the private half of model: struct sd_model, its ops
 * table, the inline prefix lookup the engine calls at every position, and
 * what the families share to build their contexts.
 *
 * A model is a bank of contexts and, for the families that need more, an
 * ops table with the family's own lookup, priming and tables (impl).  The
 * hashed bank -- synthetic models and matrix rows -- is the default: ops
 * NULL, and its lookup is the inline hash below, so that it pays nothing
 * for the table.  The base knows no family: a family that is not a hashed
 * bank (ngram.c) brings its ops.
 */
#ifndef SPECDEC_MODEL_IMPL_H
#define SPECDEC_MODEL_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "specdec/model.h"
#include "common/util.h"

typedef struct {
    /* The context of prefix s (never NULL). */
    const sd_context *(*lookup)(const sd_model *m, const sd_prefix *s);
    /* Moves a fresh prefix to a real one (the family's text); NULL: none. */
    void (*prime)(const sd_model *m, sd_prefix *s, gsl_rng *r);
    /* Releases impl (NULL allowed). */
    void (*free)(void *impl);
} sd_model_ops;

struct sd_model {
    size_t vocab, ncontexts, history;
    sd_family family;
    int markov;         /* 1: prefixes switch between two halves of the bank (synth.h's markov regime) */
    double stay;        /* markov: the probability a position keeps its regime */
    uint64_t ctx_salt, regime_salt;
    sd_context *ctx;    /* ncontexts */
    size_t bytes;
    double build_seconds;
    const sd_model_ops *ops; /* NULL: the hashed bank */
    void *impl;              /* the family's tables, released by ops->free */
};

/* The hash of the last min(len, history) tokens of s, oldest first, with a
 * salt: each token is xored in and the value multiplied by 2^64 / phi (odd:
 * a bijection), so that the high bits, which choose the context, depend on
 * every bit of every token (Fibonacci hashing, Knuth, TAOCP vol. 3, 6.4). */
static inline uint64_t sd_model_history_hash(const sd_model *m, const sd_prefix *s, uint64_t salt)
{
    size_t have = s->len < m->history ? s->len : m->history;
    uint64_t h = salt ^ have;
    for (uint32_t i = s->len - (uint32_t)have; i != s->len; i++) /* the ring's slots, oldest first */
        h = (h ^ s->hist[i % SD_HISTORY_MAX]) * 0x9e3779b97f4a7c15u;
    return h;
}

/* sd_model_advance, inline: the ring takes the token; in the markov regime
 * the position then keeps its regime with probability stay, decided by a
 * hash of the prefix. */
static inline void sd_model_advance_inline(const sd_model *m, sd_prefix *s, uint32_t token)
{
    s->hist[s->len % SD_HISTORY_MAX] = token; /* a ring; SD_HISTORY_MAX is a power of two: no division */
    s->len = s->len + 1 != 0 ? s->len + 1 : SD_HISTORY_MAX; /* past 2^32 - 1: 8, the same ring slot as 2^32 */
    if (m->markov) {
        uint64_t h = sd_util_mix64(sd_model_history_hash(m, s, m->regime_salt) ^ s->len);
        if ((double)(h >> 11) * 0x1p-53 >= m->stay)
            s->regime ^= 1u;
    }
}

/* sd_model_lookup, inline: the family's lookup, else the hashed bank (one
 * context: it; markov: the regime's half). */
static inline const sd_context *sd_model_lookup_inline(const sd_model *m, const sd_prefix *s)
{
    if (m->ops != NULL)
        return m->ops->lookup(m, s);
    if (m->ncontexts == 1)
        return &m->ctx[0];
    uint64_t h = sd_model_history_hash(m, s, m->ctx_salt);
    if (m->markov) {
        size_t half = m->ncontexts / 2;
        return &m->ctx[(s->regime ? half : 0) + (size_t)(((h >> 32) * half) >> 32)];
    }
    return &m->ctx[(size_t)(((h >> 32) * m->ncontexts) >> 32)];
}

/* Moves a fresh prefix to a real one where the model has text (its ops'
 * prime: n-gram models take order - 1 corpus tokens from a uniform
 * position, one uniform of r); nothing, and no draw, for the others. */
void sd_model_prime(const sd_model *m, sd_prefix *s, gsl_rng *r);

/* A zeroed model of ncontexts contexts over vocab tokens, the hashed bank
 * (salted by seed) unless the family sets ops.  SD_ENOMEM naming what. */
sd_status sd_model_alloc(size_t vocab, size_t ncontexts, size_t history, sd_family family, uint64_t seed,
                         sd_model **out, sd_error *err);

/* The bytes a bank of nctx contexts over n tokens holds: the model, each
 * context, p, q and three cumulative tables of n doubles, the rank map
 * (the guide tables are not counted). */
size_t sd_model_bank_bytes(size_t nctx, size_t n);

/* Sorts w[0..v-1] (token space) into rank space: p[rank] (non-increasing)
 * and token[rank]; idx (v) is scratch.  GSL's gsl_sort_index. */
void sd_model_rank_space(const double *w, size_t v, size_t *idx, double *p, uint32_t *token);

/* Fills c's samplers, beta and argmax_q from its p and q in rank space
 * (v tokens), taking ownership of p, q and token; scratch holds v doubles.
 * SD_EINVAL or SD_ENOMEM from the samplers; c then holds what it took
 * (sd_model_free releases it). */
sd_status sd_model_context_finish(sd_context *c, double *p, double *q, uint32_t *token, size_t v, double *scratch,
                                  sd_error *err);

/* Fills context c from p and q over n tokens in token space (copied into
 * p's rank space; neither is kept); target_alpha NaN.  idx (n) and w (n)
 * are scratch.  SD_ENOMEM; c then holds what was allocated. */
sd_status sd_model_context_init(sd_context *c, const double *p, const double *q, size_t n, size_t *idx, double *w,
                                sd_error *err);

#endif

/* sample.h -- speculative sampling at one position, many times: the seed's
 * four-token example as a histogram of what the rule emits.
 */
#ifndef SPECDEC_SAMPLE_H
#define SPECDEC_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/engine.h"
#include "specdec/engine_stats.h"
#include "specdec/model.h"
#include "specdec/status.h"
#include "specdec/verify.h"

/* Speculative sampling at one position of a context-free model (the seed's
 * four-token example): `draws` times, x ~ q is accepted with probability
 * min(1, p(x)/q(x)) or replaced by the rule's resample -- or, with drafts
 * k > 1, recursive rejection over k drafts (adjusted only).  The draws come
 * in blocks of SD_SAMPLE_BLOCK, block b from random stream (seed, b), so up
 * to SD_SAMPLE_BLOCK draws use stream (seed, 0) alone; shard i of n draws
 * the blocks b with b mod n = i - 1 (engine_stats.h: shards), and records
 * its counts (by rank, as out_counts of one context) through
 * io->record; io->replay supplies them instead. */
#define SD_SAMPLE_BLOCK 1048576u
typedef struct {
    const sd_model *model;       /* context 0 is used; built by sd_model_pair */
    const sd_verifier *verifier; /* token-wise and random: adjusted, target, deterministic-draft, exact-match */
    size_t drafts;               /* k in [1, SD_DRAFTS_MAX] (engine.h) */
    uint64_t draws;              /* >= 1 */
    uint64_t seed;
    uint32_t shard, nshards;     /* as in sd_engine_config */
    const sd_engine_io *io;      /* as in sd_engine_config */
} sd_sample_config;

/* Fills counts[0..V-1] with how often each token id was emitted and
 * expect[0..V-1] with the probability the rule gives it (verify.h), both
 * indexed by token id (not rank), V = sd_model_vocab(model); both are the
 * caller's.  O(V) set-up, O(log V) per draw.  model must be set (not
 * checked).  SD_EINVAL names the field out of domain (verifier, drafts,
 * draws); SD_ENOMEM.  On failure counts and expect are untouched. */
SD_API sd_status sd_sample_run(const sd_sample_config *cfg, uint64_t *counts, double *expect, sd_error *err);

#endif

/* cmd_sample.h -- `specdec sample` as a library call: speculative sampling
 * at one position of a context-free pair, many times (sample.h), each
 * token's observed frequency against the rule's output distribution.
 */
#ifndef SPECDEC_CMD_SAMPLE_H
#define SPECDEC_CMD_SAMPLE_H

#include <stdint.h>

#include "specdec/command.h"
#include "specdec/engine_stats.h"

/* Fields as command.h reads them; man specdec gives each one's domain and default. */
typedef struct {
    const char *p_file, *q_file; /* P_FILE, Q_FILE: the target's and the draft's distribution files (dist.h) */
    double draws;                /* --draws N (default 1000000) */
    double drafts;               /* --drafts K: drafts per position, recursive rejection (adjusted only) */
    const char *verify;          /* --verify NAME: adjusted (default), target, deterministic-draft or exact-match */
    double seed;                 /* --seed S */
    /* Not fields: what a caller may set besides (defaults() sets none). */
    uint32_t shard, nshards;     /* draw only this shard's blocks (sample.h); 0, 0: all */
    const sd_engine_io *io;      /* record or replay the counts (engine_stats.h), or NULL */
} sd_cmd_sample_request;

/* Nothing given. */
SD_API sd_cmd_sample_request sd_cmd_sample_defaults(void);
/* The table: token (its label, or its index), p, q, observed, expected,
 * seed, rng; a row per token.  SD_EINVAL naming the field (the files are
 * required), SD_ENOMEM; *out NULL on failure. */
SD_API sd_status sd_cmd_sample_table(const sd_cmd_sample_request *rq, sd_table **out, sd_error *err);
/* The row (command.h). */
SD_API extern const sd_command sd_cmd_sample;

#endif

/* engine_stats.h -- what a Monte Carlo run counts (engine.h, sample.h), the
 * hooks that record and replay it for sharded runs (partial.h), and its
 * merge.
 *
 * Every count is an integer, so that counts from threads, chunks or shards
 * add up in any order; the one real-valued sum, each chunk's beta sum, is
 * kept per chunk and added in chunk order, so that a seed gives
 * bit-identical statistics however the work was split.
 */
#ifndef SPECDEC_ENGINE_STATS_H
#define SPECDEC_ENGINE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/status.h"

#define SD_MOVE_SPAN 3u      /* heuristic moves g -> g' are binned by g' - g in [-3, 3] ... */
#define SD_MOVE_BINS 8u      /* ... plus one bin for every larger move */

typedef struct sd_engine_stats sd_engine_stats;

struct sd_engine_stats {
    uint64_t iterations, tokens, sequences;
    uint64_t draft_calls, target_calls, target_positions;
    uint64_t verified, accepted; /* drafts that reached verification, and those accepted */
    size_t max_n;                /* the largest N: gamma + 1 */
    uint64_t *n_hist;            /* [max_n + 1]: iterations that emitted n tokens */
    size_t max_gamma;
    uint64_t *reached;           /* [max_gamma]: iterations whose draft i+1 was verified */
    uint64_t *accepted_at;       /* [max_gamma]: ... and accepted */
    double alpha_hat;            /* mean acceptance (beta, eq. 1) over the prefixes of emitted tokens, eq. (7) */
    size_t vocab, contexts, positions;
    uint64_t *ctx_tokens;        /* [contexts]: tokens emitted at each context */
    uint64_t *out_counts;        /* [contexts * vocab]: emitted ranks per context */
    uint64_t *pos_counts;        /* [positions * vocab]: tokens at sequence positions 1.. */
    double seconds;              /* wall time of the run, in seconds */
    /* The heuristic policy's draft-length moves; NULL for every other policy
     * (which allocates nothing for them).  For each iteration that drafted g
     * (0..max_gamma) and accepted all g drafts (full = 1) or not (full = 0),
     * after which the next iteration's draft length is g',
     *     moves[(full * (max_gamma + 1) + g) * SD_MOVE_BINS + b]
     * counts it, with b = g' - g + SD_MOVE_SPAN when |g' - g| <= SD_MOVE_SPAN
     * and b = SD_MOVE_BINS - 1 otherwise: 2 (max_gamma + 1) SD_MOVE_BINS
     * counters (binned rather than a (max_gamma + 1)^2 matrix, since
     * gamma_max may be 4096).  The +2/-1 rule allows exactly
     * g' = min(g + 2, gamma_max) after full acceptance and g' = max(g - 1, 1)
     * otherwise.  The last iteration of a chunk counts its move too; a
     * sequence restarted by seq_tokens starts again at gamma, which is not a
     * move.  Merged over threads like the other counts; freed by
     * sd_engine_stats_free. */
    uint64_t *moves;
    size_t nchunks;              /* the run's chunks (all shards together) */
    double *chunk_beta;          /* [nchunks]: each chunk's sum of beta over its emitted tokens (0 for
                                  * chunks another shard ran); alpha_hat = their sum in chunk order / tokens */
};

/* Shards and partial results.  A run is split across processes
 * by its chunks: shard i of n (1 <= i <= n) runs the chunks k with
 * k mod n = i - 1.  Chunk 0 sizes the run, so every shard runs it, but only
 * shard 1 counts it in what it records; the statistics a sharded run
 * returns to its caller include chunk 0 anyway, so that a shard with no
 * chunk of its own still returns finite means (they are for nothing but
 * the caller's own bookkeeping: the shard's result is what `record`
 * received).  The hooks: */
typedef struct {
    /* After a run: its statistics over the shard's own chunks, with
     * fingerprint (sd_engine_fingerprint) naming the run's configuration.
     * A failure fails the run. */
    sd_status (*record)(void *arg, uint64_t fingerprint, const sd_engine_stats *s, sd_error *err);
    /* Instead of a run: when not NULL, sd_engine_run and sd_sample_run
     * run nothing and take their statistics from here (merged shards); *out
     * then belongs to the caller as if the engine had filled it. */
    sd_status (*replay)(void *arg, uint64_t fingerprint, sd_engine_stats *out, sd_error *err);
    void *arg;
} sd_engine_io;

/* Frees the arrays of s (zeroed, or filled by sd_engine_run or sd_sample_run) and leaves it
 * zeroed. */
SD_API void sd_engine_stats_free(sd_engine_stats *s);

/* Adds the counts of `from` into `into` (same shape: max_gamma, vocab,
 * contexts, positions, moves and out_counts present or not, nchunks) and
 * its chunk_beta entries; then sets into->alpha_hat from the chunk sums in
 * chunk order, as sd_engine_run does -- so merging the shards of a run
 * gives the unsharded run's statistics bit for bit.  SD_EINVAL when the
 * shapes differ (into is then unchanged). */
SD_API sd_status sd_engine_stats_merge(sd_engine_stats *into, const sd_engine_stats *from, sd_error *err);

/* Mean tokens per iteration and its standard error (from the N histogram)
 * of s from sd_engine_run.  Never fail: the mean is NaN without
 * iterations, the standard error +inf with fewer than 2. */
SD_API double sd_engine_stats_mean_n(const sd_engine_stats *s);
SD_API double sd_engine_stats_mean_n_se(const sd_engine_stats *s);

#endif

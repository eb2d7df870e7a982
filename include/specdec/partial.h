/* partial.h -- partial results: what one shard of a Monte Carlo job counted, as text, and their merge.
 *
 * A shard (engine_stats.h: shard i of n runs chunks k with k mod n = i - 1)
 * records each engine run's sufficient statistics -- integer counts and
 * each chunk's beta sum, never rounded summaries -- with the run's
 * fingerprint.  A partial holds a shard's runs in the order they ran, the
 * shard's number, and context lines (for the program: the command lines
 * that made the runs), which the library stores and compares but does not
 * read.  Merging the n shards of a job adds the counts and places each
 * chunk's sum, so that the merged statistics equal, bit for bit, those of
 * one process running every chunk (sd_engine_stats_merge).
 *
 * The text form, one item a line, integers in decimal and reals as C99 hex
 * floats (exact):
 *     specdec-partial 1
 *     shard I N
 *     context TEXT                      (percent-encoded: %XX for bytes <= 0x20, '%', >= 0x7f)
 *     run FINGERPRINT MAX_GAMMA VOCAB CONTEXTS POSITIONS MOVES OUTPUTS NCHUNKS
 *     scalars ITERATIONS TOKENS SEQUENCES DRAFT_CALLS TARGET_CALLS TARGET_POSITIONS VERIFIED ACCEPTED
 *     n_hist | reached | accepted_at | ctx_tokens | out_counts | pos_counts | moves  NNZ I:V ...
 *     beta K HEXFLOAT ...               (the nonzero chunk sums)
 *     end-run
 *     replicas FINGERPRINT NSLOTS NFIELDS   (a set of independent replications, below)
 *     slot K HEXFLOAT ...               (NFIELDS values: the replications this shard ran)
 *     end-replicas
 *     end NRUNS [NREPLICAS]             (NREPLICAS when there are any)
 * Every array line appears once per run, in that order (out_counts and
 * moves only when present); a file without its closing "end" line is
 * truncated and refused.  A run's shape is bounded by what an engine run
 * can be (at most 2^23 chunks, 2^28 counters an array), so a small file
 * cannot ask for a huge allocation.
 *
 * Replicas serve what is replicated rather than chunked (serving.h's
 * simulation): a set of NSLOTS independent replications of one
 * configuration, each a vector of NFIELDS reals (any double, NaN and
 * infinities included, written as %a).  A shard fills the slots it ran;
 * the merge takes every slot from the one part that ran it.  Bounds: at
 * most 2^20 slots, 256 fields, 2^24 values a set.
 */
#ifndef SPECDEC_PARTIAL_H
#define SPECDEC_PARTIAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "specdec/engine.h"
#include "specdec/status.h"

typedef struct {
    uint64_t fingerprint;  /* sd_engine_fingerprint of the run's configuration */
    sd_engine_stats stats; /* the shard's counts; alpha_hat over them */
} sd_partial_run;

typedef struct {
    uint64_t fingerprint; /* the replicated configuration's, as its caller computes it */
    size_t nslots, nfields;
    double *value;        /* nslots x nfields, row by row: slot k's at value + k nfields */
    unsigned char *have;  /* nslots: 1 where this part ran slot k (its values are then set), else 0 */
} sd_partial_replicas;

typedef struct {
    uint32_t shard, nshards; /* 1 <= shard <= nshards */
    char **context;          /* ncontext lines, each a NUL-terminated string without newlines */
    size_t ncontext;
    sd_partial_run *runs;    /* nruns, in the order they ran */
    size_t nruns;
    sd_partial_replicas *replicas; /* nreplicas sets, in the order they ran */
    size_t nreplicas;
} sd_partial;

/* An empty partial of shard `shard` of `nshards` (not checked).  Never fails. */
SD_API sd_partial sd_partial_init(uint32_t shard, uint32_t nshards);

/* Appends a context line (copied) or a run (its statistics copied) to p.
 * SD_ENOMEM, the only failure; p is then unchanged. */
SD_API sd_status sd_partial_add_context(sd_partial *p, const char *text, sd_error *err);
SD_API sd_status sd_partial_add_run(sd_partial *p, uint64_t fingerprint, const sd_engine_stats *s, sd_error *err);

/* Appends a set of replications (value and have copied, shaped as in
 * sd_partial_replicas; value is read only where have is 1).  SD_EINVAL
 * for a shape outside the bounds above, SD_ENOMEM; p is then unchanged. */
SD_API sd_status sd_partial_add_replicas(sd_partial *p, uint64_t fingerprint, size_t nslots, size_t nfields,
                                         const double *value, const unsigned char *have, sd_error *err);

/* Frees what p holds and leaves it empty. */
SD_API void sd_partial_free(sd_partial *p);

/* Writes p in the text form above.  SD_EIO when out fails. */
SD_API sd_status sd_partial_write(const sd_partial *p, FILE *out, sd_error *err);

/* Reads one partial from in (name, for messages: the file's name or "-");
 * at end of input *got is 0 and nothing is read, else 1.  So a stream may
 * hold several partials one after the other.  SD_EINVAL names the file and
 * line of anything malformed, out of range or missing (a truncated part);
 * SD_ENOMEM.  On failure *out holds nothing. */
SD_API sd_status sd_partial_read(FILE *in, const char *name, size_t *line, sd_partial *out, int *got, sd_error *err);

/* Merges parts[0..n-1] (names[i] naming each in messages) into *out, shard
 * 1 of 1: they must carry the same context lines, runs and replica sets of
 * the same fingerprints and shapes, and every shard 1..N of one N exactly
 * once; each slot of a replica set must come from exactly one part.
 * SD_EINVAL, naming the part, when one belongs to another job, is doubled
 * or missing; SD_ENOMEM.  On failure *out holds nothing. */
SD_API sd_status sd_partial_merge(const sd_partial *parts, const char *const *names, size_t n, sd_partial *out,
                                  sd_error *err);

#endif

/* validate.h -- the theory held against the engine, as a table of checks.
 *
 * Each check runs the real rejection sampler (engine.h) on a synthetic or
 * shipped model and compares what it measures with a closed form
 * (theory.h).  Statistical checks are deterministic by seed and sized so
 * that a correct implementation fails one with probability below 1e-6
 * under any seed: means are compared within 6 standard errors (two-sided
 * p < 2e-9), chi-square statistics at p < 1e-7.  Every statistical check
 * has a negative control: the same test against a wrong theory, which
 * must fail (its margin is at least 9.1 standard errors, so it is caught
 * with probability above 0.999).  Deterministic checks (exact counts such
 * as the moves a rule forbids, closed forms against a brute-force scan or
 * an exact enumeration) have a tolerance of 0 or 1e-12 and a p_value of 1
 * (within) or 0; their controls are the same comparison against a wrong
 * rule or theory.
 *
 * Table columns: check, theory, measured, tolerance, p_value, samples,
 * verdict, seed, rng.  Verdicts: pass / FAIL for checks, caught / MISSED for negative
 * controls, finding for measurements that are reported, not judged.
 */
#ifndef SPECDEC_VALIDATE_H
#define SPECDEC_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/engine.h"
#include "specdec/status.h"
#include "specdec/table.h"

typedef struct {
    int quick;            /* 1: sized to run in seconds (make check); 0: 10x the samples */
    uint64_t seed;
    unsigned threads;     /* >= 1 (0 counts as 1); the results do not depend on it */
    const unsigned *only; /* run only the checks covering these row numbers; NULL/0: all */
    size_t nonly;
    uint32_t shard, nshards;  /* every engine run as this shard (engine_stats.h); 0, 0: whole runs */
    const sd_engine_io *io;   /* every engine run's record or replay hooks (engine_stats.h), or NULL */
} sd_validate_config;

/* The defaults: the full size, seed SD_RNG_DEFAULT_SEED (rng.h), two threads, every check.
 * Never fails. */
SD_API sd_validate_config sd_validate_defaults(void);

/* Runs the selected checks into a new table *out, which the caller frees
 * with sd_table_free; *passed is 1 iff every check passed and every
 * negative control was caught.  SD_OK unless something other than a check
 * failed (a failed check is SD_OK with *passed 0): SD_EINVAL for a number
 * in only that no check covers, SD_ENOMEM, SD_EFAIL when a GSL routine or
 * an engine thread fails.  On failure *out and *passed are untouched.  The
 * checks need no data files: their fixtures are compiled in. */
SD_API sd_status sd_validate_run(const sd_validate_config *cfg, sd_table **out, int *passed, sd_error *err);

/* A check: it adds the rows numbered first..last ("4. ...", ..., "7. ..."). */
typedef struct {
    unsigned first, last;
    const char *name, *summary;
} sd_validate_check;

/* The i-th check of the table (static), i = 0, 1, ...; NULL past the last. */
SD_API const sd_validate_check *sd_validate_check_at(size_t i);

#endif

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
 * with probability above 0.999).
 *
 * Table columns: check, theory, measured, tolerance, p_value, samples,
 * verdict, seed, rng.  Verdicts: pass / FAIL for checks, caught / MISSED for negative
 * controls, finding for measurements that are reported, not judged.
 */
#ifndef SPECDEC_VALIDATE_H
#define SPECDEC_VALIDATE_H

#include <stdint.h>

#include "status.h"
#include "table.h"

typedef struct {
    int quick;        /* 1: sized to run in seconds (make check); 0: 10x the samples */
    uint64_t seed;
    unsigned threads;
    const char *data_dir; /* where four-token-p.txt and four-token-q.txt live */
} sd_validate_config;

/* Runs every check into a new table; *passed is 1 iff every check passed
 * and every negative control was caught.  SD_OK unless something other
 * than a check failed (memory, a missing data file). */
sd_status sd_validate_run(const sd_validate_config *cfg, sd_table **out, int *passed, sd_error *err);

/* The table of checks, for help texts: names in order, ending with NULL. */
extern const char *const sd_validate_checks[];

#endif

/* rng.h -- reproducible random streams on GSL generators.
 *
 * The generator is GSL's MT19937 with 53-bit uniforms: gsl_rng_uniform()
 * on it combines two 32-bit outputs (27 + 26 bits) into a double on the grid
 * k / 2^53, so every GSL sampler that draws through it (gsl_ran_discrete,
 * gsl_ran_beta, gsl_rng_uniform_pos, ...) gets full double resolution.  Its
 * name, "mt19937-53", is what outputs record.  gsl_rng_get on it is
 * MT19937's own 32-bit output.
 *
 * The samplers and acceptance tests draw their uniforms lazily: the top 32
 * bits of U = K / 2^53 (K uniform on [1, 2^53), the distribution of
 * gsl_rng_uniform_pos here) are one gsl_rng_get, and the last 21 bits a
 * second one, drawn only when the outcome depends on them -- about once in
 * 2^32 decisions.  An acceptance test min(1, p/q) with p > q draws nothing,
 * as every U accepts.  Outcomes have the distribution a whole U gives; a
 * stream is used up about twice as slowly.
 *
 * A stream is (seed, stream id), as in pcg: the two are mixed with
 * splitmix64 and a bijective 32-bit finaliser, so distinct stream ids of one
 * seed always get distinct MT19937 seeds (MT19937 reads 32 bits of its
 * seed), and 0, which MT19937 would replace by 4357, is never used.
 * Parallel work keys streams by work chunk, never by thread.
 */
#ifndef SPECDEC_RNG_H
#define SPECDEC_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "specdec/status.h"

/* The seed every default of the library uses (synth.h, engine.h,
 * validate.h ...): runs are reproducible unless a seed is given. */
#define SD_RNG_DEFAULT_SEED 20261129u

/* The generator type: MT19937 with 53-bit doubles (static; set up once,
 * thread-safe).  Never fails. */
SD_API const gsl_rng_type *sd_rng_type(void);

/* A new generator of sd_rng_type() for (seed, stream); the caller frees it
 * with gsl_rng_free.  NULL if out of memory (after GSL's error handler,
 * which aborts unless turned off: see specdec.h). */
SD_API gsl_rng *sd_rng_stream(uint64_t seed, uint64_t stream);

/* Re-seeds r for (seed, stream): the same stream as sd_rng_stream when r
 * is of sd_rng_type().  Never fails. */
SD_API void sd_rng_reseed(gsl_rng *r, uint64_t seed, uint64_t stream);

#endif

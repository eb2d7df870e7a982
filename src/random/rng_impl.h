/* rng_impl.h -- the private half of rng: lazy 53-bit uniforms, for the
 * samplers and acceptance tests of the library (cdf, verify). */
#ifndef SPECDEC_RNG_IMPL_H
#define SPECDEC_RNG_IMPL_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "specdec/rng.h"

/* Lazy 53-bit uniforms (rng.h).  A uniform is U = K / 2^53 with K uniform
 * on [1, 2^53): the distribution gsl_rng_uniform_pos has on sd_rng_type().
 * Its top 32 bits are one draw a = gsl_rng_get(r) (MT19937 gives 32 bits),
 * so U lies in [sd_rng_u53_lo(a), sd_rng_u53_hi(a)], both exact doubles; the low
 * 21 bits are a second draw, made by sd_rng_u53_finish only when a comparison
 * cannot be decided from the interval (probability about 2^-32 a
 * threshold).  A decision made this way is the decision the full U gives:
 * the same distribution as drawing U whole, one draw instead of two. */
static inline double sd_rng_u53_lo(uint32_t a) { return (double)a * 0x1p-32; }
static inline double sd_rng_u53_hi(uint32_t a) { return (double)a * 0x1p-32 + (0x1p-32 - 0x1p-53); }

/* U whole, given its top 32 bits a: draws the low 21 bits; K = 0 (a = 0 and
 * low bits 0) is excluded by drawing all 53 bits again. */
static inline double sd_rng_u53_finish(gsl_rng *r, uint32_t a)
{
    for (;;) {
        uint64_t k = (uint64_t)a << 21 | (uint64_t)(gsl_rng_get(r) >> 11);
        if (k != 0)
            return (double)k * 0x1p-53;
        a = (uint32_t)gsl_rng_get(r);
    }
}

/* 1 if U s < b for a fresh lazy uniform U (the product rounded, as a
 * double), else 0: a Bernoulli(min(1, b / s)) trial up to rounding, the
 * acceptance test u q(x) < p(x) of the rules.  s >= 0 finite; b any.  When
 * b > s every U passes (U s <= s < b, also after rounding): nothing is
 * drawn. */
static inline int sd_rng_u53_scaled_below(gsl_rng *r, double s, double b)
{
    if (b > s)
        return 1;
    uint32_t a = (uint32_t)gsl_rng_get(r);
    if (a != 0) { /* a = 0: [lo, hi] holds K = 0, which is not a value of U */
        if (sd_rng_u53_hi(a) * s < b)
            return 1;
        if (!(sd_rng_u53_lo(a) * s < b))
            return 0;
    }
    return sd_rng_u53_finish(r, a) * s < b;
}

#endif

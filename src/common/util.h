/* util.h -- small helpers every layer shares: a 64-bit mixer, FNV-1a, the
 * monotonic clock and saturating size arithmetic.  Private to the library. */
#ifndef SPECDEC_UTIL_H
#define SPECDEC_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* splitmix64's output function: a bijective 64-bit mixer (Steele et al.
 * 2014).  Inline: the engine hashes every token's history with it. */
static inline uint64_t sd_util_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* a * b and a + b, saturating at SIZE_MAX: for byte counts of memory limits. */
static inline size_t sd_util_mul_sat(size_t a, size_t b) { return a != 0 && b > SIZE_MAX / a ? SIZE_MAX : a * b; }
static inline size_t sd_util_add_sat(size_t a, size_t b) { return b > SIZE_MAX - a ? SIZE_MAX : a + b; }

/* FNV-1a over n bytes, continuing from h (start: SD_UTIL_FNV_START): the
 * fingerprints of runs that a merge checks. */
#define SD_UTIL_FNV_START 14695981039346656037u
static inline uint64_t sd_util_fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211u;
    return h;
}

/* Seconds on the monotonic clock (CLOCK_MONOTONIC), for wall times. */
double sd_util_seconds(void);

#endif

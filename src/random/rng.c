/* rng.c -- MT19937 with 53-bit uniforms, and keyed streams (see rng.h). */
#include "specdec/rng.h"
#include "common/util.h"

#include <pthread.h>

static gsl_rng_type mt53;
static pthread_once_t mt53_once = PTHREAD_ONCE_INIT;

/* (a >> 5) * 2^26 + (b >> 6), over 2^53: uniform on k / 2^53, k in [0, 2^53). */
static double mt53_get_double(void *state)
{
    unsigned long a = gsl_rng_mt19937->get(state) >> 5;
    unsigned long b = gsl_rng_mt19937->get(state) >> 6;
    return ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
}

static void mt53_init(void)
{
    mt53 = *gsl_rng_mt19937; /* same state size, min, max, set and get: only doubles differ */
    mt53.name = "mt19937-53";
    mt53.get_double = mt53_get_double;
}

const gsl_rng_type *sd_rng_type(void)
{
    pthread_once(&mt53_once, mt53_init);
    return &mt53;
}

/* murmur3's fmix32: a bijection on 32-bit words. */
static uint32_t fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ (h >> 16);
}

void sd_rng_reseed(gsl_rng *r, uint64_t seed, uint64_t stream)
{
    uint32_t base = (uint32_t)sd_util_mix64(seed);
    uint32_t s = fmix32(base + (uint32_t)stream); /* distinct streams -> distinct seeds */
    gsl_rng_set(r, s != 0 ? s : 0x6a09e667u);
}

gsl_rng *sd_rng_stream(uint64_t seed, uint64_t stream)
{
    gsl_rng *r = gsl_rng_alloc(sd_rng_type());
    if (r != NULL)
        sd_rng_reseed(r, seed, stream);
    return r;
}

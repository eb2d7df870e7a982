/* path.c -- acceptance along target paths (see path.h).  Cost: O(n) draws
 * and lookups, plus SD_BURN_IN_TOKENS per segment. */
#include "specdec/path.h"

#include <gsl/gsl_rng.h>

#include "specdec/engine.h"
#include "specdec/rng.h"
#include "model/model_impl.h"

enum { PATH_SEGMENT = 4096 };

sd_status sd_path_acceptance(const sd_model *m, const sd_verifier *v, size_t n, uint64_t seed, double *out,
                             sd_error *err)
{
    gsl_rng *r = gsl_rng_alloc(sd_rng_type());
    if (r == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory for a random stream");
    sd_prefix s;
    for (size_t i = 0; i < n; i++) {
        if (i % PATH_SEGMENT == 0) { /* a fresh sequence, as the engine's chunks start */
            sd_rng_reseed(r, seed, i / PATH_SEGMENT);
            sd_model_start(m, &s);
            sd_model_prime(m, &s, r);
            for (unsigned b = 0; b < SD_BURN_IN_TOKENS; b++) {
                const sd_context *c = sd_model_lookup(m, &s);
                sd_model_advance(m, &s, c->token[sd_cdf_sample(&c->p_cdf, r)]);
            }
        }
        const sd_context *c = sd_model_lookup(m, &s);
        out[i] = sd_verify_acceptance(v, c);
        sd_model_advance(m, &s, c->token[sd_cdf_sample(&c->p_cdf, r)]);
    }
    gsl_rng_free(r);
    return SD_OK;
}

/* path.h -- acceptance along the paths a model's target generates: the
 * sequence of per-position acceptances behind non-i.i.d. predictions
 * (theory.h's Markov fit of a sequence). */
#ifndef SPECDEC_PATH_H
#define SPECDEC_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/model.h"
#include "specdec/status.h"
#include "specdec/verify.h"

/* Acceptance along paths: `n` tokens sampled from the target m
 * autoregressively (plain decoding: its law is the output law of every
 * lossless rule), in segments of 4096 tokens that start as the engine's
 * chunks do -- a fresh prefix, primed (n-gram models), SD_BURN_IN_TOKENS
 * tokens not recorded -- segment k from stream (seed, k); out[i] = v's
 * acceptance (verify.h) at the context of token i.  Any model (synth.h,
 * sd_model_rows, sd_ngram_model).  out is the caller's (n doubles).
 * SD_ENOMEM, the only failure. */
SD_API sd_status sd_path_acceptance(const sd_model *m, const sd_verifier *v, size_t n, uint64_t seed, double *out,
                                    sd_error *err);

#endif

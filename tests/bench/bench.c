/* bench.c -- `make bench`: engine throughput and bank cost by vocabulary size.
 *
 * For V in {16, 1000, 32000, 128256}, gamma = 5, a calibrated zipf model at
 * alpha = 0.8: the time and memory to build the context bank, then drafted
 * and emitted tokens per second on 1 and 2 threads, each the best of five
 * runs, 1- and 2-thread runs interleaved (the machine is shared; the best
 * run is the least disturbed one).
 * The RNG-bound limit is measured in the same run: GSL uniforms per second
 * from the engine's generator (gsl_rng_uniform_pos on sd_rng_type, MT19937
 * with 53-bit uniforms: two 32-bit draws each), best of five, halved -- a
 * drafted token needs at least two uniforms (the draft and its acceptance
 * test) -- and each row gives its drafted tokens per second as a fraction
 * of that limit (per thread).  GSL's plain mt19937 (32-bit uniforms, one
 * draw each) is measured beside it, as a second, stricter yardstick.
 * Prints a Markdown table.
 * Usage: specdec-bench [TOKENS [ZIPF_S]]   (default 1e7 tokens per run, s = 1.5)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gsl/gsl_errno.h>

#include "specdec/engine.h"
#include "specdec/rng.h"
#include "specdec/synth.h"
#include "specdec/verify.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* GSL uniforms per second from generator t, best of five runs of n. */
static double uniforms_per_second(const gsl_rng_type *t, uint64_t n)
{
    gsl_rng *r = gsl_rng_alloc(t);
    double best = 0.0, sink = 0.0;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        for (uint64_t i = 0; i < n; i++)
            sink += gsl_rng_uniform_pos(r);
        double rate = (double)n / (now() - t0);
        best = rate > best ? rate : best;
    }
    gsl_rng_free(r);
    if (sink < 0.0) /* keeps the loop */
        puts("");
    return best;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    static const size_t vocabs[] = { 16, 1000, 32000, 128256 };
    uint64_t tokens = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000u;
    double zipf_s = argc > 2 ? strtod(argv[2], NULL) : 1.5;
    uint64_t nu = tokens > 20000000u ? tokens : 20000000u;
    double limit = uniforms_per_second(sd_rng_type(), nu) / 2.0, plain = uniforms_per_second(gsl_rng_mt19937, nu) / 2.0;
    printf("| V | contexts | bank MiB | bank build s | threads | drafted tok/s | emitted tok/s | ns per emitted token | speed-up | drafted / RNG limit per thread |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    printf("| RNG limit: the engine's mt19937-53 uniforms / 2 | | | | 1 | %.3g | | | | 1 |\n", limit);
    printf("| (GSL's plain mt19937, 32-bit uniforms, / 2) | | | | 1 | %.3g | | | | %.2f |\n", plain, plain / limit);
    for (size_t i = 0; i < sizeof vocabs / sizeof vocabs[0]; i++) {
        sd_synth_config sc = { .family = SD_FAMILY_ZIPF, .vocab = vocabs[i], .zipf_s = zipf_s, .kappa = 0.5,
            .temperature = 1.0, .calibrated = 1, .alpha = 0.8, .regime = SD_REGIME_CONSTANT, .concentration = 20,
            .alpha_easy = 0.95, .alpha_hard = 0.3, .stay = 0.9, .history = 2, .seed = 1, .threads = 1 };
        sd_model *m;
        sd_error err;
        if (sd_model_synth(&sc, &m, &err) != SD_OK) {
            fprintf(stderr, "bench: %s\n", err.msg);
            return 1;
        }
        enum { REPS = 5 };
        double best[3] = { 0, 0, 0 };
        sd_engine_stats s[3];
        for (int rep = 0; rep < REPS; rep++)
            for (unsigned t = 1; t <= 2; t++) {
                sd_engine_config ec = { .model = m, .verifier = sd_verify_find("adjusted"),
                    .policy = SD_POLICY_FIXED, .gamma = 5, .tokens = tokens, .seed = 1, .threads = t, .drafts = 1 };
                if (rep > 0)
                    sd_engine_stats_free(&s[t]);
                if (sd_engine_run(&ec, &s[t], &err) != SD_OK) {
                    fprintf(stderr, "bench: %s\n", err.msg);
                    return 1;
                }
                if (best[t] <= 0.0 || s[t].seconds < best[t])
                    best[t] = s[t].seconds;
            }
        for (unsigned t = 1; t <= 2; t++) {
            double rate = (double)s[t].tokens / best[t];
            double drafted = (double)s[t].draft_calls / best[t];
            printf("| %zu | %zu | %.1f | %.2f | %u | %.3g | %.3g | %.0f | %.2f | %.2f |\n", vocabs[i],
                   sd_model_contexts(m), (double)sd_model_bytes(m) / 1048576.0, sd_model_build_seconds(m), t,
                   drafted, rate, 1e9 / rate, best[1] / best[t], drafted / limit / t);
            sd_engine_stats_free(&s[t]);
        }
        fflush(stdout);
        sd_model_free(m);
    }
    return 0;
}

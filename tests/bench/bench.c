/* bench.c -- `make bench`: engine throughput and bank cost by vocabulary size.
 *
 * For V in {16, 1000, 32000, 128256}, gamma = 5, a calibrated zipf model at
 * alpha = 0.8: the time and memory to build the context bank, then drafted
 * and emitted tokens per second on 1 and 2 threads, each the best of five
 * runs.
 *
 * The RNG-bound limit (issue 14) is measured in the same run: GSL uniforms
 * per second (gsl_rng_uniform_pos on GSL's plain mt19937, one 32-bit draw
 * each), halved -- a drafted token needs at least two uniforms, the draft
 * and its acceptance test -- and each row gives its drafted tokens per
 * second per thread as a fraction of it.  The engine's own generator with
 * whole 53-bit uniforms (two draws each, rng.h) is measured beside it.
 *
 * The machines this runs on are shared and their speed drifts by tens of
 * per cent within a minute, so the limits are measured again before every
 * engine run, interleaved with the 1- and 2-thread runs, and every figure is
 * the best (least disturbed) of its repetitions: the ratio compares the
 * best limit with the best engine run, taken in the same minutes.
 * Prints a Markdown table (the rows are held until the limits are known), then a second:
 * the optimal tree's dynamic program (tree.h) at budgets 64 to 1024, depths 8 and 32 and
 * 16 ranks (issue 21: N = 1024, D = 32, K = 16 in under 1 s on one core), the best of
 * five runs.
 * Usage: specdec-bench [TOKENS [ZIPF_S]]   (default 1e7 tokens per run, s = 1.5; TOKENS 0:
 * the tree table alone)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_errno.h>

#include "specdec/calibrate.h"
#include "specdec/cost.h"
#include "specdec/engine.h"
#include "specdec/presets.h"
#include "specdec/serving.h"
#include "specdec/rng.h"
#include "specdec/synth.h"
#include "specdec/tree.h"
#include "specdec/verify.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Raises *best to r's rate of gsl_rng_uniform_pos over n draws, if higher. */
static void time_uniforms(gsl_rng *r, uint64_t n, double *best)
{
    double sink = 0.0, t0 = now();
    for (uint64_t i = 0; i < n; i++)
        sink += gsl_rng_uniform_pos(r);
    double rate = (double)n / (now() - t0);
    *best = rate > *best ? rate : *best;
    if (sink < 0.0) /* keeps the loop */
        puts("");
}

enum { NV = 4, REPS = 5 };

typedef struct {
    size_t contexts;
    double mib, build, seconds[3], drafted[3], emitted[3];
} row;

/* The optimal tree's dynamic program (tree.h) at budgets N, depths D and K ranks: the best
 * of REPS runs, in seconds; a Markdown table. */
static int bench_tree(void)
{
    static const size_t budgets[] = { 64, 256, 1024 }, depths[] = { 8, 32 };
    sd_tree_accept a;
    memset(&a, 0, sizeof a);
    a.depths = 1;
    a.ranks = 16;
    for (size_t k = 0; k < 16; k++)
        a.p[0][k] = 0.45 * ldexp(1.0, -(int)k); /* 0.45, 0.225, ...: sums to 0.9 */
    sd_tree *t = malloc(sizeof *t);
    if (t == NULL)
        return 1;
    printf("\n| budget N | depth D | ranks K | DP steps D K N^2 / 2 | seconds (best of %d) | nodes | expected tokens |\n",
           REPS);
    printf("|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < sizeof budgets / sizeof *budgets; i++)
        for (size_t j = 0; j < sizeof depths / sizeof *depths; j++) {
            double best = 0.0, tokens = 0.0;
            for (int rep = 0; rep < REPS; rep++) {
                sd_error err;
                double t0 = now();
                if (sd_tree_optimal(budgets[i], depths[j], &a, t, &tokens, &err) != SD_OK) {
                    fprintf(stderr, "bench: %s\n", err.msg);
                    free(t);
                    return 1;
                }
                double dt = now() - t0;
                if (rep == 0 || dt < best)
                    best = dt;
            }
            printf("| %zu | %zu | 16 | %.3g | %.3f | %zu | %.4f |\n", budgets[i], depths[j],
                   (double)depths[j] * 16.0 * (double)budgets[i] * (double)budgets[i] / 2.0, best, t->n, tokens);
        }
    free(t);
    return 0;
}

/* The serving simulation (serving.h): 10^6 measured requests of 512 + 256 tokens, Llama-3.1-8B with a
 * Llama-3.2-1B draft on one H100 (the shipped calibration), alpha 0.8, at a rate where the running
 * batch is about 64, one replication per policy; a Markdown table. */
static int bench_serving(void)
{
    sd_presets p;
    sd_calibration *fits;
    size_t nfits;
    sd_error err;
    if (sd_presets_load(NULL, NULL, NULL, &p, &err) != SD_OK || sd_calibrate_load_defaults(NULL, &fits, &nfits, &err) != SD_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    sd_roofline_request rq = sd_cost_roofline_defaults();
    const sd_calibration *c, *cd;
    if (sd_presets_model(&p, "t", "llama-3.1-8b", &rq.target, &err) != SD_OK ||
        sd_presets_model(&p, "d", "llama-3.2-1b", &rq.draft, &err) != SD_OK ||
        sd_presets_hardware(&p, "h", "h100-sxm", &rq.hardware, &err) != SD_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    sd_calibrate_apply_request(fits, nfits, &rq, &c, &cd);
    double acc[16], prompt = 512, output = 256;
    for (int k = 0; k < 16; k++)
        acc[k] = 0.8;
    static const struct {
        const char *name;
        sd_serving_policy policy;
        double rate;
    } runs[] = { { "none", SD_SERVING_NONE, 14 }, { "gamma 3", SD_SERVING_FIXED, 13 }, { "goodput", SD_SERVING_GOODPUT, 10 } };
    printf("\n| policy | measured requests | rate (req/s) | mean batch | steps | seconds | simulated requests/s |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        sd_serving_config sc = { .arrivals = SD_SERVING_POISSON, .rate = runs[i].rate, .prompt = { &prompt, NULL, 1 },
                                 .output = { &output, NULL, 1 }, .requests = 1000000, .warmup = 10000,
                                 .max_num_seqs = 256, .max_num_batched_tokens = 8192, .memory_fraction = 0.9,
                                 .policy = runs[i].policy, .gamma = 3, .gamma_max = 8, .acc = acc, .nacc = 16,
                                 .cost = &rq, .slo_ttft = INFINITY, .slo_tpot = INFINITY };
        sd_serving_result r;
        double t0 = now();
        if (sd_serving_simulate(&sc, 1, 0, &r, &err) != SD_OK) {
            fprintf(stderr, "bench: %s\n", err.msg);
            return 1;
        }
        double dt = now() - t0;
        printf("| %s | 1000000 | %g | %.1f | %zu | %.2f | %.3g |\n", runs[i].name, runs[i].rate, r.mean_batch, r.steps,
               dt, 1010000 / dt);
    }
    free(fits);
    sd_presets_free(&p);
    return 0;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    static const size_t vocabs[NV] = { 16, 1000, 32000, 128256 };
    uint64_t tokens = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000u;
    if (argc > 1 && strcmp(argv[1], "serving") == 0) /* the serving table alone */
        return bench_serving();
    if (tokens == 0) /* the tree table alone */
        return bench_tree();
    double zipf_s = argc > 2 ? strtod(argv[2], NULL) : 1.5;
    gsl_rng *plain = gsl_rng_alloc(gsl_rng_mt19937), *mt53 = gsl_rng_alloc(sd_rng_type());
    double plain_best = 0.0, mt53_best = 0.0;
    row rows[NV] = { 0 };
    for (size_t i = 0; i < NV; i++) {
        sd_synth_config sc = { .family = SD_FAMILY_ZIPF, .vocab = vocabs[i], .zipf_s = zipf_s, .kappa = 0.5,
            .temperature = 1.0, .calibrated = 1, .alpha = 0.8, .regime = SD_REGIME_CONSTANT, .concentration = 20,
            .alpha_easy = 0.95, .alpha_hard = 0.3, .stay = 0.9, .history = 2, .seed = 1, .threads = 1 };
        sd_model *m;
        sd_error err;
        if (sd_synth_model(&sc, &m, &err) != SD_OK) {
            fprintf(stderr, "bench: %s\n", err.msg);
            return 1;
        }
        row *w = &rows[i];
        w->contexts = sd_model_contexts(m);
        w->mib = (double)sd_model_bytes(m) / 1048576.0;
        w->build = sd_model_build_seconds(m);
        for (int rep = 0; rep < REPS; rep++)
            for (unsigned t = 1; t <= 2; t++) {
                time_uniforms(plain, tokens, &plain_best);
                time_uniforms(mt53, tokens / 2, &mt53_best);
                sd_engine_config ec = { .model = m, .verifier = sd_verify_find("adjusted"),
                    .policy = SD_POLICY_FIXED, .gamma = 5, .tokens = tokens, .seed = 1, .threads = t, .drafts = 1 };
                sd_engine_stats s;
                if (sd_engine_run(&ec, &s, &err) != SD_OK) {
                    fprintf(stderr, "bench: %s\n", err.msg);
                    return 1;
                }
                if (w->seconds[t] <= 0.0 || s.seconds < w->seconds[t]) {
                    w->seconds[t] = s.seconds;
                    w->drafted[t] = (double)s.draft_calls / s.seconds;
                    w->emitted[t] = (double)s.tokens / s.seconds;
                }
                sd_engine_stats_free(&s);
            }
        sd_model_free(m);
    }
    double limit = plain_best / 2.0;
    printf("| V | contexts | bank MiB | bank build s | threads | drafted tok/s | emitted tok/s | ns per emitted token | speed-up | drafted / RNG limit per thread |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    printf("| RNG limit: GSL's mt19937 uniforms / 2 | | | | 1 | %.3g | | | | 1 |\n", limit);
    printf("| (the engine's mt19937-53, whole 53-bit uniforms, / 2) | | | | 1 | %.3g | | | | %.2f |\n",
           mt53_best / 2.0, mt53_best / plain_best);
    for (size_t i = 0; i < NV; i++)
        for (unsigned t = 1; t <= 2; t++) {
            const row *w = &rows[i];
            printf("| %zu | %zu | %.1f | %.2f | %u | %.3g | %.3g | %.0f | %.2f | %.2f |\n", vocabs[i], w->contexts,
                   w->mib, w->build, t, w->drafted[t], w->emitted[t], 1e9 / w->emitted[t],
                   w->seconds[1] / w->seconds[t], w->drafted[t] / limit / t);
        }
    gsl_rng_free(plain);
    gsl_rng_free(mt53);
    return bench_tree() || bench_serving();
}

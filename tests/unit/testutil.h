/* testutil.h -- what the Check suites share: the suite constructors, a
 * relative-tolerance assertion, paths of data files, fixtures and scratch
 * files, a scripted generator, and the small fixtures more than one suite
 * uses (defined in test_main.c). */
#ifndef SPECDEC_TESTUTIL_H
#define SPECDEC_TESTUTIL_H

#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "specdec/engine_stats.h"
#include "specdec/presets.h"
#include "specdec/status.h"
#include "specdec/synth.h"

/* The suites, one per public header: include/specdec/NAME.h is tested by
 * NAME_suite(), suite "NAME", in tests/unit/test_NAME.c.  By layer. */
Suite *status_suite(void); /* common */
Suite *version_suite(void);
Suite *data_suite(void); /* io */
Suite *format_suite(void);
Suite *json_suite(void); /* io/json.h: a private module with its own suite */
Suite *parse_suite(void);
Suite *table_suite(void);
Suite *tsv_suite(void);
Suite *theory_suite(void); /* theory */
Suite *tree_suite(void);
Suite *ufunc_suite(void);
Suite *cdf_suite(void);    /* random */
Suite *dist_suite(void);
Suite *npy_suite(void);
Suite *rng_suite(void);
Suite *sampling_suite(void);
Suite *calibrate_suite(void); /* cost */
Suite *cost_suite(void);
Suite *loop_suite(void);
Suite *specconfig_suite(void);
Suite *dtype_suite(void);
Suite *presets_suite(void);
Suite *model_suite(void); /* model */
Suite *ngram_suite(void);
Suite *synth_suite(void);
Suite *engine_suite(void); /* mc */
Suite *engine_stats_suite(void);
Suite *gof_suite(void);
Suite *partial_suite(void);
Suite *path_suite(void);
Suite *sample_suite(void);
Suite *step_suite(void);
Suite *verify_suite(void);
Suite *counters_suite(void); /* counters */
Suite *counters_json_suite(void);
Suite *counters_prometheus_suite(void);
Suite *fit_suite(void);
Suite *command_suite(void); /* io: commands as requests (command.h, commands.h) */
Suite *serving_suite(void); /* serving */
Suite *figure_suite(void); /* report */
Suite *policies_suite(void);
Suite *schedule_suite(void);
Suite *validate_suite(void);
Suite *cmd_fit_suite(void); /* report: the commands as library calls (cmd_NAME.h) */
Suite *cmd_tree_suite(void);
Suite *cmd_validate_suite(void);

/* |x - y| <= tol * max(|x|, |y|): ck_assert_double_eq_tol is absolute only. */
#define ck_assert_rel(x, y, tol)                                                            \
    do {                                                                                    \
        double ck_x_ = (x), ck_y_ = (y), ck_t_ = (tol);                                     \
        double ck_s_ = fmax(fabs(ck_x_), fabs(ck_y_));                                      \
        ck_assert_msg(fabs(ck_x_ - ck_y_) <= ck_t_ * ck_s_,                                 \
                      "%s = %.17g and %s = %.17g differ by %.3g relative (tolerance %.3g)", \
                      #x, ck_x_, #y, ck_y_, ck_s_ > 0 ? fabs(ck_x_ - ck_y_) / ck_s_ : 0.0,  \
                      ck_t_);                                                               \
    } while (0)

/* The path of data file name through the library's resolver (data.h), so
 * that the runner works from any folder; fails the test when not found.
 * Valid until the next call. */
const char *data_path(const char *name);

/* The path of tests/fixtures/NAME in the source tree that holds the
 * running test program (found through /proc/self/exe, so from any working
 * folder); fails the test when not found.  Valid until the next call. */
const char *fixture_path(const char *name);

/* A path for a scratch file holding text; the caller unlinks it. */
const char *write_temp(const char *text);

/* A scripted generator: gsl_rng_get returns words[0], words[1], ... in
 * turn (cycling after n), so a test can hand a sampler exact 32-bit draws
 * and count how many it took.  gsl_rng_alloc(script_type()); then
 * script_load. */
const gsl_rng_type *script_type(void);
void script_load(gsl_rng *r, const uint32_t *words, size_t n);
size_t script_used(const gsl_rng *r); /* draws since script_load */

/* Three tokens, five contexts, history 1, seed 77: each context's
 * acceptance is 0.55 (SD_REGIME_CONSTANT: small_model) or drawn from
 * Beta(11, 9) (SD_REGIME_BETA); for exact distributions by enumeration
 * (engine, step).  The caller frees it with sd_model_free. */
sd_model *small_model_in(sd_regime regime);
sd_model *small_model(void);

/* An sd_engine_io record hook (engine_stats.h): appends the run to the
 * sd_partial at arg (sd_partial_add_run), for sharded runs (partial,
 * sample). */
sd_status record_partial(void *arg, uint64_t fingerprint, const sd_engine_stats *s, sd_error *err);

/* Hand-written presets (presets.h) for the cost, presets and calibrate
 * suites: a dense BF16 model by its config.json shapes (data/models.tsv
 * cites the cards), a 70B target ("t70"), Llama-3.1-8B ("l8") and one H100
 * ("h100": BF16 and FP8 peaks, 3.35 TB/s, 80 GB, 450 GB/s links, 3 us). */
#define DENSE(nm, P, L, D, H, KV, HD, F, V)                                                                           \
    { .name = nm, .params_total = P, .params_active = P, .layers = L, .d_model = D, .heads = H, .kv_heads = KV,      \
      .head_dim = HD, .d_ff = F, .vocab = V, .experts = 1, .experts_active = 1, .weight = SD_BF16, .kv = SD_BF16,   \
      .act = SD_BF16, .compute = SD_BF16 }
extern const sd_model_spec TARGET, L8B;
extern const sd_hardware H100;

#endif

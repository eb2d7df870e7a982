/* test_main.c -- the one Check runner: every suite (a suite per public
 * header), in layer order; and the shared helpers of testutil.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "specdec.h"
#include "testutil.h"

const char *data_path(const char *name)
{
    static char path[4096];
    sd_error err;
    ck_assert_msg(sd_data_find(NULL, name, path, sizeof path, &err) == SD_OK, "%s", err.msg);
    return path;
}

const char *fixture_path(const char *name)
{
    static char path[8192];
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_msg(n > 0, "cannot read /proc/self/exe");
    exe[n] = '\0';
    for (int up = 0; up < 4; up++) { /* build/specdec-tests, build/san/specdec-tests */
        char *slash = strrchr(exe, '/');
        if (slash == NULL || slash == exe)
            break;
        *slash = '\0';
        snprintf(path, sizeof path, "%s/tests/fixtures/%.200s", exe, name);
        if (access(path, R_OK) == 0)
            return path;
    }
    ck_assert_msg(0, "fixture %s not found above the test program", name);
    return NULL;
}

const char *write_temp(const char *text)
{
    static char path[64];
    static int counter;
    snprintf(path, sizeof path, "/tmp/specdec-test-%ld-%d.txt", (long)getpid(), counter++);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Three tokens, five contexts; each context's acceptance is 0.55 (constant)
 * or drawn from Beta(11, 9) (beta). */
sd_model *small_model_in(sd_regime regime)
{
    sd_synth_config c = { .family = SD_FAMILY_DIRICHLET, .vocab = 3, .zipf_s = 1.5, .kappa = 1.0, .temperature = 1.0,
        .calibrated = 1, .alpha = 0.55, .regime = regime, .concentration = 20, .alpha_easy = 0.95,
        .alpha_hard = 0.3, .stay = 0.9, .contexts = 5, .history = 1, .seed = 77, .threads = 1 };
    sd_model *m;
    ck_assert_int_eq(sd_synth_model(&c, &m, NULL), SD_OK);
    return m;
}

sd_model *small_model(void) { return small_model_in(SD_REGIME_CONSTANT); }

sd_status record_partial(void *arg, uint64_t fingerprint, const sd_engine_stats *s, sd_error *err)
{
    return sd_partial_add_run(arg, fingerprint, s, err);
}

const sd_model_spec TARGET = DENSE("t70", 70.6e9, 80, 8192, 64, 8, 128, 28672, 128256);
const sd_model_spec L8B = DENSE("l8", 8.03e9, 32, 4096, 32, 8, 128, 14336, 128256);
const sd_hardware H100 = { .name = "h100", .flops = { [SD_BF16] = 989e12, [SD_FP8] = 1978e12 },
                           .bandwidth = 3.35e12, .memory = 80e9, .link_bandwidth = 450e9, .link_latency = 3e-6 };

typedef struct {
    uint32_t words[64];
    size_t n, used;
} script_state;

static void script_set(void *s, unsigned long seed) { (void)s, (void)seed; }
static unsigned long script_get(void *s)
{
    script_state *st = s;
    return st->words[st->used++ % st->n];
}
static double script_get_double(void *s) { return (double)script_get(s) * 0x1p-32; }
static const gsl_rng_type script = { "script", 0xffffffffUL, 0, sizeof(script_state), script_set, script_get,
                                     script_get_double };

const gsl_rng_type *script_type(void) { return &script; }

void script_load(gsl_rng *r, const uint32_t *words, size_t n)
{
    script_state *st = r->state;
    ck_assert(n >= 1 && n <= 64);
    memcpy(st->words, words, n * sizeof *words);
    st->n = n;
    st->used = 0;
}

size_t script_used(const gsl_rng *r) { return ((const script_state *)r->state)->used; }

int main(void)
{
    gsl_set_error_handler_off();
    /* Every suite, in the library's layer order (doc/design.md): common, io,
     * theory, random, cost, model, mc, counters, serving, report, cli. */
    Suite *(*const suites[])(void) = {
        /* common */ status_suite, version_suite,
        /* io */ data_suite, format_suite, json_suite, parse_suite, table_suite, tsv_suite,
        /* theory */ theory_suite, tree_suite, ufunc_suite,
        /* random */ cdf_suite, dist_suite, npy_suite, rng_suite, sampling_suite,
        /* cost */ calibrate_suite, cost_suite, loop_suite, specconfig_suite, dtype_suite, presets_suite,
        /* model */ model_suite, ngram_suite, synth_suite,
        /* mc */ engine_suite, engine_stats_suite, gof_suite, partial_suite, path_suite, sample_suite, step_suite, verify_suite,
        /* counters */ counters_suite, counters_json_suite, counters_prometheus_suite, fit_suite,
        /* serving */ serving_suite,
        /* report */ figure_suite, policies_suite, schedule_suite, validate_suite, cmd_fit_suite, cmd_tree_suite,
                       cmd_validate_suite,
        /* cli */ command_suite,
    };
    SRunner *sr = srunner_create(suites[0]());
    for (size_t i = 1; i < sizeof suites / sizeof suites[0]; i++)
        srunner_add_suite(sr, suites[i]());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

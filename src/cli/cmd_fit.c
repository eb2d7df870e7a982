/* cmd_fit.c -- `specdec fit`: engine counters to alpha, the i.i.d. test and a recommended gamma. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const sd_domain FIT_GAMMA = { "--gamma", 1, SD_COUNTS_MAX_GAMMA, 1 };
static const sd_domain GAMMA_MAX = { "--gamma-max", 1, 4096, 1 };
static const sd_domain LEVEL = { "--level", 1e-300, 0.5, 0 };
static const sd_domain REPLICATES = { "--replicates", 0, 100000, 1 };
static const sd_domain SEED = { "--seed", 0, 9007199254740992.0, 1 };
static const sd_domain ONE_COST = { "--cost", 0, 1e6, 0 };
static const sd_domain BATCH = { "--batch", 1, 1048576, 1 };
static const sd_domain CONTEXT = { "--context", 0, 16777216, 1 };

static const char *const REPORTS[] = { "predictions", "positions", "summary", NULL };

/* The cost of an iteration of gamma' drafts in target steps, gamma' = 1..n:
 * eq. (10)'s 1 + gamma' c, or the roofline's gamma' c_eff + verify_cost_ratio. */
static sd_status iteration_costs(const cli_args *a, size_t n, double *cost, sd_error *err)
{
    int roof = cli_given(a, "--target") || cli_given(a, "--draft") || cli_given(a, "--hardware");
    if (roof == cli_given(a, "--cost"))
        return sd_status_fail(err, SD_EINVAL, "fit: give --cost C, or --target, --draft and --hardware (roofline presets)");
    double c, batch, context;
    sd_status st;
    if (!roof) {
        if ((st = cli_number(a, &ONE_COST, NULL, &c, err)) != SD_OK)
            return st;
        for (size_t g = 1; g <= n; g++)
            cost[g - 1] = sd_theory_cost_factor((double)g, c);
        return SD_OK;
    }
    sd_presets p;
    const sd_model_spec *t, *d;
    const sd_hardware *h;
    if ((st = cli_number(a, &BATCH, "1", &batch, err)) != SD_OK ||
        (st = cli_number(a, &CONTEXT, "4096", &context, err)) != SD_OK ||
        (st = sd_presets_load(a->data_dir, NULL, NULL, &p, err)) != SD_OK)
        return st;
    if ((st = sd_presets_model(&p, "target", cli_value(a, "--target"), &t, err)) == SD_OK &&
        (st = sd_presets_model(&p, "draft", cli_value(a, "--draft"), &d, err)) == SD_OK &&
        (st = sd_presets_hardware(&p, "hardware", cli_value(a, "--hardware"), &h, err)) == SD_OK &&
        (st = sd_presets_check(t, h, err)) == SD_OK && (st = sd_presets_check(d, h, err)) == SD_OK) {
        const sd_cost_params cp = sd_cost_defaults();
        double t1 = sd_cost_step_time(t, h, &cp, batch, 1, context, NULL);
        double c_eff = sd_cost_step_time(d, h, &cp, batch, 1, context, NULL) / t1;
        for (size_t g = 1; g <= n; g++)
            cost[g - 1] = (double)g * c_eff + sd_cost_step_time(t, h, &cp, batch, (double)g + 1, context, NULL) / t1;
    }
    sd_presets_free(&p);
    return st;
}

static sd_status run_fit(const cli_args *a, sd_table **out, sd_error *err)
{
    sd_counts_options opt = { .format = cli_value(a, "--input-format"), .select = cli_value(a, "--select"),
                              .since = cli_value(a, "--since") };
    double gamma = 0, gamma_max = 0, level, replicates, seed;
    int report;
    sd_counts c;
    sd_fit f;
    double *cost = NULL;
    sd_status st;
    *out = NULL;
    if ((cli_given(a, "--gamma") && (st = cli_number(a, &FIT_GAMMA, NULL, &gamma, err)) != SD_OK) ||
        (st = cli_number(a, &LEVEL, "1e-3", &level, err)) != SD_OK ||
        (st = cli_number(a, &REPLICATES, "400", &replicates, err)) != SD_OK ||
        (st = cli_number(a, &SEED, "20261129", &seed, err)) != SD_OK ||
        (st = cli_choice(a, "--report", REPORTS, "predictions", &report, err)) != SD_OK)
        return st;
    opt.gamma = (size_t)gamma;
    if ((st = sd_counters_load(a->pos[0], &opt, &c, err)) != SD_OK || (st = sd_fit_counts(&c, level, &f, err)) != SD_OK)
        return st;
    char dflt[32];
    snprintf(dflt, sizeof dflt, "%zu", 2 * c.gamma);
    if ((st = cli_number(a, &GAMMA_MAX, dflt, &gamma_max, err)) != SD_OK)
        return st;
    if ((cost = malloc((size_t)gamma_max * sizeof *cost)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    if ((st = iteration_costs(a, (size_t)gamma_max, cost, err)) == SD_OK) {
        const sd_fit_request rq = { .gamma_max = (size_t)gamma_max, .cost = cost, .replicates = (size_t)replicates,
                                    .seed = (uint64_t)seed };
        st = sd_fit_table(&c, &f, &rq, (sd_fit_report)report, out, err);
    }
    free(cost);
    return st;
}

static const cli_option fit_options[] = {
    { "--input-format", "NAME", "prometheus, vllm-v1, vllm-v0, llama.cpp, tsv, histogram (default: detected)" },
    { "--select", "LABEL=VALUE", "prometheus: keep the series with this label (default: sum them, with a note)" },
    { "--since", "FILE", "prometheus: an earlier scrape; fit the counts between the two" },
    { "--gamma", "G", "histogram TSV: the draft length (required there)" },
    { "--gamma-max", "N", "predict gamma = 1..N (default 2 x the measured gamma)" },
    { "--cost", "C", "draft/target cost ratio: improvement = E(N) / (1 + gamma c), eq. (10)" },
    { "--target", "NAME", "roofline presets instead of --cost: the target model, as for roofline" },
    { "--draft", "NAME", "roofline presets: draft model" },
    { "--hardware", "NAME", "roofline presets: accelerator" },
    { "--batch", "B", "roofline presets: batch (default 1)" },
    { "--context", "S", "roofline presets: context length (default 4096)" },
    { "--report", "NAME", "predictions, positions or summary (default predictions)" },
    { "--level", "P", "reject i.i.d. acceptance when the likelihood-ratio test's p < P (default 1e-3)" },
    { "--replicates", "B", "bootstrap replicates for the intervals, 0 for none (default 400)" },
    { "--seed", "S", "the bootstrap's random seed (default 20261129)" },
    { NULL, NULL, NULL },
};

const cli_command cmd_fit = {
    "fit", "fit FILE (--cost C | --target T --draft D --hardware H) [--report NAME] ...",
    "alpha from an engine's counters (Prometheus, vLLM or llama.cpp logs, TSV), the i.i.d. test, the best gamma",
    fit_options, 1, 1, run_fit, 0, NULL, NULL, 0,
};

/* cmd_fit.c -- `specdec fit`: engine counters to alpha, the i.i.d. test and a recommended gamma. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sd_domain FIT_GAMMA = { "--gamma", 1, SD_COUNTS_MAX_GAMMA, 1 };
static const sd_domain GAMMA_MAX = { "--gamma-max", 1, 4096, 1 };
static const sd_domain LEVEL = { "--level", 1e-300, 0.5, 0 };
static const sd_domain REPLICATES = { "--replicates", 0, 100000, 1 };
static const sd_domain ONE_COST = { "--cost", 0, 1e6, 0 };


/* An iteration of g drafts in target steps, g = 1..n, under the roofline: g c_eff + verify_cost_ratio. */
static void chain_costs(const sd_roofline_request *rq, double batch, double context, size_t n, double *cost)
{
    double t1 = sd_cost_step_time(rq->target, rq->hardware, &rq->params, batch, 1, context, NULL);
    double c_eff = sd_cost_step_time(rq->draft, rq->hardware, &rq->draft_params, batch, 1, context, NULL) / t1;
    for (size_t g = 1; g <= n; g++)
        cost[g - 1] = (double)g * c_eff + sd_cost_step_time(rq->target, rq->hardware, &rq->params, batch,
                                                             (double)g + 1, context, NULL) / t1;
}

/* What the iteration costs came from: --cost, or the presets and their calibration. */
typedef struct {
    int roof;
    sd_presets p;
    sd_roofline_request rq;
    cli_costs cc;
    double *draws; /* ndraws x n: the costs under the fit's draws (NULL: no fit) */
    size_t ndraws;
} fit_costs;

static void fit_costs_free(fit_costs *fc)
{
    if (fc->roof) {
        cli_costs_free(&fc->cc);
        sd_presets_free(&fc->p);
    }
    free(fc->draws);
    memset(fc, 0, sizeof *fc);
}

/* The cost of an iteration of gamma' drafts in target steps, gamma' = 1..n:
 * eq. (10)'s 1 + gamma' c, or the roofline's gamma' c_eff + verify_cost_ratio
 * with the calibration's terms, and then ndraws cost vectors under its fit's
 * covariance (sd_calibrate_draws) for the improvement's interval. */
static sd_status iteration_costs(const cli_args *a, size_t n, size_t ndraws, double *cost, fit_costs *fc,
                                 sd_error *err)
{
    memset(fc, 0, sizeof *fc);
    int roof = cli_given(a, "--target") || cli_given(a, "--draft") || cli_given(a, "--hardware");
    if (roof && cli_given(a, "--cost"))
        return sd_status_fail(err, SD_EINVAL, "fit: give --cost C or --target, --draft and --hardware (roofline "
                              "presets), not both");
    double c, batch, context;
    sd_status st;
    if (!roof) {
        if ((st = cli_number(a, &ONE_COST, &c, err)) != SD_OK)
            return st;
        for (size_t g = 1; g <= n; g++)
            cost[g - 1] = sd_theory_cost_factor((double)g, c);
        return SD_OK;
    }
    if ((st = cli_number(a, &CLI_BATCH, &batch, err)) != SD_OK || (st = cli_number(a, &CLI_CONTEXT, &context, err)) != SD_OK ||
        (st = cli_presets_load(a, &fc->p, err)) != SD_OK)
        return st;
    if ((st = cli_roofline_request(a, &fc->p, &fc->rq, &fc->cc, err)) != SD_OK) {
        sd_presets_free(&fc->p);
        return st;
    }
    fc->roof = 1;
    chain_costs(&fc->rq, batch, context, n, cost);
    if (fc->cc.fit == NULL || ndraws == 0)
        return SD_OK;
    sd_roofline_request *r = malloc(ndraws * sizeof *r);
    fc->draws = malloc(ndraws * n * sizeof *fc->draws);
    st = r == NULL || fc->draws == NULL
             ? sd_status_fail(err, SD_ENOMEM, "out of memory")
             : sd_calibrate_draws(&fc->rq, fc->cc.fit, fc->cc.draft_fit, ndraws, SD_CALIBRATE_BAND_SEED, r, err);
    for (size_t k = 0; k < ndraws && st == SD_OK; k++)
        chain_costs(&r[k], batch, context, n, fc->draws + k * n);
    free(r);
    fc->ndraws = ndraws;
    return st;
}

/* The counts c as NVIDIA's speculation_profile.json, to path. */
static sd_status export_profile(const char *path, const sd_counts *c, sd_error *err)
{
    if (!c->has_positions || c->gauge || c->kind != SD_COUNTS_PREFIX)
        return sd_status_fail(err, SD_EINVAL, "--export-profile: %s input without per-position prefix counts: the "
                              "profile's marginal_accept_rates would be a model's, not a measurement", c->format);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return sd_status_fail(err, SD_EINVAL, "--export-profile: cannot write '%s': %s", path, strerror(errno));
    sd_status st = sd_counters_write_profile(c, f, err);
    if (fclose(f) != 0 && st == SD_OK)
        st = sd_status_fail(err, SD_EIO, "--export-profile: cannot write '%s': %s", path, strerror(errno));
    return st;
}

static sd_status run_fit(const cli_args *a, sd_table **out, sd_error *err)
{
    sd_counts_options opt = { .format = cli_value(a, "--input-format"), .select = cli_value(a, "--select"),
                              .since = cli_value(a, "--since"), .gamma_name = "--gamma" };
    double gamma = 0, gamma_max = 0, level, replicates, seed;
    int report;
    sd_counts c;
    sd_fit f;
    double *cost = NULL;
    sd_status st;
    *out = NULL;
    if ((cli_given(a, "--gamma") && (st = cli_number(a, &FIT_GAMMA, &gamma, err)) != SD_OK) ||
        (st = cli_number(a, &LEVEL, &level, err)) != SD_OK || (st = cli_number(a, &REPLICATES, &replicates, err)) != SD_OK ||
        (st = cli_number(a, &CLI_SEED, &seed, err)) != SD_OK || (st = cli_choice(a, "--report", NULL, &report, err)) != SD_OK)
        return st;
    opt.gamma = (size_t)gamma;
    if ((st = sd_counters_load(a->pos[0], &opt, &c, err)) != SD_OK || (st = sd_fit_counts(&c, level, &f, err)) != SD_OK)
        return st;
    if (cli_given(a, "--export-profile") && (st = export_profile(cli_value(a, "--export-profile"), &c, err)) != SD_OK)
        return st;
    gamma_max = 2.0 * (double)c.gamma; /* the default: twice the measured draft length */
    if (cli_given(a, "--gamma-max") && (st = cli_number(a, &GAMMA_MAX, &gamma_max, err)) != SD_OK)
        return st;
    int costed = cli_given(a, "--cost") || cli_given(a, "--target") || cli_given(a, "--draft") ||
                 cli_given(a, "--hardware");
    fit_costs fc = { 0 };
    if (costed && (cost = malloc((size_t)gamma_max * sizeof *cost)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    /* as many cost draws as replicates, one for each (a gauge, without replicates: the band's draws) */
    size_t ndraws = replicates > 0 ? (size_t)replicates : SD_CALIBRATE_BAND_DRAWS;
    if (!costed || (st = iteration_costs(a, (size_t)gamma_max, ndraws, cost, &fc, err)) == SD_OK) {
        const sd_fit_request rq = { .gamma_max = (size_t)gamma_max, .cost = cost, .replicates = (size_t)replicates,
                                    .seed = (uint64_t)seed, .cost_draws = fc.draws, .ncost_draws = fc.ndraws };
        st = sd_fit_table(&c, &f, &rq, (sd_fit_report)report, out, err);
    }
    if (st == SD_OK && fc.roof && report != SD_FIT_REPORT_POSITIONS)
        st = cli_costs_note(a, &fc.cc, &fc.rq, 0, *out, err);
    if (st == SD_OK && fc.draws != NULL && report != SD_FIT_REPORT_POSITIONS)
        st = sd_table_note(*out, err, "the improvement's interval holds the cost terms' uncertainty too: each "
                           "bootstrap replicate is divided by the costs at one draw of the fitted terms.");
    if (st != SD_OK) {
        sd_table_free(*out);
        *out = NULL;
    }
    fit_costs_free(&fc);
    free(cost);
    return st;
}

static const cli_option FIT_OPTIONS[] = {
    { .name = "--input-format", .metavar = "NAME", .help = "{formats} (default: detected)" },
    { .name = "--select", .metavar = "LABEL=VALUE", .help = "prometheus: keep the series with this label (default: sum "
      "them, with a note)" },
    { .name = "--since", .metavar = "FILE", .help = "prometheus: an earlier scrape; fit the counts between the two" },
    { .name = "--gamma", .metavar = "G", .help = "the draft length (speculative tokens per draft), for every format: "
      "required where the input does not state it (it says so), checked against the input where it does",
      .domain = &FIT_GAMMA },
    { .name = "--gamma-max", .metavar = "N", .help = "predict gamma = 1..N (default 2 x the measured gamma)",
      .domain = &GAMMA_MAX },
    { .name = "--cost", .metavar = "C", .help = "draft/target cost ratio: improvement = E(N) / (1 + gamma c), eq. "
      "(10), and the recommended gamma (default: no cost, E(N) only)", .domain = &ONE_COST },
    { .name = "--target", .metavar = "NAME", .help = "roofline presets instead of --cost: the target model, as for "
      "roofline" },
    { .name = "--draft", .metavar = "NAME", .help = "roofline presets: draft model" },
    { .name = "--hardware", .metavar = "NAME", .help = "roofline presets: accelerator" },
    { .name = "--batch", .metavar = "B", .help = "roofline presets: batch (default {default})", .domain = &CLI_BATCH,
      .dflt = "1" },
    { .name = "--context", .metavar = "S", .help = "roofline presets: context length (default {default})",
      .domain = &CLI_CONTEXT, .dflt = "4096" },
    { .name = "--report", .metavar = "NAME", .help = "{names} (default {default})",
      .dflt = "predictions", .names = sd_fit_report_names },
    { .name = "--level", .metavar = "P", .help = "reject i.i.d. acceptance when the likelihood-ratio test's p < P "
      "(default {default})", .domain = &LEVEL, .lib = CLI_LIB(fit_level, CLI_LIB_DOUBLE) },
    { .name = "--replicates", .metavar = "B", .help = "bootstrap replicates for the intervals, 0 for none (default "
      "{default})", .domain = &REPLICATES, .lib = CLI_LIB(fit_replicates, CLI_LIB_SIZE) },
    { .name = "--seed", .metavar = "S", .help = "the bootstrap's random seed (default {default})", .domain = &CLI_SEED,
      .lib = CLI_LIB(seed, CLI_LIB_U64) },
    { .name = "--export-profile", .metavar = "FILE", .help = "also write the counts as NVIDIA's "
      "speculation_profile.json (schema 1.0; needs per-position counts)" },
    { .name = NULL },
};

const cli_command cmd_fit = {
    .name = "fit",
    .synopsis = "fit FILE [--gamma G] [--cost C | --target T --draft D --hardware H] [--report NAME] ...",
    .summary = "alpha from an engine's counters (Prometheus, vLLM or llama.cpp logs, JSON, TSV), the i.i.d. test, "
               "the best gamma",
    .groups = { FIT_OPTIONS, CLI_COST_OPTIONS },
    .min_pos = 1,
    .max_pos = 1,
    .run = run_fit,
};

/* cmd_fit.c -- `specdec fit`: engine counters to alpha, the i.i.d. test and
 * the predictions (fit.h), costed by eq. (10) or by the roofline presets
 * (an iteration of gamma drafts: gamma draft steps and one verifying
 * target pass, cost.h), whose calibration's draws widen the improvement's
 * interval; and the recommendation as a struct (sd_fit_recommend).  The
 * reports' tables are cmd_fit_table.c's. */
#include "specdec/cmd_fit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_cost_impl.h"

static const sd_domain FIT_GAMMA = { "--gamma", 1, SD_COUNTS_MAX_GAMMA, 1 };
static const sd_domain FIT_GAMMA_MAX = { "--gamma-max", 1, 4096, 1 };
static const sd_domain LEVEL = { "--level", 1e-300, 0.5, 0 };
static const sd_domain REPLICATES = { "--replicates", 0, 100000, 1 };
static const sd_domain ONE_COST = { "--cost", 0, 1e6, 0 };

/* ---- the costs ------------------------------------------------------------------------------ */

/* An iteration of g drafts in target steps, g = 1..n, under the roofline: g c_eff + verify_cost_ratio,
 * the engine's loop included but for the catch-up pass (its E(N) is the fit's to find). */
static void chain_costs(const sd_roofline_request *rq, double batch, double context, size_t n, double *cost)
{
    for (size_t g = 1; g <= n; g++) {
        double c_eff, ratio;
        sd_cost_iteration_ratios(rq, batch, context, (double)g, 1.0, &c_eff, &ratio);
        cost[g - 1] = (double)g * c_eff + ratio;
    }
}

/* The iteration costs and what they came from: --cost, or the presets and their calibration. */
typedef struct {
    double *cost;  /* gamma_max entries; NULL: no cost given */
    int roof;      /* 1: from the presets (p, rq and cc hold them) */
    sd_presets p;
    sd_roofline_request rq;
    sd_cmd_costs cc;
    double *draws; /* ndraws x gamma_max: the costs under the fit's draws (NULL: no fit) */
    size_t ndraws;
} fit_costs;

static void fit_costs_free(fit_costs *fc)
{
    if (fc->roof) {
        sd_cmd_costs_free(&fc->cc);
        sd_presets_free(&fc->p);
    }
    free(fc->cost);
    free(fc->draws);
    memset(fc, 0, sizeof *fc);
}

/* 1 when a cost is given: --cost or the presets. */
static int costed(const sd_command_args *a)
{
    return sd_command_args_given(a, "--cost") || sd_command_args_given(a, "--target") ||
           sd_command_args_given(a, "--draft") || sd_command_args_given(a, "--hardware");
}

/* The presets' costs of gamma' = 1..n into fc, and ndraws cost vectors under the fit's covariance
 * (sd_calibrate_draws) for the improvement's interval. */
static sd_status preset_costs(const sd_command_args *a, size_t n, size_t ndraws, fit_costs *fc, sd_error *err)
{
    double batch, context;
    sd_status st;
    if ((st = sd_command_args_number(a, &SD_CMD_BATCH, &batch, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SD_CMD_CONTEXT, &context, err)) != SD_OK ||
        (st = sd_cmd_cost_presets(a, &fc->p, err)) != SD_OK)
        return st;
    if ((st = sd_cmd_cost_request(a, &fc->p, &fc->rq, &fc->cc, err)) != SD_OK) {
        sd_presets_free(&fc->p);
        return st;
    }
    fc->roof = 1;
    chain_costs(&fc->rq, batch, context, n, fc->cost);
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

/* The cost of an iteration of gamma' drafts in target steps, gamma' = 1..n, into fc (nothing
 * without a cost): eq. (10)'s 1 + gamma' c, or the roofline's gamma' c_eff + verify_cost_ratio
 * with the calibration's terms and its draws (preset_costs).  fc is fit_costs_free'd by the caller. */
static sd_status iteration_costs(const sd_command_args *a, size_t n, size_t ndraws, fit_costs *fc, sd_error *err)
{
    memset(fc, 0, sizeof *fc);
    if (!costed(a))
        return SD_OK;
    if ((fc->cost = malloc(n * sizeof *fc->cost)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    int roof = sd_command_args_given(a, "--target") || sd_command_args_given(a, "--draft") ||
               sd_command_args_given(a, "--hardware");
    if (roof && sd_command_args_given(a, "--cost"))
        return sd_status_fail(err, SD_EINVAL, "fit: give --cost C or --target, --draft and --hardware (roofline "
                              "presets), not both");
    if (roof)
        return preset_costs(a, n, ndraws, fc, err);
    double c;
    sd_status st = sd_command_args_number(a, &ONE_COST, &c, err);
    for (size_t g = 1; g <= n && st == SD_OK; g++)
        fc->cost[g - 1] = sd_theory_cost_factor((double)g, c);
    return st;
}

/* ---- the fit -------------------------------------------------------------------------------- */

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

/* A fit of the request's counters, with its prediction request. */
typedef struct {
    sd_counts c;
    sd_fit f;
    int report;        /* sd_cmd_fit_report */
    fit_costs fc;
    sd_fit_request frq; /* gamma_max, fc's costs, the bootstrap */
} fit_run;

/* The counters read and fitted, --export-profile written (when export is 1), the costs of
 * gamma' = 1..gamma_max; r->fc to free with fit_costs_free, also on failure. */
static sd_status fit_prepare(const sd_command_args *a, int export, fit_run *r, sd_error *err)
{
    sd_counts_options o = { .format = sd_command_args_value(a, "--input-format"),
                            .select = sd_command_args_value(a, "--select"), .since = sd_command_args_value(a, "--since"),
                            .gamma_name = "--gamma" };
    const char *file = sd_command_args_value(a, "FILE");
    double gamma = 0, gamma_max, level, replicates, seed;
    sd_status st;
    memset(r, 0, sizeof *r);
    if ((sd_command_args_given(a, "--gamma") && (st = sd_command_args_number(a, &FIT_GAMMA, &gamma, err)) != SD_OK) ||
        (st = sd_command_args_number(a, &LEVEL, &level, err)) != SD_OK ||
        (st = sd_command_args_number(a, &REPLICATES, &replicates, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SD_CMD_SEED, &seed, err)) != SD_OK ||
        (st = sd_command_args_choice(a, "--report", NULL, &r->report, err)) != SD_OK)
        return st;
    if (file == NULL)
        return sd_status_fail(err, SD_EINVAL, "FILE is required; see 'specdec fit --help'");
    o.gamma = (size_t)gamma;
    if ((st = sd_counters_load(file, &o, &r->c, err)) != SD_OK ||
        (st = sd_fit_counts(&r->c, level, &r->f, err)) != SD_OK)
        return st;
    if (export && sd_command_args_given(a, "--export-profile") &&
        (st = export_profile(sd_command_args_value(a, "--export-profile"), &r->c, err)) != SD_OK)
        return st;
    gamma_max = 2.0 * (double)r->c.gamma; /* the default: twice the measured draft length */
    if (sd_command_args_given(a, "--gamma-max") &&
        (st = sd_command_args_number(a, &FIT_GAMMA_MAX, &gamma_max, err)) != SD_OK)
        return st;
    /* as many cost draws as replicates, one for each (a gauge, without replicates: the band's draws) */
    size_t ndraws = replicates > 0 ? (size_t)replicates : SD_CALIBRATE_BAND_DRAWS;
    if ((st = iteration_costs(a, (size_t)gamma_max, ndraws, &r->fc, err)) != SD_OK)
        return st;
    r->frq = (sd_fit_request){ .gamma_max = (size_t)gamma_max, .cost = r->fc.cost, .replicates = (size_t)replicates,
                               .seed = (uint64_t)seed, .cost_draws = r->fc.draws, .ncost_draws = r->fc.ndraws };
    return SD_OK;
}

static sd_status run_fit(const sd_command_args *a, sd_table **out, sd_error *err)
{
    fit_run r;
    sd_table *t = NULL;
    sd_status st = fit_prepare(a, 1, &r, err);
    if (st == SD_OK)
        st = sd_cmd_fit_report_table(&r.c, &r.f, &r.frq, (sd_cmd_fit_report)r.report, &t, err);
    if (st == SD_OK && r.fc.roof && r.report != SD_CMD_FIT_REPORT_POSITIONS)
        st = sd_cmd_costs_note(a, &r.fc.cc, &r.fc.rq, 0, t, err);
    if (st == SD_OK && r.fc.draws != NULL && r.report != SD_CMD_FIT_REPORT_POSITIONS)
        st = sd_table_note(t, err, "the improvement's interval holds the cost terms' uncertainty too: each "
                           "bootstrap replicate is divided by the costs at one draw of the fitted terms.");
    fit_costs_free(&r.fc);
    return sd_command_finish(st, NULL, 0, t, out);
}

/* ---- the recommendation --------------------------------------------------------------------- */

/* The recommendation of a's counters and costs: the predictions (sd_fit_predict) and fit.h's rule. */
static sd_status run_recommend(const sd_command_args *a, sd_fit_recommend *out, sd_error *err)
{
    fit_run r = { .report = 0 };
    sd_fit_prediction *p = NULL;
    sd_status st = costed(a) ? fit_prepare(a, 0, &r, err)
                             : sd_status_fail(err, SD_EINVAL, "--cost: the recommendation needs a cost: give --cost "
                                              "C or --target, --draft and --hardware (roofline presets)");
    if (st == SD_OK && (p = malloc(r.frq.gamma_max * sizeof *p)) == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    if (st == SD_OK && (st = sd_fit_predict(&r.c, &r.f, &r.frq, p, err)) == SD_OK)
        st = sd_fit_recommend_points(p, r.frq.gamma_max, out, err);
    free(p);
    fit_costs_free(&r.fc);
    return st;
}

/* ---- the calls and the row ------------------------------------------------------------------ */

sd_cmd_fit_request sd_cmd_fit_defaults(void)
{
    return (sd_cmd_fit_request){ .input_format = -1, .gamma = NAN, .gamma_max = NAN, .cost_ratio = NAN,
                                 .batch = NAN, .context = NAN, .report = -1, .level = NAN, .replicates = NAN,
                                 .seed = NAN, .cost = sd_cmd_cost_defaults() };
}

sd_status sd_cmd_fit_table(const sd_cmd_fit_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_fit, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_fit, rq, err);
    return sd_command_end(&sd_cmd_fit, st == SD_OK ? run_fit(&a, out, err) : st, err);
}

sd_status sd_cmd_fit_recommend(const sd_cmd_fit_request *rq, sd_fit_recommend *out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_fit, .req = rq };
    sd_status st = sd_command_check(&sd_cmd_fit, rq, err);
    return sd_command_end(&sd_cmd_fit, st == SD_OK ? run_recommend(&a, out, err) : st, err);
}

#define R sd_cmd_fit_request
static const sd_command_field FIELDS[] = {
    { .name = "FILE", SD_FIELD(R, file, TEXT), .position = 1, .metavar = "FILE", .help = "the engine's counters, in "
      "a format of --input-format" },
    { .name = "--input-format", SD_FIELD(R, input_format, CHOICE), .metavar = "NAME", .help = "{names} (default: "
      "detected)", .names = sd_counters_formats },
    { .name = "--select", SD_FIELD(R, select, TEXT), .metavar = "LABEL=VALUE", .help = "prometheus: keep the series "
      "with this label (default: sum them, with a note)" },
    { .name = "--since", SD_FIELD(R, since, TEXT), .metavar = "FILE", .help = "prometheus: an earlier scrape; fit the "
      "counts between the two" },
    { .name = "--gamma", SD_FIELD(R, gamma, REAL), .metavar = "G", .help = "the draft length (speculative tokens per "
      "draft), for every format: required where the input does not state it (it says so), checked against the input "
      "where it does", .domain = &FIT_GAMMA },
    { .name = "--gamma-max", SD_FIELD(R, gamma_max, REAL), .metavar = "N", .help = "predict gamma = 1..N (default 2 x "
      "the measured gamma)", .domain = &FIT_GAMMA_MAX },
    { .name = "--cost", SD_FIELD(R, cost_ratio, REAL), .metavar = "C", .help = "draft/target cost ratio: improvement "
      "= E(N) / (1 + gamma c), eq. (10), and the recommended gamma (default: no cost, E(N) only)",
      .domain = &ONE_COST },
    { .name = "--target", SD_FIELD(R, target, TEXT), .metavar = "NAME", .help = "roofline presets instead of --cost: "
      "the target model, as for roofline" },
    { .name = "--draft", SD_FIELD(R, draft, TEXT), .metavar = "NAME", .help = "roofline presets: draft model" },
    { .name = "--hardware", SD_FIELD(R, hardware, TEXT), .metavar = "NAME", .help = "roofline presets: accelerator" },
    { .name = "--batch", SD_FIELD(R, batch, REAL), .metavar = "B", .help = "roofline presets: batch (default "
      "{default})", .domain = &SD_CMD_BATCH, .dflt = "1" },
    { .name = "--context", SD_FIELD(R, context, REAL), .metavar = "S", .help = "roofline presets: context length "
      "(default {default})", .domain = &SD_CMD_CONTEXT, .dflt = "4096" },
    { .name = "--report", SD_FIELD(R, report, CHOICE), .metavar = "NAME", .help = "{names} (default {default})",
      .dflt = "predictions", .names = sd_cmd_fit_report_names },
    { .name = "--level", SD_FIELD(R, level, REAL), .metavar = "P", .help = "reject i.i.d. acceptance when the "
      "likelihood-ratio test's p < P (default {default})", .domain = &LEVEL, SD_LIB(fit_level, DOUBLE) },
    { .name = "--replicates", SD_FIELD(R, replicates, REAL), .metavar = "B", .help = "bootstrap replicates for the "
      "intervals, 0 for none (default {default})", .domain = &REPLICATES, SD_LIB(fit_replicates, SIZE) },
    { .name = "--seed", SD_FIELD(R, seed, REAL), .metavar = "S", .help = "the bootstrap's random seed (default "
      "{default})", .domain = &SD_CMD_SEED, SD_LIB(seed, U64) },
    { .name = "--export-profile", SD_FIELD(R, export_profile, TEXT), .metavar = "FILE", .help = "also write the "
      "counts as NVIDIA's speculation_profile.json (schema 1.0; needs per-position counts)" },
    { .name = NULL },
};
#undef R

SD_COMMAND_CALLS(fit)
const sd_command sd_cmd_fit = {
    SD_COMMAND_ROW_DATA(fit),
    .usage = "fit FILE [--gamma G] [--cost C | --target T --draft D --hardware H] [--report NAME] ...",
    .summary = "alpha from an engine's counters (Prometheus, vLLM or llama.cpp logs, JSON, TSV), the i.i.d. test, "
               "the best gamma",
    .groups = { FIELDS, SD_CMD_COST_FIELDS },
    .base = { 0, offsetof(sd_cmd_fit_request, cost) },
    SD_COMMANDS_LIBRARY,
};

/* cmd_cost.c -- the cost model's options, which every command costed by the
 * roofline presets (roofline, tree, fit, serving) reads alike: the pair and the
 * accelerator, the granularity, --tp, the draft's KV window, --graphs, the calibration that applies
 * to each model (calibrate.h) or the terms by hand (cost.h); and --counts, the acceptance per
 * position fitted to an engine's counters. */
#include "cmd_cost_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const sd_domain ETA_F = { "--eta-flops", 1e-3, 1, 0 };
static const sd_domain ETA_BW = { "--eta-bw", 1e-3, 1, 0 };
static const sd_domain OVERHEAD = { "--overhead", 0, 1, 0 };
static const sd_domain TP = { "--tp", 1, 1024, 1 };

sd_status sd_cmd_cost_params(const sd_command_args *a, int etas, sd_cost_params *cp, sd_error *err)
{
    int gran;
    sd_status st;
    if ((st = sd_command_args_choice(a, "--granularity", NULL, &gran, err)) != SD_OK)
        return st;
    cp->granularity = (sd_granularity)gran;
    if (!etas)
        return SD_OK;
    if ((st = sd_command_args_number(a, &ETA_F, &cp->eta_flops, err)) != SD_OK ||
        (st = sd_command_args_number(a, &ETA_BW, &cp->eta_bw, err)) != SD_OK)
        return st;
    return sd_command_args_number(a, &OVERHEAD, &cp->overhead, err);
}

const sd_domain SD_CMD_LAUNCH = { "--launch", 0, 1, 0 };
static const sd_domain WINDOW = { "--draft-kv-window", 1, 16777216, 1 };

static sd_status load_calibration(const sd_command_args *a, sd_calibration **fits, size_t *n, sd_error *err)
{
    const char *given = sd_command_args_value(a, "--calibration");
    return given != NULL ? sd_calibrate_load(given, fits, n, err) : sd_calibrate_load_defaults(sd_command_args_data_dir(a), fits, n, err);
}

static sd_status calibrated(const sd_command_args *a, const sd_calibration *fits, size_t n, const sd_model_spec *m,
                         const sd_hardware *h, sd_cost_params *cp, const sd_calibration **used, sd_error *err)
{
    sd_status st;
    int graphs = 1;
    *cp = sd_cost_defaults();
    *used = NULL;
    if ((st = sd_command_args_number(a, &TP, &cp->tp, err)) != SD_OK || (st = sd_cmd_cost_params(a, 0, cp, err)) != SD_OK)
        return st;
    if (sd_command_args_given(a, "--graphs") && (st = sd_command_args_choice(a, "--graphs", NULL, &graphs, err)) != SD_OK)
        return st;
    cp->graphs = graphs;
    if (cp->granularity == SD_GRANULARITY_OPERATOR || sd_command_args_given(a, "--calibration")) {
        const sd_calibration *c = sd_calibrate_find(fits, n, m, h);
        if (c != NULL && strcmp(c->granularity, sd_cost_granularity_names()[cp->granularity]) != 0)
            return sd_status_fail(err, SD_EINVAL, "--calibration: %s fitted %s on %s with granularity %s, not %s; give "
                                  "--granularity %s", sd_command_args_value(a, "--calibration"), c->model, c->hardware,
                                  c->granularity, sd_cost_granularity_names()[cp->granularity], c->granularity);
        if (c != NULL)
            sd_calibrate_apply(c, cp);
        *used = c;
    }
    int hand = sd_command_args_given(a, "--eta-flops") || sd_command_args_given(a, "--eta-bw") || sd_command_args_given(a, "--overhead") ||
               sd_command_args_given(a, "--launch");
    if (hand && sd_command_args_given(a, "--calibration"))
        return sd_status_fail(err, SD_EINVAL, "--calibration: give it or --eta-flops, --eta-bw, --launch and "
                              "--overhead, not both");
    if (hand) {
        *used = NULL; /* terms set by hand, over the uncalibrated defaults: no fit's uncertainty applies */
        sd_cost_params keep = *cp;
        *cp = sd_cost_defaults();
        cp->tp = keep.tp;
        cp->granularity = keep.granularity;
        cp->graphs = keep.graphs;
        if ((st = sd_cmd_cost_params(a, 1, cp, err)) != SD_OK)
            return st;
        if (sd_command_args_given(a, "--launch") && (st = sd_command_args_number(a, &SD_CMD_LAUNCH, &cp->launch, err)) == SD_OK)
            cp->launch_eager = fmax(cp->launch_eager, cp->launch);
    }
    return st;
}

/* --engine: the profile of the pair's drafter kind into rq->loop (none given: the roofline alone). */
static sd_status engine_profile(const sd_command_args *a, sd_roofline_request *rq, sd_cmd_costs *c, sd_error *err)
{
    const char *file = sd_command_args_value(a, "--engine-profiles");
    if (!sd_command_args_given(a, "--engine"))
        return file != NULL ? sd_status_fail(err, SD_EINVAL, "--engine-profiles: goes with --engine") : SD_OK;
    sd_status st = file != NULL ? sd_loop_load(file, &c->profiles, &c->nprofiles, err)
                                : sd_loop_load_defaults(sd_command_args_data_dir(a), &c->profiles, &c->nprofiles, err);
    if (st == SD_OK && (st = sd_loop_find(c->profiles, c->nprofiles, "--engine", sd_command_args_value(a, "--engine"),
                                          sd_loop_drafter_of(rq->target, rq->draft), &c->profile, err)) == SD_OK)
        rq->loop = c->profile->p;
    return st;
}

/* The draft: 'same' (the target), 'ngram', a drafter head built from the target (presets.h, into
 * c->drafter), or a preset. */
static sd_status pick_draft(const sd_presets *p, const char *draft, sd_roofline_request *rq, sd_cmd_costs *c,
                            sd_error *err)
{
    if (draft != NULL && strcmp(draft, "same") == 0)
        rq->draft = rq->target;
    else if (draft != NULL && strcmp(draft, "ngram") == 0)
        rq->draft = sd_presets_ngram();
    else {
        for (const char *const *k = sd_presets_drafter_names(); draft != NULL && *k != NULL; k++)
            if (strcmp(draft, *k) == 0) {
                rq->draft = &c->drafter;
                return sd_presets_drafter(rq->target, "--draft", draft, &c->drafter, err);
            }
        return sd_presets_model(p, "draft", draft, &rq->draft, err);
    }
    return SD_OK;
}

sd_status sd_cmd_cost_presets(const sd_command_args *a, sd_presets *p, sd_error *err)
{
    return sd_presets_load(sd_command_args_data_dir(a), sd_command_args_value(a, "--models-file"), sd_command_args_value(a, "--hardware-file"), p, err);
}

sd_status sd_cmd_cost_request(const sd_command_args *a, const sd_presets *p, sd_roofline_request *rq, sd_cmd_costs *c,
                               sd_error *err)
{
    return sd_cmd_cost_request_for(a, p, sd_command_args_value(a, "--draft"), rq, c, err);
}

sd_status sd_cmd_cost_request_for(const sd_command_args *a, const sd_presets *p, const char *draft,
                                  sd_roofline_request *rq, sd_cmd_costs *c, sd_error *err)
{
    sd_status st;
    memset(c, 0, sizeof *c);
    *rq = sd_cost_roofline_defaults();
    if ((st = sd_presets_model(p, "target", sd_command_args_value(a, "--target"), &rq->target, err)) != SD_OK ||
        (st = pick_draft(p, draft, rq, c, err)) != SD_OK ||
        (st = sd_presets_hardware(p, "hardware", sd_command_args_value(a, "--hardware"), &rq->hardware, err)) != SD_OK ||
        (st = sd_presets_check(rq->target, rq->hardware, err)) != SD_OK ||
        (st = sd_presets_check(rq->draft, rq->hardware, err)) != SD_OK ||
        (st = load_calibration(a, &c->fits, &c->nfits, err)) != SD_OK)
        return st;
    if ((st = calibrated(a, c->fits, c->nfits, rq->target, rq->hardware, &rq->params, &c->fit, err)) != SD_OK ||
        (st = calibrated(a, c->fits, c->nfits, rq->draft, rq->hardware, &rq->draft_params, &c->draft_fit,
                             err)) != SD_OK) {
        sd_cmd_costs_free(c);
        return st;
    }
    if (sd_command_args_given(a, "--calibration") && c->fit == NULL) {
        st = sd_status_fail(err, SD_EINVAL, "--calibration: %s holds no fit for %s on %s", sd_command_args_value(a, "--calibration"),
                            rq->target->name, rq->hardware->name);
        sd_cmd_costs_free(c);
        return st;
    }
    if (c->fit != NULL && c->draft_fit == NULL) {
        rq->draft_params = rq->params; /* a draft not measured: the target's fit, and a note says so */
        c->draft_fit = c->fit;
        c->draft_borrowed = 1;
    }
    if ((sd_command_args_given(a, "--draft-kv-window") &&
         (st = sd_command_args_number(a, &WINDOW, &rq->draft_window, err)) != SD_OK) ||
        (st = engine_profile(a, rq, c, err)) != SD_OK)
        sd_cmd_costs_free(c);
    return st;
}

/* One fit named: "cost-defaults.tsv's fit for hopper (45 rows, leave-one-out median error 7%, worst 40%)". */
/* The file named by option, else the shipped one: its name alone (where it lies is the user's). */
static const char *file_name(const sd_command_args *a, const char *option, const char *shipped)
{
    const char *file = sd_command_args_given(a, option) ? sd_command_args_value(a, option) : shipped;
    const char *slash = strrchr(file, '/');
    return slash != NULL ? slash + 1 : file;
}

static void fit_text(const sd_command_args *a, const sd_calibration *f, char *buf, size_t size)
{
    const char *file = file_name(a, "--calibration", "cost-defaults.tsv");
    char who[160];
    if (strcmp(f->model, "*") != 0)
        snprintf(who, sizeof who, "%s on %s", f->model, f->hardware);
    else
        snprintf(who, sizeof who, "%s", strcmp(f->hardware, "*") == 0 ? "all hardware" : f->hardware);
    snprintf(buf, size, "%s's fit for %s (%zu rows, leave-one-out median error %.0f%%, worst %.0f%%)", file, who,
             f->rows, 100 * f->loo_median, 100 * f->loo_max);
}

/* The engine profile's terms, when one applies (loop.h). */
static sd_status loop_note(const sd_command_args *a, const sd_cmd_costs *c, const sd_roofline_request *rq,
                           sd_table *t, sd_error *err)
{
    const sd_loop_profile *f = c->profile;
    if (f == NULL)
        return SD_OK;
    const sd_loop_params *p = &f->p;
    const char *drafter = sd_loop_drafter_of(rq->target, rq->draft);
    return sd_table_note(t, err, "loop time: %s's profile %s %s (%s, source %s): draft step %.3g ms + %.3g "
                         "us a sequence, iteration %.3g ms + %.3g us a verified token, host %.3g us a sequence a "
                         "step, verify premium %.3g%%, catch-up pass %s; priors from public measurements, not fitted.",
                         f->engine, strcmp(f->drafter, "*") == 0 ? "for every drafter kind, here" : "for drafter kind", drafter,
                         file_name(a, "--engine-profiles", "engine-profiles.tsv"), f->source, 1e3 * p->draft_step, 1e6 * p->draft_step_seq,
                         1e3 * p->iteration, 1e6 * p->iteration_token, 1e6 * p->host_seq, 100 * p->verify_premium,
                         p->catch_up ? "on" : "off");
}

sd_status sd_cmd_costs_note(const sd_command_args *a, const sd_cmd_costs *c, const sd_roofline_request *rq, int band, sd_table *t,
                         sd_error *err)
{
    char ft[320], fd[320];
    int hand = sd_command_args_given(a, "--eta-flops") || sd_command_args_given(a, "--eta-bw") || sd_command_args_given(a, "--overhead") ||
               sd_command_args_given(a, "--launch");
    const char *none = hand ? "set by hand over the uncalibrated defaults" : "the uncalibrated defaults (no fit applies)";
    if (c->fit == NULL)
        return sd_table_note(t, err, "cost terms: %s%s.", none, band ? ", so no band (the _lo and _hi columns are '-')"
                                                                     : "");
    fit_text(a, c->fit, ft, sizeof ft);
    sd_status st = band ? sd_table_note(t, err, "cost terms: %s; _lo and _hi: the 90%% band over %d draws of the "
                                        "fitted terms from their covariance (the terms' uncertainty, not the model's "
                                        "error).", ft, SD_CALIBRATE_BAND_DRAWS)
                        : sd_table_note(t, err, "cost terms: %s.", ft);
    if (st == SD_OK && c->draft_fit != c->fit) {
        fit_text(a, c->draft_fit, fd, sizeof fd);
        st = sd_table_note(t, err, "the draft's cost terms: %s.", fd);
    }
    if (st == SD_OK && c->draft_borrowed)
        st = sd_table_note(t, err, "the calibration has no fit for %s on %s: the draft uses %s's.", rq->draft->name,
                           rq->hardware->name, rq->target->name);
    return st == SD_OK ? loop_note(a, c, rq, t, err) : st;
}

void sd_cmd_costs_free(sd_cmd_costs *c)
{
    free(c->fits);
    free(c->profiles);
    memset(c, 0, sizeof *c);
}

static const char *const ONOFF[] = { "off", "on", NULL };
static const char *const *onoff_names(void) { return ONOFF; }

#define C sd_cmd_cost_options
const sd_command_field SD_CMD_COST_FIELDS[] = {
    { .name = "--granularity", SD_FIELD(C, granularity, CHOICE), .metavar = "G", .help = "operator (one roofline per operator) or pass (one per forward "
      "pass) (default {default})", SD_LIB(cost.granularity, ENUM), .names = sd_cost_granularity_names },
    { .name = "--tp", SD_FIELD(C, tp, REAL), .metavar = "N", .help = "tensor-parallel GPUs, in {range}: weights and KV heads split, two "
      "all-reduces a layer (default {default})", .domain = &TP, SD_LIB(cost.tp, DOUBLE) },
    { .name = "--draft-kv-window", SD_FIELD(C, draft_kv_window, REAL), .metavar = "W", .help = "the draft reads at most W cached tokens (StreamingLLM-"
      "style; default: all)", .domain = &WINDOW },
    { .name = "--graphs", SD_FIELD(C, graphs, CHOICE), .metavar = "on|off", .help = "passes run as CUDA graphs (launch cost per kernel) or eagerly "
      "(default on)", .names = onoff_names },
    { .name = "--eta-flops", SD_FIELD(C, eta_flops, REAL), .metavar = "X", .help = "fraction of peak FLOP/s reached, in {range} (default: the "
      "calibration's; without one {default})", .domain = &ETA_F, SD_LIB(cost.eta_flops, DOUBLE) },
    { .name = "--eta-bw", SD_FIELD(C, eta_bw, REAL), .metavar = "X", .help = "fraction of peak bandwidth reached, in {range} (default: the "
      "calibration's; without one {default})", .domain = &ETA_BW, SD_LIB(cost.eta_bw, DOUBLE) },
    { .name = "--overhead", SD_FIELD(C, overhead, REAL), .metavar = "SEC", .help = "fixed time per forward pass t0, seconds, in {range} (default: "
      "the calibration's; without one {default})", .domain = &OVERHEAD, SD_LIB(cost.overhead, DOUBLE) },
    { .name = "--launch", SD_FIELD(C, launch, REAL), .metavar = "SEC", .help = "time per kernel launched, seconds, in {range} (default: the "
      "calibration's)", .domain = &SD_CMD_LAUNCH },
    { .name = "--calibration", SD_FIELD(C, calibration, TEXT), .metavar = "FILE", .help = "the cost terms per model and hardware or family as "
      "roofline saves them, instead of the shipped cost-defaults.tsv (operator granularity; pass granularity "
      "uses none unless given)" },
    { .name = "--engine", SD_FIELD(C, engine, TEXT), .metavar = "NAME", .help = "the serving engine whose "
      "speculation loop adds its own time: draft-step floor, per-iteration and per-sequence host time, catch-up "
      "pass, verify premium (a profile of engine-profiles.tsv, e.g. vllm-v1; default none: the roofline alone)" },
    { .name = "--engine-profiles", SD_FIELD(C, engine_profiles, TEXT), .metavar = "FILE", .help = "--engine: the "
      "profiles instead of the shipped engine-profiles.tsv" },
    { .name = NULL },
};
#undef C

const sd_domain SD_CMD_COUNTS_GAMMA = { "--counts-gamma", 1, SD_COUNTS_MAX_GAMMA, 1 };

sd_status sd_cmd_cost_fitted_acceptance(const sd_command_args *a, size_t top, sd_list *acc, sd_error *err)
{
    double g = 0;
    sd_counts c;
    sd_fit f;
    sd_status st;
    if (sd_command_args_given(a, "--counts-gamma") && (st = sd_command_args_number(a, &SD_CMD_COUNTS_GAMMA, &g, err)) != SD_OK)
        return st;
    const sd_counts_options opt = { .gamma = (size_t)g, .gamma_name = "--counts-gamma" };
    if ((st = sd_counters_load(sd_command_args_value(a, "--counts"), &opt, &c, err)) != SD_OK ||
        (st = sd_fit_counts(&c, SD_FIT_LEVEL, &f, err)) != SD_OK)
        return st;
    if ((acc->v = malloc(top * sizeof *acc->v)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    acc->n = top;
    double prev = 1.0, e_prev = 1.0;
    for (size_t k = 1; k <= acc->n; k++) {
        double e = sd_fit_expected_tokens(&f, f.chosen, k), surv = e - e_prev;
        acc->v[k - 1] = prev > 0.0 ? fmin(1.0, fmax(0.0, surv / prev)) : 0.0;
        prev = surv;
        e_prev = e;
    }
    return SD_OK;
}

sd_status sd_cmd_cost_band(const sd_roofline_request *draws, size_t ndraws, double q, sd_cmd_cost_prediction f,
                           const void *arg, double *lo, double *hi, sd_error *err)
{
    if (ndraws == 0 || !(q > 0.0 && q < 0.5))
        return sd_status_fail(err, SD_EINVAL, "band: %zu draws at quantile %g; give draws and q in (0, 0.5)", ndraws,
                              q);
    double *v = malloc(ndraws * sizeof *v);
    if (v == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t k = 0; k < ndraws; k++)
        v[k] = f(&draws[k], arg);
    sd_calibrate_band_quantiles(v, ndraws, q, lo, hi); /* every band's quantiles, sd_calibrate_band's too */
    free(v);
    return SD_OK;
}

sd_cmd_cost_options sd_cmd_cost_defaults(void)
{
    return (sd_cmd_cost_options){ .granularity = -1, .tp = NAN, .draft_kv_window = NAN, .graphs = -1,
                                  .eta_flops = NAN, .eta_bw = NAN, .overhead = NAN, .launch = NAN,
                                  .calibration = NULL, .engine = NULL, .engine_profiles = NULL };
}

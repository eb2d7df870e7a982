/* opt_cost.c -- the cost model's options, which every command costed by the
 * roofline presets (roofline, tree, fit) reads alike: the pair and the
 * accelerator, the granularity, --tp, the draft's KV window, --graphs, the calibration that applies
 * to each model (calibrate.h) or the terms by hand (cost.h). */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const sd_domain CLI_ETA_F = { "--eta-flops", 1e-3, 1, 0 };
const sd_domain CLI_ETA_BW = { "--eta-bw", 1e-3, 1, 0 };
const sd_domain CLI_OVERHEAD = { "--overhead", 0, 1, 0 };
const sd_domain CLI_TP = { "--tp", 1, 1024, 1 };

sd_status cli_cost_params(const cli_args *a, int etas, sd_cost_params *cp, sd_error *err)
{
    int gran;
    sd_status st;
    if ((st = cli_choice(a, "--granularity", NULL, &gran, err)) != SD_OK)
        return st;
    cp->granularity = (sd_granularity)gran;
    if (!etas)
        return SD_OK;
    if ((st = cli_number(a, &CLI_ETA_F, &cp->eta_flops, err)) != SD_OK ||
        (st = cli_number(a, &CLI_ETA_BW, &cp->eta_bw, err)) != SD_OK)
        return st;
    return cli_number(a, &CLI_OVERHEAD, &cp->overhead, err);
}

const sd_domain CLI_LAUNCH = { "--launch", 0, 1, 0 };
static const sd_domain WINDOW = { "--draft-kv-window", 1, 16777216, 1 };

sd_status cli_load_calibration(const cli_args *a, sd_calibration **fits, size_t *n, sd_error *err)
{
    const char *given = cli_value(a, "--calibration");
    return given != NULL ? sd_calibrate_load(given, fits, n, err) : sd_calibrate_load_defaults(a->data_dir, fits, n, err);
}

sd_status cli_calibrated(const cli_args *a, const sd_calibration *fits, size_t n, const sd_model_spec *m,
                         const sd_hardware *h, sd_cost_params *cp, const sd_calibration **used, sd_error *err)
{
    sd_status st;
    int graphs = 1;
    static const char *const ONOFF[] = { "off", "on", NULL };
    *cp = sd_cost_defaults();
    *used = NULL;
    if ((st = cli_number(a, &CLI_TP, &cp->tp, err)) != SD_OK || (st = cli_cost_params(a, 0, cp, err)) != SD_OK)
        return st;
    if (cli_given(a, "--graphs") && (st = cli_choice(a, "--graphs", ONOFF, &graphs, err)) != SD_OK)
        return st;
    cp->graphs = graphs;
    if (cp->granularity == SD_GRANULARITY_OPERATOR || cli_given(a, "--calibration")) {
        const sd_calibration *c = sd_calibrate_find(fits, n, m, h);
        if (c != NULL && strcmp(c->granularity, sd_cost_granularity_names()[cp->granularity]) != 0)
            return sd_status_fail(err, SD_EINVAL, "--calibration: %s fitted %s on %s with granularity %s, not %s; give "
                                  "--granularity %s", cli_value(a, "--calibration"), c->model, c->hardware,
                                  c->granularity, sd_cost_granularity_names()[cp->granularity], c->granularity);
        if (c != NULL)
            sd_calibrate_apply(c, cp);
        *used = c;
    }
    int hand = cli_given(a, "--eta-flops") || cli_given(a, "--eta-bw") || cli_given(a, "--overhead") ||
               cli_given(a, "--launch");
    if (hand && cli_given(a, "--calibration"))
        return sd_status_fail(err, SD_EINVAL, "--calibration: give it or --eta-flops, --eta-bw, --launch and "
                              "--overhead, not both");
    if (hand) {
        *used = NULL; /* terms set by hand, over the uncalibrated defaults: no fit's uncertainty applies */
        sd_cost_params keep = *cp;
        *cp = sd_cost_defaults();
        cp->tp = keep.tp, cp->granularity = keep.granularity, cp->graphs = keep.graphs;
        if ((st = cli_cost_params(a, 1, cp, err)) != SD_OK)
            return st;
        if (cli_given(a, "--launch") && (st = cli_number(a, &CLI_LAUNCH, &cp->launch, err)) == SD_OK)
            cp->launch_eager = fmax(cp->launch_eager, cp->launch);
    }
    return st;
}

sd_status cli_presets_load(const cli_args *a, sd_presets *p, sd_error *err)
{
    return sd_presets_load(a->data_dir, cli_value(a, "--models-file"), cli_value(a, "--hardware-file"), p, err);
}

sd_status cli_roofline_request(const cli_args *a, const sd_presets *p, sd_roofline_request *rq, cli_costs *c,
                               sd_error *err)
{
    const char *draft = cli_value(a, "--draft");
    sd_status st;
    memset(c, 0, sizeof *c);
    *rq = sd_cost_roofline_defaults();
    if ((st = sd_presets_model(p, "target", cli_value(a, "--target"), &rq->target, err)) != SD_OK ||
        (draft != NULL && strcmp(draft, "same") == 0    ? (rq->draft = rq->target, SD_OK)
         : draft != NULL && strcmp(draft, "ngram") == 0 ? (rq->draft = sd_presets_ngram(), SD_OK)
                                                        : (st = sd_presets_model(p, "draft", draft, &rq->draft, err))) !=
            SD_OK ||
        (st = sd_presets_hardware(p, "hardware", cli_value(a, "--hardware"), &rq->hardware, err)) != SD_OK ||
        (st = sd_presets_check(rq->target, rq->hardware, err)) != SD_OK ||
        (st = sd_presets_check(rq->draft, rq->hardware, err)) != SD_OK ||
        (st = cli_load_calibration(a, &c->fits, &c->nfits, err)) != SD_OK)
        return st;
    if ((st = cli_calibrated(a, c->fits, c->nfits, rq->target, rq->hardware, &rq->params, &c->fit, err)) != SD_OK ||
        (st = cli_calibrated(a, c->fits, c->nfits, rq->draft, rq->hardware, &rq->draft_params, &c->draft_fit,
                             err)) != SD_OK) {
        cli_costs_free(c);
        return st;
    }
    if (cli_given(a, "--calibration") && c->fit == NULL) {
        st = sd_status_fail(err, SD_EINVAL, "--calibration: %s holds no fit for %s on %s", cli_value(a, "--calibration"),
                            rq->target->name, rq->hardware->name);
        cli_costs_free(c);
        return st;
    }
    if (c->fit != NULL && c->draft_fit == NULL) {
        rq->draft_params = rq->params; /* a draft not measured: the target's fit, and a note says so */
        c->draft_fit = c->fit;
        c->draft_borrowed = 1;
    }
    if (cli_given(a, "--draft-kv-window") && (st = cli_number(a, &WINDOW, &rq->draft_window, err)) != SD_OK)
        cli_costs_free(c);
    return st;
}

/* One fit named: "cost-defaults.tsv's fit for hopper (45 rows, leave-one-out median error 7%, worst 40%)". */
static void fit_text(const cli_args *a, const sd_calibration *f, char *buf, size_t size)
{
    const char *file = cli_given(a, "--calibration") ? cli_value(a, "--calibration") : "cost-defaults.tsv";
    const char *slash = strrchr(file, '/');
    file = slash != NULL ? slash + 1 : file; /* the file's name: where it lies is the user's */
    char who[160];
    if (strcmp(f->model, "*") != 0)
        snprintf(who, sizeof who, "%s on %s", f->model, f->hardware);
    else
        snprintf(who, sizeof who, "%s", strcmp(f->hardware, "*") == 0 ? "all hardware" : f->hardware);
    snprintf(buf, size, "%s's fit for %s (%zu rows, leave-one-out median error %.0f%%, worst %.0f%%)", file, who,
             f->rows, 100 * f->loo_median, 100 * f->loo_max);
}

sd_status cli_costs_note(const cli_args *a, const cli_costs *c, const sd_roofline_request *rq, int band, sd_table *t,
                         sd_error *err)
{
    char ft[320], fd[320];
    int hand = cli_given(a, "--eta-flops") || cli_given(a, "--eta-bw") || cli_given(a, "--overhead") ||
               cli_given(a, "--launch");
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
    return st;
}

void cli_costs_free(cli_costs *c)
{
    free(c->fits);
    memset(c, 0, sizeof *c);
}

const cli_option CLI_COST_OPTIONS[] = {
    { .name = "--granularity", .metavar = "G", .help = "operator (one roofline per operator) or pass (one per forward "
      "pass) (default {default})", .lib = CLI_LIB(cost.granularity, CLI_LIB_ENUM), .names = sd_cost_granularity_names },
    { .name = "--tp", .metavar = "N", .help = "tensor-parallel GPUs, in {range}: weights and KV heads split, two "
      "all-reduces a layer (default {default})", .domain = &CLI_TP, .lib = CLI_LIB(cost.tp, CLI_LIB_DOUBLE) },
    { .name = "--draft-kv-window", .metavar = "W", .help = "the draft reads at most W cached tokens (StreamingLLM-"
      "style; default: all)", .domain = &WINDOW },
    { .name = "--graphs", .metavar = "on|off", .help = "passes run as CUDA graphs (launch cost per kernel) or eagerly "
      "(default on)" },
    { .name = "--eta-flops", .metavar = "X", .help = "fraction of peak FLOP/s reached, in {range} (default: the "
      "calibration's; without one {default})", .domain = &CLI_ETA_F, .lib = CLI_LIB(cost.eta_flops, CLI_LIB_DOUBLE) },
    { .name = "--eta-bw", .metavar = "X", .help = "fraction of peak bandwidth reached, in {range} (default: the "
      "calibration's; without one {default})", .domain = &CLI_ETA_BW, .lib = CLI_LIB(cost.eta_bw, CLI_LIB_DOUBLE) },
    { .name = "--overhead", .metavar = "SEC", .help = "fixed time per forward pass t0, seconds, in {range} (default: "
      "the calibration's; without one {default})", .domain = &CLI_OVERHEAD, .lib = CLI_LIB(cost.overhead, CLI_LIB_DOUBLE) },
    { .name = "--launch", .metavar = "SEC", .help = "time per kernel launched, seconds, in {range} (default: the "
      "calibration's)", .domain = &CLI_LAUNCH },
    { .name = "--calibration", .metavar = "FILE", .help = "the cost terms per model and hardware or family as "
      "roofline saves them, instead of the shipped cost-defaults.tsv (operator granularity; pass granularity "
      "uses none unless given)" },
    { .name = NULL },
};

const sd_domain CLI_COUNTS_GAMMA = { "--counts-gamma", 1, SD_COUNTS_MAX_GAMMA, 1 };

sd_status cli_fitted_acceptance(const cli_args *a, size_t top, sd_list *acc, sd_error *err)
{
    double g = 0;
    sd_counts c;
    sd_fit f;
    sd_status st;
    if (cli_given(a, "--counts-gamma") && (st = cli_number(a, &CLI_COUNTS_GAMMA, &g, err)) != SD_OK)
        return st;
    const sd_counts_options opt = { .gamma = (size_t)g, .gamma_name = "--counts-gamma" };
    if ((st = sd_counters_load(cli_value(a, "--counts"), &opt, &c, err)) != SD_OK ||
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

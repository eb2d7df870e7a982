/* opt_cost.c -- the cost model's options, which roofline and its --calibrate
 * read alike: the efficiencies, the overhead per pass and the granularity
 * (cost.h); and --tp's domain. */
#include "cli.h"

#include <math.h>
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

sd_status cli_preset_pair(const cli_args *a, sd_presets *p, const sd_model_spec **t, const sd_model_spec **d,
                          const sd_hardware **h, sd_error *err)
{
    sd_status st = sd_presets_load(a->data_dir, NULL, NULL, p, err);
    if (st != SD_OK)
        return st;
    if ((st = sd_presets_model(p, "target", cli_value(a, "--target"), t, err)) != SD_OK ||
        (st = sd_presets_model(p, "draft", cli_value(a, "--draft"), d, err)) != SD_OK ||
        (st = sd_presets_hardware(p, "hardware", cli_value(a, "--hardware"), h, err)) != SD_OK ||
        (st = sd_presets_check(*t, *h, err)) != SD_OK || (st = sd_presets_check(*d, *h, err)) != SD_OK)
        sd_presets_free(p);
    return st;
}

const sd_domain CLI_LAUNCH = { "--launch", 0, 1, 0 };

sd_status cli_load_calibration(const cli_args *a, sd_calibration **fits, size_t *n, sd_error *err)
{
    char path[4096];
    const char *given = cli_value(a, "--calibration");
    sd_status st = SD_OK;
    if (given == NULL && (st = sd_data_find(a->data_dir, "cost-defaults.tsv", path, sizeof path, err)) != SD_OK)
        return st;
    return sd_calibrate_load(given != NULL ? given : path, fits, n, err);
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

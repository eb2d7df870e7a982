/* opt_cost.c -- the cost model's options, which roofline and its --calibrate
 * read alike: the efficiencies, the overhead per pass and the granularity
 * (cost.h); and --tp's domain. */
#include "cli.h"

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

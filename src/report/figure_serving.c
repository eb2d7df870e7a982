/* figure_serving.c -- the serving figure (figure.h): TPOT and goodput against
 * the request rate, with and without speculation (serving.h). */
#include "figure_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/calibrate.h"
#include "specdec/cost.h"
#include "specdec/presets.h"
#include "specdec/serving.h"
#include "specdec/table.h"

static const char *const SV_TARGET = "llama-3.1-70b", *const SV_DRAFT = "llama-3.2-1b", *const SV_HARDWARE = "h100-sxm";
static const double SV_TP = 4, SV_ALPHA = 0.8;
static const double SV_SLO_TTFT = 1.0, SV_SLO_TPOT = 0.03;
enum { SV_RATES = 12, SV_POLICIES = 5 };

sd_status sd_figure_serving(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                            sd_error *err)
{
    (void)variant;
    static const char *const cols[1 + 2 * SV_POLICIES] = {
        "rate",          "TPOT, no speculation", "TPOT, gamma 1", "TPOT, gamma 2", "TPOT, gamma 4", "TPOT, goodput policy",
        "goodput, none", "goodput, gamma 1",     "goodput, gamma 2", "goodput, gamma 4", "goodput, goodput policy" };
    static const struct {
        sd_serving_policy policy;
        size_t gamma;
    } pol[SV_POLICIES] = { { SD_SERVING_NONE, 0 }, { SD_SERVING_FIXED, 1 }, { SD_SERVING_FIXED, 2 },
                           { SD_SERVING_FIXED, 4 }, { SD_SERVING_GOODPUT, 0 } };
    sd_presets p;
    sd_calibration *fits = NULL;
    size_t nfits = 0;
    char where[96];
    snprintf(where, sizeof where, "figure %s", name);
    sd_status st = sd_presets_load(in->data_dir, NULL, NULL, &p, err);
    if (st != SD_OK)
        return st;
    sd_roofline_request rq = sd_cost_roofline_defaults();
    rq.params.tp = rq.draft_params.tp = SV_TP;
    const sd_calibration *c, *cd;
    sd_table *tab = NULL;
    if ((st = sd_presets_model(&p, where, SV_TARGET, &rq.target, err)) == SD_OK &&
        (st = sd_presets_model(&p, where, SV_DRAFT, &rq.draft, err)) == SD_OK &&
        (st = sd_presets_hardware(&p, where, SV_HARDWARE, &rq.hardware, err)) == SD_OK &&
        (st = sd_calibrate_load_defaults(in->data_dir, &fits, &nfits, err)) == SD_OK &&
        (tab = sd_table_alloc(1 + 2 * SV_POLICIES, cols)) == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    out->block[0] = tab;
    out->nblocks = tab != NULL;
    if (st == SD_OK)
        sd_calibrate_apply_request(fits, nfits, &rq, &c, &cd);
    double acc[16];
    for (int k = 0; k < 16; k++)
        acc[k] = SV_ALPHA;
    sd_serving_config sc = sd_serving_defaults(); /* vLLM's scheduler, prompts of 512 and outputs of 256 */
    sc.requests = 3000, sc.warmup = 300, sc.acc = acc, sc.nacc = 16, sc.cost = &rq;
    sc.slo_ttft = SV_SLO_TTFT, sc.slo_tpot = SV_SLO_TPOT;
    /* the rates: up to 1.2 x the saturation rate without speculation (the twin's) */
    double sat = 0;
    sd_serving_result r;
    sc.rate = 0.01, sc.policy = SD_SERVING_NONE;
    if (st == SD_OK)
        st = sd_serving_analytic(&sc, &r, &sat, err);
    for (int i = 1; st == SD_OK && i <= SV_RATES; i++) {
        sd_cell row[1 + 2 * SV_POLICIES];
        sc.rate = sat * 1.2 * i / SV_RATES;
        row[0] = sd_real(sc.rate);
        for (int k = 0; k < SV_POLICIES && st == SD_OK; k++) {
            sc.policy = pol[k].policy, sc.gamma = pol[k].gamma;
            if ((st = sd_serving_simulate(&sc, in->seed, (uint64_t)(i * SV_POLICIES + k), &r, err)) != SD_OK)
                break;
            row[1 + k] = sd_real(r.tpot_mean);
            row[1 + SV_POLICIES + k] = sd_real(r.goodput);
        }
        if (st == SD_OK)
            st = sd_table_add(tab, row, err);
    }
    out->target = SV_TARGET;
    out->draft = SV_DRAFT;
    out->context = sat; /* the saturation rate without speculation, for the script */
    free(fits);
    sd_presets_free(&p);
    return st;
}

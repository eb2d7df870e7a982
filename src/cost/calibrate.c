/* calibrate.c -- the terms a calibration fits (see calibrate.h), their names,
 * and the fits applied: a fit's terms into cost parameters, the fit for a
 * model on a hardware, a request's fits. */
#include "specdec/calibrate.h"
#include "calibrate_impl.h"

#include <string.h>

const sd_calibrate_term_info SD_CALIBRATE_TERMS[SD_CAL_NTERMS] = {
    [SD_CAL_ETA_FLOPS] = { .name = "eta_flops", .offset = offsetof(sd_cost_params, eta_flops), .log = 1, .lo = 1e-3,
                           .hi = 1, .drop = 1 },
    [SD_CAL_ETA_BW] = { .name = "eta_bw", .offset = offsetof(sd_cost_params, eta_bw), .log = 1, .lo = 1e-3, .hi = 1,
                        .drop = 0 },
    [SD_CAL_LAUNCH] = { .name = "launch", .offset = offsetof(sd_cost_params, launch), .lo = 0, .hi = 1, .drop = 2 },
    [SD_CAL_LAUNCH_EAGER] = { .name = "launch_eager", .offset = offsetof(sd_cost_params, launch_eager), .lo = 0,
                              .hi = 1, .drop = 4 },
    [SD_CAL_OVERHEAD] = { .name = "overhead", .offset = offsetof(sd_cost_params, overhead), .lo = 0, .hi = 1,
                          .drop = 3 },
    [SD_CAL_HOP_LATENCY] = { .name = "hop_latency", .offset = offsetof(sd_cost_params, hop_latency), .lo = 0,
                             .hi = 1, .drop = 5 },
};

static const char *const TERM_NAMES[] = { "eta_flops", "eta_bw", "launch", "launch_eager", "overhead", "hop_latency",
                                          NULL };
static const char *const HOLD_NAMES[] = { [SD_CAL_FITTED] = "fitted", [SD_CAL_FIXED] = "fixed",
                                          [SD_CAL_UNUSED] = "unused", [SD_CAL_BOUND] = "bound",
                                          [SD_CAL_WEAK] = "weak", NULL };

const char *const *sd_calibrate_term_names(void) { return TERM_NAMES; }
const char *const *sd_calibrate_hold_names(void) { return HOLD_NAMES; }

void sd_calibrate_apply(const sd_calibration *c, sd_cost_params *cp)
{
    for (int i = 0; i < SD_CAL_NTERMS; i++)
        *sd_calibrate_term(cp, i) = c->value[i];
}

const sd_calibration *sd_calibrate_find(const sd_calibration *fits, size_t n, const sd_model_spec *model,
                                        const sd_hardware *hardware)
{
    const char *family = hardware->family[0] != '\0' ? hardware->family : hardware->name;
    const char *keys[4][2] = { { model->name, hardware->name }, { "*", hardware->name }, { "*", family }, { "*", "*" } };
    for (int k = 0; k < 4; k++)
        for (size_t i = 0; i < n; i++)
            if (strcmp(fits[i].model, keys[k][0]) == 0 && strcmp(fits[i].hardware, keys[k][1]) == 0)
                return &fits[i];
    return NULL;
}

/* The fit for m on rq's hardware when its granularity is rq's, else NULL. */
static const sd_calibration *fit_for(const sd_calibration *fits, size_t n, const sd_model_spec *m,
                                     const sd_roofline_request *rq, sd_granularity g)
{
    const sd_calibration *c = sd_calibrate_find(fits, n, m, rq->hardware);
    return c != NULL && strcmp(c->granularity, sd_cost_granularity_names()[g]) == 0 ? c : NULL;
}

int sd_calibrate_apply_request(const sd_calibration *fits, size_t n, sd_roofline_request *rq,
                               const sd_calibration **c, const sd_calibration **cd)
{
    *c = fit_for(fits, n, rq->target, rq, rq->params.granularity);
    *cd = fit_for(fits, n, rq->draft, rq, rq->draft_params.granularity);
    if (*c != NULL)
        sd_calibrate_apply(*c, &rq->params);
    if (*cd != NULL)
        sd_calibrate_apply(*cd, &rq->draft_params);
    if (*c == NULL || *cd != NULL)
        return 0;
    sd_cost_params keep = rq->draft_params; /* a draft not measured: the target's terms */
    rq->draft_params = rq->params;
    rq->draft_params.tp = keep.tp;
    rq->draft_params.graphs = keep.graphs;
    rq->draft_params.granularity = keep.granularity;
    *cd = *c;
    return 1;
}

/* validate_serving.c -- check 24 of validate (validate_impl.h): the serving
 * simulation against its analytical twin and the single-sequence roofline
 * (serving.h), on the compiled-in pair of validate_impl.h (the uncalibrated
 * cost terms). */
#include "validate_impl.h"

#include <math.h>
#include <stdio.h>

#include "specdec/cost.h"
#include "specdec/serving.h"

const sd_model_spec TARGET_8B = { "llama-3.1-8b", 8.03e9, 8.03e9, 32, 4096, 32, 8, 128, 14336, 128256, 1, 1,
                                         SD_BF16, SD_BF16, SD_BF16, SD_BF16, 0 };
const sd_model_spec DRAFT_1B = { "llama-3.2-1b", 1.23e9, 1.23e9, 16, 2048, 32, 8, 64, 8192, 128256, 1, 1,
                                        SD_BF16, SD_BF16, SD_BF16, SD_BF16, 0 };
const sd_hardware H100_SXM = { "h100-sxm", "hopper",
                                      { [SD_BF16] = 989.4e12, [SD_FP16] = 989.4e12, [SD_FP8] = 1978.9e12,
                                        [SD_INT8] = 1978.9e12 },
                                      3.35e12, 80e9, 450e9, 3e-6 };

/* The relative gap |a / b - 1| (inf when b is 0 or either is NaN). */
static double gap(double a, double b)
{
    double g = fabs(a / b - 1);
    return isfinite(g) ? g : INFINITY;
}

sd_status sd_validate_check_serving(sd_validate_ctx *v, sd_error *err)
{
    sd_roofline_request rq = sd_cost_roofline_defaults();
    rq.target = &TARGET_8B, rq.draft = &DRAFT_1B, rq.hardware = &H100_SXM;
    double acc[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, t[16], p[16], o[16];
    sd_serving_config c = sd_serving_defaults(); /* vLLM's scheduler, prompts of 512 and outputs of 256 */
    c.arrivals = SD_SERVING_TRACE, c.requests = 16, c.warmup = 0, c.policy = SD_SERVING_FIXED, c.gamma = 3;
    c.acc = acc, c.nacc = 8, c.cost = &rq;
    /* the λ -> 0 limit: requests 1000 s apart run alone; at alpha = 1 a decode step emits 4 tokens, so
     * TPOT is the single-sequence roofline's steps at their contexts over output - 1 */
    double want = 0;
    for (int i = 0; i < 16; i++) {
        t[i] = 1000.0 * i, p[i] = 64 + 32 * i, o[i] = 1 + 4 * (4 + i);
        double dec = 0;
        for (double e = 1; e < o[i]; e += 4)
            dec += 3 * sd_cost_step_time(&DRAFT_1B, &H100_SXM, &rq.draft_params, 1, 1, p[i] + e - 1, NULL) +
                   sd_cost_step_time(&TARGET_8B, &H100_SXM, &rq.params, 1, 4, p[i] + e - 1, NULL);
        want += dec / (o[i] - 1) / 16;
    }
    c.trace_time = t, c.trace_prompt = p, c.trace_output = o, c.ntrace = 16;
    sd_serving_result r;
    sd_status st = sd_serving_simulate(&c, v->cfg->seed, 0, &r, err);
    if (st == SD_OK)
        st = sd_validate_exact_row(v, "24. serving: lambda -> 0, TPOT = the single-sequence roofline step / (gamma + 1)",
                                   want, r.tpot_mean, 1e-9 * want, 16, SD_VALIDATE_CHECK, err);
    /* the twin against the simulation at light and moderate load (rates 1, 5 and 14: 4%, 18% and 50% of saturation),
     * alpha 0.8: TPOT within 5%, TTFT within 10%, the running batch within 5%; Little's law in each run */
    for (int k = 0; k < 8; k++)
        acc[k] = 0.8;
    c.arrivals = SD_SERVING_POISSON; /* the defaults' prompts of 512 and outputs of 256 */
    c.requests = v->cfg->quick ? 2000 : 20000, c.warmup = c.requests / 10;
    static const double rates[3] = { 1, 5, 14 };
    sd_serving_result a[3], m[3];
    for (int i = 0; i < 3 && st == SD_OK; i++) {
        double sat;
        c.rate = rates[i];
        if ((st = sd_serving_analytic(&c, &a[i], &sat, err)) != SD_OK ||
            (st = sd_serving_simulate(&c, v->cfg->seed, 1 + (uint64_t)i, &m[i], err)) != SD_OK)
            break;
        double worst = fmax(gap(a[i].tpot_mean, m[i].tpot_mean) / 0.05,
                            fmax(gap(a[i].ttft_mean, m[i].ttft_mean) / 0.10, gap(a[i].mean_batch, m[i].mean_batch) / 0.05));
        char name[160];
        snprintf(name, sizeof name, "24. serving: the twin = the simulation at rate %g, %.0f%% of saturation (TPOT 5%%, "
                 "TTFT 10%%, batch 5%%; worst gap / its tolerance)", rates[i], 100 * rates[i] / sat);
        st = sd_validate_exact_row(v, name, 0, worst, 1, (double)c.requests, SD_VALIDATE_CHECK, err);
        if (st == SD_OK)
            st = sd_validate_exact_row(v, "24. serving: Little's law in the simulation, mean in system / (rate x mean "
                                          "time) - 1",
                                       0, m[i].little_in_system / (m[i].little_rate * m[i].little_time) - 1, 1e-9,
                                       (double)c.requests, SD_VALIDATE_CHECK, err);
    }
    /* the control: the twin at rate 5 against the simulation at rate 7 must fall outside */
    if (st == SD_OK) {
        sd_serving_result far;
        c.rate = 7;
        if ((st = sd_serving_simulate(&c, v->cfg->seed, 3, &far, err)) == SD_OK) {
            double worst = fmax(gap(a[1].tpot_mean, far.tpot_mean) / 0.05,
                                fmax(gap(a[1].ttft_mean, far.ttft_mean) / 0.10, gap(a[1].mean_batch, far.mean_batch) / 0.05));
            st = sd_validate_exact_row(v, "24. serving: control: the twin at rate 5 against a simulation at rate 7", 0,
                                       worst, 1, (double)c.requests, SD_VALIDATE_CONTROL, err);
        }
    }
    return st;
}

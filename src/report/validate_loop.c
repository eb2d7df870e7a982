/* validate_loop.c -- check 25 of validate (validate_impl.h): with every term
 * of an engine profile 0 (loop.h), the roofline gives, bit for bit, what it
 * gave before profiles existed: eq. (10) with c_eff = t_D / t_T(1) and the
 * verify ratio t_T(gamma + 1) / t_T(1) (cost.h), computed here as that code
 * computed it, over a grid of batches, contexts, acceptances and both
 * granularities on the compiled-in pair, uncalibrated and with the Hopper
 * fit's eta_F, eta_BW and launch cost.  The control: an iteration term of
 * 1e-12 s must move it. */
#include "validate_impl.h"

#include <string.h>

#include "specdec/cost.h"
#include "specdec/theory.h"

/* The roofline at one point as it was before profiles: the best of gammas 1..16. */
static void before(const sd_roofline_request *rq, double batch, double context, sd_roofline_point *out)
{
    double t1 = sd_cost_step_time(rq->target, rq->hardware, &rq->params, batch, 1.0, context, NULL);
    double td = sd_cost_step_time(rq->draft, rq->hardware, &rq->draft_params, batch, 1.0, context, NULL);
    *out = (sd_roofline_point){ .gamma_opt = 0.0, .improvement_opt = 1.0, .c_effective = td / t1 };
    for (size_t i = 0; i < rq->ngammas; i++) {
        double g = rq->gammas[i];
        double ratio = sd_cost_step_time(rq->target, rq->hardware, &rq->params, batch, g + 1.0, context, NULL) / t1;
        double f = sd_theory_expected_tokens(rq->alpha, g) / (g * out->c_effective + ratio);
        if (f > out->improvement_opt) {
            out->gamma_opt = g;
            out->improvement_opt = f;
        }
    }
    double g = out->gamma_opt > 0.0 ? out->gamma_opt : 1.0;
    out->verify_cost_ratio = sd_cost_step_time(rq->target, rq->hardware, &rq->params, batch, g + 1.0, context, NULL) /
                             t1;
    out->tokens_per_second_baseline = batch / t1;
}

/* The points of the grid where sd_cost_roofline under loop differs from before() in any bit. */
static double differing(const sd_loop_params *loop)
{
    static const double gammas[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    static const double batches[] = { 1, 8, 64, 256 }, contexts[] = { 512, 8192 }, alphas[] = { 0.6, 0.8, 0.9 };
    double n = 0;
    for (int cal = 0; cal < 2; cal++)
        for (int gran = 0; gran < 2; gran++) {
            sd_roofline_request rq = sd_cost_roofline_defaults();
            rq.target = &TARGET_8B, rq.draft = &DRAFT_1B, rq.hardware = &H100_SXM, rq.gammas = gammas,
            rq.ngammas = 16, rq.loop = *loop;
            rq.params.granularity = (sd_granularity)gran;
            if (cal) /* data/cost-defaults.tsv's Hopper fit, rounded */
                rq.params.eta_flops = 0.2303, rq.params.eta_bw = 0.7258, rq.params.launch = 3.7256e-6;
            rq.draft_params = rq.params;
            for (size_t a = 0; a < sizeof alphas / sizeof alphas[0]; a++)
                for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++)
                    for (size_t c = 0; c < sizeof contexts / sizeof contexts[0]; c++) {
                        sd_roofline_point now, then;
                        rq.alpha = alphas[a];
                        sd_cost_roofline(&rq, batches[b], contexts[c], &now);
                        before(&rq, batches[b], contexts[c], &then);
                        const double x[] = { now.gamma_opt, now.improvement_opt, now.c_effective,
                                             now.verify_cost_ratio, now.tokens_per_second_baseline };
                        const double y[] = { then.gamma_opt, then.improvement_opt, then.c_effective,
                                             then.verify_cost_ratio, then.tokens_per_second_baseline };
                        n += memcmp(x, y, sizeof x) != 0; /* bit for bit */
                    }
        }
    return n;
}

sd_status sd_validate_check_loop(sd_validate_ctx *v, sd_error *err)
{
    const sd_loop_params none = sd_loop_none(), planted = { .iteration = 1e-12 };
    sd_status st = sd_validate_exact_row(v, "25. loop: no engine profile, the roofline as before profiles (points "
                                            "differing in any bit of 96)", 0, differing(&none), 0, 96,
                                         SD_VALIDATE_CHECK, err);
    if (st == SD_OK)
        st = sd_validate_exact_row(v, "25. loop: control: an iteration term of 1e-12 s moves it", 0,
                                   differing(&planted), 0, 96, SD_VALIDATE_CONTROL, err);
    return st;
}

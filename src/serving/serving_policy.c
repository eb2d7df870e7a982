/* serving_policy.c -- how the simulation chooses gamma at each step
 * (serving.h): fixed, a schedule by the decode batch, or the goodput policy
 * over the steps the simulation would plan. */
#include "specdec/serving.h"

#include "serving_impl.h"

/* A goodput score beats the best so far only by more than this relative
 * margin, so that a score equal up to rounding keeps the shorter gamma. */
#define GOODPUT_MARGIN 1e-12

static const char *const POLICY_NAMES[] = { [SD_SERVING_NONE] = "none", [SD_SERVING_FIXED] = "fixed",
                                            [SD_SERVING_SCHEDULE] = "schedule", [SD_SERVING_GOODPUT] = "goodput",
                                            NULL };

const char *const *sd_serving_policy_names(void) { return POLICY_NAMES; }

size_t sd_serving_schedule_gamma(const sd_serving_config *c, double batch)
{
    for (size_t i = 0; i < c->nschedule; i++)
        if (batch <= c->schedule[i].batch_to)
            return (size_t)c->schedule[i].gamma;
    return (size_t)c->schedule[c->nschedule - 1].gamma;
}

/* SmartSpec's goodput: each gamma in 0 .. gamma_max (only 0 without a decode batch) scored
 * by the tokens its step is expected to emit, decode sequences x E(gamma), over its time. */
static size_t goodput_gamma(const sd_serving_config *c, size_t decoding, sd_serving_planner plan, void *arg)
{
    double best = -1;
    size_t gamma = 0, top = decoding > 0 ? c->gamma_max : 0;
    for (size_t g = 0; g <= top; g++) {
        const sd_serving_step q = plan(arg, g);
        double rate = (q.decode > 0 ? (double)q.decode * sd_serving_expected_tokens(c, g) : 0) / q.seconds;
        if (rate > best * (1 + GOODPUT_MARGIN)) {
            best = rate;
            gamma = g;
        }
    }
    return gamma;
}

size_t sd_serving_policy_gamma(const sd_serving_config *c, size_t decoding, sd_serving_planner plan, void *arg)
{
    switch (c->policy) {
    case SD_SERVING_FIXED:
        return c->gamma;
    case SD_SERVING_SCHEDULE:
        return sd_serving_schedule_gamma(c, (double)decoding);
    case SD_SERVING_GOODPUT:
        return goodput_gamma(c, decoding, plan, arg);
    case SD_SERVING_NONE:
        break;
    }
    return 0;
}

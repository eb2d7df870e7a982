/* serving.c -- the continuous-batching simulation (serving.h): the loop of
 * steps, each at the policy's gamma (serving_policy.c), planned and taken
 * by the mechanics of serving_sim.c. */
#include "specdec/serving.h"

#include "serving_impl.h"

sd_status sd_serving_simulate_observed(const sd_serving_config *c, uint64_t seed, uint64_t stream,
                                       sd_serving_observer observe, void *arg, sd_serving_result *out,
                                       sd_error *err)
{
    sd_status st = sd_serving_check(c, err);
    if (st != SD_OK)
        return st;
    sd_serving_sim *s = sd_serving_sim_open(c, seed, stream);
    int more = s != NULL ? sd_serving_sim_next(s) : -1;
    for (; more > 0; more = sd_serving_sim_next(s)) {
        size_t gamma = sd_serving_policy_gamma(c, sd_serving_sim_decoding(s), sd_serving_sim_plan, s);
        const sd_serving_step p = sd_serving_sim_plan(s, gamma); /* the plan chosen: the one applied */
        if (!(p.seconds > 0) || (p.decode == 0 && p.chunks == 0)) {
            /* nothing schedulable: the head of the queue waits for memory that no running request will free */
            st = sd_status_fail(err, SD_EINVAL, "memory: the waiting request cannot be admitted and nothing runs");
            break;
        }
        if (observe != NULL)
            observe(arg, &p);
        if (!sd_serving_sim_apply(s, &p)) {
            more = -1;
            break;
        }
    }
    if (st == SD_OK && more < 0)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    if (st == SD_OK)
        sd_serving_sim_result(s, out);
    sd_serving_sim_close(s);
    return st;
}

sd_status sd_serving_simulate(const sd_serving_config *c, uint64_t seed, uint64_t stream, sd_serving_result *out,
                              sd_error *err)
{
    return sd_serving_simulate_observed(c, seed, stream, NULL, NULL, out, err);
}

/* analytic.c -- the analytical twin of the serving simulation (serving.h):
 * Little's law for the running batch, its fixed point with the step time,
 * and the saturation rate in closed form. */
#include "specdec/serving.h"

#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_roots.h>

#include "serving_impl.h"

/* The operating point at step time t: the prompts arriving in a step (λ t),
 * the decode batch, and the step's time by the cost model. */
typedef struct {
    const sd_serving_config *c;
    double lambda, P, O, E, gamma, np; /* np: steps a prompt's prefill takes */
} twin;

static double mean_length(const sd_serving_lengths *l)
{
    if (l->n == 1)
        return l->value[0];
    double s = 0, w = 0;
    for (size_t i = 0; i < l->n; i++)
        s += l->value[i] * l->weight[i], w += l->weight[i];
    return s / w;
}

/* The time of a step beside a decode batch of `dec` that prefills k prompts: np chunks of P / np
 * each (np = 1: k groups {1, P, 0, 1}; np > 1: a chunk after (np - 1) / 2 chunks cached on average,
 * 1 / np of them with logits). */
static double step_k(const twin *w, double dec, double k)
{
    const sd_roofline_request *r = w->c->cost;
    const double S = w->P + w->O / 2, T = 1 + w->gamma, np = w->np;
    sd_cost_group g[2] = { { .sequences = dec, .tokens = T, .context = S, .logits = T },
                           { .sequences = k, .tokens = w->P / np, .context = w->P * (np - 1) / (2 * np),
                             .logits = 1 / np } };
    return sd_serving_step_time(w->c, g, k > 0, (size_t)w->gamma, r->draft_window > 0 ? fmin(S, r->draft_window) : S);
}

/* The step time's moments when the prompt chunks a step carries are Poisson with mean m (the
 * arrivals during a step: m = λ np t̄), plus `own` chunks more: E t into *m1, E t^2 into *m2.  The
 * roofline is convex in the chunks (a chunk turns a memory-bound step compute-bound), so the mean
 * over the mixture, not the step at the mean, is the mean step. */
static void mixture(const twin *w, double dec, double m, double own, double *m1, double *m2)
{
    /* k over m +- 12 sd (and 5 more): the rest of the Poisson law weighs under 1e-30 */
    double lo = floor(fmax(0.0, m - 12 * sqrt(m) - 5)), hi = ceil(m + 12 * sqrt(m) + 5), cum = 0, a = 0, b = 0;
    for (double k = lo; k <= hi; k++) {
        double p = m > 0 ? gsl_ran_poisson_pdf((unsigned)k, m) : k > 0 ? 0.0 : 1.0, t = step_k(w, dec, k + own);
        a += p * t, b += p * t * t, cum += p;
    }
    *m1 = a / cum, *m2 = b / cum;
}

/* Decode steps a request spends after its first token, and the decode batch at mean step t. */
static double decode_steps(const twin *w) { return fmax((w->O - 1) / w->E, 1.0); } /* at least one: E caps at O - 1 */

/* g(t) = E step(t) - t at rate λ: the decode batch λ t (O - 1) / E, the chunks Poisson(λ np t). */
static double residual(double t, void *p)
{
    const twin *w = p;
    double m1, m2;
    mixture(w, w->lambda * t * decode_steps(w), w->lambda * w->np * t, 0, &m1, &m2);
    return m1 - t;
}

/* The running batch the engine can hold: max_num_seqs, the KV cache, the token budget. */
static double batch_max(const twin *w)
{
    const sd_serving_config *c = w->c;
    double b = (double)c->max_num_seqs;
    b = fmin(b, floor(sd_serving_kv_capacity(c) / sd_serving_kv_request(c, w->P, w->O)));
    double per = 1 + w->gamma + w->P * w->E / (w->O - 1); /* tokens a step per decoding request (O > 1) */
    return fmin(b, (double)c->max_num_batched_tokens / per);
}

/* The saturation rate at γ, in closed form: the decode batch at its limit B, a request's decode
 * steps n, so λ = B / (n t*) and the chunks a step m = λ np t* = B np / n: t* = E step at (B, m),
 * no root to find. */
static double saturation_at(const twin *w, double *tstar)
{
    double bmax = batch_max(w), m = bmax * w->np / decode_steps(w), m2;
    mixture(w, bmax, m, 0, tstar, &m2);
    return bmax / (decode_steps(w) * *tstar);
}

/* The fixed point at γ (SD_OK), or SD_EINVAL when the rate is at or past saturation. */
static sd_status solve(twin *w, double *t, double *sat, sd_error *err)
{
    double tstar;
    *sat = saturation_at(w, &tstar);
    if (!(w->lambda < *sat))
        return SD_EINVAL;
    /* bracket: g(0+) > 0 (the fixed costs of a step); at the batch limit g < 0 below saturation */
    double lo = 1e-12, hi = tstar * *sat / w->lambda; /* lo: a sliver of batch, so the fixed costs count */
    while (residual(hi, w) > 0 && hi < 1e6)
        hi *= 2;
    if (residual(hi, w) > 0)
        return SD_EINVAL;
    gsl_function f = { .function = residual, .params = w };
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (s == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    gsl_root_fsolver_set(s, &f, lo, hi);
    int status = GSL_CONTINUE;
    for (int i = 0; i < 200 && status == GSL_CONTINUE; i++) {
        gsl_root_fsolver_iterate(s);
        status = gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 0, 1e-13);
    }
    *t = gsl_root_fsolver_root(s);
    gsl_root_fsolver_free(s);
    return status == GSL_SUCCESS ? SD_OK : sd_status_fail(err, SD_EFAIL, "serving: the fixed point did not converge");
}

sd_status sd_serving_analytic(const sd_serving_config *c, sd_serving_result *out, double *saturation, sd_error *err)
{
    sd_status st = sd_serving_check(c, err);
    if (st != SD_OK)
        return st;
    if (c->arrivals != SD_SERVING_POISSON)
        return sd_status_fail(err, SD_EINVAL, "method: the analytical twin is for Poisson arrivals (--rate)");
    twin w = { .c = c, .lambda = c->rate, .P = mean_length(&c->prompt), .O = mean_length(&c->output) };
    if (!(w.O > 1))
        return sd_status_fail(err, SD_EINVAL, "output: the twin needs outputs of more than 1 token on average (with 1 "
                              "there is no decode and no TPOT); simulate it instead");
    size_t g0 = 0, g1 = 0;
    if (c->policy == SD_SERVING_FIXED)
        g0 = g1 = c->gamma;
    else if (c->policy == SD_SERVING_GOODPUT)
        g1 = c->gamma_max;
    double best_t = NAN, best_tpot = INFINITY, best_sat = 0, best_gamma = 0, sat_max = 0;
    for (size_t g = g0; g <= g1; g++) {
        w.gamma = (double)g;
        w.E = sd_serving_expected_tokens(c, g);
        w.np = ceil(w.P / (double)c->max_num_batched_tokens); /* at least the chunks of the whole budget */
        double t, sat;
        if (c->policy == SD_SERVING_SCHEDULE) { /* γ from the batch, the batch from γ: iterate to agreement */
            size_t cur = sd_serving_schedule_gamma(c, 1);
            for (int it = 0; it < 16; it++) {
                w.gamma = (double)cur;
                w.E = sd_serving_expected_tokens(c, cur);
                if ((st = solve(&w, &t, &sat, err)) != SD_OK)
                    break;
                size_t next = sd_serving_schedule_gamma(c, w.lambda * t * decode_steps(&w));
                if (next == cur)
                    break;
                cur = next;
            }
        } else
            st = solve(&w, &t, &sat, err);
        sat_max = fmax(sat_max, sat);
        if (st == SD_EINVAL && c->policy == SD_SERVING_GOODPUT) {
            st = SD_OK; /* this γ saturates; another may not */
            continue;
        }
        if (st != SD_OK)
            break;
        if (t / w.E < best_tpot) {
            best_tpot = t / w.E, best_t = t, best_sat = sat, best_gamma = w.gamma;
        }
    }
    *saturation = c->policy == SD_SERVING_GOODPUT ? sat_max : best_sat;
    if (st == SD_EINVAL || isnan(best_t)) {
        if (c->policy != SD_SERVING_GOODPUT)
            *saturation = sat_max;
        return sd_status_fail(err, SD_EINVAL, "rate: %g requests/s is at or above the saturation rate %.4g: the queue "
                              "grows without bound (the twin has no steady state there)", c->rate, *saturation);
    }
    if (st != SD_OK)
        return st;
    w.gamma = best_gamma;
    w.E = sd_serving_expected_tokens(c, (size_t)best_gamma);
    double t = best_t, dec = w.lambda * t * decode_steps(&w), m = w.lambda * w.np * t, m1, m2, own1, own2;
    /* TTFT: the rest of the step running at arrival, E t^2 / (2 E t) (a Poisson arrival lands in a
     * long step more often), when the engine is busy, then the np steps of its own chunks beside
     * the others'.  Below saturation the running set is an infinite-server queue, so the requests
     * in it are Poisson with mean B and the engine is idle with probability exp(-B). */
    mixture(&w, dec, m, 0, &m1, &m2);
    mixture(&w, dec, m, 1, &own1, &own2);
    double B = dec + w.lambda * w.np * own1; /* Little: decoding, and prefilling for np own steps */
    double ttft = -expm1(-B) * m2 / (2 * m1) + w.np * own1, tpot = t * decode_steps(&w) / (w.O - 1);
    *out = (sd_serving_result){ .ttft_mean = ttft, .ttft_p50 = NAN, .ttft_p90 = NAN, .ttft_p99 = NAN,
                                .tpot_mean = tpot, .tpot_p50 = NAN, .tpot_p90 = NAN, .tpot_p99 = NAN,
                                .e2e_mean = ttft + (w.O - 1) * tpot, .e2e_p99 = NAN,
                                .throughput_tokens = w.lambda * w.O, .throughput_requests = w.lambda,
                                .mean_batch = B,
                                .goodput = ttft <= c->slo_ttft && tpot <= c->slo_tpot ? w.lambda : 0.0,
                                .mean_gamma = best_gamma, .little_in_system = B, .little_rate = w.lambda,
                                .little_time = ttft + (w.O - 1) * tpot, .steps = 0 };
    return SD_OK;
}

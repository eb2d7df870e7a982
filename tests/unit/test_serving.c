/* test_serving.c -- the continuous-batching simulation and its twin (serving.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "specdec/cost.h"
#include "specdec/presets.h"
#include "specdec/serving.h"
#include "serving/serving_impl.h"
#include "testutil.h"

/* Llama-3.1-8B with a Llama-3.2-1B draft on one H100, the uncalibrated terms. */
typedef struct {
    sd_presets p;
    sd_roofline_request rq;
    double acc[16];
    double prompt, output;
    sd_serving_config c;
} setup;

static void make(setup *s, double alpha)
{
    ck_assert_int_eq(sd_presets_load(NULL, NULL, NULL, &s->p, NULL), SD_OK);
    s->rq = sd_cost_roofline_defaults();
    ck_assert_int_eq(sd_presets_model(&s->p, "t", "llama-3.1-8b", &s->rq.target, NULL), SD_OK);
    ck_assert_int_eq(sd_presets_model(&s->p, "d", "llama-3.2-1b", &s->rq.draft, NULL), SD_OK);
    ck_assert_int_eq(sd_presets_hardware(&s->p, "h", "h100-sxm", &s->rq.hardware, NULL), SD_OK);
    for (int k = 0; k < 16; k++)
        s->acc[k] = alpha;
    s->prompt = 512, s->output = 256;
    s->c = sd_serving_defaults();
    s->c.rate = 1;
    s->c.prompt = (sd_serving_lengths){ &s->prompt, NULL, 1 };
    s->c.output = (sd_serving_lengths){ &s->output, NULL, 1 };
    s->c.requests = 3000;
    s->c.warmup = 300;
    s->c.policy = SD_SERVING_FIXED;
    s->c.gamma = 3;
    s->c.acc = s->acc;
    s->c.nacc = 16;
    s->c.cost = &s->rq;
}

/* Poisson arrivals at rate, `requests` measured after a tenth as many of warm-up. */
static void load(setup *s, double rate, size_t requests)
{
    s->c.rate = rate;
    s->c.requests = requests;
    s->c.warmup = requests / 10;
}

/* The defaults are vLLM's scheduler's, Poisson arrivals of 512 + 256 tokens, no speculation and
 * no SLOs; what only the caller knows is left empty. */
START_TEST(defaults)
{
    const sd_serving_config c = sd_serving_defaults();
    ck_assert_uint_eq(c.max_num_seqs, 256);
    ck_assert_uint_eq(c.max_num_batched_tokens, 8192);
    ck_assert_double_eq(c.memory_fraction, 0.9);
    ck_assert_int_eq(c.arrivals, SD_SERVING_POISSON);
    ck_assert_uint_eq(c.prompt.n, 1);
    ck_assert_double_eq(c.prompt.value[0], 512);
    ck_assert_uint_eq(c.output.n, 1);
    ck_assert_double_eq(c.output.value[0], 256);
    ck_assert_uint_eq(c.requests, 10000);
    ck_assert_uint_eq(c.warmup, 1000);
    ck_assert_int_eq(c.policy, SD_SERVING_NONE);
    ck_assert_uint_eq(c.gamma_max, 8);
    ck_assert(isinf(c.slo_ttft) && isinf(c.slo_tpot));
    ck_assert(c.rate == 0 && c.users == 0 && c.acc == NULL && c.cost == NULL && c.trace_time == NULL);
    sd_error err;
    ck_assert_int_eq(sd_serving_check(&c, &err), SD_EINVAL); /* no cost model yet */
    ck_assert_str_eq(err.msg, "cost: no target, draft or hardware");
}
END_TEST

/* The λ -> 0 limit, exactly: arrivals 1000 s apart (a trace), so every request runs alone.  With
 * alpha = 1 each decode step emits gamma + 1 tokens, and a request's TTFT is its prefill step,
 * its TPOT the sum of its decode steps at their contexts over output - 1: both computed here
 * from the cost model, step by step. */
START_TEST(alone_is_the_single_sequence_roofline)
{
    setup s;
    make(&s, 1.0);
    double t[20], p[20], o[20];
    for (int i = 0; i < 20; i++)
        t[i] = 1000.0 * i, p[i] = 100 + 7 * i, o[i] = 1 + 4 * (3 + i); /* (o - 1) divisible by gamma + 1 = 4 */
    s.c.arrivals = SD_SERVING_TRACE, s.c.trace_time = t, s.c.trace_prompt = p, s.c.trace_output = o;
    s.c.ntrace = 20, s.c.warmup = 0, s.c.requests = 20;
    sd_serving_result r;
    sd_error err;
    ck_assert_msg(sd_serving_simulate(&s.c, 1, 0, &r, &err) == SD_OK, "%s", err.msg);
    double ttft = 0, tpot = 0;
    const sd_roofline_request *q = &s.rq;
    for (int i = 0; i < 20; i++) {
        const sd_cost_group chunk = { 1, p[i], 0, 1 };
        double pre = sd_cost_groups_time(q->target, q->hardware, &q->params, &chunk, 1, NULL) +
                     sd_cost_groups_time(q->draft, q->hardware, &q->draft_params, &chunk, 1, NULL);
        ttft += pre / 20;
        double dec = 0;
        for (double e = 1; e < o[i]; e += 4) {
            double ctx = p[i] + e - 1;
            dec += 3 * sd_cost_step_time(q->draft, q->hardware, &q->draft_params, 1, 1, ctx, NULL) +
                   sd_cost_step_time(q->target, q->hardware, &q->params, 1, 4, ctx, NULL);
        }
        tpot += dec / (o[i] - 1) / 20;
    }
    ck_assert_rel(r.ttft_mean, ttft, 1e-9); /* the clock's rounding at 19,000 s */
    ck_assert_rel(r.tpot_mean, tpot, 1e-9);
    ck_assert_double_eq(r.mean_gamma, 3);
    /* Little's law over the run, from two independent tallies: the step-by-step integral of the
     * requests in the system, and the requests' own times */
    ck_assert_rel(r.little_in_system, r.little_rate * r.little_time, 1e-9);
    sd_presets_free(&s.p);
}
END_TEST

/* The twin against the simulation at light and moderate load (rates 1 and 5 against a
 * saturation near 14): TPOT within 5%, TTFT within 10%, the running batch within 5% (3000
 * requests, 2 replications: the simulation's own error is under 1%); saturation is above 5x the rate.  The negative control
 * compares the twin at rate 5 with a simulation at rate 7: the check must fail.  Little's law
 * holds in every run. */
static int agree(const sd_serving_result *a, const sd_serving_result *m)
{
    return fabs(a->tpot_mean / m->tpot_mean - 1) < 0.05 && fabs(a->ttft_mean / m->ttft_mean - 1) < 0.10 &&
           fabs(a->mean_batch / m->mean_batch - 1) < 0.05;
}

START_TEST(twin_agrees_below_saturation)
{
    setup s;
    make(&s, 0.8);
    sd_error err;
    const double rates[2] = { 1, 5 };
    for (int policy = 0; policy < 2; policy++)
        for (int i = 0; i < 2; i++) {
            s.c.policy = policy ? SD_SERVING_FIXED : SD_SERVING_NONE;
            s.c.rate = rates[i];
            sd_serving_result a, m[2], mean;
            double sat;
            ck_assert_msg(sd_serving_analytic(&s.c, &a, &sat, &err) == SD_OK, "%s", err.msg);
            ck_assert_msg(sat > 5 * rates[i], "saturation %g", sat);
            for (int k = 0; k < 2; k++) {
                ck_assert_msg(sd_serving_simulate(&s.c, 7, (uint64_t)k, &m[k], &err) == SD_OK, "%s", err.msg);
                ck_assert_rel(m[k].little_in_system, m[k].little_rate * m[k].little_time, 1e-9);
            }
            mean = m[0];
            mean.tpot_mean = (m[0].tpot_mean + m[1].tpot_mean) / 2;
            mean.ttft_mean = (m[0].ttft_mean + m[1].ttft_mean) / 2;
            mean.mean_batch = (m[0].mean_batch + m[1].mean_batch) / 2;
            ck_assert_msg(agree(&a, &mean), "policy %d rate %g: twin tpot %g ttft %g batch %g, simulation %g %g %g",
                          policy, rates[i], a.tpot_mean, a.ttft_mean, a.mean_batch, mean.tpot_mean, mean.ttft_mean,
                          mean.mean_batch);
            ck_assert(fabs(mean.throughput_tokens / (rates[i] * 256) - 1) < 0.05); /* λ O */
        }
    /* the control: the twin at 5 against the simulation at 7 */
    s.c.rate = 5;
    sd_serving_result a, m;
    double sat;
    ck_assert_int_eq(sd_serving_analytic(&s.c, &a, &sat, &err), SD_OK);
    s.c.rate = 7;
    ck_assert_int_eq(sd_serving_simulate(&s.c, 7, 0, &m, &err), SD_OK);
    ck_assert(!agree(&a, &m));
    sd_presets_free(&s.p);
}
END_TEST

/* Short outputs: with O = 2 a decode step needs one token whatever gamma drafts, so the twin's
 * TPOT is the step (n = max((O - 1) / E, 1) = 1), not the step over E; at saturation the chunks a
 * step number in the hundreds, where the Poisson weights must not underflow. */
START_TEST(short_outputs)
{
    setup s;
    make(&s, 0.8);
    s.output = 2, s.prompt = 64, s.c.gamma = 2, s.c.requests = 2000, s.c.warmup = 200;
    sd_serving_result a, m;
    double sat;
    sd_error err;
    ck_assert_msg(sd_serving_analytic(&s.c, &a, &sat, &err) == SD_OK, "%s", err.msg);
    ck_assert_msg(isfinite(sat) && sat > 100, "saturation %g", sat);
    ck_assert_int_eq(sd_serving_simulate(&s.c, 9, 0, &m, &err), SD_OK);
    ck_assert_msg(fabs(a.tpot_mean / m.tpot_mean - 1) < 0.03, "tpot %g against %g", a.tpot_mean, m.tpot_mean);
    s.output = 1;
    ck_assert_int_eq(sd_serving_analytic(&s.c, &a, &sat, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "output: the twin needs outputs of more than 1 token"));
    sd_presets_free(&s.p);
}
END_TEST

/* Saturation: the twin refuses a rate past it, naming it; the simulation's queue then grows
 * (TTFT over 10 times its value at 0.8 of saturation). */
START_TEST(saturation)
{
    setup s;
    make(&s, 0.8);
    s.c.requests = 2000, s.c.warmup = 200;
    sd_serving_result a, lo, hi;
    double sat, sat2;
    sd_error err;
    ck_assert_int_eq(sd_serving_analytic(&s.c, &a, &sat, &err), SD_OK);
    s.c.rate = 1.2 * sat;
    ck_assert_int_eq(sd_serving_analytic(&s.c, &a, &sat2, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "is at or above the saturation rate"));
    ck_assert_double_eq_tol(sat2, sat, 1e-9 * sat);
    ck_assert_int_eq(sd_serving_simulate(&s.c, 3, 0, &hi, &err), SD_OK);
    s.c.rate = 0.8 * sat;
    ck_assert_int_eq(sd_serving_simulate(&s.c, 3, 0, &lo, &err), SD_OK);
    ck_assert_msg(hi.ttft_mean > 10 * lo.ttft_mean, "ttft %g past saturation, %g below", hi.ttft_mean, lo.ttft_mean);
    sd_presets_free(&s.p);
}
END_TEST

/* Chunked prefill: no step schedules more than max_num_batched_tokens tokens, prompt chunks and
 * speculative tokens together, though prompts run to four times the budget; the budget is
 * reached (a step takes a chunk cut to what is left), and every prompt is served.  The tokens are
 * counted from what each step gives each request, not from the planner's budget. */
typedef struct {
    double budget;
    size_t steps, full, over, tokens_max;
} budget_seen;

static void count_budget(void *arg, const sd_serving_step *step)
{
    budget_seen *b = arg;
    double tokens = 0;
    for (size_t i = 0; i < step->ngive; i++)
        tokens += step->give[i];
    b->steps++;
    b->full += tokens == b->budget;
    b->over += tokens > b->budget;
    b->tokens_max = tokens > (double)b->tokens_max ? (size_t)tokens : b->tokens_max;
}

START_TEST(chunked_prefill_keeps_the_budget)
{
    setup s;
    make(&s, 0.7);
    const double prompt[3] = { 300, 1700, 4100 }, weight[3] = { 2, 1, 1 };
    s.output = 64;
    s.c.prompt = (sd_serving_lengths){ prompt, weight, 3 };
    s.c.max_num_batched_tokens = 1000;
    load(&s, 3, 400);
    budget_seen b = { .budget = (double)s.c.max_num_batched_tokens };
    sd_serving_result r;
    sd_error err;
    ck_assert_msg(sd_serving_simulate_observed(&s.c, 21, 0, count_budget, &b, &r, &err) == SD_OK, "%s", err.msg);
    ck_assert_msg(b.over == 0, "%zu of %zu steps over the budget of 1000 tokens (up to %zu)", b.over, b.steps,
                  b.tokens_max);
    ck_assert_msg(b.full > 100, "%zu of %zu steps at the budget", b.full, b.steps);
    ck_assert_uint_eq(b.steps, r.steps);
    ck_assert(isfinite(r.ttft_p99));
    sd_presets_free(&s.p);
}
END_TEST

/* The goodput policy scores each gamma by the tokens its step is expected to emit, decode x
 * E(gamma), over the step's time: at acceptance 0.1 a draft is almost never worth its pass, so
 * it drafts (nearly) nothing; at 0.95 it drafts long. */
START_TEST(goodput_drafts_short_at_low_acceptance)
{
    setup s;
    make(&s, 0.1);
    s.c.policy = SD_SERVING_GOODPUT;
    load(&s, 4, 400);
    sd_serving_result r;
    sd_error err;
    ck_assert_msg(sd_serving_simulate(&s.c, 5, 0, &r, &err) == SD_OK, "%s", err.msg);
    ck_assert_msg(r.mean_gamma < 0.5, "mean gamma %g at acceptance 0.1", r.mean_gamma);
    for (int k = 0; k < 16; k++)
        s.acc[k] = 0.95;
    ck_assert_msg(sd_serving_simulate(&s.c, 5, 0, &r, &err) == SD_OK, "%s", err.msg);
    ck_assert_msg(r.mean_gamma > 4, "mean gamma %g at acceptance 0.95", r.mean_gamma);
    sd_presets_free(&s.p);
}
END_TEST

/* The twin's TTFT where step times vary: prompts of 2048 tokens make a step that carries a chunk
 * several times a decode step, so an arrival, landing in a long step more often, waits for the
 * running step's remainder E t^2 / (2 E t), well above E t / 2.  At a fifth of saturation the
 * twin is within 2% of the simulation (its bias: -1.5% at gamma 0, -1.7% at 3; 8 replications
 * of 8000 requests, each within 0.5%, their mean within 0.2%); with E t / 2 it is 6% short.  The
 * limit, 3.5%, sits between. */
START_TEST(twin_ttft_waits_for_the_running_step)
{
    setup s;
    make(&s, 0.8);
    s.prompt = 2048;
    load(&s, 2, 8000);
    enum { REPS = 8 };
    sd_error err;
    for (int policy = 0; policy < 2; policy++) {
        s.c.policy = policy ? SD_SERVING_FIXED : SD_SERVING_NONE;
        sd_serving_result a, m;
        double sat, ttft = 0;
        ck_assert_msg(sd_serving_analytic(&s.c, &a, &sat, &err) == SD_OK, "%s", err.msg);
        ck_assert_msg(sat > 4 * s.c.rate && sat < 6 * s.c.rate, "saturation %g", sat);
        for (int k = 0; k < REPS; k++) {
            ck_assert_msg(sd_serving_simulate(&s.c, 13, (uint64_t)k, &m, &err) == SD_OK, "%s", err.msg);
            ttft += m.ttft_mean / REPS;
        }
        ck_assert_msg(fabs(a.ttft_mean / ttft - 1) < 0.035, "gamma %zu: twin TTFT %g, simulation %g",
                      policy ? s.c.gamma : 0, a.ttft_mean, ttft);
    }
    sd_presets_free(&s.p);
}
END_TEST

/* Runs repeat by (seed, stream) and differ across streams; bad settings are refused naming the field. */
START_TEST(streams_and_errors)
{
    setup s;
    make(&s, 0.7);
    s.c.requests = 500, s.c.warmup = 50, s.c.rate = 4;
    sd_serving_result a, b, c;
    sd_error err;
    ck_assert_int_eq(sd_serving_simulate(&s.c, 5, 1, &a, &err), SD_OK);
    ck_assert_int_eq(sd_serving_simulate(&s.c, 5, 1, &b, &err), SD_OK);
    ck_assert_int_eq(sd_serving_simulate(&s.c, 5, 2, &c, &err), SD_OK);
    ck_assert_double_eq(a.ttft_p99, b.ttft_p99);
    ck_assert(a.tpot_mean != c.tpot_mean);
    sd_serving_config bad = s.c;
    bad.rate = 0;
    ck_assert_int_eq(sd_serving_simulate(&bad, 5, 1, &a, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "rate: 0 is outside (0, inf)");
    bad = s.c, bad.slo_ttft = 0;
    ck_assert_int_eq(sd_serving_check(&bad, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "slo_ttft: 0 is outside (0, inf]");
    bad = s.c, bad.prompt.value = &(double){ 4e6 };
    ck_assert_int_eq(sd_serving_check(&bad, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "memory: a request of 4e+06 + 256 tokens needs"));
    bad = s.c, bad.acc = (const double[]){ 1.5 }, bad.nacc = 1;
    ck_assert_int_eq(sd_serving_check(&bad, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "acc: 1.5 at position 1 is outside [0, 1]");
    /* the trace file: columns by name, times that go backwards refused with file and line */
    const char *path = write_temp("# t\ntime\tprompt\toutput\n0\t10\t5\n2.5\t20\t1\n");
    double *t, *p, *o;
    size_t n;
    ck_assert_msg(sd_serving_load_trace(path, &t, &p, &o, &n, &err) == SD_OK, "%s", err.msg);
    ck_assert_uint_eq(n, 2);
    ck_assert_double_eq(t[1], 2.5);
    ck_assert_double_eq(p[1], 20);
    ck_assert_double_eq(o[0], 5);
    free(t), free(p), free(o);
    unlink(path);
    path = write_temp("time\tprompt\toutput\n3\t10\t5\n2.5\t20\t1\n");
    ck_assert_int_eq(sd_serving_load_trace(path, &t, &p, &o, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, ":3: time: 2.5 is before the previous row's 3"));
    unlink(path);
    path = write_temp("length\tweight\n128\t1\n0\t1\n");
    ck_assert_int_eq(sd_serving_load_lengths(path, &t, &p, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, ":3: length: 0 is outside"));
    unlink(path);
    sd_presets_free(&s.p);
}
END_TEST

Suite *serving_suite(void)
{
    Suite *s = suite_create("serving");
    TCase *tc = tcase_create("serving");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, alone_is_the_single_sequence_roofline);
    tcase_add_test(tc, twin_agrees_below_saturation);
    tcase_add_test(tc, saturation);
    tcase_add_test(tc, short_outputs);
    tcase_add_test(tc, streams_and_errors);
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, chunked_prefill_keeps_the_budget);
    tcase_add_test(tc, goodput_drafts_short_at_low_acceptance);
    tcase_add_test(tc, twin_ttft_waits_for_the_running_step);
    suite_add_tcase(s, tc);
    return s;
}

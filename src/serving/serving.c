/* serving.c -- the continuous-batching simulation (serving.h): requests,
 * the scheduler's step, the acceptance draws, and what a run measures. */
#include "specdec/serving.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "specdec/dtype.h"
#include "specdec/rng.h"
#include "common/util.h"
#include "serving_impl.h"

static const char *const POLICY_NAMES[] = { [SD_SERVING_NONE] = "none", [SD_SERVING_FIXED] = "fixed",
                                            [SD_SERVING_SCHEDULE] = "schedule", [SD_SERVING_GOODPUT] = "goodput",
                                            NULL };

const char *const *sd_serving_policy_names(void) { return POLICY_NAMES; }

/* ---- the engine's memory ------------------------------------------------------------------ */

static int own_draft(const sd_serving_config *c)
{
    return c->policy != SD_SERVING_NONE && c->cost->draft != c->cost->target;
}

double sd_serving_kv_capacity(const sd_serving_config *c)
{
    const sd_roofline_request *r = c->cost;
    double weights = r->target->params_total * sd_dtype_bytes(r->target->weight);
    if (own_draft(c))
        weights += r->draft->params_total * sd_dtype_bytes(r->draft->weight);
    return c->memory_fraction * r->hardware->memory * r->params.tp - weights;
}

double sd_serving_kv_request(const sd_serving_config *c, double prompt, double output)
{
    const sd_roofline_request *r = c->cost;
    double n = prompt + output, kv = sd_cost_kv_per_token(r->target) * n;
    if (own_draft(c))
        kv += sd_cost_kv_per_token(r->draft) * (r->draft_window > 0 ? fmin(n, r->draft_window) : n);
    return kv;
}

double sd_serving_expected_tokens(const sd_serving_config *c, size_t gamma)
{
    double e = 1.0, p = 1.0;
    for (size_t k = 1; k <= gamma && k <= c->nacc; k++)
        e += (p *= c->acc[k - 1]);
    return e;
}

/* ---- the checks ----------------------------------------------------------------------------- */

static sd_status lengths_check(const sd_serving_lengths *l, const char *name, sd_error *err)
{
    if (l->n == 0 || l->value == NULL)
        return sd_status_fail(err, SD_EINVAL, "%s: no lengths", name);
    for (size_t i = 0; i < l->n; i++) {
        if (!(l->value[i] >= 1 && l->value[i] <= 16777216 && !(l->value[i] > floor(l->value[i]))))
            return sd_status_fail(err, SD_EINVAL, "%s: length %g is outside whole numbers in [1, 16777216]", name,
                                  l->value[i]);
        if (l->n > 1 && !(l->weight[i] > 0 && isfinite(l->weight[i])))
            return sd_status_fail(err, SD_EINVAL, "%s: weight %g of length %g is not > 0", name, l->weight[i],
                                  l->value[i]);
    }
    return SD_OK;
}

static double lengths_max(const sd_serving_lengths *l)
{
    double m = 0;
    for (size_t i = 0; i < l->n; i++)
        m = fmax(m, l->value[i]);
    return m;
}

sd_status sd_serving_check(const sd_serving_config *c, sd_error *err)
{
    sd_status st;
    if (c->cost == NULL || c->cost->target == NULL || c->cost->draft == NULL || c->cost->hardware == NULL)
        return sd_status_fail(err, SD_EINVAL, "cost: no target, draft or hardware");
    if (c->arrivals == SD_SERVING_POISSON && !(c->rate > 0 && isfinite(c->rate)))
        return sd_status_fail(err, SD_EINVAL, "rate: %g is outside (0, inf)", c->rate);
    if (c->arrivals == SD_SERVING_USERS && c->users < 1)
        return sd_status_fail(err, SD_EINVAL, "users: 0 is outside [1, inf)");
    if (c->requests < 2)
        return sd_status_fail(err, SD_EINVAL, "requests: %zu measured requests; need at least 2", c->requests);
    if (c->max_num_seqs < 1 || c->max_num_batched_tokens < 1)
        return sd_status_fail(err, SD_EINVAL, "%s: 0 is outside [1, inf)",
                              c->max_num_seqs < 1 ? "max_num_seqs" : "max_num_batched_tokens");
    if (!(c->memory_fraction > 0 && c->memory_fraction <= 1))
        return sd_status_fail(err, SD_EINVAL, "memory_fraction: %g is outside (0, 1]", c->memory_fraction);
    if (!(c->slo_ttft > 0) || !(c->slo_tpot > 0))
        return sd_status_fail(err, SD_EINVAL, "%s: %g is outside (0, inf]", c->slo_ttft > 0 ? "slo_tpot" : "slo_ttft",
                              c->slo_ttft > 0 ? c->slo_tpot : c->slo_ttft);
    if (c->policy == SD_SERVING_FIXED && (c->gamma < 1 || c->gamma > 256))
        return sd_status_fail(err, SD_EINVAL, "gamma: %zu is outside [1, 256]", c->gamma);
    if (c->policy == SD_SERVING_GOODPUT && (c->gamma_max < 1 || c->gamma_max > 256))
        return sd_status_fail(err, SD_EINVAL, "gamma_max: %zu is outside [1, 256]", c->gamma_max);
    if (c->policy == SD_SERVING_SCHEDULE && (c->schedule == NULL || c->nschedule == 0))
        return sd_status_fail(err, SD_EINVAL, "schedule: no buckets");
    if (c->policy != SD_SERVING_NONE && (c->acc == NULL || c->nacc == 0))
        return sd_status_fail(err, SD_EINVAL, "acc: no acceptance");
    for (size_t k = 0; c->policy != SD_SERVING_NONE && k < c->nacc; k++)
        if (!(c->acc[k] >= 0 && c->acc[k] <= 1))
            return sd_status_fail(err, SD_EINVAL, "acc: %g at position %zu is outside [0, 1]", c->acc[k], k + 1);
    double pmax, omax;
    if (c->arrivals == SD_SERVING_TRACE) {
        if (c->ntrace < c->warmup + c->requests)
            return sd_status_fail(err, SD_EINVAL, "trace: %zu rows; the warm-up and the measured requests need %zu",
                                  c->ntrace, c->warmup + c->requests);
        pmax = omax = 0;
        for (size_t i = 0; i < c->ntrace; i++) {
            if (!(c->trace_time[i] >= 0 && isfinite(c->trace_time[i])) || (i > 0 && c->trace_time[i] < c->trace_time[i - 1]))
                return sd_status_fail(err, SD_EINVAL, "trace: row %zu: arrival time %g %s", i + 1, c->trace_time[i],
                                      c->trace_time[i] >= 0 ? "goes backwards" : "is below 0");
            const sd_serving_lengths p = { &c->trace_prompt[i], NULL, 1 }, o = { &c->trace_output[i], NULL, 1 };
            if ((st = lengths_check(&p, "trace: prompt", err)) != SD_OK || (st = lengths_check(&o, "trace: output", err)) != SD_OK)
                return st;
            pmax = fmax(pmax, c->trace_prompt[i]);
            omax = fmax(omax, c->trace_output[i]);
        }
    } else {
        if ((st = lengths_check(&c->prompt, "prompt", err)) != SD_OK || (st = lengths_check(&c->output, "output", err)) != SD_OK)
            return st;
        pmax = lengths_max(&c->prompt);
        omax = lengths_max(&c->output);
    }
    double cap = sd_serving_kv_capacity(c), need = sd_serving_kv_request(c, pmax, omax);
    if (!(cap >= need))
        return sd_status_fail(err, SD_EINVAL, "memory: a request of %g + %g tokens needs %.3g GB of KV cache; %g x %s "
                              "leaves %.3g GB after the weights", pmax, omax, need / 1e9, c->cost->params.tp,
                              c->cost->hardware->name, cap / 1e9);
    return SD_OK;
}

/* ---- the simulation ------------------------------------------------------------------------- */

typedef struct {
    double arrival, first, leave, prompt, output, prefilled, emitted, kv;
} request;

typedef struct {
    const sd_serving_config *c;
    gsl_rng *rng;
    gsl_ran_discrete_t *dp, *dout;
    request *r;
    size_t n, cap;        /* requests made so far */
    size_t *wait, whead, wtail, wcap; /* the waiting queue, wait[whead .. wtail - 1] */
    size_t *run, nrun;    /* running, in admission order */
    double *give;         /* per running request: its tokens this step */
    sd_cost_group *groups;
    double now, next_arrival, kv_used, kv_cap;
    int generating;
    size_t trace_next;
} sim;

static double draw_length(const sim *s, const sd_serving_lengths *l, gsl_ran_discrete_t *d)
{
    return l->n == 1 ? l->value[0] : l->value[gsl_ran_discrete(s->rng, d)];
}

/* A new request arriving at t: into r[] and the waiting queue. */
static int arrive(sim *s, double t, double prompt, double output)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        request *r = realloc(s->r, cap * sizeof *r);
        if (r == NULL)
            return 0;
        s->r = r, s->cap = cap;
    }
    if (s->wtail == s->wcap) {
        if (s->whead > 0) { /* slide the queue down */
            memmove(s->wait, s->wait + s->whead, (s->wtail - s->whead) * sizeof *s->wait);
            s->wtail -= s->whead, s->whead = 0;
        } else {
            size_t cap = s->wcap ? 2 * s->wcap : 1024, *w = realloc(s->wait, cap * sizeof *w);
            if (w == NULL)
                return 0;
            s->wait = w, s->wcap = cap;
        }
    }
    s->r[s->n] = (request){ .arrival = t, .first = -1, .prompt = prompt, .output = output,
                            .kv = sd_serving_kv_request(s->c, prompt, output) };
    s->wait[s->wtail++] = s->n++;
    return 1;
}

/* The next open-loop arrival's time (inf: none). */
static double next_time(sim *s)
{
    const sd_serving_config *c = s->c;
    if (!s->generating)
        return INFINITY;
    if (c->arrivals == SD_SERVING_POISSON)
        return s->next_arrival;
    if (c->arrivals == SD_SERVING_TRACE)
        return s->trace_next < c->ntrace ? c->trace_time[s->trace_next] : INFINITY;
    return INFINITY; /* users: arrivals come with completions */
}

/* Open-loop arrivals up to time t; *area += the time each spends in the system before t. */
static int arrivals_until(sim *s, double t, double *area)
{
    const sd_serving_config *c = s->c;
    for (double a; (a = next_time(s)) <= t;) {
        int ok;
        if (c->arrivals == SD_SERVING_POISSON) {
            ok = arrive(s, a, draw_length(s, &c->prompt, s->dp), draw_length(s, &c->output, s->dout));
            s->next_arrival = a + gsl_ran_exponential(s->rng, 1.0 / c->rate);
        } else {
            ok = arrive(s, a, c->trace_prompt[s->trace_next], c->trace_output[s->trace_next]);
            s->trace_next++;
        }
        if (!ok)
            return 0;
        *area += t - a;
    }
    return 1;
}

size_t sd_serving_schedule_gamma(const sd_serving_config *c, double batch)
{
    for (size_t i = 0; i < c->nschedule; i++)
        if (batch <= c->schedule[i].batch_to)
            return (size_t)c->schedule[i].gamma;
    return (size_t)c->schedule[c->nschedule - 1].gamma;
}

/* gamma for the step at decode batch d under the fixed policies. */
static size_t policy_gamma(const sd_serving_config *c, size_t d)
{
    if (c->policy == SD_SERVING_FIXED)
        return c->gamma;
    return c->policy == SD_SERVING_SCHEDULE ? sd_serving_schedule_gamma(c, (double)d) : 0;
}

/* A step planned at gamma: the tokens each running request gets (give[]),
 * the waiting requests it admits (admit of them), its time. */
typedef struct {
    size_t decode, admit, ngroups;
    double decode_tokens, decode_context, draft_context;
    double seconds;
} plan;

double sd_serving_step_time(const sd_serving_config *c, sd_cost_group *g, size_t nchunks, size_t gamma,
                            double draft_context)
{
    const sd_roofline_request *r = c->cost;
    int dec = g[0].sequences > 0;
    sd_cost_group *tg = dec ? g : g + 1; /* the target's groups: the decode batch (if any), the chunks */
    size_t ntg = nchunks + (size_t)dec;
    double t = ntg > 0 ? sd_cost_groups_time(r->target, r->hardware, &r->params, tg, ntg, NULL) : 0.0;
    if (c->policy == SD_SERVING_NONE)
        return t;
    sd_cost_group keep = g[0], draft = { .sequences = g[0].sequences, .tokens = 1, .context = draft_context,
                                         .logits = 1 };
    int drafting = dec && gamma > 0, own = r->draft != r->target && nchunks > 0;
    g[0] = draft;
    if (own) /* the first draft pass reads the prompt chunks too (at gamma 0, only them) */
        t += sd_cost_groups_time(r->draft, r->hardware, &r->draft_params, drafting ? g : g + 1,
                                 nchunks + (size_t)drafting, NULL);
    size_t rest = drafting ? gamma - (size_t)own : 0;
    if (rest > 0)
        t += (double)rest * sd_cost_groups_time(r->draft, r->hardware, &r->draft_params, &draft, 1, NULL);
    g[0] = keep;
    return t;
}

static plan make_plan(sim *s, size_t gamma)
{
    const sd_serving_config *c = s->c;
    const double window = c->cost->draft_window;
    plan p = { 0 };
    double budget = (double)c->max_num_batched_tokens, kv = s->kv_used;
    for (size_t i = 0; i < s->nrun; i++) {
        request *q = &s->r[s->run[i]];
        double g;
        if (q->prefilled < q->prompt) {
            g = fmin(q->prompt - q->prefilled, budget);
            if (g > 0)
                s->groups[1 + p.ngroups++] = (sd_cost_group){ .sequences = 1, .tokens = g, .context = q->prefilled,
                                                              .logits = q->prefilled + g >= q->prompt };
        } else {
            g = fmin(1.0 + (double)gamma, budget);
            if (g > 0) {
                double ctx = q->prompt + q->emitted - 1; /* the cache: the prompt and every token but the last */
                p.decode++;
                p.decode_tokens += g;
                p.decode_context += ctx;
                p.draft_context += window > 0 ? fmin(ctx, window) : ctx;
            }
        }
        s->give[i] = g;
        budget -= g;
    }
    for (size_t w = s->whead; w < s->wtail && budget > 0 && s->nrun + p.admit < c->max_num_seqs; w++) {
        request *q = &s->r[s->wait[w]];
        if (kv + q->kv > s->kv_cap)
            break; /* first come, first served: the head waits for memory, and so does everyone behind it */
        kv += q->kv;
        double g = fmin(q->prompt, budget);
        s->groups[1 + p.ngroups++] = (sd_cost_group){ .sequences = 1, .tokens = g, .context = 0,
                                                      .logits = g >= q->prompt };
        s->give[s->nrun + p.admit++] = g;
        budget -= g;
    }
    double d = (double)p.decode;
    s->groups[0] = p.decode > 0 ? (sd_cost_group){ .sequences = d, .tokens = p.decode_tokens / d,
                                                   .context = p.decode_context / d, .logits = p.decode_tokens / d }
                                : (sd_cost_group){ 0 };
    p.seconds = sd_serving_step_time(c, s->groups, p.ngroups, gamma, p.decode > 0 ? p.draft_context / d : 0.0);
    return p;
}

/* The decode batch the next step would see (running requests past their prompts). */
static size_t decoding(const sim *s)
{
    size_t d = 0;
    for (size_t i = 0; i < s->nrun; i++)
        d += s->r[s->run[i]].prefilled >= s->r[s->run[i]].prompt;
    return d;
}

typedef struct {
    double *ttft, *tpot, *e2e;
    size_t n, ntpot, good, done;
    double t_a, t_b;                 /* the window: the first and the last measured arrival */
    double tokens, completions;      /* inside the window */
    double batch_area, gamma_sum, gamma_steps, area;
    int in_window;
} tally;

static void finish(sim *s, size_t id, tally *y)
{
    const sd_serving_config *c = s->c;
    request *q = &s->r[id];
    s->kv_used -= q->kv;
    q->leave = s->now;
    if (y->in_window)
        y->completions += 1;
    if (id >= c->warmup && id < c->warmup + c->requests) {
        double ttft = q->first - q->arrival, e2e = s->now - q->arrival;
        double tpot = q->output > 1 ? (s->now - q->first) / (q->output - 1) : NAN;
        y->ttft[y->n] = ttft;
        y->e2e[y->n] = e2e;
        if (q->output > 1)
            y->tpot[y->ntpot++] = tpot;
        y->n++;
        y->good += ttft <= c->slo_ttft && (q->output <= 1 || tpot <= c->slo_tpot);
        if (++y->done == c->requests)
            s->generating = 0;
    }
    if (c->arrivals == SD_SERVING_USERS && s->generating) {
        const double p = draw_length(s, &c->prompt, s->dp), o = draw_length(s, &c->output, s->dout);
        if (!arrive(s, s->now, p, o))
            s->generating = -1; /* out of memory, reported by the loop */
    }
}

static double quantile(double *x, size_t n, double q)
{
    return n ? gsl_stats_quantile_from_sorted_data(x, 1, n, q) : NAN;
}

sd_status sd_serving_simulate(const sd_serving_config *c, uint64_t seed, uint64_t stream, sd_serving_result *out,
                              sd_error *err)
{
    sd_status st = sd_serving_check(c, err);
    if (st != SD_OK)
        return st;
    sim s = { .c = c, .generating = 1, .kv_cap = sd_serving_kv_capacity(c) };
    tally y = { .t_a = NAN, .t_b = NAN };
    s.rng = sd_rng_stream(seed, stream);
    s.run = malloc(c->max_num_seqs * sizeof *s.run);
    s.give = malloc((c->max_num_seqs + 1) * sizeof *s.give);
    s.groups = malloc((c->max_num_seqs + 2) * sizeof *s.groups);
    y.ttft = malloc(c->requests * sizeof *y.ttft);
    y.tpot = malloc(c->requests * sizeof *y.tpot);
    y.e2e = malloc(c->requests * sizeof *y.e2e);
    if (c->arrivals != SD_SERVING_TRACE && c->prompt.n > 1)
        s.dp = gsl_ran_discrete_preproc(c->prompt.n, c->prompt.weight);
    if (c->arrivals != SD_SERVING_TRACE && c->output.n > 1)
        s.dout = gsl_ran_discrete_preproc(c->output.n, c->output.weight);
    int ok = s.rng && s.run && s.give && s.groups && y.ttft && y.tpot && y.e2e &&
             (c->arrivals == SD_SERVING_TRACE || ((c->prompt.n == 1 || s.dp) && (c->output.n == 1 || s.dout)));
    if (ok && c->arrivals == SD_SERVING_POISSON)
        s.next_arrival = gsl_ran_exponential(s.rng, 1.0 / c->rate);
    for (size_t u = 0; ok && c->arrivals == SD_SERVING_USERS && u < c->users; u++)
        ok = arrive(&s, 0.0, draw_length(&s, &c->prompt, s.dp), draw_length(&s, &c->output, s.dout));
    size_t steps = 0;
    while (ok) {
        if (s.generating < 0) {
            ok = 0;
            break;
        }
        if (s.nrun == 0 && s.whead == s.wtail) { /* idle: jump to the next arrival, or stop */
            double a = next_time(&s);
            if (!isfinite(a))
                break;
            s.now = a;
            if (!(ok = arrivals_until(&s, s.now, &y.area)))
                break;
        }
        /* the window opens with the first measured arrival and closes with the last */
        if (isnan(y.t_a) && s.n > c->warmup) {
            y.t_a = s.r[c->warmup].arrival;
            y.in_window = 1;
        }
        if (isnan(y.t_b) && s.n >= c->warmup + c->requests) {
            y.t_b = s.r[c->warmup + c->requests - 1].arrival;
            y.in_window = 0;
        }
        size_t gamma = 0, d = decoding(&s);
        plan p;
        if (c->policy == SD_SERVING_GOODPUT) {
            double best = -1;
            size_t top = d > 0 ? c->gamma_max : 0;
            for (size_t g = 0; g <= top; g++) {
                plan q = make_plan(&s, g);
                double rate = (q.decode > 0 ? (double)q.decode * sd_serving_expected_tokens(c, g) : 0) / q.seconds;
                if (rate > best * (1 + 1e-12)) {
                    best = rate;
                    gamma = g;
                }
            }
        } else
            gamma = policy_gamma(c, d);
        p = make_plan(&s, gamma); /* the plan chosen (its give[] the one applied) */
        if (!(p.seconds > 0) || (p.decode == 0 && p.ngroups == 0)) {
            /* nothing schedulable: the head of the queue waits for memory that no running request will free */
            st = sd_status_fail(err, SD_EINVAL, "memory: the waiting request cannot be admitted and nothing runs");
            ok = 0;
            break;
        }
        size_t in_system = s.nrun + (s.wtail - s.whead);
        /* the step: integrate the requests in the system, take in the arrivals during it */
        y.area += (double)in_system * p.seconds;
        if (!(ok = arrivals_until(&s, s.now + p.seconds, &y.area)))
            break;
        if (y.in_window) {
            y.batch_area += (double)(s.nrun + p.admit) * p.seconds;
            if (p.decode > 0)
                y.gamma_sum += (double)gamma, y.gamma_steps += 1;
        }
        s.now += p.seconds;
        steps++;
        /* admit */
        for (size_t k = 0; k < p.admit; k++) {
            size_t id = s.wait[s.whead++];
            s.kv_used += s.r[id].kv;
            s.run[s.nrun++] = id;
        }
        /* outcomes, then the finished leave (the order of the rest kept) */
        size_t keep = 0;
        for (size_t i = 0; i < s.nrun; i++) {
            size_t id = s.run[i];
            request *q = &s.r[id];
            double g = s.give[i], emitted = 0;
            if (q->prefilled < q->prompt) {
                q->prefilled += g;
                if (q->prefilled >= q->prompt) {
                    q->first = s.now;
                    emitted = 1;
                }
            } else if (g > 0) {
                size_t k = 0, drafts = (size_t)g - 1;
                while (k < drafts && k < c->nacc && gsl_rng_uniform(s.rng) < c->acc[k])
                    k++;
                emitted = fmin((double)k + 1, q->output - q->emitted);
            }
            q->emitted += emitted;
            if (y.in_window)
                y.tokens += emitted;
            if (q->first >= 0 && q->emitted >= q->output)
                finish(&s, id, &y);
            else
                s.run[keep++] = id;
        }
        s.nrun = keep;
    }
    if (ok && st == SD_OK) {
        double window = y.t_b - y.t_a;
        gsl_sort(y.ttft, 1, y.n);
        gsl_sort(y.tpot, 1, y.ntpot);
        gsl_sort(y.e2e, 1, y.n);
        double sojourn = 0; /* the requests' own times, against the step-by-step area */
        for (size_t i = 0; i < s.n; i++)
            sojourn += s.r[i].leave - s.r[i].arrival;
        *out = (sd_serving_result){
            .ttft_mean = gsl_stats_mean(y.ttft, 1, y.n), .ttft_p50 = quantile(y.ttft, y.n, 0.5),
            .ttft_p90 = quantile(y.ttft, y.n, 0.9), .ttft_p99 = quantile(y.ttft, y.n, 0.99),
            .tpot_mean = y.ntpot ? gsl_stats_mean(y.tpot, 1, y.ntpot) : NAN, .tpot_p50 = quantile(y.tpot, y.ntpot, 0.5),
            .tpot_p90 = quantile(y.tpot, y.ntpot, 0.9), .tpot_p99 = quantile(y.tpot, y.ntpot, 0.99),
            .e2e_mean = gsl_stats_mean(y.e2e, 1, y.n), .e2e_p99 = quantile(y.e2e, y.n, 0.99),
            .throughput_tokens = y.tokens / window, .throughput_requests = y.completions / window,
            .mean_batch = y.batch_area / window, .goodput = (double)y.good / window,
            .mean_gamma = y.gamma_steps > 0 ? y.gamma_sum / y.gamma_steps : 0,
            .little_in_system = y.area / s.now, .little_rate = (double)s.n / s.now, .steps = steps };
        out->little_time = sojourn / (double)s.n;
    }
    if (!ok && st == SD_OK)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    gsl_rng_free(s.rng);
    gsl_ran_discrete_free(s.dp);
    gsl_ran_discrete_free(s.dout);
    free(s.r), free(s.wait), free(s.run), free(s.give), free(s.groups);
    free(y.ttft), free(y.tpot), free(y.e2e);
    return st;
}

/* ---- the fingerprint a merge checks ------------------------------------------------------------ */

static uint64_t hash_reals(uint64_t h, const double *x, size_t n)
{
    h = sd_util_fnv(h, &n, sizeof n);
    return x != NULL ? sd_util_fnv(h, x, n * sizeof *x) : h;
}

uint64_t sd_serving_fingerprint(const sd_serving_config *c, uint64_t seed)
{
    uint64_t h = sd_util_fnv(SD_UTIL_FNV_START, &seed, sizeof seed);
    size_t z[] = { (size_t)c->arrivals, c->users, c->requests, c->warmup, c->max_num_seqs, c->max_num_batched_tokens,
                   (size_t)c->policy, c->gamma, c->gamma_max };
    double x[] = { c->rate, c->memory_fraction, c->slo_ttft, c->slo_tpot };
    h = sd_util_fnv(h, z, sizeof z);
    h = sd_util_fnv(h, x, sizeof x);
    h = hash_reals(h, c->trace_time, c->ntrace);
    h = hash_reals(h, c->trace_prompt, c->ntrace);
    h = hash_reals(h, c->trace_output, c->ntrace);
    h = hash_reals(h, c->prompt.value, c->prompt.n);
    h = hash_reals(h, c->prompt.weight, c->prompt.n);
    h = hash_reals(h, c->output.value, c->output.n);
    h = hash_reals(h, c->output.weight, c->output.n);
    h = hash_reals(h, c->acc, c->nacc);
    for (size_t i = 0; i < c->nschedule; i++)
        h = hash_reals(h, &c->schedule[i].batch_from, 3);
    /* the cost model at probe points: what the presets and cost options make of it */
    double probe[8] = { sd_serving_kv_capacity(c), sd_serving_kv_request(c, 512, 256) };
    sd_cost_group g[2] = { { .sequences = 1, .tokens = 1, .context = 1024, .logits = 1 },
                           { .sequences = 1, .tokens = 512, .context = 256, .logits = 1 } };
    for (size_t k = 0; k < 3; k++) /* a decode step alone, then one beside a prompt chunk (g[1]) */
        probe[2 + k] = sd_serving_step_time(c, g, 0, k, 1024);
    g[0].sequences = 64;
    for (size_t k = 0; k < 3; k++)
        probe[5 + k] = sd_serving_step_time(c, g, 1, k, 1024);
    return sd_util_fnv(h, probe, sizeof probe);
}

/* serving_sim.c -- the mechanics of the continuous-batching simulation
 * (serving.h): requests and the waiting queue, arrivals, a step's plan
 * under the token budget (chunked prefill), its outcomes, and what the
 * measurement window tallies. */
#include "specdec/serving.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "specdec/rng.h"
#include "serving_impl.h"

enum { FIRST_CAPACITY = 1024 }; /* requests and queue slots at first; both double when full */

typedef struct {
    double arrival, first, leave, prompt, output, prefilled, emitted, kv;
} request;

/* What the run measures: the measured requests' times, and inside the window (the first and
 * the last measured arrival) the tokens, completions, batch and gamma. */
typedef struct {
    double *ttft, *tpot, *e2e;
    size_t n, ntpot, good, done;
    double t_a, t_b;
    double tokens, completions;
    double batch_area, gamma_sum, gamma_steps, area;
    int in_window;
} tally;

struct sd_serving_sim {
    const sd_serving_config *c;
    gsl_rng *rng;
    gsl_ran_discrete_t *dp, *dout;
    request *r;
    size_t n, cap;                    /* requests made so far */
    size_t *wait, whead, wtail, wcap; /* the waiting queue, wait[whead .. wtail - 1] */
    size_t *run, nrun;                /* running, in admission order */
    double *give;                     /* per running request, then per admitted: its tokens this step */
    sd_cost_group *groups;
    double now, next_arrival, kv_used, kv_cap;
    int generating; /* 1 while measured requests are to come; -1: out of memory */
    size_t trace_next;
    size_t steps;
    tally y;
};

static double draw_length(const sd_serving_sim *s, const sd_serving_lengths *l, gsl_ran_discrete_t *d)
{
    return l->n == 1 ? l->value[0] : l->value[gsl_ran_discrete(s->rng, d)];
}

/* Room for one more request and one more queue slot; 0 when out of memory. */
static int make_room(sd_serving_sim *s)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : FIRST_CAPACITY;
        request *r = realloc(s->r, cap * sizeof *r);
        if (r == NULL)
            return 0;
        s->r = r;
        s->cap = cap;
    }
    if (s->wtail == s->wcap) {
        if (s->whead > 0) { /* slide the queue down */
            memmove(s->wait, s->wait + s->whead, (s->wtail - s->whead) * sizeof *s->wait);
            s->wtail -= s->whead;
            s->whead = 0;
        } else {
            size_t cap = s->wcap ? 2 * s->wcap : FIRST_CAPACITY, *w = realloc(s->wait, cap * sizeof *w);
            if (w == NULL)
                return 0;
            s->wait = w;
            s->wcap = cap;
        }
    }
    return 1;
}

/* A new request arriving at t: into r[] and the waiting queue. */
static int arrive(sd_serving_sim *s, double t, double prompt, double output)
{
    if (!make_room(s))
        return 0;
    s->r[s->n] = (request){ .arrival = t, .first = -1, .prompt = prompt, .output = output,
                            .kv = sd_serving_kv_request(s->c, prompt, output) };
    s->wait[s->wtail++] = s->n++;
    return 1;
}

/* The next open-loop arrival's time (inf: none). */
static double next_time(const sd_serving_sim *s)
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

/* Open-loop arrivals up to time t; the tally's area gains the time each spends in the system
 * before t. */
static int arrivals_until(sd_serving_sim *s, double t)
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
        s->y.area += t - a;
    }
    return 1;
}

/* ---- opening and closing ------------------------------------------------------------------ */

void sd_serving_sim_close(sd_serving_sim *s)
{
    if (s == NULL)
        return;
    gsl_rng_free(s->rng);
    gsl_ran_discrete_free(s->dp);
    gsl_ran_discrete_free(s->dout);
    free(s->r);
    free(s->wait);
    free(s->run);
    free(s->give);
    free(s->groups);
    free(s->y.ttft);
    free(s->y.tpot);
    free(s->y.e2e);
    free(s);
}

sd_serving_sim *sd_serving_sim_open(const sd_serving_config *c, uint64_t seed, uint64_t stream)
{
    sd_serving_sim *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    *s = (sd_serving_sim){ .c = c, .generating = 1, .kv_cap = sd_serving_kv_capacity(c),
                           .y = { .t_a = NAN, .t_b = NAN } };
    s->rng = sd_rng_stream(seed, stream);
    s->run = malloc(c->max_num_seqs * sizeof *s->run);
    s->give = malloc((c->max_num_seqs + 1) * sizeof *s->give);
    s->groups = malloc((c->max_num_seqs + 2) * sizeof *s->groups);
    s->y.ttft = malloc(c->requests * sizeof *s->y.ttft);
    s->y.tpot = malloc(c->requests * sizeof *s->y.tpot);
    s->y.e2e = malloc(c->requests * sizeof *s->y.e2e);
    if (c->arrivals != SD_SERVING_TRACE && c->prompt.n > 1)
        s->dp = gsl_ran_discrete_preproc(c->prompt.n, c->prompt.weight);
    if (c->arrivals != SD_SERVING_TRACE && c->output.n > 1)
        s->dout = gsl_ran_discrete_preproc(c->output.n, c->output.weight);
    int ok = s->rng && s->run && s->give && s->groups && s->y.ttft && s->y.tpot && s->y.e2e &&
             (c->arrivals == SD_SERVING_TRACE || ((c->prompt.n == 1 || s->dp) && (c->output.n == 1 || s->dout)));
    if (ok && c->arrivals == SD_SERVING_POISSON)
        s->next_arrival = gsl_ran_exponential(s->rng, 1.0 / c->rate);
    for (size_t u = 0; ok && c->arrivals == SD_SERVING_USERS && u < c->users; u++)
        ok = arrive(s, 0.0, draw_length(s, &c->prompt, s->dp), draw_length(s, &c->output, s->dout));
    if (!ok) {
        sd_serving_sim_close(s);
        return NULL;
    }
    return s;
}

/* ---- the step ------------------------------------------------------------------------------- */

int sd_serving_sim_next(sd_serving_sim *s)
{
    const sd_serving_config *c = s->c;
    if (s->generating < 0)
        return -1;
    if (s->nrun == 0 && s->whead == s->wtail) { /* idle: jump to the next arrival, or stop */
        double a = next_time(s);
        if (!isfinite(a))
            return 0;
        s->now = a;
        if (!arrivals_until(s, s->now))
            return -1;
    }
    /* the window opens with the first measured arrival and closes with the last */
    if (isnan(s->y.t_a) && s->n > c->warmup) {
        s->y.t_a = s->r[c->warmup].arrival;
        s->y.in_window = 1;
    }
    if (isnan(s->y.t_b) && s->n >= c->warmup + c->requests) {
        s->y.t_b = s->r[c->warmup + c->requests - 1].arrival;
        s->y.in_window = 0;
    }
    return 1;
}

size_t sd_serving_sim_decoding(const sd_serving_sim *s)
{
    size_t d = 0;
    for (size_t i = 0; i < s->nrun; i++)
        d += s->r[s->run[i]].prefilled >= s->r[s->run[i]].prompt;
    return d;
}

/* The running requests' tokens under the budget into give[0 .. nrun - 1], prompt chunks into
 * groups[1 ..], the decoding requests' sums into p; the budget left. */
static double plan_running(sd_serving_sim *s, sd_serving_step *p, double budget)
{
    const double window = s->c->cost->draft_window;
    for (size_t i = 0; i < s->nrun; i++) {
        const request *q = &s->r[s->run[i]];
        double g;
        if (q->prefilled < q->prompt) {
            g = fmin(q->prompt - q->prefilled, budget);
            if (g > 0)
                s->groups[1 + p->chunks++] = (sd_cost_group){ .sequences = 1, .tokens = g, .context = q->prefilled,
                                                              .logits = q->prefilled + g >= q->prompt };
        } else {
            g = fmin(1.0 + (double)p->gamma, budget);
            if (g > 0) {
                double ctx = q->prompt + q->emitted - 1; /* the cache: the prompt and every token but the last */
                p->decode++;
                p->decode_tokens += g;
                p->decode_context += ctx;
                p->draft_context += window > 0 ? fmin(ctx, window) : ctx;
            }
        }
        s->give[i] = g;
        budget -= g;
    }
    return budget;
}

/* The waiting requests admitted, first come first served, while the budget, max_num_seqs and
 * the KV cache allow: their first prompt chunks after the running requests'. */
static void plan_admissions(sd_serving_sim *s, sd_serving_step *p, double budget)
{
    double kv = s->kv_used;
    for (size_t w = s->whead; w < s->wtail && budget > 0 && s->nrun + p->admit < s->c->max_num_seqs; w++) {
        const request *q = &s->r[s->wait[w]];
        if (kv + q->kv > s->kv_cap)
            break; /* first come, first served: the head waits for memory, and so does everyone behind it */
        kv += q->kv;
        double g = fmin(q->prompt, budget);
        s->groups[1 + p->chunks++] = (sd_cost_group){ .sequences = 1, .tokens = g, .context = 0,
                                                      .logits = g >= q->prompt };
        s->give[s->nrun + p->admit++] = g;
        budget -= g;
    }
}

sd_serving_step sd_serving_sim_plan(void *arg, size_t gamma)
{
    sd_serving_sim *s = arg;
    sd_serving_step p = { .gamma = gamma, .give = s->give };
    plan_admissions(s, &p, plan_running(s, &p, (double)s->c->max_num_batched_tokens));
    double d = (double)p.decode;
    s->groups[0] = p.decode > 0 ? (sd_cost_group){ .sequences = d, .tokens = p.decode_tokens / d,
                                                   .context = p.decode_context / d, .logits = p.decode_tokens / d }
                                : (sd_cost_group){ 0 };
    p.seconds = sd_serving_step_time(s->c, s->groups, p.chunks, gamma, p.decode > 0 ? p.draft_context / d : 0.0);
    p.ngive = s->nrun + p.admit;
    return p;
}

/* A measured request's times into the tally; the closed loop's next request. */
static void finish(sd_serving_sim *s, size_t id)
{
    const sd_serving_config *c = s->c;
    request *q = &s->r[id];
    tally *y = &s->y;
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
            s->generating = -1; /* out of memory, reported by sd_serving_sim_next */
    }
}

/* The tokens request q emits from its g tokens this step: its first when its prompt's last
 * chunk is done, else in decode the accepted drafts (acc drawn in turn) and one more. */
static double outcome(sd_serving_sim *s, request *q, double g)
{
    const sd_serving_config *c = s->c;
    if (q->prefilled < q->prompt) {
        q->prefilled += g;
        if (q->prefilled < q->prompt)
            return 0;
        q->first = s->now;
        return 1;
    }
    if (!(g > 0))
        return 0;
    size_t k = 0, drafts = (size_t)g - 1;
    while (k < drafts && k < c->nacc && gsl_rng_uniform(s->rng) < c->acc[k])
        k++;
    return fmin((double)k + 1, q->output - q->emitted);
}

int sd_serving_sim_apply(sd_serving_sim *s, const sd_serving_step *p)
{
    tally *y = &s->y;
    /* integrate the requests in the system over the step, take in the arrivals during it */
    y->area += (double)(s->nrun + (s->wtail - s->whead)) * p->seconds;
    if (!arrivals_until(s, s->now + p->seconds))
        return 0;
    if (y->in_window) {
        y->batch_area += (double)(s->nrun + p->admit) * p->seconds;
        if (p->decode > 0) {
            y->gamma_sum += (double)p->gamma;
            y->gamma_steps += 1;
        }
    }
    s->now += p->seconds;
    s->steps++;
    for (size_t k = 0; k < p->admit; k++) {
        size_t id = s->wait[s->whead++];
        s->kv_used += s->r[id].kv;
        s->run[s->nrun++] = id;
    }
    /* outcomes, then the finished leave (the order of the rest kept) */
    size_t keep = 0;
    for (size_t i = 0; i < s->nrun; i++) {
        size_t id = s->run[i];
        request *q = &s->r[id];
        double emitted = outcome(s, q, s->give[i]);
        q->emitted += emitted;
        if (y->in_window)
            y->tokens += emitted;
        if (q->first >= 0 && q->emitted >= q->output)
            finish(s, id);
        else
            s->run[keep++] = id;
    }
    s->nrun = keep;
    return 1;
}

/* ---- the result ----------------------------------------------------------------------------- */

static double quantile(const double *x, size_t n, double q)
{
    return n ? gsl_stats_quantile_from_sorted_data(x, 1, n, q) : NAN;
}

void sd_serving_sim_result(sd_serving_sim *s, sd_serving_result *out)
{
    tally *y = &s->y;
    double window = y->t_b - y->t_a;
    gsl_sort(y->ttft, 1, y->n);
    gsl_sort(y->tpot, 1, y->ntpot);
    gsl_sort(y->e2e, 1, y->n);
    double sojourn = 0; /* the requests' own times, against the step-by-step area */
    for (size_t i = 0; i < s->n; i++)
        sojourn += s->r[i].leave - s->r[i].arrival;
    *out = (sd_serving_result){
        .ttft_mean = gsl_stats_mean(y->ttft, 1, y->n), .ttft_p50 = quantile(y->ttft, y->n, 0.5),
        .ttft_p90 = quantile(y->ttft, y->n, 0.9), .ttft_p99 = quantile(y->ttft, y->n, 0.99),
        .tpot_mean = y->ntpot ? gsl_stats_mean(y->tpot, 1, y->ntpot) : NAN,
        .tpot_p50 = quantile(y->tpot, y->ntpot, 0.5), .tpot_p90 = quantile(y->tpot, y->ntpot, 0.9),
        .tpot_p99 = quantile(y->tpot, y->ntpot, 0.99), .e2e_mean = gsl_stats_mean(y->e2e, 1, y->n),
        .e2e_p99 = quantile(y->e2e, y->n, 0.99), .throughput_tokens = y->tokens / window,
        .throughput_requests = y->completions / window, .mean_batch = y->batch_area / window,
        .goodput = (double)y->good / window, .mean_gamma = y->gamma_steps > 0 ? y->gamma_sum / y->gamma_steps : 0,
        .little_in_system = y->area / s->now, .little_rate = (double)s->n / s->now, .steps = s->steps };
    out->little_time = sojourn / (double)s->n;
}

/* serving_config.c -- the serving configuration (serving.h): its defaults and
 * domains, the KV cache it leaves, what a step costs and emits, and the
 * fingerprint a merge checks. */
#include "specdec/serving.h"

#include <math.h>

#include "specdec/dtype.h"
#include "common/util.h"
#include "serving_impl.h"

/* The default workload's lengths (serving.h: sd_serving_defaults). */
static const double DEFAULT_PROMPT = 512, DEFAULT_OUTPUT = 256;

sd_serving_config sd_serving_defaults(void)
{
    return (sd_serving_config){ .arrivals = SD_SERVING_POISSON,
                                .prompt = { &DEFAULT_PROMPT, NULL, 1 },
                                .output = { &DEFAULT_OUTPUT, NULL, 1 },
                                .requests = 10000,
                                .warmup = 1000,
                                .max_num_seqs = 256,
                                .max_num_batched_tokens = 8192,
                                .memory_fraction = 0.9,
                                .policy = SD_SERVING_NONE,
                                .gamma_max = 8,
                                .slo_ttft = INFINITY,
                                .slo_tpot = INFINITY };
}

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

/* ---- a step's time ------------------------------------------------------------------------- */

double sd_serving_step_time(const sd_serving_config *c, sd_cost_group *g, size_t nchunks, size_t gamma,
                            double draft_context)
{
    const sd_roofline_request *r = c->cost;
    int dec = g[0].sequences > 0;
    sd_cost_group *tg = dec ? g : g + 1; /* the target's groups: the decode batch (if any), the chunks */
    size_t ntg = nchunks + (size_t)dec;
    const sd_loop_params *lp = &r->loop;
    double t = ntg > 0 ? sd_cost_groups_time(r->target, r->hardware, &r->params, tg, ntg, NULL) : 0.0;
    double running = g[0].sequences + (double)nchunks, host = running * lp->host_seq; /* loop.h's B h */
    if (c->policy == SD_SERVING_NONE)
        return t + host;
    sd_cost_group keep = g[0], draft = { .sequences = g[0].sequences, .tokens = 1, .context = draft_context,
                                         .logits = 1 };
    int drafting = dec && gamma > 0, own = r->draft != r->target && nchunks > 0;
    if (drafting) /* the loop's own time (loop.h), but the catch-up pass */
        t = t * (1.0 + lp->verify_premium) + (double)gamma * (lp->draft_step + g[0].sequences * lp->draft_step_seq) +
            lp->iteration + g[0].sequences * (double)(gamma + 1) * lp->iteration_token;
    t += host;
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

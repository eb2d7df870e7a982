/* cmd_serving_read.c -- `specdec serving`'s request read into a serving configuration
 * (serving.h): the pair and its costs, the speculation choices, the acceptance, the engine's
 * limits and the workload. */
#include "cmd_serving_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const sd_domain SERVING_RATE = { "--rate", 1e-9, 1e9, 0 };
const sd_domain SERVING_USERS = { "--users", 1, 1e6, 1 };
const sd_domain SERVING_LENGTH = { "--prompt", 1, 16777216, 1 };
const sd_domain SERVING_OUTPUT = { "--output", 1, 16777216, 1 };
const sd_domain SERVING_REQUESTS = { "--requests", 2, 1e8, 1 };
const sd_domain SERVING_WARMUP = { "--warmup", 0, 1e8, 1 };
const sd_domain SERVING_SEQS = { "--max-num-seqs", 1, 65536, 1 };
const sd_domain SERVING_BATCHED = { "--max-num-batched-tokens", 1, 16777216, 1 };
const sd_domain SERVING_MEMFRAC = { "--memory-fraction", 1e-3, 1, 0 };
static const sd_domain SGAMMA = { "--gamma", 0, 256, 1 };
const sd_domain SERVING_GMAX = { "--gamma-max", 1, 256, 1 };
const sd_domain SERVING_SLO_TTFT = { "--slo-ttft", 1e-9, INFINITY, 0 };
const sd_domain SERVING_SLO_TPOT = { "--slo-tpot", 1e-9, INFINITY, 0 };
const sd_domain SERVING_REPS = { "--replications", 1, 1000, 1 };

static const char *const METHODS[] = { "analytic", "simulate", "both", NULL };
const char *const *serving_method_names(void) { return METHODS; }

void serving_run_free(serving_run *r)
{
    sd_cmd_costs_free(&r->costs);
    sd_presets_free(&r->presets);
    sd_parse_list_free(&r->acc);
    sd_parse_list_free(&r->loads);
    for (int i = 0; i < 4; i++)
        free(r->len[i]);
    for (int i = 0; i < 3; i++)
        free(r->trace_col[i]);
    free(r->spec);
    free(r->buckets);
}

int serving_speculates(const serving_run *r)
{
    for (size_t i = 0; i < r->nspec; i++)
        if (r->spec[i].policy != SD_SERVING_NONE)
            return 1;
    return 0;
}

/* --prompt/--output: a whole number, or a TSV histogram with columns length and weight. */
static sd_status read_lengths(const sd_command_args *a, const sd_domain *dom, sd_serving_lengths *l, double **v, double **w,
                              sd_error *err)
{
    char buf[64];
    const char *text = sd_command_args_text(a, dom->name, buf, sizeof buf);
    double x;
    sd_error e2;
    if (sd_parse_number(text, dom, &x, &e2) == SD_OK) {
        *v = malloc(sizeof **v);
        if (*v == NULL)
            return sd_status_fail(err, SD_ENOMEM, "out of memory");
        **v = x;
        *l = (sd_serving_lengths){ .value = *v, .n = 1 };
        return SD_OK;
    }
    if (strspn(text, "0123456789.eE+-") == strlen(text)) /* a number out of its domain, not a file */
        return sd_parse_number(text, dom, &x, err);
    size_t n;
    sd_status st = sd_serving_load_lengths(text, v, w, &n, err);
    if (st == SD_OK)
        *l = (sd_serving_lengths){ .value = *v, .weight = *w, .n = n };
    else {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        st = sd_status_fail(err, st, "%s: %s", dom->name, msg);
    }
    return st;
}

/* --trace FILE (sd_serving_load_trace). */
static sd_status read_trace(const sd_command_args *a, serving_run *r, sd_serving_config *c, sd_error *err)
{
    sd_status st = sd_serving_load_trace(sd_command_args_value(a, "--trace"), &r->trace_col[0], &r->trace_col[1], &r->trace_col[2],
                                         &c->ntrace, err);
    if (st != SD_OK) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return sd_status_fail(err, st, "--trace: %s", msg);
    }
    c->trace_time = r->trace_col[0], c->trace_prompt = r->trace_col[1], c->trace_output = r->trace_col[2];
    return SD_OK;
}

/* --gamma LIST: numbers (0: none) and the names schedule and goodput. */
static sd_status read_spec(const sd_command_args *a, serving_run *r, sd_error *err)
{
    char buf[64];
    const char *text = sd_command_args_text(a, "--gamma", buf, sizeof buf);
    size_t n = 1;
    for (const char *p = text; *p; p++)
        n += *p == ',';
    if ((r->spec = calloc(n, sizeof *r->spec)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    char *copy = strdup(text), *save = NULL;
    if (copy == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    sd_status st = SD_OK;
    for (char *t = strtok_r(copy, ",", &save); t != NULL && st == SD_OK; t = strtok_r(NULL, ",", &save)) {
        serving_spec *s = &r->spec[r->nspec++];
        if (strcmp(t, "schedule") == 0 || strcmp(t, "goodput") == 0 || strcmp(t, "none") == 0) {
            s->policy = t[0] == 's' ? SD_SERVING_SCHEDULE : t[0] == 'g' ? SD_SERVING_GOODPUT : SD_SERVING_NONE;
            snprintf(s->name, sizeof s->name, "%s", t);
            continue;
        }
        double g;
        sd_error e2;
        if (sd_parse_number(t, &SGAMMA, &g, &e2) != SD_OK) {
            st = sd_status_fail(err, SD_EINVAL, "--gamma: '%s' is neither a draft length in [0, 256] nor none, "
                                "schedule or goodput", t);
            break;
        }
        s->policy = g > 0 ? SD_SERVING_FIXED : SD_SERVING_NONE;
        s->gamma = (size_t)g;
        snprintf(s->name, sizeof s->name, "%zu", s->gamma);
    }
    free(copy);
    if (st == SD_OK && r->nspec == 0)
        st = sd_status_fail(err, SD_EINVAL, "--gamma: empty");
    return st;
}

/* The acceptance by position: --alpha (i.i.d., gamma_max positions), --acceptance A1,...,AG, or
 * --counts FILE (fit's per-position acceptance, sd_cmd_cost_fitted_acceptance). */
static sd_status read_acceptance(const sd_command_args *a, serving_run *r, size_t top, sd_error *err)
{
    int given = sd_command_args_given(a, "--alpha") + sd_command_args_given(a, "--acceptance") +
                sd_command_args_given(a, "--counts");
    if (given == 0 && !serving_speculates(r)) { /* no draft runs: acceptance 0, never read */
        if ((r->acc.v = calloc(1, sizeof *r->acc.v)) == NULL)
            return sd_status_fail(err, SD_ENOMEM, "out of memory");
        r->acc.n = 1;
        return SD_OK;
    }
    if (given != 1)
        return sd_status_fail(err, SD_EINVAL, "serving: give --alpha A, --acceptance A1,...,AG or --counts FILE (one "
                              "of them)");
    if (sd_command_args_given(a, "--acceptance"))
        return sd_command_args_list(a, &SD_CMD_ACCEPTANCE, &r->acc, err);
    if (sd_command_args_given(a, "--counts"))
        return sd_cmd_cost_fitted_acceptance(a, top, &r->acc, err);
    double alpha;
    sd_status st = sd_command_args_number(a, &SD_CMD_ALPHA, &alpha, err);
    if (st != SD_OK)
        return st;
    if ((r->acc.v = malloc(top * sizeof *r->acc.v)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    r->acc.n = top;
    for (size_t k = 0; k < top; k++)
        r->acc.v[k] = alpha;
    return SD_OK;
}

/* The schedule policy's buckets: roofline --schedule's (sd_cost_schedule) at the mean context,
 * over batches 1 .. max_num_seqs in powers of two, gamma 1..gamma_max. */
static sd_status make_schedule(serving_run *r, const sd_serving_config *c, double context, sd_error *err)
{
    double batches[32], gammas[256];
    size_t nb = 0;
    for (double b = 1; b < (double)c->max_num_seqs && nb < 31; b *= 2)
        batches[nb++] = b;
    batches[nb++] = (double)c->max_num_seqs;
    for (size_t g = 0; g < c->gamma_max; g++)
        gammas[g] = (double)(g + 1);
    sd_roofline_request q = r->rq;
    q.acc = r->acc.v, q.nacc = r->acc.n, q.gammas = gammas, q.ngammas = c->gamma_max;
    if ((r->buckets = malloc(nb * sizeof *r->buckets)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    r->nbuckets = sd_cost_schedule(&q, batches, nb, context, r->buckets);
    return SD_OK;
}

/* The pair and its cost terms; without speculation and without --draft, no draft (the n-gram
 * proposer: no weights, no passes). */
static sd_status read_pair(const sd_command_args *a, serving_run *r, sd_error *err)
{
    sd_status st = sd_cmd_cost_presets(a, &r->presets, err);
    if (st != SD_OK)
        return st;
    const char *draft = sd_command_args_value(a, "--draft");
    if (draft == NULL && !serving_speculates(r))
        draft = "ngram";
    return sd_cmd_cost_request_for(a, &r->presets, draft, &r->rq, &r->costs, err);
}

/* The engine's limits: --max-num-seqs, --max-num-batched-tokens, --memory-fraction, --gamma-max. */
static sd_status read_engine(const sd_command_args *a, sd_serving_config *c, sd_error *err)
{
    double x;
    sd_status st;
    if ((st = sd_command_args_number(a, &SERVING_SEQS, &x, err)) != SD_OK)
        return st;
    c->max_num_seqs = (size_t)x;
    if ((st = sd_command_args_number(a, &SERVING_BATCHED, &x, err)) != SD_OK)
        return st;
    c->max_num_batched_tokens = (size_t)x;
    if ((st = sd_command_args_number(a, &SERVING_MEMFRAC, &c->memory_fraction, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SERVING_GMAX, &x, err)) != SD_OK)
        return st;
    c->gamma_max = (size_t)x;
    return SD_OK;
}

/* The SLOs, the requests measured and before them. */
static sd_status read_measure(const sd_command_args *a, sd_serving_config *c, sd_error *err)
{
    double x;
    sd_status st;
    if ((sd_command_args_given(a, "--slo-ttft") && (st = sd_command_args_number(a, &SERVING_SLO_TTFT, &c->slo_ttft, err)) != SD_OK) ||
        (sd_command_args_given(a, "--slo-tpot") && (st = sd_command_args_number(a, &SERVING_SLO_TPOT, &c->slo_tpot, err)) != SD_OK) ||
        (st = sd_command_args_number(a, &SERVING_REQUESTS, &x, err)) != SD_OK)
        return st;
    c->requests = (size_t)x;
    c->warmup = c->requests / 10;
    if (sd_command_args_given(a, "--warmup") && (st = sd_command_args_number(a, &SERVING_WARMUP, &x, err)) == SD_OK)
        c->warmup = (size_t)x;
    return st;
}

/* A method the twin cannot take: refused when given, else the simulation alone. */
static sd_status simulated_only(const sd_command_args *a, int *method, const char *why, sd_error *err)
{
    if (*method != SERVING_SIMULATE && sd_command_args_given(a, "--method"))
        return sd_status_fail(err, SD_EINVAL, "--method: %s is simulated only (the twin is for Poisson arrivals)", why);
    *method = SERVING_SIMULATE;
    return SD_OK;
}

/* The arrivals: a trace, or Poisson rates or closed-loop users of the lengths --prompt and --output. */
static sd_status read_workload(const sd_command_args *a, serving_run *r, sd_serving_config *c, int *method,
                               sd_error *err)
{
    sd_status st;
    if (sd_command_args_given(a, "--trace")) {
        c->arrivals = SD_SERVING_TRACE;
        if ((st = read_trace(a, r, c, err)) != SD_OK)
            return st;
        if (!sd_command_args_given(a, "--requests")) {
            c->warmup = c->ntrace / 10;
            c->requests = c->ntrace - c->warmup;
        }
        return simulated_only(a, method, "a trace", err);
    }
    if ((st = read_lengths(a, &SERVING_LENGTH, &c->prompt, &r->len[0], &r->len[1], err)) != SD_OK ||
        (st = read_lengths(a, &SERVING_OUTPUT, &c->output, &r->len[2], &r->len[3], err)) != SD_OK)
        return st;
    int users = sd_command_args_given(a, "--users");
    c->arrivals = users ? SD_SERVING_USERS : SD_SERVING_POISSON;
    if ((st = sd_command_args_list(a, users ? &SERVING_USERS : &SERVING_RATE, &r->loads, err)) != SD_OK)
        return st;
    if (users)
        return simulated_only(a, method, "a closed loop of --users", err);
    return SD_OK;
}

/* The first load and speculation choice into c, the schedule's buckets when a choice is the
 * schedule, then c checked as given, before any run. */
static sd_status finish_config(serving_run *r, sd_serving_config *c, sd_error *err)
{
    sd_status st;
    if (c->arrivals == SD_SERVING_POISSON)
        c->rate = r->loads.v[0];
    else if (c->arrivals == SD_SERVING_USERS)
        c->users = (size_t)r->loads.v[0];
    c->policy = r->spec[0].policy;
    c->gamma = r->spec[0].gamma;
    for (size_t i = 0; i < r->nspec; i++)
        r->schedule |= r->spec[i].policy == SD_SERVING_SCHEDULE;
    if (r->schedule) {
        double ctx = c->arrivals == SD_SERVING_TRACE ? c->trace_prompt[0] : c->prompt.value[0];
        if ((st = make_schedule(r, c, ctx, err)) != SD_OK)
            return st;
        c->schedule = r->buckets;
        c->nschedule = r->nbuckets;
    }
    return sd_serving_check(c, err);
}

sd_status serving_read(const sd_command_args *a, serving_run *r, sd_serving_config *c, sd_error *err)
{
    sd_status st;
    *c = sd_serving_defaults();
    c->slo_ttft = c->slo_tpot = INFINITY;
    int nw = sd_command_args_given(a, "--rate") + sd_command_args_given(a, "--users") + sd_command_args_given(a, "--trace");
    if (nw != 1)
        return sd_status_fail(err, SD_EINVAL, "serving: give --rate LIST, --users LIST or --trace FILE (one of them)");
    if ((st = read_spec(a, r, err)) != SD_OK || (st = read_pair(a, r, err)) != SD_OK)
        return st;
    c->cost = &r->rq;
    double seed, reps;
    if ((st = sd_command_args_choice(a, "--method", NULL, &r->method, err)) != SD_OK ||
        (st = read_engine(a, c, err)) != SD_OK)
        return st;
    size_t top = c->gamma_max;
    for (size_t i = 0; i < r->nspec; i++)
        top = r->spec[i].gamma > top ? r->spec[i].gamma : top;
    if ((st = read_acceptance(a, r, top, err)) != SD_OK)
        return st;
    c->acc = r->acc.v;
    c->nacc = r->acc.n;
    if ((st = read_measure(a, c, err)) != SD_OK || (st = sd_command_args_number(a, &SD_CMD_SEED, &seed, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SERVING_REPS, &reps, err)) != SD_OK ||
        (st = read_workload(a, r, c, &r->method, err)) != SD_OK)
        return st;
    r->seed = (uint64_t)seed;
    r->replications = (size_t)reps;
    return finish_config(r, c, err);
}


/* cmd_serving.c -- `specdec serving`: TTFT, TPOT and goodput against the request rate (or the
 * users of a closed loop, or a trace), with and without speculation, by the continuous-batching
 * simulation and its analytical twin side by side (serving.h). */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

static const sd_domain RATE = { "--rate", 1e-9, 1e9, 0 };
static const sd_domain USERS = { "--users", 1, 1e6, 1 };
static const sd_domain LENGTH = { "--prompt", 1, 16777216, 1 };
static const sd_domain OUTPUT = { "--output", 1, 16777216, 1 };
static const sd_domain REQUESTS = { "--requests", 2, 1e8, 1 };
static const sd_domain WARMUP = { "--warmup", 0, 1e8, 1 };
static const sd_domain SEQS = { "--max-num-seqs", 1, 65536, 1 };
static const sd_domain BATCHED = { "--max-num-batched-tokens", 1, 16777216, 1 };
static const sd_domain MEMFRAC = { "--memory-fraction", 1e-3, 1, 0 };
static const sd_domain SGAMMA = { "--gamma", 0, 256, 1 };
static const sd_domain GMAX = { "--gamma-max", 1, 256, 1 };
static const sd_domain SLO_TTFT = { "--slo-ttft", 1e-9, INFINITY, 0 };
static const sd_domain SLO_TPOT = { "--slo-tpot", 1e-9, INFINITY, 0 };
static const sd_domain REPS = { "--replications", 1, 1000, 1 };

enum { METHOD_ANALYTIC, METHOD_SIMULATE, METHOD_BOTH };
static const char *const METHODS[] = { "analytic", "simulate", "both", NULL };
static const char *const *method_names(void) { return METHODS; }

/* One entry of --gamma: a number (0: no speculation) or a policy's name. */
typedef struct {
    sd_serving_policy policy;
    size_t gamma;
    char name[16];
} spec_choice;

/* What one run holds and must release. */
typedef struct {
    sd_presets presets;
    cli_costs costs;
    sd_roofline_request rq;
    sd_list acc, loads;
    double *len[4]; /* prompt value, weight; output value, weight */
    double *trace_col[3];
    spec_choice *spec;
    size_t nspec;
    sd_schedule_bucket *buckets;
    size_t nbuckets;
} run;

static void run_free(run *r)
{
    cli_costs_free(&r->costs);
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

/* --prompt/--output: a whole number, or a TSV histogram with columns length and weight. */
static sd_status read_lengths(const cli_args *a, const sd_domain *dom, sd_serving_lengths *l, double **v, double **w,
                              sd_error *err)
{
    char buf[64];
    const char *text = cli_text(a, dom->name, buf, sizeof buf);
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
static sd_status read_trace(const cli_args *a, run *r, sd_serving_config *c, sd_error *err)
{
    sd_status st = sd_serving_load_trace(cli_value(a, "--trace"), &r->trace_col[0], &r->trace_col[1], &r->trace_col[2],
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
static sd_status read_spec(const cli_args *a, run *r, sd_error *err)
{
    char buf[64];
    const char *text = cli_text(a, "--gamma", buf, sizeof buf);
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
        spec_choice *s = &r->spec[r->nspec++];
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
 * --counts FILE (fit's per-position acceptance, cli_fitted_acceptance). */
static sd_status read_acceptance(const cli_args *a, run *r, size_t top, sd_error *err)
{
    int given = cli_given(a, "--alpha") + cli_given(a, "--acceptance") + cli_given(a, "--counts");
    if (given != 1)
        return sd_status_fail(err, SD_EINVAL, "serving: give --alpha A, --acceptance A1,...,AG or --counts FILE (one "
                              "of them)");
    if (cli_given(a, "--acceptance"))
        return cli_list(a, &CLI_ACCEPTANCE, &r->acc, err);
    if (cli_given(a, "--counts"))
        return cli_fitted_acceptance(a, top, &r->acc, err);
    double alpha;
    sd_status st = cli_number(a, &CLI_ALPHA, &alpha, err);
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
static sd_status make_schedule(run *r, const sd_serving_config *c, double context, sd_error *err)
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

/* Replications' mean of x[0..n-1] (stride), its 95% t interval into lo, hi (NaN for one). */
static double rep_mean(const double *x, size_t stride, size_t n, double *lo, double *hi)
{
    double m = gsl_stats_mean(x, stride, n);
    if (n < 2) {
        *lo = *hi = NAN;
        return m;
    }
    double h = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) * gsl_stats_sd_m(x, stride, n, m) / sqrt((double)n);
    *lo = m - h, *hi = m + h;
    return m;
}

static sd_cell num_or_dash(double x) { return isfinite(x) ? sd_real(x) : sd_text("-"); }

enum { NFIELDS = 15 };
static double *field(sd_serving_result *r, int k)
{
    double *f[NFIELDS] = { &r->ttft_mean, &r->ttft_p50, &r->ttft_p90, &r->ttft_p99, &r->tpot_mean, &r->tpot_p50,
                           &r->tpot_p90, &r->tpot_p99, &r->e2e_mean, &r->e2e_p99, &r->throughput_tokens,
                           &r->throughput_requests, &r->mean_batch, &r->goodput, &r->mean_gamma };
    return f[k];
}

static const char *const COLS[] = { "rate", "users", "gamma", "method", "ttft_mean", "ttft_p50", "ttft_p90",
                                    "ttft_p99", "tpot_mean", "tpot_p50", "tpot_p90", "tpot_p99", "e2e_mean",
                                    "e2e_p99", "throughput_tokens", "throughput_requests", "mean_batch", "goodput",
                                    "mean_gamma", "ttft_mean_lo", "ttft_mean_hi", "tpot_mean_lo", "tpot_mean_hi",
                                    "goodput_lo", "goodput_hi", "saturation_rate" };
enum { NCOLS = sizeof COLS / sizeof COLS[0] };

/* One replication of the simulation, its fields into v (cli_replicas). */
typedef struct {
    const sd_serving_config *c;
    uint64_t seed;
} replication;

static sd_status simulate_one(void *arg, size_t k, double *v, sd_error *err)
{
    const replication *rp = arg;
    sd_serving_result r;
    sd_status st = sd_serving_simulate(rp->c, rp->seed, k, &r, err);
    for (int f = 0; st == SD_OK && f < NFIELDS; f++)
        v[f] = *field(&r, f);
    return st;
}

static sd_status add_row(sd_table *t, const sd_serving_config *c, const spec_choice *s, const char *method,
                         sd_serving_result *m, const double *lohi, double sat, sd_error *err)
{
    sd_cell row[NCOLS];
    size_t k = 0;
    row[k++] = c->arrivals == SD_SERVING_POISSON ? sd_real(c->rate) : sd_text("-");
    row[k++] = c->arrivals == SD_SERVING_USERS ? sd_int((long long)c->users) : sd_text("-");
    row[k++] = sd_text(s->name);
    row[k++] = sd_text(method);
    for (int f = 0; f < NFIELDS; f++)
        row[k++] = num_or_dash(*field(m, f));
    for (int f = 0; f < 6; f++)
        row[k++] = num_or_dash(lohi[f]);
    row[k++] = num_or_dash(sat);
    return sd_table_add(t, row, err);
}

static sd_status run_serving(const cli_args *a, sd_table **out, sd_error *err)
{
    run r;
    memset(&r, 0, sizeof r);
    sd_table *t = NULL;
    sd_serving_config c = { .slo_ttft = INFINITY, .slo_tpot = INFINITY, .memory_fraction = 0.9 };
    double x, seed, reps;
    int method;
    sd_status st;
    *out = NULL;
    int nw = cli_given(a, "--rate") + cli_given(a, "--users") + cli_given(a, "--trace");
    if (nw != 1) {
        st = sd_status_fail(err, SD_EINVAL, "serving: give --rate LIST, --users LIST or --trace FILE (one of them)");
        goto done;
    }
    if ((st = cli_presets_load(a, &r.presets, err)) != SD_OK)
        goto done;
    if ((st = cli_roofline_request(a, &r.presets, &r.rq, &r.costs, err)) != SD_OK) {
        sd_presets_free(&r.presets);
        memset(&r.presets, 0, sizeof r.presets);
        goto done;
    }
    c.cost = &r.rq;
    if ((st = cli_choice(a, "--method", NULL, &method, err)) != SD_OK || (st = read_spec(a, &r, err)) != SD_OK ||
        (st = cli_number(a, &SEQS, &x, err)) != SD_OK)
        goto done;
    c.max_num_seqs = (size_t)x;
    if ((st = cli_number(a, &BATCHED, &x, err)) != SD_OK)
        goto done;
    c.max_num_batched_tokens = (size_t)x;
    if ((st = cli_number(a, &MEMFRAC, &c.memory_fraction, err)) != SD_OK || (st = cli_number(a, &GMAX, &x, err)) != SD_OK)
        goto done;
    c.gamma_max = (size_t)x;
    size_t top = c.gamma_max;
    for (size_t i = 0; i < r.nspec; i++)
        top = r.spec[i].gamma > top ? r.spec[i].gamma : top;
    if ((st = read_acceptance(a, &r, top, err)) != SD_OK)
        goto done;
    c.acc = r.acc.v, c.nacc = r.acc.n;
    if ((cli_given(a, "--slo-ttft") && (st = cli_number(a, &SLO_TTFT, &c.slo_ttft, err)) != SD_OK) ||
        (cli_given(a, "--slo-tpot") && (st = cli_number(a, &SLO_TPOT, &c.slo_tpot, err)) != SD_OK) ||
        (st = cli_number(a, &REQUESTS, &x, err)) != SD_OK)
        goto done;
    c.requests = (size_t)x;
    c.warmup = c.requests / 10;
    if (cli_given(a, "--warmup") && (st = cli_number(a, &WARMUP, &x, err)) == SD_OK)
        c.warmup = (size_t)x;
    if (st != SD_OK || (st = cli_number(a, &CLI_SEED, &seed, err)) != SD_OK ||
        (st = cli_number(a, &REPS, &reps, err)) != SD_OK)
        goto done;
    if (cli_given(a, "--trace")) {
        c.arrivals = SD_SERVING_TRACE;
        if ((st = read_trace(a, &r, &c, err)) != SD_OK)
            goto done;
        if (!cli_given(a, "--requests"))
            c.warmup = c.ntrace / 10, c.requests = c.ntrace - c.warmup;
        if (method != METHOD_SIMULATE && cli_given(a, "--method")) {
            st = sd_status_fail(err, SD_EINVAL, "--method: a trace is simulated only (the twin is for Poisson "
                                "arrivals)");
            goto done;
        }
        method = METHOD_SIMULATE;
    } else {
        if ((st = read_lengths(a, &LENGTH, &c.prompt, &r.len[0], &r.len[1], err)) != SD_OK ||
            (st = read_lengths(a, &OUTPUT, &c.output, &r.len[2], &r.len[3], err)) != SD_OK)
            goto done;
        int users = cli_given(a, "--users");
        c.arrivals = users ? SD_SERVING_USERS : SD_SERVING_POISSON;
        if ((st = cli_list(a, users ? &USERS : &RATE, &r.loads, err)) != SD_OK)
            goto done;
        if (users && method != METHOD_SIMULATE) {
            if (cli_given(a, "--method")) {
                st = sd_status_fail(err, SD_EINVAL, "--method: a closed loop of --users is simulated only (the twin "
                                    "is for Poisson arrivals)");
                goto done;
            }
            method = METHOD_SIMULATE;
        }
    }
    if (c.arrivals == SD_SERVING_POISSON)
        c.rate = r.loads.v[0];
    else if (c.arrivals == SD_SERVING_USERS)
        c.users = (size_t)r.loads.v[0];
    c.policy = r.spec[0].policy, c.gamma = r.spec[0].gamma;
    int schedule = 0;
    for (size_t i = 0; i < r.nspec; i++)
        schedule |= r.spec[i].policy == SD_SERVING_SCHEDULE;
    if (schedule) {
        double ctx = c.arrivals == SD_SERVING_TRACE ? c.trace_prompt[0] : c.prompt.value[0];
        if ((st = make_schedule(&r, &c, ctx, err)) != SD_OK)
            goto done;
        c.schedule = r.buckets, c.nschedule = r.nbuckets;
    }
    if ((st = sd_serving_check(&c, err)) != SD_OK) { /* the settings as given, before any run */
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        st = sd_status_fail(err, st, "%s%s", strncmp(msg, "memory:", 7) == 0 ? "--prompt, --output: " : "", msg);
        goto done;
    }
    if ((st = cli_table(NCOLS, COLS, &t, err)) != SD_OK)
        goto done;
    size_t nloads = c.arrivals == SD_SERVING_TRACE ? 1 : r.loads.n, R = (size_t)reps;
    double *res = malloc(R * NFIELDS * sizeof *res); /* replication k's fields at res + k NFIELDS */
    if (res == NULL) {
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
        goto done;
    }
    char saturated[512] = "";
    for (size_t li = 0; li < nloads && st == SD_OK; li++) {
        if (c.arrivals == SD_SERVING_POISSON)
            c.rate = r.loads.v[li];
        else if (c.arrivals == SD_SERVING_USERS)
            c.users = (size_t)r.loads.v[li];
        for (size_t si = 0; si < r.nspec && st == SD_OK; si++) {
            const spec_choice *s = &r.spec[si];
            c.policy = s->policy, c.gamma = s->gamma;
            double sat = NAN, nan6[6] = { NAN, NAN, NAN, NAN, NAN, NAN };
            if (method != METHOD_SIMULATE) {
                sd_serving_result an;
                sd_error e2;
                sd_status sa = sd_serving_analytic(&c, &an, &sat, &e2);
                if (sa == SD_EINVAL && strncmp(e2.msg, "rate:", 5) == 0 && method == METHOD_BOTH) {
                    size_t len = strlen(saturated);
                    if (len < sizeof saturated - 64)
                        snprintf(saturated + len, sizeof saturated - len, "%s%g (gamma %s: saturates at %.4g)",
                                 len ? ", " : "", c.rate, s->name, sat);
                    memset(&an, 0, sizeof an);
                    for (int f = 0; f < NFIELDS; f++)
                        *field(&an, f) = NAN;
                } else if (sa != SD_OK) {
                    st = strncmp(e2.msg, "rate: ", 6) == 0 ? sd_status_fail(err, sa, "--rate: %s", e2.msg + 6)
                                                           : sd_status_fail(err, sa, "%s", e2.msg);
                    break;
                }
                if ((st = add_row(t, &c, s, "analytic", &an, nan6, sat, err)) != SD_OK)
                    break;
            }
            if (method == METHOD_ANALYTIC)
                continue;
            replication rp = { &c, (uint64_t)seed };
            if ((st = cli_replicas(a, sd_serving_fingerprint(&c, rp.seed), R, NFIELDS, simulate_one, &rp, res, err)) !=
                SD_OK)
                break;
            sd_serving_result m;
            double lohi[6], dummy[2];
            for (int f = 0; f < NFIELDS; f++) {
                double *col = malloc(R * sizeof *col);
                if (col == NULL) {
                    st = sd_status_fail(err, SD_ENOMEM, "out of memory");
                    break;
                }
                for (size_t k = 0; k < R; k++)
                    col[k] = res[k * NFIELDS + f];
                double *lo = f == 0 ? &lohi[0] : f == 4 ? &lohi[2] : f == 13 ? &lohi[4] : &dummy[0];
                double *hi = f == 0 ? &lohi[1] : f == 4 ? &lohi[3] : f == 13 ? &lohi[5] : &dummy[1];
                *field(&m, f) = rep_mean(col, 1, R, lo, hi);
                free(col);
            }
            if (st == SD_OK)
                st = add_row(t, &c, s, "simulate", &m, lohi, NAN, err);
        }
    }
    free(res);
    if (st == SD_OK)
        st = sd_table_note(t, err, "times in seconds; ttft to the first token, tpot = (e2e - ttft) / (output - 1); "
                           "goodput: requests a second meeting --slo-ttft and --slo-tpot; simulate: the mean of %zu "
                           "replications of %zu measured requests (after %zu of warm-up), _lo and _hi its 95%% t "
                           "interval.", R, c.requests, c.warmup);
    if (st == SD_OK && saturated[0])
        st = sd_table_note(t, err, "past the saturation rate the queue grows without bound and the twin has no steady "
                           "state (its row is '-'): %s.", saturated);
    if (st == SD_OK && schedule) {
        char b[256] = "";
        for (size_t i = 0; i < r.nbuckets; i++) {
            size_t len = strlen(b);
            snprintf(b + len, sizeof b - len, "%s%.0f-%.0f: %.0f", i ? ", " : "", r.buckets[i].batch_from,
                     r.buckets[i].batch_to, r.buckets[i].gamma);
        }
        st = sd_table_note(t, err, "schedule: gamma by decode batch, the roofline's: %s.", b);
    }
    if (st == SD_OK)
        st = cli_costs_note(a, &r.costs, &r.rq, 0, t, err);
done:
    run_free(&r);
    return cli_finish(st, NULL, 0, t, out);
}

static const cli_option SERVING_OPTIONS[] = {
    { .name = "--target", .metavar = "NAME", .help = "target model preset (as for roofline)" },
    { .name = "--draft", .metavar = "NAME", .help = "draft model preset, 'same' or 'ngram' (as for roofline)" },
    { .name = "--hardware", .metavar = "NAME", .help = "accelerator preset" },
    { .name = "--rate", .metavar = "LIST", .help = "Poisson arrivals, requests a second, in {range}", .domain = &RATE },
    { .name = "--users", .metavar = "LIST", .help = "a closed loop of N users, each sending its next request when the "
      "last ends (simulated only)", .domain = &USERS },
    { .name = "--trace", .metavar = "FILE", .help = "arrivals from a TSV with columns time, prompt, output (seconds, "
      "tokens; simulated only)" },
    { .name = "--prompt", .metavar = "N|FILE", .help = "prompt tokens: a number in {range}, or a TSV histogram with "
      "columns length, weight (default {default})", .domain = &LENGTH, .dflt = "512" },
    { .name = "--output", .metavar = "N|FILE", .help = "output tokens, as --prompt (default {default})",
      .domain = &OUTPUT, .dflt = "256" },
    { .name = "--gamma", .metavar = "LIST", .help = "speculation: draft lengths (0: none) and the policies schedule "
      "(the roofline's best gamma by decode batch) and goodput (the step's best gamma, SmartSpec) (default {default})",
      .dflt = "0,1,2,4,goodput" },
    { .name = "--gamma-max", .metavar = "N", .help = "the largest gamma of the goodput policy and the schedule, in "
      "{range} (default {default})", .domain = &GMAX, .dflt = "8" },
    { .name = "--alpha", .metavar = "A", .help = "i.i.d. acceptance, in {range}", .domain = &CLI_ALPHA },
    { .name = "--acceptance", .metavar = "A1,...,AG", .help = "acceptance by position instead (0 beyond G)",
      .domain = &CLI_ACCEPTANCE },
    { .name = "--counts", .metavar = "FILE", .help = "an engine's counters (as for fit): the fitted acceptance by "
      "position" },
    { .name = "--counts-gamma", .metavar = "G", .help = "the draft length of --counts FILE where it does not state it, "
      "in {range}", .domain = &CLI_COUNTS_GAMMA },
    { .name = "--max-num-seqs", .metavar = "N", .help = "requests running at once, in {range} (default {default})",
      .domain = &SEQS, .dflt = "256" },
    { .name = "--max-num-batched-tokens", .metavar = "N", .help = "tokens a step, prompt chunks and speculative "
      "tokens included, in {range} (default {default})", .domain = &BATCHED, .dflt = "8192" },
    { .name = "--memory-fraction", .metavar = "X", .help = "of the GPUs' memory the engine uses (vLLM's "
      "gpu_memory_utilization), in {range} (default {default})", .domain = &MEMFRAC, .dflt = "0.9" },
    { .name = "--slo-ttft", .metavar = "SEC", .help = "goodput's TTFT objective, in {range} (default: none)",
      .domain = &SLO_TTFT },
    { .name = "--slo-tpot", .metavar = "SEC", .help = "goodput's TPOT objective, in {range} (default: none)",
      .domain = &SLO_TPOT },
    { .name = "--method", .metavar = "NAME", .help = "{names} (default {default})", .names = method_names,
      .dflt = "both" },
    { .name = "--requests", .metavar = "N", .help = "measured requests a replication, in {range} (default {default})",
      .domain = &REQUESTS, .dflt = "10000" },
    { .name = "--warmup", .metavar = "N", .help = "requests before them, not measured (default a tenth)",
      .domain = &WARMUP },
    { .name = "--replications", .metavar = "R", .help = "independent replications, in {range} (default {default})",
      .domain = &REPS, .dflt = "5" },
    { .name = "--seed", .metavar = "S", .help = "random seed (default {default})", .domain = &CLI_SEED,
      .lib = CLI_LIB(seed, CLI_LIB_U64) },
    { .name = NULL },
};

const cli_command cmd_serving = {
    .name = "serving",
    .synopsis = "serving --target NAME --draft NAME --hardware NAME (--alpha A | ...) (--rate LIST | --users LIST | "
                "--trace FILE) ...",
    .summary = "TTFT, TPOT and goodput under load, with and without speculation: a continuous-batching simulation "
               "and its analytical twin",
    .groups = { SERVING_OPTIONS, CLI_COST_OPTIONS, CLI_SCALE_OPTIONS },
    .run = run_serving,
    .scales = 1,
};

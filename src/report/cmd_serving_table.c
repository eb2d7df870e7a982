/* cmd_serving_table.c -- `specdec serving`'s table: at every load and speculation choice the
 * twin's row (sd_serving_analytic) and the simulation's (the mean of its replications, with 95%
 * t intervals from sd_sampling_summarise), then the notes. */
#include "cmd_serving_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/sampling.h"

static sd_cell num_or_dash(double x) { return isfinite(x) ? sd_real(x) : sd_text("-"); }

enum { NFIELDS = 15 };
static double *field(sd_serving_result *r, int k)
{
    double *f[NFIELDS] = { &r->ttft_mean, &r->ttft_p50, &r->ttft_p90, &r->ttft_p99, &r->tpot_mean, &r->tpot_p50,
                           &r->tpot_p90, &r->tpot_p99, &r->e2e_mean, &r->e2e_p99, &r->throughput_tokens,
                           &r->throughput_requests, &r->mean_batch, &r->goodput, &r->mean_gamma };
    return f[k];
}

/* The fields with an interval (ttft_mean, tpot_mean, goodput), in the columns' order. */
static const int WITH_INTERVAL[3] = { 0, 4, 13 };

static const char *const COLS[] = { "rate", "users", "gamma", "method", "ttft_mean", "ttft_p50", "ttft_p90",
                                    "ttft_p99", "tpot_mean", "tpot_p50", "tpot_p90", "tpot_p99", "e2e_mean",
                                    "e2e_p99", "throughput_tokens", "throughput_requests", "mean_batch", "goodput",
                                    "mean_gamma", "ttft_mean_lo", "ttft_mean_hi", "tpot_mean_lo", "tpot_mean_hi",
                                    "goodput_lo", "goodput_hi", "saturation_rate" };
enum { NCOLS = sizeof COLS / sizeof COLS[0] };

static sd_status add_row(sd_table *t, const sd_serving_config *c, const serving_spec *s, const char *method,
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

/* One replication of the simulation, its fields into v. */
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

static sd_status replicas_here(void *ctx, uint64_t fingerprint, size_t R, size_t nfields, sd_cmd_serving_replica one,
                               void *arg, double *value, sd_error *err)
{
    (void)ctx, (void)fingerprint;
    sd_status st = SD_OK;
    for (size_t k = 0; k < R && st == SD_OK; k++)
        st = one(arg, k, value + k * nfields, err);
    return st;
}

/* The replications' mean of field f (res: R rows of NFIELDS) and its 95% t interval (NaN for one
 * replication, or where a replication has no value). */
static sd_status summarise(const double *res, size_t R, int f, double *col, double *mean, double *lo, double *hi,
                           sd_error *err)
{
    int finite = 1;
    for (size_t k = 0; k < R; k++)
        finite &= isfinite(col[k] = res[k * NFIELDS + f]);
    *lo = *hi = NAN;
    if (!finite || R < 2) {
        *mean = finite ? col[0] : NAN;
        return SD_OK;
    }
    sd_summary s;
    sd_status st = sd_sampling_summarise(col, R, &s, err);
    if (st == SD_OK) {
        *mean = s.mean;
        *lo = s.ci_low;
        *hi = s.ci_high;
    }
    return st;
}

/* The simulation's row at c: its replications, then their means and intervals. */
static sd_status simulate_row(const serving_run *r, const sd_cmd_serving_replicas *reps, const sd_serving_config *c,
                              const serving_spec *s, double *res, sd_table *t, sd_error *err)
{
    size_t R = r->replications;
    replication rp = { .c = c, .seed = r->seed };
    sd_status (*run)(void *, uint64_t, size_t, size_t, sd_cmd_serving_replica, void *, double *, sd_error *) =
        reps->run != NULL ? reps->run : replicas_here;
    sd_status st = run(reps->ctx, sd_serving_fingerprint(c, r->seed), R, NFIELDS, simulate_one, &rp, res, err);
    sd_serving_result m;
    double lohi[6], lo, hi, *col = malloc(R * sizeof *col);
    if (st == SD_OK && col == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (int f = 0, i = 0; st == SD_OK && f < NFIELDS; f++) {
        if ((st = summarise(res, R, f, col, field(&m, f), &lo, &hi, err)) == SD_OK && i < 3 && WITH_INTERVAL[i] == f) {
            lohi[2 * i] = lo;
            lohi[2 * i + 1] = hi;
            i++;
        }
    }
    free(col);
    return st == SD_OK ? add_row(t, c, s, "simulate", &m, lohi, NAN, err) : st;
}

/* The twin's row at c; past saturation (the rate at or above the saturation rate it returns),
 * with --method both, a row of '-' and the rate named in saturated. */
static sd_status analytic_row(const serving_run *r, const sd_serving_config *c, const serving_spec *s, char *saturated,
                              size_t size, sd_table *t, sd_error *err)
{
    sd_serving_result an;
    double sat = NAN, nan6[6] = { NAN, NAN, NAN, NAN, NAN, NAN };
    sd_error e2;
    sd_status sa = sd_serving_analytic(c, &an, &sat, &e2);
    if (sa == SD_EINVAL && isfinite(sat) && c->rate >= sat && r->method == SERVING_BOTH) {
        size_t len = strlen(saturated);
        if (len < size - 64)
            snprintf(saturated + len, size - len, "%s%g (gamma %s: saturates at %.4g)", len ? ", " : "", c->rate,
                     s->name, sat);
        for (int f = 0; f < NFIELDS; f++)
            *field(&an, f) = NAN;
    } else if (sa != SD_OK) {
        *err = e2;
        return sa;
    }
    return add_row(t, c, s, "analytic", &an, nan6, sat, err);
}

/* The notes: what the columns are, where the twin saturates, the schedule, the cost terms. */
static sd_status notes(const sd_command_args *a, const serving_run *r, const sd_serving_config *c,
                       const char *saturated, sd_table *t, sd_error *err)
{
    sd_status st = sd_table_note(t, err, "times in seconds; ttft to the first token, tpot = (e2e - ttft) / (output - 1); "
                                 "goodput: requests a second meeting --slo-ttft and --slo-tpot; simulate: the mean of %zu "
                                 "replications of %zu measured requests (after %zu of warm-up), _lo and _hi its 95%% t "
                                 "interval.", r->replications, c->requests, c->warmup);
    if (st == SD_OK && saturated[0])
        st = sd_table_note(t, err, "past the saturation rate the queue grows without bound and the twin has no steady "
                           "state (its row is '-'): %s.", saturated);
    if (st == SD_OK && r->schedule) {
        char b[256] = "";
        for (size_t i = 0; i < r->nbuckets; i++) {
            size_t len = strlen(b);
            snprintf(b + len, sizeof b - len, "%s%.0f-%.0f: %.0f", i ? ", " : "", r->buckets[i].batch_from,
                     r->buckets[i].batch_to, r->buckets[i].gamma);
        }
        st = sd_table_note(t, err, "schedule: gamma by decode batch, the roofline's: %s.", b);
    }
    return st == SD_OK ? sd_cmd_costs_note(a, &r->costs, &r->rq, 0, t, err) : st;
}

/* The rows at every load and speculation choice. */
static sd_status rows(serving_run *r, const sd_cmd_serving_replicas *reps, sd_serving_config *c, char *saturated,
                      size_t size, sd_table *t, sd_error *err)
{
    size_t nloads = c->arrivals == SD_SERVING_TRACE ? 1 : r->loads.n;
    double *res = malloc(r->replications * NFIELDS * sizeof *res); /* replication k's fields at res + k NFIELDS */
    sd_status st = res != NULL ? SD_OK : sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t li = 0; li < nloads && st == SD_OK; li++) {
        if (c->arrivals == SD_SERVING_POISSON)
            c->rate = r->loads.v[li];
        else if (c->arrivals == SD_SERVING_USERS)
            c->users = (size_t)r->loads.v[li];
        for (size_t si = 0; si < r->nspec && st == SD_OK; si++) {
            const serving_spec *s = &r->spec[si];
            c->policy = s->policy;
            c->gamma = s->gamma;
            if (r->method != SERVING_SIMULATE)
                st = analytic_row(r, c, s, saturated, size, t, err);
            if (st == SD_OK && r->method != SERVING_ANALYTIC)
                st = simulate_row(r, reps, c, s, res, t, err);
        }
    }
    free(res);
    return st;
}

sd_status serving_table(const sd_command_args *a, const sd_cmd_serving_replicas *reps, sd_table **out, sd_error *err)
{
    serving_run r;
    memset(&r, 0, sizeof r);
    sd_serving_config c;
    sd_table *t = NULL;
    char saturated[512] = "";
    sd_status st = serving_read(a, &r, &c, err);
    if (st == SD_OK && (st = sd_command_table(NCOLS, COLS, &t, err)) == SD_OK &&
        (st = rows(&r, reps, &c, saturated, sizeof saturated, t, err)) == SD_OK)
        st = notes(a, &r, &c, saturated, t, err);
    serving_run_free(&r);
    return sd_command_finish(st, NULL, 0, t, out);
}

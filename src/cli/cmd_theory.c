/* cmd_theory.c -- the closed-form commands: speedup, optimal, expect. */
#include <math.h>

#include "cli.h"
#include "theory.h"

/* Notes only for small grids: beyond this many (alpha, cost) pairs the
 * table speaks for itself. */
enum { MAX_NOTES = 8 };

/* One sentence about the optimum for (alpha, cost), for the text notes. */
static sd_status note_optimum(sd_table *t, double alpha, double cost, const sd_optimum *o,
                              sd_error *err)
{
    if (o->gamma_opt <= 0.0)
        return sd_table_note(t, err, "alpha %g <= cost %g: no gamma speeds decoding up; do not speculate "
                             "(gamma_opt 0).", alpha, cost);
    if (isinf(o->gamma_opt))
        return sd_table_note(t, err, "alpha %g, cost %g: the improvement grows with gamma toward %.5g "
                             "without reaching it (gamma_opt inf).", alpha, cost, o->improvement_opt);
    return sd_table_note(t, err, "alpha %g, cost %g: optimum gamma = %.0f, improvement %.5g, "
                         "E(N) %.5g (eq. 10 maximised; continuous optimum %.4g, ceiling %.5g).",
                         alpha, cost, o->gamma_opt, o->improvement_opt, o->expected_tokens_opt,
                         o->gamma_continuous, o->ceiling);
}

static sd_status run_speedup(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "alpha", "cost", "mu", "gamma", "expected_tokens",
                                        "cost_factor", "improvement", "flop_factor" };
    sd_list l[4] = { { 0 } };
    sd_table *t = NULL;
    size_t rows = 0;
    sd_status st;
    if ((st = cli_list(a, &CLI_ALPHA, NULL, &l[0], err)) != SD_OK ||
        (st = cli_list(a, &CLI_COST, NULL, &l[1], err)) != SD_OK ||
        (st = cli_list(a, &CLI_MU, "0", &l[2], err)) != SD_OK ||
        (st = cli_list(a, &CLI_GAMMA, "1:25", &l[3], err)) != SD_OK ||
        (st = cli_grid_size(l, 4, &rows, err)) != SD_OK ||
        (st = cli_table(8, cols, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < rows && st == SD_OK; i++) {
        double x[4];
        cli_grid_point(l, 4, i, x);
        const double alpha = x[0], cost = x[1], mu = x[2], gamma = x[3];
        const sd_cell row[] = {
            sd_real(alpha), sd_real(cost), sd_real(mu), sd_int((long long)gamma),
            sd_real(sd_theory_expected_tokens(alpha, gamma)),
            sd_real(sd_theory_cost_factor(gamma, cost)),
            sd_real(sd_theory_improvement(alpha, gamma, cost)),
            sd_real(sd_theory_flop_factor(alpha, gamma, mu)),
        };
        st = sd_table_add(t, row, err);
    }
    /* For each (alpha, cost) pair: the best listed gamma and the true optimum. */
    size_t pairs = l[0].n * l[1].n;
    for (size_t k = 0; st == SD_OK && pairs <= MAX_NOTES && k < pairs; k++) {
        double alpha = l[0].v[k / l[1].n], cost = l[1].v[k % l[1].n];
        double best_g = l[3].v[0], best_f = -1.0;
        for (size_t j = 0; j < l[3].n; j++) {
            double f = sd_theory_improvement(alpha, l[3].v[j], cost);
            if (f > best_f)
                best_f = f, best_g = l[3].v[j];
        }
        sd_optimum o;
        if ((st = sd_theory_optimal(alpha, cost, &o, err)) != SD_OK)
            break;
        int listed_is_optimal = o.gamma_opt > 0.0 && o.gamma_opt < INFINITY && !(best_f < o.improvement_opt);
        if (!listed_is_optimal)
            st = sd_table_note(t, err, "alpha %g, cost %g: best listed gamma = %.0f (improvement %.5g).",
                               alpha, cost, best_g, best_f);
        if (st == SD_OK)
            st = note_optimum(t, alpha, cost, &o, err);
    }
done:
    return cli_finish(st, l, 4, t, out);
}

static sd_status run_optimal(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "alpha", "cost", "gamma_opt", "improvement_opt",
                                        "expected_tokens_opt", "gamma_continuous", "ceiling" };
    sd_list l[2] = { { 0 } };
    sd_table *t = NULL;
    size_t rows = 0;
    sd_status st;
    if ((st = cli_list(a, &CLI_ALPHA, NULL, &l[0], err)) != SD_OK ||
        (st = cli_list(a, &CLI_COST, NULL, &l[1], err)) != SD_OK ||
        (st = cli_grid_size(l, 2, &rows, err)) != SD_OK ||
        (st = cli_table(7, cols, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < rows && st == SD_OK; i++) {
        double x[2];
        cli_grid_point(l, 2, i, x);
        sd_optimum o;
        if ((st = sd_theory_optimal(x[0], x[1], &o, err)) != SD_OK)
            break;
        const sd_cell row[] = { sd_real(x[0]), sd_real(x[1]), sd_real(o.gamma_opt),
                                sd_real(o.improvement_opt), sd_real(o.expected_tokens_opt),
                                sd_real(o.gamma_continuous), sd_real(o.ceiling) };
        if ((st = sd_table_add(t, row, err)) == SD_OK && rows <= MAX_NOTES)
            st = note_optimum(t, x[0], x[1], &o, err);
    }
done:
    return cli_finish(st, l, 2, t, out);
}

static sd_status run_expect(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "alpha", "gamma", "n", "pmf", "survival" };
    sd_list l[2] = { { 0 } };
    sd_table *t = NULL;
    size_t pairs = 0;
    sd_status st;
    if ((st = cli_list(a, &CLI_ALPHA, NULL, &l[0], err)) != SD_OK ||
        (st = cli_list(a, &CLI_GAMMA, NULL, &l[1], err)) != SD_OK ||
        (st = cli_grid_size(l, 2, &pairs, err)) != SD_OK)
        goto done;
    double rows = 0.0;
    for (size_t j = 0; j < l[1].n; j++)
        rows += (l[1].v[j] + 1.0) * (double)l[0].n;
    if (rows > SD_LIST_MAX) {
        st = sd_fail(err, SD_EINVAL, "--gamma: %.0f rows of n = 1..gamma+1 exceed the limit of %u",
                     rows, SD_LIST_MAX);
        goto done;
    }
    if ((st = cli_table(5, cols, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < pairs && st == SD_OK; i++) {
        double x[2];
        cli_grid_point(l, 2, i, x);
        for (double n = 1.0; n <= x[1] + 1.0 && st == SD_OK; n += 1.0) {
            const sd_cell row[] = { sd_real(x[0]), sd_int((long long)x[1]), sd_int((long long)n),
                                    sd_real(sd_theory_pmf(x[0], x[1], n)),
                                    sd_real(sd_theory_survival(x[0], x[1], n)) };
            st = sd_table_add(t, row, err);
        }
    }
done:
    return cli_finish(st, l, 2, t, out);
}

static const cli_option speedup_options[] = {
    { "--alpha", "LIST", "expected acceptance rate, in [0, 1] (eq. 7)" },
    { "--cost", "LIST", "draft/target time ratio c, in [0, inf) (eq. 8)" },
    { "--gamma", "LIST", "draft lengths, whole numbers in [1, 1e9] (default 1:25)" },
    { "--mu", "LIST", "draft/target FLOP ratio, in [0, inf) (eq. 11; default 0)" },
    { NULL, NULL, NULL },
};

static const cli_option optimal_options[] = {
    { "--alpha", "LIST", "expected acceptance rate, in [0, 1]" },
    { "--cost", "LIST", "draft/target time ratio c, in [0, inf)" },
    { NULL, NULL, NULL },
};

static const cli_option expect_options[] = {
    { "--alpha", "LIST", "expected acceptance rate, in [0, 1]" },
    { "--gamma", "LIST", "draft lengths, whole numbers in [1, 1e9]" },
    { NULL, NULL, NULL },
};

const cli_command cmd_speedup = {
    "speedup", "speedup --alpha LIST --cost LIST [--gamma LIST] [--mu LIST]",
    "E(N), cost factor, wall-time improvement and FLOP factor per gamma (eqs. 4, 9, 10, 11)",
    speedup_options, 0, 0, run_speedup,
};

const cli_command cmd_optimal = {
    "optimal", "optimal --alpha LIST --cost LIST",
    "the draft length that maximises eq. (10), via Lambert W",
    optimal_options, 0, 0, run_optimal,
};

const cli_command cmd_expect = {
    "expect", "expect --alpha LIST --gamma LIST",
    "the distribution of N, tokens per iteration (eqs. 2, 3)",
    expect_options, 0, 0, run_expect,
};

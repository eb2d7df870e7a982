/* cmd_expect.c -- `specdec expect`: the distribution of N, the tokens one
 * iteration emits (eqs. 2, 3, and the survival function behind eq. 4). */
#include "cli.h"

static sd_status run_expect(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "alpha", "gamma", "n", "pmf", "survival" };
    sd_list l[2] = { { 0 } };
    sd_table *t = NULL;
    size_t pairs = 0;
    sd_status st;
    if ((st = cli_list(a, &CLI_ALPHA, &l[0], err)) != SD_OK ||
        (st = cli_list(a, &CLI_GAMMA, &l[1], err)) != SD_OK ||
        (st = cli_grid_size(l, 2, &pairs, err)) != SD_OK)
        goto done;
    double rows = 0.0;
    for (size_t j = 0; j < l[1].n; j++)
        rows += (l[1].v[j] + 1.0) * (double)l[0].n;
    if (rows > SD_LIST_MAX) {
        st = sd_status_fail(err, SD_EINVAL, "--gamma: %.0f rows of n = 1..gamma+1 exceed the limit of %u",
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

static const cli_option EXPECT_OPTIONS[] = {
    { .name = "--alpha", .metavar = "LIST", .help = "expected acceptance rate, in {range}", .domain = &CLI_ALPHA },
    { .name = "--gamma", .metavar = "LIST", .help = "draft lengths, whole numbers in {range}", .domain = &CLI_GAMMA },
    { .name = NULL },
};

const cli_command cmd_expect = {
    .name = "expect",
    .synopsis = "expect --alpha LIST --gamma LIST",
    .summary = "the distribution of N, tokens per iteration (eqs. 2, 3)",
    .groups = { EXPECT_OPTIONS },
    .run = run_expect,
};

/* cmd_expect.c -- `specdec expect`: the distribution of N, the tokens one
 * iteration emits (eqs. 2, 3, and the survival function behind eq. 4). */
#include "specdec/cmd_expect.h"

#include "cmd_shared.h"
#include "specdec/theory.h"

static sd_status run_expect(const sd_command_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "alpha", "gamma", "n", "pmf", "survival" };
    sd_list l[2] = { { 0 } };
    sd_table *t = NULL;
    size_t pairs = 0;
    sd_status st;
    if ((st = sd_command_args_list(a, &SD_CMD_ALPHA, &l[0], err)) != SD_OK ||
        (st = sd_command_args_list(a, &SD_CMD_GAMMA, &l[1], err)) != SD_OK ||
        (st = sd_command_grid_size(l, 2, &pairs, err)) != SD_OK)
        goto done;
    double rows = 0.0;
    for (size_t j = 0; j < l[1].n; j++)
        rows += (l[1].v[j] + 1.0) * (double)l[0].n;
    if (rows > SD_LIST_MAX) {
        st = sd_status_fail(err, SD_EINVAL, "--gamma: %.0f rows of n = 1..gamma+1 exceed the limit of %u",
                            rows, SD_LIST_MAX);
        goto done;
    }
    if ((st = sd_command_table(5, cols, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < pairs && st == SD_OK; i++) {
        double x[2];
        sd_command_grid_point(l, 2, i, x);
        for (double n = 1.0; n <= x[1] + 1.0 && st == SD_OK; n += 1.0) {
            const sd_cell row[] = { sd_real(x[0]), sd_int((long long)x[1]), sd_int((long long)n),
                                    sd_real(sd_theory_pmf(x[0], x[1], n)),
                                    sd_real(sd_theory_survival(x[0], x[1], n)) };
            st = sd_table_add(t, row, err);
        }
    }
done:
    return sd_command_finish(st, l, 2, t, out);
}

sd_cmd_expect_request sd_cmd_expect_defaults(void) { return (sd_cmd_expect_request){ .alpha = { NULL, 0 } }; }

sd_status sd_cmd_expect_table(const sd_cmd_expect_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_expect, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_expect, rq, err);
    return sd_command_end(&sd_cmd_expect, st == SD_OK ? run_expect(&a, out, err) : st, err);
}

#define R sd_cmd_expect_request
static const sd_command_field FIELDS[] = {
    { .name = "--alpha", SD_FIELD(R, alpha, LIST), .metavar = "LIST", .help = "expected acceptance rate, in {range}",
      .domain = &SD_CMD_ALPHA },
    { .name = "--gamma", SD_FIELD(R, gamma, LIST), .metavar = "LIST", .help = "draft lengths, whole numbers in {range}",
      .domain = &SD_CMD_GAMMA },
    { .name = NULL },
};
#undef R

SD_COMMAND_CALLS(expect)
const sd_command sd_cmd_expect = {
    SD_COMMAND_ROW(expect),
    .usage = "expect --alpha LIST --gamma LIST",
    .summary = "the distribution of N, tokens per iteration (eqs. 2, 3)",
    .groups = { FIELDS },
    SD_COMMANDS_LIBRARY,
};

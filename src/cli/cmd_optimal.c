/* cmd_optimal.c -- `specdec optimal`: the draft length that maximises eq.
 * (10), in closed form (Lambert W), or by a scan for an acceptance vector. */
#include "cli.h"

static sd_status run_optimal(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const core[] = { "alpha", "cost", "gamma_opt", "improvement_opt",
                                        "expected_tokens_opt", "gamma_continuous", "ceiling" };
    enum { NCORE = sizeof core / sizeof core[0] };
    cli_scenario in;
    const char *cols[CLI_SCENARIO_COLS + 16];
    sd_table *t = NULL;
    sd_status st;
    if ((st = cli_scenario_read(a, 0, &in, err)) != SD_OK ||
        (st = cli_table(cli_scenario_columns(&in, core, NCORE, cols), cols, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < in.n && st == SD_OK; i++) {
        const cli_point *p = &in.pts[i];
        sd_optimum o;
        double alpha = p->alpha;
        if (p->acc != NULL) { /* a vector: scan it; the best gamma's effective alpha; the ceiling at gamma = G */
            if ((st = sd_theory_optimal_vec(p->acc, (size_t)p->gamma, p->cost, &o, err)) != SD_OK ||
                (o.gamma_opt >= 1 &&
                 (st = sd_theory_alpha_from_length(o.expected_tokens_opt, o.gamma_opt, &alpha, err)) != SD_OK))
                break;
            o.gamma_continuous = o.gamma_opt;
            o.ceiling = cli_point_tokens(p);
        } else if ((st = sd_theory_optimal(p->alpha, p->cost, &o, err)) != SD_OK) {
            break;
        }
        const sd_cell cells[NCORE] = { sd_real(alpha), sd_real(p->cost), sd_real(o.gamma_opt),
                                       sd_real(o.improvement_opt), sd_real(o.expected_tokens_opt),
                                       sd_real(o.gamma_continuous), sd_real(o.ceiling) };
        if ((st = cli_scenario_row(t, &in, p, cells, NCORE, err)) == SD_OK && in.n <= CLI_MAX_NOTES && p->row == NULL &&
            p->acc == NULL)
            st = cli_note_optimum(t, p->alpha, p->cost, &o, err);
    }
done:
    cli_scenario_free(&in);
    return cli_finish(st, NULL, 0, t, out);
}

static const cli_option OPTIMAL_OPTIONS[] = {
    { .name = "--alpha", .metavar = "LIST", .help = "expected acceptance rate, in {range}", .domain = &CLI_ALPHA },
    { .name = "--cost", .metavar = "LIST", .help = "draft/target time ratio c, in {range}", .domain = &CLI_COST },
    { .name = "--from", .metavar = "FILE", .help = "scenarios: TSV with name, alpha, cost [, gamma, mu, temperature, "
      "source, reported, measured]" },
    { .name = "--acceptance", .metavar = "A1,...,AG", .help = "per-position acceptance: the best gamma in 0..G for that "
      "vector", .domain = &CLI_ACCEPTANCE },
    { .name = NULL },
};

const cli_command cmd_optimal = {
    .name = "optimal",
    .synopsis = "optimal --alpha LIST --cost LIST | --from FILE",
    .summary = "the draft length that maximises eq. (10), via Lambert W",
    .groups = { OPTIMAL_OPTIONS },
    .run = run_optimal,
};

/* cmd_optimal.c -- `specdec optimal`: the draft length that maximises eq.
 * (10), in closed form (Lambert W), or by a scan for an acceptance vector. */
#include "specdec/cmd_optimal.h"

#include "scenario.h"

static sd_status run_optimal(const sd_command_args *a, sd_table **out, sd_error *err)
{
    static const char *const core[] = { "alpha", "cost", "gamma_opt", "improvement_opt",
                                        "expected_tokens_opt", "gamma_continuous", "ceiling" };
    enum { NCORE = sizeof core / sizeof core[0] };
    scenario in;
    const char *cols[SCENARIO_COLS + 16];
    sd_table *t = NULL;
    sd_status st;
    if ((st = scenario_read(a, 0, &in, err)) != SD_OK ||
        (st = sd_command_table(scenario_columns(&in, core, NCORE, cols), cols, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < in.n && st == SD_OK; i++) {
        const scenario_point *p = &in.pts[i];
        sd_optimum o;
        double alpha = p->alpha;
        if (p->acc != NULL) { /* a vector: scan it; the best gamma's effective alpha; the ceiling at gamma = G */
            if ((st = sd_theory_optimal_vec(p->acc, (size_t)p->gamma, p->cost, &o, err)) != SD_OK ||
                (o.gamma_opt >= 1 &&
                 (st = sd_theory_alpha_from_length(o.expected_tokens_opt, o.gamma_opt, &alpha, err)) != SD_OK))
                break;
            o.gamma_continuous = o.gamma_opt;
            o.ceiling = scenario_tokens(p);
        } else if ((st = sd_theory_optimal(p->alpha, p->cost, &o, err)) != SD_OK) {
            break;
        }
        const sd_cell cells[NCORE] = { sd_real(alpha), sd_real(p->cost), sd_real(o.gamma_opt),
                                       sd_real(o.improvement_opt), sd_real(o.expected_tokens_opt),
                                       sd_real(o.gamma_continuous), sd_real(o.ceiling) };
        if ((st = scenario_row(t, &in, p, cells, NCORE, err)) == SD_OK && in.n <= SCENARIO_MAX_NOTES &&
            p->row == NULL && p->acc == NULL)
            st = scenario_note_optimum(t, p->alpha, p->cost, &o, err);
    }
done:
    scenario_free(&in);
    return sd_command_finish(st, NULL, 0, t, out);
}

sd_cmd_optimal_request sd_cmd_optimal_defaults(void) { return (sd_cmd_optimal_request){ .from = NULL }; }

sd_status sd_cmd_optimal_table(const sd_cmd_optimal_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_optimal, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_optimal, rq, err);
    return sd_command_end(&sd_cmd_optimal, st == SD_OK ? run_optimal(&a, out, err) : st, err);
}

#define R sd_cmd_optimal_request
static const sd_command_field FIELDS[] = {
    { .name = "--alpha", SD_FIELD(R, alpha, LIST), .metavar = "LIST", .help = "expected acceptance rate, in {range}",
      .domain = &SD_CMD_ALPHA },
    { .name = "--cost", SD_FIELD(R, cost, LIST), .metavar = "LIST", .help = "draft/target time ratio c, in {range}",
      .domain = &SD_CMD_COST },
    { .name = "--from", SD_FIELD(R, from, TEXT), .metavar = "FILE", .help = "scenarios: TSV with name, alpha, cost [, "
      "gamma, mu, temperature, source, reported, measured]" },
    { .name = "--acceptance", SD_FIELD(R, acceptance, LIST), .metavar = "A1,...,AG", .help = "per-position "
      "acceptance: the best gamma in 0..G for that vector", .domain = &SD_CMD_ACCEPTANCE },
    { .name = NULL },
};
#undef R

SD_COMMAND_CALLS(optimal)
const sd_command sd_cmd_optimal = {
    SD_COMMAND_ROW(optimal),
    .usage = "optimal --alpha LIST --cost LIST | --from FILE",
    .summary = "the draft length that maximises eq. (10), via Lambert W",
    .groups = { FIELDS },
    SD_COMMANDS_LIBRARY,
};

/* cmd_speedup.c -- `specdec speedup`: E(N), the cost factor, the wall-time
 * improvement and the FLOP factor per gamma (eqs. 4, 9, 10, 11). */
#include "specdec/cmd_speedup.h"

#include "scenario.h"

static sd_status run_speedup(const sd_command_args *a, sd_table **out, sd_error *err)
{
    static const char *const core[] = { "alpha", "cost", "mu", "gamma", "expected_tokens",
                                        "cost_factor", "improvement", "flop_factor" };
    enum { NCORE = sizeof core / sizeof core[0] };
    scenario in;
    const char *cols[SCENARIO_COLS + 16];
    sd_table *t = NULL;
    sd_status st;
    if ((st = scenario_read(a, 1, &in, err)) != SD_OK ||
        (st = sd_command_table(scenario_columns(&in, core, NCORE, cols), cols, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < in.n && st == SD_OK; i++) {
        const scenario_point *p = &in.pts[i];
        const sd_cell cells[NCORE] = {
            sd_real(p->alpha), sd_real(p->cost), sd_real(p->mu), sd_int((long long)p->gamma),
            sd_real(scenario_tokens(p)),
            sd_real(sd_theory_cost_factor(p->gamma, p->cost)),
            sd_real(sd_theory_improvement_at(scenario_tokens(p), p->gamma, p->cost)),
            sd_real(sd_theory_flop_factor_at(scenario_tokens(p), p->gamma, p->mu)),
        };
        st = scenario_row(t, &in, p, cells, NCORE, err);
    }
    /* Grid mode, for each (alpha, cost) pair: the best listed gamma and the true optimum. */
    size_t pairs = in.l[0].n * in.l[1].n;
    for (size_t k = 0; st == SD_OK && pairs <= SCENARIO_MAX_NOTES && k < pairs; k++) {
        double alpha = in.l[0].v[k / in.l[1].n], cost = in.l[1].v[k % in.l[1].n];
        double best_g = in.l[3].v[0], best_f = -1.0;
        for (size_t j = 0; j < in.l[3].n; j++) {
            double f = sd_theory_improvement(alpha, in.l[3].v[j], cost);
            if (f > best_f) {
                best_f = f;
                best_g = in.l[3].v[j];
            }
        }
        sd_optimum o;
        if ((st = sd_theory_optimal(alpha, cost, &o, err)) != SD_OK)
            break;
        int listed_is_optimal = o.gamma_opt > 0.0 && o.gamma_opt < INFINITY && !(best_f < o.improvement_opt);
        if (!listed_is_optimal)
            st = sd_table_note(t, err, "alpha %g, cost %g: best listed gamma = %.0f (improvement %.5g).",
                               alpha, cost, best_g, best_f);
        if (st == SD_OK)
            st = scenario_note_optimum(t, alpha, cost, &o, err);
    }
done:
    scenario_free(&in);
    return sd_command_finish(st, NULL, 0, t, out);
}

sd_cmd_speedup_request sd_cmd_speedup_defaults(void) { return (sd_cmd_speedup_request){ .from = NULL }; }

sd_status sd_cmd_speedup_table(const sd_cmd_speedup_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_speedup, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_speedup, rq, err);
    return sd_command_end(&sd_cmd_speedup, st == SD_OK ? run_speedup(&a, out, err) : st, err);
}

#define R sd_cmd_speedup_request
static const sd_command_field FIELDS[] = {
    { .name = "--alpha", SD_FIELD(R, alpha, LIST), .metavar = "LIST", .help = "expected acceptance rate, in {range} "
      "(eq. 7)", .domain = &SD_CMD_ALPHA },
    { .name = "--cost", SD_FIELD(R, cost, LIST), .metavar = "LIST", .help = "draft/target time ratio c, in {range} "
      "(eq. 8)", .domain = &SD_CMD_COST },
    { .name = "--gamma", SD_FIELD(R, gamma, LIST), .metavar = "LIST", .help = "draft lengths, whole numbers in {range} "
      "(default {default})", .domain = &SD_CMD_GAMMA, .dflt = "1:25" },
    { .name = "--mu", SD_FIELD(R, mu, LIST), .metavar = "LIST", .help = "draft/target FLOP ratio, in {range} (eq. 11; "
      "default {default})", .domain = &SD_CMD_MU, .dflt = "0" },
    { .name = "--from", SD_FIELD(R, from, TEXT), .metavar = "FILE", .help = "scenarios: TSV with name, alpha, cost, "
      "gamma [, mu, temperature, source, reported, measured]" },
    { .name = "--acceptance", SD_FIELD(R, acceptance, LIST), .metavar = "A1,...,AG", .help = "per-position "
      "acceptance: rows for gamma = 1..G, E(N) = 1 + sum prod a_i", .domain = &SD_CMD_ACCEPTANCE },
    { .name = NULL },
};
#undef R

SD_COMMAND_CALLS(speedup)
const sd_command sd_cmd_speedup = {
    SD_COMMAND_ROW(speedup),
    .usage = "speedup --alpha LIST --cost LIST [--gamma LIST] [--mu LIST] | --from FILE",
    .summary = "E(N), cost factor, wall-time improvement and FLOP factor per gamma (eqs. 4, 9, 10, 11)",
    .groups = { FIELDS },
    SD_COMMANDS_LIBRARY,
};

/* cmd_markov.c -- `specdec markov`: E(N) under the two-state Markov
 * acceptance (transfer matrices, theory.h) against the i.i.d. eq. (4). */
#include "specdec/cmd_markov.h"

#include "cmd_shared.h"
#include "specdec/theory.h"

static const sd_domain EASY = { "--alpha-easy", 0.0, 1.0, 0 };
static const sd_domain HARD = { "--alpha-hard", 0.0, 1.0, 0 };
static const sd_domain STAY = { "--stay", 0.0, 0.999999, 0 };
static const sd_domain ONE_COST = { "--cost", 0.0, INFINITY, 0 };

static sd_status run_markov(const sd_command_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "alpha_easy", "alpha_hard", "stay", "gamma", "mean_alpha", "expected_tokens",
                                        "expected_tokens_iid", "iid_bias", "improvement", "improvement_iid" };
    sd_markov m;
    double cost;
    sd_list g = { 0 };
    sd_table *t = NULL;
    sd_status st;
    if ((st = sd_command_args_number(a, &EASY, &m.a_easy, err)) != SD_OK ||
        (st = sd_command_args_number(a, &HARD, &m.a_hard, err)) != SD_OK ||
        (st = sd_command_args_number(a, &STAY, &m.stay, err)) != SD_OK ||
        (st = sd_command_args_number(a, &ONE_COST, &cost, err)) != SD_OK ||
        (st = sd_command_args_list(a, &SD_CMD_GAMMA, &g, err)) != SD_OK ||
        (st = sd_command_table(10, cols, &t, err)) != SD_OK)
        goto done;
    double mean = sd_theory_markov_mean_alpha(&m);
    for (size_t i = 0; i < g.n && st == SD_OK; i++) {
        double e = sd_theory_markov_expected_tokens(&m, g.v[i]), iid = sd_theory_expected_tokens(mean, g.v[i]);
        const sd_cell row[] = { sd_real(m.a_easy), sd_real(m.a_hard), sd_real(m.stay), sd_int((long long)g.v[i]),
                                sd_real(mean), sd_real(e), sd_real(iid), sd_real((iid - e) / e),
                                sd_real(sd_theory_improvement_at(e, g.v[i], cost)),
                                sd_real(sd_theory_improvement_at(iid, g.v[i], cost)) };
        st = sd_table_add(t, row, err);
    }
done:
    return sd_command_finish(st, &g, 1, t, out);
}

sd_cmd_markov_request sd_cmd_markov_defaults(void)
{
    return (sd_cmd_markov_request){ .alpha_easy = NAN, .alpha_hard = NAN, .stay = NAN, .cost = NAN };
}

sd_status sd_cmd_markov_table(const sd_cmd_markov_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_markov, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_markov, rq, err);
    return sd_command_end(&sd_cmd_markov, st == SD_OK ? run_markov(&a, out, err) : st, err);
}

#define R sd_cmd_markov_request
static const sd_command_field FIELDS[] = {
    { .name = "--alpha-easy", SD_FIELD(R, alpha_easy, REAL), .metavar = "A", .help = "acceptance in the easy state, "
      "in {range}", .domain = &EASY },
    { .name = "--alpha-hard", SD_FIELD(R, alpha_hard, REAL), .metavar = "A", .help = "acceptance in the hard state, "
      "in {range}", .domain = &HARD },
    { .name = "--stay", SD_FIELD(R, stay, REAL), .metavar = "P", .help = "probability of keeping the state per token, "
      "in {range}", .domain = &STAY },
    { .name = "--gamma", SD_FIELD(R, gamma, LIST), .metavar = "LIST", .help = "draft lengths (default {default})",
      .domain = &SD_CMD_GAMMA, .dflt = "1:10" },
    { .name = "--cost", SD_FIELD(R, cost, REAL), .metavar = "C", .help = "draft/target cost ratio for the improvement "
      "columns (default {default})", .domain = &ONE_COST, .dflt = "0" },
    { .name = NULL },
};
#undef R

SD_COMMAND_CALLS(markov)
const sd_command sd_cmd_markov = {
    SD_COMMAND_ROW(markov),
    .usage = "markov --alpha-easy A --alpha-hard B --stay P [--gamma LIST] [--cost C]",
    .summary = "E(N) under two-state Markov acceptance (transfer matrix) against the i.i.d. eq. (4)",
    .groups = { FIELDS },
    SD_COMMANDS_LIBRARY,
};

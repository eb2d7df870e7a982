/* test_cmd_tree.c -- `specdec tree` as a library call (cmd_tree.h): a
 * tree's speed-up under the roofline (a chain's is the roofline's own
 * improvement at its length), its band under the calibration's draws (the
 * quantiles sd_calibrate_band takes, cmd_cost_impl.h's band), and the
 * command's cells are those calls. */
#include <stdlib.h>
#include <string.h>

#include "report/cmd_cost_impl.h"
#include "specdec/cmd_tree.h"
#include "testutil.h"

/* Llama-3.1-8B drafted by Llama-3.2-1B on an H100 SXM with the shipped calibration, as the
 * command costs them by default; *fits to free. */
typedef struct {
    sd_presets p;
    sd_calibration *fits;
    const sd_calibration *c, *cd;
    sd_roofline_request rq;
} pair;

static void pair_load(pair *x)
{
    size_t n;
    ck_assert_int_eq(sd_presets_load(NULL, NULL, NULL, &x->p, NULL), SD_OK);
    x->rq = sd_cost_roofline_defaults();
    ck_assert_int_eq(sd_presets_model(&x->p, "target", "llama-3.1-8b", &x->rq.target, NULL), SD_OK);
    ck_assert_int_eq(sd_presets_model(&x->p, "draft", "llama-3.2-1b", &x->rq.draft, NULL), SD_OK);
    ck_assert_int_eq(sd_presets_hardware(&x->p, "hardware", "h100-sxm", &x->rq.hardware, NULL), SD_OK);
    ck_assert_int_eq(sd_calibrate_load_defaults(NULL, &x->fits, &n, NULL), SD_OK);
    sd_calibrate_apply_request(x->fits, n, &x->rq, &x->c, &x->cd);
    ck_assert_ptr_nonnull(x->c);
}

static void pair_free(pair *x)
{
    free(x->fits);
    sd_presets_free(&x->p);
}

/* A chain of gamma nodes is eq. (4)'s draft: its speed-up is the roofline's improvement at gamma
 * (gamma draft steps and one pass verifying gamma + 1 tokens), at any batch. */
START_TEST(a_chain_is_the_roofline)
{
    pair x;
    pair_load(&x);
    sd_tree_accept acc;
    sd_tree t;
    ck_assert_int_eq(sd_tree_accept_chain(0.8, &acc, NULL), SD_OK);
    ck_assert_int_eq(sd_tree_parse("chain:4", &acc, &t, "tree", NULL), SD_OK);
    const double gamma[] = { 4 }, batches[] = { 1, 16, 256 };
    x.rq.alpha = 0.8;
    x.rq.gammas = gamma;
    x.rq.ngammas = 1;
    size_t paying = 0;
    for (size_t i = 0; i < 3; i++) {
        sd_roofline_point pt;
        sd_cost_roofline(&x.rq, batches[i], 1024, &pt);
        double secs, s = sd_cmd_tree_speedup(&x.rq, &t, sd_tree_expected_tokens(&t, &acc), batches[i], 1024, &secs);
        if (pt.gamma_opt == 4) /* it beats plain decoding: the roofline keeps its improvement */
            ck_assert_rel(s, pt.improvement_opt, 1e-12);
        else
            ck_assert_double_le(s, 1);
        paying += pt.gamma_opt == 4;
        /* E(N) = 3.3616 tokens an iteration of secs against one token a plain step */
        ck_assert_rel(s * secs, 3.3616 * sd_cost_step_time(x.rq.target, x.rq.hardware, &x.rq.params, batches[i], 1,
                                                         1024, NULL), 1e-12);
    }
    ck_assert_uint_ge(paying, 2);
    pair_free(&x);
}
END_TEST

/* The roofline's improvement at its optimum under the draws: the band every command prints. */
static double improvement_opt(const sd_roofline_request *rq, const void *arg)
{
    sd_roofline_point pt;
    sd_cost_roofline(rq, *(const double *)arg, 4096, &pt);
    return pt.improvement_opt;
}

/* The shared band over the draws of sd_calibrate_draws is sd_calibrate_band's, bit for bit; draws
 * that are all the point estimate make a band of width 0; no draws or q = 0.5 are refused. */
START_TEST(the_band_is_calibrate_band)
{
    pair x;
    pair_load(&x);
    const double gammas[] = { 1, 2, 3, 4, 5, 6, 7, 8 }, batch = 32;
    x.rq.alpha = 0.7;
    x.rq.gammas = gammas;
    x.rq.ngammas = 8;
    sd_roofline_request *draws = malloc(SD_CALIBRATE_BAND_DRAWS * sizeof *draws);
    ck_assert_ptr_nonnull(draws);
    ck_assert_int_eq(sd_calibrate_draws(&x.rq, x.c, x.cd, SD_CALIBRATE_BAND_DRAWS, SD_CALIBRATE_BAND_SEED, draws, NULL),
                     SD_OK);
    sd_calibrate_band_out want;
    ck_assert_int_eq(sd_calibrate_band(&x.rq, x.c, x.cd, batch, 4096, SD_CALIBRATE_BAND_DRAWS, SD_CALIBRATE_BAND_Q,
                                       SD_CALIBRATE_BAND_SEED, &want, NULL),
                     SD_OK);
    double lo, hi;
    ck_assert_int_eq(sd_cmd_cost_band(draws, SD_CALIBRATE_BAND_DRAWS, SD_CALIBRATE_BAND_Q, improvement_opt, &batch,
                                      &lo, &hi, NULL),
                     SD_OK);
    ck_assert_double_eq(lo, want.improvement_lo);
    ck_assert_double_eq(hi, want.improvement_hi);
    ck_assert_double_lt(lo, hi);
    /* a tree's band: of width 0 on draws that are the point estimate */
    sd_tree_accept acc;
    sd_tree t;
    const double p[] = { 0.6, 0.15, 0.08 };
    ck_assert_int_eq(sd_tree_accept_ranks(p, 3, &acc, "p", NULL), SD_OK);
    ck_assert_int_eq(sd_tree_parse("kary:3,2", &acc, &t, "tree", NULL), SD_OK);
    double e = sd_tree_expected_tokens(&t, &acc), s = sd_cmd_tree_speedup(&x.rq, &t, e, batch, 4096, NULL);
    for (size_t k = 0; k < 10; k++)
        draws[k] = x.rq;
    ck_assert_int_eq(sd_cmd_tree_band(draws, 10, 0.05, &t, e, batch, 4096, &lo, &hi, NULL), SD_OK);
    ck_assert_double_eq(lo, s);
    ck_assert_double_eq(hi, s);
    sd_error err;
    lo = hi = -1;
    ck_assert_int_eq(sd_cmd_tree_band(draws, 0, 0.05, &t, e, batch, 4096, &lo, &hi, &err), SD_EINVAL);
    ck_assert_int_eq(sd_cmd_tree_band(draws, 10, 0.5, &t, e, batch, 4096, &lo, &hi, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "band: "));
    ck_assert_double_eq(lo, -1);
    free(draws);
    pair_free(&x);
}
END_TEST

/* The command's row under the presets: improvement is sd_cmd_tree_speedup and its band
 * sd_cmd_tree_band over the command's draws, iteration_ms the tree's iteration. */
START_TEST(the_command_is_these_calls)
{
    pair x;
    pair_load(&x);
    const double p[] = { 0.6, 0.15, 0.08, 0.05 }, batch[] = { 16 };
    sd_cmd_tree_request rq = sd_cmd_tree_defaults();
    rq.tree = "kary:2,2";
    rq.acceptance_rank = (sd_command_list){ p, 4 };
    rq.target = "llama-3.1-8b";
    rq.draft = "llama-3.2-1b";
    rq.hardware = "h100-sxm";
    rq.batch = (sd_command_list){ batch, 1 };
    sd_table *t;
    sd_error err;
    ck_assert_msg(sd_cmd_tree_table(&rq, &t, &err) == SD_OK, "%s", err.msg);
    ck_assert_uint_eq(sd_table_nrows(t), 1);
    sd_tree_accept acc;
    sd_tree tr;
    ck_assert_int_eq(sd_tree_accept_ranks(p, 4, &acc, "p", NULL), SD_OK);
    ck_assert_int_eq(sd_tree_parse("kary:2,2", &acc, &tr, "tree", NULL), SD_OK);
    double e = sd_tree_expected_tokens(&tr, &acc), secs, lo, hi;
    double s = sd_cmd_tree_speedup(&x.rq, &tr, e, 16, 1024, &secs);
    sd_roofline_request *draws = malloc(SD_CALIBRATE_BAND_DRAWS * sizeof *draws);
    ck_assert_ptr_nonnull(draws);
    ck_assert_int_eq(sd_calibrate_draws(&x.rq, x.c, x.cd, SD_CALIBRATE_BAND_DRAWS, SD_CALIBRATE_BAND_SEED, draws, NULL),
                     SD_OK);
    ck_assert_int_eq(sd_cmd_tree_band(draws, SD_CALIBRATE_BAND_DRAWS, SD_CALIBRATE_BAND_Q, &tr, e, 16, 1024, &lo, &hi,
                                      NULL),
                     SD_OK);
    ck_assert_double_eq(sd_table_cell(t, 0, sd_table_find(t, "expected_tokens"))->v.r, e);
    ck_assert_double_eq(sd_table_cell(t, 0, sd_table_find(t, "improvement"))->v.r, s);
    ck_assert_double_eq(sd_table_cell(t, 0, sd_table_find(t, "iteration_ms"))->v.r, 1e3 * secs);
    ck_assert_double_eq(sd_table_cell(t, 0, sd_table_find(t, "improvement_lo"))->v.r, lo);
    ck_assert_double_eq(sd_table_cell(t, 0, sd_table_find(t, "improvement_hi"))->v.r, hi);
    ck_assert(lo < s && s < hi);
    sd_table_free(t);
    free(draws);
    pair_free(&x);
}
END_TEST

/* A C caller's request is checked as the program's options are. */
START_TEST(a_tree_request_is_checked)
{
    const double c[] = { 0.05 };
    sd_cmd_tree_request rq = sd_cmd_tree_defaults();
    rq.tree = "chain:3";
    sd_table *t = NULL;
    sd_error err;
    ck_assert_int_eq(sd_cmd_tree_table(&rq, &t, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "acceptance: give one of --alpha A"));
    rq.alpha = 1.5;
    ck_assert_int_eq(sd_cmd_tree_table(&rq, &t, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "--alpha: 1.5 is outside [0, 1]");
    rq.alpha = 0.8;
    rq.cost_ratio = (sd_command_list){ c, 1 };
    rq.optimal = 1;
    ck_assert_int_eq(sd_cmd_tree_table(&rq, &t, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "--optimal: give one of --tree SPEC"));
    rq.optimal = 0;
    ck_assert_msg(sd_cmd_tree_table(&rq, &t, &err) == SD_OK, "%s", err.msg);
    ck_assert_double_eq(sd_table_cell(t, 0, sd_table_find(t, "improvement"))->v.r,
                        sd_theory_improvement(0.8, 3, 0.05));
    sd_table_free(t);
}
END_TEST

Suite *cmd_tree_suite(void)
{
    Suite *s = suite_create("cmd_tree");
    TCase *tc = tcase_create("cmd_tree");
    tcase_add_test(tc, a_chain_is_the_roofline);
    tcase_add_test(tc, the_band_is_calibrate_band);
    tcase_add_test(tc, the_command_is_these_calls);
    tcase_add_test(tc, a_tree_request_is_checked);
    suite_add_tcase(s, tc);
    return s;
}

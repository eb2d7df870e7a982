/* test_figure.c -- the figures' data against the theory, the engine and the
 * cost model; the figure table; errors naming parameters.  (The gnuplot
 * scripts are the program's: tests/cli.sh checks them.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "specdec/calibrate.h"
#include "specdec/cost.h"
#include "specdec/figure.h"
#include "specdec/fit.h"
#include "specdec/npy.h"
#include "specdec/parse.h"
#include "specdec/presets.h"
#include "specdec/sampling.h"
#include "specdec/table.h"
#include "specdec/theory.h"
#include "testutil.h"

/* The Monte Carlo settings of these tests (the lists are left empty: the figure's defaults). */
static sd_figure_input small_input(void)
{
    return (sd_figure_input){ .tokens = 20000, .seed = 7, .threads = 2 };
}

static void set_list(sd_list *l, const char *text)
{
    static const sd_domain any = { "list", -INFINITY, INFINITY, 0 };
    sd_parse_list_free(l);
    ck_assert_int_eq(sd_parse_list(text, &any, l, NULL), SD_OK);
}

static void free_input(sd_figure_input *in)
{
    sd_parse_list_free(&in->alpha), sd_parse_list_free(&in->cost), sd_parse_list_free(&in->gamma), sd_parse_list_free(&in->mu);
}

static void compute(const char *name, const sd_figure_input *in, sd_figure_data *d)
{
    const sd_figure_kind *k = sd_figure_find(name);
    ck_assert_ptr_nonnull(k);
    sd_error err;
    ck_assert_msg(sd_figure_compute(k, in, d, &err) == SD_OK, "%s: %s", name, err.msg);
}

static double num(const sd_table *t, size_t row, size_t col)
{
    const sd_cell *c = sd_table_cell(t, row, col);
    ck_assert_int_ne(c->type, SD_CELL_TEXT);
    return c->type == SD_CELL_INT ? (double)c->v.i : c->v.r;
}

/* ---- the table ------------------------------------------------------------------ */

START_TEST(the_table_lists_every_figure_once)
{
    char names[512] = "";
    size_t n = 0, monte_carlo = 0;
    const sd_figure_kind *k;
    static const sd_domain any = { "list", -INFINITY, INFINITY, 0 };
    for (size_t i = 0; (k = sd_figure_at(i)) != NULL; i++, n++) {
        ck_assert_int_eq(k->id, i);
        ck_assert_ptr_eq(sd_figure_find(k->name), k);
        ck_assert_ptr_nonnull(k->summary);
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", k->name);
        const char *dflt[] = { k->alpha, k->cost, k->gamma, k->mu };
        for (int j = 0; j < 4; j++) {
            sd_list l;
            ck_assert(dflt[j] == NULL || sd_parse_list(dflt[j], &any, &l, NULL) == SD_OK);
            if (dflt[j] != NULL)
                sd_parse_list_free(&l);
        }
        monte_carlo += (size_t)k->monte_carlo;
    }
    ck_assert_uint_eq(n, SD_FIGURE_COUNT);
    ck_assert_uint_eq(monte_carlo, 3);
    ck_assert_str_eq(sd_figure_names(), names);
    ck_assert_ptr_null(sd_figure_find("pie"));
    ck_assert_ptr_null(sd_figure_find(NULL));
    sd_figure_data_free(NULL);
}
END_TEST

/* Every figure computes from its defaults into its blocks; freeing empties them. */
START_TEST(every_figure_computes_its_blocks)
{
    const sd_figure_kind *k;
    for (size_t i = 0; (k = sd_figure_at(i)) != NULL; i++) {
        sd_figure_input in = small_input();
        sd_figure_data d;
        if (k->needs_input) /* fit draws a counters file */
            in.input = fixture_path("counters-vllm-v1.log");
        compute(k->name, &in, &d);
        size_t want = k->id == SD_FIGURE_IMPROVEMENT_VS_GAMMA || k->id == SD_FIGURE_IMPROVEMENT_VS_GAMMA_ALPHA ||
                              k->id == SD_FIGURE_MONTE_CARLO || k->id == SD_FIGURE_FIT ||
                              k->id == SD_FIGURE_TREE_BUDGET || k->id == SD_FIGURE_TREE_DRAWN
                          ? 2
                          : 1;
        ck_assert_msg(d.nblocks == want, "%s: %zu blocks", k->name, d.nblocks);
        for (size_t b = 0; b < SD_FIGURE_BLOCKS_MAX; b++) {
            ck_assert((b < d.nblocks) == (d.block[b] != NULL));
            ck_assert_msg(b >= d.nblocks || sd_table_nrows(d.block[b]) > 0, "%s: block %zu is empty", k->name, b);
        }
        sd_figure_data_free(&d);
        ck_assert_uint_eq(d.nblocks, 0);
        ck_assert_ptr_null(d.block[0]);
    }
}
END_TEST

/* ---- curves ------------------------------------------------------------------------ */

/* The fit figure is fit's positions and predictions reports, and needs its file. */
START_TEST(fit_figure_is_the_fit_reports)
{
    sd_figure_input in = small_input();
    sd_figure_data d;
    sd_error err;
    ck_assert_int_eq(sd_figure_compute(sd_figure_find("fit"), &in, &d, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "input: "));
    in.input = fixture_path("counters-vllm-v1.log");
    compute("fit", &in, &d);
    sd_counts c;
    sd_fit f;
    ck_assert_int_eq(sd_counters_load(in.input, NULL, &c, NULL), SD_OK);
    ck_assert_int_eq(sd_fit_counts(&c, 1e-3, &f, NULL), SD_OK);
    ck_assert_uint_eq(sd_table_nrows(d.block[0]), c.gamma);
    ck_assert_uint_eq(sd_table_nrows(d.block[1]), 2 * c.gamma);
    for (size_t k = 0; k < c.gamma; k++)
        ck_assert_double_eq(num(d.block[0], k, 3), f.cond[k]);
    ck_assert_rel(num(d.block[1], c.gamma - 1, 1), 1.0 + c.accepted_tokens / c.drafts, 1e-12); /* the mean length */
    ck_assert_double_eq(d.fit_gamma, (double)c.gamma);
    sd_figure_data_free(&d);
    free_input(&in);
}
END_TEST

START_TEST(improvement_data_matches_the_theory)
{
    sd_figure_input in = small_input();
    sd_figure_data d;
    compute("improvement-vs-gamma", &in, &d); /* alpha 0.8, c 0, 0.01, 0.02, 0.05, 0.1, gamma 1:40 */
    static const double cost[] = { 0, 0.01, 0.02, 0.05, 0.1 };
    const sd_table *t = d.block[0];
    ck_assert_uint_eq(sd_table_ncols(t), 6);
    ck_assert_str_eq(sd_table_name(t, 0), "gamma");
    ck_assert_str_eq(sd_table_name(t, 1), "c = 0 (optimum unbounded)");
    ck_assert_str_eq(sd_table_name(t, 3), "c = 0.02");
    ck_assert_uint_eq(sd_table_nrows(t), 40);
    for (size_t r = 0; r < 40; r++) {
        ck_assert_double_eq(num(t, r, 0), (double)(r + 1));
        for (size_t c = 1; c < 6; c++)
            ck_assert_double_eq(num(t, r, c), sd_theory_improvement(0.8, (double)(r + 1), cost[c - 1]));
    }
    const sd_table *opt = d.block[1]; /* the optima of c = 0.01, 0.02, 0.05, 0.1 (c = 0 is unbounded) */
    ck_assert_uint_eq(sd_table_nrows(opt), 4);
    for (size_t r = 0; r < 4; r++) {
        sd_optimum o;
        ck_assert_int_eq(sd_theory_optimal(0.8, cost[r + 1], &o, NULL), SD_OK);
        ck_assert_double_eq(num(opt, r, 0), (double)(r + 2)); /* the curve's column */
        ck_assert_double_eq(num(opt, r, 1), o.gamma_opt);
        ck_assert_double_eq(num(opt, r, 2), o.improvement_opt);
    }
    ck_assert_double_eq(num(opt, 1, 1), 11.0);
    ck_assert_str_eq(sd_table_cell(opt, 1, 3)->v.s, "γ* = 11");
    sd_figure_data_free(&d);

    /* below alpha = c no draft pays; an optimum beyond the gamma list is not marked */
    set_list(&in.alpha, "0.9"), set_list(&in.cost, "0.95,0.01"), set_list(&in.gamma, "1:3");
    compute("improvement-vs-gamma", &in, &d);
    ck_assert_str_eq(sd_table_name(d.block[0], 1), "c = 0.95 (do not speculate)");
    ck_assert_uint_eq(sd_table_nrows(d.block[1]), 0);
    sd_figure_data_free(&d);
    free_input(&in);
}
END_TEST

START_TEST(expected_tokens_and_flop_factor_match_the_theory)
{
    sd_figure_input in = small_input();
    sd_figure_data d;
    compute("expected-tokens", &in, &d); /* alpha 0.5:0.9:0.1, gamma 1:40 */
    const sd_table *t = d.block[0];
    ck_assert_uint_eq(sd_table_ncols(t), 6);
    ck_assert_uint_eq(sd_table_nrows(t), 40);
    for (size_t c = 1; c < 6; c++) {
        double alpha = 0.4 + 0.1 * (double)c;
        char label[32];
        snprintf(label, sizeof label, "α = %g", alpha);
        ck_assert_str_eq(sd_table_name(t, c), label);
        for (size_t r = 0; r < 40; r++)
            ck_assert_double_eq_tol(num(t, r, c), sd_theory_expected_tokens(alpha, num(t, r, 0)), 1e-12);
    }
    sd_figure_data_free(&d);

    compute("flop-factor", &in, &d); /* alpha 0.6, 0.8, 0.9 by mu 0, 0.05 (mu fastest), gamma 1:25 */
    static const double alpha[] = { 0.6, 0.8, 0.9 }, mu[] = { 0, 0.05 };
    t = d.block[0];
    ck_assert_uint_eq(sd_table_ncols(t), 7);
    ck_assert_uint_eq(sd_table_nrows(t), 25);
    ck_assert_str_eq(sd_table_name(t, 4), "α = 0.8, μ = 0.05");
    for (size_t s = 0; s < 6; s++)
        for (size_t r = 0; r < 25; r++)
            ck_assert_double_eq(num(t, r, s + 1), sd_theory_flop_factor(alpha[s / 2], (double)(r + 1), mu[s % 2]));
    sd_figure_data_free(&d);

    /* one curve: named by its fixed parameters; given lists equal to the defaults change nothing */
    set_list(&in.alpha, "0.7"), set_list(&in.gamma, "1:40");
    compute("expected-tokens", &in, &d);
    ck_assert_uint_eq(sd_table_ncols(d.block[0]), 2);
    ck_assert_str_eq(sd_table_name(d.block[0], 1), "α = 0.7");
    sd_figure_data_free(&d);
    free_input(&in);
}
END_TEST

/* ---- maps ---------------------------------------------------------------------------- */

START_TEST(maps_hold_the_optimum_and_the_do_not_speculate_region)
{
    sd_figure_input in = small_input();
    sd_figure_data d;
    compute("optimal-gamma-map", &in, &d);
    const sd_table *t = d.block[0];
    ck_assert_uint_eq(sd_table_nrows(t), 199 * 201);
    size_t zeros = 0, seed = 0, wrong = 0;
    for (size_t r = 0; r < sd_table_nrows(t); r++) {
        double a = num(t, r, 0), c = num(t, r, 1), v = num(t, r, 2);
        zeros += v == 0.0;
        wrong += (v == 0.0) != (a <= c); /* the do-not-speculate region is exactly alpha <= c */
        wrong += v > SD_FIGURE_GAMMA_CAP;
        if (fabs(a - 0.8) < 1e-12 && fabs(c - 0.02) < 1e-12) {
            seed++;
            ck_assert_double_eq(v, 11.0);
        }
    }
    ck_assert_uint_eq(seed, 1);
    ck_assert_uint_eq(wrong, 0);
    ck_assert_uint_gt(zeros, 1000);
    sd_figure_data_free(&d);

    set_list(&in.alpha, "0.3,0.8,0.99"), set_list(&in.cost, "0,0.02,0.5");
    compute("best-improvement-map", &in, &d);
    t = d.block[0];
    ck_assert_uint_eq(sd_table_nrows(t), 9);
    for (size_t r = 0; r < 9; r++) {
        double a = num(t, r, 0), c = num(t, r, 1);
        ck_assert_double_eq(a, in.alpha.v[r % 3]); /* cost slowest */
        ck_assert_double_eq(c, in.cost.v[r / 3]);
        sd_optimum o;
        ck_assert_int_eq(sd_theory_optimal(a, c, &o, NULL), SD_OK);
        double want = o.gamma_opt <= 0 ? 0.0 : fmin(o.improvement_opt, SD_FIGURE_IMPROVEMENT_CAP);
        ck_assert_double_eq(num(t, r, 2), want);
    }
    sd_figure_data_free(&d);
    free_input(&in);
}
END_TEST

/* ---- Monte Carlo ---------------------------------------------------------------------- */

/* The engine's histogram of N against the capped geometric law, eqs. (2)-(3). */
START_TEST(n_distribution_follows_the_pmf)
{
    sd_figure_input in = small_input();
    in.tokens = 200000;
    sd_figure_data d;
    compute("n-distribution", &in, &d); /* alpha 0.8, gamma 5 */
    const sd_table *t = d.block[0];
    ck_assert_uint_eq(sd_table_nrows(t), 6);
    ck_assert_double_gt(d.iterations, 1000);
    ck_assert_double_eq_tol(d.alpha_hat, 0.8, 0.01);
    double theory = 0, observed = 0;
    for (size_t r = 0; r < 6; r++) {
        double n = num(t, r, 0), p = num(t, r, 1), f = num(t, r, 2);
        ck_assert_double_eq(n, (double)(r + 1));
        ck_assert_double_eq(p, sd_theory_pmf(d.alpha_hat, 5, n)); /* at the measured alpha */
        ck_assert_double_eq_tol(p, sd_theory_pmf(0.8, 5, n), 0.01);
        /* an observed frequency is a count over the iterations, within 5 standard errors of the law */
        ck_assert_double_eq_tol(f * d.iterations, round(f * d.iterations), 1e-6);
        ck_assert_msg(fabs(f - p) <= 5 * sqrt(p * (1 - p) / d.iterations), "N = %g: observed %g, pmf %g", n, f, p);
        ck_assert(num(t, r, 3) <= f && f <= num(t, r, 4));
        theory += p;
        observed += f;
    }
    ck_assert_double_eq_tol(theory, 1.0, 1e-12);
    ck_assert_double_eq_tol(observed, 1.0, 1e-12);
    sd_figure_data_free(&d);
}
END_TEST

START_TEST(monte_carlo_points_sit_on_their_closed_forms)
{
    sd_figure_input in = small_input();
    in.tokens = 100000;
    set_list(&in.alpha, "0.5,0.8");
    sd_figure_data d;
    compute("monte-carlo", &in, &d); /* gamma 5 */
    const sd_table *t = d.block[0];
    ck_assert_uint_eq(sd_table_nrows(t), 2);
    for (size_t r = 0; r < 2; r++) {
        double a = num(t, r, 0), dd = 0.6 * fmin(a, 1 - a);
        ck_assert_double_eq(a, in.alpha.v[r]);
        /* i.i.d.: eq. (4) at the measured alpha; Markov: the transfer-matrix form; 5 standard errors */
        double iid = sd_theory_expected_tokens(num(t, r, 1), 5), se = num(t, r, 3) / 1.96;
        ck_assert_msg(fabs(num(t, r, 2) - iid) <= 5 * se, "alpha %g: i.i.d. %g against %g", a, num(t, r, 2), iid);
        const sd_markov mk = { .a_easy = a + dd, .a_hard = a - dd, .stay = 0.9 };
        ck_assert_double_eq(num(t, r, 7), sd_theory_markov_expected_tokens(&mk, 5));
        se = num(t, r, 6) / 1.96;
        ck_assert_msg(fabs(num(t, r, 5) - num(t, r, 7)) <= 5 * se, "alpha %g: Markov %g against %g", a,
                      num(t, r, 5), num(t, r, 7));
        ck_assert_double_lt(num(t, r, 5), iid); /* correlated acceptance: fewer tokens at the same mean */
    }
    const sd_table *curve = d.block[1];
    ck_assert_uint_eq(sd_table_nrows(curve), 201);
    for (size_t r = 0; r < 201; r++)
        ck_assert_double_eq(num(curve, r, 1), sd_theory_expected_tokens(num(curve, r, 0), 5));
    ck_assert_double_eq(num(curve, 200, 0), 0.995);
    sd_figure_data_free(&d);
    free_input(&in);
}
END_TEST

START_TEST(adaptive_policies_has_a_row_per_policy)
{
    sd_figure_input in = small_input();
    sd_figure_data d;
    compute("adaptive-policies", &in, &d);
    const sd_table *t = d.block[0];
    ck_assert_uint_eq(sd_table_ncols(t), 3);
    ck_assert_uint_eq(sd_table_nrows(t), 8);
    ck_assert_str_eq(sd_table_cell(t, 0, 0)->v.s, "fixed γ* (eq. 10)");
    ck_assert_str_eq(sd_table_cell(t, 6, 0)->v.s, "oracle");
    for (size_t r = 0; r < 8; r++)
        ck_assert(num(t, r, 1) > 1.0 && num(t, r, 2) > 0.0);
    sd_figure_data_free(&d);
}
END_TEST

/* ---- roofline ------------------------------------------------------------------------- */

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    ck_assert(in != NULL && out != NULL);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
}

START_TEST(roofline_figures_use_the_cost_model_and_the_data_folder)
{
    sd_figure_input in = small_input();
    sd_figure_data d;
    compute("roofline-batch", &in, &d);
    ck_assert_str_eq(d.target, "llama-3.1-70b-fp8");
    ck_assert_str_eq(d.draft, "llama-3.2-1b");
    ck_assert_double_eq(d.context, 1024);
    const sd_table *t = d.block[0];
    ck_assert_uint_eq(sd_table_nrows(t), 11);
    ck_assert_uint_eq(sd_table_ncols(t) % 2, 1);
    ck_assert_uint_gt(sd_table_ncols(t), 3);
    sd_presets p;
    ck_assert_int_eq(sd_presets_load(NULL, NULL, NULL, &p, NULL), SD_OK);
    const sd_model_spec *tm, *dm;
    const sd_hardware *h;
    ck_assert_int_eq(sd_presets_model(&p, "target", d.target, &tm, NULL), SD_OK);
    ck_assert_int_eq(sd_presets_model(&p, "draft", d.draft, &dm, NULL), SD_OK);
    ck_assert_int_eq(sd_presets_hardware(&p, "hardware", sd_table_name(t, 1), &h, NULL), SD_OK);
    static const double gammas[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    sd_roofline_request rq = sd_cost_roofline_defaults();
    rq.target = tm, rq.draft = dm, rq.hardware = h, rq.alpha = 0.8, rq.gammas = gammas, rq.ngammas = 16;
    sd_calibration *fits;
    size_t nfits;
    const sd_calibration *c, *cd;
    ck_assert_int_eq(sd_calibrate_load_defaults(NULL, &fits, &nfits, NULL), SD_OK);
    ck_assert_int_eq(sd_calibrate_apply_request(fits, nfits, &rq, &c, &cd), 0); /* the family fit serves both */
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_eq(c, cd);
    ck_assert_double_eq(rq.params.launch, c->value[SD_CAL_LAUNCH]);
    free(fits);
    sd_roofline_point r;
    sd_cost_roofline(&rq, 1, 1024, &r);
    ck_assert_double_eq(num(t, 0, 0), 1);
    ck_assert_double_eq(num(t, 0, 1), r.improvement_opt);
    ck_assert_double_eq(num(t, 0, 2), r.gamma_opt);
    ck_assert_double_eq(num(t, 10, 0), 1024);
    sd_figure_data_free(&d);

    compute("roofline-map", &in, &d);
    ck_assert_uint_eq(sd_table_nrows(d.block[0]), 110);
    ck_assert_str_eq(d.target, "llama-3.1-70b-fp8");
    sd_figure_data_free(&d);

    /* a data folder of our own: one accelerator, then none called h200 */
    char dir[64], path[128];
    snprintf(dir, sizeof dir, "/tmp/specdec-figure-%ld", (long)getpid());
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    snprintf(path, sizeof path, "%s/models.tsv", dir);
    copy_file(data_path("models.tsv"), path);
    snprintf(path, sizeof path, "%s/cost-defaults.tsv", dir);
    copy_file(data_path("cost-defaults.tsv"), path);
    snprintf(path, sizeof path, "%s/hardware.tsv", dir);
    FILE *f = fopen(path, "w");
    fputs("name\ttflops_bf16\ttflops_fp8\tbandwidth_tbs\tmemory_gb\tlink_gbs\tlink_latency_us\n"
          "h200\t989\t1979\t4.8\t141\t450\t3\n", f);
    fclose(f);
    in.data_dir = dir;
    compute("roofline-batch", &in, &d);
    ck_assert_uint_eq(sd_table_ncols(d.block[0]), 3);
    ck_assert_str_eq(sd_table_name(d.block[0], 2), "h200 gamma");
    sd_figure_data_free(&d);
    f = fopen(path, "w");
    fputs("name\ttflops_bf16\ttflops_fp8\tbandwidth_tbs\tmemory_gb\tlink_gbs\tlink_latency_us\n"
          "small\t100\t200\t1\t16\t32\t3\n", f);
    fclose(f);
    sd_error err;
    ck_assert_int_eq(sd_figure_compute(sd_figure_find("roofline-map"), &in, &d, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "figure roofline-map: unknown hardware 'h200'; known: small");
    ck_assert_int_eq(sd_figure_compute(sd_figure_find("roofline-batch"), &in, &d, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "figure roofline-batch: no accelerator holds llama-3.1-70b-fp8 and llama-3.2-1b");
    ck_assert_uint_eq(d.nblocks, 0);
    ck_assert_ptr_null(d.block[0]);
    unlink(path);
    snprintf(path, sizeof path, "%s/models.tsv", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/cost-defaults.tsv", dir);
    unlink(path);
    rmdir(dir);
    sd_presets_free(&p);
}
END_TEST

/* verify-cost: each cell is the cost model's own ratio, computed here from
 * the presets; operators make verification dearer than the pass model at
 * short context once the linear layers turn compute-bound. */
START_TEST(verify_cost_figure_is_the_cost_model)
{
    sd_figure_input in = small_input();
    sd_figure_data d;
    compute("verify-cost", &in, &d);
    const sd_table *t = d.block[0];
    ck_assert_uint_eq(sd_table_nrows(t), 11);
    ck_assert_uint_eq(sd_table_ncols(t), 7);
    ck_assert_str_eq(sd_table_name(t, 1), "operator, S = 1K");
    ck_assert_str_eq(sd_table_name(t, 6), "pass, S = 32K");
    sd_presets p;
    ck_assert_int_eq(sd_presets_load(NULL, NULL, NULL, &p, NULL), SD_OK);
    const sd_model_spec *m;
    const sd_hardware *h;
    ck_assert_int_eq(sd_presets_model(&p, "m", "llama-3.1-8b", &m, NULL), SD_OK);
    ck_assert_int_eq(sd_presets_hardware(&p, "h", "h100-sxm", &h, NULL), SD_OK);
    sd_calibration *fits;
    size_t nfits;
    ck_assert_int_eq(sd_calibrate_load_defaults(NULL, &fits, &nfits, NULL), SD_OK);
    const sd_calibration *c = sd_calibrate_find(fits, nfits, m, h);
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(c->hardware, "hopper"); /* the shipped family fit */
    for (size_t r = 0; r < 11; r++) {
        double b = num(t, r, 0);
        ck_assert_double_eq(b, ldexp(1, (int)r));
        for (int k = 0; k < 6; k++) {
            sd_cost_params cp = sd_cost_defaults(); /* pass: uncalibrated; operator: the shipped fit */
            cp.granularity = k % 2 ? SD_GRANULARITY_PASS : SD_GRANULARITY_OPERATOR;
            if (k % 2 == 0)
                sd_calibrate_apply(c, &cp);
            double s = k / 2 == 0 ? 1024 : k / 2 == 1 ? 8192 : 32768;
            double want = sd_cost_step_time(m, h, &cp, b, 5, s, NULL) / /* the default gamma 4 */
                          sd_cost_step_time(m, h, &cp, b, 1, s, NULL);
            ck_assert_double_eq(num(t, r, (size_t)k + 1), want);
            ck_assert(want >= 1.0);
        }
    }
    ck_assert(num(t, 6, 1) > 1.4 && num(t, 6, 2) < 1.2); /* batch 64, 1K: operators see the MLP turn compute-bound */
    sd_figure_data_free(&d);
    sd_presets_free(&p);
    free(fits);
}
END_TEST

/* ---- errors --------------------------------------------------------------------------- */

/* Computes figure name with list `field` (0 alpha, 1 cost, 2 gamma, 3 mu) set to
 * text: SD_EINVAL, a message starting with want, and no blocks. */
static void refused(const char *name, int field, const char *text, const char *want)
{
    sd_figure_input in = small_input();
    sd_list *lists[] = { &in.alpha, &in.cost, &in.gamma, &in.mu };
    set_list(lists[field], text);
    sd_figure_data d;
    sd_error err;
    ck_assert_int_eq(sd_figure_compute(sd_figure_find(name), &in, &d, &err), SD_EINVAL);
    ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "%s: '%s', expected '%s...'", name, err.msg, want);
    ck_assert_uint_eq(d.nblocks, 0);
    ck_assert_ptr_null(d.block[0]);
    ck_assert_ptr_null(d.block[1]);
    free_input(&in);
}

enum { ALPHA, COST, GAMMA, MU };

START_TEST(errors_name_the_parameter)
{
    refused("n-distribution", ALPHA, "0.6,0.7", "alpha: give one value for figure n-distribution");
    refused("n-distribution", GAMMA, "3,4", "gamma: give one value for figure n-distribution");
    refused("monte-carlo", GAMMA, "3,4", "gamma: give one value for figure monte-carlo");
    refused("adaptive-policies", COST, "0.1,0.2", "cost: give one value for figure adaptive-policies");
    refused("roofline-batch", ALPHA, "0.6,0.7", "alpha: give one value for figure roofline-batch");
    refused("roofline-map", ALPHA, "0.6,0.7", "alpha: give one value for figure roofline-map");
    refused("expected-tokens", ALPHA, "1.5", "alpha: 1.5 is outside [0, 1]");
    refused("expected-tokens", GAMMA, "0", "gamma: 0 is outside");
    refused("expected-tokens", GAMMA, "2.5", "gamma: 2.5 is not a whole number");
    refused("expected-tokens", GAMMA, "5000", "gamma: 5000 is outside");
    refused("improvement-vs-gamma", COST, "-0.1", "cost: -0.1 is outside");
    refused("flop-factor", MU, "-1", "mu: -1 is outside");
    refused("improvement-vs-gamma-alpha", ALPHA, "0.5:0.74:0.01",
            "figure improvement-vs-gamma-alpha: 25 curves; at most 24 fit in one figure");
}
END_TEST

START_TEST(inputs_the_figure_does_not_use_are_ignored)
{
    sd_figure_input in = small_input();
    set_list(&in.cost, "-5"), set_list(&in.mu, "-1"); /* expected-tokens takes neither */
    sd_figure_data d;
    compute("expected-tokens", &in, &d);
    sd_figure_data_free(&d);
    free_input(&in);
}
END_TEST

START_TEST(only_the_table_s_figures_are_computed)
{
    sd_figure_input in = small_input();
    sd_figure_data d;
    sd_error err;
    ck_assert_int_eq(sd_figure_compute(NULL, &in, &d, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "improvement-vs-gamma, "));
    sd_figure_kind copy = *sd_figure_at(0);
    ck_assert_int_eq(sd_figure_compute(&copy, &in, &d, &err), SD_EINVAL);
    ck_assert_int_eq(sd_figure_compute(sd_figure_at(0), NULL, &d, &err), SD_EINVAL);
    ck_assert_int_eq(sd_figure_compute(sd_figure_at(0), &in, NULL, &err), SD_EINVAL);
    in.tokens = 0;
    ck_assert_int_eq(sd_figure_compute(sd_figure_find("n-distribution"), &in, &d, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "tokens: give at least 1 for figure n-distribution");
    compute("expected-tokens", &in, &d); /* not Monte Carlo: tokens unused */
    sd_figure_data_free(&d);
}
END_TEST

/* The token-tree figures at Sequoia's vector: 64 budgets; the chain's (T1) is its own sum of
 * p_0^j and the optimal tree is never below it; the drawn tree is the optimal tree of 15
 * nodes, its (T1) the nodes' reach summed, plus 1. */
START_TEST(tree_figures)
{
    sd_figure_input in = { .threads = 1 };
    sd_figure_data d;
    compute("tree-budget", &in, &d);
    ck_assert_uint_eq(d.nblocks, 2);
    ck_assert_uint_eq(sd_table_nrows(d.block[0]), 64);
    const double p0 = 0.634183;
    for (size_t r = 0; r < 64; r++) {
        double chain = 0.0, x = 1.0;
        for (size_t j = 0; j <= r + 1; j++, x *= p0)
            chain += x;
        ck_assert_rel(num(d.block[0], r, 1), chain, 1e-12);
        ck_assert(num(d.block[0], r, 2) >= num(d.block[0], r, 1) - 1e-12);
    }
    ck_assert_uint_ge(sd_table_nrows(d.block[1]), 8);
    sd_figure_data_free(&d);
    compute("tree-drawn", &in, &d);
    ck_assert_uint_eq(sd_table_nrows(d.block[0]), 16);
    ck_assert_uint_eq(sd_table_nrows(d.block[1]), 15);
    double reach = 0.0;
    for (size_t r = 0; r < 16; r++)
        reach += num(d.block[0], r, 2);
    ck_assert_rel(reach, d.alpha_hat, 1e-12); /* the root's 1 + every node's reach */
    ck_assert_rel(d.alpha_hat, 3.1303, 1e-4);
    /* labels that cannot overlap: a node's (at most 6 characters) at a whole depth, an edge's (its
     * rank, one character) at a half depth, half a depth of 1200 pixels / 10 depths away */
    for (size_t r = 0; r < 16; r++)
        ck_assert_uint_le(strlen(sd_table_cell(d.block[0], r, 3)->v.s), 6);
    for (size_t r = 0; r < 15; r++) {
        const char *label = sd_table_cell(d.block[1], r, 4)->v.s;
        ck_assert_msg(strlen(label) == 1, "edge label '%s'", label);
        ck_assert_rel(num(d.block[1], r, 2) - num(d.block[1], r, 0), 1.0, 0);
        ck_assert_double_eq(num(d.block[1], r, 5), label[0] == '0' ? p0 : label[0] == '1' ? 0.107946 : 0.056972);
    }
    sd_figure_data_free(&d);
    compute("tree-speedup", &in, &d);
    ck_assert_uint_eq(sd_table_nrows(d.block[0]), 64);
    /* one node: the chain of one at every batch, (1 + p_0) t1 / (t_draft(1) + t_target(2)) */
    sd_presets ps;
    const sd_model_spec *t, *dm;
    const sd_hardware *h;
    sd_error err;
    ck_assert_int_eq(sd_presets_load(NULL, NULL, NULL, &ps, &err), SD_OK);
    ck_assert_int_eq(sd_presets_model(&ps, "t", "llama-3.1-8b", &t, &err), SD_OK);
    ck_assert_int_eq(sd_presets_model(&ps, "d", "llama-3.2-1b", &dm, &err), SD_OK);
    ck_assert_int_eq(sd_presets_hardware(&ps, "h", "h100-sxm", &h, &err), SD_OK);
    sd_calibration *fits;
    size_t nfits;
    ck_assert_int_eq(sd_calibrate_load_defaults(NULL, &fits, &nfits, &err), SD_OK);
    const sd_calibration *c = sd_calibrate_find(fits, nfits, t, h), *cd = sd_calibrate_find(fits, nfits, dm, h);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_eq(c, cd); /* one family fit for both */
    sd_cost_params cp = sd_cost_defaults();
    sd_calibrate_apply(c, &cp);
    const double batches[3] = { 1, 16, 64 };
    for (size_t j = 0; j < 3; j++) {
        double t1 = sd_cost_step_time(t, h, &cp, batches[j], 1, 1024, NULL);
        double tt = sd_cost_step_time(dm, h, &cp, batches[j], 1, 1024, NULL) + sd_cost_step_time(t, h, &cp, batches[j], 2, 1024, NULL);
        ck_assert_rel(num(d.block[0], 0, 1 + j), (1 + p0) * t1 / tt, 1e-12);
    }
    free(fits);
    sd_presets_free(&ps);
    sd_figure_data_free(&d);
}
END_TEST

/* The alpha-temperature figure from a user's pair: 41 temperatures; at T = 0 both rules
 * accept exactly when the argmaxes agree; at T = 1 the means are sd_sampling_rows'. */
START_TEST(alpha_temperature_figure_from_a_pair)
{
    double pv[] = { 0.0, 1.0, 2.385, 0.5, 3.0, -1.0, 0.2, 0.1, 0.0 };
    double qv[] = { 0.3, 1.0, 1.5, 2.0, 0.0, -2.0, 0.0, 0.0, 0.0 };
    char pp[64], qp[64];
    snprintf(pp, sizeof pp, "/tmp/specdec-test-%ld-p.npy", (long)getpid());
    snprintf(qp, sizeof qp, "/tmp/specdec-test-%ld-q.npy", (long)getpid());
    ck_assert_int_eq(sd_npy_save(pp, pv, 3, 3, NULL), SD_OK);
    ck_assert_int_eq(sd_npy_save(qp, qv, 3, 3, NULL), SD_OK);
    sd_figure_input in = { .threads = 1, .p_npy = pp, .q_npy = qp };
    sd_figure_data d;
    sd_error err;
    ck_assert_msg(sd_figure_compute(sd_figure_find("alpha-temperature"), &in, &d, &err) == SD_OK, "%s", err.msg);
    ck_assert_uint_eq(d.nblocks, 1);
    ck_assert_uint_eq(sd_table_nrows(d.block[0]), 41);
    /* T = 0: row 0's argmaxes agree (2, 2), row 1's do not (1, 0), row 2's do (0, and q's tie: the lowest id) */
    ck_assert_double_eq_tol(sd_table_cell(d.block[0], 0, 1)->v.r, 2.0 / 3, 1e-15);
    ck_assert_double_eq_tol(sd_table_cell(d.block[0], 0, 4)->v.r, 2.0 / 3, 1e-15);
    sd_npy p = { 3, 3, 2, pv }, q = { 3, 3, 2, qv };
    sd_sampling s = sd_sampling_defaults();
    double beta[3], dd[3];
    ck_assert_int_eq(sd_sampling_rows(&(sd_sampling_pair){ &p, &q, SD_INPUT_LOGITS, s, s, "p", "q" }, beta, dd, NULL), SD_OK);
    ck_assert_double_eq_tol(sd_table_cell(d.block[0], 20, 0)->v.r, 1.0, 1e-12);
    ck_assert_double_eq_tol(sd_table_cell(d.block[0], 20, 1)->v.r, (beta[0] + beta[1] + beta[2]) / 3, 1e-12);
    ck_assert_double_eq_tol(sd_table_cell(d.block[0], 20, 4)->v.r, (dd[0] + dd[1] + dd[2]) / 3, 1e-12);
    sd_figure_data_free(&d);
    in.q_npy = NULL;
    ck_assert_int_eq(sd_figure_compute(sd_figure_find("alpha-temperature"), &in, &d, &err), SD_EINVAL);
    unlink(pp), unlink(qp);
}
END_TEST

Suite *figure_suite(void)
{
    Suite *s = suite_create("figure");
    TCase *tc = tcase_create("figure");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, the_table_lists_every_figure_once);
    tcase_add_test(tc, every_figure_computes_its_blocks);
    tcase_add_test(tc, improvement_data_matches_the_theory);
    tcase_add_test(tc, fit_figure_is_the_fit_reports);
    tcase_add_test(tc, expected_tokens_and_flop_factor_match_the_theory);
    tcase_add_test(tc, maps_hold_the_optimum_and_the_do_not_speculate_region);
    tcase_add_test(tc, n_distribution_follows_the_pmf);
    tcase_add_test(tc, monte_carlo_points_sit_on_their_closed_forms);
    tcase_add_test(tc, adaptive_policies_has_a_row_per_policy);
    tcase_add_test(tc, roofline_figures_use_the_cost_model_and_the_data_folder);
    tcase_add_test(tc, verify_cost_figure_is_the_cost_model);
    tcase_add_test(tc, errors_name_the_parameter);
    tcase_add_test(tc, inputs_the_figure_does_not_use_are_ignored);
    tcase_add_test(tc, only_the_table_s_figures_are_computed);
    tcase_add_test(tc, tree_figures);
    suite_add_tcase(s, tc);
    TCase *pair = tcase_create("from a matrix pair");
    tcase_add_test(pair, alpha_temperature_figure_from_a_pair);
    suite_add_tcase(s, pair);
    return s;
}

/* plot.c -- the figures (see plot.h).
 *
 * Each figure is a row of sd_plots: its defaults and a writer that fills the
 * data file (through the table and TSV formatter every command uses) and
 * the gnuplot script.  Curves figures share one writer: a wide table, one
 * column per combination of the listed parameters.
 */
#include "specdec/figure.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "specdec/cost.h"
#include "specdec/engine.h"
#include "specdec/format.h"
#include "specdec.h"
#include "specdec/synth.h"
#include "specdec/table.h"
#include "specdec/theory.h"
#include "specdec/verify.h"

/* ---- shared pieces -------------------------------------------------------- */

static sd_status write_block(FILE *dat, const sd_table *t, int first, sd_error *err)
{
    if (!first)
        fputs("\n\n", dat); /* gnuplot: a new index block */
    return sd_format_write(t, SD_FORMAT_TSV, dat, err);
}

/* The script's preamble: terminal, output, fonts, title and axes. */
static void preamble(FILE *gp, const char *name, sd_plot_format fmt, const char *title, const char *xlabel,
                     const char *ylabel)
{
    fprintf(gp, "# specdec %s: %s\n# Render in this folder: gnuplot -d %s.gp\n", SPECDEC_VERSION, title, name);
    if (fmt == SD_PLOT_PNG)
        fprintf(gp, "set terminal pngcairo size 1200,800 font \"DejaVu Sans,16\" noenhanced\nset output \"%s.png\"\n",
                name);
    else
        fprintf(gp, "set terminal svg size 1200,800 font \"DejaVu Sans,16\" noenhanced background rgb \"white\"\n"
                    "set output \"%s.svg\"\n", name);
    fprintf(gp, "set datafile separator \"\\t\"\nset title \"%s\"\nset xlabel \"%s\"\nset ylabel \"%s\"\n"
                "set grid lc rgb \"#d0d0d0\"\nset border lw 1.5\nset key box opaque samplen 2\n",
            title, xlabel, ylabel);
}

/* "name = value" pieces for the parameters of one series: the varying ones
 * go in the legend, the fixed ones in the title. */
typedef struct {
    const char *symbol;
    const sd_list *list;
} param;

static void describe(const param *ps, int np, const double *x, int varying, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < np; i++) {
        if (ps[i].list == NULL || (ps[i].list->n > 1) != varying)
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s = %g", used ? ", " : "", ps[i].symbol, x[i]);
    }
}

/* ---- curves against gamma: improvement, E(N), FLOP factor ------------------- */

typedef enum { CURVE_IMPROVEMENT, CURVE_TOKENS, CURVE_FLOPS } curve_kind;

static double curve_value(curve_kind k, double alpha, double cost, double mu, double gamma)
{
    switch (k) {
    case CURVE_IMPROVEMENT: return sd_theory_improvement(alpha, gamma, cost);
    case CURVE_TOKENS: return sd_theory_expected_tokens(alpha, gamma);
    case CURVE_FLOPS: return sd_theory_flop_factor(alpha, gamma, mu);
    }
    return NAN;
}

static sd_status write_curves(const sd_plot_input *in, const char *name, int variant, sd_plot_format fmt, FILE *dat,
                              FILE *gp, sd_error *err)
{
    const curve_kind kind = (curve_kind)variant;
    static double zero_value[1] = { 0.0 };
    static const sd_list zero = { zero_value, 1 };
    const sd_list *cost = kind == CURVE_IMPROVEMENT ? &in->cost : &zero, *mu = kind == CURVE_FLOPS ? &in->mu : &zero;
    param ps[3] = { { "α", &in->alpha }, { "c", kind == CURVE_IMPROVEMENT ? &in->cost : NULL },
                    { "μ", kind == CURVE_FLOPS ? &in->mu : NULL } };
    size_t ns = in->alpha.n * cost->n * mu->n;
    if (ns > 24)
        return sd_fail(err, SD_EINVAL, "plot %s: %zu curves; at most 24 fit in one figure", name, ns);
    const char **names = calloc(ns + 1, sizeof *names);
    char (*labels)[96] = calloc(ns, sizeof *labels);
    sd_table *t = NULL, *opt = NULL;
    sd_status st = SD_OK;
    if (names == NULL || labels == NULL) {
        st = sd_fail(err, SD_ENOMEM, "out of memory");
        goto done;
    }
    names[0] = "gamma";
    char fixed[160] = "";
    for (size_t s = 0; s < ns; s++) {
        double x[3] = { in->alpha.v[s / (cost->n * mu->n)], cost->v[(s / mu->n) % cost->n], mu->v[s % mu->n] };
        describe(ps, 3, x, 1, labels[s], sizeof labels[s]);
        if (labels[s][0] == '\0')
            describe(ps, 3, x, 0, labels[s], sizeof labels[s]);
        if (s == 0)
            describe(ps, 3, x, 0, fixed, sizeof fixed);
        if (kind == CURVE_IMPROVEMENT) {
            sd_optimum o;
            if ((st = sd_theory_optimal(x[0], x[1], &o, err)) != SD_OK)
                goto done;
            size_t len = strlen(labels[s]);
            if (isinf(o.gamma_opt))
                snprintf(labels[s] + len, sizeof labels[s] - len, " (optimum unbounded)");
            else if (o.gamma_opt <= 0)
                snprintf(labels[s] + len, sizeof labels[s] - len, " (do not speculate)");
        }
        names[s + 1] = labels[s];
    }
    static const char *const opt_cols[] = { "series", "gamma_opt", "improvement_opt", "label" };
    if ((t = sd_table_alloc(ns + 1, names)) == NULL || (opt = sd_table_alloc(4, opt_cols)) == NULL) {
        st = sd_fail(err, SD_ENOMEM, "out of memory");
        goto done;
    }
    sd_cell *row = malloc((ns + 1) * sizeof *row);
    if (row == NULL) {
        st = sd_fail(err, SD_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t g = 0; g < in->gamma.n && st == SD_OK; g++) {
        row[0] = sd_int((long long)in->gamma.v[g]);
        for (size_t s = 0; s < ns; s++)
            row[s + 1] = sd_real(curve_value(kind, in->alpha.v[s / (cost->n * mu->n)],
                                             cost->v[(s / mu->n) % cost->n], mu->v[s % mu->n], in->gamma.v[g]));
        st = sd_table_add(t, row, err);
    }
    free(row);
    double gmax = in->gamma.v[in->gamma.n - 1];
    for (size_t s = 0; kind == CURVE_IMPROVEMENT && s < ns && st == SD_OK; s++) {
        sd_optimum o;
        double a = in->alpha.v[s / cost->n], c = cost->v[s % cost->n];
        if ((st = sd_theory_optimal(a, c, &o, err)) != SD_OK || !(o.gamma_opt >= 1.0 && o.gamma_opt <= gmax))
            continue;
        char label[48];
        snprintf(label, sizeof label, "γ* = %.0f", o.gamma_opt);
        const sd_cell r[] = { sd_int((long long)s + 1), sd_real(o.gamma_opt), sd_real(o.improvement_opt), sd_text(label) };
        st = sd_table_add(opt, r, err);
    }
    if (st != SD_OK || (st = write_block(dat, t, 1, err)) != SD_OK)
        goto done;
    if (kind == CURVE_IMPROVEMENT && (st = write_block(dat, opt, 0, err)) != SD_OK)
        goto done;

    char title[256];
    static const char *const titles[] = { "Wall-time improvement f(γ) = E(N) / (1 + γc), eq. (10)",
                                          "Expected tokens per iteration E(N), eq. (4), and the ceiling 1/(1 − α)",
                                          "FLOP factor (γμ + γ + 1) / E(N), eq. (11)" };
    static const char *const ylabels[] = { "improvement f (× standard decoding)", "E(N) (tokens per target call)",
                                           "arithmetic per token (× standard decoding)" };
    snprintf(title, sizeof title, "%s%s%s", titles[kind], fixed[0] ? ", " : "", fixed);
    preamble(gp, name, fmt, title, "draft length γ", ylabels[kind]);
    /* room above the curves for the key */
    fprintf(gp, "set xrange [%g:%g]\nset key %s\nset style data lines\nset offsets 0, 0, graph 0.45, 0\n",
            in->gamma.v[0], gmax, kind == CURVE_IMPROVEMENT ? "right top" : "left top");
    if (kind == CURVE_IMPROVEMENT)
        fprintf(gp, "set yrange [0:*]\n");
    if (kind == CURVE_TOKENS) /* each ceiling's value at the right end of its dashed line */
        for (size_t s = 0; s < ns; s++)
            if (in->alpha.v[s] < 1.0)
                fprintf(gp, "set label %zu \"%.4g\" at graph 1, first %.17g offset -0.5,0.6 right front\n", s + 1,
                        sd_theory_ceiling(in->alpha.v[s]), sd_theory_ceiling(in->alpha.v[s]));
    fprintf(gp, "set key reverse Left\n");
    fprintf(gp, "plot for [i=2:%zu] \"%s.dat\" index 0 using 1:i lw 3 lt (i-1) title columnhead(i)", ns + 1, name);
    if (kind == CURVE_IMPROVEMENT) {
        if (sd_table_nrows(opt) > 0)
            fprintf(gp, ", \\\n  \"%s.dat\" index 1 using 2:3:1 with points pt 7 ps 2.2 lc variable title \"optimum γ* of each curve\""
                        ", \\\n  \"%s.dat\" index 1 using 2:3:4 with labels offset 0,1.3 font \",14\" notitle",
                    name, name);
        fprintf(gp, ", \\\n  1 with lines dt 2 lw 2 lc rgb \"gray30\" title \"f = 1: no speed-up\"\n");
    } else if (kind == CURVE_TOKENS) {
        for (size_t s = 0; s < ns; s++)
            if (in->alpha.v[s] < 1.0)
                fprintf(gp, ", \\\n  %.17g with lines dt 2 lw 2 lt %zu notitle", sd_theory_ceiling(in->alpha.v[s]), s + 1);
        fprintf(gp, ", \\\n  NaN with lines dt 2 lw 2 lc rgb \"gray30\" title \"dashed: the ceiling 1/(1 − α), γ → ∞\"\n");
    } else {
        fprintf(gp, ", \\\n  1 with lines dt 2 lw 2 lc rgb \"gray30\" title \"standard decoding\"\n");
    }
done:
    sd_table_free(t);
    sd_table_free(opt);
    free(names);
    free(labels);
    return st;
}

/* ---- heatmaps over (alpha, c) -------------------------------------------------- */

typedef enum { MAP_GAMMA, MAP_IMPROVEMENT } map_kind;

static const double GAMMA_CAP = 256.0; /* the colour scale's top: 256 or more, or unbounded */

static sd_status write_map(const sd_plot_input *in, const char *name, int variant, sd_plot_format fmt, FILE *dat,
                           FILE *gp, sd_error *err)
{
    const map_kind kind = (map_kind)variant;
    static const char *const cols[] = { "alpha", "cost", "value" };
    sd_table *t = sd_table_alloc(3, cols);
    if (t == NULL)
        return sd_fail(err, SD_ENOMEM, "out of memory");
    sd_status st = SD_OK;
    /* NaN marks "do not speculate"; it never reaches the table (which refuses NaN), so the
     * map is written with an explicit sentinel row set: value 0 there, drawn in grey. */
    for (size_t j = 0; j < in->cost.n && st == SD_OK; j++)
        for (size_t i = 0; i < in->alpha.n && st == SD_OK; i++) {
            sd_optimum o;
            double a = in->alpha.v[i], c = in->cost.v[j], v;
            if ((st = sd_theory_optimal(a, c, &o, err)) != SD_OK)
                break;
            if (o.gamma_opt <= 0.0)
                v = 0.0;
            else if (kind == MAP_GAMMA)
                v = fmin(o.gamma_opt, GAMMA_CAP);
            else
                v = fmin(o.improvement_opt, 16.0);
            const sd_cell r[] = { sd_real(a), sd_real(c), sd_real(v) };
            st = sd_table_add(t, r, err);
        }
    if (st == SD_OK)
        st = write_block(dat, t, 1, err);
    sd_table_free(t);
    if (st != SD_OK)
        return st;
    double amax = in->alpha.v[in->alpha.n - 1], cmax = in->cost.v[in->cost.n - 1];
    double da = in->alpha.n > 1 ? (amax - in->alpha.v[0]) / (double)(in->alpha.n - 1) : 0.01;
    double dc = in->cost.n > 1 ? (cmax - in->cost.v[0]) / (double)(in->cost.n - 1) : 0.01;
    if (kind == MAP_GAMMA) {
        preamble(gp, name, fmt, "Optimal draft length γ* (eq. 10, Lambert W) by acceptance α and cost c",
                 "acceptance rate α", "draft/target cost ratio c");
        fprintf(gp, "set logscale cb 2\nset cbrange [1:%g]\nset cbtics (\"1\" 1, \"2\" 2, \"4\" 4, \"8\" 8, \"16\" 16, "
                    "\"32\" 32, \"64\" 64, \"128\" 128, \"256+, ∞\" 256)\n"
                    "set cblabel \"γ* (drafts per iteration; c = 0: unbounded)\"\n"
                    "set palette maxcolors 8 defined (0 \"#313695\", 1 \"#4575b4\", 2 \"#74add1\", 3 \"#abd9e9\", "
                    "4 \"#fee090\", 5 \"#fdae61\", 6 \"#f46d43\", 7 \"#d73027\", 8 \"#a50026\")\n",
                GAMMA_CAP);
    } else {
        preamble(gp, name, fmt, "Best wall-time improvement f(γ*) (eq. 10) by acceptance α and cost c",
                 "acceptance rate α", "draft/target cost ratio c");
        /* eight bands, a factor sqrt(2) each */
        fprintf(gp, "set logscale cb 2\nset cbrange [1:16]\nset cbtics (\"1\" 1, \"1.41\" 1.4142, \"2\" 2, "
                    "\"2.83\" 2.8284, \"4\" 4, \"5.66\" 5.6569, \"8\" 8, \"11.3\" 11.314, \"16+\" 16)\n"
                    "set cblabel \"best improvement (× standard decoding)\"\n"
                    "set palette maxcolors 8 defined (0 \"#440154\", 0.25 \"#3b528b\", 0.5 \"#21918c\", "
                    "0.75 \"#5ec962\", 1 \"#fde725\")\n");
    }
    fprintf(gp, "set xrange [%g:%g]\nset yrange [%g:%g]\nset rmargin at screen 0.80\nunset key\n"
                "set style textbox opaque noborder\n"
                "set object 1 rectangle from graph 0,0 to graph 1,1 behind fc rgb \"#bdbdbd\" fs solid noborder\n"
                "set label 1 \"do not speculate: α ≤ c\" at %g,%g left front\n"
                "set label 2 \"α = c\" at %g,%g rotate by %g front\n"
                "set label 3 \" seed's example: α = 0.8, c = 0.02 \" at 0.8,0.02 point pt 7 ps 2 lc rgb \"black\" "
                "offset -1,1.3 right front boxed\n",
            in->alpha.v[0] - da / 2, amax + da / 2, in->cost.v[0] - dc / 2, cmax + dc / 2, 0.02, 0.85 * cmax,
            0.6 * cmax - 0.045, 0.6 * cmax, /* the line's angle on a 840 x 640 pixel plot area */
            atan2(640.0 / (cmax - in->cost.v[0]), 840.0 / (amax - in->alpha.v[0])) * 45.0 / atan(1.0));
    fprintf(gp, "plot \"%s.dat\" index 0 using 1:2:($3 >= 1 ? $3 : NaN) with image notitle, \\\n"
                "  x with lines lw 3 lc rgb \"black\" notitle\n",
            name);
    return SD_OK;
}

/* ---- Monte Carlo figures ------------------------------------------------------------- */

static sd_status run_model(const sd_plot_input *in, sd_regime regime, double alpha, double easy, double hard,
                           size_t gamma, sd_engine_stats *s, sd_error *err)
{
    sd_synth_config sc = { SD_FAMILY_ZIPF, 1000, 1.5, 0.5, 1.0, 1, alpha, 0.0, regime, 20.0, easy, hard, 0.9,
                           0, 2, in->seed, in->threads };
    sd_model *m;
    sd_status st = sd_model_synth(&sc, &m, err);
    if (st != SD_OK)
        return st;
    sd_engine_config ec = { m, sd_verify_find("adjusted"), SD_POLICY_FIXED, gamma, in->tokens, in->seed,
                            in->threads, 0, 0, NULL, NULL, 1, 0.0, 0 };
    st = sd_engine_run(&ec, s, err);
    sd_model_free(m);
    return st;
}

static sd_status write_n_distribution(const sd_plot_input *in, const char *name, int variant, sd_plot_format fmt, FILE *dat,
                                      FILE *gp, sd_error *err)
{
    (void)variant;
    if (in->alpha.n != 1 || in->gamma.n != 1)
        return sd_fail(err, SD_EINVAL, "plot %s: give one --alpha and one --gamma", name);
    double alpha = in->alpha.v[0];
    size_t g = (size_t)in->gamma.v[0];
    if (g > SD_ORACLE_MAX)
        return sd_fail(err, SD_EINVAL, "--gamma: at most %u for a Monte Carlo figure", SD_ORACLE_MAX);
    sd_engine_stats s;
    sd_status st = run_model(in, SD_REGIME_CONSTANT, alpha, 0, 0, g, &s, err);
    if (st != SD_OK)
        return st;
    static const char *const cols[] = { "n", "pmf_theory", "observed", "ci_low", "ci_high" };
    sd_table *t = sd_table_alloc(5, cols);
    if (t == NULL)
        st = sd_fail(err, SD_ENOMEM, "out of memory");
    double it = (double)s.iterations;
    for (size_t n = 1; st == SD_OK && n <= g + 1; n++) {
        double f = (double)s.n_hist[n] / it, half = 1.96 * sqrt(f * (1 - f) / it);
        const sd_cell r[] = { sd_int((long long)n), sd_real(sd_theory_pmf(s.alpha_hat, (double)g, (double)n)),
                              sd_real(f), sd_real(f - half), sd_real(f + half) };
        st = sd_table_add(t, r, err);
    }
    if (st == SD_OK)
        st = write_block(dat, t, 1, err);
    sd_table_free(t);
    if (st == SD_OK) {
        char title[200];
        snprintf(title, sizeof title, "Distribution of N, tokens per iteration: α = %g, γ = %zu (%.0f iterations)",
                 alpha, g, it);
        preamble(gp, name, fmt, title, "N (tokens emitted by one iteration)", "probability");
        fprintf(gp, "set xrange [0.4:%zu.6]\nset yrange [0:*]\nset xtics 1\nset boxwidth 0.7\nset key left top\n"
                    "plot \"%s.dat\" index 0 using 1:2 with boxes fs solid 0.45 lc rgb \"#4575b4\" "
                    "title \"theory, eqs. (2)-(3) at α̂\", \\\n"
                    "  \"\" index 0 using 1:3:4:5 with yerrorbars pt 7 ps 1.6 lw 2 lc rgb \"#d73027\" "
                    "title \"Monte Carlo, 95%% interval\"\n",
                g + 1, name);
    }
    sd_engine_stats_free(&s);
    return st;
}

static sd_status write_monte_carlo(const sd_plot_input *in, const char *name, int variant, sd_plot_format fmt, FILE *dat,
                                   FILE *gp, sd_error *err)
{
    (void)variant;
    if (in->gamma.n != 1)
        return sd_fail(err, SD_EINVAL, "plot %s: give one --gamma", name);
    size_t g = (size_t)in->gamma.v[0];
    static const char *const cols[] = { "alpha", "iid_alpha_hat", "iid_mean", "iid_ci", "markov_alpha_hat",
                                        "markov_mean", "markov_ci", "markov_theory" };
    static const char *const curve_cols[] = { "alpha", "expected_tokens" };
    sd_table *t = sd_table_alloc(8, cols), *curve = sd_table_alloc(2, curve_cols);
    sd_status st = t && curve ? SD_OK : sd_fail(err, SD_ENOMEM, "out of memory");
    for (size_t i = 0; i < in->alpha.n && st == SD_OK; i++) {
        double a = in->alpha.v[i], d = 0.6 * fmin(a, 1.0 - a);
        sd_engine_stats si, sm;
        if ((st = run_model(in, SD_REGIME_CONSTANT, a, 0, 0, g, &si, err)) != SD_OK)
            break;
        if ((st = run_model(in, SD_REGIME_MARKOV, NAN, a + d, a - d, g, &sm, err)) != SD_OK) {
            sd_engine_stats_free(&si);
            break;
        }
        const sd_markov mk = { a + d, a - d, 0.9 };
        const sd_cell r[] = { sd_real(a), sd_real(si.alpha_hat), sd_real(sd_engine_mean_n(&si)),
                              sd_real(1.96 * sd_engine_mean_n_se(&si)), sd_real(sm.alpha_hat),
                              sd_real(sd_engine_mean_n(&sm)), sd_real(1.96 * sd_engine_mean_n_se(&sm)),
                              sd_real(sd_theory_markov_expected_tokens(&mk, (double)g)) };
        st = sd_table_add(t, r, err);
        sd_engine_stats_free(&si);
        sd_engine_stats_free(&sm);
    }
    for (int k = 0; k <= 200 && st == SD_OK; k++) {
        double a = 0.995 * k / 200.0;
        const sd_cell r[] = { sd_real(a), sd_real(sd_theory_expected_tokens(a, (double)g)) };
        st = sd_table_add(curve, r, err);
    }
    if (st == SD_OK && (st = write_block(dat, t, 1, err)) == SD_OK)
        st = write_block(dat, curve, 0, err);
    sd_table_free(t);
    sd_table_free(curve);
    if (st != SD_OK)
        return st;
    char title[200];
    snprintf(title, sizeof title, "Monte Carlo E(N) against eq. (4), γ = %zu: i.i.d. and Markov-correlated acceptance", g);
    preamble(gp, name, fmt, title, "measured acceptance α̂ (eq. 7)", "tokens per iteration");
    fprintf(gp, "set xrange [0:1]\nset yrange [1:*]\nset key left top\n"
                "plot \"%s.dat\" index 1 using 1:2 with lines lw 3 lc rgb \"#4575b4\" title \"eq. (4): (1 − α^(γ+1)) / (1 − α)\", \\\n"
                "  \"\" index 0 using 2:3:4 with yerrorbars pt 7 ps 1.6 lw 2 lc rgb \"#1a9850\" "
                "title \"engine, i.i.d. acceptance (95%% interval)\", \\\n"
                "  \"\" index 0 using 5:6:7 with yerrorbars pt 5 ps 1.6 lw 2 lc rgb \"#d73027\" "
                "title \"engine, Markov easy/hard acceptance, stay 0.9 (95%% interval)\", \\\n"
                "  \"\" index 0 using 5:8 with points pt 4 ps 2.6 lw 2 lc rgb \"black\" "
                "title \"Markov closed form (transfer matrix)\"\n",
            name);
    return SD_OK;
}

/* The policies of sd_engine_policies on an i.i.d. and a Markov model, as grouped bars. */
static sd_status write_policies(const sd_plot_input *in, const char *name, int variant, sd_plot_format fmt, FILE *dat, FILE *gp,
                                sd_error *err)
{
    (void)variant;
    if (in->cost.n != 1)
        return sd_fail(err, SD_EINVAL, "plot %s: give one --cost", name);
    double cost = in->cost.v[0];
    sd_table *res[2] = { NULL, NULL };
    sd_status st = SD_OK;
    for (int k = 0; k < 2 && st == SD_OK; k++) {
        sd_synth_config sc = sd_synth_defaults();
        sc.regime = k ? SD_REGIME_MARKOV : SD_REGIME_CONSTANT, sc.seed = in->seed, sc.threads = in->threads;
        sd_model *m;
        if ((st = sd_model_synth(&sc, &m, err)) != SD_OK)
            break;
        sd_engine_config base = sd_engine_defaults();
        base.model = m, base.verifier = sd_verify_find("adjusted"), base.gamma_max = 24, base.tokens = in->tokens;
        base.seed = in->seed, base.threads = in->threads;
        st = sd_engine_policies(&base, cost, NULL, 0, &res[k], err);
        sd_model_free(m);
    }
    static const char *const cols[] = { "policy", "iid_alpha_0.8", "markov_0.95_0.3" };
    static const char *const labels[] = { "fixed γ* (eq. 10)", "best fixed γ (measured)", "heuristic +2/−1",
                                          "threshold, q1", "threshold, median", "threshold, q3", "oracle",
                                          "ceiling 1/(1 − α)" };
    sd_table *t = st == SD_OK ? sd_table_alloc(3, cols) : NULL;
    if (st == SD_OK && t == NULL)
        st = sd_fail(err, SD_ENOMEM, "out of memory");
    size_t imp = res[0] ? sd_table_find(res[0], "improvement") : 0;
    double top = 1.0;
    for (size_t r = 0; st == SD_OK && r < sd_table_nrows(res[0]) && r < 8; r++) {
        top = fmax(top, fmax(sd_table_cell(res[0], r, imp)->v.r, sd_table_cell(res[1], r, imp)->v.r));
        const sd_cell row[] = { sd_text(labels[r]), *sd_table_cell(res[0], r, imp), *sd_table_cell(res[1], r, imp) };
        st = sd_table_add(t, row, err);
    }
    if (st == SD_OK)
        st = write_block(dat, t, 1, err);
    sd_table_free(t);
    sd_table_free(res[0]);
    sd_table_free(res[1]);
    if (st != SD_OK)
        return st;
    char title[200];
    snprintf(title, sizeof title, "Draft-length policies, engine-measured improvement at c = %g (zipf, V = 1000)", cost);
    preamble(gp, name, fmt, title, "", "improvement (× standard decoding)");
    fprintf(gp, "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
                "set datafile columnheaders\nset boxwidth 0.9\nset yrange [0:%g]\nset xtics rotate by -25 left nomirror\n"
                "set key left top\nset bmargin 7\nunset xlabel\n"
                "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2 lc rgb \"gray30\"\n"
                "plot \"%s.dat\" index 0 using 2:xtic(1) lc rgb \"#4575b4\" title \"i.i.d. acceptance, α = 0.8\", \\\n"
                "  \"\" index 0 using 3 lc rgb \"#d73027\" title \"Markov acceptance 0.95 / 0.3, stay 0.9 (mean 0.625)\"\n",
            1.45 * top, name);
    return SD_OK;
}

/* ---- the roofline figures ---------------------------------------------------------------- */

static const char *const ROOF_TARGET = "llama-3.1-70b-fp8", *const ROOF_DRAFT = "llama-3.2-1b";

/* The presets a roofline figure needs: the target, the draft and the hardware list. */
static sd_status roof_presets(const sd_plot_input *in, const char *name, sd_model_spec **models, size_t *nm,
                              sd_hardware **hw, size_t *nh, const sd_model_spec **t, const sd_model_spec **d,
                              sd_error *err)
{
    if (in->alpha.n != 1)
        return sd_fail(err, SD_EINVAL, "plot %s: give one --alpha", name);
    sd_presets p;
    sd_status st = sd_presets_load(in->data_dir, NULL, NULL, &p, err);
    if (st != SD_OK)
        return st;
    *models = p.models, *nm = p.nmodels, *hw = p.hardware, *nh = p.nhardware;
    *t = *d = NULL;
    for (size_t i = 0; i < *nm; i++) {
        if (strcmp((*models)[i].name, ROOF_TARGET) == 0)
            *t = &(*models)[i];
        if (strcmp((*models)[i].name, ROOF_DRAFT) == 0)
            *d = &(*models)[i];
    }
    if (*t == NULL || *d == NULL) {
        free(*models), free(*hw);
        return sd_fail(err, SD_EINVAL, "plot: the model presets lack %s or %s", ROOF_TARGET, ROOF_DRAFT);
    }
    return SD_OK;
}

static const double ROOF_CONTEXT = 1024;
static const double ROOF_GAMMAS[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static sd_status write_roofline_batch(const sd_plot_input *in, const char *name, int variant, sd_plot_format fmt, FILE *dat,
                                      FILE *gp, sd_error *err)
{
    (void)variant;
    sd_model_spec *models;
    sd_hardware *hw;
    size_t nm, nh;
    const sd_model_spec *t, *d;
    sd_status st = roof_presets(in, name, &models, &nm, &hw, &nh, &t, &d, err);
    if (st != SD_OK)
        return st;
    /* only the accelerators that hold the pair at batch 1 */
    sd_cost_params cp = sd_cost_defaults();
    size_t kept = 0;
    for (size_t k = 0; k < nh; k++)
        if (sd_cost_fits(t, d, &hw[k], &cp, 1, ROOF_CONTEXT, 16))
            hw[kept++] = hw[k];
    nh = kept;
    if (nh == 0) {
        free(models), free(hw);
        return sd_fail(err, SD_EINVAL, "plot %s: no accelerator holds %s and %s", name, ROOF_TARGET, ROOF_DRAFT);
    }
    const char **cols = calloc(2 * nh + 1, sizeof *cols);
    char (*names)[96] = calloc(2 * nh, sizeof *names);
    sd_table *tab = NULL;
    sd_cell *row = calloc(2 * nh + 1, sizeof *row);
    if (cols == NULL || names == NULL || row == NULL)
        st = sd_fail(err, SD_ENOMEM, "out of memory");
    for (size_t k = 0; st == SD_OK && k < nh; k++) {
        snprintf(names[2 * k], sizeof names[0], "%s", hw[k].name);
        snprintf(names[2 * k + 1], sizeof names[0], "%s gamma", hw[k].name);
        cols[1 + 2 * k] = names[2 * k];
        cols[2 + 2 * k] = names[2 * k + 1];
    }
    cols[0] = "batch";
    if (st == SD_OK && (tab = sd_table_alloc(2 * nh + 1, cols)) == NULL)
        st = sd_fail(err, SD_ENOMEM, "out of memory");
    for (double b = 1; st == SD_OK && b <= 1024; b *= 2) {
        row[0] = sd_int((long long)b);
        for (size_t k = 0; k < nh; k++) {
            sd_roofline_point r;
            const sd_roofline_request rq = { .target = t, .draft = d, .hardware = &hw[k], .params = cp,
                                             .alpha = in->alpha.v[0], .gammas = ROOF_GAMMAS, .ngammas = 16 };
            sd_cost_roofline(&rq, b, ROOF_CONTEXT, &r);
            /* where the weights and KV caches do not fit, gnuplot reads "NaN" as a gap */
            row[1 + 2 * k] = r.fits ? sd_real(r.improvement_opt) : sd_text("NaN");
            row[2 + 2 * k] = r.fits ? sd_real(r.gamma_opt) : sd_text("NaN");
        }
        st = sd_table_add(tab, row, err);
    }
    if (st == SD_OK)
        st = write_block(dat, tab, 1, err);
    if (st == SD_OK) {
        char title[256];
        snprintf(title, sizeof title, "%s + %s, α = %g, context %.0f (lines end where memory runs out)", ROOF_TARGET,
                 ROOF_DRAFT, in->alpha.v[0], ROOF_CONTEXT);
        preamble(gp, name, fmt, title, "batch size (sequences decoded together)", "best improvement (×)");
        fprintf(gp, "set logscale x 2\nset xrange [1:1024]\nset key right top\nset multiplot layout 2,1\n"
                    "set yrange [0.9:*]\nset offsets 0, 0, graph 0.25, 0\n"
                    "plot for [k=0:%zu] \"%s.dat\" index 0 using 1:(column(2 + 2*k)) with linespoints lw 3 pt 7 "
                    "title columnhead(2 + 2*k), 1 with lines dt 2 lc rgb \"gray30\" title \"no speed-up\"\n"
                    "unset title\nset ylabel \"optimal γ (0: off)\"\nset yrange [-0.5:*]\nunset key\n"
                    "plot for [k=0:%zu] \"%s.dat\" index 0 using 1:(column(3 + 2*k)) with steps lw 3\n"
                    "unset multiplot\n",
                nh - 1, name, nh - 1, name);
    }
    sd_table_free(tab);
    free(cols), free(names), free(row), free(models), free(hw);
    return st;
}

static sd_status write_roofline_map(const sd_plot_input *in, const char *name, int variant, sd_plot_format fmt, FILE *dat, FILE *gp,
                                    sd_error *err)
{
    (void)variant;
    sd_model_spec *models;
    sd_hardware *hw;
    size_t nm, nh;
    const sd_model_spec *t, *d;
    sd_status st = roof_presets(in, name, &models, &nm, &hw, &nh, &t, &d, err);
    if (st != SD_OK)
        return st;
    const sd_hardware *h = NULL;
    for (size_t k = 0; k < nh; k++)
        if (strcmp(hw[k].name, "h200") == 0)
            h = &hw[k];
    static const char *const cols[] = { "log2_batch", "log2_context", "improvement_opt", "gamma_opt", "fits" };
    sd_table *tab = h ? sd_table_alloc(5, cols) : NULL;
    if (h == NULL)
        st = sd_fail(err, SD_EINVAL, "plot %s: the hardware presets lack h200", name);
    else if (tab == NULL)
        st = sd_fail(err, SD_ENOMEM, "out of memory");
    sd_cost_params cp = sd_cost_defaults();
    for (int lc = 8; st == SD_OK && lc <= 17; lc++)
        for (int lb = 0; st == SD_OK && lb <= 10; lb++) {
            sd_roofline_point r;
            const sd_roofline_request rq = { .target = t, .draft = d, .hardware = h, .params = cp,
                                             .alpha = in->alpha.v[0], .gammas = ROOF_GAMMAS, .ngammas = 16 };
            sd_cost_roofline(&rq, ldexp(1, lb), ldexp(1, lc), &r);
            const sd_cell row[] = { sd_int(lb), sd_int(lc), sd_real(r.improvement_opt), sd_real(r.gamma_opt),
                                    sd_int(r.fits) };
            st = sd_table_add(tab, row, err);
        }
    if (st == SD_OK)
        st = write_block(dat, tab, 1, err);
    if (st == SD_OK) {
        char title[256];
        snprintf(title, sizeof title, "Best improvement (optimal γ printed) on one H200: %s + %s, α = %g", ROOF_TARGET,
                 ROOF_DRAFT, in->alpha.v[0]);
        preamble(gp, name, fmt, title, "batch size", "context length (tokens)");
        fprintf(gp, "set xrange [-0.5:10.5]\nset yrange [7.5:17.5]\nset xtics (\"1\" 0, \"4\" 2, \"16\" 4, \"64\" 6, "
                    "\"256\" 8, \"1024\" 10)\nset ytics (\"256\" 8, \"1K\" 10, \"4K\" 12, \"16K\" 14, \"64K\" 16)\n"
                    "set cbrange [1:4]\nset cblabel \"best improvement (× plain decoding)\"\nunset key\n"
                    "set palette defined (0 \"#440154\", 0.25 \"#3b528b\", 0.5 \"#21918c\", 0.75 \"#5ec962\", 1 \"#fde725\")\n"
                    "set object 1 rectangle from graph 0,0 to graph 1,1 behind fc rgb \"#bdbdbd\" fs solid noborder\n"
                    "set label 1 \"grey: does not fit in 141 GB\" at graph 0.97, graph 0.93 right front tc rgb \"black\"\n"
                    "plot \"%s.dat\" index 0 using 1:2:($5 > 0 ? $3 : NaN) with image, \\\n"
                    "  \"\" index 0 using 1:2:($5 > 0 ? sprintf(\"%%d\", $4) : \"\") with labels tc rgb \"white\" font \",13\"\n",
                name);
    }
    sd_table_free(tab);
    free(models), free(hw);
    return st;
}

/* ---- the table of figures ------------------------------------------------------------ */

const sd_plot_kind sd_plots[] = {
    { "improvement-vs-gamma", "f(γ) against γ for several c at one α, optima marked (the seed's figure)",
      "0.8", "0,0.01,0.02,0.05,0.1", "1:40", NULL, 0, CURVE_IMPROVEMENT, write_curves },
    { "improvement-vs-gamma-alpha", "f(γ) against γ for several α at one c, optima marked",
      "0.6,0.7,0.8,0.9", "0.02", "1:40", NULL, 0, CURVE_IMPROVEMENT, write_curves },
    { "expected-tokens", "E(N) against γ with the ceilings 1/(1 − α)", "0.5,0.6,0.7,0.8,0.9", NULL, "1:40", NULL,
      0, CURVE_TOKENS, write_curves },
    { "optimal-gamma-map", "heatmap of the optimal γ over α and c, the α ≤ c region shown",
      "0.005:0.995:0.005", "0:0.5:0.0025", NULL, NULL, 0, MAP_GAMMA, write_map },
    { "best-improvement-map", "heatmap of the best improvement over α and c",
      "0.005:0.995:0.005", "0:0.5:0.0025", NULL, NULL, 0, MAP_IMPROVEMENT, write_map },
    { "flop-factor", "the FLOP factor against γ for several α and μ", "0.6,0.8,0.9", NULL, "1:25", "0,0.05", 0,
      CURVE_FLOPS, write_curves },
    { "n-distribution", "the PMF of N: theory as bars, the engine as points with 95% intervals", "0.8", NULL, "5",
      NULL, 1, 0, write_n_distribution },
    { "monte-carlo", "engine E(N) against eq. (4) across α, i.i.d. and Markov acceptance", "0.3:0.95:0.05", NULL,
      "5", NULL, 1, 0, write_monte_carlo },
    { "adaptive-policies", "fixed, heuristic, threshold and oracle draft lengths, measured, i.i.d. and Markov",
      NULL, "0.02", NULL, NULL, 1, 0, write_policies },
    { "roofline-batch", "optimal gamma and best improvement against batch size on several accelerators",
      "0.8", NULL, NULL, NULL, 0, 0, write_roofline_batch },
    { "roofline-map", "best improvement and optimal gamma over batch x context on one H200", "0.8", NULL, NULL, NULL, 0,
      0, write_roofline_map },
    { NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL },
};

const sd_plot_kind *sd_plot_find(const char *name)
{
    for (const sd_plot_kind *k = sd_plots; k->name != NULL; k++)
        if (strcmp(k->name, name) == 0)
            return k;
    return NULL;
}

const char *sd_plot_names(void)
{
    static char buf[512];
    if (buf[0] == '\0')
        for (const sd_plot_kind *k = sd_plots; k->name != NULL; k++)
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", k == sd_plots ? "" : ", ", k->name);
    return buf;
}

static sd_status make_dir(const char *dir, sd_error *err)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) {
        struct stat sb;
        if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
            return SD_OK;
    }
    return sd_fail(err, SD_EINVAL, "--out: cannot use '%s' as a folder: %s", dir, strerror(errno ? errno : ENOTDIR));
}

sd_status sd_plot_write(const sd_plot_kind *k, const sd_plot_input *in, const char *dir, sd_plot_format fmt,
                        sd_error *err)
{
    sd_status st = make_dir(dir, err);
    if (st != SD_OK)
        return st;
    char dpath[4096], gpath[4096];
    snprintf(dpath, sizeof dpath, "%s/%s.dat", dir, k->name);
    snprintf(gpath, sizeof gpath, "%s/%s.gp", dir, k->name);
    FILE *dat = fopen(dpath, "w"), *gp = fopen(gpath, "w");
    if (dat == NULL || gp == NULL) {
        if (dat)
            fclose(dat);
        if (gp)
            fclose(gp);
        return sd_fail(err, SD_EIO, "%s: cannot write: %s", dat ? gpath : dpath, strerror(errno));
    }
    fprintf(dat, "# specdec %s: data of the figure %s (%s)\n", SPECDEC_VERSION, k->name, k->summary);
    st = k->write(in, k->name, k->variant, fmt, dat, gp, err);
    int bad = fclose(dat) != 0;
    bad |= fclose(gp) != 0;
    if (st == SD_OK && bad)
        st = sd_fail(err, SD_EIO, "%s: write error", dpath);
    return st;
}

sd_status sd_plot_render(const char *dir, const char *name, sd_error *err)
{
    char script[512];
    snprintf(script, sizeof script, "%s.gp", name);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return sd_fail(err, SD_EIO, "cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        setenv("LC_NUMERIC", "C", 1);
        execlp("gnuplot", "gnuplot", "-d", script, (char *)NULL);
        _exit(errno == ENOENT ? 127 : 126);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return sd_fail(err, SD_EIO, "gnuplot: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return sd_fail(err, SD_EIO, "gnuplot not found; %s/%s.dat and %s.gp are written; install gnuplot with: "
                       "apt-get install gnuplot-nox", dir, name, name);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return sd_fail(err, SD_EIO, "gnuplot failed on %s/%s.gp", dir, name);
    return SD_OK;
}

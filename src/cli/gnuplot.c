/* gnuplot.c -- figures drawn by gnuplot: the library's figure data
 * (figure.h) as NAME.dat, a script per figure as NAME.gp, then gnuplot.
 *
 * Each figure's script is a row of SCRIPTS, indexed by the library's figure
 * id.  The scripts read the blocks of NAME.dat by gnuplot's `index`; their
 * titles come from the figure's inputs (and the few numbers the library
 * reports beside the blocks).
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const IMAGE_FORMATS[] = { [CLI_PNG] = "png", [CLI_SVG] = "svg", NULL };

const char *const *cli_image_names(void) { return IMAGE_FORMATS; }

/* What a script writer draws from. */
typedef struct {
    const sd_figure_kind *k;
    const sd_figure_input *in;
    const sd_figure_data *d;
    cli_image fmt;
    FILE *gp;
} figure;

/* The script's preamble: terminal, output, fonts, title and axes. */
static void preamble(const figure *f, const char *title, const char *xlabel, const char *ylabel)
{
    const char *name = f->k->name;
    fprintf(f->gp, "# specdec %s: %s\n# Render in this folder: gnuplot -d %s.gp\n", sd_version(), title, name);
    if (f->fmt == CLI_PNG)
        fprintf(f->gp, "set terminal pngcairo size 1200,800 font \"DejaVu Sans,16\" noenhanced\nset output \"%s.png\"\n",
                name);
    else
        fprintf(f->gp, "set terminal svg size 1200,800 font \"DejaVu Sans,16\" noenhanced background rgb \"white\"\n"
                       "set output \"%s.svg\"\n", name);
    fprintf(f->gp, "set datafile separator \"\\t\"\nset title \"%s\"\nset xlabel \"%s\"\nset ylabel \"%s\"\n"
                   "set grid lc rgb \"#d0d0d0\"\nset border lw 1.5\nset key box opaque samplen 2\n",
            title, xlabel, ylabel);
}

/* A number cell as a double. */
static double cell_value(const sd_table *t, size_t row, size_t col)
{
    const sd_cell *c = sd_table_cell(t, row, col);
    return c->type == SD_CELL_INT ? (double)c->v.i : c->type == SD_CELL_REAL ? c->v.r : NAN;
}

/* ---- curves against gamma: improvement, E(N), FLOP factor ------------------- */

enum { CURVE_IMPROVEMENT, CURVE_TOKENS, CURVE_FLOPS };

/* ", α = 0.8, c = 0.02": the inputs the figure uses that have one value. */
static void fixed_inputs(const figure *f, char *buf, size_t size)
{
    const char *symbol[3] = { "α", "c", "μ" }, *used[3] = { f->k->alpha, f->k->cost, f->k->mu };
    const sd_list *list[3] = { &f->in->alpha, &f->in->cost, &f->in->mu };
    buf[0] = '\0';
    for (int i = 0; i < 3; i++)
        if (used[i] != NULL && list[i]->n == 1)
            snprintf(buf + strlen(buf), size - strlen(buf), ", %s = %g", symbol[i], list[i]->v[0]);
}

/* The curves' extras after the `plot for` line: optima, ceilings, the f = 1 line. */
static void curve_extras(const figure *f, int kind)
{
    const char *name = f->k->name;
    const sd_list *alpha = &f->in->alpha;
    if (kind == CURVE_IMPROVEMENT) {
        if (sd_table_nrows(f->d->block[1]) > 0)
            fprintf(f->gp, ", \\\n  \"%s.dat\" index 1 using 2:3:1 with points pt 7 ps 2.2 lc variable title \"optimum γ* of each curve\""
                           ", \\\n  \"%s.dat\" index 1 using 2:3:4 with labels offset 0,1.3 font \",14\" notitle",
                    name, name);
        fprintf(f->gp, ", \\\n  1 with lines dt 2 lw 2 lc rgb \"gray30\" title \"f = 1: no speed-up\"\n");
    } else if (kind == CURVE_TOKENS) {
        for (size_t s = 0; s < alpha->n; s++)
            if (alpha->v[s] < 1.0)
                fprintf(f->gp, ", \\\n  %.17g with lines dt 2 lw 2 lt %zu notitle", sd_theory_ceiling(alpha->v[s]),
                        s + 1);
        fprintf(f->gp, ", \\\n  NaN with lines dt 2 lw 2 lc rgb \"gray30\" title \"dashed: the ceiling 1/(1 − α), γ → ∞\"\n");
    } else {
        fprintf(f->gp, ", \\\n  1 with lines dt 2 lw 2 lc rgb \"gray30\" title \"standard decoding\"\n");
    }
}

static void script_curves(const figure *f, int kind)
{
    static const char *const titles[] = { "Wall-time improvement f(γ) = E(N) / (1 + γc), eq. (10)",
                                          "Expected tokens per iteration E(N), eq. (4), and the ceiling 1/(1 − α)",
                                          "FLOP factor (γμ + γ + 1) / E(N), eq. (11)" };
    static const char *const ylabels[] = { "improvement f (× standard decoding)", "E(N) (tokens per target call)",
                                           "arithmetic per token (× standard decoding)" };
    const sd_list *gamma = &f->in->gamma, *alpha = &f->in->alpha;
    char fixed[160], title[256];
    fixed_inputs(f, fixed, sizeof fixed);
    snprintf(title, sizeof title, "%s%s", titles[kind], fixed);
    preamble(f, title, "draft length γ", ylabels[kind]);
    /* room above the curves for the key */
    fprintf(f->gp, "set xrange [%g:%g]\nset key %s\nset style data lines\nset offsets 0, 0, graph 0.45, 0\n",
            gamma->v[0], gamma->v[gamma->n - 1], kind == CURVE_IMPROVEMENT ? "right top" : "left top");
    if (kind == CURVE_IMPROVEMENT)
        fprintf(f->gp, "set yrange [0:*]\n");
    if (kind == CURVE_TOKENS) /* each ceiling's value at the right end of its dashed line */
        for (size_t s = 0; s < alpha->n; s++)
            if (alpha->v[s] < 1.0)
                fprintf(f->gp, "set label %zu \"%.4g\" at graph 1, first %.17g offset -0.5,0.6 right front\n", s + 1,
                        sd_theory_ceiling(alpha->v[s]), sd_theory_ceiling(alpha->v[s]));
    fprintf(f->gp, "set key reverse Left\n");
    fprintf(f->gp, "plot for [i=2:%zu] \"%s.dat\" index 0 using 1:i lw 3 lt (i-1) title columnhead(i)",
            sd_table_ncols(f->d->block[0]), f->k->name);
    curve_extras(f, kind);
}

/* ---- heatmaps over (alpha, c) -------------------------------------------------- */

enum { MAP_GAMMA, MAP_IMPROVEMENT };

static void script_map(const figure *f, int kind)
{
    const sd_list *alpha = &f->in->alpha, *cost = &f->in->cost;
    FILE *gp = f->gp;
    double amax = alpha->v[alpha->n - 1], cmax = cost->v[cost->n - 1];
    double da = alpha->n > 1 ? (amax - alpha->v[0]) / (double)(alpha->n - 1) : 0.01;
    double dc = cost->n > 1 ? (cmax - cost->v[0]) / (double)(cost->n - 1) : 0.01;
    if (kind == MAP_GAMMA) {
        preamble(f, "Optimal draft length γ* (eq. 10, Lambert W) by acceptance α and cost c", "acceptance rate α",
                 "draft/target cost ratio c");
        fprintf(gp, "set logscale cb 2\nset cbrange [1:%g]\nset cbtics (\"1\" 1, \"2\" 2, \"4\" 4, \"8\" 8, \"16\" 16, "
                    "\"32\" 32, \"64\" 64, \"128\" 128, \"256+, ∞\" 256)\n"
                    "set cblabel \"γ* (drafts per iteration; c = 0: unbounded)\"\n"
                    "set palette maxcolors 8 defined (0 \"#313695\", 1 \"#4575b4\", 2 \"#74add1\", 3 \"#abd9e9\", "
                    "4 \"#fee090\", 5 \"#fdae61\", 6 \"#f46d43\", 7 \"#d73027\", 8 \"#a50026\")\n",
                SD_FIGURE_GAMMA_CAP);
    } else {
        preamble(f, "Best wall-time improvement f(γ*) (eq. 10) by acceptance α and cost c", "acceptance rate α",
                 "draft/target cost ratio c");
        /* eight bands, a factor sqrt(2) each */
        fprintf(gp, "set logscale cb 2\nset cbrange [1:%g]\nset cbtics (\"1\" 1, \"1.41\" 1.4142, \"2\" 2, "
                    "\"2.83\" 2.8284, \"4\" 4, \"5.66\" 5.6569, \"8\" 8, \"11.3\" 11.314, \"16+\" 16)\n"
                    "set cblabel \"best improvement (× standard decoding)\"\n"
                    "set palette maxcolors 8 defined (0 \"#440154\", 0.25 \"#3b528b\", 0.5 \"#21918c\", "
                    "0.75 \"#5ec962\", 1 \"#fde725\")\n",
                SD_FIGURE_IMPROVEMENT_CAP);
    }
    fprintf(gp, "set xrange [%g:%g]\nset yrange [%g:%g]\nset rmargin at screen 0.80\nunset key\n"
                "set style textbox opaque noborder\n"
                "set object 1 rectangle from graph 0,0 to graph 1,1 behind fc rgb \"#bdbdbd\" fs solid noborder\n"
                "set label 1 \"do not speculate: α ≤ c\" at %g,%g left front\n"
                "set label 2 \"α = c\" at %g,%g rotate by %g front\n"
                "set label 3 \" seed's example: α = 0.8, c = 0.02 \" at 0.8,0.02 point pt 7 ps 2 lc rgb \"black\" "
                "offset -1,1.3 right front boxed\n",
            alpha->v[0] - da / 2, amax + da / 2, cost->v[0] - dc / 2, cmax + dc / 2, 0.02, 0.85 * cmax,
            0.6 * cmax - 0.045, 0.6 * cmax, /* the line's angle on a 840 x 640 pixel plot area */
            atan2(640.0 / (cmax - cost->v[0]), 840.0 / (amax - alpha->v[0])) * 45.0 / atan(1.0));
    fprintf(gp, "plot \"%s.dat\" index 0 using 1:2:($3 >= 1 ? $3 : NaN) with image notitle, \\\n"
                "  x with lines lw 3 lc rgb \"black\" notitle\n",
            f->k->name);
}

/* ---- Monte Carlo figures ------------------------------------------------------------- */

static void script_n_distribution(const figure *f, int variant)
{
    (void)variant;
    size_t g = (size_t)f->in->gamma.v[0];
    char title[200];
    snprintf(title, sizeof title, "Distribution of N, tokens per iteration: α = %g, γ = %zu (%.0f iterations)",
             f->in->alpha.v[0], g, f->d->iterations);
    preamble(f, title, "N (tokens emitted by one iteration)", "probability");
    fprintf(f->gp, "set xrange [0.4:%zu.6]\nset yrange [0:*]\nset xtics 1\nset boxwidth 0.7\nset key left top\n"
                   "plot \"%s.dat\" index 0 using 1:2 with boxes fs solid 0.45 lc rgb \"#4575b4\" "
                   "title \"theory, eqs. (2)-(3) at α̂\", \\\n"
                   "  \"\" index 0 using 1:3:4:5 with yerrorbars pt 7 ps 1.6 lw 2 lc rgb \"#d73027\" "
                   "title \"Monte Carlo, 95%% interval\"\n",
            g + 1, f->k->name);
}

static void script_monte_carlo(const figure *f, int variant)
{
    (void)variant;
    char title[200];
    snprintf(title, sizeof title, "Monte Carlo E(N) against eq. (4), γ = %zu: i.i.d. and Markov-correlated acceptance",
             (size_t)f->in->gamma.v[0]);
    preamble(f, title, "measured acceptance α̂ (eq. 7)", "tokens per iteration");
    fprintf(f->gp, "set xrange [0:1]\nset yrange [1:*]\nset key left top\n"
                   "plot \"%s.dat\" index 1 using 1:2 with lines lw 3 lc rgb \"#4575b4\" title \"eq. (4): (1 − α^(γ+1)) / (1 − α)\", \\\n"
                   "  \"\" index 0 using 2:3:4 with yerrorbars pt 7 ps 1.6 lw 2 lc rgb \"#1a9850\" "
                   "title \"engine, i.i.d. acceptance (95%% interval)\", \\\n"
                   "  \"\" index 0 using 5:6:7 with yerrorbars pt 5 ps 1.6 lw 2 lc rgb \"#d73027\" "
                   "title \"engine, Markov easy/hard acceptance, stay 0.9 (95%% interval)\", \\\n"
                   "  \"\" index 0 using 5:8 with points pt 4 ps 2.6 lw 2 lc rgb \"black\" "
                   "title \"Markov closed form (transfer matrix)\"\n",
            f->k->name);
}

/* Grouped bars, one group per policy; the y range leaves room for the key. */
static void script_policies(const figure *f, int variant)
{
    (void)variant;
    const sd_table *t = f->d->block[0];
    double top = 1.0;
    for (size_t r = 0; r < sd_table_nrows(t); r++)
        top = fmax(top, fmax(cell_value(t, r, 1), cell_value(t, r, 2)));
    char title[200];
    snprintf(title, sizeof title, "Draft-length policies, engine-measured improvement at c = %g (zipf, V = 1000)",
             f->in->cost.v[0]);
    preamble(f, title, "", "improvement (× standard decoding)");
    fprintf(f->gp, "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
                   "set datafile columnheaders\nset boxwidth 0.9\nset yrange [0:%g]\nset xtics rotate by -25 left nomirror\n"
                   "set key left top\nset bmargin 7\nunset xlabel\n"
                   "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2 lc rgb \"gray30\"\n"
                   "plot \"%s.dat\" index 0 using 2:xtic(1) lc rgb \"#4575b4\" title \"i.i.d. acceptance, α = 0.8\", \\\n"
                   "  \"\" index 0 using 3 lc rgb \"#d73027\" title \"Markov acceptance 0.95 / 0.3, stay 0.9 (mean 0.625)\"\n",
            1.45 * top, f->k->name);
}

/* ---- the roofline figures ---------------------------------------------------------------- */

static void script_roofline_batch(const figure *f, int variant)
{
    (void)variant;
    size_t nh = (sd_table_ncols(f->d->block[0]) - 1) / 2; /* batch, then two columns per accelerator */
    char title[256];
    snprintf(title, sizeof title, "%s + %s, α = %g, context %.0f (lines end where memory runs out)", f->d->target,
             f->d->draft, f->in->alpha.v[0], f->d->context);
    preamble(f, title, "batch size (sequences decoded together)", "best improvement (×)");
    fprintf(f->gp, "set logscale x 2\nset xrange [1:1024]\nset key right top\nset multiplot layout 2,1\n"
                   "set yrange [0.9:*]\nset offsets 0, 0, graph 0.25, 0\n"
                   "plot for [k=0:%zu] \"%s.dat\" index 0 using 1:(column(2 + 2*k)) with linespoints lw 3 pt 7 "
                   "title columnhead(2 + 2*k), 1 with lines dt 2 lc rgb \"gray30\" title \"no speed-up\"\n"
                   "unset title\nset ylabel \"optimal γ (0: off)\"\nset yrange [-0.5:*]\nunset key\n"
                   "plot for [k=0:%zu] \"%s.dat\" index 0 using 1:(column(3 + 2*k)) with steps lw 3\n"
                   "unset multiplot\n",
            nh - 1, f->k->name, nh - 1, f->k->name);
}

static void script_roofline_map(const figure *f, int variant)
{
    (void)variant;
    char title[256];
    snprintf(title, sizeof title, "Best improvement (optimal γ printed) on one H200: %s + %s, α = %g", f->d->target,
             f->d->draft, f->in->alpha.v[0]);
    preamble(f, title, "batch size", "context length (tokens)");
    fprintf(f->gp, "set xrange [-0.5:10.5]\nset yrange [7.5:17.5]\nset xtics (\"1\" 0, \"4\" 2, \"16\" 4, \"64\" 6, "
                   "\"256\" 8, \"1024\" 10)\nset ytics (\"256\" 8, \"1K\" 10, \"4K\" 12, \"16K\" 14, \"64K\" 16)\n"
                   "set cbrange [1:4]\nset cblabel \"best improvement (× plain decoding)\"\nunset key\n"
                   "set palette defined (0 \"#440154\", 0.25 \"#3b528b\", 0.5 \"#21918c\", 0.75 \"#5ec962\", 1 \"#fde725\")\n"
                   "set object 1 rectangle from graph 0,0 to graph 1,1 behind fc rgb \"#bdbdbd\" fs solid noborder\n"
                   "set label 1 \"grey: does not fit in 141 GB\" at graph 0.97, graph 0.93 right front tc rgb \"black\"\n"
                   "plot \"%s.dat\" index 0 using 1:2:($5 > 0 ? $3 : NaN) with image, \\\n"
                   "  \"\" index 0 using 1:2:($5 > 0 ? sprintf(\"%%d\", $4) : \"\") with labels tc rgb \"white\" font \",13\"\n",
            f->k->name);
}

static void script_verify_cost(const figure *f, int variant)
{
    (void)variant;
    char title[256];
    snprintf(title, sizeof title, "Verifying γ + 1 = %g tokens, in decode steps: %s on one %s", f->in->gamma.v[0] + 1,
             f->d->target, f->d->draft);
    preamble(f, title, "batch size (sequences decoded together)", "t(B, γ + 1, S) / t(B, 1, S)");
    fprintf(f->gp, "set logscale x 2\nset xrange [1:1024]\nset yrange [0.9:*]\nset key left top\n"
                   "array C[3] = [\"#4575b4\", \"#1a9850\", \"#d73027\"]\n"
                   "plot for [k=0:2] \"%s.dat\" index 0 using 1:(column(2 + 2*k)) with linespoints lw 3 pt 7 "
                   "lc rgb C[k+1] title columnhead(2 + 2*k), \\\n"
                   "  for [k=0:2] \"\" index 0 using 1:(column(3 + 2*k)) with lines lw 2 dt 2 lc rgb C[k+1] "
                   "title columnhead(3 + 2*k), \\\n"
                   "  1 with lines dt 3 lc rgb \"gray30\" title \"eq. (10): free\"\n",
            f->k->name);
}

/* ---- an engine's counters: acceptance per position, improvement against gamma ---------------- */

static void script_fit(const figure *f, int variant)
{
    (void)variant;
    char title[512];
    const char *base = strrchr(f->in->input, '/');
    snprintf(title, sizeof title, "%s: i.i.d. test p = %.3g; beyond gamma = %.0f the %s model",
             base ? base + 1 : f->in->input, f->d->fit_pvalue, f->d->fit_gamma, f->d->fit_model);
    preamble(f, title, "draft position k", "acceptance of position k given 1..k-1 accepted");
    double g = f->d->fit_gamma;
    fprintf(f->gp, "unset title\nset multiplot layout 1,2 title \"%s\"\nset key bottom left\nset xtics 1\n"
                   "set yrange [0:1.05]\n"
                   "set xrange [0.5:%.1f]\n"
                   "plot \"%s.dat\" index 0 using 1:4:5:6 with yerrorbars pt 7 ps 1.5 lw 2 lc rgb \"black\" "
                   "title \"measured (95%% interval)\", \\\n"
                   "  \"\" index 0 using 1:7 with lines lw 3 dt 2 lc rgb \"#4575b4\" title \"i.i.d. fit\", \\\n"
                   "  \"\" index 0 using 1:8 with linespoints lw 3 pt 5 lc rgb \"#d73027\" title \"non-i.i.d. fit\"\n"
                   "unset title\nset xlabel \"gamma (past the dotted line: extrapolated)\"\n"
                   "set ylabel \"improvement at c = %g\"\n"
                   "set xrange [0.5:%.1f]\nset yrange [*:*]\nset key bottom right\n"
                   "set arrow from %.1f, graph 0 to %.1f, graph 1 nohead dt 3 lc rgb \"gray40\"\n"
                   "plot \"%s.dat\" index 1 using 1:6:7 with filledcurves fc rgb \"#fdae61\" fs transparent solid 0.5 "
                   "title \"95%% band\", \\\n"
                   "  \"\" index 1 using 1:5 with linespoints lw 3 pt 7 lc rgb \"#d73027\" "
                   "title \"predicted\"\nunset multiplot\n",
            title, g + 0.5, f->k->name, f->in->cost.v[0], 2 * g + 0.5, g + 0.5, g + 0.5, f->k->name);
}

/* ---- alpha against temperature --------------------------------------------------------------- */

static void script_alpha_temperature(const figure *f, int variant)
{
    (void)variant;
    char title[512];
    const char *base = f->in->p_npy ? strrchr(f->in->p_npy, '/') : NULL;
    snprintf(title, sizeof title, "Acceptance against temperature: %s",
             f->in->p_npy ? (base ? base + 1 : f->in->p_npy) : "GPL-3 byte n-gram pair, orders 5 and 2");
    preamble(f, title, "temperature (both models; 0 is greedy)", "α = mean acceptance over the rows");
    fprintf(f->gp, "set xrange [0:2]\nset yrange [0:1]\nset key right top\n"
                   "plot \"%s.dat\" index 0 using 1:3:4 with filledcurves fc rgb \"#4575b4\" fs transparent solid 0.25 "
                   "notitle, \\\n"
                   "  \"\" index 0 using 1:2 with linespoints lw 3 pt 7 lc rgb \"#4575b4\" "
                   "title \"adjusted: sum min(p, q)\", \\\n"
                   "  \"\" index 0 using 1:6:7 with filledcurves fc rgb \"#d73027\" fs transparent solid 0.25 "
                   "notitle, \\\n"
                   "  \"\" index 0 using 1:5 with linespoints lw 3 pt 5 lc rgb \"#d73027\" "
                   "title \"deterministic-draft: p(argmax q)\"\n",
            f->k->name);
}

/* ---- token trees ------------------------------------------------------------------------- */

static void script_tree_budget(const figure *f, int variant)
{
    (void)variant;
    preamble(f, "Expected tokens (T1) against the node budget, Sequoia's acceptance (p0 = 0.634, p1 = 0.108, ...)",
             "draft nodes (the root not counted)", "expected tokens per target pass");
    fprintf(f->gp, "set logscale x 2\nset xrange [1:64]\nset key left top\nset yrange [1:*]\n"
                   "plot \"%s.dat\" index 0 using 1:3 with lines lw 3 lc rgb \"#d73027\" title \"optimal tree\", \\\n"
                   "  \"\" index 0 using 1:2 with lines lw 3 lc rgb \"#4575b4\" title \"chain\", \\\n"
                   "  \"\" index 1 using 1:2 with points pt 7 ps 2 lc rgb \"black\" "
                   "title \"k-ary trees and SGLang's defaults\", \\\n"
                   "  \"\" index 1 using 1:2:3 with labels offset 0,-1.2 font \",12\" notitle\n",
            f->k->name);
}

static void script_tree_speedup(const figure *f, int variant)
{
    (void)variant;
    char title[256];
    snprintf(title, sizeof title, "Best tree's speed-up (over depth limits): %s + %s, one H100, context %.0f",
             f->d->target, f->d->draft, f->d->context);
    preamble(f, title, "draft nodes (the root not counted)", "speed-up over plain decoding (×)");
    fprintf(f->gp, "set logscale x 2\nset xrange [1:64]\nset key left bottom\nset yrange [0.8:*]\n"
                   "plot for [i=2:4] \"%s.dat\" index 0 using 1:i with linespoints lw 3 pt 7 title columnhead(i), \\\n"
                   "  1 with lines dt 2 lw 2 lc rgb \"gray30\" title \"no speed-up\"\n",
            f->k->name);
}

/* "accepted by rank: p_0 = 0.634, p_1 = 0.108, ..." from the edges (block 1: rank as label, p), each rank once, into buf. */
static const char *rank_legend(const sd_table *edges, char *buf, size_t size)
{
    int seen[SD_TREE_MAX_RANK] = { 0 };
    snprintf(buf, size, "accepted by rank:");
    for (size_t r = 0; r < sd_table_nrows(edges); r++) {
        unsigned k = (unsigned)strtoul(sd_table_cell(edges, r, 4)->v.s, NULL, 10);
        if (k < SD_TREE_MAX_RANK && !seen[k]++)
            snprintf(buf + strlen(buf), size - strlen(buf), "%s p_%u = %.3f", r ? "," : "", k,
                     sd_table_cell(edges, r, 5)->v.r);
    }
    return buf;
}

static void script_tree_drawn(const figure *f, int variant)
{
    (void)variant;
    char title[256], legend[384];
    snprintf(title, sizeof title, "Optimal tree of 15 nodes, Sequoia's acceptance: %.4f tokens a pass (T1)",
             f->d->alpha_hat);
    preamble(f, title, "depth (node labels: the chance of reaching the node; edge labels: its rank k)",
             "each level's nodes, rank paths from the top");
    fprintf(f->gp, "set label 1 \"%s\" at graph 0.97, graph 0.94 right font \",12\" tc rgb \"#4575b4\"\n",
            rank_legend(f->d->block[1], legend, sizeof legend));
    fprintf(f->gp, "unset ytics\nunset grid\nset xtics 1\nset offsets 0.3, 0.3, 0.5, 0.5\nunset key\n"
                   "plot \"%s.dat\" index 1 using 1:2:($3-$1):($4-$2) with vectors nohead lw 2 lc rgb \"gray50\", \\\n"
                   "  \"\" index 1 using (($1+$3)/2):(($2+$4)/2):5 with labels font \",11\" tc rgb \"#4575b4\" "
                   "offset 0,0.7, \\\n"
                   "  \"\" index 0 using 1:2:(2 + 4 * $3) with points pt 7 ps variable lc rgb \"#d73027\", \\\n"
                   "  \"\" index 0 using 1:2:4 with labels font \",11\" offset 0,-1.1\n",
            f->k->name);
}

/* ---- serving ------------------------------------------------------------------------------ */

static void script_serving(const figure *f, int variant)
{
    (void)variant;
    char title[256];
    snprintf(title, sizeof title, "Serving %s + %s on 4 H100s, alpha 0.8, 512 + 256 tokens (simulated)", f->d->target,
             f->d->draft);
    preamble(f, title, "request rate (requests/s)", "mean TPOT (ms)");
    fprintf(f->gp, "set multiplot layout 2,1\nset key left top font \",10\"\nset yrange [0:90]\n"
                   "set arrow 1 from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb \"gray40\"\n"
                   "plot for [i=2:6] \"%s.dat\" index 0 using 1:(1000 * column(i)) with linespoints lw 2 pt 7 "
                   "title columnhead(i), \\\n"
                   "  30 with lines dt 3 lc rgb \"black\" title \"TPOT objective, 30 ms\"\n"
                   "set title \"goodput: requests/s meeting TTFT <= 1 s and TPOT <= 30 ms\"\n"
                   "set ylabel \"goodput (requests/s)\"\nset yrange [0:*]\nset key right top font \",10\"\n"
                   "plot for [i=7:11] \"%s.dat\" index 0 using 1:i with linespoints lw 2 pt 7 title columnhead(i)\n"
                   "unset multiplot\n",
            f->d->context, f->d->context, f->k->name, f->k->name);
}

/* ---- the table of scripts, by figure ------------------------------------------------------ */

static const struct {
    void (*write)(const figure *f, int variant);
    int variant; /* passed to write: one writer draws several figures */
} SCRIPTS[SD_FIGURE_COUNT] = {
    [SD_FIGURE_IMPROVEMENT_VS_GAMMA] = { .write = script_curves, .variant = CURVE_IMPROVEMENT },
    [SD_FIGURE_IMPROVEMENT_VS_GAMMA_ALPHA] = { .write = script_curves, .variant = CURVE_IMPROVEMENT },
    [SD_FIGURE_EXPECTED_TOKENS] = { .write = script_curves, .variant = CURVE_TOKENS },
    [SD_FIGURE_OPTIMAL_GAMMA_MAP] = { .write = script_map, .variant = MAP_GAMMA },
    [SD_FIGURE_BEST_IMPROVEMENT_MAP] = { .write = script_map, .variant = MAP_IMPROVEMENT },
    [SD_FIGURE_FLOP_FACTOR] = { .write = script_curves, .variant = CURVE_FLOPS },
    [SD_FIGURE_N_DISTRIBUTION] = { .write = script_n_distribution },
    [SD_FIGURE_MONTE_CARLO] = { .write = script_monte_carlo },
    [SD_FIGURE_ADAPTIVE_POLICIES] = { .write = script_policies },
    [SD_FIGURE_ROOFLINE_BATCH] = { .write = script_roofline_batch },
    [SD_FIGURE_ROOFLINE_MAP] = { .write = script_roofline_map },
    [SD_FIGURE_VERIFY_COST] = { .write = script_verify_cost },
    [SD_FIGURE_FIT] = { .write = script_fit },
    [SD_FIGURE_ALPHA_TEMPERATURE] = { .write = script_alpha_temperature },
    [SD_FIGURE_TREE_BUDGET] = { .write = script_tree_budget },
    [SD_FIGURE_TREE_SPEEDUP] = { .write = script_tree_speedup },
    [SD_FIGURE_TREE_DRAWN] = { .write = script_tree_drawn },
    [SD_FIGURE_SERVING] = { .write = script_serving },
};

/* ---- files and gnuplot --------------------------------------------------------------------- */

static sd_status make_dir(const char *dir, sd_error *err)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) {
        struct stat sb;
        if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
            return SD_OK;
    }
    return sd_status_fail(err, SD_EINVAL, "--out: cannot use '%s' as a folder: %s", dir, strerror(errno ? errno : ENOTDIR));
}

/* NAME.dat: a comment line, then the blocks as TSV, two blank lines apart (gnuplot's index). */
static sd_status write_data(const sd_figure_kind *k, const sd_figure_data *d, FILE *dat, sd_error *err)
{
    fprintf(dat, "# specdec %s: data of the figure %s (%s)\n", sd_version(), k->name, k->summary);
    sd_status st = SD_OK;
    for (size_t i = 0; i < d->nblocks && st == SD_OK; i++) {
        if (i > 0)
            fputs("\n\n", dat);
        st = sd_format_write(d->block[i], SD_FORMAT_TSV, dat, err);
    }
    return st;
}

static sd_status write_files(const figure *f, const char *dir, sd_error *err)
{
    char dpath[4096], gpath[4096];
    snprintf(dpath, sizeof dpath, "%s/%s.dat", dir, f->k->name);
    snprintf(gpath, sizeof gpath, "%s/%s.gp", dir, f->k->name);
    FILE *dat = fopen(dpath, "w"), *gp = fopen(gpath, "w");
    if (dat == NULL || gp == NULL) {
        if (dat)
            fclose(dat);
        if (gp)
            fclose(gp);
        return sd_status_fail(err, SD_EIO, "%s: cannot write: %s", dat ? gpath : dpath, strerror(errno));
    }
    sd_status st = write_data(f->k, f->d, dat, err);
    figure with_gp = *f;
    with_gp.gp = gp;
    if (st == SD_OK)
        SCRIPTS[f->k->id].write(&with_gp, SCRIPTS[f->k->id].variant);
    int bad = fclose(dat) != 0;
    bad |= fclose(gp) != 0;
    if (st == SD_OK && bad)
        st = sd_status_fail(err, SD_EIO, "%s: write error", dpath);
    return st;
}

sd_status cli_gnuplot_write(const sd_figure_kind *k, const sd_figure_input *in, const char *dir, cli_image fmt,
                            sd_error *err)
{
    if (k == NULL || (unsigned)k->id >= SD_FIGURE_COUNT || SCRIPTS[k->id].write == NULL)
        return sd_status_fail(err, SD_EFAIL, "plot: no gnuplot script for the figure %s", k ? k->name : "(null)");
    sd_figure_data d;
    sd_status st = sd_figure_compute(k, in, &d, err);
    if (st == SD_OK && (st = make_dir(dir, err)) == SD_OK) {
        const figure f = { .k = k, .in = in, .d = &d, .fmt = fmt, .gp = NULL };
        st = write_files(&f, dir, err);
    }
    sd_figure_data_free(&d);
    return st;
}

sd_status cli_gnuplot_run(const char *dir, const char *name, sd_error *err)
{
    char script[512];
    snprintf(script, sizeof script, "%s.gp", name);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return sd_status_fail(err, SD_EIO, "cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        setenv("LC_NUMERIC", "C", 1);
        execlp("gnuplot", "gnuplot", "-d", script, (char *)NULL);
        _exit(errno == ENOENT ? 127 : 126);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return sd_status_fail(err, SD_EIO, "gnuplot: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return sd_status_fail(err, SD_EIO, "gnuplot not found; %s/%s.dat and %s.gp are written; install gnuplot with: "
                              "apt-get install gnuplot-nox", dir, name, name);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return sd_status_fail(err, SD_EIO, "gnuplot failed on %s/%s.gp", dir, name);
    return SD_OK;
}

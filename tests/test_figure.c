/* test_plot.c -- figure data and scripts; rendering when gnuplot is there;
 * the shipped data files against the theory at their published rounding. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "specdec/parse.h"
#include "specdec/figure.h"
#include "testutil.h"
#include "specdec/theory.h"

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/specdec-plot-%ld", (long)getpid());
}

static void clean_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "/bin/rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* The figure's default inputs, parsed as the CLI does. */
static sd_plot_input defaults(const sd_plot_kind *k)
{
    sd_plot_input in = { .tokens = 20000, .seed = 7, .threads = 2 };
    static const sd_domain any = { "--x", 0, INFINITY, 0 };
    if (k->alpha)
        ck_assert_int_eq(sd_parse_list(k->alpha, &any, &in.alpha, NULL), SD_OK);
    if (k->cost)
        ck_assert_int_eq(sd_parse_list(k->cost, &any, &in.cost, NULL), SD_OK);
    if (k->gamma)
        ck_assert_int_eq(sd_parse_list(k->gamma, &any, &in.gamma, NULL), SD_OK);
    if (k->mu)
        ck_assert_int_eq(sd_parse_list(k->mu, &any, &in.mu, NULL), SD_OK);
    return in;
}

static void free_input(sd_plot_input *in)
{
    sd_list_free(&in->alpha), sd_list_free(&in->cost), sd_list_free(&in->gamma), sd_list_free(&in->mu);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s missing", path);
    static char buf[1 << 22];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Data block `index` of a .dat file as a TSV table (blocks split at blank lines). */
static void read_block(const char *name, int index, sd_tsv *t)
{
    char path[256], part[256];
    snprintf(path, sizeof path, "%s/%s.dat", dir, name);
    snprintf(part, sizeof part, "%s/block.tsv", dir);
    char *text = slurp(path);
    for (int i = 0; i < index; i++) {
        text = strstr(text, "\n\n\n");
        ck_assert_ptr_nonnull(text);
        text += 3;
    }
    char *end = strstr(text, "\n\n\n");
    if (end)
        end[1] = '\0';
    FILE *f = fopen(part, "w");
    fputs(text, f);
    fclose(f);
    ck_assert_int_eq(sd_tsv_load(part, 1, 1000000, t, NULL), SD_OK);
}

START_TEST(every_script_has_title_axes_key_and_size)
{
    make_dir();
    for (const sd_plot_kind *k = sd_plots; k->name != NULL; k++) {
        sd_plot_input in = defaults(k);
        sd_error err;
        ck_assert_msg(sd_plot_write(k, &in, dir, SD_PLOT_PNG, &err) == SD_OK, "%s: %s", k->name, err.msg);
        char path[256], want[128];
        snprintf(path, sizeof path, "%s/%s.gp", dir, k->name);
        const char *gp = slurp(path);
        snprintf(want, sizeof want, "set output \"%s.png\"", k->name);
        ck_assert_msg(strstr(gp, want) != NULL, "%s: no output line", k->name);
        ck_assert_ptr_nonnull(strstr(gp, "size 1200,800"));
        ck_assert_ptr_nonnull(strstr(gp, "font \"DejaVu Sans,16\""));
        ck_assert_ptr_nonnull(strstr(gp, "set title \""));
        ck_assert_ptr_nonnull(strstr(gp, "set xlabel \""));
        ck_assert_ptr_nonnull(strstr(gp, "set ylabel \""));
        ck_assert_msg(strstr(gp, "title \"") != NULL || strstr(gp, "set cblabel") != NULL, "%s: no legend", k->name);
        snprintf(want, sizeof want, "\"%s.dat\"", k->name);
        ck_assert_msg(strstr(gp, want) != NULL, "%s: script does not read its data", k->name);
        free_input(&in);
        sd_plot_input svg = defaults(k);
        ck_assert_int_eq(sd_plot_write(k, &svg, dir, SD_PLOT_SVG, &err), SD_OK);
        snprintf(want, sizeof want, "set output \"%s.svg\"", k->name);
        ck_assert_ptr_nonnull(strstr(slurp(path), want));
        free_input(&svg);
    }
    clean_dir();
}
END_TEST

START_TEST(improvement_data_matches_the_theory)
{
    make_dir();
    const sd_plot_kind *k = sd_plot_find("improvement-vs-gamma");
    sd_plot_input in = defaults(k);
    ck_assert_int_eq(sd_plot_write(k, &in, dir, SD_PLOT_PNG, NULL), SD_OK);
    sd_tsv t;
    read_block(k->name, 0, &t);
    ck_assert_uint_eq(t.ncolumns, 6);
    ck_assert_str_eq(t.column[1], "c = 0 (optimum unbounded)");
    ck_assert_str_eq(t.column[3], "c = 0.02");
    ck_assert_uint_eq(t.nrows, 40);
    for (size_t r = 0; r < t.nrows; r++)
        for (size_t c = 1; c < 6; c++)
            ck_assert_double_eq(strtod(t.row[r].field[c], NULL),
                                sd_theory_improvement(0.8, (double)(r + 1), in.cost.v[c - 1]));
    sd_tsv_free(&t);
    read_block(k->name, 1, &t); /* the optima: c = 0.01, 0.02, 0.05, 0.1 (c = 0 is unbounded) */
    ck_assert_uint_eq(t.nrows, 4);
    ck_assert_str_eq(t.row[1].field[1], "11");
    ck_assert_str_eq(t.row[1].field[3], "γ* = 11");
    sd_tsv_free(&t);
    free_input(&in);
    clean_dir();
}
END_TEST

START_TEST(maps_and_monte_carlo_data)
{
    make_dir();
    const sd_plot_kind *k = sd_plot_find("optimal-gamma-map");
    sd_plot_input in = defaults(k);
    ck_assert_int_eq(sd_plot_write(k, &in, dir, SD_PLOT_PNG, NULL), SD_OK);
    sd_tsv t;
    read_block(k->name, 0, &t);
    ck_assert_uint_eq(t.nrows, 199 * 201);
    size_t zeros = 0, seed = 0, wrong = 0;
    for (size_t r = 0; r < t.nrows; r++) {
        double a = strtod(t.row[r].field[0], NULL), c = strtod(t.row[r].field[1], NULL), v = strtod(t.row[r].field[2], NULL);
        zeros += v == 0.0;
        wrong += (v == 0.0) != (a <= c); /* the do-not-speculate region is exactly alpha <= c */
        if (fabs(a - 0.8) < 1e-12 && fabs(c - 0.02) < 1e-12) {
            seed++;
            ck_assert_double_eq(v, 11.0);
        }
    }
    ck_assert_uint_eq(seed, 1);
    ck_assert_uint_eq(wrong, 0);
    ck_assert_uint_gt(zeros, 1000);
    sd_tsv_free(&t);
    free_input(&in);

    k = sd_plot_find("n-distribution");
    in = defaults(k);
    ck_assert_int_eq(sd_plot_write(k, &in, dir, SD_PLOT_PNG, NULL), SD_OK);
    read_block(k->name, 0, &t);
    ck_assert_uint_eq(t.nrows, 6);
    double theory = 0, observed = 0;
    for (size_t r = 0; r < t.nrows; r++) {
        theory += strtod(t.row[r].field[1], NULL);
        observed += strtod(t.row[r].field[2], NULL);
        ck_assert(strtod(t.row[r].field[3], NULL) <= strtod(t.row[r].field[2], NULL));
    }
    ck_assert_double_eq_tol(theory, 1.0, 1e-12);
    ck_assert_double_eq_tol(observed, 1.0, 1e-12);
    sd_tsv_free(&t);
    free_input(&in);
    clean_dir();
}
END_TEST

/* Reads the width and height from a PNG's IHDR chunk. */
static void png_size(const char *path, unsigned *w, unsigned *h)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s not drawn", path);
    unsigned char b[24];
    ck_assert_uint_eq(fread(b, 1, 24, f), 24);
    fclose(f);
    ck_assert(memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0);
    *w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19];
    *h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23];
}

START_TEST(renders_with_gnuplot_or_says_how_to_install_it)
{
    make_dir();
    const sd_plot_kind *k = sd_plot_find("improvement-vs-gamma");
    sd_plot_input in = defaults(k);
    ck_assert_int_eq(sd_plot_write(k, &in, dir, SD_PLOT_PNG, NULL), SD_OK);
    sd_error err;
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        ck_assert_msg(sd_plot_render(dir, k->name, &err) == SD_OK, "%s", err.msg);
        char path[256];
        snprintf(path, sizeof path, "%s/%s.png", dir, k->name);
        unsigned w, h;
        png_size(path, &w, &h);
        ck_assert_uint_eq(w, 1200);
        ck_assert_uint_eq(h, 800);
    }
    setenv("PATH", "/nonexistent", 1); /* this test runs in its own process */
    ck_assert_int_eq(sd_plot_render(dir, k->name, &err), SD_EIO);
    ck_assert_ptr_nonnull(strstr(err.msg, "apt-get install gnuplot-nox"));
    ck_assert_ptr_nonnull(strstr(err.msg, "improvement-vs-gamma.gp are written"));
    free_input(&in);
    clean_dir();
}
END_TEST

/* ---- the shipped data, at the published rounding ----------------------------- */

/* Decimals written in a number like "3.69". */
static int decimals_of(const char *s)
{
    const char *dot = strchr(s, '.');
    return dot ? (int)strlen(dot + 1) : 0;
}

static void check_reported(const char *path)
{
    sd_tsv t;
    ck_assert_int_eq(sd_tsv_load(path, 1, 1000, &t, NULL), SD_OK);
    size_t a = sd_tsv_column(&t, "alpha"), c = sd_tsv_column(&t, "cost"), g = sd_tsv_column(&t, "gamma"),
           r = sd_tsv_column(&t, "reported");
    ck_assert(a != (size_t)-1 && c != (size_t)-1 && g != (size_t)-1 && r != (size_t)-1);
    ck_assert_uint_gt(t.nrows, 0);
    for (size_t i = 0; i < t.nrows; i++) {
        double f = sd_theory_improvement(strtod(t.row[i].field[a], NULL), strtod(t.row[i].field[g], NULL),
                                         strtod(t.row[i].field[c], NULL));
        char rounded[32];
        snprintf(rounded, sizeof rounded, "%.*f", decimals_of(t.row[i].field[r]), f);
        ck_assert_msg(strcmp(rounded, t.row[i].field[r]) == 0, "%s:%zu: eq. (10) gives %s, published %s", path,
                      t.row[i].line, rounded, t.row[i].field[r]);
    }
    sd_tsv_free(&t);
}

START_TEST(shipped_scenarios_reproduce_published_numbers)
{
    check_reported(data_path("seed-table.tsv"));
    check_reported(data_path("leviathan2023.tsv"));
    char flop[16]; /* Table 1's FLOP factor */
    snprintf(flop, sizeof flop, "%.2f", sd_theory_flop_factor(0.8, 5, 0));
    ck_assert_str_eq(flop, "1.63");
}
END_TEST

Suite *plot_suite(void)
{
    Suite *s = suite_create("plot");
    TCase *tc = tcase_create("plot");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_script_has_title_axes_key_and_size);
    tcase_add_test(tc, improvement_data_matches_the_theory);
    tcase_add_test(tc, maps_and_monte_carlo_data);
    tcase_add_test(tc, renders_with_gnuplot_or_says_how_to_install_it);
    tcase_add_test(tc, shipped_scenarios_reproduce_published_numbers);
    suite_add_tcase(s, tc);
    return s;
}

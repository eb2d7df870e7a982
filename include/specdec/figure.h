/* plot.h -- figures: a data file and a gnuplot script per figure, then gnuplot.
 *
 * specdec computes every number; gnuplot only draws.  A figure NAME becomes
 * DIR/NAME.dat (tab-separated blocks with a header line each, full
 * precision) and DIR/NAME.gp, which draws DIR/NAME.png or NAME.svg at
 * 1200x800 when run as `gnuplot -d NAME.gp` inside DIR.  The figures take
 * the same inputs as the table commands (alpha, cost, gamma and mu lists;
 * tokens and seed for the Monte Carlo ones); an empty list means the
 * figure's default, given in sd_plot_kind.
 */
#ifndef SPECDEC_PLOT_H
#define SPECDEC_PLOT_H

#include <stdint.h>
#include <stdio.h>

#include "specdec/parse.h"
#include "specdec/status.h"

typedef enum { SD_PLOT_PNG, SD_PLOT_SVG } sd_plot_format;

typedef struct {
    sd_list alpha, cost, gamma, mu;
    uint64_t tokens; /* Monte Carlo figures: emitted tokens per run */
    uint64_t seed;
    unsigned threads;
    const char *data_dir; /* roofline figures: where models.tsv and hardware.tsv are */
} sd_plot_input;

typedef struct {
    const char *name;
    const char *summary;
    /* defaults, as list texts (parse.h), for the inputs the figure uses; NULL = not used */
    const char *alpha, *cost, *gamma, *mu;
    int monte_carlo; /* uses tokens and seed */
    int variant;     /* passed to write: one writer draws several figures */
    sd_status (*write)(const sd_plot_input *in, const char *name, int variant, sd_plot_format fmt, FILE *dat,
                       FILE *gp, sd_error *err);
} sd_plot_kind;

/* The figures, ending with a row of NULLs. */
extern SD_API const sd_plot_kind sd_plots[];

SD_API const sd_plot_kind *sd_plot_find(const char *name);
/* "improvement-vs-gamma, ..." for messages. */
SD_API const char *sd_plot_names(void);

/* Writes DIR/NAME.dat and DIR/NAME.gp (DIR is created if missing). */
SD_API sd_status sd_plot_write(const sd_plot_kind *k, const sd_plot_input *in, const char *dir, sd_plot_format fmt,
                        sd_error *err);

/* Runs `gnuplot -d NAME.gp` in DIR.  SD_EIO when gnuplot is missing (the
 * message says how to install it) or fails. */
SD_API sd_status sd_plot_render(const char *dir, const char *name, sd_error *err);

#endif

/* scenario.h -- the inputs speedup and optimal share (private to report/):
 * a grid of lists, the rows of a scenario file (--from), or an acceptance
 * vector (--acceptance): the points the two commands evaluate. */
#ifndef SPECDEC_SCENARIO_H
#define SPECDEC_SCENARIO_H

#include "cmd_shared.h"
#include "specdec/theory.h"
#include "specdec/tsv.h"

typedef struct {
    double alpha, cost, mu, gamma;
    const sd_tsv_row *row; /* its scenario line, in --from mode */
    const double *acc;     /* per-position acceptance a_1..a_gamma, in --acceptance mode */
} scenario_point;

typedef struct {
    sd_list l[4]; /* alpha, cost, mu, gamma */
    sd_list acc;  /* --acceptance */
    sd_tsv tsv;
    size_t name_col, pass_col[4];
    scenario_point *pts;
    size_t n;
} scenario;

/* Notes only for small grids: beyond this many (alpha, cost) pairs the table speaks for itself. */
enum { SCENARIO_MAX_NOTES = 8, SCENARIO_COLS = 24 };

/* Fills in->pts from --from FILE, --acceptance or the lists; uses_gamma says
 * whether the command reads gamma.  Free with scenario_free. */
sd_status scenario_read(const sd_command_args *a, int uses_gamma, scenario *in, sd_error *err);
void scenario_free(scenario *in);
/* E(N) at a point: eq. (4), or the product form for an acceptance vector. */
double scenario_tokens(const scenario_point *p);
/* The output columns into cols (name first and pass-through columns last in
 * --from mode, the core columns between); returns how many. */
size_t scenario_columns(const scenario *in, const char *const *core, size_t ncore, const char **cols);
/* Adds one row: name, the core cells, the pass-through cells. */
sd_status scenario_row(sd_table *t, const scenario *in, const scenario_point *p, const sd_cell *core, size_t ncore,
                       sd_error *err);
/* One sentence about the optimum for (alpha, cost), for the text notes. */
sd_status scenario_note_optimum(sd_table *t, double alpha, double cost, const sd_optimum *o, sd_error *err);

#endif

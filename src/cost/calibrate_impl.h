/* calibrate_impl.h -- the private half of calibrate: the terms every part
 * reads.  The file formats (calibrate_file.c), the least squares
 * (calibrate_fit.c) and the band (calibrate_band.c) sit above the terms and
 * the lookups of calibrate.c; the calls go one way, to calibrate.c. */
#ifndef SPECDEC_CALIBRATE_IMPL_H
#define SPECDEC_CALIBRATE_IMPL_H

#include <math.h>
#include <stddef.h>

#include "specdec/calibrate.h"
#include "specdec/cost.h"

/* Each term: its name (a column of the saved fits), its field of sd_cost_params, whether it is
 * fitted as a logarithm, the domain of its value, and the order in which too few rows hold it
 * (larger: held first). */
typedef struct {
    const char *name;
    size_t offset;
    int log;
    double lo, hi;
    int drop;
} sd_calibrate_term_info;

/* The terms, indexed by SD_CAL_ETA_FLOPS .. SD_CAL_HOP_LATENCY (calibrate.c). */
extern const sd_calibrate_term_info SD_CALIBRATE_TERMS[SD_CAL_NTERMS];

/* Term i of cp, to write and to read. */
static inline double *sd_calibrate_term(sd_cost_params *cp, int i)
{
    return (double *)(void *)((char *)cp + SD_CALIBRATE_TERMS[i].offset);
}

static inline double sd_calibrate_term_of(const sd_cost_params *cp, int i)
{
    return *(const double *)(const void *)((const char *)cp + SD_CALIBRATE_TERMS[i].offset);
}

/* Term i's coordinate in the fits and the draws (an eta's logarithm, a time itself), and back. */
static inline double sd_calibrate_coord(int i, double value)
{
    return SD_CALIBRATE_TERMS[i].log ? log(value) : value;
}

static inline double sd_calibrate_value(int i, double coord)
{
    return SD_CALIBRATE_TERMS[i].log ? exp(coord) : coord;
}

#endif

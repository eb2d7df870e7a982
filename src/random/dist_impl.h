/* dist_impl.h -- the private half of dist: the residual of Algorithm 1. */
#ifndef SPECDEC_DIST_IMPL_H
#define SPECDEC_DIST_IMPL_H

#include <stddef.h>

#include "specdec/dist.h"

/* The adjusted distribution's weights max(0, p - q) into out (unnormalised,
 * as Algorithm 1's norm() leaves to the sampler); returns their total.  A
 * total of 0 means p <= q everywhere, i.e. p = q up to rounding. */
double sd_dist_residual(const double *p, const double *q, size_t n, double *out);

#endif

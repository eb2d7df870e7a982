/* fit_impl.h -- the private half of fit.h: what its parts share.  fit.c
 * estimates (the estimators, the models, E(N) under them); fit_predict.c
 * predicts from them (the bootstrap, the intervals, the recommendation) and
 * calls fit.c, never the reverse. */
#ifndef SPECDEC_FIT_IMPL_H
#define SPECDEC_FIT_IMPL_H

#include "specdec/fit.h"

/* The drafts of each length l = 1..c->gamma behind the counts, into
 * n[l - 1]: from reached (R_l - R_{l+1}), or all gamma long for a gauge
 * (one draft).  prefix-mean's estimate and its bootstrap both read them. */
void sd_fit_draft_lengths(const sd_counts *c, double *n);

#endif

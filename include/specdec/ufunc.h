/* ufunc.h -- the closed forms over arrays: one call evaluates n points.
 *
 * A table of named rows, one per closed form of theory.h, each naming its
 * inputs with their domains and its outputs, so that a binding (the
 * Python package's broadcasting functions) is made from the table and
 * evaluates every formula here, never its own copy.  Each row's doc names
 * the seed's equation.  The points are checked before any is evaluated:
 * the first input outside its domain fails the call with the message a
 * command-line option gets ("alpha: 2 is outside [0, 1]") and the point's
 * index.  Stateless and reentrant.
 */
#ifndef SPECDEC_UFUNC_H
#define SPECDEC_UFUNC_H

#include <stddef.h>

#include "specdec/parse.h"
#include "specdec/status.h"

enum { SD_UFUNC_MAX_IN = 3, SD_UFUNC_MAX_OUT = 5 };

typedef struct {
    const char *name;                    /* "expected_tokens", ... */
    const char *doc;                     /* one line: the formula and its equation */
    size_t nin, nout;
    const char *in[SD_UFUNC_MAX_IN];     /* input names, in order */
    const char *out[SD_UFUNC_MAX_OUT];   /* output names, in order */
    sd_domain dom[SD_UFUNC_MAX_IN];      /* each input's domain (name NULL: the formula checks it) */
    /* one point: y[0 .. nout - 1] from x[0 .. nin - 1], the inputs in their domains */
    sd_status (*eval)(const double *x, double *y, sd_error *err);
} sd_ufunc;

/* The i-th row, i = 0, 1, ...; NULL past the last.  Static. */
SD_API const sd_ufunc *sd_ufunc_at(size_t i);
/* The row called name, or NULL. */
SD_API const sd_ufunc *sd_ufunc_find(const char *name);

/* Evaluates f at n points: input k of point i is in[k][i * stride[k]]
 * (stride 0: one value for every point, 1: an array), output j of point i
 * goes to out[j][i].  SD_EINVAL naming the input and the point ("alpha: 2
 * is outside [0, 1] (point 3 of 10)") when one is outside its domain,
 * before anything is written; the formula's own failure (SD_EINVAL,
 * SD_EFAIL) with the point appended, out then written up to that point. */
SD_API sd_status sd_ufunc_eval(const sd_ufunc *f, size_t n, const double *const *in, const size_t *stride,
                               double *const *out, sd_error *err);

#endif

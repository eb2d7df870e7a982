/* specdec.h -- the specdec library: the one header a program includes.
 *
 * The analytical theory of speculative decoding (equation numbers are the
 * seed text's, shared/seed/speculative-decoding-part1.txt) and a Monte Carlo
 * engine that runs the real rejection sampler against it.  Modules:
 *
 *   specdec/status.h    how failures are reported: sd_status, sd_error
 *   specdec/table.h     the result type every computation returns
 *   specdec/format.h    text, TSV, CSV, JSON and Markdown renderers
 *   specdec/parse.h     strict numbers, lists, ranges and TSV files
 *   specdec/data.h      where the data files (presets) are found
 *   specdec/theory.h    closed forms: E(N), PMF of N, improvement, FLOP factor, optimum
 *   specdec/dist.h      probability vectors: files, overlap beta, D_LK, samplers
 *   specdec/rng.h       reproducible random streams keyed by (seed, stream)
 *   specdec/synth.h     synthetic target/draft models and the context bank
 *   specdec/verify.h    verification rules (adjusted, target, greedy, block)
 *   specdec/engine.h    the Monte Carlo engine: Algorithm 1 on a model
 *   specdec/cost.h      the batch-aware roofline cost model and its presets
 *   specdec/figure.h    the data behind each figure, as tables
 *   specdec/validate.h  the theory held against the engine, as a table of checks
 *
 * Conventions (as in GSL): every function that can fail returns an
 * sd_status and, given a non-NULL sd_error, one line saying which parameter
 * was wrong and its valid range; on failure outputs are left as documented
 * (usually untouched, or NULL for returned objects).  Objects come in
 * _alloc/_free (or _load/_free) pairs and the caller owns what it is given.
 * No function prints or exits; none keeps global state except the data
 * directory override (data.h).  Link with `pkg-config --cflags --libs specdec`.
 */
#ifndef SPECDEC_H
#define SPECDEC_H

#define SPECDEC_VERSION_MAJOR 1
#define SPECDEC_VERSION_MINOR 0
#define SPECDEC_VERSION_PATCH 0
#define SPECDEC_VERSION "1.0.0"

#include "specdec/status.h"
#include "specdec/table.h"
#include "specdec/format.h"
#include "specdec/parse.h"
#include "specdec/data.h"
#include "specdec/theory.h"
#include "specdec/dist.h"
#include "specdec/rng.h"
#include "specdec/synth.h"
#include "specdec/verify.h"
#include "specdec/engine.h"
#include "specdec/cost.h"
#include "specdec/figure.h"
#include "specdec/validate.h"

/* The library's version string, "MAJOR.MINOR.PATCH" (the header's
 * SPECDEC_VERSION at build time; compare them to catch a mismatched
 * shared library). */
SD_API const char *sd_version(void);

/* The version of GSL the library was built against, e.g. "2.7.1". */
SD_API const char *sd_gsl_version(void);

#endif

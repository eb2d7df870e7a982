/* specdec.h -- the specdec library: one include for all of its modules.
 *
 *   theory.h  closed forms: E(N), PMF of N, improvement, FLOP factor, optimum
 *   dist.h    probability vectors: files, overlap beta, D_LK
 *   parse.h   strict numbers, lists and ranges
 *   table.h   the result type every command returns
 *   format.h  text, TSV, CSV, JSON and Markdown renderers
 *   status.h  error reporting
 */
#ifndef SPECDEC_H
#define SPECDEC_H

#define SPECDEC_VERSION "0.1.0"

#include "dist.h"
#include "format.h"
#include "parse.h"
#include "status.h"
#include "table.h"
#include "theory.h"

#endif

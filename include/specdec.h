/* specdec.h -- the specdec library: the one header a program includes.
 *
 * The analytical theory of speculative decoding (equation numbers are the
 * seed text's, shared/seed/speculative-decoding-part1.txt) and a Monte Carlo
 * engine that runs the real rejection sampler against it.  Modules:
 *
 *   specdec/status.h    how failures are reported: sd_status, sd_error
 *   specdec/version.h   the library's version and GSL's
 *   specdec/table.h     the result type every computation returns
 *   specdec/format.h    text, TSV, CSV, JSON and Markdown renderers
 *   specdec/parse.h     strict numbers, lists and ranges
 *   specdec/tsv.h       tab-separated files with line numbers
 *   specdec/data.h      where the data files (presets) are found
 *   specdec/theory.h    closed forms: E(N), PMF of N, improvement, FLOP factor, optimum
 *   specdec/dist.h      probability vectors: files, overlap beta, D_LK
 *   specdec/cdf.h       sampling from weights: CDF tables behind guide cells
 *   specdec/npy.h       NumPy .npy matrices of logits or probabilities
 *   specdec/sampling.h  sampling settings: temperature, top-k, top-p, min-p
 *   specdec/rng.h       reproducible random streams keyed by (seed, stream)
 *   specdec/model.h     models: contexts, prefixes, the bank; models from given distributions
 *   specdec/synth.h     synthetic target/draft models
 *   specdec/verify.h    verification rules (adjusted, target, greedy, block, deterministic-draft,
 *                       exact-match)
 *   specdec/step.h      Algorithm 1: one speculative decoding step
 *   specdec/engine_stats.h what a Monte Carlo run counts; its record and replay hooks, merge
 *   specdec/engine.h    the Monte Carlo engine: Algorithm 1 on a model, in chunks and threads
 *   specdec/gof.h       goodness of fit: chi-square, and the engine's output test
 *   specdec/sample.h    speculative sampling at one position, many times
 *   specdec/ngram.h     a byte-level Kneser-Ney target/draft pair on real text
 *   specdec/path.h      acceptance along the paths a target generates
 *   specdec/partial.h   partial results of sharded runs: text form and merge
 *   specdec/dtype.h     number types: fp4 ... fp32, their names and sizes
 *   specdec/presets.h   model and accelerator presets: shapes, number types, peaks, interconnect
 *   specdec/loop.h      engine profiles: the speculation loop's own time
 *   specdec/specconfig.h vLLM's speculative config: the drafter and gamma it names
 *   specdec/cost.h      the roofline cost model, operator by operator or per pass
 *   specdec/calibrate.h the cost model fitted to measured step times
 *   specdec/counters.h  engines' speculative-decoding counters: Prometheus, vLLM and llama.cpp logs, TSV
 *   specdec/fit.h       alpha from counters, the i.i.d. test, predictions for other gamma,
 *                       the recommended gamma as a struct (sd_fit_recommend)
 *   specdec/figure.h    the data behind each figure, as tables
 *   specdec/policies.h  the draft-length policies side by side
 *   specdec/schedule.h  a draft-length schedule in vLLM's, SGLang's or TensorRT-LLM's syntax
 *   specdec/validate.h  the theory held against the engine, as a table of checks
 *   specdec/command.h   a command as a typed request described by rows of named fields
 *   specdec/commands.h  every command, listed once; cmd_NAME.h: each command as a library call
 *   specdec/cmd_model.h, cmd_sampling.h  option groups of those requests: the models of simulate
 *                       and policies; the sampling settings of overlap
 *   specdec/cmd_tree.h  tree, and a tree's speed-up and its band under the cost model
 *   specdec/cmd_fit.h   fit, its reports of a fit, and its recommendation (sd_fit_recommend)
 *   specdec/cmd_validate.h validate: the one call that returns SD_ECHECK (with its whole table)
 *
 * Conventions (as in GSL).  A function that can fail returns an sd_status
 * and, given a non-NULL sd_error, one line naming the parameter at fault and
 * its valid range; its comment lists the statuses it returns and what its
 * outputs hold on failure.  A function that returns a value instead never
 * fails.  Preconditions of every function -- pointers not NULL unless its
 * comment allows it, indices in range, enum values valid, objects from
 * their constructor -- are not checked; breaking them is undefined
 * behaviour.  Objects come in _alloc/_free (_load/_free, _init/_free)
 * pairs: the caller owns what it is given and releases it with the pair's
 * _free.  The _free of a struct the caller holds (sd_list, sd_tsv,
 * sd_dist, sd_cdf, sd_step, sd_engine_stats, sd_presets, sd_figure_data)
 * leaves it empty (its pointers NULL), so a second call is harmless;
 * sd_table_free, sd_model_free and sd_figure_data_free accept NULL.
 * Pointers into an object (cells, contexts, names, presets) belong to it
 * and die with it.  Name strings and tables (*_name, *_names, *_at,
 * *_find) are static, except that sd_format_names, sd_verify_names and
 * sd_figure_names return a per-thread buffer that the next call in the
 * same thread overwrites.
 *
 * No function prints, exits or keeps global state (the data files are
 * found through the caller's folder or $SPECDEC_DATA, data.h).  GSL reports
 * its own failures (allocations, root finders, Lambert W) through
 * gsl_error, whose default handler prints and aborts: a program must call
 * gsl_set_error_handler_off() for those failures to come back as SD_ENOMEM
 * or SD_EFAIL.  Only sd_cmd_validate_table (and sd_command_run of that
 * command) returns SD_ECHECK, with its whole table, and only the
 * writers (sd_format_write, sd_counters_write_prometheus, and the commands
 * that write a file: roofline's --save-calibration, fit's --export-profile)
 * return SD_EIO (a file that cannot be opened or read is SD_EINVAL, naming
 * it).  Link with `pkg-config --cflags --libs specdec`.
 */
#ifndef SPECDEC_H
#define SPECDEC_H

#include "specdec/status.h"
#include "specdec/version.h"
#include "specdec/table.h"
#include "specdec/format.h"
#include "specdec/parse.h"
#include "specdec/tsv.h"
#include "specdec/data.h"
#include "specdec/theory.h"
#include "specdec/ufunc.h"
#include "specdec/tree.h"
#include "specdec/cdf.h"
#include "specdec/dist.h"
#include "specdec/npy.h"
#include "specdec/sampling.h"
#include "specdec/rng.h"
#include "specdec/model.h"
#include "specdec/synth.h"
#include "specdec/verify.h"
#include "specdec/step.h"
#include "specdec/engine_stats.h"
#include "specdec/engine.h"
#include "specdec/gof.h"
#include "specdec/sample.h"
#include "specdec/path.h"
#include "specdec/partial.h"
#include "specdec/dtype.h"
#include "specdec/presets.h"
#include "specdec/ngram.h"
#include "specdec/loop.h"
#include "specdec/specconfig.h"
#include "specdec/cost.h"
#include "specdec/calibrate.h"
#include "specdec/counters.h"
#include "specdec/fit.h"
#include "specdec/figure.h"
#include "specdec/serving.h"
#include "specdec/policies.h"
#include "specdec/schedule.h"
#include "specdec/validate.h"
#include "specdec/command.h"
#include "specdec/commands.h"
#include "specdec/cmd_speedup.h"
#include "specdec/cmd_optimal.h"
#include "specdec/cmd_expect.h"
#include "specdec/cmd_cost.h"
#include "specdec/cmd_roofline.h"
#include "specdec/cmd_serving.h"
#include "specdec/cmd_model.h"
#include "specdec/cmd_sampling.h"
#include "specdec/cmd_overlap.h"
#include "specdec/cmd_simulate.h"
#include "specdec/cmd_policies.h"
#include "specdec/cmd_sample.h"
#include "specdec/cmd_tree.h"
#include "specdec/cmd_metrics.h"
#include "specdec/cmd_markov.h"
#include "specdec/cmd_fit.h"
#include "specdec/cmd_validate.h"

#endif

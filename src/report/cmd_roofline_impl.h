/* cmd_roofline_impl.h -- the private half of cmd_roofline.h: what its parts
 * share (cmd_roofline.c, the pair's tables; cmd_roofline_passes.c,
 * --breakdown and the presets; cmd_roofline_calibrate.c, --calibrate). */
#ifndef SPECDEC_CMD_ROOFLINE_IMPL_H
#define SPECDEC_CMD_ROOFLINE_IMPL_H

#include "cmd_cost_impl.h"
#include "specdec/cmd_roofline.h"
#include "specdec/format.h"
#include "specdec/schedule.h"
#include "specdec/theory.h"

/* --prefill's and --prefill-cached's domains. */
extern const sd_domain ROOFLINE_PREFILL, ROOFLINE_PREFILL_CACHED;
/* --list-models and --list-hardware: the presets with derived columns. */
sd_status roofline_list_models(const sd_presets *p, sd_table **out, sd_error *err);
sd_status roofline_list_hardware(const sd_presets *p, sd_table **out, sd_error *err);
/* --breakdown: the passes' operators at every (batch, context) of l[0] x l[1], into a new *t. */
sd_status roofline_breakdown(const sd_command_args *a, const sd_roofline_request *rq, const sd_list *l,
                             sd_table **t, sd_error *err);

/* "model-hardware", "family", NULL: --calibrate-by's names. */
const char *const *roofline_calibrate_by_names(void);

/* Fits the cost model to the step times in --calibrate FILE (calibrate.h)
 * with --granularity and the starting --eta-flops, --eta-bw, --overhead;
 * one row per measurement with its fitted time, relative residual and its
 * group's fit; writes the fits to --save-calibration FILE when given. */
sd_status roofline_calibrate(const sd_command_args *a, const sd_presets *p, sd_table **out, sd_error *err);

#endif

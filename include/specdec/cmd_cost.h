/* cmd_cost.h -- the cost model's options, as every command costed by the
 * roofline presets (cmd_roofline.h, cmd_tree.h, cmd_fit.h, cmd_serving.h)
 * takes them in its request: the granularity, tensor parallelism, the
 * draft's KV window, CUDA graphs, the cost terms from a calibration
 * (calibrate.h; the shipped cost-defaults.tsv unless another is named) or
 * by hand (cost.h), and the engine whose speculation loop's own time
 * applies (loop.h; the shipped engine-profiles.tsv unless another is named).  Fields as command.h reads them.
 */
#ifndef SPECDEC_CMD_COST_H
#define SPECDEC_CMD_COST_H

#include "specdec/command.h"

typedef struct {
    int granularity;        /* --granularity: operator or pass (cost.h); default the library's */
    double tp;              /* --tp N: tensor-parallel GPUs, whole in [1, 1024]; default 1 */
    double draft_kv_window; /* --draft-kv-window W: the draft reads at most W cached tokens; default all */
    int graphs;             /* --graphs: 0 off (eager), 1 on (CUDA graphs); default on */
    double eta_flops;       /* --eta-flops X: fraction of peak FLOP/s, in [1e-3, 1]; default the calibration's */
    double eta_bw;          /* --eta-bw X: fraction of peak bandwidth, in [1e-3, 1]; default the calibration's */
    double overhead;        /* --overhead SEC: time per pass t0, in [0, 1]; default the calibration's */
    double launch;          /* --launch SEC: time per kernel, in [0, 1]; default the calibration's */
    const char *calibration; /* --calibration FILE: the fits to use instead of the shipped ones */
    const char *engine;      /* --engine NAME: the engine profile whose loop time applies (loop.h); default none */
    const char *engine_profiles; /* --engine-profiles FILE: the profiles instead of the shipped engine-profiles.tsv */
} sd_cmd_cost_options;

/* Nothing given. */
SD_API sd_cmd_cost_options sd_cmd_cost_defaults(void);

#endif

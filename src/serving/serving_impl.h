/* serving_impl.h -- what the simulation and its twin share (serving.h):
 * one step's time and the schedule's lookup, so that the twin prices a step
 * exactly as the simulation does. */
#ifndef SPECDEC_SERVING_IMPL_H
#define SPECDEC_SERVING_IMPL_H

#include "specdec/serving.h"

/* The seconds of one engine step under c's policy: g[0] the decode batch
 * (sequences 0: none), g[1 .. nchunks] the prompt chunks; gamma draft
 * passes over the decode batch at draft_context (the first also over the
 * chunks when the draft is a model of its own; such a draft reads the
 * chunks even when nothing is drafted), and one target pass over all of g.
 * g[0] is restored on return.  Never fails. */
double sd_serving_step_time(const sd_serving_config *c, sd_cost_group *g, size_t nchunks, size_t gamma,
                            double draft_context);

/* The schedule's gamma at decode batch `batch`: the first bucket whose
 * batch_to reaches it, else the last bucket's. */
size_t sd_serving_schedule_gamma(const sd_serving_config *c, double batch);

#endif

/* serving_impl.h -- the private half of serving (serving.h): what its parts
 * share.  The configuration (serving_config.c) prices a step, so that the
 * twin (analytic.c) prices it exactly as the simulation does; the policy
 * (serving_policy.c) chooses gamma over the steps the simulation would plan;
 * the simulation's mechanics (serving_sim.c) plan and apply one step at a
 * time; serving.c runs the loop.  The calls go one way: serving.c calls
 * serving_sim.c and serving_policy.c, and they, like analytic.c, call
 * serving_config.c; the policy sees the simulation only through the
 * planner it is handed. */
#ifndef SPECDEC_SERVING_IMPL_H
#define SPECDEC_SERVING_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/serving.h"

/* ---- the configuration (serving_config.c) ------------------------------------------------ */

/* The seconds of one engine step under c's policy: g[0] the decode batch
 * (sequences 0: none), g[1 .. nchunks] the prompt chunks; gamma draft
 * passes over the decode batch at draft_context (the first also over the
 * chunks when the draft is a model of its own; such a draft reads the
 * chunks even when nothing is drafted), and one target pass over all of g;
 * with the loop's own time of c->cost->loop (loop.h): the host's per
 * running sequence at every step, and at a step that drafts the draft-step
 * floor, the iteration's terms and the verify premium on the target pass
 * (the catch-up pass is not priced here).  g[0] is restored on return.
 * Never fails. */
double sd_serving_step_time(const sd_serving_config *c, sd_cost_group *g, size_t nchunks, size_t gamma,
                            double draft_context);

/* ---- one step as planned (serving_sim.c) ------------------------------------------------- */

/* A step planned at gamma: the running requests first, in admission order,
 * then the waiting ones it admits, each given its tokens (give[0 .. ngive - 1]:
 * a prompt chunk, or 1 + gamma in decode, cut to the budget left). */
typedef struct {
    size_t gamma;        /* the drafts of each decoding request */
    size_t decode;       /* requests decoding */
    size_t chunks;       /* prompt chunks, the admitted requests' included */
    size_t admit;        /* waiting requests admitted */
    double decode_tokens, decode_context, draft_context; /* sums over the decoding requests */
    double seconds;      /* the step's time (sd_serving_step_time) */
    const double *give;  /* the simulation's, valid until the next plan */
    size_t ngive;        /* the running requests and the admitted */
} sd_serving_step;

/* The step the simulation would take at gamma (arg: its state). */
typedef sd_serving_step (*sd_serving_planner)(void *arg, size_t gamma);

/* ---- the policy (serving_policy.c) ------------------------------------------------------- */

/* The schedule's gamma at decode batch `batch`: the first bucket whose
 * batch_to reaches it, else the last bucket's. */
size_t sd_serving_schedule_gamma(const sd_serving_config *c, double batch);

/* gamma for the next step with `decoding` requests past their prompts:
 * c->gamma (fixed), the schedule's at that batch, 0 (none), or the goodput
 * policy's -- the gamma in 0 .. gamma_max (0 alone when nothing decodes)
 * whose planned step maximises decode x E(gamma) / seconds, the shorter on
 * a tie -- asking plan(arg, gamma) for each.  Never fails. */
size_t sd_serving_policy_gamma(const sd_serving_config *c, size_t decoding, sd_serving_planner plan, void *arg);

/* ---- the simulation's mechanics (serving_sim.c) ------------------------------------------ */

/* The state of one replication: the requests, the waiting queue, the
 * running set, the clock, and what the measurement window has seen. */
typedef struct sd_serving_sim sd_serving_sim;

/* A replication of c (checked) from stream (seed, stream), its first
 * arrivals made; NULL when out of memory. */
sd_serving_sim *sd_serving_sim_open(const sd_serving_config *c, uint64_t seed, uint64_t stream);
void sd_serving_sim_close(sd_serving_sim *s);

/* Readies the next step: an idle engine jumps to the next arrival, and the
 * measurement window opens or closes.  1: a step is due; 0: the run is
 * over (idle, no arrival to come); -1: out of memory. */
int sd_serving_sim_next(sd_serving_sim *s);

/* The running requests past their prompts: the decode batch of the next step. */
size_t sd_serving_sim_decoding(const sd_serving_sim *s);

/* The step at gamma (sd_serving_planner; arg the sd_serving_sim).  The
 * last one planned is the one sd_serving_sim_apply takes. */
sd_serving_step sd_serving_sim_plan(void *arg, size_t gamma);

/* Takes step p, the last planned: the clock, the arrivals during it, the
 * admissions, the tokens each request emits (the acceptance drawn per
 * decoding request), the requests that finish.  0 when out of memory. */
int sd_serving_sim_apply(sd_serving_sim *s, const sd_serving_step *p);

/* What the run measured (sd_serving_simulate's *out). */
void sd_serving_sim_result(sd_serving_sim *s, sd_serving_result *out);

/* ---- the loop (serving.c) ---------------------------------------------------------------- */

/* Called with each step before it is taken. */
typedef void (*sd_serving_observer)(void *arg, const sd_serving_step *step);

/* sd_serving_simulate, with observe (NULL: none) called at each step. */
sd_status sd_serving_simulate_observed(const sd_serving_config *c, uint64_t seed, uint64_t stream,
                                       sd_serving_observer observe, void *arg, sd_serving_result *out,
                                       sd_error *err);

#endif

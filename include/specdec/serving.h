/* serving.h -- speculative decoding under load: a discrete-event
 * simulation of a continuous-batching engine, and its analytical twin.
 *
 * The engine is vLLM V1's scheduler (vllm/v1/core/sched/scheduler.py,
 * Scheduler.schedule, as read at 00024d31): each step has a token budget
 * (max_num_batched_tokens); the running requests come first, in admission
 * order, each taking 1 + gamma tokens in decode (the speculative tokens
 * count against the budget, cut short when it runs out) or the next chunk
 * of its prompt; then the waiting ones, first come first served, while the
 * running set is below max_num_seqs and the budget lasts, their prompts cut
 * to the budget left (chunked prefill).  A step's time is the cost model's
 * (cost.h): gamma draft passes over the decode batch, then one target pass
 * over the decode batch's 1 + gamma tokens each beside the prompt chunks
 * (sd_cost_group), the draft also reading the chunks when it is a model of
 * its own.  The first token is sampled at the end of a prompt's last chunk;
 * a decode step emits the accepted drafts and one more, drawn per sequence
 * from the acceptance (acc[k]: the chance that draft k + 1 is accepted once
 * the first k were, 0 beyond nacc: the seed's rule, eq. 1 for i.i.d.
 * alpha).  Simplified, and said so: a request's KV cache (prompt + output,
 * the draft's too) is reserved whole when it is admitted, so nothing is
 * preempted; no prefix caching; detokenisation and the API server are
 * free.
 *
 * Times are seconds, rates per second; lengths count tokens. */
#ifndef SPECDEC_SERVING_H
#define SPECDEC_SERVING_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/cost.h"
#include "specdec/status.h"

/* How requests arrive: a Poisson stream at `rate`; a closed loop of `users`
 * that each send the next request the moment the last one finishes; or a
 * trace of arrival times (non-decreasing), prompt and output lengths. */
typedef enum { SD_SERVING_POISSON, SD_SERVING_USERS, SD_SERVING_TRACE } sd_serving_arrivals;

/* Lengths: a fixed value (n = 1) or a histogram of n values with weights
 * (> 0 in all), drawn with GSL's discrete sampler. */
typedef struct {
    const double *value, *weight;
    size_t n;
} sd_serving_lengths;

/* A trace (TSV, tsv.h): columns time (seconds in [0, 1e12], never going
 * backwards), prompt and output (whole numbers in [1, 16777216]), others
 * ignored, at least one row; *time, *prompt, *output are malloc'd (n
 * each).  SD_EINVAL naming "file:line: column", SD_ENOMEM; on failure
 * nothing is written. */
SD_API sd_status sd_serving_load_trace(const char *path, double **time, double **prompt, double **output, size_t *n,
                                       sd_error *err);

/* A histogram of lengths (TSV): columns length (whole, [1, 16777216]) and
 * weight (in [1e-300, 1e300]), at least one row; the same contract. */
SD_API sd_status sd_serving_load_lengths(const char *path, double **value, double **weight, size_t *n,
                                         sd_error *err);

/* How γ is chosen at each step: none (plain decoding), fixed, a schedule
 * by the decode batch (sd_cost_schedule's buckets: the first bucket whose
 * batch_to reaches the batch; above the last, its gamma), or the goodput
 * policy: the γ in 0..gamma_max that maximises the step's expected emitted
 * tokens over its time at the current batch (SmartSpec, Liu et al., arXiv
 * 2406.14066, its goodput = generated tokens / step time). */
typedef enum { SD_SERVING_NONE, SD_SERVING_FIXED, SD_SERVING_SCHEDULE, SD_SERVING_GOODPUT } sd_serving_policy;

/* "none", "fixed", "schedule", "goodput", NULL (static). */
SD_API const char *const *sd_serving_policy_names(void);

typedef struct {
    /* workload */
    sd_serving_arrivals arrivals;
    double rate;                        /* SD_SERVING_POISSON, > 0 */
    size_t users;                       /* SD_SERVING_USERS, >= 1 */
    const double *trace_time, *trace_prompt, *trace_output; /* SD_SERVING_TRACE: ntrace rows */
    size_t ntrace;
    sd_serving_lengths prompt, output;  /* POISSON and USERS: prompt >= 1, output >= 1 */
    size_t requests;                    /* measured requests (a trace: its rows after warm-up) */
    size_t warmup;                      /* requests before them, not measured */
    /* engine */
    size_t max_num_seqs, max_num_batched_tokens;
    double memory_fraction;             /* of the GPUs' memory the engine may use (vLLM's
                                         * gpu_memory_utilization, 0.9), in (0, 1] */
    /* speculation */
    sd_serving_policy policy;
    size_t gamma;                       /* FIXED */
    const sd_schedule_bucket *schedule; /* SCHEDULE */
    size_t nschedule;
    size_t gamma_max;                   /* GOODPUT, >= 1 */
    const double *acc;                  /* acceptance by position, nacc >= 1 entries in [0, 1] */
    size_t nacc;
    /* costs: target, draft, hardware, params, draft_params, draft_window of the roofline */
    const sd_roofline_request *cost;
    /* SLOs for goodput (inf: none) */
    double slo_ttft, slo_tpot;
} sd_serving_config;

/* The defaults: vLLM's scheduler and cache (max_num_seqs 256,
 * max_num_batched_tokens 8192, memory_fraction 0.9), Poisson arrivals of
 * prompts of 512 tokens and outputs of 256 (lengths in static storage),
 * 10000 measured requests after 1000 of warm-up, no speculation (policy
 * none; gamma_max 8 for the goodput policy and the schedule), no SLOs
 * (inf).  The rate, users, trace, acceptance and cost are the caller's
 * (0 and NULL here).  Name what you change with designated initializers or
 * assignments.  Never fails. */
SD_API sd_serving_config sd_serving_defaults(void);

/* What a run measured (the simulation) or predicts (the twin). */
typedef struct {
    double ttft_mean, ttft_p50, ttft_p90, ttft_p99;
    double tpot_mean, tpot_p50, tpot_p90, tpot_p99; /* (e2e - ttft) / (output - 1), requests of output > 1 */
    double e2e_mean, e2e_p99;
    double throughput_tokens, throughput_requests; /* output tokens and completions a second */
    double mean_batch;                             /* requests running, time-averaged */
    double goodput;                                /* measured requests meeting both SLOs, a second */
    double mean_gamma;                             /* the drafts per decode step, averaged over steps */
    /* Little's law, over the whole run (warm-up and drain included): the
     * time-average of the requests in the system, the arrival rate and the
     * mean time a request spends in it */
    double little_in_system, little_rate, little_time;
    size_t steps;
} sd_serving_result;

/* The KV cache the engine has, in bytes, and what one request of prompt P
 * and output O reserves: memory_fraction of tp GPUs' memory less both
 * models' weights (the draft's once when it is the target); the target's
 * K and V for P + O tokens, the draft's for min(P + O, draft_window) when
 * it is a model of its own. */
SD_API double sd_serving_kv_capacity(const sd_serving_config *c);
SD_API double sd_serving_kv_request(const sd_serving_config *c, double prompt, double output);

/* Checks c's domains; SD_EINVAL naming the field ("rate: 0 is outside
 * (0, inf)", a trace's row whose time goes backwards, a request that could
 * never fit the KV cache or the token budget), else SD_OK. */
SD_API sd_status sd_serving_check(const sd_serving_config *c, sd_error *err);

/* One replication of the simulation from stream (seed, stream), into *out.
 * The measured requests are warmup .. warmup + requests - 1 by arrival;
 * arrivals go on until the last of them finishes, then the engine drains.
 * O(steps x running) time, O(requests) memory.  SD_EINVAL (sd_serving_check),
 * SD_ENOMEM. */
SD_API sd_status sd_serving_simulate(const sd_serving_config *c, uint64_t seed, uint64_t stream, sd_serving_result *out,
                                     sd_error *err);

/* The analytical twin, for Poisson arrivals at c->rate with the mean
 * lengths P and O and the policy's γ at the predicted batch (goodput: the
 * best γ there):
 *   the step time t = γ t_draft(D, 1) + t_target({D, 1 + γ, S, 1 + γ}, the
 *   step's prompt chunks) at the decode batch D = λ t n with n = max((O - 1)
 *   / E(γ), 1) (Little's law: a request decodes for n steps) and S = P + O / 2,
 *   solved for the mean step t with GSL's Brent root finder;
 *   TPOT = t n / (O - 1) (t / E(γ) for long outputs); throughput λ O tokens
 *   and λ requests a second;
 *   the steps' prompt chunks Poisson with mean λ t (np chunks a prompt,
 *   np = ceil(P / max_num_batched_tokens)), and every moment of the step
 *   time taken over that mixture (the roofline is convex in the chunks: a
 *   chunk turns a memory-bound step compute-bound);
 *   TTFT = (1 - e^-B) E t^2 / (2 E t) + np t_own: the rest of the step
 *   running at arrival when the engine is busy (below saturation the
 *   running set is an infinite-server queue: its requests Poisson with
 *   mean B, idle with probability e^-B), then its own chunks' steps (no
 *   queue: below saturation admission is immediate);
 *   goodput λ when both means meet their SLOs, else 0 (the twin has no
 *   spread: a deterministic approximation).
 * *saturation gets the largest rate the engine sustains: the running batch
 * at max_num_seqs (or as many requests as the KV cache or the token budget
 * hold), λ_sat = B_max / (n t(B_max)), t(B_max) in closed form (no root:
 * the chunks a step are B_max np / n there).  The twin holds at
 * light and moderate load; near saturation the queue it ignores dominates
 * TTFT; and it holds for prompts within one step's budget (a prompt of
 * several chunks blocks the decodes beside it for several steps running,
 * which the Poisson mixture spreads out: at 20,000-token prompts and 8192
 * a step its TPOT is a third short even at light load).  SD_EINVAL when
 * the rate is at or above saturation (naming both), for a mean output of
 * 1 token or less (no decode), or for a workload that is not Poisson. */
SD_API sd_status sd_serving_analytic(const sd_serving_config *c, sd_serving_result *out, double *saturation,
                                     sd_error *err);

/* A 64-bit fingerprint of what a simulation of c from seed computes: the
 * workload, engine, policy, acceptance and SLO settings, and the cost
 * model's step times and KV sizes at fixed probe points (so that another
 * preset file or cost option changes it).  For `merge` to refuse parts of
 * another job.  Never fails. */
SD_API uint64_t sd_serving_fingerprint(const sd_serving_config *c, uint64_t seed);

/* E(γ) = 1 + Σ_{k=1}^{γ} Π_{i<=k} acc[i-1] (acc beyond nacc: 0): tokens a
 * decode step emits per sequence. */
SD_API double sd_serving_expected_tokens(const sd_serving_config *c, size_t gamma);

#endif

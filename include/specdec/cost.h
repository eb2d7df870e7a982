/* cost.h -- a roofline cost model, operator by operator: when verification stops being free.
 *
 * Eq. (10) of the seed assumes that gamma + 1 target positions cost one
 * target step (memory-bound decoding).  That fails as the batch grows.  A
 * forward pass runs B sequences of T new tokens each (M = B T tokens) at
 * context S (tokens already cached per sequence).
 *
 * Operator granularity (the default).  With L layers, width d, H query
 * heads and H_kv KV heads of dimension h, MLP width f, vocabulary V, E
 * experts of which k serve each token (E = k = 1: dense), tensor
 * parallelism over N GPUs (per GPU: H/N query heads, max(H_kv/N, 1) KV
 * heads, f/N of each MLP), b_w, b_kv, b_a the bytes of a weight, a cached
 * K or V element and an activation, each operator costs
 *
 *   t_op = max(FLOPs / (eta_F F_type), bytes / (eta_BW BW))
 *
 * where F_type is the GPU's peak for the model's compute type (the linear
 * layers) or its activation type (attention, norms, activations).  Per
 * layer, per GPU (H' = H/N, K' = max(H_kv/N, 1), f' = f/N):
 *
 *   qkv_proj   FLOPs 2 M d (H' + 2K') h       bytes d (H' + 2K') h b_w + M d b_a + M (H' + 2K') h b_a
 *   attention  FLOPs 4 B H' h T (S + (T+1)/2) bytes 2 B K' h (S + T) b_kv + 2 M H' h b_a
 *   out_proj   FLOPs 2 M H' h d               bytes H' h d b_w + M H' h b_a + M d b_a
 *   router     FLOPs 2 M d E                  bytes d E b_w + M d b_a + M E b_a            (E > 1 only)
 *   mlp        FLOPs 6 M k d f'               bytes 3 d f' b_w E u(M) + M k (2 d + 3 f') b_a
 *   norm_act   FLOPs 10 M d + 4 M k f'        bytes 2 d b_w + 10 M d b_a + 3 M k f' b_a
 *
 * (mlp: gate, up and down; u(M) = 1 - (1 - k/E)^M is the expected share of
 * experts a pass touches, uniform independent routing -- 1 for a dense
 * model.  norm_act: two RMSNorms at 4 FLOPs and 2 activation reads or
 * writes per element, two residual adds at 1 FLOP and 3 per element, and
 * SwiGLU at 4 FLOPs and 3 per element.)  Once per pass:
 *
 *   embedding  FLOPs 0                        bytes M d b_w / N + M d b_a
 *   fc         FLOPs 2 M F d d                bytes F d d b_w + M F d b_a + M d b_a   (a drafter head's,
 *              F = fuse > 0: its features into d, replicated on every GPU; presets.h)
 *   lm_head    FLOPs 4 M d + 2 M d V / N      bytes d V b_w / N + M d b_a + M V b_a / N
 *   all_reduce (N > 1) 2 L rings of M d b_a bytes:  2 (N - 1)/N bytes / link + N latency each
 *
 * and the pass costs the sum plus its fixed costs (the time no roofline
 * sees: launches, synchronisation, sampling, the scheduler, the host):
 *
 *   launch     K(m, N) kernels x launch (captured in a CUDA graph) or x launch_eager (not)
 *   overhead   t0, once per pass
 *
 * K counts each operator's kernels from a table of named rows in cost.c
 * (vLLM's Llama and Mixtral forward passes: embedding 1; qkv_proj 2, GEMM
 * and rotary; attention 2, cache write and attention; out_proj 1; router 2;
 * mlp 2 dense, 3 experts; norm_act 3, two fused add-RMSNorms and SiLU-mul;
 * lm_head 2, the final norm and GEMM; fc 1; all_reduce 1 each), so a pass over L
 * layers launches 10 L + 3 kernels when dense on one GPU.  The all-reduce's
 * link latency is per hop: hop_latency, or the hardware's link_latency when
 * hop_latency < 0.  Not modelled: shared experts, the logits' gather across
 * GPUs, kernel fusion (every operator reads its input and writes its output
 * once), overlap of communication with work, or of the host with the GPU.
 *
 * Pass granularity: one max over the whole pass, as specdec had before,
 * with N GPUs ideal (F and BW times N) plus the same all-reduce term:
 *   FLOPs = 2 P_active M + 4 L H h B T (S + (T + 1)/2)
 *   bytes = P(M) b_w + 2 L H_kv h b_kv B (S + T)
 * with P(M) the parameters read: all of them, or for experts the shared
 * part plus u(M) of the experts' part.
 *
 *   c_effective       = t_draft(B, 1, S_d) / t_target(B, 1, S)    (S_d = min(S, window))
 *   verify_cost_ratio = t_target(B, T_v, S) / t_target(B, 1, S)   (T_v = gamma + 1 unless given)
 *   improvement(gamma) = E(N) / (gamma c_effective + verify_cost_ratio)
 *
 * At small B (memory-bound, t0 small) verify_cost_ratio -> 1 and this is
 * eq. (10) with c = c_effective.  An engine profile (loop.h) adds the
 * loop's own time to both: c_effective = (t_draft + tau_d + B tau_ds) / T_0
 * and verify_cost_ratio = (T_g - gamma (t_draft + tau_d + B tau_ds)) / T_0.
 * A proposer that drafts only where it finds a match (n-gram, suffix
 * lookup) at proposal rate r: r B sequences verify T_v tokens and the
 * rest one, in the same pass, and an iteration emits r E(N) + (1 - r)
 * tokens a sequence (the draft passes, if any, still run over the batch).
 */
#ifndef SPECDEC_COST_H
#define SPECDEC_COST_H

#include <stddef.h>

#include "specdec/loop.h"
#include "specdec/presets.h"
#include "specdec/status.h"
#include "specdec/tree.h"

typedef enum { SD_GRANULARITY_OPERATOR, SD_GRANULARITY_PASS } sd_granularity;

/* "operator", "pass", NULL: the granularities' names, indexed by
 * sd_granularity (static).  Never fails. */
SD_API const char *const *sd_cost_granularity_names(void);

typedef struct {
    double eta_flops, eta_bw; /* fractions of peak reached, (0, 1] */
    double overhead;          /* t0, seconds per forward pass, >= 0 */
    double launch;            /* seconds per kernel of a pass captured in a CUDA graph, >= 0 */
    double launch_eager;      /* seconds per kernel of a pass launched kernel by kernel, >= 0 */
    double hop_latency;       /* seconds per hop of an all-reduce ring, >= 0; < 0: the hardware's link_latency */
    int graphs;               /* 1: passes run as CUDA graphs (launch), 0: eagerly (launch_eager) */
    double tp;                /* tensor-parallel GPUs, whole, >= 1 */
    sd_granularity granularity;
} sd_cost_params;

/* The uncalibrated defaults: eta_F 0.5, eta_BW 0.8, t0 20 us, no launch
 * cost (launch = launch_eager = 0), the hardware's link latency, graphs,
 * one GPU, operator granularity: the roofline alone.  The fitted defaults
 * specdec ships are a calibration (calibrate.h, data/cost-defaults.tsv).
 * Never fails. */
SD_API sd_cost_params sd_cost_defaults(void);

/* The figures below take presets that loaded (all positive) and passed
 * sd_presets_check, and never fail; they check nothing, and other figures
 * give inf or NaN.  batch and context count sequences and tokens. */

/* One operator of a pass: its name (see above, or "pass", "launch" and "overhead"),
 * how many times the pass runs it (the layers, or 1), and its FLOPs, bytes
 * and seconds summed over those runs, on one GPU. */
typedef struct {
    const char *name;
    double count, flops, bytes, seconds;
    int compute_bound; /* the compute roof limits it (0 for communication and fixed costs) */
} sd_cost_op;

enum { SD_COST_MAX_OPS = 12 };

/* The operators of one pass of m over B sequences of n new tokens at
 * context S into ops[0..k-1], returning k <= SD_COST_MAX_OPS; the seconds
 * add up to sd_cost_step_time.  A model of no layers (sd_presets_ngram)
 * has no pass: one op "lookup" of 0 s. */
SD_API size_t sd_cost_breakdown(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp, double batch,
                                double n, double context, sd_cost_op *ops);

/* Seconds for that pass; *compute_bound, when compute_bound is not NULL,
 * is set to 1 when compute-bound operators take more of it than
 * memory-bound ones, else 0. */
SD_API double sd_cost_step_time(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp, double batch,
                                double n, double context, int *compute_bound);

/* A pass over sequences of different kinds (a mixed batch, as a serving
 * engine's step with chunked prefill is): groups g[0..ng-1], each of
 * `sequences` sequences of `tokens` new tokens at `context` cached tokens,
 * with logits for `logits` of each sequence's new tokens -- tokens for a
 * decode or verification, 1 for a prompt chunk that ends its prompt, 0 for
 * an earlier chunk.  A prompt's chunk of P tokens after C cached ones is
 * the group {1, P, C, 0 or 1}: its attention is causal, 4 H h P (C + (P +
 * 1) / 2) FLOPs a layer, over C + P tokens of cache.  The operators see
 * the groups' sums (M tokens, Ml with logits; attention term by term), so
 * that one group {B, n, S, n} is sd_cost_breakdown's pass exactly, and the
 * linear operators of a mixed pass cost what one pass over all its tokens
 * does.  Same contract as sd_cost_breakdown and sd_cost_step_time. */
typedef struct {
    double sequences, tokens, context, logits;
} sd_cost_group;

SD_API size_t sd_cost_breakdown_groups(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp,
                                       const sd_cost_group *g, size_t ng, sd_cost_op *ops);
SD_API double sd_cost_groups_time(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp,
                                  const sd_cost_group *g, size_t ng, int *compute_bound);

/* K(m, N): the kernels one pass of m over cp->tp GPUs launches (the table
 * above; the same for both granularities). */
SD_API double sd_cost_kernels(const sd_model_spec *m, const sd_cost_params *cp);

/* Bytes of K and V per token over all layers and GPUs, 2 L H_kv h b_kv. */
SD_API double sd_cost_kv_per_token(const sd_model_spec *m);

/* The pair, its setting and the draft lengths to consider.  alpha is eq.
 * (4)'s i.i.d. acceptance; when acc is not NULL, E(N) is the product form
 * over acc[0..nacc-1] instead (no gamma may then exceed nacc) and alpha is
 * ignored; when alpha_context is not NULL, alpha at context S is the linear
 * interpolation of (alpha_context[i], alpha_value[i]), i < nalpha >= 2,
 * contexts strictly increasing, and S must lie within them; at a row's
 * context it is that row's alpha exactly. */
typedef struct {
    const sd_model_spec *target, *draft; /* the same pointer: self-speculation, one copy of the weights */
    const sd_hardware *hardware;
    sd_cost_params params;       /* the target's */
    sd_cost_params draft_params; /* the draft's (the same tp) */
    double draft_window;         /* the draft reads at most this many cached tokens; 0: all */
    double verify_tokens;        /* tokens verified per sequence per pass; 0: gamma + 1 */
    sd_loop_params loop;         /* the speculation loop's own time (loop.h); sd_loop_none(): the roofline alone */
    double proposal_rate;        /* the share of sequences that draft at a step, (0, 1]; 0 or 1: every one */
    double alpha;
    const double *acc;
    size_t nacc;
    const double *alpha_context, *alpha_value;
    size_t nalpha;
    const double *mean_length; /* when not NULL, E(N) as measured at gamma = 1..nmean (NaN: not measured), */
    size_t nmean;              /* in place of alpha and acc; a gamma not measured is not considered */
    const double *gammas; /* ngammas whole draft lengths >= 1 */
    size_t ngammas;
} sd_roofline_request;

/* A TSV file with columns gamma (whole, in [1, 256], each once) and
 * mean_length (E(N) at that gamma, the bonus token included, in [1, gamma
 * + 1]), at least one row: a published curve of mean accepted length per
 * draft length, as benchmark suites give them.  Into a malloc'd array of
 * *n = the largest gamma values (free() it), E(N) at gamma g in [g - 1],
 * NaN where the file has no row, as a request's mean_length.  SD_EINVAL
 * names the file, line and column; SD_ENOMEM.  On failure nothing is
 * written or held. */
SD_API sd_status sd_cost_load_mean_lengths(const char *path, double **mean_length, size_t *n, sd_error *err);

/* A request with the default cost parameters for both models, no loop
 * time (sd_loop_none) and nothing else set.  Never fails. */
SD_API sd_roofline_request sd_cost_roofline_defaults(void);

/* The acceptance rate the request gives at context S (alpha, or the
 * interpolated table).  NaN when acc or mean_length is set. */
SD_API double sd_cost_alpha_at(const sd_roofline_request *rq, double context);

/* A TSV file with columns context (whole tokens, >= 0) and alpha (in
 * [0, 1]), at least 2 rows with contexts strictly increasing, into two
 * malloc'd arrays of *n values (release with free()), as a request's
 * alpha_context and alpha_value.  SD_EINVAL names the file, line and
 * column; SD_ENOMEM.  On failure nothing is written or held. */
SD_API sd_status sd_cost_load_alpha_by_context(const char *path, double **context, double **alpha, size_t *n,
                                               sd_error *err);

/* 1 when the weights of both models and their KV caches for B sequences of
 * S + gamma + 1 tokens fit in the tp GPUs' memory, else 0.  A separate
 * draft keeps its own cache (at most its window); a self-speculative draft
 * (draft == target) shares the target's weights and cache, each counted
 * once, and keeps only its window's own cache when it has one. */
SD_API int sd_cost_fits(const sd_roofline_request *rq, double batch, double context, double gamma);

/* The best draft length at one (batch, context). */
typedef struct {
    double gamma_opt;                 /* 0: no gamma in the list beats plain decoding */
    double improvement_opt;           /* 1 when gamma_opt = 0 */
    double alpha;                     /* the acceptance used (the mean for acc) */
    double c_effective;               /* t_draft(B, 1, S_d) / t_target(B, 1, S) */
    double verify_cost_ratio;         /* t_target(B, T_v, S) / t_target(B, 1, S) at g = gamma_opt (at 1 when gamma_opt is 0) */
    double tokens_per_second;         /* all B sequences together, with speculation at gamma_opt */
    double tokens_per_second_baseline;/* all B sequences, plain decoding: B / t_target(B, 1, S) */
    int compute_bound;                /* the target's verification pass at g is compute-bound */
    int fits;                         /* weights and KV caches (both models, gamma_max) fit */
} sd_roofline_point;

/* One speculative iteration at draft length gamma (whole, >= 1) with en =
 * E(N) tokens, by part (loop.h's T_g; the parts add up to total in this
 * order), and the plain step T_0 it is held against. */
typedef struct {
    double plain;          /* T_0 = t_T(B, 1, S) + B h */
    double draft;          /* gamma t_D(B, 1, S_d) */
    double draft_loop;     /* gamma (tau_d + B tau_ds) */
    double catch_up;       /* kappa [t_D(B, E(N), S_d) - t_D(B, 1, S_d)] */
    double verify;         /* t_T(B, T_v, S) */
    double verify_premium; /* p t_T(B, T_v, S) */
    double iteration;      /* tau_i + B T_v tau_it */
    double host;           /* B h */
    double total;          /* T_g */
} sd_cost_iteration;

SD_API void sd_cost_iteration_time(const sd_roofline_request *rq, double batch, double context, double gamma,
                                   double en, sd_cost_iteration *out);

/* eq. (10)'s two terms at one (batch, context, gamma) with en = E(N)
 * tokens an iteration: c_effective and verify_cost_ratio as
 * sd_cost_roofline takes them (loop.h).  en only prices the catch-up pass
 * (1: none). */
SD_API void sd_cost_iteration_ratios(const sd_roofline_request *rq, double batch, double context, double gamma,
                                     double en, double *c_effective, double *verify_cost_ratio);

/* E(N) at draft length gamma as sd_cost_roofline takes it: measured
 * (mean_length; NaN where not measured), the product form over acc, or eq.
 * (4) at the acceptance at context S. */
SD_API double sd_cost_expected_tokens(const sd_roofline_request *rq, double context, double gamma);

/* T_0: the plain decoding step a speed-up is held against, t_T(B, 1, S) +
 * B h (loop.h). */
SD_API double sd_cost_plain_time(const sd_roofline_request *rq, double batch, double context);

/* Evaluates improvement(gamma) = E(N) / (gamma c_eff + verify_cost_ratio)
 * at one (batch, context) for each requested gamma and keeps the best in
 * *out, every field of which it writes.  A gamma above nacc gets the E(N)
 * of nacc drafts.  An alpha or acc entry outside [0, 1] makes E(N) NaN,
 * which no gamma counts as beating plain decoding (gamma_opt 0). */
SD_API void sd_cost_roofline(const sd_roofline_request *rq, double batch, double context, sd_roofline_point *out);

/* The break-even batch at one context: the first of batches[0..nb-1]
 * (ascending) from which on no listed gamma beats plain decoding, so that
 * speculation should be switched off; NaN when it still helps at the last
 * listed batch, or when nb = 0. */
SD_API double sd_cost_breakeven(const sd_roofline_request *rq, const double *batches, size_t nb, double context);

/* A draft-length schedule at one context: consecutive batches sharing the
 * best gamma form one bucket [batch_from, batch_to] (gamma 0: do not
 * speculate).  out, the caller's, holds at least nb buckets; returns how
 * many it wrote (0 for nb = 0). */
typedef struct {
    double batch_from, batch_to, gamma;
} sd_schedule_bucket;

SD_API size_t sd_cost_schedule(const sd_roofline_request *rq, const double *batches, size_t nb, double context,
                               sd_schedule_bucket *out);

/* Seconds of one iteration drafting tree t (tree.h) at batch B and context S: one draft
 * pass a level d = 1 .. depth over the nodes of level d - 1 that have children (the root,
 * one token, for d = 1) at the draft's context (at most draft_window), then one target
 * pass verifying t's nodes + 1 tokens a sequence (tree attention costed as a pass over
 * that many new tokens).  The loop's terms (loop.h) apply as to a chain of depth draft
 * steps verifying that many tokens, the catch-up pass over en tokens (the tree's E(N)).
 * *draft_seconds, when not NULL, gets the draft steps' part.  rq's gammas, alpha and acc
 * are not read. */
SD_API double sd_cost_tree_time(const sd_roofline_request *rq, const sd_tree *t, double batch, double context,
                                double en, double *draft_seconds);

#endif

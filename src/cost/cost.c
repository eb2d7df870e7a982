/* cost.c -- the roofline cost model, operator by operator or per pass (see cost.h). */
#include "specdec/cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_interp.h>

#include "specdec/theory.h"
#include "records.h"

static const char *const GRANULARITIES[] = { [SD_GRANULARITY_OPERATOR] = "operator", [SD_GRANULARITY_PASS] = "pass",
                                             NULL };

const char *const *sd_cost_granularity_names(void) { return GRANULARITIES; }

sd_cost_params sd_cost_defaults(void)
{
    return (sd_cost_params){ .eta_flops = 0.5, .eta_bw = 0.8, .overhead = 20e-6, .launch = 0.0, .launch_eager = 0.0,
                             .hop_latency = -1.0, .graphs = 1, .tp = 1.0, .granularity = SD_GRANULARITY_OPERATOR };
}

sd_roofline_request sd_cost_roofline_defaults(void)
{
    return (sd_roofline_request){ .params = sd_cost_defaults(), .draft_params = sd_cost_defaults(), .alpha = NAN,
                                  .loop = sd_loop_none() };
}

double sd_cost_kv_per_token(const sd_model_spec *m)
{
    return 2.0 * m->layers * m->kv_heads * m->head_dim * sd_dtype_bytes(m->kv);
}

/* u(M) = 1 - (1 - k/E)^M: the expected share of experts M tokens touch (1 when dense). */
static double experts_touched(const sd_model_spec *m, double tokens)
{
    if (m->experts <= 1.0 || m->experts_active >= m->experts)
        return 1.0;
    return -expm1(tokens * log1p(-m->experts_active / m->experts));
}

/* One operator's roofline time, into op. */
static void roof(sd_cost_op *op, const char *name, double count, double flops, double bytes, double peak,
                 const sd_hardware *h, const sd_cost_params *cp)
{
    double tc = count * flops / (cp->eta_flops * peak), tm = count * bytes / (cp->eta_bw * h->bandwidth);
    *op = (sd_cost_op){ .name = name, .count = count, .flops = count * flops, .bytes = count * bytes,
                        .seconds = fmax(tc, tm), .compute_bound = tc > tm };
}

/* The two all-reduces per layer of M d activations, as rings over N GPUs. */
static double all_reduce_seconds(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp,
                                 double tokens, double *bytes)
{
    const double tp = cp->tp, hop = cp->hop_latency >= 0.0 ? cp->hop_latency : h->link_latency;
    *bytes = 0.0;
    if (tp <= 1.0)
        return 0.0;
    double ring = tokens * m->d_model * sd_dtype_bytes(m->act);
    *bytes = 2.0 * m->layers * 2.0 * (tp - 1.0) / tp * ring;
    return 2.0 * m->layers * (2.0 * (tp - 1.0) / tp * ring / h->link_bandwidth + tp * hop);
}

/* The kernels each operator launches per run (cost.h), read off vLLM's
 * forward passes: LlamaDecoderLayer and MixtralDecoderLayer with their
 * attention and MLP modules, and the fused MoE path. */
static const struct {
    const char *op;
    double dense, experts; /* kernels per run, dense model and mixture of experts */
    int per_layer;         /* run once per layer (else once per pass) */
    int head;              /* a drafter head's only (fuse > 0) */
} KERNELS[] = {
    { .op = "embedding", .dense = 1, .experts = 1, .per_layer = 0 },
    { .op = "qkv_proj", .dense = 2, .experts = 2, .per_layer = 1 },  /* QKV GEMM, rotary embedding */
    { .op = "attention", .dense = 2, .experts = 2, .per_layer = 1 }, /* cache write, attention */
    { .op = "out_proj", .dense = 1, .experts = 1, .per_layer = 1 },
    { .op = "router", .dense = 0, .experts = 2, .per_layer = 1 },    /* gate GEMM, top-k softmax */
    { .op = "mlp", .dense = 2, .experts = 3, .per_layer = 1 },       /* gate-up and down GEMMs (+ expert alignment) */
    { .op = "norm_act", .dense = 3, .experts = 3, .per_layer = 1 },  /* two fused add-RMSNorms, SiLU-and-multiply */
    { .op = "lm_head", .dense = 2, .experts = 2, .per_layer = 0 },   /* final RMSNorm, GEMM */
    { .op = "fc", .dense = 1, .experts = 1, .per_layer = 0, .head = 1 }, /* a drafter head's feature fc (last) */
};
#define NKERNELS (sizeof KERNELS / sizeof KERNELS[0])

double sd_cost_kernels(const sd_model_spec *m, const sd_cost_params *cp)
{
    const int moe = m->experts > 1.0;
    double k = cp->tp > 1.0 ? 2.0 * m->layers : 0.0; /* one kernel per all-reduce */
    for (size_t i = 0; i < NKERNELS - (m->fuse > 0.0 ? 0 : 1); i++) /* a head's row last: only a head runs it */
        k += (moe ? KERNELS[i].experts : KERNELS[i].dense) * (KERNELS[i].per_layer ? m->layers : 1.0);
    return k;
}

/* What the operators read off the groups of a pass: M new tokens in all, Ml
 * of them with logits; attention's FLOPs and KV tokens summed group by
 * group (each group's B T (S + (T + 1) / 2) causal term and B (S + T)). */
typedef struct {
    double M, Ml, att, kv;
} group_sums;

static group_sums sums(const sd_cost_group *g, size_t ng)
{
    group_sums u = { 0.0, 0.0, 0.0, 0.0 };
    for (size_t i = 0; i < ng; i++) {
        const double B = g[i].sequences, T = g[i].tokens, S = g[i].context;
        u.M += B * T;
        u.Ml += B * g[i].logits;
        u.att += B * T * (S + (T + 1) / 2);
        u.kv += B * (S + T);
    }
    return u;
}

/* The operators of one layer, then embedding and LM head (cost.h). */
static size_t operator_ops(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp,
                           const group_sums *u, sd_cost_op *ops)
{
    const double N = cp->tp, M = u->M, Ml = u->Ml, d = m->d_model, hd = m->head_dim, L = m->layers;
    const double Hq = m->heads / N, Hk = fmax(m->kv_heads / N, 1.0), f = m->d_ff / N;
    const double bw = sd_dtype_bytes(m->weight), bkv = sd_dtype_bytes(m->kv), ba = sd_dtype_bytes(m->act);
    const double E = m->experts, k = m->experts_active, qkv = (Hq + 2.0 * Hk) * hd;
    const double Fc = h->flops[m->compute], Fa = h->flops[m->act];
    size_t n = 0;
    roof(&ops[n++], "embedding", 1, 0.0, M * d * bw / N + M * d * ba, Fa, h, cp);
    if (m->fuse > 0.0) /* a drafter head's fc: fuse d features into d (presets.h), replicated on every GPU */
        roof(&ops[n++], "fc", 1, 2 * M * m->fuse * d * d, m->fuse * d * d * bw + M * m->fuse * d * ba + M * d * ba, Fc,
             h, cp);
    roof(&ops[n++], "qkv_proj", L, 2 * M * d * qkv, d * qkv * bw + M * d * ba + M * qkv * ba, Fc, h, cp);
    roof(&ops[n++], "attention", L, 4 * Hq * hd * u->att, 2 * Hk * hd * u->kv * bkv + 2 * M * Hq * hd * ba, Fa, h, cp);
    roof(&ops[n++], "out_proj", L, 2 * M * Hq * hd * d, Hq * hd * d * bw + M * Hq * hd * ba + M * d * ba, Fc, h, cp);
    if (E > 1.0)
        roof(&ops[n++], "router", L, 2 * M * d * E, d * E * bw + M * d * ba + M * E * ba, Fc, h, cp);
    roof(&ops[n++], "mlp", L, 6 * M * k * d * f, 3 * d * f * bw * E * experts_touched(m, M) + M * k * (2 * d + 3 * f) * ba,
         Fc, h, cp);
    roof(&ops[n++], "norm_act", L, 10 * M * d + 4 * M * k * f, 2 * d * bw + 10 * M * d * ba + 3 * M * k * f * ba, Fa, h,
         cp);
    roof(&ops[n++], "lm_head", 1, 4 * M * d + 2 * Ml * d * m->vocab / N, d * m->vocab * bw / N + Ml * d * ba +
         Ml * m->vocab * ba / N, Fc, h, cp);
    return n;
}

/* Parameters a pass over M tokens reads: all of a dense model; for experts
 * the shared part and u(M) of the experts' part. */
static double params_read(const sd_model_spec *m, double tokens)
{
    if (m->experts <= 1.0 || m->experts_active >= m->experts)
        return m->params_total;
    double share = m->experts_active / m->experts;
    double shared = fmax((m->params_active - share * m->params_total) / (1.0 - share), 0.0);
    return shared + (m->params_total - shared) * experts_touched(m, tokens);
}

/* The whole pass as one roofline, tp GPUs ideal (cost.h). */
static void pass_op(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp, const group_sums *u,
                    sd_cost_op *op)
{
    double flops = 2.0 * m->params_active * u->M + 4.0 * m->layers * m->heads * m->head_dim * u->att;
    double bytes = params_read(m, u->M) * sd_dtype_bytes(m->weight) + sd_cost_kv_per_token(m) * u->kv;
    roof(op, "pass", 1, flops / cp->tp, bytes / cp->tp, h->flops[m->compute], h, cp); /* per GPU, N ideal */
}

size_t sd_cost_breakdown_groups(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp,
                                const sd_cost_group *g, size_t ng, sd_cost_op *ops)
{
    size_t k;
    group_sums u = sums(g, ng);
    if (m->layers <= 0.0) { /* no model (sd_presets_ngram): no pass */
        ops[0] = (sd_cost_op){ .name = "lookup", .count = 0 };
        return 1;
    }
    if (cp->granularity == SD_GRANULARITY_PASS) {
        pass_op(m, h, cp, &u, &ops[0]);
        k = 1;
    } else
        k = operator_ops(m, h, cp, &u, ops);
    double bytes, t = all_reduce_seconds(m, h, cp, u.M, &bytes), kernels = sd_cost_kernels(m, cp);
    if (cp->tp > 1.0)
        ops[k++] = (sd_cost_op){ .name = "all_reduce", .count = 2.0 * m->layers, .bytes = bytes, .seconds = t };
    ops[k++] = (sd_cost_op){ .name = "launch", .count = kernels,
                             .seconds = kernels * (cp->graphs ? cp->launch : cp->launch_eager) };
    ops[k++] = (sd_cost_op){ .name = "overhead", .count = 1, .seconds = cp->overhead };
    return k;
}

double sd_cost_groups_time(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp,
                           const sd_cost_group *g, size_t ng, int *compute_bound)
{
    sd_cost_op ops[SD_COST_MAX_OPS];
    size_t k = sd_cost_breakdown_groups(m, h, cp, g, ng, ops);
    double total = 0.0, compute = 0.0, memory = 0.0;
    for (size_t i = 0; i < k; i++) {
        total += ops[i].seconds;
        if (ops[i].flops > 0.0 || ops[i].bytes > 0.0)
            *(ops[i].compute_bound ? &compute : &memory) += ops[i].seconds;
    }
    if (compute_bound != NULL)
        *compute_bound = compute > memory;
    return total;
}

size_t sd_cost_breakdown(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp, double batch,
                         double n, double context, sd_cost_op *ops)
{
    const sd_cost_group g = { .sequences = batch, .tokens = n, .context = context, .logits = n };
    return sd_cost_breakdown_groups(m, h, cp, &g, 1, ops);
}

double sd_cost_step_time(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp, double batch,
                         double n, double context, int *compute_bound)
{
    const sd_cost_group g = { .sequences = batch, .tokens = n, .context = context, .logits = n };
    return sd_cost_groups_time(m, h, cp, &g, 1, compute_bound);
}

/* ---- the pair ------------------------------------------------------------------------- */

double sd_cost_alpha_at(const sd_roofline_request *rq, double context)
{
    if (rq->acc != NULL || rq->mean_length != NULL)
        return NAN;
    if (rq->alpha_context == NULL)
        return rq->alpha;
    const double *x = rq->alpha_context, *y = rq->alpha_value;
    size_t n = rq->nalpha;
    if (!(context >= x[0] && context <= x[n - 1]))
        return NAN;
    size_t i = gsl_interp_bsearch(x, context, 0, n - 1);
    if (context <= x[i]) /* x[i] <= context: at a row, its value exactly (interpolation may round it) */
        return y[i];
    if (context >= x[n - 1])
        return y[n - 1];
    gsl_interp *in = gsl_interp_alloc(gsl_interp_linear, n);
    double a = NAN;
    if (in != NULL && gsl_interp_init(in, x, y, n) == 0)
        a = gsl_interp_eval(in, x, y, context, NULL);
    gsl_interp_free(in);
    return a;
}

/* The draft reads at most its window of the cache. */
static double draft_context(const sd_roofline_request *rq, double context)
{
    return rq->draft_window > 0.0 ? fmin(context, rq->draft_window) : context;
}

int sd_cost_fits(const sd_roofline_request *rq, double batch, double context, double gamma)
{
    const sd_model_spec *t = rq->target, *d = rq->draft;
    const double tokens = context + gamma + 1.0;
    double weights = t->params_total * sd_dtype_bytes(t->weight), kv = batch * tokens * sd_cost_kv_per_token(t);
    if (d != t) {
        weights += d->params_total * sd_dtype_bytes(d->weight);
        kv += batch * draft_context(rq, tokens) * sd_cost_kv_per_token(d);
    } else if (rq->draft_window > 0.0) /* self-speculation: only a windowed draft keeps a cache of its own */
        kv += batch * draft_context(rq, tokens) * sd_cost_kv_per_token(d);
    return weights + kv <= rq->hardware->memory * rq->params.tp;
}

/* E(N) at draft length g and acceptance alpha (or the acc vector, or as measured). */
static double expected_tokens(const sd_roofline_request *rq, double alpha, double g)
{
    if (rq->mean_length != NULL)
        return g >= 1.0 && g <= (double)rq->nmean ? rq->mean_length[(size_t)g - 1] : NAN;
    if (rq->acc != NULL)
        return sd_theory_expected_tokens_vec(rq->acc, g <= (double)rq->nacc ? (size_t)g : rq->nacc);
    return sd_theory_expected_tokens(alpha, g);
}

/* The verify pass's tokens at draft length g. */
static double verify_tokens(const sd_roofline_request *rq, double g)
{
    return rq->verify_tokens > 0.0 ? rq->verify_tokens : g + 1.0;
}

/* The share of sequences that draft at a step (proposal_rate; 0: all). */
static double rate(const sd_roofline_request *rq)
{
    return rq->proposal_rate > 0.0 ? rq->proposal_rate : 1.0;
}

/* Tokens a sequence emits an iteration: E(N) where it drafted, 1 where it did not. */
static double emitted(const sd_roofline_request *rq, double en)
{
    return rate(rq) * en + (1.0 - rate(rq));
}

/* The verify pass: the drafting share of the batch over T_v tokens a sequence, the rest over one
 * (a plain decode step); rate 1: exactly t_T(B, T_v, S).  *tokens, when not NULL, gets its tokens. */
static double verify_pass(const sd_roofline_request *rq, double batch, double context, double tv, double *tokens,
                          int *compute_bound)
{
    const double r = rate(rq);
    if (r >= 1.0) { /* every sequence drafts: one group */
        if (tokens != NULL)
            *tokens = batch * tv;
        return sd_cost_step_time(rq->target, rq->hardware, &rq->params, batch, tv, context, compute_bound);
    }
    const sd_cost_group g[2] = { { .sequences = batch * r, .tokens = tv, .context = context, .logits = tv },
                                 { .sequences = batch * (1.0 - r), .tokens = 1.0, .context = context, .logits = 1.0 } };
    if (tokens != NULL)
        *tokens = batch * r * tv + batch * (1.0 - r);
    return sd_cost_groups_time(rq->target, rq->hardware, &rq->params, g, 2, compute_bound);
}

/* T_g's parts at draft length g with en tokens an iteration, td = t_D(B, 1, S_d) (loop.h):
 * every field of *out but plain and total. */
static void loop_parts(const sd_roofline_request *rq, double batch, double context, double g, double en, double td,
                       sd_cost_iteration *out, int *compute_bound)
{
    const sd_loop_params *lp = &rq->loop;
    double tokens, verify = verify_pass(rq, batch, context, verify_tokens(rq, g), &tokens, compute_bound);
    *out = (sd_cost_iteration){
        .draft = g * td,
        .draft_loop = g * (lp->draft_step + batch * lp->draft_step_seq),
        .catch_up = lp->catch_up ? sd_cost_step_time(rq->draft, rq->hardware, &rq->draft_params, batch, en,
                                                     draft_context(rq, context), NULL) - td
                                 : 0.0,
        .verify = verify,
        .verify_premium = verify * lp->verify_premium,
        .iteration = lp->iteration + tokens * lp->iteration_token,
        .host = batch * lp->host_seq,
    };
}

/* T_g less its draft steps: the verify pass with its premium, the iteration's own time, the
 * host's and the catch-up pass.  Every loop term 0: exactly t_T(B, T_v, S) (each part 0). */
static double verify_part(const sd_roofline_request *rq, double batch, double context, double g, double en,
                          double td, int *compute_bound)
{
    sd_cost_iteration p;
    loop_parts(rq, batch, context, g, en, td, &p, compute_bound);
    return p.verify + p.verify_premium + p.iteration + p.host + p.catch_up;
}

void sd_cost_iteration_time(const sd_roofline_request *rq, double batch, double context, double gamma, double en,
                            sd_cost_iteration *out)
{
    double td = sd_cost_step_time(rq->draft, rq->hardware, &rq->draft_params, batch, 1.0, draft_context(rq, context),
                                  NULL);
    loop_parts(rq, batch, context, gamma, en, td, out, NULL);
    out->plain = sd_cost_plain_time(rq, batch, context);
    out->total = out->draft + out->draft_loop + out->catch_up + out->verify + out->verify_premium + out->iteration +
                 out->host;
}

void sd_cost_iteration_ratios(const sd_roofline_request *rq, double batch, double context, double gamma, double en,
                              double *c_effective, double *verify_cost_ratio)
{
    const sd_loop_params *lp = &rq->loop;
    double t0 = sd_cost_step_time(rq->target, rq->hardware, &rq->params, batch, 1.0, context, NULL) +
                batch * lp->host_seq;
    double td = sd_cost_step_time(rq->draft, rq->hardware, &rq->draft_params, batch, 1.0, draft_context(rq, context),
                                  NULL);
    *c_effective = (td + lp->draft_step + batch * lp->draft_step_seq) / t0;
    *verify_cost_ratio = verify_part(rq, batch, context, gamma, en, td, NULL) / t0;
}

void sd_cost_roofline(const sd_roofline_request *rq, double batch, double context, sd_roofline_point *out)
{
    const sd_loop_params *lp = &rq->loop;
    int cb;
    double t1 = sd_cost_step_time(rq->target, rq->hardware, &rq->params, batch, 1.0, context, &cb);
    double td = sd_cost_step_time(rq->draft, rq->hardware, &rq->draft_params, batch, 1.0, draft_context(rq, context),
                                  NULL);
    double t0 = t1 + batch * lp->host_seq, step = td + lp->draft_step + batch * lp->draft_step_seq;
    double alpha = sd_cost_alpha_at(rq, context), gmax = 1.0;
    *out = (sd_roofline_point){ .gamma_opt = 0.0, .improvement_opt = 1.0, .alpha = alpha, .c_effective = step / t0,
                                .tokens_per_second = batch / t0, .tokens_per_second_baseline = batch / t0,
                                .compute_bound = cb, .fits = 0 };
    for (size_t i = 0; i < rq->ngammas; i++) {
        double g = rq->gammas[i], en = expected_tokens(rq, alpha, g);
        gmax = fmax(gmax, g);
        double ratio = verify_part(rq, batch, context, g, en, td, NULL) / t0;
        double f = emitted(rq, en) / (g * out->c_effective + ratio);
        if (f > out->improvement_opt) {
            out->gamma_opt = g;
            out->improvement_opt = f;
        }
    }
    double g = out->gamma_opt > 0.0 ? out->gamma_opt : 1.0;
    out->verify_cost_ratio = verify_part(rq, batch, context, g, expected_tokens(rq, alpha, g), td,
                                         &out->compute_bound) / t0;
    if (out->gamma_opt <= 0.0) /* no speculation: the plain pass decides the bound */
        out->compute_bound = cb;
    out->tokens_per_second = out->tokens_per_second_baseline * out->improvement_opt;
    out->fits = sd_cost_fits(rq, batch, context, gmax);
}

double sd_cost_breakeven(const sd_roofline_request *rq, const double *batches, size_t nb, double context)
{
    double breakeven = NAN;
    for (size_t i = 0; i < nb; i++) {
        sd_roofline_point r;
        sd_cost_roofline(rq, batches[i], context, &r);
        if (r.gamma_opt > 0.0)
            breakeven = NAN; /* speculation helps again: the switch-off point lies further on */
        else if (isnan(breakeven))
            breakeven = batches[i];
    }
    return breakeven;
}

size_t sd_cost_schedule(const sd_roofline_request *rq, const double *batches, size_t nb, double context,
                        sd_schedule_bucket *out)
{
    size_t k = 0;
    for (size_t i = 0; i < nb; i++) {
        sd_roofline_point r;
        sd_cost_roofline(rq, batches[i], context, &r);
        if (k > 0 && fabs(out[k - 1].gamma - r.gamma_opt) < 0.5) {
            out[k - 1].batch_to = batches[i];
            continue;
        }
        out[k++] = (sd_schedule_bucket){ .batch_from = batches[i], .batch_to = batches[i], .gamma = r.gamma_opt };
    }
    return k;
}

/* ---- acceptance by context ----------------------------------------------------------- */

typedef struct {
    double context, alpha;
} alpha_row;

sd_status sd_cost_load_alpha_by_context(const char *path, double **context, double **alpha, size_t *n, sd_error *err)
{
    static const sd_records_col cols[] = {
        { .col = "context", .kind = SD_RECORDS_NUMBER, .offset = offsetof(alpha_row, context),
          .min = 0, .max = 16777216, .scale = 1 },
        { .col = "alpha", .kind = SD_RECORDS_NUMBER, .offset = offsetof(alpha_row, alpha),
          .min = 0, .max = 1, .scale = 1 },
    };
    void *rec;
    size_t rows;
    const sd_records_layout layout = { cols, sizeof cols / sizeof cols[0], sizeof(alpha_row), (size_t)-1 };
    sd_status st = sd_records_load(path, &layout, &rec, &rows, err);
    if (st != SD_OK)
        return st;
    alpha_row *r = rec;
    double *c = malloc((rows ? rows : 1) * sizeof *c), *a = malloc((rows ? rows : 1) * sizeof *a);
    if (c == NULL || a == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    else if (rows < 2)
        st = sd_status_fail(err, SD_EINVAL, "%s: %zu rows; at least 2 are needed to interpolate", path, rows);
    for (size_t i = 0; i < rows && st == SD_OK; i++) {
        if (i > 0 && !(r[i].context > r[i - 1].context))
            st = sd_status_fail(err, SD_EINVAL, "%s: row %zu: context %.17g does not increase (the rows must be sorted "
                                "by context, each once)", path, i + 1, r[i].context);
        c[i] = r[i].context;
        a[i] = r[i].alpha;
    }
    free(rec);
    if (st != SD_OK) {
        free(c);
        free(a);
        return st;
    }
    *context = c;
    *alpha = a;
    *n = rows;
    return SD_OK;
}

typedef struct {
    double gamma, mean_length;
    size_t line;
} mean_row;

sd_status sd_cost_load_mean_lengths(const char *path, double **mean_length, size_t *n, sd_error *err)
{
    static const sd_records_col cols[] = {
        { .col = "gamma", .kind = SD_RECORDS_NUMBER, .offset = offsetof(mean_row, gamma), .min = 1, .max = 256,
          .whole = 1, .scale = 1 },
        { .col = "mean_length", .kind = SD_RECORDS_NUMBER, .offset = offsetof(mean_row, mean_length), .min = 1,
          .max = 257, .scale = 1 },
    };
    const sd_records_layout layout = { cols, 2, sizeof(mean_row), offsetof(mean_row, line) };
    void *rec;
    size_t rows, top = 0;
    sd_status st = sd_records_load(path, &layout, &rec, &rows, err);
    if (st != SD_OK)
        return st;
    mean_row *r = rec;
    for (size_t i = 0; i < rows; i++)
        top = (size_t)r[i].gamma > top ? (size_t)r[i].gamma : top;
    double *en = malloc((top ? top : 1) * sizeof *en);
    if (en == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    else if (rows == 0)
        st = sd_status_fail(err, SD_EINVAL, "%s: no rows; give gamma and mean_length for at least one gamma", path);
    for (size_t g = 0; st == SD_OK && g < top; g++)
        en[g] = NAN;
    for (size_t i = 0; i < rows && st == SD_OK; i++) {
        size_t g = (size_t)r[i].gamma;
        if (!isnan(en[g - 1]))
            st = sd_status_fail(err, SD_EINVAL, "%s:%zu: gamma: %zu is given twice", path, r[i].line, g);
        else if (r[i].mean_length > (double)g + 1.0)
            st = sd_status_fail(err, SD_EINVAL, "%s:%zu: mean_length: %.17g is above gamma + 1 = %zu, the most an "
                                "iteration of %zu drafts emits", path, r[i].line, r[i].mean_length, g + 1, g);
        else
            en[g - 1] = r[i].mean_length;
    }
    free(rec);
    if (st != SD_OK) {
        free(en);
        return st;
    }
    *mean_length = en;
    *n = top;
    return SD_OK;
}

double sd_cost_expected_tokens(const sd_roofline_request *rq, double context, double gamma)
{
    return expected_tokens(rq, sd_cost_alpha_at(rq, context), gamma);
}

double sd_cost_plain_time(const sd_roofline_request *rq, double batch, double context)
{
    return sd_cost_step_time(rq->target, rq->hardware, &rq->params, batch, 1.0, context, NULL) +
           batch * rq->loop.host_seq;
}

double sd_cost_tree_time(const sd_roofline_request *rq, const sd_tree *t, double batch, double context, double en,
                         double *draft_seconds)
{
    /* the tokens of each draft pass: level d's pass runs over level d - 1's nodes with children */
    double tokens[SD_TREE_MAX_DEPTH + 1] = { 0 };
    unsigned char has_kids[SD_TREE_MAX_NODES] = { 0 };
    size_t depth = sd_tree_depth(t);
    for (size_t i = 0; i < t->n; i++)
        if (t->parent[i] >= 0)
            has_kids[t->parent[i]] = 1;
    if (t->n > 0)
        tokens[1] = 1.0; /* the root */
    for (size_t i = 0; i < t->n; i++)
        if (has_kids[i])
            tokens[t->depth[i] + 1] += 1.0;
    const sd_loop_params *lp = &rq->loop;
    double draft = 0.0, sd = draft_context(rq, context), td = 0.0;
    for (size_t d = 1; d <= depth; d++) {
        double step = sd_cost_step_time(rq->draft, rq->hardware, &rq->draft_params, batch, tokens[d], sd, NULL);
        td = d == 1 ? step : td;
        draft += step + lp->draft_step + batch * lp->draft_step_seq;
    }
    if (draft_seconds != NULL)
        *draft_seconds = draft;
    sd_roofline_request one = *rq;
    one.verify_tokens = (double)t->n + 1.0; /* tree attention: a pass over the tree's nodes and the root */
    return draft + verify_part(&one, batch, context, (double)depth, depth > 0 ? en : 1.0,
                               depth > 0 ? td : 0.0, NULL);
}

/* cmd_roofline_passes.c -- `specdec roofline --breakdown`: one pass's operators (FLOPs, bytes,
 * time, bound) for the target and the draft at each (batch, context), with chunked prefill's mixed
 * step (--prefill); and the presets (--list-models, --list-hardware). */
#include "cmd_roofline_impl.h"

#include <math.h>
#include <string.h>

const sd_domain ROOFLINE_PREFILL = { "--prefill", 1, 16777216, 1 };
const sd_domain ROOFLINE_PREFILL_CACHED = { "--prefill-cached", 0, 16777216, 1 };

sd_status roofline_list_models(const sd_presets *p, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "name", "params", "params_active", "layers", "d_model", "heads", "kv_heads",
                                        "head_dim", "d_ff", "vocab", "experts", "experts_active", "weight", "kv",
                                        "act", "compute", "kv_bytes_per_token" };
    sd_status st = sd_command_table(17, cols, out, err);
    for (size_t i = 0; i < p->nmodels && st == SD_OK; i++) {
        const sd_model_spec *m = &p->models[i];
        const sd_cell row[] = { sd_text(m->name), sd_real(m->params_total), sd_real(m->params_active),
                                sd_real(m->layers), sd_real(m->d_model), sd_real(m->heads), sd_real(m->kv_heads),
                                sd_real(m->head_dim), sd_real(m->d_ff), sd_real(m->vocab), sd_real(m->experts),
                                sd_real(m->experts_active), sd_text(sd_dtype_name(m->weight)),
                                sd_text(sd_dtype_name(m->kv)), sd_text(sd_dtype_name(m->act)),
                                sd_text(sd_dtype_name(m->compute)), sd_real(sd_cost_kv_per_token(m)) };
        st = sd_table_add(*out, row, err);
    }
    return st;
}

sd_status roofline_list_hardware(const sd_presets *p, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "name",          "tflops_bf16", "tflops_fp16", "tflops_fp8",
                                        "tflops_int8",   "tflops_fp4",  "bandwidth_tbs", "memory_gb",
                                        "link_gbs",      "link_latency_us", "bf16_flops_per_byte" };
    static const sd_dtype types[] = { SD_BF16, SD_FP16, SD_FP8, SD_INT8, SD_FP4 };
    sd_status st = sd_command_table(11, cols, out, err);
    for (size_t i = 0; i < p->nhardware && st == SD_OK; i++) {
        const sd_hardware *h = &p->hardware[i];
        sd_cell row[11] = { sd_text(h->name) };
        for (int k = 0; k < 5; k++)
            row[1 + k] = h->flops[types[k]] > 0 ? sd_real(h->flops[types[k]] / 1e12) : sd_text("-");
        row[6] = sd_real(h->bandwidth / 1e12);
        row[7] = sd_real(h->memory / 1e9);
        row[8] = sd_real(h->link_bandwidth / 1e9);
        row[9] = sd_real(h->link_latency * 1e6);
        row[10] = sd_real(h->flops[SD_BF16] / h->bandwidth);
        st = sd_table_add(*out, row, err);
    }
    return st;
}

/* --breakdown: one pass's operators for the target (T = --verify-tokens,
 * default 1) and the draft (T = 1, its window), at one (batch, context). */
/* The rows of one pass: each operator, then the total. */
static sd_status pass_rows(const char *role, const sd_model_spec *m, const sd_hardware *hw, const sd_cost_params *cp,
                           const sd_cost_group *g, size_t ng, sd_table *t, sd_error *err)
{
    sd_cost_op ops[SD_COST_MAX_OPS];
    size_t k = sd_cost_breakdown_groups(m, hw, cp, g, ng, ops);
    int cb;
    double total = sd_cost_groups_time(m, hw, cp, g, ng, &cb), flops = 0, bytes = 0;
    sd_status st = SD_OK;
    for (size_t i = 0; i < k && st == SD_OK; i++) {
        const char *bound = ops[i].flops > 0 || ops[i].bytes > 0 ? (ops[i].compute_bound ? "compute" : "memory") : "-";
        if (strcmp(ops[i].name, "all_reduce") == 0)
            bound = "link";
        const sd_cell row[] = { sd_text(role), sd_text(m->name), sd_int((long long)g[0].sequences),
                                sd_int((long long)g[0].context), sd_int((long long)g[0].tokens), sd_text(ops[i].name),
                                sd_real(ops[i].count), sd_real(ops[i].flops), sd_real(ops[i].bytes),
                                sd_real(ops[i].seconds), sd_real(total > 0.0 ? ops[i].seconds / total : 0.0), sd_text(bound) };
        st = sd_table_add(t, row, err);
        flops += ops[i].flops;
        bytes += ops[i].bytes;
    }
    /* the pass: every operator, t0 and communication together */
    const sd_cell row[] = { sd_text(role), sd_text(m->name), sd_int((long long)g[0].sequences),
                            sd_int((long long)g[0].context), sd_int((long long)g[0].tokens), sd_text("total"),
                            sd_real(1), sd_real(flops), sd_real(bytes), sd_real(total), sd_real(total > 0.0),
                            sd_text(total <= 0.0 ? "-" : cb ? "compute" : "memory") }; /* no model: no pass */
    return st == SD_OK ? sd_table_add(t, row, err) : st;
}

/* The loop's own time (loop.h) in one iteration at gamma = the verify tokens less one, or the
 * first --gamma: its parts beside the passes, each with its share of the iteration; nothing
 * when no engine profile applies. */
static sd_status loop_rows(const sd_roofline_request *rq, double batch, double ctx, sd_table *t, sd_error *err)
{
    const sd_loop_params *l = &rq->loop;
    if (sd_loop_is_none(l))
        return SD_OK;
    double g = rq->verify_tokens > 1 ? rq->verify_tokens - 1 : rq->ngammas > 0 ? rq->gammas[0] : 1;
    double en = sd_cost_expected_tokens(rq, ctx, g);
    if (!(en >= 1.0)) /* no acceptance given: the catch-up pass at its most, every draft accepted */
        en = g + 1;
    sd_cost_iteration it;
    sd_cost_iteration_time(rq, batch, ctx, g, en, &it);
    const struct {
        const char *name;
        double count, seconds;
    } parts[] = { { "draft_steps", g, it.draft_loop }, { "catch_up", l->catch_up, it.catch_up },
                  { "verify_premium", 1, it.verify_premium }, { "iteration", 1, it.iteration },
                  { "host", batch, it.host },
                  { "total", 1, it.draft_loop + it.catch_up + it.verify_premium + it.iteration + it.host } };
    sd_status st = SD_OK;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0] && st == SD_OK; i++) {
        const sd_cell row[] = { sd_text("loop"), sd_text("-"), sd_int((long long)batch), sd_int((long long)ctx),
                                sd_int((long long)(g + 1)), sd_text(parts[i].name), sd_real(parts[i].count),
                                sd_real(0), sd_real(0), sd_real(parts[i].seconds),
                                sd_real(parts[i].seconds / it.total), sd_text("-") };
        st = sd_table_add(t, row, err);
    }
    return st;
}

/* The target's and the draft's passes at (batch, ctx), and with a prompt chunk (prefill[0]
 * tokens after prefill[1] cached; none when prefill[0] is 0) the target's mixed pass. */
static sd_status breakdown_rows(const sd_roofline_request *rq, double batch, double ctx, const double *prefill,
                                sd_table *t, sd_error *err)
{
    double n = rq->verify_tokens > 0 ? rq->verify_tokens : 1.0;
    double s = rq->draft_window > 0 ? fmin(ctx, rq->draft_window) : ctx;
    const sd_cost_group target = { .sequences = batch, .tokens = n, .context = ctx, .logits = n };
    const sd_cost_group draft = { .sequences = batch, .tokens = 1, .context = s, .logits = 1 };
    const sd_cost_group mixed[2] = { target, { .sequences = 1, .tokens = prefill[0], .context = prefill[1], .logits = 1 } };
    sd_status st = pass_rows("target", rq->target, rq->hardware, &rq->params, &target, 1, t, err);
    if (st == SD_OK)
        st = pass_rows("draft", rq->draft, rq->hardware, &rq->draft_params, &draft, 1, t, err);
    if (st == SD_OK && prefill[0] > 0)
        st = pass_rows("target+prefill", rq->target, rq->hardware, &rq->params, mixed, 2, t, err);
    return st == SD_OK ? loop_rows(rq, batch, ctx, t, err) : st;
}

/* --breakdown: the operators of the passes at every (batch, context) of l[0] x l[1]. */
sd_status roofline_breakdown(const sd_command_args *a, const sd_roofline_request *rq, const sd_list *l,
                               sd_table **t, sd_error *err)
{
    static const char *const op_cols[] = { "role", "model", "batch", "context", "tokens", "operator", "count",
                                           "flops", "bytes", "seconds", "share", "bound" };
    double prefill[2] = { 0, 0 };
    sd_status st;
    if ((sd_command_args_given(a, "--prefill") && (st = sd_command_args_number(a, &ROOFLINE_PREFILL, &prefill[0], err)) != SD_OK) ||
        (sd_command_args_given(a, "--prefill-cached") &&
         (st = sd_command_args_number(a, &ROOFLINE_PREFILL_CACHED, &prefill[1], err)) != SD_OK) ||
        (st = sd_command_table(12, op_cols, t, err)) != SD_OK)
        return st;
    for (size_t j = 0; j < l[1].n && st == SD_OK; j++)
        for (size_t i = 0; i < l[0].n && st == SD_OK; i++)
            st = breakdown_rows(rq, l[0].v[i], l[1].v[j], prefill, *t, err);
    if (st == SD_OK && !sd_loop_is_none(&rq->loop))
        st = sd_table_note(*t, err, "loop: the engine's own time in one iteration of gamma %g drafts (the verify "
                           "tokens less one, else the first --gamma), share of the whole iteration; the catch-up "
                           "pass over E(N) tokens%s.", rq->verify_tokens > 1 ? rq->verify_tokens - 1
                           : rq->ngammas > 0 ? rq->gammas[0] : 1,
                           rq->acc == NULL && isnan(rq->alpha) ? ", every draft accepted (no acceptance given)" : "");
    if (st == SD_OK && prefill[0] > 0)
        st = sd_table_note(*t, err, "target+prefill: the target's pass over the batch beside one prompt chunk of "
                           "%.0f tokens after %.0f cached (a step of chunked prefill): causal attention over the "
                           "chunk, logits for its last token only.", prefill[0], prefill[1]);
    return st;
}


/* cmd_roofline.c -- `specdec roofline`: the draft length by batch and context on given hardware. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const sd_domain BATCH = { "--batch", 1, 1048576, 1 };
static const sd_domain CONTEXT = { "--context", 0, 16777216, 1 };
static const sd_domain RGAMMA = { "--gamma", 1, 256, 1 };
static const sd_domain ETA_F = { "--eta-flops", 1e-3, 1, 0 };
static const sd_domain ETA_BW = { "--eta-bw", 1e-3, 1, 0 };
static const sd_domain OVERHEAD = { "--overhead", 0, 1, 0 };
static const sd_domain DEVICES = { "--devices", 1, 1024, 1 };
static const sd_domain ACCEPTANCE = { "--acceptance", 0, 1, 0 };

static sd_status load_presets(const cli_args *a, sd_presets *p, sd_error *err)
{
    return sd_presets_load(a->data_dir, cli_value(a, "--models-file"), cli_value(a, "--hardware-file"), p, err);
}

static sd_status list_models(const sd_presets *p, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "name", "params", "params_active", "bytes_per_param", "layers", "heads",
                                        "kv_heads", "head_dim", "kv_bytes", "experts", "experts_active",
                                        "kv_bytes_per_token" };
    sd_status st = cli_table(12, cols, out, err);
    for (size_t i = 0; i < p->nmodels && st == SD_OK; i++) {
        const sd_model_spec *m = &p->models[i];
        const sd_cell row[] = { sd_text(m->name), sd_real(m->params_total), sd_real(m->params_active),
                                sd_real(m->bytes_per_param), sd_real(m->layers), sd_real(m->heads), sd_real(m->kv_heads),
                                sd_real(m->head_dim), sd_real(m->kv_bytes), sd_real(m->experts),
                                sd_real(m->experts_active), sd_real(sd_cost_kv_per_token(m)) };
        st = sd_table_add(*out, row, err);
    }
    return st;
}

static sd_status list_hardware(const sd_presets *p, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "name", "tflops", "bandwidth_tbs", "memory_gb", "flops_per_byte" };
    sd_status st = cli_table(5, cols, out, err);
    for (size_t i = 0; i < p->nhardware && st == SD_OK; i++) {
        const sd_hardware *h = &p->hardware[i];
        const sd_cell row[] = { sd_text(h->name), sd_real(h->flops / 1e12), sd_real(h->bandwidth / 1e12),
                                sd_real(h->memory / 1e9), sd_real(h->flops / h->bandwidth) };
        st = sd_table_add(*out, row, err);
    }
    return st;
}

/* The request's target, draft, hardware and cost parameters from the options. */
static sd_status read_setting(const cli_args *a, const sd_presets *p, sd_roofline_request *rq, sd_error *err)
{
    sd_status st;
    rq->params = sd_cost_defaults();
    if ((st = sd_presets_model(p, "target", cli_value(a, "--target"), &rq->target, err)) != SD_OK ||
        (st = sd_presets_model(p, "draft", cli_value(a, "--draft"), &rq->draft, err)) != SD_OK ||
        (st = sd_presets_hardware(p, "hardware", cli_value(a, "--hardware"), &rq->hardware, err)) != SD_OK ||
        (st = cli_number(a, &ETA_F, "0.5", &rq->params.eta_flops, err)) != SD_OK ||
        (st = cli_number(a, &ETA_BW, "0.8", &rq->params.eta_bw, err)) != SD_OK ||
        (st = cli_number(a, &OVERHEAD, "2e-5", &rq->params.overhead, err)) != SD_OK ||
        (st = cli_number(a, &DEVICES, "1", &rq->params.devices, err)) != SD_OK)
        return st;
    return SD_OK;
}

/* The acceptance (--alpha, or the --acceptance vector with gamma = 1..G) and
 * the draft lengths into rq; *mean_alpha is the alpha column: for a vector,
 * the i.i.d. alpha with the whole vector's E(N), as in speedup --acceptance. */
static sd_status read_acceptance(const cli_args *a, sd_list *acc, sd_list *gammas, sd_roofline_request *rq,
                                 double *mean_alpha, sd_error *err)
{
    sd_status st;
    if (cli_given(a, "--acceptance") == cli_given(a, "--alpha"))
        return sd_fail(err, SD_EINVAL, "roofline: give --alpha A or --acceptance A1,...,AG (one of them)");
    if (cli_given(a, "--acceptance")) {
        if ((st = cli_list(a, &ACCEPTANCE, NULL, acc, err)) != SD_OK)
            return st;
        if (cli_given(a, "--gamma"))
            return sd_fail(err, SD_EINVAL, "--gamma: with --acceptance the draft lengths are 1..%zu", acc->n);
        char range[32];
        snprintf(range, sizeof range, "1:%zu", acc->n < 256 ? acc->n : (size_t)256);
        rq->alpha = NAN, rq->acc = acc->v, rq->nacc = acc->n;
        if ((st = sd_parse_list(range, &RGAMMA, gammas, err)) != SD_OK)
            return st;
        st = sd_theory_alpha_from_length(sd_theory_expected_tokens_vec(acc->v, acc->n), (double)acc->n, mean_alpha,
                                         err);
    } else if ((st = cli_number(a, &CLI_ALPHA, NULL, &rq->alpha, err)) == SD_OK) {
        *mean_alpha = rq->alpha;
        st = cli_list(a, &RGAMMA, "1:16", gammas, err);
    }
    rq->gammas = gammas->v, rq->ngammas = gammas->n;
    return st;
}

/* --schedule: the draft length per batch bucket, one row per bucket. */
static sd_status schedule_rows(const sd_roofline_request *rq, const sd_list *batch, double ctx, sd_table *t,
                               sd_error *err)
{
    sd_schedule_bucket *b = malloc(batch->n * sizeof *b);
    if (b == NULL)
        return sd_fail(err, SD_ENOMEM, "out of memory");
    size_t nb = sd_cost_schedule(rq, batch->v, batch->n, ctx, b);
    sd_status st = SD_OK;
    for (size_t i = 0; i < nb && st == SD_OK; i++) {
        const sd_cell row[] = { sd_int((long long)ctx), sd_int((long long)b[i].batch_from),
                                sd_int((long long)b[i].batch_to), sd_int((long long)b[i].gamma) };
        st = sd_table_add(t, row, err);
    }
    free(b);
    return st;
}

/* One row per batch at context ctx, then the break-even and memory notes. */
static sd_status point_rows(const sd_roofline_request *rq, double mean_alpha, const sd_list *batch, double ctx,
                            sd_table *t, sd_error *err)
{
    int unfit = 0;
    sd_status st = SD_OK;
    for (size_t i = 0; i < batch->n && st == SD_OK; i++) {
        sd_roofline_point r;
        sd_cost_roofline(rq, batch->v[i], ctx, &r);
        unfit |= !r.fits;
        const sd_cell row[] = { sd_text(rq->target->name), sd_text(rq->draft->name), sd_text(rq->hardware->name),
                                sd_real(mean_alpha), sd_int((long long)batch->v[i]), sd_int((long long)ctx),
                                sd_int((long long)r.gamma_opt), sd_real(r.improvement_opt), sd_real(r.c_effective),
                                sd_real(r.verify_cost_ratio), sd_real(r.tokens_per_second),
                                sd_real(r.tokens_per_second_baseline), sd_text(r.compute_bound ? "compute" : "memory"),
                                sd_text(r.fits ? "yes" : "no") };
        st = sd_table_add(t, row, err);
    }
    double breakeven = sd_cost_breakeven(rq, batch->v, batch->n, ctx);
    if (st == SD_OK && isnan(breakeven))
        st = sd_table_note(t, err, "context %.0f: speculation helps at every listed batch (up to %.0f).", ctx,
                           batch->v[batch->n - 1]);
    else if (st == SD_OK)
        st = sd_table_note(t, err, "context %.0f: break-even batch %.0f: from there on no draft length helps; "
                           "switch speculation off.", ctx, breakeven);
    if (st == SD_OK && unfit)
        st = sd_table_note(t, err, "context %.0f: rows with fits = no need more memory than %.0f x %s holds "
                           "(both models' weights and KV caches).", ctx, rq->params.devices, rq->hardware->name);
    return st;
}

static sd_status run_roofline(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "target", "draft", "hardware", "alpha", "batch", "context", "gamma_opt",
                                        "improvement_opt", "c_effective", "verify_cost_ratio", "tokens_per_second",
                                        "tokens_per_second_baseline", "bound", "fits" };
    static const char *const sched_cols[] = { "context", "batch_from", "batch_to", "gamma" };
    sd_presets p = { 0 };
    sd_list l[3] = { { 0 } }, acc = { 0 };
    sd_table *t = NULL;
    sd_roofline_request rq = { 0 };
    double mean_alpha = NAN;
    int schedule = cli_given(a, "--schedule");
    sd_status st;
    *out = NULL;
    if ((st = load_presets(a, &p, err)) != SD_OK)
        goto done;
    if (cli_given(a, "--list-models") || cli_given(a, "--list-hardware")) {
        st = cli_given(a, "--list-models") ? list_models(&p, &t, err) : list_hardware(&p, &t, err);
        goto done;
    }
    if ((st = read_setting(a, &p, &rq, err)) != SD_OK ||
        (st = cli_list(a, &BATCH, "1,2,4,8,16,32,64,128,256,512,1024", &l[0], err)) != SD_OK ||
        (st = cli_list(a, &CONTEXT, "4096", &l[1], err)) != SD_OK ||
        (st = cli_grid_size(l, 2, &(size_t){ 0 }, err)) != SD_OK ||
        (st = read_acceptance(a, &acc, &l[2], &rq, &mean_alpha, err)) != SD_OK ||
        (st = cli_table(schedule ? 4 : 14, schedule ? sched_cols : cols, &t, err)) != SD_OK)
        goto done;
    for (size_t j = 0; j < l[1].n && st == SD_OK; j++)
        st = schedule ? schedule_rows(&rq, &l[0], l[1].v[j], t, err)
                      : point_rows(&rq, mean_alpha, &l[0], l[1].v[j], t, err);
done:
    sd_presets_free(&p);
    sd_list_free(&acc);
    return cli_finish(st, l, 3, t, out);
}

static const cli_option roofline_options[] = {
    { "--target", "NAME", "target model preset (see --list-models)" },
    { "--draft", "NAME", "draft model preset" },
    { "--hardware", "NAME", "accelerator preset (see --list-hardware)" },
    { "--alpha", "A", "acceptance rate, in [0, 1]" },
    { "--acceptance", "A1,...,AG", "per-position acceptance instead of alpha (gamma = 1..G)" },
    { "--batch", "LIST", "sequences decoded together (default 1,2,4,...,1024)" },
    { "--context", "LIST", "context length S in tokens (default 4096)" },
    { "--gamma", "LIST", "draft lengths to consider, in [1, 256] (default 1:16)" },
    { "--eta-flops", "X", "fraction of peak FLOP/s reached, in (0, 1] (default 0.5)" },
    { "--eta-bw", "X", "fraction of peak bandwidth reached, in (0, 1] (default 0.8)" },
    { "--overhead", "SEC", "fixed time per forward pass t0, seconds (default 2e-5)" },
    { "--devices", "N", "GPUs with ideal tensor parallelism (default 1)" },
    { "--schedule", NULL, "print the draft length per batch bucket instead" },
    { "--list-models", NULL, "print the model presets" },
    { "--list-hardware", NULL, "print the hardware presets" },
    { "--models-file", "FILE", "model presets TSV (default: models.tsv in the data folder)" },
    { "--hardware-file", "FILE", "hardware presets TSV (default: hardware.tsv in the data folder)" },
    { NULL, NULL, NULL },
};

const cli_command cmd_roofline = {
    "roofline", "roofline --target NAME --draft NAME --hardware NAME --alpha A [--batch LIST] [--context LIST] ...",
    "the optimal gamma by batch and context under a roofline cost model; the break-even batch",
    roofline_options, 0, 0, run_roofline, 0, NULL, NULL,
};

/* cmd_roofline.c -- `specdec roofline`: the draft length by batch and context on given hardware. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cost.h"
#include "theory.h"

#ifndef SPECDEC_DATA_DIR
#define SPECDEC_DATA_DIR "data"
#endif

static const sd_domain BATCH = { "--batch", 1, 1048576, 1 };
static const sd_domain CONTEXT = { "--context", 0, 16777216, 1 };
static const sd_domain RGAMMA = { "--gamma", 1, 256, 1 };
static const sd_domain ETA_F = { "--eta-flops", 1e-3, 1, 0 };
static const sd_domain ETA_BW = { "--eta-bw", 1e-3, 1, 0 };
static const sd_domain OVERHEAD = { "--overhead", 0, 1, 0 };
static const sd_domain DEVICES = { "--devices", 1, 1024, 1 };
static const sd_domain ACCEPTANCE = { "--acceptance", 0, 1, 0 };

typedef struct {
    sd_model_spec *models;
    size_t nmodels;
    sd_hardware *hw;
    size_t nhw;
} presets;

static void presets_free(presets *p)
{
    free(p->models);
    free(p->hw);
}

static sd_status load_presets(const cli_args *a, presets *p, sd_error *err)
{
    const char *mf = cli_value(a, "--models-file"), *hf = cli_value(a, "--hardware-file");
    sd_status st = sd_cost_load_models(mf ? mf : SPECDEC_DATA_DIR "/models.tsv", &p->models, &p->nmodels, err);
    if (st == SD_OK)
        st = sd_cost_load_hardware(hf ? hf : SPECDEC_DATA_DIR "/hardware.tsv", &p->hw, &p->nhw, err);
    return st;
}

/* The index of the preset named by `option` among n records of `stride`
 * bytes that each start with their name (sd_model_spec, sd_hardware), or an
 * error listing the known ones. */
static sd_status find_preset(const cli_args *a, const char *option, const char *kind, const void *records, size_t n,
                             size_t stride, size_t *index, sd_error *err)
{
    const char *name = cli_value(a, option);
    char known[1024] = "";
    if (name == NULL)
        return sd_fail(err, SD_EINVAL, "%s is required; see 'specdec roofline --list-%s'", option,
                       strcmp(kind, "model") == 0 ? "models" : kind);
    for (size_t i = 0; i < n; i++) {
        const char *candidate = (const char *)records + i * stride;
        if (strcmp(candidate, name) == 0) {
            *index = i;
            return SD_OK;
        }
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", candidate);
    }
    return sd_fail(err, SD_EINVAL, "%s: unknown %s '%s'; known: %s", option, kind, name, known);
}

static sd_status list_models(const presets *p, sd_table **out, sd_error *err)
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

static sd_status list_hardware(const presets *p, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "name", "tflops", "bandwidth_tbs", "memory_gb", "flops_per_byte" };
    sd_status st = cli_table(5, cols, out, err);
    for (size_t i = 0; i < p->nhw && st == SD_OK; i++) {
        const sd_hardware *h = &p->hw[i];
        const sd_cell row[] = { sd_text(h->name), sd_real(h->flops / 1e12), sd_real(h->bandwidth / 1e12),
                                sd_real(h->memory / 1e9), sd_real(h->flops / h->bandwidth) };
        st = sd_table_add(*out, row, err);
    }
    return st;
}

static sd_status run_roofline(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "target", "draft", "hardware", "alpha", "batch", "context", "gamma_opt",
                                        "improvement_opt", "c_effective", "verify_cost_ratio", "tokens_per_second",
                                        "tokens_per_second_baseline", "bound", "fits" };
    static const char *const sched_cols[] = { "context", "batch_from", "batch_to", "gamma" };
    presets p = { 0 };
    sd_list l[3] = { { 0 } }, acc = { 0 };
    sd_table *t = NULL;
    const sd_model_spec *target = NULL, *draft = NULL;
    const sd_hardware *hw = NULL;
    sd_cost_params cp = sd_cost_defaults();
    double alpha = NAN;
    int schedule = cli_given(a, "--schedule");
    sd_status st;
    *out = NULL;
    if ((st = load_presets(a, &p, err)) != SD_OK)
        goto done;
    if (cli_given(a, "--list-models") || cli_given(a, "--list-hardware")) {
        st = cli_given(a, "--list-models") ? list_models(&p, &t, err) : list_hardware(&p, &t, err);
        goto done;
    }
    size_t it, id, ih;
    if ((st = find_preset(a, "--target", "model", p.models, p.nmodels, sizeof *p.models, &it, err)) != SD_OK ||
        (st = find_preset(a, "--draft", "model", p.models, p.nmodels, sizeof *p.models, &id, err)) != SD_OK ||
        (st = find_preset(a, "--hardware", "hardware", p.hw, p.nhw, sizeof *p.hw, &ih, err)) != SD_OK)
        goto done;
    target = &p.models[it], draft = &p.models[id], hw = &p.hw[ih];
    if ((st = cli_number(a, &ETA_F, "0.5", &cp.eta_flops, err)) != SD_OK ||
        (st = cli_number(a, &ETA_BW, "0.8", &cp.eta_bw, err)) != SD_OK ||
        (st = cli_number(a, &OVERHEAD, "2e-5", &cp.overhead, err)) != SD_OK ||
        (st = cli_number(a, &DEVICES, "1", &cp.devices, err)) != SD_OK ||
        (st = cli_list(a, &BATCH, "1,2,4,8,16,32,64,128,256,512,1024", &l[0], err)) != SD_OK ||
        (st = cli_list(a, &CONTEXT, "4096", &l[1], err)) != SD_OK)
        goto done;
    if (cli_given(a, "--acceptance") == cli_given(a, "--alpha")) {
        st = sd_fail(err, SD_EINVAL, "roofline: give --alpha A or --acceptance A1,...,AG (one of them)");
        goto done;
    }
    if (cli_given(a, "--acceptance")) {
        if ((st = cli_list(a, &ACCEPTANCE, NULL, &acc, err)) != SD_OK)
            goto done;
        if (cli_given(a, "--gamma")) {
            st = sd_fail(err, SD_EINVAL, "--gamma: with --acceptance the draft lengths are 1..%zu", acc.n);
            goto done;
        }
        char range[32];
        snprintf(range, sizeof range, "1:%zu", acc.n < 256 ? acc.n : (size_t)256);
        st = sd_parse_list(range, &RGAMMA, &l[2], err);
    } else if ((st = cli_number(a, &CLI_ALPHA, NULL, &alpha, err)) == SD_OK) {
        st = cli_list(a, &RGAMMA, "1:16", &l[2], err);
    }
    if (st != SD_OK || (st = cli_table(schedule ? 4 : 14, schedule ? sched_cols : cols, &t, err)) != SD_OK)
        goto done;
    double mean_alpha = alpha;
    if (acc.n > 0 && /* the alpha column: the i.i.d. alpha with the whole vector's E(N), as in speedup --acceptance */
        (st = sd_theory_alpha_from_length(sd_theory_expected_tokens_vec(acc.v, acc.n), (double)acc.n, &mean_alpha,
                                          err)) != SD_OK)
        goto done;
    for (size_t j = 0; j < l[1].n && st == SD_OK; j++) {
        double ctx = l[1].v[j];
        double from = 0, last_g = -1, breakeven = NAN;
        int unfit = 0;
        for (size_t i = 0; i < l[0].n && st == SD_OK; i++) {
            double b = l[0].v[i];
            sd_roofline_point r;
            sd_cost_roofline(target, draft, hw, &cp, alpha, acc.n ? acc.v : NULL, acc.n, l[2].v, l[2].n, b, ctx, &r);
            unfit |= !r.fits;
            if (r.gamma_opt > 0.0)
                breakeven = NAN;
            else if (isnan(breakeven))
                breakeven = b;
            if (schedule) {
                if (fabs(r.gamma_opt - last_g) > 0.5 && last_g >= 0) { /* a new bucket */
                    const sd_cell row[] = { sd_int((long long)ctx), sd_int((long long)from),
                                            sd_int((long long)l[0].v[i - 1]), sd_int((long long)last_g) };
                    st = sd_table_add(t, row, err);
                    from = b;
                } else if (last_g < 0) {
                    from = b;
                }
                last_g = r.gamma_opt;
                continue;
            }
            const sd_cell row[] = { sd_text(target->name), sd_text(draft->name), sd_text(hw->name), sd_real(mean_alpha),
                                    sd_int((long long)b), sd_int((long long)ctx), sd_int((long long)r.gamma_opt),
                                    sd_real(r.improvement_opt), sd_real(r.c_effective), sd_real(r.verify_cost_ratio),
                                    sd_real(r.tokens_per_second), sd_real(r.tokens_per_second_baseline),
                                    sd_text(r.compute_bound ? "compute" : "memory"), sd_text(r.fits ? "yes" : "no") };
            st = sd_table_add(t, row, err);
        }
        if (schedule && st == SD_OK && l[0].n > 0) {
            const sd_cell row[] = { sd_int((long long)ctx), sd_int((long long)from),
                                    sd_int((long long)l[0].v[l[0].n - 1]), sd_int((long long)last_g) };
            st = sd_table_add(t, row, err);
        }
        if (st == SD_OK && !schedule) {
            if (isnan(breakeven))
                st = sd_table_note(t, err, "context %.0f: speculation helps at every listed batch (up to %.0f).", ctx,
                                   l[0].v[l[0].n - 1]);
            else
                st = sd_table_note(t, err, "context %.0f: break-even batch %.0f: from there on no draft length helps; "
                                   "switch speculation off.", ctx, breakeven);
        }
        if (st == SD_OK && unfit && !schedule)
            st = sd_table_note(t, err, "context %.0f: rows with fits = no need more memory than %.0f x %s holds "
                               "(both models' weights and KV caches).", ctx, cp.devices, hw->name);
    }
done:
    presets_free(&p);
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
    { "--models-file", "FILE", "model presets TSV (default data/models.tsv)" },
    { "--hardware-file", "FILE", "hardware presets TSV (default data/hardware.tsv)" },
    { NULL, NULL, NULL },
};

const cli_command cmd_roofline = {
    "roofline", "roofline --target NAME --draft NAME --hardware NAME --alpha A [--batch LIST] [--context LIST] ...",
    "the optimal gamma by batch and context under a roofline cost model; the break-even batch",
    roofline_options, 0, 0, run_roofline, 0, NULL, NULL,
};

/* cmd_roofline.c -- `specdec roofline`: the draft length by batch and context on given hardware,
 * and the schedule by batch bucket (--schedule, --export); one pass's operators (--breakdown) and
 * the presets (--list-models, --list-hardware) are cmd_roofline_passes.c's, the cost model fitted
 * to measured step times (--calibrate) cmd_roofline_calibrate.c's. */
#include "cmd_roofline_impl.h"
#include "specdec/specconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sd_domain RGAMMA = { "--gamma", 1, 256, 1 };
static const sd_domain VERIFY_TOKENS = { "--verify-tokens", 1, 4096, 1 };
static const sd_domain PROPOSAL_RATE = { "--proposal-rate", 1e-3, 1, 0 };

/* What one run holds and must release. */
typedef struct {
    sd_presets presets;
    sd_cmd_costs costs;
    double *alpha_context, *alpha_value;
    sd_list acc;
    sd_specconfig spec; /* --speculative-config's drafter and gamma (gamma 0: not given) */
    double *mean_length; /* --mean-length-by-gamma's E(N) by gamma */
} setting;

static void setting_free(setting *s)
{
    sd_presets_free(&s->presets);
    sd_cmd_costs_free(&s->costs);
    free(s->alpha_context);
    free(s->alpha_value);
    free(s->mean_length);
    sd_parse_list_free(&s->acc);
}

/* The draft: --draft, or the drafter --speculative-config names (vLLM's JSON; specconfig.h). */
static sd_status read_draft(const sd_command_args *a, setting *s, const char **draft, sd_error *err)
{
    *draft = sd_command_args_value(a, "--draft");
    if (!sd_command_args_given(a, "--speculative-config"))
        return SD_OK;
    if (*draft != NULL)
        return sd_status_fail(err, SD_EINVAL, "--speculative-config: it names the drafter; give it or --draft, not "
                              "both");
    sd_status st = sd_specconfig_read(sd_command_args_value(a, "--speculative-config"), "--speculative-config",
                                      &s->presets, &s->spec, err);
    if (st == SD_OK && s->spec.gamma > 0 && sd_command_args_given(a, "--gamma"))
        st = sd_status_fail(err, SD_EINVAL, "--speculative-config: its num_speculative_tokens is the draft length; "
                            "give it or --gamma, not both");
    *draft = s->spec.draft;
    return st;
}

/* The draft lengths: --gamma's (range its default), or --speculative-config's one. */
static sd_status gamma_list(const sd_command_args *a, const setting *s, const char *range, sd_list *gammas,
                            sd_error *err)
{
    char one[32];
    if (s->spec.gamma > 0) {
        snprintf(one, sizeof one, "%.0f", s->spec.gamma);
        return sd_parse_list(one, &RGAMMA, gammas, err);
    }
    if (range != NULL && !sd_command_args_given(a, "--gamma"))
        return sd_parse_list(range, &RGAMMA, gammas, err);
    return sd_command_args_list(a, &RGAMMA, gammas, err);
}

/* The request's models, hardware and cost terms (sd_cmd_cost_request) and the tokens verified. */
static sd_status read_setting(const sd_command_args *a, setting *s, sd_roofline_request *rq, sd_error *err)
{
    const char *draft;
    sd_status st = read_draft(a, s, &draft, err);
    if (st == SD_OK)
        st = sd_cmd_cost_request_for(a, &s->presets, draft, rq, &s->costs, err);
    if (st != SD_OK)
        return st;
    if (sd_command_args_given(a, "--verify-tokens"))
        st = sd_command_args_number(a, &VERIFY_TOKENS, &rq->verify_tokens, err);
    if (st == SD_OK && sd_command_args_given(a, "--proposal-rate"))
        st = sd_command_args_number(a, &PROPOSAL_RATE, &rq->proposal_rate, err);
    return st;
}

/* --mean-length-by-gamma FILE: E(N) as measured at each gamma, and the gammas (the measured
 * ones, or --gamma's, each measured). */
static sd_status read_mean_lengths(const sd_command_args *a, setting *s, sd_list *gammas, sd_roofline_request *rq,
                                   sd_error *err)
{
    const char *path = sd_command_args_value(a, "--mean-length-by-gamma");
    sd_status st = sd_cost_load_mean_lengths(path, &s->mean_length, &rq->nmean, err);
    if (st != SD_OK)
        return st;
    rq->mean_length = s->mean_length;
    if (sd_command_args_given(a, "--gamma") || s->spec.gamma > 0) {
        if ((st = gamma_list(a, s, NULL, gammas, err)) != SD_OK)
            return st;
        for (size_t i = 0; i < gammas->n; i++)
            if (gammas->v[i] > (double)rq->nmean || isnan(rq->mean_length[(size_t)gammas->v[i] - 1]))
                return sd_status_fail(err, SD_EINVAL, "--gamma: %.17g has no row in %s; its mean length is not "
                                      "measured", gammas->v[i], path);
    } else { /* the measured gammas, at least one (sd_cost_load_mean_lengths) */
        if ((gammas->v = malloc(rq->nmean * sizeof *gammas->v)) == NULL)
            return sd_status_fail(err, SD_ENOMEM, "out of memory");
        gammas->n = 0;
        for (size_t g = 1; g <= rq->nmean; g++)
            if (!isnan(rq->mean_length[g - 1]))
                gammas->v[gammas->n++] = (double)g;
    }
    rq->gammas = gammas->v;
    rq->ngammas = gammas->n;
    return SD_OK;
}

/* The acceptance (--alpha, --alpha-by-context or the --acceptance vector
 * with gamma = 1..G) and the draft lengths into rq. */
static sd_status read_acceptance(const sd_command_args *a, setting *s, sd_list *gammas, sd_roofline_request *rq,
                                 sd_error *err)
{
    sd_status st;
    int given = sd_command_args_given(a, "--acceptance") + sd_command_args_given(a, "--alpha") + sd_command_args_given(a, "--alpha-by-context") +
                sd_command_args_given(a, "--counts") + sd_command_args_given(a, "--mean-length-by-gamma");
    if (given != 1)
        return sd_status_fail(err, SD_EINVAL, "roofline: give --alpha A, --alpha-by-context FILE, --acceptance "
                              "A1,...,AG, --counts FILE or --mean-length-by-gamma FILE (one of them)");
    if (sd_command_args_given(a, "--mean-length-by-gamma"))
        return read_mean_lengths(a, s, gammas, rq, err);
    if (sd_command_args_given(a, "--counts-gamma") && !sd_command_args_given(a, "--counts"))
        return sd_status_fail(err, SD_EINVAL, "--counts-gamma: it gives the draft length of --counts FILE");
    if (sd_command_args_given(a, "--counts")) {
        double top = 0;
        if ((st = gamma_list(a, s, NULL, gammas, err)) != SD_OK)
            return st;
        for (size_t i = 0; i < gammas->n; i++)
            top = gammas->v[i] > top ? gammas->v[i] : top;
        if ((st = sd_cmd_cost_fitted_acceptance(a, (size_t)top, &s->acc, err)) != SD_OK)
            return st;
        rq->acc = s->acc.v;
        rq->nacc = s->acc.n;
    } else if (sd_command_args_given(a, "--acceptance")) {
        if ((st = sd_command_args_list(a, &SD_CMD_ACCEPTANCE, &s->acc, err)) != SD_OK)
            return st;
        char range[32];
        snprintf(range, sizeof range, "1:%zu", s->acc.n < 256 ? s->acc.n : (size_t)256);
        rq->acc = s->acc.v;
        rq->nacc = s->acc.n;
        st = gamma_list(a, s, range, gammas, err);
        for (size_t i = 0; st == SD_OK && i < gammas->n; i++)
            if (gammas->v[i] > (double)s->acc.n)
                st = sd_status_fail(err, SD_EINVAL, "--gamma: %.17g is past the %zu positions of --acceptance; with "
                                    "it the draft lengths are 1..%zu", gammas->v[i], s->acc.n, s->acc.n);
    } else if (sd_command_args_given(a, "--alpha-by-context")) {
        if ((st = sd_cost_load_alpha_by_context(sd_command_args_value(a, "--alpha-by-context"), &s->alpha_context,
                                                &s->alpha_value, &rq->nalpha, err)) != SD_OK)
            return st;
        rq->alpha_context = s->alpha_context;
        rq->alpha_value = s->alpha_value;
        st = gamma_list(a, s, NULL, gammas, err);
    } else if ((st = sd_command_args_number(a, &SD_CMD_ALPHA, &rq->alpha, err)) == SD_OK)
        st = gamma_list(a, s, NULL, gammas, err);
    rq->gammas = gammas->v;
    rq->ngammas = gammas->n;
    return st;
}

/* Every context must lie in the --alpha-by-context table: no extrapolation. */
static sd_status check_contexts(const sd_command_args *a, const sd_roofline_request *rq, const sd_list *ctx, sd_error *err)
{
    for (size_t j = 0; j < ctx->n && rq->alpha_context != NULL; j++)
        if (ctx->v[j] < rq->alpha_context[0] || ctx->v[j] > rq->alpha_context[rq->nalpha - 1])
            return sd_status_fail(err, SD_EINVAL, "--context: %.17g is outside [%.17g, %.17g], the contexts of %s", ctx->v[j],
                                  rq->alpha_context[0], rq->alpha_context[rq->nalpha - 1], sd_command_args_value(a, "--alpha-by-context"));
    return SD_OK;
}

/* --schedule: the draft length per batch bucket, one row per bucket. */
static sd_status schedule_rows(const sd_roofline_request *rq, const sd_list *batch, double ctx, sd_table *t,
                               sd_error *err)
{
    sd_schedule_bucket *b = malloc(batch->n * sizeof *b);
    if (b == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
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

/* --schedule --export NAME: the schedule at the one context in an engine's
 * syntax, into *out. */
static sd_status export_schedule(const sd_command_args *a, const sd_roofline_request *rq, const sd_list *batch,
                                 const sd_list *ctx, char **out, sd_error *err)
{
    int engine;
    sd_status st = sd_command_args_choice(a, "--export", NULL, &engine, err);
    if (st != SD_OK)
        return st;
    if (ctx->n != 1)
        return sd_status_fail(err, SD_EINVAL, "--export: a schedule is for one context; give one --context");
    sd_schedule_bucket *b = malloc(batch->n * sizeof *b);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = b ? open_memstream(&text, &len) : NULL;
    if (mem == NULL) {
        free(b);
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    }
    size_t nb = sd_cost_schedule(rq, batch->v, batch->n, ctx->v[0], b);
    st = sd_schedule_export((sd_schedule_engine)engine, b, nb, mem, err);
    free(b);
    if (fclose(mem) != 0 && st == SD_OK)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    if (st != SD_OK) {
        free(text);
        return st;
    }
    *out = text;
    return SD_OK;
}

/* One row per batch at context ctx, then the break-even and memory notes. */
static sd_status point_rows(const sd_roofline_request *rq, const setting *s, const sd_list *batch, double ctx,
                            sd_table *t, sd_error *err)
{
    int unfit = 0;
    char shaky[256] = "";
    sd_status st = SD_OK;
    /* the alpha column: for a vector, the i.i.d. alpha with the whole vector's E(N), as in speedup --acceptance */
    double alpha = sd_cost_alpha_at(rq, ctx);
    if (rq->acc != NULL &&
        sd_theory_alpha_from_length(sd_theory_expected_tokens_vec(rq->acc, rq->nacc), (double)rq->nacc, &alpha, err) !=
            SD_OK)
        return SD_EINVAL;
    /* measured mean lengths: the i.i.d. alpha with the largest gamma's E(N) */
    if (rq->mean_length != NULL && sd_theory_alpha_from_length(rq->mean_length[rq->nmean - 1], (double)rq->nmean,
                                                               &alpha, err) != SD_OK)
        return SD_EINVAL;
    for (size_t i = 0; i < batch->n && st == SD_OK; i++) {
        sd_roofline_point r;
        sd_cost_roofline(rq, batch->v[i], ctx, &r);
        unfit |= !r.fits;
        sd_calibrate_band_out b;
        sd_error e2;
        int band = s->costs.fit != NULL && s->costs.draft_fit != NULL &&
                   sd_calibrate_band(rq, s->costs.fit, s->costs.draft_fit, batch->v[i], ctx, SD_CALIBRATE_BAND_DRAWS,
                                     SD_CALIBRATE_BAND_Q, SD_CALIBRATE_BAND_SEED, &b,
                                     &e2) == SD_OK;
        if (band && b.gamma_hi - b.gamma_lo > 0.5 && strlen(shaky) < 200)
            snprintf(shaky + strlen(shaky), sizeof shaky - strlen(shaky), "%s%.0f (%.0f to %.0f)", shaky[0] ? ", " : "",
                     batch->v[i], b.gamma_lo, b.gamma_hi);
        const sd_cell row[] = { sd_text(rq->target->name), sd_text(rq->draft == rq->target ? "same" : rq->draft->name),
                                sd_text(rq->hardware->name), sd_real(alpha), sd_int((long long)batch->v[i]),
                                sd_int((long long)ctx), sd_int((long long)r.gamma_opt), sd_real(r.improvement_opt),
                                band ? sd_real(b.improvement_lo) : sd_text("-"),
                                band ? sd_real(b.improvement_hi) : sd_text("-"),
                                sd_real(r.c_effective), sd_real(r.verify_cost_ratio), sd_real(r.tokens_per_second),
                                band ? sd_real(b.tokens_per_second_lo) : sd_text("-"),
                                band ? sd_real(b.tokens_per_second_hi) : sd_text("-"),
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
    if (st == SD_OK && shaky[0])
        st = sd_table_note(t, err, "context %.0f: the best gamma is not robust at batch %s over the fit's 90%% band.",
                           ctx, shaky);
    if (st == SD_OK && unfit)
        st = sd_table_note(t, err, "context %.0f: rows with fits = no need more memory than %.0f x %s holds "
                           "(both models' weights and KV caches).", ctx, rq->params.tp, rq->hardware->name);
    return st;
}

/* The options that go together: --breakdown or --schedule; --prefill with --breakdown; --export
 * with --schedule. */
static sd_status check_modes(const sd_command_args *a, sd_error *err)
{
    int schedule = sd_command_args_given(a, "--schedule"), breakdown = sd_command_args_given(a, "--breakdown");
    if (schedule && breakdown)
        return sd_status_fail(err, SD_EINVAL, "--breakdown: give it or --schedule, not both");
    if (!breakdown && (sd_command_args_given(a, "--prefill") || sd_command_args_given(a, "--prefill-cached")))
        return sd_status_fail(err, SD_EINVAL, "%s: goes with --breakdown",
                              sd_command_args_given(a, "--prefill") ? "--prefill" : "--prefill-cached");
    if (sd_command_args_given(a, "--prefill-cached") && !sd_command_args_given(a, "--prefill"))
        return sd_status_fail(err, SD_EINVAL, "--prefill-cached: goes with --prefill P");
    if (!breakdown && sd_command_args_given(a, "--export") && !schedule)
        return sd_status_fail(err, SD_EINVAL, "--export: it writes the --schedule; give both");
    return SD_OK;
}

/* The pair's rows, schedule, operators or exported schedule, after the presets are loaded into s. */
static sd_status run_pair(const sd_command_args *a, setting *s, sd_list *l, sd_table **t, char **text, sd_error *err)
{
    static const char *const cols[] = { "target", "draft", "hardware", "alpha", "batch", "context", "gamma_opt",
                                        "improvement_opt", "improvement_opt_lo", "improvement_opt_hi", "c_effective",
                                        "verify_cost_ratio", "tokens_per_second", "tokens_per_second_lo",
                                        "tokens_per_second_hi", "tokens_per_second_baseline", "bound", "fits" };
    static const char *const sched_cols[] = { "context", "batch_from", "batch_to", "gamma" };
    int schedule = sd_command_args_given(a, "--schedule");
    sd_roofline_request rq;
    sd_status st;
    if ((st = check_modes(a, err)) != SD_OK || (st = read_setting(a, s, &rq, err)) != SD_OK ||
        (st = sd_command_args_list(a, &SD_CMD_BATCH, &l[0], err)) != SD_OK ||
        (st = sd_command_args_list(a, &SD_CMD_CONTEXT, &l[1], err)) != SD_OK ||
        (st = sd_command_grid_size(l, 2, &(size_t){ 0 }, err)) != SD_OK)
        return st;
    if (sd_command_args_given(a, "--breakdown")) { /* acceptance optional: it prices the catch-up pass */
        int acceptance = sd_command_args_given(a, "--acceptance") || sd_command_args_given(a, "--alpha") ||
                         sd_command_args_given(a, "--alpha-by-context") || sd_command_args_given(a, "--counts");
        if (acceptance && (st = read_acceptance(a, s, &l[2], &rq, err)) != SD_OK)
            return st;
        return roofline_breakdown(a, &rq, l, t, err);
    }
    if ((st = read_acceptance(a, s, &l[2], &rq, err)) != SD_OK || (st = check_contexts(a, &rq, &l[1], err)) != SD_OK)
        return st;
    if (sd_command_args_given(a, "--export") != (text != NULL))
        return sd_status_fail(err, SD_EINVAL, text != NULL ? "--export: the text result is the schedule in an "
                              "engine's syntax; give --export ENGINE" : "--export: the schedule in an engine's syntax "
                              "is text, not a table (sd_cmd_roofline_text)");
    if (text != NULL)
        return export_schedule(a, &rq, &l[0], &l[1], text, err);
    if ((st = sd_command_table(schedule ? 4 : 18, schedule ? sched_cols : cols, t, err)) != SD_OK)
        return st;
    for (size_t j = 0; j < l[1].n && st == SD_OK; j++)
        st = schedule ? schedule_rows(&rq, &l[0], l[1].v[j], *t, err) : point_rows(&rq, s, &l[0], l[1].v[j], *t, err);
    char at[48] = "";
    if (s->spec.gamma > 0)
        snprintf(at, sizeof at, " at gamma %.0f", s->spec.gamma);
    if (st == SD_OK && rq.mean_length != NULL && !schedule)
        st = sd_table_note(*t, err, "--mean-length-by-gamma: each gamma's improvement takes its measured mean length; "
                           "alpha is the i.i.d. rate with the mean length at gamma %zu.", rq.nmean);
    if (st == SD_OK && s->spec.draft[0] != '\0')
        st = sd_table_note(*t, err, "--speculative-config: method %s, priced as the drafter %s%s.", s->spec.method,
                           s->spec.draft, at);
    return st == SD_OK ? sd_cmd_costs_note(a, &s->costs, &rq, !schedule, *t, err) : st;
}

/* The table (text NULL) or the exported schedule (*text). */
static sd_status run_roofline(const sd_command_args *a, sd_table **out, char **text, sd_error *err)
{
    setting s = { 0 };
    sd_list l[3] = { { 0 } };
    sd_table *t = NULL;
    sd_status st = sd_cmd_cost_presets(a, &s.presets, err);
    if (st == SD_OK && (sd_command_args_given(a, "--list-models") || sd_command_args_given(a, "--list-hardware") ||
                        sd_command_args_given(a, "--calibrate")) && text != NULL)
        st = sd_status_fail(err, SD_EINVAL, "--export: goes with --schedule, not with the presets or --calibrate");
    else if (st == SD_OK && sd_command_args_given(a, "--list-models"))
        st = roofline_list_models(&s.presets, &t, err);
    else if (st == SD_OK && sd_command_args_given(a, "--list-hardware"))
        st = roofline_list_hardware(&s.presets, &t, err);
    else if (st == SD_OK && sd_command_args_given(a, "--calibrate"))
        st = roofline_calibrate(a, &s.presets, &t, err);
    else if (st == SD_OK)
        st = run_pair(a, &s, l, &t, text, err);
    setting_free(&s);
    return sd_command_finish(st, l, 3, t, out);
}

sd_cmd_roofline_request sd_cmd_roofline_defaults(void)
{
    return (sd_cmd_roofline_request){ .alpha = NAN, .verify_tokens = NAN, .proposal_rate = NAN, .prefill = NAN, .prefill_cached = NAN,
                                      .export_engine = -1, .counts_gamma = NAN, .calibrate_by = -1,
                                      .cost = sd_cmd_cost_defaults() };
}

sd_status sd_cmd_roofline_table(const sd_cmd_roofline_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_roofline, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_roofline, rq, err);
    return sd_command_end(&sd_cmd_roofline, st == SD_OK ? run_roofline(&a, out, NULL, err) : st, err);
}

sd_status sd_cmd_roofline_text(const sd_cmd_roofline_request *rq, char **text, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_roofline, .req = rq };
    sd_table *t = NULL;
    *text = NULL;
    sd_status st = sd_command_check(&sd_cmd_roofline, rq, err);
    if (st == SD_OK)
        st = run_roofline(&a, &t, text, err);
    sd_table_free(t);
    if (st != SD_OK) {
        free(*text);
        *text = NULL;
    }
    return sd_command_end(&sd_cmd_roofline, st, err);
}

#define R sd_cmd_roofline_request
static const sd_command_field FIELDS[] = {
    { .name = "--target", SD_FIELD(R, target, TEXT), .metavar = "NAME", .help = "target model preset (see "
      "--list-models)" },
    { .name = "--draft", SD_FIELD(R, draft, TEXT), .metavar = "NAME", .help = "draft model preset, 'same' "
      "(self-speculation with the target's weights), 'ngram' (prompt lookup: no model, drafts cost nothing), or a "
      "drafter head built from the target: 'eagle', 'eagle3', 'mtp'" },
    { .name = "--hardware", SD_FIELD(R, hardware, TEXT), .metavar = "NAME", .help = "accelerator preset (see "
      "--list-hardware)" },
    { .name = "--alpha", SD_FIELD(R, alpha, REAL), .metavar = "A", .help = "acceptance rate, in {range}",
      .domain = &SD_CMD_ALPHA },
    { .name = "--acceptance", SD_FIELD(R, acceptance, LIST), .metavar = "A1,...,AG", .help = "per-position "
      "acceptance instead of alpha (gamma = 1..G)", .domain = &SD_CMD_ACCEPTANCE },
    { .name = "--alpha-by-context", SD_FIELD(R, alpha_by_context, TEXT), .metavar = "FILE", .help = "TSV of context "
      "and alpha, interpolated linearly, instead of --alpha" },
    { .name = "--batch", SD_FIELD(R, batch, LIST), .metavar = "LIST", .help = "sequences decoded together (default "
      "{default})", .domain = &SD_CMD_BATCH, .dflt = "1,2,4,8,16,32,64,128,256,512,1024" },
    { .name = "--context", SD_FIELD(R, context, LIST), .metavar = "LIST", .help = "context length S in tokens "
      "(default {default})", .domain = &SD_CMD_CONTEXT, .dflt = "4096" },
    { .name = "--gamma", SD_FIELD(R, gamma, LIST), .metavar = "LIST", .help = "draft lengths to consider, in {range} "
      "(default {default})", .domain = &RGAMMA, .dflt = "1:16" },
    { .name = "--verify-tokens", SD_FIELD(R, verify_tokens, REAL), .metavar = "T", .help = "tokens verified per "
      "sequence per pass, in {range} (default gamma + 1; tree drafts)", .domain = &VERIFY_TOKENS },
    { .name = "--mean-length-by-gamma", SD_FIELD(R, mean_length_by_gamma, TEXT), .metavar = "FILE", .help = "a TSV "
      "of gamma and mean_length, E(N) as measured or published at each draft length, instead of --alpha: the gammas "
      "considered are its rows" },
    { .name = "--speculative-config", SD_FIELD(R, speculative_config, TEXT), .metavar = "JSON", .help = "the drafter "
      "and gamma from vLLM's speculative config as you launch with it (its method -- ngram, suffix, eagle, eagle3, "
      "an MTP method, draft_model with a preset's model -- and num_speculative_tokens) instead of --draft and "
      "--gamma" },
    { .name = "--proposal-rate", SD_FIELD(R, proposal_rate, REAL), .metavar = "R", .help = "the share of sequences "
      "that draft at a step, in {range}: a proposer that drafts only where the context matches (n-gram, suffix "
      "lookup); the rest verify one token in the same pass (default 1)", .domain = &PROPOSAL_RATE },
    { .name = "--breakdown", SD_FIELD(R, breakdown, FLAG), .help = "print one pass's operators (FLOPs, bytes, time, "
      "bound) instead" },
    { .name = "--prefill", SD_FIELD(R, prefill, REAL), .metavar = "P", .help = "with --breakdown: also the target's "
      "pass beside one prompt chunk of P tokens, in {range} (chunked prefill's mixed step)", .domain = &ROOFLINE_PREFILL },
    { .name = "--prefill-cached", SD_FIELD(R, prefill_cached, REAL), .metavar = "C", .help = "with --prefill: the "
      "tokens of that prompt already cached (an earlier chunk's), in {range} (default 0)", .domain = &ROOFLINE_PREFILL_CACHED },
    { .name = "--schedule", SD_FIELD(R, schedule, FLAG), .help = "print the draft length per batch bucket instead" },
    { .name = "--export", SD_FIELD(R, export_engine, CHOICE), .metavar = "ENGINE", .help = "with --schedule: write "
      "it in an engine's syntax, ready to paste: {names} (vLLM's speculative config JSON, SGLang's adaptive config "
      "JSON, TensorRT-LLM's draft_len_schedule YAML)", .names = sd_schedule_engine_names },
    { .name = "--counts", SD_FIELD(R, counts, TEXT), .metavar = "FILE", .help = "an engine's counters (as for fit) "
      "instead of --alpha: the fitted acceptance per position" },
    { .name = "--counts-gamma", SD_FIELD(R, counts_gamma, REAL), .metavar = "G", .help = "the draft length of "
      "--counts FILE where it does not state it (as fit --gamma), in {range}", .domain = &SD_CMD_COUNTS_GAMMA },
    { .name = "--calibrate", SD_FIELD(R, calibrate, TEXT), .metavar = "FILE", .help = "fit eta_F, eta_BW and t0 to "
      "measured step times (TSV: model, hardware, batch, context, tokens, seconds[, tp])" },
    { .name = "--calibrate-by", SD_FIELD(R, calibrate_by, CHOICE), .metavar = "G", .help = "with --calibrate: fit "
      "each model-hardware pair, or by hardware family (a pooled fit, then one per family) with every term: {names} "
      "(default model-hardware)", .names = roofline_calibrate_by_names, .dflt = "model-hardware" },
    { .name = "--save-calibration", SD_FIELD(R, save_calibration, TEXT), .metavar = "FILE", .help = "with "
      "--calibrate: write the fits where --calibration reads them" },
    { .name = "--list-models", SD_FIELD(R, list_models, FLAG), .help = "print the model presets" },
    { .name = "--list-hardware", SD_FIELD(R, list_hardware, FLAG), .help = "print the hardware presets" },
    { .name = "--models-file", SD_FIELD(R, models_file, TEXT), .metavar = "FILE", .help = "model presets TSV "
      "(default: models.tsv in the data folder)" },
    { .name = "--hardware-file", SD_FIELD(R, hardware_file, TEXT), .metavar = "FILE", .help = "hardware presets TSV "
      "(default: hardware.tsv in the data folder)" },
    { .name = NULL },
};
#undef R

static sd_status roofline_text_(const void *r, char **text, sd_error *err) { return sd_cmd_roofline_text(r, text, err); }

SD_COMMAND_CALLS(roofline)
const sd_command sd_cmd_roofline = {
    SD_COMMAND_ROW_DATA(roofline),
    .usage = "roofline --target NAME --draft NAME --hardware NAME --alpha A [--batch LIST] [--context LIST] ...",
    .summary = "the optimal gamma by batch and context under a roofline cost model; the break-even batch",
    .groups = { FIELDS, SD_CMD_COST_FIELDS },
    .base = { 0, offsetof(sd_cmd_roofline_request, cost) },
    .text_option = "--export",
    .text = roofline_text_,
    SD_COMMANDS_LIBRARY,
};

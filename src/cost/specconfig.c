/* specconfig.c -- vLLM's speculative config read for the drafter and gamma (specconfig.h). */
#include "specdec/specconfig.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "io/json.h"

/* vLLM's methods specdec does not price (SpeculativeMethod, vllm/config/speculative.py). */
static const char *const UNPRICED[] = { "medusa", "mlp_speculator", "dflash", "dspark", "custom_class",
                                        "extract_hidden_states", NULL };

/* The preset a Hugging Face name stands for: its last component, lower-cased, starts with the
 * preset's name up to a '-' or its end; the longest such.  NULL when none. */
static const char *preset_of(const sd_presets *p, const char *model)
{
    const char *base = strrchr(model, '/');
    base = base != NULL ? base + 1 : model;
    char low[256];
    size_t n = 0;
    for (; base[n] != '\0' && n + 1 < sizeof low; n++)
        low[n] = (char)tolower((unsigned char)base[n]);
    low[n] = '\0';
    const char *best = NULL;
    for (size_t i = 0; i < p->nmodels; i++) {
        size_t len = strlen(p->models[i].name);
        if (strncmp(low, p->models[i].name, len) == 0 && (low[len] == '\0' || low[len] == '-') &&
            (best == NULL || len > strlen(best)))
            best = p->models[i].name;
    }
    return best;
}

/* The drafter method names, into out->draft (model: the "model" member, or NULL). */
static sd_status drafter_of(const char *param, const char *method, const char *model, const sd_presets *p,
                            sd_specconfig *out, sd_error *err)
{
    size_t len = strlen(method), word = strspn(method, "abcdefghijklmnopqrstuvwxyz0123456789_");
    const char *d = NULL;
    if (len >= sizeof out->method || word != len) /* vLLM's names: short, lower case, digits and '_' */
        return sd_status_fail(err, SD_EINVAL, "%s: method: unknown method '%.40s%s'; expected ngram, ngram_gpu, "
                              "suffix, eagle, eagle3, an MTP method (deepseek_mtp, mtp, ...) or draft_model", param,
                              method, len > 40 ? "..." : "");
    if (strcmp(method, "ngram") == 0 || strcmp(method, "ngram_gpu") == 0 || strcmp(method, "suffix") == 0)
        d = "ngram";
    for (const char *const *k = sd_presets_drafter_names(); d == NULL && *k != NULL; k++)
        if (strcmp(method, *k) == 0) /* eagle, eagle3, mtp: the heads' own names */
            d = *k;
    if (d == NULL && len >= 3 && strcmp(method + len - 3, "mtp") == 0) /* deepseek_mtp, qwen3_next_mtp, ... */
        d = "mtp";
    for (size_t i = 0; d == NULL && UNPRICED[i] != NULL; i++)
        if (strcmp(method, UNPRICED[i]) == 0)
            return sd_status_fail(err, SD_EINVAL, "%s: method: specdec does not price %s drafters; it prices "
                                  "ngram, suffix, eagle, eagle3, the MTP methods and draft_model", param, method);
    if (d == NULL && strcmp(method, "draft_model") != 0)
        return sd_status_fail(err, SD_EINVAL, "%s: method: unknown method '%s'; expected ngram, ngram_gpu, suffix, "
                              "eagle, eagle3, an MTP method (deepseek_mtp, mtp, ...) or draft_model", param, method);
    if (d == NULL && model == NULL)
        return sd_status_fail(err, SD_EINVAL, "%s: method draft_model needs the member model", param);
    if (d == NULL && (d = preset_of(p, model)) == NULL) {
        int shown = strlen(model) <= 200;
        for (const char *c = model; shown && *c != '\0'; c++)
            shown = (unsigned char)*c >= 0x20 && *c != 0x7f; /* one line: quoted only when printable */
        return sd_status_fail(err, SD_EINVAL, "%s: model: '%s' is no preset (see roofline --list-models); give "
                              "--draft NAME instead", param, shown ? model : "(not printable)");
    }
    snprintf(out->draft, sizeof out->draft, "%s", d);
    snprintf(out->method, sizeof out->method, "%s", method);
    return SD_OK;
}

/* The members of the object doc into out. */
static sd_status members(const sd_json *doc, const char *param, const sd_presets *p, sd_specconfig *out,
                         sd_error *err)
{
    const char *method = NULL, *model = NULL;
    const sd_json *v;
    uint64_t g = 0;
    sd_status st = sd_json_expect(doc, SD_JSON_OBJECT, NULL, err);
    if (st == SD_OK && (v = sd_json_find(doc, "method")) != NULL && v->type != SD_JSON_NULL)
        st = sd_json_string(v, "method", &method, err);
    if (st == SD_OK && (v = sd_json_find(doc, "model")) != NULL && v->type != SD_JSON_NULL)
        st = sd_json_string(v, "model", &model, err);
    if (st == SD_OK && (v = sd_json_find(doc, "num_speculative_tokens")) != NULL && v->type != SD_JSON_NULL &&
        (st = sd_json_count(v, "num_speculative_tokens", &g, err)) == SD_OK && (g < 1 || g > 256))
        st = sd_status_fail(err, SD_EINVAL, "%s: num_speculative_tokens: %llu is outside [1, 256]", param,
                            (unsigned long long)g);
    if (st != SD_OK)
        return st;
    if (method == NULL && model == NULL)
        return sd_status_fail(err, SD_EINVAL, "%s: give method or model (as vLLM's speculative config does)", param);
    out->gamma = (double)g;
    return drafter_of(param, method != NULL ? method : "draft_model", model, p, out, err);
}

sd_status sd_specconfig_read(const char *text, const char *param, const sd_presets *p, sd_specconfig *out,
                             sd_error *err)
{
    sd_json_options opt = sd_json_defaults();
    opt.single = 1;
    opt.max_depth = 8;
    opt.max_values = 4096;
    sd_json_docs d;
    sd_status st = sd_json_parse(text, strlen(text), param, &opt, &d, err);
    if (st != SD_OK)
        return st;
    sd_specconfig r = { .gamma = 0 };
    if ((st = members(&d.doc[0], param, p, &r, err)) == SD_OK)
        *out = r;
    sd_json_free(&d);
    return st;
}

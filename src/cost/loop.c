/* loop.c -- engine profiles: the speculation loop's own time (loop.h). */
#include "specdec/loop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/data.h"
#include "records.h"

static const char *const DRAFTERS[] = { "draft-model", "self", "ngram", "eagle", "eagle3", "mtp", "*", NULL };

const char *const *sd_loop_drafter_names(void) { return DRAFTERS; }

sd_loop_params sd_loop_none(void)
{
    return (sd_loop_params){ .draft_step = 0.0, .draft_step_seq = 0.0, .iteration = 0.0, .iteration_token = 0.0,
                             .host_seq = 0.0, .verify_premium = 0.0, .catch_up = 0 };
}

int sd_loop_is_none(const sd_loop_params *p)
{
    return !(p->draft_step > 0.0) && !(p->draft_step_seq > 0.0) && !(p->iteration > 0.0) &&
           !(p->iteration_token > 0.0) && !(p->host_seq > 0.0) && !(p->verify_premium > 0.0) && !p->catch_up;
}

const char *sd_loop_drafter_of(const sd_model_spec *target, const sd_model_spec *draft)
{
    if (draft == target)
        return "self";
    if (draft->fuse > 0.0) /* a drafter head (presets.h) is named after its kind */
        for (const char *const *k = sd_presets_drafter_names(); *k != NULL; k++)
            if (strcmp(draft->name, *k) == 0)
                return *k;
    return draft == sd_presets_ngram() ? "ngram" : "draft-model";
}

#define P(field) offsetof(sd_loop_profile, p.field)
static const sd_records_col COLS[] = {
    { .col = "engine", .kind = SD_RECORDS_NAME, .offset = offsetof(sd_loop_profile, engine) },
    { .col = "drafter", .kind = SD_RECORDS_NAME, .offset = offsetof(sd_loop_profile, drafter) },
    { .col = "source", .kind = SD_RECORDS_NAME, .offset = offsetof(sd_loop_profile, source) },
    { .col = "draft_step_ms", .kind = SD_RECORDS_NUMBER, .offset = P(draft_step), .max = 1000, .scale = 1e-3 },
    { .col = "draft_step_seq_us", .kind = SD_RECORDS_NUMBER, .offset = P(draft_step_seq), .max = 1e6, .scale = 1e-6 },
    { .col = "iteration_ms", .kind = SD_RECORDS_NUMBER, .offset = P(iteration), .max = 1000, .scale = 1e-3 },
    { .col = "iteration_token_us", .kind = SD_RECORDS_NUMBER, .offset = P(iteration_token), .max = 1e6,
      .scale = 1e-6 },
    { .col = "host_seq_us", .kind = SD_RECORDS_NUMBER, .offset = P(host_seq), .max = 1e6, .scale = 1e-6 },
    { .col = "verify_premium", .kind = SD_RECORDS_NUMBER, .offset = P(verify_premium), .max = 10, .scale = 1 },
    { .col = "catch_up", .kind = SD_RECORDS_SWITCH, .offset = P(catch_up) },
};
#undef P

/* The drafter kinds named, and each (engine, drafter) pair once. */
static sd_status check_rows(const char *path, const sd_loop_profile *r, size_t n, sd_error *err)
{
    for (size_t i = 0; i < n; i++) {
        int known = 0;
        for (size_t k = 0; DRAFTERS[k] != NULL; k++)
            known |= strcmp(r[i].drafter, DRAFTERS[k]) == 0;
        if (!known)
            return sd_status_fail(err, SD_EINVAL, "%s:%zu: drafter: unknown kind '%s'; expected draft-model, "
                                  "self, ngram, eagle, eagle3, mtp or *", path, r[i].line, r[i].drafter);
        for (size_t j = 0; j < i; j++)
            if (strcmp(r[i].engine, r[j].engine) == 0 && strcmp(r[i].drafter, r[j].drafter) == 0)
                return sd_status_fail(err, SD_EINVAL, "%s:%zu: engine %s with drafter %s is line %zu's already",
                                      path, r[i].line, r[i].engine, r[i].drafter, r[j].line);
    }
    return SD_OK;
}

sd_status sd_loop_load(const char *path, sd_loop_profile **out, size_t *n, sd_error *err)
{
    const sd_records_layout layout = { COLS, sizeof COLS / sizeof COLS[0], sizeof(sd_loop_profile),
                                       offsetof(sd_loop_profile, line) };
    void *rec;
    size_t rows;
    sd_status st = sd_records_load(path, &layout, &rec, &rows, err);
    if (st != SD_OK)
        return st;
    if ((st = check_rows(path, rec, rows, err)) != SD_OK) {
        free(rec);
        return st;
    }
    *out = rec;
    *n = rows;
    return SD_OK;
}

sd_status sd_loop_load_defaults(const char *data_dir, sd_loop_profile **out, size_t *n, sd_error *err)
{
    char path[4096];
    sd_status st = sd_data_find(data_dir, "engine-profiles.tsv", path, sizeof path, err);
    return st == SD_OK ? sd_loop_load(path, out, n, err) : st;
}

const char *sd_loop_engine_list(const sd_loop_profile *p, size_t n, char *buf, size_t size)
{
    size_t used = 0;
    if (size > 0)
        buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(p[i].engine, p[j].engine) == 0;
        if (!seen && used < size) {
            int w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", p[i].engine);
            used += w > 0 ? (size_t)w : 0;
        }
    }
    return buf;
}

sd_status sd_loop_find(const sd_loop_profile *p, size_t n, const char *param, const char *engine, const char *drafter,
                       const sd_loop_profile **out, sd_error *err)
{
    const sd_loop_profile *any = NULL;
    int engine_known = 0;
    for (size_t i = 0; i < n; i++) {
        if (engine == NULL || strcmp(p[i].engine, engine) != 0)
            continue;
        engine_known = 1;
        if (strcmp(p[i].drafter, drafter) == 0) {
            *out = &p[i];
            return SD_OK;
        }
        if (strcmp(p[i].drafter, "*") == 0)
            any = &p[i];
    }
    if (any != NULL) {
        *out = any;
        return SD_OK;
    }
    char known[512];
    sd_loop_engine_list(p, n, known, sizeof known);
    if (engine_known)
        return sd_status_fail(err, SD_EINVAL, "%s: engine %s has no profile for drafter kind %s", param, engine,
                              drafter);
    return sd_status_fail(err, SD_EINVAL, "%s: unknown engine '%s'; known: %s", param, engine ? engine : "", known);
}

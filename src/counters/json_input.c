/* json_input.c -- what the JSON readers of engine counters share (see counters_impl.h).
 *
 * The file is read again whole (sd_file_read) and parsed by the strict reader of io/json.h
 * as a sequence of documents, so one response, an array of responses, and JSON Lines (one
 * response a line, as a client saves them) are read alike: a record is a document, or an
 * item of a document that is an array.  Cost: the parse's, O(bytes + values log members). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "counters_impl.h"

int sd_counters_json_has_key(const char *line, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = strchr(line, '"'); p != NULL; p = strchr(p + 1, '"'))
        if (strncmp(p + 1, key, n) == 0 && p[1 + n] == '"')
            return 1;
    return 0;
}

sd_status sd_counters_json_load(const sd_counters_ctx *cx, sd_json_docs *d)
{
    char *buf = NULL;
    size_t len = 0;
    sd_status st = sd_file_read(cx->path, SD_JSON_INPUT_MAX, &buf, &len, cx->err);
    if (st != SD_OK)
        return st;
    st = sd_json_parse(buf, len, cx->path, NULL, d, cx->err);
    free(buf);
    if (st == SD_OK && d->n == 0) {
        sd_json_free(d);
        return sd_status_fail(cx->err, SD_EINVAL, "%s: no JSON document", cx->path);
    }
    return st;
}

sd_status sd_counters_json_each(const sd_counters_ctx *cx, const sd_json_docs *d,
                                sd_status (*fn)(const sd_counters_ctx *cx, const sd_json *rec, void *arg), void *arg)
{
    for (size_t i = 0; i < d->n; i++) {
        const sd_json *doc = &d->doc[i];
        size_t n = doc->type == SD_JSON_ARRAY ? doc->array.n : 1;
        for (size_t k = 0; k < n; k++) {
            const sd_json *rec = doc->type == SD_JSON_ARRAY ? &doc->array.item[k] : doc;
            sd_status st = sd_json_expect(rec, SD_JSON_OBJECT, "a response", cx->err);
            if (st == SD_OK)
                st = fn(cx, rec, arg);
            if (st != SD_OK)
                return st;
        }
    }
    return SD_OK;
}

sd_status sd_counters_json_read_each(const sd_counters_ctx *cx,
                                     sd_status (*fn)(const sd_counters_ctx *cx, const sd_json *rec, void *arg),
                                     void *arg)
{
    sd_json_docs d;
    sd_status st = sd_counters_json_load(cx, &d);
    if (st != SD_OK)
        return st;
    st = sd_counters_json_each(cx, &d, fn, arg);
    sd_json_free(&d);
    return st;
}

sd_status sd_counters_json_opt_count(const sd_json *obj, const char *key, double *x, sd_error *err)
{
    const sd_json *v = sd_json_find(obj, key);
    uint64_t n = 0;
    *x = -1.0;
    if (v == NULL || v->type == SD_JSON_NULL)
        return SD_OK;
    sd_status st = sd_json_count(v, key, &n, err);
    if (st == SD_OK)
        *x = (double)n;
    return st;
}

/* v as a count into *x: sd_json_count, or with whole_decimals any number whose value is whole
 * in [0, 2^53]. */
static sd_status json_whole(const sd_counters_ctx *cx, const sd_json *v, const char *what, int whole_decimals,
                            double *x)
{
    uint64_t n = 0;
    if (!whole_decimals || (v->type == SD_JSON_NUMBER && v->number.count)) {
        sd_status st = sd_json_count(v, what, &n, cx->err);
        if (st == SD_OK)
            *x = (double)n;
        return st;
    }
    double y = 0.0;
    sd_status st = sd_json_number(v, what, &y, cx->err);
    if (st != SD_OK)
        return st;
    if (!(y >= 0.0 && y <= SD_TEXT_COUNT_MAX && floor(y) >= y))
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %s: %s is not a whole count in [0, 2^53]", cx->path,
                              v->line, what, v->number.text);
    *x = y;
    return SD_OK;
}

sd_status sd_counters_json_histogram(const sd_counters_ctx *cx, const sd_json *v, const char *what, size_t base,
                                     int whole_decimals, double *h, size_t max, size_t *len, int *dense)
{
    memset(h, 0, max * sizeof *h);
    *len = 0;
    *dense = v->type == SD_JSON_ARRAY;
    if (v->type == SD_JSON_ARRAY) {
        if (v->array.n > max)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %s: %zu entries: at most %zu", cx->path, v->line, what,
                                  v->array.n, max);
        for (size_t j = 0; j < v->array.n; j++) {
            sd_status st = json_whole(cx, &v->array.item[j], what, whole_decimals, &h[j]);
            if (st != SD_OK)
                return st;
        }
        *len = v->array.n;
        return SD_OK;
    }
    if (v->type != SD_JSON_OBJECT)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %s: expected an array or an object, found %s", cx->path,
                              v->line, what, sd_json_type_name(v->type));
    for (size_t m = 0; m < v->object.n; m++) {
        const sd_json_member *mb = &v->object.member[m];
        const char *k = mb->name.string.s;
        size_t kn = mb->name.string.len;
        uint64_t key = 0;
        if (mb->name.string.nul || !sd_text_count(k, kn, &key) || (kn > 1 && k[0] == '0') || key < base)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %s: key \"%s\": expected a whole number of at least %zu",
                                  cx->path, mb->name.line, what, mb->name.string.nul ? "" : k, base);
        if (key - base >= max)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %s: key %s: at most %zu", cx->path, mb->name.line, what,
                                  k, max - 1 + base);
        sd_status st = json_whole(cx, &mb->value, what, whole_decimals, &h[key - base]);
        if (st != SD_OK)
            return st;
        if (key - base + 1 > *len)
            *len = (size_t)(key - base + 1);
    }
    return SD_OK;
}

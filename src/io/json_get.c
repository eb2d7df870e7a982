/* json_get.c -- the lookups and getters of io/json.h, and the quoting every
 * message of the module shares (json_impl.h). */
#include "json.h"
#include "json_impl.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* s[0 .. n - 1] in double quotes, at most SD_JSON_QUOTE_MAX bytes of it (then
 * "..."): printable ASCII as it is (" and \\ escaped), every other byte as
 * \\xHH, so that a message quoting the input holds no control byte. */
sd_json_shown sd_json_quote(const char *s, size_t n)
{
    sd_json_shown q;
    size_t k = 0;
    q.s[k++] = '"';
    for (size_t i = 0; i < n && i < SD_JSON_QUOTE_MAX; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            q.s[k++] = '\\';
            q.s[k++] = (char)c;
        } else if (c >= 0x20 && c < 0x7f) {
            q.s[k++] = (char)c;
        } else {
            snprintf(q.s + k, sizeof q.s - k, "\\x%02x", c);
            k += 4;
        }
    }
    if (n > SD_JSON_QUOTE_MAX) {
        memcpy(q.s + k, "...", 3);
        k += 3;
    }
    q.s[k++] = '"';
    q.s[k] = '\0';
    return q;
}


/* ---------------------------------------------------------------- lookups and getters */

const char *sd_json_type_name(sd_json_type type)
{
    static const char *const NAMES[] = { [SD_JSON_NULL] = "null",       [SD_JSON_BOOL] = "a boolean",
                                         [SD_JSON_NUMBER] = "a number", [SD_JSON_STRING] = "a string",
                                         [SD_JSON_ARRAY] = "an array",  [SD_JSON_OBJECT] = "an object" };
    return (unsigned)type < sizeof NAMES / sizeof NAMES[0] ? NAMES[type] : "an unknown value";
}

const sd_json *sd_json_find(const sd_json *obj, const char *key)
{
    if (obj == NULL || obj->type != SD_JSON_OBJECT)
        return NULL;
    size_t n = strlen(key);
    /* a name holding a NUL byte cannot match: key has none in its first n bytes */
    for (size_t i = 0; i < obj->object.n; i++) {
        const sd_json *name = &obj->object.member[i].name;
        if (name->string.len == n && memcmp(name->string.s, key, n) == 0)
            return &obj->object.member[i].value;
    }
    return NULL;
}

size_t sd_json_length(const sd_json *v)
{
    if (v == NULL)
        return 0;
    return v->type == SD_JSON_ARRAY ? v->array.n : v->type == SD_JSON_OBJECT ? v->object.n : 0;
}

const sd_json *sd_json_at(const sd_json *v, size_t i)
{
    return v != NULL && v->type == SD_JSON_ARRAY && i < v->array.n ? &v->array.item[i] : NULL;
}

/* SD_EINVAL with "PATH:LINE: json: WHAT: ..." on v's line. */
__attribute__((format(printf, 4, 5))) static sd_status refuse(const sd_json *v, const char *what, sd_error *err,
                                                              const char *fmt, ...)
{
    char why[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return sd_status_fail(err, SD_EINVAL, "%s:%zu: json: %s%s%s", v->path, v->line, what != NULL ? what : "",
                          what != NULL ? ": " : "", why);
}

sd_status sd_json_get(const sd_json *obj, const char *key, const sd_json **out, sd_error *err)
{
    assert(obj != NULL && key != NULL);
    sd_json_shown k = sd_json_quote(key, strlen(key));
    if (obj->type != SD_JSON_OBJECT)
        return refuse(obj, NULL, err, "expected an object with a member %s, found %s", k.s,
                      sd_json_type_name(obj->type));
    const sd_json *v = sd_json_find(obj, key);
    if (v == NULL)
        return refuse(obj, NULL, err, "the object has no member %s", k.s);
    *out = v;
    return SD_OK;
}

sd_status sd_json_expect(const sd_json *v, sd_json_type type, const char *what, sd_error *err)
{
    assert(v != NULL);
    if (v->type != type)
        return refuse(v, what, err, "expected %s, found %s", sd_json_type_name(type), sd_json_type_name(v->type));
    return SD_OK;
}

sd_status sd_json_number(const sd_json *v, const char *what, double *x, sd_error *err)
{
    sd_status st = sd_json_expect(v, SD_JSON_NUMBER, what, err);
    if (st != SD_OK)
        return st;
    if (!v->number.finite)
        return refuse(v, what, err, "%s is not a finite number", sd_json_quote(v->number.text, v->number.len).s);
    *x = v->number.x;
    return SD_OK;
}

sd_status sd_json_count(const sd_json *v, const char *what, uint64_t *n, sd_error *err)
{
    sd_status st = sd_json_expect(v, SD_JSON_NUMBER, what, err);
    if (st != SD_OK)
        return st;
    if (!v->number.count)
        return refuse(v, what, err, "expected a count (digits only, at most 2^53), found %s",
                      sd_json_quote(v->number.text, v->number.len).s);
    *n = (uint64_t)v->number.x;
    return SD_OK;
}

sd_status sd_json_string(const sd_json *v, const char *what, const char **str, sd_error *err)
{
    sd_status st = sd_json_expect(v, SD_JSON_STRING, what, err);
    if (st != SD_OK)
        return st;
    if (v->string.nul)
        return refuse(v, what, err, "the string holds a NUL byte (\\u0000)");
    *str = v->string.s;
    return SD_OK;
}

sd_status sd_json_bool(const sd_json *v, const char *what, int *b, sd_error *err)
{
    sd_status st = sd_json_expect(v, SD_JSON_BOOL, what, err);
    if (st != SD_OK)
        return st;
    *b = v->boolean;
    return SD_OK;
}

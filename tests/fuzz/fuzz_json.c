/* fuzz_json.c -- the strict JSON reader (io/json.h, private: sd_json_parse,
 * the lookups and getters).
 *
 * Input: byte 0 picks the options (bit 0 single; bits 1-2 max_depth from
 * DEPTHS; bit 3 max_values 64 instead of the default; bit 4 the round trip
 * writes non-ASCII as \u escapes instead of raw UTF-8); the rest is the
 * JSON, parsed in place (libFuzzer's buffer is exactly that long, so ASan
 * sees any read past len).  Properties:
 *   - on failure the status is SD_EINVAL, *out keeps its sentinel, and the
 *     message is one non-empty line without control bytes, "fuzz.json:LINE:
 *     json: ..." with LINE between 1 and the input's lines;
 *   - on success: every value's line is between 1 and the input's lines and
 *     never decreases in the order written; nesting stays within max_depth
 *     and the values (member names included) within max_values; single
 *     gives one document; every value names the path;
 *   - strings are NUL-terminated, valid UTF-8 by a reference decoder, and
 *     flagged nul exactly when they hold a NUL byte;
 *   - a number's text is its literal: the JSON grammar (by a POSIX regex)
 *     or NaN, Infinity, -Infinity; x is strtod of the text bit for bit (or
 *     NaN, +-infinity for those); finite is isfinite(x); count holds exactly
 *     when the text is digits only with a value of at most 2^53 (strtoull);
 *   - no object has a name twice; sd_json_find finds each NUL-free name's
 *     value; sd_json_at and sd_json_length agree with the arrays; the
 *     getters succeed exactly on the values they ask for;
 *   - the round trip: the documents written back (one a line, strings
 *     re-escaped, numbers as their text) parse again, with the same
 *     options, into the same tree, document i on line i + 1;
 *   - single and sequence agree: single succeeds exactly when the sequence
 *     parse gives one document, and then into the same tree.
 */
#include <math.h>
#include <regex.h>

#include "fuzz_common.h"
#include "io/json.h"

#define FUZZ_PATH "fuzz.json"

static const size_t DEPTHS[4] = { SD_JSON_DEPTH_MAX, 1, 3, 16 };
static regex_t number_grammar;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (regcomp(&number_grammar, "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$", REG_EXTENDED | REG_NOSUB) != 0)
        abort();
    return 0;
}

/* ---- a growable buffer for the round trip ---- */
typedef struct {
    char *s;
    size_t n, cap;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->cap - b->n < n + 1) {
        size_t cap = 2 * (b->n + n) + 64;
        b->s = realloc(b->s, cap);
        if (b->s == NULL)
            abort();
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
}

static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

/* ---- reference checks, independent of json.c ---- */

/* Decodes s[0 .. n - 1] as UTF-8 into code points (cp may be NULL, then
 * counted only): the number of code points, or (size_t)-1 when invalid. */
static size_t ref_utf8(const unsigned char *s, size_t n, unsigned long *cp)
{
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        int extra = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
        if (extra < 0 || (size_t)extra >= n - i) /* s[i + extra] must be inside */
            return (size_t)-1;
        unsigned long v = extra == 0 ? c : extra == 1 ? c & 0x1f : extra == 2 ? c & 0x0f : c & 0x07;
        for (int j = 1; j <= extra; j++) {
            if ((s[i + (size_t)j] & 0xc0) != 0x80)
                return (size_t)-1;
            v = (v << 6) | (s[i + (size_t)j] & 0x3f);
        }
        static const unsigned long LEAST[4] = { 0, 0x80, 0x800, 0x10000 };
        if (v < LEAST[extra] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
            return (size_t)-1;
        if (cp != NULL)
            cp[k] = v;
        k++;
        i += (size_t)extra + 1;
    }
    return k;
}

/* The count flag's definition: digits only, and a value of at most 2^53. */
static int ref_count(const char *text)
{
    if (text[0] == '\0' || strspn(text, "0123456789") != strlen(text) || strlen(text) > 17)
        return 0;
    return strtoull(text, NULL, 10) <= (1ull << 53);
}

static int same_double(double x, double y) { return memcmp(&x, &y, sizeof x) == 0; }

typedef struct {
    size_t lines, last_line, values, max_depth;
} walk;

static void check_value(const sd_json *v, size_t depth, walk *w, const sd_json_options *o);

static void check_line(const sd_json *v, walk *w)
{
    CHECK(v->line >= 1 && v->line <= w->lines, "a value on line %zu of %zu", v->line, w->lines);
    CHECK(v->line >= w->last_line, "line %zu after line %zu", v->line, w->last_line);
    w->last_line = v->line;
    w->values++;
    CHECK(strcmp(v->path, FUZZ_PATH) == 0, "path %s", v->path);
}

static void check_string(const sd_json *v)
{
    CHECK(v->type == SD_JSON_STRING, "a name of type %d", (int)v->type);
    CHECK(v->string.s[v->string.len] == '\0', "a string not terminated at its length");
    CHECK(v->string.nul == (memchr(v->string.s, 0, v->string.len) != NULL), "nul flag %d wrong", v->string.nul);
    CHECK(ref_utf8((const unsigned char *)v->string.s, v->string.len, NULL) != (size_t)-1, "a string is not UTF-8");
}

static void check_number(const sd_json *v)
{
    const char *t = v->number.text;
    CHECK(strlen(t) == v->number.len, "text length %zu, len %zu", strlen(t), v->number.len);
    CHECK(v->number.len <= SD_JSON_NUMBER_MAX, "a literal of %zu bytes", v->number.len);
    double x = v->number.x;
    if (strcmp(t, "NaN") == 0)
        CHECK(isnan(x), "NaN read as %g", x);
    else if (strcmp(t, "Infinity") == 0 || strcmp(t, "-Infinity") == 0)
        CHECK(isinf(x) && (x < 0) == (t[0] == '-'), "%s read as %g", t, x);
    else {
        CHECK(regexec(&number_grammar, t, 0, NULL, 0) == 0, "literal [%s] outside the grammar", t);
        CHECK(same_double(x, strtod(t, NULL)), "[%s] read as %.17g", t, x);
    }
    CHECK(v->number.finite == (isfinite(x) != 0), "finite flag %d for %g", v->number.finite, x);
    CHECK(v->number.count == ref_count(t), "count flag %d for [%s]", v->number.count, t);
}

/* The getters succeed exactly on what they ask for. */
static void check_getters(const sd_json *v)
{
    sd_error err;
    double x = -7.0;
    uint64_t n = 7;
    const char *s = "sentinel";
    int b = 7;
    clear_error(&err);
    sd_status st = sd_json_number(v, "w", &x, &err);
    CHECK((st == SD_OK) == (v->type == SD_JSON_NUMBER && v->number.finite), "sd_json_number: %d", (int)st);
    if (st != SD_OK) {
        check_message(&err, "sd_json_number");
        CHECK(strncmp(err.msg, FUZZ_PATH ":", strlen(FUZZ_PATH ":")) == 0, "a getter's message: %s", err.msg);
        CHECK(x == -7.0, "sd_json_number failed but wrote");
    }
    st = sd_json_count(v, NULL, &n, &err);
    CHECK((st == SD_OK) == (v->type == SD_JSON_NUMBER && v->number.count), "sd_json_count: %d", (int)st);
    CHECK(st != SD_OK || (double)n == v->number.x, "count %llu for %g", (unsigned long long)n, v->number.x);
    st = sd_json_string(v, "w", &s, &err);
    CHECK((st == SD_OK) == (v->type == SD_JSON_STRING && !v->string.nul), "sd_json_string: %d", (int)st);
    CHECK(st != SD_OK || s == v->string.s, "sd_json_string gave another pointer");
    st = sd_json_bool(v, "w", &b, &err);
    CHECK((st == SD_OK) == (v->type == SD_JSON_BOOL), "sd_json_bool: %d", (int)st);
    CHECK(st != SD_OK || b == v->boolean, "sd_json_bool gave %d", b);
    CHECK(sd_json_expect(v, v->type, "w", &err) == SD_OK, "sd_json_expect refused its own type");
}

static void check_value(const sd_json *v, size_t depth, walk *w, const sd_json_options *o)
{
    check_line(v, w);
    check_getters(v);
    switch (v->type) {
    case SD_JSON_NULL: break;
    case SD_JSON_BOOL: CHECK(v->boolean == 0 || v->boolean == 1, "boolean %d", v->boolean); break;
    case SD_JSON_NUMBER: check_number(v); break;
    case SD_JSON_STRING: check_string(v); break;
    case SD_JSON_ARRAY:
        CHECK(depth + 1 <= o->max_depth, "an array at depth %zu", depth + 1);
        CHECK(sd_json_length(v) == v->array.n, "sd_json_length %zu of %zu", sd_json_length(v), v->array.n);
        CHECK(sd_json_at(v, v->array.n) == NULL, "sd_json_at past the end");
        for (size_t i = 0; i < v->array.n; i++) {
            CHECK(sd_json_at(v, i) == &v->array.item[i], "sd_json_at(%zu)", i);
            check_value(&v->array.item[i], depth + 1, w, o);
        }
        break;
    case SD_JSON_OBJECT:
        CHECK(depth + 1 <= o->max_depth, "an object at depth %zu", depth + 1);
        CHECK(sd_json_length(v) == v->object.n, "sd_json_length %zu of %zu", sd_json_length(v), v->object.n);
        CHECK(sd_json_at(v, 0) == NULL, "sd_json_at on an object");
        for (size_t i = 0; i < v->object.n; i++) {
            const sd_json_member *m = &v->object.member[i];
            check_line(&m->name, w);
            check_string(&m->name);
            for (size_t j = 0; j < i; j++)
                CHECK(m->name.string.len != v->object.member[j].name.string.len ||
                          memcmp(m->name.string.s, v->object.member[j].name.string.s, m->name.string.len) != 0,
                      "members %zu and %zu have the same name", j, i);
            if (!m->name.string.nul)
                CHECK(sd_json_find(v, m->name.string.s) == &m->value, "sd_json_find(%s)", m->name.string.s);
            check_value(&m->value, depth + 1, w, o);
        }
        break;
    default: CHECK(0, "type %d", (int)v->type);
    }
}

/* ---- the round trip ---- */

static void write_string(buf *b, const sd_json *v, int ascii)
{
    puts_(b, "\"");
    unsigned long *cp = malloc((v->string.len + 1) * sizeof *cp);
    if (cp == NULL)
        abort();
    const unsigned char *s = (const unsigned char *)v->string.s;
    size_t n = ref_utf8(s, v->string.len, cp), at = 0;
    for (size_t k = 0; k < n; k++) {
        char e[16];
        unsigned long c = cp[k];
        size_t bytes = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        if (c == '"' || c == '\\')
            snprintf(e, sizeof e, "\\%c", (char)c);
        else if (c < 0x20)
            snprintf(e, sizeof e, "\\u%04lx", c);
        else if (c >= 0x80 && ascii && c < 0x10000)
            snprintf(e, sizeof e, "\\u%04lX", c);
        else if (c >= 0x80 && ascii)
            snprintf(e, sizeof e, "\\u%04lx\\u%04lx", 0xd800 + ((c - 0x10000) >> 10), 0xdc00 + ((c - 0x10000) & 0x3ff));
        else {
            memcpy(e, s + at, bytes);
            e[bytes] = '\0';
        }
        put(b, e, strlen(e));
        at += bytes;
    }
    free(cp);
    puts_(b, "\"");
}

static void write_value(buf *b, const sd_json *v, int ascii)
{
    switch (v->type) {
    case SD_JSON_NULL: puts_(b, "null"); break;
    case SD_JSON_BOOL: puts_(b, v->boolean ? "true" : "false"); break;
    case SD_JSON_NUMBER: put(b, v->number.text, v->number.len); break;
    case SD_JSON_STRING: write_string(b, v, ascii); break;
    case SD_JSON_ARRAY:
        puts_(b, "[");
        for (size_t i = 0; i < v->array.n; i++) {
            if (i)
                puts_(b, i % 2 ? "," : " , ");
            write_value(b, &v->array.item[i], ascii);
        }
        puts_(b, "]");
        break;
    case SD_JSON_OBJECT:
        puts_(b, "{");
        for (size_t i = 0; i < v->object.n; i++) {
            if (i)
                puts_(b, ",");
            write_string(b, &v->object.member[i].name, ascii);
            puts_(b, i % 2 ? ":" : " :\t");
            write_value(b, &v->object.member[i].value, ascii);
        }
        puts_(b, "}");
        break;
    }
}

/* a and b are the same tree; b's lines are all line (0: compare with a's). */
static void same_tree(const sd_json *a, const sd_json *b, size_t line)
{
    CHECK(a->type == b->type, "types %d and %d", (int)a->type, (int)b->type);
    CHECK(b->line == (line ? line : a->line), "line %zu, not %zu", b->line, line ? line : a->line);
    switch (a->type) {
    case SD_JSON_NULL: break;
    case SD_JSON_BOOL: CHECK(a->boolean == b->boolean, "booleans differ"); break;
    case SD_JSON_NUMBER:
        CHECK(strcmp(a->number.text, b->number.text) == 0, "[%s] and [%s]", a->number.text, b->number.text);
        CHECK(same_double(a->number.x, b->number.x) || (isnan(a->number.x) && isnan(b->number.x)), "values differ");
        CHECK(a->number.count == b->number.count && a->number.finite == b->number.finite, "flags differ");
        break;
    case SD_JSON_STRING:
        CHECK(a->string.len == b->string.len && memcmp(a->string.s, b->string.s, a->string.len) == 0 &&
                  a->string.nul == b->string.nul,
              "strings differ");
        break;
    case SD_JSON_ARRAY:
        CHECK(a->array.n == b->array.n, "arrays of %zu and %zu", a->array.n, b->array.n);
        for (size_t i = 0; i < a->array.n; i++)
            same_tree(&a->array.item[i], &b->array.item[i], line);
        break;
    case SD_JSON_OBJECT:
        CHECK(a->object.n == b->object.n, "objects of %zu and %zu", a->object.n, b->object.n);
        for (size_t i = 0; i < a->object.n; i++) {
            same_tree(&a->object.member[i].name, &b->object.member[i].name, line);
            same_tree(&a->object.member[i].value, &b->object.member[i].value, line);
        }
        break;
    }
}

static void same_docs(const sd_json_docs *a, const sd_json_docs *b, int by_line)
{
    CHECK(a->n == b->n, "%zu and %zu documents", a->n, b->n);
    for (size_t i = 0; i < a->n; i++)
        same_tree(&a->doc[i], &b->doc[i], by_line ? i + 1 : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t sel = data[0];
    const char *s = (const char *)data + 1;
    size_t len = size - 1, lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += s[i] == '\n';
    sd_json_options o = sd_json_defaults();
    o.single = sel & 1;
    o.max_depth = DEPTHS[(sel >> 1) & 3];
    if (sel & 8)
        o.max_values = 64;
    sd_json_docs d = { .doc = (const sd_json *)(uintptr_t)0x5eed, .n = 4242, .mem = NULL };
    sd_error err;
    clear_error(&err);
    sd_status st = sd_json_parse(s, len, FUZZ_PATH, &o, &d, &err);

    /* single and sequence agree */
    sd_json_options seq = o;
    seq.single = 0;
    sd_json_docs q;
    sd_error qerr;
    sd_status qst = o.single ? sd_json_parse(s, len, FUZZ_PATH, &seq, &q, &qerr) : SD_EINVAL;
    if (o.single) {
        CHECK((st == SD_OK) == (qst == SD_OK && q.n == 1), "single %d, sequence %d with %zu", (int)st, (int)qst,
              qst == SD_OK ? q.n : 0);
        if (st == SD_OK)
            same_docs(&d, &q, 0);
        if (qst == SD_OK)
            sd_json_free(&q);
    }

    if (st != SD_OK) {
        CHECK(st == SD_EINVAL, "status %d: %s", (int)st, err.msg);
        CHECK(d.doc == (const sd_json *)(uintptr_t)0x5eed && d.n == 4242, "a failed parse wrote *out");
        check_message(&err, "sd_json_parse");
        for (const char *c = err.msg; *c; c++)
            CHECK((unsigned char)*c >= 0x20 && *c != 0x7f, "a control byte 0x%02x in the message", (unsigned char)*c);
        char *end = NULL;
        CHECK(strncmp(err.msg, FUZZ_PATH ":", strlen(FUZZ_PATH ":")) == 0, "the message names no path: %s", err.msg);
        unsigned long line = strtoul(err.msg + strlen(FUZZ_PATH ":"), &end, 10);
        CHECK(end != err.msg + strlen(FUZZ_PATH ":") && strncmp(end, ": json: ", 8) == 0, "no line: %s", err.msg);
        CHECK(line >= 1 && line <= lines, "the message's line %lu of %zu", line, lines);
        return 0;
    }
    CHECK(!o.single || d.n == 1, "single gave %zu documents", d.n);
    walk w = { .lines = lines, .last_line = 1, .values = 0, .max_depth = o.max_depth };
    for (size_t i = 0; i < d.n; i++)
        check_value(&d.doc[i], 0, &w, &o);
    CHECK(w.values <= o.max_values, "%zu values, limit %zu", w.values, o.max_values);

    /* the round trip, one document a line */
    buf b = { NULL, 0, 0 };
    put(&b, "", 0);
    for (size_t i = 0; i < d.n; i++) {
        write_value(&b, &d.doc[i], (sel & 16) != 0);
        puts_(&b, "\n");
    }
    sd_json_docs r;
    clear_error(&err);
    st = sd_json_parse(b.s, b.n, FUZZ_PATH, &o, &r, &err);
    CHECK(st == SD_OK, "the round trip fails: %s [%.*s]", err.msg, (int)(b.n < 200 ? b.n : 200), b.s);
    same_docs(&d, &r, 1);
    sd_json_free(&r);
    free(b.s);
    sd_json_free(&d);
    CHECK(d.doc == NULL && d.n == 0 && d.mem == NULL, "sd_json_free left data");
    return 0;
}

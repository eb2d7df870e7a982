/* test_json.c -- the strict JSON reader (io/json.h, private to the library;
 * the runner links the static archive, so it reaches the module directly).
 *
 * Every value type, every escape, surrogate pairs, invalid UTF-8 in each of
 * its forms, every class of error with its exact message and line, the
 * limits (depth, values, literal length), duplicate names, sequences of
 * documents, Python's NaN and Infinity, numbers past a double's range, and
 * the count flag on both sides of 2^53.  Inputs are copied into buffers of
 * exactly their length, so that under ASan (make sanitize) a read past len
 * fails the test. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"
#include "testutil.h"

Suite *json_suite(void);

#define PATH "t.json"

/* s[0 .. len - 1] parsed from a malloc'd copy of exactly len bytes (no NUL
 * after it), with options o (NULL: the defaults). */
static sd_status parse_n(const char *s, size_t len, const sd_json_options *o, sd_json_docs *d, sd_error *err)
{
    char *copy = malloc(len > 0 ? len : 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, s, len);
    sd_status st = sd_json_parse(copy, len, PATH, o, d, err);
    free(copy);
    return st;
}

static sd_json_docs parse_ok_n(const char *s, size_t len, const sd_json_options *o)
{
    sd_json_docs d;
    sd_error err = { "" };
    sd_status st = parse_n(s, len, o, &d, &err);
    ck_assert_msg(st == SD_OK, "[%s]: %s", s, err.msg);
    return d;
}

static sd_json_docs parse_ok(const char *s) { return parse_ok_n(s, strlen(s), NULL); }

/* The one document of s. */
static const sd_json *one(const char *s, sd_json_docs *d)
{
    *d = parse_ok(s);
    ck_assert_uint_eq(d->n, 1);
    return &d->doc[0];
}

/* s[0 .. len - 1] is refused with exactly the message msg, and *out untouched. */
static void refused_n(const char *s, size_t len, const sd_json_options *o, const char *msg)
{
    sd_json_docs d = { .doc = (const sd_json *)(uintptr_t)0x5eed, .n = 4242, .mem = NULL };
    sd_error err = { "" };
    sd_status st = parse_n(s, len, o, &d, &err);
    ck_assert_msg(st == SD_EINVAL, "[%.*s] gave status %d (%s)", (int)len, s, (int)st, err.msg);
    ck_assert_str_eq(err.msg, msg);
    ck_assert_msg(d.doc == (const sd_json *)(uintptr_t)0x5eed && d.n == 4242, "a failed parse wrote *out");
    for (const char *c = err.msg; *c; c++)
        ck_assert_msg((unsigned char)*c >= 0x20 && *c != 0x7f, "a control byte in [%s]", err.msg);
}

static void refused(const char *s, const char *msg) { refused_n(s, strlen(s), NULL, msg); }

START_TEST(json_every_value_type)
{
    sd_json_docs d;
    const sd_json *v = one("{\"n\": null, \"t\": true, \"f\": false,\n"
                           " \"x\": -2.385e-3, \"s\": \"caf\\u00e9\",\n"
                           " \"a\": [1, [], {}, \"\"],\n"
                           " \"o\": {\"k\": 7}}",
                           &d);
    ck_assert_int_eq(v->type, SD_JSON_OBJECT);
    ck_assert_uint_eq(v->line, 1);
    ck_assert_str_eq(v->path, PATH);
    ck_assert_uint_eq(sd_json_length(v), 7);
    static const char *const NAMES[] = { "n", "t", "f", "x", "s", "a", "o" }; /* in the order written */
    static const size_t LINES[] = { 1, 1, 1, 2, 2, 3, 4 };
    for (size_t i = 0; i < 7; i++) {
        ck_assert_str_eq(v->object.member[i].name.string.s, NAMES[i]);
        ck_assert_uint_eq(v->object.member[i].name.line, LINES[i]);
        ck_assert_uint_eq(v->object.member[i].value.line, LINES[i]);
    }
    ck_assert_int_eq(sd_json_find(v, "n")->type, SD_JSON_NULL);
    ck_assert_int_eq(sd_json_find(v, "t")->type, SD_JSON_BOOL);
    ck_assert_int_eq(sd_json_find(v, "t")->boolean, 1);
    ck_assert_int_eq(sd_json_find(v, "f")->boolean, 0);
    const sd_json *x = sd_json_find(v, "x");
    ck_assert_int_eq(x->type, SD_JSON_NUMBER);
    ck_assert_double_eq(x->number.x, -2.385e-3);
    ck_assert_str_eq(x->number.text, "-2.385e-3");
    ck_assert_uint_eq(x->number.len, 9);
    ck_assert_int_eq(x->number.finite, 1);
    ck_assert_int_eq(x->number.count, 0);
    const sd_json *s = sd_json_find(v, "s");
    ck_assert_int_eq(s->type, SD_JSON_STRING);
    ck_assert_str_eq(s->string.s, "caf\xc3\xa9");
    ck_assert_uint_eq(s->string.len, 5);
    ck_assert_int_eq(s->string.nul, 0);
    const sd_json *a = sd_json_find(v, "a");
    ck_assert_int_eq(a->type, SD_JSON_ARRAY);
    ck_assert_uint_eq(sd_json_length(a), 4);
    ck_assert_int_eq(sd_json_at(a, 0)->number.count, 1);
    ck_assert_double_eq(sd_json_at(a, 0)->number.x, 1.0);
    ck_assert_int_eq(sd_json_at(a, 1)->type, SD_JSON_ARRAY);
    ck_assert_uint_eq(sd_json_length(sd_json_at(a, 1)), 0);
    ck_assert_int_eq(sd_json_at(a, 2)->type, SD_JSON_OBJECT);
    ck_assert_uint_eq(sd_json_length(sd_json_at(a, 2)), 0);
    ck_assert_uint_eq(sd_json_at(a, 3)->string.len, 0);
    ck_assert_str_eq(sd_json_at(a, 3)->string.s, "");
    ck_assert_ptr_null(sd_json_at(a, 4));
    const sd_json *o = sd_json_find(v, "o");
    ck_assert_uint_eq(o->line, 4);
    ck_assert_double_eq(sd_json_find(o, "k")->number.x, 7.0);
    ck_assert_ptr_null(sd_json_find(v, "k"));
    sd_json_free(&d);
    ck_assert_ptr_null(d.doc);
    ck_assert_uint_eq(d.n, 0);
    sd_json_free(&d); /* a zeroed set frees again */
}
END_TEST

START_TEST(json_string_escapes_and_surrogates)
{
    sd_json_docs d;
    const sd_json *v = one("[\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\", \"\\u0041\\u00e9\\u20AC\\uFFFF\","
                           " \"\\uD83D\\uDE00\\udbff\\udfff\", \"a\\u0000b\", \"\xe2\x82\xac \xf0\x9f\x98\x80 \x7f\"]",
                           &d);
    ck_assert_uint_eq(sd_json_length(v), 5);
    const sd_json *e = sd_json_at(v, 0);
    ck_assert_str_eq(e->string.s, "\" \\ / \b \f \n \r \t");
    ck_assert_uint_eq(e->string.len, 15);
    ck_assert_str_eq(sd_json_at(v, 1)->string.s, "A\xc3\xa9\xe2\x82\xac\xef\xbf\xbf"); /* 1, 2, 3 and 3 bytes */
    ck_assert_uint_eq(sd_json_at(v, 1)->string.len, 9);
    /* U+1F600 and U+10FFFF, the last code point, from surrogate pairs (either case) */
    ck_assert_str_eq(sd_json_at(v, 2)->string.s, "\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf");
    const sd_json *nul = sd_json_at(v, 3);
    ck_assert_uint_eq(nul->string.len, 3);
    ck_assert_int_eq(nul->string.nul, 1);
    ck_assert_int_eq(memcmp(nul->string.s, "a\0b", 4), 0);
    ck_assert_str_eq(sd_json_at(v, 4)->string.s, "\xe2\x82\xac \xf0\x9f\x98\x80 \x7f"); /* raw UTF-8 and DEL kept */
    ck_assert_int_eq(sd_json_at(v, 4)->string.nul, 0);
    const char *str = "untouched";
    sd_error err;
    ck_assert_int_eq(sd_json_string(nul, "text", &str, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t.json:1: json: text: the string holds a NUL byte (\\u0000)");
    ck_assert_str_eq(str, "untouched");
    ck_assert_int_eq(sd_json_string(sd_json_at(v, 1), "text", &str, &err), SD_OK);
    ck_assert_str_eq(str, "A\xc3\xa9\xe2\x82\xac\xef\xbf\xbf");
    sd_json_free(&d);

    /* names with NUL bytes: distinct from each other and from the name cut at the NUL; never found */
    v = one("{\"a\\u0000b\": 1, \"a\\u0000c\": 2, \"a\": 3}", &d);
    ck_assert_uint_eq(sd_json_length(v), 3);
    ck_assert_int_eq(v->object.member[0].name.string.nul, 1);
    ck_assert_double_eq(sd_json_find(v, "a")->number.x, 3.0);
    sd_json_free(&d);

    refused("\"\\uD800\"", "t.json:1: json: a lone surrogate \\uD800 in a string "
                           "(a high surrogate not followed by \\uDC00 to \\uDFFF)");
    refused("\"\\uDBFF\\u0041\"", "t.json:1: json: a lone surrogate \\uDBFF in a string "
                                  "(a high surrogate not followed by \\uDC00 to \\uDFFF)");
    refused("\"\\uD800\\uD800\"", "t.json:1: json: a lone surrogate \\uD800 in a string "
                                  "(a high surrogate not followed by \\uDC00 to \\uDFFF)");
    refused("\"\\uD800\\u", "t.json:1: json: a lone surrogate \\uD800 in a string "
                            "(a high surrogate not followed by \\uDC00 to \\uDFFF)");
    refused("\"x\\uDC00\"", "t.json:1: json: a lone surrogate \\uDC00 in a string "
                            "(a low surrogate with no high one before it)");
    refused("\n\"\\u12\"", "t.json:2: json: invalid escape in a string: \\u needs four hex digits");
    refused("\"\\u12g4\"", "t.json:1: json: invalid escape in a string: \\u needs four hex digits");
    refused("\"\\u004", "t.json:1: json: invalid escape in a string: \\u needs four hex digits");
    refused("\"\\x41\"", "t.json:1: json: invalid escape in a string: '\\' followed by 'x'");
    refused("\"\\\n\"", "t.json:1: json: invalid escape in a string: '\\' followed by byte 0x0a");
    refused("\"\\", "t.json:1: json: the input ends inside a string");
    refused("[\n\"abc", "t.json:2: json: the input ends inside a string");
    refused("\"a\nb\"", "t.json:1: json: a raw control byte 0x0a in a string (JSON writes it as an escape)");
    refused("\"\t\"", "t.json:1: json: a raw control byte 0x09 in a string (JSON writes it as an escape)");
    refused_n("\"a\0b\"", 5, NULL, "t.json:1: json: a raw control byte 0x00 in a string (JSON writes it as an escape)");
}
END_TEST

START_TEST(json_invalid_utf8)
{
    static const struct {
        const char *in, *msg;
    } CASES[] = {
        { "\"\x80\"", "t.json:1: json: invalid UTF-8 in a string at \"\\x80\\\"\"" },            /* a lone continuation */
        { "\"\xc0\xaf\"", "t.json:1: json: invalid UTF-8 in a string at \"\\xc0\\xaf\\\"\"" },  /* overlong '/' */
        { "\"\xc1\xbf\"", "t.json:1: json: invalid UTF-8 in a string at \"\\xc1\\xbf\\\"\"" },  /* overlong */
        { "\"\xe0\x80\xaf\"", "t.json:1: json: invalid UTF-8 in a string at \"\\xe0\\x80\\xaf\\\"\"" }, /* overlong */
        { "\"\xed\xa0\x80\"", "t.json:1: json: invalid UTF-8 in a string at \"\\xed\\xa0\\x80\\\"\"" }, /* U+D800 */
        { "\"\xf0\x8f\xbf\xbf\"", "t.json:1: json: invalid UTF-8 in a string at \"\\xf0\\x8f\\xbf\\xbf\"" }, /* overlong */
        { "\"\xf4\x90\x80\x80\"", "t.json:1: json: invalid UTF-8 in a string at \"\\xf4\\x90\\x80\\x80\"" }, /* > U+10FFFF */
        { "\"\xf5\x80\x80\x80\"", "t.json:1: json: invalid UTF-8 in a string at \"\\xf5\\x80\\x80\\x80\"" },
        { "\"\xff\"", "t.json:1: json: invalid UTF-8 in a string at \"\\xff\\\"\"" },
        { "\"\xc3(\"", "t.json:1: json: invalid UTF-8 in a string at \"\\xc3(\\\"\"" }, /* a bad second byte */
        { "\"\xe2\x82(\"", "t.json:1: json: invalid UTF-8 in a string at \"\\xe2\\x82(\\\"\"" },
        { "\n\n\"ok\xe2\x82", "t.json:3: json: invalid UTF-8 in a string at \"\\xe2\\x82\"" }, /* cut by the end */
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        refused(CASES[i].in, CASES[i].msg);
    /* the edges that are valid: U+0080, U+07FF, U+0800, U+D7FF, U+E000, U+FFFF, U+10000, U+10FFFF */
    sd_json_docs d;
    const char *edges = "\"\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"";
    const sd_json *v = one(edges, &d);
    ck_assert_uint_eq(v->string.len, 2 + 2 + 3 + 3 + 3 + 3 + 4 + 4);
    ck_assert_int_eq(memcmp(v->string.s, edges + 1, v->string.len), 0);
    sd_json_free(&d);
}
END_TEST

START_TEST(json_syntax_errors_name_their_line)
{
    static const struct {
        const char *in, *msg;
    } CASES[] = {
        { "{\"a\": 1]", "t.json:1: json: expected ',' or '}' after an object member, found ']'" },
        { "{\n \"a\": 1\n \"b\": 2}", "t.json:3: json: expected ',' or '}' after an object member, found '\"'" },
        { "[1 2]", "t.json:1: json: expected ',' or ']' after an array element, found '2'" },
        { "[1,\n]", "t.json:2: json: expected a value, found ']'" },
        { "[}", "t.json:1: json: expected a value, found '}'" },
        { "]", "t.json:1: json: expected a value, found ']'" },
        { "\n\n,", "t.json:3: json: expected a value, found ','" },
        { "[\x01]", "t.json:1: json: expected a value, found byte 0x01" },
        { "{\"a\" 1}", "t.json:1: json: expected ':' after the member name \"a\", found '1'" },
        { "{\"a\"", "t.json:1: json: the input ends inside an object opened on line 1 "
                    "(expected ':' after the member name \"a\")" },
        { "{1: 2}", "t.json:1: json: expected a member name (a string) or '}' after '{', found '1'" },
        { "{\"a\": 1,}", "t.json:1: json: expected a member name (a string) after ',', found '}'" },
        { "[", "t.json:1: json: the input ends inside an array opened on line 1 (expected a value)" },
        { "{\"a\":\n[1,\n2", "t.json:3: json: the input ends inside an array opened on line 2 "
                            "(expected ',' or ']' after an array element)" },
        { "{\"a\": 1", "t.json:1: json: the input ends inside an object opened on line 1 "
                       "(expected ',' or '}' after an object member)" },
        { "{\"a\":", "t.json:1: json: the input ends inside an object opened on line 1 (expected a value)" },
        { "{", "t.json:1: json: the input ends inside an object opened on line 1 "
               "(expected a member name (a string) or '}' after '{')" },
        { "tru", "t.json:1: json: invalid literal \"tru\" (expected true, false, null, NaN or Infinity)" },
        { "[True]", "t.json:1: json: invalid literal \"True\" (expected true, false, null, NaN or Infinity)" },
        { "nulls", "t.json:1: json: invalid literal \"nulls\" (expected true, false, null, NaN or Infinity)" },
        { "[1]x", "t.json:1: json: invalid literal \"x\" (expected true, false, null, NaN or Infinity)" },
        { "01", "t.json:1: json: invalid number \"01\" (JSON numbers have no leading zeros)" },
        { "-012", "t.json:1: json: invalid number \"-012\" (JSON numbers have no leading zeros)" },
        { "-", "t.json:1: json: invalid number \"-\"" },
        { "[-]", "t.json:1: json: invalid number \"-\"" },
        { "1.", "t.json:1: json: invalid number \"1.\"" },
        { "1.e5", "t.json:1: json: invalid number \"1.e5\"" },
        { "1e", "t.json:1: json: invalid number \"1e\"" },
        { "1e+", "t.json:1: json: invalid number \"1e+\"" },
        { "1.5.3", "t.json:1: json: invalid number \"1.5.3\"" },
        { "0x10", "t.json:1: json: invalid number \"0x10\"" },
        { "1true", "t.json:1: json: invalid number \"1true\"" },
        { ".5", "t.json:1: json: expected a value, found '.'" },
        { "+1", "t.json:1: json: expected a value, found '+'" },
        { "\n\n\n{\"s\": \"a\"\x80}", "t.json:4: json: expected ',' or '}' after an object member, found byte 0x80" },
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        refused(CASES[i].in, CASES[i].msg);
    /* a CR alone ends no line, CR LF counts once; a token quoted at most 40 bytes, escaped */
    refused("\r\r\n\r[1,,]", "t.json:2: json: expected a value, found ','");
    refused("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "t.json:1: json: invalid literal \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\" "
            "(expected true, false, null, NaN or Infinity)");
    refused_n("[\0]", 3, NULL, "t.json:1: json: expected a value, found byte 0x00");
}
END_TEST

/* "[" x depth, then "]" x depth. */
static char *nested(size_t depth)
{
    char *s = malloc(2 * depth + 1);
    ck_assert_ptr_nonnull(s);
    memset(s, '[', depth);
    memset(s + depth, ']', depth);
    s[2 * depth] = '\0';
    return s;
}

START_TEST(json_depth_limit)
{
    char *s = nested(SD_JSON_DEPTH_MAX);
    sd_json_docs d = parse_ok(s);
    const sd_json *v = &d.doc[0];
    for (size_t i = 1; i < SD_JSON_DEPTH_MAX; i++) {
        ck_assert_uint_eq(sd_json_length(v), 1);
        v = sd_json_at(v, 0);
    }
    ck_assert_uint_eq(sd_json_length(v), 0);
    sd_json_free(&d);
    free(s);
    s = nested(SD_JSON_DEPTH_MAX + 1);
    refused(s, "t.json:1: json: nested deeper than 64 arrays and objects (the limit)");
    free(s);
    s = nested(1000000); /* no stack to blow: refused at the 65th bracket */
    refused(s, "t.json:1: json: nested deeper than 64 arrays and objects (the limit)");
    free(s);
    sd_json_options o = sd_json_defaults();
    o.max_depth = 2;
    sd_json_docs ok = parse_ok_n("{\"a\": [1]}", 10, &o);
    sd_json_free(&ok);
    refused_n("\n{\"a\": [{}]}", 12, &o, "t.json:2: json: nested deeper than 2 arrays and objects (the limit)");
    o.max_depth = 1;
    refused_n("[[]]", 4, &o, "t.json:1: json: nested deeper than 1 arrays and objects (the limit)");
}
END_TEST

START_TEST(json_value_and_size_limits)
{
    sd_json_options o = sd_json_defaults();
    ck_assert_int_eq(o.single, 0);
    ck_assert_uint_eq(o.max_depth, 64);
    ck_assert_uint_eq(o.max_values, (size_t)1 << 24);
    o.max_values = 4; /* the array, its two values, one name */
    sd_json_docs d = parse_ok_n("[1, {}]", 7, &o);
    sd_json_free(&d);
    d = parse_ok_n("{\"a\": 1} 2", 10, &o); /* the object, the name, 1, 2 */
    ck_assert_uint_eq(d.n, 2);
    sd_json_free(&d);
    refused_n("[1, 2,\n 3, 4]", 13, &o, "t.json:2: json: more than 4 values (the limit)");
    refused_n("{\"a\": 1, \"b\": 2}", 16, &o, "t.json:1: json: more than 4 values (the limit)");
    o.max_values = 0;
    refused_n("1", 1, &o, "t.json: json: max_values 0 is outside [1, 16777216]");
    o.max_values = SD_JSON_VALUES_MAX + 1;
    refused_n("1", 1, &o, "t.json: json: max_values 16777217 is outside [1, 16777216]");
    o = sd_json_defaults();
    o.max_depth = 0;
    refused_n("1", 1, &o, "t.json: json: max_depth 0 is outside [1, 64]");
    o.max_depth = 65;
    refused_n("1", 1, &o, "t.json: json: max_depth 65 is outside [1, 64]");
    /* the input limit, checked before a byte is read (a pointer that must not be read) */
    sd_error err;
    ck_assert_int_eq(sd_json_parse("", SD_JSON_INPUT_MAX + 1, PATH, NULL, &d, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t.json: json: larger than 1073741824 bytes (the limit)");
    /* a number literal of 4096 bytes is read, one of 4097 refused */
    char *lit = malloc(SD_JSON_NUMBER_MAX + 2);
    ck_assert_ptr_nonnull(lit);
    memset(lit, '7', SD_JSON_NUMBER_MAX + 1);
    lit[SD_JSON_NUMBER_MAX + 1] = '\0';
    d = parse_ok_n(lit, SD_JSON_NUMBER_MAX, NULL);
    ck_assert_uint_eq(d.doc[0].number.len, SD_JSON_NUMBER_MAX);
    ck_assert_int_eq(d.doc[0].number.finite, 0); /* 7.7e4095 is past DBL_MAX */
    sd_json_free(&d);
    refused_n(lit, SD_JSON_NUMBER_MAX + 1, NULL, "t.json:1: json: a number literal longer than 4096 bytes (the limit)");
    free(lit);
}
END_TEST

/* An object of n members "k0" .. "k{n-1}", with member dup renamed to "k{first}"
 * (dup > first; no duplicate when dup == n), one member a line. */
static char *object_of(size_t n, size_t first, size_t dup)
{
    char *s = malloc(32 * n + 8);
    ck_assert_ptr_nonnull(s);
    size_t k = (size_t)sprintf(s, "{");
    for (size_t i = 0; i < n; i++)
        k += (size_t)sprintf(s + k, "%s\"k%zu\": %zu\n", i ? "," : "", i == dup ? first : i, i);
    sprintf(s + k, "}");
    return s;
}

START_TEST(json_duplicate_names)
{
    refused("{\"a\": 1,\n \"b\": 2,\n \"a\": 3}", "t.json:3: json: duplicate member name \"a\" in an object (first on line 1)");
    refused("[{\"x\": {\"b\": 1, \"b\": 2}}]",
            "t.json:1: json: duplicate member name \"b\" in an object (first on line 1)");
    refused("{\"\\u00e9\": 1, \"\xc3\xa9\": 2}", /* the same name, escaped and not */
            "t.json:1: json: duplicate member name \"\\xc3\\xa9\" in an object (first on line 1)");
    refused("{\"a\\u0000\": 1, \"a\\u0000\": 2}",
            "t.json:1: json: duplicate member name \"a\\x00\" in an object (first on line 1)");
    /* the same name in two objects is fine */
    sd_json_docs d = parse_ok("[{\"a\": 1}, {\"a\": 2}] {\"a\": {\"a\": 3}}");
    sd_json_free(&d);
    /* large objects go through the sort: the first repeat in the order written is named */
    char *s = object_of(1000, 0, 1000);
    d = parse_ok(s);
    ck_assert_uint_eq(sd_json_length(&d.doc[0]), 1000);
    ck_assert_double_eq(sd_json_find(&d.doc[0], "k999")->number.x, 999.0);
    sd_json_free(&d);
    free(s);
    s = object_of(1000, 700, 900);
    refused(s, "t.json:901: json: duplicate member name \"k700\" in an object (first on line 701)");
    free(s);
    s = object_of(17, 3, 5);
    refused(s, "t.json:6: json: duplicate member name \"k3\" in an object (first on line 4)");
    free(s);
    /* two repeated names: k5 again on line 601, k2 again on line 801 -> k5 is named */
    s = object_of(1000, 5, 600);
    char *t = strstr(s, "\"k800\"");
    ck_assert_ptr_nonnull(t);
    memcpy(t, "\"k2\"  ", 6);
    refused(s, "t.json:601: json: duplicate member name \"k5\" in an object (first on line 6)");
    free(s);
}
END_TEST

START_TEST(json_sequences_of_documents)
{
    sd_json_docs d = parse_ok("{\"id\": 1}\n{\"id\": 2}\n\n  [3,\n4]\n\"five\" 6 null\n");
    ck_assert_uint_eq(d.n, 6);
    static const size_t LINES[] = { 1, 2, 4, 6, 6, 6 };
    static const sd_json_type TYPES[] = { SD_JSON_OBJECT, SD_JSON_OBJECT, SD_JSON_ARRAY,
                                          SD_JSON_STRING, SD_JSON_NUMBER, SD_JSON_NULL };
    for (size_t i = 0; i < d.n; i++) {
        ck_assert_uint_eq(d.doc[i].line, LINES[i]);
        ck_assert_int_eq(d.doc[i].type, TYPES[i]);
    }
    ck_assert_double_eq(sd_json_find(&d.doc[1], "id")->number.x, 2.0);
    ck_assert_uint_eq(sd_json_at(&d.doc[2], 1)->line, 5);
    sd_json_free(&d);
    /* concatenated without whitespace where the values delimit themselves */
    d = parse_ok("{\"a\":1}{\"a\":2}[]\"s\"[1]2");
    ck_assert_uint_eq(d.n, 6);
    ck_assert_double_eq(d.doc[5].number.x, 2.0);
    sd_json_free(&d);
    /* empty containers first of all (nothing pending yet) */
    d = parse_ok("[]{}");
    ck_assert_uint_eq(d.n, 2);
    ck_assert_int_eq(d.doc[0].type, SD_JSON_ARRAY);
    ck_assert_ptr_null(d.doc[0].array.item);
    ck_assert_int_eq(d.doc[1].type, SD_JSON_OBJECT);
    ck_assert_uint_eq(sd_json_length(&d.doc[1]), 0);
    sd_json_free(&d);
    /* nothing: zero documents */
    d = parse_ok("");
    ck_assert_uint_eq(d.n, 0);
    ck_assert_ptr_null(d.doc);
    sd_json_free(&d);
    d = parse_ok(" \n\t\r\n ");
    ck_assert_uint_eq(d.n, 0);
    sd_json_free(&d);
    /* a byte order mark at the start only */
    d = parse_ok("\xef\xbb\xbf[1]");
    ck_assert_uint_eq(d.n, 1);
    sd_json_free(&d);
    refused(" \xef\xbb\xbf[1]", "t.json:1: json: expected a value, found byte 0xef");
    /* one document exactly */
    sd_json_options o = sd_json_defaults();
    o.single = 1;
    d = parse_ok_n("\n {\"a\": [1]} \n", 14, &o);
    ck_assert_uint_eq(d.n, 1);
    ck_assert_uint_eq(d.doc[0].line, 2);
    sd_json_free(&d);
    refused_n("{\"a\": 1}\n{\"a\": 2}", 17, &o, "t.json:2: json: expected the end of the input after the document, found '{'");
    refused_n("1 2", 3, &o, "t.json:1: json: expected the end of the input after the document, found '2'");
    refused_n("", 0, &o, "t.json:1: json: no value: the input is empty");
    refused_n("\n\n", 2, &o, "t.json:3: json: no value: the input is empty");
    /* an error in a later document names its line */
    refused("{\"ok\": 1}\n{\"ok\": 2}\n{\"ok\" 3}\n", "t.json:3: json: expected ':' after the member name \"ok\", found '3'");
}
END_TEST

START_TEST(json_python_nan_and_infinity)
{
    sd_json_docs d;
    const sd_json *v = one("[NaN, Infinity, -Infinity, 1e400, -1e400]", &d);
    ck_assert(isnan(sd_json_at(v, 0)->number.x));
    ck_assert(isinf(sd_json_at(v, 1)->number.x) && sd_json_at(v, 1)->number.x > 0);
    ck_assert(isinf(sd_json_at(v, 2)->number.x) && sd_json_at(v, 2)->number.x < 0);
    ck_assert(isinf(sd_json_at(v, 3)->number.x) && sd_json_at(v, 3)->number.x > 0);
    ck_assert(isinf(sd_json_at(v, 4)->number.x) && sd_json_at(v, 4)->number.x < 0);
    static const char *const TEXTS[] = { "NaN", "Infinity", "-Infinity", "1e400", "-1e400" };
    for (size_t i = 0; i < 5; i++) {
        ck_assert_int_eq(sd_json_at(v, i)->type, SD_JSON_NUMBER);
        ck_assert_int_eq(sd_json_at(v, i)->number.finite, 0);
        ck_assert_int_eq(sd_json_at(v, i)->number.count, 0);
        ck_assert_str_eq(sd_json_at(v, i)->number.text, TEXTS[i]);
    }
    double x = 2.385;
    sd_error err;
    ck_assert_int_eq(sd_json_number(sd_json_at(v, 0), "mean_tpot_ms", &x, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t.json:1: json: mean_tpot_ms: \"NaN\" is not a finite number");
    ck_assert_int_eq(sd_json_number(sd_json_at(v, 2), NULL, &x, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t.json:1: json: \"-Infinity\" is not a finite number");
    ck_assert_int_eq(sd_json_number(sd_json_at(v, 3), "big", &x, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t.json:1: json: big: \"1e400\" is not a finite number");
    ck_assert_double_eq(x, 2.385);
    sd_json_free(&d);
    /* only Python's spellings */
    refused("nan", "t.json:1: json: invalid literal \"nan\" (expected true, false, null, NaN or Infinity)");
    refused("[inf]", "t.json:1: json: invalid literal \"inf\" (expected true, false, null, NaN or Infinity)");
    refused("-NaN", "t.json:1: json: invalid number \"-NaN\"");
    refused("+Infinity", "t.json:1: json: expected a value, found '+'");
    refused("Infinityx", "t.json:1: json: invalid literal \"Infinityx\" (expected true, false, null, NaN or Infinity)");
    refused("-Infinity1", "t.json:1: json: invalid number \"-Infinity1\"");
}
END_TEST

START_TEST(json_numbers_and_the_count_flag)
{
    static const struct {
        const char *text;
        double x;
        int count;
    } CASES[] = {
        { "0", 0.0, 1 },
        { "-0", -0.0, 0 },
        { "7", 7.0, 1 },
        { "3.0", 3.0, 0 },
        { "3e0", 3.0, 0 },
        { "-3", -3.0, 0 },
        { "0.1", 0.1, 0 },
        { "2.385E+2", 238.5, 0 },
        { "1e-400", 0.0, 0 }, /* underflows to 0, finite */
        { "4.9e-324", 4.9e-324, 0 },
        { "1.7976931348623157e308", 1.7976931348623157e308, 0 },
        { "999999999999999", 999999999999999.0, 1 }, /* 15 digits */
        { "1000000000000000", 1e15, 1 },             /* 16 digits below 2^53 */
        { "9007199254740991", 9007199254740991.0, 1 },
        { "9007199254740992", 9007199254740992.0, 1 }, /* 2^53 */
        { "9007199254740993", 9007199254740992.0, 0 }, /* 2^53 + 1 rounds to 2^53: not a count */
        { "9007199254740994", 9007199254740994.0, 0 },
        { "10000000000000000", 1e16, 0 },
        { "123456789012345678901234567890", 1.2345678901234568e29, 0 },
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        sd_json_docs d;
        const sd_json *v = one(CASES[i].text, &d);
        ck_assert_int_eq(v->type, SD_JSON_NUMBER);
        ck_assert_msg(memcmp(&v->number.x, &CASES[i].x, sizeof(double)) == 0, "%s read as %.17g", CASES[i].text,
                      v->number.x);
        ck_assert_str_eq(v->number.text, CASES[i].text);
        ck_assert_uint_eq(v->number.len, strlen(CASES[i].text));
        ck_assert_int_eq(v->number.finite, 1);
        ck_assert_msg(v->number.count == CASES[i].count, "%s: count %d", CASES[i].text, v->number.count);
        uint64_t n = 4242;
        sd_error err;
        sd_status st = sd_json_count(v, "num_drafts", &n, &err);
        if (CASES[i].count) {
            ck_assert_int_eq(st, SD_OK);
            ck_assert(n == (uint64_t)CASES[i].x);
        } else {
            char msg[200];
            snprintf(msg, sizeof msg, "t.json:1: json: num_drafts: expected a count (digits only, at most 2^53), found \"%s\"",
                     CASES[i].text);
            ck_assert_int_eq(st, SD_EINVAL);
            ck_assert_str_eq(err.msg, msg);
            ck_assert(n == 4242);
        }
        sd_json_free(&d);
    }
    sd_json_docs d;
    uint64_t n = 0;
    sd_error err;
    ck_assert_int_eq(sd_json_count(one("9007199254740992", &d), NULL, &n, &err), SD_OK);
    ck_assert(n == UINT64_C(9007199254740992));
    sd_json_free(&d);
}
END_TEST

START_TEST(json_lookups_and_getters)
{
    sd_json_docs d;
    const sd_json *v = one("{\"timings\": {\"predicted_n\": 128, \"draft_n\": 3.5,\n"
                           "  \"name\": \"llama\", \"on\": true},\n \"list\": [0.25, \"x\"]}",
                           &d);
    const sd_json *t = NULL, *m = NULL;
    sd_error err;
    ck_assert_int_eq(sd_json_get(v, "timings", &t, &err), SD_OK);
    ck_assert_ptr_eq(t, sd_json_find(v, "timings"));
    ck_assert_int_eq(sd_json_expect(t, SD_JSON_OBJECT, "timings", &err), SD_OK);
    ck_assert_int_eq(sd_json_expect(t, SD_JSON_ARRAY, "timings", &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t.json:1: json: timings: expected an array, found an object");
    ck_assert_int_eq(sd_json_get(t, "predicted_n", &m, &err), SD_OK);
    uint64_t n = 0;
    ck_assert_int_eq(sd_json_count(m, "predicted_n", &n, &err), SD_OK);
    ck_assert(n == 128);
    double x = 0;
    ck_assert_int_eq(sd_json_number(sd_json_find(t, "draft_n"), "draft_n", &x, &err), SD_OK);
    ck_assert_double_eq(x, 3.5);
    ck_assert_int_eq(sd_json_count(sd_json_find(t, "draft_n"), "draft_n", &n, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t.json:1: json: draft_n: expected a count (digits only, at most 2^53), found \"3.5\"");
    ck_assert_int_eq(sd_json_number(sd_json_find(t, "name"), "name", &x, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t.json:2: json: name: expected a number, found a string");
    ck_assert_int_eq(sd_json_count(sd_json_find(t, "name"), "name", &n, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t.json:2: json: name: expected a number, found a string");
    const char *s = NULL;
    ck_assert_int_eq(sd_json_string(sd_json_find(t, "name"), "name", &s, &err), SD_OK);
    ck_assert_str_eq(s, "llama");
    ck_assert_int_eq(sd_json_string(m, "predicted_n", &s, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t.json:1: json: predicted_n: expected a string, found a number");
    int b = 7;
    ck_assert_int_eq(sd_json_bool(sd_json_find(t, "on"), "on", &b, &err), SD_OK);
    ck_assert_int_eq(b, 1);
    ck_assert_int_eq(sd_json_bool(m, NULL, &b, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t.json:1: json: expected a boolean, found a number");
    ck_assert_int_eq(b, 1);
    /* missing members and non-objects: named, on the object's line, *out untouched */
    const sd_json *l = sd_json_find(v, "list");
    m = (const sd_json *)(uintptr_t)0x5eed;
    ck_assert_int_eq(sd_json_get(t, "accepted_n", &m, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t.json:1: json: the object has no member \"accepted_n\"");
    ck_assert_int_eq(sd_json_get(l, "x", &m, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t.json:3: json: expected an object with a member \"x\", found an array");
    ck_assert_ptr_eq(m, (const sd_json *)(uintptr_t)0x5eed);
    /* find, length and at on what they do not apply to */
    ck_assert_ptr_null(sd_json_find(NULL, "a"));
    ck_assert_ptr_null(sd_json_find(l, "x"));
    ck_assert_ptr_null(sd_json_find(t, "predicted"));  /* a prefix of a name */
    ck_assert_ptr_null(sd_json_find(t, "predicted_nx")); /* a name is a prefix */
    ck_assert_uint_eq(sd_json_length(NULL), 0);
    ck_assert_uint_eq(sd_json_length(sd_json_find(t, "on")), 0);
    ck_assert_uint_eq(sd_json_length(t), 4);
    ck_assert_uint_eq(sd_json_length(l), 2);
    ck_assert_ptr_null(sd_json_at(NULL, 0));
    ck_assert_ptr_null(sd_json_at(t, 0)); /* an object has no items */
    ck_assert_ptr_null(sd_json_at(l, 2));
    ck_assert_ptr_null(sd_json_at(l, SIZE_MAX));
    ck_assert_double_eq(sd_json_at(l, 0)->number.x, 0.25);
    ck_assert_uint_eq(sd_json_at(l, 1)->line, 3);
    sd_json_free(&d);
    static const char *const TYPES[] = { "null", "a boolean", "a number", "a string", "an array", "an object" };
    for (int i = SD_JSON_NULL; i <= SD_JSON_OBJECT; i++)
        ck_assert_str_eq(sd_json_type_name((sd_json_type)i), TYPES[i]);
}
END_TEST

/* Every prefix of a valid input fails or parses without reading past its
 * end (each is an exact-size copy: ASan sees an overread), and the message
 * is one line naming the path and a line of the input. */
START_TEST(json_truncated_inputs)
{
    const char *full = "{\"a\": [1.5e3, -0, \"\\u00e9\\uD83D\\uDE00\xe2\x82\xac\", true, false, null],\n"
                       " \"b\": {\"c\": NaN, \"d\": -Infinity}}\n[2]";
    size_t len = strlen(full), ok = 0;
    for (size_t n = 0; n <= len; n++) {
        sd_json_docs d;
        sd_error err = { "" };
        sd_status st = parse_n(full, n, NULL, &d, &err);
        if (st == SD_OK) {
            ok++;
            sd_json_free(&d);
            continue;
        }
        ck_assert_int_eq(st, SD_EINVAL);
        ck_assert_msg(strncmp(err.msg, "t.json:1: json: ", 16) == 0 || strncmp(err.msg, "t.json:2: json: ", 16) == 0 ||
                          strncmp(err.msg, "t.json:3: json: ", 16) == 0,
                      "%s", err.msg);
        ck_assert_ptr_null(strchr(err.msg, '\n'));
    }
    /* n = 0 and the blank, the whole first document (and its newline), the first "[2]" */
    ck_assert_uint_eq(ok, 4);
}
END_TEST

Suite *json_suite(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("json");
    tcase_add_test(tc, json_every_value_type);
    tcase_add_test(tc, json_string_escapes_and_surrogates);
    tcase_add_test(tc, json_invalid_utf8);
    tcase_add_test(tc, json_syntax_errors_name_their_line);
    tcase_add_test(tc, json_depth_limit);
    tcase_add_test(tc, json_value_and_size_limits);
    tcase_add_test(tc, json_duplicate_names);
    tcase_add_test(tc, json_sequences_of_documents);
    tcase_add_test(tc, json_python_nan_and_infinity);
    tcase_add_test(tc, json_numbers_and_the_count_flag);
    tcase_add_test(tc, json_lookups_and_getters);
    tcase_add_test(tc, json_truncated_inputs);
    suite_add_tcase(s, tc);
    return s;
}

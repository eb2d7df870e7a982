/* json.h -- a strict JSON reader (private to the library).
 *
 * RFC 8259 JSON from a buffer into a tree of values that the caller frees
 * with one call, for the readers of engines' JSON output (vLLM's per-request
 * metrics, llama-server's timings, SGLang's meta_info, NVIDIA's
 * speculation_profile.json).  Beyond the RFC, and only these:
 *   - a sequence of top-level values (JSON Lines, or responses written one
 *     after another) is a list of documents, each with the line it starts
 *     on.  Whitespace may separate them; it must where one would run into
 *     the next (a number or a literal cannot be followed by a letter, a
 *     digit, '.', '+' or '-': "1 2" is two documents, "{}{}" two, "1true"
 *     an error);
 *   - NaN, Infinity and -Infinity, as Python's json.dumps writes them, are
 *     numbers flagged non-finite (number.finite = 0) so that a reader can
 *     refuse them by name (sd_json_number does);
 *   - a UTF-8 byte order mark at the very start of the buffer is skipped
 *     (the RFC lets a parser ignore it).
 * Refused (SD_EINVAL) though the RFC leaves them open:
 *   - a member name twice in one object: the RFC says names SHOULD be
 *     unique, and parsers disagree on which value wins, so a reader would
 *     silently pick one.  Reported when the object closes, naming the name
 *     and the lines of both;
 *   - a \u escape of a lone surrogate, which has no UTF-8 form;
 *   - the limits of section 9: nesting deeper than max_depth arrays and
 *     objects, more than max_values values, a number literal longer than
 *     SD_JSON_NUMBER_MAX bytes, an input longer than SD_JSON_INPUT_MAX.
 * Accepted and flagged: a string or member name holding U+0000 (only an
 * escape \u0000 can write one; a raw control byte in a string is an error):
 * string.nul = 1, sd_json_string refuses it and sd_json_find never matches
 * such a name, so no reader sees a C string cut short.  Strings are
 * validated UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF).
 *
 * Lines are 1-based; a line feed ends a line (a CR alone does not).  Every
 * value records the line it starts on, so that a reader can say
 * "PATH:LINE: ...".  Numbers are converted by strtod, which reads the C
 * locale's decimal point (the library never sets another locale).
 *
 * Errors: SD_EINVAL with one line "PATH:LINE: json: WHAT", for instance
 * "run.json:7: json: expected ',' or '}' after an object member, found ']'";
 * spans of the input quoted in WHAT show every byte outside printable ASCII
 * as \xHH, so the line holds no control byte.  SD_ENOMEM ("PATH: json: out
 * of memory") and the refusals of options and of an input over the limit
 * ("PATH: json: ...") carry no line.
 * Parsing never recurses, reads s[0 .. len - 1] only (no NUL needed) and
 * costs O(len + values * log(members)) time.  The tree costs sizeof(sd_json)
 * (56 bytes on LP64) a value, member names included, plus the bytes of the
 * strings and number literals; while parsing, the values of the arrays and
 * objects still open are held once more, in a list that doubles as it
 * grows.  So memory is bounded through max_values: at most about 3 * 56
 * bytes a value at the peak, some 2.8 GB at the default limit (measured:
 * 280 MB at the peak, the input included, for 35 MB of JSON Lines of
 * 200,000 requests).
 */
#ifndef SPECDEC_IO_JSON_H
#define SPECDEC_IO_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/status.h"

#define SD_JSON_DEPTH_MAX 64                 /* the deepest nesting max_depth may allow */
#define SD_JSON_VALUES_MAX ((size_t)1 << 24) /* the most values max_values may allow */
#define SD_JSON_NUMBER_MAX 4096              /* the longest number literal, in bytes */
#define SD_JSON_INPUT_MAX ((size_t)1 << 30)  /* the longest input, in bytes (1 GiB) */

typedef enum { SD_JSON_NULL, SD_JSON_BOOL, SD_JSON_NUMBER, SD_JSON_STRING, SD_JSON_ARRAY, SD_JSON_OBJECT } sd_json_type;

typedef struct sd_json sd_json;
typedef struct sd_json_member sd_json_member;

/* A value.  Read-only for callers; every pointer points into the tree the
 * parse allocated and lives until sd_json_free. */
struct sd_json {
    sd_json_type type;
    size_t line;      /* the 1-based line it starts on */
    const char *path; /* the name the parse was given, for messages */
    union {
        int boolean; /* SD_JSON_BOOL: 0 or 1 */
        struct {
            double x;         /* the nearest double; +-HUGE_VAL past DBL_MAX; NaN, +-infinity */
            const char *text; /* the literal as written, NUL-terminated */
            size_t len;       /* strlen(text) */
            unsigned char finite; /* isfinite(x): 0 for NaN, Infinity, -Infinity, 1e400 */
            unsigned char count;  /* the literal is digits only (no sign, point or exponent)
                                   * with a value of at most 2^53: x is that integer exactly */
        } number;
        struct {
            const char *s;     /* decoded UTF-8, NUL-terminated */
            size_t len;        /* bytes, without the terminating NUL */
            unsigned char nul; /* s holds a NUL byte (from \u0000) before s[len] */
        } string;
        struct {
            const sd_json *item; /* item[0 .. n - 1] */
            size_t n;
        } array;
        struct {
            const sd_json_member *member; /* member[0 .. n - 1], in the order written */
            size_t n;
        } object;
    };
};

/* A member of an object: its name (an SD_JSON_STRING, with its line) and value. */
struct sd_json_member {
    sd_json name;
    sd_json value;
};

/* What a parse accepts.  The defaults (sd_json_defaults): a sequence,
 * max_depth SD_JSON_DEPTH_MAX, max_values SD_JSON_VALUES_MAX. */
typedef struct {
    int single;        /* 1: exactly one top-level value; 0: zero or more */
    size_t max_depth;  /* arrays and objects open at once, in [1, SD_JSON_DEPTH_MAX] */
    size_t max_values; /* values in all, member names included, in [1, SD_JSON_VALUES_MAX] */
} sd_json_options;

/* The documents of a parse: doc[0 .. n - 1], the top-level values in order
 * (doc[i].line is where document i starts). */
typedef struct {
    const sd_json *doc;
    size_t n;
    void *mem; /* the allocations behind the tree (private) */
} sd_json_docs;

sd_json_options sd_json_defaults(void);

/* Parses s[0 .. len - 1] into *out, which the caller frees with
 * sd_json_free; path names the input in messages and in every value (not
 * NULL; the tree keeps a copy).  opt NULL means the defaults.  With
 * opt->single, the input must hold exactly one value ("expected the end of
 * the input after the document" or "no value: the input is empty");
 * otherwise an input of whitespace alone is zero documents.  SD_EINVAL
 * with the message of the first error in the input (a duplicate name when
 * its object closes), or naming the option out of its range; SD_ENOMEM.
 * On failure *out is untouched. */
sd_status sd_json_parse(const char *s, size_t len, const char *path, const sd_json_options *opt, sd_json_docs *out,
                        sd_error *err);

/* Frees what sd_json_parse allocated and zeroes *d; a zeroed *d is fine. */
void sd_json_free(sd_json_docs *d);

/* "null", "a boolean", "a number", "a string", "an array", "an object". */
const char *sd_json_type_name(sd_json_type type);

/* The value of obj's member called key (a NUL-terminated name: a name with a
 * NUL byte never matches), or NULL when obj is NULL, not an object or has
 * no such member.  O(members). */
const sd_json *sd_json_find(const sd_json *obj, const char *key);

/* The items of an array or the members of an object; 0 for anything else
 * (and for NULL). */
size_t sd_json_length(const sd_json *v);

/* Item i of an array, or NULL when v is NULL, not an array or i >= its length. */
const sd_json *sd_json_at(const sd_json *v, size_t i);

/* The getters.  Each fails with SD_EINVAL and "PATH:LINE: json: WHAT: ..."
 * (LINE the value's; "WHAT: " left out when what is NULL) and leaves its
 * output untouched when v is not what it asks for, for instance
 * "m.json:3: json: num_drafts: expected a number, found a string".
 * sd_json_get: obj's member key into *out, refusing a non-object or a missing
 * member (the message names key, on obj's line). */
sd_status sd_json_get(const sd_json *obj, const char *key, const sd_json **out, sd_error *err);

/* v is of the given type. */
sd_status sd_json_expect(const sd_json *v, sd_json_type type, const char *what, sd_error *err);

/* A finite number into *x: refuses NaN, +-Infinity and literals past
 * DBL_MAX, quoting the literal. */
sd_status sd_json_number(const sd_json *v, const char *what, double *x, sd_error *err);

/* A count: a number whose literal is digits only and at most 2^53 (no
 * sign, fraction or exponent: "3.0" and "3e0" are refused) into *n. */
sd_status sd_json_count(const sd_json *v, const char *what, uint64_t *n, sd_error *err);

/* A string without NUL bytes into *str (the tree's, NUL-terminated). */
sd_status sd_json_string(const sd_json *v, const char *what, const char **str, sd_error *err);

/* true or false into *b (1 or 0). */
sd_status sd_json_bool(const sd_json *v, const char *what, int *b, sd_error *err);

#endif

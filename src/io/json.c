/* json.c -- a strict JSON reader (see json.h).
 *
 * One pass over the bytes and no recursion: a stack of the arrays and
 * objects open (at most SD_JSON_DEPTH_MAX, plus the top level, which is a
 * list of documents), and a pending list holding the values of everything
 * still open (an object's as name, value, name, ...), copied into the tree
 * when its container closes.  The tree
 * lives in an arena of blocks, freed together.  Duplicate names are looked
 * for when an object closes: pairwise up to DUP_PAIRWISE members, above
 * that by sorting pointers to them (O(n log n)), so that a hostile object
 * of many members cannot cost O(n^2).
 */
#include "json.h"
#include "json_impl.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    BLOCK_FIRST = 16384,     /* the first arena block, bytes; each next one doubles */
    BLOCK_LARGEST = 1 << 24, /* ... up to this; a larger request gets a block of its own */
    PENDING_FIRST = 64,      /* slots of the pending list at first */
    DUP_PAIRWISE = 16        /* objects up to this size are checked pair by pair */
};

/* ---------------------------------------------------------------- the arena */

typedef struct block {
    struct block *next;
    size_t size, used;
    max_align_t data[]; /* size bytes */
} block;

static void arena_free(block *b)
{
    while (b != NULL) {
        block *next = b->next;
        free(b);
        b = next;
    }
}

static block *block_new(size_t size)
{
    if (size > SIZE_MAX - sizeof(block))
        return NULL;
    block *b = malloc(sizeof(block) + size);
    if (b != NULL) {
        b->size = size;
        b->used = 0;
    }
    return b;
}

/* n bytes (n > 0) aligned to align (a power of two, at most that of
 * max_align_t) from the arena whose current block is *head; NULL when out
 * of memory.  A large request gets a block of its own behind the current
 * one, so that the room left in the current block is not lost. */
static void *arena_alloc(block **head, size_t n, size_t align)
{
    block *b = *head;
    if (b != NULL) {
        size_t at = (b->used + align - 1) & ~(align - 1);
        if (at <= b->size && n <= b->size - at) {
            b->used = at + n;
            return (char *)b->data + at;
        }
    }
    if (b != NULL && n > b->size / 4) {
        block *own = block_new(n);
        if (own == NULL)
            return NULL;
        own->used = n;
        own->next = b->next;
        b->next = own;
        return own->data;
    }
    size_t size = b == NULL ? BLOCK_FIRST : b->size < BLOCK_LARGEST ? 2 * b->size : b->size;
    if (size < n)
        size = n;
    block *fresh = block_new(size);
    if (fresh == NULL)
        return NULL;
    fresh->used = n;
    fresh->next = b;
    *head = fresh;
    return fresh->data;
}

/* ---------------------------------------------------------------- the parser */

typedef struct {
    sd_json_type type; /* SD_JSON_ARRAY or SD_JSON_OBJECT (the top level counts as an array) */
    size_t line;       /* where it opened */
    size_t start;      /* its first slot in the pending list */
} frame;

typedef struct {
    const unsigned char *s;
    size_t len, pos, line;
    const char *path; /* the arena's copy */
    sd_json_options opt;
    block *mem;
    sd_json *pend; /* the values of what is open */
    size_t npend, cap_pend;
    char *scratch; /* a string while it is decoded */
    size_t cap_scratch;
    const sd_json_member **sorted; /* an object's members, sorted by name */
    size_t cap_sorted;
    size_t values;
    frame stack[SD_JSON_DEPTH_MAX + 1]; /* stack[0]: the top level */
    size_t depth;
    sd_error *err;
} parser;

/* The byte at the parser's position as a message shows it: 'c' when
 * printable, else "byte 0xHH", or "the end of the input". */
static sd_json_shown found(const parser *p)
{
    sd_json_shown f;
    if (p->pos >= p->len)
        snprintf(f.s, sizeof f.s, "the end of the input");
    else if (p->s[p->pos] > 0x20 && p->s[p->pos] < 0x7f)
        snprintf(f.s, sizeof f.s, "'%c'", (char)p->s[p->pos]);
    else
        snprintf(f.s, sizeof f.s, "byte 0x%02x", p->s[p->pos]);
    return f;
}

/* SD_EINVAL with "PATH:LINE: json: WHAT". */
__attribute__((format(printf, 3, 4))) static sd_status fail(parser *p, size_t line, const char *fmt, ...)
{
    char what[sizeof p->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sd_status_fail(p->err, SD_EINVAL, "%s:%zu: json: %s", p->path, line, what);
}

static sd_status nomem(parser *p)
{
    return sd_status_fail(p->err, SD_ENOMEM, "%s: json: out of memory", p->path);
}

/* "an array" or "an object": what a frame is, for messages. */
static const char *frame_name(const frame *f)
{
    return f->type == SD_JSON_ARRAY ? "an array" : "an object";
}

/* Expected what at the position: at the end of the input, says which
 * container is left open and where it opened. */
static sd_status expected(parser *p, const char *what)
{
    const frame *f = &p->stack[p->depth];
    if (p->pos >= p->len && p->depth > 0)
        return fail(p, p->line, "the input ends inside %s opened on line %zu (expected %s)", frame_name(f), f->line,
                    what);
    return fail(p, p->line, "expected %s, found %s", what, found(p).s);
}

static void skip_space(parser *p)
{
    while (p->pos < p->len) {
        unsigned char c = p->s[p->pos];
        if (c == '\n')
            p->line++;
        else if (c != ' ' && c != '\t' && c != '\r')
            return;
        p->pos++;
    }
}

static int peek(const parser *p)
{
    return p->pos < p->len ? p->s[p->pos] : -1;
}

/* One more value (or member name) against max_values. */
static sd_status count_value(parser *p)
{
    if (p->values >= p->opt.max_values)
        return fail(p, p->line, "more than %zu values (the limit)", p->opt.max_values);
    p->values++;
    return SD_OK;
}

/* A new pending slot (zeroed), or NULL when out of memory. */
static sd_json *pend_push(parser *p)
{
    if (p->npend == p->cap_pend) {
        size_t cap = p->cap_pend ? 2 * p->cap_pend : PENDING_FIRST;
        sd_json *bigger = cap <= SIZE_MAX / sizeof *bigger ? realloc(p->pend, cap * sizeof *bigger) : NULL;
        if (bigger == NULL)
            return NULL;
        p->pend = bigger;
        p->cap_pend = cap;
    }
    sd_json *v = &p->pend[p->npend++];
    memset(v, 0, sizeof *v);
    return v;
}

/* 1 when byte c could continue a number or a literal: then the token has
 * not ended where the grammar says it must. */
static int continues(int c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '+' ||
           c == '-';
}

/* The length of the token at s[at ..]: bytes that could continue a number
 * or a literal (for messages). */
static size_t token_len(const parser *p, size_t at)
{
    size_t i = at;
    while (i < p->len && continues(p->s[i]))
        i++;
    return i - at;
}

/* The length of the UTF-8 sequence at s[0 .. n - 1] (n >= 1, s[0] >= 0x80)
 * under RFC 3629 (no overlong forms, no surrogates, at most U+10FFFF), or 0
 * when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char lo = 0x80, hi = 0xbf;
    size_t k;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        k = 2;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        k = 3;
        lo = s[0] == 0xe0 ? 0xa0 : 0x80; /* E0 80..9F would be overlong */
        hi = s[0] == 0xed ? 0x9f : 0xbf; /* ED A0..BF would be a surrogate */
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        k = 4;
        lo = s[0] == 0xf0 ? 0x90 : 0x80; /* F0 80..8F would be overlong */
        hi = s[0] == 0xf4 ? 0x8f : 0xbf; /* F4 90.. would pass U+10FFFF */
    } else {
        return 0;
    }
    if (n < k || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < k; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return k;
}

/* Code point cp (at most U+10FFFF, not a surrogate) as UTF-8 into out; its length. */
static size_t utf8_put(unsigned long cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* The four hex digits of a \u escape at s[at .. at + 3] into *cp; 0 when
 * they are missing or not hex. */
static int hex4(const parser *p, size_t at, unsigned long *cp)
{
    if (at > p->len || p->len - at < 4)
        return 0;
    unsigned long v = 0;
    for (size_t i = at; i < at + 4; i++) {
        unsigned char c = p->s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return 0;
        v = 16 * v + (unsigned long)d;
    }
    *cp = v;
    return 1;
}

/* The escape after a backslash at the position (p->pos at the backslash)
 * into out (at most 4 bytes): its length there, moving past the escape;
 * *nul set when it is \u0000.  0 after a failure (written to p->err). */
static size_t escape(parser *p, char *out, int *nul, sd_status *st)
{
    static const char SIMPLE_IN[] = "\"\\/bfnrt", SIMPLE_OUT[] = "\"\\/\b\f\n\r\t";
    size_t at = p->pos + 1;
    if (at >= p->len) {
        *st = fail(p, p->line, "the input ends inside a string");
        return 0;
    }
    unsigned char c = p->s[at];
    const char *simple = c != 0 ? strchr(SIMPLE_IN, c) : NULL;
    if (simple != NULL) {
        out[0] = SIMPLE_OUT[simple - SIMPLE_IN];
        p->pos = at + 1;
        return 1;
    }
    if (c != 'u') {
        p->pos = at;
        *st = fail(p, p->line, "invalid escape in a string: '\\' followed by %s", found(p).s);
        return 0;
    }
    unsigned long cp, lo;
    if (!hex4(p, at + 1, &cp)) {
        *st = fail(p, p->line, "invalid escape in a string: \\u needs four hex digits");
        return 0;
    }
    size_t next = at + 5;
    if (cp >= 0xdc00 && cp <= 0xdfff) {
        *st = fail(p, p->line, "a lone surrogate \\u%04lX in a string (a low surrogate with no high one before it)",
                   cp);
        return 0;
    }
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (next + 1 >= p->len || p->s[next] != '\\' || p->s[next + 1] != 'u' || !hex4(p, next + 2, &lo) ||
            lo < 0xdc00 || lo > 0xdfff) {
            *st = fail(p, p->line,
                       "a lone surrogate \\u%04lX in a string (a high surrogate not followed by \\uDC00 to \\uDFFF)", cp);
            return 0;
        }
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        next += 6;
    }
    *nul |= cp == 0;
    p->pos = next;
    return utf8_put(cp, out);
}

/* The string at the position (p->pos at its opening quote) into *v: escapes
 * decoded, UTF-8 validated. */
static sd_status parse_string(parser *p, sd_json *v)
{
    size_t line = p->line, n = 0;
    int nul = 0;
    p->pos++;
    for (;;) {
        if (p->pos >= p->len)
            return fail(p, line, "the input ends inside a string");
        unsigned char c = p->s[p->pos];
        if (c == '"')
            break;
        if (c < 0x20)
            return fail(p, line, "a raw control byte 0x%02x in a string (JSON writes it as an escape)", c);
        if (p->cap_scratch - n < 4) {
            size_t cap = p->cap_scratch ? 2 * p->cap_scratch : 256;
            char *bigger = realloc(p->scratch, cap);
            if (bigger == NULL)
                return nomem(p);
            p->scratch = bigger;
            p->cap_scratch = cap;
        }
        if (c == '\\') {
            sd_status st = SD_OK;
            size_t k = escape(p, p->scratch + n, &nul, &st);
            if (k == 0)
                return st;
            n += k;
        } else if (c < 0x80) {
            p->scratch[n++] = (char)c;
            p->pos++;
        } else {
            size_t k = utf8_len(p->s + p->pos, p->len - p->pos);
            if (k == 0) {
                size_t shown_n = p->len - p->pos < 4 ? p->len - p->pos : 4;
                return fail(p, line, "invalid UTF-8 in a string at %s",
                            sd_json_quote((const char *)p->s + p->pos, shown_n).s);
            }
            memcpy(p->scratch + n, p->s + p->pos, k);
            n += k;
            p->pos += k;
        }
    }
    p->pos++;
    char *s = arena_alloc(&p->mem, n + 1, 1);
    if (s == NULL)
        return nomem(p);
    if (n > 0)
        memcpy(s, p->scratch, n);
    s[n] = '\0';
    *v = (sd_json){ .type = SD_JSON_STRING, .line = line, .path = p->path };
    v->string.s = s;
    v->string.len = n;
    v->string.nul = (unsigned char)nul;
    return SD_OK;
}

/* The digits at s[i ..]: the position past them. */
static size_t digits(const parser *p, size_t i)
{
    while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9')
        i++;
    return i;
}

/* A number literal s[start .. end - 1], valid by the grammar (or one of
 * NaN, Infinity, -Infinity with x given), into *v. */
static sd_status number_value(parser *p, size_t start, size_t end, int plain, const double *special, sd_json *v)
{
    size_t n = end - start;
    if (n > SD_JSON_NUMBER_MAX)
        return fail(p, p->line, "a number literal longer than %d bytes (the limit)", SD_JSON_NUMBER_MAX);
    char *text = arena_alloc(&p->mem, n + 1, 1);
    if (text == NULL)
        return nomem(p);
    memcpy(text, p->s + start, n);
    text[n] = '\0';
    *v = (sd_json){ .type = SD_JSON_NUMBER, .line = p->line, .path = p->path };
    v->number.x = special != NULL ? *special : strtod(text, NULL);
    v->number.text = text;
    v->number.len = n;
    v->number.finite = isfinite(v->number.x) != 0;
    /* JSON has no leading zeros: digits only and fewer than 16 of them is
     * below 10^15; 16 of them compare as text with 2^53 */
    v->number.count = plain && (n < 16 || (n == 16 && memcmp(text, "9007199254740992", 16) <= 0));
    p->pos = end;
    return SD_OK;
}

/* The literal word at the position, if the input holds exactly it there. */
static int word_at(const parser *p, size_t at, const char *word)
{
    size_t n = strlen(word);
    return at <= p->len && p->len - at >= n && memcmp(p->s + at, word, n) == 0 &&
           (at + n == p->len || !continues(p->s[at + n]));
}

/* The number at the position (a '-' or a digit): -? (0 | [1-9][0-9]*)
 * (. [0-9]+)? ([eE] [+-]? [0-9]+)?, or -Infinity. */
static sd_status parse_number(parser *p, sd_json *v)
{
    size_t start = p->pos, i = start;
    int plain = 1;
    if (p->s[i] == '-') {
        plain = 0;
        i++;
        if (word_at(p, i, "Infinity")) {
            const double minus_inf = -INFINITY;
            return number_value(p, start, i + 8, 0, &minus_inf, v);
        }
    }
    int ok = i < p->len && p->s[i] >= '0' && p->s[i] <= '9';
    if (ok)
        i = p->s[i] == '0' ? i + 1 : digits(p, i);
    if (ok && i < p->len && p->s[i] == '.') {
        plain = 0;
        size_t j = digits(p, i + 1);
        ok = j > i + 1;
        i = j;
    }
    if (ok && i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        plain = 0;
        i++;
        if (i < p->len && (p->s[i] == '+' || p->s[i] == '-'))
            i++;
        size_t j = digits(p, i);
        ok = j > i;
        i = j;
    }
    if (ok && i < p->len && continues(p->s[i]))
        ok = 0;
    if (!ok) {
        size_t n = token_len(p, start), d = start + (p->s[start] == '-');
        int zero = d + 1 < start + n && p->s[d] == '0' && p->s[d + 1] >= '0' && p->s[d + 1] <= '9';
        return fail(p, p->line, "invalid number %s%s", sd_json_quote((const char *)p->s + start, n).s,
                    zero ? " (JSON numbers have no leading zeros)" : "");
    }
    return number_value(p, start, i, plain, NULL, v);
}

/* true, false, null, NaN or Infinity at the position. */
static sd_status parse_literal(parser *p, sd_json *v)
{
    static const struct {
        const char *word;
        sd_json_type type;
        int boolean;
    } WORDS[] = { { "true", SD_JSON_BOOL, 1 }, { "false", SD_JSON_BOOL, 0 }, { "null", SD_JSON_NULL, 0 } };
    for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++)
        if (word_at(p, p->pos, WORDS[i].word)) {
            *v = (sd_json){ .type = WORDS[i].type, .line = p->line, .path = p->path };
            v->boolean = WORDS[i].boolean;
            p->pos += strlen(WORDS[i].word);
            return SD_OK;
        }
    const double nan = NAN, inf = INFINITY;
    if (word_at(p, p->pos, "NaN"))
        return number_value(p, p->pos, p->pos + 3, 0, &nan, v);
    if (word_at(p, p->pos, "Infinity"))
        return number_value(p, p->pos, p->pos + 8, 0, &inf, v);
    return fail(p, p->line, "invalid literal %s (expected true, false, null, NaN or Infinity)",
                sd_json_quote((const char *)p->s + p->pos, token_len(p, p->pos)).s);
}

/* A member name at the position, after what (for the message): a pending
 * slot with the name, and the ':' after it consumed. */
static sd_status parse_name(parser *p, const char *after)
{
    skip_space(p);
    char what[sizeof(sd_json_shown) + 64];
    snprintf(what, sizeof what, "a member name (a string) %s", after);
    if (peek(p) != '"')
        return expected(p, what);
    sd_status st = count_value(p);
    if (st != SD_OK)
        return st;
    sd_json *name = pend_push(p);
    if (name == NULL)
        return nomem(p);
    if ((st = parse_string(p, name)) != SD_OK)
        return st;
    skip_space(p);
    if (peek(p) != ':') {
        snprintf(what, sizeof what, "':' after the member name %s", sd_json_quote(name->string.s, name->string.len).s);
        return expected(p, what);
    }
    p->pos++;
    return SD_OK;
}

/* 1 when two names are the same bytes. */
static int same_name(const sd_json *a, const sd_json *b)
{
    return a->string.len == b->string.len && memcmp(a->string.s, b->string.s, a->string.len) == 0;
}

static int by_name_then_place(const void *a, const void *b)
{
    const sd_json_member *x = *(const sd_json_member *const *)a, *y = *(const sd_json_member *const *)b;
    size_t n = x->name.string.len < y->name.string.len ? x->name.string.len : y->name.string.len;
    int c = memcmp(x->name.string.s, y->name.string.s, n);
    if (c == 0)
        c = (x->name.string.len > y->name.string.len) - (x->name.string.len < y->name.string.len);
    return c != 0 ? c : (x > y) - (x < y);
}

/* Refuses the first member of m[0 .. n - 1] (in the order written) whose
 * name an earlier member has. */
static sd_status check_names(parser *p, const sd_json_member *m, size_t n)
{
    const sd_json_member *dup = NULL, *first = NULL;
    if (n <= DUP_PAIRWISE) {
        for (size_t j = 1; j < n && dup == NULL; j++)
            for (size_t i = 0; i < j && dup == NULL; i++)
                if (same_name(&m[i].name, &m[j].name)) {
                    dup = &m[j];
                    first = &m[i];
                }
    } else {
        if (p->cap_sorted < n) {
            const sd_json_member **bigger = realloc(p->sorted, n * sizeof *bigger);
            if (bigger == NULL)
                return nomem(p);
            p->sorted = bigger;
            p->cap_sorted = n;
        }
        for (size_t i = 0; i < n; i++)
            p->sorted[i] = &m[i];
        qsort(p->sorted, n, sizeof *p->sorted, by_name_then_place);
        /* in a run of one name, sorted[g] is its first place and sorted[g + 1] its first repeat */
        for (size_t g = 0, k = 1; k <= n; k++)
            if (k == n || !same_name(&p->sorted[g]->name, &p->sorted[k]->name)) {
                if (k - g >= 2 && (dup == NULL || p->sorted[g + 1] < dup)) {
                    dup = p->sorted[g + 1];
                    first = p->sorted[g];
                }
                g = k;
            }
    }
    if (dup == NULL)
        return SD_OK;
    return fail(p, dup->name.line, "duplicate member name %s in an object (first on line %zu)",
                sd_json_quote(dup->name.string.s, dup->name.string.len).s, first->name.line);
}

/* Closes the container on top of the stack into *v: its pending values into the tree. */
static sd_status close_container(parser *p, sd_json *v)
{
    const frame *f = &p->stack[p->depth];
    size_t n = p->npend - f->start;
    const sd_json *pending = n > 0 ? p->pend + f->start : NULL; /* pend is NULL before its first slot */
    *v = (sd_json){ .type = f->type, .line = f->line, .path = p->path };
    if (f->type == SD_JSON_ARRAY) {
        sd_json *item = n > 0 ? arena_alloc(&p->mem, n * sizeof *item, _Alignof(sd_json)) : NULL;
        if (n > 0 && item == NULL)
            return nomem(p);
        if (n > 0)
            memcpy(item, pending, n * sizeof *item);
        v->array.item = item;
        v->array.n = n;
    } else {
        assert(n % 2 == 0);
        n /= 2;
        sd_json_member *member = n > 0 ? arena_alloc(&p->mem, n * sizeof *member, _Alignof(sd_json_member)) : NULL;
        if (n > 0 && member == NULL)
            return nomem(p);
        for (size_t i = 0; i < n; i++) {
            member[i].name = pending[2 * i];
            member[i].value = pending[2 * i + 1];
        }
        sd_status st = check_names(p, member, n); /* on failure the arena goes with the rest */
        if (st != SD_OK)
            return st;
        v->object.member = member;
        v->object.n = n;
    }
    p->npend = f->start;
    p->depth--;
    return SD_OK;
}

/* The value at the position: a scalar or an empty container into *v (*have
 * = 1), or a container opened (*have = 0: its first value comes next). */
static sd_status begin_value(parser *p, sd_json *v, int *have)
{
    skip_space(p);
    int c = peek(p);
    sd_status st = SD_OK;
    if (c == '[' || c == '{') {
        if (p->depth >= p->opt.max_depth)
            return fail(p, p->line, "nested deeper than %zu arrays and objects (the limit)", p->opt.max_depth);
        if ((st = count_value(p)) != SD_OK)
            return st;
        p->stack[++p->depth] = (frame){ .type = c == '[' ? SD_JSON_ARRAY : SD_JSON_OBJECT, .line = p->line,
                                        .start = p->npend };
        p->pos++;
        skip_space(p);
        if (peek(p) == (c == '[' ? ']' : '}')) {
            p->pos++;
            *have = 1;
            return close_container(p, v);
        }
        *have = 0;
        return c == '{' ? parse_name(p, "or '}' after '{'") : SD_OK;
    }
    if (c == '"' || c == '-' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) {
        if ((st = count_value(p)) != SD_OK)
            return st;
        *have = 1;
        if (c == '"')
            return parse_string(p, v);
        return c == '-' || (c >= '0' && c <= '9') ? parse_number(p, v) : parse_literal(p, v);
    }
    return expected(p, "a value");
}

/* Value v done: into its container's pending slot, then past the ',' or
 * the closing bracket after it (*v then the closed container, *have = 1). */
static sd_status end_value(parser *p, sd_json *v, int *have)
{
    const frame *f = &p->stack[p->depth];
    sd_json *slot = pend_push(p); /* an object's slot follows its name's */
    if (slot == NULL)
        return nomem(p);
    *slot = *v;
    *have = 0;
    if (p->depth == 0)
        return SD_OK;
    skip_space(p);
    int c = peek(p);
    if (c == ',') {
        p->pos++;
        return f->type == SD_JSON_OBJECT ? parse_name(p, "after ','") : SD_OK;
    }
    if (c == (f->type == SD_JSON_ARRAY ? ']' : '}')) {
        p->pos++;
        *have = 1;
        return close_container(p, v);
    }
    return expected(p, f->type == SD_JSON_ARRAY ? "',' or ']' after an array element"
                                                 : "',' or '}' after an object member");
}

/* The whole input: the documents in the pending list (the top level's slots). */
static sd_status parse_all(parser *p)
{
    p->stack[0] = (frame){ .type = SD_JSON_ARRAY, .line = 1, .start = 0 };
    p->depth = 0;
    for (;;) {
        skip_space(p);
        if (p->pos >= p->len) {
            if (p->opt.single && p->npend == 0)
                return fail(p, p->line, "no value: the input is empty");
            return SD_OK;
        }
        if (p->opt.single && p->npend == 1)
            return fail(p, p->line, "expected the end of the input after the document, found %s", found(p).s);
        sd_json v;
        int have = 0;
        do {
            sd_status st = have ? end_value(p, &v, &have) : begin_value(p, &v, &have);
            if (st != SD_OK)
                return st;
        } while (have || p->depth > 0);
    }
}

/* The parse proper, into *out on success (p->mem then handed over). */
static sd_status parse_into(parser *p, const char *path, sd_json_docs *out)
{
    size_t path_len = strlen(path);
    char *copy = arena_alloc(&p->mem, path_len + 1, 1);
    if (copy == NULL)
        return nomem(p);
    memcpy(copy, path, path_len + 1);
    p->path = copy;
    sd_status st = parse_all(p);
    if (st != SD_OK)
        return st;
    sd_json *doc = p->npend > 0 ? arena_alloc(&p->mem, p->npend * sizeof *doc, _Alignof(sd_json)) : NULL;
    if (p->npend > 0 && doc == NULL)
        return nomem(p);
    if (p->npend > 0)
        memcpy(doc, p->pend, p->npend * sizeof *doc);
    *out = (sd_json_docs){ .doc = doc, .n = p->npend, .mem = p->mem };
    p->mem = NULL;
    return SD_OK;
}

sd_json_options sd_json_defaults(void)
{
    return (sd_json_options){ .single = 0, .max_depth = SD_JSON_DEPTH_MAX, .max_values = SD_JSON_VALUES_MAX };
}

sd_status sd_json_parse(const char *s, size_t len, const char *path, const sd_json_options *opt, sd_json_docs *out,
                        sd_error *err)
{
    assert(path != NULL && out != NULL && (s != NULL || len == 0));
    sd_json_options o = opt != NULL ? *opt : sd_json_defaults();
    if (o.max_depth < 1 || o.max_depth > SD_JSON_DEPTH_MAX)
        return sd_status_fail(err, SD_EINVAL, "%s: json: max_depth %zu is outside [1, %d]", path, o.max_depth,
                              SD_JSON_DEPTH_MAX);
    if (o.max_values < 1 || o.max_values > SD_JSON_VALUES_MAX)
        return sd_status_fail(err, SD_EINVAL, "%s: json: max_values %zu is outside [1, %zu]", path, o.max_values,
                              SD_JSON_VALUES_MAX);
    if (len > SD_JSON_INPUT_MAX)
        return sd_status_fail(err, SD_EINVAL, "%s: json: larger than %zu bytes (the limit)", path, SD_JSON_INPUT_MAX);
    parser *p = calloc(1, sizeof *p);
    if (p == NULL)
        return sd_status_fail(err, SD_ENOMEM, "%s: json: out of memory", path);
    p->s = (const unsigned char *)s;
    p->len = len;
    p->line = 1;
    p->opt = o;
    p->path = path;
    p->err = err;
    static const unsigned char BOM[3] = { 0xef, 0xbb, 0xbf };
    if (len >= 3 && memcmp(s, BOM, 3) == 0)
        p->pos = 3;
    sd_status st = parse_into(p, path, out);
    arena_free(p->mem);
    free(p->pend);
    free(p->scratch);
    free(p->sorted);
    free(p);
    return st;
}

void sd_json_free(sd_json_docs *d)
{
    arena_free(d->mem);
    memset(d, 0, sizeof *d);
}

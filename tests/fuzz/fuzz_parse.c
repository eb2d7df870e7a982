/* fuzz_parse.c -- sd_parse_number and sd_parse_list (parse.h).
 *
 * Input: byte 0 picks the domain (bits 0-2 its min, bits 3-5 its max, bit 6
 * whole numbers only); the rest, up to a NUL, is the text.  Every input goes
 * through both functions.  Properties:
 *   - sd_parse_number accepts exactly what a reference reader accepts
 *     ([+-](d+[.d*]|.d+)[(e|E)[+-]d+], under 128 characters, no overflow, no
 *     underflow to 0, inside the domain, whole when required), with the
 *     same value bit for bit; a parsed value is finite and in its domain;
 *   - a list's values are finite, in the domain, whole when required, 1 to
 *     SD_LIST_MAX of them; the list is the concatenation of its items parsed
 *     one by one (and fails iff one of them fails); a number item is what
 *     sd_parse_number gives; a range start:stop[:step] begins at start,
 *     never passes stop, ascends (strictly unless the step is below the
 *     doubles' resolution) and has floor((stop - start)/step) + 1 points
 *     (to the documented 1e-9 of a step);
 *   - on failure the output is untouched (a sentinel stays) and the error
 *     message is one non-empty line.
 * Lists whose ranges would expand to more than FUZZ_LIST_ITEMS values are
 * not parsed as lists (they cost up to a second each); LLVMFuzzerInitialize
 * checks the SD_LIST_MAX boundary once instead.
 */
#include <float.h>
#include <math.h>

#include "fuzz_common.h"

enum { FUZZ_LIST_ITEMS = 4096 };

static const double MINS[8] = { 0.0, 1.0, -1.0, 1e-300, -INFINITY, 0.001, -1e9, 0.5 };
static const double MAXS[8] = { 1.0, INFINITY, 1e9, 4096.0, 0.999999, 1e12, DBL_MAX, 256.0 };

static const double SENTINEL = -12345.678;
static double *const LIST_SENTINEL_V = (double *)(uintptr_t)0x5eed;
enum { LIST_SENTINEL_N = 424242 };

static int same_double(double x, double y)
{
    return memcmp(&x, &y, sizeof x) == 0;
}

/* ---- the reference reader --------------------------------------------------------- */

/* 1 when s[0..len-1] is entirely [+-](d+[.d*]|.d+)[(e|E)[+-]d+]. */
static int ref_is_number(const char *s, size_t len)
{
    size_t i = 0, mant = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++, mant++;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++, mant++;
    }
    if (mant == 0)
        return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t e = 0;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++, e++;
        if (e == 0)
            return 0;
    }
    return i == len;
}

/* 1 when the mantissa (before any exponent) has a digit other than 0. */
static int ref_nonzero_mantissa(const char *s, size_t len)
{
    for (size_t i = 0; i < len && s[i] != 'e' && s[i] != 'E'; i++)
        if (s[i] >= '1' && s[i] <= '9')
            return 1;
    return 0;
}

/* The reference for a number without domain: 1 and *out, or 0. */
static int ref_raw(const char *s, size_t len, double *out)
{
    if (len == 0 || len >= 128 || !ref_is_number(s, len))
        return 0;
    char buf[128];
    memcpy(buf, s, len);
    buf[len] = '\0';
    double x = strtod(buf, NULL);
    if (isinf(x) || isnan(x))
        return 0; /* overflow */
    if (x == 0.0 && ref_nonzero_mantissa(s, len))
        return 0; /* underflow to 0 */
    *out = x;
    return 1;
}

static int in_domain(double x, const sd_domain *dom)
{
    return x >= dom->min && x <= dom->max && (!dom->whole || floor(x) == x);
}

static void check_value(double x, const sd_domain *dom, const char *what)
{
    CHECK(isfinite(x), "%s: %g is not finite", what, x);
    CHECK(x >= dom->min && x <= dom->max, "%s: %.17g outside [%.17g, %.17g]", what, x, dom->min, dom->max);
    CHECK(!dom->whole || floor(x) == x, "%s: %.17g is not whole", what, x);
}

/* ---- numbers ----------------------------------------------------------------------- */

static void fuzz_number(const char *text, const sd_domain *dom)
{
    double got = SENTINEL, want = 0.0;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_parse_number(text, dom, &got, &err);
    int ok = ref_raw(text, strlen(text), &want) && in_domain(want, dom);
    CHECK((st == SD_OK) == ok, "sd_parse_number('%s') returned %d, the reference %s (%.17g) [%s]", text, (int)st,
          ok ? "accepts" : "rejects", want, st == SD_OK ? "" : err.msg);
    if (st == SD_OK) {
        check_value(got, dom, "sd_parse_number");
        CHECK(same_double(got, want), "sd_parse_number('%s') = %.17g, strtod gives %.17g", text, got, want);
    } else {
        CHECK(st == SD_EINVAL, "sd_parse_number('%s'): status %d", text, (int)st);
        CHECK(same_double(got, SENTINEL), "sd_parse_number('%s') failed but wrote %.17g", text, got);
        check_message(&err, "sd_parse_number");
    }
}

/* ---- lists ------------------------------------------------------------------------- */

/* An estimate of the values an item expands to (strtod is laxer than the
 * library, so an item the library accepts is estimated exactly); 0 when the
 * library rejects the item before expanding it. */
static double item_estimate(const char *s, size_t len)
{
    const char *c1 = memchr(s, ':', len);
    if (c1 == NULL)
        return 1.0;
    char part[3][256];
    size_t start = 0, k = 0;
    for (size_t i = 0; i <= len && k < 3; i++) {
        if (i < len && s[i] != ':')
            continue;
        size_t n = i - start;
        if (n >= sizeof part[0])
            return 0.0;
        memcpy(part[k], s + start, n);
        part[k][n] = '\0';
        k++;
        start = i + 1;
    }
    if (k == 2)
        strcpy(part[2], "1");
    double v[3];
    for (int j = 0; j < 3; j++) {
        char *end;
        v[j] = strtod(part[j], &end);
        if (part[j][0] == '\0' || *end != '\0' || !isfinite(v[j]))
            return 0.0;
    }
    if (!(v[2] > 0.0) || v[1] < v[0])
        return 0.0;
    /* parse.c's count, and a margin: only a range well past SD_LIST_MAX is
     * surely refused before it expands. */
    double count = floor((v[1] - v[0]) / v[2] + 1e-9) + 1.0;
    return count > SD_LIST_MAX + 2.0 ? 0.0 : count + 1.0;
}

static void check_list_ok(const sd_list *l, const sd_domain *dom)
{
    CHECK(l->n >= 1 && l->n <= SD_LIST_MAX, "list of %zu items", l->n);
    CHECK(l->v != NULL && l->v != LIST_SENTINEL_V, "list without values");
    for (size_t i = 0; i < l->n; i++)
        check_value(l->v[i], dom, "sd_parse_list");
}

/* A range item that parsed: start, stop, step from its text (as the library reads them). */
static void check_range(const char *s, size_t len, const double *v, size_t n)
{
    const char *c1 = memchr(s, ':', len);
    const char *c2 = memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - s));
    double a, b, step = 1.0;
    CHECK(ref_raw(s, (size_t)(c1 - s), &a), "range '%.*s': start does not parse", (int)len, s);
    size_t blen = c2 ? (size_t)(c2 - c1 - 1) : len - (size_t)(c1 + 1 - s);
    CHECK(ref_raw(c1 + 1, blen, &b), "range '%.*s': stop does not parse", (int)len, s);
    if (c2)
        CHECK(ref_raw(c2 + 1, len - (size_t)(c2 + 1 - s), &step), "range '%.*s': step does not parse", (int)len, s);
    CHECK(step > 0.0 && a <= b, "range '%.*s' accepted with step %g, start %g, stop %g", (int)len, s, step, a, b);
    CHECK(n >= 1, "range '%.*s': no values", (int)len, s);
    CHECK(v[0] == a, "range '%.*s' starts at %.17g, not %.17g", (int)len, s, v[0], a);
    double scale = fmax(fabs(a), fabs(b));
    int strict = step >= 1e-9 * scale;
    for (size_t i = 0; i < n; i++) {
        CHECK(v[i] >= a && v[i] <= b, "range '%.*s': value %zu = %.17g outside [%.17g, %.17g]", (int)len, s, i, v[i],
              a, b);
        if (i > 0)
            CHECK(strict ? v[i] > v[i - 1] : v[i] >= v[i - 1], "range '%.*s': value %zu = %.17g after %.17g",
                  (int)len, s, i, v[i], v[i - 1]);
    }
    /* n - 1 = floor((b - a)/step), to a relative 1e-9 of a step (and rounding). */
    double k = (b - a) / step;
    CHECK((double)(n - 1) <= k + 1e-9 + 1e-12 * k + 1e-12, "range '%.*s': %zu values pass the stop (%.17g steps)",
          (int)len, s, n, k);
    CHECK((double)n > k + 1e-9 - 1e-12 * k - 1e-6, "range '%.*s': %zu values stop short (%.17g steps)", (int)len, s,
          n, k);
}

static void fuzz_list(const char *text, const sd_domain *dom)
{
    /* The cost guard: skip lists that would expand to many values. */
    double total = 0.0;
    for (const char *s = text;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        double e = item_estimate(s, len);
        if (e == 0.0)
            break; /* the library stops at this item */
        total += e;
        if (comma == NULL)
            break;
        s = comma + 1;
    }
    if (total > FUZZ_LIST_ITEMS)
        return;

    sd_list l = { LIST_SENTINEL_V, LIST_SENTINEL_N };
    sd_error err;
    clear_error(&err);
    sd_status st = sd_parse_list(text, dom, &l, &err);
    if (st != SD_OK) {
        CHECK(st == SD_EINVAL || st == SD_ENOMEM, "sd_parse_list('%s'): status %d", text, (int)st);
        CHECK(l.v == LIST_SENTINEL_V && l.n == LIST_SENTINEL_N, "sd_parse_list('%s') failed but wrote the list", text);
        check_message(&err, "sd_parse_list");
    } else {
        check_list_ok(&l, dom);
    }

    /* Item by item: the list is the concatenation of its items. */
    size_t at = 0;
    int items_ok = 1;
    for (const char *s = text; items_ok;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char *item = malloc(len + 1);
        if (item == NULL)
            abort();
        memcpy(item, s, len);
        item[len] = '\0';
        sd_list one = { LIST_SENTINEL_V, LIST_SENTINEL_N };
        sd_error e1;
        clear_error(&e1);
        sd_status s1 = sd_parse_list(item, dom, &one, &e1);
        if (s1 != SD_OK) {
            items_ok = 0;
            CHECK(one.v == LIST_SENTINEL_V && one.n == LIST_SENTINEL_N, "sd_parse_list('%s') failed but wrote", item);
            check_message(&e1, "sd_parse_list (item)");
        } else {
            check_list_ok(&one, dom);
            if (strchr(item, ':') == NULL) {
                double x = SENTINEL;
                sd_error e2;
                CHECK(one.n == 1, "number item '%s' gave %zu values", item, one.n);
                CHECK(sd_parse_number(item, dom, &x, &e2) == SD_OK && same_double(x, one.v[0]),
                      "list item '%s' = %.17g but sd_parse_number gives %.17g", item, one.v[0], x);
            } else {
                check_range(item, len, one.v, one.n);
            }
            if (st == SD_OK) {
                CHECK(at + one.n <= l.n, "'%s': the items give more values than the list (%zu)", text, l.n);
                for (size_t i = 0; i < one.n; i++)
                    CHECK(same_double(l.v[at + i], one.v[i]), "'%s': value %zu is %.17g in the list, %.17g alone",
                          text, at + i, l.v[at + i], one.v[i]);
            }
            at += one.n;
            sd_parse_list_free(&one);
            CHECK(one.v == NULL && one.n == 0, "sd_parse_list_free left the list non-empty");
        }
        free(item);
        if (comma == NULL)
            break;
        s = comma + 1;
    }
    CHECK((st == SD_OK) == (items_ok && at <= SD_LIST_MAX), "sd_parse_list('%s') returned %d, its items %s", text,
          (int)st, items_ok ? "all parse" : "do not all parse");
    if (st == SD_OK) {
        CHECK(at == l.n, "'%s': the items give %zu values, the list %zu", text, at, l.n);
        sd_parse_list_free(&l);
        CHECK(l.v == NULL && l.n == 0, "sd_parse_list_free left the list non-empty");
    }
}

/* ---- the boundaries, once -------------------------------------------------------- */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const sd_domain any = { "x", -INFINITY, INFINITY, 0 };
    sd_list l = { NULL, 0 };
    sd_error err;
    /* Exactly SD_LIST_MAX values pass; one more fails and leaves the list alone. */
    CHECK(sd_parse_list("1e0:1e7", &any, &l, &err) == SD_OK && l.n == SD_LIST_MAX, "1e0:1e7: %s", err.msg);
    CHECK(l.v[0] == 1.0 && l.v[l.n - 1] == 1e7, "1e0:1e7 ends wrong");
    sd_parse_list_free(&l);
    l = (sd_list){ LIST_SENTINEL_V, LIST_SENTINEL_N };
    clear_error(&err);
    CHECK(sd_parse_list("1e0:1e7,1", &any, &l, &err) == SD_EINVAL, "1e0:1e7,1 accepted");
    CHECK(l.v == LIST_SENTINEL_V && l.n == LIST_SENTINEL_N, "1e0:1e7,1 wrote the list");
    check_message(&err, "1e0:1e7,1");
    clear_error(&err);
    CHECK(sd_parse_list("0:10000000", &any, &l, &err) == SD_EINVAL, "0:10000000 (10^7 + 1 values) accepted");
    check_message(&err, "0:10000000");
    /* The documented example: 0.5:0.95:0.05 is exactly 0.5, 0.55, ..., 0.95. */
    CHECK(sd_parse_list("0.5:0.95:0.05", &any, &l, &err) == SD_OK && l.n == 10, "0.5:0.95:0.05: %s", err.msg);
    for (size_t i = 0; i < l.n; i++) {
        char want[16];
        snprintf(want, sizeof want, "0.%02zu", 50 + 5 * i);
        CHECK(l.v[i] == strtod(want, NULL), "0.5:0.95:0.05: value %zu is %.17g, not %s", i, l.v[i], want);
    }
    sd_parse_list_free(&l);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const sd_domain dom = { "--fuzz", MINS[data[0] & 7], MAXS[(data[0] >> 3) & 7], (data[0] >> 6) & 1 };
    char range[96];
    const char *d = sd_parse_domain_describe(&dom, range, sizeof range);
    CHECK(d == range && strlen(range) < sizeof range && range[0] != '\0', "sd_parse_domain_describe");
    char *text = fuzz_text(data + 1, size - 1);
    fuzz_number(text, &dom);
    fuzz_list(text, &dom);
    free(text);
    return 0;
}

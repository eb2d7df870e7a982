/* parse.c -- strict numbers, lists and ranges (see parse.h). */
#include "specdec/parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sd_parse_domain_describe(const sd_domain *dom, char *buf, size_t size)
{
    char hi[64];
    if (dom->max < INFINITY)
        snprintf(hi, sizeof hi, "%.10g]", dom->max);
    else
        snprintf(hi, sizeof hi, "inf)");
    snprintf(buf, size, "%s[%.10g, %s", dom->whole ? "whole numbers in " : "", dom->min, hi);
    return buf;
}

/* Length of the decimal number at s ([+-]d+[.d*]|[+-].d+, optional exponent),
 * or 0 if s does not start with one. */
static size_t number_span(const char *s)
{
    size_t i = 0, digits = 0;
    if (s[i] == '+' || s[i] == '-')
        i++;
    while (s[i] >= '0' && s[i] <= '9') {
        i++;
        digits++;
    }
    if (s[i] == '.') {
        i++;
        while (s[i] >= '0' && s[i] <= '9') {
            i++;
            digits++;
        }
    }
    if (digits == 0)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1, exp_digits = 0;
        if (s[j] == '+' || s[j] == '-')
            j++;
        while (s[j] >= '0' && s[j] <= '9') {
            j++;
            exp_digits++;
        }
        if (exp_digits == 0)
            return 0;
        i = j;
    }
    return i;
}

/* Digits after the decimal point in a plain literal; -1 with an exponent. */
static int decimals(const char *s, size_t len)
{
    const char *dot = memchr(s, '.', len);
    if (memchr(s, 'e', len) || memchr(s, 'E', len))
        return -1;
    return dot ? (int)(len - (size_t)(dot - s) - 1) : 0;
}

/* Parses exactly the len characters at s as a number, with no domain check. */
static sd_status parse_raw(const char *s, size_t len, const sd_domain *dom, double *out,
                           sd_error *err)
{
    if (len == 0)
        return sd_status_fail(err, SD_EINVAL, "%s: empty value; expected a number", dom->name);
    if (number_span(s) != len)
        return sd_status_fail(err, SD_EINVAL, "%s: '%.*s' is not a number", dom->name, (int)len, s);
    char buf[128];
    if (len >= sizeof buf)
        return sd_status_fail(err, SD_EINVAL, "%s: '%.20s...' is too long for a number", dom->name, s);
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    double x = strtod(buf, NULL);
    if (errno == ERANGE && fabs(x) > 1.0)
        return sd_status_fail(err, SD_EINVAL, "%s: '%s' overflows a double", dom->name, buf);
    if (errno == ERANGE && !(fabs(x) > 0.0))
        return sd_status_fail(err, SD_EINVAL, "%s: '%s' underflows a double", dom->name, buf);
    *out = x;
    return SD_OK;
}

/* x as the shortest decimal that reads back as x (so 0.7 stays 0.7 and
 * 2.00000000001 is not shown as 2). */
static const char *shortest(double x, char *buf, size_t size)
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, x);
        if (strtod(buf, NULL) >= x && strtod(buf, NULL) <= x)
            break;
    }
    return buf;
}

/* x against dom; the message shows text when given (the value as typed),
 * else x in its shortest exact form (a grid point of a range). */
static sd_status check_domain(double x, const char *text, size_t len, const sd_domain *dom, sd_error *err)
{
    char range[96], shown[64];
    if (x >= dom->min && x <= dom->max && fabs(x) < INFINITY && !(dom->whole && floor(x) < x))
        return SD_OK; /* the common case: nothing to format (an infinity lies outside "[0, inf)") */
    if (text == NULL) {
        shortest(x, shown, sizeof shown);
        text = shown;
        len = strlen(shown);
    }
    if (!(x >= dom->min && x <= dom->max && fabs(x) < INFINITY))
        return sd_status_fail(err, SD_EINVAL, "%s: %.*s is outside %s", dom->name, (int)len, text,
                              sd_parse_domain_describe(dom, range, sizeof range));
    if (dom->whole && floor(x) < x)
        return sd_status_fail(err, SD_EINVAL, "%s: %.*s is not a whole number; expected %s", dom->name, (int)len, text,
                              sd_parse_domain_describe(dom, range, sizeof range));
    return SD_OK;
}

sd_status sd_parse_check(double x, const sd_domain *dom, sd_error *err)
{
    return check_domain(x, NULL, 0, dom, err);
}

sd_status sd_parse_number(const char *text, const sd_domain *dom, double *out, sd_error *err)
{
    double x;
    sd_status st = parse_raw(text, strlen(text), dom, &x, err);
    if (st == SD_OK)
        st = check_domain(x, text, strlen(text), dom, err);
    if (st == SD_OK)
        *out = x;
    return st;
}

static sd_status push(sd_list *l, size_t *cap, double x, const sd_domain *dom, sd_error *err)
{
    if (l->n >= SD_LIST_MAX)
        return sd_status_fail(err, SD_EINVAL, "%s: list longer than %u items", dom->name, SD_LIST_MAX);
    if (l->n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        double *nv = realloc(l->v, ncap * sizeof *nv);
        if (nv == NULL)
            return sd_status_fail(err, SD_ENOMEM, "%s: out of memory", dom->name);
        l->v = nv;
        *cap = ncap;
    }
    l->v[l->n++] = x;
    return SD_OK;
}

/* One item of a list: a number or start:stop[:step]. */
static sd_status parse_item(const char *s, size_t len, const sd_domain *dom, sd_list *l,
                            size_t *cap, sd_error *err)
{
    const char *c1 = memchr(s, ':', len);
    if (c1 == NULL) {
        double x;
        sd_status st = parse_raw(s, len, dom, &x, err);
        if (st == SD_OK)
            st = check_domain(x, s, len, dom, err);
        return st == SD_OK ? push(l, cap, x, dom, err) : st;
    }
    size_t n1 = (size_t)(c1 - s);
    const char *rest = c1 + 1;
    size_t rlen = len - n1 - 1;
    const char *c2 = memchr(rest, ':', rlen);
    size_t n2 = c2 ? (size_t)(c2 - rest) : rlen;
    const char *step_s = c2 ? c2 + 1 : "1";
    size_t n3 = c2 ? rlen - n2 - 1 : 1;
    if (c2 && memchr(step_s, ':', n3))
        return sd_status_fail(err, SD_EINVAL, "%s: range '%.*s' has more than three parts; expected start:stop[:step]",
                              dom->name, (int)len, s);

    double a, b, step;
    sd_status st = parse_raw(s, n1, dom, &a, err);
    if (st == SD_OK)
        st = parse_raw(rest, n2, dom, &b, err);
    if (st == SD_OK)
        st = parse_raw(step_s, n3, dom, &step, err);
    if (st != SD_OK)
        return st;
    if (!(step > 0.0))
        return sd_status_fail(err, SD_EINVAL, "%s: range '%.*s' needs a step > 0", dom->name, (int)len, s);
    if (b < a)
        return sd_status_fail(err, SD_EINVAL, "%s: range '%.*s' descends; write start:stop with start <= stop",
                              dom->name, (int)len, s);
    if ((st = check_domain(a, s, n1, dom, err)) != SD_OK || (st = check_domain(b, rest, n2, dom, err)) != SD_OK)
        return st;
    if (dom->whole && floor(step) < step)
        return sd_status_fail(err, SD_EINVAL, "%s: range step %.*s is not a whole number", dom->name, (int)n3, step_s);

    double count = floor((b - a) / step + 1e-9) + 1.0;
    if (count > SD_LIST_MAX)
        return sd_status_fail(err, SD_EINVAL, "%s: range '%.*s' has more than %u items", dom->name,
                              (int)len, s, SD_LIST_MAX);
    int da = decimals(s, n1), ds = decimals(step_s, n3);
    int digits = (da < 0 || ds < 0) ? -1 : (da > ds ? da : ds);
    for (size_t i = 0; i < (size_t)count; i++) {
        double x = a + (double)i * step;
        if (digits >= 0 && digits < 17) { /* snap to the literal's decimals */
            char buf[400];
            snprintf(buf, sizeof buf, "%.*f", digits, x);
            x = strtod(buf, NULL);
        }
        if (x > b)
            x = b; /* within the 1e-9 step tolerance above */
        if ((st = push(l, cap, x, dom, err)) != SD_OK)
            return st;
    }
    return SD_OK;
}

sd_status sd_parse_list(const char *text, const sd_domain *dom, sd_list *out, sd_error *err)
{
    sd_list l = { NULL, 0 };
    size_t cap = 0;
    sd_status st = SD_OK;
    const char *s = text;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (len == 0) {
            st = sd_status_fail(err, SD_EINVAL, "%s: empty item in list '%s'", dom->name, text);
            break;
        }
        if ((st = parse_item(s, len, dom, &l, &cap, err)) != SD_OK)
            break;
        if (comma == NULL)
            break;
        s = comma + 1;
    }
    if (st != SD_OK) {
        free(l.v);
        return st;
    }
    *out = l;
    return SD_OK;
}

void sd_parse_list_free(sd_list *list)
{
    free(list->v);
    list->v = NULL;
    list->n = 0;
}

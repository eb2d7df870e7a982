/* text.c -- the text layer of the counters readers (see text.h): a file as lines, blanks and
 * spans, the number grammars engines print. */
#include "text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/file.h"

#define FILE_MAX ((size_t)1 << 30)

void sd_text_free(sd_text_lines *t)
{
    free(t->buf);
    free(t->line);
    memset(t, 0, sizeof *t);
}

sd_status sd_text_read(const char *path, sd_text_lines *t, sd_error *err)
{
    memset(t, 0, sizeof *t);
    size_t len = 0;
    sd_status st = sd_file_read(path, FILE_MAX, &t->buf, &len, err);
    if (st != SD_OK)
        return st;
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += t->buf[i] == '\n';
    n += len > 0 && t->buf[len - 1] != '\n';
    if ((t->line = malloc((n ? n : 1) * sizeof *t->line)) == NULL) {
        sd_text_free(t);
        return sd_status_fail(err, SD_ENOMEM, "%s: out of memory", path);
    }
    char *s = t->buf;
    for (size_t i = 0; i < n; i++) {
        char *nl = memchr(s, '\n', len - (size_t)(s - t->buf));
        char *end = nl ? nl : t->buf + len;
        *end = '\0';
        if (end > s && end[-1] == '\r')
            end[-1] = '\0';
        t->line[i] = s;
        size_t l = strlen(s);
        t->longest = l > t->longest ? l : t->longest;
        s = end + 1;
    }
    t->n = n;
    return SD_OK;
}

int sd_text_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

const char *sd_text_skip_blank(const char *s)
{
    while (sd_text_blank(*s))
        s++;
    return s;
}

void sd_text_trim(const char **s, size_t *n)
{
    while (*n > 0 && sd_text_blank(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && sd_text_blank((*s)[*n - 1]))
        (*n)--;
}

int sd_text_span_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

int sd_text_count(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || n > 16)
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = 10 * v + (uint64_t)(s[i] - '0');
    }
    if (v > ((uint64_t)1 << 53)) /* not (double)v: 2^53 + 1 would round to 2^53 */
        return 0;
    *out = v;
    return 1;
}

int sd_text_decimal(const char *s, size_t n, double *x, double *half)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    const char *p = buf + (buf[0] == '+' || buf[0] == '-');
    if (strcmp(p, "nan") == 0 || strcmp(p, "inf") == 0) {
        *x = p[0] == 'n' ? NAN : (buf[0] == '-' ? -INFINITY : INFINITY);
        *half = 0.0;
        return 1;
    }
    size_t digits = 0;
    size_t dec = 0;
    int dot = 0;
    for (; *p; p++) {
        if (*p == '.' && !dot) {
            dot = 1;
        } else if (*p >= '0' && *p <= '9') {
            digits++;
            dec += (size_t)dot;
        } else {
            return 0;
        }
    }
    if (digits == 0)
        return 0;
    *x = strtod(buf, NULL);
    *half = 0.5 * pow(10.0, -(double)dec);
    return 1;
}

int sd_text_next_item(const char **s, const char **item, size_t *len)
{
    const char *p = *s;
    if (*p == '\0')
        return 0;
    int depth = 0;
    const char *q = p;
    for (; *q && !(*q == ',' && depth <= 0); q++)
        depth += (*q == '(' || *q == '[') - (*q == ')' || *q == ']');
    *item = p;
    *len = (size_t)(q - p);
    sd_text_trim(item, len);
    *s = *q ? q + 1 : q;
    return 1;
}

int sd_text_rates(const char *s, size_t n, double *r, size_t max, size_t *k, double *half)
{
    char buf[2048];
    sd_text_trim(&s, &n);
    *k = 0;
    *half = 0.0;
    if (n == 0)
        return 1;
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    const char *p = buf;
    const char *it;
    size_t len;
    while (sd_text_next_item(&p, &it, &len)) {
        double x, h;
        if (*k == max) {
            *k = max + 1;
            return 1;
        }
        if (!sd_text_decimal(it, len, &x, &h) || !(x >= 0.0 && x <= 1.0))
            return 0;
        r[(*k)++] = x;
        *half = fmax(*half, h);
    }
    return 1;
}

int sd_text_go_float(const char *s, size_t n, double *x)
{
    char buf[400];
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    const char *p = buf + (buf[0] == '+' || buf[0] == '-');
    if (strcasecmp(p, "inf") == 0 || strcasecmp(p, "infinity") == 0 || strcasecmp(p, "nan") == 0) {
        *x = (p[0] | 0x20) == 'n' ? NAN : buf[0] == '-' ? -INFINITY : INFINITY;
        return 1;
    }
    size_t i = 0;
    size_t d = 0;
    size_t e = 0;
    for (; p[i] >= '0' && p[i] <= '9'; i++)
        d++;
    if (p[i] == '.')
        for (i++; p[i] >= '0' && p[i] <= '9'; i++)
            d++;
    if (d > 0 && (p[i] == 'e' || p[i] == 'E')) {
        i += 1 + (p[i + 1] == '+' || p[i + 1] == '-');
        for (; p[i] >= '0' && p[i] <= '9'; i++)
            e++;
        if (e == 0)
            return 0;
    }
    if (d == 0 || p[i] != '\0')
        return 0;
    errno = 0;
    *x = strtod(buf, NULL);
    return !(errno == ERANGE && isinf(*x));
}

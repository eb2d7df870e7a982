/* npy.c -- reading and writing NumPy .npy arrays (see npy.h).
 *
 * The layout follows the NumPy documentation of numpy.lib.format ("NPY
 * format", versions 1.0, 2.0 and 3.0; NEP 1).  The header is a Python dict
 * literal; this reader accepts the subset NumPy writes -- quoted keys and
 * strings, True/False, a tuple of whole numbers -- in any key order, and
 * nothing else.  Items are assembled from little-endian bytes, so the
 * result does not depend on the host's byte order.  Cost: O(header + data);
 * the file is read whole.
 */
#include "specdec/npy.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/dist.h"
#include "common/file.h"

static const unsigned char MAGIC[6] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };

/* The parsed header. */
typedef struct {
    char descr[16];
    int fortran, have_descr, have_order, have_shape;
    size_t shape[2];
    int ndim;
} header;

typedef struct {
    const char *s, *end;
} cursor;

static void skip_space(cursor *c)
{
    while (c->s < c->end && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r'))
        c->s++;
}

/* A quoted string into out[size]; 0 when malformed or too long. */
static int read_string(cursor *c, char *out, size_t size)
{
    if (c->s >= c->end || (*c->s != '\'' && *c->s != '"'))
        return 0;
    char quote = *c->s++;
    size_t n = 0;
    while (c->s < c->end && *c->s != quote) {
        if (n + 1 >= size)
            return 0;
        out[n++] = *c->s++;
    }
    if (c->s >= c->end)
        return 0;
    c->s++;
    out[n] = '\0';
    return 1;
}

static int read_word(cursor *c, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(c->end - c->s) < n || memcmp(c->s, w, n) != 0)
        return 0;
    c->s += n;
    return 1;
}

/* A tuple of at most two whole numbers, "(3,)", "(2, 5)", "()"; returns the
 * rank (more than 2 counts as 3) or -1 when malformed or a number exceeds
 * SD_NPY_ITEMS_MAX. */
static int read_shape(cursor *c, size_t *shape)
{
    int ndim = 0;
    if (c->s >= c->end || *c->s++ != '(')
        return -1;
    for (;;) {
        skip_space(c);
        if (c->s < c->end && *c->s == ')') {
            c->s++;
            return ndim > 2 ? 3 : ndim;
        }
        size_t v = 0;
        const char *start = c->s;
        while (c->s < c->end && *c->s >= '0' && *c->s <= '9') {
            v = v * 10 + (size_t)(*c->s++ - '0');
            if (v > SD_NPY_ITEMS_MAX)
                return -1;
        }
        if (c->s == start)
            return -1;
        if (ndim < 2)
            shape[ndim] = v;
        ndim++;
        skip_space(c);
        if (c->s < c->end && *c->s == ',')
            c->s++;
        else if (c->s >= c->end || *c->s != ')')
            return -1;
    }
}

static sd_status parse_header(const char *text, size_t len, const char *name, header *h, sd_error *err)
{
    cursor c = { text, text + len };
    memset(h, 0, sizeof *h);
    skip_space(&c);
    if (c.s >= c.end || *c.s++ != '{')
        return sd_status_fail(err, SD_EINVAL, "%s: the header is not a dict literal (no '{')", name);
    for (;;) {
        skip_space(&c);
        if (c.s < c.end && *c.s == '}') {
            c.s++;
            break;
        }
        char key[32];
        if (!read_string(&c, key, sizeof key))
            return sd_status_fail(err, SD_EINVAL, "%s: the header has a malformed key", name);
        skip_space(&c);
        if (c.s >= c.end || *c.s++ != ':')
            return sd_status_fail(err, SD_EINVAL, "%s: the header lacks ':' after '%s'", name, key);
        skip_space(&c);
        if (strcmp(key, "descr") == 0 && !h->have_descr) {
            if (!read_string(&c, h->descr, sizeof h->descr))
                return sd_status_fail(err, SD_EINVAL, "%s: descr is not a simple dtype string (structured arrays are "
                                      "not read); expected '<f2', '<f4' or '<f8'", name);
            h->have_descr = 1;
        } else if (strcmp(key, "fortran_order") == 0 && !h->have_order) {
            if (read_word(&c, "True"))
                h->fortran = 1;
            else if (!read_word(&c, "False"))
                return sd_status_fail(err, SD_EINVAL, "%s: fortran_order is neither True nor False", name);
            h->have_order = 1;
        } else if (strcmp(key, "shape") == 0 && !h->have_shape) {
            if ((h->ndim = read_shape(&c, h->shape)) < 0)
                return sd_status_fail(err, SD_EINVAL, "%s: shape is not a tuple of whole numbers up to %zu", name,
                                      SD_NPY_ITEMS_MAX);
            h->have_shape = 1;
        } else {
            return sd_status_fail(err, SD_EINVAL, "%s: the header has an unknown or repeated key '%s'", name, key);
        }
        skip_space(&c);
        if (c.s < c.end && *c.s == ',')
            c.s++;
        else if (c.s >= c.end || *c.s != '}')
            return sd_status_fail(err, SD_EINVAL, "%s: the header lacks ',' or '}' after '%s'", name, key);
    }
    skip_space(&c);
    if (c.s != c.end)
        return sd_status_fail(err, SD_EINVAL, "%s: the header has bytes after its closing '}'", name);
    if (!h->have_descr || !h->have_order || !h->have_shape)
        return sd_status_fail(err, SD_EINVAL, "%s: the header lacks '%s'", name,
                              !h->have_descr ? "descr" : !h->have_order ? "fortran_order" : "shape");
    return SD_OK;
}

/* IEEE 754 binary16 to double: sign, 5 exponent bits (bias 15), 10 fraction bits. */
static double half_to_double(unsigned bits)
{
    unsigned e = (bits >> 10) & 0x1f, f = bits & 0x3ff;
    double v = e == 0 ? ldexp((double)f, -24) : e == 31 ? (f ? NAN : INFINITY) : ldexp((double)(f | 0x400), (int)e - 25);
    return bits & 0x8000 ? -v : v;
}

static uint64_t le_bytes(const unsigned char *b, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | b[i];
    return v;
}

static double item(const unsigned char *b, size_t size)
{
    uint64_t bits = le_bytes(b, size);
    if (size == 2)
        return half_to_double((unsigned)bits);
    if (size == 4) {
        uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

sd_status sd_npy_parse(const void *buf, size_t len, const char *name, sd_npy *out, sd_error *err)
{
    const unsigned char *b = buf;
    if (len < 10 || memcmp(b, MAGIC, sizeof MAGIC) != 0)
        return sd_status_fail(err, SD_EINVAL, "%s: not an .npy file (no \\x93NUMPY magic string)", name);
    unsigned major = b[6], minor = b[7];
    if (major < 1 || major > 3 || minor != 0)
        return sd_status_fail(err, SD_EINVAL, "%s: .npy format version %u.%u; expected 1.0, 2.0 or 3.0", name, major, minor);
    size_t lenbytes = major == 1 ? 2 : 4, start = 8 + lenbytes;
    if (len < start)
        return sd_status_fail(err, SD_EINVAL, "%s: truncated in the header length", name);
    size_t hlen = (size_t)le_bytes(b + 8, lenbytes);
    if (hlen > len - start)
        return sd_status_fail(err, SD_EINVAL, "%s: truncated: the header needs %zu bytes, the file has %zu after the "
                              "length field", name, hlen, len - start);
    header h;
    sd_status st = parse_header((const char *)b + start, hlen, name, &h, err);
    if (st != SD_OK)
        return st;
    size_t size = strcmp(h.descr, "<f2") == 0 ? 2 : strcmp(h.descr, "<f4") == 0 ? 4 : strcmp(h.descr, "<f8") == 0 ? 8 : 0;
    if (size == 0)
        return sd_status_fail(err, SD_EINVAL, "%s: dtype '%s' is not read; expected little-endian floats '<f2', '<f4' or "
                              "'<f8'", name, h.descr);
    if (h.fortran)
        return sd_status_fail(err, SD_EINVAL, "%s: Fortran order is not read; save the array in C order "
                              "(numpy.ascontiguousarray)", name);
    if (h.ndim < 1 || h.ndim > 2)
        return sd_status_fail(err, SD_EINVAL, "%s: shape has %d dimensions; expected (V,) or (rows, V)", name, h.ndim);
    size_t rows = h.ndim == 1 ? 1 : h.shape[0], cols = h.shape[h.ndim - 1];
    if (rows < 1 || cols < 1 || cols > SD_VOCAB_MAX || rows > SD_NPY_ITEMS_MAX / cols)
        return sd_status_fail(err, SD_EINVAL, "%s: shape (%zu, %zu) is outside rows >= 1, V in [1, %u], at most %zu items",
                              name, rows, cols, SD_VOCAB_MAX, SD_NPY_ITEMS_MAX);
    size_t need = rows * cols * size, have = len - start - hlen;
    if (have < need)
        return sd_status_fail(err, SD_EINVAL, "%s: truncated: shape (%zu, %zu) of %s needs %zu data bytes, the file has %zu",
                              name, rows, cols, h.descr, need, have);
    if (have > need)
        return sd_status_fail(err, SD_EINVAL, "%s: %zu bytes after the data of shape (%zu, %zu); the shape does not match "
                              "the data", name, have - need, rows, cols);
    double *v = malloc(rows * cols * sizeof *v);
    if (v == NULL)
        return sd_status_fail(err, SD_ENOMEM, "%s: out of memory for %zu x %zu values", name, rows, cols);
    const unsigned char *data = b + start + hlen;
    for (size_t i = 0; i < rows * cols; i++) {
        v[i] = item(data + i * size, size);
        double x = v[i];
        if (isnan(x) || (isinf(x) && x > 0)) {
            free(v);
            return sd_status_fail(err, SD_EINVAL, "%s: value %g at row %zu, column %zu; values must be finite or -inf", name,
                                  x, i / cols, i % cols);
        }
    }
    *out = (sd_npy){ rows, cols, h.ndim, v };
    return SD_OK;
}

/* The largest file read: the most items at 8 bytes, and a header. */
static const size_t FILE_MAX = SD_NPY_ITEMS_MAX * 8 + ((size_t)1 << 20);

sd_status sd_npy_load(const char *path, sd_npy *out, sd_error *err)
{
    char *buf;
    size_t len;
    sd_status st = sd_file_read(path, FILE_MAX, &buf, &len, err);
    if (st != SD_OK)
        return st;
    st = sd_npy_parse(buf, len, path, out, err);
    free(buf);
    return st;
}

sd_status sd_npy_save(const char *path, const double *v, size_t rows, size_t cols, sd_error *err)
{
    char head[128];
    int n = snprintf(head, sizeof head, "{'descr': '<f8', 'fortran_order': False, 'shape': (%zu, %zu), }", rows, cols);
    size_t total = 10 + (size_t)n + 1, pad = (64 - total % 64) % 64; /* data aligned to 64 bytes */
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return sd_status_fail(err, SD_EINVAL, "%s: cannot write: %s", path, strerror(errno));
    size_t hlen = (size_t)n + pad + 1;
    unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                              (unsigned char)(hlen >> 8) };
    int bad = fwrite(pre, 1, 10, f) != 10 || fputs(head, f) == EOF || fprintf(f, "%*s\n", (int)pad, "") < 0;
    for (size_t i = 0; i < rows * cols && !bad; i++) {
        uint64_t bits;
        unsigned char b[8];
        memcpy(&bits, &v[i], sizeof bits);
        for (int k = 0; k < 8; k++)
            b[k] = (unsigned char)(bits >> (8 * k));
        bad = fwrite(b, 1, 8, f) != 8;
    }
    if (fclose(f) != 0 || bad)
        return sd_status_fail(err, SD_EIO, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
    return SD_OK;
}

void sd_npy_free(sd_npy *a)
{
    free(a->v);
    memset(a, 0, sizeof *a);
}

/* fuzz_serving.c -- sd_serving_load_trace and sd_serving_load_lengths (serving.h).
 *
 * Input: the file, which both loaders read.
 * Properties:
 *   - each loader accepts exactly what a reference reading accepts: the
 *     reference TSV reader (fuzz_common.h), a header naming the columns,
 *     every row as wide, at least one row, every value under its documented
 *     domain by sd_parse_number (fuzzed on its own by fuzz_parse), and for
 *     the trace times that never go backwards;
 *   - on success every value equals the reference's and lies in its domain;
 *   - on failure nothing is written, the status is SD_EINVAL and the
 *     message is one line that names the file.
 */
#include <math.h>

#include "fuzz_common.h"

/* The reference: 1 and the rows' values of cols (its domains), or 0. */
static int reference(const ref_tsv *ref, const char *const *cols, const sd_domain *dom, size_t n, double **v,
                     size_t *rows)
{
    *v = NULL;
    *rows = 0;
    if (ref->nrows < 2)
        return 0; /* no header, or no row */
    const ref_row *head = &ref->row[0];
    size_t idx[3];
    for (size_t k = 0; k < n; k++)
        if ((idx[k] = ref_column(head, cols[k])) == (size_t)-1)
            return 0;
    size_t m = ref->nrows - 1;
    double *x = calloc(m * n + 1, sizeof *x);
    if (x == NULL)
        abort();
    for (size_t i = 0; i < m; i++) {
        const ref_row *r = &ref->row[i + 1];
        if (r->nfields != head->nfields)
            goto bad;
        for (size_t k = 0; k < n; k++)
            if (sd_parse_number(r->field[idx[k]], &dom[k], &x[i * n + k], NULL) != SD_OK)
                goto bad;
    }
    *v = x;
    *rows = m;
    return 1;
bad:
    free(x);
    return 0;
}

static void failed(sd_status st, const sd_error *err, const char *path, const char *what)
{
    CHECK(st == SD_EINVAL, "%s: status %d", what, (int)st);
    check_message(err, what);
    CHECK(strncmp(err->msg, path, strlen(path)) == 0, "%s's message does not name the file: %s", what, err->msg);
}

static void fuzz_trace(const char *path, const ref_tsv *ref)
{
    static const char *const cols[3] = { "time", "prompt", "output" };
    static const sd_domain dom[3] = { { "time", 0, 1e12, 0 }, { "prompt", 1, 16777216, 1 }, { "output", 1, 16777216, 1 } };
    double *v;
    size_t rows;
    int ok = reference(ref, cols, dom, 3, &v, &rows);
    for (size_t i = 1; ok && i < rows; i++)
        ok = v[i * 3] >= v[(i - 1) * 3];
    double *sentinel = (double *)(uintptr_t)0x5eed, *t = sentinel, *p = sentinel, *o = sentinel;
    size_t n = 4242;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_serving_load_trace(path, &t, &p, &o, &n, &err);
    CHECK((st == SD_OK) == ok, "sd_serving_load_trace says %d, the reference %d [%s]", (int)st, ok, err.msg);
    if (st != SD_OK) {
        failed(st, &err, path, "sd_serving_load_trace");
        CHECK(t == sentinel && p == sentinel && o == sentinel && n == 4242, "sd_serving_load_trace failed but wrote");
    } else {
        CHECK(n == rows, "%zu rows; the reference %zu", n, rows);
        for (size_t i = 0; i < n; i++) {
            CHECK(t[i] == v[i * 3] && p[i] == v[i * 3 + 1] && o[i] == v[i * 3 + 2], "row %zu differs", i);
            CHECK(t[i] >= 0 && p[i] >= 1 && o[i] >= 1 && (i == 0 || t[i] >= t[i - 1]), "row %zu out of domain", i);
        }
        free(t), free(p), free(o);
    }
    free(v);
}

static void fuzz_lengths(const char *path, const ref_tsv *ref)
{
    static const char *const cols[2] = { "length", "weight" };
    static const sd_domain dom[2] = { { "length", 1, 16777216, 1 }, { "weight", 1e-300, 1e300, 0 } };
    double *v;
    size_t rows;
    int ok = reference(ref, cols, dom, 2, &v, &rows);
    double *sentinel = (double *)(uintptr_t)0x5eed, *l = sentinel, *w = sentinel;
    size_t n = 4242;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_serving_load_lengths(path, &l, &w, &n, &err);
    CHECK((st == SD_OK) == ok, "sd_serving_load_lengths says %d, the reference %d [%s]", (int)st, ok, err.msg);
    if (st != SD_OK) {
        failed(st, &err, path, "sd_serving_load_lengths");
        CHECK(l == sentinel && w == sentinel && n == 4242, "sd_serving_load_lengths failed but wrote");
    } else {
        CHECK(n == rows, "%zu rows; the reference %zu", n, rows);
        for (size_t i = 0; i < n; i++)
            CHECK(l[i] == v[i * 2] && w[i] == v[i * 2 + 1] && l[i] >= 1 && w[i] > 0, "row %zu differs", i);
        free(l), free(w);
    }
    free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    ref_tsv ref;
    ref_tsv_read(data, size, &ref);
    fuzz_trace(path, &ref);
    fuzz_lengths(path, &ref);
    ref_tsv_free(&ref);
    return 0;
}

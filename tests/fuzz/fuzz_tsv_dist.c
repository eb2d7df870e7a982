/* fuzz_tsv_dist.c -- sd_tsv_load and sd_dist_load (parse.h, dist.h).
 *
 * Input: byte 0 picks sd_tsv_load's arguments (bit 0: header; bits 1-3:
 * max_rows from MAX_ROWS); the rest is the file, which both loaders read.
 * Properties:
 *   - sd_tsv_load agrees with a reference reader (fuzz_common.h) on success
 *     or failure, every field, the column names and each row's line number;
 *     rows <= max_rows, every row as wide as the header; no field holds a tab
 *     or newline or begins with a space or ends with a space or CR; on
 *     failure *out is zeroed; sd_tsv_column finds the first column of each
 *     name and nothing without a header; sd_tsv_free leaves it zeroed;
 *   - sd_dist_load succeeds iff the file is a distribution by dist.h's
 *     rules (checked against the reference rows and sd_parse_number); a
 *     loaded one has n >= 1 equal to the rows, every p in [0, 1], sum within
 *     1e-9 of 1, p[i] = value[i] / sum, labels NULL or all n present,
 *     non-empty and equal to the first fields; on failure *d keeps its
 *     sentinel; sd_dist_compatible(d, d), sd_dist_overlap(p, p) = 1,
 *     sd_dist_tv(p, p) = 0 and sd_cdf_init(p) hold for it;
 *   - every error message is one non-empty line.
 */
#include <math.h>

#include "fuzz_common.h"

static const size_t MAX_ROWS[8] = { 0, 1, 2, 3, 5, 10, 1000, SD_VOCAB_MAX };

static void check_field(const char *f, const char *what)
{
    size_t n = strlen(f);
    CHECK(strchr(f, '\t') == NULL && strchr(f, '\n') == NULL, "%s '%s' holds a tab or newline", what, f);
    CHECK(n == 0 || (f[0] != ' ' && f[n - 1] != ' ' && f[n - 1] != '\r'), "%s '%s' is not stripped", what, f);
}

static void fuzz_tsv(const char *path, const uint8_t *file, size_t size, int header, size_t max_rows)
{
    ref_tsv ref;
    ref_tsv_read(file, size, &ref);
    /* What the reference expects: the header, then rows as wide, at most max_rows. */
    const ref_row *head = header && ref.nrows > 0 ? &ref.row[0] : NULL;
    size_t first = head ? 1 : 0, bad_line = 0;
    int ok = !header || head != NULL;
    for (size_t i = first; ok && i < ref.nrows; i++)
        if ((head && ref.row[i].nfields != head->nfields) || i - first >= max_rows)
            ok = 0, bad_line = ref.row[i].line;

    sd_tsv t;
    memset(&t, 0xa5, sizeof t);
    sd_error err;
    clear_error(&err);
    sd_status st = sd_tsv_load(path, header, max_rows, &t, &err);
    CHECK((st == SD_OK) == ok, "sd_tsv_load(header %d, max_rows %zu) returned %d, the reference %s [%s]", header,
          max_rows, (int)st, ok ? "accepts" : "rejects", st == SD_OK ? "" : err.msg);
    if (st != SD_OK) {
        sd_tsv zero;
        memset(&zero, 0, sizeof zero);
        CHECK(st == SD_EINVAL, "sd_tsv_load: status %d", (int)st);
        CHECK(memcmp(&t, &zero, sizeof t) == 0, "sd_tsv_load failed but *out is not zeroed");
        check_message(&err, "sd_tsv_load");
        CHECK(strncmp(err.msg, path, strlen(path)) == 0, "sd_tsv_load's message does not name the file: %s", err.msg);
        if (bad_line) {
            char where[4200];
            snprintf(where, sizeof where, "%s:%zu: ", path, bad_line);
            CHECK(strncmp(err.msg, where, strlen(where)) == 0, "sd_tsv_load's message names the wrong line: %s",
                  err.msg);
        }
        ref_tsv_free(&ref);
        return;
    }
    CHECK(t.nrows == ref.nrows - first, "%zu rows; the reference has %zu", t.nrows, ref.nrows - first);
    CHECK(t.nrows <= max_rows, "%zu rows > max_rows %zu", t.nrows, max_rows);
    if (header) {
        CHECK(t.column != NULL && t.ncolumns == head->nfields, "header of %zu columns; the reference has %zu",
              t.ncolumns, head->nfields);
        for (size_t j = 0; j < t.ncolumns; j++) {
            CHECK(t.column[j] != NULL && strcmp(t.column[j], head->field[j]) == 0, "column %zu is '%s', not '%s'", j,
                  t.column[j], head->field[j]);
            check_field(t.column[j], "column");
            CHECK(sd_tsv_column(&t, t.column[j]) == ref_column(head, t.column[j]), "sd_tsv_column('%s')",
                  t.column[j]);
        }
    } else {
        CHECK(t.column == NULL && t.ncolumns == 0, "columns without a header");
    }
    CHECK(sd_tsv_column(&t, "no\tsuch column") == (size_t)-1, "sd_tsv_column found a name with a tab");
    size_t last_line = head ? head->line : 0;
    for (size_t i = 0; i < t.nrows; i++) {
        const sd_tsv_row *r = &t.row[i];
        const ref_row *w = &ref.row[first + i];
        CHECK(r->line == w->line && r->line > last_line, "row %zu on line %zu; the reference says %zu", i, r->line,
              w->line);
        last_line = r->line;
        CHECK(r->nfields == w->nfields && r->nfields >= 1, "row %zu: %zu fields; the reference has %zu", i,
              r->nfields, w->nfields);
        CHECK(!header || r->nfields == t.ncolumns, "row %zu: %zu fields under %zu columns", i, r->nfields,
              t.ncolumns);
        CHECK(r->field[0][0] != '#', "row %zu is a comment", i);
        for (size_t j = 0; j < r->nfields; j++) {
            CHECK(r->field[j] != NULL && strcmp(r->field[j], w->field[j]) == 0, "row %zu field %zu is '%s', not '%s'",
                  i, j, r->field[j], w->field[j]);
            check_field(r->field[j], "field");
        }
    }
    sd_tsv_free(&t);
    CHECK(t.column == NULL && t.ncolumns == 0 && t.row == NULL && t.nrows == 0, "sd_tsv_free left data");
    ref_tsv_free(&ref);
}

static void fuzz_dist(const char *path, const uint8_t *file, size_t size)
{
    /* What dist.h expects, from the reference rows. */
    ref_tsv ref;
    ref_tsv_read(file, size, &ref);
    size_t n = ref.nrows;
    int labelled = n > 0 && ref.row[0].nfields == 2;
    int ok = n >= 1 && n <= SD_VOCAB_MAX;
    double *want = calloc(n ? n : 1, sizeof *want);
    if (want == NULL)
        abort();
    for (size_t i = 0; ok && i < n; i++) {
        const ref_row *r = &ref.row[i];
        const sd_domain dom = { "p", 0.0, 1.0, 0 };
        sd_error e;
        if (r->nfields > 2 || (r->nfields == 2) != labelled || (labelled && r->field[0][0] == '\0'))
            ok = 0;
        else if (sd_parse_number(r->field[labelled], &dom, &want[i], &e) != SD_OK)
            ok = 0;
    }
    double sum = 0.0;
    for (size_t i = 0; ok && i < n; i++)
        sum += want[i];
    if (ok && !(fabs(sum - 1.0) <= SD_DIST_SUM_TOL))
        ok = 0;

    sd_dist d = { 4242, (double *)(uintptr_t)0x5eed, (char **)(uintptr_t)0x5eed };
    sd_error err;
    clear_error(&err);
    sd_status st = sd_dist_load(path, &d, &err);
    CHECK((st == SD_OK) == ok, "sd_dist_load returned %d; by dist.h's rules it should %s [%s]", (int)st,
          ok ? "succeed" : "fail", st == SD_OK ? "" : err.msg);
    if (st != SD_OK) {
        CHECK(st == SD_EINVAL, "sd_dist_load: status %d", (int)st);
        CHECK(d.n == 4242 && d.p == (double *)(uintptr_t)0x5eed && d.labels == (char **)(uintptr_t)0x5eed,
              "sd_dist_load failed but wrote *d");
        check_message(&err, "sd_dist_load");
        CHECK(strncmp(err.msg, path, strlen(path)) == 0, "sd_dist_load's message does not name the file: %s",
              err.msg);
    } else {
        CHECK(d.n == n && d.n >= 1, "n = %zu; the file has %zu rows", d.n, n);
        CHECK(d.p != NULL, "no probabilities");
        CHECK((d.labels != NULL) == labelled, "labels %s for a file %s them", d.labels ? "present" : "absent",
              labelled ? "with" : "without");
        double s = 0.0;
        for (size_t i = 0; i < d.n; i++) {
            CHECK(d.p[i] >= 0.0 && d.p[i] <= 1.0, "p[%zu] = %.17g", i, d.p[i]);
            CHECK(d.p[i] == want[i] / sum, "p[%zu] = %.17g, not %.17g / %.17g", i, d.p[i], want[i], sum);
            s += d.p[i];
            if (labelled) {
                CHECK(d.labels[i] != NULL && d.labels[i][0] != '\0', "label %zu missing or empty", i);
                CHECK(strcmp(d.labels[i], ref.row[i].field[0]) == 0, "label %zu is '%s', not '%s'", i, d.labels[i],
                      ref.row[i].field[0]);
                check_field(d.labels[i], "label");
            }
        }
        CHECK(fabs(s - 1.0) <= 1e-9, "loaded probabilities sum to %.17g", s);
        CHECK(sd_dist_check(d.p, d.n, "p", &err) == SD_OK, "the loaded vector fails sd_dist_check: %s", err.msg);
        CHECK(sd_dist_compatible(&d, &d, "p", "p", &err) == SD_OK, "not compatible with itself: %s", err.msg);
        double beta = sd_dist_overlap(d.p, d.p, d.n), tv = sd_dist_tv(d.p, d.p, d.n);
        CHECK(fabs(beta - 1.0) <= 1e-9 && tv == 0.0, "overlap(p, p) = %.17g, tv(p, p) = %.17g", beta, tv);
        sd_cdf cdf;
        CHECK(sd_cdf_init(&cdf, d.p, d.n, &err) == SD_OK && cdf.n == d.n, "sd_cdf_init: %s", err.msg);
        sd_cdf_free(&cdf);
        sd_dist_free(&d);
        CHECK(d.n == 0 && d.p == NULL && d.labels == NULL, "sd_dist_free left data");
    }
    free(want);
    ref_tsv_free(&ref);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int header = data[0] & 1;
    size_t max_rows = MAX_ROWS[(data[0] >> 1) & 7];
    const char *path = fuzz_file(data + 1, size - 1);
    fuzz_tsv(path, data + 1, size - 1, header, max_rows);
    fuzz_dist(path, data + 1, size - 1);
    return 0;
}

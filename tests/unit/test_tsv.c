/* test_tsv.c -- tab-separated files with line numbers (tsv.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "specdec/tsv.h"
#include "testutil.h"

START_TEST(tsv_files)
{
    sd_tsv t;
    const char *path = write_temp("# comment\nname\talpha \t cost\n\na\t0.5\t0.1\r\n# more\n b \t0.7\t0.2\n");
    ck_assert_int_eq(sd_tsv_load(path, 1, 100, &t, NULL), SD_OK);
    ck_assert_uint_eq(t.ncolumns, 3);
    ck_assert_str_eq(t.column[1], "alpha");
    ck_assert_uint_eq(t.nrows, 2);
    ck_assert_str_eq(t.row[1].field[0], "b");
    ck_assert_str_eq(t.row[1].field[2], "0.2");
    ck_assert_uint_eq(t.row[0].line, 4);
    ck_assert_uint_eq(t.row[1].line, 6);
    ck_assert_uint_eq(sd_tsv_column(&t, "cost"), 2);
    ck_assert_uint_eq(sd_tsv_column(&t, "gamma"), (size_t)-1);
    sd_tsv_free(&t);
    unlink(path);
    sd_error err;
    path = write_temp("name\talpha\na\t0.5\nb\n");
    ck_assert_int_eq(sd_tsv_load(path, 1, 100, &t, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, ":3: 1 fields; the header has 2"));
    unlink(path);
    path = write_temp("# only comments\n");
    ck_assert_int_eq(sd_tsv_load(path, 1, 100, &t, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "no header line"));
    unlink(path);
    path = write_temp("a\nb\nc\n");
    ck_assert_int_eq(sd_tsv_load(path, 0, 2, &t, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, ":3: more than 2 rows"));
    unlink(path);
    ck_assert_int_eq(sd_tsv_load("/nonexistent.tsv", 1, 100, &t, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "/nonexistent.tsv: cannot open: No such file or directory");
}
END_TEST

/* Without a header, rows keep their own widths and sd_tsv_column finds
 * nothing; blank lines, comments (indented too) and CRs are skipped or
 * stripped; tabs delimit empty fields; free leaves the table empty. */
START_TEST(headerless_rows_keep_their_widths)
{
    const char *path = write_temp("a\tb\tc\n\n   # an indented comment\n  d  \r\n\te\t\n");
    sd_tsv t;
    ck_assert_int_eq(sd_tsv_load(path, 0, 10, &t, NULL), SD_OK);
    unlink(path);
    ck_assert_ptr_null(t.column);
    ck_assert_uint_eq(t.ncolumns, 0);
    ck_assert_uint_eq(t.nrows, 3);
    ck_assert_uint_eq(t.row[0].nfields, 3);
    ck_assert_str_eq(t.row[0].field[2], "c");
    ck_assert_uint_eq(t.row[0].line, 1);
    ck_assert_uint_eq(t.row[1].nfields, 1);
    ck_assert_str_eq(t.row[1].field[0], "d");
    ck_assert_uint_eq(t.row[1].line, 4);
    ck_assert_uint_eq(t.row[2].nfields, 3); /* "\te\t": an empty field each side */
    ck_assert_str_eq(t.row[2].field[0], "");
    ck_assert_str_eq(t.row[2].field[1], "e");
    ck_assert_str_eq(t.row[2].field[2], "");
    ck_assert_uint_eq(t.row[2].line, 5);
    ck_assert_uint_eq(sd_tsv_column(&t, "a"), (size_t)-1); /* always, without a header */
    sd_tsv_free(&t);
    ck_assert_ptr_null(t.row);
    ck_assert_uint_eq(t.nrows, 0);
    sd_tsv_free(&t); /* a second free is harmless */
}
END_TEST

/* With a header: CRLF lines; a row of another width is refused as
 * "FILE:LINE: ..." with *out empty; the header does not count as a row. */
START_TEST(ragged_rows_are_refused_with_file_and_line)
{
    const char *path = write_temp("x \t y\r\n1\t2\r\n");
    sd_tsv t;
    sd_error err;
    ck_assert_int_eq(sd_tsv_load(path, 1, 1, &t, &err), SD_OK);
    ck_assert_str_eq(t.column[1], "y");
    ck_assert_str_eq(t.row[0].field[1], "2");
    ck_assert_uint_eq(sd_tsv_column(&t, "x"), 0);
    sd_tsv_free(&t);
    unlink(path);
    char want[256];
    static const char *const ragged[] = { "# c\nx\ty\n1\t2\n\n3\t4\t5\n", "# c\nx\ty\n1\t2\n\n3\n" };
    static const size_t nf[] = { 3, 1 };
    for (int k = 0; k < 2; k++) {
        path = write_temp(ragged[k]);
        memset(&t, 0xa5, sizeof t);
        ck_assert_int_eq(sd_tsv_load(path, 1, 10, &t, &err), SD_EINVAL);
        snprintf(want, sizeof want, "%s:5: %zu fields; the header has 2", path, nf[k]);
        ck_assert_str_eq(err.msg, want);
        ck_assert_ptr_null(t.column);
        ck_assert_ptr_null(t.row);
        ck_assert_uint_eq(t.ncolumns, 0);
        ck_assert_uint_eq(t.nrows, 0);
        unlink(path);
    }
    path = write_temp("x\n1\n2\n");
    ck_assert_int_eq(sd_tsv_load(path, 1, 2, &t, &err), SD_OK); /* two rows besides the header */
    ck_assert_uint_eq(t.nrows, 2);
    sd_tsv_free(&t);
    ck_assert_int_eq(sd_tsv_load(path, 1, 1, &t, &err), SD_EINVAL);
    snprintf(want, sizeof want, "%s:3: more than 1 rows", path);
    ck_assert_str_eq(err.msg, want);
    unlink(path);
}
END_TEST

Suite *tsv_suite(void)
{
    Suite *s = suite_create("tsv");
    TCase *tc = tcase_create("tsv");
    tcase_add_test(tc, tsv_files);
    tcase_add_test(tc, headerless_rows_keep_their_widths);
    tcase_add_test(tc, ragged_rows_are_refused_with_file_and_line);
    suite_add_tcase(s, tc);
    return s;
}

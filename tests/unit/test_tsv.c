/* test_tsv.c -- tab-separated files with line numbers (tsv.h). */
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

Suite *tsv_suite(void)
{
    Suite *s = suite_create("tsv");
    TCase *tc = tcase_create("tsv");
    tcase_add_test(tc, tsv_files);
    suite_add_tcase(s, tc);
    return s;
}

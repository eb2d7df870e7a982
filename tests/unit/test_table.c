/* test_table.c -- the result type (table.h): columns, typed cells, rows, notes. */
#include <math.h>
#include <string.h>

#include "specdec/table.h"
#include "testutil.h"

START_TEST(nan_is_refused)
{
    static const char *const cols[] = { "a", "b" };
    sd_table *t = sd_table_alloc(2, cols);
    const sd_cell row[] = { sd_real(1.0), sd_real(NAN) };
    sd_error err;
    ck_assert_int_eq(sd_table_add(t, row, &err), SD_EFAIL);
    ck_assert_str_eq(err.msg, "internal error: NaN in column b");
    ck_assert_uint_eq(sd_table_nrows(t), 0);
    ck_assert_uint_eq(sd_table_find(t, "b"), 1);
    ck_assert_uint_eq(sd_table_find(t, "zz"), (size_t)-1);
    sd_table_free(t);
}
END_TEST

Suite *table_suite(void)
{
    Suite *s = suite_create("table");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, nan_is_refused);
    suite_add_tcase(s, tc);
    return s;
}

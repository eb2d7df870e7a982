/* test_table.c -- the result type (table.h): columns, typed cells, rows, notes. */
#include <math.h>
#include <stdio.h>
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

/* The table copies its column names, text cells and notes; cells keep their
 * type and value, infinite reals included, across the growth of the rows. */
START_TEST(a_table_holds_copies)
{
    char first[] = "alpha", text[] = "plain";
    const char *names[] = { first, "gamma", "label" };
    sd_table *t = sd_table_alloc(3, names);
    ck_assert_ptr_nonnull(t);
    first[0] = 'X';
    ck_assert_str_eq(sd_table_name(t, 0), "alpha");
    ck_assert_uint_eq(sd_table_ncols(t), 3);
    ck_assert_uint_eq(sd_table_nrows(t), 0);
    ck_assert_uint_eq(sd_table_nnotes(t), 0);
    const sd_cell row[] = { sd_real(0.8), sd_int(-7), sd_text(text) };
    ck_assert_int_eq(sd_table_add(t, row, NULL), SD_OK);
    text[0] = 'X';
    ck_assert_str_eq(sd_table_cell(t, 0, 2)->v.s, "plain");
    ck_assert_int_eq(sd_table_cell(t, 0, 2)->type, SD_CELL_TEXT);
    ck_assert_int_eq(sd_table_cell(t, 0, 0)->type, SD_CELL_REAL);
    ck_assert_double_eq(sd_table_cell(t, 0, 0)->v.r, 0.8);
    ck_assert_int_eq(sd_table_cell(t, 0, 1)->type, SD_CELL_INT);
    ck_assert_int_eq(sd_table_cell(t, 0, 1)->v.i, -7);
    for (long long i = 1; i < 100; i++) { /* past the first allocation: the rows move, their text stays */
        char label[32];
        snprintf(label, sizeof label, "row %lld", i);
        const sd_cell r[] = { sd_real(i % 2 ? INFINITY : -INFINITY), sd_int(i), sd_text(label) };
        ck_assert_int_eq(sd_table_add(t, r, NULL), SD_OK);
    }
    ck_assert_uint_eq(sd_table_nrows(t), 100);
    ck_assert_str_eq(sd_table_cell(t, 0, 2)->v.s, "plain");
    for (size_t i = 1; i < 100; i++) {
        char label[32];
        snprintf(label, sizeof label, "row %zu", i);
        ck_assert_int_eq(sd_table_cell(t, i, 1)->v.i, (long long)i);
        ck_assert_str_eq(sd_table_cell(t, i, 2)->v.s, label);
        ck_assert(isinf(sd_table_cell(t, i, 0)->v.r) && (sd_table_cell(t, i, 0)->v.r > 0) == (i % 2 == 1));
    }
    ck_assert_uint_eq(sd_table_find(t, "label"), 2);
    ck_assert_uint_eq(sd_table_find(t, "Label"), (size_t)-1);
    ck_assert_int_eq(sd_table_note(t, NULL, "%s = %d", "n", 3), SD_OK);
    char longer[2000];
    memset(longer, 'n', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    ck_assert_int_eq(sd_table_note(t, NULL, "%s", longer), SD_OK);
    ck_assert_uint_eq(sd_table_nnotes(t), 2);
    ck_assert_str_eq(sd_table_note_at(t, 0), "n = 3");
    ck_assert_uint_eq(strlen(sd_table_note_at(t, 1)), 1023); /* truncated to 1023 bytes */
    ck_assert_uint_eq(strspn(sd_table_note_at(t, 1), "n"), 1023);
    sd_table_free(t);
    sd_table_free(NULL); /* allowed */
}
END_TEST

/* A refused row leaves the table as it was, earlier columns included. */
START_TEST(a_refused_row_adds_nothing)
{
    static const char *const cols[] = { "name", "x", "y" };
    sd_table *t = sd_table_alloc(3, cols);
    const sd_cell ok[] = { sd_text("a"), sd_real(1), sd_int(2) };
    const sd_cell bad[] = { sd_text("b"), sd_real(2), sd_real(NAN) };
    ck_assert_int_eq(sd_table_add(t, ok, NULL), SD_OK);
    sd_error err;
    ck_assert_int_eq(sd_table_add(t, bad, &err), SD_EFAIL);
    ck_assert_str_eq(err.msg, "internal error: NaN in column y");
    ck_assert_uint_eq(sd_table_nrows(t), 1);
    ck_assert_str_eq(sd_table_cell(t, 0, 0)->v.s, "a");
    ck_assert_int_eq(sd_table_add(t, ok, NULL), SD_OK);
    ck_assert_uint_eq(sd_table_nrows(t), 2);
    sd_table_free(t);
}
END_TEST

/* A column at once: its kind, and its cells as the accessors give them. */
START_TEST(a_column_in_one_call)
{
    const char *names[] = { "i", "r", "s", "mixed" };
    sd_table *t = sd_table_alloc(4, names);
    sd_error err;
    const sd_cell a[] = { sd_int(3), sd_int(-7), sd_text("x"), sd_int(1) };
    const sd_cell b[] = { sd_int(-9007199254740993LL), sd_real(2.385), sd_text("y"), sd_text("-") };
    ck_assert_int_eq(sd_table_column_type(t, 0), SD_CELL_INT); /* no rows */
    ck_assert_int_eq(sd_table_add(t, a, &err), SD_OK);
    ck_assert_int_eq(sd_table_add(t, b, &err), SD_OK);
    ck_assert_int_eq(sd_table_column_type(t, 0), SD_CELL_INT);
    ck_assert_int_eq(sd_table_column_type(t, 1), SD_CELL_REAL);
    ck_assert_int_eq(sd_table_column_type(t, 2), SD_CELL_TEXT);
    ck_assert_int_eq(sd_table_column_type(t, 3), SD_CELL_TEXT);
    long long iv[2] = { 0, 0 };
    double rv[2] = { 0, 0 }, untouched[2] = { 5, 5 };
    ck_assert(sd_table_column_ints(t, 0, iv) && iv[0] == 3 && iv[1] == -9007199254740993LL);
    ck_assert(!sd_table_column_ints(t, 1, iv));
    ck_assert(sd_table_column_reals(t, 1, rv) && rv[0] == -7.0 && rv[1] == 2.385);
    ck_assert(!sd_table_column_reals(t, 3, untouched) && untouched[0] == 5 && untouched[1] == 5);
    sd_table_free(t);
}
END_TEST

Suite *table_suite(void)
{
    Suite *s = suite_create("table");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, nan_is_refused);
    tcase_add_test(tc, a_table_holds_copies);
    tcase_add_test(tc, a_refused_row_adds_nothing);
    tcase_add_test(tc, a_column_in_one_call);
    suite_add_tcase(s, tc);
    return s;
}

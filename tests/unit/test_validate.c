/* test_validate.c -- the theory held against the engine (validate.h): the
 * quick table passes, with every negative control caught. */
#include <stdlib.h>
#include <string.h>

#include "specdec/table.h"
#include "specdec/validate.h"
#include "testutil.h"

START_TEST(validate_quick_passes)
{
    sd_validate_config cfg = sd_validate_defaults();
    cfg.quick = 1;
    sd_table *t;
    int passed = 0;
    sd_error err;
    ck_assert_msg(sd_validate_run(&cfg, &t, &passed, &err) == SD_OK, "%s", err.msg);
    ck_assert_int_eq(passed, 1);
    size_t verdict = sd_table_find(t, "verdict"), check = sd_table_find(t, "check");
    int controls = 0, rows[26] = { 0 };
    for (size_t i = 0; i < sd_table_nrows(t); i++) {
        controls += strcmp(sd_table_cell(t, i, verdict)->v.s, "caught") == 0;
        unsigned long k = strtoul(sd_table_cell(t, i, check)->v.s, NULL, 10); /* rows start "k. " */
        ck_assert_msg(k >= 1 && k <= 25, "row %zu: %s", i, sd_table_cell(t, i, check)->v.s);
        rows[k]++;
    }
    ck_assert_int_eq(controls, 31); /* the negative controls of checks 1-25 (21 has two, 22 and 23 three) */
    for (int k = 1; k <= 25; k++)
        ck_assert_msg(rows[k] > 0, "no row numbered %d", k);
    size_t nchecks = 0; /* the table's last check covers row 25 */
    while (sd_validate_check_at(nchecks) != NULL)
        nchecks++;
    ck_assert_uint_eq(nchecks, 22);
    ck_assert_uint_eq(sd_validate_check_at(nchecks - 1)->last, 25);
    sd_table_free(t);
}
END_TEST

Suite *validate_suite(void)
{
    Suite *s = suite_create("validate");
    TCase *tc = tcase_create("validate");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, validate_quick_passes);
    suite_add_tcase(s, tc);
    return s;
}

/* test_cmd_validate.c -- `specdec validate` as a library call (cmd_validate.h):
 * a check that fails gives SD_ECHECK with the whole table, and the request's
 * engine hooks reach every engine run. */
#include <string.h>

#include "specdec/cmd_validate.h"
#include "specdec/partial.h"
#include "testutil.h"

/* A copy of the run recorded in the partial arg, with no draft accepted. */
static sd_status replay_none_accepted(void *arg, uint64_t fingerprint, sd_engine_stats *out, sd_error *err)
{
    const sd_partial *recorded = arg;
    sd_partial copy = sd_partial_init(1, 1);
    sd_status st = sd_partial_add_run(&copy, fingerprint, &recorded->runs[0].stats, err);
    if (st == SD_OK) {
        *out = copy.runs[0].stats; /* moved out of the copy */
        copy.runs[0].stats = (sd_engine_stats){ 0 };
        out->accepted = 0;
    }
    sd_partial_free(&copy);
    return st;
}

/* Check 3 (acceptance = beta, 0.55 on the four-token pair) run once through the request's record
 * hook, then replayed with no draft accepted: the check fails, the call says SD_ECHECK and the
 * table is whole, its note saying so; through the command's row too, as a binding runs it. */
START_TEST(a_failed_check_comes_with_its_table)
{
    sd_partial part = sd_partial_init(1, 1);
    const sd_engine_io record = { .record = record_partial, .arg = &part };
    const sd_engine_io replay = { .replay = replay_none_accepted, .arg = &part };
    const double three[] = { 3 };
    sd_cmd_validate_request rq = sd_cmd_validate_defaults();
    rq.quick = 1;
    rq.only = (sd_command_list){ three, 1 };
    rq.io = &record;
    sd_table *t = NULL;
    sd_error err;
    ck_assert_msg(sd_cmd_validate_table(&rq, &t, &err) == SD_OK, "%s", err.msg);
    ck_assert_uint_eq(part.nruns, 1);
    sd_table_free(t);
    rq.io = &replay;
    for (int row = 0; row < 2; row++) {
        char *text = NULL;
        t = NULL;
        sd_status st = row == 0 ? sd_cmd_validate_table(&rq, &t, &err)
                                : sd_command_run(&sd_cmd_validate, &rq, &t, &text, &err);
        ck_assert_int_eq(st, SD_ECHECK);
        ck_assert_ptr_null(text);
        ck_assert_ptr_nonnull(t);
        ck_assert_uint_eq(sd_table_nrows(t), 2);
        ck_assert_str_eq(sd_table_cell(t, 0, sd_table_find(t, "verdict"))->v.s, "FAIL");
        ck_assert_str_eq(sd_table_note_at(t, sd_table_nnotes(t) - 1),
                         "validate: some checks failed or a negative control was missed.");
        sd_table_free(t);
    }
    sd_partial_free(&part);
}
END_TEST

/* Without hooks the same check passes; a number no check covers is the field's error. */
START_TEST(the_check_passes_and_the_request_is_checked)
{
    const double three[] = { 3 }, many[] = { 26 };
    sd_cmd_validate_request rq = sd_cmd_validate_defaults();
    rq.quick = 1;
    rq.only = (sd_command_list){ three, 1 };
    sd_table *t = NULL;
    sd_error err;
    ck_assert_msg(sd_cmd_validate_table(&rq, &t, &err) == SD_OK, "%s", err.msg);
    ck_assert_uint_eq(sd_table_nrows(t), 2);
    sd_table_free(t);
    rq.only = (sd_command_list){ many, 1 };
    t = (sd_table *)&rq;
    ck_assert_int_eq(sd_cmd_validate_table(&rq, &t, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "--only: no check numbered 26; the checks are numbered 1 to 25");
    ck_assert_ptr_null(t);
    rq.only = (sd_command_list){ NULL, 0 };
    rq.threads = 0;
    ck_assert_int_eq(sd_cmd_validate_table(&rq, &t, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "--threads: 0 is outside whole numbers in [1, 256]");
}
END_TEST

Suite *cmd_validate_suite(void)
{
    Suite *s = suite_create("cmd_validate");
    TCase *tc = tcase_create("cmd_validate");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_failed_check_comes_with_its_table);
    tcase_add_test(tc, the_check_passes_and_the_request_is_checked);
    suite_add_tcase(s, tc);
    return s;
}

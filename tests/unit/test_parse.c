/* test_parse.c -- strict numbers, lists and ranges. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/parse.h"
#include "testutil.h"

static const sd_domain ANY = { "--x", -INFINITY, INFINITY, 0 };
static const sd_domain UNIT = { "--alpha", 0.0, 1.0, 0 };
static const sd_domain WHOLE = { "--gamma", 1.0, 1e9, 1 };

START_TEST(numbers_accepted)
{
    static const struct { const char *s; double v; } ok[] = {
        { "0", 0 }, { "1", 1 }, { "-2.5", -2.5 }, { "+.5", 0.5 }, { "3.", 3 },
        { "1e-3", 1e-3 }, { "2.5E+2", 250 }, { "0.02", 0.02 }, { "1e308", 1e308 },
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double x = NAN;
        ck_assert_int_eq(sd_parse_number(ok[i].s, &ANY, &x, NULL), SD_OK);
        ck_assert_double_eq(x, ok[i].v);
    }
}
END_TEST

START_TEST(numbers_rejected)
{
    static const char *const bad[] = { "", " 1", "1 ", "1x", "abc", "nan", "NaN", "inf", "-inf",
                                       "Infinity", "0x10", "1e", "1e+", ".", "-", "1.5.2", "1e999",
                                       "-1e999", "1e-999", "1,5", "--1" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double x = 42.0;
        sd_error err = { "" };
        ck_assert_msg(sd_parse_number(bad[i], &ANY, &x, &err) == SD_EINVAL, "'%s' accepted", bad[i]);
        ck_assert_double_eq(x, 42.0);
        ck_assert_msg(strncmp(err.msg, "--x: ", 5) == 0, "message '%s' does not name the option", err.msg);
    }
    sd_error err;
    ck_assert_int_eq(sd_parse_number("1e999", &ANY, &(double){ 0 }, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "overflows"));
}
END_TEST

START_TEST(domains)
{
    double x;
    sd_error err;
    ck_assert_int_eq(sd_parse_number("1.0000001", &UNIT, &x, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "--alpha: 1.0000001 is outside [0, 1]");
    ck_assert_int_eq(sd_parse_number("-0.1", &UNIT, &x, &err), SD_EINVAL);
    ck_assert_int_eq(sd_parse_number("1", &UNIT, &x, &err), SD_OK);
    ck_assert_int_eq(sd_parse_number("0", &WHOLE, &x, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "--gamma: 0 is outside whole numbers in [1, 1000000000]");
    ck_assert_int_eq(sd_parse_number("2.5", &WHOLE, &x, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "not a whole number"));
    ck_assert_int_eq(sd_parse_number("1000000001", &WHOLE, &x, &err), SD_EINVAL);
    ck_assert_int_eq(sd_parse_number("1e9", &WHOLE, &x, &err), SD_OK);
}
END_TEST

START_TEST(lists_and_ranges)
{
    sd_list l;
    ck_assert_int_eq(sd_parse_list("0.8", &UNIT, &l, NULL), SD_OK);
    ck_assert_uint_eq(l.n, 1);
    sd_parse_list_free(&l);

    ck_assert_int_eq(sd_parse_list("0.1,0.5,0.9", &UNIT, &l, NULL), SD_OK);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_double_eq(l.v[2], 0.9);
    sd_parse_list_free(&l);

    /* 0.5:0.95:0.05 is exactly the ten literals 0.5, 0.55, ..., 0.95 */
    ck_assert_int_eq(sd_parse_list("0.5:0.95:0.05", &UNIT, &l, NULL), SD_OK);
    ck_assert_uint_eq(l.n, 10);
    static const char *const lit[] = { "0.5", "0.55", "0.6", "0.65", "0.7", "0.75", "0.8", "0.85", "0.9", "0.95" };
    for (size_t i = 0; i < 10; i++)
        ck_assert_double_eq(l.v[i], strtod(lit[i], NULL));
    sd_parse_list_free(&l);

    ck_assert_int_eq(sd_parse_list("1:25", &WHOLE, &l, NULL), SD_OK);
    ck_assert_uint_eq(l.n, 25);
    ck_assert_double_eq(l.v[24], 25);
    sd_parse_list_free(&l);

    ck_assert_int_eq(sd_parse_list("1:10:4,20", &WHOLE, &l, NULL), SD_OK); /* 1, 5, 9, 20 */
    ck_assert_uint_eq(l.n, 4);
    ck_assert_double_eq(l.v[2], 9);
    ck_assert_double_eq(l.v[3], 20);
    sd_parse_list_free(&l);

    ck_assert_int_eq(sd_parse_list("0:1:0.1", &UNIT, &l, NULL), SD_OK);
    ck_assert_uint_eq(l.n, 11);
    ck_assert_double_eq(l.v[10], 1.0);
    ck_assert_double_eq(l.v[3], 0.3);
    sd_parse_list_free(&l);

    ck_assert_int_eq(sd_parse_list("3:3", &WHOLE, &l, NULL), SD_OK); /* a one-point range */
    ck_assert_uint_eq(l.n, 1);
    sd_parse_list_free(&l);
}
END_TEST

START_TEST(lists_rejected)
{
    static const struct { const char *s; const char *why; } bad[] = {
        { "", "empty item" },         { "0.1,", "empty item" },     { ",0.1", "empty item" },
        { "0.1,,0.2", "empty item" }, { "0.9:0.1", "descends" },    { "0.1:0.9:0", "step > 0" },
        { "0.1:0.9:-0.1", "step > 0" }, { "0.1:2", "outside" },     { "0.1:0.5:0.1:2", "three parts" },
        { "0.1:", "empty value" },    { ":0.5", "empty value" },    { "0.1:x", "not a number" },
        { "0.5,nan", "not a number" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sd_list l = { NULL, 0 };
        sd_error err = { "" };
        ck_assert_msg(sd_parse_list(bad[i].s, &UNIT, &l, &err) == SD_EINVAL, "'%s' accepted", bad[i].s);
        ck_assert_msg(strstr(err.msg, bad[i].why) != NULL, "'%s': message '%s' lacks '%s'", bad[i].s,
                      err.msg, bad[i].why);
        ck_assert_ptr_null(l.v);
    }
    sd_list l;
    sd_error err;
    ck_assert_int_eq(sd_parse_list("1:10:0.5", &WHOLE, &l, &err), SD_EINVAL);
    ck_assert_int_eq(sd_parse_list("1:1e9", &WHOLE, &l, &err), SD_EINVAL); /* more than SD_LIST_MAX */
    ck_assert_ptr_nonnull(strstr(err.msg, "more than"));
}
END_TEST

/* A domain as messages state it, cut to the buffer. */
START_TEST(domains_described)
{
    char buf[64];
    ck_assert_str_eq(sd_parse_domain_describe(&UNIT, buf, sizeof buf), "[0, 1]");
    ck_assert_str_eq(sd_parse_domain_describe(&WHOLE, buf, sizeof buf), "whole numbers in [1, 1000000000]");
    const sd_domain half = { "--cost", 0, INFINITY, 0 }, neg = { "--x", -2.5, -0.125, 0 };
    ck_assert_str_eq(sd_parse_domain_describe(&half, buf, sizeof buf), "[0, inf)");
    ck_assert_str_eq(sd_parse_domain_describe(&neg, buf, sizeof buf), "[-2.5, -0.125]");
    char small[5];
    ck_assert_ptr_eq(sd_parse_domain_describe(&UNIT, small, sizeof small), small);
    ck_assert_str_eq(small, "[0, "); /* truncated to fit */
}
END_TEST

Suite *parse_suite(void)
{
    Suite *s = suite_create("parse");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, numbers_accepted);
    tcase_add_test(tc, numbers_rejected);
    tcase_add_test(tc, domains);
    tcase_add_test(tc, lists_and_ranges);
    tcase_add_test(tc, lists_rejected);
    tcase_add_test(tc, domains_described);
    suite_add_tcase(s, tc);
    return s;
}

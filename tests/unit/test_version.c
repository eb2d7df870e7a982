/* test_version.c -- which specdec this is, and which GSL it was built with
 * (version.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_version.h>

#include "specdec/version.h"
#include "testutil.h"

/* SPECDEC_VERSION is "MAJOR.MINOR.PATCH" of the three macros, and the
 * library this runner links says the same. */
START_TEST(version_is_the_headers)
{
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", SPECDEC_VERSION_MAJOR, SPECDEC_VERSION_MINOR, SPECDEC_VERSION_PATCH);
    ck_assert_str_eq(SPECDEC_VERSION, want);
    ck_assert_str_eq(sd_version(), SPECDEC_VERSION);
    ck_assert_ptr_eq(sd_version(), sd_version()); /* static */
    ck_assert(SPECDEC_VERSION_MAJOR >= 1);
}
END_TEST

/* The GSL version the library was built with: this build's GSL_VERSION,
 * "MAJOR.MINOR[.PATCH]" with GSL's major number. */
START_TEST(gsl_version_is_the_build_s)
{
    ck_assert_str_eq(sd_version_gsl(), GSL_VERSION);
    char *end;
    long major = strtol(sd_version_gsl(), &end, 10);
    ck_assert_int_eq(major, GSL_MAJOR_VERSION);
    ck_assert_int_eq(*end, '.');
    ck_assert_ptr_eq(sd_version_gsl(), sd_version_gsl());
}
END_TEST

Suite *version_suite(void)
{
    Suite *s = suite_create("version");
    TCase *tc = tcase_create("version");
    tcase_add_test(tc, version_is_the_headers);
    tcase_add_test(tc, gsl_version_is_the_build_s);
    suite_add_tcase(s, tc);
    return s;
}

/* test_status.c -- how the library reports failure (status.h):
 * sd_status_fail writes one line and returns the status it is given. */
#include <stdio.h>
#include <string.h>

#include "specdec/status.h"
#include "testutil.h"

START_TEST(fail_returns_the_status_and_writes_the_message)
{
    static const sd_status all[] = { SD_OK, SD_EINVAL, SD_EIO, SD_ENOMEM, SD_EFAIL, SD_ECHECK };
    ck_assert_int_eq(SD_OK, 0); /* the statuses are distinct, SD_OK is 0 */
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        for (size_t j = i + 1; j < sizeof all / sizeof all[0]; j++)
            ck_assert_int_ne(all[i], all[j]);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        sd_error err;
        memset(err.msg, 'x', sizeof err.msg);
        ck_assert_int_eq(sd_status_fail(&err, all[i], "%s: %d is outside [%g, %g]", "--gamma", 0, 1.0, 1e9), all[i]);
        ck_assert_str_eq(err.msg, "--gamma: 0 is outside [1, 1e+09]"); /* printf-style, no newline */
        ck_assert_int_eq(sd_status_fail(NULL, all[i], "no error to write %d", 1), all[i]); /* NULL err allowed */
    }
    sd_error err;
    ck_assert_int_eq(sd_status_fail(&err, SD_EINVAL, "%s", ""), SD_EINVAL); /* an empty message */
    ck_assert_str_eq(err.msg, "");
}
END_TEST

/* Control bytes of quoted input become \n, \t, \r or \xHH, so a message is
 * one line; printable ASCII and UTF-8 bytes (>= 0x80) stay as they are. */
START_TEST(control_bytes_are_escaped)
{
    sd_error err;
    sd_status_fail(&err, SD_EINVAL, "x.tsv:3: 'a%sb' is not a number", "\n\t\r\x01\x1b\x1f\x7f");
    ck_assert_str_eq(err.msg, "x.tsv:3: 'a\\n\\t\\r\\x01\\x1b\\x1f\\x7fb' is not a number");
    sd_status_fail(&err, SD_EINVAL, "%s", "γ = 0.5, \"q\" \\ ~ {}");
    ck_assert_str_eq(err.msg, "γ = 0.5, \"q\" \\ ~ {}");
    sd_status_fail(&err, SD_EINVAL, "%s", "\n");
    ck_assert_str_eq(err.msg, "\\n");
}
END_TEST

/* A message longer than the buffer is cut and terminated, its beginning
 * kept: at most 511 bytes (status.h).  Escapes count as what they print, and
 * no control byte survives the cut. */
START_TEST(long_messages_are_truncated)
{
    char text[2000];
    memset(text, 'a', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    sd_error err;
    memset(err.msg, 'x', sizeof err.msg);
    ck_assert_int_eq(sd_status_fail(&err, SD_EIO, "%s: %s", "head", text), SD_EIO);
    size_t n = strnlen(err.msg, sizeof err.msg);
    ck_assert_uint_lt(n, sizeof err.msg); /* terminated within the buffer */
    ck_assert_uint_eq(n, 511); /* every byte of the buffer but the terminating NUL */
    ck_assert(strncmp(err.msg, "head: aaaa", 10) == 0);
    ck_assert_uint_eq(strspn(err.msg + 6, "a"), n - 6);
    /* 700 line feeds print as 1400 bytes: the cut keeps whole escapes */
    char feeds[701];
    memset(feeds, '\n', 700);
    feeds[700] = '\0';
    sd_status_fail(&err, SD_EINVAL, "%s", feeds);
    n = strlen(err.msg);
    ck_assert_uint_eq(n, 510); /* 255 whole escapes; a half one would make 511 */
    for (size_t i = 0; i < n; i += 2)
        ck_assert(err.msg[i] == '\\' && err.msg[i + 1] == 'n');
}
END_TEST

Suite *status_suite(void)
{
    Suite *s = suite_create("status");
    TCase *tc = tcase_create("status");
    tcase_add_test(tc, fail_returns_the_status_and_writes_the_message);
    tcase_add_test(tc, control_bytes_are_escaped);
    tcase_add_test(tc, long_messages_are_truncated);
    suite_add_tcase(s, tc);
    return s;
}

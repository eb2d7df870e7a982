/* test_command.c -- every command as a library call (command.h): the program's table, its
 * text outputs, and its one-line errors naming the flag. */
#include <string.h>

#include "specdec/command.h"
#include "specdec/theory.h"
#include "testutil.h"

START_TEST(commands_are_listed)
{
    size_t n = 0;
    int serving = 0, roofline = 0;
    for (const char *c; (c = sd_command_at(n)) != NULL; n++)
        serving |= strcmp(c, "serving") == 0, roofline |= strcmp(c, "roofline") == 0;
    ck_assert_uint_ge(n, 16);
    ck_assert(serving && roofline);
}
END_TEST

/* speedup's table is eq. (10) from theory.h at every row, bit for bit. */
START_TEST(a_command_gives_its_table)
{
    const char *argv[] = { "speedup", "--alpha", "0.8", "--cost", "0.1", "--gamma", "1,2,7" };
    sd_table *t;
    char *text;
    sd_error err;
    ck_assert_int_eq(sd_command_run(NULL, 7, argv, &t, &text, &err), SD_OK);
    ck_assert_ptr_null(text);
    ck_assert_uint_eq(sd_table_nrows(t), 3);
    size_t g = sd_table_find(t, "gamma"), f = sd_table_find(t, "improvement");
    ck_assert(g != (size_t)-1 && f != (size_t)-1);
    for (size_t r = 0; r < 3; r++) {
        const sd_cell *gc = sd_table_cell(t, r, g), *fc = sd_table_cell(t, r, f);
        double gamma = gc->type == SD_CELL_INT ? (double)gc->v.i : gc->v.r;
        ck_assert_int_eq(fc->type, SD_CELL_REAL);
        ck_assert_double_eq(fc->v.r, sd_theory_improvement(0.8, gamma, 0.1));
    }
    sd_table_free(t);
}
END_TEST

/* roofline --export writes vLLM's JSON: text, no table. */
START_TEST(a_command_gives_its_text)
{
    const char *argv[] = { "roofline", "--target", "llama-3.1-8b", "--draft", "llama-3.2-1b", "--hardware",
                           "h100-sxm", "--alpha", "0.8", "--schedule", "--export", "vllm" };
    sd_table *t;
    char *text;
    sd_error err;
    ck_assert_msg(sd_command_run(NULL, 12, argv, &t, &text, &err) == SD_OK, "%s", err.msg);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "num_speculative_tokens"));
    sd_command_free_text(text);
}
END_TEST

/* Errors are the program's, naming the flag; --help, --format and --shard are refused. */
START_TEST(errors_name_the_flag)
{
    sd_table *t;
    char *text;
    sd_error err;
    const char *bad[] = { "speedup", "--alpha", "2", "--cost", "0.1" };
    ck_assert_int_eq(sd_command_run(NULL, 5, bad, &t, &text, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "--alpha: 2 is outside [0, 1]");
    ck_assert(t == NULL && text == NULL);
    const char *unknown[] = { "no-such" };
    ck_assert_int_eq(sd_command_run(NULL, 1, unknown, &t, &text, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "unknown command 'no-such'");
    const char *help[] = { "speedup", "--help" };
    ck_assert_int_eq(sd_command_run(NULL, 2, help, &t, &text, &err), SD_EINVAL);
    const char *fmt[] = { "speedup", "--alpha", "0.5", "--cost", "0.1", "--format", "json" };
    ck_assert_int_eq(sd_command_run(NULL, 7, fmt, &t, &text, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "--format: a library call returns the table itself"));
    const char *missing[] = { "fit", "/no/such/file.log" };
    ck_assert_int_eq(sd_command_run(NULL, 2, missing, &t, &text, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "/no/such/file.log"));
    ck_assert_int_eq(sd_command_run(NULL, 0, unknown, &t, &text, &err), SD_EINVAL);
}
END_TEST

Suite *command_suite(void)
{
    Suite *s = suite_create("command");
    TCase *tc = tcase_create("command");
    tcase_add_test(tc, commands_are_listed);
    tcase_add_test(tc, a_command_gives_its_table);
    tcase_add_test(tc, a_command_gives_its_text);
    tcase_add_test(tc, errors_name_the_flag);
    suite_add_tcase(s, tc);
    return s;
}

/* test_format.c -- the five renderers of a table (format.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/format.h"
#include "specdec/table.h"
#include "testutil.h"

static sd_table *sample_table(void)
{
    static const char *const cols[] = { "name", "gamma", "value" };
    sd_table *t = sd_table_alloc(3, cols);
    ck_assert_ptr_nonnull(t);
    const sd_cell r1[] = { sd_text("plain"), sd_int(11), sd_real(3.8166666666666669) };
    const sd_cell r2[] = { sd_text("a,\"b\""), sd_int(-2), sd_real(INFINITY) };
    const sd_cell r3[] = { sd_text("x|y"), sd_int(0), sd_real(1.25e-7) };
    ck_assert_int_eq(sd_table_add(t, r1, NULL), SD_OK);
    ck_assert_int_eq(sd_table_add(t, r2, NULL), SD_OK);
    ck_assert_int_eq(sd_table_add(t, r3, NULL), SD_OK);
    ck_assert_int_eq(sd_table_note(t, NULL, "a note %d", 7), SD_OK);
    return t;
}

/* Renders into a string (caller frees). */
static char *render(const sd_table *t, sd_format f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(mem);
    ck_assert_int_eq(sd_format_write(t, f, mem, NULL), SD_OK);
    fclose(mem);
    return buf;
}

START_TEST(tsv_and_csv_full_precision)
{
    sd_table *t = sample_table();
    char *tsv = render(t, SD_FORMAT_TSV), *csv = render(t, SD_FORMAT_CSV);
    ck_assert_str_eq(tsv, "name\tgamma\tvalue\nplain\t11\t3.8166666666666669\na,\"b\"\t-2\tinf\n"
                          "x|y\t0\t1.2499999999999999e-07\n");
    ck_assert_str_eq(csv, "name,gamma,value\nplain,11,3.8166666666666669\n\"a,\"\"b\"\"\",-2,inf\n"
                          "x|y,0,1.2499999999999999e-07\n");
    free(tsv);
    free(csv);
    sd_table_free(t);
}
END_TEST

START_TEST(json_nulls_and_escapes)
{
    sd_table *t = sample_table();
    char *json = render(t, SD_FORMAT_JSON);
    ck_assert_str_eq(json, "[\n"
                           "  {\"name\": \"plain\", \"gamma\": 11, \"value\": 3.8166666666666669},\n"
                           "  {\"name\": \"a,\\\"b\\\"\", \"gamma\": -2, \"value\": null},\n"
                           "  {\"name\": \"x|y\", \"gamma\": 0, \"value\": 1.2499999999999999e-07}\n"
                           "]\n");
    free(json);
    sd_table_free(t);
    static const char *const cols[] = { "x" };
    sd_table *empty = sd_table_alloc(1, cols);
    json = render(empty, SD_FORMAT_JSON);
    ck_assert_str_eq(json, "[]\n");
    free(json);
    sd_table_free(empty);
}
END_TEST

START_TEST(text_and_markdown_readable)
{
    sd_table *t = sample_table();
    char *text = render(t, SD_FORMAT_TEXT), *md = render(t, SD_FORMAT_MARKDOWN);
    ck_assert_str_eq(text, "name   gamma     value\n"
                           "plain     11    3.8167\n"
                           "a,\"b\"     -2       inf\n"
                           "x|y        0  1.25e-07\n"
                           "\na note 7\n");
    ck_assert_str_eq(md, "| name | gamma | value |\n|:---|---:|---:|\n| plain | 11 | 3.8167 |\n"
                         "| a,\"b\" | -2 | inf |\n| x\\|y | 0 | 1.25e-07 |\n\na note 7\n");
    free(text);
    free(md);
    sd_table_free(t);
}
END_TEST

START_TEST(readable_rounding)
{
    char buf[64];
    ck_assert_str_eq(sd_format_cell(&(sd_cell){ SD_CELL_REAL, { .r = 11.0 } }, 1, buf, sizeof buf), "11");
    ck_assert_str_eq(sd_format_cell(&(sd_cell){ SD_CELL_REAL, { .r = -0.0 } }, 1, buf, sizeof buf), "0");
    ck_assert_str_eq(sd_format_cell(&(sd_cell){ SD_CELL_REAL, { .r = 123456.7 } }, 1, buf, sizeof buf), "123457");
    ck_assert_str_eq(sd_format_cell(&(sd_cell){ SD_CELL_REAL, { .r = 0.02 } }, 1, buf, sizeof buf), "0.02");
    ck_assert_str_eq(sd_format_cell(&(sd_cell){ SD_CELL_REAL, { .r = -INFINITY } }, 0, buf, sizeof buf), "-inf");
    ck_assert_str_eq(sd_format_cell(&(sd_cell){ SD_CELL_REAL, { .r = 0.1 } }, 0, buf, sizeof buf), "0.10000000000000001");
}
END_TEST

/* Issue 10: text cells were cut at 511 bytes, splitting a UTF-8 character;
 * every format now prints them whole. */
START_TEST(long_text_cells_are_whole)
{
    static const char *const cols[] = { "name" };
    char text[1400] = "";
    for (int i = 0; i < 300; i++)
        strcat(text, "γα"); /* 4 bytes each: 1200 bytes of two-byte characters */
    sd_table *t = sd_table_alloc(1, cols);
    ck_assert_int_eq(sd_table_add(t, &(sd_cell){ SD_CELL_TEXT, { .s = text } }, NULL), SD_OK);
    for (int fmt = SD_FORMAT_TEXT; fmt <= SD_FORMAT_MARKDOWN; fmt++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        ck_assert_int_eq(sd_format_write(t, (sd_format)fmt, out, NULL), SD_OK);
        fclose(out);
        ck_assert_msg(strstr(buf, text) != NULL, "format %d cut the cell", fmt);
        free(buf);
    }
    sd_table_free(t);
}
END_TEST

START_TEST(format_names)
{
    sd_format f;
    sd_error err;
    ck_assert_int_eq(sd_format_parse("markdown", &f, NULL), SD_OK);
    ck_assert_int_eq(f, SD_FORMAT_MARKDOWN);
    ck_assert_int_eq(sd_format_parse("yaml", &f, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "format: unknown format 'yaml'; expected one of text, tsv, csv, json, markdown");
}
END_TEST

/* The names for help texts, each of which parses back. */
START_TEST(names_for_help)
{
    ck_assert_str_eq(sd_format_names(), "text, tsv, csv, json, markdown");
    static const char *const names[] = { "text", "tsv", "csv", "json", "markdown" };
    for (int i = 0; i < 5; i++) {
        sd_format f = (sd_format)99; /* none of them */
        ck_assert_int_eq(sd_format_parse(names[i], &f, NULL), SD_OK);
        ck_assert_int_eq(f, SD_FORMAT_TEXT + i);
    }
    sd_format f = SD_FORMAT_CSV;
    ck_assert_int_eq(sd_format_parse("TSV", &f, NULL), SD_EINVAL); /* case matters; *out untouched */
    ck_assert_int_eq(f, SD_FORMAT_CSV);
}
END_TEST

Suite *format_suite(void)
{
    Suite *s = suite_create("format");
    TCase *tc = tcase_create("format");
    tcase_add_test(tc, tsv_and_csv_full_precision);
    tcase_add_test(tc, json_nulls_and_escapes);
    tcase_add_test(tc, text_and_markdown_readable);
    tcase_add_test(tc, readable_rounding);
    tcase_add_test(tc, format_names);
    tcase_add_test(tc, long_text_cells_are_whole);
    tcase_add_test(tc, names_for_help);
    suite_add_tcase(s, tc);
    return s;
}

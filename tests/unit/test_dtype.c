/* test_dtype.c -- the number types weights, caches and activations are
 * served in (dtype.h): names, sizes, parsing. */
#include <stdio.h>
#include <string.h>

#include "specdec/dtype.h"
#include "testutil.h"

static const struct {
    sd_dtype t;
    const char *name;
    double bytes;
} DTYPES[] = { { SD_FP4, "fp4", 0.5 }, { SD_FP8, "fp8", 1 },   { SD_INT8, "int8", 1 },
               { SD_BF16, "bf16", 2 }, { SD_FP16, "fp16", 2 }, { SD_FP32, "fp32", 4 } };

START_TEST(names_and_sizes)
{
    ck_assert_int_eq(SD_NDTYPES, 6);
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++) {
        ck_assert_str_eq(sd_dtype_name(DTYPES[i].t), DTYPES[i].name);
        ck_assert_double_eq(sd_dtype_bytes(DTYPES[i].t), DTYPES[i].bytes);
    }
    ck_assert_ptr_null(sd_dtype_name(SD_NDTYPES)); /* outside the enum: NULL and 0 */
    ck_assert_double_eq(sd_dtype_bytes(SD_NDTYPES), 0.0);
    ck_assert_ptr_null(sd_dtype_name((sd_dtype)100));
}
END_TEST

/* Every name parses back to its type; any other name (case matters) is
 * refused naming the caller's parameter and listing the names, with *out
 * untouched. */
START_TEST(parse_round_trip_and_refusal)
{
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++) {
        sd_dtype out = DTYPES[(i + 1) % 6].t;
        ck_assert_int_eq(sd_dtype_parse("weight_dtype", sd_dtype_name(DTYPES[i].t), &out, NULL), SD_OK);
        ck_assert_int_eq(out, DTYPES[i].t);
    }
    static const char *const bad[] = { "fp9", "FP8", "bf16 ", "", "float32" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sd_dtype out = SD_INT8;
        sd_error err;
        ck_assert_int_eq(sd_dtype_parse("kv_dtype", bad[i], &out, &err), SD_EINVAL);
        ck_assert_int_eq(out, SD_INT8);
        char want[160];
        snprintf(want, sizeof want, "kv_dtype: '%s' is not a number type; known: fp4, fp8, int8, bf16, fp16, fp32",
                 bad[i]);
        ck_assert_str_eq(err.msg, want);
    }
}
END_TEST

Suite *dtype_suite(void)
{
    Suite *s = suite_create("dtype");
    TCase *tc = tcase_create("dtype");
    tcase_add_test(tc, names_and_sizes);
    tcase_add_test(tc, parse_round_trip_and_refusal);
    suite_add_tcase(s, tc);
    return s;
}

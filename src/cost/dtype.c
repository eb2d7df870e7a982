/* dtype.c -- number types: names and sizes (see dtype.h). */
#include "specdec/dtype.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    double bytes;
} DTYPES[SD_NDTYPES] = {
    [SD_FP4] = { .name = "fp4", .bytes = 0.5 },   [SD_FP8] = { .name = "fp8", .bytes = 1 },
    [SD_INT8] = { .name = "int8", .bytes = 1 },   [SD_BF16] = { .name = "bf16", .bytes = 2 },
    [SD_FP16] = { .name = "fp16", .bytes = 2 },   [SD_FP32] = { .name = "fp32", .bytes = 4 },
};

const char *sd_dtype_name(sd_dtype t)
{
    return (unsigned)t < SD_NDTYPES ? DTYPES[t].name : NULL;
}

double sd_dtype_bytes(sd_dtype t)
{
    return (unsigned)t < SD_NDTYPES ? DTYPES[t].bytes : 0.0;
}

sd_status sd_dtype_parse(const char *param, const char *name, sd_dtype *out, sd_error *err)
{
    char known[128] = "";
    for (int t = 0; t < SD_NDTYPES; t++) {
        if (name != NULL && strcmp(name, DTYPES[t].name) == 0) {
            *out = (sd_dtype)t;
            return SD_OK;
        }
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", t ? ", " : "", DTYPES[t].name);
    }
    return sd_status_fail(err, SD_EINVAL, "%s: '%s' is not a number type; known: %s", param, name ? name : "", known);
}

/* dtype.h -- the number types weights, caches and activations are served in. */
#ifndef SPECDEC_DTYPE_H
#define SPECDEC_DTYPE_H

#include "specdec/status.h"

/* Number types.  Sizes in bytes: fp4 0.5, fp8 and int8 1, bf16 and fp16 2, fp32 4. */
typedef enum { SD_FP4, SD_FP8, SD_INT8, SD_BF16, SD_FP16, SD_FP32, SD_NDTYPES } sd_dtype;

/* The type's name ("fp4", "fp8", "int8", "bf16", "fp16", "fp32") and size in
 * bytes; NULL and 0 outside the enum. */
SD_API const char *sd_dtype_name(sd_dtype t);
SD_API double sd_dtype_bytes(sd_dtype t);

/* The type called name into *out.  SD_EINVAL, naming param (the caller's
 * name for the value) and listing the names, when name is none of them;
 * *out is then untouched. */
SD_API sd_status sd_dtype_parse(const char *param, const char *name, sd_dtype *out, sd_error *err);

#endif

/* fuzz_npy.c -- sd_npy_parse, sd_npy_load and the sampling transforms
 * (npy.h, sampling.h).
 *
 * Input: byte 0 picks the transform (bit 0: logits or probs; bits 1-2:
 * temperature from TEMPS; bits 3-4: top-k from TOPK; bit 5: top-p 0.9;
 * bit 6: min-p 0.05; bit 7: an invalid top-p of 0, which must be refused);
 * the rest is the .npy file.
 * Properties:
 *   - sd_npy_load (by path) and sd_npy_parse (in memory) agree: the same
 *     status, message and values;
 *   - on failure *out keeps its sentinel (nothing written), the status is
 *     SD_EINVAL, the message is one non-empty line that starts with the
 *     name;
 *   - on success ndim is 1 or 2 (1: one row), rows >= 1, cols in [1,
 *     SD_VOCAB_MAX], rows * cols <= SD_NPY_ITEMS_MAX, no value is NaN or
 *     +inf; sd_npy_free empties it;
 *   - each row (the first 64) through sd_sampling_apply: on success a
 *     distribution (every entry finite in [0, 1], sum within 1e-12 of 1),
 *     in which the first largest input entry keeps a positive probability;
 *     on failure out is untouched and the message is one line naming the
 *     row, or the setting (top_p) when that was invalid.
 */
#include <math.h>

#include "fuzz_common.h"

static const double TEMPS[4] = { 1.0, 0.0, 0.37, 3.5 };
static const size_t TOPK[4] = { 0, 1, 2, 50 };
enum { ROWS_CHECKED = 64 };

static void check_row(const sd_sampling *s, sd_input kind, const double *in, size_t n, int bad_setting)
{
    double *out = malloc(n * sizeof *out);
    if (out == NULL)
        abort();
    for (size_t i = 0; i < n; i++)
        out[i] = -7.0;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_sampling_apply(s, kind, in, n, out, "row", &err);
    if (bad_setting)
        CHECK(st == SD_EINVAL && strncmp(err.msg, "top_p: ", 7) == 0, "top_p 0 accepted or misnamed: %s", err.msg);
    if (st != SD_OK) {
        CHECK(st == SD_EINVAL, "sd_sampling_apply: status %d", (int)st);
        check_message(&err, "sd_sampling_apply");
        CHECK(bad_setting || strncmp(err.msg, "row: ", 5) == 0, "the message does not name the row: %s", err.msg);
        for (size_t i = 0; i < n; i++)
            CHECK(out[i] == -7.0, "sd_sampling_apply failed but wrote out[%zu]", i);
        free(out);
        return;
    }
    double sum = 0.0;
    size_t top = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK(isfinite(out[i]) && out[i] >= 0.0 && out[i] <= 1.0, "out[%zu] = %.17g", i, out[i]);
        sum += out[i];
        if (in[i] > in[top])
            top = i;
    }
    CHECK(fabs(sum - 1.0) <= 1e-12, "the transformed row sums to %.17g", sum);
    CHECK(out[top] > 0.0, "the most likely token %zu lost its probability", top);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t sel = data[0];
    const char *path = fuzz_file(data + 1, size - 1);
    sd_npy a = { 4242, 4242, 42, (double *)(uintptr_t)0x5eed }, b = a;
    sd_error ea, eb;
    clear_error(&ea);
    clear_error(&eb);
    sd_status sa = sd_npy_parse(data + 1, size - 1, path, &a, &ea), sb = sd_npy_load(path, &b, &eb);
    CHECK(sa == sb, "sd_npy_parse returned %d, sd_npy_load %d", (int)sa, (int)sb);
    if (sa != SD_OK) {
        CHECK(sa == SD_EINVAL, "sd_npy_parse: status %d", (int)sa);
        check_message(&ea, "sd_npy_parse");
        CHECK(strcmp(ea.msg, eb.msg) == 0, "messages differ: [%s] [%s]", ea.msg, eb.msg);
        CHECK(strncmp(ea.msg, path, strlen(path)) == 0, "the message does not name the file: %s", ea.msg);
        CHECK(a.rows == 4242 && a.cols == 4242 && a.ndim == 42 && a.v == (double *)(uintptr_t)0x5eed,
              "sd_npy_parse failed but wrote *out");
        CHECK(b.rows == 4242 && b.v == (double *)(uintptr_t)0x5eed, "sd_npy_load failed but wrote *out");
        return 0;
    }
    CHECK(a.ndim == 1 || a.ndim == 2, "ndim %d", a.ndim);
    CHECK(a.ndim == 2 || a.rows == 1, "a (V,) array with %zu rows", a.rows);
    CHECK(a.rows >= 1 && a.cols >= 1 && a.cols <= SD_VOCAB_MAX && a.rows <= SD_NPY_ITEMS_MAX / a.cols,
          "shape (%zu, %zu)", a.rows, a.cols);
    CHECK(b.rows == a.rows && b.cols == a.cols && b.ndim == a.ndim, "parse and load disagree on the shape");
    for (size_t i = 0; i < a.rows * a.cols; i++) {
        CHECK(!isnan(a.v[i]) && !(isinf(a.v[i]) && a.v[i] > 0), "value %zu is %g", i, a.v[i]);
        CHECK(memcmp(&a.v[i], &b.v[i], sizeof a.v[i]) == 0, "parse and load disagree at %zu", i);
    }
    sd_sampling s = sd_sampling_defaults();
    s.temperature = TEMPS[(sel >> 1) & 3];
    s.top_k = TOPK[(sel >> 3) & 3];
    s.top_p = sel & 0x80 ? 0.0 : sel & 0x20 ? 0.9 : 1.0;
    s.min_p = sel & 0x40 ? 0.05 : 0.0;
    sd_input kind = sel & 1 ? SD_INPUT_PROBS : SD_INPUT_LOGITS;
    for (size_t r = 0; r < a.rows && r < ROWS_CHECKED; r++)
        check_row(&s, kind, a.v + r * a.cols, a.cols, (sel & 0x80) != 0);
    sd_npy_free(&a);
    sd_npy_free(&b);
    CHECK(a.v == NULL && a.rows == 0 && a.cols == 0, "sd_npy_free left data");
    return 0;
}

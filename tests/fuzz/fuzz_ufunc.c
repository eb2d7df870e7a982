/* fuzz_ufunc.c -- the closed forms over arrays (ufunc.h) on any doubles.
 *
 * Input: a row index byte, then up to 64 points of the row's inputs as raw doubles (NaN,
 * infinities, subnormals, anything), the last input shared by every point (stride 0) when
 * the second byte is odd.  Properties:
 *   - sd_ufunc_eval never crashes;
 *   - it fails exactly when some point lies outside a domain or the formula refuses it,
 *     with one non-empty line naming an input of the row or the point;
 *   - when every point lies in every domain and it succeeds, no output is NaN (a closed
 *     form gives a number or an infinity, never NaN, inside its domain).
 */
#include <math.h>

#include "fuzz_common.h"
#include "specdec/ufunc.h"

static int in_domain(const sd_domain *d, double x)
{
    return d->name == NULL || (x >= d->min && x <= d->max && fabs(x) < INFINITY && !(d->whole && floor(x) < x));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t nrows = 0;
    while (sd_ufunc_at(nrows) != NULL)
        nrows++;
    const sd_ufunc *f = sd_ufunc_at(data[0] % nrows);
    int shared = data[1] & 1;
    data += 2, size -= 2;
    size_t per = f->nin * sizeof(double), n = size / per > 64 ? 64 : size / per;
    double in[SD_UFUNC_MAX_IN][64], out[SD_UFUNC_MAX_OUT][64];
    const double *inp[SD_UFUNC_MAX_IN];
    double *outp[SD_UFUNC_MAX_OUT];
    size_t stride[SD_UFUNC_MAX_IN];
    int all_in = 1;
    for (size_t k = 0; k < f->nin; k++) {
        stride[k] = shared && k == f->nin - 1 ? 0 : 1;
        for (size_t i = 0; i < n; i++) {
            memcpy(&in[k][i], data + i * per + k * sizeof(double), sizeof(double));
            if (i == 0 || stride[k])
                all_in &= in_domain(&f->dom[k], in[k][i]);
        }
        inp[k] = in[k];
    }
    for (size_t j = 0; j < f->nout; j++)
        outp[j] = out[j];
    sd_error err;
    clear_error(&err);
    sd_status st = sd_ufunc_eval(f, n, inp, stride, outp, &err);
    if (st != SD_OK) {
        check_message(&err, f->name);
        int named = strstr(err.msg, "(point ") != NULL;
        for (size_t k = 0; k < f->nin; k++)
            named |= strncmp(err.msg, f->in[k], strlen(f->in[k])) == 0;
        CHECK(named, "%s: the message names no input nor point: [%s]", f->name, err.msg);
        /* every point in its domains: only the formula itself may refuse one (a solver), so
         * the message is its own, the point appended */
        CHECK(!all_in || strstr(err.msg, "(point ") != NULL, "%s: [%s]", f->name, err.msg);
        return 0;
    }
    CHECK(all_in, "%s: a point outside a domain was accepted", f->name);
    for (size_t j = 0; j < f->nout; j++)
        for (size_t i = 0; i < n; i++)
            CHECK(!isnan(out[j][i]), "%s: output %s of point %zu is NaN", f->name, f->out[j], i);
    return 0;
}

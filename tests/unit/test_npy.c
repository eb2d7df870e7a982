/* test_npy.c -- .npy input (npy.h).
 *
 * The .npy fixtures are written here, byte by byte, from NumPy's
 * documentation of the format (numpy.lib.format, "NPY format"; NEP 1):
 * "\x93NUMPY", major, minor, the header length (uint16 little-endian in
 * 1.0, uint32 in 2.0 and 3.0), the dict literal padded with spaces to a
 * multiple of 64 bytes and ended by '\n', then the data.  Nothing is taken
 * from specdec's own writer.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "specdec/npy.h"
#include "testutil.h"

/* An .npy image of the given version, header dict and data bytes into
 * buf; returns its length. */
static size_t npy_image(unsigned char *buf, int major, const char *dict, const void *data, size_t nbytes)
{
    size_t lenbytes = major == 1 ? 2 : 4, pre = 8 + lenbytes, dl = strlen(dict);
    size_t pad = (64 - (pre + dl + 1) % 64) % 64, hlen = dl + pad + 1;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major, buf[7] = 0;
    for (size_t k = 0; k < lenbytes; k++)
        buf[8 + k] = (unsigned char)(hlen >> (8 * k));
    memcpy(buf + pre, dict, dl);
    memset(buf + pre + dl, ' ', pad);
    buf[pre + dl + pad] = '\n';
    memcpy(buf + pre + hlen, data, nbytes);
    return pre + hlen + nbytes;
}

/* Little-endian bytes of n values of the given size. */
static void le_put(unsigned char *out, uint64_t v, size_t size)
{
    for (size_t k = 0; k < size; k++)
        out[k] = (unsigned char)(v >> (8 * k));
}

START_TEST(npy_reads_f2_f4_f8_and_versions)
{
    unsigned char buf[512], data[64];
    sd_npy a;
    sd_error err;
    /* <f2, version 1.0, shape (2, 3): 1, -2, 0.5 / 65504, 2^-24, -inf (IEEE binary16 bit patterns) */
    static const uint16_t halves[] = { 0x3C00, 0xC000, 0x3800, 0x7BFF, 0x0001, 0xFC00 };
    for (size_t i = 0; i < 6; i++)
        le_put(data + 2 * i, halves[i], 2);
    size_t n = npy_image(buf, 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", data, 12);
    ck_assert_msg(sd_npy_parse(buf, n, "h.npy", &a, &err) == SD_OK, "%s", err.msg);
    ck_assert_uint_eq(a.rows, 2); ck_assert_uint_eq(a.cols, 3); ck_assert_int_eq(a.ndim, 2);
    ck_assert_double_eq(a.v[0], 1.0); ck_assert_double_eq(a.v[1], -2.0); ck_assert_double_eq(a.v[2], 0.5);
    ck_assert_double_eq(a.v[3], 65504.0); ck_assert_double_eq(a.v[4], ldexp(1.0, -24));
    ck_assert(isinf(a.v[5]) && a.v[5] < 0);
    sd_npy_free(&a);
    ck_assert_ptr_null(a.v);
    /* <f4, version 2.0, shape (4,), keys in another order */
    static const float floats[] = { 0.25f, 0.125f, 0.5f, 0.125f };
    for (size_t i = 0; i < 4; i++) {
        uint32_t u;
        memcpy(&u, &floats[i], 4);
        le_put(data + 4 * i, u, 4);
    }
    n = npy_image(buf, 2, "{'shape': (4,), 'fortran_order': False, 'descr': '<f4'}", data, 16);
    ck_assert_msg(sd_npy_parse(buf, n, "f.npy", &a, &err) == SD_OK, "%s", err.msg);
    ck_assert_uint_eq(a.rows, 1); ck_assert_uint_eq(a.cols, 4); ck_assert_int_eq(a.ndim, 1);
    ck_assert_double_eq(a.v[2], 0.5);
    sd_npy_free(&a);
    /* <f8, version 3.0 (UTF-8 header), shape (1, 2), written to a file and loaded */
    static const double doubles[] = { 2.385, -7.25 };
    for (size_t i = 0; i < 2; i++) {
        uint64_t u;
        memcpy(&u, &doubles[i], 8);
        le_put(data + 8 * i, u, 8);
    }
    n = npy_image(buf, 3, "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (1, 2)}", data, 16);
    char path[64];
    snprintf(path, sizeof path, "/tmp/specdec-test-%ld.npy", (long)getpid());
    FILE *f = fopen(path, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    ck_assert_msg(sd_npy_load(path, &a, &err) == SD_OK, "%s", err.msg);
    ck_assert_double_eq(a.v[0], 2.385); ck_assert_double_eq(a.v[1], -7.25);
    sd_npy_free(&a);
    /* the writer's output reads back (a round trip, not a fixture) */
    const double m[] = { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6 };
    ck_assert_int_eq(sd_npy_save(path, m, 3, 2, &err), SD_OK);
    ck_assert_msg(sd_npy_load(path, &a, &err) == SD_OK, "%s", err.msg);
    ck_assert_uint_eq(a.rows, 3); ck_assert_uint_eq(a.cols, 2);
    ck_assert_mem_eq(a.v, m, sizeof m);
    sd_npy_free(&a);
    unlink(path);
    ck_assert_int_eq(sd_npy_load("/nonexistent.npy", &a, &err), SD_EINVAL);
    ck_assert_msg(strstr(err.msg, "/nonexistent.npy: cannot open") == err.msg, "%s", err.msg);
}
END_TEST

/* Each malformed file is refused with its reason, and *out is untouched. */
START_TEST(npy_rejects_with_reasons)
{
    unsigned char buf[512], data[64] = { 0 };
    static const struct {
        int major;
        const char *dict;
        size_t nbytes;
        const char *reason;
    } bad[] = {
        { 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16, "Fortran order" },
        { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 12, "truncated" },
        { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 20, "bytes after the data" },
        { 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", 16, "dtype '>f4'" },
        { 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", 16, "dtype '<i4'" },
        { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 2), }", 16, "3 dimensions" },
        { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4, "0 dimensions" },
        { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", 0, "is outside" },
        { 2, "{'descr': '<f4', 'fortran_order': False}", 16, "lacks 'shape'" },
        { 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'extra': 1}", 16, "unknown or repeated key" },
        { 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }", 16, "structured" },
    };
    sd_npy a = { 7, 7, 7, NULL };
    sd_error err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = npy_image(buf, bad[i].major, bad[i].dict, data, bad[i].nbytes);
        ck_assert_int_eq(sd_npy_parse(buf, n, "x.npy", &a, &err), SD_EINVAL);
        ck_assert_msg(strstr(err.msg, bad[i].reason) != NULL && strncmp(err.msg, "x.npy: ", 7) == 0,
                      "case %zu: %s", i, err.msg);
        ck_assert_uint_eq(a.rows, 7);
        ck_assert_ptr_null(a.v);
    }
    size_t n = npy_image(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data, 8);
    buf[6] = 4; /* version 4.0 */
    ck_assert_int_eq(sd_npy_parse(buf, n, "x.npy", &a, &err), SD_EINVAL);
    ck_assert_msg(strstr(err.msg, "version 4.0") != NULL, "%s", err.msg);
    buf[6] = 1, buf[0] = 'X';
    ck_assert_int_eq(sd_npy_parse(buf, n, "x.npy", &a, &err), SD_EINVAL);
    ck_assert_msg(strstr(err.msg, "magic") != NULL, "%s", err.msg);
    buf[0] = 0x93;
    ck_assert_int_eq(sd_npy_parse(buf, 30, "x.npy", &a, &err), SD_EINVAL); /* cut inside the header */
    ck_assert_msg(strstr(err.msg, "truncated") != NULL, "%s", err.msg);
    le_put(data, 0x7FC00000u, 4); /* a NaN */
    n = npy_image(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data, 8);
    ck_assert_int_eq(sd_npy_parse(buf, n, "x.npy", &a, &err), SD_EINVAL);
    ck_assert_msg(strstr(err.msg, "row 0, column 0") != NULL, "%s", err.msg);
}
END_TEST

Suite *npy_suite(void)
{
    Suite *s = suite_create("npy");
    TCase *tc = tcase_create("npy");
    tcase_add_test(tc, npy_reads_f2_f4_f8_and_versions);
    tcase_add_test(tc, npy_rejects_with_reasons);
    suite_add_tcase(s, tc);
    return s;
}

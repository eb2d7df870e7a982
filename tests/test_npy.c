/* test_npy.c -- .npy input and the sampling transforms (issue 13).
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

#include "specdec.h"
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

/* ---- transforms, against hand-worked examples ------------------------------------ */

static void apply_ok(const sd_sampling *s, sd_input kind, const double *in, size_t n, const double *want)
{
    double out[8];
    sd_error err;
    ck_assert_msg(sd_sampling_apply(s, kind, in, n, out, "x", &err) == SD_OK, "%s", err.msg);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(fabs(out[i] - want[i]) <= 4 * DBL_EPSILON, "token %zu: %.17g, want %.17g", i, out[i], want[i]);
}

START_TEST(temperature_and_greedy)
{
    sd_sampling s = sd_sampling_defaults();
    const double z[] = { 0.0, log(2.0), log(4.0) };
    apply_ok(&s, SD_INPUT_LOGITS, z, 3, (const double[]){ 1.0 / 7, 2.0 / 7, 4.0 / 7 });
    s.temperature = 0.5; /* z / T = 0, 2 ln 2, 2 ln 4: weights 1, 4, 16 */
    apply_ok(&s, SD_INPUT_LOGITS, z, 3, (const double[]){ 1.0 / 21, 4.0 / 21, 16.0 / 21 });
    s.temperature = 2.0; /* probabilities: p^(1/2), normalised */
    const double p[] = { 0.64, 0.32, 0.04 };
    double r0 = 0.8, r1 = sqrt(0.32), r2 = 0.2, t = r0 + r1 + r2;
    apply_ok(&s, SD_INPUT_PROBS, p, 3, (const double[]){ r0 / t, r1 / t, r2 / t });
    s.temperature = 0.0; /* greedy; ties at the maximum: the lowest token id */
    apply_ok(&s, SD_INPUT_LOGITS, (const double[]){ 1.0, 3.0, 3.0, -INFINITY }, 4, (const double[]){ 0, 1, 0, 0 });
    s.temperature = 1.0, s.top_k = 2, s.top_p = 0.1, s.min_p = 0.9; /* all keep the argmax */
    apply_ok(&s, SD_INPUT_PROBS, p, 3, (const double[]){ 1, 0, 0 });
}
END_TEST

START_TEST(top_k_ties_and_top_p_boundary)
{
    sd_sampling s = sd_sampling_defaults();
    s.top_k = 2;
    apply_ok(&s, SD_INPUT_PROBS, (const double[]){ 0.4, 0.3, 0.2, 0.1 }, 4, (const double[]){ 4.0 / 7, 3.0 / 7, 0, 0 });
    /* a tie at the k-th place keeps every tied token */
    apply_ok(&s, SD_INPUT_PROBS, (const double[]){ 0.2, 0.4, 0.2, 0.2 }, 4, (const double[]){ 0.2, 0.4, 0.2, 0.2 });
    s.top_k = 1;
    apply_ok(&s, SD_INPUT_PROBS, (const double[]){ 0.2, 0.4, 0.2, 0.2 }, 4, (const double[]){ 0, 1, 0, 0 });
    s = sd_sampling_defaults();
    const double d[] = { 0.5, 0.25, 0.125, 0.125 }; /* binary fractions: the sums are exact */
    s.top_p = 0.75; /* 0.5 + 0.25 reaches 0.75 exactly: the prefix stops there */
    apply_ok(&s, SD_INPUT_PROBS, d, 4, (const double[]){ 2.0 / 3, 1.0 / 3, 0, 0 });
    s.top_p = 0.75 + 1e-9; /* one more token needed, and its tie comes along */
    apply_ok(&s, SD_INPUT_PROBS, d, 4, d);
    s.top_p = 0.5;
    apply_ok(&s, SD_INPUT_PROBS, d, 4, (const double[]){ 1, 0, 0, 0 });
    s = sd_sampling_defaults();
    s.min_p = 0.5; /* keeps p >= 0.25: the boundary token stays */
    apply_ok(&s, SD_INPUT_PROBS, d, 4, (const double[]){ 2.0 / 3, 1.0 / 3, 0, 0 });
    /* min-p before top-p (vLLM's order): min-p 0.35 keeps 0.5, 0.2 (5/7, 2/7); then top-p 0.7 keeps
     * 5/7 alone.  Top-p first would keep 0.5 + 0.2 = 0.7 and give 5/7, 2/7. */
    s.min_p = 0.35, s.top_p = 0.7;
    apply_ok(&s, SD_INPUT_PROBS, (const double[]){ 0.5, 0.2, 0.15, 0.15 }, 4, (const double[]){ 1, 0, 0, 0 });
}
END_TEST

START_TEST(transform_errors_name_the_field)
{
    sd_sampling s = sd_sampling_defaults();
    double out[3] = { 9, 9, 9 };
    sd_error err;
    const double p[] = { 0.5, 0.5, 0.0 };
    static const struct {
        double t, tp, mp;
        const char *prefix;
    } bad[] = { { -1, 1, 0, "temperature: " }, { 1e4, 1, 0, "temperature: " }, { NAN, 1, 0, "temperature: " },
                { 1, 0, 0, "top_p: " },         { 1, 1.5, 0, "top_p: " },      { 1, 1, -0.1, "min_p: " } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s.temperature = bad[i].t, s.top_p = bad[i].tp, s.min_p = bad[i].mp;
        ck_assert_int_eq(sd_sampling_apply(&s, SD_INPUT_PROBS, p, 3, out, "x", &err), SD_EINVAL);
        ck_assert_msg(strncmp(err.msg, bad[i].prefix, strlen(bad[i].prefix)) == 0, "%s", err.msg);
    }
    s = sd_sampling_defaults();
    ck_assert_int_eq(sd_sampling_apply(&s, SD_INPUT_PROBS, (const double[]){ 0.5, 0.6, 0 }, 3, out, "p row 3", &err),
                     SD_EINVAL);
    ck_assert_msg(strncmp(err.msg, "p row 3: ", 9) == 0, "%s", err.msg);
    ck_assert_int_eq(sd_sampling_apply(&s, SD_INPUT_LOGITS, (const double[]){ 0, NAN, 0 }, 3, out, "q", &err),
                     SD_EINVAL);
    ck_assert_int_eq(sd_sampling_apply(&s, SD_INPUT_LOGITS, (const double[]){ -INFINITY, -INFINITY }, 2, out, "q", &err),
                     SD_EINVAL);
    ck_assert_msg(strstr(err.msg, "every logit is -inf") != NULL, "%s", err.msg);
    ck_assert_double_eq(out[0], 9.0); /* untouched */
}
END_TEST

START_TEST(rows_and_summary)
{
    /* two rows of probabilities; row 0 is the four-token example */
    double pv[] = { 0.5, 0.1, 0.3, 0.1, 0.25, 0.25, 0.25, 0.25 }, qv[] = { 0.2, 0.4, 0.15, 0.25, 0.1, 0.2, 0.3, 0.4 };
    sd_npy p = { 2, 4, 2, pv }, q = { 2, 4, 2, qv };
    double beta[2], dd[2];
    sd_sampling s = sd_sampling_defaults();
    ck_assert_int_eq(sd_sampling_rows(&(sd_sampling_pair){ &p, &q, SD_INPUT_PROBS, s, s, "p", "q" }, beta, dd, NULL), SD_OK);
    ck_assert_double_eq_tol(beta[0], 0.55, 1e-15);
    ck_assert_double_eq_tol(dd[0], 0.1, 1e-15);
    ck_assert_double_eq_tol(beta[1], 0.1 + 0.2 + 0.25 + 0.25, 1e-15);
    ck_assert_double_eq_tol(dd[1], 0.25, 1e-15);
    /* q ties for its maximum: the tied token p ranks first */
    ck_assert_double_eq(sd_dist_point_acceptance((const double[]){ 0.1, 0.6, 0.3 }, (const double[]){ 0.4, 0.4, 0.2 }, 3),
                        0.6);
    sd_npy q3 = { 1, 4, 2, qv };
    sd_error err;
    ck_assert_int_eq(sd_sampling_rows(&(sd_sampling_pair){ &p, &q3, SD_INPUT_PROBS, s, s, "p", "q" }, beta, dd, &err), SD_EINVAL);
    ck_assert_msg(strncmp(err.msg, "q: shape (1, 4)", 15) == 0, "%s", err.msg);
    sd_summary sm;
    ck_assert_int_eq(sd_sampling_summarise((const double[]){ 4, 1, 3, 2 }, 4, &sm, NULL), SD_OK);
    ck_assert_double_eq(sm.mean, 2.5);
    ck_assert_double_eq_tol(sm.se, sqrt(5.0 / 3.0) / 2.0, 1e-15);
    ck_assert_double_eq_tol(sm.ci_high - sm.mean, 3.182446305284263 * sm.se, 1e-12); /* t(0.975, 3) */
    ck_assert_double_eq(sm.q[0], 1.0); ck_assert_double_eq_tol(sm.q[1], 1.3, 1e-15);
    ck_assert_double_eq(sm.q[3], 2.5); ck_assert_double_eq(sm.q[6], 4.0);
}
END_TEST

/* The alpha-temperature figure from a user's pair: 41 temperatures; at T = 0 both rules
 * accept exactly when the argmaxes agree; at T = 1 the means are sd_sampling_rows'. */
START_TEST(alpha_temperature_figure_from_a_pair)
{
    double pv[] = { 0.0, 1.0, 2.385, 0.5, 3.0, -1.0, 0.2, 0.1, 0.0 };
    double qv[] = { 0.3, 1.0, 1.5, 2.0, 0.0, -2.0, 0.0, 0.0, 0.0 };
    char pp[64], qp[64];
    snprintf(pp, sizeof pp, "/tmp/specdec-test-%ld-p.npy", (long)getpid());
    snprintf(qp, sizeof qp, "/tmp/specdec-test-%ld-q.npy", (long)getpid());
    ck_assert_int_eq(sd_npy_save(pp, pv, 3, 3, NULL), SD_OK);
    ck_assert_int_eq(sd_npy_save(qp, qv, 3, 3, NULL), SD_OK);
    sd_figure_input in = { .threads = 1, .p_npy = pp, .q_npy = qp };
    sd_figure_data d;
    sd_error err;
    ck_assert_msg(sd_figure_compute(sd_figure_find("alpha-temperature"), &in, &d, &err) == SD_OK, "%s", err.msg);
    ck_assert_uint_eq(d.nblocks, 1);
    ck_assert_uint_eq(sd_table_nrows(d.block[0]), 41);
    /* T = 0: row 0's argmaxes agree (2, 2), row 1's do not (1, 0), row 2's do (0, and q's tie: the lowest id) */
    ck_assert_double_eq_tol(sd_table_cell(d.block[0], 0, 1)->v.r, 2.0 / 3, 1e-15);
    ck_assert_double_eq_tol(sd_table_cell(d.block[0], 0, 4)->v.r, 2.0 / 3, 1e-15);
    sd_npy p = { 3, 3, 2, pv }, q = { 3, 3, 2, qv };
    sd_sampling s = sd_sampling_defaults();
    double beta[3], dd[3];
    ck_assert_int_eq(sd_sampling_rows(&(sd_sampling_pair){ &p, &q, SD_INPUT_LOGITS, s, s, "p", "q" }, beta, dd, NULL), SD_OK);
    ck_assert_double_eq_tol(sd_table_cell(d.block[0], 20, 0)->v.r, 1.0, 1e-12);
    ck_assert_double_eq_tol(sd_table_cell(d.block[0], 20, 1)->v.r, (beta[0] + beta[1] + beta[2]) / 3, 1e-12);
    ck_assert_double_eq_tol(sd_table_cell(d.block[0], 20, 4)->v.r, (dd[0] + dd[1] + dd[2]) / 3, 1e-12);
    sd_figure_data_free(&d);
    in.q_npy = NULL;
    ck_assert_int_eq(sd_figure_compute(sd_figure_find("alpha-temperature"), &in, &d, &err), SD_EINVAL);
    unlink(pp), unlink(qp);
}
END_TEST

Suite *npy_suite(void)
{
    Suite *s = suite_create("npy");
    TCase *tc = tcase_create("npy");
    tcase_add_test(tc, npy_reads_f2_f4_f8_and_versions);
    tcase_add_test(tc, npy_rejects_with_reasons);
    tcase_add_test(tc, temperature_and_greedy);
    tcase_add_test(tc, top_k_ties_and_top_p_boundary);
    tcase_add_test(tc, transform_errors_name_the_field);
    tcase_add_test(tc, rows_and_summary);
    tcase_add_test(tc, alpha_temperature_figure_from_a_pair);
    suite_add_tcase(s, tc);
    return s;
}

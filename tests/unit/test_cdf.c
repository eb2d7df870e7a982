/* test_cdf.c -- sampling from weights by inversion of a CDF table behind
 * guide cells (cdf.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_interp.h>
#include <gsl/gsl_rng.h>

#include "specdec/cdf.h"
#include "specdec/gof.h"
#include "specdec/rng.h"
#include "testutil.h"

/* The reference: inversion of U = K / 2^53 over the whole table. */
static size_t invert(const double *c, size_t n, uint64_t k)
{
    double x = (double)k * 0x1p-53 * c[n];
    if (!(x < c[n]))
        x = nextafter(c[n], 0.0);
    return gsl_interp_bsearch(c, x, 0, n);
}

/* The sampler with the 32-bit draws a, b (and more if it asks) equals
 * inversion of the whole table at U = (a 2^21 + b / 2^11) / 2^53, and uses
 * b only when the outcome depends on it: the guide's pure cells, the search
 * between guide entries and the lazy low bits change how a draw is made,
 * never its outcome.  Over skewed, flat and gappy weights, sizes around the
 * guide's, random words and words at every cumulative boundary (the only
 * places where b matters), where b must be read. */
START_TEST(sampler_is_exact_inversion)
{
    gsl_rng *s = gsl_rng_alloc(script_type()), *r = sd_rng_stream(77, 0);
    static const size_t sizes[] = { 1, 2, 7, SD_CDF_GUIDE - 1, SD_CDF_GUIDE, SD_CDF_GUIDE + 1, 5000 };
    size_t lazy = 0, draws = 0, boundary_reads = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int shape = 0; shape < 3; shape++) {
            size_t n = sizes[k];
            double *w = malloc(n * sizeof *w), *c = malloc((n + 1) * sizeof *c);
            c[0] = 0.0;
            for (size_t i = 0; i < n; i++) {
                w[i] = shape == 0 ? pow((double)(i + 1), -1.5) : shape == 1 ? 1.0 : (i % 3 == 1 ? 0.0 : 1.0 + (double)(i % 7));
                c[i + 1] = c[i] + w[i];
            }
            sd_cdf cdf;
            ck_assert_int_eq(sd_cdf_init(&cdf, w, n, NULL), SD_OK);
            for (size_t d = 0; d < 5000 + 3 * n; d++) {
                uint32_t word[2];
                if (d < 5000) { /* random words; a = 0 among them */
                    word[0] = d == 7 ? 0u : (uint32_t)gsl_rng_get(r);
                    word[1] = d == 7 ? 2048u : (uint32_t)gsl_rng_get(r);
                } else { /* U just below, at and above the boundary c[i] / c[n] */
                    size_t i = (d - 5000) / 3 + 1 > n - 1 ? n - 1 : (d - 5000) / 3 + 1;
                    uint64_t kb = (uint64_t)(c[i] / c[n] * 0x1p53) + (d % 3) - 1;
                    if (kb == 0 || kb >= ((uint64_t)1 << 53))
                        continue;
                    word[0] = (uint32_t)(kb >> 21);
                    word[1] = (uint32_t)(kb & 0x1fffff) << 11;
                }
                uint64_t key = (uint64_t)word[0] << 21 | word[1] >> 11;
                script_load(s, word, 2);
                size_t got = sd_cdf_sample(&cdf, s), used = script_used(s);
                ck_assert_uint_eq(got, invert(c, n, key));
                ck_assert(w[got] > 0.0);
                ck_assert_uint_le(used, 2);
                /* b unread: the whole interval of U with top bits a gives this outcome */
                if (used == 1 && word[0] != 0)
                    ck_assert_uint_eq(got, invert(c, n, (uint64_t)word[0] << 21 | 0x1fffff));
                if (used == 2 && invert(c, n, (uint64_t)word[0] << 21) != invert(c, n, (uint64_t)word[0] << 21 | 0x1fffff))
                    boundary_reads++;
                lazy += d < 5000 && d != 7 && used == 1, draws += d < 5000 && d != 7;
            }
            sd_cdf_free(&cdf);
            free(w);
            free(c);
        }
    /* a random draw (a != 0) takes two words with probability about n 2^-32; boundaries were read */
    ck_assert_msg(lazy >= draws - 5, "%zu of %zu draws took one word", lazy, draws);
    ck_assert_uint_gt(boundary_reads, 1000);
    gsl_rng_free(s);
    gsl_rng_free(r);
}
END_TEST

START_TEST(cdf_never_draws_zero_weight)
{
    const double w[] = { 0.0, 0.25, 0.0, 0.0, 0.5, 0.25, 0.0 };
    sd_cdf c;
    ck_assert_int_eq(sd_cdf_init(&c, w, 7, NULL), SD_OK);
    gsl_rng *r = sd_rng_stream(3, 0);
    uint64_t counts[7] = { 0 };
    enum { DRAWS = 400000 };
    for (int i = 0; i < DRAWS; i++)
        counts[sd_cdf_sample(&c, r)]++;
    ck_assert_uint_eq(counts[0] + counts[2] + counts[3] + counts[6], 0);
    double stat = 0, dof = 0;
    sd_gof_chisq(counts, w, 7, &stat, &dof);
    ck_assert_double_eq(dof, 2);
    ck_assert_msg(gsl_cdf_chisq_Q(stat, dof) > 1e-7, "chi-square %g", stat);
    /* negative control: the same counts against weights off by 0.01 are caught */
    const double off[] = { 0.0, 0.26, 0.0, 0.0, 0.49, 0.25, 0.0 };
    double cstat = 0, cdof = 0;
    sd_gof_chisq(counts, off, 7, &cstat, &cdof);
    ck_assert_msg(gsl_cdf_chisq_Q(cstat, cdof) < 1e-7, "control not caught: chi-square %g", cstat);
    sd_cdf_free(&c);
    gsl_rng_free(r);

    const double one[] = { 1.0 };
    ck_assert_int_eq(sd_cdf_init(&c, one, 1, NULL), SD_OK);
    r = sd_rng_stream(3, 1);
    for (int i = 0; i < 1000; i++)
        ck_assert_uint_eq(sd_cdf_sample(&c, r), 0);
    sd_cdf_free(&c);
    gsl_rng_free(r);

    const double bad1[] = { 0.5, NAN }, bad2[] = { 0.5, -0.1 }, bad3[] = { 0.5, INFINITY }, zero[] = { 0, 0 };
    ck_assert_int_eq(sd_cdf_init(&c, bad1, 2, NULL), SD_EINVAL);
    ck_assert_int_eq(sd_cdf_init(&c, bad2, 2, NULL), SD_EINVAL);
    ck_assert_int_eq(sd_cdf_init(&c, bad3, 2, NULL), SD_EINVAL);
    ck_assert_int_eq(sd_cdf_init(&c, zero, 2, NULL), SD_EINVAL);
    ck_assert_int_eq(sd_cdf_init(&c, zero, 0, NULL), SD_EINVAL);
}
END_TEST

/* The table of w = (1, 3) by hand: c = (0, 1, 4), total 4; G = 2 guide cells
 * (the least power of two >= n = 2).  Cell 0 holds U in (0, 1/2): U 4 < 1
 * gives 0, else 1 -- two outcomes, not pure, guide 0.  Cell 1 holds U in
 * [1/2, 1): always 1 -- pure.  Scripted top words then give: 0x3fffffff
 * (U < 1/4) outcome 0, 0x40000000 (U = 1/4) outcome 1, 0xc0000000 outcome 1,
 * each decided by that one word. */
START_TEST(table_by_hand)
{
    const double w[] = { 1, 3 };
    sd_cdf c;
    ck_assert_int_eq(sd_cdf_init(&c, w, 2, NULL), SD_OK);
    ck_assert_uint_eq(c.n, 2);
    ck_assert_double_eq(c.c[0], 0);
    ck_assert_double_eq(c.c[1], 1);
    ck_assert_double_eq(c.c[2], 4);
    ck_assert_double_eq(c.total, 4);
    ck_assert_double_eq(c.below_total, nextafter(4.0, 0.0));
    ck_assert_uint_eq(c.bits, 1);
    ck_assert_uint_eq(c.guide[0], 0);
    ck_assert_uint_eq(c.guide[1], 1u | SD_CDF_PURE);
    gsl_rng *s = gsl_rng_alloc(script_type());
    static const uint32_t top[] = { 0x3fffffffu, 0x40000000u, 0xc0000000u };
    static const size_t want[] = { 0, 1, 1 };
    for (int k = 0; k < 3; k++) {
        script_load(s, (const uint32_t[]){ top[k], 0u }, 2);
        ck_assert_uint_eq(sd_cdf_sample(&c, s), want[k]);
        ck_assert_uint_eq(script_used(s), 1);
    }
    gsl_rng_free(s);
    sd_cdf_free(&c);
    ck_assert_ptr_null(c.c);
    ck_assert_ptr_null(c.guide);
    sd_cdf_free(&c); /* a second free is harmless */
    /* G = 2^bits: the least power of two >= min(n, SD_CDF_GUIDE) */
    static const size_t n[] = { 1, 3, 5, 8, 9, 1023, 1024, 1025, 5000 };
    static const unsigned bits[] = { 0, 2, 3, 3, 4, 10, 10, 10, 10 };
    double *ones = malloc(5000 * sizeof *ones);
    for (size_t i = 0; i < 5000; i++)
        ones[i] = 1.0;
    for (int k = 0; k < 9; k++) {
        ck_assert_int_eq(sd_cdf_init(&c, ones, n[k], NULL), SD_OK);
        ck_assert_uint_eq(c.bits, bits[k]);
        ck_assert_double_eq(c.total, (double)n[k]);
        sd_cdf_free(&c);
    }
    free(ones);
}
END_TEST

/* A refused table is empty (n 0, c NULL), and the message names what is wrong. */
START_TEST(refused_weights_leave_it_empty)
{
    sd_cdf c;
    sd_error err;
    const double neg[] = { 0.5, -0.1 }, zero[] = { 0, 0 }, huge[] = { 1e308, 1e308 };
    memset(&c, 0xa5, sizeof c);
    ck_assert_int_eq(sd_cdf_init(&c, neg, 2, &err), SD_EINVAL);
    ck_assert_uint_eq(c.n, 0);
    ck_assert_ptr_null(c.c);
    ck_assert_str_eq(err.msg, "w: weight 1 is -0.1; weights must be finite and >= 0");
    memset(&c, 0xa5, sizeof c);
    ck_assert_int_eq(sd_cdf_init(&c, zero, 2, &err), SD_EINVAL);
    ck_assert_ptr_null(c.c);
    ck_assert_ptr_nonnull(strstr(err.msg, "sum to 0"));
    ck_assert_int_eq(sd_cdf_init(&c, huge, 2, &err), SD_EINVAL); /* a total that overflows */
    ck_assert_ptr_nonnull(strstr(err.msg, "sum to inf"));
    ck_assert_int_eq(sd_cdf_init(&c, neg, 0, &err), SD_EINVAL);
    ck_assert_uint_eq(c.n, 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "n: "));
}
END_TEST

Suite *cdf_suite(void)
{
    Suite *s = suite_create("cdf");
    TCase *tc = tcase_create("cdf");
    tcase_set_timeout(tc, 60); /* the exactness test makes ~10^5 scripted draws: seconds under ASan on a busy machine */
    tcase_add_test(tc, cdf_never_draws_zero_weight);
    tcase_add_test(tc, sampler_is_exact_inversion);
    tcase_add_test(tc, table_by_hand);
    tcase_add_test(tc, refused_weights_leave_it_empty);
    suite_add_tcase(s, tc);
    return s;
}

/* test_rng.c -- reproducible random streams keyed by (seed, stream), and
 * the lazy 53-bit uniforms behind the samplers (rng.h, rng_impl.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <gsl/gsl_rng.h>

#include "random/rng_impl.h"
#include "specdec/rng.h"
#include "testutil.h"

START_TEST(rng_has_53_bits_and_keyed_streams)
{
    gsl_rng *a = sd_rng_stream(42, 7), *b = sd_rng_stream(42, 7), *c = sd_rng_stream(42, 8);
    ck_assert_str_eq(gsl_rng_name(a), "mt19937-53");
    int fine = 0, differ = 0;
    for (int i = 0; i < 1000; i++) {
        double x = gsl_rng_uniform(a), y = gsl_rng_uniform(b), z = gsl_rng_uniform(c);
        ck_assert(x >= 0.0 && x < 1.0);
        ck_assert_double_eq(x, y); /* same (seed, stream): same numbers */
        differ += x != z;
        double scaled = ldexp(x, 32);
        fine += scaled != floor(scaled); /* bits below 2^-32 are used */
    }
    ck_assert_int_gt(fine, 990);
    ck_assert_int_gt(differ, 990);
    gsl_rng_free(a), gsl_rng_free(b), gsl_rng_free(c);
    /* streams 0..65535 of one seed get pairwise distinct first outputs (distinct MT seeds) */
    enum { N = 65536 };
    uint64_t *first = malloc(N * sizeof *first);
    gsl_rng *r = gsl_rng_alloc(sd_rng_type());
    for (uint64_t s = 0; s < N; s++) {
        sd_rng_reseed(r, 1, s);
        first[s] = (uint64_t)gsl_rng_get(r) << 32 | gsl_rng_get(r);
    }
    size_t same = 0; /* neighbouring streams (and a sample of others) never coincide */
    for (size_t i = 0; i < N; i++)
        for (size_t j = i + 1; j < i + 64 && j < N; j++)
            same += first[i] == first[j];
    ck_assert_uint_eq(same, 0);
    free(first);
    gsl_rng_free(r);
}
END_TEST

/* The lazy test U s < b (rng_impl.h) decides as the whole U does, for U =
 * (a 2^21 + b' / 2^11) / 2^53 from scripted words; it reads the second word
 * only when U's top 32 bits leave the decision open; a = 0 never stands for
 * U = 0.  Thresholds at random and exactly at interval ends. */
START_TEST(lazy_acceptance_is_exact)
{
    gsl_rng *s = gsl_rng_alloc(script_type()), *r = sd_rng_stream(3, 1);
    size_t second = 0;
    for (int i = 0; i < 200000; i++) {
        double scale = i % 4 == 0 ? 1.0 : gsl_rng_uniform_pos(r), bound = gsl_rng_uniform(r) * scale;
        uint32_t w[2] = { (uint32_t)gsl_rng_get(r), (uint32_t)gsl_rng_get(r) };
        if (i % 3 == 0) /* the threshold inside a's interval: the second word decides */
            w[0] = (uint32_t)(bound / scale * 0x1p32);
        if (i % 1000 == 1)
            w[0] = 0, w[1] |= 2048u; /* a = 0: U is read whole */
        uint64_t k = (uint64_t)w[0] << 21 | w[1] >> 11;
        script_load(s, w, 2);
        int got = sd_rng_u53_scaled_below(s, scale, bound);
        ck_assert_int_eq(got, (double)k * 0x1p-53 * scale < bound);
        if (script_used(s) == 1) /* every U with top bits a decides alike */
            ck_assert_int_eq((double)((uint64_t)w[0] << 21) * 0x1p-53 * scale < bound,
                             (double)((uint64_t)w[0] << 21 | 0x1fffff) * 0x1p-53 * scale < bound);
        second += script_used(s) == 2;
    }
    ck_assert_uint_gt(second, 10000); /* the thresholds placed inside an interval were read */
    script_load(s, (const uint32_t[]){ 0u }, 1); /* b > s: every U passes, nothing is drawn */
    ck_assert_int_eq(sd_rng_u53_scaled_below(s, 0.25, 0.5), 1);
    ck_assert_uint_eq(script_used(s), 0);
    script_load(s, (const uint32_t[]){ 0u, 0u, 0u, 2048u }, 4); /* K = 0 is redrawn: U = 2^-53 */
    ck_assert_int_eq(sd_rng_u53_scaled_below(s, 1.0, 0x1p-52), 1);
    ck_assert_uint_eq(script_used(s), 4);
    gsl_rng_free(s);
    gsl_rng_free(r);
}
END_TEST

/* sd_rng_reseed gives the stream sd_rng_stream makes for the same (seed,
 * stream), and another seed or stream another sequence. */
START_TEST(reseed_is_the_stream)
{
    gsl_rng *a = sd_rng_stream(7, 3), *b = gsl_rng_alloc(sd_rng_type());
    ck_assert_ptr_eq(sd_rng_type(), sd_rng_type()); /* static */
    ck_assert_ptr_eq(b->type, sd_rng_type());
    ck_assert_str_eq(gsl_rng_name(b), "mt19937-53");
    ck_assert_uint_eq(gsl_rng_max(b), 0xffffffffUL);
    uint32_t first[200];
    for (int i = 0; i < 200; i++)
        first[i] = (uint32_t)gsl_rng_get(a);
    sd_rng_reseed(b, 7, 3);
    for (int i = 0; i < 200; i++)
        ck_assert_uint_eq(gsl_rng_get(b), first[i]);
    static const uint64_t other[][2] = { { 7, 4 }, { 8, 3 }, { 3, 7 }, { 7 + ((uint64_t)1 << 32), 3 } };
    for (int k = 0; k < 4; k++) {
        sd_rng_reseed(b, other[k][0], other[k][1]);
        int same = 0;
        for (int i = 0; i < 200; i++)
            same += gsl_rng_get(b) == first[i];
        ck_assert_msg(same < 5, "(%llu, %llu): %d of 200 words equal", (unsigned long long)other[k][0],
                      (unsigned long long)other[k][1], same);
    }
    gsl_rng_free(a);
    gsl_rng_free(b);
}
END_TEST

Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("rng");
    tcase_add_test(tc, rng_has_53_bits_and_keyed_streams);
    tcase_add_test(tc, lazy_acceptance_is_exact);
    tcase_add_test(tc, reseed_is_the_stream);
    suite_add_tcase(s, tc);
    return s;
}

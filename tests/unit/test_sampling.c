/* test_sampling.c -- the sampling settings (temperature, top-k, top-p,
 * min-p) against hand-worked examples, the rows of a matrix pair under
 * them, and the summary of a sample (sampling.h). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "specdec/npy.h"
#include "specdec/sampling.h"
#include "testutil.h"

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
    s = sd_sampling_defaults(); /* a temperature so small that 1 / T overflows: the greedy point mass */
    s.temperature = 1e-310;
    apply_ok(&s, SD_INPUT_LOGITS, (const double[]){ 1.0, 3.0, 2.0 }, 3, (const double[]){ 0, 1, 0 });
}
END_TEST

/* A float32 view gives what the same numbers as doubles give, bit for bit (the widening is
 * exact), and a view with neither or both pointers of a side is refused. */
START_TEST(float_view_equals_double)
{
    enum { R = 3, V = 50 };
    float pf[R * V], qf[R * V];
    double pd[R * V], qd[R * V], a[R], b[R];
    for (int i = 0; i < R * V; i++) {
        pf[i] = (float)sin(i * 0.37) * 4, qf[i] = (float)cos(i * 0.11) * 3;
        pd[i] = pf[i], qd[i] = qf[i];
    }
    sd_sampling_view v = { .p32 = pf, .q32 = qf, .rows = R, .cols = V, .kind = SD_INPUT_LOGITS,
                           .target = sd_sampling_defaults(), .draft = sd_sampling_defaults(), .p_name = "p",
                           .q_name = "q" };
    v.target.temperature = 0.7, v.target.top_p = 0.9, v.draft.top_k = 10;
    const sd_dist_acceptance_fn acc[] = { sd_dist_overlap };
    sd_error err;
    ck_assert_int_eq(sd_sampling_view_acceptances(&v, 1, acc, a, &err), SD_OK);
    sd_sampling_view w = v;
    w.p32 = NULL, w.q32 = NULL, w.p64 = pd, w.q64 = qd;
    ck_assert_int_eq(sd_sampling_view_acceptances(&w, 1, acc, b, &err), SD_OK);
    for (int i = 0; i < R; i++)
        ck_assert_msg(memcmp(&a[i], &b[i], sizeof a[i]) == 0 && a[i] >= 0 && a[i] <= 1, "row %d: %.17g %.17g", i, a[i], b[i]);
    w.p32 = pf; /* both pointers of p */
    ck_assert_int_eq(sd_sampling_view_acceptances(&w, 1, acc, b, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "doubles or as floats"));
    pf[V + 4] = NAN; /* row 1 names itself */
    ck_assert_int_eq(sd_sampling_view_acceptances(&v, 1, acc, a, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "p row 1: logit nan of token 4 is not finite or -inf");
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
    /* the same rows by a list of acceptances, rule-major: sum p q of row 0 is 0.21, of row 1 0.25 */
    const sd_dist_acceptance_fn fns[3] = { sd_dist_match_acceptance, sd_dist_overlap, sd_dist_point_acceptance };
    double acc[6];
    ck_assert_int_eq(sd_sampling_acceptances(&(sd_sampling_pair){ &p, &q, SD_INPUT_PROBS, s, s, "p", "q" }, 3, fns,
                                             acc, NULL), SD_OK);
    ck_assert_double_eq_tol(acc[0], 0.21, 1e-15);
    ck_assert_double_eq_tol(acc[1], 0.25, 1e-15);
    ck_assert_double_eq(acc[2], beta[0]);
    ck_assert_double_eq(acc[3], beta[1]);
    ck_assert_double_eq(acc[4], dd[0]);
    ck_assert_double_eq(acc[5], dd[1]);
    /* per-rank acceptance of tree children, rank-major: row 0 top-k (q ranks B, D, A): .1, .1, .5;
     * row 1 (q ranks D, C, B): .25 each; sampled row 0: .55, then .45 x .35 */
    double rk[6];
    ck_assert_int_eq(sd_sampling_rank_acceptances(&(sd_sampling_pair){ &p, &q, SD_INPUT_PROBS, s, s, "p", "q" }, 3, 0,
                                                  rk, NULL), SD_OK);
    const double want[6] = { 0.1, 0.25, 0.1, 0.25, 0.5, 0.25 }; /* the rows renormalised: to rounding */
    for (int i = 0; i < 6; i++)
        ck_assert_double_eq_tol(rk[i], want[i], 1e-15);
    ck_assert_int_eq(sd_sampling_rank_acceptances(&(sd_sampling_pair){ &p, &q, SD_INPUT_PROBS, s, s, "p", "q" }, 2, 1,
                                                  rk, NULL), SD_OK);
    ck_assert_double_eq_tol(rk[0], 0.55, 1e-15);
    ck_assert_double_eq_tol(rk[1], beta[1], 1e-15);
    ck_assert_double_eq_tol(rk[2], 0.1575, 1e-15);
    sd_npy q3 = { 1, 4, 2, qv };
    sd_error err;
    ck_assert_int_eq(sd_sampling_acceptances(&(sd_sampling_pair){ &p, &q3, SD_INPUT_PROBS, s, s, "p", "q" }, 3, fns,
                                             acc, &err), SD_EINVAL);
    ck_assert_msg(strncmp(err.msg, "q: shape (1, 4)", 15) == 0, "%s", err.msg);
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

/* The defaults leave a distribution as given; the input names. */
START_TEST(defaults_and_names)
{
    sd_sampling s = sd_sampling_defaults();
    ck_assert(s.temperature == 1.0 && s.top_k == 0 && s.top_p == 1.0 && s.min_p == 0.0);
    const double p[] = { 0.1, 0.6, 0.3 };
    apply_ok(&s, SD_INPUT_PROBS, p, 3, p);
    ck_assert_str_eq(sd_sampling_input_names()[SD_INPUT_LOGITS], "logits");
    ck_assert_str_eq(sd_sampling_input_names()[SD_INPUT_PROBS], "probs");
    ck_assert_ptr_null(sd_sampling_input_names()[2]);
}
END_TEST

Suite *sampling_suite(void)
{
    Suite *s = suite_create("sampling");
    TCase *tc = tcase_create("sampling");
    tcase_add_test(tc, temperature_and_greedy);
    tcase_add_test(tc, top_k_ties_and_top_p_boundary);
    tcase_add_test(tc, transform_errors_name_the_field);
    tcase_add_test(tc, rows_and_summary);
    tcase_add_test(tc, defaults_and_names);
    tcase_add_test(tc, float_view_equals_double);
    suite_add_tcase(s, tc);
    return s;
}

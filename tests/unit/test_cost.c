/* test_cost.c -- the roofline cost model (cost.h): its limits,
 * monotonicity, operators by hand, tensor parallelism, memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "specdec/cost.h"
#include "specdec/presets.h"
#include "specdec/theory.h"
#include "testutil.h"

/* The hand-written presets besides testutil.h's (data/models.tsv cites their config.json files). */
static const sd_model_spec DRAFT = DENSE("d1", 1.23e9, 16, 2048, 32, 8, 64, 8192, 128256);
static const sd_model_spec MOE = { .name = "moe", .params_total = 46.7e9, .params_active = 12.9e9, .layers = 32,
                                   .d_model = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128, .d_ff = 14336,
                                   .vocab = 32000, .experts = 8, .experts_active = 2, .weight = SD_BF16,
                                   .kv = SD_BF16, .act = SD_BF16, .compute = SD_BF16 };

static sd_cost_params pass_params(void)
{
    sd_cost_params cp = sd_cost_defaults();
    cp.granularity = SD_GRANULARITY_PASS;
    return cp;
}

/* The 70B + 1B pair on one H100 at i.i.d. alpha over gammas[0..ng-1]. */
static sd_roofline_request request(const sd_cost_params *cp, double alpha, const double *gammas, size_t ng)
{
    sd_roofline_request rq = sd_cost_roofline_defaults();
    rq.target = &TARGET, rq.draft = &DRAFT, rq.hardware = &H100, rq.params = rq.draft_params = *cp;
    rq.alpha = alpha, rq.gammas = gammas, rq.ngammas = ng;
    return rq;
}

/* The model-free proposer (sd_presets_ngram): its draft passes cost 0 s, it holds no weights and
 * no cache, so the roofline is eq. (10)'s c = 0 limit, E(N) / verify ratio, whose best gamma
 * on a memory-bound batch is the largest listed (E grows, the ratio stays near 1); the
 * negative control: a real 1B draft's c > 0 does not give that. */
START_TEST(ngram_costs_nothing)
{
    sd_cost_params cp = sd_cost_defaults();
    const sd_model_spec *ng = sd_presets_ngram();
    ck_assert_str_eq(ng->name, "ngram");
    sd_cost_op ops[SD_COST_MAX_OPS];
    ck_assert_uint_eq(sd_cost_breakdown(ng, &H100, &cp, 64, 1, 4096, ops), 1);
    ck_assert_double_eq(ops[0].seconds, 0.0);
    ck_assert_double_eq(sd_cost_step_time(ng, &H100, &cp, 64, 5, 4096, NULL), 0.0);
    ck_assert_double_eq(sd_cost_kv_per_token(ng), 0.0);
    static const double gammas[] = { 1, 2, 3, 4, 5, 6 };
    sd_roofline_request rq = request(&cp, 0.8, gammas, 6);
    rq.draft = ng;
    sd_roofline_point r;
    sd_cost_roofline(&rq, 1, 1024, &r);
    ck_assert_double_eq(r.c_effective, 0.0);
    ck_assert_double_eq(r.gamma_opt, 6);
    double t1 = sd_cost_step_time(&TARGET, &H100, &cp, 1, 1, 1024, NULL);
    double ratio = sd_cost_step_time(&TARGET, &H100, &cp, 1, 7, 1024, NULL) / t1;
    ck_assert_rel(r.improvement_opt, sd_theory_expected_tokens(0.8, 6) / ratio, 1e-12);
    rq.draft = &DRAFT; /* the control */
    sd_roofline_point d;
    sd_cost_roofline(&rq, 1, 1024, &d);
    ck_assert(d.c_effective > 0.01 && d.improvement_opt < r.improvement_opt - 0.1);
    /* 13 sequences of 4103 tokens beside 141 GB of 70B weights on two H100s fit without the 1B draft only */
    rq.params.tp = 2;
    ck_assert_int_eq(sd_cost_fits(&rq, 13, 4096, 6), 0);
    rq.draft = ng;
    ck_assert_int_eq(sd_cost_fits(&rq, 13, 4096, 6), 1);
}
END_TEST

/* At batch 1 verification is nearly free and the roofline is eq. (10):
 * within 1e-4 for the pass model.  Operators also move each verified
 * token's activations through memory: per 70B layer the rows in and out of
 * every operator, 16 + 20 + 32 + 4 + 32 + 204 + 336 KB = 644 KB (BF16), so
 * 80 x 644 KB + 256 KB of logits = 51.8 MB a token against 141 GB of
 * weights: 3.7e-4 of a step per extra token.  So eq. (10) holds within
 * 1e-3 for gamma <= 2 and within 4e-4 gamma beyond. */
START_TEST(small_batch_is_eq10)
{
    for (int gran = 0; gran < 2; gran++) {
        sd_cost_params cp = sd_cost_defaults();
        cp.granularity = gran ? SD_GRANULARITY_PASS : SD_GRANULARITY_OPERATOR;
        cp.overhead = 0.0;
        double tol = gran ? 1e-4 : 1e-3;
        double t1 = sd_cost_step_time(&TARGET, &H100, &cp, 1, 1, 1, NULL);
        double c = sd_cost_step_time(&DRAFT, &H100, &cp, 1, 1, 1, NULL) / t1;
        ck_assert(c > 0.01 && c < 0.03); /* about the ratio of the weights read, 1.23/70.6 */
        for (double g = 1; g <= 12; g++) {
            double ratio = sd_cost_step_time(&TARGET, &H100, &cp, 1, g + 1, 1, NULL) / t1;
            double gtol = gran || g <= 2 ? tol : 4e-4 * g;
            ck_assert_msg(ratio - 1.0 < gtol && ratio >= 1.0, "gamma %g: verification costs %g target steps", g, ratio);
            double f = sd_theory_expected_tokens(0.8, g) / (g * c + ratio);
            ck_assert_rel(f, sd_theory_improvement(0.8, g, c), gtol);
        }
        static const double gammas[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
        sd_roofline_point r;
        sd_roofline_request rq = request(&cp, 0.8, gammas, 16);
        sd_cost_roofline(&rq, 1, 1, &r);
        sd_optimum o;
        ck_assert_int_eq(sd_theory_optimal(0.8, r.c_effective, &o, NULL), SD_OK);
        ck_assert_double_eq(r.gamma_opt, o.gamma_opt); /* the roofline optimum is eq. (10)'s */
        ck_assert_rel(r.improvement_opt, o.improvement_opt, gran ? tol : 4e-4 * r.gamma_opt);
        ck_assert_int_eq(r.compute_bound, 0);
    }
}
END_TEST

/* A tree's iteration (sd_cost_tree_time): a chain of G is G draft passes of one token and a
 * target pass of G + 1, the roofline's chain iteration (G c_eff + verify ratio) t1; a tree
 * of two levels of two drafts passes of 1 token (the root) and 2 (the nodes with
 * children), then verifies 7. */
START_TEST(tree_iteration)
{
    sd_cost_params cp = sd_cost_defaults();
    sd_roofline_request rq = request(&cp, 0.8, NULL, 0);
    sd_tree t;
    sd_error err;
    for (double b = 1; b <= 256; b *= 16) {
        ck_assert_int_eq(sd_tree_parse("chain:5", NULL, &t, "t", &err), SD_OK);
        double d, tt = sd_cost_tree_time(&rq, &t, b, 2048, 1.0, &d);
        double td = sd_cost_step_time(&DRAFT, &H100, &cp, b, 1, 2048, NULL);
        ck_assert_rel(d, 5 * td, 1e-14);
        ck_assert_rel(tt, 5 * td + sd_cost_step_time(&TARGET, &H100, &cp, b, 6, 2048, NULL), 1e-14);
        ck_assert_int_eq(sd_tree_parse("kary:2,2", NULL, &t, "t", &err), SD_OK);
        tt = sd_cost_tree_time(&rq, &t, b, 2048, 1.0, &d);
        ck_assert_rel(d, td + sd_cost_step_time(&DRAFT, &H100, &cp, b, 2, 2048, NULL), 1e-14);
        ck_assert_rel(tt, d + sd_cost_step_time(&TARGET, &H100, &cp, b, 7, 2048, NULL), 1e-14);
    }
    /* a draft window caps the draft's context */
    rq.draft_window = 512;
    ck_assert_int_eq(sd_tree_parse("chain:2", NULL, &t, "t", &err), SD_OK);
    double d;
    sd_cost_tree_time(&rq, &t, 8, 8192, 1.0, &d);
    ck_assert_rel(d, 2 * sd_cost_step_time(&DRAFT, &H100, &cp, 8, 1, 512, NULL), 1e-14);
}
END_TEST

START_TEST(large_batch_is_compute_bound)
{
    sd_cost_params cp = pass_params();
    static const double gammas[] = { 1, 2, 3, 4, 6, 8, 12, 16 };
    sd_roofline_point r;
    sd_roofline_request rq = request(&cp, 0.8, gammas, 8);
    sd_cost_roofline(&rq, 65536, 128, &r);
    ck_assert_double_eq(r.gamma_opt, 0.0);
    ck_assert_double_eq(r.improvement_opt, 1.0);
    ck_assert_int_eq(r.compute_bound, 1);
    for (int i = 0; i < 8; i++) { /* every gamma loses: verification is no longer free */
        double ratio = sd_cost_step_time(&TARGET, &H100, &cp, 65536, gammas[i] + 1, 128, NULL) /
                       sd_cost_step_time(&TARGET, &H100, &cp, 65536, 1, 128, NULL);
        ck_assert(sd_theory_expected_tokens(0.8, gammas[i]) / (gammas[i] * r.c_effective + ratio) < 1.0);
    }
}
END_TEST

START_TEST(improvement_falls_with_batch)
{
    for (int gran = 0; gran < 2; gran++) {
    sd_cost_params cp = sd_cost_defaults();
    cp.granularity = gran ? SD_GRANULARITY_PASS : SD_GRANULARITY_OPERATOR;
    static const double gammas[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
    static const double contexts[] = { 128, 4096, 32768 };
    for (int k = 0; k < 3; k++) {
        double last = INFINITY;
        for (double b = 1; b <= 8192; b *= 2) {
            sd_roofline_point r;
            sd_roofline_request rq = request(&cp, 0.75, gammas, 12);
            sd_cost_roofline(&rq, b, contexts[k], &r);
            /* operators: at long contexts both passes become cache reads and
             * the improvement levels off (to within 1e-4) instead of falling */
            ck_assert_msg(r.improvement_opt <= last * (1 + (gran ? 1e-12 : 1e-4)), "context %g batch %g: %g after %g", contexts[k], b,
                          r.improvement_opt, last);
            last = r.improvement_opt;
        }
        if (contexts[k] <= 128) /* short contexts reach plain decoding; at long ones the KV read keeps
                                 * verification memory-bound (GQA attention does 8 FLOPs a byte) */
            ck_assert_double_eq(last, 1.0);
    }
    }
}
END_TEST

START_TEST(experts_make_verification_costlier)
{
    sd_cost_params cp = pass_params();
    cp.overhead = 0.0;
    double t1 = sd_cost_step_time(&MOE, &H100, &cp, 1, 1, 1, NULL);
    double t8 = sd_cost_step_time(&MOE, &H100, &cp, 1, 8, 1, NULL);
    /* one token reads the shared weights and 2 of 8 experts; 8 tokens read 1 - (3/4)^8 = 90% of them */
    double expert = (46.7e9 - (12.9e9 - 0.25 * 46.7e9) / 0.75), shared = 46.7e9 - expert;
    ck_assert_rel(t8 / t1, (shared + expert * (1 - pow(0.75, 8))) / (shared + 0.25 * expert), 1e-4);
    ck_assert(t8 / t1 > 1.5);
    ck_assert_rel(sd_cost_step_time(&TARGET, &H100, &cp, 1, 8, 1, NULL) / sd_cost_step_time(&TARGET, &H100, &cp, 1, 1, 1, NULL),
                  1.0, 1e-4); /* a dense model does not */
}
END_TEST

/* Issue 10: a mixture whose every expert serves every token is a dense model
 * (a 0/0 in the expert share used to give c_effective 13.3 instead of 0.117). */
START_TEST(all_experts_active_is_dense)
{
    sd_model_spec all = MOE;
    all.experts_active = all.experts;
    all.params_active = all.params_total;
    sd_model_spec dense = all; /* the same weights as one MLP 8 experts wide */
    dense.experts = dense.experts_active = 1;
    dense.d_ff = all.d_ff * all.experts;
    for (int gran = 0; gran < 2; gran++) {
        sd_cost_params cp = sd_cost_defaults();
        cp.granularity = gran ? SD_GRANULARITY_PASS : SD_GRANULARITY_OPERATOR;
        for (double n = 1; n <= 16; n *= 2) {
            int cb1, cb2;
            double ta = sd_cost_step_time(&all, &H100, &cp, 4, n, 1024, &cb1);
            double td = sd_cost_step_time(&dense, &H100, &cp, 4, n, 1024, &cb2);
            if (gran) /* the pass model sees parameters only: the same numbers */
                ck_assert_double_eq(ta, td);
            else /* operators: the same weights, plus the router and each token's row sent to 8 experts
                  * instead of 1 (8 x 4096 x 2 bytes in and out): under 1% here */
                ck_assert_msg(ta >= td && ta < td * 1.01, "n %g: %g vs %g", n, ta, td);
            ck_assert_int_eq(cb1, cb2);
        }
        double t = sd_cost_step_time(&all, &H100, &cp, 1, 1, 1024, NULL);
        ck_assert(isfinite(t) && t > 0);
    }
}
END_TEST

START_TEST(memory_fit)
{
    sd_cost_params cp = sd_cost_defaults();
    static const double g1[] = { 1 };
    sd_roofline_request rq = request(&cp, 0.8, g1, 1);
    ck_assert_int_eq(sd_cost_fits(&rq, 1, 1024, 5), 0); /* 141 GB of BF16 weights */
    rq.params.tp = 2;
    ck_assert_int_eq(sd_cost_fits(&rq, 1, 1024, 5), 1);
    ck_assert_int_eq(sd_cost_fits(&rq, 1024, 8192, 5), 0); /* KV caches of 1024 x 8K tokens */
    /* self-speculation holds the weights once; a windowed draft holds W tokens of cache */
    rq.params.tp = 1;
    rq.target = rq.draft = &L8B;
    ck_assert_int_eq(sd_cost_fits(&rq, 1, 1024, 5), 1); /* 16 GB, not 32 */
    double kv = sd_cost_kv_per_token(&L8B); /* 131072 bytes: 2 x 32 x 8 x 128 x 2 */
    ck_assert_double_eq(kv, 131072.0);
    double batch = floor((80e9 - 8.03e9 * 2) / (kv * (32768 + 6))); /* the shared cache, once, just fits */
    ck_assert_int_eq(sd_cost_fits(&rq, batch, 32768, 5), 1);
    ck_assert_int_eq(sd_cost_fits(&rq, batch + 1, 32768, 5), 0);
    rq.draft_window = 512;
    double wbatch = floor((80e9 - 8.03e9 * 2) / (kv * (32768 + 6 + 512))); /* plus the window's own cache */
    ck_assert_int_eq(sd_cost_fits(&rq, wbatch, 32768, 5), 1);
    ck_assert_int_eq(sd_cost_fits(&rq, wbatch + 1, 32768, 5), 0);
}
END_TEST

/* The break-even batch and the schedule agree with point-by-point evaluation. */
START_TEST(breakeven_and_schedule)
{
    sd_cost_params cp = pass_params();
    cp.tp = 2;
    static const double gammas[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    double batches[16];
    for (int i = 0; i < 16; i++)
        batches[i] = ldexp(1.0, i); /* 1 .. 32768 */
    sd_roofline_request rq = request(&cp, 0.8, gammas, 16);
    double g[16];
    for (int i = 0; i < 16; i++) {
        sd_roofline_point r;
        sd_cost_roofline(&rq, batches[i], 1024, &r);
        g[i] = r.gamma_opt;
    }
    /* brute force: the first batch from which every later gamma_opt is 0 */
    int first_off = 16;
    while (first_off > 0 && g[first_off - 1] == 0.0)
        first_off--;
    ck_assert_int_lt(first_off, 16); /* speculation does switch off on this grid */
    ck_assert_int_gt(first_off, 0);
    ck_assert_double_eq(sd_cost_breakeven(&rq, batches, 16, 1024), batches[first_off]);
    ck_assert(isnan(sd_cost_breakeven(&rq, batches, (size_t)first_off, 1024))); /* it still helps at the last */
    sd_schedule_bucket b[16];
    size_t nb = sd_cost_schedule(&rq, batches, 16, 1024, b);
    ck_assert_uint_ge(nb, 2);
    size_t covered = 0;
    for (size_t k = 0; k < nb; k++) { /* buckets tile the batches in order, each with one gamma */
        ck_assert_double_eq(b[k].batch_from, batches[covered]);
        while (covered < 16 && batches[covered] <= b[k].batch_to) {
            ck_assert_double_eq(g[covered], b[k].gamma);
            covered++;
        }
        if (k > 0)
            ck_assert(b[k].gamma != b[k - 1].gamma);
    }
    ck_assert_uint_eq(covered, 16);
    ck_assert_double_eq(b[nb - 1].gamma, 0.0);
}
END_TEST

/* The operator named name in ops[0..n-1]. */
static const sd_cost_op *op_named(const sd_cost_op *ops, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(ops[i].name, name) == 0)
            return &ops[i];
    ck_abort_msg("no operator %s", name);
    return NULL;
}

/* One Llama-3.1-8B layer at B = 1, S = 1024, T = 1, BF16 (2 bytes), one
 * GPU, worked out by hand from config.json (hidden 4096, 32 heads, 8 KV
 * heads, head_dim 128, intermediate 14336):
 *   QKV: the projection is 4096 x (32 + 8 + 8) x 128 = 4096 x 6144 weights
 *        = 25,165,824; one token: 2 x 25,165,824 = 50,331,648 FLOPs;
 *        bytes: 50,331,648 of weights + the input row 4096 x 2 = 8,192
 *        + the output row 6144 x 2 = 12,288  -> 50,352,128
 *   attention: one query of 32 heads x 128 against 1024 cached keys and
 *        itself (1025): QK^T 2 x 32 x 128 x 1025 = 8,396,800 and AV the
 *        same -> 16,793,600 FLOPs; it reads K and V of 1024 tokens and
 *        writes the new one's: 1025 x 2 x 8 x 128 x 2 = 4,198,400 bytes,
 *        plus the query and output rows 2 x 32 x 128 x 2 = 16,384 -> 4,214,784
 *   out_proj: 4096 x 4096 = 16,777,216 weights: 33,554,432 FLOPs; bytes
 *        33,554,432 + 8,192 in + 8,192 out -> 33,570,816
 *   mlp: gate, up, down: 3 x 4096 x 14336 = 176,160,768 weights:
 *        352,321,536 FLOPs; bytes 352,321,536 + the input and output rows
 *        2 x 8,192 + gate and up out, down in 3 x 14336 x 2 = 86,016
 *        -> 352,423,936
 *   norm_act: two RMSNorms (4 FLOPs an element: 32,768) + two residual
 *        adds (8,192) + SwiGLU (4 x 14336 = 57,344) = 98,304 FLOPs; bytes:
 *        the norms' weights 2 x 8,192 = 16,384, the norms' rows in and
 *        out 4 x 8,192 = 32,768, the adds' 2 in + 1 out 6 x 8,192 =
 *        49,152, SwiGLU's 2 in + 1 out 3 x 28,672 = 86,016 -> 184,320 */
START_TEST(layer_by_hand)
{
    sd_cost_params cp = sd_cost_defaults();
    sd_cost_op ops[SD_COST_MAX_OPS];
    size_t n = sd_cost_breakdown(&L8B, &H100, &cp, 1, 1, 1024, ops);
    static const struct {
        const char *name;
        double flops, bytes;
    } want[] = { { "qkv_proj", 50331648, 50352128 },   { "attention", 16793600, 4214784 },
                 { "out_proj", 33554432, 33570816 },   { "mlp", 352321536, 352423936 },
                 { "norm_act", 98304, 184320 } };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const sd_cost_op *o = op_named(ops, n, want[i].name);
        ck_assert_double_eq(o->count, 32);
        ck_assert_double_eq(o->flops, 32 * want[i].flops);
        ck_assert_double_eq(o->bytes, 32 * want[i].bytes);
        /* each is bandwidth-bound at B = 1: bytes / (0.8 x 3.35 TB/s) */
        ck_assert_int_eq(o->compute_bound, 0);
        ck_assert_rel(o->seconds, 32 * want[i].bytes / (0.8 * 3.35e12), 1e-14);
    }
    /* LM head: 128256 x 4096 weights = 525,336,576: 1,050,673,152 FLOPs
     * plus the final norm's 4 x 4096; bytes 1,050,673,152 + the row in
     * (8,192) + the logits out (128256 x 2 = 256,512) */
    const sd_cost_op *head = op_named(ops, n, "lm_head");
    ck_assert_double_eq(head->flops, 1050673152.0 + 16384);
    ck_assert_double_eq(head->bytes, 1050673152.0 + 8192 + 256512);
    /* embedding: one row read (8,192) and written (8,192) */
    ck_assert_double_eq(op_named(ops, n, "embedding")->bytes, 16384);
    /* the pass is the operators plus t0, and nothing else at TP 1 */
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += ops[i].seconds;
    ck_assert_double_eq(sum, sd_cost_step_time(&L8B, &H100, &cp, 1, 1, 1024, NULL));
    ck_assert_double_eq(op_named(ops, n, "overhead")->seconds, 20e-6);
    ck_assert_uint_eq(n, 9); /* no router, no all-reduce; the launch row */
    /* launches: 10 kernels a dense layer and 3 a pass (cost.h's table), 323 for 32 layers, at launch or
     * launch_eager a kernel by the graphs switch */
    ck_assert_double_eq(sd_cost_kernels(&L8B, &cp), 323);
    ck_assert_double_eq(op_named(ops, n, "launch")->count, 323);
    ck_assert_double_eq(op_named(ops, n, "launch")->seconds, 0);
    sd_cost_params lc = cp;
    lc.launch = 2e-6, lc.launch_eager = 5e-6;
    double base = sd_cost_step_time(&L8B, &H100, &cp, 1, 1, 1024, NULL);
    ck_assert_double_eq_tol(sd_cost_step_time(&L8B, &H100, &lc, 1, 1, 1024, NULL) - base, 323 * 2e-6, 1e-12);
    lc.graphs = 0;
    ck_assert_double_eq_tol(sd_cost_step_time(&L8B, &H100, &lc, 1, 1, 1024, NULL) - base, 323 * 5e-6, 1e-12);
    lc.tp = 2; /* two all-reduce kernels a layer more */
    ck_assert_double_eq(sd_cost_kernels(&L8B, &lc), 323 + 64);
}
END_TEST

/* One Mixtral-8x7B layer (hidden 4096, 8 experts of intermediate 14336,
 * top-2) at B = 1 and B = 2, S = 1024, T = 1, by hand:
 *   router: 4096 x 8 weights: 2 x 32,768 = 65,536 FLOPs; bytes 65,536 of
 *           weights + the row in 8,192 + 8 logits 16 -> 73,744
 *   experts: each is 3 x 4096 x 14336 = 176,160,768 weights (352,321,536
 *           bytes).  One token runs 2 of them: 2 x 352,321,536 =
 *           704,643,072 FLOPs, and touches 2 of 8 (1 - (3/4)^1 = 1/4 of
 *           8): 704,643,072 bytes, plus per (token, expert) the rows in
 *           and out and the three wide rows (8,192 + 8,192 + 86,016 =
 *           102,400): 204,800 -> 704,847,872.
 *           Two tokens run 4 (1,409,286,144 FLOPs) and touch
 *           8 (1 - (3/4)^2) = 3.5 experts on average: 1,233,125,376 bytes
 *           + 4 x 102,400 -> 1,233,534,976. */
/* A prompt chunk of Llama-3.1-8B by hand, one layer (d 4096, 32 query
 * heads and 8 KV heads of 128, BF16), P = 512 tokens after C = 0 cached:
 *   qkv_proj: 2 P d (Hq + 2 Hk) hd = 2 x 512 x 4096 x 6144 = 25,769,803,776
 *        FLOPs; bytes: the weights 50,331,648 + rows in 512 x 8,192 and
 *        out 512 x 12,288 (10,485,760) = 60,817,408
 *   attention: causal, 4 Hq hd P (C + (P + 1) / 2) = 4 x 32 x 128 x 512 x
 *        256.5 = 2,151,677,952 FLOPs; the cache written and read, 2 Hk hd
 *        (C + P) x 2 bytes = 2,097,152, and Q and O 2 x 512 x 8,192 =
 *        8,388,608 -> 10,485,760
 *   lm_head: logits for the last token only: 2 d V = 1,050,673,152 plus the
 *        final norm over all 512 rows, 4 x 512 x 4096 = 8,388,608 FLOPs
 * and a mixed pass (a decode batch of 16 at context 1000 beside the chunk)
 * adds the linear operators' rows and attention's terms group by group,
 * and two chunks of 256 cost attention what one of 512 does. */
START_TEST(prefill_by_hand)
{
    sd_cost_params cp = sd_cost_defaults();
    sd_cost_op ops[SD_COST_MAX_OPS], dec[SD_COST_MAX_OPS], mix[SD_COST_MAX_OPS];
    const sd_cost_group chunk = { .sequences = 1, .tokens = 512, .context = 0, .logits = 1 };
    size_t n = sd_cost_breakdown_groups(&L8B, &H100, &cp, &chunk, 1, ops);
    ck_assert_double_eq(op_named(ops, n, "qkv_proj")->flops, 32 * 25769803776.0);
    ck_assert_double_eq(op_named(ops, n, "qkv_proj")->bytes, 32 * 60817408.0);
    ck_assert_double_eq(op_named(ops, n, "attention")->flops, 32 * 2151677952.0);
    ck_assert_double_eq(op_named(ops, n, "attention")->bytes, 32 * 10485760.0);
    ck_assert_double_eq(op_named(ops, n, "lm_head")->flops, 1050673152.0 + 8388608.0);
    ck_assert_int_eq(op_named(ops, n, "mlp")->compute_bound, 1); /* 512 rows: the GEMMs turn compute-bound */
    /* the mixed pass */
    const sd_cost_group g[2] = { { .sequences = 16, .tokens = 1, .context = 1000, .logits = 1 }, chunk };
    size_t nd = sd_cost_breakdown(&L8B, &H100, &cp, 16, 1, 1000, dec), nm = sd_cost_breakdown_groups(&L8B, &H100, &cp, g, 2, mix);
    ck_assert_uint_eq(nm, n);
    ck_assert_double_eq(op_named(mix, nm, "qkv_proj")->flops, 32 * 2.0 * (16 + 512) * 4096 * 6144);
    ck_assert_rel(op_named(mix, nm, "attention")->flops,
                  op_named(ops, n, "attention")->flops + op_named(dec, nd, "attention")->flops, 1e-15);
    ck_assert_rel(op_named(mix, nm, "attention")->bytes,
                  op_named(ops, n, "attention")->bytes + op_named(dec, nd, "attention")->bytes, 1e-15);
    ck_assert_double_eq(op_named(mix, nm, "mlp")->bytes - op_named(dec, nd, "mlp")->bytes,
                        op_named(ops, n, "mlp")->bytes - 32.0 * 3 * 4096 * 14336 * 2); /* weights read once */
    ck_assert(sd_cost_groups_time(&L8B, &H100, &cp, g, 2, NULL) <
              sd_cost_step_time(&L8B, &H100, &cp, 16, 1, 1000, NULL) + sd_cost_groups_time(&L8B, &H100, &cp, &chunk, 1, NULL));
    /* chunked: 256 + 256 after 256 cached is 512's attention, exactly (the causal sums add) */
    const sd_cost_group halves[2] = { { .sequences = 1, .tokens = 256, .context = 0, .logits = 0 },
                                      { .sequences = 1, .tokens = 256, .context = 256, .logits = 1 } };
    sd_cost_op h1[SD_COST_MAX_OPS];
    size_t nh = sd_cost_breakdown_groups(&L8B, &H100, &cp, halves, 2, h1);
    ck_assert_double_eq(op_named(h1, nh, "attention")->flops, op_named(ops, n, "attention")->flops);
    /* one group {B, n, S, n} is sd_cost_breakdown's pass exactly, at both granularities */
    for (int gran = 0; gran < 2; gran++) {
        cp.granularity = gran ? SD_GRANULARITY_PASS : SD_GRANULARITY_OPERATOR;
        const sd_cost_group one = { .sequences = 64, .tokens = 5, .context = 4096, .logits = 5 };
        ck_assert_double_eq(sd_cost_groups_time(&L8B, &H100, &cp, &one, 1, NULL),
                            sd_cost_step_time(&L8B, &H100, &cp, 64, 5, 4096, NULL));
    }
}
END_TEST

START_TEST(moe_layer_by_hand)
{
    sd_cost_params cp = sd_cost_defaults();
    sd_cost_op ops[SD_COST_MAX_OPS];
    size_t n = sd_cost_breakdown(&MOE, &H100, &cp, 1, 1, 1024, ops);
    ck_assert_double_eq(op_named(ops, n, "router")->flops, 32 * 65536.0);
    ck_assert_double_eq(op_named(ops, n, "router")->bytes, 32 * 73744.0);
    ck_assert_double_eq(op_named(ops, n, "mlp")->flops, 32 * 704643072.0);
    ck_assert_rel(op_named(ops, n, "mlp")->bytes, 32 * 704847872.0, 1e-14); /* 1 - (3/4)^M via expm1, log1p */
    n = sd_cost_breakdown(&MOE, &H100, &cp, 2, 1, 1024, ops);
    ck_assert_double_eq(op_named(ops, n, "mlp")->flops, 32 * 1409286144.0);
    ck_assert_rel(op_named(ops, n, "mlp")->bytes, 32 * 1233534976.0, 1e-14);
}
END_TEST

/* TP = N: per-GPU weights divide by N and two ring all-reduces a layer are
 * added: 2 L (2 (N - 1)/N x M d b_a / link + N x latency). */
START_TEST(tensor_parallel)
{
    sd_cost_params one = sd_cost_defaults();
    sd_cost_op o1[SD_COST_MAX_OPS], oN[SD_COST_MAX_OPS];
    size_t n1 = sd_cost_breakdown(&TARGET, &H100, &one, 1, 1, 0, o1);
    ck_assert_uint_eq(n1, 9); /* TP 1: no all-reduce */
    for (double N = 2; N <= 8; N *= 2) {
        sd_cost_params cp = one;
        cp.tp = N;
        size_t nN = sd_cost_breakdown(&TARGET, &H100, &cp, 1, 1, 0, oN);
        ck_assert_uint_eq(nN, 10);
        /* the MLP's weights: 3 x 8192 x 28672 x 2 bytes a layer, split N ways;
         * its activation rows: in and out (2 x 8192) and the three wide rows (3 x 28672 / N) */
        double w = 3.0 * 8192 * 28672 * 2;
        ck_assert_double_eq(op_named(o1, n1, "mlp")->bytes, 80 * (w + (2 * 8192 + 3 * 28672) * 2));
        ck_assert_double_eq(op_named(oN, nN, "mlp")->bytes, 80 * (w / N + (2 * 8192 + 3 * 28672 / N) * 2));
        /* KV heads split too (8 of them: N <= 8 GPUs hold 8/N each) */
        ck_assert_rel(op_named(oN, nN, "attention")->bytes, op_named(o1, n1, "attention")->bytes / N, 1e-14);
        const sd_cost_op *ar = op_named(oN, nN, "all_reduce");
        double bytes = 1 * 8192 * 2; /* one token's row, BF16 */
        ck_assert_double_eq(ar->count, 160);
        ck_assert_rel(ar->seconds, 160 * (2 * (N - 1) / N * bytes / 450e9 + N * 3e-6), 1e-14);
    }
    /* more KV heads than GPUs hold: at N = 16 each GPU keeps one (replicated) */
    sd_cost_params cp = one;
    cp.tp = 16;
    size_t n16 = sd_cost_breakdown(&TARGET, &H100, &cp, 1, 1, 1024, oN);
    n1 = sd_cost_breakdown(&TARGET, &H100, &one, 1, 1, 1024, o1);
    double kv1 = 80 * 2.0 * 8 * 128 * 1025 * 2, q = 80 * 2.0 * 64 * 128 * 2;
    ck_assert_double_eq(op_named(o1, n1, "attention")->bytes, kv1 + q);
    ck_assert_double_eq(op_named(oN, n16, "attention")->bytes, kv1 / 8 + q / 16);
}
END_TEST

/* Compute types: FP8 matrix units run at the FP8 peak (the presets suite's
 * check_wants_a_peak_for_the_compute_type: without one the pair is refused). */
START_TEST(compute_types)
{
    sd_model_spec fp8 = TARGET;
    fp8.weight = fp8.kv = fp8.compute = SD_FP8;
    sd_cost_params cp = sd_cost_defaults();
    sd_cost_op a[SD_COST_MAX_OPS], b[SD_COST_MAX_OPS];
    /* at a large batch the MLP is compute-bound: twice the peak, half the time */
    size_t na = sd_cost_breakdown(&TARGET, &H100, &cp, 4096, 1, 0, a);
    size_t nb = sd_cost_breakdown(&fp8, &H100, &cp, 4096, 1, 0, b);
    ck_assert_int_eq(op_named(a, na, "mlp")->compute_bound, 1);
    ck_assert_int_eq(op_named(b, nb, "mlp")->compute_bound, 1);
    ck_assert_rel(op_named(b, nb, "mlp")->seconds, op_named(a, na, "mlp")->seconds / 2, 1e-12);
    /* at batch 1 it reads half the bytes */
    na = sd_cost_breakdown(&TARGET, &H100, &cp, 1, 1, 0, a);
    nb = sd_cost_breakdown(&fp8, &H100, &cp, 1, 1, 0, b);
    ck_assert_rel(op_named(b, nb, "mlp")->bytes - 80 * (2 * 8192 + 3 * 28672) * 2,
                  (op_named(a, na, "mlp")->bytes - 80 * (2 * 8192 + 3 * 28672) * 2) / 2, 1e-14);
}
END_TEST

/* MagicDec (Chen et al. 2024): at long context, a draft that reads only a
 * window of the cache gains with batch; a full-cache draft loses. */
START_TEST(magicdec_window)
{
    static const double gammas[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    sd_cost_params cp = sd_cost_defaults();
    sd_roofline_request rq = request(&cp, 0.8, gammas, 16);
    rq.target = &L8B;
    for (int self = 0; self < 2; self++) {
        rq.draft = self ? &L8B : &DRAFT;
        double last_w = 0, last_full = INFINITY;
        for (double b = 1; b <= 256; b *= 4) {
            sd_roofline_point w, full;
            rq.draft_window = 512;
            sd_cost_roofline(&rq, b, 32768, &w);
            rq.draft_window = 0;
            sd_cost_roofline(&rq, b, 32768, &full);
            ck_assert_msg(w.improvement_opt > last_w, "%s, window 512, batch %g: %g after %g", self ? "self" : "1B", b,
                          w.improvement_opt, last_w);
            ck_assert_msg(full.improvement_opt <= last_full, "full cache, batch %g: %g after %g", b,
                          full.improvement_opt, last_full);
            last_w = w.improvement_opt, last_full = full.improvement_opt;
        }
        ck_assert(last_w > 2.5); /* at batch 256 the windowed draft is cheap: c_eff ~ 0.035 for self */
    }
}
END_TEST

/* Acceptance by context: linear between the rows, exact at them; the
 * verified tokens may be set apart from gamma + 1 (tree drafts). */
START_TEST(alpha_by_context_and_verify_tokens)
{
    const char *path = write_temp("# measured\ncontext\talpha\n1024\t0.84\n8192\t0.82\n32768\t0.76\n");
    double *c, *a;
    size_t n;
    sd_error err;
    ck_assert_int_eq(sd_cost_load_alpha_by_context(path, &c, &a, &n, &err), SD_OK);
    unlink(path);
    ck_assert_uint_eq(n, 3);
    static const double g4[] = { 4 };
    sd_cost_params cp = sd_cost_defaults();
    sd_roofline_request rq = request(&cp, NAN, g4, 1);
    rq.alpha_context = c, rq.alpha_value = a, rq.nalpha = n;
    ck_assert_double_eq(sd_cost_alpha_at(&rq, 1024), 0.84);
    ck_assert_double_eq(sd_cost_alpha_at(&rq, 32768), 0.76);
    ck_assert_double_eq(sd_cost_alpha_at(&rq, 8192), 0.82); /* exactly, at every row (found by fuzz_presets) */
    ck_assert_rel(sd_cost_alpha_at(&rq, 20480), 0.79, 1e-12); /* halfway from 8192 to 32768 */
    ck_assert(isnan(sd_cost_alpha_at(&rq, 65536)));           /* no extrapolation */
    sd_roofline_point r;
    sd_cost_roofline(&rq, 64, 20480, &r);
    ck_assert_rel(r.alpha, 0.79, 1e-12);
    ck_assert_rel(r.improvement_opt, sd_theory_expected_tokens(r.alpha, 4) / (4 * r.c_effective + r.verify_cost_ratio),
                  1e-12);
    rq.verify_tokens = 16; /* a tree of 16 nodes for 4 levels */
    sd_roofline_point t;
    sd_cost_roofline(&rq, 64, 20480, &t);
    ck_assert_rel(t.verify_cost_ratio, sd_cost_step_time(&TARGET, &H100, &cp, 64, 16, 20480, NULL) /
                                           sd_cost_step_time(&TARGET, &H100, &cp, 64, 1, 20480, NULL), 1e-14);
    ck_assert(t.verify_cost_ratio > r.verify_cost_ratio);
    free(c);
    free(a);
    path = write_temp("context\talpha\n1024\t0.8\n1024\t0.7\n");
    ck_assert_int_eq(sd_cost_load_alpha_by_context(path, &c, &a, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "row 2: context 1024 does not increase"));
    unlink(path);
    path = write_temp("context\talpha\n1024\t1.2\n2048\t0.7\n");
    ck_assert_int_eq(sd_cost_load_alpha_by_context(path, &c, &a, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, ":2: alpha: 1.2 is outside [0, 1]"));
    unlink(path);
}
END_TEST

/* A proposer that drafts for a share r of the batch (proposal_rate): the iteration emits r E(N) +
 * 1 - r tokens a sequence over a verify pass of r B sequences of gamma + 1 tokens beside (1 - r) B
 * of one; r = 1 (or 0, unset) is the roofline as it was, bit for bit; r -> 0 leaves nothing to gain. */
START_TEST(proposal_rate)
{
    sd_cost_params cp = sd_cost_defaults();
    static const double g3[] = { 3 };
    sd_roofline_request rq = request(&cp, 0.9, g3, 1), all = rq;
    rq.draft = all.draft = sd_presets_ngram();
    sd_roofline_point r, a;
    sd_cost_roofline(&all, 64, 768, &a);
    rq.proposal_rate = 1.0;
    sd_cost_roofline(&rq, 64, 768, &r);
    ck_assert(memcmp(&r, &a, sizeof r) == 0);
    rq.proposal_rate = 0.25;
    sd_cost_roofline(&rq, 64, 768, &r);
    const sd_cost_group g[2] = { { 16, 4, 768, 4 }, { 48, 1, 768, 1 } };
    double t1 = sd_cost_step_time(&TARGET, &H100, &cp, 64, 1, 768, NULL);
    double tv = sd_cost_groups_time(&TARGET, &H100, &cp, g, 2, NULL);
    ck_assert_rel(r.verify_cost_ratio, tv / t1, 1e-14);
    ck_assert_rel(r.improvement_opt, fmax(1.0, (0.25 * sd_theory_expected_tokens(0.9, 3) + 0.75) / (tv / t1)), 1e-14);
    ck_assert(tv < sd_cost_step_time(&TARGET, &H100, &cp, 64, 4, 768, NULL)); /* fewer tokens than every row's 4 */
    rq.proposal_rate = 1e-3;
    rq.gammas = (const double[]){ 8 };
    sd_cost_roofline(&rq, 1, 768, &r);
    ck_assert(r.improvement_opt < 1.01);
}
END_TEST

/* Measured mean lengths (sd_cost_load_mean_lengths, mean_length): each gamma's improvement is its
 * measured E(N) over eq. (10)'s terms, computed here from the passes; the best of the measured
 * gammas is kept (a brute-force argmax), the unmeasured ones are skipped; the file's rules. */
START_TEST(mean_lengths)
{
    const char *path = write_temp("# a curve\ngamma\tmean_length\n2\t2.36\n4\t3.08\n7\t3.54\n");
    double *en;
    size_t n;
    sd_error err;
    ck_assert_int_eq(sd_cost_load_mean_lengths(path, &en, &n, &err), SD_OK);
    unlink(path);
    ck_assert_uint_eq(n, 7);
    ck_assert(isnan(en[0]) && isnan(en[2]) && en[1] == 2.36 && en[3] == 3.08 && en[6] == 3.54);
    sd_cost_params cp = sd_cost_defaults();
    static const double gammas[] = { 2, 4, 7 };
    sd_roofline_request rq = request(&cp, NAN, gammas, 3);
    rq.mean_length = en, rq.nmean = n;
    for (double b = 1; b <= 256; b *= 4) {
        sd_roofline_point r;
        sd_cost_roofline(&rq, b, 1024, &r);
        double t1 = sd_cost_step_time(&TARGET, &H100, &cp, b, 1, 1024, NULL);
        double td = sd_cost_step_time(&DRAFT, &H100, &cp, b, 1, 1024, NULL), best = 1, at = 0;
        for (int i = 0; i < 3; i++) {
            double g = gammas[i], f = en[(size_t)g - 1] / (g * td / t1 +
                                      sd_cost_step_time(&TARGET, &H100, &cp, b, g + 1, 1024, NULL) / t1);
            if (f > best)
                best = f, at = g;
        }
        ck_assert_double_eq(r.gamma_opt, at);
        ck_assert_rel(r.improvement_opt, best, 1e-12);
        ck_assert(isnan(r.alpha));
    }
    rq.gammas = (const double[]){ 1, 3 }; /* not measured: nothing to gain */
    rq.ngammas = 2;
    sd_roofline_point r;
    sd_cost_roofline(&rq, 1, 1024, &r);
    ck_assert_double_eq(r.gamma_opt, 0);
    free(en);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        { "gamma\tmean_length\n3\t4.5\n", ":2: mean_length: 4.5 is above gamma + 1 = 4" },
        { "gamma\tmean_length\n3\t2\n3\t2\n", ":3: gamma: 3 is given twice" },
        { "gamma\tmean_length\n", "no rows" },
        { "gamma\tmean_length\n2\t0.5\n", ":2: mean_length: 0.5 is outside [1, 257]" },
        { "gamma\tmean_length\n2.5\t2\n", ":2: gamma: 2.5 is" },
        { "gamma\n2\n", "no 'mean_length' column" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        path = write_temp(bad[i].text);
        en = (double *)(uintptr_t)0x5eed;
        ck_assert_int_eq(sd_cost_load_mean_lengths(path, &en, &n, &err), SD_EINVAL);
        ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL, "[%s] lacks [%s]", err.msg, bad[i].msg);
        ck_assert_ptr_eq(en, (double *)(uintptr_t)0x5eed);
        unlink(path);
    }
}
END_TEST

Suite *cost_suite(void)
{
    Suite *s = suite_create("cost");
    TCase *tc = tcase_create("cost");
    tcase_add_test(tc, small_batch_is_eq10);
    tcase_add_test(tc, ngram_costs_nothing);
    tcase_add_test(tc, tree_iteration);
    tcase_add_test(tc, large_batch_is_compute_bound);
    tcase_add_test(tc, improvement_falls_with_batch);
    tcase_add_test(tc, experts_make_verification_costlier);
    tcase_add_test(tc, all_experts_active_is_dense);
    tcase_add_test(tc, memory_fit);
    tcase_add_test(tc, breakeven_and_schedule);
    tcase_add_test(tc, layer_by_hand);
    tcase_add_test(tc, prefill_by_hand);
    tcase_add_test(tc, moe_layer_by_hand);
    tcase_add_test(tc, tensor_parallel);
    tcase_add_test(tc, compute_types);
    tcase_add_test(tc, magicdec_window);
    tcase_add_test(tc, alpha_by_context_and_verify_tokens);
    tcase_add_test(tc, proposal_rate);
    tcase_add_test(tc, mean_lengths);
    suite_add_tcase(s, tc);
    return s;
}

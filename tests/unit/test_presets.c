/* test_presets.c -- model and accelerator presets (presets.h): the shipped
 * tables, bad files, the compute-type check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "specdec/presets.h"
#include "testutil.h"

/* Every preset's shapes add up to its card's parameter count within 1%
 * (with the embedding counted once when tied, twice when not). */
START_TEST(presets_add_up)
{
    sd_presets p;
    sd_error err;
    ck_assert_int_eq(sd_presets_load(NULL, NULL, NULL, &p, &err), SD_OK);
    for (size_t i = 0; i < p.nmodels; i++) {
        const sd_model_spec *m = &p.models[i];
        double d = m->d_model, attn = d * (m->heads + 2 * m->kv_heads) * m->head_dim + m->heads * m->head_dim * d;
        double layer = attn + 3 * d * m->d_ff * m->experts + (m->experts > 1 ? d * m->experts : 0);
        double active = attn + 3 * d * m->d_ff * m->experts_active;
        double body = m->layers * layer, emb = m->vocab * d;
        double tied = body + emb, untied = body + 2 * emb;
        ck_assert_msg(fabs(tied / m->params_total - 1) < 0.01 || fabs(untied / m->params_total - 1) < 0.01,
                      "%s: shapes give %.4g or %.4g parameters, the card %.4g", m->name, tied, untied, m->params_total);
        if (m->experts > 1) /* the card's active count: the layers' active share and both embeddings */
            ck_assert_msg(fabs((m->layers * active + 2 * emb) / m->params_active - 1) < 0.05, "%s: active %.4g", m->name,
                          m->layers * active + 2 * emb);
    }
    sd_presets_free(&p);
}
END_TEST

/* Without a peak for the model's compute type the preset check refuses the
 * pair.  (From the cost suite's compute_types.) */
START_TEST(check_wants_a_peak_for_the_compute_type)
{
    sd_model_spec fp8 = TARGET;
    fp8.weight = fp8.kv = fp8.compute = SD_FP8;
    sd_hardware a100 = H100;
    a100.flops[SD_FP8] = 0;
    sd_error err;
    ck_assert_int_eq(sd_presets_check(&TARGET, &a100, &err), SD_OK);
    ck_assert_int_eq(sd_presets_check(&fp8, &a100, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "t70 computes in fp8, for which h100 has no published peak");
}
END_TEST

START_TEST(presets_and_bad_files)
{
    sd_presets p;
    sd_error err;
    /* found through the resolver from any working directory (the build tree's data/) */
    ck_assert_int_eq(sd_presets_load(NULL, NULL, NULL, &p, &err), SD_OK);
    ck_assert_uint_ge(p.nmodels, 4);
    int moe = 0;
    for (size_t i = 0; i < p.nmodels; i++)
        moe |= p.models[i].experts > 1;
    ck_assert(moe);
    ck_assert_uint_ge(p.nhardware, 6);
    const sd_hardware *h200;
    ck_assert_int_eq(sd_presets_hardware(&p, "hardware", "h200", &h200, &err), SD_OK);
    ck_assert_double_eq(h200->memory, 141e9);
    const sd_model_spec *m0 = NULL;
    ck_assert_int_eq(sd_presets_model(&p, "draft", "no-such-model", &m0, &err), SD_EINVAL);
    ck_assert_ptr_null(m0);
    ck_assert_ptr_nonnull(strstr(err.msg, "draft: unknown model 'no-such-model'; known: "));
    ck_assert_ptr_nonnull(strstr(err.msg, p.models[0].name));
    ck_assert_int_eq(sd_presets_model(&p, "target", NULL, &m0, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "target: a model name is required"));
    sd_presets_free(&p);
    ck_assert_int_eq(sd_presets_load("/nonexistent-folder", NULL, NULL, &p, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "data: '/nonexistent-folder' is not a folder"));

    sd_model_spec *m;
    sd_hardware *h;
    size_t n;
    static const char HW_HEAD[] = "name\ttflops_bf16\ttflops_fp8\tbandwidth_tbs\tmemory_gb\tlink_gbs\tlink_latency_us\n";
    char text[1024];
    snprintf(text, sizeof text, "%sx\t100\t-\t2\t80\t450\t3\ny\t100\t200\t-2\t80\t450\t3\n", HW_HEAD);
    const char *path = write_temp(text);
    ck_assert_int_eq(sd_presets_load_hardware(path, &h, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, ":3: bandwidth_tbs: -2 is outside"));
    unlink(path);
    /* "-": no published peak; optional columns may be missing altogether */
    snprintf(text, sizeof text, "%sx\t100\t-\t2\t80\t450\t3\n", HW_HEAD);
    path = write_temp(text);
    ck_assert_int_eq(sd_presets_load_hardware(path, &h, &n, &err), SD_OK);
    ck_assert_double_eq(h[0].flops[SD_BF16], 100e12);
    ck_assert_double_eq(h[0].flops[SD_FP8], 0);
    ck_assert_double_eq(h[0].flops[SD_FP4], 0);
    ck_assert_double_eq(h[0].link_latency, 3e-6);
    free(h);
    unlink(path);
    path = write_temp("name\ttflops_bf16\tbandwidth_tbs\nx\t100\t2\n");
    ck_assert_int_eq(sd_presets_load_hardware(path, &h, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "no 'memory_gb' column"));
    unlink(path);
    static const char M_HEAD[] = "name\tparams_total\tparams_active\tlayers\td_model\theads\tkv_heads\thead_dim\td_ff\t"
                                 "vocab\texperts\texperts_active\tweight_dtype\tkv_dtype\tact_dtype\tcompute_dtype\n";
    snprintf(text, sizeof text, "%sm\t1e9\t2e9\t16\t2048\t32\t8\t64\t8192\t128256\t1\t1\tbf16\tbf16\tbf16\tbf16\n",
             M_HEAD);
    path = write_temp(text);
    ck_assert_int_eq(sd_presets_load_models(path, &m, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, ": m: active parameters or experts exceed the totals"));
    unlink(path);
    snprintf(text, sizeof text, "%sm\t1e9\t1e9\t16\t2048\t32\t8\t64\t8192\t128256\t1\t1\tbf16\tfp9\tbf16\tbf16\n",
             M_HEAD);
    path = write_temp(text);
    ck_assert_int_eq(sd_presets_load_models(path, &m, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, ":2: kv_dtype: 'fp9' is not a number type; known: fp4, fp8, int8, bf16"));
    unlink(path);
    /* a figure so large that products overflow is refused with its file and line */
    snprintf(text, sizeof text, "%sx\t1e300\t-\t2\t80\t450\t3\n", HW_HEAD);
    path = write_temp(text);
    ck_assert_int_eq(sd_presets_load_hardware(path, &h, &n, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, ":2: tflops_bf16: 1e300 is outside [1e-300, 1000000000]"));
    unlink(path);
}
END_TEST

/* The drafter heads built from Llama-3.1-8B, their weights counted tensor by tensor from the
 * checkpoints' shapes: EAGLE-3's (SpecForge's LlamaForCausalLMEagle3 with an 8B target: fc
 * 12288 x 4096, q/k/v/o 4096 x 4096, 1024 x 4096 twice, 4096 x 4096, gate/up/down 14336 x 4096
 * three times, lm_head 32000 x 4096; its q/k/v read 2 d in the checkpoint, d here), about the
 * 811 MB in bf16 SpecForge's docs state; EAGLE-1's with an fc of 8192 x 4096 and the target's
 * 128256-token LM head; an MTP module keeps a mixture's experts; an unknown kind is refused. */
START_TEST(drafter_heads)
{
    sd_presets p;
    sd_error err;
    const sd_model_spec *l8, *moe;
    ck_assert_int_eq(sd_presets_load(NULL, NULL, NULL, &p, &err), SD_OK);
    ck_assert_int_eq(sd_presets_model(&p, "target", "llama-3.1-8b", &l8, &err), SD_OK);
    ck_assert_int_eq(sd_presets_model(&p, "target", "qwen3-30b-a3b", &moe, &err), SD_OK);
    sd_model_spec h;
    ck_assert_int_eq(sd_presets_drafter(l8, "--draft", "eagle3", &h, &err), SD_OK);
    const double attn = 4096.0 * 4096 + 1024.0 * 4096 * 2 + 4096.0 * 4096, mlp = 14336.0 * 4096 * 3;
    ck_assert_str_eq(h.name, "eagle3");
    ck_assert_double_eq(h.layers, 1);
    ck_assert_double_eq(h.fuse, 3);
    ck_assert_double_eq(h.vocab, 32000);
    ck_assert_rel(h.params_total, 12288.0 * 4096 + attn + mlp + 32000.0 * 4096, 1e-15);
    ck_assert_msg(fabs(h.params_total * 2 / 811e6 - 1) < 0.02, "%.4g bytes", h.params_total * 2);
    ck_assert_int_eq(sd_presets_drafter(l8, "--draft", "eagle", &h, &err), SD_OK);
    ck_assert_rel(h.params_total, 8192.0 * 4096 + attn + mlp + 128256.0 * 4096, 1e-15);
    ck_assert_int_eq(sd_presets_drafter(moe, "--draft", "mtp", &h, &err), SD_OK);
    ck_assert_double_eq(h.experts, moe->experts);
    ck_assert(h.params_active < h.params_total);
    ck_assert_int_eq(sd_presets_drafter(moe, "--draft", "eagle", &h, &err), SD_OK);
    ck_assert_double_eq(h.experts, 1);
    h.layers = 99;
    ck_assert_int_eq(sd_presets_drafter(l8, "--draft", "medusa", &h, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "--draft: unknown drafter head 'medusa'; known: eagle, eagle3, mtp");
    ck_assert_double_eq(h.layers, 99);
    sd_presets_free(&p);
}
END_TEST

Suite *presets_suite(void)
{
    Suite *s = suite_create("presets");
    TCase *tc = tcase_create("presets");
    tcase_add_test(tc, presets_and_bad_files);
    tcase_add_test(tc, presets_add_up);
    tcase_add_test(tc, check_wants_a_peak_for_the_compute_type);
    tcase_add_test(tc, drafter_heads);
    suite_add_tcase(s, tc);
    return s;
}

/* test_specconfig.c -- vLLM's speculative config (specconfig.h): the drafter and gamma each
 * method names, a draft model matched to a preset, and every refusal. */
#include <string.h>

#include "specdec/specconfig.h"
#include "testutil.h"

/* The methods of vLLM's SpeculativeMethod (vllm/config/speculative.py) and the preset names of
 * data/models.tsv. */
START_TEST(methods)
{
    sd_presets p;
    sd_error err;
    ck_assert_int_eq(sd_presets_load(NULL, NULL, NULL, &p, &err), SD_OK);
    static const struct {
        const char *json, *draft, *method;
        double gamma;
    } ok[] = {
        { "{\"method\": \"ngram\", \"num_speculative_tokens\": 5, \"prompt_lookup_max\": 4}", "ngram", "ngram", 5 },
        { "{\"method\": \"suffix\"}", "ngram", "suffix", 0 },
        { "{\"method\": \"eagle\", \"model\": \"yuhuili/EAGLE-LLaMA3-Instruct-8B\", \"num_speculative_tokens\": 2}",
          "eagle", "eagle", 2 },
        { "{\"method\": \"eagle3\", \"model\": \"x\", \"num_speculative_tokens\": 256}", "eagle3", "eagle3", 256 },
        { "{\"method\": \"deepseek_mtp\", \"num_speculative_tokens\": 1}", "mtp", "deepseek_mtp", 1 },
        { "{\"method\": \"mtp\"}", "mtp", "mtp", 0 },
        { "{\"model\": \"meta-llama/Llama-3.2-1B-Instruct\", \"num_speculative_tokens\": 3}", "llama-3.2-1b",
          "draft_model", 3 },
        { "{\"method\": \"draft_model\", \"model\": \"meta-llama/Llama-3.1-70B\"}", "llama-3.1-70b", "draft_model", 0 },
        { "{\"method\": \"draft_model\", \"model\": \"/models/llama-3.1-70b-fp8\"}", "llama-3.1-70b-fp8", "draft_model",
          0 },
        { "{\"method\": null, \"model\": \"Qwama-0.5B-Instruct\", \"quantization\": \"fp8\"}", "qwama-0.5b",
          "draft_model", 0 },
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        sd_specconfig c;
        ck_assert_msg(sd_specconfig_read(ok[i].json, "--speculative-config", &p, &c, &err) == SD_OK, "%s: %s",
                      ok[i].json, err.msg);
        ck_assert_str_eq(c.draft, ok[i].draft);
        ck_assert_str_eq(c.method, ok[i].method);
        ck_assert_double_eq(c.gamma, ok[i].gamma);
    }
    static const struct {
        const char *json, *msg;
    } bad[] = {
        { "{\"method\": \"medusa\"}", "--speculative-config: method: specdec does not price medusa drafters" },
        { "{\"method\": \"lookahead\"}", "--speculative-config: method: unknown method 'lookahead'" },
        { "{\"method\": \"Deepseek_MTP\"}", "--speculative-config: method: unknown method 'Deepseek_MTP'" },
        /* the fuzzer's find (crashes/specconfig-long-method): a name past 63 bytes ending in "mtp" was cut into a known one */
        { "{\"method\": \"nffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffmtp\"}",
          "--speculative-config: method: unknown method 'nfffffffffffffffffffffffffffffffffffffff...'" },
        { "{\"method\": \"draft_model\"}", "--speculative-config: method draft_model needs the member model" },
        { "{\"model\": \"Qwen/Qwen3-0.6B\"}", "--speculative-config: model: 'Qwen/Qwen3-0.6B' is no preset" },
        { "{\"model\": \"llama-3.2-1bx\"}", "--speculative-config: model: 'llama-3.2-1bx' is no preset" },
        { "{\"num_speculative_tokens\": 3}", "--speculative-config: give method or model" },
        { "{\"method\": \"ngram\", \"num_speculative_tokens\": 257}", "num_speculative_tokens: 257 is outside [1, 256]" },
        { "{\"method\": \"ngram\", \"num_speculative_tokens\": 2.0}", "num_speculative_tokens" },
        { "{\"method\": 3}", "method: expected a string" },
        { "[{\"method\": \"ngram\"}]", "expected an object" },
        { "{\"method\": \"ngram\"} {}", "--speculative-config" },
        { "", "--speculative-config" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sd_specconfig c = { .draft = "kept" };
        ck_assert_int_eq(sd_specconfig_read(bad[i].json, "--speculative-config", &p, &c, &err), SD_EINVAL);
        ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL, "%s: [%s] lacks [%s]", bad[i].json, err.msg, bad[i].msg);
        ck_assert_str_eq(c.draft, "kept");
    }
    sd_presets_free(&p);
}
END_TEST

Suite *specconfig_suite(void)
{
    Suite *s = suite_create("specconfig");
    TCase *tc = tcase_create("specconfig");
    tcase_add_test(tc, methods);
    suite_add_tcase(s, tc);
    return s;
}

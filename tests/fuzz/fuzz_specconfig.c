/* fuzz_specconfig.c -- vLLM's speculative config (specconfig.h) from any bytes.
 *
 * Input: the bytes as the text of --speculative-config (up to the first NUL).
 * Properties:
 *   - the reader never crashes, and succeeds or fails with SD_EINVAL and a
 *     one-line message; on failure its output keeps its sentinel;
 *   - on success the drafter is one specconfig.h names -- ngram, eagle,
 *     eagle3, mtp, or a preset of the presets given -- gamma is 0 or a whole
 *     number in [1, 256], and the method is as the reference reads it: the
 *     text parses as one JSON object (io/json.h) whose method, when present
 *     and not null, is a string and is what the output states.
 */
#include <math.h>

#include "fuzz_common.h"
#include "io/json.h"

static const sd_model_spec MODELS[2] = {
    { .name = "llama-3.2-1b", .params_total = 1, .params_active = 1, .layers = 1, .d_model = 1, .heads = 1,
      .kv_heads = 1, .head_dim = 1, .d_ff = 1, .vocab = 1, .experts = 1, .experts_active = 1 },
    { .name = "llama-3.1-70b", .params_total = 1, .params_active = 1, .layers = 1, .d_model = 1, .heads = 1,
      .kv_heads = 1, .head_dim = 1, .d_ff = 1, .vocab = 1, .experts = 1, .experts_active = 1 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    const sd_presets p = { (sd_model_spec *)(uintptr_t)MODELS, 2, NULL, 0 };
    sd_specconfig out = { .draft = "sentinel", .method = "sentinel", .gamma = -1 };
    sd_error err;
    clear_error(&err);
    sd_status st = sd_specconfig_read(text, "--speculative-config", &p, &out, &err);
    if (st != SD_OK) {
        CHECK(st == SD_EINVAL, "status %d", (int)st);
        check_message(&err, "sd_specconfig_read");
        CHECK(strcmp(out.draft, "sentinel") == 0 && out.gamma == -1, "failed but wrote%s", "");
        free(text);
        return 0;
    }
    static const char *const kinds[] = { "ngram", "eagle", "eagle3", "mtp", "llama-3.2-1b", "llama-3.1-70b" };
    int known = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        known |= strcmp(out.draft, kinds[i]) == 0;
    CHECK(known, "drafter '%s'", out.draft);
    CHECK(out.gamma == 0 || (out.gamma >= 1 && out.gamma <= 256 && floor(out.gamma) == out.gamma), "gamma %g",
          out.gamma);
    sd_json_options opt = sd_json_defaults();
    opt.single = 1;
    sd_json_docs d;
    CHECK(sd_json_parse(text, strlen(text), "ref", &opt, &d, &err) == SD_OK && d.doc[0].type == SD_JSON_OBJECT,
          "accepted what is not one JSON object%s", "");
    const sd_json *m = sd_json_find(&d.doc[0], "method");
    if (m != NULL && m->type != SD_JSON_NULL)
        CHECK(m->type == SD_JSON_STRING && strcmp(m->string.s, out.method) == 0, "method '%s'", out.method);
    else
        CHECK(strcmp(out.method, "draft_model") == 0, "no method, yet '%s'", out.method);
    sd_json_free(&d);
    free(text);
    return 0;
}

/* fuzz_counters.h -- what the counters harnesses share: the input's layout, the loads and
 * the properties (counters.h).
 *
 * fuzz_counters (detection and every format by name) and the per-reader harnesses
 * fuzz_counters_ID (one format, always named: fuzz_counters_reader.c, built once for each
 * line of src/counters/readers.def) read an input the same way: byte 0 picks the options,
 * the rest is the file.
 *   bits 0-2  fuzz_counters only: the format, 0 = detect, 1-6 = sd_counters_formats()[n - 1],
 *             7 = an unknown name; a per-reader harness names its own format;
 *   bits 3-4  gamma from GAMMAS (0, 3, 4, 65);
 *   bit 5     select "engine=1" (fuzz_counters and the harness of a scrape, the format that
 *             takes select and since, only);
 *   bit 6     since (the same): the rest is split at its first form feed, the earlier
 *             scrape before it, the file after it;
 *   bit 7     fuzz_counters only: opt = NULL, the other bits ignored.
 * So every input of corpus/counters/ and crashes/counters-* means the same to a per-reader
 * harness, with the format forced.
 * Properties (each load):
 *   - the status is SD_OK, SD_EINVAL or SD_ENOMEM; the same input loads the
 *     same way twice (byte for byte);
 *   - on failure *out keeps its sentinel and the message is one non-empty
 *     line that starts with the file's path or the earlier scrape's;
 *   - on success: gamma in [1, SD_COUNTS_MAX_GAMMA] (the given gamma when
 *     one was given), the format a name of sd_counters_formats() (the one
 *     asked for when named); a gauge (counters.h) has mean_accepted in [0,
 *     gamma], no positions and every count 0, and nothing more is checked;
 *     otherwise drafts, draft_tokens, accepted_tokens and every
 *     accepted_at[i], reached[i] finite, whole, in [0, 2^53]; drafts >= 1;
 *     accepted_at non-increasing, accepted_at[i] <= reached[i] <= drafts,
 *     reached non-increasing, both 0 from gamma on and accepted_at all 0
 *     without positions; accepted <= draft tokens <= drafts x gamma; for
 *     PREFIX data with positions sum(accepted_at) = accepted_tokens; kind ANY
 *     only from vllm-v0, which has no positions; a gauge (only from sglang, trtllm-bench, speculation-profile and SGLang's scrape) has
 *     gamma and a mean accepted in [0, gamma] and no counts or positions; llama.cpp's and llama-speculative's reached (assumed) and TensorRT-LLM's
 *     (measured) sum to the draft tokens, every other format's reached[i] is drafts (and
 *     reached_assumed 0); notes NUL-terminated and free of control bytes;
 *   - PREFIX data with positions written by sd_counters_write_prometheus reads
 *     back (as "prometheus") to the same gamma, drafts, draft_tokens,
 *     accepted_tokens and accepted_at, reached = drafts;
 *   - per-reader harnesses: when detection (the same options, no format) reads the file as
 *     this format, the named load read it to the same counts, byte for byte.
 */
#ifndef SPECDEC_FUZZ_COUNTERS_H
#define SPECDEC_FUZZ_COUNTERS_H

#include <math.h>

#include "fuzz_common.h"

static const size_t GAMMAS[4] __attribute__((unused)) = { 0, 3, 4, SD_COUNTS_MAX_GAMMA + 1 };
/* The gammas bits 3-4 pick: GAMMAS, unless a harness points this elsewhere before its
 * first input (llama_timings: its counts exist at gamma 1 only). */
static const size_t *fuzz_gammas __attribute__((unused)) = GAMMAS;

static char dir[4096] __attribute__((unused));

/* A scratch file of this harness holding data[0..size-1]; its path. */
FUZZ_FN const char *scratch(const char *name, const uint8_t *data, size_t size)
{
    static char path[2][4200];
    int k = name[0] == 's';
    if (dir[0] == '\0') {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/specdec-fuzz-counters-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (mkdtemp(dir) == NULL) {
            perror("fuzz_counters: mkdtemp");
            abort();
        }
    }
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    FILE *f = fopen(path[k], "wb");
    if (f == NULL || (size > 0 && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror("fuzz_counters: scratch file");
        abort();
    }
    return path[k];
}

FUZZ_FN int whole(double x)
{
    return isfinite(x) && x >= 0.0 && x <= 9007199254740992.0 && floor(x) == x;
}

FUZZ_FN void check_notes(const sd_counts *c)
{
    size_t len = strnlen(c->notes, sizeof c->notes);
    CHECK(len < sizeof c->notes, "notes not NUL-terminated");
    for (size_t i = 0; i < len; i++)
        CHECK((unsigned char)c->notes[i] >= 0x20 && c->notes[i] != 0x7f, "notes: control byte 0x%02x at %zu",
              (unsigned char)c->notes[i], i);
}

/* 1 for the formats whose reached[] is reconstructed from the drafted tokens (llama.cpp's). */
FUZZ_FN int assumes_reached(const sd_counts *c)
{
    return strcmp(c->format, "llama.cpp") == 0 || strcmp(c->format, "llama-speculative") == 0;
}

/* 1 for the counts whose reached[] is the source's own count of the drafts that drafted each
 * position (TensorRT-LLM's drafted tokens in a scrape): it sums to the draft tokens. */
FUZZ_FN int measures_reached(const sd_counts *c)
{
    return strcmp(c->format, "prometheus") == 0 && c->has_positions &&
           strstr(c->notes, "Read TensorRT-LLM's metrics") != NULL;
}

FUZZ_FN void check_positions(const sd_counts *c)
{
    double sum_r = 0.0, sum_a = 0.0;
    for (size_t i = 0; i < SD_COUNTS_MAX_GAMMA; i++) {
        double a = c->accepted_at[i], r = c->reached[i];
        CHECK(whole(a) && whole(r), "position %zu: accepted_at %.17g, reached %.17g not whole", i, a, r);
        if (i >= c->gamma) {
            CHECK(a == 0.0 && r == 0.0, "position %zu beyond gamma %zu: %.17g, %.17g", i, c->gamma, a, r);
            continue;
        }
        CHECK(a <= (i ? c->accepted_at[i - 1] : c->drafts), "accepted_at rises at %zu", i);
        CHECK(a <= r && r <= c->drafts, "position %zu: accepted_at %.17g, reached %.17g, drafts %.17g", i, a, r,
              c->drafts);
        CHECK(i == 0 || r <= c->reached[i - 1], "reached rises at %zu", i);
        CHECK(c->has_positions || a == 0.0, "accepted_at[%zu] = %.17g without positions", i, a);
        if (measures_reached(c))
            CHECK(!c->reached_assumed, "%s: reached assumed", c->format);
        else if (!assumes_reached(c))
            CHECK(r == c->drafts && !c->reached_assumed, "%s: reached[%zu] = %.17g, drafts %.17g", c->format, i, r,
                  c->drafts);
        sum_r += r;
        sum_a += a;
    }
    if (assumes_reached(c) || measures_reached(c))
        CHECK(sum_r == c->draft_tokens, "%s: reached sums to %.17g, draft tokens %.17g", c->format, sum_r,
              c->draft_tokens);
    if (c->kind == SD_COUNTS_PREFIX && c->has_positions)
        CHECK(sum_a == c->accepted_tokens, "accepted_at sums to %.17g, accepted tokens %.17g", sum_a,
              c->accepted_tokens);
}

/* A gauge (counters.h): gamma and a mean accepted in [0, gamma], no counts, no positions. */
FUZZ_FN void check_gauge(const sd_counts *c)
{
    CHECK(strcmp(c->format, "sglang") == 0 || strcmp(c->format, "trtllm-bench") == 0 ||
              strcmp(c->format, "speculation-profile") == 0 || strcmp(c->format, "prometheus") == 0,
          "a gauge from %s", c->format);
    CHECK(c->mean_accepted >= 0.0 && c->mean_accepted <= (double)c->gamma, "gauge: mean %.17g, gamma %zu",
          c->mean_accepted, c->gamma);
    CHECK(c->drafts == 0.0 && c->draft_tokens == 0.0 && c->accepted_tokens == 0.0 && !c->has_positions &&
              !c->has_emitted && c->kind == SD_COUNTS_PREFIX,
          "gauge with counts");
    for (size_t i = 0; i < SD_COUNTS_MAX_GAMMA; i++)
        CHECK(c->accepted_at[i] == 0.0 && c->reached[i] == 0.0, "gauge: position %zu", i);
}

FUZZ_FN void check_counts(const sd_counts *c, const sd_counts_options *o)
{
    const char *const *f = sd_counters_formats();
    int known = 0;
    CHECK(strnlen(c->format, sizeof c->format) < sizeof c->format, "format not NUL-terminated");
    for (size_t i = 0; f[i]; i++)
        known |= strcmp(c->format, f[i]) == 0;
    CHECK(known, "format '%s' is not in the table", c->format);
    CHECK(o == NULL || o->format == NULL || strcmp(o->format, c->format) == 0, "asked %s, read %s", o->format,
          c->format);
    CHECK(c->gamma >= 1 && c->gamma <= SD_COUNTS_MAX_GAMMA, "gamma %zu", c->gamma);
    CHECK(o == NULL || o->gamma == 0 || o->gamma == c->gamma, "gamma %zu given, %zu read", o ? o->gamma : 0, c->gamma);
    CHECK(c->gauge == 0 || c->gauge == 1, "gauge %d", c->gauge);
    if (c->gauge) {
        check_gauge(c);
        check_notes(c);
        return;
    }
    CHECK(c->mean_accepted == 0.0, "mean_accepted %.17g without a gauge", c->mean_accepted);
    CHECK(whole(c->drafts) && whole(c->draft_tokens) && whole(c->accepted_tokens), "counts %.17g %.17g %.17g",
          c->drafts, c->draft_tokens, c->accepted_tokens);
    CHECK(c->drafts >= 1.0, "drafts %.17g", c->drafts);
    CHECK(c->accepted_tokens <= c->draft_tokens && c->draft_tokens <= c->drafts * (double)c->gamma,
          "accepted %.17g, draft tokens %.17g, drafts %.17g x %zu", c->accepted_tokens, c->draft_tokens, c->drafts,
          c->gamma);
    CHECK(c->kind == SD_COUNTS_PREFIX || (c->kind == SD_COUNTS_ANY && strcmp(c->format, "vllm-v0") == 0 &&
                                          !c->has_positions),
          "kind %d from %s", (int)c->kind, c->format);
    CHECK(c->has_positions == 0 || c->has_positions == 1, "has_positions %d", c->has_positions);
    check_positions(c);
    check_notes(c);
}

/* Written as vLLM's counters and read back: the same counts. */
FUZZ_FN void check_round_trip(const sd_counts *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    sd_error err;
    clear_error(&err);
    if (m == NULL)
        abort();
    sd_status st = sd_counters_write_prometheus(c, m, &err);
    fclose(m);
    CHECK(st == SD_OK, "sd_counters_write_prometheus refused loaded counts: %s", err.msg);
    const char *path = scratch("trip", (const uint8_t *)buf, len);
    free(buf);
    sd_counts b;
    clear_error(&err);
    st = sd_counters_load(path, NULL, &b, &err);
    CHECK(st == SD_OK, "written counts do not load: %s", err.msg);
    CHECK(strcmp(b.format, "prometheus") == 0 && b.gamma == c->gamma && b.drafts == c->drafts &&
              b.draft_tokens == c->draft_tokens && b.accepted_tokens == c->accepted_tokens && b.has_positions,
          "round trip: gamma %zu/%zu drafts %.17g/%.17g", b.gamma, c->gamma, b.drafts, c->drafts);
    for (size_t i = 0; i < c->gamma; i++)
        CHECK(b.accepted_at[i] == c->accepted_at[i] && b.reached[i] == c->drafts, "round trip: position %zu", i);
}

/* The named load read what detection reads as this format: the same counts. */
FUZZ_FN void check_named_as_detected(const char *path, const sd_counts_options *o, sd_status st, const sd_counts *c,
                                     const char *format)
{
    sd_counts_options any = *o;
    sd_counts d;
    sd_error err;
    memset(&d, 0xa5, sizeof d);
    clear_error(&err);
    any.format = NULL;
    if (sd_counters_load(path, &any, &d, &err) != SD_OK || strcmp(d.format, format) != 0)
        return;
    CHECK(st == SD_OK && memcmp(c, &d, sizeof d) == 0, "detected as %s and read, but named it reads otherwise",
          format);
}

/* One input of a counters harness (the layout above); format: NULL for fuzz_counters, else
 * the per-reader harness's format; scrape: 1 when select and since apply (fuzz_counters, and
 * the format that takes them). */
FUZZ_FN int fuzz_counters_input(const uint8_t *data, size_t size, const char *format, int scrape)
{
    if (size == 0)
        return 0;
    unsigned op = data[0];
    const uint8_t *file = data + 1;
    size_t fsize = size - 1;
    sd_counts_options o = { 0 };
    const char *const *f = sd_counters_formats();
    o.format = format ? format : (op & 7) == 0 ? NULL : (op & 7) == 7 ? "bogus" : f[(op & 7) - 1];
    o.gamma = fuzz_gammas[op >> 3 & 3];
    o.select = scrape && op & 32 ? "engine=1" : NULL;
    if (scrape && op & 64) {
        const uint8_t *ff = memchr(file, '\f', fsize);
        size_t n = ff ? (size_t)(ff - file) : 0;
        o.since = scratch("since", file, n);
        file += ff ? n + 1 : 0;
        fsize -= ff ? n + 1 : 0;
    }
    const sd_counts_options *opt = format == NULL && op & 128 ? NULL : &o;
    const char *path = fuzz_file(file, fsize);

    sd_counts c, again, sentinel;
    memset(&c, 0xa5, sizeof c);
    sentinel = c;
    again = c;
    sd_error err;
    clear_error(&err);
    sd_status st = sd_counters_load(path, opt, &c, &err);
    CHECK(st == SD_OK || st == SD_EINVAL || st == SD_ENOMEM, "status %d", (int)st);
    sd_error err2;
    clear_error(&err2);
    CHECK(sd_counters_load(path, opt, &again, &err2) == st && memcmp(&c, &again, sizeof c) == 0,
          "a second load differs: [%s] [%s]", err.msg, err2.msg);
    if (format != NULL)
        check_named_as_detected(path, &o, st, &c, format);
    if (st != SD_OK) {
        CHECK(memcmp(&c, &sentinel, sizeof c) == 0, "failed but wrote *out: %s", err.msg);
        check_message(&err, "sd_counters_load");
        CHECK(strncmp(err.msg, path, strlen(path)) == 0 ||
                  (opt && opt->since && strncmp(err.msg, opt->since, strlen(opt->since)) == 0),
              "message does not start with the path: [%s]", err.msg);
        return 0;
    }
    check_counts(&c, opt);
    if (c.kind == SD_COUNTS_PREFIX && c.has_positions)
        check_round_trip(&c);
    return 0;
}

#endif

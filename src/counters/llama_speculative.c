/* llama_speculative.c -- the llama-speculative reader: the final counters of llama.cpp's
 * speculative examples (see counters_impl.h).
 *
 * Source: ggml-org/llama.cpp, examples/speculative/speculative.cpp @
 * 007d71358afee62ef906904edc79fec9b2d728fa and examples/speculative-simple/
 * speculative-simple.cpp @ 08d0baaca6745ecaec3a75cccf63b533646ead22, which print through
 * LOG_INF (payload anywhere in the line: builds may prefix a timestamp and level):
 *   "n_draft   = %d\n"    params.speculative.draft.n_max (--draft-max): gamma, the longest draft
 *   "n_predict = %d\n"    every emitted token
 *   "n_drafted = %d\n"    drafted tokens (speculative-simple: += draft.size(); speculative.cpp:
 *                         one per draft decode step, tokens for a chain, n_parallel 1)
 *   "n_accept  = %d\n"    accepted draft tokens, up to the first mismatch (kind PREFIX)
 *   "accept    = %.3f%%\n"  100 n_accept / n_drafted
 * The number of drafts is not printed.  Every verification emits its accepted prefix and one
 * more token (speculative-simple: n_predict += ids.size(), n_accept += ids.size() - 1), so
 * the verifications are n_predict - n_accept, and this reader takes them as the drafts.
 * Uncertain: whether the first token (sampled from the prompt) is in n_predict -- if so the
 * drafts are one too many -- and rounds whose draft came out empty (--draft-p-min stopping
 * at the first token, or a draft shorter than --draft-min discarded) are verifications
 * without drafted tokens: when n_drafted is below n_predict - n_accept the drafts are not
 * determined and the input is refused.  Drafts can be shorter than n_draft (p_min stops
 * early) and their lengths are not printed: reached[] is assumed as derive.h's fill_reached
 * makes it (drafts as equal in length as the counts allow) and the notes say so.  A
 * speculative-simple log also holds llama.cpp's "statistics" lines (llama_cpp.c): such a
 * file has lines of both formats, and the format must be named. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "counters_impl.h"
#include "derive.h"

enum { L_DRAFT, L_PREDICT, L_DRAFTED, L_ACCEPT, L_RATE, L_N };
static const char *const KEYS[L_N] = { "n_draft", "n_predict", "n_drafted", "n_accept", "accept" };

/* The field of line: its payload "KEY = value" to the end of the line, the key a whole word
 * and the value free of ',' and '=' (so "n_ctx = 4096, n_predict = 256, ..." parameter lines
 * are not fields); *v: the value's span.  -1 when it is none. */
static int ls_field(const char *line, const char **v, size_t *vn)
{
    for (int k = 0; k < L_N; k++) {
        const char *m = line;
        size_t kn = strlen(KEYS[k]);
        while ((m = strstr(m, KEYS[k])) != NULL) {
            int starts = m == line || sd_text_blank(m[-1]);
            const char *e = sd_text_skip_blank(m + kn);
            if (starts && (m[kn] == ' ' || m[kn] == '=') && *e == '=' && strpbrk(e + 1, ",=") == NULL) {
                *v = sd_text_skip_blank(e + 1);
                *vn = strlen(*v);
                sd_text_trim(v, vn);
                return k;
            }
            m += kn;
        }
    }
    return -1;
}

static sd_status llama_speculative_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    uint64_t v[L_N] = { 0 };
    size_t at[L_N] = { 0 };
    double rate = 0.0, hrate = 0.0;
    for (size_t i = 0; i < t->n; i++) {
        const char *s;
        size_t n;
        int k = ls_field(t->line[i], &s, &n);
        if (k < 0)
            continue;
        int ok = at[k] == 0;
        if (k == L_RATE)
            ok = ok && n > 1 && s[n - 1] == '%' && sd_text_decimal(s, n - 1, &rate, &hrate);
        else
            ok = ok && sd_text_count(s, n, &v[k]);
        if (!ok)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: llama.cpp speculative counters: %s '%s'", cx->path,
                                  i + 1, at[k] ? "a second" : "cannot read", t->line[i]);
        at[k] = i + 1;
    }
    for (int k = 0; k < L_RATE; k++)
        if (at[k] == 0)
            return sd_status_fail(cx->err, SD_EINVAL, "%s: llama.cpp speculative counters without '%s = N'", cx->path,
                                  KEYS[k]);
    uint64_t g = v[L_DRAFT], P = v[L_PREDICT], D = v[L_DRAFTED], A = v[L_ACCEPT];
    if (g < 1 || g > MAXG)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: n_draft = %llu: gamma must be in [1, %d]", cx->path,
                              at[L_DRAFT], (unsigned long long)g, MAXG);
    sd_status st = sd_counts_gamma_agrees(cx, at[L_DRAFT], (size_t)g, "n_draft = %llu", (unsigned long long)g);
    if (st != SD_OK)
        return st;
    if (A > D || A >= P)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: n_accept = %llu, n_drafted = %llu, n_predict = %llu: expected n_accept <= "
                              "n_drafted and n_accept < n_predict",
                              cx->path, at[L_ACCEPT], (unsigned long long)A, (unsigned long long)D,
                              (unsigned long long)P);
    if (at[L_RATE] && D > 0 && !(fabs(100.0 * (double)A / (double)D - rate) <= sd_derive_widen(hrate)))
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: accept = %.6g%% is not 100 n_accept / n_drafted = %.6g%%",
                              cx->path, at[L_RATE], rate, 100.0 * (double)A / (double)D);
    uint64_t n = P - A;
    if (D < n || (double)D > (double)n * (double)g)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: n_drafted = %llu tokens in n_predict - n_accept = %llu verifications of at "
                              "most n_draft = %llu: %s",
                              cx->path, at[L_DRAFTED], (unsigned long long)D, (unsigned long long)n,
                              (unsigned long long)g,
                              D < n ? "some verifications drafted nothing, so the drafts are not determined"
                                    : "more than the drafts can hold");
    c->gamma = (size_t)g;
    c->drafts = (double)n;
    c->draft_tokens = (double)D;
    c->accepted_tokens = (double)A;
    if (!sd_derive_fill_reached(n, D, NULL, 0, (size_t)g, c->reached))
        return sd_status_fail(cx->err, SD_EINVAL, "%s: %llu drafted tokens cannot be drafted in %llu drafts",
                              cx->path, (unsigned long long)D, (unsigned long long)n);
    c->reached_assumed = D < n * g;
    sd_counts_note(c,
                   "llama.cpp speculative example: gamma = n_draft = %llu (--draft-max); drafts = n_predict - "
                   "n_accept = %llu verifications (each emits its accepted prefix and one token; the first token, "
                   "if counted in n_predict, adds one).",
                   (unsigned long long)g, (unsigned long long)n);
    sd_counts_note(c, "Prefix counts without per-position data.");
    if (c->reached_assumed)
        sd_counts_note(c,
                       "n_drafted = %llu is below drafts x %llu: some drafts were shorter; how many reached each "
                       "position is not printed and is assumed (drafts as equal in length as the counts allow).",
                       (unsigned long long)D, (unsigned long long)g);
    return SD_OK;
}

static int llama_speculative_detect(const char *line, int first)
{
    const char *v;
    size_t vn;
    (void)first;
    int k = ls_field(line, &v, &vn);
    return k == L_DRAFTED || k == L_ACCEPT || k == L_DRAFT || k == L_PREDICT;
}

/* The row of llama-speculative: the final counters of llama.cpp's speculative examples
 * ("n_draft =", "n_predict =", "n_drafted =", "n_accept =", "accept =").  detect: any of the
 * first four.  read: gamma = n_draft, drafts = n_predict - n_accept, no positions, reached[]
 * assumed. */
const sd_counters_reader sd_counters_reader_llama_speculative = {
    .name = "llama-speculative",
    .by = SD_COUNTERS_BY_LOG_LINE,
    .detect = llama_speculative_detect,
    .read = llama_speculative_read,
};

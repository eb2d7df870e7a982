/* fuzz_partial.c -- the partial results of sharded runs (partial.h): read, write, merge.
 *
 * Input: the bytes of a stream that `specdec merge -` would read (one or
 * more partials one after the other).  Properties:
 *   - sd_partial_read never crashes; on failure it leaves its output alone
 *     and says one non-empty line naming the stream ("fuzz" or "fuzz:LINE");
 *   - every partial it accepts has 1 <= shard <= nshards, runs whose
 *     shapes are within the documented bounds, finite non-negative chunk
 *     sums and alpha_hat in [0, 1], and replica sets within theirs;
 *   - writing an accepted partial and reading it back gives the same text
 *     again (the form is exact: counts in decimal, sums as hex floats);
 *   - sd_partial_merge of everything read either succeeds -- then the
 *     merged counts are the sums of the parts' counts and every merged
 *     replication is the one part's that has it -- or fails with one line,
 *     its output untouched.
 */
#include <math.h>

#include "fuzz_common.h"

/* p written to a memory stream: malloc'd text, its length in *len. */
static char *write_text(const sd_partial *p, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (f == NULL)
        abort();
    sd_error err;
    CHECK(sd_partial_write(p, f, &err) == SD_OK, "sd_partial_write failed on a partial it read: %s", err.msg);
    fclose(f);
    return buf;
}

static void check_partial(const sd_partial *p)
{
    CHECK(p->shard >= 1 && p->shard <= p->nshards, "shard %u of %u", p->shard, p->nshards);
    for (size_t r = 0; r < p->nruns; r++) {
        const sd_engine_stats *s = &p->runs[r].stats;
        CHECK(s->nchunks >= 1 && s->max_n == s->max_gamma + 1, "run %zu: %zu chunks, max_n %zu", r, s->nchunks,
              s->max_n);
        CHECK(s->alpha_hat >= 0.0 && s->alpha_hat <= 1.0, "run %zu: alpha_hat %.17g", r, s->alpha_hat);
        for (size_t k = 0; k < s->nchunks; k++)
            CHECK(isfinite(s->chunk_beta[k]) && s->chunk_beta[k] >= 0.0, "run %zu: chunk %zu sum %.17g", r, k,
                  s->chunk_beta[k]);
    }
    for (size_t r = 0; r < p->nreplicas; r++) {
        const sd_partial_replicas *x = &p->replicas[r];
        CHECK(x->nslots >= 1 && x->nslots <= (1u << 20) && x->nfields >= 1 && x->nfields <= 256 &&
              x->nslots * x->nfields <= (1u << 24), "replica set %zu: %zu slots of %zu fields", r, x->nslots,
              x->nfields);
        for (size_t k = 0; k < x->nslots; k++)
            CHECK(x->have[k] <= 1, "replica set %zu: slot %zu have %u", r, k, x->have[k]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *in = fmemopen((void *)(uintptr_t)data, size ? size : 1, "r");
    if (in == NULL)
        abort();
    if (size == 0)
        fgetc(in); /* an empty stream */
    enum { MAX_PARTS = 8 };
    sd_partial parts[MAX_PARTS];
    const char *names[MAX_PARTS];
    size_t n = 0, line = 0;
    for (;;) {
        sd_partial p = { .shard = 4242 };
        int got = 7;
        sd_error err;
        clear_error(&err);
        sd_status st = sd_partial_read(in, "fuzz", &line, &p, &got, &err);
        if (st != SD_OK) {
            CHECK(p.shard == 4242 && p.nruns == 0 && p.runs == NULL, "sd_partial_read failed but wrote");
            CHECK(got == 0, "sd_partial_read failed but said it got a partial");
            check_message(&err, "sd_partial_read");
            CHECK(strncmp(err.msg, "fuzz", 4) == 0, "the message does not name the stream: [%s]", err.msg);
            break;
        }
        if (!got)
            break;
        check_partial(&p);
        /* the text form is exact: write, read, write gives the same text */
        size_t len1, len2;
        char *t1 = write_text(&p, &len1);
        FILE *again = fmemopen(t1, len1, "r");
        sd_partial q;
        size_t l2 = 0;
        int got2;
        CHECK(sd_partial_read(again, "again", &l2, &q, &got2, &err) == SD_OK && got2, "own text refused: %s", err.msg);
        fclose(again);
        char *t2 = write_text(&q, &len2);
        CHECK(len1 == len2 && memcmp(t1, t2, len1) == 0, "write/read/write differs");
        free(t1);
        free(t2);
        sd_partial_free(&q);
        if (n < MAX_PARTS) {
            names[n] = "part";
            parts[n++] = p;
        } else
            sd_partial_free(&p);
    }
    fclose(in);
    if (n > 0) {
        sd_partial m = { .shard = 4242 };
        sd_error err;
        clear_error(&err);
        if (sd_partial_merge(parts, names, n, &m, &err) == SD_OK) {
            CHECK(m.shard == 1 && m.nshards == 1 && m.nruns == parts[0].nruns, "merged shard %u/%u", m.shard,
                  m.nshards);
            for (size_t r = 0; r < m.nruns; r++) {
                uint64_t tokens = 0;
                for (size_t i = 0; i < n; i++)
                    tokens += parts[i].runs[r].stats.tokens;
                CHECK(m.runs[r].stats.tokens == tokens, "merged tokens %llu, the parts' sum %llu",
                      (unsigned long long)m.runs[r].stats.tokens, (unsigned long long)tokens);
            }
            CHECK(m.nreplicas == parts[0].nreplicas, "merged %zu replica sets of %zu", m.nreplicas,
                  parts[0].nreplicas);
            for (size_t r = 0; r < m.nreplicas; r++) {
                const sd_partial_replicas *x = &m.replicas[r];
                for (size_t k = 0; k < x->nslots; k++) {
                    size_t owners = 0, from = 0;
                    for (size_t i = 0; i < n; i++)
                        if (parts[i].replicas[r].have[k])
                            owners++, from = i;
                    CHECK(x->have[k] == 1 && owners == 1, "merged slot %zu of set %zu: %zu owners", k, r, owners);
                    CHECK(memcmp(x->value + k * x->nfields, parts[from].replicas[r].value + k * x->nfields,
                                 x->nfields * sizeof(double)) == 0, "merged slot %zu of set %zu differs from its part's",
                          k, r);
                }
            }
            sd_partial_free(&m);
        } else {
            CHECK(m.shard == 4242 && m.runs == NULL, "sd_partial_merge failed but wrote");
            check_message(&err, "sd_partial_merge");
        }
    }
    for (size_t i = 0; i < n; i++)
        sd_partial_free(&parts[i]);
    return 0;
}

/* partial.c -- partial results of sharded runs: copy, text form, merge (see partial.h). */
#include "specdec/partial.h"
#include "engine_stats_impl.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the arrays of a run's statistics, by name, in the text's order ---------------------- */

typedef struct {
    const char *name;
    uint64_t **field; /* into the stats */
    size_t n;         /* its length */
    int optional;     /* NULL when absent (out_counts, moves) */
} array_ref;

enum { NARRAYS = 7 };

static void arrays_of(sd_engine_stats *s, array_ref a[NARRAYS])
{
    a[0] = (array_ref){ "n_hist", &s->n_hist, s->max_gamma + 2, 0 };
    a[1] = (array_ref){ "reached", &s->reached, s->max_gamma, 0 };
    a[2] = (array_ref){ "accepted_at", &s->accepted_at, s->max_gamma, 0 };
    a[3] = (array_ref){ "ctx_tokens", &s->ctx_tokens, s->contexts, 0 };
    a[4] = (array_ref){ "out_counts", &s->out_counts, s->contexts * s->vocab, 1 };
    a[5] = (array_ref){ "pos_counts", &s->pos_counts, s->positions * s->vocab, 0 };
    a[6] = (array_ref){ "moves", &s->moves, 2 * (s->max_gamma + 1) * SD_MOVE_BINS, 1 };
}

/* Arrays for a run of this shape, zeroed (the engine's allocation); out_counts
 * and moves when asked; nchunks chunk sums. */
static sd_status stats_shape(sd_engine_stats *s, size_t max_gamma, size_t vocab, size_t contexts, size_t positions,
                             int moves, int outputs, size_t nchunks, sd_error *err)
{
    sd_status st = sd_engine_stats_alloc(s, max_gamma, vocab, contexts, positions, moves, outputs, err);
    if (st != SD_OK)
        return st;
    s->nchunks = nchunks;
    if ((s->chunk_beta = calloc(nchunks ? nchunks : 1, sizeof *s->chunk_beta)) == NULL) {
        sd_engine_stats_free(s);
        return sd_status_fail(err, SD_ENOMEM, "out of memory for a run's statistics");
    }
    return SD_OK;
}

static sd_status stats_copy(sd_engine_stats *dst, const sd_engine_stats *src, sd_error *err)
{
    sd_status st = stats_shape(dst, src->max_gamma, src->vocab, src->contexts, src->positions, src->moves != NULL,
                               src->out_counts != NULL, src->nchunks, err);
    if (st != SD_OK)
        return st;
    sd_engine_stats body = *src;
    array_ref a[NARRAYS], b[NARRAYS];
    arrays_of(dst, a);
    arrays_of(&body, b);
    for (int i = 0; i < NARRAYS; i++)
        if (*b[i].field != NULL)
            memcpy(*a[i].field, *b[i].field, a[i].n * sizeof(uint64_t));
    memcpy(dst->chunk_beta, src->chunk_beta, src->nchunks * sizeof(double));
    dst->iterations = src->iterations;
    dst->tokens = src->tokens;
    dst->sequences = src->sequences;
    dst->draft_calls = src->draft_calls;
    dst->target_calls = src->target_calls;
    dst->target_positions = src->target_positions;
    dst->verified = src->verified;
    dst->accepted = src->accepted;
    dst->alpha_hat = src->alpha_hat;
    return SD_OK;
}

/* ---- building and freeing ------------------------------------------------------------------ */

sd_partial sd_partial_init(uint32_t shard, uint32_t nshards)
{
    return (sd_partial){ .shard = shard, .nshards = nshards };
}

sd_status sd_partial_add_context(sd_partial *p, const char *text, sd_error *err)
{
    char **c = realloc(p->context, (p->ncontext + 1) * sizeof *c);
    char *copy = strdup(text);
    if (c != NULL)
        p->context = c;
    if (c == NULL || copy == NULL) {
        free(copy);
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    }
    p->context[p->ncontext++] = copy;
    return SD_OK;
}

sd_status sd_partial_add_run(sd_partial *p, uint64_t fingerprint, const sd_engine_stats *s, sd_error *err)
{
    sd_partial_run *r = realloc(p->runs, (p->nruns + 1) * sizeof *r);
    if (r == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    p->runs = r;
    sd_status st = stats_copy(&r[p->nruns].stats, s, err);
    if (st == SD_OK)
        r[p->nruns++].fingerprint = fingerprint;
    return st;
}

enum { SLOTS_MAX = 1u << 20, FIELDS_MAX = 256, VALUES_MAX = 1u << 24 };

sd_status sd_partial_add_replicas(sd_partial *p, uint64_t fingerprint, size_t nslots, size_t nfields,
                                  const double *value, const unsigned char *have, sd_error *err)
{
    if (nslots < 1 || nslots > SLOTS_MAX || nfields < 1 || nfields > FIELDS_MAX || nslots * nfields > VALUES_MAX)
        return sd_status_fail(err, SD_EINVAL, "replicas: %zu slots of %zu fields is outside 1..%u slots, 1..%u fields, "
                              "%u values", nslots, nfields, SLOTS_MAX, FIELDS_MAX, VALUES_MAX);
    sd_partial_replicas *r = realloc(p->replicas, (p->nreplicas + 1) * sizeof *r);
    if (r == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    p->replicas = r;
    sd_partial_replicas x = { fingerprint, nslots, nfields, calloc(nslots * nfields, sizeof(double)),
                              calloc(nslots, 1) };
    if (x.value == NULL || x.have == NULL) {
        free(x.value);
        free(x.have);
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < nslots; k++)
        if ((x.have[k] = have[k] != 0))
            memcpy(x.value + k * nfields, value + k * nfields, nfields * sizeof(double));
    r[p->nreplicas++] = x;
    return SD_OK;
}

void sd_partial_free(sd_partial *p)
{
    for (size_t i = 0; i < p->ncontext; i++)
        free(p->context[i]);
    for (size_t i = 0; i < p->nruns; i++)
        sd_engine_stats_free(&p->runs[i].stats);
    for (size_t i = 0; i < p->nreplicas; i++) {
        free(p->replicas[i].value);
        free(p->replicas[i].have);
    }
    free(p->context);
    free(p->runs);
    free(p->replicas);
    *p = (sd_partial){ 0 };
}

/* ---- writing ----------------------------------------------------------------------------- */

static void write_encoded(const char *text, FILE *out)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if (*c <= 0x20 || *c == '%' || *c >= 0x7f)
            fprintf(out, "%%%02X", *c);
        else
            fputc(*c, out);
}

sd_status sd_partial_write(const sd_partial *p, FILE *out, sd_error *err)
{
    fprintf(out, "specdec-partial 1\nshard %" PRIu32 " %" PRIu32 "\n", p->shard, p->nshards);
    for (size_t i = 0; i < p->ncontext; i++) {
        fputs("context ", out);
        write_encoded(p->context[i], out);
        fputc('\n', out);
    }
    for (size_t r = 0; r < p->nruns; r++) {
        sd_engine_stats s = p->runs[r].stats;
        fprintf(out, "run %016" PRIx64 " %zu %zu %zu %zu %d %d %zu\n", p->runs[r].fingerprint, s.max_gamma, s.vocab,
                s.contexts, s.positions, s.moves != NULL, s.out_counts != NULL, s.nchunks);
        fprintf(out, "scalars %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                     " %" PRIu64 "\n",
                s.iterations, s.tokens, s.sequences, s.draft_calls, s.target_calls, s.target_positions, s.verified,
                s.accepted);
        array_ref a[NARRAYS];
        arrays_of(&s, a);
        for (int i = 0; i < NARRAYS; i++) {
            const uint64_t *v = *a[i].field;
            if (v == NULL)
                continue;
            size_t nnz = 0;
            for (size_t k = 0; k < a[i].n; k++)
                nnz += v[k] != 0;
            fprintf(out, "%s %zu", a[i].name, nnz);
            for (size_t k = 0; k < a[i].n; k++)
                if (v[k] != 0)
                    fprintf(out, " %zu:%" PRIu64, k, v[k]);
            fputc('\n', out);
        }
        size_t nnz = 0;
        for (size_t k = 0; k < s.nchunks; k++)
            nnz += s.chunk_beta[k] > 0.0; /* sums of beta are >= 0 */
        fprintf(out, "beta %zu", nnz);
        for (size_t k = 0; k < s.nchunks; k++)
            if (s.chunk_beta[k] > 0.0)
                fprintf(out, " %zu:%a", k, s.chunk_beta[k]);
        fputs("\nend-run\n", out);
    }
    for (size_t i = 0; i < p->nreplicas; i++) {
        const sd_partial_replicas *x = &p->replicas[i];
        fprintf(out, "replicas %016" PRIx64 " %zu %zu\n", x->fingerprint, x->nslots, x->nfields);
        for (size_t k = 0; k < x->nslots; k++) {
            if (!x->have[k])
                continue;
            fprintf(out, "slot %zu", k);
            for (size_t f = 0; f < x->nfields; f++)
                fprintf(out, " %a", x->value[k * x->nfields + f]);
            fputc('\n', out);
        }
        fputs("end-replicas\n", out);
    }
    if (p->nreplicas)
        fprintf(out, "end %zu %zu\n", p->nruns, p->nreplicas);
    else
        fprintf(out, "end %zu\n", p->nruns);
    if (fflush(out) != 0 || ferror(out))
        return sd_status_fail(err, SD_EIO, "cannot write the partial result: %s", strerror(errno ? errno : EIO));
    return SD_OK;
}

/* ---- reading ----------------------------------------------------------------------------- */

typedef struct {
    FILE *in;
    const char *name;
    size_t *line;
    char *buf;
    size_t cap;
    sd_error *err;
} reader;

/* The next line without its newline into r->buf; 0 at end of input. */
static int next_line(reader *r)
{
    ssize_t n = getline(&r->buf, &r->cap, r->in);
    if (n < 0)
        return 0;
    ++*r->line;
    if (n > 0 && r->buf[n - 1] == '\n')
        r->buf[--n] = '\0';
    if (strlen(r->buf) != (size_t)n) { /* a NUL byte inside: nothing a partial holds */
        r->buf[0] = '\x01';
        r->buf[1] = '\0';
    }
    return 1;
}

static sd_status bad(reader *r, const char *what)
{
    return sd_status_fail(r->err, SD_EINVAL, "%s:%zu: %s", r->name, *r->line, what);
}

/* A line that must come now: "KEY ..." -> the rest after "KEY ". */
static sd_status expect_line(reader *r, const char *key, char **rest)
{
    char what[96];
    if (!next_line(r)) {
        snprintf(what, sizeof what, "truncated: ends where a '%s' line should follow", key);
        return sd_status_fail(r->err, SD_EINVAL, "%s: %s", r->name, what);
    }
    size_t k = strlen(key);
    if (strncmp(r->buf, key, k) != 0 || (r->buf[k] != ' ' && r->buf[k] != '\0')) {
        snprintf(what, sizeof what, "expected a '%s' line", key);
        return bad(r, what);
    }
    *rest = r->buf + k + (r->buf[k] == ' ');
    return SD_OK;
}

/* Unsigned decimal at *s (advanced), at most max. */
static int read_u64(char **s, uint64_t max, uint64_t *out)
{
    char *end;
    if (!(**s >= '0' && **s <= '9'))
        return 0;
    errno = 0;
    unsigned long long v = strtoull(*s, &end, 10);
    if (errno != 0 || v > max)
        return 0;
    *out = v;
    *s = end;
    return 1;
}

/* "NNZ I:V ..." into v[0..n-1] (zeroed). */
static sd_status read_sparse(reader *r, char *s, uint64_t *v, size_t n, int real, double *dv)
{
    uint64_t nnz, k;
    if (!read_u64(&s, n, &nnz))
        return bad(r, "a count of entries outside the array");
    size_t last = 0;
    for (uint64_t i = 0; i < nnz; i++) {
        if (*s++ != ' ' || !read_u64(&s, n - 1, &k) || *s++ != ':' || (i > 0 && k <= last))
            return bad(r, "an entry 'INDEX:VALUE' malformed, out of range or out of order");
        last = (size_t)k;
        if (real) {
            char *end;
            if (!(s[0] == '0' && s[1] == 'x'))
                return bad(r, "a chunk sum must be a hexadecimal float (0x...)");
            double x = strtod(s, &end);
            if (end == s || !isfinite(x) || !(x > 0.0))
                return bad(r, "a chunk sum that is not a finite positive number");
            dv[k] = x;
            s = end;
        } else {
            uint64_t x;
            if (!read_u64(&s, UINT64_MAX, &x) || x == 0)
                return bad(r, "a count that is not a positive whole number");
            v[k] = x;
        }
    }
    return *s == '\0' ? SD_OK : bad(r, "more entries than its count says");
}

/* A fingerprint of 16 hexadecimal digits at *s (advanced). */
static int read_fingerprint(char **s, uint64_t *out)
{
    for (int k = 0; k < 16; k++)
        if (!isxdigit((unsigned char)(*s)[k]))
            return 0;
    char *end;
    *out = strtoull(*s, &end, 16);
    if (end - *s != 16)
        return 0;
    *s = end;
    return 1;
}

static sd_status read_run(reader *r, char *head, sd_partial *p)
{
    uint64_t f[8] = { 0 }, sc[8] = { 0 };
    /* bounds of what a run can be: SD_ORACLE_MAX, 4194304 tokens, 2^20
     * contexts, SD_POSITIONS_MAX, 2^23 chunks (a chunk emits at least
     * SD_CHUNK_ITERATIONS tokens, and the program's runs at most 10^10);
     * and below 2^28 counters */
    static const uint64_t MAX[8] = { UINT64_MAX, SD_ORACLE_MAX, 4194304, 1u << 20, SD_POSITIONS_MAX, 1, 1, 1u << 23 };
    for (int i = 0; i < 8; i++) {
        if (i == 0) {
            if (!read_fingerprint(&head, &f[0]))
                return bad(r, "a run's fingerprint must be 16 hexadecimal digits");
        } else if (*head++ != ' ' || !read_u64(&head, MAX[i], &f[i]))
            return bad(r, "a run's shape is malformed or out of range");
    }
    if (*head != '\0' || f[2] * f[3] > (1u << 28) || f[4] * f[2] > (1u << 28) || f[7] < 1)
        return bad(r, "a run's shape is malformed or out of range");
    sd_engine_stats s;
    sd_status st = stats_shape(&s, (size_t)f[1], (size_t)f[2], (size_t)f[3], (size_t)f[4], (int)f[5], (int)f[6],
                               (size_t)f[7], r->err);
    if (st != SD_OK)
        return bad(r, "out of memory for this run's statistics");
    char *rest;
    if ((st = expect_line(r, "scalars", &rest)) == SD_OK) {
        for (int i = 0; i < 8 && st == SD_OK; i++)
            if ((i > 0 && *rest++ != ' ') || !read_u64(&rest, UINT64_MAX, &sc[i]))
                st = bad(r, "'scalars' needs 8 whole numbers");
        if (st == SD_OK && *rest != '\0')
            st = bad(r, "'scalars' needs 8 whole numbers");
    }
    s.iterations = sc[0];
    s.tokens = sc[1];
    s.sequences = sc[2];
    s.draft_calls = sc[3];
    s.target_calls = sc[4];
    s.target_positions = sc[5];
    s.verified = sc[6];
    s.accepted = sc[7];
    array_ref a[NARRAYS];
    arrays_of(&s, a);
    for (int i = 0; i < NARRAYS && st == SD_OK; i++)
        if (*a[i].field != NULL && (st = expect_line(r, a[i].name, &rest)) == SD_OK)
            st = read_sparse(r, rest, *a[i].field, a[i].n, 0, NULL);
    if (st == SD_OK && (st = expect_line(r, "beta", &rest)) == SD_OK)
        st = read_sparse(r, rest, NULL, s.nchunks, 1, s.chunk_beta);
    if (st == SD_OK && (st = expect_line(r, "end-run", &rest)) == SD_OK && *rest != '\0')
        st = bad(r, "'end-run' takes nothing after it");
    if (st == SD_OK) {
        sd_engine_stats_finish_alpha(&s); /* as the engine sets it */
        st = sd_partial_add_run(p, f[0], &s, r->err);
    }
    sd_engine_stats_free(&s);
    return st;
}

/* A value of a slot: a C99 hex float, or nan, inf, -inf (as %a writes them). */
static int read_value(char **s, double *out)
{
    char *p = *s, *end;
    const char *body = p + (*p == '-');
    if (!(strncmp(body, "0x", 2) == 0 || strncmp(body, "nan", 3) == 0 || strncmp(body, "inf", 3) == 0))
        return 0;
    *out = strtod(p, &end);
    if (end == p || (*end != ' ' && *end != '\0'))
        return 0;
    *s = end;
    return 1;
}

static sd_status read_replicas(reader *r, char *head, sd_partial *p)
{
    uint64_t fp, nslots, nfields;
    if (!read_fingerprint(&head, &fp))
        return bad(r, "a replica set's fingerprint must be 16 hexadecimal digits");
    if (*head++ != ' ' || !read_u64(&head, SLOTS_MAX, &nslots) || *head++ != ' ' ||
        !read_u64(&head, FIELDS_MAX, &nfields) || *head != '\0' || nslots < 1 || nfields < 1 ||
        nslots * nfields > VALUES_MAX)
        return bad(r, "'replicas FINGERPRINT NSLOTS NFIELDS' needs 1..1048576 slots of 1..256 fields, 2^24 values");
    double *value = calloc((size_t)(nslots * nfields), sizeof *value);
    unsigned char *have = calloc((size_t)nslots, 1);
    sd_status st = SD_OK;
    if (value == NULL || have == NULL)
        st = bad(r, "out of memory for this replica set");
    uint64_t last = 0;
    int any = 0;
    while (st == SD_OK) {
        if (!next_line(r)) {
            st = sd_status_fail(r->err, SD_EINVAL, "%s: truncated: a replica set without its 'end-replicas' line",
                                r->name);
            break;
        }
        if (strcmp(r->buf, "end-replicas") == 0)
            break;
        char *s = r->buf;
        uint64_t k;
        if (strncmp(s, "slot ", 5) != 0 || (s += 5, !read_u64(&s, nslots - 1, &k)) || (any && k <= last)) {
            st = bad(r, "expected 'slot K ...' (K below the set's slots, increasing) or 'end-replicas'");
            break;
        }
        for (uint64_t f = 0; f < nfields && st == SD_OK; f++)
            if (*s++ != ' ' || !read_value(&s, &value[k * nfields + f]))
                st = bad(r, "a slot needs the set's count of values, each a hexadecimal float (0x...), nan or inf");
        if (st == SD_OK && *s != '\0')
            st = bad(r, "a slot has more values than the set's fields");
        have[k] = 1;
        last = k;
        any = 1;
    }
    if (st == SD_OK)
        st = sd_partial_add_replicas(p, fp, (size_t)nslots, (size_t)nfields, value, have, r->err);
    free(value);
    free(have);
    return st;
}

/* Percent-decoding in place; 0 when malformed. */
static int decode(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (*s != '%') {
            if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
                return 0;
            *o++ = *s;
            continue;
        }
        if (!isxdigit((unsigned char)s[1]) || !isxdigit((unsigned char)s[2]))
            return 0;
        char hex[3] = { s[1], s[2], '\0' };
        unsigned long v = strtoul(hex, NULL, 16);
        if (v == 0)
            return 0;
        *o++ = (char)v;
        s += 2;
    }
    *o = '\0';
    return 1;
}

sd_status sd_partial_read(FILE *in, const char *name, size_t *line, sd_partial *out, int *got, sd_error *err)
{
    reader r = { in, name, line, NULL, 0, err };
    sd_partial p = sd_partial_init(0, 0);
    sd_status st = SD_OK;
    *got = 0;
    if (!next_line(&r)) { /* the end of the stream */
        free(r.buf);
        return SD_OK;
    }
    if (strcmp(r.buf, "specdec-partial 1") != 0)
        st = bad(&r, "not a specdec partial result (it must start with 'specdec-partial 1')");
    char *rest;
    uint64_t shard = 0, nshards = 0;
    if (st == SD_OK && (st = expect_line(&r, "shard", &rest)) == SD_OK &&
        !(read_u64(&rest, 1u << 20, &shard) && *rest++ == ' ' && read_u64(&rest, 1u << 20, &nshards) &&
          *rest == '\0' && shard >= 1 && shard <= nshards))
        st = bad(&r, "'shard I N' needs 1 <= I <= N <= 1048576");
    p.shard = (uint32_t)shard;
    p.nshards = (uint32_t)nshards;
    while (st == SD_OK) {
        if (!next_line(&r)) {
            st = sd_status_fail(err, SD_EINVAL, "%s: truncated: no 'end' line", name);
            break;
        }
        if (strncmp(r.buf, "context ", 8) == 0)
            st = decode(r.buf + 8) ? sd_partial_add_context(&p, r.buf + 8, err) : bad(&r, "a malformed context line");
        else if (strncmp(r.buf, "run ", 4) == 0)
            st = p.nreplicas ? bad(&r, "a run after a replica set: runs come first")
                             : read_run(&r, r.buf + 4, &p);
        else if (strncmp(r.buf, "replicas ", 9) == 0)
            st = read_replicas(&r, r.buf + 9, &p);
        else if (strncmp(r.buf, "end ", 4) == 0) {
            uint64_t n, m = 0;
            rest = r.buf + 4;
            if (!read_u64(&rest, SIZE_MAX, &n) || n != p.nruns ||
                (*rest == ' ' ? (rest++, !read_u64(&rest, SIZE_MAX, &m) || m == 0) : 0) || *rest != '\0' ||
                m != p.nreplicas)
                st = bad(&r, "'end N [M]' must count the runs and the replica sets above it (M only when there are any)");
            break;
        } else
            st = bad(&r, "expected a 'context', 'run', 'replicas' or 'end' line");
    }
    free(r.buf);
    if (st != SD_OK) {
        sd_partial_free(&p);
        return st;
    }
    *out = p;
    *got = 1;
    return SD_OK;
}

/* ---- merging ----------------------------------------------------------------------------- */

static int same_context(const sd_partial *a, const sd_partial *b)
{
    if (a->ncontext != b->ncontext)
        return 0;
    for (size_t i = 0; i < a->ncontext; i++)
        if (strcmp(a->context[i], b->context[i]) != 0)
            return 0;
    return 1;
}

/* SD_OK when every part carries what parts[0] does: its context lines, shard count, runs and
 * replica sets of the same fingerprints and shapes; else SD_EINVAL naming the part. */
static sd_status same_job(const sd_partial *parts, const char *const *names, size_t n, sd_error *err)
{
    for (size_t i = 1; i < n; i++) {
        if (!same_context(&parts[i], &parts[0]) || parts[i].nshards != parts[0].nshards ||
            parts[i].nruns != parts[0].nruns || parts[i].nreplicas != parts[0].nreplicas)
            return sd_status_fail(err, SD_EINVAL, "%s: a part of another job than %s (its command, shard count or runs "
                                  "differ)", names[i], names[0]);
        for (size_t r = 0; r < parts[0].nreplicas; r++) {
            const sd_partial_replicas *a = &parts[i].replicas[r], *b = &parts[0].replicas[r];
            if (a->fingerprint != b->fingerprint || a->nslots != b->nslots || a->nfields != b->nfields)
                return sd_status_fail(err, SD_EINVAL, "%s: replica set %zu differs from %s's (another configuration, "
                                      "seed or model): a part of another job", names[i], r + 1, names[0]);
        }
        for (size_t r = 0; r < parts[0].nruns; r++)
            if (parts[i].runs[r].fingerprint != parts[0].runs[r].fingerprint)
                return sd_status_fail(err, SD_EINVAL, "%s: run %zu differs from %s's (another configuration, seed or "
                                      "model): a part of another job", names[i], r + 1, names[0]);
    }
    return SD_OK;
}

/* SD_OK when the parts are the shards 1 .. N of their N, each exactly once; else SD_EINVAL
 * naming the shard that does not exist, is given twice or is missing. */
static sd_status every_shard_once(const sd_partial *parts, const char *const *names, size_t n, sd_error *err)
{
    uint32_t N = parts[0].nshards;
    const char **owner = calloc(N, sizeof *owner);
    if (owner == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    sd_status st = SD_OK;
    for (size_t i = 0; i < n && st == SD_OK; i++) {
        if (!(parts[i].shard >= 1 && parts[i].shard <= N)) {
            st = sd_status_fail(err, SD_EINVAL, "%s: shard %" PRIu32 " of %" PRIu32 " does not exist", names[i],
                                parts[i].shard, N);
            break;
        }
        uint32_t s = parts[i].shard - 1;
        if (owner[s] != NULL)
            st = sd_status_fail(err, SD_EINVAL, "shard %" PRIu32 "/%" PRIu32 " is given twice (%s and %s)", s + 1, N,
                                owner[s], names[i]);
        owner[s] = names[i];
    }
    for (uint32_t s = 0; s < N && st == SD_OK; s++)
        if (owner[s] == NULL)
            st = sd_status_fail(err, SD_EINVAL, "shard %" PRIu32 "/%" PRIu32 " is missing", s + 1, N);
    free(owner);
    return st;
}

/* Run r of every part, its statistics merged, appended to m; SD_EINVAL naming the part whose
 * statistics do not merge, SD_ENOMEM. */
static sd_status merge_run(sd_partial *m, const sd_partial *parts, const char *const *names, size_t n, size_t r,
                           sd_error *err)
{
    sd_status st = sd_partial_add_run(m, parts[0].runs[r].fingerprint, &parts[0].runs[r].stats, err);
    for (size_t i = 1; i < n && st == SD_OK; i++)
        if ((st = sd_engine_stats_merge(&m->runs[r].stats, &parts[i].runs[r].stats, err)) != SD_OK) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            st = sd_status_fail(err, SD_EINVAL, "%s: run %zu: %s", names[i], r + 1, msg);
        }
    return st;
}

/* Replica set r of every part, each slot from the one part that has it, appended to m;
 * SD_EINVAL for a slot given twice or in no part, SD_ENOMEM. */
static sd_status merge_replicas(sd_partial *m, const sd_partial *parts, const char *const *names, size_t n, size_t r,
                                sd_error *err)
{
    const sd_partial_replicas *x = &parts[0].replicas[r];
    double *value = calloc(x->nslots * x->nfields, sizeof *value);
    unsigned char *have = calloc(x->nslots, 1);
    const char **from = calloc(x->nslots, sizeof *from);
    sd_status st = value == NULL || have == NULL || from == NULL ? sd_status_fail(err, SD_ENOMEM, "out of memory")
                                                                 : SD_OK;
    for (size_t i = 0; i < n && st == SD_OK; i++)
        for (size_t k = 0; k < x->nslots && st == SD_OK; k++) {
            const sd_partial_replicas *y = &parts[i].replicas[r];
            if (!y->have[k])
                continue;
            if (from[k] != NULL)
                st = sd_status_fail(err, SD_EINVAL, "replica set %zu: slot %zu is given twice (%s and %s)", r + 1, k,
                                    from[k], names[i]);
            from[k] = names[i];
            have[k] = 1;
            memcpy(value + k * x->nfields, y->value + k * x->nfields, x->nfields * sizeof *value);
        }
    for (size_t k = 0; k < x->nslots && st == SD_OK; k++)
        if (!have[k])
            st = sd_status_fail(err, SD_EINVAL, "replica set %zu: slot %zu is in no part (a shard that did not "
                                "finish?)", r + 1, k);
    if (st == SD_OK)
        st = sd_partial_add_replicas(m, x->fingerprint, x->nslots, x->nfields, value, have, err);
    free(value);
    free(have);
    free(from);
    return st;
}

sd_status sd_partial_merge(const sd_partial *parts, const char *const *names, size_t n, sd_partial *out,
                           sd_error *err)
{
    if (n == 0)
        return sd_status_fail(err, SD_EINVAL, "merge: no partial results");
    sd_status st = same_job(parts, names, n, err);
    if (st != SD_OK || (st = every_shard_once(parts, names, n, err)) != SD_OK)
        return st;
    sd_partial m = sd_partial_init(1, 1);
    for (size_t i = 0; i < parts[0].ncontext && st == SD_OK; i++)
        st = sd_partial_add_context(&m, parts[0].context[i], err);
    for (size_t r = 0; r < parts[0].nruns && st == SD_OK; r++)
        st = merge_run(&m, parts, names, n, r, err);
    for (size_t r = 0; r < parts[0].nreplicas && st == SD_OK; r++)
        st = merge_replicas(&m, parts, names, n, r, err);
    if (st != SD_OK) {
        sd_partial_free(&m);
        return st;
    }
    *out = m;
    return SD_OK;
}

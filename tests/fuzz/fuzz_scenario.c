/* fuzz_scenario.c -- scenario files: `specdec speedup --from FILE --format tsv`.
 *
 * The scenario reader lives in the program (src/cli/cmd_theory.c,
 * load_inputs and scenario_number), so this harness runs the program's own
 * path: the CLI sources are compiled with -Dmain=specdec_main and each input
 * is run as
 *     specdec speedup --from FILE --format tsv
 * with stdout and stderr captured in memory streams (glibc's stdout and
 * stderr are assignable variables; the sanitizers write to fd 2 directly,
 * so their reports still show).  Alongside, the harness reads the file the
 * way load_inputs documents it, through what the library offers --
 * sd_tsv_load(path, 1, SD_LIST_MAX) and sd_parse_number per column with the
 * program's domains: alpha [0, 1], cost [0, inf), mu [0, inf) (default 0),
 * gamma whole in [1, 1e9]; columns name, alpha, cost, gamma required, mu
 * and the pass-through ones (temperature, source, reported, measured: read
 * from the program's own "unknown column" message at start-up) optional,
 * nothing else, no column twice, at most 24, a non-empty name, at least one
 * row.  Properties:
 *   - every number the library parses lies in its domain (finite, whole
 *     when required) and a failed parse leaves its output alone;
 *   - the program exits 0 iff the reading above succeeds, else 2;
 *   - exit 2: nothing on stdout, stderr exactly one line "specdec: MSG"
 *     (MSG the library's own message, control bytes escaped as main.c does,
 *     when sd_tsv_load or a number failed);
 *   - exit 0: nothing on stderr; stdout is the TSV table with one row per
 *     scenario row, in order: the name and pass-through columns as written
 *     (tabs and CRs as spaces), alpha, cost, mu and gamma equal bit for bit
 *     to the parsed values, E(N) in [1, gamma + 1], cost factor >= 1,
 *     improvement and FLOP factor >= 0, none of them NaN;
 *   - every library error message is one non-empty line.
 */
#include <math.h>

#include "fuzz_common.h"

int specdec_main(int argc, char **argv);

/* The program's domains (src/cli/args.c). */
static const sd_domain ALPHA = { "alpha", 0.0, 1.0, 0 };
static const sd_domain COST = { "cost", 0.0, INFINITY, 0 };
static const sd_domain MU = { "mu", 0.0, INFINITY, 0 };
static const sd_domain GAMMA = { "gamma", 1.0, 1e9, 1 };

/* The columns the program accepts: name, alpha, cost, gamma, mu and the
 * pass-through ones (text copied to the output, last, in this order).
 * LLVMFuzzerInitialize reads the pass-through list from the program itself
 * -- the "unknown column" message lists every accepted column -- so the
 * harness follows when one is added. */
enum { MAX_PASS = 8 };
static const char *KNOWN[5 + MAX_PASS] = { "name", "alpha", "cost", "gamma", "mu" };
static size_t NKNOWN = 5;
static const char **const PASS = KNOWN + 5;
static size_t NPASS_COLS = 0;

typedef struct {
    double alpha, cost, mu, gamma;
} scenario;

/* The expectation: 0 with the rows in sc[], or 2 with *msg the library's
 * message when it came from the library (else msg[0] = '\0'). */
static int expect(const char *path, const sd_tsv *t, scenario *sc, char *msg, size_t msg_size)
{
    msg[0] = '\0';
    if (t->ncolumns > 24)
        return 2;
    for (size_t j = 0; j < t->ncolumns; j++) {
        int known = 0;
        for (size_t k = 0; k < NKNOWN; k++)
            known |= strcmp(t->column[j], KNOWN[k]) == 0;
        if (!known || sd_tsv_column(t, t->column[j]) != j)
            return 2;
    }
    for (size_t k = 0; k < 4; k++)
        if (sd_tsv_column(t, KNOWN[k]) == (size_t)-1)
            return 2;
    size_t name = sd_tsv_column(t, "name");
    const sd_domain *doms[4] = { &ALPHA, &COST, &MU, &GAMMA };
    const char *cols[4] = { "alpha", "cost", "mu", "gamma" };
    for (size_t i = 0; i < t->nrows; i++) {
        const sd_tsv_row *r = &t->row[i];
        double *out[4] = { &sc[i].alpha, &sc[i].cost, &sc[i].mu, &sc[i].gamma };
        for (int k = 0; k < 4; k++) {
            size_t j = sd_tsv_column(t, cols[k]);
            if (j == (size_t)-1) { /* only mu may be absent: 0 */
                *out[k] = 0.0;
                continue;
            }
            char where[4200];
            snprintf(where, sizeof where, "%s:%zu: %s", path, r->line, cols[k]);
            sd_domain d = *doms[k];
            d.name = where;
            double x = -777.0;
            sd_error err;
            clear_error(&err);
            sd_status st = sd_parse_number(r->field[j], &d, &x, &err);
            if (st != SD_OK) {
                CHECK(x == -777.0, "sd_parse_number('%s') failed but wrote %.17g", r->field[j], x);
                check_message(&err, "sd_parse_number");
                snprintf(msg, msg_size, "%s", err.msg);
                return 2;
            }
            CHECK(isfinite(x) && x >= doms[k]->min && x <= doms[k]->max, "%s = %.17g outside its domain", cols[k], x);
            CHECK(!doms[k]->whole || floor(x) == x, "%s = %.17g is not whole", cols[k], x);
            *out[k] = x;
        }
        if (r->field[name][0] == '\0')
            return 2;
    }
    return t->nrows == 0 ? 2 : 0;
}

/* msg as main.c writes it: \n, \t, \r and other control bytes escaped. */
static void escape(const char *msg, char *out, size_t size)
{
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)msg; *c && n + 5 < size; c++) {
        if (*c == '\n' || *c == '\t' || *c == '\r')
            n += (size_t)snprintf(out + n, size - n, "\\%c", *c == '\n' ? 'n' : *c == '\t' ? 't' : 'r');
        else if (*c < 0x20 || *c == 0x7f)
            n += (size_t)snprintf(out + n, size - n, "\\x%02x", *c);
        else
            out[n++] = (char)*c;
    }
    out[n] = '\0';
}

/* Text as the TSV writer puts it: tabs, newlines and CRs become spaces. */
static int same_text(const char *got, size_t len, const char *want)
{
    if (strlen(want) != len)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char w = want[i] == '\t' || want[i] == '\n' || want[i] == '\r' ? ' ' : want[i];
        if (got[i] != w)
            return 0;
    }
    return 1;
}

static double cell_number(const char *s, size_t len, const char *what)
{
    char buf[64];
    CHECK(len > 0 && len < sizeof buf, "%s: cell of %zu characters", what, len);
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    double x = strtod(buf, &end);
    CHECK(*end == '\0', "%s: cell '%s' is not a number", what, buf);
    return x;
}

/* Splits line[0..len-1] at tabs into at most max cells (start, length). */
static size_t cells(const char *line, size_t len, const char **c, size_t *cl, size_t max)
{
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= len; i++)
        if (i == len || line[i] == '\t') {
            CHECK(n < max, "an output line with more than %zu cells", max);
            c[n] = line + start;
            cl[n] = i - start;
            n++;
            start = i + 1;
        }
    return n;
}

/* The output columns this harness reads, found by name in the header. */
enum { C_ALPHA, C_COST, C_MU, C_GAMMA, C_TOKENS, C_COSTF, C_IMPROVEMENT, C_FLOPF, NCORE };
static const char *const CORE[NCORE] = { "alpha",       "cost",        "mu",          "gamma",
                                         "expected_tokens", "cost_factor", "improvement", "flop_factor" };
enum { MAX_CELLS = 48 };

static void check_output(const sd_tsv *t, const scenario *sc, const char *out, size_t len)
{
    CHECK(len > 0 && out[len - 1] == '\n', "output is empty or does not end with a newline");
    const char *p = out, *end = out + len;
    const char *c[MAX_CELLS];
    size_t cl[MAX_CELLS];
    /* The header: name first, the core columns somewhere, the file's
     * pass-through columns last, in the program's order. */
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t ncols = cells(p, (size_t)(nl - p), c, cl, MAX_CELLS);
    size_t pass[MAX_PASS], npass = 0, name = sd_tsv_column(t, "name"), at[NCORE];
    for (size_t k = 0; k < NPASS_COLS; k++)
        if (sd_tsv_column(t, PASS[k]) != (size_t)-1)
            pass[npass++] = sd_tsv_column(t, PASS[k]);
    CHECK(ncols >= 1 + NCORE + npass && same_text(c[0], cl[0], "name"), "output header [%.*s]", (int)(nl - p), p);
    for (int k = 0; k < NCORE; k++) {
        at[k] = 0;
        for (size_t j = 1; j < ncols - npass && at[k] == 0; j++)
            if (same_text(c[j], cl[j], CORE[k]))
                at[k] = j;
        CHECK(at[k] != 0, "output header [%.*s] lacks %s", (int)(nl - p), p, CORE[k]);
    }
    for (size_t k = 0; k < npass; k++)
        CHECK(same_text(c[ncols - npass + k], cl[ncols - npass + k], t->column[pass[k]]),
              "output header [%.*s] does not end with the pass-through columns", (int)(nl - p), p);
    p = nl + 1;
    for (size_t i = 0; i < t->nrows; i++) {
        CHECK(p < end, "output has %zu rows; the file %zu", i, t->nrows);
        nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = cells(p, (size_t)(nl - p), c, cl, MAX_CELLS);
        const sd_tsv_row *r = &t->row[i];
        CHECK(n == ncols, "output row %zu has %zu cells, the header %zu", i, n, ncols);
        CHECK(same_text(c[0], cl[0], r->field[name]), "output row %zu: name [%.*s], not [%s]", i, (int)cl[0], c[0],
              r->field[name]);
        for (size_t k = 0; k < npass; k++) {
            size_t j = ncols - npass + k;
            CHECK(same_text(c[j], cl[j], r->field[pass[k]]), "output row %zu: %s [%.*s], not [%s]", i,
                  t->column[pass[k]], (int)cl[j], c[j], r->field[pass[k]]);
        }
        const scenario *s = &sc[i];
        double v[NCORE];
        for (int k = 0; k < NCORE; k++)
            v[k] = cell_number(c[at[k]], cl[at[k]], CORE[k]);
        CHECK(memcmp(&v[C_ALPHA], &s->alpha, sizeof s->alpha) == 0, "row %zu: alpha %.17g printed as %.17g", i,
              s->alpha, v[C_ALPHA]);
        CHECK(memcmp(&v[C_COST], &s->cost, sizeof s->cost) == 0, "row %zu: cost %.17g printed as %.17g", i, s->cost,
              v[C_COST]);
        CHECK(memcmp(&v[C_MU], &s->mu, sizeof s->mu) == 0, "row %zu: mu %.17g printed as %.17g", i, s->mu, v[C_MU]);
        CHECK(v[C_GAMMA] == s->gamma, "row %zu: gamma %.17g printed as %.17g", i, s->gamma, v[C_GAMMA]);
        CHECK(v[C_TOKENS] >= 1.0 && v[C_TOKENS] <= (s->gamma + 1.0) * (1.0 + 1e-12),
              "row %zu: E(N) = %.17g outside [1, %.17g]", i, v[C_TOKENS], s->gamma + 1.0);
        CHECK(v[C_COSTF] >= 1.0, "row %zu: cost factor %.17g", i, v[C_COSTF]);
        CHECK(v[C_IMPROVEMENT] >= 0.0 && v[C_FLOPF] >= 0.0, "row %zu: improvement %.17g, FLOP factor %.17g", i,
              v[C_IMPROVEMENT], v[C_FLOPF]);
        p = nl + 1;
    }
    CHECK(p == end, "output has more rows than the file (%zu)", t->nrows);
}

/* specdec speedup --from path --format tsv, its stdout and stderr caught in
 * memory (malloc'd, NUL-terminated); returns its exit status. */
static int run_program(const char *path, char **out, size_t *out_len, char **errs, size_t *errs_len)
{
    char a0[] = "specdec", a1[] = "speedup", a2[] = "--from", a4[] = "--format", a5[] = "tsv";
    char a3[sizeof fuzz_path];
    snprintf(a3, sizeof a3, "%s", path);
    char *argv[] = { a0, a1, a2, a3, a4, a5, NULL };
    *out = *errs = NULL;
    *out_len = *errs_len = 0;
    FILE *fo = open_memstream(out, out_len), *fe = open_memstream(errs, errs_len);
    if (fo == NULL || fe == NULL)
        abort();
    FILE *saved_out = stdout, *saved_err = stderr;
    stdout = fo;
    stderr = fe;
    int rc = specdec_main(6, argv);
    stdout = saved_out;
    stderr = saved_err;
    fclose(fo);
    fclose(fe);
    return rc;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    static const char probe[] = "name\talpha\tcost\tgamma\tzz-probe\nx\t0.5\t0.1\t2\t1\n";
    const char *path = fuzz_file((const uint8_t *)probe, sizeof probe - 1);
    char *out, *errs;
    size_t out_len, errs_len;
    int rc = run_program(path, &out, &out_len, &errs, &errs_len);
    static char list[1024];
    const char *at = strstr(errs, "; expected ");
    CHECK(rc == 2 && at != NULL, "the program does not list its scenario columns for an unknown one: [%s]", errs);
    snprintf(list, sizeof list, "%s", at + strlen("; expected "));
    list[strcspn(list, "\n")] = '\0';
    size_t n = 0;
    for (char *tok = strtok(list, ", "); tok != NULL; tok = strtok(NULL, ", "), n++) {
        CHECK(n >= 5 || strcmp(tok, KNOWN[n]) == 0, "the program's columns start [%s], not name, alpha, cost, gamma, mu",
              tok);
        if (n >= 5) {
            CHECK(NKNOWN < 5 + MAX_PASS, "more than %d pass-through columns", MAX_PASS);
            KNOWN[NKNOWN++] = tok;
        }
    }
    NPASS_COLS = NKNOWN - 5;
    fprintf(stderr, "fuzz_scenario: pass-through columns from the program:");
    for (size_t k = 0; k < NPASS_COLS; k++)
        fprintf(stderr, " %s", PASS[k]);
    fputc('\n', stderr);
    free(out);
    free(errs);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);

    /* The expectation, through the library. */
    sd_tsv t;
    sd_error err;
    clear_error(&err);
    char msg[sizeof err.msg];
    scenario *sc = NULL;
    int want;
    sd_status st = sd_tsv_load(path, 1, SD_LIST_MAX, &t, &err);
    if (st != SD_OK) {
        check_message(&err, "sd_tsv_load");
        snprintf(msg, sizeof msg, "%s", err.msg);
        want = 2;
    } else {
        sc = calloc(t.nrows ? t.nrows : 1, sizeof *sc);
        if (sc == NULL)
            abort();
        want = expect(path, &t, sc, msg, sizeof msg);
    }

    /* The program. */
    char *out, *errs;
    size_t out_len, errs_len;
    int rc = run_program(path, &out, &out_len, &errs, &errs_len);

    CHECK(rc == want, "specdec speedup --from exited %d; reading the file with the library says %d [%.*s]", rc, want,
          (int)errs_len, errs);
    if (rc != 0) {
        CHECK(out_len == 0, "exit %d with %zu bytes on stdout", rc, out_len);
        CHECK(errs_len > 10 && strncmp(errs, "specdec: ", 9) == 0 && errs[errs_len - 1] == '\n' &&
                  memchr(errs, '\n', errs_len) == errs + errs_len - 1 && strlen(errs) == errs_len,
              "stderr is not one line 'specdec: ...': [%s]", errs);
        if (msg[0] != '\0') {
            char shown[4 * sizeof msg + 8];
            escape(msg, shown, sizeof shown);
            CHECK(errs_len == 10 + strlen(shown) && memcmp(errs + 9, shown, strlen(shown)) == 0,
                  "stderr [%.*s], the library's message [%s]", (int)errs_len - 1, errs, shown);
        }
        else
            CHECK(strncmp(errs + 9, path, strlen(path)) == 0, "stderr does not name the file: [%s]", errs);
    } else {
        CHECK(errs_len == 0, "exit 0 with stderr [%s]", errs);
        check_output(&t, sc, out, out_len);
    }
    free(out);
    free(errs);
    free(sc);
    if (st == SD_OK)
        sd_tsv_free(&t);
    return 0;
}

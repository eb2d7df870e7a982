/* fuzz_common.h -- what the libFuzzer harnesses under tests/fuzz/ share.
 *
 * CHECK(cond, fmt, ...) is a property: when it fails the harness prints what
 * was wrong and aborts, so that libFuzzer reports the input as a crash and
 * saves it.  fuzz_file() puts an input into a file the library can open by
 * path: a memfd reached through /proc/self/fd/N (nothing to clean up), or a
 * file in a mkdtemp() folder when memfd_create is unavailable.
 */
#ifndef SPECDEC_FUZZ_COMMON_H
#define SPECDEC_FUZZ_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "specdec.h"

/* Helpers a harness may not use: no unused-function warnings. */
#define FUZZ_FN static __attribute__((unused))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

__attribute__((format(printf, 4, 5), noreturn)) static void fuzz_violation(const char *file, int line,
                                                                          const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "\n==specdec-fuzz== PROPERTY VIOLATED at %s:%d: %s\n==specdec-fuzz== ", file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond))                                                       \
            fuzz_violation(__FILE__, __LINE__, #cond, __VA_ARGS__);        \
    } while (0)

/* Every error message: written (non-empty), terminated inside msg, one line. */
FUZZ_FN void check_message(const sd_error *err, const char *what)
{
    size_t len = strnlen(err->msg, sizeof err->msg);
    CHECK(len < sizeof err->msg, "%s: error message not NUL-terminated", what);
    CHECK(len > 0, "%s: failed with an empty error message", what);
    if (memchr(err->msg, '\n', len) != NULL) {
        char shown[4 * sizeof err->msg];
        size_t n = 0;
        for (size_t i = 0; i < len; i++)
            n += (size_t)(err->msg[i] == '\n' ? snprintf(shown + n, sizeof shown - n, "\\n")
                                               : snprintf(shown + n, sizeof shown - n, "%c", err->msg[i]));
        fuzz_violation(__FILE__, __LINE__, "memchr(err->msg, '\\n', len) == NULL",
                       "%s: error message has a newline: [%s]", what, shown);
    }
}

/* A fresh error buffer: empty, so that a failure must write into it. */
FUZZ_FN void clear_error(sd_error *err)
{
    memset(err->msg, 0, sizeof err->msg);
}

/* A NUL-terminated copy of data[0..size-1] (the text ends at a NUL inside). */
FUZZ_FN char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

static int fuzz_fd __attribute__((unused)) = -1;
static char fuzz_path[4096] __attribute__((unused));

/* Writes data[0..size-1] into the harness's file and returns its path. */
FUZZ_FN const char *fuzz_file(const uint8_t *data, size_t size)
{
    if (fuzz_fd < 0) {
#ifdef MFD_CLOEXEC
        fuzz_fd = memfd_create("specdec-fuzz", MFD_CLOEXEC);
        if (fuzz_fd >= 0)
            snprintf(fuzz_path, sizeof fuzz_path, "/proc/self/fd/%d", fuzz_fd);
#endif
        if (fuzz_fd < 0) {
            const char *tmp = getenv("TMPDIR");
            char dir[4000];
            snprintf(dir, sizeof dir, "%s/specdec-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
            if (mkdtemp(dir) == NULL) {
                perror("specdec-fuzz: mkdtemp");
                abort();
            }
            snprintf(fuzz_path, sizeof fuzz_path, "%s/input", dir);
            fuzz_fd = open(fuzz_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            if (fuzz_fd < 0) {
                perror("specdec-fuzz: open");
                abort();
            }
        }
    }
    if (ftruncate(fuzz_fd, 0) != 0) {
        perror("specdec-fuzz: ftruncate");
        abort();
    }
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(fuzz_fd, data + done, size - done, (off_t)done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            perror("specdec-fuzz: pwrite");
            abort();
        }
        done += (size_t)w;
    }
    return fuzz_path;
}

/* ---- a reference reader of the TSV format, independent of parse.c --------------
 * parse.h: lines split at tabs, each field loses surrounding spaces (and a CR),
 * blank lines and lines starting with # (after spaces) are skipped.  A line
 * is what getline returns; the library sees it up to its first NUL byte. */
typedef struct {
    char **field;
    size_t nfields, line;
} ref_row;

typedef struct {
    ref_row *row;
    size_t nrows;
} ref_tsv;

FUZZ_FN int ref_trailing(char c)
{
    return c == ' ' || c == '\r' || c == '\n';
}

FUZZ_FN void ref_tsv_read(const uint8_t *data, size_t size, ref_tsv *out)
{
    out->row = NULL;
    out->nrows = 0;
    size_t cap = 0, lineno = 0, pos = 0;
    while (pos < size) {
        size_t end = pos;
        while (end < size && data[end] != '\n')
            end++;
        size_t next = end < size ? end + 1 : end;
        lineno++;
        size_t len = end - pos;
        const uint8_t *nul = memchr(data + pos, '\0', len);
        if (nul != NULL)
            len = (size_t)(nul - (data + pos));
        const char *s = (const char *)data + pos;
        size_t a = 0, b = len;
        while (a < b && s[a] == ' ')
            a++;
        while (b > a && ref_trailing(s[b - 1]))
            b--;
        pos = next;
        if (a == b || s[a] == '#')
            continue;
        size_t nf = 1;
        for (size_t i = a; i < b; i++)
            nf += s[i] == '\t';
        char **f = calloc(nf, sizeof *f);
        if (f == NULL)
            abort();
        size_t k = 0, fa = a;
        for (size_t i = a; i <= b; i++) {
            if (i < b && s[i] != '\t')
                continue;
            size_t x = fa, y = i;
            while (x < y && s[x] == ' ')
                x++;
            while (y > x && ref_trailing(s[y - 1]))
                y--;
            f[k] = malloc(y - x + 1);
            if (f[k] == NULL)
                abort();
            memcpy(f[k], s + x, y - x);
            f[k][y - x] = '\0';
            k++;
            fa = i + 1;
        }
        if (out->nrows == cap) {
            cap = cap ? 2 * cap : 16;
            out->row = realloc(out->row, cap * sizeof *out->row);
            if (out->row == NULL)
                abort();
        }
        out->row[out->nrows++] = (ref_row){ f, nf, lineno };
    }
}

FUZZ_FN void ref_tsv_free(ref_tsv *t)
{
    for (size_t i = 0; i < t->nrows; i++) {
        for (size_t j = 0; j < t->row[i].nfields; j++)
            free(t->row[i].field[j]);
        free(t->row[i].field);
    }
    free(t->row);
    t->row = NULL;
    t->nrows = 0;
}

/* The index of the first field of r equal to name, or (size_t)-1. */
FUZZ_FN size_t ref_column(const ref_row *r, const char *name)
{
    for (size_t j = 0; j < r->nfields; j++)
        if (strcmp(r->field[j], name) == 0)
            return j;
    return (size_t)-1;
}

#endif

/* derive.h -- rate derivation: the counts behind a log line's rounded figures (private to
 * src/counters).
 *
 * Log lines print rates rounded to a few decimals, so the number of drafts
 * and the per-position counts behind a line are derived: every whole number
 * of drafts that reproduces all the printed figures is a candidate; the
 * per-position counts are the whole numbers the printed rates allow,
 * adjusted to sum to the accepted tokens.  The vLLM V1 and llama.cpp readers
 * use it, and sum the lines' counts in an sd_derive_sum.
 */
#ifndef SPECDEC_COUNTERS_DERIVE_H
#define SPECDEC_COUNTERS_DERIVE_H

#include <stddef.h>
#include <stdint.h>

#include "counters_impl.h"

/* One printed line (or group of drafts): what is known exactly and what is
 * printed rounded. */
typedef struct {
    uint64_t A, D;    /* accepted and drafted tokens (exact) */
    int has_x;        /* x = mean acceptance length - 1 = A / drafts, printed to +-hx */
    double x, hx;
    size_t k;         /* per-position rates r[i] = accepted_at[i] / drafts, printed to +-hr */
    const double *r;
    double hr;
    size_t kmax;      /* the longest a draft can be; 0: unknown */
    int full;         /* prefer drafts = D / kmax (every draft kmax tokens long) */
    uint64_t n_fixed; /* > 0: the number of drafts is known */
    int64_t c0;       /* >= 0: accepted_at[0] is known */
} sd_derive_in;

typedef struct {
    uint64_t n, c[MAXG];
    uint64_t nlo, nhi; /* the numbers of drafts the printed figures allow */
    int full;          /* 1: n = D / kmax was taken where other numbers were possible */
} sd_derive_out;

enum { SD_DERIVE_OK, SD_DERIVE_INCONSISTENT, SD_DERIVE_UNKNOWN };

/* The sums of the lines of a log (vLLM V1, llama.cpp). */
typedef struct {
    double drafts, D, A, c[MAXG];
    size_t lines, ambiguous, full, no_positions;
    double nlo, nhi; /* the total drafts the ambiguous lines allow */
    size_t gamma;    /* the per-position rates' count (0: none yet) */
} sd_derive_sum;

/* The printed precision h widened by the rounding of the division and the
 * printing: h (1 + 1e-9) + 1e-12. */
double sd_derive_widen(double h);

/* The number of drafts and the per-position counts behind one printed line.
 * A number n of drafts qualifies when A / n reproduces x to +-hx (when
 * has_x), the rates' sum to +-k hr, each r[i] x n holds a whole count within
 * +-hr x n, those counts can be made non-increasing and sum to A, A and D
 * fit in n drafts of kmax tokens (when kmax > 0), n = n_fixed (when > 0) and
 * accepted_at[0] = c0 (when >= 0).  out->n: with full, D / kmax when it
 * qualifies; else the qualifying n nearest the estimate A / x (or A / the
 * rates' sum, or the middle of the range), at most SEARCH_MAX (4096)
 * candidates tried.  out->c[0 .. k-1]: counts within the rates' rounding,
 * non-increasing, summing to A (raised front first, lowered back first);
 * out->nlo, out->nhi: the qualifying numbers' range (the bounds themselves
 * when too wide to try); out->full: 1 when D / kmax was taken and other
 * numbers qualified too.  Returns SD_DERIVE_OK; SD_DERIVE_INCONSISTENT when
 * no number qualifies; SD_DERIVE_UNKNOWN when nothing bounds the drafts
 * above (D = 0 and no n_fixed, mean length or rates to bound them).  *out is
 * zeroed first and partly written on failure. */
int sd_derive_solve(const sd_derive_in *in, sd_derive_out *out);

/* reached[] for one group of n drafts of at most kmax tokens, G tokens in
 * all, c[0..k-1] of them accepted through each position: at least one token
 * per draft, at least c[i] drafts at position i, the other tokens at the
 * earliest positions (drafts as equal in length as the counts allow), added
 * to reached[0 .. kmax-1].  Returns 1; 0 (reached untouched) if the counts
 * cannot be drafted: kmax outside [1, MAXG], k > kmax, n = 0, some c[i] > n,
 * or G below n + c[1] + .. + c[k-1] or above n x kmax. */
int sd_derive_fill_reached(uint64_t n, uint64_t G, const uint64_t *c, size_t k, size_t kmax, double *reached);

/* Adds one line to s: its exact tokens (in->A, in->D), its derived drafts and
 * per-position counts (o->n, o->c[0 .. in->k - 1]); counts it among the
 * lines without positions (in->k = 0), the full ones (o->full) or the
 * ambiguous ones (several numbers qualified, none preferred), and adds its
 * range of qualifying drafts (o->n alone when only one did) to s->nlo,
 * s->nhi.  Never fails. */
void sd_derive_add(sd_derive_sum *s, const sd_derive_in *in, const sd_derive_out *o);

/* SD_OK when the rates r[0 .. k-1] of line ln do not rise with position
 * (prefix counts cannot); else SD_EINVAL naming the first rise. */
sd_status sd_derive_rates_fall(const sd_counters_ctx *cx, size_t ln, const double *r, size_t k);

/* Appends the notes on how the drafts of the lines summed in s were derived
 * to c->notes (sd_counts_note): the lines where drafts = D / gamma was
 * preferred, the lines that allowed several numbers, or that every line
 * allowed one.  what: the singular of the lines ("line", "request").  Needs
 * c->gamma and c->drafts set. */
void sd_derive_notes(sd_counts *c, const sd_derive_sum *s, const char *what);

#endif

/* cmd_overlap.c -- `specdec overlap`: beta and D_LK of two distribution
 * files (eqs. 1, 5, 6) with the other rules' acceptances, and each rule's
 * acceptance of a matrix pair under sampling settings; the per-rank
 * acceptance of token-tree children (--ranks) is cmd_overlap_ranks.c's. */
#include "cmd_overlap_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the rules scored: one table for files, summaries and rows ---------------- */

/* The rules overlap scores, in this order; each one's acceptance of two
 * distributions is the library's (verify.h: sd_verify_dist_acceptance), so
 * a rule is one row here.  column names it in --per-row and on files. */
static const struct {
    const char *rule;
    const char *column;
} RULES[] = {
    { .rule = "adjusted", .column = "beta_adjusted" },
    { .rule = "deterministic-draft", .column = "beta_deterministic_draft" },
    { .rule = "exact-match", .column = "beta_exact_match" },
};
enum { NRULES = sizeof RULES / sizeof RULES[0] };

/* The rules' acceptances into acc[NRULES]. */
static void rule_acceptances(sd_dist_acceptance_fn *acc)
{
    for (size_t r = 0; r < NRULES; r++)
        acc[r] = sd_verify_dist_acceptance(sd_verify_find(RULES[r].rule));
}

/* ---- matrix pairs (.npy): per-row acceptance under each rule, summarised --------------- */

/* The settings' columns, then either the summary or the per-row columns. */
static const char *const SETTING_COLS[] = { "temperature", "top_k", "top_p", "min_p", "draft_temperature",
                                            "draft_top_k", "draft_top_p", "draft_min_p" };
static const char *const SUMMARY_COLS[] = { "rule", "rows", "alpha_hat", "alpha_hat_se", "ci95_low", "ci95_high",
                                            "beta_min", "beta_q10", "beta_q25", "beta_median", "beta_q75",
                                            "beta_q90", "beta_max" };
enum { NSET = 8, NSUM = sizeof SUMMARY_COLS / sizeof SUMMARY_COLS[0], NROW = 1 + NRULES };

/* The settings of one combination as cells (the draft's only when given). */
static size_t setting_cells(const sd_sampling *t, const sd_sampling *d, int with_draft, sd_cell *cells)
{
    const double v[NSET] = { t->temperature, (double)t->top_k, t->top_p, t->min_p,
                             d->temperature, (double)d->top_k, d->top_p, d->min_p };
    size_t n = with_draft ? NSET : 4;
    for (size_t i = 0; i < n; i++)
        cells[i] = i % 4 == 1 ? sd_int((long long)v[i]) : sd_real(v[i]);
    return n;
}

/* One summary row per rule, or one row per matrix row (per_row); acc holds
 * rule r's acceptance of row i at acc[r * rows + i]. */
static sd_status matrix_rows(sd_table *t, const sd_sampling *tg, const sd_sampling *dr, int with_draft, int per_row,
                             const double *acc, size_t rows, sd_error *err)
{
    sd_cell cells[NSET + (NSUM > NROW ? NSUM : NROW)];
    size_t k = setting_cells(tg, dr, with_draft, cells);
    sd_status st = SD_OK;
    if (per_row) {
        for (size_t i = 0; i < rows && st == SD_OK; i++) {
            cells[k] = sd_int((long long)i);
            for (size_t r = 0; r < NRULES; r++)
                cells[k + 1 + r] = sd_real(acc[r * rows + i]);
            st = sd_table_add(t, cells, err);
        }
        return st;
    }
    for (size_t r = 0; r < NRULES && st == SD_OK; r++) {
        sd_summary s;
        if ((st = sd_sampling_summarise(acc + r * rows, rows, &s, err)) != SD_OK)
            break;
        const sd_cell more[NSUM] = { sd_text(RULES[r].rule), sd_int((long long)rows), sd_real(s.mean), sd_real(s.se),
                                     sd_real(s.ci_low), sd_real(s.ci_high), sd_real(s.q[0]), sd_real(s.q[1]),
                                     sd_real(s.q[2]), sd_real(s.q[3]), sd_real(s.q[4]), sd_real(s.q[5]),
                                     sd_real(s.q[6]) };
        memcpy(cells + k, more, sizeof more);
        st = sd_table_add(t, cells, err);
    }
    return st;
}

static sd_status run_matrix(const sd_command_args *a, sd_table **out, sd_error *err)
{
    sd_npy p = { 0 }, q = { 0 };
    sd_cmd_sampling cs = { 0 };
    sd_input kind;
    sd_table *t = NULL;
    double *acc = NULL;
    int per_row = sd_command_args_given(a, "--per-row");
    sd_status st;
    if (sd_command_args_given(a, "--drafts")) {
        st = sd_status_fail(err, SD_EINVAL, "--drafts: give it with distribution files, not with --p-npy");
        goto done;
    }
    if ((st = sd_cmd_sampling_input(a, &kind, err)) != SD_OK || (st = sd_cmd_sampling_read(a, &cs, err)) != SD_OK ||
        (st = sd_cmd_sampling_load_npy(a, &p, &q, err)) != SD_OK)
        goto done;
    int with_draft = cs.draft_given[0] || cs.draft_given[1] || cs.draft_given[2] || cs.draft_given[3];
    const char *names[NSET + (NSUM > NROW ? NSUM : NROW)];
    size_t nset = with_draft ? NSET : 4, nmore = per_row ? NROW : NSUM;
    memcpy(names, SETTING_COLS, nset * sizeof *names);
    if (per_row) {
        names[nset] = "row";
        for (size_t r = 0; r < NRULES; r++)
            names[nset + 1 + r] = RULES[r].column;
    } else
        memcpy(names + nset, SUMMARY_COLS, NSUM * sizeof *names);
    sd_dist_acceptance_fn fns[NRULES];
    rule_acceptances(fns);
    acc = malloc((p.rows > 0 ? NRULES * p.rows : 1) * sizeof *acc);
    if (acc == NULL) {
        st = sd_status_fail(err, SD_ENOMEM, "out of memory for %zu rows", p.rows);
        goto done;
    }
    if ((st = sd_command_table(nset + nmore, names, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < cs.rows && st == SD_OK; i++) {
        sd_sampling tg, dr;
        sd_cmd_sampling_at(&cs, i, &tg, &dr);
        char pn[300], qn[300];
        snprintf(pn, sizeof pn, "--p-npy: %.280s", sd_command_args_value(a, "--p-npy"));
        snprintf(qn, sizeof qn, "--q-npy: %.280s", sd_command_args_value(a, "--q-npy"));
        const sd_sampling_pair pair = { .p = &p, .q = &q, .kind = kind, .target = tg, .draft = dr, .p_name = pn,
                                        .q_name = qn };
        if ((st = sd_sampling_acceptances(&pair, NRULES, fns, acc, err)) == SD_OK)
            st = matrix_rows(t, &tg, &dr, with_draft, per_row, acc, p.rows, err);
    }
done:
    free(acc);
    sd_npy_free(&p), sd_npy_free(&q);
    sd_cmd_sampling_free(&cs);
    return sd_command_finish(st, NULL, 0, t, out);
}

/* Two distribution files: beta and D_LK (the adjusted rule's), the other
 * rules' acceptances and, with --drafts, recursive rejection. */
static sd_status run_files(const sd_command_args *a, sd_table **out, sd_error *err)
{
    enum { NCOLS = 2 + (NRULES - 1) + 2 };
    const char *cols[NCOLS] = { "beta", "tv" };
    for (size_t r = 1; r < NRULES; r++)
        cols[1 + r] = RULES[r].column;
    cols[NCOLS - 2] = "drafts";
    cols[NCOLS - 1] = "acceptance";
    sd_dist p = { 0 }, q = { 0 };
    sd_table *t = NULL;
    double k = 1;
    int with_drafts = sd_command_args_given(a, "--drafts");
    sd_status st;
    if ((st = sd_command_args_number(a, &SD_CMD_DRAFTS, &k, err)) == SD_OK &&
        (st = overlap_load_files(a->req, &p, &q, err)) == SD_OK &&
        (st = sd_command_table(with_drafts ? NCOLS : NCOLS - 2, cols, &t, err)) == SD_OK) {
        double *work = malloc(p.n * sizeof *work);
        if (work == NULL)
            st = sd_status_fail(err, SD_ENOMEM, "out of memory");
        else {
            sd_dist_acceptance_fn fns[NRULES];
            rule_acceptances(fns);
            sd_cell row[NCOLS];
            row[0] = sd_real(fns[0](p.p, q.p, p.n)); /* adjusted: beta, eq. (1) */
            row[1] = sd_real(sd_dist_tv(p.p, q.p, p.n));
            for (size_t r = 1; r < NRULES; r++)
                row[1 + r] = sd_real(fns[r](p.p, q.p, p.n));
            row[NCOLS - 2] = sd_int((long long)k);
            row[NCOLS - 1] = sd_real(sd_dist_multi_acceptance(p.p, q.p, p.n, (size_t)k, work));
            st = sd_table_add(t, row, err);
        }
        free(work);
    }
    sd_dist_free(&p);
    sd_dist_free(&q);
    return sd_command_finish(st, NULL, 0, t, out);
}

static sd_status run_overlap(const sd_command_args *a, sd_table **out, sd_error *err)
{
    const sd_cmd_overlap_request *rq = a->req;
    int nfiles = (rq->p_file != NULL) + (rq->q_file != NULL);
    int npy = sd_command_args_given(a, "--p-npy") || sd_command_args_given(a, "--q-npy");
    int per_row = sd_command_args_given(a, "--per-row"), drafts = sd_command_args_given(a, "--drafts");
    int children = sd_command_args_given(a, "--children");
    *out = NULL;
    if (!sd_command_args_given(a, "--ranks") && (children || sd_command_args_given(a, "--export-acceptance")))
        return sd_status_fail(err, SD_EINVAL, "%s: goes with --ranks", children ? "--children" : "--export-acceptance");
    if (sd_command_args_given(a, "--ranks")) {
        if (per_row || drafts)
            return sd_status_fail(err, SD_EINVAL, "--ranks: prints the per-rank summary; it takes no --%s",
                                  per_row ? "per-row" : "drafts");
        if (npy ? nfiles > 0 : nfiles != 2)
            return sd_status_fail(err, SD_EINVAL, npy ? "overlap: give P_FILE Q_FILE or --p-npy and --q-npy, not both"
                                                      : "overlap: --ranks needs P_FILE Q_FILE or --p-npy and --q-npy");
        if (!npy && (sd_command_args_given(a, "--input") || sd_cmd_sampling_given(a)))
            return sd_status_fail(err, SD_EINVAL, "overlap: --input and the sampling options need --p-npy and --q-npy");
        return overlap_ranks(a, out, err);
    }
    if (npy)
        return nfiles > 0 ? sd_status_fail(err, SD_EINVAL, "overlap: give P_FILE Q_FILE or --p-npy and --q-npy, not "
                                           "both")
                          : run_matrix(a, out, err);
    if (nfiles != 2)
        return sd_status_fail(err, SD_EINVAL, "overlap: missing argument; usage: specdec %s", sd_cmd_overlap.usage);
    if (sd_command_args_given(a, "--input") || per_row || sd_cmd_sampling_given(a))
        return sd_status_fail(err, SD_EINVAL, "overlap: --input, --per-row and the sampling options need --p-npy and "
                              "--q-npy");
    return run_files(a, out, err);
}

sd_cmd_overlap_request sd_cmd_overlap_defaults(void)
{
    return (sd_cmd_overlap_request){ .drafts = NAN, .input = -1, .ranks = NAN, .children = -1,
                                     .sampling = sd_cmd_sampling_defaults() };
}

sd_status sd_cmd_overlap_table(const sd_cmd_overlap_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_overlap, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_overlap, rq, err);
    return sd_command_end(&sd_cmd_overlap, st == SD_OK ? run_overlap(&a, out, err) : st, err);
}

#define R sd_cmd_overlap_request
static const sd_command_field FIELDS[] = {
    { .name = "P_FILE", SD_FIELD(R, p_file, TEXT), .position = 1, .metavar = "P_FILE", .help = "the target's "
      "distribution file" },
    { .name = "Q_FILE", SD_FIELD(R, q_file, TEXT), .position = 2, .metavar = "Q_FILE", .help = "the draft's "
      "distribution file, over the same tokens" },
    { .name = "--drafts", SD_FIELD(R, drafts, REAL), .metavar = "K", .help = "add drafts and acceptance: P(one of K "
      "drafts accepted), recursive rejection", .domain = &SD_CMD_DRAFTS, SD_LIB(engine.drafts, SIZE) },
    { .name = "--p-npy", SD_FIELD(R, p_npy, TEXT), .metavar = "FILE", .help = "target matrix, .npy of shape (V,) or "
      "(rows, V) (with --q-npy and --input)" },
    { .name = "--q-npy", SD_FIELD(R, q_npy, TEXT), .metavar = "FILE", .help = "draft matrix of the same shape; row i "
      "pairs with the target's row i" },
    { .name = "--input", SD_FIELD(R, input, CHOICE), .metavar = "KIND", .help = "what the .npy numbers are: logits or "
      "probs (required with --p-npy)", .names = sd_sampling_input_names },
    { .name = "--per-row", SD_FIELD(R, per_row, FLAG), .help = "print each row's acceptance under each rule instead "
      "of the summary" },
    { .name = "--ranks", SD_FIELD(R, ranks, REAL), .metavar = "K", .help = "token trees: the chance that the child of "
      "rank 0 .. K-1 is the one accepted, in {range}, for top-k and sampled children (doc/trees.md)",
      .domain = &OVERLAP_RANKS },
    { .name = "--children", SD_FIELD(R, children, CHOICE), .metavar = "NAME", .help = "--ranks: {names} only "
      "(default: both)", .names = sd_engine_children_names },
    { .name = "--export-acceptance", SD_FIELD(R, export_acceptance, TEXT), .metavar = "FILE", .help = "--ranks: write "
      "the mean p per rank as the acceptance TSV that tree reads (one --children, one setting)" },
    { .name = NULL },
};
#undef R

SD_COMMAND_CALLS(overlap)
const sd_command sd_cmd_overlap = {
    SD_COMMAND_ROW(overlap),
    .usage = "overlap P_FILE Q_FILE [--drafts K] | overlap --p-npy T.npy --q-npy D.npy --input KIND [sampling] "
             "[--per-row] | ... --ranks K [--children NAME] [--export-acceptance FILE]",
    .summary = "acceptance probability beta = sum min(p, q) and D_LK = TV(p, q) (eqs. 1, 5, 6); per-row beta of .npy "
               "matrices",
    .groups = { FIELDS, SD_CMD_SAMPLING_FIELDS },
    .base = { 0, offsetof(sd_cmd_overlap_request, sampling) },
    SD_COMMANDS_LIBRARY,
};

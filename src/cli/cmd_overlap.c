/* cmd_overlap.c -- beta and D_LK of two distribution files (eqs. 1, 5, 6)
 * with the other rules' acceptances, and each rule's acceptance of a
 * matrix pair under sampling settings. */
#include "cli.h"

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

static sd_status run_matrix(const cli_args *a, sd_table **out, sd_error *err)
{
    sd_npy p = { 0 }, q = { 0 };
    cli_sampling cs = { 0 };
    sd_input kind;
    sd_table *t = NULL;
    double *acc = NULL;
    int per_row = cli_given(a, "--per-row");
    sd_status st;
    if (cli_given(a, "--drafts")) {
        st = sd_status_fail(err, SD_EINVAL, "--drafts: give it with distribution files, not with --p-npy");
        goto done;
    }
    if ((st = cli_input_kind(a, &kind, err)) != SD_OK || (st = cli_sampling_read(a, &cs, err)) != SD_OK ||
        (st = cli_load_npy_pair(a, &p, &q, err)) != SD_OK)
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
    if ((st = cli_table(nset + nmore, names, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < cs.rows && st == SD_OK; i++) {
        sd_sampling tg, dr;
        cli_sampling_at(&cs, i, &tg, &dr);
        char pn[300], qn[300];
        snprintf(pn, sizeof pn, "--p-npy: %.280s", cli_value(a, "--p-npy"));
        snprintf(qn, sizeof qn, "--q-npy: %.280s", cli_value(a, "--q-npy"));
        const sd_sampling_pair pair = { .p = &p, .q = &q, .kind = kind, .target = tg, .draft = dr, .p_name = pn,
                                        .q_name = qn };
        if ((st = sd_sampling_acceptances(&pair, NRULES, fns, acc, err)) == SD_OK)
            st = matrix_rows(t, &tg, &dr, with_draft, per_row, acc, p.rows, err);
    }
done:
    free(acc);
    sd_npy_free(&p), sd_npy_free(&q);
    cli_sampling_free(&cs);
    return cli_finish(st, NULL, 0, t, out);
}

/* Two distribution files: beta and D_LK (the adjusted rule's), the other
 * rules' acceptances and, with --drafts, recursive rejection. */
static sd_status run_files(const cli_args *a, sd_table **out, sd_error *err)
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
    int with_drafts = cli_given(a, "--drafts");
    sd_status st;
    if ((st = cli_number(a, &CLI_DRAFTS, &k, err)) == SD_OK && (st = sd_dist_load(a->pos[0], &p, err)) == SD_OK &&
        (st = sd_dist_load(a->pos[1], &q, err)) == SD_OK &&
        (st = sd_dist_compatible(&p, &q, a->pos[0], a->pos[1], err)) == SD_OK &&
        (st = cli_table(with_drafts ? NCOLS : NCOLS - 2, cols, &t, err)) == SD_OK) {
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
    return cli_finish(st, NULL, 0, t, out);
}

/* ---- --ranks: the per-rank acceptance of token-tree children (tree.h, dist.h) -------------- */

static const sd_domain RANKS = { "--ranks", 1, SD_TREE_MAX_RANK, 1 };

/* The kinds of children --children asks for: both when absent. */
static sd_status rank_kinds(const cli_args *a, int *kinds, size_t *nk, sd_error *err)
{
    if (!cli_given(a, "--children")) {
        kinds[0] = SD_CHILDREN_TOP_K, kinds[1] = SD_CHILDREN_SAMPLED, *nk = 2;
        return SD_OK;
    }
    *nk = 1;
    return cli_choice(a, "--children", sd_engine_children_names(), &kinds[0], err);
}

/* p[0 .. ranks - 1] as the one-row acceptance TSV of tree.h (sd_tree_accept_load), to path. */
static sd_status export_ranks(const char *path, const double *p, size_t ranks, const char *what, sd_error *err)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return sd_status_fail(err, SD_EINVAL, "--export-acceptance: cannot write '%s': %s", path, strerror(errno));
    fprintf(f, "# specdec overlap --ranks: %s\ndepth", what);
    for (size_t k = 0; k < ranks; k++)
        fprintf(f, "\tp_%zu", k);
    fprintf(f, "\n1");
    for (size_t k = 0; k < ranks; k++)
        fprintf(f, "\t%.17g", p[k]);
    fprintf(f, "\n");
    if (fclose(f) != 0)
        return sd_status_fail(err, SD_EIO, "--export-acceptance: cannot write '%s': %s", path, strerror(errno));
    return SD_OK;
}

/* The mean of each rank's acceptance, scaled down when the means' sum rounds past 1. */
static void rank_means(const double *acc, size_t ranks, size_t rows, double *p)
{
    double s = 0.0;
    for (size_t k = 0; k < ranks; k++) {
        double m = 0.0;
        for (size_t i = 0; i < rows; i++)
            m += acc[k * rows + i];
        s += p[k] = m / (double)rows;
    }
    for (size_t k = 0; k < ranks && s > 1.0; k++)
        p[k] /= s;
}

/* overlap --ranks K: a row per children kind and rank, for files (one pair) or every
 * setting of a matrix pair (its rows summarised); --export-acceptance writes the means. */
static sd_status run_ranks(const cli_args *a, sd_table **out, sd_error *err)
{
    int kinds[2];
    size_t nk, ranks = 0, rows = 0;
    double kd;
    sd_npy p = { 0 }, q = { 0 };
    sd_dist fp = { 0 }, fq = { 0 };
    cli_sampling cs = { 0 };
    sd_input kind;
    sd_table *t = NULL;
    double *acc = NULL, mean[SD_TREE_MAX_RANK];
    int npy = cli_given(a, "--p-npy") || cli_given(a, "--q-npy");
    sd_status st;
    if ((st = cli_number(a, &RANKS, &kd, err)) != SD_OK || (st = rank_kinds(a, kinds, &nk, err)) != SD_OK)
        goto done;
    ranks = (size_t)kd;
    if (npy) {
        if ((st = cli_input_kind(a, &kind, err)) != SD_OK || (st = cli_sampling_read(a, &cs, err)) != SD_OK ||
            (st = cli_load_npy_pair(a, &p, &q, err)) != SD_OK)
            goto done;
        rows = p.rows;
    } else {
        cs.rows = 1;
        if ((st = sd_dist_load(a->pos[0], &fp, err)) != SD_OK || (st = sd_dist_load(a->pos[1], &fq, err)) != SD_OK ||
            (st = sd_dist_compatible(&fp, &fq, a->pos[0], a->pos[1], err)) != SD_OK)
            goto done;
        rows = 1;
    }
    if (cli_given(a, "--export-acceptance") && (nk != 1 || cs.rows != 1)) {
        st = sd_status_fail(err, SD_EINVAL, "--export-acceptance: writes one acceptance: give one --children and one "
                            "sampling setting");
        goto done;
    }
    static const char *const cols[] = { "temperature", "top_k", "top_p", "min_p", "children", "rank", "rows", "p",
                                        "p_se", "ci95_low", "ci95_high" };
    size_t skip = npy ? 0 : 4;
    if ((acc = malloc(ranks * rows * sizeof *acc)) == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory for %zu rows", rows);
    if (st != SD_OK || (st = cli_table(11 - skip, cols + skip, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < cs.rows && st == SD_OK; i++)
        for (size_t j = 0; j < nk && st == SD_OK; j++) {
            sd_sampling tg = sd_sampling_defaults(), dr = tg;
            int sampled = kinds[j] == SD_CHILDREN_SAMPLED;
            if (npy) {
                cli_sampling_at(&cs, i, &tg, &dr);
                char pn[300], qn[300];
                snprintf(pn, sizeof pn, "--p-npy: %.280s", cli_value(a, "--p-npy"));
                snprintf(qn, sizeof qn, "--q-npy: %.280s", cli_value(a, "--q-npy"));
                const sd_sampling_pair pair = { .p = &p, .q = &q, .kind = kind, .target = tg, .draft = dr,
                                                .p_name = pn, .q_name = qn };
                if ((st = sd_sampling_rank_acceptances(&pair, ranks, sampled, acc, err)) != SD_OK)
                    break;
            } else {
                double *work = malloc(fp.n * sizeof *work);
                if (work == NULL) {
                    st = sd_status_fail(err, SD_ENOMEM, "out of memory");
                    break;
                }
                sd_dist_rank_acceptance(fp.p, fq.p, fp.n, ranks, sampled, acc, work);
                free(work);
            }
            rank_means(acc, ranks, rows, mean);
            for (size_t k = 0; k < ranks && st == SD_OK; k++) {
                sd_summary sm;
                if ((st = sd_sampling_summarise(acc + k * rows, rows, &sm, err)) != SD_OK)
                    break;
                const sd_cell row[11] = { sd_real(tg.temperature), sd_int((long long)tg.top_k), sd_real(tg.top_p),
                                          sd_real(tg.min_p), sd_text(sd_engine_children_name(kinds[j])),
                                          sd_int((long long)k), sd_int((long long)rows), sd_real(mean[k]),
                                          sd_real(sm.se), sd_real(sm.ci_low), sd_real(sm.ci_high) };
                st = sd_table_add(t, row + skip, err);
            }
            if (st == SD_OK && cli_given(a, "--export-acceptance")) {
                char what[700];
                snprintf(what, sizeof what, "%s children, %zu ranks, the mean over %zu row%s of %.300s", 
                         sd_engine_children_name(kinds[j]), ranks, rows, rows == 1 ? "" : "s",
                         npy ? cli_value(a, "--p-npy") : a->pos[0]);
                st = export_ranks(cli_value(a, "--export-acceptance"), mean, ranks, what, err);
            }
        }
    if (st == SD_OK)
        st = sd_table_note(t, err,
                           "p: the chance that the child of that rank is the one accepted (doc/trees.md): top-k, the "
                           "target's probability of the draft's k-th most likely token; sampled, beta_k prod_{j<k} "
                           "(1 - beta_j) for draws from q.  p_se and the interval: over the rows (0 for one pair).");
done:
    free(acc);
    sd_npy_free(&p), sd_npy_free(&q);
    sd_dist_free(&fp), sd_dist_free(&fq);
    cli_sampling_free(&cs);
    return cli_finish(st, NULL, 0, t, out);
}

static sd_status run_overlap(const cli_args *a, sd_table **out, sd_error *err)
{
    *out = NULL;
    if (!cli_given(a, "--ranks") && (cli_given(a, "--children") || cli_given(a, "--export-acceptance")))
        return sd_status_fail(err, SD_EINVAL, "%s: goes with --ranks",
                              cli_given(a, "--children") ? "--children" : "--export-acceptance");
    if (cli_given(a, "--ranks")) {
        if (cli_given(a, "--per-row") || cli_given(a, "--drafts"))
            return sd_status_fail(err, SD_EINVAL, "--ranks: prints the per-rank summary; it takes no --%s",
                                  cli_given(a, "--per-row") ? "per-row" : "drafts");
        int npy = cli_given(a, "--p-npy") || cli_given(a, "--q-npy");
        if (npy ? a->npos > 0 : a->npos != 2)
            return sd_status_fail(err, SD_EINVAL, npy ? "overlap: give P_FILE Q_FILE or --p-npy and --q-npy, not both"
                                                      : "overlap: --ranks needs P_FILE Q_FILE or --p-npy and --q-npy");
        if (!npy && (cli_given(a, "--input") || cli_sampling_given(a)))
            return sd_status_fail(err, SD_EINVAL, "overlap: --input and the sampling options need --p-npy and --q-npy");
        return run_ranks(a, out, err);
    }
    if (cli_given(a, "--p-npy") || cli_given(a, "--q-npy")) {
        if (a->npos > 0)
            return sd_status_fail(err, SD_EINVAL, "overlap: give P_FILE Q_FILE or --p-npy and --q-npy, not both");
        return run_matrix(a, out, err);
    }
    if (a->npos != 2)
        return sd_status_fail(err, SD_EINVAL, "overlap: missing argument; usage: specdec %s", a->cmd->synopsis);
    if (cli_given(a, "--input") || cli_given(a, "--per-row") || cli_sampling_given(a))
        return sd_status_fail(err, SD_EINVAL, "overlap: --input, --per-row and the sampling options need --p-npy and --q-npy");
    return run_files(a, out, err);
}

static const cli_option OVERLAP_OPTIONS[] = {
    { .name = "--drafts", .metavar = "K", .help = "add drafts and acceptance: P(one of K drafts accepted), recursive "
      "rejection", .domain = &CLI_DRAFTS, .lib = CLI_LIB(engine.drafts, CLI_LIB_SIZE) },
    { .name = "--p-npy", .metavar = "FILE", .help = "target matrix, .npy of shape (V,) or (rows, V) (with --q-npy and "
      "--input)" },
    { .name = "--q-npy", .metavar = "FILE", .help = "draft matrix of the same shape; row i pairs with the target's row "
      "i" },
    { .name = "--input", .metavar = "KIND", .help = "what the .npy numbers are: logits or probs (required with "
      "--p-npy)" },
    { .name = "--per-row", .help = "print each row's acceptance under each rule instead of the summary" },
    { .name = "--ranks", .metavar = "K", .help = "token trees: the chance that the child of rank 0 .. K-1 is the one "
      "accepted, in {range}, for top-k and sampled children (doc/trees.md)", .domain = &RANKS },
    { .name = "--children", .metavar = "NAME", .help = "--ranks: {names} only (default: both)",
      .names = sd_engine_children_names },
    { .name = "--export-acceptance", .metavar = "FILE", .help = "--ranks: write the mean p per rank as the "
      "acceptance TSV that tree reads (one --children, one setting)" },
    { .name = NULL },
};

const cli_command cmd_overlap = {
    .name = "overlap",
    .synopsis = "overlap P_FILE Q_FILE [--drafts K] | overlap --p-npy T.npy --q-npy D.npy --input KIND [sampling] "
                "[--per-row] | ... --ranks K [--children NAME] [--export-acceptance FILE]",
    .summary = "acceptance probability beta = sum min(p, q) and D_LK = TV(p, q) (eqs. 1, 5, 6); per-row beta of .npy "
               "matrices",
    .groups = { OVERLAP_OPTIONS, CLI_SAMPLING_OPTIONS },
    .max_pos = 2,
    .run = run_overlap,
};

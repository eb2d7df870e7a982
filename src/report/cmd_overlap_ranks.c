/* cmd_overlap_ranks.c -- `specdec overlap --ranks K`: the per-rank acceptance of token-tree
 * children (tree.h, dist.h) for a pair of files, or for a matrix pair under every sampling
 * setting, with the rows' means and, with --export-acceptance, the file tree reads. */
#include "cmd_overlap_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The two distribution files P_FILE and Q_FILE over one vocabulary. */
sd_status overlap_load_files(const sd_cmd_overlap_request *rq, sd_dist *p, sd_dist *q, sd_error *err)
{
    sd_status st;
    if ((st = sd_dist_load(rq->p_file, p, err)) == SD_OK && (st = sd_dist_load(rq->q_file, q, err)) == SD_OK)
        st = sd_dist_compatible(p, q, rq->p_file, rq->q_file, err);
    return st;
}

const sd_domain OVERLAP_RANKS = { "--ranks", 1, SD_TREE_MAX_RANK, 1 };

/* What --ranks reads: one pair of files, or a matrix pair under every sampling setting. */
typedef struct {
    int npy;                /* a matrix pair, else files */
    int kinds[2];           /* the children kinds, --children's or both */
    size_t nk, ranks, rows; /* kinds, ranks, the pair's rows (1 for files) */
    sd_npy p, q;
    sd_dist fp, fq;
    sd_cmd_sampling cs; /* one setting for files */
    sd_input kind;
} rank_input;

static void rank_input_free(rank_input *in)
{
    sd_npy_free(&in->p), sd_npy_free(&in->q);
    sd_dist_free(&in->fp), sd_dist_free(&in->fq);
    sd_cmd_sampling_free(&in->cs);
}

/* --ranks, --children (both kinds when absent) and the pair into *in. */
static sd_status rank_read(const sd_command_args *a, rank_input *in, sd_error *err)
{
    double kd;
    sd_status st;
    memset(in, 0, sizeof *in);
    in->npy = sd_command_args_given(a, "--p-npy") || sd_command_args_given(a, "--q-npy");
    in->kinds[0] = SD_CHILDREN_TOP_K;
    in->kinds[1] = SD_CHILDREN_SAMPLED;
    in->nk = sd_command_args_given(a, "--children") ? 1 : 2;
    if ((st = sd_command_args_number(a, &OVERLAP_RANKS, &kd, err)) != SD_OK ||
        (in->nk == 1 &&
         (st = sd_command_args_choice(a, "--children", sd_engine_children_names(), &in->kinds[0], err)) != SD_OK))
        return st;
    in->ranks = (size_t)kd;
    if (!in->npy) {
        in->cs.rows = 1;
        in->rows = 1;
        return overlap_load_files(a->req, &in->fp, &in->fq, err);
    }
    if ((st = sd_cmd_sampling_input(a, &in->kind, err)) == SD_OK &&
        (st = sd_cmd_sampling_read(a, &in->cs, err)) == SD_OK &&
        (st = sd_cmd_sampling_load_npy(a, &in->p, &in->q, err)) == SD_OK)
        in->rows = in->p.rows;
    return st;
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

/* Each rank's acceptance of children of kind kinds[j] into acc[k * rows + i] (rank k, row i), at
 * sampling setting i of a matrix pair (tg, dr: the setting) or of the files. */
static sd_status rank_acceptances(const sd_command_args *a, const rank_input *in, size_t i, size_t j, sd_sampling *tg,
                                  double *acc, sd_error *err)
{
    int sampled = in->kinds[j] == SD_CHILDREN_SAMPLED;
    *tg = sd_sampling_defaults();
    if (in->npy) {
        sd_sampling dr;
        sd_cmd_sampling_at(&in->cs, i, tg, &dr);
        char pn[300], qn[300];
        snprintf(pn, sizeof pn, "--p-npy: %.280s", sd_command_args_value(a, "--p-npy"));
        snprintf(qn, sizeof qn, "--q-npy: %.280s", sd_command_args_value(a, "--q-npy"));
        const sd_sampling_pair pair = { .p = &in->p, .q = &in->q, .kind = in->kind, .target = *tg, .draft = dr,
                                        .p_name = pn, .q_name = qn };
        return sd_sampling_rank_acceptances(&pair, in->ranks, sampled, acc, err);
    }
    double *work = malloc(in->fp.n * sizeof *work);
    if (work == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    sd_dist_rank_acceptance(in->fp.p, in->fq.p, in->fp.n, in->ranks, sampled, acc, work);
    free(work);
    return SD_OK;
}

/* The rows of setting i and kind kinds[j] into t (from column skip on), and --export-acceptance. */
static sd_status rank_rows(const sd_command_args *a, const rank_input *in, size_t i, size_t j, double *acc,
                           size_t skip, sd_table *t, sd_error *err)
{
    double mean[SD_TREE_MAX_RANK];
    sd_sampling tg;
    sd_status st = rank_acceptances(a, in, i, j, &tg, acc, err);
    if (st != SD_OK)
        return st;
    rank_means(acc, in->ranks, in->rows, mean);
    for (size_t k = 0; k < in->ranks && st == SD_OK; k++) {
        sd_summary sm;
        if ((st = sd_sampling_summarise(acc + k * in->rows, in->rows, &sm, err)) != SD_OK)
            break;
        const sd_cell row[11] = { sd_real(tg.temperature), sd_int((long long)tg.top_k), sd_real(tg.top_p),
                                  sd_real(tg.min_p), sd_text(sd_engine_children_name(in->kinds[j])),
                                  sd_int((long long)k), sd_int((long long)in->rows), sd_real(mean[k]),
                                  sd_real(sm.se), sd_real(sm.ci_low), sd_real(sm.ci_high) };
        st = sd_table_add(t, row + skip, err);
    }
    if (st == SD_OK && sd_command_args_given(a, "--export-acceptance")) {
        const sd_cmd_overlap_request *rq = a->req;
        char what[700];
        snprintf(what, sizeof what, "%s children, %zu ranks, the mean over %zu row%s of %.300s",
                 sd_engine_children_name(in->kinds[j]), in->ranks, in->rows, in->rows == 1 ? "" : "s",
                 in->npy ? rq->p_npy : rq->p_file);
        st = export_ranks(rq->export_acceptance, mean, in->ranks, what, err);
    }
    return st;
}

/* overlap --ranks K: a row per children kind and rank, for files (one pair) or every
 * setting of a matrix pair (its rows summarised); --export-acceptance writes the means. */
sd_status overlap_ranks(const sd_command_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "temperature", "top_k", "top_p", "min_p", "children", "rank", "rows", "p",
                                        "p_se", "ci95_low", "ci95_high" };
    rank_input in;
    sd_table *t = NULL;
    double *acc = NULL;
    sd_status st = rank_read(a, &in, err);
    size_t skip = in.npy ? 0 : 4;
    if (st == SD_OK && sd_command_args_given(a, "--export-acceptance") && (in.nk != 1 || in.cs.rows != 1))
        st = sd_status_fail(err, SD_EINVAL, "--export-acceptance: writes one acceptance: give one --children and one "
                            "sampling setting");
    if (st == SD_OK && (acc = malloc(in.ranks * in.rows * sizeof *acc)) == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory for %zu rows", in.rows);
    if (st == SD_OK)
        st = sd_command_table(11 - skip, cols + skip, &t, err);
    for (size_t i = 0; i < in.cs.rows && st == SD_OK; i++)
        for (size_t j = 0; j < in.nk && st == SD_OK; j++)
            st = rank_rows(a, &in, i, j, acc, skip, t, err);
    if (st == SD_OK)
        st = sd_table_note(t, err,
                           "p: the chance that the child of that rank is the one accepted (doc/trees.md): top-k, the "
                           "target's probability of the draft's k-th most likely token; sampled, beta_k prod_{j<k} "
                           "(1 - beta_j) for draws from q.  p_se and the interval: over the rows (0 for one pair).");
    free(acc);
    rank_input_free(&in);
    return sd_command_finish(st, NULL, 0, t, out);
}


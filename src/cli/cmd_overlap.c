/* cmd_overlap.c -- beta and D_LK of two distribution files (eqs. 1, 5, 6). */
#include <stdlib.h>

#include "cli.h"

static const sd_domain DRAFTS = { "--drafts", 1, 64, 1 };

static sd_status run_overlap(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "beta", "tv", "drafts", "acceptance" };
    sd_dist p = { 0 }, q = { 0 };
    sd_table *t = NULL;
    double k = 1;
    int with_drafts = cli_given(a, "--drafts");
    sd_status st;
    if ((st = cli_number(a, &DRAFTS, "1", &k, err)) == SD_OK && (st = sd_dist_load(a->pos[0], &p, err)) == SD_OK &&
        (st = sd_dist_load(a->pos[1], &q, err)) == SD_OK &&
        (st = sd_dist_compatible(&p, &q, a->pos[0], a->pos[1], err)) == SD_OK &&
        (st = cli_table(with_drafts ? 4 : 2, cols, &t, err)) == SD_OK) {
        double *work = malloc(p.n * sizeof *work);
        if (work == NULL)
            st = sd_fail(err, SD_ENOMEM, "out of memory");
        else {
            const sd_cell row[] = { sd_real(sd_dist_overlap(p.p, q.p, p.n)), sd_real(sd_dist_tv(p.p, q.p, p.n)),
                                    sd_int((long long)k), sd_real(sd_dist_multi_acceptance(p.p, q.p, p.n, (size_t)k, work)) };
            st = sd_table_add(t, row, err);
        }
        free(work);
    }
    sd_dist_free(&p);
    sd_dist_free(&q);
    return cli_finish(st, NULL, 0, t, out);
}

static const cli_option overlap_options[] = {
    { "--drafts", "K", "add drafts and acceptance: P(one of K drafts accepted), recursive rejection" },
    { NULL, NULL, NULL },
};

const cli_command cmd_overlap = {
    "overlap", "overlap P_FILE Q_FILE [--drafts K]",
    "acceptance probability beta = sum min(p, q) and D_LK = TV(p, q) (eqs. 1, 5, 6)",
    overlap_options, 2, 2, run_overlap, 0, NULL, NULL, 0,
};

/* cmd_overlap.c -- beta and D_LK of two distribution files (eqs. 1, 5, 6). */
#include "cli.h"
#include "dist.h"

static sd_status run_overlap(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "beta", "tv" };
    sd_dist p = { 0 }, q = { 0 };
    sd_table *t = NULL;
    sd_status st;
    if ((st = sd_dist_load(a->pos[0], &p, err)) == SD_OK &&
        (st = sd_dist_load(a->pos[1], &q, err)) == SD_OK &&
        (st = sd_dist_compatible(&p, &q, a->pos[0], a->pos[1], err)) == SD_OK &&
        (st = cli_table(2, cols, &t, err)) == SD_OK) {
        const sd_cell row[] = { sd_real(sd_dist_overlap(p.p, q.p, p.n)), sd_real(sd_dist_tv(p.p, q.p, p.n)) };
        st = sd_table_add(t, row, err);
    }
    sd_dist_free(&p);
    sd_dist_free(&q);
    return cli_finish(st, NULL, 0, t, out);
}

static const cli_option overlap_options[] = { { NULL, NULL, NULL } };

const cli_command cmd_overlap = {
    "overlap", "overlap P_FILE Q_FILE",
    "acceptance probability beta = sum min(p, q) and D_LK = TV(p, q) (eqs. 1, 5, 6)",
    overlap_options, 2, 2, run_overlap, 0, NULL,
};

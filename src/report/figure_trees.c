/* figure_trees.c -- the token-tree figures (see figure.h), at Sequoia's published per-rank
 * acceptance (data/sequoia-acceptance.tsv, tree.h): expected tokens against the node budget
 * for chains, k-ary trees, SGLang's defaults and the optimal tree; the optimal tree's
 * speed-up against the budget on the roofline presets; the optimal tree drawn. */
#include "figure_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/calibrate.h"
#include "specdec/cost.h"
#include "specdec/data.h"
#include "specdec/table.h"
#include "specdec/tree.h"

#define TREE_DATA "sequoia-acceptance.tsv"
enum { TREE_BUDGET_MAX = 64, TREE_DRAWN_BUDGET = 15 };
static const char *const TREE_TARGET = "llama-3.1-8b", *const TREE_DRAFT = "llama-3.2-1b",
                         *const TREE_HARDWARE = "h100-sxm";
static const double TREE_CONTEXT = 1024, TREE_BATCHES[] = { 1, 16, 64 };

/* Sequoia's vector, found as data files are (data.h). */
static sd_status tree_acceptance(const sd_figure_input *in, sd_tree_accept *a, sd_error *err)
{
    char path[4096];
    sd_status st = sd_data_find(in->data_dir, TREE_DATA, path, sizeof path, err);
    return st == SD_OK ? sd_tree_accept_load(path, a, err) : st;
}

/* A table of these columns into out->block[i]. */
static sd_status tree_block(sd_figure_data *out, size_t i, size_t ncols, const char *const *cols, sd_error *err)
{
    out->block[i] = sd_table_alloc(ncols, cols);
    if (out->nblocks < i + 1)
        out->nblocks = i + 1;
    return out->block[i] ? SD_OK : sd_status_fail(err, SD_ENOMEM, "out of memory");
}

sd_status sd_figure_tree_budget(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                sd_error *err)
{
    (void)name, (void)variant;
    static const char *const c0[] = { "budget", "chain", "optimal tree" }, *const c1[] = { "budget", "tokens",
                                                                                           "label" };
    static const char *const named[] = { "kary:1,2", "kary:2,2", "kary:3,2", "kary:4,2", "kary:5,2", "kary:1,4",
                                         "kary:2,4", "kary:3,3", "sglang:3,1,4", "sglang:5,4,8" };
    sd_tree_accept a;
    sd_tree *t = malloc(sizeof *t);
    sd_status st = t ? tree_acceptance(in, &a, err) : sd_status_fail(err, SD_ENOMEM, "out of memory");
    if (st == SD_OK && (st = tree_block(out, 0, 3, c0, err)) == SD_OK)
        st = tree_block(out, 1, 3, c1, err);
    for (size_t n = 1; st == SD_OK && n <= TREE_BUDGET_MAX; n++) {
        double opt, chain;
        char g[32];
        snprintf(g, sizeof g, "chain:%zu", n);
        if ((st = sd_tree_parse(g, &a, t, "figure", err)) != SD_OK)
            break;
        chain = sd_tree_expected_tokens(t, &a);
        if ((st = sd_tree_optimal(n, SD_TREE_MAX_DEPTH, &a, t, &opt, err)) == SD_OK) {
            const sd_cell row[] = { sd_int((long long)n), sd_real(chain), sd_real(opt) };
            st = sd_table_add(out->block[0], row, err);
        }
    }
    for (size_t i = 0; st == SD_OK && i < sizeof named / sizeof *named; i++)
        if ((st = sd_tree_parse(named[i], &a, t, "figure", err)) == SD_OK && t->n <= TREE_BUDGET_MAX) {
            const sd_cell row[] = { sd_int((long long)t->n), sd_real(sd_tree_expected_tokens(t, &a)),
                                    sd_text(named[i]) };
            st = sd_table_add(out->block[1], row, err);
        }
    free(t);
    return st;
}

sd_status sd_figure_tree_speedup(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                 sd_error *err)
{
    (void)name, (void)variant;
    static const char *const cols[] = { "budget", "B = 1", "B = 16", "B = 64" };
    sd_tree_accept a;
    sd_presets p;
    const sd_model_spec *tm = NULL, *dm = NULL;
    const sd_hardware *h = NULL;
    sd_tree *t = malloc(sizeof *t);
    sd_status st = t ? tree_acceptance(in, &a, err) : sd_status_fail(err, SD_ENOMEM, "out of memory");
    if (st != SD_OK || (st = sd_presets_load(in->data_dir, NULL, NULL, &p, err)) != SD_OK) {
        free(t);
        return st;
    }
    if ((st = sd_presets_model(&p, "figure", TREE_TARGET, &tm, err)) == SD_OK &&
        (st = sd_presets_model(&p, "figure", TREE_DRAFT, &dm, err)) == SD_OK &&
        (st = sd_presets_hardware(&p, "figure", TREE_HARDWARE, &h, err)) == SD_OK)
        st = tree_block(out, 0, 4, cols, err);
    sd_roofline_request rq = sd_cost_roofline_defaults();
    rq.target = tm, rq.draft = dm, rq.hardware = h;
    sd_calibration *fits = NULL;
    size_t nfits = 0;
    const sd_calibration *c, *cd;
    if (st == SD_OK && (st = sd_calibrate_load_defaults(in->data_dir, &fits, &nfits, err)) == SD_OK)
        sd_calibrate_apply_request(fits, nfits, &rq, &c, &cd); /* the shipped calibration's terms */
    /* at each budget and batch, the best over the depth limits 1 .. n of the optimal tree's speed-up */
    for (size_t n = 1; st == SD_OK && n <= TREE_BUDGET_MAX; n++) {
        double best[3] = { 0.0, 0.0, 0.0 };
        for (size_t dmax = 1; st == SD_OK && dmax <= n; dmax++) {
            double e;
            if ((st = sd_tree_optimal(n, dmax, &a, t, &e, err)) != SD_OK)
                break;
            for (size_t j = 0; j < 3; j++) {
                double t1 = sd_cost_plain_time(&rq, TREE_BATCHES[j], TREE_CONTEXT);
                double f = e * t1 / sd_cost_tree_time(&rq, t, TREE_BATCHES[j], TREE_CONTEXT, e, NULL);
                best[j] = f > best[j] ? f : best[j];
            }
        }
        const sd_cell row[4] = { sd_int((long long)n), sd_real(best[0]), sd_real(best[1]), sd_real(best[2]) };
        if (st == SD_OK)
            st = sd_table_add(out->block[0], row, err);
    }
    out->target = TREE_TARGET;
    out->draft = TREE_DRAFT;
    out->context = TREE_CONTEXT;
    free(fits);
    sd_presets_free(&p);
    free(t);
    return st;
}

sd_status sd_figure_tree_drawn(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                               sd_error *err)
{
    (void)name, (void)variant;
    static const char *const c0[] = { "depth", "place", "reach", "label" }, *const c1[] = { "depth_from", "place_from",
                                                                                            "depth_to", "place_to",
                                                                                            "label", "p" };
    sd_tree_accept a;
    sd_tree *t = malloc(sizeof *t);
    double e;
    sd_status st = t ? tree_acceptance(in, &a, err) : sd_status_fail(err, SD_ENOMEM, "out of memory");
    if (st == SD_OK)
        st = sd_tree_optimal(TREE_DRAWN_BUDGET, SD_TREE_MAX_DEPTH, &a, t, &e, err);
    if (st == SD_OK && (st = tree_block(out, 0, 4, c0, err)) == SD_OK)
        st = tree_block(out, 1, 6, c1, err);
    if (st != SD_OK) {
        free(t);
        return st;
    }
    /* each level centred on 0, in breadth-first order from the top: the root at (0, 0) */
    double place[SD_TREE_MAX_NODES], reach[SD_TREE_MAX_NODES];
    size_t width[SD_TREE_MAX_DEPTH + 1] = { 0 }, seen[SD_TREE_MAX_DEPTH + 1] = { 0 };
    for (size_t i = 0; i < t->n; i++)
        width[t->depth[i]]++;
    const sd_cell root[] = { sd_int(0), sd_real(0.0), sd_real(1.0), sd_text("root") };
    st = sd_table_add(out->block[0], root, err);
    for (size_t i = 0; st == SD_OK && i < t->n; i++) {
        size_t d = t->depth[i];
        double p = sd_tree_accept_at(&a, d, t->rank[i]);
        place[i] = ((double)width[d] - 1.0) / 2.0 - (double)seen[d]++; /* rank paths down from the top */
        reach[i] = (t->parent[i] < 0 ? 1.0 : reach[t->parent[i]]) * p;
        /* a node's label under it, an edge's (its rank, one character: p by rank goes in the axis
         * label) at its middle, half a depth from every node label: the two never overlap */
        char node[32], edge[24];
        snprintf(node, sizeof node, "%.3f", reach[i]);
        snprintf(edge, sizeof edge, "%u", (unsigned)t->rank[i]);
        const sd_cell nrow[] = { sd_int((long long)d), sd_real(place[i]), sd_real(reach[i]), sd_text(node) };
        const sd_cell erow[] = { sd_int((long long)d - 1), sd_real(t->parent[i] < 0 ? 0.0 : place[t->parent[i]]),
                                 sd_int((long long)d), sd_real(place[i]), sd_text(edge), sd_real(p) };
        if ((st = sd_table_add(out->block[0], nrow, err)) == SD_OK)
            st = sd_table_add(out->block[1], erow, err);
    }
    out->alpha_hat = e; /* the drawn tree's (T1), for the title */
    free(t);
    return st;
}

/* cmd_tree_grid.c -- the grids of `specdec tree` (cmd_tree_impl.h): the
 * optimal tree of each (--budget, --depth) by Sequoia's dynamic program
 * (sd_tree_optimal), and SGLang's (--steps, --topk, --num-draft-tokens)
 * built as SGLang builds them (sd_tree_sglang) and ranked by their gain. */
#include "cmd_tree_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const sd_domain TREE_BUDGET = { "--budget", 1, SD_TREE_MAX_NODES, 1 };
const sd_domain TREE_DEPTH = { "--depth", 1, SD_TREE_MAX_DEPTH, 1 };
const sd_domain TREE_STEPS = { "--steps", 1, SD_TREE_MAX_DEPTH, 1 };
const sd_domain TREE_TOPK = { "--topk", 1, SD_TREE_MAX_RANK, 1 };
const sd_domain TREE_NDT = { "--num-draft-tokens", 2, SD_TREE_MAX_NODES + 1, 1 };

/* The limits of a grid: the optimal trees' dynamic programs (inner steps, tree.h: about a second
 * of work) and SGLang's settings. */
#define OPTIMAL_MAX_PAIRS 4096
#define OPTIMAL_MAX_WORK 4e9
#define TEXT_(x) #x
#define TEXT(x) TEXT_(x)
#define SGLANG_MAX_SETTINGS 1024
#define SGLANG_LISTED_REFUSALS 24 /* the refused settings a note names */

/* ---- --optimal --------------------------------------------------------------------------------- */

/* --budget and --depth into l[0], l[1] and their pairs into *rows, within the grid's limits. */
static sd_status optimal_grid(const sd_command_args *a, const sd_tree_accept *acc, sd_list *l, size_t *rows,
                              sd_error *err)
{
    sd_status st;
    if ((st = sd_command_args_list(a, &TREE_BUDGET, &l[0], err)) != SD_OK ||
        (st = sd_command_args_list(a, &TREE_DEPTH, &l[1], err)) != SD_OK ||
        (st = sd_command_grid_size(l, 2, rows, err)) != SD_OK)
        return st;
    double work = 0.0; /* the grid's dynamic programs, in inner steps (tree.h) */
    for (size_t i = 0; i < l[0].n; i++)
        for (size_t j = 0; j < l[1].n; j++) {
            double nn = l[0].v[i], dd = l[1].v[j] < nn ? l[1].v[j] : nn;
            work += dd * (double)acc->ranks * nn * nn / 2.0;
        }
    if (*rows > OPTIMAL_MAX_PAIRS || work > OPTIMAL_MAX_WORK)
        return sd_status_fail(err, SD_EINVAL,
                              "--budget: the grid of %zu (budget, depth) pairs takes %.3g steps of the dynamic "
                              "program: at most %d pairs and " TEXT(OPTIMAL_MAX_WORK) " steps (lower the budgets, "
                              "depths or ranks)", *rows, work, OPTIMAL_MAX_PAIRS);
    return SD_OK;
}

/* At cost setting j with the presets: the row of the tree with the largest speed-up, and a note
 * when none beats plain decoding. */
static sd_status optimal_best(const tree_cost *c, size_t j, const sd_tree_accept *acc, const sd_tree *trees,
                              const double *lead, size_t rows, sd_table *t, sd_error *err)
{
    size_t best = 0;
    double gbest = -1.0;
    for (size_t i = 0; i < rows; i++) {
        double g = tree_gain(c, j, &trees[i], acc);
        if (g > gbest) {
            gbest = g;
            best = i;
        }
    }
    sd_status st = tree_row(t, &trees[best], acc, c, j, &lead[2 * best], 2, err);
    if (st == SD_OK && gbest < 1.0)
        st = sd_table_note(t, err, "batch %.0f: no tree of the grid beats plain decoding (best speed-up %.3g): do "
                           "not speculate.", c->batch.v[j], gbest);
    return st;
}

sd_status tree_rows_optimal(const sd_command_args *a, const sd_tree_accept *acc, const tree_cost *c, sd_table *t,
                            sd_error *err)
{
    sd_list l[2] = { { 0 } };
    size_t rows = 0;
    sd_tree *trees = NULL;
    double *lead = NULL;
    sd_status st = optimal_grid(a, acc, l, &rows, err);
    if (st == SD_OK) {
        trees = malloc(rows * sizeof *trees);
        lead = malloc(2 * rows * sizeof *lead);
        if (trees == NULL || lead == NULL)
            st = sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
    }
    for (size_t i = 0; i < rows && st == SD_OK; i++) {
        double tokens;
        sd_command_grid_point(l, 2, i, &lead[2 * i]);
        st = sd_tree_optimal((size_t)lead[2 * i], (size_t)lead[2 * i + 1], acc, &trees[i], &tokens, err);
    }
    for (size_t i = 0; i < rows && st == SD_OK; i++)
        if (trees[i].n == 0) {
            st = sd_table_note(t, err, "no node pays at this acceptance (every p is 0): the optimal tree is empty, "
                               "do not speculate.");
            break;
        }
    for (size_t j = 0; j < tree_cost_settings(c) && st == SD_OK; j++) {
        if (c->presets) {
            st = optimal_best(c, j, acc, trees, lead, rows, t, err);
            continue;
        }
        for (size_t i = 0; i < rows && st == SD_OK; i++)
            st = tree_row(t, &trees[i], acc, c, j, &lead[2 * i], 2, err);
    }
    if (st == SD_OK && c->presets)
        st = sd_table_note(t, err, "each row: the (budget, max_depth) of the grid with the largest speed-up at that "
                           "batch (%zu trees searched).", rows);
    free(trees);
    free(lead);
    sd_parse_list_free(&l[0]);
    sd_parse_list_free(&l[1]);
    return st;
}

/* ---- --sglang-grid ----------------------------------------------------------------------------- */

typedef struct {
    double lead[3], gain;
    sd_tree *tree;
} sg_row;

static int sg_before(const void *x, const void *y)
{
    const sg_row *a = x, *b = y;
    if (a->gain > b->gain || a->gain < b->gain)
        return a->gain > b->gain ? -1 : 1;
    for (int k = 0; k < 3; k++) /* ties by (steps, topk, num_draft_tokens): the same order everywhere */
        if (a->lead[k] < b->lead[k] || a->lead[k] > b->lead[k])
            return a->lead[k] < b->lead[k] ? -1 : 1;
    return 0;
}

/* The settings SGLang takes, built; what it refuses and what lies beyond the acceptance's ranks. */
typedef struct {
    sg_row *r;
    size_t kept, refused, beyond;
    char why[sizeof(((sd_error *)0)->msg)]; /* SGLang's reason for the first refusal */
    char list[800];                         /* the first refusals, "(s, k, n) ..." */
} sg_grid;

static void sg_free(sg_grid *g)
{
    for (size_t i = 0; g->r != NULL && i < g->kept; i++)
        free(g->r[i].tree);
    free(g->r);
}

/* Setting x = (steps, topk, num_draft_tokens) into g: kept, refused (noted) or beyond the ranks. */
static sd_status sg_setting(double *x, const sd_tree_accept *acc, sg_grid *g, sd_error *err)
{
    if ((size_t)x[1] > acc->ranks) { /* no acceptance for those ranks: not SGLang's refusal */
        g->beyond++;
        return SD_OK;
    }
    sd_error e2;
    sd_tree *tr = malloc(sizeof *tr);
    if (tr == NULL)
        return sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
    if (sd_tree_sglang((size_t)x[0], (size_t)x[1], (size_t)x[2], acc, tr, "SGLang", &e2) != SD_OK) {
        if (g->refused++ == 0)
            memcpy(g->why, e2.msg, sizeof g->why);
        if (g->refused <= SGLANG_LISTED_REFUSALS)
            snprintf(g->list + strlen(g->list), sizeof g->list - strlen(g->list), "%s(%.0f, %.0f, %.0f)",
                     g->refused > 1 ? " " : "", x[0], x[1], x[2]);
        free(tr);
        return SD_OK;
    }
    memcpy(g->r[g->kept].lead, x, sizeof g->r[g->kept].lead);
    g->r[g->kept++].tree = tr;
    return SD_OK;
}

/* --steps, --topk and --num-draft-tokens, each of their settings into g. */
static sd_status sg_build(const sd_command_args *a, const sd_tree_accept *acc, sg_grid *g, sd_error *err)
{
    sd_list l[3] = { { 0 } };
    size_t rows = 0;
    sd_status st;
    if ((st = sd_command_args_list(a, &TREE_STEPS, &l[0], err)) == SD_OK &&
        (st = sd_command_args_list(a, &TREE_TOPK, &l[1], err)) == SD_OK &&
        (st = sd_command_args_list(a, &TREE_NDT, &l[2], err)) == SD_OK &&
        (st = sd_command_grid_size(l, 3, &rows, err)) == SD_OK && rows > SGLANG_MAX_SETTINGS)
        st = sd_status_fail(err, SD_EINVAL, "--sglang-grid: %zu settings: at most %d (shorten --steps, --topk or "
                            "--num-draft-tokens)", rows, SGLANG_MAX_SETTINGS);
    if (st == SD_OK && (g->r = calloc(rows, sizeof *g->r)) == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
    for (size_t i = 0; i < rows && st == SD_OK; i++) {
        double x[3];
        sd_command_grid_point(l, 3, i, x);
        if ((size_t)x[1] == 1) { /* SGLang sets num_draft_tokens = steps + 1 for topk 1: one row per steps */
            if ((size_t)x[2] != (size_t)l[2].v[0])
                continue;
            x[2] = x[0] + 1.0;
        }
        st = sg_setting(x, acc, g, err);
    }
    for (int k = 0; k < 3; k++)
        sd_parse_list_free(&l[k]);
    return st;
}

/* The kept settings ranked at each cost setting, their rows. */
static sd_status sg_rows(const tree_cost *c, const sd_tree_accept *acc, sg_grid *g, sd_table *t, sd_error *err)
{
    sd_status st = SD_OK;
    for (size_t j = 0; j < tree_cost_settings(c) && st == SD_OK; j++) {
        for (size_t i = 0; i < g->kept; i++)
            g->r[i].gain = !c->presets && !c->cost.n ? sd_tree_expected_tokens(g->r[i].tree, acc)
                                                     : tree_gain(c, j, g->r[i].tree, acc);
        qsort(g->r, g->kept, sizeof *g->r, sg_before);
        for (size_t i = 0; i < g->kept && st == SD_OK; i++)
            st = tree_row(t, g->r[i].tree, acc, c, j, g->r[i].lead, 3, err);
    }
    return st;
}

/* No setting kept: why; else the notes on the ranking, the settings beyond the ranks and those refused. */
static sd_status sg_notes(const tree_cost *c, const sd_tree_accept *acc, const sg_grid *g, sd_table *t,
                          sd_error *err)
{
    if (g->kept == 0)
        return g->refused ? sd_status_fail(err, SD_EINVAL, "--sglang-grid: SGLang takes no setting of the grid (%s)",
                                           g->why)
                          : sd_status_fail(err, SD_EINVAL, "--sglang-grid: every topk of the grid is beyond the %zu "
                                           "rank%s the acceptance gives", acc->ranks, acc->ranks == 1 ? "" : "s");
    sd_status st = sd_table_note(t, err, "rows ranked by %s; topk 1 runs num_draft_tokens = steps + 1 whatever the "
                                 "list says (SGLang sets it so), one row per steps.",
                                 c->presets ? "the speed-up at each batch" : c->cost.n ? "improvement at each cost"
                                                                                       : "expected tokens");
    if (st == SD_OK && g->beyond)
        st = sd_table_note(t, err, "%zu setting%s left out: topk beyond the %zu rank%s the acceptance gives.",
                           g->beyond, g->beyond == 1 ? "" : "s", acc->ranks, acc->ranks == 1 ? "" : "s");
    if (st == SD_OK && g->refused)
        st = sd_table_note(t, err, "SGLang refuses %zu setting%s of the grid: %s%s; the first: %s.", g->refused,
                           g->refused == 1 ? "" : "s", g->list, g->refused > SGLANG_LISTED_REFUSALS ? " ..." : "",
                           g->why);
    return st;
}

sd_status tree_rows_sglang(const sd_command_args *a, const sd_tree_accept *acc, const tree_cost *c, sd_table *t,
                           sd_error *err)
{
    sg_grid g = { .r = NULL };
    sd_status st = sg_build(a, acc, &g, err);
    if (st == SD_OK)
        st = sg_rows(c, acc, &g, t, err);
    if (st == SD_OK)
        st = sg_notes(c, acc, &g, t, err);
    sg_free(&g);
    return st;
}

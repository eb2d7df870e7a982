/* cmd_tree.c -- `specdec tree`: the expected tokens per target pass of a draft tree, (T1)
 * of tree.h, for trees written as vLLM, Medusa or SGLang configure them; the optimal tree
 * for a node budget (Sequoia's dynamic program); SGLang's (steps, topk, num_draft_tokens)
 * ranked by predicted speed-up.  Costs come from --cost (eq. 10 with gamma = the depth) or
 * from the roofline presets (sd_cost_tree_time). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "cli.h"

static const sd_domain TREE_BUDGET = { "--budget", 1, SD_TREE_MAX_NODES, 1 };
static const sd_domain TREE_DEPTH = { "--depth", 1, SD_TREE_MAX_DEPTH, 1 };
static const sd_domain TREE_RANK = { "--acceptance-rank", 0.0, 1.0, 0 };
static const sd_domain TREE_STEPS = { "--steps", 1, SD_TREE_MAX_DEPTH, 1 };
static const sd_domain TREE_TOPK = { "--topk", 1, SD_TREE_MAX_RANK, 1 };
static const sd_domain TREE_NDT = { "--num-draft-tokens", 2, SD_TREE_MAX_NODES + 1, 1 };

/* ---- the inputs --------------------------------------------------------------------------- */

/* The acceptance: exactly one of --alpha, --acceptance-rank and --acceptance-file. */
static sd_status tree_acceptance(const cli_args *a, sd_tree_accept *acc, sd_error *err)
{
    int n = cli_given(a, "--alpha") + cli_given(a, "--acceptance-rank") + cli_given(a, "--acceptance-file");
    if (n != 1)
        return sd_status_fail(err, SD_EINVAL,
                              "acceptance: give one of --alpha A (a chain), --acceptance-rank P0,P1,... "
                              "(the same at every depth) or --acceptance-file FILE (depth x rank)%s",
                              n > 1 ? ", not several" : "");
    if (cli_given(a, "--acceptance-file"))
        return sd_tree_accept_load(cli_value(a, "--acceptance-file"), acc, err);
    if (cli_given(a, "--alpha")) {
        double alpha;
        sd_status st = cli_number(a, &CLI_ALPHA, &alpha, err);
        return st == SD_OK ? sd_tree_accept_chain(alpha, acc, err) : st;
    }
    sd_list l = { 0 };
    sd_status st = cli_list(a, &TREE_RANK, &l, err);
    if (st == SD_OK)
        st = sd_tree_accept_ranks(l.v, l.n, acc, "--acceptance-rank", err);
    free(l.v);
    return st;
}

/* What a tree costs: nothing, --cost LIST (eq. 10 at gamma = depth), or the presets at
 * each --batch (sd_cost_tree_time). */
typedef struct {
    sd_list cost, batch;
    int presets;
    double context;
    sd_presets p;
    sd_roofline_request rq;
    cli_costs cc;
    sd_roofline_request *draws; /* the calibration's draws (SD_CALIBRATE_BAND_DRAWS; NULL: no fit, no band) */
} tree_cost;

static sd_status tree_cost_read(const cli_args *a, tree_cost *c, sd_error *err)
{
    memset(c, 0, sizeof *c);
    c->presets = cli_given(a, "--target") || cli_given(a, "--draft") || cli_given(a, "--hardware");
    if (c->presets && cli_given(a, "--cost"))
        return sd_status_fail(err, SD_EINVAL, "--cost: give --cost LIST or --target, --draft and --hardware (roofline "
                              "presets), not both");
    if (!c->presets && (cli_given(a, "--batch") || cli_given(a, "--context")))
        return sd_status_fail(err, SD_EINVAL, "%s: goes with the roofline presets (--target, --draft, --hardware)",
                              cli_given(a, "--batch") ? "--batch" : "--context");
    if (cli_given(a, "--cost"))
        return cli_list(a, &CLI_COST, &c->cost, err);
    if (!c->presets)
        return SD_OK;
    sd_status st;
    if ((st = cli_list(a, &CLI_BATCH, &c->batch, err)) != SD_OK ||
        (st = cli_number(a, &CLI_CONTEXT, &c->context, err)) != SD_OK || (st = cli_presets_load(a, &c->p, err)) != SD_OK) {
        c->presets = 0; /* nothing to free */
        return st;
    }
    if ((st = cli_roofline_request(a, &c->p, &c->rq, &c->cc, err)) != SD_OK) {
        sd_presets_free(&c->p);
        c->presets = 0;
        return st;
    }
    if (c->cc.fit == NULL)
        return SD_OK;
    if ((c->draws = malloc(SD_CALIBRATE_BAND_DRAWS * sizeof *c->draws)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
    return sd_calibrate_draws(&c->rq, c->cc.fit, c->cc.draft_fit, SD_CALIBRATE_BAND_DRAWS, SD_CALIBRATE_BAND_SEED,
                              c->draws, err);
}

static void tree_cost_free(tree_cost *c)
{
    free(c->cost.v);
    free(c->batch.v);
    free(c->draws);
    if (c->presets) {
        cli_costs_free(&c->cc);
        sd_presets_free(&c->p);
    }
}

/* The settings a row is costed at: the costs or the batches (one empty setting without). */
static size_t cost_settings(const tree_cost *c)
{
    return c->presets ? c->batch.n : c->cost.n ? c->cost.n : 1;
}

/* The speed-up of tree tr (E tokens per pass) over plain decoding under request r at batch b. */
static double preset_gain(const tree_cost *c, const sd_roofline_request *r, double b, const sd_tree *tr, double e,
                          double *tt)
{
    double t1 = sd_cost_step_time(r->target, r->hardware, &r->params, b, 1.0, c->context, NULL);
    *tt = sd_cost_tree_time(r, tr, b, c->context, NULL);
    return e * t1 / *tt;
}

/* The gain of tree tr (E tokens per pass) at setting i: improvement (eq. 10 at gamma = the
 * depth) or the speed-up over plain decoding at batch i, with its band [*lo, *hi] under the
 * calibration's draws (NaN without; lo and hi NULL: not wanted); *ms the iteration's milliseconds with presets; 0
 * without a cost. */
static double cost_gain(const tree_cost *c, size_t i, const sd_tree *tr, double e, double *ms, int *fits, double *lo,
                        double *hi)
{
    *ms = 0.0;
    *fits = 1;
    if (lo != NULL)
        *lo = *hi = NAN;
    if (c->presets) {
        double b = c->batch.v[i], tt, gains[SD_CALIBRATE_BAND_DRAWS], x;
        double gain = preset_gain(c, &c->rq, b, tr, e, &tt);
        *ms = 1e3 * tt;
        *fits = sd_cost_fits(&c->rq, b, c->context, (double)tr->n);
        if (c->draws != NULL && lo != NULL) {
            for (size_t k = 0; k < SD_CALIBRATE_BAND_DRAWS; k++)
                gains[k] = preset_gain(c, &c->draws[k], b, tr, e, &x);
            gsl_sort(gains, 1, SD_CALIBRATE_BAND_DRAWS);
            *lo = gsl_stats_quantile_from_sorted_data(gains, 1, SD_CALIBRATE_BAND_DRAWS, SD_CALIBRATE_BAND_Q);
            *hi = gsl_stats_quantile_from_sorted_data(gains, 1, SD_CALIBRATE_BAND_DRAWS, 1 - SD_CALIBRATE_BAND_Q);
        }
        return gain;
    }
    return c->cost.n ? sd_theory_improvement_at(e, (double)sd_tree_depth(tr), c->cost.v[i]) : 0.0;
}

/* ---- the rows --------------------------------------------------------------------------- */

enum { LEAD_NONE, LEAD_OPTIMAL, LEAD_SGLANG };

/* The columns: the lead ones, nodes, depth, width, expected_tokens, the cost's, tree. */
static sd_status tree_table(int lead, const tree_cost *c, sd_table **t, sd_error *err)
{
    const char *cols[18];
    size_t n = 0;
    if (lead == LEAD_OPTIMAL)
        cols[n++] = "budget", cols[n++] = "max_depth";
    if (lead == LEAD_SGLANG)
        cols[n++] = "steps", cols[n++] = "topk", cols[n++] = "num_draft_tokens";
    cols[n++] = "nodes", cols[n++] = "depth", cols[n++] = "width", cols[n++] = "expected_tokens";
    if (c->presets)
        cols[n++] = "batch", cols[n++] = "iteration_ms", cols[n++] = "improvement", cols[n++] = "improvement_lo",
        cols[n++] = "improvement_hi", cols[n++] = "fits";
    else if (c->cost.n)
        cols[n++] = "cost", cols[n++] = "improvement";
    cols[n++] = "tree";
    return cli_table(n, cols, t, err);
}

/* One row of tree tr at cost setting i (lead: the row's lead cells, nlead of them). */
static sd_status tree_row(sd_table *t, const sd_tree *tr, const sd_tree_accept *acc, const tree_cost *c, size_t i,
                          const double *lead, size_t nlead, sd_error *err)
{
    size_t len = sd_tree_format(tr, NULL, 0);
    char *text = malloc(len + 1);
    if (text == NULL)
        return sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
    sd_tree_format(tr, text, len + 1);
    double e = sd_tree_expected_tokens(tr, acc), ms, lo, hi;
    int fits;
    double gain = cost_gain(c, i, tr, e, &ms, &fits, &lo, &hi);
    sd_cell row[18];
    size_t k = 0;
    for (size_t j = 0; j < nlead; j++)
        row[k++] = sd_int((long long)lead[j]);
    row[k++] = sd_int((long long)tr->n);
    row[k++] = sd_int((long long)sd_tree_depth(tr));
    row[k++] = sd_int((long long)sd_tree_width(tr));
    row[k++] = sd_real(e);
    if (c->presets) {
        row[k++] = sd_int((long long)c->batch.v[i]);
        row[k++] = sd_real(ms);
        row[k++] = sd_real(gain);
        row[k++] = isnan(lo) ? sd_text("-") : sd_real(lo);
        row[k++] = isnan(hi) ? sd_text("-") : sd_real(hi);
        row[k++] = sd_text(fits ? "yes" : "no");
    } else if (c->cost.n) {
        row[k++] = sd_real(c->cost.v[i]);
        row[k++] = sd_real(gain);
    }
    row[k++] = sd_text(text);
    sd_status st = sd_table_add(t, row, err);
    free(text);
    return st;
}

/* --tree SPEC[;SPEC...]: a row per tree and cost setting. */
static sd_status rows_trees(const cli_args *a, const sd_tree_accept *acc, const tree_cost *c, sd_tree *tr,
                            sd_table *t, sd_error *err)
{
    const char *s = cli_value(a, "--tree");
    char *copy = strdup(s), *save = NULL;
    sd_status st = copy ? SD_OK : sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
    for (char *spec = copy ? strtok_r(copy, ";", &save) : NULL; spec && st == SD_OK; spec = strtok_r(NULL, ";", &save))
        if ((st = sd_tree_parse(spec, acc, tr, "--tree", err)) == SD_OK)
            for (size_t i = 0; i < cost_settings(c) && st == SD_OK; i++)
                st = tree_row(t, tr, acc, c, i, NULL, 0, err);
    if (st == SD_OK && sd_table_nrows(t) == 0)
        st = sd_status_fail(err, SD_EINVAL, "--tree: no tree in '%s'", s);
    free(copy);
    return st;
}

/* --optimal: a row per (budget, depth) and cost; with the presets, the best (budget, depth)
 * at each batch. */
static sd_status rows_optimal(const cli_args *a, const sd_tree_accept *acc, const tree_cost *c, sd_tree *tr,
                              sd_table *t, sd_error *err)
{
    sd_list l[2] = { { 0 } };
    size_t rows = 0;
    sd_status st;
    if ((st = cli_list(a, &TREE_BUDGET, &l[0], err)) != SD_OK || (st = cli_list(a, &TREE_DEPTH, &l[1], err)) != SD_OK ||
        (st = cli_grid_size(l, 2, &rows, err)) != SD_OK) {
        free(l[0].v), free(l[1].v);
        return st;
    }
    double work = 0.0; /* the grid's dynamic programs, in inner steps (tree.h) */
    for (size_t i = 0; i < l[0].n; i++)
        for (size_t j = 0; j < l[1].n; j++) {
            double nn = l[0].v[i], dd = l[1].v[j] < nn ? l[1].v[j] : nn;
            work += dd * (double)acc->ranks * nn * nn / 2.0;
        }
    if (rows > 4096 || work > 4e9) {
        free(l[0].v), free(l[1].v);
        return sd_status_fail(err, SD_EINVAL,
                              "--budget: the grid of %zu (budget, depth) pairs takes %.3g steps of the dynamic "
                              "program: at most 4096 pairs and 4e9 steps (lower the budgets, depths or ranks)",
                              rows, work);
    }
    sd_tree *trees = malloc(rows * sizeof *trees);
    double *lead = malloc(2 * rows * sizeof *lead);
    if (trees == NULL || lead == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
    for (size_t i = 0; i < rows && st == SD_OK; i++) {
        double tokens;
        cli_grid_point(l, 2, i, &lead[2 * i]);
        st = sd_tree_optimal((size_t)lead[2 * i], (size_t)lead[2 * i + 1], acc, &trees[i], &tokens, err);
    }
    for (size_t i = 0; i < rows && st == SD_OK; i++)
        if (trees[i].n == 0) {
            st = sd_table_note(t, err, "no node pays at this acceptance (every p is 0): the optimal tree is empty, "
                               "do not speculate.");
            break;
        }
    for (size_t j = 0; j < cost_settings(c) && st == SD_OK; j++) {
        if (!c->presets) {
            for (size_t i = 0; i < rows && st == SD_OK; i++)
                st = tree_row(t, &trees[i], acc, c, j, &lead[2 * i], 2, err);
            continue;
        }
        size_t best = 0;
        double gbest = -1.0;
        for (size_t i = 0; i < rows; i++) {
            double ms;
            int fits;
            double g = cost_gain(c, j, &trees[i], sd_tree_expected_tokens(&trees[i], acc), &ms, &fits, NULL, NULL);
            if (g > gbest) {
                gbest = g;
                best = i;
            }
        }
        st = tree_row(t, &trees[best], acc, c, j, &lead[2 * best], 2, err);
        if (st == SD_OK && gbest < 1.0)
            st = sd_table_note(t, err, "batch %.0f: no tree of the grid beats plain decoding (best speed-up %.3g): do "
                               "not speculate.", c->batch.v[j], gbest);
    }
    if (st == SD_OK && c->presets)
        st = sd_table_note(t, err, "each row: the (budget, max_depth) of the grid with the largest speed-up at that "
                           "batch (%zu trees searched).", rows);
    (void)tr;
    free(trees);
    free(lead);
    free(l[0].v), free(l[1].v);
    return st;
}

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

/* --sglang-grid: every (steps, topk, num_draft_tokens) of the lists that SGLang accepts,
 * ranked by its gain at each cost setting; what SGLang refuses or adjusts, in the notes. */
static sd_status rows_sglang(const cli_args *a, const sd_tree_accept *acc, const tree_cost *c, sd_table *t,
                             sd_error *err)
{
    sd_list l[3] = { { 0 } };
    size_t rows = 0, kept = 0, refused = 0, beyond = 0;
    sd_status st;
    if ((st = cli_list(a, &TREE_STEPS, &l[0], err)) != SD_OK || (st = cli_list(a, &TREE_TOPK, &l[1], err)) != SD_OK ||
        (st = cli_list(a, &TREE_NDT, &l[2], err)) != SD_OK || (st = cli_grid_size(l, 3, &rows, err)) != SD_OK)
        goto done;
    if (rows > 1024) {
        st = sd_status_fail(err, SD_EINVAL, "--sglang-grid: %zu settings: at most 1024 (shorten --steps, --topk or "
                            "--num-draft-tokens)", rows);
        goto done;
    }
    sg_row *r = calloc(rows, sizeof *r);
    if (r == NULL) {
        st = sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
        goto done;
    }
    char why[sizeof err->msg] = "", list[800] = "";
    for (size_t i = 0; i < rows && st == SD_OK; i++) {
        double x[3];
        cli_grid_point(l, 3, i, x);
        if ((size_t)x[1] == 1) { /* SGLang sets num_draft_tokens = steps + 1 for topk 1: one row per steps */
            if ((size_t)x[2] != (size_t)l[2].v[0])
                continue;
            x[2] = x[0] + 1.0;
        }
        if ((size_t)x[1] > acc->ranks) { /* no acceptance for those ranks: not SGLang's refusal */
            beyond++;
            continue;
        }
        sd_error e2;
        sd_tree *tr = malloc(sizeof *tr);
        if (tr == NULL) {
            st = sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
            break;
        }
        if (sd_tree_sglang((size_t)x[0], (size_t)x[1], (size_t)x[2], acc, tr, "SGLang", &e2) != SD_OK) {
            if (refused++ == 0)
                memcpy(why, e2.msg, sizeof why);
            if (refused <= 24)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s(%.0f, %.0f, %.0f)", refused > 1 ? " " : "",
                         x[0], x[1], x[2]);
            free(tr);
            continue;
        }
        memcpy(r[kept].lead, x, sizeof x);
        r[kept++].tree = tr;
    }
    for (size_t j = 0; j < cost_settings(c) && st == SD_OK; j++) {
        for (size_t i = 0; i < kept; i++) {
            double ms;
            int fits;
            r[i].gain = cost_gain(c, j, r[i].tree, sd_tree_expected_tokens(r[i].tree, acc), &ms, &fits, NULL,
                                  NULL);
            if (!c->presets && !c->cost.n)
                r[i].gain = sd_tree_expected_tokens(r[i].tree, acc);
        }
        qsort(r, kept, sizeof *r, sg_before);
        for (size_t i = 0; i < kept && st == SD_OK; i++)
            st = tree_row(t, r[i].tree, acc, c, j, r[i].lead, 3, err);
    }
    if (st == SD_OK && kept == 0)
        st = refused ? sd_status_fail(err, SD_EINVAL, "--sglang-grid: SGLang takes no setting of the grid (%s)", why)
                     : sd_status_fail(err, SD_EINVAL, "--sglang-grid: every topk of the grid is beyond the %zu rank%s "
                                      "the acceptance gives", acc->ranks, acc->ranks == 1 ? "" : "s");
    if (st == SD_OK)
        st = sd_table_note(t, err, "rows ranked by %s; topk 1 runs num_draft_tokens = steps + 1 whatever the list says (SGLang "
                           "sets it so), one row per steps.",
                           c->presets ? "the speed-up at each batch" : c->cost.n ? "improvement at each cost"
                                                                                 : "expected tokens");
    if (st == SD_OK && beyond)
        st = sd_table_note(t, err, "%zu setting%s left out: topk beyond the %zu rank%s the acceptance gives.",
                           beyond, beyond == 1 ? "" : "s", acc->ranks, acc->ranks == 1 ? "" : "s");
    if (st == SD_OK && refused)
        st = sd_table_note(t, err, "SGLang refuses %zu setting%s of the grid: %s%s; the first: %s.", refused,
                           refused == 1 ? "" : "s", list, refused > 24 ? " ..." : "", why);
    for (size_t i = 0; i < kept; i++)
        free(r[i].tree);
    free(r);
done:
    for (int k = 0; k < 3; k++)
        free(l[k].v);
    return st;
}

static sd_status run_tree(const cli_args *a, sd_table **out, sd_error *err)
{
    sd_tree_accept acc;
    tree_cost c;
    sd_table *t = NULL;
    sd_tree *tr = malloc(sizeof *tr);
    int mode = cli_given(a, "--tree") + 2 * cli_given(a, "--optimal") + 4 * cli_given(a, "--sglang-grid");
    sd_status st = tr ? SD_OK : sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
    memset(&c, 0, sizeof c);
    if (st == SD_OK && mode != 1 && mode != 2 && mode != 4)
        st = sd_status_fail(err, SD_EINVAL, "%s: give one of --tree SPEC[;SPEC...], --optimal --budget LIST or "
                            "--sglang-grid%s", mode & 4 ? "--sglang-grid" : mode & 2 ? "--optimal" : "--tree",
                            mode ? ", not several" : "");
    static const char *const OPT_ONLY[] = { "--budget", "--depth" }, *const GRID_ONLY[] = { "--steps", "--topk",
                                                                                          "--num-draft-tokens" };
    for (size_t i = 0; st == SD_OK && i < 2; i++)
        if (mode != 2 && cli_given(a, OPT_ONLY[i]))
            st = sd_status_fail(err, SD_EINVAL, "%s: goes with --optimal", OPT_ONLY[i]);
    for (size_t i = 0; st == SD_OK && i < 3; i++)
        if (mode != 4 && cli_given(a, GRID_ONLY[i]))
            st = sd_status_fail(err, SD_EINVAL, "%s: goes with --sglang-grid", GRID_ONLY[i]);
    if (st == SD_OK)
        st = tree_acceptance(a, &acc, err);
    if (st == SD_OK)
        st = tree_cost_read(a, &c, err);
    if (st == SD_OK)
        st = tree_table(mode == 2 ? LEAD_OPTIMAL : mode == 4 ? LEAD_SGLANG : LEAD_NONE, &c, &t, err);
    if (st == SD_OK)
        st = mode == 1 ? rows_trees(a, &acc, &c, tr, t, err) : mode == 2 ? rows_optimal(a, &acc, &c, tr, t, err)
                                                                          : rows_sglang(a, &acc, &c, t, err);
    if (st == SD_OK)
        st = sd_table_note(t, err,
                           "expected_tokens: (T1), tokens per target pass with the bonus token, at the per-rank "
                           "acceptance p given: the target's probability of the draft's k-th token for top-k "
                           "children, the k-th draw's acceptance for sampled ones (doc/trees.md).");
    if (st == SD_OK && c.cost.n)
        st = sd_table_note(t, err,
                           "improvement: eq. (10) with gamma = the tree's depth: one draft pass a level, and one "
                           "target pass verifying every node at the cost of one step (memory-bound).");
    if (st == SD_OK && c.presets)
        st = sd_table_note(t, err,
                           "improvement: the speed-up over plain decoding, expected_tokens x the plain step / "
                           "iteration_ms, at context %.0f: a draft pass a "
                           "level over the nodes that have children, one target pass over nodes + 1 tokens a "
                           "sequence (sd_cost_tree_time).",
                           c.context);
    if (st == SD_OK && c.presets)
        st = cli_costs_note(a, &c.cc, &c.rq, 1, t, err);
    free(tr);
    tree_cost_free(&c);
    return cli_finish(st, NULL, 0, t, out);
}

static const cli_option TREE_OPTIONS[] = {
    { .name = "--tree", .metavar = "SPEC", .help = "trees, ';' between them: [(0,), (0, 0), (1,)] (vLLM), [[0], [0, "
      "0], [1]] (Medusa), chain:G, kary:DEPTH,WIDTH, sglang:STEPS,TOPK,NUM_DRAFT_TOKENS" },
    { .name = "--optimal", .help = "the tree with the most expected tokens for each --budget and --depth (with the "
      "presets: the best of them at each --batch)" },
    { .name = "--budget", .metavar = "LIST", .help = "draft nodes of the optimal tree, the root not counted, whole "
      "numbers in {range}", .domain = &TREE_BUDGET },
    { .name = "--depth", .metavar = "LIST", .help = "the optimal tree's largest depth, whole numbers in {range} (default "
      "{default})",
      .domain = &TREE_DEPTH, .dflt = "64" },
    { .name = "--sglang-grid", .help = "rank SGLang's (--steps, --topk, --num-draft-tokens) by predicted speed-up "
      "(or improvement, or expected tokens without a cost)" },
    { .name = "--steps", .metavar = "LIST", .help = "--sglang-grid: SGLang's speculative_num_steps, in {range} (default "
      "{default})", .domain = &TREE_STEPS, .dflt = "1:8" },
    { .name = "--topk", .metavar = "LIST", .help = "--sglang-grid: SGLang's speculative_eagle_topk, in {range} (default "
      "{default})", .domain = &TREE_TOPK, .dflt = "1,2,4,8" },
    { .name = "--num-draft-tokens", .metavar = "LIST", .help = "--sglang-grid: SGLang's speculative_num_draft_tokens "
      "(the root counted), in {range} (default {default})", .domain = &TREE_NDT, .dflt = "4,8,16,32,64" },
    { .name = "--alpha", .metavar = "A", .help = "a chain's acceptance, in {range}: p = A at rank 0, no other rank",
      .domain = &CLI_ALPHA },
    { .name = "--acceptance-rank", .metavar = "P0,P1,...", .help = "p[k]: the chance that the child of rank k is "
      "the one accepted, the same at every depth; each in {range}, summing to at most 1", .domain = &TREE_RANK },
    { .name = "--acceptance-file", .metavar = "FILE", .help = "p by depth and rank: TSV with columns depth, p_0, "
      "p_1, ... and a row per depth 1, 2, ... (the last row holds below)" },
    { .name = "--cost", .metavar = "LIST", .help = "draft/target time ratio c, in {range}: adds improvement, eq. (10) "
      "with gamma = depth", .domain = &CLI_COST },
    { .name = "--target", .metavar = "NAME", .help = "roofline presets instead of --cost: the target model (as for "
      "roofline)" },
    { .name = "--draft", .metavar = "NAME", .help = "roofline presets: the draft model" },
    { .name = "--hardware", .metavar = "NAME", .help = "roofline presets: the accelerator" },
    { .name = "--batch", .metavar = "LIST", .help = "roofline presets: batches, in {range} (default {default})",
      .domain = &CLI_BATCH, .dflt = "1" },
    { .name = "--context", .metavar = "S", .help = "roofline presets: context length, in {range} (default {default})",
      .domain = &CLI_CONTEXT, .dflt = "1024" },
    { .name = NULL },
};

const cli_command cmd_tree = {
    .name = "tree",
    .synopsis = "tree --tree SPEC | --optimal --budget LIST [--depth LIST] | --sglang-grid  --alpha A | "
                "--acceptance-rank LIST | --acceptance-file FILE  [--cost LIST | --target T --draft D --hardware H "
                "[--batch LIST] [--context S]]",
    .summary = "token trees: expected tokens per target pass (T1), the optimal tree, SGLang's settings ranked",
    .groups = { TREE_OPTIONS, CLI_COST_OPTIONS },
    .run = run_tree,
};

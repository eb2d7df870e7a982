/* cmd_tree.c -- `specdec tree`: the expected tokens per target pass of a draft tree, (T1)
 * of tree.h, for trees written as vLLM, Medusa or SGLang configure them, and the optimal
 * tree for a node budget (Sequoia's dynamic program). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const sd_domain TREE_BUDGET = { "--budget", 1, SD_TREE_MAX_NODES, 1 };
static const sd_domain TREE_DEPTH = { "--depth", 1, SD_TREE_MAX_DEPTH, 1 };
static const sd_domain TREE_RANK = { "--acceptance-rank", 0.0, 1.0, 0 };

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

/* One row: [budget, max_depth,] nodes, depth, width, expected_tokens[, cost, improvement], tree (last: the
 * one wide column). */
static sd_status tree_rows(sd_table *t, const sd_tree *tr, const sd_tree_accept *acc, const double *opt,
                           const sd_list *cost, sd_error *err)
{
    size_t len = sd_tree_format(tr, NULL, 0);
    char *text = malloc(len + 1);
    if (text == NULL)
        return sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
    sd_tree_format(tr, text, len + 1);
    double e = sd_tree_expected_tokens(tr, acc);
    size_t depth = sd_tree_depth(tr);
    sd_status st = SD_OK;
    for (size_t i = 0; i < (cost->n ? cost->n : 1) && st == SD_OK; i++) {
        sd_cell row[9];
        size_t k = 0;
        if (opt) {
            row[k++] = sd_int((long long)opt[0]);
            row[k++] = sd_int((long long)opt[1]);
        }
        row[k++] = sd_int((long long)tr->n);
        row[k++] = sd_int((long long)depth);
        row[k++] = sd_int((long long)sd_tree_width(tr));
        row[k++] = sd_real(e);
        if (cost->n) {
            row[k++] = sd_real(cost->v[i]);
            row[k++] = sd_real(sd_theory_improvement_at(e, (double)depth, cost->v[i]));
        }
        row[k++] = sd_text(text);
        st = sd_table_add(t, row, err);
    }
    free(text);
    return st;
}

static sd_status run_tree(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const names[] = { "budget", "max_depth", "nodes", "depth", "width", "expected_tokens",
                                         "cost",   "improvement", "tree" };
    sd_tree_accept acc;
    sd_list l[3] = { { 0 } }; /* cost, budget, depth */
    sd_table *t = NULL;
    sd_tree *tr = malloc(sizeof *tr);
    int optimal = cli_given(a, "--optimal");
    sd_status st = tr ? SD_OK : sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
    if (st == SD_OK && optimal == cli_given(a, "--tree"))
        st = sd_status_fail(err, SD_EINVAL, "%s: give --tree SPEC[;SPEC...] or --optimal --budget LIST%s",
                            optimal ? "--optimal" : "--tree", optimal ? ", not both" : "");
    if (st == SD_OK && !optimal && (cli_given(a, "--budget") || cli_given(a, "--depth")))
        st = sd_status_fail(err, SD_EINVAL, "%s: goes with --optimal",
                            cli_given(a, "--budget") ? "--budget" : "--depth");
    if (st == SD_OK)
        st = tree_acceptance(a, &acc, err);
    if (st == SD_OK && cli_given(a, "--cost"))
        st = cli_list(a, &CLI_COST, &l[0], err);
    if (st == SD_OK && optimal && (st = cli_list(a, &TREE_BUDGET, &l[1], err)) == SD_OK)
        st = cli_list(a, &TREE_DEPTH, &l[2], err);
    const char *cols[9];
    size_t ncols = 0;
    for (size_t j = optimal ? 0 : 2; j < 9; j++)
        if (l[0].n || (j != 6 && j != 7))
            cols[ncols++] = names[j];
    if (st == SD_OK)
        st = cli_table(ncols, cols, &t, err);
    if (st == SD_OK && optimal) {
        size_t rows = 0;
        st = cli_grid_size(&l[1], 2, &rows, err);
        for (size_t i = 0; i < rows && st == SD_OK; i++) {
            double x[2], tokens;
            cli_grid_point(&l[1], 2, i, x);
            if ((st = sd_tree_optimal((size_t)x[0], (size_t)x[1], &acc, tr, &tokens, err)) == SD_OK)
                st = tree_rows(t, tr, &acc, x, &l[0], err);
        }
    } else if (st == SD_OK) {
        const char *s = cli_value(a, "--tree");
        char *copy = strdup(s), *save = NULL;
        if (copy == NULL)
            st = sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
        for (char *spec = copy ? strtok_r(copy, ";", &save) : NULL; spec && st == SD_OK;
             spec = strtok_r(NULL, ";", &save))
            if ((st = sd_tree_parse(spec, &acc, tr, "--tree", err)) == SD_OK)
                st = tree_rows(t, tr, &acc, NULL, &l[0], err);
        if (st == SD_OK && sd_table_nrows(t) == 0)
            st = sd_status_fail(err, SD_EINVAL, "--tree: no tree in '%s'", s);
        free(copy);
    }
    if (st == SD_OK)
        st = sd_table_note(t, err,
                           "expected_tokens: (T1), tokens per target pass with the bonus token, for deterministic "
                           "top-k children (doc/trees.md).");
    if (st == SD_OK && l[0].n)
        st = sd_table_note(t, err,
                           "improvement: eq. (10) with gamma = the tree's depth: one draft pass a level, and one "
                           "target pass verifying every node at the cost of one step (memory-bound).");
    free(tr);
    return cli_finish(st, l, 3, t, out);
}

static const cli_option TREE_OPTIONS[] = {
    { .name = "--tree", .metavar = "SPEC", .help = "trees, ';' between them: [(0,), (0, 0), (1,)] (vLLM), [[0], [0, "
      "0], [1]] (Medusa), chain:G, kary:DEPTH,WIDTH, sglang:STEPS,TOPK,NUM_DRAFT_TOKENS" },
    { .name = "--optimal", .help = "the tree with the most expected tokens for each --budget and --depth" },
    { .name = "--budget", .metavar = "LIST", .help = "draft nodes of the optimal tree, the root not counted, whole "
      "numbers in {range}", .domain = &TREE_BUDGET },
    { .name = "--depth", .metavar = "LIST", .help = "the optimal tree's largest depth, whole numbers in {range} (default "
      "{default})",
      .domain = &TREE_DEPTH, .dflt = "64" },
    { .name = "--alpha", .metavar = "A", .help = "a chain's acceptance, in {range}: p = A at rank 0, no other rank",
      .domain = &CLI_ALPHA },
    { .name = "--acceptance-rank", .metavar = "P0,P1,...", .help = "p[k]: the chance that the child of rank k is "
      "the one accepted, the same at every depth; each in {range}, summing to at most 1", .domain = &TREE_RANK },
    { .name = "--acceptance-file", .metavar = "FILE", .help = "p by depth and rank: TSV with columns depth, p_0, "
      "p_1, ... and a row per depth 1, 2, ... (the last row holds below)" },
    { .name = "--cost", .metavar = "LIST", .help = "draft/target time ratio c, in {range}: adds improvement, eq. (10) "
      "with gamma = depth", .domain = &CLI_COST },
    { .name = NULL },
};

const cli_command cmd_tree = {
    .name = "tree",
    .synopsis = "tree --tree SPEC | --optimal --budget LIST [--depth LIST]  --alpha A | --acceptance-rank LIST | "
                "--acceptance-file FILE  [--cost LIST]",
    .summary = "token trees: expected tokens per target pass (T1), the optimal tree for a budget",
    .groups = { TREE_OPTIONS },
    .run = run_tree,
};

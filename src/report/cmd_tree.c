/* cmd_tree.c -- `specdec tree`: the expected tokens per target pass of a draft tree, (T1)
 * of tree.h, for trees written as vLLM, Medusa or SGLang configure them; the optimal tree
 * for a node budget (Sequoia's dynamic program); SGLang's (steps, topk, num_draft_tokens)
 * ranked by predicted speed-up (cmd_tree_grid.c).  Costs come from --cost (eq. 10 with
 * gamma = the depth) or from the roofline presets (cmd_tree_cost.c). */
#include "cmd_tree_impl.h"

#include <stdlib.h>
#include <string.h>

static const sd_domain TREE_RANK = { "--acceptance-rank", 0.0, 1.0, 0 };

/* ---- the inputs --------------------------------------------------------------------------- */

/* The acceptance: exactly one of --alpha, --acceptance-rank and --acceptance-file. */
static sd_status tree_acceptance(const sd_command_args *a, sd_tree_accept *acc, sd_error *err)
{
    int n = sd_command_args_given(a, "--alpha") + sd_command_args_given(a, "--acceptance-rank") +
            sd_command_args_given(a, "--acceptance-file");
    if (n != 1)
        return sd_status_fail(err, SD_EINVAL,
                              "acceptance: give one of --alpha A (a chain), --acceptance-rank P0,P1,... "
                              "(the same at every depth) or --acceptance-file FILE (depth x rank)%s",
                              n > 1 ? ", not several" : "");
    if (sd_command_args_given(a, "--acceptance-file"))
        return sd_tree_accept_load(sd_command_args_value(a, "--acceptance-file"), acc, err);
    if (sd_command_args_given(a, "--alpha")) {
        double alpha;
        sd_status st = sd_command_args_number(a, &SD_CMD_ALPHA, &alpha, err);
        return st == SD_OK ? sd_tree_accept_chain(alpha, acc, err) : st;
    }
    sd_list l = { 0 };
    sd_status st = sd_command_args_list(a, &TREE_RANK, &l, err);
    if (st == SD_OK)
        st = sd_tree_accept_ranks(l.v, l.n, acc, "--acceptance-rank", err);
    sd_parse_list_free(&l);
    return st;
}

enum { MODE_TREE = 1, MODE_OPTIMAL = 2, MODE_SGLANG = 4 };

/* The mode: exactly one of --tree, --optimal and --sglang-grid, and only its options. */
static sd_status tree_mode(const sd_command_args *a, int *mode, sd_error *err)
{
    static const char *const OPT_ONLY[] = { "--budget", "--depth" },
                             *const GRID_ONLY[] = { "--steps", "--topk", "--num-draft-tokens" };
    int m = sd_command_args_given(a, "--tree") * MODE_TREE + sd_command_args_given(a, "--optimal") * MODE_OPTIMAL +
            sd_command_args_given(a, "--sglang-grid") * MODE_SGLANG;
    *mode = m;
    if (m != MODE_TREE && m != MODE_OPTIMAL && m != MODE_SGLANG)
        return sd_status_fail(err, SD_EINVAL, "%s: give one of --tree SPEC[;SPEC...], --optimal --budget LIST or "
                              "--sglang-grid%s", m & MODE_SGLANG ? "--sglang-grid" : m & MODE_OPTIMAL ? "--optimal"
                                                                                                     : "--tree",
                              m ? ", not several" : "");
    for (size_t i = 0; i < 2; i++)
        if (m != MODE_OPTIMAL && sd_command_args_given(a, OPT_ONLY[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: goes with --optimal", OPT_ONLY[i]);
    for (size_t i = 0; i < 3; i++)
        if (m != MODE_SGLANG && sd_command_args_given(a, GRID_ONLY[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: goes with --sglang-grid", GRID_ONLY[i]);
    return SD_OK;
}

/* ---- the table ---------------------------------------------------------------------------- */

/* The columns: the mode's lead ones, nodes, depth, width, expected_tokens, the cost's, tree. */
static sd_status tree_table(int mode, const tree_cost *c, sd_table **t, sd_error *err)
{
    static const char *const OPTIMAL[] = { "budget", "max_depth" }, *const SGLANG[] = { "steps", "topk",
                                                                                        "num_draft_tokens" },
                             *const TREE[] = { "nodes", "depth", "width", "expected_tokens" },
                             *const PRESETS[] = { "batch", "iteration_ms", "improvement", "improvement_lo",
                                                  "improvement_hi", "fits" },
                             *const COST[] = { "cost", "improvement" };
    const char *cols[18];
    size_t n = 0;
#define ADD(names) memcpy(cols + n, names, sizeof names), n += sizeof names / sizeof *names
    if (mode == MODE_OPTIMAL)
        ADD(OPTIMAL);
    if (mode == MODE_SGLANG)
        ADD(SGLANG);
    ADD(TREE);
    if (c->presets)
        ADD(PRESETS);
    else if (c->cost.n)
        ADD(COST);
#undef ADD
    cols[n++] = "tree";
    return sd_command_table(n, cols, t, err);
}

/* --tree SPEC[;SPEC...]: a row per tree and cost setting. */
static sd_status rows_trees(const sd_command_args *a, const sd_tree_accept *acc, const tree_cost *c, sd_table *t,
                            sd_error *err)
{
    const char *s = sd_command_args_value(a, "--tree");
    char *copy = strdup(s), *save = NULL;
    sd_tree *tr = malloc(sizeof *tr);
    sd_status st = copy && tr ? SD_OK : sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
    for (char *spec = st == SD_OK ? strtok_r(copy, ";", &save) : NULL; spec && st == SD_OK;
         spec = strtok_r(NULL, ";", &save))
        if ((st = sd_tree_parse(spec, acc, tr, "--tree", err)) == SD_OK)
            for (size_t i = 0; i < tree_cost_settings(c) && st == SD_OK; i++)
                st = tree_row(t, tr, acc, c, i, NULL, 0, err);
    if (st == SD_OK && sd_table_nrows(t) == 0)
        st = sd_status_fail(err, SD_EINVAL, "--tree: no tree in '%s'", s);
    free(copy);
    free(tr);
    return st;
}

/* The notes on what expected_tokens and improvement are, and where the cost terms came from. */
static sd_status tree_notes(const sd_command_args *a, const tree_cost *c, sd_table *t, sd_error *err)
{
    sd_status st = sd_table_note(t, err,
                                 "expected_tokens: (T1), tokens per target pass with the bonus token, at the per-rank "
                                 "acceptance p given: the target's probability of the draft's k-th token for top-k "
                                 "children, the k-th draw's acceptance for sampled ones (doc/trees.md).");
    if (st == SD_OK && c->cost.n)
        st = sd_table_note(t, err,
                           "improvement: eq. (10) with gamma = the tree's depth: one draft pass a level, and one "
                           "target pass verifying every node at the cost of one step (memory-bound).");
    if (st == SD_OK && c->presets)
        st = sd_table_note(t, err,
                           "improvement: the speed-up over plain decoding, expected_tokens x the plain step / "
                           "iteration_ms, at context %.0f: a draft pass a "
                           "level over the nodes that have children, one target pass over nodes + 1 tokens a "
                           "sequence (sd_cost_tree_time).",
                           c->context);
    if (st == SD_OK && c->presets)
        st = sd_cmd_costs_note(a, &c->cc, &c->rq, 1, t, err);
    return st;
}

static sd_status run_tree(const sd_command_args *a, sd_table **out, sd_error *err)
{
    sd_tree_accept acc;
    tree_cost c;
    sd_table *t = NULL;
    int mode;
    memset(&c, 0, sizeof c);
    sd_status st = tree_mode(a, &mode, err);
    if (st == SD_OK)
        st = tree_acceptance(a, &acc, err);
    if (st == SD_OK)
        st = tree_cost_read(a, &c, err);
    if (st == SD_OK)
        st = tree_table(mode, &c, &t, err);
    if (st == SD_OK)
        st = mode == MODE_TREE      ? rows_trees(a, &acc, &c, t, err)
             : mode == MODE_OPTIMAL ? tree_rows_optimal(a, &acc, &c, t, err)
                                    : tree_rows_sglang(a, &acc, &c, t, err);
    if (st == SD_OK)
        st = tree_notes(a, &c, t, err);
    tree_cost_free(&c);
    return sd_command_finish(st, NULL, 0, t, out);
}

/* ---- the calls and the row ---------------------------------------------------------------- */

sd_cmd_tree_request sd_cmd_tree_defaults(void)
{
    return (sd_cmd_tree_request){ .alpha = NAN, .context = NAN, .cost = sd_cmd_cost_defaults() };
}

sd_status sd_cmd_tree_table(const sd_cmd_tree_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_tree, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_tree, rq, err);
    return sd_command_end(&sd_cmd_tree, st == SD_OK ? run_tree(&a, out, err) : st, err);
}

#define R sd_cmd_tree_request
static const sd_command_field FIELDS[] = {
    { .name = "--tree", SD_FIELD(R, tree, TEXT), .metavar = "SPEC", .help = "trees, ';' between them: [(0,), (0, 0), "
      "(1,)] (vLLM), [[0], [0, 0], [1]] (Medusa), chain:G, kary:DEPTH,WIDTH, sglang:STEPS,TOPK,NUM_DRAFT_TOKENS" },
    { .name = "--optimal", SD_FIELD(R, optimal, FLAG), .help = "the tree with the most expected tokens for each "
      "--budget and --depth (with the presets: the best of them at each --batch)" },
    { .name = "--budget", SD_FIELD(R, budget, LIST), .metavar = "LIST", .help = "draft nodes of the optimal tree, the "
      "root not counted, whole numbers in {range}", .domain = &TREE_BUDGET },
    { .name = "--depth", SD_FIELD(R, depth, LIST), .metavar = "LIST", .help = "the optimal tree's largest depth, whole "
      "numbers in {range} (default {default})", .domain = &TREE_DEPTH, .dflt = "64" },
    { .name = "--sglang-grid", SD_FIELD(R, sglang_grid, FLAG), .help = "rank SGLang's (--steps, --topk, "
      "--num-draft-tokens) by predicted speed-up (or improvement, or expected tokens without a cost)" },
    { .name = "--steps", SD_FIELD(R, steps, LIST), .metavar = "LIST", .help = "--sglang-grid: SGLang's "
      "speculative_num_steps, in {range} (default {default})", .domain = &TREE_STEPS, .dflt = "1:8" },
    { .name = "--topk", SD_FIELD(R, topk, LIST), .metavar = "LIST", .help = "--sglang-grid: SGLang's "
      "speculative_eagle_topk, in {range} (default {default})", .domain = &TREE_TOPK, .dflt = "1,2,4,8" },
    { .name = "--num-draft-tokens", SD_FIELD(R, num_draft_tokens, LIST), .metavar = "LIST", .help = "--sglang-grid: "
      "SGLang's speculative_num_draft_tokens (the root counted), in {range} (default {default})", .domain = &TREE_NDT,
      .dflt = "4,8,16,32,64" },
    { .name = "--alpha", SD_FIELD(R, alpha, REAL), .metavar = "A", .help = "a chain's acceptance, in {range}: p = A "
      "at rank 0, no other rank", .domain = &SD_CMD_ALPHA },
    { .name = "--acceptance-rank", SD_FIELD(R, acceptance_rank, LIST), .metavar = "P0,P1,...", .help = "p[k]: the "
      "chance that the child of rank k is the one accepted, the same at every depth; each in {range}, summing to "
      "at most 1", .domain = &TREE_RANK },
    { .name = "--acceptance-file", SD_FIELD(R, acceptance_file, TEXT), .metavar = "FILE", .help = "p by depth and "
      "rank: TSV with columns depth, p_0, p_1, ... and a row per depth 1, 2, ... (the last row holds below)" },
    { .name = "--cost", SD_FIELD(R, cost_ratio, LIST), .metavar = "LIST", .help = "draft/target time ratio c, in "
      "{range}: adds improvement, eq. (10) with gamma = depth", .domain = &SD_CMD_COST },
    { .name = "--target", SD_FIELD(R, target, TEXT), .metavar = "NAME", .help = "roofline presets instead of --cost: "
      "the target model (as for roofline)" },
    { .name = "--draft", SD_FIELD(R, draft, TEXT), .metavar = "NAME", .help = "roofline presets: the draft model" },
    { .name = "--hardware", SD_FIELD(R, hardware, TEXT), .metavar = "NAME", .help = "roofline presets: the "
      "accelerator" },
    { .name = "--batch", SD_FIELD(R, batch, LIST), .metavar = "LIST", .help = "roofline presets: batches, in {range} "
      "(default {default})", .domain = &SD_CMD_BATCH, .dflt = "1" },
    { .name = "--context", SD_FIELD(R, context, REAL), .metavar = "S", .help = "roofline presets: context length, in "
      "{range} (default {default})", .domain = &SD_CMD_CONTEXT, .dflt = "1024" },
    { .name = NULL },
};
#undef R

SD_COMMAND_CALLS(tree)
const sd_command sd_cmd_tree = {
    SD_COMMAND_ROW_DATA(tree),
    .usage = "tree --tree SPEC | --optimal --budget LIST [--depth LIST] | --sglang-grid  --alpha A | "
             "--acceptance-rank LIST | --acceptance-file FILE  [--cost LIST | --target T --draft D --hardware H "
             "[--batch LIST] [--context S]]",
    .summary = "token trees: expected tokens per target pass (T1), the optimal tree, SGLang's settings ranked",
    .groups = { FIELDS, SD_CMD_COST_FIELDS },
    .base = { 0, offsetof(sd_cmd_tree_request, cost) },
    SD_COMMANDS_LIBRARY,
};

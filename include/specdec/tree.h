/* tree.h -- token trees: the drafts of EAGLE, Medusa, SpecInfer and MTP heads, and their
 * expected accepted length.
 *
 * A draft tree hangs below the root, the last token the target emitted.  Each draft node
 * is a token drafted as the child of rank k (0 = the draft's most likely) of its parent;
 * the target verifies every node in one pass and accepts one path from the root down.
 * A node is named by its rank path: (0, 1) is the second-ranked child of the first-ranked
 * child of the root.  A tree is a set of rank paths closed under prefixes; the nodes are
 * kept in breadth-first order (by depth, then by path), so a node's parent comes before
 * it and the order is the same for equal trees.
 *
 * Acceptance on a tree, p[d][k] (doc/trees.md): the probability that, given its parent
 * was accepted, the child of rank k at depth d + 1 is the one accepted, with
 * sum_k p[d][k] <= 1.  For deterministic top-k children (EAGLE: children tried in rank
 * order, x accepted with the residual target probability, the residual zeroed at x and
 * renormalised on a rejection) it is the target's probability of the draft's k-th ranked
 * token, whichever siblings are drafted.  Then
 *   E(tokens per target pass) = 1 + sum over draft nodes v of prod over the edges (d, k)
 *                               on v's path of p[d][k]                          (T1)
 * (the bonus or residual token included); for a chain with p[d][0] = alpha it is
 * sum_{j=0..gamma} alpha^j, eq. (4).
 *
 * Conventions as in specdec.h: messages are one line naming who (the option or file)
 * and the position in the text.
 */
#ifndef SPECDEC_TREE_H
#define SPECDEC_TREE_H

#include <stddef.h>

#include "specdec/status.h"

#define SD_TREE_MAX_NODES 4096 /* draft nodes, the root not counted */
#define SD_TREE_MAX_DEPTH 64
#define SD_TREE_MAX_RANK 64 /* ranks 0 .. SD_TREE_MAX_RANK - 1 */

typedef struct {
    size_t n;                                /* draft nodes, in [0, SD_TREE_MAX_NODES] */
    int parent[SD_TREE_MAX_NODES];           /* -1: a child of the root; else an earlier node */
    unsigned char rank[SD_TREE_MAX_NODES];   /* among its siblings, 0-based */
    unsigned char depth[SD_TREE_MAX_NODES];  /* 1 for the root's children */
} sd_tree;

/* The per-depth, per-rank acceptance p[d][k] of (T1), for depths d + 1 = 1 .. depths and
 * ranks k = 0 .. ranks - 1; a node deeper than depths uses the last row (so one row is
 * "the same at every depth").  Each entry in [0, 1], each row summing to at most 1. */
typedef struct {
    size_t depths, ranks; /* in [1, SD_TREE_MAX_DEPTH] and [1, SD_TREE_MAX_RANK] */
    double p[SD_TREE_MAX_DEPTH][SD_TREE_MAX_RANK];
} sd_tree_accept;

/* *a as a chain's acceptance: one row, p[0][0] = alpha in [0, 1]. */
SD_API sd_status sd_tree_accept_chain(double alpha, sd_tree_accept *a, sd_error *err);

/* *a as one row p[0][0 .. n-1] = p[0 .. n-1] (the same at every depth), n in [1,
 * SD_TREE_MAX_RANK], each in [0, 1], summing to at most 1 (within 1e-9). */
SD_API sd_status sd_tree_accept_ranks(const double *p, size_t n, sd_tree_accept *a, const char *who,
                                      sd_error *err);

/* *a from a TSV file (tsv.h): a header "depth p_0 p_1 ... p_{K-1}" (K in [1,
 * SD_TREE_MAX_RANK]) and one row per depth 1, 2, ... (at most SD_TREE_MAX_DEPTH, in
 * order), each p in [0, 1] and each row summing to at most 1.  SD_EINVAL naming the file
 * and line; *a untouched on failure. */
SD_API sd_status sd_tree_accept_load(const char *path, sd_tree_accept *a, sd_error *err);

/* The invariants of *a above; SD_EINVAL naming who and the first entry that fails. */
SD_API sd_status sd_tree_accept_check(const sd_tree_accept *a, const char *who, sd_error *err);

/* p[d][k] of *a for a node at depth (>= 1) and rank, by the rule above (0 for a rank at
 * or beyond a->ranks). */
SD_API double sd_tree_accept_at(const sd_tree_accept *a, size_t depth, size_t rank);

/* A tree from its text, into *t:
 *   chain:G          G nodes of rank 0, one below the other (G in [1, 64])
 *   kary:D,W         every node to depth D has the W ranks 0 .. W-1 as children
 *   sglang:S,K,N     the tree SGLang's EAGLE drafter builds with --speculative-num-steps S,
 *                    --speculative-eagle-topk K and --speculative-num-draft-tokens N under
 *                    a's acceptance as the draft's scores (sd_tree_sglang)
 *   [(0,), (0, 0), (1,)]   vLLM's speculative_token_tree: a list of rank paths as tuples
 *                    (a one-rank tuple needs its comma, as in Python)
 *   [[0], [0, 0], [1]]     Medusa's choices: the same as lists
 * Blanks are allowed between tokens; every path's prefixes must be present (in any
 * order), no path twice, ranks below a->ranks (SD_TREE_MAX_RANK when a is NULL), depth at
 * most SD_TREE_MAX_DEPTH, at most SD_TREE_MAX_NODES nodes.  SD_EINVAL with "who: ..."
 * naming the byte position (1-based) and the path at fault; *t is then untouched.  a may
 * be NULL except for the sglang form. */
SD_API sd_status sd_tree_parse(const char *text, const sd_tree_accept *a, sd_tree *t, const char *who,
                               sd_error *err);

/* SGLang's EAGLE tree (sgl-project/sglang python/sglang/srt/speculative/eagle_worker.py
 * @ 00559eacbf0841146db7e27e445d1971e35e6294, draft_forward; spec_utils.py @
 * 00731f0bc9fa81c39802754fb4b62e9cce967582, select_top_k_tokens; eagle_utils.py @
 * 003ddbce039cd49b05c84568b7b357031366abf7, organize_draft_results), with the score of a
 * node the product of p[d][k] along its path (SGLang: of the draft's probabilities):
 *   step 1: the root's K children (ranks 0 .. K-1) are the candidates and the frontier;
 *   steps 2 .. S: each frontier node gets its K children, all K^2 of them candidates, and
 *     the K best of them by score (of this step only) are the next frontier;
 *   then the N - 1 best candidates of all steps are the draft nodes (N counts the root,
 *     the verified token, as SGLang's num_draft_tokens does).
 * torch.topk leaves ties unordered; here a tie goes to the earlier candidate (the
 * frontier by score, then by candidate order), so a node's parent, never scored below
 * it and generated before it, is always kept.  S in [1, 64], K in [1, 64], N - 1 in
 * [1, SD_TREE_MAX_NODES] and at most the K + (S - 1) K^2 candidates; with K = 1, N must be
 * S + 1 (SGLang sets it so); K at most a->ranks.  SD_EINVAL naming who otherwise. */
SD_API sd_status sd_tree_sglang(size_t steps, size_t topk, size_t num_draft_tokens, const sd_tree_accept *a,
                                sd_tree *t, const char *who, sd_error *err);

/* The invariants every function here takes of a tree: at most SD_TREE_MAX_NODES nodes,
 * each node's parent before it (or -1), its depth its parent's + 1 (1 below the root) and
 * at most SD_TREE_MAX_DEPTH, its rank below SD_TREE_MAX_RANK.  The trees sd_tree_parse,
 * sd_tree_sglang and sd_tree_optimal make hold them; a tree built by hand must pass this
 * first (the engine checks it).  SD_EINVAL naming who and the first node at fault. */
SD_API sd_status sd_tree_check(const sd_tree *t, const char *who, sd_error *err);

/* The depth of t (0 for no node), and the widest depth's width. */
SD_API size_t sd_tree_depth(const sd_tree *t);
SD_API size_t sd_tree_width(const sd_tree *t);

/* (T1): 1 + the sum over t's nodes of the products of a's p along their paths. */
SD_API double sd_tree_expected_tokens(const sd_tree *t, const sd_tree_accept *a);

/* t in vLLM's speculative_token_tree syntax, "[(0,), (1,), (0, 0)]" ("[]" for no node),
 * into buf (NUL-terminated, truncated to size); the length it needs, as snprintf. */
SD_API size_t sd_tree_format(const sd_tree *t, char *buf, size_t size);

/* Sorts t's nodes into breadth-first order (by depth, then by rank path), the parents
 * renumbered: the order every function here keeps. */
SD_API void sd_tree_canonical(sd_tree *t);

/* The tree of at most budget nodes (in [1, SD_TREE_MAX_NODES]) and depth at most
 * max_depth (in [1, SD_TREE_MAX_DEPTH]) with the largest (T1) under a: Sequoia's dynamic
 * program (arXiv 2402.12374, section 3.1) over depth, nodes and the ranks left, each
 * rank used at most once per parent, so a p that is not falling in the rank is handled
 * too.  Ties go to the lower rank, then to fewer nodes under it; a rank whose p is 0 gets
 * no node (so with every p 0 the tree is empty).  Into *t, with its (T1) in *tokens.
 * SD_EINVAL for a budget or depth out of range or an invalid a; SD_ENOMEM. */
SD_API sd_status sd_tree_optimal(size_t budget, size_t max_depth, const sd_tree_accept *a, sd_tree *t,
                                 double *tokens, sd_error *err);

#endif

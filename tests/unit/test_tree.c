/* test_tree.c -- token trees (tree.h): the text forms, (T1) against independent references,
 * and the optimal tree against a brute-force search over every tree of up to 8 nodes.
 *
 * References: a chain is eq. (4), sum_j alpha^j, computed by sd_theory_expected_tokens
 * (expm1 form); a k-ary tree with the same ranks at every depth is 1 + sum_d (sum_k p_k)^d,
 * summed here level by level; the brute force enumerates every prefix-closed set of rank
 * paths and sums the path products itself, without the dynamic program. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/theory.h"
#include "specdec/tree.h"
#include "testutil.h"

static sd_tree parse_ok(const char *text, size_t max_rank)
{
    sd_tree_accept a = { .depths = 1, .ranks = max_rank };
    sd_tree t;
    sd_error err = { "" };
    ck_assert_msg(sd_tree_parse(text, &a, &t, "--tree", &err) == SD_OK, "%s: %s", text, err.msg);
    return t;
}

static void parse_fails(const char *text, size_t max_rank, const char *want)
{
    sd_tree_accept a = { .depths = 1, .ranks = max_rank };
    sd_tree t;
    t.n = 12345;
    sd_error err = { "" };
    ck_assert_msg(sd_tree_parse(text, &a, &t, "--tree", &err) == SD_EINVAL, "accepted %s", text);
    ck_assert_msg(t.n == 12345, "*t written on failure");
    ck_assert_msg(strncmp(err.msg, "--tree: ", 8) == 0 && strstr(err.msg, want) != NULL,
                  "'%s': message '%s' does not say '%s'", text, err.msg, want);
    ck_assert(strchr(err.msg, '\n') == NULL);
}

static const char *formatted(const sd_tree *t)
{
    static char buf[4096];
    size_t len = sd_tree_format(t, buf, sizeof buf);
    ck_assert_uint_eq(len, strlen(buf));
    return buf;
}

/* ---- the text ------------------------------------------------------------------------------- */

START_TEST(forms)
{
    /* vLLM's tuples in any order, Medusa's lists: the same breadth-first tree */
    sd_tree a = parse_ok("[(0, 0), (1,), (0,)]", 64);
    sd_tree b = parse_ok(" [ [0] ,[0,0], [1], ] ", 64);
    ck_assert_uint_eq(a.n, 3);
    ck_assert_str_eq(formatted(&a), "[(0,), (1,), (0, 0)]");
    ck_assert_str_eq(formatted(&b), "[(0,), (1,), (0, 0)]");
    ck_assert_int_eq(a.parent[2], 0);
    ck_assert_uint_eq(a.depth[2], 2);
    ck_assert_uint_eq(sd_tree_depth(&a), 2);
    ck_assert_uint_eq(sd_tree_width(&a), 2);
    /* the text it writes reads back to itself */
    sd_tree c = parse_ok(formatted(&a), 64);
    ck_assert_str_eq(formatted(&c), "[(0,), (1,), (0, 0)]");
    /* chain and k-ary */
    sd_tree ch = parse_ok("chain:3", 64);
    ck_assert_str_eq(formatted(&ch), "[(0,), (0, 0), (0, 0, 0)]");
    sd_tree k = parse_ok("kary:2,2", 64);
    ck_assert_str_eq(formatted(&k), "[(0,), (1,), (0, 0), (0, 1), (1, 0), (1, 1)]");
    k = parse_ok("kary:3,3", 64);
    ck_assert_uint_eq(k.n, 3 + 9 + 27);
    /* rank gaps are trees too: the deterministic rule's p[k] does not depend on the siblings */
    sd_tree gap = parse_ok("[(2,), (0,), (2, 1)]", 64);
    ck_assert_str_eq(formatted(&gap), "[(0,), (2,), (2, 1)]");
    /* a truncated write still says the length it needs */
    char small[5];
    ck_assert_uint_eq(sd_tree_format(&a, small, sizeof small), strlen("[(0,), (1,), (0, 0)]"));
    ck_assert_str_eq(small, "[(0,");
}
END_TEST

START_TEST(bad_text)
{
    parse_fails("[(0,), (1, 0)]", 64, "position 8: (1, 0): its prefix (1,) is missing");
    parse_fails("[(0,), (0,)]", 64, "position 8: (0,) appears twice");
    parse_fails("[(0,), (2,)]", 2, "position 9: rank 2 is not below 2");
    parse_fails("[(0)]", 64, "position 2: (k) is a number, not a tuple");
    parse_fails("[(0,), [1]]", 64, "position 8: the paths mix tuples and lists");
    parse_fails("[]", 64, "an empty tree");
    parse_fails("[()]", 64, "an empty path");
    parse_fails("[(0,) (1,)]", 64, "position 7: expected ',' or ']' after a path");
    parse_fails("[(01,)]", 64, "position 3: expected a rank");
    parse_fails("[(-1,)]", 64, "expected a rank");
    parse_fails("[(0,)] x", 64, "position 8: text after the closing ']'");
    parse_fails("[(0, 1]", 64, "expected ',' or ')'");
    parse_fails("(0,)", 64, "position 1: expected chain:G, kary:D,W, or a list");
    parse_fails("chain:0", 64, "G must be in [1, 64]");
    parse_fails("chain:65", 64, "G must be in [1, 64]");
    parse_fails("chain:3x", 64, "position 8: text after the tree");
    parse_fails("kary:2", 64, "expected kary:DEPTH,WIDTH");
    parse_fails("kary:2,0", 64, "WIDTH in [1, 64]");
    parse_fails("kary:2,5", 4, "WIDTH in [1, 4]");
    parse_fails("kary:3,20", 64, "kary:3,20 has 8420 nodes: more than 4096");
}
END_TEST

/* ---- (T1) ------------------------------------------------------------------------------------- */

START_TEST(chain_is_eq4)
{
    static const double alphas[] = { 0.0, 1e-9, 0.3, 0.8, 0.999999, 1.0 };
    static const char *const g[] = { "chain:1", "chain:5", "chain:64" };
    static const double gv[] = { 1, 5, 64 };
    sd_error err;
    for (size_t i = 0; i < sizeof alphas / sizeof *alphas; i++)
        for (size_t j = 0; j < 3; j++) {
            sd_tree_accept a;
            ck_assert_int_eq(sd_tree_accept_chain(alphas[i], &a, &err), SD_OK);
            sd_tree t = parse_ok(g[j], 1);
            ck_assert_rel(sd_tree_expected_tokens(&t, &a), sd_theory_expected_tokens(alphas[i], gv[j]), 1e-13);
        }
    /* the limits exactly: alpha = 0 gives 1, alpha = 1 gives G + 1 */
    sd_tree_accept a;
    sd_tree t = parse_ok("chain:7", 1);
    ck_assert_int_eq(sd_tree_accept_chain(1.0, &a, &err), SD_OK);
    ck_assert_double_eq(sd_tree_expected_tokens(&t, &a), 8.0);
    ck_assert_int_eq(sd_tree_accept_chain(0.0, &a, &err), SD_OK);
    ck_assert_double_eq(sd_tree_expected_tokens(&t, &a), 1.0);
    ck_assert_int_eq(sd_tree_accept_chain(1.5, &a, &err), SD_EINVAL);
    ck_assert_int_eq(sd_tree_accept_chain(NAN, &a, &err), SD_EINVAL);
}
END_TEST

START_TEST(kary_levels)
{
    /* ranks 0.5, 0.2, 0.1: a binary tree of depth 3 accepts a child with 0.7 at each level,
     * 1 + 0.7 + 0.49 + 0.343 = 2.533; ternary depth 2: 1 + 0.8 + 0.64 = 2.44 */
    const double p[3] = { 0.5, 0.2, 0.1 };
    sd_tree_accept a;
    sd_error err;
    ck_assert_int_eq(sd_tree_accept_ranks(p, 3, &a, "--acceptance-rank", &err), SD_OK);
    sd_tree t = parse_ok("kary:3,2", 3);
    ck_assert_rel(sd_tree_expected_tokens(&t, &a), 2.533, 1e-14);
    t = parse_ok("kary:2,3", 3);
    ck_assert_rel(sd_tree_expected_tokens(&t, &a), 2.44, 1e-14);
    /* by hand: [(0,), (1,), (0, 0), (1, 1)] = 1 + 0.5 + 0.2 + 0.25 + 0.04 */
    t = parse_ok("[(0,), (1,), (0, 0), (1, 1)]", 3);
    ck_assert_rel(sd_tree_expected_tokens(&t, &a), 1.99, 1e-14);
    /* depth-dependent rows; the last repeats below them */
    a.depths = 2;
    a.p[1][0] = 0.9;
    a.p[1][1] = 0.05;
    a.p[1][2] = 0.0;
    t = parse_ok("[(0,), (0, 0), (0, 0, 0), (0, 1)]", 3);
    ck_assert_rel(sd_tree_expected_tokens(&t, &a), 1 + 0.5 + 0.45 + 0.405 + 0.025, 1e-14);
    ck_assert_double_eq(sd_tree_accept_at(&a, 9, 0), 0.9);
    ck_assert_double_eq(sd_tree_accept_at(&a, 1, 5), 0.0);
    /* bad vectors */
    const double over[2] = { 0.7, 0.4 }, neg[1] = { -0.1 };
    ck_assert_int_eq(sd_tree_accept_ranks(over, 2, &a, "--acceptance-rank", &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "--acceptance-rank: the ranks of depth 1 sum to 1.1"));
    ck_assert_int_eq(sd_tree_accept_ranks(neg, 1, &a, "--acceptance-rank", &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "rank 0 is -0.1: outside [0, 1]"));
    ck_assert_int_eq(sd_tree_accept_ranks(p, 0, &a, "--acceptance-rank", &err), SD_EINVAL);
}
END_TEST

/* ---- the optimal tree ------------------------------------------------------------------------ */

/* Every rank path with ranks < K and depth <= D, breadth first: parent[i] < i. */
typedef struct {
    size_t n;
    int parent[200];
    unsigned rank[200], depth[200];
    double value[200]; /* the product along the path */
} paths;

static void all_paths(const sd_tree_accept *a, size_t K, size_t D, paths *P)
{
    P->n = 0;
    for (size_t k = 0; k < K; k++) {
        P->parent[P->n] = -1;
        P->rank[P->n] = (unsigned)k;
        P->depth[P->n] = 1;
        P->value[P->n] = sd_tree_accept_at(a, 1, k);
        P->n++;
    }
    for (size_t i = 0; i < P->n; i++)
        if (P->depth[i] < D)
            for (size_t k = 0; k < K; k++) {
                ck_assert_uint_lt(P->n, 200);
                P->parent[P->n] = (int)i;
                P->rank[P->n] = (unsigned)k;
                P->depth[P->n] = P->depth[i] + 1;
                P->value[P->n] = P->value[i] * sd_tree_accept_at(a, P->depth[i] + 1, k);
                P->n++;
            }
}

/* The best sum of values over the prefix-closed sets of at most left more paths, choosing
 * among paths from index i on (chosen[]: what is in the set). */
static double brute(const paths *P, size_t i, size_t left, unsigned char *chosen)
{
    double best = 0.0;
    if (left == 0)
        return 0.0;
    for (size_t j = i; j < P->n; j++)
        if (P->parent[j] < 0 || chosen[P->parent[j]]) {
            chosen[j] = 1;
            double v = P->value[j] + brute(P, j + 1, left - 1, chosen);
            chosen[j] = 0;
            if (v > best)
                best = v;
        }
    return best;
}

/* The optimal tree of a's first K ranks (the rest dropped), depth D, against the brute force. */
static void optimal_matches_brute(const sd_tree_accept *full, size_t K, size_t D, size_t budget)
{
    sd_tree_accept cut = *full, *a = &cut;
    cut.ranks = K;
    paths P;
    unsigned char chosen[200] = { 0 };
    all_paths(a, K, D, &P);
    double want = 1.0 + brute(&P, 0, budget, chosen);
    sd_tree t;
    double got;
    sd_error err = { "" };
    ck_assert_msg(sd_tree_optimal(budget, D, a, &t, &got, &err) == SD_OK, "%s", err.msg);
    ck_assert_rel(got, want, 1e-12);
    ck_assert_rel(sd_tree_expected_tokens(&t, a), got, 1e-12);
    ck_assert_uint_le(t.n, budget);
    ck_assert_uint_le(sd_tree_depth(&t), D);
    for (size_t i = 0; i < t.n; i++) {
        ck_assert_uint_lt(t.rank[i], K);
        ck_assert(t.parent[i] < (int)i);
    }
    /* what it prints reads back to the same tree */
    char buf[4096];
    sd_tree_format(&t, buf, sizeof buf);
    sd_tree back;
    ck_assert_int_eq(sd_tree_parse(buf, a, &back, "t", &err), SD_OK);
    ck_assert_rel(sd_tree_expected_tokens(&back, a), got, 1e-15);
}

START_TEST(optimal_vs_brute_force)
{
    sd_tree_accept a;
    memset(&a, 0, sizeof a);
    /* falling ranks, one row */
    a.depths = 1;
    a.ranks = 3;
    a.p[0][0] = 0.6;
    a.p[0][1] = 0.2;
    a.p[0][2] = 0.1;
    for (size_t b = 1; b <= 8; b++) {
        optimal_matches_brute(&a, 3, 3, b);
        optimal_matches_brute(&a, 2, 4, b);
    }
    /* ranks that rise (a gap pays), and rows that change with the depth */
    a.depths = 3;
    a.p[0][0] = 0.1, a.p[0][1] = 0.5, a.p[0][2] = 0.3;
    a.p[1][0] = 0.8, a.p[1][1] = 0.0, a.p[1][2] = 0.15;
    a.p[2][0] = 0.3, a.p[2][1] = 0.3, a.p[2][2] = 0.3;
    for (size_t b = 1; b <= 8; b++)
        optimal_matches_brute(&a, 3, 3, b);
    /* nothing accepted: no node pays, and none is drafted */
    memset(&a, 0, sizeof a);
    a.depths = a.ranks = 1;
    sd_tree t;
    double got;
    sd_error err;
    ck_assert_int_eq(sd_tree_optimal(8, 4, &a, &t, &got, &err), SD_OK);
    ck_assert_double_eq(got, 1.0);
    ck_assert_uint_eq(t.n, 0);
    /* alpha = 1 on a chain budget: the chain, G + 1 tokens */
    a.p[0][0] = 1.0;
    ck_assert_int_eq(sd_tree_optimal(6, 64, &a, &t, &got, &err), SD_OK);
    ck_assert_double_eq(got, 7.0);
    ck_assert_str_eq(formatted(&t), "[(0,), (0, 0), (0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0)]");
    /* equal ranks: the tie goes to the lower rank */
    const double even[2] = { 0.5, 0.5 };
    ck_assert_int_eq(sd_tree_accept_ranks(even, 2, &a, "p", &err), SD_OK);
    ck_assert_int_eq(sd_tree_optimal(1, 4, &a, &t, &got, &err), SD_OK);
    ck_assert_str_eq(formatted(&t), "[(0,)]");
    a.p[0][0] = 1.0;
    a.p[0][1] = 0.0;
    /* out of range */
    ck_assert_int_eq(sd_tree_optimal(0, 4, &a, &t, &got, &err), SD_EINVAL);
    ck_assert_int_eq(sd_tree_optimal(4097, 4, &a, &t, &got, &err), SD_EINVAL);
    ck_assert_int_eq(sd_tree_optimal(8, 65, &a, &t, &got, &err), SD_EINVAL);
    a.ranks = 64;
    a.depths = 64;
    ck_assert_int_eq(sd_tree_optimal(4096, 64, &a, &t, &got, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "lower the budget, the depth or the ranks"));
}
END_TEST

/* ---- SGLang's tree ------------------------------------------------------------------------------ */

START_TEST(sglang_tree)
{
    /* ranks 0.6, 0.2, 0.1 at every depth, steps 3, topk 2.  Step 1: (0,) .6, (1,) .2.  Step 2:
     * (0,0) .36, (0,1) .12, (1,0) .12, (1,1) .04; the frontier: (0,0) and, of the tie at .12,
     * the earlier (0,1).  Step 3: (0,0,0) .216, (0,0,1) .072, (0,1,0) .072, (0,1,1) .024.  The 4
     * best of all (N = 5 with the root): .6, .36, .216, .2 */
    const double p[3] = { 0.6, 0.2, 0.1 };
    sd_tree_accept a;
    sd_error err;
    ck_assert_int_eq(sd_tree_accept_ranks(p, 3, &a, "p", &err), SD_OK);
    sd_tree t;
    ck_assert_int_eq(sd_tree_parse("sglang:3,2,5", &a, &t, "--tree", &err), SD_OK);
    ck_assert_str_eq(formatted(&t), "[(0,), (1,), (0, 0), (0, 0, 0)]");
    ck_assert_rel(sd_tree_expected_tokens(&t, &a), 2.376, 1e-14);
    /* one more: the tie at .12 goes to (0, 1), generated before (1, 0) */
    ck_assert_int_eq(sd_tree_sglang(3, 2, 6, &a, &t, "--tree", &err), SD_OK);
    ck_assert_str_eq(formatted(&t), "[(0,), (1,), (0, 0), (0, 1), (0, 0, 0)]");
    /* (1, 0) is no frontier node's child at step 3: only (0,0) and (0,1) expanded */
    ck_assert_int_eq(sd_tree_sglang(3, 2, 11, &a, &t, "--tree", &err), SD_OK);
    ck_assert_str_eq(formatted(&t), "[(0,), (1,), (0, 0), (0, 1), (1, 0), (1, 1), (0, 0, 0), (0, 0, 1), (0, 1, 0), "
                                    "(0, 1, 1)]");
    /* topk 1 is the chain */
    sd_tree chain = parse_ok("chain:3", 3);
    ck_assert_int_eq(sd_tree_sglang(3, 1, 4, &a, &t, "--tree", &err), SD_OK);
    ck_assert_str_eq(formatted(&t), formatted(&chain));
    /* SGLang's constraints */
    ck_assert_int_eq(sd_tree_sglang(3, 1, 5, &a, &t, "--tree", &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "with topk 1 SGLang sets num_draft_tokens to steps + 1 = 4"));
    ck_assert_int_eq(sd_tree_sglang(2, 2, 8, &a, &t, "--tree", &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "7 draft nodes from a pool of only topk + (steps - 1) topk^2 = 6"));
    ck_assert_int_eq(sd_tree_sglang(3, 2, 1, &a, &t, "--tree", &err), SD_EINVAL);
    ck_assert_int_eq(sd_tree_sglang(3, 4, 5, &a, &t, "--tree", &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "topk 4 drafts ranks 0 .. 3, but the acceptance gives 3 ranks"));
    ck_assert_int_eq(sd_tree_parse("sglang:3,2,5", NULL, &t, "--tree", &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "depends on the acceptance"));
    parse_fails("sglang:3,2", 3, "expected sglang:STEPS,TOPK,NUM_DRAFT_TOKENS");
}
END_TEST

/* SGLang's tree against a beam written out by brute force: candidates as rank paths scored by
 * the product of p along them; each step expands every frontier path by its K children, and the
 * next frontier is the K best of those by score (first_only: the first frontier path's children
 * instead, the mistake the test must tell apart); the tree is the N - 1 best candidates of all
 * steps, in breadth-first order (by depth, then by rank path). */
typedef struct {
    unsigned char rank[SD_TREE_MAX_DEPTH];
    size_t depth;
    double score;
} beam_path;

static int by_score(const void *x, const void *y)
{
    const beam_path *a = x, *b = y;
    return (a->score < b->score) - (a->score > b->score);
}

static int breadth_first(const void *x, const void *y)
{
    const beam_path *a = x, *b = y;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    return memcmp(a->rank, b->rank, a->depth);
}

static void beam_tree(size_t S, size_t K, size_t N, const sd_tree_accept *a, int first_only, sd_tree *t)
{
    static beam_path all[4096], next[SD_TREE_MAX_RANK * SD_TREE_MAX_RANK], frontier[SD_TREE_MAX_RANK];
    size_t nall = 0, nfront = 0;
    for (size_t k = 0; k < K; k++)
        frontier[nfront++] = all[nall++] = (beam_path){ .rank = { (unsigned char)k }, .depth = 1, .score = a->p[0][k] };
    for (size_t d = 2; d <= S; d++) {
        size_t nnext = 0;
        for (size_t f = 0; f < nfront; f++)
            for (size_t k = 0; k < K; k++) {
                beam_path q = frontier[f];
                q.rank[q.depth++] = (unsigned char)k;
                q.score *= a->p[d - 1][k];
                next[nnext++] = all[nall++] = q;
            }
        if (!first_only)
            qsort(next, nnext, sizeof *next, by_score);
        for (nfront = 0; nfront < K; nfront++)
            frontier[nfront] = next[nfront];
    }
    qsort(all, nall, sizeof *all, by_score);
    qsort(all, N - 1, sizeof *all, breadth_first);
    t->n = N - 1;
    for (size_t i = 0; i < t->n; i++) {
        t->rank[i] = all[i].rank[all[i].depth - 1];
        t->depth[i] = (unsigned char)all[i].depth;
        t->parent[i] = -1;
        for (size_t j = 0; j < i && all[i].depth > 1; j++) /* the parent: the path less its last rank */
            if (all[j].depth == all[i].depth - 1 && memcmp(all[j].rank, all[i].rank, all[j].depth) == 0)
                t->parent[i] = (int)j;
    }
}

static int same_tree(const sd_tree *x, const sd_tree *y)
{
    if (x->n != y->n)
        return 0;
    for (size_t i = 0; i < x->n; i++)
        if (x->parent[i] != y->parent[i] || x->rank[i] != y->rank[i] || x->depth[i] != y->depth[i])
            return 0;
    return 1;
}

/* Rows of K ranks at each of S depths drawn at random (each row summing to 0.95, no two scores
 * equal), drawn again until the frontier's best children are not all the first node's: there the
 * beam and its mistake make different trees, and SGLang's is the beam's. */
static void random_rows(gsl_rng *r, size_t S, size_t K, sd_tree_accept *a)
{
    *a = (sd_tree_accept){ .depths = S, .ranks = K };
    for (size_t d = 0; d < S; d++) {
        double sum = 0;
        for (size_t k = 0; k < K; k++)
            sum += (a->p[d][k] = 0.05 + gsl_rng_uniform(r));
        for (size_t k = 0; k < K; k++)
            a->p[d][k] *= 0.95 / sum;
    }
}

START_TEST(sglang_tree_is_a_beam)
{
    static const size_t settings[][3] = { { 3, 2, 6 }, { 3, 2, 8 }, { 4, 3, 12 }, { 5, 3, 20 }, { 4, 4, 30 },
                                          { 6, 2, 11 }, { 3, 5, 40 }, { 6, 3, 25 } };
    static sd_tree got, want, wrong;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20261203);
    sd_error err;
    for (size_t s = 0; s < sizeof settings / sizeof settings[0]; s++) {
        size_t S = settings[s][0], K = settings[s][1], N = settings[s][2];
        sd_tree_accept a;
        int tries = 0;
        do {
            random_rows(r, S, K, &a);
            beam_tree(S, K, N, &a, 0, &want);
            beam_tree(S, K, N, &a, 1, &wrong);
        } while (same_tree(&want, &wrong) && ++tries < 100);
        ck_assert_msg(!same_tree(&want, &wrong), "sglang:%zu,%zu,%zu: no input told the frontiers apart", S, K, N);
        ck_assert_msg(sd_tree_sglang(S, K, N, &a, &got, "t", &err) == SD_OK, "%s", err.msg);
        char g[4096], w[4096];
        sd_tree_format(&got, g, sizeof g);
        sd_tree_format(&want, w, sizeof w);
        ck_assert_msg(same_tree(&got, &want), "sglang:%zu,%zu,%zu: %s, the beam %s", S, K, N, g, w);
    }
    gsl_rng_free(r);
}
END_TEST

/* A tree built by hand is held to the invariants before use. */
START_TEST(check_invariants)
{
    sd_tree t = parse_ok("[(0,), (1,), (0, 0)]", 4);
    sd_error err;
    ck_assert_int_eq(sd_tree_check(&t, "t", &err), SD_OK);
    sd_tree bad = t;
    bad.rank[1] = 200;
    ck_assert_int_eq(sd_tree_check(&bad, "t", &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "t: node 1: rank 200 is not below 64"));
    bad = t;
    bad.parent[0] = 2;
    ck_assert_int_eq(sd_tree_check(&bad, "t", &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "node 0: its parent 2 does not come before it"));
    bad = t;
    bad.depth[2] = 3;
    ck_assert_int_eq(sd_tree_check(&bad, "t", &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "node 2: depth 3 is not its parent's + 1"));
    /* blanks around a named form; a number that would wrap is refused */
    sd_tree c = parse_ok("  chain:2 \n", 1);
    ck_assert_uint_eq(c.n, 2);
    parse_fails("chain:18446744073709551617", 1, "expected chain:G with whole numbers");
}
END_TEST

Suite *tree_suite(void)
{
    Suite *s = suite_create("tree");
    TCase *tc = tcase_create("tree");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, forms);
    tcase_add_test(tc, bad_text);
    tcase_add_test(tc, chain_is_eq4);
    tcase_add_test(tc, kary_levels);
    tcase_add_test(tc, optimal_vs_brute_force);
    tcase_add_test(tc, sglang_tree);
    tcase_add_test(tc, sglang_tree_is_a_beam);
    tcase_add_test(tc, check_invariants);
    suite_add_tcase(s, tc);
    return s;
}

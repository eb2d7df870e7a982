/* fuzz_tree.c -- the token-tree readers (tree.h): sd_tree_parse on a tree's text and
 * sd_tree_accept_load on an acceptance TSV.
 *
 * Input: byte 0 bit 0 picks the reader (0 the text, 1 the TSV file); bits 1-3 the ranks
 * the text may use (1 + bits: 1 to 8, with p[k] = 0.5^(k+1) at every depth, so that the
 * sglang form has scores); the rest is the text (up to a NUL) or the file.  Properties:
 *   - a parsed tree has 1 .. SD_TREE_MAX_NODES nodes in breadth-first order (each parent
 *     earlier and one level up, depths non-decreasing, paths increasing within a level),
 *     no two siblings of one rank, ranks below the acceptance's; its text (sd_tree_format)
 *     parses back to the same tree; (T1) lies in [1, 1 + nodes];
 *   - a loaded acceptance passes sd_tree_accept_check, and the optimal tree for a budget of
 *     8 under it matches its own (T1) and is at least the chain's;
 *   - on failure the output is untouched and the message is one non-empty line. */
#include <math.h>

#include "fuzz_common.h"

#include "specdec/tree.h"

static void check_tree(const sd_tree *t, const sd_tree_accept *a)
{
    CHECK(t->n >= 1 && t->n <= SD_TREE_MAX_NODES, "nodes %zu", t->n);
    for (size_t i = 0; i < t->n; i++) {
        int p = t->parent[i];
        CHECK(p >= -1 && p < (int)i, "node %zu: parent %d", i, p);
        CHECK(t->depth[i] == (p < 0 ? 1 : t->depth[p] + 1), "node %zu: depth %u", i, (unsigned)t->depth[i]);
        CHECK(t->rank[i] < a->ranks, "node %zu: rank %u", i, (unsigned)t->rank[i]);
        if (i > 0) {
            CHECK(t->depth[i] >= t->depth[i - 1], "depth falls at %zu", i);
            if (t->depth[i] == t->depth[i - 1]) /* a level by (parent's place, rank) */
                CHECK(t->parent[i] > t->parent[i - 1] ||
                          (t->parent[i] == t->parent[i - 1] && t->rank[i] > t->rank[i - 1]),
                      "level order broken at %zu", i);
        }
    }
    double e = sd_tree_expected_tokens(t, a);
    CHECK(e >= 1.0 && e <= 1.0 + (double)t->n, "(T1) %.17g with %zu nodes", e, t->n);
    size_t len = sd_tree_format(t, NULL, 0);
    char *text = malloc(len + 1);
    if (text == NULL)
        abort();
    CHECK(sd_tree_format(t, text, len + 1) == len && strlen(text) == len, "format length");
    sd_tree *back = malloc(sizeof *back);
    sd_error err;
    clear_error(&err);
    if (back == NULL)
        abort();
    CHECK(sd_tree_parse(text, a, back, "again", &err) == SD_OK, "its own text does not parse: %s", err.msg);
    CHECK(back->n == t->n, "round trip: %zu nodes, %zu", back->n, t->n);
    for (size_t i = 0; i < t->n; i++)
        CHECK(back->parent[i] == t->parent[i] && back->rank[i] == t->rank[i] && back->depth[i] == t->depth[i],
              "round trip: node %zu", i);
    free(back);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    sd_error err;
    clear_error(&err);
    if (data[0] & 1) {
        const char *path = fuzz_file(data + 1, size - 1);
        sd_tree_accept a, sentinel;
        memset(&a, 0x5a, sizeof a);
        sentinel = a;
        if (sd_tree_accept_load(path, &a, &err) != SD_OK) {
            check_message(&err, "sd_tree_accept_load");
            CHECK(memcmp(&a, &sentinel, sizeof a) == 0, "acceptance written on failure");
            return 0;
        }
        CHECK(sd_tree_accept_check(&a, "loaded", &err) == SD_OK, "a loaded acceptance fails its check: %s", err.msg);
        sd_tree *t = malloc(sizeof *t);
        if (t == NULL)
            abort();
        double tokens;
        CHECK(sd_tree_optimal(8, 8, &a, t, &tokens, &err) == SD_OK, "optimal: %s", err.msg);
        CHECK(fabs(sd_tree_expected_tokens(t, &a) - tokens) <= 1e-12 * tokens, "optimal: (T1) %.17g, said %.17g",
              sd_tree_expected_tokens(t, &a), tokens);
        double chain = 1.0, reach = 1.0;
        for (size_t d = 1; d <= 8; d++)
            chain += reach *= sd_tree_accept_at(&a, d, 0);
        CHECK(tokens >= chain * (1.0 - 1e-12), "optimal %.17g below the chain's %.17g", tokens, chain);
        CHECK(t->n <= 8 && sd_tree_depth(t) <= 8, "optimal: %zu nodes, depth %zu", t->n, sd_tree_depth(t));
        free(t);
        return 0;
    }
    sd_tree_accept a;
    double p[8];
    size_t ranks = 1 + ((data[0] >> 1) & 7);
    for (size_t k = 0; k < ranks; k++)
        p[k] = ldexp(1.0, -(int)(k + 1));
    if (sd_tree_accept_ranks(p, ranks, &a, "p", &err) != SD_OK)
        abort();
    char *text = fuzz_text(data + 1, size - 1);
    sd_tree *t = malloc(sizeof *t);
    if (t == NULL)
        abort();
    t->n = 777777;
    if (sd_tree_parse(text, &a, t, "--tree", &err) == SD_OK)
        check_tree(t, &a);
    else {
        check_message(&err, "sd_tree_parse");
        CHECK(t->n == 777777, "tree written on failure");
    }
    free(t);
    free(text);
    return 0;
}

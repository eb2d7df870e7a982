/* tree.c -- token trees: their text, (T1) and the optimal tree (see specdec/tree.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/parse.h"
#include "specdec/tree.h"
#include "specdec/tsv.h"

/* ---- acceptance --------------------------------------------------------------------------- */

sd_status sd_tree_accept_check(const sd_tree_accept *a, const char *who, sd_error *err)
{
    if (a->depths < 1 || a->depths > SD_TREE_MAX_DEPTH || a->ranks < 1 || a->ranks > SD_TREE_MAX_RANK)
        return sd_status_fail(err, SD_EINVAL, "%s: %zu depths of %zu ranks: expected [1, %d] of [1, %d]", who,
                              a->depths, a->ranks, SD_TREE_MAX_DEPTH, SD_TREE_MAX_RANK);
    for (size_t d = 0; d < a->depths; d++) {
        double s = 0.0;
        for (size_t k = 0; k < a->ranks; k++) {
            double p = a->p[d][k];
            if (!(p >= 0.0 && p <= 1.0))
                return sd_status_fail(err, SD_EINVAL, "%s: p at depth %zu, rank %zu is %.6g: outside [0, 1]", who,
                                      d + 1, k, p);
            s += p;
        }
        if (s > 1.0 + 1e-9)
            return sd_status_fail(err, SD_EINVAL,
                                  "%s: the ranks of depth %zu sum to %.9g: more than 1 (at most one child is "
                                  "accepted)",
                                  who, d + 1, s);
    }
    return SD_OK;
}

sd_status sd_tree_accept_chain(double alpha, sd_tree_accept *a, sd_error *err)
{
    memset(a, 0, sizeof *a);
    a->depths = a->ranks = 1;
    a->p[0][0] = alpha;
    return sd_tree_accept_check(a, "alpha", err);
}

sd_status sd_tree_accept_ranks(const double *p, size_t n, sd_tree_accept *a, const char *who, sd_error *err)
{
    if (n < 1 || n > SD_TREE_MAX_RANK)
        return sd_status_fail(err, SD_EINVAL, "%s: %zu ranks: expected [1, %d]", who, n, SD_TREE_MAX_RANK);
    sd_tree_accept b;
    memset(&b, 0, sizeof b);
    b.depths = 1;
    b.ranks = n;
    for (size_t k = 0; k < n; k++)
        b.p[0][k] = p[k];
    sd_status st = sd_tree_accept_check(&b, who, err);
    if (st == SD_OK)
        *a = b;
    return st;
}

sd_status sd_tree_accept_load(const char *path, sd_tree_accept *a, sd_error *err)
{
    sd_tsv t;
    sd_status st = sd_tsv_load(path, 1, SD_TREE_MAX_DEPTH, &t, err);
    if (st != SD_OK)
        return st;
    sd_tree_accept b;
    memset(&b, 0, sizeof b);
    b.ranks = t.ncolumns - 1;
    if (t.ncolumns < 2 || t.ncolumns - 1 > SD_TREE_MAX_RANK || strcmp(t.column[0], "depth") != 0)
        st = sd_status_fail(err, SD_EINVAL, "%s: expected the header depth, p_0, p_1, ... (1 to %d ranks)", path,
                            SD_TREE_MAX_RANK);
    for (size_t k = 1; st == SD_OK && k < t.ncolumns; k++) {
        char want[32];
        snprintf(want, sizeof want, "p_%zu", k - 1);
        if (strcmp(t.column[k], want) != 0)
            st = sd_status_fail(err, SD_EINVAL, "%s: column %zu is '%.40s': expected %s (the ranks in order)", path,
                                k + 1, t.column[k], want);
    }
    if (st == SD_OK && t.nrows == 0)
        st = sd_status_fail(err, SD_EINVAL, "%s: no depth row", path);
    for (size_t r = 0; st == SD_OK && r < t.nrows; r++) {
        const sd_tsv_row *row = &t.row[r];
        char name[600];
        double d, sum = 0.0;
        snprintf(name, sizeof name, "%s:%zu: depth", path, row->line);
        sd_domain dd = { name, (double)(r + 1), (double)(r + 1), 1 };
        if ((st = sd_parse_number(row->field[0], &dd, &d, err)) != SD_OK)
            break;
        for (size_t k = 1; st == SD_OK && k < t.ncolumns; k++) {
            snprintf(name, sizeof name, "%s:%zu: p_%zu", path, row->line, k - 1);
            sd_domain dp = { name, 0.0, 1.0, 0 };
            st = sd_parse_number(row->field[k], &dp, &b.p[r][k - 1], err);
            sum += b.p[r][k - 1];
        }
        if (st == SD_OK && sum > 1.0 + 1e-9)
            st = sd_status_fail(err, SD_EINVAL,
                                "%s:%zu: the ranks of depth %zu sum to %.9g: more than 1 (at most one child is accepted)",
                                path, row->line, r + 1, sum);
        b.depths = r + 1;
    }
    sd_tsv_free(&t);
    if (st == SD_OK)
        *a = b;
    return st;
}

double sd_tree_accept_at(const sd_tree_accept *a, size_t depth, size_t rank)
{
    size_t d = depth < 1 ? 0 : depth - 1;
    if (d >= a->depths)
        d = a->depths - 1;
    return rank < a->ranks ? a->p[d][rank] : 0.0;
}

/* ---- the tree ------------------------------------------------------------------------------ */

sd_status sd_tree_check(const sd_tree *t, const char *who, sd_error *err)
{
    if (t->n > SD_TREE_MAX_NODES)
        return sd_status_fail(err, SD_EINVAL, "%s: %zu nodes: more than %d", who, t->n, SD_TREE_MAX_NODES);
    for (size_t i = 0; i < t->n; i++) {
        int p = t->parent[i];
        if (!(p >= -1 && p < (int)i))
            return sd_status_fail(err, SD_EINVAL, "%s: node %zu: its parent %d does not come before it", who, i, p);
        if (t->depth[i] != (p < 0 ? 1 : t->depth[p] + 1) || t->depth[i] > SD_TREE_MAX_DEPTH)
            return sd_status_fail(err, SD_EINVAL, "%s: node %zu: depth %u is not its parent's + 1 in [1, %d]", who, i,
                                  (unsigned)t->depth[i], SD_TREE_MAX_DEPTH);
        if (t->rank[i] >= SD_TREE_MAX_RANK)
            return sd_status_fail(err, SD_EINVAL, "%s: node %zu: rank %u is not below %d", who, i,
                                  (unsigned)t->rank[i], SD_TREE_MAX_RANK);
    }
    return SD_OK;
}

size_t sd_tree_depth(const sd_tree *t)
{
    size_t d = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->depth[i] > d)
            d = t->depth[i];
    return d;
}

size_t sd_tree_width(const sd_tree *t)
{
    size_t w[SD_TREE_MAX_DEPTH + 1] = { 0 }, m = 0;
    for (size_t i = 0; i < t->n; i++)
        if (++w[t->depth[i]] > m)
            m = w[t->depth[i]];
    return m;
}

double sd_tree_expected_tokens(const sd_tree *t, const sd_tree_accept *a)
{
    double reach[SD_TREE_MAX_NODES]; /* the product along each node's path */
    double sum = 1.0;
    for (size_t i = 0; i < t->n; i++) {
        double up = t->parent[i] < 0 ? 1.0 : reach[t->parent[i]];
        reach[i] = up * sd_tree_accept_at(a, t->depth[i], t->rank[i]);
        sum += reach[i];
    }
    return sum;
}

/* The rank path of node i into path[0 .. depth - 1]; its depth. */
static size_t tree_path(const sd_tree *t, size_t i, unsigned char *path)
{
    size_t d = t->depth[i];
    for (int v = (int)i; v >= 0; v = t->parent[v])
        path[t->depth[v] - 1] = t->rank[v];
    return d;
}

size_t sd_tree_format(const sd_tree *t, char *buf, size_t size)
{
    size_t len = 0;
    unsigned char path[SD_TREE_MAX_DEPTH];
#define PUT(...)                                                                                                     \
    do {                                                                                                             \
        int w_ = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0, __VA_ARGS__);                  \
        len += w_ > 0 ? (size_t)w_ : 0;                                                                              \
    } while (0)
    if (size > 0)
        buf[0] = '\0';
    PUT("[");
    for (size_t i = 0; i < t->n; i++) {
        size_t d = tree_path(t, i, path);
        PUT("%s(", i ? ", " : "");
        for (size_t j = 0; j < d; j++)
            PUT(j ? ", %u" : "%u", (unsigned)path[j]);
        PUT(d == 1 ? ",)" : ")");
    }
    PUT("]");
#undef PUT
    return len;
}

void sd_tree_canonical(sd_tree *t)
{
    /* the nodes by (parent, rank): a counting sort by rank, then a stable one by parent */
    size_t by_rank[SD_TREE_MAX_NODES], by_parent[SD_TREE_MAX_NODES], start[SD_TREE_MAX_NODES + 2];
    size_t count[SD_TREE_MAX_RANK + 1] = { 0 };
    size_t n = t->n;
    for (size_t i = 0; i < n; i++)
        count[t->rank[i] + 1]++;
    for (size_t k = 1; k <= SD_TREE_MAX_RANK; k++)
        count[k] += count[k - 1];
    for (size_t i = 0; i < n; i++)
        by_rank[count[t->rank[i]]++] = i;
    memset(start, 0, sizeof start);
    for (size_t i = 0; i < n; i++)
        start[(size_t)(t->parent[i] + 1) + 1]++;
    for (size_t p = 1; p <= n + 1; p++)
        start[p] += start[p - 1];
    size_t fill[SD_TREE_MAX_NODES + 1];
    memcpy(fill, start, (n + 1) * sizeof *fill);
    for (size_t j = 0; j < n; j++) {
        size_t i = by_rank[j];
        by_parent[fill[t->parent[i] + 1]++] = i;
    }
    /* breadth first: the root's children by rank, then each node's in turn; a level's
     * nodes come out by (parent's place, rank), which is the order of their paths */
    size_t order[SD_TREE_MAX_NODES], place[SD_TREE_MAX_NODES];
    size_t m = 0;
    for (size_t j = start[0]; j < start[1]; j++)
        order[m++] = by_parent[j];
    for (size_t q = 0; q < m; q++) {
        size_t v = order[q];
        for (size_t j = start[v + 1]; j < start[v + 2]; j++)
            order[m++] = by_parent[j];
    }
    sd_tree s = *t;
    for (size_t i = 0; i < n; i++)
        place[order[i]] = i;
    for (size_t i = 0; i < n; i++) {
        size_t o = order[i];
        t->rank[i] = s.rank[o];
        t->depth[i] = s.depth[o];
        t->parent[i] = s.parent[o] < 0 ? -1 : (int)place[s.parent[o]];
    }
}

/* ---- the text -------------------------------------------------------------------------------- */

typedef struct {
    const char *text, *who;
    sd_error *err;
} tparse;

/* A path read from the text: its ranks and where it starts (0-based byte). */
typedef struct {
    unsigned char r[SD_TREE_MAX_DEPTH];
    size_t d, at;
} tpath;

/* "(0, 1)" for the path. */
static void path_text(const unsigned char *r, size_t d, char *buf, size_t size)
{
    size_t len = 0;
    len += (size_t)snprintf(buf, size, "(");
    for (size_t j = 0; j < d && len < size; j++)
        len += (size_t)snprintf(buf + len, size - len, j ? ", %u" : "%u", (unsigned)r[j]);
    if (len < size)
        snprintf(buf + len, size - len, d == 1 ? ",)" : ")");
}

static const char *skip_blank(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

/* A whole number at *s (digits, no sign, no leading zero) below limit into *v. */
static int read_whole(const char **s, unsigned long limit, unsigned long *v)
{
    const char *p = *s;
    unsigned long x = 0;
    if (!(*p >= '0' && *p <= '9') || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
        return 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned long d = (unsigned long)(*p - '0');
        if (x > (limit - d) / 10) /* x * 10 + d would pass limit (checked before it can wrap) */
            return 0;
        x = x * 10 + d;
    }
    *v = x;
    *s = p;
    return 1;
}

static sd_status bad_at(const tparse *tp, const char *s, const char *what)
{
    return sd_status_fail(tp->err, SD_EINVAL, "%s: position %zu: %s", tp->who, (size_t)(s - tp->text) + 1, what);
}

/* The list of paths "[(..), ..]" or "[[..], ..]" into paths[0 .. *n - 1]. */
static sd_status parse_paths(const tparse *tp, size_t max_rank, tpath *paths, size_t *n)
{
    const char *s = skip_blank(tp->text);
    char close = 0;
    *n = 0;
    if (*s != '[')
        return bad_at(tp, s, "expected chain:G, kary:D,W, or a list of rank paths [(0,), (0, 0), ...]");
    s = skip_blank(s + 1);
    while (*s != ']') {
        const char *at = s;
        char open = *s;
        if (open != '(' && open != '[')
            return bad_at(tp, s, "expected a rank path: a tuple (0, 1) or a list [0, 1]");
        if (close == 0)
            close = open == '(' ? ')' : ']';
        else if ((open == '(') != (close == ')'))
            return bad_at(tp, s, "the paths mix tuples and lists");
        if (*n == SD_TREE_MAX_NODES)
            return bad_at(tp, s, "more than 4096 nodes");
        tpath *p = &paths[(*n)++];
        p->d = 0;
        p->at = (size_t)(at - tp->text);
        s = skip_blank(s + 1);
        int comma = 0;
        while (*s != close) {
            unsigned long r;
            const char *num = s;
            if (!read_whole(&s, 1000000, &r))
                return bad_at(tp, s, "expected a rank: a whole number without sign or leading zeros");
            if (p->d == SD_TREE_MAX_DEPTH)
                return bad_at(tp, at, "a path deeper than 64");
            if (r >= max_rank) {
                char m[160];
                snprintf(m, sizeof m, "rank %lu is not below %zu, the ranks the acceptance gives", r, max_rank);
                return bad_at(tp, num, m);
            }
            p->r[p->d++] = (unsigned char)r;
            s = skip_blank(s);
            comma = *s == ',';
            if (comma)
                s = skip_blank(s + 1);
            else if (*s != close)
                return bad_at(tp, s, close == ')' ? "expected ',' or ')'" : "expected ',' or ']'");
        }
        if (p->d == 0)
            return bad_at(tp, at, "an empty path: the root is not a draft node");
        if (close == ')' && p->d == 1 && !comma)
            return bad_at(tp, at, "(k) is a number, not a tuple: a one-rank path is written (k,)");
        s = skip_blank(s + 1);
        if (*s == ',')
            s = skip_blank(s + 1);
        else if (*s != ']')
            return bad_at(tp, s, "expected ',' or ']' after a path");
    }
    if (*skip_blank(s + 1) != '\0')
        return bad_at(tp, skip_blank(s + 1), "text after the closing ']'");
    if (*n == 0)
        return bad_at(tp, s, "an empty tree");
    return SD_OK;
}

/* The node of t with this parent and rank, or -1. */
static int child_of(const sd_tree *t, int parent, unsigned rank)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->parent[i] == parent && t->rank[i] == rank)
            return (int)i;
    return -1;
}

/* The paths (any order) into a tree: shallower first, each under its prefix. */
static sd_status paths_tree(const tparse *tp, tpath *paths, size_t n, sd_tree *t)
{
    t->n = 0;
    for (size_t d = 1; d <= SD_TREE_MAX_DEPTH; d++)
        for (size_t i = 0; i < n; i++) {
            const tpath *p = &paths[i];
            if (p->d != d)
                continue;
            int v = -1;
            for (size_t j = 0; j + 1 < d; j++)
                if ((v = child_of(t, v, p->r[j])) < 0)
                    break;
            char a[400], b[400];
            path_text(p->r, d, a, sizeof a);
            if (d > 1 && v < 0) {
                path_text(p->r, d - 1, b, sizeof b);
                char m[900];
                snprintf(m, sizeof m, "%s: its prefix %s is missing", a, b);
                return bad_at(tp, tp->text + p->at, m);
            }
            if (child_of(t, v, p->r[d - 1]) >= 0) {
                char m[500];
                snprintf(m, sizeof m, "%s appears twice", a);
                return bad_at(tp, tp->text + p->at, m);
            }
            t->parent[t->n] = v;
            t->rank[t->n] = p->r[d - 1];
            t->depth[t->n] = (unsigned char)d;
            t->n++;
        }
    sd_tree_canonical(t);
    return SD_OK;
}

/* "NAME:" followed by count whole numbers separated by commas into v. */
static sd_status parse_args(const tparse *tp, const char *s, size_t count, unsigned long *v, const char *form)
{
    for (size_t i = 0; i < count; i++) {
        if (!read_whole(&s, 1000000000, &v[i])) {
            char m[200];
            snprintf(m, sizeof m, "expected %s with whole numbers", form);
            return bad_at(tp, s, m);
        }
        if (i + 1 < count && *s++ != ',') {
            char m[200];
            snprintf(m, sizeof m, "expected %s", form);
            return bad_at(tp, s - 1, m);
        }
    }
    if (*skip_blank(s) != '\0')
        return bad_at(tp, skip_blank(s), "text after the tree");
    return SD_OK;
}

sd_status sd_tree_parse(const char *text, const sd_tree_accept *a, sd_tree *t, const char *who, sd_error *err)
{
    size_t max_rank = a ? a->ranks : SD_TREE_MAX_RANK;
    tparse tp = { text, who, err };
    const char *lead = skip_blank(text); /* blanks around the text are allowed */
    sd_tree *u = malloc(sizeof *u);
    tpath *paths = NULL;
    sd_status st = SD_OK;
    unsigned long v[2];
    if (u == NULL)
        return sd_status_fail(err, SD_ENOMEM, "%s: out of memory", who);
    u->n = 0;
    if (max_rank < 1 || max_rank > SD_TREE_MAX_RANK)
        max_rank = SD_TREE_MAX_RANK;
    if (strncmp(lead, "sglang:", 7) == 0) {
        unsigned long w[3];
        if ((st = parse_args(&tp, lead + 7, 3, w, "sglang:STEPS,TOPK,NUM_DRAFT_TOKENS")) == SD_OK && a == NULL)
            st = sd_status_fail(err, SD_EINVAL, "%s: %s: SGLang's tree depends on the acceptance (its scores)", who,
                                text);
        if (st == SD_OK)
            st = sd_tree_sglang(w[0], w[1], w[2], a, u, who, err);
    } else if (strncmp(lead, "chain:", 6) == 0) {
        if ((st = parse_args(&tp, lead + 6, 1, v, "chain:G")) == SD_OK && (v[0] < 1 || v[0] > SD_TREE_MAX_DEPTH))
            st = sd_status_fail(err, SD_EINVAL, "%s: chain:%lu: G must be in [1, %d]", who, v[0], SD_TREE_MAX_DEPTH);
        for (size_t i = 0; st == SD_OK && i < v[0]; i++) {
            u->parent[i] = (int)i - 1;
            u->rank[i] = 0;
            u->depth[i] = (unsigned char)(i + 1 > 255 ? 255 : i + 1);
        }
        if (st == SD_OK)
            u->n = v[0];
    } else if (strncmp(lead, "kary:", 5) == 0) {
        st = parse_args(&tp, lead + 5, 2, v, "kary:DEPTH,WIDTH");
        if (st == SD_OK && (v[0] < 1 || v[0] > SD_TREE_MAX_DEPTH || v[1] < 1 || v[1] > max_rank))
            st = sd_status_fail(err, SD_EINVAL, "%s: kary:%lu,%lu: DEPTH must be in [1, %d], WIDTH in [1, %zu]", who,
                                v[0], v[1], SD_TREE_MAX_DEPTH, max_rank);
        double nodes = 0.0, level = 1.0;
        for (size_t d = 0; st == SD_OK && d < v[0]; d++)
            nodes += level *= (double)v[1];
        if (st == SD_OK && nodes > SD_TREE_MAX_NODES)
            st = sd_status_fail(err, SD_EINVAL, "%s: kary:%lu,%lu has %.0f nodes: more than %d", who, v[0], v[1],
                                nodes, SD_TREE_MAX_NODES);
        /* breadth first: level d's nodes are the previous level's, each with W children */
        size_t lo = 0, hi = 0;
        for (size_t d = 1; st == SD_OK && d <= v[0]; d++) {
            size_t from = lo, to = hi;
            lo = u->n;
            for (size_t par = from; par < (d == 1 ? from + 1 : to); par++)
                for (size_t k = 0; k < v[1]; k++) {
                    u->parent[u->n] = d == 1 ? -1 : (int)par;
                    u->rank[u->n] = (unsigned char)k;
                    u->depth[u->n] = (unsigned char)d;
                    u->n++;
                }
            hi = u->n;
        }
    } else {
        if ((paths = malloc(SD_TREE_MAX_NODES * sizeof *paths)) == NULL)
            st = sd_status_fail(err, SD_ENOMEM, "%s: out of memory", who);
        size_t n = 0;
        if (st == SD_OK)
            st = parse_paths(&tp, max_rank, paths, &n);
        if (st == SD_OK)
            st = paths_tree(&tp, paths, n, u);
    }
    if (st == SD_OK)
        *t = *u;
    free(paths);
    free(u);
    return st;
}

/* ---- the optimal tree ---------------------------------------------------------------------- */

/* The most inner steps (depth x ranks x budget^2 / 2) sd_tree_optimal takes on: about 5 s. */
#define OPT_WORK_MAX 4e9

typedef struct {
    size_t N, D, K;
    uint16_t *choice; /* [(d - 1) (N + 1) + n] K + k: the nodes under rank k, 0 to skip it */
    sd_tree *t;
} topt;

/* The forest the choices give below parent (at depth d, n nodes at most), appended to t. */
static void opt_build(const topt *o, size_t d, size_t n, int parent)
{
    for (size_t k = 0; k < o->K && n > 0; k++) {
        size_t m = o->choice[((d - 1) * (o->N + 1) + n) * o->K + k];
        if (m == 0)
            continue;
        sd_tree *t = o->t;
        int v = (int)t->n;
        t->parent[t->n] = parent;
        t->rank[t->n] = (unsigned char)k;
        t->depth[t->n] = (unsigned char)d;
        t->n++;
        if (d < o->D)
            opt_build(o, d + 1, m - 1, v);
        n -= m;
    }
}

sd_status sd_tree_optimal(size_t budget, size_t max_depth, const sd_tree_accept *a, sd_tree *t, double *tokens,
                          sd_error *err)
{
    if (budget < 1 || budget > SD_TREE_MAX_NODES)
        return sd_status_fail(err, SD_EINVAL, "budget: %zu nodes is outside [1, %d]", budget, SD_TREE_MAX_NODES);
    if (max_depth < 1 || max_depth > SD_TREE_MAX_DEPTH)
        return sd_status_fail(err, SD_EINVAL, "depth: %zu is outside [1, %d]", max_depth, SD_TREE_MAX_DEPTH);
    sd_status st = sd_tree_accept_check(a, "acceptance", err);
    if (st != SD_OK)
        return st;
    size_t N = budget, D = max_depth < budget ? max_depth : budget, K = a->ranks;
    if ((double)D * (double)K * (double)N * (double)N / 2.0 > OPT_WORK_MAX)
        return sd_status_fail(err, SD_EINVAL,
                              "budget %zu, depth %zu, %zu ranks: %.3g steps of the dynamic program, more than %.0e: "
                              "lower the budget, the depth or the ranks",
                              N, D, K, (double)D * (double)K * (double)N * (double)N / 2.0, OPT_WORK_MAX);
    topt o = { N, D, K, calloc(D * (N + 1) * K, sizeof(uint16_t)), NULL };
    double *T = calloc((D + 2) * (N + 1), sizeof *T); /* T[d][n]: the best forest below a depth d - 1 node */
    double *G = calloc((K + 1) * (N + 1), sizeof *G); /* G[k][n] at the current depth */
    sd_tree *u = malloc(sizeof *u);
    if (o.choice == NULL || T == NULL || G == NULL || u == NULL) {
        free(o.choice);
        free(T);
        free(G);
        free(u);
        return sd_status_fail(err, SD_ENOMEM, "optimal tree: out of memory");
    }
    /* T[D + 1][.] = 0: no node below depth D.  At depth d, from the last rank down:
     * G(k, n) = max(G(k + 1, n), max_m p[d][k] (1 + T[d + 1][m - 1]) + G(k + 1, n - m)) */
    for (size_t d = D; d >= 1; d--) {
        const double *below = &T[(d + 1) * (N + 1)];
        memset(&G[K * (N + 1)], 0, (N + 1) * sizeof *G);
        for (size_t k = K; k-- > 0;) {
            double p = sd_tree_accept_at(a, d, k);
            const double *next = &G[(k + 1) * (N + 1)];
            double *cur = &G[k * (N + 1)];
            uint16_t *ch = &o.choice[(d - 1) * (N + 1) * K];
            for (size_t n = 0; n <= N; n++) {
                /* the fewest nodes under rank k that do best; skipping k only when strictly
                 * better, so that ties go to the lower rank */
                double best = -1.0;
                size_t arg = 0;
                for (size_t m = 1; p > 0.0 && m <= n; m++) {
                    double v = p * (1.0 + below[m - 1]) + next[n - m];
                    if (v > best) {
                        best = v;
                        arg = m;
                    }
                }
                if (!(best >= next[n])) {
                    best = next[n];
                    arg = 0;
                }
                cur[n] = best;
                ch[n * K + k] = (uint16_t)arg;
            }
        }
        memcpy(&T[d * (N + 1)], G, (N + 1) * sizeof *G);
    }
    u->n = 0;
    o.t = u;
    opt_build(&o, 1, N, -1);
    sd_tree_canonical(u);
    *tokens = 1.0 + T[1 * (N + 1) + N];
    *t = *u;
    free(o.choice);
    free(T);
    free(G);
    free(u);
    return SD_OK;
}

/* ---- SGLang's tree ------------------------------------------------------------------------- */

typedef struct {
    int parent; /* candidate index, -1 for the root */
    unsigned char rank, depth;
    double score;
} tcand;

/* A candidate's place in an order: by score, higher first, ties to the lower index (the
 * pair is sorted, so the comparison needs no state outside it: thread-safe). */
typedef struct {
    double score;
    size_t i;
} tkey;

static int key_before(const void *x, const void *y)
{
    const tkey *a = x, *b = y;
    if (a->score > b->score)
        return -1;
    if (a->score < b->score)
        return 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Candidates c[from .. to - 1] in that order into key[0 .. to - from - 1]. */
static void order_candidates(const tcand *c, size_t from, size_t to, tkey *key)
{
    for (size_t i = from; i < to; i++)
        key[i - from] = (tkey){ c[i].score, i };
    qsort(key, to - from, sizeof *key, key_before);
}

/* The settings' domain (tree.h: sd_tree_sglang); SD_EINVAL naming who, else SD_OK. */
static sd_status sglang_check(size_t S, size_t K, size_t N, const sd_tree_accept *a, const char *who, sd_error *err)
{
    if (S < 1 || S > SD_TREE_MAX_DEPTH || K < 1 || K > SD_TREE_MAX_RANK)
        return sd_status_fail(err, SD_EINVAL, "%s: sglang:%zu,%zu,%zu: STEPS must be in [1, %d], TOPK in [1, %d]",
                              who, S, K, N, SD_TREE_MAX_DEPTH, SD_TREE_MAX_RANK);
    if (N < 2 || N - 1 > SD_TREE_MAX_NODES)
        return sd_status_fail(err, SD_EINVAL,
                              "%s: sglang:%zu,%zu,%zu: NUM_DRAFT_TOKENS counts the root, so it must be in [2, %d]", who,
                              S, K, N, SD_TREE_MAX_NODES + 1);
    if (K == 1 && N != S + 1)
        return sd_status_fail(err, SD_EINVAL,
                              "%s: sglang:%zu,1,%zu: with topk 1 SGLang sets num_draft_tokens to steps + 1 = %zu "
                              "(write sglang:%zu,1,%zu)",
                              who, S, N, S + 1, S, S + 1);
    double pool = (double)K + (double)(S - 1) * (double)K * (double)K;
    if ((double)(N - 1) > pool)
        return sd_status_fail(err, SD_EINVAL,
                              "%s: sglang:%zu,%zu,%zu: %zu draft nodes from a pool of only topk + (steps - 1) topk^2 = "
                              "%.0f candidates",
                              who, S, K, N, N - 1, pool);
    sd_status st = sd_tree_accept_check(a, who, err);
    if (st != SD_OK)
        return st;
    if (K > a->ranks)
        return sd_status_fail(err, SD_EINVAL,
                              "%s: sglang:%zu,%zu,%zu: topk %zu drafts ranks 0 .. %zu, but the acceptance gives %zu "
                              "rank%s",
                              who, S, K, N, K, K - 1, a->ranks, a->ranks == 1 ? "" : "s");
    return SD_OK;
}

/* The candidates of S steps of top-K drafting into c (K + (S - 1) K^2 of them, in the order
 * they are made), idx the scratch of their order: step 1 the root's K children, then each step
 * the K children of every frontier node, the K best of them by score the next frontier. */
static size_t sglang_candidates(size_t S, size_t K, const sd_tree_accept *a, tcand *c, tkey *idx)
{
    size_t frontier[SD_TREE_MAX_RANK], nf = 0, nc = 0;
    for (size_t k = 0; k < K; k++) {
        c[nc] = (tcand){ -1, (unsigned char)k, 1, sd_tree_accept_at(a, 1, k) };
        frontier[nf++] = nc++;
    }
    for (size_t d = 2; d <= S; d++) {
        size_t first = nc;
        for (size_t f = 0; f < nf; f++)
            for (size_t k = 0; k < K; k++)
                c[nc++] = (tcand){ (int)frontier[f], (unsigned char)k, (unsigned char)d,
                                   c[frontier[f]].score * sd_tree_accept_at(a, d, k) };
        order_candidates(c, first, nc, idx);
        for (nf = 0; nf < K; nf++)
            frontier[nf] = idx[nf].i;
    }
    return nc;
}

/* The keep best of candidates c[0 .. nc - 1] (idx: all of them in order) as the nodes of *u,
 * taken in candidate order so that parents come first; node[] the scratch of their numbers. */
static void sglang_keep(const tcand *c, size_t nc, const tkey *idx, size_t keep, int *node, sd_tree *u)
{
    for (size_t i = 0; i < nc; i++)
        node[i] = -2;
    for (size_t j = 0; j < keep; j++)
        node[idx[j].i] = -1;
    u->n = 0;
    for (size_t i = 0; i < nc; i++) {
        if (node[i] != -1)
            continue;
        int p = c[i].parent;
        node[i] = (int)u->n;
        u->parent[u->n] = p < 0 ? -1 : node[p];
        u->rank[u->n] = c[i].rank;
        u->depth[u->n] = c[i].depth;
        u->n++;
    }
}

sd_status sd_tree_sglang(size_t steps, size_t topk, size_t num_draft_tokens, const sd_tree_accept *a, sd_tree *t,
                         const char *who, sd_error *err)
{
    size_t S = steps, K = topk, N = num_draft_tokens;
    sd_status st = sglang_check(S, K, N, a, who, err);
    if (st != SD_OK)
        return st;
    size_t np = K + (S - 1) * K * K; /* at most 64 + 63 x 64^2 */
    tcand *c = malloc(np * sizeof *c);
    tkey *idx = malloc(np * sizeof *idx);
    int *node = malloc(np * sizeof *node);
    sd_tree *u = malloc(sizeof *u);
    if (c != NULL && idx != NULL && node != NULL && u != NULL) {
        size_t nc = sglang_candidates(S, K, a, c, idx);
        order_candidates(c, 0, nc, idx);
        sglang_keep(c, nc, idx, N - 1, node, u);
        sd_tree_canonical(u);
        *t = *u;
    } else
        st = sd_status_fail(err, SD_ENOMEM, "%s: out of memory", who);
    free(node);
    free(c);
    free(idx);
    free(u);
    return st;
}

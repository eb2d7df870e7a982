/* engine_iterate.c -- the iteration shapes of the Monte Carlo engine
 * (engine.h): a chain of drafts (Algorithm 1 by sd_step), k drafts a
 * position verified by recursive rejection, the oracle's drafts until the
 * first rejection, and a token tree verified from the root down; each
 * records what it emits.
 *
 * Cost per emitted token: O(k) hashing for the context lookup and O(log V)
 * CDF searches that mostly stay in cache; a tree's visited node O(V (1 + k)),
 * k its largest child rank; a rejected draft of several a position O(V). */
#include "specdec/engine.h"
#include "engine_impl.h"
#include "verify_impl.h"

#include <string.h>

#include "specdec/rng.h"
#include "specdec/step.h"
#include "model/model_impl.h"

/* Records one emitted token (rank x at context c); the caller advances the prefix. */
static void count(sd_engine_recorder *rec, sd_engine_sequence *seq, const sd_context *c, uint32_t x)
{
    size_t ci = (size_t)(c - rec->base);
    uint32_t token = c->token[x];
    rec->s->tokens++;
    rec->s->ctx_tokens[ci]++;
    if (rec->s->out_counts != NULL)
        rec->s->out_counts[ci * rec->s->vocab + x]++;
    rec->beta_sum += rec->acc_k[ci];
    if (seq->len < rec->positions)
        rec->s->pos_counts[seq->len * rec->s->vocab + token]++;
    seq->len++;
}

/* Records one emitted token and advances the prefix. */
static void emit(sd_engine_recorder *rec, sd_engine_sequence *seq, const sd_context *c, uint32_t x)
{
    count(rec, seq, c, x);
    sd_model_advance_inline(rec->m, &seq->prefix, c->token[x]);
}

/* One iteration of a chain of w->gamma drafts (fewer under w->threshold),
 * recorded; returns N. */
static size_t iterate_chain(const sd_engine_config *cfg, sd_engine_recorder *rec, sd_engine_sequence *seq, gsl_rng *r, sd_step *w)
{
    size_t n = sd_step_run(cfg->model, cfg->verifier, w, &seq->prefix, r) - 1, g = w->drafted;
    if (n > g) /* a rule that accepts more drafts than were made is broken: no token counts */
        return 0;
    sd_engine_stats *s = rec->s;
    s->draft_calls += g;
    s->target_calls++;
    s->target_positions += g + 1;
    s->verified += n < g ? n + 1 : g;
    s->accepted += n;
    for (size_t i = 0; i < g && i <= n; i++) {
        s->reached[i]++;
        s->accepted_at[i] += i < n;
    }
    for (size_t i = 0; i < n; i++)
        count(rec, seq, w->ctx[i], w->draft[i]);
    seq->prefix = w->states[n]; /* the prefix after the n accepted drafts, made while drafting */
    emit(rec, seq, w->ctx[n], w->last);
    return n + 1;
}

/* One iteration with k drafts per position (recursive rejection), gamma
 * positions; work holds 2 V + 1 doubles.  Returns N. */
static size_t iterate_multi(const sd_engine_config *cfg, sd_engine_recorder *rec, sd_engine_sequence *seq, gsl_rng *r, double *work)
{
    const sd_model *m = cfg->model;
    sd_engine_stats *s = rec->s;
    size_t g = cfg->gamma, k = cfg->drafts;
    double nodes = 0.0, level = 1.0;
    for (size_t d = 0; d < g; d++)
        nodes += (level *= (double)k);
    s->draft_calls += g;
    s->target_calls++;
    s->target_positions += 1 + (uint64_t)nodes;
    for (size_t d = 0; d < g; d++) {
        const sd_context *c = sd_model_lookup_inline(m, &seq->prefix);
        s->reached[d]++;
        s->verified++;
        int accepted;
        uint32_t x = sd_verify_multi(c, k, r, work, &accepted);
        emit(rec, seq, c, x);
        if (!accepted)
            return d + 1;
        s->accepted++;
        s->accepted_at[d]++;
    }
    const sd_context *c = sd_model_lookup_inline(m, &seq->prefix);
    emit(rec, seq, c, (uint32_t)sd_cdf_draw(&c->p_cdf, r));
    return g + 1;
}

/* One oracle iteration: draft and verify one position at a time until the
 * first rejection (verification in one target call, as the oracle knows
 * beta); returns N. */
static size_t iterate_oracle(const sd_engine_config *cfg, sd_engine_recorder *rec, sd_engine_sequence *seq, gsl_rng *r)
{
    const sd_model *m = cfg->model;
    sd_engine_stats *s = rec->s;
    size_t n = 0;
    for (;;) {
        const sd_context *c = sd_model_lookup_inline(m, &seq->prefix);
        if (n == SD_ORACLE_MAX) {
            emit(rec, seq, c, cfg->verifier->bonus(c, r));
            break;
        }
        uint32_t x = sd_verify_draft_inline(cfg->verifier, c, r);
        s->draft_calls++;
        s->verified++;
        s->reached[n]++;
        if (!cfg->verifier->accept(c, x, r)) {
            emit(rec, seq, c, cfg->verifier->resample(c, x, r));
            break;
        }
        s->accepted++;
        s->accepted_at[n]++;
        emit(rec, seq, c, x);
        n++;
    }
    s->target_calls++;
    s->target_positions += n + 1;
    return n + 1;
}

/* The children of a tree node at context c, nodes a .. b - 1 of t (ranks rising), verified
 * under rule ch with the residual in work[0 .. V) and the sampler's sums after it: the rank
 * (in c) of the token emitted, with *child the accepted node or -1 (then the token is the
 * residual's). */
static uint32_t verify_children(const sd_context *c, const sd_tree *t, size_t a, size_t b, sd_children ch, gsl_rng *r,
                                double *work, int *child)
{
    size_t nv = c->p_cdf.n;
    double *res = work, *cum = work + nv, mass = 1.0;
    uint32_t top[SD_TREE_MAX_RANK];
    size_t ntop = 0;
    memcpy(res, c->p, nv * sizeof *res);
    if (ch != SD_CHILDREN_SAMPLED) { /* q's t->rank[b - 1] + 1 most likely tokens, ties to the lower rank */
        size_t want = (size_t)t->rank[b - 1] + 1 < nv ? (size_t)t->rank[b - 1] + 1 : nv;
        for (uint32_t x = 0; x < nv; x++) {
            if (ntop == want && !(c->q[x] > c->q[top[ntop - 1]]))
                continue;
            size_t i = ntop < want ? ntop++ : ntop - 1;
            for (; i > 0 && c->q[x] > c->q[top[i - 1]]; i--)
                top[i] = top[i - 1];
            top[i] = x;
        }
    }
    for (size_t j = a; j < b; j++) {
        uint32_t x;
        if (ch == SD_CHILDREN_SAMPLED) {
            x = (uint32_t)sd_cdf_draw(&c->q_cdf, r);
            if (sd_rng_u53_scaled_below(r, c->q[x] * mass, res[x])) { /* u q(x) < r(x) / mass */
                *child = (int)j;
                return x;
            }
            double rest = 0.0; /* r <- max(r / mass - q, 0), unnormalised */
            for (size_t y = 0; y < nv; y++)
                rest += (res[y] = res[y] / mass > c->q[y] ? res[y] / mass - c->q[y] : 0.0);
            if (!(rest > 0.0)) { /* p = q up to rounding: keep p */
                memcpy(res, c->p, nv * sizeof *res);
                rest = 1.0;
            }
            mass = rest;
            continue;
        }
        if (t->rank[j] >= ntop) /* q has fewer tokens than the rank: no such child */
            continue;
        x = top[t->rank[j]];
        if (!(res[x] > 0.0)) /* p(x) = 0, or x already rejected: never accepted, nothing to remove */
            continue;
        /* accept with r(x) / r(all); the broken control forgets the division */
        if (sd_rng_u53_scaled_below(r, ch == SD_CHILDREN_TOP_K ? mass : 1.0, res[x])) {
            *child = (int)j;
            return x;
        }
        mass -= res[x];
        res[x] = 0.0;
    }
    *child = -1;
    size_t x = sd_cdf_sample_weights(res, nv, cum, r);
    return x < nv ? (uint32_t)x : (uint32_t)sd_cdf_draw(&c->p_cdf, r);
}

/* One iteration drafting cfg->tree, verified from the root down, recorded; returns N. */
static size_t iterate_tree(const sd_engine_config *cfg, sd_engine_recorder *rec, sd_engine_sequence *seq, gsl_rng *r, double *work)
{
    const sd_tree *t = cfg->tree;
    sd_engine_stats *s = rec->s;
    s->draft_calls += sd_tree_depth(t);
    s->target_calls++;
    s->target_positions += 1 + t->n;
    int v = -1;
    for (size_t d = 0;; d++) {
        const sd_context *c = sd_model_lookup_inline(cfg->model, &seq->prefix);
        size_t a = rec->kids[v + 1], b = rec->kids[v + 2];
        if (a == b) { /* a leaf: the bonus token */
            emit(rec, seq, c, (uint32_t)sd_cdf_draw(&c->p_cdf, r));
            return d + 1;
        }
        int child;
        s->reached[d]++;
        s->verified++;
        emit(rec, seq, c, verify_children(c, t, a, b, cfg->children, r, work, &child));
        if (child < 0)
            return d + 1;
        s->accepted++;
        s->accepted_at[d]++;
        v = child;
    }
}

/* Counts the heuristic's move from draft length g, after an iteration that
 * accepted every draft (full) or not, to next (engine_stats.h: moves). */
static void count_move(sd_engine_stats *s, size_t g, int full, size_t next)
{
    size_t row = (size_t)full * (s->max_gamma + 1) + (g <= s->max_gamma ? g : s->max_gamma);
    size_t bin = next + SD_MOVE_SPAN >= g && next <= g + SD_MOVE_SPAN ? next + SD_MOVE_SPAN - g : SD_MOVE_BINS - 1;
    s->moves[row * SD_MOVE_BINS + bin]++;
}

size_t sd_engine_iterate(const sd_engine_config *cfg, sd_engine_recorder *rec, sd_engine_sequence *seq, gsl_rng *r,
                         sd_step *step)
{
    if (cfg->policy == SD_POLICY_ORACLE)
        return iterate_oracle(cfg, rec, seq, r);
    if (cfg->tree != NULL)
        return iterate_tree(cfg, rec, seq, r, step->work);
    if (cfg->drafts > 1)
        return iterate_multi(cfg, rec, seq, r, step->work);
    step->threshold = cfg->policy == SD_POLICY_THRESHOLD ? cfg->threshold : 0.0;
    step->gamma = cfg->policy == SD_POLICY_HEURISTIC ? seq->gamma_now : cfg->gamma;
    size_t n = iterate_chain(cfg, rec, seq, r, step);
    if (cfg->policy == SD_POLICY_HEURISTIC) { /* +2 after a fully accepted iteration, else -1 */
        seq->gamma_now = n == step->gamma + 1 ? (seq->gamma_now + 2 < cfg->gamma_max ? seq->gamma_now + 2 : cfg->gamma_max)
                                               : (seq->gamma_now > 1 ? seq->gamma_now - 1 : 1);
        count_move(rec->s, step->gamma, n == step->gamma + 1, seq->gamma_now);
    }
    return n;
}

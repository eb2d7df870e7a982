/* verify.c -- the verification rules (see verify.h). */
#include "specdec/verify.h"

#include "verify_impl.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* u q(x) < p(x), u in (0, 1), strict; no uniform is drawn when p(x) > q(x). */
static int accept_ratio(const sd_context *c, uint32_t x, gsl_rng *r)
{
    return sd_rng_u53_scaled_below(r, c->q[x], c->p[x]);
}

static int accept_argmax(const sd_context *c, uint32_t x, gsl_rng *r)
{
    (void)c, (void)r;
    return x == 0; /* rank 0 is p's argmax */
}

static uint32_t from_residual(const sd_context *c, uint32_t x, gsl_rng *r)
{
    (void)x;
    return (uint32_t)sd_cdf_draw(&c->residual_cdf, r);
}

static uint32_t from_p(const sd_context *c, gsl_rng *r)
{
    return (uint32_t)sd_cdf_draw(&c->p_cdf, r);
}

static uint32_t from_p_after(const sd_context *c, uint32_t x, gsl_rng *r)
{
    (void)x;
    return from_p(c, r);
}

static uint32_t argmax_p(const sd_context *c, gsl_rng *r)
{
    (void)c, (void)r;
    return 0;
}

static uint32_t argmax_p_after(const sd_context *c, uint32_t x, gsl_rng *r)
{
    (void)x;
    return argmax_p(c, r);
}

/* Block verification (see verify.h), indices as in the paper: position i
 * uses ctx[i - 1] and draft[i - 1]. */
static size_t block_rule(const sd_block *b, gsl_rng *r, uint32_t *last)
{
    size_t g = b->gamma, n = b->ctx[0]->p_cdf.n;
    double *P = b->work, *h = P + g + 1, *w = h + g + 1, *cum = w + n;
    P[0] = 1.0;
    for (size_t i = 1; i <= g; i++) {
        const sd_context *c = b->ctx[i - 1];
        double px = c->p[b->draft[i - 1]], qx = c->q[b->draft[i - 1]];
        double ratio = qx > 0.0 ? px / qx : (px > 0.0 ? INFINITY : 0.0);
        P[i] = fmin(1.0, P[i - 1] * ratio);
    }
    h[g] = P[g];
    h[0] = 1.0;
    for (size_t i = 1; i < g; i++) {
        const sd_context *c = b->ctx[i]; /* p_{i+1}, q_{i+1} */
        double z = 0.0;
        for (size_t x = 0; x < n; x++)
            z += fmax(P[i] * c->p[x] - c->q[x], 0.0);
        h[i] = z > 0.0 ? z / (z + 1.0 - P[i]) : 0.0; /* no residual mass: cannot stop here */
    }
    size_t tau = 0;
    for (size_t i = g; i > 0; i--)
        if (gsl_rng_uniform_pos(r) <= h[i]) {
            tau = i;
            break;
        }
    const sd_context *c = b->ctx[tau];
    if (tau == g) {
        *last = (uint32_t)sd_cdf_draw(&c->p_cdf, r);
        return tau;
    }
    for (size_t x = 0; x < n; x++)
        w[x] = fmax(P[tau] * c->p[x] - c->q[x], 0.0);
    size_t x = sd_cdf_sample_weights(w, n, cum, r);
    *last = x < n ? (uint32_t)x : (uint32_t)sd_cdf_draw(&c->p_cdf, r); /* p = q: fall back to p */
    return tau;
}

/* deterministic-draft (vLLM's rule for drafters without probabilities, see
 * verify.h): q is treated as the point mass on the drafted token x =
 * argmax q, so min(1, p(x)/1) = p(x) accepts and the residual
 * norm(max(0, p - delta_x)) is p with x zeroed.  exact-match (verify.h)
 * runs the same two functions on a sampled x: P(y = x) = p(x) for y ~ p,
 * and y given y != x follows norm(p with x zeroed). */
static int accept_point_mass(const sd_context *c, uint32_t x, gsl_rng *r)
{
    return sd_rng_u53_scaled_below(r, 1.0, c->p[x]); /* u in (0, 1), strict: p(x) = 0 never, p(x) = 1 always */
}

/* A draw from norm(p with x zeroed), by drawing from p until the draw
 * differs from x: exact, and a rejection (probability 1 - p(x)) costs
 * 1 / (1 - p(x)) draws on average, so one per iteration.  Called only
 * after a rejection, so p(x) < 1 and the loop ends. */
static uint32_t from_p_without_draft(const sd_context *c, uint32_t x, gsl_rng *r)
{
    uint32_t y;
    do
        y = (uint32_t)sd_cdf_draw(&c->p_cdf, r);
    while (y == x);
    return y;
}

static double beta_of(const sd_context *c) { return c->beta; }
static double p_of_draft(const sd_context *c) { return c->p[c->argmax_q]; }
static double argmax_agrees(const sd_context *c) { return c->argmax_q == 0 ? 1.0 : 0.0; }
static double match_of(const sd_context *c) { return sd_dist_match_acceptance(c->p, c->q, c->p_cdf.n); }

static void output_p(const sd_context *c, size_t n, double *out)
{
    memcpy(out, c->p, n * sizeof *out);
}

static void output_case1(const sd_context *c, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++) /* min(p, q) + (1 - beta) p: accepted plus resampled mass */
        out[i] = (c->p[i] < c->q[i] ? c->p[i] : c->q[i]) + (1.0 - c->beta) * c->p[i];
}

static void output_argmax(const sd_context *c, size_t n, double *out)
{
    (void)c;
    memset(out, 0, n * sizeof *out);
    out[0] = 1.0;
}

const sd_verifier sd_verify_rules[] = {
    { .name = "adjusted", .summary = "accept min(1, p/q), resample norm(max(0, p - q)): lossless",
      .accept = accept_ratio, .resample = from_residual, .bonus = from_p, .acceptance = beta_of,
      .dist_acceptance = sd_dist_overlap, .output = output_p, .lossless = output_p },
    { .name = "target", .summary = "the seed's Case 1: resample from p; biased", .accept = accept_ratio,
      .resample = from_p_after, .bonus = from_p, .acceptance = beta_of, .dist_acceptance = sd_dist_overlap,
      .output = output_case1, .lossless = output_p },
    { .name = "greedy", .summary = "temperature 0: argmax drafts kept while they match p's argmax", .greedy = 1,
      .accept = accept_argmax, .resample = argmax_p_after, .bonus = argmax_p, .acceptance = argmax_agrees,
      .output = output_argmax, .lossless = output_argmax },
    { .name = "block", .summary = "block verification (Sun et al. 2025): lossless, never fewer tokens than token-wise",
      .accept = accept_ratio, .resample = from_residual, .bonus = from_p, .acceptance = beta_of,
      .dist_acceptance = sd_dist_overlap, .block = block_rule, .output = output_p, .lossless = output_p },
    { .name = "deterministic-draft", .summary = "vLLM's rule for drafters without probabilities: argmax q drafted, "
      "accepted with probability p(x), else resampled from p with x removed: lossless", .greedy = 1,
      .accept = accept_point_mass, .resample = from_p_without_draft, .bonus = from_p, .acceptance = p_of_draft,
      .dist_acceptance = sd_dist_point_acceptance, .output = output_p, .lossless = output_p },
    { .name = "exact-match", .summary = "vLLM's strict mode, mlx-lm's default: x ~ q kept iff it equals y ~ p, else "
      "y emitted; acceptance sum p q: lossless",
      .accept = accept_point_mass, .resample = from_p_without_draft, .bonus = from_p, .acceptance = match_of,
      .dist_acceptance = sd_dist_match_acceptance, .output = output_p, .lossless = output_p },
    { .name = NULL },
};

const sd_verifier *sd_verify_find(const char *name)
{
    for (const sd_verifier *v = sd_verify_rules; v->name != NULL; v++)
        if (strcmp(v->name, name) == 0)
            return v;
    return NULL;
}

const sd_verifier *sd_verify_at(size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (sd_verify_rules[k].name == NULL)
            return NULL;
    return sd_verify_rules[i].name != NULL ? &sd_verify_rules[i] : NULL;
}

/* The rows' names, filled from the table once (any thread). */
static const char *rule_names[sizeof sd_verify_rules / sizeof sd_verify_rules[0]];
static pthread_once_t rule_names_once = PTHREAD_ONCE_INIT;

static void fill_rule_names(void)
{
    for (size_t i = 0; sd_verify_rules[i].name != NULL; i++)
        rule_names[i] = sd_verify_rules[i].name;
}

const char *const *sd_verify_name_list(void)
{
    pthread_once(&rule_names_once, fill_rule_names);
    return rule_names;
}

/* Joins the names of the table's rows with ", " (built from the table, per thread). */
const char *sd_verify_names(void)
{
    static _Thread_local char buf[256];
    buf[0] = '\0';
    for (const sd_verifier *v = sd_verify_rules; v->name != NULL; v++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", v == sd_verify_rules ? "" : ", ", v->name);
    return buf;
}

const char *sd_verify_name(const sd_verifier *v) { return v->name; }
const char *sd_verify_summary(const sd_verifier *v) { return v->summary; }
int sd_verify_is_greedy(const sd_verifier *v) { return v->greedy; }
int sd_verify_is_blockwise(const sd_verifier *v) { return v->block != NULL; }
int sd_verify_is_lossless(const sd_verifier *v) { return v->output == v->lossless; }
double sd_verify_acceptance(const sd_verifier *v, const sd_context *c) { return v->acceptance(c); }
sd_dist_acceptance_fn sd_verify_dist_acceptance(const sd_verifier *v) { return v->dist_acceptance; }
void sd_verify_output(const sd_verifier *v, const sd_context *c, size_t n, double *out) { v->output(c, n, out); }

uint32_t sd_verify_draft(const sd_verifier *v, const sd_context *c, gsl_rng *r)
{
    return sd_verify_draft_inline(v, c, r);
}

size_t sd_verify_block(const sd_verifier *v, const sd_block *b, gsl_rng *r, uint32_t *last)
{
    if (v->block != NULL)
        return v->block(b, r, last);
    for (size_t i = 0; i < b->gamma; i++)
        if (!v->accept(b->ctx[i], b->draft[i], r)) {
            *last = v->resample(b->ctx[i], b->draft[i], r);
            return i;
        }
    *last = v->bonus(b->ctx[b->gamma], r);
    return b->gamma;
}

double sd_verify_mean_acceptance(const sd_verifier *v, const sd_model *m)
{
    double s = 0.0;
    for (size_t i = 0; i < sd_model_contexts(m); i++)
        s += v->acceptance(sd_model_context(m, i));
    return s / (double)sd_model_contexts(m);
}

uint32_t sd_verify_multi(const sd_context *c, size_t k, gsl_rng *r, double *work, int *accepted)
{
    size_t nv = c->p_cdf.n;
    double *res = work, *cum = work + nv;
    const double *rcur = c->p; /* r_1 = p */
    for (size_t j = 0; j < k; j++) {
        uint32_t x = (uint32_t)sd_cdf_draw(&c->q_cdf, r);
        if (sd_rng_u53_scaled_below(r, c->q[x], rcur[x])) { /* as accept_ratio */
            *accepted = 1;
            return x;
        }
        double rest = 0.0; /* r_{j+1} = norm(max(r_j - q, 0)) */
        for (size_t t = 0; t < nv; t++)
            rest += (res[t] = rcur[t] > c->q[t] ? rcur[t] - c->q[t] : 0.0);
        if (rest > 0.0)
            for (size_t t = 0; t < nv; t++)
                res[t] /= rest;
        else
            memcpy(res, c->p, nv * sizeof *res); /* p = q up to rounding: keep p */
        rcur = res;
    }
    *accepted = 0;
    size_t t = sd_cdf_sample_weights(rcur, nv, cum, r);
    return t < nv ? (uint32_t)t : (uint32_t)sd_cdf_draw(&c->p_cdf, r);
}

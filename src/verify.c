/* verify.c -- the verification rules (see verify.h). */
#include "verify.h"

#include <string.h>

static int accept_ratio(const sd_context *c, uint32_t x, gsl_rng *r)
{
    return gsl_rng_uniform_pos(r) * c->q[x] < c->p[x]; /* u in (0, 1), strict */
}

static int accept_argmax(const sd_context *c, uint32_t x, gsl_rng *r)
{
    (void)c, (void)r;
    return x == 0; /* rank 0 is p's argmax */
}

static uint32_t from_residual(const sd_context *c, gsl_rng *r)
{
    return (uint32_t)sd_cdf_sample(&c->residual_cdf, r);
}

static uint32_t from_p(const sd_context *c, gsl_rng *r)
{
    return (uint32_t)sd_cdf_sample(&c->p_cdf, r);
}

static uint32_t argmax_p(const sd_context *c, gsl_rng *r)
{
    (void)c, (void)r;
    return 0;
}

static double beta_of(const sd_context *c) { return c->beta; }
static double argmax_agrees(const sd_context *c) { return c->argmax_q == 0 ? 1.0 : 0.0; }

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

const sd_verifier sd_verifiers[] = {
    { "adjusted", "accept min(1, p/q), resample norm(max(0, p - q)): lossless", 0, accept_ratio,
      from_residual, from_p, beta_of, output_p, output_p },
    { "target", "the seed's Case 1: resample from p; biased", 0, accept_ratio, from_p, from_p,
      beta_of, output_case1, output_p },
    { "greedy", "temperature 0: argmax drafts kept while they match p's argmax", 1, accept_argmax,
      argmax_p, argmax_p, argmax_agrees, output_argmax, output_argmax },
    { NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL },
};

const sd_verifier *sd_verify_find(const char *name)
{
    for (const sd_verifier *v = sd_verifiers; v->name != NULL; v++)
        if (strcmp(v->name, name) == 0)
            return v;
    return NULL;
}

const char *sd_verify_names(void) { return "adjusted, target, greedy"; }

uint32_t sd_verify_draft(const sd_verifier *v, const sd_context *c, gsl_rng *r)
{
    return v->greedy ? c->argmax_q : (uint32_t)sd_cdf_sample(&c->q_cdf, r);
}

size_t sd_verify_block(const sd_verifier *v, const sd_block *b, gsl_rng *r, uint32_t *last)
{
    for (size_t i = 0; i < b->gamma; i++)
        if (!v->accept(b->ctx[i], b->draft[i], r)) {
            *last = v->resample(b->ctx[i], r);
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

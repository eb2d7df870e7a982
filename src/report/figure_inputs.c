/* figure_inputs.c -- a figure's inputs (figure_impl.h): the lists it uses,
 * checked against their domains or taken from its defaults, and the rule
 * of the figures that need one value of a list. */
#include "figure_impl.h"

#include <math.h>

static const sd_domain LIST_DOMAINS[SD_FIGURE_LISTS] = {
    [SD_FIGURE_LIST_ALPHA] = { .name = "alpha", .min = 0.0, .max = 1.0 },
    [SD_FIGURE_LIST_COST] = { .name = "cost", .min = 0.0, .max = INFINITY },
    [SD_FIGURE_LIST_GAMMA] = { .name = "gamma", .min = 1.0, .max = SD_FIGURE_GAMMA_MAX, .whole = 1 },
    [SD_FIGURE_LIST_MU] = { .name = "mu", .min = 0.0, .max = INFINITY },
};

static sd_status check_value(double x, const sd_domain *dom, sd_error *err)
{
    char range[96];
    if (!(x >= dom->min && x <= dom->max) || !isfinite(x))
        return sd_status_fail(err, SD_EINVAL, "%s: %.10g is outside %s", dom->name, x,
                              sd_parse_domain_describe(dom, range, sizeof range));
    if (dom->whole && floor(x) < x)
        return sd_status_fail(err, SD_EINVAL, "%s: %.10g is not a whole number; expected %s", dom->name, x,
                              sd_parse_domain_describe(dom, range, sizeof range));
    return SD_OK;
}

sd_status sd_figure_resolve_inputs(const sd_figure_kind *k, const sd_figure_input *in, sd_figure_input *use,
                                   sd_list owned[SD_FIGURE_LISTS], sd_error *err)
{
    *use = *in;
    sd_list *lists[SD_FIGURE_LISTS] = { &use->alpha, &use->cost, &use->gamma, &use->mu };
    const char *dflt[SD_FIGURE_LISTS] = { k->alpha, k->cost, k->gamma, k->mu };
    sd_status st = SD_OK;
    for (int i = 0; i < SD_FIGURE_LISTS && st == SD_OK; i++) {
        if (dflt[i] == NULL) {
            *lists[i] = (sd_list){ .v = NULL, .n = 0 };
        } else if (lists[i]->n == 0) {
            st = sd_parse_list(dflt[i], &LIST_DOMAINS[i], &owned[i], err);
            *lists[i] = owned[i];
        } else {
            for (size_t j = 0; j < lists[i]->n && st == SD_OK; j++)
                st = check_value(lists[i]->v[j], &LIST_DOMAINS[i], err);
        }
    }
    if (st == SD_OK && k->monte_carlo && in->tokens < 1)
        st = sd_status_fail(err, SD_EINVAL, "tokens: give at least 1 for figure %s", k->name);
    if (st == SD_OK && k->monte_carlo && in->threads < 1)
        st = sd_status_fail(err, SD_EINVAL, "threads: give at least 1 for figure %s", k->name);
    return st;
}

sd_status sd_figure_one_value(const sd_list *l, const char *param, const char *name, sd_error *err)
{
    if (l->n != 1)
        return sd_status_fail(err, SD_EINVAL, "%s: give one value for figure %s", param, name);
    return SD_OK;
}

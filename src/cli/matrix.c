/* matrix.c -- the options of matrix pairs and sampling settings, shared by
 * overlap and simulate (issue 13). */
#include <math.h>
#include <string.h>

#include "cli.h"

/* The lists in cli_sampling order; a draft list's default is NULL (the target's). */
static const sd_domain DOMAINS[CLI_SAMPLING_LISTS] = {
    { "--temperature", 0, SD_TEMPERATURE_MAX, 0 },       { "--top-k", 0, SD_VOCAB_MAX, 1 },
    { "--top-p", 0, 1, 0 },                              { "--min-p", 0, 1, 0 },
    { "--draft-temperature", 0, SD_TEMPERATURE_MAX, 0 }, { "--draft-top-k", 0, SD_VOCAB_MAX, 1 },
    { "--draft-top-p", 0, 1, 0 },                        { "--draft-min-p", 0, 1, 0 },
};
static const char *const DEFAULTS[4] = { "1", "0", "1", "0" };

const cli_option CLI_SAMPLING_OPTIONS[] = {
    { "--temperature", "LIST", "sampling temperature, in [0, 1000]; 0 is greedy (default 1)" },
    { "--top-k", "LIST", "keep the tokens at least as likely as the k-th (ties kept); 0: off (default 0)" },
    { "--top-p", "LIST", "keep the smallest top set of mass >= P (ties kept), in (0, 1] (default 1: off)" },
    { "--min-p", "LIST", "keep the tokens with p >= P max p, in [0, 1] (default 0: off)" },
    { "--draft-temperature", "LIST", "the draft's temperature (default: --temperature)" },
    { "--draft-top-k", "LIST", "the draft's top-k (default: --top-k)" },
    { "--draft-top-p", "LIST", "the draft's top-p (default: --top-p)" },
    { "--draft-min-p", "LIST", "the draft's min-p (default: --min-p)" },
    { NULL, NULL, NULL },
};

int cli_sampling_given(const cli_args *a)
{
    for (int i = 0; i < CLI_SAMPLING_LISTS; i++)
        if (cli_given(a, DOMAINS[i].name))
            return 1;
    return 0;
}

sd_status cli_sampling_read(const cli_args *a, cli_sampling *s, sd_error *err)
{
    sd_status st = SD_OK;
    memset(s, 0, sizeof *s);
    for (int i = 0; i < CLI_SAMPLING_LISTS && st == SD_OK; i++) {
        int draft = i >= 4;
        if (draft && !(s->draft_given[i - 4] = cli_given(a, DOMAINS[i].name)))
            continue; /* the target's list serves */
        st = cli_list(a, &DOMAINS[i], DEFAULTS[i % 4], &s->l[i], err);
        for (size_t k = 0; st == SD_OK && i % 4 == 2 && k < s->l[i].n; k++)
            if (!(s->l[i].v[k] > 0.0)) /* top-p: (0, 1] */
                st = sd_status_fail(err, SD_EINVAL, "%s: 0 is outside (0, 1]: top-p keeps at least the most likely token",
                                    DOMAINS[i].name);
    }
    size_t counts[CLI_SAMPLING_LISTS];
    for (int i = 0; i < CLI_SAMPLING_LISTS; i++)
        counts[i] = s->l[i].n ? s->l[i].n : 1;
    if (st == SD_OK)
        st = cli_rows(counts, CLI_SAMPLING_LISTS, &s->rows, err);
    if (st != SD_OK)
        cli_sampling_free(s);
    return st;
}

void cli_sampling_at(const cli_sampling *s, size_t idx, sd_sampling *target, sd_sampling *draft)
{
    double x[CLI_SAMPLING_LISTS];
    for (int i = CLI_SAMPLING_LISTS; i-- > 0;) {
        size_t n = s->l[i].n ? s->l[i].n : 1;
        x[i] = s->l[i].n ? s->l[i].v[idx % n] : NAN;
        idx /= n;
    }
    *target = (sd_sampling){ x[0], (size_t)x[1], x[2], x[3] };
    *draft = (sd_sampling){ s->draft_given[0] ? x[4] : x[0], (size_t)(s->draft_given[1] ? x[5] : x[1]),
                            s->draft_given[2] ? x[6] : x[2], s->draft_given[3] ? x[7] : x[3] };
}

void cli_sampling_free(cli_sampling *s)
{
    for (int i = 0; i < CLI_SAMPLING_LISTS; i++)
        sd_parse_list_free(&s->l[i]);
}

sd_status cli_input_kind(const cli_args *a, sd_input *kind, sd_error *err)
{
    int k;
    if (!cli_given(a, "--input"))
        return sd_status_fail(err, SD_EINVAL, "--input is required with .npy files: say whether they hold logits or probs");
    sd_status st = cli_choice(a, "--input", sd_sampling_input_names(), NULL, &k, err);
    *kind = (sd_input)k;
    return st;
}

sd_status cli_load_npy_pair(const cli_args *a, sd_npy *p, sd_npy *q, sd_error *err)
{
    const char *pp = cli_value(a, "--p-npy"), *qp = cli_value(a, "--q-npy");
    if (pp == NULL || qp == NULL)
        return sd_status_fail(err, SD_EINVAL, "--p-npy and --q-npy go together");
    sd_status st = sd_npy_load(pp, p, err);
    if (st == SD_OK && (st = sd_npy_load(qp, q, err)) == SD_OK && (p->rows != q->rows || p->cols != q->cols))
        st = sd_status_fail(err, SD_EINVAL, "--q-npy: %s has shape (%zu, %zu) but %s has (%zu, %zu); the rows must pair up",
                     qp, q->rows, q->cols, pp, p->rows, p->cols);
    if (st != SD_OK) {
        sd_npy_free(p);
        sd_npy_free(q);
    }
    return st;
}

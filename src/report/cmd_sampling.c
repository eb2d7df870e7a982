/* cmd_sampling.c -- the options of matrix pairs and sampling settings,
 * shared by overlap and simulate. */
#include "cmd_sampling_impl.h"

#include <math.h>
#include <string.h>

/* The lists in sd_cmd_sampling order. */
const sd_domain SD_CMD_SAMPLING_DOMAINS[SD_CMD_SAMPLING_LISTS] = {
    { "--temperature", 0, SD_TEMPERATURE_MAX, 0 },       { "--top-k", 0, SD_VOCAB_MAX, 1 },
    { "--top-p", 0, 1, 0 },                              { "--min-p", 0, 1, 0 },
    { "--draft-temperature", 0, SD_TEMPERATURE_MAX, 0 }, { "--draft-top-k", 0, SD_VOCAB_MAX, 1 },
    { "--draft-top-p", 0, 1, 0 },                        { "--draft-min-p", 0, 1, 0 },
};
static const sd_domain *const DOMAINS = SD_CMD_SAMPLING_DOMAINS;

#define S sd_cmd_sampling_options
const sd_command_field SD_CMD_SAMPLING_FIELDS[] = {
    { .name = "--temperature", SD_FIELD(S, temperature, LIST), .metavar = "LIST", .help = "sampling temperature, in "
      "{range}; 0 is greedy (default {default})",
      .domain = &SD_CMD_SAMPLING_DOMAINS[0], SD_LIB(sampling.temperature, DOUBLE) },
    { .name = "--top-k", SD_FIELD(S, top_k, LIST), .metavar = "LIST", .help = "keep the tokens at least as likely as "
      "the k-th (ties kept); 0: off (default {default})",
      .domain = &SD_CMD_SAMPLING_DOMAINS[1], SD_LIB(sampling.top_k, SIZE) },
    { .name = "--top-p", SD_FIELD(S, top_p, LIST), .metavar = "LIST", .help = "keep the smallest top set of mass >= P "
      "(ties kept), in (0, 1] (default {default}: off)",
      .domain = &SD_CMD_SAMPLING_DOMAINS[2], SD_LIB(sampling.top_p, DOUBLE) },
    { .name = "--min-p", SD_FIELD(S, min_p, LIST), .metavar = "LIST", .help = "keep the tokens with p >= P max p, in "
      "{range} (default {default}: off)",
      .domain = &SD_CMD_SAMPLING_DOMAINS[3], SD_LIB(sampling.min_p, DOUBLE) },
    { .name = "--draft-temperature", SD_FIELD(S, draft_temperature, LIST), .metavar = "LIST", .help = "the draft's "
      "temperature (default: --temperature)", .domain = &SD_CMD_SAMPLING_DOMAINS[4] },
    { .name = "--draft-top-k", SD_FIELD(S, draft_top_k, LIST), .metavar = "LIST", .help = "the draft's top-k "
      "(default: --top-k)", .domain = &SD_CMD_SAMPLING_DOMAINS[5] },
    { .name = "--draft-top-p", SD_FIELD(S, draft_top_p, LIST), .metavar = "LIST", .help = "the draft's top-p "
      "(default: --top-p)", .domain = &SD_CMD_SAMPLING_DOMAINS[6] },
    { .name = "--draft-min-p", SD_FIELD(S, draft_min_p, LIST), .metavar = "LIST", .help = "the draft's min-p "
      "(default: --min-p)", .domain = &SD_CMD_SAMPLING_DOMAINS[7] },
    { .name = NULL },
};
#undef S

sd_cmd_sampling_options sd_cmd_sampling_defaults(void) { return (sd_cmd_sampling_options){ .temperature.n = 0 }; }

/* The library's default of list i (sd_sampling_defaults(): the draft's are the
 * target's), as text into buf. */
static const char *default_text(int i, char *buf, size_t size)
{
    const sd_sampling d = sd_sampling_defaults();
    const double v[4] = { d.temperature, (double)d.top_k, d.top_p, d.min_p };
    return sd_command_number_text(v[i % 4], buf, size);
}

int sd_cmd_sampling_given(const sd_command_args *a)
{
    for (int i = 0; i < SD_CMD_SAMPLING_LISTS; i++)
        if (sd_command_args_given(a, DOMAINS[i].name))
            return 1;
    return 0;
}

sd_status sd_cmd_sampling_read(const sd_command_args *a, sd_cmd_sampling *s, sd_error *err)
{
    sd_status st = SD_OK;
    memset(s, 0, sizeof *s);
    for (int i = 0; i < SD_CMD_SAMPLING_LISTS && st == SD_OK; i++) {
        int draft = i >= 4;
        if (draft && !(s->draft_given[i - 4] = sd_command_args_given(a, DOMAINS[i].name)))
            continue; /* the target's list serves */
        char buf[32];
        st = sd_command_args_given(a, DOMAINS[i].name)
                 ? sd_command_args_list(a, &DOMAINS[i], &s->l[i], err)
                 : sd_parse_list(default_text(i, buf, sizeof buf), &DOMAINS[i], &s->l[i], err);
        for (size_t k = 0; st == SD_OK && i % 4 == 2 && k < s->l[i].n; k++)
            if (!(s->l[i].v[k] > 0.0)) /* top-p: (0, 1] */
                st = sd_status_fail(err, SD_EINVAL, "%s: 0 is outside (0, 1]: top-p keeps at least the most likely "
                                    "token", DOMAINS[i].name);
    }
    size_t counts[SD_CMD_SAMPLING_LISTS];
    for (int i = 0; i < SD_CMD_SAMPLING_LISTS; i++)
        counts[i] = s->l[i].n ? s->l[i].n : 1;
    if (st == SD_OK)
        st = sd_command_rows(counts, SD_CMD_SAMPLING_LISTS, &s->rows, err);
    if (st != SD_OK)
        sd_cmd_sampling_free(s);
    return st;
}

void sd_cmd_sampling_at(const sd_cmd_sampling *s, size_t idx, sd_sampling *target, sd_sampling *draft)
{
    double x[SD_CMD_SAMPLING_LISTS];
    for (int i = SD_CMD_SAMPLING_LISTS; i-- > 0;) {
        size_t n = s->l[i].n ? s->l[i].n : 1;
        x[i] = s->l[i].n ? s->l[i].v[idx % n] : NAN;
        idx /= n;
    }
    *target = (sd_sampling){ .temperature = x[0], .top_k = (size_t)x[1], .top_p = x[2], .min_p = x[3] };
    *draft = (sd_sampling){ .temperature = s->draft_given[0] ? x[4] : x[0],
                            .top_k = (size_t)(s->draft_given[1] ? x[5] : x[1]),
                            .top_p = s->draft_given[2] ? x[6] : x[2], .min_p = s->draft_given[3] ? x[7] : x[3] };
}

void sd_cmd_sampling_free(sd_cmd_sampling *s)
{
    for (int i = 0; i < SD_CMD_SAMPLING_LISTS; i++)
        sd_parse_list_free(&s->l[i]);
}

sd_status sd_cmd_sampling_input(const sd_command_args *a, sd_input *kind, sd_error *err)
{
    int k;
    if (!sd_command_args_given(a, "--input"))
        return sd_status_fail(err, SD_EINVAL, "--input is required with .npy files: say whether they hold logits or "
                              "probs");
    sd_status st = sd_command_args_choice(a, "--input", sd_sampling_input_names(), &k, err);
    *kind = (sd_input)k;
    return st;
}

sd_status sd_cmd_sampling_load_npy(const sd_command_args *a, sd_npy *p, sd_npy *q, sd_error *err)
{
    const char *pp = sd_command_args_value(a, "--p-npy"), *qp = sd_command_args_value(a, "--q-npy");
    if (pp == NULL || qp == NULL)
        return sd_status_fail(err, SD_EINVAL, "--p-npy and --q-npy go together");
    sd_status st = sd_npy_load(pp, p, err);
    if (st == SD_OK && (st = sd_npy_load(qp, q, err)) == SD_OK && (p->rows != q->rows || p->cols != q->cols))
        st = sd_status_fail(err, SD_EINVAL, "--q-npy: %s has shape (%zu, %zu) but %s has (%zu, %zu); the rows must "
                            "pair up", qp, q->rows, q->cols, pp, p->rows, p->cols);
    if (st != SD_OK) {
        sd_npy_free(p);
        sd_npy_free(q);
    }
    return st;
}

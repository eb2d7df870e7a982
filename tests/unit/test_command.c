/* test_command.c -- commands as typed requests (command.h) and their list
 * (commands.h): every row well formed, a typed call's table against the
 * closed forms, defaults, and the errors a C caller's request gets. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "specdec/cmd_expect.h"
#include "specdec/cmd_fit.h"
#include "specdec/cmd_optimal.h"
#include "specdec/cmd_roofline.h"
#include "specdec/cmd_sample.h"
#include "specdec/cmd_simulate.h"
#include "specdec/cmd_speedup.h"
#include "specdec/command.h"
#include "specdec/commands.h"
#include "specdec/theory.h"
#include "specdec/verify.h"
#include "testutil.h"

/* The bytes a field of type t takes in its request. */
static size_t type_size(sd_command_type t)
{
    switch (t) {
    case SD_COMMAND_FLAG:
    case SD_COMMAND_CHOICE:
        return sizeof(int);
    case SD_COMMAND_REAL:
        return sizeof(double);
    case SD_COMMAND_LIST:
        return sizeof(sd_command_list);
    case SD_COMMAND_TEXT:
        return sizeof(const char *);
    }
    return 0;
}

/* A field's default text reads back in its domain or among its names. */
static void check_default(const sd_command *c, const sd_command_field *f)
{
    char buf[64];
    const char *d = sd_command_default_text(c, f, buf, sizeof buf);
    if (d == NULL)
        return;
    sd_error err;
    sd_list l = { 0 };
    if (f->type == SD_COMMAND_LIST || f->type == SD_COMMAND_REAL) {
        ck_assert_msg(sd_parse_list(d, f->domain, &l, &err) == SD_OK, "%s %s: default %s: %s", c->name, f->name, d,
                      err.msg);
        sd_parse_list_free(&l);
    } else if (f->type == SD_COMMAND_CHOICE) {
        int found = 0;
        for (const char *const *n = f->names(); *n != NULL; n++)
            found |= strcmp(*n, d) == 0;
        ck_assert_msg(found, "%s %s: default %s is not one of its names", c->name, f->name, d);
    }
}

/* Every row: named, typed, inside its request, a domain named as the field for numbers (so a
 * message names the option), names for a choice, a default that reads back; nothing given by
 * defaults(); no name twice. */
START_TEST(rows_are_well_formed)
{
    size_t n = 0;
    for (const sd_command *c; (c = sd_commands_at(n)) != NULL; n++) {
        ck_assert_ptr_eq(sd_commands_find(c->name), c);
        ck_assert(c->summary != NULL && c->size > 0 && c->defaults != NULL && c->table != NULL);
        unsigned char req[16384];
        ck_assert_uint_le(c->size, sizeof req);
        c->defaults(req);
        const sd_command_field *f;
        size_t base;
        for (size_t i = 0; (f = sd_command_field_at(c, i, &base)) != NULL; i++) {
            ck_assert_msg(f->position > 0 || strncmp(f->name, "--", 2) == 0, "%s %s", c->name, f->name);
            ck_assert_msg(base + f->offset + type_size(f->type) <= c->size, "%s %s lies outside", c->name, f->name);
            ck_assert_msg(f->help != NULL && (f->type == SD_COMMAND_FLAG || f->metavar != NULL), "%s %s", c->name,
                          f->name);
            if (f->type == SD_COMMAND_LIST || f->type == SD_COMMAND_REAL)
                ck_assert_msg(f->domain != NULL && strcmp(f->domain->name, f->name) == 0, "%s %s: domain", c->name,
                              f->name);
            ck_assert_msg(f->type != SD_COMMAND_CHOICE || f->names != NULL, "%s %s: names", c->name, f->name);
            ck_assert_msg(!sd_command_given(c, f, base, req), "%s %s given by defaults()", c->name, f->name);
            ck_assert_ptr_eq(sd_command_field_find(c, f->name, NULL), f);
            check_default(c, f);
        }
    }
    ck_assert_uint_ge(n, 3);
    ck_assert_ptr_null(sd_commands_find("no-such"));
}
END_TEST

/* speedup's table is eq. (10) from theory.h at every row, bit for bit. */
START_TEST(a_typed_call_gives_its_table)
{
    const double alpha[] = { 0.8 }, cost[] = { 0.1 }, gamma[] = { 1, 2, 7 };
    sd_cmd_speedup_request rq = sd_cmd_speedup_defaults();
    rq.alpha = (sd_command_list){ alpha, 1 };
    rq.cost = (sd_command_list){ cost, 1 };
    rq.gamma = (sd_command_list){ gamma, 3 };
    sd_table *t;
    sd_error err;
    ck_assert_msg(sd_cmd_speedup_table(&rq, &t, &err) == SD_OK, "%s", err.msg);
    ck_assert_uint_eq(sd_table_nrows(t), 3);
    size_t g = sd_table_find(t, "gamma"), f = sd_table_find(t, "improvement");
    for (size_t r = 0; r < 3; r++) {
        ck_assert_int_eq(sd_table_cell(t, r, g)->v.i, (long long)gamma[r]);
        ck_assert_double_eq(sd_table_cell(t, r, f)->v.r, sd_theory_improvement(0.8, gamma[r], 0.1));
    }
    sd_table_free(t);
}
END_TEST

/* A field not given takes its row's default: speedup's gamma is 1:25. */
START_TEST(defaults_come_from_the_rows)
{
    char buf[64];
    const sd_command_field *f = sd_command_field_find(&sd_cmd_speedup, "--gamma", NULL);
    ck_assert_str_eq(sd_command_default_text(&sd_cmd_speedup, f, buf, sizeof buf), "1:25");
    ck_assert_ptr_null(sd_command_default_text(&sd_cmd_speedup,
                                               sd_command_field_find(&sd_cmd_speedup, "--alpha", NULL), buf, 64));
    const double alpha[] = { 0.5 }, cost[] = { 0 };
    sd_cmd_speedup_request rq = sd_cmd_speedup_defaults();
    rq.alpha = (sd_command_list){ alpha, 1 };
    rq.cost = (sd_command_list){ cost, 1 };
    sd_table *t;
    sd_error err;
    ck_assert_int_eq(sd_cmd_speedup_table(&rq, &t, &err), SD_OK);
    ck_assert_uint_eq(sd_table_nrows(t), 25);
    sd_table_free(t);
    ck_assert_ptr_nonnull(strstr(sd_command_help_text(&sd_cmd_speedup, f, buf, sizeof buf), "(default 1:25)"));
}
END_TEST

/* A C caller's request is checked as the program's options are, with the same messages. */
START_TEST(a_request_is_checked)
{
    const double two[] = { 2 }, cost[] = { 0.1 }, half[] = { 0.5 }, zero[] = { 0 };
    sd_cmd_speedup_request rq = sd_cmd_speedup_defaults();
    rq.alpha = (sd_command_list){ two, 1 };
    rq.cost = (sd_command_list){ cost, 1 };
    sd_table *t = (sd_table *)&rq;
    sd_error err;
    ck_assert_int_eq(sd_cmd_speedup_table(&rq, &t, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "--alpha: 2 is outside [0, 1]");
    ck_assert_ptr_null(t);
    rq.alpha = (sd_command_list){ half, 1 };
    rq.gamma = (sd_command_list){ zero, 1 };
    ck_assert_int_eq(sd_cmd_speedup_table(&rq, &t, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "--gamma: 0 is outside whole numbers in [1, 1000000000]");
    sd_cmd_expect_request ex = sd_cmd_expect_defaults();
    ex.alpha = (sd_command_list){ half, 1 };
    ck_assert_int_eq(sd_cmd_expect_table(&ex, &t, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "--gamma is required; see 'specdec expect --help'");
    sd_cmd_optimal_request op = sd_cmd_optimal_defaults();
    op.from = "/no/such/scenarios.tsv";
    ck_assert_int_eq(sd_cmd_optimal_table(&op, &t, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "/no/such/scenarios.tsv"));
}
END_TEST

/* sd_command_run runs a row on an untyped request, as a binding does. */
START_TEST(a_row_runs_its_request)
{
    const sd_command *c = sd_commands_find("optimal");
    ck_assert_ptr_eq(c, &sd_cmd_optimal);
    sd_cmd_optimal_request rq;
    c->defaults(&rq);
    const double alpha[] = { 0.8 }, cost[] = { 0.02 };
    rq.alpha = (sd_command_list){ alpha, 1 };
    rq.cost = (sd_command_list){ cost, 1 };
    sd_table *t;
    char *text;
    sd_error err;
    ck_assert_int_eq(sd_command_run(c, &rq, &t, &text, &err), SD_OK);
    ck_assert_ptr_null(text);
    sd_optimum o;
    ck_assert_int_eq(sd_theory_optimal(0.8, 0.02, &o, &err), SD_OK);
    ck_assert_double_eq(sd_table_cell(t, 0, sd_table_find(t, "gamma_opt"))->v.r, o.gamma_opt);
    sd_table_free(t);
}
END_TEST

/* roofline --schedule --export writes vLLM's JSON: text, no table; the table call refuses it. */
START_TEST(a_command_gives_its_text)
{
    sd_cmd_roofline_request rq = sd_cmd_roofline_defaults();
    rq.target = "llama-3.1-8b";
    rq.draft = "llama-3.2-1b";
    rq.hardware = "h100-sxm";
    rq.alpha = 0.8;
    rq.schedule = 1;
    rq.export_engine = 0; /* vllm */
    sd_table *t;
    char *text;
    sd_error err;
    ck_assert_msg(sd_command_run(&sd_cmd_roofline, &rq, &t, &text, &err) == SD_OK, "%s", err.msg);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(strstr(text, "num_speculative_tokens"));
    sd_command_free_text(text);
    ck_assert_int_eq(sd_cmd_roofline_table(&rq, &t, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "--export: "));
    rq.export_engine = -1;
    ck_assert_int_eq(sd_cmd_roofline_text(&rq, &text, &err), SD_EINVAL);
    ck_assert_ptr_null(text);
    ck_assert_int_eq(sd_cmd_roofline_table(&rq, &t, &err), SD_OK);
    ck_assert_str_eq(sd_table_name(t, 0), "context");
    sd_table_free(t);
}
END_TEST

/* A choice given as an index past its names is refused, naming the field. */
START_TEST(a_choice_is_checked)
{
    sd_cmd_roofline_request rq = sd_cmd_roofline_defaults();
    rq.target = "llama-3.1-8b";
    rq.draft = "llama-3.2-1b";
    rq.hardware = "h100-sxm";
    rq.alpha = 0.8;
    rq.cost.granularity = 7;
    sd_table *t;
    sd_error err;
    ck_assert_int_eq(sd_cmd_roofline_table(&rq, &t, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "--granularity: 7 is not the index of a name"));
    /* every command checks its choices and flags before it reads any: far past the names, and a flag of 2 */
    sd_cmd_fit_request fr = sd_cmd_fit_defaults();
    fr.file = "/no/such/counters.log";
    fr.input_format = 100000000;
    ck_assert_int_eq(sd_cmd_fit_table(&fr, &t, &err), SD_EINVAL);
    ck_assert_ptr_null(t);
    ck_assert_str_eq(err.msg, "--input-format: 100000000 is not the index of a name (0 .. 15)");
    sd_fit_recommend rec;
    ck_assert_int_eq(sd_cmd_fit_recommend(&fr, &rec, &err), SD_EINVAL);
    rq.cost.granularity = -1;
    rq.schedule = 2;
    char *text = NULL;
    ck_assert_int_eq(sd_cmd_roofline_text(&rq, &text, &err), SD_EINVAL);
    ck_assert_ptr_null(text);
    ck_assert_str_eq(err.msg, "--schedule: a flag is 0 or 1, not 2");
}
END_TEST

/* --verify's names (its help, a binding's choices) are the rules verify.h runs, in its order. */
START_TEST(the_rules_are_verify_names)
{
    const sd_command_field *f = sd_command_field_find(&sd_cmd_simulate, "--verify", NULL);
    ck_assert_ptr_nonnull(f);
    char joined[256] = "";
    for (const char *const *n = f->names(); *n != NULL; n++)
        snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", n == f->names() ? "" : ", ", *n);
    ck_assert_str_eq(joined, sd_verify_names());
}
END_TEST

/* Counts simulate's progress calls, and those that say a run ended (fraction 1). */
static void count_progress(void *arg, double fraction, double seconds)
{
    int *n = arg;
    (void)seconds;
    n[0]++;
    n[1] += fraction >= 1.0;
}

/* A typed simulate: one row per gamma, the progress hook told of each run's end; sample
 * without its files names what is missing. */
START_TEST(simulate_and_sample_as_calls)
{
    const double gamma[] = { 2, 3 };
    int calls[2] = { 0, 0 };
    sd_cmd_simulate_request rq = sd_cmd_simulate_defaults();
    rq.gamma = (sd_command_list){ gamma, 2 };
    rq.tokens = 4000;
    rq.model.vocab = 30;
    rq.progress = count_progress;
    rq.progress_arg = calls;
    sd_table *t;
    sd_error err;
    ck_assert_msg(sd_cmd_simulate_table(&rq, &t, &err) == SD_OK, "%s", err.msg);
    ck_assert_uint_eq(sd_table_nrows(t), 2);
    ck_assert_int_eq(sd_table_cell(t, 1, sd_table_find(t, "gamma"))->v.i, 3);
    ck_assert_int_ge(calls[1], 2);
    sd_table_free(t);
    rq.model.vocab = 0;
    ck_assert_int_eq(sd_cmd_simulate_table(&rq, &t, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "--vocab: 0 is outside whole numbers in [1, 4194304]");
    sd_cmd_sample_request sr = sd_cmd_sample_defaults();
    ck_assert_int_eq(sd_cmd_sample_table(&sr, &t, &err), SD_EINVAL);
    ck_assert_int_eq(strncmp(err.msg, "sample: missing argument; usage: specdec sample P_FILE Q_FILE", 60), 0);
    ck_assert_ptr_null(t);
}
END_TEST

Suite *command_suite(void)
{
    Suite *s = suite_create("command");
    TCase *tc = tcase_create("command");
    tcase_add_test(tc, rows_are_well_formed);
    tcase_add_test(tc, a_typed_call_gives_its_table);
    tcase_add_test(tc, defaults_come_from_the_rows);
    tcase_add_test(tc, a_request_is_checked);
    tcase_add_test(tc, a_row_runs_its_request);
    tcase_add_test(tc, a_command_gives_its_text);
    tcase_add_test(tc, a_choice_is_checked);
    tcase_add_test(tc, the_rules_are_verify_names);
    tcase_add_test(tc, simulate_and_sample_as_calls);
    suite_add_tcase(s, tc);
    return s;
}

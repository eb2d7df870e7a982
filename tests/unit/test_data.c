/* test_data.c -- where the data files are found (data.h): plain names only,
 * a folder the user names is the only place looked in, the environment's
 * folder likewise, and the search's fallbacks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "specdec/data.h"
#include "testutil.h"

/* A scratch folder /tmp/specdec-data-PID-TAG holding the file name (when not
 * NULL) into dir; the caller removes both. */
static void scratch_folder(char *dir, size_t size, const char *tag, const char *name)
{
    snprintf(dir, size, "/tmp/specdec-data-%ld-%s", (long)getpid(), tag);
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    if (name != NULL) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs("x\n", f);
        fclose(f);
    }
}

static void remove_folder(const char *dir, const char *name)
{
    char path[512];
    if (name != NULL) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        unlink(path);
    }
    rmdir(dir);
}

START_TEST(only_plain_names)
{
    static const struct { const char *name, *msg; } bad[] = {
        { "sub/models.tsv", "name: 'sub/models.tsv' is not a plain data file name" },
        { "../models.tsv", "name: '../models.tsv' is not a plain data file name" },
        { "/etc/passwd", "name: '/etc/passwd' is not a plain data file name" },
        { "", "name: '' is not a plain data file name" },
        { NULL, "name: '(null)' is not a plain data file name" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[256] = "unchanged";
        sd_error err;
        ck_assert_int_eq(sd_data_find(NULL, bad[i].name, path, sizeof path, &err), SD_EINVAL);
        ck_assert_str_eq(err.msg, bad[i].msg);
        ck_assert_str_eq(path, ""); /* on failure path is empty */
    }
    char keep[8] = "keep";
    sd_error err;
    ck_assert_int_eq(sd_data_find(NULL, "models.tsv", keep, 0, &err), SD_EINVAL); /* size 0: nothing written */
    ck_assert_str_eq(err.msg, "size: 0 bytes cannot hold a path");
    ck_assert_str_eq(keep, "keep");
}
END_TEST

/* A folder the caller names: the file is found there, and a file it lacks
 * is an error naming that folder alone -- although models.tsv lies in the
 * source tree's data/ (the runner's data_path finds it). */
START_TEST(a_named_folder_is_the_only_place)
{
    char dir[256], path[512], want[600];
    sd_error err;
    scratch_folder(dir, sizeof dir, "named", "x.tsv");
    ck_assert_int_eq(sd_data_find(dir, "x.tsv", path, sizeof path, &err), SD_OK);
    snprintf(want, sizeof want, "%s/x.tsv", dir);
    ck_assert_str_eq(path, want);
    (void)data_path("models.tsv"); /* the premise: the usual search finds it */
    ck_assert_int_eq(sd_data_find(dir, "models.tsv", path, sizeof path, &err), SD_EINVAL);
    snprintf(want, sizeof want, "models.tsv: no such data file in %s; give the folder with --data DIR or SPECDEC_DATA",
             dir);
    ck_assert_str_eq(err.msg, want);
    ck_assert_str_eq(path, "");
    /* a path that does not fit counts as not found; one byte more fits */
    size_t fit = strlen(dir) + strlen("/x.tsv") + 1;
    ck_assert_int_eq(sd_data_find(dir, "x.tsv", path, fit - 1, &err), SD_EINVAL);
    ck_assert_str_eq(path, "");
    ck_assert_int_eq(sd_data_find(dir, "x.tsv", path, fit, &err), SD_OK);
    ck_assert_uint_eq(strlen(path), fit - 1);
    /* a folder that is not one: a file, a missing name */
    snprintf(path, sizeof path, "%s/x.tsv", dir);
    char file[512];
    snprintf(file, sizeof file, "%s", path);
    ck_assert_int_eq(sd_data_find(file, "x.tsv", path, sizeof path, &err), SD_EINVAL);
    snprintf(want, sizeof want, "data: '%s' is not a folder", file);
    ck_assert_str_eq(err.msg, want);
    ck_assert_int_eq(sd_data_find("/nonexistent-specdec-folder", "x.tsv", path, sizeof path, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "data: '/nonexistent-specdec-folder' is not a folder");
    remove_folder(dir, "x.tsv");
}
END_TEST

/* $SPECDEC_DATA, when set and not empty, is the only place looked in, unless
 * the caller names a folder; empty, it is as if unset. */
START_TEST(the_environment_names_a_folder)
{
    const char *saved = getenv("SPECDEC_DATA");
    char *keep = saved ? strdup(saved) : NULL;
    char env[256], named[256], path[512], want[600];
    sd_error err;
    scratch_folder(env, sizeof env, "env", "y.tsv");
    scratch_folder(named, sizeof named, "arg", "x.tsv");
    ck_assert_int_eq(setenv("SPECDEC_DATA", env, 1), 0);
    ck_assert_int_eq(sd_data_find(NULL, "y.tsv", path, sizeof path, &err), SD_OK);
    snprintf(want, sizeof want, "%s/y.tsv", env);
    ck_assert_str_eq(path, want);
    ck_assert_int_eq(sd_data_find(NULL, "models.tsv", path, sizeof path, &err), SD_EINVAL); /* only there */
    ck_assert_ptr_nonnull(strstr(err.msg, env));
    ck_assert_int_eq(sd_data_find(named, "x.tsv", path, sizeof path, &err), SD_OK); /* the caller's folder first */
    ck_assert_int_eq(sd_data_find(named, "y.tsv", path, sizeof path, &err), SD_EINVAL); /* and alone */
    ck_assert_int_eq(setenv("SPECDEC_DATA", "/nonexistent-specdec-folder", 1), 0);
    ck_assert_int_eq(sd_data_find(NULL, "models.tsv", path, sizeof path, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "SPECDEC_DATA: '/nonexistent-specdec-folder' is not a folder");
    ck_assert_int_eq(setenv("SPECDEC_DATA", "", 1), 0); /* empty: the installed folder, then the source tree */
    ck_assert_int_eq(sd_data_find(NULL, "models.tsv", path, sizeof path, &err), SD_OK);
    ck_assert_str_eq(path + strlen(path) - strlen("/models.tsv"), "/models.tsv");
    if (keep != NULL)
        setenv("SPECDEC_DATA", keep, 1);
    else
        unsetenv("SPECDEC_DATA");
    free(keep);
    remove_folder(env, "y.tsv");
    remove_folder(named, "x.tsv");
}
END_TEST

START_TEST(the_installed_folder)
{
    const char *d = sd_data_installed_dir();
    ck_assert_int_eq(d[0], '/');
    size_t n = strlen(d);
    ck_assert(n > strlen("/specdec") && strcmp(d + n - strlen("/specdec"), "/specdec") == 0); /* $(DATADIR)/specdec */
    ck_assert_ptr_eq(sd_data_installed_dir(), d);
}
END_TEST

Suite *data_suite(void)
{
    Suite *s = suite_create("data");
    TCase *tc = tcase_create("data");
    tcase_add_test(tc, only_plain_names);
    tcase_add_test(tc, a_named_folder_is_the_only_place);
    tcase_add_test(tc, the_environment_names_a_folder);
    tcase_add_test(tc, the_installed_folder);
    suite_add_tcase(s, tc);
    return s;
}

/* data.c -- the data-file resolver (see data.h). */
#include "specdec/data.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SPECDEC_DATADIR
#define SPECDEC_DATADIR "/usr/local/share/specdec"
#endif

enum { SOURCE_TREE_DEPTH = 3 }; /* build/specdec, build/san/specdec, build/x/y/prog */

const char *sd_data_installed_dir(void) { return SPECDEC_DATADIR; }

static int is_dir(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* dir/name into path when it is a regular file. */
static int try_dir(const char *dir, const char *name, char *path, size_t size)
{
    int n = snprintf(path, size, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= size || !is_file(path)) {
        path[0] = '\0';
        return 0;
    }
    return 1;
}

/* The source tree's data/ above the running executable, into dir; 0 when
 * the executable does not lie in a source tree's build folder. */
static int source_tree_data(char *dir, size_t size)
{
    char exe[PATH_MAX], probe[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    for (int up = 0; up <= SOURCE_TREE_DEPTH; up++) {
        char *slash = strrchr(exe, '/');
        if (slash == NULL || slash == exe)
            return 0;
        *slash = '\0';
        snprintf(probe, sizeof probe, "%s/include/specdec.h", exe);
        if (!is_file(probe))
            continue;
        int len = snprintf(dir, size, "%s/data", exe);
        return len > 0 && (size_t)len < size && is_dir(dir);
    }
    return 0;
}

sd_status sd_data_find(const char *dir, const char *name, char *path, size_t size, sd_error *err)
{
    if (size > 0)
        path[0] = '\0';
    if (name == NULL || name[0] == '\0' || strchr(name, '/') != NULL)
        return sd_status_fail(err, SD_EINVAL, "name: '%s' is not a plain data file name", name ? name : "(null)");
    if (size == 0)
        return sd_status_fail(err, SD_EINVAL, "size: 0 bytes cannot hold a path");
    const char *env = getenv("SPECDEC_DATA");
    if (dir != NULL && !is_dir(dir))
        return sd_status_fail(err, SD_EINVAL, "data: '%s' is not a folder", dir);
    if (env != NULL && env[0] != '\0' && !is_dir(env))
        return sd_status_fail(err, SD_EINVAL, "SPECDEC_DATA: '%s' is not a folder", env);
    char tree[PATH_MAX];
    int have_tree = 0;
    const char *where[2] = { NULL, NULL };
    if (dir != NULL) /* a folder the user names is the only place looked in */
        where[0] = dir;
    else if (env != NULL && env[0] != '\0')
        where[0] = env;
    else {
        where[0] = SPECDEC_DATADIR;
        have_tree = source_tree_data(tree, sizeof tree);
        where[1] = have_tree ? tree : NULL;
    }
    char looked[1024] = "";
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        if (where[i] == NULL)
            continue;
        if (try_dir(where[i], name, path, size))
            return SD_OK;
        snprintf(looked + strlen(looked), sizeof looked - strlen(looked), "%s%s", looked[0] ? ", " : "", where[i]);
    }
    return sd_status_fail(err, SD_EINVAL, "%s: no such data file in %s; give the folder with --data DIR or SPECDEC_DATA",
                          name, looked[0] ? looked : "any data folder");
}

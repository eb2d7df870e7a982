/* data.h -- where specdec's data files are found.
 *
 * The data files are the roofline presets (models.tsv, hardware.tsv) and
 * the published reference tables (leviathan2023*.tsv, seed-table.tsv).  A
 * file NAME is looked for in the first of these that applies:
 *
 *   1. dir, when the caller gives one (the program's global --data DIR):
 *      only there;
 *   2. else $SPECDEC_DATA, when set and not empty: only there;
 *   3. else the installed folder, $(DATADIR)/specdec, fixed when the
 *      library is built (sd_data_installed_dir), and then
 *   4. the source tree's data/, when the running program lies in that
 *      tree's build folder (found through /proc/self/exe: a parent folder,
 *      at most three levels up, holding include/specdec.h and data/).
 *
 * A folder the user names is authoritative: a file missing there is an
 * error, not a reason to read another copy; a dir or $SPECDEC_DATA that is
 * not a folder is an error too, so that a typo is never hidden.
 */
#ifndef SPECDEC_DATA_H
#define SPECDEC_DATA_H

#include <stddef.h>

#include "specdec/status.h"

/* Writes the path of data file name into path[0..size-1] (size in bytes,
 * the caller's buffer).  dir may be NULL.  SD_EINVAL (the only failure)
 * when name is NULL, empty or holds a '/', when size is 0, when dir or
 * $SPECDEC_DATA is not a folder, or when no location holds name (the
 * message lists where it looked); a path that does not fit in size counts
 * as not found.  On failure path is the empty string (when size > 0). */
SD_API sd_status sd_data_find(const char *dir, const char *name, char *path, size_t size, sd_error *err);

/* The installed data folder compiled into the library, e.g.
 * "/usr/local/share/specdec" (a static string; never fails). */
SD_API const char *sd_data_installed_dir(void);

#endif

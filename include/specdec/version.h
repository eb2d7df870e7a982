/* version.h -- which specdec this is, and which GSL it was built with.
 *
 * SPECDEC_VERSION is the version of the headers a program was compiled
 * against; sd_version() that of the library it runs with.  They differ only
 * when a program runs on another build of the shared library than its
 * headers came from (the soname's major number is SPECDEC_VERSION_MAJOR).
 */
#ifndef SPECDEC_VERSION_H
#define SPECDEC_VERSION_H

#include "specdec/status.h"

#define SPECDEC_VERSION_MAJOR 3
#define SPECDEC_VERSION_MINOR 0
#define SPECDEC_VERSION_PATCH 0
#define SPECDEC_VERSION "3.0.0"

/* The library's version string, "MAJOR.MINOR.PATCH" (the header's
 * SPECDEC_VERSION at build time; compare them to catch a mismatched
 * shared library).  Static; never fails. */
SD_API const char *sd_version(void);

/* The version of GSL the library was built against, e.g. "2.7.1".
 * Static; never fails. */
SD_API const char *sd_version_gsl(void);

#endif

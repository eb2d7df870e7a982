/* version.c -- the library's and GSL's versions (see version.h). */
#include "specdec/version.h"

#include <gsl/gsl_version.h>

const char *sd_version(void) { return SPECDEC_VERSION; }

const char *sd_version_gsl(void) { return GSL_VERSION; }

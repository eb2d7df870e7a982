/* testutil.h -- moved to tests/unit/testutil.h; this forwards the suites
 * not yet moved to tests/unit/ until they are. */
#include "unit/testutil.h"

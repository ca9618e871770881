// Run-time version queries.
#include "dag/dag.h"

extern "C" {

unsigned dag_version(void) { return DAG_VERSION_NUMBER; }

const char *dag_version_string(void) { return DAG_VERSION_STRING; }

}  // extern "C"

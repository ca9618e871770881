// The public header must also compile as C++ without warnings.
#include <dag/dag.h>

int dag_header_cxx_check();
int dag_header_cxx_check() { return DAG_VERSION_MAJOR + static_cast<int>(DAG_OK); }

// The public header must also compile as C++ without warnings, its macros
// included, also under -Wold-style-cast (DAG_NO_VERTEX was a C cast).
#include <dag/dag.h>

int dag_header_cxx_check();
int dag_header_cxx_check() {
    const dag_walk_options walk = DAG_WALK_OPTIONS_INIT;
    const dag_validate_options validate = DAG_VALIDATE_OPTIONS_INIT;
    const dag_build_options build = DAG_BUILD_OPTIONS_INIT;
    const uint64_t none = DAG_NO_VERTEX;
    return DAG_VERSION_MAJOR + static_cast<int>(DAG_OK) + static_cast<int>(none) +
           static_cast<int>(walk.size + validate.size + build.size > 0);
}

/* Compiled with -std=c99 -Wall -Wextra -pedantic -Werror: the public header
 * must be plain C99, its macros included. */
#include <dag/dag.h>

int dag_header_c99_check(void);
int dag_header_c99_check(void) {
    const dag_walk_options walk = DAG_WALK_OPTIONS_INIT;
    const dag_validate_options validate = DAG_VALIDATE_OPTIONS_INIT;
    const dag_build_options build = DAG_BUILD_OPTIONS_INIT;
    const uint64_t none = DAG_NO_VERTEX;
    return DAG_VERSION_MAJOR + (int)DAG_OK + (int)none + (walk.size + validate.size + build.size > 0);
}

/* Compiled with -std=c99 -Wall -Wextra -pedantic -Werror: the public header
 * must be plain C99. */
#include <dag/dag.h>

int dag_header_c99_check(void);
int dag_header_c99_check(void) { return DAG_VERSION_MAJOR + (int)DAG_OK; }

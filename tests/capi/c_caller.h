/* Calls made as a C program makes them (c_caller.c). */
#ifndef DAG_TESTS_C_CALLER_H
#define DAG_TESTS_C_CALLER_H

#include <dag/dag.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dag_builder_set_action with `action` converted to dag_action as C does. */
dag_status c_caller_set_action(dag_builder *b, uint64_t vertex, int action, dag_error **err);

#ifdef __cplusplus
}
#endif

#endif

/* Calls as a C program does: C passes an int where a dag_* enum goes (its
 * type is compatible with unsigned int there), which C++ cannot do without
 * undefined behaviour for a value outside the enum's range. */
#include <dag/dag.h>

#include "c_caller.h"

dag_status c_caller_set_action(dag_builder *b, uint64_t vertex, int action, dag_error **err) {
    return dag_builder_set_action(b, vertex, (dag_action)action, err);
}

// DOT import (Graphviz's parser under libdag's own error handling, charsets,
// UTF-16), then the round trip through every format.
#include "round_trip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    dag_graph *g = fuzz::import_input(DAG_FORMAT_DOT, data, size);
    if (g == nullptr) return 0;
    fuzz::check_round_trip(g);
    dag_free(g);
    return 0;
}

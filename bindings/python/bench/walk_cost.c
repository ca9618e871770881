/*
 * The C side of the Python binding's cost table: an empty-callback walk of
 * N vertices, chain and fan-out, default options, best of REPEAT runs, in
 * ns per vertex. Usage: walk_cost [N] [REPEAT].
 */
#define _POSIX_C_SOURCE 200809L
#include <dag/dag.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static dag_walk_result empty(dag_walker *walk, uint64_t vertex, const char **message, void *data) {
    (void)walk, (void)vertex, (void)message, (void)data;
    return DAG_WALK_OK;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static dag_graph *shape(int fan_out, size_t n) {
    dag_graph *g = NULL;
    uint64_t *ids = malloc(n * sizeof *ids);
    if (!ids || dag_new(&g, NULL) != DAG_OK) exit(1);
    for (size_t i = 0; i < n; ++i)
        if (dag_add_vertex(g, NULL, NULL, &ids[i], NULL) != DAG_OK) exit(1);
    for (size_t i = 1; i < n; ++i)
        if (dag_connect(g, ids[i], ids[fan_out ? 0 : i - 1], NULL) != DAG_OK) exit(1);
    free(ids);
    return g;
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
    int repeat = argc > 2 ? atoi(argv[2]) : 5;
    for (int fan_out = 0; fan_out < 2; ++fan_out) {
        dag_graph *g = shape(fan_out, n);
        double best = 1e9;
        for (int r = 0; r < repeat; ++r) {
            double t0 = now();
            if (dag_walk(g, empty, NULL, NULL, NULL, NULL) != DAG_OK) return 1;
            double s = now() - t0;
            if (s < best) best = s;
        }
        printf("%s %.0f\n", fan_out ? "fan-out" : "chain", best * 1e9 / (double)n);
        dag_free(g);
    }
    return 0;
}

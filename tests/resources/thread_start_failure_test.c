/*
 * A walk whose pool cannot start all its threads fails with DAG_E_NOMEM
 * instead of hanging, and the next walk, with room again, runs.
 *
 * The address space is capped so that 1024 thread stacks cannot be mapped.
 * Sanitizers map huge shadow regions, so this runs only in plain builds.
 */
#include <dag/dag.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

static dag_walk_result ok(dag_walker *walk, uint64_t vertex, const char **message, void *data) {
    (void)walk;
    (void)vertex;
    (void)message;
    (void)data;
    return DAG_WALK_OK;
}

int main(void) {
    dag_graph *g = NULL;
    dag_error *err = NULL;
    dag_walk_options opts;
    struct rlimit saved, capped;
    dag_status st;
    uint64_t a;

    if (dag_new(&g, NULL) != DAG_OK || dag_add_vertex(g, "a", NULL, &a, NULL) != DAG_OK ||
        dag_walk_options_init(&opts, sizeof opts, NULL) != DAG_OK || getrlimit(RLIMIT_AS, &saved) != 0) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    opts.threads = DAG_WALK_MAX_THREADS;
    opts.parallelism = DAG_WALK_MAX_THREADS;

    /* 1 GiB: room for the process, not for 1024 stacks of 8 MiB. */
    capped = saved;
    capped.rlim_cur = (rlim_t)1 << 30;
    if (setrlimit(RLIMIT_AS, &capped) != 0) {
        perror("setrlimit");
        return 1;
    }
    st = dag_walk(g, ok, NULL, &opts, NULL, &err);
    if (setrlimit(RLIMIT_AS, &saved) != 0) {
        perror("setrlimit");
        return 1;
    }
    if (st != DAG_E_NOMEM || !strstr(dag_error_message(err), "dag_walk: could not start the walk's 1024 threads")) {
        fprintf(stderr, "capped walk: status %d, %s\n", (int)st, err ? dag_error_message(err) : "no error");
        return 1;
    }
    dag_error_free(err);
    err = NULL;

    /* Nothing was left behind: the graph is not busy and walks again. */
    st = dag_walk(g, ok, NULL, &opts, NULL, &err);
    if (st != DAG_OK) {
        fprintf(stderr, "walk after the cap: status %d, %s\n", (int)st, dag_error_message(err));
        return 1;
    }
    dag_free(g);
    printf("a pool that could not start failed cleanly\n");
    return 0;
}

/*
 * A host that runs each vertex's work on threads of its own: a pull-mode
 * walk (dag_walk_begin, dag_walk_next_ready). Two host threads take ready
 * vertices and complete them; "db" fails, so "web" (which needs it) is
 * skipped, while "cache" and "dns" go on. Prints the report, one vertex a
 * line in id order, and exits 0 when the report is as Terraform's rules say.
 */
#include <dag/dag.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static dag_walker *walk;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static void *host_thread(void *arg) {
    uint64_t ready[4];
    dag_walker *walks[4];
    size_t n, i;
    (void)arg;
    for (;;) {
        dag_status st = dag_walk_next_ready(walk, ready, walks, 4, 100, &n, NULL);
        if (st == DAG_E_TIMEOUT) continue;
        if (st != DAG_OK || n == 0) return NULL;
        for (i = 0; i < n; ++i) {
            const char *name = "";
            dag_vertex_name(dag_walk_graph(walks[i]), ready[i], &name, NULL);
            pthread_mutex_lock(&print_lock);
            printf("running %s\n", name);
            pthread_mutex_unlock(&print_lock);
            if (strcmp(name, "db") == 0)
                dag_walk_fail(walks[i], ready[i], "disk full", NULL);
            else
                dag_walk_complete(walks[i], ready[i], DAG_WALK_OK, NULL, NULL);
        }
    }
}

int main(void) {
    dag_graph *g = NULL;
    dag_error *err = NULL;
    dag_walk_options opts = DAG_WALK_OPTIONS_INIT;
    dag_walk_report *report = NULL;
    pthread_t threads[2];
    uint64_t db, web, cache, dns;
    dag_vertex_outcome outcomes[4];
    size_t count = 0, i;
    dag_status st;
    int ok;

    if (dag_new(&g, &err) != DAG_OK) return 1;
    dag_add_vertex(g, "db", NULL, &db, NULL);
    dag_add_vertex(g, "web", NULL, &web, NULL);
    dag_add_vertex(g, "cache", NULL, &cache, NULL);
    dag_add_vertex(g, "dns", NULL, &dns, NULL);
    dag_connect(g, web, db, NULL); /* web depends on db */
    dag_connect(g, web, cache, NULL);
    opts.parallelism = 2;
    if (dag_walk_begin(g, &opts, &walk, &err) != DAG_OK) {
        fprintf(stderr, "%s\n", dag_error_message(err));
        return 1;
    }
    for (i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, host_thread, NULL);
    for (i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
    st = dag_walk_wait(walk, &report, &err);
    printf("walk: %s\n", dag_status_string(st));
    dag_error_free(err);
    dag_walk_report_read(report, 0, outcomes, 4, sizeof outcomes[0], &count, NULL);
    for (i = 0; i < count; ++i) {
        const char *name = "";
        dag_vertex_name(g, outcomes[i].vertex, &name, NULL);
        printf("%s: %s%s%s\n", name, dag_vertex_status_string(outcomes[i].status),
               outcomes[i].message[0] ? ": " : "", outcomes[i].message);
    }
    ok = st == DAG_E_WALK_FAILED && count == 4 && outcomes[0].status == DAG_VERTEX_FAILED &&
         outcomes[1].status == DAG_VERTEX_UPSTREAM_FAILED && outcomes[2].status == DAG_VERTEX_OK &&
         outcomes[3].status == DAG_VERTEX_OK;
    dag_walk_report_free(report);
    dag_walk_free(walk);
    dag_free(g);
    return ok ? 0 : 1;
}

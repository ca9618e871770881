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
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* for stdout and `stopped` */
static int stopped; /* set on an error: every host thread stops */

/* Returns 0 for DAG_OK; otherwise prints the error, frees it and returns 1. */
static int check(dag_status st, dag_error **err) {
    if (st == DAG_OK) return 0;
    fprintf(stderr, "libdag: %s: %s\n", dag_status_string(st), dag_error_message(*err));
    dag_error_free(*err);
    *err = NULL;
    return 1;
}

/*
 * After an error: the walk hands out nothing more, and the host threads stop.
 * Cancelling also finishes the vertices never handed out, or they would wait
 * for ever; those still out are finished by dag_walk_free() in main.
 */
static void stop_walk(void) {
    pthread_mutex_lock(&lock);
    stopped = 1;
    pthread_mutex_unlock(&lock);
    dag_walk_cancel(walk, NULL); /* fails only when the walk has ended already */
}

static int should_stop(void) {
    int stop;
    pthread_mutex_lock(&lock);
    stop = stopped;
    pthread_mutex_unlock(&lock);
    return stop;
}

static void *host_thread(void *arg) {
    uint64_t ready[4];
    dag_walker *walks[4];
    dag_error *err = NULL;
    size_t n, i;
    (void)arg;
    while (!should_stop()) {
        dag_status st = dag_walk_next_ready(walk, ready, walks, 4, 100, &n, &err);
        if (st == DAG_E_TIMEOUT) { /* none ready yet */
            dag_error_free(err);
            err = NULL;
            continue;
        }
        if (check(st, &err)) goto fail;
        if (n == 0) return NULL; /* the walk has ended */
        for (i = 0; i < n; ++i) {
            const char *name = NULL;
            st = dag_vertex_name(dag_walk_graph(walks[i]), ready[i], &name, &err);
            if (check(st, &err)) goto fail;
            pthread_mutex_lock(&lock);
            printf("running %s\n", name);
            pthread_mutex_unlock(&lock);
            if (strcmp(name, "db") == 0)
                st = dag_walk_fail(walks[i], ready[i], "disk full", &err);
            else
                st = dag_walk_complete(walks[i], ready[i], DAG_WALK_OK, NULL, &err);
            if (check(st, &err)) goto fail;
        }
    }
    return NULL; /* another thread met an error */
fail:
    stop_walk();
    return NULL;
}

int main(void) {
    dag_graph *g = NULL;
    dag_error *err = NULL;
    dag_walk_options opts = DAG_WALK_OPTIONS_INIT;
    dag_walk_report *report = NULL;
    pthread_t threads[2];
    uint64_t db, web, cache, dns;
    dag_vertex_outcome outcomes[4];
    size_t count = 0, started, i;
    dag_status st;
    int ok = 0;

    if (check(dag_new(&g, &err), &err)) return 1;
    if (check(dag_add_vertex(g, "db", NULL, &db, &err), &err) ||
        check(dag_add_vertex(g, "web", NULL, &web, &err), &err) ||
        check(dag_add_vertex(g, "cache", NULL, &cache, &err), &err) ||
        check(dag_add_vertex(g, "dns", NULL, &dns, &err), &err) ||
        check(dag_connect(g, web, db, &err), &err) || /* web depends on db */
        check(dag_connect(g, web, cache, &err), &err))
        goto out;
    opts.parallelism = 2;
    if (check(dag_walk_begin(g, &opts, &walk, &err), &err)) goto out;
    for (started = 0; started < 2; ++started) {
        int rc = pthread_create(&threads[started], NULL, host_thread, NULL);
        if (rc != 0) {
            fprintf(stderr, "pthread_create: %s\n", strerror(rc));
            stop_walk();
            break;
        }
    }
    for (i = 0; i < started; ++i) pthread_join(threads[i], NULL);
    if (should_stop()) goto out; /* an error, told already */

    st = dag_walk_wait(walk, &report, &err);
    printf("walk: %s\n", dag_status_string(st));
    if (st != DAG_E_WALK_FAILED && check(st, &err)) goto out; /* db's failure is expected */
    dag_error_free(err); /* it names db's failure; the report has every vertex */
    err = NULL;
    if (check(dag_walk_report_read(report, 0, outcomes, 4, sizeof outcomes[0], &count, &err), &err))
        goto out;
    for (i = 0; i < count; ++i) {
        const char *name = NULL;
        if (check(dag_vertex_name(g, outcomes[i].vertex, &name, &err), &err)) goto out;
        printf("%s: %s%s%s\n", name, dag_vertex_status_string(outcomes[i].status),
               outcomes[i].message[0] ? ": " : "", outcomes[i].message);
    }
    ok = st == DAG_E_WALK_FAILED && count == 4 && outcomes[0].status == DAG_VERTEX_FAILED &&
         outcomes[1].status == DAG_VERTEX_UPSTREAM_FAILED && outcomes[2].status == DAG_VERTEX_OK &&
         outcomes[3].status == DAG_VERTEX_OK;
out:
    dag_walk_report_free(report);
    dag_walk_free(walk); /* a walk stopped by an error: finishes what is still out */
    dag_free(g);
    return ok ? 0 : 1;
}

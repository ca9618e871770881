#include "shim.h"

#include <pthread.h>
#include <stdlib.h>

#include "_cgo_export.h"

uintptr_t dagbind_thread(void) {
    /* pthread_t is an integer or a pointer on every POSIX system Go's cgo
       supports, so it converts to uintptr_t without loss. */
    return (uintptr_t)pthread_self();
}

static int visit_trampoline(uint64_t id, size_t depth, void *user_data) {
    return dagbindVisit((uintptr_t)user_data, id, depth);
}

static int search_trampoline(uint64_t id, void *user_data) {
    return dagbindSearch((uintptr_t)user_data, id);
}

static dag_walk_result walk_trampoline(dag_walker *walk, uint64_t vertex, const char **message,
                                       void *user_data) {
    (void)message; /* Go fails a vertex with dag_walk_fail, which copies at once. */
    return (dag_walk_result)dagbindWalkVertex((uintptr_t)user_data, walk, vertex);
}

dag_status dagbind_search(const dag_graph *g, const uint64_t *ids, size_t count, unsigned flags,
                          uintptr_t handle, dag_ids **out, dag_error **err) {
    return dag_search(g, ids, count, flags, search_trampoline, (void *)handle, out, err);
}

dag_status dagbind_traverse(const dag_graph *g, const uint64_t *start, size_t count,
                            unsigned flags, uintptr_t handle, dag_error **err) {
    return dag_traverse(g, start, count, flags, visit_trampoline, (void *)handle, err);
}

static void event_trampoline(dag_walker *walk, const dag_walk_event_info *info,
                             void *user_data) {
    dagbindWalkEvent((uintptr_t)user_data, walk, (int)info->event, info->vertex,
                     (int)info->status, info->running, info->done, info->total, info->sequence);
}

static dag_status walk_options(dagbind_walk_config cfg, const uint64_t *always_run,
                               size_t always_run_count, dag_walk_options *opts, dag_error **err) {
    dag_status status = dag_walk_options_init(opts, sizeof *opts, err);
    if (status != DAG_OK) {
        return status;
    }
    if (cfg.parallelism != 0) {
        opts->parallelism = cfg.parallelism;
    }
    if (cfg.threads != 0) {
        opts->threads = cfg.threads;
    }
    opts->reverse = cfg.reverse;
    opts->failure_policy = cfg.fail_fast ? DAG_FAILURE_FAIL_FAST : DAG_FAILURE_CONTINUE;
    opts->timestamps = cfg.timestamps;
    opts->always_run = always_run;
    opts->always_run_count = always_run_count;
    if (cfg.observer != 0) {
        opts->event_observer = event_trampoline;
        opts->event_observer_data = (void *)cfg.observer;
    }
    const dagbind_schedule *s = (const dagbind_schedule *)cfg.schedule;
    if (s != NULL) {
        opts->pool_names = (const char *const *)s->pool_names;
        opts->pool_capacities = s->pool_capacities;
        opts->pool_count = s->pool_count;
        opts->pool_need_vertices = s->need_vertices;
        opts->pool_need_names = (const char *const *)s->need_names;
        opts->pool_need_count = s->need_count;
        opts->retry_vertices = s->retry_vertices;
        opts->retry_counts = s->retry_counts;
        opts->retry_vertex_count = s->retry_vertex_count;
        opts->weight_vertices = s->weight_vertices;
        opts->weights = s->weights;
        opts->weight_count = s->weight_count;
    }
    opts->priority = (dag_walk_priority)cfg.priority;
    opts->retries = cfg.retries;
    opts->retry_delay_ms = cfg.retry_delay_ms;
    opts->retry_max_delay_ms = cfg.retry_max_delay_ms;
    opts->retry_doubling = cfg.retry_doubling;
    return DAG_OK;
}

/* calloc of n elements, NULL (not an allocation) for none. */
static void *array_of(size_t n, size_t size, int *failed) {
    if (n == 0) {
        return NULL;
    }
    void *p = calloc(n, size);
    if (p == NULL) {
        *failed = 1;
    }
    return p;
}

dagbind_schedule *dagbind_schedule_new(size_t pools, size_t needs, size_t retry_vertices, size_t weights) {
    dagbind_schedule *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    int failed = 0;
    s->pool_count = pools;
    s->pool_names = array_of(pools, sizeof *s->pool_names, &failed);
    s->pool_capacities = array_of(pools, sizeof *s->pool_capacities, &failed);
    s->need_count = needs;
    s->need_vertices = array_of(needs, sizeof *s->need_vertices, &failed);
    s->need_names = array_of(needs, sizeof *s->need_names, &failed);
    s->retry_vertex_count = retry_vertices;
    s->retry_vertices = array_of(retry_vertices, sizeof *s->retry_vertices, &failed);
    s->retry_counts = array_of(retry_vertices, sizeof *s->retry_counts, &failed);
    s->weight_count = weights;
    s->weight_vertices = array_of(weights, sizeof *s->weight_vertices, &failed);
    s->weights = array_of(weights, sizeof *s->weights, &failed);
    if (failed) {
        dagbind_schedule_free(s);
        return NULL;
    }
    return s;
}

void dagbind_schedule_free(dagbind_schedule *s) {
    if (s == NULL) {
        return;
    }
    for (size_t i = 0; s->pool_names != NULL && i < s->pool_count; ++i) {
        free(s->pool_names[i]);
    }
    for (size_t i = 0; s->need_names != NULL && i < s->need_count; ++i) {
        free(s->need_names[i]);
    }
    free(s->pool_names);
    free(s->pool_capacities);
    free(s->need_vertices);
    free(s->need_names);
    free(s->retry_vertices);
    free(s->retry_counts);
    free(s->weight_vertices);
    free(s->weights);
    free(s);
}

dag_status dagbind_walk_start(dag_graph *g, dagbind_walk_config cfg, const uint64_t *always_run,
                              size_t always_run_count, uintptr_t handle, dag_walker **out,
                              dag_error **err) {
    dag_walk_options opts;
    dag_status status = walk_options(cfg, always_run, always_run_count, &opts, err);
    if (status != DAG_OK) {
        return status;
    }
    return dag_walk_start(g, walk_trampoline, (void *)handle, &opts, out, err);
}

dag_status dagbind_walk_begin(dag_graph *g, dagbind_walk_config cfg, const uint64_t *always_run,
                              size_t always_run_count, dag_walker **out, dag_error **err) {
    dag_walk_options opts;
    dag_status status = walk_options(cfg, always_run, always_run_count, &opts, err);
    if (status != DAG_OK) {
        return status;
    }
    return dag_walk_begin(g, &opts, out, err);
}

dag_status dagbind_complete_next(uintptr_t root_handle, uintptr_t walk_handle, uint64_t vertex,
                                 int result, uintptr_t message_ptr, int take, uintptr_t puller) {
    dag_walker *root = (dag_walker *)root_handle;
    dag_walker *walk = (dag_walker *)walk_handle;
    const char *message = (const char *)message_ptr;
    dagbind_puller *p = (dagbind_puller *)puller;
    p->count = 0;
    p->err = NULL;
    p->completed = dag_walk_complete(walk, vertex, (dag_walk_result)result, message, &p->err);
    if (p->completed != DAG_OK || !take) {
        return DAG_OK;
    }
    dag_status status =
        dag_walk_next_ready(root, p->ids, p->walks, DAGBIND_READY_BATCH, 0, &p->count, &p->err);
    if (status == DAG_E_TIMEOUT) {
        dag_error_free(p->err);
        p->err = NULL;
        return DAG_OK;
    }
    return status;
}

dag_status dagbind_set_user_data(dag_graph *g, uint64_t id, uintptr_t data, dag_error **err) {
    return dag_set_vertex_user_data(g, id, (void *)data, err);
}

dag_status dagbind_user_data(const dag_graph *g, uint64_t id, uintptr_t *out, dag_error **err) {
    void *data = NULL;
    dag_status status = dag_vertex_user_data(g, id, &data, err);
    *out = (uintptr_t)data;
    return status;
}

dag_status dagbind_update_add_vertex(dag_walk_update *update, const char *name, uintptr_t data,
                                     int always_run, uint64_t *out_provisional, dag_error **err) {
    return dag_walk_update_add_vertex(update, name, (void *)data, always_run, out_provisional, err);
}

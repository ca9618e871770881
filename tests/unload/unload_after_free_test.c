/*
 * A plugin host frees a walk from the walk's own callback, then unloads
 * libdag with dlclose() while another callback of that walk still runs.
 * The walk is freed once it has finished, on a thread of libdag's own;
 * unmapping the library under it or the running pool thread would crash
 * the process when they return into it. dlclose() leaves libdag mapped
 * (it is linked with -z nodelete), and exit waits for the freeing.
 *
 *   unload_after_free_test path/to/libdag.so
 */
#include <dag/dag.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef const dag_api_table *(*dag_api_fn)(unsigned abi);

static const dag_api_table *api;
static uint64_t freer, sleeper;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int freed, sleeping, closing;

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void set(int *flag) {
    pthread_mutex_lock(&mu);
    *flag = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void await(int *flag) {
    pthread_mutex_lock(&mu);
    while (!*flag) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
}

static dag_walk_result callback(dag_walker *walk, uint64_t vertex, const char **message, void *data) {
    (void)data;
    (void)message;
    if (vertex == freer) {
        await(&sleeping);
        api->walk_free(walk);
        set(&freed);
    } else if (vertex == sleeper) {
        set(&sleeping);
        await(&closing);
        /* Still inside libdag's pool when the host calls dlclose(). */
        sleep_ms(200);
    }
    return DAG_WALK_OK;
}

int main(int argc, char **argv) {
    void *lib, *sym;
    dag_api_fn get_api;
    dag_graph *g = NULL;
    dag_walker *walk = NULL;
    dag_walk_options opts;
    dag_error *err = NULL;

    if (argc < 2) {
        fprintf(stderr, "usage: %s LIBDAG\n", argv[0]);
        return 2;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib || !(sym = dlsym(lib, "dag_api"))) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    memcpy(&get_api, &sym, sizeof get_api);
    api = get_api(DAG_API_ABI);
    if (!api || api->new_graph(&g, &err) != DAG_OK || api->add_vertex(g, "freer", NULL, &freer, &err) != DAG_OK ||
        api->add_vertex(g, "sleeper", NULL, &sleeper, &err) != DAG_OK ||
        api->walk_options_init(&opts, sizeof opts, &err) != DAG_OK) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    opts.parallelism = 2;
    opts.threads = 2;
    if (api->walk_start(g, callback, NULL, &opts, &walk, &err) != DAG_OK) {
        fprintf(stderr, "walk_start: %s\n", api->error_message(err));
        return 1;
    }
    /* The walk holds the graph until it is freed. */
    api->free_graph(g);
    await(&freed);
    set(&closing);
    if (dlclose(lib) != 0) {
        fprintf(stderr, "dlclose: %s\n", dlerror());
        return 1;
    }
    /* Had dlclose() returned before the walk was gone, its pool thread would
       have crashed by now, returning into unmapped code. */
    sleep_ms(400);
    printf("unloaded after the walk was freed\n");
    return 0;
}

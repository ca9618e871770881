/*
 * A plugin host unloads libdag with dlclose() while a walk still runs: two
 * callbacks are blocked in the host's code, their pool threads' stacks
 * returning into libdag. Once released, they go back into the library and
 * start a third vertex, which needs libdag's scheduler after the unload.
 * libdag is linked with -z nodelete, so dlclose() leaves it mapped and all
 * this is safe; were it unmapped, the pool threads would crash (SIGSEGV).
 *
 *   unload_during_walk_test path/to/libdag.so waited
 *       waits (through the host's own flag) for the third vertex, opens the
 *       library again, which is still the same one, and waits for and frees
 *       the walk through it.
 *   unload_during_walk_test path/to/libdag.so abandoned
 *       releases the callbacks and leaves the process at once: the walk is
 *       never waited for nor freed, and its threads may still be inside
 *       libdag as the process exits.
 */
#include <dag/dag.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef const dag_api_table *(*dag_api_fn)(unsigned abi);

static uint64_t last;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int entered, released, done;

static void bump(int *counter) {
    pthread_mutex_lock(&mu);
    ++*counter;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void await(int *counter, int value) {
    pthread_mutex_lock(&mu);
    while (*counter < value) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
}

static dag_walk_result callback(dag_walker *walk, uint64_t vertex, const char **message, void *data) {
    (void)walk;
    (void)message;
    (void)data;
    if (vertex == last) {
        bump(&done);
    } else {
        bump(&entered);
        /* Blocked here, in the host, while the host unloads libdag. */
        await(&released, 1);
    }
    return DAG_WALK_OK;
}

static const dag_api_table *open_api(const char *path, void **lib) {
    void *sym;
    dag_api_fn get_api;
    *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!*lib || !(sym = dlsym(*lib, "dag_api"))) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return NULL;
    }
    memcpy(&get_api, &sym, sizeof get_api);
    return get_api(DAG_API_ABI);
}

int main(int argc, char **argv) {
    void *lib;
    const dag_api_table *api;
    dag_graph *g = NULL;
    dag_walker *walk = NULL;
    dag_walk_options opts;
    dag_error *err = NULL;
    uint64_t a, b;
    int abandon;

    if (argc < 3 || (strcmp(argv[2], "waited") != 0 && strcmp(argv[2], "abandoned") != 0)) {
        fprintf(stderr, "usage: %s LIBDAG waited|abandoned\n", argv[0]);
        return 2;
    }
    abandon = strcmp(argv[2], "abandoned") == 0;
    api = open_api(argv[1], &lib);
    if (!api || api->new_graph(&g, &err) != DAG_OK || api->add_vertex(g, "a", NULL, &a, &err) != DAG_OK ||
        api->add_vertex(g, "b", NULL, &b, &err) != DAG_OK || api->add_vertex(g, "last", NULL, &last, &err) != DAG_OK ||
        api->connect(g, last, a, &err) != DAG_OK || api->connect(g, last, b, &err) != DAG_OK ||
        api->walk_options_init(&opts, sizeof opts, &err) != DAG_OK) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    opts.parallelism = 2;
    if (api->walk_start(g, callback, NULL, &opts, &walk, &err) != DAG_OK) {
        fprintf(stderr, "walk_start: %s\n", api->error_message(err));
        return 1;
    }
    await(&entered, 2);
    if (dlclose(lib) != 0) {
        fprintf(stderr, "dlclose: %s\n", dlerror());
        return 1;
    }
    bump(&released);
    if (abandon) {
        printf("left the process with the walk running\n");
        return 0;
    }
    await(&done, 1);
    /* Still loaded: opening it again finds the same library and its walk. */
    api = open_api(argv[1], &lib);
    if (!api || api->walk_wait(walk, NULL, &err) != DAG_OK) {
        fprintf(stderr, "walk_wait after reopening: %s\n", api ? api->error_message(err) : "no table");
        return 1;
    }
    api->walk_free(walk);
    api->free_graph(g);
    dlclose(lib);
    printf("the walk ran on after dlclose\n");
    return 0;
}

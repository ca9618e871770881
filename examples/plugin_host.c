/*
 * A plugin host that loads libdag at run time with dlopen() and reaches every
 * function through the one exported table, dag_api(). It links nothing of
 * libdag; it only needs the header for the types.
 *
 *   cc plugin_host.c -ldl -o plugin_host && ./plugin_host libdag.so.1
 */
#include <dag/dag.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef const dag_api_table *(*dag_api_fn)(unsigned abi);

/*
 * Whether the library's table has `field`. Fields are only ever appended, so
 * an older library than this header has a shorter table (see dag_api_table).
 */
#define HAS_FIELD(api, field) (offsetof(dag_api_table, field) + sizeof (api)->field <= (api)->size)

/*
 * The host runs each vertex's work itself, on its own thread: a pull-mode
 * walk (1.2) through the table, dependencies first.
 */
static int walk_on_this_thread(const dag_api_table *api, dag_graph *g) {
    dag_walker *walk = NULL, *owner = NULL;
    dag_error *err = NULL;
    uint64_t vertex = 0;
    size_t n = 0;
    dag_status st;

    if (api->walk_begin(g, NULL, &walk, &err) != DAG_OK) {
        fprintf(stderr, "libdag: %s\n", api->error_message(err));
        api->error_free(err);
        return 1;
    }
    printf("walked:");
    while ((st = api->walk_next_ready(walk, &vertex, &owner, 1, -1, &n, &err)) == DAG_OK && n > 0) {
        const char *name = NULL;
        st = api->vertex_name(api->walk_graph(owner), vertex, &name, &err);
        if (st != DAG_OK) break;
        printf(" %s", name);
        st = api->walk_complete(owner, vertex, DAG_WALK_OK, NULL, &err);
        if (st != DAG_OK) break;
    }
    printf("\n");
    if (st == DAG_OK) st = api->walk_wait(walk, NULL, &err);
    if (st != DAG_OK) {
        fprintf(stderr, "libdag: %s\n", api->error_message(err));
        api->error_free(err);
    }
    api->walk_free(walk); /* a walk stopped halfway is cancelled first */
    return st == DAG_OK ? 0 : 1;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "libdag.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    dag_api_fn get_api;
    const dag_api_table *api;
    dag_graph *g = NULL;
    dag_error *err = NULL;
    uint64_t a = 0, b = 0;
    char *text = NULL;
    int rc = 1;

    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    /* dlsym returns void *; copying it is the portable way to a function pointer. */
    {
        void *sym = dlsym(lib, "dag_api");
        if (!sym) {
            fprintf(stderr, "dlsym: %s\n", dlerror());
            dlclose(lib);
            return 1;
        }
        memcpy(&get_api, &sym, sizeof get_api);
    }
    api = get_api(DAG_API_ABI);
    if (!api) {
        fprintf(stderr, "libdag at %s lacks ABI %d\n", path, DAG_API_ABI);
        dlclose(lib);
        return 1;
    }
    /* Pull walks came in 1.2; the other fields used here are in every table (1.0). */
    if (!HAS_FIELD(api, walk_begin) || !HAS_FIELD(api, walk_next_ready)) {
        fprintf(stderr, "libdag at %s is older than 1.2: no walk_begin, walk_next_ready\n", path);
        dlclose(lib);
        return 1;
    }
    if (get_api(DAG_API_ABI + 1) != NULL) {
        fprintf(stderr, "an unknown ABI must give NULL\n");
        dlclose(lib);
        return 1;
    }

    if (api->new_graph(&g, &err) != DAG_OK ||
        api->add_vertex(g, "plugin.consumer", NULL, &a, &err) != DAG_OK ||
        api->add_vertex(g, "plugin.provider", NULL, &b, &err) != DAG_OK ||
        api->connect(g, a, b, &err) != DAG_OK || api->to_string(g, &text, &err) != DAG_OK) {
        fprintf(stderr, "libdag: %s\n", api->error_message(err));
        api->error_free(err);
    } else {
        printf("loaded libdag %s through dag_api()\n%s", api->version_string(), text);
        api->string_free(text);
        rc = walk_on_this_thread(api, g);
    }
    api->free_graph(g);
    dlclose(lib);
    return rc;
}

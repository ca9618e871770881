/*
 * libdag: dependency graphs with Terraform's semantics, behind a stable C ABI.
 *
 * Conventions used by every function in this header
 * --------------------------------------------------
 * - Fallible functions return a dag_status: DAG_OK (0) on success, a negative
 *   code on failure. Codes are pinned forever; dag_status_string() names each.
 * - Every fallible function takes `dag_error **err` as its last parameter. When
 *   `err` is not NULL and the call fails, `*err` receives a newly allocated
 *   error object (status + message naming the problem) that the caller frees
 *   with dag_error_free(). On success `*err` is set to NULL. Passing NULL for
 *   `err` is allowed: the status alone is returned. No thread-local state is
 *   used, so a message survives a goroutine moving between OS threads.
 * - Out-parameters are written only on success, unless a function says
 *   otherwise.
 * - Vertex ids are uint64_t, assigned by the graph, never reused within one
 *   graph. 0 is never a valid id (DAG_NO_VERTEX).
 * - Arrays come back as owned objects (dag_ids, char *) with their own free
 *   function. Borrowed pointers (vertex names) stay valid until the vertex is
 *   removed or renamed, or the graph is freed.
 * - Threads: functions taking `const dag_graph *` may run concurrently with
 *   each other on the same graph; a function taking `dag_graph *` needs
 *   exclusive access to that graph. Different graphs are independent.
 * - No function lets a C++ exception escape; allocation failure is reported as
 *   DAG_E_NOMEM. Free functions accept NULL and do nothing.
 * - Edges: dag_connect(g, a, b) means "a depends on b": b's work happens before
 *   a's. The dependencies of a vertex are the targets of its out-edges; its
 *   dependents are the sources of its in-edges.
 */
#ifndef DAG_DAG_H
#define DAG_DAG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  define DAG_API __declspec(dllimport)
#elif defined(__GNUC__)
#  define DAG_API __attribute__((visibility("default")))
#else
#  define DAG_API
#endif

/* ------------------------------------------------------------------------ */
/* Versions                                                                  */
/* ------------------------------------------------------------------------ */

#define DAG_VERSION_MAJOR 1
#define DAG_VERSION_MINOR 0
#define DAG_VERSION_PATCH 0
/** MAJOR*10000 + MINOR*100 + PATCH, comparable with dag_version(). */
#define DAG_VERSION_NUMBER \
    (DAG_VERSION_MAJOR * 10000 + DAG_VERSION_MINOR * 100 + DAG_VERSION_PATCH)
#define DAG_VERSION_STRING "1.0.0"

/**
 * The version of the library loaded at run time, as DAG_VERSION_NUMBER
 * computes it. Compare with DAG_VERSION_NUMBER to detect a header/library
 * mismatch. Never fails; any thread.
 */
DAG_API unsigned dag_version(void);

/**
 * The run-time version as a static string ("1.0.0"). Never NULL, never freed.
 */
DAG_API const char *dag_version_string(void);

/* ------------------------------------------------------------------------ */
/* Status codes and errors                                                   */
/* ------------------------------------------------------------------------ */

/**
 * Result of every fallible function. The numeric values are part of the ABI
 * and never change; new codes are only ever appended.
 */
typedef enum dag_status {
    DAG_OK = 0,
    /** A required pointer argument (handle, out-parameter, callback) was NULL. */
    DAG_E_NULL_ARGUMENT = -1,
    /** An argument is out of range or malformed (wrong options size, empty name...). */
    DAG_E_INVALID_ARGUMENT = -2,
    /** Memory could not be allocated. The object is left as it was. */
    DAG_E_NOMEM = -3,
    /** A vertex id is 0, was never issued by this graph, or was removed. */
    DAG_E_UNKNOWN_VERTEX = -4,
    /** A lookup (by name, for example) found nothing. */
    DAG_E_NOT_FOUND = -5,
    /** A vertex name is already used by another vertex of the graph. */
    DAG_E_DUPLICATE_NAME = -6,
    /** A string argument is not valid UTF-8. */
    DAG_E_BAD_UTF8 = -7,
    /** The graph (or the change) has a cycle; the message lists it. */
    DAG_E_CYCLE = -8,
    /** The graph is being walked; it cannot be changed through dag_graph now. */
    DAG_E_BUSY = -9,
    /** The graph has no root (single-root validation). */
    DAG_E_NO_ROOT = -10,
    /** The graph has more than one root (single-root validation). */
    DAG_E_MULTIPLE_ROOTS = -11,
    /** Validation found several problems; the message lists each. */
    DAG_E_INVALID_GRAPH = -12,
    /** The call is not allowed in the current state (walk finished, vertex not pending...). */
    DAG_E_STATE = -13,
    /** A walk was cancelled. */
    DAG_E_CANCELLED = -14,
    /** Input text (JSON, DOT) could not be parsed; the message says where. */
    DAG_E_PARSE = -15,
    /** A file could not be read or written. */
    DAG_E_IO = -16,
    /** A bug inside libdag; please report the message. */
    DAG_E_INTERNAL = -17
} dag_status;

/**
 * A short static English description of a status ("unknown vertex"), for
 * every code above, and "unrecognised status" for anything else. Never NULL;
 * do not free. Any thread.
 */
DAG_API const char *dag_status_string(dag_status status);

/** An error returned through a `dag_error **err` out-parameter. */
typedef struct dag_error dag_error;

/** The status the error was returned with. DAG_E_NULL_ARGUMENT for NULL. */
DAG_API dag_status dag_error_status(const dag_error *err);

/**
 * The detailed message (UTF-8, NUL-terminated), naming the argument, vertex or
 * input position at fault. Owned by `err`: valid until dag_error_free(err).
 * Returns "" for NULL.
 */
DAG_API const char *dag_error_message(const dag_error *err);

/** Frees an error. NULL is allowed. */
DAG_API void dag_error_free(dag_error *err);

/* ------------------------------------------------------------------------ */
/* Owned results                                                             */
/* ------------------------------------------------------------------------ */

/** An owned, immutable array of uint64_t values (vertex ids, or id pairs). */
typedef struct dag_ids dag_ids;

/** Number of values in the array; 0 for NULL. */
DAG_API size_t dag_ids_count(const dag_ids *ids);

/**
 * Pointer to the first of dag_ids_count() values, owned by `ids` and valid
 * until dag_ids_free(ids). NULL when the array is empty or `ids` is NULL.
 */
DAG_API const uint64_t *dag_ids_data(const dag_ids *ids);

/** Frees an id array. NULL is allowed. */
DAG_API void dag_ids_free(dag_ids *ids);

/** Frees a string returned by libdag (dag_to_string...). NULL is allowed. */
DAG_API void dag_string_free(char *str);

/* ------------------------------------------------------------------------ */
/* Graphs                                                                    */
/* ------------------------------------------------------------------------ */

/** An opaque directed graph. Created by dag_new(), freed by dag_free(). */
typedef struct dag_graph dag_graph;

/** Never a valid vertex id. */
#define DAG_NO_VERTEX ((uint64_t)0)

/**
 * Creates an empty graph.
 *
 * @param out  receives the new graph, owned by the caller (free with dag_free()).
 * @return DAG_OK; DAG_E_NULL_ARGUMENT if `out` is NULL; DAG_E_NOMEM.
 */
DAG_API dag_status dag_new(dag_graph **out, dag_error **err);

/**
 * Frees a graph and everything it owns. User data pointers are not touched.
 * NULL is allowed. Must not be called while a walk of the graph runs.
 */
DAG_API void dag_free(dag_graph *g);

/**
 * Deep-copies a graph: same vertex ids, names, user data pointers (copied as
 * pointers) and edges. Later ids issued by the copy continue where the
 * original's stood, so ids never collide between the two.
 *
 * @param out  receives the copy, owned by the caller.
 * @return DAG_OK; DAG_E_NULL_ARGUMENT if `g` or `out` is NULL; DAG_E_NOMEM.
 */
DAG_API dag_status dag_clone(const dag_graph *g, dag_graph **out, dag_error **err);

/**
 * Adds a vertex.
 *
 * @param name       NULL for an unnamed vertex, or a non-empty UTF-8 string
 *                   unique in the graph; copied. Unnamed vertices print as
 *                   their decimal id.
 * @param user_data  any pointer, stored and returned as is; never dereferenced.
 * @param out_id     receives the new vertex id; may be NULL.
 * @return DAG_OK; DAG_E_NULL_ARGUMENT (g); DAG_E_INVALID_ARGUMENT (empty name);
 *         DAG_E_BAD_UTF8; DAG_E_DUPLICATE_NAME; DAG_E_BUSY (walk running);
 *         DAG_E_NOMEM. On failure the graph is unchanged.
 */
DAG_API dag_status dag_add_vertex(dag_graph *g, const char *name, void *user_data,
                                  uint64_t *out_id, dag_error **err);

/**
 * Removes a vertex and every edge touching it. Its id is never reused; its
 * name becomes free. Borrowed pointers to its name become invalid.
 *
 * @return DAG_OK; DAG_E_NULL_ARGUMENT; DAG_E_UNKNOWN_VERTEX; DAG_E_BUSY.
 */
DAG_API dag_status dag_remove_vertex(dag_graph *g, uint64_t id, dag_error **err);

/**
 * Terraform's Replace: `replacement` takes over every edge of `original`
 * (each dependency of original becomes a dependency of replacement, each
 * dependent of original depends on replacement instead), then `original` is
 * removed. An edge original->original becomes replacement->replacement.
 * Replacing a vertex with itself does nothing.
 *
 * @return DAG_OK; DAG_E_NULL_ARGUMENT; DAG_E_UNKNOWN_VERTEX (either id);
 *         DAG_E_BUSY; DAG_E_NOMEM (graph unchanged).
 */
DAG_API dag_status dag_replace_vertex(dag_graph *g, uint64_t original,
                                      uint64_t replacement, dag_error **err);

/** 1 if `id` is a live vertex of `g`, else 0 (also for NULL `g`). */
DAG_API int dag_has_vertex(const dag_graph *g, uint64_t id);

/** Number of live vertices; 0 for NULL. O(1). */
DAG_API size_t dag_vertex_count(const dag_graph *g);

/**
 * Looks a vertex up by name in O(1).
 *
 * @return DAG_OK; DAG_E_NULL_ARGUMENT (g, name, out_id); DAG_E_BAD_UTF8;
 *         DAG_E_NOT_FOUND when no vertex has that name.
 */
DAG_API dag_status dag_find_vertex(const dag_graph *g, const char *name,
                                   uint64_t *out_id, dag_error **err);

/**
 * The name of a vertex.
 *
 * @param out_name  receives the name, or NULL for an unnamed vertex. Borrowed:
 *                  valid until the vertex is removed or renamed, or `g` freed.
 * @return DAG_OK; DAG_E_NULL_ARGUMENT; DAG_E_UNKNOWN_VERTEX.
 */
DAG_API dag_status dag_vertex_name(const dag_graph *g, uint64_t id,
                                   const char **out_name, dag_error **err);

/**
 * Renames a vertex. NULL makes it unnamed. The old name becomes free and
 * borrowed pointers to it become invalid.
 *
 * @return DAG_OK; DAG_E_NULL_ARGUMENT (g); DAG_E_UNKNOWN_VERTEX;
 *         DAG_E_INVALID_ARGUMENT (empty name); DAG_E_BAD_UTF8;
 *         DAG_E_DUPLICATE_NAME (another vertex has it); DAG_E_BUSY; DAG_E_NOMEM.
 */
DAG_API dag_status dag_set_vertex_name(dag_graph *g, uint64_t id, const char *name,
                                       dag_error **err);

/**
 * The user data pointer stored with a vertex.
 *
 * @return DAG_OK; DAG_E_NULL_ARGUMENT (g, out); DAG_E_UNKNOWN_VERTEX.
 */
DAG_API dag_status dag_vertex_user_data(const dag_graph *g, uint64_t id, void **out,
                                        dag_error **err);

/**
 * Replaces the user data pointer stored with a vertex. Allowed during a walk
 * (it does not change the graph's shape), but then racing with readers of the
 * same vertex is the caller's business.
 *
 * @return DAG_OK; DAG_E_NULL_ARGUMENT; DAG_E_UNKNOWN_VERTEX.
 */
DAG_API dag_status dag_set_vertex_user_data(dag_graph *g, uint64_t id, void *user_data,
                                            dag_error **err);

/**
 * Adds the edge from -> to: `from` depends on `to`. Connecting an existing
 * edge again does nothing and returns DAG_OK. A self edge (from == to) is
 * stored; validation reports it. Cost: O(min(out-degree(from),
 * in-degree(to))) to detect the duplicate.
 *
 * @return DAG_OK; DAG_E_NULL_ARGUMENT; DAG_E_UNKNOWN_VERTEX (either id);
 *         DAG_E_BUSY; DAG_E_NOMEM (graph unchanged).
 */
DAG_API dag_status dag_connect(dag_graph *g, uint64_t from, uint64_t to, dag_error **err);

/**
 * Removes the edge from -> to. Removing an edge that does not exist does
 * nothing and returns DAG_OK (both vertices must exist).
 *
 * @return DAG_OK; DAG_E_NULL_ARGUMENT; DAG_E_UNKNOWN_VERTEX; DAG_E_BUSY.
 */
DAG_API dag_status dag_disconnect(dag_graph *g, uint64_t from, uint64_t to,
                                  dag_error **err);

/** 1 if the edge from -> to exists, else 0 (also for NULL `g` or unknown ids). */
DAG_API int dag_has_edge(const dag_graph *g, uint64_t from, uint64_t to);

/** Number of edges; 0 for NULL. O(1). */
DAG_API size_t dag_edge_count(const dag_graph *g);

/**
 * All live vertex ids, ascending.
 *
 * @param out  receives an owned array (free with dag_ids_free()).
 * @return DAG_OK; DAG_E_NULL_ARGUMENT; DAG_E_NOMEM.
 */
DAG_API dag_status dag_vertices(const dag_graph *g, dag_ids **out, dag_error **err);

/**
 * All edges as a flat array of pairs: from0, to0, from1, to1, ... sorted by
 * (from, to). dag_ids_count() is twice the number of edges.
 *
 * @return DAG_OK; DAG_E_NULL_ARGUMENT; DAG_E_NOMEM.
 */
DAG_API dag_status dag_edges(const dag_graph *g, dag_ids **out_pairs, dag_error **err);

/**
 * The direct dependencies of a vertex (targets of its out-edges, Terraform's
 * DownEdges), ascending by id.
 *
 * Example: with a->b and a->c, dependencies(a) = {b, c}, dependencies(b) = {}.
 *
 * @return DAG_OK; DAG_E_NULL_ARGUMENT; DAG_E_UNKNOWN_VERTEX; DAG_E_NOMEM.
 */
DAG_API dag_status dag_dependencies(const dag_graph *g, uint64_t id, dag_ids **out,
                                    dag_error **err);

/**
 * The direct dependents of a vertex (sources of its in-edges, Terraform's
 * UpEdges), ascending by id.
 *
 * Example: with a->b and c->b, dependents(b) = {a, c}, dependents(a) = {}.
 *
 * @return DAG_OK; DAG_E_NULL_ARGUMENT; DAG_E_UNKNOWN_VERTEX; DAG_E_NOMEM.
 */
DAG_API dag_status dag_dependents(const dag_graph *g, uint64_t id, dag_ids **out,
                                  dag_error **err);

/**
 * Terraform's Subsume: copies every vertex and edge of `other` into `g`.
 * A named vertex of `other` whose name already exists in `g` is the same
 * vertex (its edges are merged; `g`'s user data is kept); every other vertex
 * gets a new id in `g` and keeps its name and user data. `other` is not
 * changed. All or nothing: on failure `g` is unchanged.
 *
 * @return DAG_OK; DAG_E_NULL_ARGUMENT; DAG_E_INVALID_ARGUMENT (g == other);
 *         DAG_E_BUSY; DAG_E_NOMEM.
 */
DAG_API dag_status dag_subsume(dag_graph *g, const dag_graph *other, dag_error **err);

/**
 * Terraform's String(): every vertex on its own line, sorted by name (then
 * id), each followed by its dependencies sorted the same way, one per line
 * indented by two spaces. For vertices "1", "2", "3" and edge 1->3:
 * "1\n  3\n2\n3\n". The empty graph gives "".
 *
 * @param out  receives a NUL-terminated UTF-8 string; free with dag_string_free().
 * @return DAG_OK; DAG_E_NULL_ARGUMENT; DAG_E_NOMEM.
 */
DAG_API dag_status dag_to_string(const dag_graph *g, char **out, dag_error **err);

/* ------------------------------------------------------------------------ */
/* Function table for plugin hosts                                           */
/* ------------------------------------------------------------------------ */

/**
 * Every public function, for hosts that dlopen() libdag and look up one
 * symbol instead of each function. Fields are only ever appended: a host
 * compiled against an older header reads a prefix of a newer table; a host
 * compiled against a newer header must check `size` before using a field
 * (offsetof(dag_api_table, field) < size). Field names are the function
 * names without the `dag_` prefix.
 */
typedef struct dag_api_table {
    size_t size;      /**< sizeof(dag_api_table) as the library was built */
    unsigned version; /**< dag_version() */
    unsigned (*version_number)(void);
    const char *(*version_string)(void);
    const char *(*status_string)(dag_status status);
    dag_status (*error_status)(const dag_error *err);
    const char *(*error_message)(const dag_error *err);
    void (*error_free)(dag_error *err);
    size_t (*ids_count)(const dag_ids *ids);
    const uint64_t *(*ids_data)(const dag_ids *ids);
    void (*ids_free)(dag_ids *ids);
    void (*string_free)(char *str);
    dag_status (*new_graph)(dag_graph **out, dag_error **err);
    void (*free_graph)(dag_graph *g);
    dag_status (*clone)(const dag_graph *g, dag_graph **out, dag_error **err);
    dag_status (*add_vertex)(dag_graph *g, const char *name, void *user_data, uint64_t *out_id,
                             dag_error **err);
    dag_status (*remove_vertex)(dag_graph *g, uint64_t id, dag_error **err);
    dag_status (*replace_vertex)(dag_graph *g, uint64_t original, uint64_t replacement,
                                 dag_error **err);
    int (*has_vertex)(const dag_graph *g, uint64_t id);
    size_t (*vertex_count)(const dag_graph *g);
    dag_status (*find_vertex)(const dag_graph *g, const char *name, uint64_t *out_id,
                              dag_error **err);
    dag_status (*vertex_name)(const dag_graph *g, uint64_t id, const char **out_name,
                              dag_error **err);
    dag_status (*set_vertex_name)(dag_graph *g, uint64_t id, const char *name, dag_error **err);
    dag_status (*vertex_user_data)(const dag_graph *g, uint64_t id, void **out, dag_error **err);
    dag_status (*set_vertex_user_data)(dag_graph *g, uint64_t id, void *user_data,
                                       dag_error **err);
    dag_status (*connect)(dag_graph *g, uint64_t from, uint64_t to, dag_error **err);
    dag_status (*disconnect)(dag_graph *g, uint64_t from, uint64_t to, dag_error **err);
    int (*has_edge)(const dag_graph *g, uint64_t from, uint64_t to);
    size_t (*edge_count)(const dag_graph *g);
    dag_status (*vertices)(const dag_graph *g, dag_ids **out, dag_error **err);
    dag_status (*edges)(const dag_graph *g, dag_ids **out_pairs, dag_error **err);
    dag_status (*dependencies)(const dag_graph *g, uint64_t id, dag_ids **out, dag_error **err);
    dag_status (*dependents)(const dag_graph *g, uint64_t id, dag_ids **out, dag_error **err);
    dag_status (*subsume)(dag_graph *g, const dag_graph *other, dag_error **err);
    dag_status (*to_string)(const dag_graph *g, char **out, dag_error **err);
} dag_api_table;

/** The ABI major version dag_api() accepts today. */
#define DAG_API_ABI 1

/**
 * The function table for ABI major version `abi` (pass DAG_API_ABI), or NULL
 * when this library does not provide that ABI. The table is static: never
 * freed, valid as long as the library stays loaded. Any thread.
 *
 *     void *h = dlopen("libdag.so.1", RTLD_NOW);
 *     const dag_api_table *(*get)(unsigned) = ...dlsym(h, "dag_api");
 *     const dag_api_table *api = get(DAG_API_ABI);
 */
DAG_API const dag_api_table *dag_api(unsigned abi);

/* ------------------------------------------------------------------------ */
/* Algorithms                                                                */
/* ------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------ */
/* Walks                                                                     */
/* ------------------------------------------------------------------------ */

#ifdef __cplusplus
}
#endif

#endif /* DAG_DAG_H */

/**
 * @file dag/dag.h
 * @brief libdag: dependency graphs with Terraform's semantics, behind a stable C ABI.
 *
 * Conventions used by every function in this header
 * --------------------------------------------------
 * - Fallible functions return a dag_status: DAG_OK (0) on success, a negative
 *   code on failure. Codes are pinned forever; dag_status_string() names each.
 * - Every fallible function takes `dag_error **err` as its last parameter. When
 *   `err` is not NULL and the call fails, `*err` receives a newly allocated
 *   error object (status + message naming the problem) that the caller frees
 *   with dag_error_free(). Its message starts with the function's name
 *   ("dag_root: no roots found"), except when the error object itself cannot
 *   be allocated: then `*err` is a static error with status DAG_E_NOMEM and
 *   message "out of memory" (the return value still gives the failure's own
 *   status), and dag_error_free() on it does nothing. On success
 *   `*err` is set to NULL. Passing NULL for
 *   `err` is allowed: the status alone is returned. No thread-local state is
 *   used, so a message survives a goroutine moving between OS threads.
 * - Out-parameters are written only on success, unless a function says
 *   otherwise.
 * - Vertex ids are uint64_t, assigned by the graph, never reused within one
 *   graph. 0 is never a valid id (DAG_NO_VERTEX).
 * - Arrays come back as owned objects (dag_ids, `char *`) with their own free
 *   function. Borrowed pointers (vertex names) stay valid until the vertex is
 *   removed or renamed, or the graph is freed.
 * - Threads: functions taking `const dag_graph *` may run concurrently with
 *   each other on the same graph; a function taking `dag_graph *` needs
 *   exclusive access to that graph. Different graphs are independent.
 * - No function lets a C++ exception escape; allocation failure is reported as
 *   DAG_E_NOMEM. Free functions accept NULL and do nothing. One exception:
 *   a walk's pool threads schedule vertices between callbacks, with no call
 *   of yours to report to. A failure message they cannot copy is dropped
 *   (the vertex is still reported failed), but if memory runs out for their
 *   queues, the process ends (std::terminate). The same holds inside
 *   dag_walk_complete() and dag_walk_cancel() once they have taken a
 *   pending vertex to finish: stopping halfway through releasing its
 *   waiters would leave the walk unable to end. Before that point they
 *   return DAG_E_NOMEM with nothing changed. A second exception: the
 *   libraries the imports read with do not survive an allocation failure
 *   as libdag does. Out of memory inside Graphviz's cgraph (a DOT import)
 *   may crash or exit the process, and inside simdjson (a JSON import) may
 *   crash it. A third: dag_build()'s destroy-order, root and shared steps
 *   may leave the graph part changed (see there).
 * - Callbacks that unwind. Every function of yours that libdag calls (walk
 *   callbacks, the observer, the pool-thread hooks, traversal visitors,
 *   search predicates) should return normally. For C++ callers, an exception
 *   escaping one is caught by libdag, never reaches std::terminate and is
 *   never reported as DAG_E_INTERNAL: it fails that vertex or that call with
 *   DAG_E_CALLBACK (since 1.2), its message naming who threw, the
 *   exception's type and, for a std::exception, its what() (copied). Each
 *   callback type says exactly what follows. For C callers, leaving a
 *   callback with longjmp() (or any other non-local exit that skips
 *   libdag's frames: pthread_exit(), a foreign runtime's unwinding that is
 *   not C++'s) is not supported: the behaviour is undefined (locks stay
 *   held, a walk never finishes). Return a status instead: DAG_WALK_FAILED,
 *   DAG_VISIT_STOP, or record the error in user_data.
 * - Plugin hosts: the library is linked with -z nodelete, so dlclose() never
 *   unmaps it (see dag_api()).
 * - Size: the algorithms and walks work on a compact copy of the graph that
 *   numbers vertices and edges in 32 bits; on a graph of 2^32 - 2 vertices
 *   or edges or more they return DAG_E_INVALID_ARGUMENT.
 * - Edges: dag_connect(g, a, b) means "a depends on b": b's work happens before
 *   a's. The dependencies of a vertex are the targets of its out-edges; its
 *   dependents are the sources of its in-edges.
 * - Releases: each function, and each type, field and macro added after 1.0,
 *   says with `@since` which release added it (CHANGELOG.md lists them). A
 *   program that uses a newer one needs a library at least that new.
 */
#ifndef DAG_DAG_H
#define DAG_DAG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Marks a function libdag exports: default visibility (the library is built
 * with hidden visibility), or dllimport on Windows.
 */
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

/** The header's major version; a new one would change the soname. */
#define DAG_VERSION_MAJOR 1
/** The header's minor version: a release that adds to the API. */
#define DAG_VERSION_MINOR 3
/** The header's patch version: a release that only fixes. */
#define DAG_VERSION_PATCH 0
/** MAJOR*10000 + MINOR*100 + PATCH, comparable with dag_version(). */
#define DAG_VERSION_NUMBER \
    (DAG_VERSION_MAJOR * 10000 + DAG_VERSION_MINOR * 100 + DAG_VERSION_PATCH)
/** The header's version as "MAJOR.MINOR.PATCH", comparable with dag_version_string(). */
#define DAG_VERSION_STRING "1.3.0"

/**
 * The version of the library loaded at run time, as DAG_VERSION_NUMBER
 * computes it. Compare with DAG_VERSION_NUMBER to detect a header/library
 * mismatch. Never fails; any thread.
 *
 * @return MAJOR*10000 + MINOR*100 + PATCH of the loaded library.
 * @since 1.0
 */
DAG_API unsigned dag_version(void);

/**
 * The run-time version as a static string ("1.3.0"). Never NULL, never freed.
 *
 * @return "MAJOR.MINOR.PATCH" of the loaded library.
 * @since 1.0
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
    /** Success. */
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
    /**
     * The graph is being walked, or a traversal or search of it is running
     * (the visitor or predicate making the call, typically); it cannot be
     * changed through dag_graph now.
     */
    DAG_E_BUSY = -9,
    /** The graph has no root (single-root validation). */
    DAG_E_NO_ROOT = -10,
    /** The graph has more than one root (single-root validation). */
    DAG_E_MULTIPLE_ROOTS = -11,
    /** Not returned since 1.2 (validation reports a cycle as DAG_E_CYCLE whatever else is wrong); kept so the value stays pinned. */
    DAG_E_INVALID_GRAPH = -12,
    /** The call is not allowed in the current state (walk finished, vertex not pending...). */
    DAG_E_STATE = -13,
    /** A walk was cancelled, or a dag_search() callback aborted its search. */
    DAG_E_CANCELLED = -14,
    /** Input text (JSON, DOT) could not be parsed; the message says where. */
    DAG_E_PARSE = -15,
    /** A file could not be read or written. */
    DAG_E_IO = -16,
    /** A bug inside libdag; please report the message. */
    DAG_E_INTERNAL = -17,
    /** A walk ran to its end but at least one vertex failed; the report says which. */
    DAG_E_WALK_FAILED = -18,
    /**
     * A C++ exception escaped a function of yours that libdag called (a
     * walk callback, observer or thread hook, a traversal visitor, a search
     * predicate); the message says which and includes the exception's
     * what() when it is a std::exception. See "Callbacks that unwind".
     * @since 1.2
     */
    DAG_E_CALLBACK = -19,
    /**
     * A wait with a time limit (dag_walk_wait_for(), dag_walk_next_ready())
     * ended before what it waited for happened; nothing changed.
     * @since 1.2
     */
    DAG_E_TIMEOUT = -20
} dag_status;

/**
 * A short static English description of a status ("unknown vertex"), for
 * every code above, and "unrecognised status" for anything else. Never NULL;
 * do not free. Any thread.
 *
 * @param status  any value, a dag_status or not.
 * @return the description.
 * @since 1.0
 */
DAG_API const char *dag_status_string(dag_status status);

/** An error returned through a `dag_error **err` out-parameter. */
typedef struct dag_error dag_error;

/**
 * The status the error was returned with.
 *
 * @param err  the error; NULL allowed.
 * @return its status; DAG_E_NULL_ARGUMENT for NULL.
 * @since 1.0
 */
DAG_API dag_status dag_error_status(const dag_error *err);

/**
 * The detailed message (UTF-8, NUL-terminated), naming the argument, vertex or
 * input position at fault. A message a callback, step or host gave (a
 * vertex's failure, a build step's) keeps its bytes that are not UTF-8 as
 * the text \\xNN (since 1.3; they were copied as they were), as do the walk
 * report's messages.
 *
 * @param err  the error; NULL allowed.
 * @return the message, owned by `err`: valid until dag_error_free(err).
 *         "" for NULL.
 * @since 1.0
 */
DAG_API const char *dag_error_message(const dag_error *err);

/**
 * Frees an error.
 *
 * @param err  the error; NULL is allowed.
 * @since 1.0
 */
DAG_API void dag_error_free(dag_error *err);

/* ------------------------------------------------------------------------ */
/* Owned results                                                             */
/* ------------------------------------------------------------------------ */

/** An owned, immutable array of uint64_t values (vertex ids, or id pairs). */
typedef struct dag_ids dag_ids;

/**
 * Number of values in the array.
 *
 * @param ids  the array; NULL allowed.
 * @return the count; 0 for NULL.
 * @since 1.0
 */
DAG_API size_t dag_ids_count(const dag_ids *ids);

/**
 * The values of the array.
 *
 * @param ids  the array; NULL allowed.
 * @return pointer to the first of dag_ids_count() values, owned by `ids` and
 *         valid until dag_ids_free(ids). NULL when the array is empty or
 *         `ids` is NULL.
 * @since 1.0
 */
DAG_API const uint64_t *dag_ids_data(const dag_ids *ids);

/**
 * Frees an id array.
 *
 * @param ids  the array; NULL is allowed.
 * @since 1.0
 */
DAG_API void dag_ids_free(dag_ids *ids);

/**
 * Frees a string returned by libdag (dag_to_string...).
 *
 * @param str  the string; NULL is allowed.
 * @since 1.0
 */
DAG_API void dag_string_free(char *str);

/* ------------------------------------------------------------------------ */
/* Graphs                                                                    */
/* ------------------------------------------------------------------------ */

/** An opaque directed graph. Created by dag_new(), freed by dag_free(). */
typedef struct dag_graph dag_graph;

/** Never a valid vertex id. */
#define DAG_NO_VERTEX UINT64_C(0)

/**
 * Creates an empty graph.
 *
 * @param out  receives the new graph, owned by the caller (free with dag_free()).
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the graph is in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `out` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_new(dag_graph **out, dag_error **err);

/**
 * Frees a graph and everything it owns. User data pointers are not touched.
 * A walk of the graph whose handle is not freed yet keeps
 * using it: the graph is then freed with the last such dag_walk_free(), and
 * `g` must not be used after this call either way. Likewise, called from a
 * traversal's visitor, a search's callback or a predicate of `g` (since
 * 1.3), it frees the graph as that call returns.
 *
 * @param g  the graph; NULL is allowed.
 * @since 1.0
 */
DAG_API void dag_free(dag_graph *g);

/**
 * Deep-copies a graph: same vertex ids, names, user data pointers (copied as
 * pointers) and edges. The copy issues its next ids from where the original
 * stood (removed ids stay unused), so an id names the same vertex in both;
 * vertices added afterwards are numbered by each graph on its own, from
 * that same point.
 *
 * @param g    the graph to copy; read only.
 * @param out  receives the copy, owned by the caller.
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the copy is in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `g` or `out` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_clone(const dag_graph *g, dag_graph **out, dag_error **err);

/**
 * Adds a vertex. On failure the graph is unchanged.
 *
 * @param g          the graph.
 * @param name       NULL for an unnamed vertex, or a non-empty UTF-8 string
 *                   unique in the graph, at most 2^32 - 1 bytes; copied.
 *                   Unnamed vertices print as their decimal id.
 * @param user_data  any pointer, stored and returned as is; never dereferenced.
 * @param out_id     receives the new vertex id; may be NULL.
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the vertex was added.
 * @retval DAG_E_NULL_ARGUMENT     `g` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  `name` is empty, or longer than 2^32 - 1
 *                                 bytes (since 1.3; before, its length was
 *                                 kept modulo 2^32).
 * @retval DAG_E_BAD_UTF8          `name` is not valid UTF-8.
 * @retval DAG_E_DUPLICATE_NAME    another vertex has `name`.
 * @retval DAG_E_BUSY              a walk is running.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_add_vertex(dag_graph *g, const char *name, void *user_data,
                                  uint64_t *out_id, dag_error **err);

/**
 * Adds `count` vertices in one call, each as dag_add_vertex() would, all or
 * nothing: every name is checked first, and a duplicate (of an existing name
 * or of an earlier one in the batch) adds none of them. The new ids are
 * consecutive, in the order given. Faster than `count` calls to
 * dag_add_vertex() on a graph of many names, since the hash index's cache
 * misses of different names overlap (bench/README.md measures both), so
 * loaders should prefer it. On failure the graph is unchanged.
 *
 * @param g          the graph.
 * @param names      `count` names (each NULL for an unnamed vertex, or a
 *                   non-empty UTF-8 string, copied), or NULL: all unnamed.
 * @param user_data  `count` pointers stored as dag_add_vertex()'s, or NULL:
 *                   all NULL.
 * @param count      the number of vertices; 0 adds nothing.
 * @param out_ids    receives the `count` new ids; may be NULL.
 * @param err        NULL, or receives the error on failure (see dag_error);
 *                   its message starts with the position, "vertex 3: ...".
 * @retval DAG_OK                  the vertices were added.
 * @retval DAG_E_NULL_ARGUMENT     `g` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  a name is empty or longer than 2^32 - 1
 *                                 bytes, or `count` is larger than any
 *                                 array or than a graph can hold.
 * @retval DAG_E_BAD_UTF8          a name is not valid UTF-8.
 * @retval DAG_E_DUPLICATE_NAME    a name is taken, or given twice.
 * @retval DAG_E_BUSY              a walk is running.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.3
 */
DAG_API dag_status dag_add_vertices(dag_graph *g, const char *const *names, void *const *user_data,
                                    size_t count, uint64_t *out_ids, dag_error **err);

/**
 * Removes a vertex and every edge touching it. Its id is never reused; its
 * name becomes free. Borrowed pointers to its name become invalid.
 *
 * @param g    the graph.
 * @param id   the vertex.
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                the vertex was removed.
 * @retval DAG_E_NULL_ARGUMENT   `g` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  `id` is not a live vertex.
 * @retval DAG_E_BUSY            a walk is running.
 * @since 1.0
 */
DAG_API dag_status dag_remove_vertex(dag_graph *g, uint64_t id, dag_error **err);

/**
 * Terraform's Replace: `replacement` takes over every edge of `original`
 * (each dependency of original becomes a dependency of replacement, each
 * dependent of original depends on replacement instead), then `original` is
 * removed. Replacing a vertex with itself does nothing. Two differences
 * from Terraform's code: an edge original->original becomes
 * replacement->replacement (Terraform's drops it with the original), and
 * `replacement` must already be in the graph (Terraform's adds it).
 * On failure the graph is unchanged.
 *
 * @param g            the graph.
 * @param original     the vertex to replace.
 * @param replacement  the vertex that takes its edges.
 * @param err          NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                done.
 * @retval DAG_E_NULL_ARGUMENT   `g` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  either id is not a live vertex.
 * @retval DAG_E_BUSY            a walk is running.
 * @retval DAG_E_NOMEM           out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_replace_vertex(dag_graph *g, uint64_t original,
                                      uint64_t replacement, dag_error **err);

/**
 * Whether a vertex exists.
 *
 * @param g   the graph; NULL allowed.
 * @param id  any id.
 * @return 1 if `id` is a live vertex of `g`, else 0 (also for NULL `g`).
 * @since 1.0
 */
DAG_API int dag_has_vertex(const dag_graph *g, uint64_t id);

/**
 * Number of live vertices, in O(1).
 *
 * @param g  the graph; NULL allowed.
 * @return the count; 0 for NULL.
 * @since 1.0
 */
DAG_API size_t dag_vertex_count(const dag_graph *g);

/**
 * Looks a vertex up by name in O(1).
 *
 * @param g       the graph.
 * @param name    the name, UTF-8.
 * @param out_id  receives the vertex's id.
 * @param err     NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  found; the id is in `*out_id`.
 * @retval DAG_E_NULL_ARGUMENT     `g`, `name` or `out_id` is NULL.
 * @retval DAG_E_BAD_UTF8          `name` is not valid UTF-8.
 * @retval DAG_E_INVALID_ARGUMENT  `name` is empty or (since 1.3) longer
 *                                 than 2^32 - 1 bytes: no vertex can have it.
 * @retval DAG_E_NOT_FOUND         no vertex has that name.
 * @since 1.0
 */
DAG_API dag_status dag_find_vertex(const dag_graph *g, const char *name,
                                   uint64_t *out_id, dag_error **err);

/**
 * Looks many names up in one call: out_ids[i] receives the id of the vertex
 * named names[i], or 0 (never an id) when no vertex has that name. Faster than
 * `count` calls to dag_find_vertex() on a large graph: the hash index's cache
 * misses of different names overlap. Any thread, as dag_find_vertex().
 *
 * @param g        the graph.
 * @param names    `count` names, UTF-8, none NULL; may be NULL when count is 0.
 * @param count    the number of names.
 * @param out_ids  receives `count` ids; may be NULL when count is 0.
 * @param err      NULL, or receives the error on failure (see dag_error); its
 *                 message names the position, "names[3]". On failure the
 *                 contents of `out_ids` are unspecified.
 * @retval DAG_OK                  every name was looked up.
 * @retval DAG_E_NULL_ARGUMENT     `g`, `names`, a name or `out_ids` is NULL.
 * @retval DAG_E_BAD_UTF8          a name is not valid UTF-8.
 * @retval DAG_E_INVALID_ARGUMENT  a name is empty or longer than 2^32 - 1
 *                                 bytes (as dag_find_vertex()), or `count` is
 *                                 larger than any array.
 * @since 1.3
 */
DAG_API dag_status dag_find_vertices(const dag_graph *g, const char *const *names, size_t count,
                                     uint64_t *out_ids, dag_error **err);

/**
 * The name of a vertex.
 *
 * @param g         the graph.
 * @param id        the vertex.
 * @param out_name  receives the name, or NULL for an unnamed vertex. Borrowed:
 *                  valid until the vertex is removed or renamed, or `g` freed
 *                  (removed by a walk update: until `g` is freed).
 * @param err       NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                the name is in `*out_name`.
 * @retval DAG_E_NULL_ARGUMENT   `g` or `out_name` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  `id` is not a live vertex.
 * @since 1.0
 */
DAG_API dag_status dag_vertex_name(const dag_graph *g, uint64_t id,
                                   const char **out_name, dag_error **err);

/**
 * Renames a vertex. The old name becomes free and
 * borrowed pointers to it become invalid.
 *
 * @param g     the graph.
 * @param id    the vertex.
 * @param name  the new name (UTF-8, copied), or NULL to make it unnamed.
 * @param err   NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  renamed.
 * @retval DAG_E_NULL_ARGUMENT     `g` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX    `id` is not a live vertex.
 * @retval DAG_E_INVALID_ARGUMENT  `name` is empty, or longer than 2^32 - 1
 *                                 bytes (since 1.3).
 * @retval DAG_E_BAD_UTF8          `name` is not valid UTF-8.
 * @retval DAG_E_DUPLICATE_NAME    another vertex has it.
 * @retval DAG_E_BUSY              a walk is running.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_set_vertex_name(dag_graph *g, uint64_t id, const char *name,
                                       dag_error **err);

/**
 * The user data pointer stored with a vertex.
 *
 * @param g    the graph.
 * @param id   the vertex.
 * @param out  receives the pointer.
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                the pointer is in `*out`.
 * @retval DAG_E_NULL_ARGUMENT   `g` or `out` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  `id` is not a live vertex.
 * @since 1.0
 */
DAG_API dag_status dag_vertex_user_data(const dag_graph *g, uint64_t id, void **out,
                                        dag_error **err);

/**
 * Replaces the user data pointer stored with a vertex. Allowed during a walk
 * (it does not change the graph's shape), but then racing with readers of the
 * same vertex is the caller's business.
 *
 * @param g          the graph.
 * @param id         the vertex.
 * @param user_data  any pointer, stored as is.
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                stored.
 * @retval DAG_E_NULL_ARGUMENT   `g` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  `id` is not a live vertex.
 * @since 1.0
 */
DAG_API dag_status dag_set_vertex_user_data(dag_graph *g, uint64_t id, void *user_data,
                                            dag_error **err);

/**
 * Adds the edge from -> to: `from` depends on `to`. Connecting an existing
 * edge again does nothing and returns DAG_OK. A self edge (from == to) is
 * stored; validation reports it. Cost: O(min(out-degree(from),
 * in-degree(to))) to detect the duplicate. On failure the graph is unchanged.
 *
 * @param g     the graph.
 * @param from  the dependent vertex.
 * @param to    its dependency.
 * @param err   NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                the edge exists.
 * @retval DAG_E_NULL_ARGUMENT   `g` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  either id is not a live vertex.
 * @retval DAG_E_BUSY            a walk is running.
 * @retval DAG_E_NOMEM           out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_connect(dag_graph *g, uint64_t from, uint64_t to, dag_error **err);

/**
 * Adds many edges in one call: pairs[2*i] -> pairs[2*i + 1] for each
 * i < count, with dag_connect()'s meaning (existing edges and repeats in the
 * batch are no-ops; self edges are stored). Every id is checked before
 * anything changes, and the batch is all or nothing. Faster than count calls
 * to dag_connect() (lists are sized once and memory is fetched ahead), so
 * loaders should prefer it; bench/README.md measures both. On failure the
 * graph is unchanged.
 *
 * @param g      the graph.
 * @param pairs  2 * count vertex ids; may be NULL when count is 0.
 * @param count  the number of edges (pairs).
 * @param err    NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  every edge exists.
 * @retval DAG_E_NULL_ARGUMENT     `g` is NULL, or `pairs` with count > 0.
 * @retval DAG_E_INVALID_ARGUMENT  count is larger than any array of pairs can be.
 * @retval DAG_E_UNKNOWN_VERTEX    an id is not live (the message gives the edge's index).
 * @retval DAG_E_BUSY              a walk is running.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_connect_many(dag_graph *g, const uint64_t *pairs, size_t count,
                                    dag_error **err);

/**
 * Removes the edge from -> to. Removing an edge that does not exist does
 * nothing and returns DAG_OK (both vertices must exist).
 *
 * @param g     the graph.
 * @param from  the dependent vertex.
 * @param to    its dependency.
 * @param err   NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                the edge does not exist (any more).
 * @retval DAG_E_NULL_ARGUMENT   `g` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  either id is not a live vertex.
 * @retval DAG_E_BUSY            a walk is running.
 * @since 1.0
 */
DAG_API dag_status dag_disconnect(dag_graph *g, uint64_t from, uint64_t to,
                                  dag_error **err);

/**
 * Whether an edge exists.
 *
 * @param g     the graph; NULL allowed.
 * @param from  the dependent vertex.
 * @param to    its dependency.
 * @return 1 if the edge from -> to exists, else 0 (also for NULL `g` or unknown ids).
 * @since 1.0
 */
DAG_API int dag_has_edge(const dag_graph *g, uint64_t from, uint64_t to);

/**
 * Number of edges, in O(1).
 *
 * @param g  the graph; NULL allowed.
 * @return the count; 0 for NULL.
 * @since 1.0
 */
DAG_API size_t dag_edge_count(const dag_graph *g);

/**
 * All live vertex ids, ascending.
 *
 * @param g    the graph.
 * @param out  receives an owned array (free with dag_ids_free()).
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the ids are in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `g` or `out` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_vertices(const dag_graph *g, dag_ids **out, dag_error **err);

/**
 * All edges as a flat array of pairs: from0, to0, from1, to1, ... sorted by
 * (from, to).
 *
 * @param g          the graph.
 * @param out_pairs  receives an owned array (free with dag_ids_free());
 *                   dag_ids_count() is twice the number of edges.
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the pairs are in `*out_pairs`.
 * @retval DAG_E_NULL_ARGUMENT  `g` or `out_pairs` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_edges(const dag_graph *g, dag_ids **out_pairs, dag_error **err);

/**
 * The direct dependencies of a vertex (targets of its out-edges, Terraform's
 * DownEdges), ascending by id.
 *
 * Example: with a->b and a->c, dependencies(a) = {b, c}, dependencies(b) = {}.
 *
 * @param g    the graph.
 * @param id   the vertex.
 * @param out  receives an owned array (free with dag_ids_free()).
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                the ids are in `*out`.
 * @retval DAG_E_NULL_ARGUMENT   `g` or `out` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  `id` is not a live vertex.
 * @retval DAG_E_NOMEM           out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_dependencies(const dag_graph *g, uint64_t id, dag_ids **out,
                                    dag_error **err);

/**
 * The direct dependents of a vertex (sources of its in-edges, Terraform's
 * UpEdges), ascending by id.
 *
 * Example: with a->b and c->b, dependents(b) = {a, c}, dependents(a) = {}.
 *
 * @param g    the graph.
 * @param id   the vertex.
 * @param out  receives an owned array (free with dag_ids_free()).
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                the ids are in `*out`.
 * @retval DAG_E_NULL_ARGUMENT   `g` or `out` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  `id` is not a live vertex.
 * @retval DAG_E_NOMEM           out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_dependents(const dag_graph *g, uint64_t id, dag_ids **out,
                                  dag_error **err);

/* ---- Roots, leaves and degrees (1.2) ---------------------------------- */

/*
 * Counted along the edges as dag_connect() makes them (a -> b: a depends on
 * b). With a -> b and a -> c:
 *
 *   dag_roots      = {a}     nothing depends on a
 *   dag_leaves     = {b, c}  b and c depend on nothing
 *   dag_dependency_count(a) = 2, dag_dependent_count(a) = 0
 *   dag_dependency_count(b) = 0, dag_dependent_count(b) = 1
 *
 * An edge v -> v counts as a dependency and as a dependent of v, so a vertex
 * with one is neither a root nor a leaf; a vertex with no edges is both.
 * Read-only: any thread, as the other `const dag_graph *` functions.
 */

/**
 * Every vertex nothing depends on (no dependents, no in-edges), ascending by
 * id: the candidates of dag_root(), which succeeds exactly when there is one.
 * O(number of ids issued), removed vertices included.
 *
 * @param g    the graph.
 * @param out  receives the ids (free with dag_ids_free()); an empty array
 *             for an empty graph.
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the ids are in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `g` or `out` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.2
 */
DAG_API dag_status dag_roots(const dag_graph *g, dag_ids **out, dag_error **err);

/**
 * Every vertex that depends on nothing (no dependencies, no out-edges),
 * ascending by id: what a walk may start with. Cost as dag_roots().
 *
 * @param g    the graph.
 * @param out  receives the ids (free with dag_ids_free()).
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the ids are in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `g` or `out` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.2
 */
DAG_API dag_status dag_leaves(const dag_graph *g, dag_ids **out, dag_error **err);

/**
 * How many vertices `id` depends on directly: its out-degree, the size of
 * dag_dependencies(). O(1).
 *
 * @param g          the graph.
 * @param id         the vertex.
 * @param out_count  receives the count.
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                the count is in `*out_count`.
 * @retval DAG_E_NULL_ARGUMENT   `g` or `out_count` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  `id` is not a vertex of `g`.
 * @since 1.2
 */
DAG_API dag_status dag_dependency_count(const dag_graph *g, uint64_t id, size_t *out_count,
                                        dag_error **err);

/**
 * How many vertices depend on `id` directly: its in-degree, the size of
 * dag_dependents(). O(1).
 *
 * @param g          the graph.
 * @param id         the vertex.
 * @param out_count  receives the count.
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                the count is in `*out_count`.
 * @retval DAG_E_NULL_ARGUMENT   `g` or `out_count` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  `id` is not a vertex of `g`.
 * @since 1.2
 */
DAG_API dag_status dag_dependent_count(const dag_graph *g, uint64_t id, size_t *out_count,
                                       dag_error **err);

/**
 * Terraform's Subsume: copies every vertex and edge of `other` into `g`.
 * A named vertex of `other` whose name already exists in `g` is the same
 * vertex (its edges are merged; `g`'s user data is kept); every other vertex
 * gets a new id in `g` and keeps its name and user data. `other` is not
 * changed. All or nothing: on failure `g` is unchanged.
 *
 * @param g      the graph that receives the copy.
 * @param other  the graph copied from; read only.
 * @param err    NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  done.
 * @retval DAG_E_NULL_ARGUMENT     `g` or `other` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  `g` == `other`.
 * @retval DAG_E_BUSY              a walk of `g` is running.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_subsume(dag_graph *g, const dag_graph *other, dag_error **err);

/**
 * Terraform's String(): every vertex on its own line, sorted by name (then
 * id), each followed by its dependencies sorted the same way, one per line
 * indented by two spaces. For vertices "1", "2", "3" and edge 1->3:
 * `"1\n  3\n2\n3\n"`. The empty graph gives "".
 *
 * @param g    the graph.
 * @param out  receives a NUL-terminated UTF-8 string; free with dag_string_free().
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the text is in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `g` or `out` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_to_string(const dag_graph *g, char **out, dag_error **err);

/* ------------------------------------------------------------------------ */
/* Text formats: export and import                                           */
/* ------------------------------------------------------------------------ */

/**
 * The text forms a graph can be written in (dag_export_graph) and read from
 * (dag_import_graph). The values are part of the ABI.
 * @since 1.1
 */
typedef enum dag_format {
    /**
     * Import only: JSON when the text's first character after any
     * byte-order mark and white space is '{', DOT otherwise.
     */
    DAG_FORMAT_AUTO = 0,
    /** Terraform's String() layout, as dag_to_string(). Export only. */
    DAG_FORMAT_TEXT = 1,
    /**
     * Graphviz DOT in the layout `terraform graph` prints:
     *
     *     digraph {
     *         compound = "true"
     *         newrank = "true"
     *         subgraph "root" {
     *             "a"
     *             "b"
     *             "a" -> "b"
     *         }
     *     }
     *
     * (indented with tabs). Every vertex gets a node statement, sorted by name
     * then id, then every edge "a" -> "b" (a depends on b), sorted as
     * `terraform graph` sorts them: by the line's text, where the quote that
     * ends a name and the escape of a quote in one count ("a (expand)" -> "x"
     * before "a" -> "x"; since 1.3, before which edges were sorted by their
     * ends' names). Edges on a cycle, self references included, get
     * [color = "red", penwidth = "2.0"], the attributes of Terraform's
     * -draw-cycles; Terraform instead draws red edges from each vertex of a
     * cycle to the next in the order its search met them, which for a simple
     * cycle run against the real edges, and leaves self references black.
     * A vertex is written by its name; an unnamed one by its decimal id. A
     * graph DOT cannot carry exactly is refused rather than written changed:
     * a name Graphviz would read back differently (an odd run of backslashes
     * before a quote, a line break or the name's end; a line break between
     * quotes or backslashes; a name that begins with %, which Graphviz takes
     * for a name local to the text and renames), or an unnamed vertex whose id
     * is another vertex's name. JSON carries both.
     *
     * On import, every node of a digraph becomes a vertex named by its node
     * ID (an ID that begins with % is refused: Graphviz does not keep it, and
     * names the node % and a number of its own), whatever subgraph or cluster
     * declares it, and every edge a dependency of its tail on its head
     * (`terraform graph`'s direction).
     * Attributes, ports, labels and subgraph structure are read and ignored;
     * edge chains (a -> b -> c) and groups (a -> {b c}) give every edge they
     * stand for; a repeated edge is one edge. The parser is Graphviz's own
     * (cgraph), so whatever Graphviz reads is read, but for text after the
     * graph that Graphviz leaves unread: a bare `@` there, or a comment left
     * open, is refused. A text that ends inside a quoted ID, an HTML ID or a
     * comment is refused naming the line where it began (since 1.3; before,
     * a line past the text's end). Input may be UTF-8 (with
     * or without a byte-order mark) or UTF-16 with a byte-order mark (what
     * PowerShell's `terraform graph > file` writes); a graph with
     * `charset=latin1` (or "ISO-8859-1") has its node IDs converted from
     * Latin-1 (unless the text had a byte-order mark). Graphviz's warnings (a
     * "badly delimited number" such as 1a, which it splits in two) are
     * refused as errors: libdag does not guess. Graphviz's parser is one
     * global object: while an import runs, libdag swaps in its own error
     * handler (and restores the previous one, and its error level, before
     * returning), so a host that uses Graphviz's cgraph itself on another
     * thread at that moment must not rely on its own handler; agerrors() may
     * be left raised after a failed import.
     */
    DAG_FORMAT_DOT = 2,
    /**
     * A Mermaid `flowchart TD`, each vertex as node vN (N its id) labelled
     * with its name, an arrow from each vertex to each of its dependencies,
     * cycle edges styled red. In labels every ASCII character but letters,
     * digits, space and `_-./,()[]+` is written as a Mermaid entity code
     * (`#NN;`), as are U+2028 and U+2029, U+FB02 and U+00B6 (since 1.3:
     * Mermaid turns its own placeholders for & and ; back into them in its
     * output, a name's included) and the "d" of "direction" (a Mermaid
     * keyword matched anywhere on a line); a line break is written
     * `<br/>`. Mermaid itself trims whitespace at either end of a label,
     * reads labels as Markdown in its 11.x releases before its fix of that
     * (`1. setup` as a list), and by default refuses a diagram of more
     * than 50,000 characters (and, from 11, more than 500 edges). Export
     * only.
     */
    DAG_FORMAT_MERMAID = 3,
    /**
     * libdag's own form, which round-trips exactly (export then import gives
     * the same ids, names and edges; user data is not written):
     *
     *     {"format": "libdag", "version": 1, "next_id": 5,
     *      "vertices": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3}],
     *      "edges": [[1, 2]]}
     *
     * Vertices are listed by ascending id, an unnamed vertex without "name";
     * each edge is [from, to] (from depends on to), sorted; "next_id" is the
     * id the graph would issue next (ids of removed vertices are never issued
     * again). On import "format" and "version" may be left out, but when
     * given must be "libdag" and 1; "edges" may be left out; "next_id" may be
     * left out (then it is the largest id plus one) and must be above every
     * listed id; other keys are ignored (though read as JSON: a number
     * beyond a double's range is refused wherever it is, with its line and
     * column). Ids must be positive, distinct
     * integers below 2^32 - 1; the imported graph issues exactly those ids
     * (the gaps count as removed vertices) and then continues at "next_id".
     * An id larger than 16 times the number of vertices plus 2^20
     * (1,048,576), or a "next_id" more than one above that, is refused
     * (the largest id allowed may be the last issued), so that a small
     * file cannot make the import allocate without bound (each gap costs
     * about 72 bytes, as a removed vertex does). The round trip is exact for every graph that has
     * issued at most that many ids; one that has issued more (over a million
     * removed beyond 16 per vertex it holds) exports JSON that import refuses
     * (since 1.3; before, the bound was 65536 ids beyond 16 per vertex). A
     * name holding a NUL character is refused (no C string can carry it).
     */
    DAG_FORMAT_JSON = 4
} dag_format;

/**
 * Writes the graph in `format` (TEXT, DOT, MERMAID or JSON; see dag_format).
 * Output is deterministic: the same graph gives the same bytes. Reads the
 * graph only.
 *
 * @param g       the graph.
 * @param format  DAG_FORMAT_TEXT, DAG_FORMAT_DOT, DAG_FORMAT_MERMAID or
 *                DAG_FORMAT_JSON.
 * @param out     receives a NUL-terminated UTF-8 string; free with
 *                dag_string_free().
 * @param err     NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the text is in `*out`.
 * @retval DAG_E_NULL_ARGUMENT     `g` or `out` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  `format` is AUTO or not a dag_format; DOT
 *         and a graph DOT cannot carry exactly, see dag_format (the message
 *         names the vertex).
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.1
 */
DAG_API dag_status dag_export_graph(const dag_graph *g, dag_format format, char **out,
                                    dag_error **err);

/**
 * Reads a graph from `size` bytes of text in `format` (DOT, JSON or AUTO;
 * see dag_format) into a new graph. The text need not be NUL-terminated and
 * may not hold a NUL byte. Nothing is kept of the text. Any thread; imports
 * on different threads are serialised inside libdag where Graphviz's parser
 * needs it.
 *
 * @param format  DAG_FORMAT_DOT, DAG_FORMAT_JSON or DAG_FORMAT_AUTO.
 * @param data    the text; may be NULL when `size` is 0.
 * @param size    its length in bytes.
 * @param out     receives the new graph, freed with dag_free().
 * @param err     NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the graph is in `*out`.
 * @retval DAG_E_NULL_ARGUMENT     `out` is NULL; `data` is NULL when size > 0.
 * @retval DAG_E_INVALID_ARGUMENT  `format` is TEXT, MERMAID or not a
 *         dag_format; size above PTRDIFF_MAX; JSON: an empty name.
 * @retval DAG_E_PARSE             malformed text, a Graphviz warning, an
 *         undirected DOT graph, a second graph after the first, a NUL byte
 *         (the message says when the text looks like UTF-16 without a
 *         byte-order mark, since 1.3), a bad UTF-16 sequence, UTF-32 (since 1.3; before, told as a NUL
 *         byte), a DOT node ID that is empty or begins with
 *         %; JSON of the wrong shape, an id that is not a
 *         positive integer below 2^32 - 1, a repeated or too large id or
 *         next_id, an edge naming an id not listed, a name with a NUL
 *         character, a key it reads given twice in one object (since 1.3;
 *         before, the last one was kept). The message says where: DOT's
 *         line (since 1.3 also for a second graph and for a node ID refused);
 *         for JSON, the line and column of a syntax error or a number out of
 *         range, and the place in the document of the rest ("vertices[3].id",
 *         "vertices[3]: key \"name\" is given twice", "edges[0]").
 * @retval DAG_E_BAD_UTF8          DOT: a node ID that is not valid UTF-8 in a
 *         graph not declared Latin-1; the message names it and its line
 *         (JSON reports bad UTF-8 as DAG_E_PARSE).
 * @retval DAG_E_DUPLICATE_NAME    JSON: two vertices with one name.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.1
 */
DAG_API dag_status dag_import_graph(dag_format format, const char *data, size_t size, dag_graph **out,
                              dag_error **err);

/**
 * As dag_import_graph(), reading the file at `path` ("-" is not special). AUTO
 * looks at the file's content, not its name.
 *
 * @param format  DAG_FORMAT_DOT, DAG_FORMAT_JSON or DAG_FORMAT_AUTO.
 * @param path    the file's path.
 * @param out     receives the new graph, freed with dag_free().
 * @param err     NULL, or receives the error on failure (see dag_error).
 * @return as dag_import_graph(), and:
 * @retval DAG_OK               the graph is in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `path` is NULL (or `out`).
 * @retval DAG_E_IO             the file cannot be opened or read; the message
 *         has the path and the system's reason.
 * @since 1.1
 */
DAG_API dag_status dag_import_graph_file(dag_format format, const char *path, dag_graph **out,
                                   dag_error **err);

/**
 * The name of a format. Any thread.
 *
 * @param format  any value, a dag_format or not.
 * @return a short static name ("dot"), or "unknown".
 * @since 1.1
 */
DAG_API const char *dag_format_name(dag_format format);

/* ------------------------------------------------------------------------ */
/* Algorithms                                                                */
/* ------------------------------------------------------------------------ */

/*
 * Terraform's internal/dag algorithms. Every function here reads the graph
 * only (const dag_graph *) except dag_transitive_reduction(), so the read-only
 * ones may run concurrently on one graph; none may run while another thread
 * changes that graph. Results never depend on hash order: where several
 * answers would be valid, ties are broken by name, then by id, where an
 * unnamed vertex counts as having the empty name (so unnamed vertices come
 * first, by ascending id, then named ones, bytewise by name).
 *
 * Names as in Terraform, which mislead; with a -> b -> c (a depends on b,
 * b depends on c):
 *   ancestors(a)   = {b, c}     everything a depends on, transitively
 *   descendants(c) = {a, b}     everything that depends on c
 *   root           = a          the vertex nothing depends on
 *   topological order          a, b, c   (dependents first)
 *   reverse topological order  c, b, a   (execution order)
 */

/**
 * The single vertex nothing depends on (no dependents), Terraform's Root().
 * As with every error, the message in *err starts with the function's name:
 * "dag_root: no roots found".
 *
 * @param g         the graph.
 * @param out_root  receives its id.
 * @param err       NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                the root is in `*out_root`.
 * @retval DAG_E_NULL_ARGUMENT   `g` or `out_root` is NULL.
 * @retval DAG_E_NO_ROOT         "no roots found", also for an empty graph.
 * @retval DAG_E_MULTIPLE_ROOTS  "multiple roots: " and the root names joined
 *         with ", ", sorted bytewise as printed, an unnamed vertex as its
 *         decimal id.
 * @retval DAG_E_NOMEM           out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_root(const dag_graph *g, uint64_t *out_root, dag_error **err);

/**
 * Options for dag_validate(). Initialise with dag_validate_options_init() or
 * DAG_VALIDATE_OPTIONS_INIT. It grows as dag_walk_options does: every size
 * from the 1.0 layout on is accepted, a larger one when the bytes this
 * library does not know are zero.
 */
typedef struct dag_validate_options {
    /**
     * sizeof(dag_validate_options) as the caller was built, set by
     * dag_validate_options_init(). Where `single_root` is followed by
     * padding (64-bit systems: 4 bytes), a later release adds its fields
     * past that padding, never in it, so that its larger size tells this
     * library of them.
     */
    size_t size;
    /**
     * Nonzero (the default): exactly one vertex must have no dependents, as
     * in Terraform's Validate(). Zero: any number of roots is fine, as in
     * newer Terraform, which dropped the rule.
     */
    int single_root;
} dag_validate_options;

/**
 * The defaults of dag_validate_options_init(), for static initialisation.
 * @since 1.2
 */
#define DAG_VALIDATE_OPTIONS_INIT { sizeof(dag_validate_options), 1 }

/**
 * Fills the first `size` bytes of `opts` with the defaults. Pass
 * sizeof(dag_validate_options): any size from the 1.0 layout on is
 * accepted, bytes past this library's layout are zeroed.
 *
 * @param opts  the caller's struct, `size` bytes.
 * @param size  sizeof(dag_validate_options) as the caller was built.
 * @param err   NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  `*opts` holds the defaults.
 * @retval DAG_E_NULL_ARGUMENT     `opts` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  `size` is smaller than the 1.0 layout, or
 *         above 4096 (since 1.3).
 * @since 1.0
 */
DAG_API dag_status dag_validate_options_init(dag_validate_options *opts, size_t size,
                                             dag_error **err);

/**
 * An owned validation result: every problem found, as messages and as data.
 * Created by dag_validate(), freed by dag_validation_free(). Immutable, so
 * any thread may read it; it does not refer to the graph.
 */
typedef struct dag_validation dag_validation;

/**
 * Validates a graph and reports every problem at once (Terraform stops at a
 * root problem), in Terraform 1.16's wording but where noted, one message
 * per problem, in this order:
 *   - with the single-root rule, "no roots found" or "multiple roots: a, b"
 *     (sorted bytewise as printed; Terraform prints the roots as a Go
 *     value, `[]dag.Vertex{...}`, which says nothing to a reader);
 *   - each cycle (strongly connected component of more than one vertex):
 *     "Cycle:" then one vertex name a line, indented by two spaces, starting
 *     at the shortest name as printed (an unnamed vertex's decimal id; ties:
 *     bytewise smallest, then smallest id) and
 *     following dependencies from there, so in a simple cycle each line
 *     depends on the next: a->b, b->c, c->a gives `"Cycle:\n  a\n  b\n  c"`.
 *     In a larger tangle each vertex is a dependency of some vertex listed
 *     before it. Cycles are ordered by their first vertex, shortest first
 *     (Terraform prints them as Tarjan's search finds them: a cycle that
 *     another depends on first, the rest in its vertex map's order, which
 *     varies between runs);
 *   - each self reference (edge v->v): "Self reference: v", sorted bytewise
 *     as printed, then by id.
 *
 * Unnamed vertices print as their decimal id. dag_validation_text() is the
 * messages joined with `"\n"`; the error message in *err is the same text
 * after the function's name (`"dag_validate: no roots found\nCycle:..."`).
 *
 * @param g     the graph.
 * @param opts  NULL for the defaults, or options from dag_validate_options_init().
 * @param out   NULL, or receives the result (free with dag_validation_free()),
 *              both when the graph is valid and when it has problems (unlike
 *              other functions, *out is written for DAG_E_CYCLE,
 *              DAG_E_NO_ROOT and DAG_E_MULTIPLE_ROOTS; before 1.2, for
 *              DAG_E_INVALID_GRAPH too).
 * @param err   NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  a valid graph.
 * @retval DAG_E_CYCLE             there is a cycle or a self reference,
 *         whatever else is wrong (since 1.2: before, a cycle that also broke
 *         the root rule, such as a plain 3-cycle, gave DAG_E_INVALID_GRAPH).
 * @retval DAG_E_NO_ROOT           the root rule is the only problem: no root.
 * @retval DAG_E_MULTIPLE_ROOTS    the root rule is the only problem: several roots.
 * @retval DAG_E_NULL_ARGUMENT     `g` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  opts->size below the 1.0 layout, or above
 *         this library's with a non-zero byte it does not know, or above
 *         4096 (since 1.3).
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_validate(const dag_graph *g, const dag_validate_options *opts,
                                dag_validation **out, dag_error **err);

/**
 * The status dag_validate() returned with a result.
 *
 * @param v  the result; NULL allowed.
 * @return that status; DAG_E_NULL_ARGUMENT for NULL.
 * @since 1.0
 */
DAG_API dag_status dag_validation_status(const dag_validation *v);

/**
 * All messages joined with `"\n"`.
 *
 * @param v  the result; NULL allowed.
 * @return the text, owned by `v`; "" for a valid graph or NULL.
 * @since 1.0
 */
DAG_API const char *dag_validation_text(const dag_validation *v);

/**
 * Number of messages (problems).
 *
 * @param v  the result; NULL allowed.
 * @return the count; 0 for NULL.
 * @since 1.0
 */
DAG_API size_t dag_validation_message_count(const dag_validation *v);

/**
 * One message.
 *
 * @param v      the result; NULL allowed.
 * @param index  below dag_validation_message_count().
 * @return message `index`, owned by `v`; NULL when `index` is out of range or `v` NULL.
 * @since 1.0
 */
DAG_API const char *dag_validation_message(const dag_validation *v, size_t index);

/**
 * Number of cycles found.
 *
 * @param v  the result; NULL allowed.
 * @return the count; 0 for NULL.
 * @since 1.0
 */
DAG_API size_t dag_validation_cycle_count(const dag_validation *v);

/**
 * The vertex ids of one cycle, in the order its message lists them.
 *
 * @param v          the result; NULL allowed.
 * @param index      below dag_validation_cycle_count().
 * @param out_count  NULL, or receives the number of ids (0 when the result is NULL).
 * @return the ids, owned by `v`. NULL (and *out_count = 0) when `index` is
 *         out of range or `v` is NULL.
 * @since 1.0
 */
DAG_API const uint64_t *dag_validation_cycle(const dag_validation *v, size_t index,
                                             size_t *out_count);

/**
 * The vertices with an edge to themselves, in the order of their messages
 * (bytewise by printed name, then id).
 *
 * @param v          the result; NULL allowed.
 * @param out_count  NULL, or receives the number of ids.
 * @return the ids, owned by `v`; NULL (and *out_count = 0) when there are none.
 * @since 1.0
 */
DAG_API const uint64_t *dag_validation_self_references(const dag_validation *v,
                                                       size_t *out_count);

/**
 * Frees a validation result.
 *
 * @param v  the result; NULL is allowed.
 * @since 1.0
 */
DAG_API void dag_validation_free(dag_validation *v);

/** An owned, immutable list of id lists (components, cycles). */
typedef struct dag_id_lists dag_id_lists;

/**
 * Number of lists.
 *
 * @param lists  the lists; NULL allowed.
 * @return the count; 0 for NULL.
 * @since 1.0
 */
DAG_API size_t dag_id_lists_count(const dag_id_lists *lists);

/**
 * One list.
 *
 * @param lists      the lists; NULL allowed.
 * @param index      below dag_id_lists_count().
 * @param out_count  NULL, or receives the number of ids in list `index`.
 * @return list `index`: its ids, owned by `lists` and valid until
 *         dag_id_lists_free(lists). NULL (and *out_count = 0) when `index` is
 *         out of range or `lists` is NULL.
 * @since 1.0
 */
DAG_API const uint64_t *dag_id_lists_get(const dag_id_lists *lists, size_t index,
                                         size_t *out_count);

/**
 * Frees a list of id lists.
 *
 * @param lists  the lists; NULL is allowed.
 * @since 1.0
 */
DAG_API void dag_id_lists_free(dag_id_lists *lists);

/**
 * Strongly connected components (Tarjan, iterative: a ring of millions of
 * vertices is fine). Every live vertex is in exactly one component; a vertex
 * on no cycle is a component of its own. Components come after every
 * component they depend on; within one, ids are in Tarjan's pop order.
 * Deterministic (roots tried in ascending id order). O(V + E).
 *
 * Example: with a->b, b->a, b->c (ids in that order) the components are {c}
 * then {b, a}.
 *
 * @param g    the graph.
 * @param out  receives the components (free with dag_id_lists_free()).
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the components are in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `g` or `out` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_strongly_connected(const dag_graph *g, dag_id_lists **out,
                                          dag_error **err);

/**
 * Every cycle: the components of more than one vertex, each ordered and
 * the list sorted exactly as dag_validate() reports them. Self references
 * are not cycles here (see dag_validate()). An acyclic graph gives an empty
 * list.
 *
 * @param g    the graph.
 * @param out  receives the cycles (free with dag_id_lists_free()).
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the cycles are in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `g` or `out` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_cycles(const dag_graph *g, dag_id_lists **out, dag_error **err);

/**
 * Transitive reduction, in place: removes every edge a->c for which another
 * path from a to c exists, so reachability stays exactly the same with as
 * few edges as possible. Example: with a->b, b->c and a->c, the edge a->c is
 * removed. Bitset reachability in topological order, O(V * E / 64), memory
 * bounded by working on blocks of columns: 64 MiB of bitsets, up to 1 GiB
 * on graphs of over a million vertices (1,000,000 vertices and 4,000,000
 * edges peak under 1.5 GiB for the whole process).
 * Needs exclusive access to `g`.
 *
 * @param g            the graph.
 * @param out_removed  NULL, or receives the number of edges removed.
 * @param err          NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               done.
 * @retval DAG_E_NULL_ARGUMENT  `g` is NULL.
 * @retval DAG_E_CYCLE          the graph has a cycle or a self reference (the
 *         message lists each, as dag_validate() does; the graph is unchanged).
 * @retval DAG_E_BUSY           a walk holds the graph.
 * @retval DAG_E_NOMEM          out of memory (graph unchanged).
 * @since 1.0
 */
DAG_API dag_status dag_transitive_reduction(dag_graph *g, size_t *out_removed, dag_error **err);

/**
 * Terraform's TopologicalOrder: every vertex before its dependencies
 * (dependents first). Deterministic: among the vertices free at the same
 * moment, the smallest name goes first, then the smallest id.
 *
 * Example: with a->b and b->c (a depends on b, b on c): a, b, c. With no
 * edges at all between a, b and c: a, b, c (name order).
 *
 * Cost: O(V + E) the first time; the order is then kept with the graph (8
 * bytes a vertex, 12 once any vertex is named) and a call on the unchanged
 * graph copies it, O(V). After vertices and edges were only added, the next
 * call extends the kept order where the additions tell the result without
 * the full pass (new vertices that no earlier vertex depends on, edges the
 * kept order already agrees with), in one pass over it on integers; after
 * any other change (a removal, a disconnect, a rename, a replace), or
 * additions it cannot place, it computes the order afresh. The order is the
 * same either way.
 * Any thread; calls on one graph may run at once.
 *
 * @param g    the graph.
 * @param out  receives every live id (free with dag_ids_free()).
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the order is in `*out` (an empty graph gives
 *         an empty array).
 * @retval DAG_E_NULL_ARGUMENT  `g` or `out` is NULL.
 * @retval DAG_E_CYCLE          message as dag_validate() words the cycles and
 *         self references: a self reference alone is refused too.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_topological_order(const dag_graph *g, dag_ids **out, dag_error **err);

/**
 * Terraform's ReverseTopologicalOrder: every vertex after its dependencies,
 * the order a sequential run executes them. Ties as dag_topological_order().
 * This is not simply the reverse of dag_topological_order(): ties are broken
 * among the vertices free first in this direction.
 *
 * Example: with a->b and b->c: c, b, a.
 *
 * Cost and threads as dag_topological_order(); each direction is kept on
 * its own.
 *
 * @param g    the graph.
 * @param out  receives every live id (free with dag_ids_free()).
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the order is in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `g` or `out` is NULL.
 * @retval DAG_E_CYCLE          as dag_topological_order().
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_reverse_topological_order(const dag_graph *g, dag_ids **out,
                                                 dag_error **err);

/** What a dag_visit_fn tells the traversal to do next. */
typedef enum dag_visit {
    /** Go on, beyond this vertex too. */
    DAG_VISIT_CONTINUE = 0,
    /** Do not go beyond this vertex (Terraform's errStopWalkBranch); go on elsewhere. */
    DAG_VISIT_SKIP = 1,
    /** End the traversal now (Terraform's errStopWalk); it returns DAG_OK. */
    DAG_VISIT_STOP = 2
} dag_visit;

/**
 * Called once per vertex a traversal reaches, synchronously, on the thread
 * that called dag_traverse(). It may call any
 * function taking `const dag_graph *` on the graph being traversed; a call
 * that would change that graph (add, remove, connect, rename, or start a
 * walk of it, whose updates could change it) returns DAG_E_BUSY and changes
 * nothing. dag_set_vertex_user_data(), which leaves
 * the graph's shape alone, is allowed. dag_free() of the graph is allowed
 * (since 1.3; it was a use after free): the traversal goes on, and the graph
 * is freed as dag_traverse() returns. A C++ exception escaping it ends the
 * traversal with DAG_E_CALLBACK (its message names the exception); the graph
 * is left as it was and may be changed again at once. longjmp() out of it is
 * undefined (see "Callbacks that unwind" at the top).
 *
 * @param id         the vertex reached.
 * @param depth      that of the frontier entry the vertex was first taken
 *                   off: 0 for a start vertex reached as such, more for one
 *                   another start vertex reached first (see dag_traverse()).
 * @param user_data  dag_traverse()'s `user_data`.
 * @return a dag_visit value; any other value ends the traversal with
 *         DAG_E_INVALID_ARGUMENT.
 */
typedef int (*dag_visit_fn)(uint64_t id, size_t depth, void *user_data);

/** Flags for dag_traverse(); combine with |. 0 is a forward depth-first walk. */
enum {
    /** Breadth first (a queue) instead of depth first (a stack). */
    DAG_TRAVERSE_BREADTH_FIRST = 1,
    /** Towards dependents (Terraform's Reverse...Walk) instead of dependencies. */
    DAG_TRAVERSE_REVERSE = 2,
    /** The start set and each batch of neighbours in name order (see dag_traverse()). */
    DAG_TRAVERSE_SORTED = 4
};

/**
 * Terraform's DepthFirstWalk, BreadthFirstWalk, ReverseDepthFirstWalk and
 * ReverseBreadthFirstWalk, from a start set. The frontier holds (vertex,
 * depth) entries: a stack for depth first, a queue for breadth first. A
 * vertex is visited the first time it is taken off the frontier; unless the
 * visitor says skip or stop, its dependencies (dependents with
 * DAG_TRAVERSE_REVERSE) then go on the frontier at depth + 1. So every
 * reachable vertex is visited exactly once, at the depth it was first taken
 * off at. A start vertex is at depth 0 unless a walk from another start
 * vertex takes it off first (as Terraform's does): depth first from {b, a}
 * with a -> b visits a at 0, then b at 1.
 *
 * Order: the start ids as given (duplicates count once, at their first
 * place) and neighbours in ascending id order; with DAG_TRAVERSE_SORTED, the
 * start set and each batch of neighbours in name order, which is
 * Terraform's deterministic test walk (a depth-first walk therefore takes
 * the last name of a batch first).
 *
 * Example: with a->b, a->c and start {a}: depth first visits a (0), c (1),
 * b (1); breadth first a (0), b (1), c (1).
 *
 * Iterative: depth costs heap memory, never stack. O(V + E).
 *
 * @param g            the graph.
 * @param start        `start_count` ids; may be NULL when start_count is 0.
 * @param start_count  the number of start ids.
 * @param flags        DAG_TRAVERSE_* flags.
 * @param visit        the visitor; user_data is passed to it unchanged.
 * @param user_data    passed to every `visit` call.
 * @param err          NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  done (also when the visitor stopped the walk).
 * @retval DAG_E_NULL_ARGUMENT     `g` or `visit` is NULL, or `start` with
 *         start_count > 0.
 * @retval DAG_E_UNKNOWN_VERTEX    a start id is not live; nothing is visited.
 * @retval DAG_E_INVALID_ARGUMENT  unknown flag bits; start_count above
 *         PTRDIFF_MAX / 8, more ids than any array holds; or the visitor
 *         returned something other than a dag_visit value.
 * @retval DAG_E_NOMEM             out of memory.
 * @retval DAG_E_CALLBACK          a C++ exception escaped the visitor (since
 *         1.2).
 * @since 1.0
 */
DAG_API dag_status dag_traverse(const dag_graph *g, const uint64_t *start, size_t start_count,
                                unsigned flags, dag_visit_fn visit, void *user_data,
                                dag_error **err);

/**
 * A test on one vertex. Called synchronously on the
 * calling thread; the same rules as dag_visit_fn (read the graph; a change
 * to it returns DAG_E_BUSY; since 1.3, a dag_free() of it frees it as the
 * call that took the predicate returns). A C++ exception escaping it ends the search
 * with DAG_E_CALLBACK, writing no result; longjmp() out of it is undefined.
 *
 * @param id         the vertex tested.
 * @param user_data  the `user_data` given with the predicate.
 * @return nonzero for a match.
 */
typedef int (*dag_predicate_fn)(uint64_t id, void *user_data);

/**
 * Ancestors of a set (Terraform's Ancestors): everything the start vertices
 * depend on, transitively, following edges forward. A start vertex is part
 * of the result only when reachable from a start vertex (through a cycle or
 * from another start vertex).
 *
 * Example: with a->b and b->c (a depends on b, b on c): ancestors({a}) =
 * {b, c}; ancestors({c}) = {}; ancestors({a, b}) = {b, c}.
 *
 * @param g      the graph.
 * @param ids    `count` start ids (duplicates count once); NULL if count is 0.
 * @param count  the number of start ids.
 * @param out    receives the ancestors, ascending ids (free with dag_ids_free()).
 * @param err    NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the ancestors are in `*out`.
 * @retval DAG_E_NULL_ARGUMENT     `g` or `out` is NULL, or `ids` with count > 0.
 * @retval DAG_E_INVALID_ARGUMENT  count above PTRDIFF_MAX / 8, more ids than
 *         any array holds.
 * @retval DAG_E_UNKNOWN_VERTEX    a start id is not live.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_ancestors(const dag_graph *g, const uint64_t *ids, size_t count,
                                 dag_ids **out, dag_error **err);

/**
 * Descendants of a set (Terraform's Descendants): everything that depends
 * on the start vertices, transitively, following edges backwards.
 *
 * Example: with a->b and b->c: descendants({c}) = {a, b};
 * descendants({a}) = {}.
 *
 * @param g      the graph.
 * @param ids    `count` start ids (duplicates count once); NULL if count is 0.
 * @param count  the number of start ids.
 * @param out    receives the descendants, ascending ids (free with dag_ids_free()).
 * @param err    NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the descendants are in `*out`.
 * @retval DAG_E_NULL_ARGUMENT     `g` or `out` is NULL, or `ids` with count > 0.
 * @retval DAG_E_INVALID_ARGUMENT  count above PTRDIFF_MAX / 8, more ids than
 *         any array holds.
 * @retval DAG_E_UNKNOWN_VERTEX    a start id is not live.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_descendants(const dag_graph *g, const uint64_t *ids, size_t count,
                                   dag_ids **out, dag_error **err);

/**
 * Terraform's FirstAncestorsWith, for a set: walks the ancestors of the
 * start set and collects each vertex for which `match` is nonzero, without
 * going beyond it (each branch ends at its first match).
 *
 * Example: with a->b, b->c, a->d and `match` true for b and c:
 * first_ancestors_with({a}) = {b} (c is only reached through b).
 *
 * @param g          the graph.
 * @param ids        `count` start ids; NULL if count is 0.
 * @param count      the number of start ids.
 * @param match      called once per vertex reached, with user_data.
 * @param user_data  passed to every `match` call.
 * @param out        receives the matches, ascending ids (free with dag_ids_free()).
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the matches are in `*out`.
 * @retval DAG_E_NULL_ARGUMENT     `g`, `match` or `out` is NULL, or `ids`
 *         with count > 0.
 * @retval DAG_E_INVALID_ARGUMENT  count above PTRDIFF_MAX / 8.
 * @retval DAG_E_UNKNOWN_VERTEX    a start id is not live.
 * @retval DAG_E_NOMEM             out of memory.
 * @retval DAG_E_CALLBACK          a C++ exception escaped `match` (since
 *         1.2).
 * @since 1.0
 */
DAG_API dag_status dag_first_ancestors_with(const dag_graph *g, const uint64_t *ids,
                                            size_t count, dag_predicate_fn match,
                                            void *user_data, dag_ids **out, dag_error **err);

/**
 * Terraform's FirstDescendantsWith: as dag_first_ancestors_with(), towards
 * dependents.
 *
 * @param g          the graph.
 * @param ids        `count` start ids; NULL if count is 0.
 * @param count      the number of start ids.
 * @param match      called once per vertex reached, with user_data.
 * @param user_data  passed to every `match` call.
 * @param out        receives the matches, ascending ids (free with dag_ids_free()).
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the matches are in `*out`.
 * @retval DAG_E_NULL_ARGUMENT     `g`, `match` or `out` is NULL, or `ids`
 *         with count > 0.
 * @retval DAG_E_INVALID_ARGUMENT  count above PTRDIFF_MAX / 8.
 * @retval DAG_E_UNKNOWN_VERTEX    a start id is not live.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_first_descendants_with(const dag_graph *g, const uint64_t *ids,
                                              size_t count, dag_predicate_fn match,
                                              void *user_data, dag_ids **out, dag_error **err);

/**
 * Terraform's MatchAncestor, for a set: whether `match` is nonzero for some
 * ancestor of the start set. Stops at the first match. A start vertex
 * matches only when it is its own ancestor.
 *
 * @param g          the graph.
 * @param ids        `count` start ids; NULL if count is 0.
 * @param count      the number of start ids.
 * @param match      called once per vertex reached, with user_data.
 * @param user_data  passed to every `match` call.
 * @param out_found  receives 1 when some ancestor matched, else 0.
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the answer is in `*out_found`.
 * @retval DAG_E_NULL_ARGUMENT     `g`, `match` or `out_found` is NULL, or
 *         `ids` with count > 0.
 * @retval DAG_E_INVALID_ARGUMENT  count above PTRDIFF_MAX / 8.
 * @retval DAG_E_UNKNOWN_VERTEX    a start id is not live.
 * @retval DAG_E_NOMEM             out of memory.
 * @retval DAG_E_CALLBACK          a C++ exception escaped `match` (since
 *         1.2).
 * @since 1.0
 */
DAG_API dag_status dag_match_ancestor(const dag_graph *g, const uint64_t *ids, size_t count,
                                      dag_predicate_fn match, void *user_data, int *out_found,
                                      dag_error **err);

/**
 * Terraform's MatchDescendant: as dag_match_ancestor(), towards dependents.
 *
 * @param g          the graph.
 * @param ids        `count` start ids; NULL if count is 0.
 * @param count      the number of start ids.
 * @param match      called once per vertex reached, with user_data.
 * @param user_data  passed to every `match` call.
 * @param out_found  receives 1 when some descendant matched, else 0.
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the answer is in `*out_found`.
 * @retval DAG_E_NULL_ARGUMENT     `g`, `match` or `out_found` is NULL, or
 *         `ids` with count > 0.
 * @retval DAG_E_INVALID_ARGUMENT  count above PTRDIFF_MAX / 8.
 * @retval DAG_E_UNKNOWN_VERTEX    a start id is not live.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_match_descendant(const dag_graph *g, const uint64_t *ids, size_t count,
                                        dag_predicate_fn match, void *user_data, int *out_found,
                                        dag_error **err);

/* ---- Searches that can stop (1.2) ------------------------------------- */

/**
 * What a dag_search_fn says about a vertex. 0 and 1 mean what a
 * dag_predicate_fn's "no match" and "match" do, so a predicate returning 0
 * or 1 is a valid dag_search_fn.
 * @since 1.2
 */
typedef enum dag_search_action {
    /** Not a match; search on beyond it. */
    DAG_SEARCH_NO_MATCH = 0,
    /** A match; search on beyond it, unless DAG_SEARCH_FIRST_MATCH. */
    DAG_SEARCH_MATCH = 1,
    /** A match, and the last: the search ends and returns DAG_OK with it and every earlier match. */
    DAG_SEARCH_MATCH_AND_STOP = 2,
    /** Not a match; the search ends and returns DAG_OK with every earlier match. */
    DAG_SEARCH_STOP = 3,
    /**
     * The search ends and returns DAG_E_CANCELLED, its message naming the
     * vertex; *out is not written. Keep the reason in user_data.
     */
    DAG_SEARCH_ABORT = 4,
    /** Not a match, and do not search beyond it: its branch ends here. */
    DAG_SEARCH_SKIP = 5
} dag_search_action;

/**
 * Called by dag_search() once per vertex reached, synchronously, on the
 * calling thread; returns a dag_search_action. The same rules as
 * dag_visit_fn: it may call any function taking `const dag_graph *` on the
 * graph searched; a call that would change that graph (or start a walk of
 * it) returns DAG_E_BUSY and changes nothing; dag_set_vertex_user_data() is
 * allowed, and so (since 1.3) is dag_free() of the graph, freed as
 * dag_search() returns. A C++ exception escaping it ends the search with DAG_E_CALLBACK,
 * writing no result; longjmp() out of it is undefined.
 * @since 1.2
 */
typedef int (*dag_search_fn)(uint64_t id, void *user_data);

/** Flags for dag_search(); combine with |. 0 searches the ancestors. @since 1.2 */
enum {
    /** Towards dependents (Terraform's descendants) instead of dependencies. */
    DAG_SEARCH_DEPENDENTS = 1,
    /** A match ends its branch: nothing beyond it is searched (FirstAncestorsWith). */
    DAG_SEARCH_FIRST_MATCH = 2
};

/**
 * Searches the ancestors of a set (with DAG_SEARCH_DEPENDENTS, its
 * descendants) and collects what `fn` matches, which may also end a branch,
 * stop the search with what it has found, or abort it. The four searches
 * above are special cases: dag_first_ancestors_with() is
 * dag_search(DAG_SEARCH_FIRST_MATCH) with a predicate, dag_match_ancestor()
 * a search whose callback answers DAG_SEARCH_MATCH_AND_STOP for a match.
 *
 * Order: as dag_ancestors(), the search starts from the direct dependencies
 * (dependents) of the start set, so a start vertex is reached only from a
 * start vertex. It goes depth first, as dag_traverse() with no flags from
 * those vertices: each batch of neighbours is taken largest id first. Each
 * vertex reached is passed to `fn` once.
 *
 * Example: with vertices a, b, c, d added in that order, edges a -> b,
 * b -> c, a -> d and start {a}, `fn` sees d, b, c.
 * Answering MATCH for b and c gives {b, c}; with DAG_SEARCH_FIRST_MATCH, {b}
 * (c is reached only through b); answering STOP for b gives {} and c is
 * never seen; MATCH_AND_STOP for b gives {b}.
 *
 * On every error *out is not written, and the graph is as it was: the
 * search only reads it.
 *
 * @param g          the graph.
 * @param ids        `count` start ids (duplicates count once); NULL if count is 0.
 * @param count      how many ids.
 * @param flags      DAG_SEARCH_* flags.
 * @param fn         the callback; user_data is passed to it unchanged.
 * @param user_data  passed to `fn`.
 * @param out        NULL, or receives the matches, ascending ids (free with
 *                   dag_ids_free()), also when the callback stopped the search.
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the search ran to its end, or the callback
 *         stopped it.
 * @retval DAG_E_CANCELLED         the callback answered DAG_SEARCH_ABORT.
 * @retval DAG_E_NULL_ARGUMENT     `g` or `fn` is NULL, or `ids` with `count`
 *         above 0.
 * @retval DAG_E_INVALID_ARGUMENT  unknown flag bits; `count` above
 *         PTRDIFF_MAX / 8; the callback returned a value that is not a
 *         dag_search_action.
 * @retval DAG_E_UNKNOWN_VERTEX    a start id is not live; `fn` is not called.
 * @retval DAG_E_NOMEM             out of memory.
 * @retval DAG_E_CALLBACK          a C++ exception escaped `fn`.
 * @since 1.2
 */
DAG_API dag_status dag_search(const dag_graph *g, const uint64_t *ids, size_t count, unsigned flags,
                              dag_search_fn fn, void *user_data, dag_ids **out, dag_error **err);

/** Flags for dag_select(); combine with |. 0 keeps the targets' dependencies. @since 1.3 */
enum {
    /**
     * Keep what depends on the targets (a destroy) instead of what they depend
     * on, and exclude what the excluded vertices depend on.
     */
    DAG_SELECT_DEPENDENTS = 1,
    /** Every vertex is a target: only the exclusion narrows the graph. */
    DAG_SELECT_ALL = 2
};

/**
 * Copies the part of a graph that a partial run needs: Terraform's `-target`
 * and OpenTofu's `-exclude`. The selection is the targets and everything they
 * depend on (with DAG_SELECT_DEPENDENTS, everything that depends on them),
 * less the excluded vertices and everything that depends on them (with
 * DAG_SELECT_DEPENDENTS, everything they depend on). The exclusion goes the
 * other way from the targets so that a selected vertex never lacks something
 * that must run before it.
 *
 * Example: with a -> b and b -> c (a depends on b, b on c): targets {b}
 * select {b, c}; with DAG_SELECT_DEPENDENTS {a, b}; DAG_SELECT_ALL and
 * excludes {b} select {c}; with DAG_SELECT_DEPENDENTS too, {a}.
 *
 * The new graph holds the selected vertices under their ids, names and user
 * data pointers (copied as pointers), and every edge of `g` between two of
 * them. It issues its next ids from where `g` stood, as dag_clone() does, so
 * an id names the same vertex in both. `g` is only read: a walk of it may be
 * running.
 *
 * @param g              the graph selected from; read only.
 * @param targets        `target_count` ids (duplicates count once); NULL if
 *                       target_count is 0. Ignored with DAG_SELECT_ALL.
 * @param target_count   how many targets.
 * @param excludes       `exclude_count` ids (duplicates count once); NULL if
 *                       exclude_count is 0.
 * @param exclude_count  how many excluded ids.
 * @param flags          DAG_SELECT_* flags.
 * @param out            receives the new graph, owned by the caller (free with
 *                       dag_free()); not written on failure.
 * @param err            NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the selection is in `*out`.
 * @retval DAG_E_NULL_ARGUMENT     `g` or `out` is NULL, or `excludes` (or,
 *         without DAG_SELECT_ALL, `targets`) with a count above 0.
 * @retval DAG_E_INVALID_ARGUMENT  unknown flag bits; `exclude_count` (or,
 *         without DAG_SELECT_ALL, `target_count`) above PTRDIFF_MAX / 8.
 * @retval DAG_E_UNKNOWN_VERTEX    a target or excluded id is not live.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.3
 */
DAG_API dag_status dag_select(const dag_graph *g, const uint64_t *targets, size_t target_count,
                              const uint64_t *excludes, size_t exclude_count, unsigned flags,
                              dag_graph **out, dag_error **err);

/* ------------------------------------------------------------------------ */
/* Building a graph                                                          */
/* ------------------------------------------------------------------------ */

/*
 * Terraform builds its graph in named steps (GraphTransformers) before it
 * walks it; a dag_builder does the same for any graph. Add the vertices with
 * dag_add_vertex() (and any edges you know, such as `depends_on`, with
 * dag_connect()), declare on the builder what each vertex provides,
 * references, needs and plans to do, add the steps, and run them with
 * dag_build(). Example: three vertices declared as
 *
 *     aws_vpc.main           provides aws_vpc.main, needs provider["aws"]
 *     aws_subnet.public      provides aws_subnet.public,
 *                            references aws_vpc.main.id, needs provider["aws"]
 *     output.subnet          references aws_subnet.public[0].id
 *
 * through dag_builder_add_references(), dag_builder_add_shared(b,
 * DAG_SHARED_CLOSE), dag_builder_add_root(b, NULL) and
 * dag_builder_add_transitive_reduction() give: aws_subnet.public ->
 * aws_vpc.main -> provider["aws"]; output.subnet -> aws_subnet.public;
 * provider["aws"] (close) -> aws_subnet.public; root -> output.subnet and
 * root -> provider["aws"] (close).
 *
 * The builder works on the caller's graph in place and keeps it alive (as a
 * walk does) until dag_builder_free(). A builder is used by one thread at a
 * time. dag_builder_provide(), dag_builder_reference(), dag_builder_need()
 * and dag_builder_set_action() read the graph (the vertex must be in it), as
 * a function taking `const dag_graph *` does: they may run beside other
 * reads of it, not beside a change to it on another thread. A graph has one
 * build at a time and is not walked while it runs:
 * dag_build() refuses a graph being walked or traversed, and a walk started
 * during a build (from a step, say, or another thread) is refused, both with
 * DAG_E_BUSY; the refused walk changes nothing of the build.
 */

/** A graph's declarations and building steps. @since 1.3 */
typedef struct dag_builder dag_builder;

/**
 * A vertex's planned change, for dag_builder_set_action() and the destroy
 * order step. @since 1.3
 */
typedef enum dag_action {
    /** Nothing to do (the default). */
    DAG_ACTION_NONE = 0,
    /** Created. */
    DAG_ACTION_CREATE = 1,
    /** Updated in place. */
    DAG_ACTION_UPDATE = 2,
    /** Destroyed: the vertex becomes `NAME (destroy)`. */
    DAG_ACTION_DELETE = 3,
    /** Destroyed, then created again: `NAME (destroy)` before `NAME`. */
    DAG_ACTION_REPLACE = 4,
    /** Created again, then the old one destroyed: `NAME` before `NAME (destroy)`. */
    DAG_ACTION_CREATE_BEFORE_DESTROY = 5
} dag_action;

/**
 * A new builder working on `g`, with no declarations and no steps. The builder
 * holds `g`: a dag_free() of it meanwhile takes effect at dag_builder_free().
 *
 * @param g    the graph the steps change.
 * @param out  receives the builder (free with dag_builder_free()).
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the builder is in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `g` or `out` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.3
 */
DAG_API dag_status dag_builder_new(dag_graph *g, dag_builder **out, dag_error **err);

/**
 * Frees a builder and its declarations; the graph stays as the steps left it.
 * NULL allowed. From inside a step, the prune predicate or the observer of
 * the builder's own dag_build(), the builder goes as that dag_build()
 * returns (the steps after the current one still run).
 *
 * @param b  the builder; NULL is allowed.
 * @since 1.3
 */
DAG_API void dag_builder_free(dag_builder *b);

/**
 * Declares that `vertex` provides `address` (`aws_instance.web`,
 * `module.net`, `var.region`): references to it, or to anything under it
 * (`aws_instance.web[0].id`), resolve to `vertex`. Several vertices may
 * provide the same address; a reference to it then depends on each.
 * Declaring the same thing twice is the same as once (kept as declared,
 * merged when a step runs, so declaring costs O(1) however many there are).
 *
 * @param b        the builder.
 * @param vertex   a live vertex of the builder's graph.
 * @param address  UTF-8, not empty; copied.
 * @param err      NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  declared.
 * @retval DAG_E_NULL_ARGUMENT     `b` or `address` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  `address` is empty.
 * @retval DAG_E_BAD_UTF8          `address` is not valid UTF-8.
 * @retval DAG_E_UNKNOWN_VERTEX    `vertex` is not live.
 * @retval DAG_E_STATE             the builder is running its steps: called from inside
 *         a step, the prune predicate or the observer of its dag_build().
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.3
 */
DAG_API dag_status dag_builder_provide(dag_builder *b, uint64_t vertex, const char *address,
                                       dag_error **err);

/**
 * Declares that `vertex` references `address`; the references step makes it
 * depend on the vertices providing the longest provided prefix of it.
 * Prefixes end before a `.` or `[` that is outside brackets and quotes, and
 * at the end: `aws_instance.web[0].id` resolves to `aws_instance.web[0].id`,
 * else `aws_instance.web[0]`, else `aws_instance.web`, else `aws_instance`,
 * whichever is provided first. A prefix holding a bracketed key is also
 * tried without its keys, right after it, as Terraform resolves a counted
 * module's output: `module.net[0].x` resolves to `module.net[0].x`, else
 * `module.net.x` (the output, which the module call provides), else
 * `module.net[0]`, else `module.net`, else `module` (and between
 * `aws_instance.web[0].id` and `aws_instance.web[0]`, `aws_instance.web.id`
 * is tried; only keys that end an address part are dropped: `a[0]b` is
 * never tried as `ab`). Addresses are one space, not scoped by module as Terraform's
 * are: with `module.net` provided, a reference to a misspelt
 * `module.net.aws_instance.wbe.id` resolves to `module.net`'s providers
 * instead of being unresolved (which may make a cycle the validation then
 * reports). Parameters and errors as dag_builder_provide().
 *
 * @param b        the builder.
 * @param vertex   a live vertex of the builder's graph.
 * @param address  UTF-8, not empty; copied.
 * @param err      NULL, or receives the error on failure (see dag_error).
 * @return DAG_OK, or an error as dag_builder_provide() lists.
 * @since 1.3
 */
DAG_API dag_status dag_builder_reference(dag_builder *b, uint64_t vertex, const char *address,
                                         dag_error **err);

/**
 * Declares that `vertex` needs the shared vertex `key`
 * (`provider["registry.terraform.io/hashicorp/aws"]`); see
 * dag_builder_add_shared(). Parameters and errors as dag_builder_provide().
 *
 * @param b       the builder.
 * @param vertex  a live vertex of the builder's graph.
 * @param key     UTF-8, not empty; copied.
 * @param err     NULL, or receives the error on failure (see dag_error).
 * @return DAG_OK, or an error as dag_builder_provide() lists.
 * @since 1.3
 */
DAG_API dag_status dag_builder_need(dag_builder *b, uint64_t vertex, const char *key, dag_error **err);

/**
 * Sets the planned change of `vertex` (DAG_ACTION_NONE by default), read by
 * the destroy order step.
 *
 * @param b       the builder.
 * @param vertex  a live vertex of the builder's graph.
 * @param action  what the plan does to it.
 * @param err     NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  set.
 * @retval DAG_E_NULL_ARGUMENT     `b` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  `action` is not a dag_action.
 * @retval DAG_E_UNKNOWN_VERTEX    `vertex` is not live.
 * @retval DAG_E_STATE             the builder is running its steps: called from inside
 *         a step, the prune predicate or the observer of its dag_build().
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.3
 */
DAG_API dag_status dag_builder_set_action(dag_builder *b, uint64_t vertex, dag_action action,
                                          dag_error **err);

/**
 * A step of your own. Called on the thread that called dag_build(), with the
 * builder's graph, which it may read and change through the dag_graph
 * functions (not through the builder). Return 0 to go on; anything else
 * stops the build, which returns DAG_E_CANCELLED with the message
 * `step 'NAME': ` and `*message` (when you set it; copied at once, so it
 * may point into a buffer of yours). A C++ exception escaping it stops the
 * build with DAG_E_CALLBACK.
 * @since 1.3
 */
typedef int (*dag_build_step_fn)(dag_graph *g, const char **message, void *user_data);

/**
 * Appends a step of your own named `name`.
 *
 * @param b          the builder.
 * @param name       the step's name in messages and the observer; UTF-8, not
 *                   empty; copied.
 * @param fn         the step.
 * @param user_data  passed to `fn`.
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  appended.
 * @retval DAG_E_NULL_ARGUMENT     `b`, `name` or `fn` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  `name` is empty.
 * @retval DAG_E_BAD_UTF8          `name` is not valid UTF-8.
 * @retval DAG_E_STATE             the builder is running its steps: called from inside
 *         a step, the prune predicate or the observer of its dag_build().
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.3
 */
DAG_API dag_status dag_builder_add_step(dag_builder *b, const char *name, dag_build_step_fn fn,
                                        void *user_data, dag_error **err);

/** Flags for dag_builder_add_references(). @since 1.3 */
enum {
    /**
     * Unresolved references are warnings (dag_builder_warnings()), not
     * errors: the step connects what it can and the build goes on.
     */
    DAG_REFERENCES_WARN = 1
};

/**
 * Appends the step "references" (Terraform's ReferenceTransformer): every
 * vertex depends on the providers of each of its references (see
 * dag_builder_reference()). A reference resolving to the referencing vertex
 * itself is ignored, as Terraform ignores self references. References that
 * nothing provides are reported all at once, one line each, sorted bytewise:
 *
 *     step 'references': 2 unresolved references:
 *       aws_instance.web: nothing provides "var.ami"
 *       aws_instance.web: nothing provides "var.region"
 *
 * and the build fails with DAG_E_NOT_FOUND, the graph unchanged by this
 * step; with DAG_REFERENCES_WARN the lines (without the indentation) become
 * warnings. The provided addresses are indexed once per run of the step:
 * O(total length of the addresses) expected. The references resolved are
 * spent, as the graph now holds them: when the builder runs again, the step
 * resolves only those it could not resolve (with DAG_REFERENCES_WARN) and
 * those declared since, so the edges a destroy order made from the first
 * run's stay as they are.
 *
 * @param b      the builder.
 * @param flags  0, or DAG_REFERENCES_WARN.
 * @param err    NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  appended.
 * @retval DAG_E_NULL_ARGUMENT     `b` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  unknown flag bits.
 * @retval DAG_E_STATE             the builder is running its steps: called from inside
 *         a step, the prune predicate or the observer of its dag_build().
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.3
 */
DAG_API dag_status dag_builder_add_references(dag_builder *b, unsigned flags, dag_error **err);

/** Flags for dag_builder_add_shared(). @since 1.3 */
enum {
    /** Also add `NAME (close)` after every user of each shared vertex NAME. */
    DAG_SHARED_CLOSE = 1
};

/**
 * Appends the step "shared" (Terraform's ProviderTransformer and, with
 * DAG_SHARED_CLOSE, CloseProviderTransformer). For each key needed (see
 * dag_builder_need()), the shared vertex is the vertices providing the key
 * (dag_builder_provide()), else the vertex named as the key, else a new
 * vertex named as the key, created then. Every vertex needing the key
 * depends on it. With DAG_SHARED_CLOSE, the vertex named `NAME (close)`
 * (created when none is; NAME is the shared vertex's name, or its id when it
 * has none) depends on the shared vertex and on every vertex needing the
 * key.
 *
 * @param b      the builder.
 * @param flags  0, or DAG_SHARED_CLOSE.
 * @param err    NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  appended.
 * @retval DAG_E_NULL_ARGUMENT     `b` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  unknown flag bits.
 * @retval DAG_E_STATE             the builder is running its steps: called from inside
 *         a step, the prune predicate or the observer of its dag_build().
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.3
 */
DAG_API dag_status dag_builder_add_shared(dag_builder *b, unsigned flags, dag_error **err);

/**
 * Appends the step "root" (Terraform's RootTransformer): a vertex named
 * `name` (NULL: "root") that depends on every vertex nothing depends on. When
 * exactly one vertex has no dependents the step changes nothing. The root
 * this step made on an earlier run of the builder, while it keeps its name
 * and nothing depends on it, is the root again: vertices added beside it
 * since get it as their dependent. Otherwise the build fails with
 * DAG_E_DUPLICATE_NAME when `name` is another vertex's.
 *
 * @param b     the builder.
 * @param name  the root's name, UTF-8; copied. NULL: "root".
 * @param err   NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  appended.
 * @retval DAG_E_NULL_ARGUMENT     `b` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  `name` is empty.
 * @retval DAG_E_BAD_UTF8          `name` is not valid UTF-8.
 * @retval DAG_E_STATE             the builder is running its steps: called from inside
 *         a step, the prune predicate or the observer of its dag_build().
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.3
 */
DAG_API dag_status dag_builder_add_root(dag_builder *b, const char *name, dag_error **err);

/**
 * Appends the step "destroy order": the apply graph of the planned actions
 * (dag_builder_set_action()), Terraform's DiffTransformer,
 * DestroyEdgeTransformer and CBDEdgeTransformer in one. Run it after the
 * references and before "shared" (so destroy vertices are attached to their
 * provider too) and "root".
 *
 * What each vertex becomes: DAG_ACTION_NONE, CREATE and UPDATE stay as they
 * are, C(v) = v. DAG_ACTION_DELETE: v becomes its destroy vertex D(v), keeping
 * its id, renamed `NAME (destroy)`, its edges replaced by the rules below.
 * DAG_ACTION_REPLACE and CREATE_BEFORE_DESTROY: v stays as C(v), and a new
 * vertex D(v) `NAME (destroy)` (unnamed if v is) gets v's user data and
 * needs. A destroy is *late* for CREATE_BEFORE_DESTROY and, as Terraform
 * passes create_before_destroy on to dependencies, for anything destroyed
 * that a CREATE_BEFORE_DESTROY vertex depends on, directly or through other
 * vertices of any action; other destroys are *early*.
 * For every edge a -> b of the input (a depends on b), where the vertices
 * exist:
 *
 *   C(a) -> C(b)  creates in dependency order (the input edge, kept);
 *   D(b) -> D(a)  dependents are destroyed first (so, along a chain of
 *                 destroyed vertices, every dependent before);
 *   C(a) -> D(b)  when D(b) is early: nothing is created against what goes;
 *   D(b) -> C(a)  when D(b) is late: the old b outlives a's move to the new;
 *   C(b) -> D(a)  when D(a) is early and b is created, updated or replaced;
 *
 * and C(v) -> D(v) for an early replace, D(v) -> C(v) for a late one.
 * As Terraform's DestroyEdgeTransformer and CBDEdgeTransformer follow a
 * resource's dependencies through what is in between, the rules also apply
 * to a and b with actions where a depends on b through vertices with
 * DAG_ACTION_NONE only (a local value, a variable, a module output, a
 * resource left alone). Through a vertex with an action they chain (D(c)
 * after D(b) after D(a)) and go no further: where Terraform would also
 * order a pair across one (a replaced vertex's dependency reached through
 * an updated one is updated before the destroy), connect the two first.
 * As in Terraform, one vertex left alone between k destroyed vertices and
 * k changed ones asks for k^2 edges.
 *
 * Four-vertex example: lb -> web -> subnet -> vpc, with lb updated, web
 * replaced create-before-destroy, subnet replaced and vpc left alone. web's
 * destroy is late, so subnet's is too (web depends on it). The apply graph:
 * lb -> web, web -> subnet, subnet -> vpc (kept); subnet (destroy) ->
 * web (destroy); web (destroy) -> lb and subnet (destroy) -> web (old
 * instances outlive their dependents' moves); web (destroy) -> web and
 * subnet (destroy) -> subnet. Run order: vpc, subnet, web, lb,
 * web (destroy), subnet (destroy). With web's action DAG_ACTION_REPLACE
 * instead, both destroys are early, and lb -> web (destroy), web ->
 * subnet (destroy) and subnet -> web (destroy) replace the edges from old
 * instances: the destroys come before subnet, web and lb (vpc, which waits
 * for nothing, may run first: dag_reverse_topological_order() gives vpc,
 * web (destroy), subnet (destroy), subnet, web, lb).
 *
 * Early destroys (dependents first), then creates (dependencies first), then
 * late destroys (dependents first) satisfies every rule, so the step never
 * makes a cycle of an acyclic graph. When an action is set, a cyclic input
 * fails the build with DAG_E_CYCLE and Terraform's words ("Cycle:" then one
 * name a line, as dag_validate() writes it), the graph unchanged; so does a
 * destroy name already taken, with DAG_E_DUPLICATE_NAME. With no action set
 * the step changes nothing and leaves a cycle to the validation.
 *
 * The actions the step applied are spent (set back to DAG_ACTION_NONE), as
 * the graph now holds them: when the builder runs again, the step applies
 * only the actions set since. A removed vertex's references
 * (dag_builder_reference()) are spent with its action, as it is its destroy
 * vertex now, which references nothing.
 *
 * @param b    the builder.
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               appended.
 * @retval DAG_E_NULL_ARGUMENT  `b` is NULL.
 * @retval DAG_E_STATE          the builder is running its steps: called from inside
 *         a step, the prune predicate or the observer of its dag_build().
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.3
 */
DAG_API dag_status dag_builder_add_destroy_order(dag_builder *b, dag_error **err);

/**
 * Appends the step "transitive reduction" (Terraform's
 * TransitiveReductionTransformer): dag_transitive_reduction() of the graph.
 * A cycle fails the build with DAG_E_CYCLE.
 *
 * @param b    the builder.
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               appended.
 * @retval DAG_E_NULL_ARGUMENT  `b` is NULL.
 * @retval DAG_E_STATE          the builder is running its steps: called from inside
 *         a step, the prune predicate or the observer of its dag_build().
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.3
 */
DAG_API dag_status dag_builder_add_transitive_reduction(dag_builder *b, dag_error **err);

/**
 * Appends the step "prune" (Terraform's PruneUnusedNodesTransformer):
 * removes every vertex nothing depends on for which `fn` returns nonzero,
 * again until none is left, since removing one can leave its dependencies
 * unused. `fn` is called on the building thread, at most once per vertex and
 * only for vertices every dependent of which `fn` already chose to remove
 * (first those nothing depends on, in ascending id order, then the vertices
 * their removal leaves unused, and so on); it may read the graph but not
 * change it. The graph is the same during every call: the chosen vertices
 * go together after the last one, so a C++ exception escaping `fn`, which
 * stops the build with DAG_E_CALLBACK, leaves the graph as it was.
 *
 * @param b          the builder.
 * @param fn         says whether an unused vertex goes.
 * @param user_data  passed to `fn`.
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               appended.
 * @retval DAG_E_NULL_ARGUMENT  `b` or `fn` is NULL.
 * @retval DAG_E_STATE          the builder is running its steps: called from inside
 *         a step, the prune predicate or the observer of its dag_build().
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.3
 */
DAG_API dag_status dag_builder_add_prune(dag_builder *b, dag_predicate_fn fn, void *user_data,
                                         dag_error **err);

/**
 * What the build observer hears after each step that succeeded. It begins
 * with its size: read fields past the release you were built against only
 * when `size` covers them. Valid during the call only.
 * @since 1.3
 */
typedef struct dag_build_step_info {
    /** sizeof(dag_build_step_info) as this library was built. */
    size_t size;
    /** The step's name. */
    const char *name;
    /** Its position among the steps, from 0. */
    size_t index;
    /** How long it took, in nanoseconds (steady clock). */
    uint64_t duration_ns;
    /** The graph's vertex count before the step. */
    size_t vertices_before;
    /** The graph's edge count before the step. */
    size_t edges_before;
    /** The graph's vertex count after the step. */
    size_t vertices_after;
    /** The graph's edge count after the step. */
    size_t edges_after;
    /** The graph, to read or dump (dag_export_graph()); not to change. */
    const dag_graph *graph;
} dag_build_step_info;

/**
 * The build observer: called on the thread that called dag_build(), after
 * each step that succeeded, in order. It may read the graph. A C++ exception
 * escaping it stops the build with DAG_E_CALLBACK.
 * @since 1.3
 */
typedef void (*dag_build_observer_fn)(const dag_build_step_info *info, void *user_data);

/**
 * Options for dag_build(). Initialise with dag_build_options_init() or
 * DAG_BUILD_OPTIONS_INIT; it grows as dag_walk_options does.
 * @since 1.3
 */
typedef struct dag_build_options {
    /** sizeof(dag_build_options) as the caller was built. */
    size_t size;
    /** Nonzero (the default): dag_validate() the graph after the last step. */
    int validate;
    /** Nonzero (the default): that validation applies the single-root rule. */
    int single_root;
    /** NULL (the default), or called after each step. */
    dag_build_observer_fn observer;
    /** Passed to `observer`. */
    void *observer_data;
} dag_build_options;

/** The defaults of dag_build_options_init(). @since 1.3 */
#define DAG_BUILD_OPTIONS_INIT { sizeof(dag_build_options), 1, 1, NULL, NULL }

/**
 * Fills the first `size` bytes of `opts` with the defaults.
 *
 * @param opts  the options to fill.
 * @param size  sizeof(dag_build_options) as the caller was built.
 * @param err   NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the defaults are written.
 * @retval DAG_E_NULL_ARGUMENT     `opts` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  `size` is smaller than the 1.3 layout, or
 *         above 4096.
 * @since 1.3
 */
DAG_API dag_status dag_build_options_init(dag_build_options *opts, size_t size, dag_error **err);

/**
 * Runs the builder's steps in the order they were added, then validates the
 * graph unless `opts->validate` is 0. The first step that fails stops the
 * build: the graph stays as the steps before it (and any part the failing
 * step did, for a step of your own) left it, and the error's message names
 * the step (`dag_build: step 'references': 1 unresolved reference:...`; for
 * running out of memory too, since 1.3). Out of memory, the destroy-order,
 * root and shared steps may leave the graph part changed (they change it in
 * several moves, and only an allocation can fail between them): discard
 * such a graph rather than build it again. A
 * failed validation gives dag_validate()'s status and the message
 * `dag_build: validation: ` and its text. Warnings of earlier runs are
 * cleared first. A builder may run again (after more declarations, say):
 * steps run on the graph as it is then.
 *
 * @param b     the builder.
 * @param opts  NULL for the defaults, or options from dag_build_options_init().
 * @param err   NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  every step ran and the graph is valid.
 * @retval DAG_E_NULL_ARGUMENT     `b` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  opts->size below the 1.3 layout, or above
 *         this library's with a non-zero byte it does not know, or above
 *         4096 (since 1.3).
 * @retval DAG_E_STATE             the builder is running its steps: called from inside
 *         a step, the prune predicate or the observer of its dag_build().
 * @retval DAG_E_BUSY              the graph is being walked or traversed, or
 *         built by another builder; nothing ran.
 * @retval DAG_E_CANCELLED         a step of yours returned nonzero.
 * @retval DAG_E_CALLBACK          a C++ exception escaped a step, the prune
 *         predicate or the observer.
 * @retval DAG_E_NOMEM             out of memory (see above for what a step
 *         leaves).
 * @return otherwise the failing step's status (DAG_E_NOT_FOUND for
 *         unresolved references, DAG_E_CYCLE, DAG_E_DUPLICATE_NAME...) or the
 *         validation's (DAG_E_CYCLE, DAG_E_NO_ROOT, DAG_E_MULTIPLE_ROOTS).
 * @since 1.3
 */
DAG_API dag_status dag_build(dag_builder *b, const dag_build_options *opts, dag_error **err);

/**
 * The warnings of the last dag_build(), one a line (joined with "\n"), ""
 * when there are none.
 *
 * @param b    the builder.
 * @param out  receives the text (free with dag_string_free()).
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the text is in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `b` or `out` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.3
 */
DAG_API dag_status dag_builder_warnings(const dag_builder *b, char **out, dag_error **err);


/* ------------------------------------------------------------------------ */
/* Walks                                                                     */
/* ------------------------------------------------------------------------ */

/*
 * A walk runs a callback once per vertex, each as soon as every dependency of
 * the vertex has finished, independent vertices in parallel on a thread pool
 * owned by the walk. With a -> b ("a depends on b") and c unconnected, b and
 * c may run at once and a runs after b finished; with `reverse` set, a runs
 * before b (destroy order).
 *
 * Statuses returned by a finished walk (dag_walk, dag_walk_wait): DAG_OK when
 * every vertex finished ok; DAG_E_WALK_FAILED when at least one callback
 * failed (the message names the first failure); DAG_E_CANCELLED when
 * dag_walk_cancel was called; DAG_E_CALLBACK (since 1.2) when a C++
 * exception escaped a callback or the observer, whatever else happened
 * (the message names the first such exception). In all four cases the
 * report is written.
 *
 * While a walk runs, every mutation through the dag_graph functions returns
 * DAG_E_BUSY; change the graph through dag_walk_apply instead. Reading it
 * (names, user data, edges, algorithms) from callbacks and other threads is
 * allowed throughout: a dag_walk_apply waits for reads in progress and keeps
 * new ones out while it changes the graph. The same holds for a sub-walk's
 * graph (dag_walk_graph of a sub-walk handle) and its updates. The walked
 * graph may even be freed (dag_free): it then lives on until the walk is
 * freed.
 */

/** A running or finished walk. Functions taking a dag_walker are thread-safe. */
typedef struct dag_walker dag_walker;

/** The outcome of a walk, vertex by vertex: an owned, immutable object. */
typedef struct dag_walk_report dag_walk_report;

/**
 * A batch of changes to apply to a running walk (dag_walk_apply). Unlike a
 * dag_walker, a batch is not thread-safe: build it on one thread at a time.
 */
typedef struct dag_walk_update dag_walk_update;

/** What a walk callback says about its vertex. */
typedef enum dag_walk_result {
    /** The vertex's work succeeded; its dependents may run. */
    DAG_WALK_OK = 0,
    /** The vertex failed; every transitive dependent is skipped as upstream-failed. */
    DAG_WALK_FAILED = 1,
    /** The work goes on elsewhere; finish it later with dag_walk_complete(). */
    DAG_WALK_PENDING = 2,
    /**
     * For dag_walk_complete() only, once the walk has been cancelled: the
     * host stopped the vertex's work because of the cancel (a task cancelled
     * on a cluster, a process it killed). The vertex ends
     * DAG_VERTEX_CANCELLED, as a pending vertex of a callback walk does when
     * the walk is cancelled, and what waits for it is cancelled too. A
     * callback returning it fails its vertex.
     * @since 1.3
     */
    DAG_WALK_CANCELLED = 3
} dag_walk_result;

/** The final state of a vertex in a report. */
typedef enum dag_vertex_status {
    /**
     * Never started: the walk stopped early (fail fast; a failed vertex's
     * dependents are DAG_VERTEX_UPSTREAM_FAILED instead) or an update
     * removed it.
     */
    DAG_VERTEX_NOT_RUN = 0,
    /** Its callback (or dag_walk_complete, or its sub-walk) succeeded. */
    DAG_VERTEX_OK = 1,
    /** Its callback (or dag_walk_complete, or its sub-walk) failed. */
    DAG_VERTEX_FAILED = 2,
    /** Skipped because a dependency did not finish ok; not an error of its own. */
    DAG_VERTEX_UPSTREAM_FAILED = 3,
    /**
     * Never started, or was pending, when the walk was cancelled
     * (dag_walk_report_ran() tells which).
     */
    DAG_VERTEX_CANCELLED = 4
} dag_vertex_status;

/** What the walk does after a vertex failed. */
typedef enum dag_failure_policy {
    /** Terraform's behaviour: skip the failed vertex's dependents, go on with the rest. */
    DAG_FAILURE_CONTINUE = 0,
    /**
     * Start nothing new; what never started is reported DAG_VERTEX_NOT_RUN,
     * except the failed vertex's dependents, transitively, which are
     * DAG_VERTEX_UPSTREAM_FAILED as with DAG_FAILURE_CONTINUE.
     */
    DAG_FAILURE_FAIL_FAST = 1
} dag_failure_policy;

/**
 * Which ready vertex starts first (dag_walk_options.priority). With a
 * priority, the walk's ready vertices start in a total order, so a walk at
 * parallelism 1 (or with one thread) starts its vertices in the same order
 * every time; names compare bytewise, named vertices before unnamed ones.
 * With several threads and slots the order is kept only roughly: each
 * worker takes a few of the best ready vertices at a time, and the workers
 * race. A worker's batch doubles while its batches run in under 50
 * microseconds, up to 512 vertices and its share of the queue (the ready
 * vertices divided by the workers), and halves when one takes longer, down
 * to one: vertices that do almost nothing share the queue at little cost,
 * and long ones, where the order pays, start close to it. Vertices of
 * sub-walks and vertices added by updates have no rank: they start after
 * every ranked ready vertex, in the order they became ready. The ranks
 * are computed as the walk starts, in O(V log V + E) time and 4 bytes a
 * vertex, and kept with the graph: the next walk with the same priority
 * and direction and no weights takes them over, until the graph or a
 * vertex name changes. A walk without weights also lays the graph out in
 * rank order once, where that differs from id order (O(V + E) time, 20
 * bytes a vertex and 8 an edge, kept with the ranks), so that it reads its
 * memory about in sequence however the vertices were numbered (a random
 * graph of 10^6 vertices walked by critical path: 1.7x faster).
 * @since 1.3
 */
typedef enum dag_walk_priority {
    /**
     * The default: ready vertices start about in the order they became
     * ready, and a worker that finishes a vertex runs a dependent it
     * releases itself when that is its only one, or the vertex added right
     * after it (a chain, a grid's next cell); fastest, not specified
     * further. (1.2 ran the first released dependent itself in every case,
     * depth first: on a wide graph that read memory at random.)
     */
    DAG_PRIORITY_NONE = 0,
    /**
     * The longest remaining path first: a vertex's rank is the length of the
     * longest path from it to the end of the walk, through what waits for it
     * (its dependents; with `reverse`, its dependencies), itself included,
     * each vertex counting its weight (dag_walk_options.weights, default 1);
     * ties by name, then id. Ninja's order: what holds up most work starts
     * earliest.
     */
    DAG_PRIORITY_CRITICAL_PATH = 1,
    /** By name, then id. */
    DAG_PRIORITY_NAME = 2
} dag_walk_priority;

/** Observer events. */
typedef enum dag_walk_event {
    /** A vertex's callback is about to run. */
    DAG_WALK_EVENT_STARTED = 0,
    /** A vertex that started has finished (its status says how). */
    DAG_WALK_EVENT_FINISHED = 1,
    /** A vertex finished without running (upstream-failed, cancelled, not run). */
    DAG_WALK_EVENT_SKIPPED = 2
} dag_walk_event;

/**
 * The per-vertex callback.
 *
 * Called on one of the walk's pool threads, once per vertex, after every
 * dependency of the vertex finished (with `reverse`: every dependent). Up to
 * `parallelism` callbacks run at once. It may call, for this walk:
 * dag_walk_complete, dag_walk_cancel, dag_walk_expand (for `vertex`),
 * dag_walk_apply and the dag_walk_update functions, dag_walk_graph, and every
 * read-only dag_graph function on the walked graph, and dag_walk_free (see
 * there: the walk is cancelled and freed once it has finished). It must not
 * call dag_walk_wait on its own walk (DAG_E_STATE) nor mutate the graph
 * through dag_graph functions (DAG_E_BUSY). It must return: a pool thread
 * that ends inside a callback (pthread_exit(), or a language runtime ending
 * its threads as the process exits) ends the process, since the walk could
 * never finish; a binding that may exit mid-walk cancels and waits for its
 * walks first.
 *
 * A C++ exception escaping it counts as DAG_WALK_FAILED with the message
 * "the callback threw <type>: <what()>" (copied; "...of type <type>, not
 * derived from std::exception" for anything else): the vertex is reported
 * DAG_VERTEX_FAILED with that message, its dependents are skipped as for
 * any failure, and the walk ends with DAG_E_CALLBACK instead of
 * DAG_E_WALK_FAILED, its message naming the vertex. After a successful
 * dag_walk_expand() the vertex still follows its sub-walk, as for any
 * return value, and the walk still ends with DAG_E_CALLBACK. longjmp() out
 * of it is undefined (see "Callbacks that unwind" at the top).
 *
 * @param walk       the walk the vertex belongs to (for a vertex of an expanded
 *                   sub-graph: the sub-walk, whose graph is a copy of the
 *                   sub-graph and whose ids are that graph's).
 * @param vertex     the vertex id.
 * @param message    *message is NULL on entry. To explain a failure, point it at
 *                   a NUL-terminated UTF-8 string that is still valid when the
 *                   callback returns (a literal, or memory owned by user_data);
 *                   libdag copies it at once (or call dag_walk_fail(), which
 *                   copies its message before it returns). Ignored for
 *                   DAG_WALK_OK.
 * @param user_data  the `user_data` given to dag_walk(), dag_walk_start() or
 *                   dag_walk_expand().
 * @return DAG_WALK_OK, DAG_WALK_FAILED, or DAG_WALK_PENDING: the vertex keeps
 *         its parallelism slot until dag_walk_complete() finishes it. After a
 *         successful dag_walk_expand() the return value is ignored.
 */
typedef dag_walk_result (*dag_walk_fn)(dag_walker *walk, uint64_t vertex, const char **message,
                                       void *user_data);

/**
 * The observer: progress and tracing events.
 *
 * Called on the thread that caused the event: a pool thread for most, the
 * caller's thread for events caused by dag_walk_complete, dag_walk_cancel or
 * dag_walk_apply. Calls may come from several threads at once; the counts
 * are snapshots and may be seen out of order. It may call what a walk
 * callback may call, on whichever thread it is called (dag_walk_wait returns
 * DAG_E_STATE there too), and should return quickly. dag_walk_wait and
 * dag_walk return only once every observer call for the walk has returned
 * (since 1.2).
 *
 * A C++ exception escaping it is caught where it was called: the event has
 * happened regardless, the walk goes on unchanged (the call that caused the
 * event, dag_walk_complete say, still succeeds) and ends with DAG_E_CALLBACK
 * ("the observer threw <type>: <what()>"), its report complete. The
 * observer keeps being called. longjmp() out of it is undefined.
 *
 * @param walk       the walk (or sub-walk) of the vertex.
 * @param event      what happened.
 * @param vertex     the vertex it happened to.
 * @param status     for FINISHED and SKIPPED, the vertex's final status;
 *                   DAG_VERTEX_NOT_RUN for STARTED.
 * @param running    callbacks running or pending in that walk, after the event.
 * @param done       vertices of that walk finished, after the event.
 * @param total      vertices in that walk (grows when updates add some).
 * @param user_data  the options' `observer_data`.
 */
typedef void (*dag_walk_observer_fn)(dag_walker *walk, dag_walk_event event, uint64_t vertex,
                                     dag_vertex_status status, size_t running, size_t done,
                                     size_t total, void *user_data);

/**
 * One walk event, as dag_walk_event_fn receives it: what dag_walk_observer_fn
 * gets as arguments, plus a sequence number. The struct may grow at its end:
 * read `size` first and only the fields below it.
 * @since 1.2
 */
typedef struct dag_walk_event_info {
    size_t size;              /**< sizeof(dag_walk_event_info) as the library filled it */
    dag_walk_event event;     /**< what happened */
    uint64_t vertex;          /**< to which vertex of `walk` */
    dag_vertex_status status; /**< as for dag_walk_observer_fn */
    size_t running;           /**< as for dag_walk_observer_fn */
    size_t done;              /**< as for dag_walk_observer_fn */
    size_t total;             /**< as for dag_walk_observer_fn */
    /**
     * 1, 2, 3... over the events of the walk and its sub-walks, in the order
     * their counts were taken. Calls can arrive out of that order (from
     * several threads); ordered by sequence, a walk's `done` and `total`
     * never decrease, so a progress display keeps the event with the
     * highest sequence it has seen.
     */
    uint64_t sequence;
} dag_walk_event_info;

/**
 * The event observer: as dag_walk_observer_fn (same threads, same rules,
 * same events), with the event in a struct that carries a sequence number.
 *
 * @param walk       the walk (or sub-walk) of the vertex.
 * @param info       the event; borrowed for the length of the call.
 * @param user_data  the options' `event_observer_data`.
 * @since 1.2
 */
typedef void (*dag_walk_event_fn)(dag_walker *walk, const dag_walk_event_info *info, void *user_data);

/**
 * The most threads a walk's pool may have (dag_walk_options.threads). More
 * would not help: a callback that waits on outside work can return
 * DAG_WALK_PENDING and free its thread.
 */
#define DAG_WALK_MAX_THREADS 1024

/**
 * Called on each thread of a callback walk's pool, with the walk options'
 * thread_hook_data: thread_start as the thread starts, before it runs any
 * callback; thread_exit as it ends, after its last. A binding keeps one
 * runtime thread state per pool thread this way (Python's
 * PyGILState_Ensure / Release). It must return and must not call back into
 * the walk. When thread_start is set, dag_walk_start() and dag_walk() start
 * the walk only once every pool thread has run it; thread_exit runs as the
 * pool ends, in dag_walk_free() (at the end of dag_walk()).
 *
 * A C++ exception escaping thread_start fails the walk before any callback
 * runs: dag_walk_start() and dag_walk() return DAG_E_CALLBACK ("thread_start
 * threw <type>: <what()>"), with no walk and no report, and the graph is
 * free again; thread_exit runs on each thread whose thread_start returned,
 * and only on those. One escaping thread_exit is caught and dropped: the
 * walk has been reported by then. longjmp() out of either is undefined.
 *
 * @param thread_hook_data  the options' `thread_hook_data`.
 * @since 1.2
 */
typedef void (*dag_thread_hook_fn)(void *thread_hook_data);

/**
 * Walk options. Initialise with dag_walk_options_init() or
 * DAG_WALK_OPTIONS_INIT, then change fields. The struct grows only at its
 * end, and `size` says how much of it the caller has: a library accepts
 * every size from the first released layout (1.0) up to its own, giving the
 * fields a smaller caller lacks their defaults (also a field that a size set
 * by hand ends inside of: since 1.3 it is never read in part), and a larger
 * size when the
 * bytes it does not know are all zero (DAG_E_INVALID_ARGUMENT otherwise, as
 * that caller asks for something this library cannot do). So a program built
 * against any release's header works with this and every later library.
 * A size above 4096 is refused (since 1.3): no options struct will be that
 * large, and a size never set (garbage) would have the library read that
 * far past the caller's struct looking for non-zero bytes.
 */
typedef struct dag_walk_options {
    /** sizeof(dag_walk_options) as the caller was built, set by dag_walk_options_init(). */
    size_t size;
    /**
     * Most callbacks in flight (running or pending) at once. Default 10, at
     * least 1. A ceiling, not a promise that every ready vertex starts while
     * a slot is free: when many are ready, a worker takes them (and the ones
     * its vertices release) in batches (of up to 64, or 512 with a
     * priority; see dag_walk_priority), so a callback must not
     * wait for another vertex of the same walk to start; make it a
     * dependency, or return DAG_WALK_PENDING and complete it later.
     */
    size_t parallelism;
    /**
     * Threads in the walk's pool, at most DAG_WALK_MAX_THREADS. Default 0
     * (since 1.2; 10 before): as many as `parallelism` (capped at
     * DAG_WALK_MAX_THREADS), so `parallelism` callbacks can really run at
     * once. The pool starts with the walk, with min(threads, parallelism)
     * threads: no more can ever be busy at once. On Linux the pool's threads
     * are named "dag-walk" and the thread that waits out retry back-offs
     * "dag-retry" (as `top -H`, gdb and /proc show them; since 1.3); a
     * thread_start hook may rename its thread.
     */
    size_t threads;
    /** Non-zero: dependents run before their dependencies (destroy order). Default 0. */
    int reverse;
    /** What the walk does after a vertex failed. Default DAG_FAILURE_CONTINUE. */
    dag_failure_policy failure_policy;
    /**
     * Non-zero (default): record each vertex's start and end time (up to two
     * clock reads per vertex). Zero leaves them 0 in the report, for walks of
     * very cheap callbacks. dag_walk() without a report takes none (since
     * 1.3).
     */
    int timestamps;
    /**
     * Vertices that run even when a dependency failed; their own result then
     * decides their dependents. Borrowed for the duration of the call that
     * takes the options. NULL when always_run_count is 0.
     */
    const uint64_t *always_run;
    /** Number of ids in always_run. Default 0. */
    size_t always_run_count;
    /** Optional observer, called with observer_data last. Default NULL. */
    dag_walk_observer_fn observer;
    /** Passed to observer as its last argument. Default NULL. */
    void *observer_data;
    /* ---- 1.2 ---- */
    /** Optional; see dag_thread_hook_fn. Default NULL. @since 1.2 */
    dag_thread_hook_fn thread_start;
    /** Optional; see dag_thread_hook_fn. Default NULL. @since 1.2 */
    dag_thread_hook_fn thread_exit;
    /** Passed to thread_start and thread_exit. Default NULL. @since 1.2 */
    void *thread_hook_data;
    /**
     * Optional event observer (see dag_walk_event_fn), called with
     * event_observer_data last. May be set together with `observer`: both are
     * called for each event. Default NULL. @since 1.2
     */
    dag_walk_event_fn event_observer;
    /** Passed to event_observer as its last argument. Default NULL. @since 1.2 */
    void *event_observer_data;
    /* ---- 1.3 ---- */
    /**
     * Named limits (pools): pool i is named pool_names[i] (non-empty, UTF-8,
     * each name once) and at most pool_capacities[i] vertices that need it
     * run at once, a pending vertex counting as running. Two parallel arrays
     * of pool_count entries, borrowed for the duration of the call that takes
     * the options; NULL when pool_count is 0. A pool no vertex needs may have
     * capacity 0. An empty or repeated name is refused (DAG_E_INVALID_ARGUMENT),
     * one that is not valid UTF-8 too (DAG_E_BAD_UTF8). Default none. @since 1.3
     *
     * A vertex that needs pools (pool_need_vertices) starts only when it can
     * have a slot in every pool it needs and a slot of `parallelism`: all are
     * taken at once, so no vertex holds one pool while it waits for another
     * and pools needed together cannot deadlock. It keeps them until it
     * finishes: while its callback runs, while it is pending, and while it is
     * expanded into a sub-walk. A vertex waiting for a full pool waits off the
     * ready queue: ready vertices that need other pools, or none, start
     * meanwhile, and it starts once a vertex holding that pool finishes
     * (those that waited longest first). The vertex that has waited longest
     * has a slot kept for it in each pool it needs: no other vertex takes
     * the last free slot of one of them until it starts, so a vertex needing
     * several pools is not overtaken for ever by vertices needing one of
     * them (one slot of a pool may then stay free while another of its pools
     * is full). Only the walked
     * graph's own vertices need pools: vertices of sub-walks and vertices
     * added by an update need none. The same in pull mode (dag_walk_begin):
     * a vertex is handed out by dag_walk_next_ready() only with its pools'
     * slots, and gives them back when it is completed.
     */
    const char *const *pool_names;
    /** The capacity of each pool in pool_names. @since 1.3 */
    const size_t *pool_capacities;
    /** Number of pools in pool_names and pool_capacities. Default 0. @since 1.3 */
    size_t pool_count;
    /**
     * What the vertices need: the vertex pool_need_vertices[i] needs one slot
     * in the pool named pool_need_names[i]. A vertex needs as many pools as
     * it has entries (an entry repeated counts once). Two parallel arrays of
     * pool_need_count entries, borrowed for the duration of the call that
     * takes the options; NULL when pool_need_count is 0. A name no pool has,
     * or a pool of capacity 0, is refused before the walk starts
     * (DAG_E_INVALID_ARGUMENT; DAG_E_BAD_UTF8 for a name that is not valid
     * UTF-8), as is a vertex not in the graph
     * (DAG_E_UNKNOWN_VERTEX). Default none. @since 1.3
     */
    const uint64_t *pool_need_vertices;
    /** The pool each entry of pool_need_vertices needs, by name. @since 1.3 */
    const char *const *pool_need_names;
    /** Number of entries in pool_need_vertices and pool_need_names. Default 0. @since 1.3 */
    size_t pool_need_count;
    /**
     * Retries: a vertex whose attempt fails (its callback returns
     * DAG_WALK_FAILED, or it is completed as failed) is tried again, up to
     * `retries` more times, before it counts as failed and its dependents are
     * skipped. Each new attempt calls its callback again (in pull mode,
     * dag_walk_next_ready() hands it out again) after a back-off of
     * retry_delay_ms, doubled for each retry before it when retry_doubling
     * is non-zero, never longer than retry_max_delay_ms when that is not 0,
     * nor than a year (365 days; a longer delay or cap counts as a year).
     * A vertex waiting again to be tried has started: an update may not
     * remove it or make it wait (DAG_E_STATE), during its back-off or after.
     * A vertex waiting out its back-off holds no slot of `parallelism` nor
     * of any pool, and no thread: the wait is a deadline on one timer thread
     * the walk starts with its first delayed retry. Cancel and fail fast stop
     * retries: a vertex waiting to be tried again then ends failed with its
     * last message. Each attempt is a `started` event; only the last one
     * finishes. The report's dag_walk_report_attempts() and
     * dag_walk_report_attempt_message() tell each attempt; its start time is
     * the last attempt's. Expanded vertices (dag_walk_expand) are not tried
     * again. Default 0. @since 1.3
     */
    size_t retries;
    /** Back-off before the first retry, in milliseconds. Default 0. @since 1.3 */
    uint64_t retry_delay_ms;
    /** The longest back-off, in milliseconds; 0 (default): no cap. @since 1.3 */
    uint64_t retry_max_delay_ms;
    /** Non-zero: each retry waits twice as long as the one before. Default 0 (fixed). @since 1.3 */
    int retry_doubling;
    /**
     * Per-vertex retry counts over `retries`: vertex retry_vertices[i] is
     * tried again up to retry_counts[i] times (0: never). Two parallel
     * arrays of retry_vertex_count entries, borrowed for the duration of the
     * call that takes the options; NULL when the count is 0. A vertex not in
     * the graph is refused (DAG_E_UNKNOWN_VERTEX). @since 1.3
     */
    const uint64_t *retry_vertices;
    /** The retry count of each vertex in retry_vertices. @since 1.3 */
    const size_t *retry_counts;
    /** Number of entries in retry_vertices and retry_counts. Default 0. @since 1.3 */
    size_t retry_vertex_count;
    /**
     * Which ready vertex starts first (see dag_walk_priority). Default
     * DAG_PRIORITY_NONE; another value is refused (DAG_E_INVALID_ARGUMENT).
     * @since 1.3
     */
    dag_walk_priority priority;
    /**
     * Weights for DAG_PRIORITY_CRITICAL_PATH (ignored otherwise): vertex
     * weight_vertices[i] weighs weights[i], an expected duration in any unit,
     * 0 allowed; every other vertex weighs 1. Two parallel arrays of
     * weight_count entries, borrowed for the duration of the call that takes
     * the options; NULL when weight_count is 0. With that priority, an id
     * not in the graph is refused (DAG_E_UNKNOWN_VERTEX); with another, the
     * three fields are not read at all. Default none. @since 1.3
     */
    const uint64_t *weight_vertices;
    /** The weight of each vertex in weight_vertices. @since 1.3 */
    const uint64_t *weights;
    /** Number of entries in weight_vertices and weights. Default 0. @since 1.3 */
    size_t weight_count;
} dag_walk_options;

/**
 * The defaults of dag_walk_options_init(), for static initialisation:
 * `dag_walk_options o = DAG_WALK_OPTIONS_INIT;`.
 * @since 1.2
 */
#define DAG_WALK_OPTIONS_INIT \
    { sizeof(dag_walk_options), 10, 0, 0, DAG_FAILURE_CONTINUE, 1, NULL, 0, NULL, NULL, NULL, NULL, NULL, \
      NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, DAG_PRIORITY_NONE, NULL, NULL, 0 }

/**
 * Fills the first `size` bytes of `opts` with the defaults above, `size`
 * included. Pass sizeof(dag_walk_options): any size from the 1.0 layout on
 * is accepted, bytes past this library's layout are zeroed.
 *
 * @param opts  the caller's struct, `size` bytes.
 * @param size  sizeof(dag_walk_options) as the caller was built.
 * @param err   NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  `*opts` holds the defaults.
 * @retval DAG_E_NULL_ARGUMENT     `opts` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  `size` is smaller than the 1.0 layout, or
 *         above 4096 (since 1.3).
 * @since 1.0
 */
DAG_API dag_status dag_walk_options_init(dag_walk_options *opts, size_t size, dag_error **err);

/**
 * Walks `g`, blocking until every vertex has finished.
 *
 * The graph is checked first: a cycle or a self reference returns DAG_E_CYCLE
 * (message in Terraform's "Cycle: ..." format) and no callback runs.
 *
 * @param g            the graph; busy (no dag_graph mutation) until the walk ends.
 * @param callback     called once per vertex; see dag_walk_fn.
 * @param user_data    passed to every callback call.
 * @param opts         NULL for the defaults.
 * @param out_report   NULL, or receives the report (free with
 *                     dag_walk_report_free()) whenever the walk ran: on
 *                     DAG_OK, DAG_E_WALK_FAILED, DAG_E_CANCELLED and
 *                     DAG_E_CALLBACK from a callback or the observer. Set to
 *                     NULL on the other errors (thread_start's
 *                     DAG_E_CALLBACK included: no walk ran). Since 1.3,
 *                     a walk without one takes no timestamps, whatever
 *                     opts->timestamps says: nothing could read them (two
 *                     clock reads and 16 bytes a vertex saved).
 * @param err          NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  every vertex finished ok.
 * @retval DAG_E_WALK_FAILED       at least one callback failed (the message
 *         names the first failure).
 * @retval DAG_E_CANCELLED         a callback cancelled it; the message says how
 *         many vertices never ran, and how many were cancelled after their
 *         callback ran.
 * @retval DAG_E_NULL_ARGUMENT     `g` or `callback` is NULL, or always_run
 *         with always_run_count > 0; since 1.3, a NULL pool, retry or (with
 *         DAG_PRIORITY_CRITICAL_PATH) weight array with its count > 0, or a
 *         NULL name in one.
 * @retval DAG_E_INVALID_ARGUMENT  opts->size below the 1.0 layout, or above
 *         this library's with a non-zero byte it does not know, or above
 *         4096 (since 1.3); parallelism
 *         0, threads above DAG_WALK_MAX_THREADS, always_run_count above
 *         PTRDIFF_MAX / 8, bad policy; since 1.3, a pool named twice or
 *         with an empty name, a need of a pool the options do not declare
 *         or of a pool of capacity 0, a priority that is not a
 *         dag_walk_priority, a pool, need, retry or weight count larger
 *         than any array.
 * @retval DAG_E_BAD_UTF8          since 1.3: a pool's name, in the pools or
 *         the needs, is not valid UTF-8.
 * @retval DAG_E_UNKNOWN_VERTEX    an always_run id, or since 1.3 a
 *         pool_need_vertices, retry_vertices or (with
 *         DAG_PRIORITY_CRITICAL_PATH) weight_vertices id, is not live.
 * @retval DAG_E_CYCLE             the graph has a cycle or a self reference.
 * @retval DAG_E_BUSY              the graph is already being walked, e.g. from
 *         one of its own callbacks, or a traversal's visitor or predicate of
 *         it is running, or it is being built (dag_build(), since 1.3).
 * @retval DAG_E_NOMEM             out of memory, also when the walk's threads
 *         cannot all be started (the message says how many were).
 * @retval DAG_E_CALLBACK          since 1.2: a C++ exception escaped a
 *         callback, the observer or thread_start (see dag_walk_fn,
 *         dag_walk_observer_fn, dag_thread_hook_fn).
 * @since 1.0
 */
DAG_API dag_status dag_walk(dag_graph *g, dag_walk_fn callback, void *user_data,
                            const dag_walk_options *opts, dag_walk_report **out_report,
                            dag_error **err);

/**
 * Starts walking `g` and returns at once. Arguments and checks as dag_walk().
 * Callbacks may start before this call returns (they get the walk handle as
 * their first argument; *out is written only on return). The graph is busy
 * until the walk has finished. Freeing it with dag_free()
 * before the walk is allowed: the walk keeps it until dag_walk_free().
 *
 * @param g          the graph, as for dag_walk().
 * @param callback   called once per vertex; see dag_walk_fn.
 * @param user_data  passed to every callback call.
 * @param opts       NULL for the defaults.
 * @param out        receives the walk, owned by the caller: dag_walk_free().
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK  the walk runs; wait for it with dag_walk_wait().
 * @return otherwise the errors of dag_walk() that come before the walk runs
 *         (`out` NULL is DAG_E_NULL_ARGUMENT).
 * @since 1.0
 */
DAG_API dag_status dag_walk_start(dag_graph *g, dag_walk_fn callback, void *user_data,
                                  const dag_walk_options *opts, dag_walker **out, dag_error **err);

/**
 * Blocks until the walk has finished. May be called more than once, from any
 * thread except the walk's own callbacks and observer.
 *
 * @param walk        the walk.
 * @param out_report  NULL, or receives a new report (free with
 *                    dag_walk_report_free()) on DAG_OK, DAG_E_WALK_FAILED,
 *                    DAG_E_CANCELLED and DAG_E_CALLBACK, and NULL on the
 *                    other statuses.
 * @param err         NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               every vertex finished ok.
 * @retval DAG_E_WALK_FAILED    at least one vertex failed.
 * @retval DAG_E_CANCELLED      the walk was cancelled.
 * @retval DAG_E_CALLBACK       a C++ exception escaped a callback or the
 *         observer (since 1.2).
 * @retval DAG_E_NULL_ARGUMENT  `walk` is NULL.
 * @retval DAG_E_STATE          called from a callback or observer of this
 *         walk (or of a walk started from one, on whichever thread: the
 *         callback that started it may be waiting for it), from inside a
 *         read of the walked graph or a sub-walk's (a traversal's visitor
 *         or predicate, which an update of the walk waits for; since 1.3: it
 *         could hang; a sub-walk's graph since 1.3 too), or on a sub-walk
 *         handle.
 * @since 1.0
 */
DAG_API dag_status dag_walk_wait(dag_walker *walk, dag_walk_report **out_report, dag_error **err);

/**
 * Cancels the walk, from any thread (a callback included): nothing new
 * starts, running callbacks finish, pending vertices are finished as
 * DAG_VERTEX_CANCELLED at once, and every vertex that never started is
 * reported DAG_VERTEX_CANCELLED (DAG_VERTEX_NOT_RUN where fail fast had
 * already stopped the walk, and DAG_VERTEX_UPSTREAM_FAILED where a
 * dependency failed, before or after the cancel: such a vertex would not
 * have run either way). On a sub-walk handle it cancels the whole
 * walk. Returns without waiting. In a pull walk (dag_walk_begin()) the
 * vertices handed out count as running: they finish when completed (as
 * DAG_WALK_CANCELLED where the host stopped their work for the cancel).
 *
 * @param walk  the walk, or one of its sub-walks.
 * @param err   NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               cancelled.
 * @retval DAG_E_NULL_ARGUMENT  `walk` is NULL.
 * @retval DAG_E_STATE          the walk has finished.
 * @retval DAG_E_NOMEM          the walk is cancelled, but some pending
 *         vertices could not be finished at once: they stay pending until
 *         completed, or until a later dag_walk_cancel().
 * @since 1.0
 */
DAG_API dag_status dag_walk_cancel(dag_walker *walk, dag_error **err);

/**
 * Frees a walk. A walk still running is cancelled and waited for first; a
 * pull walk's vertices handed out and not completed end cancelled, since
 * nobody can complete them through it any more. Called from the walk's own
 * callback or observer (also from the callbacks or observer of a walk that
 * one started, on whichever thread they run, and, since 1.3, from inside a
 * read of the walked graph or a sub-walk's, a visitor or predicate), where
 * waiting would wait for itself, it cancels the walk the same way and
 * returns at once (a dag_walk_next_ready() under way on that thread then
 * hands out nothing); the walk is freed on a thread of libdag's own once
 * its running callbacks have returned, and leaving the process (exit) waits
 * for that: a callback of such a walk that never returns keeps it waiting
 * too. The walk of a dag_walk() call, which frees it as it returns, is only
 * cancelled (it crashed the process before 1.3). Unloading the library (dlclose) does
 * not end it: the library stays mapped (see dag_api()). A walk freed this
 * way once the exit has begun is left as it is. Either way `walk` must not be
 * used after this call. Calls of other threads still inside a function of the
 * walk (a wait, a completion, a hand-out, an expansion, a progress read) are
 * waited for: a wait under way then returns DAG_E_CANCELLED, with its report
 * (for waits, expansions and progress reads since 1.3; before, they read
 * freed memory).
 *
 * @param walk  the walk; NULL is allowed. Sub-walk handles belong to their
 *              walk: passing one does nothing.
 * @since 1.0
 */
DAG_API void dag_walk_free(dag_walker *walk);

/**
 * Finishes a vertex whose callback returned DAG_WALK_PENDING, or, in a pull
 * walk, a vertex dag_walk_next_ready() handed out, from any thread.
 * Calling it while the callback is still running is allowed: the completion
 * takes effect when the callback returns DAG_WALK_PENDING (if it returns ok or
 * failed instead, its own result wins). The vertex's parallelism slot is
 * freed and its dependents may start.
 *
 * @param walk     the walk (or sub-walk) the vertex belongs to.
 * @param vertex   the pending vertex.
 * @param result   DAG_WALK_OK, DAG_WALK_FAILED, or (since 1.3, once the
 *                 walk has been cancelled) DAG_WALK_CANCELLED.
 * @param message  NULL, or a message (UTF-8) for the report, copied; a byte
 *                 that is not part of UTF-8 is kept as the text \\xNN.
 *                 Ignored for DAG_WALK_OK, as a callback's is.
 * @param err      NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the vertex is finished.
 * @retval DAG_E_NULL_ARGUMENT     `walk` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  `result` is DAG_WALK_PENDING or unknown.
 * @retval DAG_E_UNKNOWN_VERTEX    `vertex` is not in this walk.
 * @retval DAG_E_STATE             the vertex has not started or never will,
 *         was already completed or finished, was expanded, was removed by an
 *         update, or the walk has finished; or `result` is
 *         DAG_WALK_CANCELLED and the walk has not been cancelled (the vertex
 *         stays as it was).
 * @retval DAG_E_CANCELLED         the vertex was cancelled while pending,
 *         also once the walk has finished (since 1.2; 1.1 said DAG_E_STATE
 *         then).
 * @retval DAG_E_NOMEM             out of memory; nothing changed.
 * @since 1.0
 */
DAG_API dag_status dag_walk_complete(dag_walker *walk, uint64_t vertex, dag_walk_result result,
                                     const char *message, dag_error **err);

/**
 * Fails a vertex with a message that is copied before this returns, so the
 * caller may free or reuse its buffer at once (a binding need not keep one
 * alive per failed vertex until its callback has returned).
 *
 * From inside `vertex`'s own callback (on the thread running it, or in code
 * that callback calls): the vertex fails, with this message, when the
 * callback returns, whatever it returns; return DAG_WALK_FAILED to say so.
 * The callback's own *message is then ignored. dag_walk_expand() of the
 * vertex refuses once it has been failed, and dag_walk_fail() once it has
 * been expanded (DAG_E_STATE). A dag_walk_complete() another thread made
 * while the callback ran does not refuse it (since 1.3): the callback's own
 * result wins over such a completion, and this is its message.
 *
 * From anywhere else (another thread, the callback of another vertex, a
 * host finishing a pending vertex) it is exactly
 * dag_walk_complete(walk, vertex, DAG_WALK_FAILED, message).
 *
 * @param walk     the walk (or sub-walk) the vertex belongs to.
 * @param vertex   the vertex to fail.
 * @param message  NULL (no message) or NUL-terminated UTF-8, copied; a byte
 *                 that is not part of UTF-8 is kept as the text \\xNN.
 * @param err      NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                the vertex fails with `message`.
 * @retval DAG_E_NULL_ARGUMENT   `walk` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  `vertex` is not in this walk.
 * @retval DAG_E_STATE           failed or completed already, expanded, not
 *         started or never will, removed by an update, or the walk has
 *         finished (see dag_walk_complete()).
 * @retval DAG_E_CANCELLED       cancelled while pending.
 * @retval DAG_E_NOMEM           out of memory; nothing changed.
 * @since 1.2
 */
DAG_API dag_status dag_walk_fail(dag_walker *walk, uint64_t vertex, const char *message,
                                 dag_error **err);

/**
 * Dynamic expansion: while `vertex`'s callback runs (normally from inside
 * it; another thread may call it then too), hands over a sub-graph that is
 * walked as part of the vertex. `sub` is validated (a cycle
 * returns DAG_E_CYCLE and nothing changes) and copied: the caller keeps it.
 * When the callback returns, its return value is ignored and the vertex
 * releases its parallelism slot; it finishes when the sub-walk does: ok if
 * every sub-vertex finished ok, failed (with the sub-walk's first error) if
 * any failed or was skipped as upstream-failed, cancelled otherwise (the
 * walk was cancelled, or stopped by fail fast, before the sub-walk ended).
 * Sub-vertices removed by an update of the sub-walk do not count. The
 * sub-walk shares the walk's pool, parallelism bound, policy, direction and
 * observer; its vertices are called with the sub-walk's handle.
 *
 * In a pull walk (dag_walk_begin()), a vertex is expanded while it is handed
 * out and not yet completed, from any thread; it gives its slot back at once,
 * and dag_walk_next_ready() hands out the sub-walk's vertices with the
 * sub-walk's handle.
 *
 * @param walk       the walk (or sub-walk) `vertex` belongs to.
 * @param vertex     the vertex whose callback is running (in a pull walk: the
 *                   vertex handed out).
 * @param sub        the sub-graph, copied; the caller keeps it.
 * @param callback   the sub-walk's callback; NULL to use the callback of the
 *                   walk `walk` is (for a sub-walk's handle, that sub-walk's)
 *                   (NULL in a pull walk).
 * @param user_data  its user data (ignored when callback is NULL: that walk's).
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the sub-walk will run as part of `vertex`.
 * @retval DAG_E_NULL_ARGUMENT     `walk` or `sub` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  a callback given in a pull walk.
 * @retval DAG_E_UNKNOWN_VERTEX    `vertex` is not in this walk.
 * @retval DAG_E_CYCLE             `sub` has a cycle; nothing changed.
 * @retval DAG_E_STATE             not called while the vertex's callback runs
 *         (in a pull walk: while it is handed out), already expanded, or the
 *         walk has finished.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_walk_expand(dag_walker *walk, uint64_t vertex, const dag_graph *sub,
                                   dag_walk_fn callback, void *user_data, dag_error **err);

/**
 * Polls a walk's progress, for a display that asks rather than observes:
 * how many of its vertices have finished (run, failed, skipped or removed)
 * and how many it has (more once updates add some). `done` never exceeds
 * `total`, and neither decreases from one call to the next. With an observer
 * set the counts are exact; without one, each pool thread adds its finished
 * vertices in batches of up to 64, so `done` may lag by that much per thread
 * until the walk ends. Counts the vertices of this walk (or sub-walk) only.
 * Any thread, a callback or observer included.
 *
 * @param walk       the walk or sub-walk.
 * @param out_done   receives the finished count.
 * @param out_total  receives the vertex count.
 * @param err        NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the counts are written.
 * @retval DAG_E_NULL_ARGUMENT  `walk`, `out_done` or `out_total` is NULL.
 * @retval DAG_E_STATE          a sub-walk handle not handed over yet.
 * @since 1.2
 */
DAG_API dag_status dag_walk_progress(dag_walker *walk, size_t *out_done, size_t *out_total,
                                     dag_error **err);

/**
 * Waits up to `timeout_ms` milliseconds for the walk to finish: dag_walk_wait()
 * with a time limit, so that a host can stay responsive (a Python binding
 * checks for Ctrl-C between waits) and cancel.
 *
 * @param walk        the walk (not a sub-walk).
 * @param timeout_ms  the limit; 0 only looks; a negative value waits as long
 *                    as it takes (as dag_walk_wait()).
 * @param out_report  as for dag_walk_wait() (NULL on a timeout too).
 * @param err         NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the walk finished and every vertex ended ok.
 * @retval DAG_E_WALK_FAILED    it finished and a vertex failed.
 * @retval DAG_E_CANCELLED      it finished after a cancel.
 * @retval DAG_E_CALLBACK       it finished, and a C++ exception had escaped a
 *         callback or the observer (as for dag_walk_wait()).
 * @retval DAG_E_TIMEOUT        the walk is still running, or it has finished
 *         and an observer call of another thread still runs (since 1.3;
 *         before, that call was waited for past the limit); nothing changed.
 * @retval DAG_E_NULL_ARGUMENT  `walk` is NULL.
 * @retval DAG_E_STATE          called from a callback or observer of this
 *         walk (or of a walk started from one, on whichever thread: the
 *         callback that started it may be waiting for it), from inside a
 *         read of the walked graph or a sub-walk's (a traversal's visitor
 *         or predicate, which an update of the walk waits for; since 1.3: it
 *         could hang; a sub-walk's graph since 1.3 too), or on a sub-walk
 *         handle.
 * @since 1.2
 */
DAG_API dag_status dag_walk_wait_for(dag_walker *walk, int timeout_ms, dag_walk_report **out_report,
                                     dag_error **err);

/**
 * Pull mode: begins walking `g` with no callback and no thread pool. The
 * host takes ready vertices with dag_walk_next_ready(), runs their work where
 * it likes (its own threads, an event loop, a cluster) and finishes each with
 * dag_walk_complete() (or fails it, or expands it with dag_walk_expand()),
 * from any thread. Everything else is as in a callback walk: a vertex is
 * handed out once every dependency has finished; failure skips only its
 * dependents; always-run, fail fast, cancel, updates with dag_walk_apply(),
 * expansion, the observer (called on the threads that hand out, complete or
 * cancel) and the report behave the same, and dag_walk_wait() or
 * dag_walk_wait_for() return the same statuses. `opts->threads` and the
 * thread hooks are ignored: a pull walk starts no thread.
 *
 * The walk finishes only once every vertex has: keep taking ready vertices
 * until dag_walk_next_ready() says the walk has ended. A vertex handed out
 * is the host's running work, as a running callback is: dag_walk_cancel()
 * hands out nothing more and finishes what was never handed out, and the
 * walk ends once the host has completed what it holds (with the results it
 * gives). dag_walk_free() on a walk still running cancels it and finishes
 * what is still out as cancelled.
 *
 * @param g     the graph; busy until the walk has finished.
 * @param opts  NULL for the defaults, or the options (see dag_walk()).
 * @param out   receives the walk, owned by the caller: dag_walk_free() (which
 *              cancels a walk that has not finished).
 * @param err   NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the walk has begun.
 * @retval DAG_E_NULL_ARGUMENT     `g` or `out` is NULL, or `always_run`
 *         with `always_run_count` above 0; a NULL array, as for dag_walk().
 * @retval DAG_E_INVALID_ARGUMENT  bad options, as for dag_walk() (a
 *         `threads` above DAG_WALK_MAX_THREADS included, although unused).
 * @retval DAG_E_BAD_UTF8          a pool's name, as for dag_walk().
 * @retval DAG_E_UNKNOWN_VERTEX    an id of the options is not in the graph,
 *         as for dag_walk().
 * @retval DAG_E_CYCLE             the graph has a cycle; nothing began.
 * @retval DAG_E_BUSY              the graph is already being walked, a
 *         traversal's visitor or predicate of it is running, or it is being
 *         built (dag_build(), since 1.3).
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.2
 */
DAG_API dag_status dag_walk_begin(dag_graph *g, const dag_walk_options *opts, dag_walker **out,
                                  dag_error **err);

/**
 * Pull mode: hands out up to `capacity` ready vertices of a walk begun with
 * dag_walk_begin(), waiting up to `timeout_ms` milliseconds while none is
 * ready. Each vertex handed out is pending: it holds one of the walk's
 * `parallelism` slots until dag_walk_complete() finishes it, so at most
 * `parallelism` vertices are out at once. Vertices of an expanded sub-graph
 * are handed out too, with their sub-walk: complete each on the walk handle
 * given next to it. Any thread may call it, several at once (they take turns
 * handing out; each vertex goes to one of them).
 *
 * The walk has ended (every vertex finished, or the walk was cancelled and
 * nothing is left) when the call returns DAG_OK with *out_count == 0, as
 * read() says end of file; dag_walk_wait() then returns at once with the
 * report.
 *
 * @param walk        the walk dag_walk_begin() returned (not a sub-walk).
 * @param vertices    room for `capacity` vertex ids.
 * @param walks       room for `capacity` walk handles: walks[i] is the walk
 *                    (or sub-walk) of vertices[i], borrowed from `walk`.
 * @param capacity    at least 1.
 * @param timeout_ms  0 only looks; negative waits as long as it takes.
 * @param out_count   receives how many entries were written (0 on every
 *                    failure but a NULL `out_count`).
 * @param err         NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  `*out_count` vertices were handed out, at
 *         least 1; or 0: the walk has ended.
 * @retval DAG_E_TIMEOUT           none became ready in time; `*out_count`
 *         is 0.
 * @retval DAG_E_NULL_ARGUMENT     `walk`, `vertices`, `walks` or `out_count`
 *         is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  `capacity` is 0.
 * @retval DAG_E_STATE             a callback walk, a sub-walk handle, or
 *         called from the walk's observer (while it hands out, or, since
 *         1.3, while it completes or updates: it hung there, the vertices
 *         the completion releases coming only after the observer).
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.2
 */
DAG_API dag_status dag_walk_next_ready(dag_walker *walk, uint64_t *vertices, dag_walker **walks,
                                       size_t capacity, int timeout_ms, size_t *out_count,
                                       dag_error **err);

/**
 * The graph a walk walks: the graph given to dag_walk_start (or dag_walk),
 * or, for a sub-walk, its private copy of the sub-graph. Read-only functions
 * only.
 *
 * @param walk  the walk; NULL allowed.
 * @return the graph, borrowed: valid until the walk is freed. NULL for NULL.
 * @since 1.0
 */
DAG_API const dag_graph *dag_walk_graph(const dag_walker *walk);

/**
 * Creates an empty update batch.
 *
 * @param out  receives the batch, owned by the caller: dag_walk_update_free().
 * @param err  NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the batch is in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `out` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_walk_update_new(dag_walk_update **out, dag_error **err);

/**
 * Frees an update batch.
 *
 * @param update  the batch; NULL is allowed.
 * @since 1.0
 */
DAG_API void dag_walk_update_free(dag_walk_update *update);

/**
 * Adds a new vertex to the batch.
 *
 * @param update          the batch.
 * @param name            NULL or a non-empty UTF-8 name, copied; it must be
 *                        free in the graph when the batch is applied.
 * @param user_data       the new vertex's user data pointer.
 * @param always_run      non-zero: runs even if a dependency failed.
 * @param out_provisional NULL, or receives the id that names this vertex in
 *                        dag_walk_update_connect() of the same batch (a value
 *                        near UINT64_MAX, never a real id). dag_walk_apply()
 *                        returns the real ids.
 * @param err             NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  added to the batch.
 * @retval DAG_E_NULL_ARGUMENT     `update` is NULL.
 * @retval DAG_E_INVALID_ARGUMENT  `name` is empty.
 * @retval DAG_E_BAD_UTF8          `name` is not valid UTF-8.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_walk_update_add_vertex(dag_walk_update *update, const char *name,
                                              void *user_data, int always_run,
                                              uint64_t *out_provisional, dag_error **err);

/**
 * Adds the edge from -> to (from depends on to) to the batch. Either id may
 * be provisional. Applying refuses an edge whose dependent (`from`, or `to`
 * in a reverse walk) has already started, or ended without starting (skipped
 * after a failure, or cancelled), even on a dependency that has
 * finished: the walk could no longer honour it (the two may have run side
 * by side), and every edge of the graph a walk leaves is one it honoured.
 *
 * @param update  the batch.
 * @param from    the dependent vertex (real or provisional id).
 * @param to      its dependency (real or provisional id).
 * @param err     NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               added to the batch.
 * @retval DAG_E_NULL_ARGUMENT  `update` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_walk_update_connect(dag_walk_update *update, uint64_t from, uint64_t to,
                                           dag_error **err);

/**
 * Removes the edge from -> to in the batch. A batch's disconnects win over
 * its connects: an edge both connected and disconnected in one batch, in
 * either order, is absent once the batch is applied (to take an edge out
 * and put it back, apply two batches).
 *
 * @param update  the batch.
 * @param from    the dependent vertex.
 * @param to      its dependency.
 * @param err     NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               added to the batch.
 * @retval DAG_E_NULL_ARGUMENT  `update` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_walk_update_disconnect(dag_walk_update *update, uint64_t from, uint64_t to,
                                              dag_error **err);

/**
 * Removes a vertex (and its edges) in the batch. Applying refuses it once
 * the vertex has started or has ended without starting (skipped after a
 * failure, or cancelled); once removed it never runs and is reported
 * DAG_VERTEX_NOT_RUN.
 *
 * @param update  the batch.
 * @param id      the vertex.
 * @param err     NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               added to the batch.
 * @retval DAG_E_NULL_ARGUMENT  `update` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_walk_update_remove_vertex(dag_walk_update *update, uint64_t id,
                                                 dag_error **err);

/**
 * Applies a batch to a running walk and to its graph, all or nothing, from
 * any thread (a callback included). The batch is checked while the walk
 * goes on: ids, names, and cycles, against a topological order of the graph
 * that the walk builds at its first update (O(V + E), once) and keeps from
 * one update to the next. An added edge that agrees with that order costs
 * O(1) to check; one that does not costs a search of the vertices placed
 * between its two ends. A new vertex with only dependencies, or only
 * dependents, agrees by construction. So an update costs about what it
 * changes, not the size of the graph; only a refused cycle costs O(V + E),
 * to list every cycle in the message. Then the walk's workers pause between
 * vertices (callbacks already running go on) while the batch's changes are
 * made, so the common scheduling steps need no locked instructions.
 * Concurrent applies to one walk are serialised. The batch is not changed
 * and may be freed afterwards.
 *
 * The graph is changed in place once no read-only dag_graph call on it is
 * in progress (they may run from callbacks or other threads meanwhile). The
 * name of a vertex the batch removes is kept until the graph is freed, so a
 * name read before stays valid, after the walk too (since 1.3; before, until
 * the walk was freed). DAG_E_STATE when called from inside a read
 * of the walked graph (a dag_traverse visitor or a predicate), which it
 * would wait for.
 *
 * A vertex not yet started is skipped as upstream-failed for the
 * dependencies it has when its last one finishes: a batch that drops its
 * edge to a vertex that failed (or was skipped as upstream-failed) lets it
 * run, unless another dependency it keeps failed too (since 1.3; before, a
 * failure counted against it even once its edge was gone).
 *
 * @param walk         the walk (or sub-walk) whose graph changes.
 * @param update       the batch; not changed.
 * @param out_new_ids  NULL, or receives the real ids of the added vertices in
 *                     the order they were added (free with dag_ids_free()).
 * @param err          NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  applied.
 * @retval DAG_E_NULL_ARGUMENT     `walk` or `update` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX    an id not in the graph.
 * @retval DAG_E_DUPLICATE_NAME    an added vertex's name is taken.
 * @retval DAG_E_INVALID_ARGUMENT  an edge touching a vertex the batch
 *         removes, or removing an added vertex.
 * @retval DAG_E_CYCLE             the batch would create a cycle; message in
 *         Terraform's format.
 * @retval DAG_E_STATE             a vertex that has started would get a
 *         dependency (finished or not), or be removed; the walk has
 *         finished; or called from inside a read of the graph.
 * @retval DAG_E_NOMEM             out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_walk_apply(dag_walker *walk, const dag_walk_update *update,
                                  dag_ids **out_new_ids, dag_error **err);

/**
 * Frees a report.
 *
 * @param report  the report; NULL is allowed.
 * @since 1.0
 */
DAG_API void dag_walk_report_free(dag_walk_report *report);

/**
 * Number of vertices in the report (every vertex of the walk).
 *
 * @param report  the report; NULL allowed.
 * @return the count; 0 for NULL.
 * @since 1.0
 */
DAG_API size_t dag_walk_report_size(const dag_walk_report *report);

/**
 * Number of vertices that finished with `status`.
 *
 * @param report  the report; NULL allowed.
 * @param status  the final state counted.
 * @return the count; 0 for NULL.
 * @since 1.0
 */
DAG_API size_t dag_walk_report_count(const dag_walk_report *report, dag_vertex_status status);

/**
 * Every vertex id in the report, ascending.
 *
 * @param report  the report.
 * @param out     receives an owned array (free with dag_ids_free()).
 * @param err     NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK               the ids are in `*out`.
 * @retval DAG_E_NULL_ARGUMENT  `report` or `out` is NULL.
 * @retval DAG_E_NOMEM          out of memory.
 * @since 1.0
 */
DAG_API dag_status dag_walk_report_vertices(const dag_walk_report *report, dag_ids **out,
                                            dag_error **err);

/**
 * One vertex's outcome. Each out-parameter may be NULL.
 *
 * @param report        the report.
 * @param vertex        the vertex.
 * @param out_status    receives its final state.
 * @param out_message   receives the vertex's message ("" if none), owned by
 *                      the report: valid until dag_walk_report_free(). A
 *                      failure's own message, or for a vertex that did not
 *                      finish by itself the walk's note: "cancelled while
 *                      pending", "removed by an update before it started",
 *                      "sub-walk failed: ..." or "sub-walk did not run to
 *                      its end".
 * @param out_start_ns  receives when its callback started, in nanoseconds
 *                      since the walk started (steady clock; read through
 *                      the TSC where the kernel's monotonic clock uses it,
 *                      scaled to the steady clock over the walk); 0 if it
 *                      never ran or timestamps were off. A vertex that ran
 *                      right after another on the same thread may get, to
 *                      save a clock read, the latest end time among that
 *                      vertex and its own dependencies: that counts the
 *                      scheduler's hand-over, tens of nanoseconds, as part
 *                      of the vertex. Never earlier than any dependency's
 *                      end time.
 * @param out_end_ns    receives when it finished (completion time for a
 *                      pending vertex, sub-walk end for an expanded one).
 * @param err           NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                the outcome is in the out-parameters.
 * @retval DAG_E_NULL_ARGUMENT   `report` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  `vertex` is not in the report.
 * @since 1.0
 */
DAG_API dag_status dag_walk_report_vertex(const dag_walk_report *report, uint64_t vertex,
                                          dag_vertex_status *out_status, const char **out_message,
                                          int64_t *out_start_ns, int64_t *out_end_ns,
                                          dag_error **err);

/**
 * How many times a vertex's callback was called: 0 if it never ran, 1 if it
 * ran once, more when failed attempts were tried again
 * (dag_walk_options.retries).
 *
 * @param report        the report.
 * @param vertex        the vertex.
 * @param out_attempts  receives the count.
 * @param err           NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                the count is in *out_attempts.
 * @retval DAG_E_NULL_ARGUMENT   `report` or `out_attempts` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX  `vertex` is not in the report.
 * @since 1.3
 */
DAG_API dag_status dag_walk_report_attempts(const dag_walk_report *report, uint64_t vertex, size_t *out_attempts,
                                            dag_error **err);

/**
 * The message of one attempt of a vertex: attempt 0 is the first; the last
 * attempt's is the vertex's message (dag_walk_report_vertex()), "" for none.
 *
 * @param report       the report.
 * @param vertex       the vertex.
 * @param attempt      0 to dag_walk_report_attempts() - 1.
 * @param out_message  receives the message, "" for none; valid until the
 *                     report is freed.
 * @param err          NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the message is in *out_message.
 * @retval DAG_E_NULL_ARGUMENT     `report` or `out_message` is NULL.
 * @retval DAG_E_UNKNOWN_VERTEX    `vertex` is not in the report.
 * @retval DAG_E_INVALID_ARGUMENT  `attempt` is not below the vertex's attempts.
 * @since 1.3
 */
DAG_API dag_status dag_walk_report_attempt_message(const dag_walk_report *report, uint64_t vertex, size_t attempt,
                                                   const char **out_message, dag_error **err);

/**
 * One vertex's outcome, as dag_walk_report_read() writes it: the fields of
 * dag_walk_report_vertex() and dag_walk_report_ran() in one struct. It may
 * grow at its end in later releases; the caller says how much of it it has.
 * @since 1.2
 */
typedef struct dag_vertex_outcome {
    uint64_t vertex;          /**< the vertex id */
    dag_vertex_status status; /**< its final status */
    int ran;                  /**< as dag_walk_report_ran() */
    int64_t start_ns;         /**< as dag_walk_report_vertex()'s out_start_ns */
    int64_t end_ns;           /**< as dag_walk_report_vertex()'s out_end_ns */
    /** its message ("" if none), owned by the report: valid until dag_walk_report_free() */
    const char *message;
} dag_vertex_outcome;

/**
 * Reads many outcomes at once: entries `first` to `first + count - 1` of the
 * report, in ascending vertex id order (the order of
 * dag_walk_report_vertices()), into `out`. A binding reads a whole report
 * with one call instead of one call and one lookup per vertex.
 *
 * @param report        the report.
 * @param first         the first entry to read; dag_walk_report_size() or
 *                      more reads nothing.
 * @param count         how many entries `out` has room for.
 * @param out           room for `count` entries of `outcome_size` bytes each.
 * @param outcome_size  sizeof(dag_vertex_outcome) as the caller was built:
 *                      at least the 1.2 layout; bytes of a larger struct
 *                      that this library does not know are zeroed.
 * @param out_written   receives how many entries were written:
 *                      min(count, size - first), or 0.
 * @param err           NULL, or receives the error on failure (see dag_error).
 * @retval DAG_OK                  the entries are written.
 * @retval DAG_E_NULL_ARGUMENT     `report` or `out_written` is NULL, or `out`
 *         with `count` above 0.
 * @retval DAG_E_INVALID_ARGUMENT  `outcome_size` is below the 1.2 layout or
 *         above 4096.
 * @since 1.2
 */
DAG_API dag_status dag_walk_report_read(const dag_walk_report *report, size_t first,
                                        dag_vertex_outcome *out, size_t count, size_t outcome_size,
                                        size_t *out_written, dag_error **err);

/**
 * The first failure recorded.
 *
 * @param report       the report; NULL allowed.
 * @param out_message  NULL, or receives "vertex NAME failed: MESSAGE", or
 *                     "vertex NAME failed" when the failure had no message
 *                     ("" when nothing failed), owned by the report.
 * @return its vertex id, or DAG_NO_VERTEX when nothing failed (or for NULL).
 * @since 1.0
 */
DAG_API uint64_t dag_walk_report_first_error(const dag_walk_report *report,
                                             const char **out_message);

/**
 * Whether the walk was cancelled.
 *
 * @param report  the report; NULL allowed.
 * @return 1 if the walk was cancelled, else 0 (also for NULL).
 * @since 1.0
 */
DAG_API int dag_walk_report_cancelled(const dag_walk_report *report);

/**
 * Whether the vertex's callback was called. Tells apart the two kinds of
 * DAG_VERTEX_CANCELLED: a vertex that was pending (or walking its sub-graph)
 * when the walk was cancelled ran; one that never started did not.
 * Independent of `timestamps`. OK and FAILED vertices ran; NOT_RUN and
 * UPSTREAM_FAILED ones did not.
 *
 * @param report  the report; NULL allowed.
 * @param vertex  the vertex.
 * @return 1 if it ran, else 0 (also for a NULL report or an id not in it).
 * @since 1.0
 */
DAG_API int dag_walk_report_ran(const dag_walk_report *report, uint64_t vertex);

/**
 * The name of a vertex status.
 *
 * @param status  any value, a dag_vertex_status or not.
 * @return a static name ("upstream-failed"); "unknown" otherwise.
 * @since 1.0
 */
DAG_API const char *dag_vertex_status_string(dag_vertex_status status);

/* ------------------------------------------------------------------------ */
/* Function table for plugin hosts                                           */
/* ------------------------------------------------------------------------ */

/**
 * Every public function, for hosts that dlopen() libdag and look up one
 * symbol instead of each function. Fields are only ever appended: a host
 * compiled against an older header reads a prefix of a newer table; a host
 * compiled against a newer header must check `size` before using a field
 * (offsetof(dag_api_table, field) < size).
 *
 * Field names: each function's name without the `dag_` prefix (`add_vertex`
 * is dag_add_vertex()), except where that name cannot be a field:
 * `new_graph` is dag_new() (`new` is a C++ keyword), `free_graph` is
 * dag_free() (a field `free` would be rewritten by the function-like `free`
 * macros of leak checkers, such as MSVC's crtdbg.h) and `version_number` is
 * dag_version() (`version` is the number itself). A function whose bare name
 * has the same problem gets the same treatment: its name, `_`, and what it
 * makes, frees or returns. Each field's comment names its function.
 *
 * @since 1.0; fields added later say when.
 */
typedef struct dag_api_table {
    size_t size;      /**< sizeof(dag_api_table) as the library was built */
    unsigned version; /**< dag_version() */
    /** dag_version() */
    unsigned (*version_number)(void);
    /** dag_version_string() */
    const char *(*version_string)(void);
    /** dag_status_string() */
    const char *(*status_string)(dag_status status);
    /** dag_error_status() */
    dag_status (*error_status)(const dag_error *err);
    /** dag_error_message() */
    const char *(*error_message)(const dag_error *err);
    /** dag_error_free() */
    void (*error_free)(dag_error *err);
    /** dag_ids_count() */
    size_t (*ids_count)(const dag_ids *ids);
    /** dag_ids_data() */
    const uint64_t *(*ids_data)(const dag_ids *ids);
    /** dag_ids_free() */
    void (*ids_free)(dag_ids *ids);
    /** dag_string_free() */
    void (*string_free)(char *str);
    /** dag_new() */
    dag_status (*new_graph)(dag_graph **out, dag_error **err);
    /** dag_free() */
    void (*free_graph)(dag_graph *g);
    /** dag_clone() */
    dag_status (*clone)(const dag_graph *g, dag_graph **out, dag_error **err);
    /** dag_add_vertex() */
    dag_status (*add_vertex)(dag_graph *g, const char *name, void *user_data, uint64_t *out_id,
                             dag_error **err);
    /** dag_remove_vertex() */
    dag_status (*remove_vertex)(dag_graph *g, uint64_t id, dag_error **err);
    /** dag_replace_vertex() */
    dag_status (*replace_vertex)(dag_graph *g, uint64_t original, uint64_t replacement,
                                 dag_error **err);
    /** dag_has_vertex() */
    int (*has_vertex)(const dag_graph *g, uint64_t id);
    /** dag_vertex_count() */
    size_t (*vertex_count)(const dag_graph *g);
    /** dag_find_vertex() */
    dag_status (*find_vertex)(const dag_graph *g, const char *name, uint64_t *out_id,
                              dag_error **err);
    /** dag_vertex_name() */
    dag_status (*vertex_name)(const dag_graph *g, uint64_t id, const char **out_name,
                              dag_error **err);
    /** dag_set_vertex_name() */
    dag_status (*set_vertex_name)(dag_graph *g, uint64_t id, const char *name, dag_error **err);
    /** dag_vertex_user_data() */
    dag_status (*vertex_user_data)(const dag_graph *g, uint64_t id, void **out, dag_error **err);
    /** dag_set_vertex_user_data() */
    dag_status (*set_vertex_user_data)(dag_graph *g, uint64_t id, void *user_data, dag_error **err);
    /** dag_connect() */
    dag_status (*connect)(dag_graph *g, uint64_t from, uint64_t to, dag_error **err);
    /** dag_connect_many() */
    dag_status (*connect_many)(dag_graph *g, const uint64_t *pairs, size_t count, dag_error **err);
    /** dag_disconnect() */
    dag_status (*disconnect)(dag_graph *g, uint64_t from, uint64_t to, dag_error **err);
    /** dag_has_edge() */
    int (*has_edge)(const dag_graph *g, uint64_t from, uint64_t to);
    /** dag_edge_count() */
    size_t (*edge_count)(const dag_graph *g);
    /** dag_vertices() */
    dag_status (*vertices)(const dag_graph *g, dag_ids **out, dag_error **err);
    /** dag_edges() */
    dag_status (*edges)(const dag_graph *g, dag_ids **out_pairs, dag_error **err);
    /** dag_dependencies() */
    dag_status (*dependencies)(const dag_graph *g, uint64_t id, dag_ids **out, dag_error **err);
    /** dag_dependents() */
    dag_status (*dependents)(const dag_graph *g, uint64_t id, dag_ids **out, dag_error **err);
    /** dag_subsume() */
    dag_status (*subsume)(dag_graph *g, const dag_graph *other, dag_error **err);
    /** dag_to_string() */
    dag_status (*to_string)(const dag_graph *g, char **out, dag_error **err);
    /** dag_root() */
    dag_status (*root)(const dag_graph *g, uint64_t *out_root, dag_error **err);
    /** dag_validate_options_init() */
    dag_status (*validate_options_init)(dag_validate_options *opts, size_t size, dag_error **err);
    /** dag_validate() */
    dag_status (*validate)(const dag_graph *g, const dag_validate_options *opts,
                           dag_validation **out, dag_error **err);
    /** dag_validation_status() */
    dag_status (*validation_status)(const dag_validation *v);
    /** dag_validation_text() */
    const char *(*validation_text)(const dag_validation *v);
    /** dag_validation_message_count() */
    size_t (*validation_message_count)(const dag_validation *v);
    /** dag_validation_message() */
    const char *(*validation_message)(const dag_validation *v, size_t index);
    /** dag_validation_cycle_count() */
    size_t (*validation_cycle_count)(const dag_validation *v);
    /** dag_validation_cycle() */
    const uint64_t *(*validation_cycle)(const dag_validation *v, size_t index, size_t *out_count);
    /** dag_validation_self_references() */
    const uint64_t *(*validation_self_references)(const dag_validation *v, size_t *out_count);
    /** dag_validation_free() */
    void (*validation_free)(dag_validation *v);
    /** dag_id_lists_count() */
    size_t (*id_lists_count)(const dag_id_lists *lists);
    /** dag_id_lists_get() */
    const uint64_t *(*id_lists_get)(const dag_id_lists *lists, size_t index, size_t *out_count);
    /** dag_id_lists_free() */
    void (*id_lists_free)(dag_id_lists *lists);
    /** dag_strongly_connected() */
    dag_status (*strongly_connected)(const dag_graph *g, dag_id_lists **out, dag_error **err);
    /** dag_cycles() */
    dag_status (*cycles)(const dag_graph *g, dag_id_lists **out, dag_error **err);
    /** dag_transitive_reduction() */
    dag_status (*transitive_reduction)(dag_graph *g, size_t *out_removed, dag_error **err);
    /** dag_topological_order() */
    dag_status (*topological_order)(const dag_graph *g, dag_ids **out, dag_error **err);
    /** dag_reverse_topological_order() */
    dag_status (*reverse_topological_order)(const dag_graph *g, dag_ids **out, dag_error **err);
    /** dag_traverse() */
    dag_status (*traverse)(const dag_graph *g, const uint64_t *start, size_t start_count,
                           unsigned flags, dag_visit_fn visit, void *user_data, dag_error **err);
    /** dag_ancestors() */
    dag_status (*ancestors)(const dag_graph *g, const uint64_t *ids, size_t count, dag_ids **out,
                            dag_error **err);
    /** dag_descendants() */
    dag_status (*descendants)(const dag_graph *g, const uint64_t *ids, size_t count, dag_ids **out,
                              dag_error **err);
    /** dag_first_ancestors_with() */
    dag_status (*first_ancestors_with)(const dag_graph *g, const uint64_t *ids, size_t count,
                                       dag_predicate_fn match, void *user_data, dag_ids **out,
                                       dag_error **err);
    /** dag_first_descendants_with() */
    dag_status (*first_descendants_with)(const dag_graph *g, const uint64_t *ids, size_t count,
                                         dag_predicate_fn match, void *user_data, dag_ids **out,
                                         dag_error **err);
    /** dag_match_ancestor() */
    dag_status (*match_ancestor)(const dag_graph *g, const uint64_t *ids, size_t count,
                                 dag_predicate_fn match, void *user_data, int *out_found,
                                 dag_error **err);
    /** dag_match_descendant() */
    dag_status (*match_descendant)(const dag_graph *g, const uint64_t *ids, size_t count,
                                   dag_predicate_fn match, void *user_data, int *out_found,
                                   dag_error **err);
    /** dag_walk_options_init() */
    dag_status (*walk_options_init)(dag_walk_options *opts, size_t size, dag_error **err);
    /** dag_walk() */
    dag_status (*walk)(dag_graph *g, dag_walk_fn callback, void *user_data,
                       const dag_walk_options *opts, dag_walk_report **out_report, dag_error **err);
    /** dag_walk_start() */
    dag_status (*walk_start)(dag_graph *g, dag_walk_fn callback, void *user_data,
                             const dag_walk_options *opts, dag_walker **out, dag_error **err);
    /** dag_walk_wait() */
    dag_status (*walk_wait)(dag_walker *walk, dag_walk_report **out_report, dag_error **err);
    /** dag_walk_cancel() */
    dag_status (*walk_cancel)(dag_walker *walk, dag_error **err);
    /** dag_walk_free() */
    void (*walk_free)(dag_walker *walk);
    /** dag_walk_complete() */
    dag_status (*walk_complete)(dag_walker *walk, uint64_t vertex, dag_walk_result result,
                                const char *message, dag_error **err);
    /** dag_walk_expand() */
    dag_status (*walk_expand)(dag_walker *walk, uint64_t vertex, const dag_graph *sub,
                              dag_walk_fn callback, void *user_data, dag_error **err);
    /** dag_walk_graph() */
    const dag_graph *(*walk_graph)(const dag_walker *walk);
    /** dag_walk_update_new() */
    dag_status (*walk_update_new)(dag_walk_update **out, dag_error **err);
    /** dag_walk_update_free() */
    void (*walk_update_free)(dag_walk_update *update);
    /** dag_walk_update_add_vertex() */
    dag_status (*walk_update_add_vertex)(dag_walk_update *update, const char *name, void *user_data,
                                         int always_run, uint64_t *out_provisional,
                                         dag_error **err);
    /** dag_walk_update_connect() */
    dag_status (*walk_update_connect)(dag_walk_update *update, uint64_t from, uint64_t to,
                                      dag_error **err);
    /** dag_walk_update_disconnect() */
    dag_status (*walk_update_disconnect)(dag_walk_update *update, uint64_t from, uint64_t to,
                                         dag_error **err);
    /** dag_walk_update_remove_vertex() */
    dag_status (*walk_update_remove_vertex)(dag_walk_update *update, uint64_t id, dag_error **err);
    /** dag_walk_apply() */
    dag_status (*walk_apply)(dag_walker *walk, const dag_walk_update *update, dag_ids **out_new_ids,
                             dag_error **err);
    /** dag_walk_report_free() */
    void (*walk_report_free)(dag_walk_report *report);
    /** dag_walk_report_size() */
    size_t (*walk_report_size)(const dag_walk_report *report);
    /** dag_walk_report_count() */
    size_t (*walk_report_count)(const dag_walk_report *report, dag_vertex_status status);
    /** dag_walk_report_vertices() */
    dag_status (*walk_report_vertices)(const dag_walk_report *report, dag_ids **out,
                                       dag_error **err);
    /** dag_walk_report_vertex() */
    dag_status (*walk_report_vertex)(const dag_walk_report *report, uint64_t vertex,
                                     dag_vertex_status *out_status, const char **out_message,
                                     int64_t *out_start_ns, int64_t *out_end_ns, dag_error **err);
    /** dag_walk_report_first_error() */
    uint64_t (*walk_report_first_error)(const dag_walk_report *report, const char **out_message);
    /** dag_walk_report_cancelled() */
    int (*walk_report_cancelled)(const dag_walk_report *report);
    /** dag_vertex_status_string() */
    const char *(*vertex_status_string)(dag_vertex_status status);
    /** dag_walk_report_ran() */
    int (*walk_report_ran)(const dag_walk_report *report, uint64_t vertex);
    /** dag_export_graph(); @since 1.1 */
    dag_status (*export_graph)(const dag_graph *g, dag_format format, char **out, dag_error **err);
    /** dag_import_graph(); @since 1.1 */
    dag_status (*import_graph)(dag_format format, const char *data, size_t size, dag_graph **out,
                               dag_error **err);
    /** dag_import_graph_file(); @since 1.1 */
    dag_status (*import_graph_file)(dag_format format, const char *path, dag_graph **out,
                              dag_error **err);
    /** dag_format_name(); @since 1.1 */
    const char *(*format_name)(dag_format format);
    /** dag_roots(); @since 1.2 */
    dag_status (*roots)(const dag_graph *g, dag_ids **out, dag_error **err);
    /** dag_leaves(); @since 1.2 */
    dag_status (*leaves)(const dag_graph *g, dag_ids **out, dag_error **err);
    /** dag_dependency_count(); @since 1.2 */
    dag_status (*dependency_count)(const dag_graph *g, uint64_t id, size_t *out_count,
                                   dag_error **err);
    /** dag_dependent_count(); @since 1.2 */
    dag_status (*dependent_count)(const dag_graph *g, uint64_t id, size_t *out_count,
                                  dag_error **err);
    /** dag_search(); @since 1.2 */
    dag_status (*search)(const dag_graph *g, const uint64_t *ids, size_t count, unsigned flags,
                         dag_search_fn fn, void *user_data, dag_ids **out, dag_error **err);
    /** dag_walk_fail(); @since 1.2 */
    dag_status (*walk_fail)(dag_walker *walk, uint64_t vertex, const char *message,
                            dag_error **err);
    /** dag_walk_wait_for(); @since 1.2 */
    dag_status (*walk_wait_for)(dag_walker *walk, int timeout_ms, dag_walk_report **out_report,
                                dag_error **err);
    /** dag_walk_begin(); @since 1.2 */
    dag_status (*walk_begin)(dag_graph *g, const dag_walk_options *opts, dag_walker **out,
                             dag_error **err);
    /** dag_walk_next_ready(); @since 1.2 */
    dag_status (*walk_next_ready)(dag_walker *walk, uint64_t *vertices, dag_walker **walks,
                                  size_t capacity, int timeout_ms, size_t *out_count,
                                  dag_error **err);
    /** dag_walk_report_read(); @since 1.2 */
    dag_status (*walk_report_read)(const dag_walk_report *report, size_t first,
                                   dag_vertex_outcome *out, size_t count, size_t outcome_size,
                                   size_t *out_written, dag_error **err);
    /** dag_walk_progress(); @since 1.2 */
    dag_status (*walk_progress)(dag_walker *walk, size_t *out_done, size_t *out_total,
                                dag_error **err);
    /** dag_select(); @since 1.3 */
    dag_status (*select)(const dag_graph *g, const uint64_t *targets, size_t target_count,
                         const uint64_t *excludes, size_t exclude_count, unsigned flags,
                         dag_graph **out, dag_error **err);
    /** dag_builder_new(); @since 1.3 */
    dag_status (*builder_new)(dag_graph *g, dag_builder **out, dag_error **err);
    /** dag_builder_free(); @since 1.3 */
    void (*builder_free)(dag_builder *b);
    /** dag_builder_provide(); @since 1.3 */
    dag_status (*builder_provide)(dag_builder *b, uint64_t vertex, const char *address, dag_error **err);
    /** dag_builder_reference(); @since 1.3 */
    dag_status (*builder_reference)(dag_builder *b, uint64_t vertex, const char *address, dag_error **err);
    /** dag_builder_need(); @since 1.3 */
    dag_status (*builder_need)(dag_builder *b, uint64_t vertex, const char *key, dag_error **err);
    /** dag_builder_set_action(); @since 1.3 */
    dag_status (*builder_set_action)(dag_builder *b, uint64_t vertex, dag_action action, dag_error **err);
    /** dag_builder_add_step(); @since 1.3 */
    dag_status (*builder_add_step)(dag_builder *b, const char *name, dag_build_step_fn fn, void *user_data,
                                   dag_error **err);
    /** dag_builder_add_references(); @since 1.3 */
    dag_status (*builder_add_references)(dag_builder *b, unsigned flags, dag_error **err);
    /** dag_builder_add_shared(); @since 1.3 */
    dag_status (*builder_add_shared)(dag_builder *b, unsigned flags, dag_error **err);
    /** dag_builder_add_root(); @since 1.3 */
    dag_status (*builder_add_root)(dag_builder *b, const char *name, dag_error **err);
    /** dag_builder_add_destroy_order(); @since 1.3 */
    dag_status (*builder_add_destroy_order)(dag_builder *b, dag_error **err);
    /** dag_builder_add_transitive_reduction(); @since 1.3 */
    dag_status (*builder_add_transitive_reduction)(dag_builder *b, dag_error **err);
    /** dag_builder_add_prune(); @since 1.3 */
    dag_status (*builder_add_prune)(dag_builder *b, dag_predicate_fn fn, void *user_data, dag_error **err);
    /** dag_build_options_init(); @since 1.3 */
    dag_status (*build_options_init)(dag_build_options *opts, size_t size, dag_error **err);
    /** dag_build(); @since 1.3 */
    dag_status (*build)(dag_builder *b, const dag_build_options *opts, dag_error **err);
    /** dag_builder_warnings(); @since 1.3 */
    dag_status (*builder_warnings)(const dag_builder *b, char **out, dag_error **err);
    /** dag_walk_report_attempts(); @since 1.3 */
    dag_status (*walk_report_attempts)(const dag_walk_report *report, uint64_t vertex, size_t *out_attempts,
                                       dag_error **err);
    /** dag_walk_report_attempt_message(); @since 1.3 */
    dag_status (*walk_report_attempt_message)(const dag_walk_report *report, uint64_t vertex, size_t attempt,
                                              const char **out_message, dag_error **err);
    /** dag_add_vertices(); @since 1.3 */
    dag_status (*add_vertices)(dag_graph *g, const char *const *names, void *const *user_data, size_t count,
                               uint64_t *out_ids, dag_error **err);
    /** dag_find_vertices(); @since 1.3 */
    dag_status (*find_vertices)(const dag_graph *g, const char *const *names, size_t count, uint64_t *out_ids,
                                dag_error **err);
} dag_api_table;

/** The ABI major version dag_api() accepts today. */
#define DAG_API_ABI 1

/**
 * The function table for an ABI major version. The table is static: never
 * freed, valid as long as the library stays loaded. Any thread.
 *
 *     void *h = dlopen("libdag.so.1", RTLD_NOW);
 *     const dag_api_table *(*get)(unsigned) = ...dlsym(h, "dag_api");
 *     const dag_api_table *api = get(DAG_API_ABI);
 *
 * Unloading. libdag is linked with -z nodelete (since 1.2): dlclose()
 * drops the host's reference but never unmaps the library nor runs its
 * destructors, which run at process exit instead. So a host may dlclose()
 * it while walks still run, even while pool threads are inside callbacks
 * that will return into libdag: the walks go on, their callbacks keep being
 * called, and nothing crashes. Their handles and this table stay valid; a
 * later dlopen() of the same file finds the same library, through which
 * the walks can still be waited for and freed. A host that wants its
 * memory back waits for and frees its walks before dlclose(): the library
 * itself (a few MB of code) stays mapped until the process exits, as any
 * library with threads of its own must, or its threads would return into
 * unmapped code.
 *
 * @param abi  the ABI major version the host was built for: DAG_API_ABI.
 * @return the table, or NULL when this library does not provide that ABI.
 * @since 1.0
 */
DAG_API const dag_api_table *dag_api(unsigned abi);

#ifdef __cplusplus
}
#endif

#endif /* DAG_DAG_H */

/*
 * A small C program using the installed libdag: it builds the dependency
 * graph of a tiny deployment, prints it in Terraform's String() layout,
 * validates it, prints the execution order, and walks it on a thread pool.
 *
 *   cc hello.c $(pkg-config --cflags --libs libdag) -o hello && ./hello
 */
#include <dag/dag.h>
#include <stdio.h>

/* The walk's work for each vertex: here, only counting. Runs on pool threads. */
static dag_walk_result deploy(dag_walker *walk, uint64_t vertex, const char **message, void *user) {
    (void)walk;
    (void)vertex;
    (void)message;
    (void)user;
    return DAG_WALK_OK;
}

/*
 * Returns 0 for DAG_OK; otherwise prints the error, frees it and returns 1.
 * It takes &err, not err: C leaves the order of evaluating arguments open, so
 * err could be read before the call in the first argument has written it.
 */
static int check(dag_status st, dag_error **err) {
    if (st == DAG_OK) return 0;
    fprintf(stderr, "libdag: %s: %s\n", dag_status_string(st), dag_error_message(*err));
    dag_error_free(*err);
    *err = NULL;
    return 1;
}

int main(void) {
    dag_graph *g = NULL;
    dag_error *err = NULL;
    uint64_t vpc, subnet, instance, dns;
    char *text = NULL;
    dag_ids *order = NULL;
    dag_walk_options opts;
    dag_walk_report *report = NULL;
    size_t i;
    dag_status st;
    int failed = 0;

    if (check(dag_new(&g, &err), &err)) return 1;
    failed |= check(dag_add_vertex(g, "aws_vpc.main", NULL, &vpc, &err), &err);
    failed |= check(dag_add_vertex(g, "aws_subnet.a", NULL, &subnet, &err), &err);
    failed |= check(dag_add_vertex(g, "aws_instance.web", NULL, &instance, &err), &err);
    failed |= check(dag_add_vertex(g, "aws_route53_record.www", NULL, &dns, &err), &err);
    if (failed) goto out;

    /* a -> b: a depends on b. */
    failed |= check(dag_connect(g, subnet, vpc, &err), &err);
    failed |= check(dag_connect(g, instance, subnet, &err), &err);
    failed |= check(dag_connect(g, dns, instance, &err), &err);
    if (failed) goto out;

    /* The same name twice is refused with its own status and a message. */
    st = dag_add_vertex(g, "aws_vpc.main", NULL, NULL, &err);
    if (st != DAG_E_DUPLICATE_NAME) {
        fprintf(stderr, "expected DAG_E_DUPLICATE_NAME, got %s\n", dag_status_string(st));
        failed = 1;
        goto out; /* frees err */
    }
    printf("refused as expected: %s\n", dag_error_message(err));
    dag_error_free(err);
    err = NULL;

    if (check(dag_to_string(g, &text, &err), &err)) {
        failed = 1;
        goto out;
    }
    printf("libdag %s: %zu vertices, %zu edges\n%s", dag_version_string(), dag_vertex_count(g),
           dag_edge_count(g), text);
    dag_string_free(text);

    if (check(dag_validate(g, NULL, NULL, &err), &err) ||
        check(dag_reverse_topological_order(g, &order, &err), &err)) {
        failed = 1;
        goto out;
    }
    printf("valid; execution order:");
    for (i = 0; i < dag_ids_count(order); ++i) {
        const char *name = NULL;
        if (check(dag_vertex_name(g, dag_ids_data(order)[i], &name, &err), &err)) {
            failed = 1;
            break;
        }
        printf(" %s", name);
    }
    printf("\n");
    dag_ids_free(order);
    if (failed) goto out;

    if (check(dag_walk_options_init(&opts, sizeof opts, &err), &err)) {
        failed = 1;
        goto out;
    }
    opts.threads = 4;
    if (check(dag_walk(g, deploy, NULL, &opts, &report, &err), &err)) {
        dag_walk_report_free(report);
        failed = 1;
        goto out;
    }
    printf("walked: %zu of %zu vertices ok\n", dag_walk_report_count(report, DAG_VERTEX_OK),
           dag_walk_report_size(report));
    dag_walk_report_free(report);
out:
    dag_error_free(err); /* NULL is allowed */
    dag_free(g);
    return failed;
}

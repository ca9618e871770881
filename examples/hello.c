/*
 * A small C program using the installed libdag: it builds the dependency
 * graph of a tiny deployment and prints it in Terraform's String() layout.
 *
 *   cc hello.c $(pkg-config --cflags --libs libdag) -o hello && ./hello
 */
#include <dag/dag.h>
#include <stdio.h>

static int check(dag_status st, dag_error *err) {
    if (st == DAG_OK) return 0;
    fprintf(stderr, "libdag: %s: %s\n", dag_status_string(st), dag_error_message(err));
    dag_error_free(err);
    return 1;
}

int main(void) {
    dag_graph *g = NULL;
    dag_error *err = NULL;
    uint64_t vpc, subnet, instance, dns;
    char *text = NULL;
    int failed = 0;

    if (check(dag_new(&g, &err), err)) return 1;
    failed |= check(dag_add_vertex(g, "aws_vpc.main", NULL, &vpc, &err), err);
    failed |= check(dag_add_vertex(g, "aws_subnet.a", NULL, &subnet, &err), err);
    failed |= check(dag_add_vertex(g, "aws_instance.web", NULL, &instance, &err), err);
    failed |= check(dag_add_vertex(g, "aws_route53_record.www", NULL, &dns, &err), err);
    if (failed) goto out;

    /* a -> b: a depends on b. */
    failed |= check(dag_connect(g, subnet, vpc, &err), err);
    failed |= check(dag_connect(g, instance, subnet, &err), err);
    failed |= check(dag_connect(g, dns, instance, &err), err);
    if (failed) goto out;

    /* The same name twice is refused with its own status and a message. */
    if (dag_add_vertex(g, "aws_vpc.main", NULL, NULL, &err) != DAG_E_DUPLICATE_NAME) {
        fprintf(stderr, "expected DAG_E_DUPLICATE_NAME\n");
        failed = 1;
        goto out;
    }
    printf("refused as expected: %s\n", dag_error_message(err));
    dag_error_free(err);

    if (check(dag_to_string(g, &text, &err), err)) {
        failed = 1;
        goto out;
    }
    printf("libdag %s: %zu vertices, %zu edges\n%s", dag_version_string(), dag_vertex_count(g),
           dag_edge_count(g), text);
    dag_string_free(text);
out:
    dag_free(g);
    return failed;
}

/*
 * Preloaded into `dag walk` by never_started_test.sh: holds each command's
 * start, in the vertex's callback, until the test has stopped the walk, so
 * that the stop lands between the callback's start and the command's, a
 * window otherwise too short to hit. posix_spawnattr_setflags is called
 * there and nowhere else in dag.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int posix_spawnattr_setflags(posix_spawnattr_t *attributes, short flags) {
    int (*real)(posix_spawnattr_t *, short) =
        (int (*)(posix_spawnattr_t *, short))dlsym(RTLD_NEXT, "posix_spawnattr_setflags");
    const char *gate = getenv("DAG_TEST_SPAWN_GATE");
    if (gate) {
        char entered[4096];
        snprintf(entered, sizeof entered, "%s.entered", gate);
        int fd = open(entered, O_WRONLY | O_CREAT, 0600);
        if (fd >= 0) close(fd);
        /* At most a minute: a broken test fails instead of hanging. */
        for (int i = 0; i < 6000 && access(gate, F_OK) != 0; ++i) usleep(10000);
    }
    return real(attributes, flags);
}

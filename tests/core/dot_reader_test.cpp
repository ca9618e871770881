// What the DOT reader does to Graphviz's global state: a host that uses
// Graphviz itself keeps its own error hook and level.
#include <gtest/gtest.h>

#include <graphviz/cgraph.h>

#include "formats/dot_reader.hpp"
#include "graph/error.hpp"

namespace {

int host_errors = 0;
int host_hook(char *) {
    ++host_errors;
    return 0;
}

}  // namespace

TEST(DotReader, RestoresTheHostsGraphvizErrorHookAndLevel) {
    agusererrf before = agseterrf(host_hook);
    agerrlevel_t level_before = agseterr(AGWARN);
    for (const char *text : {"digraph { a -> }", "digraph { a -> b }"}) {
        dag::Graph g;
        try {
            dag::read_dot(text, true, g);
        } catch (const dag::Error &e) {
            EXPECT_EQ(e.code(), dag::Errc::parse);
        }
    }
    EXPECT_EQ(host_errors, 0) << "libdag's parse errors reached the host's hook";
    EXPECT_EQ(agseterrf(before), host_hook);
    EXPECT_EQ(agseterr(level_before), AGWARN);
}

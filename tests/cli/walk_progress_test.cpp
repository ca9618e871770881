// `dag walk --progress[=auto|always|never]`: the status line redrawn in place
// on a terminal, a line per vertex elsewhere.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "timed_dag.hpp"

namespace {

using namespace cli_test;

TEST(CliWalkProgress, StatusLineIsRedrawnInPlaceOnATerminal) {
    ScratchDir dir;
    const std::string graph = graph_file(dir, "digraph { a -> b; b -> c }");
    // auto, the default, draws it on a terminal. c runs first, for ten of
    // the line's redraws, so that a busy machine still draws it running.
    Outcome r = on_terminal(dir, {"walk", graph, "--parallelism", "1", "--exec",
                                  "[ \"$DAG_VERTEX\" != c ] || sleep 1; echo \"ran $DAG_VERTEX\""});
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("\r[0/3] running 1, failed 0, "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("/s: c\x1b[K"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\r[3/3] running 0, failed 0, "), std::string::npos) << r.out;
    // Each command's output comes after the line was erased, and the
    // summary after the last erase.
    EXPECT_NE(r.out.find("\r\x1b[Kc: ran c"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\r\x1b[K3 ok, 0 failed, 0 upstream failed, 0 not run"), std::string::npos)
        << r.out;
    // No progress line per vertex.
    EXPECT_EQ(r.out.find("] c\r\n"), std::string::npos) << r.out;

    r = on_terminal(dir, {"walk", graph, "--progress=never", "--exec", "true"});
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(r.out.find("\x1b[K"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("[3/3]"), std::string::npos) << r.out;
}

// Streamed commands write to the terminal themselves: a line redrawn in
// place was left under their output, a piece of it before every line.
TEST(CliWalkProgress, StreamedOutputOnATerminalGetsLinesNotARedrawnLine) {
    ScratchDir dir;
    const std::string graph = graph_file(dir, "digraph { a -> b }");
    Outcome r = on_terminal(dir, {"walk", graph, "--output", "stream", "--parallelism", "1", "--exec",
                                  "sleep 0.2; echo \"out of $DAG_VERTEX\""});
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(r.out.find("\x1b[K"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("running"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("out of b\r\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[1/2] b\r\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[2/2] a\r\n"), std::string::npos) << r.out;
}

// A vertex tried again counts once, and not while it waits out its back-off
// (it counted once more at each attempt, and all the while).
TEST(CliWalkProgress, AVertexTriedAgainCountsAsRunningOnlyWhileItRuns) {
    ScratchDir dir;
    const std::string graph = graph_file(dir, "digraph { x }");
    Outcome r = on_terminal(dir, {"walk", graph, "--progress", "--retries", "2", "--retry-delay", "300", "--exec",
                                  "sleep 0.05; false"});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_EQ(r.out.find("running 2"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("running 3"), std::string::npos) << r.out;
    // The back-offs (300 and 600 ms) are drawn, with nothing running.
    EXPECT_NE(r.out.find("\r[0/1] running 0, failed 0, "), std::string::npos) << r.out;
}

TEST(CliWalkProgress, StatusLineFitsTheTerminalsWidth) {
    ScratchDir dir;
    const std::string name(100, 'v');
    const std::string graph = graph_file(dir, "digraph { " + name + "; w }");
    Outcome r = on_terminal(dir, {"walk", graph, "--progress", "--parallelism", "1", "--exec", "sleep 0.2"},
                        40);
    ASSERT_EQ(r.status, 0) << r.out;
    size_t drawn = 0;
    for (size_t at = r.out.find("\r["); at != std::string::npos; at = r.out.find("\r[", at + 1)) {
        const size_t end = r.out.find("\x1b[K", at);
        ASSERT_NE(end, std::string::npos) << r.out;
        EXPECT_LE(end - at - 1, 39u) << r.out.substr(at, end - at);
        ++drawn;
    }
    EXPECT_GE(drawn, 2u) << r.out;
}

// Wide characters take two columns, and a name's control characters are
// shown as \xNN: the line was cut by characters, so a name of CJK ones
// wrapped it and each redraw left a line behind, and a newline or an escape
// sequence in a name moved the cursor or changed the terminal's colours.
TEST(CliWalkProgress, StatusLineShowsAnyNameInItsOneLine) {
    ScratchDir dir;
    std::string wide;
    for (int i = 0; i < 60; ++i) wide += "\xE6\x97\xA5";  // 日, two columns each
    const std::string graph =
        graph_file(dir, "digraph { \"" + wide + "\" -> \"line1\nline2\" -> \"x\x1b[31mred\xC2\x9B\" }");
    Outcome r = on_terminal(dir, {"walk", graph, "--progress", "--parallelism", "1", "--exec", "sleep 0.3"}, 80);
    ASSERT_EQ(r.status, 0) << r.out;
    size_t drawn = 0;
    for (size_t at = r.out.find("\r["); at != std::string::npos; at = r.out.find("\r[", at + 1)) {
        const size_t end = r.out.find("\x1b[K", at);
        ASSERT_NE(end, std::string::npos) << r.out;
        const std::string line = r.out.substr(at + 1, end - at - 1);
        size_t columns = 0;
        for (size_t i = 0; i < line.size(); ++i) {
            const auto c = static_cast<unsigned char>(line[i]);
            EXPECT_TRUE(c >= 0x20 && c != 0x7F) << "a control character in " << line;
            if (c == 0xE6) columns += 2;
            else if ((c & 0xC0) != 0x80) ++columns;
        }
        EXPECT_LE(columns, 79u) << line;
        ++drawn;
    }
    EXPECT_GE(drawn, 3u) << r.out;
    EXPECT_NE(r.out.find(": line1\\x0aline2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(": x\\x1b[31mred\\xc2\\x9b"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(": \xE6\x97\xA5"), std::string::npos) << r.out;
}

TEST(CliWalkProgress, LinesWhenStandardErrorIsNotATerminal) {
    ScratchDir dir;
    const std::string graph = graph_file(dir, "digraph { a -> b }");
    // auto on a pipe: nothing.
    Outcome r = shell(dir, dag_command({"walk", graph, "--exec", "true"}));
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.err, "2 ok, 0 failed, 0 upstream failed, 0 not run\n");
    // A bare --progress, as the README's first command has it, is always.
    for (const char *always : {"--progress", "--progress=always"}) {
        r = shell(dir, dag_command({"walk", always, "--exec", "true", graph}));
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "[1/2] b\n[2/2] a\n2 ok, 0 failed, 0 upstream failed, 0 not run\n");
    }
    r = shell(dir, dag_command({"walk", graph, "--progress=sometimes"}));
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("sometimes"), std::string::npos) << r.err;
}

// `dag walk --progress FILE`, as written before --progress took a value:
// FILE is the graph, and the bare flag means always.
TEST(CliWalkProgress, BareProgressBeforeTheFileKeepsTheFile) {
    ScratchDir dir;
    const std::string graph = graph_file(dir, "digraph { a -> b }");
    Outcome r = shell(dir, dag_command({"walk", "--progress", graph}));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "b\na\n");
    EXPECT_EQ(r.err, "[1/2] b\n[2/2] a\n2 ok, 0 failed, 0 upstream failed, 0 not run\n");

    r = on_terminal(dir, {"walk", "--progress", graph});
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("\r[2/2] running 0, failed 0, "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("[1/2] b\r\n"), std::string::npos) << r.out;

    r = shell(dir, dag_command({"walk", "--progress=never", graph}));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "2 ok, 0 failed, 0 upstream failed, 0 not run\n");
}

}  // namespace

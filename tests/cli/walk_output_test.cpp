// `dag walk --output grouped|stream|none`: where the --exec commands'
// standard output and error end up, and that capturing them never stalls
// a walk.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "timed_dag.hpp"

namespace {

using namespace cli_test;

// Three vertices whose commands run at once and write a line to each
// stream every 50 ms: streamed, their lines would mix.
const std::string chatty =
    "for i in 1 2 3; do echo \"$DAG_VERTEX out $i\"; echo \"$DAG_VERTEX err $i\" >&2; sleep 0.05; done";

TEST(CliWalkOutput, GroupedKeepsEachCommandsLinesTogetherAndPrefixed) {
    ScratchDir dir;
    const std::string graph = graph_file(dir, "digraph { a; b; c }");
    Outcome r = shell(dir, dag_command({"walk", graph, "--parallelism", "3", "--exec", chatty}));
    ASSERT_EQ(r.status, 0) << r.err;
    for (const auto &[text, stream] : {std::pair{r.out, "out"}, std::pair{r.err, "err"}}) {
        std::vector<std::string> lines = lines_of(text);
        ASSERT_GE(lines.size(), 9u) << text;
        std::map<std::string, int> blocks;
        for (size_t block = 0; block < 3; ++block) {
            const std::string vertex = lines[block * 3].substr(0, 1);
            ++blocks[vertex];
            for (int i = 1; i <= 3; ++i)
                EXPECT_EQ(lines[block * 3 + i - 1],
                          vertex + ": " + vertex + " " + stream + " " + std::to_string(i))
                    << text;
        }
        EXPECT_EQ(blocks, (std::map<std::string, int>{{"a", 1}, {"b", 1}, {"c", 1}})) << text;
    }
    EXPECT_EQ(lines_of(r.err).back(), "3 ok, 0 failed, 0 upstream failed, 0 not run");
}

TEST(CliWalkOutput, StreamPassesOutputThrough) {
    ScratchDir dir;
    const std::string graph = graph_file(dir, "digraph { a -> b }");
    Outcome r = shell(dir, dag_command({"walk", graph, "--output", "stream", "--exec",
                                    "echo \"ran $DAG_VERTEX\"; echo \"oops $DAG_VERTEX\" >&2"}));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "ran b\nran a\n");
    EXPECT_EQ(r.err, "oops b\noops a\n2 ok, 0 failed, 0 upstream failed, 0 not run\n");
}

TEST(CliWalkOutput, NoneDiscardsIt) {
    ScratchDir dir;
    const std::string graph = graph_file(dir, "digraph { a -> b }");
    Outcome r = shell(dir, dag_command({"walk", graph, "--output", "none", "--exec", chatty}));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "2 ok, 0 failed, 0 upstream failed, 0 not run\n");

    r = shell(dir, dag_command({"walk", graph, "--output", "loud", "--exec", "true"}));
    EXPECT_EQ(r.status, 2);
}

TEST(CliWalkOutput, GroupedKeepsNulBytes) {
    ScratchDir dir;
    const std::string graph = graph_file(dir, "digraph { a -> b }");
    Outcome r = shell(dir, dag_command({"walk", graph, "--parallelism", "1", "--exec",
                                        "printf 'before\\0after\\nline2\\n'; printf 'e\\0r\\n' >&2"}));
    ASSERT_EQ(r.status, 0) << r.err;
    using namespace std::string_literals;
    EXPECT_EQ(r.out, "b: before\0after\nb: line2\na: before\0after\na: line2\n"s);
    EXPECT_EQ(r.err, "b: e\0r\na: e\0r\n2 ok, 0 failed, 0 upstream failed, 0 not run\n"s);
}

TEST(CliWalkOutput, MoreThanAPipeHoldsDoesNotStallTheWalk) {
    ScratchDir dir;
    const std::string graph = graph_file(dir, "digraph { a; b }");
    // 200 000 bytes on each stream, more than three times a Linux pipe.
    Outcome r = shell(dir, dag_command({"walk", graph, "--exec",
                                    "head -c 200000 /dev/zero | tr '\\0' x; echo; "
                                    "head -c 200000 /dev/zero | tr '\\0' y >&2"}));
    ASSERT_EQ(r.status, 0) << r.err.substr(0, 200);
    EXPECT_EQ(r.out.size(), 2 * (3 + 200000 + 1));
    EXPECT_NE(r.out.find("a: " + std::string(200000, 'x') + "\n"), std::string::npos);
    EXPECT_NE(r.err.find("b: " + std::string(200000, 'y') + "\n"), std::string::npos);
}

// A graph of `count` vertices that depend on nothing: all ready at once.
std::string independent_vertices(const ScratchDir &dir, int count) {
    std::string dot = "digraph {";
    for (int i = 0; i < count; ++i) dot += " v" + std::to_string(i) + ";";
    return graph_file(dir, dot + " }");
}

// Grouped output takes two pipes a command: with more commands at once
// than the open-file limit leaves room for, those beyond it failed with
// "pipe: Too many open files" (above about 250 under the usual limit of
// 1024). Now they wait for descriptors another command frees.
TEST(CliWalkOutput, CommandsBeyondTheOpenFileLimitWaitInsteadOfFailing) {
    ScratchDir dir;
    const std::string graph = independent_vertices(dir, 100);
    // Soft and hard: room for dag and a handful of commands.
    Outcome r = shell(dir, "ulimit -n 40; exec " + dag_command({"walk", graph, "--parallelism", "64", "--exec",
                                                                  "sleep 0.05; echo \"$DAG_VERTEX\""}));
    ASSERT_EQ(r.status, 0) << r.err.substr(0, 400);
    EXPECT_EQ(lines_of(r.err).back(), "100 ok, 0 failed, 0 upstream failed, 0 not run");
    EXPECT_EQ(lines_of(r.out).size(), 100u);
    EXPECT_NE(r.out.find("v99: v99\n"), std::string::npos);
}

// Below what --parallelism needs, dag raises its soft limit on open files
// (up to the hard one) rather than hold commands back; they inherit it.
TEST(CliWalkOutput, TheSoftOpenFileLimitIsRaisedToWhatTheParallelismNeeds) {
    ScratchDir dir;
    const std::string graph = independent_vertices(dir, 3);
    rlimit limit{};
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
    const rlim_t needed = 4 * 100 + 64;
    ASSERT_GE(limit.rlim_max, 64u) << "the test lowers the soft limit to 64";
    const rlim_t expected = limit.rlim_max == RLIM_INFINITY ? needed : std::min(needed, limit.rlim_max);
    Outcome r = shell(dir, "ulimit -S -n 64; exec " +
                               dag_command({"walk", graph, "--parallelism", "100", "--exec", "ulimit -S -n"}));
    ASSERT_EQ(r.status, 0) << r.err;
    for (const std::string v : {"v0", "v1", "v2"})
        EXPECT_NE(r.out.find(v + ": " + std::to_string(expected) + "\n"), std::string::npos) << r.out;
    // Streamed output holds no descriptors of dag's: the limit is left alone.
    r = shell(dir, "ulimit -S -n 64; exec " + dag_command({"walk", graph, "--parallelism", "100", "--output",
                                                            "stream", "--exec", "ulimit -S -n"}));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(lines_of(r.out), (std::vector<std::string>{"64", "64", "64"}));
}

TEST(CliWalkOutput, ABackgroundProcessHoldingThePipeDoesNotStallTheWalk) {
    ScratchDir dir;
    const std::string graph = graph_file(dir, "digraph { a }");
    const std::string pid_file = dir.path + "/pid";
    Outcome r = shell(dir, dag_command({"walk", graph, "--exec",
                                    "sleep 30 & echo $! >" + pid_file + "; echo started"}));
    const int pid = std::atoi(read_file(pid_file).c_str());
    if (pid > 0) kill(pid, SIGKILL);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "a: started\n");
    EXPECT_LT(r.seconds, 20);
}

// A command that changes the terminal's settings or reads /dev/tty (a
// password prompt) while dag runs on a terminal: in a background group of
// dag's session, SIGTTOU or SIGTTIN stopped it and the walk waited for ever.
TEST(CliWalkOutput, ACommandTouchingTheTerminalDoesNotStopTheWalk) {
    ScratchDir dir;
    const std::string graph = graph_file(dir, "digraph { a }");
    const Outcome r =
        on_terminal(dir, {"walk", graph, "--progress=never", "--output", "stream", "--exec",
                          "stty sane && echo settings-changed; if head -c 1 /dev/tty; then echo read-tty; "
                          "else echo no-terminal; fi"});
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("settings-changed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("no-terminal"), std::string::npos) << r.out;
    EXPECT_LT(r.seconds, 30) << r.out;
}

}  // namespace

// `dag walk --report FILE --trace FILE`: both files parsed and checked
// against the graph (read here through the C API): every vertex accounted
// for, every dependency finished before its dependent started, one trace
// event per vertex that ran; after SIGINT too.
#include <gtest/gtest.h>

#include <dag/dag.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "background_dag.hpp"

namespace {

using namespace cli_test;
using nlohmann::json;

const std::string deploy = std::string(DAG_SOURCE_DIR) + "/examples/graphs/deploy.dot";

// Every edge of the graph in `file`, as (dependent, dependency) names.
std::vector<std::pair<std::string, std::string>> edges_of(const std::string &file) {
    dag_graph *g = nullptr;
    EXPECT_EQ(dag_import_graph_file(DAG_FORMAT_AUTO, file.c_str(), &g, nullptr), DAG_OK);
    std::unique_ptr<dag_graph, void (*)(dag_graph *)> owned(g, dag_free);
    auto name = [&](uint64_t id) {
        const char *text = nullptr;
        dag_vertex_name(g, id, &text, nullptr);
        return std::string(text ? text : "");
    };
    std::vector<std::pair<std::string, std::string>> edges;
    dag_ids *vertices = nullptr;
    EXPECT_EQ(dag_vertices(g, &vertices, nullptr), DAG_OK);
    for (size_t i = 0; i < dag_ids_count(vertices); ++i) {
        const uint64_t id = dag_ids_data(vertices)[i];
        dag_ids *dependencies = nullptr;
        EXPECT_EQ(dag_dependencies(g, id, &dependencies, nullptr), DAG_OK);
        for (size_t j = 0; j < dag_ids_count(dependencies); ++j)
            edges.emplace_back(name(id), name(dag_ids_data(dependencies)[j]));
        dag_ids_free(dependencies);
    }
    dag_ids_free(vertices);
    return edges;
}

json parse_file(const std::string &path) {
    json document = json::parse(read_file(path), nullptr, false);
    EXPECT_FALSE(document.is_discarded()) << path << " is not JSON:\n" << read_file(path);
    return document;
}

json parse_file_text(const std::string &text) {
    json document = json::parse(text, nullptr, false);
    EXPECT_FALSE(document.is_discarded()) << "not JSON:\n" << text;
    return document;
}

std::map<std::string, json> by_name(const json &report) {
    std::map<std::string, json> vertices;
    for (const json &v : report.at("vertices")) vertices[v.at("name").get<std::string>()] = v;
    return vertices;
}

// The trace's complete events ("ph": "X"), by vertex name; a name twice fails.
std::map<std::string, json> spans(const json &trace) {
    std::map<std::string, json> events;
    for (const json &e : trace.at("traceEvents")) {
        if (e.at("ph") != "X") continue;
        EXPECT_TRUE(events.emplace(e.at("name").get<std::string>(), e).second) << e.dump();
    }
    return events;
}

// The report's totals match its vertices, and every status is one of the five.
void expect_totals_add_up(const json &report) {
    std::map<std::string, int> counted;
    for (const json &v : report.at("vertices")) ++counted[v.at("status").get<std::string>()];
    int total = 0;
    for (const char *status : {"ok", "failed", "upstream_failed", "cancelled", "not_run"}) {
        EXPECT_EQ(report.at(status).get<int>(), counted[status]) << status;
        total += counted[status];
    }
    EXPECT_EQ(total, static_cast<int>(report.at("vertices").size())) << "a status outside the five";
}

TEST(CliWalkFiles, EveryDependencyEndsBeforeItsDependentStarts) {
    const auto edges = edges_of(deploy);
    ASSERT_EQ(edges.size(), 13u);
    for (bool reverse : {false, true}) {
        ScratchDir dir;
        const std::string report_file = dir.path + "/report.json", trace_file = dir.path + "/trace.json";
        std::vector<std::string> args = {"walk", deploy, "--parallelism", "4", "--exec", "sleep 0.02",
                                         "--report", report_file, "--trace", trace_file};
        if (reverse) args.push_back("--reverse");
        BackgroundDag dag(args, "/dev/null", dir.path);
        ASSERT_EQ(dag.wait(milliseconds(30000)), 0) << dag.err();

        const json report = parse_file(report_file);
        const auto vertices = by_name(report);
        ASSERT_EQ(vertices.size(), 11u);
        EXPECT_EQ(report.at("ok"), 11);
        expect_totals_add_up(report);
        for (const auto &[name, v] : vertices) {
            EXPECT_EQ(v.at("status"), "ok") << name;
            EXPECT_EQ(v.at("message"), "") << name;
            // Each command sleeps 20 ms: its span must show it.
            EXPECT_GE(v.at("end_ms").get<double>() - v.at("start_ms").get<double>(), 19.0) << name;
            EXPECT_LE(v.at("end_ms").get<double>(), report.at("elapsed_ms").get<double>()) << name;
        }
        const json trace = parse_file(trace_file);
        const auto events = spans(trace);
        ASSERT_EQ(events.size(), 11u) << trace.dump();
        std::set<int> workers;
        for (const auto &[name, e] : events) {
            EXPECT_EQ(e.at("args").at("status"), "ok") << name;
            EXPECT_EQ(e.at("pid"), 1);
            workers.insert(e.at("tid").get<int>());
            // The trace's microseconds are the report's milliseconds.
            EXPECT_NEAR(e.at("ts").get<double>(), vertices.at(name).at("start_ms").get<double>() * 1000, 0.01);
        }
        EXPECT_LE(workers.size(), 4u) << "more tracks than workers";
        EXPECT_GE(*workers.begin(), 1);

        for (auto [dependent, dependency] : edges) {
            if (reverse) std::swap(dependent, dependency);
            const json &first = vertices.at(dependency), &then = vertices.at(dependent);
            EXPECT_LE(first.at("end_ms").get<double>(), then.at("start_ms").get<double>())
                << dependency << " must end before " << dependent << " starts";
            const json &a = events.at(dependency), &b = events.at(dependent);
            EXPECT_LE(a.at("ts").get<double>() + a.at("dur").get<double>(), b.at("ts").get<double>() + 0.001)
                << dependency << " -> " << dependent;
        }
    }
}

TEST(CliWalkFiles, EachAttemptOfARetriedCommandIsInTheResultFiles) {
    // c exits 3, then 4, then succeeds; d always exits 5: with --retries 2
    // it runs three times and fails, so b and a never run.
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    std::ofstream(input) << "digraph { a -> b; b -> d; c }";
    const std::string report_file = dir.path + "/report.json", trace_file = dir.path + "/trace.json";
    const std::string tries = dir.path + "/tries";
    const std::string command = "[ \"$DAG_VERTEX\" = d ] && exit 5; n=$(cat " + tries + " 2>/dev/null || echo 3); "
                                "echo $((n + 1)) > " + tries + "; [ $n = 5 ] || exit $n";
    BackgroundDag dag({"walk", "-", "--parallelism", "1", "--retries", "2", "--retry-delay", "1", "--exec", command,
                       "--report", report_file, "--trace", trace_file},
                      input, dir.path);
    ASSERT_EQ(dag.wait(milliseconds(20000)), 1) << dag.err();
    const json report = parse_file(report_file);
    expect_totals_add_up(report);
    auto vertices = by_name(report);
    EXPECT_EQ(vertices["c"].at("status"), "ok");
    EXPECT_EQ(vertices["c"].at("attempts"), 3);
    EXPECT_EQ(vertices["c"].at("attempt_messages"), json({"exit status 3", "exit status 4", ""}));
    EXPECT_EQ(vertices["d"].at("status"), "failed");
    EXPECT_EQ(vertices["d"].at("attempts"), 3);
    EXPECT_EQ(vertices["d"].at("attempt_messages"), json({"exit status 5", "exit status 5", "exit status 5"}));
    for (const char *skipped : {"a", "b"}) {
        EXPECT_EQ(vertices[skipped].at("attempts"), 0) << skipped;
        EXPECT_FALSE(vertices[skipped].contains("attempt_messages")) << skipped;
    }
    const auto events = spans(parse_file(trace_file));
    ASSERT_EQ(events.size(), 2u) << "c and d ran (their last attempts), a and b did not";
    EXPECT_EQ(events.at("c").at("args").at("attempts"), 3);
    EXPECT_EQ(events.at("d").at("args").at("attempt_messages").size(), 3u);
}

TEST(CliWalkFiles, FailuresAndWhatNeverRan) {
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    std::ofstream(input) << "digraph { a -> b; b -> c; d }";
    const std::string report_file = dir.path + "/report.json", trace_file = dir.path + "/trace.json";
    BackgroundDag dag({"walk", "-", "--exec", "[ \"$DAG_VERTEX\" != c ] || exit 3", "--report",
                       report_file, "--trace", trace_file},
                      input, dir.path);
    ASSERT_EQ(dag.wait(milliseconds(10000)), 1) << dag.err();
    const json report = parse_file(report_file);
    expect_totals_add_up(report);
    auto vertices = by_name(report);
    ASSERT_EQ(vertices.size(), 4u);
    EXPECT_EQ(vertices["c"].at("status"), "failed");
    EXPECT_EQ(vertices["c"].at("message"), "exit status 3");
    EXPECT_EQ(vertices["d"].at("status"), "ok");
    EXPECT_EQ(vertices["d"].at("attempts"), 1);
    EXPECT_FALSE(vertices["d"].contains("attempt_messages"));
    for (const char *skipped : {"a", "b"}) {
        EXPECT_EQ(vertices[skipped].at("status"), "upstream_failed");
        EXPECT_TRUE(vertices[skipped].at("start_ms").is_null());
        EXPECT_TRUE(vertices[skipped].at("end_ms").is_null());
    }
    const auto events = spans(parse_file(trace_file));
    ASSERT_EQ(events.size(), 2u) << "c and d ran, a and b did not";
    EXPECT_EQ(events.at("c").at("args").at("status"), "failed");
    EXPECT_EQ(events.at("d").at("args").at("status"), "ok");
}

TEST(CliWalkFiles, WrittenAfterSigintWithEveryVertexAccountedFor) {
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    // a and b run until interrupted; c, d and e wait for them, so never run.
    std::ofstream(input) << "digraph { a; b; c -> a; d -> b; e -> c }";
    const std::string report_file = dir.path + "/report.json", trace_file = dir.path + "/trace.json";
    BackgroundDag dag({"walk", "-", "--parallelism", "2", "--exec",
                       ": > " + dir.path + "/$DAG_VERTEX; exec sleep 30", "--report", report_file,
                       "--trace", trace_file},
                      input, dir.path);
    ASSERT_TRUE(wait_until([&] { return exists(dir.path + "/a") && exists(dir.path + "/b"); },
                           milliseconds(10000)))
        << dag.err();
    ASSERT_EQ(kill(dag.pid(), SIGINT), 0);
    ASSERT_EQ(dag.wait(milliseconds(5000)), 130) << dag.err();

    const json report = parse_file(report_file);
    expect_totals_add_up(report);
    auto vertices = by_name(report);
    ASSERT_EQ(vertices.size(), 5u);
    EXPECT_EQ(report.at("cancelled"), 5);
    for (const char *ran : {"a", "b"}) {
        EXPECT_EQ(vertices[ran].at("status"), "cancelled");
        // sleep, exec'd by the shell, ends by the SIGTERM dag sent.
        EXPECT_EQ(vertices[ran].at("message"), "stopped by dag: killed by signal 15");
        EXPECT_LE(vertices[ran].at("start_ms").get<double>(), vertices[ran].at("end_ms").get<double>());
    }
    for (const char *never : {"c", "d", "e"}) EXPECT_TRUE(vertices[never].at("start_ms").is_null()) << never;

    const auto events = spans(parse_file(trace_file));
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events.at("a").at("args").at("status"), "cancelled");
    // Two commands at once run on two worker threads: two tracks.
    EXPECT_NE(events.at("a").at("tid"), events.at("b").at("tid"));
}

TEST(CliWalkFiles, RefusedWalkAndUnwritableFile) {
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    std::ofstream(input) << "digraph { a -> b; b -> a; c }";
    const std::string report_file = dir.path + "/report.json", trace_file = dir.path + "/trace.json";
    BackgroundDag cyclic({"walk", "-", "--report", report_file, "--trace", trace_file}, input, dir.path);
    ASSERT_EQ(cyclic.wait(milliseconds(10000)), 1) << cyclic.err();
    const json report = parse_file(report_file);
    EXPECT_EQ(report.at("not_run"), 3);
    expect_totals_add_up(report);
    EXPECT_TRUE(spans(parse_file(trace_file)).empty());

    std::ofstream(input) << "digraph { a }";
    BackgroundDag unwritable({"walk", "-", "--report", dir.path + "/no/such/dir/report.json"}, input,
                             dir.path);
    EXPECT_EQ(unwritable.wait(milliseconds(10000)), 2);
    EXPECT_NE(unwritable.err().find("dag: cannot write \"" + dir.path + "/no/such/dir/report.json\""),
              std::string::npos)
        << unwritable.err();
}

TEST(CliWalkFiles, DashWritesToStandardOutputAfterWhatTheCommandsPrinted) {
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    std::ofstream(input) << "digraph { a -> b }";
    for (const char *option : {"--report", "--trace"}) {
        BackgroundDag dag({"walk", "-", "--exec", "echo said $DAG_VERTEX", option, "-"}, input, dir.path);
        ASSERT_EQ(dag.wait(milliseconds(10000)), 0) << dag.err();
        EXPECT_FALSE(exists(dir.path + "/-")) << option << " wrote a file named -";
        const std::string out = dag.out();
        EXPECT_EQ(out.rfind("b: said b\na: said a\n", 0), 0u) << option << "\n" << out;
        const std::string::size_type document = out.find('{');
        ASSERT_NE(document, std::string::npos) << out;
        const json written = json::parse(out.substr(document));
        if (std::string(option) == "--report") {
            EXPECT_EQ(written.at("ok"), 2);
            expect_totals_add_up(written);
        } else {
            EXPECT_EQ(spans(written).size(), 2u);
        }
    }
    // Both at once would interleave two documents: refused before anything runs.
    const std::string ran = dir.path + "/ran";
    BackgroundDag both({"walk", "-", "--exec", "touch " + ran, "--report", "-", "--trace", "-"}, input, dir.path);
    EXPECT_EQ(both.wait(milliseconds(10000)), 2);
    EXPECT_EQ(both.err(), "dag: --report and --trace cannot both be standard output\n");
    EXPECT_FALSE(exists(ran));
}

TEST(CliWalkFiles, UnwritableFileIsFoundBeforeAnyCommandRuns) {
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    std::ofstream(input) << "digraph { a }";
    const std::string ran = dir.path + "/ran";
    // The command would fail: an unwritable file found after the walk would
    // have hidden that exit status 1 behind a 2.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"--report", dir.path + "/no/such/dir/report.json"}, {"--trace", dir.path}};
    for (const auto &[option, path] : cases) {
        BackgroundDag dag({"walk", "-", "--exec", "touch " + ran + "; exit 1", option, path}, input, dir.path);
        EXPECT_EQ(dag.wait(milliseconds(10000)), 2) << dag.err();
        EXPECT_FALSE(exists(ran)) << option << ": the command ran";
        const std::string why = option == "--trace" ? "Is a directory" : "No such file or directory";
        EXPECT_EQ(dag.err(), "dag: cannot write \"" + path + "\": " + why + "\n") << option;
    }
    // An empty path (a shell variable left unset) names no file: it turned the option off.
    for (const char *option : {"--report", "--trace"}) {
        BackgroundDag dag({"walk", "-", "--exec", "touch " + ran, option, ""}, input, dir.path);
        EXPECT_EQ(dag.wait(milliseconds(10000)), 2) << dag.err();
        EXPECT_FALSE(exists(ran)) << option << ": the command ran";
        EXPECT_EQ(dag.err(), std::string("dag walk: ") + option + ": an empty path names no file\nRun 'dag walk --help' for usage.\n");
    }
}

}  // namespace

namespace {

TEST(CliWalkFiles, ReportAndTraceNamingOneFileAreRefused) {
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    std::ofstream(input) << "digraph { a }";
    const std::string ran = dir.path + "/ran", file = dir.path + "/result.json", link = dir.path + "/link.json";
    std::ofstream(file) << "kept\n";
    ASSERT_EQ(symlink(file.c_str(), link.c_str()), 0);
    // The second file written replaced the first: the report was lost.
    for (const std::string &other : {file, link}) {
        BackgroundDag dag({"walk", "-", "--exec", "touch " + ran, "--report", file, "--trace", other}, input,
                          dir.path);
        EXPECT_EQ(dag.wait(milliseconds(10000)), 2) << dag.err();
        EXPECT_EQ(dag.err(), "dag: --report and --trace cannot both be \"" + file + "\"\n");
        EXPECT_FALSE(exists(ran)) << "the command ran";
        EXPECT_EQ(read_file(file), "kept\n");
    }
    // A link to a file not there yet, and that file: the report was lost.
    const std::string dangling = dir.path + "/dangling.json", pointed = dir.path + "/pointed.json";
    ASSERT_EQ(symlink("pointed.json", dangling.c_str()), 0);
    {
        BackgroundDag dag({"walk", "-", "--exec", "touch " + ran, "--report", dangling, "--trace", pointed}, input,
                          dir.path);
        EXPECT_EQ(dag.wait(milliseconds(10000)), 2) << dag.err();
        EXPECT_EQ(dag.err(), "dag: --report and --trace cannot both be \"" + dangling + "\"\n");
        EXPECT_FALSE(exists(ran)) << "the command ran";
        EXPECT_FALSE(exists(pointed));
    }
    // Neither there yet: one spelled two ways was taken as two files.
    const std::vector<std::pair<std::string, std::string>> unborn = {
        {dir.path + "/new.json", dir.path + "/./new.json"}, {dir.path + "/out.json", dir.path + "//out.json"}};
    for (const auto &[report, trace] : unborn) {
        BackgroundDag dag({"walk", "-", "--exec", "touch " + ran, "--report", report, "--trace", trace}, input,
                          dir.path);
        EXPECT_EQ(dag.wait(milliseconds(10000)), 2) << dag.err();
        EXPECT_EQ(dag.err(), "dag: --report and --trace cannot both be \"" + report + "\"\n");
        EXPECT_FALSE(exists(ran)) << "the command ran";
        EXPECT_FALSE(exists(dir.path + "/" + report.substr(report.rfind('/') + 1))) << report;
    }
}

// The outcome written over the graph it came from replaced the graph, exit 0.
TEST(CliWalkFiles, AResultFileNamingTheGraphIsRefused) {
    ScratchDir dir;
    const std::string graph = dir.path + "/graph.dot", link = dir.path + "/link.dot", ran = dir.path + "/ran";
    const std::string text = "digraph { a }\n";
    std::ofstream(graph) << text;
    ASSERT_EQ(symlink(graph.c_str(), link.c_str()), 0);
    for (const std::string &option : {"--report", "--trace"}) {
        for (const std::string &output : {graph, link, dir.path + "/./graph.dot"}) {
            BackgroundDag dag({"walk", graph, "--exec", "touch " + ran, option, output}, "/dev/null", dir.path);
            EXPECT_EQ(dag.wait(milliseconds(10000)), 2) << dag.err();
            EXPECT_EQ(dag.err(), "dag: " + option + " and FILE cannot both be \"" + output + "\"\n");
            EXPECT_FALSE(exists(ran)) << "the command ran";
            EXPECT_EQ(read_file(graph), text);
        }
        // FILE `-`, standard input redirected from the graph: it reads that file.
        BackgroundDag dag({"walk", "-", "--exec", "touch " + ran, option, graph}, graph, dir.path);
        EXPECT_EQ(dag.wait(milliseconds(10000)), 2) << dag.err();
        EXPECT_EQ(dag.err(), "dag: " + option + " and FILE cannot both be \"" + graph + "\"\n");
        EXPECT_FALSE(exists(ran)) << "the command ran";
        EXPECT_EQ(read_file(graph), text);
    }
}

TEST(CliWalkFiles, FailedWriteLeavesTheOldFileWhole) {
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    std::ofstream in(input);
    in << "digraph {";
    for (int i = 0; i < 100; ++i) in << " v" << i << ";";
    in << " }";
    in.close();
    const std::string report_file = dir.path + "/report.json";
    std::ofstream(report_file) << "old\n";
    // Files of at most 1 KiB (a full disk, for a report of 100 vertices).
    // dag ignores SIGXFSZ, so that the write fails with EFBIG: the signal
    // killed it, and left its temporary file behind.
    const std::string command = "ulimit -f 1; exec " + std::string(DAG_CLI) + " walk " + input + " --report " +
                                report_file + " 2>" + dir.path + "/stderr";
    const int status = std::system(("sh -c \"" + command + "\"").c_str());
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 2) << read_file(dir.path + "/stderr");
    EXPECT_NE(read_file(dir.path + "/stderr").find("dag: cannot write \"" + report_file + "\": File too large"),
              std::string::npos)
        << read_file(dir.path + "/stderr");
    EXPECT_EQ(read_file(report_file), "old\n") << "the old report was cut short";
    // Nothing of the attempt is left beside it.
    EXPECT_EQ(std::system(("test $(ls " + dir.path + " | grep -c report) -eq 1").c_str()), 0);
}

// Runs `script` under sh in `dir` with DAG set to the program; its exit status.
int sh_in(const ScratchDir &dir, const std::string &script) {
    const std::string file = dir.path + "/script.sh";
    std::ofstream(file) << "cd '" << dir.path << "' || exit 99\nDAG='" << DAG_CLI << "'\n" << script << "\n";
    const int status = std::system(("sh " + file).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// /dev/stdout, /dev/stderr and /dev/fd/N are dag's own descriptors: written
// through them, not renamed over what they point to (which lost everything
// written to a file behind standard output, `>>` included) nor taken for a
// path (a pipe's "pipe:[123]", refused after the walk had run).
TEST(CliWalkFiles, AResultFileNamingADescriptorIsWrittenThroughIt) {
    ScratchDir dir;
    std::ofstream(dir.path + "/graph.dot") << "digraph { a -> b }";
    EXPECT_EQ(sh_in(dir, "printf 'log\\n' > out; \"$DAG\" walk graph.dot --report /dev/stdout >> out 2>err"), 0)
        << read_file(dir.path + "/err");
    const std::string out = read_file(dir.path + "/out");
    ASSERT_EQ(out.rfind("log\nb\na\n{", 0), 0u) << out;
    EXPECT_EQ(parse_file_text(out.substr(out.find('{'))).at("ok"), 2) << out;

    EXPECT_EQ(sh_in(dir, "{ \"$DAG\" walk graph.dot --exec true --report /dev/stdout 2>err; echo $? > status; } | "
                         "cat > piped"),
              0);
    EXPECT_EQ(read_file(dir.path + "/status"), "0\n") << read_file(dir.path + "/err");
    EXPECT_EQ(parse_file_text(read_file(dir.path + "/piped")).at("ok"), 2);

    EXPECT_EQ(sh_in(dir, "printf 'kept\\n' > three; exec 3>>three; \"$DAG\" walk graph.dot --exec true "
                         "--report /dev/fd/3 --trace /dev/stderr 2>trace"),
              0);
    const std::string three = read_file(dir.path + "/three");
    ASSERT_EQ(three.rfind("kept\n{", 0), 0u) << three;
    EXPECT_EQ(parse_file_text(three.substr(5)).at("ok"), 2);
    const std::string trace = read_file(dir.path + "/trace");
    EXPECT_NE(trace.find("\"traceEvents\""), std::string::npos) << trace;

    EXPECT_EQ(sh_in(dir, "\"$DAG\" walk graph.dot --exec true --report - --trace /dev/stdout 2>err"), 2);
    EXPECT_EQ(read_file(dir.path + "/err"), "dag: --report and --trace cannot both be standard output\n");
    // One file by a descriptor and by its path, or by two descriptors.
    EXPECT_EQ(sh_in(dir, "\"$DAG\" walk graph.dot --exec true --report /dev/stdout --trace same.json > same.json "
                         "2>err"),
              2);
    EXPECT_EQ(read_file(dir.path + "/err"), "dag: --report and --trace cannot both be \"/dev/stdout\"\n");
    EXPECT_EQ(sh_in(dir, "\"$DAG\" walk graph.dot --exec true --report /dev/stdout --trace /dev/fd/3 > same.json "
                         "3>&1 2>err"),
              2);
    // Read-only, or not open: told before anything runs.
    EXPECT_EQ(sh_in(dir, "\"$DAG\" walk graph.dot --exec 'touch ran' --report /dev/fd/4 4<graph.dot 2>err"), 2);
    EXPECT_EQ(read_file(dir.path + "/err"), "dag: cannot write \"/dev/fd/4\": Bad file descriptor\n");
    EXPECT_EQ(sh_in(dir, "\"$DAG\" walk graph.dot --exec 'touch ran' --report /dev/fd/87 2>err"), 2);
    EXPECT_FALSE(exists(dir.path + "/ran"));
}

// `-` was not checked as /dev/stdout was: with standard output closed, the
// walk ran every command and only then failed to write the result.
TEST(CliWalkFiles, AResultFileOnAnUnwritableStandardOutputIsRefusedBeforeTheWalk) {
    ScratchDir dir;
    std::ofstream(dir.path + "/graph.dot") << "digraph { a -> b; a -> c; b -> d; c -> d }";
    for (const std::string &option : {"--report", "--trace"}) {
        EXPECT_EQ(sh_in(dir, "\"$DAG\" walk " + option + " - --exec 'touch ran.$DAG_VERTEX' --output none graph.dot "
                             ">&- 2>err"),
                  2);
        EXPECT_EQ(read_file(dir.path + "/err"), "dag: cannot write standard output: Bad file descriptor\n") << option;
        EXPECT_EQ(std::system(("test -z \"$(ls " + dir.path + " | grep ran)\"").c_str()), 0) << option;
    }
}

// Standard output open only for reading on the graph was told as `-` being
// FILE ("--report and FILE cannot both be \"-\""); open for writing on it,
// the graph is named.
TEST(CliWalkFiles, AResultFileOnStandardOutputOpenOnTheGraphIsToldAsItIs) {
    ScratchDir dir;
    const std::string text = "digraph { a -> b }";
    std::ofstream(dir.path + "/graph.dot") << text;
    for (const std::string &option : {"--report", "--trace"}) {
        EXPECT_EQ(sh_in(dir, "\"$DAG\" walk " + option + " - --exec 'touch ran' graph.dot 1<graph.dot 2>err"), 2);
        EXPECT_EQ(read_file(dir.path + "/err"), "dag: cannot write standard output: Bad file descriptor\n") << option;
        EXPECT_EQ(sh_in(dir, "\"$DAG\" walk " + option + " - --exec 'touch ran' graph.dot 1<>graph.dot 2>err"), 2);
        EXPECT_EQ(read_file(dir.path + "/err"), "dag: " + option + " and FILE cannot both be \"graph.dot\"\n");
        EXPECT_FALSE(exists(dir.path + "/ran")) << option;
        EXPECT_EQ(read_file(dir.path + "/graph.dot"), text);
    }
}

// Closed by whoever started dag, standard output and error were the first
// descriptors free for its signal pipe: its own messages and the commands'
// output collected for it then read as signals, and the walk stopped itself.
TEST(CliWalkFiles, AWalkWithStandardOutputAndErrorClosedRunsToItsEnd) {
    ScratchDir dir;
    std::ofstream(dir.path + "/graph.dot") << "digraph { a -> b; c }";
    EXPECT_EQ(sh_in(dir, "\"$DAG\" walk graph.dot --output none --progress=always --exec 'echo err >&2; "
                         "sleep 0.1' --report report.json >&- 2>&-"),
              0);
    EXPECT_EQ(parse_file(dir.path + "/report.json").at("ok"), 3);
    // The commands' output, which dag prints, fails as on a closed
    // descriptor (exit 2), and the walk still runs to its end.
    EXPECT_EQ(sh_in(dir, "\"$DAG\" walk graph.dot --progress=always --exec 'echo said; echo err >&2; sleep 0.1' "
                         "--report grouped.json >&- 2>&-"),
              2);
    EXPECT_EQ(parse_file(dir.path + "/grouped.json").at("ok"), 3);
}

// A link to nothing given as a result file: the check before the walk
// created the file it points to, and left it empty when the walk was refused.
TEST(CliWalkFiles, TheCheckOfALinkToNothingLeavesNothing) {
    ScratchDir dir;
    std::ofstream(dir.path + "/graph.dot") << "digraph { a }";
    ASSERT_EQ(symlink("target.json", (dir.path + "/link.json").c_str()), 0);
    EXPECT_EQ(sh_in(dir, "\"$DAG\" walk graph.dot --report link.json --trace no/such/dir/t.json 2>err"), 2);
    EXPECT_EQ(read_file(dir.path + "/err"), "dag: cannot write \"no/such/dir/t.json\": No such file or directory\n");
    EXPECT_FALSE(exists(dir.path + "/target.json"));
    EXPECT_EQ(sh_in(dir, "\"$DAG\" walk graph.dot --report link.json 2>err"), 0);
    EXPECT_EQ(parse_file(dir.path + "/target.json").at("ok"), 1);
    ASSERT_EQ(symlink("loop2", (dir.path + "/loop1").c_str()), 0);
    ASSERT_EQ(symlink("loop1", (dir.path + "/loop2").c_str()), 0);
    EXPECT_EQ(sh_in(dir, "\"$DAG\" walk graph.dot --report loop1 2>err"), 2);
    EXPECT_EQ(read_file(dir.path + "/err"), "dag: cannot write \"loop1\": Too many levels of symbolic links\n");
}

TEST(CliWalkFiles, AReportNamedAsLongAsTheFileSystemAllowsIsWritten) {
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    std::ofstream(input) << "digraph { a }";
    // 255 bytes, NAME_MAX: the temporary name beside it (name.XXXXXX) is too
    // long for the file system, which must not refuse a report `>` writes.
    const std::string report_file = dir.path + "/" + std::string(250, 'r') + ".json";
    for (int run = 0; run < 2; ++run) {  // new, then replacing the first
        BackgroundDag dag({"walk", "-", "--report", report_file}, input, dir.path);
        EXPECT_EQ(dag.wait(milliseconds(10000)), 0) << dag.err();
        EXPECT_NE(read_file(report_file).find("\"a\""), std::string::npos) << run;
    }
    EXPECT_EQ(std::system(("test $(ls -A " + dir.path + " | grep -c -v -e graph -e std -e rrr) -eq 0").c_str()), 0)
        << "a temporary file was left";
}

// A walk of `graph` whose --report is a FIFO nobody reads yet; each
// vertex's command leaves a file named for the vertex.
struct FifoReport {
    explicit FifoReport(const std::string &graph) {
        std::ofstream(input) << graph;
        EXPECT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    }
    std::unique_ptr<BackgroundDag> start() const {
        return std::make_unique<BackgroundDag>(
            std::vector<std::string>{"walk", "-", "--exec", ": > " + dir.path + "/$DAG_VERTEX", "--report", fifo},
            input, dir.path);
    }
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot", fifo = dir.path + "/report.fifo";
};

TEST(CliWalkFiles, ReportToAFifoWaitsForItsReaderOnlyAfterTheWalk) {
    const FifoReport walk("digraph { a }");
    // Opening the FIFO to check it waited for a reader before anything ran,
    // with Ctrl-C caught and so unable to end that wait; and a reader there
    // got the check's empty document.
    const auto dag = walk.start();
    ASSERT_TRUE(wait_until([&] { return exists(walk.dir.path + "/a"); }, milliseconds(10000)))
        << "the walk did not start before the FIFO had a reader";
    const int reader = open(walk.fifo.c_str(), O_RDONLY | O_NONBLOCK);
    ASSERT_GE(reader, 0);
    EXPECT_EQ(dag->wait(milliseconds(10000)), 0) << dag->err();
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = read(reader, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(n));
    close(reader);
    const json report = json::parse(text, nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << text;
    EXPECT_EQ(report.at("ok"), 1);
}

// Whether process `pid` has a handler for SIGINT (/proc's SigCgt mask).
bool catches_sigint(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (SIGINT - 1)) & 1;
    return false;
}

// Whether the main thread of process `pid` sleeps (dag between two tries to
// open a FIFO nobody reads: the only sleep of a refused walk).
bool main_thread_sleeps(pid_t pid) {
    std::ifstream syscall_file("/proc/" + std::to_string(pid) + "/syscall");
    long number = -1;
    return syscall_file >> number && number == SYS_clock_nanosleep;
}

TEST(CliWalkFiles, CtrlCEndsTheWaitForAFifosReaderAfterARefusedWalk) {
    // A cycle refuses the walk, whose files are written all the same: that
    // wait for the FIFO's reader took no signal either.
    const FifoReport walk("digraph { a -> b; b -> a }");
    const auto dag = walk.start();
    // SIGINT is caught earlier too, while the files are checked, where it
    // ends dag at once (nothing ran): the wait for the reader is when dag
    // both catches it and sleeps.
    ASSERT_TRUE(wait_until([&] { return catches_sigint(dag->pid()) && main_thread_sleeps(dag->pid()); },
                           milliseconds(10000)))
        << "dag never waited for the FIFO's reader with SIGINT caught";
    ASSERT_EQ(kill(dag->pid(), SIGINT), 0);
    EXPECT_EQ(dag->wait(milliseconds(5000)), 130) << dag->err();
    EXPECT_NE(dag->err().find("interrupted while it waited for a reader"), std::string::npos) << dag->err();
}

// `dag render -o FIFO` waits for the reader holding signals back (no half
// picture left): Ctrl-C there ended dag with nothing said.
TEST(CliWalkFiles, CtrlCWhileRenderWaitsForAFifosReaderSaysWhatWasLeftUnwritten) {
    const FifoReport render("digraph { a }");
    BackgroundDag dag({"render", "-", "-o", render.fifo, "--format", "svg"}, render.input, render.dir.path);
    ASSERT_TRUE(wait_until([&] { return catches_sigint(dag.pid()) && main_thread_sleeps(dag.pid()); },
                           milliseconds(20000)))
        << "dag never waited for the FIFO's reader with SIGINT caught";
    ASSERT_EQ(kill(dag.pid(), SIGINT), 0);
    EXPECT_EQ(dag.wait(milliseconds(5000)), 130) << dag.err();
    EXPECT_EQ(dag.err(), "dag: cannot write \"" + render.fifo + "\": interrupted while it waited for a reader\n");
}

TEST(CliWalkFiles, CtrlCEndsTheWaitForAFifosReader) {
    // The walk is over and nobody reads the FIFO: the open waited with
    // Ctrl-C caught, and only SIGKILL ended dag.
    const FifoReport walk("digraph { a }");
    const auto dag = walk.start();
    ASSERT_TRUE(wait_until([&] { return dag->err().find("1 ok") != std::string::npos; }, milliseconds(10000)))
        << "the walk did not end";
    ASSERT_EQ(kill(dag->pid(), SIGINT), 0);
    EXPECT_EQ(dag->wait(milliseconds(5000)), 130) << dag->err();
    EXPECT_NE(dag->err().find("dag: cannot write \"" + walk.fifo + "\": interrupted while it waited for a reader"),
              std::string::npos)
        << dag->err();
}


TEST(CliWalkFiles, CtrlCEndsTheWaitForAFifosReaderToRead) {
    // The reader opened the FIFO and reads nothing: a report larger than the
    // pipe holds waited in write(), which the caught Ctrl-C restarted.
    ScratchDir dir;
    std::string graph = "digraph {";
    for (int v = 0; v < 3000; ++v) graph += " v" + std::to_string(v) + ";";
    std::ofstream(dir.path + "/graph.dot") << graph << " }";
    const std::string fifo = dir.path + "/report.fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    ASSERT_GE(reader, 0);
    BackgroundDag dag({"walk", "-", "--output", "none", "--report", fifo}, dir.path + "/graph.dot", dir.path);
    int pending = 0;
    ASSERT_TRUE(wait_until(
        [&] {
            return dag.err().find("3000 ok") != std::string::npos && ioctl(reader, FIONREAD, &pending) == 0 &&
                   pending >= 65536;
        },
        milliseconds(20000)))
        << "the report did not fill the pipe: " << pending << " bytes; " << dag.err();
    ASSERT_EQ(kill(dag.pid(), SIGINT), 0);
    EXPECT_EQ(dag.wait(milliseconds(5000)), 130) << dag.err();
    EXPECT_NE(dag.err().find("dag: cannot write \"" + fifo + "\": interrupted while it waited for its reader to read"),
              std::string::npos)
        << dag.err();
    close(reader);
}

// ------------------------------------------------------------------------
// Output files that cannot be replaced, and a signal while one is written:
// `dag render -o` and the walk's files are written alike (output_file.cpp).

// A file dag may write but not replace (in a directory it may not write to,
// or someone else's in a sticky directory) needs dag to run as someone root
// is not. Said, not passed over in silence: CI runs the suite as root.
#define SKIP_UNLESS_ROOT()                                                                          \
    if (geteuid() != 0)                                                                             \
    GTEST_SKIP() << "runs dag as nobody (setpriv), which only root can; the suite runs as root in CI"

// `command` (after `sh -c`) as nobody, in a shell where $DAG is the program.
std::string as_nobody(const std::string &command) {
    return "setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \"DAG='$DAG'; " + command + "\"";
}

// Each name in `directory`, sorted.
std::string listing(const std::string &directory) {
    ScratchDir scratch;
    std::system(("ls -A '" + directory + "' > " + scratch.path + "/list").c_str());
    return read_file(scratch.path + "/list");
}

// With no room for a temporary file beside it, a file that can be written
// is written in place: it was truncated first, so that a size limit (or a
// full disk) left it cut short, where the README promises the old contents.
TEST(CliOutputFiles, AFileWrittenInPlaceKeepsItsOldContentsWhenTheWriteFails) {
    SKIP_UNLESS_ROOT();
    ScratchDir dir;
    ASSERT_EQ(chmod(dir.path.c_str(), 0755), 0);
    std::string graph = "digraph {";
    for (int v = 0; v < 100; ++v) graph += " v" + std::to_string(v) + ";";
    std::ofstream(dir.path + "/graph.dot") << graph << " }";
    ASSERT_EQ(mkdir((dir.path + "/locked").c_str(), 0755), 0);  // root's
    const std::string report = dir.path + "/locked/report.json";
    std::ofstream(report) << "old\n";
    ASSERT_EQ(chmod(report.c_str(), 0666), 0);
    // 512-byte files (dash's ulimit -f counts 512-byte blocks), and a
    // report of 100 vertices.
    EXPECT_EQ(sh_in(dir, as_nobody("ulimit -f 1; exec \\\"$DAG\\\" walk graph.dot --report locked/report.json") +
                             " >/dev/null 2>err"),
              2);
    EXPECT_NE(read_file(dir.path + "/err").find("dag: cannot write \"locked/report.json\": File too large\n"),
              std::string::npos)
        << read_file(dir.path + "/err");
    EXPECT_EQ(read_file(report), "old\n") << "the old report was cut short";
    // Without the limit, whole; and shorter than the old contents, none of them left after it.
    std::ofstream(report) << std::string(100000, 'x');
    EXPECT_EQ(
        sh_in(dir, as_nobody("exec \\\"$DAG\\\" walk graph.dot --report locked/report.json") + " >/dev/null 2>err"), 0)
        << read_file(dir.path + "/err");
    EXPECT_EQ(parse_file(report).at("ok"), 100);
    struct stat file {};
    ASSERT_EQ(stat(report.c_str(), &file), 0);
    EXPECT_EQ(file.st_uid, 0u);
    EXPECT_EQ(file.st_mode & 07777, 0666u);
    EXPECT_EQ(listing(dir.path + "/locked"), "report.json\n");
}

// In a sticky directory (/tmp), rename() may not replace a file of another
// owner that its mode lets anyone write, as `>` does: refused after the
// walk, or after the layout, with "Operation not permitted".
TEST(CliOutputFiles, SomeoneElsesFileInAStickyDirectoryIsWrittenAsGreaterThanWrites) {
    SKIP_UNLESS_ROOT();
    ScratchDir dir;
    ASSERT_EQ(chmod(dir.path.c_str(), 0755), 0);
    std::ofstream(dir.path + "/graph.dot") << "digraph { a -> b }";
    const std::string shared = dir.path + "/shared";
    ASSERT_EQ(mkdir(shared.c_str(), 0755), 0);
    ASSERT_EQ(chmod(shared.c_str(), 01777), 0);
    for (const char *name : {"report.json", "picture.svg"}) {
        std::ofstream(shared + "/" + name) << "old\n";
        ASSERT_EQ(chmod((shared + "/" + name).c_str(), 0666), 0);
    }
    EXPECT_EQ(sh_in(dir, as_nobody("echo x > shared/report.json")), 0) << "`>` may write it";
    ASSERT_EQ(
        sh_in(dir, as_nobody("exec \\\"$DAG\\\" walk graph.dot --report shared/report.json") + " >/dev/null 2>err"), 0)
        << read_file(dir.path + "/err");
    EXPECT_EQ(parse_file(shared + "/report.json").at("ok"), 2);
    EXPECT_EQ(sh_in(dir, as_nobody("exec \\\"$DAG\\\" render graph.dot -o shared/picture.svg") + " 2>err"), 0)
        << read_file(dir.path + "/err");
    const std::string picture = read_file(shared + "/picture.svg");
    EXPECT_EQ(picture.rfind("<?xml", 0), 0u) << picture;
    EXPECT_NE(picture.find("</svg>"), std::string::npos);
    for (const char *name : {"report.json", "picture.svg"}) {
        struct stat file {};
        ASSERT_EQ(stat((shared + "/" + name).c_str(), &file), 0);
        EXPECT_EQ(file.st_uid, 0u) << name;
    }
    EXPECT_EQ(listing(shared), "picture.svg\nreport.json\n");
}

// The temporary file render writes beside `out` in `directory`, if there
// is one now.
std::string temporary_beside(const std::string &directory, const std::string &out) {
    std::string found;
    if (DIR *listed = opendir(directory.c_str())) {
        while (const dirent *entry = readdir(listed))
            if (std::string(entry->d_name).rfind(out + ".", 0) == 0) found = directory + "/" + entry->d_name;
        closedir(listed);
    }
    return found;
}

// Stops `pid`, every thread of it, and waits until it has stopped; false if
// it has exited instead (left for its owner to reap).
bool stopped(pid_t pid) {
    if (kill(pid, SIGSTOP) != 0) return false;
    siginfo_t info{};
    return waitid(P_PID, static_cast<id_t>(pid), &info, WSTOPPED | WEXITED | WNOWAIT) == 0 &&
           info.si_code == CLD_STOPPED;
}

// SIGTERM while render wrote its picture beside OUT under a temporary name
// killed dag and left that file behind; one while a walk wrote its report
// was lost (the walk exited 0). dag runs in slices of a fraction of a
// millisecond, stopped between them, until one ends with the temporary file
// there: the signal is sent then, while it is stopped. A run that wrote the
// whole file within one slice proves nothing, and another is tried.
TEST(CliOutputFiles, ASignalWhileAFileIsWrittenLeavesNoTemporaryFileAndEndsDag) {
    ScratchDir dir;
    // Megabytes of SVG and of report, some milliseconds to write; fewer
    // vertices to lay out.
    const auto graph = [&](int vertices) {
        const std::string file = dir.path + "/" + std::to_string(vertices) + ".dot";
        std::ofstream dot(file);
        dot << "digraph {";
        for (int v = 0; v < vertices; ++v) dot << " \"" << std::string(300, 'x') << v << "\";";
        dot << " }";
        return file;
    };
    const struct {
        std::vector<std::string> args;
        std::string input, name;
        int vertices;
    } commands[] = {{{"render", "-", "-o", dir.path + "/render/out.svg"}, graph(3000), "out.svg", 3000},
                    {{"walk", "-", "--report", dir.path + "/walk/out.json"}, graph(20000), "out.json", 20000}};
    for (const auto &[args, input, name, vertices] : commands) {
        const std::string files = dir.path + "/" + args[0], out = files + "/" + name;
        ASSERT_EQ(mkdir(files.c_str(), 0755), 0);
        int caught = 0;
        for (int attempt = 0; attempt < 20 && caught == 0; ++attempt) {
            BackgroundDag dag(args, input, dir.path);
            std::string temporary;
            while (temporary.empty() && stopped(dag.pid())) {
                temporary = temporary_beside(files, name);
                if (!temporary.empty()) ASSERT_EQ(kill(dag.pid(), SIGTERM), 0);
                ASSERT_EQ(kill(dag.pid(), SIGCONT), 0);
                // Spun, not slept: a test put to sleep on a busy machine
                // wakes milliseconds later, long enough to write it all.
                for (const auto slice = Clock::now() + std::chrono::microseconds(100); Clock::now() < slice;) {
                }
            }
            const int status = dag.wait(milliseconds(30000));
            if (temporary.empty()) {
                EXPECT_EQ(status, 0) << dag.err();
                continue;
            }
            ++caught;
            EXPECT_EQ(status, 128 + SIGTERM) << args[0] << ": " << dag.err();
            EXPECT_FALSE(exists(temporary)) << args[0] << ": the temporary file was left";
            EXPECT_EQ(listing(files), exists(out) ? name + "\n" : "") << args[0];
            if (!exists(out)) continue;
            const std::string written = read_file(out);
            if (args[0] == "render")
                EXPECT_EQ(written.substr(written.size() - 7), "</svg>\n") << "a picture cut short";
            else
                EXPECT_EQ(parse_file_text(written).at("ok"), vertices);
        }
        EXPECT_EQ(caught, 1) << args[0] << " never stopped while it wrote its file, in 20 tries";
    }
}

}  // namespace

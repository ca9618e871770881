// SIGINT, SIGTERM and SIGHUP sent to `dag walk --exec` while its commands
// run, and SIGPIPE from a reader of its output going away: the walk stops,
// the commands' process groups are terminated (killed after --grace), nothing
// of theirs is left, and the summary, the result files and the exit status
// say what happened.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "background_dag.hpp"

namespace {

using namespace cli_test;

// a and b run at once and block; c waits for a, so it never starts.
const char graph[] = "digraph { a; b; c -> a }";

// Starts the walk and waits (a bounded wait) until a's and b's commands run.
// The commands here make the files a test waits for with the shell's own
// redirection (`: > FILE`), not touch: a signal landing while a touch that
// had made its file still ran killed it, and the shell printed "Terminated"
// into the output the tests compare (1 run in 40 on a loaded machine).
void start_walk(ScratchDir &dir, std::unique_ptr<BackgroundDag> &dag, const std::string &command,
                const std::vector<std::string> &more = {}) {
    const std::string input = dir.path + "/graph.dot";
    std::ofstream(input) << graph;
    std::vector<std::string> args = {"walk", "-", "--parallelism", "2", "--exec", command};
    args.insert(args.end(), more.begin(), more.end());
    dag = std::make_unique<BackgroundDag>(args, input, dir.path);
    ASSERT_TRUE(wait_until([&] { return exists(dir.path + "/a") && exists(dir.path + "/b"); },
                           milliseconds(10000)))
        << dag->err();
}

TEST(CliWalkSignals, SigintStopsTheCommandsAndExits130) {
    ScratchDir dir;
    std::unique_ptr<BackgroundDag> dag;
    // Each command marks that it runs, then blocks until it is terminated.
    start_walk(dir, dag, ": > " + dir.path + "/$DAG_VERTEX; exec sleep 30");
    ASSERT_TRUE(wait_until([&] { return dag->live().size() >= 3u; }, milliseconds(2000)))
        << dag->live().size() << " of dag and its two commands found";

    const auto sent = Clock::now();
    ASSERT_EQ(kill(dag->pid(), SIGINT), 0);
    // The commands exit on SIGTERM at once: well within the 5 s grace.
    EXPECT_EQ(dag->wait(milliseconds(5000)), 130) << dag->err();
    EXPECT_LT(Clock::now() - sent, milliseconds(5000));
    // What was killed may take a moment to be gone; a survivor stays.
    EXPECT_TRUE(wait_until([&] { return dag->live().empty(); }, milliseconds(2000)))
        << dag->live().size() << " processes of dag's left running";
    EXPECT_FALSE(exists(dir.path + "/c")) << "c started after the interrupt";
    EXPECT_EQ(dag->err(), "0 ok, 0 failed, 0 upstream failed, 0 not run, 3 cancelled\n"
                          "stopped: a\n"
                          "stopped: b\n"
                          "never ran: c\n"
                          "interrupted by SIGINT\n");
    EXPECT_EQ(dag->out(), "");
}

TEST(CliWalkSignals, SigtermKillsWhatIgnoresItAfterTheGracePeriod) {
    ScratchDir dir;
    std::unique_ptr<BackgroundDag> dag;
    // The commands ignore SIGTERM (and so does the sleep they start), so only
    // SIGKILL, after the 1 s grace, stops them.
    start_walk(dir, dag, "trap '' TERM; : > " + dir.path + "/$DAG_VERTEX; sleep 30",
               {"--grace", "1"});

    const auto sent = Clock::now();
    ASSERT_EQ(kill(dag->pid(), SIGTERM), 0);
    EXPECT_EQ(dag->wait(milliseconds(6000)), 143) << dag->err();
    const auto took = Clock::now() - sent;
    EXPECT_GE(took, milliseconds(1000)) << "killed before the grace period ended";
    EXPECT_LT(took, milliseconds(5000)) << "the grace period was not applied";
    EXPECT_TRUE(wait_until([&] { return dag->live().empty(); }, milliseconds(2000)))
        << dag->live().size() << " processes of dag's left running";
    EXPECT_FALSE(exists(dir.path + "/c"));
    EXPECT_EQ(dag->err(), "0 ok, 0 failed, 0 upstream failed, 0 not run, 3 cancelled\n"
                          "stopped: a\n"
                          "stopped: b\n"
                          "never ran: c\n"
                          "interrupted by SIGTERM\n");
}

TEST(CliWalkSignals, WhatACommandMovedToAGroupOfItsOwnIsStoppedToo) {
    ScratchDir dir;
    std::unique_ptr<BackgroundDag> dag;
    // timeout(1) runs its command in a process group of its own: signalling
    // the command's group alone left both running. Not the script's last
    // command, which sh would exec, timeout then leading the session.
    start_walk(dir, dag, ": > " + dir.path + "/$DAG_VERTEX; timeout 60 sleep 33; true", {"--grace", "1"});
    ASSERT_TRUE(wait_until([&] { return dag->live().size() >= 5u; }, milliseconds(2000)))
        << dag->live().size() << " of dag, its two commands and what they started found";
    ASSERT_EQ(kill(dag->pid(), SIGINT), 0);
    EXPECT_EQ(dag->wait(milliseconds(6000)), 130) << dag->err();
    EXPECT_TRUE(wait_until([&] { return dag->live().empty(); }, milliseconds(2000)))
        << dag->live().size() << " processes of dag's left running";
}

TEST(CliWalkSignals, StoppedCommandThatExitsZeroCountsAsCancelled) {
    ScratchDir dir;
    std::unique_ptr<BackgroundDag> dag;
    // The commands end with status 0 when terminated: their work was cut
    // short all the same.
    start_walk(dir, dag, "trap 'exit 0' TERM; : > " + dir.path + "/$DAG_VERTEX; sleep 30 & wait");
    ASSERT_EQ(kill(dag->pid(), SIGTERM), 0);
    EXPECT_EQ(dag->wait(milliseconds(6000)), 143) << dag->err();
    EXPECT_EQ(dag->err(), "0 ok, 0 failed, 0 upstream failed, 0 not run, 3 cancelled\n"
                          "stopped: a\n"
                          "stopped: b\n"
                          "never ran: c\n"
                          "interrupted by SIGTERM\n");
}

// A command stopped in its second run: the report's last attempt message
// is the stop's, as `message` is (it was libdag's "cancelled while pending").
TEST(CliWalkSignals, AStoppedRetryEndsItsAttemptMessagesWithTheStop) {
    ScratchDir dir;
    std::unique_ptr<BackgroundDag> dag;
    const std::string report = dir.path + "/report.json";
    // Each vertex fails its first run, then marks its second and blocks.
    start_walk(dir, dag,
               "if [ -e " + dir.path + "/$DAG_VERTEX.ran ]; then : > " + dir.path +
                   "/$DAG_VERTEX; sleep 30 & wait; else : > " + dir.path + "/$DAG_VERTEX.ran; exit 5; fi",
               {"--retries", "1", "--retry-delay", "1", "--report", report});
    ASSERT_EQ(kill(dag->pid(), SIGTERM), 0);
    EXPECT_EQ(dag->wait(milliseconds(10000)), 143) << dag->err();
    const nlohmann::json document = nlohmann::json::parse(read_file(report));
    for (const auto &v : document["vertices"]) {
        if (v["name"] == "c") continue;  // never ran
        EXPECT_EQ(v["status"], "cancelled") << v.dump();
        EXPECT_EQ(v["message"], "stopped by dag: killed by signal 15") << v.dump();
        EXPECT_EQ(v["attempt_messages"],
                  nlohmann::json::parse(R"(["exit status 5", "stopped by dag: killed by signal 15"])"))
            << v.dump();
    }
}

TEST(CliWalkSignals, SecondSigintEndsTheGraceAtOnce) {
    ScratchDir dir;
    std::unique_ptr<BackgroundDag> dag;
    // Commands that note SIGTERM and live on (their sleep dies of it and is
    // started again), under a grace long enough that only the second Ctrl-C
    // can explain an exit within the test's bounds.
    start_walk(dir, dag,
               "trap ': > " + dir.path + "/$DAG_VERTEX.term' TERM; : > " + dir.path +
                   "/$DAG_VERTEX; while :; do sleep 30 & wait; done",
               {"--grace", "60"});
    ASSERT_EQ(kill(dag->pid(), SIGINT), 0);
    // Two signals sent at once may arrive as one: the second goes once the
    // first has been acted on, which the commands' SIGTERM shows.
    ASSERT_TRUE(wait_until([&] { return exists(dir.path + "/a.term") && exists(dir.path + "/b.term"); },
                           milliseconds(10000)))
        << dag->err();
    const auto sent = Clock::now();
    ASSERT_EQ(kill(dag->pid(), SIGINT), 0);
    EXPECT_EQ(dag->wait(milliseconds(10000)), 130) << dag->err();
    EXPECT_LT(Clock::now() - sent, milliseconds(10000)) << "the grace ran on";
    EXPECT_TRUE(wait_until([&] { return dag->live().empty(); }, milliseconds(2000)))
        << dag->live().size() << " processes of dag's left running";
    EXPECT_EQ(dag->err(), "0 ok, 0 failed, 0 upstream failed, 0 not run, 3 cancelled\n"
                          "stopped: a\n"
                          "stopped: b\n"
                          "never ran: c\n"
                          "interrupted by SIGINT\n");
}

TEST(CliWalkSignals, SighupStopsTheCommandsAndExits129) {
    ScratchDir dir;
    std::unique_ptr<BackgroundDag> dag;
    start_walk(dir, dag, ": > " + dir.path + "/$DAG_VERTEX; exec sleep 30",
               {"--report", dir.path + "/report.json"});
    ASSERT_EQ(kill(dag->pid(), SIGHUP), 0);
    EXPECT_EQ(dag->wait(milliseconds(5000)), 129) << dag->err();
    EXPECT_TRUE(wait_until([&] { return dag->live().empty(); }, milliseconds(2000)))
        << dag->live().size() << " processes of dag's left running";
    EXPECT_EQ(dag->err(), "0 ok, 0 failed, 0 upstream failed, 0 not run, 3 cancelled\n"
                          "stopped: a\n"
                          "stopped: b\n"
                          "never ran: c\n"
                          "interrupted by SIGHUP\n");
    EXPECT_NE(read_file(dir.path + "/report.json").find("\"cancelled\": 3"), std::string::npos);
}

// Ctrl-\\ and the other signals whose default would end dag: dag ended
// (SIGQUIT dumped core) and left its commands running, each in a session
// of its own with no terminal to stop them.
TEST(CliWalkSignals, EverySignalThatWouldEndDagStopsTheCommandsFirst) {
    const std::pair<int, const char *> signals[] = {{SIGQUIT, "SIGQUIT"}, {SIGUSR1, "SIGUSR1"}, {SIGALRM, "SIGALRM"}};
    for (const auto &[signal, name] : signals) {
        ScratchDir dir;
        std::unique_ptr<BackgroundDag> dag;
        start_walk(dir, dag, ": > " + dir.path + "/$DAG_VERTEX; exec sleep 30");
        ASSERT_EQ(kill(dag->pid(), signal), 0);
        EXPECT_EQ(dag->wait(milliseconds(5000)), 128 + signal) << dag->err();
        EXPECT_TRUE(wait_until([&] { return dag->live().empty(); }, milliseconds(2000)))
            << dag->live().size() << " processes of dag's left running after " << name;
        EXPECT_EQ(dag->err(), std::string("0 ok, 0 failed, 0 upstream failed, 0 not run, 3 cancelled\n"
                                          "stopped: a\n"
                                          "stopped: b\n"
                                          "never ran: c\n"
                                          "interrupted by ") +
                                  name + "\n");
    }
}

// Under nohup (SIGHUP ignored), or started with `&` by a script (SIGINT
// ignored), dag caught them all the same: a hangup cancelled the walk that
// nohup was to keep running.
TEST(CliWalkSignals, ASignalIgnoredByWhoeverStartedDagStaysIgnored) {
    ScratchDir dir;
    std::ofstream(dir.path + "/graph.dot") << "digraph { a; b -> a }";
    // Each command signals dag and then itself, which it survives only
    // ignoring them too; then leaves its mark.
    std::ofstream(dir.path + "/script.sh")
        << "cd '" << dir.path << "' && trap '' HUP INT && exec '" << DAG_CLI
        << "' walk graph.dot --exec 'kill -HUP $PPID; kill -INT $PPID; kill -HUP $$; kill -INT $$; : > $DAG_VERTEX'"
        << " > out 2> err\n";
    const int status = std::system(("/bin/sh '" + dir.path + "/script.sh'").c_str());
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 0) << read_file(dir.path + "/err");
    EXPECT_EQ(read_file(dir.path + "/err"), "2 ok, 0 failed, 0 upstream failed, 0 not run\n");
    EXPECT_TRUE(exists(dir.path + "/a"));
    EXPECT_TRUE(exists(dir.path + "/b"));
}

// A shell loop that waits (20 s at most) until the test creates `go` in `dir`.
std::string until_go(const std::string &dir) {
    return "i=0; while [ ! -e " + dir + "/go ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i+1)); done";
}

// A chain: one vertex at a time, a first.
const char *const chain = "digraph { a; b -> a; c -> b; d -> c; e -> d }";

// A reader of standard output (1) or error (2) that goes away while c and d
// still run: b's output, written after that, raises SIGPIPE.
void reader_goes_away(int stream) {
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    std::ofstream(input) << "digraph { a; b; c; d -> a }";
    const std::string to = stream == 2 ? " >&2" : "";
    const std::string command = "case $DAG_VERTEX in a) echo x" + to +
                                ";; b) " + until_go(dir.path) + "; echo y" + to + ";; *) : > " + dir.path +
                                "/$DAG_VERTEX; exec sleep 30;; esac";
    const std::string report = dir.path + "/report.json", trace = dir.path + "/trace.json";
    BackgroundDag dag({"walk", "-", "--parallelism", "3", "--exec", command, "--report", report,
                       "--trace", trace},
                      input, dir.path, stream);
    EXPECT_EQ(dag.read_line(milliseconds(10000)), "a: x");
    ASSERT_TRUE(wait_until([&] { return exists(dir.path + "/c") && exists(dir.path + "/d"); },
                           milliseconds(10000)));
    dag.close_pipe();
    std::ofstream(dir.path + "/go") << "";
    EXPECT_EQ(dag.wait(milliseconds(10000)), 141) << dag.err();
    EXPECT_TRUE(wait_until([&] { return dag.live().empty(); }, milliseconds(2000)))
        << dag.live().size() << " processes of dag's left running";
    const nlohmann::json document = nlohmann::json::parse(read_file(report), nullptr, false);
    ASSERT_FALSE(document.is_discarded()) << read_file(report);
    EXPECT_EQ(document.at("ok"), 2) << document.dump();
    EXPECT_EQ(document.at("cancelled"), 2) << document.dump();
    EXPECT_TRUE(exists(trace));
    if (stream == 1) {
        EXPECT_NE(dag.err().find("interrupted by SIGPIPE\n"), std::string::npos) << dag.err();
    }
}

TEST(CliWalkSignals, ReaderOfStandardOutputGoneStopsTheCommandsAndExits141) { reader_goes_away(1); }

TEST(CliWalkSignals, ReaderOfStandardErrorGoneStopsTheCommandsAndExits141) { reader_goes_away(2); }

// Streamed, the commands write to dag's output themselves, and a reader
// gone raised SIGPIPE in them, not in dag: every later vertex still started
// and died of it. It stops the walk as dag's own SIGPIPE does.
TEST(CliWalkSignals, ReaderGoneWhileStreamingStopsTheWalkAndExits141) {
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    std::ofstream(input) << chain;
    const std::string command =
        "echo $DAG_VERTEX; : > " + dir.path + "/ran-$DAG_VERTEX; " + until_go(dir.path) + "; echo more";
    // A long grace: the stop must not wait it out for the command that met
    // the gone reader, which has exited already.
    BackgroundDag dag({"walk", "-", "--output", "stream", "--parallelism", "1", "--grace", "60", "--exec", command},
                      input, dir.path, 1);
    EXPECT_EQ(dag.read_line(milliseconds(10000)), "a");
    dag.close_pipe();
    std::ofstream(dir.path + "/go") << "";
    EXPECT_EQ(dag.wait(milliseconds(20000)), 141) << dag.err();
    EXPECT_NE(dag.err().find("interrupted by SIGPIPE\n"), std::string::npos) << dag.err();
    EXPECT_FALSE(exists(dir.path + "/ran-c")) << dag.err();
    EXPECT_TRUE(wait_until([&] { return dag.live().empty(); }, milliseconds(2000)))
        << dag.live().size() << " processes of dag's left running";
}

// Grouped (the default), dag wrote the commands' output itself and noticed
// a gone reader only at its next write: commands that print nothing kept
// the walk going to its end, exit 0.
TEST(CliWalkSignals, ReaderGoneStopsAGroupedWalkWhoseCommandsPrintNothing) {
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    std::ofstream(input) << chain;
    const std::string command = "[ $DAG_VERTEX != a ] || { echo first; exit 0; }; : > " + dir.path +
                                "/ran-$DAG_VERTEX; " + until_go(dir.path);
    BackgroundDag dag({"walk", "-", "--parallelism", "1", "--exec", command}, input, dir.path, 1);
    EXPECT_EQ(dag.read_line(milliseconds(10000)), "a: first");
    ASSERT_TRUE(wait_until([&] { return exists(dir.path + "/ran-b"); }, milliseconds(10000)));
    dag.close_pipe();
    std::ofstream(dir.path + "/go") << "";
    EXPECT_EQ(dag.wait(milliseconds(20000)), 141) << dag.err();
    // b ran to its end (its status stands); nothing started after it.
    EXPECT_EQ(dag.err(), "2 ok, 0 failed, 0 upstream failed, 0 not run, 3 cancelled\n"
                         "never ran: c\nnever ran: d\nnever ran: e\ninterrupted by SIGPIPE\n");
    EXPECT_FALSE(exists(dir.path + "/ran-c")) << dag.err();
}

TEST(CliWalkSignals, WhatACommandLeavesRunningIsStoppedWhenItExits) {
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    std::ofstream(input) << "digraph { a; b -> a }";
    BackgroundDag dag({"walk", "-", "--exec", "sleep 300 & exit 0"}, input, dir.path);
    EXPECT_EQ(dag.wait(milliseconds(10000)), 0) << dag.err();
    EXPECT_TRUE(wait_until([&] { return dag.live().empty(); }, milliseconds(2000)))
        << dag.live().size() << " processes of dag's left running";
    EXPECT_EQ(dag.err(), "2 ok, 0 failed, 0 upstream failed, 0 not run\n");

    // Also what moved to a process group of its own (timeout(1) does).
    BackgroundDag moved({"walk", "-", "--exec", "timeout 60 sleep 300 & exit 0"}, input, dir.path);
    EXPECT_EQ(moved.wait(milliseconds(10000)), 0) << moved.err();
    EXPECT_TRUE(wait_until([&] { return moved.live().empty(); }, milliseconds(2000)))
        << moved.live().size() << " processes of dag's left running";

    // What ignores SIGTERM gets SIGKILL after the grace.
    std::ofstream(input) << "digraph { a }";
    const auto began = Clock::now();
    BackgroundDag stubborn({"walk", "-", "--grace", "1", "--exec", "trap '' TERM; sleep 300 & exit 0"},
                           input, dir.path);
    EXPECT_EQ(stubborn.wait(milliseconds(10000)), 0) << stubborn.err();
    EXPECT_GE(Clock::now() - began, milliseconds(1000)) << "killed before the grace period ended";
    EXPECT_TRUE(wait_until([&] { return stubborn.live().empty(); }, milliseconds(2000)))
        << stubborn.live().size() << " processes of dag's left running";
}

TEST(CliWalkSignals, WalkThatEndsOnItsOwnIsNotInterrupted) {
    ScratchDir dir;
    const std::string input = dir.path + "/graph.dot";
    std::ofstream(input) << graph;
    BackgroundDag dag({"walk", "-", "--exec", "true"}, input, dir.path);
    EXPECT_EQ(dag.wait(milliseconds(10000)), 0) << dag.err();
    EXPECT_EQ(dag.err(), "3 ok, 0 failed, 0 upstream failed, 0 not run\n");
}

}  // namespace

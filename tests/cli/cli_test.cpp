// The `dag` program, run as a child process the way a user runs it: exact
// standard output, the gist of standard error and the exit status of every
// command, on good input and bad. DAG_CLI is the program, DAG_SOURCE_DIR the
// source tree holding the example graphs and the DOT corpus.
#include <gtest/gtest.h>

#include <dag/dag.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

struct Result {
    int status = -1;  // exit status, or 128 + signal
    std::string out;
    std::string err;
};

void close_fd(int &fd) {
    if (fd >= 0) close(fd);
    fd = -1;
}

// Runs argv[0] with `input` on its standard input, collecting both outputs
// through one poll loop so that no pipe can fill up and stall the child.
Result run(const std::vector<std::string> &argv, const std::string &input = "") {
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
        ADD_FAILURE() << "pipe2 failed";
        return {};
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    // The test ignores SIGPIPE (below); the program must get the default.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);

    std::vector<char *> args;
    for (const std::string &arg : argv) args.push_back(const_cast<char *>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    int spawned = posix_spawn(&pid, args[0], &actions, &attributes, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    Result result;
    if (spawned != 0) {
        ADD_FAILURE() << "cannot start " << argv[0];
        close(in[1]);
        close(out[0]);
        close(err[0]);
        return result;
    }

    // A program that does not read its input must not block the test.
    signal(SIGPIPE, SIG_IGN);
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    size_t written = 0;
    int to_child = in[1], from_out = out[0], from_err = err[0];
    if (input.empty()) close_fd(to_child);
    while (from_out >= 0 || from_err >= 0 || to_child >= 0) {
        pollfd fds[3] = {{from_out, POLLIN, 0}, {from_err, POLLIN, 0}, {to_child, POLLOUT, 0}};
        if (poll(fds, 3, -1) < 0) {
            if (errno == EINTR) continue;
            ADD_FAILURE() << "poll failed";
            break;
        }
        char buffer[65536];
        for (int i = 0; i < 2; ++i) {
            int &fd = i == 0 ? from_out : from_err;
            if (fd < 0 || fds[i].revents == 0) continue;
            ssize_t n = read(fd, buffer, sizeof buffer);
            if (n > 0)
                (i == 0 ? result.out : result.err).append(buffer, static_cast<size_t>(n));
            else if (n == 0 || errno != EINTR)
                close_fd(fd);
        }
        if (to_child >= 0 && fds[2].revents != 0) {
            ssize_t n = write(to_child, input.data() + written, input.size() - written);
            if (n > 0) written += static_cast<size_t>(n);
            if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == input.size())
                close_fd(to_child);
        }
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

Result dag(std::vector<std::string> args, const std::string &input = "") {
    args.insert(args.begin(), DAG_CLI);
    return run(args, input);
}

std::string source(const std::string &path) { return std::string(DAG_SOURCE_DIR) + "/" + path; }
std::string corpus(const std::string &name) {
    return source("tests/resources/dot-corpus/" + name);
}
const std::string deploy = source("examples/graphs/deploy.dot");

std::vector<std::string> lines(const std::string &text) {
    std::vector<std::string> out;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) out.push_back(line);
    return out;
}

// Each vertex's dependencies, read from `dag convert --to text` (Terraform's
// String(): a vertex, then its dependencies indented by two spaces).
std::map<std::string, std::vector<std::string>> dependencies(const std::string &file,
                                                             const std::string &input = "") {
    Result text = dag({"convert", file, "--to", "text"}, input);
    EXPECT_EQ(text.status, 0) << text.err;
    std::map<std::string, std::vector<std::string>> deps;
    std::string vertex;
    for (const std::string &line : lines(text.out)) {
        if (line.rfind("  ", 0) == 0)
            deps[vertex].push_back(line.substr(2));
        else
            deps[vertex = line];
    }
    return deps;
}

// Every vertex listed once, each after its dependencies (or, `reversed`, before them).
void expect_execution_order(const std::vector<std::string> &order,
                            const std::map<std::string, std::vector<std::string>> &deps,
                            bool reversed = false) {
    ASSERT_EQ(order.size(), deps.size());
    std::map<std::string, size_t> position;
    for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
    ASSERT_EQ(position.size(), deps.size()) << "a vertex listed twice";
    for (const auto &[vertex, list] : deps) {
        ASSERT_TRUE(position.count(vertex)) << vertex;
        for (const std::string &dep : list) {
            if (reversed)
                EXPECT_LT(position[vertex], position[dep]) << vertex << " -> " << dep;
            else
                EXPECT_GT(position[vertex], position[dep]) << vertex << " -> " << dep;
        }
    }
}

// A scratch directory for commands to meet in, removed with what they left.
struct TempDir {
    std::string path;
    TempDir() {
        char name[] = "/tmp/dag-cli-test-XXXXXX";
        EXPECT_NE(mkdtemp(name), nullptr);
        path = name;
    }
    ~TempDir() { run({"/bin/rm", "-rf", path}); }
};

const std::string provider = "[root] provider[\"registry.terraform.io/hashicorp/aws\"]";

// ------------------------------------------------------------------------
// Usage, help, version

TEST(CliUsage, VersionIsTheLibrarys) {
    Result r = dag({"--version"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, std::string("dag (libdag ") + DAG_VERSION_STRING + ")\n");
}

TEST(CliUsage, HelpListsEveryCommand) {
    Result r = dag({"--help"});
    EXPECT_EQ(r.status, 0);
    for (const char *command : {"validate", "order", "root", "cycles", "reduce", "convert",
                                "ancestors", "descendants", "stats", "walk", "render"})
        EXPECT_NE(r.out.find(std::string("  ") + command + " "), std::string::npos) << command;
    Result walk = dag({"walk", "--help"});
    EXPECT_EQ(walk.status, 0);
    EXPECT_NE(walk.out.find("--exec CMD"), std::string::npos) << walk.out;
    EXPECT_NE(walk.out.find("--parallelism N"), std::string::npos) << walk.out;
}

TEST(CliUsage, UsageErrorsExitWithStatus2) {
    const std::vector<std::vector<std::string>> bad = {
        {},
        {"frobnicate", deploy},
        {"order"},
        {"order", deploy, "--from", "yaml"},
        {"order", deploy, "--bogus"},
        {"convert", deploy},
        {"convert", deploy, "--to", "png"},
        {"ancestors", deploy},
        {"walk", deploy, "--parallelism", "0"},
        {"walk", deploy, "--parallelism", "many"},
    };
    for (const auto &args : bad) {
        Result r = dag(args);
        std::string shown;
        for (const std::string &arg : args) shown += arg + " ";
        EXPECT_EQ(r.status, 2) << shown << "\n" << r.err;
        EXPECT_EQ(r.out, "") << shown;
        EXPECT_NE(r.err.find("--help"), std::string::npos) << shown << "\n" << r.err;
    }
}

TEST(CliUsage, UsageErrorsSpeakAsDagAndNameTheCommandsHelp) {
    Result r = dag({"frobnicate", deploy});
    EXPECT_EQ(r.err.rfind("dag: unknown command 'frobnicate' (commands: validate, ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(", walk, "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\nRun 'dag --help' for usage.\n"), std::string::npos) << r.err;
    // With --help after it, the top-level help came out with status 0.
    for (const char *help : {"--help", "-h"}) {
        r = dag({"frobnicate", help});
        EXPECT_EQ(r.status, 2) << help;
        EXPECT_EQ(r.out, "") << help;
        EXPECT_EQ(r.err.rfind("dag: unknown command 'frobnicate' (commands: validate, ", 0), 0u) << r.err;
    }
    r = dag({"order", "--help"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("Usage: dag order"), std::string::npos) << r.out;
    r = dag({});
    EXPECT_EQ(r.err.rfind("dag: a command is required (commands: ", 0), 0u) << r.err;
    // An unknown option before any command was "a command is required" too;
    // before a command, that command's "FILE is required" or "not expected".
    for (const std::vector<std::string> &args : std::vector<std::vector<std::string>>{
             {"--bogus"}, {"--bogus=1"}, {"--bogus", "validate"}, {"--bogus", "validate", deploy}}) {
        r = dag(args);
        EXPECT_EQ(r.status, 2);
        EXPECT_EQ(r.err, "dag: unknown option '--bogus'\nRun 'dag --help' for usage.\n");
    }
    // After '--' a command's name is an argument: this said "dag validate:
    // A subcommand is required".
    for (const std::vector<std::string> &args :
         std::vector<std::vector<std::string>>{{"--", "validate", deploy}, {"--"}, {"--", "frobnicate"}}) {
        r = dag(args);
        EXPECT_EQ(r.status, 2);
        EXPECT_EQ(r.err.rfind("dag: the command goes before '--' (commands: validate, ", 0), 0u) << r.err;
    }
    // A mistyped command's own options are not the top level's.
    r = dag({"wakl", deploy, "--exec", "make"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.rfind("dag: unknown command 'wakl' (commands: ", 0), 0u) << r.err;
    r = dag({"order", deploy, "--bogus"});
    EXPECT_EQ(r.err, "dag order: The following argument was not expected: --bogus\n"
                     "Run 'dag order --help' for usage.\n");
    r = dag({"walk", deploy, "--parallelism", "many"});
    EXPECT_EQ(r.err.rfind("dag walk: --parallelism: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("\nRun 'dag walk --help' for usage.\n"), std::string::npos) << r.err;
}

// CLI11 finds FILE or NAME missing when a word the user meant for it went
// elsewhere: say where, and how to write it.
TEST(CliUsage, AMissingFileOrNameSaysWhereTheWordWent) {
    const std::string graph = "digraph { a -> b; \"-x\" -> b }";
    Result r = dag({"order", "--target", "b", "-", "--json"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag order: FILE is required (--target took every word after it as a vertex name, FILE too: "
                     "give FILE first, as in 'dag order FILE --target NAME...', or end the names with '--')\n"
                     "Run 'dag order --help' for usage.\n");
    r = dag({"walk", "--exclude", "a", "-", "--output", "none"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("(--exclude took every word after it as a vertex name, FILE too"), std::string::npos)
        << r.err;
    r = dag({"order", "--target", "b", "--", "-", "--json"}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out), nlohmann::json::parse(R"({"order": ["b"]})"));

    r = dag({"ancestors", "-", "-x"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag ancestors: NAME is required (a NAME that begins with '-' goes after '--', as in "
                     "'dag ancestors FILE -- -x')\nRun 'dag ancestors --help' for usage.\n");
    r = dag({"ancestors", "-", "--", "-x"}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "b\n");
    // A FILE that begins with '-' after the '--' that ended the names is
    // read as an option: '--' lets options follow the names.
    r = dag({"order", "--target", "b", "--", "-x.dot", "--json"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag order: FILE is required ('--' ended the names of --target, and '-x.dot' after it was read "
                     "as an option: write a FILE that begins with '-' as './-x.dot')\nRun 'dag order --help' for "
                     "usage.\n");
    // After a '--' that ends no names, every word is FILE or a name: an
    // option there was told as missing, or its words as unexpected.
    r = dag({"convert", "--", "-", "--to", "json"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag convert: --to is required ('--to' comes after '--', where every word is an argument: "
                     "options go before '--', as in 'dag convert --to ... -- FILE')\nRun 'dag convert --help' for "
                     "usage.\n");
    r = dag({"validate", "--", "-", "--json"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(" ('--json' comes after '--', where every word is an argument: options go before '--', as "
                         "in 'dag validate --json ... -- FILE')\n"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(dag({"convert", "--to", "json", "--", "-"}, graph).status, 0);
    // Nothing was given: nothing to explain.
    EXPECT_EQ(dag({"ancestors", "-"}, graph).err, "dag ancestors: NAME is required\nRun 'dag ancestors --help' for usage.\n");
    EXPECT_EQ(dag({"order"}).err, "dag order: FILE is required\nRun 'dag order --help' for usage.\n");
}

// ------------------------------------------------------------------------
// validate, root, cycles, stats

TEST(CliValidate, ExampleGraphIsValid) {
    Result r = dag({"validate", deploy});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "ok: 11 vertices, 13 edges\n");
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(dag({"validate", source("examples/graphs/deploy.json")}).out,
              "ok: 11 vertices, 13 edges\n");
}

TEST(CliValidate, ProblemsGoToStandardOutputInTerraformsWords) {
    Result r = dag({"validate", "-"}, "digraph { a -> b; c }");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "multiple roots: a, c\n");
    EXPECT_EQ(r.err, "");

    r = dag({"validate", "--no-single-root", "-"}, "digraph { a -> b; c }");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "ok: 3 vertices, 1 edge\n");

    r = dag({"validate", "-"}, "digraph { a -> b; b -> a; c -> c }");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "no roots found\nCycle:\n  a\n  b\nSelf reference: c\n");
}

TEST(CliValidate, Corpus) {
    Result crlf = dag({"validate", corpus("tf-13-oci-crlf.dot")});
    EXPECT_EQ(crlf.status, 0) << crlf.err;
    EXPECT_EQ(crlf.out, "ok: 9 vertices, 10 edges\n");

    Result utf16 = dag({"validate", corpus("tf-04-aws-modules-utf16-crlf.dot")});
    EXPECT_EQ(utf16.status, 0) << utf16.err;
    EXPECT_EQ(utf16.out, "ok: 82 vertices, 144 edges\n");

    Result cyclic = dag({"validate", corpus("tf-12-draw-cycles-terraform-golden.dot")});
    EXPECT_EQ(cyclic.status, 1);
    EXPECT_EQ(cyclic.out,
              "Cycle:\n  [root] local.test1 (expand)\n  [root] local.test2 (expand)\n"
              "Cycle:\n  [root] test_instance.bar (expand)\n  [root] test_instance.foo (expand)\n");
}

TEST(CliRoot, PrintsTheRootOrWhyThereIsNone) {
    Result r = dag({"root", deploy});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "[root] root\n");

    r = dag({"root", "-"}, "digraph { a -> b; c }");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "dag: multiple roots: a, c\n");

    r = dag({"root", "-"}, "digraph { a -> b; b -> a }");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("no roots found"), std::string::npos) << r.err;
}

TEST(CliCycles, ListsCyclesAndSelfReferences) {
    Result r = dag({"cycles", "-"}, "digraph { a -> b; b -> a; c -> c; d -> e; e -> d; x -> a }");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "Cycle:\n  a\n  b\nCycle:\n  d\n  e\nSelf reference: c\n");

    r = dag({"cycles", deploy});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "no cycles\n");
}

TEST(CliStats, CountsAndLongestChain) {
    Result r = dag({"stats", deploy});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out,
              "vertices: 11\nedges: 13\nroots: 1\nleaves: 1\nacyclic: yes\ncycles: 0\n"
              "self references: 0\nlongest chain: 8\n");

    r = dag({"stats", "-"}, "digraph { a -> b; b -> a; c -> c; d }");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out,
              "vertices: 4\nedges: 3\nroots: 1\nleaves: 1\nacyclic: no\ncycles: 1\n"
              "self references: 1\nlongest chain: n/a\n");

    // Sparse JSON ids are indexed, not used as positions.
    r = dag({"stats", "-"},
            R"({"vertices": [{"id": 7, "name": "a"}, {"id": 900}], "edges": [[7, 900]]})");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out,
              "vertices: 2\nedges: 1\nroots: 1\nleaves: 1\nacyclic: yes\ncycles: 0\n"
              "self references: 0\nlongest chain: 2\n");
}

// ------------------------------------------------------------------------
// order, ancestors, descendants

TEST(CliOrder, ExecutionOrderAndDestroyOrder) {
    Result r = dag({"order", deploy});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "[root] var.region\n" + provider +
                         "\n"
                         "[root] aws_vpc.main (expand)\n"
                         "[root] aws_security_group.web (expand)\n"
                         "[root] aws_subnet.public (expand)\n"
                         "[root] aws_db_instance.main (expand)\n"
                         "[root] data.aws_ami.ubuntu (expand)\n"
                         "[root] aws_instance.web (expand)\n"
                         "[root] output.web_ip (expand)\n" +
                         provider + " (close)\n"
                         "[root] root\n");
    expect_execution_order(lines(r.out), dependencies(deploy));

    r = dag({"order", "--reverse", deploy});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "[root] root\n"
                     "[root] output.web_ip (expand)\n" +
                         provider + " (close)\n"
                         "[root] aws_instance.web (expand)\n"
                         "[root] aws_db_instance.main (expand)\n"
                         "[root] aws_security_group.web (expand)\n"
                         "[root] aws_subnet.public (expand)\n"
                         "[root] aws_vpc.main (expand)\n"
                         "[root] data.aws_ami.ubuntu (expand)\n" +
                         provider + "\n"
                         "[root] var.region\n");
    expect_execution_order(lines(r.out), dependencies(deploy), true);
}

TEST(CliOrder, HelpsThreeVertexExampleHolds) {
    // The example both help texts give: a depends on b, b on c.
    const std::string chain = "digraph { a -> b; b -> c }";
    EXPECT_EQ(dag({"order", "-"}, chain).out, "c\nb\na\n");
    EXPECT_EQ(dag({"order", "--reverse", "-"}, chain).out, "a\nb\nc\n");
    EXPECT_EQ(dag({"walk", "-", "--parallelism", "1"}, chain).out, "c\nb\na\n");
    EXPECT_EQ(dag({"walk", "-", "--reverse", "--parallelism", "1"}, chain).out, "a\nb\nc\n");
    for (const char *command : {"order", "walk"}) {
        Result help = dag({command, "--help"});
        EXPECT_EQ(help.status, 0);
        EXPECT_NE(help.out.find("a -> b and b -> c"), std::string::npos) << help.out;
    }
}

TEST(CliOrder, TiesGoToTheBytewiseSmallestName) {
    // Upper case sorts before lower case bytewise, and "a" before "a-" before "b".
    const std::string free = "digraph { \"b\"; \"a-\"; \"a\"; \"B\"; \"\xc3\xa9\" }";
    EXPECT_EQ(dag({"order", "-"}, free).out, "B\na\na-\nb\n\xc3\xa9\n");
    EXPECT_EQ(dag({"order", "--reverse", "-"}, free).out, "B\na\na-\nb\n\xc3\xa9\n");
    // x and y both wait for z; once z is done, x comes first.
    EXPECT_EQ(dag({"order", "-"}, "digraph { y -> z; x -> z }").out, "z\nx\ny\n");
    EXPECT_EQ(dag({"order", "--reverse", "-"}, "digraph { z -> y; z -> x }").out, "z\nx\ny\n");
}

TEST(CliOrder, CycleIsAnErrorInTerraformsWords) {
    Result r = dag({"order", "-"}, "digraph { a -> b; b -> a }");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "dag: Cycle:\n  a\n  b\n");

    r = dag({"order", corpus("tf-12-draw-cycles-terraform-golden.dot")});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("Cycle:\n  [root] test_instance.bar (expand)\n"
                         "  [root] test_instance.foo (expand)"),
              std::string::npos)
        << r.err;
}

TEST(CliOrder, Corpus) {
    Result r = dag({"order", "--reverse", corpus("tf-13-oci-crlf.dot")});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out,
              "[root] root\n"
              "[root] output.vcn_cidr (expand)\n"
              "[root] output.vcn_state (expand)\n"
              "[root] provider[\"registry.terraform.io/hashicorp/oci\"] (close)\n"
              "[root] oci_core_subnet.dev (expand)\n"
              "[root] oci_core_vcn.internal (expand)\n"
              "[root] provider[\"registry.terraform.io/hashicorp/oci\"]\n"
              "[root] var.compartment_id\n"
              "[root] var.region\n");

    const std::string utf16 = corpus("tf-04-aws-modules-utf16-crlf.dot");
    r = dag({"order", utf16});
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<std::string> order = lines(r.out);
    EXPECT_EQ(order.size(), 82u);
    EXPECT_EQ(order.back(), "[root] root");
    expect_execution_order(order, dependencies(utf16));
}

TEST(CliRelatives, AncestorsAndDescendantsSorted) {
    Result r = dag({"ancestors", deploy, "[root] aws_instance.web (expand)"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out,
              "[root] aws_db_instance.main (expand)\n"
              "[root] aws_security_group.web (expand)\n"
              "[root] aws_subnet.public (expand)\n"
              "[root] aws_vpc.main (expand)\n"
              "[root] data.aws_ami.ubuntu (expand)\n" +
                  provider + "\n[root] var.region\n");

    r = dag({"descendants", deploy, "[root] aws_subnet.public (expand)",
             "[root] data.aws_ami.ubuntu (expand)"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out,
              "[root] aws_db_instance.main (expand)\n"
              "[root] aws_instance.web (expand)\n"
              "[root] output.web_ip (expand)\n" +
                  provider + " (close)\n[root] root\n");

    r = dag({"descendants", deploy, "[root] root"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "");
}

TEST(CliRelatives, UnnamedVertexByItsId) {
    const std::string json = R"({"vertices": [{"id": 1, "name": "a"}, {"id": 2}], "edges": [[1, 2]]})";
    EXPECT_EQ(dag({"ancestors", "-", "a"}, json).out, "2\n");
    EXPECT_EQ(dag({"descendants", "-", "2"}, json).out, "a\n");
    // A vertex named "5" and unnamed vertex 5 both print as 5: the name won
    // without a word.
    const std::string both = R"({"vertices": [{"id": 1, "name": "5"}, {"id": 5}], "edges": [[1, 5]]})";
    const Result r = dag({"ancestors", "-", "5"}, both);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("\"5\" is both a vertex's name and the id of an unnamed vertex"), std::string::npos) << r.err;
}

TEST(CliRelatives, UnknownNameIsAnError) {
    Result r = dag({"ancestors", deploy, "[root] root", "aws_instance.web"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "dag: " + deploy + ": no vertex is named \"aws_instance.web\"\n");

    r = dag({"descendants", "-", "007"}, R"({"vertices": [{"id": 7}]})");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("no vertex is named \"007\""), std::string::npos) << r.err;
}

// ------------------------------------------------------------------------
// --json: the same facts as the text output, as one document

nlohmann::json parsed(const Result &r) {
    nlohmann::json document = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(document.is_discarded()) << "not JSON:\n" << r.out;
    return document;
}

TEST(CliJson, ValidateAndCycles) {
    Result r = dag({"validate", "--json", deploy});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(parsed(r), nlohmann::json::parse(R"({"valid": true, "vertices": 11, "edges": 13,
        "roots": ["[root] root"], "cycles": [], "self_references": [], "messages": []})"));

    // Roots sorted, not in the file's order (y before x here).
    const std::string bad = "digraph { y; a -> b; b -> a; c -> c; d -> e; e -> d; x -> a }";
    r = dag({"validate", "--json", "-"}, bad);
    EXPECT_EQ(r.status, 1);
    nlohmann::json found = parsed(r);
    EXPECT_EQ(found["valid"], false);
    EXPECT_EQ(found["roots"], nlohmann::json::parse(R"(["x", "y"])"));
    EXPECT_EQ(found["cycles"], nlohmann::json::parse(R"([["a", "b"], ["d", "e"]])"));
    EXPECT_EQ(found["self_references"], nlohmann::json::parse(R"(["c"])"));
    // The messages are the text output's, one problem each.
    std::string text;
    for (const auto &message : found["messages"]) text += message.get<std::string>() + "\n";
    EXPECT_EQ(text, dag({"validate", "-"}, bad).out);

    r = dag({"cycles", "--json", "-"}, bad);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(parsed(r), nlohmann::json::parse(
                             R"({"cycles": [["a", "b"], ["d", "e"]], "self_references": ["c"]})"));
    r = dag({"cycles", "--json", deploy});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(parsed(r), nlohmann::json::parse(R"({"cycles": [], "self_references": []})"));
}

TEST(CliJson, StatsHasTheTextsNumbers) {
    for (const std::string &input : {std::string("digraph { a -> b; b -> a; c -> c; d }"),
                                     std::string("digraph { a -> b; b -> c; a -> c; d -> c }")}) {
        Result r = dag({"stats", "--json", "-"}, input);
        EXPECT_EQ(r.status, 0) << r.err;
        const nlohmann::json stats = parsed(r);
        // "self references: 1" in the text is "self_references": 1 here.
        for (const std::string &line : lines(dag({"stats", "-"}, input).out)) {
            std::string key = line.substr(0, line.find(':'));
            std::replace(key.begin(), key.end(), ' ', '_');
            const std::string value = line.substr(line.find(": ") + 2);
            ASSERT_TRUE(stats.contains(key)) << key;
            if (value == "yes" || value == "no")
                EXPECT_EQ(stats[key], value == "yes") << key;
            else if (value == "n/a")
                EXPECT_TRUE(stats[key].is_null()) << key;
            else
                EXPECT_EQ(stats[key], std::stoul(value)) << key;
        }
    }
}

TEST(CliJson, ListsAreTheTextsLines) {
    for (const std::vector<std::string> &args :
         {std::vector<std::string>{"order", deploy}, {"order", "--reverse", deploy},
          {"ancestors", deploy, "[root] aws_instance.web (expand)"},
          {"descendants", deploy, "[root] aws_vpc.main (expand)", "[root] var.region"}}) {
        Result text = dag(args);
        std::vector<std::string> with_json = args;
        with_json.push_back("--json");
        Result r = dag(with_json);
        EXPECT_EQ(r.status, 0) << r.err;
        const std::string key = args[0];
        EXPECT_EQ(parsed(r), nlohmann::json({{key, lines(text.out)}})) << args[0];
    }
    // A failure prints no document: the message goes to standard error.
    Result r = dag({"order", "--json", "-"}, "digraph { a -> b; b -> a }");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "dag: Cycle:\n  a\n  b\n");
}

TEST(CliJson, AnUnnamedVertexIsItsIdAsANumber) {
    // Vertex 1 is named "2" and vertex 2 is unnamed: the text prints both as
    // 2; JSON tells them apart, a name a string and an id a number.
    const std::string graph = R"({"vertices": [{"id": 1, "name": "2"}, {"id": 2}, {"id": 3, "name": "c"},
                                               {"id": 4}], "edges": [[3, 1], [1, 2], [4, 2]]})";
    Result r = dag({"order", "--json", "-"}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(dag({"order", "-"}, graph).out, "2\n4\n2\nc\n");
    EXPECT_EQ(parsed(r), nlohmann::json::parse(R"({"order": [2, 4, "2", "c"]})"));
    r = dag({"order", "--reverse", "--json", "-"}, graph);
    EXPECT_EQ(parsed(r), nlohmann::json::parse(R"({"order": [4, "c", "2", 2]})"));
    // Sorted as the text lists them (the same word: the smaller id first).
    r = dag({"ancestors", "--json", "-", "c"}, graph);
    EXPECT_EQ(parsed(r), nlohmann::json::parse(R"({"ancestors": ["2", 2]})"));
    r = dag({"descendants", "--json", "-", "c", "4"}, graph);
    EXPECT_EQ(parsed(r), nlohmann::json::parse(R"({"descendants": []})"));
    // Roots in the order of the message "multiple roots: 4, c".
    r = dag({"validate", "--json", "-"}, graph);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(parsed(r)["roots"], nlohmann::json::parse(R"([4, "c"])"));
    EXPECT_EQ(parsed(r)["messages"], nlohmann::json::parse(R"(["multiple roots: 4, c"])"));

    const std::string cyclic = R"({"vertices": [{"id": 1, "name": "b"}, {"id": 2}, {"id": 3, "name": "3"}],
                                   "edges": [[1, 2], [2, 1], [3, 3]]})";
    r = dag({"cycles", "--json", "-"}, cyclic);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(parsed(r), nlohmann::json::parse(R"({"cycles": [[2, "b"]], "self_references": ["3"]})"));
}

// ------------------------------------------------------------------------
// convert, reduce

TEST(CliConvert, EveryFormat) {
    const std::string graph = "digraph { a -> b; b -> c; a -> c }";
    Result text = dag({"convert", "-", "--to", "text"}, graph);
    EXPECT_EQ(text.status, 0);
    EXPECT_EQ(text.out, "a\n  b\n  c\nb\n  c\nc\n");

    Result dot = dag({"convert", "-", "--to", "dot"}, graph);
    EXPECT_EQ(dot.status, 0);
    EXPECT_EQ(dot.out,
              "digraph {\n\tcompound = \"true\"\n\tnewrank = \"true\"\n\tsubgraph \"root\" {\n"
              "\t\t\"a\"\n\t\t\"b\"\n\t\t\"c\"\n"
              "\t\t\"a\" -> \"b\"\n\t\t\"a\" -> \"c\"\n\t\t\"b\" -> \"c\"\n\t}\n}\n");

    Result mermaid = dag({"convert", "-", "--to", "mermaid"}, graph);
    EXPECT_EQ(mermaid.status, 0);
    EXPECT_EQ(mermaid.out.rfind("flowchart TD\n", 0), 0u) << mermaid.out;

    // JSON round-trips, and --from forces the reader.
    Result json = dag({"convert", deploy, "--to", "json"});
    EXPECT_EQ(json.status, 0);
    Result back = dag({"convert", "--from", "json", "-", "--to", "text"}, json.out);
    EXPECT_EQ(back.status, 0) << back.err;
    EXPECT_EQ(back.out, dag({"convert", deploy, "--to", "text"}).out);
}

// A name DOT cannot write is a problem of the input: the message names the
// file, as every input error's does; it did not.
TEST(CliConvert, ANameDotCannotWriteNamesTheFile) {
    TempDir dir;
    const std::string file = dir.path + "/odd.json";
    const std::string graph = R"({"vertices": [{"id": 1, "name": "\\"}, {"id": 2, "name": "b"}]})";
    std::ofstream(file) << graph;
    const std::string message = ": vertex 1 (\"\\\\\") has a name DOT cannot quote (Graphviz would read it back "
                                "changed); write JSON instead\n";
    for (const char *command : {"convert", "reduce"}) {
        Result r = dag({command, file, "--to", "dot"});
        EXPECT_EQ(r.status, 2) << command;
        EXPECT_EQ(r.err, "dag: " + file + message) << command;
        r = dag({command, "-", "--to", "dot"}, graph);
        EXPECT_EQ(r.status, 2) << command;
        EXPECT_EQ(r.err, "dag: standard input" + message) << command;
    }
}

// Each vertex's pools, as JSON's {"name": "a", "pools": [...]} or DOT's
// `"a" [pools="..."]` (comma-separated) give them.
std::map<std::string, std::vector<std::string>> pools_in(const std::string &text, bool json) {
    std::map<std::string, std::vector<std::string>> pools;
    if (json) {
        const nlohmann::json document = nlohmann::json::parse(text);
        for (const auto &vertex : document.at("vertices"))
            if (vertex.contains("pools"))
                pools[vertex.value("name", std::to_string(vertex.at("id").get<int>()))] = vertex.at("pools");
        return pools;
    }
    for (const std::string &line : lines(text)) {
        const size_t attribute = line.find("\" [pools=\"");
        if (attribute == std::string::npos) continue;
        std::vector<std::string> list;
        std::istringstream items(line.substr(attribute + 10, line.size() - attribute - 12));
        for (std::string item; std::getline(items, item, ',');) list.push_back(item);
        pools[line.substr(3, attribute - 3)] = list;
    }
    return pools;
}

// The pools attribute a walk reads (README: in DOT and JSON graph files)
// survives convert and reduce, either format to either: both dropped it,
// and a walk of what they wrote ran without its limits.
TEST(CliConvert, PoolsAttributeIsKeptInDotAndJson) {
    const std::map<std::string, std::vector<std::string>> expected = {{"a", {"aws", "rds"}}, {"b", {"gcp"}}};
    const std::string dot = "digraph { a [pools=\"aws, rds\"]; a -> b; b [pools=gcp]; b -> c; a -> c }";
    const std::string json = R"({"vertices": [{"id": 1, "name": "a", "pools": ["aws", "rds"]},
        {"id": 2, "name": "b", "pools": ["gcp"]}, {"id": 3, "name": "c"}], "edges": [[1, 2], [2, 3], [1, 3]]})";
    for (const char *command : {"convert", "reduce"}) {
        for (const std::string &input : {dot, json}) {
            for (const std::string to : {"dot", "json"}) {
                Result r = dag({command, "-", "--to", to}, input);
                ASSERT_EQ(r.status, 0) << command << " to " << to << ": " << r.err;
                EXPECT_EQ(pools_in(r.out, to == "json"), expected) << command << " to " << to << ":\n" << r.out;
                // What was written is read again with the same pools.
                Result walked = dag({"walk", "-", "--pool", "aws=1", "--pool", "rds=1", "--pool", "gcp=0"}, r.out);
                EXPECT_EQ(walked.status, 2) << r.out;
                EXPECT_NE(walked.err.find("vertex 'b' needs pool 'gcp', whose capacity is 0"), std::string::npos)
                    << walked.err;
            }
        }
    }
    // The key spelt with an escape (a file without "pools" in it is read once, not twice):
    // DOT's backslash before a line break, JSON's \u.
    for (const std::string &spelt : {std::string("digraph { a [\"po\\\nols\"=\"aws\"] }"),
                                     std::string(R"({"vertices": [{"id": 1, "name": "a", "\u0070ools": ["aws"]}]})")}) {
        Result r = dag({"convert", "-", "--to", "json"}, spelt);
        EXPECT_NE(r.out.find(R"({"id": 1, "name": "a", "pools": ["aws"]})"), std::string::npos) << spelt << r.out;
    }
    Result r = dag({"convert", "-", "--to", "dot"}, dot);
    EXPECT_NE(r.out.find("\t\t\"a\" [pools=\"aws,rds\"]\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\t\t\"c\"\n"), std::string::npos) << r.out;
    r = dag({"convert", "-", "--to", "json"}, dot);
    EXPECT_NE(r.out.find(R"({"id": 1, "name": "a", "pools": ["aws", "rds"]},)"), std::string::npos) << r.out;
    // An unnamed vertex, which DOT writes as its id; a name with a quote.
    using Pools = std::map<std::string, std::vector<std::string>>;
    r = dag({"convert", "-", "--to", "dot"},
            R"({"vertices": [{"id": 7, "pools": ["x"]}, {"id": 8, "name": "q\"t", "pools": ["y"]}]})");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(pools_in(r.out, false), (Pools{{"7", {"x"}}, {"q\\\"t", {"y"}}})) << r.out;
    // Names holding line breaks (JSON's \n): their statements span lines,
    // and one ends its first line with a tab pair, as a statement begins.
    // Their pools were dropped without a word.
    r = dag({"convert", "-", "--to", "dot"},
            R"({"vertices": [{"id": 1, "name": "line\nbreak", "pools": ["z"]}, {"id": 2, "name": "x\n\t\t", "pools": ["w"]},
                {"id": 3, "name": "y", "pools": ["v"]}], "edges": [[2, 3], [1, 2]]})");
    ASSERT_EQ(r.status, 0) << r.err;
    Result back = dag({"convert", "-", "--to", "json"}, r.out);
    ASSERT_EQ(back.status, 0) << back.err << r.out;
    EXPECT_EQ(pools_in(back.out, true), (Pools{{"line\nbreak", {"z"}}, {"x\n\t\t", {"w"}}, {"y", {"v"}}})) << r.out;
    // A Latin-1 graph's pools are converted as its names are.
    r = dag({"convert", "-", "--to", "json"}, "digraph { charset=latin1; \"caf\xe9\" [pools=\"caf\xe9\"] }");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(pools_in(r.out, true), (Pools{{"caf\xc3\xa9", {"caf\xc3\xa9"}}}));
    // A comment after the graph, over two lines: cgraph's lexer was left
    // inside it, the pools' read-back began there and failed, and they were
    // refused as pools DOT cannot carry.
    r = dag({"convert", "-", "--to", "dot"}, "digraph { a [pools=\"x\"] } /* c\n d */\n");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\t\t\"a\" [pools=\"x\"]\n"), std::string::npos) << r.out;
    // Pool names DOT would read back otherwise: as two names, trimmed, or
    // not at all (a backslash before the closing quote).
    for (const std::string pool : {"aws,rds", " aws", "aws\\\\"}) {
        r = dag({"convert", "-", "--to", "dot"},
                R"({"vertices": [{"id": 1, "name": "a", "pools": [")" + pool + R"("]}]})");
        EXPECT_EQ(r.status, 2) << pool;
        EXPECT_EQ(r.out, "") << pool;
        EXPECT_EQ(r.err, "dag: standard input: vertex 'a': its pools cannot be written in DOT's pools=\"...\" (a pool "
                         "name with a comma, spaces around it, or a backslash DOT reads as an escape); write JSON "
                         "instead\n")
            << pool;
    }
    // Quotes and other backslashes are written as DOT escapes them.
    r = dag({"convert", "-", "--to", "dot"}, R"({"vertices": [{"id": 1, "name": "a", "pools": ["x\"y", "p\\q"]}]})");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(pools_in(dag({"convert", "-", "--to", "json"}, r.out).out, true), (Pools{{"a", {"x\"y", "p\\q"}}}));
    // Attribute values are bytes to Graphviz: JSON takes only UTF-8.
    // Refused for every output alike: DOT written with it would not
    // convert to JSON, and a walk named a pool no --pool could declare.
    for (const char *to : {"json", "dot"}) {
        r = dag({"convert", "-", "--to", to}, "digraph { a [pools=\"caf\xe9\"] }");
        EXPECT_EQ(r.status, 2) << to;
        EXPECT_EQ(r.out, "") << to;
        EXPECT_EQ(r.err, "dag: standard input: vertex 'a': its pools are not UTF-8\n") << to;
    }
    r = dag({"walk", "-", "--pool", "p=1", "--exec", "true"}, "digraph { a [pools=\"p\xc1\"] }");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag: standard input: vertex 'a': its pools are not UTF-8\n");
    // Malformed, as a walk refuses it.
    r = dag({"convert", "-", "--to", "json"}, "digraph { a [pools=\"aws,,rds\"] }");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("standard input: vertex 'a': pools=\"aws,,rds\" has an empty pool name"), std::string::npos)
        << r.err;
    // Blank as pools="" is, which cgraph cannot tell from no attribute: no pools, not an empty name.
    for (const char *to : {"json", "dot"}) {
        r = dag({"convert", "-", "--to", to}, "digraph { a [pools=\" \"]; b [pools=\"\"]; c [pools=\"aws\"] }");
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(pools_in(r.out, std::string(to) == "json"), (Pools{{"c", {"aws"}}})) << r.out;
    }
    r = dag({"walk", "-", "--pool", "aws=1", "--exec", "true"}, "digraph { a [pools=\" \t\"] }");
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST(CliReduce, RemovesImpliedEdges) {
    Result r = dag({"reduce", "-"}, "digraph { a -> b; b -> c; a -> c; a -> d; d -> c }");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "a\n  b\n  d\nb\n  c\nc\nd\n  c\n");
    EXPECT_EQ(r.err, "removed 1 edge\n");

    r = dag({"reduce", deploy, "--to", "dot"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.err, "removed 0 edges\n");

    r = dag({"reduce", "-"}, "digraph { a -> b; b -> a }");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("Cycle:\n  a\n  b"), std::string::npos) << r.err;
}

// ------------------------------------------------------------------------
// Bad input: an error message naming the file and exit status 2, never a crash

TEST(CliInput, BadInputIsAnError) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"digraph { a -> b ", "DOT"},
        {std::string("digraph { a -> b; \0 c }", 23), "NUL"},
        {R"({"vertices": [{"id": 1})", "JSON"},
        {R"({"vertices": [{"id": 1, "name": "a"}, {"id": 2, "name": "a"}]})", "\"a\""},
        {"graph { a -- b }", "undirected"},
        {"", "no graph"},
        {"\xff\xfe\x41", "UTF-16"},
        {std::string("\xff\xfe\0\0{\0\0\0", 8), "UTF-32"},
    };
    for (const auto &[input, gist] : bad) {
        for (const char *command : {"validate", "order", "walk"}) {
            Result r = dag({command, "-"}, input);
            EXPECT_EQ(r.status, 2) << command << " " << input << "\n" << r.err;
            EXPECT_EQ(r.out, "") << command << " " << input;
            EXPECT_EQ(r.err.rfind("dag: standard input: ", 0), 0u) << r.err;
            EXPECT_EQ(r.err.find("dag_import_graph"), std::string::npos) << "C function name shown: " << r.err;
            EXPECT_NE(r.err.find(gist), std::string::npos) << r.err;
        }
    }
}

TEST(CliInput, UnreadableFilesAreErrors) {
    Result missing = dag({"order", source("no/such/graph.dot")});
    EXPECT_EQ(missing.status, 2);
    EXPECT_NE(missing.err.find(source("no/such/graph.dot")), std::string::npos) << missing.err;
    EXPECT_NE(missing.err.find("No such file or directory"), std::string::npos) << missing.err;
    EXPECT_EQ(missing.err.rfind("dag: ", 0), 0u);

    Result directory = dag({"stats", source("examples")});
    EXPECT_EQ(directory.status, 2);
    EXPECT_EQ(directory.err.rfind("dag: ", 0), 0u) << directory.err;

    Result forced = dag({"order", "--from", "json", deploy});
    EXPECT_EQ(forced.status, 2);
    EXPECT_EQ(forced.err.rfind("dag: " + deploy + ": JSON", 0), 0u) << forced.err;
    EXPECT_NE(forced.err.find("JSON"), std::string::npos) << forced.err;
}

TEST(CliInput, DotErrorsNameTheLineOfTheUsersText) {
    // Text that ends inside a statement or before the closing brace is
    // reported on its own last line, not on a line past its end.
    const std::vector<std::pair<std::string, std::string>> cut_short = {
        {"digraph { a -> b ", "line 1 at the end of the text"},
        {"digraph { a -> b; c", "line 1 at the end of the text"},
        {"digraph {\n  a -> b;\n  c -> \n", "line 3 at the end of the text"},
        {"digraph {\r\n  a -> b\r\n\r\n\r\n", "line 2 at the end of the text"},
    };
    for (const auto &[input, where] : cut_short) {
        Result r = dag({"validate", "-"}, input);
        EXPECT_EQ(r.status, 2) << input;
        EXPECT_NE(r.err.find("DOT: syntax error in " + where), std::string::npos) << input << "\n" << r.err;
        EXPECT_EQ(r.err.find("digraph'"), std::string::npos) << "the appended graph shows: " << r.err;
    }
    // An error inside the text keeps Graphviz's line and token.
    Result r = dag({"order", "-"}, "digraph {\n  a -> b;\n  c -> -> d\n}\n");
    EXPECT_EQ(r.err, "dag: standard input: DOT: syntax error in line 3 near '->'\n");

    TempDir dir;
    const std::string file = dir.path + "/cut.dot";
    std::ofstream(file) << "digraph {\n  a -> b\n  b -> c\n";
    r = dag({"order", file});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.rfind("dag: " + file + ": DOT: syntax error in line 3 at the end of the text", 0), 0u)
        << r.err;
}

TEST(CliInput, ExitStatusTellsABadGraphFromBadInput) {
    const std::string cyclic = "digraph { a -> b; b -> a }";
    const std::string two_roots = "digraph { a -> b; c }";
    const std::string malformed = "digraph { a -> ";
    struct Case {
        std::vector<std::string> args;
        std::string input;
        int status;
    };
    const std::vector<Case> cases = {
        {{"validate", "-"}, two_roots, 1},
        {{"validate", "-"}, malformed, 2},
        {{"root", "-"}, two_roots, 1},
        {{"cycles", "-"}, cyclic, 1},
        {{"cycles", "-"}, malformed, 2},
        {{"order", "-"}, cyclic, 1},
        {{"reduce", "-"}, cyclic, 1},
        {{"stats", "-"}, malformed, 2},
        {{"convert", "-", "--to", "dot"}, malformed, 2},
        // A name DOT cannot carry: the input does not fit the format asked for.
        {{"convert", "-", "--to", "dot"}, R"({"vertices": [{"id": 1, "name": "%x"}]})", 2},
        {{"ancestors", "-", "z"}, two_roots, 2},
        {{"descendants", "-", "a", "z"}, two_roots, 2},
        {{"walk", "-"}, cyclic, 1},
        {{"walk", "-", "--exec", "exit 1"}, two_roots, 1},
        {{"walk", "-", "--exec", "exit 0"}, malformed, 2},
        {{"walk", "-", "--exec", "exit 0"}, two_roots, 0},
    };
    for (const Case &c : cases) {
        Result r = dag(c.args, c.input);
        EXPECT_EQ(r.status, c.status) << c.args[0] << " on " << c.input << "\n" << r.err;
    }
    for (const char *command : {"validate", "root", "cycles", "stats", "order", "reduce", "walk"}) {
        Result r = dag({command, source("no/such/graph.dot")});
        EXPECT_EQ(r.status, 2) << command << "\n" << r.err;
    }
}

TEST(CliInput, FullOutputDeviceIsAnError) {
    Result r = run({"/bin/sh", "-c", std::string("'") + DAG_CLI + "' order '" + deploy +
                                         "' > /dev/full"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag: cannot write standard output: No space left on device\n");
    // No count of edges removed from a graph that was not written.
    r = run({"/bin/sh", "-c", std::string("'") + DAG_CLI + "' reduce '" + deploy + "' > /dev/full"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag: cannot write standard output: No space left on device\n");
    // A walk's few names, and its commands' output, flushed before the
    // summary: the reason was lost there.
    for (const std::string args : {"walk", "walk --exec 'echo hi'"}) {
        r = run({"/bin/sh", "-c", std::string("'") + DAG_CLI + "' " + args + " '" + deploy + "' > /dev/full"});
        EXPECT_EQ(r.status, 2) << args;
        EXPECT_NE(r.err.find("dag: cannot write standard output: No space left on device\n"), std::string::npos)
            << args << ": " << r.err;
    }
    // Help and the version too: they exited 0, nothing written; and the
    // version, which CLI11 wrote to std::cout, without the reason.
    for (const std::string args : {"--help", "--version", "validate --help"}) {
        r = run({"/bin/sh", "-c", std::string("'") + DAG_CLI + "' " + args + " > /dev/full"});
        EXPECT_EQ(r.status, 2) << args;
        EXPECT_EQ(r.err, "dag: cannot write standard output: No space left on device\n") << args;
    }
}

// Output past stdio's buffer fails in the middle, not at the final flush,
// where stdio no longer knows why: the reason is still told.
TEST(CliInput, FullOutputDeviceIsToldWhyForLargeOutputs) {
    TempDir dir;
    std::string dot = "digraph {";
    for (int i = 0; i < 20000; ++i) dot += " v" + std::to_string(i) + " -> v" + std::to_string(i + 1) + ";";
    const std::string graph = dir.path + "/long.dot";
    std::ofstream(graph) << dot << " }";
    for (const std::string args : {"order", "convert --to json", "reduce --to dot", "walk --progress=never",
                                   "descendants", "walk --progress=never --report -"}) {
        const std::string name = args == "descendants" ? " v20000" : "";
        Result r = run(
            {"/bin/sh", "-c", std::string("'") + DAG_CLI + "' " + args + " '" + graph + "'" + name + " > /dev/full"});
        EXPECT_EQ(r.status, 2) << args;
        EXPECT_NE(r.err.find("dag: cannot write standard output: No space left on device\n"), std::string::npos)
            << args << ": " << r.err;
    }
    Result r = run({"/bin/sh", "-c", std::string("'") + DAG_CLI + "' --man > /dev/full"});
    EXPECT_EQ(r.err, "dag: cannot write standard output: No space left on device\n");
}

// With SIGPIPE ignored by whoever started dag, a reader going away is a
// failed write (EPIPE), not a signal: the same exit status as the signal.
TEST(CliInput, ReaderGoneWithSigpipeIgnoredExits141) {
    TempDir dir;
    std::string dot = "digraph {";
    for (int i = 0; i < 20000; ++i) dot += " v" + std::to_string(i) + " -> v" + std::to_string(i + 1) + ";";
    const std::string graph = dir.path + "/long.dot";
    std::ofstream(graph) << dot << " }";
    Result r = run({"/bin/bash", "-c", std::string("trap '' PIPE; '") + DAG_CLI + "' order '" + graph +
                                           "' | head -c 1 >/dev/null; echo ${PIPESTATUS[0]}"});
    EXPECT_EQ(r.out, "141\n");
    EXPECT_EQ(r.err, "");
}

// A walk's --report or --trace whose reader goes away: 141, as for standard
// output, every time. The failed write's SIGPIPE was noted at once but
// counted later by the watcher's thread, and the exit status was 2 or 141 by
// which came first (about half each).
TEST(CliInput, WalkResultFileReaderGoneExits141EveryTime) {
    TempDir dir;
    std::string dot = "digraph {";
    for (int i = 0; i < 10000; ++i) dot += " root -> w" + std::to_string(i) + ";";
    const std::string graph = dir.path + "/wide.dot";
    std::ofstream(graph) << dot << " }";
    for (const std::string file : {"--report", "--trace"})
        for (const std::string pipe : {"", "trap '' PIPE; "}) {
            Result r = run({"/bin/bash", "-c",
                            pipe + "for i in 1 2 3 4 5 6 7 8; do '" + DAG_CLI + "' walk " + file +
                                " >(head -c 10 >/dev/null) '" + graph + "' >/dev/null 2>/dev/null; echo -n \"$? \"; done"});
            EXPECT_EQ(r.out, "141 141 141 141 141 141 141 141 ") << file << " " << pipe;
        }
}

// ------------------------------------------------------------------------
// walk

TEST(CliWalk, DryRunPrintsAnExecutionOrder) {
    Result r = dag({"walk", deploy, "--parallelism", "1"});
    EXPECT_EQ(r.status, 0) << r.err;
    expect_execution_order(lines(r.out), dependencies(deploy));
    EXPECT_EQ(r.err, "11 ok, 0 failed, 0 upstream failed, 0 not run\n");

    r = dag({"walk", deploy, "--reverse"});
    EXPECT_EQ(r.status, 0) << r.err;
    expect_execution_order(lines(r.out), dependencies(deploy), true);

    const std::string large = corpus("tf-14-modern-tf17-utf16-large.dot");
    r = dag({"walk", large});
    EXPECT_EQ(r.status, 0) << r.err;
    expect_execution_order(lines(r.out), dependencies(large));
}

TEST(CliWalk, ExecRunsEachVertexWithItsName) {
    Result r = dag({"walk", "-", "--parallelism", "1", "--exec", "echo \"ran $DAG_VERTEX\""},
                   "digraph { a -> b; b -> c }");
    EXPECT_EQ(r.status, 0) << r.err;
    // Grouped, the default: each line after its vertex's name.
    EXPECT_EQ(r.out, "c: ran c\nb: ran b\na: ran a\n");
    EXPECT_EQ(r.err, "3 ok, 0 failed, 0 upstream failed, 0 not run\n");

    // Names with quotes, brackets and spaces reach the command intact.
    r = dag({"walk", deploy, "--output", "stream", "--exec", "printf '%s\\n' \"$DAG_VERTEX\""});
    EXPECT_EQ(r.status, 0) << r.err;
    expect_execution_order(lines(r.out), dependencies(deploy));
}

TEST(CliWalk, FailedCommandSkipsItsDependents) {
    Result r = dag({"walk", "-", "--progress", "--exec", "[ \"$DAG_VERTEX\" != c ] || exit 3"},
                   "digraph { a -> b; b -> c; d }");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    std::vector<std::string> err = lines(r.err);
    ASSERT_EQ(err.size(), 6u) << r.err;
    std::set<std::string> progress;
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(err[i].rfind("[" + std::to_string(i + 1) + "/4] ", 0), 0u) << err[i];
        progress.insert(err[i].substr(6));
    }
    EXPECT_EQ(progress, (std::set<std::string>{"a (upstream failed)", "b (upstream failed)",
                                               "c (failed)", "d"}));
    EXPECT_EQ(err[4], "1 ok, 1 failed, 2 upstream failed, 0 not run");
    EXPECT_EQ(err[5], "failed: c: exit status 3");

    r = dag({"walk", "-", "--exec", "kill -9 $$"}, "digraph { a }");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("failed: a: killed by signal 9\n"), std::string::npos) << r.err;
}

TEST(CliWalk, FailFastStartsNothingNew) {
    // c fails once d has started, while d still runs; b, which waits for d,
    // then never starts. d runs until the walk has reported c failed (the
    // progress line comes after fail fast stopped the walk), where a sleep
    // in d could be outrun by a loaded machine and let b start. Standard
    // error goes to a file for d to read; the waits give up after a minute.
    TempDir dir;
    const std::string err = dir.path + "/err";
    std::string script = "case $DAG_VERTEX in\n"
                         "d) touch " + dir.path + "/d; i=0; until grep -q '] c (failed)$' " + err +
                         " || [ $i -ge 6000 ]; do\n"
                         "   sleep 0.01; i=$((i+1)); done;;\n"
                         "c) i=0; until [ -e " + dir.path + "/d ] || [ $i -ge 6000 ]; do\n"
                         "   sleep 0.01; i=$((i+1)); done; exit 1;;\n"
                         "esac";
    Result r = run({"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>" + err, DAG_CLI, "walk", "-", "--fail-fast",
                    "--progress", "--parallelism", "2", "--exec", script},
                   "digraph { a -> c; b -> d }");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "");
    std::ifstream file(err);
    std::string summary;
    for (std::string line; std::getline(file, line);)
        if (line.rfind("[", 0) != 0) summary += line + "\n";  // not a progress line
    EXPECT_EQ(summary, "1 ok, 1 failed, 1 upstream failed, 1 not run\nfailed: c: exit status 1\n"
                       "never ran: b\n");
}

TEST(CliWalk, ParallelismCommandsRunAtOnce) {
    // A barrier: each command waits (up to 10 s) until all four have
    // started, which they only can if they run at the same time.
    TempDir dir;
    std::string barrier = "touch " + dir.path + "/$DAG_VERTEX; i=0; "
                          "while [ $(ls " + dir.path + " | wc -l) -lt 4 ] && [ $i -lt 200 ]; "
                          "do sleep 0.05; i=$((i+1)); done; [ $(ls " + dir.path + " | wc -l) -eq 4 ]";
    Result r = dag({"walk", "-", "--parallelism", "4", "--exec", barrier}, "digraph { a; b; c; d }");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "4 ok, 0 failed, 0 upstream failed, 0 not run\n");
}

TEST(CliWalk, PoolsBoundTheVerticesThatMatchThem) {
    // Each command adds itself to its pool's directory, prints how many are
    // there, stays a moment and leaves: with parallelism 6 and no pools all
    // five aws vertices could be in at once.
    TempDir dir;
    std::string script = "case $DAG_VERTEX in aws_*) p=aws;; rds_*) p=rds;; *) exit 0;; esac; "
                         "mkdir -p " + dir.path + "/$p; touch " + dir.path + "/$p/$DAG_VERTEX; "
                         "echo \"$p $(ls " + dir.path + "/$p | wc -l)\"; sleep 0.05; rm " + dir.path + "/$p/$DAG_VERTEX";
    Result r = dag({"walk", "-", "--parallelism", "6", "--pool", "aws=2", "--pool", "rds=1", "--pool-match",
                    "aws_*=aws", "--pool-match", "rds_*=rds", "--output", "stream", "--exec", script},
                   "digraph { aws_a; aws_b; aws_c; aws_d; aws_e; rds_a -> aws_a; rds_b; free }");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "8 ok, 0 failed, 0 upstream failed, 0 not run\n");
    std::vector<std::string> out = lines(r.out);
    EXPECT_EQ(out.size(), 7u) << r.out;
    for (const std::string &line : out) {
        const bool aws = line.rfind("aws ", 0) == 0;
        const int in = std::stoi(line.substr(4));
        EXPECT_LE(in, aws ? 2 : 1) << line;
    }
}

TEST(CliWalk, PriorityChoosesWhichReadyVertexStartsFirst) {
    // z1 heads the longest chain, though "a" sorts first by name; a and z3,
    // each one vertex from the end, go by name.
    const std::string graph = "digraph { z3 -> z2 -> z1; a }";
    EXPECT_EQ(dag({"walk", "-", "--parallelism", "1", "--priority", "critical-path"}, graph).out, "z1\nz2\na\nz3\n");
    EXPECT_EQ(dag({"walk", "-", "--parallelism", "1", "--priority", "name"}, graph).out, "a\nz1\nz2\nz3\n");
    EXPECT_EQ(dag({"walk", "-", "--parallelism", "1"}, graph).out, "z1\nz2\na\nz3\n") << "critical path by default";
    EXPECT_EQ(lines(dag({"walk", "-", "--parallelism", "1", "--priority", "none"}, graph).out).size(), 4u);
    Result r = dag({"walk", "-", "--priority", "fastest"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--priority"), std::string::npos) << r.err;
}

TEST(CliWalk, RetriesRunAFailedCommandAgain) {
    // Each command fails the first time it runs and succeeds the second.
    TempDir dir;
    const std::string script = "[ -e " + dir.path + "/$DAG_VERTEX ] || { touch " + dir.path +
                               "/$DAG_VERTEX; echo \"failed $DAG_VERTEX\"; exit 1; }; echo \"ran $DAG_VERTEX\"";
    Result r = dag({"walk", "-", "--parallelism", "1", "--retries", "1", "--retry-delay", "1", "--exec", script},
                   "digraph { a -> b }");
    EXPECT_EQ(r.status, 0) << r.err;
    // Grouped output: each attempt's output as it ends.
    EXPECT_EQ(r.out, "b: failed b\nb: ran b\na: failed a\na: ran a\n");
    EXPECT_EQ(r.err, "2 ok, 0 failed, 0 upstream failed, 0 not run\n");
    TempDir fresh;
    const std::string again = "[ -e " + fresh.path + "/$DAG_VERTEX ] || { touch " + fresh.path +
                              "/$DAG_VERTEX; exit 1; }";
    r = dag({"walk", "-", "--exec", again}, "digraph { a -> b }");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "0 ok, 1 failed, 1 upstream failed, 0 not run\nfailed: b: exit status 1\n");
}

TEST(CliWalk, RetriesOutsideZeroToAThousandExitTwo) {
    // Wrapped round to a huge count, each of these once retried for ever.
    for (const char *retries : {"-1", "1001", "4294967296", "99999999999", "some"}) {
        Result r = dag({"walk", "-", "--retries", retries, "--exec", "true"}, "digraph { a }");
        EXPECT_EQ(r.status, 2) << retries << "\n" << r.err;
        EXPECT_EQ(r.out, "") << retries;
        EXPECT_NE(r.err.find("--retries"), std::string::npos) << retries << "\n" << r.err;
    }
    EXPECT_EQ(dag({"walk", "-", "--retries", "1000", "--exec", "true"}, "digraph { a }").status, 0);
}

TEST(CliWalk, CountsAndTimesAreDecimal) {
    // CLI11 read "010" as octal (8 retries, not 10) and took "0x10"; "09"
    // and "1e3" were called out of range.
    Result r = dag({"walk", "-", "--retries", "010", "--retry-delay", "0", "--exec", "false", "--report", "-"},
                   "digraph { a }");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.out.find("\"attempts\": 11"), std::string::npos) << r.out;
    EXPECT_EQ(dag({"walk", "-", "--retries", "09", "--parallelism", "08", "--exec", "true"}, "digraph { a }").status, 0);
    for (const char *option : {"--parallelism", "--retries", "--retry-delay"})
        for (const char *value : {"0x10", "1e3", "+1", " 1", "1.0"}) {
            Result bad = dag({"walk", "-", option, value, "--exec", "true"}, "digraph { a }");
            EXPECT_EQ(bad.status, 2) << option << " " << value;
            EXPECT_NE(bad.err.find(std::string(option) + ": '" + value + "' is not a whole number"), std::string::npos)
                << bad.err;
        }
    Result big = dag({"walk", "-", "--parallelism", "2000", "--exec", "true"}, "digraph { a }");
    EXPECT_NE(big.err.find("--parallelism: '2000' is not between 1 and "), std::string::npos) << big.err;
    Result built = dag({"build", "-", "--walk", "--parallelism", "0x2", "--exec", "true"}, "{\"vertices\": [{\"name\": \"a\"}]}");
    EXPECT_EQ(built.status, 2);
    EXPECT_NE(built.err.find("is not a whole number"), std::string::npos) << built.err;
}

TEST(CliWalk, GraceThatIsNotANumberOfSecondsExitsTwo) {
    // NaN passed the range check (every comparison with it is false) and
    // meant no grace at all.
    for (const char *grace : {"nan", "NaN", "-nan", "inf", "-1", "86401", "some"}) {
        Result r = dag({"walk", "-", "--grace", grace, "--exec", "true"}, "digraph { a }");
        EXPECT_EQ(r.status, 2) << grace << "\n" << r.err;
        EXPECT_NE(r.err.find("--grace"), std::string::npos) << grace << "\n" << r.err;
    }
    EXPECT_EQ(dag({"walk", "-", "--grace", "0.5", "--exec", "true"}, "digraph { a }").status, 0);
    // A word that is no number was told as out of range ("Value abc not in
    // range 0.000000 to 86400.000000").
    for (const char *grace : {"abc", "1s", "1,5", "", "nan"}) {
        Result r = dag({"walk", "-", "--grace", grace, "--exec", "true"}, "digraph { a }");
        EXPECT_EQ(r.status, 2) << grace;
        EXPECT_NE(r.err.find("--grace: not a number of seconds: " + std::string(grace) + "\n"), std::string::npos)
            << grace << "\n" << r.err;
    }
    for (const char *grace : {"-1", "86401", "inf"}) {
        Result r = dag({"walk", "-", "--grace", grace, "--exec", "true"}, "digraph { a }");
        EXPECT_EQ(r.status, 2) << grace;
        EXPECT_NE(r.err.find("--grace: not between 0 and 86400 seconds: " + std::string(grace) + "\n"),
                  std::string::npos)
            << grace << "\n" << r.err;
    }
}

TEST(CliWalk, EmptyExecIsRefusedNotADryRun) {
    Result r = dag({"walk", "-", "--exec", ""}, "digraph { a }");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("--exec: the command is empty"), std::string::npos) << r.err;
}

TEST(CliWalk, PriorityAndOutputTakeOnlyTheirNames) {
    Result r = dag({"walk", "-", "--priority", "bogus"}, "digraph { a }");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--priority: 'bogus' is not one of critical-path, name, none"), std::string::npos)
        << r.err;
    r = dag({"walk", "-", "--output", "loud", "--exec", "true"}, "digraph { a }");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--output: 'loud' is not one of grouped, none, stream"), std::string::npos) << r.err;
    // The enums' numbers are no spelling of their names.
    for (const std::vector<std::string> &numeric :
         {std::vector<std::string>{"--priority", "1"}, {"--output", "2"}, {"--output", "0"}}) {
        std::vector<std::string> args = {"walk", "-", "--exec", "true"};
        args.insert(args.end(), numeric.begin(), numeric.end());
        r = dag(args, "digraph { a }");
        EXPECT_EQ(r.status, 2) << numeric[0] << " " << numeric[1];
        EXPECT_EQ(r.out, "") << numeric[0] << " " << numeric[1];
    }
    Result help = dag({"walk", "--help"});
    EXPECT_NE(help.out.find("ORDER:{critical-path,name,none}"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("MODE:{grouped,none,stream}"), std::string::npos) << help.out;
    EXPECT_EQ(help.out.find("->1"), std::string::npos) << help.out;
    EXPECT_EQ(help.out.find("OR {"), std::string::npos) << help.out;
}

TEST(CliWalk, BadPoolOptionsExitTwo) {
    const std::string graph = "digraph { aws_a; b }";
    Result r = dag({"walk", "-", "--pool", "aws=2", "--pool-match", "aws_*=rds"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "dag walk: --pool-match: 'aws_*=rds': no --pool declares 'rds'\n"
                     "Run 'dag walk --help' for usage.\n");
    r = dag({"walk", "-", "--pool", "aws=two"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag walk: --pool: 'aws=two': the capacity is not a whole number\n"
                     "Run 'dag walk --help' for usage.\n");
    r = dag({"walk", "-", "--pool", "aws=99999999999999999999"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--pool: 'aws=99999999999999999999': the capacity is too large"), std::string::npos) << r.err;
    r = dag({"walk", "-", "--pool", "aws=0000000000000000000001", "--pool-match", "aws_*=aws"}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    r = dag({"walk", "-", "--pool", "aws"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag walk: --pool: 'aws': expected NAME=N\nRun 'dag walk --help' for usage.\n");
    r = dag({"walk", "-", "--pool", "a=b=1", "--pool-match", "aws_*=a=b"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("dag walk: --pool: 'a=b=1': a pool name cannot hold '='\n"), std::string::npos) << r.err;
    // A malformed value is a usage error, as other options' values are (README: "a usage error as
    // `dag COMMAND: MESSAGE` with the help to read"), told before the graph is read: it said
    // "dag: --pool 'aws': ..." with no help to read, or a missing file's error first.
    r = dag({"walk", "-", "--pool-match", "aws_*"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag walk: --pool-match: 'aws_*': expected GLOB=NAME\nRun 'dag walk --help' for usage.\n");
    r = dag({"walk", "no-such-graph.dot", "--pool", "aws"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag walk: --pool: 'aws': expected NAME=N\nRun 'dag walk --help' for usage.\n");
    // A pattern may hold one: the pool is after the last.
    r = dag({"walk", "-", "--pool", "aws=1", "--pool-match", "aws_*=*=aws"}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    r = dag({"walk", "-", "--pool", "aws=1", "--pool", "aws=2"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag walk: --pool: 'aws=2': pool 'aws' is declared twice\nRun 'dag walk --help' for usage.\n");
    // The values together are the command line's as well: told before the
    // graph is read (a missing file was told first, as "dag: --pool ...").
    r = dag({"walk", "no-such-graph.dot", "--pool", "aws=1", "--pool", "aws=2"});
    EXPECT_EQ(r.err, "dag walk: --pool: 'aws=2': pool 'aws' is declared twice\nRun 'dag walk --help' for usage.\n");
    r = dag({"walk", "no-such-graph.dot", "--pool-match", "aws_*=rds"});
    EXPECT_EQ(r.err, "dag walk: --pool-match: 'aws_*=rds': no --pool declares 'rds'\n"
                     "Run 'dag walk --help' for usage.\n");
    // Bad input as the others are (it exited 1, "failed").
    r = dag({"walk", "-", "--pool", "\xff=1"}, graph);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("is not valid UTF-8"), std::string::npos) << r.err;
    r = dag({"walk", "-", "--pool", "aws=0", "--pool-match", "aws_*=aws"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("vertex 'aws_a' needs pool 'aws', whose capacity is 0"), std::string::npos) << r.err;
    // Nothing matched: a pool of capacity 0 is no obstacle, but the
    // pattern that limits nothing is named (a typo, Terraform's "[root] ").
    r = dag({"walk", "-", "--pool", "aws=0", "--pool-match", "gcp_*=aws"}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("dag: warning: --pool-match 'gcp_*=aws' matches no vertex\n"), std::string::npos) << r.err;
    r = dag({"walk", "-", "--pool", "aws=1", "--pool-match", "aws_*=aws"}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

// Each command but free's takes the directory `lock` and fails if another
// holds it: with a pool of 1 they never meet; with parallelism 4 and no pool
// they would.
std::string exclusive(const TempDir &dir) {
    return "[ $DAG_VERTEX = free ] && exit 0; mkdir " + dir.path + "/lock || exit 1; sleep 0.05; rmdir " + dir.path +
           "/lock";
}

TEST(CliWalk, PoolsAttributeOfDotAndJsonFilesBoundsItsVertices) {
    TempDir dir;
    Result r = dag({"walk", "-", "--parallelism", "4", "--pool", "aws=1", "--pool", "rds=2", "--exec", exclusive(dir)},
                   "digraph { a [pools=\"aws\"]; b [pools=\"rds, aws\"]; c [pools=aws]; free }");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "4 ok, 0 failed, 0 upstream failed, 0 not run\n");
    r = dag({"walk", "-", "--parallelism", "4", "--pool", "aws=1", "--exec", exclusive(dir)},
            R"({"vertices": [{"id": 1, "name": "a", "pools": ["aws"]}, {"id": 2, "pools": ["aws"]},
                             {"id": 3, "name": "c", "pools": ["aws"]}, {"id": 4, "name": "free"}]})");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "4 ok, 0 failed, 0 upstream failed, 0 not run\n");
}

TEST(CliWalk, PoolOptionsTakeOneValueEachAndLeaveTheFile) {
    // They took every word after them, the graph file too ("FILE is required").
    Result r = dag({"walk", "--pool", "aws=2", "--pool-match", "aws_*=aws", "-", "--exec", "true"},
                   "digraph { aws_a -> b }");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "2 ok, 0 failed, 0 upstream failed, 0 not run\n");
}

TEST(CliWalk, PoolsAttributeAndPoolMatchAddUp) {
    // The match gives a rds, the attribute aws: the refusal names aws, so the
    // attribute was not replaced by the match.
    Result r = dag({"walk", "-", "--pool", "aws=0", "--pool", "rds=1", "--pool-match", "a=rds"},
                   "digraph { a [pools=aws]; b }");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("vertex 'a' needs pool 'aws', whose capacity is 0"), std::string::npos) << r.err;
    r = dag({"walk", "-", "--pool", "aws=1", "--pool", "rds=0", "--pool-match", "a=rds"}, "digraph { a [pools=aws]; b }");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("vertex 'a' needs pool 'rds', whose capacity is 0"), std::string::npos) << r.err;
}

TEST(CliWalk, BadPoolsAttributeExitsTwo) {
    Result r = dag({"walk", "-", "--pool", "aws=1", "--exec", "echo ran"}, "digraph { a [pools=\"aws,gcp\"]; b }");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("dag: standard input: vertex 'a': its pools attribute names 'gcp', which no --pool declares"), std::string::npos)
        << r.err;
    // Also where --target leaves the vertex out: the file is wrong all the same (it walked, exit 0).
    r = dag({"walk", "-", "--pool", "aws=1", "--target", "b", "--exec", "echo ran"},
            "digraph { a -> b; c [pools=\"gcp\"] }");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("vertex 'c': its pools attribute names 'gcp', which no --pool declares"), std::string::npos)
        << r.err;
    // A pattern matching a vertex --target leaves out matches a vertex: no warning that it matches none.
    r = dag({"walk", "-", "--pool", "x=1", "--pool-match", "c=x", "--target", "b"}, "digraph { a -> b; c }");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("matches no vertex"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "b\n");
    r = dag({"walk", "-", "--pool", "aws=1"}, "digraph { a [pools=\"aws,,rds\"] }");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("standard input: vertex 'a': pools=\"aws,,rds\" has an empty pool name"), std::string::npos)
        << r.err;
    r = dag({"walk", "-", "--pool", "aws=1"}, R"({"vertices": [{"id": 7, "pools": ["gcp"]}]})");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("dag: standard input: vertex '7': its pools attribute names 'gcp'"), std::string::npos) << r.err;
    r = dag({"walk", "-", "--pool", "aws=1"}, R"({"vertices": [{"id": 1, "name": "a", "pools": "aws"}]})");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("dag: standard input: vertex 'a': \"pools\" must be an array of pool names"), std::string::npos) << r.err;
    r = dag({"walk", "-", "--pool", "aws=1"}, R"({"vertices": [{"id": 1, "name": "a", "pools": ["aws", 3]}]})");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("not 3"), std::string::npos) << r.err;
    // Quoted back cut short: the message held the whole value, and quoting
    // one nested 200,000 deep crashed dag (a recursion that deep).
    const std::string deep = std::string(200000, '[') + std::string(200000, ']');
    r = dag({"walk", "-", "--pool", "aws=1"}, R"({"vertices": [{"id": 1, "name": "a", "pools": [)" + deep + "]}]}");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag: standard input: vertex 'a': \"pools\" must be an array of pool names, not [[[[...]]]]\n");
    r = dag({"walk", "-", "--pool", "aws=1"},
            R"({"vertices": [{"id": 1, "name": "a", "pools": [{"k": ")" + std::string(1000, 'q') + "\"}]}]}");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag: standard input: vertex 'a': \"pools\" must be an array of pool names, not {\"k\":\"" +
                         std::string(194, 'q') + "...\n");
    // Twice in one vertex: the first list was dropped unseen.
    r = dag({"walk", "-", "--pool", "aws=1", "--pool", "rds=1"},
            R"({"vertices": [{"id": 1, "name": "a", "pools": ["aws"], "pools": ["rds"]}]})");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "dag: standard input: line 1: \"pools\" is given twice in one object\n");
    // UTF-16, as PowerShell writes `terraform graph`: the names are libdag's.
    std::string utf16 = "\xFF\xFE";
    for (unsigned char c : std::string("digraph { ")) utf16 += std::string{static_cast<char>(c), '\0'};
    utf16 += std::string("\xE9\0t\0\xE9\0", 6);
    for (unsigned char c : std::string(" [pools=gcp] }")) utf16 += std::string{static_cast<char>(c), '\0'};
    r = dag({"walk", "-", "--pool", "aws=1"}, utf16);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("vertex '\xC3\xA9t\xC3\xA9': its pools attribute names 'gcp'"), std::string::npos) << r.err;
    // Without a declared pool, pools are off and the attribute is not read.
    r = dag({"walk", "-"}, "digraph { a [pools=gcp] }");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "a\n");
}

TEST(CliWalk, CycleIsRefusedBeforeAnythingRuns) {
    Result r = dag({"walk", "-", "--exec", "echo ran"}, "digraph { a -> b; b -> a; c }");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "dag: Cycle:\n  a\n  b\n");
}

// ------------------------------------------------------------------------
// --target and --exclude on order and walk

// a -> b -> c and d -> c (a depends on b, b and d on c).
const std::string forked = "digraph { a -> b; b -> c; d -> c }";

TEST(CliSelect, TargetKeepsWhatItNeedsAndExcludeWhatNeedsIt) {
    EXPECT_EQ(dag({"order", "-", "--target", "b"}, forked).out, "c\nb\n");
    EXPECT_EQ(dag({"order", "--reverse", "-", "--target", "b"}, forked).out, "a\nb\n");
    EXPECT_EQ(dag({"order", "-", "--exclude", "b"}, forked).out, "c\nd\n");
    // In destroy order, what the excluded vertex depends on stays too.
    EXPECT_EQ(dag({"order", "--reverse", "-", "--exclude", "b"}, forked).out, "a\nd\n");
    // Targets first, then the exclusion; several names after one option.
    Result r = dag({"order", "-", "--target", "a", "d", "--exclude", "b"}, forked);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "c\nd\n");
    EXPECT_EQ(dag({"order", "-", "--target", "a", "--target", "d", "--exclude", "c"}, forked).out, "");
}

// CLI11 reads "[a,b]" given to an option of several values as a list; a
// Terraform provider's name is written so, and a name may be just "[x]".
TEST(CliSelect, NamesInBracketsAreTakenAsWritten) {
    // "[]\x1f" stays apart from "[]": dag marks bracketed arguments with that byte while CLI11 reads them.
    const std::string graph =
        "digraph {\n"
        "  \"[root] aws_instance.web\" -> \"[root] provider[\\\"registry.terraform.io/hashicorp/aws\\\"]\"\n"
        "  \"[x]\" -> \"[a,b]\"\n  \"[a,b]\" -> \"[]\"\n  \"[]\x1f\" -> \"[x]\"\n}\n";
    const std::string provider = "[root] provider[\"registry.terraform.io/hashicorp/aws\"]";
    Result r = dag({"descendants", "-", provider}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "[root] aws_instance.web\n");
    r = dag({"order", "-", "--target", provider, "[a,b]"}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "[]\n[a,b]\n" + provider + "\n");
    r = dag({"order", "-", "--exclude", "[]", "[root] aws_instance.web"}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, provider + "\n");
    r = dag({"descendants", "-", "[x]", "[]"}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "[]\x1f\n[a,b]\n[x]\n");
    r = dag({"ancestors", "-", "[]\x1f"}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "[]\n[a,b]\n[x]\n");
    r = dag({"ancestors", "-", "[y]"}, graph);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("[y]"), std::string::npos) << r.err;
    // Written --option=VALUE, which CLI11 reads as the separate words: the
    // brackets were dropped (no vertex "root] ...") or a vertex named
    // otherwise ("x" for "[x]") was acted on.
    r = dag({"order", "-", "--target=" + provider}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, provider + "\n");
    r = dag({"order", "-", "--target=[x]", "--exclude=[a,b]"}, graph);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "[]\n");
}

TEST(CliSelect, WalkRunsExactlyTheSelection) {
    Result r = dag({"walk", "-", "--parallelism", "1", "--target", "b", "--exec", "echo \"ran $DAG_VERTEX\""},
                   forked);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "c: ran c\nb: ran b\n");
    EXPECT_EQ(r.err, "2 ok, 0 failed, 0 upstream failed, 0 not run\n");

    r = dag({"walk", "-", "--reverse", "--parallelism", "1", "--exclude", "b", "--exec", "echo \"ran $DAG_VERTEX\""},
            forked);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "a: ran a\nd: ran d\n");
    EXPECT_EQ(r.err, "2 ok, 0 failed, 0 upstream failed, 0 not run\n");

    r = dag({"walk", deploy, "--target", "[root] aws_db_instance.main (expand)"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "6 ok, 0 failed, 0 upstream failed, 0 not run\n");
    std::vector<std::string> ran = lines(r.out);
    std::sort(ran.begin(), ran.end());
    EXPECT_EQ(ran, (std::vector<std::string>{"[root] aws_db_instance.main (expand)",
                                             "[root] aws_security_group.web (expand)",
                                             "[root] aws_subnet.public (expand)", "[root] aws_vpc.main (expand)",
                                             provider, "[root] var.region"}));
}

TEST(CliSelect, UnknownNameExitsWithStatus2BeforeAnythingRuns) {
    const std::vector<std::vector<std::string>> commands{{"order", deploy}, {"walk", deploy, "--exec", "echo ran"}};
    for (const std::vector<std::string> &command : commands)
        for (const char *option : {"--target", "--exclude"}) {
            std::vector<std::string> args = command;
            args.insert(args.end(), {option, "[root] root", "aws_instance.web"});
            Result r = dag(args);
            EXPECT_EQ(r.status, 2) << command[0] << " " << option;
            EXPECT_EQ(r.out, "");
            EXPECT_EQ(r.err, "dag: " + deploy + ": no vertex is named \"aws_instance.web\"\n");
        }
    Result r = dag({"order", "-", "--target"}, forked);
    EXPECT_EQ(r.status, 2) << "a --target without a name is a usage error";
}

// A random DAG as DOT: v<i> may depend on any v<j> with j < i.
struct RandomDot {
    size_t n;
    std::vector<std::vector<bool>> reaches;  // [i][j]: v<i> depends on v<j>, transitively
    std::string text = "digraph {";

    explicit RandomDot(std::mt19937 &rng) : n(std::uniform_int_distribution<size_t>(1, 12)(rng)) {
        std::bernoulli_distribution edge(0.25);
        reaches.assign(n, std::vector<bool>(n, false));
        for (size_t i = 0; i < n; ++i) {
            text += " v" + std::to_string(i) + ";";
            for (size_t j = 0; j < i; ++j)
                if (edge(rng)) {
                    text += " v" + std::to_string(i) + " -> v" + std::to_string(j) + ";";
                    reaches[i][j] = true;
                }
        }
        text += " }";
        for (size_t k = 0; k < n; ++k)
            for (size_t i = 0; i < n; ++i)
                if (reaches[i][k])
                    for (size_t j = 0; j < n; ++j)
                        if (reaches[k][j]) reaches[i][j] = true;
    }
};

TEST(CliSelect, OrderMatchesABruteForceSelectionOnRandomGraphs) {
    std::mt19937 rng(15);
    for (int round = 0; round < 40; ++round) {
        RandomDot g(rng);
        std::uniform_int_distribution<size_t> any(0, g.n - 1), few(0, 2);
        std::vector<size_t> targets(few(rng)), excludes(few(rng));
        for (size_t &t : targets) t = any(rng);
        for (size_t &x : excludes) x = any(rng);
        const bool reverse = round % 2;
        std::vector<std::string> args{"order", "-"};
        if (reverse) args.push_back("--reverse");
        if (!targets.empty()) args.push_back("--target");
        for (size_t t : targets) args.push_back("v" + std::to_string(t));
        if (!excludes.empty()) args.push_back("--exclude");
        for (size_t x : excludes) args.push_back("v" + std::to_string(x));

        std::set<std::string> expected;
        for (size_t v = 0; v < g.n; ++v) {
            bool kept = targets.empty();
            for (size_t t : targets) kept = kept || t == v || (reverse ? g.reaches[v][t] : g.reaches[t][v]);
            for (size_t x : excludes) kept = kept && !(x == v || (reverse ? g.reaches[x][v] : g.reaches[v][x]));
            if (kept) expected.insert("v" + std::to_string(v));
        }
        Result r = dag(args, g.text);
        ASSERT_EQ(r.status, 0) << r.err;
        const std::vector<std::string> order = lines(r.out);
        EXPECT_EQ(std::set<std::string>(order.begin(), order.end()), expected) << g.text << " round " << round;
        EXPECT_EQ(order.size(), expected.size()) << "a vertex listed twice";
    }
}

}  // namespace

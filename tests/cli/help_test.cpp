// Every command's --help ends with an example and the exit statuses; each
// example's commands are run here and print what the help says they print.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "help_commands.hpp"

namespace {

using namespace cli_test;

struct ExampleStep {
    std::string command;
    std::string output;
};

// The lines after "Example:", each indented by two spaces: "$ command",
// then what it prints.
std::vector<ExampleStep> example_of(const std::string &help) {
    std::vector<ExampleStep> steps;
    bool in_example = false;
    for (const std::string &line : lines_of(help)) {
        if (line == "Example:") {
            in_example = true;
        } else if (in_example && line.rfind("  $ ", 0) == 0) {
            steps.push_back({line.substr(4), ""});
        } else if (in_example && line.rfind("  ", 0) == 0 && !steps.empty()) {
            steps.back().output += line.substr(2) + "\n";
        } else if (in_example) {
            break;
        }
    }
    return steps;
}

std::string directory_of(const std::string &path) { return path.substr(0, path.rfind('/')); }

TEST(CliHelp, EveryCommandsHelpShowsAnExampleOfItAndTheExitStatuses) {
    ScratchDir dir;
    for (const std::string &command : listed_commands(dir)) {
        Outcome r = shell(dir, dag_command({command, "--help"}));
        EXPECT_EQ(r.status, 0) << command << ": " << r.err;
        const std::vector<ExampleStep> example = example_of(r.out);
        ASSERT_FALSE(example.empty()) << command << " has no example:\n" << r.out;
        bool uses_it = false;
        for (const ExampleStep &step : example)
            uses_it = uses_it || step.command.find("dag " + command + " ") != std::string::npos;
        EXPECT_TRUE(uses_it) << command << ":\n" << r.out;
        EXPECT_NE(r.out.find("\nExit status: 0 ok; 1 "), std::string::npos) << command << ":\n" << r.out;
    }
}

TEST(CliHelp, ExamplesPrintWhatTheHelpSays) {
    ScratchDir dir;
    // `dag` on PATH as the examples spell it; HOME in the scratch
    // directory, so that an example never writes outside it.
    const std::string environment =
        "cd " + cli_test::quoted(dir.path) + " && HOME=" + cli_test::quoted(dir.path) + " PATH=" + cli_test::quoted(directory_of(DAG_CLI)) + ":\"$PATH\" ";
    size_t steps = 0;
    for (const std::string &command : listed_commands(dir)) {
        Outcome help = shell(dir, dag_command({command, "--help"}));
        for (const ExampleStep &step : example_of(help.out)) {
            Outcome r = shell(dir, environment + "bash -c " + cli_test::quoted(step.command + " 2>&1"));
            EXPECT_EQ(r.out, step.output) << "dag " << command << " --help: $ " << step.command;
            ++steps;
        }
    }
    EXPECT_GE(steps, 12u);
}

TEST(CliHelp, OrderSaysItsDirectionWithThreeVertices) {
    ScratchDir dir;
    Outcome r = shell(dir, dag_command({"order", "--help"}));
    EXPECT_NE(r.out.find("a -> b and b -> c: a depends on b, b on c"), std::string::npos) << r.out;
    const std::vector<ExampleStep> example = example_of(r.out);
    ASSERT_EQ(example.size(), 2u) << r.out;
    EXPECT_EQ(example[0].output, "c\nb\na\n");
    EXPECT_EQ(example[1].command.find("--reverse") != std::string::npos, true) << r.out;
    EXPECT_EQ(example[1].output, "a\nb\nc\n");
}

}  // namespace

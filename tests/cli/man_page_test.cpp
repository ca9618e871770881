// dag(1), as the build wrote it: roff that groff reads without a warning,
// naming every command, and what `dag --man` prints now.
#include <gtest/gtest.h>

#include <string>

#include "help_commands.hpp"

namespace {

using namespace cli_test;

TEST(CliManPage, GroffReadsItWithoutWarnings) {
    ScratchDir dir;
    const std::string page = read_file(DAG_MAN_PAGE);
    ASSERT_FALSE(page.empty()) << DAG_MAN_PAGE;
    EXPECT_EQ(page, shell(dir, dag_command({"--man"})).out);
    // -ww: every warning; -z: no output, only the check.
    Outcome r = shell(dir, "groff -man -ww -z " + quoted(DAG_MAN_PAGE));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    r = shell(dir, "groff -man -ww -Tutf8 " + quoted(DAG_MAN_PAGE) + " | col -bx");
    EXPECT_EQ(r.err, "");
    for (const char *heading : {"NAME", "SYNOPSIS", "COMMANDS", "EXIT STATUS"})
        EXPECT_NE(r.out.find(std::string("\n") + heading + "\n"), std::string::npos) << heading;
    EXPECT_NE(r.out.find("$ echo 'digraph { a -> b; b -> c }' | dag order --reverse -"), std::string::npos)
        << r.out;
}

TEST(CliManPage, NamesEveryCommandAndOption) {
    ScratchDir dir;
    const std::string page = read_file(DAG_MAN_PAGE);
    for (const std::string &command : listed_commands(dir))
        EXPECT_NE(page.find(".SS \"dag " + command + " "), std::string::npos) << command;
    for (const char *option : {"\\-\\-progress", "\\-\\-output", "\\-\\-reverse", "\\-\\-version"})
        EXPECT_NE(page.find(std::string("\\fB") + option + "\\fR"), std::string::npos) << option;
    // What --help shows beside an option: its values, default and whether
    // it must be given.
    for (const char *told : {"Most vertices running at once. Takes UINT in [1 \\- 1024]. Default: 10.",
                             "One of: \\fBgrouped\\fR, \\fBnone\\fR, \\fBstream\\fR. Default: grouped.",
                             "One of: \\fBdot\\fR, \\fBjson\\fR.", "Takes FLOAT in [0 \\- 86400]. Default: 5.",
                             "One of: \\fBtext\\fR, \\fBdot\\fR, \\fBmermaid\\fR, \\fBjson\\fR. Required."})
        EXPECT_NE(page.find(told), std::string::npos) << told;
    // Hidden: it is for the build.
    EXPECT_EQ(page.find("\\-\\-man"), std::string::npos);
}

}  // namespace

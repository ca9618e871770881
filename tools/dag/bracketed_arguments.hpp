// Arguments written as "[...]" reach dag's commands as written.
//
// CLI11 2.1.2 reads such an argument, given to an option that takes several
// values, as a list: it drops the brackets and splits at the commas, so that
// `dag ancestors FILE '[root] provider["registry.terraform.io/hashicorp/aws"]'`
// looked for vertices that no Terraform graph has. Nothing in CLI11 turns
// that off: each such argument is marked before CLI11 reads it, and every
// option takes the mark off again before its value is used.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace dagcli {

// The command line with its bracketed arguments marked.
class BracketedArguments {
public:
    BracketedArguments(int argc, char **argv);
    int argc() const { return static_cast<int>(pointers_.size()); }
    const char *const *argv() const { return pointers_.data(); }

private:
    std::vector<std::string> arguments_;
    std::vector<const char *> pointers_;
};

// Has every option of `app` and of its commands, however deep, take the
// mark off its values. Call it once every command has been added.
void unmark_bracketed_arguments(CLI::App &app);

}  // namespace dagcli
